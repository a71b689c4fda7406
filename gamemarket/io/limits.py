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
import resource

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


def _vm_size() -> int:
    """The bytes of address space this process maps now (``VmSize`` of ``/proc/self/status``; 0 where unknown)."""
    try:
        with open("/proc/self/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _cgroup_free() -> int | None:
    """The bytes this process's control group may still take (cgroup v2 ``memory.max`` less ``memory.current``;
    v1 ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``), or None where it sets no limit or none is read."""
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            with open(limit_file, encoding="utf-8") as f:
                text = f.read().strip()
            if text == "max":
                return None
            limit = int(text)
            with open(usage_file, encoding="utf-8") as f:
                used = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if limit >= 1 << 60:  # v1's "no limit" is a huge number
            return None
        return max(limit - used, 0)
    return None


def memory_bounds() -> list[tuple[int, str]]:
    """Every bound on the memory one computation may take that the system states, each with where it comes from:
    the machine's memory, this process's address-space limit (``ulimit -v``, less what it maps already) and its
    control group's memory left (hunt 16c: under ``ulimit -v 4000000`` a simulation the machine's 25 GB allowed
    was a MemoryError traceback)."""
    found = []
    phys = physical_memory()
    if phys is not None:
        found.append((phys, "this machine's memory"))
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            found.append(
                (max(soft - _vm_size(), 0), "this process's address-space limit, ulimit -v, less what it maps")
            )
    except (OSError, ValueError):
        pass
    free = _cgroup_free()
    if free is not None:
        found.append((free, "the memory its control group may still take"))
    return found


def memory_limit() -> int | None:
    """The bytes one computation may take: ``GAMEMARKET_MEMORY_LIMIT`` where set, else the least of
    :func:`memory_bounds` (the physical memory, ``ulimit -v``, the control group's).

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
        bounds = memory_bounds()
        if not bounds:
            return None
        value, said = min(bounds)
        limit = MemoryLimit(value)
        limit.said = limit.source = said
        return limit
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value >= 1 and value < float("inf")):
        raise InputError(f"environment variable {MEMORY_LIMIT_ENV}={text!r}: expected a number of bytes >= 1")
    limit = MemoryLimit(value)
    limit.said = limit.source = MEMORY_LIMIT_ENV  # (the variable set: not "or this machine's memory", 39b-W1)
    return limit


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
    source = (
        f"{MEMORY_LIMIT_ENV}"
        if os.environ.get(MEMORY_LIMIT_ENV, "").strip()
        else getattr(limit, "said", "this machine's memory")
    )
    raise InputError(
        f"{what} needs about {_size(nbytes)} of memory; the limit is {_size(limit)} ({source}); expected a "
        f"smaller request (or a larger {MEMORY_LIMIT_ENV}, in bytes, where more memory is there)"
    )
