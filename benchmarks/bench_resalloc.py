"""Price discovery against the published implementation, resalloc (issue 15, item 4).

    python benchmarks/bench_resalloc.py --resalloc-python PATH [--cases 1000000x4 100000x16] [--seeds 0 1 ...]
        [--eps ...]

``PATH`` is a Python with resalloc (https://github.com/cvxgrp/resalloc, not on PyPI: install it from a
clone with ``pip install --no-deps .``) and torch. For each case the paper's synthetic family with log
utility (``gamemarket.pricing.synthetic``, each of ``--seeds``, default 0) is saved once; then, one thread
each and as whole processes, resalloc solves it with its defaults and ``gamemarket price solve`` with its
defaults (and with each ``--eps`` given). Both objectives are ``sum_i log t_i`` of the returned feasible
allocation; a bound on the optimum is our dual value. Prints times, objectives, each objective's distance to
the optimum as at most ``dual - objective`` (relative to ``|dual|``), and beside it gamemarket's own
certified gap (its ``gap / |objective|``: what its stopping rule guarantees without any reference).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESALLOC = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np, torch
torch.set_num_threads(1)
from resalloc.fungible import AllocationProblem, utilities
d = np.load(sys.argv[1])
A, R = torch.from_numpy(d["A"]), torch.from_numpy(d["R"])
t1 = time.perf_counter()
p = AllocationProblem(throughput_matrix=A, resource_limits=R, utility_function=utilities.Log())
p.solve()
t2 = time.perf_counter()
X = p.make_feasible(p.X)
t = (p.A * X).sum(axis=1)
used = X[:, 1:].sum(axis=0)
print(json.dumps({"objective": float(torch.log(t).sum()), "solve_s": t2 - t1,
                  "violation": float(torch.clamp(used - R, min=0).max())}))
"""

ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")}


def whole(cmd: list[str]) -> tuple[float, str]:
    """The wall time and standard output of ``cmd`` run as one process on one thread; exit code 3 (price
    solve's 'stopped short', which still prints its result) is a result, any other failure an error."""
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **ONE_THREAD})
    if out.returncode not in (0, 3):
        raise subprocess.CalledProcessError(out.returncode, cmd, out.stdout, out.stderr)
    return time.perf_counter() - t0, out.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resalloc-python", required=True)
    ap.add_argument("--cases", nargs="+", default=["1000000x4", "100000x16"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0], help="seeds of the synthetic family")
    ap.add_argument("--eps", nargs="*", default=[], help="also run gamemarket with these --eps values")
    a = ap.parse_args()
    import numpy as np

    from gamemarket.pricing import synthetic

    gm = [sys.executable, "-m", "gamemarket", "price", "solve"]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "resalloc_solve.py"
        script.write_text(RESALLOC)
        for case, seed in [(c, s) for c in a.cases for s in a.seeds]:
            n, m = (int(x) for x in case.split("x"))
            prob = synthetic(n, m, "log", seed=seed)
            path = Path(tmp) / f"p{n}x{m}s{seed}.npz"
            np.savez(path, A=prob.A, R=prob.R, utility="log")
            ra_s, ra_out = whole([a.resalloc_python, str(script), str(path)])
            ra = json.loads(ra_out)
            rows = []
            for eps in [None, *a.eps]:
                cmd = [*gm, str(path), "--format", "json", "--quiet"] + ([] if eps is None else ["--eps", str(eps)])
                s, out = whole(cmd)
                r = json.loads(out)
                rows.append((eps, s, r))
            dual = min(r["dual"] for _, _, r in rows)
            print(f"n = {n:,}, m = {m} (log utility, seed {seed}), one thread each, whole processes:")
            print(
                f"  resalloc    : {ra_s:6.2f} s (solve {ra['solve_s']:.2f} s)  objective {ra['objective']:,.1f}  "
                f"<= {dual - ra['objective']:.3g} from the optimum ({(dual - ra['objective']) / abs(dual):.2e} "
                f"relative); violation {ra['violation']:.2g}"
            )
            for eps, s, r in rows:
                label = "default" if eps is None else f"--eps {eps}"
                print(
                    f"  gamemarket {label:<10}: {s:6.2f} s (solve {r['seconds']:.2f} s, {s / ra_s:.2f}x resalloc)  "
                    f"objective {r['objective']:,.1f}  <= {dual - r['objective']:.3g} from the optimum "
                    f"({(dual - r['objective']) / abs(dual):.2e} relative); certified gap "
                    f"{r['gap'] / abs(r['objective']):.2e} relative (converged: {r['converged']}); at least as "
                    f"good as resalloc: {r['objective'] >= ra['objective']}"
                )


if __name__ == "__main__":
    main()
