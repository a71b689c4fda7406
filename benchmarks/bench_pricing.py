"""Price discovery speed and memory on the paper's synthetic family, log utility (issue 5's targets).

    python benchmarks/bench_pricing.py [--skip-big] [--out benchmarks/results]

Prints, per case, the time to converge (at the default: a certified relative gap of 1e-6, ``gap <= 1e-6
|objective|``), iterations, gap, the gap relative to the objective and the stopping target, and the peak RSS of
a fresh process that builds the problem and solves it; then a scaling table of one dual evaluation
(n = 1e5 with m from 2 to 32; m = 4 with n from 1e2 to 1e7) with fitted log-log slopes, written
as CSV and PNG.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, resource, sys, time
import numpy as np
sys.path.insert(0, {root!r})
from gamemarket.pricing import synthetic, solve
from gamemarket.pricing.solver import default_target
n, m, max_iter = {n}, {m}, {max_iter}
solve(synthetic(200, m))  # load compiled kernels from the cache
t0 = time.perf_counter()
pr = synthetic(n, m, "log", seed=0)
t_build = time.perf_counter() - t0
t0 = time.perf_counter()
r = solve(pr, max_iter=max_iter)
print(json.dumps(dict(n=n, m=m, build_s=t_build, solve_s=time.perf_counter() - t0, converged=r.converged,
                      iterations=r.iterations, evaluations=r.evaluations, gap=r.gap, objective=r.objective,
                      relative_gap=r.gap / abs(r.objective), target=default_target(n, 1e-7, r.objective),
                      peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def run_case(n, m, max_iter=500):
    out = subprocess.run(
        [sys.executable, "-c", CHILD.format(root=str(ROOT), n=n, m=m, max_iter=max_iter)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        return {"n": n, "m": m, "error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def one_eval(n, m, repeat=3):
    sys.path.insert(0, str(ROOT))
    from gamemarket.pricing import synthetic
    from gamemarket.pricing.dual import evaluate
    from gamemarket.pricing.envelope import sort_efficiencies

    pr = synthetic(n, m, "log", seed=1)
    A = np.ascontiguousarray(pr.A, dtype=np.float64)
    order = sort_efficiencies(A)
    p = pr.utility.initial_price(A, pr.R)
    evaluate(pr, p, order, A)
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        evaluate(pr, p, order, A)
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-big", action="store_true", help="skip n = 1e6 x 16/32 and n = 1e7")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    ap.add_argument("--smoke", action="store_true", help="n <= 2e4: that it runs to its end (with --out elsewhere)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = [(1_000_000, 4), (100_000, 16)] + ([] if a.skip_big else [(1_000_000, 16), (1_000_000, 32)])
    big = 2_000 if a.smoke else 100_000  # the m sweep's n
    if a.smoke:  # tests/test_benchmarks_smoke.py
        cases = [(2_000, 4)]
    print("solves at the default (synthetic family, log utility, gap <= 1e-6 |objective|, one process each):")
    print(
        f"{'n':>9} {'m':>3} {'solve s':>8} {'iters':>6} {'evals':>6} {'gap':>10} {'relative':>9} {'target':>8} "
        f"{'conv':>5} {'peak RSS MB':>12}"
    )
    rows = []
    for n, m in cases:
        r = run_case(n, m)
        rows.append(r)
        if "error" in r:
            print(f"{n:>9} {m:>3} error: {r['error']}")
            continue
        print(
            f"{n:>9} {m:>3} {r['solve_s']:>8.2f} {r['iterations']:>6} {r['evaluations']:>6} {r['gap']:>10.4g} "
            f"{r['relative_gap']:>9.2e} {r['target']:>8.4g} {str(r['converged']):>5} {r['peak_rss_mb']:>12.0f}"
        )
    (out / "pricing-solves.json").write_text(json.dumps(rows, indent=2))

    print("\none dual evaluation (best of 3):")
    scal = []
    for m in (2, 4, 8, 16, 32):
        scal.append(("m", big, m, one_eval(big, m)))
    ns = [100, 1_000, 10_000, 100_000, 1_000_000] + ([] if a.skip_big else [10_000_000])
    ns = [100, 10_000, 20_000] if a.smoke else ns
    for n in ns:
        scal.append(("n", n, 4, one_eval(n, 4, repeat=3 if n <= 1_000_000 else 1)))
    import pandas as pd

    df = pd.DataFrame(scal, columns=["sweep", "n", "m", "seconds"])
    df.to_csv(out / "pricing-scaling.csv", index=False)
    sm = df[df.sweep == "m"]
    sn = df[(df.sweep == "n") & (df.n >= 10_000)]
    slope_m = np.polyfit(np.log(sm.m), np.log(sm.seconds), 1)[0]
    slope_n = np.polyfit(np.log(sn.n), np.log(sn.seconds), 1)[0]
    print(df.to_string(index=False))
    print(f"fitted log-log slope: time ~ m^{slope_m:.2f} (n = 1e5); time ~ n^{slope_n:.2f} (m = 4, n >= 1e4)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(9, 3.5))
    ax[0].loglog(sm.m, sm.seconds, "o-")
    ax[0].set_xlabel("m (n = 1e5)")
    ax[0].set_ylabel("one dual evaluation, s")
    ax[0].set_title(f"slope {slope_m:.2f}")
    d = df[df.sweep == "n"]
    ax[1].loglog(d.n, d.seconds, "o-")
    ax[1].set_xlabel("n (m = 4)")
    ax[1].set_title(f"slope {slope_n:.2f} (n >= 1e4)")
    fig.tight_layout()
    fig.savefig(out / "pricing-scaling.png", dpi=110)
    print(f"wrote {out / 'pricing-scaling.csv'} and {out / 'pricing-scaling.png'}")


if __name__ == "__main__":
    main()
