"""The report of a population study: renders a ``PopulationAnalysis`` (it computes nothing new).

Sections: what the study answers (first paragraph, every number filled in from the analysis);
per mechanism, the consumers' equilibria (mixture, regret with its interval, verdict,
stability, revenue and welfare) and each strategy's gain over truthful at the all-truthful
population; the provider's choice; the simulations used. Figures: truthful-deviation gains with
CIs, revenue at equilibrium, and the replicator flow on the simplex where a game has 3 strategies.
A study that explores (``[game] exploration``) adds, to the first paragraph, what users do per mechanism
when every rule of the family is open and how sure we are, and a section on how the menu grew.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:  # a notebook keeps its own (inline) backend: its user's figures still show
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from gamemarket import __version__  # noqa: E402
from gamemarket.games.egta import to_tidy, write_egta  # noqa: E402
from gamemarket.games.io import mixture_words, write_json  # noqa: E402
from gamemarket.games.support_newton import HITS_PER_ROOT, MIN_HITS  # noqa: E402
from gamemarket.io.files import OutputFolder  # noqa: E402
from gamemarket.io.jobtable import write_table  # noqa: E402
from gamemarket.io.names import slug  # noqa: E402
from gamemarket.market.base import market_for_workload  # noqa: E402
from gamemarket.reports.answer import COMPARISON, answer_paragraph, answer_table, utility_unit  # noqa: E402
from gamemarket.reports.answer import rows as answer_rows  # noqa: E402
from gamemarket.reports.concepts import concepts_summary  # noqa: E402
from gamemarket.reports.drawing import people_ticks, save  # noqa: E402
from gamemarket.reports.exploration import exploration_section  # noqa: E402
from gamemarket.reports.markdown import counted, md_table, num, num_ci, report_pages  # noqa: E402
from gamemarket.reports.report import claim_folder, figure_lines, workload_words, write_text  # noqa: E402
from gamemarket.search.exploration import read_stored_exploration, write_exploration  # noqa: E402
from gamemarket.studies.deviations import probe_size  # noqa: E402
from gamemarket.studies.population import probe_used  # noqa: E402


def _joint_section(joint, exploration=None) -> list[str]:
    """The provider-consumer game's simultaneous equilibria, provider mixtures included (over the study's menu: a
    comparison where an exploration grew a menu)."""
    g = joint.game
    grew = [n for n, m in exploration.mechanisms.items() if len(m.rounds) > 1] if exploration is not None else []
    md = [
        "### Simultaneous equilibria with any provider mixture"
        + (" over the study's menu only (a comparison)" if exploration is not None else ""),
        "",
    ]
    if exploration is not None:
        md += [
            COMPARISON[:-1]
            + (
                f" The exploration grew the menu under {', '.join(grew)}, and this game is not solved over the grown "
                "menus: the simultaneous answer with a pure provider strategy above is the exploration's._"
                if grew
                else " No menu grew, so this game is the same over the explored menus._"
            ),
            "",
        ]
    md += [
        f"The provider (one player, {g.num_strategies[0]} mechanisms) and the consumers ({g.players[1]} players "
        "after DPR) as one role-symmetric game: a consumer's payoff is its mechanism's reduced-game payoff, the "
        "provider's is its revenue per agent in the runs at the consumers' mixture "
        "(`data/game-provider-consumers.json`, EGTA format). Each equilibrium is then checked by runs at its "
        "consumer mixture under every mechanism: the consumers' regret against the provider's mixture and the "
        "provider's regret (its best mechanism's revenue over its mixture's, seed by seed), each with a 95% interval "
        "over seeds (the largest of the deviations' Student-t bounds), decided against the study's tolerance times "
        "each role's scale.",
        "",
    ]
    eqs = joint.equilibria
    if not eqs:
        md += ["None found. " + " ".join(joint.notes), ""]
        return md
    rows = [
        [
            mixture_words(e.provider),
            mixture_words(e.consumers),
            num(e.reduced_regret, 2),
            _ci(e.consumer_regret, 3),
            _ci(e.provider_regret, 3),
            e.verified,
            e.stability,
            num(e.expected_revenue_per_agent, 4),
        ]
        for e in eqs
    ]
    md.append(
        md_table(
            [
                "provider mixture",
                "consumer mixture",
                "regret (reduced game)",
                "consumers' regret [95% CI]",
                "provider's regret [95% CI]",
                "verified",
                "stability",
                "revenue per agent",
            ],
            rows,
        )
    )
    mixed = sum(len(e.provider) > 1 for e in eqs)
    dom = joint.dominant
    md += [
        "",
        *(
            [
                f"{dom} earns the provider at least as much revenue as every other mechanism at every consumer "
                "profile of this game (weakly dominant), so in every equilibrium the provider plays it or "
                "mechanisms that earn exactly as much at the consumers' mixture: this part of the answer follows "
                "from the revenue table alone.",
                "",
            ]
            if dom
            else []
        ),
        f"{_count(len(eqs), 'equilibrium', 'equilibria')}, {mixed} of them with a mixed provider strategy; "
        f"{sum(e.verified == 'yes' for e in eqs)} confirmed by the runs at the candidate, "
        f"{sum(e.verified == 'no' for e in eqs)} rejected.",
        "",
    ]
    return md


def _ci(v, digits: int = 4, *, sign: bool = False) -> str:
    """A (mean, low, high) triple as the report prints it (``markdown.num``), the mean alone without an interval."""
    m, lo, hi = v
    if not np.isfinite(lo):
        return num(m, digits, sign=sign)
    return num_ci(m, lo, hi, digits, sign=sign)


def tables(an) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(equilibria, truthful gains) as tidy tables."""
    eq, gains = [], []
    for a in an.answers:
        for k, e in enumerate(a.equilibria):
            eq.append(
                {
                    "mechanism": a.mechanism,
                    "equilibrium": k + 1,
                    "mixture": mixture_words(e.mixture),
                    "reduced_regret": e.reduced_regret,
                    "regret": e.regret.mean,
                    "regret_ci_low": e.regret.low,
                    "regret_ci_high": e.regret.high,
                    "verified": e.verified,
                    "stability": e.stability,
                    "revenue": e.revenue.mean,
                    "welfare": e.welfare.mean,
                    "mean_utility": e.mean_utility,
                    "seeds": e.seeds,
                }
            )
        for s, (m, lo, hi) in a.truthful_gains.items():
            gains.append(
                {"mechanism": a.mechanism, "strategy": s, "gain": m, "ci_low": lo, "ci_high": hi, "seeds": len(a.seeds)}
            )
    return pd.DataFrame(eq), pd.DataFrame(gains)


def _count(k: int, one: str, many: str) -> str:
    return f"{k} {one if k == 1 else many}"


#: how to read each figure, printed under it (no underscores: the caption is set in italics)
HOW_TO_READ = {
    # (hunt 20a-F2: the caption said a bar above zero made truthful bidding no equilibrium, beside an undecided one)
    "fig-truthful-gains.png": "How to read it: one group of bars per mechanism, one bar per shading rule: what a "
    "single user gains by that rule over bidding truthfully when everyone else is truthful, with its CI (at the "
    "level of the table above: 95% with one look at the seeds, wider with more). "
    "A bar whose interval lies above zero gains on these seeds; the verdict in the table is not read from these "
    "intervals but from all-truthful's regret, the largest gain, whose lower bound is at the level divided by the "
    "number of rules, against the tolerance (the methods say how), so a bar above zero can leave it undecided.",
    "fig-revenue-at-equilibrium.png": "How to read it: one bar per consumer equilibrium of the answer (mechanism "
    "and its number: {numbering}), its provider revenue in bid x seconds with its 95% CI; green: certified "
    "(or verified), grey: not certified (or undecided), red: rejected.",
    "fig-replicator-flow.png": "How to read it: each triangle holds every mixture of the three rules (a corner: "
    "everyone plays that rule); arrows point where the replicator dynamics move the population, their colour "
    "is the speed (the colour bar, log10); filled dots are stable equilibria, open dots unstable ones.",
}


def _numbering(exploration) -> str:
    """Where the revenue figure's equilibrium numbers come from (the first table lists the same equilibria, worst
    first, without numbers): the exploration's file, else the equilibria table and its CSV."""
    if exploration is not None:
        return "their order in data/exploration.json, the order of the with exploration column above"
    return "the order of the equilibria table above and of data/population-equilibria.csv"


def _gains_figure(gains: pd.DataFrame, path: Path, level: str, unit: str) -> Path:
    mechs = list(dict.fromkeys(gains["mechanism"]))
    strats = list(dict.fromkeys(gains["strategy"]))
    fig, ax = plt.subplots(figsize=(min(12, max(6, 0.35 * len(mechs) * len(strats) + 2)), 4.5))
    width = 0.8 / len(strats)
    for k, s in enumerate(strats):
        sub = gains[gains["strategy"] == s].set_index("mechanism").reindex(mechs)
        xs = np.arange(len(mechs)) + (k - (len(strats) - 1) / 2) * width
        err = np.vstack([sub["gain"] - sub["ci_low"], sub["ci_high"] - sub["gain"]])
        ax.bar(xs, sub["gain"], width, yerr=np.nan_to_num(err), capsize=2, label=s)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(np.arange(len(mechs)))
    ax.set_xticklabels(mechs, rotation=30, ha="right")
    ax.set_ylabel(f"gain over truthful ({unit})")
    people_ticks(ax.yaxis)
    # the figure's title, in two lines: tight_layout keeps a suptitle clear of the axis' offset label
    # ("1e5") and of the figure's edge, which a long axes title at this width crosses
    # the table's level (hunt 14: titled 95% over intervals at 97.5%, the table beside it saying 97.5%)
    fig.suptitle(
        f"A single user's gain from shading when everyone else is truthful\n({level} CI over seeds)", fontsize=9
    )
    ax.legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def revenue_bars(an, exploration) -> pd.DataFrame:
    """The revenue figure's bars: one per equilibrium of the answer (the exploration's where one ran: certified or
    not; else the study's: verified, undecided or rejected), its mean revenue and 95% CI."""
    out = []
    for a in an.answers:
        if exploration is not None:
            for k, e in enumerate(exploration.mechanisms[a.mechanism].equilibria):
                state = "good" if e.certified else "open"
                out.append({"label": f"{a.mechanism} #{k + 1}", "revenue": e.revenue, "state": state})
        else:
            for k, e in enumerate(a.equilibria):
                state = {"yes": "good", "no": "bad"}.get(e.verified, "open")
                out.append({"label": f"{a.mechanism} #{k + 1}", "revenue": e.revenue, "state": state})
    return pd.DataFrame(out)


#: the most bars the revenue figure draws (each mechanism's first equilibria, in the answer's order): a game whose
#: strategies tie exactly has a continuum of equilibria, and its 6,817 listed points made a figure of 6,817 labels,
#: 1.6 million overlap checks and a 5-minute report (the fuzzer's run O); the data table lists every one
MAX_BARS = 30


def _revenue_figure(bars: pd.DataFrame, path: Path, explored: bool) -> Path:
    left_out = 0
    if len(bars) > MAX_BARS:
        mech = bars["label"].str.rsplit(" #", n=1).str[0]
        each = max(1, MAX_BARS // mech.nunique())
        kept = bars.groupby(mech, sort=False).head(each)
        left_out, bars = len(bars) - len(kept), kept.reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    colors = [{"good": "tab:green", "bad": "tab:red"}.get(v, "tab:gray") for v in bars["state"]]
    mean = np.array([r[0] for r in bars["revenue"]])
    err = np.nan_to_num(np.array([[r[0] - r[1], r[2] - r[0]] for r in bars["revenue"]]).T)
    ax.bar(np.arange(len(bars)), mean, color=colors, yerr=err, capsize=2)
    ax.set_xticks(np.arange(len(bars)))
    upright = len(bars) > 20  # (many bars: labels upright, else they overlap their neighbours)
    ax.set_xticklabels(bars["label"], rotation=90 if upright else 30, ha="center" if upright else "right", fontsize=7)
    ax.set_ylabel("provider revenue (bid x seconds)")
    people_ticks(ax.yaxis)  # 350,000,000, not 3.5 under a "1e8" the title could overlap
    # a suptitle: tight_layout keeps it above the axis' offset label ("1e8"), which an axes title overlaps
    legend = "green: certified, grey: not certified" if explored else "green: verified, grey: undecided, red: rejected"
    title = f"Revenue at each consumer equilibrium, 95% CI ({legend})"
    if left_out:
        title = (
            f"Revenue at each mechanism's first {each} consumer equilibria, 95% CI\n({legend}; {left_out:,} more in "
            "data/population-equilibria.csv)"
        )
    fig.suptitle(title, fontsize=9 if not left_out else 8)
    save(fig, path, dpi=110)
    return path


def _search_sentence(answers) -> str:
    """How thoroughly the reduced games were searched, computed from each mechanism's record."""
    recs = [a.search for a in answers if a.search]
    if not recs:
        return "The reduced games' equilibria were searched by replicator dynamics and polish only."
    starts = sum(r["starts"] for r in recs)
    roots = sum(r["roots"] for r in recs)
    once = sum(r["singletons"] for r in recs)
    still = sum(r["open_supports"] for r in recs)
    supports = recs[0]["supports"]
    opening = (
        f"The candidates come from every pure profile, replicator dynamics with polish, and Newton's method on "
        f"each of the {supports} supports' indifference systems from many starting points ({starts:,} starts over "
        f"the {len(recs)} mechanisms, "
    )
    if roots == 0:  # no root to have reached twice: the stopping rule held of nothing (hunt 12)
        return (
            opening + "and no support's system had a root: each support's budget of starts was spent finding none)."
            " No method here proves that a game has no other equilibrium."
        )
    return (
        opening
        + f"{roots:,} distinct roots, {once} of them reached by a single start; "
        + (
            "every support's search ended by its stopping rule: "
            if still == 0
            else f"the budgets of {still} supports ran out before their stopping rule was met: "
        )
        + f"each root reached at least twice, and at least {MIN_HITS} convergences and {HITS_PER_ROOT} per distinct "
        "root)." + " No method here proves that a game has no other equilibrium."
    )


def _flow_figure(answers, names, path: Path) -> Path:
    """Replicator flow of each mechanism's reduced game on the 2-simplex (3 strategies): arrows of unit
    length in the flow's direction, coloured by its speed on one log scale shared by every panel (the
    colour bar)."""
    n = len(answers)
    # the colour bar in a thin last column, so that tight_layout lays it out with the panels
    fig, axes = plt.subplots(
        1, n + 1, figsize=(3.6 * n + 0.6, 3.4), squeeze=False, gridspec_kw={"width_ratios": [1] * n + [0.06]}
    )
    corners = np.array([[0, 0], [1, 0], [0.5, np.sqrt(3) / 2]])
    flows = [_flow(a.game, corners) for a in answers]
    speeds = np.concatenate([np.log10(norm + 1e-300) for _, _, norm in flows])
    colours = matplotlib.colors.Normalize(vmin=float(speeds.min()), vmax=float(speeds.max()))
    for ax, a, (pts, vec, norm) in zip(axes[0], answers, flows):
        arrows = ax.quiver(
            pts[:, 0],
            pts[:, 1],
            vec[:, 0] / np.maximum(norm, 1e-300),
            vec[:, 1] / np.maximum(norm, 1e-300),
            np.log10(norm + 1e-300),
            cmap="viridis",
            norm=colours,
            scale=25,
            width=0.006,
        )
        ax.plot(*np.vstack([corners, corners[:1]]).T, color="black", lw=0.8)
        for c, s in zip(corners, names):  # outside the triangle, clear of an equilibrium's dot at its corner
            bottom = c[1] == 0
            ax.annotate(
                s,
                c,
                xytext=(0, -7 if bottom else 7),
                textcoords="offset points",
                fontsize=7,
                ha="center",
                va="top" if bottom else "bottom",
                annotation_clip=False,
            )
        for e in a.equilibria:
            p = np.asarray(e.mixture_vector) @ corners
            ax.plot(*p, "o", ms=8, mfc="black" if e.stability == "stable" else "white", mec="black")
        ax.set_title(a.mechanism, fontsize=9)
        ax.set_aspect("equal")
        # room for the corner labels inside the panel, so that the title stands above the top one
        ax.set_xlim(-0.12, 1.12)
        ax.set_ylim(-0.16, corners[2, 1] + 0.16)
        ax.axis("off")
    fig.colorbar(arrows, cax=axes[0][-1]).set_label("log10 speed", fontsize=7)
    fig.suptitle(
        "Replicator flow of the reduced game (arrows: direction; colour: log10 speed); "
        "filled: stable equilibrium, open: unstable",
        fontsize=8,
    )
    save(fig, path, dpi=110)
    return path


def _flow(game, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The replicator dynamics' velocity at the interior points of a grid of step 1/20 on the simplex, in
    the triangle's plane: (points, velocities, speeds)."""
    pts, vec = [], []
    for i in range(1, 20):
        for j in range(1, 20 - i):
            x = np.array([i, j, 20 - i - j]) / 20.0
            dev = game.deviation_payoffs(x)
            dx = x * (dev - x @ dev)
            pts.append(x @ corners)
            vec.append(dx @ corners)
    pts, vec = np.array(pts), np.array(vec)
    return pts, vec, np.linalg.norm(vec, axis=1)


def write_population_report(an, out_dir: str | Path | None = None, *, force: bool = False, exploration=None) -> Path:
    """Render the analysis of a population study under ``out_dir`` (default: the study's report folder).

    Each section is one builder (a list of Markdown lines, joined by newlines).

    Parameters
    ----------
    an : PopulationAnalysis
    out_dir : str or Path, optional
    force : bool
        Replace a folder this package did not write.
    exploration : ExplorationAnswer, optional
        The study's strategy exploration (``gamemarket.search.exploration.run_exploration``): written to
        ``data/exploration.json`` and rendered (the first paragraph's answer with the family open, and its
        section). Without it, a study with ``[game] exploration`` renders the one its last run stored with its
        results (``gamemarket.search.exploration.read_stored_exploration``); where none is stored, or it is stale
        or damaged, the report says so at its top and on stderr (a warning), and its answer is the menu's.
    """
    spec = an.spec
    out = claim_folder(Path(out_dir) if out_dir else spec.report_dir, spec, force)
    with out:  # a report that fails or is stopped gives its folder back as it was
        missing = ""
        if exploration is None:
            exploration, missing = read_stored_exploration(spec)
        if missing:  # (hunt 18b, F2: the exploration was left out without a word)
            warnings.warn(f"study {spec.name}: its exploration is not in the report: {missing}", stacklevel=2)
        eq, gains = tables(an)
        _write_data(an, out, eq, gains)
        if exploration is not None:
            write_exploration(exploration, out)  # before finish(): else it is a stale file of an earlier report
        answer = answer_rows(an, exploration)
        figs = _draw_figures(an, out, exploration, gains)
        joint = an.provider.joint
        md = _intro_section(an, answer, exploration, missing) + _method_section(an) + _truthful_section(an)
        md += _equilibria_section(an, exploration) + _provider_section(an, answer, exploration)
        if joint is not None:
            md += _joint_section(joint, exploration)
        if exploration is not None:
            md += exploration_section(exploration, utility_unit(an))
        md += _simulations_section(an.runs)
        for f in figs:
            md += [figure_lines(f.stem, f.name, HOW_TO_READ[f.name].format(numbering=_numbering(exploration)))]
        md += [
            f"_gamemarket {__version__}; tables in `data/` (equilibria, truthful gains, each mechanism's reduced game "
            "as EGTA JSON and as a tidy CSV)._",
            "",
        ]
        text, page = report_pages("\n".join(md), f"{spec.name}: population game")
        md_path = out.file("report.md")
        write_text(md_path, text)
        write_text(out.file("index.html"), page)
        out.finish()  # what an earlier report wrote and this one did not goes (only that)
        return out.final(md_path)


def _write_data(an, out: OutputFolder, eq: pd.DataFrame, gains: pd.DataFrame) -> None:
    """The report's ``data/`` tables: equilibria, truthful gains, each reduced game (EGTA JSON and tidy CSV),
    the provider-consumer game where there is one, and ``population.json`` with everything the text says.
    A mechanism's files are named by its name's slug (never the name itself: it comes from a file)."""
    write_table(eq, out.file("data/population-equilibria.csv"))
    write_table(gains, out.file("data/truthful-gains.csv"))
    for a in an.answers:
        name = slug(a.mechanism, "mechanism")
        write_egta(a.game, out.file(f"data/game-{name}.json"))
        write_table(to_tidy(a.game), out.file(f"data/game-{name}.csv"))
    joint = an.provider.joint
    if joint is not None:
        write_egta(joint.game, out.file("data/game-provider-consumers.json"))
        write_table(to_tidy(joint.game), out.file("data/game-provider-consumers.csv"))
    # the workload by its name, never a path; how many ran in this call and how long it took is the command's log
    write_json(out.file("data/population.json"), an.report_json(__version__))


def _draw_figures(an, out: OutputFolder, exploration, gains: pd.DataFrame) -> list[Path]:
    """The figures the analysis allows: truthful gains, revenue at the answer's equilibria, the replicator flow of
    the study's menu (3 strategies)."""
    unit = utility_unit(an)
    figs = [_gains_figure(gains, out.file("fig-truthful-gains.png"), _level(an.runs), unit)] if len(gains) else []
    bars = revenue_bars(an, exploration)
    if len(bars):
        figs.append(_revenue_figure(bars, out.file("fig-revenue-at-equilibrium.png"), exploration is not None))
    if len(an.config.names) == 3:
        figs.append(_flow_figure(an.answers, an.config.names, out.file("fig-replicator-flow.png")))
    return figs


def _intro_section(an, answer: list, exploration=None, missing: str = "") -> list[str]:
    """The title, the answer (one row per mechanism: the exploration's where the study explores) and what it says in
    words, the study's description, the workload and the strategies; first, where the study asks for an exploration
    that is not stored (``missing``: why), that the answer below is the menu's only."""
    spec, cfg = an.spec, an.config
    market = market_for_workload(spec.workload["source"])  # (its own words: resources, its utility's unit)
    return [
        f"# {spec.name}: population game",
        "",
        *(
            [
                "**The strategy exploration is missing.** The study asks for one (`[game.exploration]`), and this "
                f"report does not render it: {missing}. The answer below is over the study's menu of rules only, not "
                "the exploration's.",
                "",
            ]
            if missing
            else []
        ),
        answer_table(answer),
        "",
        answer_paragraph(an, answer, exploration),
        "",
        *([f"_{spec.description}_", ""] if spec.description.strip() else []),
        f"Workload: {workload_words({'workload': an.meta.workload})} ({an.meta.jobs:,} jobs, {an.meta.nodes} "
        f"{market.size_name}). "
        "Agents: "
        f"{cfg.agents}. Strategies (shading rules, a beta per private-bid class low/middle/high): "
        + "; ".join(_rule_words(r) for r in cfg.strategies)
        + ". Outside option: "
        + (
            f"{num(cfg.outside_price)} per node-second with no wait (a rule's leave shares send that share of "
            "each class's jobs there)"
            if cfg.outside_price is not None
            else "none (no job can leave)"
        )
        + (
            f". Utilities are in {utility_unit(an)}; revenue and welfare in bid x seconds."
            if not hasattr(market, "utility_unit")
            else f". Utilities are in {utility_unit(an)}; revenue and welfare in the same units."
        ),
        "",
    ]


def _rule_words(r) -> str:
    """A rule as the setup lists it: its betas, and its leave shares where it sends jobs out (hunt 9: a rule that
    sent every job out was listed as [0.0, 0.0, 0.0], as truthful)."""
    leave = getattr(r, "leave_by_class", None)
    betas = getattr(r, "betas", None)
    words = f"{r.name} = {list(betas)}" if betas is not None else f"{r.name} ({r.family})"
    return words + (f", leave {list(leave)}" if leave is not None and any(leave) else "")


def _method_section(an) -> list[str]:
    """How the games are reduced, measured, searched and decided."""
    cfg = an.config
    return [
        "## How it is measured",
        "",
        f"Per mechanism, the consumers' game is reduced by deviation-preserving reduction to {cfg.reduced_players} "
        f"players ({an.meta.grid_mixtures} population mixtures, each one simulation per seed, every strategy's "
        f"payoff from one run by probe slices of {_probe_share(an, cfg):g} of the agents). A strategy's payoff in the "
        "reduced "
        "game is the mean utility of the agents that play it, less the same agents' utility in the all-truthful run "
        "of the same seed and mechanism, plus the mean truthful utility (a control variate). The reduced game's "
        "equilibria (regret at most 1e-8 of its payoff scale) are candidates. " + _search_sentence(an.answers) + " "
        "Each candidate is then checked by paired runs: a base run at the candidate, and a run in which every rule "
        f"is played by a random block of {_probe_share(an, cfg):g} of the agents of its own "
        f"({_block_words(an, cfg)}); a rule's gain is its block's "
        "utility less the same agents' utility in the base run (the same jobs, bids and draws), less what the "
        "other blocks do to everyone (the mean change of the agents in no block); an agent that already plays the "
        "rule gains 0 by it, so the candidate's own rule at a pure candidate gains exactly 0. The candidate's "
        "regret is its largest gain (at least 0); its interval's upper end is the largest of the rules' Student-t "
        "upper bounds (the rule of largest true gain bounds the regret alone: no correction for the number of "
        "rules), its lower end the largest of their lower bounds at the level divided by the number of rules (a "
        "regret above it claims that one particular rule gains). The truthful gains are the same gains at the "
        "all-truthful population, and whether all-truthful is an equilibrium is decided from them by the same "
        "interval, so the two never disagree. "
        + _looks_sentence(an.runs, cfg)
        + f" Verdict: *yes* when the CI's upper end is at most {cfg.regret_tol:g} of the mean absolute truthful "
        "utility (the tolerance), *no* when its lower end is above, else *undecided*. Stability is under the "
        "replicator dynamics of the reduced game.",
        "",
    ]


def _level(runs) -> str:
    """The level of a study's intervals: 95% with one look, else ``1 - 0.05 / looks`` (:func:`_looks_sentence`)."""
    return f"{num(100 * (1 - runs.alpha / runs.looks), 4)}%"


def _block_words(an, cfg) -> str:
    """A probe block's size in agents: ``1,072 of the 214,322 jobs`` (a block of one or two agents decides little,
    and the share alone did not say so)."""
    n = an.meta.users if cfg.agents == "users" else an.meta.jobs
    share = _probe_share(an, cfg)
    return f"{counted(probe_size(n, share), 'agent')} of the {n:,} {'users' if cfg.agents == 'users' else 'jobs'}"


def _probe_share(an, cfg) -> float:
    """The probe share the runs used (``probe_used``: one user where that is more than ``[game] probe``); the report
    gave the nominal 0.005 where 0.02, one user of 50, was used (hunt 21c-F2)."""
    return probe_used(cfg, an.meta.users if cfg.agents == "users" else an.meta.jobs)


def _looks_sentence(runs, cfg) -> str:
    """How the adaptive seeds control a verdict's error, from the analysis' record of its design."""
    looks, alpha = runs.looks, runs.alpha
    if looks <= 1:
        return f"Every interval is at {_level(runs)}."
    return (
        f"Seeds are added {cfg.seed_step} at a time while a mechanism's verdict is open, up to {cfg.max_seeds}: up to "
        f"{looks} looks, each interval at {_level(runs)} (the error {num(alpha)} spent evenly over the looks), so "
        f"that a verdict is wrong with probability at most {num(alpha)} whichever look it is made at."
    )


def _truthful_section(an) -> list[str]:
    """Per mechanism: a single user's gain from each rule over truthful when everyone else is truthful."""
    cfg = an.config
    rows = [
        [a.mechanism, a.truthful_is_equilibrium]
        + [_ci(a.truthful_gains[s], 4, sign=True) for s in cfg.names if s in a.truthful_gains]
        + [str(len(a.seeds))]
        for a in an.answers
    ]
    headers = (
        ["mechanism", "truthful is an equilibrium"]
        + [s for s in cfg.names if s != cfg.names[cfg.truthful_index]]
        + ["seeds"]
    )
    return [
        "## Truthful bidding: a single user's gain from each rule when everyone else is truthful",
        "",
        f"Mean over seeds with a {_level(an.runs)} Student-t CI of the paired gains ({utility_unit(an)}). The verdict "
        "is not read from these intervals: all-truthful's regret is its largest gain, and *no* needs that regret's "
        "lower bound, at the level divided by the number of rules, above the tolerance (the methods below), so a rule "
        "whose interval here lies above zero, or above the tolerance, can leave the verdict *undecided*.",
        "",
        md_table(headers, rows),
    ]


def _equilibria_section(an, exploration=None) -> list[str]:
    """Per mechanism: the consumers' equilibria over the study's menu, verified, with stability, revenue and welfare
    (labelled a comparison where an exploration ran: its equilibria are the answer)."""
    rows = []
    for a in an.answers:
        if not a.equilibria:
            rows.append([a.mechanism, "none found: " + "; ".join(a.notes), "", "", "", "", ""])
        for e in a.equilibria:
            rows.append(
                [
                    a.mechanism,
                    mixture_words(e.mixture),
                    _ci(e.regret, 3),
                    e.verified,
                    e.stability,
                    _ci(e.revenue, 4),
                    _ci(e.welfare, 4),
                ]
            )
    headers = ["mechanism", "equilibrium mixture", "regret [CI]", "verified", "stability", "revenue", "welfare"]
    title = "## The consumers' equilibria per mechanism"
    note = [f"_{a.mechanism}: {n}._" for a in an.answers if a.equilibria for n in a.notes]
    note += [""] * bool(note)
    if exploration is not None:
        title = "## The consumers' equilibria over the study's menu only (a comparison)"
        note = [COMPARISON, "", *note]
    return ["", title, "", *note, md_table(headers, rows), *_concepts_lines(an.answers)]


def _concepts_lines(answers) -> list[str]:
    """Beside each mechanism's equilibria: the one the logit QRE selects and alpha-rank's first profiles of its reduced
    game, and whether they agree (:func:`gamemarket.reports.concepts.concepts_summary`)."""
    lines = [
        a.mechanism + ": " + concepts_summary(a.game, [np.asarray(e.mixture_vector) for e in a.equilibria])["words"]
        for a in answers
        if a.game is not None
    ]
    return (
        ["", "Other solution concepts, on each mechanism's reduced game:", "", *(f"- {line}" for line in lines)]
        if lines
        else []
    )


def _provider_section(an, answer: list, exploration=None) -> list[str]:
    """The provider's choice over the answer's equilibria: as a leader (the ranking), and in simultaneous equilibria
    with a pure provider (the exploration's where one ran)."""
    provider = exploration.provider if exploration is not None else an.provider
    where = (
        "the explored equilibria (revenue in the base runs on the certificates' first fresh seeds)"
        if exploration is not None
        else "the study's equilibria (rejected candidates left out)"
    )
    md = ["", "## The provider's choice", ""]
    rank = {r.mechanism: r for r in answer}
    # a mechanism the exploration did not answer (its budget ran out) is in the table as unknown, not left out:
    # the choice is among the answered ones only (hunt 15: it dropped out, and another became "the choice")
    unknown = [r for r in answer if r.unanswered]
    earlier = [r for r in answer if r.fallback]
    if provider.ranking:
        md += [
            "Leader and followers: the provider picks the mechanism, the consumers answer with an equilibrium "
            f"(the worst one for the provider where there are several), over {where}"
            + (
                f"; the choice is among the answered mechanisms only ({', '.join(r.mechanism for r in unknown)}: not "
                "answered, the exploration's budget ran out)"
                if unknown
                else ""
            )
            + "".join(f"; {r.mechanism}'s equilibria are {r.fallback}" for r in earlier)
            + (
                ". Mechanisms of the same worst revenue (equal but for floating-point rounding) tie, and share a rank."
                if any(r.tied for r in answer)
                else "."
            ),
            "",
            md_table(
                ["mechanism", "consumer equilibria", "revenue (worst)", "revenue (best)", "rank"],
                [
                    [
                        r.mechanism,
                        str(r.equilibria),
                        num(r.worst_revenue),
                        num(r.best_revenue),
                        _rank_words(rank[r.mechanism]),
                    ]
                    for r in provider.ranking
                ]
                + [[r.mechanism, "not answered", "unknown", "unknown", "unknown"] for r in unknown],
            ),
        ]
    else:  # an empty heading said nothing (hunt 9): none, and why
        md += [
            f"Leader and followers: none; no mechanism has an equilibrium among {where}, so the provider has no "
            "consumer answer to anticipate"
            + (
                f" ({', '.join(r.mechanism for r in unknown)}: not answered, the exploration's budget ran out)."
                if unknown
                else "."
            )
        ]
    sim = provider.simultaneous
    md += [
        "",
        "Simultaneous equilibria with a pure provider strategy (the mechanism is a revenue best response to "
        "the consumers' equilibrium mixture, every mechanism simulated at that mixture"
        + (
            f" on the study's {counted(len(an.spec.seeds), 'seed')}, which the tables above may have added to: "
            "their revenue at the same mixture can differ"
            if exploration is None and isinstance(an.spec.seeds, (list, tuple))
            else ""
        )
        + "): "
        + (
            "; ".join(f"{s.mechanism} with {mixture_words(s.mixture)} (revenue {num(s.revenue)})" for s in sim)
            if sim
            else "none"
        )
        + ".",
        "",
    ]
    return md


def _rank_words(r) -> str:
    """A mechanism's rank as a leader, "1 (tie)" where another shares it."""
    return f"{r.rank} (tie)" if r.tied else str(r.rank)


def _simulations_section(r) -> list[str]:
    """How many simulations the answers rest on, against a fixed design."""
    return [
        "## Simulations",
        "",
        f"{r.simulations:,} simulations (seeds per mechanism: "
        + ", ".join(f"{k} {v}" for k, v in r.seeds.items())
        + f"), against {r.fixed_design:,} for a fixed design with every mechanism at the largest seed count "
        "used. (How many ran in each call, and how long they took, is in the command's log.)",
        "",
    ]
