"""The answers of a population study and of its strategy exploration, as frozen dataclasses with their JSON.

What ``gamemarket.search.population`` and ``gamemarket.search.exploration`` compute, and what the reports render
and write under ``data/`` (``population.json``, ``exploration.json``): one type per part (an equilibrium with its
verification, the truthful gains, the provider's choice, a certificate, the run accounting), each read by
attribute. Every type writes its JSON (``to_json``) in the files' own layout, key for key and in the same order, and
reads it back (``from_json``): a file written before these types existed reads back to the same JSON.

This module sits in the lowest layer (``io``): it imports nothing of the package above it. A mechanism's reduced
game (``games.rsgame.RoleSymmetricGame``) is held as an opaque value: the analysis' cache codec writes it; the
report's files leave it out. A float that JSON cannot hold (NaN, an infinity) is written as it is: the report
writers (``io.files.dumps_json``) turn it into ``null``, which reads back as ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from gamemarket.io.names import workload_name

#: a certificate's error unless it says otherwise (``gamemarket.search.certificates.ALPHA``)
CERTIFICATE_ALPHA = 0.05


class Interval(NamedTuple):
    """A point estimate and its confidence interval, ``[mean, low, high]`` in JSON."""

    mean: Any
    low: Any
    high: Any

    def to_json(self) -> list:
        """``[mean, low, high]``."""
        return [self.mean, self.low, self.high]

    @classmethod
    def from_json(cls, v) -> Interval:
        """The interval of a ``[mean, low, high]`` list."""
        if not isinstance(v, (list, tuple)) or len(v) != 3:
            raise ValueError(f"an interval is [mean, low, high], got {str(v)[:60]!r}")
        return cls(*v)


def _tuple(v, what: str) -> tuple:
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{what}: expected a list, got a {type(v).__name__}")
    return tuple(v)


def _dict(v, what: str) -> dict:
    if not isinstance(v, dict):
        raise TypeError(f"{what}: expected an object, got a {type(v).__name__}")
    return dict(v)


# ---------------------------------------------------------------------------- the population study's answer
@dataclass(frozen=True)
class VerifiedEquilibrium:
    """One equilibrium of a mechanism's reduced game (a candidate), verified by paired runs at it."""

    mixture: dict  #: rule -> share (the rules it plays)
    mixture_vector: tuple  #: the share of every rule of the menu
    reduced_regret: float  #: its regret in the reduced game
    stability: str  #: under the replicator dynamics of the reduced game
    verified: str  #: "yes", "no" or "undecided": its regret interval against the tolerance
    epsilon: float  #: the regret interval's upper end
    tolerance: float
    regret: Interval  #: its regret from the paired records, with a bootstrap CI over seeds
    payoffs: dict  #: rule -> payoff at the candidate (the base runs' mean utility plus the rule's gain)
    revenue: Interval
    welfare: Interval
    mean_utility: float
    seeds: int

    def to_json(self) -> dict:
        """As ``population.json`` (and the analysis cache) holds it."""
        return {
            "mixture": dict(self.mixture),
            "mixture_vector": list(self.mixture_vector),
            "reduced_regret": self.reduced_regret,
            "stability": self.stability,
            "verified": self.verified,
            "epsilon": self.epsilon,
            "tolerance": self.tolerance,
            "regret": self.regret.to_json(),
            "payoffs": dict(self.payoffs),
            "revenue": self.revenue.to_json(),
            "welfare": self.welfare.to_json(),
            "mean_utility": self.mean_utility,
            "seeds": self.seeds,
        }

    @classmethod
    def from_json(cls, d) -> VerifiedEquilibrium:
        """The equilibrium :meth:`to_json` wrote."""
        d = _dict(d, "an equilibrium")
        return cls(
            _dict(d["mixture"], "mixture"),
            _tuple(d["mixture_vector"], "mixture_vector"),
            d["reduced_regret"],
            d["stability"],
            d["verified"],
            d["epsilon"],
            d["tolerance"],
            Interval.from_json(d["regret"]),
            _dict(d["payoffs"], "payoffs"),
            Interval.from_json(d["revenue"]),
            Interval.from_json(d["welfare"]),
            d["mean_utility"],
            d["seeds"],
        )


@dataclass(frozen=True)
class MechanismAnswer:
    """What the population game says under one mechanism."""

    mechanism: str
    game: Any  #: its consumers' reduced game (a ``RoleSymmetricGame``); None where read from a report's file
    seeds: tuple
    equilibria: tuple  #: a :class:`VerifiedEquilibrium` per candidate
    truthful_gains: dict  #: rule -> :class:`Interval` of its gain at the all-truthful population
    truthful_is_equilibrium: str  #: "yes", "no" or "undecided"
    notes: tuple = ()
    search: dict = field(default_factory=dict)  #: what the equilibrium search tried (support enumeration's counts)

    def to_json(self) -> dict:
        """As the analysis cache holds it (the game left as it is, for the cache's codec)."""
        return {
            "mechanism": self.mechanism,
            "game": self.game,
            "seeds": list(self.seeds),
            "equilibria": [e.to_json() for e in self.equilibria],
            "truthful_gains": {k: v.to_json() for k, v in self.truthful_gains.items()},
            "truthful_is_equilibrium": self.truthful_is_equilibrium,
            "notes": list(self.notes),
            "search": dict(self.search),
        }

    def report_json(self) -> dict:
        """As ``population.json`` holds it (no game)."""
        return {
            "mechanism": self.mechanism,
            "seeds": list(self.seeds),
            "truthful_is_equilibrium": self.truthful_is_equilibrium,
            "truthful_gains": {k: v.to_json() for k, v in self.truthful_gains.items()},
            "equilibria": [e.to_json() for e in self.equilibria],
            "notes": list(self.notes),
            "equilibrium_search": dict(self.search),
        }

    @classmethod
    def from_json(cls, d) -> MechanismAnswer:
        """The answer :meth:`to_json` (or :meth:`report_json`: no game) wrote."""
        d = _dict(d, "an answer")
        return cls(
            d["mechanism"],
            d.get("game"),
            _tuple(d["seeds"], "seeds"),
            tuple(VerifiedEquilibrium.from_json(e) for e in _tuple(d["equilibria"], "equilibria")),
            {k: Interval.from_json(v) for k, v in _dict(d["truthful_gains"], "truthful_gains").items()},
            d["truthful_is_equilibrium"],
            _tuple(d["notes"], "notes"),
            _dict(d["search"] if "search" in d else d["equilibrium_search"], "search"),
        )


@dataclass(frozen=True)
class JointEquilibrium:
    """An equilibrium of the provider-consumer game, verified by runs at its consumer mixture under every
    mechanism (both roles' regrets)."""

    provider: dict  #: mechanism -> probability
    consumers: dict  #: rule -> share
    mixture_vector: tuple
    reduced_regret: float
    stability: str
    verified: str
    consumer_regret: Interval
    provider_regret: Interval
    revenue_per_agent: dict  #: mechanism -> revenue per agent at the consumer mixture
    expected_revenue_per_agent: float
    seeds: int

    def to_json(self) -> dict:
        """As ``population.json`` (and the cache) holds it."""
        return {
            "provider": dict(self.provider),
            "consumers": dict(self.consumers),
            "mixture_vector": list(self.mixture_vector),
            "reduced_regret": self.reduced_regret,
            "stability": self.stability,
            "verified": self.verified,
            "consumer_regret": self.consumer_regret.to_json(),
            "provider_regret": self.provider_regret.to_json(),
            "revenue_per_agent": dict(self.revenue_per_agent),
            "expected_revenue_per_agent": self.expected_revenue_per_agent,
            "seeds": self.seeds,
        }

    @classmethod
    def from_json(cls, d) -> JointEquilibrium:
        """The equilibrium :meth:`to_json` wrote."""
        d = _dict(d, "a joint equilibrium")
        return cls(
            _dict(d["provider"], "provider"),
            _dict(d["consumers"], "consumers"),
            _tuple(d["mixture_vector"], "mixture_vector"),
            d["reduced_regret"],
            d["stability"],
            d["verified"],
            Interval.from_json(d["consumer_regret"]),
            Interval.from_json(d["provider_regret"]),
            _dict(d["revenue_per_agent"], "revenue_per_agent"),
            d["expected_revenue_per_agent"],
            d["seeds"],
        )


@dataclass(frozen=True)
class JointAnswer:
    """The provider-consumer game with any provider mixture: its game, verified equilibria and where it ran."""

    game: Any  #: a ``RoleSymmetricGame``; None where read from a report's file
    equilibria: tuple  #: a :class:`JointEquilibrium` each
    dominant: str | None  #: the provider's weakly dominant mechanism, if any
    notes: tuple
    search: dict
    points: tuple  #: the consumer mixtures run under every mechanism (the game's provider payoffs)
    checked: tuple  #: the consumer mixtures of its equilibria, checked by paired runs

    def to_json(self, *, game: bool = True) -> dict:
        """As the cache (``game``) or ``population.json`` (no game) holds it; a mixture stays a tuple (the cache
        tags it, a report's file writes it as a list)."""
        return {
            **({"game": self.game} if game else {}),
            "equilibria": [e.to_json() for e in self.equilibria],
            "dominant": self.dominant,
            "notes": list(self.notes),
            "search": dict(self.search),
            "points": list(self.points),
            "checked": list(self.checked),
        }

    @classmethod
    def from_json(cls, d) -> JointAnswer:
        """The answer :meth:`to_json` wrote."""
        d = _dict(d, "the joint answer")
        return cls(
            d.get("game"),
            tuple(JointEquilibrium.from_json(e) for e in _tuple(d["equilibria"], "joint equilibria")),
            d["dominant"],
            _tuple(d["notes"], "notes"),
            _dict(d["search"], "search"),
            tuple(tuple(p) for p in _tuple(d["points"], "points")),
            tuple(tuple(p) for p in _tuple(d["checked"], "checked")),
        )


@dataclass(frozen=True)
class RankedMechanism:
    """A mechanism in the provider's ranking as a leader: its equilibria's count and their worst and best revenue."""

    mechanism: str
    equilibria: int
    worst_revenue: float
    best_revenue: float

    def to_json(self) -> dict:
        """As the files hold it."""
        return {
            "mechanism": self.mechanism,
            "equilibria": self.equilibria,
            "worst_revenue": self.worst_revenue,
            "best_revenue": self.best_revenue,
        }

    @classmethod
    def from_json(cls, d) -> RankedMechanism:
        """The entry :meth:`to_json` wrote."""
        d = _dict(d, "a ranking entry")
        return cls(d["mechanism"], d["equilibria"], d["worst_revenue"], d["best_revenue"])


@dataclass(frozen=True)
class SimultaneousChoice:
    """A simultaneous equilibrium with a pure provider strategy: the mechanism, its consumers' mixture, its revenue
    (and, in an exploration, every mechanism's revenue at that mixture)."""

    mechanism: str
    mixture: dict
    revenue: float
    revenue_under: dict | None = None

    def to_json(self) -> dict:
        """As the files hold it (``revenue_under`` only where there is one)."""
        out = {"mechanism": self.mechanism, "mixture": dict(self.mixture), "revenue": self.revenue}
        if self.revenue_under is not None:
            out["revenue_under"] = dict(self.revenue_under)
        return out

    @classmethod
    def from_json(cls, d) -> SimultaneousChoice:
        """The entry :meth:`to_json` wrote."""
        d = _dict(d, "a simultaneous choice")
        under = d.get("revenue_under")
        return cls(d["mechanism"], _dict(d["mixture"], "mixture"), d["revenue"], None if under is None else dict(under))


def _ranking_json(choice) -> dict:
    return {
        "leader": choice.leader,
        "ranking": [r.to_json() for r in choice.ranking],
        "simultaneous": [s.to_json() for s in choice.simultaneous],
    }


def _ranking_from_json(d) -> tuple:
    return (
        d["leader"],
        tuple(RankedMechanism.from_json(r) for r in _tuple(d["ranking"], "ranking")),
        tuple(SimultaneousChoice.from_json(s) for s in _tuple(d["simultaneous"], "simultaneous")),
    )


@dataclass(frozen=True)
class ProviderChoice:
    """The provider's choice over a population study's equilibria: as a leader (the mechanism of highest revenue at
    its worst equilibrium, and the ranking), the simultaneous equilibria with a pure provider, and the joint game's
    answer (None where the study does not solve it)."""

    leader: str | None
    ranking: tuple  #: :class:`RankedMechanism`, the leader first
    simultaneous: tuple  #: :class:`SimultaneousChoice`
    joint: JointAnswer | None = None

    def to_json(self, *, report: bool = False) -> dict:
        """As the cache (every field, the joint game's game included) or ``population.json`` (``report``: the joint
        answer without its game, and left out where there is none) holds it."""
        out = _ranking_json(self)
        if not report:
            return {**out, "joint": None if self.joint is None else self.joint.to_json()}
        return out | ({"joint": self.joint.to_json(game=False)} if self.joint is not None else {})

    @classmethod
    def from_json(cls, d) -> ProviderChoice:
        """The choice :meth:`to_json` wrote."""
        d = _dict(d, "provider")
        joint = d.get("joint")
        return cls(*_ranking_from_json(d), None if joint is None else JointAnswer.from_json(joint))


@dataclass(frozen=True)
class RunAccounting:
    """The simulations a population study's answer rests on: those used, those of a fixed design of the same
    confidence, the seeds per mechanism, the adaptive design's looks and error; and what this call ran (``run_now``)
    and its wall time (the command's log, never a report's data; None where read from a report)."""

    simulations: int
    fixed_design: int
    seeds: dict  #: mechanism -> seeds used
    looks: int
    alpha: float
    run_now: int | None = None
    wall_seconds: float | None = None

    def to_json(self, *, report: bool = False) -> dict:
        """As the cache (``run_now`` and ``wall_seconds`` too) or ``population.json`` (``report``) holds it."""
        out = {
            "simulations": self.simulations,
            "fixed_design": self.fixed_design,
            "seeds": dict(self.seeds),
            "looks": self.looks,
            "alpha": self.alpha,
        }
        if not report:
            out |= {"run_now": self.run_now, "wall_seconds": self.wall_seconds}
        return out

    @classmethod
    def from_json(cls, d) -> RunAccounting:
        """The accounting :meth:`to_json` wrote."""
        d = _dict(d, "runs")
        return cls(
            d["simulations"],
            d["fixed_design"],
            _dict(d["seeds"], "seeds"),
            d["looks"],
            d["alpha"],
            d.get("run_now"),
            d.get("wall_seconds"),
        )


@dataclass(frozen=True)
class PopulationMeta:
    """What a population study ran on: its workload (a name, or as stored with its runs), jobs, nodes, users, and
    the size of its reduced games."""

    workload: str | None
    jobs: int
    nodes: int
    users: int | None
    grid_mixtures: int
    reduced_players: int

    def to_json(self, *, report: bool = False) -> dict:
        """As the cache or ``population.json`` (``report``: the workload by its name, never a path) holds it."""
        return {
            "workload": workload_name(self.workload) if report else self.workload,
            "jobs": self.jobs,
            "nodes": self.nodes,
            "users": self.users,
            "grid_mixtures": self.grid_mixtures,
            "reduced_players": self.reduced_players,
        }

    @classmethod
    def from_json(cls, d) -> PopulationMeta:
        """The metadata :meth:`to_json` wrote."""
        d = _dict(d, "meta")
        if set(d) != {"workload", "jobs", "nodes", "users", "grid_mixtures", "reduced_players"}:
            raise ValueError(f"meta: unexpected fields {sorted(d)}")
        return cls(d["workload"], d["jobs"], d["nodes"], d["users"], d["grid_mixtures"], d["reduced_players"])


@dataclass(frozen=True)
class PopulationAnalysis:
    """What a population study answers: one :class:`MechanismAnswer` per mechanism, the provider's choice, the
    simulations used, and what it ran on; with the study and its ``[game]`` table where it was computed (not read
    from a report's file; neither is part of the answer's equality)."""

    study: str
    answers: tuple  #: :class:`MechanismAnswer`, in the study's order of mechanisms
    provider: ProviderChoice
    runs: RunAccounting
    meta: PopulationMeta
    spec: Any = field(default=None, compare=False, repr=False)  #: the ``StudySpec``
    config: Any = field(default=None, compare=False, repr=False)  #: its ``PopulationConfig``

    def report_json(self, version: str) -> dict:
        """``data/population.json``: everything the report says, written by gamemarket ``version`` (no game, no
        path, nothing of the call that ran it)."""
        return {
            "study": self.study,
            "version": version,
            "meta": self.meta.to_json(report=True),
            "runs": self.runs.to_json(report=True),
            "provider": self.provider.to_json(report=True),
            "mechanisms": [a.report_json() for a in self.answers],
        }

    @classmethod
    def from_report_json(cls, d) -> PopulationAnalysis:
        """The answer a ``data/population.json`` holds (its games are not there: None; nor the study's spec)."""
        d = _dict(d, "population data")
        return cls(
            d["study"],
            tuple(MechanismAnswer.from_json(a) for a in _tuple(d["mechanisms"], "mechanisms")),
            ProviderChoice.from_json(d["provider"]),
            RunAccounting.from_json(d["runs"]),
            PopulationMeta.from_json(d["meta"]),
        )


# ---------------------------------------------------------------------------- the exploration's answer
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
        d = _dict(d, "a strategy")
        b = d.get("betas_by_class")
        return cls(d["strategy"], d["family"], _dict(d["params"], "params"), None if b is None else tuple(b))


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
        d = _dict(d, "a mixture's rule")
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
        d = _dict(d, "a rule's bound")
        return cls(d["strategy"], d["seeds"], _tuple(d["gain"], "gain"), d["upper"], d["lower"], d["search_gain"])


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
        d = _dict(d, "a certificate")
        return cls(
            d["epsilon"],
            d["tolerance"],
            d["verdict"],
            tuple(RuleBound.from_json(r) for r in _tuple(d["rules"], "rules")),
            d["looks"],
            _tuple(d["planned_looks"], "planned_looks"),
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
        d = _dict(d, "a best deviation")
        mine = ("gain", "upper", "seeds", "search_gain")
        rule = StrategyEntry.from_json({k: v for k, v in d.items() if k not in mine})
        return cls(rule, _tuple(d["gain"], "gain"), d["upper"], d["seeds"], d["search_gain"])


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
        d = _dict(d, "an explored equilibrium")
        best = d["best_deviation"]
        return cls(
            tuple(MixtureShare.from_json(x) for x in _tuple(d["mixture"], "mixture")),
            d["epsilon"],
            d["verdict"],
            d["certified"],
            None if best is None else BestDeviation.from_json(best),
            _dict(d["search_best"], "search_best"),
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
        d = _dict(d, "a round")
        eqs = tuple(ExploredEquilibrium.from_json(e) for e in _tuple(d["equilibria"], "equilibria"))
        return cls(_tuple(d["menu"], "menu"), eqs, _tuple(d["added"], "added"))


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
        d = _dict(d, "a mechanism's exploration")
        return cls(
            d["mechanism"],
            tuple(ExploredEquilibrium.from_json(e) for e in _tuple(d["equilibria"], "equilibria")),
            tuple(ExploredEquilibrium.from_json(e) for e in _tuple(d["menu_only"], "menu_only")),
            tuple(ExplorationRound.from_json(r) for r in _tuple(d["rounds"], "rounds")),
            tuple(StrategyEntry.from_json(m) for m in _tuple(d["menu"], "menu")),
            _tuple(d["not_solved"], "not_solved"),
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
        return _ranking_json(self) | {"seeds": self.seeds, "simulations": self.simulations}

    @classmethod
    def from_json(cls, d) -> ExploredProviderChoice:
        """The choice :meth:`to_json` wrote."""
        d = _dict(d, "provider")
        return cls(*_ranking_from_json(d), d["seeds"], d["simulations"], d.get("run_now"))


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
        d = _dict(d, "exploration data")
        return cls(
            d["study"],
            d["family"],
            _tuple(d["parameters"], "parameters"),
            _tuple(d["bounds"], "bounds"),
            d["optimiser"],
            d["budget"],
            d["evaluations"],
            d["probe"],
            _tuple(d["search_seeds"], "search_seeds"),
            _tuple(d["fresh_seeds"], "fresh_seeds"),
            d["first_seeds"],
            d["confirm_seeds"],
            d["alpha"],
            d["note"],
            {k: MechanismExploration.from_json(m) for k, m in _dict(d["mechanisms"], "mechanisms").items()},
            ExploredProviderChoice.from_json(d["provider"]),
            d["simulations"],
            d.get("wall_seconds"),
        )
