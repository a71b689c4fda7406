"""Ties at the optimal prices: the dual's kinks, and the allocation they hide.

With a strictly concave utility each job's throughput ``t_i(p)`` is unique, but its allocation is not
where three points of its cost envelope are collinear (for instance two resources with the same
price per unit of efficiency, ``p_k / a_ik = p_l / a_il``): the job can reach ``t_i`` on either pair at
the same cost. The dual ``g`` has a kink there, and at the optimal prices it generically sits on
several of them. ``x(p)`` then picks one representation per tied job, and its usage misses ``R`` by up
to a whole job per tie, however close ``p`` is to optimal; a quasi-Newton method, whose gradient jumps
at every kink, stalls near such a point (alpha-fair utilities of large alpha, whose smooth part is
almost flat, are the plain case).

This module finds the tied jobs at ``p`` (an alternative pair within ``tol`` of the job's supporting
line: its reduced cost), and mixes each one's two representations, ``lambda_i`` in ``[0, 1]``, so
that the usage comes as close to ``R`` as it can in the metric ``M = H^-1`` of the dual's smooth part:

    min_lambda  w^T M w,   w = R - usage(x(p) + sum_i lambda_i v_i) - s,   s >= 0 on floor-priced resources

The residual ``w`` is then the dual's minimal subgradient at ``p`` in that metric: ``-M w`` is the
Newton step of the local model ``g(p) + max_lambda w(lambda)^T dp + dp^T H dp / 2`` (a semismooth
Newton step), and ``w = 0`` certifies that ``p`` is optimal. The mixture is also a better feasible
recovery: it keeps every throughput, so it loses no utility.

A mixture of two pairs that share no endpoint with the origin uses three resources. The allocation
keeps every job on at most two, so such jobs are rounded to one representation (the solve is then
repeated for the rest); the repair absorbs what rounding leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange
from scipy.sparse.linalg import LinearOperator

from gamemarket.errors import limit_clock

MAX_TIES = 20000  #: beyond this many tied jobs (degenerate problems) only the smallest reduced costs mix


@dataclass
class Ties:
    """Jobs indifferent between two resource pairs at the current prices, with both pairs and their time
    shares: the repair mixes them to meet the capacities (Agrawal et al. 2022).
    """

    jobs: np.ndarray  #: tied jobs
    slots: np.ndarray  #: (T, 4) resources: base left, base right, alternative left, alternative right (-1: origin)
    base: np.ndarray  #: (T, 2) time shares of the base pair
    alt: np.ndarray  #: (T, 2) time shares of the alternative pair
    three: np.ndarray  #: mixing the two would use three resources

    def __len__(self) -> int:
        return len(self.jobs)

    def usage_change(self, demand: np.ndarray, m: int) -> np.ndarray:
        """(m, T): the usage change of moving each tied job from its base to its alternative."""
        T = len(self.jobs)
        V = np.zeros((m, T))
        cols = np.arange(T)
        d = demand[self.jobs]
        for s, w in ((0, -self.base[:, 0]), (1, -self.base[:, 1]), (2, self.alt[:, 0]), (3, self.alt[:, 1])):
            k = self.slots[:, s]
            ok = k >= 0
            np.add.at(V, (k[ok], cols[ok]), (w * d)[ok])
        return V


def find_ties(A: np.ndarray, demand: np.ndarray, p: np.ndarray, j1, x1, j2, x2, t, tol: float = 1e-6) -> Ties:
    """Jobs of ``x(p)`` (given as two slots and throughputs ``t``) with a second cheapest
    representation of their throughput: a point of their envelope within ``tol * d_i max(p)`` of the
    line their allocation lies on. Each gets its single best alternative pair."""
    if A.shape[0] == 0 or not (p > 0).any():
        return _empty()
    P = np.ascontiguousarray(p, dtype=np.float64)
    thr = np.ascontiguousarray(tol * demand * float(P.max()), dtype=np.float64)
    kL, kR, xL, xR, l, rl = _alternatives(A, P, demand, j1, x1, j2, x2, thr)
    sel = np.flatnonzero(rl <= thr)
    if len(sel) > MAX_TIES:
        sel = sel[np.argsort(rl[sel], kind="stable")[:MAX_TIES]]
    kL, kR, xL, xR, l, tt = kL[sel], kR[sel], xL[sel], xR[sel], l[sel], t[sel]
    aL = np.where(kL >= 0, A[sel, np.maximum(kL, 0)], 0.0).astype(np.float64)
    aR = A[sel, kR].astype(np.float64)
    al = np.where(l >= 0, A[sel, np.maximum(l, 0)], 0.0).astype(np.float64)
    left = al <= tt  # the new point replaces the endpoint on its side of t
    qL, aqL = np.where(left, l, kL), np.where(left, al, aL)
    qR, aqR = np.where(left, kR, l), np.where(left, aR, al)
    ok = (aqR > aqL) & (aqR >= tt) & (aqL <= tt)
    sel, kL, kR, xL, xR, qL, qR, aqL, aqR, tt = (v[ok] for v in (sel, kL, kR, xL, xR, qL, qR, aqL, aqR, tt))
    th = (tt - aqL) / (aqR - aqL)
    slots = np.stack([kL, kR, qL, qR], axis=1).astype(np.int64)
    three = _count_distinct(slots) > 2
    return Ties(sel, slots, np.stack([xL, xR], axis=1), np.stack([1.0 - th, th], axis=1), three)


@njit(parallel=True, cache=True)
def _alternatives(A, p, d, j1, x1, j2, x2, thr):
    """Per job: the ends of the envelope segment its allocation lies on (``kL`` left, -1 for the
    origin; ``kR`` right) with their time shares, and its cheapest other point (-1: the origin; where
    several are within ``thr`` of the line, the ``i mod count``-th of them) with that point's reduced
    cost ``d p_l - (alpha + beta a_l)`` against the segment's line. The reduced cost is ``inf`` for jobs
    at a vertex or unallocated: their throughput has one cheapest representation."""
    n, m = A.shape
    kL = np.full(n, -1, np.int64)
    kR = np.full(n, -1, np.int64)
    xL = np.zeros(n)
    xR = np.zeros(n)
    best = np.full(n, -1, np.int64)
    rbest = np.full(n, np.inf)
    for i in prange(n):
        on_segment, L, R, xl, xr, aL, aR, cL = _segment(A, p, d, j1, x1, j2, x2, i)
        if not on_segment:
            continue
        beta = (d[i] * p[R] - cL) / (aR - aL)
        alpha = cL - beta * aL
        b, rb, count = _cheapest_other(A, p, d, i, L, R, alpha, beta, thr[i])
        if count > 1:
            b, rb = _tied_in_turn(A, p, d, i, L, R, alpha, beta, thr[i], count, b, rb)
        kL[i] = L
        kR[i] = R
        xL[i] = xl
        xR[i] = xr
        best[i] = b
        rbest[i] = rb
    return kL, kR, xL, xR, best, rbest


@njit(cache=True)
def _segment(A, p, d, j1, x1, j2, x2, i):
    """Job ``i``'s envelope segment: whether its allocation lies inside one (on two resources of different
    efficiency, or on one resource with time to spare: the segment from the origin), its left and right
    ends (-1: the origin), their time shares and efficiencies, and the left end's cost ``d p_L``."""
    on1 = j1[i] >= 0 and x1[i] > 0.0
    on2 = j2[i] >= 0 and x2[i] > 0.0
    L = -1
    R = -1
    xl = 0.0
    xr = 0.0
    aL = 0.0
    aR = 0.0
    cL = 0.0
    if on1 and on2:
        a1 = float(A[i, j1[i]])
        a2 = float(A[i, j2[i]])
        if a1 == a2:
            return False, L, R, xl, xr, aL, aR, cL
        if a1 < a2:
            L, R, xl, xr, aL, aR = j1[i], j2[i], x1[i], x2[i], a1, a2
        else:
            L, R, xl, xr, aL, aR = j2[i], j1[i], x2[i], x1[i], a2, a1
        cL = d[i] * p[L]
    elif on1 != on2:
        R = j1[i] if on1 else j2[i]
        xr = x1[i] if on1 else x2[i]
        if xr >= 1.0 - 1e-12:  # at a vertex
            return False, L, R, xl, xr, aL, aR, cL
        aR = float(A[i, R])  # on the first segment, from the origin
    else:
        return False, L, R, xl, xr, aL, aR, cL
    return True, L, R, xl, xr, aL, aR, cL


@njit(cache=True)
def _cheapest_other(A, p, d, i, L, R, alpha, beta, thr):
    """Job ``i``'s cheapest point off its segment (ends ``L``, ``R``; line ``alpha + beta a``): its resource
    (-1: the origin), its reduced cost, and how many points lie within ``thr`` of the line."""
    b = -1
    rb = np.inf
    if L >= 0:
        rb = -alpha  # the origin
    count = 1 if (L >= 0 and -alpha <= thr) else 0
    for q in range(A.shape[1]):
        a = float(A[i, q])
        if a <= 0.0 or q == L or q == R:
            continue
        r = d[i] * p[q] - (alpha + beta * a)
        count += r <= thr
        if r < rb:
            b = q
            rb = r
    return b, rb, count


@njit(cache=True)
def _tied_in_turn(A, p, d, i, L, R, alpha, beta, thr, count, b, rb):
    """Where ``count`` points lie within ``thr`` of job ``i``'s line, the ``i mod count``-th of them and its
    reduced cost (``b``, ``rb`` where none is found)."""
    # several points tie (collinear points: jobs alike, or prices proportional to efficiency): the
    # jobs take them in turn, so that the mixture can reach every tied resource, not just the one
    # every such job would otherwise name first
    c = i % count
    if L >= 0 and -alpha <= thr:
        if c == 0:
            b, rb = -1, -alpha
        c -= 1
    for q in range(A.shape[1]):
        a = float(A[i, q])
        if c < 0 or a <= 0.0 or q == L or q == R:
            continue
        r = d[i] * p[q] - (alpha + beta * a)
        if r <= thr:
            if c == 0:
                b, rb = q, r
            c -= 1
    return b, rb


def _count_distinct(slots: np.ndarray) -> np.ndarray:
    s = np.sort(np.where(slots >= 0, slots, -1), axis=1)
    new = (s[:, 1:] != s[:, :-1]) & (s[:, 1:] >= 0)
    return new.sum(axis=1) + (s[:, 0] >= 0)


def _empty() -> Ties:
    return Ties(
        np.zeros(0, np.int64), np.zeros((0, 4), np.int64), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, bool)
    )


@dataclass(frozen=True)
class Metric:
    """A factor ``L`` with ``L L^T = (H + reg I)^-1`` (:func:`metric`), held as its dense block on the resources
    ``on`` (those the Hessian touches) and ``scale`` times the identity on every other: an ``m x m`` Hessian whose
    rows outside ``on`` are zero gives that block-diagonal factor exactly (a Cholesky factor keeps a row and column
    that are zero off the diagonal apart, in any order), in ``len(on)**2`` memory rather than ``m**2`` (hunt
    24b-F3: 30 jobs over 3,000 resources inverted a 3,000 x 3,000 matrix at every polish)."""

    on: np.ndarray
    block: np.ndarray
    scale: float
    m: int

    def transpose_times(self, X: np.ndarray) -> np.ndarray:
        """``L^T @ X`` for a vector or a matrix of ``m`` rows."""
        out = np.asarray(X, dtype=np.float64) * self.scale
        if len(self.on):
            out[self.on] = self.block.T @ np.asarray(X, dtype=np.float64)[self.on]
        return out

    def rows_of_transpose_times(self, X: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``(L^T Y)[rows]`` for the ``Y`` that is ``X`` (a vector or matrix of ``len(rows)`` rows) on the sorted
        resources ``rows``, every one of ``on`` among them, and 0 elsewhere: ``L^T`` is the identity times ``scale``
        outside ``on``, so those rows are all of it that ``Y`` reaches."""
        X = np.asarray(X, dtype=np.float64)
        out = X * self.scale
        if len(self.on):
            at = np.searchsorted(rows, self.on)
            out[at] = self.block.T @ X[at]
        return out


def metric(H: np.ndarray | None, m: int) -> Metric:
    """A factor ``L`` with ``L L^T = (H + reg I)^-1``: the smooth part's inverse Hessian, regularised
    (identity when no Hessian is known), as a :class:`Metric` on the resources with a nonzero row of ``H``."""
    if H is None or not np.isfinite(H).all() or np.trace(H) <= 0:
        return Metric(np.zeros(0, np.int64), np.zeros((0, 0)), 1.0, m)
    on = np.flatnonzero(np.any(H != 0, axis=1) | np.any(H != 0, axis=0))
    return metric_on(H[np.ix_(on, on)], on, m)


def metric_on(block: np.ndarray, on: np.ndarray, m: int) -> Metric:
    """:func:`metric` of the ``m x m`` Hessian that is ``block`` on the resources ``on`` and zero elsewhere."""
    trace = float(np.trace(block)) if len(on) else 0.0
    if not np.isfinite(block).all() or trace <= 0:
        return Metric(np.zeros(0, np.int64), np.zeros((0, 0)), 1.0, m)
    reg = 1e-10 * trace / m
    Hr = 0.5 * (block + block.T) + reg * np.eye(len(on))
    try:
        return Metric(np.asarray(on, np.int64), np.linalg.cholesky(np.linalg.inv(Hr)), 1.0 / np.sqrt(reg), m)
    except np.linalg.LinAlgError:
        return Metric(np.zeros(0, np.int64), np.zeros((0, 0)), 1.0 / np.sqrt(trace / m), m)


#: steps of the iterative bounded least squares when more than 2,000 jobs tie (``mix``)
MAX_TRF_STEPS = 50


def mix(
    ties: Ties,
    usage: np.ndarray,
    R: np.ndarray,
    demand: np.ndarray,
    L: Metric,
    slack: np.ndarray | None = None,
    deadline: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The mixture weights ``lambda`` and the residual ``w = R - usage - s`` (``s >= 0`` only where
    ``slack`` is True: resources whose unsold capacity is allowed, at a price floor).

    ``deadline`` (a ``limit_clock`` reading): no least-squares solve is begun after it, and the iterative one
    (more than 2,000 columns) stops at it; the mixture found until then (none: ``lambda = 0``) is the answer, a
    weaker but still true subgradient (hunt 28c's sibling: with 50 jobs over 10,000 resources a solve over 9,793
    dense slack columns ran 23 s past a 5 s limit)."""
    m = len(R)
    b = R - usage
    if len(ties) == 0 and (slack is None or not slack.any()):
        return np.zeros(0), b
    V = ties.usage_change(demand, m)
    lam = np.zeros(len(ties))
    free = np.ones(len(ties), bool)
    s_cols = np.flatnonzero(slack) if slack is not None else np.zeros(0, np.int64)
    for _round in range(2):  # second round: jobs whose mixture would need three resources are rounded
        if deadline is not None and limit_clock() >= deadline:
            break
        x = _mixture(V[:, free], b - V[:, ~free] @ lam[~free], L, s_cols, deadline)
        if x is None:  # stopped at the deadline
            break
        lam[free] = x
        if _round == 1 or not (ties.three & (lam > 0) & (lam < 1)).any():
            break
        rnd = ties.three & free
        lam[rnd] = np.where(lam[rnd] >= 0.5, 1.0, 0.0)
        free &= ~rnd
    s = np.zeros(m)
    w = b - V @ lam
    if len(s_cols):
        s[s_cols] = np.maximum(w[s_cols], 0.0)
        w = w - s
    return lam, w


class _Late(Exception):
    """The deadline passed during the iterative least-squares solve (``_mixture``)."""


def _mixture(Vf: np.ndarray, r: np.ndarray, L: Metric, s_cols: np.ndarray, deadline: float | None):
    """The weights in ``[0, 1]`` of the columns ``Vf`` (and slack ``s >= 0`` on the resources ``s_cols``) that bring
    ``Vf lambda + s`` closest to ``r`` in the metric ``L L^T``; None where the deadline stopped the solve.

    Only the resources the columns touch and those of the metric's dense block (``L.on``) couple: on every other one
    ``L^T`` is a multiple of the identity and the slack, alone in its row, takes that row's whole positive part
    whatever ``lambda`` is. Those rows and their slack columns are left out of the solve, which has the same
    solutions for ``lambda`` (it was a dense ``m x (T + slack)`` problem: with 50 jobs over 10,000 resources and no
    tie, 10,000 x 9,793 columns of the identity, 23 s of work for no weight at all)."""
    from scipy.optimize import lsq_linear  # deferred: scipy.optimize (about a second) only where ties are split

    T = Vf.shape[1]
    if T == 0:
        return np.zeros(0)  # the slack alone: nothing to weigh (it is the positive part of the residual)
    rows = np.union1d(np.flatnonzero(np.any(Vf != 0, axis=1)), L.on)
    if len(rows) == 0:
        return np.zeros(T)  # columns of zeros: every weight is as good (the least-squares solution's minimum norm)
    s_at = np.flatnonzero(np.isin(rows, s_cols))  # the coupled rows with slack, as positions in ``rows``
    unit = np.zeros((len(rows), len(s_at)))  # the slack's columns of the identity
    unit[s_at, np.arange(len(s_at))] = 1.0
    lhs = L.rows_of_transpose_times(np.hstack([Vf[rows], unit]), rows)
    rhs = L.rows_of_transpose_times(r[rows], rows)
    ub = np.r_[np.ones(T), np.full(len(s_at), np.inf)]
    bounds = (np.zeros(len(ub)), ub)
    if len(ub) <= 2000:
        sol = lsq_linear(lhs, rhs, bounds=bounds, method="bvls")
    else:  # many ties (near zero prices nearly every job ties): an exact QR per step took minutes; the
        # iterative solver with a step cap gives a mixture that is a candidate only (its gap is measured)
        try:
            sol = lsq_linear(
                lhs if deadline is None else _until(lhs, deadline),
                rhs,
                bounds=bounds,
                method="trf",
                lsq_solver="lsmr",
                max_iter=MAX_TRF_STEPS,
            )
        except _Late:
            return None
    return np.clip(sol.x, 0.0, ub)[:T]


def _until(M: np.ndarray, deadline: float):
    """``M`` as a linear operator whose every product first looks at the clock (``_Late`` past ``deadline``): the
    iterative solve in pieces of one product each."""

    def checked(product):
        def run(X):
            if limit_clock() >= deadline:
                raise _Late
            return product(X)

        return run

    return LinearOperator(
        M.shape,
        matvec=checked(M.dot),
        rmatvec=checked(M.T.dot),
        matmat=checked(M.dot),
        rmatmat=checked(M.T.dot),
        dtype=M.dtype,
    )


def apply(ties: Ties, lam: np.ndarray, j1, x1, j2, x2):
    """The two-slot allocation with each tied job moved ``lambda_i`` of the way to its alternative."""
    j1, x1, j2, x2 = j1.copy(), x1.copy(), j2.copy(), x2.copy()
    T = len(ties)
    if T == 0:
        return j1, x1, j2, x2
    lam = np.where(ties.three & (lam > 0) & (lam < 1), np.round(lam), lam)  # never three resources
    m = int(max(ties.slots.max(), 0)) + 1
    X = np.zeros((T, m))
    rows = np.arange(T)
    wts = np.stack(
        [(1 - lam) * ties.base[:, 0], (1 - lam) * ties.base[:, 1], lam * ties.alt[:, 0], lam * ties.alt[:, 1]], axis=1
    )
    for s in range(4):
        k = ties.slots[:, s]
        ok = (k >= 0) & (wts[:, s] > 0)
        np.add.at(X, (rows[ok], k[ok]), wts[ok, s])
    top = np.argsort(-X, axis=1, kind="stable")[:, :2]
    v1 = X[rows, top[:, 0]]
    v2 = X[rows, top[:, 1]] if m > 1 else np.zeros(T)
    jb = ties.jobs
    j1[jb] = np.where(v1 > 0, top[:, 0], -1)
    x1[jb] = v1
    j2[jb] = np.where(v2 > 0, top[:, 1] if m > 1 else -1, -1)
    x2[jb] = np.where(v2 > 0, v2, 0.0)
    return j1, x1, j2, x2
