"""Identical resources: found, merged into one for a first solve, and mapped back."""

from __future__ import annotations

import numpy as np

from gamemarket.pricing.problem import Problem


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


def merged_problem(problem: Problem, groups: list[list[int]], floors: np.ndarray):
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
