"""The population study's driver: run the reduced games' grid, verify the candidates, add seeds where a verdict is
still open, and answer the provider's questions.

The answers themselves are computed from stored runs by ``gamemarket.analysis.population`` (which never runs a
simulation); this module decides which runs those answers need, has them made (``PopulationRuns.ensure``) and
caches the result. Verification: each candidate's paired records (``gamemarket.studies.deviations``: a base run at
the candidate, every rule on a block of probe agents of its own). Adaptive seeds: a mechanism gets ``seed_step``
more seeds while one of its verdicts is undecided, up to ``max_seeds``, every interval at ``1 - ALPHA / looks``
(Bonferroni over the planned looks [Jennison2000]_), so that a verdict is wrong with probability at most ``ALPHA``
whichever look decides it.

References
----------
.. [Jennison2000] C. Jennison and B. W. Turnbull, "Group Sequential Methods with Applications to Clinical Trials",
   Chapman & Hall/CRC (2000), chapter 2 (Pocock's design) and chapter 9 (repeated confidence intervals).
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import replace

import numpy as np

from gamemarket.analysis.population import (
    PopulationGames,
    combined_verdict,
    decide,
    dominant_mechanism,
    search_counts,
)
from gamemarket.analysis.population_cache import read_analysis, write_analysis
from gamemarket.analysis.study import PopulationMissing
from gamemarket.errors import GameMarketError
from gamemarket.games.reduction import population_points
from gamemarket.games.rsg_equilibria import DUPLICATES_NOTE, SymmetricEquilibrium, equilibria, stability
from gamemarket.io.answers import (
    Interval,
    JointAnswer,
    JointEquilibrium,
    MechanismAnswer,
    PopulationAnalysis,
    PopulationMeta,
    ProviderChoice,
    RankedMechanism,
    RunAccounting,
    SimultaneousChoice,
    VerifiedEquilibrium,
)
from gamemarket.io.files import atomic_path, dumps_json
from gamemarket.studies import load_study
from gamemarket.studies.population import mix_key, on_scheduler
from gamemarket.studies.scheduler import identify
from gamemarket.studies.store import study_store


def run_population_study(
    spec,
    *,
    n_jobs: int = 1,
    progress: bool = False,
    run: bool = True,
    force: bool = False,
    scheduler_address: str | None = None,
    log=None,
) -> PopulationAnalysis:
    """Run (or resume) a population study and answer it (see the module docstring).

    With ``run=False`` nothing is simulated: a run that is not stored yet is an error. With
    ``run=True`` the study's results folder is claimed (``force``: one gamemarket did not make, or another
    study's) and locked: a second run of the same study exits with a clear message instead of doing the
    work twice. An analysis cached under the current
    :func:`analysis_key` is read back instead of computed.

    Parameters
    ----------
    spec : StudySpec
        A population study (``spec.population`` set).
    n_jobs : int
        Worker processes for the runs.
    progress : bool
        Show a progress bar while running.
    run : bool
        Run what is missing (and lock the results folder), or only read what is stored.
    force : bool
        Claim a results folder gamemarket did not make, or another study's.
    scheduler_address : str, optional
        A dask.distributed scheduler to run the simulations on (``n_jobs`` is then unused); the stored runs,
        and so the answer, are the same as a local run's. An address that no scheduler answers is an
        :class:`InputError`.
    log : callable, optional
        Told (a line at a time) that seeds are being added while verdicts stay open, every :data:`LOOK_SAY_S`.

    Returns
    -------
    PopulationAnalysis

    Raises
    ------
    InputError
        A run that is not stored where ``run=False``, or a study whose market cannot give its agents.
    """
    if scheduler_address is not None:  # before the lock: an address that is not a scheduler holds nothing
        identify(scheduler_address)
    store = study_store(spec, force=force) if run else None
    lock = store.lock("population study run") if store is not None else contextlib.nullcontext()
    with lock, on_scheduler(scheduler_address):
        t0 = time.perf_counter()
        cached = read_analysis(spec)
        if cached is not None:  # nothing run now: this call's figures, not those of the call that computed it
            return replace(cached, runs=replace(cached.runs, run_now=0, wall_seconds=time.perf_counter() - t0))
        an = _run_population_study(
            spec, n_jobs=n_jobs, progress=progress, run=run, scheduler_address=scheduler_address, store=store, log=log
        )
        write_analysis(spec, an)
        return an


def _write_last_run(store, st: PopulationGames, runs: RunAccounting, n_jobs, scheduler_address) -> None:
    """``last-run.json`` of a population study run that made runs (as a bimatrix study's, ``runner.StudyRun``):
    the simulations its answer used and those run now, its wall time, the workers asked for (``n_jobs``) and
    used (``workers``: 1 where no pool paid for its start, ``"dask"`` on a cluster), the workload and its jobs."""
    w = st.workload
    record = {
        "kind": "population",
        "simulations": runs.simulations,
        "run": runs.run_now,
        "wall_seconds": runs.wall_seconds,
        "nodes": w.nodes,
        "n_jobs": n_jobs if not scheduler_address else f"dask {scheduler_address}",
        "workers": st.runs.workers,
        "workload": w.meta.get("source"),
        "workload_sha256": w.meta.get("sha256"),
        "jobs": w.jobs,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    with atomic_path(store.claim().file("last-run.json", once=False), "run record") as tmp:
        tmp.write_text(dumps_json(record, indent=2), encoding="utf-8")


#: the error of a verdict over all its looks: each look's intervals are at ``1 - ALPHA / looks``
ALPHA = 0.05
#: seconds between two lines saying that seeds are being added (:func:`_adaptive_answers`)
LOOK_SAY_S = 5.0


def plan_text(spec) -> str:
    """What a population study will run, said before it starts (hunt 28a-F1: a budget of 100,000 seeds added one at a
    time ran with not a line said, 23,255 runs in a minute): its reduced games' grid on its seeds, and where seeds are
    added while a verdict is open, the most the grid can take (each look's candidates add their paired records)."""
    cfg = spec.population
    n, k, mechs, base = int(cfg.reduced_players), len(cfg.strategies), len(spec.providers), len(spec.seeds)
    grid = len({mix_key(m) for _, m, _ in population_points([n], [k])})  # (as the study's grid: hunt 29a-W1)
    text = (
        f"study {spec.name}: {mechs} mechanism(s) x {grid:,} grid mixtures x {base} seed(s): {mechs * grid * base:,} "
        "simulations, then the all-truthful population's and each candidate's paired records (two simulations each, "
        "per mechanism and seed)"
    )
    budget = max(cfg.max_seeds, base)
    if budget > base:
        text += (
            f"; while a mechanism's verdict is open, seeds are added {min(cfg.seed_step, budget - base)} at a time "
            f"up to {budget:,} "  # (a step past the budget adds what is left: "9 at a time up to 4", hunt 30a-W4)
            f"({planned_looks(cfg, base):,} looks): up to {mechs * grid * budget:,} grid simulations in all, and "
            "their paired records (Ctrl-C keeps every finished run; the same command resumes)"
        )
    return text


def planned_looks(cfg, base_seeds: int) -> int:
    """The looks the adaptive design may make at a mechanism: the study's seeds, then ``seed_step`` more at a time up
    to ``max_seeds``."""
    budget = max(cfg.max_seeds, base_seeds)
    return 1 + math.ceil(max(budget - base_seeds, 0) / max(cfg.seed_step, 1))


def _run_population_study(
    spec, *, n_jobs: int, progress: bool, run: bool, scheduler_address: str | None = None, store=None, log=None
) -> PopulationAnalysis:
    """The study's answer computed (:func:`run_population_study` without its cache and lock): the adaptive seeds'
    answers, the provider's choice, the joint game, the accounting, and the last-run record where it ran
    something."""
    t0 = time.perf_counter()
    st = PopulationGames(spec, n_jobs=n_jobs, progress=progress, run=run, scheduler_address=scheduler_address)
    answers, seeds = _adaptive_answers(st, spec, log)
    base_seeds = list(spec.seeds)
    points = _run_candidates_everywhere(st, spec, answers, base_seeds)
    ranking = leader_ranking(answers.values())
    simultaneous = _simultaneous(st, spec, answers, base_seeds)
    joint = _joint_answer(st, answers, base_seeds) if st.cfg.joint else None
    provider = ProviderChoice(ranking[0].mechanism if ranking else None, ranking, simultaneous, joint)
    runs = _accounting(st, answers, seeds, points, joint, base_seeds, spec)
    runs = replace(runs, wall_seconds=time.perf_counter() - t0)
    if store is not None and st.runs.runs_done:  # the figures of the run that computed the runs
        _write_last_run(store, st, runs, n_jobs, scheduler_address)
    meta = PopulationMeta(**st.runs.meta, grid_mixtures=len(st.grid), reduced_players=st.cfg.reduced_players)
    return PopulationAnalysis(
        spec.name, tuple(answers[p.name] for p in spec.providers), provider, runs, meta, spec=spec, config=st.cfg
    )


def mechanism_answer(st: PopulationGames, prov, seeds: list, *, alpha: float = ALPHA) -> MechanismAnswer:
    """One mechanism's answer on ``seeds`` (no seeds added): the candidates of its reduced game (after the grid's
    runs), each verified by its paired records, decided at level ``1 - alpha``; the runs made where missing."""
    cands = _candidates(st, {prov.name: prov}, {prov.name: list(seeds)})[prov.name]
    return _verified_answer(st, prov, cands, list(seeds), alpha)


def _unsure(a: MechanismAnswer) -> bool:
    """Whether one of a mechanism's verdicts is still open (a candidate's, or whether truthful is an equilibrium)."""
    return any(e.verified == "undecided" for e in a.equilibria) or a.truthful_is_equilibrium == "undecided"


def _more_seeds(seeds: list, budget: int, step: int) -> list:
    """``seeds`` and up to ``step`` seeds after its largest, at most ``budget`` in all."""
    nxt = max(seeds) + 1
    return seeds + list(range(nxt, nxt + min(step, budget - len(seeds))))


def _adaptive_answers(st: PopulationGames, spec, log=None) -> tuple[dict, dict]:
    """Every mechanism's answer, adding ``seed_step`` seeds to a mechanism while one of its verdicts is undecided, up
    to ``max_seeds`` (each look's intervals at ``1 - ALPHA / looks``, so that a verdict is wrong with probability at
    most ``ALPHA`` whichever look it is made at). Returns (answers by mechanism, seeds by mechanism)."""
    cfg = st.cfg
    seeds = {p.name: list(spec.seeds) for p in spec.providers}
    budget = max(cfg.max_seeds, len(spec.seeds))
    alpha = ALPHA / planned_looks(cfg, len(spec.seeds))
    answers: dict[str, MechanismAnswer] = {}
    pending = [p.name for p in spec.providers]
    provs = {p.name: p for p in spec.providers}
    said = time.monotonic()
    while pending:
        cands = _candidates(st, {p: provs[p] for p in pending}, seeds)
        for p in pending:
            answers[p] = _verified_answer(st, provs[p], cands[p], seeds[p], alpha)
        pending = [p for p in pending if _unsure(answers[p]) and len(seeds[p]) < budget]
        if pending and log is not None and time.monotonic() - said >= LOOK_SAY_S:
            said = time.monotonic()
            log(
                f"study {spec.name}: a verdict is open for {', '.join(pending)} at "
                f"{', '.join(f'{len(seeds[p]):,}' for p in pending)} seed(s): {cfg.seed_step} more at a time, up to "
                f"{budget:,} ({st.runs.runs_done:,} runs made so far)"
            )
        for p in pending:
            seeds[p] = _more_seeds(seeds[p], budget, cfg.seed_step)
    return answers, seeds


def _candidates(st: PopulationGames, provs: dict, seeds: dict) -> dict:
    """Each mechanism's candidates (the equilibria of its reduced game over its seeds), after the grid's runs, and
    the paired records that verify them and the all-truthful population (run where they are missing)."""
    truthful = np.eye(len(st.cfg.strategies))[st.cfg.truthful_index]
    st.runs.ensure({(p, s): st.grid for p in provs for s in seeds[p]})
    cands = {p: equilibria(st.reduced_game(prov, seeds[p])) for p, prov in provs.items()}
    st.runs.ensure(
        {(p, s): [truthful] + [e.mixture for e in cands[p].equilibria] for p in provs for s in seeds[p]},
        paired=True,
    )
    return cands


def _verified_answer(st: PopulationGames, prov, sol, seeds: list, alpha: float) -> MechanismAnswer:
    """One mechanism's answer on ``seeds``: each candidate's regret from its paired records, decided against the
    tolerance; the truthful gains and whether all-truthful is an equilibrium (its regret is its largest gain)."""
    tol = st.cfg.regret_tol * st.scale(prov, seeds)
    eqs = tuple(_verified(st, prov, e, seeds, alpha, tol) for e in sol.equilibria)
    g = {k: Interval(*v) for k, v in st.gains(prov, seeds, 1 - alpha).items()}
    # all-truthful is an equilibrium where its regret is at most the tolerance: decided as every candidate's is (the
    # same interval of the same paired gains), so the verdict and an all-truthful candidate's never disagree
    truthful = np.eye(len(st.cfg.strategies))[st.cfg.truthful_index]
    ans_t = decide(st.regret_at(prov, seeds, truthful, alpha), tol)
    # the search's note of duplicate strategies (a continuum of equilibria listed once each), and none found
    said = tuple(n for n in sol.notes if n.startswith(DUPLICATES_NOTE))
    notes = said + (() if sol.found else (sol.summary(),))
    if ans_t == "yes" and not any(np.allclose(e.mixture, truthful, rtol=0, atol=1e-12) for e in sol.equilibria):
        # all-truthful is an equilibrium by the answer's own rule (its regret's bound within the tolerance) though no
        # exact equilibrium of the reduced game: listed, and counted in the provider's worst case (hunt 21a-F2: the
        # report said "truthful is an equilibrium: yes" and left it out of the equilibria and the provider's choice)
        game = sol.game
        exact = SymmetricEquilibrium(
            truthful, float(game.regret(truthful)), game.expected_payoffs(truthful), stability=stability(game, truthful)
        )
        eqs = eqs + (_verified(st, prov, exact, seeds, alpha, tol),)
        notes += (
            f"all-truthful is listed among the equilibria: its regret's upper bound ({eqs[-1].regret.high:.4g}) is "
            f"within the tolerance ({tol:.4g}), though it is no exact equilibrium of the reduced game (regret "
            f"{exact.regret:.4g} there)",
        )
    return MechanismAnswer(prov.name, sol.game, tuple(seeds), eqs, g, ans_t, notes, search_counts(sol))


def _verified(st: PopulationGames, prov, e, seeds: list, alpha: float, tol: float) -> VerifiedEquilibrium:
    """A candidate ``e`` verified by its paired records: its regret interval decided against ``tol``."""
    v = st.verify(prov, seeds, e.mixture, alpha)
    regret = Interval(*v["regret"])
    return VerifiedEquilibrium(
        {n_: float(q) for n_, q in zip(st.cfg.names, e.mixture) if q > 0},
        tuple(e.mixture.tolist()),
        e.regret,
        e.stability,
        decide(regret, tol),
        regret.high,
        tol,
        regret,
        v["payoffs"],
        Interval(*v["revenue"]),
        Interval(*v["welfare"]),
        v["mean_utility"],
        v["seeds"],
    )


def _kept(answers) -> list:
    """Every (answer, equilibrium) whose candidate is not rejected."""
    return [(a, e) for a in answers for e in a.equilibria if e.verified != "no"]


def _run_candidates_everywhere(st: PopulationGames, spec, answers: dict, base_seeds: list) -> set:
    """The paired records of every mechanism at every candidate that is not rejected, on the base seeds (run where
    they are missing); returns those mixtures."""
    points = {mix_key(e.mixture_vector) for _, e in _kept(answers.values())}
    st.runs.ensure({(p.name, s): sorted(points) for p in spec.providers for s in base_seeds}, paired=True)
    return points


def leader_ranking(answers) -> tuple:
    """The provider as a leader: each mechanism with an equilibrium that is not rejected, its count and its worst
    and best revenue, the highest worst revenue first (the consumers answer with the provider's worst)."""
    ranked = []
    for a in answers:
        revs = [e.revenue.mean for e in a.equilibria if e.verified != "no"]
        if revs:
            ranked.append(RankedMechanism(a.mechanism, len(revs), min(revs), max(revs)))
    return tuple(sorted(ranked, key=lambda r: -r.worst_revenue))


#: two revenues closer than this share of the larger are the same (a tie: they differ by floating-point rounding)
SAME = 1e-9


def same_revenue(a: float, b: float) -> bool:
    """Whether two revenues are equal but for floating-point rounding (:data:`SAME`)."""
    return abs(a - b) <= SAME * max(1.0, abs(a), abs(b))


def ranks(ranking) -> dict:
    """Each ranked mechanism's rank as a leader, ties ranked equally (1 + the count of mechanisms whose worst revenue
    is higher, :func:`same_revenue` counting as equal): ``{"hb-first": 1, "hb-kth": 1, "fcfs": 3}``."""
    return {
        r.mechanism: 1
        + sum(q.worst_revenue > r.worst_revenue and not same_revenue(q.worst_revenue, r.worst_revenue) for q in ranking)
        for r in ranking
    }


def leaders(ranking) -> tuple:
    """The mechanisms of rank 1 (:func:`ranks`): the provider's choice as a leader, several where they tie."""
    rank = ranks(ranking)
    return tuple(r.mechanism for r in ranking if rank[r.mechanism] == 1)


def _simultaneous(st: PopulationGames, spec, answers: dict, base_seeds: list) -> tuple:
    """The simultaneous equilibria with a pure provider strategy: a candidate whose mechanism is a revenue best
    response at its consumers' mixture (every mechanism's paired records there, over the base seeds)."""
    provs = {p.name: p for p in spec.providers}

    def revenue(pname, x):
        recs = st.runs.records(provs[pname], base_seeds, mix_key(x), paired=True)
        return float(np.mean([r["revenue"] for r in recs]))

    out = []
    for a, e in _kept(answers.values()):
        revs = {p.name: revenue(p.name, e.mixture_vector) for p in spec.providers}
        best = max(revs.values())
        if revs[a.mechanism] >= best - 1e-9 * max(1.0, abs(best)):
            out.append(SimultaneousChoice(a.mechanism, e.mixture, revs[a.mechanism]))
    return tuple(out)


def _accounting(
    st: PopulationGames, answers: dict, seeds: dict, points: set, joint: JointAnswer | None, base_seeds, spec
) -> RunAccounting:
    """The simulations the answers used (a run at a mixture one, a paired record two), and those of a fixed design of
    the same confidence: every mechanism at the largest seed count used, at the grid and its candidates (their runs
    and paired records); the mixtures run under every mechanism (the candidates', the joint game's) at the base
    seeds."""
    used = sum(2 if paired else 1 for *_, paired in st.runs.requested)
    longest = max(seeds.values(), key=len)
    fixed = {(p, m, s, False) for p in answers for m in st.grid for s in longest} | {
        (p, mix_key(e.mixture_vector), s, True) for p, a in answers.items() for e in a.equilibria for s in longest
    }
    checked, grid = (set(joint.checked), joint.points) if joint is not None else (set(), [])
    fixed |= {(p.name, m, s, True) for p in spec.providers for m in points | checked for s in base_seeds}
    fixed |= {(p.name, m, s, False) for p in spec.providers for m in grid for s in base_seeds}
    return RunAccounting(
        used,
        sum(2 if paired else 1 for *_, paired in fixed),
        {p: len(v) for p, v in seeds.items()},
        planned_looks(st.cfg, len(spec.seeds)),
        ALPHA,
        st.runs.runs_done,
    )


def _joint_answer(st: PopulationGames, answers: dict, base_seeds: list) -> JointAnswer:
    """The simultaneous equilibria of the provider-consumer game with any provider mixture
    (:meth:`PopulationGames.joint_game`, from each mechanism's answer), each verified by the paired records at its
    consumer mixture under every mechanism: both roles' regrets with intervals over the base seeds, decided
    against the study's ``regret_tol`` times each role's scale (the consumers': mean absolute truthful
    utility per agent; the provider's: mean revenue per agent at the candidate)."""
    provs = list(st.spec.providers)
    M = len(provs)
    grid = st.joint_points()
    st.runs.ensure({(p.name, s): grid for p in provs for s in base_seeds})
    game = st.joint_game({p: a.game for p, a in answers.items()}, base_seeds)
    sol = equilibria(game)
    checked = sorted({mix_key(e.mixture[M:]) for e in sol.equilibria})
    st.runs.ensure({(p.name, s): checked for p in provs for s in base_seeds}, paired=True)
    c_scale = float(np.mean([st.scale(p, base_seeds) for p in provs]))
    return JointAnswer(
        game,
        tuple(_joint_verified(st, e, base_seeds, c_scale) for e in sol.equilibria),
        dominant_mechanism(game),
        () if sol.found else (sol.summary(),),
        search_counts(sol),
        tuple(sorted(set(grid))),
        tuple(checked),
    )


def _joint_verified(st: PopulationGames, e, base_seeds: list, c_scale: float) -> JointEquilibrium:
    """An equilibrium ``e`` of the joint game verified at its consumer mixture under every mechanism: each role's
    regret decided against the tolerance times its scale (the provider's: its mean revenue per agent there)."""
    cfg, provs = st.cfg, list(st.spec.providers)
    q, x = e.mixture[: len(provs)], e.mixture[len(provs) :]
    v = st.verify_joint(base_seeds, q, x)
    p_scale = float(np.mean(np.abs(list(v["revenue_per_agent"].values()))))
    verified = combined_verdict(
        [
            decide(v["consumer_regret"], cfg.regret_tol * c_scale),
            decide(v["provider_regret"], cfg.regret_tol * p_scale),
        ]
    )
    return JointEquilibrium(
        {p.name: float(w) for p, w in zip(provs, q) if w > 0},
        {n_: float(w) for n_, w in zip(cfg.names, x) if w > 0},
        tuple(e.mixture.tolist()),
        e.regret,
        e.stability,
        verified,
        Interval(*v["consumer_regret"]),
        Interval(*v["provider_regret"]),
        v["revenue_per_agent"],
        v["expected_revenue_per_agent"],
        v["seeds"],
    )


def linked_population(spec):
    """The answer of the population study a bimatrix study links (``population_study``), from its stored runs
    (nothing is run: the adaptive seeds are replayed on what is stored); None where it links none, and a
    ``PopulationMissing`` saying why where the answer cannot be made (not run, or runs missing)."""
    if spec.population_study is None:
        return None
    try:
        return run_population_study(load_study(spec.population_study), run=False)
    except GameMarketError as exc:  # not run, or not complete: the report says why where it needs it
        return PopulationMissing(str(spec.population_study), str(exc))
