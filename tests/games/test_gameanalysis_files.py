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

from gamemarket.games.egta import read_egta
from gamemarket.games.rsg_equilibria import equilibria

DATA = Path(__file__).parent / "data" / "gameanalysis"


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
    want = np.zeros(len(names), dtype=int)
    for entries in first.values():
        for s, c, _ in entries:
            want[names.index(s)] = c
    row = next(i for i, p in enumerate(g.profiles) if (p == want).all())
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
    data["type"] = "matrix.1"
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps(data))
    r = subprocess.run([sys.executable, "-m", "gamemarket", "game", "solve", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and "'matrix.1'" in r.stderr and "game.1" in r.stderr
