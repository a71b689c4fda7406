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

import numpy as np

from gamemarket.analysis.population import (
    MechanismAnswer,
    PopulationAnalysis,
    PopulationGames,
    combined_verdict,
    decide,
    dominant_mechanism,
    read_analysis,
    search_counts,
    write_analysis,
)
from gamemarket.analysis.study import PopulationMissing
from gamemarket.errors import GameMarketError
from gamemarket.games.rsg_equilibria import equilibria
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
        if cached is not None:
            cached.runs = {**cached.runs, "run_now": 0, "wall_seconds": time.perf_counter() - t0}
            return cached
        an = _run_population_study(
            spec, n_jobs=n_jobs, progress=progress, run=run, scheduler_address=scheduler_address, store=store
        )
        write_analysis(spec, an)
        return an


def _write_last_run(store, st: PopulationGames, an_runs: dict, n_jobs, scheduler_address) -> None:
    """``last-run.json`` of a population study run that made runs (as a bimatrix study's, ``runner.StudyRun``):
    the simulations its answer used and those run now, its wall time, the workers asked for (``n_jobs``) and
    used (``workers``: 1 where no pool paid for its start, ``"dask"`` on a cluster), the workload and its jobs."""
    w = st.workload
    record = {
        "kind": "population",
        "simulations": an_runs["simulations"],
        "run": an_runs["run_now"],
        "wall_seconds": an_runs["wall_seconds"],
        "nodes": w.nodes,
        "n_jobs": n_jobs if not scheduler_address else f"dask {scheduler_address}",
        "workers": st.runs.workers,
        "workload": w.meta.get("source"),
        "workload_sha256": w.meta.get("sha256"),
        "jobs": w.jobs,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    with atomic_path(store.claim().file("last-run.json", once=False), "run record") as tmp:
        tmp.write_text(dumps_json(record, indent=2))


#: the error of a verdict over all its looks: each look's intervals are at ``1 - ALPHA / looks``
ALPHA = 0.05


def planned_looks(cfg, base_seeds: int) -> int:
    """The looks the adaptive design may make at a mechanism: the study's seeds, then ``seed_step`` more at a time up
    to ``max_seeds``."""
    budget = max(cfg.max_seeds, base_seeds)
    return 1 + math.ceil(max(budget - base_seeds, 0) / max(cfg.seed_step, 1))


def _run_population_study(
    spec, *, n_jobs: int, progress: bool, run: bool, scheduler_address: str | None = None, store=None
) -> PopulationAnalysis:
    t0 = time.perf_counter()
    st = PopulationGames(spec, n_jobs=n_jobs, progress=progress, run=run, scheduler_address=scheduler_address)
    rng = np.random.default_rng(0)
    answers, seeds = _adaptive_answers(st, spec, rng)
    base_seeds = list(spec.seeds)
    provider, points = _provider_choice(st, spec, answers, base_seeds)
    provider["joint"] = _joint_answer(st, answers, base_seeds, rng) if st.cfg.joint else None
    runs = _accounting(st, answers, seeds, points, provider["joint"], base_seeds, spec)
    runs["wall_seconds"] = time.perf_counter() - t0
    if store is not None and st.runs.runs_done:  # the figures of the run that computed the runs
        _write_last_run(store, st, runs, n_jobs, scheduler_address)
    return PopulationAnalysis(
        spec,
        st.cfg,
        [answers[p.name] for p in spec.providers],
        provider,
        runs,
        {**st.runs.meta, "grid_mixtures": len(st.grid), "reduced_players": st.cfg.reduced_players},
    )


def _adaptive_answers(st: PopulationGames, spec, rng) -> tuple[dict, dict]:
    """Every mechanism's answer, adding ``seed_step`` seeds to a mechanism while one of its verdicts is undecided, up
    to ``max_seeds`` (each look's intervals at ``1 - ALPHA / looks``, so that a verdict is wrong with probability at
    most ``ALPHA`` whichever look it is made at). Returns (answers by mechanism, seeds by mechanism)."""
    cfg = st.cfg
    seeds = {p.name: list(spec.seeds) for p in spec.providers}
    budget = max(cfg.max_seeds, len(spec.seeds))
    alpha = ALPHA / planned_looks(cfg, len(spec.seeds))
    truthful = np.eye(len(cfg.strategies))[cfg.truthful_index]
    answers: dict[str, MechanismAnswer] = {}
    pending = [p.name for p in spec.providers]
    provs = {p.name: p for p in spec.providers}
    while pending:
        st.runs.ensure({(p, s): st.grid for p in pending for s in seeds[p]})
        cands = {p: equilibria(st.reduced_game(provs[p], seeds[p])) for p in pending}
        st.runs.ensure(
            {(p, s): [truthful] + [e.mixture for e in cands[p].equilibria] for p in pending for s in seeds[p]},
            paired=True,
        )
        again = []
        for p in pending:
            answers[p] = _verified_answer(st, provs[p], cands[p], seeds[p], rng, alpha)
            a = answers[p]
            unsure = any(e["verified"] == "undecided" for e in a.equilibria) or a.truthful_is_equilibrium == "undecided"
            if unsure and len(seeds[p]) < budget:
                nxt = max(seeds[p]) + 1
                seeds[p] = seeds[p] + list(range(nxt, nxt + min(cfg.seed_step, budget - len(seeds[p]))))
                again.append(p)
        pending = again
    return answers, seeds


def _verified_answer(st: PopulationGames, prov, sol, seeds: list, rng, alpha: float) -> MechanismAnswer:
    """One mechanism's answer on ``seeds``: each candidate's regret from its paired records, decided against the
    tolerance; the truthful gains and whether all-truthful is an equilibrium (its regret is its largest gain)."""
    cfg = st.cfg
    tol = cfg.regret_tol * st.scale(prov, seeds)
    eqs = []
    for e in sol.equilibria:
        v = st.verify(prov, seeds, e.mixture, rng, alpha)
        eqs.append(
            {
                "mixture": {n_: float(q) for n_, q in zip(cfg.names, e.mixture) if q > 0},
                "mixture_vector": e.mixture.tolist(),
                "reduced_regret": e.regret,
                "stability": e.stability,
                "verified": decide(v["regret"], tol),
                "epsilon": v["regret"][2],
                "tolerance": tol,
                **v,
            }
        )
    g = st.gains(prov, seeds, 1 - alpha)
    ans_t = combined_verdict([decide(gv, tol) for gv in g.values()])
    notes = [] if sol.found else [sol.summary()]
    return MechanismAnswer(prov.name, sol.game, list(seeds), eqs, g, ans_t, notes, search_counts(sol))


def _provider_choice(st: PopulationGames, spec, answers: dict, base_seeds: list) -> tuple[dict, set]:
    """The provider's choice: leader and followers (the mechanism of highest revenue at its worst equilibrium that
    is not rejected), and the simultaneous equilibria with a pure provider strategy (the mechanism a revenue best
    response at its consumers' equilibrium: every mechanism's base runs at that mixture). Returns (the choice, the
    mixtures run under every mechanism)."""
    provs = {p.name: p for p in spec.providers}
    points = {mix_key(e["mixture_vector"]) for a in answers.values() for e in a.equilibria if e["verified"] != "no"}
    st.runs.ensure({(p.name, s): sorted(points) for p in spec.providers for s in base_seeds}, paired=True)

    def revenue(pname, x):
        recs = st.runs.records(provs[pname], base_seeds, mix_key(x), paired=True)
        return float(np.mean([r["revenue"] for r in recs]))

    leader = []
    for a in answers.values():
        revs = [e["revenue"][0] for e in a.equilibria if e["verified"] != "no"]
        leader.append(
            {
                "mechanism": a.mechanism,
                "equilibria": len(revs),
                "worst_revenue": min(revs) if revs else None,
                "best_revenue": max(revs) if revs else None,
            }
        )
    ranked = sorted([r for r in leader if r["worst_revenue"] is not None], key=lambda r: -r["worst_revenue"])
    simultaneous = []
    for a in answers.values():
        for e in a.equilibria:
            if e["verified"] == "no":
                continue
            revs = {p.name: revenue(p.name, e["mixture_vector"]) for p in spec.providers}
            best = max(revs.values())
            if revs[a.mechanism] >= best - 1e-9 * max(1.0, abs(best)):
                simultaneous.append({"mechanism": a.mechanism, "mixture": e["mixture"], "revenue": revs[a.mechanism]})
    choice = {"leader": ranked[0]["mechanism"] if ranked else None, "ranking": ranked, "simultaneous": simultaneous}
    return choice, points


def _accounting(st: PopulationGames, answers: dict, seeds: dict, points: set, joint: dict, base_seeds, spec) -> dict:
    """The simulations the answers used (a run at a mixture one, a paired record two), and those of a fixed design of
    the same confidence: every mechanism at the largest seed count used, at the grid and its candidates (their runs
    and paired records); the mixtures run under every mechanism (the candidates', the joint game's) at the base
    seeds."""
    used = sum(2 if paired else 1 for *_, paired in st.runs.requested)
    longest = max(seeds.values(), key=len)
    fixed = {(p, m, s, False) for p in answers for m in st.grid for s in longest} | {
        (p, mix_key(e["mixture_vector"]), s, True) for p, a in answers.items() for e in a.equilibria for s in longest
    }
    checked, grid = (set(joint["checked"]), joint["points"]) if joint is not None else (set(), [])
    fixed |= {(p.name, m, s, True) for p in spec.providers for m in points | checked for s in base_seeds}
    fixed |= {(p.name, m, s, False) for p in spec.providers for m in grid for s in base_seeds}
    return {
        "simulations": used,
        "fixed_design": sum(2 if paired else 1 for *_, paired in fixed),
        "seeds": {p: len(v) for p, v in seeds.items()},
        "looks": planned_looks(st.cfg, len(spec.seeds)),
        "alpha": ALPHA,
        "run_now": st.runs.runs_done,
    }


def _joint_answer(st: PopulationGames, answers: dict, base_seeds: list, rng) -> dict:
    """The simultaneous equilibria of the provider-consumer game with any provider mixture
    (:meth:`PopulationGames.joint_game`, from each mechanism's answer), each verified by the paired records at its
    consumer mixture under every mechanism: both roles' regrets with bootstrap CIs over the base seeds, decided
    against the study's ``regret_tol`` times each role's scale (the consumers': mean absolute truthful
    utility per agent; the provider's: mean revenue per agent at the candidate)."""
    cfg, provs = st.cfg, list(st.spec.providers)
    M = len(provs)
    grid = st.joint_points()
    st.runs.ensure({(p.name, s): grid for p in provs for s in base_seeds})
    game = st.joint_game({p: a.game for p, a in answers.items()}, base_seeds)
    sol = equilibria(game)
    checked = sorted({mix_key(e.mixture[M:]) for e in sol.equilibria})
    st.runs.ensure({(p.name, s): checked for p in provs for s in base_seeds}, paired=True)
    c_scale = float(np.mean([st.scale(p, base_seeds) for p in provs]))
    eqs = []
    for e in sol.equilibria:
        q, x = e.mixture[:M], e.mixture[M:]
        v = st.verify_joint(base_seeds, q, x, rng)
        p_scale = float(np.mean(np.abs(list(v["revenue_per_agent"].values()))))
        verified = combined_verdict(
            [
                decide(v["consumer_regret"], cfg.regret_tol * c_scale),
                decide(v["provider_regret"], cfg.regret_tol * p_scale),
            ]
        )
        eqs.append(
            {
                "provider": {p.name: float(w) for p, w in zip(provs, q) if w > 0},
                "consumers": {n_: float(w) for n_, w in zip(cfg.names, x) if w > 0},
                "mixture_vector": e.mixture.tolist(),
                "reduced_regret": e.regret,
                "stability": e.stability,
                "verified": verified,
                **v,
            }
        )
    return {
        "game": game,
        "equilibria": eqs,
        "dominant": dominant_mechanism(game),
        "notes": [] if sol.found else [sol.summary()],
        "search": search_counts(sol),
        "points": sorted(set(grid)),
        "checked": checked,
    }


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
