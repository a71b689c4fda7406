"""Games: the bimatrix from payoff tables, equilibria (verified), robustness, import/export."""

from gamemarket.games.bimatrix import Game, from_results
from gamemarket.games.equilibria import Equilibrium, Solution, pure_equilibria, regret, solve

__all__ = ["Equilibrium", "Game", "Solution", "from_results", "pure_equilibria", "regret", "solve"]
