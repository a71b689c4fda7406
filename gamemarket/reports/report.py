"""Assemble a study's report: ``index.html`` and ``report.md`` with the same content, figures, CSVs."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from gamemarket import __version__
from gamemarket.analysis.claims import claims_csv, hb_pair
from gamemarket.analysis.incentives import measured_ways
from gamemarket.analysis.study import SolvedGame, StudyAnalysis, export, slug, unconverged_note
from gamemarket.bids import BID_CLASSES
from gamemarket.errors import InputError
from gamemarket.games.io import profile_words
from gamemarket.io.files import OutputFolder, atomic_path, legacy_report_files, remove_stale_temps
from gamemarket.io.limits import MIN_RESAMPLES
from gamemarket.io.names import workload_name
from gamemarket.market.base import MARKETS, market_for
from gamemarket.market.payoffs import unit
from gamemarket.reports import discussion, figures
from gamemarket.reports.claims import claims_section, unmeasured_companions, write_csv
from gamemarket.reports.concepts import concepts_summary
from gamemarket.reports.markdown import coarse_bootstrap, counted, md_table, num, num_ci, report_pages
from gamemarket.search.exploration import read_stored_exploration
from gamemarket.search.population import same_revenue
from gamemarket.studies import load_study
from gamemarket.workers import fan_out


def claim_folder(out: Path, spec, force: bool = False) -> OutputFolder:
    """The report folder of ``spec``, claimed as its output (``gamemarket.io.files.OutputFolder``): a
    folder gamemarket did not make, or another study's (a copied study file that kept its name), is refused
    unless ``force``; the study's inputs are never written over; what a killed report left half-written is
    cleared. The owner is the study file relative to the folder: the same in every clone of a repository."""
    out = Path(out)
    me = os.path.relpath(spec.path, out.resolve()) if spec.path else spec.name
    folder = OutputFolder(
        out,
        owner=me,
        what="report folder",
        force=force,
        inputs=spec.inputs(),
        legacy=legacy_report_files(me),
        staged=True,  # its files land together at finish(): a stopped report leaves the last one whole
        exclusive=True,  # held to finish(): another study writing this folder at once is refused (hunt 15)
    )
    remove_stale_temps(out)
    return folder


#: control characters a report's text drops (all but tab and line ends): a study's description holding a NUL wrote
#: it into report.md, which grep then called a binary file (hunt 18b-W5); C1 controls; and the bidirectional
#: embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069), which show the text after them reversed or
#: moved (a description's U+202E made "txt.exe" read "exe.txt" in report.md and index.html, hunt 35a-W3). The
#: marks (U+200E, U+200F) that right-to-left text needs stay; the line and paragraph separators (U+2028, U+2029) go.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]")


def write_text(path: Path, text: str, what: str = "report") -> None:
    """Write a report's text file atomically, without control characters (:data:`CONTROL`)."""
    with atomic_path(path, what) as tmp:
        tmp.write_text(CONTROL.sub("", text), encoding="utf-8")


class FigureJobs:
    """Figures to draw, collected while the text is written and drawn together, in worker processes
    where there are several (joblib). Each figure is a function of its inputs alone, so its file is the
    same however many processes draw; heavier figures (``weight``) are handed out first."""

    def __init__(self) -> None:
        self.jobs: list[tuple[float, object, tuple]] = []
        self.workers: int | str = 1  #: the processes that drew the figures (after :meth:`draw`)

    def add(self, func, *args, weight: float = 1.0) -> int:
        """Queue ``func(*args)``; returns the index of its result in ``draw()``'s list."""
        self.jobs.append((weight, func, args))
        return len(self.jobs) - 1

    def draw(self, n_jobs: int = 1) -> list:
        """Every queued figure's return value, in the order queued: in worker processes where a pool pays for its
        start, else here (``gamemarket.workers.fan_out``, as a study's runs); ``workers`` is then the
        processes that drew them."""
        order = sorted(range(len(self.jobs)), key=lambda k: -self.jobs[k][0])
        used = [1]
        done = list(fan_out([self.jobs[k][1:] for k in order], n_jobs, ordered=True, used=used))
        self.workers = used[0]
        out: list = [None] * len(self.jobs)
        for k, value in zip(order, done):
            out[k] = value
        return out


def write_report(an: StudyAnalysis, *, force: bool = False, n_jobs: int = 1) -> Path:
    """Render a study's analysis (``analyze(spec, for_report=True)``) as ``<report_dir>/index.html``,
    ``report.md``, figures and ``data/`` tables; return the HTML path. Nothing is computed here.

    The report holds no timing and no path of the machine that wrote it, so that writing it again from the
    same results gives the same files (a committed report stays unchanged); the run's times are printed
    by the command and kept in the results folder (``last-run.json``, ``task_seconds``).

    Each section is one builder (a list of Markdown blocks, joined by newlines); the figures are queued
    while the sections are written and drawn together at the end.

    ``n_jobs``: worker processes that draw the figures (joblib's convention: -1 all cores); the files
    are the same for any value."""
    if not isinstance(an, StudyAnalysis):  # (a study file's path was an AttributeError)
        raise InputError(
            f"write_report: expected a study's analysis (gamemarket.analysis.study.analyze(spec, for_report=True)), "
            f"got {type(an).__name__}; `gamemarket report STUDY` writes a study file's report"
        )
    jobs = FigureJobs()
    spec = an.spec
    # the discussion first: a field it names that the analysis lacks is an error before anything is written
    notes = _discussion(an)
    out = claim_folder(Path(spec.report_dir), spec, force)
    with out:  # a report that fails or is stopped gives its folder back as it was
        export(an, out, "data/")
        paper = paper_setup(an)
        md = _setup_section(an)
        if an.workload:
            md.append(_table1(an, paper))
        md += _games_section(an, out, jobs, paper)
        if paper and an.paper_games:
            md.append(_paper_game_section(an))
        if an.claims:
            md.append(
                claims_section(spec, an.claims, out, an.companions_missing)
                if paper
                else _claims_pointer(an.claims, out, an.companions_missing)
            )
        if _has_gains(an):
            md.append(_gains_section(an.shading_gains, out))
        if an.growth is not None:
            md += _growth_section(an.growth, out, jobs, measured_ways(an.spec))
        if notes:
            md += _discussion_section(notes)
        grid, paper_figures = _queue_figures(an, out, jobs, paper)
        figs = _draw_figures(jobs, n_jobs, out, grid, paper_figures)
        if figs:
            md += _figures_section(figs)
        md += _data_section(an, grid is not None)
        md.append(f"\n_Report written by gamemarket {__version__}._\n")
        text, page = report_pages("\n".join(md), spec.name)
        write_text(out.file("report.md"), text)
        html = out.file("index.html")
        write_text(html, page)
        out.finish()  # what an earlier report wrote and this one did not (a figure no longer drawn) goes
        return out.final(html)


def paper_setup(an: StudyAnalysis) -> bool:
    """Whether the report shows the sections about Shudler et al. (2010) (its 2x2 game, its claims, its figures,
    its Table 1): where the study declares the paper (a ``[paper]`` table) or its discussion quotes them. A
    study of one's own that happens to hold the paper's strategies gets its claims in ``data/claims.csv``."""
    quoted = any(f.startswith(("claim", "paper-game")) for f in discussion.note_fields(an.spec.notes or ""))
    return bool(an.spec.paper) or quoted


def _claims_pointer(claim_rows, out: OutputFolder, missing=()) -> str:
    """Where the paper's claims are when the report does not show them: their CSV (and the companion studies not
    measured, ``missing``)."""
    write_csv(claims_csv(claim_rows), out.file("data/claims.csv"))
    rows = claim_rows[0][1]
    paper = sum(1 for r in rows if not str(r["key"]).startswith("rule-"))
    rules = len(rows) - paper
    checks = counted(rules, "check")
    beside = f", beside {checks} of what follows from the market rules alone" if rules else ""
    held = (
        f"This study holds the mechanisms and bidding models {paper} of the paper's claim rows need, so they are "
        f"measured on its runs{beside}"
        if paper
        else f"No claim of the paper applies to this study's mechanisms and bidding models; {checks} "
        f"of what follows from the market rules alone {'is' if rules == 1 else 'are'} made on its runs"
    )
    return "\n".join(
        [
            "## The claims of Shudler et al. (2010)\n\n"
            f"{held}: `data/claims.csv` (a study that declares the paper, with a `[paper]` table, shows them here).\n",
            *unmeasured_companions(missing),
        ]
    )


def _has_gains(an: StudyAnalysis) -> bool:
    """Whether the analysis has shading gains by bid class (a section, a CSV)."""
    return an.shading_gains is not None and len(an.shading_gains) > 0


def _discussion(an: StudyAnalysis) -> str:
    """The study file's discussion with its fields filled in ("" without one); an error where it quotes
    a population study whose analysis is missing, or a field the analysis lacks."""
    spec = an.spec
    if not spec.notes:
        return ""
    where = str(spec.path or spec.name)
    miss = an.population_missing
    if miss is not None and any(f.startswith("population.") for f in discussion.note_fields(spec.notes)):
        raise InputError(
            f"{where}: 'notes' quotes the population study {miss.study}, whose analysis is not there: {miss.reason}"
        )
    return discussion.render(spec.notes.strip(), discussion.facts(an, _linked_exploration(an, where)), where)


def _linked_exploration(an: StudyAnalysis, where: str):
    """The linked population study's stored exploration, where it explores (its report's answer), else None; an
    error where it explores and the discussion quotes its answer, but no current exploration is stored."""
    if an.population is None or not any(f.startswith("population.") for f in discussion.note_fields(an.spec.notes)):
        return None
    pop_spec = load_study(an.spec.population_study)
    exploration, missing = read_stored_exploration(pop_spec)
    if missing:
        raise InputError(
            f"{where}: 'notes' quotes the population study {an.spec.population_study}, whose answer is its "
            f"exploration's, which is not there: {missing}"
        )
    return exploration


def _truthful(consumers: dict) -> list[str]:
    """The consumer strategies in which every job bids its private value (every group's beta 0)."""
    return [
        name
        for name, c in consumers.items()
        if isinstance(c, dict) and c.get("groups") and all(float(g[1]) == 0 for g in c["groups"])
    ]


def _game_answer(sg: SolvedGame, truthful: list[str]) -> tuple[str, set[str], bool]:
    """One game's answer: its equilibria in words, the mechanisms the provider plays in them, and whether a
    truthful consumer strategy is played in one."""
    g, sol = sg.game, sg.solution
    words, picks, truth = [], set(), False
    for e, rb in zip(sol.equilibria, sg.robustness):
        rows, cols = e.supports()
        picks |= {g.rows[i] for i in rows}
        truth |= any(g.cols[j] in truthful for j in cols)
        px, py = profile_words(g, e)
        words.append(f"{px} with {py}" + (f" (robust in {rb.stable_share:.0%} of resamples)" if rb else ""))
    return "; ".join(words), picks, truth


def _also_picked(an: StudyAnalysis, answers, every: set) -> str:
    """The picks beside those of every game (``every``), game by game ("; and also hb-kth in slow"), or nothing where
    every game's picks are ``every`` (hunt 20d-W11: "picks hb-first in every one" left out an equally good hb-kth)."""
    more = [(sg.name, sorted(p - every)) for sg, (_, p, _) in zip(an.games, answers) if p - every]
    return "".join(f"; and also {' or '.join(extra)} in {name}" for name, extra in more)


def answer_paragraph(an: StudyAnalysis) -> str:
    """What the study answers, in words, from its solved games: the equilibria of its first game, the
    mechanism the provider picks in each game, and whether truthful bidding is an equilibrium strategy."""
    if not an.games:
        return "**What this answers.** No game of this study could be built from its stored runs."
    truthful = _truthful(an.meta.get("consumers", {}))
    first = an.games[0]
    answers = [_game_answer(sg, truthful) for sg in an.games]
    seeds = len(an.meta.get("seeds", []))
    rows, cols = len(first.game.rows), len(first.game.cols)
    parts = [
        f"**What this answers.** Which of {counted(rows, 'mechanism')} a provider should run when the "
        f"consumers choose among {counted(cols, 'way')} to bid, and whether bidding truthfully is stable, "
        f"from {counted(seeds, 'replication seed')} per profile"
        + (" (one mechanism and one way to bid: a game with nothing to choose)." if rows == cols == 1 else ".")
    ]
    words, picks, _ = answers[0]
    n_eq = len(first.solution.equilibria)
    found = "" if first.solution.exhaustive else " found (the listing is partial: see the game's note)"
    parts.append(  # (hunt 24a-F3: a partial method's one equilibrium was "the equilibrium")
        f"In the game over {first.name} "
        + (
            (f"an equilibrium{found} is {words}." if found else f"the equilibrium is {words}.")
            if n_eq == 1
            else f"the {n_eq} equilibria{found} are {words}."
            if n_eq
            else ""
        )
        + ("" if n_eq else "no equilibrium was found.")
    )
    every = set.intersection(*(p for _, p, _ in answers)) if all(p for _, p, _ in answers) else set()
    if len(an.games) > 1:
        parts.append(
            f"Across its {len(an.games)} games ({', '.join(sg.name for sg in an.games)}"
            + (f"; {len(an.games_left_out)} more not built, below" if an.games_left_out else "")
            + "), "
            + (
                f"the provider picks {' or '.join(sorted(every))} in every one" + _also_picked(an, answers, every) + "."
                if every
                else "the provider's pick depends on the game: "
                + "; ".join(
                    f"{sg.name}: {' or '.join(sorted(p)) or 'none'}" for sg, (_, p, _) in zip(an.games, answers)
                )
                + "."
            )
        )
    elif picks:
        parts.append(f"The provider picks {' or '.join(sorted(picks))}.")
    if truthful:
        parts.append(_truthful_words(an, answers, truthful))
    return " ".join(p for p in parts if p)


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def _truthful_words(an: StudyAnalysis, answers, truthful: list[str]) -> str:
    """Whether truthful bidding is an equilibrium strategy, game by game; "some consumers gain by shading" only of
    the games that hold a truthful strategy and whose columns are comparable (hunt 23a-F2: it was said of a game
    truthful bidding was left out of, and of one flagged not comparable, where every job's utility was the same)."""
    who = " or ".join(truthful)
    stable, shading, absent, apart, partial = [], [], [], [], []
    for sg, (_, _, t) in zip(an.games, answers):
        if t:
            stable.append(sg.name)
        elif not set(truthful) & set(sg.game.cols):
            absent.append(sg.name)
        elif any(f.startswith("not comparable across columns") for f in sg.flags):
            apart.append(sg.name)
        elif not sg.solution.exhaustive:  # (hunt 24a-F3: "in no equilibrium" of a partial listing)
            partial.append(sg.name)
        else:
            shading.append(sg.name)
    if len(stable) == len(an.games):
        return f"Truthful bidding ({who}) is an equilibrium strategy in every game."
    words = []
    if stable:
        words.append(f"Truthful bidding ({who}) is an equilibrium strategy in the games over {_listed(stable)}")
    if shading and len(shading) == len(an.games):
        return f"Truthful bidding ({who}) is in no equilibrium: some consumers gain by shading their bids."
    if shading:
        lead = words.pop() + ", and" if stable else f"Truthful bidding ({who}) is"
        words.append(
            f"{lead} in no equilibrium of the games over {_listed(shading)} (there some consumers gain by shading "
            "their bids)"
        )
    if absent:
        words.append(f"{who} is not in the game over {_listed(absent)} (its payoff is undefined there)")
    if partial:
        words.append(
            f"in the game over {_listed(partial)} it is in none of the equilibria found, a partial listing (see the "
            "game's note), which says nothing about shading"
        )
    if apart:
        words.append(
            f"in the game over {_listed(apart)} it is in no equilibrium, but that game's columns are not comparable "
            "(see its flag), which says nothing about shading"
        )
    text = "; ".join(words)
    return text[0].upper() + text[1:] + "."


def _setup_section(an: StudyAnalysis) -> list[str]:
    """The title, the study's description and the setup table (workload, strategies, seeds, runs)."""
    spec, meta = an.spec, an.meta
    market = MARKETS.get(meta["kind"])
    md = [f"# Study report: {spec.name}\n", answer_paragraph(an) + "\n"]
    if (note := unconverged_note(an.metrics)) is not None:  # the answer rests on them: said beside it
        md.append(f"**Not converged.** {note[0].upper()}{note[1:]}.\n")
    if spec.description.strip():
        md.append(f"_{spec.description.strip()}_\n")
    md.append("## Setup\n")
    rows = [
        ["workload", workload_words(meta)],
        [
            "synthetic parameters",
            ", ".join(f"{k} = {v}" for k, v in meta["synthetic"].items()) if meta.get("synthetic") else "-",
        ],
        ["jobs", meta["jobs"]],
        ["resource types" if market.size_name == "resources" else market.size_name, meta["nodes"]],
        [
            "provider strategies",
            ", ".join(f"{k} {market_for(v).describe_provider(v)}" for k, v in meta["providers"].items()),
        ],
        [
            "consumer strategies",
            ", ".join(f"{k} {consumer_words(v)}" for k, v in meta["consumers"].items())
            + "".join(f"; {a} is the same mix as {k}, kept once" for a, k in spec.aliases.items()),
        ],
        ["replication seeds", ", ".join(str(s) for s in meta["seeds"])],
        ["gamemarket version", __version__],
        ["runs", f"{len(an.metrics):,} (each profile once per seed)"],
    ]
    md.append(md_table(["item", "value"], rows) + "\n")
    if paper_note := paper_strategies_note(an):
        md.append(paper_note + "\n")
    return md


def paper_strategies_note(an: StudyAnalysis) -> str:
    """A sentence for each of the paper's strategies (FT, SRG, DEV1) that the study names but defines otherwise,
    saying which of the paper's analyses are left out and why, and for each found under another name ("" where
    there is nothing to say, or the market has none of the paper's analyses):
    ``gamemarket.analysis.shading.PaperStrategies.notes``."""
    notes = an.paper_names.notes()
    if not notes or not (MARKETS.get(an.meta["kind"]).paper_analysis or an.spec.gains):
        return ""
    return "**The paper's strategies.** " + " ".join(notes)


def consumer_words(params: dict) -> str:
    """A consumer strategy's parameters as the setup table shows them: a beta mix's groups (``[[0.9, 0.1], ...]``),
    another family's name and parameters (``(shade-by: amount = 20.0)``; a plugin's text hash left out)."""
    if "groups" in params:
        return str(params["groups"])
    shown = {k: v for k, v in params.items() if k not in ("family", "description", "plugin")}
    return f"({params.get('family', 'per-class')}: " + ", ".join(f"{k} = {v}" for k, v in shown.items()) + ")"


def workload_words(meta: dict) -> str:
    """The workload as the setup table names it: its name (a trace's catalogue name, never a path) and, for a
    file, its SHA-256."""
    sha = meta.get("workload_sha256")
    return workload_name(meta.get("workload")) + (f" (SHA-256 `{sha}`)" if sha else "")


def _games_section(an: StudyAnalysis, out: OutputFolder, jobs: FigureJobs, paper: bool) -> list[str]:
    """How the games are read, what follows from HB's rules, then one subsection per game (its heatmap
    queued on ``jobs``)."""
    md = [
        "## Games and equilibria\n",
        (
            "Payoffs are means over the replication seeds with 95% Student-t half-widths. Every equilibrium "
            "is verified by its regret (the best gain from a unilateral deviation) on the mean payoffs; "
            f"robustness is the share of {an.resamples} bootstrap resamples of the seeds in which it remains an "
            "equilibrium (for a mixed one: an equilibrium with the same supports exists), with a 95% "
            "interval of its regret. " + (coarse_bootstrap(len(an.meta.get("seeds", [])), MIN_RESAMPLES) + " ").lstrip()
            if len(an.meta.get("seeds", [])) > 1
            else "Payoffs are one seed's: with a single replication seed there is no interval and no robustness "
            "(both need two seeds or more). Every equilibrium is verified by its regret (the best gain from a "
            "unilateral deviation) on the payoffs. "
        )
        + "Revenue and welfare are in bid x seconds, utilities in bid x seconds per job (a bid is a price per "
        "second of run time).\n",
    ]
    first, kth = hb_pair({p for sg in an.games for p in sg.game.rows}, an.meta["providers"])
    if first and kth and any(sg.game.meta["provider_payoff"] == "revenue" for sg in an.games):
        md.append(
            "Under HB the schedule depends only on the reported bids and the k-th price never exceeds the "
            f"first, so {first} earns the provider at least as much as {kth} against every consumer mix: "
            "that part of the provider's choice **follows from the rules** (checked seed by seed: "
            + ("'What follows from the rules' below" if paper else "`data/claims.csv`, the rows `rule-*`")
            + "), not from the simulation.\n"
        )
    kind = "beta mix" if all("groups" in v for v in an.meta["consumers"].values()) else None
    for sg in an.games:
        md.append(_game_section(sg, out, an.resamples, jobs, consumer_kind=kind))
    md += [f"Game {name} is not built: {why.removeprefix(f'game {name!r}: ')}.\n" for name, why in an.games_left_out]
    return md


def _growth_section(growth, out: OutputFolder, jobs: FigureJobs, ways) -> list[str]:
    """The shading gain against market size: its CSVs, its figure (queued on ``jobs``) and its table, and the sizes
    where a way the study measures (``ways``) had no shading job."""
    per_seed, summ = growth
    summ = summ.astype({"seeds": "int64"})  # a count (the analysis's summary holds it among floats): 2, not 2.0
    write_csv(summ, out.file("data/shading-gains.csv"))
    write_csv(per_seed, out.file("data/shading-gains-per-seed.csv"))
    path = out.file("fig-shading-gain.png")
    jobs.add(figures.gain_plot, summ, path)
    md = [
        "## How much does shading pay as the market grows?\n",
        "Per-job utility gain of the shading users over the same jobs' truthful run (same seed), "
        "mean with a 95% t-interval over seeds, in bid x seconds per job. *SRG*: everyone bids by the SRG "
        "model, the aggressive 10% are measured; *DEV1*: only 1% of the jobs shade (beta 0.9), everyone "
        "else is truthful. Relative: the gain divided by the same jobs' mean truthful utility.\n",
        figure_lines("shading gain", path.name, HOW_TO_READ["growth"]),
    ]
    rows = [
        [
            r.mechanism,
            r.way,
            f"{int(r.n):,}",
            int(r.seeds),
            num(np.round(r.cohort_jobs), 15),  # a mean count of jobs: whole, thousands separated
            num_ci(r.gain, r.ci_low, r.ci_high, 4),
            f"{r.relative_gain:+.2%}" if np.isfinite(r.relative_gain) else "n/a (truthful utility 0)",
        ]
        for r in summ.itertuples()
    ]
    headers = ["mechanism", "who shades", "jobs", "seeds", "shading jobs", "gain per job [95% CI]", "relative"]
    md.append(md_table(headers, rows) + "\n")
    # a group with no shading job at a size has no row there: said, not left out without a word (hunt 20c-W1)
    sizes = sorted(summ["n"].unique()) if len(summ) else []
    for way in ways:
        missing = [n for n in sizes if not ((summ["way"] == way) & (summ["n"] == n)).any()]
        if missing:
            md.append(
                f"*{way}* has no shading job at {', '.join(f'{int(n):,}' for n in missing)} jobs (too few jobs for its "
                "share): not measured there.\n"
            )
    return md


def _discussion_section(notes: str) -> list[str]:
    """The study's discussion, its fields filled in."""
    return [
        "## Discussion\n",
        "Every number below is filled in from this report's analysis (the study file's discussion is "
        "a template with fields, and holds no typed numbers).\n",
        notes + "\n",
    ]


def _queue_figures(
    an: StudyAnalysis, out: OutputFolder, jobs: FigureJobs, paper: bool
) -> tuple[int | None, list | None]:
    """Queue the beta-grid heatmap (writing its CSV) and the paper's figures on ``jobs``; returns the grid
    figure's index (None without one) and the paper figures' (caption, index) pairs (None where the market
    has no paper analysis)."""
    grid = None
    if an.grid_gains is not None and len(an.grid_gains):
        write_csv(an.grid_gains, out.file("data/beta-grid-gains.csv"))
        grid = jobs.add(figures.grid_gain_heatmap, an.grid_gains, out.file("heatmap-beta-grid.png"), weight=3)
    paper_figures = None
    if paper and MARKETS.get(an.meta["kind"]).paper_analysis:
        paper_figures = [
            (caption, jobs.add(func, *args, weight=2))
            for caption, func, args in figures.paper_figure_plan(an.bins, an.meta["consumers"], out)
        ]
    return grid, paper_figures


def _draw_figures(jobs: FigureJobs, n_jobs: int, out: OutputFolder, grid, paper) -> list[tuple[str, Path, bool]]:
    """Draw every queued figure and return the (caption, path) pairs of the Figures section (a figure an
    earlier report drew and this one does not is removed by ``OutputFolder.finish``: only those)."""
    drawn = jobs.draw(n_jobs)
    figs: list[tuple[str, Path, bool]] = []
    if grid is not None and drawn[grid]:
        caption = "aggressive users' utility gain over truthful bidding across the beta-mix grid"
        figs.append((caption, drawn[grid], True))
    if paper is not None:
        figs += [(caption, drawn[k], False) for caption, k in paper]
    return figs


def _figures_section(figs: list[tuple[str, Path, bool]]) -> list[str]:
    """The figures that have no section of their own (caption, path, whether it is the beta-grid heatmap), each
    with its caption and how to read it."""
    return ["## Figures\n"] + [
        f"**{caption}**\n\n" + figure_lines(caption, path.name, HOW_TO_READ["grid" if grid else "paper"])
        for caption, path, grid in figs
    ]


def _data_section(an: StudyAnalysis, grid: bool) -> list[str]:
    """What the ``data/`` folder holds."""
    return [
        "## Data\n",
        "Tables in `data/`: `runs.csv` (every run's payoffs)"
        + (", `payoffs-*.csv`" if an.games else "")
        + ", `equilibria.csv`, `equilibria.json` (with metadata)"
        + (", `best-responses-*.csv`, `game-*.nfg` (Gambit)" if an.games else "")  # (one per game built)
        + (", `claims.csv`" if an.claims else "")
        + (", `shading-gains-by-bid-class.csv`" if _has_gains(an) else "")
        + (", `beta-grid-gains.csv`" if grid else "")
        + ".\n",
    ]


LARGE = 6  #: a game with more strategies a side than this gets ranked tables beside its figure

#: how to read each kind of figure, printed under it (no underscores: the caption is set in italics)
HOW_TO_READ = {
    "heatmap": "How to read it: one panel per player (provider, consumers), one cell per mechanism (row) and "
    "bidding model (column), the mean payoff over seeds with its 95% half-width. A black box marks a pure "
    "equilibrium, dashed boxes the support of a mixed one. The colours run from dark (low) to light (high); "
    "they diverge at zero (red below, blue above) only where the values change sign.",
    "grid": "How to read it: one panel per mechanism; a row is the share of jobs in the aggressive group, a "
    "column how far that group shades (its beta); a cell is the group's mean utility gain over the same jobs "
    "bidding truthfully, in bid x s per job. Blue: shading pays, red: it loses; the colours diverge at zero "
    "only where the gains change sign, else darker means a larger loss (or gain).",
    "paper": "How to read it: lines are means over the seeds, bands their 95% intervals; along the x axis the "
    "private bid per second of run time (bid classes: low up to 60, middle to 120, high to 180).",
    "growth": "How to read it: along the x axis the market's size in jobs (log scale, the load fixed), up the y "
    "axis the shading jobs' utility gain per job over the same jobs truthful, with 95% bands; above the zero "
    "line shading pays.",
}


def figure_lines(alt: str, file: str, how: str) -> str:
    """A figure as the reports write it: the image, then how to read it in italics."""
    return f"![{alt}]({file})\n\n_{how}_\n"


def _eq_table(sg) -> str:
    g, sol = sg.game, sg.solution
    if not sol.equilibria:
        return "No equilibrium found by the methods run (none is reported as found).\n"
    rows = []
    for k, (e, rb) in enumerate(zip(sol.equilibria, sg.robustness)):
        px, py = profile_words(g, e)
        rob = (
            (
                f"{rb.stable_share:.0%}; regret CI provider "
                f"[{num(rb.regret_provider[1], 3)}, {num(rb.regret_provider[2], 3)}], "
                f"consumer [{num(rb.regret_consumer[1], 3)}, {num(rb.regret_consumer[2], 3)}]"
            )
            if rb
            else "-"
        )
        rows.append(
            [
                k + 1,
                "pure" if e.pure else "mixed",
                px,
                py,
                num(e.payoffs[0], 6),
                num(e.payoffs[1], 6),
                num(max(e.regret), 2),
                rob,
            ]
        )
    return (
        md_table(
            ["#", "kind", "provider", "consumer", "provider payoff", "consumer payoff", "regret", "robustness"], rows
        )
        + "\n"
    )


def _payoff_words(payoff: str) -> str:
    """A game's payoff as the report names it: ``revenue`` (bid x s), or a negated metric said to be one."""
    if payoff.startswith("-"):
        return f"`{payoff}` ({unit(payoff)}; the metric negated: lower is better, and each side maximises its payoff)"
    return f"`{payoff}` ({unit(payoff)})"


def _game_section(sg, out: OutputFolder, resamples: int, jobs: FigureJobs, *, consumer_kind: str | None) -> str:
    g, sol = sg.game, sg.solution
    md = [
        f"### {sg.name}\n",
        f"Provider payoff: {_payoff_words(g.meta['provider_payoff'])}; consumer payoff: "
        f"{_payoff_words(g.meta['consumer_payoff'])}."
        + (
            f" Left out (payoff undefined): {', '.join(g.meta['dropped_consumers'])}."
            if g.meta.get("dropped_consumers")
            else ""
        )
        + "\n",
    ]
    path = out.file(f"heatmap-{slug(sg.name, 'game')}.png")
    jobs.add(figures.payoff_heatmaps, sg, path, consumer_kind, weight=max(g.shape) / LARGE)
    md.append(figure_lines(sg.name, path.name, HOW_TO_READ["heatmap"]))
    md.append(_eq_table(sg))
    md.append(concepts_summary(g, [np.concatenate([e.x, e.y]) for e in sol.equilibria])["words"] + "\n")
    for flag in sg.flags:
        md.append(f"- **flag**: {flag}\n")
    if max(g.shape) > LARGE and sol.equilibria:
        md.append(_ranked(sg))
    md.append(
        f"Degenerate game: {sol.degenerate_words}. "
        f"Strictly dominated (iterated): provider {', '.join(sol.dominated_rows) or 'none'}; "
        f"consumer {', '.join(sol.dominated_cols) or 'none'}.\n"
    )
    for note in sol.notes:
        md.append(f"- note: {note}\n")
    return "\n".join(md)


def _ranked(sg) -> str:
    """A large game as two ranked tables around its first equilibrium: each side's strategies ranked by
    payoff against the other side's equilibrium strategy (the best response first)."""
    g = sg.game
    e = sg.solution.equilibria[0]
    ca, cb = g.ci()
    px, py = profile_words(g, e)
    cons = g.B.T @ e.x  # each consumer strategy's payoff against the provider's equilibrium strategy
    cons_hw = np.sqrt((cb.T**2) @ e.x) if np.isfinite(cb).all() else np.full(len(cons), np.nan)
    prov = g.A @ e.y
    prov_hw = np.sqrt((ca**2) @ e.y) if np.isfinite(ca).all() else np.full(len(prov), np.nan)
    md = [
        f"Consumer strategies ranked by their payoff when the provider plays {px} (equilibrium 1; the "
        "half-width combines the cells' 95% half-widths):\n",
        _ranked_table("consumer", g.cols, cons, cons_hw),
        f"Provider strategies ranked by their payoff when the consumer plays {py}:\n",
        _ranked_table("provider", g.rows, prov, prov_hw),
    ]
    return "\n".join(md)


def _ranked_table(who: str, names: list[str], payoff: np.ndarray, half_width: np.ndarray) -> str:
    """One side's strategies ranked by payoff (stable on ties), with the distance below the best. Equal payoffs
    (to rounding: ``search.population.same_revenue``) share a rank, "1 (tie)" (hunt 15a's sibling: two strategies
    of the same payoff were ranked 1 and 2, the second "0 below the best")."""
    order = np.argsort(-payoff, kind="stable")
    best = payoff[order[0]]
    rank = {j: 1 + sum(payoff[q] > payoff[j] and not same_revenue(payoff[q], payoff[j]) for q in order) for j in order}
    shared = {r for r in rank.values() if list(rank.values()).count(r) > 1}
    rows = [
        [
            f"{rank[j]} (tie)" if rank[j] in shared else rank[j],
            names[j],
            f"{num(payoff[j], 6)} ± {num(half_width[j], 2)}",
            num(best - payoff[j], 3),
        ]
        for j in order
    ]
    return md_table(["rank", who, f"{who} payoff", "below the best"], rows) + "\n"


def _paper_game_section(an) -> str:
    """The paper's own game: HB with first or k-th price against FT or SRG, per payoff definition."""
    md = [
        "## The paper's game: HB first / k-th price x FT / SRG\n",
        "The 2x2 game of Shudler et al. (2010), cut from this study's runs: each cell is (provider payoff, "
        "consumer payoff), means over the seeds. Its equilibria are verified by regret as those of the games "
        "above.\n",
    ]
    for sg in an.paper_games:
        g = sg.game
        md.append(
            f"**{sg.name}** (provider {_payoff_words(g.meta['provider_payoff'])}; "
            f"consumer {_payoff_words(g.meta['consumer_payoff'])})\n"
        )
        rows = [
            [r] + [f"({num(g.A[i, j])}, {num(g.B[i, j])})" for j in range(len(g.cols))] for i, r in enumerate(g.rows)
        ]
        md.append(md_table(["provider \\ consumer"] + list(g.cols), rows) + "\n")
        eqs = [
            " with ".join(profile_words(g, e)) + f" (robust in {rb.stable_share:.0%} of resamples)"
            if rb
            else " with ".join(profile_words(g, e))
            for e, rb in zip(sg.solution.equilibria, sg.robustness)
        ]
        md.append(
            "Equilibria: "
            + ("; ".join(eqs) if eqs else "none found")
            + "."
            + (
                f" Left out (payoff undefined): {', '.join(g.meta['dropped_consumers'])}."
                if g.meta.get("dropped_consumers")
                else ""
            )
            + "\n"
        )
        for flag in sg.flags:
            md.append(f"- **flag**: {flag}\n")
    return "\n".join(md)


def _gains_section(gains, out: OutputFolder) -> str:
    write_csv(gains, out.file("data/shading-gains-by-bid-class.csv"))
    md = [
        "## Does shading pay? By mechanism and bid class\n",
        "The shading users' mean utility minus the same jobs' mean utility in the truthful (FT) run of the "
        "same seed and mechanism, in bid x seconds per job, with a 95% t-interval over seeds; positive: "
        "shading pays. *SRG*: the aggressive 10% of an SRG population; *DEV1*: 1% of the jobs shade, everyone "
        "else is truthful.\n",
    ]
    for cons, sub in gains.groupby("consumer", sort=False):
        md.append(f"**{sub['who'].iloc[0]}**\n")
        piv = {(r.mechanism, r.bid_class): r for r in sub.itertuples()}
        mechs = list(dict.fromkeys(sub["mechanism"]))
        rows = []
        for m in mechs:
            cells = []
            for c in BID_CLASSES + ("all",):
                r = piv.get((m, c))
                cells.append(
                    "-" if r is None else num_ci(r.mean, r.ci_low, r.ci_high, 3) + (" **+**" if r.ci_low > 0 else "")
                )
            rows.append([m] + cells)
        md.append(md_table(["mechanism", "low bids", "middle bids", "high bids", "all"], rows) + "\n")
    md.append("**+**: the interval lies above zero (shading pays significantly).\n")
    return "\n".join(md)


def _table1(an, paper: bool) -> str:
    cols = [("this study", an.workload)] + an.companion_workloads
    paper = an.spec.paper or {}
    headers = [
        "",
        *(["paper" + (f" ({paper['source']})" if "source" in paper else "")] if paper else []),
        *[n for n, _ in cols],
    ]
    rows = []
    for key, label, f in (
        ("jobs", "serial jobs", "{:,.0f}"),
        ("nodes", "nodes", "{:,.0f}"),
        ("mean_runtime", "mean run time (s)", "{:,.0f}"),
        ("offered_load", "offered load", "{:.3f}"),
    ):
        row = [label] + ([f.format(paper[key]) if key in paper else "-"] if paper else [])
        row += [f.format(v[key]) if key in v else "-" for _, v in cols]
        rows.append(row)
    title = "## Workload, beside the paper's Table 1" if paper and an.spec.paper else "## Workload"
    return f"{title}\n\n" + md_table(headers, rows) + "\n"
