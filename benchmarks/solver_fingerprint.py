"""Fingerprint of price discovery on fifteen fixed problems: prices, gap, iterations, evaluations, objective.

    python benchmarks/solver_fingerprint.py OUT.json [--smoke]

Run it at two commits and compare the files (``cmp``) to check that a refactor of the solver changes no
result: the synthetic family for five utilities, eight stress-family members and two with tied columns.
``--smoke``: the first problem of each kind only (``tests/test_benchmarks_smoke.py``).
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from gamemarket.pricing import solve, synthetic  # noqa: E402
from pricing_stress import stress_problem  # noqa: E402

SMOKE = "--smoke" in sys.argv
OUT = [a for a in sys.argv[1:] if a != "--smoke"][0]
KEEP = 1 if SMOKE else None  # problems of each kind
out = {}
cases = [
    ("log", 3000, 4, 1),
    ("linear", 2000, 3, 2),
    ("target", 2000, 5, 3),
    ("alpha:2", 1500, 6, 4),
    ("alpha:20", 800, 3, 5),
]
for u, n, m, seed in cases[:KEEP]:
    pr = synthetic(n, m, u, seed=seed)
    r = solve(pr, max_iter=300)
    out[f"syn-{u}-{n}-{m}"] = [r.prices.tolist(), r.gap, r.iterations, r.evaluations, r.converged, r.objective]
for k, (u, n, m) in enumerate(
    [
        ("linear", 300, 4),
        ("target", 500, 3),
        ("alpha:5", 400, 6),
        ("log", 200, 2),
        ("alpha:50", 300, 3),
        ("linear", 100, 6),
        ("target", 1000, 4),
        ("alpha:0.5", 600, 5),
    ][:KEEP]
):
    pr = stress_problem(n, m, u, 100 + k)
    r = solve(pr, max_iter=200)
    out[f"stress-{u}-{n}-{m}"] = [r.prices.tolist(), r.gap, r.iterations, r.evaluations, r.converged, r.objective]
for k, (u, n, m) in enumerate([("log", 400, 3), ("linear", 300, 4)][:KEEP]):
    pr = stress_problem(n, m, u, 200 + k, tied=True, zeros=0.2)
    r = solve(pr, max_iter=200)
    out[f"tied-{u}-{n}-{m}"] = [r.prices.tolist(), r.gap, r.iterations, r.evaluations, r.converged, r.objective]
json.dump(out, open(OUT, "w"))
print(len(out), "cases")
