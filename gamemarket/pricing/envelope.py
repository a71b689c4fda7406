"""The job subproblem's cost envelope (pricing model section 3).

For job ``i`` the cheapest way to reach throughput ``t`` at prices ``p`` is the lower convex envelope
of the points ``(0, 0)`` and ``(a_ij, d_i p_j)``, piecewise linear on ``[0, max_j a_ij]``. Sorting each
job's efficiencies once per problem (``O(m log m)``, prices do not change the order) makes each dual
evaluation a linear monotone-chain pass over ``m`` points per job, in parallel over jobs.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _chain(Ai, orderi, P, d, T, C, ix):
    """One job's lower convex envelope from the origin over its presorted points ``(a_ij, d p_j)``:
    fills ``T, C, ix`` (length ``m + 1``) and returns the number of segments."""
    T[0] = 0.0
    C[0] = 0.0
    ix[0] = -1
    h = 1
    for q in range(Ai.shape[0]):
        j = orderi[q]
        a = Ai[j]
        if a <= 0.0:
            continue
        c = d * P[j]
        if a == T[h - 1]:  # same throughput: keep the cheaper point
            if c >= C[h - 1]:
                continue
            h -= 1
        while h >= 2:
            ot = T[h - 2]
            oc = C[h - 2]
            # keep the last vertex only if it lies strictly below the chord to the new point
            if (C[h - 1] - oc) * (a - ot) < (c - oc) * (T[h - 1] - ot):
                break
            h -= 1
        T[h] = a
        C[h] = c
        ix[h] = j
        h += 1
    return h - 1


@njit(parallel=True, cache=True)
def envelopes(A, order, P, demand, T, C, idx, K):
    """Fill, per job, the envelope's vertices (``T`` throughput, ``C`` cost, ``idx`` resource, -1 for
    the origin) and its number of segments ``K``. Arrays ``T, C, idx`` have width ``m + 1``."""
    n = A.shape[0]
    for i in prange(n):
        K[i] = _chain(A[i], order[i], P, demand[i], T[i], C[i], idx[i])


def sort_efficiencies(A: np.ndarray) -> np.ndarray:
    """Per job, resources by increasing efficiency (then by index): computed once per problem."""
    return np.argsort(A, axis=1, kind="stable").astype(np.int32)


def envelope_arrays(A, order, P, demand):
    """Every job's cost envelope at prices ``P``: its vertices' throughputs ``T`` and costs ``C``, the
    resource at each vertex ``idx`` (-1 for the origin) and its number of segments ``K``, allocated
    and filled by :func:`envelopes`.

    Parameters
    ----------
    A : ndarray, shape (n, m)
        Efficiencies.
    order : ndarray, shape (n, m)
        :func:`sort_efficiencies` of ``A``.
    P : ndarray, shape (m,)
        Prices.
    demand : ndarray, shape (n,)
        Each job's demand (its cost of a unit of time on resource j is ``demand_i P_j``).
    """
    n, m = A.shape
    T = np.empty((n, m + 1), dtype=np.float64)
    C = np.empty((n, m + 1), dtype=np.float64)
    idx = np.empty((n, m + 1), dtype=np.int32)
    K = np.empty(n, dtype=np.int64)
    envelopes(A, order, np.ascontiguousarray(P, dtype=np.float64), demand, T, C, idx, K)
    return T, C, idx, K


def slopes(T, C, K):
    """Slope of every segment; +inf beyond a job's last segment."""
    with np.errstate(all="ignore"):  # entries beyond a job's last vertex are uninitialised padding
        S = (C[:, 1:] - C[:, :-1]) / (T[:, 1:] - T[:, :-1])
    seg = np.arange(1, T.shape[1])[None, :] <= K[:, None]
    return np.where(seg, S, np.inf)


def allocate(t, T, C, idx, K):
    """The two-resource allocation reaching throughput ``t`` at the envelope's cost.

    Returns ``(j1, x1, j2, x2, cost)`` per job (``j = -1`` with ``x = 0`` for an unused slot).
    """
    n = T.shape[0]
    rows = np.arange(n)
    # segment k with T[k-1] < t <= T[k] (k = 0 when t = 0)
    with np.errstate(all="ignore"):
        inner = np.where(np.arange(1, T.shape[1])[None, :] <= K[:, None], T[:, 1:], np.inf)
    k = np.minimum((inner < t[:, None]).sum(axis=1) + 1, np.maximum(K, 1))
    k = np.where(t <= 0, 0, k)
    lo_t = T[rows, np.maximum(k - 1, 0)]
    hi_t = T[rows, k]
    lo_c = C[rows, np.maximum(k - 1, 0)]
    hi_c = C[rows, k]
    with np.errstate(all="ignore"):
        theta = np.where(hi_t > lo_t, (t - lo_t) / (hi_t - lo_t), 0.0)
    theta = np.clip(theta, 0.0, 1.0)
    j1 = np.where(k > 0, idx[rows, np.maximum(k - 1, 0)], -1)
    j2 = np.where(k > 0, idx[rows, k], -1)
    x1 = np.where(j1 >= 0, 1.0 - theta, 0.0)
    x2 = np.where(j2 >= 0, theta, 0.0)
    x1 = np.where(k > 0, x1, 0.0)
    cost = np.where(k > 0, (1.0 - theta) * lo_c + theta * hi_c, 0.0)
    return j1.astype(np.int32), x1, j2.astype(np.int32), x2, cost


def segment(t, T, C, idx, K):
    """The segment each job's throughput lies on: (j1, j2, a1, a2, slope, interior), where
    ``interior`` says ``t`` is strictly inside it (where ``t`` moves with the segment's slope)."""
    n = T.shape[0]
    rows = np.arange(n)
    with np.errstate(all="ignore"):
        inner = np.where(np.arange(1, T.shape[1])[None, :] <= K[:, None], T[:, 1:], np.inf)
    k = np.minimum((inner < t[:, None]).sum(axis=1) + 1, np.maximum(K, 1))
    a1, a2 = T[rows, k - 1], T[rows, k]
    c1, c2 = C[rows, k - 1], C[rows, k]
    with np.errstate(all="ignore"):
        slope = (c2 - c1) / (a2 - a1)
    interior = (K > 0) & (t > a1) & (t < a2)
    return idx[rows, k - 1], idx[rows, k], a1, a2, slope, interior


# ----------------------------------------------------------------------------- fused fast path
# Built-in utilities as codes for the fused kernel (user-registered utilities take the numpy path).
U_LINEAR, U_POWER, U_TARGET = 0, 1, 2


@njit(cache=True, inline="always")
def _h(code, s, w, alpha, mu, td):
    if code == U_LINEAR:
        if mu > 0.0:
            v = (w - s) / mu
            return v if v > 0.0 else 0.0
        return np.inf if s < w else 0.0
    if code == U_POWER:
        if s <= 0.0:
            return np.inf
        if w <= 0.0:
            return 0.0
        if alpha == 1.0:
            return w / s
        return (w / s) ** (1.0 / alpha)
    # target
    if mu > 0.0:
        v = (w - s) / mu
        if v < 0.0:
            v = 0.0
        return v if v < td else td
    return td if s < w else 0.0


@njit(cache=True, inline="always")
def _u(code, t, w, alpha, td):
    if code == U_LINEAR:
        return w * t
    if code == U_POWER:
        if w == 0.0:  # a job of weight 0 values nothing, whatever its throughput (0 log 0: hunt 21b-F2)
            return 0.0
        if alpha == 1.0:
            return w * np.log(t) if t > 0.0 else -np.inf
        if t <= 0.0 and alpha > 1.0:
            return -np.inf
        return w * t ** (1.0 - alpha) / (1.0 - alpha)
    d = td - t
    return -w * d if d > 0.0 else 0.0


@njit(parallel=True, cache=True)
def solve_jobs(A, order, P, demand, code, w, alpha, mu, td, t_out, j1, x1, j2, x2, cost, uval):
    """Per job: the envelope (monotone chain over presorted points), the throughput maximizing
    ``u(t) - c(t)``, its two-resource allocation, cost and utility: one pass, in parallel."""
    n, m = A.shape
    for i in prange(n):
        T = np.empty(m + 1)
        C = np.empty(m + 1)
        ix = np.empty(m + 1, np.int32)
        K = _chain(A[i], order[i], P, demand[i], T, C, ix)
        tdi = td[i]
        # t* = min(T_K, min_k max(h(S_k), T_{k-1}))
        t = T[K]
        for k in range(1, K + 1):
            s = (C[k] - C[k - 1]) / (T[k] - T[k - 1])
            cand = _h(code, s, w[i], alpha, mu, tdi)
            if cand < T[k - 1]:
                cand = T[k - 1]
            if cand < t:
                t = cand
        # the segment holding t, and the allocation on it
        if K == 0 or t <= 0.0:
            t_out[i] = 0.0
            j1[i] = -1
            x1[i] = 0.0
            j2[i] = -1
            x2[i] = 0.0
            cost[i] = 0.0
        else:
            k = 1
            while k < K and T[k] < t:
                k += 1
            lo, hi = T[k - 1], T[k]
            theta = (t - lo) / (hi - lo) if hi > lo else 0.0
            if theta < 0.0:
                theta = 0.0
            elif theta > 1.0:
                theta = 1.0
            t_out[i] = t
            j1[i] = ix[k - 1]
            x1[i] = 1.0 - theta if ix[k - 1] >= 0 else 0.0
            j2[i] = ix[k]
            x2[i] = theta
            cost[i] = (1.0 - theta) * C[k - 1] + theta * C[k]
        uval[i] = _u(code, t_out[i], w[i], alpha, tdi)


@njit(cache=True)
def usage_of(j1, x1, j2, x2, demand, m):
    """``X^T d`` of a two-slot allocation."""
    u = np.zeros(m)
    for i in range(j1.shape[0]):
        if j1[i] >= 0:
            u[j1[i]] += demand[i] * x1[i]
        if j2[i] >= 0:
            u[j2[i]] += demand[i] * x2[i]
    return u


@njit(parallel=True, cache=True)
def throughput_of(A, j1, x1, j2, x2):
    """``a_i^T x_i`` of a two-slot allocation."""
    n = j1.shape[0]
    t = np.empty(n)
    for i in prange(n):
        v = 0.0
        if j1[i] >= 0:
            v += A[i, j1[i]] * x1[i]
        if j2[i] >= 0:
            v += A[i, j2[i]] * x2[i]
        t[i] = v
    return t
