"""Identical resources: found, merged into one for a first solve, and mapped back."""

from __future__ import annotations

import copy
import time

import numpy as np
from numba import njit

from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.certificate import check_weak_duality, magnitude
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.problem import Problem
from gamemarket.pricing.result import Result, met_message


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


def groups_text(groups: list[list[int]]) -> str:
    """Groups of identical resources for a message: a run of consecutive indices as ``0-299``, a group of more than
    ten others by its first ten and its count (the 10,000 indices of one group made a 59 KB line, hunt 29c-W3)."""

    def one(g: list[int]) -> str:
        if len(g) > 2 and g == list(range(g[0], g[-1] + 1)):
            return f"{g[0]}-{g[-1]}"
        shown = ", ".join(map(str, g[:10]))
        return f"{shown}, ... ({len(g):,} in all)" if len(g) > 10 else shown

    listed = "; ".join(f"[{one(g)}]" for g in groups[:10])
    return listed + (f"; ... ({len(groups):,} groups in all)" if len(groups) > 10 else "")


def merged_problem(problem: Problem, groups: list[list[int]], floors: np.ndarray):
    """The problem with each group of identical resources as one resource of their summed capacity.

    Exact: a job's throughput depends only on its total time on the group, so the two problems have
    the same optimum, and equal prices on a group's members are optimal for the original. Returns the
    merged problem, its price floors, and for each original resource its merged index.
    """

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


@njit(cache=True)
def _split_group(j1, x1, j2, x2, demand, k, members, caps):
    """Place each job's time on merged resource ``k`` on the group's ``members`` (capacities ``caps``),
    in place; returns False when it cannot be done with every job on at most two resources.

    Jobs that also use another resource go whole to the member with the most room (worst fit,
    ``_place_shared``); jobs that use only ``k`` then fill the members in order, the one at each boundary
    split between two (``_place_alone``).
    """
    room = caps.copy()
    if not _place_shared(j1, x1, j2, x2, demand, k, members, room):
        return False
    if not _place_alone(j1, x1, j2, x2, demand, k, members, room):
        return False
    return room[members.shape[0] - 1] >= -1e-12 * caps.sum()


@njit(cache=True)
def _shares(j1, x1, j2, x2, i, k):
    """Whether job ``i`` has a positive share on ``k`` in its first slot, in its second, and on another
    resource."""
    on1, on2 = j1[i] == k and x1[i] > 0.0, j2[i] == k and x2[i] > 0.0
    other = (j1[i] != -1 and j1[i] != k and x1[i] > 0.0) or (j2[i] != -1 and j2[i] != k and x2[i] > 0.0)
    return on1, on2, other


@njit(cache=True)
def _drop_zero_share(j1, x1, j2, x2, i, k, on1, on2):
    """Job ``i``'s index ``k`` dropped (slot to -1, share 0) where its share on ``k`` is zero."""
    if (j1[i] == k and not on1) or (j2[i] == k and not on2):
        if j1[i] == k:
            j1[i], x1[i] = -1, 0.0
        if j2[i] == k:
            j2[i], x2[i] = -1, 0.0


@njit(cache=True)
def _place_shared(j1, x1, j2, x2, demand, k, members, room):
    """The jobs on ``k`` and another resource, each whole on the member with the most room (worst fit);
    ``room`` is reduced in place. False when one does not fit."""
    for i in range(j1.shape[0]):
        on1, on2, other = _shares(j1, x1, j2, x2, i, k)
        if not ((on1 or on2) and other):
            continue  # not on k, or on k alone (``_place_alone``)
        use = demand[i] * (x1[i] if on1 else x2[i])
        b = 0
        for c in range(1, members.shape[0]):
            if room[c] > room[b]:
                b = c
        if use > room[b] * (1.0 + 1e-12):
            return False
        room[b] -= use
        if on1:
            j1[i] = members[b]
        else:
            j2[i] = members[b]
    return True


@njit(cache=True)
def _place_alone(j1, x1, j2, x2, demand, k, members, room):
    """The jobs on ``k`` alone, in order, filling the members one after the other, the job at each boundary
    split between two; a zero share on ``k`` loses its index. False when a job would span three members."""
    g = members.shape[0]
    b = 0
    for i in range(j1.shape[0]):
        on1, on2, other = _shares(j1, x1, j2, x2, i, k)
        if not (on1 or on2) or other:
            _drop_zero_share(j1, x1, j2, x2, i, k, on1, on2)
            continue
        x = (x1[i] if on1 else 0.0) + (x2[i] if on2 else 0.0)
        use = demand[i] * x
        while b < g - 1 and room[b] <= 0.0:
            b += 1
        if use <= room[b] or b == g - 1:
            j1[i], x1[i], j2[i], x2[i] = members[b], x, -1, 0.0
            room[b] -= use
            continue
        head = room[b] / demand[i]
        rest = use - room[b]
        if rest > room[b + 1] * (1.0 + 1e-12) and b + 1 < g - 1:
            return False  # the job would span three members
        j1[i], x1[i], j2[i], x2[i] = members[b], head, members[b + 1], x - head
        room[b] = 0.0
        room[b + 1] -= rest
        b += 1
    return True


def split_allocation(problem: Problem, merged: Allocation, groups: list[list[int]], index: np.ndarray):
    """A merged problem's allocation (``merged_problem``) as one of the original problem, or None.

    Every job keeps its throughput (a group's members are the same resource to it), so the objective is
    unchanged, and at the original prices ``p_j = p_merged[index[j]]`` so is the dual: the duality gap
    carries over exactly. A group's use is shared among its members by ``_split_group``; None when some
    member would be over-subscribed or a job would need three resources (the caller then solves on).
    """
    m = problem.shape[1]
    if merged.extra is not None:  # jobs on three or more resources: not split here
        return None
    rep = {int(index[j]): j for j in range(m - 1, -1, -1)}  # merged index -> its first original resource
    remap = np.array([rep[k] for k in range(len(rep))], dtype=np.int64)
    j1, x1, j2, x2 = merged.j1.astype(np.int64), merged.x1.copy(), merged.j2.astype(np.int64), merged.x2.copy()
    extra: list[tuple[int, int, float]] = []
    for g in groups:
        k = int(index[g[0]])
        members = np.asarray(g, dtype=np.int64)
        caps = problem.R[members].astype(np.float64)
        kept = (j1.copy(), x1.copy(), j2.copy(), x2.copy())
        if not _split_group(j1, x1, j2, x2, problem.demand, k, -2 - members, caps):
            j1[:], x1[:], j2[:], x2[:] = kept  # (it works in place: what it placed before it failed is undone)
            if not _split_spanning(j1, x1, j2, x2, problem.demand, k, members, caps, extra):
                return None
    for j in (j1, j2):  # the other merged resources to their original index; members were stored as -2 - j
        pos = j >= 0
        j[pos] = remap[j[pos]]
        j[j < -1] = -2 - j[j < -1]
    if not extra:
        return Allocation(j1, x1, j2, x2, m)
    jobs, res, shares = (np.array(v) for v in zip(*extra))
    return Allocation(j1, x1, j2, x2, m, extra=(jobs.astype(np.int64), res.astype(np.int64), shares.astype(float)))


def _split_spanning(j1, x1, j2, x2, demand, k, members, caps, extra: list) -> bool:
    """:func:`_split_group` where a job's time on ``k`` is more than two members hold (50 jobs of throughput 1 on 300
    identical resources of a third each: every job spans three, and the split gave up; the solve on the original
    problem then stalled at a third of the optimum, hunt 29c-F2): the jobs that also use another resource go whole
    to the member with the most room, as there; the others fill the members in order, a job's first two members in
    its slots (stored as ``-2 - member``, as ``_split_group`` stores them) and the rest in ``extra`` (job, member,
    share). False where a shared job does not fit, or the members are over-subscribed beyond rounding."""
    room = caps.copy()
    if not _place_shared(j1, x1, j2, x2, demand, k, -2 - members, room):
        return False
    b, g = 0, len(members)
    for i in range(len(j1)):
        on1, on2, other = _shares(j1, x1, j2, x2, i, k)
        if not (on1 or on2) or other:
            _drop_zero_share(j1, x1, j2, x2, i, k, on1, on2)
            continue
        left = (x1[i] if on1 else 0.0) + (x2[i] if on2 else 0.0)  # its time on the group
        pieces = []
        while left > 0.0:
            while b < g - 1 and room[b] <= 1e-15 * caps.sum():
                b += 1
            take = left if b == g - 1 else min(left, room[b] / demand[i])
            pieces.append((int(members[b]), take))
            room[b] -= take * demand[i]
            left -= take
        (a, xa), (c, xc) = pieces[0], pieces[1] if len(pieces) > 1 else (-1, 0.0)
        j1[i], x1[i], j2[i], x2[i] = -2 - a, xa, (-2 - c) if c >= 0 else -1, xc
        extra.extend((i, r, x) for r, x in pieces[2:])
    return room[g - 1] >= -1e-12 * caps.sum()


def merged_answer(problem, warm, groups, index, lo, rule, t0) -> Result | None:
    """The merged problem's converged answer as the original's (``split_allocation``), its
    gap recomputed from scratch: the original dual at the members' common prices, less the objective of
    the split allocation. None when the allocation cannot be split or the gap misses the stopping rule
    (``rule``: the stopping gap as a function of the objective, and its words)."""
    alloc = split_allocation(problem, warm.allocation, groups, index)
    if alloc is None or check_feasible(problem, alloc) > 1e-9:
        return None
    A = np.ascontiguousarray(problem.A, dtype=np.float64)
    p = warm.prices[index]
    dual = evaluate(problem, p, sort_efficiencies(A), A)[0]  # the unsmoothed dual: an upper bound
    t = alloc.throughput_unchecked(A)
    with np.errstate(divide="ignore"):
        primal = float(np.sum(problem.utility.value(t))) + float(
            lo @ (problem.R - alloc.usage_unchecked(problem.demand))
        )
    gap = dual - primal
    if gap < 0:  # a dual below a feasible allocation's value beyond rounding: the utility's best response is wrong
        scale = magnitude(np.asarray(problem.utility.value(t), dtype=np.float64), dual, primal, p, problem.R)
        check_weak_duality(dual, primal, scale, problem.utility, problem.shape[0])
    target, words = rule
    if not gap <= target(primal):
        return None
    split = f"(identical resources {groups_text(groups)} priced as one, their use split among them)"
    message = f"{met_message(gap, primal, target, words)} {split}"
    return Result(
        alloc,
        p,
        t,
        primal,
        dual,
        gap,
        warm.iterations,
        warm.evaluations,
        True,
        time.perf_counter() - t0,
        warm.rows,
        message,
    )
