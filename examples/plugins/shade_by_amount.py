"""A consumer-strategy family not in the paper: shade by up to a fixed amount, not by up to a fraction.

The paper's consumers report ``w (1 - beta U)``: a job shades by up to a fraction ``beta`` of its private bid
``w``, scaled by its shading draw ``U`` (uniform on [0, 1)). Here a job shades by up to a fixed *amount* ``a``
per node-second, whatever its bid: it reports ``max(0, w - a U)``. A low bidder then shades a larger share of
its bid than a high one, where the paper's shading is proportional. The family ``shade-by`` is the
one-parameter box ``a in [0, 180)`` (180 is the private bids' upper end), so a study names its points as it
names the built-in families' (``family = "shade-by"``, ``amount = 20``). A strategy exploration
(``[game] exploration``) does not search it: the oracle searches boxes of shading fractions in [0, 1) on a grid
of 0.01, and refuses a family declared outside them when the study loads.

    gamemarket plugin check examples/plugins/shade_by_amount.py
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gamemarket.consumers import ConsumerStrategy, ParametricFamily, register
from gamemarket.errors import InputError

#: the private bids' upper end (``gamemarket.bids``): an amount below it leaves some bid unshaded to 0
TOP = 180.0


@dataclass(frozen=True)
class ShadeBy(ConsumerStrategy):
    """Report ``max(0, w - amount U)``: shade by up to ``amount`` per node-second."""

    family: ClassVar[str] = "shade-by"
    name: str
    amount: float
    description: str = ""

    def params(self) -> dict:
        """What determines the bids: the amount."""
        return {"family": self.family, "amount": float(self.amount)}

    def reported_bids(self, private_bid, bid_class, G, U):
        """(group 0, ``max(0, w - amount U)``) of every job."""
        w = np.asarray(private_bid, dtype=float)
        return np.zeros(len(w), dtype=np.int64), np.maximum(0.0, w - self.amount * np.asarray(U, dtype=float))

    def consumer_groups(self):
        """One group; its largest beta is the amount's share of the highest private bid."""
        return ((1.0, self.amount / TOP),)

    def entry(self) -> dict:
        """``{"family": "shade-by", "amount": a}`` (and the description)."""
        out = {"family": self.family, "amount": float(self.amount)}
        return {**out, "description": self.description} if self.description else out


class ShadeByFamily(ParametricFamily):
    """Shading by up to a fixed amount: the box ``[0, 180)`` of ``amount``."""

    name = "shade-by"
    description = "shade by up to a fixed amount a per node-second: max(0, w - a U)"
    param_names = ("amount",)
    bounds = ((0.0, TOP),)

    def from_entry(self, name: str, entry: dict, where: str, root: str) -> dict:
        """``amount = 20`` (and an optional description)."""
        unknown = sorted(set(entry) - {"amount", "description"})
        if unknown or "amount" not in entry:
            raise InputError(f"{where}: {root} expected the field 'amount' (and 'description'); got {sorted(entry)}")
        x = self.check_point([entry["amount"]], f"{where}: {root} field 'amount'")
        return {name: self.make(x, name, str(entry.get("description", "")))}

    def from_params(self, params: Mapping, name: str = "") -> ShadeBy:
        """The strategy of stored ``{"family": "shade-by", "amount": a}``."""
        return self.make(self.check_point([params["amount"]]), name, "")

    def make(self, x, name: str, description: str) -> ShadeBy:
        """The strategy shading by up to ``x[0]``."""
        return ShadeBy(name, float(x[0]), description)

    def coordinates(self, strategy) -> np.ndarray:
        """The strategy's amount."""
        return np.array([strategy.amount], dtype=float)


register(ShadeByFamily())
