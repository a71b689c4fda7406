"""Start-up and whole-process speed (issue 15, item 3).

    python benchmarks/bench_startup.py [--repeat 5]

Prints, as medians over ``--repeat`` whole processes each:
(1) ``gamemarket --help`` (target: at most 0.3 s);
(2) ``gamemarket simulate --job-table TABLE --nodes 105 --out OUT.csv`` on the full LPC-EGEE job table (HB,
k-th price) against a plain heapq implementation of the same market run as a whole process on the
same table (``heapq_market.py``), alternating the two so that both see the same machine (target: a
ratio of at most 0.3). The two outcomes must agree: times, preemptions and payments exactly.
Needs the LPC trace (``GAMEMARKET_TRACES`` or ``../shared/workloads``) for (2).

    python benchmarks/bench_startup.py --smoke

runs each part twice, (2) on a synthetic job table of 2,000 jobs: that the benchmark runs to its end (no trace
needed; ``tests/test_benchmarks_smoke.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE = "LPC-EGEE-2004-1.2-cln.swf.gz"


def whole(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def find_trace() -> Path | None:
    for folder in (os.environ.get("GAMEMARKET_TRACES"), ROOT.parent / "shared" / "workloads"):
        if folder and (Path(folder) / TRACE).exists():
            return Path(folder) / TRACE
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--smoke", action="store_true", help="twice each, (2) on 2,000 synthetic jobs (no trace needed)")
    a = ap.parse_args()
    if a.smoke:  # twice: what a repeated run does (replacing its outputs) is tested too
        a.repeat = 2
    gm = [sys.executable, "-m", "gamemarket"]
    entry = Path(sys.executable).with_name("gamemarket")
    if entry.exists():  # the console script a user runs
        gm = [str(entry)]
    helps = [whole([*gm, "--help"]) for _ in range(a.repeat)]
    print(
        f"gamemarket --help: median {statistics.median(helps):.3f} s "
        f"(min {min(helps):.3f}, n={a.repeat}; target <= 0.3)"
    )
    trace = find_trace()
    if trace is None and not a.smoke:
        print(f"simulate --job-table: skipped, the trace {TRACE} is not here (set GAMEMARKET_TRACES)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        table = tmp / "lpc.csv"
        # the smoke run's table: synthetic jobs on the same 105 nodes, congested as the trace is at its peaks
        source = (
            ["--synthetic-jobs", "2000", "--nodes", "105", "--load", "1.1"]
            if a.smoke
            else ["--workload", str(trace), "--reduction", "0.25"]
        )
        subprocess.run(
            [*gm, "simulate", *source, "--mix", "SRG", "--seed", "1", "--jobs-out", str(table)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        ours, plain = [], []
        for _ in range(a.repeat):
            ours.append(
                # --force: the outcome file of the run before is replaced (a CLI run refuses that otherwise)
                whole(
                    [*gm, "simulate", "--job-table", str(table), "--nodes", "105", "--out", str(tmp / "gm.csv")]
                    + ["--force"]
                )
            )
            plain.append(
                whole(
                    [
                        sys.executable,
                        str(ROOT / "benchmarks" / "heapq_market.py"),
                        str(table),
                        "105",
                        str(tmp / "hq.csv"),
                    ]
                )
            )
        import pandas as pd

        g = pd.read_csv(tmp / "gm.csv").set_index("id").sort_index()
        h = pd.read_csv(tmp / "hq.csv").set_index("id").sort_index()
        cols = ["start", "end", "preemptions", "payment"]
        agree = len(g) == len(h) and bool((g[cols] == h[cols]).all().all())
        mo, mp = statistics.median(ours), statistics.median(plain)
        print(
            f"simulate --job-table on the {'synthetic' if a.smoke else 'LPC'} job table ({len(g):,} jobs, 105 nodes, "
            "HB + k-th price), whole processes:"
        )
        print(f"  gamemarket: median {mo:.2f} s (min {min(ours):.2f}, max {max(ours):.2f})")
        print(f"  plain heapq: median {mp:.2f} s (min {min(plain):.2f}, max {max(plain):.2f})")
        print(f"  ratio of medians: {mo / mp:.2f} (target <= 0.3); outcomes agree exactly: {agree}")
        if not agree:
            raise SystemExit("gamemarket's and the plain heapq market's outcomes differ")


if __name__ == "__main__":
    main()
