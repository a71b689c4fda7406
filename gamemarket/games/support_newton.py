"""Support enumeration with batched multi-start Newton: the equilibria of a role-symmetric game.

A symmetric equilibrium with support ``T`` (a non-empty set of strategies per role) solves the
indifference system of ``T``: every strategy of ``T`` in role ``r`` earns the same deviation
payoff, the probabilities of each role sum to 1, every probability in ``T`` is positive, and no
strategy outside ``T`` earns more. For ``N_r`` players per role the system is polynomial, of degree
``N_r - 1`` in the own role's probabilities and ``N_q`` in each other role's, so a support can hold
many isolated roots and no closed form finds them all.

This module runs Newton's method on every support's system from many starting points at once
(one batch per support size, since the supports of one size share their monomials), in rounds:
a support gets another round of starts while its last round found a root that no earlier start
had found, up to a budget. Each root is then screened by the gains of the strategies outside its
support (a batched sum) and verified by its regret in the whole game.

Completeness is a statistic, not a guarantee. The result counts every start and every distinct
root, and how many roots exactly one start reached; ``singletons / starts`` is the Good-Turing
estimate of the chance that one more start finds a root not yet seen (Good 1953). It is 0 when
every root was reached at least twice.

References
----------
.. [Good1953] I. J. Good, "The population frequencies of species and the estimation of population
   parameters", Biometrika 40 (1953) 237-264.
.. [McKelvey1996] R. D. McKelvey and A. McLennan, "Computation of equilibria in finite games",
   Handbook of Computational Economics 1 (1996) 87-142. (Support enumeration.)
.. [Wiedenbeck2012] B. Wiedenbeck and M. P. Wellman, "Scaling simulation-based game analysis through
   deviation-preserving reduction", AAMAS 2012.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from math import comb

import numpy as np
from numba import njit

from gamemarket.errors import InputError
from gamemarket.games.budget import SearchClock, TimeUp
from gamemarket.games.rsgame import RoleSymmetricGame, all_profiles

#: the largest batch (starts x profiles x strategies) held in memory at once
_CHUNK = 3_000_000
#: a support stays open until its starts have converged this many times (or its budget is spent): 16 and 16 starts a
#: round, against 4 and 8, missed 0.1 of 100 equilibria on gameanalysis's random games instead of 1.1, in 1.6 times
#: the time (benchmarks/bench_rsg_completeness.py)
MIN_HITS = 16
#: ... and this many times per distinct root it has found: a support of many roots, each reached by few starts (7 roots,
#: 31 convergences, every root twice), had stopped with a root that a tenth of the converged starts reach unseen. On
#: 100 games of two roles of 4-5 players and 3 strategies (2,376 equilibria) the search missed 2 instead of 55, in
#: 1.34 times the time; on gameanalysis's random games 0 of 1,006 instead of 1, in 1.02 times
#: (benchmarks/bench_rsg_completeness.py)
HITS_PER_ROOT = 16
#: a support with roots whose stopping rule is unmet when its budget is spent gets up to this many times the budget
EXTEND = 8
#: a support whose system costs less than this (profiles x strategies^2) gets more starts
_CHEAP = 4096


@dataclass
class SupportEnumeration:
    """What the search found and what it tried.

    ``mixtures`` are the roots whose regret in the whole game is at most ``tolerance``. ``starts``
    counts Newton runs, ``roots`` the distinct roots they reached inside the simplex (equilibria or
    not), ``singletons`` the roots reached by exactly one start, ``open_supports`` the supports whose
    budget ran out, with roots found, before their stopping rule was met (a root reached by one start only, or fewer
    convergences than MIN_HITS and HITS_PER_ROOT per distinct root: 16 each).
    """

    mixtures: list = field(default_factory=list)
    regrets: list = field(default_factory=list)  #: each mixture's regret in the whole game
    tolerance: float = 0.0
    supports: int = 0
    starts: int = 0
    roots: int = 0
    singletons: int = 0
    open_supports: int = 0
    to_search: int = 0  #: the supports there were to search (:func:`count_searched_supports`)
    stopped: bool = False  #: True where the time limit stopped the search (``supports`` of ``to_search`` searched)

    @property
    def unseen_chance(self) -> float:
        """Good-Turing estimate of the chance that one more start reaches a root not yet seen."""
        return self.singletons / self.starts if self.starts else 0.0

    def summary(self) -> str:
        """One line: supports, Newton starts, distinct roots, equilibria, roots reached once (with the
        Good-Turing estimate) and supports whose budget ran out before their stopping rule was met.
        """
        return (
            f"support enumeration: {self.supports} supports, {self.starts:,} Newton starts, "
            f"{self.roots:,} distinct roots, {len(self.mixtures):,} of them equilibria (its own, before the other "
            "methods' are merged and repeats dropped); roots reached once: "
            f"{self.singletons} (Good-Turing chance that a new start finds a new root: {self.unseen_chance:.2g}); "
            f"supports whose budget ran out before their stopping rule was met: {self.open_supports}"
        )


def count_supports(game: RoleSymmetricGame) -> int:
    """Number of supports with at least two strategies somewhere (one non-empty subset per role)."""
    total = 1
    for k in game.num_strategies:
        total *= 2**k - 1
    return total - int(np.prod(game.num_strategies))


def count_searched_supports(game: RoleSymmetricGame) -> int:
    """:func:`count_supports` less the structurally singular ones (:func:`structurally_singular`)."""
    sizes = [range(1, k + 1) for k in game.num_strategies]
    total = 0
    for combo in itertools.product(*sizes):
        if all(s == 1 for s in combo) or structurally_singular(game.players, combo):
            continue
        total += int(np.prod([comb(k, s) for k, s in zip(game.num_strategies, combo)]))
    return total


class _SizeFamily:
    """The supports of one size (strategies per role) and the terms their systems share.

    For a support ``T`` the profiles whose counts vanish outside ``T`` are, in the game's canonical
    order, exactly ``all_profiles(players, sizes)``: so the monomials ``Cs`` are shared and each
    support only brings its own coefficients ``K[T]`` (multinomial coefficient times payoff).
    """

    def __init__(self, game: RoleSymmetricGame, sizes: tuple, masks: list):
        C, K, _ = game._dense()
        uses = game._uses()
        self.sizes, self.masks = sizes, masks
        self.Cs = all_profiles(game.players, sizes).astype(float)
        self.k = k = int(sum(sizes))
        ri = np.repeat(np.arange(len(sizes)), sizes)
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.others = np.setdiff1d(np.arange(k), self.starts)
        self.ref = self.starts[ri[self.others]]
        self.sums = (ri[None, :] == np.arange(len(sizes))[:, None]).astype(float)
        Ks, scales, self.powers = [], [], []
        for supp in masks:
            rows = ~uses[:, ~supp].any(axis=1)
            # each system in units of its payoffs' spread, divided exactly (a power of 2): hunt 31c-F2
            power, unit = polish_units(game.payoffs[rows][:, supp][C[rows][:, supp] > 0])
            Ks.append(K[rows][:, supp] / power)
            scales.append(unit)
            self.powers.append(power)
        self.Ks = np.ascontiguousarray(np.array(Ks).transpose(0, 2, 1))  # (supports, strategies, profiles)
        self.scales = np.array(scales)
        # the deviators outside each support: dev_t = sum_p K[p, t] z^(others' counts on T), over the
        # profiles with one player on t and every other player on T
        self.off = []
        role_of = game.role_index
        for supp in masks:
            rows_all, cols, w = [], [], []
            outside = np.flatnonzero(~supp)
            for j, t in enumerate(outside):
                rows = (C[:, t] == 1) & ~uses[:, outside[outside != t]].any(axis=1)
                idx = np.flatnonzero(rows)
                rows_all.append(idx)
                cols.append(np.full(len(idx), j))
                w.append(K[idx, t])
            if not len(outside):
                self.off.append(None)
                continue
            idx = np.concatenate(rows_all)
            D = C[idx][:, supp]  # the deviator's strategy is outside T, so these are the others' counts
            W = np.zeros((len(idx), len(outside)))
            W[np.arange(len(idx)), np.concatenate(cols)] = np.concatenate(w)
            # the reference strategy of each outsider's role inside T (all of T's strategies of a role
            # earn the same at a root)
            first_in_role = np.array([int(np.flatnonzero(supp & (role_of == role_of[t]))[0]) for t in outside])
            ref_local = np.searchsorted(np.flatnonzero(supp), first_in_role)
            self.off.append((D, W, ref_local))

    def newton(
        self, sid: np.ndarray, Z: np.ndarray, max_iters: int = 50, clock: SearchClock | None = None, jit: bool = True
    ) -> tuple[np.ndarray, np.ndarray]:
        """Batched Newton from the rows of ``Z`` on supports ``sid``; returns (roots, converged). Raises
        :class:`~gamemarket.games.budget.TimeUp` between batches once ``clock``'s limit is reached. ``jit``: the
        compiled rows (:func:`compiled_newton`), else the numpy batches (:func:`batched_newton`, the reference)."""
        ok = np.zeros(len(Z), dtype=bool)
        per = max(1, _CHUNK // (len(self.Cs) * self.k))
        for a in range(0, len(Z), per):
            if clock is not None:
                clock.check()
            if jit:
                Z[a : a + per], ok[a : a + per] = compiled_newton(
                    self.Cs, self.Ks, sid[a : a + per], Z[a : a + per], self.others, self.ref, self.sums, self.scales,
                    max_iters=max_iters,
                )  # fmt: skip
                continue
            Z[a : a + per], ok[a : a + per] = batched_newton(
                self.Cs,
                self.Ks[sid[a : a + per]],
                Z[a : a + per],
                self.others,
                self.ref,
                self.sums,
                self.scales[sid[a : a + per]],
                max_iters=max_iters,
            )
        return Z, ok

    def outside_gains(self, s: int, Z: np.ndarray) -> np.ndarray:
        """The largest gain of a strategy outside support ``s`` at each root (rows of ``Z``)."""
        off = self.off[s]
        if off is None:
            return np.zeros(len(Z))
        D, W, ref_local = off
        X = np.exp(np.log(Z) @ D.T)
        dev_out = X @ W
        XK = np.exp(np.log(Z) @ self.Cs.T) @ self.Ks[s].T * self.powers[s]  # (in the game's units again, exactly)
        dev_in = XK / Z
        return (dev_out - dev_in[:, ref_local]).max(axis=1)


def polish_units(vals: np.ndarray) -> tuple[float, float]:
    """The units of an indifference system of payoffs ``vals``: ``(power, unit)``, the power of 2 at or below their
    spread (their largest size where they are all equal; 1 where they are all 0), by which Newton's method divides
    the payoffs (exactly: the same steps at every power of 2), and the spread in those units, in [1, 2).

    Newton's tolerances are relative to ``unit`` (:func:`residual_size`): absolute ones, 1e-14 and 1e-6 floored at 1,
    stopped the polish of Battle of the Sexes times 1e-9 at its start, 2.2e-7 from the equilibrium (its residual was
    below 1e-14 there), and the QRE limit was "not verified" where at scale 1 it was; and at 1e-300 the payoffs' rows
    of a singular Jacobian fell below the pseudo-inverse's cut beside the probabilities' sums (hunt 31c-F2). In
    these units the answers are the same at every scale of the payoffs.
    """
    vals = np.asarray(vals, dtype=float)
    spread = float(vals.max() - vals.min()) if vals.size else 0.0
    size = float(np.abs(vals).max()) if vals.size else 0.0
    spread = spread if spread > 0 else size if size > 0 else 1.0
    power = math.ldexp(1.0, math.frexp(spread)[1] - 1)
    return power, spread / power


def residual_size(r: np.ndarray, n_payoff: int, unit) -> np.ndarray:
    """The size of the residuals ``r`` (the last axis: ``n_payoff`` payoff differences, then the sums of the
    probabilities) in units of the system: the payoffs' in ``unit``, the sums' in ``max(1, unit)``
    (:func:`polish_units`); the numpy references' form of :func:`_residual`'s."""
    unit = np.asarray(unit, dtype=float)[..., None]
    pay = np.abs(r[..., :n_payoff]).max(axis=-1, initial=0.0, keepdims=True) / unit
    tot = np.abs(r[..., n_payoff:]).max(axis=-1, initial=0.0, keepdims=True) / np.maximum(1.0, unit)
    return np.maximum(pay, tot)[..., 0]


def batched_newton(Cs, Kb, Z, others, ref, sums, scale, *, max_iters: int = 50):
    """Newton's method on many indifference systems of one size at once.

    Row ``b`` solves: ``dev_s(z) = dev_ref(s)(z)`` for the non-first strategies of each role and
    ``sum_role z = 1``, where ``dev_s(z) = sum_p Kb[b, s, p] z^(Cs[p] - e_s)``. The same steps as
    :func:`gamemarket.games.rsg_equilibria._newton` (the reference, one start at a time): a row stops
    when its residual is below 1e-14 (:func:`residual_size`, in units of ``scale``), is dropped where it leaves the
    simplex (a coordinate below -0.5, or not finite) or still wanders after 25 iterations, and coordinates
    are kept at or above 1e-13 between steps. Returns ``(Z, converged)``.
    """
    Z = np.array(Z, dtype=float)
    B, k = Z.shape
    alive = np.ones(B, dtype=bool)
    done = np.zeros(B, dtype=bool)
    diag = np.arange(k)
    CsT = Cs.T
    Cm1T = np.ascontiguousarray(CsT - 1.0)
    for it in range(max_iters + 1):
        idx = np.flatnonzero(alive & ~done)
        if not idx.size:
            break
        z = Z[idx]
        X = np.exp(np.log(z) @ CsT)
        KX = Kb[idx] * X[:, None, :]  # K_ps z^(c_p), strategies first
        XK = KX.sum(axis=2)
        dev = XK / z
        r = np.concatenate([dev[:, others] - dev[:, ref], z @ sums.T - 1.0], axis=1)
        res = residual_size(r, len(others), scale[idx])
        conv = res < 1e-14
        done[idx[conv]] = True
        wander = ~conv & (it >= 25) & (res > 1e-4)
        alive[idx[wander]] = False
        go = ~conv & ~wander
        if it == max_iters or not go.any():
            break
        if not go.all():
            idx, z, KX, r = idx[go], z[go], KX[go], r[go]
        n = len(idx)
        # d dev_s / d z_t = sum_p K_ps (c_pt - [s = t]) z^(c_p - e_s - e_t): one GEMM for the batch (the
        # monomials are shared), the diagonal summed with its (c_ps - 1) factor so nothing cancels
        M = (KX.reshape(n * k, -1) @ Cs).reshape(n, k, k)
        M[:, diag, diag] = np.einsum("bsp,sp->bs", KX, Cm1T)
        J = M / (z[:, :, None] * z[:, None, :])
        A = np.concatenate([J[:, others] - J[:, ref], np.broadcast_to(sums, (n,) + sums.shape)], axis=1)
        try:
            step = np.linalg.solve(A, -r[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:  # a singular system in the batch: least squares, as the reference
            step = (np.linalg.pinv(A, rtol=k * np.finfo(float).eps) @ -r[:, :, None])[:, :, 0]
        z = z + step
        bad = ~np.all(np.isfinite(z), axis=1) | np.any(z < -0.5, axis=1)
        alive[idx[bad]] = False
        Z[idx] = np.maximum(np.where(np.isfinite(z), z, 1.0), 1e-13)
    converged = done & alive & np.all(Z > 1e-12, axis=1)
    return Z, converged


def compiled_newton(Cs, Ks, sid, Z, others, ref, sums, scales, *, max_iters: int = 50):
    """:func:`batched_newton` compiled (numba), one row at a time: the same steps, tolerances and stopping rules.

    Row ``b`` solves support ``sid[b]``'s system (coefficients ``Ks[sid[b]]``, scale ``scales[sid[b]]``) from
    ``Z[b]``. Each row's Newton steps are independent of the others', so a row at a time takes the batch's steps;
    only the rounding differs (sums in another order, Gaussian elimination with partial pivoting for LAPACK's LU).
    A singular system falls back to least squares (the pseudo-inverse, as the reference) for its own row only,
    where the reference's batch does so for every row of the batch. Returns ``(Z, converged)``.
    """
    Z = np.array(Z, dtype=float)
    ok = np.zeros(len(Z), dtype=bool)
    _newton_rows(
        np.ascontiguousarray(Cs, dtype=float),
        np.ascontiguousarray(Ks, dtype=float),
        np.ascontiguousarray(sid, dtype=np.int64),
        Z,
        np.ascontiguousarray(others, dtype=np.int64),
        np.ascontiguousarray(ref, dtype=np.int64),
        np.ascontiguousarray(sums, dtype=float),
        np.ascontiguousarray(scales, dtype=float),
        int(max_iters),
        ok,
    )
    return Z, ok


@njit(cache=True, inline="always")
def _lu_solve(A: np.ndarray, rhs: np.ndarray, out: np.ndarray) -> bool:
    """``A out = rhs`` by Gaussian elimination with partial pivoting (``A``, ``rhs`` overwritten); False where a
    pivot is exactly 0, where LAPACK's ``gesv`` (``np.linalg.solve``) reports a singular matrix."""
    d = A.shape[0]
    for c in range(d):
        p = c
        big = abs(A[c, c])
        for i in range(c + 1, d):
            if abs(A[i, c]) > big:
                big, p = abs(A[i, c]), i
        if big == 0.0:
            return False
        if p != c:
            for j in range(d):
                A[c, j], A[p, j] = A[p, j], A[c, j]
            rhs[c], rhs[p] = rhs[p], rhs[c]
        for i in range(c + 1, d):
            f = A[i, c] / A[c, c]
            if f != 0.0:
                for j in range(c + 1, d):
                    A[i, j] -= f * A[c, j]
                rhs[i] -= f * rhs[c]
    for c in range(d - 1, -1, -1):
        s = rhs[c]
        for j in range(c + 1, d):
            s -= A[c, j] * out[j]
        out[c] = s / A[c, c]
    return True


@njit(cache=True, inline="always")
def _residual(Cs, Ci, K, z, others, ref, sums, pw, X, KX, dev, r, unit) -> float:
    """The indifference system's residual at ``z`` into ``r`` (``K``: strategies x profiles; ``Ci``: the counts
    ``Cs`` as integers; ``pw``: room for each coordinate's powers), the terms ``K_sp z^(c_p)`` into ``KX``; returns
    its largest size, the payoff differences in ``unit`` and the sums in ``max(1, unit)`` (:func:`polish_units`)."""
    P, k = Cs.shape
    no, nr = others.shape[0], sums.shape[0]
    # z^(c_p) as a product of powers (the counts are whole numbers): the reference's exp(c_p . log z) to
    # rounding, without an exp per profile
    for t in range(k):
        pw[t, 0] = 1.0
        for c in range(1, pw.shape[1]):
            pw[t, c] = pw[t, c - 1] * z[t]
    for p in range(P):
        e = 1.0
        for t in range(k):
            e *= pw[t, Ci[p, t]]
        X[p] = e
    for s in range(k):
        acc = 0.0
        for p in range(P):
            v = K[s, p] * X[p]
            KX[s, p] = v
            acc += v
        dev[s] = acc / z[s]
    pay, tot = 0.0, 0.0
    for i in range(no):
        r[i] = dev[others[i]] - dev[ref[i]]
        pay = max(pay, abs(r[i]))
    for q in range(nr):
        acc = 0.0
        for t in range(k):
            acc += z[t] * sums[q, t]
        r[no + q] = acc - 1.0
        tot = max(tot, abs(r[no + q]))
    return max(pay / unit, tot / max(1.0, unit))


@njit(cache=True, inline="always")
def _newton_step(CsT, KX, z, others, ref, sums, r, M, A, A0, rhs, step) -> None:
    """Newton's step for the residual ``r`` into ``step``: the Jacobian ``d dev_s / d z_t = sum_p K_ps (c_pt -
    [s = t]) z^(c_p - e_s - e_t)``, the diagonal summed with its ``(c_ps - 1)`` factor so that nothing cancels;
    a singular system by least squares (the pseudo-inverse, as the references)."""
    k, P = CsT.shape
    no, nr = others.shape[0], sums.shape[0]
    for s in range(k):
        for t in range(k):
            acc = 0.0
            if s == t:
                for p in range(P):
                    acc += KX[s, p] * (CsT[s, p] - 1.0)
            else:
                for p in range(P):
                    acc += KX[s, p] * CsT[t, p]
            M[s, t] = acc / (z[s] * z[t])
    for i in range(no):
        for t in range(k):
            A[i, t] = M[others[i], t] - M[ref[i], t]
    for q in range(nr):
        for t in range(k):
            A[no + q, t] = sums[q, t]
    for i in range(k):
        rhs[i] = -r[i]
        for t in range(k):
            A0[i, t] = A[i, t]
    if not _lu_solve(A, rhs, step):
        step[:] = np.linalg.pinv(A0, k * np.finfo(np.float64).eps) @ -r


@njit(cache=True)
def _exponents(Cs):
    """The profiles' counts transposed, as integers (the monomials' exponents), and room for each strategy's powers:
    what :func:`_newton_rows` and :func:`polish_newton` set up before their loops."""
    P, k = Cs.shape
    Ci = np.empty((P, k), np.int64)
    for p in range(P):
        for t in range(k):
            Ci[p, t] = int(Cs[p, t])
    return np.ascontiguousarray(Cs.T), Ci, np.empty((k, int(Cs.max()) + 1))


@njit(cache=True)
def _newton_rows(Cs, Ks, sid, Z, others, ref, sums, scales, max_iters, ok) -> None:
    """:func:`compiled_newton`'s loop: each row of ``Z`` in place, its flag into ``ok``."""
    P, k = Cs.shape
    CsT, Ci, pw = _exponents(Cs)
    X, dev, r = np.empty(P), np.empty(k), np.empty(k)
    KX, M, A, A0 = np.empty((k, P)), np.empty((k, k)), np.empty((k, k)), np.empty((k, k))
    rhs, step = np.empty(k), np.empty(k)
    for b in range(Z.shape[0]):
        K = Ks[sid[b]]
        unit = scales[sid[b]]
        z = Z[b]
        done = False
        alive = True
        for it in range(max_iters + 1):
            res = _residual(Cs, Ci, K, z, others, ref, sums, pw, X, KX, dev, r, unit)
            if res < 1e-14:
                done = True
                break
            if it >= 25 and res > 1e-4:
                alive = False
                break
            if it == max_iters:
                break
            _newton_step(CsT, KX, z, others, ref, sums, r, M, A, A0, rhs, step)
            for t in range(k):
                v = z[t] + step[t]
                if not np.isfinite(v) or v < -0.5:
                    alive = False
                z[t] = max(v if np.isfinite(v) else 1.0, 1e-13)
            if not alive:
                break
        ok[b] = done and alive
        for t in range(k):
            ok[b] = ok[b] and z[t] > 1e-12


@njit(cache=True)
def polish_newton(Cs, KT, z, others, ref, sums, scale, max_iters):
    """:func:`gamemarket.games.rsg_equilibria._newton` compiled (one start; ``KT``: strategies x profiles): the same
    steps and stopping rules. Returns ``(z, ok)``: ``ok`` False where the reference returns None."""
    P, k = Cs.shape
    CsT, Ci, pw = _exponents(Cs)
    z = z.copy()
    X, dev, r = np.empty(P), np.empty(k), np.empty(k)
    KX, M, A, A0 = np.empty((k, P)), np.empty((k, k)), np.empty((k, k)), np.empty((k, k))
    rhs, step = np.empty(k), np.empty(k)
    res = np.inf
    for it in range(max_iters):
        # (in units of the payoffs' spread, ``scale``: hunt 31c-F2, see polish_units)
        res = _residual(Cs, Ci, KT, z, others, ref, sums, pw, X, KX, dev, r, scale)
        if res < 1e-14:
            break
        if it >= 25 and res > 1e-4:  # wandering, not converging
            return z, False
        _newton_step(CsT, KX, z, others, ref, sums, r, M, A, A0, rhs, step)
        for t in range(k):
            v = z[t] + step[t]
            if not np.isfinite(v) or v < -0.5:
                return z, False
            z[t] = v
        for t in range(k):
            z[t] = max(z[t], 1e-13)
    if max_iters < 1 or res > 1e-6:
        return z, False
    for t in range(k):
        if z[t] <= 1e-12:
            return z, False
    return z, True


def structurally_singular(players, sizes) -> bool:
    """True where a support's indifference system cannot have an isolated root.

    A role of one player has payoffs that do not depend on its own mixture, so its ``k_r - 1``
    indifference equations involve only the other roles' ``sum_q (k_q - 1)`` unknowns; with more
    equations than that, the Jacobian is singular everywhere. Generic games have no equilibrium on
    such a support (a bimatrix game's supports of unequal sizes), and a degenerate game's are not
    isolated points, which Newton's method could not enumerate anyway.
    """
    free = [k - 1 for k in sizes]
    return any(n == 1 and free[r] > sum(free) - free[r] for r, n in enumerate(players))


def _families(game: RoleSymmetricGame):
    """The supports to search, one :class:`_SizeFamily` per size (strategies per role), smallest first: a generator,
    so that a search stopped by its time limit builds no family it does not search."""
    subsets = [
        [np.array(c) for m in range(1, k + 1) for c in itertools.combinations(range(k), m)] for k in game.num_strategies
    ]
    groups: dict[tuple, list] = {}
    for combo in itertools.product(*subsets):
        sizes = tuple(len(c) for c in combo)
        if all(s == 1 for s in sizes):
            continue  # pure profiles: checked directly by the caller
        if structurally_singular(game.players, sizes):
            continue
        supp = np.zeros(game.num_all_strategies, dtype=bool)
        for a, c in zip(game.role_starts, combo):
            supp[a + c] = True
        groups.setdefault(sizes, []).append(supp)
    for sizes, masks in sorted(groups.items()):
        yield _SizeFamily(game, sizes, masks)


def support_enumeration(
    game: RoleSymmetricGame,
    *,
    tolerance: float,
    starts_per_round: int = 16,
    max_starts: int = 128,
    seed: int = 0,
    max_supports: int = 4096,
    clock: SearchClock | None = None,
    jit: bool = True,
) -> SupportEnumeration | None:
    """Every root that batched Newton reaches on every support, verified as equilibria.

    Parameters
    ----------
    game : RoleSymmetricGame
    tolerance : float, keyword-only
        A root is returned only where its regret in the whole game is at most this.
    starts_per_round : int, keyword-only
        Starts per support and round: a block of a scrambled Sobol sequence mapped to uniform
        points on each role's simplex (a power of 2 keeps the blocks balanced); the support's
        centroid joins the first round. Supports whose system is cheap (fewer than 4096
        profiles x strategies^2) get up to 8 times as many starts, and as large a budget.
    max_starts : int, keyword-only
        Most starts per support. A support also stops after a round once its starts have
        converged at least 16 times and 16 times per distinct root it has found, and every root it
        has found was reached by at least two starts.
    seed : int, keyword-only
        Seed of the starting points (same seed, same answer).
    max_supports : int, keyword-only
        None is returned where the game has more supports to search than this
        (:func:`count_searched_supports`: a role of one player cannot mix over more strategies
        than the other roles' free probabilities, so those supports are not counted), or where its
        dense terms overflow.
    clock : SearchClock, keyword-only
        The search's time limit and progress bar (:class:`gamemarket.games.budget.SearchClock`; default: none):
        where the limit is reached the search stops, the roots its last support size had found are verified as
        ever, and the result's ``stopped`` is True (``supports`` of ``to_search`` searched).
    jit : bool, keyword-only
        Newton's method compiled (numba, :func:`compiled_newton`: the default) or in numpy batches
        (:func:`batched_newton`, the reference): the same steps, the same roots to rounding.
    """
    if starts_per_round < 1 or max_starts < starts_per_round:
        raise InputError(
            f"support_enumeration: need 1 <= starts_per_round <= max_starts, got {starts_per_round} and {max_starts}"
        )
    if count_searched_supports(game) > max_supports or not game._dense()[2]:
        return None
    from scipy.stats import qmc  # deferred: importing scipy.stats costs ~0.8 s, and cached analyses never need it

    rng = np.random.default_rng(seed)
    out = SupportEnumeration(tolerance=tolerance, to_search=count_searched_supports(game))
    if clock is not None:
        clock.bar(out.to_search, unit="support", desc="support enumeration")
    try:
        for fam in _families(game):
            if clock is not None:
                clock.check()
            out.supports += len(fam.masks)
            roots, hits = _family_roots(fam, rng, out, starts_per_round, max_starts, clock, qmc, jit)
            _keep_equilibria(game, fam, roots, hits, out)
            if out.stopped:
                break
            if clock is not None:
                clock.advance(len(fam.masks))
    except TimeUp:  # between two families, or as one was built: nothing of it to keep
        out.stopped = True
    finally:
        if clock is not None:
            clock.close()
    return out


def _family_roots(fam: _SizeFamily, rng, out: SupportEnumeration, starts_per_round, max_starts, clock, qmc, jit=True):
    """Newton's rounds on the supports of one size: the distinct roots of each support and how many starts reached
    each. Counts the starts in ``out``; where ``clock``'s limit stops it, sets ``out.stopped`` and returns the roots
    found so far."""
    nS = len(fam.masks)
    # the distinct roots found (rows of R, the first ``count``), their supports and how many starts reached each
    R, own, H, count = np.empty((64, fam.k)), np.empty(64, np.int64), np.empty(64, np.int64), 0
    open_ = np.ones(nS, dtype=bool)
    # cheap systems get more starts (up to 8x) for the same time
    boost = int(np.clip(2 ** np.floor(np.log2(_CHEAP / (len(fam.Cs) * fam.k**2))), 1, 8))
    per_round, budget = starts_per_round * boost, max_starts * boost
    sobol = qmc.Sobol(d=fam.k, scramble=True, seed=rng)
    used = 0
    distinct = np.zeros(nS, dtype=np.int64)
    while open_.any():
        if used >= budget:  # past the budget, only the supports with roots whose rule is unmet go on, to a limit
            open_ &= distinct > 0
            if used >= EXTEND * budget or not open_.any():
                break
        # one balanced block of a scrambled Sobol sequence, shared by the open supports, mapped to
        # uniform points on each role's simplex; the centroid joins the first round
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # balance needs a power of 2; other counts still work
            block = -np.log1p(-sobol.random(per_round))
        if used == 0:
            block = np.vstack([np.ones(fam.k), block])
        open_ids = np.flatnonzero(open_)
        sid = np.repeat(open_ids, len(block))
        Z0 = np.tile(block, (len(open_ids), 1))
        Z0 /= np.repeat(np.add.reduceat(Z0, fam.starts, axis=1), fam.sizes, axis=1)
        try:
            Z, ok = fam.newton(sid, Z0, clock=clock, jit=jit)
        except TimeUp:
            out.stopped = True
            break
        used += per_round
        out.starts += len(sid)
        if count + ok.sum() > len(R):  # room for every root of this round to be new
            grow = count + int(ok.sum())
            R, own, H = np.resize(R, (grow, fam.k)), np.resize(own, grow), np.resize(H, grow)
        count = tally_roots(Z[ok], sid[ok], R, own, H, count)
        once = np.bincount(own[:count], weights=H[:count] == 1, minlength=nS) > 0
        converged = np.bincount(own[:count], weights=H[:count], minlength=nS)
        distinct = np.bincount(own[:count], minlength=nS)
        open_ = once | (converged < np.maximum(MIN_HITS, HITS_PER_ROOT * distinct))
    if not out.stopped:  # the budget ran out with these still open (a support with no root: nothing to say)
        out.open_supports += int((open_ & (distinct > 0)).sum())
    roots: list[list] = [[] for _ in range(nS)]  # distinct roots per support, in the order found
    hits: list[list] = [[] for _ in range(nS)]
    for i in range(count):
        roots[own[i]].append(R[i].copy())
        hits[own[i]].append(int(H[i]))
    return roots, hits


@njit(cache=True)
def tally_roots(Z, sid, R, own, H, count) -> int:
    """Each row ``Z[b]`` (a root of support ``sid[b]``, in order) counted as a hit of the first root of its support
    already in ``R`` (rows ``[:count]``, supports ``own``, hits ``H``) within 1e-7 in every coordinate, else added
    as a new root (``R`` has room); returns the new count. Bookkeeping, compiled: a support's roots are compared
    with each of its starts' roots, thousands a game."""
    k = Z.shape[1]
    for b in range(Z.shape[0]):
        found = -1
        for i in range(count):
            if own[i] != sid[b]:
                continue
            far = 0.0
            for t in range(k):
                far = max(far, abs(R[i, t] - Z[b, t]))
            if far < 1e-7:
                found = i
                break
        if found >= 0:
            H[found] += 1
        else:
            for t in range(k):
                R[count, t] = Z[b, t]
            own[count], H[count] = sid[b], 1
            count += 1
    return count


def _keep_equilibria(game: RoleSymmetricGame, fam: _SizeFamily, roots: list, hits: list, out: SupportEnumeration):
    """Count one support size's roots in ``out`` and keep those whose regret in the whole game is within its
    tolerance (screened first by the gains of the strategies outside each support)."""
    S = game.num_all_strategies
    for s in range(len(fam.masks)):
        if not roots[s]:
            continue
        out.roots += len(roots[s])
        out.singletons += sum(h == 1 for h in hits[s])
        Z = np.array(roots[s])
        Z = Z / np.repeat(np.add.reduceat(Z, fam.starts, axis=1), fam.sizes, axis=1)
        keep = fam.outside_gains(s, Z) <= out.tolerance
        for z in Z[keep]:
            x = np.zeros(S)
            x[fam.masks[s]] = z
            x = game.normalize(x)
            r = game.regret(x)
            if r <= out.tolerance:
                out.mixtures.append(x)
                out.regrets.append(r)
