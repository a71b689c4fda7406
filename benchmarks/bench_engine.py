"""The engine alone (``engine.run_market``) on a synthetic workload: the minimum of N runs per case.

    python benchmarks/bench_engine.py [--repeat 100] [--jobs 50000] [--against OLD_ENGINE.py]

A shared, noisy machine makes one timing worth little; the minimum of many runs is steadier. With
``--against`` (a copy of ``gamemarket/market/engine.py`` from another commit, e.g.
``git show main:gamemarket/market/engine.py > /tmp/engine_main.py``), the two engines run
alternately on the same arrays, each case checked to give the same outcome bit for bit, and the
ratio new/old is printed (an A/A run, the same file twice, shows the noise: a ratio within ~3% of 1).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's gamemarket, not an installed one

from gamemarket.bids import job_table  # noqa: E402 (after the path)
from gamemarket.consumers import SRG  # noqa: E402
from gamemarket.market.engine import run_market  # noqa: E402 (after the path)
from gamemarket.market.simulate import prepare  # noqa: E402 (after the path)
from gamemarket.workloads import generate  # noqa: E402 (after the path)


def load_engine(path: str):
    """``run_market`` of the engine module at ``path`` (compiled into its own numba cache)."""
    spec = importlib.util.spec_from_file_location("engine_against", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # numba's cache finds the module by name when it loads the compiled code
    spec.loader.exec_module(mod)
    return mod.run_market


def cases(jobs: int, nodes: int):
    """(name, run_market arguments) for HB, NPHB and WSPT, with one and with two payment schemes."""
    table = job_table(generate(jobs=jobs, nodes=nodes, load=1.1, seed=1).jobs, SRG, 1)
    out = []
    for sched, preemptive in (("hb", True), ("nphb", False), ("wspt", False)):
        a = prepare(table, sched)[1]
        for codes, reserves in ((np.array([1]), np.array([1.0])), (np.array([0, 1]), np.array([1.0, 1.0]))):
            args = (
                a["submit"],
                a["runtime"],
                a["rank"],
                a["bidrank"],
                a["reported"],
                nodes,
                preemptive,
                codes,
                reserves,
            )
            out.append((f"{sched} K={len(codes)}", args))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=50_000)
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--against", help="another engine.py to alternate with (A/B)")
    a = ap.parse_args()
    import gamemarket

    print(f"gamemarket: {Path(gamemarket.__file__).parent}")
    engines = {"new": run_market}
    if a.against:
        engines = {"old": load_engine(a.against), "new": run_market}
    runs = cases(a.jobs, a.nodes)
    for name, args in runs:  # compile (or load from the cache), and check the engines agree
        outs = [fn(*args) for fn in engines.values()]
        for o in outs[1:]:
            same = (
                all(np.array_equal(x, y) for x, y in zip(o[:4], outs[0][:4])) and o[2].tobytes() == outs[0][2].tobytes()
            )
            if not same or o[4] != outs[0][4]:
                raise SystemExit(f"{name}: the engines' outcomes differ")
    print(f"run_market: {a.jobs} synthetic jobs, {a.nodes} nodes; minimum (median) of {a.repeat} runs, ms")
    totals = dict.fromkeys(engines, 0.0)
    for name, args in runs:
        times = {k: [] for k in engines}
        for i in range(a.repeat):
            order = list(engines) if i % 2 == 0 else list(engines)[::-1]  # alternate who goes first
            for k in order:
                t0 = time.perf_counter()
                engines[k](*args)
                times[k].append(time.perf_counter() - t0)
        line = f"{name:<10}"
        for k, ts in times.items():
            totals[k] += min(ts)
            line += f"  {k} {1e3 * min(ts):8.3f} ({1e3 * float(np.median(ts)):8.3f})"
        if a.against:
            line += f"  new/old {min(times['new']) / min(times['old']):.3f}"
        print(line)
    print("total     " + "".join(f"  {k} {1e3 * v:8.3f}           " for k, v in totals.items()))
    if a.against:
        print(f"total new/old: {totals['new'] / totals['old']:.3f}")


if __name__ == "__main__":
    main()
