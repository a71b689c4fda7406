"""The finish by a restricted linear program: exact for piecewise-linear utilities (linear, target),
on tangent cuts for smooth ones.

With a piecewise-linear utility the allocation problem is a linear program, and its dual is piecewise
linear: near the optimal prices ``x(p)`` jumps between extreme allocations and every job at the margin
ties, so neither the smoothed quasi-Newton method nor the greedy repair closes the last part of the gap
on hard instances (heavy-tailed efficiencies, scarce capacity). Near-optimal prices do tell which few
resources each job may use. This module solves the linear program restricted to those columns (HiGHS'
dual simplex through ``scipy.optimize.linprog``: an optimal vertex, so at most ``m`` jobs use more than
one resource beyond what the constraints force; its interior-point method where the simplex fails),
reads its capacity duals as prices, and adds the columns that the full problem's jobs prefer at those
prices, until none is missing (column generation) or the rounds run out. A job that a vertex puts on
three or more resources keeps them all (``Allocation.extra``): with capacities of a few jobs' worth the
optimum can need that.

Smooth utilities (log, alpha-fair) get the same program on an outer approximation: tangents of each
job's utility around its throughput at the starting prices, plus a tangent wherever the program's
solution overstates a job's utility (Kelley's cutting planes). The allocation is then measured on the real
utility, so the approximation can cost accuracy, never soundness.

What it returns is checked like everything else: the original (unsmoothed) dual at the prices, which
bounds the optimum from above for any prices, against the objective of the feasible allocation.

References
----------
.. [Dantzig1960] G. B. Dantzig and P. Wolfe, "Decomposition principle for linear programs", Operations
   Research 8 (1960) 101-111. (Restricted master problems and pricing out columns.)
.. [Kelley1960] J. E. Kelley, "The cutting-plane method for solving convex programs", Journal of the SIAM 8
   (1960) 703-712. (Tangent cuts of a concave objective, added where the program overstates it.)
.. [Huangfu2018] Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method",
   Mathematical Programming Computation 10 (2018) 119-142. (HiGHS, as in scipy.)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from gamemarket.errors import limit_clock
from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.problem import Problem
from gamemarket.pricing.repair import make_feasible

#: the largest restricted program solved (columns); beyond it the finish is skipped and says so. HiGHS'
#: time grows faster than the columns (``benchmarks/bench_lp_finish.py``: 8.3 s at 40,000 columns, 19.5 s
#: at 80,000, one core), so that an unconverged solve stays a bounded wait
MAX_COLUMNS = 100_000
#: a problem of at most this many (job, resource) pairs starts with every one of them: column generation on 5 jobs
#: and 150 resources (every job spread over many resources at the optimum) ran out of rounds at a gap of 17.5,
#: where the whole program is a small LP HiGHS solves at once (as many columns as 1,000 jobs start with: PER_JOB)
ALL_COLUMNS = 4_000
#: columns per job taken from the prices: its best resources by value per unit time
PER_JOB = 4


@dataclass
class Finish:
    """The finish's best answer: allocation, its objective (with the reserve-price rent), prices and the
    dual there, the number of column-generation rounds and columns, why it stopped, and how many jobs it
    puts on three or more resources (an optimum can need that when capacities are a few jobs' worth)."""

    allocation: Allocation
    objective: float
    prices: np.ndarray
    dual: float
    rounds: int
    columns: int
    message: str
    on_three: int = 0  #: jobs the allocation puts on three or more resources (``Allocation.extra``)


def _columns(A: np.ndarray, demand: np.ndarray, w: np.ndarray, p: np.ndarray, k: int):
    """Per job, the ``k`` resources of highest value per unit time ``w a_ij - d p_j`` (``w``: the job's
    marginal value of throughput; positive efficiency only), as flat (job, resource) arrays."""
    n, m = A.shape
    k = min(k, m)
    val = np.where(A > 0, w[:, None] * A - demand[:, None] * p[None, :], -np.inf)
    top = np.argpartition(-val, k - 1, axis=1)[:, :k] if k < m else np.broadcast_to(np.arange(m), (n, m))
    rows = np.repeat(np.arange(n), k)
    cols = np.asarray(top).reshape(-1)
    ok = A[rows, cols] > 0
    return rows[ok], cols[ok]


#: relative offsets of the tangent points around each job's throughput (smooth utilities)
TANGENTS = np.array([0.0, 1e-6, -1e-6, 1e-5, -1e-5, 1e-4, -1e-4, 1e-3, -1e-3, 1e-2, -1e-2, 0.1, -0.1, 0.3, -0.3])


#: HiGHS' limits (its options ``large_matrix_value``, ``infinite_bound`` and ``infinite_cost``): it refuses a
#: program with a matrix entry of 1e15 or more ("model error"), and reads a bound or a cost of 1e20 or more as
#: infinite (a cut of right-hand side -1e49 made the program infeasible; costs of 1e61, "unknown")
HIGHS_LARGE_MATRIX_VALUE = 1e15
HIGHS_INFINITE = 1e20


@dataclass
class _Model:
    """The utility as the LP sees it: ``y_i <= slope s_i + intercept`` for each cut of job ``i`` (``s_i``
    its throughput), the marginal values that pick columns, each job's scale (``y_i = scale_i yhat_i``,
    so that every row is of order one), lower bounds on throughput, whether the cuts are exact, and each
    job's largest efficiency (which bounds its cuts' coefficients)."""

    job: np.ndarray
    slope: np.ndarray
    intercept: np.ndarray
    marginal: np.ndarray
    scale: np.ndarray
    s_min: np.ndarray
    exact: bool
    amax: np.ndarray

    def add(self, job, slope, intercept) -> int:
        """Append the cuts ``(job, slope, intercept)`` that are finite and, for tangents, that HiGHS
        accepts in the program's units (a tangent far below a job's throughput is steep as ``t^-alpha``:
        such a cut is left out, which loosens the outer approximation, never its soundness; the tangent at
        the job's own throughput always fits, its coefficients at most ``max(a_i) / t_i <= 1e9``, see
        ``_model``); returns how many were added."""
        ok = np.isfinite(slope) & np.isfinite(intercept)
        if not self.exact:
            sc = self.scale[job]
            with np.errstate(invalid="ignore", over="ignore"):
                ok &= np.abs(slope) * self.amax[job] < HIGHS_LARGE_MATRIX_VALUE * sc
                ok &= np.abs(intercept) < HIGHS_INFINITE * sc
        self.job = np.r_[self.job, job[ok]]
        self.slope = np.r_[self.slope, slope[ok]]
        self.intercept = np.r_[self.intercept, intercept[ok]]
        return int(ok.sum())


def _tangents(util, tau: np.ndarray):
    """Slope and intercept of each job's tangent at ``tau`` (one point per job)."""
    with np.errstate(all="ignore"):
        g = np.asarray(util.marginal(tau), dtype=np.float64)
        return g, np.asarray(util.value(tau), dtype=np.float64) - g * tau


def _model(util, t: np.ndarray, amax: np.ndarray) -> _Model:
    """Exact cuts for piecewise-linear utilities (``linear_pieces``), else tangents at ``TANGENTS`` around
    the throughputs ``t`` (an outer approximation, refined by ``lp_finish``)."""
    n = len(t)
    jobs = np.arange(n)
    pieces = util.linear_pieces()
    if pieces is not None:
        w, cap = pieces
        capped = np.isfinite(cap)
        scale = np.where(w * amax > 0, w * amax, 1.0)
        model = _Model(jobs, w.astype(np.float64), np.zeros(n), w, scale, np.zeros(n), True, amax)
        model.add(jobs[capped], np.zeros(int(capped.sum())), (w * cap)[capped])
        return model
    tc = np.clip(np.nan_to_num(t, nan=0.0), amax * 1e-9, amax)
    g, _ = _tangents(util, tc)
    scale = np.abs(g) * tc
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    model = _Model(np.zeros(0, np.int64), np.zeros(0), np.zeros(0), g, scale, np.zeros(n), False, amax)
    for off in TANGENTS:
        tau = np.clip(tc * (1.0 + off), amax * 1e-12, amax)
        model.add(jobs, *_tangents(util, tau))
    if util.needs_positive_throughput:  # u(0) = -inf: the cuts alone would let the LP starve a job
        model.s_min = 0.1 * tc
    return model


def _round_program(problem, A, rows, cols, model: _Model, lo, deadline: float | None):
    """One round's restricted program (:func:`_solve_restricted`) before ``deadline`` (None: no limit): its
    solution, or None with the reason (the time limit, or HiGHS found no optimum)."""
    left = None if deadline is None else deadline - limit_clock()
    out = None if left is not None and left <= 0 else _solve_restricted(problem, A, rows, cols, model, lo, left)
    if out is not None:
        return out, ""
    late = deadline is not None and limit_clock() >= deadline
    return None, "stopped at the time limit" if late else "HiGHS found no optimum of the restricted program"


def _solve_restricted(problem, A, rows, cols, model: _Model, lo, time_limit: float | None = None):
    """The restricted LP over columns ``(rows, cols)`` and the model's cuts: returns (x per column, y per
    job, capacity duals) or None (also where HiGHS stops at ``time_limit`` seconds)."""
    from scipy.optimize import linprog  # deferred: scipy.optimize (about a second) only where the LP runs

    n, m = A.shape
    d = problem.demand
    C = len(rows)
    a = A[rows, cols].astype(np.float64)
    sc = model.scale
    # variables: x (C), then yhat (n); maximize sum scale yhat - rent lost, i.e. minimize its negative
    c = np.r_[lo[cols] * d[rows], -sc]
    col_of = np.arange(C)
    time_rows = sparse.coo_matrix((np.ones(C), (rows, col_of)), shape=(n, C + n))
    cap_rows = sparse.coo_matrix((d[rows], (cols, col_of)), shape=(m, C + n))
    # each cut k of job i: yhat_i - (slope_k / scale_i) sum_j a_ij x_ij <= intercept_k / scale_i
    K = len(model.job)
    cut_of_col = _cut_pairs(rows, model.job)
    kk, cc = cut_of_col
    v = -(model.slope[kk] / sc[model.job[kk]]) * a[cc]
    cut_rows = sparse.coo_matrix(
        (np.r_[v, np.ones(K)], (np.r_[kk, np.arange(K)], np.r_[cc, C + model.job])), shape=(K, C + n)
    )
    blocks = [time_rows, cap_rows, cut_rows]
    b = [np.ones(n), problem.R.astype(np.float64), model.intercept / sc[model.job]]
    if model.s_min.any():  # -sum_j a_ij x_ij <= -s_min_i
        need = np.flatnonzero(model.s_min > 0)
        sel = np.isin(rows, need)
        pos = np.searchsorted(need, rows[sel])
        blocks.append(sparse.coo_matrix((-a[sel], (pos, col_of[sel])), shape=(len(need), C + n)))
        b.append(-model.s_min[need])
    A_ub = sparse.vstack(blocks).tocsc()
    bounds = np.zeros((C + n, 2))
    bounds[:, 1] = np.inf
    bounds[C:, 0] = -np.inf
    b_ub = np.concatenate(b)
    f = _cost_unit(c)
    c = c / f
    options = {} if time_limit is None else {"time_limit": time_limit}
    started = time.perf_counter()
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs-ds", options=options)
    if res.status == 1 and time_limit is not None:  # HiGHS stopped at the time limit
        return None
    if res.status != 0 or res.x is None:
        # the dual simplex can fail on badly scaled programs (alpha-fair cuts spanning tens of orders of
        # magnitude), where HiGHS' interior-point method may still find the optimum
        if time_limit is not None:
            options = {"time_limit": max(time_limit - (time.perf_counter() - started), 1e-3)}
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs-ipm", options=options)
    if res.status != 0 or res.x is None:
        return None
    duals = -np.asarray(res.ineqlin.marginals[n : n + m], dtype=np.float64) * f
    x, y = np.asarray(res.x, dtype=np.float64), res.x[C:] * sc
    if not (np.isfinite(x).all() and np.isfinite(y).all() and np.isfinite(duals).all()):
        return None  # an overflow in the solution or its scaling back is no answer
    return np.maximum(x[:C], 0.0), y, np.maximum(duals, 0.0)


#: the largest cost of a program rescaled for HiGHS (``_cost_unit``)
COST_TARGET = 1e15


def _cost_unit(c: np.ndarray) -> float:
    """The power of two the restricted program's objective is divided by: 1 while HiGHS reads its costs as
    finite, else the one that brings the largest to at most ``COST_TARGET``.

    HiGHS reads a cost of ``HIGHS_INFINITE`` or more as infinite, and then answers "unknown" for the
    whole program, whatever the method. The costs are the jobs' scales, and an alpha-fair utility's grows
    like ``t^(1-alpha)``: 1e61 for alpha = 50. Dividing by a power of two is exact, and the capacity duals
    are multiplied back. The target is large rather than 1 because HiGHS' tolerances are absolute (1e-7):
    a job whose cost falls below them is invisible to it, and costs spanning 20 orders of magnitude are
    common at large alpha (of two stress members, one finish reached the gap in one round at 1e15 and
    stalled at 1). Programs it reads as finite are passed as they are, so their answers do not change."""
    top = float(np.max(np.abs(c))) if len(c) else 0.0
    if not (np.isfinite(top) and top >= HIGHS_INFINITE):
        return 1.0
    return math.ldexp(1.0, math.frexp(top / COST_TARGET)[1])


def _cut_pairs(rows: np.ndarray, cut_job: np.ndarray):
    """Every (cut, column) pair of the same job: the nonzeros of the cut rows."""
    order = np.argsort(rows, kind="stable")
    starts = np.searchsorted(rows[order], cut_job, side="left")
    ends = np.searchsorted(rows[order], cut_job, side="right")
    counts = ends - starts
    kk = np.repeat(np.arange(len(cut_job)), counts)
    offs = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    cc = order[np.repeat(starts, counts) + offs]
    return kk, cc


def _allocation(n, m, rows, cols, x, A):
    """The LP's solution as an ``Allocation``: per job its two largest shares (by throughput) in the slots,
    any further ones (a vertex can put a job on three or more resources) in ``extra``."""
    keep = x > 1e-14
    rows, cols, x = rows[keep], cols[keep], x[keep]
    contrib = A[rows, cols] * x
    order = np.lexsort((-contrib, rows))  # by job, then largest contribution first
    rows, cols, x = rows[order], cols[order], x[order]
    first = np.r_[True, rows[1:] != rows[:-1]]
    rank = np.arange(len(rows)) - np.maximum.accumulate(np.where(first, np.arange(len(rows)), 0))
    j1 = np.full(n, -1, np.int64)
    j2 = np.full(n, -1, np.int64)
    x1, x2 = np.zeros(n), np.zeros(n)
    s1, s2, s3 = rank == 0, rank == 1, rank >= 2
    j1[rows[s1]], x1[rows[s1]] = cols[s1], x[s1]
    j2[rows[s2]], x2[rows[s2]] = cols[s2], x[s2]
    extra = (rows[s3].astype(np.int64), cols[s3].astype(np.int64), x[s3].copy()) if s3.any() else None
    alloc = Allocation(j1, x1, j2, x2, m, extra)
    tot = alloc.time()  # a vertex keeps every job's time at most 1; rounding noise is scaled away
    if (tot > 1.0).any():
        f = 1.0 / np.maximum(tot, 1.0)  # 1 / tot where over 1, else 1
        extra = None if extra is None else (extra[0], extra[1], extra[2] * f[extra[0]])
        alloc = Allocation(j1, x1 * f, j2, x2 * f, m, extra)
    return alloc, int(len(np.unique(rows[s3])))


#: the most cut rows of a smooth utility's program (jobs times ``TANGENTS`` and refinements): 600 jobs.
#: Its programs grow with the cuts (about 10 s per program at 3,000 jobs x 8 resources, HiGHS, one core;
#: 7 rounds at 400 jobs x 32 resources, 6,000 cuts, in about 2 s), and it is meant for small problems, where
#: ties and binding capacities defeat the dual method
MAX_CUTS = 9_000


def fits(n: int, m: int, *, exact: bool) -> bool:
    """Whether ``lp_finish`` would take a problem of ``n`` jobs and ``m`` resources at all (its first program
    within ``MAX_CUTS`` cuts for a smooth utility, ``exact`` False, and ``MAX_COLUMNS`` columns)."""
    return (exact or n * len(TANGENTS) <= MAX_CUTS) and n * min(m, PER_JOB) <= MAX_COLUMNS


def lp_finish(
    problem: Problem,
    A: np.ndarray,
    order: np.ndarray,
    p: np.ndarray,
    lo: np.ndarray,
    *,
    rounds: int = 6,
    target_gap=0.0,
    deadline: float | None = None,
) -> Finish | None:
    """Column generation (and, for smooth utilities, cut refinement) from prices ``p``; None when the
    restricted program would exceed ``MAX_COLUMNS`` columns or ``MAX_CUTS`` cuts. Stops when the gap is at
    most ``target_gap`` (a number, or a function of the objective), when nothing is left to add, or after
    ``rounds``, or at ``deadline`` (a ``limit_clock`` reading: no round starts after it, and HiGHS is given the
    time left); a run that found no allocation says why in ``message`` (``allocation`` None)."""
    target = target_gap if callable(target_gap) else (lambda _objective: float(target_gap))
    util = problem.utility
    n, m = A.shape
    d = problem.demand
    dual0, _, x0, t0 = evaluate(problem, p, order, A)
    amax = A.max(axis=1).astype(np.float64) if n else np.zeros(0)
    model = _model(util, t0, amax)
    if not model.exact and len(model.job) > MAX_CUTS:
        return None
    if n * m <= ALL_COLUMNS:  # every (job, resource): the first round solves the whole program
        rows, cols = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    else:
        rows, cols = _columns(A, d, model.marginal, p, PER_JOB)
    if len(rows) > MAX_COLUMNS:
        return None
    key = rows.astype(np.int64) * m + cols
    # the columns x(p) uses are in from the start
    r0 = np.r_[np.flatnonzero(x0.j1 >= 0), np.flatnonzero(x0.j2 >= 0)]
    c0 = np.r_[x0.j1[x0.j1 >= 0], x0.j2[x0.j2 >= 0]]
    key = np.union1d(key, r0.astype(np.int64) * m + c0)
    rows, cols = (key // m).astype(np.int64), (key % m).astype(np.int64)
    best = Finish(None, -np.inf, np.asarray(p, dtype=np.float64), float(dual0), 0, len(rows), "")
    message = "no round"
    gaps: list[float] = []
    for rnd in range(1, rounds + 1):
        out, message = _round_program(problem, A, rows, cols, model, lo, deadline)
        if out is None:
            break
        x, y, pi = out
        alloc, on_three = _allocation(n, m, rows, cols, x, A)
        alloc = make_feasible(problem, alloc)
        if check_feasible(problem, alloc) > 1e-9:
            message = "the restricted program's allocation is infeasible"
            break
        q = lo + pi
        dual, _, xq, _ = evaluate(problem, q, order, A)
        t = alloc.throughput_unchecked(A)
        with np.errstate(divide="ignore"):
            uval = util.value(t)
        primal = float(np.sum(uval)) + float(lo @ (problem.R - alloc.usage_unchecked(d)))
        # the gap pairs the lowest dual bound with the best allocation, whichever rounds they come from
        if primal > best.objective or best.allocation is None:
            best.allocation, best.objective, best.on_three = alloc, primal, on_three
        if dual < best.dual:
            best.prices, best.dual = q, dual
        best.rounds, best.columns = rnd, len(rows)
        if best.dual - best.objective <= target(best.objective):
            message = "gap reached"
            break
        gaps.append(best.dual - best.objective)
        if len(gaps) > 3 and gaps[-1] > 0.99 * gaps[-4]:
            message = "stalled (under 1% in three rounds)"
            break
        grew = False
        if not model.exact:
            # Kelley: a tangent where the cuts overstate a job's utility at the program's throughput
            over = np.flatnonzero((y - uval > 1e-9 * model.scale) & (t > 0))
            if len(over) and len(model.job) + len(over) <= 3 * MAX_CUTS:
                tau = np.clip(t0, amax * 1e-9, amax)  # utilities take one point per job: the others are unused
                tau[over] = t[over]
                gk, ik = _tangents(util, np.maximum(tau, amax * 1e-12))
                grew = model.add(over, gk[over], ik[over]) > 0
        # the columns the full problem's jobs choose at these prices, and their best ones by value
        r2 = np.r_[np.flatnonzero(xq.j1 >= 0), np.flatnonzero(xq.j2 >= 0)]
        c2 = np.r_[xq.j1[xq.j1 >= 0], xq.j2[xq.j2 >= 0]]
        r3, c3 = _columns(A, d, model.marginal, q, 2)
        new = np.r_[r2 * m + c2, r3.astype(np.int64) * m + c3]
        new = np.setdiff1d(new, key)
        if len(new) == 0 and not grew:
            message = "nothing left to add"
            break
        if len(key) + len(new) > MAX_COLUMNS:
            message = "column limit reached"
            break
        key = np.r_[key, new]
        rows, cols = (key // m).astype(np.int64), (key % m).astype(np.int64)
        message = "round limit reached"
    best.message = message
    return best
