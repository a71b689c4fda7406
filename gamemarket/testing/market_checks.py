"""Conformance checks for a registered market: the market protocol answered on its own example.

A market declares a small ``example_workload`` and ``example_providers()`` (one provider table per
registered mechanism); :func:`check_market` loads the one, runs the others with seeded bids, and checks
what studies rely on (``gamemarket.market.base``): the prepared workload, the provider parameters, the
outcome columns and summary fields that payoffs read, the same numbers on a second run, and ``run_many``
equal to ``run`` one provider at a time.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from gamemarket import bids, consumers
from gamemarket.market import payoffs
from gamemarket.market.base import MARKETS, MarketRun, PreparedWorkload, market_for, market_for_workload
from gamemarket.testing.report import FAILED, PASSED, ConformanceReport, check_options

#: what every market's run carries: per-job columns and summary fields (``payoffs``, ``MarketRun``)
JOB_COLUMNS = ("group", "private_bid", "utility", "payment")
SUMMARY_FIELDS = ("revenue", "utilization", "welfare")
#: a figure's rounding past its declared range that the checks forgive (a sum of floats at a bound)
_ULPS = 1e-9
#: the consumers' mix of the runs: a small aggressive group, so reported bids differ from private ones
MIX = consumers.SRG


def _inside(v: float, lo: float, hi: float) -> bool:
    """``lo <= v <= hi`` but for a rounding of ``_ULPS`` relative."""
    return lo - _ULPS * (1 + abs(lo)) <= v <= hi + _ULPS * (1 + abs(hi))


def _same(a, b) -> bool:
    """Equal values, arrays or mappings, with NaN equal to NaN."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        x, y = np.asarray(a), np.asarray(b)
        if x.shape != y.shape:
            return False
        if x.dtype.kind == "f" and y.dtype.kind == "f":
            return bool(np.all((x == y) | (np.isnan(x) & np.isnan(y))))
        return bool(np.all(x == y))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def job_columns(jobs) -> dict:
    """A run's per-job outcome as column arrays (a DataFrame's categoricals as codes)."""
    if isinstance(jobs, dict):
        return dict(jobs)
    return {c: (jobs[c].cat.codes if jobs[c].dtype == "category" else jobs[c]).to_numpy() for c in jobs.columns}


def checked(report, name: str, body) -> object:
    """Run one check's ``body`` (returns (detail, value) or raises); record it; the value, or None on failure."""
    try:
        detail, value = body()
    except Exception as exc:  # a check reports what broke, rather than stopping the report
        report.add(name, FAILED, f"{type(exc).__name__}: {exc}")
        return None
    report.add(name, PASSED, detail)
    return value


def prepared(market, kind: str, workload: dict):
    """The check "workload": ``market`` checks and prepares its example ``workload``; (detail, prepared)."""
    wl = market.check_workload(dict(workload), f"market {kind!r} example", Path.cwd())
    prep = market.prepare(wl)
    assert isinstance(prep, PreparedWorkload), f"prepare returned {type(prep).__name__}, not a PreparedWorkload"
    assert prep.market == kind, f"the prepared workload names market {prep.market!r}"
    assert prep.jobs == market.size(prep.arrays) >= 1, f"jobs = {prep.jobs}, size(arrays) = {market.size(prep.arrays)}"
    assert int(prep.nodes) >= 1, f"nodes = {prep.nodes}"
    assert market_for_workload(wl["source"]) is market, f"source {wl['source']!r} belongs to another market"
    return f"{prep.jobs} jobs, {prep.nodes} {market.size_name}", prep


def provider_params(market, kind: str, providers: list[dict]):
    """The check "providers": ``market`` reads each example provider as its own; (detail, parameters)."""
    out = []
    for i, entry in enumerate(providers):
        params = {"kind": kind, **market.provider_params(dict(entry), f"example provider {i}")}
        assert market_for(params) is market, f"example provider {i} ({entry}) belongs to another market"
        assert isinstance(market.describe_provider(params), str), "describe_provider gives no text"
        out.append(params)
    assert out, "the market offers no example provider"
    return f"{len(out)} providers: " + ", ".join(market.describe_provider(p) for p in out), out


def _runs(market, prep, providers: list[dict], seed: int):
    d = bids.draw(prep.jobs, seed)
    group, reported = MIX.report(d.private_bid, d.G, d.U)
    runs = []
    for params in providers:
        run = market.run(prep.arrays, prep.nodes, params, d.private_bid, reported, group)
        where = market.describe_provider(params)
        assert isinstance(run, MarketRun), f"{where}: run returned {type(run).__name__}, not a MarketRun"
        cols = job_columns(run.jobs)
        missing = [c for c in JOB_COLUMNS if c not in cols] + [f for f in SUMMARY_FIELDS if f not in run.summary]
        assert not missing, f"{where}: the run lacks {missing}"
        assert all(len(v) == prep.jobs for v in cols.values()), f"{where}: a column's length is not {prep.jobs}"
        outside = [
            f"{k} = {run.summary[k]!r} outside its declared range [{lo}, {hi}]"
            for k, (lo, hi) in getattr(market, "figure_ranges", {}).items()
            if k in run.summary and not _inside(float(run.summary[k]), lo, hi)
        ]
        assert not outside, f"{where}: {outside[0]} (the market's figure_ranges)"
        payoffs.of_run(run, MIX.betas, d.G, d.private_bid)
        runs.append(run)
    return f"{len(runs)} runs, seed {seed}: outcome columns, summary and payoffs", (d, group, reported, runs)


def _repeatable(market, prep, providers, drawn):
    d, group, reported, runs = drawn
    for params, first in zip(providers, runs):
        again = market.run(prep.arrays, prep.nodes, params, d.private_bid, reported, group)
        where = market.describe_provider(params)
        a, b = job_columns(first.jobs), job_columns(again.jobs)
        bad = [c for c in a if c not in b or not _same(a[c], b[c])]
        assert not bad, f"{where}: column {bad[0]!r} differs between two runs"
        bad = [k for k in first.summary if not _same(first.summary[k], again.summary.get(k))]
        assert not bad, f"{where}: summary field {bad[0]!r} differs between two runs"
    return f"{len(runs)} runs twice: the same numbers", None


def _run_many(market, prep, providers, drawn):
    d, group, reported, runs = drawn
    many = market.run_many(prep.arrays, prep.nodes, providers, d.private_bid, reported, group)
    assert len(many) == len(providers), f"run_many gave {len(many)} runs for {len(providers)} providers"
    for params, alone, shared in zip(providers, runs, many):
        where = market.describe_provider(params)
        bad = [k for k in alone.summary if not _same(alone.summary[k], shared.summary.get(k))]
        assert not bad, f"{where}: run_many's summary field {bad[0]!r} differs from run's"
        a, b = job_columns(alone.jobs), job_columns(shared.jobs)
        bad = [c for c in a if c not in b or not _same(a[c], b[c])]
        assert not bad, f"{where}: run_many's column {bad[0]!r} differs from run's"
    return f"{len(many)} providers in one call: each equals its own run", None


def check_market(
    kind: str,
    *,
    workload: dict | None = None,
    providers: list[dict] | None = None,
    seed: int = 0,
    raise_on_failure: bool = True,
) -> ConformanceReport:
    """Check a registered market against the market protocol on a small workload.

    Checks: ``workload`` (the ``[workload]`` table checks, loads and belongs to this market), ``providers``
    (each provider table's parameters check and describe themselves), ``run`` (seeded bids: each run is
    a ``MarketRun`` with the columns and summary fields payoffs read, each field the market declares a range for
    (``figure_ranges``) inside it, and its payoffs compute),
    ``repeatable`` (a second run gives the same numbers) and ``run_many`` (equal to ``run`` per provider).

    Parameters
    ----------
    kind : str
        A name in ``gamemarket.market.base.MARKETS``.
    workload : dict, optional
        A ``[workload]`` table (default: the market's ``example_workload``).
    providers : list of dict, optional
        Provider tables (default: the market's ``example_providers()``).
    seed : int
        The bids' seed.
    raise_on_failure : bool
        Raise :class:`ConformanceError` (an ``AssertionError``) when a check fails; else return the report.

    Returns
    -------
    ConformanceReport
    """
    check_options("check_market", seed=seed, raise_on_failure=raise_on_failure)
    report = ConformanceReport("market", kind)
    market = MARKETS.get(kind)
    prep = checked(report, "workload", lambda: prepared(market, kind, workload or market.example_workload))
    params = checked(
        report, "providers", lambda: provider_params(market, kind, providers or market.example_providers())
    )
    if prep is not None and params is not None:
        drawn = checked(report, "run", lambda: _runs(market, prep, params, seed))
        if drawn is not None:
            checked(report, "repeatable", lambda: _repeatable(market, prep, params, drawn))
            checked(report, "run_many", lambda: _run_many(market, prep, params, drawn))
    return report.raise_if_failed() if raise_on_failure else report
