"""The polish (``gamemarket.pricing.polish``: a Newton step in the allocation along envelope segments) against
its plain reference, its Hessian against the dual's own, and the certified default rule of the solver (issue
31): the gap recomputed from scratch, every constraint checked on the dense allocation."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gamemarket.errors import limit_clock  # (deadlines are read on the limit clock: numba compiling aside)
from gamemarket.pricing import Problem, solve, synthetic
from gamemarket.pricing import polish as pol
from gamemarket.pricing import ties as tie
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.repair import make_feasible
from pricing_reference import polish_reference

SMOOTH = ["log", "alpha:0.5", "alpha:2", "alpha:5"]


def _market(n, m, spec, seed, scale):
    rng = np.random.default_rng(seed)
    A = rng.uniform(0.05, 1.0, (n, m)) * np.linspace(0.4, 1.0, m)
    A[rng.random((n, m)) < 0.15] = 0.0
    A[:, 0] = np.maximum(A[:, 0], 0.05)
    demand = rng.uniform(0.5, 1.5, n)
    R = rng.uniform(0.3, 1.0, m) * demand.sum() / m
    pr = Problem(A, R, spec, demand=demand, weight=rng.uniform(0.5, 2.0, n))
    p = rng.uniform(0.2, 1.0, m) * scale
    return pr, p


@settings(max_examples=100, deadline=None)
@given(
    # many jobs over a few resources, and a few jobs over many: the step is solved on the resources the moving jobs
    # touch (hunt 24b-F3: 30 jobs over 3,000 resources solved 3,000 x 3,000 systems), still the reference's over all m
    shape=st.one_of(st.tuples(st.integers(1, 60), st.integers(1, 6)), st.tuples(st.integers(1, 6), st.integers(8, 40))),
    spec=st.sampled_from(SMOOTH),
    seed=st.integers(0, 10**6),
    scale=st.sampled_from([0.3, 1.0, 3.0]),
)
def test_polish_equals_its_plain_reference(shape, spec, seed, scale):
    n, m = shape
    pr, p = _market(n, m, spec, seed, scale)
    A = np.ascontiguousarray(pr.A)
    _, _, alloc, t = evaluate(pr, p, sort_efficiencies(A), A)
    ts = tie.find_ties(A, pr.demand, p, alloc.j1, alloc.x1, alloc.j2, alloc.x2, t)
    assume(len(ts) == 0)  # the reference has no tie mixing
    out = pol.polish(pr, p, alloc, t, A, np.zeros(m))
    assert out is not None
    got, moves = out
    X, ref_moves = polish_reference(pr, p, alloc, t, A, pol.ROUNDS)
    np.testing.assert_allclose(got.dense(), X, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(moves, ref_moves, rtol=1e-7, atol=1e-9 * max(1.0, float(np.abs(ref_moves).max())))
    # a valid allocation: shares in [0, 1] summing to at most 1, jobs on the resources x(p) gave them
    G = got.dense()
    assert G.min() >= 0 and G.sum(axis=1).max() <= 1 + 1e-12
    assert ((G > 0) <= (alloc.dense() > 0)).all()
    feas = make_feasible(pr, got)
    assert feas.dense().min() >= 0 and (feas.dense().T @ pr.demand <= pr.R * (1 + 1e-9)).all()


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(1, 6), spec=st.sampled_from(SMOOTH), seed=st.integers(0, 10**6))
def test_polish_hessian_is_the_duals(n, m, spec, seed):
    """The polish's Hessian over every interior job is the dual's exact Hessian (``evaluate``, computed apart)."""
    pr, p = _market(n, m, spec, seed, 1.0)
    A = np.ascontiguousarray(pr.A)
    _, _, alloc, t, H = evaluate(pr, p, sort_efficiencies(A), A, hessian=True)
    a1, a2, inside = pol._segments(A, alloc.j1, alloc.j2, alloc.x2)
    ix = np.flatnonzero(inside)
    s1, s2 = alloc.j1[ix].astype(np.int64), alloc.j2[ix].astype(np.int64)
    width, d = a2[ix] - a1[ix], pr.demand[ix]
    pe = np.append(p, 0.0)
    slope = np.ones(n)
    slope[ix] = d * (pe[s2] - pe[s1]) / width
    hp = pr.utility.best_response_slope(slope)[ix]
    k = -hp * d**2 / width**2
    ours = pol._hessian(s1, s2, k, np.isfinite(k) & (k > 0), m)
    np.testing.assert_allclose(ours, H, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(H).max())))


def test_polish_closes_the_misfit_without_clipping():
    """Near the optimum no move leaves its segment: one Newton step brings the usage to the capacities (to
    rounding), at a loss of second order, far below the greedy repair's first-order one."""
    from gamemarket.pricing.repair import repair

    pr = synthetic(20000, 8, "log", seed=1)
    r = solve(pr, eps=1.0)
    A = np.ascontiguousarray(pr.A)
    dual, _, alloc, t = evaluate(pr, r.prices, sort_efficiencies(A), A)
    got, _ = pol.polish(pr, r.prices, alloc, t, A, np.zeros(8))
    priced = r.prices > 0  # a resource at price 0 keeps its slack (it costs nothing); none is over-used

    def miss(al):
        w = pr.R - al.usage(pr.demand)
        return max(float(np.abs(w[priced]).max()), float(np.maximum(-w, 0).max()))

    assert priced.any() and miss(alloc) > 0.1  # x(p) misses by a part of a job
    assert miss(got) <= 1e-6 * miss(alloc) + 1e-9 * pr.R.max()

    def gap(al):
        al = make_feasible(pr, al)
        return dual - float(np.sum(pr.utility.value(al.throughput(A))))

    assert gap(got) <= 0.1 * gap(repair(pr, alloc, A))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(5, 400),
    m=st.integers(1, 8),
    spec=st.sampled_from(["log", "alpha:0.5", "alpha:2"]),
    seed=st.integers(0, 10**6),
)
@pytest.mark.slow
def test_default_certifies_or_says_not_converged(n, m, spec, seed):
    """Under the default rule a strictly concave problem either certifies gap <= 1e-6 |objective| (floored at
    1e-8 n), the gap recomputed from scratch (the dual at the returned prices, the utility of the returned
    allocation), or says it stopped short; the dense allocation meets every constraint."""
    from gamemarket.pricing.solver import default_target

    pr, _ = _market(n, m, spec, seed, 1.0)
    r = solve(pr)
    A = np.ascontiguousarray(pr.A)
    X = r.allocation.dense()
    assert X.min() >= 0 and X.sum(axis=1).max() <= 1 + 1e-9
    assert (X.T @ pr.demand <= pr.R * (1 + 1e-9)).all()
    dual = evaluate(pr, r.prices, sort_efficiencies(A), A)[0]
    primal = float(np.sum(pr.utility.value((A * X).sum(axis=1))))
    assert dual == pytest.approx(r.dual, rel=1e-9, abs=1e-9) and primal == pytest.approx(r.objective, rel=1e-9)
    target = default_target(n, 1e-7, primal - pr.utility.offset())  # read without the constant part
    if r.converged:
        assert dual - primal <= target * (1 + 1e-9) + 1e-12
        assert "relative" in r.message
    else:
        assert r.message.startswith("stopped after") and dual - primal > target


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 12), seed=st.integers(0, 10**6), cols=st.integers(1, 4))
def test_the_tie_metric_on_touched_resources_is_the_dense_factor(m, seed, cols):
    """``ties.metric``'s block form against the dense ``cholesky(inv(H + reg I))`` it replaced, for Hessians whose
    rows outside a random set of resources are zero (every order of touched and untouched ones)."""
    rng = np.random.default_rng(seed)
    on = np.flatnonzero(rng.random(m) < 0.5)
    H = np.zeros((m, m))
    if len(on):
        B = rng.normal(size=(len(on), len(on)))
        H[np.ix_(on, on)] = B @ B.T + 0.1 * np.eye(len(on))
    X = rng.normal(size=(m, cols))
    got = tie.metric(H, m).transpose_times(X)
    if np.trace(H) > 0:
        dense = np.linalg.cholesky(np.linalg.inv(H + (1e-10 * np.trace(H) / m) * np.eye(m)))
    else:
        dense = np.eye(m)
    np.testing.assert_allclose(got, dense.T @ X, rtol=1e-7, atol=1e-9 * float(np.abs(dense.T @ X).max()))


def test_the_polish_is_left_out_past_its_memory_or_its_time():
    """The step over ``k`` resources is not begun where its ``k x k`` Hessian exceeds ``max_resources`` (the solver's
    memory limit) or its solves would run past ``deadline`` (hunt 24b-F3: 33 s past a 1 s limit, 349 MB under a
    60 MB one)."""

    pr, p = _market(30, 6, "log", 3, 1.0)
    A = np.ascontiguousarray(pr.A)
    _, _, alloc, t = evaluate(pr, p, sort_efficiencies(A), A)
    assert pol.polish(pr, p, alloc, t, A, np.zeros(6)) is not None
    assert pol.polish(pr, p, alloc, t, A, np.zeros(6), max_resources=1) is None
    assert pol.polish(pr, p, alloc, t, A, np.zeros(6), deadline=limit_clock() - 1.0) is None
    assert pol.polish(pr, p, alloc, t, A, np.zeros(6), max_resources=6, deadline=limit_clock() + 60) is not None
