"""The scheduling market: serial jobs on identical nodes, scheduled by reported bids and paid by a payment scheme.

It answers the market protocol (``gamemarket.market.base``) with the engine of ``gamemarket.market.simulate``;
its mechanisms are a registered scheduler (``schedulers``) x a registered payment scheme (``payments``) x a
reservation price (the contract ``market-model.md``). ``base`` registers it as ``MARKETS["scheduling"]``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from gamemarket.bids import bid_bin_codes
from gamemarket.errors import InputError
from gamemarket.io.files import check_table
from gamemarket.market import outcomes
from gamemarket.market.payments import PAYMENTS
from gamemarket.market.runs import MarketRun, PreparedWorkload
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.market.simulate import Mechanism, arrival_order, run_arrays, simulate, simulate_many
from gamemarket.workloads import WorkloadModel, load, synthetic_spec
from gamemarket.workloads.archive import KNOWN_TRACES, named_copy


def _nodes_once(wl: dict, where: str) -> None:
    """A synthetic workload's node count given twice must be one count: the generator sets its arrival rate for
    ``[workload.synthetic] nodes`` (its ``load``) and the market ran on ``[workload] nodes``, so 16 and 8 ran at twice
    the load the report's parameters said."""
    synth = wl.get("synthetic", {})
    if "nodes" in wl and "nodes" in synth and wl["nodes"] != synth["nodes"]:
        raise InputError(
            f"{where}: [workload] nodes = {wl['nodes']!r} and [workload.synthetic] nodes = {synth['nodes']!r} differ: "
            "the generator sets the arrival rate for its own node count, so give the count once (either field)"
        )


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
    #: a small congested workload the conformance checks run (``gamemarket.testing.check_market``)
    example_workload = {"source": "synthetic", "synthetic": {"jobs": 80, "nodes": 4, "load": 1.2, "seed": 1}}
    #: the ranges its figures lie in by the rules alone (market model): payments are >= 0 (a scheme's price that is
    #: negative stops the run), a valuation is ``-w_i phi_i <= 0`` and a utility ``v_i - p_i <= 0`` (an outside
    #: option's ``-w_i tau_i - c tau_i`` too), utilization is busy node-seconds over the span's, ``stay`` a share.
    #: Confidence intervals are intersected with them (``gamemarket.confidence.t_interval``); the conformance
    #: checks hold every run to them (``gamemarket.testing.check_market``)
    figure_ranges = {
        "revenue": (0.0, float("inf")),
        "welfare": (float("-inf"), 0.0),
        "welfare_all": (float("-inf"), 0.0),
        "mean_utility": (float("-inf"), 0.0),
        "utilization": (0.0, 1.0),
        "stay": (0.0, 1.0),
    }

    def example_providers(self) -> list[dict]:
        """Every registered scheduler x payment scheme at r = 1, as provider tables (``[strategies.provider.*]``)."""
        return [{"kind": self.kind, "scheduler": s, "payment": p, "reserve": 1.0} for s in SCHEDULERS for p in PAYMENTS]

    def prepare(self, workload: dict) -> PreparedWorkload:
        """A trace, the synthetic generator or a workload model (``gamemarket.workloads.load``), and its
        node count (given, or the trace's scaled by ``reduction``)."""
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
        nodes = w.nodes(workload.get("nodes"), workload.get("reduction"))
        return PreparedWorkload(self.kind, arrays, nodes, w.meta, w, jobs=self.size(arrays))

    def check_workload(self, workload: dict, where: str, base: Path) -> dict:
        """A trace (a known name, or a file relative to the study), the synthetic generator's
        ``[workload.synthetic]`` table, or a workload model (``model``) with its jobs, load and seed."""
        wl = dict(workload)
        for key in ("hetero", "file"):
            if key in wl:
                raise InputError(
                    f"{where}: [workload] field {key!r} belongs to the pricing market (source = 'hetero'), "
                    f"not to source {wl['source']!r}"
                )
        if wl["source"] == "synthetic" and "model" in wl:
            wl["model"] = str(_find_model(wl["model"], base, where))
            try:
                WorkloadModel.read(wl["model"])
            except InputError as exc:
                raise InputError(f"{where}: [workload] model: {exc}") from None
            check_table(
                wl.get("synthetic", {}), f"{where}: [workload.synthetic] (with a model)", {"jobs", "load", "seed"}
            )
        elif wl["source"] == "synthetic":
            synthetic_spec(wl.get("synthetic", {}), where=f"{where}: [workload.synthetic]")
            _nodes_once(wl, where)
        else:
            src = Path(wl["source"])
            if not src.is_absolute() and (base / src).exists():
                try:  # (a known trace's name: the file must be that trace)
                    named_copy(base / src, wl["source"])
                except InputError as exc:
                    raise InputError(f"{where}: [workload] field 'source': {exc}") from None
                wl["source"] = str((base / src).resolve())
            elif not src.is_absolute() and _known_trace(wl["source"]) is None:
                # a trace is relative to the study file, never to the working folder (hunt 20d-F3: one study file
                # ran other traces from other folders)
                raise InputError(
                    f"{where}: [workload] field 'source': no such trace {wl['source']!r} beside the study file "
                    f"({base / src}); a trace's path is relative to the study file, or a known trace's name "
                    f"({', '.join(sorted(KNOWN_TRACES))})"
                )
        return wl

    def with_jobs(self, workload: dict, n: int, where: str) -> dict:
        """Not offered: a scheduling market's size is its node count, and its jobs come from a trace or
        a generator whose load depends on them."""
        raise InputError(f"{where}: [gains] needs a market whose size is its number of jobs (source = 'hetero')")

    def provider_params(self, entry: dict, where: str) -> dict:
        """``scheduler``, ``payment`` and ``reserve`` (default 1): a :class:`Mechanism`'s parameters."""
        allowed = {"kind", "scheduler", "payment", "reserve", "preemption_overhead", "blend", "description"}
        check_table(entry, where, allowed, {"scheduler", "payment"})
        try:
            return Mechanism(
                str(entry["scheduler"]),
                str(entry["payment"]),
                float(entry.get("reserve", 1.0)),
                float(entry.get("preemption_overhead", 0.0)),
                None if entry.get("blend") is None else float(entry["blend"]),
            ).describe()
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: {exc}") from exc

    def describe_provider(self, params: dict) -> str:
        """``(hb, kth, r=1)``; a blend ``(hb, blend 0.3, r=1)``."""
        pay = params["payment"] + (f" {params['blend']:g}" if params.get("blend") is not None else "")
        return f"({params['scheduler']}, {pay}, r={params['reserve']:g})"

    def size(self, arrays: dict) -> int:
        """The number of jobs."""
        return len(arrays["id"])

    def key_fields(self) -> dict:
        """Nothing beyond the inputs and the market model's version, which every key already holds."""
        return {}

    def run(self, arrays, nodes, provider, private, reported, group) -> MarketRun:
        """One scheduler x payment scheme x reserve price with these bids (``simulate``)."""
        table = _table(arrays, private, reported, group)
        res = simulate(table, nodes, _mechanism(provider), validate=False)
        return MarketRun(res.jobs, res.summary)

    def runner(self, arrays, nodes, provider, private):
        """``run(reported, group) -> MarketRun``: many runs of one provider with the same private bids (a
        population study's chunk, a seed's probes), each equal to ``run(arrays, nodes, provider, private,
        reported, group)`` but for its per-job outcome, column arrays as ``run_many`` gives them. What no
        reported bid changes (the job columns, the run-time groups, the private bids' classes) is computed
        once: building a table and ranking the run times again cost a fifth of a population run, and checking the
        jobs' arrival order again about 1 ms of LPC's."""
        table = {c: arrays[c] for c in ("id", "submit", "runtime", "estimate")}
        table["private_bid"] = private
        mech = _mechanism(provider)
        order = arrival_order(table)
        groups = outcomes.runtime_group_codes(
            np.asarray(table["runtime"], dtype=np.int64), np.asarray(table["id"], dtype=np.int64)
        )
        bid_codes = bid_bin_codes(np.asarray(private, dtype=np.float64))

        def run(reported, group) -> MarketRun:
            t = {**table, "reported_bid": reported, "group": group}
            start, end, pay, npre, steps = run_arrays(t, nodes, mech, order=order)
            jobs = outcomes.per_job_columns(t, start, end, pay, npre, runtime_codes=groups, bid_codes=bid_codes)
            summ = outcomes.summary(jobs, nodes)
            summ["allocation_steps"] = int(steps)  # as simulate's summary has it
            return MarketRun(jobs, summ)

        return run

    def payoff_runner(self, arrays, nodes, provider, private):
        """``run(reported, group) -> (utility, fields)``: ``runner``'s runs reduced to what a population game reads,
        each job's utility and the summary's revenue, utilization and welfare (``outcomes.payoff_outcome``), bit for
        bit ``runner``'s numbers without its other per-job columns and aggregates, which a LPC population study
        computed 3,858 times for nothing. The group draw changes no number of this market's runs. The jobs' arrival
        order is worked out once, as ``runner``'s."""
        table = {c: arrays[c] for c in ("id", "submit", "runtime", "estimate")}
        table["private_bid"] = private
        mech = _mechanism(provider)
        of_run = outcomes.payoff_outcome(table, nodes)
        order = arrival_order(table)

        def run(reported, group):
            _, end, pay, _, _ = run_arrays({**table, "reported_bid": reported}, nodes, mech, order=order)
            return of_run(end, pay)

        return run

    def run_many(self, arrays, nodes, providers, private, reported, group) -> list[MarketRun]:
        """One engine pass per scheduler pays every payment scheme and reservation price asked for
        (``gamemarket.market.simulate.simulate_many``); each run's per-job outcome comes as column arrays
        (a study only sums them, and building a DataFrame per run cost more than the sums)."""
        table = {c: arrays[c] for c in ("id", "submit", "runtime", "estimate")}
        table.update(private_bid=private, reported_bid=reported, group=group)
        runs = simulate_many(table, nodes, [_mechanism(p) for p in providers], validate=False, columns=True)
        return [MarketRun(r.jobs, r.summary) for r in runs]


def _mechanism(provider: dict) -> Mechanism:
    return Mechanism(provider["scheduler"], provider["payment"], provider["reserve"], blend=provider.get("blend"))


def _table(arrays: dict, private: np.ndarray, reported: np.ndarray, group: np.ndarray) -> pd.DataFrame:
    table = pd.DataFrame({c: arrays[c] for c in ("id", "submit", "runtime", "estimate")}, copy=False)
    table["private_bid"] = private
    table["reported_bid"] = reported
    table["group"] = group
    return table


def _known_trace(source: str):
    """The known trace ``source`` names (``LPC-EGEE-2004-1.2-cln``, with or without ``.swf.gz``), else None."""
    return KNOWN_TRACES.get(source[: -len(".swf.gz")] if source.endswith(".swf.gz") else source)


def _find_model(value, base: Path, where: str) -> Path:
    """A workload model's path: absolute, or relative to the study's folder or its parent (the project, for
    ``models/<name>.toml`` from ``studies/``), else a built-in model's name."""
    if not isinstance(value, str) or not value.lower().endswith(".toml"):
        raise InputError(f"{where}: [workload] field 'model': expected a path to a .toml model file, got {value!r}")
    p = Path(value)
    # beside the study file, or its parent's (the project's models/ from studies/): never the working folder, which
    # made one study file run other models from other folders (hunt 20d-F3)
    cands = [p] if p.is_absolute() else [base / p, base.parent / p]
    for c in cands:
        if c.is_file():
            return c.resolve()
    builtin = builtin_model(value)
    if builtin is not None:
        return builtin
    raise InputError(
        f"{where}: [workload] field 'model': no such file {value!r} (looked in "
        f"{', '.join(str(c.parent) for c in cands)}, and among the built-in models {builtin_models()})"
    )


def builtin_models() -> list[str]:
    """The workload models installed with the package (``gamemarket/data/models``), by file name."""
    folder = resources.files("gamemarket") / "data" / "models"
    return sorted(f.name for f in folder.iterdir() if f.name.endswith(".toml"))


def builtin_model(value: str) -> Path | None:
    """A built-in model named ``models/<name>.toml`` or ``<name>.toml`` (a study copied out of the checkout
    still finds the embedded default), else None."""
    p = Path(value)
    if p.is_absolute() or p.parent not in (Path("."), Path("models")) or p.name not in builtin_models():
        return None
    return Path(str(resources.files("gamemarket") / "data" / "models" / p.name))
