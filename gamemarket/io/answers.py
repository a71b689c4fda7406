"""The answer of a population study, as frozen dataclasses with their JSON (its exploration's: ``io.explored``).

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

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gamemarket.io.names import workload_name


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


def json_tuple(v, what: str) -> tuple:
    """A JSON list as a tuple (``what`` names it where it is not a list)."""
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"{what}: expected a list, got a {type(v).__name__}")
    return tuple(v)


def json_dict(v, what: str) -> dict:
    """A JSON object as a dict (``what`` names it where it is not an object)."""
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
    regret: Interval  #: its regret from the paired records, with its interval over seeds (``regret_interval``)
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
        d = json_dict(d, "an equilibrium")
        return cls(
            json_dict(d["mixture"], "mixture"),
            json_tuple(d["mixture_vector"], "mixture_vector"),
            d["reduced_regret"],
            d["stability"],
            d["verified"],
            d["epsilon"],
            d["tolerance"],
            Interval.from_json(d["regret"]),
            json_dict(d["payoffs"], "payoffs"),
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
        d = json_dict(d, "an answer")
        return cls(
            d["mechanism"],
            d.get("game"),
            json_tuple(d["seeds"], "seeds"),
            tuple(VerifiedEquilibrium.from_json(e) for e in json_tuple(d["equilibria"], "equilibria")),
            {k: Interval.from_json(v) for k, v in json_dict(d["truthful_gains"], "truthful_gains").items()},
            d["truthful_is_equilibrium"],
            json_tuple(d["notes"], "notes"),
            json_dict(d["search"] if "search" in d else d["equilibrium_search"], "search"),
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
        d = json_dict(d, "a joint equilibrium")
        return cls(
            json_dict(d["provider"], "provider"),
            json_dict(d["consumers"], "consumers"),
            json_tuple(d["mixture_vector"], "mixture_vector"),
            d["reduced_regret"],
            d["stability"],
            d["verified"],
            Interval.from_json(d["consumer_regret"]),
            Interval.from_json(d["provider_regret"]),
            json_dict(d["revenue_per_agent"], "revenue_per_agent"),
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
        d = json_dict(d, "the joint answer")
        return cls(
            d.get("game"),
            tuple(JointEquilibrium.from_json(e) for e in json_tuple(d["equilibria"], "joint equilibria")),
            d["dominant"],
            json_tuple(d["notes"], "notes"),
            json_dict(d["search"], "search"),
            tuple(tuple(p) for p in json_tuple(d["points"], "points")),
            tuple(tuple(p) for p in json_tuple(d["checked"], "checked")),
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
        d = json_dict(d, "a ranking entry")
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
        d = json_dict(d, "a simultaneous choice")
        under = d.get("revenue_under")
        return cls(
            d["mechanism"], json_dict(d["mixture"], "mixture"), d["revenue"], None if under is None else dict(under)
        )


def ranking_json(choice) -> dict:
    """A provider's choice's ``leader``, ``ranking`` and ``simultaneous`` as the files hold them."""
    return {
        "leader": choice.leader,
        "ranking": [r.to_json() for r in choice.ranking],
        "simultaneous": [s.to_json() for s in choice.simultaneous],
    }


def ranking_from_json(d) -> tuple:
    """(leader, ranking, simultaneous) of a provider's choice that :func:`ranking_json` wrote."""
    return (
        d["leader"],
        tuple(RankedMechanism.from_json(r) for r in json_tuple(d["ranking"], "ranking")),
        tuple(SimultaneousChoice.from_json(s) for s in json_tuple(d["simultaneous"], "simultaneous")),
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
        out = ranking_json(self)
        if not report:
            return {**out, "joint": None if self.joint is None else self.joint.to_json()}
        return out | ({"joint": self.joint.to_json(game=False)} if self.joint is not None else {})

    @classmethod
    def from_json(cls, d) -> ProviderChoice:
        """The choice :meth:`to_json` wrote."""
        d = json_dict(d, "provider")
        joint = d.get("joint")
        return cls(*ranking_from_json(d), None if joint is None else JointAnswer.from_json(joint))


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
        d = json_dict(d, "runs")
        return cls(
            d["simulations"],
            d["fixed_design"],
            json_dict(d["seeds"], "seeds"),
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
        d = json_dict(d, "meta")
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
        d = json_dict(d, "population data")
        return cls(
            d["study"],
            tuple(MechanismAnswer.from_json(a) for a in json_tuple(d["mechanisms"], "mechanisms")),
            ProviderChoice.from_json(d["provider"]),
            RunAccounting.from_json(d["runs"]),
            PopulationMeta.from_json(d["meta"]),
        )
