"""One market run: a job table and a mechanism in, the per-job outcome and a summary out.

References
----------
.. [Shudler2010] J. Shudler, L. Amar, A. Barak and A. Mu'alem, "The effects of untruthful bids on
   user utilities and stability in computing markets", CCGrid 2010. (The market: Highest-Bid, first
   and k-th price; Algorithm 1.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gamemarket.io import jobtable
from gamemarket.market import outcomes
from gamemarket.errors import InputError
from gamemarket.market.engine import run_market
from gamemarket.market.payments import get_payment
from gamemarket.market.schedulers import get_scheduler


@dataclass(frozen=True)
class Mechanism:
    """A provider mechanism of the scheduling market: scheduler x payment scheme x reservation price."""

    scheduler: str = "hb"
    payment: str = "kth"
    reserve: float = 1.0
    preemption_overhead: float = 0.0  #: seconds; only 0 is implemented (the contract's reference runs)

    def __post_init__(self) -> None:
        get_scheduler(self.scheduler)
        get_payment(self.payment)
        if not (math.isfinite(self.reserve) and self.reserve >= 0):
            raise InputError(f"reserve must be a finite number >= 0, got {self.reserve!r}")
        if self.preemption_overhead != 0:
            raise InputError("preemption_overhead: only 0 (free preemption and migration) is implemented")

    def describe(self) -> dict:
        return {
            "scheduler": self.scheduler,
            "payment": self.payment,
            "reserve": self.reserve,
            "preemption_overhead": self.preemption_overhead,
        }


@dataclass
class RunResult:
    jobs: pd.DataFrame  #: per-job outcome table
    summary: dict
    meta: dict = field(default_factory=dict)


def _rank(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank, order) of jobs by ``(key, arrival index)``: a stable sort keeps arrival order in ties."""
    order = np.argsort(key, kind="stable").astype(np.int64)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank, order


def prepare(table: pd.DataFrame, scheduler: str):
    """Arrays in arrival order and integer ranks for the engine."""
    submit = table["submit"].to_numpy(np.int64)
    ids = table["id"].to_numpy(np.int64)
    d_submit = np.diff(submit)
    if ((d_submit > 0) | ((d_submit == 0) & (np.diff(ids) > 0))).all():
        arrival = np.arange(len(submit), dtype=np.int64)  # already in (submit, id) order: the usual case
        t = table
    else:
        arrival = np.lexsort((ids, submit))
        t = table.iloc[arrival]
    key = get_scheduler(scheduler).key(t)
    if not np.isfinite(key).all():
        raise InputError(f"scheduler {scheduler!r}: a priority key is not finite")
    rw = np.ascontiguousarray(t["reported_bid"].to_numpy(np.float64))
    neg_rw = -rw
    rank, order = _rank(key)
    if np.array_equal(key, neg_rw):
        bidrank, bidorder = rank, order
    else:
        bidrank, bidorder = _rank(neg_rw)
    return arrival, dict(
        submit=np.ascontiguousarray(t["submit"].to_numpy(np.int64)),
        runtime=np.ascontiguousarray(t["runtime"].to_numpy(np.int64)),
        rank=rank,
        order=order,
        bidrank=bidrank,
        bidorder=bidorder,
        reported=rw,
    )


def run_arrays(table: pd.DataFrame, nodes: int, mechanism: Mechanism):
    """Engine outputs (start, end, payment, preemptions) in job-table order, and the step count."""
    if int(nodes) < 1:
        raise InputError(f"nodes must be >= 1, got {nodes}")
    sched = get_scheduler(mechanism.scheduler)
    scheme = get_payment(mechanism.payment)
    arrival, a = prepare(table, mechanism.scheduler)
    if len(arrival) == 0:
        e = np.empty(0, np.int64)
        return e, e, np.empty(0), e, 0
    # J + 1 nodes or more never bind: every job starts on submission, no job waits, and some node is
    # always idle (N < n, so first price charges r, market model section 5); the same run needs heaps
    # of J + 1 slots however many nodes are named
    args = (
        a["submit"],
        a["runtime"],
        a["rank"],
        a["order"],
        a["bidrank"],
        a["bidorder"],
        a["reported"],
        min(int(nodes), len(arrival) + 1),
        sched.preemptive,
    )
    start, end, pay, npre, steps = run_market(*args, scheme.code, float(mechanism.reserve))
    inv = np.empty_like(arrival)
    inv[arrival] = np.arange(len(arrival))
    return start[inv], end[inv], pay[inv], npre[inv], steps


def simulate(table: pd.DataFrame, nodes: int, mechanism: Mechanism | None = None, validate: bool = True) -> RunResult:
    """Simulate one market run.

    Parameters
    ----------
    table : a section-8 job table (``gamemarket.bids.job_table`` makes one from a workload)
    nodes : number of nodes ``n``
    mechanism : scheduler, payment scheme and reservation price (default HB + k-th price, r = 1)
    validate : check the job table first (disable only for tables already validated)
    """
    mechanism = mechanism or Mechanism()
    if validate:
        table = jobtable.validate(table)
    start, end, pay, npre, steps = run_arrays(table, nodes, mechanism)
    jobs = outcomes.per_job(table, start, end, pay, npre)
    summ = outcomes.summary(jobs, nodes)
    summ["allocation_steps"] = int(steps)
    return RunResult(jobs=jobs, summary=summ, meta={"mechanism": mechanism.describe(), "nodes": int(nodes)})
