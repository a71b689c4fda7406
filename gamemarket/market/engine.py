"""The event-driven market engine (market model sections 4-5), compiled with numba.

Per-job state is indexed by arrival order (jobs sorted by ``(submit, id)``); priority keys are
turned once into integer ranks, so every heap compares plain integers. Structures:

* running set: an indexed max-heap of ranks (its top is the worst running job, the one HB
  preempts first), with positions so a finishing job is removed in O(log n);
* waiting set: a min-heap of ranks (its top is the best waiting job);
* highest waiting bid: a min-heap of bid ranks with lazy deletion (for k-th price);
* completions: a min-heap of (finish time, job) with lazy invalidation of preempted runs.

Payments: at every instant each running job adds ``rate * dt`` for the interval since the
previous allocation step, with the rate fixed at that step: exactly the contract's integral,
accumulated in the same order as the plain reference, so payments agree to the last bit.
A payment scheme supplies the market price ``M`` of a step (``payments.market_price``); a job's
rate is ``min(max(r, rw_i), M)``.

One pass serves several payment schemes: the schedule depends only on the priority keys (reported
bids, run times or estimates), never on the payment scheme or the reservation price (market model
section 5: the reservation price floors rates, it is not an admission test). So the engine takes K
(scheme, reserve) pairs, keeps K payment accumulators per running job, and returns a K x J payment
matrix; each row is, bit for bit, the payment of a run with that pair alone, since every row is
accumulated with the same operations in the same order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gamemarket.market.payments import market_price

_NONE = -1


# The running set is a max-heap of ranks ``heap`` with ``pos[rank]`` its position; ``hcap`` and
# ``hpay`` (K x n: one row per payment scheme) run parallel to it (the job's rate cap and its payment
# so far), so the per-step payment loop reads contiguous memory and vectorises, row by row.
@njit(cache=True, inline="always")
def _swap(heap, pos, hcap, hpay, a, b):
    ra = heap[a]
    rb = heap[b]
    heap[a] = rb
    heap[b] = ra
    pos[rb] = a
    pos[ra] = b
    for s in range(hcap.shape[0]):
        c = hcap[s, a]
        hcap[s, a] = hcap[s, b]
        hcap[s, b] = c
        p = hpay[s, a]
        hpay[s, a] = hpay[s, b]
        hpay[s, b] = p


@njit(cache=True)
def _max_sift_up(heap, pos, hcap, hpay, i):
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] < heap[i]:
            _swap(heap, pos, hcap, hpay, parent, i)
            i = parent
        else:
            break


@njit(cache=True)
def _max_sift_down(heap, pos, hcap, hpay, i, cnt):
    while True:
        left = 2 * i + 1
        if left >= cnt:
            break
        best = left
        right = left + 1
        if right < cnt and heap[right] > heap[left]:
            best = right
        if heap[best] > heap[i]:
            _swap(heap, pos, hcap, hpay, best, i)
            i = best
        else:
            break


@njit(cache=True)
def _min_push(heap, cnt, value):
    i = cnt
    heap[i] = value
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] > heap[i]:
            tmp = heap[parent]
            heap[parent] = heap[i]
            heap[i] = tmp
            i = parent
        else:
            break
    return cnt + 1


@njit(cache=True)
def _min_pop(heap, cnt):
    top = heap[0]
    cnt -= 1
    heap[0] = heap[cnt]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= cnt:
            break
        best = left
        right = left + 1
        if right < cnt and heap[right] < heap[left]:
            best = right
        if heap[best] < heap[i]:
            tmp = heap[best]
            heap[best] = heap[i]
            heap[i] = tmp
            i = best
        else:
            break
    return top, cnt


@njit(cache=True)
def _ev_push(ht, hj, cnt, t, j):
    i = cnt
    ht[i] = t
    hj[i] = j
    while i > 0:
        parent = (i - 1) >> 1
        if ht[parent] > ht[i]:
            tt = ht[parent]
            ht[parent] = ht[i]
            ht[i] = tt
            jj = hj[parent]
            hj[parent] = hj[i]
            hj[i] = jj
            i = parent
        else:
            break
    return cnt + 1


@njit(cache=True)
def _ev_pop(ht, hj, cnt):
    cnt -= 1
    ht[0] = ht[cnt]
    hj[0] = hj[cnt]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= cnt:
            break
        best = left
        right = left + 1
        if right < cnt and ht[right] < ht[left]:
            best = right
        if ht[best] < ht[i]:
            tt = ht[best]
            ht[best] = ht[i]
            ht[i] = tt
            jj = hj[best]
            hj[best] = hj[i]
            hj[i] = jj
            i = best
        else:
            break
    return cnt


@njit(cache=True)
def run_market(submit, runtime, rank, order, bidrank, bidorder, reported, n, preemptive, schemes, reserves):
    """Simulate one market run, with the payments of K payment schemes.

    Parameters (all arrays indexed by arrival order: sorted by ``(submit, id)``)
    ----------
    submit, runtime : int64 arrays
    rank : int64, the job's position in scheduler-key order; ``order`` its inverse
    bidrank : int64, the job's position in ``(-reported bid, arrival)`` order; ``bidorder`` its inverse
    reported : float64 reported bids
    n : number of nodes; preemptive : HB-style top-n (True) or non-preemptive fill (False)
    schemes : int64 array of K payment-scheme codes for ``payments.market_price``
    reserves : float64 array of K reservation prices ``r``, one per scheme

    Returns
    -------
    start, end (int64), payment (float64, K x J: row k under ``(schemes[k], reserves[k])``),
    preemptions (int64), steps (number of allocation steps)
    """
    J = submit.shape[0]
    K = schemes.shape[0]
    remaining = runtime.copy()
    start = np.full(J, _NONE, np.int64)
    end = np.full(J, _NONE, np.int64)
    pay = np.zeros((K, J), np.float64)
    npre = np.zeros(J, np.int64)
    run_since = np.full(J, _NONE, np.int64)
    state = np.zeros(J, np.int8)  # 0 future, 1 waiting, 2 running, 3 done
    cap = np.empty((K, J), np.float64)
    for s in range(K):
        cap[s] = np.maximum(reported, reserves[s])

    rheap = np.empty(max(n, 1), np.int64)
    rcap = np.empty((K, max(n, 1)), np.float64)
    rpay = np.empty((K, max(n, 1)), np.float64)
    rpos = np.full(J, _NONE, np.int64)  # position in rheap, indexed by rank
    rcnt = 0
    wheap = np.empty(max(J, 1), np.int64)
    wcnt = 0
    bheap = np.empty(max(2 * J, 1), np.int64)
    bcnt = 0
    ev_t = np.empty(max(2 * J + 1, 1), np.int64)
    ev_j = np.empty(max(2 * J + 1, 1), np.int64)
    ecnt = 0

    ptr = 0
    steps = 0
    t_prev = submit[0] if J > 0 else 0
    price = reserves.copy()
    BIG = np.iinfo(np.int64).max
    while ptr < J or rcnt > 0:
        # drop completion events of runs that were preempted
        while ecnt > 0:
            j = ev_j[0]
            if state[j] == 2 and run_since[j] + remaining[j] == ev_t[0]:
                break
            ecnt = _ev_pop(ev_t, ev_j, ecnt)
        tf = ev_t[0] if ecnt > 0 else BIG
        ta = submit[ptr] if ptr < J else BIG
        t = tf if tf < ta else ta
        dt = t - t_prev
        if dt > 0:
            fdt = float(dt)
            for s in range(K):
                ps = price[s]
                cs = rcap[s]
                ys = rpay[s]
                for k in range(rcnt):
                    c = cs[k]
                    ys[k] += (c if c < ps else ps) * fdt
        # 1. completions
        while ecnt > 0 and ev_t[0] == t:
            j = ev_j[0]
            ecnt = _ev_pop(ev_t, ev_j, ecnt)
            if state[j] != 2 or run_since[j] + remaining[j] != t:
                continue
            state[j] = 3
            end[j] = t
            remaining[j] = 0
            rk = rank[j]
            p = rpos[rk]
            for s in range(K):
                pay[s, j] = rpay[s, p]
            rcnt -= 1
            if p != rcnt:
                _swap(rheap, rpos, rcap, rpay, p, rcnt)
                rpos[rk] = _NONE
                _max_sift_down(rheap, rpos, rcap, rpay, p, rcnt)
                _max_sift_up(rheap, rpos, rcap, rpay, p)
            else:
                rpos[rk] = _NONE
        # 2. arrivals
        while ptr < J and submit[ptr] == t:
            state[ptr] = 1
            wcnt = _min_push(wheap, wcnt, rank[ptr])
            bcnt = _min_push(bheap, bcnt, bidrank[ptr])
            ptr += 1
        # 3. one allocation step
        steps += 1
        while rcnt < n and wcnt > 0:
            rk, wcnt = _min_pop(wheap, wcnt)
            j = order[rk]
            state[j] = 2
            run_since[j] = t
            if start[j] == _NONE:
                start[j] = t
            rheap[rcnt] = rk
            for s in range(K):
                rcap[s, rcnt] = cap[s, j]
                rpay[s, rcnt] = pay[s, j]
            rpos[rk] = rcnt
            rcnt += 1
            _max_sift_up(rheap, rpos, rcap, rpay, rcnt - 1)
            ecnt = _ev_push(ev_t, ev_j, ecnt, t + remaining[j], j)
        if preemptive:
            while wcnt > 0 and rcnt > 0 and wheap[0] < rheap[0]:
                # preempt the worst running job ...
                out_rk = rheap[0]
                jo = order[out_rk]
                for s in range(K):
                    pay[s, jo] = rpay[s, 0]
                remaining[jo] -= t - run_since[jo]
                run_since[jo] = _NONE
                state[jo] = 1
                npre[jo] += 1
                wcnt_new = wcnt
                # ... and run the best waiting one in its place
                in_rk, wcnt_new = _min_pop(wheap, wcnt_new)
                wcnt = _min_push(wheap, wcnt_new, out_rk)
                bcnt = _min_push(bheap, bcnt, bidrank[jo])
                ji = order[in_rk]
                state[ji] = 2
                run_since[ji] = t
                if start[ji] == _NONE:
                    start[ji] = t
                rpos[out_rk] = _NONE
                rheap[0] = in_rk
                for s in range(K):
                    rcap[s, 0] = cap[s, ji]
                    rpay[s, 0] = pay[s, ji]
                rpos[in_rk] = 0
                _max_sift_down(rheap, rpos, rcap, rpay, 0, rcnt)
                ecnt = _ev_push(ev_t, ev_j, ecnt, t + remaining[ji], ji)
        # highest waiting reported bid (lazy deletion of jobs no longer waiting)
        while bcnt > 0 and state[bidorder[bheap[0]]] != 1:
            _, bcnt = _min_pop(bheap, bcnt)
        maxq = reported[bidorder[bheap[0]]] if bcnt > 0 else -np.inf
        for s in range(K):
            price[s] = market_price(schemes[s], reserves[s], n, rcnt + wcnt, wcnt, maxq)
        t_prev = t
    return start, end, pay, npre, steps
