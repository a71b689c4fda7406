"""Statistics that say whether a workload congests like a real trace (issue 12's table).

Everything here reads the job table only; the queue statistics, which need a simulation, are in
:mod:`gamemarket.market.outcomes` (:func:`gamemarket.market.outcomes.congestion`).
"""

from __future__ import annotations

import numpy as np

from gamemarket.errors import InputError

HOUR, DAY = 3600.0, 86400.0


def autocorrelation(x: np.ndarray, lag: int) -> float:
    """Sample autocorrelation of ``x`` at ``lag`` (NaN where the series is too short or constant)."""
    x = np.asarray(x, dtype=float)
    if lag < 1 or len(x) <= lag + 1 or x.min() == x.max():  # (a constant's deviations are rounding, not 0)
        return float("nan")
    d = x - x.mean()
    den = float(d @ d)
    return float(d[:-lag] @ d[lag:] / den) if den > 0 else float("nan")


def daily_period_hours(submit: np.ndarray, *, band=(6.0, 48.0)) -> float:
    """The period (hours) of the strongest cycle of hourly arrival counts within ``band``.

    The periodogram of the hourly counts (mean removed), its peak refined by a parabola through
    the three bins around it. A workload with a true 24-hour cycle gives 24 h; NaN when the
    span is under four days.
    """
    s = np.asarray(submit, dtype=float)
    if len(s) == 0:
        return float("nan")
    hours = np.floor((s - s.min()) / HOUR).astype(np.int64)
    n = int(hours.max()) + 1
    if n < 96:
        return float("nan")
    counts = np.bincount(hours, minlength=n).astype(float)
    power = np.abs(np.fft.rfft(counts - counts.mean())) ** 2
    freq = np.fft.rfftfreq(n, d=1.0)  # cycles per hour
    with np.errstate(divide="ignore"):
        period = np.where(freq > 0, 1.0 / np.where(freq > 0, freq, 1.0), np.inf)
    inside = np.flatnonzero((period >= band[0]) & (period <= band[1]))
    k = int(inside[np.argmax(power[inside])])
    if 0 < k < len(power) - 1:  # parabolic interpolation of the peak in frequency
        a, b, c = np.log(power[k - 1 : k + 2] + 1e-300)
        den = a - 2 * b + c
        shift = 0.5 * (a - c) / den if den != 0 else 0.0
        f = freq[k] + np.clip(shift, -0.5, 0.5) * (freq[1] - freq[0])
        return float(1.0 / f)
    return float(period[k])


def workload_stats(jobs, nodes: int) -> dict:
    """The arrival and run-time statistics of a job table (``submit``, ``runtime`` columns).

    Returns a dict: ``jobs``, ``offered_load``, ``mean_runtime``, ``median_runtime``,
    ``days_overloaded`` (share of calendar days, counted from the first submit, whose submitted
    work exceeds ``nodes`` days of capacity), ``hourly_load_p99`` (99th percentile of the work
    submitted per hour over the capacity of an hour), ``gap_cv`` (coefficient of variation of the
    gaps between consecutive submits, zeros included), ``acf_log_runtime_1/100/1000``
    (autocorrelation of log run time in submit order) and ``daily_period_h``.
    """
    if nodes is None or int(nodes) < 1:
        raise InputError(f"workload statistics: nodes must be >= 1, got {nodes}")
    submit = np.asarray(jobs["submit"], dtype=float)
    runtime = np.asarray(jobs["runtime"], dtype=float)
    if len(submit) < 2:
        raise InputError(f"workload statistics: need at least 2 jobs, got {len(submit)}")
    order = np.argsort(submit, kind="stable")
    submit, runtime = submit[order], runtime[order]
    span = submit[-1] - submit[0]
    t = submit - submit[0]
    day = np.floor(t / DAY).astype(np.int64)
    day_work = np.bincount(day, weights=runtime)
    hour = np.floor(t / HOUR).astype(np.int64)
    hour_work = np.bincount(hour, weights=runtime)
    gaps = np.diff(submit)
    lr = np.log(np.maximum(runtime, 1.0))
    return {
        "jobs": int(len(submit)),
        "offered_load": float(runtime.sum() / (nodes * span)) if span > 0 else float("inf"),
        "mean_runtime": float(runtime.mean()),
        "median_runtime": float(np.median(runtime)),
        "days_overloaded": float(np.mean(day_work > nodes * DAY)),
        "hourly_load_p99": float(np.quantile(hour_work / (nodes * HOUR), 0.99)),
        "gap_cv": float(gaps.std() / gaps.mean()) if gaps.mean() > 0 else float("nan"),
        "acf_log_runtime_1": autocorrelation(lr, 1),
        "acf_log_runtime_100": autocorrelation(lr, 100),
        "acf_log_runtime_1000": autocorrelation(lr, 1000),
        "daily_period_h": daily_period_hours(submit),
    }


def workload_curves(jobs, nodes: int, *, days: int = 60) -> dict:
    """The curves a comparison figure draws (computed here; :mod:`gamemarket.reports` only draws).

    ``runtime_cdf`` (seconds, share of jobs), ``acf`` (lags 1..1000 on a log grid, autocorrelation
    of log run time), ``hour_of_day`` (share of submissions per hour of the day, counted from the
    first submit) and ``hourly_load`` (hours, offered load of each hour over the first ``days``).
    """
    submit = np.sort(np.asarray(jobs["submit"], dtype=float))
    order = np.argsort(np.asarray(jobs["submit"]), kind="stable")
    runtime = np.asarray(jobs["runtime"], dtype=float)[order]
    x = np.sort(runtime)
    pick = np.unique(np.linspace(0, len(x) - 1, min(len(x), 400)).astype(np.int64))
    lr = np.log(np.maximum(runtime, 1.0))
    lags = np.unique(np.geomspace(1, 1000, 40).astype(np.int64))
    t = submit - submit[0]
    hod = np.bincount((np.floor(t / HOUR) % 24).astype(np.int64), minlength=24) / len(t)
    hour = np.floor(t / HOUR).astype(np.int64)
    keep = hour < days * 24
    load = np.bincount(hour[keep], weights=runtime[keep], minlength=days * 24)[: days * 24] / (nodes * HOUR)
    return {
        "runtime_cdf": (x[pick], (pick + 1) / len(x)),
        "acf": (lags, np.array([autocorrelation(lr, int(k)) for k in lags])),
        "hour_of_day": (np.arange(24), hod),
        "hourly_load": (np.arange(len(load)) / 24.0, load),
    }


#: why a statistic of :func:`workload_stats` is undefined (NaN; ``null`` in JSON, ``n/a`` in a table)
UNDEFINED = {
    "gap_cv": "every job arrives at the same second",
    "acf_log_runtime_1": "every run time is the same, or the jobs are fewer than the lag + 2",
    "acf_log_runtime_100": "every run time is the same, or the jobs are fewer than the lag + 2",
    "acf_log_runtime_1000": "every run time is the same, or the jobs are fewer than the lag + 2",
    "daily_period_h": "the jobs' arrivals span less than four days",
}


def undefined(stats: dict) -> dict[str, str]:
    """The statistics of ``stats`` (:func:`workload_stats`) that are undefined, each with why (``UNDEFINED``)."""
    return {
        k: UNDEFINED.get(k, "undefined for this workload")
        for k, v in stats.items()
        if isinstance(v, float) and not np.isfinite(v)
    }
