"""The best-response oracle: a single agent's gain from any rule of a parametric family, by paired runs, and the
search for the rule of largest gain.

Family. Any registered parametric family of consumer strategies (``gamemarket.consumers``), searched through its
interface: its declared parameters and bounds (``search_family`` checks that they match its points), and its
``point`` and naming (:func:`point` rounds to ``RESOLUTION`` and calls it), so a point is stored, keyed and named as
everywhere else. ``per-class`` is a beta per private-bid class (low, middle, high; today's shading rules are its
points); ``piecewise`` is a beta linear in the private bid between 7 knots over [0, 180].

Gain. A candidate's gain against mixture ``x`` on seed ``k`` is the paired estimate of
``gamemarket.studies.deviations``: the probe agents' utility when they play the candidate, less the same agents'
utility in the base run of ``x`` on the same seed (common random numbers: the same jobs, bids and draws). Every
candidate of a seed is evaluated on the same probe agents. The search maximises the mean over the search seeds;
what it finds is certified on fresh seeds (``gamemarket.search.certificates``), never on the seeds it searched.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from gamemarket.consumers import FAMILIES, ConsumerStrategy, ParametricFamily
from gamemarket.market.base import market_for
from gamemarket.search.optimisers import optimise, start_point
from gamemarket.studies.deviations import base_task, deviation_task
from gamemarket.studies.population import PopulationStore
from gamemarket.studies.population_config import DEFAULT_BOUNDS, RESOLUTION, search_box, search_family
from gamemarket.studies.store import task_key
from gamemarket.workers import LEAST_SECONDS_PER_JOB_RUN, fan_out, most_workers

#: what a stored gain's key records of the estimator: 3, the paired estimator (2: the truthful-run control variate)
ORACLE_VERSION = 3
#: the base runs' per-agent utilities the oracle keeps in memory (each ``8 x agents`` bytes); the oldest beyond it
#: is dropped and run again where a later candidate needs it
MAX_BASE_BYTES = 256 << 20


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


@dataclass
class SearchResult:
    """What one best-response search found: the best rule on the search seeds, and every rule it evaluated."""

    rule: ConsumerStrategy
    search_gain: float  #: mean gain over the search seeds (the objective the optimiser maximised)
    candidates: int  #: distinct candidates evaluated (the menu's rules included)
    simulations: int  #: market runs this search needed (base runs included)
    trace: list  #: (strategy, search gain) of every candidate, in the order evaluated

    @property
    def rules(self) -> list[ConsumerStrategy]:
        """Every distinct rule evaluated, as first evaluated (a later point with the same key, a menu rule's twin in
        the family, is the same rule)."""
        first: dict = {}
        for r, _ in self.trace:
            first.setdefault(r.key(), r)
        return list(first.values())

    @property
    def gains(self) -> dict:
        """A rule's name -> its search gain (a rule and its twins of the same key: the same gain)."""
        by_key = {r.key(): v for r, v in self.trace}
        return {r.name: by_key[r.key()] for r, _ in self.trace}


class ProbeOracle:
    """The best-response oracle of one mechanism: the single agent's paired gain of any rule, and the search for
    the rule of largest gain in a family.

    Parameters
    ----------
    arrays, nodes : dict, int
        The study's prepared workload (``PopulationRuns.arrays``, ``.nodes``).
    mechanism : dict
        The provider's parameters (``ProviderStrategy.params()``).
    agents : {"jobs", "users"}
        Who picks a rule (the study's ``[game] agents``).
    probe : float
        The probe agents' share of all agents (at least one agent).
    distribution : bids.BidDistribution
    seeds : list of int
        The search seeds (common random numbers for every candidate).
    n_jobs : int
        Worker processes (joblib; inside ``gamemarket.studies.population.on_scheduler`` the dask cluster's).
    share : bool
        Evaluate a batch of candidates in one run, each on its own block of probe agents (fewer runs; each
        candidate's agents then face the other blocks too); never stored.
    store : PopulationStore, optional
        Where each candidate's gain on each seed is stored and read back (keyed by ``key_fields``, the
        mechanism, the mixture, the candidate and the seed).
    key_fields : dict, optional
        What else determines a gain (the workload's hash, the bids, the model version).
    family : str
        The parametric family searched (``search_family``): ``per-class``, ``piecewise``, ...
    remote : bool
        The runs go to the dask cluster of ``on_scheduler`` (``n_jobs`` unused); else to local workers where a
        pool pays for its start, or to this process (``gamemarket.workers.fan_out``).
    outside : float, optional
        The outside option's price (the study's ``[game] outside_price``): rules that leave take it.

    Notes
    -----
    :attr:`simulations` counts the market runs the answers need, run now or read from the store: a candidate's
    run per seed, and the base run of each (mixture, seed) once (so a resumed search spends its budget as a fresh
    one does); :attr:`run_now` those this oracle ran. A candidate asked for again (same strategy, mixture and seed,
    after rounding to ``RESOLUTION``) is read from memory, not run again.
    """

    def __init__(
        self,
        arrays,
        nodes,
        mechanism,
        agents,
        probe,
        distribution,
        seeds,
        *,
        n_jobs: int = 1,
        share: bool = False,
        store: PopulationStore | None = None,
        key_fields: dict | None = None,
        family: str = "per-class",
        remote: bool = False,
        outside: float | None = None,
    ):
        self.family = search_family(family)
        self.outside = outside
        self.arrays, self.nodes, self.mechanism = arrays, nodes, mechanism
        self.agents = agents
        self.n_market = market_for(mechanism).size(arrays)
        self.probe = float(probe)
        self.distribution = distribution
        self.seeds = [int(s) for s in seeds]
        self.n_jobs, self.share, self.remote = n_jobs, share, remote
        self.workers: int | str = 1  #: the processes that ran its runs (``workers.fan_out``'s ``used``, the most)
        self.simulations = 0  #: the market runs the answers need (run now or read from the store)
        self.run_now = 0  #: the market runs made by this oracle
        self._needed: set = set()  #: (mixture, seed) whose base run the answers needed
        self._base: OrderedDict = OrderedDict()  #: (mixture, seed) -> base run (``base_task``), newest last
        self._figures: dict = {}  #: (mixture, seed) -> the base run's provider figures (no per-agent array)
        self._cache: dict = {}
        self.store = store if not share else None  # a shared run's gains are not a candidate's own: never stored
        self.key_fields = {
            **(key_fields or {}),
            "mechanism": mechanism,
            "agents": self.agents,
            "probe": self.probe,
            "oracle": ORACLE_VERSION,
            **({"outside_price": float(outside)} if outside is not None else {}),
        }

    # ------------------------------------------------------------------ keys and runs
    @staticmethod
    def context(support, x) -> tuple:
        """A mixture as the oracle keys it: its rules' keys and its probabilities rounded to 12 decimals."""
        return tuple(r.key() for r in support), tuple(round(float(v), 12) for v in x)

    def _key(self, ctx, c, s) -> str:
        return task_key({**self.key_fields, "support": ctx[0], "mixture": ctx[1], "candidate": c, "seed": s})

    def _fan_out(self, calls, runs_each: float, names: list[str]):
        """The calls' results in order (``workers.fan_out``: on local workers where a pool pays, else here; on the
        cluster where ``remote``), each call about ``runs_each`` market runs of the workload's jobs; ``names`` says
        what each computes (a dead worker's unfinished calls are named by them)."""
        least = runs_each * self.n_market * LEAST_SECONDS_PER_JOB_RUN
        used = [1]
        yield from fan_out(
            calls, self.n_jobs, least_each=least, ordered=True, remote=self.remote, used=used, names=names
        )
        self.workers = most_workers(self.workers, used[0])

    def _bases(self, support, x, seeds) -> None:
        """Make sure the base run of ``x`` is in memory for every seed of ``seeds`` (run where it is not)."""
        ctx = self.context(support, x)
        todo = [s for s in seeds if (ctx, s) not in self._base]
        for s in seeds:
            if (ctx, s) in self._base:
                self._base.move_to_end((ctx, s))
        if not todo:
            return
        args = (self.arrays, self.nodes, self.mechanism)
        calls = [
            (base_task, (*args, s, self.distribution, self.agents, list(support), list(x), self.outside)) for s in todo
        ]
        names = [f"a base run at mixture {[round(float(v), 4) for v in x]}, seed {s}" for s in todo]
        for s, res in zip(todo, list(self._fan_out(calls, 1, names))):  # all of it: the generator records the workers
            self._base[(ctx, s)] = res
            self._figures[(ctx, s)] = {k: v for k, v in res.items() if k != "u_agent"}
            if self.store is not None:  # a later run reads the figures back instead of running the base again
                self.store.write(self._key(ctx, "base run", int(s)), {"figures": self._figures[(ctx, s)]})
            self.run_now += 1
        while len(self._base) > 1 and sum(b["u_agent"].nbytes for b in self._base.values()) > MAX_BASE_BYTES:
            self._base.popitem(last=False)

    def _count_bases(self, ctx, seeds) -> None:
        new = [s for s in seeds if (ctx, s) not in self._needed]
        self._needed.update((ctx, s) for s in new)
        self.simulations += len(new)

    def pending(self, support, x, candidates, seeds) -> int:
        """The simulations :meth:`gains` would add to :attr:`simulations` for these candidates and seeds."""
        ctx = self.context(support, x)
        rules = [c if isinstance(c, ConsumerStrategy) else self.point(c) for c in candidates]
        keys = list(dict.fromkeys(r.key() for r in rules))
        missing = [(c, s) for c in keys for s in seeds if (ctx, c, int(s)) not in self._cache]
        if not missing:
            return 0
        bases = len({int(s) for _, s in missing} - {s for c_, s in self._needed if c_ == ctx})
        per = len({s for _, s in missing}) if self.share else len(missing)
        return bases + per

    def point(self, x) -> ConsumerStrategy:
        """The searched family's strategy at parameters ``x`` (:func:`point`)."""
        return point(x, family=self.family.name)

    # ------------------------------------------------------------------ answers
    def gains(self, support, x, candidates, seeds=None) -> np.ndarray:
        """Paired gains (candidates x seeds) of ``candidates`` against mixture ``x`` over ``support``.

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
        ctx = self.context(support, x)
        # in the order asked (with ``share`` the order places the probe blocks)
        todo = list(dict.fromkeys(c for c in cands for s in seeds if (ctx, c, s) not in self._cache))
        if todo:
            self._count_bases(ctx, seeds)
            if self.store is not None:  # what an earlier run of the same study stored: read, counted, not run
                for c in todo:
                    for s_ in seeds:
                        rec = (
                            self.store.read(self._key(ctx, c, s_), set_aside_bad=True)
                            if (ctx, c, s_) not in self._cache
                            else None
                        )
                        if rec is not None:
                            self._cache[(ctx, c, s_)] = rec["gain"]
                            self.simulations += 1
            per_seed = [[c for c in todo if (ctx, c, s) not in self._cache] for s in seeds]
            self._run(support, x, ctx, seeds, per_seed, by_key)
        return np.array([[self._cache[(ctx, c, s)] for s in seeds] for c in cands])

    def _run(self, support, x, ctx, seeds, per_seed, by_key) -> None:
        """Run the candidates of ``per_seed`` (per seed: the candidates' keys not known yet), after their seeds'
        base runs, and keep (and store) their gains."""
        run_seeds = [s for s, cs in zip(seeds, per_seed) if cs]
        if not run_seeds:
            return
        self._bases(support, x, run_seeds)
        args = (self.arrays, self.nodes, self.mechanism)
        calls, work = [], []
        for s, cs in zip(seeds, per_seed):
            if cs:
                base = self._base[(ctx, s)]["u_agent"]
                rules = [by_key[c] for c in cs]
                common = (*args, s, self.distribution, self.agents, self.probe, list(support), list(x))
                calls.append((deviation_task, (*common, rules, base, self.share, self.outside)))
                work.append((s, cs))
        runs_each = 1 if self.share else sum(len(cs) for _, cs in work) / len(work)
        names = [
            f"the deviation runs of {len(cs)} rule(s) at mixture {[round(float(v), 4) for v in x]}, seed {s}"
            for s, cs in work
        ]
        for (s, cs), g in zip(work, list(self._fan_out(calls, runs_each, names))):
            self.simulations += 1 if self.share else len(cs)
            self.run_now += 1 if self.share else len(cs)
            for c, (v, _) in zip(cs, g):
                self._cache[(ctx, c, s)] = float(v)
                if self.store is not None:
                    self.store.write(self._key(ctx, c, s), {"gain": float(v)})

    def figures(self, support, x, seeds) -> list[dict]:
        """The provider's figures (revenue, welfare, utilization, mean utility per agent) of the base runs of ``x``
        on ``seeds``: stored beside the gains, run where they are not."""
        ctx = self.context(support, x)
        out = []
        for s in seeds:
            key = self._key(ctx, "base run", int(s))
            if (
                (ctx, s) not in self._figures
                and self.store is not None
                and (rec := self.store.read(key, set_aside_bad=True)) is not None
            ):
                self._figures[(ctx, s)] = rec["figures"]
            if (ctx, s) not in self._figures:
                self._bases(support, x, [s])
            self._count_bases(ctx, [s])
            out.append(self._figures[(ctx, s)])
        return out

    def search(
        self,
        support,
        x,
        *,
        optimiser: str,
        evaluations: int,
        start=(),
        bounds=DEFAULT_BOUNDS,
        rng_seed: int = 0,
    ) -> SearchResult:
        """The best deviation found against mixture ``x`` by ``optimiser`` within ``evaluations`` candidates.

        The ``start`` rules (the menu, of any family) are evaluated first and count towards ``evaluations``;
        the optimiser then searches the family's box (``search_box`` of ``bounds``) from the best of them that
        the family can express (``start_point``), maximising the mean gain over the search seeds
        (``optimise``).
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
        return SearchResult(
            best[0],
            float(best[1]),
            len({t[0].key() for t in trace}),
            self.simulations - sims0,
            [(r, v) for r, v in trace],
        )
