"""Reading a results database (docs/results-schema.md) with sqlite3.

    from flashlab.results import Results
    with Results("results/wa.db") as r:
        for run in r.runs(status="complete"):
            print(run["params"], r.final_wa(run["id"]))

The file is opened read-only (``mode=ro``): nothing here writes it
(SQLite may create its -wal/-shm side files, as for any reader).  Rows
come back as plain dicts keyed by column name; ``params`` is decoded from
JSON and ``seed`` is returned as the unsigned 64-bit value the run used
(SQLite stores it as the same bits, signed).  Per-run rows keep the order
they were written in.  Needs no C library.
"""

import json
import os
import sqlite3
import urllib.parse

__all__ = ["Results", "open_results", "SCHEMA_VERSION", "APPLICATION_ID"]

SCHEMA_VERSION = 3          # RESULTS_SCHEMA_VERSION this reader knows
APPLICATION_ID = 0x464C4142  # "FLAB"

class ResultsError(Exception):
    """The file is not a results database this reader understands."""


def _uint64(v):
    return v & 0xFFFFFFFFFFFFFFFF if isinstance(v, int) else v


def open_results(path):
    return Results(path)


class Results:
    """A results database, open read-only."""

    def __init__(self, path, immutable=False):
        """Open path read-only.  Like any SQLite reader of a WAL database
        this may create the -wal/-shm side files (the database itself is
        never written).  immutable=True reads a finished file without
        locking or side files (read-only media); it must then not be
        written by anyone while open."""
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "no such results database", path)
        self.path = path
        uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path))
        if immutable:
            uri += "&immutable=1"
        self._db = sqlite3.connect(uri, uri=True)
        self._db.row_factory = sqlite3.Row
        try:
            app = self._db.execute("PRAGMA application_id").fetchone()[0]
            ver = self._db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise ResultsError("%s: not an SQLite database (%s)" % (path, e)) from e
        if app != APPLICATION_ID:
            self._db.close()
            raise ResultsError("%s: not a flashlab results database (application_id %#x)"
                               % (path, app))
        if ver > SCHEMA_VERSION:
            self._db.close()
            raise ResultsError("%s: results schema version %d is newer than this reader "
                               "supports (%d)" % (path, ver, SCHEMA_VERSION))
        self.schema_version = ver

    # ---- life cycle ---------------------------------------------------------

    def close(self):
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def query(self, sql, params=()):
        """Rows of any SELECT, as dicts."""
        if self._db is None:
            raise ValueError("results database is closed")
        return [dict(r) for r in self._db.execute(sql, params)]

    # ---- experiments and runs ---------------------------------------------

    def experiments(self, name=None):
        """Experiments (id, name, config_path, config_text, created_at,
        program_version, config_resolved, config_hash), by id; optionally
        only those called name, or name@HASH (HASH: the first hex digits
        of config_hash, as `flashlab plot --experiment`)."""
        if name is None:
            return self.query("SELECT * FROM experiments ORDER BY id")
        rows = self.query("SELECT * FROM experiments WHERE name = ? ORDER BY id", (name,))
        if rows or "@" not in name:
            return rows
        base, prefix = name.rsplit("@", 1)
        return [r for r in self.query("SELECT * FROM experiments WHERE name = ? ORDER BY id",
                                      (base,))
                if (r.get("config_hash") or "").startswith(prefix)]

    def _experiment_ids(self, spec):
        """The ids spec (NAME or NAME@HASH) selects; several configs under
        one name must not be mixed: a ValueError lists them."""
        rows = self.experiments(spec)
        hashes = {r.get("config_hash") for r in rows}
        if len(hashes) > 1:
            raise ValueError("experiment %r has several configs in this database, whose "
                             "runs must not be mixed: %s; choose one with NAME@HASH" % (
                                 spec, ", ".join("%s@%s" % (r["name"], r.get("config_hash"))
                                                 for r in rows)))
        return [r["id"] for r in rows]

    def experiment(self, exp_id):
        rows = self.query("SELECT * FROM experiments WHERE id = ?", (exp_id,))
        return rows[0] if rows else None

    @staticmethod
    def _run(row):
        row["params"] = json.loads(row["params"]) if row["params"] is not None else None
        row["seed"] = _uint64(row["seed"])
        return row

    def runs(self, experiment=None, status=None):
        """Runs, by experiment and run_index; experiment is an id, a name
        or name@HASH (see experiments(); a name with several configs is a
        ValueError); status one of running, complete, failed, incomplete
        (or a list)."""
        sql, args = "SELECT r.* FROM runs r JOIN experiments e ON e.id = r.experiment_id", []
        where = []
        if experiment is not None:
            ids = (self._experiment_ids(experiment) if isinstance(experiment, str)
                   else [experiment])
            where.append("r.experiment_id IN (%s)" % ",".join("?" * len(ids) or ["NULL"]))
            args.extend(ids)
        if status is not None:
            statuses = [status] if isinstance(status, str) else list(status)
            where.append("r.status IN (%s)" % ",".join("?" * len(statuses)))
            args.extend(statuses)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY r.experiment_id, r.run_index, r.id"
        return [self._run(r) for r in self.query(sql, args)]

    def run(self, run_id):
        rows = self.query("SELECT * FROM runs WHERE id = ?", (run_id,))
        return self._run(rows[0]) if rows else None

    # ---- per-run rows ------------------------------------------------------

    def _rows(self, table, run_id, order="rowid"):
        return self.query("SELECT * FROM %s WHERE run_id = ? ORDER BY %s" % (table, order),
                          (run_id,))

    def samples(self, run_id):
        """The run's samples as a list of dicts, by seq."""
        return self._rows("samples", run_id, "seq, rowid")

    def erase_snapshots(self, run_id):
        """The seq numbers of the run's erase-count snapshots, ascending."""
        return [r["seq"] for r in self.query(
            "SELECT DISTINCT seq FROM erase_counts WHERE run_id = ? ORDER BY seq", (run_id,))]

    def erase_counts(self, run_id, seq=None):
        """One snapshot of erase counts as a list indexed by block (None for
        a block missing from it); seq None is the last snapshot.  [] when
        the run has none."""
        if seq is None:
            row = self.query("SELECT max(seq) AS s FROM erase_counts WHERE run_id = ?",
                             (run_id,))
            seq = row[0]["s"]
            if seq is None:
                return []
        rows = self.query("SELECT block, erases FROM erase_counts WHERE run_id = ? AND seq = ?"
                          " ORDER BY block", (run_id, seq))
        if not rows:
            return []
        out = [None] * (rows[-1]["block"] + 1)
        for r in rows:
            out[r["block"]] = r["erases"]
        return out

    def all_erase_counts(self, run_id):
        """{seq: list indexed by block} for every snapshot of the run."""
        return {s: self.erase_counts(run_id, s) for s in self.erase_snapshots(run_id)}

    def mounts(self, run_id):
        rows = self._rows("mounts", run_id)
        for r in rows:
            if r["clean"] is not None:
                r["clean"] = bool(r["clean"])
        return rows

    def gc_events(self, run_id):
        return self._rows("gc_events", run_id)

    def latency(self, run_id):
        """{op: {count, p50_ns, p99_ns, p999_ns, max_ns, mean_ns}}."""
        out = {}
        for r in self._rows("latency", run_id):
            op = r.pop("op")
            r.pop("run_id")
            out[op] = r
        return out

    def powercuts(self, run_id):
        return self._rows("powercuts", run_id)

    def kv(self, run_id):
        """{key: value} of the run's free-form metrics."""
        return {r["key"]: r["value"] for r in self._rows("kv", run_id)}

    def final_wa(self, run_id):
        """Cumulative total write amplification at the run's last sample (None
        without samples).  The steady-state data WA the GC models predict is
        kv(run_id)["wa_steady"] (docs/validation.md, three kinds of WA)."""
        rows = self.query("SELECT wa FROM samples WHERE run_id = ? ORDER BY seq DESC, rowid DESC"
                          " LIMIT 1", (run_id,))
        return rows[0]["wa"] if rows else None

    def final_sample(self, run_id):
        rows = self.query("SELECT * FROM samples WHERE run_id = ? ORDER BY seq DESC, rowid DESC"
                          " LIMIT 1", (run_id,))
        return rows[0] if rows else None
