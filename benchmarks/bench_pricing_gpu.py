"""Price discovery on a GPU (issue 5's GPU targets): the torch backend on CUDA, the paper's synthetic
family, log utility, float32 as in the paper.

    python benchmarks/bench_pricing_gpu.py [--sizes 1000000x16,10000000x16,10000000x4] [--out DIR]

Needs PyTorch with CUDA (``pip install 'gamemarket[torch]'``). Prints, per case, the time to converge
(default eps = 1e-3 n) and how it splits between the device's dual evaluations and the host's work
(recovery of a feasible allocation, L-BFGS), iterations, gap, the device's peak memory; first it checks
that CUDA and the numba path agree on a 1e5 x 16 problem. Exits 2 when no CUDA device is visible.
Targets (issue 5): 1e6 x 16 converged in <= 0.5 s, 1e7 x 16 in <= 5 s on an NVIDIA H200.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed_solve(pr, **kw):
    """Solve, timing the device's evaluations separately (synchronized) from the rest."""
    import torch

    from gamemarket.pricing import solve
    from gamemarket.pricing import torch_backend as tb

    spent = {"device": 0.0, "calls": 0}
    orig = tb.TorchEvaluator.__call__

    def wrapped(self, p, mu=0.0):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = orig(self, p, mu)
        torch.cuda.synchronize()
        spent["device"] += time.perf_counter() - t0
        spent["calls"] += 1
        return out

    tb.TorchEvaluator.__call__ = wrapped
    try:
        torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        r = solve(pr, **kw)
        total = time.perf_counter() - t0
    finally:
        tb.TorchEvaluator.__call__ = orig
    return r, total, spent, torch.cuda.max_memory_allocated() / 2**20


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000000x16,10000000x16,10000000x4")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed: pip install 'gamemarket[torch]'")
        return 2
    if not torch.cuda.is_available():
        print("no CUDA device visible: nothing measured")
        return 2
    from gamemarket.pricing import solve, synthetic

    lines = [
        f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; "
        f"host {platform.processor() or platform.machine()}"
    ]

    def say(s):
        print(s, flush=True)
        lines.append(s)

    say(lines[0])
    solve(synthetic(2000, 16, "log", seed=9), backend="torch", device="cuda", dtype=np.float32)  # warm up
    ref = solve(synthetic(100000, 16, "log", seed=3))
    got = solve(synthetic(100000, 16, "log", seed=3), backend="torch", device="cuda", dtype=np.float32)
    say(
        f"agreement, 1e5 x 16: numba float64 objective {ref.objective:.6f}, CUDA float32 {got.objective:.6f} "
        f"(relative difference {abs(got.objective - ref.objective) / abs(ref.objective):.2e}); prices max rel diff "
        f"{float(np.max(np.abs(got.prices - ref.prices) / ref.prices)):.2e}; "
        f"both converged: {ref.converged and got.converged}"
    )
    say("converged solves (synthetic family, log utility, float32 on the device, eps = 1e-3 n):")
    say(
        f"{'n':>9} {'m':>3} {'solve s':>8} {'device s':>9} {'evals':>6} {'iters':>6} {'gap':>10} {'eps':>8} "
        f"{'conv':>5} {'GPU MB':>8}"
    )
    for size in args.sizes.split(","):
        n, m = (int(float(v)) for v in size.lower().split("x"))
        pr = synthetic(n, m, "log", seed=0)
        r, total, spent, mem = timed_solve(pr, backend="torch", device="cuda", dtype=np.float32)
        say(
            f"{n:>9} {m:>3} {total:>8.2f} {spent['device']:>9.2f} {r.evaluations:>6} {r.iterations:>6} "
            f"{r.gap:>10.4g} {1e-3 * n:>8.0f} {str(r.converged):>5} {mem:>8.0f}"
        )
        del pr, r
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pricing-gpu.txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'pricing-gpu.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
