"""Allocation of fungible resources by price discovery (pricing model): problem, utilities, solver."""

#: Bumped whenever a solver change can alter results; part of the stored-result key of pricing tasks.
SOLVER_VERSION = "4"

from gamemarket.pricing.allocation import Allocation  # noqa: E402
from gamemarket.pricing.problem import Problem, load, synthetic  # noqa: E402
from gamemarket.pricing.solver import Result, TimeLimitReached, solve  # noqa: E402
from gamemarket.pricing.utilities import Linear, Log, Power, Target, Utility, make_utility, register_utility  # noqa: E402

__all__ = [
    "SOLVER_VERSION",
    "Allocation",
    "Linear",
    "Log",
    "Power",
    "Problem",
    "Result",
    "Target",
    "TimeLimitReached",
    "Utility",
    "load",
    "make_utility",
    "register_utility",
    "solve",
    "synthetic",
]
