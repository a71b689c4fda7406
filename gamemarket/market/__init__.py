"""The scheduling market: schedulers and payment schemes (registries) and the simulation engine."""

from gamemarket.market.payments import PAYMENTS, get_payment, register_payment
from gamemarket.market.schedulers import SCHEDULERS, get_scheduler, register_scheduler
from gamemarket.market.simulate import Mechanism, RunResult, simulate, simulate_many

__all__ = [
    "PAYMENTS",
    "SCHEDULERS",
    "Mechanism",
    "RunResult",
    "get_payment",
    "get_scheduler",
    "register_payment",
    "register_scheduler",
    "simulate",
    "simulate_many",
]
