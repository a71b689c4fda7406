"""Event-hook schedulers: a scheduler outside the priority-key form, as three hooks and a pure-Python loop.

A priority-key scheduler (``gamemarket.market.schedulers``) ranks every job once, before the run, so the
compiled engine can keep its heaps. A scheduler whose choice depends on the run itself (what a job has
received so far, who is running, a user's share) does not fit that form. It is written instead as an
:class:`EventScheduler`, three methods the loop calls at the market's events (market model section 4):

- ``on_arrival(t, job, state)``: a job is submitted at ``t`` (it has joined ``state.waiting``);
- ``on_completion(t, job, state)``: a running job finished at ``t`` (it has left ``state.running``);
- ``allocate(t, state)``: the allocation step after the events of ``t``: the ids of the jobs that run until the
  next event, at most ``state.nodes`` of the present ones, each once. A running job left out is preempted (it keeps
  what it has run and waits again); a scheduler that never leaves one out is non-preemptive.

:func:`run_hooks` runs a job table under such a scheduler and a registered payment scheme (built-in or a
plugin's rate function), paying each running job its rate over each interval with the compiled engine's
operations in its order: where an event scheduler makes the choices a built-in scheduler makes, the payments
agree with the engine's bit for bit (``tests/plugins/test_hooks.py`` and ``test_hooks_everywhere.py`` hold
``examples/plugins/highest_bid_hooks.py`` to HB). :func:`run_schedule_hooks` is the same loop paying under K
(payment scheme, reserve) pairs in one pass, what ``simulate.run_schedule`` runs for an event scheduler.

A plugin registers one with :func:`register_event_scheduler`, which also enters it in ``SCHEDULERS`` (a
``Scheduler`` whose ``hooks`` is the instance): from then on it is usable wherever a scheduler is, by its name:
``simulate`` (the Python API, and the CLI's ``--plugin FILE --scheduler NAME``), a provider strategy
(``plugins.register_provider``), bimatrix and population studies (any number of processes, and dask, whose
workers load the plugin as for any other entry). ``gamemarket.testing.check_event_scheduler`` checks it. It is
plain Python, for workloads of thousands of jobs, not a trace's hundreds of thousands: HB as hooks took 110-180x
the compiled engine's time on 2,000 jobs and some 1,500x on 10,000 (``benchmarks/bench_plugins.py``; the runs,
with their commands and load, are in ``benchmarks/results/plugin-bench.txt``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from gamemarket.bids import MAX_RESERVE, valid_reserve
from gamemarket.errors import InputError, check_whole, raised
from gamemarket.io import jobtable
from gamemarket.market.payments import RateValueError, get_payment, market_price, rate_value
from gamemarket.market.schedulers import SCHEDULERS, Scheduler
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


class _EventSchedulers(Registry):
    """The event schedulers' registry: removing one (a plugin taken back) removes its ``SCHEDULERS`` entry too."""

    def remove(self, name: str) -> None:
        """Forget ``name`` here and its entry in ``SCHEDULERS`` (absent: a no-op)."""
        item = self._items.get(name)
        super().remove(name)
        mirror = SCHEDULERS._items.get(name)
        if item is not None and mirror is not None and mirror.hooks is item:
            SCHEDULERS.remove(name)


#: event-hook schedulers by name (each also in ``SCHEDULERS``: :func:`register_event_scheduler`)
EVENT_SCHEDULERS: Registry[EventScheduler] = _EventSchedulers("event scheduler")


def register_event_scheduler(scheduler: EventScheduler) -> EventScheduler:
    """Register an :class:`EventScheduler` instance under its name and return it.

    It is registered twice, under one name: in :data:`EVENT_SCHEDULERS` (what :func:`run_hooks` and
    ``gamemarket.testing.check_event_scheduler`` look up), and in ``gamemarket.market.SCHEDULERS`` as a
    ``Scheduler`` whose ``hooks`` is this instance, so ``simulate --scheduler NAME``, a provider strategy
    (``plugins.register_provider``) and bimatrix and population studies take it wherever they take a scheduler
    (``simulate.run_schedule`` runs it with :func:`run_schedule_hooks`). A name is one scheduler's: a priority-key
    scheduler's name is taken for an event scheduler too.

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
    if scheduler.name in EVENT_SCHEDULERS:
        EVENT_SCHEDULERS.register(scheduler.name, scheduler)  # the registry's own error: the name is taken
    entry = Scheduler(scheduler.name, True, _NoKey(scheduler.name), scheduler.description, hooks=scheduler)
    SCHEDULERS.register(scheduler.name, entry)
    return EVENT_SCHEDULERS.register(scheduler.name, scheduler)


class _NoKey:
    """The ``key`` of an event scheduler's ``Scheduler`` entry: it has none, and a caller that asks is told so."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, table):
        raise InputError(
            f"scheduler {self.name!r} is an event-hook scheduler (gamemarket.market.hooks): it has no priority key"
        )


def _who(scheduler: EventScheduler) -> str:
    """``event scheduler 'name' (plugin path@hash)``: how an error names the scheduler and its plugin."""
    where = f" (plugin {scheduler.source})" if getattr(scheduler, "source", None) else ""
    return f"event scheduler {scheduler.name!r}{where}"


def _view(state: MarketState) -> MarketState:
    """What a hook sees: the state read-only (the rows and the ids of the waiting and running jobs as they are now,
    their attained run times), so that no hook changes what the engine runs and pays behind its back."""
    return MarketState(
        state.nodes,
        state.jobs,
        frozenset(state.waiting),
        frozenset(state.running),
        MappingProxyType(state.attained),
    )


def _read_only(exc: BaseException) -> str:
    """Where a hook's error is a write into what it was shown read-only, a word saying so ("" otherwise)."""
    text = str(exc)
    if isinstance(exc, (TypeError, AttributeError)) and ("mappingproxy" in text or "frozenset" in text):
        return (
            "; a hook sees the market's state read-only (the jobs' rows, the waiting and running ids, the attained "
            "run times): keep its own data on the scheduler"
        )
    return ""


def _hook(scheduler: EventScheduler, hook: str, t: int, job: dict, state: MarketState) -> None:
    """Call ``on_arrival`` or ``on_completion``; what the hook raises is an error naming it and the job."""
    try:
        getattr(scheduler, hook)(t, job, state)
    except InputError:
        raise
    except Exception as exc:  # the scheduler's own error: named with it, as a bad input
        raise InputError(
            f"{_who(scheduler)}: {hook} raised {raised(exc)} at t={t} for job id {job['id']}{_read_only(exc)}"
        ) from None


def _rates(payment, reserve: float, state: MarketState) -> dict:
    """Each running job's rate after a step: a rate function's value, or ``min(max(rw, r), M)`` with the
    built-in scheme's market price ``M``, with the engine's operations."""
    run = state.running
    bids = {i: float(state.jobs[i]["reported_bid"]) for i in run}
    top = max((float(state.jobs[i]["reported_bid"]) for i in state.waiting), default=-math.inf)
    if payment.rate is not None:
        low = min(bids.values(), default=math.inf)
        free, waiting = state.nodes - len(run), len(state.waiting)
        what = f"payment scheme {payment.name!r}{f' (plugin {payment.source})' if payment.source else ''}"
        fn = f"rate function {getattr(payment.rate, '__name__', payment.rate)!r}"
        out = {}
        for i, b in bids.items():
            try:
                got = payment.rate(b, reserve, state.nodes, free, waiting, top, low)
            except Exception as exc:  # the user's function raised: its own message, on one line
                msg = " ".join(str(exc).split()) or type(exc).__name__
                raise InputError(f"{what}: {fn} raised {type(exc).__name__}: {msg} for job id {i}") from None
            try:
                v = rate_value(payment.rate, got)  # a text, a bool, 10**400: named, as the engine names them
            except RateValueError as exc:
                raise InputError(f"{what}: {exc}") from None
            if not (v >= 0.0 and v < math.inf):
                raise InputError(
                    f"{what}: {fn} gave {v!r} for job id {i} (reported bid {b!r}, reserve {reserve!r}); "
                    "expected a finite price >= 0"
                )
            out[i] = v
        return out
    m = float(market_price(payment.code, reserve, state.nodes, len(run) + len(state.waiting), len(state.waiting), top))
    return {i: min(b if b >= reserve else reserve, m) for i, b in bids.items()}


def _chosen(scheduler: EventScheduler, t: int, state: MarketState) -> set:
    """The ids ``allocate`` returns at ``t``, checked: integers, of present jobs, each once, at most ``state.nodes``."""
    try:
        got = list(scheduler.allocate(t, _view(state)))
    except InputError:
        raise
    except Exception as exc:  # the scheduler's own error: named with it, as a bad input
        raise InputError(f"{_who(scheduler)}: allocate raised {raised(exc)} at t={t}{_read_only(exc)}") from None
    bad = [i for i in got if isinstance(i, bool) or not isinstance(i, (int, np.integer))]
    if bad:
        raise InputError(
            f"{_who(scheduler)}: allocate at t={t} returned {bad[0]!r} ({type(bad[0]).__name__}); expected the ids "
            "(integers) of present jobs"
        )
    chosen = {int(i) for i in got}
    if len(chosen) < len(got):  # a job on two nodes: a serial job runs on one (it was deduplicated in silence)
        twice = next(i for k, i in enumerate(got) if int(i) in {int(j) for j in got[:k]})
        raise InputError(
            f"{_who(scheduler)}: allocate at t={t} chose job id {int(twice)} more than once; expected each present "
            "job at most once (a job runs on one node)"
        )
    present = state.waiting | state.running
    extra = sorted(chosen - present)
    if extra:
        why = "not yet arrived, or finished" if extra[0] in state.jobs else "no job has that id"
        raise InputError(
            f"{_who(scheduler)}: allocate at t={t} chose job id {extra[0]}, which is neither waiting nor running "
            f"({why}); expected at most {state.nodes} of the present jobs"
        )
    if len(chosen) > state.nodes:
        raise InputError(
            f"{_who(scheduler)}: allocate at t={t} chose {len(chosen)} jobs; expected at most {state.nodes} of the "
            f"present jobs (the market's nodes); the first ids chosen: {sorted(chosen)[:5]}"
        )
    return chosen


def _step(scheduler: EventScheduler, t: int, state: MarketState, npre: dict, start: dict) -> None:
    """The allocation step: the hook's choice, checked, applied (preemptions counted, first starts noted)."""
    chosen = _chosen(scheduler, t, state)
    for i in state.running - chosen:
        npre[i] += 1
    for i in chosen - state.running:
        start.setdefault(i, t)
    state.waiting = (state.waiting | state.running) - chosen
    state.running = chosen


def _columns(table) -> tuple[list, list]:
    """(ids, rows): the table's job ids and its rows as dicts of Python scalars, in the table's order; ``table`` a
    DataFrame or a mapping of column arrays (``simulate --job-table`` reads one without pandas)."""
    names = [str(c) for c in table.keys()]
    cols = [np.asarray(table[c]).tolist() for c in names]
    rows = [dict(zip(names, vals)) for vals in zip(*cols)]
    return [int(r["id"]) for r in rows], rows


def _loop(rows: list, nodes: int, sched: EventScheduler, pricing: list) -> tuple:
    """The event loop (market model section 4) over job rows, paying each (payment entry, reserve) of ``pricing``:
    (start, end, paid, preemptions) as dicts by id (``paid``: one dict per pair) and the step count."""
    # the rows read-only: a hook that wrote a row's bid or run time changed what the engine paid and ran while the
    # outcome showed the rows as given (hunt 9: every job paid the reserve; utilization 2)
    state = MarketState(int(nodes), MappingProxyType({int(r["id"]): MappingProxyType(r) for r in rows}))
    future = sorted(state.jobs, key=lambda i: (int(state.jobs[i]["submit"]), i))
    start, end = {}, {}
    paid = [{i: 0.0 for i in state.jobs} for _ in pricing]
    npre = {i: 0 for i in state.jobs}
    rates: list = [{} for _ in pricing]
    t_prev, k, steps = None, 0, 0
    while k < len(future) or state.running or state.waiting:
        cands = [int(state.jobs[future[k]]["submit"])] if k < len(future) else []
        cands += [t_prev + state.remaining(i) for i in state.running]
        if not cands:  # jobs wait, nothing runs and nothing is to come: no event would ever start them
            raise InputError(
                f"{_who(sched)}: allocate at t={t_prev} runs nothing while {len(state.waiting)} "
                f"job(s) wait and none is to arrive (ids {sorted(state.waiting)[:5]}): they would never run"
            )
        t = min(cands)
        if t_prev is not None and t > t_prev:
            dt = float(t - t_prev)
            for y, rate in zip(paid, rates):
                for i in state.running:
                    y[i] += rate[i] * dt
            for i in state.running:
                state.attained[i] += t - t_prev
        for i in sorted(i for i in state.running if state.remaining(i) == 0):
            state.running.discard(i)
            del state.attained[i]
            end[i] = t
            _hook(sched, "on_completion", t, state.jobs[i], _view(state))
        while k < len(future) and int(state.jobs[future[k]]["submit"]) == t:
            i = future[k]
            k += 1
            state.waiting.add(i)
            state.attained[i] = 0
            _hook(sched, "on_arrival", t, state.jobs[i], _view(state))
        _step(sched, t, state, npre, start)
        steps += 1
        rates = [_rates(pay, float(r), state) for pay, r in pricing]
        t_prev = t
    return start, end, paid, npre, steps


def run_schedule_hooks(table, nodes: int, scheduler: EventScheduler, schemes, reserves) -> tuple:
    """One run of an event scheduler that pays under every (payment entry, reserve) pair: what
    ``gamemarket.market.simulate.run_schedule`` returns for a scheduler registered by
    :func:`register_event_scheduler`.

    Parameters
    ----------
    table : pandas.DataFrame or mapping of columns
        A validated job table.
    nodes : int
        The number of nodes (>= 1).
    scheduler : EventScheduler
    schemes : sequence of PaymentScheme
        K payment-scheme entries (``gamemarket.market.payments``).
    reserves : sequence of float
        K reservation prices, one per scheme.

    Returns
    -------
    tuple
        (start, end, payment, preemptions, steps) in the table's order, ``payment`` a K x J float64 array: the
        schedule never depends on the payment scheme, so row k is a run with ``(schemes[k], reserves[k])`` alone.
    """
    ids, rows = _columns(table)
    start, end, paid, npre, steps = _loop(rows, nodes, scheduler, list(zip(schemes, reserves)))
    pay = np.array([[y[i] for i in ids] for y in paid], dtype=np.float64).reshape(len(paid), len(ids))
    return (
        np.array([start[i] for i in ids], dtype=np.int64),
        np.array([end[i] for i in ids], dtype=np.int64),
        pay,
        np.array([npre[i] for i in ids], dtype=np.int64),
        steps,
    )


def _checked_table(table):
    """``run_hooks``' job table checked as ``simulate`` checks one (``jobtable.validate``: the required columns,
    finite values, run times > 0, whole times, unique ids; a run time of -5 looped for ever, a missing column was a
    ``KeyError``), its known columns in their canonical types beside the other columns a scheduler may read."""
    import pandas as pd  # deferred: the table is a DataFrame; the plugin loader imports this module at every start

    if isinstance(table, Mapping) and not isinstance(table, pd.DataFrame):
        try:
            table = pd.DataFrame(dict(table))
        except (ValueError, TypeError) as exc:
            raise InputError(f"run_hooks: table: columns of unequal lengths or not columns ({exc})") from None
    checked = jobtable.validate(table, where="run_hooks: table")
    for c in table.columns:
        if c not in checked.columns:
            checked[c] = table[c].to_numpy()
    return checked


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
        An unknown name; ``nodes`` not a whole number >= 1; a reserve that is not a finite price >= 0; a job table
        that ``simulate`` would refuse (a missing column, a run time <= 0, a repeated id, a NaN); a choice of more
        than ``nodes`` or of absent jobs, a hook that raises, or a rate that is not a finite price >= 0; naming the
        scheduler (or scheme), the job and the value.
    """
    # deferred: the table out is a DataFrame; the plugin loader imports this module at every command's start
    import pandas as pd

    sched = EVENT_SCHEDULERS.get(scheduler) if isinstance(scheduler, str) else scheduler
    if not isinstance(sched, EventScheduler):
        raise InputError(f"run_hooks: scheduler must be a registered name or an EventScheduler, got {scheduler!r}")
    pay = get_payment(payment)
    nodes = check_whole(nodes, "run_hooks: nodes", 1)  # (1.5, True and '4' were taken; int() only for the test)
    r = valid_reserve(reserve)
    if r is None:  # -1 paid jobs, NaN made every payment NaN
        raise InputError(f"run_hooks: reserve must be a finite price >= 0 and <= {MAX_RESERVE:g}, got {reserve!r}")
    table = _checked_table(table)
    ids = np.asarray(table["id"], dtype=np.int64)
    start, end, paid, npre, _ = run_schedule_hooks(table, nodes, sched, [pay], [r])
    return pd.DataFrame({"id": ids, "start": start, "end": end, "payment": paid[0], "preemptions": npre})
