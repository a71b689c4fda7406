"""Price discovery on the stress family: how many runs converge at the default tolerance.

    python benchmarks/bench_pricing_stress.py            # n up to 1e5, Clarabel check up to n = 2,000
    python benchmarks/bench_pricing_stress.py --quick    # n up to 1e4
    python benchmarks/bench_pricing_stress.py --random 400   # also 400 random small members (n 10 to 120)

For every utility (alpha from 0.5 to 50), n from 10 to 1e5, m from 2 to 16, and each variant
(heavy-tailed efficiencies over about four decades; zero entries; tied columns; scarce, fair and
ample capacity), one run of ``solve`` at its defaults. Prints a line per class and the totals:
converged, not converged, NaN (never expected), infeasible (never expected), and, where Clarabel's
certified bounds exist, how many runs our answer contradicts (never expected). ``--random N`` adds N
members drawn as the hypothesis test draws them (n 10 to 120, m 2 to 6, every utility and variant, random
seeds), where small n makes ties and binding capacities matter most, and lists those that stop short.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from gamemarket.pricing import solve  # noqa: E402
from gamemarket.pricing.allocation import check_feasible  # noqa: E402
from pricing_stress import UTILITIES, certified_reference, stress_problem  # noqa: E402

VARIANTS = {
    "heavy": {},
    "zeros": {"zeros": 0.3},
    "tied": {"tied": True},
    "scarce": {"capacity": 0.3},
    "ample": {"capacity": 3.0},
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n up to 1e4")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--check-up-to", type=int, default=2000, help="largest n checked against Clarabel")
    ap.add_argument("--random", type=int, default=0, help="also this many random small members")
    ap.add_argument("--smoke", action="store_true", help="n = 10, one seed, three utilities: that it runs to its end")
    a = ap.parse_args()
    if a.random < 0:
        ap.error(f"--random must be >= 0, got {a.random}")
    sizes = [(10, 2), (100, 4), (1000, 8), (10_000, 16)] + ([] if a.quick else [(100_000, 16)])
    if a.smoke:  # tests/test_benchmarks_smoke.py
        sizes, a.seeds, a.random = sizes[:1], 1, min(a.random, 5)
    utilities = UTILITIES[:3] if a.smoke else UTILITIES  # each utility's first solve compiles its kernels
    totals, failures = Counter(), []
    t0 = time.perf_counter()
    for util in utilities:
        line = Counter()
        for n, m in sizes:
            for vname, kw in VARIANTS.items():
                for seed in range(a.seeds):
                    pr = stress_problem(n, m, util, seed, **kw)
                    r = solve(pr)
                    bad_nan = not (np.isfinite(r.prices).all() and np.isfinite(r.objective) and np.isfinite(r.dual))
                    infeasible = check_feasible(pr, r.allocation) > 1e-9
                    line["runs"] += 1
                    line["converged" if r.converged else "not converged"] += 1
                    line["NaN"] += bad_nan
                    line["infeasible"] += infeasible
                    if n <= a.check_up_to:
                        ref = certified_reference(pr)
                        if ref is not None:
                            line["checked"] += 1
                            slack = 1e-7 * max(abs(ref[0]), abs(ref[1]), 1.0)
                            wrong = r.dual < ref[0] - slack or r.objective > ref[1] + slack
                            line["contradicted"] += wrong
                    if not r.converged or bad_nan or infeasible:
                        failures.append(f"{util} n={n} m={m} {vname} seed={seed}: {r.message}")
        totals += line
        print(
            f"{util:>10}: {line['runs']} runs, {line['converged']} converged, {line['not converged']} not, "
            f"{line['NaN']} NaN, {line['infeasible']} infeasible; {line['checked']} checked against Clarabel, "
            f"{line['contradicted']} contradicted",
            flush=True,
        )
    print(
        f"total: {totals['runs']} runs, {totals['converged']} converged, {totals['not converged']} not converged, "
        f"{totals['NaN']} NaN, {totals['infeasible']} infeasible, {totals['contradicted']} of {totals['checked']} "
        f"contradicted by Clarabel; {time.perf_counter() - t0:.0f} s"
    )
    for f in failures:
        print("  not converged:", f)
    if a.random:
        random_members(a.random)
    return 0


def random_members(count: int, seed: int = 1) -> None:
    """``count`` members drawn like the hypothesis test's (``tests/pricing/test_pricing_stress.py``)."""
    rng = np.random.default_rng(seed)
    t0, stopped = time.perf_counter(), []
    for _ in range(count):
        n, m = int(rng.integers(10, 121)), int(rng.integers(2, 7))
        util = UTILITIES[int(rng.integers(0, len(UTILITIES)))]
        s = int(rng.integers(0, 10**6))
        capacity, zeros = [0.3, 1.0, 3.0][int(rng.integers(0, 3))], [0.0, 0.3][int(rng.integers(0, 2))]
        tied = bool(rng.integers(0, 2))
        r = solve(stress_problem(n, m, util, s, capacity=capacity, zeros=zeros, tied=tied))
        if not r.converged:
            stopped.append(f"{util} n={n} m={m} seed={s} capacity={capacity} zeros={zeros} tied={tied}: {r.message}")
    three = sum("three or more resources" in f for f in stopped)
    print(
        f"random small members: {count} runs, {count - len(stopped)} converged, {len(stopped)} not "
        f"({three} of them where the finish's optimum needs a job on three or more resources); "
        f"{time.perf_counter() - t0:.0f} s"
    )
    for f in stopped:
        print("  not converged:", f)


if __name__ == "__main__":
    sys.exit(main())
