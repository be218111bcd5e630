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
