"""Draws the comparison of two workloads (curves computed by :func:`gamemarket.workloads.stats.workload_curves`)."""

from __future__ import annotations

import sys
from pathlib import Path

from gamemarket.reports.drawing import save


def draw_workload_comparison(curves: dict, out: str | Path, *, nodes: int) -> Path:
    """One figure, four panels, one line per workload: ``curves`` maps a label to its curves."""
    import matplotlib  # deferred: matplotlib

    if "ipykernel" not in sys.modules:  # a notebook keeps its own (inline) backend
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: matplotlib.pyplot

    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5))
    for label, c in curves.items():
        x, y = c["runtime_cdf"]
        ax[0, 0].step(x, y, where="post", label=label)
        lags, acf = c["acf"]
        ax[0, 1].plot(lags, acf, marker=".", label=label)
        h, share = c["hour_of_day"]
        ax[1, 0].plot(h, 100 * share, marker="o", label=label)
        d, load = c["hourly_load"]
        ax[1, 1].plot(d, load, lw=0.7, label=label)
    ax[0, 0].set(xscale="log", xlabel="run time (s)", ylabel="share of jobs at or below", title="Run time")
    ax[0, 1].set(
        xscale="log",
        xlabel="lag (jobs, submit order)",
        ylabel="autocorrelation of log run time",
        title="Campaigns: similar jobs in a row",
    )
    ax[1, 0].set(xlabel="hour of the day (from the first submit)", ylabel="submissions (%)", title="Daily cycle")
    ax[1, 1].axhline(1.0, color="grey", lw=0.8, ls="--")
    ax[1, 1].set_ylim(bottom=0)
    ax[1, 1].set(
        xlabel="day",
        ylabel=f"offered load per hour ({nodes} nodes)",
        yscale="symlog",
        title="Bursts: hourly offered load, first 60 days",
    )
    for a in ax.flat:
        a.legend(fontsize=8)
    return save(fig, out, dpi=110)
