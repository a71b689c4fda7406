"""Held-out hunt 10's problems, each a regression test (its population estimator's is in
``tests/studies/test_deviations.py``)."""

import json
from pathlib import Path

import pytest

from gamemarket.cli import main

RPS = 'NFG 1 R "rps" { "row" "col" } { 3 3 }\n0 0 -1 1 1 -1 1 -1 0 0 -1 1 -1 1 1 -1 0 0\n'
PD = 'NFG 1 R "pd" { "row" "col" } { 2 2 }\n3 3 5 0 0 5 1 1\n'


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_methods_that_find_no_equilibrium_say_none_found_and_exit_3(tmp_path, capsys, fmt):
    """--methods pure of rock-paper-scissors printed [] and exit 0 with --format json: an empty success."""
    (tmp_path / "rps.nfg").write_text(RPS)
    assert main(["game", "solve", str(tmp_path / "rps.nfg"), "--methods", "pure", "--format", fmt]) == 3
    out, err = capsys.readouterr()
    assert "gamemarket: none found: no equilibrium by the methods asked; exit 3" in err
    if fmt == "json":
        assert json.loads(out) == []
        assert "partial: the methods asked (pure) do not enumerate every extreme equilibrium" in err
    else:
        assert "equilibria: 0 (not every one: see the note)" in out


def test_methods_that_find_an_equilibrium_still_exit_0_and_json_says_the_search_was_partial(tmp_path, capsys):
    (tmp_path / "pd.nfg").write_text(PD)
    assert main(["game", "solve", str(tmp_path / "pd.nfg"), "--methods", "pure", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 1 and "partial: the methods asked (pure)" in err and "none found" not in err
    assert main(["game", "solve", str(tmp_path / "pd.nfg"), "--format", "json"]) == 0
    # hunt 12: what the text says of the game, on stderr beside the JSON list (the prisoner's dilemma: dominated)
    assert capsys.readouterr().err == "gamemarket: strictly dominated (iterated): row: 1; col: 1\n"


DEVICE_INPUTS = [
    (["simulate", "--job-table", "{dev}", "--nodes", "1"], "job table"),
    (["simulate", "--job-table", "{link}.parquet", "--nodes", "1"], "job table"),
    (["workload", "info", "{dev}"], "workload"),
    (["workload", "fit", "{dev}", "--out", "{tmp}/m.toml"], "workload"),
    (["workload", "info", "{link}.toml"], "workload model file (.toml)"),
    (["price", "solve", "{dev}"], "problem"),
    (["game", "solve", "{link}.nfg"], "game file (.nfg)"),
    (["game", "solve", "{link}.json"], "EGTA JSON file"),
    (["game", "solve", "{link}.csv"], "CSV game"),
    (["game", "solve", "{link}.npz"], "game"),
]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero (a device that never ends: Linux)")
@pytest.mark.parametrize("argv, what", DEVICE_INPUTS)
def test_a_device_given_as_an_input_is_refused_by_every_reader(tmp_path, capsys, argv, what):
    """--job-table /dev/zero grew to 23 GB before the kernel killed the process: a device never ends (and /dev/stdin
    at a terminal waits). Each reader refuses one, by its name or through a link to it, naming the file."""
    link = tmp_path / "in"
    for suffix in (".parquet", ".toml", ".nfg", ".json", ".csv", ".npz"):
        (tmp_path / f"in{suffix}").symlink_to("/dev/zero")
    args = [a.format(dev="/dev/zero", link=link, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamemarket: error: ") and f": is a device, not a file; the {what} is read from a file" in err
    assert not (tmp_path / "m.toml").exists()


def test_a_stream_with_no_line_end_is_refused_as_a_trace(tmp_path, capsys):
    """A pipe of zeros (``<(cat /dev/zero)``) has no line end: its one line grew without end."""
    from gamemarket.workloads import swf

    (tmp_path / "zeros.swf").write_bytes(b"\0" * (swf.MAX_LINE_BYTES + 10))
    assert main(["workload", "info", str(tmp_path / "zeros.swf")]) == 2
    err = capsys.readouterr().err
    assert "zeros.swf: line 1: more than 1,048,576 bytes with no line end; an SWF line holds 18 numbers" in err


# ---------------------------------------------------------------------------- the Python API, as a notebook uses it
def test_a_game_of_labelled_tables_is_read_by_its_labels():
    """Game(A, B) of DataFrames paired B's row 'b' with A's row 'a' where B's rows came in another order, and named
    the strategies r0, r1 whatever the labels."""
    import numpy as np
    import pandas as pd

    from gamemarket.errors import InputError
    from gamemarket.games import Game, solve

    A, B = np.array([[3.0, 0.0], [5.0, 1.0]]), np.array([[3.0, 5.0], [0.0, 1.0]])
    a = pd.DataFrame(A, index=["a", "b"], columns=["x", "y"])
    b = pd.DataFrame(B, index=["a", "b"], columns=["x", "y"])
    g = Game(a, b.loc[["b", "a"], ["y", "x"]])
    assert g.rows == ["a", "b"] and g.cols == ["x", "y"]
    np.testing.assert_array_equal(g.B, B)
    (eq,) = solve(g).equilibria
    assert eq.x.tolist() == [0.0, 1.0] and eq.y.tolist() == [0.0, 1.0]  # defect, defect: row b, column y
    assert Game(pd.DataFrame(A), pd.DataFrame(B)).rows == ["r0", "r1"]  # positions only: the default names
    with pytest.raises(InputError, match=r"A and B are labelled differently \(rows \['a', 'b'\] and \['z', 'b'\]"):
        Game(a, b.rename(index={"a": "z"}))
    with pytest.raises(InputError, match=r"rows=\['p', 'q'\] but the payoff tables are labelled \['a', 'b'\]"):
        Game(a, b, rows=["p", "q"])


@pytest.fixture(scope="module")
def job_table():
    from gamemarket import bids, consumers
    from gamemarket.workloads.synthetic import SyntheticSpec, generate

    return bids.job_table(generate(SyntheticSpec(jobs=30, nodes=4)).jobs, consumers.SRG, 0)


def test_a_job_table_of_several_column_levels_is_refused_naming_them(job_table):
    import pandas as pd

    from gamemarket.errors import InputError
    from gamemarket.market import Mechanism, simulate

    t = job_table.copy()
    t.columns = pd.MultiIndex.from_tuples([(c, "x") for c in t.columns])
    with pytest.raises(
        InputError, match=r"expected columns named by text .* columns of 2 levels such as \('id', 'x'\)"
    ):
        simulate(t, 4, Mechanism("hb", "kth", 1.0))  # (an AttributeError inside pandas)


def test_a_column_of_numpy_numbers_is_read_as_numbers_and_numpy_booleans_are_not(job_table):
    import numpy as np
    import pandas as pd

    from gamemarket.errors import InputError
    from gamemarket.market import Mechanism, simulate

    want = simulate(job_table, 4, Mechanism("hb", "kth", 1.0)).summary
    t = job_table.copy()
    t["id"] = pd.Series([np.int64(v) for v in t["id"]], dtype=object)
    t["runtime"] = pd.Series([np.float32(v) for v in t["runtime"]], dtype=object)
    assert simulate(t, 4, Mechanism("hb", "kth", 1.0)).summary == want  # (refused: "['int64'] values")
    t["id"] = pd.Series([np.bool_(True)] * len(t), dtype=object)
    with pytest.raises(InputError, match=r"column 'id' holds \['bool'\] values; expected numbers"):
        simulate(t, 4, Mechanism("hb", "kth", 1.0))


@pytest.mark.parametrize("level", [95, 0, 1, -0.5, float("nan"), True, "0.95", None])
def test_a_confidence_level_outside_0_1_is_an_error_not_a_missing_interval(level):
    from gamemarket import confidence
    from gamemarket.errors import InputError

    with pytest.raises(InputError, match=r"level must be a number strictly between 0 and 1"):
        confidence.t_interval([1.0, 2.0, 3.0], level=level)  # (95 returned (2.0, nan, nan))
    with pytest.raises(InputError, match=r"alpha must be a number strictly between 0 and 1"):
        confidence.t_bound([1.0, 2.0, 3.0], level)
    with pytest.raises(InputError, match=r"alpha must be a number strictly between 0 and 1"):
        confidence.regret_interval([[1.0], [2.0]], level)
    assert confidence.t_interval([1.0, 2.0, 3.0], level=0.95)[1] < 2.0 < confidence.t_bound([1.0, 2.0, 3.0], 0.05)


@pytest.mark.parametrize("text", ["", "\n  \n", "# a study, cut short\n"])
def test_a_study_file_with_no_field_is_refused_not_run_as_the_default_study(tmp_path, capsys, text):
    """Hunt 10: an empty study file (``: > tiny.toml``) ran a whole default study into results/ and reports/."""
    (tmp_path / "tiny.toml").write_text(text)
    assert main(["study", "run", str(tmp_path / "tiny.toml"), "--no-progress"]) == 2
    assert "tiny.toml: holds no field (empty, or only comments); expected a study's tables" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]
