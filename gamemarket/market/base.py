"""The market protocol: both markets run one profile the same way, and a registry picks one by kind.

A market takes a prepared workload (``arrays``: the scheduling market's job columns, or the pricing
market's efficiencies ``A`` and capacities ``R``), a provider strategy (``provider``: its ``kind`` and
parameters), and every job's private bid, reported bid and consumer group; it returns a ``MarketRun``:
the per-job outcomes and the provider's summary. Payoffs are computed from a ``MarketRun`` in one place
(``gamemarket.market.payoffs.of_run``), whatever the market. Studies never branch on the kind: they
look the market up in ``MARKETS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np
import pandas as pd

from gamemarket.registry import Registry


class MarketRun(NamedTuple):
    """One market run: per-job outcomes (columns ``group``, ``private_bid``, ``utility``, ``payment`` and the
    market's own, e.g. ``bsd`` or ``throughput``) and the provider's summary (``revenue``, ``utilization``,
    ``welfare`` and the market's own, e.g. ``preemptions`` or ``converged``)."""

    jobs: pd.DataFrame
    summary: dict


class Market(Protocol):
    """What a market answers: its size, its own key fields and one run with given bids."""

    kind: str
    description: str
    workload_sources: tuple[str, ...]  #: the ``[workload] source`` values it runs on (empty: any other)

    def size(self, arrays: dict) -> int:
        """The number of jobs (bidders) of a prepared workload."""

    def key_fields(self) -> dict:
        """What, beyond the inputs, determines a run's numbers (a solver's version): part of a stored
        result's key, so a changed solver never reuses a stale result."""

    def run(
        self, arrays: dict, nodes: int, provider: dict, private: np.ndarray, reported: np.ndarray, group: np.ndarray
    ) -> MarketRun:
        """One profile: the provider's mechanism with these bids."""

    def run_many(
        self,
        arrays: dict,
        nodes: int,
        providers: Sequence[dict],
        private: np.ndarray,
        reported: np.ndarray,
        group: np.ndarray,
    ) -> list[MarketRun]:
        """Several provider strategies with the same bids, one ``MarketRun`` each in the order given: equal
        to ``run`` for each, but a market may share work between them (the scheduling market runs each
        scheduler once for all its payment schemes and reservation prices)."""


class SchedulingMarket:
    """Serial jobs on identical nodes, scheduled by reported bids and paid by a payment scheme
    (``gamemarket.market.simulate``; the contract ``market-model.md``)."""

    kind = "scheduling"
    description = "jobs on identical nodes: a scheduler x a payment scheme x a reserve price"
    workload_sources = ()  # synthetic, a workload model, or a trace

    def size(self, arrays: dict) -> int:
        """The number of jobs."""
        return len(arrays["id"])

    def key_fields(self) -> dict:
        """Nothing beyond the inputs and the market model's version, which every key already holds."""
        return {}

    def run(self, arrays, nodes, provider, private, reported, group) -> MarketRun:
        """One scheduler x payment scheme x reserve price with these bids (``simulate``)."""
        from gamemarket.market.simulate import simulate

        table = _table(arrays, private, reported, group)
        res = simulate(table, nodes, _mechanism(provider), validate=False)
        return MarketRun(res.jobs, res.summary)

    def run_many(self, arrays, nodes, providers, private, reported, group) -> list[MarketRun]:
        """One engine pass per scheduler pays every payment scheme and reservation price asked for
        (``gamemarket.market.simulate.simulate_many``)."""
        from gamemarket.market.simulate import simulate_many

        runs = simulate_many(
            _table(arrays, private, reported, group), nodes, [_mechanism(p) for p in providers], validate=False
        )
        return [MarketRun(r.jobs, r.summary) for r in runs]


def _mechanism(provider: dict):
    from gamemarket.market.simulate import Mechanism

    return Mechanism(provider["scheduler"], provider["payment"], provider["reserve"])


def _table(arrays: dict, private: np.ndarray, reported: np.ndarray, group: np.ndarray) -> pd.DataFrame:
    table = pd.DataFrame({c: arrays[c] for c in ("id", "submit", "runtime", "estimate")}, copy=False)
    table["private_bid"] = private
    table["reported_bid"] = reported
    table["group"] = group
    return table


class PricingMarket:
    """Jobs bidding for throughput on a heterogeneous cluster, allocated by price discovery
    (``gamemarket.market.pricing_market``; the contract ``pricing-model.md``)."""

    kind = "pricing"
    description = "a heterogeneous cluster's resources, allocated by price discovery"
    workload_sources = ("hetero",)

    def size(self, arrays: dict) -> int:
        """The number of jobs (rows of the efficiencies ``A``)."""
        return arrays["A"].shape[0]

    def key_fields(self) -> dict:
        """The price-discovery solver's version: a changed solver never reuses a stored result."""
        from gamemarket.pricing import SOLVER_VERSION

        return {"solver": SOLVER_VERSION}

    def run(self, arrays, nodes, provider, private, reported, group) -> MarketRun:
        """One pricing mechanism (``pricing_market.run``) with these bids."""
        from gamemarket.market import pricing_market

        params = {k: v for k, v in provider.items() if k not in ("kind", "mechanism")}
        return pricing_market.run(arrays["A"], arrays["R"], private, reported, group, provider["mechanism"], params)

    def run_many(self, arrays, nodes, providers, private, reported, group) -> list[MarketRun]:
        """Each mechanism solves its own allocation problem: nothing to share."""
        return [self.run(arrays, nodes, p, private, reported, group) for p in providers]


MARKETS: Registry[Market] = Registry("market")
MARKETS.register("scheduling", SchedulingMarket())
MARKETS.register("pricing", PricingMarket())


def market_for_workload(source: str) -> Market:
    """The market a study's workload belongs to: the one that names its source, else the one that takes
    any other (the scheduling market)."""
    named = [mk for mk in MARKETS.values() if source in mk.workload_sources]
    return named[0] if named else next(mk for mk in MARKETS.values() if not mk.workload_sources)


def market_for(provider: dict) -> Market:
    """The market a provider strategy belongs to (its ``kind``, "scheduling" by default)."""
    return MARKETS.get(provider.get("kind", "scheduling"))
