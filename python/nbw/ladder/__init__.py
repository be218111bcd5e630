"""The ladder of a run_bench.sh ladder run: model.py (the lower rungs, the binding rung,
the staging hop), text.py (the table and the lines under it), chart.py (the chart),
attribute.py (the gap explained hop by hop), upper.py (TCP and NFS), xfer.py (rsync to a
daemon and over ssh) and report.py (the command, ladder_report)."""
