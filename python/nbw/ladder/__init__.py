"""The ladder of a run_bench.sh ladder run: model.py (the lower rungs, the binding rung,
the staging hop), text.py (the table and the lines under it), chart.py (the chart),
attribute.py (the gap explained hop by hop), upper.py (TCP and NFS), xfer.py (rsync to a
daemon and over ssh), nicev.py (the
NIC's evidence: ethtool, MTU, pause and PFC), transfer.py (the user's own transfer,
run_bench.sh's TRANSFER_CMD), why.py (the sentences of why: which rung binds the
transfer, ssh's cipher, rsync's protocol, copy vs zero-copy, a direction) and
report.py (the command, ladder_report)."""
