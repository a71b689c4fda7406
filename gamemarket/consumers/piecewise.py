"""Shading as a piecewise-linear function of the private bid: a parametric family on fixed knots.

A job with private bid ``w`` reports ``w (1 - beta(w) U)``, where ``beta`` interpolates linearly between
its values at fixed knots (by default 7 knots over [0, 180]: 0, 30, ..., 180) and is constant beyond the
end knots. Each knot's value lies in [0, 1), so ``beta(w)`` does too. The family ``piecewise`` is the box
``[0, 1)^7``; a catalogue entry is ``family = "piecewise"`` with ``betas = [seven numbers]``.

It refines ``per-class``: a rule that shades only high bids becomes one whose beta rises with the bid.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from pydantic import Field

from gamemarket.bids import private_bids
from gamemarket.consumers.base import (
    ConsumerStrategy,
    Fraction01,
    ParametricFamily,
    check_strategy_name,
    numbers,
    register,
)
from gamemarket.errors import InputError, check_text
from gamemarket.io.schema import Table, check

#: the family's knots: private bids 0, 30, ..., 180 (the bid distribution's default range)
KNOTS = tuple(float(k) for k in np.linspace(0.0, 180.0, 7))


class PiecewiseEntry(Table):
    """A piecewise-linear shading rule: ``betas``, the beta at each of the family's knots."""

    betas: list[Fraction01] = Field(min_length=1, max_length=1000, description="beta at each knot, in [0, 1)")
    description: str = ""


@dataclass(frozen=True)
class PiecewiseRule(ConsumerStrategy):
    """Shade by ``beta(w)``, linear between ``betas`` at ``knots`` (increasing), constant beyond them."""

    family: ClassVar[str] = "piecewise"
    name: str
    knots: tuple[float, ...]
    betas: tuple[float, ...]
    description: str = ""

    def __post_init__(self) -> None:
        check_strategy_name(self.name, "piecewise rule: name")
        label = f"piecewise rule {self.name!r}"
        check_text(self.description, f"{label}: description", empty=True)
        knots = numbers(self.knots, label, "knots")
        betas = numbers(self.betas, label, "betas")
        if len(knots) < 2 or not all(math.isfinite(k) for k in knots) or any(b <= a for a, b in zip(knots, knots[1:])):
            raise InputError(f"{label}: field 'knots': expected at least 2 increasing finite numbers, got {knots}")
        if len(betas) != len(knots):
            raise InputError(f"{label}: field 'betas': expected one beta per knot ({len(knots)}), got {len(betas)}")
        for k, b in zip(knots, betas):
            if not (math.isfinite(b) and 0 <= b < 1):
                raise InputError(f"{label}: field 'betas': the beta at knot {k:g} must be in [0, 1), got {b}")
        object.__setattr__(self, "knots", knots)
        object.__setattr__(self, "betas", betas)

    def beta(self, private_bid: np.ndarray) -> np.ndarray:
        """``beta(w)`` of each private bid (a number or an array of finite bids in ``[0, MAX_BID]``, else an
        :class:`InputError` naming the first bad bid: ``bids.private_bids``)."""
        return self._beta_of(private_bids(private_bid, f"piecewise rule {self.name!r}: beta: private_bid"))

    def _beta_of(self, private_bid: np.ndarray) -> np.ndarray:
        """:meth:`beta` without its checks: the engine's private bids, once per run (:meth:`reported_bids`)."""
        return np.interp(np.asarray(private_bid, dtype=float), self.knots, self.betas)

    def params(self) -> dict:
        """``{"family": "piecewise", "knots": [...], "betas": [...]}``: part of every stored run's key."""
        return {"family": self.family, "knots": list(self.knots), "betas": list(self.betas)}

    def consumer_groups(self) -> tuple[tuple[float, float], ...]:
        """One group, every job; its largest beta."""
        return ((1.0, max(self.betas)),)

    def entry(self) -> dict:
        """``{"family": "piecewise", "betas": [...]}`` (and the description)."""
        return {
            "family": self.family,
            "betas": list(self.betas),
            **({"description": self.description} if self.description else {}),
        }

    def reported_bids(
        self, private_bid: np.ndarray, bid_class: np.ndarray, G: np.ndarray, U: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(group 0, ``w (1 - beta(w) U)``) of every job."""
        return np.zeros(len(private_bid), dtype=np.int64), private_bid * (1.0 - self._beta_of(private_bid) * U)


class PiecewiseFamily(ParametricFamily):
    """Beta as a piecewise-linear function of the private bid on fixed ``knots``: the box ``[0, 1)^k``.

    Parameters
    ----------
    knots : sequence of float
        Increasing private bids; the registered family uses ``KNOTS`` (7 over [0, 180]).
    """

    name = "piecewise"
    description = "beta linear in the private bid between fixed knots (0, 30, ..., 180): w (1 - beta(w) U)"

    def __init__(self, knots=KNOTS):
        self.knots = tuple(float(k) for k in knots)
        self.param_names = tuple(f"beta_{k:g}" for k in self.knots)
        self.bounds = ((0.0, 1.0),) * len(self.knots)

    def from_entry(self, name: str, entry: dict, where: str, root: str) -> dict[str, ConsumerStrategy]:
        """``betas = [...]``, one per knot (``PiecewiseEntry``)."""
        check(PiecewiseEntry, entry, where, root=root)
        if len(entry["betas"]) != self.dimension:
            raise InputError(
                f"{where}: {root} field 'betas': expected {self.dimension} values (the betas at knots "
                f"{[f'{k:g}' for k in self.knots]}), got {len(entry['betas'])}"
            )
        return {name: PiecewiseRule(name, self.knots, tuple(entry["betas"]), str(entry.get("description", "")))}

    def from_params(self, params: Mapping, name: str = "") -> PiecewiseRule:
        """The rule of stored parameters; knots other than the family's are an error naming the field."""
        knots = tuple(float(k) for k in params.get("knots", ()))
        if knots != self.knots:
            raise InputError(
                f"consumer strategy {name!r}: field 'knots': family {self.name!r} has knots "
                f"{list(self.knots)}, got {list(knots)}"
            )
        return PiecewiseRule(name, self.knots, tuple(params["betas"]))

    def make(self, x: np.ndarray, name: str, description: str) -> PiecewiseRule:
        """The rule with the betas ``x`` at the knots."""
        return PiecewiseRule(name, self.knots, tuple(float(v) for v in x), description)

    def coordinates(self, strategy: ConsumerStrategy) -> np.ndarray:
        """The rule's betas at the knots."""
        return np.array(strategy.params()["betas"], dtype=float)


PIECEWISE = register(PiecewiseFamily())
