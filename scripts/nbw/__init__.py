"""nbw: the nvme-rdma bandwidth suite's Python, one package, standard library only.

The commands in scripts/ (nbw-results, ladder_report, plot_scaling, vlab, k8s-render,
...) are thin entry points over these modules; the shell scripts call the summaries
with `python3 -m nbw.<module>`. Modules by concern:

  jsonutil   reading values out of the tools' JSON documents, once
  results    the record of runs: documents, store, compare, inventory, HTML report
  ladder     the ladder of a run_bench.sh ladder run (lower and upper rungs)
  summary    run_bench.sh's summary table and run.json
  sweep      scale_sweep.sh's tables (the sweep and the local -> remote boundary)
  plot       plot_scaling's gnuplot chart of a sweep
  k8s        the Kubernetes manifests (render) and the pods' results (collect)
  lab        the virtual lab (vlab): kernel, qemu arguments, network, link watch
"""
