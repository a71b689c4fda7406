"""The exact pass for games of mixed scales (``gamemarket.games.exact``): every extreme equilibrium in rational
arithmetic, where the float methods take payoff differences below 1e-9 of the spread for ties (hunt 27c-F1, F2)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.cli import main
from gamemarket.games import Game, exact, solve
from gamemarket.games import equilibria as eq
from gamemarket.games.budget import SearchClock
from gamemarket.games.io import to_csv_table, to_nfg
from gamemarket.games.vertex_pairs import vertex_pair_equilibria

RPS = np.array([[0.0, -1, 1], [1, 0, -1], [-1, 1, 0]])


def rounded(profiles):
    return sorted((tuple(np.round(x, 9)), tuple(np.round(y, 9))) for x, y in profiles)


def regrets(A, B, x, y):
    Ay, xB = A @ y, x @ B
    return Ay.max() - x @ Ay, xB.max() - xB @ y


@settings(max_examples=80, deadline=None)
@given(
    m=st.integers(1, 4),
    n=st.integers(1, 4),
    seed=st.integers(0, 10**6),
    tied=st.booleans(),
)
def test_the_exact_pass_agrees_with_the_compiled_vertex_pairs_on_ordinary_games(m, n, seed, tied):
    # the plain reference: on payoffs floats resolve (random, or small integers: degenerate games among them), the
    # same extreme equilibria as the float vertex-pair method, and every one an equilibrium by its regret
    rng = np.random.default_rng(seed)
    A, B = (rng.integers(0, 3, (m, n)) if tied else rng.normal(size=(m, n)) for _ in range(2))
    A, B = A.astype(float), B.astype(float)
    mine = exact.exact_equilibria(A, B, SearchClock(None))
    Ap, Bp = A - A.min() + 1, B - B.min() + 1
    theirs, degenerate = vertex_pair_equilibria(Ap, Bp) if min(m, n) > 1 else (None, None)
    for x, y in mine.profiles:
        assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1) and min(x.min(), y.min()) >= 0
        assert max(regrets(A, B, x, y)) <= 1e-12
    assert mine.profiles, "every finite game has an equilibrium"
    if theirs is not None:
        assert rounded(mine.profiles) == rounded(theirs)
        if not tied:
            assert mine.degenerate == degenerate


def test_a_mixed_equilibrium_of_shares_1e_12_is_found():
    # hunt 27c-F1 (bos6): 1e6 beside 1e-6; the mixed equilibrium x = (1 - 1e-12, 1e-12) was lost and the game called
    # degenerate, "all extreme equilibria listed"
    A, B = np.array([[1e6, 0], [0, 1e-6]]), np.array([[1e-6, 0], [0, 1e6]])
    s = solve(Game(A, B, None, None))
    assert len(s.equilibria) == 3 and not s.degenerate and s.complete
    mixed = next(e for e in s.equilibria if not e.pure)
    assert mixed.x[1] == pytest.approx(1e-12, rel=1e-9) and mixed.y[0] == pytest.approx(1e-12, rel=1e-9)
    assert any(n.startswith("exact: the payoffs differ by as little as 1e-12") for n in s.notes)


@pytest.mark.parametrize("c", [1e10, 1e12])
def test_a_block_beside_a_huge_cell_keeps_all_three(c):
    # hunt 27c-F1 (block10, block12): the third equilibrium, of shares 2/(c + 2) on the huge cell, was lost
    A = np.array([[c, 0, 0], [0, 3, 1], [0, 1, 3]])
    B = np.array([[c, 0, 0], [0, 1, 3], [0, 3, 1]])
    s = solve(Game(A, B, None, None))
    assert len(s.equilibria) == 3 and not s.degenerate
    assert any(e.x[0] == pytest.approx(2 / (c + 2), rel=1e-9) for e in s.equilibria)


def test_profiles_that_are_equilibria_only_to_rounding_are_discarded():
    # hunt 27c-F2: a 1e9 cell beside rock-paper-scissors gave 5 "equilibria" (3 exist): two put 2e-9 on a strategy
    # strictly worse in the block that is played, their regret 6e-9 small only against the 1e9
    A, B = np.zeros((4, 4)), np.zeros((4, 4))
    A[0, 0] = B[0, 0] = 1e9
    A[1:, 1:], B[1:, 1:] = RPS + 2, 4 - (RPS + 2)
    s = solve(Game(A, B, None, None))
    assert len(s.equilibria) == 3 and not s.degenerate
    for e in s.equilibria:  # each support's strategies all best responses, exactly as the rationals say
        Ay, xB = A @ e.y, e.x @ B
        assert set(np.flatnonzero(e.x > 0)) <= set(np.flatnonzero(Ay >= Ay.max() - 1e-6))
        assert set(np.flatnonzero(e.y > 0)) <= set(np.flatnonzero(xB >= xB.max() - 1e-6))
    assert any(
        "polytope: returned 2 profiles, each not an equilibrium in exact arithmetic (discarded" in n for n in s.notes
    )
    # and the float methods' hundreds of discarded vertices are said once per method, counted
    assert sum(n.startswith("polytope: returned a profile") for n in s.notes) <= eq.DISCARDS_SAID


def test_the_same_game_from_a_csv_and_an_nfg_file(tmp_path, capsys):
    # hunt 27c-F1's siblings: the same game written as a CSV payoff table and as a Gambit .nfg is solved the same way
    A, B = np.array([[1e6, 0], [0, 1e-6]]), np.array([[1e-6, 0], [0, 1e6]])
    game = Game(A, B, None, None)
    np.savez(tmp_path / "g.npz", A=A, B=B)
    (tmp_path / "g.nfg").write_text(to_nfg(game))
    to_csv_table(game).to_csv(tmp_path / "g.csv", index=False)
    for name in ("g.npz", "g.nfg", "g.csv"):
        assert main(["game", "solve", str(tmp_path / name), "--format", "json"]) == 0
        assert capsys.readouterr().out.count('"found_by"') == 3, name


def test_a_larger_game_of_mixed_scales_is_told_what_may_be_amiss():
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(9, 9)), rng.normal(size=(9, 9))
    A[0, 0] = 1e12
    s = solve(Game(A, B, None, None), eliminate=False)
    assert any(n.startswith("mixed scales: the payoffs differ by as little as") for n in s.notes)


def test_an_exact_pass_stopped_at_the_limit_says_so(monkeypatch):
    monkeypatch.setattr(exact, "exact_equilibria", lambda A, B, clock: None)
    A, B = np.array([[1e6, 0], [0, 1e-6]]), np.array([[1e-6, 0], [0, 1e6]])
    s = solve(Game(A, B, None, None), time_limit=5)
    assert not s.complete
    assert any(n.startswith("incomplete: exact: the payoffs differ by as little as 1e-12") for n in s.notes)


def test_the_exact_pass_runs_on_what_polytope_left_of_the_time_limit(monkeypatch):
    # review of the exact pass: it started a clock of its own after polytope's, so that a solve could take up to twice
    # its time limit; it now goes on from polytope's (a polytope search of 1.5 s leaves 0.5 s of a 2 s limit)
    import dataclasses
    import time

    seen = []
    polytope = eq.EQUILIBRIUM_METHODS.get("polytope")

    def slow_polytope(*args):
        time.sleep(1.5)
        return polytope.find(*args)

    def stopped(A, B, clock):
        seen.append((clock.elapsed(), clock.remaining()))
        return None

    monkeypatch.setitem(eq.EQUILIBRIUM_METHODS._items, "polytope", dataclasses.replace(polytope, find=slow_polytope))
    monkeypatch.setattr(exact, "exact_equilibria", stopped)
    A, B = np.array([[1e6, 0], [0, 1e-6]]), np.array([[1e-6, 0], [0, 1e6]])
    s = solve(Game(A, B, None, None), time_limit=2, methods=["polytope"])
    ((elapsed, left),) = seen
    assert elapsed >= 1.5 and left <= 0.5
    said = "stopped at the time limit of 2 s (polytope's search and this enumeration together)"
    assert any(said in n for n in s.notes)


def test_ordinary_games_never_take_the_exact_pass(monkeypatch):
    monkeypatch.setattr(exact, "exact_equilibria", lambda *a: pytest.fail("not for payoffs floats resolve"))
    rng = np.random.default_rng(0)
    s = solve(Game(rng.normal(size=(4, 4)), rng.normal(size=(4, 4)), None, None))
    assert s.equilibria and not any(n.startswith(("exact:", "mixed scales:")) for n in s.notes)
    assert exact.finest_scale(np.array([[1e6, 0], [0, 1e-6]]), np.ones((2, 2))) == pytest.approx(1e-12)
