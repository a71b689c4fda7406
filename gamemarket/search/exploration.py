"""Strategy exploration: a best-response oracle over a family of shading rules, and the loop that grows a menu.

A population study's answer holds for its menu of shading rules. Exploration asks whether a rule
outside the menu does better: per mechanism, solve the reduced game over the menu
(``gamemarket.analysis.population``), search the family for the single agent's best deviation
against each equilibrium (:class:`ProbeOracle`), add what beats the equilibrium by more than the
tolerance with its 95% CI above it, and solve again (the double-oracle / quiesce outer loop
[Jordan2010]_, with a stochastic search of a simulation-based game [Vorobeychik2008]_; see the
EGTA survey [Wellman2025]_). It stops when every equilibrium's best deviation found has the upper
end of its CI at or below the tolerance (certified), or when the budget of simulations runs out
(not certified, and why).

The oracle is a search: it certifies the deviations it evaluated, not every point of the family.

Family. Any registered parametric family of consumer strategies (``gamemarket.consumers``), searched
through its interface: its declared parameters and bounds (:func:`search_family` checks that they match
its points), and its ``point`` and naming (:func:`point` rounds to ``RESOLUTION`` and calls it), so a
point is stored, keyed and named as everywhere else. ``per-class`` is a beta per private-bid class (low,
middle, high; today's shading rules are its points); ``piecewise`` is a beta linear in the private bid
between 7 knots over [0, 180]. The search box is the study's ``bounds`` within the family's.

Gain estimate (the probe estimate, common random numbers). A candidate's gain against mixture
``x`` on seed ``k`` is its agents' mean utility minus the mixture's expected payoff, both from
one run at ``x`` in which the candidate holds a probe slice of width ``probe`` (the other
agents play ``x``'s support only); every candidate and every mixture of one seed share the seed's
draws. The search maximises the mean over the search seeds; the deviation it keeps is then run on
as many fresh seeds (confirmation), and its gain's 95% t-interval is from those alone, so that
picking the best of many candidates does not bias the interval upward (the winner's curse).

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import optimize

from gamemarket import bids
from gamemarket.analysis.population import PopulationGames
from gamemarket.confidence import t_interval
from gamemarket.consumers import FAMILIES, ConsumerStrategy, ParametricFamily
from gamemarket.errors import InputError
from gamemarket.games.rsg_equilibria import equilibria
from gamemarket.io.files import atomic_path, dumps_json
from gamemarket.io.ownership import OutputFolder
from gamemarket.market.base import market_for
from gamemarket.studies.population import PopulationStore, on_scheduler
from gamemarket.studies.population_config import (
    DEFAULT_BOUNDS,
    RESOLUTION,
    check_exploration,
    optuna_missing,
    search_box,
    search_family,
)
from gamemarket.studies.store import study_store, task_key
from gamemarket.studies.workers import LEAST_SECONDS_PER_JOB_RUN, fan_out, most_workers

#: the derivative-free optimisers the oracle can use: scipy.optimize's three, and optuna's TPE (an optional extra)
OPTIMISERS = ("nelder-mead", "differential_evolution", "direct", "optuna-tpe")


def point(x, *, family: str = "per-class") -> ConsumerStrategy:
    """The strategy at parameters ``x`` of ``family`` (``ParametricFamily.point``), rounded to ``RESOLUTION``.

    Parameters
    ----------
    x : sequence of float or mapping
        The family's parameters in its ``param_names`` order (or by name), each within its declared bounds.
    family : str
        A registered parametric family (``per-class``, ``piecewise``, ...).

    Returns
    -------
    ConsumerStrategy
        Named by the family from its parameters (``per-class[0,0.9,0.81]``): one name for a point everywhere.

    Raises
    ------
    InputError
        An unknown family, the wrong parameters, or one outside its bounds.
    """
    fam = search_family(family, "exploration")
    v = fam.check_point(x, "exploration")
    return fam.point([round(round(float(c) / RESOLUTION) * RESOLUTION, 10) for c in v])


def params_of(rule: ConsumerStrategy) -> dict:
    """A strategy's parameters by name: a parametric family's point by its ``param_names`` (``{"low": ..,
    "middle": .., "high": ..}`` for a per-class rule), else its stored ``params()``."""
    fam = FAMILIES.get(rule.family)
    if isinstance(fam, ParametricFamily):
        return dict(zip(fam.param_names, (float(v) for v in fam.coordinates(rule))))
    return rule.params()


def strategy_entry(rule: ConsumerStrategy) -> dict:
    """A strategy as ``data/exploration.json`` names it: its name, family and parameters, and its beta per
    private-bid class where its family has classes."""
    out = {"strategy": rule.name, "family": rule.family, "params": params_of(rule)}
    if rule.betas_by_class is not None:
        out["betas_by_class"] = list(rule.betas_by_class)
    return out


# ---------------------------------------------------------------------------- one seed's probe runs
def _seed_state(arrays, mechanism, seed, distribution, agents):
    """What every probe run of one seed shares: the draws, each job's agent and each agent's slice draw."""
    n = market_for(mechanism).size(arrays)
    draws = bids.draw(n, seed, distribution=distribution)
    if agents == "users":
        agent = np.unique(arrays["user"], return_inverse=True)[1]
        d = bids.user_draws(arrays["user"], seed)
    else:
        agent, d = np.arange(n), draws.G
    return n, draws, agent, d


def _runner(arrays, nodes, mechanism, n, w):
    """``run(reported) -> utility per job`` of the seed's runs (private bids ``w``; the market's ``payoff_runner``)."""
    one = market_for(mechanism).payoff_runner(arrays, nodes, mechanism, w)
    group = np.zeros(n, dtype=np.int64)
    return lambda rw: one(rw, group)[0]


def baseline_task(arrays, nodes, mechanism, seed, distribution, agents) -> np.ndarray:
    """Each agent's utility in the all-truthful run of ``seed`` (the control variate of every probe payoff)."""
    n, draws, agent, _ = _seed_state(arrays, mechanism, seed, distribution, agents)
    u0 = _runner(arrays, nodes, mechanism, n, draws.private_bid)(draws.private_bid.copy())
    return np.bincount(agent, weights=u0, minlength=int(agent.max()) + 1 if n else 0)


def probe_task(arrays, nodes, mechanism, seed, distribution, agents, probe, support, x, candidates, u0_agent, share):
    """The gains of ``candidates`` (strategies) against the mixture ``x`` over the rules ``support`` on one seed.

    Without ``share`` each candidate has a run of its own (one probe slice); with it, all of them share one
    run, each in its own probe slice (fewer runs; each candidate's agents then face the other probes too).

    Returns
    -------
    list of float
        Per candidate: its agents' mean utility minus the mixture's expected payoff (both with the truthful
        run's control variate, which cancels in the difference but not in the variance).
    """
    n, draws, agent, d = _seed_state(arrays, mechanism, seed, distribution, agents)
    w, U = draws.private_bid, draws.U
    n_agents = len(u0_agent)
    run, bid_class = _runner(arrays, nodes, mechanism, n, w), bids.bid_bin_codes(w)
    groups = [list(candidates)] if share else [[c] for c in candidates]
    out = []
    for group in groups:
        rules = list(support) + list(group)
        mix = np.concatenate([np.asarray(x, dtype=float), np.zeros(len(group))])
        lo, hi = bids.population_slices(mix, probe)
        strat = bids.assign(d, lo, hi)
        u_agent = np.bincount(
            agent,
            weights=run(bids.population_bids(rules, strat, w, np.zeros_like(w), U, bid_class=bid_class)),
            minlength=n_agents,
        )
        s_agent = np.zeros(n_agents, dtype=np.int64)
        s_agent[agent] = strat
        S = len(rules)
        cnt = np.bincount(s_agent, minlength=S).astype(float)
        diff = np.bincount(s_agent, weights=u_agent - u0_agent, minlength=S)
        if (cnt[len(support) :] == 0).any():
            raise InputError(
                f"exploration: a probe slice of width {probe} holds no agent of the {n_agents} (seed {seed}); "
                "expected a market of at least 1 / probe agents"
            )
        on = cnt[: len(support)] > 0  # a support rule of a vanishing probability may hold no agent
        pay = diff / np.maximum(cnt, 1)
        xs = np.asarray(x, dtype=float)[on]
        base = float(xs @ pay[: len(support)][on] / xs.sum())
        out.extend(float(v - base) for v in pay[len(support) :])
    return out


# ---------------------------------------------------------------------------- the oracle
@dataclass
class SearchResult:
    """What one best-response search found: the best deviation, its gain on the search seeds and on fresh ones."""

    rule: ConsumerStrategy
    search_gain: float  #: mean gain over the search seeds (the objective the optimiser maximised)
    gain: list  #: [mean, low, high]: 95% t-interval over the confirmation seeds
    candidates: int  #: distinct candidates evaluated (the menu's rules included)
    simulations: int  #: market runs this search made (baselines included)
    trace: list  #: (name, search gain) of every candidate, in the order evaluated


class ProbeOracle:
    """The best-response oracle of one mechanism: the single agent's deviation of largest gain in a family.

    The family is searched through its interface (``gamemarket.consumers.ParametricFamily``): its declared
    parameters and bounds, and its :meth:`~gamemarket.consumers.ParametricFamily.point` (via :func:`point`).

    Parameters
    ----------
    arrays, nodes : dict, int
        The study's prepared workload (``PopulationRuns.arrays``, ``.nodes``).
    mechanism : dict
        The provider's parameters (``ProviderStrategy.params()``).
    cfg : PopulationConfig
        The study's ``[game]`` table (its ``agents`` and ``probe``).
    distribution : bids.BidDistribution
    seeds : list of int
        The search seeds (common random numbers for every candidate).
    n_jobs : int
        Worker processes (joblib; inside ``gamemarket.studies.population.on_scheduler`` the dask cluster's).
    share : bool
        Evaluate a batch of candidates in one run, each in its own probe slice (see the module docstring).

    store : PopulationStore, optional
        Where each candidate's gain on each seed is stored and read back (keyed by ``key_fields``, the
        mechanism, the mixture, the candidate and the seed); never with ``share``.
    key_fields : dict, optional
        What else determines a gain (the workload's hash, the bids, the model version).
    family : str
        The parametric family searched (``search_family``): ``per-class``, ``piecewise``, ...
    remote : bool
        The runs go to the dask cluster of ``on_scheduler`` (``n_jobs`` unused); else to local workers where a
        pool pays for its start, or to this process (``gamemarket.studies.workers.fan_out``).

    Notes
    -----
    :attr:`simulations` counts the market runs the answers need, run now or read from the store (so a
    resumed search spends its budget as a fresh one does); :attr:`run_now` those this oracle ran. A
    candidate asked for again (same strategy, mixture and seeds, after rounding to ``RESOLUTION``) is read from
    memory, not run again.
    """

    def __init__(
        self,
        arrays,
        nodes,
        mechanism,
        cfg,
        distribution,
        seeds,
        *,
        n_jobs: int = 1,
        share: bool = False,
        store: PopulationStore | None = None,
        key_fields: dict | None = None,
        family: str = "per-class",
        remote: bool = False,
    ):
        self.family = search_family(family)
        self.arrays, self.nodes, self.mechanism = arrays, nodes, mechanism
        self.agents = cfg.agents
        self.n_market = market_for(mechanism).size(arrays)
        n_agents = len(np.unique(arrays["user"])) if cfg.agents == "users" else self.n_market
        self.probe = max(cfg.probe, 1.0 / max(n_agents, 1)) if cfg.agents == "users" else cfg.probe
        self.distribution = distribution
        self.seeds = [int(s) for s in seeds]
        self.n_jobs, self.share, self.remote = n_jobs, share, remote
        self.workers: int | str = 1  #: the processes that ran its runs (``workers.fan_out``'s ``used``, the most)
        self.simulations = 0  #: the market runs the answers need (run now or read from the store)
        self.run_now = 0  #: the market runs made by this oracle
        self._needed: set = set()  #: seeds whose baseline the answers needed
        self._u0: dict = {}
        self._cache: dict = {}
        self.store = store if not share else None  # a shared run's gains are not a candidate's own: never stored
        self.key_fields = {**(key_fields or {}), "mechanism": mechanism, "agents": self.agents, "probe": self.probe}

    def _key(self, ctx, c, s) -> str:
        return task_key({**self.key_fields, "support": ctx[0], "mixture": ctx[1], "candidate": c, "seed": s})

    def _baselines(self, seeds) -> None:
        todo = [s for s in seeds if s not in self._u0]
        if not todo:
            return
        calls = [
            (baseline_task, (self.arrays, self.nodes, self.mechanism, s, self.distribution, self.agents)) for s in todo
        ]
        res = list(self._fan_out(calls, 1))
        self._u0.update(zip(todo, res))
        self.run_now += len(todo)

    def _fan_out(self, calls, runs_each: float):
        """The calls' results in order (``workers.fan_out``: on local workers where a pool pays, else here; on the
        cluster where ``remote``), each call about ``runs_each`` market runs of the workload's jobs."""
        least = runs_each * self.n_market * LEAST_SECONDS_PER_JOB_RUN
        used = [1]
        yield from fan_out(calls, self.n_jobs, least_each=least, ordered=True, remote=self.remote, used=used)
        self.workers = most_workers(self.workers, used[0])

    def point(self, x) -> ConsumerStrategy:
        """The searched family's strategy at parameters ``x`` (:func:`point`)."""
        return point(x, family=self.family.name)

    def gains(self, support, x, candidates, seeds=None) -> np.ndarray:
        """Gains (candidates x seeds) of ``candidates`` against mixture ``x`` over ``support``.

        Parameters
        ----------
        support : list of ConsumerStrategy
            The rules the mixture plays.
        x : array_like
            Their probabilities (summing to 1).
        candidates : list of ConsumerStrategy or of sequence of float
            Strategies (of any family), or parameters of the searched family (:meth:`point`, rounded to
            ``RESOLUTION``).
        seeds : list of int, optional
            Default: the search seeds.
        """
        seeds = self.seeds if seeds is None else [int(s) for s in seeds]
        rules = [c if isinstance(c, ConsumerStrategy) else self.point(c) for c in candidates]
        by_key = {r.key(): r for r in rules}  # one strategy per key: equal parameters are one candidate
        cands = [r.key() for r in rules]
        ctx = (tuple(r.key() for r in support), tuple(round(float(v), 12) for v in x))
        # in the order asked (with ``share`` the order places the probe slices: the last one is the top slice)
        todo = list(dict.fromkeys(c for c in cands for s in seeds if (ctx, c, s) not in self._cache))
        if todo:
            new_seeds = [s for s in seeds if s not in self._needed]
            self._needed.update(new_seeds)
            self.simulations += len(new_seeds)  # a seed's baseline, needed once
            if self.store is not None:  # what an earlier run of the same study stored: read, counted, not run
                for c in todo:
                    for s_ in seeds:
                        rec = self.store.read(self._key(ctx, c, s_)) if (ctx, c, s_) not in self._cache else None
                        if rec is not None:
                            self._cache[(ctx, c, s_)] = rec["gain"]
                            self.simulations += 1
            per_seed = [[c for c in todo if (ctx, c, s) not in self._cache] for s in seeds]
            if any(per_seed):
                self._baselines([s for s, cs in zip(seeds, per_seed) if cs])
            calls = [
                (
                    probe_task,
                    (
                        self.arrays,
                        self.nodes,
                        self.mechanism,
                        s,
                        self.distribution,
                        self.agents,
                        self.probe,
                        list(support),
                        list(x),
                        [by_key[c] for c in cs],
                        self._u0[s],
                        self.share,
                    ),
                )
                for s, cs in zip(seeds, per_seed)
                if cs
            ]
            runs_each = 1 if self.share else sum(map(len, per_seed)) / max(len(calls), 1)
            res = list(self._fan_out(calls, runs_each))
            for s, cs, g in zip([s for s, cs in zip(seeds, per_seed) if cs], [cs for cs in per_seed if cs], res):
                self.simulations += 1 if self.share else len(cs)
                self.run_now += 1 if self.share else len(cs)
                self._cache.update({(ctx, c, s): v for c, v in zip(cs, g)})
                if self.store is not None:
                    for c, v in zip(cs, g):
                        self.store.write(self._key(ctx, c, s), {"gain": v})
        return np.array([[self._cache[(ctx, c, s)] for s in seeds] for c in cands])

    def search(
        self,
        support,
        x,
        *,
        optimiser: str,
        evaluations: int,
        start=(),
        bounds=DEFAULT_BOUNDS,
        confirm_seeds=(),
        rng_seed: int = 0,
    ) -> SearchResult:
        """The best deviation found against mixture ``x`` by ``optimiser`` within ``evaluations`` candidates.

        The ``start`` rules (the menu, of any family) are evaluated first and count towards ``evaluations``;
        the optimiser then searches the family's box (:func:`search_box` of ``bounds``) from the best of them
        that the family can express (:func:`start_point`), maximising the mean gain over the search seeds
        (:func:`optimise`); the best candidate is then run on the ``confirm_seeds`` (fresh seeds) for its
        gain's interval (on the search seeds where none are given).
        """
        sims0 = self.simulations
        trace: list = []  # (strategy, search gain), in the order evaluated
        seen: set = set()

        def evaluate(rules) -> list:
            # at most `evaluations` distinct candidates: the optimisers' own caps are approximate (whole
            # generations, a last simplex step), and a candidate past the cap is answered, not run
            run = []
            for r in {r.key(): r for r in rules}.values():
                if r.key() in seen or len(seen) < evaluations:
                    seen.add(r.key())
                    run.append(r)
            got = dict(zip([r.key() for r in run], self.gains(support, x, run).mean(axis=1).tolist())) if run else {}
            trace.extend((r, got[r.key()]) for r in run)
            return [got.get(r.key(), -1e300) for r in rules]

        if start:
            evaluate(list(start))
        box = search_box(self.family, bounds)
        x0 = next(
            (p for r, _ in sorted(trace, key=lambda t: -t[1]) if (p := start_point(self.family, r)) is not None), None
        )
        optimise(
            lambda batch: evaluate([self.point(np.clip(c, *np.transpose(box))) for c in batch]),
            box,
            optimiser,
            max(evaluations - len(start), 1),
            x0=x0,
            seed=rng_seed,
        )
        best = max(trace, key=lambda t: t[1])
        seeds = list(confirm_seeds) or self.seeds
        g = self.gains(support, x, [best[0]], seeds)[0]
        return SearchResult(
            best[0],
            float(best[1]),
            list(t_interval(g)),
            len({t[0].key() for t in trace}),
            self.simulations - sims0,
            [(r.name, v) for r, v in trace],
        )


def start_point(fam: ParametricFamily, rule: ConsumerStrategy):
    """Where a search of ``fam`` may start from ``rule``: its coordinates where it is one of the family's
    points; for a family on knots of the private bid (``piecewise``), the beta of each knot's bid class where
    the rule shades by class (a per-class rule's closest point); else None."""
    if rule.family == fam.name:
        return np.asarray(fam.coordinates(rule), dtype=float)
    knots = getattr(fam, "knots", None)
    if knots is not None and rule.betas_by_class is not None and len(knots) == fam.dimension:
        return np.asarray(rule.betas_by_class, dtype=float)[bids.bid_bin_codes(np.asarray(knots, dtype=float))]
    return None


def optimise(objective, box, optimiser: str, evaluations: int, *, x0=None, seed: int = 0) -> None:
    """Maximise ``objective`` (a batch of points -> their values) over ``box``.

    Parameters
    ----------
    objective : callable
        ``objective(list of points) -> list of values``; it records what it is asked (the caller keeps the best).
    box : list of (float, float)
        ``[lower, upper]`` of each coordinate (:func:`search_box`).
    optimiser : str
        ``differential_evolution`` (a generation at a time, [Storn1997]), ``nelder-mead`` (from ``x0``, one
        point at a time), ``direct`` (the locally biased DIRECT of Gablonsky and Kelley), all scipy.optimize;
        or ``optuna-tpe`` (optuna's tree-structured Parzen estimator, seeded, from ``x0``; the ``explore`` extra).
    evaluations : int
        The most objective values to ask for (approximately for differential evolution: whole generations).
    x0 : sequence of float, optional
        A start point (Nelder-Mead's and TPE's first; differential evolution's first generation holds it;
        DIRECT ignores it).
    seed : int
        The optimiser's random seed (differential evolution's and TPE's).
    """
    box = [(float(a), float(b)) for a, b in box]
    lo, hi = np.array([b[0] for b in box]), np.array([b[1] for b in box])

    def f(v):  # one point: minimised
        return -objective([np.clip(v, lo, hi)])[0]

    if optimiser == "differential_evolution":
        _differential_evolution(objective, f, box, evaluations, x0, seed)
    elif optimiser == "nelder-mead":
        dim = len(box)
        start = np.clip(np.asarray(x0 if x0 is not None else (lo + hi) / 2, dtype=float), lo, hi)
        step = 0.25 * (hi - lo)
        simplex = [start] + [
            np.clip(start + step[k] * np.eye(dim)[k] * (1 if start[k] + step[k] <= hi[k] else -1), lo, hi)
            for k in range(dim)
        ]
        optimize.minimize(
            f,
            start,
            method="Nelder-Mead",
            bounds=box,
            options={"maxfev": evaluations, "initial_simplex": np.array(simplex), "xatol": RESOLUTION, "fatol": 0},
        )
    elif optimiser == "direct":
        optimize.direct(f, box, maxfun=evaluations, locally_biased=True, len_tol=RESOLUTION / float(min(hi - lo)))
    elif optimiser == "optuna-tpe":
        _tpe(objective, box, evaluations, x0, seed)
    else:
        raise InputError(f"exploration: unknown optimiser {optimiser!r}; expected one of {list(OPTIMISERS)}")


def _differential_evolution(objective, f, box, evaluations: int, x0, seed: int) -> None:
    """scipy's differential evolution, a generation as one batch of candidates (one fan-out of runs)."""
    dim = len(box)
    lo, hi = np.array([b[0] for b in box]), np.array([b[1] for b in box])
    popsize = 5  # x dim points a generation: a short search of a 3-parameter family needs few generations
    gens = max(evaluations // (popsize * dim) - 1, 0)
    init = "latinhypercube"

    def batch_map(func, pts):  # scipy's `workers`: one generation as one batch of candidates (one fan-out)
        pts = [np.clip(p, lo, hi) for p in pts]
        return [-v for v in objective(pts)]

    if x0 is not None:
        rng = np.random.default_rng(seed)
        init = rng.uniform(lo, hi, (popsize * dim, dim))
        init[0] = np.clip(x0, lo, hi)
    optimize.differential_evolution(
        f,
        box,
        maxiter=gens,
        popsize=popsize,
        init=init,
        seed=seed,
        polish=False,
        tol=0,
        updating="deferred",
        workers=batch_map,
    )


def _tpe(objective, box, evaluations: int, x0, seed: int) -> None:
    """optuna's TPE sampler (seeded, so the same seed asks the same points), one point at a time, ``x0`` first."""
    try:
        import optuna  # deferred: an optional extra (``pip install gamemarket[explore]``), and slow to import
    except ImportError:
        raise optuna_missing() from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    names = [f"x{k}" for k in range(len(box))]
    if x0 is not None:
        study.enqueue_trial(dict(zip(names, (float(v) for v in np.clip(x0, *np.transpose(box))))))
    for _ in range(evaluations):
        trial = study.ask()
        v = [trial.suggest_float(n, lo, hi) for n, (lo, hi) in zip(names, box)]
        study.tell(trial, float(objective([np.array(v)])[0]))


# ---------------------------------------------------------------------------- the exploration loop
def _mixture_entry(rules, x) -> list[dict]:
    return [{**strategy_entry(r), "probability": float(p)} for r, p in zip(rules, x) if p > 0]


def _decide(gain, tol) -> str:
    """ "deviation" where the gain's CI is above the tolerance, "certified" where its upper end is at or below it,
    else "undecided"."""
    _, lo, hi = gain
    if math.isfinite(lo) and lo > tol:
        return "deviation"
    if math.isfinite(hi) and hi <= tol:
        return "certified"
    return "undecided"


def _confirm(oracle, support, x, r: SearchResult, confirm: list, cfg, tol: float, budget: int, cap: int):
    """The found deviation's gain CI on fresh seeds: ``confirm``, then ``cfg.seed_step`` more at a time while the
    CI straddles the tolerance, up to ``cap`` seeds (``[game] exploration``'s ``confirm_seeds``) and within the
    budget (two runs a seed: the deviation's and the seed's baseline). Returns (gain [mean, low, high], seeds
    used)."""
    gain, seeds = r.gain, list(confirm)
    while _decide(gain, tol) == "undecided" and len(seeds) < cap:
        step = min(cfg.seed_step, cap - len(seeds))
        if oracle.simulations + 2 * step > budget:
            break
        seeds += list(range(max(seeds) + 1, max(seeds) + 1 + step))
        gain = list(t_interval(oracle.gains(support, x, [r.rule], seeds)[0]))
    return gain, len(seeds)


def _equilibrium_entry(menu, mixture, r, gain, n_confirm: int, verdict: str) -> dict:
    """One equilibrium of a round as ``data/exploration.json`` holds it: its mixture over the menu, the best
    deviation the oracle found (``r``) with its confirmed gain, and the verdict."""
    return {
        "mixture": _mixture_entry(menu, mixture),
        "best_deviation": {
            **strategy_entry(r.rule),
            "gain": gain,
            "search_gain": r.search_gain,
            "confirmation_seeds": n_confirm,
        },
        "candidates_evaluated": r.candidates,
        "certified": verdict == "certified",
        "verdict": verdict,
    }


def explore_mechanism(st, provider, ex: dict, *, n_jobs: int = 1) -> dict:
    """The exploration loop of one mechanism (module docstring): grow the menu until certified or out of budget.

    Parameters
    ----------
    st : PopulationGames
        The study's games over its own menu.
    provider : ProviderStrategy
    ex : dict
        The study's ``[game] exploration`` (family, budget, optimiser, bounds, evaluations).
    n_jobs : int
        Worker processes of the oracle's runs.

    Returns
    -------
    dict
        ``equilibria`` over the final menu (each with its mixture, best deviation, candidates evaluated and
        ``certified``), ``menu_only`` (the first round's), ``rounds`` (the menu and what each round added),
        ``certified``, ``reason`` and ``simulations``.
    """
    spec, cfg = st.spec, st.cfg
    seeds = list(spec.seeds)
    n_confirm = min(max(len(seeds), 4), ex["confirm_seeds"])
    confirm = list(range(max(seeds) + 1, max(seeds) + 1 + n_confirm))  # fresh seeds for the CI
    key_fields = {k: v for k, v in st.runs.base.items() if k != "population"}  # a gain does not depend on the menu
    oracle = ProbeOracle(
        st.runs.arrays,
        st.runs.nodes,
        provider.params(),
        cfg,
        spec.bids,
        seeds,
        n_jobs=n_jobs,
        remote=st.runs.scheduler_address is not None,
        store=PopulationStore(Path(spec.results_dir) / "exploration"),
        key_fields={**key_fields, "oracle": 2},  # 2: candidates keyed by their family and parameters
        family=ex["family"],
    )
    menu = list(cfg.strategies)
    rounds, games_sims, games_run, used = [], 0, 0, 1
    reason, certified = "", False
    while True:
        g = st.with_menu(menu)
        if len(g.grid) * len(seeds) + len(seeds) > ex["budget"] - games_sims - oracle.simulations:
            reason = (
                f"the budget of {ex['budget']} simulations ran out ({games_sims + oracle.simulations} used; the game "
                f"over {len(menu)} rules needs {len(g.grid) * len(seeds) + len(seeds)} more)"
            )
            break
        g.runs.ensure({(provider.name, s): g.grid for s in seeds})
        games_run, used = games_run + g.runs.runs_done, most_workers(used, g.runs.workers)
        sol = equilibria(g.reduced_game(provider, seeds))
        # the runs the answer needs, run now or stored before (so that a resumed exploration takes the same path)
        games_sims += len(g.grid) * len(seeds) + len(seeds)
        tol = cfg.regret_tol * g.scale(provider, seeds)
        eqs, added = [], []
        for e in sol.equilibria:
            left = ex["budget"] - games_sims - oracle.simulations
            per_eval = len(seeds)
            if left < per_eval * (len(menu) + 2) + len(confirm) + len(seeds) + len(confirm):
                reason = f"the budget of {ex['budget']} simulations ran out ({games_sims + oracle.simulations} used)"
                break
            evals = min(ex["evaluations"], (left - 2 * len(confirm) - len(seeds)) // per_eval)
            on = e.mixture > 0
            support = [r for r, o in zip(menu, on) if o]
            r = oracle.search(
                support,
                e.mixture[on],
                optimiser=ex["optimiser"],
                evaluations=evals,
                start=menu,
                bounds=tuple(ex["bounds"]),
                confirm_seeds=confirm,
            )
            gain, n_confirm = _confirm(
                oracle, support, e.mixture[on], r, confirm, cfg, tol, ex["budget"] - games_sims, ex["confirm_seeds"]
            )
            verdict = _decide(gain, tol)
            known = [m for m in menu + added if m.key() == r.rule.key()]
            if verdict == "deviation" and not known:
                added.append(r.rule)
            elif verdict == "deviation":
                verdict = "undecided"  # a menu rule gains at the run itself: the reduced game's error, not a new rule
            eqs.append(_equilibrium_entry(menu, e.mixture, r, gain, n_confirm, verdict))
        rounds.append(
            {"menu": [m.name for m in menu], "equilibria": eqs, "added": [m.name for m in added], "tolerance": tol}
        )
        if reason:
            break
        if not added:
            certified = bool(eqs) and all(q["certified"] for q in eqs)
            if not certified:
                reason = (
                    "the reduced game has no equilibrium"
                    if not eqs
                    else "a best deviation's 95% CI straddles the tolerance: more seeds would decide it"
                )
            break
        menu = menu + added
    last = rounds[-1] if rounds else {"menu": [m.name for m in menu], "equilibria": [], "tolerance": None}
    by_name = {m.name: m for m in menu}
    return {
        "mechanism": provider.name,
        "equilibria": last["equilibria"],
        "menu_only": rounds[0]["equilibria"] if rounds else [],
        "rounds": rounds,
        "menu": [strategy_entry(by_name[n_]) for n_ in last["menu"]],
        "not_solved": [m.name for m in menu if m.name not in last["menu"]],  #: added, then the budget ran out
        "certified": certified,
        "reason": reason,
        "simulations": games_sims + oracle.simulations,
        "oracle_simulations": oracle.simulations,
        "oracle_run_now": oracle.run_now,
        "run_now": games_run + oracle.run_now,
        "workers": most_workers(used, oracle.workers),
        "tolerance": last["tolerance"],
    }


def run_exploration(spec, *, n_jobs: int = 1, progress: bool = False, scheduler_address: str | None = None) -> dict:
    """Strategy exploration of a population study (its ``[game] exploration``), every mechanism in turn.

    Parameters
    ----------
    spec : StudySpec
        A population study with ``exploration`` set.
    n_jobs, progress, scheduler_address
        How the runs are made (as for ``run_population_study``); a dask scheduler gives the same numbers.

    Returns
    -------
    dict
        The ``data/exploration.json`` payload: the study, the family, the optimiser, the budget, and per
        mechanism :func:`explore_mechanism`'s answer.

    Raises
    ------
    InputError
        A study without ``[game] exploration``, or one of the runs' own errors.
    """
    ex = getattr(spec, "exploration", None)
    if spec.population is None or ex is None:
        raise InputError(f"study {spec.name!r}: [game] has no 'exploration' table to run")
    check_exploration(ex, f"{spec.name}: [game.exploration]")  # as load_study did: before any run
    store = study_store(spec)
    with store.lock("exploration run"), on_scheduler(scheduler_address):
        t0 = time.perf_counter()
        st = PopulationGames(spec, n_jobs=n_jobs, progress=progress, scheduler_address=scheduler_address)
        workers = -1 if scheduler_address else n_jobs  # on a cluster: every worker it has
        answers = [explore_mechanism(st, p, ex, n_jobs=workers) for p in spec.providers]
        if any(a["run_now"] for a in answers):
            _record_last_run(store, answers, time.perf_counter() - t0)
    return {
        "study": spec.name,
        "family": ex["family"],
        "parameters": list(search_family(ex["family"]).param_names),
        "bounds": list(ex["bounds"]),
        "optimiser": ex["optimiser"],
        "budget": ex["budget"],
        "evaluations": ex["evaluations"],
        "confirm_seeds": ex["confirm_seeds"],
        "note": (
            "the oracle is a search: a certificate covers the deviations it evaluated, not every rule of the family"
        ),
        "mechanisms": {a["mechanism"]: a for a in answers},
        "simulations": sum(a["simulations"] for a in answers),
        "wall_seconds": time.perf_counter() - t0,
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
