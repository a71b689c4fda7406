"""The shading gains of a study's stored results: a shading cohort's utility over the same jobs' truthful run.

With common random numbers, the jobs of a G-cohort (``G >= start``) are the same jobs in every run of a seed, so a
shading group's gain is its mean utility less the same jobs' mean utility in the truthful (FT) run of the same seed
and mechanism: per private-bid class (:func:`shading_gains`, the SRG and DEV1 groups) and over the beta-mix grid
(:func:`grid_gains`). The claims of the paper (``gamemarket.analysis.claims``) read the same cohorts.

Every analysis of the paper reads its strategies FT, SRG and DEV1 through one check, :func:`paper_strategies`: a
study's strategy of one of those names is the paper's only where it makes the built-in catalogue's bids (a study
may define its own ``FT``, which is then not the paper's truthful baseline, and the analyses are left out).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import pandas as pd

from gamemarket.bids import BID_CLASSES
from gamemarket.confidence import t_interval
from gamemarket.consumers import ConsumerStrategy, from_params
from gamemarket.consumers.catalogue import load_consumers
from gamemarket.errors import GameMarketError

#: the paper's shading mixes: name -> (first G-cohort bin of its aggressive group, who shades), as the catalogue
#: defines them (a study's own mix of the name is not read: :func:`paper_strategies`)
SHADERS = {"SRG": (90, "risk-aggressive 10% (SRG)"), "DEV1": (99, "1% deviators (DEV1)")}

#: the source paper's consumer strategies whose names its analyses read (claims, shading gains, the paper's
#: game and figures, the gains against market size), each defined by the built-in catalogue's entry
PAPER_STRATEGIES = ("FT", "SRG", "DEV1")

#: what of the paper's analyses reads each of its strategies: said where a study's strategy of that name is
#: another, and they are left out
PAPER_USES = {
    "FT": "the paper's analyses against truthful bidding (its claims, its game and figures, the shading gains by "
    "bid class, across the beta-mix grid and against market size)",
    "SRG": "the paper's analyses of its risk-aggressive users (its claims (1)-(4) on SRG, its game and figures, "
    "SRG's shading gains)",
    "DEV1": "the paper's analyses of the 1% deviators (claim (4) and the shading gains for DEV1)",
}


def _words(params: dict) -> str:
    """A strategy's definition as a sentence shows it: a beta mix's groups, another family's parameters."""
    if "groups" in params:
        return f"groups {params['groups']}"
    shown = {k: v for k, v in params.items() if k not in ("family", "description", "plugin")}
    return f"family {params.get('family', '?')}: " + ", ".join(f"{k} = {v}" for k, v in shown.items())


@functools.cache
def _catalogued() -> dict[str, ConsumerStrategy]:
    """The paper's strategies as the built-in consumer catalogue defines them (a study's own catalogue aside)."""
    cat = load_consumers()
    return {name: cat[name] for name in PAPER_STRATEGIES}


def _is_paper(name: str, params: dict) -> bool:
    """Whether a strategy (its stored parameters) makes the bids of the paper's strategy ``name``: the catalogue's
    definition (the same family and parameters); for FT any strategy that never shades and keeps every job (its
    groups aside: truthful bidding is truthful however the jobs are split)."""
    if dict(params) == _catalogued()[name].params():
        return True
    if name != "FT":
        return False
    try:
        s = from_params(params, name)
    except GameMarketError:  # a family not loaded here (a plugin's): not the paper's truthful bidding
        return False
    return s.truthful_and_staying


@dataclass(frozen=True)
class PaperStrategies:
    """Which of a study's consumer strategies are the source paper's FT, SRG and DEV1 (``PAPER_STRATEGIES``): the
    one check every analysis of the paper goes through before it reads a strategy by the paper's name.

    ``names``: paper name -> the study's strategy that is it (the same name; or, where the study has no strategy
    of that name, one with the catalogue's definition, as the grid's g0.1x0.9 is SRG). ``unlike``: paper name ->
    why the study's strategy of that name is not the paper's (the analyses that read it are left out, said so).
    """

    names: dict[str, str] = field(default_factory=dict)
    unlike: dict[str, str] = field(default_factory=dict)

    def name(self, paper: str) -> str | None:
        """The study's strategy that is the paper's ``paper`` (``"FT"``, ``"SRG"``, ``"DEV1"``), or None."""
        return self.names.get(paper)

    def notes(self) -> list[str]:
        """In words, a sentence each: the analyses left out because the study's strategy of a paper name is
        another, and each paper strategy found under another name (none where the study's are the paper's)."""
        out = [f"{PAPER_USES[p][0].upper()}{PAPER_USES[p][1:]} are left out: {why}." for p, why in self.unlike.items()]
        out += [
            f"This study's {n} is the paper's {p} (the same definition): the paper's analyses read it as {p}."
            for p, n in self.names.items()
            if n != p
        ]
        return out


def paper_strategies(consumers: dict) -> PaperStrategies:
    """Check a study's consumer strategies (name -> stored parameters, as its results keep them) against the paper's
    (:class:`PaperStrategies`): a strategy named FT, SRG or DEV1 is the paper's only where it makes the catalogue's
    bids (FT: truthful); where the study has none of that name, one that does is the paper's (never one of another
    paper name)."""
    names, unlike = {}, {}
    for p in PAPER_STRATEGIES:
        if p in consumers:
            if _is_paper(p, consumers[p]):
                names[p] = p
            else:
                want = _words(_catalogued()[p].params())
                how = ", not truthful bidding; the paper's is" if p == "FT" else "; the paper's has"
                unlike[p] = f"this study's {p} is not the paper's {p} ({_words(consumers[p])}{how} {want})"
            continue
        others = [n for n in consumers if n not in PAPER_STRATEGIES]
        same = [n for n in others if dict(consumers[n]) == _catalogued()[p].params()]
        same = same or [n for n in others if _is_paper(p, consumers[n])]
        if same:
            names[p] = same[0]
    return PaperStrategies(names, unlike)


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
    cohorts: pd.DataFrame | CohortIndex,
    provider: str,
    consumer: str,
    start_bin: int,
    bid_class: str = "all",
    *,
    truthful: str = "FT",
) -> pd.Series:
    """Per seed: the shading cohort's mean utility minus the same jobs' mean utility in the truthful run of the
    same seed and mechanism (common random numbers: the same jobs, the same private bids).

    ``cohorts``: the cohort table, or a ``CohortIndex`` of it (build one for many calls); ``truthful``: the
    study's strategy that is the paper's truthful FT (:func:`paper_strategies`)."""
    index = cohorts if isinstance(cohorts, CohortIndex) else CohortIndex(cohorts)
    shading = index.utility(provider, consumer, start_bin, bid_class)
    return (shading - index.utility(provider, truthful, start_bin, bid_class)).dropna()


def shading_gains(cohorts: pd.DataFrame | None, providers: dict, consumers: dict) -> pd.DataFrame:
    """The shading users' gain over the same jobs' truthful run, per mechanism, shading group and
    private-bid class (low, middle, high, all): mean and 95% t-interval over seeds.

    ``consumers``: the study's consumer strategies (name -> parameters); the shading groups are the paper's SRG
    and DEV1 against its FT, read only where the study's strategies are they (:func:`paper_strategies`).

    Columns: mechanism, consumer (the paper's name), who, bid_class, mean, ci_low, ci_high, n_seeds."""
    rows = []
    cols = ["mechanism", "consumer", "who", "bid_class", "mean", "ci_low", "ci_high", "n_seeds"]
    cons = set() if cohorts is None or not len(cohorts) else set(cohorts["consumer"].unique())
    paper = paper_strategies({n: c for n, c in consumers.items() if n in cons})
    ft = paper.name("FT")
    if ft is None:
        return pd.DataFrame(rows, columns=cols)
    provs = set(cohorts["provider"].unique())
    parts = CohortIndex(cohorts)
    for mix, (start, who) in SHADERS.items():
        name = paper.name(mix)
        if name is None:
            continue
        for p in (n for n in providers if n in provs):
            for cls in BID_CLASSES + ("all",):
                d = summarize(cohort_gain(parts, p, name, start, cls, truthful=ft))
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
    return pd.DataFrame(rows, columns=cols)


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
    utility minus the same jobs' mean utility in the truthful run (the paper's FT) of the same seed, averaged over
    seeds.

    The grid's mixes are named ``g<fraction>x<beta>``; the aggressive group of a mix is the last one,
    ``G >= 1 - fraction``, and with common random numbers the G-cohorts of the FT run are exactly the
    same jobs (:func:`cohort_gain`). A grid cell kept under another name (``aliases``: SRG is the grid's
    g0.1x0.9) is read from that strategy's runs.

    Columns: provider, fraction, beta, gain; empty where the study has no grid, no cohorts or no strategy that is
    the paper's truthful FT (:func:`paper_strategies`: a study's own FT that shades is no truthful run)."""
    aliases = {a: kept for a, kept in (aliases or {}).items() if kept in consumers}
    grid = {name: (name, cell) for name, cell in grid_cells(consumers).items()}
    grid.update(
        {a: (aliases[a], cell) for a, cell in grid_cells({a: consumers[k] for a, k in aliases.items()}).items()}
    )
    empty = pd.DataFrame(columns=["provider", "fraction", "beta", "gain"])
    ft = paper_strategies(consumers).name("FT")
    if cohorts is None or not grid or ft is None:
        return empty
    index = cohorts if isinstance(cohorts, CohortIndex) else CohortIndex(cohorts)
    if not len(index.cohorts):
        return empty
    rows = []
    for name, (frac, beta) in grid.values():
        start = int(round(100 * (1 - frac)))
        for prov in providers:
            d = cohort_gain(index, prov, name, start, truthful=ft)
            if len(d):
                rows.append({"provider": prov, "fraction": frac, "beta": beta, "gain": float(d.mean())})
    return pd.DataFrame(rows, columns=empty.columns)
