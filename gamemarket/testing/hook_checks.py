"""Conformance checks for an event-hook scheduler (``gamemarket.market.hooks``): runs that keep the market's
invariants, on the seeded cases the other checks use."""

from __future__ import annotations

import numpy as np

from gamemarket.errors import InputError, shown_value
from gamemarket.market.hooks import EVENT_SCHEDULERS, EventScheduler, run_hooks
from gamemarket.testing.cases import Case, one_job_cases, random_cases, tie_cases
from gamemarket.testing.report import FAILED, PASSED, ConformanceReport, check_names, check_options


def _invariants(case: Case, sched: EventScheduler, payment: str) -> str | None:
    """One run of ``case``: None where every job starts at or after its submit time, ends at least its run time
    later, pays a finite amount >= 0, and two runs give the same numbers; else what broke, naming the job."""
    a = run_hooks(case.table, case.nodes, sched, payment, case.reserve)
    b = run_hooks(case.table, case.nodes, sched, payment, case.reserve)
    where = f"{case.describe()}, {sched.name} x {payment}"
    jobs = case.table.set_index("id").loc[a["id"]]
    bad = (a["start"].to_numpy() < jobs["submit"].to_numpy()) | (
        a["end"].to_numpy() - a["start"].to_numpy() < jobs["runtime"].to_numpy()
    )
    bad |= ~(np.isfinite(a["payment"].to_numpy()) & (a["payment"].to_numpy() >= 0))
    if bad.any():
        return f"{where}: job id {a['id'][bad].iloc[0]}: start, end or payment breaks the market's rules"
    if not a.equals(b):
        return f"{where}: two runs differ"
    return None


def check_event_scheduler(
    scheduler: str | EventScheduler, *, payments=("first", "kth"), cases: int = 30, seed: int = 0, raise_on_failure=True
) -> ConformanceReport:
    """Check an event-hook scheduler: its runs keep the market's rules, on random, one-job and tie cases.

    Checks: ``runs`` (random cases), ``one job`` and ``ties``: every job starts at or after its submit time and
    ends at least its run time later, pays a finite amount >= 0, and two runs give the same numbers; a choice
    the loop refuses (too many jobs, absent ones, nothing run while jobs wait) fails the check with its message.

    Parameters
    ----------
    scheduler : str or EventScheduler
        A name in ``gamemarket.market.hooks.EVENT_SCHEDULERS``, or an instance.
    payments : sequence of str
        The payment schemes to run it with.
    cases : int
        The number of random cases.
    seed : int
        The cases' seed.
    raise_on_failure : bool
        Raise :class:`ConformanceError` (an ``AssertionError``) when a check fails; else return the report.

    Returns
    -------
    ConformanceReport
    """
    check_options("check_event_scheduler", seed=seed, raise_on_failure=raise_on_failure, cases=cases)
    if not isinstance(scheduler, (str, EventScheduler)):
        raise InputError(
            "check_event_scheduler: scheduler must be a registered event scheduler's name or an EventScheduler, got "
            f"{shown_value(scheduler)} ({type(scheduler).__name__})"
        )
    payments = check_names(payments, "check_event_scheduler: payments", none=False)
    sched = EVENT_SCHEDULERS.get(scheduler) if isinstance(scheduler, str) else scheduler
    report = ConformanceReport("event scheduler", sched.name)
    for check, pool in (
        ("runs", random_cases(cases, seed)),
        ("one job", one_job_cases(seed)),
        ("ties", tie_cases(seed)),
    ):
        msg = None
        for case in pool:
            for p in payments:
                try:
                    msg = _invariants(case, sched, p)
                except Exception as exc:  # a check reports what broke and where, rather than stopping the report
                    msg = f"{case.describe()}, {sched.name} x {p}: {type(exc).__name__}: {exc}"
                if msg:
                    break
            if msg:
                break
        report.add(check, FAILED if msg else PASSED, msg or f"{len(pool)} cases x {len(payments)} payment scheme(s)")
    return report.raise_if_failed() if raise_on_failure else report
