"""Integer payoffs that no float holds exactly (hunt 18a-F5, W1): every game reader refuses them, naming the value,
where rounding them changed the answer in silence (matching pennies shifted by 2^62 read as four pure equilibria)."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.games.checks import EXACT_INTEGERS, check_exact_integers, exact_payoff

BIG = 2**62
#: matching pennies shifted by 2^62: its one equilibrium is (1/2, 1/2); rounded, every payoff is 2^62
A = [[BIG + 1, BIG], [BIG, BIG + 1]]
B = [[BIG, BIG + 1], [BIG + 1, BIG]]


def _nfg(path, A, B):
    pays = " ".join(f"{A[i][j]} {B[i][j]}" for j in range(2) for i in range(2))
    path.write_text(f'NFG 1 R "mp" {{ "r" "c" }} {{ 2 2 }}\n{pays}\n')


def _csv(path, A, B):
    lines = ["row,col,row_payoff,col_payoff"] + [f"r{i},c{j},{A[i][j]},{B[i][j]}" for i in range(2) for j in range(2)]
    path.write_text("\n".join(lines) + "\n")


def _egta(path, A, B):
    profiles = [{"r": [[f"r{i}", 1, A[i][j]]], "c": [[f"c{j}", 1, B[i][j]]]} for i in range(2) for j in range(2)]
    game = {"players": {"r": 1, "c": 1}, "strategies": {"r": ["r0", "r1"], "c": ["c0", "c1"]}, "profiles": profiles}
    path.write_text(json.dumps(game))


WRITERS = {
    "g.npz": lambda p, A, B: np.savez(p, A=np.array(A, dtype=np.int64), B=np.array(B, dtype=np.int64)),
    "g.nfg": _nfg,
    "g.csv": _csv,
    "g.json": _egta,
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_an_integer_payoff_no_float_holds_is_refused_by_every_reader(tmp_path, capsys, name):
    WRITERS[name](tmp_path / name, A, B)
    assert main(["game", "solve", str(tmp_path / name), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the payoff {BIG + 1} is not exactly a floating-point number" in err, err
    assert str(tmp_path / name) in err


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_the_same_game_shifted_by_an_exact_offset_is_solved(tmp_path, capsys, name):
    """2^62 and 2^62 + 2^10 are floats exactly: the game is read, and its one equilibrium is the mixed one."""
    step = 2**10
    A2 = [[BIG + step, BIG], [BIG, BIG + step]]
    B2 = [[BIG, BIG + step], [BIG + step, BIG]]
    WRITERS[name](tmp_path / name, A2, B2)
    assert main(["game", "solve", str(tmp_path / name), "--no-progress", "--format", "json"]) == 0
    eqs = json.loads(capsys.readouterr().out)
    assert len(eqs) == 1, eqs
    eq = eqs[0].get("mixture", eqs[0])  # (a role-symmetric game's answer holds its mixture by role)
    mixtures = [eq[k] for k in eq if k not in ("payoffs", "regret", "pure", "found_by")]
    assert len(mixtures) == 2 and all(np.allclose(sorted(m.values()), [0.5, 0.5]) for m in mixtures), eqs


def test_a_uint64_payoff_beyond_the_floats_exact_integers_is_refused():
    """Hunt 18a-W1: 2^64 - 1 read as 2^64, and a profile of regret 1 listed as a pure equilibrium."""
    M = np.array([[2**64 - 1, 0], [0, 1]], dtype=np.uint64)
    with pytest.raises(InputError, match=r"g: payoff at \(0, 0\): the payoff 18446744073709551615 is not exactly"):
        check_exact_integers(M, "g")
    check_exact_integers(np.array([[2**63, 0]], dtype=np.uint64), "g")  # a power of two: exact


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_exact_payoff_refuses_exactly_the_integers_a_float_changes(v):
    """The rule against its reference (a float round trip), for integers as numbers and as texts."""
    exact = float(v) == v
    for given_as in (v, str(v), f"{v}/1"):
        if exact:
            assert exact_payoff(given_as, "x") == float(v)
        else:
            with pytest.raises(InputError, match="not exactly a floating-point number"):
                exact_payoff(given_as, "x")


def test_fractions_and_floats_are_read_as_their_format_rounds_them():
    assert exact_payoff("0.1", "x") == 0.1 and exact_payoff(1e300, "x") == 1e300
    assert exact_payoff("1/3", "x") == 1 / 3 and exact_payoff(str(EXACT_INTEGERS - 1), "x") == EXACT_INTEGERS - 1
    # a float's notation is the format's rounding, whole or not (an .nfg's 1.7e308 was refused as an integer)
    assert exact_payoff("1.7e308", "x") == 1.7e308 and exact_payoff("4611686018427387905.0", "x") == 2.0**62


def test_a_whole_number_past_the_float_range_is_said_as_such_and_a_count_is_no_payoff(tmp_path, capsys):
    """The fuzzer (run S): a strategy count of 10^400 in an .nfg header raised OverflowError from the payoff
    message (a count is no payoff: it is said by the header's own check), and a payoff of 10^400 is shown short."""
    huge = "1" + "0" * 400
    (tmp_path / "count.nfg").write_text(f'NFG 1 R "g" {{ "P1" "P2" }} {{ {huge} 2 }}\n3 3 5 0 0 5 1 1\n')
    assert main(["game", "solve", str(tmp_path / "count.nfg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "P1 has" in err and "payoff" not in err, err
    (tmp_path / "pay.nfg").write_text(f'NFG 1 R "g" {{ "P1" "P2" }} {{ 2 2 }}\n{huge} 3 5 0 0 5 1 1\n')
    assert main(["game", "solve", str(tmp_path / "pay.nfg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the payoff 10000000000000000000...(401 digits)" in err, err
    assert "past the float range" in err and len(err) < 1000
