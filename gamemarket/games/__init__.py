"""Games: the bimatrix from payoff tables, equilibria (verified), robustness, import/export.

The equilibria and their registered methods load without pandas (the command line lists the methods); the
bimatrix game and its reading from results (``Game``, ``from_results``) are loaded on first use.
"""

from gamemarket.games.equilibria import (
    DEFAULT_METHODS,
    EQUILIBRIUM_METHODS,
    Equilibrium,
    Solution,
    pure_equilibria,
    regret,
    solve,
)

__all__ = [
    "DEFAULT_METHODS",
    "EQUILIBRIUM_METHODS",
    "Equilibrium",
    "Game",
    "Solution",
    "from_results",
    "pure_equilibria",
    "regret",
    "solve",
]


def __getattr__(name: str):
    """``Game`` and ``from_results`` on first use (``gamemarket.games.bimatrix``)."""
    if name not in ("Game", "from_results"):
        raise AttributeError(f"module 'gamemarket.games' has no attribute {name!r}")
    from gamemarket.games import bimatrix  # deferred: pandas (the equilibria's registry is read without it)

    return getattr(bimatrix, name)
