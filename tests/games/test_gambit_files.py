"""Files Gambit wrote (``tests/games/data/gambit/``, pygambit 16.7's ``Game.to_nfg()``: the outcome version, labels
with quotes, floats, rationals; ``provenance.json`` says how each was made and holds its payoffs) are read as Gambit
wrote them, without pygambit; a game ``gamemarket`` cannot take (three players) is refused, named. And every game
a committed report exports has its rescaled form beside it (the form Gambit's solvers handle), whose comment holds
the map back to the game's own payoffs."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games import solve
from gamemarket.games.io import read_nfg, read_npz_game, rescaled

DATA = Path(__file__).resolve().parent / "data" / "gambit"
PROVENANCE = json.loads((DATA / "provenance.json").read_text())
ROOT = Path(__file__).resolve().parents[2]
EXPORTS = sorted(p for p in (ROOT / "reports").glob("*/data/game-*.nfg") if not p.name.endswith(".rescaled.nfg"))


@pytest.mark.parametrize("name", ["prisoners-dilemma.nfg", "study-sized-floats.nfg", "rationals.nfg"])
def test_gambits_own_files_are_read_as_it_wrote_them(name):
    want = PROVENANCE["files"][name]["payoffs"]
    g = read_nfg(DATA / name)
    np.testing.assert_allclose(g.A, want[0], rtol=1e-15)
    np.testing.assert_allclose(g.B, want[1], rtol=1e-15)
    if name == "prisoners-dilemma.nfg":
        assert g.players == ("Row player", 'The "column" player')
        assert g.rows == g.cols == ["cooperate", "defect"]
        (eq,) = solve(g).equilibria
        assert eq.pure and g.rows[int(np.argmax(eq.x))] == "defect"


def test_a_gambit_game_of_three_players_is_refused_named():
    with pytest.raises(InputError, match=r"three-players\.nfg.*3 players"):
        read_nfg(DATA / "three-players.nfg")


def test_the_provenance_names_the_tool_that_wrote_each_file():
    assert PROVENANCE["tool"] == "pygambit" and PROVENANCE["version"]
    assert sorted(PROVENANCE["files"]) == sorted(p.name for p in DATA.glob("*.nfg"))


@pytest.mark.parametrize("path", EXPORTS, ids=[f"{p.parts[-3]}/{p.name}" for p in EXPORTS])
def test_every_export_has_its_rescaled_form_with_the_map_back(path):
    assert EXPORTS
    raw = read_nfg(path)
    small_path = path.with_name(path.name.replace(".nfg", ".rescaled.nfg"))
    small = read_nfg(small_path)
    assert small.rows == raw.rows and small.cols == raw.cols and small.players == raw.players
    assert 0 <= small.A.min() and small.A.max() <= 1 and 0 <= small.B.min() and small.B.max() <= 1
    text = small_path.read_text()
    for who, M, S in ((raw.players[0], raw.A, small.A), (raw.players[1], raw.B, small.B)):
        m = re.search(re.escape(who) + r": p' = \(p - ([-0-9.e]+)\) / \(([-0-9.e]+) - ", text)
        low, high = float(m.group(1)), float(m.group(2))
        np.testing.assert_allclose(low + S * (high - low), M, rtol=1e-12, atol=1e-12 * max(1.0, abs(high - low)))
    same = rescaled(raw)[0]
    assert np.array_equal(same.A, small.A) and np.array_equal(same.B, small.B)  # what the export writes
    ours = {(tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))) for e in solve(raw).equilibria}
    assert ours == {(tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))) for e in solve(small).equilibria}


NASHPY = Path(__file__).resolve().parent / "data" / "nashpy"
NASHPY_PROVENANCE = json.loads((NASHPY / "provenance.json").read_text())


@pytest.mark.parametrize("name", sorted(NASHPY_PROVENANCE["files"]))
def test_nashpys_arrays_are_read_and_solved_to_nashpys_equilibria(name, capsys):
    """A game made with nashpy and saved as its users save one (its payoff matrices, numpy.savez: by name, in turn
    or stacked) is read by ``game solve`` and has the equilibria nashpy's support enumeration found."""
    from gamemarket.cli import main

    g = read_npz_game(NASHPY / name)
    want = {
        (tuple(np.round(x, 6)), tuple(np.round(y, 6)))
        for x, y in NASHPY_PROVENANCE["files"][name]["support_enumeration"]
    }
    assert want and {(tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))) for e in solve(g).equilibria} == want
    assert main(["game", "solve", str(NASHPY / name), "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(want)


@pytest.mark.parametrize(
    "arrays,message",
    [
        ({"A": np.ones((2, 2))}, r"arrays \{'A': \(2, 2\)\}; expected a game's two payoff matrices"),
        ({"A": np.ones((2, 2)), "B": np.ones((2, 3))}, r"payoff matrices of shapes \(2, 2\) and \(2, 3\)"),
        ({"A": np.array([[1.0, np.nan]]), "B": np.ones((1, 2))}, "finite"),
        ({"A": np.array([["a"]]), "B": np.ones((1, 1))}, r"array 'A' has dtype <U1; expected numbers"),
    ],
)
def test_a_bad_npz_game_is_named(tmp_path, arrays, message):
    p = tmp_path / "g.npz"
    np.savez(p, **arrays)
    with pytest.raises(InputError, match=message):
        read_npz_game(p)


@pytest.mark.parametrize(
    "extra",
    [
        {"C": np.ones(3)},
        {"labels": np.array(["a", "b"]), "seed": np.int64(4)},
        {"meta": np.array([{"tool": "x"}], dtype=object)},  # left unread: never unpickled
    ],
    ids=["numbers", "text", "objects"],
)
def test_arrays_beside_an_npz_games_payoffs_are_read_past_with_a_warning(tmp_path, extra):
    """#43 asks readers to ignore what they do not need, with a warning where information is dropped: an ``.npz``
    holding ``A`` and ``B`` and an array of its own (a tool's labels, a seed) was refused. The game is ``A`` and
    ``B``; the warning names the rest, which is left unread (an array of objects is not unpickled)."""
    A, B = np.array([[3.0, 0.0], [5.0, 1.0]]), np.array([[3.0, 5.0], [0.0, 1.0]])
    p = tmp_path / "g.npz"
    np.savez(p, A=A, B=B, **extra)
    with pytest.warns(UserWarning, match=r"g\.npz: array\(s\) .* read past") as seen:
        game = read_npz_game(p)
    assert all(repr(k) in str(seen[0].message) for k in extra)
    np.testing.assert_array_equal(game.A, A)
    np.testing.assert_array_equal(game.B, B)


def test_three_arrays_given_in_turn_are_still_refused(tmp_path):
    """Only arrays named A and B make a game with others beside them: three given in turn are no game."""
    p = tmp_path / "g.npz"
    np.savez(p, np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(InputError, match="expected a game's two payoff matrices"):
        read_npz_game(p)


def test_an_npz_game_too_large_for_memory_is_refused_before_it_is_inflated(tmp_path, monkeypatch):
    p = tmp_path / "big.npz"
    np.savez_compressed(p, A=np.zeros((2000, 2000)), B=np.zeros((2000, 2000)))  # 64 MB once read, little on disk
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", "1e6")
    # (sized as read and held, float64 three times, before the archive's own size: hunt 19b-F2, 25b-F1)
    said = r"a game of 8,000,000 payoffs \(as read, as float64 and the game's copy\) needs about"
    with pytest.raises(InputError, match=said):
        read_npz_game(p)


REPOSITORY = Path(__file__).resolve().parent / "data" / "gambit-repository"
REPOSITORY_PROVENANCE = json.loads((REPOSITORY / "provenance.json").read_text())


def _fraction(text: str) -> float:
    from fractions import Fraction

    return float(Fraction(text))


@pytest.mark.parametrize("name", sorted(REPOSITORY_PROVENANCE["files"]))
def test_gambits_repository_games_read_as_pygambit_reads_them_with_gambits_equilibria(name):
    """Games from Gambit's own repository (its test games and catalogue, copied byte for byte, ``provenance.json``
    naming the path and commit): the payoff version (``{ 4 4 }`` and a flat list of payoffs, as Gambit's tests
    hold it), the outcome version with an outcome list that is not in profile order (Lieberman's game, where a label
    names another profile than the one the index gives it), a degenerate game (Selten's) and von Stengel's 6 x 6
    game with 75 equilibria. Each reads as pygambit 16.7 read it (recorded beside the file, so that the test runs
    without pygambit), and ``solve`` lists exactly the equilibria Gambit's ``enummixed`` (rational) lists."""
    read = REPOSITORY_PROVENANCE["files"][name]["read"]
    g = read_nfg(REPOSITORY / name)
    assert list(g.players) == read["players"] and [g.rows, g.cols] == read["strategies"]
    want = np.vectorize(_fraction)(np.array(read["payoffs"], dtype=object)).astype(float)
    np.testing.assert_array_equal(g.A, want[0])
    np.testing.assert_array_equal(g.B, want[1])
    sol = solve(g)
    assert sol.exhaustive
    ours = {(tuple(np.round(e.x, 9)), tuple(np.round(e.y, 9))) for e in sol.equilibria}
    gambit = {
        tuple(tuple(round(_fraction(v), 9) for v in player) for player in eq) for eq in read["enummixed_rational"]
    }
    assert ours == gambit and len(ours) == len(sol.equilibria)


def test_gambits_repository_files_are_kept_with_where_they_came_from():
    prov = REPOSITORY_PROVENANCE
    assert prov["repository"] == "https://github.com/gambitproject/gambit" and prov["read_by"]["tool"] == "pygambit"
    assert sorted(prov["files"]) == sorted(p.name for p in REPOSITORY.glob("*.nfg"))
    assert all(len(f["commit"]) == 40 and f["path"].endswith(".nfg") for f in prov["files"].values())
    assert len(prov["files"]["6x6_game_with_75_eq_small_payoffs.nfg"]["read"]["enummixed_rational"]) == 75


def test_a_gambit_file_with_empty_names_is_read_with_names_by_place(tmp_path):
    """Hunt 16a-10: players (or strategies) labelled "" are legal Gambit, which reads them; they were refused."""
    import warnings as w

    from gamemarket.games.io import read_nfg

    path = tmp_path / "e.nfg"
    path.write_text('NFG 1 R "unlabelled" { "" "" } { { "a" "" } { "x" "y" } }\n""\n1 1 0 0 0 0 1 1\n')
    with w.catch_warnings(record=True) as seen:
        w.simplefilter("always")
        game = read_nfg(path)
    assert list(game.players) == ["Player 1", "Player 2"] and list(game.rows) == ["a", "2"]
    assert any("3 player or strategy name(s) left empty, named by their place" in str(x.message) for x in seen)


@pytest.mark.parametrize("players", [("1", "2"), ("Alice", "Bob")])
def test_the_librarys_csv_table_of_a_game_with_players_named_otherwise_is_read_back(tmp_path, players):
    # hunt 40b-W5: to_csv_table names its columns after the players (pygambit's "1" and "2"), and read_csv_game
    # accepted provider/consumer or row/col alone: the library's own table of a pygambit game was refused
    from gamemarket.games import Game
    from gamemarket.games.io import read_csv_game, to_csv_table

    game = Game([[3, 0], [5, 1]], [[3, 5], [0, 1]], ["C", "D"], ["c", "d"], players=players, title="PD")
    to_csv_table(game).to_csv(tmp_path / "pd.csv", index=False)
    back = read_csv_game(tmp_path / "pd.csv")
    assert np.array_equal(back.A, game.A) and np.array_equal(back.B, game.B)
    assert back.players == players and back.rows == game.rows and back.cols == game.cols
