"""A study's discussion, written from the computed numbers.

The discussion in a study file (``notes``) is a template: every number it quotes is a field such as
``{claim.c4-SRG-first-high.ci}`` that this module fills in from the analysis, never a number typed
into the text; a literal brace is written twice, ``{{`` and ``}}`` (Markdown, LaTeX's ``\\mathbb{{R}}``). The
literal text may hold only references to the paper (``Fig. 3``, ``Figs. 5-7``, ``Table 1``, claim numbers such as
``(4)``); ``typed_numbers`` finds any other digit, and the test suite runs it on every study file, so a discussion
cannot drift from the report's own data.

Fields (``<key>`` is a claim's key in ``data/claims.csv``; ``<game>`` a game's slug, e.g. ``all-jobs``):

- ``claim.<key>.mean``, ``.ci`` (mean [95% interval]), ``.verdict``, ``.seeds``; the same for a
  companion study as ``<study>.claim.<key>.<attr>``;
- ``claims.tested``, ``claims.supported``, ``claims.contradicted``, ``claims.inconclusive`` (counts of
  the claims with a verdict) and ``claims.contradicted.list``;
- ``game.<game>.equilibria`` (the profiles in words), ``.count``, ``.robustness``, ``.flags``;
  ``paper-game.<game>.equilibria`` for the paper's own 2x2 game; ``games.provider`` (the provider
  strategy of every equilibrium of every game, or "no single strategy"); ``games.edge`` (the games
  with an equilibrium on the edge of the consumer grid) and ``games.edge.count``, ``games.count``;
- ``gains.<mechanism>.<consumer>.<bid class>`` (a shading group's gain over the same jobs' truthful
  run, mean [interval]);
- ``workload.jobs``, ``workload.nodes``, ``workload.mean_runtime``, ``paper.jobs``, ``paper.nodes``,
  ``paper.mean_runtime``, ``paper.jobs_minus_ours``;
- ``growth.<mechanism>.<group>.smallest`` / ``.largest`` (gain [interval] at the smallest and largest
  market, with ``.jobs`` and ``.relative``), ``.relative_range``, ``.significant_loss_from``,
  ``.significant_loss`` (a clause: "the interval lies below zero from N jobs", "at N and M jobs" or "at no size"),
  ``.significant_sizes``, ``growth.smallest``, ``growth.largest``, where the study measures gains against
  market size; ``market.jobs``, ``market.resources`` for a pricing market;
- ``population.<mechanism>.truthful`` (yes, no or undecided), ``.best_rule``, ``.best_gain``,
  ``.equilibria``, ``population.leader``, ``population.study``, where the study names a population study.
"""

from __future__ import annotations

import math
import re

import numpy as np

from gamemarket.analysis.study import slug
from gamemarket.errors import InputError
from gamemarket.games.io import mixture_words, profile_words
from gamemarket.market.base import MARKETS
from gamemarket.reports.exploration import mixture_of
from gamemarket.reports.markdown import num
from gamemarket.search.exploration import not_answered
from gamemarket.studies.spec import fill_notes, note_fields, typed_numbers


def fmt(x: float) -> str:
    """A number as the discussion prints it: thousands separated, three significant digits below 1,000."""
    if x is None or not np.isfinite(x):
        return "n/a"
    whole_digits = int(math.log10(abs(x))) + 1 if abs(x) >= 1000 else 3  # every digit of a large number
    return num(x, whole_digits)


def fmt_ci(mean: float, lo: float, hi: float) -> str:
    """A mean and its 95% CI as the discussion prints them: ``mean [low, high]``, or ``mean (no interval)``."""
    if not np.isfinite(lo):
        return f"{fmt(mean)} (no interval)"
    return f"{fmt(mean)} [{fmt(lo)}, {fmt(hi)}]"


def claim_facts(rows: list[dict], prefix: str = "") -> dict[str, str]:
    """The fields a discussion may quote about the measured claims (``{prefix}claim.<key>.mean``, ``.ci``,
    ``.verdict``, ``.seeds``, and the counts and lists of supported, contradicted and inconclusive
    claims), as text.
    """
    out = {}
    for r in rows:
        k = f"{prefix}claim.{r['key']}"
        out[f"{k}.mean"] = fmt(r["mean"])
        out[f"{k}.ci"] = fmt_ci(r["mean"], r["ci_low"], r["ci_high"])
        out[f"{k}.verdict"] = r["verdict"]
        out[f"{k}.seeds"] = str(r["n_seeds"])
    tested = [r for r in rows if r["verdict"] in ("supported", "contradicted", "inconclusive")]
    out[f"{prefix}claims.tested"] = str(len(tested))
    for v in ("supported", "contradicted", "inconclusive"):
        these = [r for r in tested if r["verdict"] == v]
        out[f"{prefix}claims.{v}"] = str(len(these))
        out[f"{prefix}claims.{v}.list"] = "; ".join(r["claim"] for r in these) or "none"
    return out


def game_facts(games, prefix: str) -> dict[str, str]:
    """The fields a discussion may quote about solved games (``{prefix}.<game>.equilibria``, ``.count``,
    ``.robustness``, ``.flags``), as text.
    """
    out = {}
    for sg in games:
        k = f"{prefix}.{slug(sg.name)}"
        eqs = sg.solution.equilibria
        out[f"{k}.equilibria"] = "; ".join(" with ".join(profile_words(sg.game, e)) for e in eqs) or "none found"
        out[f"{k}.count"] = str(len(eqs))
        out[f"{k}.robustness"] = ", ".join(f"{rb.stable_share:.0%}" for rb in sg.robustness if rb) or "n/a"
        out[f"{k}.flags"] = str(len(sg.flags))
    return out


def population_facts(pop, exploration=None) -> dict[str, str]:
    """What the population game says, per mechanism (``pop`` a PopulationAnalysis): its answer as its own report gives
    it, the exploration's where the study explores (``exploration``, its stored ExplorationAnswer: the equilibria over
    the grown menu and the leader among them), else the menu's equilibria that its runs did not reject (hunt 20a-F6:
    a linked study's menu-only equilibria were quoted where its report answered with its exploration, and a rejected
    candidate would have been quoted as an equilibrium). ``.truthful``, ``.best_rule`` and ``.best_gain`` are the
    menu's rules' gains against truthful bidding in either case."""
    leader = (exploration.provider if exploration is not None else pop.provider).leader
    out = {"population.study": pop.study, "population.leader": leader or "none"}
    for a in pop.answers:
        k = f"population.{a.mechanism}"
        out[f"{k}.truthful"] = a.truthful_is_equilibrium
        rule, (m, lo, hi) = max(a.truthful_gains.items(), key=lambda kv: kv[1].mean)
        out[f"{k}.best_rule"] = rule
        out[f"{k}.best_gain"] = fmt_ci(m, lo, hi)
        if exploration is not None:
            explored = exploration.mechanisms.get(a.mechanism)
            eqs = [
                mixture_of(e) + ("" if e.verdict == "certified" else f" ({e.verdict})")  # (as its report marks them)
                for e in (explored.equilibria if explored is not None else [])
            ]
            ran_out = explored is None or not_answered(explored)
            out[f"{k}.equilibria"] = "; ".join(eqs) or (
                "none answered (the exploration's budget ran out)" if ran_out else "none found"
            )
        else:
            eqs = [mixture_words(e.mixture) for e in a.equilibria if e.verified != "no"]
            out[f"{k}.equilibria"] = "; ".join(eqs) or "none found"
    return out


def _loss_words(sizes: list, losing: list) -> str:
    """Where a gain's interval lies below zero, as a clause that reads whatever the sizes (hunt 21c-W4: "lies below
    zero from no size jobs"): from a size on, at the sizes named, or at none."""
    if not losing:
        return "the interval lies below zero at no size"
    first = min(losing)
    if sorted(losing) == [n for n in sorted(sizes) if n >= first]:
        return f"the interval lies below zero from {fmt(first)} jobs"
    named = [fmt(n) for n in sorted(losing)]
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    return f"the interval lies below zero at {listed} jobs"


def growth_facts(summary) -> dict[str, str]:
    """The shading gain against market size (``incentives.gains``): per mechanism and shading group, at the
    smallest and the largest size, and the range of the relative gain over every size."""
    out = {}
    for (mech, way), g in summary.groupby(["mechanism", "way"], sort=False):
        g = g.sort_values("n")
        k = f"growth.{mech}.{way}"
        for label, r in (("smallest", g.iloc[0]), ("largest", g.iloc[-1])):
            out[f"{k}.{label}"] = fmt_ci(r["gain"], r["ci_low"], r["ci_high"])
            out[f"{k}.{label}.jobs"] = fmt(r["n"])
            out[f"{k}.{label}.relative"] = f"{r['relative_gain']:+.0%}" if np.isfinite(r["relative_gain"]) else "n/a"
        rel = g["relative_gain"][np.isfinite(g["relative_gain"])]
        out[f"{k}.relative_range"] = f"{rel.min():+.0%} to {rel.max():+.0%}" if len(rel) else "n/a"
        neg = g[g["ci_high"] < 0]
        out[f"{k}.significant_loss_from"] = fmt(neg["n"].min()) if len(neg) else "no size"
        out[f"{k}.significant_loss"] = _loss_words(g["n"].tolist(), neg["n"].tolist())
        out[f"{k}.significant_sizes"] = f"{int((g['ci_high'] < 0).sum() + (g['ci_low'] > 0).sum())} of {len(g)}"
    sizes = sorted(summary["n"].unique()) if len(summary) else []
    if sizes:
        out["growth.smallest"], out["growth.largest"] = fmt(sizes[0]), fmt(sizes[-1])
    return out


def provider_picks(games) -> str:
    """The provider's pick over the games in the words of the report's answer (``reports.report.answer_paragraph``:
    the strategies in the support of an equilibrium; hunt 22a-W3: the discussion said "no single strategy" where
    the answer said "hb-first in every one; and also hb-kth in wel"): "hb-first"; "hb-first in every game; and also
    hb-kth in wel"; or "depends on the game: rev: hb-first; wel: hb-kth"."""
    picks = [{sg.game.rows[i] for e in sg.solution.equilibria for i in e.supports()[0]} for sg in games]
    if not picks or not any(picks):
        return "none found"
    every = set.intersection(*picks) if all(picks) else set()
    if len(every) == 1 and all(p == every for p in picks):
        return next(iter(every))
    if every:
        also = "".join(
            f"; and also {' or '.join(sorted(p - every))} in {sg.name}" for sg, p in zip(games, picks) if p - every
        )
        return f"{' or '.join(sorted(every))} in every game{also}"
    return "depends on the game: " + "; ".join(
        f"{sg.name}: {' or '.join(sorted(p)) or 'none found'}" for sg, p in zip(games, picks)
    )


def games_facts(games) -> dict[str, str]:
    """The fields about every game at once: ``games.provider`` (the provider's pick as the report's answer says it:
    the one strategy of every equilibrium of every game; else those played in every game, then the others game by
    game; else each game's), ``games.edge``, ``games.edge.count`` and ``games.count``."""
    edge = [sg.name for sg in games if any("edge of the strategy grid" in f for f in sg.flags)]
    return {
        "games.provider": provider_picks(games),
        "games.edge": ", ".join(edge) or "none",
        "games.edge.count": str(len(edge)),
        "games.count": str(len(games)),
    }


def workload_facts(workload: dict | None, paper: dict | None) -> dict[str, str]:
    """The fields about the workload beside the paper's: ``workload.<key>``, ``paper.<key>`` and
    ``paper.jobs_minus_ours``."""
    out = {f"workload.{k}": fmt(v) for k, v in (workload or {}).items()}
    out |= {f"paper.{k}": fmt(v) for k, v in (paper or {}).items() if k != "source"}
    if paper and workload and "jobs" in paper and "jobs" in workload:
        out["paper.jobs_minus_ours"] = fmt(paper["jobs"] - workload["jobs"])
    return out


def facts(analysis, population_exploration=None) -> dict[str, str]:
    """Every field a study's discussion may quote, as text, from its analysis (``analyze(spec, for_report=True)``);
    ``population_exploration``: the linked population study's stored exploration, where it explores."""
    out: dict[str, str] = {}
    gains = analysis.shading_gains
    for k, (name, rows) in enumerate(analysis.claims):
        out.update(claim_facts(rows, "" if k == 0 else f"{name}."))
    out.update(game_facts(analysis.games, "game"))
    out.update(game_facts(analysis.paper_games, "paper-game"))
    out.update(games_facts(analysis.games))
    if gains is not None:
        for r in gains.itertuples():
            out[f"gains.{r.mechanism}.{r.consumer}.{r.bid_class}"] = fmt_ci(r.mean, r.ci_low, r.ci_high)
    out.update(workload_facts(analysis.workload, analysis.spec.paper))
    if analysis.population is not None:
        out.update(population_facts(analysis.population, population_exploration))
    if analysis.growth is not None:
        out.update(growth_facts(analysis.growth[1]))
    meta = analysis.meta
    out["market.jobs"] = fmt(meta["jobs"])
    out[f"market.{MARKETS.get(meta['kind']).size_name}"] = fmt(meta["nodes"])
    return out


def render(template: str, values: dict[str, str], where: str) -> str:
    """Fill in a template's fields; an unknown field or a typed number is an error naming it."""
    typed = typed_numbers(template)
    if typed:
        raise InputError(
            f"{where}: 'notes' quotes the number(s) {typed[:5]} as typed text; quote computed numbers "
            "as fields (see gamemarket.reports.discussion)"
        )
    missing = sorted({m for m in note_fields(template) if m not in values})
    if missing:
        near = sorted(values)[:8]
        raise InputError(f"{where}: 'notes' uses unknown field(s) {missing[:5]}; the analysis has, e.g., {near}")
    return reflow(fill_notes(template, values.__getitem__))


#: a line of a Markdown block that is not a plain paragraph or a "- " list: a table row, a quote, a heading, a fence,
#: a "*", "+" or numbered item, a nested item, or a setext underline; a block holding one is written as it is
STRUCTURE = re.compile(r"^(\s*([|>#]|```|~~~|[*+] |\d+[.)] )|\s+- |\s*(-{3,}|={3,})\s*$)")


def reflow(text: str) -> str:
    """One line per paragraph and per bullet item (the study file wraps its lines), and every other block of
    Markdown (a table, a fenced block, a heading, a quote, a numbered or nested list) as it was written: joined
    into one line, a table or a fence was no longer one (hunt 14)."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        if any(STRUCTURE.match(line) for line in block.split("\n")):
            out.append("\n".join(line.rstrip() for line in block.split("\n")))
            continue
        items: list[str] = []
        for line in block.split("\n"):
            if line.startswith("- ") or not items:
                items.append(line.strip())
            else:
                items[-1] += " " + line.strip()
        out.append("\n".join(items))
    return "\n\n".join(out)
