"""A population run's lean path (``payoff_runner``, ``outcomes.payoff_outcome``) gives the full per-job path's
numbers bit for bit: each job's utility and the summary's revenue, utilization and welfare; and so do the steps a
population chunk works out once or compiles (the arrival order, the strategies' slices, the reported bids, the
strategies' sums)."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket import bids
from gamemarket.consumers import ShadingRule
from gamemarket.market import outcomes
from gamemarket.market.base import MARKETS, SchedulingMarket
from gamemarket.market.payments import PAYMENTS
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.market.simulate import Mechanism, arrival_order, run_arrays
from gamemarket.studies import population
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
@pytest.mark.slow
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
@pytest.mark.slow
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


@pytest.mark.slow
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


@settings(max_examples=60, deadline=None)
@given(wl=workloads(), scheduler=st.sampled_from(sorted(SCHEDULERS)), payment=st.sampled_from(sorted(PAYMENTS)))
def test_arrival_order_worked_out_once_gives_the_same_run(wl, scheduler, payment):
    """A run handed the jobs' arrival order (``simulate.arrival_order``, as a runner works it out once for its
    chunk) gives the engine outputs of a run that works it out itself, for jobs out of arrival order and ties."""
    table, nodes, reserve = wl
    cols = {c: table[c].to_numpy() for c in table.columns}
    mech = Mechanism(scheduler, payment, reserve)
    order = arrival_order(cols)
    np.testing.assert_array_equal(order[0], np.lexsort((cols["id"], cols["submit"])))
    for t in (cols, table):  # a mapping of columns and a DataFrame
        plain, handed = run_arrays(t, nodes, mech), run_arrays(t, nodes, mech, order=order)
        for a, b in zip(plain[:4], handed[:4]):
            np.testing.assert_array_equal(
                bits(a) if a.dtype == np.float64 else a, bits(b) if b.dtype == np.float64 else b
            )
        assert plain[4] == handed[4]


def rules_and_draws(data, n: int):
    """Beta-per-class rules (betas from a pool with 0 and near-1 values), a mixture over them with zeros (probe
    slices) and each agent's draws: what a population chunk's runs read."""
    S = data.draw(st.integers(1, 6))
    beta = st.sampled_from([0.0, 0.5, 0.9, 0.99]) | st.floats(0, 0.999)
    rules = [ShadingRule(f"r{k}", tuple(data.draw(st.lists(beta, min_size=3, max_size=3)))) for k in range(S)]
    x = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0]) | st.floats(0, 1), min_size=S, max_size=S)))
    x = x / x.sum() if x.sum() > 0 else np.eye(S)[0]
    floats = st.sampled_from([0.0, 60.0, 120.0, 180.0]) | st.floats(0, 180)
    w = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)), dtype=np.float64)
    unit = st.sampled_from([0.0, 0.5]) | st.floats(0, 1, exclude_max=True)
    U, d = (np.array(data.draw(st.lists(unit, min_size=n, max_size=n)), dtype=np.float64) for _ in range(2))
    return rules, x, w, U, d


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(0, 80), probe=st.sampled_from([0.0, 0.05, 0.1]))
def test_a_chunks_compiled_assignment_and_bids_equal_assign_and_population_bids(data, n, probe):
    """``run_chunk``'s compiled steps give ``bids.assign``'s strategies and ``bids.population_bids``' reported bids
    to the last bit (draws on the slices' edges, bids on the classes' bounds, betas of 0)."""
    rules, x, w, U, d = rules_and_draws(data, n)
    if (x == 0).sum() * probe >= 1:
        probe = 0.0
    lo, hi = bids.population_slices(x, probe)
    d = np.concatenate([lo, hi, d])[:n] if data.draw(st.booleans()) else d  # agents exactly on an edge
    strat = population.slice_assign(d, lo, hi)
    assert strat.dtype == np.int64
    np.testing.assert_array_equal(strat, bids.assign(d, lo, hi))
    betas = population.class_betas(rules)
    reported = population._class_bids(strat, bids.bid_bin_codes(w), w, U, betas)
    np.testing.assert_array_equal(bits(reported), bits(bids.population_bids(rules, strat, w, np.zeros(n), U)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(0, 80), S=st.integers(1, 6))
def test_a_chunks_strategy_sums_equal_bincounts(data, n, S):
    """``run_chunk``'s one-pass sums are ``bincount``'s counts and weighted sums bit for bit, and summing a job's
    utility ``u`` gives the bits of summing ``u + 0.0`` (signed zeros, cancelling values, large and tiny ones)."""
    s = np.array(data.draw(st.lists(st.integers(0, S - 1), min_size=n, max_size=n)), dtype=np.int64)
    pool = st.sampled_from([0.0, -0.0, 1e300, -1e300, 5e-324, 1.0, -1.0]) | st.floats(-1e12, 1e12)
    u, u0 = (np.array(data.draw(st.lists(pool, min_size=n, max_size=n)), dtype=np.float64) for _ in range(2))
    count, su, su0 = population._strategy_sums(s, u, u0, S)
    np.testing.assert_array_equal(count, np.bincount(s, minlength=S))
    np.testing.assert_array_equal(bits(su), bits(np.bincount(s, weights=u + 0.0, minlength=S)))
    np.testing.assert_array_equal(bits(su0), bits(np.bincount(s, weights=u0, minlength=S)))


def test_class_betas_only_for_rules_with_a_beta_for_each_class():
    """The compiled bids serve only rules that shade by a beta per private-bid class (one for each class):
    any other rule goes through ``population_bids``."""
    per_class = [ShadingRule("a", (0.0, 0.5, 0.9)), ShadingRule("b", (0.9, 0.9, 0.9))]
    np.testing.assert_array_equal(population.class_betas(per_class), [[0.0, 0.5, 0.9], [0.9, 0.9, 0.9]])

    class Other:
        betas_by_class = None

    assert population.class_betas([*per_class, Other()]) is None

    class TwoClasses:
        betas_by_class = (0.1, 0.2)

    assert population.class_betas([TwoClasses()]) is None
