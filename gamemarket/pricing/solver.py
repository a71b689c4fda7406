"""Price discovery: dual decomposition with a quasi-Newton price update (pricing model section 3).

The dual ``g(p) = sum_i max_{x_i} [u_i(a_i^T x_i) - d_i p^T x_i] + p^T R`` is convex in ``p >= 0`` and
its gradient is ``R - sum_i d_i x_i(p)``; L-BFGS-B (scipy) minimizes it, in rounds with a projected
Newton method on the dual's exact Hessian (``method="auto"``). After every evaluation a feasible
allocation is recovered from ``x(p)`` by scaling down the use of over-subscribed resources, and near
the target by ``repair`` (load moved to resources with slack at the same throughput, then taken from
the jobs that value it least); the run stops when the duality gap ``g(p) - sum_i u_i(t_i)`` of that feasible allocation
is below ``eps`` (default ``1e-3 n``) or below ``rel_eps * |objective|`` (default 1e-7; the absolute
rule alone is unattainable in float64 when the objective is far above ``eps / 1e-16``, as with
alpha-fair utilities of large alpha), or reports that the iteration cap was hit.

Piecewise-linear utilities (linear, target) have a piecewise-linear dual on which a quasi-Newton
method stalls and whose ``x(p)`` jumps between extremes. They are smoothed by ``-mu/2 t^2`` with
``mu = eps / (n max(a)^2)``: the smoothed dual plus the bound ``mu/2 sum_i max(a_i)^2`` on the
smoothing's effect is an upper bound on the original optimum, so the reported gap stays a true
duality gap of the original problem. When a round stops short of the gap (a failed line search), the
next one restarts from the best prices while iterations remain and the gap still improves.

References
----------
.. [Agrawal2022] A. Agrawal, S. Boyd, D. Narayanan, F. Kazhamiaka and M. Zaharia, "Allocation of
   fungible resources via a fast, scalable price discovery method", Mathematical Programming
   Computation 14 (2022) 593-622. (The method: the dual, its smoothing and the stopping rule.)
.. [Byrd1995] R. H. Byrd, P. Lu, J. Nocedal and C. Zhu, "A limited memory algorithm for bound
   constrained optimization", SIAM Journal on Scientific Computing 16 (1995) 1190-1208. (L-BFGS-B,
   as in scipy.)
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from gamemarket.errors import GameMarketError, InputError
from gamemarket.pricing.envelope import (
    allocate,
    envelope_arrays,
    segment,
    slopes,
    solve_jobs,
    sort_efficiencies,
    throughput_of,
    usage_of,
)
from gamemarket.pricing import ties as tie
from gamemarket.pricing.problem import Problem


@dataclass
class Allocation:
    """Each job uses at most two resources: ``(j1, x1)`` and ``(j2, x2)``; ``j = -1`` means unused."""

    j1: np.ndarray
    x1: np.ndarray
    j2: np.ndarray
    x2: np.ndarray
    m: int

    def dense(self) -> np.ndarray:
        n = len(self.j1)
        X = np.zeros((n, self.m))
        rows = np.arange(n)
        for j, x in ((self.j1, self.x1), (self.j2, self.x2)):
            ok = j >= 0
            np.add.at(X, (rows[ok], j[ok]), x[ok])
        return X

    def usage(self, demand: np.ndarray) -> np.ndarray:
        return usage_of(self.j1, self.x1, self.j2, self.x2, demand, self.m)

    def throughput(self, A: np.ndarray) -> np.ndarray:
        return throughput_of(A, self.j1, self.x1, self.j2, self.x2)


@dataclass
class Result:
    allocation: Allocation
    prices: np.ndarray
    throughput: np.ndarray
    objective: float  #: primal value of the feasible allocation
    dual: float
    gap: float
    iterations: int
    evaluations: int
    converged: bool
    seconds: float
    trace: pd.DataFrame = field(repr=False, default=None)
    message: str = ""


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
    grad = problem.R - alloc.usage(problem.demand)
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


BALANCED_PASSES = 8  #: balanced passes per resource in ``repair`` before one greedy step finishes


def repair(problem: Problem, alloc: Allocation, A: np.ndarray) -> Allocation:
    """A feasible allocation from ``x(p)``, losing as little utility as possible.

    Near the optimal prices the jobs at the margin are almost indifferent, so ``x(p)`` over- and
    under-subscribes resources by small amounts. Each over-subscribed resource is taken back first
    from the jobs whose marginal value of it (``u'(t_i) a_ij``) is lowest; then each resource's slack
    is handed to the jobs that value it most, on the resources they already use (so every job
    still uses at most two). A final uniform scaling absorbs rounding.
    """
    util = problem.utility
    d = problem.demand
    n, m = A.shape
    js = [alloc.j1, alloc.j2]
    xs = [alloc.x1.copy(), alloc.x2.copy()]

    def thr():
        return throughput_of(A, js[0], xs[0], js[1], xs[1])

    def usage():
        return usage_of(js[0], xs[0], js[1], xs[1], d, m)

    use = usage()
    js = [js[0].copy(), js[1].copy()]
    # 0. moves that keep every throughput: part of a job's use of an over-subscribed resource r goes to
    # a resource k with slack, x_ik = x_ir a_ir / a_ik (more time share if k is less efficient for the
    # job). The objective cannot fall; at optimal prices tied resources (equal price per efficiency,
    # e.g. identical columns or identical jobs) are exactly what such moves balance.
    spare = 1.0 - (xs[0] + xs[1])
    for r in np.argsort(-(use - problem.R) / problem.R):
        if use[r] - problem.R[r] <= 1e-12 * problem.R[r]:
            continue
        # the jobs on r: moves only take them off r, so this stays a superset while r is balanced
        on_r = np.flatnonzero((js[0] == r) | (js[1] == r))
        for k in np.argsort(-(problem.R - use) / problem.R):
            excess, slack = use[r] - problem.R[r], problem.R[k] - use[k]
            if excess <= 1e-12 * problem.R[r]:
                break
            if k == r or slack <= 1e-12 * problem.R[k]:
                continue
            for sl in (0, 1):
                ot = 1 - sl
                jo = js[ot][on_r]
                cj = on_r[
                    (js[sl][on_r] == r)
                    & (xs[sl][on_r] > 0)
                    & (A[on_r, k] > 0)
                    & ((jo == k) | (jo < 0) | (xs[ot][on_r] <= 0))
                ]
                if len(cj) == 0:
                    continue
                ratio = A[cj, r].astype(np.float64) / A[cj, k]  # units of k per unit of r, same throughput
                room = np.where(ratio > 1, spare[cj] / np.maximum(ratio - 1, 1e-300), np.inf)
                delta = np.minimum(xs[sl][cj], room)  # x_ir that can move
                order = np.argsort(ratio, kind="stable")  # cheapest in k's capacity first
                cj, ratio, delta = cj[order], ratio[order], delta[order]
                freed = np.cumsum(d[cj] * delta)
                used = np.cumsum(d[cj] * delta * ratio)
                lim = (freed <= excess) & (used <= slack)
                q = int(lim.sum())  # a prefix moves whole; the next one partially
                mv = delta.copy()
                mv[q + 1 :] = 0.0
                if q < len(cj):
                    f_prev = freed[q - 1] if q > 0 else 0.0
                    u_prev = used[q - 1] if q > 0 else 0.0
                    mv[q] = max(
                        0.0, min(delta[q], (excess - f_prev) / d[cj[q]], (slack - u_prev) / (d[cj[q]] * ratio[q]))
                    )
                sel = mv > 0
                cj, ratio, mv = cj[sel], ratio[sel], mv[sel]
                if len(cj) == 0:
                    continue
                xs[sl][cj] -= mv
                put_on_k = js[ot][cj] == k
                newslot = ~put_on_k
                js[ot][cj[newslot]] = k
                xs[ot][cj[newslot]] = 0.0
                xs[ot][cj] += mv * ratio
                spare[cj] -= mv * (ratio - 1)
                use[r] -= float(np.sum(d[cj] * mv))  # incremental; recomputed exactly below
                use[k] += float(np.sum(d[cj] * mv * ratio))
                excess, slack = use[r] - problem.R[r], problem.R[k] - use[k]
        use = usage()
    for r in np.argsort(-(use - problem.R) / problem.R):
        # then balanced passes: the excess is spread evenly over the half of the users that value the
        # resource least (at most half of each one's use per pass), marginal values recomputed between
        # passes (taking resource raises them: utilities are concave), so tied jobs are treated alike
        excess = use[r] - problem.R[r]
        if excess <= 1e-12 * problem.R[r]:
            continue
        on_r = np.flatnonzero((js[0] == r) | (js[1] == r))  # taking never adds a job to r
        t = thr()
        for _pass in range(BALANCED_PASSES + 1):
            excess = use[r] - problem.R[r]
            if excess <= 1e-12 * problem.R[r]:
                break
            with np.errstate(all="ignore"):
                mv_all = util.marginal(t)
            slots = [(slot, on_r[(js[slot][on_r] == r) & (xs[slot][on_r] > 0)]) for slot in (0, 1)]
            cs = np.concatenate([np.full(len(ix), sl) for sl, ix in slots])
            cj = np.concatenate([ix for _, ix in slots])
            if len(cj) == 0:
                break
            with np.errstate(all="ignore"):
                mv = np.nan_to_num(mv_all[cj] * A[cj, r], nan=np.inf, posinf=np.inf)
            if _pass < BALANCED_PASSES:
                low = mv <= np.quantile(mv, 0.5) if np.isfinite(mv).any() else np.ones(len(mv), bool)
                cs, cj = cs[low], cj[low]
                have = d[cj] * np.where(cs == 0, xs[0][cj], xs[1][cj])
                take = np.minimum(0.5 * have, excess / len(cj))
            else:  # finish in one greedy step: lowest marginal value first, whole amounts
                order = np.argsort(mv, kind="stable")
                cs, cj = cs[order], cj[order]
                have = d[cj] * np.where(cs == 0, xs[0][cj], xs[1][cj])
                cum = np.cumsum(have)
                k = int(np.searchsorted(cum, excess))
                take = have.copy()
                take[k + 1 :] = 0.0
                if k < len(take):
                    take[k] = have[k] - (cum[k] - excess)
            if take.sum() <= 0:
                break
            for sl in (0, 1):
                sel = cs == sl
                np.subtract.at(xs[sl], cj[sel], take[sel] / d[cj[sel]])
                xs[sl][cj[sel]] = np.maximum(xs[sl][cj[sel]], 0.0)
            t[cj] = throughput_of(A, js[0][cj], xs[0][cj], js[1][cj], xs[1][cj])
            use[r] -= float(take.sum())  # incremental; recomputed exactly below
        use = usage()
    # hand out slack: to jobs already on the resource, or with an empty slot (so every job still
    # uses at most two resources), highest marginal value first
    js = [js[0].copy(), js[1].copy()]
    t = thr()
    spare = 1.0 - (xs[0] + xs[1])
    for r in np.argsort(-(problem.R - use) / problem.R):
        slack = problem.R[r] - use[r]
        if slack <= 1e-15 * problem.R[r]:
            continue
        # jobs with spare time that can use r: giving only uses up spare time, so a superset throughout
        base = np.flatnonzero((spare > 1e-15) & (A[:, r] > 0))

        def receivers():
            j0, j1_ = js[0][base], js[1][base]
            on0, on1 = j0 == r, j1_ == r
            free0 = ~on0 & ~on1 & ((j0 < 0) | (xs[0][base] <= 0))
            free1 = ~on0 & ~on1 & ~free0 & ((j1_ < 0) | (xs[1][base] <= 0))
            slot_b = np.where(on0 | free0, 0, np.where(on1 | free1, 1, -1))
            keep = (slot_b >= 0) & (spare[base] > 1e-15)
            return base[keep], slot_b[keep]

        cand, slot_c = receivers()
        if len(cand) == 0:
            continue
        for _pass in range(BALANCED_PASSES + 1):  # balanced: spread over the half that values it most
            if slack <= 1e-12 * problem.R[r] or len(cand) == 0:
                break
            with np.errstate(all="ignore"):
                mv = np.nan_to_num(util.marginal(t)[cand] * A[cand, r], nan=0.0, posinf=np.finfo(float).max)
            ok = (mv > 0) & (spare[cand] > 1e-15)
            if not ok.any():
                break
            on_r = (js[0][cand] == r) | (js[1][cand] == r)
            if (ok & on_r).any() and _pass < BALANCED_PASSES:  # jobs already on r: spread evenly
                top = ok & on_r & (mv >= np.quantile(mv[ok & on_r], 0.5))
                pick = np.flatnonzero(top)
                cj = cand[pick]
                give = np.minimum(spare[cj], slack / d[cj] / len(cj))
            else:  # a new slot: to as few jobs as possible, highest marginal value first
                order = np.argsort(-np.where(ok, mv, -np.inf), kind="stable")
                pick = order[: int(ok.sum())]
                cj = cand[pick]
                g_all = spare[cj]
                cum = np.cumsum(g_all * d[cj])
                k = int(np.searchsorted(cum, slack))
                pick, cj = pick[: k + 1], cj[: k + 1]
                give = g_all[: k + 1].copy()
                if k < len(g_all):  # the last one takes only what is left (never more than its spare)
                    give[-1] = min(give[-1], max(0.0, (slack - (cum[k - 1] if k > 0 else 0.0)) / d[cj[-1]]))
            sl = slot_c[pick]
            for q in (0, 1):
                w = sl == q
                js[q][cj[w]] = r
                xs[q][cj[w]] += give[w]
            spare[cj] -= give
            t[cj] += A[cj, r] * give
            slack -= float((give * d[cj]).sum())
            cand, slot_c = receivers()  # a job given r in a free slot now holds r there
        use = usage()
    return make_feasible(problem, Allocation(js[0], xs[0], js[1], xs[1], m))


def make_feasible(problem: Problem, alloc: Allocation) -> Allocation:
    """Scale down every over-subscribed resource's use so that ``X^T d <= R`` holds exactly."""
    use = alloc.usage(problem.demand)
    factor = np.where(use > problem.R, problem.R / np.maximum(use, 1e-300) * (1 - 1e-12), 1.0)
    if (factor == 1.0).all():
        return alloc
    f = np.append(factor, 1.0)  # index -1 (unused slot) reads the trailing 1
    return Allocation(alloc.j1, alloc.x1 * f[alloc.j1], alloc.j2, alloc.x2 * f[alloc.j2], alloc.m)


def check_feasible(problem: Problem, alloc: Allocation, tol: float = 1e-9) -> float:
    """The largest constraint violation (0 when every constraint holds)."""
    x_sum = alloc.x1 + alloc.x2
    v = [max(0.0, float(-min(alloc.x1.min(), alloc.x2.min()))), max(0.0, float(x_sum.max() - 1.0))]
    use = alloc.usage(problem.demand)
    v.append(max(0.0, float(((use - problem.R) / problem.R).max())))
    return max(v)


METHODS = ("lbfgs", "newton", "auto")


def _newton(fun_h, p, max_iter, done, state, on_iteration=None, p_min=None, subgradient=None):
    """Projected Newton on ``p >= 0`` in a trust region, with a backtracking (Armijo) line search.

    Variables at their bound with a positive gradient stay fixed. The Newton system on the free ones
    is regularised Levenberg-Marquardt style, ``(H + lambda D) d = -g`` with ``D`` the prices' squared
    inverse sizes, ``lambda`` raised until no price moves by more than ``radius`` times its own size:
    where most jobs sit at envelope vertices ``H`` is nearly singular and the plain step is orders of
    magnitude too long. The radius doubles after a full step and shrinks with a shortened one.
    ``subgradient(p, g, H)``, when given, replaces the gradient by the dual's minimal subgradient at
    ``p`` (``ties.mix``): the semismooth Newton step at a kink.
    """
    f, g, H = fun_h(p)
    m = len(p)
    lo = np.zeros(m) if p_min is None else p_min
    radius = [1.0]

    def direction(g):
        """The regularised Newton step for gradient ``g`` (None when there is none)."""
        free = ~((p <= lo) & (g > 0))
        if not free.any() or not np.isfinite(g).all():
            return None
        ref = float(p.mean()) if p.mean() > 0 else 1.0
        size = np.maximum(p, 1e-3 * ref)[free]
        Hf = H[np.ix_(free, free)]
        D = 1.0 / size**2
        lam = 1e-12 * max(float(np.max(np.abs(np.diag(Hf)) / D)), 1e-300)
        for _reg in range(60):
            try:
                df = -np.linalg.solve(Hf + lam * np.diag(D), g[free])
            except np.linalg.LinAlgError:
                df = np.full(int(free.sum()), np.inf)
            if np.isfinite(df).all() and float(np.max(np.abs(df) / size)) <= radius[0] and g[free] @ df < 0:
                d = np.zeros(m)
                d[free] = df
                return d
            lam = lam * 10 if lam > 0 else 1e-300
        return None

    def search(g, d):
        """Backtracking along ``d`` with the slope ``g``: the accepted point and its step, or None."""
        step = 1.0
        for _ls in range(30):
            q = np.maximum(p + step * d, lo)
            fq, gq, Hq = fun_h(q)
            if np.isfinite(fq) and fq <= f + 1e-4 * (g @ (q - p)):
                return q, fq, gq, Hq, step
            step *= 0.5
        return None

    for _ in range(max_iter - state["iters"]):
        state["iters"] += 1
        w = subgradient(p, g, H) if subgradient is not None else g
        if on_iteration is not None:
            on_iteration()
        if done():
            return p
        # both the semismooth step and the plain Newton step, the lower point wins: the tie mixture is
        # a subgradient only where the ties it found are exact, and the plain gradient misleads at a kink
        found = None
        for slope in (w, g) if w is not g else (g,):
            d = direction(slope)
            cand = search(slope, d) if d is not None else None
            if cand is not None and (found is None or cand[1] < found[1]):
                found = cand
        if found is None:
            return p
        q, fq, gq, Hq, step = found
        radius[0] = min(2 * radius[0], 1e6) if step == 1.0 else max(radius[0] * step, 1e-12)
        if np.array_equal(q, p):
            return p
        p, f, g, H = q, fq, gq, Hq
    return p


def identical_columns(A: np.ndarray, floors: np.ndarray) -> list[list[int]]:
    """Groups (two or more each) of resources with identical efficiency columns and price floors.

    Cheap fingerprints (floor, column sum, maximum, a strided sample) find candidates; an exact
    comparison of whole columns decides.
    """
    n, m = A.shape
    stride = max(1, n // 256)
    keys: dict[tuple, list[int]] = {}
    for j in range(m):
        col = A[:, j]
        keys.setdefault((float(floors[j]), float(col.sum()), float(col.max()), col[::stride].tobytes()), []).append(j)
    groups = []
    for cand in keys.values():
        while len(cand) > 1:
            same = [k for k in cand if np.array_equal(A[:, cand[0]], A[:, k])]
            if len(same) > 1:
                groups.append(same)
            cand = [k for k in cand if k not in same]
    return groups


def _merged(problem: Problem, groups: list[list[int]], floors: np.ndarray):
    """The problem with each group of identical resources as one resource of their summed capacity.

    Exact: a job's throughput depends only on its total time on the group, so the two problems have
    the same optimum, and equal prices on a group's members are optimal for the original. Returns the
    merged problem, its price floors, and for each original resource its merged index.
    """
    import copy

    m = problem.shape[1]
    rep = np.arange(m)
    for g in groups:
        rep[g] = g[0]
    keep = np.flatnonzero(rep == np.arange(m))
    index = np.searchsorted(keep, rep)
    R = np.bincount(index, weights=problem.R, minlength=len(keep))
    util = copy.copy(problem.utility)
    merged = Problem(
        problem.A[:, keep], R, util, demand=problem.demand, weight=util.w, target=getattr(util, "t_des", None)
    )
    return merged, floors[keep], index


#: the shift of the log-price variables (``solve``): prices below LOG_SHIFT times their scale are near 0
LOG_SHIFT = 1e-6


def _calibrate(fun_p, p: np.ndarray, max_evals: int = 40) -> np.ndarray:
    """The initial prices scaled by the ``e^k`` minimizing the dual along the ray ``e^k p``.

    ``d g(e^k p) / dk = e^k p . grad`` is increasing in ``k`` (``g`` is convex), so its root is
    bracketed by doubling steps and found by bisection to ``|dk| < 1e-3``. The initial guess of an
    alpha-fair utility's prices is off by ``(t*/t0)^alpha``: orders of magnitude for large alpha.
    """
    seen = []
    K_MIN = -30.0  # e^-30 ~ 1e-13: prices that low are zero for the dual; never shrink further

    def slope(k):
        q = p * np.exp(k)
        f, g = fun_p(q)
        if not np.isfinite(f):
            return np.nan
        seen.append((f, k))
        return float(q @ g)

    s0 = slope(0.0)
    if not np.isfinite(s0) or s0 == 0.0:
        return p
    step = -1.0 if s0 > 0 else 1.0  # positive slope: resources under-used, prices too high
    k0, k1 = 0.0, None
    evals = 1
    while evals < max_evals // 2 and k0 + step >= K_MIN:
        k = k0 + step
        sk = slope(k)
        evals += 1
        if np.isfinite(sk) and np.sign(sk) != np.sign(s0):
            k1 = k
            break
        if np.isfinite(sk):
            k0 = k
        step *= 2 if np.isfinite(sk) else 0.5
    if k1 is not None:
        while evals < max_evals and abs(k1 - k0) > 1e-3:
            k = 0.5 * (k0 + k1)
            sk = slope(k)
            evals += 1
            if not np.isfinite(sk):
                break
            if np.sign(sk) == np.sign(s0):
                k0 = k
            else:
                k1 = k
    return p * np.exp(min(seen)[1]) if seen else p


def solve(
    problem: Problem,
    *,
    eps: float | None = None,
    max_iter: int = 500,
    p0: np.ndarray | None = None,
    callback=None,
    rel_eps: float = 1e-7,
    method: str = "auto",
    p_min: np.ndarray | None = None,
    backend: str = "numpy",
    device: str = "cpu",
    dtype=np.float64,
) -> Result:
    """Discover market-clearing prices and a feasible allocation.

    Parameters
    ----------
    eps : stopping duality gap (default ``1e-3 * n``)
    max_iter : L-BFGS iteration cap; hitting it is reported (``converged=False``), never silent
    p0 : initial prices (default: the utility's guess)
    rel_eps : also stop when the gap is below ``rel_eps * |objective|``
    backend : "numpy" (numba kernels, the default) or "torch" (PyTorch, ``device`` "cpu" or "cuda")
    dtype : float64, or float32 to hold ``A`` (and, with torch, compute) in single precision
    p_min : price floors (reserve prices), default 0. With floors the dual ``min_{p >= p_min} g(p)`` is
        that of ``max sum_i u_i - p_min^T (X^T d - R)`` (unsold capacity earns its reserve price), and
        the reported objective and gap are of that problem
    method : "lbfgs" (scipy's L-BFGS-B, the paper's method), "newton" (projected Newton with the
        dual's exact Hessian, for utilities that give ``best_response_slope``), or "auto" (L-BFGS
        for up to 30 iterations, then Newton from the best prices when not yet converged)
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    t0 = time.perf_counter()
    # the solver sets the utility's smoothing (mu) while it runs: it works on copies, so the caller's
    # Problem and Utility are never modified (shallow copies: the arrays are shared, never written)
    problem = copy.copy(problem)
    problem.utility = copy.copy(problem.utility)
    n, m = problem.shape
    eps = 1e-3 * n if eps is None else float(eps)
    if not eps > 0:
        raise InputError(f"eps must be > 0, got {eps}")
    if backend not in ("numpy", "torch"):
        raise InputError(f"backend must be 'numpy' or 'torch', got {backend!r}")
    if np.dtype(dtype) not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise InputError(f"dtype must be float64 or float32, got {dtype!r}")
    lo = np.zeros(m) if p_min is None else np.broadcast_to(np.asarray(p_min, dtype=np.float64), (m,)).copy()
    if not np.isfinite(lo).all() or (lo < 0).any():
        raise InputError(f"p_min must be {m} finite numbers >= 0")
    warm = None
    groups = identical_columns(problem.A, lo) if p0 is None and m > 1 else []
    if groups:
        # identical resources make every job's choice between them a tie, along which the dual has a
        # kink that stalls L-BFGS and Newton alike: price them as one resource first, then start the
        # original problem from those prices (the allocation among the members is what remains)
        merged, lo_m, index = _merged(problem, groups, lo)
        warm = solve(
            merged,
            eps=eps,
            max_iter=max_iter,
            rel_eps=rel_eps,
            method=method,
            p_min=lo_m,
            backend=backend,
            device=device,
            dtype=dtype,
        )
        p0 = warm.prices[index]
    A64 = np.ascontiguousarray(problem.A, dtype=dtype)  # float32 on request: half the memory
    order = sort_efficiencies(A64)
    util = problem.utility
    tev = None
    if backend == "torch":
        from gamemarket.pricing.torch_backend import TorchEvaluator

        tev = TorchEvaluator(problem, device, single=np.dtype(dtype) == np.float32)
    bias = 0.0
    if util.smooth:
        amax = A64.max(axis=1)
        util.mu = eps / (n * max(float(np.max(amax)) ** 2, 1e-300))
        bias = util.mu / 2 * float(np.sum(amax**2))
    p = problem.utility.initial_price(A64, problem.R) if p0 is None else np.asarray(p0, dtype=np.float64)
    p = np.maximum(p, lo)
    if p.shape != (m,) or not np.isfinite(p).all() or (p < 0).any():
        raise InputError(f"initial prices must be {m} finite numbers >= 0")
    rows = [] if warm is None else warm.trace.to_dict("records")
    best = {"gap": np.inf}
    state = {"evals": 0, "iters": 0} if warm is None else {"evals": warm.evaluations, "iters": warm.iterations}

    # Precondition: L-BFGS works on z = p / scale with the dual divided by fscale, so that
    # variables and values are of order one whatever the utility's magnitude (alpha-fair utilities
    # of large alpha have prices near 1e20: unscaled, every step is lost in rounding).
    scale = np.where(p > 0, p, max(float(p[p > 0].mean()) if (p > 0).any() else 1.0, 1e-300))
    fscale = 1.0

    want_h = [False]
    repair_gain = [0.1]  #: repaired gap / cheap gap at the last repair (``try_repair``)
    low = {"f": np.inf, "p": p.copy()}  #: the lowest dual value seen: where every round restarts
    last: dict = {}

    def rent(alloc) -> float:
        """Reserve price earned by unsold capacity: the primal's extra term under price floors."""
        if not lo.any():
            return 0.0
        return float(lo @ (problem.R - alloc.usage(problem.demand)))

    def record(feas: Allocation, q: np.ndarray, dual: float) -> tuple[float, float, np.ndarray]:
        """The gap of a feasible allocation against ``dual`` (at prices ``q``); the best one is kept."""
        t = feas.throughput(A64)
        with np.errstate(divide="ignore"):
            primal = float(np.sum(problem.utility.value(t))) + rent(feas)
        gap = dual - primal
        if np.isfinite(gap) and gap < best["gap"]:
            best.update(gap=gap, p=q.copy(), alloc=feas, t=t, dual=dual, primal=primal)
        return gap, primal, t

    def try_repair(force: bool = False):
        """At most once per iteration: the greedy repair of the latest x(p), when it is predicted to
        reach the target, every 10th iteration, and at the end. The prediction scales the cheap gap
        by what the last repair achieved against its cheap gap (at first by 1/10): on smooth problems
        uniform scaling is nearly as good and a repair, which costs a few passes over the jobs per
        resource, is rarely worth it; on degenerate ones it is what converges."""
        if "alloc" not in last:
            return
        target = max(eps, rel_eps * abs(last["primal"])) if np.isfinite(last["primal"]) else eps
        if last["gap"] <= target:
            return
        if not (force or last["gap"] * repair_gain[0] <= target or state["iters"] % 10 == 0):
            return
        q, start = last["q"], last["alloc"]
        untied = last.get("untied")  # the Newton phase's tie mixture (``subgradient``)
        if untied is not None and untied is not start:
            # it keeps every throughput; the repair starts from it when it fits the limits better (in
            # value at these prices) than x(p) does
            def misfit(a):
                return float(q @ np.abs(problem.R - a.usage(problem.demand)))

            if misfit(untied) < misfit(start):
                start = untied
        cheap = last["gap"]
        gap = record(repair(problem, start, A64), q, last["dual"])[0]
        if np.isfinite(gap) and np.isfinite(cheap) and cheap > 0:
            repair_gain[0] = float(np.clip(gap / cheap, 1e-3, 1.0))
        last["gap"] = -np.inf  # not again for this point

    def untie(q, alloc, t, H):
        """x(q) with its tied jobs mixed to fit the limits (``ties``), and the residual subgradient, in
        the metric of the inverse Hessian ``H`` (the identity when ``H`` is unknown)."""
        ts = tie.find_ties(A64, problem.demand, q, alloc.j1, alloc.x1, alloc.j2, alloc.x2, t)
        at_floor = q <= lo
        lam, w = tie.mix(
            ts,
            alloc.usage(problem.demand),
            problem.R,
            problem.demand,
            tie.metric(H, m),
            slack=at_floor if at_floor.any() else None,
        )
        if len(ts) == 0:
            return alloc, w
        return Allocation(*tie.apply(ts, lam, alloc.j1, alloc.x1, alloc.j2, alloc.x2), m), w

    def subgradient(q, g, H):
        """For Newton: the minimal subgradient at ``q``; the tie mixture is also a recovery candidate."""
        if not np.array_equal(last.get("q"), q):
            fun_h(q)
        untied, w = untie(q, last["alloc"], last["t"], H)
        last["untied"] = untied
        if untied is not last["alloc"]:
            gap = record(make_feasible(problem, untied), q, last["dual"])[0]
            last["gap"] = min(last["gap"], gap)
        return w

    # Alpha-fair utilities of alpha > 1 have a dual that is a narrow valley in p (prices span orders of
    # magnitude for small changes in throughput: t = (w / slope)^(1/alpha)); L-BFGS then works on
    # z = log((p - p_min) / scale), where it is close to quadratic.
    logspace = bool(getattr(util, "log_prices", False))

    # The log is shifted, p = lo + scale (e^z - LOG_SHIFT) with z >= log(LOG_SHIFT), so that a price can
    # reach its floor exactly (a resource no job over-subscribes has price 0 at the optimum) and the
    # gradient in z near the floor is damped by LOG_SHIFT, not by the price itself (1e-28 stalled it).
    def to_p(z):
        if logspace:
            return np.maximum(lo + scale * (np.exp(np.clip(z, -700.0, 700.0)) - LOG_SHIFT), lo)
        return np.maximum(z * scale, lo)

    def to_z(q):
        if logspace:
            return np.log(np.maximum(q - lo, 0.0) / scale + LOG_SHIFT)
        return q / scale

    def fun(z):
        q = to_p(z)
        f, grad = fun_p(q)
        return f / fscale, grad * (scale * np.exp(np.clip(z, -700.0, 700.0)) if logspace else scale) / fscale

    def fun_p(q):
        if tev is not None and not want_h[0]:
            out = tev(q, util.mu)
        else:
            out = evaluate(problem, q, order, A64, hessian=want_h[0])
        dual, grad, alloc = out[0], out[1], out[2]
        fun_p.H = out[4] if want_h[0] else None
        smoothed = dual
        dual = dual + bias  # an upper bound on the original problem's optimum
        state["evals"] += 1
        # cheap recovery (uniform scaling) every time; the greedy repair, which loses much less
        # utility but costs a few passes over the jobs, only once the cheap gap is near the target
        gap, primal, _ = record(make_feasible(problem, alloc), q, dual)
        if np.isfinite(smoothed) and np.isfinite(gap) and smoothed < low["f"]:
            low.update(f=smoothed, p=q.copy())
        last.clear()
        last.update(alloc=alloc, dual=dual, q=q, gap=gap, primal=primal, t=out[3], H=fun_p.H)
        viol = float(np.maximum(-grad, 0).max() / max(problem.R.max(), 1e-300))
        rows.append(
            {
                "evaluation": state["evals"],
                "iteration": state["iters"],
                "dual": dual,
                "primal": primal,
                "gap": gap,
                "max_violation": viol,
                "seconds": time.perf_counter() - t0,
            }
        )
        if callback:
            callback(rows[-1])
        return smoothed, grad

    def done():
        return best["gap"] <= max(eps, rel_eps * abs(best.get("primal", np.inf)))

    def stop(xk):
        state["iters"] += 1
        if done() or state["iters"] >= max_iter:
            raise StopIteration

    message = ""
    if logspace and p0 is None and not lo.any():
        p = _calibrate(fun_p, p)
        scale = np.where(p > 0, p, max(float(p[p > 0].mean()) if (p > 0).any() else 1.0, 1e-300))
    f0 = fun_p(p)[0]
    fscale = max(1.0, abs(f0)) if np.isfinite(f0) else 1.0
    round_len = max_iter if method == "lbfgs" else (30 if method == "auto" else 0)

    def fun_h(q):
        f, g = fun_p(q)
        if fun_p.H is None:
            raise InputError(f"utility {util.name!r} gives no best_response_slope: use method='lbfgs'")
        return f, g, fun_p.H

    try:
        # rounds: L-BFGS (restarted from the best prices when its line search fails), then Newton from
        # the best prices ("auto", "newton"); again while iterations remain and the gap still improves
        for _round in range(50):
            gap_before, low_before = best["gap"], low["f"]
            cap = min(max_iter, state["iters"] + round_len)
            for _restart in range(20):
                if state["iters"] >= cap or done():
                    break

                def stop_at_cap(xk, cap=cap):
                    state["iters"] += 1
                    try_repair()
                    if done() or state["iters"] >= cap:
                        raise StopIteration

                want_h[0] = False
                bounds = [(np.log(LOG_SHIFT), None)] * m if logspace else [(lo[j] / scale[j], None) for j in range(m)]
                res = minimize(
                    fun,
                    to_z(p),
                    jac=True,
                    method="L-BFGS-B",
                    bounds=bounds,
                    callback=stop_at_cap,
                    options={
                        "maxiter": cap - state["iters"],
                        "maxfun": max_iter * 20,
                        "ftol": 0.0,
                        "gtol": 0.0,
                        "maxcor": 20,
                    },
                )
                message = str(res.message)
                if "p" not in best:
                    break
                p = best["p"]  # restart from the best prices so far, with a fresh curvature memory
            if done() or state["iters"] >= max_iter or "p" not in best or method == "lbfgs":
                break
            want_h[0] = True
            # Newton from the best-gap prices, then (when that falls short) from the lowest dual seen:
            # the first is where recovery works best, the second where the dual is closest to optimal
            for start in (best["p"], low["p"]):
                if done() or state["iters"] >= max_iter:
                    break
                if start is low["p"] and np.array_equal(start, best["p"]):
                    continue
                newton_cap = max_iter if method == "newton" else min(max_iter, state["iters"] + 30)
                _newton(fun_h, start.copy(), newton_cap, done, state, try_repair, lo, subgradient)
            want_h[0] = False
            message = "Newton"
            p = low["p"]
            progress = best["gap"] < gap_before or low["f"] < low_before - 1e-12 * abs(low_before)
            if done() or state["iters"] >= max_iter or method == "newton" or not progress:
                break
        if "p" in best and not done():  # a last repair at the best prices found
            out = evaluate(problem, best["p"], order, A64)
            last.clear()
            last.update(alloc=out[2], dual=out[0] + bias, q=best["p"], gap=np.inf, primal=-np.inf, t=out[3], H=None)
            try_repair(force=True)
    finally:
        util.mu = 0.0
    if "p" not in best:
        raise GameMarketError("price discovery found no finite duality gap: check the utility and A")
    converged = done()
    if converged:
        message = f"duality gap {best['gap']:.3g} <= max(eps {eps:.3g}, rel_eps * |objective|)"
    else:
        message = f"stopped after {state['iters']} iterations with gap {best['gap']:.3g} > eps {eps:.3g}"
    if groups:
        message += f" (identical resources {groups} priced as one first)"
    alloc = best["alloc"]
    viol = check_feasible(problem, alloc)
    if viol > 1e-9:
        raise GameMarketError(f"recovered allocation violates a constraint by {viol:.3g} (a bug)")
    return Result(
        alloc,
        best["p"],
        best["t"],
        best["primal"],
        best["dual"],
        best["gap"],
        state["iters"],
        state["evals"],
        bool(converged),
        time.perf_counter() - t0,
        pd.DataFrame(rows),
        message,
    )
