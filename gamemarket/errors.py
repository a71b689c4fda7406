"""Exceptions raised on bad input; the CLI turns them into a message and a non-zero exit."""


class GameMarketError(Exception):
    """Base class of every error gamemarket raises on purpose."""


class InputError(GameMarketError, ValueError):
    """Bad input: the message names the file, line or field and what was expected."""


def raised(exc: BaseException) -> str:
    """What a foreign exception (a plugin's) says, for a message of ours: ``TYPE: its message`` on one line, or
    ``TYPE`` alone; a message that cannot be made (its ``__str__`` raises) is said to be so, rather than raising
    again while the first error is reported."""
    try:
        text = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 - the plugin's __str__, whatever it raises
        text = "(its message cannot be shown: str() of it raised)"
    return f"{type(exc).__name__}{': ' + text if text else ''}"


class UndefinedPayoffError(InputError):
    """A game's payoff is undefined for every strategy (a per-group payoff in a study without that group)."""
