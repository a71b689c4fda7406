"""The claims of Shudler et al. (2010), measured on a study's stored results.

Each claim is evaluated only when the study holds the profiles it needs. Comparisons are paired by
replication seed (common random numbers make the pairs share every private bid), reported as the
mean difference with a 95% Student-t interval over seeds; a claim is "supported" when the interval
lies on the claimed side of zero, "contradicted" when it lies on the other side, else "inconclusive".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamemarket.confidence import t_interval
from gamemarket.payoffs import aggressive_group

LOW_MAX = 60.0  # bins are [10k, 10k+10): "low" = bins below 60, i.e. private bid < 60 (the contract's [0, 60] less w = 60 exactly)
HIGH_MIN = 120.0


def paired(a: pd.Series, b: pd.Series) -> dict:
    """Mean of a - b over the seeds both have, with a 95% t-interval."""
    d = (a - b).dropna()
    mean, lo, hi = t_interval(d.to_numpy())
    return {"mean": mean, "lo": lo, "hi": hi, "n": len(d)}


def verdict(d: dict, claimed_sign: int) -> str:
    """Supported when the interval lies on the claimed side of zero, contradicted on the other side."""
    if not np.isfinite(d["lo"]):
        return "inconclusive"
    lo, hi = sorted((claimed_sign * d["lo"], claimed_sign * d["hi"]))
    if lo > 0:
        return "supported"
    if hi < 0:
        return "contradicted"
    return "inconclusive"


def _fmt(d: dict) -> str:
    return f"{d['mean']:+.4g} [{d['lo']:+.4g}, {d['hi']:+.4g}] (n={d['n']})"


def _per_seed(bins: pd.DataFrame, value: str, **sel) -> pd.Series:
    sub = bins
    for k, v in sel.items():
        if callable(v):
            sub = sub[v(sub[k])]
        else:
            sub = sub[sub[k] == v]
    g = sub.groupby("seed")[["n", "sum_bsd", "n_ssj", "sum_utility"]].sum()
    col = {"bsd": "sum_bsd", "ssj": "n_ssj", "utility": "sum_utility"}[value]
    return g[col] / g["n"]


def _agg_group(consumers: dict, name: str) -> int | None:
    return aggressive_group(np.array([b for _, b in consumers[name]["groups"]]))


def _cohort_gain(cohorts: pd.DataFrame, provider: str, consumer: str, start_bin: int) -> dict:
    def per_seed(c):
        sub = cohorts[(cohorts["provider"] == provider) & (cohorts["consumer"] == c) & (cohorts["g_bin"] >= start_bin)]
        g = sub.groupby("seed")[["n", "sum_utility"]].sum()
        return g["sum_utility"] / g["n"]
    return paired(per_seed(consumer), per_seed("FT"))


def evaluate(metrics: pd.DataFrame, bins: pd.DataFrame, cohorts: pd.DataFrame | None, consumers: dict,
             providers: dict) -> list[dict]:
    """Every claim the study's profiles allow: dicts with claim, paper, measured, verdict."""
    out = []
    provs = set(metrics["provider"])
    cons = set(metrics["consumer"])

    def add(claim, paper, measured, v):
        out.append({"claim": claim, "paper": paper, "measured": measured, "verdict": v})

    by_sched = {}
    for name, p in providers.items():
        if name in provs:
            by_sched.setdefault(p["scheduler"], name)  # schedules do not depend on the payment scheme
    hb = by_sched.get("hb")
    if {"SRG", "FT"} <= cons and hb:
        agg = _agg_group(consumers, "SRG")
        for value, label, num in (("bsd", "average BSD", "1"), ("ssj", "share of SSJs", "2")):
            for p in [hb] if hb else []:  # the schedule, hence BSD, does not depend on the payment scheme
                a = _per_seed(bins, value, provider=p, consumer="SRG", group=agg, bid_bin=lambda s: s < LOW_MAX)
                b = _per_seed(bins, value, provider=p, consumer="FT", bid_bin=lambda s: s < LOW_MAX)
                d = paired(a, b)
                add(f"({num}) HB: low-bid risk-aggressive users (SRG) have a higher {label} than all users under FT",
                    "higher (Fig. 1-2)", f"SRG aggressive minus FT: {_fmt(d)}", verdict(d, +1))
        if hb:
            agg_sel = dict(consumer="SRG", group=agg)
            for other in ("nphb", "wspt", "wspt-est"):
                o = by_sched.get(other)
                if not o:
                    continue
                for cls, sel in (("low", lambda s: s < LOW_MAX), ("middle", lambda s: (s >= LOW_MAX) & (s < HIGH_MIN)),
                                 ("high", lambda s: s >= HIGH_MIN)):
                    d = paired(_per_seed(bins, "bsd", provider=hb, bid_bin=sel, **agg_sel),
                               _per_seed(bins, "bsd", provider=o, bid_bin=sel, **agg_sel))
                    if other == "nphb":
                        claim, paper, sign = f"(3) HB beats NPHB for {cls}-bid risk-aggressive jobs (lower BSD)", "HB lower over the whole bid range (Fig. 3)", -1
                    elif cls == "low":
                        claim, paper, sign = f"(3) {other.upper()} beats HB for low-bid risk-aggressive jobs", f"{other.upper()} lower BSD for low bids (Fig. 3)", +1
                    elif cls == "high":
                        claim, paper, sign = f"(3) HB beats {other.upper()} for high-bid risk-aggressive jobs", "HB lower BSD for high bids (Fig. 3)", -1
                    else:
                        continue
                    add(claim, paper, f"BSD(HB) minus BSD({other.upper()}): {_fmt(d)}", verdict(d, sign))
                ssj_hb = metrics[(metrics["provider"] == hb) & (metrics["consumer"] == "SRG")].set_index("seed")["ssj_share"]
                ssj_o = metrics[(metrics["provider"] == o) & (metrics["consumer"] == "SRG")].set_index("seed")["ssj_share"]
                d = paired(ssj_hb, ssj_o)
                add(f"(3) HB has fewer SSJs than {other.upper()} (SRG, all jobs)", "fewer SSJs (Fig. 4)",
                    f"SSJ share HB minus {other.upper()}: {_fmt(d)}", verdict(d, -1))
    if cohorts is not None and len(cohorts) and "FT" in cons:
        for mix, start, who in (("SRG", 90, "risk-aggressive 10% (SRG)"), ("DEV1", 99, "1% deviators (DEV1)")):
            if mix not in cons:
                continue
            for p in sorted(n for n in provs if providers[n]["scheduler"] == "hb"):
                d = _cohort_gain(cohorts, p, mix, start)
                pay = providers[p]["payment"]
                if pay == "kth":
                    claim = f"(4) under k-th price ({p}) the {who} gain nothing over the same jobs' truthful run"
                    v = "supported" if verdict(d, +1) != "supported" else "contradicted"
                    paper = "no gain (Fig. 5-7)"
                else:
                    claim = f"(context) under first price ({p}): the {who}' gain over the same jobs' truthful run"
                    v = "context (no claim in the paper)"
                    paper = "-"
                add(claim, paper, f"mean utility, shading minus truthful: {_fmt(d)}", v)
    for c in ("FT", "SRG"):
        if c not in cons:
            continue
        for sched in ("hb",):
            first = next((n for n in provs if providers[n]["scheduler"] == sched and providers[n]["payment"] == "first"
                          and providers[n]["reserve"] == 1.0), None)
            kth = next((n for n in provs if providers[n]["scheduler"] == sched and providers[n]["payment"] == "kth"
                        and providers[n]["reserve"] == 1.0), None)
            if first and kth:
                u = metrics[metrics["consumer"] == c].set_index(["provider", "seed"])["mean_utility"]
                d = paired(u.loc[kth], u.loc[first])
                add(f"(4) k-th price raises all users' mean utility over first price ({c}, {sched.upper()})",
                    "higher under k-th price (Fig. 5-7)", f"k-th minus first: {_fmt(d)}", verdict(d, +1))
    return out


def claims_table(claims: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(claims, columns=["claim", "paper", "measured", "verdict"])
