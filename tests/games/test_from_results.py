"""A game from a study's tidy table: every cell is the mean of its seeds' runs, wherever the rows sit."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.games.bimatrix import from_results


def _table(m, n, seeds, rng):
    rows = [
        {"provider": f"p{i}", "consumer": f"c{j}", "seed": s, "rev": rng.normal(), "u": rng.normal()}
        for i in range(m)
        for j in range(n)
        for s in seeds
    ]
    return pd.DataFrame(rows).sample(frac=1.0, random_state=int(rng.integers(1 << 31))).reset_index(drop=True)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 5), n=st.integers(1, 6), k=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_cells_are_the_plain_lookup(m, n, k, seed):
    rng = np.random.default_rng(seed)
    seeds = sorted(rng.choice(100, size=k, replace=False).tolist())
    t = _table(m, n, seeds, rng)
    g = from_results(t, "rev", "u")
    rows, cols = list(dict.fromkeys(t["provider"])), list(dict.fromkeys(t["consumer"]))
    assert g.rows == rows and g.cols == cols
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            sel = t[(t.provider == r) & (t.consumer == c)].sort_values("seed")
            np.testing.assert_array_equal(g.A_reps[i, j], sel["rev"].to_numpy())
            np.testing.assert_array_equal(g.B_reps[i, j], sel["u"].to_numpy())
            assert g.A[i, j] == sel["rev"].to_numpy().mean() and g.B[i, j] == sel["u"].to_numpy().mean()


def test_a_missing_or_repeated_run_is_named():
    t = _table(2, 2, [1, 2], np.random.default_rng(0))
    with pytest.raises(InputError, match=r"no run for \(p1, c0, seed 2\)"):
        from_results(t[~((t.provider == "p1") & (t.consumer == "c0") & (t.seed == 2))], "rev", "u")
    with pytest.raises(InputError, match=r"more than one run for \(p0, c1, seed 1\)"):
        from_results(pd.concat([t, t[(t.provider == "p0") & (t.consumer == "c1") & (t.seed == 1)]]), "rev", "u")
