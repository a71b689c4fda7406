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

A new family is one module in this package that defines its strategy class and registers its family, or a
plugin (``gamemarket.plugins``) that does the same outside the package. A strategy class defined outside the
package (a plugin's) is checked where it bids (:func:`check_reported`: every bid finite and in ``[0, w]``), and
its :meth:`ConsumerStrategy.params` carry its plugin's text hash (``"plugin"``), so a stored run's key changes
when the plugin's text does.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Annotated, ClassVar

import numpy as np
from pydantic import Field

from gamemarket.bids import BID_CLASSES, HIGH_MIN, LOW_MAX, bid_bin, bid_bin_codes, population_bids  # noqa: F401
from gamemarket.errors import InputError, check_text, foreign_prints, raised, real_numbers, shown_name, shown_value

# the bid classes and a population's bids are the private bids' (bids sits below the strategies, and the
# market imports it without the strategies' schemas and pydantic)
from gamemarket.io.names import check_names
from gamemarket.registry import PLUGIN_HINT, Registry

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
    #: the share of each private-bid class (low, middle, high) that takes the outside option (market model, "The
    #: outside option"; ``bids.population_stay``), else None: the strategy's jobs always stay
    leave_by_class: ClassVar[tuple[float, ...] | None] = None
    name: str
    description: str

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # a class written outside the package (a plugin's): its bids are checked where they are made, and
        # its parameters carry its plugin's hash (the package's own classes are trusted and keep their keys)
        if not cls.__module__.startswith("gamemarket.") and not getattr(cls, "__abstractmethods__", None):
            if "reported_bids" in cls.__dict__:
                cls.reported_bids = _checked_bids(cls.__dict__["reported_bids"])
            if "consumer_groups" in cls.__dict__:
                cls.consumer_groups = _checked_groups(cls.__dict__["consumer_groups"])
            if "params" in cls.__dict__:
                cls.params = _hashed_params(cls.__dict__["params"])

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

    @property
    def truthful_and_staying(self) -> bool:
        """Whether the strategy bids truthfully and keeps every job in the market (no share of any class leaves for
        the outside option): truthful bidding, the reference of every gain (a rule of beta 0 that leaves is not)."""
        return self.truthful and not any(self.leave_by_class or ())

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
    #: ``path@hash`` of the plugin that registered the family (``gamemarket.plugins``), None for the package's own
    source: str | None = None

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
FAMILIES: Registry[Family] = Registry("consumer-strategy family", hint=PLUGIN_HINT)


#: the methods a family must provide, and the positional arguments each is called with
FAMILY_METHODS = {"from_entry": 4, "from_params": 2}
PARAMETRIC_METHODS = {"make": 3, "coordinates": 1}


def register(family: Family) -> Family:
    """Register ``family`` under its name (a module of this package, or a plugin, calls it once) and return it.

    Raises
    ------
    InputError
        ``family`` is not a :class:`Family`, has no name or description, takes its name from a family already
        registered, has a method that cannot be called with the interface's arguments, or (a
        :class:`ParametricFamily`) declares parameters and bounds that do not match or are not finite,
        increasing ``(low, high)`` pairs.
    """
    if not isinstance(family, Family):
        raise InputError(f"register: expected a gamemarket.consumers.Family instance, got {type(family).__name__}")
    what = f"consumer-strategy family {family.name!r}"
    if not isinstance(family.description, str) or not family.description.strip():
        raise InputError(f"{what}: field 'description': expected a non-empty text, got {family.description!r}")
    methods = dict(FAMILY_METHODS, **(PARAMETRIC_METHODS if isinstance(family, ParametricFamily) else {}))
    for method, n in methods.items():
        _check_signature(what, method, getattr(family, method), n)
    if isinstance(family, ParametricFamily):
        _check_box(what, family)
    return FAMILIES.register(family.name, family)


def _check_signature(what: str, method: str, fn, n: int) -> None:
    """``fn`` can be called with ``n`` positional arguments (the interface's), else an error naming it."""
    try:
        inspect.signature(fn).bind(*range(n))
    except TypeError as exc:
        raise InputError(
            f"{what}: method {method!r} has the wrong signature {inspect.signature(fn)}: the interface calls it "
            f"with {n} positional argument(s) ({exc})"
        ) from None
    except ValueError:  # a builtin without a signature: nothing to check
        pass


def _check_box(what: str, family: ParametricFamily) -> None:
    """A parametric family's names and bounds: one finite ``(low, high)``, low < high, per named parameter."""
    names, bounds = tuple(family.param_names), tuple(family.bounds)
    if not names or not all(isinstance(p, str) and p for p in names) or len(set(names)) != len(names):
        raise InputError(f"{what}: field 'param_names': expected distinct non-empty names, got {names!r}")
    if len(bounds) != len(names):
        raise InputError(
            f"{what}: field 'bounds': expected {len(names)} (low, high) pairs, one per {names}, got {bounds!r}"
        )
    for p, b in zip(names, bounds):
        try:
            lo, hi = (float(v) for v in b)
        except (TypeError, ValueError):
            raise InputError(f"{what}: field 'bounds' of {p!r}: expected a (low, high) pair, got {b!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InputError(f"{what}: field 'bounds' of {p!r}: expected finite low < high, got {b!r}")


def origin(strategy) -> str:
    """Where a strategy's class comes from, for messages: ``plugin PATH@HASH`` or the class's module."""
    name = getattr(strategy, "family", "")
    fam = FAMILIES[name] if name in FAMILIES else None
    source = getattr(fam, "source", None)
    return f"plugin {source}" if source else f"class {type(strategy).__module__}.{type(strategy).__qualname__}"


def check_reported(strategy, private_bid, group, reported) -> np.ndarray:
    """Check the bids a strategy made (``reported_bids``'s result) against what the engine accepts.

    Parameters
    ----------
    strategy : ConsumerStrategy
    private_bid : numpy.ndarray
        The private bids it was given.
    group, reported : numpy.ndarray
        What it returned: a group index per job and a reported bid per job.

    Returns
    -------
    numpy.ndarray
        The reported bids as float64 (an object array of Python integers, converted).

    Raises
    ------
    InputError
        Naming the plugin (or class), the family, the strategy, the first bad job and its value: bids that
        are not real numbers (a text, a bool, an integer beyond float range;
        :func:`gamemarket.errors.real_numbers`), a shape that is not the private bids', a group index that is not
        an integer in ``[0, groups)``, or a bid that is NaN, infinite, negative or above the private bid.
    """
    w = np.asarray(private_bid)
    head = (
        f"{origin(strategy)}: consumer-strategy family {strategy.family!r}, strategy {strategy.name!r}: reported_bids"
    )
    group, (bids, problem) = np.asarray(group), real_numbers(reported)
    if problem:  # a text, a bool, an object array of integers beyond float range: no bid the engine can hold
        raise InputError(f"{head} returned bids: {problem}; expected a finite bid in [0, private bid] per job")
    reported = bids
    if group.shape != w.shape or reported.shape != w.shape:
        raise InputError(
            f"{head} returned shapes {group.shape} and {reported.shape}; expected (groups, bids) of shape {w.shape}"
        )
    if group.dtype.kind not in "iu":
        raise InputError(f"{head} returned group indices of dtype {group.dtype}; expected integers (int64)")
    bad = np.flatnonzero(~(np.isfinite(reported) & (reported >= 0) & (reported <= w)))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"{head} gives job {i} (private bid {w[i]!r}) the bid {float(reported[i])!r}; expected a finite bid in "
            f"[0, private bid] ({bad.size} such job(s))"
        )
    k = len(strategy.consumer_groups())
    bad = np.flatnonzero((group < 0) | (group >= k))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{head} gives job {i} the group {int(group[i])}; expected one of its {k} group(s) 0..{k - 1}")
    return reported


def _read_only(a) -> np.ndarray:
    """A read-only view of array ``a`` (the array itself is not changed)."""
    v = np.asarray(a).view()
    v.flags.writeable = False
    return v


def _checked_bids(fn):
    """A plugin strategy's ``reported_bids``, checked (:func:`check_reported`) before the engine sees its bids."""

    @functools.wraps(fn)
    def reported_bids(self, private_bid, bid_class, G, U):
        # the plugin sees its inputs read-only: one that shaded private_bid in place ran with the private bids it
        # had shaded (every job's private bid its reported one: the utilities wrong, exit 0; hunt 9)
        shown = [_read_only(a) for a in (private_bid, bid_class, G, U)]
        try:
            with foreign_prints():  # the plugin's method: what it prints is not the command's output
                group, reported = fn(self, *shown)
        except InputError:
            raise
        except Exception as exc:  # the plugin's own error: named with the plugin, as a bad input
            wrote = isinstance(exc, ValueError) and "read-only" in str(exc)
            raise InputError(
                f"{origin(self)}: consumer-strategy family {self.family!r}, strategy {self.name!r}: reported_bids "
                f"raised {raised(exc)}"
                + ("; its inputs (private bids, bid classes, draws) are read-only: compute new arrays" if wrote else "")
            ) from None
        return group, check_reported(self, private_bid, group, reported)

    return reported_bids


def _checked_groups(fn):
    """A plugin strategy's ``consumer_groups``, checked (:func:`check_groups`): the payoffs and the report read
    them (hunt 17a-50: a negative weight passed every check, and a report said "the conservative group is 90% to
    150% of the jobs")."""

    @functools.wraps(fn)
    def consumer_groups(self) -> tuple[tuple[float, float], ...]:
        head = f"{origin(self)}: consumer-strategy family {self.family!r}, strategy {self.name!r}: consumer_groups()"
        try:
            with foreign_prints():
                out = fn(self)
        except InputError:
            raise
        except Exception as exc:  # the plugin's own error
            raise InputError(f"{head} raised {raised(exc)}") from None
        return check_groups(out, head)

    return consumer_groups


def check_groups(groups, head: str) -> tuple[tuple[float, float], ...]:
    """``groups`` as ``consumer_groups`` returns them: a non-empty sequence of ``(share of the jobs, largest
    beta)``, each share a finite number in [0, 1] and together 1 (to 1e-9), each beta a finite number in [0, 1];
    returned as a tuple of float pairs, else an :class:`InputError` naming ``head`` and what is wrong."""
    expected = "expected (share of the jobs, largest beta) pairs, shares in [0, 1] summing to 1, betas in [0, 1]"
    try:
        pairs = [tuple(g) for g in groups]
    except TypeError:
        raise InputError(f"{head} returned {shown_value(groups)}; {expected}") from None
    if not pairs:
        raise InputError(f"{head} returned no group; {expected} (a strategy that does not split has one)")
    out = []
    for k, pair in enumerate(pairs):
        ok = len(pair) == 2 and all(isinstance(v, Real) and not isinstance(v, bool) for v in pair)
        if not ok or not all(math.isfinite(float(v)) and 0 <= float(v) <= 1 for v in pair):
            raise InputError(f"{head} returned group {k} as {shown_value(pair)}; {expected}")
        out.append((float(pair[0]), float(pair[1])))
    total = math.fsum(share for share, _ in out)
    if abs(total - 1.0) > 1e-9:
        raise InputError(f"{head} returned shares that sum to {total:.12g}; {expected}")
    return tuple(out)


def _hashed_params(fn):
    """A plugin strategy's ``params``, with its plugin's text hash (``"plugin"``): part of a stored run's key."""

    @functools.wraps(fn)
    def params(self) -> dict:
        out = fn(self)
        name = getattr(self, "family", "")
        try:  # what a stored run's key is made of: plain JSON data (numbers, strings, lists, dicts), checked here
            ok = isinstance(out, dict) and json.loads(json.dumps(out, sort_keys=True, allow_nan=False)) is not None
        except (TypeError, ValueError) as exc:
            raise InputError(
                f"consumer strategy {getattr(self, 'name', '?')!r} of family {name!r} (a plugin's): params() must "
                f"return plain JSON data (numbers, strings, lists, dicts), got {out!r}: {exc}"
            ) from None
        if not ok:
            raise InputError(
                f"consumer strategy {getattr(self, 'name', '?')!r} of family {name!r} (a plugin's): params() must "
                f"return a dict, got {type(out).__name__}"
            )
        fam = FAMILIES[name] if name in FAMILIES else None
        source = getattr(fam, "source", None)
        return {**out, "plugin": source.rsplit("@", 1)[1]} if source else out

    return params


def family_of(params: Mapping, where: str = "consumer strategy") -> Family:
    """The family that owns stored ``params`` (its ``family`` field, or the family that recognises them); ``where``
    (a text) names them in messages."""
    check_text(where, "family_of: where (the place messages name)")
    if not isinstance(params, Mapping):  # ("abc" was an AttributeError on .get)
        raise InputError(f"{where}: parameters must be a mapping (a stored strategy's fields), got {params!r:.80}")
    if "family" in params:
        fam = params["family"]
        if fam not in FAMILIES:
            raise InputError(
                f"{where}: field 'family': unknown family {shown_name(fam)}; expected one of {sorted(FAMILIES)}"
            )
        return FAMILIES.get(fam)
    for fam in FAMILIES.values():
        if fam.owns(params):
            return fam
    raise InputError(f"{where}: parameters {dict(params)} belong to no family; expected one of {sorted(FAMILIES)}")


def check_strategy_name(name, what: str) -> str:
    """A consumer strategy's ``name``: a text, printable (one rule with the games': a line break would split an
    answer's table, a NUL end a line; ``BetaMix(name='a\\nb')`` was taken). Empty is allowed here, an anonymous
    strategy (stored parameters read back without their name); a game or a population refuses it, as it needs a
    name to print each strategy by."""
    check_text(name, what, empty=True)
    if name:
        check_names([name], what)
    return name


def from_params(params: Mapping, name: str = "") -> ConsumerStrategy:
    """The strategy, named ``name``, that stored ``params`` describe (a stored study's consumer entry: a
    ``description`` beside them is left out, it makes no bid, and so is a plugin family's ``plugin`` hash).
    ``name`` is a text (empty: unnamed)."""
    check_text(name, "from_params: name", empty=True)
    if not isinstance(params, Mapping):  # (None was an AttributeError on .items)
        raise InputError(
            f"consumer strategy {name!r}: parameters must be a mapping (a stored strategy's fields), got {params!r:.80}"
        )
    p = {k: v for k, v in params.items() if k not in ("description", "plugin")}  # the plugin hash: a key, not a bid
    return family_of(p).from_params(p, name)


def from_entry(
    name: str, entry: dict, where: str, default_family: str, root: str | None = None
) -> dict[str, ConsumerStrategy]:
    """The strategies a catalogue entry defines, by its family (``family = "..."``; ``default_family``
    where it names none); an unknown family is an error naming the file, the table and the field.

    ``root`` is the entry's table as the file writes it (default ``[name]``). ``name``, ``where``,
    ``default_family`` and ``root`` are texts (else an :class:`InputError` naming the argument)."""
    check_text(name, "from_entry: name (the entry's table key)")
    check_text(where, "from_entry: where (the file messages name)")
    check_text(default_family, "from_entry: default_family (a consumer-strategy family's name)")
    root = check_text(root, "from_entry: root (the entry's table as the file writes it)", none=True) or f"[{name}]"
    fam = entry.get("family", default_family) if isinstance(entry, dict) else default_family
    if not isinstance(fam, str) or fam not in FAMILIES:
        raise InputError(
            f"{where}: {root} field 'family': unknown consumer-strategy family {fam!r}; expected one of "
            f"{sorted(FAMILIES)}"
        )
    if isinstance(entry, dict) and "family" in entry:
        entry = {k: v for k, v in entry.items() if k != "family"}
    return FAMILIES.get(fam).from_entry(name, entry, where, root)


def numbers(value, label: str, field: str) -> tuple[float, ...]:
    """``value`` as a tuple of floats, or an :class:`InputError` naming ``label``, ``field`` and the value: a string
    is refused (it is a sequence of characters: ``'0.5'`` read as ``'0'``, ``'.'``, ``'5'``), as is a single number
    or anything not a sequence of numbers."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise InputError(f"{label}: {field} must be a sequence of numbers, got {value!r}")
    try:
        return tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise InputError(f"{label}: {field} must be numbers, got {list(value)!r}") from None
