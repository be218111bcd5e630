"""Text output: tables, numbers, and --json instead of text."""
import json
import sys

from ..jsonutil import gb_text, printable


def fmt(v, f="%.2f"):
    """v in f, "-" for None; a GB/s figure ("%.2f") under 0.1 keeps two significant
    digits (jsonutil.gb_text: 0.0042, not 0.00)."""
    if f == "%.2f" and v is not None:
        return gb_text(v)
    return f % v if v is not None else "-"


def table(cols, rows, right=()):
    """The rows under their columns; every cell printable (a recorded word's newline
    escaped, never a row of its own)."""
    rows = [[printable(str(c)) for c in r] for r in rows]
    w = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(cols)]
    out = []
    for r in [list(cols)] + rows:
        out.append("  ".join(v.rjust(w[i]) if i in right else v.ljust(w[i])
                             for i, v in enumerate(r)).rstrip())
    return "\n".join(out)


def emit(args, doc, text):
    if args.json:
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        # The one way text reaches the terminal: a recorded word's control bytes (a
        # name, a note, a command) escaped, line by line. A word's newline is escaped
        # where the word is put into its line (show, table): a split here would make it
        # a line of its own.
        print("\n".join(printable(line) for line in text.split("\n")))
