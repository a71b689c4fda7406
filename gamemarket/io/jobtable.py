"""The job table exchange format (market model section 8): validation, reading, writing.

Required columns ``id, submit, runtime, estimate, private_bid, reported_bid``; optional
``group, swf_job, status, user`` (other columns are ignored). A job table fixes every random
draw of a run, so any run can be repeated exactly from it.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gamemarket.errors import InputError, check_path
from gamemarket.io.files import (
    atomic_path,
    check_input,
    check_output_file_name,
    fields_named,
    no_such,
    not_utf8,
    read_input_bytes,
    told_by_bytes,
)
from gamemarket.io.kinds import check_kind, says_it_is
from gamemarket.io.limits import check_fits, memory_limit

if TYPE_CHECKING:  # pandas is imported where a table is one: ``read_columns`` and the CLI's fast path go without
    import pandas as pd


#: beyond 2^53 a double no longer holds every integer (nor int64 some): every time and id stays below it
MAX_MAGNITUDE = 2.0**53
#: the largest bid (per node-second): with run times below 2^53 s, a payment, a value and their sums over a
#: trace stay far from overflow (a bid of 1e300 would make revenue infinite and every utility -inf); the same as
#: ``gamemarket.bids.MAX_BID``, which the bid classes and the strategies check (hunt 23b-F3: a private bid of 2e9
#: passed the table's bound of 1e15 and was refused by an inner function with an array dump, naming no file)
MAX_BID = 1e9


@dataclass(frozen=True)
class Column:
    """A job-table column, declared: its kind, its range and whether a table must have it."""

    name: str
    integer: bool  #: whole numbers (stored as int64); else a finite float
    lower: float | None = None  #: the lowest value allowed ...
    strict: bool = False  #: ... excluded (``>``) rather than included (``>=``)
    upper: float = MAX_MAGNITUDE  #: the largest magnitude allowed
    required: bool = True
    meaning: str = ""

    def expected(self) -> str:
        """The column's rule in words (for messages and the reference)."""
        sign = ">" if self.strict else ">="
        return f"{sign} {self.lower:g}" if self.lower is not None else "any value"


#: the job table's columns (market model section 8), declared once: ``check_columns`` reads this table
COLUMNS = (
    Column("id", True, meaning="unique job id"),
    Column("submit", True, 0, meaning="submit time, seconds from the workload's start"),
    Column("runtime", True, 0, strict=True, meaning="run time, seconds"),
    Column("estimate", True, 0, strict=True, meaning="the user's run-time estimate, seconds"),
    Column("private_bid", False, 0, upper=MAX_BID, meaning="the job's value per node-second"),
    Column("reported_bid", False, 0, upper=MAX_BID, meaning="the bid it reports per node-second"),
    Column("group", True, required=False, meaning="the consumer group (beta mix) it belongs to"),
    Column("swf_job", True, required=False, meaning="the SWF job number it was split from"),
    Column("status", True, required=False, meaning="the SWF status field"),
    Column("user", True, required=False, meaning="the SWF user id"),
)
SPEC = {c.name: c for c in COLUMNS}
REQUIRED = tuple(c.name for c in COLUMNS if c.required)
OPTIONAL = tuple(c.name for c in COLUMNS if not c.required)
INTEGER = tuple(c.name for c in COLUMNS if c.integer)
#: the columns the bids add to a workload's jobs (``gamemarket.bids.job_table``)
BID_COLUMNS = ("private_bid", "reported_bid")
#: the required columns a workload's jobs bring: the rest of a job table's are its bids
WORKLOAD_REQUIRED = tuple(c for c in REQUIRED if c not in BID_COLUMNS)


def _check_dtype(series, name: str, where: str) -> None:
    """A column's stored type must be a number: booleans, datetimes, durations and text are not read as
    numbers (a datetime would become nanoseconds, a boolean 1 s)."""
    import pandas as pd  # deferred: pandas (a second); read_columns and the CLI's fast path go without

    dt = series.dtype
    if (
        pd.api.types.is_bool_dtype(dt)
        or pd.api.types.is_datetime64_any_dtype(dt)
        or pd.api.types.is_timedelta64_dtype(dt)
        or isinstance(dt, pd.CategoricalDtype)
    ):
        raise InputError(f"{where}: column {name!r} holds {dt} values; expected numbers")
    if pd.api.types.is_object_dtype(dt) or pd.api.types.is_string_dtype(dt):
        # numpy's numbers are numbers (a column of np.int64 objects was refused as "['int64'] values; expected
        # numbers"); numpy's and Python's booleans are not (np.bool_ is no np.integer; bool is checked apart)
        numbers = (int, float, str, np.integer, np.floating)
        kinds = {
            type(v).__name__ for v in series.dropna().head(1000) if isinstance(v, bool) or not isinstance(v, numbers)
        }
        if kinds:
            raise InputError(f"{where}: column {name!r} holds {sorted(kinds)} values; expected numbers")
        flags = [v for v in series.dropna().head(1000) if isinstance(v, bool)]
        if flags:
            raise InputError(f"{where}: column {name!r} holds booleans; expected numbers")


def _check_repeats(names: Iterable, where: str) -> None:
    """A known column may appear once: which of two ``private_bid`` columns would be the bids? (Counted in
    one pass: a table of many columns is checked in linear time.)"""
    dup = sorted(c for c, n in Counter(names).items() if n > 1 and c in SPEC)
    if dup:
        raise InputError(f"{where}: column(s) {dup} appear more than once")


def _csv_header(source) -> list[str]:
    """The names on a CSV's first line as written (``source``: a path, or the bytes of a stream read once):
    pandas renames a repeated column (``private_bid.1``), which would hide the repeat from ``_check_repeats``. An
    unreadable first line gives no names (the reader then says what is wrong)."""
    try:
        if isinstance(source, bytes):
            line = source.split(b"\n", 1)[0].decode("utf-8-sig")
        else:
            with open(source, encoding="utf-8-sig", newline="") as f:
                line = f.readline()
        return next(csv.reader([line]), [])
    except (OSError, ValueError, csv.Error):
        return []


def _source(path: Path):
    """What a reader reads the job table from: the path of a regular file (read in parts where it can be), or the
    bytes of a pipe, read once and whole up to the memory limit (``<(cat table.csv)``: a reader that looks twice
    found the stream empty the second time, "No columns to parse from file")."""
    if not told_by_bytes(path):
        return path
    data = read_input_bytes(path, "job table")
    if data[:2] == b"\x1f\x8b":  # gzip: by its path pandas opens it by the ending; a pipe's bytes, by their magic
        limit = memory_limit()
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = inflate.decompress(data, limit or 0)
        except zlib.error as exc:
            raise InputError(f"{path}: corrupt gzip data: {exc}") from None
        if inflate.unconsumed_tail:
            raise InputError(
                f"{path}: the gzip stream inflates past {limit:,} bytes (GAMEMARKET_MEMORY_LIMIT, or this machine's "
                "memory); expected a smaller table"
            )
    return data


def _parquet(path: Path, source) -> bool:
    """Whether the table is Parquet: by its extension, or, for a stream (which has none: ``/dev/fd/63``), by
    Parquet's magic bytes."""
    return path.suffix.lower() in (".parquet", ".pq") or (isinstance(source, bytes) and source[:4] == b"PAR1")


def _opened(source):
    """``source`` (``_source``) as pandas and Arrow read it: the path, or a fresh in-memory file of the bytes."""
    return io.BytesIO(source) if isinstance(source, bytes) else source


def check_frame(table, required: Iterable[str], where: str, hint: str = "") -> None:
    """Refuse anything but a pandas DataFrame with the ``required`` columns, naming the missing ones (``hint``: where
    such a table comes from, for the message): a list was an AttributeError deep inside, and a workload without
    ``runtime`` became a job table without it, refused only by the run that read it."""
    import pandas as pd  # deferred: pandas (a second); read_columns and the CLI's fast path go without

    required = list(required)
    if not isinstance(table, pd.DataFrame):
        raise InputError(
            f"{where}: expected a pandas DataFrame with columns {required}{' ' + hint if hint else ''}, got "
            f"{type(table).__name__}"
        )
    if isinstance(table.columns, pd.MultiIndex):  # ("id", "x") matched "id", and table["id"] was a table
        raise InputError(
            f"{where}: expected columns named by text ({required}), got columns of {table.columns.nlevels} levels "
            f"such as {table.columns[0]!r}; flatten them first"
        )
    missing = [c for c in required if c not in table.columns]
    if missing:
        found = [str(c) for c in table.columns[:12]]
        sep = next((s for s in (";", "\t", ", ") if any(s in c for c in found)), None)
        sep = sep or (", " if any(c != c.strip() for c in found) else None)  # "id, submit": " submit"
        hint = f" (separated by {sep!r}? a CSV job table's are separated by ',' alone)" if sep else ""
        if {"start", "end", "payment", "utility"} <= {str(c) for c in table.columns}:  # (hunt 21b-W7)
            hint = (
                ": an outcome table (what `simulate --out` writes: each job's start, end, payment), not a job table "
                "(what `simulate --jobs-out` writes, to run again)"
            )
        raise InputError(
            f"{where}: missing column(s) {missing}; required: {required}; found {found}"
            f"{' ...' if len(table.columns) > 12 else ''}{hint}"
        )


def _first_not_numeric(column, name: str, first_line: int | None) -> str:
    """What is wrong with a column's first value that is not a number, at its line (``"line N: column ... is
    'abc'"``; its row from 0 without ``first_line``), as :func:`validate`'s other messages name it (pandas' own said
    "at position 7", its row from 0: hunt 25b-W3); ``""`` where none is found one by one."""
    import pandas as pd  # deferred: pandas (a second)

    for k, value in enumerate(column.tolist()):
        if pd.isna(pd.to_numeric(pd.Series([value]), errors="coerce")).iloc[0] and not pd.isna(value):
            at = f"line {first_line + k}" if first_line is not None else f"row {k}"
            return f"{at}: column {name!r} is {value!r}, expected a number"
    return ""


def validate(table: pd.DataFrame, where: str = "job table", first_line: int | None = None) -> pd.DataFrame:
    """Check a job table against the declared columns (``COLUMNS``) and return it with canonical dtypes
    (a copy, only known columns).

    ``first_line``: the file line of the first row (2 in a CSV with its header), so that errors name
    the line; without it they name the row (from 0).
    """
    import pandas as pd  # deferred: pandas (a second); read_columns and the CLI's fast path go without

    check_frame(table, REQUIRED, where, "(gamemarket.bids.job_table makes one from a workload)")
    if len(table) == 0:  # a run of no job has no revenue, no utilization: a summary of nothing, not an answer
        raise InputError(f"{where}: the job table has no rows; expected at least one job")
    _check_repeats(table.columns, where)
    cols = [c for c in REQUIRED + OPTIONAL if c in table.columns]
    values = {}
    for c in cols:
        _check_dtype(table[c], c, where)
        try:
            values[c] = pd.to_numeric(table[c], errors="raise").to_numpy(np.float64)
        except (ValueError, TypeError, OverflowError) as exc:
            said = (
                _first_not_numeric(table[c], c, first_line)
                or f"column {c!r} must be numeric: {' '.join(str(exc).split())}"
            )
            raise InputError(f"{where}: {said}") from exc
    out = pd.DataFrame(check_columns(values, where, first_line), copy=False)
    if "estimate_generated" in table.columns:  # a workload's flag travels along (not an exchange column)
        out["estimate_generated"] = table["estimate_generated"].astype(bool).to_numpy()
    return out


def _at(row: int, first_line: int | None) -> str:
    return f"row {row}" if first_line is None else f"line {row + first_line}"


def _first(bad: np.ndarray) -> int:
    return int(np.flatnonzero(bad)[0])


def check_column(col: Column, vals: np.ndarray, where: str, first_line: int | None = None) -> np.ndarray:
    """One column's checks of ``check_columns`` (``vals``: float64), the column with its canonical dtype.

    The column's least and greatest values decide every bound at once (a NaN makes them NaN), and an integer
    column is compared with its int64 copy, which it returns: two reductions and one pass rather than the
    reference's five passes and four temporary arrays (on a 16-million-job table, 3 of the reader's 5 s). Where
    any check could fail, the reference (``check_column_plain``) runs and names the first bad row, so the result
    and every error are the reference's."""
    if len(vals):
        lo, hi = vals.min(), vals.max()
        size = max(-lo, hi)
        # (an integer column's 2^53 itself is refused: 2^53 + 1 reads as it, hunt 38b-F1)
        inside = np.isfinite(lo) and np.isfinite(hi) and (size < col.upper if col.integer else size <= col.upper)
        if inside and col.lower is not None:
            inside = lo > col.lower if col.strict else lo >= col.lower
        if inside:
            if not col.integer:
                return vals
            whole = vals.astype(np.int64)  # exact below 2^53 (the bound just checked); truncates a fraction
            if not (whole != vals).any():
                return whole
    return check_column_plain(col, vals, where, first_line)


def check_column_plain(col: Column, vals: np.ndarray, where: str, first_line: int | None = None) -> np.ndarray:
    """``check_column`` as its checks are stated, one after another: the reference its fast path is tested
    against, and what names the first bad row."""
    c = col.name
    bad = ~np.isfinite(vals)
    if bad.any():
        row = _first(bad)
        v = vals[row].item()
        # a CSV reader reads an empty cell as NaN, and a number past the float range as an infinity: either may be it
        shown = "empty or NaN" if v != v else f"{v!r} (or a number past the float range, about 1.8e308 in size)"
        raise InputError(
            f"{where}: {_at(row, first_line)}: column {c!r} is {shown}; a finite number is needed (NaN or infinite "
            "values are not allowed)"
        )
    del bad
    if col.integer and (vals != np.floor(vals)).any():
        row = _first(vals != np.floor(vals))
        raise InputError(f"{where}: {_at(row, first_line)}: column {c!r} is {vals[row].item()!r}, expected an integer")
    # an integer column's values below 2^53 in size: every whole number there is a float exactly, and one of 2^53 may
    # be 2^53 + 1 read as it (a run time of 9007199254740993 ran as 9007199254740992 without a word, hunt 38b-F1)
    big = np.abs(vals) >= col.upper if col.integer else np.abs(vals) > col.upper
    if big.any():
        row = _first(big)
        size = "2^53" if col.upper == MAX_MAGNITUDE else f"{col.upper:g}"
        rule = f"an integer below {size} in size" if col.integer else f"a number of at most {size} in size"
        raise InputError(
            f"{where}: {_at(row, first_line)}: column {c!r} is {vals[row].item()!r}, expected {rule}"
            + (" (a larger whole number reads as another: 2^53 + 1 as 2^53)" if col.integer else "")
        )
    del big
    if col.lower is not None:
        low = vals <= col.lower if col.strict else vals < col.lower
        if low.any():
            row = _first(low)
            shown = vals[row].astype(np.int64).item() if col.integer else vals[row].item()
            raise InputError(f"{where}: {_at(row, first_line)}: column {c!r} is {shown!r}, expected {col.expected()}")
    return vals.astype(np.int64) if col.integer else vals


def check_ids(ids: np.ndarray, where: str, first_line: int | None = None) -> None:
    """Ids must be unique; the first row, in file order, whose id came before is named, with the row it repeats
    (hunt 38b-W7: the message named neither)."""
    if len(ids) < 2 or (ids[1:] > ids[:-1]).all():  # increasing ids (the usual table) are unique: no sort
        return
    order = np.argsort(ids, kind="stable")
    later = np.r_[False, ids[order][1:] == ids[order][:-1]]  # a repeat of the id just before it
    if later.any():
        repeat = np.zeros(len(ids), bool)
        repeat[order[later]] = True
        row = int(np.flatnonzero(repeat)[0])  # the first row, in file order, whose id came before
        dup = int(ids[row])
        before = int(np.flatnonzero(ids[:row] == dup)[0])
        raise InputError(
            f"{where}: {_at(row, first_line)}: id {dup} appears more than once (first at {_at(before, first_line)}); "
            "ids must be unique"
        )


def check_columns(values: Mapping[str, np.ndarray], where: str, first_line: int | None = None) -> dict:
    """The checks of ``validate`` on numeric columns (float64 arrays, every required one present), from the
    declared ``COLUMNS``: the columns with canonical dtypes (int64 for integer ones), in declared order."""
    out = {c.name: check_column(c, values[c.name], where, first_line) for c in COLUMNS if c.name in values}
    check_ids(out["id"], where, first_line)
    return out


def read(path: str | os.PathLike) -> pd.DataFrame:
    """Read a job table from CSV or Parquet (by extension) and validate it; a pipe is read once (up to the memory
    limit)."""
    path = check_path(path, "read: path")  # (an int, bytes or None: pathlib's bare TypeError)
    check_input(path, "job table")
    source = _source(path)
    _check_rows_fit(path, source)
    return _read(path, source)


def _read(path: Path, source) -> pd.DataFrame:
    """``read`` of ``source`` (``_source``: the path, or a stream's bytes), its messages naming ``path``."""
    import pandas as pd  # deferred: pandas (a second); read_columns and the CLI's fast path go without

    parquet = _parquet(path, source)
    if isinstance(source, (str, os.PathLike)):
        check_kind(path, ("csv", "parquet"), "a job table (CSV or Parquet)")
    try:
        if parquet:
            table = pd.read_parquet(_opened(source))
        else:
            with fields_named(path, "job table"):  # (never an implicit index: hunt 25c-F1) a blank line is an error
                table = pd.read_csv(_opened(source), skip_blank_lines=False, index_col=False)
    except FileNotFoundError:
        raise InputError(no_such(path, "job table")) from None
    except UnicodeDecodeError as exc:  # (the codec's own words, "invalid continuation byte": hunt 19a-F3)
        raise InputError(f"{path}: {not_utf8(exc)}; expected a job table (CSV or Parquet)") from None
    except InputError:  # (``fields_named``'s, already naming the file and line)
        raise
    except pd.errors.EmptyDataError:  # (pandas' "No columns to parse from file", hunt 39b-W5)
        raise InputError(f"{path}: empty or blank; expected a job table, a header line and a line per job") from None
    except Exception as exc:  # pandas raises many kinds on a broken file
        # on one line: pandas's C parser ends its message with a newline ("... saw 5\n")
        said = says_it_is(path, "parquet" if parquet else "csv")  # (a trace given as one: "Expected 1 fields")
        raise InputError(f"{path}: cannot read job table: {' '.join(str(exc).split())}{said}") from exc
    is_csv = not parquet  # (a table of no rows is told so by ``validate``, after its columns: a header naming none
    # of them was "has no rows", hunt 41b-W1)
    if is_csv:
        _check_repeats(_csv_header(source), str(path))
    return validate(table, where=str(path), first_line=2 if is_csv else None)


def read_columns(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """``read`` without pandas: the validated job table as columns (name -> numpy array), equal to
    ``read``'s.

    A CSV of only the known columns whose fields are plain decimal numbers is read by Arrow's CSV
    reader and checked by ``check_columns``; anything else (a Parquet file, other columns, a parse
    error, a text, empty or hexadecimal field, a repeated column name) goes through ``read``, so every
    error is ``read``'s own, word for word.
    """
    path = check_path(path, "read_columns: path")  # (an int, bytes or None: pathlib's bare TypeError)
    check_input(path, "job table")
    source = _source(path)
    _check_rows_fit(path, source)
    parquet = _parquet(path, source)
    fast = _read_parquet_columns(path, _opened(source)) if parquet else _read_csv_columns(source)
    if fast is None:
        table = _read(path, source)
        return {c: table[c].to_numpy() for c in table.columns}
    if parquet:  # checked as it was read, column by column
        return fast
    if len(fast["id"]) == 0:
        raise InputError(f"{path}: the job table has no rows; expected at least one job")
    return check_columns(fast, str(path), first_line=2)


#: what one job of a job table takes in memory at the peak of ``simulate --job-table``, bytes: a CSV's (Arrow's
#: parse, the checked columns, the run) and a Parquet file's, measured on 2,000,000 jobs (793 MB and 543 MB RSS, less
#: the process's 255 MB without a table)
JOB_TABLE_BYTES_PER_JOB = {"csv": 280, "parquet": 150}


def _check_rows_fit(path: Path, source) -> None:
    """Refuse a job table whose rows would not fit in memory (``check_fits``: ``GAMEMARKET_MEMORY_LIMIT``, else this
    machine's), counted before anything is parsed: a Parquet file's rows from its footer, a CSV's lines in one pass
    over its bytes (a gzip table's as they inflate). A table of 4,000,000 jobs ran at 886 MB under a 200 MB limit,
    where a trace of the same jobs was refused (hunt 21b-F4)."""
    if _parquet(path, source):
        import pyarrow.parquet as pq  # deferred: pyarrow (a quarter second) only where a table is read or written

        try:
            rows = pq.ParquetFile(_opened(source)).metadata.num_rows
        except Exception:  # noqa: BLE001 (a damaged footer: the reader says what is wrong)
            return
        kind = "parquet"
    else:  # (its header line is no job: hunt 22b-W3 counted 200,001 jobs of 200,000)
        rows, kind = max(_csv_lines(path, source) - 1, 0), "csv"
    check_fits(rows * JOB_TABLE_BYTES_PER_JOB[kind], f"{path}: a job table of {rows:,} jobs and their run")


def _csv_lines(path: Path, source) -> int:
    """The lines of a CSV job table (its rows, and its header), counted without parsing it."""
    if isinstance(source, bytes):
        return source.count(b"\n") + (not source.endswith(b"\n") and bool(source))
    lines, last = 0, b"\n"
    try:
        with open(path, "rb") as raw:
            gz = raw.read(2) == b"\x1f\x8b"
        opener = gzip.open if gz else open
        with opener(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                lines += block.count(b"\n")
                last = block[-1:]
    except (OSError, EOFError, zlib.error):  # (a damaged gzip: the reader says what is wrong)
        return lines
    return lines + (last != b"\n")  # (a last line without its newline is a line)


def _read_parquet_columns(path: Path, source=None) -> dict[str, np.ndarray] | None:
    """A Parquet job table read and checked as ``read`` reads and checks it (``check_columns``: the same
    errors), a column at a time and a row group at a time, so that memory holds the checked columns and one
    column's float64 values (pandas' reader holds the file's table, a DataFrame and ``validate``'s copies at
    once: about three times the table); None where the file holds anything but the known columns as integers
    or floats without nulls (``read`` then reads it and says what is wrong)."""
    # deferred: pyarrow (a quarter second) only where a table is read or written
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(path if source is None else source)  # (``source``: a stream's bytes, in memory)
        schema = f.schema_arrow
    except Exception:  # Arrow's many errors: ``read`` says what is wrong
        return None
    names = schema.names
    if len(set(names)) != len(names) or any(c not in SPEC for c in names) or any(c not in names for c in REQUIRED):
        return None
    if not all(pa.types.is_integer(schema.field(c).type) or pa.types.is_floating(schema.field(c).type) for c in names):
        return None
    J = f.metadata.num_rows
    if J == 0:
        raise InputError(f"{path}: the job table has no rows; expected at least one job")
    out = {}
    for col in [c for c in COLUMNS if c.name in names]:
        vals = np.empty(J, np.float64)
        at = 0
        for g in range(f.num_row_groups):
            try:
                part = f.read_row_group(g, columns=[col.name]).column(0)
            except Exception:  # a damaged column: ``read`` says what is wrong
                return None
            if part.null_count:
                return None
            for ch in part.chunks:
                v = ch.to_numpy(zero_copy_only=True)
                vals[at : at + len(v)] = v
                at += len(v)
        out[col.name] = check_column(col, vals, str(path))
        del vals
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed row groups for reuse otherwise
    check_ids(out["id"], str(path))
    return out


def _read_csv_columns(source) -> dict[str, np.ndarray] | None:
    """The job table's columns as float64 arrays by Arrow's CSV reader (``source``: a path, or a stream's bytes),
    or None where the file is not plainly numeric (``read`` then reads it and says what is wrong)."""
    # deferred: pyarrow (a quarter second) only where a table is read or written
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        data = source if isinstance(source, bytes) else source.read_bytes()
    except OSError:
        return None
    header, _, body = data.partition(b"\n")
    # only the known columns, and a body of plain decimal numbers: where Arrow's reader and pandas' agree
    # (Arrow also reads hexadecimal integers, for one, which pandas refuses)
    names = [n[1:-1] if len(n) > 1 and n[:1] == n[-1:] == b'"' else n for n in header.rstrip(b"\r").split(b",")]
    if any(n.decode("ascii", "replace") not in REQUIRED + OPTIONAL for n in names) or body.translate(
        None, b"0123456789.,+-eE\r\n"
    ):
        return None
    try:
        t = pacsv.read_csv(
            pa.BufferReader(data),
            parse_options=pacsv.ParseOptions(ignore_empty_lines=False),  # a blank line is an error, as in ``read``
            convert_options=pacsv.ConvertOptions(strings_can_be_null=True, quoted_strings_can_be_null=True),
        )
        names = t.column_names
    except Exception:  # Arrow's many errors: ``read`` says what is wrong
        return None
    if len(set(names)) != len(names) or any(c not in names for c in REQUIRED):
        return None
    dtypes = {pa.int64(): np.int64, pa.float64(): np.float64}  # what Arrow infers for numbers in a CSV
    out = {}
    for c in [c for c in REQUIRED + OPTIONAL if c in names]:
        col = t.column(c)
        if col.null_count or col.type not in dtypes:
            return None
        # the values' buffers as they are (``to_numpy`` would import pandas, which this path avoids)
        parts = [
            np.frombuffer(ch.buffers()[1], dtype=dtypes[col.type], count=len(ch), offset=ch.offset * 8)
            for ch in col.chunks
        ]
        out[c] = np.concatenate(parts).astype(np.float64) if parts else np.empty(0)
    return out


def short_estimates(table: pd.DataFrame) -> int:
    """How many jobs have an estimate below their run time.

    Market model section 7 keeps such estimates as they are (the job still runs its full run
    time); only WSPT-EST reads them, so a caller says how many there are rather than pass them silently.
    """
    return int((table["estimate"] < table["runtime"]).sum())


def bids_above_private(table) -> tuple[int, float, int]:
    """How many jobs report more than their private bid, the largest ratio of the two among those whose private bid
    is above 0 (0 where none), and how many of them have a private bid of 0 (no ratio: "up to inf times it" was said
    of them, hunt 39b-W6): a beta mix never reports more (market model 3.2), so a caller says so rather than pass
    them silently (the contract's job table fixes the bids, whatever they are)."""
    w = np.asarray(table["private_bid"], dtype=float)
    rw = np.asarray(table["reported_bid"], dtype=float)
    above = rw > w
    if not above.any():
        return 0, 0.0, 0
    positive = above & (w > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (a subnormal bid: fuzz run X)
        most = float((rw[positive] / w[positive]).max()) if positive.any() else 0.0
    return int(above.sum()), most, int((above & ~positive).sum())


TABLE_SUFFIXES = (".parquet", ".pq", ".csv")


def check_table_path(path: str | os.PathLike) -> Path:
    """A table file name ``write_table`` can write: not a folder (nor a name ending in a slash), a .csv or .parquet
    name."""
    check_output_file_name(path, "table")
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder; expected a table file name (.csv or .parquet)")
    if path.suffix.lower() not in TABLE_SUFFIXES:
        raise InputError(f"{path}: unknown table format; use a .csv or .parquet file name")
    return path


def write_table(table, path: str | os.PathLike) -> Path:
    """Write a DataFrame as CSV or Parquet by the file's extension, atomically; an Arrow table (the
    CLI's pandas-free path, ``arrow_table``) as CSV only."""
    path = check_table_path(path)
    suffix = path.suffix.lower()
    if suffix != ".csv" and not hasattr(table, "to_parquet"):
        raise TypeError("write_table: an Arrow table is written as CSV only")
    with atomic_path(path, "table") as tmp:
        if suffix == ".csv":
            _write_csv(table, tmp)
        else:
            table.to_parquet(tmp, index=False)
    return path


def _write_csv(table, path: Path) -> None:
    """CSV with every float in its shortest exact form (it reads back to the same double), by Arrow's
    writer: about 12x faster than pandas' ``to_csv`` on a trace's outcome table. Strings are quoted,
    booleans are ``true``/``false``. A column Arrow cannot type (mixed Python objects) falls back to pandas
    with 17 significant digits, which also reads back exactly. An Arrow table is written as it is."""
    import pyarrow as pa  # deferred: pyarrow (a quarter second) only where a table is read or written

    if isinstance(table, pa.Table):
        arrow = table
    else:
        try:
            arrow = pa.Table.from_pandas(table, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            table.to_csv(path, index=False, float_format="%.17g")
            return
    _write_arrow_csv(arrow, path)


#: rows of a slice that ``_write_arrow_csv`` formats on a thread of its own
CSV_SLICE_ROWS = 50_000


def _write_arrow_csv(arrow, path: Path, *, slice_rows: int = CSV_SLICE_ROWS, cores: int | None = None) -> None:
    """Arrow's CSV writer on slices of rows formatted in threads (Arrow releases the GIL, and formatting
    numbers is most of a trace's write), written in order: the same bytes as one ``write_csv`` call
    (tested)."""
    # deferred: pyarrow (a quarter second) only where a table is read or written
    import pyarrow as pa
    import pyarrow.csv as pacsv

    n = arrow.num_rows
    threads = min(cores or os.cpu_count() or 1, n // slice_rows)
    if threads < 2:
        pacsv.write_csv(arrow, path, pacsv.WriteOptions(quoting_style="needed"))
        return

    bounds = np.linspace(0, n, threads + 1).astype(np.int64)

    def text(k: int):
        sink = pa.BufferOutputStream()
        part = arrow.slice(int(bounds[k]), int(bounds[k + 1] - bounds[k]))
        pacsv.write_csv(part, sink, pacsv.WriteOptions(quoting_style="needed", include_header=k == 0))
        return sink.getvalue()

    with ThreadPoolExecutor(threads) as pool, open(path, "wb") as f:
        for buf in pool.map(text, range(threads)):
            f.write(buf)


def arrow_table(columns: Mapping[str, np.ndarray], categories: Mapping[str, tuple] = {}):  # noqa: B006
    """Column arrays (int8, int64, float64, bool) as an Arrow table for ``write_table``; a column named in
    ``categories`` holds int8 codes into its labels and becomes a dictionary column, as a pandas
    categorical does. Built from the arrays' buffers: ``pyarrow.array`` would import pandas."""
    import pyarrow as pa  # deferred: pyarrow (a quarter second) only where a table is read or written

    out = {}
    for c, v in columns.items():
        arr = _arrow_array(np.asarray(v))
        if c in categories:
            labels = [str(x).encode() for x in categories[c]]
            offsets = np.r_[0, np.cumsum([len(x) for x in labels])].astype(np.int32)
            words = pa.Array.from_buffers(
                pa.string(), len(labels), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(labels))]
            )
            arr = pa.DictionaryArray.from_arrays(arr, words)
        out[c] = arr
    return pa.table(out)


def _arrow_array(v: np.ndarray):
    import pyarrow as pa  # deferred: pyarrow (a quarter second) only where a table is read or written

    if v.dtype == np.bool_:  # Arrow packs booleans in bits, least significant first
        return pa.Array.from_buffers(pa.bool_(), len(v), [None, pa.py_buffer(np.packbits(v, bitorder="little"))])
    types = {np.dtype(np.int8): pa.int8(), np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}
    if v.dtype not in types:
        raise TypeError(f"arrow_table: a column of dtype {v.dtype} is not supported")
    return pa.Array.from_buffers(types[v.dtype], len(v), [None, pa.py_buffer(np.ascontiguousarray(v))])


def exchange_columns(table: pd.DataFrame) -> pd.DataFrame:
    """Only the section-8 columns a job table carries."""
    return table[[c for c in REQUIRED + OPTIONAL if c in table.columns]]
