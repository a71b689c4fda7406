"""The fast test tier's time, whole process (issue 41, item 7: under 2 minutes on a 2-core machine).

    python benchmarks/bench_test_tiers.py [--repeat 3] [--out benchmarks/results/test-tiers.txt]

Runs ``python -m pytest -q -m "not slow" -p no:cacheprovider`` ``--repeat`` times as whole processes from the
checkout's root, and prints (and writes to ``--out`` where given) each run's wall time, their median, the tests
that passed, and the machine's load average before the first run. A run whose tests do not all pass is an
error: a tier that fails is not a tier that is fast.

    python benchmarks/bench_test_tiers.py --smoke

times one run of the architecture tests instead: that the benchmark runs to its end
(``tests/test_benchmarks_smoke.py``).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAST = ["-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider"]
SMOKE = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_architecture.py", "-m", "not slow"]


def one_run(args: list[str]) -> tuple[float, str]:
    """One whole pytest process: its wall time and its last line (the counts)."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    if done.returncode != 0:
        tail = done.stdout[-3000:] + done.stderr[-2000:]
        raise SystemExit(f"the tier failed (exit {done.returncode}): {last}\n{tail}")
    return wall, last


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="whole runs of the tier (default 3)")
    ap.add_argument("--out", type=Path, help="also write the figures to this file")
    ap.add_argument("--smoke", action="store_true", help="one run of the architecture tests only")
    a = ap.parse_args(argv)
    args, repeat = (SMOKE, 1) if a.smoke else (FAST, a.repeat)
    load = os.getloadavg()[0]
    walls, last = [], ""
    for _ in range(repeat):
        wall, last = one_run(args)
        walls.append(wall)
    passed = re.search(r"(\d+) passed", last)
    lines = [
        f"fast tier: python {' '.join(args[1:])}",
        f"machine: {platform.machine()}, {os.cpu_count()} cores; load average before the first run {load:.2f}",
        f"runs (wall s): {', '.join(f'{w:.1f}' for w in walls)}; median {statistics.median(walls):.1f} s",
        f"tests: {passed.group(1) if passed else '?'} passed ({last})",
        f"measured {time.strftime('%Y-%m-%d')}",
    ]
    text = "\n".join(lines)
    print(text)
    if a.out is not None:
        a.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
