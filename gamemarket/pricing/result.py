"""What a solve returns (``Result``) and the rule that says when it may stop: the stopping gap as a function
of the objective (``stopping_rule``; the default's ``default_target`` for strictly concave utilities, else
``max(eps, rel_eps |objective|)``) and the message of a met rule (``met_message``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from gamemarket.pricing.allocation import Allocation

if TYPE_CHECKING:  # pandas only where the trace is read as a table (a fifth of a second of `price solve`'s start)
    import pandas as pd


@dataclass
class Result:
    """What ``solve`` returns: a feasible allocation (every job on at most two resources, but for the rare
    job the LP finish puts on three or more: ``Allocation.extra``), the prices, the
    throughputs, the objective of that allocation and the dual bound (their difference is the duality
    gap, an upper bound on the distance to the optimum), the iteration and evaluation counts, whether the
    stopping rule was met (never silently not), the time, the per-evaluation trace and a message."""

    allocation: Allocation
    prices: np.ndarray
    throughput: np.ndarray
    objective: float  #: primal value of the feasible allocation
    dual: float
    gap: float
    iterations: int
    evaluations: int
    converged: bool
    seconds: float
    rows: list = field(repr=False, default_factory=list)  #: the per-evaluation trace, a dict per evaluation
    message: str = ""

    @property
    def trace(self) -> pd.DataFrame:
        """The per-evaluation trace as a table (pandas, imported here: a solve starts without it)."""
        import pandas as pd  # deferred: pandas (a fifth of a second) only where the trace is read

        return pd.DataFrame(self.rows)


#: the default's cap on the stopping gap per job for strictly concave utilities: the certified default never
#: stops at a gap above ``1e-4 n`` (the former default; it binds only where ``1e-6 |objective|`` exceeds it)
DEFAULT_GAP_PER_JOB = 1e-4
#: the default's relative stopping gap for strictly concave utilities (log, alpha-fair): the run stops once
#: the certified gap is at most ``1e-6 |objective|`` (``default_target``)
DEFAULT_REL_GAP = 1e-6
#: the default's floor per job: an objective near zero (utilities of both signs cancelling) has no useful
#: relative gap, so the default never asks for a gap below ``1e-8 n``
DEFAULT_GAP_FLOOR_PER_JOB = 1e-8


def default_target(n: int, rel_eps: float, objective: float) -> float:
    """The default stopping gap of a strictly concave utility at ``objective``: ``1e-6 |objective|``, but
    at most ``1e-4 n`` and at least ``1e-8 n``, and never below ``rel_eps |objective|``.

    Parameters
    ----------
    n : the number of jobs
    rel_eps : the relative part of the stopping rule (``solve``'s ``rel_eps``)
    objective : the objective of the allocation whose gap is tested
    """
    size = abs(objective)
    gap = max(min(DEFAULT_GAP_PER_JOB * n, DEFAULT_REL_GAP * size), DEFAULT_GAP_FLOOR_PER_JOB * n)
    return max(gap, rel_eps * size)


#: the default rule in words (``met_message``)
DEFAULT_WORDS = "the default: 1e-6 |objective|, at most 1e-4 n, at least 1e-8 n"


def stopping_rule(certified: bool, eps: float, rel_eps: float, n: int, offset: float = 0.0):
    """The stopping gap as a function of the objective, and the rule in words for the result's message.

    ``offset``: the utilities' constant part (``Utility.offset``), taken off the objective before any relative
    rule reads its size. An alpha-fair utility ``w t^(1-alpha) / (1-alpha)`` is ``w / (1-alpha)`` plus
    ``w (t^(1-alpha) - 1) / (1-alpha)``: near alpha = 1 the constant is ``n / (1-alpha)``, and a gap relative to it
    (``rel_eps |objective|``: 5 for 50 jobs at alpha 1.000001) stopped with prices 15 to 25% from the optimum's,
    where the cap of the default is 0.005. The constant changes no allocation and no gap."""

    def target(objective: float) -> float:
        size = objective - offset
        return default_target(n, rel_eps, size) if certified else max(eps, rel_eps * abs(size))

    target.offset = offset
    # (the rel_eps floor said too: "2.13e+04 (the default: 1e-6 |objective|, at most 1e-4 n, ...)" of 8 jobs, whose
    # "at most 1e-4 n" is 8e-4, read as a contradiction where rel_eps |objective| set it: hunt 31c-W2)
    words = f"{DEFAULT_WORDS}, and at least rel_eps {rel_eps:.3g} |objective|"
    return target, words if certified else f"max(eps {eps:.3g}, rel_eps {rel_eps:.3g} * |objective|)"


def met_message(gap: float, objective: float, target, words: str) -> str:
    """The message of a met stopping rule: under the default the target's value and the relative gap it
    certifies (``gap / |objective|``) are spelled out; an explicit ``eps`` keeps its words."""
    if not words.startswith(DEFAULT_WORDS):
        return f"duality gap {gap:.3g} <= {words}"
    size = objective - getattr(target, "offset", 0.0)  # the utilities' varying part (``stopping_rule``)
    if not size:  # no relative gap to certify: a zero objective (every weight 0, say) is met absolutely
        return f"duality gap {gap:.3g} <= {target(objective):.3g} ({words}); the objective is 0, so no relative gap"
    shifted = f" of the objective less its constant {getattr(target, 'offset', 0.0):.6g}" if size != objective else ""
    return f"duality gap {gap:.3g} <= {target(objective):.3g} ({words}): {gap / abs(size):.2g} relative{shifted}"
