"""The package nbw as a whole: its docstring lists the modules that exist and nothing
else, and the build ships every module and every test module (python/Makemodule.am,
tests/py/Makemodule.am), so that a module added or removed cannot leave
either stale."""
import os
import re
import unittest

import nbwpath

NBW = os.path.join(nbwpath.PYTHON, "nbw")
TOP = nbwpath.TOP


def modules():
    """The package's modules and subpackages by name (nbw/NAME.py, nbw/NAME/)."""
    out = set()
    for name in os.listdir(NBW):
        path = os.path.join(NBW, name)
        if name.endswith(".py") and name != "__init__.py":
            out.add(name[:-3])
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            out.add(name)
    return out


class Package(unittest.TestCase):
    def test_docstring_lists_the_modules(self):
        import nbw
        listed = re.findall(r"^  ([a-z_0-9]+) ", nbw.__doc__, re.M)
        self.assertEqual(len(listed), len(set(listed)), listed)
        self.assertEqual(set(listed), modules())

    def test_build_ships_every_file(self):
        am = ""
        for name in ("python/Makemodule.am", "tests/py/Makemodule.am"):
            with open(os.path.join(TOP, name)) as f:
                am += f.read()
        shipped = set(re.findall(r"(?:python/nbw|tests/py)/[\w/]+\.py", am))
        files = set()
        for d in ("python/nbw", "tests/py"):
            for root, dirs, names in os.walk(os.path.join(TOP, d)):
                dirs[:] = [x for x in dirs if x != "__pycache__"]
                rel = os.path.relpath(root, TOP)
                files |= {os.path.join(rel, n) for n in names if n.endswith(".py")}
        self.assertEqual(files - shipped, set(), "not in python/Makemodule.am nor tests/py/Makemodule.am")
        self.assertEqual(shipped - files, set(), "in the .am files, not in the tree")


if __name__ == "__main__":
    unittest.main()
