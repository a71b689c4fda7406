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
    H += np.bincount(s2u * m + s2u, weights=wu, minlength=m * m)
    inner = s1u >= 0
    H += np.bincount(s1u[inner] * m + s1u[inner], weights=wu[inner], minlength=m * m)
    H -= np.bincount(s1u[inner] * m + s2u[inner], weights=wu[inner], minlength=m * m)
    H -= np.bincount(s2u[inner] * m + s1u[inner], weights=wu[inner], minlength=m * m)
    return dual, grad, alloc, t, H.reshape(m, m)
