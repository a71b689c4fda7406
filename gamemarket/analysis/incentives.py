"""How much does shading pay, and how does it shrink as the market grows?

For each market size ``n`` (fixed resource count and load) a derived study runs every mechanism
against FT, SRG and DEV1 over its seeds (stored and resumable like any study). The aggressive users'
gain over truthful reporting is measured two ways, both paired with the same jobs' truthful run of the
same seed (common random numbers make the cohorts identical):

* ``SRG``: everyone bids by the SRG model; the aggressive 10% (``G >= 0.9``) against the same jobs under FT;
* ``DEV1``: only 1% of the jobs shade (``G >= 0.99``, beta 0.9), everyone else is truthful: the
  incentive a single user faces.

Reported per (n, mechanism, way): the mean per-job utility gain with a 95% t-interval over seeds, and
the gain relative to the same jobs' truthful utility.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from gamemarket.analysis.claims import SHADERS
from gamemarket.confidence import t_interval
from gamemarket.errors import InputError
from gamemarket.market.base import market_for_workload
from gamemarket.studies.runner import load_cohorts, run_study
from gamemarket.studies.spec import StudySpec

WAYS = {
    mix: start for mix, (start, _) in SHADERS.items()
}  # consumer strategy -> first G-cohort bin of its aggressive group


def derived(spec: StudySpec, n: int, seeds: list[int]) -> StudySpec:
    """The study of the shading-gain experiment at market size ``n``: the same market with ``n`` jobs,
    the truthful mix and the shading mixes only, these seeds, and results of its own.

    Parameters
    ----------
    spec : StudySpec
        A study with a ``[gains]`` table, of a market whose size is its number of jobs.
    n : int
        Number of jobs.
    seeds : list of int
        The replication seeds at this size.

    Raises
    ------
    InputError
        When the study's market cannot be resized (``Market.with_jobs``: the pricing market can), or a
        shading mix the experiment needs is not in the study.
    """
    sub = copy.copy(spec)
    sub.workload = market_for_workload(spec.workload["source"]).with_jobs(spec.workload, n, f"study {spec.name!r}")
    by_name = {c.name: c for c in spec.consumers}
    missing = [c for c in ("FT", *WAYS) if c not in by_name]
    if missing:
        raise InputError(f"study {spec.name!r}: [gains] needs the consumer strategies {missing} in the study")
    sub.consumers = [by_name[c] for c in ("FT", *WAYS)]
    sub.seeds = list(seeds)
    sub.name = f"{spec.name}-n{n}"
    sub.results_dir = spec.results_dir / "gains" / f"n{n}"
    sub.companions = []
    return sub


def gains(
    spec: StudySpec, *, n_jobs: int = 1, scheduler_address: str | None = None, progress: bool = False, run: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-seed gains, summary with confidence intervals) for the sizes in the study's ``gains``."""
    cfg = spec.gains
    sizes = cfg["jobs"]
    seed_counts = cfg["seeds"] if isinstance(cfg["seeds"], list) else [cfg["seeds"]] * len(sizes)
    first = cfg.get("first", 1)
    rows = []
    for n, count in zip(sizes, seed_counts):
        sub = derived(spec, n, list(range(first, first + count)))
        if run:
            run_study(sub, n_jobs=n_jobs, scheduler_address=scheduler_address, progress=progress)
        c = load_cohorts(sub)
        if not len(c):
            raise InputError(f"study {sub.name!r}: no stored results; run the study first")
        for way, start in WAYS.items():
            sub_c = c[c["g_bin"] >= start].groupby(["provider", "consumer", "seed"])[["n", "sum_utility"]].sum()
            mean = sub_c["sum_utility"] / sub_c["n"].where(sub_c["n"] > 0)
            for prov in dict.fromkeys(c["provider"]):
                shade, truth = mean.loc[(prov, way)], mean.loc[(prov, "FT")]
                for seed in shade.index:
                    rows.append(
                        {
                            "n": n,
                            "mechanism": prov,
                            "way": way,
                            "seed": seed,
                            "gain": shade[seed] - truth[seed],
                            "truthful_utility": truth[seed],
                            "cohort_jobs": int(sub_c.loc[(prov, way, seed), "n"]),
                        }
                    )
    per_seed = pd.DataFrame(rows).dropna(subset=["gain"])

    def summarize(g):
        k = len(g)
        mean, lo, hi = t_interval(g["gain"].to_numpy())
        scale = g["truthful_utility"].abs().mean()
        return pd.Series(
            {
                "seeds": k,
                "gain": mean,
                "ci_low": lo,
                "ci_high": hi,
                "relative_gain": mean / scale if scale else np.nan,
                "cohort_jobs": g["cohort_jobs"].mean(),
            }
        )

    summary = per_seed.groupby(["mechanism", "way", "n"]).apply(summarize, include_groups=False).reset_index()
    return per_seed, summary
