"""Exceptions raised on bad input; the CLI turns them into a message and a non-zero exit. The checks of the arguments
every part's API shares (a seed, a count, a flag: :func:`check_seed`, :func:`check_whole`, :func:`check_flag`), here
because the parts that stand alone (``pricing``) may import nothing else of the package. And how foreign code (a
plugin's) is kept apart from gamemarket's: its exceptions as a message of ours (:func:`raised`), its prints off
the command's output (:func:`foreign_prints`)."""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import re
import sys
import threading
import time
from pathlib import Path

import numpy as np

_PRINTS_LOCK = threading.Lock()
_PRINTS = {"depth": 0, "saved": None}


#: a numpy scalar's repr (``np.float64(inf)``, ``np.int64(3)``): numpy 2 writes one where a message formats a value
#: with ``!r``; a message shows the number it is, as it would show a Python number
_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|bool)\w*\(([^()]*)\)|\bnp\.(True|False)_\b")


def plain_numbers(text: str) -> str:
    """``text`` with each numpy scalar repr in it (``np.float64(2.5)``, ``np.True_``) written as the Python value
    it is (``2.5``, ``True``)."""
    return _NUMPY_SCALAR.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)


class GameMarketError(Exception):
    """Base class of every error gamemarket raises on purpose. Its message shows numbers as numbers: a numpy
    scalar's repr in it (``np.float64(2.5)``, from a value formatted with ``!r``) is written as the number, in the
    command's message and in the Python API's exception alike (:func:`plain_numbers`)."""

    def __init__(self, *args):
        if args and isinstance(args[0], str):
            args = (plain_numbers(args[0]), *args[1:])
        super().__init__(*args)


class InputError(GameMarketError, ValueError):
    """Bad input: the message names the file, line or field and what was expected."""


#: the largest seed: what a stored run's int64 column and numpy's generators hold (the study schema's bound too)
SEED_MAX = 2**63 - 1


def check_whole(value, what: str, minimum: int = 0, maximum: int | None = None) -> int:
    """``value`` as an int: a whole number >= ``minimum`` (and <= ``maximum`` where given; an int or a numpy
    integer), else an :class:`InputError` naming ``what`` and the value. A bool, a float (2.5, or 3.0), a text or
    None is refused: a count of 0 or -5 steps ran one step and answered as if the count were meant, ``None`` was a
    ``TypeError`` from ``int()``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{what} must be a whole number >= {minimum}, got {shown_value(value)}")
    if maximum is not None and value > maximum:
        top = "2**63 - 1" if maximum == SEED_MAX else f"{maximum:,}"
        raise InputError(f"{what} must be a whole number from {minimum} to {top}, got {shown_value(value)}")
    return int(value)


#: the longest time limit (115 days): beyond it, the clocks that wait on a child process overflow
MAX_TIME_LIMIT = 1e7


#: numba's compile-time listener (:func:`compile_seconds`), registered at the first look once numba is imported
_COMPILING: list = []
_COMPILING_LOCK = threading.Lock()


def compile_seconds() -> float:
    """Seconds numba has spent compiling in this process since this was first asked (0 before numba is imported):
    a time limit counts a search's own work, not the compiling its compiled code needs once after an install (hunts
    30b-W3, 30c-W3: a 2-strategy EGTA game stopped at the 10 s limit in its first solve; a first `price solve` of
    200 jobs spent 17.7 s compiling, past any limit under 19 s). Loading from numba's cache is no compiling."""
    if "numba" not in sys.modules:  # (nothing compiled can run yet: the listener waits for numba's import)
        return 0.0
    with _COMPILING_LOCK:
        if not _COMPILING:
            from numba.core import event  # deferred: numba (imported already: only then can anything compile)

            class Compiling(event.Listener):
                """numba's compiles' seconds, the outermost of nested ones counted; an end whose start it did not see
                (registered while another thread compiled) is left alone (numba's TimingListener went to a depth
                of -1 there, and counted nothing more: the review)."""

                def __init__(self):
                    self.depth, self.start, self.seconds = 0, 0.0, 0.0

                def on_start(self, ev):
                    if self.depth == 0:
                        self.start = time.perf_counter()
                    self.depth += 1

                def on_end(self, ev):
                    if self.depth == 0:
                        return
                    self.depth -= 1
                    if self.depth == 0:
                        self.seconds += time.perf_counter() - self.start

            listener = Compiling()
            event.register("numba:compile", listener)
            _COMPILING.append(listener)
    return _COMPILING[0].seconds


def limit_clock() -> float:
    """The clock a time limit is read on, in seconds: ``time.perf_counter()`` less numba's compiling
    (:func:`compile_seconds`); a deadline is a reading of it plus the limit."""
    return time.perf_counter() - compile_seconds()


def check_time_limit(value, what: str = "time_limit") -> float | None:
    """``value`` as seconds (a float), or None for no limit; anything but a finite number > 0 is an
    :class:`~gamemarket.errors.InputError` naming the value."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what}: expected a number of seconds > 0, or None for no limit; got {value!r}")
    v = float(value)
    if not math.isfinite(v) or v <= 0 or v > MAX_TIME_LIMIT:
        raise InputError(
            f"{what}: expected a number of seconds > 0 and <= {MAX_TIME_LIMIT:g}, or None for no limit; got {value!r}"
        )
    return v


def check_seed(seed, what: str = "seed") -> int:
    """A random seed as an int: a whole number from 0 to 2**63 - 1 (:func:`check_whole`), else an
    :class:`InputError` naming the value (numpy's ``ValueError`` for -1, ``int()``'s ``TypeError`` for None, and a
    seed of 10**30 taken, that no stored run's int64 column holds, before)."""
    return check_whole(seed, what, 0, SEED_MAX)


def check_flag(value, what: str, *, none: bool = False) -> bool | None:
    """A yes-or-no argument: True or False (or None where ``none`` allows it: "decide for me"), else an
    :class:`InputError` naming the value (``complete='yes'`` was taken as true, and ``'no'`` as true too)."""
    if (value is None and none) or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise InputError(f"{what} must be True or False{' (or None)' if none else ''}, got {value!r}")


def check_text(value, what: str, *, empty: bool = False, none: bool = False) -> str | None:
    """A name, a description, a title: a ``str`` (non-blank unless ``empty``; None where ``none`` allows it), else an
    :class:`InputError` naming ``what`` and the value (a number or a list as a name was formatted into messages and
    file names as whatever its ``str()`` gave)."""
    if value is None and none:
        return None
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise InputError(f"{what} must be a{'' if empty else ' non-empty'} text, got {shown_value(value)}")
    return value


def check_real(
    value,
    what: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    above: bool = False,
    none: bool = False,
) -> float | None:
    """A real number as a float: an int or a float (numpy's too), finite, ``>= minimum`` (``> minimum`` where
    ``above``) and ``<= maximum``; None where ``none`` allows it. Else an :class:`InputError` naming ``what`` and the
    value: a bool, a text, a list, NaN or an integer beyond float range is refused."""
    if value is None and none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} must be a number, got {shown_value(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(f"{what} must be a finite number, got {shown_value(value)}") from None
    if not np.isfinite(number):
        raise InputError(f"{what} must be a finite number, got {shown_value(value)}")
    if minimum is not None and (number <= minimum if above else number < minimum):
        raise InputError(f"{what} must be {'>' if above else '>='} {minimum:g}, got {shown_value(value)}")
    if maximum is not None and number > maximum:
        raise InputError(f"{what} must be <= {maximum:g}, got {shown_value(value)}")
    return number


def check_instance(value, kind: type | tuple, what: str, expected: str):
    """``value`` if it is a ``kind`` (an isinstance check), else an :class:`InputError`: "``what`` must be
    ``expected``, got ..." (an AttributeError from deep inside, before)."""
    if not isinstance(value, kind):
        raise InputError(f"{what} must be {expected}, got {shown_value(value)} ({type(value).__name__})")
    return value


def check_path(value, what: str, *, none: bool = False):
    """A file or folder argument as a :class:`pathlib.Path`: a ``str`` or an ``os.PathLike`` (None where ``none``
    allows it), else an :class:`InputError` naming ``what`` and the value (pathlib's bare ``TypeError``, before)."""
    if value is None and none:
        return None
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise InputError(f"{what} must be a path (a str or an os.PathLike), got {shown_value(value)}")
    return Path(value)


#: what a pool says when one of its worker processes was killed: joblib's (loky), the standard library's, dask's; and
#: ours, once a study has named the runs that were unfinished (:class:`WorkerLost`)
WORKER_DEATHS = ("TerminatedWorkerError", "BrokenProcessPool", "KilledWorker", "WorkerLost")


def worker_died(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what it was raised from) says a worker process of a pool died."""
    while exc is not None:
        if any(c.__name__ in WORKER_DEATHS for c in type(exc).__mro__):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class WorkerLost(RuntimeError):
    """A worker process died while some runs were unfinished; ``runs`` names them (raised from the pool's own
    error, which says how it died)."""

    def __init__(self, runs: list[str]):
        self.runs = list(runs)
        shown = ", ".join(self.runs[:3]) + (f" and {len(self.runs) - 3} more" if len(self.runs) > 3 else "")
        super().__init__(f"{len(self.runs)} run(s) unfinished: {shown}" if self.runs else "no run unfinished")


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


#: the most digits of a whole number's text read as its number (:func:`whole_number`)
WHOLE_DIGITS = 40


def whole_number(text: str) -> int:
    """``int(text)`` of an ASCII whole number's text (``[+-]?digits``), where one of more than :data:`WHOLE_DIGITS`
    digits (leading zeros aside) is read as ``10**WHOLE_DIGITS`` with its sign: past every bound a count or a time
    is held to, and Python reads no whole number of more than 4,300 digits (its ``ValueError`` was a traceback where a
    trace's ``MaxProcs`` held 5,000, hunt 36b-F2)."""
    digits = text.strip().lstrip("+-").lstrip("0")
    if len(digits) > WHOLE_DIGITS:
        return (-1 if text.strip().startswith("-") else 1) * 10**WHOLE_DIGITS
    return int(text)


def shown_number(text: str, width: int = 40) -> str:
    """A number's text as written, or where longer than ``width`` its first digits and its count of characters
    (a 5,000-digit header field was quoted whole)."""
    text = str(text)
    return text if len(text) <= width else f"{text[: width // 2]}...({len(text):,} characters)"


def shown_name(name) -> str:
    """An unknown name as a message shows it: its ``repr``, and where it holds characters beyond ASCII, its ASCII
    spelling too (hunt 40b-W3: a utility ``l\u043eg``, its "o" Cyrillic, was refused as "unknown utility 'lоg'",
    which looks exactly like the ``log`` the message then lists as accepted)."""
    if isinstance(name, str) and not name.isascii():
        return f"{name!r} (written {ascii(name)}: not every character is the ASCII one it may look like)"
    return repr(name)


def shown_value(value, width: int = 80) -> str:
    """A value foreign code returned, for a one-line message: its ``repr`` cut to ``width`` characters, an integer
    too long for that as its first digits and its number of digits (``10**400``: ``10000000000...
    (401 digits)``), an array as its first elements and its dtype."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 200:
        if abs(value).bit_length() > 14000:  # str() refuses more than 4300 digits (sys.set_int_max_str_digits)
            return f"{'-' if value < 0 else ''}~2**{abs(value).bit_length() - 1}"
        text = str(value)
        return f"{text[:12]}... ({len(text.lstrip('-'))} digits)"
    try:
        text = " ".join(repr(value).split())
    except Exception:  # noqa: BLE001 - a foreign object's __repr__, whatever it raises
        text = f"(a {type(value).__name__} whose repr() raised)"
    return text if len(text) <= width else text[:width] + "..."


def shown_list(items, limit: int = 10) -> str:
    """A list of names in a one-line message: its first ``limit`` items as a list's ``repr`` and how many more (an
    egta-online game declaring 200,000 strategies named each in its error, 2 MB on one line: hunt 17a)."""
    items = list(items)
    head = repr(items[:limit])
    return head if len(items) <= limit else f"{head[:-1]}, ... and {len(items) - limit:,} more]"


def real_numbers(raw):
    """What foreign code (a plugin's) returned for an array of real numbers, as float64: ``(array, None)``, or
    ``(None, problem)`` with the problem in words naming the first bad value (``"element 3 is 10000000000...
    (401 digits) (int), beyond float range"``). Accepted: integers and floats, numpy's or Python's, in a numeric
    array or an object array (Python integers of any size, as long as a float holds them). Refused: a text, a
    bool, a complex number, None, an object, an integer beyond float range (float() of it overflows, where numba
    would wrap it around): a bid or a key made of it is no number the engine can hold. Whether the values are
    finite is the caller's to check (it names what it expected)."""
    try:
        arr = np.asarray(raw)
    except Exception as exc:  # noqa: BLE001 - a ragged list, a foreign object's __array__
        return None, f"not an array of numbers ({raised(exc)})"
    kind = arr.dtype.kind
    if kind in "iuf":
        return arr.astype(np.float64, copy=False), None
    if kind != "O":
        flat = arr.reshape(-1)
        first = f" (element 0 is {shown_value(flat[0].item())})" if flat.size else ""
        return None, f"an array of dtype {arr.dtype}{first}, not of real numbers"
    out = np.empty(arr.shape, np.float64)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            return None, f"element {i} is {shown_value(v)} ({type(v).__name__}), not a real number"
        try:
            flat[i] = float(v)
        except OverflowError:
            return None, f"element {i} is {shown_value(v)} ({type(v).__name__}), beyond float range"
    return out, None


def no_such(path, what: str) -> str:
    """ "PATH: no such WHAT", and where the path is ``-`` that standard input is named ``/dev/stdin`` here (hunt
    22b-W4: "-: no such job table" left the usual convention unexplained)."""
    shown = str(path) if str(path).isprintable() else repr(str(path))
    text = f"{shown}: no such {what}"
    if str(path) == "-":
        text += " (standard input is named /dev/stdin here, not -: for example `... /dev/stdin < FILE`)"
    return text


def underflows(text: str) -> bool:
    """Whether a number's text, which float() read as 0, is not 0: a digit other than 0 in its mantissa (``1e-400``,
    ``0.0001e-320``; not ``0.0e5`` or ``-0``)."""
    return any(c in "123456789" for c in text.split("e")[0].split("E")[0])
