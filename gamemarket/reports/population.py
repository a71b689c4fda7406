"""The report of a population study: renders a ``PopulationAnalysis`` (it computes nothing new).

Sections: what the study answers (first paragraph, every number filled in from the analysis);
per mechanism, the consumers' equilibria (mixture, regret with its bootstrap CI, verdict,
stability, revenue and welfare) and each strategy's gain over truthful at the all-truthful
population; the provider's choice; the simulations used. Figures: truthful-deviation gains with
CIs, revenue at equilibrium, and the replicator flow on the simplex where a game has 3 strategies.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from gamemarket import __version__  # noqa: E402
from gamemarket.games.egta import to_tidy, write_egta  # noqa: E402
from gamemarket.games.io import write_json  # noqa: E402
from gamemarket.io.jobtable import write_table  # noqa: E402
from gamemarket.reports.drawing import save  # noqa: E402
from gamemarket.reports.report import _md_table, _to_html, claim_folder  # noqa: E402

UNIT = "bid x seconds per job"


def _mix(m: dict) -> str:
    return " + ".join(f"{p:.3g} {s}" for s, p in sorted(m.items(), key=lambda kv: -kv[1]))


def _joint_section(joint: dict) -> list[str]:
    """The provider-consumer game's simultaneous equilibria, provider mixtures included."""
    g = joint["game"]
    md = [
        "### Simultaneous equilibria with any provider mixture",
        "",
        f"The provider (one player, {g.num_strategies[0]} mechanisms) and the consumers ({g.players[1]} players "
        "after DPR) as one role-symmetric game: a consumer's payoff is its mechanism's reduced-game payoff, the "
        "provider's is its revenue per agent in the runs at the consumers' mixture "
        "(`data/game-provider-consumers.json`, EGTA format). Each equilibrium is then checked by runs at its "
        "consumer mixture under every mechanism: the consumers' regret against the provider's mixture and the "
        "provider's regret, with 95% bootstrap CIs over seeds, decided against the study's tolerance times "
        "each role's scale.",
        "",
    ]
    eqs = joint["equilibria"]
    if not eqs:
        md += ["None found. " + " ".join(joint["notes"]), ""]
        return md
    rows = [
        [
            _mix(e["provider"]),
            _mix(e["consumers"]),
            f"{e['reduced_regret']:.2g}",
            _ci(e["consumer_regret"], "{:.3g}"),
            _ci(e["provider_regret"], "{:.3g}"),
            e["verified"],
            e["stability"],
            f"{e['expected_revenue_per_agent']:.4g}",
        ]
        for e in eqs
    ]
    md.append(
        _md_table(
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
    mixed = sum(len(e["provider"]) > 1 for e in eqs)
    dom = joint["dominant"]
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
        f"{sum(e['verified'] == 'yes' for e in eqs)} confirmed by the runs at the candidate, "
        f"{sum(e['verified'] == 'no' for e in eqs)} rejected.",
        "",
    ]
    return md


def _ci(v, fmt="{:.4g}") -> str:
    m, lo, hi = v
    if not np.isfinite(lo):
        return fmt.format(m)
    return f"{fmt.format(m)} [{fmt.format(lo)}, {fmt.format(hi)}]"


def tables(an) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(equilibria, truthful gains) as tidy tables."""
    eq, gains = [], []
    for a in an.answers:
        for k, e in enumerate(a.equilibria):
            eq.append(
                {
                    "mechanism": a.mechanism,
                    "equilibrium": k + 1,
                    "mixture": _mix(e["mixture"]),
                    "reduced_regret": e["reduced_regret"],
                    "regret": e["regret"][0],
                    "regret_ci_low": e["regret"][1],
                    "regret_ci_high": e["regret"][2],
                    "verified": e["verified"],
                    "stability": e["stability"],
                    "revenue": e["revenue"][0],
                    "welfare": e["welfare"][0],
                    "mean_utility": e["mean_utility"],
                    "seeds": e["seeds"],
                }
            )
        for s, (m, lo, hi) in a.truthful_gains.items():
            gains.append(
                {"mechanism": a.mechanism, "strategy": s, "gain": m, "ci_low": lo, "ci_high": hi, "seeds": len(a.seeds)}
            )
    return pd.DataFrame(eq), pd.DataFrame(gains)


def first_paragraph(an) -> str:
    """What the study answers, in words, from the analysis."""
    cfg = an.config
    truth = cfg.names[cfg.truthful_index]
    yes = [a.mechanism for a in an.answers if a.truthful_is_equilibrium == "yes"]
    no = [a.mechanism for a in an.answers if a.truthful_is_equilibrium == "no"]
    und = [a.mechanism for a in an.answers if a.truthful_is_equilibrium == "undecided"]
    parts = [
        f"**What this answers.** Each of the {an.meta['jobs']:,} {'jobs' if cfg.agents == 'jobs' else 'users'}' "
        f"owners picks one of {len(cfg.names)} shading rules ({', '.join(cfg.names)}) to maximise its own utility, "
        f"given what everyone else does."
    ]
    if yes:
        parts.append(
            f"Truthful bidding ({truth}) is an equilibrium (no rule gains more than the tolerance over it, "
            f"at 95% confidence, when everyone else is truthful) under {', '.join(yes)}."
        )
    if no:
        best = {
            a.mechanism: max(a.truthful_gains.items(), key=lambda kv: kv[1][0]) for a in an.answers if a.mechanism in no
        }
        parts.append(
            "A single user gains significantly by shading when everyone else is truthful under "
            + "; ".join(f"{m} ({s}: {g[0]:+.4g} [{g[1]:+.4g}, {g[2]:+.4g}] {UNIT})" for m, (s, g) in best.items())
            + "."
        )
    if und:
        parts.append(
            f"Whether truthful bidding is an equilibrium stays undecided (a gain's CI straddles the tolerance) "
            f"under {', '.join(und)}, at up to {max(len(a.seeds) for a in an.answers)} seeds."
        )
    lead = an.provider.get("leader")
    if lead:
        r = an.provider["ranking"][0]
        parts.append(
            f"A provider that anticipates the consumers' equilibrium response earns most under {lead} "
            f"(revenue {r['worst_revenue']:.4g} at its worst consumer equilibrium)."
        )
    joint = an.provider.get("joint")
    if joint is not None:
        eqs = [e for e in joint["equilibria"] if e["verified"] != "no"]
        mixed = [e for e in eqs if len(e["provider"]) > 1]
        if not eqs:
            parts.append(
                "When provider and consumers move together, with the provider free to mix over mechanisms, "
                "no equilibrium survives the runs at the candidates."
            )
        else:
            parts.append(
                "When provider and consumers move together, with the provider free to mix over mechanisms, "
                f"{_count(len(eqs), 'equilibrium', 'equilibria')} {'survives' if len(eqs) == 1 else 'survive'} "
                "the runs at the candidates "
                f"({len(mixed)} with a mixed provider strategy): "
                + "; ".join(f"{_mix(e['provider'])} with {_mix(e['consumers'])}" for e in eqs[:3])
                + ("; ..." if len(eqs) > 3 else "")
                + "."
            )
    return " ".join(parts)


def _count(k: int, one: str, many: str) -> str:
    return f"{k} {one if k == 1 else many}"


def _gains_figure(gains: pd.DataFrame, path: Path) -> Path:
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
    ax.set_ylabel(f"gain over truthful ({UNIT})")
    ax.set_title("A single user's gain from shading when everyone else is truthful (95% CI over seeds)", fontsize=9)
    ax.legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def _revenue_figure(eq: pd.DataFrame, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(7, 3.6))
    labels = [f"{m} #{k}" for m, k in zip(eq["mechanism"], eq["equilibrium"])]
    colors = ["tab:green" if v == "yes" else ("tab:red" if v == "no" else "tab:gray") for v in eq["verified"]]
    ax.bar(np.arange(len(eq)), eq["revenue"], color=colors)
    ax.set_xticks(np.arange(len(eq)))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("provider revenue (bid x seconds)")
    ax.set_title("Revenue at each consumer equilibrium (green: verified, grey: undecided, red: rejected)", fontsize=9)
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
    return (
        f"The candidates come from every pure profile, replicator dynamics with polish, and Newton's method on "
        f"each of the {supports} supports' indifference systems from many starting points ({starts:,} starts over "
        f"the {len(recs)} mechanisms, {roots:,} distinct roots, {once} of them reached by a single start; "
        + (
            "every support's search ended with each root reached at least twice)."
            if still == 0
            else f"{still} supports were still finding new roots when their budget ran out)."
        )
        + " No method here proves that a game has no other equilibrium."
    )


def _flow_figure(answers, names, path: Path) -> Path:
    """Replicator flow of each mechanism's reduced game on the 2-simplex (3 strategies)."""
    n = len(answers)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.4), squeeze=False)
    corners = np.array([[0, 0], [1, 0], [0.5, np.sqrt(3) / 2]])
    for ax, a in zip(axes[0], answers):
        g = a.game
        pts, vec = [], []
        for i in range(1, 20):
            for j in range(1, 20 - i):
                x = np.array([i, j, 20 - i - j]) / 20.0
                dev = g.deviation_payoffs(x)
                dx = x * (dev - x @ dev)
                pts.append(x @ corners)
                vec.append(dx @ corners)
        pts, vec = np.array(pts), np.array(vec)
        norm = np.linalg.norm(vec, axis=1, keepdims=True)
        ax.quiver(
            pts[:, 0],
            pts[:, 1],
            vec[:, 0] / np.maximum(norm[:, 0], 1e-300),
            vec[:, 1] / np.maximum(norm[:, 0], 1e-300),
            np.log10(norm[:, 0] + 1e-300),
            cmap="viridis",
            scale=25,
            width=0.006,
        )
        ax.plot(*np.vstack([corners, corners[:1]]).T, color="black", lw=0.8)
        for c, s in zip(corners, names):
            ax.annotate(s, c, fontsize=7, ha="center", va="top" if c[1] == 0 else "bottom")
        for e in a.equilibria:
            p = np.asarray(e["mixture_vector"]) @ corners
            ax.plot(*p, "o", ms=8, mfc="black" if e["stability"] == "stable" else "white", mec="black")
        ax.set_title(a.mechanism, fontsize=9)
        ax.set_aspect("equal")
        ax.axis("off")
    fig.suptitle(
        "Replicator flow of the reduced game (arrows: direction; colour: log10 speed); "
        "filled: stable equilibrium, open: unstable",
        fontsize=8,
    )
    save(fig, path, dpi=110)
    return path


def write_population_report(an, out_dir: str | Path | None = None, *, force: bool = False) -> Path:
    """Render the analysis of a population study under ``out_dir`` (default: the study's report folder)."""
    spec = an.spec
    out = Path(out_dir) if out_dir else spec.report_dir
    claim_folder(out, spec, force)
    data = out / "data"
    data.mkdir(parents=True, exist_ok=True)
    eq, gains = tables(an)
    write_table(eq, data / "population-equilibria.csv")
    write_table(gains, data / "truthful-gains.csv")
    for a in an.answers:
        write_egta(a.game, data / f"game-{a.mechanism}.json")
        write_table(to_tidy(a.game), data / f"game-{a.mechanism}.csv")
    joint = an.provider.get("joint")
    if joint is not None:
        write_egta(joint["game"], data / "game-provider-consumers.json")
        write_table(to_tidy(joint["game"]), data / "game-provider-consumers.csv")
    write_json(
        data / "population.json",
        {
            "study": spec.name,
            "version": __version__,
            "meta": an.meta,
            "runs": an.runs,
            "provider": {k: v for k, v in an.provider.items() if k != "joint"}
            | ({"joint": {k: v for k, v in joint.items() if k != "game"}} if joint is not None else {}),
            "mechanisms": [
                {
                    "mechanism": a.mechanism,
                    "seeds": a.seeds,
                    "truthful_is_equilibrium": a.truthful_is_equilibrium,
                    "truthful_gains": a.truthful_gains,
                    "equilibria": a.equilibria,
                    "notes": a.notes,
                    "equilibrium_search": a.search,
                }
                for a in an.answers
            ],
        },
    )
    figs = [_gains_figure(gains, out / "fig-truthful-gains.png")] if len(gains) else []
    if len(eq):
        figs.append(_revenue_figure(eq, out / "fig-revenue-at-equilibrium.png"))
    if len(an.config.names) == 3:
        figs.append(_flow_figure(an.answers, an.config.names, out / "fig-replicator-flow.png"))
    cfg = an.config
    md = [
        f"# {spec.name}: population game",
        "",
        first_paragraph(an),
        "",
        f"_{spec.description}_",
        "",
        f"Workload: {Path(str(an.meta['workload'])).name} ({an.meta['jobs']:,} jobs, {an.meta['nodes']} nodes). "
        "Agents: "
        f"{cfg.agents}. Strategies (shading rules, a beta per private-bid class low/middle/high): "
        + "; ".join(f"{r.name} = {list(r.betas)}" for r in cfg.strategies)
        + ". "
        f"Utilities are in {UNIT}; revenue and welfare in bid x seconds.",
        "",
        "## How it is measured",
        "",
        f"Per mechanism, the consumers' game is reduced by deviation-preserving reduction to {cfg.reduced_players} "
        f"players ({an.meta['grid_mixtures']} population mixtures, each one simulation per seed, every strategy's "
        f"payoff from one run by probe slices of {cfg.probe:g} of the agents). A strategy's payoff is the mean "
        "utility of the agents that play it, less the same agents' utility in the all-truthful run of the same seed "
        "and mechanism, plus the mean truthful utility (a control variate; gains are same-job comparisons). "
        "The reduced game's equilibria (regret at most 1e-8 of its payoff scale) are candidates; each is then "
        "simulated at the candidate itself, and its regret is reported with a 95% bootstrap CI over seeds. "
        + _search_sentence(an.answers)
        + " "
        f"Verdict: *yes* when the CI's upper end is at most {cfg.regret_tol:g} of the mean absolute truthful "
        "utility, *no* when its lower end is above, else *undecided*. Stability is under the replicator dynamics "
        "of the reduced game.",
        "",
    ]
    md += [
        "## Truthful bidding: a single user's gain from each rule when everyone else is truthful",
        "",
        f"Mean over seeds with a 95% Student-t CI, paired by seed ({UNIT}).",
        "",
    ]
    rows = []
    for a in an.answers:
        rows.append(
            [a.mechanism, a.truthful_is_equilibrium]
            + [_ci(a.truthful_gains[s], "{:+.4g}") for s in cfg.names if s in a.truthful_gains]
            + [str(len(a.seeds))]
        )
    md.append(
        _md_table(
            ["mechanism", "truthful is an equilibrium"]
            + [s for s in cfg.names if s != cfg.names[cfg.truthful_index]]
            + ["seeds"],
            rows,
        )
    )
    md += ["", "## The consumers' equilibria per mechanism", ""]
    rows = []
    for a in an.answers:
        if not a.equilibria:
            rows.append([a.mechanism, "none found: " + "; ".join(a.notes), "", "", "", "", ""])
        for e in a.equilibria:
            rows.append(
                [
                    a.mechanism,
                    _mix(e["mixture"]),
                    _ci(e["regret"], "{:.3g}"),
                    e["verified"],
                    e["stability"],
                    _ci(e["revenue"], "{:.4g}"),
                    _ci(e["welfare"], "{:.4g}"),
                ]
            )
    md.append(
        _md_table(
            ["mechanism", "equilibrium mixture", "regret [95% CI]", "verified", "stability", "revenue", "welfare"], rows
        )
    )
    md += ["", "## The provider's choice", ""]
    if an.provider["ranking"]:
        md.append(
            "Leader and followers: the provider picks the mechanism, the consumers answer with an equilibrium "
            "(the worst one for the provider where there are several; rejected candidates left out)."
        )
        md.append("")
        md.append(
            _md_table(
                ["mechanism", "consumer equilibria", "revenue (worst)", "revenue (best)"],
                [
                    [r["mechanism"], str(r["equilibria"]), f"{r['worst_revenue']:.4g}", f"{r['best_revenue']:.4g}"]
                    for r in an.provider["ranking"]
                ],
            )
        )
    sim = an.provider["simultaneous"]
    md += [
        "",
        "Simultaneous equilibria with a pure provider strategy (the mechanism is a revenue best response to "
        "the consumers' equilibrium mixture, every mechanism simulated at that mixture): "
        + (
            "; ".join(f"{s['mechanism']} with {_mix(s['mixture'])} (revenue {s['revenue']:.4g})" for s in sim)
            if sim
            else "none"
        )
        + ".",
        "",
    ]
    if joint is not None:
        md += _joint_section(joint)
    r = an.runs
    md += [
        "## Simulations",
        "",
        f"{r['simulations']:,} simulations (seeds per mechanism: "
        + ", ".join(f"{k} {v}" for k, v in r["seeds"].items())
        + f"), against {r['fixed_design']:,} for a fixed design with every mechanism at the largest seed count "
        f"used; {r['run_now']:,} run in this invocation, {r['wall_seconds']:.1f} s in all.",
        "",
    ]
    for f in figs:
        md += [f"![{f.stem}]({f.name})", ""]
    md += [
        f"_gamemarket {__version__}; tables in `data/` (equilibria, truthful gains, each mechanism's reduced game "
        "as EGTA JSON and as a tidy CSV)._",
        "",
    ]
    text = "\n".join(md)
    (out / "report.md").write_text(text)
    (out / "index.html").write_text(_to_html(text, f"{spec.name}: population game"))
    return out / "report.md"
