"""A whole study as one call: :func:`run_study` does what ``gamemarket study run`` does, and returns a
:class:`StudyResult` with tidy tables; :func:`write_study_report` does what ``gamemarket report`` does.

The order is the command line's. A population study (``[game]``) runs its adaptive population game, then its
strategy exploration where it declares one, then writes its report. A provider/consumer study runs the population
study it quotes (``population_study``) first where it writes a report, then its companions and itself, then the
shading-gain experiment it declares (``[gains]``), then analyses the stored runs and writes the report. The
report folder is claimed before any simulation (another study's folder is refused first), and the claim is undone
if the work fails before the report writes a file.

One lock for every writer of a study: a study run holds its study's lock (``ResultStore.lock``, on the results
folder) from its first run to its report's last file, and ``write_study_report`` holds it while it writes, so a
``report`` beside a ``study run`` of the same study waits for nothing and breaks nothing: it exits, naming the run
that holds the study.

What the command prints as it goes is passed to ``log`` one line at a time (the CLI passes ``print``; the default
says nothing), so a long run tells where it is without the library printing on its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from gamemarket.analysis.claims import claim_key_problem
from gamemarket.analysis.incentives import measured_ways
from gamemarket.analysis.population_cache import analysis_key
from gamemarket.analysis.study import DEFAULT_METHODS, StudyAnalysis, analyze, claim_keys_made, paper_games_made
from gamemarket.errors import InputError, check_flag
from gamemarket.games.equilibria import check_methods
from gamemarket.games.io import profile_words
from gamemarket.io.files import shown_path
from gamemarket.io.limits import check_workers
from gamemarket.io.names import slug
from gamemarket.market.base import market_for_workload
from gamemarket.plugins import local_workers
from gamemarket.reports.answer import play_words, rows
from gamemarket.reports.console import exploration_lines, population_lines
from gamemarket.reports.design import points_table, write_design_report
from gamemarket.reports.exploration import explored_equilibria
from gamemarket.reports.markdown import duration
from gamemarket.reports.population import tables, write_population_report
from gamemarket.reports.report import claim_folder, write_report
from gamemarket.search.design import read_answer, run_design, write_answer
from gamemarket.search.exploration import run_exploration, store_exploration
from gamemarket.search.population import linked_population, plan_text, run_population_study
from gamemarket.studies import load_study
from gamemarket.studies import run_study as run_simulations
from gamemarket.studies.gains import run_gains
from gamemarket.studies.runner import PLAN_SAY_RUNS, StudyRun, load_results, planned_runs, runs_plan_text
from gamemarket.studies.scheduler import identify
from gamemarket.studies.schema import NOTE_KINDS
from gamemarket.studies.spec import StudySpec, note_fields
from gamemarket.studies.store import study_store

Log = Callable[[str], None]


def _quiet(line: str) -> None:
    """The default ``log``: the library prints nothing of its own."""


def _checked_call(log, **flags) -> Log:
    """A call's ``log`` (a callable, or None: nothing said) and its yes-or-no arguments (True or False: a text such as
    ``write_report='no'`` was true), before anything runs; the log to use."""
    if log is not None and not callable(log):  # (a string failed after every run, at the first line said)
        raise InputError(f"log must be a callable taking each line, such as print; got {log!r}")
    for name, value in flags.items():
        check_flag(value, name)
    return log or _quiet


def _spec(study, results, report) -> StudySpec:
    """``study`` as a :class:`StudySpec`: a path is loaded with the ``results`` and ``report`` folders where given
    (as ``--results`` and ``--report`` do); a spec is taken as it is, so it names its own folders."""
    if isinstance(study, StudySpec):
        if results is not None or report is not None:
            raise InputError(
                f"study {study.name}: results= and report= replace a study file's [output] folders as it is "
                "loaded; pass the study's path, or a spec loaded with them (load_study(path, results=, report=))"
            )
        # checked again as it is now: a spec changed in Python after it loaded (seeds = [], providers given as
        # names, its report folder set to its results folder) failed deep inside the run, or ran
        study.validate()
        return study
    for what, folder in (("results", results), ("report", report)):  # ('' was the working folder)
        if isinstance(folder, str) and not folder.strip():
            raise InputError(f"{what}= must be a folder's path, got {folder!r}; leave it out for the study file's own")
    return load_study(study, results=results, report=report)


#: what a design study's result answers with, where a method of the other kinds is called on it
_DESIGN_READS = (
    "a design study's answer is its design (.design: the chosen mechanism; .design.points: each point with its "
    "users' equilibrium, objective and constraints; the report's data/design-points.csv), not answers(), "
    "equilibria() or metrics()"
)


@dataclass(frozen=True)
class StudyResult:
    """What :func:`run_study` did and what the study answers.

    Attributes
    ----------
    spec : StudySpec
        The study as it ran (its folders included).
    runs : tuple
        Provider/consumer study: one :class:`~gamemarket.studies.runner.StudyRun` per study run (its companions,
        then itself). Population study: empty (its runs are counted in ``population.runs``).
    population : PopulationAnalysis or None
        A population study's answer over its own menu of rules.
    exploration : ExplorationAnswer or None
        Its strategy exploration's answer, where the study declares one (the report's answer then).
    report : Path or None
        The report's HTML file, where one was written.
    design : DesignAnswer or None
        A design study's answer (``[design]``): the chosen mechanism, every design evaluated, the confirmation.
    wall_seconds : float
        The whole call's time.
    methods : tuple
        The equilibrium methods of a provider/consumer study's analysis.
    """

    spec: StudySpec
    runs: tuple = ()
    population: object | None = None
    exploration: object | None = None  #: an ExplorationAnswer (gamemarket.io.explored)
    report: Path | None = None
    design: object | None = None  #: a DesignAnswer (gamemarket.search.design), where the study has ``[design]``
    wall_seconds: float = 0.0
    methods: tuple = DEFAULT_METHODS
    _analysis: StudyAnalysis | None = field(default=None, repr=False, compare=False)

    @property
    def kind(self) -> str:
        """``"design"`` (a ``[design]`` study), ``"population"`` (a ``[game]`` study) or ``"bimatrix"`` (a
        provider/consumer game)."""
        if self.spec.design is not None:
            return "design"
        return "population" if self.spec.population is not None else "bimatrix"

    @cached_property
    def analysis(self) -> StudyAnalysis | None:
        """A provider/consumer study's analysis of its stored runs (the report's, where one was written; else
        made on first use, simulating nothing); None for a population study."""
        if self.kind != "bimatrix":
            return None
        if self._analysis is not None:
            return self._analysis
        return analyze(self.spec, methods=tuple(self.methods))

    def metrics(self) -> pd.DataFrame:
        """The stored payoffs, one row per run (provider strategy x consumer strategy x seed); a provider/consumer
        study's only (a population study's runs are keyed by mixture: see ``population``)."""
        if self.design is not None:  # (hunt 21a-W5: a design study was told it was a population study)
            raise InputError(f"study {self.spec.name}: {_DESIGN_READS}")
        if self.kind != "bimatrix":
            raise InputError(f"study {self.spec.name}: a population study's runs are read through its answer")
        return load_results(self.spec).metrics

    def answers(self) -> pd.DataFrame:
        """A population study's answer, one row per mechanism, as its report's first table: what users play,
        epsilon against the tolerance and the verdict, revenue and welfare (mean and 95% CI) at the provider's
        worst equilibrium, the provider's ranking (ties ranked equally, ``tied_with`` naming the others), and where
        the answer comes from (exploration or menu)."""
        if self.design is not None:  # (hunt 21a-W5: answers() sent a design study to equilibria(), which sent it on)
            raise InputError(f"study {self.spec.name}: {_DESIGN_READS}")
        if self.population is None:
            raise InputError(f"study {self.spec.name}: answers() is a population study's; see equilibria()")
        out = []
        for r in rows(self.population, self.exploration):
            out.append(
                {
                    "mechanism": r.mechanism,
                    "users_play": play_words(r),
                    "equilibria": len(r.equilibria),
                    "epsilon": r.epsilon,
                    "tolerance": r.tolerance,
                    "verdict": r.verdict,
                    "revenue": r.revenue[0],
                    "revenue_low": r.revenue[1],
                    "revenue_high": r.revenue[2],
                    "welfare": r.welfare[0],
                    "welfare_low": r.welfare[1],
                    "welfare_high": r.welfare[2],
                    "provider_rank": r.rank,
                    "tied_with": ", ".join(r.tied),  # the mechanisms of the same rank (worst revenue equal)
                    "simultaneous": r.simultaneous,
                    "source": r.source,
                }
            )
        return pd.DataFrame(out)

    def equilibria(self) -> pd.DataFrame:
        """Every equilibrium the study reports, one row each. Provider/consumer study: per game, each
        equilibrium's profiles in words, payoffs and regrets. Population study: per mechanism, each equilibrium
        of the answer, numbered as the report numbers it: where an exploration ran, its equilibria in
        ``data/exploration.json``'s order (epsilon, tolerance, verdict, revenue and welfare with their 95% CIs, the
        round they come from); else the rows of ``data/population-equilibria.csv`` (regret with its CI, verified,
        stability, revenue, welfare; rejected candidates included, ``verified`` "no")."""
        if self.design is not None:
            raise InputError(f"study {self.spec.name}: {_DESIGN_READS}")
        if self.population is not None:
            # the report's numbering and columns (hunt 15: numbered worst first, as the first table lists them, where
            # the report, its CSV and population.json number them as the study found them): the exploration's
            # equilibria as data/exploration.json lists them, else data/population-equilibria.csv's rows
            if self.exploration is not None:
                return explored_equilibria(self.exploration).assign(source="exploration")
            return tables(self.population)[0].assign(source="menu")
        out = []
        for sg in self.analysis.games:
            g = sg.game
            for k, e in enumerate(sg.solution.equilibria):
                px, py = profile_words(g, e, digits=4)
                out.append(
                    {
                        "game": sg.name,
                        "equilibrium": k + 1,
                        "pure": bool(e.pure),
                        "provider": px,
                        "consumer": py,
                        "provider_payoff": float(e.payoffs[0]),
                        "consumer_payoff": float(e.payoffs[1]),
                        "provider_regret": float(e.regret[0]),
                        "consumer_regret": float(e.regret[1]),
                    }
                )
        cols = ["game", "equilibrium", "pure", "provider", "consumer"]
        cols += ["provider_payoff", "consumer_payoff", "provider_regret", "consumer_regret"]
        return pd.DataFrame(out, columns=cols)

    def summary(self) -> str:
        """One line: the study, what ran, and where the report is."""
        if self.design is not None:
            where = f"; report {self.report}" if self.report is not None else ""
            return (
                f"study {self.spec.name} (design): {self.design.simulations:,} simulations, chosen "
                f"{self.design.chosen or 'none'}{where}"
            )
        if self.population is not None:
            ran = f"{self.population.runs.simulations:,} simulations"
            if self.exploration is not None:
                ran += f" and an exploration of {self.exploration.simulations:,}"
        else:
            ran = f"{sum(r.tasks for r in self.runs):,} runs ({sum(r.run for r in self.runs):,} run now)"
        where = f"; report {self.report}" if self.report is not None else ""
        return f"study {self.spec.name} ({self.kind}): {ran}{where}"

    def _repr_html_(self) -> str:
        if self.design is not None:
            head = self.summary().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            return f"<p><b>{head}</b></p>" + points_table(self.design).to_html(index=False, na_rep="-")
        table = self.answers() if self.population is not None else self.equilibria()
        head = self.summary().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return f"<p><b>{head}</b></p>" + table.to_html(index=False, na_rep="-")


@contextmanager
def _report_claimed(spec: StudySpec, write: bool, force: bool):
    """The study's report folder claimed before the work (a folder that is not the study's is refused before any
    simulation), held to the report's last file, and the claim undone if the work or the report fails (a failed
    report, whose files are staged, leaves the folder as it was: none at all where the claim made it)."""
    if not write:
        yield None
        return
    folder = claim_folder(Path(spec.report_dir), spec, force)
    try:
        yield folder
    except BaseException:
        folder.abandon()
        raise
    finally:
        folder.release()  # the folder held from before the work to the report's last file (OutputFolder exclusive)


def run_study(
    study: str | Path | StudySpec,
    *,
    results: str | Path | None = None,
    report: str | Path | None = None,
    write_report: bool = True,
    n_jobs: int = 1,
    scheduler_address: str | None = None,
    progress: bool = False,
    force: bool = False,
    methods: tuple = DEFAULT_METHODS,
    log: Log | None = None,
) -> StudyResult:
    """Run what is missing of a study and write its report: ``gamemarket study run`` as a call.

    Parameters
    ----------
    study : path or StudySpec
        The study file (``.toml``), or a study already loaded (``gamemarket.studies.load_study``).
    results, report : path, optional
        The results and report folders, replacing the study file's ``[output]`` table (``--results``,
        ``--report``); only with a path.
    write_report : bool
        Write the report (``--no-report``: False). A provider/consumer study's analysis is then made on first use
        of :attr:`StudyResult.analysis` or :meth:`StudyResult.equilibria`.
    n_jobs : int
        Worker processes (-1: all cores); the numbers are the same for any value.
    scheduler_address : str, optional
        A dask.distributed scheduler to run the simulations on; it is identified before any folder is claimed.
    progress : bool
        Progress bars on stderr.
    force : bool
        Write into a results or report folder gamemarket did not make, or another study's (``--force``): this
        study's folders only, never its companions'.
    methods : tuple of str
        The equilibrium methods of a provider/consumer study's analysis.
    log : callable, optional
        Called with each line the command prints (default: nothing is said).

    Returns
    -------
    StudyResult

    Raises
    ------
    InputError
        A study that does not load, a folder that is not the study's, an address that is not a scheduler.
    """
    log = _checked_call(log, write_report=write_report, progress=progress, force=force)
    t0 = time.perf_counter()
    check_workers(n_jobs)  # before anything runs or is claimed
    if scheduler_address is not None:  # before any folder is claimed or locked: what answers there, named
        identify(scheduler_address)
    methods = tuple(check_methods(methods))  # ("pure" asked for method 'p')
    spec = _spec(study, results, report)
    _methods_apply(spec, methods)
    _notes_keys_known(spec)
    # an entry registered in this process only runs here, whichever search or runner fans out (hunt 20a-F3)
    n_jobs = local_workers(spec.played_params(), n_jobs, scheduler_address, f"study {spec.name!r}")
    how = {"n_jobs": n_jobs, "scheduler_address": scheduler_address, "progress": progress}
    if spec.design is not None:
        return _design(spec, how, write_report=write_report, force=force, log=log, t0=t0)
    if spec.population is not None:
        return _population(spec, how, write_report=write_report, force=force, log=log, t0=t0)
    with ExitStack() as held:  # (every folder the study and its companions write, claimed before any population run)
        _claim_outputs(spec, write_report, force, held)
        _linked_populations(spec, how, write_report, log, t0)
        return _bimatrix(spec, how, write_report=write_report, force=force, methods=tuple(methods), log=log, t0=t0)


def companions_of(spec: StudySpec) -> list[StudySpec]:
    """Every study ``spec`` brings along as a companion: its companions, theirs, and so on, each once, a companion's
    own before it (so that a companion's report finds what it quotes); ``spec`` itself and a cycle back to it left
    out (hunt 29a-W3: a companion's companion was never run, its report said "not measured", its folders unchecked)."""
    out: list[StudySpec] = []
    seen = {Path(spec.path).resolve()}

    def visit(who: StudySpec) -> None:
        for path in who.companions:
            companion = load_study(path)
            key = Path(companion.path).resolve()
            if key in seen:
                continue
            seen.add(key)
            visit(companion)
            out.append(companion)

    visit(spec)
    return out


def _claim_outputs(spec: StudySpec, write_report: bool, force: bool, held: ExitStack) -> None:
    """The folders a provider/consumer study writes, claimed (and locked) before any run: its report and results,
    and each companion's (hunt 27a-F3/F4: a companion's report folder, or the study's own report folder, was refused
    only after every run, its population study's among them, and their reports had been written)."""
    held.enter_context(_report_claimed(spec, write_report, force))
    held.enter_context(study_store(spec, force=force).lock())
    for companion in companions_of(spec):
        held.enter_context(study_store(companion).lock())
        held.enter_context(_report_claimed(companion, write_report, False))


def _linked_populations(spec: StudySpec, how: dict, write_report: bool, log: Log, t0: float) -> None:
    """The population studies the study's report and its companions' quote, run first (hunt 27a-F2: a companion's
    was never run, and its report failed at the end for want of its analysis)."""
    if not write_report:
        return
    for who in [spec] + companions_of(spec):
        if who.population_study is not None:
            log(f"study {who.name} quotes the population study {who.population_study}: running it first")
            _population(load_study(who.population_study), how, write_report=True, force=False, log=log, t0=t0)


def check_notes(spec: StudySpec) -> None:
    """Refuse a discussion field the study cannot make, before any run (``study status`` says it too: hunt 22b-W10
    found it only from ``study run``); :func:`_notes_keys_known`."""
    _notes_keys_known(spec)


def _notes_keys_known(spec: StudySpec, _seen: frozenset = frozenset()) -> None:
    """A discussion's claim fields (``{claim.<key>.ci}``, a companion's ``{<study>.claim.<key>.ci}``) are refused
    before any run where no registered claim carries the key (their kind and last part are checked as the study is
    read; the claims, a registry plugins may add to, only here), or where the study (or the companion) quoted makes
    no row of that key, as told from its strategies (``claim_keys_made``: ``{claim.c1.ci}`` in a study without SRG
    was refused only after every run, hunt 20d-W3): the report would fail after every simulation."""
    own = market_for_workload(spec.workload["source"])
    if not _seen:
        _folders_apart(spec)
        _companions_named_apart(spec)
    seen = _seen | {Path(spec.path).resolve()}
    for path in spec.companions:  # (hunt 24a-F6: a pricing companion of a scheduling study, KeyError after every run)
        companion = load_study(path)
        if Path(companion.path).resolve() not in seen:  # its own notes, as its report will need them (hunt 27a-F1)
            _notes_keys_known(companion, seen)
        other = market_for_workload(companion.workload["source"])
        if own.paper_analysis and not other.paper_analysis:
            raise InputError(
                f"{spec.path}: field 'companions': {path} is a {other.kind}-market study; a companion's claims are the "
                f"paper's, evaluated on its runs, which a {other.kind} market's runs cannot answer: expected a "
                f"{own.kind}-market study"
            )
    made: dict[str, set[str] | None] = {}
    for f in note_fields(spec.notes or ""):
        problem = _note_field_unmade(spec, f)  # (hunt 22a-F2: every kind but claim keys was found after the runs)
        if problem:
            raise InputError(f"{spec.path}: 'notes' field {{{f}}}: {problem}")
        parts = f.split(".")
        at = parts.index("claim") if "claim" in parts[:2] else None
        if at is None or len(parts) < at + 3:
            continue
        key = ".".join(parts[at + 1 : -1])
        problem = claim_key_problem(key)
        if problem:
            raise InputError(f"{spec.path}: 'notes' field {{{f}}}: {problem}")
        who = spec if at == 0 else _companion_named(spec, parts[0])
        if who is None or who.population is not None or who.design is not None:
            continue  # (a name that is no companion's, or a study without claims: the report's own check says so)
        if who.name not in made:
            made[who.name] = claim_keys_made(who)
        keys = made[who.name]
        if keys is not None and key not in keys:
            whose = "this study" if at == 0 else f"the companion study {who.name!r}"
            listed = ", ".join(sorted(keys)) if keys else "none (no claim of the paper applies to its strategies)"
            raise InputError(
                f"{spec.path}: 'notes' field {{{f}}}: {whose} makes no claim row of key {key!r}: a claim's rows are "
                f"made where its strategies are played (claims (1)-(3) need the paper's FT and SRG and an HB "
                f"mechanism; (4) HB with first and k-th price). The keys it makes: {listed}"
            )


def _companions_named_apart(spec: StudySpec) -> None:
    """Refuse two companions of one name (two files both ``name = "tiny"``): the report's comparison gave them two
    columns headed alike, and a ``{tiny.claim...}`` field could not say which it quotes (hunt 30a-W5)."""
    for who in [spec] + companions_of(spec):  # (its companions' own companions are run and reported too)
        named: dict[str, Path] = {who.name: Path(who.path)}  # (a companion named as the study itself, alike)
        for path in who.companions:
            companion = load_study(path)
            if companion.name in named and named[companion.name].resolve() != Path(companion.path).resolve():
                raise InputError(
                    f"{who.path}: field 'companions': {named[companion.name]} and {companion.path} are both named "
                    f"{companion.name!r}; a report's columns and notes fields name a companion by its study name: "
                    "give each its own (the field 'name' of one of them)"
                )
            named[companion.name] = Path(companion.path)


def _folders_apart(spec: StudySpec) -> None:
    """Refuse, before any run, a study whose results or report folder is also one of the studies it brings along
    (its companions, its population study), or two of those that share one: a folder holds one study's output, and
    the clash was found only after runs and reports had been written (hunt 25a-W1, 26a-F1/F2)."""
    studies = [("this study", spec)]
    studies += [(f"its companion {c.path} (field 'companions')", c) for c in companions_of(spec)]
    populations = [spec.population_study] + [who.population_study for _, who in studies[1:]]
    studies += [(f"the population study {p}", load_study(p)) for p in dict.fromkeys(populations) if p is not None]
    seen: dict[Path, tuple[str, str, Path]] = {}
    for who, study in studies:
        for kind, folder in (("results", study.results_dir), ("report", study.report_dir)):
            key, own = Path(folder).resolve(), Path(study.path).resolve()
            # the same folder, or one inside another study's (hunt 27a-F3, W2: a companion's report inside the
            # study's results/runs, its results inside the study's report folder, found after every run or never)
            clash = next(
                (
                    v
                    for k, v in seen.items()
                    if v[2] != own and (k == key or key.is_relative_to(k) or k.is_relative_to(key))
                ),
                None,
            )
            if clash is not None:
                first, first_kind, _ = clash
                raise InputError(
                    f"{spec.path}: {who} keeps its {kind} in {folder}, which is (or holds, or lies inside) {first}'s "
                    f"{first_kind} folder; a folder holds one study's output: expected each study its own results and "
                    "report folders, apart ([output] results, report)"
                )
            seen.setdefault(key, (who, kind, own))


#: the population fields of the whole study (``population.study``, ``population.leader``): every other one is a
#: mechanism's (``population.<mechanism>.truthful``, ...: ``reports.discussion.population_facts``)
POPULATION_WIDE = frozenset({"study", "leader"})


def _note_field_unmade(spec: StudySpec, field: str) -> str | None:
    """Why the study cannot make a discussion field, where its file alone tells (the tables a kind needs, the games,
    strategies and companions it names, the population study's mechanisms), or None."""
    head, _, rest = field.partition(".")
    middle = rest.split(".")
    if head == "paper" and not spec.paper:
        return "the study has no [paper] table, whose figures paper. fields quote"
    if head == "paper" and rest not in {*spec.paper, "jobs_minus_ours"} - {"source"}:
        return f"its [paper] table has no {rest!r}; it has {sorted(set(spec.paper) - {'source'})}"
    if head == "growth" and not spec.gains:
        return "the study has no [gains] table, whose sizes growth. fields quote"
    if head in ("market", "growth", "workload") and (problem := _market_field_unmade(spec, head, rest)):
        return problem
    if head == "paper-game" and (problem := paper_games_made(spec)):
        return problem
    if head in ("game", "paper-game") and middle[0] not in {slug(g.name) for g in spec.games}:
        return f"the study has no game {middle[0]!r}; its games are {sorted(slug(g.name) for g in spec.games)}"
    if head == "gains" and len(middle) >= 2:
        providers, consumers = {p.name for p in spec.providers}, {c.name for c in spec.consumers}
        if middle[0] not in providers or middle[1] not in consumers:
            return f"gains.<mechanism>.<consumer strategy>: the study plays {sorted(providers)} x {sorted(consumers)}"
    if head == "population":
        if spec.population_study is None:
            return "the study names no population_study, whose answer population. fields quote"
        if (len(middle) == 1) != (middle[-1] in POPULATION_WIDE):  # (hunt 29a-F1: {population.truthful} and
            # {population.hb-first.leader} passed, refused by the report after every run)
            return (
                "population fields are population.<mechanism>.truthful, .best_rule, .best_gain or .equilibria, and "
                f"population.{' or population.'.join(sorted(POPULATION_WIDE))} (the whole study's)"
            )
        if len(middle) > 1:
            mechanisms = {p.name for p in load_study(spec.population_study).providers}
            if middle[0] not in mechanisms:
                return f"the population study has no mechanism {middle[0]!r}; its mechanisms are {sorted(mechanisms)}"
    if head not in NOTE_KINDS and _companion_named(spec, head) is None:
        return (
            f"no companion study is named {head!r}; the companions are {[load_study(c).name for c in spec.companions]}"
        )
    return None


def _market_field_unmade(spec: StudySpec, head: str, rest: str) -> str | None:
    """:func:`_note_field_unmade` of a ``market.`` field (the market's own size: hunt 23c-F3, ``{market.resources}``
    of a scheduling market was refused after the runs), of a ``growth.`` field's mechanism and group, and of the
    ``workload.`` fields a market or a workload never makes (hunt 24a-F4: refused after every run)."""
    middle = rest.split(".")
    market = market_for_workload(spec.workload["source"])
    if head == "workload" and not market.paper_analysis:
        return (
            f"the {market.kind} market's report has no workload. figures; market.jobs and "
            f"market.{market.size_name} say its size"
        )
    if head == "workload" and rest == "dropped_runtime" and spec.workload["source"] in market.generator_sources:
        return "a generated workload drops no record: workload.dropped_runtime is a trace's (SWF) cleaning count"
    if head == "market" and rest != "jobs":
        size = market_for_workload(spec.workload["source"]).size_name
        if rest != size:
            return f"the study's market counts {size}: market. is followed by jobs or {size}, not {rest!r}"
    if head == "growth" and len(middle) >= 3:
        providers, ways = [p.name for p in spec.providers], list(measured_ways(spec))
        if middle[0] not in providers or middle[1] not in ways:
            return f"growth.<mechanism>.<group>: the study's gains measure {sorted(providers)} x {sorted(ways)}"
    return None


def _companion_named(spec: StudySpec, name: str) -> StudySpec | None:
    """The companion study of ``spec`` named ``name``, or None."""
    for path in spec.companions:
        companion = load_study(path)
        if companion.name == name:
            return companion
    return None


def _methods_apply(spec: StudySpec, methods) -> None:
    """Equilibrium methods other than the default are refused for a study whose answer is not a bimatrix game's (a
    population or design study searches its role-symmetric game its own way): they would have no effect."""
    if (spec.population is not None or spec.design is not None) and tuple(methods) != tuple(DEFAULT_METHODS):
        kind = "design" if spec.design is not None else "population"
        raise InputError(
            f"study {spec.name!r}: --methods applies to a provider/consumer study's games; a {kind} study searches "
            "its role-symmetric game its own way (leave it out: it would have no effect)"
        )


def _population(spec: StudySpec, how: dict, *, write_report: bool, force: bool, log: Log, t0: float) -> StudyResult:
    """A population study: its adaptive game, its exploration where declared, its report, under its lock (taken
    once its report folder is claimed, so another's folder is refused before anything is made; held to the report's
    last file)."""
    with ExitStack() as held:
        return _population_locked(spec, how, write_report=write_report, force=force, log=log, t0=t0, held=held)


def _population_locked(
    spec: StudySpec, how: dict, *, write_report: bool, force: bool, log: Log, t0: float, held: ExitStack
) -> StudyResult:
    held.enter_context(_report_claimed(spec, write_report, force))
    held.enter_context(study_store(spec, force=force).lock())
    log(plan_text(spec))
    an = run_population_study(spec, force=force, log=log, **how)
    log(
        f"study {spec.name}: {an.runs.simulations:,} simulations ({an.runs.run_now:,} run now) in "
        f"{duration(an.runs.wall_seconds)}; results in {shown_path(spec.results_dir)}"
    )
    for line in population_lines(an, comparison=spec.exploration is not None):
        log(line)
    ex = None
    if spec.exploration is not None:
        ex = run_exploration(spec, analysis=an, **how)
        store_exploration(spec, ex)  # with the results: `report` renders it, whether or not this run writes one
        for line in exploration_lines(ex):
            log(line)
    path = None
    if write_report:  # the web page, as a provider/consumer study's run names its own (the Markdown beside it)
        path = write_population_report(an, force=force, exploration=ex).with_name("index.html")
        log(f"report: {shown_path(path)}")
    return StudyResult(spec, (), an, ex, path, wall_seconds=time.perf_counter() - t0)


def _design(spec: StudySpec, how: dict, *, write_report: bool, force: bool, log: Log, t0: float) -> StudyResult:
    """A design study (``[design]``): its search (each point's population game, the confirmation on fresh seeds),
    its answer stored in the results folder, its report; under its lock, as a population study's."""
    with ExitStack() as held:
        held.enter_context(_report_claimed(spec, write_report, force))
        held.enter_context(study_store(spec, force=force).lock("design study run"))
        before = _records(spec)
        ans = run_design(spec, log=log, **how)
        write_answer(spec, ans, force=force)
        new = len(_records(spec) - before)
        # what ran now against what was reused, as the other kinds say it, and its record (hunt 21a-W7: neither)
        study_store(spec, force=force).write_record(  # (its own claim, as the answer's writer has; --force's: 33a-F1)
            "last-run.json",
            {
                "kind": "design",
                "simulations": ans.simulations,
                "records_stored_now": new,
                "wall_seconds": ans.wall_seconds,
                "n_jobs": how["n_jobs"] if not how.get("scheduler_address") else f"dask {how['scheduler_address']}",
                "workload": ans.workload.get("workload"),
                "jobs": ans.workload.get("jobs"),
                "chosen": ans.chosen,
                "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            },
        )
        log(
            f"study {spec.name}: {ans.simulations:,} simulations ({new:,} population records stored now, the rest "
            f"reused) in {duration(ans.wall_seconds)}; chosen {ans.chosen or 'none'}; results in "
            f"{shown_path(spec.results_dir)}"
        )
        path = None
        if write_report:
            path = write_design_report(ans, spec, force=force).with_name("index.html")
            log(f"report: {shown_path(path)}")
        return StudyResult(spec, report=path, wall_seconds=time.perf_counter() - t0, design=ans)


def _records(spec: StudySpec) -> set[str]:
    """The names of the population records stored in a study's results folder (a design study's runs)."""
    folder = Path(spec.results_dir) / "population"
    return {p.name for p in folder.glob("*.json")} if folder.is_dir() else set()


def _bimatrix(
    spec: StudySpec, how: dict, *, write_report: bool, force: bool, methods: tuple, log: Log, t0: float
) -> StudyResult:
    """A provider/consumer study: its companions and itself, its shading gains where declared, its report, under
    the locks and claims :func:`run_study` took for them all (:func:`_claim_outputs`)."""
    runs = []
    companions = companions_of(spec)
    for s in companions + [spec]:
        if planned_runs(s) > PLAN_SAY_RUNS:  # a large study's plan before its runs (hunt 31a-W2: none was said)
            log(runs_plan_text(s))
        info: StudyRun = run_simulations(s, force=force and s is spec, **how)
        runs.append(info)
        log(
            f"study {s.name}: {info.tasks:,} runs ({info.skipped:,} already stored, {info.run:,} run now) "
            f"in {duration(info.wall_seconds)}; results in {shown_path(s.results_dir)}"
        )
    if spec.gains:
        t1 = time.perf_counter()
        run_gains(spec, **how)
        log(f"shading gains over market sizes {spec.gains['jobs']}: {duration(time.perf_counter() - t1)}")
    path = an = None
    if write_report:
        t1 = time.perf_counter()
        an = analyze(spec, methods=methods, for_report=True, population=linked_population(spec))
        path = write_report_(an, force=force, n_jobs=how["n_jobs"])
        # the times go to the log, not into the report (a report written again from the same results is the same)
        log(
            f"report: {shown_path(path)} (written in {duration(time.perf_counter() - t1)}; "
            f"{duration(time.perf_counter() - t0)} in all)"
        )
        for companion in companions:  # each reported as it is run (hunt 21a-W6: the
            # schema's "run and reported alongside" and the docs' companion report were written by no command)
            cpath = write_report_(analyze(companion, methods=methods, for_report=True), n_jobs=how["n_jobs"])
            log(f"companion report: {shown_path(cpath)}")
    return StudyResult(
        spec, tuple(runs), None, None, path, wall_seconds=time.perf_counter() - t0, methods=methods, _analysis=an
    )


write_report_ = write_report  # the report writer, under a name the ``write_report`` flag does not hide


def write_study_report(
    study: str | Path | StudySpec,
    *,
    results: str | Path | None = None,
    report: str | Path | None = None,
    force: bool = False,
    methods: tuple = DEFAULT_METHODS,
    log: Log | None = None,
) -> Path:
    """Write a study's report from its stored runs, simulating nothing: ``gamemarket report`` as a call.

    Parameters are :func:`run_study`'s; a run that is not stored is an :class:`InputError` naming it. Returns
    the report's HTML file.
    """
    log = _checked_call(log, force=force)
    methods = tuple(check_methods(methods))
    spec = _spec(study, results, report)
    _methods_apply(spec, methods)
    _notes_keys_known(spec)
    # the folder claimed first (another study's is refused before the work), and given back as it was if the work
    # fails (a run missing, a report that does not write): a failed report leaves no folder behind
    with _writer_lock(spec, force), _report_claimed(spec, True, force):
        return _write_report_locked(spec, force=force, methods=methods, log=log)


def _writer_lock(spec: StudySpec, force: bool):
    """The study's lock for a report written from its stored runs; none where its results folder is not there (no
    runs to report: the analysis says so) or cannot be written (results shared read-only: no one writes them)."""
    results = Path(spec.results_dir)
    if not results.is_dir() or not os.access(results, os.W_OK | os.X_OK):
        return nullcontext()
    if spec.population is not None and spec.design is None:
        return _population_report_lock(spec, force)
    return study_store(spec, force=force).lock("report", guest=True)  # (never taken over: hunt 25a-F1)


def _population_report_lock(spec: StudySpec, force: bool):
    """The lock of a population study's report from its stored runs, whose refusal (the results folder is another
    study's) says what the report does there: it reads the runs, and writes only its lock and its analysis cache
    (hunt 18b, F6: "it would replace: .lock, last-run.json", the other study's manifest, where the report rewrites
    its lock, never writes ``last-run.json``, and wrote its cache, ``analysis/population-<key>.json``)."""
    writes = (
        "a report reads its runs, and writes there only its lock, .lock, and its analysis cache, "
        f"analysis/population-{analysis_key(spec)}.json, entering them in the folder's manifest under this study; "
        "it removes none of the folder's files"
    )
    return study_store(spec, force=force).lock("report", writes=writes, guest=True)


def _write_report_locked(spec: StudySpec, *, force: bool, methods: tuple, log: Log) -> Path:
    t0 = time.perf_counter()
    if spec.design is not None:
        ans = read_answer(spec)
    elif spec.population is not None:
        an = run_population_study(spec, run=False)
    else:
        an = analyze(spec, methods=tuple(methods), for_report=True, population=linked_population(spec))
    if spec.design is not None:
        path = write_design_report(ans, spec, force=force).with_name("index.html")
        log(f"report: {shown_path(path)}")
        return path
    if spec.population is not None:
        path = write_population_report(an, force=force).with_name("index.html")
        log(f"report: {shown_path(path)}")
        return path
    path = write_report_(an, force=force)
    log(f"report: {shown_path(path)} (written in {duration(time.perf_counter() - t0)})")
    return path
