"""Private bids (a truncated normal mixture), reported bids (beta mixes), common random numbers.

Market model section 3. For one seed, three independent streams are spawned from
``numpy.random.SeedSequence(seed)``: stream 0 draws private bids, stream 1 the group draws
``G_i``, stream 2 the shading draws ``U_i``. The draws are a function of (seed, number of jobs)
only, never of the scheduler, payment scheme, beta mix or number of processes, so every profile
of one seed shares them (common random numbers).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gamemarket.errors import InputError


@dataclass(frozen=True)
class BidDistribution:
    """A mixture of normal components ``(weight, mean, sd)`` truncated to ``[lo, hi]``.

    A draw outside the interval is discarded and the whole mixture draw (component and value)
    is repeated. The default is the paper's bimodal population.
    """

    components: tuple[tuple[float, float, float], ...] = ((0.8, 30.0, 15.0), (0.2, 150.0, 15.0))
    lo: float = 0.0
    hi: float = 180.0

    def __post_init__(self) -> None:
        comps = tuple(tuple(float(x) for x in c) for c in self.components)
        object.__setattr__(self, "components", comps)
        if not comps:
            raise InputError("bid distribution: at least one component (weight, mean, sd) is needed")
        for k, c in enumerate(comps):
            if len(c) != 3:
                raise InputError(f"bid distribution: component {k} must be (weight, mean, sd), got {c}")
            w, m, s = c
            if not (math.isfinite(w) and w > 0):
                raise InputError(f"bid distribution: component {k} weight must be > 0, got {w}")
            if not (math.isfinite(m) and math.isfinite(s) and s >= 0):
                raise InputError(f"bid distribution: component {k} needs a finite mean and sd >= 0, got {c}")
        if abs(sum(c[0] for c in comps) - 1.0) > 1e-9:
            raise InputError(f"bid distribution: component weights must sum to 1, got {sum(c[0] for c in comps)}")
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and 0 <= self.lo < self.hi):
            raise InputError(f"bid distribution: need 0 <= lo < hi, got [{self.lo}, {self.hi}]")

    def sample(self, size: int, rng: np.random.Generator, max_rounds: int = 10_000) -> np.ndarray:
        """``size`` draws; rejected draws are redrawn whole, in rounds, in job order."""
        weights = np.array([c[0] for c in self.components])
        means = np.array([c[1] for c in self.components])
        sds = np.array([c[2] for c in self.components])
        cum = np.cumsum(weights)
        cum[-1] = 1.0
        out = np.empty(size)
        todo = np.arange(size)
        for _ in range(max_rounds):
            if todo.size == 0:
                return out
            comp = np.searchsorted(cum, rng.random(todo.size), side="right")
            vals = means[comp] + sds[comp] * rng.standard_normal(todo.size)
            ok = (vals >= self.lo) & (vals <= self.hi)
            out[todo[ok]] = vals[ok]
            todo = todo[~ok]
        raise InputError("bid distribution: almost no mass inside [lo, hi]; rejection sampling gave up")


@dataclass(frozen=True)
class BetaMix:
    """An ordered list of consumer groups ``(fraction, beta)``.

    Job ``i`` is in group ``g`` iff ``cum_{g-1} <= G_i < cum_g`` (the last ``cum`` is exactly 1),
    and reports ``rw_i = w_i * (1 - beta_g * U_i)``.
    """

    groups: tuple[tuple[float, float], ...]
    name: str = ""

    def __post_init__(self) -> None:
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
        cum = np.cumsum([f for f, _ in self.groups])
        cum[-1] = 1.0
        return cum

    @property
    def betas(self) -> np.ndarray:
        return np.array([b for _, b in self.groups])

    def assign(self, G: np.ndarray) -> np.ndarray:
        """Group index of each job from its group draw ``G``."""
        return np.searchsorted(self.cum, G, side="right").astype(np.int64)

    def report(self, w: np.ndarray, G: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(group, reported bid) of every job."""
        g = self.assign(G)
        return g, w * (1.0 - self.betas[g] * U)

    @classmethod
    def parse(cls, text: str) -> "BetaMix":
        """``FT``, ``SRG`` or ``f:b,f:b,...`` (for example ``0.9:0.1,0.1:0.9``)."""
        key = text.strip()
        if key.upper() in NAMED_MIXES:
            return NAMED_MIXES[key.upper()]
        groups = []
        for part in key.split(","):
            m = re.fullmatch(r"\s*([^:\s]+)\s*:\s*([^:\s]+)\s*", part)
            if not m:
                raise InputError(f"beta mix {text!r}: expected FT, SRG or 'fraction:beta,...', got part {part!r}")
            try:
                groups.append((float(m.group(1)), float(m.group(2))))
            except ValueError as exc:
                raise InputError(f"beta mix {text!r}: {exc}") from exc
        return cls(tuple(groups), name=key)


FT = BetaMix(((1.0, 0.0),), name="FT")
SRG = BetaMix(((0.9, 0.1), (0.1, 0.9)), name="SRG")
NAMED_MIXES = {"FT": FT, "SRG": SRG}


@dataclass(frozen=True)
class Draws:
    """The common random numbers of one seed: private bids, group draws, shading draws."""

    private_bid: np.ndarray
    G: np.ndarray
    U: np.ndarray


def draw(n_jobs: int, seed: int, distribution: BidDistribution | None = None) -> Draws:
    """Every job's private bid and its group and shading draws, from independent streams."""
    if n_jobs < 0:
        raise InputError(f"n_jobs must be >= 0, got {n_jobs}")
    if int(seed) < 0:
        raise InputError(f"seed must be >= 0, got {seed}")
    distribution = distribution or BidDistribution()
    s_bid, s_group, s_shade = np.random.SeedSequence(int(seed)).spawn(3)
    w = distribution.sample(n_jobs, np.random.default_rng(s_bid))
    G = np.random.default_rng(s_group).random(n_jobs)
    U = np.random.default_rng(s_shade).random(n_jobs)
    return Draws(w, G, U)


def job_table(jobs: pd.DataFrame, mix: BetaMix, seed: int, distribution: BidDistribution | None = None,
              draws: Draws | None = None) -> pd.DataFrame:
    """The section-8 job table: workload columns plus ``private_bid``, ``reported_bid``, ``group``."""
    if draws is None:
        draws = draw(len(jobs), seed, distribution)
    group, rw = mix.report(draws.private_bid, draws.G, draws.U)
    out = jobs.copy()
    out["private_bid"] = draws.private_bid
    out["reported_bid"] = rw
    out["group"] = group
    return out


#: Bid bins of the reports, on the private bid: low [0, 60], middle (60, 120), high [120, 180].
def bid_bin_codes(w: np.ndarray) -> np.ndarray:
    """0 low, 1 middle, 2 high."""
    w = np.asarray(w)
    return np.where(w <= 60, 0, np.where(w < 120, 1, 2)).astype(np.int8)


def bid_bin(w: np.ndarray) -> np.ndarray:
    return np.array(["low", "middle", "high"])[bid_bin_codes(w)]
