"""A plain heapq implementation of the market's default mechanism (HB, k-th price), the comparator of the
start-up benchmark (``bench_startup.py``): what a researcher would write in an afternoon.

    python benchmarks/heapq_market.py JOBS.csv NODES OUT.csv

Reads a section-8 job table with the csv module, runs Highest-Bid with k-th price and reservation price
1 (market model sections 4-5) with heaps (waiting jobs, running jobs, completions), and writes the
per-job outcome (id, start, end, payment, preemptions) with the csv module. Payments follow the
contract's rule as written: at every event each running job adds its rate (fixed at the previous
allocation step) times the time since, so they agree with gamemarket's to the last bit. The benchmark
checks that the outcome equals gamemarket's.
"""

from __future__ import annotations

import csv
import heapq
import sys


def run(jobs: list[dict], n: int, reserve: float = 1.0) -> dict:
    """HB + k-th price: id -> (start, end, payment, preemptions)."""
    jobs = sorted(jobs, key=lambda j: (j["submit"], j["id"]))
    key = {j["id"]: (-j["reported_bid"], j["submit"], j["id"]) for j in jobs}
    remaining = {j["id"]: j["runtime"] for j in jobs}
    start, end, npre = {}, {}, {j["id"]: 0 for j in jobs}
    pay = {j["id"]: 0.0 for j in jobs}
    running = []  # max-heap by key: (negated key, id, run number), lazily cleaned; top: the worst running job
    n_running = 0
    waiting = []  # min-heap by key: (key, id); its top is the best waiting job
    is_running = {j["id"]: False for j in jobs}
    since = {}  # when a running job last started
    live = {}  # the running jobs: id -> rate cap max(r, own bid)
    done = []  # completions: (time, id, run number) with lazy invalidation
    run_no = {j["id"]: 0 for j in jobs}
    price, t_prev = reserve, None
    k = 0

    def neg(kk):
        return (-kk[0], -kk[1], -kk[2])

    def stop(i, t):
        remaining[i] -= t - since[i]
        is_running[i] = False
        del live[i]

    def begin(i, t):
        start.setdefault(i, t)
        is_running[i] = True
        run_no[i] += 1
        since[i] = t
        live[i] = max(reserve, -key[i][0])
        heapq.heappush(running, (neg(key[i]), i, run_no[i]))
        heapq.heappush(done, (t + remaining[i], i, run_no[i]))

    def clean_running():
        while running and not (is_running[running[0][1]] and run_no[running[0][1]] == running[0][2]):
            heapq.heappop(running)

    while k < len(jobs) or n_running:
        while done and not (is_running[done[0][1]] and run_no[done[0][1]] == done[0][2]):
            heapq.heappop(done)
        tf = done[0][0] if done else float("inf")
        ta = jobs[k]["submit"] if k < len(jobs) else float("inf")
        t = min(tf, ta)
        if t_prev is not None and t > t_prev:
            dt = float(t - t_prev)
            for i, cap in live.items():
                pay[i] += (cap if cap < price else price) * dt
        while done and done[0][0] == t:
            _, i, r = heapq.heappop(done)
            if is_running[i] and run_no[i] == r:
                stop(i, t)
                end[i] = t
                n_running -= 1
        while k < len(jobs) and jobs[k]["submit"] == t:
            heapq.heappush(waiting, (key[jobs[k]["id"]], jobs[k]["id"]))
            k += 1
        while n_running < n and waiting:
            begin(heapq.heappop(waiting)[1], t)
            n_running += 1
        clean_running()
        while waiting and running and waiting[0][0] < neg(running[0][0]):
            _, out, _ = heapq.heappop(running)
            stop(out, t)
            npre[out] += 1
            _, i = heapq.heapreplace(waiting, (key[out], out))
            begin(i, t)
            clean_running()
        price = max(reserve, -waiting[0][0][0]) if waiting else reserve  # k-th price: M = max(r, max_Q rw)
        t_prev = t
    return {i: (start[i], end[i], pay[i], npre[i]) for i in start}


def main(path: str, nodes: int, out: str) -> None:
    with open(path, newline="") as f:
        jobs = [
            {
                "id": int(r["id"]),
                "submit": int(r["submit"]),
                "runtime": int(r["runtime"]),
                "reported_bid": float(r["reported_bid"]),
            }
            for r in csv.DictReader(f)
        ]
    res = run(jobs, nodes)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "start", "end", "payment", "preemptions"])
        for i, (s, e, p, k) in res.items():
            w.writerow([i, s, e, repr(p), k])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
