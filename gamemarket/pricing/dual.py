"""The dual of price discovery at given prices: its value, gradient, the (possibly infeasible) allocation
``x(p)`` and, on request, its exact Hessian."""

from __future__ import annotations

import numpy as np

from gamemarket.pricing.allocation import Allocation
from gamemarket.pricing.envelope import allocate, envelope_arrays, segment, slopes, solve_jobs
from gamemarket.pricing.problem import Problem


def evaluate(
    problem: Problem, p: np.ndarray, order: np.ndarray, A64: np.ndarray, hessian: bool = False, fast: bool = True
):
    """Dual value, gradient and the (possibly infeasible) allocation ``x(p)``; with ``hessian``
    also the dual's Hessian (None when the utility gives no ``best_response_slope``). Built-in
    utilities run through the fused kernel ``envelope.solve_jobs`` unless ``fast=False``.

    The Hessian is exact where each job's throughput is interior to its envelope segment: there
    ``t = h(S)`` with ``S = d (p_j2 - p_j1) / (a_j2 - a_j1)``, so each such job adds the rank-one term
    ``-h'(S) d^2 v v^T`` with ``v = (e_j2 - e_j1) / (a_j2 - a_j1)``; jobs at a vertex add nothing.
    """
    util = problem.utility
    fused = util.fused() if (fast and not hessian) else None
    if fused is not None:
        code, alpha, td = fused
        n = A64.shape[0]
        t = np.empty(n)
        j1 = np.empty(n, np.int64)
        j2 = np.empty(n, np.int64)
        x1, x2, cost, u = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
        solve_jobs(
            A64,
            order,
            np.ascontiguousarray(p, dtype=np.float64),
            problem.demand,
            code,
            util.w,
            float(alpha),
            float(util.mu),
            td,
            t,
            j1,
            x1,
            j2,
            x2,
            cost,
            u,
        )
    else:
        T, C, idx, K = envelope_arrays(A64, order, p, problem.demand)
        S = slopes(T, C, K)
        t = util.maximize(T, S, K)
        j1, x1, j2, x2, cost = allocate(t, T, C, idx, K)
        with np.errstate(divide="ignore"):
            u = util.value(t)
    dual = float(np.sum(u - cost) + p @ problem.R)
    alloc = Allocation(j1, x1, j2, x2, problem.shape[1])
    grad = problem.R - alloc.usage_unchecked(problem.demand)
    if not hessian:
        return dual, grad, alloc, t
    T, C, idx, K = envelope_arrays(A64, order, p, problem.demand)
    m = problem.shape[1]
    s1, s2, a1, a2, slope, interior = segment(t, T, C, idx, K)
    hp = problem.utility.best_response_slope(np.where(interior, slope, 1.0))
    if hp is None:
        return dual, grad, alloc, t, None
    with np.errstate(all="ignore"):
        wgt = np.where(interior, -hp * problem.demand**2 / (a2 - a1) ** 2, 0.0)
    wgt = np.where(np.isfinite(wgt), wgt, 0.0)
    H = np.zeros(m * m)
    use = wgt > 0
    s1u, s2u, wu = s1[use].astype(np.int64), s2[use].astype(np.int64), wgt[use]
    inner = s1u >= 0
    for sign, cells, w in (
        (1.0, s2u * m + s2u, wu),
        (1.0, s1u[inner] * m + s1u[inner], wu[inner]),
        (-1.0, s1u[inner] * m + s2u[inner], wu[inner]),
        (-1.0, s2u[inner] * m + s1u[inner], wu[inner]),
    ):
        _add_sums(H, cells, w, sign)
    return dual, grad, alloc, t, H.reshape(m, m)


def _add_sums(H: np.ndarray, cells: np.ndarray, w: np.ndarray, sign: float) -> None:
    """``H += sign * np.bincount(cells, w, minlength=len(H))`` on the cells named alone, with the same sums (bincount
    adds each cell's weights in the order given): the full ``m * m`` counts took 2 s a Hessian at m = 10,000, past a
    time limit (hunt 28c's sibling), for at most four cells a job."""
    if len(cells) == 0:
        return
    named, at = np.unique(cells, return_inverse=True)
    sums = np.bincount(at, weights=w, minlength=len(named))
    if sign > 0:
        H[named] += sums
    else:
        H[named] -= sums
