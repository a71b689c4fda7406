"""The claims of Shudler et al. (2010), measured on a study's stored results.

Each claim is evaluated only when the study holds the profiles it needs: the paper's strategies FT, SRG and DEV1
are those of the built-in catalogue, found by ``gamemarket.analysis.shading.paper_strategies`` (a study's own
strategy of one of those names is not the paper's, and the claims on it are not evaluated). Comparisons are paired by
replication seed (common random numbers make the pairs share every private bid), reported as the
mean difference with a 95% Student-t interval over seeds; a claim is "supported" when the interval
lies on the claimed side of zero, "contradicted" when it lies on the other side, else "inconclusive".
A claim that the market's rules imply (k-th price raises every user's utility under HB) is labelled
"follows from the rules", shown without an interval, and checked seed by seed.

References
----------
.. [Shudler2010] J. Shudler, L. Amar, A. Barak and A. Mu'alem, "The effects of untruthful bids on
   user utilities and stability in computing markets", CCGrid 2010.
"""

from __future__ import annotations

import itertools
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gamemarket.analysis.shading import (  # noqa: F401  the shading gains, where callers found them
    PAPER_STRATEGIES,
    SHADERS,
    CohortIndex,
    PaperStrategies,
    cohort_gain,
    grid_cells,
    grid_gains,
    paper_strategies,
    shading_gains,
    summarize,
)
from gamemarket.bids import BID_CLASSES, HIGH_MIN, LOW_MAX
from gamemarket.consumers import from_params
from gamemarket.errors import InputError
from gamemarket.market.payoffs import aggressive_group
from gamemarket.registry import Registry

# Claims (1)-(3) read the 10-wide bid bins [10k, 10k + 10): "low" is the bins below 60, i.e. w < 60 (the
# contract's [0, 60] less w = 60 exactly, a null event for continuous bids). Claim (4) reads the cohorts,
# which carry the contract's classes exactly.
BIN_CLASSES = (  # the bid classes on the 10-wide bins' lower edges
    ("low", lambda s: s < LOW_MAX),
    ("middle", lambda s: (s >= LOW_MAX) & (s < HIGH_MIN)),
    ("high", lambda s: s >= HIGH_MIN),
)


def paired(a: pd.Series, b: pd.Series) -> dict:
    """Mean of a - b over the seeds both have, with a 95% t-interval."""
    return summarize(a - b)


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


def _split(bins: pd.DataFrame) -> dict[tuple[str, str], pd.DataFrame]:
    """The bins of each (provider, consumer), split once: every claim reads one of them, and filtering the
    whole table for each costs seconds on a large study. Each part holds the rows that filter selects, in
    the same order, so the sums are the same (tested)."""
    return dict(iter(bins.groupby(["provider", "consumer"], sort=False)))


CONTEXT = "context (no claim in the paper)"
RULES = "follows from the rules"


def hb_pair(provs, providers) -> tuple[str | None, str | None]:
    """The study's HB mechanisms with first and with k-th price at reserve 1 (None where absent)."""

    def find(payment):
        return next(
            (
                n
                for n in sorted(provs)
                if providers[n].get("scheduler") == "hb"  # a pricing mechanism has no scheduler
                and providers[n].get("payment") == payment
                and providers[n].get("reserve") == 1.0
            ),
            None,
        )

    return find("first"), find("kth")


def _rule(diff: pd.Series) -> tuple[str, str]:
    """(check, verdict) of a difference the rules make non-negative on every seed: the check says on how many
    cases it holds (the report prints it after the mean difference)."""
    holds = bool(len(diff) and (diff >= 0).all())
    cases = f"{len(diff)} seeds"
    if "consumer" in (diff.index.names or []):  # one difference per seed and consumer mix: count both
        mixes, seeds = (diff.index.get_level_values(k).nunique() for k in ("consumer", "seed"))
        cases = f"{len(diff)} pairs of seed and consumer mix ({seeds} seeds x {mixes} mixes)"
    return (
        f"every one of {cases} >= 0: {'yes' if holds else 'NO'}",
        RULES if holds else "contradicted (the rules imply it: check the engine)",
    )


#: the schedulers claim (3) holds HB against
CLAIM_3_OTHERS = ("nphb", "wspt", "wspt-est")


def _agg_group(consumers: dict, name: str) -> int | None:
    return aggressive_group(from_params(consumers[name], name).group_betas())


@dataclass(frozen=True)
class Claim:
    """A claim of the paper, as the registry keeps it: its id, the paper's statement, how it is tested, and
    the rule that measures it.

    ``rule(data)`` takes a :class:`ClaimData` and returns the claim's rows (dicts as :func:`claim_row` makes
    them; none where the study lacks the profiles the claim needs).
    """

    id: str
    statement: str  #: what the paper says
    test: str  #: how it is measured here, and what makes it supported
    rule: Callable[["ClaimData"], list[dict]]
    #: the keys its rows may carry, a regular expression (whole keys), or None where a claim does not say: a
    #: discussion's ``{claim.<key>...}`` that no claim's keys hold is refused before a study runs
    keys: str | None = None

    def holds_key(self, key: str) -> bool | None:
        """Whether a row of this claim may carry ``key`` (None where the claim does not declare its keys)."""
        return None if self.keys is None else re.fullmatch(self.keys, key) is not None


CLAIMS: Registry[Claim] = Registry("claim")


def claim_key_problem(key: str) -> str | None:
    """What is wrong with a claim key a discussion quotes (``{claim.<key>.ci}``), told before any run: no
    registered claim's rows may carry it (where every claim declares its keys), or None."""
    held = [c.holds_key(key) for c in CLAIMS.values()]
    if any(h is None or h for h in held):
        return None
    return (
        f"no claim has the key {key!r}; the claims' keys are {', '.join(c.keys for c in CLAIMS.values())} "
        "(regular expressions; a study's report lists the keys it measured in data/claims.csv)"
    )


#: the columns of the tables a dry evaluation of the claims reads (:func:`keys_made`), as a study's stored tables hold
#: them: the metrics' numbers, the bins' and the cohorts' (every value 0)
_DRY_METRICS = ("revenue", "utilization", "welfare", "mean_utility", "mean_bsd", "ssj_share")
_DRY_BINS = {"group": 0, "runtime_group": "", "bid_bin": 0.0, "n": 0, "sum_bsd": 0.0, "n_ssj": 0, "sum_utility": 0.0}
_DRY_COHORTS = {"g_bin": 0, "bid_class": "low", "n": 0, "sum_utility": 0.0, "sum_payment": 0.0, "sum_bsd": 0.0}


def keys_made(providers: dict, consumers: dict) -> set[str] | None:
    """The keys the claims' rows carry on a study that plays these strategies (definitions by name), told before any
    run: every claim evaluated (:func:`evaluate`) on tables of the study's profiles, two seeds each, whose numbers
    are all 0. Which rows a claim makes depends on the strategies alone (the paper's FT and SRG among the consumers,
    HB's first and k-th price among the providers), never on the numbers. None where a claim cannot be evaluated so
    (a plugin's claim that reads what these tables lack): any key may then be made (hunt 20d-W3: ``{claim.c1.ci}``
    in a study without SRG was refused only after every run)."""
    profiles = list(itertools.product(providers, consumers, (0, 1)))
    base = pd.DataFrame(profiles, columns=["provider", "consumer", "seed"])
    metrics = base.assign(**dict.fromkeys(_DRY_METRICS, 0.0))
    bins = base.iloc[:0].assign(**{k: pd.Series(dtype=type(v)) for k, v in _DRY_BINS.items()})
    cohorts = base.assign(**_DRY_COHORTS)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # (means of nothing: the numbers are not what is asked)
            rows = evaluate(metrics, bins, cohorts, consumers, providers)
    except Exception:  # noqa: BLE001 (a claim that cannot be evaluated on empty tables: no key is refused for it)
        return None
    return {r["key"] for r in rows}


def _one_of(names) -> str:
    """A regular expression that matches exactly one of ``names``."""
    return "(?:" + "|".join(re.escape(n) for n in names) + ")"


def register_claim(
    id: str,
    rule: Callable[["ClaimData"], list[dict]],
    statement: str,
    test: str,
    *,
    keys: str | None = None,
    replace: bool = False,
) -> Claim:
    """Register a claim under ``id``; :func:`evaluate` then measures it, after the claims registered before it.

    Parameters
    ----------
    id : str
    rule : callable
        ``rule(data: ClaimData) -> list of dict``: the claim's rows (:func:`claim_row`).
    statement : str
        The paper's statement of the claim.
    test : str
        How the claim is tested on a study's stored results.
    keys : str, optional, keyword-only
        A regular expression matching the whole of every key the claim's rows carry (``"c1"``,
        ``"c3-(?:nphb|wspt)-(?:low|high)-bsd"``): a discussion that quotes a key no claim holds is then refused
        before the study runs. Without it, any key may be the claim's.
    replace : bool, keyword-only
        Replace a claim already registered under ``id`` (else that is an error).

    Returns
    -------
    Claim
    """
    if keys is not None:
        try:
            re.compile(keys)
        except re.error as exc:
            raise ValueError(f"claim {id!r}: keys={keys!r} is no regular expression ({exc})") from None
    return CLAIMS.register(id, Claim(id, statement, test, rule, keys), replace=replace)


class ClaimData:
    """What the claims read: one study's stored tables and its strategies' definitions, with the lookups
    several claims share (the bins split once by profile, the first mechanism of each scheduler, the HB pair).

    Parameters
    ----------
    metrics, bins, cohorts : pandas.DataFrame
        The study's per-run metrics, binned sums and cohort sums (``cohorts`` may be None).
    consumers, providers : dict
        The consumer and provider strategies' definitions, by name.

    ``paper`` says which of the study's strategies are the paper's FT, SRG and DEV1 (``paper_strategies``): the
    claims read them through :meth:`name` only.
    """

    def __init__(
        self, metrics: pd.DataFrame, bins: pd.DataFrame, cohorts: pd.DataFrame | None, consumers: dict, providers: dict
    ):
        self.metrics, self.bins, self.cohorts = metrics, bins, cohorts
        self.consumers, self.providers = consumers, providers
        self.provs = set(metrics["provider"])
        self.cons = set(metrics["consumer"])
        self.parts = _split(bins)
        self.by_sched: dict[str, str] = {}
        for name, p in providers.items():
            if name in self.provs:
                self.by_sched.setdefault(p["scheduler"], name)  # schedules do not depend on the payment scheme
        self.first, self.kth = hb_pair(self.provs, providers)
        self.paper: PaperStrategies = paper_strategies({n: c for n, c in consumers.items() if n in self.cons})

    def name(self, paper: str) -> str | None:
        """The study's strategy that is the paper's ``paper`` (``"FT"``, ``"SRG"``, ``"DEV1"``), or None where it
        has none (or its strategy of that name is another)."""
        return self.paper.name(paper)

    def per_seed(self, value: str, *, provider: str, consumer: str, **sel) -> pd.Series:
        """Per seed: the mean ``value`` (``bsd``, ``ssj`` or ``utility``) over one profile's bins in ``sel``."""
        return _per_seed(self.parts.get((provider, consumer), self.bins.iloc[:0]), value, **sel)

    def paired(self, value: str, a: str, b: str, *, consumer: str, **sel) -> dict:
        """Mechanism ``a`` minus mechanism ``b``, paired by seed: ``value`` over one consumer mix's bins in ``sel``
        (:func:`paired`)."""
        return paired(
            self.per_seed(value, provider=a, consumer=consumer, **sel),
            self.per_seed(value, provider=b, consumer=consumer, **sel),
        )


def claim_row(
    claim, paper, measured, v, *, mechanism="", group="", bid_class="all", statistic="", d=None, check="", key
) -> dict:
    """One row of :func:`evaluate`: the claim's text, the paper's, what was measured, the verdict and the numbers.

    The row holds numbers, not text about them: ``measured`` names what was measured (``"SRG aggressive minus
    FT"``), ``mean``, ``ci_low``, ``ci_high`` and ``n_seeds`` are the numbers, and ``form`` says how a report
    shows them: ``"interval"`` (a mean difference and its interval, from a ``d`` with ``lo``), ``"mean"`` (a
    rule's mean difference and its ``check``, from a ``d`` without ``lo``) or ``"text"`` (no ``d``: ``measured``
    alone). The report formats the numbers (:func:`gamemarket.reports.claims.claim_measured`).
    """
    form = "text" if not d else "interval" if "lo" in d else "mean"
    d = d or {}
    return {
        "key": key,
        "claim": claim,
        "paper": paper,
        "measured": measured,
        "form": form,
        "check": check,
        "verdict": v,
        "mechanism": mechanism,
        "group": group,
        "bid_class": bid_class,
        "statistic": statistic,
        "mean": d.get("mean", np.nan),
        "ci_low": d.get("lo", np.nan),
        "ci_high": d.get("hi", np.nan),
        "n_seeds": d.get("n", 0),
    }


def _low_bids(s):
    return s < LOW_MAX


def _hb_against_ft(data: ClaimData, value: str, label: str, num: str) -> list[dict]:
    """Claims (1) and (2): under HB the low-bid risk-aggressive users (SRG) against all users under FT."""
    hb, ft, srg = data.by_sched.get("hb"), data.name("FT"), data.name("SRG")
    if not (ft and srg and hb):
        return []
    agg = _agg_group(data.consumers, srg)
    # the schedule, hence BSD, does not depend on the payment scheme: the first HB mechanism stands for all
    a = data.per_seed(value, provider=hb, consumer=srg, group=agg, bid_bin=_low_bids)
    b = data.per_seed(value, provider=hb, consumer=ft, bid_bin=_low_bids)
    d = paired(a, b)
    return [
        claim_row(
            f"({num}) HB: low-bid risk-aggressive users (SRG) have a higher {label} than all users under FT",
            "higher (Fig. 1-2)",
            "SRG aggressive minus FT",
            verdict(d, +1),
            mechanism=hb,
            group="SRG aggressive vs FT all",
            bid_class="low",
            statistic=f"{value} difference",
            d=d,
            key=f"c{num}",
        )
    ]


def claim_1(data: ClaimData) -> list[dict]:
    """Claim (1): under HB, low-bid risk-aggressive users have a higher average BSD than all users under FT."""
    return _hb_against_ft(data, "bsd", "average BSD", "1")


def claim_2(data: ClaimData) -> list[dict]:
    """Claim (2): under HB, low-bid risk-aggressive users have a higher share of SSJs than all users under FT."""
    return _hb_against_ft(data, "ssj", "share of SSJs", "2")


def _claim_3_bsd_text(other: str, cls: str) -> tuple[str, str, int] | None:
    """(claim, paper, claimed sign of BSD(HB) - BSD(other)) of claim (3)'s BSD row, or None where the paper
    makes no claim (the middle class against WSPT)."""
    if other == "nphb":
        return (
            f"(3) HB beats NPHB for {cls}-bid risk-aggressive jobs (lower BSD)",
            "HB lower over the whole bid range (Fig. 3)",
            -1,
        )
    if cls == "low":
        return (
            f"(3) {other.upper()} beats HB for low-bid risk-aggressive jobs",
            f"{other.upper()} lower BSD for low bids (Fig. 3)",
            +1,
        )
    if cls == "high":
        return (
            f"(3) HB beats {other.upper()} for high-bid risk-aggressive jobs",
            "HB lower BSD for high bids (Fig. 3)",
            -1,
        )
    return None


def _claim_3_against(data: ClaimData, hb: str, other: str, o: str, agg) -> list[dict]:
    """Claim (3)'s rows for one other scheduler: the BSD rows by bid class, then the SSJ rows."""
    rows = []
    agg_sel = dict(consumer=data.name("SRG"), group=agg)
    for cls, sel in BIN_CLASSES:
        d = data.paired("bsd", hb, o, bid_bin=sel, **agg_sel)
        text = _claim_3_bsd_text(other, cls)
        if text is None:
            continue
        claim, paper, sign = text
        rows.append(
            claim_row(
                claim,
                paper,
                f"BSD(HB) minus BSD({other.upper()})",
                verdict(d, sign),
                mechanism=f"{hb} vs {o}",
                group="SRG aggressive",
                bid_class=cls,
                statistic="bsd difference",
                d=d,
                key=f"c3-{other}-{cls}-bsd",
            )
        )
    # Fig. 4 concerns the risk-aggressive users across the bid spectrum: tested there, by class
    for cls, sel in BIN_CLASSES:
        d = data.paired("ssj", hb, o, bid_bin=sel, **agg_sel)
        rows.append(
            claim_row(
                f"(3) HB has fewer SSJs than {other.upper()} for {cls}-bid risk-aggressive jobs",
                "fewer SSJs (Fig. 4)",
                f"SSJ share HB minus {other.upper()}",
                verdict(d, -1),
                mechanism=f"{hb} vs {o}",
                group="SRG aggressive",
                bid_class=cls,
                statistic="ssj share difference",
                d=d,
                key=f"c3-{other}-{cls}-ssj",
            )
        )
    return rows


def claim_3(data: ClaimData) -> list[dict]:
    """Claim (3): HB against NPHB, WSPT and WSPT with estimates, for the risk-aggressive jobs by bid class."""
    hb, srg = data.by_sched.get("hb"), data.name("SRG")
    if not (data.name("FT") and srg and hb):
        return []
    agg = _agg_group(data.consumers, srg)
    rows = []
    for other in CLAIM_3_OTHERS:
        o = data.by_sched.get(other)
        if o:
            rows += _claim_3_against(data, hb, other, o, agg)
    return rows


def _jobs_text(cls: str) -> str:
    return "jobs (all bids)" if cls == "all" else f"{cls}-bid jobs"


def _claim_4_gain_rows(gains: dict, mech: str, price: str, mix: str, who: str, grp: str) -> tuple[list[dict], str]:
    """Claim (4)'s rows of one price (``first`` or ``kth``) and one shading mix, by private-bid class, and the
    verdict of the high-bid row. Under first price only the high-bid jobs' gain is claimed (the others are
    context); under k-th price no class is claimed to gain."""
    rows, v_high = [], ""
    for cls in BID_CLASSES + ("all",):
        d = summarize(gains[(mech, cls)])
        if price == "kth":  # "no gain" holds where no gain is shown; with no interval (one seed) nothing is shown
            v = "contradicted" if verdict(d, +1) == "supported" else "supported"
            v = v if np.isfinite(d["lo"]) else "inconclusive"
            claim = f"(4) under k-th price ({mech}) the {_jobs_text(cls)} of the {who} gain nothing by shading"
            paper = "no gain (Fig. 5-7)"
        elif cls == "high":
            v = verdict(d, +1)
            claim = f"(4) under first price ({mech}) the high-bid jobs of the {who} gain by shading"
            paper = "gain (Fig. 5-7)"
        else:
            v = CONTEXT
            claim = f"(context) under first price ({mech}): what the {_jobs_text(cls)} of the {who} gain by shading"
            paper = "-"
        if cls == "high":
            v_high = v
        rows.append(
            claim_row(
                claim,
                paper,
                "mean utility, shading minus truthful",
                v,
                mechanism=mech,
                group=grp,
                bid_class=cls,
                statistic="utility gain",
                d=d,
                key=f"c4-{mix}-{price}-{cls}",
            )
        )
    return rows, v_high


def _claim_4_mix(data: ClaimData, profiles: CohortIndex, mix: str, start: int, who: str) -> list[dict]:
    """Claim (4)'s rows for one of the paper's shading mixes (its name ``mix``: the study's strategy that is it is
    ``data.name(mix)``): the first-price gains by class, the k-th price ones, their difference for the high-bid
    jobs, and the three together."""
    first, kth = data.first, data.kth
    grp = f"{mix} shading cohort vs its FT run"
    name, ft = data.name(mix), data.name("FT")
    gains = {
        (p, cls): cohort_gain(profiles, p, name, start, cls, truthful=ft)
        for p in (first, kth)
        for cls in BID_CLASSES + ("all",)
    }
    rows, v_first = _claim_4_gain_rows(gains, first, "first", mix, who, grp)
    kth_rows, v_kth = _claim_4_gain_rows(gains, kth, "kth", mix, who, grp)
    rows += kth_rows
    d = paired(gains[(first, "high")], gains[(kth, "high")])
    v_diff = verdict(d, +1)
    rows.append(
        claim_row(
            f"(4) the high-bid jobs of the {who} gain more by shading under first price than under k-th price",
            "first price > k-th price (Fig. 5-7)",
            f"gain under {first} minus gain under {kth}",
            v_diff,
            mechanism=f"{first} vs {kth}",
            group=grp,
            bid_class="high",
            statistic="utility gain difference",
            d=d,
            key=f"c4-{mix}-diff-high",
        )
    )
    parts = (v_first, v_kth, v_diff)
    v_all = (
        "supported"
        if all(x == "supported" for x in parts)
        else "contradicted"
        if "contradicted" in parts
        else "inconclusive"
    )
    rows.append(
        claim_row(
            f"(4) for the high-bid jobs of the {who} shading pays under first price and not under k-th price",
            "k-th price discourages shading (Fig. 5-7)",
            f"all three of the rows above: first price {v_first}, k-th price {v_kth}, difference {v_diff}",
            v_all,
            mechanism=f"{first} vs {kth}",
            group=grp,
            bid_class="high",
            statistic="joint",
            key=f"c4-{mix}",
        )
    )
    return rows


def claim_4(data: ClaimData) -> list[dict]:
    """Claim (4) as the paper states it: comparative and by bid, for each shading mix the study holds."""
    cohorts = data.cohorts
    if not (cohorts is not None and len(cohorts) and data.name("FT") and data.first and data.kth):
        return []
    # Under first price the risk-aggressive users' high-bid jobs gain by shading; under k-th price they do
    # not; paired by seed, the gain under first price exceeds the gain under k-th price.
    profiles = CohortIndex(cohorts)
    rows = []
    for mix, (start, who) in SHADERS.items():
        if data.name(mix):
            rows += _claim_4_mix(data, profiles, mix, start, who)
    return rows


def _rule_row(values: pd.Series, more: str, less: str, claim: str, paper: str, measured: str, **row) -> dict:
    """The row of a difference the rules make non-negative: ``values`` (indexed by provider, then seed and
    perhaps consumer mix) of the mechanism ``more`` minus those of ``less``, paired on the rest of the index, its
    mean without an interval and its check on every pair."""
    diff = (values.loc[more] - values.loc[less]).dropna()
    check, v = _rule(diff)
    d = {"mean": float(diff.mean()) if len(diff) else np.nan, "n": len(diff)}
    return claim_row(claim, paper, measured, v, d=d, check=check, **row)


def rule_kth_utility(data: ClaimData) -> list[dict]:
    """Under HB, k-th price raises every user's mean utility over first price (FT and SRG): a rule's consequence."""
    first, kth = data.first, data.kth
    if not (first and kth):
        return []
    # Consequences of the rules, not findings: under HB the schedule depends only on the reported bids, so
    # the first-price and the k-th price runs of one seed schedule alike, and the k-th price never exceeds
    # the first. Shown without an interval, with a check of the rule on every seed.
    rows = []
    metrics = data.metrics
    for c in ("FT", "SRG"):
        name = data.name(c)
        if name is None:
            continue
        u = metrics[metrics["consumer"] == name].set_index(["provider", "seed"])["mean_utility"]
        rows.append(
            _rule_row(
                u,
                kth,
                first,
                f"(4) k-th price raises all users' mean utility over first price ({c}, HB)",
                "higher under k-th price (Fig. 5-7)",
                "k-th minus first",
                mechanism=f"{kth} vs {first}",
                group=f"{c} all",
                statistic="utility difference",
                key=f"rule-kth-utility-{c}",
            )
        )
    return rows


def rule_first_revenue(data: ClaimData) -> list[dict]:
    """Claim (5): under HB the provider earns at least as much with first price as with k-th price."""
    first, kth = data.first, data.kth
    if not (first and kth):
        return []
    return [
        _rule_row(
            data.metrics.set_index(["provider", "consumer", "seed"])["revenue"],
            first,
            kth,
            "(5) under HB the provider earns at least as much with first price as with k-th price, whatever the "
            "consumers do",
            "the provider prefers first price",
            "first minus k-th revenue",
            mechanism=f"{first} vs {kth}",
            group="every consumer mix",
            statistic="revenue difference",
            key="rule-first-revenue",
        )
    ]


register_claim(
    "1",
    claim_1,
    "Under HB, risk-aggressive users with low bids have a higher average bounded slowdown than all users under "
    "full truthfulness (Fig. 1-2).",
    "Per seed, the SRG aggressive group's mean BSD over its low-bid jobs minus FT's over all low-bid jobs, under "
    "the study's first HB mechanism; supported when the 95% t-interval over seeds lies above zero.",
    keys="c1",
)
register_claim(
    "2",
    claim_2,
    "Under HB, risk-aggressive users with low bids have a higher share of severely slowed-down jobs (SSJs: "
    "BSD >= 5) than all users under full truthfulness (Fig. 1-2).",
    "As claim 1, on the share of SSJs.",
    keys="c2",
)
register_claim(
    "3",
    claim_3,
    "HB beats NPHB over the whole bid range for the risk-aggressive jobs; WSPT beats HB for low bids and HB beats "
    "WSPT for high bids (BSD, Fig. 3); HB has fewer SSJs (Fig. 4).",
    "Per seed and private-bid class, the SRG aggressive group's mean BSD (and SSJ share) under HB minus under the "
    "other scheduler; supported when the interval lies on the claimed side of zero.",
    keys=f"c3-{_one_of(CLAIM_3_OTHERS)}-{_one_of(BID_CLASSES)}-(?:bsd|ssj)",
)
register_claim(
    "4",
    claim_4,
    "Under first price the risk-aggressive users gain by shading their high bids, under k-th price they do not: "
    "k-th price discourages shading (Fig. 5-7).",
    "Per seed, the shading cohort's mean utility minus the same jobs' in the truthful run (common random numbers), "
    "by private-bid class, under first and under k-th price, and the paired difference of the two gains for the "
    "high-bid jobs; the joint row is supported when all three are.",
    keys=f"c4-{_one_of(SHADERS)}(?:-(?:first|kth)-{_one_of(BID_CLASSES + ('all',))}|-diff-high)?",
)
register_claim(
    "rule-kth-utility",
    rule_kth_utility,
    "k-th price raises the users' utility over first price (Fig. 5-7).",
    "Follows from the rules (under HB the schedule depends only on the reported bids, and the k-th price never "
    "exceeds the first): checked on every seed, shown without an interval.",
    keys="rule-kth-utility-(?:FT|SRG)",
)
register_claim(
    "5",
    rule_first_revenue,
    "The provider prefers first price to k-th price.",
    "Follows from the rules under HB: first-price minus k-th price revenue, checked on every seed and consumer mix.",
    keys="rule-first-revenue",
)
CLAIMS.seal()  # the paper's claims, built in: never replaced (``gamemarket.registry.Registry.seal``)


def evaluate(
    metrics: pd.DataFrame, bins: pd.DataFrame, cohorts: pd.DataFrame | None, consumers: dict, providers: dict
) -> list[dict]:
    """Every claim the study's profiles allow: dicts with claim, paper, measured, verdict (and the numbers).

    The claims of the registry ``CLAIMS`` are measured in the order they were registered.

    Parameters
    ----------
    metrics, bins, cohorts : pandas.DataFrame
        The study's per-run metrics, binned sums and cohort sums (``cohorts`` may be None).
    consumers, providers : dict
        The consumer and provider strategies' definitions, by name.

    Returns
    -------
    list of dict
        One row per measured claim (:func:`claim_row`).
    """
    data = ClaimData(metrics, bins, cohorts, consumers, providers)
    rows = []
    for claim in CLAIMS.values():
        for row in claim.rule(data):
            if claim.holds_key(row["key"]) is False:  # (a discussion's keys are checked against the declared ones)
                raise InputError(
                    f"claim {claim.id!r}: a row carries the key {row['key']!r}, which its keys= {claim.keys!r} do "
                    "not hold; declare every key the claim's rows carry"
                )
            rows.append(row)
    return rows


CSV_COLUMNS = [
    "key",
    "claim",
    "mechanism",
    "group",
    "bid_class",
    "statistic",
    "mean",
    "ci_low",
    "ci_high",
    "n_seeds",
    "verdict",
]


def claims_table(claims: list[dict]) -> pd.DataFrame:
    """The claims of one study as a table (columns ``claim``, ``paper``, ``measured``, ``mean``, ``ci_low``,
    ``ci_high``, ``n_seeds``, ``verdict``): what was measured and its numbers, unformatted.

    Parameters
    ----------
    claims : list of dict
        Rows as :func:`evaluate` returns them.

    Returns
    -------
    pandas.DataFrame
    """
    return pd.DataFrame(
        claims, columns=["claim", "paper", "measured", "mean", "ci_low", "ci_high", "n_seeds", "verdict"]
    )


def claims_csv(claims_by_study: list[tuple[str, list[dict]]]) -> pd.DataFrame:
    """One row per claim and study (``data/claims.csv``): the columns of ``CSV_COLUMNS`` and ``study``.

    A claim that follows from the market's rules has no interval (``ci_low``/``ci_high`` empty).
    """
    rows = [{**{k: r.get(k) for k in CSV_COLUMNS}, "study": name} for name, claims in claims_by_study for r in claims]
    return pd.DataFrame(rows, columns=CSV_COLUMNS + ["study"])
