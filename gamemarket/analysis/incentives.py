"""How much does shading pay, and how does it shrink as the market grows?

For each market size ``n`` (fixed resource count and load) a derived study runs every mechanism
against FT, SRG and DEV1 over its seeds (stored and resumable like any study). The aggressive users'
gain over truthful reporting is measured two ways, both paired with the same jobs' truthful run of the
same seed (common random numbers make the cohorts identical):

* ``SRG``: everyone bids by the SRG model; the aggressive 10% (``G >= 0.9``) against the same jobs under FT;
* ``DEV1``: only 1% of the jobs shade (``G >= 0.99``, beta 0.9), everyone else is truthful: the
  incentive a single user faces.

Reported per (n, mechanism, way): the mean per-job utility gain with a 95% t-interval over seeds, and
the gain relative to the same jobs' truthful utility. The derived studies play the study's strategies of these
names: a way is measured only where they are the paper's (``gamemarket.analysis.shading.paper_strategies``; the
study's own FT that shades is no truthful run), see :func:`measured_ways`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamemarket.analysis.shading import SHADERS, paper_strategies
from gamemarket.confidence import t_interval
from gamemarket.errors import InputError
from gamemarket.studies.gains import SHADING_MIXES, derived_studies
from gamemarket.studies.runner import load_cohorts
from gamemarket.studies.spec import StudySpec

#: consumer strategy -> first G-cohort bin of its aggressive group, for the mixes the derived studies play
WAYS = {mix: SHADERS[mix][0] for mix in SHADING_MIXES}


def measured_ways(spec: StudySpec) -> dict[str, int]:
    """The ways of ``WAYS`` the study's gains measure: those whose strategy, and FT, are the paper's by their own
    names (the derived studies play the study's strategies of these names; ``paper_strategies``)."""
    paper = paper_strategies({c.name: c.params() for c in spec.consumers})
    if paper.name("FT") != "FT":
        return {}
    return {way: start for way, start in WAYS.items() if paper.name(way) == way}


def gains(spec: StudySpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-seed gains, summary with confidence intervals) for the sizes in the study's ``gains``, from the derived
    studies' stored runs (``gamemarket.studies.gains.run_gains`` makes them); of the ways :func:`measured_ways`
    allows (both tables empty where it allows none)."""
    rows = []
    ways = measured_ways(spec)
    for n, sub in derived_studies(spec) if ways else ():
        c = load_cohorts(sub)
        if not len(c):
            raise InputError(f"study {sub.name!r}: no stored results; run the study first")
        for way, start in ways.items():
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
    cols = ["n", "mechanism", "way", "seed", "gain", "truthful_utility", "cohort_jobs"]
    per_seed = pd.DataFrame(rows, columns=cols).dropna(subset=["gain"])

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

    if per_seed.empty:
        summary_cols = ["mechanism", "way", "n", "seeds", "gain", "ci_low", "ci_high", "relative_gain", "cohort_jobs"]
        return per_seed, pd.DataFrame(columns=summary_cols)
    summary = per_seed.groupby(["mechanism", "way", "n"]).apply(summarize, include_groups=False).reset_index()
    return per_seed, summary
