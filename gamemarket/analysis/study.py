"""From a study's stored results to solved games: payoff tables, equilibria, robustness, exports."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from gamemarket import __version__
from gamemarket.analysis import claims
from gamemarket.analysis.claims import grid_cells, hb_pair
from gamemarket.analysis.incentives import gains
from gamemarket.analysis.population import read_analysis
from gamemarket.analysis.shading import PaperStrategies, paper_strategies
from gamemarket.consumers import from_params
from gamemarket.errors import GameMarketError, InputError, UndefinedPayoffError
from gamemarket.games import DEFAULT_METHODS, Game, Solution, from_results, solve
from gamemarket.games.budget import Stopped
from gamemarket.games.io import (
    equilibria_records,
    profile_words,
    rescale_comment,
    rescaled,
    to_csv_table,
    to_nfg,
    write_json,
)
from gamemarket.games.robustness import Robustness, best_responses, bootstrap
from gamemarket.io.files import OutputFolder, atomic_path
from gamemarket.io.jobtable import write_table
from gamemarket.io.names import slug, workload_name
from gamemarket.market.base import MARKETS, market_for_workload
from gamemarket.market.payoffs import aggressive_group
from gamemarket.studies import StudySpec, load_results, load_study
from gamemarket.studies.runner import load_cohorts, load_workload


@dataclass
class SolvedGame:
    """A solved bimatrix game: the game, its verified equilibria, their bootstrap robustness and its flags."""

    name: str
    game: Game
    solution: Solution
    robustness: list[Robustness | None]
    flags: list[str] = field(default_factory=list)  #: what a reader must know before trusting an equilibrium
    #: why the robustness is missing where its bootstrap stopped at the time limit (the solution's notes say it too)
    robustness_stopped: str | None = None

    @property
    def finished(self) -> bool:
        """Whether the search and the bootstrap both finished (else what was found is the answer: exit 3)."""
        return self.solution.complete and self.robustness_stopped is None


@dataclass
class StudyAnalysis:
    """Everything a study's report shows, computed; the report only renders it."""

    spec: StudySpec
    metrics: pd.DataFrame
    bins: pd.DataFrame | None
    meta: dict
    games: list[SolvedGame] = field(default_factory=list)
    #: the study's games that could not be built, with why (a per-group payoff where no job is of the group)
    games_left_out: list[tuple[str, str]] = field(default_factory=list)
    #: the source paper's own game, HB with first or k-th price x FT or SRG, per payoff definition
    paper_games: list[SolvedGame] = field(default_factory=list)
    #: the paper's claims measured on this study, then on each companion whose results are stored
    claims: list[tuple[str, list[dict]]] = field(default_factory=list)
    cohorts: pd.DataFrame | None = None  #: cohort sums of every run (G bin x bid class)
    shading_gains: pd.DataFrame | None = None  #: every mechanism's shading gain by bid class
    grid_gains: pd.DataFrame | None = None  #: the aggressive users' gain over truthful across the beta-mix grid
    growth: tuple[pd.DataFrame, pd.DataFrame] | None = None  #: shading gain against market size (per seed, summary)
    workload: dict = field(default_factory=dict)  #: jobs, nodes, mean run time, offered load, dropped records
    companion_workloads: list[tuple[str, dict]] = field(default_factory=list)
    #: companion studies whose claims are not measured: (name, study file, why), said where the claims are shown
    companions_missing: list[tuple[str, str, str]] = field(default_factory=list)
    population: object | None = None  #: the linked population study's analysis, where it has been run
    population_missing: object | None = None  #: ``PopulationMissing``: a linked study whose analysis is not there
    resamples: int = 1000  #: bootstrap resamples behind each equilibrium's robustness
    #: which of the study's consumer strategies are the paper's FT, SRG and DEV1 (``paper_strategies``): what the
    #: paper's game, claims, shading gains and figures read, and what the report says of those it left out
    paper_names: PaperStrategies = field(default_factory=PaperStrategies)


#: the paper's two bidding models (its providers: HB with first and k-th price), read where the study's strategies
#: are they (``StudyAnalysis.paper_names``)
PAPER_CONSUMERS = ("FT", "SRG")
#: the columns of a run that measure the machine, not the market: kept in the results, left out of exports
TIMING_COLUMNS = ("task_seconds",)


def game_flags(game: Game, solution: Solution, consumers: dict) -> list[str]:
    """Warnings about a solved game: an equilibrium on the edge of the consumer grid (extend the grid),
    and per-group payoffs that compare groups of different sizes across columns."""
    flags = []
    grid = {n: fb for n, fb in grid_cells(consumers).items() if n in game.cols}
    if len(grid) >= 2:
        fr = sorted({f for f, _ in grid.values()})
        be = sorted({b for _, b in grid.values()})
        for k, e in enumerate(solution.equilibria):
            for j in np.flatnonzero(e.y > 0):
                name = game.cols[j]
                if name not in grid:
                    continue
                f, b = grid[name]
                edges = (
                    ([f"the largest aggressive fraction ({f:g})"] if f == fr[-1] and len(fr) > 1 else [])
                    + ([f"the smallest aggressive fraction ({f:g})"] if f == fr[0] and len(fr) > 1 else [])
                    + ([f"the largest beta ({b:g})"] if b == be[-1] and len(be) > 1 else [])
                    + ([f"the smallest beta ({b:g})"] if b == be[0] and len(be) > 1 else [])
                )
                if edges:
                    flags.append(
                        f"equilibrium {k + 1}: the consumer plays {name}, on the edge of the strategy grid "
                        f"({' and '.join(edges)}); extend the grid to see whether the equilibrium moves"
                    )
    pay = game.meta.get("consumer_payoff", "")
    if pay in ("mean_utility_aggressive", "mean_utility_conservative"):
        share = {}
        for name in game.cols:
            groups = from_params(consumers[name], name).consumer_groups()
            a = aggressive_group(np.array([b for _, b in groups]))
            frac = 0.0 if a is None else float(groups[a][0])
            share[name] = frac if pay.endswith("aggressive") else 1.0 - frac
        lo, hi = min(share.values()), max(share.values())
        if hi > lo:
            who = "aggressive" if pay.endswith("aggressive") else "conservative"
            flags.append(
                f"not comparable across columns: the {who} group is {lo:.0%} to {hi:.0%} of the jobs, so "
                f"its mean utility compares different sets of users, not the same users under another mix"
            )
    return flags


def unconverged_note(metrics: pd.DataFrame) -> str | None:
    """Which runs' solver stopped short of its stopping rule (a pricing market's price discovery: ``converged`` 0),
    in words, or None: their payoffs are those of the prices it stopped at, and the games read them as they are.
    A report built on them said nothing of it (hunt 11: all four clearing runs at gaps of 16 to 42 on revenues of
    about 30)."""
    if "converged" not in metrics.columns or metrics.empty:
        return None
    bad = metrics[metrics["converged"].fillna(1.0) < 1.0]
    if bad.empty:
        return None
    gap = bad["gap"] if "gap" in bad.columns else pd.Series(np.nan, index=bad.index)
    parts = [
        f"{p}: {len(g)} run(s), gap up to {float(gap.loc[g.index].max()):.3g}"
        for p, g in bad.groupby("provider", sort=False)
    ]
    return (
        f"{len(bad)} of {len(metrics)} runs did not converge (their solver stopped before its stopping rule was met; "
        f"{'; '.join(parts)}): their payoffs are those of the prices it stopped at, and the games read them as they "
        "are"
    )


def analyze(
    spec: StudySpec,
    *,
    with_bins: bool = False,
    methods=DEFAULT_METHODS,
    resamples: int = 1000,
    time_limit: float = 10.0,
    progress: bool | None = None,
    for_report: bool = False,
    population=None,
) -> StudyAnalysis:
    """Solve a study's games from its stored results (the payoffs, equilibria, robustness and flags).

    With ``for_report`` also everything its report shows: the paper's claims on this study and its
    companions, the shading gains by bid class, the gains against market size, the workload's facts
    and the linked population study's answers (``population``, where the caller has them: else the cached ones).
    ``time_limit``: seconds for each game's search, and as long again for its bootstrap (:func:`robustness_of`);
    ``progress``: their progress bars on stderr past a few seconds (None: where stderr is a terminal).
    """
    metrics, bins, meta = load_results(spec, with_bins=with_bins or for_report)
    cols = [c.name for c in spec.consumers]
    paper = paper_strategies({n: p for n, p in meta["consumers"].items() if n in cols})
    out = StudyAnalysis(spec, metrics, bins, meta, resamples=resamples, paper_names=paper)
    if (note := unconverged_note(metrics)) is not None:
        warnings.warn(f"study {spec.name!r}: {note}", stacklevel=2)
    rows = [p.name for p in spec.providers]

    def solved(gd, rows_, cols_) -> SolvedGame | None:
        try:
            g = from_results(metrics, gd.provider, gd.consumer, title=gd.name, rows=rows_, cols=cols_)
        except UndefinedPayoffError as exc:  # e.g. per-group payoffs in a study without any aggressive group
            out.games_left_out.append((gd.name, str(exc)))
            return None
        sol = solve(g, methods=methods, time_limit=time_limit, progress=progress)
        rb, stopped = robustness_of(g, sol, resamples=resamples, time_limit=time_limit, progress=progress)
        return SolvedGame(gd.name, g, sol, rb, game_flags(g, sol, meta["consumers"]), stopped)

    out.games = [sg for gd in spec.games if (sg := solved(gd, rows, cols)) is not None]
    # the paper's own 2x2 games, which only the report shows (hunt 24c-F2: game export ran their bootstraps too, each
    # note printed twice and twice the time)
    pair = _paper_pair(rows, cols, meta["providers"], paper)
    if for_report and pair is not None:
        out.paper_games = [sg for gd in spec.games if (sg := solved(gd, *pair)) is not None]
    if for_report:
        _report_extras(out, population)
    return out


def _report_extras(an: StudyAnalysis, population=None) -> None:
    spec, meta = an.spec, an.meta
    if MARKETS.get(meta["kind"]).paper_analysis:
        an.workload = workload_facts(spec)
        an.cohorts = load_cohorts(spec)
        an.shading_gains = claims.shading_gains(an.cohorts, meta["providers"], meta["consumers"])
        an.grid_gains = claims.grid_gains(
            an.cohorts, meta["consumers"], dict.fromkeys(an.metrics["provider"]), spec.aliases
        )
        an.claims, an.companions_missing = _claims(an)
        for c in spec.companions:
            cs = load_study(c)
            try:
                an.companion_workloads.append((cs.name, workload_facts(cs)))
            except GameMarketError:  # a companion whose workload is not here (a trace not fetched)
                continue
    if spec.gains and len((growth := gains(spec))[1]):  # none where the study's FT, SRG, DEV1 are not the paper's
        an.growth = growth
    pop = population_analysis(spec, population)
    if isinstance(pop, PopulationMissing):
        an.population_missing = pop
    else:
        an.population = pop


def _paper_pair(rows, cols, providers: dict, paper: PaperStrategies) -> tuple[list[str], list[str]] | None:
    """The rows and columns of the paper's own 2x2 game within a study's (HB with first and k-th price, the
    paper's FT and SRG), or None where the study lacks one of them or is that 2x2 game itself."""
    pair = _paper_strategies_played(rows, providers, paper)
    return pair if pair is not None and (len(rows), len(cols)) != (2, 2) else None


def _paper_strategies_played(rows, providers: dict, paper: PaperStrategies) -> tuple[list[str], list[str]] | None:
    """The study's HB first and k-th price mechanisms and its paper's FT and SRG, where it plays all four."""
    prov = [p for p in hb_pair(rows, providers) if p]
    pcols = [paper.name(c) for c in PAPER_CONSUMERS]
    return (prov, pcols) if len(prov) == 2 and all(pcols) else None


def paper_games_made(spec: StudySpec) -> str | None:
    """Why a study's report has no paper's 2x2 games (``paper-game.`` fields), told from its file before any run as
    :func:`analyze` tells it from the results; None where it has them (hunt 24a-F4: a study that is itself the
    2x2 game was refused only after every run)."""
    if not market_for_workload(spec.workload["source"]).paper_analysis:
        return "the paper's 2x2 games are a scheduling market's; this market's report has none"
    rows, cols = [p.name for p in spec.providers], [c.name for c in spec.consumers]
    paper = paper_strategies({c.name: c.params() for c in spec.consumers})
    if _paper_strategies_played(rows, {p.name: p.params() for p in spec.providers}, paper) is None:
        return (
            "the paper's 2x2 games need HB with first and with k-th price at reserve 1 and the paper's FT and SRG "
            f"among the study's strategies; it plays {sorted(rows)} x {sorted(cols)}"
        )
    if (len(rows), len(cols)) == (2, 2):
        return "the study is the paper's 2x2 game itself: its games are quoted by game. fields"
    return None


def claim_keys_made(spec: StudySpec) -> set[str] | None:
    """The claim keys a provider/consumer study's report will carry (``data/claims.csv``), told from its file before
    any run (:func:`gamemarket.analysis.claims.keys_made`): none in a market the paper's analysis does not apply to;
    None where it cannot be told (a plugin's claim)."""
    if not market_for_workload(spec.workload["source"]).paper_analysis:
        return set()
    return claims.keys_made({p.name: p.params() for p in spec.providers}, {c.name: c.params() for c in spec.consumers})


def _claims(an: StudyAnalysis) -> tuple[list[tuple[str, list[dict]]], list[tuple[str, str, str]]]:
    """Claims measured on this study and on each companion study whose results are stored; and the companions
    whose results are not (name, study file, why), which the report names rather than leaving out unsaid."""
    out = [(an.spec.name, claims.evaluate(an.metrics, an.bins, an.cohorts, an.meta["consumers"], an.meta["providers"]))]
    if not out[0][1]:
        return [], []
    missing = []
    for cpath in an.spec.companions:
        cs = load_study(cpath)
        try:
            m, b, meta = load_results(cs, with_bins=True)
        except InputError as exc:
            missing.append((cs.name, str(cpath), str(exc)))
            continue
        out.append((cs.name, claims.evaluate(m, b, load_cohorts(cs), meta["consumers"], meta["providers"])))
    return out, missing


def workload_facts(spec: StudySpec) -> dict:
    """Jobs, nodes, mean run time and offered load of a study's workload (the paper's Table 1 and the
    discussion), with the records its cleaning dropped for a non-positive run time."""
    prep = load_workload(spec)
    nodes = prep.nodes
    rt = prep.arrays["runtime"].astype(float)
    sub = prep.arrays["submit"].astype(float)
    span = float(sub.max() - sub.min()) if len(sub) > 1 else 0.0
    out = {
        "jobs": len(rt),
        "nodes": nodes,
        "mean_runtime": float(rt.mean()),
        "offered_load": float(rt.sum() / (nodes * span)) if span > 0 else float("nan"),
    }
    cleaning = prep.meta.get("cleaning") or {}
    if "dropped_runtime" in cleaning:
        out["dropped_runtime"] = cleaning["dropped_runtime"]
    return out


def population_analysis(spec: StudySpec, given=None):
    """The linked population study's analysis: ``given`` (its driver's answer,
    ``gamemarket.search.population.linked_population``), else the one its last run cached; None where the study
    links none, and a ``PopulationMissing`` saying why where there is none (not run, or run by other code)."""
    if spec.population_study is None:
        return None
    if given is not None:
        return given
    try:
        pop_spec = load_study(spec.population_study)
        cached = read_analysis(pop_spec)
    except GameMarketError as exc:  # not loadable here: the report says why where it needs it
        return PopulationMissing(str(spec.population_study), str(exc))
    if cached is None:
        return PopulationMissing(
            str(spec.population_study),
            f"study {pop_spec.name!r}: its analysis (of its current runs, by this code) is not stored yet; run "
            f"`gamemarket study run {spec.population_study}`",
        )
    return cached


@dataclass(frozen=True)
class PopulationMissing:
    """A linked population study whose analysis is not there (not run, or its stored runs incomplete), and why."""

    study: str
    reason: str


def solve_game(
    game: Game,
    *,
    methods=DEFAULT_METHODS,
    resamples: int = 1000,
    time_limit: float | None = 10.0,
    progress: bool | None = None,
    complete: bool = False,
) -> SolvedGame:
    """Solve a game built in Python the way a study's games are solved: equilibria, robustness, no flags.
    ``time_limit``, ``progress`` and ``complete``: :func:`gamemarket.games.equilibria.solve`'s."""
    sol = solve(game, methods=methods, time_limit=time_limit, progress=progress, complete=complete)
    rb, stopped = robustness_of(game, sol, resamples=resamples, time_limit=time_limit, progress=progress)
    return SolvedGame(game.title, game, sol, rb, robustness_stopped=stopped)


def robustness_of(
    game: Game, sol: Solution, *, resamples: int, time_limit: float | None, progress: bool | None
) -> tuple[list[Robustness | None], str | None]:
    """The bootstrap robustness of the solution's equilibria (:func:`gamemarket.games.robustness.bootstrap`) on a
    clock of its own, ``time_limit`` seconds; where it stops there, none, and why (also among the solution's notes,
    as a note of an unfinished computation: every answer that prints the notes says it)."""
    try:
        return bootstrap(game, sol.equilibria, resamples=resamples, time_limit=time_limit, progress=progress), None
    except Stopped as exc:
        sol.notes.append(f"incomplete: {exc}")
        return [None] * len(sol.equilibria), str(exc)


def write_rescaled_nfg(game, path: Path, study: str, name: str) -> Path:
    """The game's ``.nfg`` with each player's payoffs mapped onto [0, 1] (``games.io.rescaled``: the form Gambit's
    solvers handle), the map in its comment; ``path`` returned."""
    small, maps = rescaled(game)
    with atomic_path(path, "game (.nfg)") as tmp:
        tmp.write_text(
            to_nfg(small, comment=f"gamemarket {__version__}: study {study}, {name}; {rescale_comment(maps)}"),
            encoding="utf-8",
        )
    return path


def export(analysis: StudyAnalysis, out: OutputFolder | str | Path, prefix: str = "") -> list[Path]:
    """Payoff tables (CSV), equilibria (CSV and JSON with metadata) and ``.nfg`` files of every game, written
    into the output folder ``out`` (under ``prefix``, e.g. ``data/``); a game's files are named by its
    name's slug (``gamemarket.io.names.slug``), and two games whose names make one file are refused.
    ``out`` given as a path is a folder of the caller's claiming (its own manifest is kept there)."""
    if not isinstance(out, OutputFolder):
        out = OutputFolder(out, owner=f"the data of study {analysis.spec.name}", what="data folder", force=True)

    def file(name: str) -> Path:
        return out.file(prefix + name)

    # a report's data hold no timing and no path of the machine that ran the study (its results folder keeps both)
    meta = {**analysis.meta, "workload": workload_name(analysis.meta.get("workload"))}
    runs = analysis.metrics.drop(columns=[c for c in TIMING_COLUMNS if c in analysis.metrics.columns])
    written = [write_table(runs, file("runs.csv"))]
    payload = {"study": analysis.spec.name, "version": __version__, "meta": meta, "games": []}
    eq_rows = []
    for sg in analysis.games:
        s = slug(sg.name, "game")
        written.append(write_table(to_csv_table(sg.game), file(f"payoffs-{s}.csv")))
        nfg = file(f"game-{s}.nfg")
        with atomic_path(nfg, "game (.nfg)") as tmp:
            tmp.write_text(
                to_nfg(sg.game, comment=f"gamemarket {__version__}: study {analysis.spec.name}, {sg.name}"),
                encoding="utf-8",
            )
        written.append(nfg)
        written.append(write_rescaled_nfg(sg.game, file(f"game-{s}.rescaled.nfg"), analysis.spec.name, sg.name))
        recs = equilibria_records(sg.solution, sg.robustness)
        payload["games"].append(
            {
                "name": sg.name,
                **sg.game.meta,
                "providers": sg.game.rows,
                "consumers": sg.game.cols,
                "degenerate": sg.solution.degenerate,
                "dominated_providers": sg.solution.dominated_rows,
                "dominated_consumers": sg.solution.dominated_cols,
                "notes": sg.solution.notes,
                "equilibria": recs,
            }
        )
        for k, r in enumerate(recs):
            px, py = profile_words(sg.game, sg.solution.equilibria[k], digits=4)
            eq_rows.append(
                {
                    "game": sg.name,
                    "equilibrium": k + 1,
                    "provider": px,
                    "consumer": py,
                    "provider_payoff": r["payoffs"]["provider"],
                    "consumer_payoff": r["payoffs"]["consumer"],
                    "provider_regret": r["regret"]["provider"],
                    "consumer_regret": r["regret"]["consumer"],
                    "stable_share": r.get("robustness", {}).get("stable_share"),
                }
            )
        written.append(write_table(best_responses(sg.game), file(f"best-responses-{s}.csv")))
    written.append(write_table(pd.DataFrame(eq_rows), file("equilibria.csv")))
    write_json(file("equilibria.json"), payload)
    written.append(out.path / (prefix + "equilibria.json"))
    return written
