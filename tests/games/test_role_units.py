"""Each role of a role-symmetric game in its own units (hunt 40c-F1, F2): a Nash equilibrium does not change where
one role's payoffs are scaled by a positive factor or shifted, and neither may the answer. A tolerance relative to
the whole game's spread merged a small role's strategies as duplicates and listed a profile of regret 100 % of its
spread; the QRE shifted by the whole game's least lost every digit of the small role's payoffs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games import qre as qre_module
from gamemarket.games.rsg_equilibria import equilibria, in_role_units, role_units
from gamemarket.games.rsgame import RoleSymmetricGame


def _game(seed: int, scale_b: float = 1.0, shift_b: float = 0.0, scale_a: float = 1.0) -> RoleSymmetricGame:
    """Two roles (two players of x, y; three of u, v, w), random payoffs, role b's scaled and shifted."""
    rng = np.random.default_rng(seed)

    def comps(n, k):
        return [c for c in itertools.product(range(n + 1), repeat=k) if sum(c) == n]

    profiles, payoffs = [], []
    for ca in comps(2, 2):
        for cb in comps(3, 3):
            prof = np.array(ca + cb)
            pay = rng.normal(size=5)
            pay[:2] *= scale_a
            pay[2:] = pay[2:] * scale_b + shift_b
            profiles.append(prof)
            payoffs.append(np.where(prof > 0, pay, 0.0))
    return RoleSymmetricGame(["a", "b"], [2, 3], [["x", "y"], ["u", "v", "w"]], np.array(profiles), np.array(payoffs))


def _mixtures(sol) -> list:
    return sorted(tuple(np.round(e.mixture, 6)) for e in sol.equilibria)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(
    "scale_a, scale_b, shift_b", [(1e12, 1e-12, 0.0), (1.0, 1e-9, 5.0), (1.0, 1e9, -1e12), (1e-6, 1.0, 0.0)]
)
def test_the_equilibria_are_the_same_whatever_each_roles_units(seed, scale_a, scale_b, shift_b):
    base = equilibria(_game(seed), time_limit=None)
    scaled = equilibria(_game(seed, scale_b, shift_b, scale_a), time_limit=None)
    got, want = _mixtures(scaled), _mixtures(base)
    # (to 1e-5: a role paid 5 + 1e-9 u holds its payoffs to 2e-7 of their spread, no better)
    assert want and len(got) == len(want) and np.allclose(got, want, atol=1e-5, rtol=0)
    for e in scaled.equilibria:  # each verified in the game's units: each role's regret against its own spread
        game = scaled.game
        gains = game.gains(e.mixture)
        for r, (a, k) in enumerate(zip(game.role_starts, game.num_strategies)):
            low, spread = role_units(game)[r]
            level = max(abs(low), abs(low + spread))  # (a gain computed in the game's units: rounding of its level)
            assert max(0.0, gains[a : a + k].max()) <= 1e-8 * spread + 64 * np.finfo(float).eps * level
        assert e.regret == game.regret(e.mixture)
        assert np.allclose(e.payoffs, game.expected_payoffs(e.mixture), rtol=1e-9, atol=0)


def test_a_game_already_in_its_roles_units_is_solved_as_it_is():
    game = _game(3, 1e6)
    units = role_units(game)
    again = in_role_units(game, units)
    assert role_units(again) is None  # (each role's least 0 and spread 1: nothing to do)
    assert (
        role_units(_game(3).__class__(["r"], [2], [["a", "b"]], [[2, 0], [1, 1], [0, 2]], [[1.0, 0], [2, 3], [0, 4]]))
        is None
    )


def test_a_role_of_subnormal_spread_is_refused_named():
    with pytest.raises(InputError, match="role 'b''s payoffs spread over .* below 1e-300"):
        role_units(_game(4, 1e-310))


@pytest.mark.parametrize("scale_b", [1e-12, 1e9])
def test_the_qre_limit_is_the_same_whatever_each_roles_units(scale_b):
    base = qre_module.logit_branch(_game(5))
    scaled = qre_module.logit_branch(_game(5, scale_b, 0.0, 1e12 if scale_b < 1 else 1.0))
    assert np.allclose(base.limit, scaled.limit, atol=1e-6) and scaled.polished and base.polished
