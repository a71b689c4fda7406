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
    assert "did not finish" in r.stderr and "note: incomplete" in r.stdout
    assert ["144", "pure"] in [line.split()[:2] for line in r.stdout.splitlines()]  # the table's 144th equilibrium


def test_a_declared_size_the_file_cannot_fill_is_refused_before_anything_is_allocated(tmp_path):
    """A 40-byte .nfg declaring 100,000 x 100,000 strategies, a 500-byte EGTA file declaring 50 players on 60
    strategies (10^31 profiles): each refused by its size, at once, naming the file."""
    import json

    from gamemarket.games.egta import read_egta

    nfg = tmp_path / "big.nfg"
    nfg.write_text('NFG 1 R "big" { "P1" "P2" } { 100000 100000 }\n1 2 3 4\n')
    with pytest.raises(InputError, match=r"big.nfg: expected 20000000000 payoffs for a 100000x100000 game, found 4"):
        read_nfg(nfg)
    egta = tmp_path / "huge.json"
    names = [f"s{i}" for i in range(60)]
    egta.write_text(
        json.dumps({"players": {"r": 50}, "strategies": {"r": names}, "profiles": [{"r": [["s0", 50, 1]]}]})
    )
    with pytest.raises(
        InputError, match=r"huge.json: .* has 34,231,543,998,102,407,134,654,572,780,216 profiles; got 1"
    ):
        read_egta(egta)
