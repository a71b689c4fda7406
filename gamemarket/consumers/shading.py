"""Shading per private-bid class: the consumer strategies of population studies, a parametric family.

A job of class ``c`` (``bid_bin_codes``: low, middle, high) reports ``w (1 - beta_c U)``. The family
``per-class`` is the box ``[0, 1)^3`` of ``(beta_low, beta_middle, beta_high)``; the catalogue's rules
(``shading.toml``: truthful, shade-0.9, shade-high-0.9, ...) are points of it, and
``FAMILIES.get("per-class").point([0, 0.3, 0.9])`` is the rule ``per-class[0,0.3,0.9]``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar

import numpy as np
from pydantic import Field

from gamemarket.consumers.base import (
    BID_CLASSES,
    ConsumerStrategy,
    Fraction01,
    ParametricFamily,
    check_strategy_name,
    numbers,
    register,
)
from gamemarket.errors import InputError, check_text
from gamemarket.io.schema import Table, check

Share01 = Annotated[float, Field(ge=0, le=1)]


class ShadingEntry(Table):
    """A shading rule of a population game: a beta per private-bid class (missing classes: 0), and the share of each
    class that takes the outside option (missing: 0)."""

    beta: Fraction01 | dict[str, Fraction01] = Field(description="one beta for all classes, or {low, middle, high}")
    leave: Share01 | dict[str, Share01] = Field(
        0.0, description="share of each class's jobs that take the outside option: one share, or {low, middle, high}"
    )
    description: str = ""


@dataclass(frozen=True)
class ShadingRule(ConsumerStrategy):
    """One consumer's strategy in a population game: a beta per private-bid class.

    A job of class ``c`` (see ``bid_bin_codes``) reports ``w * (1 - beta_c * U)``: a plain beta is
    the same in every class; a conditional rule shades some classes only (for example: shade only
    high bids). Rules are data (``strategies/shading.toml``), so the market never branches on a name.
    """

    family: ClassVar[str] = "per-class"
    name: str
    betas: tuple[float, float, float]
    description: str = ""

    def __post_init__(self) -> None:
        check_strategy_name(self.name, "shading rule: name")
        check_text(self.description, f"shading rule {self.name!r}: description", empty=True)
        betas = numbers(self.betas, f"shading rule {self.name!r}", "betas")
        if len(betas) != len(BID_CLASSES):
            raise InputError(f"shading rule {self.name!r}: one beta per bid class {BID_CLASSES} is needed, got {betas}")
        for c, b in zip(BID_CLASSES, betas):
            if not (math.isfinite(b) and 0 <= b < 1):
                raise InputError(f"shading rule {self.name!r}: beta of class {c!r} must be in [0, 1), got {b}")
        object.__setattr__(self, "betas", betas)

    @property
    def truthful(self) -> bool:
        """Whether the rule never shades (beta 0 in every private-bid class)."""
        return all(b == 0 for b in self.betas)

    @property
    def betas_by_class(self) -> tuple[float, float, float]:  # type: ignore[override]
        """The rule's beta per private-bid class (low, middle, high)."""
        return self.betas

    @property
    def conditional(self) -> bool:
        """Whether the beta depends on the private-bid class (the rule's classifier)."""
        return len(set(self.betas)) > 1

    def params(self) -> dict:
        """What determines the rule's bids (part of a stored run's key): its beta per class."""
        return {"betas": list(self.betas)}

    def consumer_groups(self) -> tuple[tuple[float, float], ...]:
        """One group, every job; its largest beta."""
        return ((1.0, max(self.betas)),)

    def entry(self) -> dict:
        """``{"beta": {low, middle, high}}`` (and the description)."""
        return {
            "beta": dict(zip(BID_CLASSES, self.betas)),
            **({"description": self.description} if self.description else {}),
        }

    def reported_bids(
        self, private_bid: np.ndarray, bid_class: np.ndarray, G: np.ndarray, U: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(group 0, ``w (1 - beta_c U)``) of every job."""
        beta = np.asarray(self.betas, dtype=float)[np.asarray(bid_class, dtype=np.int64)]
        return np.zeros(len(private_bid), dtype=np.int64), private_bid * (1.0 - beta * U)

    @classmethod
    def from_entry(cls, name: str, entry: dict, where: str) -> "ShadingRule":
        """``beta = 0.5`` or ``beta = {low = 0, middle = 0, high = 0.9}`` (missing classes: 0); with ``leave``
        (``leave = 1``, ``leave = {low = 0.5}``) a :class:`LeavingRule`. ``name`` and ``where`` (the file messages
        name) are texts."""
        check_text(name, "ShadingRule.from_entry: name", empty=True)
        check_text(where, "ShadingRule.from_entry: where (the file messages name)", empty=True)
        if not isinstance(entry, dict):
            raise InputError(f"{where}: shading rule {name!r}: expected a table with 'beta'")
        unknown = sorted(set(entry) - {"beta", "leave", "description"})
        if unknown:
            raise InputError(
                f"{where}: shading rule {name!r}: unknown field(s) {unknown}; allowed: ['beta', 'description', 'leave']"
            )
        if "beta" not in entry:
            raise InputError(f"{where}: shading rule {name!r}: missing field 'beta'")
        betas = _per_class(entry["beta"], "beta", name, where)
        leave = _per_class(entry.get("leave", 0.0), "leave", name, where)
        try:
            if any(q > 0 for q in leave):
                return LeavingRule(name, betas, str(entry.get("description", "")), leave)
            return cls(name, betas, str(entry.get("description", "")))
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None


def _per_class(b, field: str, name: str, where: str) -> tuple:
    """A field given as one number for every class or as a table ``{low, middle, high}`` (missing classes: 0)."""
    if isinstance(b, dict):
        bad = sorted(set(b) - set(BID_CLASSES))
        if bad:
            raise InputError(
                f"{where}: shading rule {name!r}: field {field!r}: unknown bid class(es) {bad}; "
                f"classes: {list(BID_CLASSES)}"
            )
        return tuple(b.get(c, 0.0) for c in BID_CLASSES)
    if isinstance(b, (int, float, np.integer, np.floating)) and not isinstance(b, (bool, np.bool_)):  # numpy's too
        return (b, b, b)
    raise InputError(
        f"{where}: shading rule {name!r}: field {field!r} must be a number or a table per bid class, got {b!r}"
    )


@dataclass(frozen=True)
class LeavingRule(ShadingRule):
    """A shading rule whose jobs may take the outside option: a beta per private-bid class, and per class the share
    of its jobs that leave (those whose leave draw is below it: ``bids.population_stay``).

    A job that stays reports ``w (1 - beta_c U)``; a job that leaves never enters the cluster and gets
    ``-w tau - c tau`` (market model, "The outside option"). ``leave = (0, 0, 1)``: every high-bid job leaves.
    """

    family: ClassVar[str] = "per-class-leave"
    leave: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        leave = numbers(self.leave, f"shading rule {self.name!r}", "leave shares")
        if len(leave) != len(BID_CLASSES):
            raise InputError(f"shading rule {self.name!r}: one leave share per bid class {BID_CLASSES}, got {leave}")
        for c, q in zip(BID_CLASSES, leave):
            if not (math.isfinite(q) and 0 <= q <= 1):
                raise InputError(f"shading rule {self.name!r}: leave share of class {c!r} must be in [0, 1], got {q}")
        object.__setattr__(self, "leave", leave)

    @property
    def truthful(self) -> bool:
        """Never: a rule that may leave is not the truthful reference (even with every share 0)."""
        return False

    @property
    def leave_by_class(self) -> tuple[float, float, float]:  # type: ignore[override]
        """The share of each private-bid class that takes the outside option."""
        return self.leave

    def params(self) -> dict:
        """``{"family": "per-class-leave", "betas": [...], "leave": [...]}``: part of every stored run's key."""
        return {"family": self.family, "betas": list(self.betas), "leave": list(self.leave)}

    def entry(self) -> dict:
        """``{"family": "per-class-leave", "beta": {...}, "leave": {...}}`` (and the description)."""
        return {"family": self.family, **super().entry(), "leave": dict(zip(BID_CLASSES, self.leave))}


def parent_table(where: str, root: str, name: str) -> str:
    """``where`` and the table that holds ``root`` (``[game.shading]`` for ``[game.shading.x]``), as the
    shading rules' messages name them."""
    inner = root.strip("[]")
    parent = inner[: -len(name)].rstrip(".") if inner.endswith(name) else ""
    return f"{where}: [{parent}]" if parent else f"{where}: "


class PerClassFamily(ParametricFamily):
    """Shading with a beta per private-bid class: the box ``[0, 1)^3`` of (low, middle, high)."""

    name = "per-class"
    description = "a beta per private-bid class (low, middle, high): w (1 - beta_c U)"
    param_names = BID_CLASSES
    bounds = ((0.0, 1.0),) * len(BID_CLASSES)

    def from_entry(self, name: str, entry: dict, where: str, root: str) -> dict[str, ConsumerStrategy]:
        """``beta = 0.5`` or ``beta = {low, middle, high}`` (``ShadingEntry``)."""
        check(ShadingEntry, entry, where, root=root)
        return {name: ShadingRule.from_entry(name, entry, parent_table(where, root, name))}

    def from_params(self, params: Mapping, name: str = "") -> ShadingRule:
        """The rule of stored ``{"betas": [low, middle, high]}``."""
        return ShadingRule(name, tuple(params["betas"]))

    def owns(self, params: Mapping) -> bool:
        """Stored per-class parameters: ``betas`` without a ``family`` (they predate the key)."""
        return "betas" in params and "family" not in params

    def make(self, x: np.ndarray, name: str, description: str) -> ShadingRule:
        """The rule with betas ``x`` (low, middle, high)."""
        return ShadingRule(name, tuple(float(v) for v in x), description)

    def coordinates(self, strategy: ConsumerStrategy) -> np.ndarray:
        """The rule's betas (low, middle, high)."""
        return np.array(strategy.params()["betas"], dtype=float)


PER_CLASS = register(PerClassFamily())


class PerClassLeaveFamily(ParametricFamily):
    """Shading with a beta per private-bid class and, per class, the share of its jobs that take the outside option:
    the box ``[0, 1)^6`` of (low, middle, high, leave_low, leave_middle, leave_high). A catalogue entry may send a
    whole class (share 1); the box reaches just below it (a search's default bounds end at 0.99)."""

    name = "per-class-leave"
    description = "a beta per private-bid class and the share of each class that takes the outside option"
    param_names = BID_CLASSES + tuple(f"leave_{c}" for c in BID_CLASSES)
    bounds = ((0.0, 1.0),) * (2 * len(BID_CLASSES))

    def from_entry(self, name: str, entry: dict, where: str, root: str) -> dict[str, ConsumerStrategy]:
        """``beta`` and ``leave`` as ``per-class`` reads them (``ShadingEntry``); always a :class:`LeavingRule`."""
        check(ShadingEntry, entry, where, root=root)
        rule = ShadingRule.from_entry(name, entry, parent_table(where, root, name))
        if not isinstance(rule, LeavingRule):
            rule = LeavingRule(rule.name, rule.betas, rule.description, (0.0, 0.0, 0.0))
        return {name: rule}

    def from_params(self, params: Mapping, name: str = "") -> LeavingRule:
        """The rule of stored ``{"family": "per-class-leave", "betas": [...], "leave": [...]}``."""
        return LeavingRule(name, tuple(params["betas"]), "", tuple(params["leave"]))

    def make(self, x: np.ndarray, name: str, description: str) -> LeavingRule:
        """The rule with betas ``x[:3]`` and leave shares ``x[3:]``."""
        k = len(BID_CLASSES)
        return LeavingRule(name, tuple(float(v) for v in x[:k]), description, tuple(float(v) for v in x[k:]))

    def coordinates(self, strategy: ConsumerStrategy) -> np.ndarray:
        """The rule's betas and leave shares."""
        p = strategy.params()
        return np.array(list(p["betas"]) + list(p.get("leave", [0.0] * len(BID_CLASSES))), dtype=float)


PER_CLASS_LEAVE = register(PerClassLeaveFamily())
