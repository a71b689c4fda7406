"""What the commands print of an answer, line by line: a population study's answer over its menu and an
exploration's verdicts, as ``study run`` and ``game solve`` print them (the library's ``log`` gets the same lines).
"""

from __future__ import annotations

from gamemarket.games.io import mixture_words
from gamemarket.reports.markdown import duration, num, num_ci
from gamemarket.search.population import leaders

#: the equilibria printed per mechanism (and of the provider-and-consumers game); the rest are counted: a game whose
#: strategies tie exactly listed 6,817 points of its continuum, a line each (fuzz run O)
MAX_EQUILIBRIA = 20


def _more(n: int, head: str) -> list[str]:
    """The line that counts the equilibria past :data:`MAX_EQUILIBRIA` (none where there are no more)."""
    if n <= MAX_EQUILIBRIA:
        return []
    return [f"{head}{n:,} equilibria, the first {MAX_EQUILIBRIA} listed; the report's data tables list every one"]


#: the line above a population study's menu-only answer where the study explores: its answer is the exploration's
MENU_COMPARISON = (
    "the study's menu of rules only (a comparison: this study explores, and its answer is the exploration's)"
)


def population_lines(an, *, comparison: bool = False) -> list[str]:
    """A population study's answer over its menu, as ``study run`` prints it: per mechanism, whether truthful
    bidding is an equilibrium, each rule's gain over truthful, each equilibrium with its regret and revenue;
    then the provider's choice and the provider-and-consumers game. ``comparison``: the study explores, and these
    lines are said to be the menu's only, as its report says (hunt 21a-F1: `game solve` printed them unlabelled as
    the answer, where the report answers with the exploration)."""
    out = [MENU_COMPARISON + ":"] if comparison else []
    for a in an.answers:
        out.append(f"== {a.mechanism} ({len(a.seeds)} seeds): truthful is an equilibrium: {a.truthful_is_equilibrium}")
        for s, (m, lo, hi) in a.truthful_gains.items():
            out.append(f"  gain of {s} over truthful at the all-truthful population: {num_ci(m, lo, hi, 4)}")
        if not a.equilibria:
            out.append(f"  {'; '.join(a.notes)}")
        for e in a.equilibria[:MAX_EQUILIBRIA]:
            out.append(
                f"  equilibrium {mixture_words(e.mixture)}: regret {num_ci(*e.regret, 3, sign=False)} "
                f"({e.verified}, {e.stability}); revenue {num(e.revenue.mean, 4)}"
            )
        out += _more(len(a.equilibria), "  ")
    if an.provider.leader:
        out.append(f"provider's choice (leader, worst consumer equilibrium): {_leaders(an.provider.ranking)}")
    else:  # said, never an empty success
        out.append("provider's choice: none (no mechanism has a consumer equilibrium that is not rejected)")
    joint = an.provider.joint
    if joint is not None:
        if not joint.equilibria:
            out.append(f"provider and consumers together: no equilibrium found; {'; '.join(joint.notes)}")
        for e in joint.equilibria[:MAX_EQUILIBRIA]:
            c, p = e.consumer_regret, e.provider_regret
            out.append(
                f"provider and consumers together: {mixture_words(e.provider)} with "
                f"{mixture_words(e.consumers)}: consumers' regret {num_ci(*c, 3, sign=False)}, provider's "
                f"{num_ci(*p, 3, sign=False)} ({e.verified})"
            )
        out += _more(len(joint.equilibria), "provider and consumers together: ")
    return out


def exploration_lines(ex) -> list[str]:
    """An exploration's answer as ``study run`` prints it: per mechanism, its menu, simulations, epsilon and
    verdict; then its simulations and time."""
    out = []
    for name, m in ex.mechanisms.items():
        eps = "" if m.epsilon is None else f", epsilon {num(m.epsilon)} (tolerance {num(m.tolerance)})"
        verdict = "certified" if m.certified else f"not certified: {m.reason}"
        out.append(
            f"  exploration {name}: {len(m.menu)} rules in the menu, {m.simulations} simulations{eps}; {verdict}"
        )
        for e in m.equilibria[:MAX_EQUILIBRIA]:  # the answer itself, as the report's first table gives it
            out.append(
                f"    equilibrium {mixture_words(e.shares)}: epsilon {num(e.epsilon)} ({e.verdict}); revenue "
                f"{num(e.revenue.mean, 4)}"
            )
        out += _more(len(m.equilibria), "    ")
    # the exploration's own answer for the provider, as the report gives it (hunt 9: the console said the menu's
    # "provider's choice: hb-first" while the report's explored answer had no equilibrium and no choice)
    leader = ex.provider.leader
    out.append(
        f"exploration's provider choice (leader, worst explored equilibrium): {_leaders(ex.provider.ranking)}"
        if leader
        else "exploration's provider choice: none (no mechanism has an explored equilibrium)"
    )
    took = "" if ex.wall_seconds is None else f" in {duration(ex.wall_seconds)}"  # (a stored answer has no time)
    out.append(f"exploration: {ex.simulations} simulations{took}")
    return out


def _leaders(ranking) -> str:
    """The provider's choice as a leader, as the report says it: one mechanism, or the ones that tie at rank 1
    ("hb-first and hb-kth (tie)"; hunt 15a: the console named the first of two that earned the same)."""
    names = leaders(ranking)
    return names[0] if len(names) == 1 else " and ".join([", ".join(names[:-1]), names[-1]]) + " (tie)"
