"""Resources of capacity 0 (``R_j = 0``, which pricing model section 1 allows: ``R`` in ``R^m_+``): solved
without them, and priced above every job's value of them.

No job can use such a resource (``X^T d <= R`` with ``d > 0`` and ``X >= 0`` forces its column to 0), so the
problem without it has the same feasible allocations and the same optimum; its dual bound is a bound of the
original. Its price is any price at which no job's subproblem asks for it; the one given here is the least such
price found by doubling from the largest marginal value ``u_i'(t_i) a_ij / d_i`` of the answer's throughputs (at
least its floor), checked on the whole problem's dual, so the whole price vector clears the market as well.
"""

from __future__ import annotations

import copy

import numpy as np

from gamemarket.errors import GameMarketError, InputError
from gamemarket.pricing.allocation import Allocation
from gamemarket.pricing.certificate import check_weak_duality, magnitude
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.problem import Problem
from gamemarket.pricing.result import Result

#: doublings of a zero-capacity resource's price before giving up on making every job leave it (each doubles it)
MAX_DOUBLINGS = 200


def available(problem: Problem) -> np.ndarray:
    """The indices of the resources of capacity > 0."""
    return np.flatnonzero(problem.R > 0)


def without_empty(problem: Problem, keep: np.ndarray) -> Problem:
    """The problem on the resources ``keep`` alone (the utility copied, its per-job parameters kept)."""
    util = copy.copy(problem.utility)
    return Problem(
        problem.A[:, keep],
        problem.R[keep],
        util,
        demand=problem.demand,
        weight=util.w,
        target=getattr(util, "t_des", None),
    )


def _expand(alloc: Allocation, keep: np.ndarray, m: int) -> Allocation:
    """A reduced problem's allocation with the original resources' indices (``-1``, unused, kept)."""

    def index(j):
        j = np.asarray(j, dtype=np.int64)
        return np.where(j >= 0, keep[np.maximum(j, 0)], -1)

    extra = None
    if alloc.extra is not None:
        jobs, res, x = alloc.extra
        extra = (jobs, keep[np.asarray(res, dtype=np.int64)], x)
    return Allocation(index(alloc.j1), alloc.x1, index(alloc.j2), alloc.x2, m, extra)


def _unsmoothed(problem: Problem) -> Problem:
    """A shallow copy of ``problem`` whose utility (a copy) is the original, unsmoothed one (``mu = 0``)."""
    whole = copy.copy(problem)
    whole.utility = copy.copy(problem.utility)
    whole.utility.mu = 0.0
    return whole


def clearing_prices(problem: Problem, p: np.ndarray, empty: np.ndarray, throughput: np.ndarray) -> np.ndarray:
    """``p`` with each resource in ``empty`` (capacity 0) priced where no job's subproblem uses it: from the
    largest ``u_i'(t_i) a_ij / d_i`` (its floor, ``p[j]``, at least), doubled until the whole problem's
    ``x(p)`` leaves every one of them unused. A :class:`GameMarketError` where no price does (a utility of unbounded
    marginal value)."""
    p = np.array(p, dtype=np.float64)
    whole = _unsmoothed(problem)
    util = whole.utility
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (non-finite: said below)
        marginal = np.asarray(util.marginal(throughput), dtype=np.float64)
    # a job of weight 0 is worth 0 whatever it gets: it wants nothing (hunt 24b-F4: its marginal value 0 x inf refused a
    # problem whose only job on a capacity-0 resource had weight 0)
    weighted = np.broadcast_to(np.asarray(util.w, dtype=float), (problem.A.shape[0],)) > 0
    for j in empty:
        wants = (problem.A[:, j] > 0) & weighted
        unbounded = wants & ~np.isfinite(marginal)
        if unbounded.any():
            i = int(np.flatnonzero(unbounded)[0])
            raise InputError(
                f"resource {int(j)} has capacity 0, and job {i}, whose throughput is {throughput[i]:.6g} without it, "
                f"values it without bound (the {util.name} utility's marginal value there is infinite): no finite "
                "price keeps the job off it; give the resource a capacity > 0 or the job an efficiency > 0 elsewhere"
            )
        value = np.where(wants, marginal, 0.0) * problem.A[:, j] / problem.demand
        p[j] = max(p[j], float(value.max(initial=0.0)), np.finfo(float).tiny)
    A = np.ascontiguousarray(problem.A, dtype=np.float64)
    order = sort_efficiencies(A)
    for _ in range(MAX_DOUBLINGS):
        alloc = evaluate(whole, p, order, A)[2]
        used = alloc.usage_unchecked(problem.demand)[empty] > 0
        if not used.any():
            return p
        p[empty[used]] *= 2.0
    raise GameMarketError(f"resources {empty.tolist()} of capacity 0: no price keeps every job off them")


def solve_available(problem: Problem, solve_reduced, lo: np.ndarray, p0: np.ndarray | None) -> Result:
    """``problem`` solved by ``solve_reduced(reduced, p_min, p0)`` on its resources of capacity > 0, the answer
    given on all of its resources (the others unused, priced by ``clearing_prices``). Objective, dual bound and gap
    are the reduced problem's: its optimum is the original's."""
    n, m = problem.shape
    keep = available(problem)
    empty = np.setdiff1d(np.arange(m), keep)
    if len(keep) == 0:
        return _nothing_to_allocate(problem, lo, empty)
    r = solve_reduced(without_empty(problem, keep), lo[keep], None if p0 is None else p0[keep])
    prices = np.array(lo, dtype=np.float64)
    prices[keep] = r.prices
    prices = clearing_prices(problem, prices, empty, r.throughput)
    words = f"resource(s) {empty.tolist()} of capacity 0 left unused, priced above every job's value of them"
    return Result(
        _expand(r.allocation, keep, m),
        prices,
        r.throughput,
        r.objective,
        r.dual,
        r.gap,
        r.iterations,
        r.evaluations,
        r.converged,
        r.seconds,
        r.rows,
        f"{r.message} ({words})",
    )


def _nothing_to_allocate(problem: Problem, lo: np.ndarray, empty: np.ndarray) -> Result:
    """Every resource of capacity 0: the one feasible allocation gives no job anything (a utility that is
    ``-inf`` there is refused by :class:`Problem`); its prices keep every job off, and the dual there equals
    the objective (a gap of 0, up to rounding)."""
    n, m = problem.shape
    none = np.full(n, -1, dtype=np.int64)
    alloc = Allocation(none, np.zeros(n), none.copy(), np.zeros(n), m)
    t = np.zeros(n)
    prices = clearing_prices(problem, lo, empty, t)
    whole = _unsmoothed(problem)
    util = whole.utility
    A = np.ascontiguousarray(problem.A, dtype=np.float64)
    dual = evaluate(whole, prices, sort_efficiencies(A), A)[0]
    objective = float(np.sum(util.value(t)))
    scale = magnitude(np.asarray(util.value(t), dtype=np.float64), dual, objective, prices, problem.R)
    check_weak_duality(dual, objective, scale, util, n)  # below zero only by rounding, which is clamped
    gap = max(dual - objective, 0.0)
    message = f"every resource has capacity 0: no job is allocated anything (gap {gap:.3g})"
    return Result(alloc, prices, t, objective, dual, gap, 0, 1, True, 0.0, [], message)
