"""A file over HTTP, bounded: what a lab node fetches from another (the Slurm lab's
munge key and slurm.conf, published by node a's python3 -m http.server).

    python3 -m nbw.fetch URL FILE      (5 s at most per connection and read)

Exit status: 0 FILE written; 1 the URL could not be read or FILE written (one line
naming it); 2 usage.
"""
import argparse
import sys
import urllib.request

from . import command


def fetch(url, path, timeout=5):
    """URL's body into PATH (written only once the whole body has arrived)."""
    with urllib.request.urlopen(url, timeout=timeout) as r:
        data = r.read()
    with open(path, "wb") as f:
        f.write(data)


def main(argv):
    p = command.Parser(prog="fetch", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url", metavar="URL")
    p.add_argument("file", metavar="FILE")
    args = p.parse_args(argv)
    try:
        fetch(args.url, args.file)
    except (OSError, ValueError) as e:
        sys.stderr.write("fetch: %s: %s\n" % (args.url, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
