"""The bootstrap robustness of equilibria against a plain reference: one resample and one equilibrium at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.games import Game, solve
from gamemarket.games.equilibria import regret, tolerance
from gamemarket.games.robustness import _support_equilibrium, bootstrap


def _reference(game, equilibria, resamples, seed, level=0.95):
    R = game.A_reps.shape[2]
    idx = np.random.default_rng(seed).integers(0, R, size=(resamples, R))
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    out = []
    for e in equilibria:
        S, T = e.supports()
        rp, rc, stable = [], [], 0
        for ix in idx:
            A, B = game.A_reps[:, :, ix].mean(axis=2), game.B_reps[:, :, ix].mean(axis=2)
            a, b = regret(A, B, e.x, e.y)
            rp.append(a)
            rc.append(b)
            stable += _support_equilibrium(A, B, S, T, tolerance(A, B))
        out.append(
            (
                (e.regret[0], float(np.quantile(rp, lo_q)), float(np.quantile(rp, hi_q))),
                (e.regret[1], float(np.quantile(rc, lo_q)), float(np.quantile(rc, hi_q))),
                stable / resamples,
            )
        )
    return out


@settings(max_examples=20, deadline=None)
@given(m=st.integers(2, 4), n=st.integers(2, 4), reps=st.integers(2, 12), seed=st.integers(0, 2**31))
def test_bootstrap_equals_the_plain_reference(m, n, reps, seed):
    rng = np.random.default_rng(seed)
    Ar, Br = rng.normal(size=(m, n, reps)), rng.normal(size=(m, n, reps))
    game = Game(Ar.mean(axis=2), Br.mean(axis=2), A_reps=Ar, B_reps=Br)
    eqs = solve(game, methods=("pure", "polytope")).equilibria
    got = bootstrap(game, eqs, resamples=200, seed=seed % 7)
    want = _reference(game, eqs, 200, seed % 7)
    assert [(r.regret_provider, r.regret_consumer, r.stable_share) for r in got] == want


def test_no_replications_no_bootstrap():
    game = Game([[1, 0], [0, 1]], [[1, 0], [0, 1]])
    assert bootstrap(game, solve(game).equilibria) == [None] * len(solve(game).equilibria)


@settings(max_examples=30, deadline=None)
@given(exponent=st.integers(-12, 12), offset=st.sampled_from([0.0, 5.0, -1e3]), seed=st.integers(0, 2**31))
def test_a_mixed_equilibriums_stability_is_the_same_at_every_payoff_scale(exponent, offset, seed):
    # hunt 39c-F1's sibling: the supports' equilibrium was solved in the game's units and held to a residual of 1e-9,
    # so that with provider payoffs near 1e10 (a study's) a mixed equilibrium was never stable, and near 1e-10 its
    # shares were noise
    rng = np.random.default_rng(seed)
    base = np.array([[3.0, -1.0], [-1.0, 1.0]]), -np.array([[1.0, -1.0], [-2.0, 1.0]])
    Ar = base[0][:, :, None] + rng.normal(0, 0.05, (2, 2, 8))
    Br = base[1][:, :, None] + rng.normal(0, 0.05, (2, 2, 8))
    shares = []
    for scale, shift in ((1.0, 0.0), (10.0**exponent, offset * 10.0**exponent)):
        A, B = Ar * scale + shift, Br * scale + shift
        game = Game(A.mean(axis=2), B.mean(axis=2), A_reps=A, B_reps=B)
        (e,) = [e for e in solve(game, methods=("polytope",)).equilibria if not e.pure]
        shares.append(bootstrap(game, [e], resamples=100, seed=seed % 5)[0].stable_share)
        assert _support_equilibrium(game.A, game.B, *e.supports(), tolerance(game.A, game.B))
    assert shares[1] == shares[0] > 0.5
