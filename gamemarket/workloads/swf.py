"""Read, clean and split Standard Workload Format traces (market model section 2.1-2.2).

A fast path parses the whole file with pandas' C parser; any anomaly (a short or long line, a
non-numeric, NaN or infinite field) sends the file through the careful line-by-line parser, which
names the first bad line or, on request, skips bad lines and counts them. Both paths give the same
numbers; the careful one is also the tests' reference.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from gamemarket.errors import InputError
from gamemarket.io.limits import MAX_TIME, check_fits
from gamemarket.workloads.base import Workload, generate_estimates

N_FIELDS = 18
#: Header keys kept as metadata (repeated keys are joined with "; ").
HEADER_KEYS = ("MaxProcs", "MaxNodes", "UnixStartTime", "TimeZoneString", "Computer", "Installation", "Version")
SPLIT_MODES = ("split", "drop")
_HEADER_RE = re.compile(rb"^[ \t]*;[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*:[ \t]*(.*?)[ \t\r]*$", re.M)
# 0-based indices of the fields used
F_JOB, F_SUBMIT, F_RUN, F_ALLOC, F_REQPROC, F_REQTIME, F_STATUS, F_USER = 0, 1, 3, 4, 7, 8, 10, 11
#: the SWF fields (1-based, as the format numbers them) whose values are times, with their names
TIME_FIELDS = {F_SUBMIT: "submit time", F_RUN: "run time", F_REQTIME: "requested time"}
#: what one serial job of a read trace takes in memory at peak (its columns, the split's copies), bytes
SWF_BYTES_PER_JOB = 160
USED_FIELDS = (F_JOB, F_SUBMIT, F_RUN, F_ALLOC, F_REQPROC, F_REQTIME, F_STATUS, F_USER)


def read_file(path: str | os.PathLike) -> tuple[bytes, bytes]:
    """``(the file's bytes, its content)``, the content gunzipped when the bytes start with gzip's magic bytes
    (whatever its name). The file is read once: a stream (``<(zcat trace.swf.gz)``, a named pipe) gives its bytes
    to the one read, and its hash is of those same bytes."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read workload: {exc.strerror or exc}") from exc
    data = raw
    if raw[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise InputError(f"{path}: corrupt gzip data: {exc}") from exc
    return raw, data


def parse_header(data: bytes, comments: list[bytes] | None = None) -> dict[str, str]:
    """Header metadata ``; Key: value`` of the kept keys; repeated keys joined with "; "."""
    header: dict[str, str] = {}
    if comments is None:
        comments, _ = scan_comments(data)
    for m in _HEADER_RE.finditer(b"\n".join(comments)):
        key = m.group(1).decode("ascii", "replace")
        if key in HEADER_KEYS:
            value = m.group(2).decode("utf-8", "replace").strip()
            header[key] = f"{header[key]}; {value}" if key in header else value
    return header


def scan_comments(data: bytes) -> tuple[list[bytes], bool]:
    """The comment lines (first non-blank character ';'), and whether a data line holds a ';'.

    Visits only the lines that contain a ';', so a trace with a short header costs nothing.
    """
    comments: list[bytes] = []
    inline = False
    pos = data.find(b";")
    while pos != -1:
        line_start = data.rfind(b"\n", 0, pos) + 1
        line_end = data.find(b"\n", pos)
        if data[line_start:pos].strip():
            inline = True
        else:
            comments.append(data[line_start : line_end if line_end != -1 else len(data)])
        if line_end == -1:
            break
        pos = data.find(b";", line_end)
    return comments, inline


def _fast_fields(data: bytes, inline_semicolon: bool | None = None) -> np.ndarray | None:
    """All data lines as an (N, 18) float array, or None when anything looks malformed."""
    if inline_semicolon is None:
        _, inline_semicolon = scan_comments(data)
    if inline_semicolon:
        return None  # pandas would treat the rest of the line as a comment
    try:
        df = pd.read_csv(
            io.BytesIO(data),
            sep=r"\s+",
            header=None,
            comment=";",
            names=range(N_FIELDS + 1),
            skip_blank_lines=True,
            engine="c",
            dtype=np.float64,
            na_filter=True,
        )
    except (ValueError, pd.errors.ParserError):
        return None
    if len(df) == 0:
        return np.empty((0, N_FIELDS))
    if not df[N_FIELDS].isna().all():
        return None  # some line has more than 18 fields
    cols = {}
    for k in range(N_FIELDS):  # column by column: no full 2-D copies of the trace
        c = df[k].to_numpy(dtype=np.float64)
        if not np.isfinite(c).all():
            return None  # short line, NaN or infinite field
        if k in USED_FIELDS:
            cols[k] = c
    return cols


def parse_fields_careful(data: bytes, path: str, skip_bad_lines: bool = False) -> tuple[np.ndarray, int]:
    """Line-by-line parse: (N, 18) float array and the number of skipped bad lines.

    A bad line raises ``InputError`` naming the file and line number, unless ``skip_bad_lines``.
    """
    rows: list[list[float]] = []
    skipped = 0
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.strip()
        if not line or line.startswith(b";"):
            continue
        parts = line.split()
        problem = None
        if len(parts) != N_FIELDS:
            problem = f"expected {N_FIELDS} whitespace-separated fields, found {len(parts)}"
        else:
            values = []
            for k, tok in enumerate(parts, start=1):
                try:
                    v = float(tok)
                except ValueError:
                    problem = f"field {k} is {tok.decode('utf-8', 'replace')!r}, expected a number"
                    break
                if not math.isfinite(v):
                    problem = f"field {k} is {tok.decode('utf-8', 'replace')!r}, expected a finite number"
                    break
                values.append(v)
        if problem is not None:
            if skip_bad_lines:
                skipped += 1
                continue
            raise InputError(f"{path}:{lineno}: malformed SWF line: {problem}")
        rows.append(values)
    arr = np.array(rows, dtype=np.float64) if rows else np.empty((0, N_FIELDS))
    return arr, skipped


def _round_time(x: np.ndarray) -> np.ndarray:
    """Nearest integer second, halves away from zero."""
    return np.where(x >= 0, np.floor(x + 0.5), -np.floor(-x + 0.5))


def _check_times(f: dict, keep: np.ndarray) -> None:
    """Refuse a kept record whose time (submit, run, requested) is beyond ``MAX_TIME`` (2^53 s): beyond it a
    double no longer holds every whole second, and the engine's int64 times overflow (a submit time of 1e20
    once became a 777 TiB allocation in the workload statistics). Processor counts are checked too (a count
    beyond 2^53 cannot be split into serial jobs), and the job number, status and user, which are kept as
    int64 (beyond it a cast wraps them into garbage, with a warning)."""
    checks = {
        **TIME_FIELDS,
        F_ALLOC: "allocated processors",
        F_REQPROC: "requested processors",
        F_JOB: "job number",
        F_STATUS: "status",
        F_USER: "user",
    }
    for k, name in checks.items():
        big = keep & (np.abs(f[k]) > MAX_TIME)
        if big.any():
            i = int(np.flatnonzero(big)[0])
            raise InputError(
                f"SWF record of job {f[F_JOB][i]:.0f}: field {k + 1} ({name}) = {f[k][i]:.17g} "
                f"({int(big.sum()):,} record(s) in all exceed it); expected at most 2^53 = {MAX_TIME:.0f}, "
                "the largest whole number an SWF field may hold here"
            )


def clean_fields(fields, parallel: str = "split") -> tuple[pd.DataFrame, dict]:
    """Apply the cleaning rules of section 2.1 and the split/drop mode of 2.2.

    Each dropped record is counted once, by the first rule it fails:
    1. run time missing (-1) or, after rounding, <= 0;
    2. processors = field 5 if > 0, else field 8 if > 0, else dropped;
    3. submit time missing (negative).
    Fractional submit, run and requested times are rounded to the nearest second first.
    """
    if parallel not in SPLIT_MODES:
        raise InputError(f"parallel mode must be one of {SPLIT_MODES}, got {parallel!r}")
    # ``fields``: an (N, 18) array or a mapping from 0-based field index to its column
    f = {k: fields[:, k] for k in USED_FIELDS} if isinstance(fields, np.ndarray) else fields
    n_records = len(f[F_SUBMIT])
    fractional = np.zeros(n_records, dtype=bool)
    for k in (F_SUBMIT, F_RUN, F_REQTIME):
        fractional |= f[k] != np.floor(f[k])
    submit = _round_time(f[F_SUBMIT])
    runtime = _round_time(f[F_RUN])
    reqtime = _round_time(f[F_REQTIME])
    alloc, req = f[F_ALLOC], f[F_REQPROC]

    bad_run = runtime <= 0
    procs = np.where(alloc > 0, alloc, np.where(req > 0, req, 0))
    bad_procs = ~bad_run & (procs <= 0)
    bad_submit = ~bad_run & ~bad_procs & (f[F_SUBMIT] < 0)
    keep = ~(bad_run | bad_procs | bad_submit)
    _check_times(f, keep)
    procs = np.round(procs).astype(np.int64)
    serial = int(procs[keep].sum()) if parallel == "split" else int((keep & (procs <= 1)).sum())
    check_fits(serial * SWF_BYTES_PER_JOB, f"the trace's {serial:,} serial jobs (its parallel records split)")
    parallel_records = int((keep & (procs > 1)).sum())
    dropped_parallel = 0
    if parallel == "drop":
        dropped_parallel = parallel_records
        keep &= procs <= 1
        reps = np.ones(int(keep.sum()), dtype=np.int64)
    else:
        reps = procs[keep]

    def rep(a):
        return np.repeat(a[keep], reps)

    runtime_k = rep(runtime).astype(np.int64)
    req_k = rep(reqtime)
    has_est = req_k > 0
    estimate = np.where(has_est, np.maximum(req_k, 1), 0).astype(np.int64)
    gen = ~has_est
    if gen.any():
        estimate[gen] = generate_estimates(runtime_k[gen])
    jobs = pd.DataFrame(
        {
            "id": np.arange(len(runtime_k), dtype=np.int64),
            "submit": rep(submit).astype(np.int64),
            "runtime": runtime_k,
            "estimate": estimate,
            "estimate_generated": gen,
            "swf_job": rep(f[F_JOB]).astype(np.int64),
            "status": rep(f[F_STATUS]).astype(np.int64),
            "user": rep(f[F_USER]).astype(np.int64),
        }
    )
    counts = {
        "records": n_records,
        "dropped_runtime": int(bad_run.sum()),
        "dropped_processors": int(bad_procs.sum()),
        "dropped_submit": int(bad_submit.sum()),
        "dropped_parallel": dropped_parallel,
        "parallel_records": parallel_records,
        "parallel_mode": parallel,
        "rounded_records": int((fractional & keep).sum()),
        "estimates_generated": int(gen.sum()),
        "serial_jobs": int(len(jobs)),
    }
    return jobs, counts


def sha256_bytes(data: bytes) -> str:
    """The SHA-256 of ``data`` (a trace's bytes, as read)."""
    return hashlib.sha256(data).hexdigest()


def read_swf(path: str | os.PathLike, *, parallel: str = "split", skip_bad_lines: bool = False) -> Workload:
    """Read an SWF trace (plain or gzip) into a cleaned ``Workload``.

    Parameters
    ----------
    path : file path
    parallel : "split" (a k-processor record becomes k serial jobs) or "drop"
    skip_bad_lines : skip malformed lines (their number is in ``meta["cleaning"]["skipped_lines"]``)
        instead of raising ``InputError`` at the first one.
    """
    path = Path(path)
    file_bytes, data = read_file(path)  # once: a stream has its bytes only for the first read
    comments, inline_semicolon = scan_comments(data)
    fields = _fast_fields(data, inline_semicolon)
    skipped = 0
    if fields is None:
        fields, skipped = parse_fields_careful(data, str(path), skip_bad_lines)
    try:
        jobs, counts = clean_fields(fields, parallel)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    counts["skipped_lines"] = skipped
    if len(jobs) == 0:
        raise InputError(
            f"{path}: no job is left to simulate ({len(fields)} job records read, {skipped} bad lines "
            f"skipped, cleaning {counts}); expected SWF job lines of 18 whitespace-separated fields"
        )
    meta = {
        "source": str(path),
        "name": path.name,
        "sha256": sha256_bytes(file_bytes),
        "header": parse_header(data, comments),
        "cleaning": counts,
    }
    return Workload(jobs=jobs, meta=meta)
