"""Student-t confidence intervals of means over replication seeds: one helper for every caller.

The replications of a study are independent seeds, so the mean of a per-seed statistic (a payoff,
a paired difference between two profiles of the same seed) has the usual Student-t interval.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import (
    stdtrit,
)  # the Student-t quantile (scipy.stats.t.ppf calls it; importing scipy.stats costs ~0.8 s)

from gamemarket.errors import InputError


def check_probability(value, what: str) -> float:
    """A confidence level or an error rate: a number strictly between 0 and 1, else an :class:`InputError` naming
    ``what`` and the value (``level=95`` returned ``(2.0, nan, nan)``, no interval and no word)."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not (0.0 < float(value) < 1.0) or math.isnan(float(value)):
        hint = " (a share: 0.95, not 95)" if ok and 1.0 < float(value) <= 100.0 else ""
        raise InputError(f"{what} must be a number strictly between 0 and 1{hint}, got {value!r}")
    return float(value)


def t_half_width(values, axis: int = -1, level: float = 0.95):
    """Half-width of the ``level`` Student-t interval of the mean along ``axis`` (NaN below 2 values)."""
    level = check_probability(level, "level")
    v = np.asarray(values, dtype=float)
    n = v.shape[axis]
    if n < 2:
        return np.full(np.delete(v.shape, axis if axis >= 0 else v.ndim + axis), np.nan) if v.ndim > 1 else np.nan
    return stdtrit(n - 1, 0.5 + level / 2) * v.std(axis=axis, ddof=1) / np.sqrt(n)


def t_interval(values, level: float = 0.95, within: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """(mean, low, high) of the finite values; the interval is NaN with fewer than 2 of them.

    ``within``: the range ``(lo, hi)`` the quantity lies in by the rules that make it (revenue >= 0, a share in
    [0, 1]: a market's ``figure_ranges``). The interval is intersected with it: the true mean lies in the range, so
    the intersection covers it whenever the interval does (the same coverage), and no printed bound is a value the
    quantity cannot take (two seeds' Student-t interval of a utilization of 0.67 reached 1.13)."""
    level = check_probability(level, "level")
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    mean = float(v.mean()) if len(v) else float("nan")
    half = float(t_half_width(v, level=level)) if len(v) >= 2 else float("nan")
    low, high = mean - half, mean + half
    if within is not None and len(v) >= 2:
        # never past the mean itself: a mean a rounding puts outside the range keeps an interval around it
        low, high = min(max(low, float(within[0])), mean), max(min(high, float(within[1])), mean)
    return mean, low, high


def range_of_sum(weights: dict, ranges: dict) -> tuple[float, float]:
    """The range of ``sum(w * x_m)`` where each ``x_m`` lies in ``ranges[m]`` (unbounded where not declared): the
    interval sum of the weighted ranges (a negative weight turns its range around)."""
    lo = hi = 0.0
    for m, w in weights.items():
        a, b = ranges.get(m, (-np.inf, np.inf))
        ends = (w * a if w else 0.0, w * b if w else 0.0)
        lo, hi = lo + min(ends), hi + max(ends)
    return lo, hi


def t_bound(values, alpha: float, side: str = "upper") -> float:
    """A one-sided ``1 - alpha`` Student-t confidence bound on the mean of the finite ``values`` (``side``: "upper" or
    "lower"); NaN with fewer than 2 of them. Constant values bound themselves exactly."""
    alpha = check_probability(alpha, "alpha")
    if side not in ("upper", "lower"):
        raise InputError(f"side must be 'upper' or 'lower', got {side!r}")
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if len(v) < 2:
        return float("nan")
    half = stdtrit(len(v) - 1, 1.0 - alpha) * v.std(ddof=1) / np.sqrt(len(v))
    return float(v.mean() + half if side == "upper" else v.mean() - half)


def regret_interval(gains, alpha: float) -> tuple[float, float, float]:
    """(point, low, high) of a regret ``max(0, max_j mu_j)`` from per-seed paired gains (seeds x rules), at ``1 -
    alpha``, as the certificates bound it (``gamemarket.search.certificates``):

    * ``high``: the largest of the rules' upper Student-t bounds at ``1 - alpha / 2`` (each rule's two-sided ``1 -
      alpha`` interval's upper end). No correction for the number of rules: if the regret exceeds ``high``, the rule
      of largest true gain's own bound fails (intersection-union), so "regret at most ``high``" fails with
      probability at most ``alpha / 2``;
    * ``low``: the largest of the rules' lower bounds at ``alpha / (2 m)`` over the ``m`` rules (Bonferroni: a regret
      above ``low`` claims that some particular rule gains that much);
    * ``point``: ``max(0, max_j mean_j)``.

    Each bound is at least 0 (a rule may be the mixture itself); NaN below two seeds. A percentile bootstrap of the
    maximum, used before, collapses to [0, 0] whenever every seed's gains are negative, which 2 to 4 seeds make likely
    under no deviation at all (probability ``2^-k`` for a rule of gain 0): the same report then called all-truthful
    both verified and undecided."""
    alpha = check_probability(alpha, "alpha")
    G = np.asarray(gains, dtype=float)
    G = G.reshape(len(G), -1)
    cols = [G[:, j] for j in range(G.shape[1]) if np.isfinite(G[:, j]).any()]
    if not cols:
        return float("nan"), float("nan"), float("nan")
    point = max(0.0, max(float(np.mean(c[np.isfinite(c)])) for c in cols))
    m = max(1, sum(1 for c in cols if np.any(c[np.isfinite(c)] != 0)))  # a rule of gain 0 everywhere claims nothing
    highs = [t_bound(c, alpha / 2, "upper") for c in cols]
    lows = [t_bound(c, alpha / (2 * m), "lower") for c in cols]
    if not all(np.isfinite(highs)):  # fewer than two seeds of some rule: no interval
        return point, float("nan"), float("nan")
    return point, max(0.0, max(lows)), max(0.0, max(highs))


def doubling_looks(first: int, cap: int) -> list[int]:
    """The sample sizes of a sequential design that doubles: ``first``, ``2 first``, ... up to ``cap`` (the last look
    at ``cap`` itself); ``[cap]`` where ``first >= cap``."""
    first, cap = max(int(first), 2), max(int(cap), 2)
    out = []
    n = first
    while n < cap:
        out.append(n)
        n *= 2
    return out + [cap]


def spending(alpha: float, looks: int) -> list[float]:
    """How a sequential design spends its error ``alpha`` over its ``looks``: ``alpha / looks`` at each (Bonferroni
    over the looks, as Pocock's design spends it evenly): a bound that holds at every look with these levels holds at
    the look where the design stops, whichever it is, with probability at least ``1 - alpha``."""
    looks = max(int(looks), 1)
    return [float(alpha) / looks] * looks
