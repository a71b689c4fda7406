"""The LP finish's cost by program size (why ``lp_finish.MAX_COLUMNS`` is 100,000).

    python benchmarks/bench_lp_finish.py                 # linear stress members, n = 10,000 and 20,000, m = 8
    python benchmarks/bench_lp_finish.py --n 50000       # add sizes (n = 50,000: about 2.5 minutes)

For each size: a linear stress member (``tests/pricing_stress.py``, seed 0), prices from 30 iterations of
``solve``, then one ``lp_finish`` from them (the size limit lifted): its columns, wall time, rounds and gap.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gamemarket.pricing import lp_finish as lpf  # noqa: E402
from gamemarket.pricing import solve  # noqa: E402
from gamemarket.pricing.envelope import sort_efficiencies  # noqa: E402
from pricing_stress import stress_problem  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="*", default=[10_000, 20_000], help="job counts")
    ap.add_argument("--m", type=int, default=8, help="resources")
    a = ap.parse_args()
    if any(n < 1 for n in a.n) or a.m < 1:
        ap.error("--n and --m must be >= 1")
    lpf.MAX_COLUMNS = 10**9  # measure beyond the limit
    for n in a.n:
        pr = stress_problem(n, a.m, "linear", 0)
        A = np.ascontiguousarray(pr.A)
        p = solve(pr, max_iter=30).prices
        t0 = time.perf_counter()
        f = lpf.lp_finish(pr, A, sort_efficiencies(A), p, np.zeros(a.m), target_gap=1e-3 * n)
        print(
            f"n={n:,} m={a.m}: {f.columns:,} columns, finish {time.perf_counter() - t0:.1f} s, {f.rounds} round(s), "
            f"gap {f.dual - f.objective:.3g} (eps {1e-3 * n:g}), {f.message}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
