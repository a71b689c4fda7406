"""Limits a computation checks before it starts: the memory it may take, the times a job table may hold.

``check_fits(nbytes, what)`` refuses, with an :class:`~gamemarket.errors.InputError` that gives the
estimate and the limit, a request that cannot fit in memory, before anything is allocated (a
generator asked for 10^13 jobs would otherwise end in ``MemoryError`` after minutes, or in swap).
The limit is the machine's physical memory, or the number of bytes in the environment variable
``GAMEMARKET_MEMORY_LIMIT`` (e.g. ``8e9``), for a machine shared with others or a container whose
limit the kernel does not report.
"""

from __future__ import annotations

import os

import numpy as np

from gamemarket.errors import InputError

#: the environment variable that sets the memory limit, in bytes (default: the physical memory)
MEMORY_LIMIT_ENV = "GAMEMARKET_MEMORY_LIMIT"
#: the largest time (seconds) a generated job table holds: beyond 2^53 a double no longer holds every
#: integer, and a submit time plus every run time must stay within int64 in the engine
MAX_TIME = 2.0**53
#: the largest node count a command, a study file or a trace's header may give (``--nodes``, ``[workload] nodes``,
#: ``MaxProcs``): a cluster far beyond any machine's, and the command line's bound
MAX_NODES = 10**7
#: the fewest bootstrap resamples behind a 95% interval or a share of resamples (``--resamples``, ``[game]
#: resamples``, ``bootstrap``): with fewer, the interval's ends are the extremes of a handful of draws (one
#: resample gave "[0, 0]" and "100.0%"); and the most, each one a game's regrets computed again
MIN_RESAMPLES = 100
MAX_RESAMPLES = 10**6


#: the most worker processes one command starts (each a Python process holding the workload: a billion asked
#: for were handed to joblib, which starts as many as there are tasks)
MAX_WORKERS = 1024


def check_workers(n_jobs, what: str = "n_jobs") -> int:
    """``n_jobs`` (worker processes) checked: a whole number >= 1, or -1 for all cores, as ``--n-jobs`` takes it;
    joblib's other conventions (0, -2 for all but one) and other types are an :class:`InputError` naming the
    value (joblib's own errors, after a study's folders were claimed, were a ValueError or a TypeError)."""
    whole = isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, (bool, np.bool_))  # np.int64(1) too
    if not whole or not (1 <= n_jobs <= MAX_WORKERS or n_jobs == -1):
        raise InputError(
            f"{what} must be a number of worker processes from 1 to {MAX_WORKERS}, or -1 for all cores; got "
            f"{n_jobs!r} ({type(n_jobs).__name__})"
        )
    return int(n_jobs)


def physical_memory() -> int | None:
    """The machine's physical memory in bytes, or None where the system does not say."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # no sysconf (Windows) or no such name
        return None
    return int(pages) * int(size) if pages > 0 and size > 0 else None


class MemoryLimit(int):
    """A number of bytes :func:`memory_limit` gives, saying where it came from (``source``) for the messages of
    code that is handed it as a plain ``limit=`` (``gamemarket.pricing.load``: its own callers' limits are theirs)."""

    source = f"{MEMORY_LIMIT_ENV}, or this machine's memory"

    def __reduce__(self):
        return (int, (int(self),))


def memory_limit() -> int | None:
    """The bytes one computation may take: ``GAMEMARKET_MEMORY_LIMIT`` where set, else the physical memory.

    Returns
    -------
    int or None
        None where neither is known (then nothing is refused).

    Raises
    ------
    InputError
        ``GAMEMARKET_MEMORY_LIMIT`` is set but is not a positive number of bytes.
    """
    text = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if not text:
        found = physical_memory()
        return None if found is None else MemoryLimit(found)
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value >= 1 and value < float("inf")):
        raise InputError(f"environment variable {MEMORY_LIMIT_ENV}={text!r}: expected a number of bytes >= 1")
    return MemoryLimit(value)


def _size(nbytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"


def check_fits(nbytes: float, what: str, *, limit: int | None = None) -> None:
    """Refuse a computation whose memory estimate exceeds the limit, before it allocates.

    Parameters
    ----------
    nbytes : float
        The estimate: e.g. jobs times the bytes per job at the computation's peak.
    what : str
        What needs it, for the message (e.g. ``"synthetic workload of 10,000,000,000,000 jobs"``).
    limit : int, keyword-only
        Bytes allowed (default: :func:`memory_limit`).

    Raises
    ------
    InputError
        The estimate is above the limit (the message gives both, and how to set the limit).
    """
    limit = memory_limit() if limit is None else limit
    if limit is None or nbytes <= limit:
        return
    source = f"{MEMORY_LIMIT_ENV}" if os.environ.get(MEMORY_LIMIT_ENV, "").strip() else "this machine's memory"
    raise InputError(
        f"{what} needs about {_size(nbytes)} of memory; the limit is {_size(limit)} ({source}); expected a "
        f"smaller request (or a larger {MEMORY_LIMIT_ENV}, in bytes, where more memory is there)"
    )
