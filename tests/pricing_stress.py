"""The price-discovery stress family and a certified CVXPY/Clarabel reference (tests and benchmark).

The family (reliability issue): efficiencies heavy-tailed over three or more decades (log-normal),
every utility with alpha from 0.5 to 50, zero entries and tied columns, capacities from scarce to
ample (so that some prices are zero at the optimum), weights and demands that vary by job.

The reference is certified rather than trusted: Clarabel's allocation, made feasible, is a lower
bound on the optimum, and our dual function at Clarabel's prices an upper bound; when the two
meet, the optimum is known to that precision whatever the solver's own status says.
"""

from __future__ import annotations

import numpy as np

from gamemarket.pricing.problem import Problem

UTILITIES = ("linear", "log", "target", "alpha:0.5", "alpha:2", "alpha:5", "alpha:20", "alpha:50")


def stress_problem(
    n: int,
    m: int,
    utility: str,
    seed: int,
    *,
    sigma: float = 1.5,
    capacity: float = 1.0,
    zeros: float = 0.0,
    tied: bool = False,
) -> Problem:
    """One member: ``A`` log-normal with log-sd ``sigma`` (1.5 spans about four decades), a share
    ``zeros`` of zero entries (every job keeps one positive entry), optionally column 1 a copy of
    column 0, and capacities ``capacity * U(0.2, 1) * n / m`` (0.3: scarce; 3: some resources idle)."""
    rng = np.random.default_rng(seed)
    A = np.exp(rng.normal(0.0, sigma, (n, m)))
    if zeros:
        A[rng.random((n, m)) < zeros] = 0.0
    if tied and m > 1:
        A[:, 1] = A[:, 0]
    dead = A.max(axis=1) == 0
    A[dead, rng.integers(0, m, int(dead.sum()))] = np.exp(rng.normal(0.0, sigma, int(dead.sum())))
    R = capacity * rng.uniform(0.2, 1.0, m) * n / m
    kw = dict(weight=rng.uniform(0.5, 2.0, n), demand=rng.uniform(0.5, 1.5, n))
    if utility == "target":
        kw["target"] = np.quantile(A.max(axis=1), 0.5) * rng.uniform(0.1, 0.5, n)
    return Problem(A, R, utility, **kw)


def certified_reference(pr: Problem) -> tuple[float, float] | None:
    """(lower, upper) bounds on the optimum from Clarabel's answer, or None when Clarabel gives none.

    Power utilities are solved with throughputs rescaled by their median best-case value, as
    Clarabel needs for large alpha; the bounds are computed in the problem's own units.
    """
    import cvxpy as cp

    from gamemarket.pricing.dual import evaluate
    from gamemarket.pricing.envelope import sort_efficiencies

    n, m = pr.shape
    u = pr.utility
    s = float(np.median(pr.A.max(axis=1)))
    X = cp.Variable((n, m), nonneg=True)
    t = cp.sum(cp.multiply(pr.A / s, X), axis=1)
    if u.name == "log":
        obj = cp.sum(cp.multiply(u.w, cp.log(t)))
    elif u.name == "linear":
        obj = u.w @ t
    elif u.name == "target":
        obj = -u.w @ cp.pos(u.t_des / s - t)
    else:
        obj = cp.sum(cp.multiply(u.w / (1 - u.alpha), cp.power(t, 1 - u.alpha, approx=False)))
    cons = [cp.sum(X, axis=1) <= 1, X.T @ pr.demand <= pr.R]
    prob = cp.Problem(cp.Maximize(obj), cons)
    try:
        prob.solve(solver="CLARABEL", max_iter=500)
    except cp.error.SolverError:
        return None
    if X.value is None or cons[1].dual_value is None:
        return None
    Xc = np.maximum(X.value, 0.0)
    Xc = Xc / np.maximum(Xc.sum(axis=1, keepdims=True), 1.0)
    use = pr.demand @ Xc
    Xc = Xc * np.where(use > pr.R, pr.R / np.maximum(use, 1e-300), 1.0)
    with np.errstate(divide="ignore"):
        lower = float(np.sum(u.value((pr.A * Xc).sum(axis=1))))
    # the objective in rescaled units is u(t / s); its prices map back by u's homogeneity
    if u.name in ("log", "linear", "target"):
        unit = 1.0 if u.name == "log" else s
    else:
        unit = s ** (1 - u.alpha)
    prices = np.maximum(np.asarray(cons[1].dual_value, dtype=float) * unit, 0.0)
    upper = float(evaluate(pr, prices, sort_efficiencies(pr.A), np.ascontiguousarray(pr.A))[0])
    if not (np.isfinite(lower) and np.isfinite(upper)):
        return None
    return lower, upper
