"""``gamemarket game solve --time-limit`` (issue #43): a game whose search cannot finish ends with exit 3, what was
found printed (each equilibrium verified) and a note on stderr saying how far it got and how to raise the limit; a
bad limit exits 2 naming the value; a game that finishes answers the same whatever the limit."""

import json
import re

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.games import Game
from gamemarket.games.egta import write_egta
from gamemarket.games.equilibria import regret
from gamemarket.games.io import to_nfg
from gamemarket.games.rsgame import RoleSymmetricGame


def _nfg(path, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    g = Game(rng.random((n, n)), rng.random((n, n)))
    path.write_text(to_nfg(g))
    return g


def test_a_20x20_game_stops_at_the_limit_with_exit_3_and_verified_equilibria(tmp_path, capsys):
    g = _nfg(tmp_path / "r20.nfg", 20)
    rc = main(["game", "solve", str(tmp_path / "r20.nfg"), "--complete", "--time-limit", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 3 and "Traceback" not in err
    recs = json.loads(out)  # stdout is the JSON alone: the note and the progress bar are on stderr
    assert recs
    for r in recs:  # each one an equilibrium of the game, checked here from its payoffs
        x = np.array([r["provider"].get(s, 0.0) for s in g.rows])
        y = np.array([r["consumer"].get(s, 0.0) for s in g.cols])
        ra, rb = regret(g.A, g.B, x, y)
        assert ra < 1e-6 and rb < 1e-6
    assert "polytope: stopped at the time limit of 1 s before qhull had listed" in err
    assert "raise the limit (gamemarket game solve --time-limit SECONDS" in err
    assert err.rstrip().endswith("the search for equilibria did not finish (see the note); exit 3")


def test_the_text_output_prints_the_note_too(tmp_path, capsys):
    _nfg(tmp_path / "r20.nfg", 20)
    assert main(["game", "solve", str(tmp_path / "r20.nfg"), "--complete", "--time-limit", "1"]) == 3
    out, err = capsys.readouterr()
    assert "note: incomplete: polytope: stopped at the time limit of 1 s" in out
    assert re.search(r"^ +1 +pure ", out, re.M)  # the equilibria table's first row: what was found is printed
    assert "did not finish" in err


def test_an_egta_game_stops_at_the_limit_with_exit_3(tmp_path, capsys):
    game = RoleSymmetricGame.random((3,), (12,), np.random.default_rng(0))  # 4,083 supports: minutes in all
    write_egta(game, tmp_path / "big.json")
    rc = main(["game", "solve", str(tmp_path / "big.json"), "--time-limit", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 3 and "Traceback" not in err
    for r in json.loads(out):
        x = game.mixture_from_dict(r["mixture"])
        assert game.regret(x) <= 1e-8 * game.payoff_scale()
    assert "stopped at the time limit of 1 s in support enumeration, after " in err and "of its 4,083 supports" in err
    assert "--time-limit SECONDS" in err


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf", "ten", "1e8", ""])
def test_a_bad_time_limit_exits_2_naming_the_value(value, tmp_path, capsys):
    _nfg(tmp_path / "g.nfg", 3)
    with pytest.raises(SystemExit) as exc:
        main(["game", "solve", str(tmp_path / "g.nfg"), f"--time-limit={value}"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    (line,) = err.splitlines()  # one line: the usage block argparse would print before it is left out
    start = "gamemarket game solve: error: argument --time-limit: expected a number of seconds > 0 and <= 1e+07, got "
    assert line in {start + shown + "; see `gamemarket game solve --help`" for shown in (repr(value), value)}, line


@pytest.mark.parametrize("suffix", [".nfg", ".json"])
def test_a_small_game_answers_the_same_with_and_without_a_generous_limit(suffix, tmp_path, capsys):
    f = tmp_path / f"small{suffix}"
    if suffix == ".nfg":
        _nfg(f, 6, seed=3)
    else:
        write_egta(RoleSymmetricGame.random((2, 3), (2, 3), np.random.default_rng(3)), f)
    assert main(["game", "solve", str(f), "--format", "json"]) == 0
    default = capsys.readouterr().out
    assert main(["game", "solve", str(f), "--format", "json", "--time-limit", "1000"]) == 0
    assert capsys.readouterr().out == default and json.loads(default)


def test_the_help_says_the_default_limit(capsys):
    with pytest.raises(SystemExit):
        main(["game", "solve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--time-limit SECONDS wall-clock seconds each equilibrium method may spend on one game" in out
    assert "default: 10)" in out and "exits 3" in out
