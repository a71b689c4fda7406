"""The price level and scale: where the dual is lowest along a ray of prices (``calibrate``), the start of a
step of the continuation in alpha at that level (``path_start``), and the optimizer's variables, prices over
their scale or shifted log prices (``PriceVariables``).

Alpha-fair utilities of large alpha have a dual whose price level is its flattest direction (curvature
falling like 1/alpha), and an optimal level that moves by orders of magnitude with alpha: the solver sets
the level by this line search before its first round and after every L-BFGS round, and its continuation
in alpha starts each step from prices set to their level here.
"""

from __future__ import annotations

import numpy as np

from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.problem import Problem
from gamemarket.pricing.result import Result


def calibrate(fun_p, p: np.ndarray, max_evals: int = 40) -> np.ndarray:
    """The initial prices scaled by the ``e^k`` minimizing the dual along the ray ``e^k p``.

    ``d g(e^k p) / dk = e^k p . grad`` is increasing in ``k`` (``g`` is convex), so its root is
    bracketed by doubling steps and found by bisection to ``|dk| < 1e-3``. The initial guess of an
    alpha-fair utility's prices is off by ``(t*/t0)^alpha``: orders of magnitude for large alpha.
    """
    seen = []
    K_MIN = -30.0  # e^-30 ~ 1e-13: prices that low are zero for the dual; never shrink further

    def slope(k):
        with np.errstate(over="ignore"):
            q = p * np.exp(k)
        if not np.isfinite(q).all():
            return np.nan  # prices past float64's range: no dual to evaluate, the search steps back
        f, g = fun_p(q)
        if not np.isfinite(f):
            return np.nan
        seen.append((f, k))
        return float(q @ g)

    s0 = slope(0.0)
    if not np.isfinite(s0) or s0 == 0.0:
        return p
    step = -1.0 if s0 > 0 else 1.0  # positive slope: resources under-used, prices too high
    k0, k1 = 0.0, None
    evals = 1
    while evals < max_evals // 2 and k0 + step >= K_MIN:
        k = k0 + step
        sk = slope(k)
        evals += 1
        if np.isfinite(sk) and np.sign(sk) != np.sign(s0):
            k1 = k
            break
        if np.isfinite(sk):
            k0 = k
        step *= 2 if np.isfinite(sk) else 0.5
    if k1 is not None:
        while evals < max_evals and abs(k1 - k0) > 1e-3:
            k = 0.5 * (k0 + k1)
            sk = slope(k)
            evals += 1
            if not np.isfinite(sk):
                break
            if np.sign(sk) == np.sign(s0):
                k0 = k
            else:
                k1 = k
    return p * np.exp(min(seen)[1]) if seen else p


def path_start(problem: Problem, prev: Result, A: np.ndarray, order: np.ndarray, lo: np.ndarray) -> np.ndarray | None:
    """The start of a continuation step (``problem``, of the next exponent) from its predecessor's answer
    ``prev``: of two candidates, each moved along its ray to the lowest dual (``calibrate``), the one of
    lower dual; None when neither is finite.

    The candidates are the predecessor's prices (their ratios change slowly along the path, their level
    by orders of magnitude) and the prices its allocation implies for the new exponent: per resource the
    smallest marginal value per unit of time ``w_i t_i^-alpha a_ij / d_i`` among the jobs on it (at an
    optimum a job on resource ``j`` has ``d_i p_j = u_i'(t_i) a_ij - lambda_i`` with ``lambda_i >= 0`` its
    time's value, zero unless its time is full: no price exceeds the smallest). The largest, taken before,
    is set by the jobs of full time and least throughput: it started the alpha = 30 and 40 steps of a
    stress member at duals above zero (the optimum's are below -1e35), with prices 26 orders apart on two
    resources that every job but one finds equally efficient, and the steps never recovered. The dual is
    an upper bound on the optimum at any prices, so the lower one is the better start on any instance."""
    util = problem.utility
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        mv = (util.w * prev.throughput ** (-util.alpha))[:, None] * A / problem.demand[:, None]
        implied = np.where(prev.allocation.dense() > 0, mv, np.inf).min(axis=0)
    implied = np.where(np.isfinite(implied), implied, 0.0)  # an unused resource: no job values it

    def fun_p(q):
        return evaluate(problem, q, order, A)[:2]

    best, low = None, np.inf
    for cand in (np.asarray(prev.prices, dtype=np.float64), implied):
        cand = np.maximum(cand, lo)
        if not (np.isfinite(cand).all() and (cand > 0).any()):
            continue
        if not lo.any():  # the ray through prices with floors leaves the feasible set
            cand = calibrate(fun_p, cand)
        with np.errstate(all="ignore"):
            f = fun_p(cand)[0]
        if np.isfinite(f) and f < low:
            best, low = cand, f
    return best


#: the shift of the log-price variables (``PriceVariables``): prices below LOG_SHIFT times their scale are near 0
LOG_SHIFT = 1e-6
#: the highest price L-BFGS-B's log prices reach, over the problem's total capacity and demand: beyond it
#: ``p @ R`` and the jobs' costs ``d p x`` in the dual overflow float64
PRICE_CEILING = 1e300


class PriceVariables:
    """The optimizer's variables for prices at or above the floors ``lo``: prices over their scale, or
    (``logspace``) shifted log prices.

    The log is shifted, p = lo + scale (e^z - LOG_SHIFT) with z >= log(LOG_SHIFT), so that a price can
    reach its floor exactly (a resource no job over-subscribes has price 0 at the optimum) and the
    gradient in z near the floor is damped by LOG_SHIFT, not by the price itself (1e-28 stalled it).

    Parameters
    ----------
    lo : the price floors
    logspace : whether the variables are shifted log prices (alpha-fair utilities of alpha > 1, whose dual
        is a narrow valley in the prices and close to quadratic in their log)
    total : the problem's total capacity and demand, ``R.sum() + demand.sum()``: it caps the log prices
    """

    def __init__(self, lo: np.ndarray, logspace: bool, total: float):
        self.lo, self.logspace, self.total = lo, logspace, total
        self.scale = self.z_cap = None  # set_scale sets them

    def set_scale(self, p):
        """The prices' scale from prices ``p`` (their own size, else their mean), and the cap on the log
        prices that keeps every price below ``PRICE_CEILING`` over the total capacity and demand."""
        self.scale = np.where(p > 0, p, max(float(p[p > 0].mean()) if (p > 0).any() else 1.0, 1e-300))
        ceiling = PRICE_CEILING / max(1.0, self.total)
        with np.errstate(over="ignore"):
            self.z_cap = np.log(ceiling / self.scale)  # inf for a scale of 1e-300: no cap needed

    def growth(self, z):
        """``e^z`` for the shifted log prices, capped at ``z_cap``: a line search's trial step of hundreds
        in ``z`` overflowed the prices to inf, and the dual there to inf or NaN. Capped, the dual is finite
        and high (``p @ R`` dominates), and the search steps back; below the cap nothing changes."""
        return np.exp(np.minimum(np.clip(z, -700.0, 700.0), self.z_cap))

    def to_p(self, z):
        """Prices from the optimizer's variables (shifted log prices, or prices over their scale)."""
        if self.logspace:
            return np.maximum(self.lo + self.scale * (self.growth(z) - LOG_SHIFT), self.lo)
        return np.maximum(z * self.scale, self.lo)

    def to_z(self, q):
        """The optimizer's variables from prices: the inverse of ``to_p`` above the floors."""
        if self.logspace:
            return np.log(np.maximum(q - self.lo, 0.0) / self.scale + LOG_SHIFT)
        return q / self.scale

    def jacobian(self, z):
        """``dp/dz`` at ``z`` (a vector: each price depends on its own variable), the factor that takes the
        dual's gradient in the prices to its gradient in the variables."""
        return self.scale * self.growth(z) if self.logspace else self.scale

    def bounds(self) -> list:
        """The variables' bounds for L-BFGS-B: the prices' floors, none above."""
        m = len(self.lo)
        if self.logspace:
            return [(np.log(LOG_SHIFT), None)] * m
        return [(self.lo[j] / self.scale[j], None) for j in range(m)]
