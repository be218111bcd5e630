"""The record and its index: DIR/runs.jsonl (append-only JSON lines, the truth) and
DIR/index.sqlite, rebuilt from the record whenever it is missing, stale or damaged."""
import errno
import fcntl
import hashlib
import json
import os
import re
import sqlite3

from .. import jsonutil
from . import compact
from ..jsonutil import as_float, dicts, canon
from .base import Fail, INDEX, MAX_DOC, NETWORK_FS, RECORD, SCHEMA_VERSION, now_utc, warn
from .documents import count, text

MAX_LINE = MAX_DOC  # bytes of one record line: what its reader (parse_line) reads back
APART = "documents"  # DIR/documents/RUN/N.json: a run's documents too large for its line


def fs_type(path):
    """The file system type of the mount holding path (its deepest existing part)."""
    hook = os.environ.get("NBW_RESULTS_TEST_FSTYPE")
    if hook:
        return hook
    p = os.path.realpath(path)
    while not os.path.exists(p) and p != os.path.dirname(p):
        p = os.path.dirname(p)
    best, kind = "", None
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = left.split()
                if len(fields) < 5 or not right:
                    continue
                mnt = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
                if (p == mnt or p.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                    best, kind = mnt, right.split()[0]
    except OSError:
        return None
    return kind


def default_dir():
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                            "share")
    return os.path.join(base, "nbw-results")


TABLES = {
    "runs": [("uuid", "TEXT PRIMARY KEY"), ("seq", "INTEGER"), ("line", "INTEGER"),
             ("recorded", "TEXT"), ("started", "TEXT"), ("finished", "TEXT"), ("mode", "TEXT"),
             ("note", "TEXT"), ("change_starts", "INTEGER"), ("params_hash", "TEXT"),
             ("suite_version", "TEXT"), ("commands", "TEXT"), ("hosts", "TEXT"),
             ("exit_status", "INTEGER"), ("failed", "TEXT"), ("excluded", "TEXT"),
             ("verdicts", "TEXT")],  # a fleet sweep's {node: verdict}
    "figures": [("run", "TEXT"), ("rung", "TEXT"), ("node", "TEXT"), ("drive", "TEXT"),
                ("gb_per_s", "REAL"), ("cv_pct", "REAL"), ("samples", "INTEGER"),
                ("params_hash", "TEXT"), ("params", "TEXT"), ("metrics", "TEXT"),
                ("part", "TEXT")],  # a sweep's part: its model, firmware, node's verdict
    # Notes and exclusions made after the fact: record lines of their own, never deleted.
    "notes": [("run", "TEXT"), ("at", "TEXT"), ("kind", "TEXT"), ("text", "TEXT")],
    "inventories": [("run", "TEXT"), ("host", "TEXT"), ("hash", "TEXT"), ("data", "TEXT")],
    "refs": [("seq", "INTEGER"), ("set_at", "TEXT"), ("run", "TEXT"), ("rung", "TEXT"),
             ("node", "TEXT"), ("drive", "TEXT"), ("ref", "REAL"), ("lower", "REAL"),
             ("upper", "REAL"), ("unit", "TEXT"), ("params_hash", "TEXT"),
             ("metric", "TEXT"),  # NULL: gb_per_s (references made before the column)
             # a reference by model: its part's key (drive model and firmware, port
             # model and rate), NULL by node; how many runs and parts it is the median of
             ("part", "TEXT"), ("runs", "INTEGER"), ("parts", "INTEGER")],
    "skipped": [("line", "INTEGER"), ("offset", "INTEGER"), ("reason", "TEXT")],
    # Each document's provenance (where and when it was made) and its run id.
    "provenance": [("run", "TEXT"), ("document", "TEXT"), ("host", "TEXT"),
                   ("run_id", "TEXT"), ("start", "TEXT"), ("end", "TEXT"), ("data", "TEXT")],
    "state": [("key", "TEXT PRIMARY KEY"), ("value", "TEXT")],
}


def schema(con):
    """Create the tables, add the columns a newer schema has (never drop one)."""
    con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, "
                "applied TEXT NOT NULL)")
    for table, cols in TABLES.items():
        con.execute("CREATE TABLE IF NOT EXISTS %s (%s)" % (
            table, ", ".join("%s %s" % c for c in cols)))
        have = {r[1] for r in con.execute("PRAGMA table_info(%s)" % table)}
        for name, kind in cols:
            if name not in have:
                con.execute("ALTER TABLE %s ADD COLUMN %s %s" % (
                    table, name, kind.replace(" PRIMARY KEY", "")))
    con.execute("CREATE INDEX IF NOT EXISTS figures_run ON figures(run)")
    con.execute("CREATE INDEX IF NOT EXISTS provenance_id ON provenance(run_id)")
    v = con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    if v is None or v < SCHEMA_VERSION:
        con.execute("INSERT INTO schema_version VALUES (?, ?)", (SCHEMA_VERSION, now_utc()))


class Store:
    """The record (DIR/runs.jsonl) under an exclusive flock, and its index. Lines are
    added all or none: the record's size before them is written to DIR/runs.jsonl.journal
    first, and a journal found when the store is opened (a writer that died mid-line)
    cuts the record back to that size."""

    def __init__(self, directory, index=None, create=False):
        self.dir = directory
        self.record = os.path.join(directory, RECORD)
        self.journal = self.record + ".journal"
        self.index = index or os.path.join(directory, INDEX)
        self.con = None
        self.lockf = None
        idx_dir = os.path.dirname(os.path.abspath(self.index))
        kind = fs_type(idx_dir)
        if kind in NETWORK_FS:
            raise Fail(1, "%s: on %s: SQLite's locking is unreliable on network and cluster "
                          "file systems; put the index on local disk (--index FILE or "
                          "NBW_RESULTS_INDEX), the record may stay" % (idx_dir, kind))
        if create:
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as e:
                raise Fail(1, "%s: %s" % (directory, e.strerror))
        if not os.path.exists(self.record) and not create:
            self.empty = True
            return
        self.empty = False
        try:
            try:
                self.lockf = open(self.record, "a+b")
                fcntl.flock(self.lockf, fcntl.LOCK_EX)
            except OSError as e:
                # A record this user may only read (shared): read it under a shared lock.
                if create or e.errno not in (errno.EACCES, errno.EROFS, errno.EPERM):
                    raise
                self.lockf = open(self.record, "rb")
                fcntl.flock(self.lockf, fcntl.LOCK_SH)
        except OSError as e:
            raise Fail(1, "%s: %s" % (self.record, e.strerror))
        self.roll_back()
        self.sync()

    def roll_back(self):
        """A journal left by a writer that died: the record cut back to its size then."""
        try:
            with open(self.journal) as f:
                size = int(f.read(64).strip())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as e:
            raise Fail(1, "%s: unreadable (%s): remove it if no record is being written"
                       % (self.journal, e))
        have = self.size()
        if size < 0 or size > have:
            raise Fail(1, "%s: says %d bytes, the record has %d: remove it if no record "
                       "is being written" % (self.journal, size, have))
        try:
            os.truncate(self.record, size)
            os.fsync(self.lockf.fileno())
            os.unlink(self.journal)
        except OSError as e:
            raise Fail(1, "%s: cannot roll back an interrupted record: %s (read-only? "
                       "the record's owner must run nbw-results once)" % (self.record,
                                                                          e.strerror))
        warn("%s: a record cut short (%d bytes) rolled back" % (self.record, have - size))

    def close(self):
        if self.con:
            self.con.close()
        if self.lockf:
            self.lockf.close()

    def append(self, entry):
        """One line at the end of the record (under the lock), then into the index."""
        self.append_all([entry])

    def append_all(self, entries):
        """Lines at the end of the record, all or none: the journal says the size to go
        back to until every byte is on disk; an error on the way goes back at once. Each
        line is bounded whole first (bounded(): its large documents stored apart, a line
        its reader would refuse refused) before any byte is written."""
        lines, apart = [], {}
        for e in entries:
            line, files = bounded(e)
            lines.append(line)
            apart.update(files)
        f = self.lockf
        f.seek(0, os.SEEK_END)
        size = f.tell()
        data = b"".join(line + b"\n" for line in lines)
        if size > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                data = b"\n" + data  # a line cut short long ago stays a line of its own
        crash = os.environ.get("NBW_RESULTS_TEST_CRASH_AFTER")  # tests: die mid-write
        try:
            self.put_apart(apart)
            with open(self.journal, "w") as j:
                j.write("%d\n" % size)
                j.flush()
                os.fsync(j.fileno())
            f.seek(0, os.SEEK_END)
            if crash:
                f.write(data[:int(crash)])
                f.flush()
                os._exit(9)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            os.unlink(self.journal)
        except BaseException as e:
            try:
                f.flush()
            except OSError:
                pass
            try:
                os.truncate(self.record, size)
                os.unlink(self.journal)
            except OSError:
                pass  # the journal stays: the next command rolls it back
            for rel in apart:  # no line names them
                try:
                    os.unlink(os.path.join(self.dir, rel))
                except OSError:
                    pass
            if isinstance(e, OSError):
                raise Fail(1, "%s: %s (nothing recorded)" % (self.record, e.strerror))
            raise
        self.sync()

    def put_apart(self, apart):
        """The documents stored apart, each written whole (a temporary file renamed)
        and on disk before the line that names them."""
        for rel, blob in sorted(apart.items()):
            path = os.path.join(self.dir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = "%s.tmp.%d" % (path, os.getpid())
            with open(tmp, "wb") as out:
                out.write(blob)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)

    # -- the index ----------------------------------------------------------------
    def open_index(self):
        con = sqlite3.connect(self.index, timeout=30)
        # The index is rebuilt from the record when damaged: no fsync for it.
        con.execute("PRAGMA synchronous=OFF")
        if con.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            con.close()
            raise sqlite3.DatabaseError("integrity check failed")
        schema(con)
        return con

    def sync(self):
        """Bring the index up to the record: catch up, or rebuild it when damaged."""
        why = None
        try:
            self.con = self.open_index()
            state = dict(self.con.execute("SELECT key, value FROM state"))
            done = int(state.get("bytes", -1))
            if done < 0:
                why = "new" if not state else "no state"
            elif done > self.size() or state.get("tail") != self.tail(done):
                why = "the record changed under it"
        except (sqlite3.DatabaseError, ValueError) as e:
            why = str(e)
        if why:
            self.rebuild()
            if why != "new":
                warn("%s: %s: rebuilt from the record" % (self.index, why))
        self.catch_up()

    def size(self):
        return os.fstat(self.lockf.fileno()).st_size

    def tail(self, upto):
        self.lockf.seek(max(0, upto - 4096))
        return hashlib.sha256(self.lockf.read(upto - max(0, upto - 4096))).hexdigest()

    def rebuild(self):
        if self.con:
            self.con.close()
        tmp = "%s.tmp.%d" % (self.index, os.getpid())
        for p in (tmp, tmp + "-journal"):
            if os.path.exists(p):
                os.unlink(p)
        try:
            con = sqlite3.connect(tmp)
            con.execute("PRAGMA synchronous=OFF")
            schema(con)
            con.execute("INSERT INTO state VALUES ('bytes', '0'), ('lines', '0'), ('tail', ?)",
                        (self.tail(0),))
            con.commit()
            con.close()
            os.replace(tmp, self.index)
            for p in (self.index + "-journal", self.index + "-wal"):
                if os.path.exists(p):
                    os.unlink(p)
        except (OSError, sqlite3.Error) as e:
            raise Fail(1, "%s: cannot write the index: %s (put it elsewhere: --index FILE)"
                       % (self.index, e))
        self.con = self.open_index()

    def catch_up(self):
        state = dict(self.con.execute("SELECT key, value FROM state"))
        done, lineno = int(state["bytes"]), int(state["lines"])
        size = self.size()
        if done >= size:
            return
        self.lockf.seek(done)
        data = self.lockf.read(size - done)
        end = data.rfind(b"\n") + 1  # a last line without its newline waits
        seq = self.con.execute("SELECT COALESCE(MAX(seq), 0) FROM runs").fetchone()[0]
        rseq = self.con.execute("SELECT COALESCE(MAX(seq), 0) FROM refs").fetchone()[0]
        off = done
        try:
            for raw in data[:end].split(b"\n")[:-1]:
                lineno += 1
                entry, why = parse_line(raw)
                if why:
                    warn("%s: line %d: %s (skipped)" % (self.record, lineno, why))
                    self.con.execute("INSERT INTO skipped VALUES (?, ?, ?)", (lineno, off, why))
                else:
                    self.con.execute("SAVEPOINT line")
                    try:
                        if entry["kind"] == "run":
                            self.index_run(entry, seq + 1, lineno)
                            seq += 1
                        elif entry["kind"] in ("note", "exclude"):
                            self.index_note(entry)
                        else:
                            self.index_ref(entry, rseq + 1)
                            rseq += 1
                    except (TypeError, ValueError, OverflowError, AttributeError,
                            RecursionError, sqlite3.InterfaceError) as e:
                        self.con.execute("ROLLBACK TO line")
                        why = "not a usable %s (%s)" % (entry["kind"], e)
                        warn("%s: line %d: %s (skipped)" % (self.record, lineno, why))
                        self.con.execute("INSERT INTO skipped VALUES (?, ?, ?)",
                                         (lineno, off, why))
                    self.con.execute("RELEASE line")
                off += len(raw) + 1
            self.con.execute("UPDATE state SET value = ? WHERE key = 'bytes'", (str(done + end),))
            self.con.execute("UPDATE state SET value = ? WHERE key = 'lines'", (str(lineno),))
            self.con.execute("UPDATE state SET value = ? WHERE key = 'tail'",
                             (self.tail(done + end),))
            self.con.commit()
        except sqlite3.Error as e:
            raise Fail(1, "%s: cannot write the index: %s (put it elsewhere: --index FILE)"
                       % (self.index, e))

    def index_run(self, e, seq, lineno):
        if self.con.execute("SELECT 1 FROM runs WHERE uuid = ?", (e["uuid"],)).fetchone():
            warn("%s: line %d: run %s recorded twice (the first one counts)" % (
                self.record, lineno, e["uuid"]))
            return
        inv = e.get("inventory") or {}
        self.con.execute(
            "INSERT INTO runs (uuid, seq, line, recorded, started, finished, mode, note, "
            "change_starts, params_hash, suite_version, commands, hosts, exit_status, failed) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (e["uuid"], seq, lineno, text(e.get("recorded")), text(e.get("start")),
             text(e.get("end")), text(e.get("mode")), text(e.get("note"), 4096),
             1 if e.get("change_starts") else 0, text(e.get("params_hash")),
             text(e.get("suite_version")), canon(e.get("commands") or []),
             canon(sorted({str(f.get("node")) for f in e["figures"] if f.get("node")} |
                          {str(n) for n in e.get("nodes") or [] if isinstance(n, str)})),
             e.get("exit_status") if isinstance(e.get("exit_status"), int) else None,
             text(e.get("failed"), 4096)))
        if isinstance(e.get("verdicts"), dict):  # a fleet sweep's, each node's word
            self.con.execute("UPDATE runs SET verdicts = ? WHERE uuid = ?", (canon({
                text(k): text(v, 40) for k, v in e["verdicts"].items()
                if isinstance(k, str) and isinstance(v, str)}), e["uuid"]))
        for f in e["figures"]:
            m = f.get("metrics") if isinstance(f.get("metrics"), dict) else {}
            m = {str(k): as_float(v) for k, v in m.items() if as_float(v) is not None}
            part = f.get("part") if isinstance(f.get("part"), dict) else None
            self.con.execute("INSERT INTO figures VALUES (?,?,?,?,?,?,?,?,?,?,?)", (
                e["uuid"], text(f.get("rung")), text(f.get("node")), text(f.get("drive")),
                as_float(f.get("gb_per_s")), as_float(f.get("cv_pct")), count(f.get("samples")),
                text(f.get("params_hash")), canon(f.get("params") or {}), canon(m),
                canon(part) if part else None))
        provs = e.get("provenance") if isinstance(e.get("provenance"), dict) else {}
        for doc, p in provs.items():
            if isinstance(p, dict):
                self.con.execute("INSERT INTO provenance VALUES (?,?,?,?,?,?,?)", (
                    e["uuid"], text(doc), text(p.get("host")), text(p.get("run_id")),
                    text(p.get("start")), text(p.get("end")), canon(p)))
        for host, v in inv.items() if isinstance(inv, dict) else ():
            if isinstance(v, dict):
                self.con.execute("INSERT INTO inventories VALUES (?,?,?,?)", (
                    e["uuid"], text(host), text(v.get("hash")), canon(v.get("data"))))

    def index_note(self, e):
        run, why = text(e.get("run")), text(e.get("text"), 4096)
        if not run or not self.con.execute("SELECT 1 FROM runs WHERE uuid = ?",
                                            (run,)).fetchone():
            raise ValueError("no such run %s" % run)
        self.con.execute("INSERT INTO notes VALUES (?,?,?,?)",
                         (run, text(e.get("at")), e["kind"], why))
        if e["kind"] == "exclude":
            self.con.execute("UPDATE runs SET excluded = ? WHERE uuid = ?",
                             (why or "excluded", run))

    def index_ref(self, e, seq):
        # "entries": the GB/s figures; "metrics": the others (IOPS, latency, ...), a list
        # of their own so that an older nbw-results never reads them as GB/s.
        for r in dicts(e.get("entries")) + dicts(e.get("metrics")):
            metric = text(r.get("metric")) or "gb_per_s"
            if as_float(r.get("ref")) is not None:
                self.con.execute(
                    "INSERT INTO refs (seq, set_at, run, rung, node, drive, ref, lower, upper, "
                    "unit, params_hash, metric, part, runs, parts) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (
                        seq, text(e.get("set_at")), text(e.get("run")), text(r.get("rung")),
                        text(r.get("node")), text(r.get("drive")), as_float(r.get("ref")),
                        as_float(e.get("lower")), as_float(e.get("upper")),
                        text(r.get("unit", "GB/s")), text(r.get("params_hash")), metric,
                        text(r.get("part")), count(r.get("runs")), count(r.get("parts"))))

    # -- queries ---------------------------------------------------------------------
    def q(self, sql, args=()):
        if self.empty:
            return []
        cur = self.con.execute(sql, args)
        names = [c[0] for c in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def runs(self):
        return self.q("SELECT * FROM runs ORDER BY seq")

    def figures(self, run):
        return self.q("SELECT * FROM figures WHERE run = ? ORDER BY rowid", (run,))

    def notes(self, run):
        return self.q("SELECT * FROM notes WHERE run = ? ORDER BY rowid", (run,))

    def provenance(self, run):
        """{document: its provenance as recorded} of a run."""
        return {r["document"]: json.loads(r["data"]) for r in self.q(
            "SELECT * FROM provenance WHERE run = ? ORDER BY rowid", (run,))}

    def run_of_id(self, run_id):
        """The run that recorded a document of this run id, or None."""
        hit = self.q("SELECT run FROM provenance WHERE run_id = ? LIMIT 1", (run_id,))
        return hit[0]["run"] if hit else None

    def inventories(self, run):
        return {r["host"]: r for r in self.q("SELECT * FROM inventories WHERE run = ?", (run,))}

    def resolve(self, spec):
        """A run from its id, a unique prefix of it, latest or latest~N."""
        runs = self.runs()
        if not runs:
            raise Fail(1, "no runs recorded in %s" % self.dir)
        m = re.match(r"^latest(?:~([0-9]+))?$", spec)
        if m:
            k = int(m.group(1) or 0)
            if k >= len(runs):
                raise Fail(2, "%s: only %d runs recorded" % (spec, len(runs)))
            return runs[-1 - k]
        if not re.match(r"^[0-9a-fA-F-]+$", spec):
            raise Fail(2, "%s: not a run (an id, a prefix of one, latest, latest~N)" % spec)
        hits = [r for r in runs if r["uuid"].startswith(spec.lower())]
        if not hits:
            raise Fail(2, "%s: no such run" % spec)
        if len(hits) > 1:
            raise Fail(2, "%s: ambiguous, %d runs start so (%s)" % (
                spec, len(hits), ", ".join(r["uuid"][:8] for r in hits[:4])))
        return hits[0]


def bounded(entry, max_line=MAX_LINE):
    """(the record line of entry, {path under the record's directory: bytes} of the
    documents stored apart). A run's line holds its documents whole while it fits in
    max_line; past it the largest go apart (DIR/documents/RUN/N.json, the line naming
    each with its size and SHA-256) until it fits. A line its reader would still refuse
    (its figures or inventories past the bound, or anything parse_line skips) is Fail:
    nothing written, no figure of the run lost to a line no command can read back."""
    if entry.get("kind") == "run" and entry.get("mode") == "fleet":
        entry = compact.encode(entry)  # its figures and nodes as tables (format 2)
    line = canon(entry).encode()
    apart = {}
    docs = entry.get("documents")
    run = entry.get("uuid")
    if len(line) > max_line and isinstance(docs, dict) and isinstance(run, str) and \
            re.match(r"^[0-9a-f-]{1,64}$", run):
        blobs = {k: canon(v).encode() for k, v in docs.items()}
        order = sorted(blobs, key=lambda k: -len(blobs[k]))
        docs, size = dict(docs), len(line)
        for i, k in enumerate(order):
            if size <= max_line:
                break
            rel = "%s/%s/%d.json" % (APART, run, i)
            docs[k] = {"stored_apart": rel, "bytes": len(blobs[k]),
                       "sha256": hashlib.sha256(blobs[k]).hexdigest()}
            apart[rel] = blobs[k]
            size += len(canon(docs[k])) - len(blobs[k])
        entry["documents"] = docs
        line = canon(entry).encode()
    who = ", ".join(entry.get("sources") or []) or "the %s" % entry.get("kind", "line")
    if len(line) > max_line:
        raise Fail(1, "%s: the run's record line would be %.1f MiB, past the %d MiB a line "
                   "of the record may be (its figures and inventories, its documents "
                   "stored apart): refused, nothing recorded" % (
                       who, len(line) / 1048576.0, max_line >> 20))
    why = parse_line(line)[1]
    if why:
        raise Fail(1, "%s: a record line its reader would skip (%s): refused, nothing "
                   "recorded" % (who, why))
    return line, apart


def parse_line(raw):
    """(entry, None) for a usable record line, (None, why) for one to skip."""
    try:
        e = jsonutil.loads(raw)
    except ValueError as err:
        return None, "not valid JSON (%s)" % err
    if not isinstance(e, dict) or e.get("kind") not in ("run", "reference", "note",
                                                        "exclude"):
        return None, "not a run or a reference"
    if e["kind"] == "run" and e.get("format") == compact.FORMAT:
        try:
            compact.decode(e)  # a fleet run's tables read back into its figures
        except (ValueError, TypeError, AttributeError, RecursionError) as err:
            return None, "a compact run line that does not decode (%s)" % err
    if e["kind"] == "run" and (not isinstance(e.get("uuid"), str)
                               or not isinstance(e.get("figures"), list)
                               or not all(isinstance(f, dict) for f in e["figures"])):
        return None, "a run without an id or figures"
    return e, None
