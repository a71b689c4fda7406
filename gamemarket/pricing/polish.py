"""Primal recovery by a Newton step in the allocation (the "polish"): a feasible allocation from ``x(p)``
whose loss is second order in the capacities' misfit, not first.

The gap of a feasible allocation ``X`` at prices ``p >= p_min`` splits into two non-negative parts,

    g(p) - U(X) = sum_i [max_x (u_i(a_i x) - d_i p x) - (u_i(a_i X_i) - d_i p X_i)] + (p - p_min)^T (R - X^T d),

each job's loss against its best response at ``p``, and the value of unsold capacity. ``x(p)`` has no loss
but misses ``R``; taking the misfit back from jobs (``repair``) costs a first-order amount, about ``p^T
|R - X^T d|``, which near the optimum is a job's worth of usage per tie and stalls the certified gap near
1e-5 relative (at n = 1e5, m = 16 of the synthetic family). A job whose throughput is strictly inside a
segment of its cost envelope (resources ``j1``, ``j2``) can instead move its throughput by ``delta`` along
that segment at a loss of only ``|u''| delta^2 / 2``. The cheapest such moves that close a misfit ``w``
are a Newton step of the dual with its envelope frozen,

    delta_i = h_i'(S_i) d_i v_i^T dp,   H dp = -w,   v_i = (e_j2 - e_j1) / (a_ij2 - a_ij1),

(``H`` the dual's Hessian, ``h_i`` the job's best response to the segment's slope ``S_i``), and they cost
``w^T H^-1 w / 2`` in all. Jobs whose alternatives tie at ``p`` are first mixed (``ties.mix``, in the same
metric ``H^-1``): that keeps their throughput, so it costs nothing, and removes the jumps that no small
price change undoes. Moves that would leave a segment are clipped to its end and those jobs held fixed in
the next round. Resources at their price floor keep their slack (it costs nothing) unless over-used.

What this returns is a candidate: the solver scales away what rounding leaves (``make_feasible``) and
measures its gap like any other recovery, so it can only make the reported gap smaller, never untrue.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gamemarket.errors import limit_clock
from gamemarket.pricing import ties as tie
from gamemarket.pricing.allocation import Allocation
from gamemarket.pricing.problem import Problem

#: rounds of the clipped Newton step (each holds the jobs clipped in the previous one fixed)
ROUNDS = 6


@njit(parallel=True, cache=True)
def _segments(A, s1, s2, x2):
    """Per job: the efficiencies at the ends of its segment (0 for the origin) and whether its throughput is
    strictly inside it (a vertex or an idle job cannot move at second-order cost)."""
    n = A.shape[0]
    a1 = np.zeros(n)
    a2 = np.zeros(n)
    inside = np.zeros(n, np.bool_)
    for i in prange(n):
        if s2[i] < 0:
            continue
        a2[i] = A[i, s2[i]]
        if s1[i] >= 0:
            a1[i] = A[i, s1[i]]
        inside[i] = 0.0 < x2[i] < 1.0 and a2[i] > a1[i]
    return a1, a2, inside


@njit(cache=True)
def _hessian(s1, s2, k, free, m):
    """``sum_i k_i v_i v_i^T`` over the free jobs (unscaled ``v_i = e_s2 - e_s1``, ``s1 = -1`` the origin)."""
    H = np.zeros((m, m))
    for q in range(len(k)):
        if not free[q]:
            continue
        a, b, w = s1[q], s2[q], k[q]
        H[b, b] += w
        if a >= 0:
            H[a, a] += w
            H[a, b] -= w
            H[b, a] -= w
    return H


@njit(cache=True)
def _step(s1, s2, gain, dp, delta, low, high, free, d, width, m):
    """One clipped step: each free job's throughput moves by ``gain (dp_s2 - dp_s1)`` within its segment
    (``delta`` and ``free`` change in place: a clipped job is held from now on); returns the usage change
    and whether any job was clipped."""
    du = np.zeros(m)
    clipped = False
    for q in range(len(gain)):
        if not free[q]:
            continue
        a, b = s1[q], s2[q]
        step = gain[q] * (dp[b] - (dp[a] if a >= 0 else 0.0))
        want = delta[q] + step
        if want < low[q]:
            want = low[q]
            free[q] = False
            clipped = True
        elif want > high[q]:
            want = high[q]
            free[q] = False
            clipped = True
        dx = d[q] * (want - delta[q]) / width[q]
        du[b] += dx
        if a >= 0:
            du[a] -= dx
        delta[q] = want
    return du, clipped


#: seconds per cube of the resources covered that one least-squares solve of the step is estimated to take (about
#: twice what numpy's SVD-based ``lstsq`` took on this project's 2-core machine, k = 3,000, under load)
SECONDS_PER_CUBE = 1e-9


def _affordable(k: int, max_resources: int | None, deadline: float | None, solves: int) -> bool:
    """Whether a step over ``k`` resources fits ``max_resources`` and, with a deadline, ``solves`` least-squares
    solves of it are estimated to end before it."""
    if max_resources is not None and k > max_resources:
        return False
    return deadline is None or limit_clock() + solves * SECONDS_PER_CUBE * float(k) ** 3 < deadline


def polish(
    problem: Problem,
    p: np.ndarray,
    alloc: Allocation,
    t: np.ndarray,
    A: np.ndarray,
    lo: np.ndarray,
    *,
    max_resources: int | None = None,
    deadline: float | None = None,
) -> tuple[Allocation, np.ndarray] | None:
    """The clipped Newton step in the allocation from ``x(p)`` (``alloc``, throughputs ``t``) at prices ``p``
    with floors ``lo``, and the price step ``dp`` it took (``p + dp`` is the Newton step of the dual with its
    envelope frozen: a candidate for a lower dual bound); None when the utility gives no
    ``best_response_slope`` or ``alloc`` is not ``x(p)``'s two-slot form. The allocation may miss the
    capacities by rounding: pass it through ``make_feasible``.

    Parameters
    ----------
    problem : the problem (its utility, demand and capacities)
    p : prices at which ``alloc`` is every job's best response
    alloc : ``x(p)`` as ``dual.evaluate`` returns it (each job on one segment of its envelope)
    t : the throughputs of ``alloc``
    A : the efficiencies (float64 or float32)
    lo : the price floors
    max_resources : the most resources the step's Hessian may cover (its ``k x k`` matrix, ``k`` the resources
        the moving jobs' segments touch: the others' rows are zero and their price steps 0); None where the
        Hessian exceeds it. The solver derives it from its memory limit
    deadline : a ``limit_clock`` reading: the step is not begun where its least-squares solves are
        estimated to run past it (:data:`SECONDS_PER_CUBE`), and no round is begun after it
    """
    if alloc.extra is not None:
        return None
    m = A.shape[1]
    d, R, util = problem.demand, problem.R, problem.utility
    j1, x1, j2, x2 = alloc.j1, alloc.x1, alloc.j2, alloc.x2
    a1, a2, inside = _segments(A, j1, j2, x2)
    use = alloc.usage_unchecked(d)
    floor = p <= lo
    # 1. ties: mixed in the metric of the smooth part's inverse Hessian, at no loss
    ties = tie.find_ties(A, d, p, j1, x1, j2, x2, t)
    if len(ties):
        inside[ties.jobs] = False  # held: their mixture is what moves them
    ix = np.flatnonzero(inside)
    s1, s2 = j1[ix].astype(np.int64), j2[ix].astype(np.int64)
    width = a2[ix] - a1[ix]
    dix = d[ix]
    pe = np.append(np.asarray(p, dtype=np.float64), 0.0)  # index -1 (the origin) reads price 0
    slope = np.ones(len(d))  # the utility's per-job parameters need every job: 1 where none moves
    slope[ix] = dix * (pe[s2] - pe[s1]) / width
    hp = util.best_response_slope(slope)
    if hp is None:
        return None
    hp = hp[ix]
    with np.errstate(all="ignore"):
        k = -hp * dix**2 / width**2  # the job's weight in the dual's Hessian
    free = np.isfinite(k) & (k > 0)
    # the Hessian is zero outside the resources the free jobs' segments touch: it is built and solved on those
    # alone (the least-squares solution's minimum norm gives the others a price step of 0 as the m x m one did)
    on = np.unique(np.concatenate([s2[free], s1[free & (s1 >= 0)]]))
    if not _affordable(len(on), max_resources, deadline, ROUNDS):
        return None
    local = np.full(m + 1, -1, np.int64)  # index -1 (the origin) stays -1
    local[on] = np.arange(len(on))
    l1, l2 = local[s1], local[s2]
    w = R - use
    lam = np.zeros(0)
    if len(ties):
        L = tie.metric_on(_hessian(l1, l2, k, free, len(on)), on, m)
        lam, _ = tie.mix(ties, use, R, d, L, slack=floor if floor.any() else None, deadline=deadline)
        w = w - ties.usage_change(d, m) @ lam
    # 2. the clipped Newton step on the other interior jobs
    gain = np.where(free, hp * dix / width, 0.0)
    delta = np.zeros(len(ix))
    moves = np.zeros(m)  # the price steps of all rounds
    low, high = a1[ix] - t[ix], a2[ix] - t[ix]
    for _round in range(ROUNDS):
        active = ~floor | (w < 0)  # floor-priced resources may keep slack
        if not active.any() or not free.any() or (_round and not _affordable(len(on), None, deadline, 1)):
            break
        kept = active[on]
        H = _hessian(l1, l2, k, free, len(on))[np.ix_(kept, kept)]
        dp = np.zeros(m)
        if kept.any():
            dp[on[kept]] = -np.linalg.lstsq(H, w[on[kept]], rcond=1e-12)[0]
        moves += dp
        du, clipped = _step(s1, s2, gain, dp, delta, low, high, free, dix, width, m)
        w = w - du
        if not clipped and not (floor & (w < 0) & ~active).any():
            break
    nx1, nx2 = x1.copy(), x2.copy()
    theta = np.clip((t[ix] + delta - a1[ix]) / width, 0.0, 1.0)
    nx2[ix] = theta
    nx1[ix] = np.where(s1 >= 0, 1.0 - theta, 0.0)
    if len(ties):
        return Allocation(*tie.apply(ties, lam, j1, nx1, j2, nx2), m), moves
    return Allocation(j1, nx1, j2, nx2, m), moves
