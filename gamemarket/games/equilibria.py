"""Nash equilibria of a bimatrix game, each one verified by its regret.

* ``pure_equilibria``: best-response masks (numpy), any size.
* ``dominance``: iterated elimination of strictly dominated pure strategies (no equilibrium uses one).
* ``polytope_equilibria``: an exhaustive search of our own. The player with fewer strategies has a
  low-dimensional best-response polytope ``P = {x >= 0 : B'^T x <= 1}`` (payoffs shifted positive);
  qhull lists its vertices, and for each vertex the other player's equilibrium strategies form a
  face that is solved directly (a point or an interval) or, when larger, by qhull again. Every
  extreme equilibrium is found, degenerate games included.
* ``nashpy_equilibria``: nashpy's support enumeration, vertex enumeration and Lemke-Howson from every
  initial label, each in a child process under a time limit (Lemke-Howson can loop forever).

Nothing is trusted: every profile any method returns is kept only if its regret, computed here
from the payoff arrays, is within tolerance; duplicates are merged with the names of the methods
that found them. Non-finite payoffs are rejected before any solver sees them.

References
----------
.. [vonStengel2002] B. von Stengel, "Computing equilibria for two-person games", Handbook of Game
   Theory with Economic Applications 3 (2002) 1723-1759.
.. [Avis2010] D. Avis, G. D. Rosenberg, R. Savani and B. von Stengel, "Enumeration of Nash
   equilibria for two-player games", Economic Theory 42 (2010) 9-37. (Vertex enumeration of best-
   response polytopes, and degenerate games.)
"""

from __future__ import annotations

import functools
import itertools
import math
import multiprocessing as mp
import queue
import re
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gamemarket.errors import InputError, check_flag, check_real, limit_clock, shown_value
from gamemarket.games import exact as exact_mod
from gamemarket.games import gambit, vertex_pairs
from gamemarket.games.budget import (  # noqa: F401 (DEFAULT_TIME_LIMIT, max_vertices: callers import them from here)
    DEFAULT_TIME_LIMIT,
    RAISE_LIMIT,
    SearchClock,
    TimeUp,
    check_time_limit,
    max_vertices,
    progress_wanted,
    solver_child,
    stop_child,
)
from gamemarket.games.checks import check_payoff_pair, check_rel_tol
from gamemarket.games.nashpy_runs import NASHPY_METHODS, nashpy_equilibria  # noqa: F401 (re-exported)
from gamemarket.io.limits import check_fits
from gamemarket.registry import Registry

if TYPE_CHECKING:  # the solvers take any game with payoff arrays; the registry is read without pandas (the CLI)
    from gamemarket.games.bimatrix import Game


@dataclass
class Equilibrium:
    """A verified equilibrium of a bimatrix game: both mixed strategies, the players' payoffs, each
    player's regret (its best pure deviation's gain), and the methods that found it.
    """

    x: np.ndarray  #: row (provider) mixed strategy
    y: np.ndarray  #: column (consumer) mixed strategy
    payoffs: tuple[float, float]
    regret: tuple[float, float]
    methods: set = field(default_factory=set)

    @property
    def pure(self) -> bool:
        """True when both players play one strategy with probability 1."""
        return int((self.x > 0).sum()) == 1 and int((self.y > 0).sum()) == 1

    def supports(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The strategies each player uses with positive probability (row indices, column indices)."""
        return tuple(np.flatnonzero(self.x > 0)), tuple(np.flatnonzero(self.y > 0))


@dataclass
class Solution:
    """What :func:`solve` returns: the verified equilibria (possibly none, and then ``summary`` says so),
    whether the game is degenerate, the strictly dominated strategies removed first, and notes on
    what each method did.
    """

    game: Game
    equilibria: list[Equilibrium]
    degenerate: bool
    dominated_rows: list[str]
    dominated_cols: list[str]
    notes: list[str] = field(default_factory=list)
    complete: bool = True  #: False where an exhaustive method stopped before it had enumerated everything (notes say)
    #: False where the answer is not every extreme equilibrium: a search stopped, or a game too large to enumerate
    #: answered by a method that finds one or a few (a note beginning "partial:" says which)
    exhaustive: bool = True

    @property
    def degenerate_words(self) -> str:
        """Whether the game is degenerate, and whether every extreme equilibrium is listed, in the words every answer
        uses (hunt 20d-F4: a report said "all extreme equilibria listed" above its note that ipa does not list them)."""
        if not self.degenerate:
            return "no"
        if self.complete and self.exhaustive:
            return "yes (all extreme equilibria listed)"
        return "yes (not every extreme equilibrium enumerated: see the note)"


def _scale(M: np.ndarray) -> float:
    """The spread of a player's payoffs (max - min; 1 for a constant game): tolerances are relative to it.

    Relative to the spread, not to the largest payoff, so that payoffs near 1e12 that differ by units
    are not all "equal within tolerance".
    """
    with np.errstate(over="ignore"):  # an overflow is the error below
        spread = float(np.max(M) - np.min(M))
    if not np.isfinite(spread):
        raise InputError(
            f"payoffs from {np.min(M):.3g} to {np.max(M):.3g}: the spread overflows float64; rescale the payoffs"
        )
    return spread if spread > 0 else 1.0


def tolerance(A: np.ndarray, B: np.ndarray, rel: float = 1e-9) -> tuple[float, float]:
    """The regret tolerance of each player: ``rel`` times the scale of its payoffs.

    A mixed strategy pair is an equilibrium when each player's regret is at most its tolerance, so
    the verdict does not depend on the payoffs' units.

    Returns
    -------
    (float, float)
        The row player's and the column player's tolerance.
    """
    return rel * _scale(A), rel * _scale(B)


def regret(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The best gain from a unilateral deviation, for each player (0 at an exact equilibrium).

    Computed on payoffs shifted to a minimum of 0 (the regret is unchanged), so that a large common
    offset does not swamp it with rounding error.
    """
    A, B = check_payoff_pair(A, B)  # (empty payoffs were numpy's "zero-size array to reduction operation")
    x, y = _mixture(x, A.shape[0], "x (the row player's mixture)"), _mixture(y, A.shape[1], "y (the column's)")
    return unchecked_regret(A, B, x, y)


def unchecked_regret(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """:func:`regret` of arrays already checked (float payoffs of one shape, mixtures of their sizes): the loops
    that call it thousands of times on one game (a bootstrap's resamples, a QRE branch) skip the checks.

    The payoffs are shifted to a least of 0 before they are weighed (a common 1e12 costs the regret no precision), a
    block of rows at a time where the game has more than :data:`REGRET_BLOCK_CELLS` cells: shifted whole, each call
    made two copies of the game (4.6 GB of a 12,000 x 12,000 game, each candidate verified twice: hunt 34b-F1)."""
    Ay, xB = _shifted_products(A, B, x, y)
    return max(0.0, float(Ay.max() - x @ Ay)), max(0.0, float(xB.max() - xB @ y))  # (never -1e-16: hunt 28c-W1)


def against(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(A @ y, x @ B)``: what each of the row player's strategies earns against ``y``, and each of the column
    player's against ``x``, from the columns of ``y``'s support and the rows of ``x``'s alone where they are a few of
    the game's (:data:`FEW_SHARE`).

    The terms left out are products by a share of 0, which add nothing to a sum; a pure profile's is a column and a
    row of the game, read exactly. Weighed whole, each of a pure method's 100,000 candidates cost two passes over the
    game, four per second of a 1,500 x 1,500 game of ties (hunt 35c-W2) and seconds each of a 12,000 x 12,000 one
    (34b-F1)."""
    T, S = np.flatnonzero(y), np.flatnonzero(x)
    Ay = A[:, T] @ y[T] if len(T) * FEW_SHARE < len(y) else A @ y
    xB = x[S] @ B[S] if len(S) * FEW_SHARE < len(x) else x @ B
    return Ay, xB


def payoffs_at(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Each player's payoff at the profile ``(x, y)``, ``(x @ A @ y, x @ B @ y)``, from its supports' block alone
    where it is small (:func:`against`)."""
    S, T = np.flatnonzero(x), np.flatnonzero(y)
    if (len(S) + len(T)) * FEW_SHARE < len(x) + len(y):
        block = np.ix_(S, T)
        return float(x[S] @ A[block] @ y[T]), float(x[S] @ B[block] @ y[T])
    return float(x @ A @ y), float(x @ B @ y)


#: a support is "a few" of a player's strategies (:func:`against`) where it holds fewer than 1 / FEW_SHARE of them
FEW_SHARE = 4


#: the most cells :func:`unchecked_regret` shifts at once (a game larger is shifted a block of rows at a time)
REGRET_BLOCK_CELLS = 1 << 22


def _shifted_products(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``((A - min A) @ y, x @ (B - min B))``, a block of :data:`REGRET_BLOCK_CELLS` at a time in a large game."""
    m, n = A.shape
    if m * n <= REGRET_BLOCK_CELLS:
        return (A - A.min()) @ y, x @ (B - B.min())
    low_a, low_b = A.min(), B.min()
    T, S = np.flatnonzero(y), np.flatnonzero(x)
    if (len(S) + len(T)) * FEW_SHARE < m + n:  # (a few played: their rows and columns alone, :func:`against`)
        return (A[:, T] - low_a) @ y[T], x[S] @ (B[S] - low_b)
    Ay, xB = np.empty(m), np.zeros(n)
    step = max(1, REGRET_BLOCK_CELLS // max(n, 1))
    for k in range(0, m, step):
        Ay[k : k + step] = (A[k : k + step] - low_a) @ y
        xB += x[k : k + step] @ (B[k : k + step] - low_b)
    return Ay, xB


def _support_key(x: np.ndarray, y: np.ndarray) -> tuple[bytes, bytes]:
    """Where two profiles may be one (:func:`_close`): the strategies each plays (with a probability above 0, the
    methods' dust below 1e-12 dropped by :func:`_cleaned`). Profiles of other supports are other equilibria, however
    close their shares (hunt 26c-F1: a share of 2e-8 was merged into its neighbour's 0, an equilibrium of a
    nondegenerate game lost); a new profile is compared with those of its support alone, not with every one found
    (hunt 16a: a 1 x 5000 game of zeros has 5,000 pure equilibria, compared pairwise past any time limit)."""
    return np.packbits(x > 0).tobytes(), np.packbits(y > 0).tobytes()


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.allclose(a, b, atol=1e-7)``'s rule, ``|a - b| <= 1e-7 + 1e-5 |b|`` everywhere, at a fraction of its cost on
    the short vectors of a small game's profiles."""
    return bool((np.abs(a - b) <= 1e-7 + 1e-5 * np.abs(b)).all())


def _mixture(x, n: int, what: str) -> np.ndarray:
    """A mixed strategy over ``n`` strategies as a float array: ``n`` finite numbers >= 0 (within rounding) that
    sum to 1 (within :data:`MIXTURE_TOL`, relative), else an :class:`InputError` naming ``what`` and the value.
    Texts ('0.5') and booleans are refused; a sum of 0.6 or a negative share gave a regret that means nothing."""
    shown = shown_value(x)
    if isinstance(x, (str, bytes, dict, set)) or not hasattr(x, "__len__"):  # (a generator was "got None")
        raise InputError(f"{what} must be {n} probabilities (a list or an array), got {shown} ({type(x).__name__})")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.dtype.kind not in "iuf" or arr.shape != (n,):
        raise InputError(f"{what} must be {n} finite probabilities, got {shown}")
    arr = arr.astype(float)
    if not np.isfinite(arr).all():
        raise InputError(f"{what} must be {n} finite probabilities, got {shown}")
    if (arr < -MIXTURE_TOL).any() or not abs(float(arr.sum()) - 1.0) <= MIXTURE_TOL:
        raise InputError(
            f"{what} must be {n} probabilities (each >= 0, summing to 1), got {shown} (sum {float(arr.sum()):.12g})"
        )
    return np.maximum(arr, 0.0)


#: how far a mixture given to :func:`regret` may stray from a probability vector by rounding: its sum from 1, and an
#: entry below 0
MIXTURE_TOL = 1e-9


def pure_equilibria(A, B, *, tol: tuple[float, float] | None = None) -> list[tuple[int, int]]:
    """All pure equilibria (i, j): i is a best response to j and j to i (ties within tolerance).

    ``tol``: the row and the column player's tolerances ``(ta, tb)``, two finite numbers >= 0 in the payoffs'
    units (None: :func:`tolerance`'s, 1e-9 of each player's payoff scale)."""
    A, B = check_payoff_pair(A, B)
    tol = check_tolerances(tol, "pure_equilibria: tol")
    return [tuple(int(v) for v in ij) for ij in np.argwhere(_pure_mask(A, B, tol))]


def _pure_mask(A, B, tol) -> np.ndarray:
    """The ``m x n`` mask of the pure equilibria: each side's best responses within its tolerance (None:
    :func:`tolerance`'s)."""
    ta, tb = tol or tolerance(A, B)
    return (A >= A.max(axis=0, keepdims=True) - ta) & (B >= B.max(axis=1, keepdims=True) - tb)


def check_tolerances(tol, what: str = "tol") -> tuple[float, float] | None:
    """A pair of tolerances ``(row player's, column player's)`` as two floats, each finite and >= 0, or None; else an
    :class:`InputError` naming ``what`` and the value (a number was a TypeError from unpacking it, ``[]`` and ``{}``
    the default tolerance, a text of two letters two tolerances)."""
    if tol is None:
        return None
    pair = isinstance(tol, (tuple, list)) or (isinstance(tol, np.ndarray) and tol.ndim == 1)
    if not pair or len(tol) != 2:
        raise InputError(
            f"{what} must be a pair of tolerances (row player's, column player's), two finite numbers >= 0, or None, "
            f"got {shown_value(tol)} ({type(tol).__name__})"
        )
    return (
        check_real(tol[0], f"{what}[0] (the row player's tolerance)", minimum=0),
        check_real(tol[1], f"{what}[1] (the column player's tolerance)", minimum=0),
    )


#: the copies of a game's payoff tables (float64) :func:`solve` may hold at once: the game's two, their normalised
#: copies and the reduced game's, and a method's working arrays; sized before the first is made (a 10,000 x 10,000
#: float32 .npz, 800 MB read, grew to 4.9 GB under a 1 GB limit: hunt 19b-F2)
SOLVE_COPIES = 8

#: the most comparisons :func:`dominance` holds at once (bytes of booleans): it compares each strategy with every
#: other in blocks of this size (the whole m x m x n array took 25 GiB of a 3,000 x 3,000 game; hunt 19b-F1)
DOMINANCE_BLOCK_BYTES = 1 << 25


def _dominated(M: np.ndarray, tol: float, clock: SearchClock | None) -> np.ndarray:
    """Which rows of ``M`` are strictly dominated by another row (greater by more than ``tol`` in every column),
    in blocks of :data:`DOMINANCE_BLOCK_BYTES`, ``clock`` checked between them (:class:`TimeUp`)."""
    m, n = M.shape
    out = np.zeros(m, bool)
    step = max(1, DOMINANCE_BLOCK_BYTES // max(1, m * n))
    for k in range(0, m, step):
        if clock is not None:
            clock.check()
            clock.advance(min(step, m - k))
        out[k : k + step] = (M[:, None, :] > M[None, k : k + step, :] + tol).all(axis=2).any(axis=0)
    return out


def dominance(
    A, B, tol: tuple[float, float] | None = None, *, clock: SearchClock | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Iterated elimination of strictly dominated pure strategies; returns the kept masks.

    ``clock`` (a :class:`~gamemarket.games.budget.SearchClock`): where its limit is reached, the elimination stops
    and the masks so far are returned (each step removed only strategies strictly dominated in the game left, so
    every equilibrium of the smaller game is one of the whole), and ``clock.expired()`` says so."""
    A, B = check_payoff_pair(A, B)
    ta, tb = tol or tolerance(A, B)
    rows = np.ones(A.shape[0], bool)
    cols = np.ones(A.shape[1], bool)
    changed = True
    try:
        while changed:
            changed = False
            ri = np.flatnonzero(rows)
            out = _dominated(_kept(A, rows, cols), ta, clock)  # row k strictly dominated by another
            if out.any() and (~out).any():
                rows[ri[out]] = False
                changed = True
            ci = np.flatnonzero(cols)
            out = _dominated(_kept(B, rows, cols).T, tb, clock)
            if out.any() and (~out).any():
                cols[ci[out]] = False
                changed = True
    except TimeUp:
        pass
    return rows, cols


def _kept(M: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``M``'s rows and columns where the masks ``rows`` and ``cols`` are true: ``M`` itself where both keep every
    one (a copy of a 12,000 x 12,000 game's payoffs is 1.2 GB, made twice a round of dominance: hunt 34b-F1)."""
    return M if rows.all() and cols.all() else M[np.ix_(rows, cols)]


def _sized(game) -> tuple[np.ndarray, np.ndarray]:
    """A game's payoff tables checked (:func:`_check`), and :data:`SOLVE_COPIES` of them sized against the memory
    limit before any copy is made."""
    A, B = check_payoff_pair(game.A, game.B)
    check_solvable(*A.shape)
    return A, B


def check_solvable(m: int, n: int) -> None:
    """Refuse an ``m x n`` game whose :data:`SOLVE_COPIES` payoff tables would not fit the memory limit: what
    :func:`solve` checks first, for a reader that knows the shape before it reads the payoffs (hunt 25b-F1: a 560 kB
    compressed ``.npz`` was inflated to 1.9 GB under a 1.3 GB limit before the solve refused it)."""
    check_fits(SOLVE_COPIES * 8 * m * n, f"solving a {m:,} x {n:,} game (its payoffs and the solver's copies)")


#: the share of a time limit that iterated dominance (and then dominance by mixtures, of what is left) may spend:
#: the rest is the methods' (a 2,000 x 2,000 game's elimination spent all of a 10 s limit, and no method searched:
#: hunt 39c-W1); stopped, it keeps the strategies it had not yet examined, which loses no equilibrium
DOMINANCE_SHARE = 0.5


def _share(time_limit: float | None) -> float | None:
    """The part of ``time_limit`` (None: none) a dominance step may spend (:data:`DOMINANCE_SHARE`)."""
    return None if time_limit is None else time_limit * DOMINANCE_SHARE


def _after(clock: SearchClock, time_limit: float | None, what: str, notes: list) -> float | None:
    """The time left to the methods after a dominance step stopped at its share of ``time_limit`` (``clock``), its
    note said."""
    left = max(time_limit - clock.elapsed(), 1e-3)
    notes.append(
        f"partial: {what} stopped at its share of the time limit ({clock.limit:g} of {time_limit:g} s); the "
        "strategies it had not yet examined are kept (the equilibria of the game left are equilibria of the whole), "
        f"and the methods had the {left:.3g} s left"
    )
    return left


def _eliminated(An, Bn, tol, eliminate: bool, time_limit: float | None, notes: list):
    """:func:`solve`'s strategies kept after iterated dominance (every one without ``eliminate``), and the time left
    for the methods: the elimination may spend :data:`DOMINANCE_SHARE` of the limit, which a note beginning
    "partial:" says where it reached it (a 2,000 x 2,000 game's elimination ran a minute past a 5 s limit: hunt
    19b-F1)."""
    if not eliminate:
        return np.ones(An.shape[0], bool), np.ones(An.shape[1], bool), time_limit
    clock = SearchClock(_share(time_limit))
    # (a bar past a few seconds: an 8,000 x 8,000 game's comparisons ran their 5 s with not a line, hunt 36c-F1)
    clock.bar(None, unit=" strategies", desc="dominance: strategies compared")
    try:
        rows, cols = dominance(An, Bn, tol, clock=clock)
    finally:
        clock.close()
    if not clock.expired():  # (the methods' own limit as asked: the elimination is most often milliseconds)
        return rows, cols, time_limit
    return rows, cols, _after(clock, time_limit, "iterated dominance", notes)


class FaceBudgetExceeded(Exception):
    """A degenerate face with more subsets of tight constraints than the enumeration's budget (internal: the
    polytope method notes it and lists what it found elsewhere)."""


#: the least regret (relative to a player's payoff spread) a returned profile may keep and still be kept: the
#: methods' floating-point slack where ``rel_tol`` asks for less (``solve``; it kept 10 rel_tol before, so any
#: rel_tol >= 0.1 kept every profile of a game)
ACCEPT_FLOOR = 1e-8
#: the most subsets of tight constraints the polytope method enumerates over all the degenerate faces of one game
FACE_BUDGET = 200_000


def _face_vertices(
    M_eq: np.ndarray,
    M_ineq: np.ndarray,
    tol: float,
    max_subsets: int = FACE_BUDGET,
    used: list | None = None,
    clock: SearchClock | None = None,
) -> list[np.ndarray]:
    """Vertices of ``{z >= 0 : M_eq z = 1, M_ineq z <= 1}`` (z over the candidate support); raises
    :class:`FaceBudgetExceeded` beyond ``max_subsets`` subsets of tight constraints (``used[0]``: the subsets
    enumerated so far, counted on), and :class:`~gamemarket.games.budget.TimeUp` once ``clock``'s limit is reached."""
    k = M_eq.shape[1]
    if k == 0:
        return []
    out = []
    # a vertex is the unique solution of k independent tight constraints; with few candidates
    # enumerate zero-sets (the rest of z free) and extra tight inequality rows
    used = [0] if used is None else used
    n_ineq = M_ineq.shape[0]
    for nfree in range(1, k + 1):
        for free in itertools.combinations(range(k), nfree):
            free = list(free)
            Meq = M_eq[:, free]
            rank = np.linalg.matrix_rank(Meq) if Meq.size else 0
            need = nfree - rank
            if need < 0 or rank < Meq.shape[0] and not _consistent(Meq):
                continue
            for extra in itertools.combinations(range(n_ineq), need):
                used[0] += 1
                if used[0] > max_subsets:
                    raise FaceBudgetExceeded(max_subsets)
                if clock is not None and used[0] % 1024 == 0:
                    clock.check()
                M = np.vstack([Meq, M_ineq[list(extra)][:, free]]) if need else Meq
                if np.linalg.matrix_rank(M) < nfree:
                    continue
                z_free, *_ = np.linalg.lstsq(M, np.ones(M.shape[0]), rcond=None)
                if np.abs(M @ z_free - 1).max() > tol:
                    continue
                z = np.zeros(k)
                z[free] = z_free
                if z.min() < -tol or (n_ineq and (M_ineq @ z).max() > 1 + tol) or np.abs(M_eq @ z - 1).max() > tol:
                    continue
                out.append(np.maximum(z, 0))
    return out


def _consistent(M: np.ndarray) -> bool:
    z, *_ = np.linalg.lstsq(M, np.ones(M.shape[0]), rcond=None)
    return bool(np.abs(M @ z - 1).max() < 1e-9)


def polytope_equilibria(
    A, B, tol: tuple[float, float] | None = None, *, notes: list | None = None, time_limit: float | None = None
) -> tuple[list[tuple[np.ndarray, np.ndarray]], bool]:
    """All extreme equilibria by vertex enumeration of the smaller player's best-response polytope.

    Returns (profiles, degenerate). Profiles are not yet verified (``solve`` does that). A degenerate face whose
    tight constraints have more subsets than the enumeration's budget (200,000; a game with many equal payoffs, an
    all-zero one at the extreme) is skipped, and ``notes`` gets a line beginning "incomplete:" that says so: the
    profiles returned are then not every extreme equilibrium.

    ``time_limit`` (seconds, keyword-only; None: none): the search stops there, and ``notes`` gets a line beginning
    "incomplete:" that says how many of the polytope's vertices it had visited; the profiles returned are those of
    the vertices visited. Before qhull lists the vertices, their number is bounded from the game's shape
    (:func:`max_vertices`): where listing that many could take more than half the limit, qhull runs in a child
    process that is stopped at the limit (qhull cannot be interrupted). Within the limit, the answer is the same.
    """
    A, B = check_payoff_pair(A, B)
    clock = SearchClock(time_limit)
    transposed = A.shape[0] > A.shape[1]
    if transposed:  # enumerate on the smaller side: swap the players
        A, B = B.T, A.T
    Ap = (A - A.min()) / _scale(A) + 1.0  # positive, and of order 1 whatever the payoffs' units
    Bp = (B - B.min()) / _scale(B) + 1.0
    skipped, stop = 0, None  # degenerate faces left out; where the time limit stopped the search
    try:
        if A.shape[0] == 1:
            profiles, degenerate = _one_row_equilibria(B, (tol or tolerance(A, B))[1])
        elif vertex_pairs.fits(*A.shape):  # a small game: every vertex pair at once, compiled
            profiles, degenerate = vertex_pairs.vertex_pair_equilibria(Ap, Bp)
        else:
            profiles, degenerate, skipped, stop = _vertex_equilibria(Ap, Bp, clock)
    finally:
        clock.close()
    if transposed:
        profiles = [(y, x) for x, y in profiles]
    if skipped and notes is not None:
        notes.append(
            f"incomplete: polytope: {skipped} degenerate face(s) of the best-response polytope were not enumerated, "
            f"their tight constraints' subsets beyond the budget of {FACE_BUDGET:,} for the game (many equal payoffs): "
            "the equilibria listed are verified, but other extreme equilibria may exist"
        )
    if stop and notes is not None:
        notes.append(
            f"incomplete: polytope: stopped {clock.stopped()} {stop}: the equilibria listed are verified, but other "
            f"extreme equilibria may exist; {RAISE_LIMIT}"
        )
    return profiles, degenerate


#: qhull's seconds per vertex of the best-response polytope, about (a random 16x16 game's 183,305 in 3.2 s); the
#: search's estimate of how long listing the vertices can take, against its time limit
QHULL_SECONDS_PER_VERTEX = 2e-5


def qhull_seconds(m: int, n: int) -> float:
    """About how long qhull can take to list the vertices of an ``m x n`` game's polytope (:func:`max_vertices` times
    :data:`QHULL_SECONDS_PER_VERTEX`), infinity where the bound passes the float range (an 800 x 800 game's: its
    product was an OverflowError traceback, hunt 17b)."""
    try:
        return float(max_vertices(m, n)) * QHULL_SECONDS_PER_VERTEX
    except OverflowError:
        return math.inf


def shown_vertices(m: int, n: int) -> str:
    """:func:`max_vertices` for a message: its digits up to 10^15, else its order (3.2e+240), or "more than 1e308"."""
    v = max_vertices(m, n)
    if v < 10**15:
        return f"{v:,}"
    try:
        return f"{float(v):.3g}"
    except OverflowError:
        return "more than 1e308"


def _one_row_equilibria(B: np.ndarray, tol_b: float) -> tuple[list, bool]:
    """A game where the first player has one strategy: the column player's best responses (within
    ``tol_b``), each a pure equilibrium; degenerate where there are several."""
    n = B.shape[1]
    cols = np.flatnonzero(B[0] >= B[0].max() - tol_b)
    profiles = []
    for j in cols:
        y = np.zeros(n)
        y[j] = 1
        profiles.append((np.ones(1), y))
    return profiles, len(cols) > 1


def _vertex_equilibria(Ap: np.ndarray, Bp: np.ndarray, clock: SearchClock) -> tuple[list, bool, int, str | None]:
    """The equilibria at the vertices of the first player's best-response polytope
    ``P = {x >= 0, Bp^T x <= 1}`` (payoffs made positive: ``Ap``, ``Bp``), each vertex's labels matched by
    the second player's best responses. Returns the profiles, whether the game is degenerate, how many
    degenerate faces were left out (the face enumeration's budget spent), and, where ``clock``'s limit stopped the
    search, how far it got (else None)."""
    m, n = Bp.shape
    early, reach = [], [0]  # what support enumeration finds while qhull runs in a child process, and how far it got
    verts = _polytope_vertices(Bp, clock, meanwhile=_small_supports(Ap, Bp, early, reach))
    if verts is None:
        return (
            early,
            False,
            0,
            (
                f"before qhull had listed the best-response polytope's vertices (at most {shown_vertices(m, n)}), "
                f"having searched the supports of up to {reach[0]} strategies a side meanwhile"
            ),
        )
    scale = float(np.abs(verts).max()) or 1.0
    vtol = 1e-9 * scale
    seen = set()
    degenerate, profiles = False, []
    skipped, used = 0, [0]  # degenerate faces left out, and the subsets enumerated over all of them
    clock.bar(len(verts), unit="vertex", desc="polytope")
    for k, v in enumerate(verts):
        if k % 64 == 0:
            clock.advance(64 if k else 0)
            if clock.expired():
                return profiles + early, degenerate, skipped, f"after {k:,} of the polytope's {len(verts):,} vertices"
        v = np.where(np.abs(v) < vtol, 0.0, v)
        keyv = tuple(np.round(v / scale, 9))
        if keyv in seen or not (v > 0).any():
            continue
        seen.add(keyv)
        S = np.flatnonzero(v > vtol)
        slack = 1.0 - Bp.T @ v
        T = np.flatnonzero(np.abs(slack) <= 1e-9 * max(1.0, np.abs(Bp).max()))
        labels = (m - len(S)) + len(T)
        if labels > m:
            degenerate = True
        if len(T) < len(S) or len(T) == 0:
            continue
        try:
            zs, face = _tight_responses(Ap, S, T, used, skip=bool(skipped), clock=clock)
        except TimeUp:
            stop = f"after {k:,} of the polytope's {len(verts):,} vertices, in a degenerate face"
            return profiles + early, True, skipped, stop
        if face:
            degenerate = True
            skipped += not zs and used[0] > FACE_BUDGET
        for z in zs:
            y = np.zeros(n)
            y[T] = np.maximum(z, 0)
            if y.sum() <= 0:
                continue
            profiles.append((v / v.sum(), y / y.sum()))
    return profiles, degenerate, skipped, None


def _qhull_vertices(Bp: np.ndarray) -> np.ndarray:
    """The vertices of ``P = {x >= 0, Bp^T x <= 1}`` (qhull's halfspace intersection)."""
    from scipy.spatial import HalfspaceIntersection  # deferred: scipy.spatial (0.4 s); only this method uses it

    m, n = Bp.shape
    # halfspaces as [normal, offset] with normal . x + offset <= 0
    hs = np.vstack([np.hstack([-np.eye(m), np.zeros((m, 1))]), np.hstack([Bp.T, -np.ones((n, 1))])])
    interior = np.full(m, 0.5 / Bp.sum(axis=0).max())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return HalfspaceIntersection(hs, interior, qhull_options="Qt").intersections


def _qhull_worker(Bp: np.ndarray, queue) -> None:
    solver_child()
    try:
        queue.put(("ok", _qhull_vertices(Bp)))
    except Exception as exc:  # noqa: BLE001 - the parent runs qhull again in its own process, to raise it there
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def _polytope_vertices(Bp: np.ndarray, clock: SearchClock, meanwhile=None) -> np.ndarray | None:
    """The vertices of ``P = {x >= 0, Bp^T x <= 1}``, or None where ``clock``'s limit stopped qhull.

    The work is estimated first (:func:`max_vertices` times :data:`QHULL_SECONDS_PER_VERTEX`): where it fits in
    half the time left (or there is no limit), qhull runs here; else in a child process, stopped at the limit, while
    this one takes steps of ``meanwhile`` (a generator: a search whose answer stands in where qhull is stopped)."""
    left = clock.remaining()
    if left is None or qhull_seconds(*Bp.shape) <= left / 2:
        return _qhull_vertices(Bp)
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    q = ctx.Queue()
    p = ctx.Process(target=_qhull_worker, args=(Bp, q), daemon=True)
    try:
        p.start()
    except (AssertionError, OSError):  # no child here (a daemonic worker's process): qhull runs in this one
        return _qhull_vertices(Bp)
    clock.bar(None, unit="s", desc="polytope: qhull listing vertices")
    try:
        while True:
            try:
                status, payload = q.get(timeout=min(0.5, max(clock.remaining(), 1e-3)) if meanwhile is None else 1e-3)
                break
            except queue.Empty:  # not yet
                clock.refresh()
                if clock.expired():
                    return None
                if not p.is_alive() and q.empty():  # a child that died: qhull here, to say why
                    return _qhull_vertices(Bp)
                if meanwhile is not None and next(meanwhile, StopIteration) is StopIteration:
                    meanwhile = None
    finally:
        clock.close()
        stop_child(p)
    return payload if status == "ok" else _qhull_vertices(Bp)


#: support pairs solved in one batch by :func:`_small_supports` (a few milliseconds each, so that the clock and
#: the qhull child are looked at often)
_SUPPORT_BATCH = 20_000


def _small_supports(Ap: np.ndarray, Bp: np.ndarray, found: list, reach: list):
    """Support enumeration over supports of equal size, smallest first: a generator that does one batch of support
    pairs per step, appending to ``found`` the profiles ``(x, y)`` (not yet verified) that make every strategy of
    both supports a best response, and setting ``reach[0]`` to the largest size whose pairs are all searched.

    It runs while qhull lists the vertices in a child process: where the time limit stops qhull, what it found is
    the search's answer so far. A support pair whose systems are singular is skipped (a degenerate game's)."""
    m, n = Ap.shape
    for k in range(1, m + 1):
        rows = np.array(list(itertools.combinations(range(m), k)))
        cols = np.array(list(itertools.combinations(range(n), k)))
        pairs = len(rows) * len(cols)
        for a in range(0, pairs, _SUPPORT_BATCH):
            idx = np.arange(a, min(pairs, a + _SUPPORT_BATCH))
            I, J = rows[idx // len(cols)], cols[idx % len(cols)]
            y, v = _indifferent(Ap[I[:, :, None], J[:, None, :]])  # y on J makes the rows of I indifferent
            x, u = _indifferent(np.swapaxes(Bp[I[:, :, None], J[:, None, :]], 1, 2))
            ok = (y.min(axis=1) >= -1e-12) & (x.min(axis=1) >= -1e-12)
            for b in np.flatnonzero(ok):
                Y = np.zeros(n)
                Y[J[b]] = y[b]
                X = np.zeros(m)
                X[I[b]] = x[b]
                if (Ap @ Y).max() <= v[b] + 1e-9 and (X @ Bp).max() <= u[b] + 1e-9:
                    found.append((X, Y))
            yield
        reach[0] = k


def _indifferent(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each square matrix of the stack ``M`` (batch x k x k): the ``z`` with ``M z = w 1`` and ``sum z = 1``
    (and ``w``); NaN where the system is singular."""
    b, k, _ = M.shape
    S = np.zeros((b, k + 1, k + 1))
    S[:, :k, :k] = M
    S[:, :k, k] = -1.0
    S[:, k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    out = np.full((b, k + 1), np.nan)
    good = np.abs(np.linalg.det(S)) > 1e-12
    if good.any():
        out[good] = np.linalg.solve(S[good], np.broadcast_to(rhs, (int(good.sum()), k + 1))[..., None])[..., 0]
    return out[:, :k], out[:, k]


def _tight_responses(
    Ap: np.ndarray, S: np.ndarray, T: np.ndarray, used: list, skip: bool, clock: SearchClock | None = None
) -> tuple[list, bool]:
    """The second player's strategies ``z`` on the tight columns ``T`` that make the first player's support
    ``S`` best responses (``Ap[S, T] z = 1``, the others at most 1), and whether they came from a degenerate
    face's enumeration (``_face_vertices``, on a budget shared by the game: ``used``; none once ``skip``; raises
    :class:`~gamemarket.games.budget.TimeUp` once ``clock``'s limit is reached)."""
    m = Ap.shape[0]
    Sc = np.setdiff1d(np.arange(m), S)
    ytol = 1e-9 * max(1.0, np.abs(Ap).max())
    if len(T) == len(S) and np.linalg.matrix_rank(Ap[np.ix_(S, T)]) == len(S):
        zs = [np.linalg.solve(Ap[np.ix_(S, T)], np.ones(len(S)))]
        zs = [z for z in zs if z.min() >= -ytol and (len(Sc) == 0 or (Ap[np.ix_(Sc, T)] @ z).max() <= 1 + ytol)]
        return zs, False
    try:  # one budget for the whole game: a game of many equal payoffs is answered in seconds
        zs = _face_vertices(Ap[np.ix_(S, T)], Ap[np.ix_(Sc, T)], ytol, used=used, clock=clock) if not skip else []
    except FaceBudgetExceeded:
        zs = []
    return zs, True


def _pure_profiles(A, B, tol) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pure equilibria of ``(A, B)`` as pairs of unit vectors."""
    out = []
    for i, j in pure_equilibria(A, B, tol=tol):
        x = np.zeros(A.shape[0])
        x[i] = 1
        y = np.zeros(A.shape[1])
        y[j] = 1
        out.append((x, y))
    return out


# ---------------------------------------------------------------------------- the methods, registered
@dataclass(frozen=True)
class EquilibriumMethod:
    """A registered equilibrium method of :func:`solve`: ``find(A, B, tol, time_limit, notes)`` gives the profiles
    it finds in a game (payoffs normalised to [0, 1], dominated strategies removed), not yet verified, and whether
    it found the game degenerate; what it has to say goes to ``notes``."""

    name: str
    find: Callable[..., tuple[list, bool]]
    description: str
    exhaustive: bool = False  #: finds every extreme equilibrium (within its time limit where it has one)


#: the equilibrium methods by name (``gamemarket game solve --methods``); an unknown name lists them
EQUILIBRIUM_METHODS: Registry[EquilibriumMethod] = Registry("method")


def register_method(name: str, find, description: str, *, exhaustive: bool = False, replace: bool = False):
    """Register an equilibrium method (:class:`EquilibriumMethod`) for :func:`solve` under ``name``."""
    return EQUILIBRIUM_METHODS.register(name, EquilibriumMethod(name, find, description, exhaustive), replace=replace)


#: the most cells of a kept game too large for the exact pass whose finest payoff difference is looked for, to say
#: where the float methods may not resolve it (:func:`_mixed_scales`; 1,000 x 1,000: a sort of a tenth of a second)
MIXED_SCALE_CELLS = 1_000_000
#: the most pure profiles the "pure" method lists as candidates, each verified apart: a 1,000 x 1,000 game of equal
#: payoffs, every profile an equilibrium, took 16.7 GB under a 3 GB limit for its million (hunt 25b-F1's sibling); past
#: it the listing is partial
MAX_PURE_CANDIDATES = 100_000
#: the memory the pure method's equilibria may hold at least (:func:`most_pure_candidates`)
PURE_LIST_BYTES = 1 << 26
#: cells of the best-response mask read at a time while the first candidates are looked for (:func:`_first_cells`)
PURE_BLOCK_CELLS = 1 << 20


class _PureProfiles(Sequence):
    """Pure profiles of an ``m x n`` game as pairs of unit vectors, each made as it is read: the cells ``(i, j)``
    are held, not the vectors (hunt 31b-F1: 100,000 candidates of a 3,000 x 3,000 game of equal payoffs held 4.8 GB
    of unit vectors before the first was verified, past the memory limit, and took 5 s to list past a 2 s limit)."""

    def __init__(self, cells: np.ndarray, shape: tuple[int, int]):
        self.cells, self.shape = cells, shape

    def __len__(self) -> int:
        return len(self.cells)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return _PureProfiles(self.cells[k], self.shape)
        i, j = self.cells[k]
        x, y = np.zeros(self.shape[0]), np.zeros(self.shape[1])
        x[i], y[j] = 1.0, 1.0
        return x, y


def _first_cells(mask: np.ndarray, keep: int) -> np.ndarray:
    """The first ``keep`` true cells of ``mask`` in row order, as ``(i, j)`` rows, read a block of rows at a time
    (``np.argwhere`` of a 9-million-cell mask took 3.3 s and 144 MB for the first 100,000)."""
    m, n = mask.shape
    rows = max(1, PURE_BLOCK_CELLS // max(n, 1))
    found, got = [], 0
    for a in range(0, m, rows):
        flat = np.flatnonzero(mask[a : a + rows])[: keep - got]
        found.append(np.column_stack([flat // n + a, flat % n]))
        got += len(flat)
        if got >= keep:
            break
    return np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)


def most_pure_candidates(m: int, n: int) -> int:
    """The most pure profiles of an ``m x n`` game the "pure" method lists as candidates: :data:`MAX_PURE_CANDIDATES`,
    fewer where the equilibria they may become, each held as a profile of ``m + n`` floats, would take more memory
    than one copy of the game's payoffs (:data:`PURE_LIST_BYTES` at least). Verified a column and a row each
    (:func:`against`), 100,000 candidates of a 12,000 x 12,000 game were found in seconds, and held 19 GB."""
    budget = max(8 * m * n, PURE_LIST_BYTES)
    return max(1, min(MAX_PURE_CANDIDATES, budget // (8 * (m + n))))


def _pure_candidates(A, B, tol, time_limit: float, notes: list) -> tuple[_PureProfiles, bool]:
    both = _pure_mask(A, B, tol)
    count = int(both.sum())
    most = most_pure_candidates(*A.shape)
    keep = min(count, most)
    if keep < count:
        notes.append(
            f"incomplete: pure: the game has {count:,} pure equilibria by its best responses; the first {keep:,} "
            f"(in row order) are its candidates, each verified in turn while the time lasts (at most {most:,} in a "
            f"game of {A.shape[0]:,} x {A.shape[1]:,}: their profiles held in the memory of a copy of its payoffs, "
            f"{PURE_LIST_BYTES >> 20} MiB at least): a game of so many is one of tied payoffs, its equilibria sets of "
            "profiles"
        )
    return _PureProfiles(_first_cells(both, keep), A.shape), False


def _polytope_candidates(A, B, tol, time_limit: float | None, notes: list) -> tuple[list, bool]:
    return polytope_equilibria(A, B, tol, notes=notes, time_limit=time_limit)


def _nashpy_candidates(method: str, A, B, tol, time_limit: float, notes: list) -> tuple[list, bool]:
    if min(A.shape) == 1:  # nashpy needs two strategies a side; here the equilibria are best responses
        notes.append(
            f"nashpy {method}: the game left after iterated dominance is {A.shape[0]}x{A.shape[1]}; "
            "its equilibria (the best responses to the lone strategy) are found directly"
        )
        return _pure_profiles(A, B, tol), False
    profiles, problem = nashpy_equilibria(A, B, method, time_limit=time_limit)
    if problem and " failed: " in problem:  # nashpy's own error, on a game it does not expect
        problem += (
            f" (nashpy's {method.replace('_', ' ')} assumes a nondegenerate game and can fail on a degenerate "
            "one, a game of tied payoffs; polytope, the default, enumerates degenerate games too)"
        )
    if problem:  # stopped at the time limit, or failed: the search did not finish
        notes.append(f"incomplete: {problem}")
    return profiles, False


def _gambit_candidates(method: str, A, B, tol, time_limit: float | None, notes: list) -> tuple[list, bool]:
    if not gambit.available():
        raise InputError(f"equilibrium method {method!r} is pygambit's, which is not installed: {gambit.INSTALL}")
    if min(A.shape) == 1:  # a lone strategy: the equilibria are the best responses to it
        return _pure_profiles(A, B, tol), False
    profiles, problem = gambit.gambit_equilibria(A, B, method, time_limit=time_limit)
    if problem:  # stopped at the time limit, or failed: the search did not finish
        notes.append(f"incomplete: {problem}")
    return profiles, False


register_method("pure", _pure_candidates, "the pure equilibria, by best-response masks")
register_method(
    "polytope",
    _polytope_candidates,
    "every extreme equilibrium, by best-response polytopes (qhull), under the time limit",
    exhaustive=True,
)
for _method, _what in (
    ("support_enumeration", "nashpy's support enumeration"),
    ("vertex_enumeration", "nashpy's vertex enumeration"),
    ("lemke_howson", "nashpy's Lemke-Howson from every initial label"),
    ("lemke_howson_first", "nashpy's Lemke-Howson from the initial labels in turn until one ends: an equilibrium"),
):
    register_method(_method, functools.partial(_nashpy_candidates, _method), f"{_what}, under the time limit")
for _method, _what in gambit.GAMBIT_METHODS.items():
    register_method(_method, functools.partial(_gambit_candidates, _method), _what)
EQUILIBRIUM_METHODS.seal()
#: the methods :func:`solve` (and every command and analysis that solves) uses unless told otherwise
DEFAULT_METHODS = ("pure", "polytope")
assert set(DEFAULT_METHODS) <= set(EQUILIBRIUM_METHODS), "the default methods are registered"


def solve(
    game: Game,
    *,
    methods=DEFAULT_METHODS,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    rel_tol: float = 1e-9,
    eliminate: bool = True,
    progress: bool | None = None,
    complete: bool = False,
) -> Solution:
    """All equilibria the chosen methods find, each verified by regret and deduplicated.

    Parameters
    ----------
    game : Game
    methods : str or sequence of str, keyword-only
        Names of registered methods (``EQUILIBRIUM_METHODS``: "pure", "polytope", our own and exhaustive, and
        nashpy's "support_enumeration", "vertex_enumeration", "lemke_howson"), at least one (or one name); default
        ``DEFAULT_METHODS``. An unknown name is an error listing the registered ones, before any method runs.
    time_limit : float or None, keyword-only
        Wall-clock seconds each method may spend on the game (default 10; None: no limit). A method stopped by it
        (or failing) leaves a note beginning "incomplete:" that says how far it got, and ``complete`` is False
        unless a method that enumerates every extreme equilibrium ("polytope") finished. What was found is listed,
        each profile verified by its regret. A game whose search finishes within the limit gets the same answer
        whatever the limit.
    rel_tol : float, keyword-only
        A profile is an equilibrium where each player's regret is at most ``rel_tol`` times its payoffs' spread (at
        most ``ACCEPT_FLOOR``, 1e-8, where ``rel_tol`` is smaller: the methods' floating-point slack); a number in
        (0, 1), as :func:`gamemarket.games.rsg_equilibria.equilibria` takes it. With ``eliminate``, the spread of the
        payoffs among the strategies iterated dominance keeps. With ``rel_tol`` at most ``ACCEPT_FLOOR`` each regret
        is also small against the payoffs it compares (:func:`_locally_small`; dominance by any margin beyond rounding).
    eliminate : bool, keyword-only
        Remove iteratively strictly dominated strategies first.
    progress : bool or None, keyword-only
        A progress bar on stderr for a search that runs more than a few seconds: True, False, or None (where
        stderr is a terminal).
    complete : bool, keyword-only
        Enumerate every extreme equilibrium ("polytope") however long it may take (under ``time_limit``). By
        default, a game whose enumeration's estimated work (:func:`enumeration_seconds`) exceeds the time limit is
        answered by a method that finds one equilibrium or a few (:func:`large_game_method`: Gambit's GNM, else
        nashpy's Lemke-Howson), and a note beginning "partial:" says so; ``exhaustive`` is then False.
    """
    time_limit = check_time_limit(time_limit)
    methods, rel_tol = _checked_arguments(
        game, methods, rel_tol, eliminate=eliminate, progress=progress, complete=complete
    )
    A, B = _sized(game)
    tol = (rel_tol, rel_tol)
    m, n = A.shape
    notes = []
    with progress_wanted(progress):  # (dominance's bar as the methods' show theirs: hunt 36c-F1)
        An, Bn, sa, sb, rows_kept, cols_kept, left = _normalised(A, B, tol, eliminate, time_limit, notes)
    ri, ci = np.flatnonzero(rows_kept), np.flatnonzero(cols_kept)
    (Ar, Br), (Ak, Bk) = _kept_games((An, Bn), (A, B), ri, ci)
    switched = _large_game_switch(methods, Ar.shape, time_limit, complete)
    finders = [(m, EQUILIBRIUM_METHODS.get(m).find) for m in methods]
    lift = functools.partial(_lifted, ri, ci, (m, n))

    found, by_support = [], {}  # the equilibria found, and by support (:func:`_support_key`)
    degenerate = False
    accept = (max(tol[0], ACCEPT_FLOOR), max(tol[1], ACCEPT_FLOOR))  # kept: each regret within it (of the spread)
    # equilibria asked (rel_tol at most the floor): each regret small against what it compares (the methods' own
    # rounding relative to the kept game's spread); a looser rel_tol asks for approximate equilibria
    exact, spread = max(tol) <= ACCEPT_FLOOR, (sa, sb)

    def add(x, y, method):
        x = np.asarray(x, dtype=float).ravel()
        y = np.asarray(y, dtype=float).ravel()
        if x.shape != (len(ri),) or y.shape != (len(ci),) or not (np.isfinite(x).all() and np.isfinite(y).all()):
            notes.append(f"{method}: returned a profile of the wrong shape or with non-finite entries (discarded)")
            return
        if x.min() < -1e-9 or y.min() < -1e-9 or abs(x.sum() - 1) > 1e-6 or abs(y.sum() - 1) > 1e-6:
            notes.append(f"{method}: returned a vector that is not a probability distribution (discarded)")
            return
        x, y = _cleaned(x), _cleaned(y)
        X, Y = lift(*(kx := _closer(Ak, Bk, (x, y), _polished(Ak, Bk, x, y))))
        Ay, xB = against(An, Bn, X, Y)  # ``regret(An, Bn, X, Y)``: An and Bn are shifted to a minimum of 0 already
        rn = (max(0.0, float(Ay.max() - X @ Ay)), max(0.0, float(xB.max() - xB @ Y)))  # (rounding: -1.1e-16, 28c-W1)
        rg = (rn[0] * sa, rn[1] * sb)
        if rn[0] > accept[0] or rn[1] > accept[1] or (exact and not _locally_small(Ak, Bk, *kx, accept, spread)):
            notes.append(_discarded(method, rg, Ak, Bk, *kx))
            return
        bucket = by_support.setdefault(_support_key(X, Y), [])  # (the same support: hunt 26c-F1)
        for e in bucket:  # np.allclose's rule (|a - b| <= 1e-7 + 1e-5 |b|), without its cost on small vectors
            if _close(e.x, X) and _close(e.y, Y):
                e.methods.add(method)
                return
        found.append(Equilibrium(X, Y, payoffs_at(A, B, X, Y), rg, {method}))
        bucket.append(found[-1])

    # method -> whether it finished (left no "incomplete:" note); -> seconds its search took (the exact pass's clock)
    finished, spent = {}, {}
    checking = [0.0]  # seconds spent verifying so far: the verification's own budget, the limit in all
    for method, find in finders:
        before, t0 = len(notes), limit_clock()
        with progress_wanted(progress):
            profiles, deg = find(Ar, Br, tol, left, notes)
            spent[method], degenerate = limit_clock() - t0, degenerate | deg
            verified = _verify_each(profiles, lambda x, y, m=method: add(x, y, m), time_limit, checking, method, notes)
        finished[method] = verified and not any(n.startswith("incomplete:") for n in notes[before:])
    degenerate |= any(len(sx) != len(sy) for sx, sy in (e.supports() for e in found)) or _pure_ties(An, Bn, tol)
    if exact:  # (equilibria asked, not rel_tol's approximate ones: the exact pass answers the former)
        games = (A, B, Ak, Bk)
        found, degenerate = _mixed_scales(games, lift, (found, degenerate), finished, (time_limit, spent), notes)
    if switched:
        notes.append(switched.format(found=f"{len(found):,} equilibri{'um' if len(found) == 1 else 'a'}"))
    complete, exhaustive = _how_complete(finished, switched, notes)
    found.sort(key=lambda e: (not e.pure, -e.payoffs[0], -e.payoffs[1]))
    return Solution(
        game,
        found,
        degenerate,
        [game.rows[i] for i in np.flatnonzero(~rows_kept)],
        [game.cols[j] for j in np.flatnonzero(~cols_kept)],
        _discards_grouped(notes),
        complete=complete,
        exhaustive=exhaustive,
    )


def _discarded(method: str, rg: tuple, Ak: np.ndarray, Bk: np.ndarray, x: np.ndarray, y: np.ndarray) -> str:
    """A discarded profile's note, its regret ``rg`` (the normalised one, in the game's units) computed again in the
    game's units where that read 0: normalised by a spread of 1e300, a regret of 1e-300 was "regret 0, 0, not an
    equilibrium" (hunt 33b-W1)."""
    if not (rg[0] or rg[1]):
        Ay, xB = Ak @ y, x @ Bk
        rg = (max(0.0, float(Ay.max() - x @ Ay)), max(0.0, float(xB.max() - xB @ y)))
    return f"{method}: returned a profile with regret {rg[0]:.3g}, {rg[1]:.3g}, not an equilibrium (discarded)"


def _kept_games(normalised: tuple, units: tuple, ri: np.ndarray, ci: np.ndarray) -> tuple[tuple, tuple]:
    """The game dominance kept (rows ``ri``, columns ``ci``), normalised (the methods') and in the game's units (the
    verification's), each copied once where dominance removed a strategy and not at all where it removed none (hunt
    31b-F1: the kept game, copied four times per candidate verified, took 3.4 s to verify one candidate of a 3,000 x
    3,000 game, and its copies held 1.2 GB of a 6,000 x 6,000 game past the memory limit)."""
    m, n = units[0].shape
    if len(ri) == m and len(ci) == n:
        return normalised, units
    kept = np.ix_(ri, ci)
    return (normalised[0][kept], normalised[1][kept]), (units[0][kept], units[1][kept])


def _by(scale: float) -> str:
    """A payoff difference relative to the spread, in words: ``by as little as 1e-12``, or ``by less than 1e-308``
    where the ratio is below the float range (it read "as little as 0 of their spread", hunt 32b-W3)."""
    return f"by as little as {scale:.2g}" if scale > 0 else "by less than 1e-308"


def _lifted(ri, ci, shape: tuple, x, y) -> tuple[np.ndarray, np.ndarray]:
    """A profile of the kept game (rows ``ri``, columns ``ci``) as one of the whole game of ``shape``."""
    X, Y = np.zeros(shape[0]), np.zeros(shape[1])
    X[ri], Y[ci] = x, y
    return X, Y


def _mixed_scales(games: tuple, lift, answer: tuple, finished: dict, limits: tuple, notes: list) -> tuple[list, bool]:
    """``answer`` (the equilibria found, whether the game is degenerate) where the float methods resolve every
    difference of the kept game's payoffs; else their exact enumeration's (:func:`_exactly`) where polytope ran to its
    end and the game is small, or ``answer`` with a note saying what may be amiss. ``games``: the game's payoffs
    and the kept game's (``A, B, Ak, Bk``); ``limits``: the time limit, and the seconds each method's search took
    (the exact pass is polytope's, on polytope's clock: with its own, a solve could take twice the limit, the review
    of the exact pass). A game of more than :data:`MIXED_SCALE_CELLS` cells that the exact pass cannot take is not
    looked at: finding its finest difference sorts every payoff, seconds past any time limit (hunt 31b-F1: 7.8 s of
    a 6,000 x 6,000 game under a 2 s limit)."""
    time_limit, spent = limits
    Ak, Bk = games[2:]
    small = vertex_pairs.fits(*Ak.shape)
    if not small and Ak.size > MIXED_SCALE_CELLS:  # (not sorted: a pass that tells where it may be amiss instead)
        near = min(_least_step(Ak), _least_step(Bk))
        if near < exact_mod.UNRESOLVED:  # (its note was dropped with the sort: the review)
            notes.append(
                f"{_mixed_scale_note(near)} (told from the payoffs' least distance from each player's least payoff: "
                "a game of this size is not sorted for its finest difference)"
            )
        return answer
    scale = exact_mod.finest_scale(Ak, Bk)  # (once a solve: every game solved pays for it)
    if scale >= exact_mod.MIXED_SCALE:
        return answer
    if small and finished.get("polytope"):
        clock = SearchClock(time_limit)
        clock.start -= spent.get("polytope", 0.0)  # (what polytope took counts against the limit)
        again = _exactly(games, lift, answer[0], clock, notes, scale)
        if again is None or not again[2]:  # the float answer stands, unconfirmed (the search did not finish), or an
            # equilibrium floats cannot write was left out
            finished["polytope"] = False
        return answer if again is None else again[:2]
    if scale < exact_mod.UNRESOLVED:  # (a plain 60x60 game's 8e-8 resolved: 29c-W4)
        notes.append(_mixed_scale_note(scale))
    return answer


def _exactly(
    games: tuple, lift, found: list, clock: SearchClock, notes: list, scale: float
) -> tuple[list, bool, bool] | None:
    """The extreme equilibria of the kept game ``games[2:]`` (of the game ``games[:2]``) computed again in exact
    arithmetic (:mod:`gamemarket.games.exact`), where its payoffs differ by less than the float methods resolve:
    ``(found, degenerate, whole)`` with the exact list in place of the methods' (each keeping the names of the
    methods that found it on its support, the others' profiles discarded, each said; ``whole``: no equilibrium left
    out for shares floats cannot write), or None where the time limit stopped it first (the float answer stands,
    said "incomplete:")."""
    A, B, Ak, Bk = games
    answer = exact_mod.exact_equilibria(Ak, Bk, clock)
    if answer is None:
        notes.append(
            f"incomplete: exact: the payoffs differ {_by(scale)} of their spread, finer than the float methods "
            f"resolve, and their exact enumeration stopped at the time limit of {clock.limit:g} s (polytope's search "
            "and this enumeration together): an equilibrium of shares below about 1e-9 may be missing, or one listed "
            f"that holds only to rounding; {RAISE_LIMIT}"
        )
        return None
    by_support: dict = {}
    for e in found:  # (every profile of a support, not the last alone: the others went unsaid, the review)
        by_support.setdefault(_support_key(e.x, e.y), []).append(e)
    out = []
    for x, y in answer.profiles:
        X, Y = lift(x, y)
        twins = by_support.get(_support_key(X, Y), [])
        twin = twins.pop(0) if twins else None
        Ay, xB = A @ Y, X @ B
        regret = (max(0.0, float(Ay.max() - X @ Ay)), max(0.0, float(xB.max() - xB @ Y)))
        out.append(Equilibrium(X, Y, (float(X @ Ay), float(xB @ Y)), regret, twin.methods if twin else {"exact"}))
    for e in (e for left in by_support.values() for e in left):
        notes.append(
            f"{', '.join(sorted(e.methods))}: returned a profile with regret {e.regret[0]:.3g}, {e.regret[1]:.3g}, an "
            "equilibrium only to the float methods' tolerance, not in exact arithmetic (discarded)"
        )
    notes.append(
        f"exact: the payoffs differ {_by(scale)} of their spread, finer than the float methods resolve: every "
        f"extreme equilibrium enumerated again in exact rational arithmetic (python-flint): {len(out):,}; the game is "
        f"{'' if answer.degenerate else 'not '}degenerate, exactly"
    )
    if answer.lost:  # (listed as a pure equilibrium of regret 1e-300, its shares of 1e-600 read as 0: hunt 33b-F1)
        k = len(answer.lost)
        notes.append(
            f"incomplete: exact: {k:,} more extreme equilibri{'um' if k == 1 else 'a'} mix{'es' if k == 1 else ''} "
            f"with shares as small as about 1e{min(answer.lost)}, below the float range (about 1e-308), which floats "
            f"cannot write: left out (the profile such shares round to is no equilibrium); a positive multiple of the "
            "payoffs has the same shares"
        )
    return out, answer.degenerate, not answer.lost


#: a method's discarded profiles said one by one up to this many; past it, in one note (a near-degenerate 4x4 game's
#: float vertices gave 400 lines of "not an equilibrium (discarded)", hunt 27c-F2's game; three identical lines of
#: the pure method's were still three, 29c-W6)
DISCARDS_SAID = 1
_DISCARD = re.compile(
    r"^(.+): returned a profile with regret (\S+), (\S+), (not an equilibrium|an equilibrium only to the float "
    r"methods' tolerance, not in exact arithmetic) \(discarded\)$"
)


def _discards_grouped(notes: list) -> list:
    """``notes`` with each method's "returned a profile with regret a, b, not an equilibrium (discarded)" notes past
    :data:`DISCARDS_SAID` said once, with their count and largest regrets, where the first of them stood (and alike
    the exact pass's "... not in exact arithmetic (discarded)": 333 lines on a 7x7 game, hunt 29b-W1)."""
    said = {}
    for n in notes:
        if hit := _DISCARD.match(n):
            said.setdefault((hit[1], hit[4]), []).append((float(hit[2]), float(hit[3])))
    out, done = [], set()
    for n in notes:
        hit = _DISCARD.match(n)
        key = None if hit is None else (hit[1], hit[4])
        if hit is None or len(said[key]) <= DISCARDS_SAID:
            out.append(n)
        elif key not in done:
            done.add(key)
            worst = np.max(said[key], axis=0)
            what = "not an equilibrium" if hit[4] == "not an equilibrium" else "not an equilibrium in exact arithmetic"
            out.append(
                f"{hit[1]}: returned {len(said[key]):,} profiles, each {what} (discarded; the largest regrets "
                f"{worst[0]:.3g}, {worst[1]:.3g})"
            )
    return out


def _least_step(M: np.ndarray) -> float:
    """The least positive distance of a payoff from the player's least one, relative to their spread (1.0 where
    every payoff is equal): a bound of the finest difference (:func:`gamemarket.games.exact.finest_scale`) found
    without a sort, a block of rows at a time (no copy of a large game)."""
    low, high = float(M.min()), float(M.max())
    if high <= low:
        return 1.0
    rows = max(1, PURE_BLOCK_CELLS // max(M.shape[1], 1))
    least = high - low
    for a in range(0, M.shape[0], rows):
        d = M[a : a + rows] - low
        d = d[d > 0]
        least = min(least, float(d.min())) if d.size else least
    return least / (high - low)


def _mixed_scale_note(scale: float) -> str:
    """What a game whose payoffs are finer than the float methods resolve, too large for the exact pass, is told."""
    return (
        f"mixed scales: the payoffs differ {_by(scale)} of their spread, finer "
        "than the float methods resolve (about 1e-9 of it): an equilibrium of shares below that may be missing, or "
        "one listed that holds only to rounding; the exact pass runs beside the polytope method (the default), on "
        f"games of at most {vertex_pairs.MAX_CHOICES:,} choices of tight constraints (after dominance)"
    )


def _locally_small(Ak, Bk, x, y, accept, spread=(0.0, 0.0)) -> bool:
    """Whether each player's regret at ``(x, y)`` in the kept game ``(Ak, Bk)``, in the game's own units, is within
    ``accept`` of the spread of the payoffs it compares (what each of its strategies earns against the other's
    mixture), beyond their rounding: the spread of the whole game made a regret of 1 on payoffs of 0 to 9 "within
    tolerance" where one strategy of each player paid the other 1e9 (hunt 23b-F1's family)."""
    Ay, xB = against(Ak, Bk, x, y)  # (the kept game given, not copied: 2.7 s a candidate of 6,000 x 6,000, 31b-F1)
    # the rounding of each side: its payoffs against the other's support, each summed with a share known to rounding
    # (hunt 24c-F1: a share of 1e-6 facing a payoff of 1e6 left a regret of 4.9e-11, which the summed sizes missed)
    # and the methods' own rounding, relative to the spread of the game they solved (``spread``: hunt 24c-F1 too, a
    # share computed from payoffs normalised by a spread of 1.9e6 was off by 1e-11)
    # shares the methods computed: the other player's, where it mixes (a pure strategy's share is exactly 1)
    for gains, own, size, slack, kept in (
        (Ay, x @ Ay, np.abs(Ak[:, y > 0]).max(initial=0.0), accept[0], spread[0] * ((y > 0).sum() > 1)),
        (xB, xB @ y, np.abs(Bk[x > 0]).max(initial=0.0), accept[1], spread[1] * ((x > 0).sum() > 1)),
    ):
        # (of the best and the own payoffs, not of a deviation nobody takes: a -1e9 there made a regret of 1 on payoffs
        # of 2 "small", hunt 24b-F1)
        with np.errstate(over="ignore"):  # (near 1.8e308 the sum is inf and the spread, finite, is the scale)
            scale = min(gains.max() - gains.min(), abs(gains.max()) + abs(own))
        if gains.max() - own > slack * scale + LOCAL_ROUNDING * size + SPREAD_ROUNDING * kept:
            return False
    return True


#: the rounding of a regret computed in the game's units, relative to the size of the payoffs it sums
#: (:func:`_locally_small`)
LOCAL_ROUNDING = 1e3 * np.finfo(float).eps
#: the rounding of what the methods return, relative to the spread of the (normalised) game they solved
SPREAD_ROUNDING = 64 * np.finfo(float).eps


#: candidates verified between two looks at the clock (:func:`_verify_each`): each, since a candidate of a 2,000 x
#: 2,000 game takes 0.2-0.6 s to verify and 64 of them ran 43 s past a 1 s limit (hunt 26b-F2); a look is a
#: microsecond
VERIFY_PER_LOOK = 1


def _normalised(A, B, tol, eliminate: bool, time_limit, notes: list):
    """The payoffs the methods and the regrets work on, ``(An, Bn, sa, sb, rows_kept, cols_kept, left)``: each player's
    shifted and divided by its spread (``sa``, ``sb``), and the strategies iterated dominance keeps (``_eliminated``).

    Equilibria are invariant under a positive affine map of each player's payoffs: every method works on payoffs
    normalised to [0, 1], so that neither a large offset (1e12) nor a large scale (1e200) costs precision or
    overflows; payoffs and regrets are reported in the game's own units. Where dominance removed strategies, the
    spread is that of the payoffs the game left holds: a strictly dominated column paying 1e12 made every payoff of
    the others "equal within tolerance", and two pure profiles of regret 2 in matching pennies were listed as
    equilibria (hunt 21b-F1). A regret in the game left is the whole game's: no eliminated strategy is a best response
    to what the game left plays."""
    sa, sb = _scale(A), _scale(B)
    An, Bn = (A - A.min()) / sa, (B - B.min()) / sb
    rows_kept, cols_kept, left = _eliminated(An, Bn, tol, eliminate, time_limit, notes)
    if eliminate and rows_kept.sum() * cols_kept.sum() <= MIXED_DOMINANCE_CELLS:  # (hunt 22a-F3, 22b-F3: a column
        # dominated by a mixture alone, paying the other 1e12, listed four profiles of regret 1 and 2; nashpy found
        # the one): strictly dominated by a mixture is strictly dominated, and no equilibrium plays it
        clock = SearchClock(_share(left))  # (hunt 23c-F1: a 2 x 1000 game's linear programs ran 13 s past 2 s)
        try:
            rows_kept, cols_kept = _beyond_mixtures(An, Bn, rows_kept, cols_kept, tol, clock)
        except _Partly as stop:
            rows_kept, cols_kept = stop.rows, stop.cols
            left = _after(clock, left, "dominance by mixtures", notes)
    if not (rows_kept.all() and cols_kept.all()):
        kept = np.ix_(rows_kept, cols_kept)
        sa, sb = _scale(A[kept]), _scale(B[kept])
        An, Bn = (A - A[kept].min()) / sa, (B - B[kept].min()) / sb
    return An, Bn, sa, sb, rows_kept, cols_kept, left


#: the most cells of the game left after iterated dominance by pure strategies for which the strategies a mixture
#: dominates are removed too (:func:`_beyond_mixtures`: a linear program per strategy)
MIXED_DOMINANCE_CELLS = 10_000


class _Partly(Exception):
    """Internal: dominance by mixtures stopped at its clock, with the strategies kept so far (``rows``, ``cols``)."""

    def __init__(self, rows, cols):
        super().__init__("stopped")
        self.rows, self.cols = rows, cols


def _beyond_mixtures(An, Bn, rows, cols, tol: tuple[float, float], clock: SearchClock | None = None):
    """``rows`` and ``cols`` less the strategies strictly dominated by a mixture of the others kept, iterated: the
    strategies whose payoffs decide the game (the methods' game, whose spread the tolerances are relative to). A
    mixture dominates by any margin beyond the rounding of the payoffs it compares (:func:`_dominated_by_mixtures`),
    not only beyond the players' tolerances (``tol``, of the spread: a margin of 1 beside a payoff of 1e12 is below
    them, and decides the game all the same, hunt 23b-F1); by more than a tolerance looser than ``ACCEPT_FLOOR``,
    which asks for approximate equilibria."""
    rows, cols = rows.copy(), cols.copy()
    changed = True
    while changed:
        changed = False
        for mask, M, margin in ((rows, An[:, cols], tol[0]), (cols, Bn[rows].T, tol[1])):
            idx = np.flatnonzero(mask)
            # a tolerance looser than the acceptance's floor asks for approximate equilibria, which may play a
            # strategy dominated by less than it: only a margin beyond it removes one then
            try:
                out = _dominated_by_mixtures(M[idx], margin if margin > ACCEPT_FLOOR else 0.0, clock)
            except TimeUp:
                raise _Partly(rows, cols) from None
            if out.any() and (~out).any():
                mask[idx[out]] = False
                changed = True
    return rows, cols


def _dominated_by_mixtures(M: np.ndarray, margin: float, clock: SearchClock | None = None) -> np.ndarray:
    """Which rows of ``M`` (a player's normalised payoffs: its strategies by the other's) a mixture of the other rows
    pays more than against every column.

    A linear program each finds the mixture, its constraints scaled column by column (each opponent strategy's
    payoff differences to their largest), so that a margin tiny against the game's spread but not against the
    payoffs it compares is found (hunt 23b-F1: a column dominated by a margin of 1 in payoffs of +-1 and of 1e12 was
    kept, and 15 profiles of regret 1 and 2 in matching pennies were listed as equilibria); the mixture found is then
    checked in plain arithmetic: it dominates where its margin in every column exceeds ``margin`` or, where that is
    larger, the rounding of the payoffs compared (:data:`DOMINANCE_ROUNDING` times their size)."""
    from scipy.optimize import linprog  # deferred: scipy.optimize (about a second), only where a game is this small

    k, n = M.shape
    out = np.zeros(k, dtype=bool)
    for i in range(k):
        others = [r for r in range(k) if r != i and not out[r]]
        if not others:
            continue
        if clock is not None:
            clock.check()  # (TimeUp: the caller keeps what it has not examined)
        D = M[others] - M[i]  # each other strategy's gain over strategy i, against each of the opponent's
        scale = np.abs(D).max(axis=0)
        if not (scale > 0).all():  # every other one ties with i against some strategy: no strict margin there
            continue
        # maximise t: sum_r p_r D[r, j] / scale_j >= t for every column j, sum p = 1, p >= 0
        c = np.zeros(len(others) + 1)
        c[-1] = -1.0
        a_ub = np.hstack([-(D / scale).T, np.ones((n, 1))])
        a_eq = np.r_[np.ones(len(others)), 0.0][None, :]
        bounds = [(0, None)] * len(others) + [(None, None)]
        res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
        if res.status != 0 or not -res.fun > 0:
            continue
        p = np.clip(res.x[:-1], 0.0, None)
        p /= p.sum()
        mixed = p @ M[others]
        rounding = DOMINANCE_ROUNDING * np.maximum(np.abs(mixed), np.abs(M[i]))
        out[i] = bool(np.all(mixed - M[i] > np.maximum(margin, rounding)))
    return out


#: the rounding of a payoff compared in :func:`_dominated_by_mixtures`, relative to its size: a mixture's margin
#: must exceed it to dominate (64 units in the last place of a double)
DOMINANCE_ROUNDING = 64 * np.finfo(float).eps


def _verify_each(profiles: list, add, limit: float | None, spent: list, method: str, notes: list) -> bool:
    """Each candidate of ``method`` verified by ``add`` (its regret) while the verification's budget lasts (``limit``
    seconds in all, None: no limit; ``spent[0]``: the seconds the earlier methods' verification took, updated),
    looked at every :data:`VERIFY_PER_LOOK`: past it the rest are left out, in an "incomplete:" note, and False is
    returned (a 300 x 300 game whose every pure profile is an equilibrium took 24-39 s of verification past a 3 s
    limit: hunt 21b-F6). The verification's budget is its own, as long as the search's: what a search stopped at its
    limit found is verified, not dropped."""
    t0 = time.monotonic()
    clock = SearchClock(None)  # (the bar's: a large game's candidates were verified for seconds without a line, 36c-F1)
    clock.bar(len(profiles), unit=" candidates", desc=f"{method}: candidates verified")
    try:
        return _verify_within(profiles, add, limit, spent[0], t0, method, notes, clock)
    finally:
        clock.close()
        spent[0] += time.monotonic() - t0


def _verify_within(profiles: list, add, limit, spent: float, t0: float, method: str, notes: list, clock) -> bool:
    """:func:`_verify_each`'s loop (``spent`` seconds of the budget gone before ``t0``; ``clock``: its bar's)."""
    for k, (x, y) in enumerate(profiles):
        if k % VERIFY_PER_LOOK == 0 and limit is not None and spent + time.monotonic() - t0 >= limit:
            notes.append(
                f"incomplete: the time limit of {limit:g} s was reached while verifying what {method} found: "
                f"{len(profiles) - k:,} of its {len(profiles):,} candidates were left unverified (left out); "
                f"{RAISE_LIMIT}"
            )
            return False
        add(x, y)
        clock.advance()
    return True


def check_methods(methods) -> list[str]:
    """The equilibrium methods asked for, as a list of registered names: one name (a text) or a sequence of them,
    at least one; an unknown name is an :class:`InputError` listing the registered ones, before any method runs
    (``methods=()`` answered nothing and called it complete, ``methods="pure"`` asked for method 'p')."""
    given = [methods] if isinstance(methods, str) else methods
    try:
        methods = list(given)
    except TypeError:
        methods = []
    if not methods:
        raise InputError(
            f"methods must name at least one equilibrium method, got {shown_value(given)}; expected some of "
            f"{sorted(EQUILIBRIUM_METHODS)}"
        )
    for m in methods:  # an unknown name is an error before anything runs
        EQUILIBRIUM_METHODS.get(m)
    return methods


def _checked_arguments(game, methods, rel_tol, *, eliminate, progress, complete) -> tuple[list[str], float]:
    """:func:`solve`'s arguments checked before anything runs: the game (a bimatrix game), the methods
    (:func:`check_methods`), ``rel_tol`` (as the role-symmetric solver checks it) and the flags."""
    if not all(hasattr(game, a) for a in ("A", "B", "rows", "cols")):
        raise InputError(
            f"game must be a bimatrix game (gamemarket.games.Game(A, B) makes one from two payoff matrices), got "
            f"{type(game).__name__} {shown_value(game)}"
        )
    check_flag(eliminate, "eliminate")
    check_flag(complete, "complete")
    check_flag(progress, "progress", none=True)
    return check_methods(methods), check_rel_tol(rel_tol)


def _how_complete(finished: dict, switched: str | None, notes: list) -> tuple[bool, bool]:
    """``(complete, exhaustive)`` of a search whose methods finished or not (``finished``: method -> whether it left
    no "incomplete:" note). Every extreme equilibrium is listed where a method that enumerates them all finished;
    the search as asked finished where every method did, or where such a method did (the others' stops then lose
    nothing). Where only methods that find some equilibria ran, to their end, a "partial:" note says so."""
    enumerated = any(done and EQUILIBRIUM_METHODS.get(m).exhaustive for m, done in finished.items())
    if not switched and not enumerated and all(finished.values()):
        notes.append(
            f"partial: the methods asked ({', '.join(finished)}) do not enumerate every extreme equilibrium; "
            "polytope (the default) does"
        )
    return enumerated or all(finished.values()), enumerated and not switched


def _closer(A: np.ndarray, B: np.ndarray, mine: tuple, again: tuple) -> tuple:
    """The method's shares or those solved again in the game's units (:func:`_polished`): the smaller regret."""
    if again[0] is mine[0] and again[1] is mine[1]:  # (nothing solved again: a pure profile's, :func:`_polished`)
        return mine
    regrets = [max(unchecked_regret(A, B, *p)) for p in (mine, again)]
    return again if regrets[1] < regrets[0] else mine


def in_unit_spread(M: np.ndarray) -> np.ndarray:
    """A block of payoffs shifted to a least of 0 and divided by its greatest (where above 0): the same indifference
    system, solved beside the shares' row of ones at a scale of 1. Shifted only, a common 1e12 cost no precision, but
    a block of 1e6 or 1e-6 was solved to 1e-11 of its spread, worse than the method's own (hunt 39c-F1: Gambit's
    matching pennies discarded), and a bootstrap's resample of payoffs near 1e10 was never stable."""
    M = M - M.min()
    return M / M.max() if M.max() > 0 else M


def _polished(A: np.ndarray, B: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` with the shares of each mixed strategy solved again on its support in the game's own units (each
    player's shares make the other indifferent over the other's support, and sum to 1): the methods solve the game's
    payoffs divided by its spread, which costs a small block's shares their precision where one payoff dwarfs it
    (hunt 24c-F1: a share of 1/3 came back as 0.333358 beside a payoff of 1e12). Kept only where the solution is a
    distribution on the same support near the method's own (else the method's shares, as they were)."""
    S, T = np.flatnonzero(x > 0), np.flatnonzero(y > 0)
    if len(S) < 2 and len(T) < 2:  # a pure profile: no shares to solve (two passes over the game each, 35c-W2)
        return x, y
    # the other's best responses (its support, and strategies tying with it: a vertex of a degenerate game is fixed
    # by a tie no support shows), each side's shares solved to make them indifferent
    xB, Ay = x @ B, A @ y
    # (to the methods' rounding too: they solved payoffs divided by the block's spread)
    with np.errstate(over="ignore", invalid="ignore"):  # (payoffs near 1.8e308: their sums overflow, 29b-F4's game)
        BRc = np.flatnonzero(xB >= xB.max() - 1e-7 * (np.abs(xB).max() + np.ptp(xB)) - SPREAD_ROUNDING * np.ptp(B))
        BRr = np.flatnonzero(Ay >= Ay.max() - 1e-7 * (np.abs(Ay).max() + np.ptp(Ay)) - SPREAD_ROUNDING * np.ptp(A))
    BRc, BRr = np.union1d(BRc, T), np.union1d(BRr, S)
    out = []
    for own, support, other, M in ((x, S, BRc, B[np.ix_(S, BRc)].T), (y, T, BRr, A[np.ix_(BRr, T)])):
        if len(support) < 2:
            out.append(own)
            continue
        M = in_unit_spread(M)
        # M's rows: the other's support; unknowns: the shares on ``support`` and the common payoff v
        k = len(support)
        lhs = np.vstack([np.hstack([M, -np.ones((len(other), 1))]), np.r_[np.ones(k), 0.0][None, :]])
        rhs = np.r_[np.zeros(len(other)), 1.0]
        with np.errstate(all="ignore"):
            sol, _, rank, _ = np.linalg.lstsq(lhs, rhs, rcond=None)
        shares = sol[:k]
        near = (
            rank == k + 1
            and np.isfinite(shares).all()
            and shares.min() > 0
            and np.abs(shares - own[support]).max() < 1e-3
        )
        if not near:
            out.append(own)
            continue
        v = np.zeros_like(own)
        v[support] = shares / shares.sum()
        out.append(v)
    return out[0], out[1]


def _cleaned(v: np.ndarray) -> np.ndarray:
    """A method's probability vector made exact: negative rounding clipped, entries below 1e-12 dropped,
    normalised to sum 1."""
    v = np.maximum(v, 0)
    v /= v.sum()
    v[v < 1e-12] = 0
    return v / v.sum()


def _pure_ties(An: np.ndarray, Bn: np.ndarray, tol: tuple[float, float]) -> bool:
    """Whether some pure strategy has two best responses (within ``tol``): such ties make a game degenerate."""
    m, n = An.shape
    # (two best responses: two payoffs within tol of the column's or row's largest, counted, not sorted: the sorts
    # took 2.2 s of a 9,000 x 9,000 solve's passes no clock bounds, hunt 34b-F1)
    if m > 1 and ((An >= An.max(axis=0) - tol[0]).sum(axis=0) >= 2).any():
        return True
    return bool(n > 1 and ((Bn >= Bn.max(axis=1, keepdims=True) - tol[1]).sum(axis=1) >= 2).any())


def enumeration_seconds(m: int, n: int) -> float:
    """About how long the complete enumeration of an ``m x n`` game can take at most: the vertices its smaller
    player's best-response polytope can have (:func:`max_vertices`) times qhull's seconds per vertex. A small game
    (``vertex_pairs.fits``) takes a fraction of a millisecond."""
    if vertex_pairs.fits(m, n) or min(m, n) == 1:
        return 0.0
    return qhull_seconds(min(m, n), max(m, n))


def large_game_method(shape: tuple[int, int] | None = None, time_limit: float | None = None) -> str:
    """The method that answers a game too large to enumerate: Gambit's GNM where pygambit is installed (and, given
    the game's ``shape``, can build it within the memory limit and ``time_limit``: :func:`gambit.too_large`), else
    nashpy's Lemke-Howson from the first initial label whose path ends (a path from another label can run on to the
    time limit)."""
    if gambit.available() and (shape is None or gambit.too_large(shape, "gnm", time_limit) is None):
        return "gnm"
    return "lemke_howson_first"


def _large_game_switch(methods: list, shape: tuple, time_limit: float | None, complete: bool) -> str | None:
    """Where the complete enumeration ("polytope" in ``methods``) of a game of ``shape`` (after dominance) would
    exceed ``time_limit``, and ``complete`` does not ask for it anyway: replace it in ``methods`` by
    :func:`large_game_method`, and return the note that says so (``{found}``: the equilibria found); else None."""
    if complete or time_limit is None or "polytope" not in methods:
        return None
    seconds = enumeration_seconds(*shape)
    if seconds <= time_limit:
        return None
    method = large_game_method(shape, time_limit)
    if method in methods:  # asked for already: it runs once
        methods.remove("polytope")
    else:
        methods[methods.index("polytope")] = method
    m, n = shape
    vertices = shown_vertices(min(m, n), max(m, n))
    took = (
        f"about {seconds:,.0f} s"
        if seconds < 1e15
        else f"about {seconds:.3g} s"
        if seconds < math.inf
        else "more than 1e308 s"
    )
    return (
        f"partial: the complete enumeration of this {m}x{n} game could visit up to {vertices} "
        f"vertices ({took}, beyond the time limit of {time_limit:g} s), so {method} "
        f"({EQUILIBRIUM_METHODS.get(method).description}) answered: {{found}}, not necessarily every one; "
        "--complete (complete=True) enumerates them all, under the time limit"
    )
