"""The record's shared ground: its names, formats, limits, errors and times."""
import datetime
import sys

from ..jsonutil import MAX_DOC as _MAX_DOC, printable


PROG = "nbw-results"
FORMAT = 1  # the record lines' format
SCHEMA_VERSION = 1  # the index's schema: columns are only ever added
RECORD = "runs.jsonl"
INDEX = "index.sqlite"
MAX_DOC = _MAX_DOC  # bytes of one input document
# File systems on which SQLite's locking cannot be trusted (network and cluster).
NETWORK_FS = {"nfs", "nfs4", "lustre", "cifs", "smb3", "smbfs", "ncpfs", "afs", "ceph",
              "gpfs", "beegfs", "orangefs", "pvfs2", "glusterfs", "fuse.glusterfs",
              "fuse.sshfs", "fuse.cephfs", "fuse.beegfs", "davfs", "fuse.s3fs", "ocfs2",
              "gfs2", "9p"}  # 9p: a VM's share of its host; qemu's server grants every lock
# Parameters that do not decide comparability (how long, where, how often printed).
NOT_COMPARED = {"duration_s", "warmup_s", "interval_s", "port", "timeout_s", "wait_s"}
# run_bench.sh settings (run.json) that decide comparability.
RUN_SETTINGS = ("CHUNK", "THREADS", "TX_DEPTH", "VERIFY", "BIDIR", "RDMA_DEV", "SINK_DISKS",
                "SRC_DISKS", "READ_ARGS", "SINK_ARGS", "SRC_ARGS", "DRAM")
WORSE = 3  # exit status of compare and check: a figure worse beyond noise / its bounds
NOTHING_COMPARED = 4  # exit status of compare, check, trend: no figure could be compared
NOISE_FLOOR = 2.0  # % below which a change is within noise, whatever the samples say
LARGE = 10.0  # % from which a change beyond noise is large


class Fail(Exception):
    """An error that ends the command: one line on stderr and an exit status."""

    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def warn(msg):
    """One line on stderr: every control byte of a recorded word in it escaped."""
    sys.stderr.write("%s: %s\n" % (PROG, printable(msg)))


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_of(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def epoch_of(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return None
