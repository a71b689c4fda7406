"""Schedulers, registered by name (market model section 4).

A scheduler is a priority key (smaller sorts first; ties broken by submit time, then id) and
whether it preempts: a preemptive scheduler runs the ``n`` present jobs with the smallest keys
after every step (HB); a non-preemptive one lets running jobs finish and fills free nodes with
waiting jobs in key order. Adding a scheduler of that form is one ``register_scheduler`` call.

A scheduler declares what it does, not only how the engine computes it: its key is a
:class:`PriorityKey` (a job column, optionally per another column, smallest or largest first), which the
engine evaluates on the whole job table and the plain reference (``gamemarket.testing.reference``) on one
job at a time. A key given as a plain function (a faster one, say) runs in the engine, and declares its
meaning with ``priority=PriorityKey(...)``; without one, the reference and the conformance checks
(``gamemarket.testing.check_scheduler``) refuse the scheduler by name.

A plugin (``gamemarket.plugins``) registers a scheduler from outside the package with the same call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from gamemarket.errors import InputError, check_flag, check_text
from gamemarket.io.jobtable import SPEC
from gamemarket.registry import PLUGIN_HINT, Registry


def _col(t, name: str) -> np.ndarray:
    """A job table's column as floats; a missing one (an optional column, ``group`` or ``user``, that this table
    lacks) is an :class:`InputError` naming it (was ``KeyError: 'group'``, said as the key function's error)."""
    try:
        column = t[name]
    except KeyError:
        raise InputError(
            f"the job table has no column {name!r}, which the scheduler's key reads (an optional column: give a job "
            "table that has it, or a trace's)"
        ) from None
    return np.asarray(column, dtype=np.float64)


@dataclass(frozen=True)
class PriorityKey:
    """A job's priority key from its columns: ``column`` (negated when ``descending``), divided by ``per``
    when given. Smaller keys run first; ties go by submit time, then id.

    Calling it on a job table (a DataFrame, or a mapping of column arrays) gives every job's key as a
    float64 array, as the engine needs; :meth:`of_job` gives one job's, as the plain reference needs.

    Parameters
    ----------
    column : str
        The job table's column the key reads (``reported_bid``, ``submit``, ...).
    per : str, optional
        A column the value is divided by (``runtime``: a bid per second of run time).
    descending : bool
        Larger values first (the key is the value negated), e.g. the highest bid first.
    """

    column: str
    per: str | None = None
    descending: bool = False

    def __post_init__(self) -> None:
        # a key on a column no job table has registered and failed on its first run (a KeyError deep in the engine)
        if not isinstance(self.column, str) or self.column not in SPEC:
            raise InputError(
                f"PriorityKey column {self.column!r}: not a job table column; expected one of {list(SPEC)}"
            )
        positive = [c.name for c in SPEC.values() if c.lower == 0 and c.strict]
        if self.per is not None and self.per not in positive:
            raise InputError(
                f"PriorityKey per {self.per!r}: expected a column whose values are all > 0, one of {positive} (or "
                "None), so that every key is a number"
            )
        check_flag(self.descending, "PriorityKey descending")

    def __call__(self, table) -> np.ndarray:
        """Every job's key (float64), negated before the division as ``-rw / tau`` is."""
        v = _col(table, self.column)
        if self.descending:
            v = -v
        if self.per is not None:
            v = v / _col(table, self.per)
        return v

    def of_job(self, job) -> float:
        """One job's key from a mapping of its fields, with the same operations in the same order."""
        v = float(job[self.column])
        if self.descending:
            v = -v
        if self.per is not None:
            v = v / float(job[self.per])
        return v

    def describe(self) -> str:
        """The key as a formula: ``-reported_bid / runtime``."""
        return f"{'-' if self.descending else ''}{self.column}{f' / {self.per}' if self.per else ''}"


@dataclass(frozen=True)
class Scheduler:
    """A scheduler of the market: its name, whether it preempts, its priority key per job (smallest
    first; ties by submit time, then id), a description, and the key's declared meaning ``priority``
    (what the plain reference reproduces; ``None``: undeclared) (Shudler et al. 2010).
    """

    name: str
    preemptive: bool
    key: Callable  #: primary key per job (float64); ties by (submit, id)
    description: str
    priority: PriorityKey | None = None  #: the key's declared semantics
    source: str | None = None  #: the plugin that registered it (``gamemarket.plugins``: path and text hash)
    #: an event-hook scheduler (``gamemarket.market.hooks.register_event_scheduler``) that runs in place of the
    #: engine's priority-key loop; None for a priority-key scheduler
    hooks: object | None = None


SCHEDULERS: Registry[Scheduler] = Registry("scheduler", hint=PLUGIN_HINT)


def register_scheduler(
    name: str,
    preemptive: bool,
    key: Callable,
    description: str,
    *,
    priority: PriorityKey | None = None,
    replace: bool = False,
) -> Scheduler:
    """Register a scheduler under ``name`` (studies and the CLI then accept it).

    Parameters
    ----------
    name : str
    preemptive : bool
        Whether a waiting job with a better key preempts a running one.
    key : PriorityKey or callable
        Each job's priority (smallest first): a :class:`PriorityKey`, or ``key(table) -> float64 array``
        where ``table`` is a job table (a DataFrame, or (``simulate --jobs``) a mapping of column arrays,
        so read it as ``np.asarray(table[name], dtype=...)``).
    description : str
        One line, shown by the CLI's help.
    priority : PriorityKey, keyword-only, optional
        What a callable ``key`` computes, for the plain reference and the conformance checks (a
        :class:`PriorityKey` ``key`` declares itself).
    replace : bool, keyword-only
        Replace a scheduler already registered under ``name`` (else that is an error); a built-in one
        (``hb``, ...) is never replaced.

    Returns
    -------
    Scheduler
    """
    check_text(name, "register_scheduler: name")
    replace = check_flag(replace, f"scheduler {name!r}: replace")
    if not isinstance(description, str) or not description.strip():  # (as a family's and an event scheduler's)
        raise InputError(f"scheduler {name!r}: description: expected a non-empty text, got {description!r}")
    if not (isinstance(key, PriorityKey) or callable(key)):  # ('submit' failed at the first run)
        raise InputError(
            f"scheduler {name!r}: key must be a PriorityKey or a function of the job table, got {key!r:.80}"
        )
    if priority is not None and not isinstance(priority, PriorityKey):  # (checked only by check_scheduler before)
        raise InputError(f"scheduler {name!r}: priority must be a PriorityKey (or None), got {priority!r:.80}")
    if priority is None and isinstance(key, PriorityKey):
        priority = key
    preemptive = check_flag(preemptive, f"scheduler {name!r}: preemptive")  # ("no" was true: hunt 9)
    return SCHEDULERS.register(name, Scheduler(name, preemptive, key, description, priority), replace=replace)


_HIGHEST_BID = PriorityKey("reported_bid", descending=True)

register_scheduler("hb", True, _HIGHEST_BID, "Highest-Bid, preemptive: runs the n highest reported bids")
register_scheduler("nphb", False, _HIGHEST_BID, "non-preemptive Highest-Bid")
register_scheduler(
    "wspt",
    False,
    PriorityKey("reported_bid", per="runtime", descending=True),
    "weighted shortest processing time: bid / true run time",
)
register_scheduler(
    "wspt-est",
    False,
    PriorityKey("reported_bid", per="estimate", descending=True),
    "WSPT with the user's run-time estimate",
)
register_scheduler("fcfs", False, PriorityKey("submit"), "first come, first served (key: submit time)")
SCHEDULERS.seal()  # built in: never replaced (``Registry.seal``)


def get_scheduler(name: str) -> Scheduler:
    """The scheduler registered as ``name``; an unknown name is an error listing the known ones."""
    return SCHEDULERS.get(name)
