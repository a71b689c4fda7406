"""Files gameanalysis wrote (``tests/games/data/gameanalysis/``, made by gameanalysis 8.1.0: see its
``provenance.json``) are read as it writes them: its ``"type"`` tag, a sample game's observations, and its own
equilibria are among ours."""

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games.egta import read_egta
from gamemarket.games.rsg_equilibria import equilibria

DATA = Path(__file__).parent / "data" / "gameanalysis"


def _row_of(g, profile: dict) -> int:
    """The row of ``g``'s profiles that a file's profile (role -> ``[strategy, count, payoff]`` entries) is."""
    names = list(g.strategy_names)
    want = np.zeros(len(names), dtype=int)
    for entries in profile.values():
        for s, c, _ in entries:
            want[names.index(s)] = c
    return next(i for i, p in enumerate(g.profiles) if (p == want).all())


def test_a_game_gameanalysis_wrote_is_solved_and_its_equilibria_are_among_ours():
    g = read_egta(DATA / "game.json")
    assert list(g.players) == [1, 5] and list(g.num_strategies) == [2, 2]
    ours = equilibria(g).equilibria
    theirs = json.loads((DATA / "game-equilibria.json").read_text())["equilibria"]
    assert theirs, "gameanalysis found equilibria in this game"
    for mix in theirs:
        x = np.zeros(g.num_all_strategies)
        for r, shares in mix.items():
            for s, p in shares.items():
                x[list(g.strategy_names).index(s)] = p
        assert any(np.abs(x - e.mixture).max() < 1e-3 for e in ours), mix
    assert all(e.regret <= 1e-8 * g.payoff_scale() for e in ours)


def test_a_sample_game_is_read_as_the_mean_of_its_observations_with_a_warning():
    data = json.loads((DATA / "samplegame.json").read_text())
    assert data["type"] == "samplegame.1"
    with pytest.warns(UserWarning, match="lists of observations .* read as its mean"):
        g = read_egta(DATA / "samplegame.json")
    first = data["profiles"][0]
    names = list(g.strategy_names)
    row = _row_of(g, first)
    for entries in first.values():
        for s, _, obs in entries:
            assert g.payoffs[row][names.index(s)] == pytest.approx(np.mean(obs))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["game.json", "samplegame.json"])
def test_game_solve_reads_gameanalysis_files(name):
    with warnings.catch_warnings():
        r = subprocess.run(
            [sys.executable, "-m", "gamemarket", "game", "solve", str(DATA / name), "--format", "json"],
            capture_output=True,
            text=True,
        )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) and "Traceback" not in r.stderr


@pytest.mark.slow
def test_an_empty_game_and_an_unknown_type_are_refused_naming_them(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "solve", str(DATA / "emptygame.json")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "profiles" in r.stderr and "Traceback" not in r.stderr
    data = json.loads((DATA / "game.json").read_text())
    data["type"] = "trace.1"
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps(data))
    r = subprocess.run([sys.executable, "-m", "gamemarket", "game", "solve", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and "'trace.1'" in r.stderr and "game.1" in r.stderr


REPOSITORY = Path(__file__).parent / "data" / "gameanalysis-repository"
REPOSITORY_PROVENANCE = json.loads((REPOSITORY / "provenance.json").read_text())


def test_gameanalysis_hard_nash_game_has_the_equilibrium_its_own_test_states():
    """``example_games/hard_nash.json`` of gameanalysis's repository: real EGTA-online data in the layout without a
    ``type`` field (observations per payoff). gameanalysis's test states its equilibrium and marks the test xfail
    (its solver times out at 60 s); ``equilibria`` lists it, to the test's 1e-4."""
    with pytest.warns(UserWarning, match="lists of observations"):
        g = read_egta(REPOSITORY / "hard_nash.json")
    data = json.loads((REPOSITORY / "hard_nash.json").read_text())
    assert dict(zip(g.roles, g.players)) == data["players"]
    assert list(g.strategy_names) == [s for r in sorted(data["strategies"]) for s in data["strategies"][r]]
    expected = np.array(REPOSITORY_PROVENANCE["files"]["hard_nash.json"]["expected"])
    ours = equilibria(g).equilibria
    assert any(np.allclose(e.mixture, expected, atol=1e-4, rtol=1e-4) for e in ours)
    assert all(e.regret <= 1e-8 * g.payoff_scale() for e in ours)


def test_gameanalysis_game_with_a_type_field_is_read_and_solved():
    data = json.loads((REPOSITORY / "hard_scarf.json").read_text())
    assert data["type"] == "game.1"
    g = read_egta(REPOSITORY / "hard_scarf.json")
    assert list(g.strategy_names) == [s for r in sorted(data["strategies"]) for s in data["strategies"][r]]
    first = data["profiles"][0]
    names = list(g.strategy_names)
    row = _row_of(g, first)
    for entries in first.values():
        for s, _, payoff in entries:
            assert g.payoffs[row][names.index(s)] == payoff
    ours = equilibria(g).equilibria
    assert ours and all(e.regret <= 1e-8 * g.payoff_scale() for e in ours)


def test_gameanalysis_payoff_version_nfg_is_gambits_selten_game():
    """gameanalysis's ``sample.nfg`` is Gambit's payoff version of the game Gambit's own tests hold in the outcome
    version (``e02.nfg``): the same payoffs, the same equilibria."""
    from gamemarket.games import solve
    from gamemarket.games.io import read_nfg

    ours = read_nfg(REPOSITORY / "sample.nfg")
    gambit = read_nfg(Path(__file__).parent / "data" / "gambit-repository" / "e02.nfg")
    np.testing.assert_array_equal(ours.A, gambit.A)
    np.testing.assert_array_equal(ours.B, gambit.B)
    same = {(tuple(e.x), tuple(e.y)) for e in solve(ours).equilibria}
    assert same == {(tuple(e.x), tuple(e.y)) for e in solve(gambit).equilibria} and len(same) == 2


def test_gameanalysis_repository_files_are_kept_with_where_they_came_from():
    prov = REPOSITORY_PROVENANCE
    assert prov["repository"] == "https://github.com/egtaonline/gameanalysis"
    assert sorted(prov["files"]) == sorted(p.name for p in REPOSITORY.iterdir() if p.name != "provenance.json")
    assert all(len(f["commit"]) == 40 for f in prov["files"].values())


def test_a_matrix_game_as_gameanalysis_lays_it_out_is_read(tmp_path):
    """Hunt 16a-27: gameanalysis's ``matrix.1`` (``MatrixGame.to_json``: one player per role, ``payoffs`` nested one
    level per role, keyed by strategy) was refused for its ``payoffs`` field. Matching pennies, laid out so (not
    written by gameanalysis here: its 8.1.0 does not install beside this numpy): one equilibrium, each coin fair."""
    from gamemarket.games.egta import read_egta

    win, lose = {"even": 1.0, "odd": -1.0}, {"even": -1.0, "odd": 1.0}
    data = {
        "players": {"even": 1, "odd": 1},
        "strategies": {"even": ["heads", "tails"], "odd": ["heads", "tails"]},
        "payoffs": {"heads": {"heads": win, "tails": lose}, "tails": {"heads": lose, "tails": win}},
        "type": "matrix.1",
    }
    path = tmp_path / "pennies.json"
    path.write_text(json.dumps(data))
    game = read_egta(path)
    assert list(game.roles) == ["even", "odd"] and list(game.players) == [1, 1] and len(game.profiles) == 4
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "solve", str(path), "--format", "json"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert '"heads": 0.5' in r.stdout.replace("0.5000000000000001", "0.5").replace("0.49999999999999994", "0.5")
    del data["payoffs"]["tails"]["heads"]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"payoffs\['tails'\] has no entry 'heads'; a matrix game lists every"):
        read_egta(path)
