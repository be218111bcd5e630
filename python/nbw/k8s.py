"""Kubernetes: the manifests of deploy/kubernetes/ rendered with their values
(scripts/k8s-render) and a pod's log split into its result documents and the rest
(scripts/k8s-collect).

    python3 -m nbw.k8s render KDIR VALUES_FILE OUT_DIR|"" yes|no [NAME=VALUE...]
    python3 -m nbw.k8s split-log LOG DIR POD PHASE
"""
import base64
import glob
import json
import os
import re
import sys

from .command import run_verbs

INT = r"[0-9]+"
# The kind of each value that is not a plain string: (pattern, what it must be).
KINDS = {
    "SOURCES": (r"[1-9][0-9]*", "a positive integer"),
    "RDMA_COUNT": (r"[1-9][0-9]*", "a positive integer"),
    "PORT": (r"[1-9][0-9]{0,4}", "a port"),
    "DEADLINE": (r"[1-9][0-9]*", "seconds"),
    "DURATION": (INT, "seconds"), "WARMUP": (INT, "seconds"),
    "SINK_WAIT": (INT, "seconds"), "NET_TIMEOUT": (r"[1-9][0-9]*", "seconds"),
    "THREADS": (r"[1-9][0-9]*", "a positive integer"),
    "HOST_NETWORK": (r"true|false", "true or false"),
    "PRIVILEGED": (r"true|false", "true or false"),
    "NAMESPACE": (r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", "a DNS label"),
    "SINK_NODE": (r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,251}[A-Za-z0-9])?", "a node name"),
    "RDMA_RESOURCE": (r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?",
                      "an extended resource name (domain/name)"),
    "SOURCE_LABEL": (r"([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?",
                     "a label key"),
    "SOURCE_MODE": (r"disk|mem", "disk or mem"),
    "PSK": (r"random|none", "random or none"),
    "ALLOW": (r"any|{0}(,{0})*".format(r"([0-9]{1,3}(\.[0-9]{1,3}){3}|[0-9A-Fa-f]*:[0-9A-Fa-f:.]*)"
                                        r"(/[0-9]{1,3})?"),
              "any or CIDR[,CIDR...] (e.g. 10.0.0.0/8)"),
    "VERIFY": (r"canary|full|off", "canary, full or off"),
    "CHUNK": (r"[1-9][0-9]*([kKmMgG](i?[bB])?)?", "a size (1M, 512K)"),
    "SINK_DRAM": (r"[1-9][0-9]*([kKmMgGtT](i?[bB])?)?", "a size (16G)"),
    "SINK_MEMORY": (r"[1-9][0-9]*(Ki|Mi|Gi|Ti|k|M|G|T)?", "a quantity (20Gi)"),
    "SOURCE_MEMORY": (r"[1-9][0-9]*(Ki|Mi|Gi|Ti|k|M|G|T)?", "a quantity (4Gi)"),
}
# The pre-shared key: its Secret's template, and the file the pods read it from.
PSK_TEMPLATE = "05-psk.yaml"
PSK_PATH = "/etc/nvme-rdma-bw/psk/psk"
PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")
RESULT_BEGIN = re.compile(r"^=== nvme-rdma-bw result begin: role=(\w+) index=(\d+) .*exit=(\d+) ===$")
RESULT_END = "=== nvme-rdma-bw result end ==="


class Bad(Exception):
    """A wrong template, values file or value: the message and the exit status."""

    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


def parse_values(lines, name):
    """({NAME: value}, [names in file order]) of a values file's LINES: NAME=VALUE, one
    word or empty; blank lines and # comments skipped."""
    values, order = {}, []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^([A-Z][A-Z0-9_]*)=(\S*)$", line)
        if not m:
            raise Bad("%s:%d: not NAME=VALUE (one word or empty): %s" % (name, n, line))
        values[m.group(1)] = m.group(2)
        order.append(m.group(1))
    return values, order


def apply_overrides(values, overrides):
    """NAME=VALUE arguments over VALUES; a name the file does not have is a usage error."""
    for o in overrides:
        k, v = o.split("=", 1)
        if k not in values:
            raise Bad("%s: no such value (scripts/k8s-render --list)" % k, 2)
        values[k] = v


def check_values(values):
    """Each value of a known kind matches it; the ports fit; no quote or backslash."""
    for k, (rx, what) in KINDS.items():
        if k in values and not re.fullmatch(rx, values[k]):
            raise Bad("%s=%s: not %s" % (k, values[k], what), 2)
    if int(values.get("PORT", "1")) + int(values.get("SOURCES", "1")) - 1 > 65535:
        raise Bad("PORT=%s: PORT + SOURCES - 1 is not a port" % values["PORT"], 2)
    for k, v in values.items():
        if '"' in v or "\\" in v:
            raise Bad("%s: quotes and backslashes are not allowed in values" % k, 2)


def derive(values):
    """The values the templates take from others (never set by hand): from PSK, the key
    file the pods pass (PSK_FILE) and the Secret's data (PSK_DATA: a fresh key of 32
    random bytes, as base64 text, at each render); from ALLOW, the sink's --allow list
    (ALLOW_CIDRS, empty with ALLOW=any). A values file without PSK or ALLOW leaves them
    unset: the templates then say which value is missing."""
    if "PSK" in values:
        on = values["PSK"] == "random"
        key = base64.b64encode(os.urandom(32)) + b"\n"
        values["PSK_FILE"] = PSK_PATH if on else ""
        values["PSK_DATA"] = base64.b64encode(key).decode("ascii") if on else ""
    if "ALLOW" in values:
        values["ALLOW_CIDRS"] = "" if values["ALLOW"] == "any" else values["ALLOW"]


def substitute(text, values, template, values_file):
    """TEXT with every ${NAME} replaced by its value; a name without one is an error."""
    def sub(m):
        if m.group(1) not in values:
            raise Bad("%s: ${%s} has no value in %s" % (template, m.group(1), values_file))
        return values[m.group(1)]
    return PLACEHOLDER.sub(sub, text)


def render_docs(kdir, values, values_file):
    """[(file name, rendered text)] of KDIR/*.yaml in name order."""
    docs = []
    for path in sorted(glob.glob(os.path.join(kdir, "*.yaml"))):
        with open(path) as f:
            text = f.read()
        name = os.path.basename(path)
        if name == PSK_TEMPLATE and values.get("PSK") != "random":
            continue
        docs.append((name, substitute(text, values, name, values_file)))
    if not docs:
        raise Bad("%s: no *.yaml" % kdir)
    return docs


def render(kdir, values_file, out, list_only, *overrides):
    with open(values_file) as f:
        values, order = parse_values(f, values_file)
    if list_only == "yes":
        for k in order:
            print("%s=%s" % (k, values[k]))
        return 0
    apply_overrides(values, overrides)
    check_values(values)
    derive(values)
    docs = render_docs(kdir, values, values_file)
    if out:
        os.makedirs(out, exist_ok=True)
        for name, text in docs:
            with open(os.path.join(out, name), "w") as f:
                f.write(text)
    else:
        sys.stdout.write("\n---\n".join(t.rstrip("\n") for _, t in docs) + "\n")
    return 0


def split_log(lines):
    """(documents, rest) of a pod's log LINES: each document (role, index, exit status,
    its lines) between the entry point's begin and end lines; rest, everything else."""
    rest, docs, cur = [], [], None
    for line in lines:
        line = line.rstrip("\n")
        m = RESULT_BEGIN.match(line)
        if m:
            cur = (m.group(1), int(m.group(2)), int(m.group(3)), [])
        elif line == RESULT_END and cur:
            docs.append(cur)
            cur = None
        elif cur:
            cur[3].append(line)
        else:
            rest.append(line)
    return docs, rest


def collect_log(log, d, pod, phase):
    """DIR/aggregate-POD.log (the log without its documents) and aggregate-POD[.I].json
    per document; status 1 if there is none, one is not JSON or its tool failed."""
    with open(log, errors="replace") as f:
        docs, rest = split_log(f)
    with open("%s/aggregate-%s.log" % (d, pod), "w") as f:
        f.write("\n".join(rest) + ("\n" if rest else ""))
    if not docs:
        last = [x for x in rest if x.strip()][-1:] or ["(empty log)"]
        sys.stderr.write("k8s-collect: %s (%s): no result in its log: %s\n" % (pod, phase, last[0]))
        return 1
    ok = True
    for role, idx, rc, lines in docs:
        name = pod if idx == 0 or role != "sink" else "%s.%d" % (pod, idx)
        try:
            doc = json.loads("\n".join(lines))
        except ValueError as e:
            sys.stderr.write("k8s-collect: %s: %s %d: not JSON (%s)\n" % (pod, role, idx, e))
            ok = False
            continue
        with open("%s/aggregate-%s.json" % (d, name), "w") as f:
            json.dump(doc, f)
            f.write("\n")
        if rc != 0:
            errs = [x for x in rest if x.strip()]
            sys.stderr.write("k8s-collect: %s: %s %d failed (exit %d)%s\n" % (
                pod, role, idx, rc, (": " + errs[-1]) if errs else ""))
            ok = False
    return 0 if ok else 1


def main(argv):
    try:
        return run_verbs(argv, {"render": (4, None, render),
                                "split-log": (4, 4, collect_log)}, __doc__)
    except Bad as e:
        sys.stderr.write("k8s-render: %s\n" % e)
        return e.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
