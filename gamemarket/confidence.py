"""Student-t confidence intervals of means over replication seeds: one helper for every caller.

The replications of a study are independent seeds, so the mean of a per-seed statistic (a payoff,
a paired difference between two profiles of the same seed) has the usual Student-t interval.
"""

from __future__ import annotations

import numpy as np
from scipy.special import (
    stdtrit,
)  # the Student-t quantile (scipy.stats.t.ppf calls it; importing scipy.stats costs ~0.8 s)


def t_half_width(values, axis: int = -1, level: float = 0.95):
    """Half-width of the ``level`` Student-t interval of the mean along ``axis`` (NaN below 2 values)."""
    v = np.asarray(values, dtype=float)
    n = v.shape[axis]
    if n < 2:
        return np.full(np.delete(v.shape, axis if axis >= 0 else v.ndim + axis), np.nan) if v.ndim > 1 else np.nan
    return stdtrit(n - 1, 0.5 + level / 2) * v.std(axis=axis, ddof=1) / np.sqrt(n)


def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high) of the finite values; the interval is NaN with fewer than 2 of them."""
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    mean = float(v.mean()) if len(v) else float("nan")
    half = float(t_half_width(v, level=level)) if len(v) >= 2 else float("nan")
    return mean, mean - half, mean + half
