"""Symmetric equilibria of role-symmetric games, each verified by its regret.

* ``replicator_dynamics``: discrete-time replicator dynamics (payoffs shifted positive), the
  evolutionary search of EGTA tools; it follows the flow to an attractor.
* ``regret_minimize``: SLSQP on the sum of squared positive gains over the product of simplices,
  with the exact gradient; it reaches equilibria that are not attractors.
* ``support_polish``: Newton's method on the indifference conditions of a candidate's support
  (every used strategy of a role earns the same deviation payoff), which drives the regret to
  rounding level.
* ``exact_equilibria``: where the game is small enough to solve exactly: one role with two
  strategies (the roots of the gain polynomial in Bernstein form), two roles of one player
  each (the bimatrix game's exhaustive polytope search) and one role of two players with up to 7
  strategies (the symmetric ones of the symmetric bimatrix game's vertex pairs).

``equilibria`` runs these, and support enumeration with batched multi-start Newton
(:mod:`gamemarket.games.support_newton`), from many starts (uniform, near every pure profile,
seeded random points), polishes every candidate, keeps only mixtures whose regret is at most ``rel_tol`` times
the payoff scale, and merges duplicates. An empty list means none was found, and the solution
says so. A game that is a nondegenerate bimatrix game (two roles of one player each, or one role of two
players) has its extreme equilibria for all its equilibria: the exact method's vertex pairs answer it, and the
searches do not run. The compiled searches (numba) have their numpy references (``jit=False``).

References
----------
.. [Taylor1978] P. D. Taylor and L. B. Jonker, "Evolutionarily stable strategies and game dynamics",
   Mathematical Biosciences 40 (1978) 145-156.
.. [Wellman2006] M. P. Wellman, "Methods for empirical game-theoretic analysis", AAAI 2006.
.. [Wiedenbeck2014] B. Wiedenbeck, B.-A. Cassell and M. P. Wellman, "Bootstrap statistics for
   empirical games", AAMAS 2014. (Regret as the measure of an equilibrium's quality.)
"""

from __future__ import annotations

import itertools
import time
import warnings
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from numba import njit
from scipy import optimize, stats
from scipy.special import comb

from gamemarket.errors import InputError, check_flag, check_whole
from gamemarket.games import vertex_pairs
from gamemarket.games.budget import RAISE_LIMIT, SearchClock, TimeUp
from gamemarket.games.checks import check_rel_tol
from gamemarket.games.equilibria import DEFAULT_METHODS, polytope_equilibria, solve
from gamemarket.games.rsgame import LEAST_SPREAD, RoleSymmetricGame, fast_exp
from gamemarket.games.support_newton import (
    SupportEnumeration,
    polish_newton,
    polish_units,
    residual_size,
    support_enumeration,
)

DEFAULT_REL_TOL = 1e-8
#: the note of a game whose exact method found every equilibrium (no search run after it)
EVERY_EQUILIBRIUM = (
    "every equilibrium of a nondegenerate bimatrix game (its extreme equilibria, by vertex enumeration), so neither "
    "support enumeration nor the replicator dynamics ran"
)


#: the stability of an equilibrium verified after the time limit was reached (:func:`equilibria`)
NOT_COMPUTED = "not computed"


@dataclass
class SymmetricEquilibrium:
    """A verified mixture: probabilities per role, its regret, how it was found, its stability."""

    mixture: np.ndarray
    regret: float
    payoffs: np.ndarray  #: each role's expected payoff
    methods: set = field(default_factory=set)
    stability: str = ""  #: "stable", "unstable" or "neutral" under the replicator dynamics (or NOT_COMPUTED)
    #: the payoff-equivalent strategies merged into each played one (:func:`equivalence_classes`): ``(kept,
    #: merged, any_mix)`` each, ``any_mix`` whether every split of the kept one's share with them is one too
    classes: list = field(default_factory=list)

    def support(self, threshold: float = 0.0) -> tuple[int, ...]:
        """The strategies (indices over all roles) played with probability above ``threshold``."""
        return tuple(int(i) for i in np.flatnonzero(self.mixture > threshold))


@dataclass
class SymmetricSolution:
    """What :func:`equilibria` returns: the verified mixtures (possibly none, and ``summary`` says so), the
    regret tolerance, the number of dynamics starts, notes, and what support enumeration tried.
    """

    game: RoleSymmetricGame
    equilibria: list[SymmetricEquilibrium]
    tolerance: float
    starts: int
    notes: list[str] = field(default_factory=list)
    search: SupportEnumeration | None = None  #: what support enumeration tried, where it ran
    complete: bool = True  #: False where the time limit stopped the search before it had run every step (notes say)

    @property
    def found(self) -> bool:
        """True when at least one equilibrium was found."""
        return bool(self.equilibria)

    def summary(self) -> str:
        """One line: how many equilibria at which tolerance, or that none was found and what to try."""
        if not self.equilibria:
            return (
                f"no equilibrium found (regret <= {self.tolerance:.3g}) from {self.starts} starts; "
                "the game still has one: try more starts or a larger tolerance"
            )
        return f"{len(self.equilibria)} equilibria (regret <= {self.tolerance:.3g})"


# ---------------------------------------------------------------------- searches
#: seconds of the compiled replicator dynamics between two looks at a clock (:func:`replicator_dynamics`)
REPLICATOR_LOOK = 0.1


def replicator_dynamics(
    game: RoleSymmetricGame,
    mixture,
    *,
    max_iters: int = 10_000,
    converge: float = 1e-12,
    clock: SearchClock | None = None,
    jit: bool = True,
) -> np.ndarray:
    """Discrete replicator dynamics ``x_s <- x_s (v_s - m + 1e-3 d) / sum``, per role.

    Payoffs are shifted by the game's minimum ``m`` (and a small share of the spread ``d``) so
    that every fitness is positive; the fixed points are those of the continuous dynamics.
    ``mixture`` may be one mixture or a stack of them (one per row), all run in step. ``clock``
    (a :class:`~gamemarket.games.budget.SearchClock`): its limit is checked every 50 iterations,
    and :class:`~gamemarket.games.budget.TimeUp` raised once it is reached. ``jit``: the dense dynamics compiled
    (numba, one row at a time, :func:`_replicator_rows`), else in numpy (every row in step, the reference): the
    same steps, the same points to rounding.
    """
    X = np.atleast_2d(np.asarray(mixture, dtype=float))
    X = np.array([game.check_mixture(x) for x in X])
    vals = game.payoffs[game.profiles > 0]
    # the shift keeps every fitness positive; its floor is relative to the payoffs, so that where they are all
    # (nearly) equal it still exceeds the rounding of the deviation payoffs (else a fitness could turn negative)
    lo = float(vals.min())
    spread = max(float(vals.max() - vals.min()), 1e-9 * float(np.abs(vals).max()), 1e-300)
    C, K, dense_ok = game._dense()
    starts, ks = game.role_starts, game.num_strategies
    active = np.ones(len(X), dtype=bool)
    if dense_ok and jit:
        counts = np.ascontiguousarray(C, dtype=np.int64)
        roles = np.asarray(starts, dtype=np.int64), np.asarray(ks, dtype=np.int64)
        it, step = 0, 1
        while it < max_iters and active.any():
            if clock is not None and it:
                clock.check()
            # to the end without a clock; with one, as many iterations as take about REPLICATOR_LOOK seconds (at most
            # 50): an iteration of a game of 100 strategies a role took half a second, and 50 of them ran 24 s past a
            # 2 s limit (hunt 26b-F3). Where the clock is looked at never changes the steps taken
            end = max_iters if clock is None else min(max_iters, it + step)
            began = time.perf_counter()
            _replicator_rows(X, active, counts, K, roles[0], roles[1], lo, 1e-3 * spread, end - it, converge)
            each = (time.perf_counter() - began) / (end - it)
            step = int(max(1, min(50, REPLICATOR_LOOK / each))) if each > 0 else 50
            it = end
        return X[0] if np.ndim(mixture) == 1 else X
    for it in range(max_iters):
        if clock is not None and (it % 50 == 49 or not dense_ok):  # (each iteration where it is one profile a time)
            clock.check()
        Y = X[active]
        if dense_ok:  # every row at once: x^(c - e_s) = x^c / x_s (clipped logs: a search, not a verdict)
            Z = np.maximum(Y, 1e-250)
            dev = (fast_exp(np.log(Z) @ C.T) @ K) / Z
        else:
            dev = np.array([game.deviation_payoffs(y) for y in Y])
        new = Y * (dev - lo + 1e-3 * spread)
        new /= np.repeat(np.add.reduceat(new, starts, axis=1), ks, axis=1)
        moved = np.abs(new - Y).max(axis=1)
        X[active] = new
        idx = np.flatnonzero(active)
        active[idx[moved < converge]] = False
        if not active.any():
            break
    return X[0] if np.ndim(mixture) == 1 else X


@njit(cache=True, inline="always")
def _replicator_step(y, counts, K, starts, ks, lo, shift, pw, z, new) -> float:
    """One step of the dense dynamics of ``y`` in place (``pw``, ``z``, ``new``: room); returns how far it moved."""
    P, S = counts.shape
    for s in range(S):
        z[s] = max(y[s], 1e-250)
        pw[s, 0] = 1.0
        for c in range(1, pw.shape[1]):
            pw[s, c] = pw[s, c - 1] * z[s]
        new[s] = 0.0
    for p in range(P):
        xp = 1.0
        for s in range(S):
            xp *= pw[s, counts[p, s]]
        for s in range(S):
            new[s] += xp * K[p, s]
    for s in range(S):
        new[s] = y[s] * (new[s] / z[s] - lo + shift)
    for r in range(starts.shape[0]):
        tot = 0.0
        for s in range(starts[r], starts[r] + ks[r]):
            tot += new[s]
        for s in range(starts[r], starts[r] + ks[r]):
            new[s] /= tot
    moved = 0.0
    for s in range(S):
        moved = max(moved, abs(new[s] - y[s]))
        y[s] = new[s]
    return moved


@njit(cache=True)
def _replicator_rows(X, active, counts, K, starts, ks, lo, shift, iters, converge) -> None:
    """:func:`replicator_dynamics`' dense steps compiled: ``iters`` steps of each active row of ``X`` in place, a row
    made inactive (``active``) once a step moves it less than ``converge``. ``x^(c_p)`` as a product of powers
    (the counts are whole numbers) where the reference takes ``exp(c_p . log x)``: the same to rounding."""
    S = X.shape[1]
    pw = np.empty((S, counts.max() + 1))
    z, new = np.empty(S), np.empty(S)
    for b in range(X.shape[0]):
        if not active[b]:
            continue
        for _ in range(iters):
            if _replicator_step(X[b], counts, K, starts, ks, lo, shift, pw, z, new) < converge:
                active[b] = False
                break


def _objective(game: RoleSymmetricGame):
    starts, ks, ri = game.role_starts, game.num_strategies, game.role_index
    scale = game.payoff_scale()

    def f(x):
        dev, J = game.deviation_payoffs(x, jacobian=True)
        u = np.add.reduceat(x * dev, starts)
        g = (dev - np.repeat(u, ks)) / scale
        # du_r/dx_j = [j in r] dev_j + sum_{t in r} x_t J[t, j]
        du = np.add.reduceat(x[:, None] * J, starts, axis=0)  # R x S
        du[ri, np.arange(len(x))] += dev
        dg = (J - du[ri]) / scale
        pos = np.maximum(g, 0.0)
        return float((pos**2).sum()), 2.0 * pos @ dg

    return f


def regret_minimize(
    game: RoleSymmetricGame, mixture, *, max_iters: int = 500, clock: SearchClock | None = None
) -> np.ndarray:
    """Minimise the sum of squared positive gains over the product of simplices (SLSQP); with ``clock``, its limit
    is checked at every iteration (:class:`~gamemarket.games.budget.TimeUp`: one call of 500 iterations ran 7 s past
    a 5 s limit, hunt 20b-F4)."""
    x0 = game.check_mixture(mixture)
    f = _objective(game)
    ri = game.role_index
    cons = [
        {"type": "eq", "fun": (lambda x, r=r: x[ri == r].sum() - 1.0), "jac": (lambda x, r=r: (ri == r).astype(float))}
        for r in range(len(game.roles))
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = optimize.minimize(
            f,
            x0,
            jac=True,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * len(x0),
            constraints=cons,
            options={"maxiter": max_iters, "ftol": 1e-30},
            callback=None if clock is None else (lambda _x: clock.check()),
        )
    return game.normalize(res.x)


def _support_system(game: RoleSymmetricGame, supp: np.ndarray):
    """The dense terms of the subgame on ``supp``, taken from the whole game's (no subgame built).

    Returns ``(C, K, others, ref, sums, scale)`` or None where the dense form does not apply; ``scale``: the unit of
    its residuals, in which ``K`` is (:func:`~gamemarket.games.support_newton.polish_units`).
    ``K[p, s]`` (multinomial coefficient of the others' counts times the payoff) depends only on the
    counts, so the subgame's rows are the whole game's rows whose counts vanish off the support.
    """
    C, K, dense_ok = game._dense()
    if not dense_ok:
        return None
    uses = game._uses()
    rows = ~uses[:, ~supp].any(axis=1)
    Cs, Ks = C[rows][:, supp], K[rows][:, supp]
    ri = game.role_index[supp]
    roles = np.unique(ri)
    firsts = np.searchsorted(ri, roles)
    others = np.setdiff1d(np.arange(len(ri)), firsts)
    ref = firsts[np.searchsorted(roles, ri[others])]
    sums = (ri[None, :] == roles[:, None]).astype(float)
    # in units of the payoffs' spread, divided exactly (a power of 2): hunt 31c-F2
    power, unit = polish_units(game.payoffs[rows][:, supp][Cs > 0])
    return Cs, Ks / power, others, ref, sums, unit


def _newton(system, z: np.ndarray, max_iters: int = 50) -> np.ndarray | None:
    """Newton's method for equal deviation payoffs within each role of a support (see
    :func:`support_polish`); None where it leaves the simplex or does not converge."""
    C, K, others, ref, sums, scale = system
    k = len(z)
    r = None
    for it in range(max_iters):
        X = np.exp(C @ np.log(z))
        XK = X @ K
        dev = XK / z
        r = np.concatenate([dev[others] - dev[ref], sums @ z - 1.0])
        res = residual_size(r, len(others), scale)  # (in units of the payoffs' spread: hunt 31c-F2)
        if res < 1e-14:
            break
        if it >= 25 and res > 1e-4:  # wandering, not converging: most failures end here
            return None
        # d dev_s / d z_t = sum_p K_ps (c_pt - [s = t]) z^(c_p - e_s - e_t): the diagonal is summed
        # with its (c_ps - 1) factor directly, so that nothing cancels near the faces
        KX = K * X[:, None]
        M = KX.T @ C
        M[np.diag_indices(k)] = (KX * (C - 1.0)).sum(axis=0)
        J = M / np.outer(z, z)
        A = np.vstack([J[others] - J[ref], sums])
        try:
            step = np.linalg.solve(A, -r)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(A, -r, rcond=None)[0]
        z = z + step
        if not np.all(np.isfinite(z)) or np.any(z < -0.5):
            return None
        z = np.maximum(z, 1e-13)  # inside the subgame's simplex (the dense terms underflow below); fails below
    if r is None or np.any(z <= 1e-12) or residual_size(r, len(others), scale) > 1e-6:
        return None
    return z


def _newton_compiled(system, z: np.ndarray, max_iters: int = 50) -> np.ndarray | None:
    """:func:`_newton` compiled (:func:`gamemarket.games.support_newton.polish_newton`)."""
    C, K, others, ref, sums, scale = system
    z, ok = polish_newton(
        C, np.ascontiguousarray(K.T), np.asarray(z, dtype=float), others, ref, sums, float(scale), max_iters
    )
    return z if ok else None


def support_polish(game: RoleSymmetricGame, mixture, *, threshold: float = 1e-6, jit: bool = True) -> np.ndarray | None:
    """Newton's method on the candidate's support: equal deviation payoffs within each role.

    It works in the subgame of the support (where every probability is positive, so the dense
    Jacobian applies) and returns the polished mixture of the whole game, or None where Newton
    leaves the simplex or does not converge. The caller checks the regret in the whole game. ``jit``: Newton's
    method compiled (numba, :func:`gamemarket.games.support_newton.polish_newton`), else in numpy (:func:`_newton`,
    the reference): the same steps, the same point to rounding.
    """
    x = game.check_mixture(mixture)
    supp = x > threshold
    ri = game.role_index
    if any(not supp[ri == r].any() for r in range(len(game.roles))):
        return None
    system = _support_system(game, supp)
    if system is None:
        return _support_polish_sparse(game, x, supp)
    z0 = x[supp] / np.repeat(np.bincount(ri[supp], weights=x[supp]), np.bincount(ri[supp]))
    z = _newton_compiled(system, z0) if jit else _newton(system, z0)
    if z is None:
        return None
    out = np.zeros_like(x)
    out[supp] = z
    return game.normalize(out)


def _support_polish_sparse(game: RoleSymmetricGame, x: np.ndarray, supp: np.ndarray) -> np.ndarray | None:
    """:func:`support_polish` through a subgame, for games whose dense terms overflow."""
    sub = game.restrict(supp)
    z = sub.normalize(x[supp])
    ri_sub = sub.role_index
    firsts = sub.role_starts
    others = np.setdiff1d(np.arange(len(z)), firsts)
    ref = firsts[ri_sub[others]]
    sums = (ri_sub[None, :] == np.arange(len(sub.roles))[:, None]).astype(float)
    power, unit = polish_units(sub.payoffs[sub.profiles > 0])  # (in the payoffs' units: hunt 31c-F2)
    for _ in range(50):
        dev, J = sub.deviation_payoffs(z, jacobian=True)
        dev, J = dev / power, J / power
        r = np.concatenate([dev[others] - dev[ref], sums @ z - 1.0])
        if residual_size(r, len(others), unit) < 1e-14:
            break
        step, *_ = np.linalg.lstsq(np.vstack([J[others] - J[ref], sums]), -r, rcond=None)
        z = z + step
        if not np.all(np.isfinite(z)) or np.any(z < -0.5):
            return None
        z = np.maximum(z, 1e-300)
    if np.any(z <= 1e-12) or residual_size(r, len(others), unit) > 1e-6:
        return None
    out = np.zeros_like(x)
    out[supp] = z
    return game.normalize(out)


def exact_equilibria(
    game: RoleSymmetricGame, *, time_limit: float | None = None, notes: list | None = None
) -> list[np.ndarray] | None:
    """Every equilibrium of a small game, or None where no exact method applies.

    One role with two strategies: the gain of strategy 1 over strategy 0 when the other ``N - 1``
    players play strategy 1 with probability ``p`` is the polynomial ``sum_k b_k B_k(p)``
    (Bernstein basis, ``b_k`` the payoff difference with ``k`` others on strategy 1); the mixed
    equilibria are its roots in (0, 1). A gain polynomial that is identically zero makes every
    mixture an equilibrium: the pure ends are returned with a note in ``equilibria``.
    Two roles of one player each: the bimatrix game's exhaustive search, under ``time_limit`` (seconds; None: no
    limit): where it stops there, ``notes`` gets its note, which begins "incomplete:".
    One role of two players with up to 7 strategies (``vertex_pairs.fits``), where the symmetric bimatrix game
    ``(A, A^T)`` is nondegenerate: the symmetric ones ``(x, x)`` of its extreme equilibria, which are then all of its
    equilibria (a degenerate game has no exact method here: None).
    """
    return _exact(game, time_limit=time_limit, notes=notes)[0]


def _exact(
    game: RoleSymmetricGame, *, time_limit: float | None = None, notes: list | None = None
) -> tuple[list[np.ndarray] | None, bool]:
    """:func:`exact_equilibria`, and whether its answer is every symmetric equilibrium of the game: a nondegenerate
    bimatrix game (two roles of one player, or one role of two players) searched to the end. (The two-strategy
    path is exhaustive too, but the searches still run there, as they always have.)"""
    if len(game.roles) == 1 and game.num_strategies[0] == 2:
        return _two_strategy_roots(game), False
    if len(game.roles) == 2 and game.players == (1, 1):
        sol = solve(game.to_bimatrix(), methods=DEFAULT_METHODS, time_limit=time_limit)
        if notes is not None:
            notes += [n for n in sol.notes if n.startswith("incomplete:")]
        # every one only where the answer is every extreme equilibrium (``exhaustive``): a game too large to enumerate
        # is answered by a method that finds one or a few, its search ``complete`` all the same (hunt 40c-F3: a 60 x 60
        # game's one equilibrium from GNM was said to be every equilibrium, and the searches never ran)
        every = sol.complete and sol.exhaustive and not sol.degenerate
        return [np.concatenate([e.x, e.y]) for e in sol.equilibria], every
    if game.players == (2,) and vertex_pairs.fits(game.num_strategies[0], game.num_strategies[0]):
        A = _two_player_matrix(game)
        profiles, degenerate = polytope_equilibria(A, A.T)
        if degenerate:
            return None, False
        return [x for x, y in profiles if np.abs(x - y).max() <= 1e-9], True
    return None, False


#: the most other players whose gain polynomial is also solved in the power basis (numpy's powers stop at 100)
POWER_BASIS_MAX = 60


def _two_strategy_roots(game: RoleSymmetricGame) -> list[np.ndarray]:
    """One role with two strategies: the pure ends and the roots of the gain polynomial (:func:`exact_equilibria`)."""
    n = game.players[0] - 1
    b = np.zeros(n + 1)
    for k in range(n + 1):  # k others on strategy 1
        u1 = game.profile_payoffs([n - k, k + 1])[1]
        u0 = game.profile_payoffs([n - k + 1, k])[0]
        b[k] = u1 - u0
    out = []
    if b[0] <= 0:
        out.append(np.array([1.0, 0.0]))
    if b[-1] >= 0:
        out.append(np.array([0.0, 1.0]))
    if n == 0 or np.all(b == 0):
        return out
    for p in _gain_roots(b):
        if 0 < p < 1 and not any(abs(p - q[1]) < 1e-9 for q in out):
            out.append(np.array([1.0 - p, p]))
    return out


def _gain_roots(b: np.ndarray) -> list[float]:
    """The roots in [0, 1] of a two-strategy role's gain ``sum_k b_k C(n,k) p^k (1-p)^(n-k)`` (``b_k``: strategy 1's
    gain over strategy 0 with ``k`` of the ``n`` others on 1)."""
    n = len(b) - 1
    # the gain in the Bernstein form, sum_k b_k C(n,k) p^k (1-p)^(n-k), and its derivative, n sum_k (b_k+1 - b_k)
    # C(n-1,k) p^k (1-p)^(n-1-k), through the binomial pmf: stable for any number of players (a power basis of
    # 101 others was numpy's "Power is too large", hunt 20b-F2; its conditioning fails well before)
    ks, step = np.arange(n + 1), np.diff(b)

    def gain(p):
        return float(np.dot(b, stats.binom.pmf(ks, n, p)))

    def slope(p):
        return float(n * np.dot(step, stats.binom.pmf(ks[:-1], n - 1, p)))

    cands = []
    if n <= POWER_BASIS_MAX:  # its roots find a root the grid's sign changes miss (a double one)
        P = np.polynomial.Polynomial
        poly = sum((b[k] * comb(n, k, exact=True)) * P([0, 1]) ** k * P([1, -1]) ** (n - k) for k in range(n + 1))
        cands = [float(r.real) for r in P(poly.coef).roots() if abs(r.imag) < 1e-6 and -1e-9 < r.real < 1 + 1e-9]
    # sign changes on a fine grid catch what the roots of an ill-conditioned power basis miss; where the gain touches
    # zero without changing sign, the slope's own sign change there (a zero on the grid is a bracket's end)
    grid = np.linspace(0, 1, 2001)
    vals, slopes = _on_grid(b, grid), _on_grid(n * step, grid, n - 1)
    for i in np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) <= 0):
        cands.append(_bracketed(gain, grid[i], grid[i + 1]))
    for i in np.flatnonzero(np.sign(slopes[:-1]) * np.sign(slopes[1:]) <= 0):
        q = _bracketed(slope, grid[i], grid[i + 1])
        if abs(gain(q)) <= 1e-12 * float(np.abs(b).max()):
            cands.append(q)
    return [_polished_root(p, gain, slope) for p in cands]


def _bracketed(f, a: float, b: float) -> float:
    """A zero of ``f`` in ``[a, b]`` (Brent's method); where the scalar ``f`` does not change sign there (the grid's
    values, computed a block at a time, may round otherwise near 0), the end nearer a zero."""
    try:
        return optimize.brentq(f, a, b, xtol=1e-15, rtol=1e-15)
    except ValueError:
        return a if abs(f(a)) <= abs(f(b)) else b


def _on_grid(coef: np.ndarray, grid: np.ndarray, n: int | None = None) -> np.ndarray:
    """``sum_k coef_k C(n,k) p^k (1-p)^(n-k)`` at every ``p`` of ``grid`` (``n``: ``len(coef) - 1``), the binomial
    pmf taken for a block of points at once (review 20: 4,002 scalar calls made a root search 5 times slower)."""
    n = len(coef) - 1 if n is None else n
    ks = np.arange(n + 1)
    block = max(1, 2_000_000 // (n + 1))  # (a block of points holds at most 2 million pmf values)
    return np.concatenate(
        [coef @ stats.binom.pmf(ks[:, None], n, grid[None, k : k + block]) for k in range(0, len(grid), block)]
    )


def _polished_root(p: float, gain, slope) -> float:
    """A root of ``gain`` polished from ``p`` by Newton's steps on the Bernstein form, each kept only where it stays
    in [0, 1] and brings the gain nearer 0 (at a double root the slope is near 0: an unguarded step left [0, 1],
    review 20)."""
    g = abs(gain(p))
    for _ in range(20):
        d = slope(p)
        if d == 0 or g == 0:
            break
        p_new = p - gain(p) / d
        if not (np.isfinite(p_new) and 0.0 <= p_new <= 1.0) or abs(p_new - p) < 1e-17:
            break
        g_new = abs(gain(p_new))
        if g_new >= g:
            break
        p, g = p_new, g_new
    return p


def _two_player_matrix(game: RoleSymmetricGame) -> np.ndarray:
    """The payoffs of one role of two players as a matrix: ``A[i, j]``, strategy ``i``'s against ``j``."""
    k = game.num_strategies[0]
    A = np.zeros((k, k))
    used = game.profiles > 0
    i, j = used.argmax(axis=1), k - 1 - used[:, ::-1].argmax(axis=1)  # each profile's two strategies (or one)
    rows = np.arange(len(i))
    A[i, j], A[j, i] = game.payoffs[rows, i], game.payoffs[rows, j]
    return A


def stability(game: RoleSymmetricGame, mixture, *, tol: float | None = None) -> str:
    """Stability of a rest point under the continuous replicator dynamics.

    The Jacobian of ``x_s (v_s(x) - u_r(x))`` is taken on the tangent space of the support's face;
    a strategy outside the support adds the eigenvalue ``v_s - u_r`` (its invasion rate). "stable"
    when every eigenvalue has a negative real part, "unstable" when one is positive, else "neutral".
    """
    x = game.check_mixture(mixture)
    return _stability(game, x, 1e-9 * game.payoff_scale() if tol is None else tol)


def _stability(game: RoleSymmetricGame, x: np.ndarray, tol: float) -> str:
    """:func:`stability` of a mixture already checked (the solver's own), at tolerance ``tol``."""
    starts, ks, ri = game.role_starts, game.num_strategies, game.role_index
    supp = x > 1e-9
    basis = []
    for r in range(len(game.roles)):
        idx = np.flatnonzero(supp & (ri == r))
        for t in idx[1:]:
            v = np.zeros(len(x))
            v[t], v[idx[0]] = 1.0, -1.0
            basis.append(v)
    # a pure profile's eigenvalues are its invasion rates alone: the Jacobian is needed on a face only
    dev, J = game.deviation_payoffs(x, jacobian=True) if basis else (game.deviation_payoffs(x), None)
    u = np.add.reduceat(x * dev, starts)
    g = dev - np.repeat(u, ks)
    eig = list(g[~supp])
    if basis:
        du = np.add.reduceat(x[:, None] * J, starts, axis=0)
        du[ri, np.arange(len(x))] += dev
        DF = np.diag(g) + x[:, None] * (J - du[ri])
        B = np.array(basis).T
        M = np.linalg.lstsq(B, DF[:, :] @ B, rcond=None)[0]
        eig += list(np.linalg.eigvals(M).real)
    eig = np.array(eig)
    if eig.size == 0 or np.all(eig < -tol):
        return "stable"
    if np.any(eig > tol):
        return "unstable"
    return "neutral"


# ---------------------------------------------------------------------- the driver
def _starts(game: RoleSymmetricGame, n_random: int, seed: int) -> list[np.ndarray]:
    out = [game.uniform_mixture()]
    S = game.num_all_strategies
    for s in range(S):  # near each pure strategy of each role, the rest spread
        x = game.uniform_mixture()
        own = game.role_index == game.role_index[s]
        x[own] *= 0.1
        x[s] += 0.9
        out.append(game.normalize(x))
    rng = np.random.default_rng(seed)
    for _ in range(n_random):
        out.append(game.normalize(rng.exponential(size=S)))
    return out


def _pure_mixtures(game: RoleSymmetricGame, limit: int = 10_000):
    total = int(np.prod(game.num_strategies))
    if total > limit:
        return []
    return [game.pure_mixture(c) for c in itertools.product(*[range(k) for k in game.num_strategies])]


def _exact_candidates(game: RoleSymmetricGame, clock: SearchClock) -> tuple[list[np.ndarray], list[str], bool]:
    """The exact method's equilibria where one applies (else none), a note where every mixture is one or where
    ``clock``'s limit stopped it (beginning "incomplete:"), and whether they are every equilibrium (:func:`_exact`).
    """
    notes: list[str] = []
    left = clock.remaining()
    ex, every = _exact(game, time_limit=None if left is None else max(left, 1e-3), notes=notes)
    if ex is None:
        return [], [], False
    if len(game.roles) == 1 and game.num_strategies == (2,) and _strategy_never_matters(game):
        notes.append("every mixture is an equilibrium (payoffs do not depend on the strategy)")
    return ex, notes, every


def _strategy_never_matters(game: RoleSymmetricGame) -> bool:
    """Whether, in a one-role game of two strategies, a player's payoff is the same whichever it plays, whatever
    the others play: for every count k of the others on the first strategy, the first's payoff in the profile
    (k + 1, N - 1 - k) equals the second's in (k, N - k). (Each profile's own strategies paid alike is not it: a
    coordination game, (a, a) 1, (a, c) 0 and 0, (c, c) 1.5, passed, the note beside its three isolated
    equilibria; hunt 19a-F6.)"""
    n = game.players[0]
    for k in range(n):
        first = game.profile_payoffs([k + 1, n - 1 - k])[0]
        second = game.profile_payoffs([k, n - k])[1]
        if not np.isclose(first, second, rtol=1e-12, atol=1e-12 * game.payoff_scale()):
            return False
    return True


def _dynamics_candidates(
    game: RoleSymmetricGame,
    starts: list[np.ndarray],
    tol: float,
    max_iters: int,
    *,
    slsqp: bool,
    clock: SearchClock,
    cands: list[tuple[np.ndarray, str]],
    jit: bool = True,
) -> None:
    """Candidates from the replicator dynamics, appended to ``cands``: each end point, and its polish on its support
    at three thresholds; the points that neither settle nor polish nearby run ten times longer, and those still
    unsettled then go to SLSQP where ``slsqp`` (support enumeration did not apply); ``jit``: the compiled dynamics
    and polish, else their numpy references. Raises
    :class:`~gamemarket.games.budget.TimeUp` once ``clock``'s limit is reached (``cands`` keeps what was found)."""
    seen = set()
    points = replicator_dynamics(game, np.array(starts), max_iters=max_iters, converge=1e-9, clock=clock, jit=jit)
    for rnd in range(2):
        unsettled = []
        clock.bar(len(points), unit="point", desc="replicator dynamics")
        for x in points:
            clock.check()
            clock.advance()
            key = tuple(np.round(x, 4))
            if key in seen:  # many starts reach one attractor: polish it once
                continue
            seen.add(key)
            cands.append((x, "replicator"))
            # a point still on its way: Newton on its support, and on the supports left when the
            # strategies still dying out are dropped at coarser thresholds; each result is a candidate
            settled = game.regret(x) <= tol
            for threshold in (1e-6, 1e-3, 1e-2):
                p = support_polish(game, x, threshold=threshold, jit=jit)
                if p is not None:
                    cands.append((p, "polish"))
                    settled |= bool(np.abs(p - x).max() < 1e-2 and game.regret(p) <= tol)
            if not settled:
                unsettled.append(x)
        if not unsettled:
            break
        if rnd == 1:  # still unsettled after the longer run: SLSQP where support enumeration did not apply
            for x in unsettled if slsqp else []:
                clock.check()
                cands.append((regret_minimize(game, x, clock=clock), "regret_minimize"))
            break
        # the few points that neither settled nor polished nearby: follow the dynamics further
        points = replicator_dynamics(
            game, np.array(unsettled), max_iters=10 * max_iters, converge=1e-9, clock=clock, jit=jit
        )


#: an end point of the replicator dynamics that no polish reached is one with an equilibrium this close (largest
#: difference of a probability) whose regret is no larger: the dynamics approach an equilibrium only slowly where a
#: strategy dies out slowly, and stop within the tolerance's regret of it but farther than ``dedup``
UNPOLISHED_MERGE = 1e-4


def _merge_unpolished(found: list[SymmetricEquilibrium]) -> list[SymmetricEquilibrium]:
    """``found`` less the replicator end points (found by the dynamics alone) within :data:`UNPOLISHED_MERGE` of
    another equilibrium of no larger regret; that one takes their methods."""
    keep = []
    for i, e in enumerate(found):
        if e.methods == {"replicator"}:
            near = [
                f
                for j, f in enumerate(found)
                if j != i and f.regret <= e.regret and np.abs(f.mixture - e.mixture).max() < UNPOLISHED_MERGE
            ]
            if near:
                near[0].methods |= e.methods
                continue
        keep.append(e)
    return keep


#: a share of an equilibrium's mixture below this is rounding left by a search (3.55e-193 of a rule was printed as
#: played: hunt 21a-W2), set to 0 where the mixture without it is an equilibrium as well (:func:`_without_dust`)
DUST = 1e-12


def _without_dust(
    game: RoleSymmetricGame, x: np.ndarray, r: float, tol: float, local: float | None = None
) -> tuple[np.ndarray, float]:
    """``x`` (of regret ``r``) with its shares below :data:`DUST` set to 0 and each role's made to sum to 1 again,
    with its regret, where that regret is within ``tol`` too (and, with ``local``, is small against the payoffs it
    compares: :func:`locally_small`); else ``x`` and ``r`` as they are."""
    if not ((x > 0) & (x < DUST)).any():
        return x, r
    clean = game.normalize(np.where(x < DUST, 0.0, x))
    r_clean = game.regret(clean)
    # (the exact equilibrium of shares 1e-15 beside payoffs of 1e12 and 1e-3, cleaned, was the pure profile (r0, c1)
    # of regret 0.001 where each player gets 0: within the 1e12 spread's tolerance, not an equilibrium: hunt 31c-F1)
    if r_clean > tol or (local is not None and not locally_small(game, clean, local)):
        return x, r
    return clean, r_clean


def locally_small(game: RoleSymmetricGame, x: np.ndarray, rel: float) -> bool:
    """Whether each role's regret at ``x`` is at most ``rel`` of the spread of its deviation payoffs (what each of its
    strategies earns against ``x``), beyond their rounding: the whole game's spread made a regret of 1.5 on payoffs
    of +-1 "within tolerance" beside a payoff of 1e12 (hunt 23b-F1's EGTA form, 23c-F5)."""
    dev = game.deviation_payoffs(x)
    # (sums of large payoffs that cancel leave this much) only where a share the methods computed enters the role's
    # deviation payoffs, as the bimatrix path's ``_locally_small``: another role's mixture, or its own where it has
    # more than one player; a pure profile's deviation payoffs are exact, and 64 ulps of a spread of 1e12 made a
    # regret of 0.001 of the profile (r0, c1), whose payoffs are 0, "a Nash equilibrium, verified" (hunt 31c-F1)
    floor = SCALE_ROUNDING * game.payoff_scale()
    mixed = np.add.reduceat((x > 0).astype(int), game.role_starts) > 1
    # the rounding of the payoffs each role's deviation payoffs sum, each with shares known to rounding: the largest
    # payoff of a profile the mixture plays (hunt 24c-F1: a share of 1e-6 facing a payoff of 1e6)
    out = game.profiles * (x <= 0)  # players on strategies outside the support
    for r, (a, k) in enumerate(zip(game.role_starts.tolist(), game.num_strategies)):
        # the role's payoffs in the profiles its deviation payoffs sum: every other role's players in support, at
        # most one of its own (the deviator) outside
        mine = np.zeros(len(x), dtype=bool)
        mine[a : a + k] = True
        rows = (out[:, ~mine].sum(axis=1) == 0) & (out[:, mine].sum(axis=1) <= 1)
        pays = game.payoffs[rows][:, mine][game.profiles[rows][:, mine] > 0]
        size = float(np.abs(pays).max(initial=0.0))
        block, share = dev[a : a + k], x[a : a + k]
        own = share @ block  # (of the best and the own payoffs, not of a deviation nobody takes: hunt 24b-F1)
        with np.errstate(over="ignore"):  # (near 1.8e308 the sum is inf and the spread, finite, is the scale)
            scale = min(block.max() - block.min(), abs(block.max()) + abs(own))
        computed = np.delete(mixed, r).any() or (mixed[r] and game.players[r] > 1)
        slack = rel * scale + LOCAL_ROUNDING * max(np.abs(block).max(), size) + floor * computed
        if block.max() - share @ block > slack:
            return False
    return True


#: the rounding of a regret in the game's units, relative to the size of the payoffs it compares, and to the game's
#: spread (:func:`locally_small`)
LOCAL_ROUNDING = 1e3 * np.finfo(float).eps
SCALE_ROUNDING = 64 * np.finfo(float).eps


#: candidates verified between two looks at the clock (:func:`_verified`): each (a game of 200 strategies a role
#: verified 64 at a time ran 101 s past a 2 s limit: hunt 26b-F3; a look is a microsecond)
VERIFY_PER_LOOK = 1


def _verified(
    game: RoleSymmetricGame,
    cands: list[tuple[np.ndarray, str]],
    known: dict[int, float],
    tol: float,
    dedup: float,
    clock: SearchClock | None = None,
    notes: list | None = None,
    local: float | None = None,
) -> list[SymmetricEquilibrium]:
    """The candidates whose regret is at most ``tol`` (``known[i]``: candidate i's regret, computed already),
    duplicates (closer than ``dedup``) merged into the one of least regret, with their payoffs and stability,
    sorted by mixture (largest first). Every one is verified whatever the ``clock``; their stability (an
    eigenvalue problem on each support: 57 ms each on a 200-strategy game, 12 s for its 212 equilibria, past a
    10 s limit) is computed while the clock runs, the rest said to be :data:`NOT_COMPUTED`, in ``notes``.
    ``local``: also each role's regret at most ``local`` of the spread of the payoffs it compares
    (:func:`locally_small`)."""
    found: list[SymmetricEquilibrium] = []
    for i, (x, how) in enumerate(cands):
        if clock is not None and i % VERIFY_PER_LOOK == 0 and i and clock.expired() and notes is not None:
            # the candidates past the limit are left out, said: an EGTA game's 4,177 regret checks after a 2 s search
            # took 9 s more (hunt 21b-F6, a re-test of 20b-F4, whose fix bounded the search alone); the verification's
            # clock is its own (``equilibria``), as long as the search's: what a stopped search found is verified
            notes.append(
                f"incomplete: the time limit was reached while verifying the candidates: {len(cands) - i:,} of "
                f"{len(cands):,} were left unverified (left out); {RAISE_LIMIT}"
            )
            break
        methods = {how}
        if how == "polish":
            methods = {"replicator", "polish"}
        r = known[i] if i in known else game.regret(x)
        if r > tol or (local is not None and not locally_small(game, x, local)):
            continue
        x, r = _without_dust(game, x, r, tol, local)
        # one equilibrium only where the supports are the same, however close the shares (hunt 27c-F4: the 2e-9 shares
        # beside a block's own equilibrium merged it away, as in the bimatrix path before 26c-F1's fix)
        if found:
            mixtures = np.array([e.mixture for e in found])
            same = ((mixtures > 0) == (x > 0)).all(axis=1)
            near = np.flatnonzero(same & (np.abs(mixtures - x).max(axis=1) < dedup))
        else:
            near = []
        if len(near):
            e = found[near[0]]
            e.methods |= methods
            if r < e.regret:
                e.mixture, e.regret = x, r
        else:
            found.append(SymmetricEquilibrium(x, r, None, methods))
    found = _merge_unpolished(found)
    flat = 1e-9 * game.payoff_scale()  # stability's tolerance, the same for every rest point
    found.sort(key=lambda e: tuple(-e.mixture))
    late = 0
    for e in found:
        e.payoffs = game.expected_payoffs(e.mixture)
        if clock is not None and clock.expired():
            e.stability, late = NOT_COMPUTED, late + 1
        else:
            e.stability = _stability(game, e.mixture, flat)
    if late and notes is not None:
        notes.append(
            f"incomplete: the stability of {late:,} of the {len(found):,} equilibria is {NOT_COMPUTED!r} (the time "
            f"limit was reached; each is verified by its regret); {RAISE_LIMIT}"
        )
    return found


def equilibria(
    game: RoleSymmetricGame,
    *,
    rel_tol: float = DEFAULT_REL_TOL,
    n_random: int = 10,
    seed: int = 0,
    exact: bool = True,
    dedup: float = 1e-6,
    max_iters: int = 200,
    supports: bool = True,
    starts_per_round: int = 16,
    max_starts: int = 128,
    time_limit: float | None = None,
    progress: bool | None = None,
    jit: bool = True,
) -> SymmetricSolution:
    """Symmetric equilibria of a role-symmetric game, each verified by its regret.

    The searches: an exact method where one applies (where it finds every equilibrium, a nondegenerate bimatrix
    game's vertex pairs, the searches after it do not run: :func:`exact_equilibria`); every pure profile; support
    enumeration with batched multi-start Newton (:func:`gamemarket.games.support_newton.support_enumeration`)
    where the game has at most 4096 supports to search; replicator dynamics from many starts, each end point
    polished on its support; SLSQP on the squared gains for the points that neither settle nor
    polish, where support enumeration does not apply. Completeness is not guaranteed (but for the nondegenerate
    bimatrix games): the solution's ``search`` says how many Newton starts ran and estimates the chance that one
    more would find a new root.

    Parameters
    ----------
    game : RoleSymmetricGame
    rel_tol : float, keyword-only
        A mixture is returned only if its regret is at most ``rel_tol * game.payoff_scale()``; in a game of several
        roles, each role's regret at most ``rel_tol`` times that role's payoff spread (:func:`role_units`: the
        searches run on each role's payoffs in its own units, and a note says each role's tolerance).
    n_random : int, keyword-only
        Random starting mixtures of the dynamics besides the uniform one and one near each pure
        strategy.
    seed : int, keyword-only
        Seed of the random starts (same seed, same answer).
    exact : bool, keyword-only
        Use an exact method where one applies (see :func:`exact_equilibria`).
    dedup : float, keyword-only
        Mixtures closer than this (largest difference of a probability) are one equilibrium.
    max_iters : int, keyword-only
        Replicator-dynamics iterations per start before the candidate is polished.
    supports : bool, keyword-only
        Run support enumeration where it applies.
    starts_per_round, max_starts : int, keyword-only
        Support enumeration's Newton starts per support and round, and its budget per support.
    time_limit : float or None, keyword-only
        Wall-clock seconds for the whole search (default None: no limit, so that a study's answers do not depend on
        the machine; ``gamemarket game solve`` gives 10). Where it is reached the search stops: the candidates
        found so far are verified as ever, ``complete`` is False and a note beginning "incomplete:" says which step
        was stopped and how far it got (support enumeration: how many of its supports). A search that finishes
        within the limit gets the same answer whatever the limit.
    progress : bool or None, keyword-only
        A progress bar on stderr for a search that runs more than a few seconds: True, False, or None (where
        stderr is a terminal).
    jit : bool, keyword-only
        The compiled searches (numba: the default) or their numpy references: the same steps, the same
        equilibria to rounding.
    """
    if not isinstance(game, RoleSymmetricGame):
        raise InputError(f"equilibria: expected a RoleSymmetricGame, got {type(game).__name__}")
    rel_tol = check_rel_tol(rel_tol, "equilibria: rel_tol")
    _check_options(n_random=n_random, seed=seed, dedup=dedup, max_iters=max_iters, starts_per_round=starts_per_round)
    _check_options(max_starts=max_starts, exact=exact, supports=supports, jit=jit, progress=progress)
    if (units := role_units(game)) is not None:  # several roles: each searched and verified in its own units
        options = dict(n_random=n_random, seed=seed, exact=exact, dedup=dedup, max_iters=max_iters, supports=supports)
        options.update(starts_per_round=starts_per_round, max_starts=max_starts, time_limit=time_limit, jit=jit)
        sol = equilibria(in_role_units(game, units), rel_tol=rel_tol, progress=progress, **options)
        return _in_game_units(sol, game, units, rel_tol)
    tol = rel_tol * game.payoff_scale()
    # the searches run on the game without its duplicate strategies (where it has any; the note says which)
    full, (game, keep, said, pairs, loose) = game, _merged_duplicates(game) or (game, None, None, [], False)
    clock = SearchClock(time_limit, progress=progress)
    ex, notes, every = _exact_candidates(game, clock) if exact else ([], [], False)
    every &= not loose  # every equilibrium of the merged game, not of the whole one: the searches run as well
    notes[:0] = [said] * (said is not None)
    cands: list[tuple[np.ndarray, str]] = [(x, "exact") for x in ex]
    if not every:  # (where the exact answer is every equilibrium, its pure ones are among them: nothing to add)
        cands += [(x, "pure") for x in _pure_mixtures(game)]
    known: dict[int, float] = {}  # candidates whose regret is already known, by position
    search, starts, stop = None, [] if every else _starts(game, n_random, seed), None
    if every:  # a nondegenerate bimatrix game searched to the end: its equilibria are all there are
        notes.append(f"exact: {EVERY_EQUILIBRIUM}")
    elif supports and clock.expired():
        stop = "before support enumeration and the replicator dynamics"
    elif supports:
        search = support_enumeration(
            game,
            tolerance=tol,
            starts_per_round=starts_per_round,
            max_starts=max_starts,
            seed=seed,
            clock=clock,
            jit=jit,
        )
        if search is not None:
            for x, r in zip(search.mixtures, search.regrets):
                known[len(cands)] = r
                cands.append((x, "support_newton"))
            notes.append(search.summary())
        stop = _stopped_search(search)
    if not stop and not every:
        try:
            if clock.expired():
                raise TimeUp
            _dynamics_candidates(game, starts, tol, max_iters, slsqp=search is None, clock=clock, cands=cands, jit=jit)
        except TimeUp:
            stop = f"in the replicator dynamics from {len(starts)} starts (their candidates so far kept)"
        finally:
            clock.close()
    if stop:
        notes.append(f"incomplete: stopped {clock.stopped()} {stop}: the equilibria listed are verified; {RAISE_LIMIT}")
    game, cands, known = _on_whole_game(full, game, keep, cands, known)
    # (a clock of its own; equilibria asked, rel_tol at most the default: each regret small against what it compares)
    local = rel_tol if rel_tol <= DEFAULT_REL_TOL else None
    checked = _verified(game, cands, known, tol, dedup, SearchClock(clock.limit), notes, local)
    return _solution(game, checked, tol, len(starts), notes, search, pairs)


def _solution(game, checked: list, tol: float, starts: int, notes: list, search, pairs: list) -> SymmetricSolution:
    """:func:`equilibria`'s answer: the verified equilibria, each with its classes of payoff-equivalent strategies
    (``pairs``: the duplicates merged), complete where no step was stopped."""
    sol = SymmetricSolution(game, checked, tol, starts, notes, search)
    for e in sol.equilibria if pairs else []:  # one equilibrium per class of payoff-equivalent strategies
        e.classes = equivalence_classes(game, e.mixture, tol=tol, pairs=pairs)
    sol.complete = not any(n.startswith("incomplete:") for n in notes)
    return sol


#: how many times one role's payoff spread may be another's before the answer's notes say each role's tolerance
ROLE_SCALES_APART = 10.0


def role_units(game: RoleSymmetricGame) -> list[tuple[float, float]] | None:
    """Each role's least payoff and spread (``(low, spread)``; a spread of 0 taken as 1), where the game has several
    roles not already in those units, else None.

    A Nash equilibrium is the same where one role's payoffs are scaled by a positive factor, or shifted; its
    regrets are not, and a tolerance relative to the whole game's spread cannot tell a small role's: a role paid
    about 1e-12 beside one paid 1e12 had its strategies merged as duplicates and a profile of regret 100 % of its
    spread listed as an equilibrium, its strict pure equilibria missed (hunt 40c-F1). Each role's payoffs are
    taken in its own units (shifted to a least of 0, divided by its spread) for the searches and the verification:
    each role's regret at most ``rel_tol`` times its own spread. A role whose payoffs spread over less than
    :data:`~gamemarket.games.rsgame.LEAST_SPREAD` (subnormal floats) is an :class:`InputError`, as such a game is."""
    if len(game.roles) < 2:
        return None
    game.payoff_scale()  # (a whole game of subnormal spread is refused as such first)
    units = []
    for r, (a, k) in enumerate(zip(game.role_starts, game.num_strategies)):
        played = game.profiles[:, a : a + k] > 0
        vals = game.payoffs[:, a : a + k][played]
        low = float(vals.min()) if vals.size else 0.0
        spread = float(vals.max()) - low if vals.size else 0.0
        if 0 < spread < LEAST_SPREAD:
            raise InputError(
                f"role-symmetric game: role {game.roles[r]!r}'s payoffs spread over {spread:.3g}, below "
                f"{LEAST_SPREAD:g}, the least spread whose regrets are told from 0 (subnormal floats); scale that "
                "role's payoffs (a positive multiple of one role's has the same equilibria)"
            )
        units.append((low, spread if spread > 0 else 1.0))
    return None if all(low == 0.0 and spread == 1.0 for low, spread in units) else units


def in_role_units(game: RoleSymmetricGame, units: list[tuple[float, float]]) -> RoleSymmetricGame:
    """``game`` with each role's payoffs in its own units (:func:`role_units`: ``(payoff - low) / spread``; 0 where
    no player of the role plays the strategy, as the game holds them)."""
    pay = np.zeros_like(game.payoffs, dtype=float)
    for (a, k), (low, spread) in zip(zip(game.role_starts, game.num_strategies), units):
        block = game.payoffs[:, a : a + k]
        pay[:, a : a + k] = np.where(game.profiles[:, a : a + k] > 0, (block - low) / spread, 0.0)
    return RoleSymmetricGame(list(game.roles), list(game.players), [list(s) for s in game.strategies], game.profiles,
                             pay)  # fmt: skip


def _in_game_units(sol: SymmetricSolution, game: RoleSymmetricGame, units: list, rel_tol: float) -> SymmetricSolution:
    """The solution of the game in its roles' units (:func:`in_role_units`) said of ``game``: each equilibrium's
    payoffs and regret in the game's units, the tolerance the largest role's, and a note of each role's."""
    for e in sol.equilibria:
        e.payoffs = np.array([low + spread * v for (low, spread), v in zip(units, e.payoffs)])
        e.regret = game.regret(e.mixture)
    spreads = [spread for _, spread in units]
    if max(spreads) > ROLE_SCALES_APART * min(spreads):  # (said where it matters: roles paid on other scales)
        each = ", ".join(f"{r} {rel_tol * spread:.3g}" for r, spread in zip(game.roles, spreads))
        sol.notes.insert(
            0,
            f"regrets decided in each role's own units: each role's at most {rel_tol:g} times its payoffs' spread "
            f"({each}; a tolerance of the whole game's spread cannot tell the regrets of a role paid far less)",
        )
    return SymmetricSolution(game, sol.equilibria, rel_tol * max(s for _, s in units), sol.starts, sol.notes,
                             sol.search, sol.complete)  # fmt: skip


#: the counts of :func:`equilibria` and the least each may be (the flags are True or False; ``progress`` also None)
_COUNTS = {"n_random": 0, "seed": 0, "max_iters": 1, "starts_per_round": 1, "max_starts": 1}


def _check_options(**options) -> None:
    """:func:`equilibria`'s options checked on entry, each named with its value where it is refused: the counts
    whole numbers (``n_random=-3`` ran, ``seed=-1`` was numpy's ``ValueError``), the flags True or False, ``dedup``
    a distance in [0, 1)."""
    for name, value in options.items():
        if name in _COUNTS:
            check_whole(value, f"equilibria: {name}", _COUNTS[name])
        elif name == "dedup":
            ok = isinstance(value, Real) and not isinstance(value, (bool, np.bool_))
            if not ok or not 0 <= float(value) < 1:  # (NaN fails the comparison)
                raise InputError(f"equilibria: dedup must be a number in [0, 1), got {value!r}")
        else:
            check_flag(value, f"equilibria: {name}", none=name == "progress")


#: how the note of a game's duplicate strategies begins (a population answer carries it to its report)
DUPLICATES_NOTE = "duplicate strategies:"


def _merged_duplicates(game: RoleSymmetricGame):
    """``(the game without its duplicate strategies, the kept strategies' mask, the note that says so, the pairs
    merged, whether a pair is not a strict duplicate)``, or None where it has none.

    Merged before the search: the strict duplicates (:func:`duplicate_strategies`, to rounding: 1e-9 of the payoff
    scale), and in a role of several players the strategies that pay whoever plays them the same in every profile
    (``others=False``). A population game's estimated payoffs make two rules that report the same bids such a pair
    whose effect on the other rules' payoffs differs by the estimator's noise alone (which agents a slice holds
    moves with the mixture): a strict duplicate to rounding never, and its continuum of splits was enumerated as
    thousands of "equilibria" (hunt 13). In a role of one player (a bimatrix game's) such a pair is kept apart: the
    other role's payoffs may depend on how that player mixes between them."""
    atol = 1e-9 * game.payoff_scale()
    strict = duplicate_strategies(game, atol, rel=1e-9)
    gone = {t for _, t in strict}
    many = np.asarray(game.players)[game.role_index] > 1
    loose = [
        (s, t)
        for s, t in duplicate_strategies(game, atol, others=False, rel=1e-9)
        if many[s] and s not in gone and t not in gone and (s, t) not in strict
    ]
    dups = sorted(strict + loose)
    if not dups:
        return None
    keep = np.ones(game.num_all_strategies, dtype=bool)
    keep[[t for _, t in dups]] = False
    names = game.strategy_names
    parts = []
    if strict:
        pairs = "; ".join(f"{names[t]} plays as {names[s]}" for s, t in strict)
        parts.append(
            f"{pairs} (no payoff changes in any profile when a player moves from one to the other): any split of a "
            "share between them is an equilibrium as well"
        )
    if loose:
        pairs = "; ".join(f"{names[t]} pays as {names[s]}" for s, t in loose)
        parts.append(
            f"{pairs} (whoever plays either gets the same payoff in every profile; the other strategies' payoffs move "
            f"by up to {_others_moved(game, loose):.3g} with the split, {atol:.3g} being rounding): merged into one "
            "class before the search, so an equilibrium that needs one split between them is not searched for; "
            "whether every split of an equilibrium's share is one as well is checked at "
            f"{SPLITS} splits each"
        )
    note = f"{DUPLICATES_NOTE} " + "; ".join(parts) + "; each equilibrium is listed once, with the share on the first"
    sub = game.restrict(keep)
    if all(k == 1 for k in sub.num_strategies):  # one strategy left a role: nothing to choose
        note += "; every mixture is an equilibrium (payoffs do not depend on the strategy)"
    return sub, keep, note, dups, bool(loose)


#: the splits of a share between payoff-equivalent strategies at which :func:`equivalence_classes` checks each
SPLITS = 11


def equivalence_classes(
    game: RoleSymmetricGame, mixture, *, tol: float | None = None, pairs: list | None = None
) -> list[tuple[int, tuple[int, ...], bool]]:
    """The classes of payoff-equivalent strategies among ``mixture``'s support: those :func:`equilibria` merges
    before its search (``pairs``, by default found again): strict duplicates, and in a role of several players the
    strategies that pay whoever plays them the same in every profile (to 1e-9 of the payoff scale).

    Returns
    -------
    list of (int, tuple of int, bool)
        Per played strategy with equivalents: the strategy, the equivalents merged into it, and whether every split
        of its share with them is an equilibrium as well. That holds where they are strict duplicates (no payoff
        changes at all); otherwise it is checked at :data:`SPLITS` splits with each (regret at most ``tol``,
        default ``1e-8`` of the payoff scale, where ``mixture`` is an equilibrium).
    """
    x = np.asarray(mixture, dtype=float)
    atol = 1e-9 * game.payoff_scale()
    tol = DEFAULT_REL_TOL * game.payoff_scale() if tol is None else float(tol)
    if pairs is None:  # the pairs the search merges
        merged = _merged_duplicates(game)
        pairs = merged[3] if merged else []
    out = []
    for s in sorted({s for s, _ in pairs if x[s] > 0}):
        merged = tuple(t for k, t in pairs if k == s)
        every = all(_same_moves(game, s, t, atol, others=True) or _splits_hold(game, x, s, t, tol) for t in merged)
        out.append((s, merged, bool(every)))
    return out


def _splits_hold(game: RoleSymmetricGame, x: np.ndarray, s: int, t: int, tol: float) -> bool:
    """Whether moving any of :data:`SPLITS` shares of ``x``'s weight on ``s`` to ``t`` keeps the regret within
    ``tol``."""
    for f in np.linspace(0.0, 1.0, SPLITS)[1:]:
        y = x.copy()
        y[t] += f * x[s]
        y[s] -= f * x[s]
        if game.regret(y) > tol:
            return False
    return True


def _others_moved(game: RoleSymmetricGame, pairs: list) -> float:
    """The largest change of a payoff in a profile when one player moves from ``s`` to ``t`` (``pairs``)."""
    prof, pay = game.profiles, game.payoffs
    index = {tuple(row): i for i, row in enumerate(prof.tolist())}
    most = 0.0
    for s, t in pairs:
        for i in np.flatnonzero(prof[:, s] > 0):
            moved = prof[i].copy()
            moved[s] -= 1
            moved[t] += 1
            j = index[tuple(moved.tolist())]
            both = (prof[i] > 0) & (moved > 0)
            if both.any():
                most = max(most, float(np.abs(pay[i] - pay[j])[both].max()))
    return most


def _on_whole_game(full, game, keep, cands: list, known: dict):
    """``(game, cands, known)`` to verify: where the search ran on ``game`` without the duplicates of ``full``
    (``keep``: the strategies kept), every candidate on the whole game (a dropped duplicate's share 0), its regret
    computed there; else as they are."""
    if keep is None:
        return game, cands, known
    out = []
    for x, how in cands:
        y = np.zeros(len(keep))
        y[keep] = x
        out.append((y, how))
    return full, out, {}


#: the most (profile, pair of strategies) checks :func:`duplicate_strategies` makes; a larger game is searched whole
DUPLICATE_CHECKS = 2_000_000


def duplicate_strategies(
    game: RoleSymmetricGame, atol: float, *, others: bool = True, rel: float | None = None
) -> list[tuple[int, int]]:
    """Pairs ``(kept, dropped)`` of one role's strategies that are the same strategy to every player: moving one
    player from ``kept`` to ``dropped`` changes no payoff in any profile (to ``atol``). Two shading rules that
    report the same bids on a workload (no job in the class one of them shades) are such a pair; every split of a
    share between them is then an equilibrium too, a continuum the searches sampled as hundreds of "equilibria".
    ``dropped`` is the later of the two in the role's order; each dropped strategy is paired with the first
    strategy it duplicates. A game larger than :data:`DUPLICATE_CHECKS` checks is not searched (none found).

    ``others=False``: the pairs that are payoff-equivalent to whoever plays them: the mover's own payoff unchanged
    in every profile (its deviation payoffs equal at every mixture), the other players' payoffs not compared. Every
    equilibrium of the game without ``dropped`` is then one of the whole game, of the same regret.

    ``rel``: payoffs equal also to ``rel`` of their own size (beyond ``1e-4 rel`` of ``atol``, their rounding near
    0): ``atol`` of the whole game's spread took payoffs of -1 and 1 for equal beside a payoff of 1e12 (hunt 23c-F5,
    a re-test of 21b-F1: matching pennies' strategies merged as duplicates, the one equilibrium lost)."""
    prof = game.profiles
    pairs = sum(k * (k - 1) // 2 for k in game.num_strategies)
    if pairs == 0 or len(prof) * pairs > DUPLICATE_CHECKS:
        return []
    out: list[tuple[int, int]] = []
    dropped: set[int] = set()
    for a, k in zip(game.role_starts.tolist(), game.num_strategies):
        for s in range(a, a + k):
            if s in dropped:
                continue
            for t in range(s + 1, a + k):
                if t not in dropped and _same_moves(game, s, t, atol, others=others, rel=rel):
                    out.append((s, t))
                    dropped.add(t)
    return out


def _same_moves(
    game: RoleSymmetricGame, s: int, t: int, atol: float, *, others: bool, rel: float | None = None
) -> bool:
    """Whether moving one player from ``s`` to ``t`` leaves the mover's payoff (and with ``others`` every other
    player's, those left on ``s`` included) unchanged to ``atol`` in every profile (and to ``rel`` of their size:
    :func:`duplicate_strategies`)."""
    prof, pay = game.profiles, game.payoffs
    index = {tuple(row): i for i, row in enumerate(prof.tolist())}

    def apart(a, b) -> bool:
        bound = (
            atol if rel is None else np.minimum(atol, np.maximum(rel * np.maximum(abs(a), abs(b)), 1e-4 * rel * atol))
        )
        return bool(np.any(np.abs(a - b) > bound))

    for i in np.flatnonzero(prof[:, s] > 0):
        moved = prof[i].copy()
        moved[s] -= 1
        moved[t] += 1
        j = index[tuple(moved.tolist())]
        if apart(pay[i, s], pay[j, t]):
            return False
        both = (prof[i] > 0) & (prof[j] > 0)
        if others and apart(pay[i][both], pay[j][both]):
            return False
    return True


def _stopped_search(search: SupportEnumeration | None) -> str | None:
    """Where the time limit stopped support enumeration: how far it got (else None)."""
    if search is None or not search.stopped:
        return None
    return (
        f"in support enumeration, after {search.supports:,} of its {search.to_search:,} supports (the last size "
        f"partly; {search.starts:,} Newton starts), before the replicator dynamics"
    )
