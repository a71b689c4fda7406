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
