"""Schedulers, registered by name (market model section 4).

A scheduler is a priority key (smaller sorts first; ties broken by submit time, then id) and
whether it preempts: a preemptive scheduler runs the ``n`` present jobs with the smallest keys
after every step (HB); a non-preemptive one lets running jobs finish and fills free nodes with
waiting jobs in key order. Adding a scheduler of that form is one ``register_scheduler`` call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from gamemarket.registry import Registry


@dataclass(frozen=True)
class Scheduler:
    """A scheduler of the market: its name, whether it preempts, its priority key per job (smallest
    first; ties by submit time, then id) and a description (Shudler et al. 2010).
    """

    name: str
    preemptive: bool
    key: Callable  #: primary key per job (float64); ties by (submit, id)
    description: str


SCHEDULERS: Registry[Scheduler] = Registry("scheduler")


def register_scheduler(
    name: str, preemptive: bool, key: Callable, description: str, *, replace: bool = False
) -> Scheduler:
    """Register a scheduler under ``name`` (studies and the CLI then accept it).

    Parameters
    ----------
    name : str
    preemptive : bool
        Whether a waiting job with a better key preempts a running one.
    key : callable
        ``key(table) -> float64 array``: each job's priority (smallest first). ``table`` is a job table:
        a DataFrame, or (``simulate --jobs``) a mapping of column arrays, so read it as
        ``np.asarray(table[name], dtype=...)``.
    description : str
    replace : bool, keyword-only
        Replace a scheduler already registered under ``name`` (else that is an error).

    Returns
    -------
    Scheduler
    """
    return SCHEDULERS.register(name, Scheduler(name, preemptive, key, description), replace=replace)


def _col(t, name: str) -> np.ndarray:
    return np.asarray(t[name], dtype=np.float64)


def _neg_bid(t):
    return -_col(t, "reported_bid")


def _neg_bid_per_runtime(t):
    return -_col(t, "reported_bid") / _col(t, "runtime")


def _neg_bid_per_estimate(t):
    return -_col(t, "reported_bid") / _col(t, "estimate")


def _submit(t):
    return _col(t, "submit")


register_scheduler("hb", True, _neg_bid, "Highest-Bid, preemptive: runs the n highest reported bids")
register_scheduler("nphb", False, _neg_bid, "non-preemptive Highest-Bid")
register_scheduler("wspt", False, _neg_bid_per_runtime, "weighted shortest processing time: bid / true run time")
register_scheduler("wspt-est", False, _neg_bid_per_estimate, "WSPT with the user's run-time estimate")
register_scheduler("fcfs", False, _submit, "first come, first served (key: submit time)")


def get_scheduler(name: str) -> Scheduler:
    """The scheduler registered as ``name``; an unknown name is an error listing the known ones."""
    return SCHEDULERS.get(name)
