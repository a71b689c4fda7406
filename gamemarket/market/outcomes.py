"""Per-job and provider outcomes (market model sections 6-7), runtime groups and bid bins."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from gamemarket.bids import BID_CLASSES, bid_bin_codes
from gamemarket.errors import InputError
from gamemarket.io import jobtable
from gamemarket.io.files import atomic_path

if TYPE_CHECKING:  # tables are DataFrames, except on ``simulate --jobs``'s path (``per_job_columns``)
    import pandas as pd

#: Per-job outcome columns of the exchange format (section 8).
OUTCOME_COLUMNS = ("id", "start", "end", "flow", "wait", "bsd", "ssj", "payment", "utility", "preemptions")
SSJ_THRESHOLD = 5.0
RUNTIME_GROUPS = ("SHORT", "MEDIUM", "LONG")


def runtime_group_codes(runtime: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """0 SHORT / 1 MEDIUM / 2 LONG: jobs sorted by ``(runtime, id)``; the first and second ``floor(J/3)``,
    then the rest."""
    J = len(runtime)
    runtime = np.asarray(runtime, dtype=np.int64)
    ids = np.asarray(ids, dtype=np.int64)
    third = J // 3
    codes = np.full(J, 2, dtype=np.int8)
    if third == 0:
        return codes
    # increasing ids from 0 up first: only then is ids[-1] + 1 a positive span
    if (
        ids[0] >= 0
        and (np.diff(ids) > 0).all()
        and runtime.min() >= 0
        and int(runtime.max()) < 2**62 // (int(ids[-1]) + 1)
    ):
        span = int(ids[-1]) + 1
        # increasing ids (the usual table) make every (runtime, id) pair distinct, so one integer key orders
        # them the same way; and with distinct keys a job's group is fixed by the keys at the two cut points,
        # which a selection finds without sorting (16 million jobs: a quarter second against argsort's 2 s)
        key = runtime * span + ids
        cut1, cut2 = np.partition(key, (third - 1, 2 * third - 1))[[third - 1, 2 * third - 1]]
        codes[key <= cut2] = 1
        codes[key <= cut1] = 0
        return codes
    order = np.lexsort((ids, runtime))
    codes[order[:third]] = 0
    codes[order[third : 2 * third]] = 1
    return codes


#: the labels of the per-job table's categorical columns, in code order
CATEGORIES = {"runtime_group": RUNTIME_GROUPS, "bid_bin": BID_CLASSES}


def runtime_groups(runtime: np.ndarray, ids: np.ndarray) -> pd.Categorical:
    """SHORT / MEDIUM / LONG labels (a categorical) of ``runtime_group_codes``."""
    import pandas as pd  # deferred: pandas

    return pd.Categorical.from_codes(runtime_group_codes(runtime, ids), categories=list(RUNTIME_GROUPS))


def per_job(
    table: pd.DataFrame,
    start: np.ndarray,
    end: np.ndarray,
    payment: np.ndarray,
    preemptions: np.ndarray,
    *,
    runtime_codes: np.ndarray | None = None,
    bid_codes: np.ndarray | None = None,
) -> pd.DataFrame:
    """The per-job outcome table (``per_job_columns``) as a DataFrame, with ``runtime_group`` and
    ``bid_bin`` categorical. The table's columns are not copied: the outcome shares the arrays it was given."""
    import pandas as pd  # deferred: pandas

    cols = per_job_columns(table, start, end, payment, preemptions, runtime_codes=runtime_codes, bid_codes=bid_codes)
    for c, labels in CATEGORIES.items():
        cols[c] = pd.Categorical.from_codes(cols[c], categories=list(labels))
    return pd.DataFrame(cols, copy=False)


def per_job_columns(
    table: pd.DataFrame,
    start: np.ndarray,
    end: np.ndarray,
    payment: np.ndarray,
    preemptions: np.ndarray,
    *,
    runtime_codes: np.ndarray | None = None,
    bid_codes: np.ndarray | None = None,
    only: tuple[str, ...] | None = None,
) -> dict[str, np.ndarray]:
    """The per-job outcome: section-8 columns plus inputs and groups, in job-table order, as column
    arrays; ``runtime_group`` and ``bid_bin`` are codes into ``CATEGORIES``. ``table``: a DataFrame or a
    mapping of column arrays.

    ``runtime_codes`` (``runtime_group_codes``: 0 SHORT, 1 MEDIUM, 2 LONG) saves ranking the run times again
    when several runs share a job table; by default they are computed from the table, and so are ``bid_codes``
    (``bid_bin_codes`` of the private bids). The table's columns are not copied: the outcome shares the arrays
    it was given. ``only`` names the columns wanted (the others are not computed), in that order."""

    def col(c, dtype):
        return np.asarray(table[c], dtype=dtype)

    def get(c):  # each column computed once, from the ones it needs
        if c not in have:
            have[c] = formulas[c]()
        return have[c]

    have: dict[str, np.ndarray] = {}
    formulas = {  # in the table's column order
        "id": lambda: col("id", np.int64),
        "start": lambda: start,
        "end": lambda: end,
        "flow": lambda: end - get("submit"),
        "wait": lambda: get("flow") - get("runtime"),
        "bsd": lambda: get("flow") / np.maximum(get("runtime"), 60).astype(np.float64),
        "ssj": lambda: get("bsd") >= SSJ_THRESHOLD,
        "payment": lambda: payment,
        "utility": lambda: -get("private_bid") * get("flow") - payment,
        "preemptions": lambda: preemptions,
        "submit": lambda: col("submit", np.int64),
        "runtime": lambda: col("runtime", np.int64),
        "private_bid": lambda: col("private_bid", np.float64),
        "reported_bid": lambda: col("reported_bid", np.float64),
        "group": lambda: col("group", np.int64) if "group" in table else np.zeros(len(get("id")), np.int64),
        "valuation": lambda: -get("private_bid") * get("flow"),
        "runtime_group": lambda: (
            runtime_codes if runtime_codes is not None else runtime_group_codes(get("runtime"), get("id"))
        ),
        "bid_bin": lambda: bid_codes if bid_codes is not None else bid_bin_codes(get("private_bid")),
    }
    out = {c: get(c) for c in (formulas if only is None else only)}
    # the formulas and ``get`` refer to each other: a cycle that would keep every array computed here alive
    # until the cyclic collector runs (rarely in a CLI process, gamemarket.cli.run: a 16M-job streamed run grew
    # by 1 GB); emptying the dict breaks it, so the slice's arrays go as soon as the caller drops them
    formulas.clear()
    return out


#: rows per slice (and per Parquet row group) of a per-job table written as it is computed (``write_per_job``):
#: a slice's columns of 2^18 rows (2 MB each) left the C allocator's heap 150 MB larger after a 5M-job write
#: (freed, not returned), of 2^16 rows 55 MB
STREAM_ROWS = 1 << 16


def _slice(table, lo: int, hi: int) -> dict:
    """Rows ``lo:hi`` of a job table's columns (views, no copy)."""
    return {
        c: np.asarray(table[c])[lo:hi]
        for c in ("id", "submit", "runtime", "private_bid", "reported_bid", "group")
        if c in table
    }


def per_job_parts(table, part, J: int, *, runtime_codes, bid_codes, rows: int = STREAM_ROWS, only=None):
    """The per-job outcome (``per_job_columns``, its columns ``only`` where given) in slices of ``rows`` jobs, in
    job-table order: ``part(lo, hi)`` gives the engine's (start, end, payment, preemptions) of rows ``lo:hi``;
    each slice's columns are ``per_job_columns``' rows ``lo:hi``, number for number (every column is computed
    job by job)."""
    for lo in range(0, J, rows):
        hi = min(lo + rows, J)
        start, end, pay, npre = part(lo, hi)
        yield per_job_columns(
            _slice(table, lo, hi),
            start,
            end,
            pay,
            npre,
            runtime_codes=runtime_codes[lo:hi],
            bid_codes=bid_codes[lo:hi],
            only=only,
        )


def write_per_job(path, parts) -> None:
    """Write the slices of a per-job outcome (``per_job_parts``) to ``path`` as they come, one Parquet row group
    (or one run of CSV rows) each, so that the whole table is never in memory; ``path``'s extension (.parquet,
    .pq or .csv) picks the format. The file holds the numbers ``jobtable.write_table`` writes for the whole
    table (the categorical columns as dictionaries, as there)."""
    # deferred: pyarrow (a quarter second) only where a table is read or written
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    path = jobtable.check_table_path(path)
    csv = path.suffix.lower() == ".csv"
    with atomic_path(path, "table") as tmp:
        writer = None
        try:
            for cols in parts:
                arrow = jobtable.arrow_table(cols, CATEGORIES)
                if writer is None:
                    writer = (
                        pacsv.CSVWriter(tmp, arrow.schema, write_options=pacsv.WriteOptions(quoting_style="needed"))
                        if csv
                        # dictionary encoding for the categorical columns only: Arrow tries it on every
                        # column by default, and on a trace's numbers that was three quarters of the write
                        else pq.ParquetWriter(tmp, arrow.schema, use_dictionary=list(CATEGORIES))
                    )
                writer.write_table(arrow)
        finally:
            if writer is not None:
                writer.close()


def _filled(out: np.ndarray, parts, column: str) -> np.ndarray:
    """One per-job column, whole, in ``out`` (a J-long array of its dtype), from its slices."""
    at = 0
    for cols in parts((column,)):
        v = cols[column]
        out[at : at + len(v)] = v
        at += len(v)
    return out


def scratch_buffer(J: int):
    """``streamed_summary``'s default buffer: one array of 8 bytes per job, seen as each dtype a column needs."""
    buf = np.empty(J, np.float64)
    return lambda dtype: buf.view(dtype)[:J]


def streamed_summary(parts, table, J: int, nodes: int, scratch=None) -> dict:
    """``summary`` of the per-job outcome given as slices (``parts(only)`` yields ``per_job_parts``' slices of
    the columns ``only``, again on every call), equal to ``summary`` of the whole table to the last bit: each
    floating sum or mean is numpy's on a whole column (a sum over slices would add in another order), which
    is filled, one column at a time, into ``scratch(dtype)``: a J-long writable array of that dtype, contiguous
    or strided (numpy's sums read an array's elements in the same order either way; by default
    ``scratch_buffer``); integer sums are exact in any order."""
    if J == 0:
        return {"jobs": 0, "nodes": nodes}
    scratch = scratch or scratch_buffer(J)

    def reduce(column, dtype, how):
        return how(_filled(scratch(dtype), parts, column))

    span = float(max(int(cols["end"].max()) for cols in parts(("end",))) - np.asarray(table["submit"]).min())
    busy = float(np.asarray(table["runtime"]).sum())
    return _finite(
        lambda: {
            "jobs": int(J),
            "nodes": int(nodes),
            "revenue": float(reduce("payment", np.float64, np.sum)),
            "span": span,
            "utilization": busy / (nodes * span) if span > 0 else 0.0,
            "mean_bsd": float(reduce("bsd", np.float64, np.mean)),
            "ssj_share": float(reduce("ssj", np.bool_, np.mean)),
            "mean_utility": float(reduce("utility", np.float64, np.mean)),
            "welfare": float(reduce("valuation", np.float64, np.sum)),
            "mean_flow": float(reduce("flow", np.int64, np.mean)),
            "mean_wait": float(reduce("wait", np.int64, np.mean)),
            "preemptions": int(sum(int(cols["preemptions"].sum()) for cols in parts(("preemptions",)))),  # exact
        }
    )


def summary(jobs: pd.DataFrame, nodes: int) -> dict:
    """The provider outcome of one run (section 7) and the usual aggregates of section 6. ``jobs``: the
    per-job table, or its columns (``per_job_columns``)."""

    def col(c):  # numpy's reductions on the columns' own arrays: pandas' give the same sums, slower
        return np.asarray(jobs[c])

    if len(col("id")) == 0:
        return {"jobs": 0, "nodes": nodes}

    span = float(col("end").max() - col("submit").min())
    busy = float(col("runtime").sum())
    return _finite(
        lambda: {
            "jobs": int(len(col("id"))),
            "nodes": int(nodes),
            "revenue": float(col("payment").sum()),
            "span": span,
            "utilization": busy / (nodes * span) if span > 0 else 0.0,
            "mean_bsd": float(col("bsd").mean()),
            "ssj_share": float(col("ssj").mean()),
            "mean_utility": float(col("utility").mean()),
            "welfare": float(col("valuation").sum()),
            "mean_flow": float(col("flow").mean()),
            "mean_wait": float(col("wait").mean()),
            "preemptions": int(col("preemptions").sum()),
        }
    )


#: a run's money sums, which a reservation price, a rate or bids too large for the float range make infinite
MONEY_FIELDS = ("revenue", "mean_utility", "welfare")


def _finite(make) -> dict:
    """``make()`` (a run's summary, computed with numpy's overflow warnings off), or an error where a money sum
    overflowed the float range: an infinite revenue would be stored, reported and compared as a number (JSON
    writes it as null). The error is the one word on it: numpy's "overflow encountered in reduce" beside it
    would say the same thing less clearly."""
    with np.errstate(over="ignore", invalid="ignore"):
        fields = make()
    for key in MONEY_FIELDS:
        v = fields.get(key)
        if v is not None and not math.isfinite(v):
            raise InputError(
                f"the run's {key} is {v}: its payments or valuations sum past the float range (1.8e308); a "
                "reservation price, a payment rate or bids this large cannot be summed: expected ones whose "
                "products with the jobs' node-seconds stay within it"
            )
    return fields


#: the provider's fields a population run reads of its summary (``payoff_outcome``), besides the jobs' utilities
PAYOFF_FIELDS = ("revenue", "utilization", "welfare")


def payoff_outcome(table, nodes: int):
    """``of_run(end, payment) -> (utility, fields)`` for many runs on one job table with the same private bids (a
    population study's chunk, an exploration seed's probes): each job's ``utility`` and the summary's
    ``PAYOFF_FIELDS``, bit for bit what ``per_job_columns`` and ``summary`` give for the same run, without the
    per-job columns and aggregates that a population game never reads (wait, bounded slowdown, the means...).

    ``table``: a DataFrame or a mapping of column arrays with ``submit``, ``runtime`` and ``private_bid``. What no
    run changes (the negated private bids, the busy node time, the first submit) is computed once, and the flow
    and valuation columns of every run share one buffer each; the utilities returned are a new array per run (a
    caller may keep them: a chunk's all-truthful baseline)."""
    submit = np.asarray(table["submit"], dtype=np.int64)
    neg_private = -np.asarray(table["private_bid"], dtype=np.float64)  # negation is exact: (-w) * flow as there
    J = len(submit)
    busy = float(np.asarray(table["runtime"], dtype=np.int64).sum())
    first = submit.min() if J else 0
    flow = np.empty(J, np.int64)
    valuation = np.empty(J, np.float64)

    def of_run(end: np.ndarray, payment: np.ndarray) -> tuple[np.ndarray, dict]:
        if J == 0:  # as ``summary`` of an empty run
            return np.empty(0, np.float64), {"jobs": 0, "nodes": nodes}
        np.subtract(end, submit, out=flow)  # per_job_columns' "flow"
        np.multiply(neg_private, flow, out=valuation)  # its "valuation": -private_bid * flow
        utility = valuation - payment  # its "utility": the same two operations on the same operands
        span = float(end.max() - first)
        fields = _finite(
            lambda: {
                "revenue": float(payment.sum()),
                "utilization": busy / (nodes * span) if span > 0 else 0.0,
                "welfare": float(valuation.sum()),  # numpy's sum of the same contiguous values: the same bits
            }
        )
        return utility, fields

    return of_run


def congestion(jobs: pd.DataFrame, nodes: int) -> dict:
    """Queue statistics of one run's per-job outcomes (``submit``, ``end``, ``wait``).

    ``queue_time_share``: the share of the time from the first submit to the last end during
    which more jobs are present than nodes (someone waits); ``waiting_job_share``: the share of
    jobs that finish later than their run time after submission (``wait > 0``: queued or
    preempted); ``peak_jobs_present``.
    """
    submit = jobs["submit"].to_numpy(np.int64)
    end = jobs["end"].to_numpy(np.int64)
    if len(submit) == 0:
        return {"queue_time_share": 0.0, "waiting_job_share": 0.0, "peak_jobs_present": 0}
    times = np.concatenate([submit, end])
    delta = np.concatenate([np.ones(len(submit), np.int64), -np.ones(len(end), np.int64)])
    order = np.lexsort((delta, times))  # at equal times departures (-1) first
    times, present = times[order], np.cumsum(delta[order])
    # the count after the last event at each instant holds until the next instant
    last = np.r_[times[1:] != times[:-1], True]
    t, n = times[last], present[last]
    dur = np.diff(t)
    span = float(t[-1] - t[0])
    queued = float(dur[n[:-1] > nodes].sum())
    return {
        "queue_time_share": queued / span if span > 0 else 0.0,
        "waiting_job_share": float(np.mean(jobs["wait"].to_numpy() > 0)),
        "peak_jobs_present": int(present.max()),
    }
