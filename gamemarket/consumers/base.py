"""The consumer-strategy interface: what every way of turning private bids into reported bids provides.

A consumer strategy (Axelrod's players are the model: a class with its metadata) is a small, frozen,
picklable object with

- a ``name`` and a ``description``;
- :meth:`ConsumerStrategy.params`: what determines its bids, part of every stored run's key (so two
  strategies with the same parameters are the same strategy, whatever their names);
- :meth:`ConsumerStrategy.reported_bids`: the one method the market's callers use, turning the agents'
  private bids, their bid classes and the common random draws ``G`` (group) and ``U`` (shading) into
  (consumer group, reported bid) per job;
- :meth:`ConsumerStrategy.consumer_groups`: the groups it splits the jobs into by their group draw, each
  (share, largest beta), which the payoffs and reports use to name an aggressive group.

Strategies come in *families* (:class:`Family`), registered in :data:`FAMILIES` by name: a catalogue
entry (TOML) names its family (``family = "..."``, defaulting to the catalogue's own family), and the
family turns the entry into strategies (:meth:`Family.from_entry`) and stored parameters back into a
strategy (:meth:`Family.from_params`). A *parametric* family (:class:`ParametricFamily`) is a box of
real parameters: it declares ``bounds`` and ``dimension``, and :meth:`ParametricFamily.point` makes the
strategy at any point of the box, named after its parameters, so a search (a best-response oracle) can
propose points and the store keys them like any catalogue strategy.

A new family is one module in this package that defines its strategy class and registers its family.
"""

from __future__ import annotations

import hashlib
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Annotated, ClassVar

import numpy as np
from pydantic import Field

# the bid classes and a population's bids are the private bids' (bids sits below the strategies, and the
# market imports it without the strategies' schemas and pydantic)
from gamemarket.bids import BID_CLASSES, HIGH_MIN, LOW_MAX, bid_bin, bid_bin_codes, population_bids  # noqa: F401
from gamemarket.errors import InputError
from gamemarket.registry import Registry

#: a shading factor's range (beta in [0, 1)), as the study file's schema declares it
Fraction01 = Annotated[float, Field(ge=0, lt=1)]


class ConsumerStrategy(ABC):
    """A consumer strategy: a name, its parameters, and the reported bids it makes.

    Implementations are frozen dataclasses (hashable, picklable for worker processes) that set the
    class attribute ``family`` to the name of their registered :class:`Family`.
    """

    family: ClassVar[str] = ""
    #: a beta per private-bid class (low, middle, high) where the strategy is ``w (1 - beta_c U)`` for every
    #: job, else None: where every strategy of a population has one, its bids are one table lookup
    betas_by_class: ClassVar[tuple[float, ...] | None] = None
    name: str
    description: str

    @abstractmethod
    def params(self) -> dict:
        """What determines the strategy's bids: part of every stored run's key (JSON-serialisable).

        Returns
        -------
        dict
            Plain numbers and lists; :meth:`Family.from_params` of the strategy's family reads it back.
        """

    @abstractmethod
    def reported_bids(
        self, private_bid: np.ndarray, bid_class: np.ndarray, G: np.ndarray, U: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each job's (consumer group, reported bid).

        Parameters
        ----------
        private_bid : numpy.ndarray
            The jobs' private bids ``w``.
        bid_class : numpy.ndarray
            Their bid classes (:func:`bid_bin_codes`: 0 low, 1 middle, 2 high).
        G, U : numpy.ndarray
            The common random group and shading draws, uniform on [0, 1) (``gamemarket.bids.draw``).

        Returns
        -------
        (numpy.ndarray, numpy.ndarray)
            The group index (int64) and the reported bid (float, in ``[0, w]``) of each job.
        """

    @abstractmethod
    def consumer_groups(self) -> tuple[tuple[float, float], ...]:
        """The groups the strategy splits the jobs into by their group draw: (share of the jobs, the group's
        largest beta) each, in group-index order; a strategy that does not split has one group."""

    @abstractmethod
    def entry(self) -> dict:
        """The strategy as a catalogue entry (TOML table) that its family reads back to an equal strategy."""

    @property
    def truthful(self) -> bool:
        """Whether the strategy never shades (every group's largest beta is 0)."""
        return all(b == 0 for _, b in self.consumer_groups())

    def group_betas(self) -> np.ndarray:
        """Each consumer group's largest beta (``consumer_groups``), what names the aggressive group."""
        return np.array([b for _, b in self.consumer_groups()])

    def key(self) -> tuple:
        """(family, parameters as canonical JSON): equal for two strategies that make the same bids."""
        return (self.family, json.dumps(self.params(), sort_keys=True))


class Family(ABC):
    """A family of consumer strategies: how its catalogue entries and stored parameters become strategies.

    Attributes
    ----------
    name : str
        The registered name (``FAMILIES``), what a catalogue entry's ``family`` field names.
    description : str
    """

    name: str = ""
    description: str = ""

    @abstractmethod
    def from_entry(self, name: str, entry: dict, where: str, root: str) -> dict[str, ConsumerStrategy]:
        """The strategies a catalogue entry defines (one, or several for a grid), by name.

        Parameters
        ----------
        name : str
            The entry's name (its table's last key).
        entry : dict
            The entry's fields, less ``family``.
        where, root : str
            The file and the table as the file writes it (``[strategies.consumer.SRG]``), for messages.

        Raises
        ------
        InputError
            Naming ``where``, ``root`` and the field.
        """

    @abstractmethod
    def from_params(self, params: Mapping, name: str = "") -> ConsumerStrategy:
        """The strategy whose :meth:`ConsumerStrategy.params` are ``params`` (a stored run's, say)."""

    def owns(self, params: Mapping) -> bool:
        """Whether stored ``params`` are this family's (those that predate the ``family`` key are
        recognised by their fields)."""
        return params.get("family") == self.name


class ParametricFamily(Family):
    """A family whose strategies are the points of a box of real parameters.

    Subclasses set ``param_names`` and ``bounds`` (one ``(low, high)`` per parameter; a point's value must
    lie in ``[low, high)``) and implement :meth:`make`. :meth:`point` checks a point and names it.

    Examples
    --------
    A search over the family proposes points and gets strategies it can run::

        fam = FAMILIES.get("per-class")
        s = fam.point([0.0, 0.3, 0.9])     # or fam.point({"low": 0, "middle": 0.3, "high": 0.9})
        fam.coordinates(s)                 # array([0. , 0.3, 0.9])
    """

    param_names: tuple[str, ...] = ()
    bounds: tuple[tuple[float, float], ...] = ()

    @property
    def dimension(self) -> int:
        """The number of real parameters of a point."""
        return len(self.param_names)

    @abstractmethod
    def make(self, x: np.ndarray, name: str, description: str) -> ConsumerStrategy:
        """The strategy at a checked point ``x`` (``point`` does the checking and naming)."""

    @abstractmethod
    def coordinates(self, strategy: ConsumerStrategy) -> np.ndarray:
        """The point (``dimension`` numbers) of one of the family's strategies; ``point`` of it is equal."""

    def check_point(self, x: Sequence[float] | Mapping[str, float], where: str = "") -> np.ndarray:
        """``x`` (a sequence in ``param_names`` order, or a mapping by name) as an array, each value checked
        against its bound; otherwise an ``InputError`` naming the parameter, its value and its range."""
        head = f"{where}: " if where else ""
        if isinstance(x, Mapping):
            unknown = sorted(set(x) - set(self.param_names))
            missing = [p for p in self.param_names if p not in x]
            if unknown or missing:
                raise InputError(
                    f"{head}family {self.name!r}: parameters {self.list_names()} expected; "
                    f"unknown {unknown}, missing {missing}"
                )
            x = [x[p] for p in self.param_names]
        try:
            vals = [float(v) for v in x]
        except (TypeError, ValueError) as exc:
            raise InputError(f"{head}family {self.name!r}: parameters must be numbers: {exc}") from None
        if len(vals) != self.dimension:
            raise InputError(
                f"{head}family {self.name!r}: expected {self.dimension} parameters {self.list_names()}, got {len(vals)}"
            )
        for p, v, (lo, hi) in zip(self.param_names, vals, self.bounds):
            if not (math.isfinite(v) and lo <= v < hi):
                raise InputError(f"{head}family {self.name!r}: parameter {p!r} must be in [{lo:g}, {hi:g}), got {v}")
        return np.array(vals, dtype=float)

    def list_names(self) -> str:
        """The parameters' names, for messages."""
        return "[" + ", ".join(self.param_names) + "]"

    def point(
        self, x: Sequence[float] | Mapping[str, float], name: str | None = None, description: str = ""
    ) -> ConsumerStrategy:
        """The strategy at point ``x`` of the family.

        Parameters
        ----------
        x : sequence of float or mapping
            ``dimension`` values in ``param_names`` order, or ``{param_name: value}``; each in its
            ``bounds`` interval ``[low, high)``.
        name : str, optional
            By default derived from the parameters (:meth:`point_name`): equal points, equal names.
        description : str

        Raises
        ------
        InputError
            A value outside its bound (naming the parameter), or the wrong number of values.
        """
        v = self.check_point(x)
        return self.make(v, self.point_name(v) if name is None else name, description)

    def point_name(self, x: np.ndarray) -> str:
        """A point's name: the family's name and its values (``%g``); where ``%g`` loses digits, a short
        hash of the exact values keeps two different points apart."""
        text = ",".join(f"{v:g}" for v in x)
        exact = all(float(f"{v:g}") == v for v in x)
        digest = "" if exact else "~" + hashlib.sha256(json.dumps([float(v) for v in x]).encode()).hexdigest()[:8]
        return f"{self.name}[{text}]{digest}"


#: consumer-strategy families by name
FAMILIES: Registry[Family] = Registry("consumer-strategy family")


def register(family: Family) -> Family:
    """Register ``family`` under its name (a module of this package calls it once) and return it."""
    return FAMILIES.register(family.name, family)


def family_of(params: Mapping, where: str = "consumer strategy") -> Family:
    """The family that owns stored ``params`` (its ``family`` field, or the family that recognises them)."""
    if "family" in params:
        fam = params["family"]
        if fam not in FAMILIES:
            raise InputError(f"{where}: field 'family': unknown family {fam!r}; expected one of {sorted(FAMILIES)}")
        return FAMILIES.get(fam)
    for fam in FAMILIES.values():
        if fam.owns(params):
            return fam
    raise InputError(f"{where}: parameters {dict(params)} belong to no family; expected one of {sorted(FAMILIES)}")


def from_params(params: Mapping, name: str = "") -> ConsumerStrategy:
    """The strategy, named ``name``, that stored ``params`` describe (a stored study's consumer entry: a
    ``description`` beside them is left out, it makes no bid)."""
    p = {k: v for k, v in params.items() if k != "description"}
    return family_of(p).from_params(p, name)


def from_entry(
    name: str, entry: dict, where: str, default_family: str, root: str | None = None
) -> dict[str, ConsumerStrategy]:
    """The strategies a catalogue entry defines, by its family (``family = "..."``; ``default_family``
    where it names none); an unknown family is an error naming the file, the table and the field.

    ``root`` is the entry's table as the file writes it (default ``[name]``)."""
    root = root or f"[{name}]"
    fam = entry.get("family", default_family) if isinstance(entry, dict) else default_family
    if not isinstance(fam, str) or fam not in FAMILIES:
        raise InputError(
            f"{where}: {root} field 'family': unknown consumer-strategy family {fam!r}; expected one of "
            f"{sorted(FAMILIES)}"
        )
    if isinstance(entry, dict) and "family" in entry:
        entry = {k: v for k, v in entry.items() if k != "family"}
    return FAMILIES.get(fam).from_entry(name, entry, where, root)
