"""The certificate a solve stands on, checked both ways: weak duality (a dual bound is never below the value of a
feasible allocation, beyond rounding) and the allocation's feasibility (every constraint within tolerance).

Any price vector's dual value ``g(p)`` bounds every feasible allocation's objective from above (pricing model section
3), so a gap ``g(p) - sum_i u_i(t_i)`` below zero beyond rounding proves the dual wrong: a utility whose
``best_response`` does not maximize ``u(t) - s t`` (or whose ``value`` overstates ``u``). Such a gap used to pass the
stopping test ``gap <= eps`` as "converged" (hunt 18b-F7: a custom utility, gap -13.7, an objective below the optimum).
"""

from __future__ import annotations

import numpy as np

from gamemarket.errors import GameMarketError, InputError
from gamemarket.pricing.allocation import check_feasible

#: the built-in utilities' class names: a violation with one of them is a bug of the solver, with any other (a
#: custom ``Utility``) it is that utility's own error
BUILT_IN = frozenset({"Linear", "Power", "Log", "Target"})
#: the tolerance of weak duality relative to the magnitudes summed (``scale``), per compute precision: the dual and
#: the objective are sums of ``n`` terms, each a few roundings off, whose worst-case rounding is ``n u`` relative to
#: the terms' magnitudes (unit roundoff ``u``: 1.1e-16 in float64, 6e-8 in float32). The floor (1e-9 in float64, 1e-4
#: in float32) covers ``n u`` up to 10^7 jobs, beyond the paper's largest instances; above it the ``4 n u`` bound
#: itself. Well below every gap a wrong best response makes (the F7 case: -13.7 on magnitudes of about 20).
REL_TOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}
#: the feasibility tolerance of a returned allocation (``allocation.check_feasible``: relative to each capacity)
FEASIBLE_TOL = 1e-9


def duality_tolerance(scale: float, n: int, dtype=np.float64) -> float:
    """The rounding allowed to a gap below zero: ``max(REL_TOL, 4 n u) * scale`` for the compute ``dtype``."""
    dt = np.dtype(dtype)
    u = float(np.finfo(dt).eps) / 2
    return max(REL_TOL.get(dt, 1e-4), 4.0 * n * u) * max(scale, 1e-300)


def magnitude(values, dual: float, primal: float, prices, R) -> float:
    """The size of the sums a gap compares: the utilities' magnitudes ``sum_i |u_i(t_i)|``, ``|dual|``,
    ``|primal|`` and the prices' value of the capacity ``p^T R`` (the dual's largest term)."""
    with np.errstate(all="ignore"):
        size = float(np.sum(np.abs(values[np.isfinite(values)]))) if values is not None else 0.0
        size += abs(dual) + abs(primal) + float(np.dot(np.abs(prices), R))
    return size if np.isfinite(size) else np.inf


def vertex_bound(problem, prices) -> tuple[float, np.ndarray]:
    """A lower bound on the true dual ``g(p)`` at ``prices``, from each job's plainest choices: nothing, or all its time
    on one resource, ``max(u_i(0), max_j u_i(a_ij) - d_i p_j)`` per job, plus ``p^T R`` (the dual's supremum is at
    least any choice's value). Computed from ``value`` alone, so it checks the utility's ``best_response`` (a plain
    reference: ``m`` evaluations of ``value``); also the per-job values, for the tolerance's scale."""
    A = np.asarray(problem.A, dtype=np.float64)
    n, m = A.shape
    util, d, p = problem.utility, problem.demand, np.asarray(prices, dtype=np.float64)
    with np.errstate(all="ignore"):
        best = np.asarray(util.value(np.zeros(n)), dtype=np.float64)
        for j in range(m):
            best = np.fmax(best, np.asarray(util.value(A[:, j]), dtype=np.float64) - d * p[j])
        return float(np.sum(best)) + float(p @ problem.R), best


def check_weak_duality(
    dual: float,
    primal: float,
    scale: float,
    utility,
    n: int,
    dtype=np.float64,
    feasible=None,
    what: str = "the objective",
):
    """Raise where the dual bound ``dual`` lies below the feasible ``primal`` by more than rounding
    (:func:`duality_tolerance` of ``scale``). ``feasible`` (a function giving the allocation's largest violation),
    where given, is asked first: an infeasible allocation is the solver's bug, not the utility's. ``what`` names
    ``primal`` in the message. A custom utility is
    named in an :class:`InputError` (its ``best_response`` or ``value`` is wrong); a built-in one is a bug."""
    if not (np.isfinite(dual) and np.isfinite(primal)):
        return  # (no finite gap: the solver says so itself)
    gap = dual - primal
    tol = duality_tolerance(scale, n, dtype)
    if gap >= -tol:
        return
    if feasible is not None and (viol := feasible()) > FEASIBLE_TOL:
        raise GameMarketError(f"recovered allocation violates a constraint by {viol:.3g} (a bug)")
    cls = type(utility).__name__
    said = (
        f"the dual bound {dual:.6g} lies below {what} {primal:.6g} (gap {gap:.3g}, beyond the rounding allowed, "
        f"{tol:.3g}): weak duality is violated"
    )
    if cls in BUILT_IN:
        raise GameMarketError(f"utility {utility.name!r} ({cls}): {said} (a bug)")
    raise InputError(
        f"utility {utility.name!r} ({cls}): {said}, so its best_response (or value) is wrong; best_response(s) must "
        "give the maximizer over t >= 0 of u(t) - s t for value's u"
    )


def check_result(problem, result, dtype=np.float64) -> None:
    """A result about to be returned, checked both ways: its gap is ``dual - objective`` and not below zero beyond
    rounding, and its allocation is feasible within :data:`FEASIBLE_TOL` (``allocation.check_feasible``);
    else an error (never a converged result that its own numbers refute)."""
    n = problem.shape[0]
    viol = check_feasible(problem, result.allocation)
    if not viol <= FEASIBLE_TOL:
        raise GameMarketError(f"recovered allocation violates a constraint by {viol:.3g} (a bug)")
    with np.errstate(all="ignore"):
        values = np.asarray(problem.utility.value(result.throughput), dtype=np.float64)
    scale = magnitude(values, result.dual, result.objective, result.prices, problem.R)
    check_weak_duality(result.dual, result.objective, scale, problem.utility, n, dtype)
    # the other way round: the dual must be at least what the jobs' plainest choices are worth at its prices. A best
    # response that gives less than the true maximizer (every job 0, say) makes a dual that can meet its own feasible
    # allocation at a gap near 0, far below the optimum, which the gap alone cannot tell (hunt 18b-F7 with eps=1e-3:
    # "converged" at objective 0 where the optimum is 14.03)
    bound, best = vertex_bound(problem, result.prices)
    check_weak_duality(
        result.dual,
        bound,
        magnitude(best, result.dual, bound, result.prices, problem.R),
        problem.utility,
        n,
        dtype,
        what="the value of the jobs' single-resource choices at the result's prices,",
    )
    if np.isfinite(result.gap) and not abs(result.gap - (result.dual - result.objective)) <= duality_tolerance(
        scale, n, dtype
    ):
        raise GameMarketError(
            f"the result's gap {result.gap:.6g} is not its dual {result.dual:.6g} less its objective "
            f"{result.objective:.6g} (a bug)"
        )
