"""Price discovery against CVXPY + Clarabel (issue 31, item 3: at most 0.05x at n = 1e5, m = 4).

    python benchmarks/bench_pricing_cvxpy.py [--n 100000] [--m 4] [--seeds 0]

For each seed, the paper's synthetic family with log utility (``gamemarket.pricing.synthetic``):
``maximize sum_i log(a_i^T x_i)`` s.t. ``x_i >= 0``, ``1^T x_i <= 1``, ``sum_i x_i <= R``, solved in this
process on one thread by ``gamemarket.pricing.solve`` at its default (after one small solve, so that numba's
compilation is not counted) and by CVXPY with Clarabel at its defaults (the time from building the problem
to its solution: CVXPY's canonicalisation and Clarabel's solve, each also printed). Prints both times, their
ratio, both objectives, gamemarket's certified gap (relative), and whether its objective is at least
CVXPY's less Clarabel's own tolerance.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ.setdefault(_k, "1")  # one thread each, set before numpy, numba or Clarabel start theirs

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cvxpy_solve(A: np.ndarray, R: np.ndarray) -> tuple[float, float, float]:
    """(total seconds, Clarabel's solve seconds, objective) of CVXPY + Clarabel on the problem."""
    import cvxpy as cp

    n, m = A.shape
    t0 = time.perf_counter()
    X = cp.Variable((n, m), nonneg=True)
    throughput = cp.sum(cp.multiply(A, X), axis=1)
    prob = cp.Problem(cp.Maximize(cp.sum(cp.log(throughput))), [cp.sum(X, axis=1) <= 1, cp.sum(X, axis=0) <= R])
    prob.solve(solver=cp.CLARABEL)
    total = time.perf_counter() - t0
    return total, float(prob.solver_stats.solve_time or float("nan")), float(prob.value)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--m", type=int, default=4)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    a = ap.parse_args()
    from gamemarket.pricing import solve, synthetic

    solve(synthetic(200, a.m, "log", seed=99))  # compile (or load from numba's cache) outside the timing
    print(f"n = {a.n:,}, m = {a.m}, log utility, one thread; load {os.getloadavg()[0]:.1f}")
    for seed in a.seeds:
        prob = synthetic(a.n, a.m, "log", seed=seed)
        t0 = time.perf_counter()
        r = solve(prob)
        gm_s = time.perf_counter() - t0
        cv_s, cv_solve_s, cv_obj = cvxpy_solve(np.asarray(prob.A), np.asarray(prob.R))
        print(
            f"seed {seed}: gamemarket {gm_s:.2f} s, objective {r.objective:,.4f} (certified gap "
            f"{r.gap / abs(r.objective):.1e} relative, converged {r.converged}); CVXPY + Clarabel {cv_s:.2f} s "
            f"(Clarabel {cv_solve_s:.2f} s), objective {cv_obj:,.4f}; ratio {gm_s / cv_s:.3f}x of CVXPY's whole "
            f"time ({gm_s / cv_solve_s:.3f}x of Clarabel's solve); gamemarket - CVXPY objective "
            f"{r.objective - cv_obj:+.3g}"
        )


if __name__ == "__main__":
    main()
