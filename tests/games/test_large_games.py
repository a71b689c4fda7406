"""Games too large to enumerate within the time limit: ``solve`` answers with one equilibrium or a few (Gambit's
GNM where pygambit is installed, else nashpy's Lemke-Howson), each verified by its regret, says so in a note
beginning "partial:", and ``exhaustive`` is False; ``complete=True`` (``game solve --complete``) asks for the
enumeration anyway. Games small enough to enumerate are unchanged."""

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.games import Game, equilibria, gambit
from gamemarket.games.equilibria import enumeration_seconds, large_game_method, regret, solve
from gamemarket.games.io import to_nfg


def _random(n: int, seed: int) -> Game:
    rng = np.random.default_rng(seed)
    return Game(rng.random((n, n)), rng.random((n, n)))


def _verified(game: Game, sol) -> None:
    assert sol.equilibria
    for e in sol.equilibria:
        ra, rb = regret(game.A, game.B, e.x, e.y)
        assert ra <= 1e-7 * np.ptp(game.A) and rb <= 1e-7 * np.ptp(game.B)


@pytest.mark.parametrize("with_gambit", [True, False])
def test_a_20x20_game_gets_verified_equilibria_and_a_note_by_default(monkeypatch, with_gambit):
    if with_gambit and not gambit.available():
        pytest.skip(f"pygambit is not installed ({gambit.INSTALL})")
    monkeypatch.setattr(gambit, "available", lambda: with_gambit)
    g = _random(20, seed=1)
    assert enumeration_seconds(20, 20) > equilibria.DEFAULT_TIME_LIMIT
    sol = solve(g)
    _verified(g, sol)
    method = "gnm" if with_gambit else "lemke_howson_first"
    assert large_game_method() == method and not sol.exhaustive and sol.complete
    (note,) = [n for n in sol.notes if n.startswith("partial:")]
    assert f"so {method} (" in note and f"answered: {len(sol.equilibria)} equilibria" in note and "--complete" in note
    assert any(method in e.methods for e in sol.equilibria)


def test_a_game_small_enough_to_enumerate_is_enumerated():
    for n in (5, 9):
        g = _random(n, seed=n)
        sol = solve(g)
        assert sol.exhaustive and not [x for x in sol.notes if x.startswith("partial:")]
        assert all("polytope" in e.methods or "pure" in e.methods for e in sol.equilibria)


def test_complete_asks_for_the_enumeration_under_the_time_limit():
    sol = solve(_random(20, seed=2), time_limit=0.5, complete=True)
    assert not sol.complete and not sol.exhaustive
    assert [n for n in sol.notes if n.startswith("incomplete: polytope")]


def test_gambits_methods_without_pygambit_are_an_error_naming_the_install(monkeypatch):
    monkeypatch.setattr(gambit, "available", lambda: False)
    with pytest.raises(InputError, match=r"'gnm' is pygambit's, which is not installed: pip install"):
        solve(_random(4, seed=3), methods=("gnm",))


@pytest.mark.parametrize("method", ["gnm", "ipa"])
def test_gambits_methods_find_verified_equilibria(method):
    if not gambit.available():
        pytest.skip(f"pygambit is not installed ({gambit.INSTALL})")
    for seed in range(3):
        g = _random(8, seed=seed)
        sol = solve(g, methods=(method,), eliminate=False)
        _verified(g, sol)
        assert all(e.methods == {method} for e in sol.equilibria)


def test_game_solve_says_the_answer_is_partial_and_exits_0(tmp_path, capsys):
    p = tmp_path / "r20.nfg"
    p.write_text(to_nfg(_random(20, seed=4)))
    assert main(["game", "solve", str(p)]) == 0
    out = capsys.readouterr().out
    assert "(not every one: see the note)" in out and "note: partial: the complete enumeration of this 20x20" in out
