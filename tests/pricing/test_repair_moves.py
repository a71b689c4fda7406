"""The repair's moves at the same throughput (``repair._move_to_slack``) visit only the resources a job on an
over-subscribed one can move load to (hunt 22b-W1: 50 jobs over 10,000 resources spent 27 s a repair visiting every
one); checked here against the plain reference that visits every resource, move for move."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.problem import Problem, synthetic
from gamemarket.pricing.repair import _move_slot, _move_to_slack, _usage


def _reference(problem, A, js, xs, use):
    """The moves as they were: every resource with slack visited, in order of slack, for each over-subscribed one."""
    R = problem.R
    spare = 1.0 - (xs[0] + xs[1])
    for r in np.argsort(-(use - R) / R):
        if use[r] - R[r] <= 1e-12 * R[r]:
            continue
        on_r = np.flatnonzero((js[0] == r) | (js[1] == r))
        for k in np.argsort(-(R - use) / R):
            if use[r] - R[r] <= 1e-12 * R[r]:
                break
            if k == r or R[k] - use[k] <= 1e-12 * R[k]:
                continue
            for sl in (0, 1):
                _move_slot(problem, A, js, xs, spare, use, on_r, r, k, sl)
        use = _usage(js, xs, problem.demand, A.shape[1])
    return use


def _both(pr: Problem, scale: float):
    A = np.ascontiguousarray(pr.A, dtype=np.float64)
    alloc = evaluate(pr, pr.utility.initial_price(A, pr.R) * scale, sort_efficiencies(A), A)[2]
    out = []
    for moves in (_move_to_slack, _reference):
        js, xs = [alloc.j1.copy(), alloc.j2.copy()], [alloc.x1.copy(), alloc.x2.copy()]
        use = moves(pr, A, js, xs, _usage(js, xs, pr.demand, A.shape[1]))
        out.append((js, xs, use))
    return out


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 60),
    m=st.integers(2, 40),
    utility=st.sampled_from(["linear", "log", "target"]),
    seed=st.integers(0, 10_000),
    scale=st.sampled_from([0.05, 0.3, 0.5, 1.0]),
)
def test_the_moves_are_those_of_visiting_every_resource(n, m, utility, seed, scale):
    m = min(m, n)  # (the synthetic family holds at most its capacity floor of resources)
    pr = synthetic(n, m, utility, seed=seed)
    (js, xs, use), (rjs, rxs, ruse) = _both(pr, scale)
    for a, b in zip(js + xs + [use], rjs + rxs + [ruse]):
        assert np.array_equal(a, b)


def test_a_wide_problem_moves_as_the_reference_does():
    rng = np.random.default_rng(4)
    from gamemarket.pricing.utilities import make_utility

    pr = Problem(rng.uniform(0.5, 2.0, size=(30, 400)), np.full(400, 0.05), make_utility("linear"))
    (js, xs, use), (rjs, rxs, ruse) = _both(pr, 0.2)
    for a, b in zip(js + xs + [use], rjs + rxs + [ruse]):
        assert np.array_equal(a, b)
