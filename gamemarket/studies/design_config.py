"""A study's ``[design]`` table: a family of provider mechanisms with declared bounds, and what the provider wants.

A *parametric mechanism* is a scheduler with the reserve ``r`` in ``[0, R]`` and, for ``payment = "blend"``, the
payment blend ``alpha`` in ``[0, 1]`` between k-th price (0) and first price (1) (market model, "Parametric
mechanisms"). Each parameter is searched over ``[low, high]`` or fixed; a point of the family is a provider strategy
like ``hb-first``, named from its parameters (``hb-blend[r=12.5,a=0.3]``), stored and keyed like any other: its
parameters are a :class:`gamemarket.market.simulate.Mechanism`'s.

The provider's objective is a weighted sum of the metrics of ``DESIGN_METRICS`` at the consumers' equilibrium
(revenue, welfare, the welfare of everyone, the share of jobs that stay, utilization), optionally under constraints
(the least mean of a metric, such as ``stay >= 0.8``). The table's types and ranges are declared once, in
:class:`gamemarket.studies.schema.DesignTable`; :class:`DesignConfig` is checked against it on construction.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass

import numpy as np

from gamemarket.errors import InputError
from gamemarket.io.schema import check
from gamemarket.market.payments import BLEND
from gamemarket.market.simulate import Mechanism
from gamemarket.studies.schema import DESIGN_METRICS, DesignTable
from gamemarket.studies.strategies import ProviderStrategy

#: a searched parameter's points are rounded to a power of ten at most this share of its range (:func:`resolution`): a
#: point has a short exact name, and the search does not run twice what it has already run
RESOLUTION = 1e-3
#: the parameters of the family, in the order of a point's coordinates
PARAMETERS = ("reserve", "blend")
#: how a point's name writes each parameter
SHORT = {"reserve": "r", "blend": "a"}


@dataclass(frozen=True)
class DesignConfig:
    """The ``[design]`` table, checked (:class:`~gamemarket.studies.schema.DesignTable`)."""

    reserve: float | tuple[float, float]
    budget: int
    schedulers: tuple[str, ...] = ("hb",)
    payment: str = BLEND
    blend: float | tuple[float, float] | None = None
    objective: tuple = (("revenue", 1.0),)  #: (metric, weight) pairs
    constraint: tuple = ()  #: (metric, least mean) pairs
    optimiser: str = "gp"
    confirm_seeds: int = 8
    contenders: int = 4
    seed: int = 0
    compare: tuple[str, ...] | None = None
    explore: bool = False  #: grow the menu at each point by the study's exploration (warm-started)

    def __post_init__(self) -> None:
        check(DesignTable, self.table(), "", root="[design]")
        for s in self.schedulers:
            try:
                Mechanism(s, self.payment, 1.0, blend=0.5 if self.payment == BLEND else None)
            except InputError as exc:
                raise InputError(f"[design] field 'schedulers' or 'payment': {exc}") from None
        # every list of the table refuses a name twice alike (hunt 18a, W5: ``compare = ["hb-first", "hb-first"]``
        # passed where ``schedulers = ["hb", "hb"]`` was refused); reserve and blend are [low, high], low < high
        for name, what, items in (("schedulers", "scheduler", self.schedulers), ("compare", "mechanism", self.compare)):
            if items is not None and len(set(items)) != len(items):
                raise InputError(f"[design] field {name!r}: a {what} is listed twice in {list(items)}")
        if not self.box():
            raise InputError("[design]: no parameter is searched; give 'reserve' (or 'blend') as [low, high]")
        if self.optimiser == "grid" and self.budget < 2 ** len(self.box()):  # found when the study is read
            raise InputError(grid_too_small(len(self.box()), self.budget))

    @classmethod
    def from_table(cls, d: dict) -> DesignConfig:
        """From the checked table (``DesignTable.model_dump()``)."""
        tup = lambda v: tuple(v) if isinstance(v, list) else v  # noqa: E731 - a bound or a fixed value
        return cls(
            reserve=tup(d["reserve"]),
            budget=int(d["budget"]),
            schedulers=tuple(d["schedulers"]),
            payment=d["payment"],
            blend=tup(d.get("blend")),
            objective=tuple(sorted(d["objective"].items())),
            constraint=tuple(sorted(d["constraint"].items())),
            optimiser=d["optimiser"],
            confirm_seeds=int(d["confirm_seeds"]),
            contenders=int(d["contenders"]),
            seed=int(d["seed"]),
            compare=tuple(d["compare"]) if d.get("compare") is not None else None,
            explore=bool(d.get("explore", False)),
        )

    def table(self) -> dict:
        """The ``[design]`` table that reads back to an equal config (``StudySpec.to_dict`` writes it)."""
        lst = lambda v: list(v) if isinstance(v, tuple) else v  # noqa: E731
        out = {
            "schedulers": list(self.schedulers),
            "payment": self.payment,
            "reserve": lst(self.reserve),
            "objective": dict(self.objective),
            "constraint": dict(self.constraint),
            "budget": self.budget,
            "optimiser": self.optimiser,
            "confirm_seeds": self.confirm_seeds,
            "contenders": self.contenders,
            "seed": self.seed,
        }
        if self.blend is not None:
            out["blend"] = lst(self.blend)
        if self.compare is not None:
            out["compare"] = list(self.compare)
        if self.explore:
            out["explore"] = True
        return out

    # ------------------------------------------------------------------ the family
    def box(self) -> list[tuple[str, float, float]]:
        """The searched parameters: ``(name, low, high)`` each, in ``PARAMETERS`` order."""
        out = []
        for p in PARAMETERS:
            v = getattr(self, p)
            if isinstance(v, tuple):
                out.append((p, float(v[0]), float(v[1])))
        return out

    def values(self, x) -> dict:
        """Every parameter's value at searched coordinates ``x`` (rounded to ``RESOLUTION`` of its range), the fixed
        ones as given; an ``InputError`` names a coordinate outside its bounds."""
        box = self.box()
        x = np.asarray(x, dtype=float).ravel()
        if len(x) != len(box):
            raise InputError(f"[design]: expected {len(box)} coordinates ({[b[0] for b in box]}), got {len(x)}")
        out = {p: getattr(self, p) for p in PARAMETERS if not isinstance(getattr(self, p), tuple)}
        for (p, lo, hi), v in zip(box, x):
            if not (math.isfinite(v) and lo - 1e-12 <= v <= hi + 1e-12):
                raise InputError(f"[design]: parameter {p!r} must be in [{lo:g}, {hi:g}], got {v!r}")
            out[p] = snap(v, lo, hi)
        return out

    def point(self, scheduler: str, x) -> ProviderStrategy:
        """The provider strategy of the family at searched coordinates ``x`` for ``scheduler``, named from its
        parameters (``hb-blend[r=12.5,a=0.3]``)."""
        v = self.values(x)
        blend = v.get("blend") if self.payment == BLEND else None
        mech = Mechanism(scheduler, self.payment, float(v["reserve"]), blend=None if blend is None else float(blend))
        parts = [f"r={mech.reserve:.10g}"] + ([f"a={mech.blend:.10g}"] if blend is not None else [])
        name = f"{scheduler}-{self.payment}[{','.join(parts)}]"
        desc = f"{scheduler} with payment {self.payment}" + (f" {mech.blend:g}" if blend is not None else "")
        return ProviderStrategy(
            name, "scheduling", tuple(sorted(mech.describe().items())), f"{desc}, r = {mech.reserve:g}"
        )

    def coordinates(self, provider: ProviderStrategy) -> list[float]:
        """The searched coordinates of one of the family's points."""
        params = provider.params()
        return [float(params[p]) for p, _, _ in self.box()]

    # ------------------------------------------------------------------ the provider's aims
    def objective_of(self, figures: dict) -> float:
        """The weighted sum of ``figures`` (metric -> value) the provider maximises."""
        return float(sum(w * float(figures[m]) for m, w in self.objective))

    def feasible(self, figures: dict) -> bool:
        """Whether ``figures`` (means) meet every constraint."""
        return all(float(figures[m]) >= lo for m, lo in self.constraint)


def resolution(lo: float, hi: float) -> float:
    """The step a searched parameter's values of range ``[lo, hi]`` are rounded to: the largest power of ten at most
    ``RESOLUTION`` of the range (0.01 for [0, 60]). A step of 0.06, the range's own share, moved a regular grid's
    20 and 40 to 19.98 and 40.02, where the outside price was 20 (hunt 21c-F1); a decimal step keeps every grid point
    that is a multiple of it where it is."""
    return 10.0 ** math.floor(math.log10(RESOLUTION * (hi - lo)) + 1e-9)  # (a range of 0.001 read as 0.000999...)


def snap(v: float, lo: float, hi: float) -> float:
    """``v`` rounded to a multiple of :func:`resolution` within ``[lo, hi]`` (ends included), as a short exact
    decimal."""
    step = resolution(lo, hi)
    short = float(f"{round(float(v) / step) * step:.12g}")
    return min(max(short, lo), hi)  # the multiple nearest an end may lie just outside it: the end itself


#: what each optimiser of the design search needs that may not be installed: (its modules, as imported; the
#: distribution that brings them; the extra that installs it)
OPTIMISER_LIBRARIES = {
    "gp": (("bayes_opt", "sklearn"), "bayesian-optimization", "design"),
    "tpe": (("optuna",), "optuna", "explore"),
}


def optimiser_missing(optimiser: str) -> InputError:
    """The error of a ``[design]`` whose optimiser's library is not installed: what to install, what to choose."""
    _, dist, extra = OPTIMISER_LIBRARIES[optimiser]
    others = " or ".join(repr(o) for o in ("gp", "tpe", "grid") if o != optimiser)
    return InputError(
        f"[design] field 'optimiser': {optimiser!r} needs {dist}; install it with `pip install gamemarket[{extra}]`, "
        f"or choose {others}"
    )


def check_optimiser_library(optimiser: str) -> None:
    """Raise :func:`optimiser_missing` where the optimiser's library is not installed (found without importing it:
    the study is read before any run, and the libraries are slow to import)."""
    modules = OPTIMISER_LIBRARIES.get(optimiser, ((),))[0]
    if any(importlib.util.find_spec(m) is None for m in modules):
        raise optimiser_missing(optimiser)


def grid_too_small(dims: int, budget: int) -> str:
    """The message of a grid budget below ``2 ** dims`` (two points a side, the box's ends)."""
    return (
        f"[design] field 'budget': a grid over {dims} parameter(s) needs at least {2**dims} points (2 a side), "
        f"got {budget}"
    )


def parse_design(table, where: str) -> DesignConfig | None:
    """``[design]`` (checked by the schema) as a config; None where the study has none; an error names the file and
    the field. The optimiser's library is checked here, when the study is read, not after its first runs."""
    if table is None:
        return None
    try:
        cfg = DesignConfig.from_table(table.model_dump())
        check_optimiser_library(cfg.optimiser)
        return cfg
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


__all__ = [
    "DESIGN_METRICS",
    "DesignConfig",
    "check_optimiser_library",
    "grid_too_small",
    "optimiser_missing",
    "parse_design",
    "snap",
]
