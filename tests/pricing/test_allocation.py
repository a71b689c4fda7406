"""An allocation with shares beyond its two slots (``Allocation.extra``): every method counts them, checked
against the dense matrix."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.pricing import Problem
from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.repair import make_feasible


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 30), m=st.integers(3, 6), seed=st.integers(0, 2**32 - 1), load=st.sampled_from([0.5, 2.0]))
def test_extra_shares_count_everywhere(n, m, seed, load):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, m))
    for i in range(n):  # each job on 0 to m resources, time at most 1
        k = int(rng.integers(0, m + 1))
        cols = rng.choice(m, k, replace=False)
        X[i, cols] = rng.dirichlet(np.ones(k)) * rng.uniform(0.2, 1.0) if k else 0.0
    # the representation: two largest in the slots, the rest as extras
    order = np.argsort(-X, axis=1, kind="stable")
    rows = np.arange(n)
    j1, j2 = order[:, 0], order[:, 1]
    x1, x2 = X[rows, j1], X[rows, j2]
    j1, j2 = np.where(x1 > 0, j1, -1), np.where(x2 > 0, j2, -1)
    er, ec = np.nonzero(X * (np.argsort(order, axis=1) >= 2))
    alloc = Allocation(j1, x1, j2, x2, m, (er, ec, X[er, ec]) if len(er) else None)
    A = rng.exponential(1.0, (n, m))
    d = rng.uniform(0.5, 1.5, n)
    p = rng.exponential(1.0, m)
    np.testing.assert_allclose(alloc.dense(), X, atol=1e-15)
    np.testing.assert_allclose(alloc.throughput(A), (A * X).sum(axis=1), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(alloc.usage(d), d @ X, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(alloc.time(), X.sum(axis=1), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(alloc.spend(p), X @ p, rtol=1e-12, atol=1e-15)
    # capacities at ``load`` times the use: make_feasible scales every share of an over-used resource
    R = np.maximum(d @ X / load, 1e-3)
    pr = Problem(np.maximum(A, 1e-3), R, "log", demand=d)
    feas = make_feasible(pr, alloc)
    assert check_feasible(pr, feas) <= 1e-9
    use = d @ X
    f = np.where(use > R, R / np.maximum(use, 1e-300), 1.0)
    np.testing.assert_allclose(
        feas.dense(), X * f[None, :] * np.where(use > R, 1 - 1e-12, 1.0)[None, :], rtol=1e-9, atol=1e-15
    )
