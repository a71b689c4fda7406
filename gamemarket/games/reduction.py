"""Deviation-preserving reduction (DPR) of role-symmetric games with many players.

In the reduced game role ``r`` has ``n_r`` players instead of ``N_r``. The payoff of strategy
``s`` (of role ``r``) in a reduced profile ``c`` is its payoff in the full profile where one player
plays ``s``, the other ``n_r - 1`` players of role ``r`` stand for ``(N_r - 1) / (n_r - 1)`` players
each, and the ``n_q`` players of every other role stand for ``N_q / n_q`` each. Deviations in the
reduced game then measure a single player's deviation in the full game, which keeps the
equilibria of games whose payoffs depend smoothly on the population's mix.

The reduction is exact where the scaled counts are integers (``n_r - 1`` divides ``N_r - 1`` and
``n_q`` divides ``N_q``); otherwise the scaled counts are rounded by the largest-remainder rule so
that each role keeps its player count (ties go to the strategy listed first). A role of one full
player keeps one reduced player. In the population
limit (``N`` large, a market with thousands of agents) the full profile is a population mixture:
:func:`population_points` lists the mixtures a reduced game needs.

References
----------
.. [Wiedenbeck2012] B. Wiedenbeck and M. P. Wellman, "Scaling simulation-based game analysis through
   deviation-preserving reduction", AAMAS 2012.
"""

from __future__ import annotations

import numpy as np

from gamemarket.errors import InputError, check_whole
from gamemarket.games.rsgame import RoleSymmetricGame, all_profiles


def _check_counts(full_players, reduced_players) -> tuple[np.ndarray, np.ndarray]:
    N = np.asarray(full_players, dtype=np.int64)
    if isinstance(reduced_players, (str, bytes)) or not hasattr(reduced_players, "__len__"):
        raise InputError(
            f"DPR: reduced players must be one count per role ({len(N)}: a list such as {[2] * len(N)}), got "
            f"{reduced_players!r}"
        )
    n = np.array([check_whole(x, "DPR: a reduced player count", 1) for x in reduced_players], dtype=np.int64)
    if N.shape != n.shape:
        raise InputError(f"DPR: one reduced count per role is needed, got {n.tolist()} for {N.tolist()}")
    for r, (Nr, nr) in enumerate(zip(N, n)):
        if nr < 1 or nr > Nr:
            raise InputError(f"DPR: role {r}: reduced count must be in [1, {Nr}], got {nr}")
        if nr == 1 and Nr > 1:
            raise InputError(f"DPR: role {r}: a role of {Nr} players needs at least 2 reduced players")
    return N, n


def full_profile(reduced, s: int, full_players, reduced_players, role_starts, num_strategies) -> np.ndarray:
    """The full-game profile whose payoff to ``s`` is the reduced profile's payoff to ``s``."""
    N, n = _check_counts(full_players, reduced_players)
    reduced = np.asarray(reduced, dtype=np.int64)
    out = np.zeros_like(reduced)
    for r, (a, k) in enumerate(zip(role_starts, num_strategies)):
        sl = slice(a, a + k)
        own = a <= s < a + k
        if own:
            others = reduced[sl].copy()
            others[s - a] -= 1
            if n[r] == 1:
                scaled = others.astype(float)
            else:
                scaled = others * (N[r] - 1) / (n[r] - 1)
            full = scaled.copy()
            full[s - a] += 1
        else:
            full = reduced[sl] * N[r] / n[r]
        out[sl] = _round_to(full, int(N[r]))
    return out


def _round_to(v: np.ndarray, total: int) -> np.ndarray:
    """Integers that sum to ``total``, each the floor of ``v`` or one more (largest remainder first)."""
    base = np.floor(v + 1e-9).astype(np.int64)
    short = total - int(base.sum())
    if short > 0:
        order = np.argsort(-(v - base), kind="stable")
        base[order[:short]] += 1
    return base


def is_exact(full_players, reduced_players) -> bool:
    """Whether every scaled count of the reduction is an integer (no rounding)."""
    N, n = _check_counts(full_players, reduced_players)
    own = all(nr == 1 or (Nr - 1) % (nr - 1) == 0 for Nr, nr in zip(N, n))
    other = len(N) == 1 or all(Nr % nr == 0 for Nr, nr in zip(N, n))
    return bool(own and other)


def reduce_game(game: RoleSymmetricGame, reduced_players) -> RoleSymmetricGame:
    """The deviation-preserving reduction of a complete game to ``reduced_players`` per role."""
    N, n = _check_counts(game.players, reduced_players)
    prof = all_profiles(n, game.num_strategies)
    pay = np.zeros(prof.shape)
    index = {tuple(r): i for i, r in enumerate(game.profiles.tolist())}
    for i, row in enumerate(prof):
        for s in np.flatnonzero(row):
            fp = full_profile(row, s, N, n, game.role_starts, game.num_strategies)
            pay[i, s] = game.payoffs[index[tuple(fp.tolist())], s]
    return RoleSymmetricGame(game.roles, tuple(int(x) for x in n), game.strategies, prof, pay)


def population_points(reduced_players, num_strategies) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """The population mixtures a reduced game needs, in the limit of many players per role.

    Returns ``(profile, mixture, s)`` for every reduced profile and every strategy ``s`` with a
    positive count: the payoff of ``s`` in ``profile`` is the payoff of one deviator to ``s`` in a
    population whose own role plays ``(c - e_s) / (n_r - 1)`` and whose other roles play
    ``c_q / n_q``. Roles of one reduced player are single players (the mixture is their pure choice).
    """
    n = np.asarray(reduced_players, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(num_strategies)[:-1]]).astype(np.int64)
    out = []
    for row in all_profiles(n, num_strategies):
        for s in np.flatnonzero(row):
            mix = np.zeros(len(row))
            for r, (a, k) in enumerate(zip(starts, num_strategies)):
                c = row[a : a + k].astype(float)
                if a <= s < a + k:
                    c[s - a] -= 1
                    mix[a : a + k] = (c / (n[r] - 1)) if n[r] > 1 else np.eye(k)[s - a]
                else:
                    mix[a : a + k] = c / n[r]
            out.append((row, mix, int(s)))
    return out
