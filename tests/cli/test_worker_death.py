"""A worker process killed under a command (the kernel's OOM killer sends SIGKILL): exit 2, one line naming the
signal and how to resume, no traceback."""

import os
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
