"""Strategy exploration: grow each mechanism's menu of shading rules by a best-response search, and certify every
equilibrium over every rule the search evaluated.

A population study's answer holds for its menu of shading rules. Exploration asks whether a rule outside the menu
does better: per mechanism, it starts from the equilibria the study reports (over its menu, on its seeds); against
each, the oracle (``gamemarket.search.oracle``) searches the family for the single agent's deviation of largest
gain on the search seeds, and a certificate (``gamemarket.search.certificates``) evaluates *every* rule the search
evaluated on fresh seeds, by sequential sampling: epsilon, the 95% upper bound on what any of them gains, and the
verdict. Where a rule gains more than the tolerance (its lower bound above it, or, undecided, its fresh mean above
it), it joins the menu, the reduced game over the grown menu is solved on the study's seeds, and its equilibria are
searched and certified in turn (the double-oracle / quiesce loop [Jordan2010]_, with a stochastic search of a
simulation-based game [Vorobeychik2008]_; see the EGTA survey [Wellman2025]_). It stops when no rule joins (every
equilibrium certified, or an epsilon above the tolerance stated), or when the budget of simulations ends.

A certificate covers the rules the search evaluated, not every point of the family.

References
----------
.. [Jordan2010] P. R. Jordan, L. J. Schvartzman and M. P. Wellman, "Strategy exploration in empirical
   games", AAMAS 2010.
.. [Vorobeychik2008] Y. Vorobeychik and M. P. Wellman, "Stochastic search methods for Nash equilibrium
   approximation in simulation-based games", AAMAS 2008.
.. [Wellman2025] M. P. Wellman, K. Tuyls and A. Greenwald, "Empirical game-theoretic analysis: a survey",
   Journal of Artificial Intelligence Research 82 (2025).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from gamemarket.analysis.population import PopulationGames
from gamemarket.confidence import t_interval
from gamemarket.errors import InputError
from gamemarket.games.rsg_equilibria import equilibria
from gamemarket.io.files import OutputFolder, atomic_path, dumps_json
from gamemarket.search.certificates import ALPHA, Certificate, certify
from gamemarket.search.oracle import ProbeOracle, SearchResult, strategy_entry
from gamemarket.search.population import run_population_study
from gamemarket.studies.population import PopulationStore, on_scheduler
from gamemarket.studies.population_config import check_exploration, search_family
from gamemarket.studies.scheduler import identify
from gamemarket.studies.store import study_store
from gamemarket.workers import most_workers


def _mixture_entry(rules, x) -> list[dict]:
    return [{**strategy_entry(r), "probability": float(p)} for r, p in zip(rules, x) if p > 0]


def exploration_probe(cfg, ex: dict) -> float:
    """The probe agents' share of the oracle's and the certificates' runs: ``[game.exploration] probe``, else the
    study's ``[game] probe``."""
    return float(ex.get("probe") or cfg.probe)


#: an undecided certificate's best rule joins the menu where its fresh mean gain is above this share of the tolerance
#: (a likely improvement: the game over the grown menu has an equilibrium closer to the family's, which a
#: certificate can settle, where a gain just under the tolerance needs hundreds of seeds to be told from it)
GROW_AT = 0.5


def _to_add(cert: Certificate, rules: dict, known: set):
    """The rule a certificate says joins the menu: of those whose lower bound is above the tolerance, the one of
    largest fresh mean; undecided, the best rule where its fresh mean is above ``GROW_AT`` of the tolerance; None
    otherwise or where the menu has it already (the reduced game's own error, not a new rule). Returns (the rule, its
    fresh mean gain) or None."""
    if cert.verdict == "deviation":
        pick = next((b for b in cert.rules if b.lower > cert.tolerance), None)
    elif cert.verdict == "undecided" and cert.best is not None and cert.best.gain[0] > GROW_AT * cert.tolerance:
        pick = cert.best
    else:
        pick = None
    if pick is None or rules[pick.rule].key() in known:
        return None
    return rules[pick.rule], pick.gain[0]


def _equilibrium_entry(menu, mixture, r: SearchResult, cert: Certificate, figures: list[dict]) -> dict:
    """One equilibrium of a round as ``data/exploration.json`` holds it: its mixture over the menu, its certificate
    (epsilon, verdict, every evaluated rule's fresh-seed bound), the best rule with its figures, and the provider's
    figures at the mixture (the base runs on the first look's fresh seeds)."""
    best = cert.best
    rules = {x.name: x for x in r.rules}
    return {
        "mixture": _mixture_entry(menu, mixture),
        "epsilon": cert.epsilon,
        "verdict": cert.verdict,
        "certified": cert.certified,
        "best_deviation": None
        if best is None
        else {
            **strategy_entry(rules[best.rule]),
            "gain": list(best.gain),
            "upper": best.upper,
            "seeds": best.seeds,
            "search_gain": best.search_gain,
        },
        "search_best": {"strategy": r.rule.name, "search_gain": r.search_gain},
        "candidates_evaluated": r.candidates,
        "certificate": cert.to_dict(),
        "revenue": list(t_interval([f["revenue"] for f in figures])),
        "welfare": list(t_interval([f["welfare"] for f in figures])),
        "mean_utility": list(t_interval([f["mean_utility"] for f in figures])),
        "figure_seeds": len(figures),
    }


class _Explorer:
    """One mechanism's exploration: its oracle, budget and rounds (:func:`explore_mechanism`)."""

    def __init__(self, st: PopulationGames, provider, ex: dict, answer, fresh: list[int], n_jobs: int):
        spec, cfg = st.spec, st.cfg
        self.st, self.provider, self.ex = st, provider, ex
        self.seeds = list(answer.seeds)  # the study's seeds for this mechanism: its reduced games'
        self.fresh = fresh
        key_fields = {k: v for k, v in st.runs.base.items() if k != "population"}  # a gain does not depend on the menu
        self.oracle = ProbeOracle(
            st.runs.arrays,
            st.runs.nodes,
            provider.params(),
            cfg.agents,
            exploration_probe(cfg, ex),
            spec.bids,
            list(spec.seeds)[: ex.get("search_seeds") or len(spec.seeds)],
            n_jobs=n_jobs,
            remote=st.runs.scheduler_address is not None,
            store=PopulationStore(Path(spec.results_dir) / "exploration"),
            key_fields=key_fields,
            family=ex["family"],
        )
        self.tol = cfg.regret_tol * st.scale(provider, self.seeds)
        self.grid_sims = 0  # the grown menus' grid runs (the first menu's are the study's)
        self.games_run, self.used = 0, 1
        self.rules: dict = {}  #: every rule of the final menu by name

    def left(self) -> int:
        return self.ex["budget"] - self.grid_sims - self.oracle.simulations

    def certify_one(self, menu, mixture) -> tuple[dict | None, object]:
        """Search and certify one equilibrium: its entry and the rule that may join the menu with its fresh gain
        (``_to_add``; or None); (None, None)
        where the budget cannot pay for a search of the menu and a certificate's first look."""
        ex, oracle = self.ex, self.oracle
        on = np.asarray(mixture) > 0
        support = [r for r, o in zip(menu, on) if o]
        x = np.asarray(mixture, dtype=float)[on]
        per_rule = len(oracle.seeds) + ex["first_seeds"]  # a rule's search runs and its first look's fresh runs
        bases = len(oracle.seeds) + len(self.fresh)
        if self.left() < per_rule * (len(menu) + 1) + bases:
            return None, None
        r = oracle.search(
            support,
            x,
            optimiser=ex["optimiser"],
            evaluations=max(min(ex["evaluations"], (self.left() - bases) // per_rule), len(menu) + 1),
            start=menu,
            bounds=tuple(ex["bounds"]),
        )
        cert = certify(
            lambda rules, seeds: oracle.gains(support, x, rules, seeds),
            r.rules,
            self.fresh,
            self.tol,
            first=ex["first_seeds"],
            budget=max(self.left(), 0),
            cost=lambda rules, seeds: oracle.pending(support, x, rules, seeds),
            names=lambda rule: rule.name,
            search_gains=r.gains,
        )
        figures = oracle.figures(support, x, self.fresh[: min(ex["first_seeds"], len(self.fresh))])
        entry = _equilibrium_entry(menu, mixture, r, cert, figures)
        return entry, _to_add(cert, {q.name: q for q in r.rules}, {m.key() for m in menu})

    def solve(self, menu) -> tuple[list, str]:
        """The equilibria of the reduced game over a grown ``menu`` on the study's seeds (its grid run first), or
        ([], why) where the budget cannot pay for the grid."""
        g = self.st.with_menu(menu)
        need = len(g.grid) * len(self.seeds) + len(self.seeds)
        if need > self.left():
            return [], (
                f"the budget of {self.ex['budget']} simulations ran out ({self.ex['budget'] - self.left()} used; the "
                f"game over {len(menu)} rules needs {need} more)"
            )
        g.runs.ensure({(self.provider.name, s): g.grid for s in self.seeds})
        self.games_run, self.used = self.games_run + g.runs.runs_done, most_workers(self.used, g.runs.workers)
        self.grid_sims += need
        return [e.mixture for e in equilibria(g.reduced_game(self.provider, self.seeds)).equilibria], ""


def explore_mechanism(st, provider, ex: dict, answer, *, fresh: list[int], n_jobs: int = 1) -> dict:
    """The exploration loop of one mechanism (module docstring): from the study's equilibria, grow the menu until no
    rule joins it or the budget ends.

    Parameters
    ----------
    st : PopulationGames
        The study's games over its own menu.
    provider : ProviderStrategy
    ex : dict
        The study's ``[game] exploration`` (family, budget, optimiser, bounds, evaluations, seeds, probe).
    answer : MechanismAnswer
        The study's answer for this mechanism: its equilibria (those not rejected are the first round's) and seeds.
    fresh : list of int
        The certificates' fresh seeds (none of them a seed the study used).
    n_jobs : int
        Worker processes of the oracle's runs.

    Returns
    -------
    dict
        ``equilibria`` over the final menu (each with its mixture, epsilon, verdict, certificate and the provider's
        figures), ``menu_only`` (the first round's, over the study's menu), ``rounds`` (the menu and what each
        round added), ``certified``, ``epsilon`` (the largest over the final equilibria), ``reason``, ``tolerance``
        and ``simulations``.
    """
    return explore(_Explorer(st, provider, ex, answer, fresh, n_jobs), answer)


def explore(e: _Explorer, answer) -> dict:
    """:func:`explore_mechanism`'s loop with the explorer ``e`` (its oracle, budget and seeds), from ``answer``."""
    st, provider, ex = e.st, e.provider, e.ex
    menu = list(st.cfg.strategies)
    mixtures = [np.asarray(q["mixture_vector"], dtype=float) for q in answer.equilibria if q["verified"] != "no"]
    rounds, reason = [], ""
    while True:
        eqs, added = [], []
        for mixture in mixtures:
            entry, rule = e.certify_one(menu, mixture)
            if entry is None:
                reason = f"the budget of {ex['budget']} simulations ran out ({ex['budget'] - e.left()} used)"
                break
            eqs.append(entry)
            if rule is not None and all(rule[0].key() != a.key() for a, _ in added):
                added.append(rule)
        # one rule a round, the one of largest fresh gain: each rule costs a grid of runs over the grown menu, and
        # the deviations from a game's equilibria are often neighbours; the next round finds the others again
        # where they still gain
        added = [max(added, key=lambda t: t[1])[0]] if added else []
        rounds.append({"menu": [m.name for m in menu], "equilibria": eqs, "added": [m.name for m in added]})
        if reason or not added:
            break
        menu = menu + added
        mixtures, reason = e.solve(menu)
        if reason:
            break
    last = rounds[-1]
    by_name = {m.name: m for m in menu}
    e.rules.update(by_name)
    certified = bool(last["equilibria"]) and all(q["certified"] for q in last["equilibria"]) and not reason
    if not reason and not certified:
        reason = (
            "the study reports no equilibrium to start from"
            if not last["equilibria"]
            else "an equilibrium's epsilon is above the tolerance: a rule may gain more than it, at 95% confidence"
        )
    eps = [q["epsilon"] for q in last["equilibria"]]
    return {
        "mechanism": provider.name,
        "equilibria": last["equilibria"],
        "menu_only": rounds[0]["equilibria"],
        "rounds": rounds,
        "menu": [strategy_entry(by_name[n_]) for n_ in last["menu"]],
        "not_solved": [m.name for m in menu if m.name not in last["menu"]],  #: added, then the budget ran out
        "certified": certified,
        "epsilon": max(eps) if eps and all(math.isfinite(v) for v in eps) else (float("nan") if eps else None),
        "reason": "" if certified else reason,
        "simulations": e.grid_sims + e.oracle.simulations,
        "oracle_simulations": e.oracle.simulations,
        "oracle_run_now": e.oracle.run_now,
        "run_now": e.games_run + e.oracle.run_now,
        "workers": most_workers(e.used, e.oracle.workers),
        "tolerance": e.tol,
        "seeds": len(e.seeds),
    }


def run_exploration(
    spec,
    *,
    analysis=None,
    n_jobs: int = 1,
    progress: bool = False,
    scheduler_address: str | None = None,
) -> dict:
    """Strategy exploration of a population study (its ``[game] exploration``), every mechanism in turn, from the
    study's own answer.

    Parameters
    ----------
    spec : StudySpec
        A population study with ``exploration`` set.
    analysis : PopulationAnalysis, optional
        The study's answer (``run_population_study``), where the caller has it; else it is run (or read) first.
    n_jobs, progress, scheduler_address
        How the runs are made (as for ``run_population_study``); a dask scheduler gives the same numbers.

    Returns
    -------
    dict
        The ``data/exploration.json`` payload: the study, the family, the optimiser, the budget, the certificates'
        design, and per mechanism :func:`explore_mechanism`'s answer.

    Raises
    ------
    InputError
        A study without ``[game] exploration``, or one of the runs' own errors.
    """
    ex = getattr(spec, "exploration", None)
    if spec.population is None or ex is None:
        raise InputError(f"study {spec.name!r}: [game] has no 'exploration' table to run")
    check_exploration(ex, f"{spec.name}: [game.exploration]")  # as load_study did: before any run
    if scheduler_address is not None:  # before any lock: an address that is not a scheduler holds nothing
        identify(scheduler_address)
    if analysis is None:
        analysis = run_population_study(spec, n_jobs=n_jobs, progress=progress, scheduler_address=scheduler_address)
    answers = {a.mechanism: a for a in analysis.answers}
    # fresh seeds: after every seed the study used (its reduced games' and its candidates')
    first_fresh = max(max(a.seeds) for a in analysis.answers) + 1 if analysis.answers else max(spec.seeds) + 1
    fresh = list(range(first_fresh, first_fresh + ex["confirm_seeds"]))
    store = study_store(spec)
    with store.lock("exploration run"), on_scheduler(scheduler_address):
        t0 = time.perf_counter()
        st = PopulationGames(spec, n_jobs=n_jobs, progress=progress, scheduler_address=scheduler_address)
        workers = -1 if scheduler_address else n_jobs  # on a cluster: every worker it has
        explorers = {p.name: _Explorer(st, p, ex, answers[p.name], fresh, workers) for p in spec.providers}
        out = [explore(explorers[p.name], answers[p.name]) for p in spec.providers]
        provider = explored_provider(explorers, out, fresh[: ex["first_seeds"]])
        if any(a["run_now"] for a in out) or provider["run_now"]:
            _record_last_run(store, out, time.perf_counter() - t0)
    return {
        "study": spec.name,
        "family": ex["family"],
        "parameters": list(search_family(ex["family"]).param_names),
        "bounds": list(ex["bounds"]),
        "optimiser": ex["optimiser"],
        "budget": ex["budget"],
        "evaluations": ex["evaluations"],
        "probe": exploration_probe(spec.population, ex),
        "search_seeds": list(spec.seeds)[: ex.get("search_seeds") or len(spec.seeds)],
        "fresh_seeds": [fresh[0], fresh[-1]],
        "first_seeds": ex["first_seeds"],
        "confirm_seeds": ex["confirm_seeds"],
        "alpha": ALPHA,
        "note": (
            "a certificate covers the rules the search evaluated, not every rule of the family: epsilon bounds what "
            "any of them gains, at 95% confidence"
        ),
        "mechanisms": {a["mechanism"]: a for a in out},
        "provider": {k: v for k, v in provider.items() if k != "run_now"},
        "simulations": sum(a["simulations"] for a in out) + provider["simulations"],
        "wall_seconds": time.perf_counter() - t0,
    }


def explored_provider(explorers: dict, answers: list[dict], seeds: list[int]) -> dict:
    """The provider's choice over the explored equilibria: leader and followers (the mechanism of highest revenue at
    its worst explored equilibrium), and the simultaneous equilibria with a pure provider strategy (the mechanism a
    revenue best response at its consumers' explored equilibrium: every mechanism's base runs at that mixture, on the
    certificates' first fresh seeds).

    Returns
    -------
    dict
        ``leader``, ``ranking``, ``simultaneous`` (each with the revenue of every mechanism at the mixture),
        ``seeds``, and the ``simulations`` it needed beyond the mechanisms' own (``run_now`` of them run now).
    """
    ranking, simultaneous = [], []
    sims0 = sum(x.oracle.simulations for x in explorers.values())
    run0 = sum(x.oracle.run_now for x in explorers.values())
    for a in answers:
        revs = [q["revenue"][0] for q in a["equilibria"]]
        if revs:
            ranking.append(
                {
                    "mechanism": a["mechanism"],
                    "equilibria": len(revs),
                    "worst_revenue": min(revs),
                    "best_revenue": max(revs),
                }
            )
        rules = explorers[a["mechanism"]].rules
        for q in a["equilibria"]:
            support = [rules[x["strategy"]] for x in q["mixture"]]
            x = [x["probability"] for x in q["mixture"]]
            under = {
                name: float(np.mean([f["revenue"] for f in other.oracle.figures(support, x, seeds)]))
                for name, other in explorers.items()
            }
            best = max(under.values())
            if under[a["mechanism"]] >= best - 1e-9 * max(1.0, abs(best)):
                simultaneous.append(
                    {
                        "mechanism": a["mechanism"],
                        "mixture": {x["strategy"]: x["probability"] for x in q["mixture"]},
                        "revenue": under[a["mechanism"]],
                        "revenue_under": under,
                    }
                )
    ranking.sort(key=lambda r: -r["worst_revenue"])
    return {
        "leader": ranking[0]["mechanism"] if ranking else None,
        "ranking": ranking,
        "simultaneous": simultaneous,
        "seeds": len(seeds),
        "simulations": sum(x.oracle.simulations for x in explorers.values()) - sims0,
        "run_now": sum(x.oracle.run_now for x in explorers.values()) - run0,
    }


def _record_last_run(store, answers: list, wall_seconds: float) -> None:
    """Add the exploration's runs to ``last-run.json`` (the population study run's, just before it, where that
    ran something): its simulations, those run now, its wall time and the workers used (the most of any fan-out:
    1 where no pool paid for its start); the record's ``workers`` is then the most of both parts."""
    path = store.root / "last-run.json"
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        record = None
    record = record if isinstance(record, dict) else {"kind": "population"}
    used = 1
    for a in answers:
        used = most_workers(used, a["workers"])
    record["exploration"] = {
        "simulations": sum(a["simulations"] for a in answers),
        "run": sum(a["run_now"] for a in answers),
        "wall_seconds": wall_seconds,
        "workers": used,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    record["workers"] = most_workers(record.get("workers", 1), used)
    with atomic_path(store.claim().file("last-run.json", once=False), "run record") as tmp:
        tmp.write_text(dumps_json(record, indent=2))


#: what a run of the exploration measured of itself, not of the market: the command's log, never the report's data
RUN_ONLY = ("wall_seconds", "oracle_run_now", "run_now", "workers")


def write_exploration(result: dict, folder: OutputFolder) -> Path:
    """Write ``data/exploration.json`` (strict JSON) into a claimed report folder; returns its path.

    The timings and the runs made by this call (``RUN_ONLY``) are left out: a rerun that reads every run back
    writes the same file."""
    kept = {k: v for k, v in result.items() if k not in RUN_ONLY}
    kept["mechanisms"] = {
        n: {k: v for k, v in m.items() if k not in RUN_ONLY} for n, m in result.get("mechanisms", {}).items()
    }
    path = folder.file("data/exploration.json")
    with atomic_path(path, "exploration data") as tmp:
        tmp.write_text(dumps_json(kept, indent=1))
    return path
