"""Worker processes that never outlive the run that started them.

joblib's loky workers finish the task in hand, and linger idle for minutes, after their parent
is killed (SIGKILL leaves it no chance to stop them); a worker that stores its own results would
go on writing them. Each task therefore starts, once per worker process, a daemon thread that
watches the parent and ends the worker as soon as the parent is gone, and a worker looks at the
parent once more before each write (:func:`parent_gone`), so a killed run stores nothing more.

A pool is started only where it pays (:func:`worth_a_pool`): a small study finishes sooner in its own
process than fresh workers take to start. :func:`fan_out` is that decision for every fan-out of local work (a
bimatrix study's groups, a population study's chunks, an exploration's probe runs, a report's figures), so each
runs where the same rule sends it.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from joblib import Parallel, delayed, effective_n_jobs

from gamemarket import plugins
from gamemarket.errors import InputError, WorkerLost, worker_died

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


#: seconds a pool of local workers stays up after its last task: joblib keeps loky's idle workers for 300 s; a
#: margin below that, for the time a fan-out's last task took to come back
WARM_S = 240.0
#: (when this process's last fan-out to local workers finished, how many workers it asked for): a pool that is
#: still up costs nothing to start again (joblib reuses it)
_warm: tuple[float, int] = (-math.inf, 0)


def pool_is_warm(workers: int) -> bool:
    """Whether this process used a pool of at least ``workers`` local workers within ``WARM_S``: joblib still
    holds it, so a fan-out to it starts nothing."""
    when, size = _warm
    return size >= workers and time.monotonic() - when < WARM_S


class _Numbered:
    """A call's function that returns the call's number beside its result: a pool's results as they finish say
    which calls are done, so that a dead worker's unfinished calls can be named (:func:`fan_out`)."""

    def __init__(self, function: Callable, number: int):
        self.function, self.number = function, number

    def __call__(self, *args):
        return self.number, self.function(*args)


def _pooled(parallel, calls: list, first: int, names: list, done: set) -> Iterator:
    """The results of ``calls`` (numbered from ``first``) from the joblib ``parallel``; a worker's death (killed by
    a signal, the out-of-memory killer) raises :class:`~gamemarket.errors.WorkerLost` naming the calls not done."""
    try:
        for number, result in parallel(
            delayed(_Numbered(plugins.WithPlugins(f), first + i))(*args) for i, (f, args) in enumerate(calls)
        ):
            done.add(number)
            yield result
    except Exception as exc:
        if not worker_died(exc):
            raise
        raise WorkerLost([name for i, name in enumerate(names) if i not in done]) from exc


def fan_out(
    calls: Iterable[tuple[Callable, tuple]],
    n_jobs: int,
    *,
    least_each: float = 0.0,
    ordered: bool = False,
    remote: bool = False,
    used: list | None = None,
    names: Iterable[str] | None = None,
) -> Iterator:
    """Each ``function(*args)`` of ``calls``, computed in a pool of local workers where one pays, else here.

    With more than one worker asked for, a pool starts at once where ``least_each`` (the least one call can
    take: the caller's estimate from its job counts; 0 where it has none) already pays for it
    (:func:`worth_a_pool`, at :func:`pool_start_seconds`, or 0 where a pool is still up: :func:`pool_is_warm`);
    else the calls run here, each timed, and the rest go to a pool as soon as it finishes them sooner at the last
    call's time each (half the first's, which also loads numba's cache). Where a call runs changes none of its
    numbers (each is a function of its arguments), so pool, here and mixed give the same results bit for bit.

    Parameters
    ----------
    calls : iterable of (callable, tuple)
        Module-level functions (joblib pickles them by reference) and their arguments; on workers each carries
        this process's plugins (:class:`gamemarket.plugins.WithPlugins`).
    n_jobs : int
        Worker processes asked for (joblib's convention: -1 all cores).
    least_each : float
        Seconds: a lower bound of one call's time (``LEAST_SECONDS_PER_JOB_RUN`` x its jobs and runs).
    ordered : bool
        Results in the order of ``calls`` (else as they finish).
    remote : bool
        Inside a dask cluster's backend (``runner.parallel_backend``): every call goes to its workers.
    used : list, optional
        A one-item list, set to the workers that ran the calls: 1 (this process), their number, or ``"dask"``.
    names : iterable of str, optional
        What each call computes, in words (``"hb-first, seed 3, 2 mixtures"``; default: its function's name and
        number). Where a worker dies (a signal, the out-of-memory killer), :class:`~gamemarket.errors.WorkerLost`
        is raised from the pool's error naming the calls whose results were not yet yielded.
    """
    global _warm
    calls = list(calls)
    used = [1] if used is None else used
    used[0] = 1
    if not calls:  # nothing to run: no pool (joblib would start one for nothing)
        return
    names = (
        list(names)
        if names is not None
        else [f"{getattr(f, '__name__', 'call')} #{i + 1}" for i, (f, _) in enumerate(calls)]
    )
    if len(names) != len(calls):
        raise ValueError(f"fan_out: {len(names)} names for {len(calls)} calls")
    done: set[int] = set()
    if remote:
        used[0] = "dask"
        pool = Parallel(n_jobs=-1, return_as="generator" if ordered else "generator_unordered")
        yield from _pooled(pool, calls, 0, names, done)
        return
    k = effective_n_jobs(n_jobs)
    start_s = 0.0 if k < 2 or pool_is_warm(k) else pool_start_seconds()
    if k < 2 or (start_s > 0 and not worth_a_pool(least_each, len(calls), k, start_s)):
        timed = 0
        while calls:
            t0 = time.perf_counter()
            f, args = calls[0]
            yield f(*args)
            done.add(timed)
            took, calls, timed = time.perf_counter() - t0, calls[1:], timed + 1
            # the first call run here also loads numba's cache (0.3 s), so its time overstates the others': half of
            # it is trusted, then each call's own (work whose calls grow still gets its pool)
            if k > 1 and worth_a_pool(took / 2 if timed == 1 else took, len(calls), k, start_s):
                break
        if not calls:
            return
    used[0] = min(k, len(calls))
    first = len(names) - len(calls)  # the calls run here before the pool paid
    try:
        pool = Parallel(n_jobs=n_jobs, return_as="generator" if ordered else "generator_unordered")
        yield from _pooled(pool, calls, first, names, done)
    finally:
        _warm = (time.monotonic(), k)


def most_workers(a: int | str, b: int | str) -> int | str:
    """The larger of two counts of workers used (:func:`fan_out`'s ``used``); ``"dask"`` (a cluster) above any."""
    if "dask" in (a, b):
        return "dask"
    return max(int(a), int(b))
