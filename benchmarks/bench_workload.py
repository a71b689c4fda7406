"""The workload model's speed targets (issue 12).

    python benchmarks/bench_workload.py

Prints: (1) generating 1M jobs from the committed LPC model (target: at most 1 s); (2) fitting the
model to a 1M-job trace, in memory and as a whole `gamemarket workload fit` on an SWF file of
those jobs (target: at most 10 s); (3) with the LPC trace present, the trace beside five draws
of its model (the congestion statistics of issue 12's table). ``--smoke``: 20,000 jobs, without (3): that it
runs to its end (``tests/test_benchmarks_smoke.py``).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SMOKE = "--smoke" in sys.argv
JOBS = 20_000 if SMOKE else 1_000_000  # the jobs generated and fitted


def main() -> None:
    from gamemarket.workloads import WorkloadModel, generate_from_model
    from gamemarket.workloads.fit import fit_model

    model = WorkloadModel.read(ROOT / "models" / "lpc-egee-2004.toml")
    generate_from_model(model, jobs=10_000, seed=0)  # warm-up (imports)
    times = []
    for seed in range(3):
        t0 = time.perf_counter()
        w = generate_from_model(model, jobs=JOBS, nodes=490, seed=seed)
        times.append(time.perf_counter() - t0)
    print(f"(1) generate {JOBS:,} jobs: {', '.join(f'{t:.2f}' for t in times)} s (target <= 1 s)")
    t0 = time.perf_counter()
    fit_model(w, nodes=490)
    t_fit = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        swf = Path(tmp) / "million.swf"
        j = w.jobs
        with open(swf, "w") as f:
            f.write("; Version: 2.2\n; MaxProcs: 490\n")
            np.savetxt(
                f,
                np.column_stack(
                    [
                        np.arange(1, len(j) + 1),
                        j["submit"],
                        np.zeros(len(j), int),
                        j["runtime"],
                        np.ones(len(j), int),
                        -np.ones(len(j), int),
                        -np.ones(len(j), int),
                        np.ones(len(j), int),
                        j["estimate"],
                        -np.ones(len(j), int),
                        np.ones(len(j), int),
                        j["user"],
                        np.ones(len(j), int),
                        -np.ones(len(j), int),
                        np.ones(len(j), int),
                        np.ones(len(j), int),
                        -np.ones(len(j), int),
                        -np.ones(len(j), int),
                    ]
                ),
                fmt="%d",
            )
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "gamemarket", "workload", "fit", str(swf), "--out", str(Path(tmp) / "m.toml")],
            check=True,
            capture_output=True,
        )
        t_cli = time.perf_counter() - t0
    print(
        f"(2) fit {JOBS:,} jobs: {t_fit:.2f} s in memory; whole `gamemarket workload fit` process on the SWF file "
        f"{t_cli:.2f} s (target <= 10 s)"
    )
    lpc = ROOT.parent / "shared" / "workloads" / "LPC-EGEE-2004-1.2-cln.swf.gz"
    if lpc.exists() and not SMOKE:
        from gamemarket import bids
        from gamemarket.consumers import BetaMix
        from gamemarket.market import Mechanism, outcomes, simulate
        from gamemarket.workloads import load
        from gamemarket.workloads.stats import workload_stats

        def stats(jobs):
            s = workload_stats(jobs, 105)
            run = simulate(bids.job_table(jobs, BetaMix.parse("FT"), 1), 105, Mechanism("hb", "first", 1.0))
            s.update(outcomes.congestion(run.jobs, 105))
            return s

        keys = [
            "offered_load",
            "mean_runtime",
            "median_runtime",
            "queue_time_share",
            "waiting_job_share",
            "peak_jobs_present",
            "days_overloaded",
            "hourly_load_p99",
            "gap_cv",
            "acf_log_runtime_1",
            "acf_log_runtime_100",
            "acf_log_runtime_1000",
            "daily_period_h",
        ]
        rows = {"LPC trace": stats(load(str(lpc)).jobs)}
        for s in range(1, 6):
            rows[f"model seed {s}"] = stats(generate_from_model(model, seed=s).jobs)
        print("(3) LPC trace vs its model (105 nodes; HB, first price, FT, bid seed 1)")
        print(f"  {'statistic':<22}" + "".join(f"{k:>14}" for k in rows))
        for k in keys:
            print(f"  {k:<22}" + "".join(f"{r[k]:>14.4g}" for r in rows.values()))


if __name__ == "__main__":
    main()
