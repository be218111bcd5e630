"""nbw-results: the suite's record of runs (see cli.py for the command line)."""
