"""The CLI fuzz's bounded budget (issue 27, item 7): every command, fed generated study files, job
tables, games, workload models, traces, pricing problems and option values (valid, slightly wrong and
hostile), keeps its invariants (``tests/fuzz_cli.py``): exit 0 with a result that passes its own check, 2
with one line on stderr, or a stated 3; never a traceback; no file outside its declared outputs created,
changed or deleted; no temporary file left.

The examples are derandomized (``derandomize=True``, no example database): every CI run, and every
developer's run, tries the same cases, so a failure here is reproducible from the test's name alone and
the budget's time is stable. Exploring new cases is the long run's job (``python benchmarks/fuzz_cli.py
--minutes 30``), which draws fresh random cases and prints what it finds; each finding it made is fixed
with a row of ``tests/cli/test_bad_input.py``. ``FUZZ_CLI_SCALE`` multiplies the budget (``0.2`` for a
quick look, ``5`` for a longer reproducible run).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import fuzz_cli
from fuzz_cli import KINDS, Case, new_problems, report, run_case

#: examples per kind of input: together a few minutes on a 2-core machine (the study runs and reports
#: dominate; most hostile cases are refused in milliseconds)
BUDGET = {"study": 40, "job table": 40, "game": 50, "model": 40, "price problem": 25, "trace": 30, "options": 60,
          "real tool": 30, "sizes": 30, "signals": 4, "concurrent": 4, "devices": 20, "streams": 20}  # fmt: skip
SCALE = float(os.environ.get("FUZZ_CLI_SCALE", 1))


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_command_keeps_its_invariants(kind):
    @settings(
        max_examples=max(1, round(BUDGET[kind] * SCALE)),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=KINDS[kind]())
    def check(case):
        problems = new_problems(run_case(case))  # known findings, not fixed yet, are listed in fuzz_cli.KNOWN
        assert not problems, report(case, problems)

    check()


def _fake(behaviour):
    """A stand-in for ``gamemarket.cli.main`` that breaks one invariant."""

    def main(argv):
        return behaviour(argv)

    return main


def _write(name, text="x"):
    """Writes ``name``, then fails with a proper message (so that only the file checks speak)."""

    def run(argv):
        Path(name).write_text(text)
        if text == "x":
            print("gamemarket: error: refused", file=sys.stderr)
            return 2
        return 0

    return run


def _print(out, err, rc):
    def run(argv):
        print(out)
        print(err, file=sys.stderr)
        return rc

    return run


def _raise(argv):
    raise ZeroDivisionError("an internal error")


def _remove_user_file(argv):
    Path("plain.txt").unlink()
    return 0


@pytest.mark.parametrize(
    "argv,behaviour,what",
    [
        (["simulate", "--out", "o.csv"], _raise, "exception"),
        (["simulate"], _print("", "", 2), "error message"),
        (["simulate"], _print("", "gamemarket: error: a\nsecond line", 2), "error message"),
        (["simulate"], _print("", "Traceback (most recent call last):", 0), "traceback printed"),
        (["simulate"], _print("", "", 5), "exit code"),
        (["simulate", "--format", "json"], _print('{"a": NaN}', "", 0), "json output"),
        (["simulate", "--out", "o.csv"], _write("elsewhere.csv"), "stray file"),
        (["simulate", "--out", "o.csv"], _write(f".o.csv.gm-{os.getpid()}-0.tmp"), "temporary file left"),
        (["simulate", "--out", "plain.txt"], _write("plain.txt"), "user's file changed without --force"),
        (["simulate"], _remove_user_file, "file deleted outside the outputs"),
    ],
)
def test_the_runner_sees_each_broken_invariant(argv, behaviour, what, monkeypatch):
    """The checks can fail: a command that breaks one invariant is reported, and only for that one."""
    monkeypatch.setattr(fuzz_cli, "main", _fake(behaviour))
    problems = run_case(Case("self-test", {}, [argv]))
    assert [p.what for p in problems] == [what], problems


def test_the_runner_passes_a_command_that_keeps_every_invariant(monkeypatch):
    monkeypatch.setattr(fuzz_cli, "main", _fake(_write("o.csv", "id,submit\n1,0\n")))
    assert run_case(Case("self-test", {}, [["simulate", "--out", "o.csv"]])) == []


def test_a_background_writers_temporary_is_neither_left_nor_stray(monkeypatch):
    """Fuzz run P's one finding was the fuzzer's: a background `price solve` of 200,000 jobs still writing its
    temporary beside the `--out` the foreground command was refused was called a "stray file" of the foreground
    one (a live writer's temporary was kept out of the left-temporaries check, not out of the stray one). Once
    that writer has ended, its temporary left is one."""
    import subprocess

    from gamemarket.io.files import HOST

    writer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        name = f".o.csv.gm-{writer.pid}-h{HOST}_0.tmp"
        monkeypatch.setattr(fuzz_cli, "main", _fake(_write(name)))
        assert run_case(Case("self-test", {}, [["simulate", "--out", "o.csv"]])) == []
    finally:
        writer.kill()
        writer.wait()
    problems = run_case(Case("self-test", {}, [["simulate", "--out", "o.csv"]]))
    assert [p.what for p in problems] == ["temporary file left"], problems


def test_a_background_writers_temporary_that_goes_is_not_the_command_besides(tmp_path):
    """Fuzz run P's second finding, the fuzzer's too: the background writer's temporaries, there before the
    command beside it and gone after (the writer ended meanwhile), were "deleted outside the outputs" by that
    command. A temporary of another process named among the writers beside it is theirs; any other still counts."""
    from gamemarket.io.files import HOST

    dec = fuzz_cli.declared(["simulate", "--out", "o.csv"], tmp_path, tmp_path)
    theirs, other = tmp_path / f".same.npz.gm-4242-h{HOST}_0.tmp", tmp_path / f".x.csv.gm-4343-h{HOST}_0.tmp"
    before = {theirs: ("file", 1, 1), other: ("file", 1, 1)}
    problems = fuzz_cli.check_files(["simulate", "--out", "o.csv"], before, {}, set(), dec, frozenset({4242}))
    assert [(p.what, p.detail.strip()) for p in problems] == [("file deleted outside the outputs", str(other))]
    # fuzz run Q: one still being written, grown meanwhile, was "changed outside the outputs"
    after = {theirs: ("file", 2, 2), other: ("file", 2, 2)}
    problems = fuzz_cli.check_files(["simulate", "--out", "o.csv"], before, after, set(), dec, frozenset({4242}))
    assert [(p.what, p.detail.strip()) for p in problems] == [("file changed outside the outputs", str(other))]


@pytest.mark.slow
@pytest.mark.parametrize("pair", fuzz_cli.ONE_OUTPUT, ids=["simulate", "price solve"])
def test_two_writers_of_one_new_output_never_both_end_0(pair):
    """The concurrent family's regression row for hunt 16b-43/47: both ended 0, one file silently replaced."""
    first, second = pair
    case = Case("concurrent", {}, [["@background", *first], second], "one new --out, two writers")
    problems = new_problems(run_case(case))
    assert not problems, report(case, problems)


def test_the_fuzzer_says_when_two_writers_of_one_new_output_both_end_0():
    class Child:
        argv, killed, interrupted, returncode = ["simulate", "--out", "same.parquet"], False, False, 0

    ran = [(["simulate", "--seed", "2", "--out", "same.parquet"], 0)]
    assert [p.what for p in fuzz_cli._replaced_outputs(ran, [Child()])] == ["output replaced"]
    Child.returncode = 2  # the second refused: the invariant holds
    assert fuzz_cli._replaced_outputs(ran, [Child()]) == []
    assert fuzz_cli._replaced_outputs([(["simulate", "--out", "same.parquet", "--force"], 0)], [Child()]) == []


def test_the_harness_alarm_waits_for_an_import_or_numbas_compiler_and_then_stops_the_command():
    """Run AI's finding was the harness's: its FuzzTimeout raised inside numba's compiler left numba half done for
    every later command of the one process. Code of those modules runs to its end; the alarm then comes."""
    import time

    busy = "def spin(s):\n    t = time.monotonic()\n    while time.monotonic() - t < s:\n        pass\n"
    for module in ("numba.core.compiler", "importlib._bootstrap", "llvmlite.binding"):
        space = {"__name__": module, "time": time}
        exec(busy, space)  # noqa: S102 - a function whose frames are that module's, as the alarm sees them
        reached = []
        with pytest.raises(fuzz_cli.FuzzTimeout), fuzz_cli._limits(0.05, 1 << 40):
            space["spin"](0.4)  # past the limit, in the module: not stopped
            reached.append(time.monotonic())
            while time.monotonic() - reached[0] < 5:  # the command's own code: stopped at the next try
                pass
        assert len(reached) == 1, module
        assert time.monotonic() - reached[0] < 1.0, module
