"""The command lines of the package: argparse with the suite's usage errors (Parser), and
the verb table of the modules that shell scripts call (python3 -m nbw.MODULE VERB
ARG...)."""
import argparse
import sys

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse with the suite's usage errors: one line on stderr, "NAME: MESSAGE HINT",
    exit status 2. A subclass sets name (default: the parser's prog) and hint, and may
    reword argparse's own messages in reword()."""

    name = None
    hint = "(--help)"

    def reword(self, message):
        return message

    def error(self, message):
        hint = " " + self.hint if self.hint else ""
        sys.stderr.write("%s: %s%s\n" % (self.name or self.prog, self.reword(message), hint))
        sys.exit(EXIT_USAGE)


def run_verbs(argv, verbs, usage):
    """Call the verb named by ARGV[0] with the rest of ARGV. VERBS maps a verb to
    (min_args, max_args or None, function); the function returns the exit status, or
    None for 0. An unknown verb or a wrong argument count prints USAGE: status 2."""
    if argv and argv[0] in verbs:
        lo, hi, fn = verbs[argv[0]]
        args = argv[1:]
        if len(args) >= lo and (hi is None or len(args) <= hi):
            rc = fn(*args)
            return 0 if rc is None else rc
    sys.stderr.write(usage)
    return EXIT_USAGE


# --options-table: a command's options as the bash completion reads them
# (completions/nbw-results), the Python counterpart of the C tools' TOOL --options-table.
# One line per verb, option and positional argument:
#   SCOPE NAME ARG SHORT VALUE [CHOICES]
# SCOPE: "-" before any verb, else the verb; NAME: the verb, --long (or the short option
# when it has no long one) or "-" for a positional; ARG: verb | none | required |
# optional | positional; SHORT: -x or "-"; VALUE: what a value is, from its metavar:
# file, dir or "-" (nothing to offer); CHOICES: the words it may be, comma-separated.
OPTIONS_TABLE = "--options-table"


def _value_kind(action):
    meta = str(action.metavar or action.dest or "").upper()
    if "FILE" in meta or "PNG" in meta or "PATH" in meta or "." in meta:
        return "file"
    if "DIR" in meta:
        return "dir"
    return "-"


def _option_rows(scope, parser):
    rows = []
    for a in parser._actions:
        if a.help == argparse.SUPPRESS or isinstance(a, argparse._SubParsersAction):
            continue
        choices = ",".join(str(c) for c in a.choices) if a.choices else ""
        if not a.option_strings:
            rows.append((scope, "-", "positional", "-", _value_kind(a), choices))
            continue
        longs = [o for o in a.option_strings if o.startswith("--")]
        shorts = [o for o in a.option_strings if not o.startswith("--")]
        if a.nargs == 0:
            arg = "none"
        elif a.nargs == "?":
            arg = "optional"
        else:
            arg = "required"
        for name in longs or shorts[:1]:
            rows.append((scope, name, arg, shorts[0] if shorts else "-",
                         _value_kind(a) if arg != "none" else "-", choices))
    return rows


def options_table(parser):
    """The lines of PARSER's --options-table (above), its verbs' after its own."""
    rows = _option_rows("-", parser)
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for verb, sub in a.choices.items():
                rows.append(("-", verb, "verb", "-", "-", ""))
                rows.extend(_option_rows(verb, sub))
    return [" ".join(c for c in r if c) for r in rows]


class _OptionsTable(argparse.Action):
    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, help=argparse.SUPPRESS)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write("".join(line + "\n" for line in options_table(parser)))
        parser.exit(0)


def add_options_table(parser):
    """Give PARSER the hidden --options-table (after its verbs are added or not: the
    table is read when the option is given)."""
    parser.add_argument(OPTIONS_TABLE, action=_OptionsTable)
    return parser
