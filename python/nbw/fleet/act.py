"""nbw.fleet.act: what a site does with a judgement: the exit status by the verdict
(--fail-on, judge's and run's), JUnit XML (--junit), SUSPECT nodes drained in Slurm
(run --drain), and the time formats of Slurm (--max-time).

Drain: one `scontrol update nodename=NODE state=drain reason="nbw: ..."` per SUSPECT
node, its argv built here and never through a shell: the node's name must be a Slurm
host name (letters, digits, . _ -; not a hostlist expression), the reason is the
verdict's words in printable ASCII without quotes, at most REASON_MAX characters. A
drain that fails is said in one line and recorded; the verdict is written before it.
"""

import re
import subprocess
import sys

from . import PROG, junit
from ..jsonutil import printable

EXIT_EXPECTATION = 3  # plan over its time, --fail-on suspect
EXIT_UNMEASURED = 4  # --fail-on unmeasured: a node or pair not measured
EXIT_DRAIN = 1  # --drain: a drain failed (and no --fail-on status)

SLURM_NODE_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$")
REASON_MAX = 160
DRAIN_TIMEOUT_S = 30


def fail_status(result, fail_on):
    """--fail-on: 3 when a suspect stays low (with unsteady: or was low once), 4 when
    none is but a node or pair was not measured (unmeasured), else 0."""
    steady = any(s["state"] == "low" for s in result["suspects"])
    if "suspect" in fail_on and steady or "unsteady" in fail_on and result["suspects"]:
        return EXIT_EXPECTATION
    if "unmeasured" in fail_on and (result["not_measured"] or result["not_measured_parts"]
                                    or result["skipped"]):
        return EXIT_UNMEASURED
    return 0


# --- --max-time: Slurm's time formats ---------------------------------------------------

TIME_WORDS = ("minutes, MM:SS, H:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (Slurm's --time), "
              "or a number with a unit: 90s, 20m, 2h")


def slurm_time(text):
    """Seconds of a time in Slurm's formats (a bare number is minutes: "30" is 30 min;
    "MM:SS", "H:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"), or of a number with a unit
    (s, m, h); ValueError, one line, otherwise. Zero is refused (Slurm's "no limit" is
    no --max-time)."""
    t = text.strip()
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(s|m|h)", t)
    if m:
        secs = float(m.group(1)) * {"s": 1, "m": 60, "h": 3600}[m.group(2)]
    else:
        secs = _slurm_fields(t)
    if secs is None:
        raise ValueError("%s: not a time: %s" % (printable(text[:40]), TIME_WORDS))
    if secs <= 0:
        raise ValueError("%s: no time at all: give the sweep a limit above 0" % text)
    return secs


def _slurm_fields(t):
    """Seconds of Slurm's D-HH[:MM[:SS]] or M, M:S, H:M:S; None when it is none."""
    m = re.fullmatch(r"([0-9]{1,4})-([0-9]{1,2})(?::([0-9]{1,2}))?(?::([0-9]{1,2}))?", t)
    if m:
        d, h = int(m.group(1)), int(m.group(2))
        mi, s = int(m.group(3) or 0), int(m.group(4) or 0)
        if h > 23 or mi > 59 or s > 59:
            return None
        return float(((d * 24 + h) * 60 + mi) * 60 + s)
    if not re.fullmatch(r"[0-9]{1,7}(?::[0-9]{1,2}){0,2}", t):
        return None
    parts = [int(x) for x in t.split(":")]
    if any(x > 59 for x in parts[1:]):
        return None
    if len(parts) == 1:
        return parts[0] * 60.0
    if len(parts) == 2:
        return parts[0] * 60.0 + parts[1]
    return parts[0] * 3600.0 + parts[1] * 60 + parts[2]


# --- drain ------------------------------------------------------------------------------

def drain_reason(verdict):
    """The reason a drained node carries: "nbw: " and the verdict's words, printable
    ASCII without quotes or backslashes, spaces collapsed, at most REASON_MAX
    characters."""
    words = str(verdict.get("what") or "SUSPECT")
    words = re.sub(r"[^A-Za-z0-9 .,:;%/()+_=<>@#-]", " ", words)
    words = " ".join(words.split())
    reason = "nbw: " + (words or "SUSPECT")
    return reason if len(reason) <= REASON_MAX else reason[:REASON_MAX - 3].rstrip() + "..."


def drain_argv(node, reason):
    """scontrol's argv to drain node; ValueError when node is no Slurm host name."""
    if not SLURM_NODE_RE.match(node or ""):
        raise ValueError("'%s': not a Slurm node name (letters, digits, . _ -): not drained"
                         % printable(str(node)[:80]))
    return ["scontrol", "update", "nodename=%s" % node, "state=drain", "reason=%s" % reason]


def drain(result, env=None, run=subprocess.run):
    """Drain every SUSPECT node of the judgement; [{"node", "reason", "ok", "error"}],
    each said on stderr."""
    out = []
    for v in result.get("verdicts") or []:
        if v.get("verdict") != "SUSPECT":
            continue
        node, reason = v.get("node"), drain_reason(v)
        entry = {"node": node, "reason": reason, "ok": False, "error": None}
        try:
            argv = drain_argv(node, reason)
            r = run(argv, capture_output=True, text=True, timeout=DRAIN_TIMEOUT_S, env=env)
            if r.returncode != 0:
                last = [x for x in (r.stderr or r.stdout or "").splitlines() if x.strip()]
                entry["error"] = "scontrol exit status %d%s" % (
                    r.returncode, ": " + last[-1][:200] if last else "")
            else:
                entry["ok"] = True
        except ValueError as e:
            entry["error"] = str(e)
        except subprocess.TimeoutExpired:
            entry["error"] = "scontrol did not answer in %d s" % DRAIN_TIMEOUT_S
        except OSError as e:
            entry["error"] = "scontrol: %s" % e.strerror
        out.append(entry)
        say("drained %s (reason \"%s\")" % (node, reason) if entry["ok"] else
            "drain of %s failed: %s; the verdict stands" % (node, entry["error"]))
    return out


def say(text):
    sys.stderr.write(printable("%s: %s" % (PROG, text)) + "\n")
    sys.stderr.flush()


# --- after a run's judgement ------------------------------------------------------------

def write_junit(path, result):
    """JUnit XML of result into path; False (said) when it cannot be written."""
    try:
        with open(path, "w") as f:
            junit.write(result, f)
        return True
    except OSError as e:
        say("%s: %s" % (path, e.strerror))
        return False


def after_run(args, result, env=None, meta=None):
    """run's --junit, --drain and --fail-on once its judge.json is written: the exit
    status (the verdict's by --fail-on; else 1 when the JUnit file or a drain failed).
    meta (sweep.json's) records the drains."""
    ok = True
    if getattr(args, "junit", None):
        ok = write_junit(args.junit, result)
    if getattr(args, "drain", False):
        drained = drain(result, env)
        if meta is not None:
            meta["drained"] = drained
        ok = ok and all(d["ok"] for d in drained)
    status = fail_status(result, getattr(args, "fail_on", ()) or ())
    return status or (0 if ok else EXIT_DRAIN)


def launcher_note(env, kind, explicit=False):
    """One line when a sweep inside a Slurm allocation (SLURM_JOB_ID) is launched by
    LAUNCHER's fan-out (LAUNCHER set to another than srun, or --launcher ssh: explicit)
    rather than srun, else None."""
    if not env.get("SLURM_JOB_ID") or kind == "srun":
        return None
    words = (env.get("LAUNCHER") or "").split() or ["ssh"]
    why = "--launcher ssh" if explicit else "LAUNCHER=%s" % words[0]
    return ("inside Slurm job %s, %s overrides srun: each step reaches the nodes through "
            "%s, a process per node, not one srun step over the allocation" % (
                env["SLURM_JOB_ID"][:20], why, words[0]))
