"""validate.py [--part] [--refused] [--schema NAME] FILE...: each JSON document against
its schema in schema/ (NAME.schema.json; by default the document's own "tool", with
its "command" for nbw-fleet's), with python3-jsonschema (a test's package: the suite's
own Python stays stdlib-only). Every schema is first checked as a JSON Schema.

One line per file: "ok: FILE ..." or "FAIL: FILE ..." with the first errors, each at
its path in the document. --part: the file is a part of a document (a fixture cut to
what a reader reads, or written by an earlier build): a key it lacks is forgiven,
every key it has must still have its schema's type and shape, and a file that lacks
nothing is not a part (FAIL: take it off the list). --refused: each file must fail
(the proof that a broken document is caught; with --part, for a reason other than a
key it lacks). Exit 1 when any line says FAIL; exit 3,
saying so, when jsonschema is not installed."""
import json
import os
import sys

sys.dont_write_bytecode = True
SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema")

try:
    import jsonschema
except ImportError:
    sys.stderr.write("validate.py: python3's jsonschema is not installed "
                     "(Debian: python3-jsonschema)\n")
    sys.exit(3)


def load(name, cache={}):
    if name not in cache:
        with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        cache[name] = jsonschema.Draft202012Validator(schema)
    return cache[name]


def schema_name(doc):
    """The schema a document names by itself, or None."""
    if not isinstance(doc, dict) or not isinstance(doc.get("tool"), str):
        return None
    if doc["tool"] == "nbw-fleet" and isinstance(doc.get("command"), str):
        return "nbw-fleet-" + doc["command"]
    return doc["tool"]


def where(e):
    return "/".join(str(p) for p in e.absolute_path) or "(top)"


def main(argv):
    part = refused = False
    name, files = None, []
    args = iter(argv[1:])
    for a in args:
        if a == "--part":
            part = True
        elif a == "--refused":
            refused = True
        elif a == "--schema":
            name = next(args)
        else:
            files.append(a)
    for n in sorted(os.listdir(SCHEMAS)):
        if n.endswith(".schema.json"):
            load(n[:-len(".schema.json")])
    fails = 0
    for path in files:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("FAIL: %s: not a JSON document: %s" % (path, e))
            fails += 1
            continue
        sname = name or schema_name(doc)
        if not sname or not os.path.exists(os.path.join(SCHEMAS, sname + ".schema.json")):
            print("FAIL: %s: no schema for it (tool %r)" % (path, sname))
            fails += 1
            continue
        errors = sorted(load(sname).iter_errors(doc), key=lambda e: list(map(str, e.path)))
        if part:
            missing = [e for e in errors if e.validator == "required"]
            errors = [e for e in errors if e.validator != "required"]
            if not errors and not missing and not refused:
                print("FAIL: %s: valid whole against %s, listed as a part: take it off the "
                      "list" % (path, sname))
                fails += 1
                continue
        if refused:
            if errors:
                print("ok: %s: refused by %s: at %s: %s" % (
                    path, sname, where(errors[0]), errors[0].message[:200]))
            else:
                print("FAIL: %s: valid against %s, expected refused" % (path, sname))
                fails += 1
            continue
        if errors:
            fails += 1
            print("FAIL: %s: %d error(s) against %s" % (path, len(errors), sname))
            for e in errors[:5]:
                print("   at %s: %s" % (where(e), e.message[:300]))
        elif part:
            print("ok: %s: a part of a %s document (%d keys it lacks, the first: at %s: %s)" % (
                path, sname, len(missing), where(missing[0]), missing[0].message[:120]))
        else:
            print("ok: %s: valid against %s" % (path, sname))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
