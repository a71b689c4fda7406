"""The torch backend equals the numpy/numba path (skipped where PyTorch is not installed)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.pricing import Problem, solve, synthetic
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies

torch = pytest.importorskip(
    "torch", reason="PyTorch (extra 'torch') is not installed: the torch backend is untested here"
)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 200),
    m=st.integers(1, 9),
    spec=st.sampled_from(["log", "linear", "target", "alpha:0.5", "alpha:3"]),
    seed=st.integers(0, 10**6),
    mu=st.sampled_from([0.0, 0.01]),
)
def test_torch_evaluation_equals_numba(n, m, spec, seed, mu):
    from gamemarket.pricing.torch_backend import TorchEvaluator

    rng = np.random.default_rng(seed)
    A = rng.random((n, m)) * (rng.random((n, m)) > 0.25)
    A[:, 0] += 0.01
    if m > 2 and seed % 3 == 0:
        A[:, 2] = A[:, 1]  # identical columns: ties in the hull
    R, weight, target = rng.uniform(0.1, 1, m) * n, rng.uniform(0.5, 2, n), rng.uniform(0.1, 0.5, n)
    pr = Problem(A, R, spec, weight=weight, target=target if spec == "target" else None)
    if spec not in ("linear", "target"):
        mu = 0.0
    pr.utility.mu = mu
    p = rng.uniform(0, 3, m) * (rng.random(m) > 0.2)
    ref = evaluate(pr, p, sort_efficiencies(A), A)
    got = TorchEvaluator(pr, "cpu")(p, mu)
    assert got[0] == pytest.approx(ref[0], rel=1e-10, abs=1e-10)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(got[3], ref[3], rtol=1e-10, atol=1e-12)


def test_torch_solve_equals_numpy_solve():
    pr = synthetic(5000, 6, "log", seed=4)
    a = solve(pr)
    b = solve(synthetic(5000, 6, "log", seed=4), backend="torch")
    assert b.converged
    assert b.objective == pytest.approx(a.objective, rel=1e-9)
    np.testing.assert_allclose(b.prices, a.prices, rtol=1e-8)


def test_torch_solve_large_alpha():
    """The ties and log-price machinery run on the torch backend's evaluations too."""
    rng = np.random.default_rng(7)
    A = rng.random((400, 6)) + 0.05
    R = rng.uniform(0.2, 1, 6) * 400 / 6
    a = solve(Problem(A, R, "alpha:20"), max_iter=300)
    b = solve(Problem(A, R, "alpha:20"), max_iter=300, backend="torch")
    assert a.converged and b.converged
    assert b.objective == pytest.approx(a.objective, rel=1e-7)
    np.testing.assert_allclose(b.prices, a.prices, rtol=1e-5)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_torch_cuda_equals_cpu():
    pr = synthetic(20000, 8, "log", seed=5)
    a = solve(pr, backend="torch", device="cpu")
    b = solve(synthetic(20000, 8, "log", seed=5), backend="torch", device="cuda")
    assert b.objective == pytest.approx(a.objective, rel=1e-8)
