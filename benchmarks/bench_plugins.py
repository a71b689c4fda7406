"""A payment scheme given as a plugin's rate function against the built-in engine: the minimum of N runs per case.

    python benchmarks/bench_plugins.py [--repeat 30] [--jobs 50000] [--nodes 64]

Each case runs the built-in ``engine.run_market`` with the k-th price (code 1) and the plugin engine
(``rates.plugin_engine``) with the k-th price re-written as a rate function, on the same arrays, alternately;
both are checked to give the same outcome bit for bit first. The issue's target: a plugin scheme's run at most
1.3x the built-in engine's time. The example ``lowest-running`` rule (examples/plugins) is timed beside it, and a
constant rate (``flat``: the plugin engine's loop with next to no rate to evaluate), which separates the loop's own
cost from the rate function's; "paired" is the median over the repeats of each repeat's plugin/built-in ratio (the
two runs of a repeat are adjacent, so a drifting load falls on both). The plain-Python path is timed once, on a
smaller workload, to show what ``jit=False`` costs.

An event-hook scheduler (``gamemarket.market.hooks``) is timed too: the example ``hb-hooks``
(examples/plugins/highest_bid_hooks.py, HB's top-n rule as ``allocate``) against the built-in ``hb``, both through
``simulate.run_schedule`` (what ``simulate`` and the studies call) with the k-th price on one smaller workload
(``--hooks-jobs``, default 2000 jobs on 16 nodes; the hooks' loop is pure Python), checked bit for bit first. No
target is set for it (the 1.3x is the payment schemes' on the numba path): the ratio says what the loop costs.
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
from gamemarket.consumers import SRG  # noqa: E402 (after the path)
from gamemarket.market.engine import run_market  # noqa: E402 (after the path)
from gamemarket.market.rates import plugin_engine  # noqa: E402 (after the path)
from gamemarket.market.simulate import prepare, run_schedule  # noqa: E402 (after the path)
from gamemarket.plugins import load_plugin  # noqa: E402 (after the path)
from gamemarket.workloads import generate  # noqa: E402 (after the path)


def kth_price(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    """The k-th price as a rate function, with the built-in engine's operations (market model section 5)."""
    if waiting == 0:
        return reserve
    m = max(reserve, max_waiting_bid)
    c = bid if bid >= reserve else reserve
    return c if c < m else m


def flat_rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    """A constant rate r: the plugin engine's loop and steps, with next to nothing to evaluate per job."""
    return reserve


def example_rule():
    """The example plugin's ``lowest_running`` function (examples/plugins/lowest_running.py)."""
    spec = importlib.util.spec_from_file_location("lowest_running", ROOT / "examples" / "plugins" / "lowest_running.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.lowest_running


def timed(fn, args, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=50_000)
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--hooks-jobs", type=int, default=2000, help="the event-hook case's workload (16 nodes)")
    ap.add_argument("--hooks-repeat", type=int, default=5, help="runs of each side in the event-hook case")
    a = ap.parse_args()
    table = job_table(generate(jobs=a.jobs, nodes=a.nodes, load=1.1, seed=1).jobs, SRG, 1)
    kth = plugin_engine(kth_price)
    lowest = plugin_engine(example_rule())
    flat = plugin_engine(flat_rate)
    print(f"{a.jobs} synthetic jobs, {a.nodes} nodes, r = 1; minimum (median) of {a.repeat} runs, ms")
    ratios = []
    for sched, preemptive in (("hb", True), ("nphb", False), ("wspt", False)):
        p = prepare(table, sched)[1]
        base = (p["submit"], p["runtime"], p["rank"], p["bidrank"], p["reported"], a.nodes, preemptive)
        builtin_args = (*base, np.array([1]), np.array([1.0]))
        plugin_args = (*base, np.array([1.0]), a.nodes, np.full(3, -1.0))
        t0 = time.perf_counter()
        want, got = run_market(*builtin_args), kth(*plugin_args)
        lowest(*plugin_args)
        flat(*plugin_args)
        if sched == "hb":
            print(
                f"first runs (compiling three plugin engines, loading the built-in): {time.perf_counter() - t0:.1f} s"
            )
        if got[2].tobytes() != want[2].tobytes() or not all(np.array_equal(x, y) for x, y in zip(got[:2], want[:2])):
            raise SystemExit(f"{sched}: the plugin k-th price differs from the built-in one")
        times = {"built-in": [], "plugin": [], "lowest": [], "flat": []}
        pair = (("built-in", run_market, builtin_args), ("plugin", kth, plugin_args))
        for i in range(a.repeat):  # alternate who goes first, so drifting load falls on both alike
            for k, fn, args in pair if i % 2 == 0 else pair[::-1]:
                times[k] += timed(fn, args, 1)
            times["lowest"] += timed(lowest, plugin_args, 1)
            times["flat"] += timed(flat, plugin_args, 1)
        ratio = min(times["plugin"]) / min(times["built-in"])
        median = float(np.median(times["plugin"]) / np.median(times["built-in"]))
        paired = float(np.median(np.array(times["plugin"]) / np.array(times["built-in"])))
        loop = float(np.median(np.array(times["flat"]) / np.array(times["built-in"])))
        ratios.append(ratio)
        print(
            f"{sched:<5}"
            + "".join(f"  {k} {1e3 * min(v):7.2f} ({1e3 * float(np.median(v)):7.2f})" for k, v in times.items())
            + f"  plugin/built-in {ratio:.3f} (medians {median:.3f}, paired {paired:.3f}; flat paired {loop:.3f})"
        )
    print(f"worst plugin/built-in ratio: {max(ratios):.3f} (target <= 1.3)")
    small = job_table(generate(jobs=2000, nodes=16, load=1.1, seed=1).jobs, SRG, 1)
    p = prepare(small, "hb")[1]
    base = (p["submit"], p["runtime"], p["rank"], p["bidrank"], p["reported"], 16, True)
    py = min(timed(plugin_engine(kth_price, jit=False), (*base, np.array([1.0]), 16, np.full(3, -1.0)), 2))
    jit = min(timed(kth, (*base, np.array([1.0]), 16, np.full(3, -1.0)), 5))
    print(f"plain Python path (jit=False), 2000 jobs, 16 nodes, hb: {1e3 * py:.0f} ms, compiled {1e3 * jit:.2f} ms")
    hooks_case(a.hooks_jobs, a.hooks_repeat)


def hooks_case(jobs: int, repeat: int, nodes: int = 16) -> None:
    """The event-hook HB (``hb-hooks``) against the built-in ``hb`` through ``run_schedule``, k-th price, r = 1,
    alternating who goes first; both give the same start, end, payment and preemptions bit for bit first."""
    load_plugin(ROOT / "examples" / "plugins" / "highest_bid_hooks.py")
    table = job_table(generate(jobs=jobs, nodes=nodes, load=1.1, seed=1).jobs, SRG, 1)
    pricing = [("kth", 1.0)]
    want, got = run_schedule(table, nodes, "hb", pricing), run_schedule(table, nodes, "hb-hooks", pricing)
    if any(np.asarray(x).tobytes() != np.asarray(y).tobytes() for x, y in zip(want[:4], got[:4])):
        raise SystemExit("hb-hooks: the event-hook HB differs from the built-in hb")
    times = {"built-in": [], "hooks": []}
    pair = (("built-in", "hb"), ("hooks", "hb-hooks"))
    for i in range(repeat):
        for k, sched in pair if i % 2 == 0 else pair[::-1]:
            times[k] += timed(run_schedule, (table, nodes, sched, pricing), 1)
    b, h = (np.array(times[k]) for k in ("built-in", "hooks"))
    print(
        f"event-hook hb-hooks vs built-in hb (run_schedule, kth, {jobs} jobs, {nodes} nodes, {got[4]} steps; minimum "
        f"(median) of {repeat}): built-in {1e3 * b.min():.2f} ({1e3 * np.median(b):.2f}) ms, hooks "
        f"{1e3 * h.min():.0f} ({1e3 * np.median(h):.0f}) ms, hooks/built-in {h.min() / b.min():.0f}x "
        f"(paired median {float(np.median(h / b)):.0f}x)"
    )


if __name__ == "__main__":
    main()
