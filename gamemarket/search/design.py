"""Empirical mechanism design: the provider's best point of a family of mechanisms when users shade and leave.

For each design point (a scheduler, a reserve ``r``, a payment blend ``alpha``: ``gamemarket.studies.design_config``)
the consumers' answer is the population game's, solved as a population study solves it
(``gamemarket.search.population.mechanism_answer``: the reduced game over the study's menu of rules, its candidates
verified by paired runs); the provider's objective at the point is its weighted metrics at the equilibrium that is
worst for it (among those not rejected), per seed, so that the objective has a mean and a Student-t interval. A
noise-aware optimiser proposes the points ([Vorobeychik2006]_, [Vorobeychik2008thesis]_):

* ``gp``: Bayesian optimisation with a Gaussian process whose kernel has a fitted noise term (a Matern 5/2 kernel
  plus white noise; the ``bayesian-optimization`` package, upper confidence bound), from a Latin hypercube start;
* ``tpe``: optuna's tree-structured Parzen estimator (seeded), from the same start;
* ``grid``: a regular grid of the budget's size, exhaustively (the reference of the benchmark).

Then the best designs (``contenders``) are confirmed on fresh seeds at their equilibria (base runs: the same seeds
for every design, so differences are paired) beside the study's fixed mechanisms, the chosen mechanism is the best
of them there (a fixed one where it beats every design found, which the answer's notes say), and the **provider's
regret bound** is, over every design the search evaluated and every fixed mechanism, the largest one-sided 95% upper
bound on how much it could beat the chosen one (paired by seed; on the fresh seeds for those confirmed, on the
search seeds for the rest; Bonferroni over them). A design compared with the chosen one on a single seed (the search
seeds, where the study has one) has no interval and so no 95% bound: it is left out of the bound and named
(``DesignAnswer.regret_unbounded``). With ``[design] explore`` the exploration grows the menu at every design point
and at every fixed mechanism alike, so whichever is chosen, its users' answer was explored the same way. Infeasible
points (no equilibrium found, or a constraint's mean missed) are told to the optimiser below the worst value seen,
and never chosen.

References
----------
.. [Vorobeychik2006] Y. Vorobeychik, C. Kiekintveld and M. P. Wellman, "Empirical mechanism design: methods, with
   application to a supply-chain scenario", ACM EC 2006.
.. [Vorobeychik2008thesis] Y. Vorobeychik, "Mechanism design and analysis using simulation-based game models", PhD
   thesis, University of Michigan (2008).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import optimize, stats
from scipy.stats import qmc

from gamemarket import MODEL_VERSION
from gamemarket.analysis.population import PopulationGames
from gamemarket.confidence import range_of_sum, t_interval
from gamemarket.errors import InputError, shown_name
from gamemarket.games.io import mixture_words
from gamemarket.games.rsg_equilibria import equivalence_classes
from gamemarket.io.files import atomic_path, dumps_json, shown_path
from gamemarket.market.base import figure_ranges
from gamemarket.market.outside import OUTSIDE_FIELDS
from gamemarket.search.exploration import explore_menu
from gamemarket.search.population import LOOK_SAY_S, mechanism_answer
from gamemarket.studies.design_config import grid_too_small, optimiser_missing
from gamemarket.studies.deviations import base_task
from gamemarket.studies.population import PopulationRuns, answer_tables, on_scheduler
from gamemarket.studies.runner import load_workload
from gamemarket.studies.schema import DESIGN_METRICS
from gamemarket.studies.store import NotStoredFile, open_stored, set_aside, study_store
from gamemarket.workers import LEAST_SECONDS_PER_JOB_RUN, fan_out

#: the error of the provider's regret bound
ALPHA = 0.05

#: the payment blend a fixed mechanism's payment is (0: k-th price, 1: first price), for its distance to the designs
PAYMENT_BLEND = {"kth": 0.0, "first": 1.0}


#: the ranges the design's figures lie in by the rules alone: a design is a mechanism of the scheduling market
#: (``gamemarket.market.simulate.Mechanism``), so its figures are that market's (revenue >= 0, welfare <= 0, shares
#: in [0, 1]: ``SchedulingMarket.figure_ranges``)
RANGES = figure_ranges({"kind": "scheduling"})


class _PerSeed:
    """The intervals of figures kept per seed (``per_seed``: metric -> values; ``objective_seeds``), each within the
    range its quantity lies in (``RANGES``; the objective's, ``objective_within``, from its weights)."""

    per_seed: dict
    objective_seeds: list
    #: the objective's range (``DesignAnswer`` sets it from the study's weights; unbounded until then)
    objective_within: tuple | None = None

    @property
    def figures(self) -> dict:
        """metric -> (mean, low, high), 95% Student-t over the seeds, within the metric's range."""
        return {m: t_interval(v, within=RANGES.get(m)) for m, v in self.per_seed.items()}

    @property
    def objective(self) -> tuple:
        """(mean, low, high) of the provider's objective over the seeds, within its range."""
        return t_interval(self.objective_seeds, within=self.objective_within)


@dataclass
class DesignPoint(_PerSeed):
    """One mechanism evaluated: its consumers' equilibrium (the provider's worst) and the provider's figures there.

    ``figures`` holds, per metric, ``(mean, low, high)`` over ``seeds`` (95% Student-t); ``per_seed`` the values
    themselves; ``objective`` likewise. ``equilibrium`` is None where the game has no candidate (``note`` says so).
    """

    provider: str
    scheduler: str
    params: dict  #: reserve, blend, payment
    order: int  #: the evaluation's rank (0: first); -1 for a fixed mechanism shown beside the design
    source: str  #: the optimiser that proposed it, or "compare"
    equilibrium: dict | None  #: rule -> share at the provider's worst equilibrium
    mixture: list | None  #: the share of every rule of the menu there
    verified: str  #: "yes", "undecided", "no" (every candidate rejected), or "none" (no candidate)
    epsilon: float | None
    tolerance: float | None
    equilibria: int  #: candidates not rejected (each a class of payoff-equivalent rules: ``classes``)
    seeds: list
    per_seed: dict  #: metric -> values per seed
    objective_seeds: list
    feasible: bool
    note: str = ""
    menu: list = field(default_factory=list)  #: the rules the users' answer is over (the grown menu, exploring)
    explored: dict | None = None  #: the exploration at the point: certified, epsilon, added rules, warm start
    #: the rules merged into each played one at the equilibrium (they pay whoever plays them the same in every
    #: profile): rule -> ``{"with": [rules], "any_mix": bool}`` (``any_mix``: every split of its share is one too)
    classes: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict) -> DesignPoint:
        """The object :meth:`to_dict` wrote, read back."""
        return cls(
            d["provider"], d["scheduler"], d["params"], d["order"], d["source"], d["equilibrium"], d["mixture"],
            d["verified"], d["epsilon"], d["tolerance"], d["equilibria"], d["seeds"], d["per_seed"],
            d["objective_seeds"], d["feasible"], d.get("note", ""), list(d.get("menu", [])), d.get("explored"),
            dict(d.get("classes") or {}),
        )  # fmt: skip

    def to_dict(self) -> dict:
        """As plain JSON-ready values (``data/design.json``)."""
        return {
            "provider": self.provider,
            "scheduler": self.scheduler,
            "params": self.params,
            "order": self.order,
            "source": self.source,
            "equilibrium": self.equilibrium,
            "mixture": self.mixture,
            "verified": self.verified,
            "epsilon": self.epsilon,
            "tolerance": self.tolerance,
            "equilibria": self.equilibria,
            "seeds": list(self.seeds),
            "figures": {m: list(v) for m, v in self.figures.items()},
            "per_seed": self.per_seed,
            "objective": list(self.objective),
            "objective_seeds": self.objective_seeds,
            "feasible": self.feasible,
            "note": self.note,
            "menu": list(self.menu),
            "explored": self.explored,
            "classes": self.classes,
        }


@dataclass
class Confirmation(_PerSeed):
    """A design's figures on the fresh seeds, at the equilibrium mixture found on the search seeds."""

    provider: str
    seeds: list
    per_seed: dict
    objective_seeds: list
    feasible: bool

    @classmethod
    def from_dict(cls, d: dict) -> Confirmation:
        """The object :meth:`to_dict` wrote, read back."""
        return cls(d["provider"], d["seeds"], d["per_seed"], d["objective_seeds"], d["feasible"])

    def to_dict(self) -> dict:
        """As plain JSON-ready values (``data/design.json``)."""
        return {
            "provider": self.provider,
            "seeds": list(self.seeds),
            "figures": {m: list(v) for m, v in self.figures.items()},
            "per_seed": self.per_seed,
            "objective": list(self.objective),
            "objective_seeds": self.objective_seeds,
            "feasible": self.feasible,
        }


@dataclass
class DesignAnswer:
    """What a design search found: every point evaluated, the chosen design confirmed on fresh seeds, its regret
    bound, and the study's fixed mechanisms on the same seeds."""

    study: str
    config: dict
    metrics: tuple
    points: list  #: DesignPoint, in evaluation order per scheduler
    compare: list  #: DesignPoint of the fixed mechanisms
    confirmations: dict  #: provider -> Confirmation (the contenders and the fixed mechanisms)
    chosen: str | None
    regret_bound: float | None  #: the provider's 95% regret bound (objective units)
    regret_against: str | None  #: the design that attains it
    simulations: int
    wall_seconds: float
    outside_price: float | None
    workload: dict = field(default_factory=dict)  #: workload (its name), jobs, nodes
    notes: list = field(default_factory=list)
    regret_upper: float | None = None  #: the largest upper bound itself (negative: every design does worse, at 95%)
    #: the designs (and fixed mechanisms) compared with the chosen one on a single seed: no interval, so no 95% bound
    #: against them; left out of ``regret_bound``
    regret_unbounded: list = field(default_factory=list)

    def __post_init__(self) -> None:
        # the objective's range: its weighted metrics' ranges summed (revenue alone: >= 0)
        within = range_of_sum(dict(self.config.get("objective", {})), RANGES)
        for p in [*self.points, *self.compare, *self.confirmations.values()]:
            p.objective_within = within

    def point(self, name: str) -> DesignPoint:
        """The mechanism named ``name``: a design point or a fixed mechanism (a ``KeyError`` naming it where the
        answer has none: a stored answer is checked for that when it is read, :func:`answer_problem`)."""
        found = next((p for p in self.points + self.compare if p.provider == name), None)
        if found is None:
            raise KeyError(f"no mechanism {name!r} in the design answer")
        return found

    def to_dict(self) -> dict:
        """As plain JSON-ready values (``data/design.json``)."""
        return {
            "kind": "design",
            "study": self.study,
            "config": self.config,
            "metrics": list(self.metrics),
            "outside_price": self.outside_price,
            "chosen": self.chosen,
            "regret_bound": self.regret_bound,
            "regret_against": self.regret_against,
            "regret_upper": self.regret_upper,
            "regret_unbounded": list(self.regret_unbounded),
            "confidence": 1 - ALPHA,
            "simulations": self.simulations,
            "workload": self.workload,
            "points": [p.to_dict() for p in self.points],
            "compare": [p.to_dict() for p in self.compare],
            "confirmations": {k: c.to_dict() for k, c in self.confirmations.items()},
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: dict) -> DesignAnswer:
        """The answer :meth:`to_dict` wrote (``results/design.json``), read back."""
        return cls(
            d["study"],
            d["config"],
            tuple(d["metrics"]),
            [DesignPoint.from_dict(p) for p in d["points"]],
            [DesignPoint.from_dict(p) for p in d["compare"]],
            {k: Confirmation.from_dict(c) for k, c in d["confirmations"].items()},
            d["chosen"],
            d["regret_bound"],
            d["regret_against"],
            d["simulations"],
            d.get("wall_seconds", 0.0),
            d["outside_price"],
            d.get("workload", {}),
            list(d.get("notes", [])),
            d.get("regret_upper"),
            list(d.get("regret_unbounded", [])),
        )


class DesignEvaluator:
    """Evaluates mechanisms of a population study's market: the consumers' equilibrium and the provider's figures.

    Parameters
    ----------
    spec : StudySpec
        A population study with ``[design]``.
    n_jobs, progress, run, scheduler_address
        As :class:`~gamemarket.analysis.population.PopulationGames`.
    """

    def __init__(self, spec, *, n_jobs: int = 1, progress: bool = False, run: bool = True, scheduler_address=None):
        self.spec, self.design, self.cfg = spec, spec.design, spec.population
        # no bar per design point's runs (tens of points): the search logs each point instead
        self.how = {"n_jobs": n_jobs, "progress": False, "run": run, "scheduler_address": scheduler_address}
        self.st0 = PopulationGames(spec, **self.how)
        self.seeds = list(spec.seeds)
        self.metrics = tuple(m for m in DESIGN_METRICS if m not in OUTSIDE_FIELDS or self.cfg.outside_price is not None)
        self.cache: dict = {}
        self.simulations = 0
        self.menus: dict = {}  #: provider -> the rules its answer is over
        self._used: set = set()  #: (menu, mechanism, mixture, seed, paired) of every run an answer used
        self.explored: dict = {}  #: provider -> (provider, its final menu), where the exploration ran
        d = self.design
        top = max(self.seeds) + 1 + d.confirm_seeds  # after the confirmation's fresh seeds
        self.explore_seeds = list(range(top, top + int((spec.exploration or {}).get("confirm_seeds", 0))))

    def games_for(self, prov, menu=None) -> PopulationGames:
        """The study's population games with ``prov`` as its one mechanism (the study's workload, store and keys),
        over ``menu`` (default: the study's rules)."""
        spec = copy.copy(self.spec)
        spec.providers = [prov]
        st = PopulationGames(spec, workload=self.st0.workload, **self.how)
        return st if menu is None else st.with_menu(menu)

    def warm_menu(self, prov) -> tuple[list, str | None]:
        """The grown menu of the nearest point explored so far of the same scheduler (coordinates scaled to the
        box), and its name; the study's menu and None where there is none."""
        mine = self._coords(prov)
        near = [
            (float(np.sum((self._coords(p) - mine) ** 2)), name, menu)
            for name, (p, menu) in self.explored.items()
            if p.params().get("scheduler") == prov.params().get("scheduler")
        ]
        if mine is None or not near:
            return list(self.cfg.strategies), None
        _, name, menu = min(near, key=lambda t: t[0])
        return list(menu), name

    def _coords(self, prov):
        box = self.design.box()
        if not box:
            return None
        params = dict(prov.params())
        if "blend" not in params and params.get("payment") in PAYMENT_BLEND:  # a fixed mechanism of the family
            params["blend"] = PAYMENT_BLEND[params["payment"]]
        return np.array([(float(params.get(k, lo)) - lo) / (hi - lo) for k, lo, hi in box])

    def evaluate(self, prov, *, order: int, source: str) -> DesignPoint:
        """The consumers' equilibria at ``prov`` and the provider's figures at its worst one (module docstring); with
        ``[design] explore``, over the menu the study's exploration grows there first (warm-started from the nearest
        point's grown menu), at a design point and at a fixed mechanism alike: either may be chosen, and a fixed
        mechanism answered over the menu alone would be held to a laxer standard than the designs beside it (hunt 15:
        ``hb-kth`` chosen over 8 explored designs, itself never explored)."""
        if prov.name in self.cache:
            return self.cache[prov.name]
        explored = None
        menu = list(self.cfg.strategies)
        if self.design.explore:
            menu, explored = self._explore(prov)
        st = self.games_for(prov, menu)
        ans = mechanism_answer(st, prov, self.seeds)
        self._count(st, menu)
        self.menus[prov.name] = menu
        params = {k: v for k, v in prov.params().items() if k in ("reserve", "blend", "payment")}
        sched = prov.params().get("scheduler", "")
        rows = []
        for e in ans.equilibria:
            recs = st.runs.records(prov, self.seeds, e.mixture_vector, paired=True)
            per = {m: [float(r[m]) for r in recs] for m in self.metrics}
            obj = [self.design.objective_of({m: per[m][k] for m in self.metrics}) for k in range(len(recs))]
            rows.append((e, per, obj))
        kept = [r for r in rows if r[0].verified != "no"]
        if not rows:
            p = DesignPoint(prov.name, sched, params, order, source, None, None, "none", None, None, 0, self.seeds,
                            {}, [], False, "no equilibrium found: " + "; ".join(ans.notes))  # fmt: skip
        else:
            pool = kept or rows
            e, per, obj = min(pool, key=lambda r: float(np.mean(r[2])))
            means = {m: float(np.mean(v)) for m, v in per.items()}
            note = "" if kept else "every candidate rejected by its paired runs: the least bad one is shown"
            p = DesignPoint(
                prov.name,
                sched,
                params,
                order,
                source,
                dict(e.mixture),
                list(e.mixture_vector),
                e.verified if kept else "no",
                float(e.epsilon),
                float(e.tolerance),
                len(kept),
                list(self.seeds),
                per,
                obj,
                bool(kept) and self.design.feasible(means),
                note,
            )
        p.menu = [r.name for r in menu]
        p.explored = explored
        if rows:
            p.classes = rule_classes(ans.game, e.mixture_vector, [r.name for r in menu])
        self.cache[prov.name] = p
        return p

    def _explore(self, prov) -> tuple[list, dict]:
        """The study's exploration at ``prov`` from the nearest explored point's menu: the final menu's rules and what
        the exploration says (certified over the family, epsilon, why not, simulations, where it started)."""
        start, near = self.warm_menu(prov)
        st = self.games_for(prov, start)
        ans = mechanism_answer(st, prov, self.seeds)
        self._count(st, start)
        m, final = explore_menu(st, prov, self.spec.exploration, ans, fresh=self.explore_seeds, **self._n_jobs())
        self.simulations += m.simulations
        self.explored[prov.name] = (prov, final)
        info = {
            "certified": bool(m.certified),
            "epsilon": m.epsilon,
            "tolerance": float(m.tolerance),
            "reason": m.reason,
            "rounds": len(m.rounds),
            "added": [r.name for r in final[len(start) :]],
            "warm_start": near,
            "simulations": int(m.simulations),
        }
        return final, info

    def _count(self, st, menu) -> None:
        """Add the runs ``st``'s answer used that no earlier answer used (a paired record is two runs)."""
        menu_key = tuple(r.key() for r in menu)
        new = {(menu_key, *r) for r in st.runs.requested} - self._used
        self._used |= new
        self.simulations += sum(2 if r[-1] else 1 for r in new)

    def _n_jobs(self) -> dict:
        return {"n_jobs": -1 if self.how["scheduler_address"] else self.how["n_jobs"]}

    def confirm(self, providers: dict, points: list[DesignPoint], seeds: list[int]) -> dict:
        """Each point's figures on ``seeds`` at its equilibrium mixture: base runs (every agent plays the mixture),
        one per seed, fanned out; returns provider -> :class:`Confirmation`."""
        calls, index = [], []
        w = self.st0.runs
        for p in points:
            if p.mixture is None:
                continue
            rules = self.menus.get(p.provider, list(self.cfg.strategies))
            x = np.asarray(p.mixture, dtype=float)
            on = x > 0
            support = [r for r, o in zip(rules, on) if o]
            for s in seeds:
                args = (w.arrays, w.nodes, providers[p.provider].params(), s, self.spec.bids, self.cfg.agents)
                calls.append((base_task, (*args, support, list(x[on]), self.cfg.outside_price)))
                index.append((p.provider, s))
        out: dict = {}
        least = w.meta["jobs"] * LEAST_SECONDS_PER_JOB_RUN
        remote = self.how["scheduler_address"] is not None
        names = [f"the base run of {name}, seed {s}" for name, s in index]
        results = list(fan_out(calls, self.how["n_jobs"], least_each=least, ordered=True, remote=remote, names=names))
        self.simulations += len(calls)
        for (name, _), res in zip(index, results):
            out.setdefault(name, []).append(res)
        conf = {}
        for name, res in out.items():
            per = {m: [float(r[m]) for r in res] for m in self.metrics}
            obj = [self.design.objective_of({m: per[m][k] for m in self.metrics}) for k in range(len(res))]
            feasible = self.design.feasible({m: float(np.mean(v)) for m, v in per.items()})
            conf[name] = Confirmation(name, list(seeds), per, obj, feasible)
        return conf


def rule_classes(game, mixture, names: list) -> dict:
    """The classes of payoff-equivalent rules at an equilibrium ``mixture`` of the users' reduced ``game``
    (``gamemarket.games.rsg_equilibria.equivalence_classes``: rules that pay whoever plays them the same in every
    profile, merged into one before the search): played rule -> ``{"with": [the rules merged into it], "any_mix":
    whether every split of its share with them is an equilibrium too}``; empty where there are none (or no game)."""
    if game is None:
        return {}
    return {
        names[s]: {"with": [names[t] for t in merged], "any_mix": bool(every)}
        for s, merged, every in equivalence_classes(game, np.asarray(mixture, dtype=float))
    }


# ---------------------------------------------------------------------------- the optimisers
def start_points(box: list, n: int, seed: int) -> np.ndarray:
    """``n`` points of a scrambled Latin hypercube over ``box`` (seeded): the model-based optimisers' start."""
    lo, hi = np.array([b[1] for b in box]), np.array([b[2] for b in box])
    return qmc.scale(qmc.LatinHypercube(d=len(box), seed=seed).random(n), lo, hi)


def grid_side(dims: int, budget: int) -> int:
    """The points a side of the regular grid within ``budget`` over ``dims`` parameters: ``floor(budget^(1/d))``; an
    :class:`InputError` below two (the box's ends)."""
    k = int(np.floor(budget ** (1 / dims) + 1e-9))
    if k < 2:
        raise InputError(grid_too_small(dims, budget))
    return k


def grid_points(box: list, budget: int) -> np.ndarray:
    """A regular grid of ``floor(budget^(1/d))`` points a side over ``box`` (ends included): at most ``budget``."""
    k = grid_side(len(box), budget)
    axes = [np.linspace(lo, hi, k) for _, lo, hi in box]
    return np.array(np.meshgrid(*axes, indexing="ij")).reshape(len(box), -1).T


#: the ends each parameter of the family cannot pass by definition: a reserve is at least 0, a blend in [0, 1]
LIMITS = {"reserve": (0.0, np.inf), "blend": (0.0, 1.0)}


def edge_notes(d, point, outside_price, points=()) -> list[str]:
    """A note for each searched parameter of the chosen design ``point`` (None: a fixed mechanism) that lies at an end
    of its range: the objective may keep improving past it. Hunt 8: with no outside option and ``reserve = [0,
    1e9]`` the search chose r = 1e9 (users cannot leave, so revenue grows with the reserve) without a word.

    No note where the end is one the parameter cannot pass (:data:`LIMITS`: a blend of 1 is first price), nor where
    the objective is flat along the parameter: the other designs evaluated (``points``) that differ from the chosen
    one in that parameter alone all have its mean objective on the search seeds, to rounding (hunt 13: a = 0.786,
    0.868 and 1 at r = 19 gave the same objective, and the note said the blend 1 "may keep improving past it")."""
    out = []
    for name, lo, hi in d.box() if point is not None else []:
        v = float(point.params[name])
        low, high = LIMITS.get(name, (-np.inf, np.inf))
        if v not in (lo, hi) or v == (high if v == hi else low) or _flat_along(point, points, name):
            continue
        why = ""
        if name == "reserve" and v == hi and outside_price is None:
            why = (
                "; without an outside option no user can leave, so revenue grows with the reserve: set [game] "
                "outside_price for a reserve users can refuse"
            )
        out.append(
            f"the chosen {name} {v:,.12g} is the {'upper' if v == hi else 'lower'} end of its searched range "
            f"[{lo:,.12g}, {hi:,.12g}]: the objective may keep improving past it{why}"
        )
    return out


def _same(a: float, b: float) -> bool:
    """Two objectives equal to rounding (1e-9 of their size)."""
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def _flat_along(point, points, name: str) -> bool:
    """Whether some other feasible design evaluated differs from ``point`` in the parameter ``name`` alone (its
    scheduler and every other parameter the same), and every such one has ``point``'s mean objective to rounding."""
    rest = {k: v for k, v in point.params.items() if k != name}
    along = [
        q
        for q in points
        if q.provider != point.provider
        and q.feasible
        and q.scheduler == point.scheduler
        and {k: v for k, v in q.params.items() if k != name} == rest
    ]
    return bool(along) and all(_same(q.objective[0], point.objective[0]) for q in along)


def break_tie(tied: list, box: list) -> tuple:
    """The design chosen among ``tied`` (the contenders whose mean objective on the fresh seeds equals the best, to
    rounding), and a note naming them where there are several: the one farthest inside the searched ranges (each
    parameter's distance to an end of its range, each range scaled to 1, compared from the least up: the largest
    least distance, then the largest next one, and so on; then the smaller parameters; then by name, so that the
    order of ``[design] schedulers`` never decides). Where the objective does not
    tell them apart, an end of a range is never chosen silently (hunt 13: a = 1 chosen among equal a = 0.786, 0.868
    and 1, with a note that it "may keep improving past" 1); nor where every contender is at the end of one range
    (hunt 25a-F2: all at r = 40, the least distance was 0 for each, and a = 0, the end of the blend's range, was
    chosen over a = 0.5 by the smaller parameters)."""
    if len(tied) < 2 or not box:
        return tied[0], None

    def inside(p):
        v = [float(p.params.get(k, lo)) for k, lo, _ in box]
        depths = sorted(min(x - lo, hi - x) / (hi - lo) for x, (_, lo, hi) in zip(v, box))
        return ([-d for d in depths], v, p.provider)  # (last by name: hunt 26a-W1, schedulers' order chose)

    best = min(tied, key=inside)
    names = ", ".join(f"`{p.provider}`" for p in tied)
    return best, (
        f"{len(tied)} contenders tie on the fresh seeds (the same mean objective, to rounding): {names}; the one "
        "farthest inside the searched ranges is chosen (the objective does not depend on what sets them apart there)"
    )


def optimise(value, box: list, optimiser: str, budget: int, seed: int) -> None:
    """Ask ``value(x)`` at ``budget`` points of ``box`` (``(name, low, high)`` each), the points proposed by
    ``optimiser`` (module docstring). ``value`` returns the objective to maximise, or None where the point is
    infeasible: the optimisers never take an infeasible point for a good one (optuna's TPE is told the trial
    failed; the GP is told it only once a feasible value is known, below the worst feasible value then seen), and the
    polish starts from the best feasible point."""
    if optimiser == "grid":
        for x in grid_points(box, budget):
            value(x)
        return
    start = start_points(box, start_size(len(box), budget), seed)
    told: list = []

    def asked(x):  # what the global search was told, for the polish's start
        v = value(x)
        if v is not None:
            told.append((float(v), np.asarray(x, dtype=float)))
        return v

    local = polish_size(budget)
    if optimiser == "gp":
        _gp(asked, box, budget - local, start, seed)
    elif optimiser == "tpe":
        _tpe(asked, box, budget - local, start, seed)
    else:
        raise InputError(
            f"[design] field 'optimiser': unknown {shown_name(optimiser)}; expected one of ['gp', 'tpe', 'grid']"
        )
    if local and told:
        _polish(asked, box, max(told, key=lambda t: t[0])[1], local, told)


#: the share of the budget spent polishing the global search's best point
POLISH = 0.25


def start_size(dims: int, budget: int) -> int:
    """How many points of a model-based optimiser's ``budget`` are its Latin hypercube start, over ``dims``
    searched parameters."""
    return min(budget, max(3, 2 * dims + 1))


def polish_size(budget: int) -> int:
    """How many of a model-based optimiser's ``budget`` proposals are the polish's line search at most (none below a
    budget of 8); the rest are the global search's."""
    return int(round(POLISH * budget)) if budget >= 8 else 0


class _Spent(Exception):
    """The polish's evaluations are spent."""


def _polish(value, box, x0, evaluations: int, told: list) -> None:
    """A line search per searched parameter from the global search's best feasible point: scipy's bounded Brent
    (``minimize_scalar``) between the nearest values of that parameter the search evaluated on either side of it (the
    box's ends where none), the others held at the best point found so far. It closes on an edge of the objective (a
    reserve just below where users leave) that a global model smooths over; the evaluations are split over the
    parameters (the remainder to the last). An infeasible point counts as worse than any feasible one."""
    x = np.asarray(x0, dtype=float).copy()
    best = [max(t[0] for t in told), x.copy()]
    for k, (_, lo, hi) in enumerate(box):
        per = evaluations // len(box) + (evaluations % len(box) if k == len(box) - 1 else 0)
        seen = np.array([t[1][k] for t in told])
        left = seen[seen < x[k]].max(initial=lo)
        right = seen[seen > x[k]].min(initial=hi)
        if not right > left or per < 1:
            continue
        count = [0]

        def f(v, k=k):
            if count[0] >= per:
                raise _Spent
            count[0] += 1
            y = best[1].copy()
            y[k] = v
            got = value(y)
            if got is not None and got > best[0]:
                best[0], best[1] = float(got), y
            return np.inf if got is None else -float(got)

        try:
            optimize.minimize_scalar(
                f, bounds=(left, right), method="bounded", options={"xatol": 1e-3 * (hi - lo), "maxiter": per}
            )
        except _Spent:
            pass  # an improvement found before the evaluations ran out is kept in ``best``
        x = best[1].copy()


def _gp(value, box, budget, start, seed) -> None:
    """bayes_opt's Bayesian optimisation: a GP with a Matern 5/2 kernel plus a fitted white-noise term (the objective
    is an estimate over seeds), upper confidence bound; the Latin hypercube start registered first. An infeasible
    point is registered once a feasible value is known, below the worst feasible value then seen."""
    try:
        from bayes_opt import BayesianOptimization, acquisition  # deferred: the ``design`` extra
        from sklearn.gaussian_process.kernels import Matern, WhiteKernel  # deferred: bayes_opt's own dependency
    except ImportError:
        raise optimiser_missing("gp") from None
    names = [b[0] for b in box]
    opt = BayesianOptimization(
        f=None,
        pbounds={n: (lo, hi) for n, lo, hi in box},
        acquisition_function=acquisition.UpperConfidenceBound(kappa=2.576),
        random_state=seed,
        verbose=0,
        allow_duplicate_points=True,
    )
    opt.set_gp_params(kernel=Matern(nu=2.5) + WhiteKernel(1e-2, (1e-8, 1.0)), alpha=1e-8, n_restarts_optimizer=3)
    feasible: list[float] = []
    pending: list = []  # infeasible points not yet told: no feasible value to put them below
    for k in range(budget):
        if k < len(start) or not feasible:
            x = start[k] if k < len(start) else start_points(box, 1, seed + k)[0]
        else:
            s = opt.suggest()
            x = np.array([float(s[n]) for n in names])
        v = value(x)
        if v is None:
            pending.append(x)
        else:
            feasible.append(float(v))
            _register(opt, dict(zip(names, (float(c) for c in x))), float(v))
        if feasible and pending:
            lo, hi = min(feasible), max(feasible)
            floor = lo - 0.1 * max(hi - lo, abs(lo), 1.0)
            for xp in pending:
                _register(opt, dict(zip(names, (float(c) for c in xp))), floor)
            pending.clear()


def _register(opt, point: dict, value: float) -> None:
    """``opt.register``, what it prints kept off the command's output: bayes_opt prints a red "Data point ... is not
    unique" line to stdout for each repeated point, which the search allows on purpose (a point evaluated twice is
    an estimate over seeds twice); stdout is the command's result (hunt 15a: the lines landed in a file of
    ``--format json``'s kind)."""
    with contextlib.redirect_stdout(io.StringIO()):
        opt.register(point, value)


def _tpe(value, box, budget, start, seed) -> None:
    """optuna's TPE sampler (seeded), the Latin hypercube start enqueued first; an infeasible point is a failed
    trial (the sampler ignores it)."""
    try:
        import optuna  # deferred: an optional extra, slow to import
    except ImportError:
        raise optimiser_missing("tpe") from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=len(start))
    study = optuna.create_study(direction="maximize", sampler=sampler)
    for x in start:
        study.enqueue_trial({n: float(v) for (n, _, _), v in zip(box, x)})
    for _ in range(budget):
        trial = study.ask()
        x = np.array([trial.suggest_float(n, lo, hi) for n, lo, hi in box])
        v = value(x)
        if v is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, float(v))


# ---------------------------------------------------------------------------- the plan
def most_points(box: list, optimiser: str, budget: int) -> int:
    """The most points :func:`optimise` asks ``value`` for over ``box``: the grid's (:func:`grid_side` a side, within
    the budget), else the budget (a model-based optimiser's start, global search and polish share it). A point asked
    twice is evaluated once (the search's cache), so a search may evaluate fewer."""
    if optimiser == "grid":
        return grid_side(len(box), budget) ** len(box)
    return budget


def fixed_mechanisms(spec) -> list[str]:
    """The study's fixed mechanisms the search compares and confirms beside its designs: ``[design] compare``, else
    every provider."""
    d = spec.design
    return list(d.compare) if d.compare is not None else [p.name for p in spec.providers]


@dataclass(frozen=True)
class DesignPlan:
    """What a design search runs at most, said before it starts (hunt 31a-F1: a budget of 100,000 grid points ran with
    not a line said of its 99,856 points), every number from the code that does the work: :func:`most_points` (the
    optimiser's), the population game's grid (``PopulationGames.grid``), :func:`fixed_mechanisms` and the
    confirmation's contenders (``run_design``)."""

    study: str
    optimiser: str
    budget: int
    per_scheduler: int  #: the most points a scheduler's search evaluates (:func:`most_points`)
    schedulers: int
    dims: int  #: the searched parameters
    grid_mixtures: int  #: the population game's grid over the study's menu (one simulation a mixture and seed)
    seeds: int
    fixed: int  #: the fixed mechanisms evaluated beside the designs
    confirm_seeds: int
    contenders: int  #: the most designs confirmed on the fresh seeds
    explore_budget: int | None = None  #: the exploration's most simulations per point (``[design] explore``)
    side: int | None = None  #: the grid's points a side (:func:`grid_side`; the grid optimiser's)

    @property
    def points(self) -> int:
        """The most design points the search evaluates, every scheduler's."""
        return self.per_scheduler * self.schedulers

    @property
    def per_point(self) -> int:
        """The grid simulations of one point (or fixed mechanism): its grid mixtures on the study's seeds."""
        return self.grid_mixtures * self.seeds

    @property
    def grid_simulations(self) -> int:
        """The most grid simulations in all: every design point's and every fixed mechanism's."""
        return (self.points + self.fixed) * self.per_point

    @property
    def confirm_runs(self) -> int:
        """The most base runs of the confirmation: the contenders and the fixed mechanisms, on the fresh seeds."""
        return (self.contenders + self.fixed) * self.confirm_seeds

    @property
    def text(self) -> str:
        """The plan as one line."""
        how = (
            f"the grid: {self.side:,} a side over {self.dims} parameter(s)"
            if self.side is not None
            else f"the {self.optimiser} optimiser's proposals, repeats evaluated once"
        )
        explore = (
            f", after the exploration grows its menu (up to {self.explore_budget:,} simulations a point)"
            if self.explore_budget is not None
            else ""
        )
        return (
            f"study {self.study}: a design search of at most {self.per_scheduler:,} point(s) x {self.schedulers} "
            f"scheduler(s) = {self.points:,} design points ([design] budget = {self.budget:,} per scheduler; {how}); "
            f"each point (and each of the {self.fixed} fixed mechanism(s)) is a population game of "
            f"{self.grid_mixtures:,} grid mixtures x {self.seeds} seed(s) = {self.per_point:,} simulations{explore}, "
            "then the all-truthful population's and each equilibrium candidate's paired records (two simulations "
            f"each, per seed): up to {self.grid_simulations:,} grid simulations in all and their paired records, then "
            f"up to {self.confirm_runs:,} base runs confirming the best on {self.confirm_seeds} fresh seed(s) "
            "(Ctrl-C or `study run --time-limit SECONDS` keeps every finished run; the same command resumes)"
        )


def design_plan(spec, grid_mixtures: int) -> DesignPlan:
    """The plan of ``spec``'s design search (:class:`DesignPlan`), whose population game has ``grid_mixtures``
    mixtures on its grid (``PopulationGames.grid``)."""
    d = spec.design
    per = most_points(d.box(), d.optimiser, d.budget)
    points = per * len(d.schedulers)
    explore = int((spec.exploration or {}).get("budget", 0)) if d.explore else None
    side = grid_side(len(d.box()), d.budget) if d.optimiser == "grid" else None
    return DesignPlan(
        spec.name, d.optimiser, d.budget, per, len(d.schedulers), len(d.box()), int(grid_mixtures),
        len(spec.seeds), len(fixed_mechanisms(spec)), d.confirm_seeds, min(1 + d.contenders, points), explore, side,
    )  # fmt: skip


class _NotStored(Exception):
    """A design point whose runs are not all stored, or the count's time spent (:func:`points_stored`)."""


#: the most seconds :func:`points_stored` replays a model-based search for (`study status` waits on it)
COUNT_SECONDS = 10.0


def points_stored(spec, *, seconds: float = COUNT_SECONDS) -> tuple[int, bool]:
    """How many design points a search of ``spec`` has stored (hunt 31a-W7: after a search stopped at 156 of its 400
    points, `study status` said "0/60", its fixed mechanisms' count), nothing run: ``(count, whole)``.

    A point is stored where its answer reads from the stored runs alone. The search evaluates its points one at a
    time, so those stored are the first of its order: a grid's (without ``explore``, each point's runs its own) are
    counted by bisecting the grid's order (a few points read, however large the grid); a model-based search's order
    depends on what it was told, so it is replayed on the stored runs point by point, up to the first point not
    stored; either for at most ``seconds``, looked at between points (``whole`` False: the count stopped there, and at
    least that many are stored).
    """
    d = spec.design
    ev = DesignEvaluator(spec, run=False)
    deadline = time.monotonic() + seconds
    if d.optimiser == "grid" and not d.explore:
        order = [(sched, x) for sched in d.schedulers for x in grid_points(d.box(), d.budget)]
        lo, hi = 0, len(order)  # the first ``lo`` are stored; from ``hi`` on, none
        while lo < hi:
            if time.monotonic() > deadline:  # (each look solves a point's games: bounded as the replay is, the review)
                return lo, False
            mid = (lo + hi) // 2
            try:
                ev.evaluate(d.point(*order[mid]), order=mid, source=d.optimiser)
                lo = mid + 1
            except InputError:  # (a run not stored, or not readable: a run would make it)
                hi = mid
        return lo, True
    done = [0, True]
    for sched in d.schedulers:

        def value(x, sched=sched):
            if time.monotonic() > deadline:
                done[1] = False
                raise _NotStored
            prov = d.point(sched, x)
            fresh = prov.name not in ev.cache
            try:
                p = ev.evaluate(prov, order=done[0], source=d.optimiser)
            except InputError:
                raise _NotStored from None
            done[0] += fresh
            return p.objective[0] if p.feasible else None

        try:
            optimise(value, d.box(), d.optimiser, d.budget, d.seed)
        except _NotStored:
            break
    return done[0], done[1]


# ---------------------------------------------------------------------------- the search
def run_design(spec, *, n_jobs: int = 1, progress: bool = False, scheduler_address: str | None = None, log=None):
    """Search the study's ``[design]`` family (module docstring) and return a :class:`DesignAnswer`.

    The caller holds the study's lock (``gamemarket.workflow``); the runs are stored in the study's results folder
    under the population game's keys, so a second call reads them back. ``log`` is told the plan before any run
    (:class:`DesignPlan`), each point as it is evaluated, and every :data:`LOOK_SAY_S` seconds how far the search is."""
    log = log or (lambda line: None)
    t0 = time.perf_counter()
    d = spec.design
    set_aside_damaged(spec)  # (a damaged answer is kept aside, named, as a damaged stored run is: hunt 18a, F7)
    with on_scheduler(scheduler_address):
        ev = DesignEvaluator(spec, n_jobs=n_jobs, progress=progress, scheduler_address=scheduler_address)
        # before any run, from the evaluator's own grid (hunt 31a-F1: 99,856 points began with not a line said)
        plan = design_plan(spec, len(ev.st0.grid))
        log(plan.text)
        providers: dict = {}
        points: list[DesignPoint] = []
        said = [time.monotonic()]
        for sched in d.schedulers:

            def value(x, sched=sched):
                prov = d.point(sched, x)
                providers[prov.name] = prov
                fresh = prov.name not in ev.cache
                p = ev.evaluate(prov, order=len(points), source=d.optimiser)
                if fresh:
                    points.append(p)
                    log(f"design {prov.name}: {_words(p)}")
                    if time.monotonic() - said[0] >= LOOK_SAY_S:  # (hunt 31a-F1: how far, every few seconds)
                        said[0] = time.monotonic()
                        log(
                            f"study {spec.name}: {len(points):,} of at most {plan.points:,} design points evaluated, "
                            f"{ev.simulations:,} simulations so far (stored ones read back, not run again)"
                        )
                return p.objective[0] if p.feasible else None  # None: infeasible (``optimise``)

            optimise(value, d.box(), d.optimiser, d.budget, d.seed)
        names = fixed_mechanisms(spec)
        by_name = {p.name: p for p in spec.providers}
        compare = []
        for n in names:
            providers[n] = by_name[n]
            compare.append(ev.evaluate(by_name[n], order=-1, source="compare"))
        feasible = sorted((p for p in points if p.feasible), key=lambda p: -p.objective[0])
        contenders = feasible[: 1 + d.contenders]
        fresh = list(range(max(spec.seeds) + 1, max(spec.seeds) + 1 + d.confirm_seeds))
        conf = ev.confirm(providers, contenders + [p for p in compare if p.mixture is not None], fresh)
        chosen, bound, against, notes, upper, unbounded = _choose(points, contenders, conf, compare, d.box())
    if chosen is None:
        notes.append("no design met the constraints at an equilibrium")
    else:
        at = next((p for p in points if p.provider == chosen), None)
        notes += edge_notes(d, at, spec.population.outside_price, points)
    return DesignAnswer(
        spec.name,
        d.table(),
        ev.metrics,
        points,
        compare,
        conf,
        chosen,
        bound,
        against,
        ev.simulations,
        time.perf_counter() - t0,
        spec.population.outside_price,
        {**{k: ev.st0.runs.meta[k] for k in ("workload", "jobs", "nodes")}, "sha256": ev.st0.runs.base["workload"]},
        notes,
        upper,
        unbounded,
    )


#: the answer's file in the study's results folder, and what its key covers
ANSWER_FILE = "design.json"


#: the design search's own version: part of a stored answer's key (a changed search never reuses an old answer).
#: 2: the study's fixed mechanisms confirmed beside the contenders may be chosen, and count in the regret bound;
#: 3: payoff-equivalent rules merged into one class before the users' equilibrium search (hunt 13), and a tie on the
#: fresh seeds broken towards the interior of the searched ranges; 4: with ``explore``, the fixed mechanisms explored
#: too, and no 95% bound against a design compared on one seed only (hunt 15; an answer of 3 would be read as both);
#: 5: a point's values rounded to a power of ten (``design_config.resolution``), which keeps a regular grid regular
SEARCH_VERSION = 5


def answer_key(spec, workload_hash: str | None = None) -> dict:
    """What determines a design answer: the study file's tables (workload, bids, strategies, seeds, ``[game]``,
    ``[design]``; not their descriptions: ``studies.population.answer_tables``), the workload's content
    (``workload_hash``: a model or trace edited in place), the plugins' hashes, the model's and the search's
    versions."""
    key = answer_tables(spec, ("workload", "bids", "strategies", "replications", "game", "design"))
    key["plugins"] = sorted(p.digest for p in spec.plugins)  # their text: not where a clone keeps them
    return key | {"model": MODEL_VERSION, "search": SEARCH_VERSION, "workload_content": workload_hash}


def _unordered(key: dict) -> dict:
    """A design answer's key with the lists whose order decides nothing sorted: the providers and ``[design]
    compare`` (the fixed mechanisms, each run on its own seeds; an exact tie among them is broken by name, not by
    their order: hunt 22a-W7, a reordered ``providers`` made the answer "not current"). Read both ways: an answer
    stored before stays current."""
    out = json.loads(json.dumps(key))
    strategies, design = out.get("strategies"), out.get("design")
    if isinstance(strategies, dict) and isinstance(strategies.get("providers"), list):
        strategies["providers"] = sorted(map(str, strategies["providers"]))
    if isinstance(design, dict) and isinstance(design.get("compare"), list):
        design["compare"] = sorted(map(str, design["compare"]))
    return out


#: a stored answer's field holding the SHA-256 of the rest (:func:`answer_digest`): an answer edited by hand is told
#: from the one gamemarket wrote, as a stored population run is (``gamemarket.studies.population.DIGEST_FIELD``);
#: answers stored before it have none, and are read, checked for consistency alone (:func:`answer_problem`)
DIGEST_FIELD = "sha256"


def answer_digest(doc: dict) -> str:
    """SHA-256 of a stored answer's document (its key, answer and wall time; not its digest), as JSON with sorted
    keys."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def write_answer(spec, ans: DesignAnswer, *, force: bool = False) -> Path:
    """``results/design.json``: the answer, its key and the digest of both, so that ``report`` renders it without
    running anything, and an answer edited since is told (:func:`read_answer`); ``force``: ``study run --force``'s,
    into a results folder gamemarket did not make (hunt 33a-F1: refused after the whole search, --force given)."""
    store = study_store(spec, force=force)
    path = store.claim().file(ANSWER_FILE, once=False)
    with atomic_path(path, "design answer") as tmp:
        key = answer_key(spec, ans.workload.get("sha256"))
        # as it reads back (numpy values plain, NaN null): the digest is of what the file holds
        doc = json.loads(dumps_json({"key": key, "answer": ans.to_dict(), "wall_seconds": ans.wall_seconds}))
        tmp.write_text(dumps_json({**doc, DIGEST_FIELD: answer_digest(doc)}, indent=2), encoding="utf-8")
    return path


def load_workload_hash(spec) -> str:
    """The content hash of the study's prepared workload (``PopulationRuns.base["workload"]``, the runs' own key)."""
    return PopulationRuns(spec, load_workload(spec), run=False).base["workload"]


class DamagedAnswer(InputError):
    """A stored design answer that is not the one gamemarket wrote (it does not parse, it was edited, or it does not
    hold together): not to be trusted; ``study run`` sets it aside and computes it again. ``reason`` says what is
    wrong."""

    def __init__(self, path: Path, reason: str, spec):
        self.reason = reason
        super().__init__(
            f"{shown_path(path)}: the stored design answer is damaged ({reason}): not to be trusted; "
            f"`{spec.run_command()}` sets it aside and computes it again"
        )


def read_answer(spec) -> DesignAnswer:
    """The answer a design study's last run stored; an :class:`InputError` where there is none, or where the study
    changed since (its key differs): run the study; a :class:`DamagedAnswer` where it is not the one gamemarket wrote
    (hunt 18a, F7: an edited ``chosen``, empty ``points`` or a word for ``regret_bound`` read as current and crashed
    ``report``)."""
    path = Path(spec.results_dir) / ANSWER_FILE
    hint = f"run `{spec.run_command()}` first"
    if not os.path.lexists(path):
        raise InputError(f"study {spec.name!r}: no design answer in {path}; {hint}")
    doc = _stored_doc(path, spec)
    content = load_workload_hash(spec)  # (an error of the workload's is its own, not the answer's)
    if _unordered(doc["key"]) != _unordered(json.loads(dumps_json(answer_key(spec, content)))):
        raise InputError(f"{path}: the study's tables changed since its design answer was computed; {hint}")
    problem = answer_problem(doc)
    if problem is not None:
        raise DamagedAnswer(path, problem, spec)
    try:
        return DesignAnswer.from_dict({**doc["answer"], "wall_seconds": doc.get("wall_seconds", 0.0)})
    except (ValueError, KeyError, TypeError, AttributeError) as exc:  # (what the checks above let through)
        raise DamagedAnswer(path, f"{type(exc).__name__}: {exc}", spec) from None


def _stored_doc(path: Path, spec) -> dict:
    """The stored answer's document, parsed: a table with a table ``key`` and a table ``answer``; a
    :class:`DamagedAnswer` where it is not (a truncated file, a folder or a pipe in its place)."""
    try:
        with open_stored(path, "stored design answer") as f:  # (a pipe in its place is refused, not waited on)
            doc = json.loads(f.read().decode("utf-8"))
    except (ValueError, NotStoredFile) as exc:  # (JSON's and UTF-8's errors are ValueErrors)
        raise DamagedAnswer(path, f"not a design answer gamemarket wrote: {type(exc).__name__}: {exc}", spec) from None
    if not isinstance(doc, dict) or not all(isinstance(doc.get(k), dict) for k in ("key", "answer")):
        raise DamagedAnswer(path, "not a design answer gamemarket wrote: no table 'key' and 'answer'", spec)
    return doc


def set_aside_damaged(spec) -> None:
    """Set a damaged stored answer aside (``design.json.corrupt``, with a warning), as ``study run`` does a damaged
    stored run: the run computes it again. One that is current or stale is left for the run to replace."""
    path = Path(spec.results_dir) / ANSWER_FILE
    if not os.path.lexists(path):
        return
    try:
        problem = answer_problem(_stored_doc(path, spec))
    except DamagedAnswer as exc:
        problem = exc.reason
    if problem is not None:
        set_aside(path, problem, "stored design answer")


def answer_whereabouts(spec) -> str:
    """What a design study's answer is and where it is, in words naming only the files that exist (its stored answer,
    its report's): what ``game solve`` and ``game export`` say of a design study, which has no game of theirs (hunt
    18a, F8: they sent the user to `study run` again and again, and to EGTA files its report does not hold)."""
    stored = Path(spec.results_dir) / ANSWER_FILE
    report = Path(spec.report_dir)
    what = (
        "a design study's answer is the mechanism its search chose for the provider, with every design point it "
        "evaluated and the users' equilibrium at each (no game of its own to solve or export)"
    )
    if not stored.is_file():
        return f"{what}; none is stored yet: `{spec.run_command()}` computes it"
    shown = [report / "report.md", report / "data" / ANSWER_FILE, report / "data" / "design-points.csv"]
    files = [shown_path(f) for f in shown if f.is_file()]
    return f"{what}: it is stored in {shown_path(stored)}" + (f"; its report: {', '.join(files)}" if files else "")


# ---------------------------------------------------------------------------- a stored answer's checks
#: what a design point's verdict may be (``DesignPoint.verified``)
VERDICTS = ("yes", "undecided", "no", "none")


def _number(v, none: bool = False) -> bool:
    """Whether ``v`` is a finite real number (not a bool); None too where ``none``."""
    if v is None:
        return none
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _whole(v, least: int = 0) -> bool:
    """Whether ``v`` is a whole number (not a bool) of at least ``least``."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= least


def _numbers(v, n: int | None = None) -> bool:
    """Whether ``v`` is a list of finite numbers (``n`` of them, where given)."""
    return isinstance(v, list) and all(_number(x) for x in v) and (n is None or len(v) == n)


def _names(v) -> bool:
    """Whether ``v`` is a list of strings."""
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


#: a stored mechanism's fields (``DesignPoint.to_dict``): field -> (its check, what it must be)
_POINT_FIELDS = {
    "provider": (lambda v: isinstance(v, str) and v != "", "a mechanism's name"),
    "scheduler": (lambda v: isinstance(v, str), "a scheduler's name"),
    "params": (
        lambda v: isinstance(v, dict) and _number(v.get("reserve"), True) and _number(v.get("blend"), True),
        "a table whose 'reserve' and 'blend' are numbers (or absent)",
    ),
    "order": (lambda v: _whole(v, -1), "a whole number >= -1"),
    "source": (lambda v: isinstance(v, str), "an optimiser's name or 'compare'"),
    "equilibrium": (
        lambda v: v is None or (isinstance(v, dict) and all(_number(x) for x in v.values())),
        "null or a table of shares",
    ),
    "mixture": (lambda v: v is None or _numbers(v), "null or a list of shares"),
    "verified": (lambda v: v in VERDICTS, f"one of {list(VERDICTS)}"),
    "epsilon": (lambda v: _number(v, True), "null or a finite number"),
    "tolerance": (lambda v: _number(v, True), "null or a finite number"),
    "equilibria": (_whole, "a whole number >= 0"),
    "feasible": (lambda v: isinstance(v, bool), "true or false"),
    "note": (lambda v: isinstance(v, str), "a text"),
    "menu": (_names, "a list of rules' names"),
    "explored": (lambda v: v is None or isinstance(v, dict), "null or a table"),
    "classes": (lambda v: isinstance(v, dict), "a table"),
}

#: a stored answer's own fields (``DesignAnswer.to_dict``): field -> (its check, what it must be)
_ANSWER_FIELDS = {
    "config": (lambda v: isinstance(v, dict), "the study's [design] table"),
    "metrics": (lambda v: _names(v) and bool(v) and set(v) <= set(DESIGN_METRICS), f"a list of {list(DESIGN_METRICS)}"),
    "outside_price": (lambda v: _number(v, True), "null or a finite number"),
    "chosen": (lambda v: v is None or isinstance(v, str), "null or a mechanism's name"),
    "regret_bound": (lambda v: v is None or (_number(v) and v >= 0), "null or a finite number >= 0"),
    "regret_against": (lambda v: v is None or isinstance(v, str), "null or a mechanism's name"),
    "regret_upper": (lambda v: _number(v, True), "null or a finite number"),
    "regret_unbounded": (_names, "a list of mechanisms' names"),
    "simulations": (_whole, "a whole number >= 0"),
    "workload": (lambda v: isinstance(v, dict) and _whole(v.get("jobs", 0)), "a table with a whole 'jobs'"),
    "points": (lambda v: isinstance(v, list) and bool(v), "a non-empty list of the designs evaluated"),
    "compare": (lambda v: isinstance(v, list), "a list of the fixed mechanisms"),
    "confirmations": (lambda v: isinstance(v, dict), "a table of the mechanisms run on fresh seeds"),
    "notes": (_names, "a list of texts"),
}


def _fields_problem(where: str, d, fields: dict) -> str | None:
    """The first field of ``d`` (a table) that fails its check of ``fields``, in words; None where none does."""
    if not isinstance(d, dict):
        return f"{where} is {type(d).__name__}, not a table"
    for name, (ok, want) in fields.items():
        if name not in d:
            return f"{where} has no field {name!r}"
        if not ok(d[name]):
            return f"{where} field {name!r} is {_shown(d[name])}; expected {want}"
    return None


def _shown(v) -> str:
    """A stored value as a message shows it: its JSON, cut short."""
    text = json.dumps(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _seeds_problem(where: str, d: dict, metrics: list, every: bool) -> str | None:
    """What is wrong with a mechanism's values per seed (``seeds``, ``per_seed``, ``objective_seeds``): every metric
    of the answer (or none, where not ``every``: a point with no equilibrium), one finite value a seed."""
    seeds = d.get("seeds")
    if not (isinstance(seeds, list) and seeds and all(_whole(s) for s in seeds)):
        return f"{where} field 'seeds' is {_shown(seeds)}; expected a non-empty list of whole numbers"
    per, n = d.get("per_seed"), len(seeds)
    if not isinstance(per, dict) or sorted(per) != (sorted(metrics) if every or per else []):
        return f"{where} field 'per_seed' does not hold the answer's metrics {metrics}"
    bad = next((m for m, v in per.items() if not _numbers(v, n)), None)
    if bad is not None:
        return f"{where} field 'per_seed' {bad!r} is {_shown(per[bad])}; expected {n} finite numbers, one a seed"
    if not _numbers(d.get("objective_seeds"), n if per else 0):
        return (
            f"{where} field 'objective_seeds' is {_shown(d.get('objective_seeds'))}; expected one finite number a seed"
        )
    return None


def _mechanisms_problem(a: dict) -> str | None:
    """What is wrong with the answer's mechanisms: the points and fixed ones, and those run on fresh seeds."""
    metrics = list(a["metrics"])
    for group in ("points", "compare"):
        for k, p in enumerate(a[group]):
            where = f"answer {group}[{k}]"
            problem = _fields_problem(where, p, _POINT_FIELDS) or _seeds_problem(
                where, p, metrics, p["equilibrium"] is not None
            )
            if problem:
                return problem
    names = [p["provider"] for p in a["points"] + a["compare"]]
    if len(set(names)) != len(names):
        return "answer: a mechanism is listed twice among 'points' and 'compare'"
    for name, c in a["confirmations"].items():
        where = f"answer confirmations[{name!r}]"
        if name not in names:
            return f"{where}: not a mechanism the search evaluated"
        if not isinstance(c, dict) or c.get("provider") != name or not isinstance(c.get("feasible"), bool):
            return f"{where}: expected a table with provider {name!r} and 'feasible' true or false"
        problem = _seeds_problem(where, c, metrics, True)
        if problem:
            return problem
    return None


def answer_problem(doc: dict) -> str | None:
    """What is wrong with a stored answer's document (``{"key", "answer", "wall_seconds", "sha256"}``), in words; None
    where it holds together and its digest, where it has one, is its content's. Checked: each field's type and range
    (numbers finite, lists of the designs non-empty), the chosen mechanism among those evaluated and run on fresh
    seeds, the mechanisms named by the regret bound among those evaluated, the answer's [design] its key's, and the
    digest (an answer stored before the digest has none: read on its consistency alone)."""
    a = doc["answer"]
    problem = _fields_problem("answer", a, _ANSWER_FIELDS) or _mechanisms_problem(a)
    if problem is not None:
        return problem
    names = {p["provider"] for p in a["points"] + a["compare"]}
    if a["chosen"] is not None and (a["chosen"] not in names or a["chosen"] not in a["confirmations"]):
        return f"answer field 'chosen' is {_shown(a['chosen'])}, not a mechanism evaluated and run on fresh seeds"
    if a["regret_against"] is not None and a["regret_against"] not in names:
        return f"answer field 'regret_against' is {_shown(a['regret_against'])}, not a mechanism evaluated"
    if not set(a["regret_unbounded"]) <= names:
        return "answer field 'regret_unbounded' names a mechanism not evaluated"
    if a["config"] != doc["key"].get("design"):
        return "answer field 'config' is not the [design] table its key records"
    if not _number(doc.get("wall_seconds", 0.0)):
        return f"field 'wall_seconds' is {_shown(doc.get('wall_seconds'))}; expected a finite number"
    said = doc.get(DIGEST_FIELD)
    if said is not None and said != answer_digest({k: v for k, v in doc.items() if k != DIGEST_FIELD}):
        return f"its content does not match its {DIGEST_FIELD}: edited since gamemarket wrote it"
    return None


def _choose(points: list, contenders: list, conf: dict, compare: list = (), box: list = ()):
    """The chosen mechanism (of the contenders and the study's fixed mechanisms confirmed beside them, the one of best
    mean objective on the fresh seeds, feasible there), the provider's regret bound against every evaluated feasible
    design and fixed mechanism (module docstring; at least 0), the one that attains it, notes, the largest upper
    bound itself (negative where every other one does worse at 95%), and the ones compared on a single seed (no
    interval: no bound against them, :func:`regret_bound`).

    A fixed mechanism is chosen where it beats every design the search found on the fresh seeds: the provider should
    set the best mechanism it knows of, and a report that recommended the search's best beside a fixed mechanism
    that beats it would contradict itself (a grid of 4 points over the reserve missed ``hb-first``'s reserve 1).
    Contenders that tie on the fresh seeds are told apart by :func:`break_tie` (over ``box``, the searched ranges),
    which the notes say."""
    notes: list = []
    fixed = [q for q in compare if q.provider in conf]
    if not contenders:
        return None, None, None, notes, None, []
    ok = [p for p in contenders if conf[p.provider].feasible]
    if not ok:
        notes.append("every contender missed a constraint's mean on the fresh seeds")
        return None, None, None, notes, None, []
    if len(ok) < len(contenders):
        notes.append("contenders that missed a constraint's mean on the fresh seeds were not chosen")
    top = max(conf[p.provider].objective[0] for p in ok)
    found, tie = break_tie([p for p in ok if _same(conf[p.provider].objective[0], top)], list(box))
    notes += [tie] if tie else []
    # by name first: fixed mechanisms that tie exactly are told apart by their names, not by the study's order of
    # them (hunt 22b-W7: reordering the providers changed the mechanism chosen)
    fixed_ok = sorted((q for q in fixed if conf[q.provider].feasible), key=lambda q: q.provider)
    best = max([found] + fixed_ok, key=lambda p: conf[p.provider].objective[0])
    if best is not found and _same(conf[best.provider].objective[0], conf[found.provider].objective[0]):
        best = found  # a fixed mechanism "beats" the design only by more than rounding
    if best is not found:
        level = [q.provider for q in fixed_ok if _same(conf[q.provider].objective[0], conf[best.provider].objective[0])]
        if len(level) > 1:
            notes.append(
                f"the fixed mechanisms {', '.join(level)} tie on the fresh seeds (mean objective "
                f"{conf[best.provider].objective[0]:,.6g} each, to rounding): {level[0]}, the first by name, is "
                "chosen, and setting any of them earns the provider the same there"
            )
            best = next(q for q in fixed_ok if q.provider == level[0])
    tied = [q.provider for q in fixed_ok if _same(conf[q.provider].objective[0], conf[found.provider].objective[0])]
    if best is found and tied:  # (hunt 15a, W10: a tie with a fixed mechanism was not said)
        notes.append(
            f"the fixed mechanism{'s' * (len(tied) > 1)} {', '.join(tied)} tie{'s' * (len(tied) == 1)} with "
            f"{found.provider} on the fresh seeds (mean objective {conf[found.provider].objective[0]:,.6g} each): "
            "the design is chosen, and setting either earns the provider the same there"
        )
    if best is not found:
        notes.append(
            f"the fixed mechanism {best.provider} beat every design the search found on the fresh seeds (the best, "
            f"{found.provider}, by {conf[best.provider].objective[0] - conf[found.provider].objective[0]:,.6g} in "
            "the mean objective), so it is chosen; a larger [design] budget may find a better design"
        )
    others = [p for p in points + fixed if p.feasible and p.provider != best.provider]
    in_conf = {p.provider for p in contenders + fixed}
    diffs = {
        p.provider: np.subtract(conf[p.provider].objective_seeds, conf[best.provider].objective_seeds)
        if p.provider in in_conf
        else np.subtract(p.objective_seeds, best.objective_seeds)
        for p in others
    }
    bound, against, upper, unbounded = regret_bound(diffs)
    if not others:
        bound = 0.0
    return best.provider, bound, against, notes, upper, unbounded


def regret_bound(diffs: dict) -> tuple:
    """The provider's regret bound over ``diffs`` (mechanism -> its objective less the chosen one's, paired by seed):
    ``(bound, against, upper, unbounded)``: the largest one-sided Student-t upper bound at ``1 - ALPHA / m``
    (Bonferroni over the ``m`` mechanisms with two values or more), floored at 0, the one that attains it, the largest
    bound itself, and the mechanisms with a single value (no interval, so no bound: hunt 15 counted a one-seed
    difference as its own 95% bound). ``bound``, ``against`` and ``upper`` are None where no mechanism has two
    values."""
    unbounded = [k for k, d in diffs.items() if len(d) < 2]
    paired = {k: d for k, d in diffs.items() if len(d) >= 2}
    if not paired:
        return None, None, None, unbounded
    alpha = ALPHA / len(paired)
    upper, against = max(((_upper(d, alpha), k) for k, d in paired.items()), key=lambda t: t[0])
    return float(max(upper, 0.0)), against, float(upper), unbounded


def _upper(diff: np.ndarray, alpha: float) -> float:
    """A one-sided ``1 - alpha`` Student-t upper bound on the mean of ``diff``, two values or more (exact where they
    are all equal)."""
    diff = np.asarray(diff, dtype=float)
    if len(diff) < 2:
        raise ValueError("a one-sided bound needs two values or more")
    m = float(diff.mean())
    if float(diff.std(ddof=1)) == 0.0:
        return m
    return m + float(stats.t.ppf(1 - alpha, len(diff) - 1)) * float(diff.std(ddof=1)) / np.sqrt(len(diff))


def _words(p: DesignPoint) -> str:
    """A design point's line as the search logs it, its numbers and mixture in the report's words (hunt 32a-W4:
    "objective 1.03668e+07 at {'truthful': 1.0}")."""
    if p.equilibrium is None:
        return p.note
    at = mixture_words(p.equilibrium)
    return f"objective {_figure(p.objective[0])} at {at} ({p.verified}){'' if p.feasible else ', infeasible'}"


def _figure(v: float) -> str:
    """``v`` to 6 significant digits written out, its thousands grouped: ``10,366,800``, ``0.0123457``."""
    s = np.format_float_positional(float(v), precision=6, unique=False, fractional=False, trim="-")
    sign, digits = ("-", s[1:]) if s.startswith("-") else ("", s)
    head, dot, tail = digits.partition(".")
    return f"{sign}{int(head):,}{dot}{tail}"
