"""The process entry point: ``main`` with the collector set for a short-lived process."""

from __future__ import annotations

import configparser
import gc
import sys
from pathlib import Path

import pytest

from gamemarket import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector():
    """Put the collector back as it was: ``run`` changes it for the rest of its process."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_run_is_main_with_the_process_collector(tmp_path, monkeypatch, capsys, collector):
    argv = ["simulate", "--job-table", str(tmp_path / "missing.csv"), "--nodes", "4"]
    assert cli.main(argv) == 2
    said = capsys.readouterr().err
    assert "missing.csv" in said
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != cli.PROCESS_GC_THRESHOLD

    monkeypatch.setattr(sys, "argv", ["gamemarket", *argv])
    older = gc.get_threshold()[1:]
    assert cli.run() == 2
    assert capsys.readouterr().err == said
    assert gc.get_threshold() == (cli.PROCESS_GC_THRESHOLD, *older)
    assert gc.get_freeze_count() > 0  # the interpreter's last collection will skip them


def test_both_ways_in_go_through_run():
    scripts = configparser.ConfigParser()
    scripts.read(ROOT / "setup.cfg")
    lines = scripts["options.entry_points"]["console_scripts"].strip().splitlines()
    entries = {name.strip(): target.strip() for name, target in (line.split("=", 1) for line in lines)}
    assert entries["gamemarket"] == "gamemarket.__main__:run"
    entry = (ROOT / "gamemarket" / "__main__.py").read_text()
    assert 'if __name__ == "__main__":\n    raise SystemExit(run())' in entry


def test_the_entry_point_imports_nothing_before_its_ctrl_c_handler():
    """``gamemarket.__main__`` is imported, and sets its SIGINT handler, before any module that takes time to
    import: ``import gamemarket`` imports nothing (numpy was imported by it, with Ctrl-C a traceback there)."""
    import subprocess

    code = (
        "import sys; import gamemarket.__main__, gamemarket; "
        "print(sorted(m for m in sys.modules if m.startswith(('numpy', 'pandas', 'gamemarket.'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['gamemarket.__main__']"


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.15])
def test_ctrl_c_while_the_command_starts_is_one_line_and_exit_130(tmp_path, delay):
    import signal
    import subprocess
    import time

    # SIGINT as soon as the process runs (its imports) and a little later: one line, 130, never a traceback
    p = subprocess.Popen(
        [sys.executable, "-m", "gamemarket", "simulate", "--synthetic-jobs", "3000", "--out", str(tmp_path / "o.csv")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    if p.returncode == 0:  # (a machine fast enough to finish first: nothing to test)
        pytest.skip("the command finished before the signal")
    if p.returncode == -signal.SIGINT and err == "":  # before the interpreter had started (its default: killed)
        pytest.skip("the signal came before Python had set its handlers")
    if "Fatal Python error: init_import_site" in err:  # in the interpreter's own start, before any code of ours
        pytest.skip("the signal came while Python imported its site module, before gamemarket's code ran")
    if "KeyboardInterrupt" in err and "gamemarket/__main__.py" not in err and "_run_module_as_main" in err:
        # while `python -m` imported the package, before its entry point set the handler (a named limit: a loaded
        # machine widens that window past 0.15 s)
        pytest.skip("the signal came while Python imported the package, before the entry point set its handler")
    assert p.returncode == 130 and "Traceback" not in err, err
    assert err.strip() in {
        "gamemarket: interrupted; the command had not started: nothing was run",
        "gamemarket: interrupted; no file was half-written",
    }, err
    assert not (tmp_path / "o.csv").exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name, code", [("SIGTERM", 143), ("SIGHUP", 129)])
@pytest.mark.parametrize("delay", [0.05, 0.3, 2.0])
def test_sigterm_or_sighup_at_any_moment_is_one_line_and_its_exit_code(tmp_path, delay, name, code):
    """Before the command started (its imports) the signal's default ended the process in silence (-15); once it
    has started the command stops as at a Ctrl-C. Either way: one line, 128 + the signal's number, nothing left."""
    import signal
    import subprocess
    import time

    # (2,000,000 jobs: about 5 s here, so that the signal at 2 s comes while it runs; with 30,000 it had finished)
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gamemarket",
            "simulate",
            "--synthetic-jobs",
            "2000000",
            "--out",
            str(tmp_path / "o.csv"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    p.send_signal(getattr(signal, name))
    out, err = p.communicate(timeout=120)
    if p.returncode == 0:  # (a machine fast enough to finish first: nothing to test)
        pytest.skip("the command finished before the signal")
    if p.returncode == -getattr(signal, name) and err == "":  # before the interpreter had started
        pytest.skip("the signal came before Python had set its handlers")
    assert p.returncode == code and "Traceback" not in err, err
    assert err.strip() in {
        f"gamemarket: terminated ({name}); the command had not started: nothing was run",
        f"gamemarket: terminated ({name}); no file was half-written",
    }, err
    assert list(tmp_path.iterdir()) == []


def test_a_ctrl_c_python_can_only_report_is_delivered_again_not_printed(monkeypatch):
    """A KeyboardInterrupt raised in a ctypes callback (numba compiling through llvmlite) reaches
    ``sys.unraisablehook``: it printed a traceback and was lost; the command's hook delivers it to the main thread
    again instead, and passes every other exception to Python's hook."""
    import _thread
    import time
    import types

    delivered, passed = [], []
    monkeypatch.setattr(_thread, "interrupt_main", lambda *a: delivered.append(a))
    hook = cli._unraisable(passed.append)
    hook(types.SimpleNamespace(exc_type=KeyboardInterrupt, exc_value=KeyboardInterrupt()))
    assert passed == []
    for _ in range(400):
        if delivered:
            break
        time.sleep(0.01)
    assert delivered == [()]
    other = types.SimpleNamespace(exc_type=ValueError, exc_value=ValueError("x"))
    hook(other)
    assert passed == [other] and len(delivered) == 1


def test_a_ctrl_c_delivered_again_reaches_the_command_not_the_hook(capfd):
    """Fuzz run M: the hook called ``interrupt_main`` in the main thread, so the SIGINT handler ran inside the hook;
    Python printed "Exception ignored in sys.unraisablehook" and a traceback, and the Ctrl-C was lost."""
    import signal
    import time

    class RaisesWhenCollected:
        def __del__(self):
            raise KeyboardInterrupt

    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    hook, sys.unraisablehook = sys.unraisablehook, cli._unraisable(sys.unraisablehook)
    try:
        with pytest.raises(KeyboardInterrupt):
            RaisesWhenCollected()  # collected at once: its KeyboardInterrupt can only be reported
            for _ in range(400):
                time.sleep(0.01)
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGINT, handler)
    assert "Exception ignored" not in capfd.readouterr().err


class _ClosedPipe:
    """A stdout whose reader has gone away: every write raises BrokenPipeError, as a closed pipe does."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path, monkeypatch, capsys):
    """``gamemarket ... | head``: the closed pipe stops the command with 141, without an error message."""
    game = tmp_path / "g.nfg"
    game.write_text('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1 1 0 0 0 0 1 1\n')
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert cli.main(["game", "solve", str(game)]) == 141
    assert "error" not in capsys.readouterr().err


def test_a_ctrl_c_after_the_command_has_finished_is_ignored_not_a_death_by_the_signal(monkeypatch, capfd):
    """The fuzzer's signals family (and the fresh-clone suite, on a loaded machine): SIGINT 1.5 s into a `study run`
    that had just finished came while the process ended, outside every handler, and killed it by the signal (exit -2,
    no word). The command hands its code to ``on_end`` the moment it finishes; the entry point then ignores Ctrl-C."""
    import signal

    import gamemarket.__main__ as entry

    seen = []
    assert cli.main(["simulate", "--synthetic-jobs", "20", "--nodes", "2"], on_end=seen.append) == 0
    assert seen == [0]
    assert cli.main(["workload", "info", "/no/such.swf"], on_end=seen.append) == 2 and seen == [0, 2]  # an error
    before = signal.getsignal(signal.SIGINT)
    try:
        entry._finished(0)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    capfd.readouterr()

    def command(*, on_start, on_end):  # the interrupt in the steps between the command's end and on_end
        raise KeyboardInterrupt

    ended = []
    monkeypatch.setattr("gamemarket.cli.run", command)
    monkeypatch.setattr(entry, "end_now", ended.append)  # (os._exit: this process is the suite's)
    try:
        assert entry.run() == 130
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert capfd.readouterr().err == "gamemarket: interrupted; the command had finished, its output complete\n"
    assert ended == [130]  # ended at once, without the interpreter's teardown


def test_an_interrupted_command_ends_without_the_interpreters_teardown(tmp_path):
    """Its "interrupted" line said, a `study run` stopped by Ctrl-C still ended by SIGINT (exit -2) or by a C++
    library's terminate (exit -6) about once in 50 interrupts on a loaded machine (the fuzzer's signals family;
    0 in 100 once the process ends at once). What the teardown would run is seen here: an exit handler."""
    import subprocess
    import sys

    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('TEARDOWN\\n'))\n"
        "import gamemarket.__main__ as entry\n"
        "def command(*, on_start, on_end):\n"
        "    print('partial output', end='')\n"
        "    on_end(130)\n"
        "    return 130\n"
        "import gamemarket.cli\n"
        "gamemarket.cli.run = command\n"
        "raise SystemExit(entry.run())\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 130 and p.stdout == "partial output" and "TEARDOWN" not in p.stderr, p
    failed = code.replace("on_end(130)", "on_end(2)").replace("return 130", "return 2")
    p = subprocess.run([sys.executable, "-c", failed], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == "partial output" and "TEARDOWN" not in p.stderr, p  # an error: the same
    done = code.replace("on_end(130)", "on_end(0)").replace("return 130", "return 0")
    p = subprocess.run([sys.executable, "-c", done], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0 and p.stdout == "partial output" and "TEARDOWN" not in p.stderr, p  # (fuzz run N:
    # a study run that had succeeded ended by a C++ library's terminate in the teardown)


@pytest.mark.parametrize("given, level", [(None, 50), ("info", 20)])
def test_the_process_keeps_dasks_log_to_critical_errors_unless_the_user_set_its_level(given, level):
    # a comm thread of a closing client could log a traceback after parallel_backend put the level back (the
    # worker-error test's flake): the process sets it through dask's configuration, before dask is imported; every
    # logger distributed gives its own handler (distributed.client was left at warning, and its error printed a
    # traceback beside the command's line: the flake again)
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_LOGGING")}
    if given is not None:
        env["DASK_LOGGING__DISTRIBUTED"] = given
    names = ["distributed", "distributed.comm.tcp", "distributed.client", "tornado.application"]
    code = (
        "import gamemarket.__main__ as m; m.quiet_dask_log(); import logging, distributed; "
        f"print(*[logging.getLogger(n).getEffectiveLevel() for n in {names!r}])"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    got = [int(v) for v in out.stdout.split()]
    if given is None:
        assert got == [50, 50, 50, 50], out.stderr[-2000:]
    else:  # the user's level for distributed, dask's defaults for the others
        assert got[:2] == [level, level], out.stderr[-2000:]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device every write to fails: Linux)")
@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize(
    "argv", [["simulate", "--synthetic-jobs", "20"], ["--help"], ["--version"], ["game", "--help"]]
)
def test_output_that_cannot_be_written_is_an_error_naming_standard_output(argv, unbuffered):
    # `> /dev/full` (a full disk under the output's file): the error named no file, and --help exited 0 with
    # nothing written (argparse swallows its write errors)
    import os
    import subprocess

    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered, "PYTHONPATH": str(ROOT)}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "gamemarket", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert proc.returncode == 2
    assert proc.stderr == "gamemarket: error: standard output: No space left on device\n"


def test_a_ctrl_c_that_surfaces_as_another_error_is_still_a_ctrl_c(monkeypatch, capsys):
    """The fuzzer's signals family: SIGINT 1.5 s into `study run` came while matplotlib's C extension initialised,
    which turned the KeyboardInterrupt into "ImportError: initialization failed": a traceback, exit 1."""
    import signal

    def interrupted_import(args):
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise ImportError("initialization failed") from None
        return 0

    monkeypatch.setattr(cli, "_run", interrupted_import)
    # Python's own handler, as the entry point leaves it for the command: a suite started in the background by a
    # shell (`pytest ... &`) inherits SIGINT ignored, and the signal then went nowhere (the fresh clone's suite)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert cli.main(["simulate", "--synthetic-jobs", "20"]) == 130
        assert capsys.readouterr().err == "gamemarket: interrupted; no file was half-written\n"
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler put back
    finally:
        signal.signal(signal.SIGINT, inherited)

    def plain_error(args):  # without a Ctrl-C, an error is what it is
        raise ImportError("initialization failed")

    monkeypatch.setattr(cli, "_run", plain_error)
    with pytest.raises(ImportError):
        cli.main(["simulate", "--synthetic-jobs", "20"])


def test_the_command_leaves_the_entry_points_end_handler_in_place(monkeypatch, capsys):
    """The fuzzer: the handler that records Ctrl-C was put back over the entry point's SIG_IGN of on_end, and a
    Ctrl-C while the process ended killed it by the signal (exit -2)."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    try:
        assert cli.main(["simulate", "--synthetic-jobs", "20"], on_end=lambda code: signal.signal(
            signal.SIGINT, signal.SIG_IGN
        )) == 0  # fmt: skip
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_registry_asked_for_a_name_that_is_no_text_says_so():
    from gamemarket.errors import InputError
    from gamemarket.registry import Registry

    r = Registry("market")
    r.register("scheduling", 1)
    with pytest.raises(InputError, match=r"unknown market \[nan\]; expected one of \['scheduling'\]"):
        r[[float("nan")]]


def test_a_process_that_ends_at_once_leaves_no_staging_folder(tmp_path):
    """``end_now`` skips the interpreter's teardown, where a report folder's finalizer removes a staging folder
    never published: it removes them itself."""
    from gamemarket.io.files import OutputFolder, drop_stages

    folder = OutputFolder(tmp_path / "rep", owner="../s.toml", staged=True)
    folder.file("index.md").write_text("half", encoding="utf-8")
    stages = [p for p in (tmp_path / "rep").iterdir() if p.name.startswith(".stage.gm-")]
    assert len(stages) == 1 and stages[0].is_dir()
    drop_stages()
    assert not stages[0].exists()
    folder.abandon()


@pytest.mark.parametrize("given", [None, "1"])
def test_the_command_turns_numpys_huge_page_advice_off_unless_the_user_set_it(given):
    # where memory is fragmented each large array stalls in the kernel's compaction (a 5,000 x 5,000 game's solve
    # took twice as long): the command's process advises no huge pages; the user's setting is kept
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if given is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = given
    code = (
        "import gamemarket.__main__ as m; m.no_hugepage_advice(); import numpy as np, os; "
        "print(os.environ['NUMPY_MADVISE_HUGEPAGE'], np._core.multiarray._set_madvise_hugepage(False))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == (["0", "False"] if given is None else ["1", "True"]), out.stderr[-2000:]
