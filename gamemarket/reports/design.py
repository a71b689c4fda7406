"""The report of a mechanism-design study: renders a ``DesignAnswer`` (it computes nothing new).

It leads with the chosen mechanism and its figures on fresh seeds (what users do there, how many stay, the
provider's regret bound), then shows each metric against each searched parameter at the consumers' equilibrium,
with 95% intervals over seeds, beside the study's fixed mechanisms at the same workload; then how it was measured.
Every number is read from the answer (``data/design.json`` holds all of it).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:  # a notebook keeps its own (inline) backend
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from gamemarket import __version__  # noqa: E402
from gamemarket.games.io import mixture_words, write_json  # noqa: E402
from gamemarket.io.jobtable import write_table  # noqa: E402
from gamemarket.reports.answer import study_utility_unit  # noqa: E402
from gamemarket.reports.drawing import save  # noqa: E402
from gamemarket.reports.markdown import md_table, num, num_ci, report_pages  # noqa: E402
from gamemarket.reports.report import claim_folder, figure_lines, workload_words, write_text  # noqa: E402
from gamemarket.search.design import polish_size, start_size  # noqa: E402
from gamemarket.studies.design_config import resolution  # noqa: E402

#: how each metric is named in the report, and its unit
LABELS = {
    "revenue": ("revenue", "bid x seconds"),
    "welfare": ("welfare of the jobs that stay", "bid x seconds"),
    "welfare_all": ("welfare of everyone", "bid x seconds"),
    "stay": ("share of jobs that stay", "share"),
    "utilization": ("utilization", "share"),
}
HOW_TO_READ = {
    "fig-design.png": "Each panel: one metric at the consumers' equilibrium (the provider's worst) against one "
    "searched parameter; each dot is a design the search evaluated (colour: scheduler), its bar the 95% Student-t "
    "interval over the search seeds; hollow dots: infeasible (no equilibrium found, or a constraint missed); the "
    "star: the chosen design; grey lines: the study's fixed mechanisms at the same workload.",
    "fig-design-compare.png": "The provider's objective on the fresh seeds, with 95% intervals: the chosen design, the "
    "other contenders, and the study's fixed mechanisms at their equilibria.",
}


def points_table(ans) -> pd.DataFrame:
    """One row per mechanism evaluated (the design's points, then the fixed ones): parameters, equilibrium, verdict,
    the objective and every metric (mean and 95% interval over the search seeds), feasibility."""
    out = []
    for p in ans.points + ans.compare:
        row = {
            "provider": p.provider,
            "scheduler": p.scheduler,
            "payment": p.params.get("payment"),
            "reserve": p.params.get("reserve"),
            "blend": p.params.get("blend"),
            "source": p.source,
            "order": p.order,
            "equilibrium": play_words(p),
            "verified": p.verified,
            "feasible": p.feasible,
        }
        obj = p.objective if p.objective_seeds else (np.nan,) * 3
        row.update(objective=obj[0], objective_low=obj[1], objective_high=obj[2])
        for m in ans.metrics:
            v = p.figures.get(m, (np.nan,) * 3)
            row.update({m: v[0], f"{m}_low": v[1], f"{m}_high": v[2]})
        out.append(row)
    return pd.DataFrame(out)


def write_design_report(ans, spec, out_dir: str | Path | None = None, *, force: bool = False) -> Path:
    """Render a :class:`~gamemarket.search.design.DesignAnswer` under ``out_dir`` (default: the study's report
    folder): ``report.md``, ``index.html``, ``data/design.json``, ``data/design-points.csv`` and the figures."""
    out = claim_folder(Path(out_dir) if out_dir else spec.report_dir, spec, force)
    with out:  # a report that fails or is stopped gives its folder back as it was
        table = points_table(ans)
        write_json(out.file("data/design.json"), {"gamemarket": __version__, **ans.to_dict()})
        write_table(table, out.file("data/design-points.csv"))
        figs = [_parameter_figure(ans, spec, out.file("fig-design.png"))]
        if ans.confirmations:
            figs.append(_compare_figure(ans, out.file("fig-design-compare.png")))
        md = _lead(ans, spec) + _compare_section(ans) + _points_section(ans, table) + _method_section(ans, spec)
        for f in figs:
            md += [figure_lines(f.stem, f.name, HOW_TO_READ[f.name])]
        md += [
            f"_gamemarket {__version__}; every figure above is in `data/design.json` and `data/design-points.csv`._",
            "",
        ]
        text, page = report_pages("\n".join(md), f"{spec.name}: mechanism design")
        md_path = out.file("report.md")
        write_text(md_path, text)
        write_text(out.file("index.html"), page)
        out.finish()
        return out.final(md_path)


def play_words(p) -> str:
    """What users play at a design point's equilibrium, in words: its mixture, and each class of payoff-equivalent
    rules merged into a played one (``DesignPoint.classes``): ``"1 truthful (or shade-high-0.9, in any mix with
    truthful: they pay whoever plays them the same)"``; "none found" where there is no equilibrium."""
    if not p.equilibrium:
        return "none found"
    words = mixture_words(p.equilibrium)
    for rule, c in (getattr(p, "classes", None) or {}).items():
        others = " or ".join(c["with"])
        if c["any_mix"]:
            words += f" (or {others}, in any mix with {rule}: they pay whoever plays them the same)"
        else:
            words += f" ({others} pays as {rule} does, but not every split of its share with {rule} is an equilibrium)"
    return words


def _objective_words(config: dict) -> str:
    terms = [f"{w:g} x {LABELS[m][0]}" if w != 1 else LABELS[m][0] for m, w in config["objective"].items()]
    text = " + ".join(terms)
    if config["constraint"]:
        text += " subject to " + ", ".join(f"{LABELS[m][0]} >= {v:g}" for m, v in config["constraint"].items())
    return text


def _mechanism_words(p) -> str:
    pay = p.params.get("payment")
    blend = p.params.get("blend")
    what = {"first": "first price", "kth": "k-th price"}.get(pay, pay)
    if blend is not None:
        what = f"a payment blend alpha = {num(blend, 4)} (0: k-th price, 1: first price)"
    return f"scheduler {p.scheduler}, {what}, reserve r = {num(p.params.get('reserve'), 5)} per node-second"


def _fixed_feasible(ans) -> str:
    """Where no design is chosen, the study's fixed mechanisms that meet the constraints at their equilibrium on the
    search's seeds, said beside it (hunt 28a-W1: "No design is chosen" alone, while the table below it showed two
    fixed mechanisms feasible: a provider reading the answer was told there was nothing to do)."""
    fresh = getattr(ans, "confirmations", {}) or {}
    # as the table below reads them: on the fresh seeds where they were confirmed there (hunt 29a-W2), else the search's
    ok = [q.provider for q in ans.compare if (fresh[q.provider] if q.provider in fresh else q).feasible]
    if not ok:
        return ""
    seeds = "fresh seeds" if all(n in fresh for n in ok) else "the search's seeds"
    return (
        f" Of the study's fixed mechanisms, {', '.join(f'`{n}`' for n in ok)} "
        f"meet{'s' * (len(ok) == 1)} the constraints at {'its' if len(ok) == 1 else 'their'} equilibrium on {seeds} "
        "(the table below)."
    )


def _lead(ans, spec) -> list[str]:
    md = [f"# {spec.name}: mechanism design", ""]
    if ans.chosen is None:
        md += ["**No design is chosen:** " + notes_text(ans.notes) + _fixed_feasible(ans), ""]
        return md
    p = ans.point(ans.chosen)
    c = ans.confirmations[ans.chosen]
    obj = c.objective
    figs = c.figures
    stay = figs.get("stay")
    rev = figs["revenue"]
    head = f"**The provider should set {_mechanism_words(p)}** (`{p.provider}`)."
    count = f"the {p.equilibria} equilibri{'um' if p.equilibria == 1 else 'a'} not rejected"
    if p.classes:
        count += ", rules that pay whoever plays them the same counted as one"
    who = "users (each user a player, all of its jobs)" if spec.population.agents == "users" else "users"
    users = (  # (hunt 22a-W4: a design of users said neither who plays nor epsilon's unit, per user there)
        f"There {who} play {play_words(p)}: the worst for the provider of {count} (verdict *{p.verified}*, epsilon "
        f"{num(p.epsilon)} against the tolerance {num(p.tolerance)}, {study_utility_unit(spec)})"
    )
    if stay is not None:
        users += f", and {num(100 * stay[0], 3)}% of the jobs stay [{num(100 * stay[1], 3)}, {num(100 * stay[2], 3)}]"
    if p.explored:
        users += (
            f"; over the whole {_family(spec)} family (explored at this point, "
            + (
                f"warm-started from `{p.explored['warm_start']}`"
                if p.explored["warm_start"]
                else "from the study's menu"
            )
            + f"): {_certificate(p.explored)}"
        )
    elif ans.config.get("explore"):  # a stored answer or a mechanism the exploration skipped: said, not implied
        users += "; its users' answer is over the study's menu only (not explored, unlike the designs beside it)"
    sure = (
        f"On {len(c.seeds)} fresh seeds its objective ({_objective_words(ans.config)}) is "
        f"{num_ci(*obj, sign=False)} and its revenue {num_ci(*rev, sign=False)} bid x seconds (95% intervals). "
        + _sure(ans)
    )
    # the fixed mechanisms and designs beside the chosen one that meet the constraints on the fresh seeds, as the
    # choice reads them (hunt 23a-F1: an infeasible fixed mechanism "reaching 0" above the chosen design's objective)
    fixed = [q for q in ans.compare if q.provider in ans.confirmations and q.provider != ans.chosen]
    found = [q for q in ans.points if q.provider in ans.confirmations and q.provider != ans.chosen]
    versus = ""
    for words, among in (
        ("The best of the study's fixed mechanisms", fixed),
        ("The best design the search found", found if p.source == "compare" else []),
    ):
        ok = [q for q in among if ans.confirmations[q.provider].feasible]
        if ok:
            # (by name first: of two that tie, the one _choose would name; hunt 22b-W7)
            q = max(sorted(ok, key=lambda q: q.provider), key=lambda q: ans.confirmations[q.provider].objective[0])
            bf = ans.confirmations[q.provider].objective
            versus += f" {words} that meet{'s' * (len(ok) == 1)} the constraints on the same seeds"
            versus += f", `{q.provider}`, reaches {num_ci(*bf, sign=False)}."
        missed = [q.provider for q in among if not ans.confirmations[q.provider].feasible]
        if missed:
            versus += (
                f" {', '.join(f'`{n}`' for n in missed)} miss{'es' * (len(missed) == 1)} the constraints there, "
                "whatever " + ("its" if len(missed) == 1 else "their") + " objective."
            )
    md += [head + " " + users + ". " + sure + versus, ""]
    md += [f"_{spec.description}_", ""] if spec.description else []
    md += [
        f"Workload: {workload_words(ans.workload)} ({ans.workload.get('jobs', 0):,} jobs, "
        f"{ans.workload.get('nodes')} nodes). Outside option: "
        + (
            f"{num(ans.outside_price)} per node-second with no wait"
            if ans.outside_price is not None
            else "none (no job can leave)"
        )
        + f". The consumers' menu: {', '.join(r.name for r in spec.population.strategies)}.",
        "",
    ]
    if ans.notes:
        md += ["_" + notes_text(ans.notes) + "_", ""]
    return md


def _sure(ans) -> str:
    """How sure the choice is: the provider's regret bound in words, and the mechanisms compared with the chosen one on
    a single seed, against which no 95% bound is claimed (``DesignAnswer.regret_unbounded``)."""
    n = f"{len(ans.points)} designs evaluated"
    lone = list(getattr(ans, "regret_unbounded", None) or [])
    one_seed = (
        f"{len(lone)} {'mechanism was' if len(lone) == 1 else 'mechanisms were'} compared with it on one seed only "
        f"({', '.join(f'`{k}`' for k in lone)}): no interval, so no bound against "
        + ("it" if len(lone) == 1 else "them")
    )
    if ans.regret_upper is None:
        if lone:
            return f"How sure: no 95% bound: {one_seed} ({n})."
        return f"How sure: no other feasible design was evaluated ({n})."
    rest = f"; {one_seed}" if lone else ""
    who = "no other mechanism compared with it on two seeds or more" if lone else "no design the search evaluated"
    if ans.regret_upper <= 0:
        return (
            f"How sure: {who} beats it at 95% (the provider's regret bound is 0: the largest "
            f"one-sided upper bound on what another evaluated design gains over it is {num(ans.regret_upper)}, by "
            f"`{ans.regret_against}`; {n}{rest})."
        )
    return (
        f"How sure: {who} beats it by more than {num(ans.regret_bound)} in the objective at "
        f"95% (the provider's regret bound, attained against `{ans.regret_against}`; {n}{rest})."
    )


def notes_text(notes: list) -> str:
    """An answer's notes as sentences, each on its own: its first letter capitalised and a full stop at its end
    (hunt 15: joined by a space they read as one run-on clause)."""
    out = []
    for note in notes:
        note = note.strip()
        if not note:
            continue
        first = note.split()[0]
        if first.isalpha() and first.islower():  # a word, not a mechanism's name (``hb-first``) or a number
            note = note[0].upper() + note[1:]
        out.append(note if note.endswith((".", "!", "?")) else note + ".")
    return " ".join(out)


def _family(spec) -> str:
    return str((spec.exploration or {}).get("family", "?"))


def _certificate(x: dict | None) -> str:
    """An exploration's verdict at a point, in words."""
    if not x:
        return "-"
    eps = "-" if x["epsilon"] is None else num(x["epsilon"])
    verdict = "certified" if x["certified"] else "not certified"
    added = f", {len(x['added'])} rule(s) added" if x["added"] else ""
    # why it stopped, where that is the budget (hunt 15, W4): "not certified" alone read as a verdict on the rules
    why = f"; {x['reason']}" if not x["certified"] and "budget" in str(x.get("reason") or "") else ""
    return f"{verdict} (epsilon {eps}, tolerance {num(x['tolerance'])}{added}{why})"


def _compare_section(ans) -> list[str]:
    title = "The chosen design beside" if ans.chosen is not None else "The contenders (none chosen) beside"
    md = [f"## {title} the study's mechanisms, on fresh seeds", ""]
    rows = []
    explored = bool(ans.config.get("explore"))
    for name, c in sorted(ans.confirmations.items(), key=lambda kv: -kv[1].objective[0]):
        p = ans.point(name)
        f = c.figures
        rows.append(
            [
                f"**{name}**" if name == ans.chosen else name,
                "design" if p.order >= 0 else "fixed",
                play_words(p)
                + (f"; family: {_certificate(p.explored) if p.explored else 'not explored'}" if explored else ""),
                num_ci(*c.objective, sign=False),
                *[num_ci(*f[m], sign=False) for m in ans.metrics],
                "yes" if c.feasible else "no",
            ]
        )
    play = "users play" + (" (over the grown menu; the family's certificate)" if explored else "")
    headers = ["mechanism", "kind", play, "objective"] + [LABELS[m][0] for m in ans.metrics] + ["feasible"]
    md += [md_table(headers, rows), ""]
    missing = [p.provider for p in ans.compare if p.provider not in ans.confirmations]
    if missing:
        md += [f"No equilibrium was found for {', '.join(missing)}: not confirmed.", ""]
    return md


def _points_section(ans, table: pd.DataFrame) -> list[str]:
    md = ["## Every design the search evaluated", ""]
    md += [
        "At the consumers' equilibrium worst for the provider, on the search seeds (mean and 95% interval); in the "
        "order the optimiser asked for them, per scheduler.",
        "",
    ]
    explored = any(p.explored for p in ans.points)
    rows = []
    for _, r in table[table["order"] >= 0].iterrows():
        p = ans.point(r["provider"])
        rows.append(
            [
                r["provider"],
                r["equilibrium"],
                r["verified"] + (f"; family: {_certificate(p.explored)}" if explored else ""),
                num_ci(r["objective"], r["objective_low"], r["objective_high"], sign=False),
                *[num_ci(r[m], r[f"{m}_low"], r[f"{m}_high"], sign=False) for m in ans.metrics if m != "utilization"],
                "yes" if r["feasible"] else "no",
            ]
        )
    headers = ["design", "users play", "verdict" + (" (menu; family)" if explored else ""), "objective"]
    headers += [LABELS[m][0] for m in ans.metrics if m != "utilization"] + ["feasible"]
    md += [md_table(headers, rows), ""]
    return md


def _method_section(ans, spec) -> list[str]:
    """How it was measured: every count is what the answer holds (points evaluated, designs and fixed mechanisms
    confirmed, mechanisms in the regret bound), never the configuration's caps (hunt 15: "the best 5 feasible designs"
    of a run that confirmed 4, and of one where none was feasible)."""
    cfg = ans.config
    # the ranges as given, every digit (hunt 23c-W2: [123.456, 123.457] printed to 4 digits read [123.5, 123.5])
    box = ", ".join(
        f"{k} in [{float(v[0]):.15g}, {float(v[1]):.15g}]"
        for k, v in (("reserve", cfg["reserve"]), ("blend", cfg.get("blend")))
        if isinstance(v, list)
    )  # fmt: skip
    fixed = ", ".join(
        f"{k} = {num(v)}" for k, v in (("reserve", cfg["reserve"]), ("blend", cfg.get("blend")))
        if v is not None and not isinstance(v, list)
    )  # fmt: skip
    seeds = len(ans.points[0].seeds) if ans.points else len(spec.seeds)
    return [
        "## How it is measured",
        "",
        f"The family: schedulers {', '.join(cfg['schedulers'])}, payment {cfg['payment']}; searched: {box}"
        + (f"; fixed: {fixed}" if fixed else "")
        + f". The provider maximises {_objective_words(cfg)}. "
        + _search_words(ans)
        + " At each point the consumers' "
        f"answer is the population game's over the menu (DPR to {spec.population.reduced_players} players on "
        f"{seeds} seed{'s' if seeds != 1 else ''}, its candidates verified by paired runs, as a population study "
        "does); the objective is read at the equilibrium worst for the provider among those not rejected (the one of "
        "least mean objective), with its value on each seed. "
        + _confirm_words(ans).strip()
        + " "
        + _explore_words(ans).strip(),
        "",
        f"{ans.simulations:,} simulations in all.",
        "",
    ]


def _search_words(ans) -> str:
    """What the optimiser did per scheduler, counted from the points it evaluated."""
    cfg = ans.config
    names = [k for k in ("reserve", "blend") if isinstance(cfg.get(k), list)]
    counts = {s: [p for p in ans.points if p.scheduler == s] for s in cfg["schedulers"]}
    each = ", ".join(f"{len(v)} for {s}" for s, v in counts.items()) if len(counts) > 1 else ""
    total = sum(len(v) for v in counts.values())
    if cfg["optimiser"] == "grid":
        sides = " x ".join(
            f"{len({p.params.get(k) for p in next(iter(counts.values()), [])})} {k} values" for k in names
        )
        steps = " and ".join(f"{num(resolution(*cfg[k]))} ({k})" for k in names)
        return (
            f"Per scheduler, a regular grid of {sides} (the ends of the ranges included; the largest such grid within "
            f"the budget of {cfg['budget']} points; each value rounded to a multiple of {steps}, the search's "
            f"resolution) was evaluated exhaustively: {total} "
            + ("point" if total == 1 else "points")
            + (f" ({each})" if each else "")
            + ". Infeasible points (no equilibrium, or a constraint's mean missed) are never chosen."
        )
    opt = {
        "gp": "Bayesian optimisation with a Gaussian process (Matern 5/2 kernel plus a fitted noise term; "
        "bayesian-optimization, upper confidence bound)",
        "tpe": "optuna's tree-structured Parzen estimator (seeded)",
    }[cfg["optimiser"]]
    told = "the GP is told them below the worst feasible value" if cfg["optimiser"] == "gp" else "TPE as failed trials"
    local = polish_size(cfg["budget"])
    polish = (
        f", and up to {local} of them a line search per parameter from the best feasible point"
        if local
        else ", with no line search (a budget below 8)"
    )
    return (
        f"Per scheduler, {opt} was given a budget of {cfg['budget']} proposals, the first "
        f"{start_size(len(names), cfg['budget'])} a Latin hypercube (seed {cfg['seed']}){polish}; "
        f"{total} distinct point{'s were' if total != 1 else ' was'} evaluated"
        + (f" ({each})" if each else "")
        + " (a point proposed again is not run again). Infeasible points (no equilibrium, or a constraint's mean "
        f"missed) are never taken for good ones ({told})."
    )


def _confirm_words(ans) -> str:
    """Which mechanisms were run on the fresh seeds, how the choice was made among them, and the regret bound over
    them, counted from the answer; nothing about a choice where none was made."""
    fresh = next(iter(ans.confirmations.values())).seeds if ans.confirmations else []
    on = f"on {len(fresh)} fresh seed{'s' if len(fresh) != 1 else ''} ({', '.join(map(str, fresh))})"
    feasible = [p for p in ans.points if p.feasible]
    found = [p for p in ans.points if p.provider in ans.confirmations]
    fixed = [q.provider for q in ans.compare if q.provider in ans.confirmations]
    fixed_words = f"the study's fixed mechanism{'s' if len(fixed) != 1 else ''} {', '.join(fixed)}"
    if not found:
        return "No design was feasible on the search seeds, so none was confirmed and none is chosen" + (
            f"; {fixed_words} {'was run at its' if len(fixed) == 1 else 'were run at their'} equilibri"
            f"{'um' if len(fixed) == 1 else 'a'} {on}. "
            if fixed
            else ". "
        )
    which = (
        f"The {'only' if len(found) == 1 else f'{len(found)}'} feasible design{'s' if len(found) != 1 else ''}"
        if len(found) == len(feasible)
        else f"The best {len(found)} of the {len(feasible)} feasible designs"
    )
    text = which + (f" and {fixed_words}" if fixed else "") + f" were then run at their equilibria {on}; "
    if ans.chosen is None:
        return text + "none met the constraints there, so none is chosen. "
    text += "the chosen mechanism is the one of best mean objective there that meets the constraints" + (
        " (a fixed mechanism only where it beats every design found). " if fixed else ". "
    )
    return text + _bound_words(ans, found, fixed)


def _bound_words(ans, found: list, fixed: list) -> str:
    """How the provider's regret bound was computed, with the number of mechanisms it covers."""
    feasible_fixed = {q.provider for q in ans.compare if q.feasible}  # (as the bound counts them: hunt 23a-F1)
    others = [p for p in ans.points if p.feasible and p.provider != ans.chosen] + [
        f for f in fixed if f != ans.chosen and f in feasible_fixed
    ]
    lone = list(getattr(ans, "regret_unbounded", None) or [])
    bounded = len(others) - len(lone)
    if not others:
        return "No other feasible mechanism was evaluated, so the provider's regret bound is 0."
    text = (
        "The provider's regret bound is the largest one-sided 95% Student-t upper bound, over the "
        f"{bounded} other feasible mechanism{'s' if bounded != 1 else ''} evaluated on two seeds or more, on its "
        "objective less the chosen one's, paired by seed (on the fresh seeds for those run there, on the search seeds "
        f"for the rest; Bonferroni over the {bounded})"
    )
    if lone:
        text += (
            f"; {len(lone)} {'was' if len(lone) == 1 else 'were'} compared with the chosen one on one seed only, "
            "which gives no interval, so no bound is claimed against " + ("it" if len(lone) == 1 else "them")
        )
    return text + (
        ". It covers the designs the search evaluated, not every point of the family; it is somewhat optimistic, "
        "since the chosen design is picked on the fresh seeds the bound uses, and the designs that were not run "
        "there were ranked below those that were on the very search seeds their bound uses."
    )


def _explore_words(ans) -> str:
    """What the exploration did, read from the points: at the designs, and at the fixed mechanisms where it ran."""
    if not ans.config.get("explore"):
        return (
            " The users' answer at each point is over the study's menu: a rule outside it may do better there "
            "(the design did not explore at each point)."
        )
    fixed = [q.provider for q in ans.compare if q.explored]
    skipped = [q.provider for q in ans.compare if not q.explored]
    text = (
        f" At each of the {sum(1 for p in ans.points if p.explored)} design points"
        + (f" and at the fixed mechanism{'s' if len(fixed) != 1 else ''} {', '.join(fixed)}" if fixed else "")
        + ", the study's exploration first grew the menu over its family (its own budget and fresh seeds), starting "
        "from the grown menu of the nearest point already explored (coordinates scaled to the box; a fixed "
        "mechanism's payment as its blend: k-th price 0, first price 1), and the users' answer was then read over "
        "the grown menu"
    )
    if fixed and not skipped:
        text += ": whichever mechanism is chosen, its users' answer was explored the same way."
    else:
        text += "."
    if skipped:
        text += (
            f" The fixed mechanism{'s' if len(skipped) != 1 else ''} {', '.join(skipped)} "
            f"{'is' if len(skipped) == 1 else 'are'} answered over the study's menu only, not explored: beside the "
            "design a comparison over the menu."
        )
    return text


def _parameter_figure(ans, spec, path: Path) -> Path:
    box = [k for k in ("reserve", "blend") if isinstance(ans.config.get(k), list)]
    metrics = [m for m in ("revenue", "welfare", "welfare_all", "stay") if m in ans.metrics]
    fig, axes = plt.subplots(len(metrics), len(box), figsize=(5.2 * len(box), 2.6 * len(metrics)), squeeze=False)
    colours = dict(zip(ans.config["schedulers"], plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for i, m in enumerate(metrics):
        for j, k in enumerate(box):
            ax = axes[i][j]
            for p in ans.points:
                if m not in p.per_seed:
                    continue
                mean, lo, hi = p.figures[m]
                x = p.params[k]
                kw = {"color": colours.get(p.scheduler, "C0")}
                ax.errorbar([x], [mean], yerr=[[mean - lo], [hi - mean]] if np.isfinite(lo) else None, fmt="none", **kw)
                ax.plot([x], [mean], "o", mfc=kw["color"] if p.feasible else "none", **kw)
                if p.provider == ans.chosen:
                    ax.plot([x], [mean], "*", ms=14, color="black", zorder=5)
            for q in ans.compare:
                if m in q.per_seed:
                    ax.axhline(q.figures[m][0], color="0.7", lw=0.8, zorder=0)
            ax.set_xlabel(k)
            ax.set_ylabel(LABELS[m][0], fontsize=9)
            # few ticks: a narrow range's long labels overlapped at matplotlib's default count (hunt 22a-W8:
            # blend over [0.9996, 1.0])
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=s) for s, c in colours.items()]
    axes[0][0].legend(handles=handles, fontsize=8, title="scheduler", title_fontsize=8)
    fig.tight_layout()
    return save(fig, path)


def _compare_figure(ans, path: Path) -> Path:
    items = sorted(ans.confirmations.items(), key=lambda kv: kv[1].objective[0])
    fig, ax = plt.subplots(figsize=(7, 0.42 * len(items) + 1.2))
    for k, (name, c) in enumerate(items):
        mean, lo, hi = c.objective
        colour = "black" if name == ans.chosen else ("C0" if ans.point(name).order >= 0 else "0.55")
        ax.errorbar([mean], [k], xerr=[[mean - lo], [hi - mean]] if np.isfinite(lo) else None, fmt="o", color=colour)
    ax.set_yticks(range(len(items)), [n for n, _ in items], fontsize=8)
    ax.set_xlabel("objective on the fresh seeds")
    fig.tight_layout()
    return save(fig, path)
