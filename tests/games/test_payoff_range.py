"""Payoffs whose range is beyond the float range (1e308 and -1e308) are refused, named, by every game's checks:
the solvers measure regret and precision in units of that range, and QRE and alpha-rank answered such a game with
uniform play, exit 0 (a hostile-input hunt's finding)."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games.bimatrix import Game
from gamemarket.games.rsgame import RoleSymmetricGame

MESSAGE = "payoffs range from -1e+308 to 1e+308, a difference beyond the float range; rescale them"


def test_a_bimatrix_game_is_refused():
    with pytest.raises(InputError, match=re.escape(MESSAGE)):
        Game([[1e308, 0], [0, -1e308]], [[1, 0], [0, 1]])


def test_a_role_symmetric_game_is_refused():
    with pytest.raises(InputError, match=re.escape(MESSAGE)):
        RoleSymmetricGame.from_function(
            ["all"], [2], [["a", "b"]], lambda p: np.where(p[0] > 1, 1e308, -1e308) * (p > 0)
        )


def test_the_largest_range_that_fits_is_kept():
    g = Game([[1e308, 0], [0, 0]], [[1, 0], [0, 1]])  # range 1e308: a float
    assert g.A[0, 0] == 1e308


@pytest.mark.parametrize("concept", ["nash", "qre", "alpharank"])
def test_game_solve_exits_2_naming_the_file(tmp_path, concept):
    game = {
        "players": {"r0": 2},
        "strategies": {"r0": ["a", "b"]},
        "profiles": [{"r0": [["a", 2, 1e308]]}, {"r0": [["a", 1, 0.0], ["b", 1, 0.0]]}, {"r0": [["b", 2, -1e308]]}],
    }
    (tmp_path / "g.json").write_text(json.dumps(game))
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "solve", "g.json", "--concept", concept],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and f"g.json: role-symmetric game: {MESSAGE}" in r.stderr, r.stderr
