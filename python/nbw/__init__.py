"""nbw: the nvme-rdma bandwidth suite's Python, one package, standard library only.

The commands in scripts/ (nbw-results, nbw-fleet, ladder_report, vlab, k8s-render,
...) are thin entry points over these modules; the shell scripts call the others
with `python3 -m nbw.<module>` (nbw_py in bench_lib.sh). Modules by concern:

  jsonutil      reading values out of the tools' JSON documents, once
  xmltext       text for XML 1.0 (the JUnit writers'): what it cannot carry replaced
  command       the verb table of the modules the shell scripts call
  portcounters  what an RDMA port's counter deltas say about loss and congestion
  drivehealth   what a drive said of itself around a window: throttled, hot, media
                errors, a critical warning, an unsteady window
  pcipath       sums of drive figures capped by the PCIe links the drives share
  names         node names in their natural order (n1, n2 .. n10 .. n128), once
  launcher      how a command reaches a node (LAUNCHER, LAUNCHER_QUOTE, kubectl):
                run_bench.sh's and nbw-fleet's one rule
  results       nbw-results, the record of runs: documents, provenance, record,
                store, compare (compare_view), inventory, HTML report, OpenMetrics, push,
                a sweep's nodes (sweep_nodes, sweep_show), references and checks (verbs_ref),
                a fleet run's compact record line (compact)
  ladder        ladder_report: the ladder of a run_bench.sh ladder run (lower and
                upper rungs, rsync to a daemon and over ssh (ladder.xfer), the gap explained hop by hop, the chart)
  fleet         nbw-fleet, the fleet sweep: plan, run, judge, report
  summary       run_bench.sh's summary table and run.json
  sweep         scale_sweep.sh's tables (the sweep and the local -> remote boundary)
  bench_read    bench_read.sh's figures and tables (nvme_read_bw against fio)
  benchremote   bench_remote.sh's figures and ratios
  k8s           the Kubernetes manifests (render) and the pods' results (collect)
  fetch         a file over HTTP, bounded (the Slurm lab's nodes)
  lab           the virtual lab (vlab): kernel, qemu arguments, network, link watch
"""
