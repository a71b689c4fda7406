"""Population games (issue 10's speed targets).

    python benchmarks/bench_population.py [--lpc] [--quick] [--studies]
    python benchmarks/bench_population.py --range    # only part (1c)
    python benchmarks/bench_population.py --overhead [--lpc] [--all]    # only part (4), issue 30's overhead target
    python benchmarks/bench_population.py --pool-choice [--base DIR] [--rounds 3]    # only part (5), issue 31 item 3

Prints: (1) a random 2-role game, 5 + 5 strategies, 10 + 10 players, reduced by DPR to 4 + 4: the
time to every equilibrium our solver finds, what its support enumeration tried, and how many a
reference support enumeration with ten times the Newton starts (from other starting points) finds
that ours missed (target: every equilibrium in at most 5 s; no method here can certify "every");
(1b) on 40 random games each of the population studies' shape (one role, 5 strategies, 4 and 8
players), how many of the equilibria a ten-times search finds the default misses; (1c) the unit test's
replicator-dynamics-plus-polish cross-check over issue 10's whole range of random games; (2) the synthetic
population study `studies/population-default.toml` from an empty store with 2
workers (target: at most 1 min);
(3) with --lpc, `studies/population-shudler2010.toml` (8 mechanisms, 5 strategies, regret CIs) from
an empty store with 2 workers on the LPC trace (target: at most 15 min). --quick skips the
reference searches of (1) and (1b), which take about a minute per game of (1); --studies runs (2) and
(3) only. The studies' lines include the provider-consumer game's equilibria (any provider mixture).
``--smoke``: (1) on one smaller game without the reference search, and (2) on 500 jobs, two seeds and a 2-player
reduced game: that it runs
to its end (``tests/test_benchmarks_smoke.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SMOKE = "--smoke" in sys.argv


def homotopy_paths(players: int, strategies: int) -> tuple[int, int]:
    """What certifying every equilibrium of a 2-role game (``players`` per role after DPR, ``strategies`` per
    role) would take by homotopy continuation: the 2-homogeneous Bezout number of the indifference system,
    for the full support and summed over every support. A support with k1 and k2 strategies has k1 - 1
    equations of degree players - 1 in its own role's probabilities and players in the other's, and
    k2 - 1 the other way round; a path per root of the start system."""
    from math import comb

    d_own, d_other = players - 1, players

    def support(
        f1: int, f2: int
    ) -> int:  # coefficient of a^f1 b^f2 in (d_own a + d_other b)^f1 (d_other a + d_own b)^f2
        return sum(
            comb(f1, i)
            * d_own**i
            * d_other ** (f1 - i)
            * comb(f2, f1 - i)
            * d_other ** (f1 - i)
            * d_own ** (f2 - f1 + i)
            for i in range(f1 + 1)
            if f1 - i <= f2
        )

    total = sum(
        comb(strategies, k1) * comb(strategies, k2) * support(k1 - 1, k2 - 1)
        for k1 in range(1, strategies + 1)
        for k2 in range(1, strategies + 1)
        if k1 + k2 > 2
    )
    return support(strategies - 1, strategies - 1), total


def dpr_game() -> None:
    from gamemarket.games.reduction import reduce_game
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.games.rsgame import RoleSymmetricGame
    from gamemarket.games.support_newton import support_enumeration

    full_support, every = homotopy_paths(4, 5)
    print(
        f"  certifying every equilibrium by homotopy continuation would track {full_support:,} paths for the full "
        f"support alone and {every:,} over every support (2-homogeneous Bezout numbers)"
    )
    # the smoke run's game: smaller (10 + 10 players, 5 + 5 strategies take about 30 s to search)
    players, strategies, reduced = ([6, 6], [3, 3], [2, 2]) if SMOKE else ([10, 10], [5, 5], [4, 4])
    for seed in range(1 if SMOKE else 3):
        full = RoleSymmetricGame.random(players, strategies, np.random.default_rng(seed))
        t0 = time.perf_counter()
        red = reduce_game(full, reduced)
        t_red = time.perf_counter() - t0
        t0 = time.perf_counter()
        sol = equilibria(red)
        t_sol = time.perf_counter() - t0
        stable = sum(e.stability == "stable" for e in sol.equilibria)
        print(
            f"  random 2-role game seed {seed}: full game {len(full.profiles):,} profiles; "
            f"DPR to 4+4 in {t_red:.2f} s; "
            f"equilibria: {len(sol.equilibria)} ({stable} stable) in {t_sol:.2f} s "
            f"(max regret {max(e.regret for e in sol.equilibria):.1e})\n    {sol.search.summary()}"
        )
        if "--quick" in sys.argv or SMOKE:
            continue
        t0 = time.perf_counter()
        ref = support_enumeration(red, tolerance=sol.tolerance, starts_per_round=80, max_starts=640, seed=99)
        t_ref = time.perf_counter() - t0
        missed = sum(not any(np.abs(e.mixture - x).max() < 1e-6 for e in sol.equilibria) for x in ref.mixtures)
        extra = sum(not any(np.abs(e.mixture - x).max() < 1e-6 for x in ref.mixtures) for e in sol.equilibria)
        print(
            f"    reference, ten times the starts from other points: {len(ref.mixtures)} in {t_ref:.1f} s; "
            f"{missed} of them not found by the default, {extra} found by the default only; "
            f"union {len(sol.equilibria) + missed}\n    {ref.summary()}"
        )


def market_shaped(games: int = 40) -> None:
    """Random games of the population studies' shape (one role, 5 strategies, 4 or 8 players): how many of
    the equilibria a search with ten times the starts finds the default misses."""
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.games.rsgame import RoleSymmetricGame
    from gamemarket.games.support_newton import support_enumeration

    for players in (4, 8):
        missed = total = 0
        t_default = t_ref = 0.0
        for seed in range(games):
            g = RoleSymmetricGame.random([players], [5], np.random.default_rng(1000 + seed))
            t0 = time.perf_counter()
            sol = equilibria(g)
            t_default += time.perf_counter() - t0
            t0 = time.perf_counter()
            ref = support_enumeration(g, tolerance=sol.tolerance, starts_per_round=80, max_starts=640, seed=99)
            t_ref += time.perf_counter() - t0
            total += len(ref.mixtures)
            missed += sum(not any(np.abs(e.mixture - x).max() < 1e-6 for e in sol.equilibria) for x in ref.mixtures)
        print(
            f"  {games} random games, 1 role x {players} players x 5 strategies: the ten-times search found {total} "
            f"equilibria in {t_ref:.1f} s, the default missed {missed} of them (default {t_default:.1f} s in all)"
        )


def reference_range(seeds_one: int = 3, seeds_two: int = 2) -> None:
    """The unit test's cross-check (``tests/games/test_rsgame.py``: every equilibrium a replicator-dynamics-plus-
    polish reference finds is found, at no higher regret) over issue 10's whole range: one role with 2 to 10
    players and 2 to 5 strategies, two roles up to 10 players or 4 strategies a role. The test itself stays
    at 4 players and 3 strategies for two roles, to keep the suite's time."""
    sys.path.insert(0, str(ROOT / "tests"))
    import rsg_reference as ref
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.games.rsgame import RoleSymmetricGame

    shapes = [(1, p, s, seeds_one) for p in (2, 4, 6, 8, 10) for s in (2, 3, 4, 5)]
    shapes += [(2, p, s, seeds_two) for p, s in ((2, 2), (4, 3), (6, 3), (6, 4), (10, 2), (10, 3))]
    for roles in (1, 2):
        games = found = missed = worse = ours_total = 0
        t_ours = t_ref = 0.0
        for r, players, strategies, seeds in shapes:
            if r != roles:
                continue
            for seed in range(seeds):
                g = RoleSymmetricGame.random(
                    [players] * roles,
                    [strategies] * roles,
                    np.random.default_rng(7000 + 97 * players + strategies + seed),
                )
                starts = [g.uniform_mixture()] + [
                    g.normalize(g.uniform_mixture() * 0.1 + 0.9 * np.eye(g.num_all_strategies)[k])
                    for k in range(g.num_all_strategies)
                ]
                t0 = time.perf_counter()
                refs = [x for x in ref.replicator_then_polish(g, starts) if ref.regret(g, x) < 1e-6]
                t_ref += time.perf_counter() - t0
                t0 = time.perf_counter()
                sol = equilibria(g)
                t_ours += time.perf_counter() - t0
                games += 1
                ours_total += len(sol.equilibria)
                for x in refs:
                    hit = [e for e in sol.equilibria if np.abs(e.mixture - x).max() < 1e-5]
                    found += bool(hit)
                    missed += not hit
                    worse += bool(hit) and hit[0].regret > ref.regret(g, x) + 1e-12
        sizes = sorted({(p, s) for r, p, s, _ in shapes if r == roles})
        what = (
            "players x strategies " + ", ".join(f"{p}x{s}" for p, s in sizes)
            if roles == 2
            else f"{sizes[0][0]} to {sizes[-1][0]} players x {sizes[0][1]} to {sizes[-1][1]} strategies"
        )
        print(
            f"  {games} random games, {roles} role(s), {what} a role: the reference found "
            f"{found + missed} equilibria in {t_ref:.1f} s; ours found {found} of them ({missed} missed, {worse} at a "
            f"higher regret) and {ours_total} in all, in {t_ours:.1f} s"
        )
    from math import comb

    print(
        f"  not run: 2 roles x 10 players x 5 strategies a role ({comb(10 + 4, 4) ** 2:,} profiles), which the solver "
        "meets only after DPR (part 1)"
    )


def study(path: Path, n_jobs: int = 2) -> None:
    from gamemarket.search.population import run_population_study
    from gamemarket.studies import load_study

    spec = load_study(path)
    tmp = Path(tempfile.mkdtemp(prefix="bench-pop-"))
    if SMOKE:  # the same study on 500 jobs and two seeds
        small = tmp / "studies" / path.name
        small.parent.mkdir()
        text = path.read_text().replace("jobs = 4000", "jobs = 500").replace("max_seeds = 8", "max_seeds = 2")
        text = text.replace("reduced_players = 4", "reduced_players = 2")
        small.write_text(text.replace("count = 4", "count = 2"))
        spec = load_study(small)
    spec.results_dir = tmp / "results" if SMOKE else tmp  # a folder of its own, beside the smoke run's study
    try:
        t0 = time.perf_counter()
        an = run_population_study(spec, n_jobs=n_jobs)
        wall = time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    joint = an.provider.joint.equilibria
    print(
        f"  {spec.name}: {an.runs.simulations:,} simulations ({an.meta.jobs:,} jobs each) with {n_jobs} workers "
        f"in {wall:.1f} s; fixed design of the same confidence: {an.runs.fixed_design:,}; "
        f"{sum(len(a.equilibria) for a in an.answers)} equilibria over {len(an.answers)} mechanisms; "
        f"provider and consumers together: {len(joint)} {'equilibrium' if len(joint) == 1 else 'equilibria'} "
        f"({sum(len(e.provider) > 1 for e in joint)} with a mixed provider strategy)"
    )


def overhead(path: Path, n_jobs: int = 1, reps: int = 15, every: bool = False) -> dict:
    """Issue 30's overhead target: a population study's simulations per second against the engine alone's, one
    at a time (target: at least 0.75x).

    The study is ``path`` cut to its first mechanism (``every``: all of them), run from an empty store with
    ``n_jobs`` workers (its wall time counts the workload's loading, the bids, the analysis and the store; its
    simulations are the runs it made). The engine alone is ``simulate.run_arrays`` (the ranks and the compiled
    engine) on the same workload with the truthful bids of the study's first seed, ``reps`` times one at a time: its
    median time a run (with ``every``, the mean over the mechanisms of their medians, weighted by each one's seeds,
    in proportion to its runs). Wall and CPU time both: on a shared machine the wall time swings with the load."""
    from gamemarket import bids
    from gamemarket.market.base import market_for
    from gamemarket.market.simulate import Mechanism, run_arrays
    from gamemarket.search.population import run_population_study
    from gamemarket.studies import load_study
    from gamemarket.studies.population import PopulationRuns
    from gamemarket.studies.runner import load_workload

    spec = load_study(path)
    if not every:
        spec.providers = spec.providers[:1]
    tmp = Path(tempfile.mkdtemp(prefix="bench-pop-"))
    spec.results_dir = tmp
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        an = run_population_study(spec, n_jobs=n_jobs)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0  # cpu: this process's (all of it at 1 worker)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    runs = PopulationRuns(spec, load_workload(spec))
    draws = bids.draw(market_for(spec.providers[0].params()).size(runs.arrays), spec.seeds[0], distribution=spec.bids)
    table = {c: runs.arrays[c] for c in ("id", "submit", "runtime", "estimate")}
    table.update(private_bid=draws.private_bid, reported_bid=draws.private_bid, group=np.zeros(len(draws.G), np.int64))
    per = {}
    for prov in spec.providers:
        m = Mechanism(prov.params()["scheduler"], prov.params()["payment"], prov.params()["reserve"])
        run_arrays(table, runs.nodes, m)  # compiled already; once more to warm the caches
        times, cpus = [], []
        for _ in range(reps):
            t, c = time.perf_counter(), time.process_time()
            run_arrays(table, runs.nodes, m)
            times.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
        per[prov.name] = (float(np.median(times)), float(np.median(cpus)))
    weight = {p: an.runs.seeds.get(p, 1) for p in per}
    engine = sum(per[p][0] * weight[p] for p in per) / sum(weight.values())
    engine_cpu = sum(per[p][1] * weight[p] for p in per) / sum(weight.values())
    label = spec.providers[0].name if len(per) == 1 else f"{len(per)} mechanisms"
    made = an.runs.run_now
    out = {
        "study": spec.name,
        "mechanism": label,
        "jobs": an.meta.jobs,
        "workers": n_jobs,
        "study_simulations": made,
        "study_seconds": wall,
        "study_per_second": made / wall,
        "engine_seconds_median": engine,
        "engine_per_second": 1 / engine,
        "ratio": (made / wall) * engine,
        "study_cpu_seconds": cpu,
        "engine_cpu_seconds_median": engine_cpu,
        "cpu_ratio": (made / cpu) * engine_cpu,
    }
    print(
        f"  {spec.name} ({label}, {an.meta.jobs:,} jobs, {n_jobs} worker(s)): {made:,} simulations in "
        f"{wall:.1f} s = {made / wall:.2f}/s; the engine alone {engine * 1e3:.1f} ms a run = {1 / engine:.2f}/s "
        f"(median of {reps}); ratio {out['ratio']:.2f} (target >= 0.75); in CPU time (less sensitive to a shared "
        f"machine's load; one worker: the study is this process): {cpu:.1f} s against {engine_cpu * 1e3:.1f} ms a run, "
        f"ratio {out['cpu_ratio']:.2f}"
    )
    return out


def _load() -> str:
    """The machine's load averages (``uptime``'s three), for the figures beside them."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def pool_choice(base: Path | None, rounds: int = 3, n_jobs: int = 2) -> None:
    """Issue 31 item 3: a small population study and a report's figures with ``--n-jobs 2``, each as a whole
    ``gamemarket study run`` process (a fresh process: no pool up), this checkout against ``base`` (another
    checkout, say ``git archive main``), alternating. The population study runs from an empty results folder
    (``population-default.toml``, 170 simulations of 4,000 jobs); the figures are the report of ``default.toml``
    from its stored results (nothing simulated: the runs are stored by a first, untimed run), the time the
    command prints for writing it. With ``base`` absent, this checkout only."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-pool-choice-"))
    roots = [("branch", ROOT)] + ([("base", base)] if base is not None else [])

    def cli(root: Path, *args: str) -> tuple[float, str]:
        env = {**os.environ, "PYTHONPATH": str(root)}
        env.pop("GAMEMARKET_POOL_START_S", None)  # the default start cost: the decision as a user meets it
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "gamemarket", "study", "run", *args, "--n-jobs", str(n_jobs), "--no-progress"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return time.perf_counter() - t0, out

    try:
        stored = tmp / "default-results"
        cli(ROOT, str(ROOT / "studies" / "default.toml"), "--results", str(stored), "--no-report")
        for r in range(rounds):
            for name, root in roots if r % 2 == 0 else roots[::-1]:
                res = tmp / f"pop-{name}-{r}"
                before = _load()
                wall, _ = cli(
                    root, str(root / "studies" / "population-default.toml"), "--results", str(res), "--no-report"
                )
                workers = (
                    json.loads((res / "last-run.json").read_text()).get("workers")
                    if (res / "last-run.json").exists()
                    else "?"
                )
                print(
                    f"  round {r + 1} {name:6} population-default: {wall:.2f} s wall (workers used: {workers}; "
                    f"load {before} -> {_load()})"
                )
                before = _load()
                wall, out = cli(
                    root,
                    str(root / "studies" / "default.toml"),
                    "--results",
                    str(stored),
                    "--report",
                    str(tmp / f"report-{name}"),
                    "--force",
                )
                written = out.split("(written in ", 1)[1].split(";", 1)[0] if "(written in " in out else "?"
                print(
                    f"  round {r + 1} {name:6} default report (figures): written in {written}; command {wall:.2f} s "
                    f"wall (load {before} -> {_load()})"
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    if "--pool-choice" in sys.argv:  # issue 31 item 3 only
        print("(5) pool choice: a small population study and a report's figures with 2 workers, fresh processes")
        base = Path(sys.argv[sys.argv.index("--base") + 1]) if "--base" in sys.argv else None
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
        pool_choice(base, rounds)
        return
    if "--overhead" in sys.argv:  # issue 30's target only
        print("(4) population-study overhead against the engine alone")
        study_file = "population-shudler2010.toml" if "--lpc" in sys.argv else "population-default.toml"
        overhead(ROOT / "studies" / study_file, every="--all" in sys.argv)
        return
    if "--range" in sys.argv:
        print("(1c) the reference cross-check over issue 10's range")
        reference_range()
        return
    if "--studies" not in sys.argv:  # --studies: parts (2) and, with --lpc, (3) only
        print("(1) DPR-reduced random game")
        dpr_game()
    if "--quick" not in sys.argv and "--studies" not in sys.argv and not SMOKE:
        print("(1b) games of the market's shape")
        market_shaped()
        print("(1c) the reference cross-check over issue 10's range")
        reference_range()
    print("(2) synthetic population study")
    study(ROOT / "studies" / "population-default.toml")
    if "--lpc" in sys.argv:
        print("(3) LPC population study")
        study(ROOT / "studies" / "population-shudler2010.toml")


if __name__ == "__main__":
    main()
