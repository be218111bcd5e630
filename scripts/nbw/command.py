"""The command line of the modules that shell scripts call (python3 -m nbw.MODULE VERB
ARG...): a table of verbs, each with how many arguments it takes."""
import sys


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
    return 2
