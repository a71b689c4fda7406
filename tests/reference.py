"""A plain reference implementation of market model sections 4-5, for the tests only.

At every instant it re-sorts all present jobs and accumulates each running job's payment step
by step. Slow and obvious on purpose; it also records the running set after every step so the
tests can check the scheduling invariants on it.
"""

from __future__ import annotations


def key_fn(scheduler, job):
    s, i, rw, tau, est = job["submit"], job["id"], job["reported_bid"], job["runtime"], job["estimate"]
    if scheduler in ("hb", "nphb"):
        return (-rw, s, i)
    if scheduler == "wspt":
        return (-rw / tau, s, i)
    if scheduler == "wspt-est":
        return (-rw / est, s, i)
    if scheduler == "fcfs":
        return (float(s), s, i)
    raise ValueError(scheduler)


def reference_run(jobs, n, scheduler="hb", payment="kth", reserve=1.0, record=False):
    """``jobs``: list of dicts with id, submit, runtime, estimate, reported_bid.

    Returns dict id -> (start, end, payment, preemptions), and the timeline if ``record``.
    """
    preemptive = scheduler == "hb"
    by_id = {j["id"]: j for j in jobs}
    key = {j["id"]: key_fn(scheduler, j) for j in jobs}
    remaining = {j["id"]: j["runtime"] for j in jobs}
    start, end, pay, npre = {}, {}, {i: 0.0 for i in by_id}, {i: 0 for i in by_id}
    future = sorted(by_id, key=lambda i: (by_id[i]["submit"], i))
    present, running = set(), set()
    rate = {}
    t_prev = None
    timeline = []
    while future or present:
        cands = []
        if future:
            cands.append(by_id[future[0]]["submit"])
        cands += [t_prev + remaining[i] for i in running]
        t = min(cands)
        if t_prev is not None:
            dt = t - t_prev
            for i in running:
                pay[i] += rate[i] * dt
                remaining[i] -= dt
        for i in [i for i in running if remaining[i] == 0]:
            running.discard(i)
            present.discard(i)
            end[i] = t
        while future and by_id[future[0]]["submit"] == t:
            present.add(future.pop(0))
        ordered = sorted(present, key=lambda i: key[i])
        if preemptive:
            new_running = set(ordered[:n])
            for i in running - new_running:
                npre[i] += 1
            running = new_running
        else:
            for i in ordered:
                if len(running) >= n:
                    break
                running.add(i)
        for i in running:
            start.setdefault(i, t)
        waiting = present - running
        N = len(present)
        for i in running:
            rw = by_id[i]["reported_bid"]
            if payment == "first":
                rate[i] = reserve if N < n else max(reserve, rw)
            elif payment == "kth":
                if not waiting:
                    rate[i] = reserve
                else:
                    rate[i] = max(reserve, min(rw, max(by_id[j]["reported_bid"] for j in waiting)))
            else:
                raise ValueError(payment)
        if record:
            timeline.append((t, frozenset(present), frozenset(running)))
        t_prev = t
    result = {i: (start[i], end[i], pay[i], npre[i]) for i in by_id}
    return (result, timeline) if record else result
