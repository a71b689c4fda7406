"""Plain pairwise reference for the job subproblem (the paper's O(m^2) method), and the whole program by CVXPY,
for the tests."""

import numpy as np


def pairwise_best(u, a, c_points, i):
    """Best value of u(t) - cost over every segment of the pairwise construction, for job ``i``.

    Segments: origin -> point j (cost t p_j / a_j) and point j -> point k (a_j < a_k), plus points.
    Returns (best value, t at best).
    """
    m = len(a)
    best, best_t = -np.inf, 0.0
    pts = [(0.0, 0.0)] + [(a[j], c_points[j]) for j in range(m) if a[j] > 0]
    for p0 in range(len(pts)):
        for p1 in range(len(pts)):
            t0, c0 = pts[p0]
            t1, c1 = pts[p1]
            if t1 < t0 or (t1 == t0 and p1 != p0):
                continue
            if t1 == t0:
                cands = [t0]
                slope = 0.0
            else:
                slope = (c1 - c0) / (t1 - t0)
                h = u.best_response_job(slope, i)
                cands = [min(max(h, t0), t1), t0, t1]
            for t in cands:
                # interpolate by the share of the segment, not by its slope: on a segment of subnormal
                # width the slope overflows to infinity and slope * (t - t0) would give an infinite cost
                cost = c0 + (c1 - c0) * ((t - t0) / (t1 - t0)) if t1 > t0 else c0
                with np.errstate(divide="ignore"):
                    val = u.value_job(t, i) - cost
                if val > best + 1e-12 * max(1.0, abs(best)) if np.isfinite(best) else val > best:
                    best, best_t = val, t
    return best, best_t


def _interior_jobs(alloc, A):
    """Per job strictly inside a segment of its envelope: (job, s1, s2, a1, a2, v), ``v`` its direction."""
    n, m = A.shape
    jobs = []
    for i in range(n):
        s1, s2 = int(alloc.j1[i]), int(alloc.j2[i])
        if s2 < 0:
            continue
        a1 = float(A[i, s1]) if s1 >= 0 else 0.0
        a2 = float(A[i, s2])
        if 0.0 < alloc.x2[i] < 1.0 and a2 > a1:
            v = np.zeros(m)
            v[s2] += 1.0 / (a2 - a1)
            if s1 >= 0:
                v[s1] -= 1.0 / (a2 - a1)
            jobs.append((i, s1, s2, a1, a2, v))
    return jobs


def polish_reference(problem, p, alloc, t, A, rounds):
    """The polish (``gamemarket.pricing.polish``) in plain loops over dense vectors, for a point with no ties
    and no price at its floor: every job strictly inside a segment of its envelope (resources ``s1 < s2`` by
    efficiency, ``s1 = -1`` the origin) may move its throughput along it; the moves are the Newton step of the
    dual with its envelope frozen, ``H dp = -(R - usage)``, ``H = sum_i -h_i'(S_i) d_i^2 v_i v_i^T`` with
    ``v_i = (e_s2 - e_s1) / (a_s2 - a_s1)``, each job's throughput moving by ``h_i'(S_i) d_i v_i^T dp``; a
    move past a segment's end stops there and holds that job in later rounds. Returns the dense allocation
    and the summed price steps."""
    n, m = A.shape
    d, R, util = problem.demand, problem.R, problem.utility
    X = alloc.dense()
    w = R - X.T @ d
    jobs = _interior_jobs(alloc, A)
    slope = np.ones(n)
    for i, _s1, _s2, _a1, _a2, v in jobs:
        slope[i] = d[i] * float(p @ v)
    hp = util.best_response_slope(slope)
    free = {i: bool(np.isfinite(hp[i]) and -hp[i] > 0) for i, *_ in jobs}
    delta = {i: 0.0 for i, *_ in jobs}
    moves = np.zeros(m)
    for _round in range(rounds):
        if not any(free.values()):
            break
        H = np.zeros((m, m))
        for i, _s1, _s2, _a1, _a2, v in jobs:
            if free[i]:
                H += -hp[i] * d[i] ** 2 * np.outer(v, v)
        dp = -np.linalg.lstsq(H, w, rcond=1e-12)[0]
        moves += dp
        clipped = False
        for i, _s1, _s2, a1, a2, v in jobs:
            if not free[i]:
                continue
            want = delta[i] + hp[i] * d[i] * float(v @ dp)
            lo, hi = a1 - t[i], a2 - t[i]
            if not lo <= want <= hi:
                want = min(max(want, lo), hi)
                free[i] = False
                clipped = True
            w = w - d[i] * (want - delta[i]) * v
            delta[i] = want
        if not clipped:
            break
    for i, s1, s2, a1, a2, _v in jobs:
        theta = min(max((t[i] + delta[i] - a1) / (a2 - a1), 0.0), 1.0)
        X[i, :] = 0.0
        X[i, s2] = theta
        if s1 >= 0:
            X[i, s1] = 1.0 - theta
    return X, moves


def cvx_optimum(pr):
    """The whole allocation program by CVXPY (CLARABEL): the optimum and the capacity constraints' duals (of the
    resources of capacity > 0). A resource of capacity 0 has its column held at 0 (``X^T d <= 0`` written as
    ``X[:, j] == 0``: the same set, which CLARABEL's interior method is given directly; it failed on the other)."""
    import cvxpy as cp  # (a test extra: the callers skip without it)

    n, m = pr.shape
    X = cp.Variable((n, m), nonneg=True)
    t = cp.sum(cp.multiply(pr.A, X), axis=1)
    u = pr.utility
    if u.name == "log":
        obj = cp.sum(cp.multiply(u.w, cp.log(t)))
    elif u.name == "linear":
        obj = u.w @ t
    elif u.name == "target":
        obj = -u.w @ cp.pos(u.t_des - t)
    else:
        obj = cp.sum(cp.multiply(u.w / (1 - u.alpha), cp.power(t, 1 - u.alpha)))
    keep = pr.R > 0
    cons = [cp.sum(X, axis=1) <= 1, X[:, keep].T @ pr.demand <= pr.R[keep]]
    if not keep.all():
        cons.append(X[:, ~keep] == 0)
    return cp.Problem(cp.Maximize(obj), cons).solve(solver="CLARABEL"), cons[1].dual_value
