"""Role-symmetric games: roles with player counts and strategy lists, payoffs per profile.

A role-symmetric game has roles ``r`` with ``N_r`` interchangeable players each; the players of a
role share a strategy list and a payoff function, so a profile is a count of players per strategy
per role, and a payoff is attached to each (profile, strategy) with a positive count. This is the
standard object of empirical game-theoretic analysis (EGTA): a game among many self-interested
agents whose payoffs are estimated by simulation.

Strategies of all roles are indexed together (``0 .. S-1``, role by role). A profile is a row of
``S`` counts; ``payoffs[p, s]`` is the payoff of a player of strategy ``s`` in profile ``p`` (0
where the count is 0). A mixture is one probability vector per role, stored flat with ``S``
entries that sum to 1 within each role.

The deviation payoff of strategy ``s`` at mixture ``x`` is the expected payoff of one player who
plays ``s`` while every other player draws a strategy from ``x`` (the other players of its own
role: ``N_r - 1`` draws; every other role: ``N_q`` draws). The regret of a mixture is the largest
gain a player of any role can make by deviating to a pure strategy.

References
----------
.. [Wellman2006] M. P. Wellman, "Methods for empirical game-theoretic analysis", AAAI 2006.
.. [Wiedenbeck2012] B. Wiedenbeck and M. P. Wellman, "Scaling simulation-based game analysis through
   deviation-preserving reduction", AAMAS 2012.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import comb

import numpy as np
from scipy.special import gammaln

from gamemarket.errors import InputError, check_whole, shown_name, shown_value
from gamemarket.games.bimatrix import Game
from gamemarket.games.checks import check_range, check_real, same_fields
from gamemarket.io.limits import check_fits
from gamemarket.io.names import check_names

_TINY = np.finfo(float).tiny
#: the least spread of payoffs a game's tolerances are relative to (:meth:`RoleSymmetricGame.payoff_scale`)
LEAST_SPREAD = 1e-300


def fast_exp(v: np.ndarray) -> np.ndarray:
    """``np.exp(v)``, bit for bit, without libm's slow path for arguments far below underflow.

    Every argument below -746 gives 0 (the smallest subnormal is exp(-744.4)); libm takes a slow
    path for them, which made the sparse deviation payoffs 5x slower at the simplex's faces. Used
    wherever a deviation payoff is a sum of ``exp(log-probabilities)`` that may underflow.

    Parameters
    ----------
    v : numpy.ndarray
        Exponents (any shape); ``-inf`` gives 0, as in ``np.exp``.

    Returns
    -------
    numpy.ndarray
        ``np.exp(v)``, element for element the same bits.
    """
    return np.exp(np.where(v < -746.0, -np.inf, v))


#: the bytes one profile costs while it is enumerated as Python objects (a list of counts: its pointers, its integers,
#: the combination it is made from), measured: 10^8 profiles of 2 strategies passed 23 GB before they were an array
PYTHON_ROW_BYTES = 300


def _composition(n: int, k: int) -> np.ndarray:
    """Every way to place ``n`` players on ``k`` strategies (rows of counts, lexicographic)."""
    if k == 1:
        return np.array([[n]], dtype=np.int64)
    rows = []
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        prev, row = -1, []
        for b in bars:
            row.append(b - prev - 1)
            prev = b
        row.append(n + k - 2 - prev)
        rows.append(row)
    return np.array(rows, dtype=np.int64)


def num_profiles(players, num_strategies) -> int:
    """Number of profiles of a complete role-symmetric game."""
    out = 1
    for n, k in zip(players, num_strategies):
        out *= comb(int(n) + int(k) - 1, int(k) - 1)
    return out


def all_profiles(players, num_strategies) -> np.ndarray:
    """Every profile of a role-symmetric game (rows of ``S`` counts, role by role); sized in closed form before
    any is made (``check_fits``: 10^8 players of ``from_function`` ended in a bare MemoryError, or filled the
    machine, hunt 18c)."""
    need, S = num_profiles(players, num_strategies), sum(int(k) for k in num_strategies)
    check_fits(need * (PYTHON_ROW_BYTES + 16 * S), f"every profile of a role-symmetric game: {need:,} of them")
    parts = [_composition(int(n), int(k)) for n, k in zip(players, num_strategies)]
    out = parts[0]
    for p in parts[1:]:
        out = np.concatenate([np.repeat(out, len(p), axis=0), np.tile(p, (len(out), 1))], axis=1)
    return out


def _check_name_lists(roles, strategies) -> None:
    """The roles a list of names, the strategies a list of such lists, one per role: a text given for a list was
    split into its letters without a word (``["vs"]`` two strategies, roles ``"ab"`` two roles; hunt 18c-W5)."""
    check_names(roles, "role-symmetric game", "roles")
    if isinstance(strategies, (str, bytes)) or not hasattr(strategies, "__len__"):
        raise InputError(f"role-symmetric game: strategies must be one list per role, got {strategies!r:.100}")
    for r, ss in zip(roles, strategies):
        check_names(ss, f"role-symmetric game: role {r!r}")


@dataclass(frozen=True, eq=False)
class RoleSymmetricGame:
    """A complete role-symmetric game.

    Parameters
    ----------
    roles : sequence of str
        Role names.
    players : sequence of int
        Number of players of each role (at least 1).
    strategies : sequence of sequence of str
        The strategies of each role (at least 1 each, unique within the role).
    profiles : array of int, shape (P, S)
        Counts per strategy, role by role; each role's counts sum to its player count.
    payoffs : array of float, shape (P, S)
        The payoff of a player of each strategy in each profile; entries with a zero count are
        ignored (set to 0).

    Every profile of the game must be present exactly once (a complete game); a missing profile
    is an error that names it. Payoffs must be finite. Two games are ``==`` when every field is equal by value
    (profiles and payoffs element by element).
    """

    roles: tuple
    players: tuple
    strategies: tuple
    profiles: np.ndarray = field(repr=False)
    payoffs: np.ndarray = field(repr=False)

    def __eq__(self, other) -> bool:
        """Equal by value: roles, players, strategies, and the profiles and payoffs element by element."""
        return same_fields(self, other) if type(other) is type(self) else NotImplemented

    __hash__ = None  # (its arrays have no hash; equal by value)

    def __post_init__(self) -> None:
        self._set_structure()
        S = sum(len(s) for s in self.strategies)
        prof, pay = self._counts_and_payoffs(S)
        self._check_size(prof, S)
        self._set_complete(prof, pay)

    def _set_structure(self) -> None:
        """Roles, player counts and strategy lists, checked (unique non-empty roles, one count >= 1 and one
        list of unique strategies per role) and kept as tuples."""
        _check_name_lists(self.roles, self.strategies)
        roles = tuple(str(r) for r in self.roles)
        if not roles or len(set(roles)) != len(roles):
            raise InputError(f"role-symmetric game: roles must be unique and non-empty, got {list(roles)}")
        check_names(roles, "role-symmetric game", "roles")
        for r, ss in zip(roles, self.strategies):
            check_names([str(s) for s in ss], f"role-symmetric game: role {r!r}")
        if isinstance(self.players, (str, bytes)) or not hasattr(self.players, "__len__"):
            raise InputError(f"role-symmetric game: players must be one count per role, got {self.players!r}")
        strategies = tuple(tuple(str(s) for s in ss) for ss in self.strategies)
        if len(self.players) != len(roles) or len(strategies) != len(roles):
            raise InputError("role-symmetric game: one player count and one strategy list per role are needed")
        # whole numbers >= 1 (2.7 players were 2: another game, without a word)
        players = tuple(check_whole(n, f"role {r!r}: player count", 1) for r, n in zip(roles, self.players))
        for r, ss in zip(roles, strategies):
            if not ss or len(set(ss)) != len(ss):
                raise InputError(f"role {r!r}: strategies must be unique and non-empty, got {list(ss)}")
        object.__setattr__(self, "roles", roles)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "strategies", strategies)

    def _counts_and_payoffs(self, S: int) -> tuple[np.ndarray, np.ndarray]:
        """The profiles (counts, as int64) and payoffs (0 where the count is 0), checked: shape ``(P, S)``,
        whole counts >= 0 that sum to each role's players, finite payoffs."""
        prof = np.asarray(self.profiles)
        check_real(self.payoffs, "role-symmetric game: payoffs")
        check_real(prof, "role-symmetric game: profiles")
        pay = np.asarray(self.payoffs, dtype=float)
        if prof.ndim != 2 or prof.shape[1] != S or pay.shape != prof.shape:
            raise InputError(
                f"role-symmetric game: profiles and payoffs must have shape (P, {S}), got {prof.shape} and {pay.shape}"
            )
        if not np.all(np.isfinite(prof.astype(float))) or np.any(prof != np.round(prof)) or np.any(prof < 0):
            raise InputError("role-symmetric game: counts must be integers >= 0")
        prof = prof.astype(np.int64)
        sums = np.add.reduceat(prof, self.role_starts, axis=1) if len(prof) else np.zeros((0, len(self.roles)))
        bad = np.flatnonzero(np.any(sums != np.array(self.players), axis=1))
        if bad.size:
            raise InputError(
                f"role-symmetric game: profile {bad[0]} ({self.profile_text(prof[bad[0]])}) does not "
                f"have {dict(zip(self.roles, self.players))} players per role"
            )
        pay = np.where(prof > 0, pay, 0.0)
        nonfinite = np.argwhere(~np.isfinite(pay))
        if nonfinite.size:
            p, s = nonfinite[0]
            raise InputError(
                f"role-symmetric game: profile {p} ({self.profile_text(prof[p])}): payoff of "
                f"{self.strategy_names[s]!r} is {pay[p, s]!r}; payoffs must be finite"
            )
        check_range(pay[prof > 0], "role-symmetric game")
        return prof, pay

    def _check_size(self, prof: np.ndarray, S: int) -> None:
        """The complete game's size in closed form first: a file that declares more profiles than it lists is
        refused before they are enumerated (50 players on 60 strategies are 10^30 of them), and a game whose
        tables would not fit in memory."""
        need = num_profiles(self.players, self.num_strategies)
        if need != len(prof) and need > 10**6:  # (a smaller game is enumerated below, which names a missing profile)
            raise InputError(
                f"role-symmetric game: a complete game of {dict(zip(self.roles, self.players))} players on "
                f"{dict(zip(self.roles, self.num_strategies))} strategies has {need:,} profiles; got {len(prof):,}"
            )
        check_fits(3 * need * S * 8, f"role-symmetric game of {need:,} profiles")

    def _set_complete(self, prof: np.ndarray, pay: np.ndarray) -> None:
        """The profiles in canonical order, the complete list with each profile once (a profile listed twice
        or missing is refused, naming it), and their payoffs; both read-only."""
        full = all_profiles(self.players, self.num_strategies)
        index: dict[tuple, int] = {}
        for i, r in enumerate(prof.tolist()):
            first = index.setdefault(tuple(r), i)
            if first != i:
                raise InputError(
                    f"role-symmetric game: profile {self.profile_text(np.array(r))} is listed twice (profiles "
                    f"#{first + 1} and #{i + 1} of the list); list each profile once"
                )
        order = []
        for row in full.tolist():
            i = index.get(tuple(row))
            if i is None:
                raise InputError(
                    f"role-symmetric game: profile {self.profile_text(np.array(row))} is missing; "
                    f"a complete game has {len(full)} profiles, got {len(prof)}"
                )
            order.append(i)
        object.__setattr__(self, "profiles", full)
        object.__setattr__(self, "payoffs", pay[order])
        self.profiles.setflags(write=False)
        self.payoffs.setflags(write=False)

    # ------------------------------------------------------------------ structure
    @property
    def num_strategies(self) -> tuple:
        """The number of strategies of each role."""
        return tuple(len(s) for s in self.strategies)

    @property
    def role_starts(self) -> np.ndarray:
        """Index of each role's first strategy."""
        return self._cached(
            "_starts", lambda: np.concatenate([[0], np.cumsum(self.num_strategies)[:-1]]).astype(np.int64)
        )

    @property
    def role_index(self) -> np.ndarray:
        """The role of each strategy (length ``S``)."""
        return self._cached("_ri", lambda: np.repeat(np.arange(len(self.roles)), self.num_strategies))

    def _cached(self, key, make):
        v = self.__dict__.get(key)
        if v is None:
            v = make()
            v.setflags(write=False)
            self.__dict__[key] = v
        return v

    @property
    def strategy_names(self) -> list[str]:
        """Every strategy's name, role by role (the order of a mixture's entries)."""
        return [s for ss in self.strategies for s in ss]

    @property
    def num_all_strategies(self) -> int:
        """The number of strategies of all roles together (a mixture's length)."""
        return int(sum(self.num_strategies))

    def profile_text(self, row) -> str:
        """A profile (counts) in words, for messages: ``role {strategy: count, ...}; ...``."""
        names = self.strategy_names
        parts = []
        for r, (a, k) in enumerate(zip(self.role_starts, self.num_strategies)):
            inner = ", ".join(f"{names[a + j]}: {int(row[a + j])}" for j in range(k) if row[a + j])
            parts.append(f"{self.roles[r]} {{{inner}}}")
        return "; ".join(parts)

    def payoff_scale(self) -> float:
        """The spread of the game's payoffs (at least :data:`LEAST_SPREAD`): regret tolerances are relative to it.

        A spread above 0 and below :data:`LEAST_SPREAD` (payoffs of 1e-310 beside 0: subnormal floats) is an
        :class:`InputError`: the tolerances, floored there, took every regret for 0, and a non-equilibrium was
        listed where the only equilibrium was left out (hunt 19a-F4)."""
        vals = self.payoffs[self.profiles > 0]
        raw = float(vals.max() - vals.min()) if vals.size else 0.0
        if 0 < raw < LEAST_SPREAD:  # (the spread itself: a constant game of 1e-295 has none, and its floor of 1e-12
            # of the payoffs' size, 1e-307, was refused as "subnormal", hunt 29c-F1)
            raise InputError(
                f"role-symmetric game: its payoffs spread over {raw:.3g}, below {LEAST_SPREAD:g}, the least spread "
                "whose regrets are told from 0 (subnormal floats); scale the payoffs (a positive multiple has the "
                "same equilibria)"
            )
        spread = max(raw, float(np.abs(vals).max()) * 1e-12 if vals.size else 0.0)
        return max(spread, LEAST_SPREAD)

    def uniform_mixture(self) -> np.ndarray:
        """Every role spread evenly over its strategies."""
        return np.concatenate([np.full(k, 1.0 / k) for k in self.num_strategies])

    def pure_mixture(self, choices) -> np.ndarray:
        """The mixture that puts every player of role ``r`` on strategy ``choices[r]`` (index within the role)."""
        x = np.zeros(self.num_all_strategies)
        for a, c in zip(self.role_starts, choices):
            x[a + int(c)] = 1.0
        return x

    def check_mixture(self, mixture) -> np.ndarray:
        """``mixture`` as a float array, checked: one probability per strategy, finite, >= 0 (up to -1e-12,
        clipped), summing to 1 within each role.

        Raises
        ------
        InputError
            Naming what is wrong.
        """
        try:  # (texts such as '0.5' were read as numbers, a generator or a dict was numpy's bare TypeError)
            x = np.asarray(mixture) if hasattr(mixture, "__len__") and not isinstance(mixture, (str, dict)) else None
        except (TypeError, ValueError):
            x = None
        if x is None or x.dtype.kind not in "iuf":
            raise InputError(
                f"mixture: expected {self.num_all_strategies} probabilities (numbers), got {shown_value(mixture)} "
                f"({type(mixture).__name__})"
            )
        x = x.astype(float)
        if x.shape != (self.num_all_strategies,):
            raise InputError(f"mixture: expected {self.num_all_strategies} probabilities, got shape {x.shape}")
        if not np.all(np.isfinite(x)) or np.any(x < -1e-12):
            raise InputError(f"mixture: probabilities must be finite and >= 0, got {x}")
        sums = np.add.reduceat(x, self.role_starts)
        if np.any(np.abs(sums - 1) > 1e-9):
            raise InputError(f"mixture: probabilities of each role must sum to 1, got {sums}")
        return np.clip(x, 0.0, None)

    def normalize(self, x: np.ndarray) -> np.ndarray:
        """``x`` clipped at 0 and scaled to sum to 1 within each role."""
        x = np.clip(np.asarray(x, dtype=float), 0.0, None)
        sums = np.add.reduceat(x, self.role_starts)
        return x / np.repeat(sums, self.num_strategies)

    def mixture_dict(self, x) -> dict:
        """``{role: {strategy: probability}}`` with the strategies of positive probability."""
        names = self.strategy_names
        out = {}
        for r, (a, k) in enumerate(zip(self.role_starts, self.num_strategies)):
            out[self.roles[r]] = {names[a + j]: float(x[a + j]) for j in range(k) if x[a + j] > 0}
        return out

    def mixture_from_dict(self, d: dict) -> np.ndarray:
        """A mixture from ``{role: {strategy: probability}}`` (missing strategies get 0), checked as
        :meth:`check_mixture` does; an unknown role or strategy is an :class:`InputError` naming it.
        """
        x = np.zeros(self.num_all_strategies)
        for role, probs in d.items():
            if role not in self.roles:
                raise InputError(f"mixture: unknown role {shown_name(role)}; roles: {list(self.roles)}")
            r = self.roles.index(role)
            for s, p in probs.items():
                if s not in self.strategies[r]:
                    raise InputError(f"mixture: role {role!r} has no strategy {s!r}")
                x[self.role_starts[r] + self.strategies[r].index(s)] = float(p)
        return self.check_mixture(x)

    # ------------------------------------------------------------------ payoffs of mixtures
    def _dev_terms(self):
        """Sparse terms of the deviation payoffs, one per (profile, strategy with a positive count).

        Sorted by strategy: (strategy starts, profile index, strategy index, log multinomial
        coefficient of the other players, payoff, counts of the other players).
        """
        cache = self.__dict__.get("_terms")
        if cache is not None:
            return cache
        ri = self.role_index
        n = np.array(self.players)
        lg = gammaln(self.profiles + 1.0)
        lg_role = np.add.reduceat(lg, self.role_starts, axis=1)
        base = (gammaln(n + 1.0)[None, :] - lg_role).sum(axis=1)  # log coefficient of the whole profile
        sidx, pidx = np.nonzero(self.profiles.T > 0)  # sorted by strategy
        c = self.profiles[pidx, sidx]
        # the others (profile - e_s): own role has N_r - 1 players, the coefficient changes by c_s / N_r
        logc = base[pidx] + np.log(c) - np.log(n[ri[sidx]])
        others = self.profiles[pidx].astype(float)
        others[np.arange(len(sidx)), sidx] -= 1.0
        first = np.searchsorted(sidx, np.arange(self.num_all_strategies))
        terms = (first, pidx, sidx, logc, self.payoffs[pidx, sidx], others)
        self.__dict__["_terms"] = terms
        return terms

    def _dense(self):
        """(float counts, K) with ``K[p, s]`` = coefficient of the others' profile times the payoff."""
        d = self.__dict__.get("_dense_cache")
        if d is None:
            first, pidx, sidx, logc, pay, others = self._dev_terms()
            K = np.zeros(self.profiles.shape)
            K[pidx, sidx] = np.exp(np.minimum(logc, 700.0)) * pay
            d = (self.profiles.astype(float), K, bool(logc.max() < 700))
            self.__dict__["_dense_cache"] = d
        return d

    def _uses(self) -> np.ndarray:
        """``profiles > 0`` (cached): which strategies each profile uses."""
        return self._cached("_uses_cache", lambda: self.profiles > 0)

    def deviation_payoffs(self, mixture, jacobian: bool = False):
        """Expected payoff of one player deviating to each strategy, the others drawn from ``mixture``.

        Returns an array of length ``S``; with ``jacobian=True`` also its derivative with respect to
        the mixture (``S x S``, the mixture's entries treated as free variables).

        Where every probability is positive the sum is dense: ``x^(c - e_s) = x^c / x_s``, so
        ``dev = (X @ K) / x`` with ``X_p = x^c``. A probability below 1e-100 switches to a sparse
        sum in logs, exact at the faces of the simplex (a deviator to an unused strategy).
        """
        x = np.asarray(mixture, dtype=float)
        small = x < 1e-100
        C, K, dense_ok = self._dense()
        if dense_ok and not small.any() and (not jacobian or x.min() > 1e-4):
            # (the dense Jacobian subtracts two sums of size ~dev/x_s: kept away from small x)
            X = np.exp(C @ np.log(x))
            XK = X @ K
            dev = XK / x
            if not jacobian:
                return dev
            # d dev_s / d x_t = (sum_p K_ps X_p c_pt - [s = t] (X K)_s) / (x_s x_t)
            M = (K * X[:, None]).T @ C
            M[np.diag_indices_from(M)] -= XK
            return dev, M / np.outer(x, x)
        first, pidx, sidx, logc, pay, others = self._dev_terms()
        logx = np.log(np.maximum(x, _TINY))
        logp = logc + (C @ logx)[pidx] - logx[sidx]
        w = fast_exp(logp) * pay
        zero = x <= 0
        if zero.any():  # a profile the others cannot play weighs exactly 0 (not tiny^k: hunt 20b-W14, a pure
            # equilibrium of an integer game read regret 1.56e-307 and a payoff of 2.2e-308 for 0)
            w = np.where((others[:, zero] > 0).any(axis=1), 0.0, w)
        dev = np.add.reduceat(w, first)
        if not jacobian:
            return dev
        # d/dx_t of x^o = o_t x^o / x_t; where x_t is (near) 0 only o_t = 1 terms survive, and they
        # are taken in logs (dropping the one factor x_t) so that the derivative there is exact
        jac = np.add.reduceat(w[:, None] * others, first, axis=0) / np.where(small, 1.0, x)[None, :]
        for t in np.flatnonzero(small):
            sel = others[:, t] == 1
            jac[:, t] = np.bincount(sidx[sel], weights=fast_exp(logp[sel] - logx[t]) * pay[sel], minlength=len(x))
        return dev, jac

    def expected_payoffs(self, mixture) -> np.ndarray:
        """Each role's expected payoff when every player draws from ``mixture``."""
        x = np.asarray(mixture, dtype=float)
        return np.add.reduceat(x * self.deviation_payoffs(x), self.role_starts)

    def gains(self, mixture) -> np.ndarray:
        """Each pure strategy's gain over its role's expected payoff at ``mixture``."""
        x = np.asarray(mixture, dtype=float)
        dev = self.deviation_payoffs(x)
        exp_ = np.add.reduceat(x * dev, self.role_starts)
        return dev - np.repeat(exp_, self.num_strategies)

    def regret(self, mixture) -> float:
        """The largest gain of a unilateral deviation to a pure strategy, over every role."""
        return float(max(0.0, self.gains(mixture).max()))

    def profile_payoffs(self, row) -> np.ndarray:
        """The payoffs of one profile (given as counts)."""
        idx = self.profile_index(row)
        return self.payoffs[idx]

    def profile_index(self, row) -> int:
        """The row of ``profiles`` equal to ``row`` (counts); an :class:`InputError` names a profile not in the game."""
        row = np.asarray(row, dtype=np.int64)
        hit = np.flatnonzero((self.profiles == row[None, :]).all(axis=1))
        if not hit.size:
            raise InputError(f"no profile {self.profile_text(row)} in the game")
        return int(hit[0])

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_function(cls, roles, players, strategies, payoff) -> "RoleSymmetricGame":
        """A complete game whose payoffs are ``payoff(profile_counts) -> array of S payoffs``."""
        _check_name_lists(roles, strategies)
        nstrat = [len(s) for s in strategies]
        need = num_profiles(players, nstrat)  # (the profiles, then a Python row of payoffs per profile)
        check_fits(need * (2 * PYTHON_ROW_BYTES + 24 * sum(nstrat)), f"from_function: a game of {need:,} profiles")
        prof = all_profiles(players, nstrat)
        rows = []
        for p in prof:
            value = payoff(p)
            try:
                row = np.asarray(value, dtype=float)
            except (TypeError, ValueError):  # ("x": numpy's "could not convert string to float")
                raise InputError(
                    f"from_function: payoff({p.tolist()}) returned {value!r:.120}; expected one number per strategy"
                ) from None
            if row.shape != (prof.shape[1],):  # (a reshape of the whole stack failed later, naming no profile)
                raise InputError(
                    f"from_function: payoff({p.tolist()}) returned shape {row.shape}; expected one payoff per "
                    f"strategy, shape ({prof.shape[1]},)"
                )
            rows.append(row)
        return cls(roles, players, strategies, prof, np.array(rows).reshape(prof.shape))

    @classmethod
    def random(cls, players, num_strategies, rng: np.random.Generator, roles=None) -> "RoleSymmetricGame":
        """Uniform payoffs in [0, 1) for every (profile, strategy): a test bed."""
        roles = roles or [f"r{i}" for i in range(len(players))]
        strategies = [[f"s{j}" for j in range(k)] for k in num_strategies]
        prof = all_profiles(players, num_strategies)
        return cls(roles, players, strategies, prof, rng.random(prof.shape))

    def restrict(self, keep) -> "RoleSymmetricGame":
        """The subgame on the strategies where ``keep`` is true (at least one per role).

        A mixture that puts no weight outside ``keep`` has the same deviation payoffs for the kept
        strategies in the subgame as in the game: profiles that use a dropped strategy have
        probability zero.
        """
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.num_all_strategies,):
            raise InputError(f"restrict: expected {self.num_all_strategies} flags, got shape {keep.shape}")
        rows = ~(self.profiles[:, ~keep] > 0).any(axis=1)
        names = self.strategy_names
        strategies = []
        for a, k in zip(self.role_starts, self.num_strategies):
            strategies.append([names[a + j] for j in range(k) if keep[a + j]])
        if any(not ss for ss in strategies):
            raise InputError("restrict: every role needs at least one strategy")
        # a complete game restricted stays complete and valid: skip the checks (a hot path of the solvers)
        sub = object.__new__(RoleSymmetricGame)
        for name, value in (
            ("roles", self.roles),
            ("players", self.players),
            ("strategies", tuple(tuple(ss) for ss in strategies)),
            ("profiles", self.profiles[rows][:, keep]),
            ("payoffs", self.payoffs[rows][:, keep]),
        ):
            object.__setattr__(sub, name, value)
        return sub

    def to_bimatrix(self):
        """The same game as a bimatrix ``Game`` when it has two roles of one player each."""
        if len(self.roles) != 2 or self.players != (1, 1):
            raise InputError("to_bimatrix: needs two roles of one player each")
        m, n = self.num_strategies
        A = np.zeros((m, n))
        B = np.zeros((m, n))
        for row, pay in zip(self.profiles, self.payoffs):
            i, j = int(np.argmax(row[:m])), int(np.argmax(row[m:]))
            A[i, j], B[i, j] = pay[i], pay[m + j]
        return Game(A, B, list(self.strategies[0]), list(self.strategies[1]), players=tuple(self.roles))


def as_role_symmetric(game) -> RoleSymmetricGame:
    """A role-symmetric game as it is; a bimatrix game (anything with payoff matrices ``A`` and ``B``, and where it
    has them ``rows``, ``cols`` and ``players``) as a role-symmetric game of two roles of one player each (the
    inverse of :meth:`RoleSymmetricGame.to_bimatrix`).

    Raises
    ------
    InputError
        A game of another kind, or matrices that are not of one shape.
    """
    if isinstance(game, RoleSymmetricGame):
        return game
    A, B = getattr(game, "A", None), getattr(game, "B", None)
    if A is None or B is None:
        raise InputError(f"expected a bimatrix or role-symmetric game, got {type(game).__name__}")
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    if A.ndim != 2 or A.shape != B.shape or A.size == 0:
        raise InputError(f"payoff matrices must be non-empty and of one shape, got {A.shape} and {B.shape}")
    m, n = A.shape
    # its m n profiles, each of m + n counts and payoffs, sized before they are made (a 10,000 x 10,000 float32
    # game's conversion reached 2 GB under a 1 GB limit before alpha-rank's own check: hunt 19b-F2)
    # (64 bytes a cell: its counts and payoffs, and the profile enumeration's and the structure's copies; 16 was a
    # quarter of what a 300 x 300 game's conversion took, 3.4 GB: hunt 22a-F5)
    check_fits(m * n * (m + n) * 64, f"a {m:,} x {n:,} game as a role-symmetric game ({m * n:,} profiles)")
    rows = list(getattr(game, "rows", None) or [f"r{i}" for i in range(m)])
    cols = list(getattr(game, "cols", None) or [f"c{j}" for j in range(n)])
    players = tuple(getattr(game, "players", ("row", "column")))
    prof = all_profiles((1, 1), (m, n))
    i, j = np.argmax(prof[:, :m], axis=1), np.argmax(prof[:, m:], axis=1)
    pay = np.zeros(prof.shape)
    pay[np.arange(len(prof)), i] = A[i, j]
    pay[np.arange(len(prof)), m + j] = B[i, j]
    return RoleSymmetricGame(players, (1, 1), (tuple(rows), tuple(cols)), prof, pay)
