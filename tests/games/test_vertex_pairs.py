"""The small games' path (``vertex_pairs``: every completely labelled vertex pair, compiled) against the general
search (qhull's vertices, then each vertex's responses and degenerate faces): the same equilibria, methods,
degeneracy flag and completeness from ``solve``, on random games and on degenerate ones (few distinct payoffs)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemarket.games import vertex_pairs
from gamemarket.games.bimatrix import Game
from gamemarket.games.equilibria import solve


def _answer(sol):
    return (
        sorted((tuple(np.round(e.x, 7)), tuple(np.round(e.y, 7)), tuple(sorted(e.methods))) for e in sol.equilibria),
        sol.degenerate,
        sol.complete,
        sol.dominated_rows,
        sol.dominated_cols,
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    m=st.integers(1, 6),
    n=st.integers(1, 6),
    kind=st.sampled_from(["random", "few values", "ties and scale"]),
    eliminate=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_small_games_path_gives_the_general_searchs_answer(monkeypatch, m, n, kind, eliminate, seed):
    rng = np.random.default_rng(seed)
    if kind == "random":
        A, B = rng.standard_normal((m, n)), rng.standard_normal((m, n))
    elif kind == "few values":
        A, B = rng.integers(0, 3, (m, n)).astype(float), rng.integers(0, 3, (m, n)).astype(float)
    else:
        A, B = rng.integers(-1, 2, (m, n)) * 1e9 + 3e11, rng.integers(0, 2, (m, n)) * 1e-3
    game = Game(A, B)
    fast = solve(game, eliminate=eliminate)
    with monkeypatch.context() as mp:
        mp.setattr(vertex_pairs, "fits", lambda m, n: False)
        general = solve(game, eliminate=eliminate)
    assert _answer(fast) == _answer(general)


def test_which_games_take_the_small_path():
    assert vertex_pairs.fits(6, 6) and vertex_pairs.fits(7, 7) and vertex_pairs.fits(2, 60)
    assert not vertex_pairs.fits(8, 8) and not vertex_pairs.fits(3, 40)


@pytest.mark.parametrize("m,n", [(2, 2), (3, 3), (4, 6), (6, 6)])
def test_every_vertex_found_is_a_vertex_and_labelled_as_its_tight_constraints(m, n):
    rng = np.random.default_rng(m * 10 + n)
    C = rng.random((n, m)) + 1.0
    V = vertex_pairs._vertices(C)
    assert len(V) and (V >= 0).all() and (C @ V.T <= 1 + 1e-9).all()
    L = vertex_pairs._labels(V, C, True)
    for v, mask in zip(V, L):
        tight = [j for j in range(m) if v[j] <= 1e-12] + [m + i for i in range(n) if abs(1 - C[i] @ v) <= 1e-9]
        assert sorted(tight) == [b for b in range(m + n) if mask >> b & 1]
        assert len(tight) >= m  # a vertex: at least d constraints tight
