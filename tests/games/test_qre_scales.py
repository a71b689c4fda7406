"""The logit QRE limit and the role-symmetric Nash searches at every scale of the payoffs, and the local regret check
of a pure profile beside payoffs of 1e12 (hunt 31c)."""

import functools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gamemarket.games.bimatrix import Game
from gamemarket.games.qre import logit_branch
from gamemarket.games.rsg_equilibria import DEFAULT_REL_TOL, equilibria, locally_small, support_polish
from gamemarket.games.rsgame import as_role_symmetric

#: small games of a mixed QRE limit (Battle of the Sexes, and a 2 x 2 and a 3 x 3 of random whole payoffs in -5..5)
GAMES = {
    "bos": ([[3, 0], [0, 2]], [[2, 0], [0, 3]]),
    "random2": ([[4, -3], [-4, -2]], [[-1, 3], [-1, -4]]),
    "random3": ([[-2, 1, 3], [3, 5, -3], [4, -5, 1]], [[-2, -3, 2], [-2, 1, -3], [-4, 3, -1]]),
}


def _game(name: str, exponent: int) -> Game:
    A, B = GAMES[name]
    scale = 10.0**exponent
    return Game(np.array(A, dtype=float) * scale, np.array(B, dtype=float) * scale)


@functools.cache
def _at_scale_one(name: str):
    return logit_branch(_game(name, 0))


def test_the_games_have_mixed_verified_limits():
    """The games test what they are meant to: at scale 1 each limit is verified and mixes."""
    for name in GAMES:
        br = _at_scale_one(name)
        assert br.polished, name
        assert ((br.limit > 0) & (br.limit < 1)).any(), name


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), exponent=st.integers(-12, 12))
@example(name="bos", exponent=-9)  # (hunt 31c-F2: 2.2e-7 from (0.6, 0.4), "not verified", from 1e-9 down)
@example(name="bos", exponent=-12)
@example(name="random3", exponent=12)
def test_qre_limit_is_the_same_at_every_scale(name, exponent):
    """Hunt 31c-F2: lambda is in units of each role's spread, so the branch, its limit and the limit's verdict are
    those of scale 1 whatever the payoffs' scale; the polish's absolute tolerances stopped it at its start on payoffs
    of 1e-9 and below."""
    base = _at_scale_one(name)
    br = logit_branch(_game(name, exponent))
    assert np.abs(br.limit - base.limit).max() <= 1e-9
    assert br.polished == base.polished


@pytest.mark.parametrize("jit", [True, False])
@pytest.mark.parametrize("exponent", [-300, -12, -9, 0, 12, 300])
def test_support_polish_reaches_the_equilibrium_at_every_scale(exponent, jit):
    """Hunt 31c-F2: from 2.2e-7 off Battle of the Sexes' mixed equilibrium the polish (compiled and the numpy
    reference) reaches it at every scale, not only at payoffs of about 1 and above."""
    rsg = as_role_symmetric(_game("bos", exponent))
    start = np.array([0.6, 0.4, 0.4, 0.6]) + np.array([-2.2e-7, 2.2e-7, 2.2e-7, -2.2e-7])
    y = support_polish(rsg, start, jit=jit)
    assert y is not None
    assert np.abs(y - [0.6, 0.4, 0.4, 0.6]).max() <= 1e-15


@pytest.mark.parametrize("jit", [True, False])
@pytest.mark.parametrize("exponent", [-300, -12, 12])
def test_support_enumeration_finds_the_mixed_equilibrium_at_every_scale(exponent, jit):
    """Hunt 31c-F2's family: the role-symmetric Nash search (its exact method off) finds Battle of the Sexes' mixed
    equilibrium by support enumeration at every scale, as at scale 1 (at 1e-300 its Newton's method had stopped)."""
    found = {}
    for e in (0, exponent):
        sol = equilibria(as_role_symmetric(_game("bos", e)), exact=False, jit=jit)
        found[e] = [(np.round(q.mixture, 12).tolist(), "support_newton" in q.methods) for q in sol.equilibria]
    assert found[exponent] == found[0]
    assert ([0.6, 0.4, 0.4, 0.6], True) in found[0]


#: hunt 31c-F1's game: each player's payoffs are 1e12 in one cell and 1e-3 in another
MIXED_SCALES = Game(np.array([[1e12, 0.0], [0.0, 1e-3]]), np.array([[1e-3, 0.0], [0.0, 1e12]]))
#: the pure profile (r0, c1): each player gets 0 and 1e-3 by deviating, a regret of 1e-3
R0_C1 = np.array([1.0, 0.0, 0.0, 1.0])


def test_a_pure_profile_of_regret_1e_3_beside_1e12_is_not_locally_small():
    """Hunt 31c-F1: 64 ulps of the 1e12 spread (0.014) were added to each role's slack although no computed share
    multiplies a payoff at a pure profile; the bimatrix path adds them only where the other player mixes."""
    rsg = as_role_symmetric(MIXED_SCALES)
    assert not locally_small(rsg, R0_C1, DEFAULT_REL_TOL)
    assert locally_small(rsg, np.array([1 - 1e-15, 1e-15, 1e-15, 1 - 1e-15]), DEFAULT_REL_TOL)


def test_qre_limit_of_regret_1e_3_is_not_verified():
    """Hunt 31c-F1: the QRE limit (r0, c1) was "a Nash equilibrium, verified" with regrets 0.001, 0.001, a profile the
    Nash solve discards."""
    br = logit_branch(MIXED_SCALES)
    assert not (br.polished and max(br.limit_regret) > 0)


def test_rsg_nash_does_not_list_the_pure_profile():
    """Hunt 31c-F1's family: the role-symmetric Nash search listed (r0, c1), of regret 0.001, where its exact method
    had found the mixed equilibrium of shares 1e-15 and the dust's removal made it that pure profile."""
    sol = equilibria(as_role_symmetric(MIXED_SCALES))
    mixtures = [e.mixture for e in sol.equilibria]
    assert not any(np.array_equal(x, R0_C1) for x in mixtures)
    assert all(e.regret == 0 for e in sol.equilibria)
    assert any(0 < x[1] < 1e-12 and 0 < x[2] < 1e-12 for x in mixtures)  # the exact mixed equilibrium, kept


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), level=st.sampled_from([1.0, 1e6, -1e12]))
def test_a_role_symmetric_games_qre_limit_is_the_same_a_few_ulps_above_any_level(name, level):
    """33c-F2's sibling: the role-symmetric problem divided its payoffs by their spread without shifting them first,
    and payoffs of 1 and 1 + 4 ulps were refused ("HIGH 1000 is beyond the traced branch", an option not given);
    each role's payoffs are now shifted to a least of 0, as the bimatrix problem's, and the limit is scale 1's."""
    A, B = (np.array(M, dtype=float) for M in GAMES[name])
    ulp = np.spacing(abs(level))
    # (whole payoffs -5..5 as as many ulps above the level: exactly held, each difference exact)
    tiny = Game(level + (A - A.min()) * ulp, level + (B - B.min()) * ulp)
    base = logit_branch(as_role_symmetric(_game(name, 0)))
    for game in (as_role_symmetric(tiny), tiny):  # (and the bimatrix path's polish: traced, then "not verified",
        # hunt 34c-W1)
        br = logit_branch(game)
        assert np.abs(br.limit - base.limit).max() <= 1e-9 and br.polished == base.polished, type(game).__name__
