"""gamemarket: game-theoretic analysis of computing markets.

Data flows one way: workload -> bids -> simulation -> outcomes -> payoffs -> game -> report.
"""

__version__ = "0.1.0"

#: Bumped whenever a change alters simulation results; part of every stored result's key.
MODEL_VERSION = "2"

from gamemarket.errors import GameMarketError, InputError  # noqa: E402

__all__ = ["__version__", "MODEL_VERSION", "GameMarketError", "InputError"]
