"""A population run's lean path (``payoff_runner``, ``outcomes.payoff_outcome``) gives the full per-job path's
numbers bit for bit: each job's utility and the summary's revenue, utilization and welfare."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket import bids
from gamemarket.market import outcomes
from gamemarket.market.base import MARKETS, SchedulingMarket
from gamemarket.market.payments import PAYMENTS
from gamemarket.market.schedulers import SCHEDULERS
from tests.hypothesis_strategies import workloads


def bits(a) -> np.ndarray:
    """A float array's bit patterns: equal arrays of bits are equal to the last bit (signed zeros and NaNs too)."""
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def assert_same(lean, full_utility, full_summary):
    utility, fields = lean
    assert utility.dtype == np.float64
    np.testing.assert_array_equal(bits(utility), bits(full_utility))
    for k in outcomes.PAYOFF_FIELDS if full_summary.get("jobs") else ():
        assert repr(fields[k]) == repr(full_summary[k]), k  # repr: the same float to the last bit
    if not full_summary.get("jobs"):
        assert fields == full_summary


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    J=st.integers(0, 60),
    nodes=st.integers(1, 6),
    spread=st.sampled_from([2, 30, 400]),
)
def test_payoff_outcome_equals_the_per_job_columns_and_summary(data, J, nodes, spread):
    """The reference is ``per_job_columns`` and ``summary`` of the same engine outputs, for any outputs (ends
    before or after submission, zero or negative payments, ties): the lean formulas are the same operations."""
    ints = st.lists(st.integers(0, spread), min_size=J, max_size=J)
    floats = st.floats(-1e6, 1e6, allow_nan=False, width=64)
    table = {
        "id": np.arange(J, dtype=np.int64),
        "submit": np.array(data.draw(ints), dtype=np.int64),
        "runtime": np.array(data.draw(st.lists(st.integers(1, 50), min_size=J, max_size=J)), dtype=np.int64),
        "private_bid": np.array(data.draw(st.lists(st.floats(0, 180), min_size=J, max_size=J)), dtype=np.float64),
        "reported_bid": np.zeros(J),
    }
    of_run = outcomes.payoff_outcome(table, nodes)
    for _ in range(2):  # the buffers are reused from one run to the next
        end = table["submit"] + np.array(data.draw(ints), dtype=np.int64)
        pay = np.array(data.draw(st.lists(floats, min_size=J, max_size=J)), dtype=np.float64)
        npre = np.zeros(J, np.int64)
        cols = outcomes.per_job_columns(table, end - table["runtime"], end, pay, npre)
        lean = of_run(end, pay)
        assert_same(lean, cols["utility"], outcomes.summary(cols, nodes))


@settings(max_examples=60, deadline=None)
@given(
    wl=workloads(),
    scheduler=st.sampled_from(sorted(SCHEDULERS)),
    payment=st.sampled_from(sorted(PAYMENTS)),
    betas=st.lists(st.sampled_from([0.0, 0.3, 0.9]), min_size=1, max_size=3),
)
def test_payoff_runner_equals_the_full_runs(wl, scheduler, payment, betas):
    """Each of a runner's runs (shaded bids, every registered scheduler and payment scheme, jobs out of arrival
    order and ties) gives the full path's utilities and provider fields: ``runner`` (the per-job columns and
    summary) and ``run`` (a DataFrame)."""
    table, nodes, reserve = wl
    market = SchedulingMarket()
    arrays = {c: table[c].to_numpy(np.int64) for c in ("id", "submit", "runtime", "estimate")}
    w = table["private_bid"].to_numpy(np.float64)
    provider = {"kind": "scheduling", "scheduler": scheduler, "payment": payment, "reserve": reserve}
    group = np.zeros(len(w), np.int64)
    lean, full = market.payoff_runner(arrays, nodes, provider, w), market.runner(arrays, nodes, provider, w)
    U = np.random.default_rng(len(w)).random(len(w))
    for beta in betas:
        rw = w * (1 - beta * U)
        res = full(rw, group)
        assert_same(lean(rw, group), res.jobs["utility"], res.summary)
        alone = market.run(arrays, nodes, provider, w, rw, group)
        assert_same(lean(rw, group), alone.jobs["utility"].to_numpy(), alone.summary)


@pytest.mark.parametrize("kind", sorted(MARKETS))
def test_every_markets_payoff_runner_equals_its_runner(kind):
    """Every registered market answers ``payoff_runner`` with its ``runner``'s numbers (the population study and
    the exploration call only it)."""
    market = MARKETS.get(kind)
    prep = market.prepare(market.check_workload(dict(market.example_workload), "test", Path.cwd()))
    d = bids.draw(prep.jobs, 3)
    group = np.zeros(prep.jobs, np.int64)
    for entry in market.example_providers()[:2]:  # the hypothesis test above runs every scheduling mechanism
        params = {"kind": kind, **market.provider_params(dict(entry), "test")}
        lean = market.payoff_runner(prep.arrays, prep.nodes, params, d.private_bid)
        res = market.runner(prep.arrays, prep.nodes, params, d.private_bid)(d.private_bid * (1 - 0.6 * d.U), group)
        assert_same(lean(d.private_bid * (1 - 0.6 * d.U), group), np.asarray(res.jobs["utility"]), res.summary)
