"""Resources of capacity 0 (pricing model section 1: ``R`` in ``R^m_+``): no job is put on one, the optimum is the
whole program's (checked against CVXPY), and the prices clear the whole market (no best response uses such a
resource)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.pricing import Problem, solve
from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from pricing_reference import cvx_optimum

UTILITIES = ["log", "linear", "target", "alpha:2", "alpha:0.5"]


def _problem(spec, seed, n=60, m=5, empty=(1, 3)):
    rng = np.random.default_rng(seed)
    A = rng.random((n, m))
    R = rng.uniform(0.2, 1, m) * n / m
    R[list(empty)] = 0.0
    kw = dict(target=rng.uniform(0.1, 0.5, n), weight=rng.uniform(0.5, 2, n), demand=rng.uniform(0.5, 1.5, n))
    if spec != "target":  # targets belong to the target utility alone
        kw.pop("target")
    return Problem(A, R, spec, **kw)


def _best_response_use(pr, prices):
    """Each resource's use by the jobs' best responses to ``prices`` (the unsmoothed subproblems)."""
    whole = copy.copy(pr)
    whole.utility = copy.copy(pr.utility)
    whole.utility.mu = 0.0
    A = np.ascontiguousarray(pr.A, dtype=np.float64)
    dual, _, alloc, _ = evaluate(whole, prices, sort_efficiencies(A), A)
    return alloc.usage(pr.demand), dual


@settings(max_examples=15, deadline=None)
@given(
    spec=st.sampled_from(UTILITIES),
    seed=st.integers(0, 10_000),
    empty=st.sets(st.integers(0, 4), min_size=1, max_size=4).map(sorted),
    floors=st.booleans(),
)
def test_a_zero_capacity_resource_goes_unused_and_its_price_clears(spec, seed, empty, floors):
    pr = _problem(spec, seed, empty=empty)
    lo = np.full(5, 0.05) if floors else None
    r = solve(pr, p_min=lo)
    assert r.converged, r.message
    assert check_feasible(pr, r.allocation) <= 1e-9
    X = r.allocation.dense()
    assert (X[:, empty] == 0).all()
    assert r.dual >= r.objective - 1e-9 * abs(r.objective)
    use, _ = _best_response_use(pr, r.prices)
    assert (use[empty] == 0).all()  # at these prices no job's best response asks for a resource of capacity 0
    if lo is not None:
        assert (r.prices >= lo).all()
    assert "capacity 0" in r.message


cp = pytest.importorskip("cvxpy", reason="cvxpy (a test extra) is not installed")


@pytest.mark.parametrize("spec", UTILITIES)
def test_the_optimum_is_the_whole_programs(spec):
    pr = _problem(spec, 7, n=200)
    r = solve(pr)
    ref, _ = cvx_optimum(pr)
    scale = abs(ref)
    assert r.objective <= ref + 1e-6 * scale and r.dual >= ref - 1e-6 * scale
    assert r.gap == pytest.approx(r.dual - r.objective)


@pytest.mark.parametrize("spec", ["linear", "target"])
def test_every_resource_of_capacity_0_allocates_nothing_with_a_gap_of_0(spec):
    pr = _problem(spec, 3, empty=range(5))
    r = solve(pr)
    assert r.converged and np.all(r.allocation.dense() == 0) and np.all(r.throughput == 0)
    use, dual = _best_response_use(pr, r.prices)
    assert (use == 0).all()
    assert r.objective == pytest.approx(float(np.sum(pr.utility.value(np.zeros(pr.shape[0])))))
    assert r.gap == pytest.approx(0.0, abs=1e-9 * max(1.0, abs(r.objective)))


def test_an_unbounded_value_of_an_empty_resource_is_named():
    """alpha < 1: ``u'(0)`` is infinite, so a job left at throughput 0 would pay any finite price for a resource of
    capacity 0; no finite price clears the market, and the error says which resource and job."""
    with pytest.raises(InputError, match=r"resource 0 has capacity 0, and job 0, .* no finite price"):
        solve(_problem("alpha:0.5", 3, empty=range(5)))


def test_a_job_that_could_only_use_empty_resources_is_named():
    with pytest.raises(InputError, match="job 1 has no positive efficiency on a resource of capacity > 0"):
        Problem([[1.0, 0.0], [0.0, 1.0]], [1.0, 0.0], "log")
    with pytest.raises(InputError, match="finite and >= 0"):
        Problem([[1.0, 1.0]], [1.0, -0.5], "log")


def test_feasibility_counts_any_use_of_a_resource_of_capacity_0():
    pr = Problem([[1.0, 1.0]], [1.0, 0.0], "linear")
    alloc = Allocation(np.array([1]), np.array([0.25]), np.array([-1]), np.array([0.0]), 2)
    assert check_feasible(pr, alloc) == pytest.approx(0.25)


@pytest.mark.parametrize("mechanism", ["clearing", "clearing-reserve", "posted", "pay-as-bid"])
def test_every_pricing_market_mechanism_sells_nothing_of_a_resource_of_capacity_0(mechanism):
    from gamemarket.market.pricing_market import run

    rng = np.random.default_rng(5)
    n = 40
    A = rng.random((n, 3))
    R = np.array([8.0, 0.0, 6.0])
    bids = rng.uniform(0.5, 2.0, n)
    out = run(A, R, bids, bids, np.zeros(n, np.int64), mechanism, params={"reserve": 0.1})
    jobs = out.jobs
    on_1 = ((jobs["j1"] == 1) & (jobs["x1"] > 0)) | ((jobs["j2"] == 1) & (jobs["x2"] > 0))
    assert not on_1.any() and (jobs["payment"] >= 0).all()
    assert np.isfinite(out.summary["utilization"]) and 0 < out.summary["utilization"] <= 1 + 1e-9


def test_a_market_file_of_no_capacity_at_all_is_refused(tmp_path):
    from gamemarket.market.pricing_market import load_market

    path = tmp_path / "m.npz"
    np.savez(path, A=np.ones((3, 2)), R=np.zeros(2))
    with pytest.raises(InputError, match=r"m.npz: every resource has capacity 0 \(R\)"):
        load_market(path)
