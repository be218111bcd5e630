"""A file over HTTP, bounded: what a lab node fetches from another (the Slurm lab's
munge key and slurm.conf, published by node a's python3 -m http.server).

    python3 -m nbw.fetch URL FILE      (5 s at most per connection and read)
"""
import sys
import urllib.request


def fetch(url, path, timeout=5):
    """URL's body into PATH (written only once the whole body has arrived)."""
    with urllib.request.urlopen(url, timeout=timeout) as r:
        data = r.read()
    with open(path, "wb") as f:
        f.write(data)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    fetch(*argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
