"""An exact finish for piecewise-linear utilities (linear, target): the restricted linear program.

With a piecewise-linear utility the allocation problem is a linear program, and its dual is piecewise
linear: near the optimal prices ``x(p)`` jumps between extreme allocations and every job at the margin
ties, so neither the smoothed quasi-Newton method nor the greedy repair closes the last part of the gap
on hard instances (heavy-tailed efficiencies, scarce capacity). Near-optimal prices do tell which few
resources each job may use. This module solves the linear program restricted to those columns (HiGHS'
dual simplex through ``scipy.optimize.linprog``: an optimal vertex, so at most ``m`` jobs use more
than one resource beyond what the constraints force), reads its capacity duals as prices, and adds the
columns that the full problem's jobs prefer at those prices, until none is missing (column generation)
or the rounds run out. A job that a vertex puts on three resources keeps its two largest shares; the
repair hands out what that frees.

What it returns is checked like everything else: the original (unsmoothed) dual at the prices, which
bounds the optimum from above for any prices, against the objective of the feasible allocation.

References
----------
.. [Dantzig1960] G. B. Dantzig and P. Wolfe, "Decomposition principle for linear programs", Operations
   Research 8 (1960) 101-111. (Restricted master problems and pricing out columns.)
.. [Huangfu2018] Q. Huangfu and J. A. J. Hall, "Parallelizing the dual revised simplex method",
   Mathematical Programming Computation 10 (2018) 119-142. (HiGHS, as in scipy.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.problem import Problem
from gamemarket.pricing.repair import make_feasible, repair

#: the largest restricted program solved (columns); beyond it the finish is skipped and says so
MAX_COLUMNS = 3_000_000
#: columns per job taken from the prices: its best resources by value per unit time
PER_JOB = 4


@dataclass
class Finish:
    """The finish's best answer: allocation, its objective (with the reserve-price rent), prices and the
    dual there, the number of column-generation rounds and columns, why it stopped, and how many jobs were
    kept to two resources (the allocation's shape; the optimum of the whole program may need more when
    capacities are a few jobs' worth)."""

    allocation: Allocation
    objective: float
    prices: np.ndarray
    dual: float
    rounds: int
    columns: int
    message: str
    kept_to_two: int = 0  #: jobs a vertex put on three or more resources, kept to their two largest shares


def _columns(A: np.ndarray, demand: np.ndarray, w: np.ndarray, p: np.ndarray, k: int):
    """Per job, the ``k`` resources of highest value per unit time ``w a_ij - d p_j`` (positive
    efficiency only), as flat (job, resource) arrays."""
    n, m = A.shape
    k = min(k, m)
    val = np.where(A > 0, w[:, None] * A - demand[:, None] * p[None, :], -np.inf)
    top = np.argpartition(-val, k - 1, axis=1)[:, :k] if k < m else np.broadcast_to(np.arange(m), (n, m))
    rows = np.repeat(np.arange(n), k)
    cols = np.asarray(top).reshape(-1)
    ok = A[rows, cols] > 0
    return rows[ok], cols[ok]


def _solve_restricted(problem, A, rows, cols, w, cap, lo):
    """The restricted LP over columns ``(rows, cols)``: returns (x per column, capacity duals) or None."""
    n, m = A.shape
    d = problem.demand
    C = len(rows)
    a = A[rows, cols].astype(np.float64)
    capped = np.isfinite(cap)
    ny = int(capped.sum())
    # variables: x (C), then y for the capped jobs; maximize sum value, i.e. minimize its negative
    cost_x = np.where(capped[rows], 0.0, w[rows] * a) - lo[cols] * d[rows]
    c = -np.r_[cost_x, w[capped]]
    ones = np.ones(C)
    time_rows = sparse.coo_matrix((ones, (rows, np.arange(C))), shape=(n, C + ny))
    cap_rows = sparse.coo_matrix((d[rows], (cols, np.arange(C))), shape=(m, C + ny))
    blocks = [time_rows, cap_rows]
    b = [np.ones(n), problem.R.astype(np.float64)]
    if ny:
        yidx = np.full(n, -1)
        yidx[capped] = np.arange(ny)
        sel = capped[rows]
        # y_i - sum_j a_ij x_ij <= 0 for the capped jobs
        r_y = np.r_[yidx[rows[sel]], np.arange(ny)]
        c_y = np.r_[np.flatnonzero(sel), C + np.arange(ny)]
        v_y = np.r_[-a[sel], np.ones(ny)]
        blocks.append(sparse.coo_matrix((v_y, (r_y, c_y)), shape=(ny, C + ny)))
        b.append(np.zeros(ny))
    A_ub = sparse.vstack(blocks).tocsc()
    bounds = np.zeros((C + ny, 2))
    bounds[:, 1] = np.inf
    bounds[C:, 1] = cap[capped]
    res = linprog(c, A_ub=A_ub, b_ub=np.concatenate(b), bounds=bounds, method="highs-ds")
    if res.status != 0 or res.x is None:
        return None
    duals = -np.asarray(res.ineqlin.marginals[n : n + m], dtype=np.float64)
    return np.maximum(res.x[:C], 0.0), np.maximum(duals, 0.0)


def _allocation(n, m, rows, cols, x, A):
    """Per job its two largest shares (by throughput) of the LP's solution, as an ``Allocation``."""
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
    s1, s2 = rank == 0, rank == 1
    j1[rows[s1]], x1[rows[s1]] = cols[s1], x[s1]
    j2[rows[s2]], x2[rows[s2]] = cols[s2], x[s2]
    # a vertex has no job above 1 in time; rounding noise is clipped
    tot = x1 + x2
    over = tot > 1.0
    x1[over] /= tot[over]
    x2[over] /= tot[over]
    extra = rank >= 2  # the columns beyond each job's two largest shares
    return Allocation(j1, x1, j2, x2, m), rows[extra].astype(np.int64) * m + cols[extra]


def lp_finish(
    problem: Problem,
    A: np.ndarray,
    order: np.ndarray,
    p: np.ndarray,
    lo: np.ndarray,
    *,
    rounds: int = 6,
    target_gap: float = 0.0,
) -> Finish | None:
    """Column generation from prices ``p`` for a utility with ``linear_pieces`` (None otherwise, or when
    the restricted program would exceed ``MAX_COLUMNS``). Stops when the gap is at most ``target_gap``,
    when the full problem's jobs want no column the program lacks, or after ``rounds``."""
    util = problem.utility
    pieces = util.linear_pieces()
    if pieces is None:
        return None
    w, cap = pieces
    n, m = A.shape
    d = problem.demand
    rows, cols = _columns(A, d, w, p, PER_JOB)
    if len(rows) > MAX_COLUMNS:
        return None
    key = rows.astype(np.int64) * m + cols
    banned = np.zeros(0, np.int64)
    best = None
    message = "no round"
    for rnd in range(1, rounds + 1):
        out = _solve_restricted(problem, A, rows, cols, w, cap, lo)
        if out is None:
            message = "HiGHS found no optimum of the restricted program"
            break
        x, pi = out
        alloc, extra = _allocation(n, m, rows, cols, x, A)
        if len(extra):
            alloc = repair(problem, alloc, A)
        alloc = make_feasible(problem, alloc)
        if check_feasible(problem, alloc) > 1e-9:
            message = "the restricted program's allocation is infeasible"
            break
        q = lo + pi
        dual, _, xq, _ = evaluate(problem, q, order, A)
        t = alloc.throughput(A)
        primal = float(np.sum(util.value(t))) + float(lo @ (problem.R - alloc.usage(d)))
        # the gap pairs the lowest dual bound with the best allocation, whichever rounds they come from
        if best is None:
            best = Finish(alloc, primal, q, dual, rnd, len(rows), "")
        if primal > best.objective:
            best.allocation, best.objective = alloc, primal
        if dual < best.dual:
            best.prices, best.dual = q, dual
        best.rounds, best.columns, best.kept_to_two = rnd, len(rows), len(np.unique(banned // m))
        if best.dual - best.objective <= target_gap:
            message = "gap reached"
            break
        # the columns the full problem's jobs choose at these prices, and their best ones by value
        r2 = np.r_[np.flatnonzero(xq.j1 >= 0), np.flatnonzero(xq.j2 >= 0)]
        c2 = np.r_[xq.j1[xq.j1 >= 0], xq.j2[xq.j2 >= 0]]
        r3, c3 = _columns(A, d, w, q, 2)
        new = np.r_[r2 * m + c2, r3.astype(np.int64) * m + c3]
        new = np.setdiff1d(np.setdiff1d(new, key), banned)
        if len(extra):
            # a vertex put some jobs on three or more resources, rounded above: the next program leaves
            # them their two largest shares (the others adjust around them)
            banned = np.union1d(banned, extra)
            key = np.setdiff1d(key, extra)
        elif len(new) == 0:
            message = "no job wants a column the program lacks"
            break
        if len(key) + len(new) > MAX_COLUMNS:
            message = "column limit reached"
            break
        key = np.r_[key, new]
        rows, cols = (key // m).astype(np.int64), (key % m).astype(np.int64)
        message = "round limit reached"
    if best is not None:
        best.message = message
    return best
