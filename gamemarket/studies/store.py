"""The result store: one Parquet file per finished task, written atomically, keyed by a hash.

The key hashes everything that determines a task's numbers (workload content, node count, bid
distribution, strategy parameters, seed, model version), so a finished task is never recomputed
and a changed input never reuses a stale result. A file is written to a temporary name and moved
into place, so an interrupted study leaves only complete results behind.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import stat
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from gamemarket.errors import InputError
from gamemarket.io.files import (
    MANIFEST,
    OutputFolder,
    atomic_path,
    dumps_json,
    flock_pid,
    hold_lock,
    remove_stale_temps,
    shown_path,
)

# What a stored task holds; part of every task key, so a stored result of another format is never read.
# 2: the cohort sums are split by private-bid class (before: by G bin only).
# 3: the cohort sums are stored exactly (an Arrow IPC stream; before: JSON at 15 digits).
RESULTS_FORMAT = 3
#: the results folders (resolved) whose lock this process holds, with how many holds: ``ResultStore.lock``
HELD: dict[str, int] = {}


def set_aside(path: Path, reason: str, what: str = "stored result") -> None:
    """Move an untrustworthy stored file to ``<name>.corrupt`` (kept for inspection, never read) and warn
    that its run will be done again.

    Only a file that reads and is wrong is untrustworthy: one this process cannot open (no permission to read it, a
    name the system cannot take, an I/O error) is not set aside but an :class:`InputError` naming it, since it may
    be a valid result (a colleague's in a shared folder) that a rename would lose."""
    try:
        with open_stored(path, what):  # (without blocking: a pipe in a stored file's place is set aside too)
            pass
    except FileNotFoundError:
        return
    except NotStoredFile:
        pass
    aside = path.with_name(path.name + ".corrupt")
    try:
        os.replace(path, aside)
    except OSError:
        aside = path
    warnings.warn(
        f"{shown_path(path)}: {what} does not read ({reason[:200]}); kept as {shown_path(aside.name)}, and its task "
        "will be run again",
        stacklevel=3,
    )


def unreadable(path: Path, exc: BaseException, what: str = "stored result") -> InputError:
    """The error for a stored file this process cannot read for a reason of its surroundings, not of its content:
    named, with the reason, and said to be left as it is."""
    reason = getattr(exc, "strerror", None) or exc
    return InputError(
        f"{shown_path(path)}: cannot read the {what}: {reason}; it is left as it is (make it readable, or move it "
        "away to have its task run again)"
    )


def of_surroundings(exc: BaseException) -> bool:
    """Whether an error reading a stored file is one of its surroundings (no permission, an I/O error: an
    ``OSError`` with an error number), not of its content (Arrow's errors, an ``OSError`` without a number: "Unexpected
    end of stream", metadata that does not parse)."""
    return isinstance(exc, OSError) and exc.errno is not None


def open_stored(path: Path, what: str = "stored result"):
    """A stored file opened for reading, as a file object, which Arrow takes whatever the name's bytes (its own
    opening of a path takes UTF-8 names only: a folder named on a Latin-1 system read as corrupt); an error of
    opening it is an :class:`InputError` naming it (a missing file stays ``FileNotFoundError``); a name that holds
    no regular file (a pipe, a folder) is :class:`NotStoredFile`, opened without blocking to find out."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (a pipe in a stored file's place opens at once)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise unreadable(path, exc, what) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # not a file gamemarket stored: damage, set aside by `study run`, as a garbage file is
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else "a device or socket"
        raise NotStoredFile(f"it is {kind}, not a file gamemarket stored")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


class NotStoredFile(ValueError):
    """A stored result's name holds something other than a regular file (hunt 17b-F5: a FIFO in a run file's place
    made `study status`, `report` and `study run` block for good)."""


def content_hash(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of a workload's arrays (names and bytes), part of every task key."""
    h = hashlib.sha256()
    for c in sorted(arrays):
        h.update(c.encode())
        h.update(arrays[c].tobytes())
    return h.hexdigest()


def task_key(fields: dict) -> str:
    """The stored result's key: a hash of every field that determines a task's numbers."""
    blob = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def study_store(spec, *, force: bool = False) -> "ResultStore":
    """A study's result store: its results folder, owned by its study file (the file relative to the
    folder, so a clone of a repository keeps the owner) and never one of its inputs (``spec.inputs()``)."""
    owner = os.path.relpath(spec.path, spec.results_dir) if spec.path else f"study {spec.name}"
    return ResultStore(spec.results_dir, owner=owner, force=force, inputs=spec.inputs())


def _legacy_results(root: Path) -> set[str] | None:
    """The files of a results folder written before manifests (every run then made its ``.lock``): the lock,
    the last run's record and the consolidated tables; the per-task files are named by their keys."""
    if not (root / ".lock").is_file():
        return None
    tables = {f.relative_to(root).as_posix() for k in ResultStore.TABLES for f in root.glob(f"tables/*/{k}.parquet")}
    return {".lock", *(["last-run.json"] if (root / "last-run.json").is_file() else []), *tables}


#: what a study's run or report does in a results folder it is given (said where the folder is another study's):
#: its runs are keyed by their inputs and never removed; its consolidated tables are an index of the runs, rebuilt
#: from them when read ("it would replace: .lock, last-run.json, tables/..." named neither what is added nor kept)
RESULTS_WRITES = (
    "a run or a report adds this study's runs beside the folder's (runs/<key>.parquet: keyed by their inputs, "
    "shared where those are the same) and its analysis caches, and replaces the folder's consolidated tables "
    "(tables/: an index, rebuilt from the runs when read) and records (.lock, last-run.json, the manifest, which "
    "then names this study); it removes none of the folder's runs"
)


class ResultStore:
    """A study's stored results, one Parquet file per task under ``<root>/runs/``.

    The folder is the study's (:class:`~gamemarket.io.files.OutputFolder`, claimed by :meth:`lock`):
    a folder gamemarket did not make, or another study's, is refused unless ``force``. The per-task files
    are named by their keys; every other file the store writes is entered in the folder's manifest, and
    the store removes only files it entered there.

    Parameters
    ----------
    root : path
        The results folder.
    owner : str, optional
        The study the folder belongs to (its file relative to the folder).
    force : bool
        Use a folder gamemarket did not make, or another study's.
    inputs : iterable of path
        The study's input files: the folder may not be one of them.
    """

    def __init__(self, root: str | Path, *, owner: str | None = None, force: bool = False, inputs=()):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.owner = owner or "a gamemarket study"
        self.force = force
        self.inputs = list(inputs)
        self._folder: OutputFolder | None = None

    def claim(self, writes: str | None = None, *, guest: bool = False) -> OutputFolder:
        """The folder as this study's output (made, or checked to be the study's; see the class docstring);
        ``writes``: what the command writes there, said where the folder is refused (:class:`OutputFolder`);
        ``guest``: a command that only reads the runs (a report), which another study's folder does not become the
        study's (its manifest keeps its owner, with ``force``)."""
        if self._folder is None:
            self._folder = OutputFolder(
                self.root,
                guest=guest,
                writes=writes or RESULTS_WRITES,
                owner=self.owner,
                what="results folder",
                force=self.force,
                inputs=self.inputs,
                legacy=_legacy_results,
                owns=(  # what `study run` sets aside, and the population analysis's cache (hunt 18b, F6)
                    "runs/*.parquet",
                    "runs/*.corrupt",
                    "design.json.corrupt",
                    "analysis/*.json",
                    "analysis/*.corrupt",
                ),
            )
        return self._folder

    def write_record(self, name: str, data: dict) -> None:
        """A JSON record of the folder's own (``last-run.json``), entered in its manifest and written whole."""
        with atomic_path(self.claim().file(name, once=False), "run record") as tmp:
            tmp.write_text(dumps_json(data, indent=2), encoding="utf-8")

    def path(self, key: str) -> Path:
        """The file of a task's stored result."""
        return self.runs / f"{key}.parquet"

    def has(self, key: str, *, set_aside: bool = False, rows: bool = False) -> bool:
        """Whether a readable result of this task is stored.

        A file whose Parquet footer or metadata does not read (a truncated or corrupt file), or that
        records another task's key (a file copied or renamed by hand), or whose columns are not those it records (a
        column's type changed), or, with ``rows``, whose rows do not read or are not those it records (the file read
        whole: a row edited by hand), counts as missing: it is moved
        aside to ``<name>.corrupt`` with a warning, and its task is run again, with ``set_aside`` (what ``study run``
        does); by default (a query or a reader: ``study status``, a report) it counts as missing and nothing moves
        (:meth:`problem` says why).
        A file that cannot be read for a reason of its surroundings (no permission, an I/O error) is an
        :class:`InputError` naming it, and is never moved: it may be a valid result.
        """
        reason = self.problem(key, rows=rows)
        if reason is None:
            return True
        if set_aside and reason != NOT_STORED:
            self.set_aside(key, reason)
        return False

    def problem(self, key: str, *, rows: bool = False) -> str | None:
        """Why this task's stored result is not one to trust (:meth:`has`): :data:`NOT_STORED`, or what is wrong
        with its file; None where it reads."""
        path = self.path(key)
        if not path.exists():
            return NOT_STORED
        try:
            with open_stored(path) as f:
                schema = pq.read_schema(f)
            meta = schema.metadata or {}
            json.loads(meta[b"gamemarket.metrics"])
            stored = meta.get(b"gamemarket.key")  # results written before the key was recorded have none
            if stored is not None and stored.decode() != key:
                raise ValueError(f"it records the key {stored.decode()}: another run's result, copied or renamed")
            columns = meta.get(COLUMNS_KEY)  # (results written before the columns were recorded have none)
            if columns is not None and columns.decode() != columns_text(schema):
                raise ValueError(f"its columns are not those gamemarket wrote ({columns_text(schema)})")
            if rows:
                self.read_all(key)
            return None
        except InputError:
            raise
        except Exception as exc:  # the file read, and is not a result to trust
            if of_surroundings(exc):  # an I/O error: the file may be good; said, never moved
                raise unreadable(path, exc) from None
            return f"{type(exc).__name__}: {' '.join(str(exc).split())}"

    def set_aside(self, key: str, reason: str) -> None:
        """Move a task's unreadable stored result aside (``.corrupt``) with a warning; its task runs again."""
        set_aside(self.path(key), reason)

    @contextlib.contextmanager
    def lock(self, what: str = "study run", writes: str | None = None, *, guest: bool = False):
        """Hold the study's lock while writing its results or its report; a second writer of the same study (a
        run, a report) exits with a clear message naming the holder.

        An advisory ``flock`` on ``<root>/.lock``, released by the operating system when the holder exits, however
        it exits (a killed run never leaves a stale lock). The lock is the process's: held already (a study run
        that writes its report under it, and whose runs take it again), it is held once more, not taken twice.
        ``writes``: what the command writes in the folder, said where it is refused as another study's; ``guest``:
        :meth:`claim`'s.
        """
        key = str(self.root.resolve())
        if key in HELD:
            HELD[key] += 1
            try:
                yield
            finally:
                HELD[key] -= 1
            return
        path = self.claim(writes, guest=guest).file(".lock")
        f = open(path, "a+", encoding="utf-8")
        try:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                holder = f.read().strip() or "another process"
                raise InputError(
                    f"{self.root}: the study's results and report are being written by {holder}; wait for it to "
                    "finish (or stop it) and run again"
                ) from None
            f.seek(0)
            f.truncate()
            f.write(f"{what} (pid {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')})")
            f.flush()
            remove_stale_temps(self.root)  # what a killed run left half-written: never read, ours to clear
            HELD[key] = 1
            try:
                with hold_lock(self.root, path, f.fileno()):  # (a folder removed meanwhile is said, not written)
                    yield
            except BaseException:
                self._give_back(path)
                raise
            finally:
                del HELD[key]
        finally:
            f.close()

    def writer(self) -> str | None:
        """Who holds the study's lock now (its ``.lock`` file's text: "study run (pid N, since ...)"), or None: read
        from the kernel's table of locks (``/proc/locks``, Linux), so that asking takes no lock a writer starting
        at that moment would find held; None where that table is not there (hunt 16b: `study status` said nothing
        of a run in progress)."""
        path = self.root / ".lock"
        if flock_pid(path) in (None, os.getpid()):  # (this process's own hold: a report reading under its lock)
            return None
        try:
            return path.read_text(encoding="utf-8").strip() or "another process"
        except OSError:
            return "another process"

    def _give_back(self, lock: Path) -> None:
        """After a failure under the lock: a folder this process made for it, that holds nothing but its lock
        (the work failed before its first result: a workload that does not read), is removed again, as the
        command found the tree. The lock file goes while still held: a process that opens it now finds it gone
        from the folder, which it makes anew."""
        folder = self._folder
        if folder is None or not folder.created or folder.written - {".lock"}:
            return
        try:
            if {e.name for e in os.scandir(self.root)} - {".lock", MANIFEST}:  # results (``runs/``) are kept
                return
        except FileNotFoundError:  # removed meanwhile (by hand: :func:`hold_lock`): nothing left to give back
            return
        lock.unlink(missing_ok=True)
        folder.forget(".lock")  # the manifest lists nothing now: the claim is given back whole
        folder.abandon()
        self._folder = None

    def write(
        self, key: str, metrics: dict, bins: pd.DataFrame, task: dict, cohorts: pd.DataFrame | None = None
    ) -> Path:
        """Store one task's result atomically: binned sums as the table; metrics, task and cohorts as metadata."""
        table = pa.Table.from_pandas(bins, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[b"gamemarket.metrics"] = json.dumps(metrics).encode()
        meta[b"gamemarket.task"] = json.dumps(task, default=str).encode()
        meta[b"gamemarket.key"] = key.encode()
        meta[DIGEST_KEY] = table_digest(bins).encode()  # (read_all tells rows changed since)
        meta[COLUMNS_KEY] = columns_text(table.schema).encode()  # (has tells a column's type changed)
        if cohorts is not None:
            meta[b"gamemarket.cohorts"] = _ipc_bytes(cohorts)
        table = table.replace_schema_metadata(meta)
        target = self.path(key)
        with atomic_path(target, "stored result") as tmp:
            pq.write_table(table, tmp)
        return target

    def read(self, key: str) -> tuple[dict, pd.DataFrame, dict]:
        """A stored task's (metrics, binned sums, task description)."""
        table = self._read_table(self.path(key))
        meta = table.schema.metadata
        bins = _checked_rows(table.to_pandas(), meta)
        return json.loads(meta[b"gamemarket.metrics"]), bins, json.loads(meta[b"gamemarket.task"])

    def read_all(self, key: str) -> tuple[dict, pd.DataFrame, pd.DataFrame | None]:
        """A stored task's (metrics, binned sums, cohort sums or None), from one read of the file; a ``ValueError``
        where its rows are not those it records (:func:`table_digest`: a row repeated or edited by hand)."""
        table = self._read_table(self.path(key))
        meta = table.schema.metadata
        raw = meta.get(b"gamemarket.cohorts")
        cohorts = None if raw is None else _from_ipc_bytes(raw)
        bins = _checked_rows(table.replace_schema_metadata(_pandas_meta(meta)).to_pandas(), meta)
        return json.loads(meta[b"gamemarket.metrics"]), bins, cohorts

    def read_cohorts(self, key: str) -> pd.DataFrame | None:
        """A stored task's cohort sums (G bin x bid class), or None for results stored without them."""
        meta = self._read_schema(self.path(key)).metadata
        raw = meta.get(b"gamemarket.cohorts")
        return None if raw is None else _from_ipc_bytes(raw)

    def read_metrics(self, key: str) -> tuple[dict, dict]:
        """A stored task's (metrics, task description), read from the file's metadata only."""
        meta = self._read_schema(self.path(key)).metadata
        return json.loads(meta[b"gamemarket.metrics"]), json.loads(meta[b"gamemarket.task"])

    @staticmethod
    def _read_table(path: Path) -> pa.Table:
        """A stored Parquet file whole (:func:`open_stored`); an I/O error reading it names it."""
        with open_stored(path) as f:
            try:
                return pq.read_table(f)
            except OSError as exc:
                if of_surroundings(exc):
                    raise unreadable(path, exc) from None
                raise

    @staticmethod
    def _read_schema(path: Path) -> pa.Schema:
        """A stored Parquet file's schema and metadata (:func:`open_stored`)."""
        with open_stored(path) as f:
            return pq.read_schema(f)

    # -- consolidated tables ------------------------------------------------------------------------
    # One table per kind (metrics, bins, cohorts) for a whole study plan, under ``<root>/tables/<plan>/``:
    # what a report reads, instead of one file per task. ``plan`` hashes the plan's task keys in order, and
    # a key fixes its result, so tables for a plan never go stale; the per-task files stay the record
    # a study resumes from. Each file is written atomically; a plan's tables count only when all are there.
    TABLES = ("cohorts", "bins", "metrics")  # written in this order: metrics last

    def tables_dir(self, plan: str) -> Path:
        """The folder of a plan's consolidated tables."""
        return self.root / "tables" / plan

    def has_tables(self, plan: str) -> bool:
        """Whether a plan's consolidated tables are all stored (written only once every task was; a set found
        damaged is removed by ``read_tables``, so this is the study's completeness)."""
        folder = self.tables_dir(plan)
        return all((folder / f"{k}.parquet").exists() for k in self.TABLES)

    def runs_fingerprint(self, keys) -> str:
        """SHA-256 of the stored run files of ``keys`` as the file system sees them (name, size, modification time,
        in order; a missing one as such): what consolidated tables record they were built from, so that tables
        that index other files (a run file replaced or edited since, tables copied from another study) are told
        from the runs' own, with one ``stat`` per run."""
        h = hashlib.sha256()
        for key in keys:
            try:
                st = os.stat(self.path(key))
                h.update(f"{key}:{st.st_size}:{st.st_mtime_ns}\n".encode())
            except FileNotFoundError:
                h.update(f"{key}:-\n".encode())
        return h.hexdigest()

    def read_tables(self, plan: str, keys=None) -> dict[str, pd.DataFrame] | None:
        """A plan's consolidated tables (``metrics``, ``bins``, ``cohorts``), or None when not all are stored,
        one does not read, one's rows are not the rows gamemarket wrote (:func:`table_digest`, kept in the
        file), or they were built from other run files than the plan's ``keys`` hold now (:meth:`runs_fingerprint`,
        kept in the file: a run file replaced or edited since, tables of another study copied in): the per-task
        files, which are the record, are read instead, and the tables written again. A table that does not match
        its rows, or that another plan's tables made, is named in a warning. ``keys``: the plan's task keys (None:
        not checked against the run files)."""
        folder = self.tables_dir(plan)
        if not self.has_tables(plan):
            return None
        runs = None if keys is None else self.runs_fingerprint(keys)
        out = {}
        for k in self.TABLES:
            path = folder / f"{k}.parquet"
            try:
                table = self._read_table(path)
            except InputError:  # not readable here (no permission, an I/O error): said, never built over
                raise
            except Exception:
                return None
            meta = table.schema.metadata or {}
            made_for = meta.get(PLAN_KEY, b"").decode()
            if made_for and made_for != plan:
                warnings.warn(
                    f"{path}: it was built for another study plan ({made_for[:12]}...), not this one; it is built "
                    "again from the stored runs",
                    stacklevel=2,
                )
                return None
            if runs is not None and meta.get(RUNS_KEY, b"").decode() != runs:
                return None  # other run files than those it was built from (or tables of an older gamemarket)
            frame = table.to_pandas()
            said = meta.get(DIGEST_KEY, b"").decode()
            if said != table_digest(frame):
                if said:  # one written by an older gamemarket, without the digest, is built again without a word
                    warnings.warn(
                        f"{path}: its rows are not those gamemarket wrote (a row added, dropped or changed since); "
                        "it is built again from the stored runs it indexes",
                        stacklevel=2,
                    )
                return None
            out[k] = frame
        return out

    def verify_tables(self, plan: str, keys=None) -> bool:
        """Whether a plan's consolidated tables are all stored, each reads (footer and every row group), holds
        the rows gamemarket wrote and indexes the run files ``keys`` hold now (:meth:`read_tables`)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ``study run`` builds them again; a read names the file
            return self.read_tables(plan, keys) is not None

    def write_tables(self, plan: str, tables: dict[str, pd.DataFrame], keys=None) -> bool:
        """Store a plan's consolidated tables atomically, with the plan and the run files they index (``keys``:
        the plan's task keys, :meth:`runs_fingerprint`), and drop the tables of other plans this store wrote.

        A folder that is not the study's own (no claim possible without ``force``) gets no tables: they are
        an index, assembled again at each read. Returns whether they were written."""
        try:
            owned = self.claim()
        except InputError:
            return False
        names = [f"tables/{plan}/{k}.parquet" for k in self.TABLES]
        for name, k in zip(owned.files(names, once=False), self.TABLES):
            table = pa.Table.from_pandas(tables[k], preserve_index=False)
            meta = {**(table.schema.metadata or {}), DIGEST_KEY: table_digest(tables[k]).encode()}
            meta[PLAN_KEY] = plan.encode()
            if keys is not None:
                meta[RUNS_KEY] = self.runs_fingerprint(keys).encode()
            with atomic_path(name, "consolidated table") as tmp:
                pq.write_table(table.replace_schema_metadata(meta), tmp)
        owned.discard(lambda rel: rel.startswith("tables/") and rel not in names)
        return True


#: :meth:`ResultStore.problem` of a task with no stored file
NOT_STORED = "no file stored"
DIGEST_KEY = b"gamemarket.rows_sha256"
#: a consolidated table's metadata: the plan it indexes, and the run files it was built from (their fingerprint)
PLAN_KEY = b"gamemarket.plan"
RUNS_KEY = b"gamemarket.runs_sha256"
#: a run file's metadata: its columns and their types as written (``columns_text``)
COLUMNS_KEY = b"gamemarket.columns"


def columns_text(schema: pa.Schema) -> str:
    """A table's columns and their Arrow types, ``name:type,...``: what a run file records of its own."""
    return ",".join(f"{f.name}:{f.type}" for f in schema)


def table_digest(frame: pd.DataFrame) -> str:
    """SHA-256 of a table's rows (pandas' own row hashes, of every column in order, and the column names): what a
    consolidated table holds beside its rows, so a table changed since it was written (a row repeated, one
    dropped, a value edited) is told from the one the stored runs give."""
    h = hashlib.sha256(json.dumps([str(c) for c in frame.columns]).encode())
    h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()


def _checked_rows(bins: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """A run file's rows, where they are those it records (:func:`table_digest`); else a ``ValueError`` (a row
    repeated or edited by hand). Results written before the digest was recorded have none, and are taken."""
    said = meta.get(DIGEST_KEY)
    if said is not None and said.decode() != table_digest(bins):
        raise ValueError("its rows are not those gamemarket wrote (a row added, dropped or changed since)")
    return bins


def _pandas_meta(meta: dict) -> dict:
    """The schema metadata without ours (pandas' own stays, for its dtypes)."""
    return {k: v for k, v in meta.items() if not k.startswith(b"gamemarket.")}


def _ipc_bytes(frame: pd.DataFrame) -> bytes:
    """A table as Arrow IPC stream bytes, base64 (Parquet metadata values are text): exact, and fast to read."""
    sink = pa.BufferOutputStream()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return base64.b64encode(sink.getvalue().to_pybytes())


def _from_ipc_bytes(raw: bytes) -> pd.DataFrame:
    return pa.ipc.open_stream(base64.b64decode(raw)).read_all().to_pandas()
