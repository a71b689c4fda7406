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

import numpy as np
import pandas as pd

from gamemarket.analysis.claims import SHADERS
from gamemarket.confidence import t_interval
from gamemarket.errors import InputError
from gamemarket.studies.gains import SHADING_MIXES, derived_studies
from gamemarket.studies.runner import load_cohorts
from gamemarket.studies.spec import StudySpec

#: consumer strategy -> first G-cohort bin of its aggressive group, for the mixes the derived studies play
WAYS = {mix: SHADERS[mix][0] for mix in SHADING_MIXES}


def gains(spec: StudySpec) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-seed gains, summary with confidence intervals) for the sizes in the study's ``gains``, from the derived
    studies' stored runs (``gamemarket.studies.gains.run_gains`` makes them)."""
    rows = []
    for n, sub in derived_studies(spec):
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
