"""Every extreme equilibrium of a small bimatrix game, as the completely labelled vertex pairs of its two
best-response polytopes, each polytope's vertices found by solving every choice of tight constraints (compiled).

For a game of payoffs ``A, B`` (``m x n``) made positive, the best-response polytopes are

    P = {x in R^m : x >= 0, B^T x <= 1}        Q = {y in R^n : A y <= 1, y >= 0}

A point's labels are the constraints tight there: label ``i < m`` where ``x_i = 0`` (in P) or ``(A y)_i = 1`` (in Q,
row ``i`` a best response), label ``m + j`` where ``(B^T x)_j = 1`` (column ``j`` a best response) or ``y_j = 0``.
A pair ``(x, y) != (0, 0)`` whose labels together are all ``m + n`` is, normalised, an equilibrium, and the extreme
equilibria are exactly the completely labelled pairs of vertices, whether the game is degenerate or not (Avis et al.
2010). A vertex of a ``d``-dimensional polytope with ``d + k`` constraints is where some ``d`` of them are tight and
the point is feasible: a game with ``C(m + n, m)`` such choices, a few thousand at most here (``fits``), is answered
in a fraction of a millisecond, where a general search (qhull's halfspace intersection, then each vertex's
responses, :func:`gamemarket.games.equilibria.polytope_equilibria`) pays its fixed costs a vertex at a time.

References
----------
.. [Avis2010] D. Avis, G. D. Rosenberg, R. Savani and B. von Stengel, "Enumeration of Nash
   equilibria for two-player games", Economic Theory 42 (2010) 9-37.
.. [vonStengel2002] B. von Stengel, "Computing equilibria for two-person games", Handbook of Game
   Theory with Economic Applications 3 (2002) 1723-1759.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

#: the most choices of tight constraints (``C(m + n, m)``) a game may have for this method (a 6 x 6 game has 924,
#: a 7 x 7 one 3,432; an 8 x 8 one, 12,870, goes to the general search)
MAX_CHOICES = 5000


def fits(m: int, n: int) -> bool:
    """Whether an ``m x n`` game is small enough for this method (``C(m + n, m) <= MAX_CHOICES``)."""
    return comb(m + n, m) <= MAX_CHOICES


@njit(cache=True)
def _solve(G: np.ndarray, r: np.ndarray, out: np.ndarray) -> bool:
    """``G z = r`` by Gaussian elimination with partial pivoting into ``out`` (``G``, ``r`` overwritten); False
    where a pivot is below 1e-12 of its column's size (singular, or nearly)."""
    d = G.shape[0]
    for c in range(d):
        p = c
        big = abs(G[c, c])
        for i in range(c + 1, d):
            if abs(G[i, c]) > big:
                big, p = abs(G[i, c]), i
        size = 0.0
        for i in range(d):
            size = max(size, abs(G[i, c]))
        if big <= 1e-12 * max(size, 1.0):
            return False
        if p != c:
            for j in range(d):
                G[c, j], G[p, j] = G[p, j], G[c, j]
            r[c], r[p] = r[p], r[c]
        for i in range(c + 1, d):
            f = G[i, c] / G[c, c]
            if f != 0.0:
                for j in range(c, d):
                    G[i, j] -= f * G[c, j]
                r[i] -= f * r[c]
    for c in range(d - 1, -1, -1):
        s = r[c]
        for j in range(c + 1, d):
            s -= G[c, j] * out[j]
        out[c] = s / G[c, c]
    return True


@njit(cache=True)
def _choice_point(C, idx, ftol, G, r, w, z, free, rows) -> bool:
    """The point where the choice ``idx`` of ``d`` constraints is tight, into ``z``; whether it is a vertex other
    than 0 (the system regular, the point feasible). The constraints ``z_c = 0`` (``c < d``) fix those
    coordinates; the rest (``t`` rows of ``C``) are a ``t x t`` system over the ``t`` coordinates left free: the
    same point as the ``d x d`` system, in a fraction of its work."""
    k, d = C.shape
    t = f = at = 0
    for c in range(d):
        if at < d and idx[at] == c:
            at += 1
        else:
            free[f] = c
            f += 1
    for a in range(at, d):
        rows[t] = idx[a] - d
        t += 1
    if t == 0:
        return False
    for a in range(t):
        for b in range(t):
            G[a, b] = C[rows[a], free[b]]
        r[a] = 1.0
    if not _solve(G[:t, :t], r[:t], w[:t]):
        return False
    for j in range(d):
        z[j] = 0.0
    zmax = 0.0
    for b in range(t):
        if w[b] < -ftol:
            return False
        z[free[b]] = max(w[b], 0.0)
        zmax = max(zmax, w[b])
    for i in range(k):
        s = 0.0
        for b in range(t):
            s += C[i, free[b]] * w[b]
        if s > 1.0 + ftol:
            return False
    return zmax > ftol


@njit(cache=True)
def _seen(found, count: int, z) -> bool:
    """Whether ``z`` is one of the first ``count`` rows of ``found`` (to 1e-9 of its size)."""
    d = z.shape[0]
    zmax = 0.0
    for j in range(d):
        zmax = max(zmax, abs(z[j]))
    for v in range(count):
        close = True
        for j in range(d):
            if abs(found[v, j] - z[j]) > 1e-9 * zmax:
                close = False
                break
        if close:
            return True
    return False


@njit(cache=True)
def _vertices(C: np.ndarray) -> np.ndarray:
    """The vertices other than 0 of ``{z in R^d : z >= 0, C z <= 1}`` (``C``: ``k x d``, positive), one per row,
    each found once: every choice of ``d`` of the ``d + k`` constraints made tight (constraint ``c < d``:
    ``z_c = 0``; ``c >= d``: row ``c - d`` of ``C`` at 1), solved, and kept where feasible."""
    k, d = C.shape
    ftol = 1e-9 * max(1.0, np.abs(C).max())
    idx = np.arange(d)
    found = np.empty((64, d))
    count = 0
    G, r, w, z = np.empty((d, d)), np.empty(d), np.empty(d), np.empty(d)
    free, rows = np.empty(d, np.int64), np.empty(d, np.int64)
    while True:
        if _choice_point(C, idx, ftol, G, r, w, z, free, rows) and not _seen(found, count, z):
            if count == found.shape[0]:
                grown = np.empty((2 * count, d))
                grown[:count] = found
                found = grown
            for j in range(d):
                found[count, j] = z[j]
            count += 1
        # the next choice of d constraints of d + k, in lexicographic order
        a = d - 1
        while a >= 0 and idx[a] == d + k - d + a:
            a -= 1
        if a < 0:
            break
        idx[a] += 1
        for b in range(a + 1, d):
            idx[b] = idx[b - 1] + 1
    return found[:count].copy()


@njit(cache=True)
def _labels(V: np.ndarray, C: np.ndarray, zero_first: bool) -> np.ndarray:
    """Each vertex's labels as a bit mask over the ``d + k`` constraints: the zero coordinates (bit ``j`` for
    ``z_j = 0`` where ``zero_first``, else bit ``k + j``) and the tight rows of ``C`` (bit ``d + i``, else ``i``)."""
    k, d = C.shape
    count = V.shape[0]
    scale = 0.0
    for v in range(count):
        for j in range(d):
            scale = max(scale, abs(V[v, j]))
    vtol = 1e-9 * (scale if scale > 0 else 1.0)
    cmax = 0.0
    for i in range(k):
        for j in range(d):
            cmax = max(cmax, abs(C[i, j]))
    ttol = 1e-9 * max(1.0, cmax)
    out = np.zeros(count, np.int64)
    for v in range(count):
        mask = 0
        for j in range(d):
            if V[v, j] <= vtol:
                mask |= 1 << (j if zero_first else k + j)
        for i in range(k):
            s = 0.0
            for j in range(d):
                s += C[i, j] * V[v, j]
            if abs(1.0 - s) <= ttol:
                mask |= 1 << (d + i if zero_first else i)
        out[v] = mask
    return out


@njit(cache=True)
def _pairs(Lx: np.ndarray, Ly: np.ndarray, full: int) -> np.ndarray:
    """The index pairs ``(a, b)`` whose label masks together are ``full``."""
    out = np.empty((len(Lx) * len(Ly), 2), np.int64)
    count = 0
    for a in range(len(Lx)):
        for b in range(len(Ly)):
            if Lx[a] | Ly[b] == full:
                out[count, 0] = a
                out[count, 1] = b
                count += 1
    return out[:count].copy()


def _popcount(masks: np.ndarray) -> np.ndarray:
    return np.array([bin(int(v)).count("1") for v in masks], dtype=np.int64)


def vertex_pair_equilibria(Ap: np.ndarray, Bp: np.ndarray) -> tuple[list[tuple[np.ndarray, np.ndarray]], bool]:
    """Every extreme equilibrium of the game ``(Ap, Bp)`` (payoffs made positive, ``fits(m, n)``), and whether the
    game is degenerate (a vertex of either polytope with more labels than its dimension: a mixed strategy with more
    pure best responses than its support's size, or a support whose responses' square system is singular).

    Returns
    -------
    (profiles, degenerate)
        ``profiles``: ``(x, y)`` probability vectors, one per completely labelled vertex pair.
    """
    Ap = np.ascontiguousarray(Ap, dtype=np.float64)
    Bp = np.ascontiguousarray(Bp, dtype=np.float64)
    m, n = Ap.shape
    VP = _vertices(np.ascontiguousarray(Bp.T))  # x in R^m: x >= 0, B^T x <= 1
    VQ = _vertices(Ap)  # y in R^n: A y <= 1, y >= 0
    LP = _labels(VP, np.ascontiguousarray(Bp.T), True)  # bits 0..m-1: x_i = 0; m + j: column j a best response
    LQ = _labels(VQ, Ap, False)  # bits 0..m-1: row i a best response; m + j: y_j = 0
    degenerate = bool((_popcount(LP) > m).any() or (_popcount(LQ) > n).any())
    if not degenerate:  # a support whose tight responses are as many but whose square system is singular
        degenerate = bool(_singular_support(VP, LP, Ap))
    out = []
    for a, b in _pairs(LP, LQ, (1 << (m + n)) - 1):
        x, y = VP[a], VQ[b]
        out.append((x / x.sum(), y / y.sum()))
    return out, degenerate


@njit(cache=True)
def _singular_support(VP: np.ndarray, LP: np.ndarray, Ap: np.ndarray) -> bool:
    """Whether some vertex of P with support ``S`` and as many tight columns ``T`` has ``Ap[S, T]`` singular
    (``np.linalg.matrix_rank``'s tolerance)."""
    m, n = Ap.shape
    S = np.empty(m, np.int64)
    T = np.empty(n, np.int64)
    for v in range(VP.shape[0]):
        s = t = 0
        for i in range(m):
            if not (LP[v] >> i) & 1:
                S[s] = i
                s += 1
        for j in range(n):
            if (LP[v] >> (m + j)) & 1:
                T[t] = j
                t += 1
        if s == t:
            sub = np.empty((s, s))
            for a in range(s):
                for b in range(s):
                    sub[a, b] = Ap[S[a], T[b]]
            if np.linalg.matrix_rank(sub) < s:
                return True
    return False
