"""A bimatrix game at the solver's boundaries: two strategies of one name are refused, and a search that cannot
enumerate every degenerate face says so (exit 3 from the command, what it found printed, no traceback)."""

import subprocess
import sys

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games import Game, solve
from gamemarket.games.io import read_nfg


def test_two_strategies_of_one_name_are_an_error_naming_the_file(tmp_path):
    f = tmp_path / "dup.nfg"
    f.write_text('NFG 1 R "dup" { "P1" "P2" } { { "a" "a" } { "x" "y" } } ""\n1 0 0 1 0 1 1 0\n')
    with pytest.raises(InputError, match=r"dup.nfg: .*P1 has two strategies named 'a'"):
        read_nfg(f)
    with pytest.raises(InputError, match="two strategies named 'x'"):
        Game(np.zeros((1, 2)), np.zeros((1, 2)), ["a"], ["x", "x"])


def test_an_all_zero_game_is_answered_with_what_was_found_and_marked_incomplete():
    n = 12
    sol = solve(Game(np.zeros((n, n)), np.zeros((n, n))))
    assert not sol.complete and any(note.startswith("incomplete: polytope") for note in sol.notes)
    assert len(sol.equilibria) >= n * n  # every pure profile, each verified
    assert solve(Game(np.eye(3), np.eye(3))).complete


@pytest.mark.slow
def test_game_solve_exits_3_with_the_equilibria_it_found(tmp_path):
    f = tmp_path / "zero.nfg"
    f.write_text('NFG 1 R "zero" { "P1" "P2" } { 12 12 }\n' + " ".join(["0 0"] * 144) + "\n")
    r = subprocess.run([sys.executable, "-m", "gamemarket", "game", "solve", str(f)], capture_output=True, text=True)
    assert r.returncode == 3 and "Traceback" not in r.stderr
    assert "did not finish" in r.stderr and "note: incomplete" in r.stdout and "[144]" in r.stdout
