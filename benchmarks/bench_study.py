"""Study machinery and solver speed (issue 3's targets), and the 32-run LPC study (issue 31's).

    python benchmarks/bench_study.py
    python benchmarks/bench_study.py --lpc [--rounds 2] [--n-jobs 2]
    python benchmarks/bench_study.py --pool-start [--rounds 3] [--n-jobs 2]

``--lpc``: a study of 32 runs on the LPC trace at 105 nodes (HB and NPHB, first and k-th price, x FT, SRG,
DEV1 and LRG, 2 seeds) as a whole ``gamemarket study run --no-report`` process from an empty results folder,
against one run of the plain reference (``heapq_market.py``: HB + k-th price on the LPC job table with SRG
bids, seed 1) as a whole process, alternating (target: the study at most 1.5x the one reference run).

``--pool-start``: what a fresh pool of local workers costs before its first run (the figure behind
``gamemarket.workers.POOL_START_S``), in a fresh process each round: the parent's import of the
runner, its first run of a tiny group in process (numba's cache loaded) and its second, the first map of
tiny groups over a fresh pool (each worker starts Python, imports, loads numba's cache) and the same map
again on the warm pool. The pool's start is the difference of the last two.

Prints: (1) parallel efficiency: the same study of at least 32 tasks with 1 and 2 workers;
(2) overhead: study wall time (scheduling, storing, game building, solving) against the summed
simulation time of its tasks; (3) solving: all equilibria of random 10x10 and 8x24 games, every one
verified by regret, against nashpy's vertex enumeration where it finishes in time. ``--smoke``: 2,000 jobs,
one game of each size, nashpy for 5 s at most: that it runs to its end (``tests/test_benchmarks_smoke.py``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SMOKE = "--smoke" in sys.argv

STUDY = """
name = "bench"
[workload]
source = "synthetic"
nodes = 105
[workload.synthetic]
jobs = 200000
load = 0.95
seed = 1
[strategies]
providers = ["hb-first", "hb-kth", "nphb-first", "nphb-kth"]
consumers = ["FT", "SRG", "DEV1", "LRG"]
[replications]
count = 3
"""


LPC_STUDY = """
name = "bench-lpc"
[workload]
source = "{trace}"
reduction = 0.25
[strategies]
providers = ["hb-first", "hb-kth", "nphb-first", "nphb-kth"]
consumers = ["FT", "SRG", "DEV1", "LRG"]
[replications]
count = 2
first = 1
"""


def lpc(rounds: int, n_jobs: int) -> None:
    """The ``--lpc`` case (module docstring)."""
    import subprocess

    from gamemarket.bids import job_table
    from gamemarket.consumers import SRG
    from gamemarket.io import jobtable
    from gamemarket.workloads import read_swf

    trace = ROOT.parent / "shared" / "workloads" / "LPC-EGEE-2004-1.2-cln.swf.gz"
    if not trace.exists():
        sys.exit(f"{trace} not found: `gamemarket workload fetch LPC-EGEE-2004-1.2-cln`")
    tmp = Path(tempfile.mkdtemp())
    try:
        shutil.copytree(ROOT / "strategies", tmp / "strategies")
        (tmp / "studies").mkdir()
        study = tmp / "studies" / "lpc.toml"
        study.write_text(LPC_STUDY.format(trace=trace))
        w = read_swf(trace)
        jobtable.write_table(jobtable.exchange_columns(job_table(w.jobs, SRG, 1)), tmp / "jobs.csv")
        gm = [sys.executable, "-m", "gamemarket", "study", "run", str(study), "--no-report", "--no-progress"]
        gm += ["--n-jobs", str(n_jobs)]
        ref = [sys.executable, str(ROOT / "benchmarks" / "heapq_market.py"), str(tmp / "jobs.csv"), "105"]

        def timed(cmd):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
            return time.perf_counter() - t0

        timed(gm + ["--results", str(tmp / "warm")])  # numba's cache and the trace's first read
        studies, plain = [], []
        for k in range(rounds):
            studies.append(timed(gm + ["--results", str(tmp / f"results-{k}")]))
            plain.append(timed(ref + [str(tmp / f"plain-{k}.csv")]))
        import os

        print(f"LPC study, 32 runs, --n-jobs {n_jobs}, whole processes, load {os.getloadavg()[0]:.1f}:")
        print(f"  study run: {', '.join(f'{t:.2f}' for t in studies)} s")
        print(f"  one plain heapq run (HB + k-th): {', '.join(f'{t:.2f}' for t in plain)} s")
        print(f"  study / reference: {', '.join(f'{a / b:.2f}' for a, b in zip(studies, plain))} (target <= 1.5)")
    finally:
        shutil.rmtree(tmp)


POOL_PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
from joblib import Parallel, delayed
from gamemarket.studies import load_study, runner
t_import = time.perf_counter() - t0
spec = load_study(sys.argv[1])
prep = runner.load_workload(spec)
groups = runner.task_groups(runner.plan(spec, prep.arrays, prep.nodes))
def here(g):
    t = time.perf_counter()
    runner._run_group(g, prep.arrays, prep.nodes, spec.bids, None)
    return time.perf_counter() - t
first, second = here(groups[0]), here(groups[0])
def pool():
    t = time.perf_counter()
    Parallel(n_jobs=int(sys.argv[2]))(
        delayed(runner._run_group)(g, prep.arrays, prep.nodes, spec.bids, None) for g in groups[: int(sys.argv[2])]
    )
    return time.perf_counter() - t
fresh, warm = pool(), pool()
print(json.dumps(dict(import_s=t_import, first_here=first, second_here=second, fresh_pool=fresh, warm_pool=warm)))
"""

TINY = """
name = "tiny"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 600
load = 1.1
seed = 3
[strategies]
providers = ["hb-first", "nphb-kth"]
consumers = ["FT", "SRG"]
[replications]
count = 2
"""


def pool_start(rounds: int, n_jobs: int) -> None:
    """The ``--pool-start`` case (module docstring)."""
    import json
    import os
    import subprocess

    tmp = Path(tempfile.mkdtemp())
    try:
        shutil.copytree(ROOT / "strategies", tmp / "strategies")
        (tmp / "studies").mkdir()
        (tmp / "studies" / "tiny.toml").write_text(TINY)
        print(f"a fresh pool of {n_jobs} local workers, tiny groups (600 jobs), {rounds} fresh processes:")
        for _ in range(rounds):
            load = os.getloadavg()[0]
            cmd = [sys.executable, "-c", POOL_PROBE, str(tmp / "studies" / "tiny.toml"), str(n_jobs)]
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout)
            print(
                f"  load {load:.1f}: import {r['import_s']:.2f} s; a group in process {r['first_here']:.2f} s "
                f"(numba's cache), then {r['second_here']:.3f} s; a map over the fresh pool {r['fresh_pool']:.2f} s, "
                f"over the warm pool {r['warm_pool']:.3f} s: pool start {r['fresh_pool'] - r['warm_pool']:.2f} s"
            )
    finally:
        shutil.rmtree(tmp)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--lpc", action="store_true", help="the 32-run LPC study against one reference run")
    ap.add_argument("--pool-start", action="store_true", help="what a fresh pool of local workers costs")
    ap.add_argument("--smoke", action="store_true", help="small sizes: that it runs to its end (read as SMOKE)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--n-jobs", type=int, default=2)
    a = ap.parse_args()
    if a.lpc:
        lpc(a.rounds, a.n_jobs)
        return
    if a.pool_start:
        pool_start(a.rounds, a.n_jobs)
        return
    from gamemarket.analysis.study import analyze
    from gamemarket.games import Game, regret, solve
    from gamemarket.games.equilibria import nashpy_equilibria
    from gamemarket.studies import load_study, run_study

    tmp = Path(tempfile.mkdtemp())
    try:
        shutil.copytree(ROOT / "strategies", tmp / "strategies")
        (tmp / "studies").mkdir()
        (tmp / "studies" / "bench.toml").write_text(STUDY.replace("jobs = 200000", "jobs = 2000") if SMOKE else STUDY)
        spec = load_study(tmp / "studies" / "bench.toml")
        run_study(spec, n_jobs=2, progress=False)  # warm up: compile caches, worker start
        shutil.rmtree(spec.results_dir)
        times = {}
        for k in (1, 2):
            spec.results_dir = tmp / f"results-{k}"
            t0 = time.perf_counter()
            info = run_study(spec, n_jobs=k, progress=False)
            t_an = time.perf_counter()
            an = analyze(spec)
            times[k] = (time.perf_counter() - t0, info.task_seconds, time.perf_counter() - t_an)
        print(f"study: {spec.n_tasks} tasks (synthetic, 200,000 jobs, 105 nodes: the LPC scale)")
        for k, (wall, sim, anal) in times.items():
            print(
                f"  n_jobs={k}: wall {wall:.2f} s (analysis incl. {len(an.games)} games solved + 1000 bootstrap "
                f"resamples each: {anal:.2f} s), summed task time {sim:.2f} s, "
                f"overhead {(wall - sim / k) / (sim / k):+.1%}"
            )
        print(f"  speed-up with 2 workers: {times[1][0] / times[2][0]:.2f}x")
        w1, s1, _ = times[1]
        print(f"  overhead (1 worker): study wall time / summed simulation time = {w1 / s1:.3f}")
    finally:
        shutil.rmtree(tmp)

    rng = np.random.default_rng(0)
    for m, n, reps in ((10, 10, 1), (8, 24, 1), (12, 12, 1)) if SMOKE else ((10, 10, 5), (8, 24, 5), (12, 12, 3)):
        worst, count = 0.0, []
        t0 = time.perf_counter()
        for _ in range(reps):
            A, B = rng.random((m, n)), rng.random((m, n))
            s = solve(Game(A, B, None, None), methods=("pure", "polytope"), eliminate=False)
            count.append(len(s.equilibria))
            worst = max([worst] + [max(regret(A, B, e.x, e.y)) for e in s.equilibria])
        per = (time.perf_counter() - t0) / reps
        print(
            f"random {m}x{n}: all equilibria in {per:.3f} s per game (mean of {reps}); equilibria per game {count}; "
            f"largest regret {worst:.1e}"
        )
    A, B = rng.random((10, 10)), rng.random((10, 10))
    t0 = time.perf_counter()
    prof, problem = nashpy_equilibria(A, B, "vertex_enumeration", time_limit=5 if SMOKE else 60)
    print(
        f"nashpy vertex enumeration, one random 10x10: {time.perf_counter() - t0:.1f} s"
        + (f" ({problem})" if problem else f", {len(prof)} profiles")
    )
    t0 = time.perf_counter()
    s = solve(Game(A, B, None, None), methods=("pure", "polytope"), eliminate=False)
    print(f"ours on the same game: {time.perf_counter() - t0:.3f} s, {len(s.equilibria)} equilibria")
    P = rng.random((1000, 1000))
    Q = rng.random((1000, 1000))
    from gamemarket.games import pure_equilibria

    t0 = time.perf_counter()
    pe = pure_equilibria(P, Q)
    print(f"pure equilibria of a random 1000x1000 game: {len(pe)} in {1000 * (time.perf_counter() - t0):.1f} ms")


if __name__ == "__main__":
    main()
