"""The market protocol: both markets run one profile the same way, and a registry picks one by kind.

A market prepares a study's workload once (``prepare``: the ``[workload]`` table to a
``PreparedWorkload``). It takes the prepared workload (``arrays``: the scheduling market's job columns, or the pricing
market's efficiencies ``A`` and capacities ``R``), a provider strategy (``provider``: its ``kind`` and
parameters), and every job's private bid, reported bid and consumer group; it returns a ``MarketRun``:
the per-job outcomes and the provider's summary. Payoffs are computed from a ``MarketRun`` in one place
(``gamemarket.market.payoffs.of_run``), whatever the market. Studies never branch on the kind: they
look the market up in ``MARKETS``, and what a report shows follows the market's own attributes
(``size_name``, ``has_users``, ``paper_analysis``, ``describe_provider``), never its name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

import numpy as np
import pandas as pd

from gamemarket.errors import InputError
from gamemarket.registry import Registry


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
    (a :class:`gamemarket.workloads.Workload`, or the pricing market's dict).
    """

    market: str
    arrays: dict = field(repr=False)
    nodes: int
    meta: dict
    source: object = field(default=None, repr=False)

    @property
    def jobs(self) -> int:
        """The number of jobs (bidders)."""
        return MARKETS.get(self.market).size(self.arrays)


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

    def prepare(self, workload: dict) -> PreparedWorkload:
        """Load a study's ``[workload]`` table (already checked by :meth:`check_workload`)."""

    def check_workload(self, workload: dict, where: str, base: Path) -> dict:
        """A study's ``[workload]`` table checked and with its paths resolved against ``base`` (the study's
        folder); errors name ``where`` and the field."""

    def with_jobs(self, workload: dict, n: int, where: str) -> dict:
        """The same ``[workload]`` table with ``n`` jobs (the shading-gain experiment's market sizes), or an
        :class:`InputError` where this market's workload cannot be resized."""

    def provider_params(self, entry: dict, where: str) -> dict:
        """A provider strategy's table (``[strategies.provider.NAME]``) checked: the mechanism's parameters
        (what ``run`` reads and a task's key holds), without ``kind`` and ``description``."""

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
    generator_sources = ("synthetic",)  # a generated workload (or a model's), not a file
    size_name = "nodes"
    has_users = True
    paper_analysis = True

    def prepare(self, workload: dict) -> PreparedWorkload:
        """A trace, the synthetic generator or a workload model (``gamemarket.workloads.load``), and its
        node count (given, or the trace's scaled by ``reduction``)."""
        from gamemarket.workloads import load

        synth = dict(workload.get("synthetic", {}))
        if workload["source"] == "synthetic" and "nodes" in workload:
            synth.setdefault("nodes", workload["nodes"])
        w = load(
            workload["source"],
            parallel=workload.get("parallel", "split"),
            skip_bad_lines=workload.get("skip_bad_lines", False),
            model=workload.get("model"),
            **synth,
        )
        arrays = {
            c: np.ascontiguousarray(w.jobs[c].to_numpy(np.int64)) for c in ("id", "submit", "runtime", "estimate")
        }
        return PreparedWorkload(self.kind, arrays, w.nodes(workload.get("nodes"), workload.get("reduction")), w.meta, w)

    def check_workload(self, workload: dict, where: str, base: Path) -> dict:
        """A trace (a known name, or a file relative to the study), the synthetic generator's
        ``[workload.synthetic]`` table, or a workload model (``model``) with its jobs, load and seed."""
        from gamemarket.io.files import check_table

        wl = dict(workload)
        for key in ("hetero", "file"):
            if key in wl:
                raise InputError(
                    f"{where}: [workload] field {key!r} belongs to the pricing market (source = 'hetero'), "
                    f"not to source {wl['source']!r}"
                )
        if wl["source"] == "synthetic" and "model" in wl:
            from gamemarket.workloads import WorkloadModel

            wl["model"] = str(_find_model(wl["model"], base, where))
            try:
                WorkloadModel.read(wl["model"])
            except InputError as exc:
                raise InputError(f"{where}: [workload] model: {exc}") from None
            check_table(
                wl.get("synthetic", {}), f"{where}: [workload.synthetic] (with a model)", {"jobs", "load", "seed"}
            )
        elif wl["source"] == "synthetic":
            from gamemarket.workloads import synthetic_spec

            synthetic_spec(wl.get("synthetic", {}), where=f"{where}: [workload.synthetic]")
        else:
            src = Path(wl["source"])
            if not src.is_absolute() and (base / src).exists():
                wl["source"] = str((base / src).resolve())
        return wl

    def with_jobs(self, workload: dict, n: int, where: str) -> dict:
        """Not offered: a scheduling market's size is its node count, and its jobs come from a trace or
        a generator whose load depends on them."""
        raise InputError(f"{where}: [gains] needs a market whose size is its number of jobs (source = 'hetero')")

    def provider_params(self, entry: dict, where: str) -> dict:
        """``scheduler``, ``payment`` and ``reserve`` (default 1): a :class:`Mechanism`'s parameters."""
        from gamemarket.io.files import check_table
        from gamemarket.market.simulate import Mechanism

        allowed = {"kind", "scheduler", "payment", "reserve", "preemption_overhead", "description"}
        check_table(entry, where, allowed, {"scheduler", "payment"})
        try:
            return Mechanism(
                str(entry["scheduler"]),
                str(entry["payment"]),
                float(entry.get("reserve", 1.0)),
                float(entry.get("preemption_overhead", 0.0)),
            ).describe()
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: {exc}") from exc

    def describe_provider(self, params: dict) -> str:
        """``(hb, kth, r=1)``."""
        return f"({params['scheduler']}, {params['payment']}, r={params['reserve']:g})"

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
        (``gamemarket.market.simulate.simulate_many``); each run's per-job outcome comes as column arrays
        (a study only sums them, and building a DataFrame per run cost more than the sums)."""
        from gamemarket.market.simulate import simulate_many

        table = {c: arrays[c] for c in ("id", "submit", "runtime", "estimate")}
        table.update(private_bid=private, reported_bid=reported, group=group)
        runs = simulate_many(table, nodes, [_mechanism(p) for p in providers], validate=False, columns=True)
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
    generator_sources = ("hetero",)
    size_name = "resources"
    has_users = False
    paper_analysis = False

    def prepare(self, workload: dict) -> PreparedWorkload:
        """A market file (``[workload] file``) or the generator's ``[workload.hetero]`` parameters."""
        from gamemarket.market import pricing_market as hetero

        if "file" in workload:
            mk = hetero.load_market(workload["file"])
            meta = {"source": workload["file"]}
        else:
            hs = hetero.HeteroSpec.from_dict(workload.get("hetero", {}))
            mk = hetero.generate(hs)
            # "synthetic": the generator's parameters, under the key every market's meta uses for them
            meta = {"source": "hetero", "synthetic": {k: getattr(hs, k) for k in hs.__dataclass_fields__}}
        arrays = {"A": np.ascontiguousarray(mk["A"]), "R": np.ascontiguousarray(mk["R"])}
        return PreparedWorkload(self.kind, arrays, int(mk["A"].shape[1]), meta, mk)

    def check_workload(self, workload: dict, where: str, base: Path) -> dict:
        """A market file (``file``, relative to the study) or the generator's ``[workload.hetero]`` table."""
        from gamemarket.market.pricing_market import HeteroSpec

        wl = dict(workload)
        HeteroSpec.from_dict(wl.get("hetero", {}), where=f"{where}: [workload.hetero]")
        if "file" in wl and not Path(wl["file"]).is_absolute():
            wl["file"] = str((base / wl["file"]).resolve())
        return wl

    def with_jobs(self, workload: dict, n: int, where: str) -> dict:
        """The generator's table with ``jobs = n``."""
        import copy

        wl = copy.deepcopy(workload)
        wl.setdefault("hetero", {})["jobs"] = int(n)
        return wl

    def provider_params(self, entry: dict, where: str) -> dict:
        """``mechanism`` (registered in ``pricing_market``), and ``reserve`` or ``prices``: a number >= 0 or one
        per resource (lists become tuples, so the parameters are hashable)."""
        from gamemarket.io.files import check_table
        from gamemarket.market.pricing_market import get_mechanism

        check_table(entry, where, {"kind", "mechanism", "reserve", "prices", "description"}, {"mechanism"})
        try:
            get_mechanism(str(entry["mechanism"]))
            params = {"mechanism": str(entry["mechanism"])}
            for key in ("reserve", "prices"):
                if key in entry:
                    v = entry[key]
                    vals = [float(x) for x in v] if isinstance(v, list) else float(v)
                    if any(not np.isfinite(x) or x < 0 for x in np.atleast_1d(vals)):
                        raise InputError(f"field {key!r} must be numbers >= 0")
                    params[key] = tuple(vals) if isinstance(vals, list) else vals
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: {exc}") from exc
        return params

    def describe_provider(self, params: dict) -> str:
        """``(mechanism=..., reserve=...)``: every parameter."""
        return f"({', '.join(f'{a}={b}' for a, b in params.items() if a != 'kind')})"

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
        return pricing_market.run(
            arrays["A"], arrays["R"], private, reported, group, provider["mechanism"], params=params
        )

    def run_many(self, arrays, nodes, providers, private, reported, group) -> list[MarketRun]:
        """Each mechanism solves its own allocation problem: nothing to share."""
        return [self.run(arrays, nodes, p, private, reported, group) for p in providers]


MARKETS: Registry[Market] = Registry("market")
MARKETS.register("scheduling", SchedulingMarket())
MARKETS.register("pricing", PricingMarket())


def _find_model(value, base: Path, where: str) -> Path:
    """A workload model's path: absolute, or relative to the study's folder, its parent (the
    project, for ``models/<name>.toml`` from ``studies/``) or the working directory."""
    if not isinstance(value, str) or not value.endswith(".toml"):
        raise InputError(f"{where}: [workload] field 'model': expected a path to a .toml model file, got {value!r}")
    p = Path(value)
    cands = [p] if p.is_absolute() else [base / p, base.parent / p, Path.cwd() / p]
    for c in cands:
        if c.is_file():
            return c.resolve()
    raise InputError(
        f"{where}: [workload] field 'model': no such file {value!r} (looked in "
        f"{', '.join(str(c.parent) for c in cands)})"
    )


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
