"""The ladder of a run_bench.sh ladder run: report.py (the lower rungs, the binding
rung, the table, the chart) and upper.py (TCP and NFS)."""
