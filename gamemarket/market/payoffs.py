"""Payoffs of one run: the provider's and the consumers' numbers a game is built from.

From a per-job outcome table this module computes the flat metrics of a run (provider revenue,
utilization, welfare; consumer mean utility overall, per runtime group and per consumer group)
and the binned aggregates the reports plot (per consumer group, runtime group and private-bid bin).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from gamemarket.bids import BID_CLASSES, bid_bin_codes
from gamemarket.market.outcomes import RUNTIME_GROUPS

PROVIDER_PAYOFFS = ("revenue", "utilization", "welfare")
CONSUMER_PAYOFFS = (
    ("mean_utility",)
    + tuple(f"mean_utility_{g}" for g in RUNTIME_GROUPS)
    + ("mean_utility_aggressive", "mean_utility_conservative", "mean_bsd", "ssj_share")
)
BID_BIN_WIDTH = 10.0
#: the most cells (group x runtime group x bid class) counted in one dense array; past it, only the cells used
DENSE_CELLS = 1 << 20
# Units: a bid is a price per second of run time, so utilities, payments and revenue are in bid x seconds.
BID_UNIT = "bid per second of run time"
UNITS = {
    "revenue": "bid x s",
    "welfare": "bid x s",
    "utilization": "share of node time",
    "mean_bsd": "bounded slowdown, no unit",
    "ssj_share": "share of jobs",
    **{m: "bid x s per job" for m in CONSUMER_PAYOFFS if m.startswith("mean_utility")},
}


def unit(metric: str) -> str:
    """The unit of a payoff (or of its negation, ``-mean_bsd``), as the reports label axes and colour bars."""
    return UNITS.get(metric.removeprefix("-"), "")


def _values(jobs, col: str) -> np.ndarray:
    """A per-job column's values, from a DataFrame or from a mapping of column arrays
    (``outcomes.per_job_columns``, what a study's runs carry)."""
    v = jobs[col]
    return v.to_numpy() if hasattr(v, "to_numpy") else np.asarray(v)


def _runtime_codes(jobs) -> np.ndarray | None:
    """Each job's runtime-group code (0 SHORT, 1 MEDIUM, 2 LONG): a DataFrame's categorical codes, or the
    codes a mapping of columns holds; None for a market without runtime groups."""
    if "runtime_group" not in jobs:
        return None
    v = jobs["runtime_group"]
    return np.asarray(v.cat.codes if hasattr(v, "cat") else v, dtype=np.int64)


def aggressive_group(betas: np.ndarray) -> int | None:
    """Index of the aggressive group: the one with the largest beta, when betas differ."""
    betas = np.asarray(betas, dtype=float)
    if len(betas) < 2 or np.all(betas == betas[0]):
        return None
    return int(np.argmax(betas))


def group_utilities(u: np.ndarray, group: np.ndarray, betas: np.ndarray) -> dict[str, float]:
    """Mean utility of the aggressive group and of the others (NaN where a side is empty or undefined)."""
    agg = aggressive_group(betas)
    if agg is None:
        return {"mean_utility_aggressive": np.nan, "mean_utility_conservative": float(u.mean()) if len(u) else np.nan}
    sel = group == agg
    return {
        "mean_utility_aggressive": float(u[sel].mean()) if sel.any() else np.nan,
        "mean_utility_conservative": float(u[~sel].mean()) if (~sel).any() else np.nan,
    }


def run_metrics(jobs: pd.DataFrame, summary: dict, betas: np.ndarray) -> dict[str, float]:
    """Every payoff of one run as a flat dict (NaN where a group is empty or undefined). ``jobs``: the
    per-job table, or its columns.

    Whatever the market: what it does not measure is NaN (a pricing market has no slowdown or runtime
    groups; ``preemptions`` is 0 there), and its own summary numbers (``converged``, ``gap``) follow."""
    u = _values(jobs, "utility")
    m = {
        "revenue": summary["revenue"],
        "utilization": summary["utilization"],
        "welfare": summary["welfare"],
        "mean_utility": float(u.mean()) if len(u) else np.nan,
        "mean_bsd": summary.get("mean_bsd", np.nan),
        "ssj_share": summary.get("ssj_share", np.nan),
        "preemptions": float(summary.get("preemptions", 0.0)),
        "span": summary.get("span", np.nan),
    }
    for extra in ("converged", "gap"):
        if extra in summary:
            m[extra] = float(summary[extra]) if extra == "converged" else summary[extra]
    rg = _runtime_codes(jobs)
    for code, g in enumerate(RUNTIME_GROUPS):
        sel = rg == code if rg is not None else None
        m[f"mean_utility_{g}"] = float(u[sel].mean()) if sel is not None and sel.any() else np.nan
    m.update(group_utilities(u, _values(jobs, "group"), betas))
    return m


def of_run(
    run, betas: np.ndarray, G: np.ndarray, private_bid: np.ndarray, *, cells: Cells | None = None
) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """A ``MarketRun``'s payoffs, for either market: (flat metrics, binned sums, cohort sums).

    ``cells`` (``Cells.of``, with the group draws) shares the jobs' cells between the runs of one consumer
    mix and seed, and both tables of sums then come from one pass over the jobs (``sums``)."""
    metrics = run_metrics(run.jobs, run.summary, betas)
    if cells is not None and cells.cohort_cell is not None:
        return (metrics, *sums(run.jobs, G, private_bid, cells))
    return metrics, binned(run.jobs, cells), cohorts(run.jobs, G, private_bid, cells)


@dataclass(frozen=True)
class Cells:
    """Each job's cell in ``binned`` (consumer group, runtime group, private-bid bin) and in ``cohorts``
    (group-draw bin, bid class), with the cells' counts.

    They depend only on what the runs of one consumer mix and seed share (the consumer groups, the run
    times, the private bids and the group draws), so such runs compute them once; ``check`` makes sure
    a run's jobs are the ones the cells were made from."""

    group: np.ndarray
    runtime_codes: np.ndarray | None  #: None for a market without runtime groups
    private_bid: np.ndarray
    bin_cell: np.ndarray
    bin_size: int
    bin_n: np.ndarray
    bin_used: np.ndarray
    bin_columns: dict  #: group, runtime_group and bid_bin of each used cell
    G: np.ndarray | None  #: the group draws of ``cohort_cell`` (None where none were given)
    cohort_cell: np.ndarray | None
    cohort_n: np.ndarray | None = None  #: jobs per cohort cell

    @classmethod
    def of(cls, jobs: pd.DataFrame, G: np.ndarray | None = None, private_bid: np.ndarray | None = None) -> Cells:
        """The cells of ``jobs`` (and of the group draws ``G`` and ``private_bid`` for ``cohorts``)."""
        group = np.asarray(_values(jobs, "group"), dtype=np.int64)
        rg = _runtime_codes(jobs)
        names = np.array(RUNTIME_GROUPS if rg is not None else ["ALL"])
        w = _values(jobs, "private_bid")
        b = np.floor(w / BID_BIN_WIDTH).astype(np.int64)
        b_lo = b.min() if len(b) else 0
        nb = (b.max() - b_lo + 1) if len(b) else 1
        ng = group.max() + 1 if len(group) else 1
        cell = (group * len(names) + (rg if rg is not None else 0)) * nb + (b - b_lo)
        size = int(ng * len(names) * nb)
        if size > DENSE_CELLS:  # bids spread over many classes (a distribution up to 1e9): only the cells used
            keys, cell = np.unique(cell, return_inverse=True)
            size = len(keys)
            n = np.bincount(cell, minlength=size)
            used = np.arange(size)
        else:
            n = np.bincount(cell, minlength=size)
            keys = used = np.flatnonzero(n)
        g, rest = np.divmod(keys, len(names) * nb)
        r, bb = np.divmod(rest, nb)
        columns = {"group": g, "runtime_group": names[r], "bid_bin": (bb + b_lo) * BID_BIN_WIDTH}
        cohort = cohort_n = None
        if G is not None:
            G = np.asarray(G, dtype=np.float64)
            cohort = g_bins(G) * len(BID_CLASSES) + bid_bin_codes(private_bid).astype(np.int64)
            cohort_n = np.bincount(cohort, minlength=COHORT_SIZE)
        return cls(group, rg, w, cell, size, n, used, columns, G, cohort, cohort_n)

    def check(self, jobs: pd.DataFrame) -> None:
        """Raise ``ValueError`` unless ``jobs`` has the consumer groups, runtime groups and private bids
        these cells were made from."""
        rg = _runtime_codes(jobs)
        same = (
            np.array_equal(np.asarray(_values(jobs, "group"), dtype=np.int64), self.group)
            and np.array_equal(_values(jobs, "private_bid"), self.private_bid)
            and ((rg is None and self.runtime_codes is None) or np.array_equal(rg, self.runtime_codes))
        )
        if not same:
            raise ValueError("payoffs: these cells were made from other jobs (groups, runtime groups or private bids)")


def binned(jobs: pd.DataFrame, cells: Cells | None = None) -> pd.DataFrame:
    """Sums per (consumer group, runtime group, private-bid bin): what the report's curves need.

    A market without runtime groups (pricing) has one, ``ALL``; the sums it does not measure (slowdown,
    SSJs, flow) are 0, and a pricing run adds ``sum_throughput``. ``cells``: as ``Cells.of(jobs)`` returns."""
    if cells is None:
        cells = Cells.of(jobs)
    else:
        cells.check(jobs)
    cell, size, used = cells.bin_cell, cells.bin_size, cells.bin_used

    def total(col):
        if col not in jobs:
            return None
        return np.bincount(cell, weights=_values(jobs, col).astype(np.float64), minlength=size)[used]

    return _bins_frame(cells, total)


def _bins_frame(cells: Cells, total) -> pd.DataFrame:
    """``binned``'s table from ``total(col)``: the sum of the jobs' column ``col`` in each used cell, or None
    where the jobs lack it (its sum is then 0, and a missing throughput leaves its column out)."""
    used = cells.bin_used

    def s(col):
        v = total(col)
        return np.zeros(len(used)) if v is None else v

    out = pd.DataFrame(
        {
            **cells.bin_columns,
            "n": cells.bin_n[used],
            "sum_bsd": s("bsd"),
            "n_ssj": s("ssj").astype(np.int64),
            "sum_utility": s("utility"),
            "sum_payment": s("payment"),
            "sum_flow": s("flow"),
        }
    )
    throughput = total("throughput")
    if throughput is not None:
        out["sum_throughput"] = throughput
    return out


COHORT_BINS = 100
COHORT_SIZE = COHORT_BINS * len(BID_CLASSES)
#: the per-job columns summed per cell (where a market's outcome has them) and their sums' names
SUMMED = (
    ("utility", "sum_utility"),
    ("payment", "sum_payment"),
    ("bsd", "sum_bsd"),
    ("ssj", "n_ssj"),
    ("flow", "sum_flow"),
    ("throughput", "sum_throughput"),
)


def g_bins(G: np.ndarray) -> np.ndarray:
    """The cohort bin of each group draw: ``k`` with ``k/100 <= G < (k+1)/100`` for the doubles ``k/100``.

    Exactly ``searchsorted(arange(1, 100) / 100, G, side="right")``, in O(1) per job: ``floor(100 G)``
    can be one off near a threshold (rounding of ``100 G``), so it is corrected against the thresholds."""
    G = np.asarray(G, dtype=np.float64)
    k = np.clip(np.floor(G * COHORT_BINS).astype(np.int64), 0, COHORT_BINS - 1)
    k -= (k > 0) & (G < k / COHORT_BINS)
    k += (k < COHORT_BINS - 1) & (G >= (k + 1) / COHORT_BINS)
    return k


def cohorts(jobs: pd.DataFrame, G: np.ndarray, private_bid: np.ndarray, cells: Cells | None = None) -> pd.DataFrame:
    """Sums per 1% bin of the group draw ``G`` (bin k holds ``k/100 <= G < (k+1)/100``) and private-bid class.

    With common random numbers a job's ``G`` and private bid are the same under every beta mix, so
    the jobs that a mix makes aggressive (``G >= cum``) can be followed into the truthful run of the
    same seed, bid class by bid class: the cohort ``G >= k/100`` is the union of bins k..99.
    Thresholds are the doubles ``k/100``, which equal the cumulative fractions 0.9, 0.99, ... of
    the catalogue's mixes exactly. One row per (``g_bin``, ``bid_class``), empty cells included.
    ``cells``: ``Cells.of(jobs, G, private_bid)``, when the caller has them.
    """
    if cells is None or cells.cohort_cell is None:
        cell = g_bins(G) * len(BID_CLASSES) + bid_bin_codes(private_bid).astype(np.int64)
    elif np.array_equal(G, cells.G) and np.array_equal(private_bid, cells.private_bid):
        cell = cells.cohort_cell
    else:
        raise ValueError("payoffs: these cells were made from other group draws or private bids")
    size = COHORT_SIZE
    g_bin, cls = np.divmod(np.arange(size), len(BID_CLASSES))
    out = pd.DataFrame(
        {"g_bin": g_bin, "bid_class": np.array(BID_CLASSES)[cls], "n": np.bincount(cell, minlength=size)}
    )
    # the columns a market's outcome has (scheduling: bsd, ssj, flow; pricing: throughput)
    for col, name in SUMMED:
        if col in jobs:
            v = np.bincount(cell, weights=_values(jobs, col).astype(np.float64), minlength=size)
            out[name] = v.astype(np.int64) if name == "n_ssj" else v
    return out


def sums(jobs: pd.DataFrame, G: np.ndarray, private_bid: np.ndarray, cells: Cells) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``binned(jobs, cells)`` and ``cohorts(jobs, G, private_bid, cells)``, equal to them bit for bit, from
    one pass over the jobs (``_cell_sums``) instead of a ``bincount`` per column and table.

    Each cell adds its jobs' values in job order, as ``np.bincount`` does, so every sum is rounded the same
    way. ``cells``: ``Cells.of(jobs, G, private_bid)``; other jobs or draws are refused, as there."""
    cells.check(jobs)
    if cells.cohort_cell is None or not (np.array_equal(G, cells.G) and np.array_equal(private_bid, cells.private_bid)):
        raise ValueError("payoffs: these cells were made from other group draws or private bids")
    present = [(col, name) for col, name in SUMMED if col in jobs]
    weights = np.empty((len(present), len(cells.bin_cell)))
    for k, (col, _) in enumerate(present):
        weights[k] = _values(jobs, col)  # as ``astype(np.float64)``: exact for counts and times
    by_bin, by_cohort = _cell_sums(cells.bin_cell, cells.bin_size, cells.cohort_cell, COHORT_SIZE, weights)
    at = {col: k for k, (col, _) in enumerate(present)}
    bins = _bins_frame(cells, lambda col: by_bin[at[col], cells.bin_used] if col in at else None)
    g_bin, cls = np.divmod(np.arange(COHORT_SIZE), len(BID_CLASSES))
    coh = {"g_bin": g_bin, "bid_class": np.array(BID_CLASSES)[cls], "n": cells.cohort_n}
    for k, (_, name) in enumerate(present):
        coh[name] = by_cohort[k].astype(np.int64) if name == "n_ssj" else by_cohort[k]
    return bins, pd.DataFrame(coh)


@njit(cache=True, nogil=True)
def _cell_sums(a_cell, a_size, b_cell, b_size, weights):  # pragma: no cover - compiled
    """Per-cell sums of each row of ``weights`` (K x J) under two cell assignments of the same J jobs:
    (K x a_size, K x b_size). Job by job in order, so each sum is the one ``np.bincount(cell, weights=row)``
    returns."""
    K = weights.shape[0]
    a = np.zeros((a_size, K))  # a job's K sums side by side: they add in parallel
    b = np.zeros((b_size, K))
    for i in range(len(a_cell)):
        ca = a_cell[i]
        cb = b_cell[i]
        for k in range(K):
            w = weights[k, i]
            a[ca, k] += w
            b[cb, k] += w
    return a.T.copy(), b.T.copy()
