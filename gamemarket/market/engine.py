"""The event-driven market engine (market model sections 4-5), compiled with numba.

Per-job state is indexed by arrival order (jobs sorted by ``(submit, id)``); priority keys are
turned once into integer ranks, so every heap compares plain integers. A heap entry is a job's rank
and its arrival index packed into one integer, ``rank << 32 | j``: ranks are distinct, so entries
compare as their ranks do, and the heap's top names its job without a lookup. Structures:

* per-job state: one row per job, its integers (running since, remaining time, start, end,
  preemptions, position in the running set) then its floats (the K rate caps, then the K payments so
  far), one array seen as int64 (``ji``) and as float64 (``jf``): with one payment scheme a row is 64
  bytes, one cache line, so touching a job reads one line rather than one per field (on a trace the
  jobs' state is larger than the processor's caches, and these reads were most of a run's time). A
  job's state (future, waiting, running, done) is not stored: it runs while ``SINCE`` is set, is done
  once ``END`` is, and waits otherwise once it has arrived;
* running set: an indexed max-heap of entries (its top is the worst running job, the one HB
  preempts first), with positions so a finishing job is removed in O(log n);
* waiting set: a min-heap of entries (its top is the best waiting job);
* highest waiting bid: a min-heap of (bid rank, job) entries with lazy deletion (for k-th price), kept only
  where the scheduler's ranks are not the bid ranks: under HB and NPHB the waiting set's top is that job
  (``_same_ranks``);
* completions: a min-heap of (finish time, job) with lazy invalidation of preempted runs.

The three job heaps grow as a run needs (``_room``): they hold the jobs present, not the whole
workload, so a trace of 16 million jobs keeps about 64 bytes per job (its row) while it runs. Ranks
come as int32 (a run has fewer than ``MAX_JOBS`` jobs).

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
#: a heap entry is ``rank << SHIFT | j``; jobs and ranks must stay below ``MAX_JOBS``
SHIFT = 32
MASK = (1 << SHIFT) - 1
MAX_JOBS = 1 << 31
# the integer columns of a job's row: running since (``_NONE`` unless it runs); remaining run time; start; end;
# preemptions; position in the running set; then ``FLOATS``: K rate caps, then K payments so far (as float64)
SINCE, REM, START, END, NPRE, RPOS = 0, 1, 2, 3, 4, 5
FLOATS = 6


# The running set is a max-heap of entries ``heap``, with each job's position in its row (``RPOS``);
# ``hcap`` and ``hpay`` (K x n: one row per payment scheme) run parallel to it (the job's rate cap and
# its payment so far), so the per-step payment loop reads contiguous memory and vectorises, row by row.


@njit(cache=True, inline="always")
def _swap(heap, ji, hcap, hpay, a, b):
    ra = heap[a]
    rb = heap[b]
    heap[a] = rb
    heap[b] = ra
    ji[rb & MASK, RPOS] = a
    ji[ra & MASK, RPOS] = b
    for s in range(hcap.shape[0]):
        c = hcap[s, a]
        hcap[s, a] = hcap[s, b]
        hcap[s, b] = c
        p = hpay[s, a]
        hpay[s, a] = hpay[s, b]
        hpay[s, b] = p


@njit(cache=True)
def _max_sift_up(heap, ji, hcap, hpay, i):
    while i > 0:
        parent = (i - 1) >> 1
        if heap[parent] < heap[i]:
            _swap(heap, ji, hcap, hpay, parent, i)
            i = parent
        else:
            break


@njit(cache=True)
def _max_sift_down(heap, ji, hcap, hpay, i, cnt):
    while True:
        left = 2 * i + 1
        if left >= cnt:
            break
        best = left
        right = left + 1
        if right < cnt and heap[right] > heap[left]:
            best = right
        if heap[best] > heap[i]:
            _swap(heap, ji, hcap, hpay, best, i)
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


# ---------------------------------------------------------------------- the steps of a run
# Each step of ``run_market``'s loop is a compiled helper that changes the heaps and the per-job rows in
# place and returns the counts the loop keeps. The steps allocate nothing (and must not), so they are
# compiled without numba's runtime (``_nrt=False``, a numba option without a public name): with it, every
# call increfs and decrefs each array argument (an atomic update each, which numba's pruning pass leaves
# in functions that loop and call), and the split engine took two to three times as long as the one
# function before it. ``forceinline`` has LLVM inline the steps into the loop: the engine then runs in
# about 0.85 of the time of the one function (benchmarks/bench_engine.py --against the old engine.py).
_step = njit(cache=True, _nrt=False, forceinline=True)


@njit(cache=True)
def job_rows(runtime, reported, reserves):
    """The per-job rows at the start, as (``ji``, ``jf``): one J x (FLOATS + 2K) array seen as int64 and as
    float64. Integers: remaining time = run time, the rest unset; floats (from column ``FLOATS``): the K rate
    caps ``max(rw_j, r_k)``, then K payments of zero."""
    J = runtime.shape[0]
    K = reserves.shape[0]
    ji = np.empty((J, FLOATS + 2 * K), np.int64)
    jf = ji.view(np.float64)  # the same memory: integer columns and float columns never overlap
    for j in range(J):
        ji[j, SINCE] = _NONE
        ji[j, REM] = runtime[j]
        ji[j, START] = _NONE
        ji[j, END] = _NONE
        ji[j, NPRE] = 0
        ji[j, RPOS] = _NONE
        w = reported[j]
        for s in range(K):
            r = reserves[s]
            jf[j, FLOATS + s] = w if w >= r else r  # np.maximum(rw_j, r) for finite bids, signed zeros included
            jf[j, FLOATS + K + s] = 0.0
    return ji, jf


@_step
def _drop_stale_completions(ev_t, ev_j, ecnt, ji):
    """Pop the completion events at the top that belong to runs since preempted; the new event count."""
    while ecnt > 0:
        j = ev_j[0]
        if ji[j, SINCE] != _NONE and ji[j, SINCE] + ji[j, REM] == ev_t[0]:  # it runs, and this is its finish
            break
        ecnt = _ev_pop(ev_t, ev_j, ecnt)
    return ecnt


@_step
def _accrue(reserves, schemes, n, rcnt, wcnt, maxq, rcap, rpay, rheap, dt):
    """The built-in schemes' payments over an interval of ``dt``: every running job pays ``min(cap, M) * dt`` under
    each scheme, ``M`` the market price after the last step (``payments.market_price`` of the running and waiting
    counts and the highest waiting bid then, which no event since has changed); True: the run goes on."""
    fdt = float(dt)
    for s in range(rcap.shape[0]):
        ps = market_price(schemes[s], reserves[s], n, rcnt + wcnt, wcnt, maxq)
        cs = rcap[s]
        ys = rpay[s]
        for k in range(rcnt):
            c = cs[k]
            ys[k] += (c if c < ps else ps) * fdt
    return True


@_step
def _complete(t, ev_t, ev_j, ecnt, ji, jf, rheap, rcap, rpay, rcnt):
    """Finish the jobs whose completion events fall at ``t``; the new (event count, running count)."""
    K = rcap.shape[0]
    while ecnt > 0 and ev_t[0] == t:
        j = ev_j[0]
        ecnt = _ev_pop(ev_t, ev_j, ecnt)
        if ji[j, SINCE] == _NONE or ji[j, SINCE] + ji[j, REM] != t:
            continue
        ji[j, SINCE] = _NONE
        ji[j, END] = t
        ji[j, REM] = 0
        p = ji[j, RPOS]
        for s in range(K):
            jf[j, FLOATS + K + s] = rpay[s, p]
        rcnt -= 1
        if p != rcnt:
            _swap(rheap, ji, rcap, rpay, p, rcnt)
            ji[j, RPOS] = _NONE
            _max_sift_down(rheap, ji, rcap, rpay, p, rcnt)
            _max_sift_up(rheap, ji, rcap, rpay, p)
        else:
            ji[j, RPOS] = _NONE
    return ecnt, rcnt


@_step
def _arrive(t, submit, rank, bidrank, ptr, ji, wheap, wcnt, bheap, bcnt, by_bid):
    """Move the jobs submitted at ``t`` to the waiting set; the new (pointer, waiting count, bid-heap count).
    ``by_bid``: the scheduler ranks jobs by bid, so the waiting heap serves as the bid heap (``_same_ranks``)."""
    J = submit.shape[0]
    while ptr < J and submit[ptr] == t:
        wcnt = _min_push(wheap, wcnt, (np.int64(rank[ptr]) << SHIFT) | ptr)
        if not by_bid:
            bcnt = _min_push(bheap, bcnt, (np.int64(bidrank[ptr]) << SHIFT) | ptr)
        ptr += 1
    return ptr, wcnt, bcnt


@_step
def _fill(t, n, ji, jf, wheap, wcnt, rheap, rcap, rpay, rcnt, ev_t, ev_j, ecnt):
    """Start the best waiting jobs on the idle nodes; the new (waiting, running, event) counts."""
    K = rcap.shape[0]
    while rcnt < n and wcnt > 0:
        key, wcnt = _min_pop(wheap, wcnt)
        j = key & MASK
        ji[j, SINCE] = t
        if ji[j, START] == _NONE:
            ji[j, START] = t
        rheap[rcnt] = key
        for s in range(K):
            rcap[s, rcnt] = jf[j, FLOATS + s]
            rpay[s, rcnt] = jf[j, FLOATS + K + s]
        ji[j, RPOS] = rcnt
        rcnt += 1
        _max_sift_up(rheap, ji, rcap, rpay, rcnt - 1)
        ecnt = _ev_push(ev_t, ev_j, ecnt, t + ji[j, REM], j)
    return wcnt, rcnt, ecnt


@_step
def _preempt(t, ji, jf, bidrank, wheap, wcnt, bheap, bcnt, rheap, rcap, rpay, rcnt, ev_t, ev_j, ecnt, by_bid):
    """HB's top-n rule: while the best waiting job beats the worst running one, swap them; the new
    (waiting, bid-heap, event) counts."""
    K = rcap.shape[0]
    while wcnt > 0 and rcnt > 0 and wheap[0] < rheap[0]:
        # preempt the worst running job ...
        out_key = rheap[0]
        jo = out_key & MASK
        for s in range(K):
            jf[jo, FLOATS + K + s] = rpay[s, 0]
        ji[jo, REM] -= t - ji[jo, SINCE]
        ji[jo, SINCE] = _NONE
        ji[jo, NPRE] += 1
        wcnt_new = wcnt
        # ... and run the best waiting one in its place
        in_key, wcnt_new = _min_pop(wheap, wcnt_new)
        wcnt = _min_push(wheap, wcnt_new, out_key)
        if not by_bid:
            bcnt = _min_push(bheap, bcnt, (np.int64(bidrank[jo]) << SHIFT) | jo)
        jn = in_key & MASK
        ji[jn, SINCE] = t
        if ji[jn, START] == _NONE:
            ji[jn, START] = t
        ji[jo, RPOS] = _NONE
        rheap[0] = in_key
        for s in range(K):
            rcap[s, 0] = jf[jn, FLOATS + s]
            rpay[s, 0] = jf[jn, FLOATS + K + s]
        ji[jn, RPOS] = 0
        _max_sift_down(rheap, ji, rcap, rpay, 0, rcnt)
        ecnt = _ev_push(ev_t, ev_j, ecnt, t + ji[jn, REM], jn)
    return wcnt, bcnt, ecnt


@_step
def _max_waiting_bid(bheap, bcnt, ji, reported):
    """The highest reported bid of a waiting job (``-inf`` when none waits), dropping the heap's entries of
    jobs no longer waiting (lazy deletion: every entry's job has arrived, so it waits unless it runs or is
    done); the new (bid-heap count, bid)."""
    while bcnt > 0 and (ji[bheap[0] & MASK, SINCE] != _NONE or ji[bheap[0] & MASK, END] != _NONE):
        _, bcnt = _min_pop(bheap, bcnt)
    maxq = reported[bheap[0] & MASK] if bcnt > 0 else -np.inf
    return bcnt, maxq


@njit(cache=True)
def _same_ranks(rank, bidrank):
    """Whether the scheduler's ranks are the bid ranks (HB and NPHB rank jobs by ``(-reported bid, arrival)``).
    Then the waiting heap, which holds exactly the waiting jobs, has the highest waiting bid at its top, and the
    run keeps no bid heap: the same job, so the same bid and the same prices, with a push and a lazy pop fewer
    per arrival and per preemption (on 16 million serial jobs a fifth of the run)."""
    for i in range(rank.shape[0]):
        if rank[i] != bidrank[i]:
            return False
    return True


@njit(cache=True)
def outcome_arrays(ji, jf, K):
    """(start, end, payment K x J, preemptions) from the per-job rows."""
    J = ji.shape[0]
    start = ji[:, START].copy()
    end = ji[:, END].copy()
    npre = ji[:, NPRE].copy()
    pay = np.empty((K, J), np.float64)
    for s in range(K):
        for j in range(J):
            pay[s, j] = jf[j, FLOATS + K + s]
    return start, end, pay, npre


@njit(cache=True)
def _room(heap, cnt, need):
    """``heap``, or a copy of its first ``cnt`` entries in an array of at least ``need`` (twice the old size or
    more): the heaps grow with the jobs present, and a heap's operations read only its first ``cnt`` entries,
    so the run is the same at any size."""
    if need <= heap.shape[0]:
        return heap
    bigger = np.empty(max(need, 2 * heap.shape[0]), heap.dtype)
    bigger[:cnt] = heap[:cnt]
    return bigger


#: the heaps' first size; each grows (``_room``) when a step could overfill it
FIRST_HEAP = 1024


@njit(cache=True, inline="always")
def _room_for_step(t, submit, ptr, n, wheap, wcnt, bheap, bcnt, ev_t, ev_j, ecnt, by_bid):
    """The heaps, each with room for the pushes of the step at ``t`` (grown by ``_room`` where it could
    overfill): each arrival enters the waiting heap (and the bid heap unless ``by_bid``); the step then starts or
    swaps in at most min(n, waiting) jobs (a completion event each) and swaps out as many (a bid entry each)."""
    J = submit.shape[0]
    arrivals = 0
    while ptr + arrivals < J and submit[ptr + arrivals] == t:
        arrivals += 1
    moves = min(n, wcnt + arrivals)
    wheap = _room(wheap, wcnt, wcnt + arrivals)
    if not by_bid:
        bheap = _room(bheap, bcnt, bcnt + arrivals + moves)
    if ecnt + 2 * moves > ev_t.shape[0]:
        ev_t = _room(ev_t, ecnt, ecnt + 2 * moves)
        ev_j = _room(ev_j, ecnt, ev_t.shape[0])
    return wheap, bheap, ev_t, ev_j


@njit(cache=True, inline="always")
def _highest_waiting_bid(wheap, wcnt, bheap, bcnt, ji, reported, by_bid):
    """(bid-heap count, highest reported bid of a waiting job): the waiting heap's top where the ranks are the
    bid ranks (``by_bid``), else the bid heap's (``_max_waiting_bid``), compacted when mostly stale."""
    if by_bid:  # the waiting heap's top is the best waiting job, the one with the highest reported bid
        return bcnt, reported[wheap[0] & MASK] if wcnt > 0 else -np.inf
    bcnt, maxq = _max_waiting_bid(bheap, bcnt, ji, reported)
    if bcnt > 2 * wcnt + FIRST_HEAP:  # mostly stale entries: keep the waiting jobs' (amortised O(log J) a push)
        bcnt = _compact_bids(bheap, bcnt, ji)
    return bcnt, maxq


@njit(cache=True)
def _compact_bids(bheap, bcnt, ji):
    """The bid heap's entries of waiting jobs only, sorted (a sorted array is a min-heap) and each once; the new
    count. Lazy deletion leaves the entry of every job that once waited until it reaches the top, and the entries
    of low bids rarely do: on a trace the heap grew to the jobs' count plus the preemptions, deep and mostly stale.
    Only entries of jobs not waiting go (a job that waits again gets a new entry when it is preempted), so the
    top, the highest waiting bid, is what it was."""
    keep = np.empty(bcnt, np.int64)
    k = 0
    for i in range(bcnt):
        j = bheap[i] & MASK
        if ji[j, SINCE] == _NONE and ji[j, END] == _NONE:
            keep[k] = bheap[i]
            k += 1
    keep = np.sort(keep[:k])
    m = 0
    for i in range(k):
        if m == 0 or keep[i] != bheap[m - 1]:
            bheap[m] = keep[i]
            m += 1
    return m


def engine_loop(accrue):
    """The event loop of a run (market model section 4) that pays each interval with ``accrue``:
    ``loop(submit, rank, bidrank, reported, n, preemptive, ji, jf, reserves, pay)`` over the per-job rows ``ji``,
    ``jf`` (``job_rows``'s layout, changed in place), returning the number of allocation steps.

    ``accrue(reserves, pay, n, running, waiting, highest waiting bid, rcap, rpay, rheap, dt)`` pays the interval of
    ``dt`` before the events at its end, the market as the last allocation step left it; False ends the run there.
    ``_accrue`` pays the built-in schemes (``pay``: their codes; ``_builtin_loop``), ``_rate_accrual`` a rate
    function (``pay``: the market's node count and the error array; ``_rates_engine``): the same loop and steps,
    compiled for each accrual."""

    def loop(submit, rank, bidrank, reported, n, preemptive, ji, jf, reserves, pay):
        J = submit.shape[0]
        K = reserves.shape[0]
        rheap = np.empty(max(n, 1), np.int64)
        rcap = np.empty((K, max(n, 1)), np.float64)  # the running jobs' rate caps (a rate function's: their bids)
        rpay = np.empty((K, max(n, 1)), np.float64)
        rcnt = 0
        first = min(max(J, 1), FIRST_HEAP)
        wheap = np.empty(first, np.int64)
        wcnt = 0
        bheap = np.empty(first, np.int64)
        bcnt = 0
        ev_t = np.empty(first, np.int64)
        ev_j = np.empty(first, np.int64)
        ecnt = 0

        by_bid = _same_ranks(rank, bidrank)
        ptr = 0
        steps = 0
        t_prev = submit[0] if J > 0 else 0
        maxq = -np.inf
        BIG = np.iinfo(np.int64).max
        while ptr < J or rcnt > 0:
            ecnt = _drop_stale_completions(ev_t, ev_j, ecnt, ji)
            tf = ev_t[0] if ecnt > 0 else BIG
            ta = submit[ptr] if ptr < J else BIG
            t = tf if tf < ta else ta
            dt = t - t_prev
            if dt > 0 and not accrue(reserves, pay, n, rcnt, wcnt, maxq, rcap, rpay, rheap, dt):
                break
            # 1. completions, 2. arrivals, 3. one allocation step
            ecnt, rcnt = _complete(t, ev_t, ev_j, ecnt, ji, jf, rheap, rcap, rpay, rcnt)
            wheap, bheap, ev_t, ev_j = _room_for_step(
                t, submit, ptr, n, wheap, wcnt, bheap, bcnt, ev_t, ev_j, ecnt, by_bid
            )
            ptr, wcnt, bcnt = _arrive(t, submit, rank, bidrank, ptr, ji, wheap, wcnt, bheap, bcnt, by_bid)
            steps += 1
            wcnt, rcnt, ecnt = _fill(t, n, ji, jf, wheap, wcnt, rheap, rcap, rpay, rcnt, ev_t, ev_j, ecnt)
            if preemptive:
                wcnt, bcnt, ecnt = _preempt(
                    t, ji, jf, bidrank, wheap, wcnt, bheap, bcnt, rheap, rcap, rpay, rcnt, ev_t, ev_j, ecnt, by_bid
                )
            bcnt, maxq = _highest_waiting_bid(wheap, wcnt, bheap, bcnt, ji, reported, by_bid)
            t_prev = t
        return steps

    return loop


# The loop of the built-in schemes, inlined (numba's IR, before typing) in run_market_rows, which compiles it as its
# own body and is cached on disk. Compiled on its own, the loop would be optimised again as part of each compiled
# caller (run_market_rows' first call, uncached, took some 15% longer), and cached it would never be found: numba
# keys a closure's cache entry by its captured values, pickled, and a dispatcher (``_accrue``) pickles with an id
# new in every process. Inlining costs numba about 0.4 s of copying on an uncached first call.
_builtin_loop = njit(inline="always")(engine_loop(_accrue))


@njit(cache=True)
def run_market_rows(submit, runtime, rank, bidrank, reported, n, preemptive, schemes, reserves):
    """:func:`run_market`, returning the per-job rows as they end (``ji``, ``jf``: ``job_rows``'s layout,
    one row per job in arrival order) and the step count, for a caller that reads them in slices
    (``outcomes.write_per_job``) rather than as whole columns."""
    ji, jf = job_rows(runtime, reported, reserves)
    steps = _builtin_loop(submit, rank, bidrank, reported, n, preemptive, ji, jf, reserves, schemes)
    return ji, jf, steps


@njit(cache=True)
def run_market(submit, runtime, rank, bidrank, reported, n, preemptive, schemes, reserves):
    """Simulate one market run, with the payments of K payment schemes.

    All arrays are indexed by arrival order: sorted by ``(submit, id)``.

    Parameters
    ----------
    submit, runtime : int64 arrays
    rank : int32 (or int64), the job's position in scheduler-key order (distinct, below ``MAX_JOBS``)
    bidrank : int32 (or int64), the job's position in ``(-reported bid, arrival)`` order
    reported : float64 reported bids
    n : number of nodes; preemptive : HB-style top-n (True) or non-preemptive fill (False)
    schemes : int64 array of K payment-scheme codes for ``payments.market_price``
    reserves : float64 array of K reservation prices ``r``, one per scheme

    Returns
    -------
    start, end (int64), payment (float64, K x J: row k under ``(schemes[k], reserves[k])``),
    preemptions (int64), steps (number of allocation steps)
    """
    ji, jf, steps = run_market_rows(submit, runtime, rank, bidrank, reported, n, preemptive, schemes, reserves)
    start, end, pay, npre = outcome_arrays(ji, jf, schemes.shape[0])
    return start, end, pay, npre, steps
