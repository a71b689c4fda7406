"""Worker processes that never outlive the run that started them.

joblib's loky workers finish the task in hand, and linger idle for minutes, after their parent
is killed (SIGKILL leaves it no chance to stop them); a worker that stores its own results would
go on writing them. Each task therefore starts, once per worker process, a daemon thread that
watches the parent and ends the worker as soon as the parent is gone, and a worker looks at the
parent once more before each write (:func:`parent_gone`), so a killed run stores nothing more.

A pool is started only where it pays (:func:`worth_a_pool`): a small study finishes sooner in its own
process than fresh workers take to start.
"""

from __future__ import annotations

import os
import threading
import time

from gamemarket.errors import InputError

#: seconds between two looks at the parent
POLL_S = 0.5

_watched: int | None = None


def exit_with_parent(parent_pid: int | None) -> None:
    """In a worker: end this process (exit code 1) within ``POLL_S`` of ``parent_pid`` exiting.

    A no-op in the parent itself (a sequential run) and when already watching.
    """
    global _watched
    if parent_pid is None or parent_pid == os.getpid() or _watched == parent_pid:
        return
    _watched = parent_pid

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:  # re-parented: the run that started us is gone
                os._exit(1)
            time.sleep(POLL_S)

    threading.Thread(target=watch, name="gamemarket-parent-watch", daemon=True).start()


def parent_gone(parent_pid: int | None) -> bool:
    """In a worker, just before it stores a result: whether the run that started it is gone (the worker is
    re-parented). The watch thread of :func:`exit_with_parent` looks only every ``POLL_S``; this look,
    taken at each write, keeps a killed run's workers from storing what they finished in between."""
    return parent_pid is not None and parent_pid != os.getpid() and os.getppid() != parent_pid


#: the environment variable that sets what starting a pool of local workers costs, in seconds (0: always start
#: one when more than one worker is asked for)
POOL_START_ENV = "GAMEMARKET_POOL_START_S"
#: seconds a fresh pool of local workers takes before its first task runs: each worker starts Python, imports
#: gamemarket (numpy, pandas, pyarrow, numba: 1.3 s alone) and loads the engine's compiled functions from numba's
#: cache (0.3 s). Measured on the 2-core development machine (``benchmarks/bench_study.py --pool-start``): 3.6 to
#: 3.9 s with 2 workers at a load of 0.3 to 1.6. Set a little below, so that a study a pool speeds up on a quiet
#: machine still gets one: with 2 workers, a pool starts where the remaining runs take more than 6 s in process.
POOL_START_S = 3.0
#: the least one run of a study takes per job of its workload, in seconds: the 32-run LPC study at 105 nodes (a
#: quiet trace: short queues) took 0.35e-6 s per job and run in process (its summed task time, 2.42 s, over 32
#: runs of 214,322 jobs) on an idle machine; about half that, for a faster machine. A study whose runs pay for a
#: pool even at this rate starts one without timing a group first.
LEAST_SECONDS_PER_JOB_RUN = 0.2e-6


def pool_start_seconds() -> float:
    """What starting a pool of local workers costs: ``GAMEMARKET_POOL_START_S`` where set, else ``POOL_START_S``.

    Returns
    -------
    float
        Seconds; 0 means a pool is always worth starting (the runs never stay in process).

    Raises
    ------
    InputError
        ``GAMEMARKET_POOL_START_S`` is set but is not a number of seconds >= 0.
    """
    text = os.environ.get(POOL_START_ENV, "").strip()
    if not text:
        return POOL_START_S
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (0 <= value < float("inf")):
        raise InputError(f"environment variable {POOL_START_ENV}={text!r}: expected a number of seconds >= 0")
    return value


def worth_a_pool(seconds_each: float, remaining: int, workers: int, start_s: float) -> bool:
    """Whether ``remaining`` jobs of about ``seconds_each`` finish sooner on a fresh pool of ``workers`` processes
    than one after another in this one.

    In process they take ``remaining * seconds_each``; on the pool ``start_s + remaining * seconds_each / k``,
    with ``k = min(workers, remaining)`` (the parent waits meanwhile). The pool wins when the time it saves,
    ``remaining * seconds_each * (1 - 1/k)``, exceeds what it costs to start.

    Parameters
    ----------
    seconds_each : float
        One job's measured time (the study's first group of runs, run in process).
    remaining : int
        Jobs still to run.
    workers : int
        Worker processes asked for.
    start_s : float
        What starting the pool costs (:func:`pool_start_seconds`).
    """
    k = min(workers, remaining)
    if k < 2:
        return False
    return remaining * seconds_each * (1 - 1 / k) > start_s
