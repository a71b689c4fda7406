"""Price discovery on wide problems (few jobs, many resources): every method's time to the stopping rule.

    python benchmarks/bench_pricing_wide.py            # 3 and 50 jobs x 10,000 resources, linear, log, target
    python benchmarks/bench_pricing_wide.py --quick    # 50 jobs x 10,000 resources, linear only
    python benchmarks/bench_pricing_wide.py --smoke    # 20 jobs x 1,000 resources, linear (the suite's smoke run)

Hunt 22b-W1 found ``--method auto`` spending 51 s where ``newton`` took 0.45 s on 50 x 10,000 linear: the repair's
moves at the same throughput visited every resource for every over-subscribed one (27 s a repair). The problems are
the hunter's (``A ~ U(0.1, 1)``, ``R ~ U(0.5, 1)``, seed 1). Each line: the method, the wall time, whether it met the
stopping rule, the objective and the gap; the objectives of one problem agree within their gaps (checked: a line
says "DISAGREE" otherwise).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gamemarket.pricing import Problem, solve  # noqa: E402
from gamemarket.pricing.allocation import check_feasible  # noqa: E402
from gamemarket.pricing.utilities import make_utility  # noqa: E402


def wide(n: int, m: int, utility: str, seed: int = 1) -> Problem:
    rng = np.random.default_rng(seed)
    A, R = rng.uniform(0.1, 1, (n, m)), rng.uniform(0.5, 1, m)
    # the target utility's desired throughputs: one each (it needs them; the full run stopped there before)
    target = np.ones(n) if utility == "target" else None
    return Problem(A, R, make_utility(utility), target=target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--time-limit", type=float, default=300.0)
    a = ap.parse_args()
    cases = (
        [(50, 10_000, "linear")] if a.quick else [(n, 10_000, u) for n in (3, 50) for u in ("linear", "log", "target")]
    )
    if a.smoke:
        cases = [(20, 1_000, "linear")]
    for n, m, u in cases:
        pr = wide(n, m, u)
        found = []
        for method in ("newton", "auto", "lbfgs"):
            t0 = time.perf_counter()
            r = solve(pr, method=method, time_limit=a.time_limit)
            dt = time.perf_counter() - t0
            assert check_feasible(pr, r.allocation) <= 1e-9
            found.append(r)
            print(f"{n:>3} x {m:,} {u:>6} {method:>6}: {dt:7.2f} s, converged {r.converged}, objective "
                  f"{r.objective:.10g}, gap {r.gap:.3g}", flush=True)  # fmt: skip
        best = max(r.objective for r in found)
        for r in found:
            if r.converged and best - r.objective > r.gap + 1e-9 * abs(best):
                print(f"  DISAGREE: {r.objective:.10g} is below {best:.10g} by more than its gap {r.gap:.3g}")


if __name__ == "__main__":
    main()
