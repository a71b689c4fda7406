"""Feasible recovery: from an allocation that over-uses resources to one that meets every constraint.

``make_feasible`` scales down over-subscribed resources (the contract's rule); ``repair`` first moves load
to resources with slack at the same throughput, then takes what remains from the jobs that value it least,
in balanced passes.
"""

from __future__ import annotations

import numpy as np

from gamemarket.errors import limit_clock
from gamemarket.pricing.allocation import Allocation
from gamemarket.pricing.envelope import throughput_of, usage_of
from gamemarket.pricing.problem import Problem

BALANCED_PASSES = 8  #: balanced passes per resource in ``repair`` before one greedy step finishes


def _throughput(A: np.ndarray, js: list, xs: list) -> np.ndarray:
    return throughput_of(A, js[0], xs[0], js[1], xs[1])


def _usage(js: list, xs: list, d: np.ndarray, m: int) -> np.ndarray:
    return usage_of(js[0], xs[0], js[1], xs[1], d, m)


class _Late(Exception):
    """Internal: the repair's deadline passed (it gives back the cheap recovery of ``x(p)`` instead)."""


def _on_time(deadline: float | None) -> None:
    """:class:`_Late` past ``deadline`` (a ``limit_clock`` reading; None: no limit)."""
    if deadline is not None and limit_clock() >= deadline:
        raise _Late


def repair(problem: Problem, alloc: Allocation, A: np.ndarray, deadline: float | None = None) -> Allocation:
    """A feasible allocation from ``x(p)``, losing as little utility as possible.

    Near the optimal prices the jobs at the margin are almost indifferent, so ``x(p)`` over- and
    under-subscribes resources by small amounts. Load on an over-subscribed resource first moves to
    resources with slack at the same throughput (:func:`_move_to_slack`); what remains is taken back
    from the jobs whose marginal value of it (``u'(t_i) a_ij``) is lowest (:func:`_take_back`); then each
    resource's slack is handed to the jobs that value it most, on the resources they already use, so
    every job still uses at most two (:func:`_hand_out_slack`). A final uniform scaling absorbs rounding.

    ``deadline`` (a ``limit_clock`` reading): looked at once per resource; past it the repair gives back the
    cheap recovery of ``alloc`` (uniform scaling), feasible all the same (hunt 22b-F2: the moves over 10,000
    resources took 21 s past a 1.5 s limit of ``price solve``).
    """
    if alloc.extra is not None:  # the moves below work on the two slots; shares beyond them stay as they are
        return make_feasible(problem, alloc)
    m = A.shape[1]
    xs = [alloc.x1.copy(), alloc.x2.copy()]
    js = [alloc.j1.copy(), alloc.j2.copy()]
    use = _usage(js, xs, problem.demand, m)
    try:
        use = _move_to_slack(problem, A, js, xs, use, deadline)
        use = _take_back(problem, A, js, xs, use, deadline)
        _hand_out_slack(problem, A, js, xs, use, deadline)
    except _Late:
        return make_feasible(problem, alloc)
    return make_feasible(problem, Allocation(js[0], xs[0], js[1], xs[1], m))


# ---------------------------------------------------------------------- 0. moves at the same throughput
def _move_to_slack(problem: Problem, A: np.ndarray, js: list, xs: list, use: np.ndarray, deadline=None) -> np.ndarray:
    """Moves that keep every throughput: part of a job's use of an over-subscribed resource r goes to a
    resource k with slack, ``x_ik = x_ir a_ir / a_ik`` (more time share if k is less efficient for the job).

    The objective cannot fall; at optimal prices tied resources (equal price per efficiency, e.g. identical
    columns or identical jobs) are exactly what such moves balance. ``js`` and ``xs`` change in place;
    returns the usage after the moves."""
    R = problem.R
    spare = 1.0 - (xs[0] + xs[1])
    for r in np.argsort(-(use - R) / R):
        if use[r] - R[r] <= 1e-12 * R[r]:
            continue
        _on_time(deadline)
        # the jobs on r: moves only take them off r, so this stays a superset while r is balanced
        on_r = np.flatnonzero((js[0] == r) | (js[1] == r))
        order = np.argsort(-(R - use) / R)
        # only the resources some job on r can move load to (every other one found no job to move, one _move_slot
        # call each: 50 jobs over 10,000 resources spent 27 s a repair there, hunt 22b-W1); the set looked at again
        # after each move, so the moves and their order are those of visiting every resource
        ahead = np.flatnonzero(_targets(A, js, xs, spare, on_r, r)[order])
        while len(ahead):
            at, ahead = ahead[0], ahead[1:]
            k = order[at]
            if use[r] - R[r] <= 1e-12 * R[r]:
                break
            if k == r or R[k] - use[k] <= 1e-12 * R[k]:
                continue
            moved = [_move_slot(problem, A, js, xs, spare, use, on_r, r, k, sl) for sl in (0, 1)]
            if any(moved):
                ahead = at + 1 + np.flatnonzero(_targets(A, js, xs, spare, on_r, r)[order[at + 1 :]])
        use = _usage(js, xs, problem.demand, A.shape[1])
    return use


def _targets(A: np.ndarray, js: list, xs: list, spare: np.ndarray, on_r: np.ndarray, r: int) -> np.ndarray:
    """The resources (a mask) to which :func:`_move_slot` can move some job's load from ``r`` now: a job whose other
    slot holds a resource, to it; a job whose other slot is free, to every resource it can use (``a_jk > 0``) at no
    more of its time share (``a_jr / a_jk <= 1``) or, where it has time to spare, to every one."""
    mask = np.zeros(A.shape[1], dtype=bool)
    for sl in (0, 1):
        ot = 1 - sl
        mine = on_r[(js[sl][on_r] == r) & (xs[sl][on_r] > 0)]
        held = (js[ot][mine] >= 0) & (xs[ot][mine] > 0)
        mask[js[ot][mine[held]]] = True
        free = mine[~held]
        if len(free):
            Af = A[free]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = A[free, r].astype(np.float64)[:, None] / Af  # as _move_slot computes it
            mask |= ((Af > 0) & ((spare[free] > 0)[:, None] | (ratio <= 1))).any(axis=0)
    return mask


def _move_slot(problem, A, js, xs, spare, use, on_r, r, k, sl) -> bool:
    """Move what fits of the jobs' slot-``sl`` use of ``r`` to ``k``, cheapest in ``k``'s capacity first (a
    prefix of them whole, the next one in part); ``js``, ``xs``, ``spare`` and ``use`` change in place. Whether
    anything moved."""
    d = problem.demand
    excess, slack = use[r] - problem.R[r], problem.R[k] - use[k]
    ot = 1 - sl
    jo = js[ot][on_r]
    cj = on_r[
        (js[sl][on_r] == r) & (xs[sl][on_r] > 0) & (A[on_r, k] > 0) & ((jo == k) | (jo < 0) | (xs[ot][on_r] <= 0))
    ]
    if len(cj) == 0:
        return False
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
        mv[q] = max(0.0, min(delta[q], (excess - f_prev) / d[cj[q]], (slack - u_prev) / (d[cj[q]] * ratio[q])))
    sel = mv > 0
    cj, ratio, mv = cj[sel], ratio[sel], mv[sel]
    if len(cj) == 0:
        return False
    xs[sl][cj] -= mv
    newslot = ~(js[ot][cj] == k)
    js[ot][cj[newslot]] = k
    xs[ot][cj[newslot]] = 0.0
    xs[ot][cj] += mv * ratio
    spare[cj] -= mv * (ratio - 1)
    use[r] -= float(np.sum(d[cj] * mv))  # incremental; recomputed exactly by the caller
    use[k] += float(np.sum(d[cj] * mv * ratio))
    return True


# ---------------------------------------------------------------------- 1. taking back
def _take_back(problem: Problem, A: np.ndarray, js: list, xs: list, use: np.ndarray, deadline=None) -> np.ndarray:
    """Each over-subscribed resource's excess, taken from the jobs that value it least; returns the usage.

    Balanced passes: the excess is spread evenly over the half of the users that value the resource least
    (at most half of each one's use per pass), marginal values recomputed between passes (taking resource
    raises them: utilities are concave), so tied jobs are treated alike; one greedy step finishes."""
    R = problem.R
    for r in np.argsort(-(use - R) / R):
        if use[r] - R[r] <= 1e-12 * R[r]:
            continue
        _on_time(deadline)
        _take_back_resource(problem, A, js, xs, use, r)
        use = _usage(js, xs, problem.demand, A.shape[1])
    return use


def _take_back_resource(problem, A, js, xs, use, r) -> None:
    """The balanced passes of :func:`_take_back` on resource ``r``; ``xs`` and ``use[r]`` change in place."""
    d = problem.demand
    on_r = np.flatnonzero((js[0] == r) | (js[1] == r))  # taking never adds a job to r
    t = _throughput(A, js, xs)
    for _pass in range(BALANCED_PASSES + 1):
        excess = use[r] - problem.R[r]
        if excess <= 1e-12 * problem.R[r]:
            break
        with np.errstate(all="ignore"):
            mv_all = problem.utility.marginal(t)
        slots = [(slot, on_r[(js[slot][on_r] == r) & (xs[slot][on_r] > 0)]) for slot in (0, 1)]
        cs = np.concatenate([np.full(len(ix), sl) for sl, ix in slots])
        cj = np.concatenate([ix for _, ix in slots])
        if len(cj) == 0:
            break
        with np.errstate(all="ignore"):
            mv = np.nan_to_num(mv_all[cj] * A[cj, r], nan=np.inf, posinf=np.inf)
        cs, cj, take = _takes(mv, cs, cj, d, xs, excess, balanced=_pass < BALANCED_PASSES)
        if take.sum() <= 0:
            break
        for sl in (0, 1):
            sel = cs == sl
            np.subtract.at(xs[sl], cj[sel], take[sel] / d[cj[sel]])
            xs[sl][cj[sel]] = np.maximum(xs[sl][cj[sel]], 0.0)
        t[cj] = throughput_of(A, js[0][cj], xs[0][cj], js[1][cj], xs[1][cj])
        use[r] -= float(take.sum())  # incremental; recomputed exactly by the caller


def _takes(mv, cs, cj, d, xs, excess, *, balanced: bool):
    """(slots, jobs, amounts) to take of ``excess`` from the candidate slots ``cs`` of jobs ``cj`` whose
    marginal values are ``mv``: balanced, evenly from the lower half; else greedily, lowest value first."""
    if balanced:
        # the lower median, an element of mv (the interpolated one is NaN where infinite values are the
        # middle two); the same set of jobs as "at most the interpolated median" otherwise
        low = mv <= np.quantile(mv, 0.5, method="lower")
        cs, cj = cs[low], cj[low]
        have = d[cj] * np.where(cs == 0, xs[0][cj], xs[1][cj])
        return cs, cj, np.minimum(0.5 * have, excess / len(cj))
    # finish in one greedy step: lowest marginal value first, whole amounts
    order = np.argsort(mv, kind="stable")
    cs, cj = cs[order], cj[order]
    have = d[cj] * np.where(cs == 0, xs[0][cj], xs[1][cj])
    cum = np.cumsum(have)
    k = int(np.searchsorted(cum, excess))
    take = have.copy()
    take[k + 1 :] = 0.0
    if k < len(take):
        take[k] = have[k] - (cum[k] - excess)
    return cs, cj, take


# ---------------------------------------------------------------------- 2. handing out slack
def _hand_out_slack(problem: Problem, A: np.ndarray, js: list, xs: list, use: np.ndarray, deadline=None) -> None:
    """Each resource's slack, to jobs already on it or with an empty slot (so every job still uses at most
    two resources), highest marginal value first; ``js`` and ``xs`` change in place."""
    R = problem.R
    t = _throughput(A, js, xs)
    spare = 1.0 - (xs[0] + xs[1])
    for r in np.argsort(-(R - use) / R):
        if R[r] - use[r] <= 1e-15 * R[r]:
            continue
        _on_time(deadline)
        _give_resource(problem, A, js, xs, spare, t, R[r] - use[r], r)
        use = _usage(js, xs, problem.demand, A.shape[1])


def _receivers(base, js, xs, spare, r):
    """The jobs of ``base`` that can take ``r`` (on it already, or with a free slot) and the slot each uses."""
    j0, j1_ = js[0][base], js[1][base]
    on0, on1 = j0 == r, j1_ == r
    free0 = ~on0 & ~on1 & ((j0 < 0) | (xs[0][base] <= 0))
    free1 = ~on0 & ~on1 & ~free0 & ((j1_ < 0) | (xs[1][base] <= 0))
    slot_b = np.where(on0 | free0, 0, np.where(on1 | free1, 1, -1))
    keep = (slot_b >= 0) & (spare[base] > 1e-15)
    return base[keep], slot_b[keep]


def _give_resource(problem, A, js, xs, spare, t, slack, r) -> None:
    """The balanced passes of :func:`_hand_out_slack` on resource ``r`` with ``slack`` to give; ``js``,
    ``xs``, ``spare`` and ``t`` change in place."""
    d = problem.demand
    # jobs with spare time that can use r: giving only uses up spare time, so a superset throughout
    base = np.flatnonzero((spare > 1e-15) & (A[:, r] > 0))
    cand, slot_c = _receivers(base, js, xs, spare, r)
    if len(cand) == 0:
        return
    for _pass in range(BALANCED_PASSES + 1):  # balanced: spread over the half that values it most
        if slack <= 1e-12 * problem.R[r] or len(cand) == 0:
            break
        with np.errstate(all="ignore"):
            mv = np.nan_to_num(problem.utility.marginal(t)[cand] * A[cand, r], nan=0.0, posinf=np.finfo(float).max)
        ok = (mv > 0) & (spare[cand] > 1e-15)
        if not ok.any():
            break
        on_r = (js[0][cand] == r) | (js[1][cand] == r)
        pick, cj, give = _gives(mv, ok, on_r, cand, spare, d, slack, balanced=_pass < BALANCED_PASSES)
        sl = slot_c[pick]
        for q in (0, 1):
            w = sl == q
            js[q][cj[w]] = r
            xs[q][cj[w]] += give[w]
        spare[cj] -= give
        t[cj] += A[cj, r] * give
        slack -= float((give * d[cj]).sum())
        cand, slot_c = _receivers(base, js, xs, spare, r)  # a job given r in a free slot now holds r there


def _gives(mv, ok, on_r, cand, spare, d, slack, *, balanced: bool):
    """(positions in ``cand``, jobs, amounts) to give of ``slack``: balanced, evenly to the upper half of the
    jobs already on the resource; else to as few jobs as possible, highest marginal value first."""
    if (ok & on_r).any() and balanced:  # jobs already on r: spread evenly
        top = ok & on_r & (mv >= np.quantile(mv[ok & on_r], 0.5))
        pick = np.flatnonzero(top)
        cj = cand[pick]
        return pick, cj, np.minimum(spare[cj], slack / d[cj] / len(cj))
    # a new slot: to as few jobs as possible, highest marginal value first
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
    return pick, cj, give


def make_feasible(problem: Problem, alloc: Allocation) -> Allocation:
    """Scale down every over-subscribed resource's use so that ``X^T d <= R`` holds exactly."""
    use = alloc.usage_unchecked(problem.demand)
    factor = np.where(use > problem.R, problem.R / np.maximum(use, 1e-300) * (1 - 1e-12), 1.0)
    if (factor == 1.0).all():
        return alloc
    f = np.append(factor, 1.0)  # index -1 (unused slot) reads the trailing 1
    extra = alloc.extra
    if extra is not None:
        extra = (extra[0], extra[1], extra[2] * f[extra[1]])
    return Allocation(alloc.j1, alloc.x1 * f[alloc.j1], alloc.j2, alloc.x2 * f[alloc.j2], alloc.m, extra)
