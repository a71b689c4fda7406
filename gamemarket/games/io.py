"""Games in and out: tidy CSV, JSON with metadata, and Gambit's strategic-form ``.nfg`` files.

``.nfg`` (payoff version): ``NFG 1 R "title" { "P1" "P2" } { { "s1" ... } { "t1" ... } }``, a
comment string, then the payoff pairs of every profile with player 1's strategy varying fastest.
Numbers are written in positional decimal notation, shortest form that reads back to the same
double. The outcome version (a list of outcomes, then one outcome index per profile) is read too.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import unicodedata
import warnings
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from gamemarket.errors import InputError, check_path, underflows
from gamemarket.games.bimatrix import Game
from gamemarket.games.checks import EXACT_INTEGERS, WHOLE_TEXT, check_exact_integers, check_told_apart, exact_payoff
from gamemarket.io.files import atomic_path, check_input, dumps_json, fields_named, read_text
from gamemarket.io.kinds import says_it_is
from gamemarket.io.limits import check_fits, memory_limit
from gamemarket.pricing.problem import read_npz  # the .npz reader: sized from headers, never unpickling


def _num(v: float) -> str:
    return np.format_float_positional(float(v), unique=True, trim="-")


def _q(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def gambit_labels(names) -> list[str]:
    """``names`` as labels Gambit reads: printable ASCII (accents dropped, other characters ``_``), one space at a
    time, none at either end, never empty (``s1``, ...), each distinct (``~2``, ...). Gambit 16.7 refuses any
    other label ("Invalid label: a label may contain only printable ASCII characters and spaces, must not begin or
    end with a space, and must not contain two consecutive spaces"), and a study's strategies may be named in any
    script (hunt 16a: an export of ``ünï-shade`` that Gambit could not read)."""
    out, seen = [], set()
    for k, name in enumerate(names, 1):
        chars = (c for c in unicodedata.normalize("NFKD", str(name)) if not unicodedata.combining(c))
        plain = "".join(c if c.isascii() and c.isprintable() else "_" for c in chars)
        label = " ".join(w for w in plain.split(" ") if w) or f"s{k}"
        base, i = label, 2
        while label in seen:
            label, i = f"{base}~{i}", i + 1
        seen.add(label)
        out.append(label)
    return out


def to_nfg(game: Game, *, comment: str = "") -> str:
    """The game in Gambit's ``.nfg`` format (the payoff version: the strategies' names, then the payoff pairs with
    the first player's strategy varying fastest), exact for the payoffs' float values. Gambit's solvers are fragile
    on payoffs of very different sizes (:func:`rescaled` says which, and gives the form they handle). Names are
    written as labels Gambit reads (:func:`gambit_labels`); a name changed so is said in a warning."""
    m, n = game.shape
    players, rows, cols = gambit_labels(game.players), gambit_labels(game.rows), gambit_labels(game.cols)
    changed = [
        f"{old!r} -> {new!r}"
        for old, new in zip([*game.players, *game.rows, *game.cols], [*players, *rows, *cols])
        if str(old) != new
    ]
    if changed:
        warnings.warn(
            f"names written as labels Gambit reads (printable ASCII, single spaces): {', '.join(changed[:5])}"
            + (f" and {len(changed) - 5} more" if len(changed) > 5 else ""),
            stacklevel=2,
        )
    title = " ".join(gambit_labels([game.title or "gamemarket game"]))
    head = (
        f"NFG 1 R {_q(title)} {{ {_q(players[0])} {_q(players[1])} }} "
        f"{{ {{ {' '.join(_q(r) for r in rows)} }} {{ {' '.join(_q(c) for c in cols)} }} }}\n"
        f"{_q(gambit_labels([comment])[0] if comment.strip() else '')}\n\n"
    )
    pays = []
    for j in range(n):  # player 1 (rows) varies fastest
        for i in range(m):
            pays.append(f"{_num(game.A[i, j])} {_num(game.B[i, j])}")
    return head + " ".join(pays) + "\n"


def rescaled(game: Game) -> tuple[Game, dict]:
    """The game with each player's payoffs mapped affinely onto [0, 1] (``(p - low) / (high - low)``; a player whose
    payoffs are all equal gets 0 everywhere), and the map, ``{player: {"low": low, "high": high}}``.

    A positive affine map of a player's payoffs changes no best response, so the two games have the same
    equilibria. Gambit 16.7's ``enummixed`` (float and rational) returns no equilibrium of the study games whose
    provider payoffs are near 1e10 beside consumer payoffs near -1e5, and its ``lcp`` fails on them; on the rescaled
    game both find the equilibria ``game solve`` lists (``tests/games/test_gambit.py``, on every game the
    committed reports export). A report writes both forms: ``game-NAME.nfg`` exact, ``game-NAME.rescaled.nfg`` for
    Gambit, with the map in its comment."""
    maps, out = {}, []
    for who, M in zip(game.players, (game.A, game.B)):
        low, high = float(M.min()), float(M.max())
        maps[who] = {"low": low, "high": high}
        out.append((M - low) / (high - low) if high > low else np.zeros_like(M))
    title = f"{game.title} (payoffs rescaled onto [0, 1])" if game.title else "payoffs rescaled onto [0, 1]"
    return Game(out[0], out[1], list(game.rows), list(game.cols), players=game.players, title=title), maps


def rescale_comment(maps: dict) -> str:
    """The map of :func:`rescaled` in words, for the rescaled ``.nfg`` file's comment: each player's payoff ``p``
    was ``low + p x (high - low)`` in the game's own units."""
    parts = [f"{who}: p' = (p - {_num(m['low'])}) / ({_num(m['high'])} - {_num(m['low'])})" for who, m in maps.items()]
    return "each player's payoffs mapped onto [0, 1] for Gambit's solvers (the same equilibria): " + "; ".join(parts)


_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}])|(,)|([^\s{},"]+)')


#: bytes of token objects per character of an .nfg file, at most (a word of two characters and its separator: a
#: tuple of two strings, about 120 bytes)
NFG_BYTES_PER_CHAR = 60


def _tokens(text: str):
    for m in _TOKEN.finditer(text):
        if m.group(1) is not None:
            yield ("str", m.group(1).replace('\\"', '"').replace("\\\\", "\\"))
        elif m.group(2):
            yield ("brace", m.group(2))
        elif m.group(3):
            continue
        else:
            yield ("atom", m.group(4))


def _payoff(tok: str, where: str) -> float:
    """A payoff of an ``.nfg`` file: a number (:func:`_number`) that, where it is a whole number, a float holds
    exactly (:func:`exact_payoff`: Gambit reads it exactly, as a rational)."""
    value = _number(tok, where)
    if abs(value) >= EXACT_INTEGERS and WHOLE_TEXT.fullmatch(tok.strip()):  # (a whole number no float holds:
        # said as such, the float range's too; a quotient of decimals, 1e5/1e-400, is no text float() reads: 30b-F1)
        exact_payoff(tok, where)
    if not math.isfinite(value):  # ("1e400": "payoff at (2, 2) is inf" named a value no one wrote; hunt 19b-W2)
        raise InputError(
            f"{where}: {tok[:40]!r}{'...' * (len(tok) > 40)} is beyond the float range (at most about 1.8e308); "
            "rescale the payoffs"
        )
    return value


def _number(tok: str, where: str) -> float:
    """A number as Gambit writes one (a decimal, an exponent, a rational ``a/b``); Python's own forms beside those
    (``1_000``, ``inf``, ``nan``) are no number of the format (hunt 19b-W2), and one past the float range (``1e400``)
    is said as written."""
    if tok.startswith("#"):
        raise InputError(f"{where}: expected a number, got {tok[:20]!r}: an .nfg file has no comments")
    if "_" in tok or not tok.isascii() or tok.strip().lstrip("+-").lower().startswith(("inf", "nan")):
        raise InputError(f"{where}: expected a number, got {tok!r}")
    try:
        if "/" in tok:
            value, zero = _quotient(tok, where)
        else:
            value = float(tok)
            zero = not underflows(tok)
    except InputError:
        raise
    except (ValueError, ZeroDivisionError):  # "x", "1/0"
        raise InputError(f"{where}: expected a number, got {tok!r}") from None
    if value == 0 and not zero:  # (1/10^400 or 1e-400 read as 0: the game of equal payoffs answered, 28b-F2)
        raise InputError(
            f"{where}: {tok[:40]!r}{'...' * (len(tok) > 40)} is below the float range (it reads as 0); rescale the "
            "payoffs (a positive multiple has the same equilibria)"
        )
    return value


#: the largest exponent (``1e-10000``) an ``.nfg`` quotient is divided exactly with: an exact rational of 1e-N holds
#: 10^N (``1/1e-100000000`` took minutes; the file's length does not bound it), and past it no float holds the
#: parts anyway
EXACT_EXPONENT = 10_000


def _quotient(tok: str, where: str) -> tuple[float, bool]:
    """``a/b`` of an ``.nfg`` file: ``(value, whether it is 0)``, in floats where both parts and their quotient are
    held by floats, else divided exactly and rounded once (10^400/10^399 is 10: it was "beyond the float range",
    hunt 28b-W1; 1/10^400 is below the range, not 0). A ``ZeroDivisionError`` for ``b`` = 0."""
    a, b = tok.split("/")
    fa, fb = float(a), float(b)
    if fb == 0 and not underflows(b):
        raise ZeroDivisionError(tok)
    held = math.isfinite(fa) and math.isfinite(fb) and fb != 0 and not (fa == 0 and underflows(a))
    if held and math.isfinite(fa / fb) and (fa / fb != 0 or fa == 0):
        return fa / fb, fa == 0
    exponents = [abs(int(e)) for e in re.findall(r"[eE]([-+]?\d+)", tok)]
    if max(exponents, default=0) > EXACT_EXPONENT or len(tok) > 4000:  # (Python's integers stop at 4,300 digits)
        raise InputError(
            f"{where}: {tok[:40]!r}{'...' * (len(tok) > 40)} is a quotient past what float64 holds, and too large to "
            f"divide exactly (an exponent past {EXACT_EXPONENT:,}); rescale the payoffs"
        )
    q = Fraction(a) / Fraction(b)
    try:
        return float(q), q == 0
    except OverflowError:  # (copysign(inf, q) took float(q) again: 10^400/3 was a traceback, 29b-F1)
        return (math.inf if q > 0 else -math.inf), False


def _whole(v: float) -> bool:
    return bool(np.isfinite(v) and v == int(v))


#: the most strategies a player of an .nfg file may have (a bimatrix game beyond this is not solved here)
MAX_STRATEGIES = 100_000


def read_nfg(path: str | Path) -> Game:
    """Read a two-player ``.nfg`` file (payoff or outcome version)."""
    path = check_path(path, "read_nfg: path")  # (an int, bytes or None: pathlib's bare TypeError)
    text = read_text(path, "game file (.nfg)", per_char=NFG_BYTES_PER_CHAR)
    # its words, each a token object, before they are listed: a header declaring 3,000 x 3,000 took 1.5 GB and 18 s
    # to tokenise before the game's own size was checked under a 100 MB limit (hunt 23b-F4)
    check_fits(NFG_BYTES_PER_CHAR * len(text), f"{path}: reading its {len(text):,} characters of .nfg text")
    toks = list(_tokens(text))
    try:
        return _parse_nfg(toks, str(path))
    except IndexError:  # a brace list that never closes
        raise InputError(f"{path}: unexpected end of file") from None
    except InputError as exc:  # the game's own checks (distinct names, finite payoffs): say which file
        raise InputError(exc if str(exc).startswith(str(path)) else f"{path}: {exc}") from None


class _Cursor:
    """The tokens of an ``.nfg`` file and the position of the next one to read; ``where`` names the file."""

    def __init__(self, toks: list, where: str):
        self.toks, self.where, self.pos = toks, where, 0

    def take(self, kind=None, value=None):
        """The next token, which must be of ``kind`` (and ``value``) where they are given."""
        if self.pos >= len(self.toks):
            raise InputError(f"{self.where}: unexpected end of file")
        t = self.toks[self.pos]
        if (kind and t[0] != kind) or (value and t[1] != value):
            raise InputError(f"{self.where}: expected {value or kind}, got {t[1]!r}")
        self.pos += 1
        return t

    def at(self, tok: tuple) -> bool:
        """Whether the next token is ``tok``; an IndexError past the end (``read_nfg``: a list never closed)."""
        return self.toks[self.pos] == tok

    def strings(self) -> list[str]:
        """A brace list of strings, ``{ "a" "b" ... }``."""
        self.take("brace", "{")
        out = []
        while not self.at(("brace", "}")):
            out.append(self.take("str")[1])
        self.take("brace", "}")
        return out


def _parse_nfg(toks: list, where: str) -> Game:
    """The game of an ``.nfg`` file's tokens: its header (title, players, strategies), then its payoffs in
    either version, the sizes checked against what the file holds before anything is allocated."""
    cur = _Cursor(toks, where)
    # R (rational) and D (double): Gambit's two number tags, both read as Gambit reads them (hunt 17a-8: pygambit
    # 16.7 reads an 'NFG 1 D' file, which was refused)
    if cur.take("atom")[1] != "NFG" or cur.take("atom")[1] != "1" or cur.take("atom")[1] not in ("R", "D"):
        raise InputError(f"{where}: not an 'NFG 1 R' (or 'NFG 1 D') strategic-form file")
    title = cur.take("str")[1]
    players = cur.strings()
    if len(players) != 2:
        raise InputError(f"{where}: only two-player games are supported, found {len(players)} players")
    names = _nfg_strategies(cur, players)
    players, names = _named(players, names, where)
    if cur.pos < len(toks) and toks[cur.pos][0] == "str":
        cur.pos += 1  # comment
    m, n = len(names[0]), len(names[1])
    outcome_version = cur.pos < len(toks) and cur.at(("brace", "{"))
    _check_nfg_size(cur, m, n, outcome_version)
    A = np.zeros((m, n))
    B = np.zeros((m, n))
    if outcome_version:
        _nfg_outcome_payoffs(cur, A, B)
    else:
        _nfg_payoff_pairs(cur, A, B)
    return Game(A, B, names[0], names[1], players=(players[0], players[1]), title=title)


def _named(players: list[str], names: list[list[str]], where: str) -> tuple[list[str], list[list[str]]]:
    """Players and strategies a file left without a name (``""``: Gambit writes and reads them) named by their place,
    ``Player 1`` and ``1``, ``2``, ..., as a file of counted strategies names them, said in a warning (hunt 16a: a
    file Gambit reads was refused)."""
    blank = sum(not p.strip() for p in players) + sum(not s.strip() for ss in names for s in ss)
    if not blank:
        return players, names
    players = [_unused(f"Player {i}", players) if not p.strip() else p for i, p in enumerate(players, 1)]
    names = [[_unused(str(j), ss) if not s.strip() else s for j, s in enumerate(ss, 1)] for ss in names]
    warnings.warn(f"{where}: {blank} player or strategy name(s) left empty, named by their place", stacklevel=3)
    return players, names


def _unused(name: str, taken: list[str]) -> str:
    """``name``, or ``name`` with primes where the file already uses it (``{ "" "1" }``: the first is ``1'``, not a
    second ``1``, which was refused as two strategies of one name: hunt 26b-W2)."""
    while name in taken:
        name += "'"
    return name


def _nfg_strategies(cur: _Cursor, players: list[str]) -> list[list[str]]:
    """Each player's strategy names: listed (``{ { "s1" ... } { "t1" ... } }``), or counted
    (``{ 2 3 }``: named 1, 2, ...; at most ``MAX_STRATEGIES``)."""
    cur.take("brace", "{")
    names: list[list[str]] = []
    if cur.at(("brace", "{")):
        for _ in range(2):
            names.append(cur.strings())
    else:
        for who in players:
            tok = cur.take("atom")[1]
            k = _number(tok, cur.where)
            if not (_whole(k) and 1 <= k <= MAX_STRATEGIES):
                raise InputError(
                    f"{cur.where}: {who} has {tok!r} strategies; expected a whole number from 1 to {MAX_STRATEGIES:,}"
                )
            names.append([str(i + 1) for i in range(int(k))])
    cur.take("brace", "}")
    return names


def _no_comments(toks) -> str:
    """Where a count is wrong and the words hold a ``#`` (a comment, as a reader might think): that Gambit's
    format has none, so its words were counted (hunt 19b-W2: the cause was unsaid)."""
    marked = [w for kind, w in toks if kind == "atom" and w.startswith("#")]
    if not marked:
        return ""
    return f" (the words counted include {marked[0][:20]!r}: an .nfg file has no comments, every word counts)"


def _check_nfg_size(cur: _Cursor, m: int, n: int, outcome_version: bool) -> None:
    """The numbers the file still holds against an ``m x n`` game: a declared size it cannot fill is refused
    before anything is allocated, and one that would not fit in memory."""
    where, left = cur.where, len(cur.toks) - cur.pos
    if not outcome_version and left != 2 * m * n:
        raise InputError(
            f"{where}: expected {2 * m * n} payoffs for a {m}x{n} game, found {left}{_no_comments(cur.toks[cur.pos :])}"
        )
    if outcome_version and left < m * n:
        raise InputError(f"{where}: expected {m * n} outcome indices, found at most {left} tokens")
    check_fits(3 * 8 * m * n, f"{where}: a {m:,} x {n:,} game")  # its two payoff tables and the solver's copies


def _nfg_outcome_payoffs(cur: _Cursor, A: np.ndarray, B: np.ndarray) -> None:
    """The outcome version into ``A`` and ``B``: the outcomes (``{ "name" a b }`` each), then one outcome
    index per profile, player 1's strategy varying fastest (0: no outcome, payoffs 0)."""
    where, (m, n) = cur.where, A.shape
    outcomes = []
    cur.take("brace", "{")
    while cur.at(("brace", "{")):
        cur.take("brace", "{")
        cur.take("str")
        vals = []
        while not cur.at(("brace", "}")):
            vals.append(_payoff(cur.take("atom")[1], where))
        cur.take("brace", "}")
        if len(vals) != 2:
            raise InputError(f"{where}: outcome {len(outcomes) + 1} has {len(vals)} payoffs, expected 2")
        outcomes.append(vals)
    cur.take("brace", "}")
    rest = cur.toks[cur.pos :]
    idx = [_number(t[1], where) for t in rest]
    bad = [t[1] for t, v in zip(rest, idx) if not _whole(v)]
    if bad:
        raise InputError(f"{where}: outcome index {bad[0]!r} is not a whole number")
    idx = [int(v) for v in idx]
    if len(idx) != m * n:
        raise InputError(f"{where}: expected {m * n} outcome indices, found {len(idx)}{_no_comments(rest)}")
    for k, o in enumerate(idx):
        i, j = k % m, k // m
        if o == 0:
            continue
        if not 1 <= o <= len(outcomes):
            raise InputError(f"{where}: outcome index {o} out of range 0..{len(outcomes)}")
        A[i, j], B[i, j] = outcomes[o - 1]


def _nfg_payoff_pairs(cur: _Cursor, A: np.ndarray, B: np.ndarray) -> None:
    """The payoff version into ``A`` and ``B``: a pair of payoffs per profile, player 1's strategy varying
    fastest."""
    m, n = A.shape
    vals = [_payoff(t[1], cur.where) for t in cur.toks[cur.pos :]]
    if len(vals) != 2 * m * n:
        raise InputError(f"{cur.where}: expected {2 * m * n} payoffs for a {m}x{n} game, found {len(vals)}")
    for k in range(m * n):
        i, j = k % m, k // m
        A[i, j], B[i, j] = vals[2 * k], vals[2 * k + 1]


def _members(path) -> str:
    """An archive with no array numpy reads, in words: its members, where their names do not end ``.npy`` as numpy
    needs (hunt 20b-W10: ``A.NPY`` and ``B.NPY`` were "no arrays; its arrays {}")."""
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (OSError, zipfile.BadZipFile):
        return "no arrays"
    if not names:
        return "no arrays (an empty archive)"
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6:,} more" if len(names) > 6 else "")
    return f"no arrays (its members: {shown}; an array is a member named NAME.npy, as numpy.savez writes it)"


#: the arrays an ``.npz`` game holds: its two payoff matrices by name, or as ``numpy.savez`` names them given in turn
NPZ_GAME_KEYS = (("A", "B"), ("arr_0", "arr_1"))


def _check_float_copies(path, shapes) -> None:
    """A game's arrays as they are read and held, float64, three times (as stored, the conversion and the game's own
    copy), sized before any is read: a float32 archive passed the memory limit as stored, and grew to 5 times it
    (hunt 19b-F2); counted twice, a 6,000 x 6,000 game took 24 bytes a payoff at its peak (hunt 25b-F1)."""
    cells = sum(math.prod(shape) for shape in shapes if shape is not None)
    check_fits(3 * 8 * cells, f"{path}: a game of {cells:,} payoffs (as read, as float64 and the game's copy)")


def read_npz_game(path: str | Path, *, sized=None) -> Game:
    """A bimatrix game saved as arrays: an ``.npz`` holding the row player's payoffs ``A`` and the column player's
    ``B`` (``numpy.savez(path, A=A, B=B)``, or in turn, ``numpy.savez(path, *nashpy.Game(A, B).payoff_matrices)``),
    or one array of shape (2, m, n) (the two stacked). Sized from the arrays' headers before anything is inflated
    (``GAMEMARKET_MEMORY_LIMIT``), never unpickled; strategies are named r0, r1, ... and c0, c1, ... Arrays beside
    ``A`` and ``B`` are read past, named in a warning.

    The layout is told from the archive's names and headers before any array is read (``read_npz``'s ``keep``), so
    only the arrays a game reads are checked: a price-discovery problem (``A``, ``R``, ``utility``) or a ``price solve
    --out`` result was refused for the dtype of an array no game reads (hunt 18b-F8); it is named as no game.

    ``sized``, where given, is called with the game's shape ``(m, n)`` as the headers declare it, before anything is
    inflated: ``game solve`` passes :func:`gamemarket.games.equilibria.check_solvable`, so that a game the solver
    would refuse is refused before it is read (hunt 25b-F1)."""
    path = check_path(path, "read_npz_game: path")  # (an int, bytes or None: pathlib's bare TypeError)

    def layout(path, headers):
        names = set(headers)
        keys = next((k for k in (("A", "B"), ("arr_0", "arr_1")) if set(k) <= names), None)
        if keys == ("arr_0", "arr_1") and names != set(keys):
            keys = None
        if keys is None and len(names) == 1 and len(shape := next(iter(headers.values()))[0] or ()) == 3:
            keys = tuple(names) if shape[0] == 2 else None
        if keys is not None:
            shapes = [headers[k][0] for k in keys]
            _check_float_copies(path, shapes)
            shape = shapes[0][1:] if len(keys) == 1 and shapes[0] is not None else shapes[0]
            if sized is not None and shape is not None and len(shape) == 2:
                try:
                    sized(*shape)
                except InputError as exc:  # (named by the file, as the reader's own check is: hunt 26b-W3)
                    raise InputError(f"{path}: {exc}") from None
            return keys
        shapes = {k: v[0] for k, v in headers.items()}
        said = f"arrays {shapes}"
        if "B" not in names:
            listed = list(headers)
            held = ", ".join(listed[:10]) + (f" and {len(listed) - 10:,} more" if len(listed) > 10 else "")
            hint = (
                " (a `gamemarket price solve --out` result?)"
                if {"prices", "converged"} & names
                else " (a price-discovery problem? `gamemarket price solve` reads one)"
                if {"A", "R"} <= names
                else ""
            )
            said = f"not a game's arrays: it holds {held or _members(path)}{hint}; its {said}"
        raise InputError(
            f"{path}: {said}; expected a game's two payoff matrices, named A and B (numpy.savez(path, A=A, B=B)) or "
            "given in turn (numpy.savez(path, A, B)), or one array of shape (2, m, n)"
        )

    z = read_npz(path, required=(), what="game", text=(), limit=memory_limit(), keep=layout)
    keys = next((k for k in NPZ_GAME_KEYS if set(k) <= set(z)), None)
    if keys is not None:
        A, B = z[keys[0]], z[keys[1]]
    elif len(z) == 1 and next(iter(z.values())).ndim == 3 and next(iter(z.values())).shape[0] == 2:
        A, B = next(iter(z.values()))
    else:  # (a file no zip archive's headers could be read from: read whole, its layout told from the arrays)
        shapes = {k: v.shape for k, v in z.items()}
        raise InputError(
            f"{path}: arrays {shapes}; expected a game's two payoff matrices, named A and B (numpy.savez(path, A=A, "
            "B=B)) or given in turn (numpy.savez(path, A, B)), or one array of shape (2, m, n)"
        )
    if A.ndim != 2 or A.shape != B.shape:
        raise InputError(f"{path}: payoff matrices of shapes {A.shape} and {B.shape}; expected two of one shape (m, n)")
    for M, who in ((A, "A (the row player's payoffs)"), (B, "B (the column player's payoffs)")):
        check_exact_integers(M, f"{path}: {who}")
        check_told_apart(M, f"{path}: {who}")
    try:
        # (no copy of float64 arrays: the arrays were read for this game alone, 1.2 GB each of a 12,000 x 12,000 game,
        # hunts 32b-F2, 34b-F1)
        return Game(A, B, title=path.stem, copy=False)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def to_csv_table(game: Game) -> pd.DataFrame:
    """Tidy payoff table: one row per profile, means, CI half-widths and the number of replications."""
    ca, cb = game.ci()
    rows = []
    for i, r in enumerate(game.rows):
        for j, c in enumerate(game.cols):
            rows.append(
                {
                    game.players[0]: r,
                    game.players[1]: c,
                    f"{game.players[0]}_payoff": game.A[i, j],
                    f"{game.players[1]}_payoff": game.B[i, j],
                    f"{game.players[0]}_ci95": ca[i, j],
                    f"{game.players[1]}_ci95": cb[i, j],
                    "replications": game.reps(),
                }
            )
    return pd.DataFrame(rows)


def _csv_players(path: Path, df: pd.DataFrame, header: list[str]) -> tuple[str, str]:
    """The CSV game's two strategy columns (``provider``/``consumer`` or ``row``/``col``), its header checked (each
    column once, the four columns there) and its rows (at least one)."""
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:  # pandas renames the second ``x`` to ``x.1`` and reads the first: which one did the file mean?
        raise InputError(f"{path}: line 1: column(s) {twice} appear more than once; give each column once")
    if {"game", "equilibrium"} <= set(df.columns):  # (hunt 20d-W9: a report's equilibria.csv was "solved" as a game)
        raise InputError(
            f"{path}: holds an answer (columns game, equilibrium, ...: a report's data/equilibria.csv), not a game; "
            "`game solve` takes the study file itself, or one of its games (data/payoffs-*.csv, data/game-*.nfg)"
        )
    # provider and consumer (a study's), row and col, or any two players' names as the first two columns, each with
    # its payoff column: what ``to_csv_table`` writes of a game whose players are named otherwise (a pygambit game's
    # "1" and "2": hunt 40b-W5, the library's own table refused by its reader)
    named = [tuple(str(h) for h in header[:2])] if len(header) >= 2 and header[0] != header[1] else []
    for r, c in [("provider", "consumer"), ("row", "col"), *named]:
        if {r, c, f"{r}_payoff", f"{c}_payoff"} <= set(df.columns):
            break
    else:
        tidy = {"profile", "role", "strategy", "count", "payoff"} <= set(df.columns)  # (hunt 19a-W1)
        comment = bool(header) and str(header[0]).lstrip().startswith("#")  # (hunt 21b-W5: sent back to game solve)
        raise InputError(
            f"{path}: expected columns provider, consumer, provider_payoff, consumer_payoff "
            f"(or row, col, row_payoff, col_payoff, or two players' names P, Q first, with P_payoff and Q_payoff); "
            f"found {list(df.columns)}"
            + (
                ": a role-symmetric game's tidy table (a population report's data/game-*.csv); solve its EGTA JSON "
                f"game, written beside it ({path.with_suffix('.json').name})"
                if tidy
                else f": line 1 ({header[0]!r}) is a comment, which a payoff table has none of; remove it"
                if comment
                else says_it_is(path, "job-table")  # (a spreadsheet's "sep=," first line: hunt 20b-W3)
            )
        )
    if df.empty:
        raise InputError(
            f"{path}: no payoff rows after the header; expected one row per pair of strategies ({r}, {c}), "
            f"with {r}_payoff and {c}_payoff"
        )
    return r, c


def _check_read_past(path: Path, df: pd.DataFrame, r: str, c: str) -> None:
    """The columns of a CSV game besides the four it is made of: the intervals' (``<player>_ci95``, a number >= 0 or
    empty, and ``replications``, a whole number >= 0, as :func:`to_csv_table` writes them) are checked, and every
    column read past is said in a warning (hunt 18c-W3: a replications of -1 or 2.5, a negative half-width, read
    past without a word, the answer then saying "the game holds no intervals")."""
    for col in (f"{r}_ci95", f"{c}_ci95", "replications"):
        if col not in df.columns:
            continue
        for k, cell in enumerate(df[col].tolist()):
            text = cell.strip()
            if text == "" or (col != "replications" and text.lower() == "nan"):
                continue  # (no interval: fewer than two replications; an empty cell: not recorded)
            try:
                value = float(text) if text.isascii() else np.nan  # (float() reads "١٢" as 12)
            except ValueError:
                value = np.nan
            whole = col != "replications" or (np.isfinite(value) and value == int(value))
            if not (np.isfinite(value) and value >= 0 and whole):
                expected = "a whole number >= 0" if col == "replications" else "a number >= 0, or empty"
                raise InputError(f"{path}: line {k + 2}: column {col!r} is {cell!r}; expected {expected}")
    past = [col for col in df.columns if col not in (r, c, f"{r}_payoff", f"{c}_payoff")]
    if past:
        warnings.warn(
            f"{path}: column(s) {', '.join(past)} read past: a game read from a CSV table is its mean payoffs "
            "(intervals are not rebuilt from half-widths; a study's game, solved from its study file, has them)",
            stacklevel=3,
        )


def _check_table_size(path: Path, df: pd.DataFrame, r: str, c: str, rows: list, cols: list) -> None:
    """A payoff table's size before its matrices are made: each of its ``m x n`` profiles needs a line, so a table
    of fewer lines is incomplete (said at once, with the first profile missing and any names that differ only by
    spaces: a 2.5 MB table of 100,000 names a side asked for 160 GB before it was found so, hunt 19a-F7 and
    19c-W2), and the two matrices must fit the memory limit."""
    m, n, lines = len(rows), len(cols), len(df)
    if m * n > lines:
        # the first profile no line holds, from the lines' own profiles (sorted, the first that is not its place):
        # memory of the lines, not of the m x n profiles (hunt 20b-W15: 477 MB under a 50 MB limit)
        index = {name: k for k, name in enumerate(rows)}, {name: k for k, name in enumerate(cols)}
        flat = np.unique(df[r].map(index[0]).to_numpy(np.int64) * n + df[c].map(index[1]).to_numpy(np.int64))
        gaps = np.flatnonzero(flat != np.arange(len(flat)))
        first = int(gaps[0]) if len(gaps) else len(flat)
        said = f"; the first missing is ({rows[first // n]}, {cols[first % n]})"
        alike = [
            f"{a!r} and {b!r}"
            for names in (rows, cols)
            for a, b in itertools.combinations(names[:1000], 2)
            if a.strip() == b.strip()
        ]
        if alike:
            said += f"; names that differ only by spaces: {', '.join(alike[:3])}"
        raise InputError(
            f"{path}: {lines:,} payoff line(s) for {m:,} x {n:,} strategies: a complete game lists each of its "
            f"{m * n:,} profiles once (every pair of strategies a line){said}"
        )
    check_fits(2 * 8 * m * n, f"{path}: a game of {m:,} x {n:,} strategies (two payoff matrices)")


def _payoff_cells(path: Path, df: pd.DataFrame, r: str, c: str, rows: list, cols: list):
    """The two payoff matrices of a payoff table (every profile once, finite numbers, whole numbers exact), the
    first problem by line an :class:`InputError`: the numbers parsed at once where they can be (a million lines
    took 20 s one by one, hunt 19a-W7), and one by one (:func:`_payoff_cells_reference`) where one is not a
    plain number or where a line is wrong, so that the message is the same."""
    m, n = len(rows), len(cols)
    where = {name: k for k, name in enumerate(rows)}, {name: k for k, name in enumerate(cols)}
    flat = df[r].map(where[0]).to_numpy(np.int64) * n + df[c].map(where[1]).to_numpy(np.int64)
    if pd.Series(flat).duplicated().any():
        return _payoff_cells_reference(path, df, r, c, rows, cols)
    out = []
    for col in (f"{r}_payoff", f"{c}_payoff"):
        texts = df[col]
        # a whole number of 16 digits or more (past 2^53: checked exactly) or a rational: one by one
        if (
            texts.str.len().ge(16) & texts.str.strip().str.fullmatch(WHOLE_TEXT.pattern)
            | texts.str.contains("_", regex=False)
            | ~texts.map(str.isascii)  # (numpy reads Arabic-Indic and full-width digits: "١٢" was 12, hunt 28c-W2)
        ).any():
            return _payoff_cells_reference(path, df, r, c, rows, cols)
        try:
            values = texts.to_numpy(str).astype(np.float64)
        except ValueError:
            return _payoff_cells_reference(path, df, r, c, rows, cols)
        zeros = values == 0
        if not np.isfinite(values).all() or (zeros.any() and texts[zeros].map(underflows).any()):
            return _payoff_cells_reference(path, df, r, c, rows, cols)
        M = np.full(m * n, np.nan)
        M[flat] = values
        out.append(M.reshape(m, n))
    if np.isnan(out[0]).any():
        i, j = np.argwhere(np.isnan(out[0]))[0]
        raise InputError(
            f"{path}: no finite payoff for ({rows[i]}, {cols[j]}); every profile needs a row with finite payoffs"
        )
    return out[0], out[1]


def _payoff_cells_reference(path: Path, df: pd.DataFrame, r: str, c: str, rows: list, cols: list):
    """:func:`_payoff_cells` line by line: the plain reference, and the reader of a table with a problem."""
    rlab, clab = df[r].astype(str).tolist(), df[c].astype(str).tolist()
    index = {name: k for k, name in enumerate(rows)}, {name: k for k, name in enumerate(cols)}
    A = np.full((len(rows), len(cols)), np.nan)
    B = np.full_like(A, np.nan)
    line: dict[tuple[int, int], int] = {}
    for k, rec in enumerate(df.itertuples(index=False)):
        d = rec._asdict()
        i, j = index[0][rlab[k]], index[1][clab[k]]
        if (i, j) in line:  # never let a later row silently win
            raise InputError(
                f"{path}: line {k + 2}: the profile ({rlab[k]}, {clab[k]}) is listed again (first on line "
                f"{line[(i, j)]}); list each profile once"
            )
        line[(i, j)] = k + 2
        for M, col in ((A, f"{r}_payoff"), (B, f"{c}_payoff")):
            try:
                M[i, j] = exact_payoff(d[col], f"{path}: line {k + 2}: column {col!r}")
            except InputError:
                raise
            except (TypeError, ValueError):
                raise InputError(
                    f"{path}: line {k + 2}: column {col!r} is {d[col]!r}; expected a number (ASCII digits, no "
                    "thousands separators)"
                ) from None
        for M, col in ((A, f"{r}_payoff"), (B, f"{c}_payoff")):
            if not np.isfinite(M[i, j]):  # (a NaN too, by its line: it was "no finite payoff for (a, x)", 41b-W5)
                raise InputError(f"{path}: line {k + 2}: column {col!r} is {d[col]!r}; expected a finite number")
    if np.isnan(A).any():
        i, j = np.argwhere(np.isnan(A))[0]
        raise InputError(
            f"{path}: no finite payoff for ({rows[i]}, {cols[j]}); every profile needs a row with finite payoffs"
        )
    return A, B


#: bytes of memory per character of a CSV game's text while it is read as a table of strings and its matrices are
#: made: 11 measured on a 112 MB table of 1,500 x 1,500 profiles (1.24 GB above the interpreter's own), 26 on a 27 MB
#: one of shorter lines (707 MB: hunt 26b-F1, where 16 let it pass a 600 MB limit), rounded up
CSV_BYTES_PER_CHAR = 32


def read_csv_game(path: str | Path) -> Game:
    """A game from a tidy CSV with columns row, column and two payoff columns.

    Accepted column names: provider/consumer and provider_payoff/consumer_payoff (as exported), row/col and
    row_payoff/col_payoff, or any two players' names as the first two columns with their ``_payoff`` columns (as
    :func:`to_csv_table` writes a game whose players are named otherwise).
    """
    path = check_path(path, "read_csv_game: path")  # (an int, bytes or None: pathlib's bare TypeError)
    check_input(path, "CSV game")
    try:
        # every cell as written: a strategy named "NA", "nan" or "None" is that name, not a missing value (pandas'
        # default); a payoff is read as a number below, naming its line where it is not one
        # (the text read once: a named pipe gives its bytes to one read; pandas' and the header's were two)
        text = read_text(path, "CSV game", per_char=CSV_BYTES_PER_CHAR)
        # every cell a Python string before the table's own size is known: sized by its characters first (hunt
        # 25b-F2: a 33 MB table took 1.1-2 GB under a 600 MB limit, as .nfg and JSON were before they were sized)
        check_fits(CSV_BYTES_PER_CHAR * len(text), f"{path}: reading its {len(text):,} characters of CSV as a table")
        header = next(csv.reader([text.split("\n", 1)[0].lstrip("\ufeff")]), [])
        try:
            with fields_named(path, "CSV game"):  # (never an implicit index: hunt 25c-F1)
                df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, index_col=False)
        except InputError:  # a first line that is no payoff table's header is said as such first (a comment, sep=)
            _csv_players(path, pd.DataFrame([[""] * len(header)], columns=[str(h) for h in header]), header)
            raise
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"{path}: cannot read CSV: {exc}") from exc
    r, c = _csv_players(path, df, header)
    for who in (r, c):
        blank = df[who].str.strip() == ""
        if blank.any():
            k = int(np.flatnonzero(blank.to_numpy())[0])
            raise InputError(f"{path}: line {k + 2}: column {who!r} is empty; every row names a strategy")
    rlab, clab = df[r].astype(str).tolist(), df[c].astype(str).tolist()
    rows, cols = list(dict.fromkeys(rlab)), list(dict.fromkeys(clab))
    _check_table_size(path, df, r, c, rows, cols)
    A, B = _payoff_cells(path, df, r, c, rows, cols)
    _check_read_past(path, df, r, c)
    try:  # (the game's own checks, a payoff range beyond floats: named by the file, as every reader's are)
        return Game(A, B, rows, cols, players=("row", "col") if r == "row" else (r, c), title=path.stem)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


#: the keys of an equilibrium's JSON record beside its two players' mixtures (and ``game``, which ``game solve``
#: adds where a study holds several games)
RECORD_KEYS = ("payoffs", "regret", "pure", "found_by", "robustness", "game")


def equilibria_records(solution, robustness=None) -> list[dict]:
    """JSON-ready equilibria: provider and consumer mixtures (name -> probability), payoffs, regret.

    A player named as one of the record's keys (:data:`RECORD_KEYS`) is an :class:`InputError`: its mixture would be
    written over (a Gambit game's players ``payoffs`` and ``regret`` lost both mixtures, exit 0; hunt 19a-F1)."""
    g = solution.game
    clash = [p for p in g.players if p in RECORD_KEYS]
    if clash:
        raise InputError(
            f"game {g.title!r}: player {clash[0]!r} is the name of a key of an equilibrium's JSON record "
            f"({', '.join(RECORD_KEYS)}), where each player's mixture is written under its name: the JSON would lose "
            "it; rename the player, or print the answer as text (without --format json)"
        )
    out = []
    for k, e in enumerate(solution.equilibria):
        rec = {
            g.players[0]: {g.rows[i]: float(e.x[i]) for i in np.flatnonzero(e.x > 0)},
            g.players[1]: {g.cols[j]: float(e.y[j]) for j in np.flatnonzero(e.y > 0)},
            "payoffs": {g.players[0]: e.payoffs[0], g.players[1]: e.payoffs[1]},
            "regret": {g.players[0]: e.regret[0], g.players[1]: e.regret[1]},
            "pure": e.pure,
            "found_by": sorted(e.methods),
        }
        if robustness is not None and robustness[k] is not None:
            rb = robustness[k]
            rec["robustness"] = {
                "regret_ci95": {g.players[0]: rb.regret_provider[1:], g.players[1]: rb.regret_consumer[1:]},
                "stable_share": rb.stable_share,
                "resamples": rb.resamples,
            }
        out.append(rec)
    return out


def write_json(path: str | Path, payload: dict) -> None:
    """Write strict JSON atomically (numpy values converted; NaN and infinities as null:
    ``gamemarket.io.files.dumps_json``)."""
    with atomic_path(path, "JSON file") as tmp:
        tmp.write_text(dumps_json(payload, indent=2), encoding="utf-8")


def profile_words(game, eq, *, digits: int = 3) -> tuple[str, str]:
    """Each side's strategy of an equilibrium in words: a pure one by name, a mixed one as
    probability-weighted names ("0.6 hb-first + 0.4 hb-kth", probabilities to ``digits`` significant
    digits). The one formatter of the CLI, the reports, the discussion and ``equilibria.csv``."""

    def side(p, names):
        support = np.flatnonzero(p > 0)
        if len(support) == 1:  # (a pure strategy by its name; in a mixture each share is said, a share of 1 beside
            # one of 1e-24 too: "1e-24 c0 + c1" beside "1e-12 c0 + 1 c1", hunt 31b-W4)
            return names[support[0]]
        return " + ".join(f"{p[i]:.{digits}g} {names[i]}" for i in support)

    return side(eq.x, game.rows), side(eq.y, game.cols)


def mixture_words(mixture: dict, *, digits: int = 3) -> str:
    """A role-symmetric game's mixture of one role in words, largest share first (stable on ties):
    ``{"truthful": 0.25, "shade-0.5": 0.75}`` -> ``"0.75 shade-0.5 + 0.25 truthful"``, shares to ``digits``
    significant digits, a pure strategy as ``"1 truthful"``. The one formatter of the population reports,
    the discussion, ``population-equilibria.csv`` and the CLI's population summary.

    Parameters
    ----------
    mixture : dict
        Strategy name -> share (the strategies of positive share, as ``RSGame.mixture_dict`` gives a role's).
    digits : int
        Significant digits of each share.

    Returns
    -------
    str
        The mixture's words.
    """
    return " + ".join(f"{p:.{digits}g} {s}" for s, p in sorted(mixture.items(), key=lambda kv: -kv[1]))
