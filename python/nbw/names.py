"""Node names in their natural order: n1, n2, .. n10, .. n128 (the digits of a name
compared as numbers, the rest as text), the one order of every list, compare, fleet
report and HTML page that names nodes."""
import re

_RUNS = re.compile(r"(\d+)")


def natural_key(name):
    """The sort key of a name (None and "" first): 'n9' before 'n10', 'rack2-n3' before
    'rack10-n1'; names equal as numbers ('n01', 'n1') by their text."""
    text = "" if name is None else str(name)
    parts = []
    for i, run in enumerate(_RUNS.split(text)):
        if i % 2:
            parts.append((1, int(run), ""))
        elif run:
            parts.append((0, 0, run))
    return tuple(parts), text


def natural(names):
    """The names sorted naturally (a new list)."""
    return sorted(names, key=natural_key)
