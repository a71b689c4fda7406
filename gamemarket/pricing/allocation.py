"""A feasible allocation's shape (each job on at most two resources) and the check of every constraint."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gamemarket.pricing.envelope import throughput_of, usage_of
from gamemarket.pricing.problem import Problem


@dataclass
class Allocation:
    """Each job uses at most two resources: ``(j1, x1)`` and ``(j2, x2)``; ``j = -1`` means unused."""

    j1: np.ndarray
    x1: np.ndarray
    j2: np.ndarray
    x2: np.ndarray
    m: int

    def dense(self) -> np.ndarray:
        """The allocation as a dense ``n x m`` matrix of time shares."""
        n = len(self.j1)
        X = np.zeros((n, self.m))
        rows = np.arange(n)
        for j, x in ((self.j1, self.x1), (self.j2, self.x2)):
            ok = j >= 0
            np.add.at(X, (rows[ok], j[ok]), x[ok])
        return X

    def usage(self, demand: np.ndarray) -> np.ndarray:
        """Each resource's use, ``sum_i demand_i x_ij``, for comparison with its capacity."""
        return usage_of(self.j1, self.x1, self.j2, self.x2, demand, self.m)

    def throughput(self, A: np.ndarray) -> np.ndarray:
        """Each job's throughput, ``sum_j a_ij x_ij``."""
        return throughput_of(A, self.j1, self.x1, self.j2, self.x2)


def check_feasible(problem: Problem, alloc: Allocation, tol: float = 1e-9) -> float:
    """The largest constraint violation (0 when every constraint holds)."""
    x_sum = alloc.x1 + alloc.x2
    v = [max(0.0, float(-min(alloc.x1.min(), alloc.x2.min()))), max(0.0, float(x_sum.max() - 1.0))]
    use = alloc.usage(problem.demand)
    v.append(max(0.0, float(((use - problem.R) / problem.R).max())))
    return max(v)
