"""Event-hook schedulers: a scheduler outside the priority-key form, as three hooks and a pure-Python loop.

A priority-key scheduler (``gamemarket.market.schedulers``) ranks every job once, before the run, so the
compiled engine can keep its heaps. A scheduler whose choice depends on the run itself (what a job has
received so far, who is running, a user's share) does not fit that form. It is written instead as an
:class:`EventScheduler`, three methods the loop calls at the market's events (market model section 4):

- ``on_arrival(t, job, state)``: a job is submitted at ``t`` (it has joined ``state.waiting``);
- ``on_completion(t, job, state)``: a running job finished at ``t`` (it has left ``state.running``);
- ``allocate(t, state)``: the allocation step after the events of ``t``: the ids of the jobs that run until the
  next event, at most ``state.nodes`` of the present ones. A running job left out is preempted (it keeps what it
  has run and waits again); a scheduler that never leaves one out is non-preemptive.

:func:`run_hooks` runs a job table under such a scheduler and a registered payment scheme (built-in or a
plugin's rate function), paying each running job its rate over each interval with the compiled engine's
operations in its order: where an event scheduler makes the choices a built-in scheduler makes, the payments
agree with the engine's bit for bit (``tests/plugins/test_hooks.py`` holds one to HB). It is plain Python:
about as slow as the plain reference, for workloads of thousands of jobs, not a trace's hundreds of thousands.

A plugin registers one with :func:`register_event_scheduler`; ``gamemarket.testing.check_event_scheduler``
checks it. Event schedulers run through :func:`run_hooks` (the Python API); studies and ``simulate`` take
priority-key schedulers only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from gamemarket.errors import InputError
from gamemarket.market.payments import get_payment, market_price
from gamemarket.registry import Registry


@dataclass
class MarketState:
    """What an event scheduler sees: the job table's rows by id, and the market's state now.

    Attributes
    ----------
    nodes : int
        The number of nodes.
    jobs : dict
        Every job's row (``id``, ``submit``, ``runtime``, ``reported_bid``, ``estimate``, ...) by id.
    waiting, running : set of int
        The ids of the present jobs that wait and that run.
    attained : dict
        Each present job's run time so far (seconds), by id.
    """

    nodes: int
    jobs: dict
    waiting: set = field(default_factory=set)
    running: set = field(default_factory=set)
    attained: dict = field(default_factory=dict)

    def remaining(self, i: int) -> int:
        """Job ``i``'s run time still to run (seconds)."""
        return int(self.jobs[i]["runtime"]) - self.attained[i]


class EventScheduler:
    """A scheduler as event hooks (see the module's text). Subclasses set ``name`` and ``description`` and
    implement :meth:`allocate`; the two other hooks do nothing unless overridden."""

    name: str = ""
    description: str = ""
    #: ``path@hash`` of the plugin that registered it (``gamemarket.plugins``), None for code
    source: str | None = None

    def on_arrival(self, t: int, job: dict, state: MarketState) -> None:
        """Job ``job`` (its row) arrived at ``t``; it is in ``state.waiting``."""

    def on_completion(self, t: int, job: dict, state: MarketState) -> None:
        """Job ``job`` (its row) finished at ``t``; it has left ``state.running``."""

    def allocate(self, t: int, state: MarketState) -> Iterable[int]:
        """The ids of the jobs that run after the step at ``t``: at most ``state.nodes`` present jobs."""
        raise NotImplementedError(f"event scheduler {self.name!r}: allocate is not implemented")


#: event-hook schedulers by name
EVENT_SCHEDULERS: Registry[EventScheduler] = Registry("event scheduler")


def register_event_scheduler(scheduler: EventScheduler) -> EventScheduler:
    """Register an :class:`EventScheduler` instance under its name and return it.

    Raises
    ------
    InputError
        Not an ``EventScheduler``, no name or description, a name already taken, or ``allocate`` not overridden.
    """
    if not isinstance(scheduler, EventScheduler):
        raise InputError(f"register_event_scheduler: expected an EventScheduler, got {type(scheduler).__name__}")
    what = f"event scheduler {scheduler.name!r}"
    if not isinstance(scheduler.description, str) or not scheduler.description.strip():
        raise InputError(f"{what}: field 'description': expected a non-empty text, got {scheduler.description!r}")
    if type(scheduler).allocate is EventScheduler.allocate:
        raise InputError(f"{what}: it does not implement allocate(t, state)")
    return EVENT_SCHEDULERS.register(scheduler.name, scheduler)


def _rates(payment, reserve: float, state: MarketState, code: int) -> dict:
    """Each running job's rate after a step: a rate function's value, or ``min(max(rw, r), M)`` with the
    built-in scheme's market price ``M``, with the engine's operations."""
    run = state.running
    bids = {i: float(state.jobs[i]["reported_bid"]) for i in run}
    top = max((float(state.jobs[i]["reported_bid"]) for i in state.waiting), default=-math.inf)
    if payment.rate is not None:
        low = min(bids.values(), default=math.inf)
        free, waiting = state.nodes - len(run), len(state.waiting)
        out = {i: float(payment.rate(b, reserve, state.nodes, free, waiting, top, low)) for i, b in bids.items()}
        bad = [(i, v) for i, v in out.items() if not (v >= 0.0 and v < math.inf)]
        if bad:
            where = f" (plugin {payment.source})" if payment.source else ""
            raise InputError(
                f"payment scheme {payment.name!r}{where}: rate function gave {bad[0][1]!r} for job id {bad[0][0]}; "
                "expected a finite price >= 0"
            )
        return out
    m = float(market_price(code, reserve, state.nodes, len(run) + len(state.waiting), len(state.waiting), top))
    return {i: min(b if b >= reserve else reserve, m) for i, b in bids.items()}


def _step(scheduler: EventScheduler, t: int, state: MarketState, npre: dict, start: dict) -> None:
    """The allocation step: the hook's choice, checked, applied (preemptions counted, first starts noted)."""
    try:
        chosen = {int(i) for i in scheduler.allocate(t, state)}
    except InputError:
        raise
    except Exception as exc:  # the scheduler's own error: named with it, as a bad input
        raise InputError(f"event scheduler {scheduler.name!r}: allocate raised {type(exc).__name__}: {exc}") from None
    present = state.waiting | state.running
    if not chosen <= present or len(chosen) > state.nodes:
        extra = sorted(chosen - present)
        raise InputError(
            f"event scheduler {scheduler.name!r}: allocate at t={t} chose {len(chosen)} jobs"
            + (f", not present: ids {extra[:5]}" if extra else "")
            + f"; expected at most {state.nodes} of the present jobs"
        )
    for i in state.running - chosen:
        npre[i] += 1
    for i in chosen - state.running:
        start.setdefault(i, t)
    state.waiting = present - chosen
    state.running = chosen


def run_hooks(table, nodes: int, scheduler: str | EventScheduler, payment: str = "kth", reserve: float = 1.0):
    """Run a job table under an event-hook scheduler and a registered payment scheme, in plain Python.

    Parameters
    ----------
    table : pandas.DataFrame or mapping of columns
        ``id``, ``submit``, ``runtime``, ``reported_bid`` and what the scheduler reads.
    nodes : int
        The number of nodes (>= 1).
    scheduler : str or EventScheduler
        A name in :data:`EVENT_SCHEDULERS`, or an instance.
    payment : str
        A name in ``gamemarket.market.PAYMENTS``.
    reserve : float
        The reservation price ``r``.

    Returns
    -------
    pandas.DataFrame
        One row per job, in the table's order: ``id``, ``start``, ``end``, ``payment``, ``preemptions``.

    Raises
    ------
    InputError
        An unknown name, ``nodes`` < 1, a choice of more than ``nodes`` or of absent jobs, a hook that raises,
        or a rate that is not a finite price >= 0; naming the scheduler (or scheme), the job and the value.
    """
    # deferred: the table in and out is a DataFrame; the plugin loader imports this module at every command's start
    import pandas as pd

    sched = EVENT_SCHEDULERS.get(scheduler) if isinstance(scheduler, str) else scheduler
    pay = get_payment(payment)
    if int(nodes) < 1:
        raise InputError(f"run_hooks: nodes must be >= 1, got {nodes}")
    rows = pd.DataFrame(table).to_dict("records")
    state = MarketState(int(nodes), {int(r["id"]): r for r in rows})
    future = sorted(state.jobs, key=lambda i: (int(state.jobs[i]["submit"]), i))
    start, end = {}, {}
    paid, npre = {i: 0.0 for i in state.jobs}, {i: 0 for i in state.jobs}
    rate: dict = {}
    t_prev, k = None, 0
    while k < len(future) or state.running or state.waiting:
        cands = [int(state.jobs[future[k]]["submit"])] if k < len(future) else []
        cands += [t_prev + state.remaining(i) for i in state.running]
        if not cands:  # jobs wait, nothing runs and nothing is to come: no event would ever start them
            raise InputError(
                f"event scheduler {sched.name!r}: allocate at t={t_prev} runs nothing while {len(state.waiting)} "
                f"job(s) wait and none is to arrive (ids {sorted(state.waiting)[:5]}): they would never run"
            )
        t = min(cands)
        if t_prev is not None and t > t_prev:
            dt = float(t - t_prev)
            for i in state.running:
                paid[i] += rate[i] * dt
                state.attained[i] += t - t_prev
        for i in sorted(i for i in state.running if state.remaining(i) == 0):
            state.running.discard(i)
            del state.attained[i]
            end[i] = t
            sched.on_completion(t, state.jobs[i], state)
        while k < len(future) and int(state.jobs[future[k]]["submit"]) == t:
            i = future[k]
            k += 1
            state.waiting.add(i)
            state.attained[i] = 0
            sched.on_arrival(t, state.jobs[i], state)
        _step(sched, t, state, npre, start)
        rate = _rates(pay, float(reserve), state, pay.code)
        t_prev = t
    ids = [int(r["id"]) for r in rows]
    return pd.DataFrame(
        {
            "id": np.array(ids, dtype=np.int64),
            "start": np.array([start[i] for i in ids], dtype=np.int64),
            "end": np.array([end[i] for i in ids], dtype=np.int64),
            "payment": np.array([paid[i] for i in ids], dtype=np.float64),
            "preemptions": np.array([npre[i] for i in ids], dtype=np.int64),
        }
    )
