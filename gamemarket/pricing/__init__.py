"""Allocation of fungible resources by price discovery (pricing model): problem, utilities, solver."""

from gamemarket.pricing.problem import Problem, load, synthetic
from gamemarket.pricing.solver import Allocation, Result, solve
from gamemarket.pricing.utilities import Linear, Log, Power, Target, Utility, make_utility, register_utility

__all__ = ["Allocation", "Linear", "Log", "Power", "Problem", "Result", "Target", "Utility", "load", "make_utility",
           "register_utility", "solve", "synthetic"]
