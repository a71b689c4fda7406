"""Consumer strategies: one interface (``base.ConsumerStrategy``), one module per family.

- :mod:`gamemarket.consumers.base`: the interface, families (``Family``, ``ParametricFamily``), the
  registry ``FAMILIES``, the private-bid classes, and ``population_bids`` (a population's reported bids);
- :mod:`gamemarket.consumers.betamix`: beta mixes (``beta-mix``), the bimatrix studies' strategies;
- :mod:`gamemarket.consumers.shading`: a beta per private-bid class (``per-class``), the population
  studies' shading rules;
- :mod:`gamemarket.consumers.piecewise`: beta piecewise linear in the private bid (``piecewise``).

Importing the package registers every family. See ``docs/explanation/consumer-strategies.md``.
"""

from gamemarket.consumers.base import (
    BID_CLASSES,
    FAMILIES,
    HIGH_MIN,
    LOW_MAX,
    ConsumerStrategy,
    Family,
    ParametricFamily,
    bid_bin,
    bid_bin_codes,
    family_of,
    from_entry,
    from_params,
    population_bids,
    register,
)
from gamemarket.consumers.betamix import FT, NAMED_MIXES, SRG, BetaMix, grid_name
from gamemarket.consumers.piecewise import KNOTS, PiecewiseRule
from gamemarket.consumers.shading import ShadingRule

FAMILIES.seal()  # the families above are built in: never replaced (``gamemarket.registry.Registry.seal``)

__all__ = [
    "BID_CLASSES",
    "FAMILIES",
    "FT",
    "HIGH_MIN",
    "KNOTS",
    "LOW_MAX",
    "NAMED_MIXES",
    "SRG",
    "BetaMix",
    "ConsumerStrategy",
    "Family",
    "ParametricFamily",
    "PiecewiseRule",
    "ShadingRule",
    "bid_bin",
    "bid_bin_codes",
    "family_of",
    "from_entry",
    "from_params",
    "grid_name",
    "population_bids",
    "register",
]
