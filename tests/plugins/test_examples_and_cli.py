"""The example plugins pass the conformance checks and do what their docstrings say; ``gamemarket plugin check``
prints each check and exits 1 on a failure; ``--plugin`` makes a plugin's names usable by ``simulate``."""

import json
from pathlib import Path

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.market import Mechanism, simulate
from gamemarket.plugins import load_plugin
from gamemarket.testing import check_payment, check_scheduler, random_cases

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"
LOWEST = EXAMPLES / "lowest_running.py"
PER_NODE_SECOND = EXAMPLES / "bid_per_node_second.py"


@pytest.mark.slow
def test_lowest_running_conforms_and_charges_the_lowest_running_bid_when_full():
    load_plugin(LOWEST)
    assert check_payment("lowest-running", cases=10).passed
    # one node: the running job is the lowest running bid, so it pays max(r, its own bid) while it runs alone on
    # a busy machine, exactly what first price charges
    for case in random_cases(6, seed=1):
        got = simulate(case.table, 1, Mechanism("nphb", "lowest-running", case.reserve)).jobs["payment"]
        want = simulate(case.table, 1, Mechanism("nphb", "first", case.reserve)).jobs["payment"]
        assert np.array_equal(got.to_numpy(), want.to_numpy())


@pytest.mark.slow
def test_lowest_running_never_charges_more_than_first_price():
    load_plugin(LOWEST)
    for case in random_cases(10, seed=4):
        got = simulate(case.table, case.nodes, Mechanism("hb", "lowest-running", case.reserve)).jobs["payment"]
        first = simulate(case.table, case.nodes, Mechanism("hb", "first", case.reserve)).jobs["payment"]
        assert (got.to_numpy() <= first.to_numpy()).all()


def test_bid_per_node_second_conforms_and_orders_as_wspt_with_estimates():
    load_plugin(PER_NODE_SECOND)
    assert check_scheduler("bid-per-node-second", payments=["kth", "first"], cases=10).passed
    for case in random_cases(6, seed=2):
        a = simulate(case.table, case.nodes, Mechanism("bid-per-node-second", "kth", case.reserve)).jobs
        b = simulate(case.table, case.nodes, Mechanism("wspt-est", "kth", case.reserve)).jobs
        assert a.equals(b)


@pytest.mark.slow
def test_plugin_check_prints_each_check_and_passes(capsys):
    assert main(["plugin", "check", str(LOWEST), "--cases", "4"]) == 0
    out = capsys.readouterr().out
    assert "payment scheme 'lowest-running'" in out and "PASSED  reference" in out and "all entries passed" in out


def test_plugin_check_exits_1_on_a_failed_check(tmp_path, capsys):
    # a key function that is not the key it declares: the "key" check fails
    p = tmp_path / "liar.py"
    p.write_text(
        "import numpy as np\n"
        "from gamemarket.market import register_scheduler\n"
        "from gamemarket.market.schedulers import PriorityKey\n"
        "register_scheduler('liar', False, lambda t: np.asarray(t['submit'], dtype=np.float64) * 0.0, 'lies',\n"
        "                   priority=PriorityKey('runtime'))\n"
    )
    assert main(["plugin", "check", str(p), "--cases", "3", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    (report,) = doc["reports"]
    assert report["name"] == "liar" and not report["passed"]
    assert any(r["check"] == "key" and r["status"] == "failed" for r in report["results"])


@pytest.mark.slow
def test_simulate_with_a_plugin_payment(capsys):
    argv = ["simulate", "--synthetic-jobs", "80", "--nodes", "4", "--format", "json", "--seed", "3"]
    assert main([*argv, "--plugin", str(LOWEST), "--payment", "lowest-running"]) == 0
    mine = json.loads(capsys.readouterr().out)
    assert main([*argv, "--payment", "first"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert mine["payment"] == "lowest-running" and mine["allocation_steps"] == first["allocation_steps"]
    assert 0 < mine["revenue"] <= first["revenue"]  # never more than first price (its rate caps each job's)


def test_simulate_stops_on_a_negative_price_and_writes_nothing(tmp_path, capsys):
    p = tmp_path / "neg.py"
    p.write_text(
        "from gamemarket.market.payments import payment_rule\n"
        "@payment_rule('negative', 'pays the provider less than nothing when busy', jit=False)\n"
        "def negative(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):\n"
        "    return reserve if free > 0 else -1.5\n"
    )
    out = tmp_path / "o.csv"
    argv = ["simulate", "--plugin", str(p), "--payment", "negative", "--synthetic-jobs", "80", "--nodes", "2"]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"payment scheme 'negative' (plugin {p.resolve()}@" in err and "gave -1.5 for job id" in err
    assert not out.exists()


@pytest.mark.parametrize("command", [["study", "run", "x.toml"], ["game", "solve", "x.nfg"]])
def test_study_run_and_game_solve_take_plugin_options(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--plugin", str(PER_NODE_SECOND), "--plugin", str(LOWEST)]) == 2  # x.* is missing
    assert "x." in capsys.readouterr().err
