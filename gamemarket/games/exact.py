"""Every extreme equilibrium of a small bimatrix game in exact rational arithmetic (python-flint), for games whose
payoffs span more scales than floating point can tell apart.

The float methods solve a game's payoffs divided by their spread, and take differences below about 1e-9 of it for
ties: where one payoff dwarfs the others (a 1e6 beside a 1e-6, a 1e9 cell beside a rock-paper-scissors block of 1 to
3), an equilibrium whose shares are 1e-12 is lost, and profiles that are equilibria only to 1e-17 of the largest
payoff are listed beside the true ones (hunt 27c-F1, F2). Here every payoff is the rational number its float is (a
float is a dyadic rational: nothing is rounded), and the best-response polytopes' vertices are found as in
:mod:`gamemarket.games.vertex_pairs`, each choice of tight constraints solved exactly (FLINT's ``fmpq_mat``): the
completely labelled vertex pairs are exactly the extreme equilibria, degenerate game or not [Avis2010]_, and a vertex
with more labels than its dimension says exactly that the game is degenerate.

For a game of payoffs ``A, B`` (``m x n``) shifted to a minimum of 1,

    P = {x in R^m : x >= 0, B^T x <= 1}        Q = {y in R^n : A y <= 1, y >= 0}

label ``i < m`` where ``x_i = 0`` (in P) or ``(A y)_i = 1`` (in Q), label ``m + j`` where ``(B^T x)_j = 1`` or
``y_j = 0``; a pair of non-zero vertices carrying every label, normalised, is an extreme equilibrium.

References
----------
.. [Avis2010] D. Avis, G. D. Rosenberg, R. Savani and B. von Stengel, "Enumeration of Nash
   equilibria for two-player games", Economic Theory 42 (2010) 9-37.
.. [vonStengel2002] B. von Stengel, "Computing equilibria for two-person games", Handbook of Game
   Theory with Economic Applications 3 (2002) 1723-1759.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np
from flint import fmpq, fmpq_mat

from gamemarket.games.budget import SearchClock, TimeUp

#: the smallest difference between two of a player's payoffs, relative to their spread, that the float methods are
#: trusted to resolve: below it, a game is answered again here (where it is small enough: ``vertex_pairs.fits``)
MIXED_SCALE = 1e-7
#: below it, the float methods cannot tell the payoffs apart (their tolerance, about 1e-9 of the spread): a game too
#: large for the exact pass is told so; between it and :data:`MIXED_SCALE` only the exact pass's margin lies
UNRESOLVED = 1e-9
#: two payoffs this many ulps apart (or fewer) are one payoff rounded two ways, not a difference of the game
ULPS = 8


@dataclass(frozen=True)
class ExactAnswer:
    """The extreme equilibria of a game, exactly: each ``(x, y)`` as floats (each share its exact value rounded
    once), and whether the game is degenerate. ``lost``: of each equilibrium a positive share of which float64 reads
    as 0 (below the float range: payoffs of 1e300 and 1e-300 make shares of 1e-600), the decimal exponent of its
    smallest share; such a profile is not in ``profiles``, whose float form, rounded, would be no equilibrium (hunt
    33b-F1: listed as a pure equilibrium of regret 1e-300)."""

    profiles: list[tuple[np.ndarray, np.ndarray]]
    degenerate: bool
    lost: tuple[int, ...] = ()


def finest_scale(A: np.ndarray, B: np.ndarray) -> float:
    """The smallest difference between two distinct payoffs of one player, relative to that player's spread (1.0
    where a player's payoffs take fewer than two values): 1e-12 for payoffs 1e6, 0 and 1e-6."""
    out = 1.0
    for M in (A, B):
        values = np.unique(np.asarray(M, dtype=float))
        if len(values) > 1:
            gaps = np.diff(values)
            # (a few ulps apart is rounding, not a payoff: 0.1 * 3 beside 0.3, as simulated means give, read as a
            # difference of 5.6e-17 decided the game, the review of hunt 29's fixes)
            real = gaps > ULPS * np.finfo(float).eps * np.maximum(np.abs(values[:-1]), np.abs(values[1:]))
            if real.any():
                out = min(out, float(gaps[real].min() / (values[-1] - values[0])))
    return out


def _rational(M: np.ndarray):
    """A float matrix as FLINT rationals, each exactly its float, shifted to a minimum of 1 (the polytopes need
    positive payoffs; a common shift changes no best response)."""
    rows = [[Fraction(float(v)) for v in row] for row in np.asarray(M, dtype=float)]
    low = min(min(row) for row in rows)
    return [[fmpq((v - low + 1).numerator, (v - low + 1).denominator) for v in row] for row in rows]


def _vertices(C, coord_labels, row_labels, clock: SearchClock) -> dict:
    """The non-zero vertices of ``{z in R^d : z >= 0, C z <= 1}`` (``C``: ``k`` rows of ``d`` rationals), each with
    its labels (``coord_labels[t]`` where ``z_t = 0``, ``row_labels[r]`` where ``(C z)_r = 1``): every choice of
    coordinates at zero and as many tight rows over the others, solved exactly and kept where feasible."""
    k, d = len(C), len(coord_labels)
    found = {}
    for size in range(1, d + 1):
        for S in combinations(range(d), size):  # the coordinates that may be non-zero
            for R in combinations(range(k), size):  # the rows tight there
                clock.check()
                try:
                    zs = fmpq_mat([[C[r][t] for t in S] for r in R]).solve(fmpq_mat([[1] for _ in R]))
                except ZeroDivisionError:  # singular: no single point
                    continue
                z = [0] * d
                for i, t in enumerate(S):
                    z[t] = zs[i, 0]
                if any(v < 0 for v in z):
                    continue
                key = tuple(z)
                if key in found:
                    continue
                Cz = [sum((C[r][t] * z[t] for t in S), 0) for r in range(k)]
                if any(v > 1 for v in Cz):
                    continue
                found[key] = frozenset(
                    [coord_labels[t] for t in range(d) if z[t] == 0] + [row_labels[r] for r in range(k) if Cz[r] == 1]
                )
    return found


def exact_equilibria(A: np.ndarray, B: np.ndarray, clock: SearchClock) -> ExactAnswer | None:
    """Every extreme equilibrium of ``(A, B)`` (``vertex_pairs.fits`` its shape), exactly; None where ``clock``'s
    limit stopped the search first."""
    m, n = np.shape(A)
    Ap, Bp = _rational(A), _rational(B)
    Bt = [[Bp[i][j] for i in range(m)] for j in range(n)]
    try:
        VP = _vertices(Bt, list(range(m)), [m + j for j in range(n)], clock)  # x: x >= 0, B^T x <= 1
        VQ = _vertices(Ap, [m + j for j in range(n)], list(range(m)), clock)  # y: A y <= 1, y >= 0
    except TimeUp:
        return None
    degenerate = any(len(lab) > m for lab in VP.values()) or any(len(lab) > n for lab in VQ.values())
    every = frozenset(range(m + n))
    profiles, lost = [], []
    for x, lx in VP.items():
        for y, ly in VQ.items():
            if lx | ly == every:
                sx, sy = sum(x, 0), sum(y, 0)
                shares = [v / sx for v in x] + [v / sy for v in y]
                floats = [float(v) for v in shares]
                under = [v for v, f in zip(shares, floats) if v != 0 and f == 0.0]
                if under:
                    lost.append(min(_exponent(v) for v in under))
                    continue
                profiles.append((np.array(floats[:m]), np.array(floats[m:])))
    return ExactAnswer(profiles, degenerate, tuple(lost))


def _exponent(v) -> int:
    """The decimal exponent of a positive rational ``v`` (``fmpq``), about: ``-600`` for 1e-600 (no float holds it)."""
    return round(math.log10(int(v.p)) - math.log10(int(v.q)))
