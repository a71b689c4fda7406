"""The job subproblem's cost envelope (pricing model section 3).

For job ``i`` the cheapest way to reach throughput ``t`` at prices ``p`` is the lower convex envelope
of the points ``(0, 0)`` and ``(a_ij, d_i p_j)``, piecewise linear on ``[0, max_j a_ij]``. Sorting each
job's efficiencies once per problem (``O(m log m)``, prices do not change the order) makes each dual
evaluation a linear monotone-chain pass over ``m`` points per job, in parallel over jobs.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def envelopes(A, order, P, demand, T, C, idx, K):
    """Fill, per job, the envelope's vertices (``T`` throughput, ``C`` cost, ``idx`` resource, -1 for
    the origin) and its number of segments ``K``. Arrays ``T, C, idx`` have width ``m + 1``."""
    n, m = A.shape
    for i in prange(n):
        T[i, 0] = 0.0
        C[i, 0] = 0.0
        idx[i, 0] = -1
        h = 1
        d = demand[i]
        for q in range(m):
            j = order[i, q]
            a = A[i, j]
            if a <= 0.0:
                continue
            c = d * P[j]
            if a == T[i, h - 1]:  # same throughput: keep the cheaper point
                if c >= C[i, h - 1]:
                    continue
                h -= 1
            while h >= 2:
                ot = T[i, h - 2]
                oc = C[i, h - 2]
                # keep the last vertex only if it lies strictly below the chord to the new point
                if (C[i, h - 1] - oc) * (a - ot) < (c - oc) * (T[i, h - 1] - ot):
                    break
                h -= 1
            T[i, h] = a
            C[i, h] = c
            idx[i, h] = j
            h += 1
        K[i] = h - 1


def sort_efficiencies(A: np.ndarray) -> np.ndarray:
    """Per job, resources by increasing efficiency (then by index): computed once per problem."""
    return np.argsort(A, axis=1, kind="stable").astype(np.int32)


def envelope_arrays(A, order, P, demand):
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
