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
from typing import ClassVar

import numpy as np
from pydantic import Field

from gamemarket.consumers.base import BID_CLASSES, ConsumerStrategy, Fraction01, ParametricFamily, register
from gamemarket.errors import InputError
from gamemarket.io.schema import Table, check


class ShadingEntry(Table):
    """A shading rule of a population game: a beta per private-bid class (missing classes: 0)."""

    beta: Fraction01 | dict[str, Fraction01] = Field(description="one beta for all classes, or {low, middle, high}")
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
        try:
            betas = tuple(float(b) for b in self.betas)
        except (TypeError, ValueError) as exc:
            raise InputError(f"shading rule {self.name!r}: betas must be numbers: {exc}") from None
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
        """``beta = 0.5`` or ``beta = {low = 0, middle = 0, high = 0.9}`` (missing classes: 0)."""
        if not isinstance(entry, dict):
            raise InputError(f"{where}: shading rule {name!r}: expected a table with 'beta'")
        unknown = sorted(set(entry) - {"beta", "description"})
        if unknown:
            raise InputError(
                f"{where}: shading rule {name!r}: unknown field(s) {unknown}; allowed: ['beta', 'description']"
            )
        if "beta" not in entry:
            raise InputError(f"{where}: shading rule {name!r}: missing field 'beta'")
        b = entry["beta"]
        if isinstance(b, dict):
            bad = sorted(set(b) - set(BID_CLASSES))
            if bad:
                raise InputError(
                    f"{where}: shading rule {name!r}: field 'beta': unknown bid class(es) {bad}; "
                    f"classes: {list(BID_CLASSES)}"
                )
            betas = tuple(b.get(c, 0.0) for c in BID_CLASSES)
        elif isinstance(b, (int, float)) and not isinstance(b, bool):
            betas = (b, b, b)
        else:
            raise InputError(
                f"{where}: shading rule {name!r}: field 'beta' must be a number or a table per bid class, got {b!r}"
            )
        try:
            return cls(name, betas, str(entry.get("description", "")))
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None


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
