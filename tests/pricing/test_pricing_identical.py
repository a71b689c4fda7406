"""Identical resources (``gamemarket.pricing.identical``): a merged problem's allocation split among a
group's members keeps every job's throughput, puts every job on at most two resources, and fits every
member's capacity; the solver's answer through the split carries the merged problem's gap and is
checked against CVXPY + Clarabel."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.pricing import Problem, solve
from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.identical import identical_columns, merged_answer, merged_problem, split_allocation
from pricing_stress import certified_reference, stress_problem


def _random_merged_allocation(rng, n, mm, demand, caps, load):
    """A feasible allocation of a merged problem with ``mm`` resources: each job on one or two of them,
    scaled so that every resource is used ``load`` of its capacity (1.0: exactly full)."""
    j1 = rng.integers(0, mm, n)
    j2 = np.where(rng.random(n) < 0.5, (j1 + rng.integers(1, mm, n)) % mm, -1) if mm > 1 else np.full(n, -1)
    x1 = rng.uniform(0.05, 1.0, n)
    x2 = np.where(j2 >= 0, rng.uniform(0.0, 1.0, n) * (1 - x1), 0.0)
    alloc = Allocation(j1, x1, j2, x2, mm)
    use = alloc.usage(demand)
    scale = np.minimum(1.0, load * caps / np.maximum(use, 1e-300))
    # scale each resource's use down to the load; a job on two resources keeps the smaller factor on both
    # slots' own resources (shares only shrink, so every constraint still holds)
    f1, f2 = scale[j1], np.where(j2 >= 0, scale[np.maximum(j2, 0)], 1.0)
    return Allocation(j1, x1 * f1, j2, x2 * f2, mm)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 60),
    mm=st.integers(1, 4),
    group=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    load=st.sampled_from([0.3, 0.9, 1.0]),
)
def test_split_keeps_throughputs_two_resources_and_capacities(n, mm, group, seed, load):
    rng = np.random.default_rng(seed)
    m = mm + group - 1  # merged resource 0 is the group of resources 0 .. group-1
    members = list(range(group))
    demand = rng.uniform(0.5, 1.5, n)
    R = rng.uniform(0.2, 1.0, m) * max(n, 1) / m
    A = rng.random((n, m)) + 0.1
    A[:, 1:group] = A[:, [0]]
    pr = Problem(A, R, "log", demand=demand)
    groups = identical_columns(A, np.zeros(m))
    assert groups == [members]
    merged, _, index = merged_problem(pr, groups, np.zeros(m))
    alloc = _random_merged_allocation(rng, n, mm, demand, merged.R, load)
    assert check_feasible(merged, alloc) <= 1e-12
    out = split_allocation(pr, alloc, groups, index)
    if out is None:
        # only when some member cannot take a job whole that must stay whole, or a job would span three
        # members: never at low load with jobs smaller than every member
        assert load > 0.3 or (demand.max() > R[:group].min())
        return
    np.testing.assert_allclose(out.throughput(A), alloc.throughput(merged.A), rtol=1e-12, atol=1e-15)
    assert check_feasible(pr, out) <= 1e-9
    assert ((out.j1 >= 0).astype(int) + (out.j2 >= 0)).max() <= 2
    assert ((out.j1 >= -1) & (out.j1 < m) & (out.j2 >= -1) & (out.j2 < m)).all()
    # the group's total use is what the merged resource had; the others are untouched
    np.testing.assert_allclose(out.usage(demand)[:group].sum(), alloc.usage(demand)[0], rtol=1e-12)
    np.testing.assert_allclose(out.usage(demand)[group:], alloc.usage(demand)[1:], rtol=1e-12)


@pytest.mark.parametrize(
    "n,m,utility,seed",
    [(100, 4, "linear", 0), (10, 2, "alpha:0.5", 1), (100, 4, "alpha:2", 1), (100, 4, "alpha:5", 1)],
)
@pytest.mark.slow
def test_tied_stress_members_converge_through_the_split(n, m, utility, seed):
    """Stress-family members that stopped above the gap when the original problem was solved on from the
    merged prices (the benchmark's list before the split)."""
    pr = stress_problem(n, m, utility, seed, tied=True)
    r = solve(pr)
    assert r.converged, r.message
    assert "split among them" in r.message
    assert check_feasible(pr, r.allocation) <= 1e-9
    assert r.gap == pytest.approx(r.dual - r.objective) and r.gap <= max(1e-3 * n, 1e-7 * abs(r.objective))
    ref = certified_reference(pr)
    if ref is not None:
        slack = 1e-7 * max(abs(ref[0]), abs(ref[1]), 1.0)
        assert r.dual >= ref[0] - slack and r.objective <= ref[1] + slack


def test_split_drops_zero_shares_on_the_group_and_moves_past_a_full_member():
    """A zero share on the merged resource loses its index, in either slot; a job alone on the group that
    finds the current member full goes whole to the next one (not split with a zero head on the full one)."""
    A = np.array([[1.0, 1.0, 2.0]] * 4)
    pr = Problem(A, np.array([1.0, 1.0, 10.0]), "log")
    groups = identical_columns(A, np.zeros(3))
    assert groups == [[0, 1]]
    merged, _, index = merged_problem(pr, groups, np.zeros(3))  # merged 0: the group; merged 1: resource 2
    alloc = Allocation(
        np.array([0, 0, 1, 0]),
        np.array([1.0, 1.0, 0.5, 0.0]),
        np.array([-1, -1, 0, 1]),
        np.array([0.0, 0.0, 0.0, 0.5]),
        2,
    )
    out = split_allocation(pr, alloc, groups, index)
    assert out is not None
    assert out.j1.tolist() == [0, 1, 2, -1] and out.x1.tolist() == [1.0, 1.0, 0.5, 0.0]
    assert out.j2.tolist() == [-1, -1, -1, 2] and out.x2.tolist() == [0.0, 0.0, 0.0, 0.5]
    assert check_feasible(pr, out) <= 1e-12


def test_the_merged_answer_is_taken_only_where_it_splits_and_meets_the_rule():
    """``merged_answer``: the merged problem's answer as the original's, its gap recomputed; None where the
    stopping rule is missed or the allocation cannot be split (a job too large for any member)."""
    rng = np.random.default_rng(3)
    A = rng.random((30, 4)) + 0.1
    A[:, 1] = A[:, 0]
    pr = Problem(A, np.full(4, 8.0), "log")
    lo = np.zeros(4)
    groups = identical_columns(A, lo)
    merged, lo_m, index = merged_problem(pr, groups, lo)
    warm = solve(merged, p_min=lo_m)
    assert warm.converged
    out = merged_answer(pr, warm, groups, index, lo, (lambda objective: np.inf, "any gap"), 0.0)
    assert out is not None and out.converged and out.objective == pytest.approx(warm.objective, rel=1e-12)
    assert out.message.startswith("duality gap") and out.message.endswith("their use split among them)")
    assert check_feasible(pr, out.allocation) <= 1e-9
    assert merged_answer(pr, warm, groups, index, lo, (lambda objective: -np.inf, "no gap"), 0.0) is None
    big = Allocation(
        np.zeros(30, np.int64), np.r_[0.9, np.zeros(29)], np.r_[1, -np.ones(29, np.int64)], np.r_[0.1, np.zeros(29)], 3
    )
    whole = SimpleNamespace(allocation=big, prices=warm.prices, iterations=0, evaluations=0, rows=[])
    pr_small = Problem(A, np.array([0.5, 0.5, 8.0, 8.0]), "log")  # job 0 uses 0.9 of the group: no member fits it
    assert merged_answer(pr_small, whole, groups, index, lo, (lambda objective: np.inf, "any gap"), 0.0) is None


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 30),
    group=st.integers(2, 40),
    seed=st.integers(0, 2**32 - 1),
    load=st.sampled_from([0.5, 0.99, 1.0]),
)
def test_a_job_larger_than_the_members_spans_them_through_the_extra_shares(n, group, seed, load):
    """Hunt 29c-F2: 50 jobs of throughput 1 on 300 identical resources of a third each could not be split (each
    spans three members), and the solve on the original problem stalled at a third of the optimum. Members far
    smaller than the jobs: the split keeps every job's time on the group, every capacity, and puts what two slots
    cannot hold in ``extra``; it fails only where the group is over-full."""
    rng = np.random.default_rng(seed)
    demand = rng.uniform(0.5, 1.5, n)
    R = np.full(group, rng.uniform(0.05, 0.4))  # a member holds under half of any job
    pr = Problem(np.ones((n, group)), R, "log", demand=demand)
    groups = identical_columns(pr.A, np.zeros(group))
    merged, _, index = merged_problem(pr, groups, np.zeros(group))
    x = rng.uniform(0.1, 1.0, n)
    x *= min(1.0, load * merged.R[0] / float(demand @ x))
    alloc = Allocation(np.zeros(n, np.int64), x, np.full(n, -1), np.zeros(n), 1)
    assert check_feasible(merged, alloc) <= 1e-12
    out = split_allocation(pr, alloc, groups, index)
    assert out is not None
    np.testing.assert_allclose(out.throughput(pr.A), alloc.throughput(merged.A), rtol=1e-12, atol=1e-15)
    assert check_feasible(pr, out) <= 1e-9
    np.testing.assert_allclose(out.dense().sum(axis=1), x, rtol=1e-12)


def test_identical_jobs_on_many_small_identical_resources_reach_the_optimum():
    # hunt 29c-F2 itself: the optimum is 0 (every job gets throughput 1), and the dual bound said so
    for m in (300, 1000):
        pr = Problem(np.ones((50, m)), np.full(m, 100 / m), "log")
        r = solve(pr)
        assert r.converged and abs(r.objective) <= 1e-9 and check_feasible(pr, r.allocation) <= 1e-9, r.message


def test_groups_of_identical_resources_are_said_in_a_few_words():
    # hunt 29c-W3: one group of 10,000 indices made the converged line 59 KB long
    from gamemarket.pricing.identical import groups_text

    assert groups_text([list(range(300))]) == "[0-299]"
    assert groups_text([[1, 4], [2, 5, 7]]) == "[1, 4]; [2, 5, 7]"
    assert groups_text([list(range(0, 40, 2))]) == "[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, ... (20 in all)]"
    assert groups_text([[2 * k, 2 * k + 1] for k in range(12)]).endswith("; ... (12 groups in all)")
    pr = Problem(np.ones((50, 1000)), np.full(1000, 0.1), "log")
    assert "identical resources [0-999] priced as one" in solve(pr).message
