"""A population report's strategy-exploration section: how each mechanism's menu grew, and every equilibrium's
certificate (it renders ``gamemarket.search.exploration``'s answer; it computes nothing new)."""

from __future__ import annotations

import pandas as pd

from gamemarket.games.io import mixture_words
from gamemarket.io.explored import ExplorationAnswer
from gamemarket.reports.answer import COMPARISON
from gamemarket.reports.markdown import counted, md_table, num, num_ci
from gamemarket.search.exploration import answered_round, fell_back, not_answered


def explored_equilibria(ex: ExplorationAnswer) -> pd.DataFrame:
    """The exploration's answer, one row per equilibrium, numbered per mechanism as ``data/exploration.json`` lists
    them (and as the revenue figure labels them): the mixture in words, epsilon against the tolerance, the verdict,
    the provider's revenue and welfare (mean and 95% CI), and the round of the exploration they come from (an
    earlier one than the last where the budget ran out during the last). A mechanism the budget left unanswered
    has no row."""
    out = []
    for name, m in ex.mechanisms.items():
        k = answered_round(m)
        for j, e in enumerate(m.equilibria):
            out.append(
                {
                    "mechanism": name,
                    "equilibrium": j + 1,
                    "mixture": mixture_of(e),
                    "epsilon": e.epsilon,
                    "tolerance": m.tolerance,
                    "verdict": e.verdict,
                    "certified": e.certified,
                    "revenue": e.revenue.mean,
                    "revenue_ci_low": e.revenue.low,
                    "revenue_ci_high": e.revenue.high,
                    "welfare": e.welfare.mean,
                    "welfare_ci_low": e.welfare.low,
                    "welfare_ci_high": e.welfare.high,
                    "round": None if k is None else k + 1,
                    "seeds": e.figure_seeds,
                }
            )
    return pd.DataFrame(out, columns=EXPLORED_COLUMNS)


#: the columns of :func:`explored_equilibria`
EXPLORED_COLUMNS = (
    "mechanism equilibrium mixture epsilon tolerance verdict certified revenue revenue_ci_low revenue_ci_high "
    "welfare welfare_ci_low welfare_ci_high round seeds"
).split()


def mixture_of(entry) -> str:
    """An exploration equilibrium's mixture in words (``mixture_words``)."""
    return mixture_words(entry.shares)


def _gain(v) -> str:
    m, lo, hi = v
    return num_ci(m, lo, hi, 3) if lo == lo else num(m, 3, sign=True)  # lo != lo: NaN, a single seed


def _rounds_table(ex: ExplorationAnswer) -> str:
    """Round by round, per equilibrium: the rules evaluated, epsilon against the tolerance, the best rule on fresh
    seeds with its gain, the seeds of the last look, the verdict; and what joined the menu."""
    rows = []
    for name, m in ex.mechanisms.items():
        for k, r in enumerate(m.rounds):
            for e in r.equilibria:
                d = e.best_deviation
                best = ("-", [float("nan")] * 3, 0) if d is None else (d.strategy, d.gain, d.seeds)
                rows.append(
                    [
                        name,
                        str(k + 1),
                        str(len(r.menu)),
                        mixture_of(e),
                        str(e.candidates_evaluated),
                        f"{num(e.epsilon, 3)} ({num(m.tolerance, 3)})",
                        best[0],
                        _gain(best[1]),
                        str(best[2]),
                        e.verdict,
                    ]
                )
            rows.append(
                [
                    name,
                    str(k + 1),
                    str(len(r.menu)),
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    f"added: {', '.join(r.added) or 'none'}",
                ]
            )
    return md_table(
        [
            "mechanism",
            "round",
            "rules",
            "equilibrium",
            "rules evaluated",
            "epsilon (tolerance)",
            "best rule on fresh seeds",
            "its gain",
            "its seeds",
            "verdict",
        ],
        rows,
    )


def _with_exploration(m) -> str:
    """A mechanism's explored answer in words: its equilibria, with the round they come from where the budget cut the
    last one short; "not answered" where no round was answered, "none" where the search found none."""
    if not_answered(m):
        return "not answered"
    words = " or ".join(mixture_of(e) for e in m.equilibria) or "none"
    return words + (f" (round {answered_round(m) + 1}'s)" if fell_back(m) else "")


def exploration_section(ex: ExplorationAnswer, unit: str) -> list[str]:
    """How the exploration searched and certified, how each menu grew, and the answer beside the menu-only one."""
    final = [
        [
            name,
            " or ".join(mixture_of(e) for e in m.menu_only) or "none",
            _with_exploration(m),
            "yes" if m.certified else "no",
            f"{m.simulations:,}",
            m.reason or "",
        ]
        for name, m in ex.mechanisms.items()
    ]
    certified = sum(bool(m.certified) for m in ex.mechanisms.values())
    return [
        "",
        # the outcome, counted: a fixed "every equilibrium certified" headed a section that certified none (hunt 15)
        f"## Strategy exploration: the menu grown by a best-response search ({certified} of "
        f"{counted(len(ex.mechanisms), 'mechanism')} certified)",
        "",
        "Per mechanism, the exploration starts from the equilibria the study reports over its menu. Against each, "
        f"the oracle searches the {ex.family} family ({', '.join(ex.parameters)}, each in "
        f"[{num(ex.bounds[0])}, {num(ex.bounds[1])}]) by {ex.optimiser} for the single agent's deviation of "
        f"largest gain, at most {ex.evaluations:,} rules a search (the menu's own first), each rule's gain the "
        f"paired estimate on the study's first {len(ex.search_seeds)} seeds: {num(ex.probe)} of the agents "
        "play the rule, against the same agents in the base run at the equilibrium (the same jobs, bids and draws). "
        "Then every rule the search evaluated is run on fresh seeds (from seed "
        f"{ex.fresh_seeds[0]}): {ex.first_seeds} at first, twice as many at each next look, up to "
        f"{ex.confirm_seeds}, only the rules not yet settled. Epsilon is the largest one-sided upper bound over "
        f"those rules, at a level that spends the error {num(ex.alpha)} evenly over the planned looks: at 95% "
        "confidence, no evaluated rule gains more than epsilon (the bound of the largest gain needs no correction "
        "for the number of rules; a claim that a particular rule gains more than the tolerance does, and gets one). "
        "An equilibrium is certified where epsilon is at most the tolerance. A rule whose lower bound is above "
        "the tolerance (deviation), or, still undecided, whose fresh mean is above half of it, joins the menu, and "
        "the reduced game over the grown menu is solved again on the study's seeds. The budget is "
        f"{ex.budget:,} simulations per mechanism. {ex.note.capitalize()}.",
        "",
        f"### How each menu grew (gains in {unit}, 95% CI on fresh seeds)",
        "",
        _rounds_table(ex),
        "",
        "### The answer with exploration beside the study's menu only (a comparison)",
        "",
        COMPARISON,
        "",
        md_table(
            ["mechanism", "menu only", "with exploration", "certified", "simulations", "why not certified"], final
        ),
        "",
        f"{ex.simulations:,} simulations in all (the provider's choice over the explored equilibria: "
        f"{ex.provider.simulations:,} of them).",
        "",
    ]
