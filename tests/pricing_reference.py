"""Plain pairwise reference for the job subproblem (the paper's O(m^2) method), for the tests."""

import numpy as np


def pairwise_best(u, a, c_points, i):
    """Best value of u(t) - cost over every segment of the pairwise construction, for job ``i``.

    Segments: origin -> point j (cost t p_j / a_j) and point j -> point k (a_j < a_k), plus points.
    Returns (best value, t at best).
    """
    m = len(a)
    best, best_t = -np.inf, 0.0
    pts = [(0.0, 0.0)] + [(a[j], c_points[j]) for j in range(m) if a[j] > 0]
    for p0 in range(len(pts)):
        for p1 in range(len(pts)):
            t0, c0 = pts[p0]
            t1, c1 = pts[p1]
            if t1 < t0 or (t1 == t0 and p1 != p0):
                continue
            if t1 == t0:
                cands = [t0]
                slope = 0.0
            else:
                slope = (c1 - c0) / (t1 - t0)
                h = u.best_response_job(slope, i)
                cands = [min(max(h, t0), t1), t0, t1]
            for t in cands:
                # interpolate by the share of the segment, not by its slope: on a segment of subnormal
                # width the slope overflows to infinity and slope * (t - t0) would give an infinite cost
                cost = c0 + (c1 - c0) * ((t - t0) / (t1 - t0)) if t1 > t0 else c0
                with np.errstate(divide="ignore"):
                    val = u.value_job(t, i) - cost
                if val > best + 1e-12 * max(1.0, abs(best)) if np.isfinite(best) else val > best:
                    best, best_t = val, t
    return best, best_t
