"""One market run: a job table and a mechanism in, the per-job outcome and a summary out.

References
----------
.. [Shudler2010] J. Shudler, L. Amar, A. Barak and A. Mu'alem, "The effects of untruthful bids on
   user utilities and stability in computing markets", CCGrid 2010. (The market: Highest-Bid, first
   and k-th price; Algorithm 1.)
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gamemarket.bids import MAX_RESERVE, bid_bin_codes, valid_reserve
from gamemarket.errors import (
    InputError,
    check_flag,
    check_real,
    check_text,
    check_whole,
    foreign_prints,
    raised,
    real_numbers,
    shown_value,
)
from gamemarket.games.checks import same_fields
from gamemarket.io import jobtable
from gamemarket.market import engine, outcomes
from gamemarket.market.engine import MAX_JOBS, run_market, run_market_rows
from gamemarket.market.hooks import run_schedule_hooks
from gamemarket.market.payments import BLEND, get_payment
from gamemarket.market.rates import run_pricing
from gamemarket.market.schedulers import get_scheduler

if TYPE_CHECKING:  # a job table may also be a mapping of column arrays (``simulate --jobs``), without pandas
    import pandas as pd


@dataclass(frozen=True)
class Mechanism:
    """A provider mechanism of the scheduling market: scheduler x payment scheme x reservation price.

    ``payment = "blend"`` with ``blend = alpha`` in [0, 1] pays each running job, at every moment, ``alpha`` times its
    first-price rate plus ``1 - alpha`` times its k-th price rate (both with the reserve ``r``): 0 is k-th price, 1
    first price. The schedule never depends on the payment, so a blend's payment is the same blend of the two
    schemes' payments, which one engine pass computes together (``legs``).
    """

    scheduler: str = "hb"
    payment: str = "kth"
    reserve: float = 1.0
    preemption_overhead: float = 0.0  #: seconds; only 0 is implemented (the contract's reference runs)
    blend: float | None = None  #: ``alpha`` of ``payment = "blend"`` (None for any other scheme)

    def __post_init__(self) -> None:
        for name in ("reserve", "preemption_overhead", "blend"):  # numpy numbers as Python's (np.float32(0.1): 0.1)
            object.__setattr__(self, name, python_number(getattr(self, name)))
        check_text(self.scheduler, "Mechanism: scheduler (a registered scheduler's name)")
        check_text(self.payment, "Mechanism: payment (a registered payment scheme's name, or 'blend')")
        get_scheduler(self.scheduler)
        if self.payment == BLEND:
            ok = isinstance(self.blend, numbers.Real) and not isinstance(self.blend, bool)
            if not (ok and math.isfinite(self.blend) and 0 <= self.blend <= 1):
                raise InputError(f"payment 'blend': field 'blend' must be a number in [0, 1], got {self.blend!r}")
        else:
            get_payment(self.payment)
            if self.blend is not None:
                raise InputError(
                    f"field 'blend' ({self.blend!r}) applies to payment 'blend' only, not {self.payment!r}"
                )
        if valid_reserve(self.reserve) is None:
            raise InputError(f"reserve must be a number >= 0 and <= {MAX_RESERVE:g}, got {self.reserve!r}")
        check_real(self.preemption_overhead, "Mechanism: preemption_overhead (seconds)", minimum=0)
        if self.preemption_overhead != 0:
            raise InputError("preemption_overhead: only 0 (free preemption and migration) is implemented")

    def legs(self) -> list[tuple[str, float, float]]:
        """``(payment scheme, reserve, weight)`` whose weighted payments sum to this mechanism's: one leg of weight 1,
        or a blend's first-price and k-th price legs."""
        if self.payment == BLEND:
            return [("first", self.reserve, float(self.blend)), ("kth", self.reserve, 1.0 - float(self.blend))]
        return [(self.payment, self.reserve, 1.0)]

    def describe(self) -> dict:
        """The mechanism's parameters as a dict (a provider strategy's ``params`` and a task's key use it)."""
        out = {
            "scheduler": self.scheduler,
            "payment": self.payment,
            "reserve": self.reserve,
            "preemption_overhead": self.preemption_overhead,
        }
        if self.payment == BLEND:
            out["blend"] = float(self.blend)
        return out


def python_number(value):
    """A numpy number as the Python number it shows (``np.float32(0.1)``: 0.1, not 0.10000000149; ``np.int64(2)``:
    2); anything else as it is (its check names it)."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(str(value)) if np.isfinite(value) else float(value)
    return value


def paid(pay: np.ndarray, legs) -> np.ndarray:
    """A mechanism's payments from its legs' rows of ``pay`` (``run_schedule``'s, one row per leg, in order): the
    one row itself, or a blend's weighted sum."""
    if len(legs) == 1:
        return pay[0]
    return sum(w * pay[k] for k, (_, _, w) in enumerate(legs))


@dataclass(eq=False)
class RunResult:
    """One simulation's result: the per-job outcome table (``gamemarket.market.outcomes``), the provider's
    summary (revenue, utilization, welfare, preemptions, ...) and metadata about the run.

    Two results are ``==`` when their tables are equal (``DataFrame.equals``) and their summaries and metadata
    hold equal values (arrays element by element, NaN equal to NaN).
    """

    jobs: pd.DataFrame  #: per-job outcome table
    summary: dict
    meta: dict = field(default_factory=dict)

    def __eq__(self, other) -> bool:
        """Equal by value: the tables by ``DataFrame.equals``, the summaries and metadata item by item."""
        return same_fields(self, other) if type(other) is type(self) else NotImplemented

    __hash__ = None  # (mutable, equal by value)


#: keys from which a ranking sorts the two halves of the keys on two threads (numpy's sort lets go of the GIL) and
#: merges them by binary search; below it, one sort, whose cost a thread's start would not repay
SPLIT_RANK = 1 << 22


def _sorted(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order, sorted keys) of ``key`` by ``(key, index)``: a stable sort keeps index order in ties.

    Keys without ties have one sorted order, which the default (unstable, faster) sort finds; only keys with
    ties are sorted again stably. Equal to ``argsort(key, kind="stable")`` either way."""
    order = np.argsort(key)
    s = key[order]
    if (s[1:] == s[:-1]).any():
        order = np.argsort(key, kind="stable")
        s = key[order]
    return order, s


def _rank(key: np.ndarray, *, split: int = SPLIT_RANK) -> np.ndarray:
    """The rank of each job by ``(key, arrival index)``: ``rank[argsort(key, kind="stable")] = 0..J-1``, as int32
    (a run has fewer than ``engine.MAX_JOBS`` = 2^31 jobs: half the memory of a trace's int64 ranks).

    From ``split`` keys on, with two processors, the two halves are sorted side by side and merged: a job of the
    first half ranks after the second half's strictly smaller keys, one of the second half after the first
    half's keys that are not larger (arrival order in ties), the same ranks as one sort's."""
    n = len(key)
    rank = np.empty(n, np.int32)
    if n < max(split, 2) or (os.cpu_count() or 1) < 2:
        order, _ = _sorted(key)
        rank[order] = np.arange(n, dtype=np.int32)
        return rank
    h = n // 2
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.submit(_sorted, key[:h]), pool.submit(_sorted, key[h:])
        (o1, s1), (o2, s2) = first.result(), second.result()
    rank[o1] = np.arange(h, dtype=np.int32) + np.searchsorted(s2, s1, "left").astype(np.int32)
    rank[o2 + h] = np.arange(n - h, dtype=np.int32) + np.searchsorted(s1, s2, "right").astype(np.int32)
    return rank


def arrival_order(table) -> tuple[np.ndarray, bool]:
    """``(arrival, in_order)``: the table's rows in arrival order (by submit time, then id), and whether that is
    the table's own order (the usual case, where ``arrival`` is ``0..J-1``).

    It reads only the ``submit`` and ``id`` columns, so runs that differ only in their bids (a population study's
    chunk) work it out once and hand it to ``prepare`` (``order``) rather than checking the order again a run."""
    submit = np.asarray(table["submit"], dtype=np.int64)
    ids = np.asarray(table["id"], dtype=np.int64)
    d_submit = np.diff(submit)
    if ((d_submit > 0) | ((d_submit == 0) & (np.diff(ids) > 0))).all():
        return np.arange(len(submit), dtype=np.int64), True  # already in (submit, id) order: the usual case
    return np.lexsort((ids, submit)), False


def priority_keys(entry, table) -> np.ndarray:
    """A scheduler's priority keys of ``table``'s jobs: a finite float64 array of one key per job. A key function
    (a plugin's) that raises, or returns what is not that (a text, None, a list of another length), is an error
    naming the scheduler, its plugin and what it returned, not numpy's traceback where the keys are used."""
    who = f"scheduler {entry.name!r}{f' (plugin {entry.source})' if entry.source else ''}"
    n = len(table["submit"])
    try:
        with foreign_prints():  # a plugin's key function: what it prints is not the command's output
            raw = entry.key(table)
    except InputError as exc:  # (said by gamemarket's own key: PriorityKey on a column the table lacks)
        raise InputError(f"{who}: {exc}") from None
    except Exception as exc:  # the plugin's code, whatever it raised: its message, on one line
        raise InputError(f"{who}: its key function raised {raised(exc)}") from None
    array_like = isinstance(raw, (np.ndarray, list, tuple)) or hasattr(raw, "to_numpy")  # a pandas Series too
    key, problem = real_numbers(raw) if array_like else (None, None)
    if problem is not None:  # a text, a bool or an integer beyond float range in it is no key
        raise InputError(f"{who}: its key function returned {problem}; expected one real number per job ({n})")
    if key is None or key.shape != (n,):
        shown = repr(raw) if len(repr(raw)) <= 80 else repr(raw)[:80] + "..."
        got = f"shape {key.shape}" if key is not None else type(raw).__name__
        raise InputError(f"{who}: its key function returned {shown} ({got}); expected one number per job ({n})")
    bad = ~np.isfinite(key)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        job = np.asarray(table["id"])[j]
        raise InputError(f"{who}: the priority key of job {job} is {float(key[j])!r}; expected a finite number")
    return key


def prepare(table: pd.DataFrame, scheduler: str, ranks: list | None = None, *, order: tuple | None = None):
    """Arrays in arrival order and integer ranks for the engine: ``(arrival, arrays)``, with ``arrival`` the
    table's rows in arrival order and ``arrays["in_order"]`` true where that is the table's own order.

    ``ranks`` (a list, filled as it goes) keeps the ranks already computed for this table as
    ``(key, rank)`` pairs, so runs that share a table sort each distinct key once: HB and
    NPHB share one key, and every scheduler shares the bid ranking. ``order``: ``arrival_order(table)`` where
    the caller has it already (for a table with the same ``submit`` and ``id`` columns); by default it is worked
    out here. ``table``: a DataFrame or a mapping of column arrays."""
    arrival, in_order = arrival_order(table) if order is None else order
    if in_order:
        t = table
    elif hasattr(table, "iloc"):
        t = table.iloc[arrival]
    else:
        t = {c: np.asarray(v)[arrival] for c, v in table.items()}
    key = priority_keys(get_scheduler(scheduler), t)
    rw = np.ascontiguousarray(t["reported_bid"], dtype=np.float64)
    ranks = [] if ranks is None else ranks
    rank = _rank_memo(key, ranks)
    bidrank = _rank_memo(-rw, ranks)
    return arrival, dict(
        submit=np.ascontiguousarray(t["submit"], dtype=np.int64),
        runtime=np.ascontiguousarray(t["runtime"], dtype=np.int64),
        rank=rank,
        bidrank=bidrank,
        reported=rw,
        in_order=in_order,
    )


def _rank_memo(key: np.ndarray, ranks: list) -> np.ndarray:
    for known, r in ranks:
        if np.array_equal(known, key):
            return r
    r = _rank(key)
    ranks.append((key, r))
    return r


def _engine_args(table, nodes: int, scheduler: str, ranks: list | None, order: tuple | None = None):
    """(arrival, in_order, args): ``prepare``'s arrays as the engine's first seven arguments (``run_market``)."""
    arrival, a = prepare(table, scheduler, ranks, order=order)
    if len(arrival) >= MAX_JOBS:  # the engine packs a job's rank and index into one integer
        raise InputError(f"a run takes at most {MAX_JOBS - 1:,} jobs; this table has {len(arrival):,}")
    # J + 1 nodes or more never bind: every job starts on submission, no job waits, and some node is
    # always idle (N < n, so first price charges r, market model section 5); the same run needs heaps
    # of J + 1 slots however many nodes are named
    args = (
        a["submit"],
        a["runtime"],
        a["rank"],
        a["bidrank"],
        a["reported"],
        min(int(nodes), len(arrival) + 1),
        get_scheduler(scheduler).preemptive,
    )
    return arrival, a["in_order"], args


def check_nodes(nodes) -> int:
    """``nodes`` as an int: a whole number from 1 to ``2**63 - 1`` (an int, a numpy integer, or a float that is
    whole); else an :class:`InputError` naming the value. A run on 2.5 nodes ran on 2 and divided its utilization
    by 2.5; ``True`` was one node, ``"16"`` a ``TypeError`` after the whole run. (More nodes than jobs never bind:
    the engine holds at most one more than the jobs; the command line's bound is ``io.limits.MAX_NODES``.)"""
    whole = isinstance(nodes, numbers.Integral) or (isinstance(nodes, float) and nodes.is_integer())
    if isinstance(nodes, (bool, np.bool_)) or not whole or not 1 <= nodes <= MAX_INT64:
        raise InputError(f"nodes must be a whole number >= 1 and <= 2**63 - 1, got {nodes!r}")
    return int(nodes)


def check_mechanism(mechanism, what: str = "mechanism", *, default: bool = True) -> Mechanism:
    """``mechanism`` checked: a :class:`Mechanism` (or, where ``default``, None for HB + k-th price, r = 1), else an
    :class:`InputError` naming ``what`` and the value (a name such as ``'hb-kth'`` was an AttributeError in
    ``simulate_many``, and ``''`` ran the default mechanism)."""
    if mechanism is None and default:
        return Mechanism()
    if not isinstance(mechanism, Mechanism):
        raise InputError(f"{what} must be a Mechanism (scheduler, payment, reserve), got {shown_value(mechanism)}")
    return mechanism


#: the largest node count a run takes (an int64)
MAX_INT64 = 2**63 - 1


def _check_run(nodes: int, scheduler: str, pricing: Sequence[tuple[str, float]]):
    """The payment-scheme entries and reserves of a run, after checking its nodes and names."""
    check_nodes(nodes)
    get_scheduler(scheduler)
    schemes = [get_payment(p) for p, _ in pricing]  # the schemes' entries: a code, or a plugin's rate function
    reserves = np.array([float(r) for _, r in pricing], dtype=np.float64)
    if len(schemes) == 0:
        raise InputError(f"scheduler {scheduler!r}: no payment scheme to run")
    return schemes, reserves


def run_schedule(
    table: pd.DataFrame,
    nodes: int,
    scheduler: str,
    pricing: Sequence[tuple[str, float]],
    *,
    ranks: list | None = None,
    order: tuple | None = None,
):
    """One engine pass of ``scheduler`` that pays under every (payment scheme, reservation price) of ``pricing``.

    Returns (start, end, payment, preemptions, steps) in job-table order, with ``payment`` a K x J array:
    row k is the payment under ``pricing[k]``, bit for bit what a run with that pair alone returns (the
    schedule never depends on the payment scheme or the reservation price; ``engine.run_market``).
    ``ranks`` shares sorted keys between runs on the same table, and ``order`` the table's arrival order between
    runs on tables with the same jobs (``prepare``).
    """
    schemes, reserves = _check_run(nodes, scheduler, pricing)
    hooks = get_scheduler(scheduler).hooks
    if hooks is not None:  # an event-hook scheduler (market.hooks): its own pure-Python loop, no priority key
        return run_schedule_hooks(table, int(nodes), hooks, schemes, reserves)
    arrival, in_order, args = _engine_args(table, nodes, scheduler, ranks, order)
    if len(arrival) == 0:
        e = np.empty(0, np.int64)
        return e, e, np.empty((len(schemes), 0)), e, 0
    if any(e.rate is not None for e in schemes):  # a plugin's rate function: its own engine (rates.run_pricing)

        def job_id(j: int) -> int:  # a job's id from its arrival index, for an error's message
            return int(np.asarray(table["id"])[arrival[j]])

        start, end, pay, npre, steps = run_pricing(*args, schemes, reserves, nodes=int(nodes), job_id=job_id)
    else:
        start, end, pay, npre, steps = run_market(*args, np.array([e.code for e in schemes], np.int64), reserves)
    if in_order:  # the table is in arrival order already: the engine's arrays are in its order
        return start, end, pay, npre, steps
    inv = np.empty_like(arrival)
    inv[arrival] = np.arange(len(arrival))
    return start[inv], end[inv], pay[:, inv], npre[inv], steps


def _engine_parts(table, nodes: int, mechanism: Mechanism):
    """(part, J, steps) of one run: ``part(lo, hi)`` gives (start, end, payment, preemptions) of the job table's
    rows ``lo:hi``, read from the engine's per-job rows (``engine.run_market_rows``) without copying them into
    whole columns; a plugin's payment scheme or event-hook scheduler runs as ``run_schedule`` does, and its
    columns are sliced."""
    if mechanism.payment == BLEND:  # two legs: the whole columns, sliced
        start, end, pay, npre, steps = run_arrays(table, nodes, mechanism)
        return (lambda lo, hi: (start[lo:hi], end[lo:hi], pay[lo:hi], npre[lo:hi])), len(start), steps
    schemes, reserves = _check_run(nodes, mechanism.scheduler, [(mechanism.payment, mechanism.reserve)])
    if schemes[0].rate is not None or get_scheduler(mechanism.scheduler).hooks is not None:
        start, end, pay, npre, steps = run_arrays(table, nodes, mechanism)
        return (lambda lo, hi: (start[lo:hi], end[lo:hi], pay[lo:hi], npre[lo:hi])), len(start), steps
    arrival, in_order, args = _engine_args(table, nodes, mechanism.scheduler, None)
    J = len(arrival)
    if J == 0:
        e = np.empty(0, np.int64)
        return (lambda lo, hi: (e, e, np.empty(0), e)), 0, 0
    inv = None
    if not in_order:
        inv = np.empty_like(arrival)
        inv[arrival] = np.arange(J)
    del arrival  # in arrival order already, it is 0..J-1: 8 bytes a job the run need not hold
    ji, jf, steps = run_market_rows(*args, np.array([schemes[0].code], np.int64), reserves)
    del args  # the ranks (and any reordered copy of the table's columns) are not needed past the run
    pay_col = engine.FLOATS + 1  # K = 1: one rate cap, then the payment

    def part(lo: int, hi: int):
        rows = slice(lo, hi) if inv is None else inv[lo:hi]
        return ji[rows, engine.START], ji[rows, engine.END], jf[rows, pay_col], ji[rows, engine.NPRE]

    def scratch(dtype):
        # a column of the rows that the run no longer needs (running since) is the summary's buffer: 8 bytes a
        # job that need not be allocated again
        return ji.view(dtype)[:, engine.SINCE * (8 // np.dtype(dtype).itemsize)]

    part.scratch = scratch
    return part, J, steps


def simulate_to_file(table, nodes: int, mechanism: Mechanism | None, path, *, rows: int = outcomes.STREAM_ROWS) -> dict:
    """``simulate_columns`` with the per-job outcome written to ``path`` (Parquet or CSV by its extension) in
    slices of ``rows`` jobs as it is computed, never whole in memory: the file holds ``simulate``'s per-job
    numbers, and the summary returned is ``simulate``'s to the last bit. Beyond the job table, a run keeps
    about 70 bytes per job (the engine's row of 64 bytes, which also serves as the summary's buffer, the
    ranks and the two group codes), which is how a trace of 16 million serial jobs runs in a few GB
    (``benchmarks/bench_simulator.py --scale``).

    Parameters
    ----------
    table : a validated job table: a DataFrame or a mapping of column arrays (``jobtable.read_columns``)
    nodes : number of nodes ``n``
    mechanism : scheduler, payment scheme and reservation price (default HB + k-th price, r = 1)
    path : the per-job table's file (.parquet, .pq or .csv)
    rows : jobs per slice (and per Parquet row group)

    Returns
    -------
    dict
        The run's summary (``outcomes.summary``, with ``allocation_steps``).
    """
    jobtable.check_table_path(path)
    return _streamed(table, nodes, mechanism, path, rows)


def simulate_summary(table, nodes: int, mechanism: Mechanism | None = None) -> dict:
    """``simulate``'s summary, to the last bit, without the per-job outcome: it is computed slice by slice and
    summed column by column (``outcomes.streamed_summary``), as ``simulate_to_file`` does, with nothing written.
    What ``gamemarket simulate`` runs where no ``--out`` asks for the per-job table.

    Parameters
    ----------
    table : a validated job table: a DataFrame or a mapping of column arrays
    nodes : number of nodes ``n``
    mechanism : scheduler, payment scheme and reservation price (default HB + k-th price, r = 1)
    """
    return _streamed(table, nodes, mechanism, None, outcomes.STREAM_ROWS)


def _streamed(table, nodes: int, mechanism: Mechanism | None, path, rows: int) -> dict:
    """The summary of one run whose per-job outcome is made in slices of ``rows`` jobs, and written to ``path``
    where given."""
    mechanism = check_mechanism(mechanism)
    rows = check_whole(rows, "rows (jobs per slice)", 1)  # (read with int() before: 2.5 was 2, "x" a ValueError)
    runtime = np.asarray(table["runtime"], dtype=np.int64)
    codes = outcomes.runtime_group_codes(runtime, np.asarray(table["id"], dtype=np.int64))
    del runtime  # a copy where the table's run times are not int64: 8 bytes a job the run need not hold
    bid_codes = bid_bin_codes(np.asarray(table["private_bid"], dtype=np.float64))
    part, J, steps = _engine_parts(table, nodes, mechanism)

    def parts(only=None):
        return outcomes.per_job_parts(table, part, J, runtime_codes=codes, bid_codes=bid_codes, rows=rows, only=only)

    summ = outcomes.streamed_summary(parts, table, J, int(nodes), getattr(part, "scratch", None))
    summ["allocation_steps"] = int(steps)
    if path is not None:
        outcomes.write_per_job(path, parts())
    return summ


def run_arrays(table: pd.DataFrame, nodes: int, mechanism: Mechanism, *, order: tuple | None = None):
    """Engine outputs (start, end, payment, preemptions) in job-table order, and the step count; ``order``:
    ``arrival_order(table)``, where many runs on the same jobs have it already (``prepare``)."""
    legs = mechanism.legs()
    start, end, pay, npre, steps = run_schedule(table, nodes, mechanism.scheduler, [lg[:2] for lg in legs], order=order)
    return start, end, paid(pay, legs), npre, steps


def _result(
    table, nodes, mechanism, start, end, pay, npre, steps, groups=None, bid_codes=None, columns=False
) -> RunResult:
    per_job = outcomes.per_job_columns if columns else outcomes.per_job
    jobs = per_job(table, start, end, pay, npre, runtime_codes=groups, bid_codes=bid_codes)
    summ = outcomes.summary(jobs, nodes)
    summ["allocation_steps"] = int(steps)
    return RunResult(jobs=jobs, summary=summ, meta={"mechanism": mechanism.describe(), "nodes": int(nodes)})


def simulate_columns(columns, nodes: int, mechanism: Mechanism | None = None) -> tuple[dict, dict]:
    """``simulate`` without pandas, on a validated job table given as column arrays
    (``jobtable.read_columns``): the per-job outcome as columns (``outcomes.per_job_columns``: the same
    numbers as ``simulate``'s table, categoricals as codes) and the summary (equal to ``simulate``'s)."""
    mechanism = check_mechanism(mechanism)
    start, end, pay, npre, steps = run_arrays(columns, nodes, mechanism)
    jobs = outcomes.per_job_columns(columns, start, end, pay, npre)
    summ = outcomes.summary(jobs, nodes)
    summ["allocation_steps"] = int(steps)
    return jobs, summ


def simulate_many(
    table: pd.DataFrame,
    nodes: int,
    mechanisms: Sequence[Mechanism],
    *,
    validate: bool = True,
    columns: bool = False,
) -> list[RunResult]:
    """Simulate one market run per mechanism, with one engine pass per scheduler.

    The mechanisms that share a scheduler share its schedule, so their payment schemes and reservation
    prices are all paid in that scheduler's one pass (``run_schedule``). Each result equals, column for
    column, ``simulate(table, nodes, mechanism)``.

    Parameters
    ----------
    table : a section-8 job table (a DataFrame, or a mapping of column arrays where ``validate`` is off)
    nodes : number of nodes ``n``
    mechanisms : the mechanisms to run (a list of at least one ``Mechanism``), in the order of the returned results
    validate : check the job table first (disable only for tables already validated)
    columns : give each result's per-job outcome as column arrays (``outcomes.per_job_columns``: the same
        numbers, categoricals as codes) rather than a DataFrame; a study's runs, which only sum them,
        skip building a table per run
    """
    if isinstance(mechanisms, (str, Mechanism)) or not isinstance(mechanisms, Sequence):
        raise InputError(
            f"mechanisms must be a list of Mechanism (scheduler, payment, reserve), got {shown_value(mechanisms)}"
        )
    if len(mechanisms) == 0:  # nothing to run is a mistake, not an answer of no runs
        raise InputError("mechanisms: expected at least one mechanism, got []")
    mechanisms = [check_mechanism(m, f"mechanisms[{i}]", default=False) for i, m in enumerate(mechanisms)]
    nodes = check_nodes(nodes)
    validate = check_flag(validate, "simulate_many: validate")
    columns = check_flag(columns, "simulate_many: columns")
    if validate:
        table = jobtable.validate(table)
    groups = outcomes.runtime_group_codes(
        np.asarray(table["runtime"], dtype=np.int64), np.asarray(table["id"], dtype=np.int64)
    )
    bid_codes = bid_bin_codes(np.asarray(table["private_bid"], dtype=np.float64))
    out: list[RunResult | None] = [None] * len(mechanisms)
    by_scheduler: dict[str, list[int]] = {}
    for i, m in enumerate(mechanisms):
        by_scheduler.setdefault(m.scheduler, []).append(i)
    ranks: list = []
    for scheduler, idx in by_scheduler.items():
        legs = [mechanisms[i].legs() for i in idx]
        pricing = [lg[:2] for m_legs in legs for lg in m_legs]
        start, end, pay, npre, steps = run_schedule(table, nodes, scheduler, pricing, ranks=ranks)
        row = 0
        for i, m_legs in zip(idx, legs):
            p = paid(pay[row : row + len(m_legs)], m_legs)
            row += len(m_legs)
            out[i] = _result(table, nodes, mechanisms[i], start, end, p, npre, steps, groups, bid_codes, columns)
    return out


def simulate(
    table: pd.DataFrame, nodes: int, mechanism: Mechanism | None = None, *, validate: bool = True
) -> RunResult:
    """Simulate one market run.

    Parameters
    ----------
    table : a section-8 job table (``gamemarket.bids.job_table`` makes one from a workload)
    nodes : number of nodes ``n``
    mechanism : scheduler, payment scheme and reservation price (default HB + k-th price, r = 1)
    validate : check the job table first (disable only for tables already validated)
    """
    mechanism = check_mechanism(mechanism)
    nodes = check_nodes(nodes)
    if check_flag(validate, "simulate: validate"):
        table = jobtable.validate(table)
    return _result(table, nodes, mechanism, *run_arrays(table, nodes, mechanism))
