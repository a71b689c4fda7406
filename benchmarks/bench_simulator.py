"""Simulator speed and memory on the whole LPC trace (issue 2's targets).

    python benchmarks/bench_simulator.py [--trace PATH] [--repeat 5]

Prints: trace read + clean time, bid draw time, first-call compile time, and per scheduler x
payment the best-of-N time of one full simulation (engine + per-job outcome table), the engine
alone, and the peak RSS of a fresh process that reads the trace and runs HB + k-th price.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "workloads" / "LPC-EGEE-2004-1.2-cln.swf.gz"


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def peak_child(trace: str) -> float:
    code = f"""
import resource
from gamemarket.workloads import read_swf
from gamemarket.bids import job_table
from gamemarket.consumers import SRG
from gamemarket.market import simulate, Mechanism
w = read_swf({trace!r}); t = job_table(w.jobs, SRG, 1)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = simulate(t, w.nodes(reduction=0.25), Mechanism('hb', 'kth'))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, base / 1024)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    if not Path(a.trace).exists():
        sys.exit(f"trace {a.trace} not found: fetch it with `gamemarket workload fetch LPC-EGEE-2004-1.2-cln`")

    t0 = time.perf_counter()
    from gamemarket.bids import draw, job_table
    from gamemarket.consumers import SRG
    from gamemarket.io import jobtable
    from gamemarket.market import Mechanism, simulate
    from gamemarket.market.simulate import run_arrays
    from gamemarket.workloads import read_swf

    import_s = time.perf_counter() - t0

    read_s, w = best(lambda: read_swf(a.trace), a.repeat)
    nodes = w.nodes(reduction=0.25)
    draw_s, _ = best(lambda: draw(len(w.jobs), 1), a.repeat)
    table = jobtable.validate(job_table(w.jobs, SRG, 1))
    t0 = time.perf_counter()
    run_arrays(table.head(50), 4, Mechanism("hb", "kth"))
    first_call_s = time.perf_counter() - t0
    rows = []
    for sched in ("hb", "nphb", "wspt", "wspt-est"):
        for pay in ("first", "kth"):
            m = Mechanism(sched, pay, 1.0)
            run_arrays(table.head(50), 4, m)  # compile (or load from cache) this specialisation
            eng_s, _ = best(lambda: run_arrays(table, nodes, m), a.repeat)
            full_s, r = best(lambda: simulate(table, nodes, m, validate=False), a.repeat)
            rows.append(
                {
                    "scheduler": sched,
                    "payment": pay,
                    "engine_s": round(eng_s, 4),
                    "simulate_s": round(full_s, 4),
                    "steps": r.summary["allocation_steps"],
                    "revenue": r.summary["revenue"],
                }
            )
    peak, base = peak_child(a.trace)
    print(f"trace: {a.trace} ({len(w.jobs)} jobs, {nodes} nodes, SRG, seed 1)")
    print(f"import gamemarket: {import_s:.3f} s")
    print(f"read + clean trace (best of {a.repeat}): {read_s:.3f} s")
    print(f"draw bids: {draw_s:.4f} s")
    print(f"first engine call (compile or cache load): {first_call_s:.3f} s")
    print(f"{'scheduler':<10}{'payment':<8}{'engine s':>10}{'simulate s':>12}{'steps':>9}")
    for r in rows:
        print(f"{r['scheduler']:<10}{r['payment']:<8}{r['engine_s']:>10.4f}{r['simulate_s']:>12.4f}{r['steps']:>9}")
    print(f"peak RSS, one HB + k-th run in a fresh process: {peak:.0f} MB (after reading the trace: {base:.0f} MB)")
    print(
        json.dumps(
            {"read_s": read_s, "draw_s": draw_s, "first_call_s": first_call_s, "runs": rows, "peak_rss_mb": peak}
        )
    )


if __name__ == "__main__":
    main()
