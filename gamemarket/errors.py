"""Exceptions raised on bad input; the CLI turns them into a message and a non-zero exit."""


class GameMarketError(Exception):
    """Base class of every error gamemarket raises on purpose."""


class InputError(GameMarketError, ValueError):
    """Bad input: the message names the file, line or field and what was expected."""


class UndefinedPayoffError(InputError):
    """A game's payoff is undefined for every strategy (a per-group payoff in a study without that group)."""
