"""The one Student-t interval helper against scipy's own interval."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gamemarket.confidence import t_half_width, t_interval


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30))
def test_t_interval_equals_scipy(v):
    v = np.array(v)
    mean, lo, hi = t_interval(v)
    if v.std() == 0:
        assert lo == hi == mean
        return
    slo, shi = stats.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
    assert np.isclose(lo, slo, rtol=1e-9, atol=1e-6) and np.isclose(hi, shi, rtol=1e-9, atol=1e-6)


def test_nan_below_two_values_and_axis():
    assert np.isnan(t_interval([1.0])[1]) and t_interval([1.0])[0] == 1.0
    assert np.isnan(t_interval([np.nan, 2.0])[1])
    M = np.arange(24, dtype=float).reshape(2, 3, 4) ** 1.5
    h = t_half_width(M, axis=2)
    assert h.shape == (2, 3)
    assert np.isclose(h[1, 2], t_interval(M[1, 2])[2] - M[1, 2].mean())


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=12),
    st.sampled_from([(0.0, 1.0), (0.0, float("inf")), (float("-inf"), 1.0)]),
)
def test_an_interval_within_a_range_is_scipys_intersected_with_it(v, within):
    """D17 (hunt 7): two seeds' interval of a utilization of 0.67 reached 1.13. Within a range, the interval is
    scipy's intersected with it (so it covers the true mean whenever scipy's does), and the mean is unchanged."""
    v = np.array(v)
    mean, lo, hi = t_interval(v, within=within)
    plain = t_interval(v)
    assert mean == plain[0]
    assert lo == max(plain[1], within[0]) and hi == min(plain[2], within[1])
    assert within[0] <= lo <= mean <= hi <= within[1]


def test_a_mean_rounded_past_its_range_keeps_an_interval_around_it():
    """A share a float sum puts a hair above 1 (the conformance checks forgive 1e-9): the interval never ends on the
    wrong side of its own mean."""
    mean, lo, hi = t_interval([1.0 + 1e-12, 1.0 + 1e-12, 1.0 + 2e-12], within=(0.0, 1.0))
    assert lo <= mean <= hi


def test_range_of_a_weighted_sum():
    from gamemarket.confidence import range_of_sum

    inf = float("inf")
    ranges = {"revenue": (0.0, inf), "welfare": (-inf, 0.0), "stay": (0.0, 1.0)}
    assert range_of_sum({"revenue": 1.0}, ranges) == (0.0, inf)
    assert range_of_sum({"revenue": 2.0, "stay": 3.0}, ranges) == (0.0, inf)
    assert range_of_sum({"revenue": -1.0}, ranges) == (-inf, 0.0)
    assert range_of_sum({"stay": -2.0}, ranges) == (-2.0, 0.0)
    assert range_of_sum({"revenue": 1.0, "welfare": 1.0}, ranges) == (-inf, inf)
    assert range_of_sum({"revenue": 1.0, "welfare": 0.0}, ranges) == (0.0, inf)  # a zero weight adds nothing
    assert range_of_sum({"other": 1.0}, ranges) == (-inf, inf)  # no range declared: unbounded
