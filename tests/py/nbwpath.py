"""Imported first by every test module: puts python/ (the package nbw) on sys.path,
so that `python3 -m unittest discover -s tests/py` runs from anywhere."""
import os
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PYTHON = os.path.join(TOP, "python")
SCRIPTS = os.path.join(TOP, "scripts")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
sys.dont_write_bytecode = True
if PYTHON not in sys.path:
    sys.path.insert(0, PYTHON)
