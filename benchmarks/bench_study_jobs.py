"""``gamemarket study jobs`` against ``gamemarket simulate`` of the same profile (issue 44's target: a run's jobs
in at most 1.2x the time of one simulate).

    python benchmarks/bench_study_jobs.py [--trace PATH] [--repeat 5]
    python benchmarks/bench_study_jobs.py --smoke

A study of one run on the LPC trace as the reproduction runs it (105 nodes: 140 processors reduced by 25%;
HB + k-th price against SRG, replication seed 3) is run once (``gamemarket study run --no-report``); then, each in
a fresh process and alternating, ``gamemarket study jobs STUDY --provider hb-kth --consumer SRG --seed 3 --out
jobs.parquet`` (which re-runs the stored run, checks its per-job table's cohort sums against the stored ones
exactly, and writes it) and ``gamemarket simulate --workload TRACE --reduction 0.25 --scheduler hb --payment kth
--mix SRG --seed 3 --out outcome.parquet``. Prints each command's times, their medians and the ratio, and whether
the two per-job tables hold the same numbers in their shared columns (they should: a study's seed and
``simulate --seed`` draw the same bids where the workload is a trace). ``--smoke``: a small generated trace, two
rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "workloads" / "LPC-EGEE-2004-1.2-cln.swf.gz"

STUDY = """name = "jobs-bench"
description = "one run of the LPC reproduction's: HB + k-th price against SRG, seed 3"

[workload]
source = "{trace}"
reduction = 0.25

[strategies]
providers = ["hb-kth"]
consumers = ["SRG"]

[replications]
count = 1
first = 3

[output]
results = "{folder}/results"
report = "{folder}/report"
"""


def _timed(args: list[str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(args, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if r.returncode:
        raise SystemExit(f"{' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return seconds


def _small_trace(path: Path, jobs: int = 20_000) -> Path:
    """A serial SWF trace of ``jobs`` jobs on 140 processors, congested at times."""
    import numpy as np

    rng = np.random.default_rng(3)
    submit = np.cumsum(rng.exponential(25.0, jobs)).astype(int)
    runtime = np.maximum(1, rng.lognormal(6.5, 1.6, jobs)).astype(int)
    lines = ["; Version: 2.2", "; MaxProcs: 140"]
    lines += [
        f"{k + 1} {submit[k]} 0 {runtime[k]} 1 -1 -1 1 {2 * runtime[k]} -1 1 {k % 50 + 1} 1 -1 1 1 -1 -1"
        for k in range(jobs)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--smoke", action="store_true", help="a small generated trace, two rounds")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        trace = _small_trace(folder / "small.swf") if a.smoke else Path(a.trace)
        if not trace.exists():
            sys.exit(f"trace {trace} not found: fetch it with `gamemarket workload fetch LPC-EGEE-2004-1.2-cln`")
        repeat = 2 if a.smoke else a.repeat
        study = folder / "jobs-bench.toml"
        study.write_text(STUDY.format(trace=trace.resolve(), folder=folder))
        gm = [sys.executable, "-m", "gamemarket"]
        _timed([*gm, "study", "run", str(study), "--no-report", "--no-progress"])
        jobs = [*gm, "study", "jobs", str(study), "--provider", "hb-kth", "--consumer", "SRG", "--seed", "3"]
        jobs += ["--out", str(folder / "jobs.parquet"), "--force"]
        sim = [*gm, "simulate", "--workload", str(trace), "--reduction", "0.25", "--scheduler", "hb"]
        sim += ["--payment", "kth", "--mix", "SRG", "--seed", "3", "--out", str(folder / "outcome.parquet"), "--force"]
        times: dict[str, list[float]] = {"study jobs": [], "simulate": []}
        for _ in range(repeat):  # alternating, so that a change in the machine's load falls on both
            times["study jobs"].append(_timed(jobs))
            times["simulate"].append(_timed(sim))
        import pandas as pd

        a_jobs = pd.read_parquet(folder / "jobs.parquet")
        b_jobs = pd.read_parquet(folder / "outcome.parquet")
    shared = [c for c in b_jobs.columns if c in a_jobs.columns]
    same = len(a_jobs) == len(b_jobs) and all(
        (a_jobs[c].astype(str) == b_jobs[c].astype(str)).all()
        if str(b_jobs[c].dtype) == "category"
        else (a_jobs[c].to_numpy() == b_jobs[c].to_numpy()).all()
        for c in shared
    )
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"trace: {trace} ({len(b_jobs):,} jobs), HB + k-th price, SRG, seed 3; {repeat} alternating rounds")
    for k, v in times.items():
        print(f"{k:<11} {', '.join(f'{s:.2f}' for s in v)} s; median {med[k]:.2f} s")
    print(f"study jobs / simulate (medians): {med['study jobs'] / med['simulate']:.2f}x (target: at most 1.2x)")
    print(f"the two per-job tables agree in their {len(shared)} shared columns: {same}")
    print(json.dumps({"times": times, "ratio": med["study jobs"] / med["simulate"], "same_numbers": same}))
    if not same:
        raise SystemExit("the study's run and simulate's differ")


if __name__ == "__main__":
    main()
