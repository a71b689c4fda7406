"""The answer of a population study's strategy exploration, as frozen dataclasses with their JSON.

What ``gamemarket.search.exploration`` computes and a report writes as ``data/exploration.json`` (and reads back
from a report folder): each mechanism's rounds, its explored equilibria with their certificates
(``gamemarket.search.certificates``), the final menu, and the provider's choice over the explored equilibria. As in
``gamemarket.io.answers`` (the study's own answer), every type writes its file's JSON key for key and reads it back;
a NaN is written as it is (``null`` in the file) and reads back as ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from gamemarket.io.answers import Interval, json_dict, json_tuple, ranking_from_json, ranking_json

#: a certificate's error unless it says otherwise (``gamemarket.search.certificates.ALPHA``)
CERTIFICATE_ALPHA = 0.05


@dataclass(frozen=True)
class StrategyEntry:
    """A rule as ``exploration.json`` names it: its name, family and parameters, and its beta per private-bid class
    where its family has classes."""

    strategy: str
    family: str
    params: dict
    betas_by_class: tuple | None = None

    def to_json(self) -> dict:
        """``{"strategy", "family", "params"[, "betas_by_class"]}``."""
        out = {"strategy": self.strategy, "family": self.family, "params": dict(self.params)}
        if self.betas_by_class is not None:
            out["betas_by_class"] = list(self.betas_by_class)
        return out

    @classmethod
    def from_json(cls, d) -> StrategyEntry:
        """The entry :meth:`to_json` wrote."""
        d = json_dict(d, "a strategy")
        b = d.get("betas_by_class")
        return cls(d["strategy"], d["family"], json_dict(d["params"], "params"), None if b is None else tuple(b))


@dataclass(frozen=True)
class MixtureShare:
    """A rule of an explored equilibrium's mixture and its probability."""

    rule: StrategyEntry
    probability: float

    @property
    def strategy(self) -> str:
        """The rule's name."""
        return self.rule.strategy

    def to_json(self) -> dict:
        """The rule's entry and ``probability``."""
        return {**self.rule.to_json(), "probability": self.probability}

    @classmethod
    def from_json(cls, d) -> MixtureShare:
        """The share :meth:`to_json` wrote."""
        d = json_dict(d, "a mixture's rule")
        return cls(StrategyEntry.from_json({k: v for k, v in d.items() if k != "probability"}), d["probability"])


@dataclass(frozen=True)
class RuleBound:
    """One evaluated rule's fresh-seed figures: its gain's mean and two-sided 95% interval, its one-sided upper bound
    at the level of the look it stopped at, and the seeds it got."""

    rule: str
    seeds: int
    gain: tuple  #: (mean, low, high): the 95% Student-t interval over its fresh seeds
    upper: float  #: its one-sided upper bound at the look's level (the one epsilon takes the maximum of)
    lower: float  #: its one-sided lower bound at the look's level divided by the rules evaluated
    search_gain: float = float("nan")  #: its mean gain on the search seeds (what the search maximised)

    def to_json(self) -> dict:
        """As a certificate in ``exploration.json`` holds it."""
        return {
            "strategy": self.rule,
            "seeds": self.seeds,
            "gain": list(self.gain),
            "upper": self.upper,
            "lower": self.lower,
            "search_gain": self.search_gain,
        }

    @classmethod
    def from_json(cls, d) -> RuleBound:
        """The bound :meth:`to_json` wrote."""
        d = json_dict(d, "a rule's bound")
        return cls(d["strategy"], d["seeds"], json_tuple(d["gain"], "gain"), d["upper"], d["lower"], d["search_gain"])


@dataclass(frozen=True)
class Certificate:
    """What ``gamemarket.search.certificates.certify`` decided about one equilibrium: epsilon, the verdict, and
    every rule's bound."""

    epsilon: float  #: the largest upper bound over the evaluated rules: every rule gains at most this, at 1 - alpha
    tolerance: float
    verdict: str  #: "certified", "deviation" or "undecided"
    rules: tuple = field(default_factory=tuple)  #: a RuleBound per evaluated rule, best fresh mean first
    looks: int = 0  #: the looks the design made
    planned_looks: tuple = ()  #: the seeds of each planned look
    alpha: float = CERTIFICATE_ALPHA
    simulations: int = 0  #: the runs the certificate needed (the rules' fresh-seed runs and the seeds' base runs)
    reason: str = ""  #: why an undecided certificate stopped

    @property
    def best(self) -> RuleBound | None:
        """The rule of largest fresh-seed mean gain."""
        return self.rules[0] if self.rules else None

    @property
    def certified(self) -> bool:
        """Whether epsilon is at most the tolerance."""
        return self.verdict == "certified"

    def to_json(self) -> dict:
        """As ``data/exploration.json`` holds it (plain JSON)."""
        return {
            "epsilon": self.epsilon,
            "tolerance": self.tolerance,
            "verdict": self.verdict,
            "alpha": self.alpha,
            "looks": self.looks,
            "planned_looks": list(self.planned_looks),
            "simulations": self.simulations,
            "reason": self.reason,
            "rules": [r.to_json() for r in self.rules],
        }

    to_dict = to_json

    @classmethod
    def from_json(cls, d) -> Certificate:
        """The certificate :meth:`to_json` wrote."""
        d = json_dict(d, "a certificate")
        return cls(
            d["epsilon"],
            d["tolerance"],
            d["verdict"],
            tuple(RuleBound.from_json(r) for r in json_tuple(d["rules"], "rules")),
            d["looks"],
            json_tuple(d["planned_looks"], "planned_looks"),
            d["alpha"],
            d["simulations"],
            d["reason"],
        )


@dataclass(frozen=True)
class BestDeviation:
    """An explored equilibrium's rule of largest fresh mean gain, with its figures."""

    rule: StrategyEntry
    gain: tuple  #: (mean, low, high) on fresh seeds
    upper: float
    seeds: int
    search_gain: float

    @property
    def strategy(self) -> str:
        """The rule's name."""
        return self.rule.strategy

    def to_json(self) -> dict:
        """The rule's entry and its figures."""
        return {
            **self.rule.to_json(),
            "gain": list(self.gain),
            "upper": self.upper,
            "seeds": self.seeds,
            "search_gain": self.search_gain,
        }

    @classmethod
    def from_json(cls, d) -> BestDeviation:
        """The deviation :meth:`to_json` wrote."""
        d = json_dict(d, "a best deviation")
        mine = ("gain", "upper", "seeds", "search_gain")
        rule = StrategyEntry.from_json({k: v for k, v in d.items() if k not in mine})
        return cls(rule, json_tuple(d["gain"], "gain"), d["upper"], d["seeds"], d["search_gain"])


@dataclass(frozen=True)
class ExploredEquilibrium:
    """One equilibrium of an exploration round: its mixture over the menu, its certificate, the best rule found, and
    the provider's figures at the mixture (the base runs on the first look's fresh seeds)."""

    mixture: tuple  #: :class:`MixtureShare` per rule played
    epsilon: float
    verdict: str
    certified: bool
    best_deviation: BestDeviation | None
    search_best: dict  #: ``{"strategy", "search_gain"}``: the search's best rule on its own seeds
    candidates_evaluated: int
    certificate: Certificate
    revenue: Interval
    welfare: Interval
    mean_utility: Interval
    figure_seeds: int

    @property
    def shares(self) -> dict:
        """Rule name -> probability."""
        return {x.strategy: x.probability for x in self.mixture}

    def to_json(self) -> dict:
        """As ``data/exploration.json`` holds it."""
        return {
            "mixture": [x.to_json() for x in self.mixture],
            "epsilon": self.epsilon,
            "verdict": self.verdict,
            "certified": self.certified,
            "best_deviation": None if self.best_deviation is None else self.best_deviation.to_json(),
            "search_best": dict(self.search_best),
            "candidates_evaluated": self.candidates_evaluated,
            "certificate": self.certificate.to_json(),
            "revenue": self.revenue.to_json(),
            "welfare": self.welfare.to_json(),
            "mean_utility": self.mean_utility.to_json(),
            "figure_seeds": self.figure_seeds,
        }

    @classmethod
    def from_json(cls, d) -> ExploredEquilibrium:
        """The equilibrium :meth:`to_json` wrote."""
        d = json_dict(d, "an explored equilibrium")
        best = d["best_deviation"]
        return cls(
            tuple(MixtureShare.from_json(x) for x in json_tuple(d["mixture"], "mixture")),
            d["epsilon"],
            d["verdict"],
            d["certified"],
            None if best is None else BestDeviation.from_json(best),
            json_dict(d["search_best"], "search_best"),
            d["candidates_evaluated"],
            Certificate.from_json(d["certificate"]),
            Interval.from_json(d["revenue"]),
            Interval.from_json(d["welfare"]),
            Interval.from_json(d["mean_utility"]),
            d["figure_seeds"],
        )


@dataclass(frozen=True)
class ExplorationRound:
    """One round of a mechanism's exploration: the menu, its equilibria and the rules that joined after it."""

    menu: tuple  #: rule names
    equilibria: tuple  #: :class:`ExploredEquilibrium`
    added: tuple  #: rule names

    def to_json(self) -> dict:
        """``{"menu", "equilibria", "added"}``."""
        return {
            "menu": list(self.menu),
            "equilibria": [e.to_json() for e in self.equilibria],
            "added": list(self.added),
        }

    @classmethod
    def from_json(cls, d) -> ExplorationRound:
        """The round :meth:`to_json` wrote."""
        d = json_dict(d, "a round")
        eqs = tuple(ExploredEquilibrium.from_json(e) for e in json_tuple(d["equilibria"], "equilibria"))
        return cls(json_tuple(d["menu"], "menu"), eqs, json_tuple(d["added"], "added"))


#: what a run of the exploration measured of itself, not of the market: the command's log, never the report's data
RUN_ONLY = ("wall_seconds", "oracle_run_now", "run_now", "workers")


def _run_only(out: dict, values: dict, run: bool) -> dict:
    """``out`` with the run-only ``values`` in their place (before ``tolerance``) where ``run`` and they are set."""
    return out | {k: v for k, v in values.items() if run and v is not None}


@dataclass(frozen=True)
class MechanismExploration:
    """One mechanism's exploration (``gamemarket.search.exploration.explore``): the final equilibria and the
    first round's (over the study's menu), the rounds, the final menu, whether it is certified and why not, and the
    simulations; what this call ran (``oracle_run_now``, ``run_now``, ``workers``: None where read from a file)."""

    mechanism: str
    equilibria: tuple  #: :class:`ExploredEquilibrium` over the final menu
    menu_only: tuple  #: the first round's, over the study's menu
    rounds: tuple  #: :class:`ExplorationRound`
    menu: tuple  #: :class:`StrategyEntry` of the final menu
    not_solved: tuple  #: rules added, then the budget ran out
    certified: bool
    epsilon: float | None  #: the largest over the final equilibria (None: no equilibrium)
    reason: str
    simulations: int
    oracle_simulations: int
    tolerance: float
    seeds: int
    oracle_run_now: int | None = None
    run_now: int | None = None
    workers: Any = None

    def to_json(self, *, run: bool = True) -> dict:
        """As ``run_exploration`` returns it, or (not ``run``) as ``data/exploration.json`` holds it."""
        out = {
            "mechanism": self.mechanism,
            "equilibria": [e.to_json() for e in self.equilibria],
            "menu_only": [e.to_json() for e in self.menu_only],
            "rounds": [r.to_json() for r in self.rounds],
            "menu": [m.to_json() for m in self.menu],
            "not_solved": list(self.not_solved),
            "certified": self.certified,
            "epsilon": self.epsilon,
            "reason": self.reason,
            "simulations": self.simulations,
            "oracle_simulations": self.oracle_simulations,
        }
        out = _run_only(
            out, {"oracle_run_now": self.oracle_run_now, "run_now": self.run_now, "workers": self.workers}, run
        )
        return out | {"tolerance": self.tolerance, "seeds": self.seeds}

    @classmethod
    def from_json(cls, d) -> MechanismExploration:
        """The exploration :meth:`to_json` wrote."""
        d = json_dict(d, "a mechanism's exploration")
        return cls(
            d["mechanism"],
            tuple(ExploredEquilibrium.from_json(e) for e in json_tuple(d["equilibria"], "equilibria")),
            tuple(ExploredEquilibrium.from_json(e) for e in json_tuple(d["menu_only"], "menu_only")),
            tuple(ExplorationRound.from_json(r) for r in json_tuple(d["rounds"], "rounds")),
            tuple(StrategyEntry.from_json(m) for m in json_tuple(d["menu"], "menu")),
            json_tuple(d["not_solved"], "not_solved"),
            d["certified"],
            d["epsilon"],
            d["reason"],
            d["simulations"],
            d["oracle_simulations"],
            d["tolerance"],
            d["seeds"],
            d.get("oracle_run_now"),
            d.get("run_now"),
            d.get("workers"),
        )


@dataclass(frozen=True)
class ExploredProviderChoice:
    """The provider's choice over the explored equilibria: leader and followers, the simultaneous equilibria with a
    pure provider (every mechanism's revenue at the mixture), the fresh seeds of those revenues, and the simulations
    it needed beyond the mechanisms' own (``run_now`` of them run now: None where read from a file)."""

    leader: str | None
    ranking: tuple  #: :class:`RankedMechanism`, the leader first
    simultaneous: tuple  #: :class:`SimultaneousChoice` (with ``revenue_under``)
    seeds: int
    simulations: int
    run_now: int | None = None

    def to_json(self) -> dict:
        """As ``data/exploration.json`` holds it (never ``run_now``)."""
        return ranking_json(self) | {"seeds": self.seeds, "simulations": self.simulations}

    @classmethod
    def from_json(cls, d) -> ExploredProviderChoice:
        """The choice :meth:`to_json` wrote."""
        d = json_dict(d, "provider")
        return cls(*ranking_from_json(d), d["seeds"], d["simulations"], d.get("run_now"))


@dataclass(frozen=True)
class ExplorationAnswer:
    """A population study's strategy exploration: the family searched, the optimiser, the budget, the certificates'
    design, each mechanism's :class:`MechanismExploration`, the provider's choice over the explored equilibria, the
    simulations; and this call's wall time (None where read from a file)."""

    study: str
    family: str
    parameters: tuple
    bounds: tuple
    optimiser: str
    budget: int
    evaluations: int
    probe: float
    search_seeds: tuple
    fresh_seeds: tuple  #: the first and the last fresh seed
    first_seeds: int
    confirm_seeds: int
    alpha: float
    note: str
    mechanisms: dict  #: mechanism -> :class:`MechanismExploration`
    provider: ExploredProviderChoice
    simulations: int
    wall_seconds: float | None = None

    def to_json(self, *, run: bool = True) -> dict:
        """As ``run_exploration`` returns it, or (not ``run``: no timing, nothing run by this call) as
        ``data/exploration.json`` holds it."""
        out = {
            "study": self.study,
            "family": self.family,
            "parameters": list(self.parameters),
            "bounds": list(self.bounds),
            "optimiser": self.optimiser,
            "budget": self.budget,
            "evaluations": self.evaluations,
            "probe": self.probe,
            "search_seeds": list(self.search_seeds),
            "fresh_seeds": list(self.fresh_seeds),
            "first_seeds": self.first_seeds,
            "confirm_seeds": self.confirm_seeds,
            "alpha": self.alpha,
            "note": self.note,
            "mechanisms": {k: m.to_json(run=run) for k, m in self.mechanisms.items()},
            "provider": self.provider.to_json(),
            "simulations": self.simulations,
        }
        return _run_only(out, {"wall_seconds": self.wall_seconds}, run)

    def without_run(self) -> ExplorationAnswer:
        """The same answer without what this call ran and its timing (``RUN_ONLY``): what a file holds."""
        mechs = {k: replace(m, oracle_run_now=None, run_now=None, workers=None) for k, m in self.mechanisms.items()}
        return replace(self, mechanisms=mechs, provider=replace(self.provider, run_now=None), wall_seconds=None)

    @classmethod
    def from_json(cls, d) -> ExplorationAnswer:
        """The exploration :meth:`to_json` wrote."""
        d = json_dict(d, "exploration data")
        return cls(
            d["study"],
            d["family"],
            json_tuple(d["parameters"], "parameters"),
            json_tuple(d["bounds"], "bounds"),
            d["optimiser"],
            d["budget"],
            d["evaluations"],
            d["probe"],
            json_tuple(d["search_seeds"], "search_seeds"),
            json_tuple(d["fresh_seeds"], "fresh_seeds"),
            d["first_seeds"],
            d["confirm_seeds"],
            d["alpha"],
            d["note"],
            {k: MechanismExploration.from_json(m) for k, m in json_dict(d["mechanisms"], "mechanisms").items()},
            ExploredProviderChoice.from_json(d["provider"]),
            d["simulations"],
            d.get("wall_seconds"),
        )
