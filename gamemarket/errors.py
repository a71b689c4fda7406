"""Exceptions raised on bad input; the CLI turns them into a message and a non-zero exit. And how foreign code (a
plugin's) is kept apart from gamemarket's: its exceptions as a message of ours (:func:`raised`), its prints off
the command's output (:func:`foreign_prints`)."""

from __future__ import annotations

import contextlib
import sys
import threading

_PRINTS_LOCK = threading.Lock()
_PRINTS = {"depth": 0, "saved": None}


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


@contextlib.contextmanager
def foreign_prints():
    """Run foreign code (a plugin's, as it loads or runs) with what it prints sent to stderr: a command's stdout is
    its result (``--format json`` is read by programs), and a worker process's stdout is its parent's.

    Unlike ``contextlib.redirect_stdout``, safe where threads nest it (a dask worker's threads): the first to enter
    sends ``sys.stdout`` to stderr, the last to leave puts it back. What compiled code (a numba-compiled rate
    function's ``print``) writes to the file descriptor itself is not caught."""
    with _PRINTS_LOCK:
        if _PRINTS["depth"] == 0:
            _PRINTS["saved"] = sys.stdout
            sys.stdout = sys.stderr
        _PRINTS["depth"] += 1
    try:
        yield
    finally:
        with _PRINTS_LOCK:
            _PRINTS["depth"] -= 1
            if _PRINTS["depth"] == 0:
                sys.stdout, _PRINTS["saved"] = _PRINTS["saved"], None


class UndefinedPayoffError(InputError):
    """A game's payoff is undefined for every strategy (a per-group payoff in a study without that group)."""
