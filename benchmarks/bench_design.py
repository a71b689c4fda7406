"""The design search's targets (#42): a closed-form answer, brute force on a small market, and the optimisers compared.

1. **Closed form.** No congestion (300 jobs on 400 nodes: nobody ever waits) and an outside price ``c = 20``: every
   stayer pays ``r`` per node-second under k-th price, so a job stays exactly when ``r <= c`` and the revenue-
   maximising reserve is ``c``. Per optimiser (``gp``, ``tpe``) and optimiser seed, the chosen reserve, its error
   relative to ``c`` and the simulations used (target: within 2% of ``c``).
2. **Brute force.** A small congested market (300 jobs on 8 nodes, load 0.3; reserve in [0, 40] and payment blend
   in [0, 1]): a fine grid (``--grid`` points a side) evaluated exhaustively, its best point confirmed on the same
   fresh seeds as the search's chosen design; per optimiser, whether the chosen design's fresh-seed objective lies
   within (or above) the grid best's 95% interval, and its simulations against the grid's (target: at most a fifth).

Every design point is the population game's answer as ``gamemarket.search.design`` computes it; nothing is stored
outside a scratch folder. Figures are printed and written to ``--out`` (JSON).

    python benchmarks/bench_design.py [--budget 24] [--seeds 0 1 2 3 4] [--grid 10]
        [--out benchmarks/results/design-bench.json] [--smoke]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from gamemarket.search.design import run_design
from gamemarket.studies import load_study

ROOT = Path(__file__).resolve().parents[1]
LINES: list[str] = []


def say(line: str) -> None:
    """Print a line and keep it for the results file."""
    print(line)
    LINES.append(line)


def header(command: str) -> str:
    """The results file's first lines: the command, when, on what machine, at which commit."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return f"# {command}\n# {time.strftime('%Y-%m-%d')}, {os.cpu_count()}-core machine, commit {commit}\n"


def summary(result: dict) -> list[str]:
    """Per optimiser: the closed form's largest error, the brute force's worst share of the grid and whether every
    chosen design reached the grid best's interval."""
    out = []
    for o in ("gp", "tpe"):
        cf = [r for r in result["closed_form"] if r["optimiser"] == o]
        bf = [r for r in result["brute_force"]["searches"] if r["optimiser"] == o]
        worst = 100 * max(r["relative_error"] for r in cf)
        inside = sum(r["within_or_above_grid_ci"] for r in bf)
        share = 100 * max(r["share_of_grid"] for r in bf)
        mean = sum(r["objective"][0] for r in bf) / len(bf)
        out.append(
            f"{o}: closed form within {worst:.2f}% of c at worst ({len(cf)} seeds); brute force: {inside}/{len(bf)} "
            f"within or above the grid best's 95% CI, at most {share:.1f}% of its simulations, mean fresh objective "
            f"{mean:,.0f}"
        )
    return out


STUDY = """
name = "bench-design"
[workload]
source = "synthetic"
nodes = {nodes}
[workload.synthetic]
jobs = 300
load = 0.3
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "leave-all"]
outside_price = 20.0
probe = 0.05
joint = false
[game.shading.leave-all]
beta = 0
leave = 1
[replications]
count = 3
[design]
schedulers = ["hb"]
payment = "{payment}"
reserve = [0, 40]
{blend}
budget = {budget}
optimiser = "{optimiser}"
confirm_seeds = 8
contenders = 3
"""


def study(folder: Path, **kw):
    path = folder / f"{kw['optimiser']}-{kw['payment']}-{kw['nodes']}.toml"
    path.write_text(STUDY.format(**kw))
    return load_study(path)


def closed_form(folder: Path, budget: int, seeds: list[int]) -> list[dict]:
    out = []
    for optimiser in ("gp", "tpe"):
        for seed in seeds:
            spec = study(folder, nodes=400, payment="kth", blend="", budget=budget, optimiser=optimiser)
            spec.design = dataclasses.replace(spec.design, seed=seed)
            t0 = time.perf_counter()
            ans = run_design(spec)
            r = ans.point(ans.chosen).params["reserve"]
            row = {
                "optimiser": optimiser,
                "seed": seed,
                "chosen_reserve": r,
                "relative_error": abs(r - 20.0) / 20.0,
                "design_points": len(ans.points),
                "simulations": ans.simulations,
                "seconds": time.perf_counter() - t0,
            }
            say(
                f"closed form  {optimiser:4} seed {seed}: r = {r:.4g} ({100 * row['relative_error']:.2f}% from c = 20)"
                f", {row['design_points']} points, {row['simulations']:,} simulations"
            )
            out.append(row)
    return out


def brute_force(folder: Path, budget: int, side: int, seeds: list[int]) -> dict:
    grid_spec = study(folder, nodes=8, payment="blend", blend="blend = [0, 1]", budget=side * side, optimiser="grid")
    t0 = time.perf_counter()
    grid = run_design(grid_spec)
    best = grid.point(grid.chosen)
    g_conf = grid.confirmations[grid.chosen]
    say(
        f"grid {side} x {side}: best {grid.chosen}, fresh objective {g_conf.objective[0]:,.0f} "
        f"[{g_conf.objective[1]:,.0f}, {g_conf.objective[2]:,.0f}], {grid.simulations:,} simulations "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    rows = []
    for optimiser in ("gp", "tpe"):
        for seed in seeds:
            spec = study(folder, nodes=8, payment="blend", blend="blend = [0, 1]", budget=budget, optimiser=optimiser)
            spec.design = dataclasses.replace(spec.design, seed=seed)
            ans = run_design(spec)
            # the chosen design on the grid best's fresh seeds (the same seeds: both confirmations use them)
            c = ans.confirmations[ans.chosen]
            search_only = ans.simulations - sum(len(x.seeds) for x in ans.confirmations.values())
            grid_only = grid.simulations - sum(len(x.seeds) for x in grid.confirmations.values())
            row = {
                "optimiser": optimiser,
                "seed": seed,
                "chosen": ans.chosen,
                "objective": list(c.objective),
                "within_or_above_grid_ci": bool(c.objective[0] >= g_conf.objective[1]),
                "search_simulations": search_only,
                "grid_simulations": grid_only,
                "share_of_grid": search_only / grid_only,
            }
            say(
                f"brute force {optimiser:4} seed {seed}: {ans.chosen}, fresh objective {c.objective[0]:,.0f}; within "
                f"the grid best's CI or above: {row['within_or_above_grid_ci']}; {search_only:,} simulations "
                f"({100 * row['share_of_grid']:.1f}% of the grid's {grid_only:,})"
            )
            rows.append(row)
    return {
        "grid_side": side,
        "grid_best": grid.chosen,
        "grid_best_params": best.params,
        "grid_best_objective": list(g_conf.objective),
        "grid_simulations": grid.simulations,
        "searches": rows,
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, default=24, help="design points per search")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="optimiser seeds")
    ap.add_argument("--grid", type=int, default=10, help="points a side of the brute-force grid")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "design-bench.json"))
    ap.add_argument("--txt", default=str(ROOT / "benchmarks" / "results" / "design-bench.txt"))
    ap.add_argument("--smoke", action="store_true", help="a small run: budget 8, one seed, a 4 x 4 grid, no file")
    a = ap.parse_args(argv)
    if a.smoke:
        a.budget, a.seeds, a.grid = 8, [0], 4
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        result = {
            "command": "python benchmarks/bench_design.py"
            + ("" if a.smoke else f" --budget {a.budget} --seeds {' '.join(map(str, a.seeds))} --grid {a.grid}"),
            "closed_form": closed_form(folder, a.budget, a.seeds),
            "brute_force": brute_force(folder, max(2, (a.grid * a.grid) // 5), a.grid, a.seeds),
        }
        result["seconds"] = time.perf_counter() - t0
    for line in summary(result):
        say(line)
    if not a.smoke:
        Path(a.out).write_text(json.dumps(result, indent=2))
        Path(a.txt).write_text(header(result["command"]) + "\n".join(LINES) + "\n")
        print(f"wrote {a.out} and {a.txt}")


if __name__ == "__main__":
    main()
