"""The workload: a cleaned table of serial jobs plus the metadata of where it came from."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gamemarket.errors import (
    InputError,
    check_instance,
    check_real,
    check_whole,
    shown_number,
    shown_value,
    whole_number,
)
from gamemarket.io.limits import MAX_NODES
from gamemarket.io.names import workload_source

#: Columns every workload's job table has (section 1 of the market model).
WORKLOAD_COLUMNS = ("id", "submit", "runtime", "estimate", "estimate_generated", "swf_job", "status", "user")

#: Requested-time values that users pick most often (seconds). Tsafrir, Etsion and Feitelson
#: (2005) found estimates to be modal: users round up to a few popular limits.
POPULAR_ESTIMATES = np.array(
    [
        60,
        300,
        600,
        900,
        1200,
        1800,
        3600,
        2 * 3600,
        3 * 3600,
        4 * 3600,
        6 * 3600,
        8 * 3600,
        12 * 3600,
        18 * 3600,
        24 * 3600,
        36 * 3600,
        48 * 3600,
        72 * 3600,
    ],
    dtype=np.int64,
)


def generate_estimates(runtime: np.ndarray) -> np.ndarray:
    """Estimate model for jobs whose trace record has none.

    Each job's estimate is the smallest popular requested-time value (``POPULAR_ESTIMATES``)
    that is at least its run time; beyond 72 hours, the run time rounded up to whole days.
    Deterministic, so it needs no seed, and never below the run time (a job's estimate is an
    upper bound its user would have asked for). After Tsafrir, Etsion, Feitelson (2005).
    """
    runtime = np.asarray(runtime, dtype=np.int64)
    idx = np.searchsorted(POPULAR_ESTIMATES, runtime, side="left")
    out = np.empty_like(runtime)
    inside = idx < len(POPULAR_ESTIMATES)
    out[inside] = POPULAR_ESTIMATES[idx[inside]]
    day = 24 * 3600
    out[~inside] = -(-runtime[~inside] // day) * day
    return out


def nodes_from_processors(processors: int, reduction: float) -> int:
    """``n = floor(P * (1 - reduction))`` (market model 2.3), robust to binary rounding. ``processors`` a whole
    number in ``[1, MAX_NODES]``, ``reduction`` a number in ``[0, 1)``, else an :class:`InputError` naming it."""
    check_whole(processors, "nodes_from_processors: processors", 1)
    if processors > MAX_NODES:  # as a trace's header may give it (``processors_of``)
        raise InputError(
            f"nodes_from_processors: processors must be at most {MAX_NODES:,} (the most nodes a study may give), got "
            f"{shown_value(processors)}"
        )
    if not 0.0 <= check_real(reduction, "reduction (the share of the processors left out)") < 1.0:
        raise InputError(f"reduction must be in [0, 1), got {shown_value(reduction)}")
    n = math.floor(processors * (1.0 - reduction) + 1e-9)
    if n < 1:
        raise InputError(
            f"{processors} processors reduced by {reduction} leaves no node (floor({processors} x "
            f"{1.0 - reduction:g}) = 0); expected a reduction of at most {1.0 - 1.0 / processors:g}"
        )
    return n


def processors_of(meta: dict) -> int | None:
    """A workload's processors from its metadata (``Workload.meta``): ``MaxProcs`` of the header, else the leading
    integer of ``MaxNodes``, else ``meta["processors"]`` or None.

    A header count of -1 means "unknown" (the SWF convention) and falls through; any other
    count below 1, or above ``MAX_NODES`` (the most nodes a command or a study file may give), is an error
    naming the field, never a silent fall-back.
    """
    header = meta.get("header", {})
    for key in ("MaxProcs", "MaxNodes"):
        value = str(header.get(key, "")).strip()
        m = re.match(r"[-+]?\d+", value, re.ASCII)  # (\d took "٨٠٠" and "８００" for 800, hunt 29b-W5)
        if m is None and key == "MaxProcs" and value:  # the standard's integer field: no text falls through it
            raise InputError(
                f"{meta.get('source', 'workload')}: header field {key} is {shown_number(value)!r}; expected a whole "
                "processor count (or -1 for unknown)"
            )
        if m is None:
            continue
        if not re.fullmatch(r"[-+]?\d+", value.split()[0], re.ASCII):  # "2.5" or "8e3": never truncated to its digits
            raise InputError(
                f"{meta.get('source', 'workload')}: header field {key} is {shown_number(value)!r}; expected a whole "
                "processor count (or -1 for unknown)"
            )
        count = whole_number(m.group())  # (more than 4,300 digits: Python's ValueError, hunt 36b-F2)
        if count == -1:
            continue
        if not 1 <= count <= MAX_NODES:  # beyond it: no machine's count, and more nodes than --nodes takes
            raise InputError(
                f"{meta.get('source', 'workload')}: header field {key} is {shown_number(value)!r}; expected a "
                f"positive processor count of at most {MAX_NODES:,} (or -1 for unknown)"
            )
        return count
    return meta.get("processors")


def nodes_of(meta: dict, nodes: int | None = None, reduction: float | None = None) -> int:
    """The node count of a workload with metadata ``meta``: given directly, or derived from the header with a
    reduction factor. An error names the workload's source (its file) where the metadata has one."""
    try:
        return _nodes_of(meta, nodes, reduction)
    except InputError as exc:
        source = workload_source(meta)  # (a model's draw: "workload model of ...", not "synthetic"; hunt 20b-W2)
        raise InputError(f"{source}: {exc}" if source and not str(exc).startswith(f"{source}:") else str(exc)) from None


def _nodes_of(meta: dict, nodes: int | None, reduction: float | None) -> int:
    if nodes is not None and reduction is not None:
        raise InputError(
            f"give nodes ({nodes}) or a reduction ({reduction}), not both: the reduction derives the "
            "node count from the header's processors"
        )
    if reduction and meta.get("synthetic") is not None:  # (hunt 21c-F5: a model drawn for its own nodes and run on
        # half of them doubled its load, where --nodes 52 drew it for 52; a study file refuses the field. A reduction
        # of 0, the default said explicitly, reduces nothing: 22b-W5)
        raise InputError(
            f"a reduction ({reduction}) applies to a trace, whose jobs are fixed and whose MaxProcs it reduces; a "
            "generated workload (a model's draw, or the generator's) is drawn for its node count: give --nodes N "
            "(or [workload] nodes) instead"
        )
    if nodes is not None:
        if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or not 1 <= nodes <= MAX_NODES:
            raise InputError(f"nodes must be a whole number from 1 to {MAX_NODES:,}, got {shown_value(nodes)}")
        return int(nodes)
    if meta.get("nodes") is not None and reduction is None:
        return int(meta["nodes"])
    procs = processors_of(meta)
    if procs is None:
        raise InputError(  # (hunt 20c-W7: "give nodes explicitly" named no option)
            "the workload names no processor count (MaxProcs/MaxNodes in its header): give the node count, --nodes N "
            "on the command line or [workload] nodes in a study (a reduction needs the header's count)"
        )
    return nodes_from_processors(procs, 0.0 if reduction is None else reduction)


@dataclass
class Workload:
    """A job table (one row per serial job, columns ``WORKLOAD_COLUMNS``) and its metadata."""

    jobs: pd.DataFrame
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_instance(self.jobs, pd.DataFrame, "Workload: jobs", "a pandas DataFrame of jobs (one row per serial job)")
        check_instance(self.meta, dict, "Workload: meta", "a dict of metadata (source, header, nodes, ...)")
        missing = [c for c in ("id", "submit", "runtime", "estimate") if c not in self.jobs.columns]
        if missing:
            raise InputError(f"workload job table lacks column(s) {missing}")

    def __len__(self) -> int:
        return len(self.jobs)

    @property
    def processors(self) -> int | None:
        """``MaxProcs`` of the header, else the leading integer of ``MaxNodes``, else None (``processors_of``)."""
        return processors_of(self.meta)

    def nodes(self, nodes: int | None = None, reduction: float | None = None) -> int:
        """The node count: given directly, or derived from the header with a reduction factor (``nodes_of``)."""
        return nodes_of(self.meta, nodes, reduction)

    def offered_load(self, nodes: int) -> float:
        """Offered work / (nodes * span of submit times); ``nodes`` a whole number from 1 to ``MAX_NODES``."""
        if (
            isinstance(nodes, (bool, np.bool_))
            or not isinstance(nodes, (int, np.integer))
            or not 1 <= nodes <= MAX_NODES
        ):
            raise InputError(
                f"offered_load: nodes must be a whole number from 1 to {MAX_NODES:,}, got {shown_value(nodes)}"
            )
        submit = self.jobs["submit"].to_numpy()
        span = float(submit.max() - submit.min()) if len(submit) else 0.0
        work = float(self.jobs["runtime"].sum())
        return work / (nodes * span) if span > 0 else float("inf")

    def info(self, nodes: int | None = None, reduction: float | None = None) -> dict:
        """A summary a person reads before using the workload."""
        j = self.jobs
        out = {
            "source": workload_source(self.meta),
            "jobs": int(len(j)),
            "processors": self.processors,
            "first_submit": int(j["submit"].min()) if len(j) else None,
            "span_s": int(j["submit"].max() - j["submit"].min()) if len(j) else 0,
            "mean_runtime_s": float(j["runtime"].mean()) if len(j) else 0.0,
            "runtime_quantiles_s": {
                f"p{int(q * 100)}": float(j["runtime"].quantile(q)) for q in (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
            },
            "estimates_generated": int(j["estimate_generated"].sum()) if "estimate_generated" in j else 0,
        }
        try:
            n = self.nodes(nodes, reduction)
            out["nodes"] = n
            out["offered_load"] = self.offered_load(n)
        except InputError:
            if nodes is not None or reduction is not None:  # asked for: an error, not rows left out
                raise
            # else the trace's header gives no processor count: the summary has no nodes, and says so by that
        for key in ("cleaning", "sha256"):
            if key in self.meta:
                out[key] = self.meta[key]
        return out
