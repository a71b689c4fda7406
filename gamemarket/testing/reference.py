"""A plain reference implementation of market model sections 4-5: what the engine must reproduce.

At every instant it re-sorts all present jobs and accumulates each running job's payment step by
step. Slow and obvious on purpose; it also records the running set after every step, so tests can
check the scheduling invariants on it.

It reads no scheduler's or payment scheme's name: it takes what a registry entry declares. A
scheduler declares its key as a :class:`gamemarket.market.schedulers.PriorityKey` and whether it
preempts; a payment scheme declares its ``rule``, one of ``RATE_RULES``, or is a plugin's rate function,
which the reference calls uncompiled on the state it computes itself. An entry whose semantics this
module does not know is refused by name (:class:`UnknownSemanticsError`), so a new entry is either
checkable or says why not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from gamemarket.bids import MAX_RESERVE
from gamemarket.errors import InputError, check_flag, check_real, check_text, check_whole, raised, shown_value
from gamemarket.market.payments import (
    BLEND,
    FIRST_PRICE_RULE,
    KTH_PRICE_RULE,
    RATE_FUNCTION_RULE,
    RateValueError,
    get_payment,
    plain_rate,
)
from gamemarket.market.schedulers import PriorityKey, get_scheduler


class UnknownSemanticsError(InputError):
    """A registered scheduler or payment scheme whose declared semantics the plain reference does not know."""


def _first_price(bid: float, reserve: float, nodes: int, present: int, waiting_bids: Sequence[float], running_bids=()):
    # r while some node is idle (N < n), else the job's own bid, floored at r
    return reserve if present < nodes else max(reserve, bid)


def _kth_price(bid: float, reserve: float, nodes: int, present: int, waiting_bids: Sequence[float], running_bids=()):
    # r while nobody waits, else the highest waiting bid, capped at the job's own and floored at r
    if not waiting_bids:
        return reserve
    return max(reserve, min(bid, max(waiting_bids)))


class RateFunctionError(InputError):
    """A plugin's rate function raised, or returned what is not a price (not a real number, NaN, infinite or
    negative): the message names the function and what it returned."""


def _rate_function(rate: Callable, what: str = "") -> Callable:
    """A plugin's rate function (``payments.register_payment_rule``) as a rate rule: the state it reads, from
    the present jobs (as plain Python floats and integers), and the function, uncompiled. What it returns must be
    a price: a real number (not a text, a bool, a tuple or an array), finite and >= 0, else
    :class:`RateFunctionError` names the function and the value (``float()`` took ``"1.5"``, and stopped a
    conformance check with a traceback at ``"abc"``); ``what`` names the scheme in the message (its plugin)."""
    where = f"{what}: " if what else ""
    fn = f"{where}rate function {getattr(rate, '__qualname__', rate)!r}"

    def rule(bid, reserve, nodes, present, waiting_bids, running_bids):
        free = nodes - len(running_bids)
        top = max(waiting_bids) if waiting_bids else -math.inf
        low = min(running_bids) if running_bids else math.inf
        args = (float(bid), float(reserve), int(nodes), free, len(waiting_bids), float(top), float(low))
        try:
            price = plain_rate(rate, *args)  # numpy's overflow an error, as in the engine's plain path
        except RateValueError as exc:
            raise RateFunctionError(f"{where}{exc} (called with {args})") from None
        except Exception as exc:  # the plugin's own error: its message, on one line
            raise RateFunctionError(f"{fn} raised {raised(exc)} (called with {args})") from None
        if not (price >= 0 and price < math.inf):
            raise RateFunctionError(f"{fn} returned {price!r} (called with {args}); expected a finite price >= 0")
        return price

    return rule


#: a declared payment rule -> a running job's rate ``rate(own bid, r, n, N present, waiting jobs' bids,
#: running jobs' bids)``
RATE_RULES: dict[str, Callable[..., float]] = {
    FIRST_PRICE_RULE: _first_price,
    KTH_PRICE_RULE: _kth_price,
}


def scheduler_semantics(scheduler: str) -> tuple[PriorityKey, bool]:
    """A registered scheduler's declared semantics: its priority key and whether it preempts.

    Parameters
    ----------
    scheduler : str
        A name in ``gamemarket.market.SCHEDULERS``.

    Returns
    -------
    (PriorityKey, bool)

    Raises
    ------
    UnknownSemanticsError
        The scheduler declares no :class:`PriorityKey` (its key is a plain function without ``priority``).
    """
    entry = get_scheduler(scheduler)
    if not isinstance(entry.priority, PriorityKey):
        raise UnknownSemanticsError(
            f"scheduler {scheduler!r}: the plain reference cannot reproduce it: it declares no priority key "
            f"(got {entry.priority!r}); register it with a PriorityKey as its key, or pass priority=PriorityKey(...)"
        )
    return entry.priority, bool(entry.preemptive)


def payment_rule(payment: str, blend: float | None = None) -> Callable[..., float]:
    """A registered payment scheme's rate rule, from the rule it declares.

    Parameters
    ----------
    payment : str
        A name in ``gamemarket.market.PAYMENTS``, or ``"blend"``.
    blend : float, optional
        A blend's ``alpha``: its rate is ``alpha`` times the first-price rate plus ``1 - alpha`` times the k-th
        price rate, at every step (the market model's definition, computed here step by step).

    Returns
    -------
    callable
        ``rate(own bid, r, n, N present, waiting jobs' bids, running jobs' bids)``.

    Raises
    ------
    UnknownSemanticsError
        The scheme declares no rule, or one not in ``RATE_RULES``.
    """
    if payment == BLEND:
        if blend is None:
            raise InputError("payment 'blend': the plain reference needs its alpha (blend=...)")
        alpha = float(blend)

        def blended(*state):
            return alpha * _first_price(*state) + (1.0 - alpha) * _kth_price(*state)

        return blended
    entry = get_payment(payment)
    if entry.rule == RATE_FUNCTION_RULE and entry.rate is not None:
        return _rate_function(
            entry.rate, f"payment scheme {payment!r}{f' (plugin {entry.source})' if entry.source else ''}"
        )
    if entry.rule not in RATE_RULES:
        raise UnknownSemanticsError(
            f"payment scheme {payment!r}: the plain reference cannot reproduce it: its declared rule "
            f"{entry.rule!r} is not one of {sorted(RATE_RULES)}"
        )
    return RATE_RULES[entry.rule]


def key_fn(scheduler: str, job: Mapping) -> tuple:
    """A job's full sort key under ``scheduler``: its declared priority key, then submit time, then id.

    ``job`` is a mapping with ``submit``, ``id`` and the fields the key reads (``reported_bid``, ``runtime``, ...),
    each a real number; else an :class:`InputError` naming the field (a ``KeyError`` or ``TypeError`` before)."""
    check_text(scheduler, "key_fn: scheduler")
    priority, _ = scheduler_semantics(scheduler)
    if not isinstance(job, Mapping):
        raise InputError(f"key_fn: job must be a mapping of a job's fields, got {shown_value(job)}")
    _check_job(job, _fields(priority, ()), "key_fn: job")
    return unchecked_key(priority, job)


def unchecked_key(priority: PriorityKey, job: Mapping) -> tuple:
    """:func:`key_fn` with the scheduler's declared ``priority`` given and ``job`` unchecked (the reference's loop)."""
    return (priority.of_job(job), job["submit"], job["id"])


#: the fields every job of the plain reference has (the scheduler's key may read more)
JOB_FIELDS = ("id", "submit", "runtime", "reported_bid")
#: the most nodes a run names (the engine's bound, ``market.simulate.check_nodes``)
MAX_NODES = 2**63 - 1


def _fields(priority: PriorityKey, base: tuple = JOB_FIELDS) -> tuple:
    """The fields a job needs: ``base`` and what ``priority`` reads, then submit time and id (the tie rule)."""
    extra = (priority.column, *((priority.per,) if priority.per else ()), "submit", "id")
    return tuple(dict.fromkeys((*base, *extra)))


def _check_job(job: Mapping, fields: tuple, what: str) -> None:
    """Each of ``fields`` in ``job``, a finite real number (not a bool); else an :class:`InputError` naming it."""
    for f in fields:
        if f not in job:
            raise InputError(f"{what}: missing field {f!r}; expected the fields {list(fields)}")
        check_real(job[f], f"{what}: field {f!r}")


def _checked_jobs(jobs, priority: PriorityKey) -> list:
    """``jobs`` as a list of mappings, each with the fields the run reads (numbers; a run time > 0, a submit time and
    a bid >= 0, ids distinct), from a job table (a DataFrame) or a list of mappings; else an :class:`InputError`."""
    fields = _fields(priority)
    if isinstance(jobs, pd.DataFrame):
        missing = [f for f in fields if f not in jobs.columns]
        if missing:
            raise InputError(f"reference_run: jobs: missing column(s) {missing}; expected the columns {list(fields)}")
        jobs = jobs.to_dict("records")
    if not isinstance(jobs, (list, tuple)) or not all(isinstance(j, Mapping) for j in jobs):
        raise InputError(
            "reference_run: jobs must be a job table (a DataFrame) or a list of mappings, one per job, got "
            f"{shown_value(jobs)}"
        )
    for k, j in enumerate(jobs):
        what = f"reference_run: jobs[{k}]"
        _check_job(j, fields, what)
        if not (j["runtime"] > 0 and j["submit"] >= 0 and j["reported_bid"] >= 0):
            raise InputError(
                f"{what}: expected a run time > 0, a submit time >= 0 and a bid >= 0, got runtime "
                f"{j['runtime']!r}, submit {j['submit']!r}, reported_bid {j['reported_bid']!r}"
            )
    if len({j["id"] for j in jobs}) != len(jobs):
        raise InputError("reference_run: jobs: two jobs have the same id; expected distinct ids")
    return list(jobs)


def _checked_run(n, scheduler, payment, reserve, record, blend) -> None:
    """The options of :func:`reference_run`, each checked; an :class:`InputError` names the first bad one."""
    check_text(scheduler, "reference_run: scheduler")
    check_text(payment, "reference_run: payment")
    n = check_whole(n, "reference_run: n (the number of nodes)", 1)
    if n > MAX_NODES:
        raise InputError(f"reference_run: n (the number of nodes) must be <= 2**63 - 1, got {shown_value(n)}")
    check_real(reserve, "reference_run: reserve", minimum=0, maximum=MAX_RESERVE)
    check_flag(record, "reference_run: record")
    check_real(blend, "reference_run: blend", minimum=0, maximum=1, none=True)
    if blend is not None and payment != BLEND:
        raise InputError(f"reference_run: blend ({blend!r}) applies to payment 'blend' only, not {payment!r}")


# Complexity 28 (radon): the plain reference is kept as one loop that reads like the model document, step by
# step; split into helpers it would no longer be checkable against the document at a glance.
def reference_run(jobs, n, scheduler="hb", payment="kth", reserve=1.0, record=False, blend=None):
    """Run the market plainly: every step re-sorts the present jobs and pays each running job its rate.

    Parameters
    ----------
    jobs : DataFrame or list of dict
        A job table, or one dict per job, with ``id``, ``submit``, ``runtime``, ``reported_bid`` and the columns
        the scheduler's key reads (``estimate``, ...). No job: no outcome (an empty dict).
    n : int
        The number of nodes (a whole number >= 1).
    scheduler, payment : str
        Registered names; their declared semantics give the rule (``scheduler_semantics``, ``payment_rule``).
    reserve : float
        The reservation price ``r``.
    record : bool
        Also return the timeline: ``(t, present ids, running ids)`` after every step.
    blend : float, optional
        ``alpha`` of ``payment = "blend"`` (``payment_rule``).

    Returns
    -------
    dict
        id -> (start, end, payment, preemptions), and the timeline if ``record``.
    """
    _checked_run(n, scheduler, payment, reserve, record, blend)
    priority, preemptive = scheduler_semantics(scheduler)
    rate_of = payment_rule(payment, blend)
    jobs = _checked_jobs(jobs, priority)
    by_id = {j["id"]: j for j in jobs}
    key = {j["id"]: unchecked_key(priority, j) for j in jobs}
    remaining = {j["id"]: j["runtime"] for j in jobs}
    start, end, pay, npre = {}, {}, {i: 0.0 for i in by_id}, {i: 0 for i in by_id}
    future = sorted(by_id, key=lambda i: (by_id[i]["submit"], i))
    present, running = set(), set()
    rate = {}
    t_prev = None
    timeline = []
    while future or present:
        cands = []
        if future:
            cands.append(by_id[future[0]]["submit"])
        cands += [t_prev + remaining[i] for i in running]
        t = min(cands)
        if t_prev is not None:
            dt = t - t_prev
            for i in running:
                pay[i] += rate[i] * dt
                remaining[i] -= dt
        for i in [i for i in running if remaining[i] == 0]:
            running.discard(i)
            present.discard(i)
            end[i] = t
        while future and by_id[future[0]]["submit"] == t:
            present.add(future.pop(0))
        ordered = sorted(present, key=lambda i: key[i])
        if preemptive:
            new_running = set(ordered[:n])
            for i in running - new_running:
                npre[i] += 1
            running = new_running
        else:
            for i in ordered:
                if len(running) >= n:
                    break
                running.add(i)
        for i in running:
            start.setdefault(i, t)
        waiting_bids = [by_id[j]["reported_bid"] for j in present - running]
        running_bids = [by_id[j]["reported_bid"] for j in running]
        for i in running:
            rate[i] = rate_of(by_id[i]["reported_bid"], reserve, n, len(present), waiting_bids, running_bids)
        if record:
            timeline.append((t, frozenset(present), frozenset(running)))
        t_prev = t
    result = {i: (start[i], end[i], pay[i], npre[i]) for i in by_id}
    return (result, timeline) if record else result
