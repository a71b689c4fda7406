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
