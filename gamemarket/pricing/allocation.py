"""A feasible allocation's shape (each job on at most two resources, with rare exceptions) and the check of
every constraint."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamemarket.errors import InputError, shown_value
from gamemarket.pricing.envelope import throughput_of, usage_of
from gamemarket.pricing.problem import Problem


@dataclass
class Allocation:
    """Each job uses at most two resources: ``(j1, x1)`` and ``(j2, x2)``; ``j = -1`` means unused.

    ``extra``, None unless set, holds further shares ``(jobs, resources, shares)`` of the few jobs that an
    optimum puts on three or more resources (``lp_finish``: with capacities of a few jobs' worth, a vertex
    of the allocation program can need them; no two-resource allocation then reaches the optimum). Every
    method here counts them.
    """

    j1: np.ndarray
    x1: np.ndarray
    j2: np.ndarray
    x2: np.ndarray
    m: int
    extra: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def dense(self) -> np.ndarray:
        """The allocation as a dense ``n x m`` matrix of time shares."""
        n = len(self.j1)
        X = np.zeros((n, self.m))
        rows = np.arange(n)
        for j, x in ((self.j1, self.x1), (self.j2, self.x2)):
            ok = j >= 0
            np.add.at(X, (rows[ok], j[ok]), x[ok])
        if self.extra is not None:
            np.add.at(X, (self.extra[0], self.extra[1]), self.extra[2])
        return X

    def usage(self, demand) -> np.ndarray:
        """Each resource's use, ``sum_i demand_i x_ij``, for comparison with its capacity: ``demand`` is one number
        per job (n), else an :class:`InputError` naming it (a shorter one read past its end, a longer one was cut)."""
        return self.usage_unchecked(_numbers(demand, (len(self.j1),), "Allocation.usage: demand"))

    def usage_unchecked(self, demand: np.ndarray) -> np.ndarray:
        """:meth:`usage` without checking ``demand`` (the solver's own calls, with its float64 demand of n)."""
        use = usage_of(self.j1, self.x1, self.j2, self.x2, demand, self.m)
        if self.extra is not None:
            jobs, res, x = self.extra
            use = use + np.bincount(res, weights=demand[jobs] * x, minlength=self.m)
        return use

    def throughput(self, A) -> np.ndarray:
        """Each job's throughput, ``sum_j a_ij x_ij``: ``A`` is the problem's ``n x m`` efficiencies, else an
        :class:`InputError` naming it."""
        return self.throughput_unchecked(_numbers(A, (len(self.j1), self.m), "Allocation.throughput: A", keep32=True))

    def throughput_unchecked(self, A: np.ndarray) -> np.ndarray:
        """:meth:`throughput` without checking ``A`` (the solver's own calls, with its ``n x m`` float array)."""
        t = throughput_of(A, self.j1, self.x1, self.j2, self.x2)
        if self.extra is not None:
            jobs, res, x = self.extra
            t = t + np.bincount(jobs, weights=A[jobs, res] * x, minlength=len(t))
        return t

    def time(self) -> np.ndarray:
        """Each job's total time share, ``sum_j x_ij`` (at most 1)."""
        s = self.x1 + self.x2
        if self.extra is not None:
            s = s + np.bincount(self.extra[0], weights=self.extra[2], minlength=len(s))
        return s

    def spend(self, prices) -> np.ndarray:
        """Each job's ``p^T x_i``: what it pays per unit time at ``prices``, one per resource (m), else an
        :class:`InputError` naming them."""
        p = _numbers(prices, (self.m,), "Allocation.spend: prices")
        p = np.append(p, 0.0)  # index -1 (unused slot) reads 0
        s = p[self.j1] * self.x1 + p[self.j2] * self.x2
        if self.extra is not None:
            jobs, res, x = self.extra
            s = s + np.bincount(jobs, weights=p[res] * x, minlength=len(s))
        return s


def _numbers(value, shape: tuple[int, ...], what: str, keep32: bool = False) -> np.ndarray:
    """``value`` as a float array of exactly ``shape`` (float32 kept where ``keep32``), else an :class:`InputError`
    naming ``what``: the numba kernels read past the end of a short array (memory garbage), and a wrong rank was
    numba's TypingError."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be numbers, got {shown_value(value)} ({exc})") from None
    if arr.dtype.kind not in "iuf" or isinstance(value, np.ma.MaskedArray):
        raise InputError(
            f"{what} must be a plain array of numbers (integers or floats), got {shown_value(value)} "
            f"({'a masked array' if isinstance(value, np.ma.MaskedArray) else arr.dtype})"
        )
    if arr.shape != shape:
        raise InputError(
            f"{what} must have shape {shape} for this allocation (n jobs, m resources), got shape {arr.shape}"
        )
    dtype = arr.dtype if keep32 and arr.dtype == np.float32 else np.float64
    return np.ascontiguousarray(arr, dtype=dtype)


def check_feasible(problem: Problem, alloc: Allocation, tol: float = 1e-9) -> float:
    """The largest constraint violation (0 when every constraint holds)."""
    lows = [alloc.x1.min(), alloc.x2.min()] + (
        [alloc.extra[2].min()] if alloc.extra is not None and len(alloc.extra[2]) else []
    )
    v = [max(0.0, float(-min(lows))), max(0.0, float(alloc.time().max() - 1.0))]
    use = alloc.usage_unchecked(problem.demand)
    R = problem.R  # relative to the capacity; absolute where it is 0 (no use allowed at all)
    v.append(max(0.0, float((np.where(R > 0, (use - R) / np.where(R > 0, R, 1.0), use)).max())))
    return max(v)
