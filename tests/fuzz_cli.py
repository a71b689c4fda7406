"""Fuzzing the whole ``gamemarket`` command line: hypothesis strategies of inputs, and a runner that checks
the CLI's invariants (issue 27, item 7).

A :class:`Case` is a small tree of files (study files, job tables, EGTA JSON and other games, workload
models and traces, pricing problems; valid, slightly wrong or hostile) and one or two command lines to run
in it. :func:`run_case` writes the tree into a fresh temporary folder, runs each command in this process
(``gamemarket.cli.main``, stdout and stderr captured) and returns the :class:`Problem` s it saw, checking:

- the exit code is 0, 2 or (``price solve``, ``game solve``: "no equilibrium / not converged") 3; an
  exception escaping ``main`` (argparse's ``SystemExit(2)`` aside) is a problem, as is a command that runs
  past its time limit or its memory allowance;
- exit 2 comes with one line ``gamemarket: error: ...`` on stderr (a usage error's names its command:
  ``gamemarket study run: error: ...``), no usage block, and never a traceback;
- exit 0 with ``--format json`` prints strict JSON (no NaN or Infinity), every JSON file written is
  strict JSON, and what was written passes its own check (a job table reads back, a model file reads, a
  study's runs are all stored as ``study status`` counts them, ...);
- no file outside the command's declared outputs (``--out``, ``--jobs-out``, ``--figure``, ``--dest``, the
  study's results and report folders) is created, changed or deleted, nor a file of the user's inside
  them without ``--force``, nor ever an input; no temporary file (``*.tmp``) is left anywhere.

The test (``tests/test_fuzz_cli.py``) runs a bounded budget of each kind of input; the benchmark
(``benchmarks/fuzz_cli.py``) runs for minutes and prints what it found. Every path a case names lies
inside its temporary folder (an option or field value of ``/`` is the folder's own absolute path), so a
hostile value can never reach the rest of the file system, even for a process run as root.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import math
import os
import re
import resource
import shutil
import signal
import stat
import tempfile
import threading
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tomli_w
from hypothesis import strategies as st

import gamemarket.cli as cli
from gamemarket.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
MODEL_TEXT = (ROOT / "models" / "lpc-egee-2004.toml").read_text()
PROVIDERS_TEXT = (ROOT / "strategies" / "providers.toml").read_text()
CONSUMERS_TEXT = (ROOT / "strategies" / "consumers.toml").read_text()
SHADING_TEXT = (ROOT / "strategies" / "shading.toml").read_text()

#: the placeholder for the case's folder (absolute) in file contents and command lines
D = "{d}"
#: a folder, and a file of the user's, present in every case (outputs aimed at them must not destroy them)
USER_FILES = {
    "folder/keep.txt": b"the user's own file\n",
    "folder/photo.png": b"\x89PNG the user's own picture\n",  # names a report or an export also writes
    "folder/report.md": b"# the user's own notes\n",
    "folder/equilibria.csv": b"the user's own table\n",
    "plain.txt": b"a file, not a folder\n",
}
#: seconds one command may run, and the address space it may add, before it is a problem of its own
TIME_LIMIT_S = 120
MEMORY_ALLOWANCE = 6 << 30


@dataclass
class Case:
    """Files (relative path -> bytes; ``None`` for an empty folder) and the command lines to run, in order,
    from the case's folder; ``{d}`` in either stands for the folder's absolute path."""

    kind: str
    files: dict[str, bytes | None]
    runs: list[list[str]]
    note: str = ""
    links: dict[str, str] = field(default_factory=dict)  #: symbolic links: name -> target (relative)
    #: named pipes: name -> the case file whose bytes a writer sends through it, once per command that runs
    pipes: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        shown = {k: (v if v is None or len(v) <= 300 else v[:300] + b"...") for k, v in self.files.items()}
        links = f", links={self.links!r}" if self.links else ""
        return f"Case(kind={self.kind!r}, runs={self.runs!r}, note={self.note!r}, files={shown!r}{links})"

    def describe(self, limit: int = 3000) -> str:
        """The case in full (file contents up to ``limit`` bytes each), for a finding's report."""
        lines = [f"kind: {self.kind}" + (f" ({self.note})" if self.note else "")]
        for argv in self.runs:
            lines.append("$ gamemarket " + " ".join(_quote(a) for a in argv))
        for name, target in self.links.items():
            lines.append(f"--- {name} -> {target} (symbolic link)")
        for name, source in self.pipes.items():
            lines.append(f"--- {name}: a named pipe that sends {source}'s bytes")
        for name, data in self.files.items():
            if name in USER_FILES or data is None:
                continue
            if _is_text(data):
                text = data.decode()
                text = text if len(text) <= limit else text[:limit] + f"... ({len(data)} bytes)"
                lines.append(f"--- {name}\n{text.rstrip()}")
            else:
                lines.append(f"--- {name} ({len(data)} bytes, binary)\n{_show_binary(name, data, limit)}")
        return "\n".join(lines)


def _show_binary(name: str, data: bytes, limit: int) -> str:
    """A binary input as a reader sees it: an .npz's arrays, a Parquet file's columns and rows."""
    try:
        if name.endswith(".npz"):
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                return "\n".join(
                    f"  {k}: {z[k].dtype} {z[k].shape} {np.array2string(z[k], threshold=20)}" for k in z.files
                )
        if name.endswith(".parquet"):
            import pandas as pd

            df = pd.read_parquet(io.BytesIO(data))
            return f"{df.dtypes.to_dict()}\n{df.head(20).to_string()}"
    except Exception as exc:  # noqa: BLE001 - shown as bytes below
        return f"  (unreadable: {type(exc).__name__}: {exc}) {data[: limit // 4]!r}"
    return f"  {data[: limit // 4]!r}"


def _quote(a: str) -> str:
    return a if a and re.fullmatch(r"[\w{}./:=,+-]+", a) else repr(a)


def _is_text(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data


@dataclass
class Problem:
    """One broken invariant of one command of a case."""

    what: str  #: a short kind ("exception", "stray file", ...)
    detail: str  #: what exactly (the traceback, the paths)
    argv: list[str]
    signature: str = ""  #: what makes two problems one finding (deduplication)

    def __str__(self) -> str:
        return f"[{self.what}] gamemarket {' '.join(_quote(a) for a in self.argv)}\n{self.detail}"


# =============================================================================================== the runner
class FuzzTimeout(BaseException):
    """A command ran past ``TIME_LIMIT_S`` (a BaseException, so no ``except Exception`` of the code hides it)."""


@dataclass
class Outcome:
    """What one command did: its exit code (None where an exception escaped), output, and timing."""

    rc: int | None
    out: str
    err: str
    exc: BaseException | None = None
    tb: str = ""
    warnings: list = field(default_factory=list)
    seconds: float = 0.0


def _pipe_writer(fifo: Path, data: bytes):
    """A thread that sends ``data`` through the named pipe ``fifo`` once (it waits for a reader to open it)."""

    def write():
        try:
            with open(fifo, "wb") as f:
                f.write(data)
        except OSError:  # the reader went away without reading all (a refused stream), or released below
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return fifo, thread


def _release(fifo: Path, thread) -> None:
    """End a pipe's writer: a command that never opened the pipe left it waiting for a reader; this one opens it
    and closes it at once, so the writer's write fails and it ends."""
    for _ in range(50):
        if not thread.is_alive():
            return
        try:
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return
        os.close(fd)
        thread.join(0.1)


def _snapshot(base: Path) -> dict[Path, tuple]:
    """Every path under ``base``: ("dir",), ("link", target) or ("file", bytes)."""
    snap: dict[Path, tuple] = {}
    for dirpath, dirs, names in os.walk(base):
        for n in dirs + names:
            p = Path(dirpath) / n
            try:
                if p.is_symlink():
                    snap[p] = ("link", os.readlink(p))
                elif stat.S_ISFIFO(p.lstat().st_mode):  # (reading one would block, or take a command's bytes)
                    snap[p] = ("pipe",)
                elif p.is_dir():
                    snap[p] = ("dir",)
                else:
                    snap[p] = ("file", p.read_bytes())
            except FileNotFoundError:  # gone since it was listed: a background writer's temporary, moved into place
                continue
            except OSError as exc:
                snap[p] = ("unreadable", str(exc))
    return snap


#: modules whose code a :class:`FuzzTimeout` is not raised in (an import, numba's compiler and its LLVM binding):
#: raised there, it left them half done in this one process, which every later command shares (run AI: numba's
#: "no compiled object yet for <Library '_max_sift_up'>" as a later step cached a compile; an import stopped
#: half way left ``pandas.util`` missing for the next command), so that later commands failed for the harness's
#: sake, not the program's; a process of the program's own ends with the command
UNSTOPPABLE_MODULES = ("importlib", "numba", "llvmlite")
#: how soon a :class:`FuzzTimeout` put off there is tried again, in seconds
ALARM_AGAIN_S = 0.05


def _in_unstoppable(frame) -> bool:
    """Whether ``frame`` or a frame that called it runs code of :data:`UNSTOPPABLE_MODULES`."""
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        if name.split(".", 1)[0] in UNSTOPPABLE_MODULES:
            return True
        frame = frame.f_back
    return False


def _alarm(seconds: float):
    """The handler of the harness's ``SIGALRM``: :class:`FuzzTimeout`, put off while an import or numba's compiler
    runs (:data:`UNSTOPPABLE_MODULES`: the timer is armed again for :data:`ALARM_AGAIN_S`)."""

    def alarm(signum, frame):
        if _in_unstoppable(frame):
            signal.setitimer(signal.ITIMER_REAL, ALARM_AGAIN_S)
            return
        raise FuzzTimeout(f"ran past {seconds} s")

    return alarm


@contextlib.contextmanager
def _limits(seconds: float, memory: int):
    """Raise :class:`FuzzTimeout` after ``seconds`` (:func:`_alarm`); allow the process ``memory`` more bytes of
    address space than it holds now (a command that wants more gets a MemoryError: a problem, not a swapped
    machine)."""
    old_handler = signal.signal(signal.SIGALRM, _alarm(seconds))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        vm = next(int(x.split()[1]) * 1024 for x in open("/proc/self/status") if x.startswith("VmSize:"))
        cap = vm + memory if hard == resource.RLIM_INFINITY else min(vm + memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (OSError, ValueError, StopIteration):  # no /proc, or limits not settable: run without the cap
        pass
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _fresh_process_warnings() -> None:
    """The warning filters of a fresh ``gamemarket`` process (Python's defaults), its registries cleared,
    so that each command shows what a user would see, once per place, whatever ran before it."""
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category)
    from gamemarket.io import files

    files._SWEPT.clear()  # (a fresh process has swept no folder: run T's killed writer's temporary was kept, the
    # case's folder having been swept by an earlier case of the same path)


def invoke(argv: list[str], seconds: float = TIME_LIMIT_S, memory: int = MEMORY_ALLOWANCE) -> Outcome:
    """Run ``gamemarket argv`` in this process: its exit code, stdout, stderr, and any exception that
    escaped ``main`` (with its traceback), plus the warnings shown to the user (with their categories)."""
    import time

    out, err = io.StringIO(), io.StringIO()
    shown = []
    original = cli._show_warning

    def show(message, category, filename, lineno, *args, **kw):
        shown.append((category.__name__, str(message), f"{_short_path(filename)}:{lineno}"))
        original(message, category, filename, lineno, *args, **kw)

    cli._show_warning = show
    t0 = time.perf_counter()
    rc, exc, tb = None, None, ""
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            _fresh_process_warnings()
            with _limits(seconds, memory):
                rc = main(argv)
    except SystemExit as e:  # argparse
        rc = e.code if isinstance(e.code, int) else 2 if e.code else 0
    except BaseException as e:  # noqa: BLE001 - anything else escaping main is what the fuzz looks for
        exc, tb = e, traceback.format_exc()
        if isinstance(e, KeyboardInterrupt):
            raise
    finally:
        cli._show_warning = original
    return Outcome(rc, out.getvalue(), err.getvalue(), exc, tb, shown, time.perf_counter() - t0)


# ------------------------------------------------------------------------------------ declared outputs
@dataclass
class Declared:
    """What a command line may write (its output files and folders), what it reads, and whether it may
    replace a user's file (``--force``)."""

    files: set[Path] = field(default_factory=set)
    folders: set[Path] = field(default_factory=set)
    inputs: set[Path] = field(default_factory=set)
    force: bool = False
    #: the output folders the command owns (a study's results and report, an export): one that exists and
    #: holds files but no manifest was not made by gamemarket, and is written into only with ``--force``
    claims: set[Path] = field(default_factory=set)
    roles: dict[Path, str] = field(default_factory=dict)  #: an output -> what it is ("report folder", "--out")

    def role(self, p: Path) -> str:
        """What the output that holds ``p`` is (the innermost), for a finding's signature."""
        holders = [o for o in self.roles if o == p or o in p.parents]
        return self.roles[max(holders, key=lambda o: len(o.parts))] if holders else "-"

    def covers(self, p: Path) -> bool:
        """``p`` is a declared output file, inside a declared output folder, or that folder."""
        return p in self.files or any(p == f or f in p.parents for f in self.folders)

    def leads_to(self, p: Path) -> bool:
        """``p`` is a folder on the way to a declared output (created as its parent)."""
        return any(p in o.parents for o in self.files | self.folders)


def _abs(p, cwd: Path) -> Path | None:
    if p in (None, ""):
        return None
    try:
        q = Path(p)
        return Path(os.path.abspath(q if q.is_absolute() else cwd / q))
    except (ValueError, OSError):
        return None


def _study_outputs(
    file: str, cwd: Path, dec: Declared, with_results: bool = True, report: str = "all", args=None
) -> None:
    """The results and report folders of a study and of its companions, as the study file declares them (or the
    command line's ``--results`` and ``--report``, relative to the working directory, where given)."""
    from gamemarket.studies import load_study

    over = {k: _abs(getattr(args, k, None), cwd) for k in ("results", "report")}
    try:
        spec = load_study(cwd / file, **{k: v for k, v in over.items() if v is not None})
    except Exception:  # noqa: BLE001 - an unreadable study declares nothing (main says why)
        return
    specs = [spec]
    for c in spec.companions:  # a companion that does not load declares nothing; the study still does
        try:
            specs.append(load_study(c))
        except Exception:  # noqa: BLE001
            pass
    for s in specs:
        folders = {Path(os.path.abspath(s.results_dir)): "results folder"} if with_results else {}
        if report == "all":
            folders[Path(os.path.abspath(s.report_dir))] = "report folder"
        elif report == "data":
            folders[Path(os.path.abspath(s.report_dir)) / "data"] = "report's data folder"
        dec.folders |= set(folders)
        dec.claims |= set(folders)
        dec.roles.update(folders)


# Complexity 18: one branch per kind of option a command line declares; the list reads as the CLI's.
def declared(argv: list[str], cwd: Path, traces: Path) -> Declared:  # noqa: C901
    """The outputs a command line declares (what it may create or change), and its inputs."""
    dec = Declared()
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            a = build_parser().parse_args(argv)
    except SystemExit:
        return dec
    except Exception:  # noqa: BLE001
        return dec
    dec.force = bool(getattr(a, "force", False))
    for name in ("jobs", "problem", "file", "study", "path", "trace", "a", "b", "url"):
        v = getattr(a, name, None)
        if isinstance(v, str):
            p = _abs(v.removeprefix("file://"), cwd)
            if p is not None:
                dec.inputs.add(p)
    if a.command == "workload" and a.wcmd == "info":
        return dec
    if a.command in ("simulate",) or (a.command == "workload" and a.wcmd == "fit"):
        dec.roles.update(
            {
                p: o
                for o, p in (("--out", _abs(a.out, cwd)), ("--jobs-out", _abs(getattr(a, "jobs_out", None), cwd)))
                if p
            }
        )
    elif a.command == "workload" and a.wcmd == "compare":
        dec.roles.update({p: "--figure" for p in (_abs(a.figure, cwd),) if p})
    elif a.command == "price":
        out = _abs(a.out, cwd)
        if out is not None:
            dec.roles.update({out: "--out", out.with_suffix(".trace.csv"): "--out's trace"})
    dec.files |= set(dec.roles)
    if a.command == "workload" and a.wcmd == "fetch":
        dest = _abs(a.dest, cwd) if a.dest else traces
        if dest is not None:
            dec.folders.add(dest)
            dec.roles[dest] = "--dest"
    elif a.command == "study" and a.scmd == "run":
        _study_outputs(a.file, cwd, dec, args=a)
    elif a.command == "game" and a.gcmd == "solve" and str(a.file).endswith(".toml"):
        _study_outputs(a.file, cwd, dec, report="none", args=a)
    elif a.command == "game" and a.gcmd == "export":
        _study_outputs(a.file, cwd, dec, report="none" if a.out else "data", args=a)
        if a.out:
            dec.folders.add(_abs(a.out, cwd))
            dec.claims.add(_abs(a.out, cwd))
            dec.roles[_abs(a.out, cwd)] = "export folder"
    elif a.command == "report":
        _study_outputs(a.study, cwd, dec, args=a)
    return _with_real_paths(dec)


def _with_real_paths(dec: Declared) -> Declared:
    """Each path also as the file it leads to (symlinks followed): an output through a link writes there."""
    for paths in (dec.files, dec.folders, dec.inputs, dec.claims):
        real = set()
        for p in paths:
            try:
                real.add(Path(os.path.realpath(p)))
            except (OSError, ValueError):
                pass
        paths |= real
    for p, role in list(dec.roles.items()):
        try:
            dec.roles.setdefault(Path(os.path.realpath(p)), role)
        except (OSError, ValueError):
            pass
    return dec


# ------------------------------------------------------------------------------------------- the checks
#: an error line: ours (``gamemarket: error: ``), or a usage error's naming its command
#: (``gamemarket game solve: error: ``)
ERROR_LINE = re.compile(r"^gamemarket(?: [a-z-]+)*: error: ")
STRICT_RC = {0, 2}
#: commands whose exit code 3 is a stated result ("not converged", "no equilibrium found")
RC3 = {("price", "solve"), ("game", "solve")}


def command_name(argv: list[str]) -> str:
    """The command a command line runs (``study run``, ``report``), for messages and signatures."""
    one = ("simulate", "report")
    return argv[0] if argv and argv[0] in one else " ".join(argv[:2])


def _strict_json(text: str):
    def bad(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=bad)


def _short_path(filename: str) -> str:
    """A source file as ``gamemarket/...`` or, for a library, its path from its package (``numpy/...``)."""
    f = str(filename).replace("\\", "/")
    for marker in ("/gamemarket/", "/site-packages/", "/lib/python3"):
        if marker in f:
            tail = f.rsplit(marker, 1)[1]
            return ("gamemarket/" + tail) if marker == "/gamemarket/" else tail
    return f


def _where_raised(tb: str) -> str:
    """The innermost frame of gamemarket's own code in a traceback (``file:line in function``)."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)', tb)
    own = [f for f in frames if "/gamemarket/" in f[0] and "/tests/" not in f[0]]
    f = (own or frames or [("?", "?", "?")])[-1]
    path = f[0].split("/gamemarket/", 1)[-1] if "/gamemarket/" in f[0] else f[0]
    return f"gamemarket/{path}:{f[1]} in {f[2]}" if "/gamemarket/" in f[0] else f"{path}:{f[1]} in {f[2]}"


def check_outcome(argv: list[str], o: Outcome) -> list[Problem]:
    """The invariants of the exit code and of what the command printed."""
    probs = []
    cmd = command_name(argv)

    def add(what, detail, sig):
        probs.append(Problem(what, detail, argv, f"{what}|{cmd}|{sig}"))

    if o.exc is not None:
        kind = "hang" if isinstance(o.exc, FuzzTimeout) else "exception"
        add(kind, o.tb or repr(o.exc), f"{type(o.exc).__name__}@{_where_raised(o.tb)}")
        return probs
    if o.rc not in STRICT_RC and not (o.rc == 3 and tuple(argv[:2]) in RC3):
        add("exit code", f"exit {o.rc}\nstderr: {o.err[-2000:]}", f"rc{o.rc}")
    if "Traceback (most recent call last)" in o.err or "Traceback" in o.out:
        add("traceback printed", o.err[-3000:], "traceback")
    if o.rc == 2:
        lines = [x for x in o.err.splitlines() if x.strip()]
        # ours, or a usage error (``gamemarket study run: error: ...; see `gamemarket study run --help```)
        errors = [x for x in lines if ERROR_LINE.match(x)]
        if len(errors) != 1 or not ERROR_LINE.sub("", errors[0]).strip():
            add("error message", f"stderr: {o.err[-2000:]!r}", "no single error line")
        else:
            after = lines[lines.index(errors[0]) + 1 :]
            if after or any(x.startswith("usage: ") for x in lines):
                add("error message", f"the message spans lines: {o.err[-2000:]!r}", "multi-line")
    if o.rc == 0 and "gamemarket: error:" in o.err:
        add("error message", f"exit 0 with an error line: {o.err[-2000:]!r}", "error on success")
    if o.rc in (0, 3) and _option(argv, "--format") == "json":
        try:
            _strict_json(o.out)
        except ValueError as exc:
            add("json output", f"{exc}: {o.out[:2000]!r}", type(exc).__name__)
    for category, message, where in o.warnings:
        if category not in ("UserWarning",):  # a library's warning reached the user as it is
            add("stray warning", f"{category}: {message} (at {where})", f"{category}:{message[:60]}@{where}")
    return probs


def _option(argv: list[str], name: str) -> str | None:
    for k, a in enumerate(argv):
        if a == name and k + 1 < len(argv):
            return argv[k + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def check_files(argv, before: dict, after: dict, user: set[Path], dec: Declared, others=frozenset()) -> list[Problem]:
    """The invariants of the file tree: nothing outside the declared outputs, no user's file destroyed
    without ``--force``, never an input, no temporary file left. ``others``: the process ids of the commands
    running beside this one (the ``concurrent`` kind's background writers), whose own temporaries come and go."""
    probs = []
    cmd = command_name(argv)

    def add(what, paths, sig):
        shown = "\n".join(f"  {p}" for p in sorted(paths)[:20])
        probs.append(Problem(what, shown, argv, f"{what}|{cmd}|{sig}"))

    new = [p for p in after if p not in before]
    live = {p for p in new if _live_writers(p)}  # a background writer's, still writing: neither left nor stray
    temps = [p for p in new if (p.name.endswith(".tmp") or ".gm-" in p.name) and p not in live]
    if temps:
        add("temporary file left", temps, "tmp")
    stray = [
        p
        for p in new
        if not dec.covers(p) and not (after[p] == ("dir",) and dec.leads_to(p)) and p not in temps and p not in live
    ]
    if stray:
        add("stray file", stray, "outside the declared outputs")
    for folder in sorted(dec.claims):
        if not dec.force and _foreign(folder, before):
            inside = [p for p in new if folder in p.parents and after[p][0] == "file"]
            if inside:
                add("wrote into a folder gamemarket did not make, without --force", inside, dec.role(folder))
    gone = [p for p in before if p not in after and _writer_of(p) not in others]
    changed = [
        p
        for p in before
        if p in after and after[p] != before[p] and before[p] != ("dir",) and _writer_of(p) not in others
    ]
    for p in gone + changed:
        verb = "deleted" if p in gone else "changed"
        if p in dec.inputs:
            add(f"input {verb}", [p], "input")
        elif not dec.covers(p):
            add(f"file {verb} outside the outputs", [p], verb)
        elif p in user and not dec.force:
            add(f"user's file {verb} without --force", [p], f"{dec.role(p)}: {p.suffix or p.name}")
    return probs


def _writer_of(p: Path) -> int | None:
    """The process id in a gamemarket temporary's name (:data:`gamemarket.io.files.TEMP_NAME`), else None."""
    from gamemarket.io.files import TEMP_NAME

    m = TEMP_NAME.match(p.name)
    return int(m.group(1)) if m else None


def _live_writers(p: Path) -> bool:
    """Whether ``p`` is the temporary file of a command still running beside this one (a background writer of
    the ``concurrent`` kind): gamemarket's pattern, a process id alive and not this process's."""
    from gamemarket.io.files import TEMP_NAME

    m = TEMP_NAME.match(p.name)
    if m is None or int(m.group(1)) == os.getpid():
        return False
    try:
        os.kill(int(m.group(1)), 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def _foreign(folder: Path, snap: dict) -> bool:
    """A folder that existed, held files, and had no manifest (nor an earlier version's report marker)."""
    if snap.get(folder) != ("dir",):
        return False
    held = [p for p in snap if folder in p.parents]
    own = {folder / ".gamemarket-manifest.json", folder / ".gamemarket-study"}
    return bool(held) and not own & set(snap)


def verify_outputs(argv: list[str], o: Outcome, dec: Declared, before: dict, after: dict, cwd: Path) -> list[Problem]:
    """A successful command's output passes its own check."""
    probs = []
    cmd = command_name(argv)

    def add(detail, sig):
        probs.append(Problem("output fails its check", detail, argv, f"verify|{cmd}|{sig}"))

    for p, v in after.items():
        if v[0] == "file" and p.suffix == ".json" and before.get(p) != v:
            try:
                _strict_json(v[1].decode())
            except (ValueError, UnicodeDecodeError) as exc:
                add(f"{p}: {exc}", "json file")
    if o.rc != 0:
        return probs
    try:
        if argv[:2] == ["game", "solve"] and _option(argv, "--format") == "json":
            _check_regrets(_strict_json(o.out))
        _verify_command(argv, dec, cwd)
    except AssertionError as exc:
        add(str(exc), str(exc)[:50])
    except Exception as exc:  # noqa: BLE001
        add(f"{type(exc).__name__}: {exc}", type(exc).__name__)
    return probs


def _check_regrets(value) -> None:
    """Every ``regret`` an equilibrium record reports is a finite number (not null: a NaN regret)."""
    if isinstance(value, list):
        for v in value:
            _check_regrets(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k == "regret":
                flat = list(v.values()) if isinstance(v, dict) else v if isinstance(v, list) else [v]
                assert all(isinstance(x, (int, float)) and math.isfinite(x) for x in flat), f"regret {v!r}"
            else:
                _check_regrets(v)


def _verify_command(argv: list[str], dec: Declared, cwd: Path) -> None:
    from gamemarket.io import jobtable

    a = build_parser().parse_args(argv)
    if a.command == "simulate":
        if a.jobs_out:
            jobtable.read(cwd / a.jobs_out)
        if a.out:
            import pandas as pd

            p = cwd / a.out
            t = pd.read_parquet(p) if p.suffix.lower() in (".parquet", ".pq") else pd.read_csv(p)
            assert len(t) > 0 and "id" in t.columns, f"{p}: an outcome table without rows or ids"
    elif a.command == "workload" and a.wcmd == "fit":
        from gamemarket.workloads import WorkloadModel

        WorkloadModel.read(cwd / a.out)
    elif a.command == "price" and a.out:
        with np.load(cwd / a.out) as z:
            assert np.isfinite(z["prices"]).all(), "prices not finite"
    elif a.command == "study" and a.scmd == "run":
        where = ["--results", a.results] if a.results else []  # the folder the run was told to use
        o = invoke(["study", "status", a.file, *where])
        assert o.rc == 0, f"study status after a successful run: exit {o.rc}: {o.err}"
        m = re.search(r"(\d+)/(\d+) (?:population )?runs", o.out)
        assert m and m.group(1) == m.group(2), f"study status after a successful run: {o.out.strip()}"


def run_case(case: Case, *, seconds: float = TIME_LIMIT_S, log: list | None = None) -> list[Problem]:
    """Write the case's files into a fresh temporary folder, run its commands there, return every problem.

    ``log``: where each command's (argv, exit code, seconds, last stderr line) is appended, for statistics."""
    base = Path(tempfile.mkdtemp(prefix="gm-fuzz-")).resolve()
    work = base / "r" / "w"
    traces = base / "r" / "traces"
    work.mkdir(parents=True)
    files = {**USER_FILES, **case.files}
    for name, data in files.items():
        p = work / name
        if data is None:
            p.mkdir(parents=True, exist_ok=True)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.replace(D.encode(), str(work).encode()))
    for name, target in case.links.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).symlink_to(target)
    for name in case.pipes:
        os.mkfifo(work / name)
    old_cwd, old_env = os.getcwd(), os.environ.get("GAMEMARKET_TRACES")
    os.environ["GAMEMARKET_TRACES"] = str(traces)
    os.chdir(work)
    problems: list[Problem] = []
    background: list = []
    ran: list = []  # (argv, exit code) of the commands run here
    try:
        user = set(_snapshot(base))
        for argv in case.runs:
            argv = [a.replace(D, str(work)) for a in argv]
            if argv[0] in ("@kill", "@background", *STOPS):  # another process: killed, stopped, or left running
                background.append(_spawn(argv, work, traces))
                continue
            dec = declared(argv, work, traces)
            before = _snapshot(base)
            writers = [_pipe_writer(work / name, (work / source).read_bytes()) for name, source in case.pipes.items()]
            try:
                o = invoke(argv, seconds)
            finally:
                for fifo, thread in writers:
                    _release(fifo, thread)
            after = _snapshot(base)
            others = frozenset(child.pid for child in background)
            found = check_outcome(argv, o) + check_files(argv, before, after, user, dec, others)
            found += verify_outputs(argv, o, dec, before, after, work)
            if background and "not made by gamemarket" in o.err:  # a folder a killed or a running writer made
                found.append(Problem("false foreign folder", o.err[-2000:], argv, f"foreign|{command_name(argv)}"))
            problems += found
            ran.append((argv, o.rc))
            if log is not None:
                last = (o.err.strip().splitlines() or [""])[-1]
                log.append((argv, o.rc if o.exc is None else type(o.exc).__name__, o.seconds, last))
            if o.exc is not None or o.rc == 130:
                break
        problems += _after_background(background, base)
        problems += _replaced_outputs(ran, background)
    finally:
        for child in background:
            if child.poll() is None:
                child.kill()
                child.wait()
        os.chdir(old_cwd)
        if old_env is None:
            os.environ.pop("GAMEMARKET_TRACES", None)
        else:
            os.environ["GAMEMARKET_TRACES"] = old_env
        shutil.rmtree(base, ignore_errors=True)
    for p in problems:  # the folder's name varies: findings compare without it
        p.detail = p.detail.replace(str(work), "{d}")
        p.argv = [a.replace(str(work), "{d}") for a in p.argv]
        p.signature = p.signature.replace(str(work), "{d}")
    return problems


#: the signals a command stops itself at, each with its exit code and the start of its one line
STOPS = {
    "@int": (signal.SIGINT, 130, "interrupted"),
    "@term": (signal.SIGTERM, 143, r"terminated \(SIGTERM\)"),
    "@hup": (signal.SIGHUP, 129, r"terminated \(SIGHUP\)"),
}


def _spawn(step: list[str], work: Path, traces: Path):
    """Start ``gamemarket`` in another process: ``["@kill", SECONDS, *argv]`` is killed (SIGKILL) after SECONDS
    (waited for here: a writer killed mid-write, as by the OOM killer); ``["@int", SECONDS, *argv]`` is sent SIGINT
    (Ctrl-C) after SECONDS and waited for, its end checked at the case's end; ``["@background", *argv]`` keeps running
    beside the next command (two writers of one study at once), and is waited for at the case's end."""
    import subprocess
    import sys
    import time

    kill = step[0] in ("@kill", *STOPS)
    argv = step[2:] if kill else step[1:]
    env = {**os.environ, "GAMEMARKET_TRACES": str(traces), "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-m", "gamemarket", *argv], cwd=work, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    child.argv = argv
    child.interrupted, child.ended = step[0] in STOPS, None
    child.stop = STOPS.get(step[0])
    if child.interrupted:  # Ctrl-C (or SIGTERM, SIGHUP): the command stops itself, checked as it ends (below)
        time.sleep(float(step[1]))
        child.send_signal(STOPS[step[0]][0])
        child.killed = False
        try:  # it ends before the next command starts, as a user's Ctrl-C does
            child.ended = child.communicate(timeout=TIME_LIMIT_S)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: a hang, said below
            child.ended = None
    elif kill:
        time.sleep(float(step[1]))
        child.kill()
        child.communicate()
        child.killed = True
    else:
        time.sleep(1.5)  # past its imports: it holds the study's lock, or is about to
        child.killed = False
    return child


def _out_of(argv: list[str]) -> str | None:
    """The ``--out`` a command was given without ``--force``, or None."""
    if "--force" in argv or "--out" not in argv[:-1]:
        return None
    return argv[argv.index("--out") + 1]


def _replaced_outputs(ran: list, children: list) -> list[Problem]:
    """A command run here and one in the background, given one new ``--out`` without ``--force``, that both ended 0:
    the second to finish replaced the first's file in silence (hunt 16b: the absence was checked at the start)."""
    probs = []
    for argv, rc in ran:
        out = _out_of(argv)
        for child in children:
            if out is None or child.killed or getattr(child, "interrupted", False) or _out_of(child.argv) != out:
                continue
            if rc == 0 and child.returncode == 0:
                probs.append(Problem("output replaced", f"both wrote {out}", argv, f"output replaced|{argv[0]}"))
    return probs


def _after_background(children: list, base: Path) -> list[Problem]:
    """A background command's own invariants once it ends (exit 0 or 2, one error line, never "not made by
    gamemarket" for a folder the other writer made), and no temporary file of an ended command left anywhere."""
    probs = []
    for child in children:
        if child.killed:
            continue
        try:
            if getattr(child, "interrupted", False) and child.ended is None:
                raise TimeoutError("an interrupted command ran past its time")
            out, err = child.ended if getattr(child, "interrupted", False) else child.communicate(timeout=TIME_LIMIT_S)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired
            child.kill()
            out, err = child.communicate()
            probs.append(Problem("hang", "a background command ran past its time", child.argv, "hang|background"))
            continue
        o = Outcome(child.returncode, out, err)
        _, code, line = child.stop if child.interrupted else (None, None, None)
        stopped = child.interrupted and o.rc == code
        probs += [
            Problem(p.what, p.detail, p.argv, p.signature + "|background")
            for p in check_outcome(child.argv, o)
            if p.what != "stray warning" and not (stopped and p.what == "exit code")
        ]
        if stopped and not re.fullmatch(rf"(?s)(.*\n)?gamemarket: {line}; [^\n]+\n", err):
            probs.append(Problem("interrupt message", err[-2000:], child.argv, "interrupt message|background"))
        if "not made by gamemarket" in err or "not written by gamemarket" in err:
            probs.append(Problem("false foreign folder", err[-2000:], child.argv, "foreign|background"))
    snap = _snapshot(base)
    temps = [p for p in snap if (p.name.endswith(".tmp") or ".gm-" in p.name) and not _live_writers(p)]
    if children and temps:
        shown = "\n".join(f"  {p}" for p in sorted(temps)[:20])
        probs.append(Problem("temporary file left", shown, children[0].argv, "temporary file left|after a kill"))
    return probs


# ============================================================================================ vocabularies
#: values an option is given in place of a valid one (numbers of every wrong kind, text, paths)
OPTION_VALUES = [
    "-1", "0", "1", "2.5", "1e300", "nan", "inf", "-inf", "many", "", "1e13", "99999999999999999999", " 3",
    "1_000", "0x10", "true", "-0", "1e-320", "é☃", "x" * 300,
    f"{D}/folder", "folder", f"{D}/nope.csv", "nope.toml", D, ".", "..", "plain.txt", "plain.txt/x.csv",
    "folder/new.csv", "o.csv", "o.parquet", "o.npz", "f.png", "m2.toml", "../up.csv", "  ",
    # files and folders of the study's results and report (made by a study command before): another command's
    # output is never written over them
    "studies/results/s/last-run.json", "studies/results/s/runs", "studies/reports/s/data/runs.csv",
    "studies/reports/s/data", "studies/reports/s/index.html",
]  # fmt: skip
#: ``--n-jobs``: never a huge count (joblib would start that many processes on a shared machine; see the report)
WORKER_VALUES = ["0", "-2", "-1", "2.5", "many", "", "1", "2"]
#: ``--url``: local addresses only (a case never reaches the network)
URL_VALUES = [f"file://{D}/t.swf", f"file://{D}/nope.swf", f"file://{D}/folder", "", "ftp:", "nope", "file://",
              "http://127.0.0.1:1/x", "javascript:alert(1)"]  # fmt: skip
#: options a case never sets: a dask address would wait for a scheduler
SKIP_OPTIONS = {"--scheduler-address", "-h", "--help", "--version"}

NAN, INF = float("nan"), float("inf")
#: values a field of a file (TOML or JSON) is given: wrong types, extremes, hostile names and nesting
FILE_VALUES = [
    -1, 0, 1, 2, 2**63, 10**30, -(10**30), 2.5, 1e300, -1e300, 1e-320, NAN, INF, -INF, True, False,
    "", "x", "many", "1", "../x", "../../x", D, f"{D}/folder", "folder", "a/b", "é☃", "x" * 5000, "a\x00b",
    "plain.txt", "../m.toml", "s.toml", "../folder", [], [1, 2], ["x"], [[]], [NAN], {}, {"a": 1}, {"k": {"k": {}}},
]  # fmt: skip
TOML_ONLY = [dt.date(2020, 1, 1), dt.datetime(2020, 1, 1, 12, 0), dt.time(12, 0)]
UNKNOWN_KEYS = ["foo", "Jobs", "nodes", "seed", "kind", "__class__", "é", "", "name", "0"]
PROVIDERS = ["hb-first", "hb-kth", "nphb-first", "nphb-kth", "wspt-first", "wspt-est-kth", "fcfs-first"]
CONSUMERS = ["FT", "SRG", "DEV1", "LRG", "UNI50", "g0.3x0.9"]
SHADINGS = ["truthful", "shade-0.5", "shade-0.9", "shade-high-0.9", "shade-low-0.9"]


def toml_values() -> st.SearchStrategy:
    return st.sampled_from(FILE_VALUES + TOML_ONLY)


def json_values() -> st.SearchStrategy:
    return st.sampled_from(FILE_VALUES)


# =============================================================================================== mutation
def _children(x):
    if isinstance(x, dict):
        return list(x.items())
    if isinstance(x, list):
        return list(enumerate(x))
    return []


def _paths(doc, prefix=()) -> list[tuple]:
    out = []
    for k, v in _children(doc):
        out.append((*prefix, k))
        out += _paths(v, (*prefix, k))
    return out


def _get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


@st.composite
def mutated(draw, doc: dict, values: st.SearchStrategy, max_ops: int = 3) -> tuple[dict, list[str]]:
    """``doc`` with 1 to ``max_ops`` changes: a field replaced by a hostile value, an unknown field added, a
    field dropped, a list reversed or emptied. Returns the new document and what was done, in words."""
    import copy

    doc = copy.deepcopy(doc)
    done = []
    for _ in range(draw(st.integers(1, max_ops))):
        paths = _paths(doc)
        op = draw(st.sampled_from(["replace", "replace", "replace", "add", "drop", "list"]))
        if op == "add" or not paths:
            containers = [()] + [p for p in paths if isinstance(_get(doc, p), (dict, list))]
            at = draw(st.sampled_from(containers))
            c, v = _get(doc, at), draw(values)
            if isinstance(c, dict):
                k = draw(st.sampled_from(UNKNOWN_KEYS))
                c[k] = v
                done.append(f"add {'.'.join(map(str, (*at, k)))} = {v!r:.60}")
            else:
                c.append(v)
                done.append(f"append {v!r:.60} to {'.'.join(map(str, at))}")
            continue
        path = draw(st.sampled_from(paths))
        parent, key = _get(doc, path[:-1]), path[-1]
        name = ".".join(map(str, path))
        if op == "replace":
            parent[key] = draw(values)
            done.append(f"{name} = {parent[key]!r:.60}")
        elif op == "drop":
            del parent[key]
            done.append(f"drop {name}")
        elif isinstance(parent[key], list) and parent[key]:
            how = draw(st.sampled_from(["reverse", "empty", "first only", "twice"]))
            v = parent[key]
            parent[key] = {"reverse": v[::-1], "empty": [], "first only": v[:1], "twice": v + v}[how]
            done.append(f"{name}: {how}")
    return doc, done


@st.composite
def damaged_text(draw, text: bytes) -> tuple[bytes, str]:
    """Text with one byte-level damage: truncated, a byte run deleted, a hostile token inserted."""
    i = draw(st.integers(0, max(len(text) - 1, 0)))
    op = draw(st.sampled_from(["truncate", "delete", "insert"]))
    if op == "truncate":
        return text[:i], f"truncated at byte {i}"
    if op == "delete":
        n = draw(st.integers(1, 20))
        return text[:i] + text[i + n :], f"{n} bytes deleted at {i}"
    tok = draw(st.sampled_from([b"[", b"{", b'"', b"\n", b"=", b",", b"nan", b"1e400", b"\xff", b"\x00", b"-"]))
    return text[:i] + tok + text[i:], f"{tok!r} inserted at byte {i}"


def _dumps_toml(doc: dict) -> bytes:
    return tomli_w.dumps(doc).encode()


def _dumps_json(doc) -> bytes:
    return json.dumps(doc, allow_nan=True).encode()  # NaN and Infinity literals are part of the hostile input


# ============================================================================================ input files
def swf_text(jobs: list[tuple[int, int, int, int]], max_procs: int) -> bytes:
    """An SWF trace of (submit, run time, processors, estimate) jobs."""
    lines = ["; Version: 2.2", f"; MaxProcs: {max_procs}", f"; MaxNodes: {max_procs}"]
    for k, (sub, rt, procs, est) in enumerate(jobs, 1):
        lines.append(f"{k} {sub} 0 {rt} {procs} -1 -1 {procs} {est} -1 1 {k % 3 + 1} 1 -1 1 -1 -1 -1")
    return ("\n".join(lines) + "\n").encode()


@st.composite
def swf_traces(draw, min_jobs: int = 20, max_jobs: int = 80) -> bytes:
    n = draw(st.integers(min_jobs, max_jobs))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    submits = np.cumsum(rng.integers(0, 300, n))
    jobs = [(int(s), int(rng.integers(1, 3000)), int(rng.integers(1, 4)), int(rng.integers(1, 6000))) for s in submits]
    return swf_text(jobs, draw(st.integers(4, 16)))


def _frame_to_csv(columns: dict[str, list]) -> bytes:
    names = list(columns)
    n = max((len(v) for v in columns.values()), default=0)
    rows = [",".join(names)]
    for i in range(n):
        rows.append(",".join(str(columns[c][i]) if i < len(columns[c]) else "" for c in names))
    return ("\n".join(rows) + "\n").encode()


@st.composite
def job_columns(draw) -> dict[str, list]:
    """A valid job table (section 8) as columns of Python numbers."""
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    cols = {
        "id": [int(x) for x in rng.permutation(n) + draw(st.sampled_from([0, 1, 1000]))],
        "submit": [int(x) for x in np.sort(rng.integers(0, 500, n))],
        "runtime": [int(x) for x in rng.integers(1, 200, n)],
        "estimate": [int(x) for x in rng.integers(1, 400, n)],
        "private_bid": [round(float(x), 3) for x in rng.uniform(0, 180, n)],
    }
    cols["reported_bid"] = [round(b * float(rng.uniform(0.1, 1)), 3) for b in cols["private_bid"]]
    if draw(st.booleans()):
        cols["user"] = [int(x) for x in rng.integers(1, 5, n)]
    if draw(st.booleans()):
        cols["group"] = [int(x) for x in rng.integers(0, 2, n)]
    return cols


CELL_VALUES = ["", "nan", "inf", "-inf", "-1", "0", "1e300", "1e20", "99999999999999999999", "2.5", "x", "0x10",
               " 3", '"3"', "1,5", "true", "1e-320", "-0", "9" * 400, "é", "\"unclosed"]  # fmt: skip


@st.composite
def csv_job_table(draw) -> tuple[bytes, str]:
    """A job table as CSV, valid or with hostile cells, columns or rows."""
    cols = draw(job_columns())
    done = []
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["cell", "cell", "rename", "drop", "duplicate", "extra", "row", "repeat id"]))
        names = list(cols)
        c = draw(st.sampled_from(names)) if names else None
        if op == "cell" and c and cols[c]:
            i = draw(st.integers(0, len(cols[c]) - 1))
            cols[c][i] = draw(st.sampled_from(CELL_VALUES))
            done.append(f"{c}[{i}] = {cols[c][i]!r:.40}")
        elif op == "rename" and c:
            new = draw(st.sampled_from(["ID", " id", "submit ", "", "private-bid", "runtime", "é"]))
            cols = {(new if k == c else k): v for k, v in cols.items()}
            done.append(f"rename {c} -> {new!r}")
        elif op == "drop" and c:
            del cols[c]
            done.append(f"drop {c}")
        elif op in ("duplicate", "extra"):
            new = (c or "id") + ("" if op == "duplicate" else "_x")
            text = _frame_to_csv(cols).decode().splitlines()
            extra = [v for v in (cols.get(c) or [1])]
            text = [f"{text[0]},{new}"] + [f"{line},{extra[k % len(extra)]}" for k, line in enumerate(text[1:])]
            done.append(f"column {new!r} added")
            return ("\n".join(text) + "\n").encode(), "; ".join(done)
        elif op == "row":
            for k in cols:
                cols[k] = cols[k][:0] if draw(st.booleans()) else cols[k] + cols[k][-1:]
            done.append("rows changed")
        elif op == "repeat id" and "id" in cols and len(cols["id"]) > 1:
            cols["id"][-1] = cols["id"][0]
            done.append("an id repeated")
    return _frame_to_csv(cols), "; ".join(done)


PARQUET_DAMAGE = ["bool", "datetime", "timedelta", "str", "category", "uint64", "float16", "int8", "null", "list",
                  "object", "nan", "huge", "drop"]  # fmt: skip


@st.composite
def parquet_job_table(draw) -> tuple[bytes, str]:
    """A job table as Parquet, valid or with columns of hostile types (bool, datetime, text, categories,
    unsigned 64-bit, half floats, nulls, lists)."""
    import pandas as pd

    cols = draw(job_columns())
    df = pd.DataFrame(cols)
    done = []
    for _ in range(draw(st.integers(0, 2))):
        c = draw(st.sampled_from(list(df.columns)))
        kind = draw(st.sampled_from(PARQUET_DAMAGE))
        v = df[c]
        try:
            df[c] = (
                {
                    "bool": lambda: v.astype(bool),
                    "datetime": lambda: pd.to_datetime(v.astype("int64"), unit="s"),
                    "timedelta": lambda: pd.to_timedelta(v.astype("int64"), unit="s"),
                    "str": lambda: v.astype(str),
                    "category": lambda: v.astype("category"),
                    "uint64": lambda: pd.Series([2**64 - 1] * len(v), dtype="uint64"),
                    "float16": lambda: v.astype("float16"),
                    "int8": lambda: v.astype("int64").clip(-128, 127).astype("int8"),
                    "null": lambda: v.astype(object).where(v.index != 0, None),
                    "list": lambda: pd.Series([[1, 2]] * len(v)),
                    "object": lambda: pd.Series([b"x"] + [1] * (len(v) - 1), dtype=object),
                    "nan": lambda: v.astype(float).where(v.index != 0, float("nan")),
                    "huge": lambda: v.astype(float).where(v.index != 0, 1e300),
                }[kind]()
                if kind != "drop"
                else v
            )
            if kind == "drop":
                df = df.drop(columns=[c])
            done.append(f"{c}: {kind}")
        except Exception:  # noqa: BLE001 - a type pandas cannot make of this column: leave it
            pass
    buf = io.BytesIO()
    try:
        df.to_parquet(buf, index=False)
    except Exception:  # noqa: BLE001 - Arrow refuses some mixtures: write the valid table
        buf = io.BytesIO()
        pd.DataFrame(cols).to_parquet(buf, index=False)
        done.append("(unwritable mixture dropped)")
    return buf.getvalue(), "; ".join(done)


@st.composite
def egta_docs(draw) -> dict:
    """A valid EGTA JSON game: 1-2 roles of 1-4 players and 1-3 strategies, payoffs drawn at random."""
    from gamemarket.games.egta import to_egta
    from gamemarket.games.rsgame import RoleSymmetricGame

    roles = draw(st.integers(1, 2))
    players = [draw(st.integers(1, 4)) for _ in range(roles)]
    strategies = [draw(st.integers(1, 3)) for _ in range(roles)]
    game = RoleSymmetricGame.random(players, strategies, np.random.default_rng(draw(st.integers(0, 2**16))))
    doc = to_egta(game)
    if draw(st.booleans()) and len(doc["profiles"]) > 1:  # an incomplete game
        doc["profiles"] = doc["profiles"][: draw(st.integers(1, len(doc["profiles"])))]
    return doc


def nfg_text(A: np.ndarray, B: np.ndarray) -> bytes:
    r, c = A.shape
    pay = " ".join(f"{A[i, j]:g} {B[i, j]:g}" for j in range(c) for i in range(r))
    return f'NFG 1 R "g" {{ "P1" "P2" }} {{ {r} {c} }}\n{pay}\n'.encode()


def csv_game_text(A: np.ndarray, B: np.ndarray) -> bytes:
    lines = ["provider,consumer,provider_payoff,consumer_payoff"]
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            lines.append(f"p{i},c{j},{A[i, j]:g},{B[i, j]:g}")
    return ("\n".join(lines) + "\n").encode()


NFG_TOKENS = [b"nan", b"1e400", b"-1e308", b"x", b"-", b"{", b"}", b'"', b"99999999999999999999", b"0", b"\n"]


@st.composite
def token_damage(draw, text: bytes) -> tuple[bytes, str]:
    """A whitespace- or comma-separated text with one token replaced, dropped or added."""
    toks = re.split(rb"([ ,\n])", text)
    idx = [k for k, t in enumerate(toks) if t.strip(b" ,\n")]
    if not idx:
        return text, ""
    k = draw(st.sampled_from(idx))
    op = draw(st.sampled_from(["replace", "replace", "drop", "add"]))
    tok = draw(st.sampled_from(NFG_TOKENS))
    if op == "replace":
        toks[k] = tok
    elif op == "drop":
        toks[k] = b""
    else:
        toks[k] = toks[k] + b" " + tok
    return b"".join(toks), f"token {k}: {op} {tok!r}"


NPZ_DAMAGE = ["nan", "inf", "negative", "zero", "shape", "scalar", "empty", "bool", "complex", "text", "huge", "int",
              "drop"]  # fmt: skip


@st.composite
def npz_problem(draw) -> tuple[bytes, str]:
    """A pricing problem (.npz with A, R, maybe utility/demand/weight), valid or with hostile arrays."""
    n, m = draw(st.integers(1, 12)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    z = {"A": rng.random((n, m)) + 0.05, "R": rng.uniform(0.5, 3, m)}
    if draw(st.booleans()):
        z["utility"] = np.array(draw(st.sampled_from(["log", "linear", "target", "alpha:0.5", "alpha:2"])))
        if str(z["utility"]) == "target":
            z["target"] = rng.uniform(0.1, 0.5, n)
    done = []
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from(["A", "R", "demand", "weight", "target", "utility"]))
        kind = draw(st.sampled_from(NPZ_DAMAGE))
        base = z.get(key, np.ones(n))
        base = base if base.dtype.kind == "f" else np.ones(n)
        z[key] = {
            "nan": lambda: np.where(np.arange(base.size).reshape(base.shape) == 0, np.nan, base),
            "inf": lambda: np.where(np.arange(base.size).reshape(base.shape) == 0, np.inf, base),
            "negative": lambda: -base,
            "zero": lambda: np.zeros_like(base),
            "shape": lambda: np.ones((base.size + 1,)),
            "scalar": lambda: np.array(1.0),
            "empty": lambda: np.zeros((0,)),
            "bool": lambda: base > 0.5,
            "complex": lambda: base + 1j,
            "text": lambda: np.array("cubic"),
            "huge": lambda: base * 1e300,
            "int": lambda: (base * 10).astype(np.int64),
            "drop": lambda: None,
        }[kind]()
        if z[key] is None:
            del z[key]
        done.append(f"{key}: {kind}")
    buf = io.BytesIO()
    np.savez(buf, **z)
    return buf.getvalue(), "; ".join(done)


# ================================================================================================ studies
@st.composite
def workload_tables(draw, files: dict) -> dict:
    """A study's ``[workload]``: the plain generator, the embedded model, or a small SWF trace."""
    nodes, jobs = draw(st.integers(2, 8)), draw(st.integers(30, 200))
    source = draw(st.sampled_from(["plain", "plain", "model", "trace"]))
    if source == "plain":
        load = draw(st.sampled_from([0.5, 0.9, 1.2]))
        return {"source": "synthetic", "nodes": nodes, "synthetic": {"jobs": jobs, "load": load, "seed": 1}}
    if source == "model":
        files["m.toml"] = MODEL_TEXT.encode()
        return {"source": "synthetic", "model": "../m.toml", "nodes": nodes, "synthetic": {"jobs": jobs, "seed": 2}}
    files["t.swf"] = draw(swf_traces(min_jobs=jobs // 2, max_jobs=jobs))
    return {"source": "../t.swf", "nodes": nodes}


@st.composite
def study_docs(draw, population: bool, files: dict) -> dict:
    """A small valid study: 30-200 jobs, 1-2 seeds, 1-2 providers (and consumers), bimatrix or a population
    game reduced to 2 players; now and then inline strategies, games, bids, outputs, catalogues, companions."""
    doc: dict = {}
    if draw(st.booleans()):
        doc["name"] = draw(st.sampled_from(["s", "fz-1", "a.b"]))
    doc["workload"] = draw(workload_tables(files))
    providers = draw(st.lists(st.sampled_from(PROVIDERS), min_size=1, max_size=2, unique=True))
    doc["strategies"] = {"providers": providers}
    if draw(st.booleans()):
        doc["strategies"]["provider"] = {"mine": {"scheduler": "hb", "payment": "kth", "reserve": 2.0}}
        providers[-1] = "mine"
    if draw(st.booleans()):
        doc["replications"] = {"count": draw(st.integers(1, 2))}
    else:
        doc["replications"] = {"seeds": draw(st.lists(st.integers(0, 5), min_size=1, max_size=2, unique=True))}
    if population:
        doc["game"] = {
            "kind": "population",
            "strategies": draw(st.lists(st.sampled_from(SHADINGS), min_size=2, max_size=2, unique=True)),
            "reduced_players": 2,
            "resamples": 100,
        }
        if draw(st.booleans()):
            doc["game"]["shading"] = {"mine": {"beta": {"high": 0.5}}}
            doc["game"]["strategies"][-1] = "mine"
    else:
        consumers = draw(st.lists(st.sampled_from(CONSUMERS), min_size=1, max_size=2, unique=True))
        doc["strategies"]["consumers"] = consumers
        if draw(st.booleans()):
            doc["strategies"]["consumer"] = {"half": {"groups": [[0.5, 0.0], [0.5, 0.6]]}}
            consumers[-1] = "half"
        if draw(st.booleans()):
            doc["games"] = [{"name": "g", "provider": "revenue", "consumer": "mean_utility"}]
        if draw(st.integers(0, 5)) == 0:
            files["studies/c.toml"] = _dumps_toml({**doc, "name": "c", "companions": []})
            doc["companions"] = ["c.toml"]
    if draw(st.booleans()):
        # now and then the report goes to a folder of the user's (it holds a report.md and a picture)
        doc["output"] = {"results": "out/res", "report": draw(st.sampled_from(["out/rep"] * 7 + ["../folder"]))}
    if draw(st.integers(0, 3)) == 0:
        doc["bids"] = {"components": [[1.0, 30.0, 15.0]], "lo": 0.0, "hi": 180.0}
    if draw(st.integers(0, 3)) == 0:
        files["prov.toml"] = PROVIDERS_TEXT.encode()
        doc["strategies"]["provider_file"] = "../prov.toml"
    return doc


@st.composite
def study_runs(draw, study: str, population: bool) -> list[list[str]]:
    """One or two commands on a study: run it (with or without its report), then status, solve, export,
    report or run again."""

    def command(which: str) -> list[str]:
        if which == "run":
            extra = ["--no-report"] if draw(st.booleans()) else []
            return ["study", "run", study, "--n-jobs", "1", "--no-progress", *extra]
        if which == "status":
            return ["study", "status", study]
        if which == "solve":
            return ["game", "solve", study, "--format", draw(st.sampled_from(["text", "json"])), "--resamples", "100"]
        if which == "export":
            out = ["--out", "exp"] if draw(st.booleans()) else []
            return ["game", "export", study, "--resamples", "100", *out]
        return ["report", study]

    first = draw(st.sampled_from(["run", "run", "run", "status", "solve", "export", "report"]))
    runs = [command(first)]
    if first == "run" and draw(st.booleans()):
        runs.append(command(draw(st.sampled_from(["status", "solve", "export", "report", "run"]))))
    if (runs[-1][0] == "report" or runs[-1][:2] == ["study", "run"]) and draw(st.integers(0, 9)) == 0:
        runs[-1].append("--force")
    return runs


@st.composite
def study_cases(draw) -> Case:
    """A study file (bimatrix or population), valid, with fields mutated, or with its text damaged; or valid
    with its model file or provider catalogue mutated; then one or two commands on it."""
    population = draw(st.booleans())
    files: dict = {}
    doc = draw(study_docs(population, files))
    how = draw(st.sampled_from(["valid", "fields", "fields", "fields", "fields", "text", "companion file"]))
    note = [f"{'population' if population else 'bimatrix'} study, {how}"]
    if how == "fields":
        doc, done = draw(mutated(doc, toml_values()))
        note += done
    text = _dumps_toml(doc)
    if how == "text":
        text, done = draw(damaged_text(text))
        note.append(done)
    if how == "companion file":
        name = draw(st.sampled_from(sorted(k for k in files if k.endswith(".toml")) or ["none"]))
        if name != "none":
            import tomllib

            other, done = draw(mutated(tomllib.loads(files[name].decode()), toml_values()))
            files[name] = _dumps_toml(other)
            note += [f"{name}: {d}" for d in done]
    files["studies/s.toml"] = text
    return Case("study", files, draw(study_runs("studies/s.toml", population)), "; ".join(note))


# ================================================================================== job tables, games, models
@st.composite
def job_table_cases(draw) -> Case:
    """A job table (CSV or Parquet; valid, hostile cells, columns or types) simulated with ``--job-table``."""
    fmt = draw(st.sampled_from(["csv", "csv", "parquet"]))
    data, note = draw(csv_job_table() if fmt == "csv" else parquet_job_table())
    argv = ["simulate", "--job-table", f"t.{fmt}", "--nodes", str(draw(st.integers(1, 6)))]
    if draw(st.booleans()):
        argv += ["--scheduler", draw(st.sampled_from(["hb", "nphb", "wspt", "wspt-est", "fcfs"]))]
        argv += ["--payment", draw(st.sampled_from(["first", "kth"])), "--reserve", draw(st.sampled_from(["0", "1"]))]
    out = draw(st.sampled_from([None, "o.csv", "o.parquet"]))
    argv += ["--out", out] if out else []
    jobs_out = draw(st.sampled_from([None, None, "j.csv", "j.parquet"]))
    argv += ["--jobs-out", jobs_out] if jobs_out else []
    argv += ["--format", "json"] if draw(st.booleans()) else []
    runs = [argv]
    if (out or jobs_out) and draw(st.integers(0, 3)) == 0:  # again: the outputs exist now
        runs.append(argv + (["--force"] if draw(st.booleans()) else []))
    return Case("job table", {f"t.{fmt}": data}, runs, note)


@st.composite
def game_cases(draw) -> Case:
    """A game to solve: EGTA JSON (valid, fields mutated, or malformed), ``.nfg`` or a CSV payoff table."""
    fmt = draw(st.sampled_from(["json", "json", "json", "nfg", "csv"]))
    note = ""
    if fmt == "json":
        doc = draw(egta_docs())
        how = draw(st.sampled_from(["valid", "fields", "fields", "fields", "text"]))
        note = how
        if how == "fields":
            doc, done = draw(mutated(doc, json_values()))
            note = "; ".join(done)
        data = _dumps_json(doc)
        if how == "text":
            data, note = draw(damaged_text(data))
    else:
        r, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        A, B = rng.integers(-5, 6, (r, c)).astype(float), rng.integers(-5, 6, (r, c)).astype(float)
        data = nfg_text(A, B) if fmt == "nfg" else csv_game_text(A, B)
        if draw(st.booleans()):
            data, note = draw(token_damage(data))
    argv = ["game", "solve", f"g.{fmt}", "--format", draw(st.sampled_from(["text", "json"]))]
    if fmt != "json":
        argv += ["--resamples", "100"]
        if draw(st.booleans()):
            methods = ["pure", "polytope", "support_enumeration", "vertex_enumeration", "lemke_howson"]
            argv += ["--methods", *draw(st.lists(st.sampled_from(methods), min_size=1, max_size=3, unique=True))]
    return Case("game", {f"g.{fmt}": data}, [argv], note)


@st.composite
def model_cases(draw) -> Case:
    """A workload model file (``models/lpc-egee-2004.toml``, valid or with values mutated) drawn from by
    ``simulate``, ``workload compare``, ``workload info`` or a study."""
    import tomllib

    doc = tomllib.loads(MODEL_TEXT)
    how = draw(st.sampled_from(["valid", "fields", "fields", "fields", "fields", "text"]))
    note = how
    if how == "fields":
        doc, done = draw(mutated(doc, toml_values()))
        note = "; ".join(done)
    data = _dumps_toml(doc)
    if how == "text":
        data, note = draw(damaged_text(data))
    files = {"m.toml": data}
    jobs, nodes = str(draw(st.integers(30, 200))), str(draw(st.integers(1, 8)))
    which = draw(st.sampled_from(["simulate", "compare", "info", "study"]))
    if which == "simulate":
        argv = ["simulate", "--workload", "m.toml", "--synthetic-jobs", jobs, "--nodes", nodes, "--format", "json"]
    elif which == "compare":
        argv = [
            "workload",
            "compare",
            "m.toml",
            "m.toml",
            "--nodes",
            nodes,
            "--synthetic-jobs",
            jobs,
            "--format",
            "json",
        ]
    elif which == "info":
        argv = ["workload", "info", "m.toml"]
    else:
        workload = {"source": "synthetic", "model": "../m.toml", "nodes": int(nodes), "synthetic": {"jobs": int(jobs)}}
        strategies = {"providers": ["hb-first"], "consumers": ["FT"]}
        study = {"workload": workload, "strategies": strategies, "replications": {"count": 1}}
        files["studies/s.toml"] = _dumps_toml(study)
        argv = ["study", "run", "studies/s.toml", "--n-jobs", "1", "--no-progress", "--no-report"]
    return Case("model", files, [argv], note)


@st.composite
def price_cases(draw) -> Case:
    """A pricing problem (.npz, valid or with hostile arrays) solved by ``price solve``."""
    data, note = draw(npz_problem())
    argv = ["price", "solve", "p.npz", "--quiet", "--max-iter", "50"]
    argv += ["--format", "json"] if draw(st.booleans()) else []
    argv += ["--method", draw(st.sampled_from(["lbfgs", "newton", "auto"]))] if draw(st.booleans()) else []
    argv += ["--out", "r.npz"] if draw(st.booleans()) else []
    return Case("price problem", {"p.npz": data}, [argv], note)


def _zipped(data: bytes) -> bytes:
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("t.swf", data)
    return buf.getvalue()


#: the forms a trace arrives in besides plain text: read (gzip, a byte-order mark, Windows line ends) or refused as
#: what they are (another compression, an archive, UTF-16)
TRACE_FORMS = {
    "as it is": lambda b: b,
    "gzip": lambda b: __import__("gzip").compress(b),
    "bzip2": lambda b: __import__("bz2").compress(b),
    "xz": lambda b: __import__("lzma").compress(b),
    "zip": _zipped,
    "utf-16": lambda b: b.decode().encode("utf-16"),
    "byte-order mark": lambda b: b"\xef\xbb\xbf" + b,
    "CRLF line ends": lambda b: b.replace(b"\n", b"\r\n"),
    "gzip cut short": lambda b: __import__("gzip").compress(b)[: max(20, len(b) // 10)],
}


@st.composite
def trace_cases(draw) -> Case:
    """A small SWF trace (valid, or with one line's tokens damaged) read by ``workload info``, ``workload
    fit``, ``workload compare`` and ``simulate --workload``."""
    which = draw(st.sampled_from(["info", "fit", "compare", "simulate"]))
    data = draw(swf_traces(1000, 1300) if which == "fit" else swf_traces())  # a fit needs 1000 jobs
    note = ""
    if draw(st.booleans()):
        lines = data.split(b"\n")
        k = draw(st.integers(0, len(lines) - 1))
        lines[k], note = draw(token_damage(lines[k]))
        note = f"line {k + 1}: {note}"
        data = b"\n".join(lines)
    how = draw(st.sampled_from(list(TRACE_FORMS)))
    if how != "as it is":
        data = TRACE_FORMS[how](data)
        note = f"{note}; {how}" if note else how
    nodes = str(draw(st.integers(1, 8)))
    skip = ["--skip-bad-lines"] if draw(st.booleans()) else []
    argv = {
        "info": ["workload", "info", "t.swf", *skip],
        "fit": ["workload", "fit", "t.swf", "--out", "m2.toml", *skip],
        "compare": ["workload", "compare", "t.swf", "t.swf", "--nodes", nodes, "--format", "json"],
        "simulate": ["simulate", "--workload", "t.swf", "--nodes", nodes, "--format", "json", *skip],
    }[which]
    return Case("trace", {"t.swf": data}, [argv], note)


# ================================================================================================= options
def command_options() -> dict[tuple[str, ...], list[tuple[str, object, list | None]]]:
    """Every command's options, read from the parser itself: (flag, nargs, choices), flags first."""
    import argparse

    found = {}

    def walk(p, prefix=()):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    walk(sub, (*prefix, name))
                return
        found[prefix] = [
            (a.option_strings[0], a.nargs, list(a.choices) if a.choices else None)
            for a in p._actions
            if a.option_strings and not set(a.option_strings) & SKIP_OPTIONS
        ]

    walk(build_parser())
    return found


SIMPLE_STUDY = {
    "workload": {"source": "synthetic", "nodes": 3, "synthetic": {"jobs": 60}},
    "strategies": {"providers": ["hb-first"], "consumers": ["FT", "SRG"]},
    "replications": {"count": 2},  # two seeds: the bootstrap's options take effect
}
STUDY_RUN = ["study", "run", "studies/s.toml", "--n-jobs", "1", "--no-progress", "--no-report"]
#: valid command lines on the files of :func:`option_files`; a study command after a run has results to read
BASES = [
    ["simulate", "--synthetic-jobs", "50", "--nodes", "3", "--seed", "1", "--format", "json"],
    ["simulate", "--workload", "t.swf", "--nodes", "3", "--out", "o.csv"],
    ["simulate", "--workload", "m.toml", "--synthetic-jobs", "60", "--nodes", "3", "--mix", "SRG"],
    ["simulate", "--jobs", "t.csv", "--nodes", "3", "--out", "o.csv", "--jobs-out", "j.parquet"],
    ["workload", "info", "t.swf", "--nodes", "3"],
    ["workload", "fit", "t.swf", "--out", "m2.toml"],
    ["workload", "compare", "t.swf", "m.toml", "--nodes", "3", "--synthetic-jobs", "60", "--format", "json"],
    ["workload", "fetch", "LPC-EGEE-2004-1.2-cln", "--dest", "dl", "--url", f"file://{D}/t.swf"],
    STUDY_RUN,
    ["study", "status", "studies/s.toml"],
    ["game", "solve", "g.nfg", "--time-limit", "20"],
    ["game", "solve", "studies/s.toml", "--resamples", "100", "--format", "json"],
    ["game", "export", "studies/s.toml", "--out", "exp", "--resamples", "100"],
    ["report", "studies/s.toml"],
    ["price", "solve", "--n", "20", "--m", "2", "--quiet", "--format", "json"],
    ["price", "solve", "p.npz", "--quiet", "--out", "r.npz"],
]
#: the files of :func:`option_files`: an option aimed at an input must never replace it
INPUTS = ["t.swf", "t.csv", "m.toml", "g.nfg", "p.npz", "studies/s.toml"]
#: symbolic links every options case has: to an input, to the user's folder, to a file of the user's, and
#: one that leads nowhere (out of the folder); options aim at them and through them
LINKS = {"link.csv": "t.csv", "link.toml": "m.toml", "alias": "folder", "keep.csv": "folder/keep.txt",
         "nowhere": "../elsewhere"}  # fmt: skip
INPUTS += list(LINKS) + ["alias/keep.txt", "alias/new.csv", "nowhere/x.csv", "link.csv/x.csv"]
METHOD_VALUES = ["pure", "polytope", "support_enumeration", "vertex_enumeration", "lemke_howson", "simplex", ""]


@st.composite
def option_files(draw) -> dict:
    """The valid inputs every options case has: a trace, a job table, a model, a game, a problem, a study."""
    problem = io.BytesIO()
    np.savez(problem, A=np.array([[1.0, 0.5], [0.2, 1.0], [0.7, 0.7]]), R=np.array([1.0, 2.0]))
    return {
        "t.swf": draw(swf_traces(1000, 1100)),  # enough jobs for `workload fit`
        "t.csv": _frame_to_csv(draw(job_columns())),
        "m.toml": MODEL_TEXT.encode(),
        "g.nfg": nfg_text(np.array([[3.0, 0.0], [5.0, 1.0]]), np.array([[3.0, 5.0], [0.0, 1.0]])),
        "p.npz": problem.getvalue(),
        "studies/s.toml": _dumps_toml(SIMPLE_STUDY),
    }


def _value_for(draw, flag: str, nargs, choices) -> list[str]:
    if nargs == 0:
        return []
    if flag == "--n-jobs":
        return [draw(st.sampled_from(WORKER_VALUES))]
    if flag == "--url":
        return [draw(st.sampled_from(URL_VALUES))]
    if flag == "--methods":
        return draw(st.lists(st.sampled_from(METHOD_VALUES), min_size=1, max_size=3))
    return [draw(st.sampled_from((choices or []) + OPTION_VALUES + INPUTS))]


@st.composite
def option_cases(draw) -> Case:
    """A valid command line with 1-3 of its options (or positionals) given hostile values, added or dropped."""
    files = draw(option_files())
    argv = list(draw(st.sampled_from(BASES)))
    cmd = tuple(argv[:1]) if argv[0] in ("simulate", "report") else tuple(argv[:2])
    options = command_options()[cmd]
    done = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["value", "value", "add", "add", "positional", "drop"]))
        flags = [k for k, a in enumerate(argv) if a.startswith("--")]
        if op == "value" and flags:
            k = draw(st.sampled_from(flags))
            spec = next((o for o in options if o[0] == argv[k]), None)
            if spec is not None and spec[1] != 0 and k + 1 < len(argv) and not argv[k + 1].startswith("--"):
                argv[k + 1 : k + 2] = _value_for(draw, *spec)
                done.append(f"{argv[k]} changed")
        elif op == "add" and options:
            spec = draw(st.sampled_from(options))
            argv += [spec[0], *_value_for(draw, *spec)]
            done.append(f"{spec[0]} added")
        elif op == "positional" and len(argv) > len(cmd) and not argv[len(cmd)].startswith("--"):
            argv[len(cmd)] = draw(st.sampled_from(OPTION_VALUES + INPUTS + ["synthetic"]))
            done.append("positional changed")
        elif op == "drop" and flags:
            k = draw(st.sampled_from(flags))
            end = k + 1
            while end < len(argv) and not argv[end].startswith("--"):
                end += 1
            done.append(f"{argv[k]} dropped")
            del argv[k:end]
    if cmd == ("workload", "fetch") and "--url" not in argv:  # never the network: the archive's own address
        argv += ["--url", URL_VALUES[0]]
    runs = [argv]
    if cmd in (("game", "export"), ("report",)) or (cmd == ("game", "solve") and "studies/s.toml" in argv):
        runs = [STUDY_RUN, argv]  # with results to read
    return Case("options", files, runs, "; ".join(done), links=dict(LINKS))


#: games written by a real tool (gameanalysis: ``tests/games/data/gameanalysis``), to be mutated
TOOL_GAMES = {
    p.name: p.read_bytes()
    for p in sorted((ROOT / "tests" / "games" / "data" / "gameanalysis").glob("*.json"))
    if p.name != "provenance.json"  # where the fixtures came from: no game
}


@st.composite
def tool_game_cases(draw) -> Case:
    """A game file another tool wrote (gameanalysis' JSON), as it is, its fields mutated or its text damaged."""
    name = draw(st.sampled_from(sorted(TOOL_GAMES)))
    data, how = TOOL_GAMES[name], draw(st.sampled_from(["as it is", "fields", "fields", "text"]))
    note = f"{name}: {how}"
    if how == "fields":
        doc, done = draw(mutated(json.loads(data), json_values()))
        data, note = _dumps_json(doc), f"{name}: " + "; ".join(done)
    elif how == "text":
        data, done = draw(damaged_text(data))
        note = f"{name}: {done}"
    argv = ["game", "solve", "g.json", "--format", draw(st.sampled_from(["text", "json"]))]
    return Case("real tool", {"g.json": data}, [argv], note)


#: declared sizes far beyond the data a file holds
HUGE = [10**6, 10**9, 2**31, 2**63, 10**30, 10**400]


@st.composite
def size_cases(draw) -> Case:
    """A file whose declared dimensions are far beyond its data: an ``.nfg`` header of 10**9 strategies over a
    few payoffs, a gameanalysis game of 10**9 players, a SWF trace's MaxProcs or a study's nodes or jobs."""
    big = draw(st.sampled_from(HUGE))
    which = draw(st.sampled_from(["nfg", "egta", "swf", "study"]))
    if which == "nfg":
        text = nfg_text(np.array([[3.0, 0.0], [5.0, 1.0]]), np.array([[3.0, 5.0], [0.0, 1.0]])).decode()
        text = re.sub(r"\{ 2 2 \}", "{ %d %d }" % (big, draw(st.sampled_from([2, big]))), text)
        return Case("sizes", {"g.nfg": text.encode()}, [["game", "solve", "g.nfg"]], f"nfg {big}")
    if which == "egta":
        doc = json.loads(TOOL_GAMES["game.json"])
        role = draw(st.sampled_from(sorted(doc["players"])))
        doc["players"][role] = big
        argv = ["game", "solve", "g.json", "--format", "json"]
        return Case("sizes", {"g.json": _dumps_json(doc)}, [argv], f"egta players {role} = {big}")
    if which == "swf":
        data = draw(swf_traces()).replace(b"MaxProcs: 4", f"MaxProcs: {big}".encode())
        argv = ["workload", "info", "t.swf", *draw(st.sampled_from([[], ["--nodes", str(big)]]))]
        return Case("sizes", {"t.swf": data}, [argv], f"swf {big}")
    doc = json.loads(json.dumps(SIMPLE_STUDY))
    field_ = draw(st.sampled_from(["nodes", "jobs"]))  # (10**6 jobs, or seeds, is a valid study: slow, not wrong)
    target = {"nodes": doc["workload"], "jobs": doc["workload"]["synthetic"]}[field_]
    target[field_] = big if big < 2**63 and (field_ == "nodes" or big > 10**6) else str(big)
    return Case("sizes", {"studies/s.toml": _dumps_toml(doc)}, [STUDY_RUN], f"study {field_} = {big}")


#: a study of a few seconds' runs, for the kill and the concurrent cases (the report included: its figures
#: are written too)
SIGNAL_STUDY = {
    "workload": {"source": "synthetic", "nodes": 4, "synthetic": {"jobs": 200}},
    "strategies": {"providers": ["hb-first", "hb-kth"], "consumers": ["FT", "SRG"]},
    "replications": {"count": 2},
}
STUDY_RUN_REPORT = ["study", "run", "studies/s.toml", "--n-jobs", "1", "--no-progress"]


#: commands whose compiled runs last seconds, so that a signal comes while one runs (a signal taken in numba's
#: callback as it boxed the run's results ended `simulate` of 2,000,000 jobs with a segmentation fault; 3,000 jobs
#: had finished before any signal)
LONG_COMPILED = [
    ["simulate", "--synthetic-jobs", "3000", "--out", "folder/o.parquet"],
    ["simulate", "--synthetic-jobs", "2000000", "--out", "folder/o.parquet"],
    ["price", "solve", "--n", "3000000", "--m", "8", "--out", "folder/r.npz"],
]


@st.composite
def signal_cases(draw) -> Case:
    """A command killed (SIGKILL), interrupted (SIGINT, Ctrl-C), terminated (SIGTERM) or hung up (SIGHUP) mid-run,
    then run again: nothing half-written is left or read, the run resumes (every run stored), no temporary or
    staging file of the stopped one remains, and one stopped by a signal it can catch ends with its exit code (130,
    143, 129) and one line saying what it leaves."""
    argv = draw(st.sampled_from([STUDY_RUN_REPORT, STUDY_RUN, *LONG_COMPILED]))
    delay = draw(st.sampled_from(["1.5", "2.5", "3.5", "5", "8"]))
    again = argv + (["--force"] if argv[0] in ("simulate", "price") else [])
    files = {"studies/s.toml": _dumps_toml(SIGNAL_STUDY)}
    how = draw(st.sampled_from(["@kill", "@int", "@term", "@hup"]))  # the OOM killer's SIGKILL, Ctrl-C, kill, hangup
    said = {"@kill": "killed", "@int": "interrupted (SIGINT)", "@term": "terminated (SIGTERM)", "@hup": "hung up"}[how]
    return Case("signals", files, [[how, delay, *argv], again], f"{said} after {delay} s")


#: two commands writing one new file (the first in the background, a large run; the second beside it)
ONE_OUTPUT = [
    (
        ["simulate", "--synthetic-jobs", "200000", "--nodes", "8", "--out", "same.parquet"],
        ["simulate", "--synthetic-jobs", "200", "--seed", "2", "--out", "same.parquet"],
    ),
    (
        ["price", "solve", "--n", "200000", "--m", "4", "--quiet", "--out", "same.npz"],
        ["price", "solve", "--n", "200", "--m", "3", "--quiet", "--out", "same.npz"],
    ),
]


@st.composite
def concurrent_cases(draw) -> Case:
    """Two writers of one study at once: one runs in the background, the other starts beside it; the second
    waits or exits 2 naming the lock holder, never a false "not made by gamemarket", and both end cleanly."""
    if draw(st.booleans()):  # two commands given one new output, neither with --force: one is refused
        first, second = draw(st.sampled_from(ONE_OUTPUT))
        return Case("concurrent", {}, [["@background", *first], second], "one new --out, two writers")
    first = draw(st.sampled_from([STUDY_RUN_REPORT, STUDY_RUN]))
    second = draw(st.sampled_from([STUDY_RUN_REPORT, STUDY_RUN, ["report", "studies/s.toml"]]))
    runs = [["@background", *first], second]
    if draw(st.booleans()):
        runs = [STUDY_RUN, *runs]  # a results folder that exists already
    return Case("concurrent", {"studies/s.toml": _dumps_toml(SIGNAL_STUDY)}, runs)


#: every reader of a user's file, its input at ``{in}`` (a device's name, or a link to it with the reader's suffix)
DEVICE_READERS = (
    ["simulate", "--job-table", "{in}.csv", "--nodes", "2"],
    ["simulate", "--job-table", "{in}.parquet", "--nodes", "2"],
    ["workload", "info", "{in}.swf"],
    ["workload", "fit", "{in}.swf", "--out", "m.toml"],
    ["workload", "info", "{in}.toml"],
    ["workload", "compare", "{in}.swf", "{in}.toml", "--nodes", "4"],
    ["price", "solve", "{in}.npz"],
    ["game", "solve", "{in}.nfg"],
    ["game", "solve", "{in}.json"],
    ["game", "solve", "{in}.csv"],
    ["game", "solve", "{in}.npz"],
    ["study", "run", "{in}.toml", "--no-progress"],
    ["plugin", "check", "{in}.py"],
)


@st.composite
def device_cases(draw) -> Case:
    """An input that is a device: ``/dev/zero`` never ends (a job table read from it grew to 23 GB before the kernel
    killed the process), ``/dev/null`` is empty, ``/dev/urandom`` is noise; given by its name or through a link
    with the reader's suffix, to every reader: exit 2 naming it, within the case's time and memory, nothing
    written."""
    dev = draw(st.sampled_from(["/dev/zero", "/dev/null", "/dev/urandom"]))
    argv = list(draw(st.sampled_from(DEVICE_READERS)))
    if draw(st.booleans()):
        return Case("devices", {}, [[a.replace("{in}", "in") for a in argv]], f"links to {dev}", links={
            f"in{suffix}": dev for suffix in (".csv", ".parquet", ".swf", ".toml", ".npz", ".nfg", ".json", ".py")
        })  # fmt: skip
    return Case("devices", {}, [[dev if "{in}" in a else a for a in argv]], dev)


#: the kinds whose cases read one input file, and the case strategies that make them
STREAMED = ("job table", "game", "model", "price problem", "trace")


@st.composite
def stream_cases(draw) -> Case:
    """Another family's case (a job table, a game, a model, a price problem, a trace) with its input given as a
    named pipe, read once: named with the file's ending, or with none (as ``<(cat file)`` is ``/dev/fd/63``, whose
    format a reader tells by its bytes or refuses, saying so). Exit 0 with the file's answer or exit 2 with a
    message, never a traceback, a hang, nor a read of the pipe twice (a table with a column of text found it empty
    the second time)."""
    base = draw(KINDS[draw(st.sampled_from(STREAMED))]())
    inputs = [name for name in base.files if name not in USER_FILES and any(name in argv for argv in base.runs)]
    if not inputs:
        return base
    name = inputs[0]
    pipe = f"pipe{Path(name).suffix}" if draw(st.booleans()) else "pipe"
    runs = [[pipe if a == name else a for a in argv] for argv in base.runs]
    note = f"{base.kind} through a pipe named {pipe!r}" + (f"; {base.note}" if base.note else "")
    return Case("streams", base.files, runs, note, links=base.links, pipes={pipe: name})


#: every kind of input, by name: the strategy of its cases
KINDS = {
    "study": study_cases,
    "job table": job_table_cases,
    "game": game_cases,
    "model": model_cases,
    "price problem": price_cases,
    "trace": trace_cases,
    "options": option_cases,
    "real tool": tool_game_cases,
    "sizes": size_cases,
    "signals": signal_cases,
    "concurrent": concurrent_cases,
    "devices": device_cases,
    "streams": stream_cases,
}


def report(case: Case, problems: list[Problem]) -> str:
    """A finding's report: the case in full and each problem."""
    return case.describe() + "\n" + "\n".join(str(p) for p in problems)


#: findings the fuzz has made that are not fixed yet, each in code another engineer owns: signature
#: pattern (a regular expression) -> where it is and what would fix it. ``tests/test_fuzz_cli.py`` passes
#: them (and fails on any other); the long run counts them apart. Remove an entry once it is fixed.
KNOWN = {}


def known(problem: Problem) -> str | None:
    """The known finding ``problem`` is (its explanation), or None for a new one."""
    return next((why for pat, why in KNOWN.items() if re.search(pat, problem.signature)), None)


def new_problems(problems: list[Problem]) -> list[Problem]:
    """The problems that are not known findings."""
    return [p for p in problems if known(p) is None]
