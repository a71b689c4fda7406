"""The SWF trace read in chunks (``_Content``, ``_Records``) against the trace read whole (one chunk, and the
careful parser with ``clean_fields`` on the whole content): the same columns, counts, header, hash and errors,
wherever the chunks end; and ``read_swf_columns``' narrow columns against ``read_swf``'s table."""

import gzip
import hashlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.workloads import read_swf
from gamemarket.workloads.swf import _read, clean_fields, parse_fields_careful, parse_header, read_swf_columns

HEADER = "; Version: 2.2\n; MaxProcs: 64\n; Installation: A\n"


def rec(job, submit, run, alloc, req_procs=-1, req_time=-1, status=1, user=1):
    f = [job, submit, -1, run, alloc, -1, -1, req_procs, req_time, -1, status, user, 1, -1, 1, 1, -1, -1]
    return " ".join(str(x) for x in f)


records = st.tuples(
    st.integers(1, 10**6),
    st.one_of(st.integers(-1, 10**6), st.sampled_from([0.5, 2.5, 7.25])),
    st.one_of(st.integers(-1, 10**5), st.sampled_from([0.4, 10.5])),
    st.integers(-1, 6),
    st.integers(-1, 6),
    st.integers(-1, 10**5),
)
extra_lines = st.sampled_from(["", "; a comment", "; Installation: B", "   ", " ".join(["1"] * 17)])


@st.composite
def traces(draw):
    lines = []
    for r in draw(st.lists(records, max_size=25)):
        lines.append(rec(*r))
        if draw(st.integers(0, 2)) == 0:
            lines.append(draw(extra_lines))
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))  # Unix, Windows and old Mac line ends
    text = HEADER.replace("\n", eol) + eol.join(lines) + (eol if draw(st.booleans()) else "")
    return text.encode()


def _write(tmp_path, data: bytes, gz: bool):
    p = tmp_path / ("t.swf.gz" if gz else "t.swf")
    p.write_bytes(gzip.compress(data) if gz else data)
    return p


def _unix(data: bytes) -> bytes:
    """The text with every line end a ``\\n``, as a reader of text reads it."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _whole(path, data: bytes, parallel: str, skip: bool):
    """The reference: the whole content (its line ends read as text reads them), the careful parser and
    ``clean_fields``."""
    data = _unix(data)
    fields, skipped = parse_fields_careful(data, str(path), skip)
    jobs, counts = clean_fields(fields, parallel)
    return jobs, {**counts, "skipped_lines": skipped}


def _outcome(fn):
    try:
        return fn(), None
    except InputError as exc:
        return None, str(exc)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=traces(),
    chunk=st.integers(1, 300),
    gz=st.booleans(),
    parallel=st.sampled_from(["split", "drop"]),
    skip=st.booleans(),
)
def test_chunks_give_the_whole_reads_numbers_and_errors(tmp_path, data, chunk, gz, parallel, skip):
    path = _write(tmp_path, data, gz)
    got, got_err = _outcome(lambda: _read(path, parallel, skip, narrow=False, chunk_bytes=chunk))
    one, one_err = _outcome(lambda: _read(path, parallel, skip, narrow=False, chunk_bytes=1 << 30))
    assert got_err == one_err
    if got_err is not None:  # the first bad line, named as the whole read names it
        assert got_err.startswith(str(path))
        return
    (cols, meta), (cols1, meta1) = got, one
    assert meta == meta1
    assert meta["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert meta["header"] == parse_header(_unix(data))
    jobs, counts = _whole(path, data, parallel, skip)
    assert meta["cleaning"] == counts
    assert list(cols) == list(jobs.columns) == list(cols1)
    for c in cols:
        assert cols[c].dtype == jobs[c].dtype and np.array_equal(cols[c], jobs[c].to_numpy()), c
        assert np.array_equal(cols[c], cols1[c]), c


@pytest.mark.parametrize("chunk", [1, 7, 64, 200, 1 << 20])
@pytest.mark.parametrize("at", [0, 3, 9])
def test_a_bad_line_in_any_chunk_is_named_by_its_line_in_the_file(tmp_path, chunk, at):
    lines = [rec(i, i, 10, 1) for i in range(1, 11)]
    lines.insert(at, " ".join(["1"] * 17))
    path = _write(tmp_path, (HEADER + "\n".join(lines) + "\n").encode(), gz=chunk % 2 == 1)
    with pytest.raises(InputError) as e:
        read_swf_columns(path, chunk_bytes=chunk)
    assert str(e.value).startswith(f"{path}:{HEADER.count(chr(10)) + at + 1}: malformed SWF line")
    cols, meta = read_swf_columns(path, chunk_bytes=chunk, skip_bad_lines=True)
    assert len(cols["id"]) == 10 and meta["cleaning"]["skipped_lines"] == 1


def test_narrow_columns_hold_read_swfs_numbers(tmp_path):
    lines = [rec(1, 0, 10, 3, req_time=100), rec(2, 5, 7, 1), rec(3, 9, 20, -1, 2, 50), rec(4, -1, 5, 1)]
    path = _write(tmp_path, (HEADER + "\n".join(lines)).encode(), gz=True)
    cols, meta = read_swf_columns(path, chunk_bytes=16)
    w = read_swf(path)
    assert list(cols) == ["id", "submit", "runtime", "estimate"]
    assert cols["id"].dtype == np.int32 and cols["estimate"].dtype == np.int32
    assert cols["submit"].dtype == np.int64 and cols["runtime"].dtype == np.int64  # the engine's type
    for c in cols:
        assert np.array_equal(cols[c], w.jobs[c].to_numpy()), c
    assert meta == w.meta


def test_a_gzip_of_several_members_is_their_concatenation(tmp_path):
    a, b = (HEADER + rec(1, 0, 10, 2) + "\n").encode(), (rec(2, 3, 10, 1) + "\n").encode()
    p = tmp_path / "two.swf.gz"
    p.write_bytes(gzip.compress(a) + gzip.compress(b))
    assert len(read_swf(p)) == 3 and read_swf(p).meta["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest()


def test_a_gzip_cut_short_is_named(tmp_path):
    p = tmp_path / "cut.swf.gz"
    p.write_bytes(gzip.compress((HEADER + "\n".join(rec(i, i, 10, 1) for i in range(1, 2000))).encode())[:-40])
    with pytest.raises(InputError, match=f"{p}: corrupt gzip data"):
        read_swf_columns(p, chunk_bytes=64)


def test_offenders_in_later_chunks_are_named_as_the_whole_read_names_them(tmp_path):
    """The first record of the first field that is too large, and the count over the whole trace, however the
    chunks divide the records."""
    lines = [rec(1, 0, 10, 1), rec(2, 0, 10**19, 1), rec(3, 10**20, 10, 1), rec(4, 10**20, 10, 1)]
    path = _write(tmp_path, (HEADER + "\n".join(lines) + "\n").encode(), gz=False)
    errors = set()
    for chunk in (1, 40, 1 << 20):
        with pytest.raises(InputError) as e:
            read_swf_columns(path, chunk_bytes=chunk)
        errors.add(str(e.value))
    assert len(errors) == 1
    assert "job 3: field 2 (submit time) = 1e+20 (2 record(s) in all reach it)" in errors.pop()


def test_a_run_that_cannot_fit_in_memory_is_refused_before_the_split(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", "1e6")
    path = _write(tmp_path, (HEADER + rec(1, 0, 100, 10**6) + "\n").encode(), gz=False)
    said = r"simulating the 1,000,000 serial jobs .* read so far, held as the engine.s columns needs about 130 MB"
    with pytest.raises(InputError, match=said):
        read_swf_columns(path)
