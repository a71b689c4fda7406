"""The reproduction's throughput and its report's time (issue 15, items 1 and 2).

    python benchmarks/bench_reproduction.py [--n-jobs 2]

Runs the reproduction (``studies/shudler2010.toml`` on the LPC-EGEE trace and its companion on the
fitted workload model: 2,240 runs) from empty stores in a copy of the studies, then prints:
(1) the engine alone: the mean time of one run's engine call (``run_schedule``: ranking and the
event loop, one payment scheme), each run on its own, over a sample of the study's runs, measured
before the study and again after it (this machine's speed drifts by tens of percent within minutes, so
the two bracket the study and their mean is the figure compared), and the runs per second that gives
with ``--n-jobs`` workers, had they nothing else to do;
(2) the study: wall time and runs per second with ``--n-jobs`` workers (targets: at most 2 min, and
within 1.3x of the engine alone's runs per second), and the summed task time;
(3) the report: ``analyze`` and ``write_report`` in the same process (what ``study run`` adds after
its runs; target: at most 10 s), then a whole ``gamemarket study run`` process with every run stored
(what a user waits for to redraw a report).
The population study the report quotes runs (or resumes) first, as ``study run`` does, and is not timed: the
checkout's stored runs (``results/population-shudler2010``) are copied, else it runs from empty (minutes).
Needs the LPC trace (``GAMEMARKET_TRACES`` or ``../shared/workloads``).

    python benchmarks/bench_reproduction.py --smoke

runs the same steps on a small stand-in of the same shape (the three study files with their mechanisms,
strategies, games and notes, on a small synthetic workload with two seeds): that the benchmark runs to its end
from a fresh clone, without the trace (``tests/test_benchmarks_smoke.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TRACE = "LPC-EGEE-2004-1.2-cln.swf.gz"
#: the smoke run's workload where the study's is the model or synthetic: small and congested
SMOKE_WORKLOAD = {"source": "synthetic", "nodes": 8, "synthetic": {"jobs": 800, "load": 1.1, "seed": 1}}


def small_trace(path: Path, jobs: int = 800) -> Path:
    """A small SWF trace in the LPC trace's stead (serial jobs on 12 processors, congested at times, a few run
    times of 0 that cleaning drops, as the trace has): what the smoke run's trace studies read."""
    import numpy as np  # deferred: as the benchmark's other imports, after its arguments

    rng = np.random.default_rng(5)
    submit = np.cumsum(rng.exponential(40.0, jobs)).astype(int)
    runtime = np.maximum(0, rng.lognormal(5.0, 1.4, jobs)).astype(int)
    runtime[::97] = 0
    lines = ["; Version: 2.2", "; MaxProcs: 12"]
    lines += [
        f"{k + 1} {submit[k]} 0 {runtime[k]} 1 -1 -1 1 {2 * runtime[k] + 60} -1 1 {k % 30 + 1} 1 -1 1 1 -1 -1"
        for k in range(jobs)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def stand_in(studies: Path) -> None:
    """Rewrite the reproduction's three study files in ``studies`` (a copy) as a small stand-in of the same
        shape: the same mechanisms, strategies, games and notes, with two seeds (the population game reduced to two
    players), on a small trace where the study
        reads the LPC trace (its notes quote what cleaning a trace drops) and on ``SMOKE_WORKLOAD`` elsewhere."""
    import tomli_w  # deferred: only the smoke run writes study files

    trace = small_trace(studies / "small-trace.swf")
    for name in ("shudler2010", "shudler2010-synthetic", "population-shudler2010"):
        path = studies / f"{name}.toml"
        study = tomllib.loads(path.read_text())
        on_trace = study["workload"].get("source") == TRACE.removesuffix(".swf.gz")
        study["workload"] = {"source": str(trace), "reduction": 0.25} if on_trace else dict(SMOKE_WORKLOAD)
        study["replications"] = {**study["replications"], "count": 2}
        if "game" in study:  # the population study: two seeds, a 2-player reduced game
            study["game"].update({k: 2 for k in ("max_seeds", "reduced_players") if k in study["game"]})
        path.write_text(tomli_w.dumps(study))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--smoke", action="store_true", help="a small stand-in of the same shape (no trace needed)")
    a = ap.parse_args()
    traces = [os.environ.get("GAMEMARKET_TRACES"), str(ROOT.parent / "shared" / "workloads")]
    found = next((t for t in traces if t and (Path(t) / TRACE).exists()), None)
    if found is None and not a.smoke:
        print(f"skipped: the trace {TRACE} is not here (set GAMEMARKET_TRACES)")
        return
    if found is not None:
        os.environ["GAMEMARKET_TRACES"] = found

    from gamemarket import bids
    from gamemarket.analysis.study import analyze
    from gamemarket.market.simulate import run_schedule
    from gamemarket.reports import write_report
    from gamemarket.search.population import run_population_study
    from gamemarket.studies import load_study, run_study
    from gamemarket.studies.runner import load_workload, plan

    tmp = Path(tempfile.mkdtemp())
    try:
        for d in ("studies", "strategies", "models"):
            shutil.copytree(ROOT / d, tmp / d)
        population = ROOT / "results" / "population-shudler2010"
        if a.smoke:
            stand_in(tmp / "studies")
        elif population.exists():  # the linked population study's stored runs, so the report is complete
            shutil.copytree(population, tmp / "results" / "population-shudler2010")
        spec = load_study(tmp / "studies" / "shudler2010.toml")
        companion = load_study(tmp / "studies" / "shudler2010-synthetic.toml")
        # the population study the report quotes, run (or resumed) first as `study run` does, not timed: from a
        # fresh clone, without the checkout's stored runs, that is the whole population study (minutes)
        t0 = time.perf_counter()
        pop = run_population_study(load_study(spec.population_study), n_jobs=a.n_jobs, progress=False)
        print(
            f"population study {pop.spec.name}: {pop.runs.run_now} of its runs run now, "
            f"in {time.perf_counter() - t0:.1f} s (not part of the figures below)"
        )

        # (1) the engine alone, one run at a time
        prep = load_workload(spec)
        arrays, nodes, w = prep.arrays, prep.nodes, prep.source
        tasks = plan(spec, arrays, nodes)
        sample = [t for t in tasks if t.seed == spec.seeds[0] and t.consumer in ("FT", "SRG", "g0.3x0.6")]
        run_schedule(
            bids.job_table(w.jobs, sample[0].strategy, 1, distribution=spec.bids)[:100],
            nodes,
            "hb",
            [("kth", 1.0)],
        )  # load the cache

        def engine_alone() -> float:
            seconds = []
            for t in sample:
                table = bids.job_table(w.jobs, t.strategy, t.seed, distribution=spec.bids)
                p = t.provider_params
                t0 = time.perf_counter()
                run_schedule(table, nodes, p["scheduler"], [(p["payment"], p["reserve"])])
                seconds.append(time.perf_counter() - t0)
            return sum(seconds) / len(seconds)

        before = engine_alone()
        print(
            f"engine alone, before the study: {before:.3f} s per run "
            f"(mean of {len(sample)} runs of the study, each on its own)"
        )

        # (2) the study, from empty stores
        t0 = time.perf_counter()
        infos = [run_study(s, n_jobs=a.n_jobs, progress=False) for s in (companion, spec)]
        wall = time.perf_counter() - t0
        runs = sum(i.run for i in infos)
        rate = runs / wall
        after = engine_alone()
        e = (before + after) / 2
        print(f"engine alone, after the study: {after:.3f} s per run; mean {e:.3f} s")
        print(f"  with {a.n_jobs} workers and nothing else to do: {a.n_jobs / e:.1f} runs/s")
        print(
            f"reproduction: {runs:,} runs in {wall:.1f} s with {a.n_jobs} workers (target <= 120 s): {rate:.1f} runs/s"
        )
        print(f"  engine alone / study runs per second: {(a.n_jobs / e) / rate:.2f} (target <= 1.3)")
        print(f"  summed task time {sum(i.task_seconds for i in infos):.1f} s (shared engine passes split evenly)")

        # (3) the report
        t0 = time.perf_counter()
        an = analyze(spec, for_report=True, population=pop)
        t1 = time.perf_counter()
        write_report(an, n_jobs=a.n_jobs)
        t2 = time.perf_counter()
        pop = "with" if an.population is not None else "without"
        print(
            f"report ({pop} the population study): {t2 - t0:.1f} s in the process that ran the study "
            f"(analysis {t1 - t0:.1f} s, drawing and writing {t2 - t1:.1f} s; target <= 10 s)"
        )
        entry = Path(sys.executable).with_name("gamemarket")
        cmd = [str(entry)] if entry.exists() else [sys.executable, "-m", "gamemarket"]
        t0 = time.perf_counter()
        subprocess.run(
            [*cmd, "study", "run", str(spec.path), "--n-jobs", str(a.n_jobs), "--no-progress"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"  a whole `gamemarket study run` process, every run stored: {time.perf_counter() - t0:.1f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
