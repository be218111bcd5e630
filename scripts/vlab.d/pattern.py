#!/usr/bin/python3
# scripts/vlab.d/pattern.py: the lab's drive pattern (see nbw/lab/pattern.py).
#
# A thin entry point: the code is nbw/lab/pattern.py (python/nbw, the package).
import os
import sys

sys.dont_write_bytecode = True  # never litter the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))), "python"))
from nbw.lab.pattern import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
