"""Beta mixes: the consumer strategies of bimatrix studies (market model section 3.2).

A beta mix splits the jobs into groups by their group draw ``G`` and each group shades by its own
beta: job ``i`` of group ``g`` reports ``w_i (1 - beta_g U_i)``. Catalogue entries (``consumers.toml``)
are ``groups = [[share, beta], ...]``, or the ``[grid]`` table of ``g<fraction>x<beta>`` cells.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar

import numpy as np
from pydantic import Field

from gamemarket.consumers.base import ConsumerStrategy, Family, Fraction01, check_strategy_name, register
from gamemarket.errors import InputError, check_real, check_text, real_numbers, shown_value
from gamemarket.io.schema import Table, check


class ConsumerMix(Table):
    """A named beta mix: groups [share, beta] whose shares sum to 1 (market model section 4)."""

    groups: list[Annotated[list[float], Field(min_length=2, max_length=2)]] = Field(
        min_length=1, max_length=1000, description="[share of the jobs, beta] per group"
    )
    description: str = ""


class ConsumerGrid(Table):
    """The beta-mix grid: a cell ``g<f>x<b>`` for each aggressive fraction f and beta b."""

    aggressive_fractions: list[Annotated[float, Field(gt=0, le=1)]] = Field(min_length=1, max_length=100)
    aggressive_betas: list[Fraction01] = Field(min_length=1, max_length=100)
    conservative_beta: Fraction01 = 0.0
    description: str = ""


@dataclass(frozen=True)
class BetaMix(ConsumerStrategy):
    """An ordered list of consumer groups ``(fraction, beta)``.

    Job ``i`` is in group ``g`` iff ``cum_{g-1} <= G_i < cum_g`` (the last ``cum`` is exactly 1),
    and reports ``rw_i = w_i * (1 - beta_g * U_i)``.
    """

    family: ClassVar[str] = "beta-mix"
    groups: tuple[tuple[float, float], ...]
    name: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        check_strategy_name(self.name, "beta mix: name")
        check_text(self.description, f"beta mix {self.name!r}: description", empty=True)
        try:
            groups = tuple((float(f), float(b)) for f, b in self.groups)
        except (TypeError, ValueError) as exc:
            raise InputError(f"beta mix {self.name!r}: groups must be (fraction, beta) pairs: {exc}") from exc
        object.__setattr__(self, "groups", groups)
        label = f"beta mix {self.name!r}" if self.name else "beta mix"
        if not groups:
            raise InputError(f"{label}: at least one group (fraction, beta) is needed")
        for k, (f, b) in enumerate(groups):
            if not (math.isfinite(f) and 0 < f <= 1):
                raise InputError(f"{label}: group {k} fraction must be in (0, 1], got {f}")
            if not (math.isfinite(b) and 0 <= b < 1):
                raise InputError(f"{label}: group {k} beta must be in [0, 1), got {b}")
        total = sum(f for f, _ in groups)
        if abs(total - 1.0) > 1e-9:
            raise InputError(f"{label}: group fractions must sum to 1, got {total!r}")

    @property
    def cum(self) -> np.ndarray:
        """The groups' cumulative fractions, the last exactly 1: group ``g`` holds ``cum[g-1] <= G < cum[g]``."""
        cum = np.cumsum([f for f, _ in self.groups])
        cum[-1] = 1.0
        return cum

    @property
    def betas(self) -> np.ndarray:
        """Each group's shading factor beta."""
        return np.array([b for _, b in self.groups])

    def params(self) -> dict:
        """The beta mix's groups ``[[share, beta], ...]``: part of every task's key."""
        return {"groups": [list(g) for g in self.groups]}

    def consumer_groups(self) -> tuple[tuple[float, float], ...]:
        """The mix's groups ``(share, beta)``."""
        return self.groups

    def entry(self) -> dict:
        """``{"groups": [[share, beta], ...]}`` (and the description)."""
        return {**self.params(), **({"description": self.description} if self.description else {})}

    def assign(self, G: np.ndarray) -> np.ndarray:
        """Group index of each job from its group draw ``G`` (a number or an array of draws in ``[0, 1)``, else an
        :class:`InputError` naming the first bad draw)."""
        draws, problem = real_numbers(G)
        if problem:
            raise InputError(
                f"beta mix {self.name!r}: assign: G must be group draws (numbers in [0, 1)), got {problem}"
            )
        if draws.size and not (draws.min() >= 0 and draws.max() < 1):  # NaN fails both comparisons
            bad = draws[~((draws >= 0) & (draws < 1))].ravel()[0]
            raise InputError(
                f"beta mix {self.name!r}: assign: a group draw G is {float(bad)!r}; expected draws in [0, 1), got "
                f"G = {shown_value(G)}"
            )
        return self._groups_of(G)

    def _groups_of(self, G: np.ndarray) -> np.ndarray:
        """:meth:`assign` without its checks: the engine's draws, once per run (:meth:`report`)."""
        return np.searchsorted(self.cum, G, side="right").astype(np.int64)

    def reported_bids(
        self, private_bid: np.ndarray, bid_class: np.ndarray, G: np.ndarray, U: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(group, reported bid) of every job; a beta mix ignores the bid class."""
        return self.report(private_bid, G, U)

    def report(self, w: np.ndarray, G: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(group, reported bid) of every job."""
        g = self._groups_of(G)
        return g, w * (1.0 - self.betas[g] * U)

    @classmethod
    def parse(cls, text: str) -> "BetaMix":
        """``FT``, ``SRG`` or ``f:b,f:b,...`` (for example ``0.9:0.1,0.1:0.9``)."""
        key = check_text(text, "BetaMix.parse: text (FT, SRG or 'fraction:beta,...')").strip()
        if key.upper() in NAMED_MIXES:
            return NAMED_MIXES[key.upper()]
        groups = []
        for part in key.split(","):
            m = re.fullmatch(r"\s*([^:\s]+)\s*:\s*([^:\s]+)\s*", part)
            if not m:
                raise InputError(f"beta mix {text!r}: expected FT, SRG or 'fraction:beta,...', got part {part!r}")
            try:
                groups.append((float(m.group(1)), float(m.group(2))))
            except ValueError:  # (float()'s "could not convert string to float: 'grid'" said nothing of the form)
                raise InputError(
                    f"beta mix {text!r}: part {part.strip()!r} is not fraction:beta with two numbers (as 0.9:0.1); "
                    "expected FT, SRG or 'fraction:beta,...'"
                ) from None
        return cls(tuple(groups), name=key)


FT = BetaMix(((1.0, 0.0),), name="FT")
SRG = BetaMix(((0.9, 0.1), (0.1, 0.9)), name="SRG")
NAMED_MIXES = {"FT": FT, "SRG": SRG}


def grid_name(fraction: float, beta: float) -> str:
    """The name of a beta-grid cell: ``g<fraction>x<beta>``; ``fraction`` a number in (0, 1] and ``beta`` one in
    [0, 1), as the grid's fields (``ConsumerGrid``) take them, else an :class:`InputError` naming the argument."""
    check_real(fraction, "grid_name: fraction (the aggressive group's share)", minimum=0, maximum=1, above=True)
    if check_real(beta, "grid_name: beta (the aggressive group's shading factor)", minimum=0, maximum=1) >= 1:
        raise InputError(
            f"grid_name: beta (the aggressive group's shading factor) must be < 1, got {shown_value(beta)}"
        )
    return f"g{fraction:g}x{beta:g}"


class BetaMixFamily(Family):
    """Beta mixes, from ``groups = [[share, beta], ...]`` entries or the ``[grid]`` table."""

    name = "beta-mix"
    description = "groups of jobs (by their group draw), each shading by its own beta"

    def from_entry(self, name: str, entry: dict, where: str, root: str) -> dict[str, ConsumerStrategy]:
        """``[name]`` with ``groups`` (``ConsumerMix``); ``[grid]`` (``ConsumerGrid``) defines a ``g<f>x<b>``
        mix per cell."""
        if name == "grid":
            return self._grid(entry, where, root)
        check(ConsumerMix, entry, where, root=root)
        try:
            mix = BetaMix(tuple(tuple(g) for g in entry["groups"]), name=name)
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: {root}: field 'groups': {exc}") from exc
        return {name: BetaMix(mix.groups, name, str(entry.get("description", "")))}

    def _grid(self, entry: dict, where: str, root: str) -> dict[str, ConsumerStrategy]:
        check(ConsumerGrid, entry, where, root=root)
        cb = entry.get("conservative_beta", 0.0)
        out: dict[str, ConsumerStrategy] = {}
        for f in entry["aggressive_fractions"]:
            for b in entry["aggressive_betas"]:
                try:
                    groups = ((1.0 - float(f), float(cb)), (float(f), float(b))) if f < 1 else ((1.0, float(b)),)
                    mix = BetaMix(groups, name=grid_name(f, b), description=f"{f:g} of jobs shade up to {b:g}")
                except (InputError, TypeError, ValueError) as exc:
                    raise InputError(f"{where}: {root}: fraction {f}, beta {b}: {exc}") from exc
                out[mix.name] = mix
        return out

    def from_params(self, params: Mapping, name: str = "") -> BetaMix:
        """The mix of stored ``{"groups": [[share, beta], ...]}``."""
        return BetaMix(tuple(tuple(g) for g in params["groups"]), name=name)

    def owns(self, params: Mapping) -> bool:
        """Stored beta-mix parameters: ``groups`` (they predate the ``family`` key)."""
        return "groups" in params and "family" not in params


BETA_MIX = register(BetaMixFamily())
