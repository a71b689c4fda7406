"""Checks of payoff matrices that the games and their solvers share (numpy only: the solvers' registry is read by
the command line, which loads no pandas)."""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from numbers import Real

import numpy as np

from gamemarket.errors import InputError, underflows


def check_finite(M: np.ndarray, what: str, rows=None, cols=None) -> None:
    """Refuse a payoff matrix with a NaN or infinite entry, naming the entry, or whose range is beyond the float range
    (:func:`check_range`).

    Two passes over the payoffs and no array made: the least and the largest are finite exactly where every payoff is
    (a NaN is either's answer, an infinity one of them); only a matrix that fails is searched for its first bad entry
    (a mask of every entry was a 144 MB array and a third pass of a 12,000 x 12,000 game, each time a game was made or
    solved, hunt 34b-F1)."""
    M = np.asarray(M, dtype=float)
    if M.size == 0:
        return
    lo, hi = M.min(), M.max()
    if not (np.isfinite(lo) and np.isfinite(hi)):
        bad = ~np.isfinite(M)
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        r = rows[idx[0]] if rows is not None else idx[0]
        c = cols[idx[1]] if cols is not None and len(idx) > 1 else (idx[1] if len(idx) > 1 else "")
        raise InputError(f"{what}: payoff at ({r}, {c}) is {float(M[bad][0])!r}; every payoff must be a finite number")
    _check_spread(float(lo), float(hi), what)


#: the largest integer below which every integer is a float exactly (2^53)
EXACT_INTEGERS = 2**53


def inexact_message(value, where: str) -> str:
    """What is said of an integer payoff that no float holds exactly (:func:`exact_payoff`,
    :func:`check_exact_integers`)."""
    try:
        rounded = f"to {float(value):.17g}"
    except OverflowError:  # (beyond the float range: 10**400)
        rounded = "this one past the float range"
    if rounded == "to inf" or rounded == "to -inf":  # (a whole number's text past the range: float() says inf)
        rounded = "this one past the float range"
    shown = str(value) if len(str(value)) <= 40 else f"{str(value)[:20]}...({len(str(value)):,} digits)"
    return (
        f"{where}: the payoff {shown} is not exactly a floating-point number (integers beyond 2^53 = "
        f"{EXACT_INTEGERS:,} round: {rounded}); gamemarket solves in floating point, where such payoffs' "
        "differences are lost and the equilibria change: subtract a common offset from the player's payoffs, or "
        "rescale them (a positive affine map of a player's payoffs leaves the equilibria as they are)"
    )


#: a whole number written as one, or a ratio of two (Gambit's rationals): the texts held to the exact-integer rule
WHOLE_TEXT = re.compile(r"[+-]?[0-9]+(/[+-]?[0-9]*[1-9][0-9]*)?")


def exact_payoff(value, where: str) -> float:
    """An integer payoff (a Python or numpy integer, or a whole-number text: ``"4611686018427387905"``, a whole
    rational ``"10/2"``) as the float that holds it exactly, else an :class:`InputError` saying so: matching pennies
    shifted by 2^62 was read as four pure equilibria of regret 0, its payoffs rounded to 2^62 each (hunt 18a-F5).
    Any other value (a decimal fraction, a float) is returned as ``float(value)``: its rounding is the format's."""
    whole = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        whole = int(value)
    elif isinstance(value, str):
        if "_" in value:  # (Python's 1_000 is no number of a game's file: hunt 19b-W2)
            raise ValueError(f"{value!r} holds '_'")
        if not value.isascii():  # (float() reads Arabic-Indic and full-width digits: "١٢" was 12, hunt 28c-W2)
            raise ValueError(f"{value!r} holds characters that are not ASCII")
        if not WHOLE_TEXT.fullmatch(value.strip()):  # a float's notation ("1.7e308", "0.1"): the format's rounding
            out = float(value)  # (and what float() reads otherwise, "inf": its caller's checks say the rest)
            if out == 0 and underflows(value):  # (1e-400 read as 0: the game of equal payoffs answered, 28b-F2)
                raise InputError(
                    f"{where}: {value.strip()[:40]} is below the float range (it reads as 0); rescale the payoffs (a "
                    "positive multiple has the same equilibria)"
                )
            return out
        try:
            q = Fraction(value.strip())
        except ValueError:  # (more digits than Python reads as a whole number, 4,300: a traceback, hunt 36b-F1)
            raise InputError(inexact_message(value.strip(), where)) from None
        if q.denominator != 1:  # a rational: divided exactly, rounded once (29b-F1, F2: 10^400/3 a traceback, and
            # 1/10^400 read as 0 without a word)
            try:
                out = float(q)
            except OverflowError:
                return math.inf if q > 0 else -math.inf  # (its caller says "beyond the float range", as of 1e400)
            if out == 0:
                raise InputError(
                    f"{where}: {value.strip()[:40]} is below the float range (it reads as 0); rescale the payoffs (a "
                    "positive multiple has the same equilibria)"
                )
            return out
        whole = q.numerator
    if whole is not None and abs(whole) >= EXACT_INTEGERS:
        try:
            exact = float(whole) == whole
        except OverflowError:
            exact = False
        if not exact:
            raise InputError(inexact_message(whole, where))
    return float(value) if whole is None else float(whole)


def check_exact_integers(M: np.ndarray, what: str, rows=None, cols=None) -> None:
    """Refuse an integer array (``int64``, ``uint64``, ...) holding a payoff that no float holds exactly, naming the
    first (:func:`exact_payoff`); a float array passes (its values are floats already)."""
    M = np.asarray(M)
    if M.dtype.kind not in "iu" or M.size == 0:
        return
    if np.iinfo(M.dtype).max < EXACT_INTEGERS:  # (int8 to int32 hold none: no pass over a 144-million-cell game)
        return
    big = np.flatnonzero(
        (M.ravel() >= EXACT_INTEGERS) | ((M.ravel() <= -EXACT_INTEGERS) if M.dtype.kind == "i" else False)
    )
    for k in big:
        v = int(M.ravel()[k])
        if float(v) != v:
            idx = np.unravel_index(k, M.shape)
            r = rows[idx[0]] if rows is not None else int(idx[0])
            c = (cols[idx[1]] if cols is not None else int(idx[1])) if len(idx) > 1 else ""
            raise InputError(inexact_message(v, f"{what}: payoff at ({r}, {c})"))


def check_told_apart(M: np.ndarray, what: str, rows=None, cols=None) -> None:
    """Refuse a float array wider than float64 (``np.longdouble``) two of whose payoffs float64 cannot tell apart, or
    holding a payoff that float64 takes for 0, naming the first pair: rounding them changes the game (matching pennies
    shifted by 2^62 as float128, or staked at 1e-400, was answered as the game of equal payoffs, hunt 28b-F1, F2). A
    payoff that float64 merely rounds (0.1) and keeps apart from the others is read as rounded, as in every format."""
    M = np.asarray(M)
    if M.dtype.kind != "f" or M.dtype.itemsize <= 8 or M.size == 0:
        return
    flat = M.ravel()
    with np.errstate(over="ignore", under="ignore"):
        low = flat.astype(np.float64)
    for lost, where, reads in (
        (np.flatnonzero((low == 0) & (flat != 0)), "below", "0"),
        # (hunt 29b-W2: 1e400 as float128 was numpy's "overflow encountered in cast" twice, then "is inf")
        (np.flatnonzero(np.isinf(low) & np.isfinite(flat)), "beyond", "infinity"),
    ):
        if len(lost):
            k = int(lost[0])
            raise InputError(
                f"{what}: payoff at {_cell(k, M.shape, rows, cols)}: {_wide(flat[k])} is {where} the float range "
                f"(float64 reads it as {reads}); expected payoffs that float64 holds: rescale them (a positive "
                "multiple has the same equilibria)"
            )
    values, first = np.unique(flat, return_index=True)
    same = np.flatnonzero(np.diff(values.astype(np.float64)) == 0)
    if len(same):
        a, b = first[same[0]], first[same[0] + 1]
        raise InputError(
            f"{what}: the payoffs at {_cell(int(a), M.shape, rows, cols)} and {_cell(int(b), M.shape, rows, cols)} "
            f"({_wide(flat[a])}, {_wide(flat[b])}) differ, and float64, which the solvers compute in, holds them as "
            "one number: expected payoffs that float64 tells apart (subtract a common offset, or rescale)"
        )


def _wide(v) -> str:
    """A float wider than float64 as it is (an f-string shows it through float64: 1e-4000 was "0.0", hunt 29b-W2)."""
    return np.format_float_scientific(v, unique=True, trim="-")


def _cell(k: int, shape, rows, cols) -> str:
    """The ``(row, column)`` of a flat index ``k``, by the strategies' names where given."""
    i, j = np.unravel_index(k, shape) if len(shape) == 2 else (k, 0)
    return f"({rows[i] if rows is not None else int(i)}, {cols[j] if cols is not None else int(j)})"


def check_rel_tol(rel_tol, what: str = "rel_tol") -> float:
    """A solver's relative regret tolerance as a float in (0, 1): a profile is an equilibrium where each player's
    regret is at most ``rel_tol`` times its payoffs' spread. Else an :class:`InputError` naming the value: the bimatrix
    solver took -1 (no equilibrium at all: a regret of 0 above it) and 10 (every profile an equilibrium)."""
    ok = isinstance(rel_tol, Real) and not isinstance(rel_tol, (bool, np.bool_))
    if not ok or not math.isfinite(float(rel_tol)) or not 0 < float(rel_tol) < 1:
        raise InputError(f"{what} must be in (0, 1), got {rel_tol!r}")
    return float(rel_tol)


def check_range(values: np.ndarray, what: str) -> None:
    """Refuse finite payoffs whose range (largest less smallest) is beyond the float range: every solver measures
    regret and precision in units of that range (1e308 and -1e308 gave uniform QRE and alpha-rank answers)."""
    v = np.asarray(values, dtype=float)
    if v.size:
        _check_spread(float(v.min()), float(v.max()), what)


def _check_spread(lo: float, hi: float, what: str) -> None:
    """:func:`check_range` of the least payoff ``lo`` and the largest ``hi``."""
    with np.errstate(over="ignore"):
        spread = np.float64(hi) - np.float64(lo)
    if not np.isfinite(spread):
        raise InputError(
            f"{what}: payoffs range from {lo:g} to {hi:g}, a difference beyond the float range; rescale them "
            "(the solvers measure regret in units of the payoffs' range)"
        )


def same_values(a, b) -> bool:
    """Whether two field values are equal by value: arrays element by element (NaN equal to NaN, shape and all),
    tables by ``DataFrame.equals``, dicts, lists and tuples item by item, anything else by ``==``. (A dataclass's
    generated ``==`` compared arrays with ``==``: "the truth value of an array ... is ambiguous".)"""
    if a is b:
        return True
    if callable(getattr(a, "equals", None)) and not isinstance(a, np.ndarray):  # a pandas table or series
        return type(a) is type(b) and bool(a.equals(b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=True))
        except TypeError:  # text or objects: no NaN to equate
            return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b) or (a != a and b != b)  # (NaN in a summary equals NaN)
    except (TypeError, ValueError):
        return False


def same_fields(one, other) -> bool:
    """Whether two dataclass instances hold equal values in every field (:func:`same_values`)."""
    return all(same_values(getattr(one, f.name), getattr(other, f.name)) for f in dataclasses.fields(one))


def check_real(value, what: str) -> None:
    """Refuse complex payoffs, naming ``what``: made float, numpy drops the imaginary part with no more than a
    ComplexWarning, and another game is solved than the one given (hunt 40a-W1)."""
    try:
        complex_ = np.iscomplexobj(value)
    except (ValueError, TypeError):  # ragged rows, a string: the conversion after names what is wrong
        return
    if complex_:
        raise InputError(
            f"{what}: complex numbers ({np.asarray(value).dtype}); expected real payoffs (the imaginary parts would be "
            "dropped: take the real parts, or the magnitudes, yourself)"
        )


def check_payoff_pair(A, B) -> tuple[np.ndarray, np.ndarray]:
    """Two payoff matrices as float arrays, checked (non-empty, one shape, real numbers, finite), else an
    :class:`InputError` naming what they were ("abc" was numpy's "could not convert string to float")."""
    check_real(A, "row player's payoffs")
    check_real(B, "column player's payoffs")
    try:
        A = np.asarray(A, dtype=float)
        B = np.asarray(B, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"payoff matrices must be numbers, got {A!r:.60} and {B!r:.60} ({exc})") from None
    if A.ndim != 2 or A.shape != B.shape or A.size == 0:
        raise InputError(f"payoff matrices must be non-empty and of one shape, got {A.shape} and {B.shape}")
    check_finite(A, "row player's payoffs")
    check_finite(B, "column player's payoffs")
    return A, B
