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
import re
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator

import numpy as np
from joblib import Parallel, cpu_count, delayed, effective_n_jobs

from gamemarket import plugins
from gamemarket.errors import InputError, WorkerLost, raised, worker_died

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


#: seconds a cluster may have no worker, its runs unfinished, before the command ends saying so
NO_WORKER_S = 60.0
#: seconds between two looks at the cluster while its runs are unfinished
CLUSTER_LOOK_S = 2.0


def _on_cluster(calls: list, names: list, done: set, ordered: bool) -> Iterator:
    """The results of ``calls`` computed on the dask cluster of this process's client (``runner.parallel_backend``),
    as they finish (or in order), each call a task of its own; the arguments calls share (a workload's arrays) are
    sent to the cluster once.

    dask's futures, not joblib's dask backend: that hung for good where the scheduler gave a run up after its
    workers died running it (hunt 17a-38: exit 124 at the shell's timeout, nothing said), ended in a traceback where
    the scheduler went away (17a-36), and on a cluster of one single-threaded worker ran every call in this
    process (17a-35). Here a run given up raises :class:`~gamemarket.errors.WorkerLost` naming the runs unfinished
    (from dask's ``KilledWorker``); a lost scheduler, or a cluster left with no worker for :data:`NO_WORKER_S`, is an
    :class:`~gamemarket.errors.InputError` saying so; what finished is the caller's to keep either way."""
    from distributed import get_client, wait  # deferred: dask

    client = get_client()
    shared: dict[int, object] = {}  # id of an argument two calls share -> its future on the cluster
    counts: dict[int, int] = {}
    for _, args in calls:
        for a in args:
            counts[id(a)] = counts.get(id(a), 0) + 1
    run = uuid.uuid4().hex[:12]
    futures = []
    try:
        for i, (f, args) in enumerate(calls):
            slots = [k for k, a in enumerate(args) if counts[id(a)] > 1 and _plain_arrays(a) > SCATTER_BYTES]
            for k in slots:
                if id(args[k]) not in shared:  # on every worker: a worker that dies takes no run's data with it
                    shared[id(args[k])] = client.scatter([args[k]], hash=False, broadcast=True)[0]
            kept = tuple(None if k in slots else a for k, a in enumerate(args))
            task = _Bound(_Numbered(plugins.WithPlugins(f), i), kept, tuple(slots))
            sent = [shared[id(args[k])] for k in slots]
            futures.append(client.submit(task, *sent, key=f"gamemarket-{run}-{i}", pure=False, retries=0))
        yield from _cluster_results(client, futures, done, ordered, wait)
    except Exception as exc:
        # the scheduler gone: dask cancels the futures (CancelledError) or its comm closes (an OSError); a task's own
        # error of those kinds, raised on a worker, is the task's while the client is still connected
        cancelled = "CancelledError" in type(exc).__name__
        if isinstance(exc, OSError) or cancelled:
            if client.status != "running" or "scheduler-connection-lost" in str(exc) or _closed(exc):
                raise _scheduler_lost(client, exc) from None
        if not worker_died(exc) and not cancelled:  # (cancelled, connected: the workers holding their data died)
            raise
        raise WorkerLost([name for i, name in enumerate(names) if i not in done]) from exc
    finally:
        left = [f for f in futures if not f.done()]
        if left:
            try:
                client.cancel(left)
            except Exception:  # noqa: BLE001 - a client whose scheduler has gone: nothing left to cancel
                pass


class _Bound:
    """A cluster task: the call's function and its arguments in one object, so that a worker unpickles the function
    (:class:`~gamemarket.plugins.WithPlugins`, which sets the plugins up) before the arguments, which may be
    instances of a plugin's classes (a family's strategies: dask unpickled them apart, first, and a plugin that
    does not import there was "an error during deserialization of the task graph"); the arguments sent ahead
    (``slots``, numpy data) come as the task's own."""

    def __init__(self, function: Callable, args: tuple, slots: tuple):
        self.function, self.args, self.slots = function, args, slots

    def __call__(self, *sent):
        args = list(self.args)
        for k, value in zip(self.slots, sent):
            args[k] = value
        return self.function(*args)


#: bytes of numpy data from which an argument calls share is sent to the cluster once (smaller: in each task)
SCATTER_BYTES = 100_000


def _plain_arrays(value) -> int:
    """The bytes of ``value`` where it is numpy arrays of numbers (alone, or in a dict, list or tuple of them and of
    plain values), else -1: what is sent to the workers ahead of the tasks is unpickled there before a task has
    loaded the plugins, so an object of a plugin's module cannot be (its module not found on the worker)."""
    if isinstance(value, np.ndarray):
        return value.nbytes if value.dtype.kind in "biufcmM" else -1
    if value is None or isinstance(value, (bool, int, float, str)):
        return 0
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        sizes = [_plain_arrays(v) for v in value]
        return -1 if any(n < 0 for n in sizes) else sum(sizes)
    return -1


def _closed(exc: BaseException) -> bool:
    """Whether ``exc`` is dask's own word that a connection closed (``CommClosedError``, in its class's ancestry)."""
    return any(c.__name__ == "CommClosedError" for c in type(exc).__mro__)


def _cluster_results(client, futures: list, done: set, ordered: bool, wait) -> Iterator:
    """The futures' results (:func:`_on_cluster`): as they finish, or in order; the cluster looked at every
    :data:`CLUSTER_LOOK_S` while none finishes (a cluster with no worker for :data:`NO_WORKER_S` ends the wait)."""
    pending, ready, alone_since, following = list(futures), {}, None, 0
    while pending or ready:
        if ready and not ordered:
            number = min(ready)
        elif following in ready:
            number, following = following, following + 1
        else:
            try:
                finished = wait(pending, timeout=CLUSTER_LOOK_S, return_when="FIRST_COMPLETED").done
            except TimeoutError:  # (dask's wait raises where none finished in time)
                finished = set()
            alone_since = _check_workers(client, alone_since, len(pending)) if not finished else None
            finished = set(finished)
            pending = [f for f in pending if f not in finished]
            for fut in finished:
                number, result = fut.result()  # a task's error is raised here, as it was raised on the worker
                ready[number] = result
            continue
        done.add(number)
        yield ready.pop(number)


def _check_workers(client, alone_since: float | None, unfinished: int) -> float | None:
    """When the cluster was first seen with no worker (None: it has some), or an :class:`InputError` once that is
    :data:`NO_WORKER_S` ago."""
    if client.scheduler_info().get("workers"):
        return None
    now = time.monotonic()
    if alone_since is None:
        return now
    if now - alone_since >= NO_WORKER_S:
        raise InputError(
            f"the dask cluster at {client.scheduler.address} has had no worker for {NO_WORKER_S:.0f} s, with "
            f"{unfinished} run(s) unfinished; the runs that finished are kept: start workers (dask worker "
            f"{client.scheduler.address}) and run the same command again"
        )
    return alone_since


def _scheduler_lost(client, exc: BaseException) -> InputError:
    """The error for a dask scheduler that went away while the runs were computed."""
    try:
        where = f" at {client.scheduler.address}"
    except Exception:  # noqa: BLE001 - a client past its close
        where = ""
    said = raised(exc)
    reason = re.search(r"reason: ([\w-]+)", said)
    if reason:  # (dask's message lists every cancelled run's key: 80 of them, 2.5 kB, in one line; hunt 19a-W4)
        said = f"{type(exc).__name__}: {reason.group(1)}"
    elif len(said) > 200:
        said = f"{said[:200]} ..."
    return InputError(
        f"the connection to the dask scheduler{where} was lost while the runs were computed ({said}); the "
        "runs that finished are kept: run the same command again once the scheduler is back"
    )


_SAID_CAPPED: set = set()


def _within_the_cores(k: int) -> int:
    """``k`` workers, at most this machine's usable cores (joblib's count: the process's CPU affinity and its
    container's quota), said once per process where more were asked: each worker imports numpy, numba and pandas, and
    40 of them on 2 cores ran 5 times slower than one (hunt 20c-W4). The numbers are the same for any count."""
    cores = max(1, cpu_count())
    if k <= cores:
        return k
    if k not in _SAID_CAPPED:
        _SAID_CAPPED.add(k)
        warnings.warn(f"{k} worker processes asked for on {cores} usable cores: {cores} are started", stacklevel=4)
    return cores


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
        yield from _on_cluster(calls, names, done, ordered)
        return
    k = n_jobs = _within_the_cores(effective_n_jobs(n_jobs))
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
