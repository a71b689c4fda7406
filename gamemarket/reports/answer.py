"""A population report's answer: one row per mechanism, from the exploration where one ran, else from the study.

The report leads with this table, and every section that names an equilibrium, the provider's choice or a
figure of revenue reads it from the same source: where an exploration ran, its equilibria (over the grown menus,
certified on fresh seeds) are the answer, and the study's menu-only equilibria appear only in sections labelled
as a comparison. It computes nothing new: it picks and words what the analysis and the exploration hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gamemarket.games.io import mixture_words
from gamemarket.market.base import market_for_workload
from gamemarket.reports.markdown import md_table, num, num_ci
from gamemarket.search.exploration import answered_round, fell_back, not_answered
from gamemarket.search.population import ranks

UNIT = "bid x seconds per job"

#: the label of a section that shows the study's menu-only answer where an exploration ran
COMPARISON = (
    "_A comparison: the answer of this report is the exploration's (the first table, the provider's choice and the "
    "revenue figure); these are the equilibria over the study's own menu, before any rule was added and before "
    "the certificates._"
)


@dataclass(frozen=True)
class MechanismRow:
    """One mechanism's answer as the report's first table shows it."""

    mechanism: str
    equilibria: tuple  #: each equilibrium's mixture ``{rule: share}``, the provider's worst first
    epsilon: float | None  #: the largest 95% upper bound, over its equilibria, of any evaluated rule's gain
    tolerance: float | None
    verdict: str  #: "certified" / "not certified" (exploration), "verified" / "undecided" / "rejected" (menu)
    revenue: tuple  #: (mean, low, high) at the provider's worst equilibrium
    welfare: tuple
    rank: int | None  #: the provider's ranking (1: its choice as a leader; ties ranked equally), None: no equilibrium
    simultaneous: bool  #: a simultaneous equilibrium with this mechanism as the provider's pure strategy
    source: str  #: "exploration" or "menu"
    tied: tuple = ()  #: the other mechanisms of the same rank (the same worst revenue, to rounding)
    unanswered: str = ""  #: why the mechanism has no answer at all (the exploration's budget ran out), else ""
    fallback: str = ""  #: where its answer is an earlier round's of the exploration: which and why, else ""


def _worst_first(eqs) -> list:
    return sorted(eqs, key=lambda e: e.revenue.mean)


_NAN3 = (math.nan, math.nan, math.nan)


def _explored_row(m, rank: dict, sim: set, budget: int | None = None) -> MechanismRow:
    """A mechanism's row from its exploration (``io.answers.MechanismExploration``): its answered equilibria,
    certified or not; "not answered" where the budget ran out before any round was answered (not "none found":
    nothing was found to be missing), and the round it falls back on where the last one was cut short."""
    eqs = _worst_first(m.equilibria)
    unanswered = fallback = ""
    verdict = "certified" if m.certified else "not certified"
    of = f" of {budget:,}" if budget is not None else ""
    if not_answered(m):
        unanswered = (
            f"the exploration's budget ran out ({m.simulations:,}{of} simulations used) before any round was answered"
        )
        verdict = "not answered"
    elif fell_back(m):
        k = answered_round(m) + 1
        fallback = (
            f"round {k}'s, over {len(m.rounds[k - 1].menu)} rules: the exploration's budget ran out "
            f"({m.simulations:,}{of} simulations used) before round {len(m.rounds)}'s game, over "
            f"{len(m.rounds[-1].menu)} rules, was searched and certified"
        )
        verdict = f"not certified (round {k}'s answer: budget ran out)"
    return MechanismRow(
        m.mechanism,
        tuple(e.shares for e in eqs),
        m.epsilon,
        m.tolerance,
        verdict,
        tuple(eqs[0].revenue) if eqs else _NAN3,
        tuple(eqs[0].welfare) if eqs else _NAN3,
        rank.get(m.mechanism),
        m.mechanism in sim,
        "exploration",
        unanswered=unanswered,
        fallback=fallback,
    )


def _menu_row(a, rank: dict, sim: set) -> MechanismRow:
    """A mechanism's row from the study's answer (``io.answers.MechanismAnswer``): its equilibria not rejected,
    verified or undecided."""
    eqs = _worst_first([e for e in a.equilibria if e.verified != "no"])
    if not eqs:
        verdict = "none found"
    else:
        verdict = "verified" if all(e.verified == "yes" for e in eqs) else "undecided"
    return MechanismRow(
        a.mechanism,
        tuple(e.mixture for e in eqs),
        max((e.regret.high for e in eqs), default=None),
        eqs[0].tolerance if eqs else None,
        verdict,
        tuple(eqs[0].revenue) if eqs else _NAN3,
        tuple(eqs[0].welfare) if eqs else _NAN3,
        rank.get(a.mechanism),
        a.mechanism in sim,
        "menu",
    )


def rows(an, ex) -> list[MechanismRow]:
    """Every mechanism's answer: the exploration's where ``ex`` (an ``ExplorationAnswer``) is given, else the
    study's (rejected candidates left out)."""
    provider = ex.provider if ex is not None else an.provider
    rank = ranks(provider.ranking)  # ties ranked equally: "its choice" of two mechanisms that earn the same (hunt 15)
    sim = {s.mechanism for s in provider.simultaneous}
    if ex is not None:
        out = [_explored_row(ex.mechanisms[a.mechanism], rank, sim, ex.budget) for a in an.answers]
    else:
        out = [_menu_row(a, rank, sim) for a in an.answers]
    return [
        replace(r, tied=tuple(q.mechanism for q in out if q is not r and r.rank is not None and q.rank == r.rank))
        for r in out
    ]


def _ci(v, digits: int = 4) -> str:
    m, lo, hi = v
    if not math.isfinite(lo):
        return num(m, digits)
    return num_ci(m, lo, hi, digits, sign=False)


def play_words(r: MechanismRow) -> str:
    """What users play under a mechanism: its equilibria in words (``mixture_words``), joined by "or"; "not
    answered" where the exploration's budget ran out first (no search found that there is none)."""
    if r.unanswered:
        return "not answered"
    return " or ".join(mixture_words(m) for m in r.equilibria) or "none found"


def provider_words(r: MechanismRow) -> str:
    """The provider column: its rank as a leader (1: its choice; a tie says so and with whom) and whether it is a
    simultaneous equilibrium; "unknown" where the mechanism is not answered."""
    if r.rank is None:
        return "unknown (not answered)" if r.unanswered else "-"
    if r.tied:
        words = ("**its choice**, tied with " if r.rank == 1 else f"rank {r.rank}, tied with ") + ", ".join(r.tied)
    else:
        words = "**its choice**" if r.rank == 1 else f"rank {r.rank}"
    return words + (", simultaneous" if r.simultaneous else "")


def answer_table(table_rows: list[MechanismRow]) -> str:
    """The report's first table: per mechanism, what users play, epsilon against the tolerance and the verdict,
    revenue and welfare at the provider's worst equilibrium with 95% CIs, and the provider's choice."""
    return md_table(
        [
            "mechanism",
            "users play",
            "epsilon (tolerance)",
            "verdict",
            "revenue [95% CI]",
            "welfare [95% CI]",
            "provider",
        ],
        [
            [
                r.mechanism,
                play_words(r),
                "-" if r.epsilon is None else f"{num(r.epsilon, 3)} ({num(r.tolerance, 3)})",
                r.verdict,
                _ci(r.revenue),
                _ci(r.welfare),
                provider_words(r),
            ]
            for r in table_rows
        ],
    )


def utility_unit(an) -> str:
    """The unit of a population study's utilities and gains (``an``: its analysis): its market's (``UNIT``, bid x
    seconds per job, in the scheduling market), per user where the players are users, whose payoff is the sum over
    their jobs (hunt 21a-F4: a users' game said "bid x seconds per job" of sums 1,083 times larger)."""
    return study_utility_unit(an.spec)


def study_utility_unit(spec) -> str:
    """:func:`utility_unit` of a population or design study, from its file (``[game] agents``)."""
    unit = getattr(market_for_workload(spec.workload["source"]), "utility_unit", UNIT)
    users = spec.population is not None and spec.population.agents == "users"
    return unit.replace("per job", "per user (the sum over the user's jobs)") if users else unit


def _agents_words(agents: str, meta) -> str:
    """Who the players are, counted as the runs counted them: each job's owner (one player a job), or each user
    (SWF field 12: one player for all of that user's jobs). "Each of the 300 users' owners" counted the jobs of a
    study of 50 users."""
    if agents == "users" and meta.users is not None:
        return f"Each of the {meta.users:,} users (their {meta.jobs:,} jobs)"
    return f"Each of the {meta.jobs:,} jobs' owners"


def answer_paragraph(an, table_rows: list[MechanismRow], ex) -> str:
    """The prose after the table: short, every number from the analysis or the exploration."""
    cfg = an.config
    if ex is not None:
        scope = (
            f"any rule of the {ex.family} family, found by a best-response search from the study's "
            f"{len(cfg.names)} rules"
        )
        bound = (
            "epsilon is the 95% upper bound on what any rule evaluated against the equilibrium gains, on fresh "
            "seeds; certified: epsilon at most the tolerance"
        )
    else:
        scope = f"one of {len(cfg.names)} shading rules ({', '.join(cfg.names)})"
        level = num(100 * (1 - an.runs.alpha / an.runs.looks), 4)
        bound = f"epsilon is the upper end of the equilibrium's {level}% regret interval over the study's rules"
    good = sum(r.verdict in ("certified", "verified") for r in table_rows)
    parts = [
        f"**What this answers.** {_agents_words(cfg.agents, an.meta)} plays {scope}, to maximise its own "
        f"utility given what everyone else does. Per mechanism, the table gives what users play at equilibrium "
        f"and how sure we are ({bound}; the tolerance is {cfg.regret_tol:g} of the mean absolute truthful utility "
        f"per agent, in {utility_unit(an)}): {good} of {len(table_rows)} mechanisms "
        f"{'are certified' if ex is not None else 'have every equilibrium verified'}."
    ]
    parts += _choice_sentences(table_rows)
    if ex is not None:
        parts.append("A certificate covers the rules the search evaluated, not every rule of the family.")
    return " ".join(parts)


def _and(names: list) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _choice_sentences(table_rows: list[MechanismRow]) -> list[str]:
    """The provider's choice in words: the mechanism of highest worst revenue, or the mechanisms that tie for it
    ("X and Y tie (714,000 each)"); among the answered mechanisms only where one is not answered (said, with why),
    and where a mechanism's answer is an earlier round's of the exploration, which."""
    out = [f"{r.mechanism}'s answer is {r.fallback}." for r in table_rows if r.fallback]
    lead = [r for r in table_rows if r.rank == 1]
    missing = [r for r in table_rows if r.unanswered]
    why = (
        missing[0].unanswered
        if len(missing) == 1
        else "the exploration's budget ran out under each before any round was answered"
    )
    among = (
        f"Among the mechanisms answered only ({_and([r.mechanism for r in missing])} "
        f"{'is' if len(missing) == 1 else 'are'} not: {why}), a"
        if missing
        else "A"
    )
    if len(lead) > 1:
        out.append(
            f"{among} provider that anticipates the users' answer earns most under {_and([r.mechanism for r in lead])}"
            f", which tie ({num(lead[0].revenue[0])} each at their worst equilibrium): the choice between them does "
            "not change its revenue"
        )
    elif lead:
        out.append(
            f"{among} provider that anticipates the users' answer earns most under {lead[0].mechanism} (revenue "
            f"{num(lead[0].revenue[0])} at its worst equilibrium)"
        )
    elif missing:
        out.append(
            f"The provider's choice is unknown: {_and([r.mechanism for r in missing])} "
            f"{'is' if len(missing) == 1 else 'are'} not answered ({why})"
            + ("" if len(missing) == len(table_rows) else ", and no mechanism answered has an equilibrium")
        )
    if lead or missing:
        sim = [r.mechanism for r in table_rows if r.simultaneous]
        out[-1] += f"; {', '.join(sim)} {'is' if len(sim) == 1 else 'are'} also a simultaneous choice." if sim else "."
    return out
