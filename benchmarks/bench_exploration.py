"""The best-response oracle's search against brute force, and the bias of candidates sharing one run.

On a small synthetic market (1,000 jobs on 8 nodes at load 1.1, pay-your-bid hb-first, probe 0.05,
seeds 0 and 1), against three populations (all truthful and all shading by 0.5 at load 1.1; all truthful at
load 2.0), the per-class family's gain is evaluated on
a grid of 9 betas per class (0, 0.12, ..., 0.99: 729 candidates), then each optimiser searches
with at most a tenth of the grid's candidates (scipy's Nelder-Mead, differential evolution and DIRECT,
and optuna's TPE, seeded; TPE is run twice to check that the same seed gives the same numbers). Reports:
the grid's best gain, each optimiser's best (on the same seeds), their ratio and the simulations used,
and the optimiser kept (the one whose worst ratio over the scenarios is best); then, for candidates
sharing one run in probe slices, the mean and largest shift of a candidate's gain against its own run.

    python benchmarks/bench_exploration.py [--grid 9] [--out benchmarks/results/exploration.json]

The grid's gains are kept in the output file and read back by a second run (``--fresh`` runs them again).
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from gamemarket.analysis.population import PopulationGames
from gamemarket.consumers import ShadingRule
from gamemarket.search.optimisers import OPTIMISERS
from gamemarket.search.oracle import ProbeOracle, point
from gamemarket.studies import load_study

STUDY = """
name = "bench-exploration"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 1000
load = 1.1
seed = 2
[strategies]
providers = ["hb-first"]
[game]
kind = "population"
strategies = ["truthful", "shade-0.5"]
probe = 0.05
[replications]
count = 2
"""


TRUTHFUL = ShadingRule("truthful", (0.0, 0.0, 0.0))
#: the markets (offered load) and populations (support, mixture) the best response is searched against: at
#: load 1.1 the best response is the box's corner (0, 0.99, 0.99); at load 2.0 it is inside (a high-class
#: beta near 0.75: shading more loses the job its place)
SCENARIOS = {
    "all-truthful": (1.1, [TRUTHFUL], [1.0]),
    "all-shade-0.5": (1.1, [ShadingRule("shade-0.5", (0.5, 0.5, 0.5))], [1.0]),
    "load-2.0-all-truthful": (2.0, [TRUTHFUL], [1.0]),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=int, default=9, help="betas per class on the brute-force grid")
    ap.add_argument("--out", default="benchmarks/results/exploration.json")
    ap.add_argument("--fresh", action="store_true", help="run the grid again even where the output holds it")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--smoke", action="store_true", help="a 3-point grid axis, written to a temporary file")
    a = ap.parse_args()
    if a.smoke:  # that it runs to its end (tests/test_benchmarks_smoke.py); the committed output untouched
        a.grid, a.fresh, a.out = 3, True, str(Path(tempfile.gettempdir()) / "bench-exploration-smoke.json")
    out_path = Path(a.out)
    old = json.loads(out_path.read_text()) if out_path.is_file() and not a.fresh else {}
    report = {"scenarios": {}}
    for name, (load, support, x) in SCENARIOS.items():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.toml"
            path.write_text(STUDY.replace("load = 1.1", f"load = {load}"))
            spec = load_study(path)
            st = PopulationGames(spec)
        prev = old.get("scenarios", {}).get(name, {})
        report["scenarios"][name] = {"load": load, **scenario(st, spec, support, x, a, prev)}
    report["kept"] = kept(report["scenarios"])
    print("kept:", report["kept"], flush=True)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(report, indent=1))


def scenario(st, spec, support, x, a, old: dict) -> dict:
    """The grid, each optimiser and the sharing bias against the population ``x`` over ``support``."""
    prov = spec.providers[0].params()
    axis = np.round(np.linspace(0, 0.99, a.grid), 2)
    grid = [tuple(float(v) for v in c) for c in itertools.product(axis, repeat=3)]
    if old.get("grid_axis") == axis.tolist():
        grid_gain = np.array(old["grid_gain"])
        grid_seconds = old["grid_seconds"]
    else:
        o = ProbeOracle(
            st.runs.arrays, st.runs.nodes, prov, st.cfg.agents, st.cfg.probe, spec.bids, [0, 1], n_jobs=a.n_jobs
        )
        t0 = time.perf_counter()
        parts = []
        for k in range(0, len(grid), 81):  # in parts, to show progress
            parts.append(o.gains(support, x, grid[k : k + 81]).mean(axis=1))
            print(f"grid: {k + len(parts[-1])}/{len(grid)} in {time.perf_counter() - t0:.0f} s", flush=True)
        grid_gain = np.concatenate(parts)
        grid_seconds = time.perf_counter() - t0
    best = int(np.argmax(grid_gain))
    report = {
        "support": [r.name for r in support],
        "grid_axis": axis.tolist(),
        "grid_candidates": len(grid),
        "grid_simulations": 2 * len(grid) + 2,
        "grid_seconds": grid_seconds,
        "grid_best": {"betas": list(grid[best]), "gain": float(grid_gain[best])},
        "grid_gain": grid_gain.tolist(),
        "optimisers": {},
    }
    budget = len(grid) // 10
    for name in OPTIMISERS:
        o = ProbeOracle(
            st.runs.arrays, st.runs.nodes, prov, st.cfg.agents, st.cfg.probe, spec.bids, [0, 1], n_jobs=a.n_jobs
        )
        t0 = time.perf_counter()
        r = o.search(support, x, optimiser=name, evaluations=budget, start=support)
        report["optimisers"][name] = {
            "betas": list(r.rule.betas),
            "gain": r.search_gain,
            "ratio_to_grid_best": r.search_gain / float(grid_gain[best]),
            "candidates": r.candidates,
            "simulations": r.simulations,
            "seconds": time.perf_counter() - t0,
        }
        if name == "optuna-tpe":  # the same seed, the same numbers: a fresh oracle asks the same points again
            o2 = ProbeOracle(
                st.runs.arrays, st.runs.nodes, prov, st.cfg.agents, st.cfg.probe, spec.bids, [0, 1], n_jobs=a.n_jobs
            )
            r2 = o2.search(support, x, optimiser=name, evaluations=budget, start=support)
            report["optimisers"][name]["same_on_rerun"] = [(q.name, v) for q, v in r2.trace] == [
                (q.name, v) for q, v in r.trace
            ]
        print(report["support"], name, report["optimisers"][name], flush=True)
    report["sharing"] = sharing_bias(st, spec, prov, support, x, grid, grid_gain)
    print(report["support"], "grid best", report["grid_best"], "sharing", report["sharing"], flush=True)
    return report


def kept(scenarios: dict) -> dict:
    """The optimiser whose worst share of the grid's best gain over the scenarios is largest (fewer simulations
    break a tie), with every optimiser's worst share and whether it is within 2% everywhere."""
    names = list(next(iter(scenarios.values()))["optimisers"])
    worst = {n: min(s["optimisers"][n]["ratio_to_grid_best"] for s in scenarios.values()) for n in names}
    sims = {n: sum(s["optimisers"][n]["simulations"] for s in scenarios.values()) for n in names}
    best = max(names, key=lambda n: (worst[n], -sims[n]))
    return {
        "optimiser": best,
        "worst_ratio": worst,
        "within_2pct_everywhere": {n: worst[n] >= 0.98 for n in names},
        "simulations": sims,
    }


def sharing_bias(st, spec, prov, support, x, grid, grid_gain, k_values=(2, 4, 8), reps: int = 8) -> dict:
    """The shift of a candidate's gain when ``k`` candidates share one run against its own run, relative to the
    grid's best gain: mean (the bias), mean and largest size, over ``reps`` random draws of ``k`` grid points.

    The candidate measured is the first of the ``k``: its block of probe agents is the first one in its own run and
    in the shared one, so it holds the same agents and the shift is the bias of sharing alone (the other blocks'
    agents move away from the mixture)."""
    rng = np.random.default_rng(0)
    scale = float(np.max(grid_gain))
    out = {}
    for k in k_values:
        shifts = []
        for _ in range(reps):
            pick = rng.choice(len(grid), k, replace=False)
            o = ProbeOracle(
                st.runs.arrays, st.runs.nodes, prov, st.cfg.agents, st.cfg.probe, spec.bids, [0, 1], share=True
            )
            shared = o.gains(support, x, [point(grid[i]).betas for i in pick]).mean(axis=1)
            shifts.append((shared[0] - grid_gain[pick[0]]) / scale)
        a = np.abs(shifts)
        out[str(k)] = {
            "mean_shift": float(np.mean(shifts)),
            "mean_abs_shift": float(np.mean(a)),
            "max_abs_shift": float(np.max(a)),
            "n": len(shifts),
        }
    return out


if __name__ == "__main__":
    main()
