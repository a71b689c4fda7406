"""Duplicate strategies in a role-symmetric game: two strategies that are the same to every player (two shading
rules that report the same bids on a workload) make a continuum of equilibria, which the searches sampled as
hundreds of "equilibria" (a fuzzed population study listed 833, and its report's figure took minutes). The search
runs without the duplicate and says so; each equilibrium is listed once, verified on the whole game."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.games.rsg_equilibria import DUPLICATES_NOTE, duplicate_strategies, equilibria
from gamemarket.games.rsgame import RoleSymmetricGame


def _with_duplicate(game: RoleSymmetricGame, s: int) -> RoleSymmetricGame:
    """``game`` with a copy of strategy ``s`` (of the first role) added after the role's strategies: every payoff
    depends on the count of ``s`` and its copy together."""
    k = game.num_strategies[0]
    strategies = [list(game.strategies[0]) + [f"{game.strategies[0][s]}-copy"], *map(list, game.strategies[1:])]
    index = {tuple(row): i for i, row in enumerate(game.profiles.tolist())}

    def payoff(counts):
        c = np.asarray(counts)
        base = np.delete(c, k)
        base[s] += c[k]
        pay = game.payoffs[index[tuple(base.tolist())]]
        return np.insert(pay, k, pay[s])

    return RoleSymmetricGame.from_function(list(game.roles), list(game.players), strategies, payoff)


def test_a_duplicate_is_found_and_a_game_without_one_has_none():
    rng = np.random.default_rng(3)
    g = RoleSymmetricGame.random([4], [3], rng)
    assert duplicate_strategies(g, 1e-9) == []
    d = _with_duplicate(g, 1)
    assert duplicate_strategies(d, 1e-9) == [(1, 3)]
    # a copy that differs by more than the tolerance in one profile is no duplicate
    pay = d.payoffs.copy()
    i = int(np.flatnonzero(d.profiles[:, 3] > 0)[0])
    pay[i, 3] += 1e-3
    near = RoleSymmetricGame(d.roles, d.players, d.strategies, d.profiles, pay)
    assert duplicate_strategies(near, 1e-9) == [] and duplicate_strategies(near, 1e-2) == [(1, 3)]


def test_a_continuum_of_equilibria_is_listed_once_with_a_note():
    # two strategies that are the same to everyone: every split between them is an equilibrium
    g = RoleSymmetricGame.from_function(
        ["all"], [6], [["a", "b", "c"]], lambda n: np.array([2 - 0.3 * n[2], 2 - 0.3 * n[2], 1.0 + 0.1 * (n[0] + n[1])])
    )
    sol = equilibria(g)
    assert len(sol.equilibria) < 4 and all(e.mixture[1] == 0 for e in sol.equilibria)
    assert any(n.startswith(DUPLICATES_NOTE) and "b plays as a" in n for n in sol.notes)
    for e in sol.equilibria:  # the note's claim: every split of a's share with b is an equilibrium too
        for share in (0.0, 0.3, 1.0):
            x = np.array([e.mixture[0] * share, e.mixture[0] * (1 - share), e.mixture[2]])
            assert g.regret(x) <= sol.tolerance


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), k=st.integers(2, 3), s=st.integers(0, 2))
def test_the_equilibria_of_a_game_with_a_duplicate_are_those_of_the_game_without(seed, players, k, s):
    s = min(s, k - 1)
    g = RoleSymmetricGame.random([players], [k], np.random.default_rng(seed))
    d = _with_duplicate(g, s)
    plain, dup = equilibria(g), equilibria(d)
    # each one verified on the whole game, the copy's share 0, the same mixtures as the game without the copy
    for e in dup.equilibria:
        assert e.mixture[k] == 0 and d.regret(e.mixture) <= dup.tolerance
    got = np.array(sorted(tuple(e.mixture[:k]) for e in dup.equilibria))
    want = np.array(sorted(tuple(e.mixture) for e in plain.equilibria))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-6)
