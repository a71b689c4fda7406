"""A worker process killed under a command (the kernel's OOM killer sends SIGKILL): exit 2, one line naming the
signal and how to resume, no traceback."""

import os
import re
import signal

import pytest

from gamemarket import cli


def _die(k: int) -> int:
    if k == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return k


@pytest.mark.slow
def test_a_killed_worker_is_exit_2_with_how_to_resume(capsys):
    from joblib import Parallel, delayed

    def step():
        return Parallel(n_jobs=2)(delayed(_die)(k) for k in range(4))

    assert cli._guarded(step) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a worker process died" in err and "Run the same command again" in err
    assert "SIGKILL" in err and "Traceback" not in err


def test_other_errors_are_not_taken_for_a_workers_death():
    def step():
        raise ValueError("a bug")

    with pytest.raises(ValueError):
        cli._guarded(step)


def test_a_study_whose_worker_dies_names_the_runs_that_were_unfinished(tmp_path, monkeypatch, capsys):
    """The pool's error says how the worker died; the study says which runs were unfinished (one of them the dead
    worker's), keeps what finished, and a second run resumes."""
    from gamemarket.studies import load_study, runner
    from study_helpers import SMALL, write_study

    spec = load_study(write_study(tmp_path, SMALL))
    real = runner._group_results
    Terminated = type("TerminatedWorkerError", (Exception,), {})

    def dies_after_one(groups, *args, **kw):
        results = real(groups[:1], *args, **kw)  # the first group finishes, then a worker is killed
        yield from results
        raise Terminated("A worker process managed by the executor was unexpectedly terminated (SIGKILL(-9))")

    monkeypatch.setattr(runner, "_group_results", dies_after_one)
    argv = ["study", "run", str(spec.path), "--n-jobs", "1", "--no-progress", "--no-report"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "a worker process died (SIGKILL: most often the kernel's out-of-memory killer" in err
    assert re.search(r"with \d+ run\(s\) unfinished: [\w.-]+ x [\w.:-]+ x seed \d+", err) and "resume" in err
    monkeypatch.setattr(runner, "_group_results", real)
    assert cli.main(argv) == 0  # what finished was kept; the rest runs now


def _die_at(name: str) -> str:
    if name == "dies":
        os.kill(os.getpid(), signal.SIGKILL)
    return name


@pytest.mark.slow
def test_fan_out_names_the_calls_a_killed_pool_left_unfinished():
    """A real pool whose worker is killed: the calls not yet yielded are named (the killed one among them), the ones
    yielded are not; the pool's own error is kept beneath."""
    from gamemarket.errors import WorkerLost, worker_died
    from gamemarket.workers import fan_out

    names = ["first", "dies", "third", "fourth"]
    calls = [(_die_at, (n,)) for n in names]
    got = []
    with pytest.raises(WorkerLost) as info:
        for r in fan_out(calls, 2, ordered=True, names=[f"call {n}" for n in names]):
            got.append(r)
    assert "call dies" in info.value.runs
    assert not {f"call {g}" for g in got} & set(info.value.runs)
    assert worker_died(info.value.__cause__)


def test_fan_out_refuses_names_that_do_not_match_its_calls():
    from gamemarket.workers import fan_out

    with pytest.raises(ValueError, match="1 names for 2 calls"):
        list(fan_out([(str, (1,)), (str, (2,))], 1, names=["one"]))


def test_a_population_study_whose_worker_dies_names_its_unfinished_chunks(tmp_path, monkeypatch, capsys):
    """The population study's fan-out goes through the same naming: a pool that loses a worker after its first
    chunk ends the study with exit 2 naming the chunks unfinished (mechanism, seed, mixtures); what finished is kept
    and a second run resumes."""
    from gamemarket import workers
    from gamemarket.studies import load_study
    from study_helpers import write_population_study

    spec = load_study(write_population_study(tmp_path))
    Terminated = type("TerminatedWorkerError", (Exception,), {})
    real = workers.Parallel

    class LosesAWorker:  # joblib's Parallel, run here: the first call's result, then the pool's error
        def __init__(self, *args, **kw):
            pass

        def __call__(self, tasks):
            f, args, kw = next(iter(tasks))
            yield f(*args, **kw)
            raise Terminated("A worker process managed by the executor was unexpectedly terminated (SIGKILL(-9))")

    monkeypatch.setattr(workers, "Parallel", LosesAWorker)
    argv = ["study", "run", str(spec.path), "--n-jobs", "2", "--no-progress", "--no-report"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "a worker process died (SIGKILL" in err
    assert re.search(r"with \d+ run\(s\) unfinished: [\w.-]+, seed \d+, \d+ mixture\(s\)", err), err
    monkeypatch.setattr(workers, "Parallel", real)
    assert cli.main(argv) == 0


def _crash_at(name: str) -> str:
    if name == "crashes":
        os.kill(os.getpid(), signal.SIGSEGV)  # as native code that crashes does
    return name


@pytest.mark.slow
def test_a_worker_whose_native_code_crashes_prints_one_line_not_its_stack(capfd):
    """Hunt 16a-77: a worker's SIGSEGV printed loky's 26-line fault-handler stack above the command's line, and the
    line named no likely cause. The worker's fault handler is off (PYTHONFAULTHANDLER=1 puts it back)."""
    from gamemarket.plugins.shipping import WithPlugins
    from gamemarket.workers import fan_out

    os.environ.pop("PYTHONFAULTHANDLER", None)
    calls = [(WithPlugins(_crash_at), (n,)) for n in ["a", "crashes", "b", "c"]]

    def step():
        return list(fan_out(calls, 2, least_each=1e9))

    assert cli._guarded(step) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "Fatal Python error" not in err, err
    assert "SIGSEGV: its native code crashed" in err and "PYTHONFAULTHANDLER=1" in err, err


DIER = """
import os, signal
from gamemarket.market.payments import payment_rule
os.environ.setdefault("DIER_MAIN", str(os.getpid()))
@payment_rule("dier", "dies in a worker", jit=False)
def dier(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    if os.environ["DIER_MAIN"] != str(os.getpid()):
        if os.environ.get("DIER_HOW") == "kbint":
            raise KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGKILL) if os.environ.get("DIER_HOW") == "kill" else os._exit(0)
    return reserve
"""


def _dier_study(tmp_path, how: str, *args: str):
    """`study run` of a study whose plugin payment rule does ``how`` in a worker (2 workers, the pool started)."""
    import subprocess
    import sys

    (tmp_path / "dier.py").write_text(DIER)
    (tmp_path / "s.toml").write_text(
        'name = "dies"\n[plugins]\nmodules = ["dier.py"]\n[workload]\nsource = "synthetic"\nnodes = 4\n'
        '[workload.synthetic]\njobs = 120\nload = 1.1\n[strategies]\nproviders = ["hb-first", "d"]\n'
        'consumers = ["FT", "SRG"]\n[strategies.provider.d]\nscheduler = "hb"\npayment = "dier"\n'
        "[replications]\ncount = 2\n"
    )
    env = {**os.environ, "GAMEMARKET_POOL_START_S": "0", "DIER_HOW": how}
    env.pop("DIER_MAIN", None)
    return subprocess.run(
        [sys.executable, "-m", "gamemarket", "study", "run", "s.toml", "--n-jobs", "2", "--no-report", *args],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env,
    )  # fmt: skip


@pytest.mark.slow
def test_a_keyboardinterrupt_raised_by_plugin_code_in_a_worker_is_no_ctrl_c(tmp_path):
    """Hunt 16e-31: plugin code that raised KeyboardInterrupt in a worker (no Ctrl-C pressed) ended the study with
    exit 130, "interrupted", as if the user had stopped it: exit 2 now, said to be code's, what finished kept."""
    r = _dier_study(tmp_path, "kbint")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("gamemarket: error: a KeyboardInterrupt was raised with no Ctrl-C here")
    assert r.stderr.endswith("(finished runs are kept (the same command resumes))\n")


@pytest.mark.slow
def test_a_keyboardinterrupt_raised_by_a_plugin_as_it_loads_from_the_command_line_is_no_ctrl_c(tmp_path):
    """The entry point's own handler is in place while --plugin loads (a Ctrl-C there ends the process at once):
    a KeyboardInterrupt then is the plugin's."""
    import subprocess
    import sys

    (tmp_path / "raises.py").write_text("raise KeyboardInterrupt\n")
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "simulate", "--synthetic-jobs", "20", "--plugin", "raises.py"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("gamemarket: error: a KeyboardInterrupt was raised with no Ctrl-C here")


@pytest.mark.slow
@pytest.mark.parametrize("how", ["kill", "exit"])
def test_a_command_whose_worker_died_prints_its_one_line_and_nothing_after(tmp_path, how):
    """Hunt 16e-28/29: the command's one line was followed by joblib's resource tracker ("There appear to be 1
    leaked semlock objects", and a second line) once the process ended at once, its pool's finalizers unrun."""
    r = _dier_study(tmp_path, how)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("gamemarket: error: a worker process died") and "leaked" not in r.stderr
