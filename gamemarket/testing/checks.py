"""Conformance checks for a registered scheduler, payment scheme or provider strategy: the engine against the
plain reference.

Each check runs the real engine (``gamemarket.market.simulate``) and the plain reference
(``gamemarket.testing.reference``, which follows the entry's declared semantics) on small seeded cases
(``gamemarket.testing.cases``) and compares every job's start, end, preemptions and payment exactly: the
engine accumulates payments in the reference's order, so they agree to the last bit.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from gamemarket.errors import InputError, check_text, raised, shown_value
from gamemarket.market.payments import PAYMENTS, get_payment
from gamemarket.market.schedulers import SCHEDULERS, get_scheduler
from gamemarket.market.simulate import Mechanism, simulate
from gamemarket.plugins import PROVIDERS
from gamemarket.testing.cases import Case, one_job_cases, preemption_candidates, random_cases, tie_cases
from gamemarket.testing.reference import UnknownSemanticsError, payment_rule, reference_run, scheduler_semantics
from gamemarket.testing.report import FAILED, PASSED, SKIPPED, ConformanceReport, check_names, check_options

OUTCOME = ("start", "end", "payment", "preemptions")


def _known(names: Sequence[str], semantics) -> list[str]:
    """The names whose declared semantics the reference knows."""
    out = []
    for name in names:
        try:
            semantics(name)
        except UnknownSemanticsError:
            continue
        out.append(name)
    return out


def compare_with_reference(case: Case, scheduler: str, payment: str) -> str | None:
    """The engine's run of ``case`` against the plain reference's: ``None`` where every job's start, end,
    payment and preemptions agree exactly, else a message naming the case and the first differing job.

    Parameters
    ----------
    case : Case
    scheduler, payment : str
        Registered names, both with semantics the reference knows.

    Returns
    -------
    str or None
    """
    if not isinstance(case, Case):
        raise InputError(
            f"compare_with_reference: case must be a gamemarket.testing.Case (random_cases() makes some), got "
            f"{shown_value(case)} ({type(case).__name__})"
        )
    check_text(scheduler, "compare_with_reference: scheduler")
    check_text(payment, "compare_with_reference: payment")
    return unchecked_compare(case, scheduler, payment)


def unchecked_compare(case: Case, scheduler: str, payment: str) -> str | None:
    """:func:`compare_with_reference` with its arguments unchecked (the checks' loops over cases and pairings)."""
    got = simulate(case.table, case.nodes, Mechanism(scheduler, payment, case.reserve)).jobs
    want = reference_run(case.jobs(), case.nodes, scheduler, payment, case.reserve)
    cols = [got[c].tolist() for c in ("id", *OUTCOME)]
    for i, *engine in zip(*cols):
        if tuple(engine) != tuple(want[i]):
            return (
                f"{case.describe()}, {scheduler} x {payment}: job id {i}: engine (start, end, payment, "
                f"preemptions) = {tuple(engine)}, reference = {tuple(want[i])}"
            )
    return None


def _same(a, b) -> bool:
    """Equal, with NaN equal to NaN (a summary's mean over no jobs)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def _repeat_differs(case: Case, scheduler: str, payment: str) -> str | None:
    """Two runs of the same case: the first column, job or summary field where they differ, else None."""
    a = simulate(case.table, case.nodes, Mechanism(scheduler, payment, case.reserve))
    b = simulate(case.table, case.nodes, Mechanism(scheduler, payment, case.reserve))
    where = f"{case.describe()}, {scheduler} x {payment}"
    if list(a.jobs.columns) != list(b.jobs.columns):
        return f"{where}: the outcome columns differ between two runs"
    for c in a.jobs.columns:
        x, y = a.jobs[c].to_numpy(), b.jobs[c].to_numpy()
        same = (x == y) | ((x != x) & (y != y)) if x.dtype.kind == "f" else x == y
        if not np.all(same):
            j = int(np.flatnonzero(~np.asarray(same))[0])
            return f"{where}: column {c!r} differs between two runs at job id {a.jobs['id'].iloc[j]}"
    bad = [k for k in a.summary if k not in b.summary or not _same(a.summary[k], b.summary[k])]
    return f"{where}: summary field {bad[0]!r} differs between two runs" if bad else None


def _raised(exc: Exception) -> str:
    """An error a check met, on one line: a gamemarket error's own message (it names the entry and the value), else
    ``raised TYPE: message``."""
    if isinstance(exc, InputError):
        return " ".join(str(exc).split())
    return f"raised {raised(exc)}"


def _first_failure(cases, pairs, compare) -> str | None:
    """The first difference ``compare`` finds over every case and (scheduler, payment) pair, or None; an
    error raised on a case is a difference too, named with the case."""
    for case in cases:
        for scheduler, payment in pairs:
            try:
                msg = compare(case, scheduler, payment)
            except Exception as exc:  # a check reports what broke and where, rather than stopping the report
                msg = f"{case.describe()}, {scheduler} x {payment}: {_raised(exc)}"
            if msg:
                return msg
    return None


def _run_cases(report, check, cases, pairs, what, compare=unchecked_compare) -> None:
    """Compare every case under every (scheduler, payment) pair; record the first difference or a pass."""
    msg = _first_failure(cases, pairs, compare)
    if msg:
        report.add(check, FAILED, msg)
    else:
        report.add(check, PASSED, f"{len(cases)} {what} x {len(pairs)} pairing(s)")


def _shared_checks(report, pairs, *, cases: int, seed: int) -> None:
    """The checks both kinds of entry run on their (scheduler, payment) ``pairs``: the reference on random
    cases, repeatability, one job, ties."""
    rand = random_cases(cases, seed)
    _run_cases(report, "reference", rand, pairs, "random cases")
    again = random_cases(cases, seed)
    if all(a.table.equals(b.table) and (a.nodes, a.reserve) == (b.nodes, b.reserve) for a, b in zip(rand, again)):
        _run_cases(report, "repeatable", rand[:5], pairs, "cases run twice", _repeat_differs)
    else:
        report.add("repeatable", FAILED, f"random_cases({cases}, seed={seed}) gave different cases twice")
    _run_cases(report, "one job", one_job_cases(seed), pairs, "one-job cases")
    _run_cases(report, "ties", tie_cases(seed), pairs, "tie cases")


def _check_preemption(report, pairs, *, seed: int) -> None:
    """The cases where the plain reference preempts under a preemptive pair, run by the engine."""
    if not pairs:
        report.add("preemption", SKIPPED, "no preemptive scheduler with declared semantics to pair with")
        return
    found = []
    for case in preemption_candidates(60, seed):
        for pair in pairs:
            try:
                run = reference_run(case.jobs(), case.nodes, *pair, case.reserve)
            except Exception as exc:  # the entry's own code broke the reference: that case fails the check
                report.add("preemption", FAILED, f"{case.describe()}, {pair[0]} x {pair[1]}: {_raised(exc)}")
                return
            if any(v[3] > 0 for v in run.values()):
                found.append((case, pair))
    if not found:
        report.add("preemption", SKIPPED, "no candidate case where an arrival preempts under this key")
        return
    msg = next(filter(None, (_first_failure([case], [pair], unchecked_compare) for case, pair in found)), None)
    if msg:
        report.add("preemption", FAILED, msg)
    else:
        report.add("preemption", PASSED, f"{len(found)} cases where a better arrival preempts")


def check_scheduler(
    name: str, *, payments: Sequence[str] | None = None, cases: int = 30, seed: int = 0, raise_on_failure: bool = True
) -> ConformanceReport:
    """Check a registered scheduler: the engine runs it as its declared semantics say.

    Checks, each on seeded cases (``gamemarket.testing.cases``), every job compared exactly with the
    plain reference: ``semantics`` (it declares a priority key the reference knows), ``key`` (its key
    function gives its declared key, job by job), ``reference`` (random cases), ``repeatable`` (the same
    seed gives the same cases and two runs the same numbers), ``one job``, ``ties`` (equal bids and keys:
    submit time, then id decide), and ``preemption`` (a preemptive scheduler: cases where a better arrival
    preempts; a non-preemptive one: no job is ever preempted or split).

    Parameters
    ----------
    name : str
        A name in ``gamemarket.market.SCHEDULERS``.
    payments : sequence of str, optional
        The payment schemes to pair it with (default: every registered one with declared semantics).
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
    check_options("check_scheduler", seed=seed, raise_on_failure=raise_on_failure, cases=cases)
    check_text(name, "check_scheduler: name")
    payments = check_names(payments, "check_scheduler: payments")
    entry = get_scheduler(name)

    def declared(report, semantics) -> None:
        priority, preemptive = semantics
        report.add(
            "semantics", PASSED, f"key {priority.describe()}, {'preemptive' if preemptive else 'non-preemptive'}"
        )
        _check_key(report, entry, priority, random_cases(cases, seed) + tie_cases(seed))

    def paired(report, semantics, pays) -> None:
        pairs = [(name, p) for p in pays]
        _shared_checks(report, pairs, cases=cases, seed=seed)
        if semantics[1]:
            _check_preemption(report, pairs, seed=seed)
        else:
            _check_never_preempts(report, name, pays[0], random_cases(cases, seed) + preemption_candidates(60, seed))

    report = _conformance(
        ("scheduler", name, scheduler_semantics), ("payment scheme", PAYMENTS, payments, payment_rule), declared, paired
    )
    return report.raise_if_failed() if raise_on_failure else report


def _conformance(entry: tuple, partners: tuple, declared, paired) -> ConformanceReport:
    """The set-up both kinds of entry share: the report, the entry's declared semantics (a ``semantics``
    failure where the reference knows none), the entries to pair it with (a ``reference`` failure where none
    has known semantics), then the kind's own checks.

    Parameters
    ----------
    entry : (what, name, semantics)
        The kind as a report names it, the entry's name, and the reference's reader of its semantics.
    partners : (what, registry, names, semantics)
        The other kind: as messages name it, its registry, the names asked for (None: every registered one),
        and the reader of its semantics.
    declared : callable
        ``declared(report, semantics)``: the checks of the declared semantics themselves (run first).
    paired : callable
        ``paired(report, semantics, partner_names)``: the checks of the engine's runs with its partners.
    """
    what, name, semantics = entry
    report = ConformanceReport(what, name)
    try:
        sem = semantics(name)
    except UnknownSemanticsError as exc:
        report.add("semantics", FAILED, str(exc))
        return report
    declared(report, sem)
    partner_what, registry, names, partner_semantics = partners
    known = _known(list(registry) if names is None else names, partner_semantics)
    if not known:
        report.add("reference", FAILED, f"no {partner_what} with declared semantics to pair it with")
        return report
    paired(report, sem, known)
    return report


def _check_key(report, entry, priority, cases: list[Case]) -> None:
    """The entry's key function against its declared key, job by job (``==``: -0.0 and 0.0 rank alike)."""
    for case in cases:
        try:
            got = np.asarray(entry.key(case.table), dtype=np.float64).tolist()
            want = [priority.of_job(row) for row in case.jobs()]
        except Exception as exc:  # a check reports what broke and where, rather than stopping the report
            report.add("key", FAILED, f"{case.describe()}: {_raised(exc)}")
            return
        bad = [k for k, (g, w) in enumerate(zip(got, want)) if not g == w] if len(got) == len(want) else [0]
        if bad:
            k = bad[0]
            report.add(
                "key",
                FAILED,
                f"{case.describe()}: job id {case.table['id'].iloc[k]}: the key function gives "
                f"{got[k] if len(got) == len(want) else got!r}, the declared {priority.describe()} is {want[k]!r}",
            )
            return
    report.add("key", PASSED, f"{len(cases)} cases: the key function gives {priority.describe()}")


def _preempted(case: Case, scheduler: str, payment: str) -> str | None:
    """A job the engine preempts or runs in pieces, named, or None."""
    jobs = simulate(case.table, case.nodes, Mechanism(scheduler, payment, case.reserve)).jobs
    split = (jobs["preemptions"] != 0) | (jobs["end"] - jobs["start"] != jobs["runtime"])
    if split.any():
        return f"{case.describe()}, {scheduler} x {payment}: job id {jobs['id'][split].iloc[0]} is preempted"
    return None


def _check_never_preempts(report, name: str, payment: str, cases: list[Case]) -> None:
    """A non-preemptive scheduler: every job runs once, start to end, on every case."""
    msg = _first_failure(cases, [(name, payment)], _preempted)
    if msg:
        report.add("preemption", FAILED, f"a non-preemptive scheduler preempts: {msg}")
    else:
        report.add("preemption", PASSED, f"{len(cases)} cases: non-preemptive, no job is ever preempted")


def check_payment(
    name: str, *, schedulers: Sequence[str] | None = None, cases: int = 30, seed: int = 0, raise_on_failure: bool = True
) -> ConformanceReport:
    """Check a registered payment scheme: the engine pays as its declared rule says.

    The checks of :func:`check_scheduler` (but ``key``), with every job's payment compared exactly with
    the plain reference's rule: ``semantics`` (it declares a rule the reference knows), ``reference``,
    ``repeatable``, ``one job``, ``ties`` (equal bids) and ``preemption`` (payments across preemptions,
    with each preemptive scheduler).

    Parameters
    ----------
    name : str
        A name in ``gamemarket.market.PAYMENTS``.
    schedulers : sequence of str, optional
        The schedulers to pair it with (default: every registered one with declared semantics).
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
    check_options("check_payment", seed=seed, raise_on_failure=raise_on_failure, cases=cases)
    check_text(name, "check_payment: name")
    schedulers = check_names(schedulers, "check_payment: schedulers")
    entry = get_payment(name)

    def declared(report, _rule) -> None:
        if entry.rate is not None:
            where = f"plugin {entry.source}" if entry.source else "registered in code"
            report.add("semantics", PASSED, f"rate function {getattr(entry.rate, '__name__', entry.rate)!r} ({where})")
        else:
            report.add("semantics", PASSED, f"rule {entry.rule!r} (engine code {entry.code})")

    def paired(report, _rule, scheds) -> None:
        _shared_checks(report, [(s, name) for s in scheds], cases=cases, seed=seed)
        _check_preemption(report, [(s, name) for s in scheds if scheduler_semantics(s)[1]], seed=seed)

    report = _conformance(
        ("payment scheme", name, payment_rule),
        ("scheduler", SCHEDULERS, schedulers, scheduler_semantics),
        declared,
        paired,
    )
    return report.raise_if_failed() if raise_on_failure else report


def check_provider(name: str, *, cases: int = 30, seed: int = 0, raise_on_failure: bool = True) -> ConformanceReport:
    """Check a provider strategy a plugin declares (``gamemarket.plugins.register_provider``).

    Checks: ``registered`` (its scheduler and payment scheme are registered), and ``reference`` (the engine's
    runs of random cases at the provider's own reserve price, every job compared exactly with the plain
    reference; skipped where the reference knows the semantics of only one of the two, whose own checks
    cover it).

    Parameters
    ----------
    name : str
        A name in ``gamemarket.plugins.PROVIDERS``.
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
    check_options("check_provider", seed=seed, raise_on_failure=raise_on_failure, cases=cases)
    check_text(name, "check_provider: name")
    report = ConformanceReport("provider strategy", name)
    p = PROVIDERS.get(name)
    missing = [
        f"{what} {n!r}"
        for what, n, reg in (("scheduler", p.scheduler, SCHEDULERS), ("payment scheme", p.payment, PAYMENTS))
        if n not in reg
    ]
    if missing:
        report.add("registered", FAILED, f"unknown {', '.join(missing)}")
        return report.raise_if_failed() if raise_on_failure else report
    report.add("registered", PASSED, f"{p.scheduler} x {p.payment}, reserve {p.reserve:g}")
    if not (_known([p.scheduler], scheduler_semantics) and _known([p.payment], payment_rule)):
        report.add("reference", SKIPPED, "the reference knows the semantics of only one of its entries")
    else:
        at_reserve = [dataclasses.replace(c, reserve=p.reserve) for c in random_cases(cases, seed)]
        _run_cases(report, "reference", at_reserve, [(p.scheduler, p.payment)], "random cases at its reserve")
    return report.raise_if_failed() if raise_on_failure else report
