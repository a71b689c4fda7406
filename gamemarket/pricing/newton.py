"""A projected Newton method on the dual, with its exact Hessian (the solver's second phase)."""

from __future__ import annotations

import numpy as np


# Complexity 16: the method's one loop (free set, step, line search); to split in the pricing branch.
def projected_newton(  # noqa: C901
    fun_h, p, max_iter, done, state, on_iteration=None, p_min=None, subgradient=None, check_time=None
):
    """Projected Newton on ``p >= 0`` in a trust region, with a backtracking (Armijo) line search.

    Variables at their bound with a positive gradient stay fixed. The Newton system on the free ones
    is regularised Levenberg-Marquardt style, ``(H + lambda D) d = -g`` with ``D`` the prices' squared
    inverse sizes, ``lambda`` raised until no price moves by more than ``radius`` times its own size:
    where most jobs sit at envelope vertices ``H`` is nearly singular and the plain step is orders of
    magnitude too long. The radius doubles after a full step and shrinks with a shortened one.
    ``subgradient(p, g, H)``, when given, replaces the gradient by the dual's minimal subgradient at
    ``p`` (``ties.mix``): the semismooth Newton step at a kink. ``check_time()``, when given, is called before
    each linear solve (it raises to stop the search at a time limit).

    ``H`` is zero outside the resources some job's envelope segment touches (with 30 jobs over 3,000 resources,
    60 of them at most): the regularised system is solved densely on those and on the diagonal elsewhere, the
    same solution as the whole ``m x m`` solve (hunt 24b-F3: twelve solves of 3,000 x 3,000 per step).
    """
    f, g, H = fun_h(p)
    m = len(p)
    lo = np.zeros(m) if p_min is None else p_min
    radius = [1.0]

    def direction(g):
        """The regularised Newton step for gradient ``g`` (None when there is none)."""
        free = ~((p <= lo) & (g > 0))
        if not free.any() or not np.isfinite(g).all():
            return None
        ref = float(p.mean()) if p.mean() > 0 else 1.0
        size = np.maximum(p, 1e-3 * ref)[free]
        D = 1.0 / size**2
        lam = 1e-12 * max(float(np.max(np.abs(np.diagonal(H)[free]) / D)), 1e-300)
        on, Hon = _touched_block(H, free)
        gf = g[free]
        off = np.ones(len(gf), bool)
        off[on] = False
        for _reg in range(60):
            if check_time is not None:
                check_time()
            df = np.empty(len(gf))
            with np.errstate(over="ignore", divide="ignore"):
                df[off] = -gf[off] / (lam * D[off])
            try:
                df[on] = -np.linalg.solve(Hon + lam * np.diag(D[on]), gf[on])
            except np.linalg.LinAlgError:
                df[:] = np.inf
            with np.errstate(over="ignore"):  # a step of 1e300 over a small price is past the radius: refused
                ok = np.isfinite(df).all() and float(np.max(np.abs(df) / size)) <= radius[0] and g[free] @ df < 0
            if ok:
                d = np.zeros(m)
                d[free] = df
                return d
            lam = lam * 10 if lam > 0 else 1e-300
        return None

    def search(g, d):
        """Backtracking along ``d`` with the slope ``g``: the accepted point and its step, or None."""
        step = 1.0
        for _ls in range(30):
            q = np.maximum(p + step * d, lo)
            fq, gq, Hq = fun_h(q)
            if np.isfinite(fq) and fq <= f + 1e-4 * (g @ (q - p)):
                return q, fq, gq, Hq, step
            step *= 0.5
        return None

    for _ in range(max_iter - state["iters"]):
        state["iters"] += 1
        w = subgradient(p, g, H) if subgradient is not None else g
        if on_iteration is not None:
            on_iteration()
        if done():
            return p
        # both the semismooth step and the plain Newton step, the lower point wins: the tie mixture is
        # a subgradient only where the ties it found are exact, and the plain gradient misleads at a kink
        found = None
        for slope in (w, g) if w is not g else (g,):
            d = direction(slope)
            cand = search(slope, d) if d is not None else None
            if cand is not None and (found is None or cand[1] < found[1]):
                found = cand
        if found is None:
            return p
        q, fq, gq, Hq, step = found
        radius[0] = min(2 * radius[0], 1e6) if step == 1.0 else max(radius[0] * step, 1e-12)
        if np.array_equal(q, p):
            return p
        p, f, g, H = q, fq, gq, Hq
    return p


def _touched_block(H: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of ``Hf = H[free][:, free]``: the positions (among the free variables) of its rows and columns that are not
    all zero, and ``Hf`` on them, found without ``Hf``'s copy of nearly the whole ``m x m`` matrix (0.45 s a step
    at m = 10,000, where about a hundred rows are nonzero: hunt 28c's sibling)."""
    nonzero = H != 0
    rows = np.flatnonzero((np.any(nonzero, axis=1) | np.any(nonzero, axis=0)) & free)
    block = H[np.ix_(rows, rows)]
    keep = np.any(block != 0, axis=1) | np.any(block != 0, axis=0)
    return np.searchsorted(np.flatnonzero(free), rows[keep]), block[np.ix_(keep, keep)]
