"""What a market hands its callers: a prepared workload (``PreparedWorkload``) and a run (``MarketRun``).

The concrete markets (``scheduling_market``, ``pricing_market``) build these, and ``base`` (the protocol and
the registry of markets) re-exports them; they live in a module of their own so that the markets need not
import the registry that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:  # only for the annotation: a pricing run builds its DataFrame itself
    import pandas as pd


class MarketRun(NamedTuple):
    """One market run: per-job outcomes (columns ``group``, ``private_bid``, ``utility``, ``payment`` and the
    market's own, e.g. ``bsd`` or ``throughput``) and the provider's summary (``revenue``, ``utilization``,
    ``welfare`` and the market's own, e.g. ``preemptions`` or ``converged``).

    ``jobs`` is a DataFrame, or (``run_many`` of the scheduling market) a mapping of column arrays with
    categorical columns as codes (``outcomes.per_job_columns``); ``payoffs`` reads either alike."""

    jobs: pd.DataFrame | dict[str, np.ndarray]
    summary: dict


@dataclass(frozen=True)
class PreparedWorkload:
    """A study's workload, loaded once, as its market runs it.

    ``arrays`` are what every run reads and what a task's key hashes (the scheduling market's job
    columns ``id``, ``submit``, ``runtime``, ``estimate``; the pricing market's efficiencies ``A``
    and capacities ``R``); ``nodes`` is the node count (resource types for pricing); ``meta`` holds
    the source, its SHA-256 and the generator's parameters; ``source`` is the loaded object itself
    (a :class:`gamemarket.workloads.Workload`, or the pricing market's dict); ``jobs`` is the number of
    jobs (bidders), the market's ``size(arrays)``.
    """

    market: str
    arrays: dict = field(repr=False)
    nodes: int
    meta: dict
    source: object = field(default=None, repr=False)
    jobs: int = field(kw_only=True)
