"""Conformance checks for a market's runners: ``runner`` and ``payoff_runner`` give ``run``'s numbers exactly.

A population study's chunks and an exploration's probes never call a market's ``run``: they call the runner of one
provider and one set of private bids (``Market.runner``; ``Market.payoff_runner``, its lean form, for what a
population game reads), which may work out once what no reported bid changes. :func:`check_runners` runs a few
bid profiles (truthful, a consumer mix with its groups, per-class shading) through both runners and
through ``run``, the plain path, and checks that the numbers are the same to the last bit, including where a runner
is called again after other profiles (a result kept from an earlier call must not change, and a runner's state must
not leak from one profile into the next).
"""

from __future__ import annotations

import numpy as np

from gamemarket import bids
from gamemarket.market.base import MARKETS
from gamemarket.testing.market_checks import MIX, SUMMARY_FIELDS, checked, job_columns, prepared, provider_params
from gamemarket.testing.report import ConformanceReport, check_options


def _bits_equal(a, b) -> bool:
    """Equal to the last bit: floats by their bit patterns (signed zeros and NaNs too), anything else by value."""
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return False
    if x.dtype.kind == "f" and y.dtype.kind == "f":
        return bool(np.array_equal(x.astype(np.float64).view(np.int64), y.astype(np.float64).view(np.int64)))
    if x.dtype.kind == "f" or y.dtype.kind == "f":
        return False
    return bool(np.array_equal(x, y))


def profiles(jobs: int, seed: int) -> tuple[np.ndarray, list[tuple[str, np.ndarray, np.ndarray]]]:
    """The private bids of ``seed`` and the profiles the checks run: ``(name, reported, group)`` each."""
    d = bids.draw(jobs, seed)
    w, zero = d.private_bid, np.zeros(jobs, np.int64)
    mix_group, mix_reported = MIX.report(w, d.G, d.U)
    high = np.where(bids.bid_bin_codes(w) == 2, 0.9, 0.0)  # shade only the high bids, as ``shade-high-0.9``
    return w, [
        ("truthful", w.copy(), zero),
        (f"mix {MIX.name}", mix_reported, np.asarray(mix_group, np.int64)),
        ("shade high 0.9", w * (1.0 - high * d.U), zero),
    ]


def _plain(market, prep, providers, seed):
    """The private bids, the profiles and every provider's plain runs of them (``run``), which both checks read."""
    w, cases = profiles(prep.jobs, seed)
    runs = [[market.run(prep.arrays, prep.nodes, p, w, rw, g) for _, rw, g in cases] for p in providers]
    return f"{len(providers)} providers x {len(cases)} profiles", (w, cases, runs)


def _runner(market, prep, providers, drawn):
    w, cases, runs = drawn
    for params, plain in zip(providers, runs):
        where = market.describe_provider(params)
        one = market.runner(prep.arrays, prep.nodes, params, w)
        order = [*range(len(cases)), 0]  # the first profile again, after the others
        kept = [one(cases[i][1], cases[i][2]) for i in order]
        for i, got in zip(order, kept):  # compared after every call: a later call must not change a kept result
            name, want = cases[i][0], plain[i]
            a, b = job_columns(want.jobs), job_columns(got.jobs)
            bad = [c for c in a if c not in b or not _bits_equal(a[c], b[c])]
            assert not bad, f"{where}, profile {name!r}: runner's column {bad[0]!r} differs from run's"
            bad = [k for k in want.summary if k not in got.summary or not _bits_equal(want.summary[k], got.summary[k])]
            assert not bad, f"{where}, profile {name!r}: runner's summary field {bad[0]!r} differs from run's"
    return f"{len(providers)} providers x {len(cases)} profiles (the first twice): run's columns and summary", None


def _payoff_runner(market, prep, providers, drawn):
    w, cases, runs = drawn
    for params, plain in zip(providers, runs):
        where = market.describe_provider(params)
        one = market.payoff_runner(prep.arrays, prep.nodes, params, w)
        order = [*range(len(cases)), 0]
        kept = [one(cases[i][1], cases[i][2]) for i in order]
        for i, (utility, fields) in zip(order, kept):
            name, want = cases[i][0], plain[i]
            util = np.asarray(job_columns(want.jobs)["utility"])
            assert isinstance(utility, np.ndarray) and utility.dtype == np.float64, (
                f"{where}, profile {name!r}: payoff_runner's utilities are not a float64 array"
            )
            assert _bits_equal(utility, util), f"{where}, profile {name!r}: payoff_runner's utilities differ from run's"
            bad = [k for k in SUMMARY_FIELDS if k not in fields or not _bits_equal(fields[k], want.summary[k])]
            assert not bad, f"{where}, profile {name!r}: payoff_runner's field {bad[0]!r} differs from run's summary"
    return (
        f"{len(providers)} providers x {len(cases)} profiles (the first twice): run's utilities and {SUMMARY_FIELDS}",
        None,
    )


def check_runners(
    kind: str,
    *,
    workload: dict | None = None,
    providers: list[dict] | None = None,
    seed: int = 0,
    raise_on_failure: bool = True,
) -> ConformanceReport:
    """Check a registered market's ``runner`` and ``payoff_runner`` against its ``run`` on a small workload.

    Checks: ``workload`` and ``providers`` (as :func:`gamemarket.testing.check_market`), ``run`` (every provider's
    plain run of each profile, which the next two compare with), ``runner`` (each profile's
    per-job columns and summary equal ``run``'s to the last bit) and ``payoff_runner`` (each profile's utilities and
    the summary's revenue, utilization and welfare equal ``run``'s to the last bit). Each runner runs every profile
    (:func:`profiles`) and then the first one again, and every result is compared after all the calls.

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
    check_options("check_runners", seed=seed, raise_on_failure=raise_on_failure)
    report = ConformanceReport("market", kind)
    market = MARKETS.get(kind)
    prep = checked(report, "workload", lambda: prepared(market, kind, workload or market.example_workload))
    params = checked(
        report, "providers", lambda: provider_params(market, kind, providers or market.example_providers())
    )
    if prep is not None and params is not None:
        drawn = checked(report, "run", lambda: _plain(market, prep, params, seed))
        if drawn is not None:
            checked(report, "runner", lambda: _runner(market, prep, params, drawn))
            checked(report, "payoff_runner", lambda: _payoff_runner(market, prep, params, drawn))
    return report.raise_if_failed() if raise_on_failure else report
