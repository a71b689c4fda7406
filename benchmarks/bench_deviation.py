"""The paired deviation estimator against the truthful-run control variate, on the same runs.

For every equilibrium an exploration certified or not (``data/exploration.json`` of a study's report) and the best
rule found against it, on ``--seeds`` fresh seeds (from 101), each seed's runs are: the all-truthful run, the base
run at the equilibrium, and per probe share one deviation run in which a random block of probe agents plays the
rule. On those same runs two estimates of the rule's gain:

* **control variate** (the estimator the exploration used before): the probe agents' utility less their own in
  the all-truthful run, less the same difference averaged over the other agents by rule and weighted by the
  mixture;
* **paired**: the probe agents' utility less their own in the base run (``gamemarket.studies.deviations``).

Printed per case: each estimate's mean, its per-seed standard deviation and its 95% half-width, and the ratio of
the half-widths; then the median ratio. With ``--probes 0.005 0.02`` both the study's probe and the exploration's.

    python benchmarks/bench_deviation.py [--study studies/population-exploration-shudler2010.toml] [--seeds 10]
        [--probes 0.005 0.02] [--out benchmarks/results/deviation-bench.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from gamemarket.confidence import t_half_width
from gamemarket.consumers import ShadingRule
from gamemarket.search.oracle import point
from gamemarket.studies import load_study
from gamemarket.studies.deviations import SeedRuns, probe_blocks
from gamemarket.studies.population import PopulationRuns
from gamemarket.studies.runner import load_workload

ROOT = Path(__file__).resolve().parents[1]


def one_seed(s: SeedRuns, support, x, rule, probes) -> dict:
    """Both estimates of ``rule``'s gain against ``x`` on one seed, per probe share."""
    truthful = ShadingRule("truthful", (0.0, 0.0, 0.0))
    u0 = s.per_agent(s.run([truthful], np.zeros(s.n, dtype=np.int64))[0])
    base = s.base_rules(x)
    ub = s.per_agent(s.run(support, base)[0])
    out = {}
    for p in probes:
        agents = probe_blocks(s.n_agents, s.seed, p)[0]
        strat = base.copy()
        strat[s.jobs_of(agents)] = len(support)
        ud = s.per_agent(s.run(list(support) + [rule], strat)[0])
        paired = float((ud - ub)[agents].mean())
        others = np.ones(s.n_agents, dtype=bool)
        others[agents] = False
        rule_of = np.zeros(s.n_agents, dtype=np.int64)
        rule_of[s.agent] = base
        d = ud - u0
        per = [d[others & (rule_of == k)].mean() if (others & (rule_of == k)).any() else 0.0 for k in range(len(x))]
        cv = float(d[agents].mean() - np.dot(x, per))
        out[str(p)] = {"paired": paired, "control_variate": cv}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", default=str(ROOT / "studies" / "population-exploration-shudler2010.toml"))
    ap.add_argument("--exploration", help="data/exploration.json (default: the study's report's)")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--probes", type=float, nargs="+", default=[0.005, 0.02])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "deviation-bench.json"))
    ap.add_argument("--smoke", action="store_true", help="a small synthetic study, 3 seeds, a temporary output")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    if a.smoke:
        study = Path(tmp.name) / "s.toml"
        study.write_text(
            'name = "dev-smoke"\n[workload]\nsource = "synthetic"\nnodes = 8\n[workload.synthetic]\njobs = 600\n'
            'load = 1.2\nseed = 2\n[strategies]\nproviders = ["hb-first"]\n[game]\nkind = "population"\n'
            'strategies = ["truthful", "shade-0.5"]\nprobe = 0.05\n[replications]\ncount = 2\n'
        )
        spec = load_study(study, results=Path(tmp.name) / "r")
        cases = [("hb-first", [ShadingRule("shade-0.5", (0.5,) * 3)], np.array([1.0]), point([0, 0.5, 0.9]))]
        a.seeds, a.probes, a.out = 3, [0.05], str(Path(tmp.name) / "out.json")
    else:
        spec = load_study(a.study, results=Path(tmp.name) / "r")
        ex = json.loads(Path(a.exploration or Path(spec.report_dir) / "data" / "exploration.json").read_text())
        cases = []
        for mech, m in ex["mechanisms"].items():
            for e in m["equilibria"]:
                support = [ShadingRule(q["strategy"], tuple(q["betas_by_class"])) for q in e["mixture"]]
                x = np.array([q["probability"] for q in e["mixture"]])
                d = e["best_deviation"]
                if d is None or d["strategy"] in {r.name for r in support}:
                    continue
                cases.append((mech, support, x, point(list(d["params"].values()))))
    runs = PopulationRuns(spec, load_workload(spec))
    provs = {p.name: p.params() for p in spec.providers}
    rows, t0 = [], time.perf_counter()
    for mech, support, x, rule in cases:
        per_seed = [
            one_seed(
                SeedRuns(runs.arrays, runs.nodes, provs[mech], k, spec.bids, spec.population.agents),
                support,
                x,
                rule,
                a.probes,
            )
            for k in range(101, 101 + a.seeds)
        ]
        row = {"mechanism": mech, "mixture": {r.name: float(p) for r, p in zip(support, x)}, "rule": rule.name}
        for p in a.probes:
            est = {}
            for kind in ("control_variate", "paired"):
                v = np.array([s[str(p)][kind] for s in per_seed])
                est[kind] = {"mean": float(v.mean()), "sd": float(v.std(ddof=1)), "half_width": float(t_half_width(v))}
            est["ratio"] = est["control_variate"]["half_width"] / est["paired"]["half_width"]
            row[str(p)] = est
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary = {
        str(p): {
            "median_ratio": float(np.median([r[str(p)]["ratio"] for r in rows])),
            "min_ratio": float(np.min([r[str(p)]["ratio"] for r in rows])),
            "max_ratio": float(np.max([r[str(p)]["ratio"] for r in rows])),
        }
        for p in a.probes
    }
    if len(a.probes) > 1:  # the control variate at the study's probe against the paired estimate at the exploration's
        lo, hi = str(a.probes[0]), str(a.probes[-1])
        r = [x[lo]["control_variate"]["half_width"] / x[hi]["paired"]["half_width"] for x in rows]
        summary[f"control_variate at {lo} / paired at {hi}"] = {
            "median_ratio": float(np.median(r)),
            "min_ratio": float(np.min(r)),
        }
    report = {
        "study": spec.name,
        "seeds": a.seeds,
        "probes": a.probes,
        "cases": rows,
        "summary": summary,
        "seconds": time.perf_counter() - t0,
    }
    print(json.dumps(summary, indent=1))
    Path(a.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
