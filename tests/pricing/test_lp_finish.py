"""The exact finish for piecewise-linear utilities (``gamemarket.pricing.lp_finish``): from any prices,
column generation reaches the optimum of the whole linear program, checked against that program solved
whole by HiGHS (a plain reference), with price floors; and the solver converges through it on the
stress-family members that used to stop above the gap."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import linprog

from gamemarket.pricing import Problem, solve
from gamemarket.pricing.allocation import check_feasible
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.lp_finish import lp_finish
from pricing_stress import certified_reference, stress_problem


def whole_lp_optimum(pr: Problem, lo: np.ndarray) -> float:
    """max sum_i u_i(t_i) + lo^T (R - X^T d) over every x_ij: the reference, one LP with all n m columns
    (and for the target utility a shortfall variable per job)."""
    n, m = pr.shape
    u, d = pr.utility, pr.demand
    rows, cols = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    a = pr.A[rows, cols]
    time_rows = sparse.coo_matrix((np.ones(n * m), (rows, np.arange(n * m))), shape=(n, n * 2 * m))
    if u.name == "linear":
        c = -(u.w[rows] * a - lo[cols] * d[rows])
        A_ub = sparse.vstack(
            [time_rows.tocsr()[:, : n * m], sparse.coo_matrix((d[rows], (cols, np.arange(n * m))), shape=(m, n * m))]
        )
        res = linprog(c, A_ub=A_ub, b_ub=np.r_[np.ones(n), pr.R], bounds=(0, None), method="highs")
        return -res.fun + float(lo @ pr.R)
    # target: maximize -sum w s_i with s_i >= t_des_i - a_i^T x_i, s_i >= 0
    c = np.r_[lo[cols] * d[rows], u.w]
    shortfall = sparse.hstack([-sparse.coo_matrix((a, (rows, np.arange(n * m))), shape=(n, n * m)), -sparse.eye(n)])
    A_ub = sparse.vstack(
        [
            sparse.hstack([time_rows.tocsr()[:, : n * m], sparse.csr_matrix((n, n))]),
            sparse.hstack(
                [sparse.coo_matrix((d[rows], (cols, np.arange(n * m))), shape=(m, n * m)), sparse.csr_matrix((m, n))]
            ),
            shortfall,
        ]
    )
    res = linprog(c, A_ub=A_ub, b_ub=np.r_[np.ones(n), pr.R, -u.t_des], bounds=(0, None), method="highs")
    return -res.fun + float(lo @ pr.R)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 40),
    m=st.integers(1, 6),
    utility=st.sampled_from(["linear", "target"]),
    seed=st.integers(0, 2**32 - 1),
    zeros=st.sampled_from([0.0, 0.3]),
    capacity=st.sampled_from([0.3, 1.0, 3.0]),
    floors=st.booleans(),
    start=st.sampled_from(["zero", "guess", "random"]),
)
def test_finish_reaches_the_whole_programs_optimum(n, m, utility, seed, zeros, capacity, floors, start):
    pr = stress_problem(n, m, utility, seed, zeros=zeros, capacity=capacity)
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0.0, 0.5, m) * (rng.random(m) < 0.5) if floors else np.zeros(m)
    A = np.ascontiguousarray(pr.A)
    p = {"zero": np.zeros(m), "guess": pr.utility.initial_price(A, pr.R), "random": rng.exponential(1.0, m)}[start]
    f = lp_finish(pr, A, sort_efficiencies(A), np.maximum(p, lo), lo, rounds=50, target_gap=0.0)
    assert f is not None
    alloc = f.allocation
    assert check_feasible(pr, alloc) <= 1e-9
    assert ((alloc.j1 >= 0).astype(int) + (alloc.j2 >= 0)).max() <= 2
    on = (alloc.dense() > 0).sum(axis=1)
    assert int((on >= 3).sum()) == f.on_three  # beyond two slots only where it says so
    assert (f.prices >= lo).all()
    # what it reports is what it holds: the objective of its allocation, the dual at its prices
    t = alloc.throughput(A)
    assert f.objective == pytest.approx(
        float(np.sum(pr.utility.value(t))) + float(lo @ (pr.R - alloc.usage(pr.demand)))
    )
    assert f.dual == pytest.approx(evaluate(pr, f.prices, sort_efficiencies(A), A)[0], rel=1e-12, abs=1e-12)
    ref = whole_lp_optimum(pr, lo)
    scale = max(1.0, abs(ref))
    assert f.dual >= ref - 1e-7 * scale  # a dual bound is never below the optimum
    assert f.objective <= ref + 1e-7 * scale  # nor a feasible allocation above it
    # and both reach it
    assert f.dual <= ref + 1e-6 * scale
    assert f.objective >= ref - 1e-6 * scale


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 40),
    m=st.integers(2, 5),
    utility=st.sampled_from(["log", "alpha:0.5", "alpha:2", "alpha:5"]),
    seed=st.integers(0, 2**32 - 1),
    capacity=st.sampled_from([0.3, 1.0, 3.0]),
)
@pytest.mark.slow
def test_tangent_finish_is_feasible_and_bounds_the_optimum(n, m, utility, seed, capacity):
    """Smooth utilities: the finish works on tangent cuts (an outer approximation), so its program's value
    is not the answer; what it reports is measured on the real utility, and bounds the optimum both ways."""
    pr = stress_problem(n, m, utility, seed, capacity=capacity)
    A = np.ascontiguousarray(pr.A)
    order = sort_efficiencies(A)
    p0 = solve(pr, max_iter=5).prices  # rough prices: the finish must still be sound from there
    f = lp_finish(pr, A, order, p0, np.zeros(m), rounds=30)
    if f.allocation is None:
        assert "HiGHS" in f.message
        return
    alloc = f.allocation
    assert check_feasible(pr, alloc) <= 1e-9
    assert int(((alloc.dense() > 0).sum(axis=1) >= 3).sum()) == f.on_three
    assert f.objective == pytest.approx(float(np.sum(pr.utility.value(alloc.throughput(A)))))
    assert f.dual == pytest.approx(evaluate(pr, f.prices, order, A)[0], rel=1e-12)
    assert f.dual >= f.objective - 1e-9 * max(1.0, abs(f.dual))
    ref = certified_reference(pr)
    if ref is not None:
        slack = 1e-7 * max(abs(ref[0]), abs(ref[1]), 1.0)
        assert f.dual >= ref[0] - slack and f.objective <= ref[1] + slack


@pytest.mark.parametrize(
    "utility,seed,kw", [("alpha:50", 966145, {}), ("alpha:20", 967792, {"capacity": 0.3, "zeros": 0.3, "tied": True})]
)
def test_tangent_finish_solves_programs_of_costs_beyond_what_highs_reads_as_finite(utility, seed, kw):
    """Alpha-fair utilities of large alpha give the restricted program costs like ``t^(1-alpha)`` (1e61 at
    alpha = 50), where HiGHS reads 1e20 as infinite and answered "unknown" for the whole program; and Kelley
    cuts steep as ``t^-alpha``, whose coefficients of 1e51 it refused ("model error"). Both stopped every such
    finish before its first round. The costs are now divided by a power of two and the cuts kept in range."""
    pr = stress_problem(48, 4, utility, seed, **kw)
    A = np.ascontiguousarray(pr.A)
    order = sort_efficiencies(A)
    f = lp_finish(pr, A, order, pr.utility.initial_price(A, pr.R), np.zeros(4), rounds=20)
    assert f.allocation is not None and f.rounds >= 1, f.message
    assert "HiGHS" not in f.message  # no round's program was refused
    assert check_feasible(pr, f.allocation) <= 1e-9
    assert f.objective == pytest.approx(float(np.sum(pr.utility.value(f.allocation.throughput(A)))), rel=1e-12)
    assert f.dual == pytest.approx(evaluate(pr, f.prices, order, A)[0], rel=1e-12)
    assert f.dual >= f.objective - 1e-9 * abs(f.dual)
    if seed == 966145:  # from the utility's guess to the stopping rule's relative gap, in the finish alone
        assert f.dual - f.objective <= 1e-7 * abs(f.objective), f.message


@pytest.mark.parametrize(
    "n,m,utility,seed,kw",
    [
        (100, 4, "linear", 1, {"zeros": 0.3}),
        (1000, 8, "linear", 1, {}),
        (1000, 8, "target", 1, {"capacity": 0.3}),
        (10_000, 16, "target", 0, {"zeros": 0.3}),  # stopped at gap 174 against eps 10 after 80 s
    ],
)
@pytest.mark.slow
def test_stress_members_converge_through_the_finish(n, m, utility, seed, kw):
    pr = stress_problem(n, m, utility, seed, **kw)
    r = solve(pr)
    assert r.converged, r.message
    assert check_feasible(pr, r.allocation) <= 1e-9
    assert r.gap == pytest.approx(r.dual - r.objective) and r.gap <= 1e-3 * n
    if n <= 1000:
        lower, upper = certified_reference(pr)
        slack = 1e-7 * max(abs(lower), abs(upper), 1.0)
        assert r.dual >= lower - slack and r.objective <= upper + slack
