"""The job table's column check (``jobtable.check_column``: bounds from two reductions) against its reference
(``check_column_plain``: each check as stated): the same column back, or the same error, word for word."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.io import jobtable


def _outcome(fn, col, vals):
    try:
        out = fn(col, vals.copy(), "t.csv", 2)
    except InputError as exc:
        return ("error", str(exc))
    return ("ok", out.dtype.str, out.tobytes())


# values near every bound a column has: its lower bound (0), the integers' 2^53, the bids' 1e9, fractions,
# signed zeros and the non-finite ones
SPECIAL = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0**53,
    2.0**53 + 2,
    -(2.0**53),
    1e15,
    1e15 * (1 + 2**-52),
    np.nan,
    np.inf,
    -np.inf,
    5e-324,
    7.0,
    3600.0,
]
values = st.one_of(
    st.sampled_from(SPECIAL), st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**54), 2**54).map(float)
)


@pytest.mark.slow
@pytest.mark.parametrize("col", jobtable.COLUMNS, ids=lambda c: c.name)
@settings(max_examples=300, deadline=None)
@given(vals=st.lists(values, min_size=0, max_size=12))
def test_fast_check_equals_the_reference(col, vals):
    a = np.array(vals, dtype=np.float64)
    assert _outcome(jobtable.check_column, col, a) == _outcome(jobtable.check_column_plain, col, a)


@pytest.mark.parametrize("col", jobtable.COLUMNS, ids=lambda c: c.name)
@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 2000), bad=st.sampled_from(SPECIAL), at=st.integers(0, 1999), seed=st.integers(0, 2**32 - 1))
def test_one_bad_value_in_a_long_valid_column(col, n, bad, at, seed):
    """A valid column (whole positive numbers, within every bound) with one value put anywhere: the first bad
    row is the reference's."""
    a = np.random.default_rng(seed).integers(1, 10**6, n).astype(np.float64)
    a[at % n] = bad
    assert _outcome(jobtable.check_column, col, a) == _outcome(jobtable.check_column_plain, col, a)


def test_valid_columns_come_back_with_their_dtypes():
    a = np.array([1.0, 2.0, 3.0])
    by = {c.name: c for c in jobtable.COLUMNS}
    assert jobtable.check_column(by["runtime"], a, "t").dtype == np.int64
    assert jobtable.check_column(by["private_bid"], a, "t") is a  # a float column is returned as read
