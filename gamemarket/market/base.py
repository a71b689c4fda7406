"""The market protocol: both markets run one profile the same way, and a registry picks one by kind.

A market prepares a study's workload once (``prepare``: the ``[workload]`` table to a
``PreparedWorkload``). It takes the prepared workload (``arrays``: the scheduling market's job columns, or the pricing
market's efficiencies ``A`` and capacities ``R``), a provider strategy (``provider``: its ``kind`` and
parameters), and every job's private bid, reported bid and consumer group; it returns a ``MarketRun``:
the per-job outcomes and the provider's summary. Payoffs are computed from a ``MarketRun`` in one place
(``gamemarket.market.payoffs.of_run``), whatever the market. Studies never branch on the kind: they
look the market up in ``MARKETS``, and what a report shows follows the market's own attributes
(``size_name``, ``has_users``, ``paper_analysis``, ``describe_provider``), never its name.

The concrete markets live one per module (``scheduling_market``, ``pricing_market``); this module imports
and registers them, so whoever reads ``MARKETS`` (through this module) finds both. They build a
``MarketRun`` and a ``PreparedWorkload`` from ``runs``, which imports neither them nor this module: no
import cycle. (``import gamemarket.market`` alone does not load the markets: the scheduling engine and the
``simulate --jobs`` path stay free of pandas, the workload readers and price discovery.)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from gamemarket.market.pricing_market import PricingMarket
from gamemarket.market.runs import MarketRun, PreparedWorkload
from gamemarket.market.scheduling_market import SchedulingMarket
from gamemarket.registry import Registry

__all__ = [
    "MARKETS",
    "Market",
    "MarketRun",
    "PreparedWorkload",
    "PricingMarket",
    "SchedulingMarket",
    "figure_ranges",
    "generator_sources",
    "market_for",
    "market_for_workload",
]


class Market(Protocol):
    """What a market answers: how to load its workload, its size, its own key fields and one run with
    given bids; and what a report shows of it."""

    kind: str
    description: str
    workload_sources: tuple[str, ...]  #: the ``[workload] source`` values it runs on (empty: any other)
    generator_sources: tuple[str, ...]  #: the source names of its generators (not files)
    size_name: str  #: what ``nodes`` counts ("nodes", "resources")
    has_users: bool  #: jobs carry a user (SWF field 12), so agents can be users
    paper_analysis: bool  #: the source paper's cohorts, claims and figures apply (Shudler et al. 2010)
    example_workload: dict  #: a small ``[workload]`` table the conformance checks run
    #: metric -> ``(lo, hi)``: the ranges its figures lie in by its rules alone (optional; none where absent)
    figure_ranges: dict

    def example_providers(self) -> list[dict]:
        """Provider tables (``[strategies.provider.*]``, with ``kind``) covering its registered mechanisms:
        what ``gamemarket.testing.check_market`` runs on ``example_workload``."""

    def prepare(self, workload: dict) -> PreparedWorkload:
        """Load a study's ``[workload]`` table (already checked by :meth:`check_workload`), with its ``jobs``
        the market's ``size`` of its arrays."""

    def check_workload(self, workload: dict, where: str, base: Path) -> dict:
        """A study's ``[workload]`` table checked and with its paths resolved against ``base`` (the study's
        folder); errors name ``where`` and the field."""

    def with_jobs(self, workload: dict, n: int, where: str) -> dict:
        """The same ``[workload]`` table with ``n`` jobs (the shading-gain experiment's market sizes), or an
        :class:`InputError` where this market's workload cannot be resized."""

    def provider_params(self, entry: dict, where: str) -> dict:
        """A provider strategy's table (``[strategies.provider.NAME]``) checked: the mechanism's parameters
        (what ``run`` reads and a task's key holds), without ``kind`` and ``description``. A market whose
        parameters must fit its workload (one price per resource) may also define ``check_providers(workload,
        providers, where)``, which a study calls once both are read, so that a misfit is refused before any run."""

    def describe_provider(self, params: dict) -> str:
        """A provider strategy's parameters in a few words, for a report's setup table."""

    def size(self, arrays: dict) -> int:
        """The number of jobs (bidders) of a prepared workload."""

    def key_fields(self) -> dict:
        """What, beyond the inputs, determines a run's numbers (a solver's version): part of a stored
        result's key, so a changed solver never reuses a stale result."""

    def run(
        self, arrays: dict, nodes: int, provider: dict, private: np.ndarray, reported: np.ndarray, group: np.ndarray
    ) -> MarketRun:
        """One profile: the provider's mechanism with these bids."""

    def runner(self, arrays: dict, nodes: int, provider: dict, private: np.ndarray):
        """``run(reported, group) -> MarketRun``: many runs of one provider with the same private bids, each
        equal to ``run`` with them (its per-job outcome as a table or as column arrays); a market may compute
        once what no reported bid changes."""

    def payoff_runner(self, arrays: dict, nodes: int, provider: dict, private: np.ndarray):
        """``run(reported, group) -> (utility, fields)``: ``runner``'s runs reduced to what a population game reads
        (each job's utility as a float array, and a summary with at least the provider's revenue, utilization and
        welfare), bit for bit ``runner``'s numbers; a market may skip the per-job columns nothing else reads."""

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


MARKETS: Registry[Market] = Registry("market")
MARKETS.register("scheduling", SchedulingMarket())
MARKETS.register("pricing", PricingMarket())
MARKETS.seal()  # built in: never replaced (``Registry.seal``)


def generator_sources() -> set[str]:
    """Every market's generator names (``synthetic``, ``hetero``): sources that are not files."""
    return {s for mk in MARKETS.values() for s in mk.generator_sources}


def market_for_workload(source: str) -> Market:
    """The market a study's workload belongs to: the one that names its source, else the one that takes
    any other (the scheduling market)."""
    named = [mk for mk in MARKETS.values() if source in mk.workload_sources]
    return named[0] if named else next(mk for mk in MARKETS.values() if not mk.workload_sources)


def market_for(provider: dict) -> Market:
    """The market a provider strategy belongs to (its ``kind``, "scheduling" by default)."""
    return MARKETS.get(provider.get("kind", "scheduling"))


def figure_ranges(provider: dict) -> dict:
    """metric -> ``(lo, hi)``: the ranges the provider's market declares its figures lie in (``figure_ranges``;
    empty for a market that declares none)."""
    return dict(getattr(market_for(provider), "figure_ranges", {}))
