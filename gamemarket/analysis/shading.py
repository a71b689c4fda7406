"""The shading gains of a study's stored results: a shading cohort's utility over the same jobs' truthful run.

With common random numbers, the jobs of a G-cohort (``G >= start``) are the same jobs in every run of a seed, so a
shading group's gain is its mean utility less the same jobs' mean utility in the truthful (FT) run of the same seed
and mechanism: per private-bid class (:func:`shading_gains`, the SRG and DEV1 groups) and over the beta-mix grid
(:func:`grid_gains`). The claims of the paper (``gamemarket.analysis.claims``) read the same cohorts.
"""

from __future__ import annotations

import pandas as pd

from gamemarket.bids import BID_CLASSES
from gamemarket.confidence import t_interval

SHADERS = {"SRG": (90, "risk-aggressive 10% (SRG)"), "DEV1": (99, "1% deviators (DEV1)")}


def summarize(d: pd.Series) -> dict:
    """Mean of per-seed differences with a 95% t-interval over seeds (NaN interval below two seeds)."""
    d = d.dropna()
    mean, lo, hi = t_interval(d.to_numpy())
    return {"mean": mean, "lo": lo, "hi": hi, "n": len(d)}


class CohortIndex:
    """A study's cohort sums, grouped once per (cohort start, bid class): what ``cohort_gain`` reads (filtering
    the whole table for every profile costs seconds on a large study). The sums are pandas group sums of the
    same rows in the same order as a filter-then-sum (tested against one), so the numbers are the same."""

    def __init__(self, cohorts: pd.DataFrame):
        self.cohorts = cohorts
        self._means: dict[tuple[int, str], pd.Series] = {}

    def utility(self, provider: str, consumer: str, start_bin: int, bid_class: str = "all") -> pd.Series:
        """Per seed: mean utility of the jobs with ``G >= start_bin/100`` (of one private-bid class, or all)."""
        key = (start_bin, bid_class)
        if key not in self._means:
            sub = self.cohorts[self.cohorts["g_bin"] >= start_bin]
            if bid_class != "all":
                sub = sub[sub["bid_class"] == bid_class]
            g = sub.groupby(["provider", "consumer", "seed"])[["n", "sum_utility"]].sum()
            self._means[key] = (g["sum_utility"] / g["n"].where(g["n"] > 0)).dropna()
        m = self._means[key]
        try:
            return m.loc[(provider, consumer)]
        except KeyError:
            return pd.Series([], dtype=float, index=pd.Index([], dtype="int64", name="seed"))


def cohort_gain(
    cohorts: pd.DataFrame | CohortIndex, provider: str, consumer: str, start_bin: int, bid_class: str = "all"
) -> pd.Series:
    """Per seed: the shading cohort's mean utility minus the same jobs' mean utility in the truthful (FT)
    run of the same seed and mechanism (common random numbers: the same jobs, the same private bids).

    ``cohorts``: the cohort table, or a ``CohortIndex`` of it (build one for many calls)."""
    index = cohorts if isinstance(cohorts, CohortIndex) else CohortIndex(cohorts)
    return (
        index.utility(provider, consumer, start_bin, bid_class) - index.utility(provider, "FT", start_bin, bid_class)
    ).dropna()


def shading_gains(cohorts: pd.DataFrame | None, providers: dict) -> pd.DataFrame:
    """The shading users' gain over the same jobs' truthful run, per mechanism, shading group and
    private-bid class (low, middle, high, all): mean and 95% t-interval over seeds.

    Columns: mechanism, consumer, who, bid_class, mean, ci_low, ci_high, n_seeds."""
    rows = []
    if cohorts is None or not len(cohorts) or "FT" not in set(cohorts["consumer"].unique()):
        return pd.DataFrame(
            rows, columns=["mechanism", "consumer", "who", "bid_class", "mean", "ci_low", "ci_high", "n_seeds"]
        )
    cons, provs = set(cohorts["consumer"].unique()), set(cohorts["provider"].unique())
    parts = CohortIndex(cohorts)
    for mix, (start, who) in SHADERS.items():
        if mix not in cons:
            continue
        for p in (n for n in providers if n in provs):
            for cls in BID_CLASSES + ("all",):
                d = summarize(cohort_gain(parts, p, mix, start, cls))
                rows.append(
                    {
                        "mechanism": p,
                        "consumer": mix,
                        "who": who,
                        "bid_class": cls,
                        "mean": d["mean"],
                        "ci_low": d["lo"],
                        "ci_high": d["hi"],
                        "n_seeds": d["n"],
                    }
                )
    return pd.DataFrame(rows)


def grid_cells(consumers: dict) -> dict[str, tuple[float, float]]:
    """Consumer mixes of the beta-mix grid (named ``g<fraction>x<beta>``, two groups): name -> (fraction,
    beta) of the aggressive group."""
    out = {}
    for name, c in consumers.items():
        if name.startswith("g") and "x" in name and len(c["groups"]) == 2:
            out[name] = tuple(float(v) for v in c["groups"][-1])
    return out


def grid_gains(
    cohorts: pd.DataFrame | CohortIndex | None, consumers: dict, providers, aliases: dict | None = None
) -> pd.DataFrame:
    """Per mechanism and cell of the beta-mix grid (aggressive fraction x beta): the aggressive users' mean
    utility minus the same jobs' mean utility in the truthful run (FT) of the same seed, averaged over seeds.

    The grid's mixes are named ``g<fraction>x<beta>``; the aggressive group of a mix is the last one,
    ``G >= 1 - fraction``, and with common random numbers the G-cohorts of the FT run are exactly the
    same jobs (:func:`cohort_gain`). A grid cell kept under another name (``aliases``: SRG is the grid's
    g0.1x0.9) is read from that strategy's runs.

    Columns: provider, fraction, beta, gain; empty where the study has no grid, no FT or no cohorts."""
    aliases = {a: kept for a, kept in (aliases or {}).items() if kept in consumers}
    grid = {name: (name, cell) for name, cell in grid_cells(consumers).items()}
    grid.update(
        {a: (aliases[a], cell) for a, cell in grid_cells({a: consumers[k] for a, k in aliases.items()}).items()}
    )
    empty = pd.DataFrame(columns=["provider", "fraction", "beta", "gain"])
    if cohorts is None or not grid or "FT" not in consumers:
        return empty
    index = cohorts if isinstance(cohorts, CohortIndex) else CohortIndex(cohorts)
    if not len(index.cohorts):
        return empty
    rows = []
    for name, (frac, beta) in grid.values():
        start = int(round(100 * (1 - frac)))
        for prov in providers:
            d = cohort_gain(index, prov, name, start)
            if len(d):
                rows.append({"provider": prov, "fraction": frac, "beta": beta, "gain": float(d.mean())})
    return pd.DataFrame(rows, columns=empty.columns)
