"""The dual evaluation in PyTorch, for CPU and CUDA (an optional extra: ``pip install gamemarket[torch]``).

The numba path builds each job's envelope with a monotone chain, which does not vectorize across
jobs. Here the envelope is built by gift wrapping, all jobs in step: from the current vertex, the
next one is the point of least slope beyond it (ties: the farthest), which gives exactly the
chain's vertices in ``O(n m)`` work per hull vertex. The rest (the maximizer
``t* = min(T_K, min_k max(h(S_k), T_{k-1}))``, the two-resource allocation, cost and value) is plain
tensor arithmetic. Results match the numpy/numba path to rounding (tested on the CPU).
"""

from __future__ import annotations

import numpy as np

from gamemarket.errors import InputError
from gamemarket.pricing.allocation import Allocation
from gamemarket.pricing.envelope import U_LINEAR, U_POWER


def _torch():
    try:
        import torch  # deferred: torch
    except ImportError:
        raise InputError("the torch backend needs PyTorch: pip install 'gamemarket[torch]'") from None
    return torch


class TorchEvaluator:
    """Holds the problem's tensors on a device; ``__call__(p)`` returns what ``solver.evaluate`` does."""

    def __init__(self, problem, device: str = "cpu", single: bool = False):
        torch = _torch()
        self.torch = torch
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise InputError("device 'cuda' requested but PyTorch sees no GPU")
        self.dev = torch.device(device)
        self.dt = torch.float32 if single else torch.float64
        fused = problem.utility.fused()
        if fused is None:
            raise InputError(f"the torch backend supports the built-in utilities, not {problem.utility.name!r}")
        self.code, self.alpha, td = fused
        t = lambda a: torch.as_tensor(np.asarray(a, dtype=np.float64), device=self.dev, dtype=self.dt)  # noqa: E731
        self.A = t(problem.A)
        self.d = t(problem.demand)
        self.w = t(problem.utility.w)
        self.td = t(td)
        self.R = problem.R
        self.problem = problem

    def hull(self, P):
        """Every job's cost envelope at prices ``P`` (a tensor): vertices' throughputs, costs, resources and
        segment counts, as :func:`gamemarket.pricing.envelope.envelope_arrays` computes them on the host.
        """
        torch = self.torch
        A, n, m = self.A, self.A.shape[0], self.A.shape[1]
        C = self.d[:, None] * P[None, :]
        ct = torch.zeros(n, device=self.dev, dtype=self.dt)
        cc = torch.zeros_like(ct)
        Ts, Cs, Is = [ct.clone()], [cc.clone()], [torch.full((n,), -1, device=self.dev, dtype=torch.long)]
        K = torch.zeros(n, device=self.dev, dtype=torch.long)
        inf = torch.tensor(float("inf"), device=self.dev, dtype=self.dt)
        for _ in range(m):
            ahead = A > ct[:, None]
            if not bool(ahead.any()):
                break
            slope = torch.where(ahead, (C - cc[:, None]) / torch.where(ahead, A - ct[:, None], 1.0), inf)
            smin = slope.min(dim=1).values
            has = torch.isfinite(smin)
            # among the points of least slope, the farthest (colinear points are not vertices)
            far = torch.where(ahead & (slope == smin[:, None]), A, -inf).argmax(dim=1)
            nt = A.gather(1, far[:, None])[:, 0]
            nc = C.gather(1, far[:, None])[:, 0]
            ct = torch.where(has, nt, ct)
            cc = torch.where(has, nc, cc)
            Ts.append(ct.clone())
            Cs.append(cc.clone())
            Is.append(torch.where(has, far, torch.full_like(far, -1)))
            K = K + has.long()
        return torch.stack(Ts, 1), torch.stack(Cs, 1), torch.stack(Is, 1), K

    def h(self, S, mu):
        """The best response ``argmax_t u(t) - s t`` per job and slope ``S``, with the smoothing ``mu`` (as
        :meth:`gamemarket.pricing.utilities.Utility.best_response_matrix`).
        """
        torch = self.torch
        w = self.w[:, None]
        if self.code == U_LINEAR:
            if mu > 0:
                return torch.clamp((w - S) / mu, min=0.0)
            return torch.where(S < w, torch.full_like(S, float("inf")), torch.zeros_like(S))
        if self.code == U_POWER:
            safe = torch.where(S > 0, S, torch.ones_like(S))
            hv = w / safe if self.alpha == 1.0 else (w / safe) ** (1.0 / self.alpha)
            hv = torch.where(w > 0, hv, torch.zeros_like(hv))
            return torch.where(S <= 0, torch.full_like(S, float("inf")), hv)
        td = self.td[:, None]
        if mu > 0:
            return torch.minimum(td.expand_as(S), torch.clamp((w - S) / mu, min=0.0))
        return torch.where(S < w, td.expand_as(S), torch.zeros_like(S))

    def value(self, t):
        """The utility of throughput ``t`` per job (as :meth:`gamemarket.pricing.utilities.Utility.value`)."""
        torch = self.torch
        if self.code == U_LINEAR:
            return self.w * t
        if self.code == U_POWER:  # (a job of weight 0 values nothing: 0 log 0 is 0 here, as in the numpy kernels)
            u = self.w * torch.log(t) if self.alpha == 1.0 else self.w * t ** (1.0 - self.alpha) / (1.0 - self.alpha)
            return torch.where(self.w == 0, torch.zeros_like(u), u)
        return -self.w * torch.clamp(self.td - t, min=0.0)

    def __call__(self, p, mu: float = 0.0):
        torch = self.torch

        P = torch.as_tensor(np.asarray(p, dtype=np.float64), device=self.dev, dtype=self.dt)
        T, C, I, K = self.hull(P)
        n, width = T.shape
        dT = T[:, 1:] - T[:, :-1]
        seg = torch.arange(1, width, device=self.dev)[None, :] <= K[:, None]
        S = torch.where(
            seg, (C[:, 1:] - C[:, :-1]) / torch.where(seg, dT, torch.ones_like(dT)), torch.full_like(dT, float("inf"))
        )
        hv = self.h(S, mu)
        cand = torch.where(seg, torch.maximum(hv, T[:, :-1]), torch.full_like(hv, float("inf")))
        tK = T.gather(1, K[:, None])[:, 0]
        t = torch.minimum(tK, cand.min(dim=1).values if width > 1 else tK)
        inner = torch.where(seg, T[:, 1:], torch.full_like(dT, float("inf")))
        k = torch.minimum((inner < t[:, None]).sum(1) + 1, torch.clamp(K, min=1))
        k = torch.where(t <= 0, torch.zeros_like(k), k)
        km1 = torch.clamp(k - 1, min=0)
        lo_t, hi_t = T.gather(1, km1[:, None])[:, 0], T.gather(1, k[:, None])[:, 0]
        lo_c, hi_c = C.gather(1, km1[:, None])[:, 0], C.gather(1, k[:, None])[:, 0]
        span = hi_t - lo_t
        theta = torch.where(
            span > 0, (t - lo_t) / torch.where(span > 0, span, torch.ones_like(span)), torch.zeros_like(span)
        ).clamp(0.0, 1.0)
        j1 = torch.where(k > 0, I.gather(1, km1[:, None])[:, 0], torch.full_like(k, -1))
        j2 = torch.where(k > 0, I.gather(1, k[:, None])[:, 0], torch.full_like(k, -1))
        x1 = torch.where((k > 0) & (j1 >= 0), 1.0 - theta, torch.zeros_like(theta))
        x2 = torch.where(j2 >= 0, theta, torch.zeros_like(theta))
        cost = torch.where(k > 0, (1.0 - theta) * lo_c + theta * hi_c, torch.zeros_like(theta))
        u = self.value(t)
        m = self.A.shape[1]
        use = torch.zeros(m + 1, device=self.dev, dtype=self.dt)
        use.index_add_(0, torch.where(j1 >= 0, j1, torch.full_like(j1, m)), self.d * x1)
        use.index_add_(0, torch.where(j2 >= 0, j2, torch.full_like(j2, m)), self.d * x2)
        dual = float((u - cost).sum()) + float(np.dot(np.asarray(p, dtype=np.float64), self.R))
        grad = self.R - use[:m].cpu().numpy().astype(np.float64)
        to = lambda a: a.cpu().numpy()  # noqa: E731
        alloc = Allocation(
            to(j1).astype(np.int64), to(x1).astype(np.float64), to(j2).astype(np.int64), to(x2).astype(np.float64), m
        )
        return dual, grad, alloc, to(t).astype(np.float64)
