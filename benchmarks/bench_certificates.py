"""The certificates' coverage where the true gains are known: is epsilon a 95% bound on the largest gain?

A synthetic market (600 jobs on 8 nodes at load 1.2, pay-your-bid hb-first, probe 0.05), its population all
shading by 0.5, and 12 rules of the per-class family against it (the menu's two and 10 drawn at random). Each
rule's paired gain is run once on a pool of ``--pool`` seeds (stored in the output file and read back by a later
run); the pool's mean is each rule's true gain, and a seed drawn from the pool is a draw from the gain's true
distribution. Then ``--reps`` certificates (``gamemarket.search.certificates.certify``, its default design: 4 seeds
at the first look, doubling up to 32, the error spent evenly over the looks), each on seeds drawn at random from
the pool, at three tolerances (the largest true gain plus 0, 1 and 3 of its per-seed standard deviations over
sqrt(8)): the coverage is the share of certificates whose epsilon is at least the largest true gain (target: at
least 0.95), and the verdicts' shares say how often each design decides.

    python benchmarks/bench_certificates.py [--pool 1000] [--reps 200]
        [--out benchmarks/results/certificates-coverage.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from gamemarket.analysis.population import PopulationGames
from gamemarket.consumers import ShadingRule
from gamemarket.search.certificates import certify
from gamemarket.search.oracle import ProbeOracle, point
from gamemarket.studies import load_study

STUDY = """
name = "bench-certificates"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 600
load = 1.2
seed = 2
[strategies]
providers = ["hb-first"]
[game]
kind = "population"
strategies = ["truthful", "shade-0.5"]
probe = 0.05
[replications]
count = 2
"""


def pool_gains(pool: int, n_jobs: int) -> tuple[list[str], np.ndarray]:
    """The 12 rules' names and their paired gains (rules x seeds) on seeds 1000 ... 1000 + pool - 1."""
    rng = np.random.default_rng(5)
    rules = [ShadingRule("truthful", (0.0, 0.0, 0.0)), ShadingRule("shade-0.5", (0.5, 0.5, 0.5))]
    rules += [point(np.round(rng.uniform(0, 0.99, 3), 2)) for _ in range(10)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.toml"
        path.write_text(STUDY)
        spec = load_study(path)
        st = PopulationGames(spec)
        o = ProbeOracle(
            st.runs.arrays, st.runs.nodes, spec.providers[0].params(), "jobs", 0.05, spec.bids, [0], n_jobs=n_jobs
        )
        seeds = list(range(1000, 1000 + pool))
        G = o.gains([rules[1]], [1.0], rules, seeds)
    return [r.name for r in rules], G


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pool", type=int, default=1000, help="seeds each rule's true gain is run on")
    ap.add_argument("--reps", type=int, default=200, help="certificates per tolerance")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--out", default="benchmarks/results/certificates-coverage.json")
    ap.add_argument("--fresh", action="store_true", help="run the pool again even where the output holds it")
    ap.add_argument("--smoke", action="store_true", help="a pool of 40 seeds, 20 repetitions, a temporary output")
    a = ap.parse_args()
    if a.smoke:
        a.pool, a.reps, a.fresh, a.out = 40, 20, True, str(Path(tempfile.gettempdir()) / "certificates-smoke.json")
    out = Path(a.out)
    old = json.loads(out.read_text()) if out.is_file() and not a.fresh else {}
    t0 = time.perf_counter()
    if old.get("pool") == a.pool:
        names, G = old["rules"], np.array(old["gains"])
    else:
        names, G = pool_gains(a.pool, a.n_jobs)
    truth = G.mean(axis=1)
    top = int(np.argmax(truth))
    sd8 = float(G[top].std(ddof=1) / np.sqrt(8))
    rng = np.random.default_rng(11)
    results = {}
    for k in (0, 1, 3):
        tol = float(truth.max() + k * sd8)
        covered, verdicts, seeds_used = 0, {"certified": 0, "deviation": 0, "undecided": 0}, []
        for _ in range(a.reps):
            draw = rng.integers(0, G.shape[1], 32)  # the repetition's 32 fresh seeds, from the pool

            def evaluate(rules, seeds, draw=draw):
                return np.array([[G[names.index(r), draw[s]] for s in seeds] for r in rules])

            c = certify(evaluate, names, list(range(32)), tol, first=4)
            covered += c.epsilon >= truth.max()
            verdicts[c.verdict] += 1
            seeds_used.append(max(b.seeds for b in c.rules))
        results[f"largest gain + {k} sd/sqrt(8)"] = {
            "tolerance": tol,
            "coverage": covered / a.reps,
            "verdicts": verdicts,
            "mean_seeds_of_the_last_look": float(np.mean(seeds_used)),
        }
        print(k, results[f"largest gain + {k} sd/sqrt(8)"], flush=True)
    report = {
        "pool": a.pool,
        "reps": a.reps,
        "rules": names,
        "true_gains": truth.tolist(),
        "largest_true_gain": float(truth.max()),
        "its_standard_error": float(G[top].std(ddof=1) / np.sqrt(G.shape[1])),
        "results": results,
        "seconds": time.perf_counter() - t0,
        "gains": G.tolist(),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report))
    print({k: v for k, v in report.items() if k not in ("gains",)})


if __name__ == "__main__":
    main()
