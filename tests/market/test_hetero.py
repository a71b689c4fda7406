"""The heterogeneous-cluster market: mechanism rules on hand-checked markets, clearing, studies."""

import numpy as np
import pandas as pd
import pytest

from gamemarket.errors import InputError
from gamemarket.market.pricing_market import HeteroSpec, generate, run

# one resource of capacity 1; two jobs of efficiency 1 valuing a unit of throughput at 10 and 5
A = np.array([[1.0], [1.0]])
R = np.array([1.0])
W = np.array([10.0, 5.0])
G = np.zeros(2, dtype=int)


def test_clearing_hand_checked():
    jobs, s = run(A, R, W, W, G, "clearing")
    # the high-value job gets the resource; a clearing price lies between the two values
    assert jobs["throughput"].tolist() == pytest.approx([1.0, 0.0], abs=1e-3)
    p = s["prices"][0]
    assert 5 - 1e-2 <= p <= 10 + 1e-2
    assert jobs["payment"].tolist() == pytest.approx([p * jobs["throughput"][0], 0.0], abs=1e-2)
    assert jobs["utility"][0] == pytest.approx(10 * jobs["throughput"][0] - jobs["payment"][0])


def test_pay_as_bid_hand_checked():
    jobs, s = run(A, R, W, np.array([8.0, 5.0]), G, "pay-as-bid")
    t = jobs["throughput"][0]
    assert t == pytest.approx(1.0, abs=1e-3)
    assert jobs["payment"][0] == pytest.approx(8.0 * t)  # pays its reported value
    assert jobs["utility"][0] == pytest.approx((10 - 8) * t)


@pytest.mark.parametrize("price,expected_t", [(7.0, [1.0, 0.0]), (3.0, [0.5, 0.5]), (12.0, [0.0, 0.0])])
def test_posted_price_with_proportional_rationing(price, expected_t):
    jobs, s = run(A, R, W, W, G, "posted", params={"prices": price})
    assert jobs["throughput"].tolist() == pytest.approx(expected_t)
    assert jobs["payment"].tolist() == pytest.approx([price * t for t in expected_t])
    assert s["prices"] == [price]


def test_reserve_above_every_value_sells_nothing():
    jobs, s = run(A, R, W, W, G, "clearing-reserve", params={"reserve": 12.0})
    assert jobs["throughput"].sum() == pytest.approx(0.0, abs=1e-6) and s["revenue"] == pytest.approx(0.0, abs=1e-4)
    assert s["prices"][0] >= 12.0


def test_clearing_prices_clear_and_reserve_is_respected():
    mk = generate(HeteroSpec(jobs=3000, resources=4, load=2.0, seed=5))
    rng = np.random.default_rng(0)
    w = rng.uniform(0, 100, 3000)
    jobs, s = run(mk["A"], mk["R"], w, w, np.zeros(3000, int), "clearing")
    use = np.zeros(4)
    for j, x in (("j1", "x1"), ("j2", "x2")):
        ok = jobs[j] >= 0
        np.add.at(use, jobs.loc[ok, j].to_numpy(), jobs.loc[ok, x].to_numpy())
    p = np.array(s["prices"])
    assert (use <= mk["R"] * (1 + 1e-9)).all()
    # where the price is positive, the resource is (almost) fully used: the market clears
    assert np.allclose(use[p > 1e-6], mk["R"][p > 1e-6], rtol=2e-3)
    jr, sr = run(mk["A"], mk["R"], w, w, np.zeros(3000, int), "clearing-reserve", params={"reserve": 40.0})
    assert (np.array(sr["prices"]) >= 40.0 - 1e-12).all()
    # nobody pays more per unit than the value of what it gets
    assert (jr["payment"] <= w * jr["throughput"] + 1e-6).all()


def test_bad_mechanism_parameters():
    with pytest.raises(InputError, match="unknown pricing mechanism"):
        run(A, R, W, W, G, "auction")
    with pytest.raises(InputError, match="posted prices"):
        run(A, R, W, W, G, "posted", params={"prices": [1.0, 2.0]})


@pytest.mark.slow
def test_pricing_study_deterministic_and_resumable(tmp_path):
    from gamemarket.studies import load_results, load_study, run_study
    from study_helpers import write_study

    body = """
name = "pm"
[workload]
source = "hetero"
[workload.hetero]
jobs = 300
resources = 3
load = 2.0
seed = 1
[strategies]
providers = ["clearing", "clearing-reserve", "posted", "pay-as-bid"]
consumers = ["FT", "SRG", "DEV1"]
[replications]
count = 3
"""
    spec = load_study(write_study(tmp_path, body))
    spec.results_dir = tmp_path / "a"
    assert run_study(spec, n_jobs=1, progress=False).run == 36
    a, _, _ = load_results(spec)
    spec.results_dir = tmp_path / "b"
    run_study(spec, n_jobs=2, progress=False)
    b, _, _ = load_results(spec)
    cols = [c for c in a.columns if c != "task_seconds"]
    pd.testing.assert_frame_equal(a[cols], b[cols], check_exact=True)
    assert run_study(spec, n_jobs=2, progress=False).run == 0  # resumes: everything stored
    # its report renders (no claims or paper game: the paper's market is the scheduling one)
    from gamemarket.analysis.study import analyze
    from gamemarket.reports import write_report

    spec.report_dir = tmp_path / "report"
    an = analyze(spec, for_report=True, resamples=100)
    assert an.claims == [] and an.paper_games == [] and write_report(an).exists()
    # a scheduling mechanism cannot run on a hetero workload
    bad = body.replace('"clearing", ', '"hb-kth", "clearing", ')
    with pytest.raises(InputError, match="scheduling mechanism but the workload"):
        load_study(write_study(tmp_path, bad, name="bad.toml"))


@pytest.mark.slow
def test_gain_experiment_pairs_the_same_jobs(tmp_path):
    from gamemarket.analysis.incentives import gains
    from gamemarket.studies import load_study
    from gamemarket.studies.gains import run_gains
    from study_helpers import write_study

    body = """
name = "g"
[gains]
jobs = [200, 400]
seeds = [3, 2]
[workload]
source = "hetero"
[workload.hetero]
resources = 3
[strategies]
providers = ["clearing", "pay-as-bid"]
consumers = ["FT", "SRG", "DEV1"]
[replications]
count = 2
"""
    spec = load_study(write_study(tmp_path, body))
    run_gains(spec, n_jobs=1)
    per_seed, summary = gains(spec)
    assert set(summary["n"]) == {200, 400} and set(summary["way"]) == {"SRG", "DEV1"}
    assert (summary.loc[summary["n"] == 200, "seeds"] <= 3).all()
    # pay-as-bid: truthful jobs pay their full value, so the same jobs' truthful utility is exactly 0
    pab = per_seed[per_seed["mechanism"] == "pay-as-bid"]
    assert np.allclose(pab["truthful_utility"], 0.0, atol=1e-9) and (pab["gain"] >= -1e-9).all()
    run_gains(spec, n_jobs=1)  # stored: nothing runs again
    again, _ = gains(spec)
    pd.testing.assert_frame_equal(per_seed.reset_index(drop=True), again.reset_index(drop=True))


def test_both_markets_answer_the_same_protocol_and_payoffs_are_computed_once():
    """A study's task looks its market up by kind; either market's run yields every payoff the games use,
    and a pricing task equals the pricing market run by hand with the same draws."""
    import pandas as pd

    from gamemarket import bids
    from gamemarket.consumers import BetaMix
    from gamemarket.market import payoffs, pricing_market
    from gamemarket.market.base import MARKETS, MarketRun, market_for, market_for_workload
    from gamemarket.studies.runner import run_task
    from gamemarket.workloads import generate

    assert set(MARKETS) == {"scheduling", "pricing"}
    assert market_for_workload("hetero").kind == "pricing"
    assert {market_for_workload(s).kind for s in ("synthetic", "LPC-EGEE-2004-1.2-cln", "x.swf")} == {"scheduling"}
    w = generate(jobs=200, nodes=4, seed=2).jobs
    sched = {c: w[c].to_numpy(np.int64) for c in ("id", "submit", "runtime", "estimate")}
    mk = pricing_market.generate(pricing_market.HeteroSpec(jobs=150, resources=3, load=2.0, seed=1))
    cases = [
        (sched, 4, {"kind": "scheduling", "scheduler": "hb", "payment": "kth", "reserve": 1.0}),
        ({"A": mk["A"], "R": mk["R"]}, 3, {"kind": "pricing", "mechanism": "clearing"}),
    ]
    groups = ((0.9, 0.1), (0.1, 0.9))
    dist = bids.BidDistribution()
    for arrays, nodes, prov in cases:
        market = market_for(prov)
        assert market is MARKETS[prov["kind"]]
        metrics, binned, cohorts = run_task(arrays, nodes, prov, BetaMix(groups), 3, dist)
        assert set(payoffs.PROVIDER_PAYOFFS) | set(payoffs.CONSUMER_PAYOFFS) <= set(metrics)
        assert int(binned["n"].sum()) == int(cohorts["n"].sum()) == market.size(arrays)
        d = bids.draw(market.size(arrays), 3, distribution=dist)
        g, rw = BetaMix(groups).report(d.private_bid, d.G, d.U)
        if prov["kind"] == "pricing":
            jobs, summary = pricing_market.run(arrays["A"], arrays["R"], d.private_bid, rw, g, "clearing", params={})
        else:
            run = market.run(arrays, nodes, prov, d.private_bid, rw, g)
            jobs, summary = run.jobs, run.summary
        want = payoffs.of_run(MarketRun(jobs, summary), BetaMix(groups).betas, d.G, d.private_bid)[0]
        metrics.pop("task_seconds")
        assert metrics.keys() == want.keys()
        assert all(metrics[k] == want[k] or (np.isnan(metrics[k]) and np.isnan(want[k])) for k in want)
        assert isinstance(binned, pd.DataFrame)


def test_per_job_table_counts_shares_beyond_the_two_slots(monkeypatch):
    """A job an allocation puts on three resources (``Allocation.extra``): the table's ``x_more`` and
    ``resources`` say so, and throughput and payment count every share (A x and p^T x on the dense matrix)."""
    from gamemarket.market import pricing_market
    from gamemarket.pricing.allocation import Allocation

    A3 = np.array([[1.0, 2.0, 4.0], [1.0, 1.0, 1.0]])
    R3 = np.array([1.0, 1.0, 1.0])
    prices = np.array([1.0, 2.0, 3.0])
    alloc = Allocation(
        np.array([0, 1]),
        np.array([0.2, 0.5]),
        np.array([1, -1]),
        np.array([0.3, 0.0]),
        3,
        (np.array([0]), np.array([2]), np.array([0.4])),
    )

    def rule(A, R, rw, params):
        return alloc, prices, alloc.spend(prices), {"converged": True, "gap": 0.0, "iterations": 0}

    monkeypatch.setitem(
        pricing_market.HETERO_MECHANISMS._items, "three", pricing_market.HeteroMechanism("three", rule, "t")
    )
    jobs, _ = run(A3, R3, np.array([2.0, 1.0]), np.array([2.0, 1.0]), np.zeros(2, int), "three")
    X = alloc.dense()
    assert jobs["x_more"].tolist() == pytest.approx([0.4, 0.0])
    assert jobs["resources"].tolist() == [3, 1]
    assert jobs["throughput"].to_numpy() == pytest.approx((A3 * X).sum(axis=1))
    assert jobs["payment"].to_numpy() == pytest.approx(X @ prices)
    assert (jobs["x1"] + jobs["x2"] + jobs["x_more"]).to_numpy() == pytest.approx(X.sum(axis=1))
