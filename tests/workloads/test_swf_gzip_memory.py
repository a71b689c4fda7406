"""A gzip-compressed SWF trace is inflated in bounded parts and counted against the memory limit as they come, as
the plain text is read (hunt 25b-F3: a block of a thousandfold-compressed trace was inflated whole, and a trace
refused under ``GAMEMARKET_MEMORY_LIMIT=50000000`` took 1.9 GB first); and a gzip trace that fits reads as its
plain text does."""

import gzip
import os
import threading
import tracemalloc
import zlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.workloads import read_swf
from gamemarket.workloads.swf import CHUNK_BYTES, read_swf_columns

HEADER = b"; Version: 2.2\n; MaxProcs: 16\n; MaxNodes: 16\n"
#: a 4-processor record (4 serial jobs): 49 bytes of text, inflated from about a thousandth of that
LINE = b"1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
#: comments of random digits after the header: the gzip bytes a reader peeks at to tell the format (4 kB) inflate to
#: no more than a few kB, and what comes after them is the bomb
DIGITS = np.random.default_rng(0).bytes(32 * 300).hex().encode()
NOTES = b"".join(b"; note " + DIGITS[k : k + 64] + b"\n" for k in range(0, len(DIGITS), 64))
#: the bomb's content: 128 MiB of text, about 400 kB of gzip
BOMB_TEXT = 128 << 20
#: the limit it is read under: far below the bomb's text, far above one chunk's records
LIMIT = 5_000_000


def _gzip_stream(text_bytes: int) -> bytes:
    """A gzip stream of ``HEADER`` and ``LINE`` repeated to about ``text_bytes`` of text, made without holding it."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = LINE * ((1 << 20) // len(LINE))
    out = [z.compress(HEADER + NOTES)]
    for _ in range(text_bytes // len(block)):
        out.append(z.compress(block))
    out.append(z.flush())
    return b"".join(out)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    p = tmp_path_factory.mktemp("bomb") / "bomb.swf.gz"
    p.write_bytes(_gzip_stream(BOMB_TEXT))
    assert p.stat().st_size < BOMB_TEXT // 100  # (a bomb: the text is over a hundred times its gzip)
    return p


def _peak(read, *args, **kwargs):
    """``(error, peak)``: the ``InputError`` ``read(*args, **kwargs)`` raised, and the most bytes Python and numpy
    held at once meanwhile (``tracemalloc``: deterministic, unlike a process's RSS)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with pytest.raises(InputError) as info:
            read(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return info.value, peak


def _says_too_many(message: str, path, kind: str) -> None:
    assert message.startswith(f"{path}: ")
    assert kind in message
    assert "serial jobs" in message and "the limit is 5 MB (GAMEMARKET_MEMORY_LIMIT)" in message


@pytest.mark.parametrize("chunk", [1 << 16, 1 << 20])
def test_a_gzip_bomb_is_inflated_a_chunk_at_a_time_and_refused(bomb, monkeypatch, chunk):
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(LIMIT))
    error, peak = _peak(read_swf_columns, bomb, chunk_bytes=chunk)
    _says_too_many(str(error), bomb, "of the part of the trace read so far, held as the engine's columns")
    # a chunk of text, its copy in whole lines and its table of 18 float64 fields (about 3 times its text), and
    # the records kept: a few chunks' worth, never the 128 MiB of text inflated whole
    assert peak < 8 * chunk + 2 * LIMIT, f"{peak:,} bytes held at once reading {chunk:,}-byte chunks"


def test_a_gzip_bomb_read_as_a_table_stays_near_the_limit(bomb, monkeypatch):
    """``read_swf`` (``gamemarket workload info``) at its own chunk size (8 MiB): a chunk, its table and its records."""
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(LIMIT))
    error, peak = _peak(read_swf, bomb)
    _says_too_many(str(error), bomb, "as a table of every SWF field")
    assert peak < 6 * CHUNK_BYTES + 2 * LIMIT, f"{peak:,} bytes held at once"


def test_a_gzip_bomb_through_a_pipe_is_refused_the_same(bomb, monkeypatch, tmp_path):
    """A stream of the gzip bytes (``<(cat trace.swf.gz)``, a named pipe): read once, in the same bounded parts."""
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(LIMIT))
    fifo = tmp_path / "trace.swf.gz"
    os.mkfifo(fifo)
    data = bomb.read_bytes()

    def feed():
        try:
            with open(fifo, "wb") as f:
                f.write(data)
        except BrokenPipeError:  # the reader refused the trace and closed its end
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        error, peak = _peak(read_swf_columns, fifo, chunk_bytes=1 << 20)
    finally:
        writer.join(timeout=30)
    _says_too_many(str(error), fifo, "of the part of the trace read so far, held as the engine's columns")
    assert peak < 8 * (1 << 20) + 2 * LIMIT, f"{peak:,} bytes held at once"


def test_a_gzip_trace_that_fits_the_limit_is_read_whole(monkeypatch, tmp_path):
    """The bounded inflate reads every byte: a trace of many chunks, in several gzip members, gives every job."""
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(10**9))
    member = _gzip_stream(2 << 20)
    p = tmp_path / "t.swf.gz"
    p.write_bytes(member + member + b"\x00" * 100)
    records = 2 * ((2 << 20) // ((1 << 20) // len(LINE) * len(LINE))) * ((1 << 20) // len(LINE))
    for chunk in (1 << 12, 1 << 16, 1 << 23):
        cols, meta = read_swf_columns(p, chunk_bytes=chunk)
        assert meta["cleaning"]["records"] == records
        assert len(cols["id"]) == 4 * records
        assert meta["header"]["MaxProcs"] == "16; 16"  # (a header in each member)


def rec(job, submit, run, alloc, req_procs=-1, req_time=-1, status=1, user=1):
    f = [job, submit, -1, run, alloc, -1, -1, req_procs, req_time, -1, status, user, 1, -1, 1, 1, -1, -1]
    return " ".join(str(x) for x in f)


records = st.tuples(
    st.integers(1, 10**6),
    st.one_of(st.integers(-1, 10**6), st.sampled_from([0.5, 2.5])),
    st.integers(-1, 10**5),
    st.integers(-1, 6),
    st.integers(-1, 6),
    st.integers(-1, 10**5),
)


@st.composite
def traces(draw):
    lines = ["; Version: 2.2", "; MaxProcs: 64", "; Installation: A"]
    lines += [rec(*r) for r in draw(st.lists(records, min_size=1, max_size=60))]
    lines.insert(draw(st.integers(3, len(lines))), "; a comment")
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return (eol.join(lines) + (eol if draw(st.booleans()) else "")).encode()


def _gzip(text: bytes, members: int, level: int) -> bytes:
    """``text`` as ``members`` gzip members (``gzip -d`` reads them as one text)."""
    cuts = np.linspace(0, len(text), members + 1).astype(int)
    return b"".join(gzip.compress(text[a:b], compresslevel=level) for a, b in zip(cuts[:-1], cuts[1:]))


def _same(a, b) -> None:
    """The same read, but for the file's own hash, path and name."""
    cols_a, meta_a = a
    cols_b, meta_b = b
    assert cols_a.keys() == cols_b.keys()
    for c in cols_a:
        np.testing.assert_array_equal(cols_a[c], cols_b[c])
        assert cols_a[c].dtype == cols_b[c].dtype
    assert meta_a["cleaning"] == meta_b["cleaning"] and meta_a["header"] == meta_b["header"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=traces(),
    members=st.integers(1, 3),
    level=st.sampled_from([1, 6, 9]),
    chunk=st.sampled_from([64, 257, 4096, 1 << 23]),
)
def test_a_gzip_trace_reads_as_its_plain_text(tmp_path, text, members, level, chunk):
    plain, gz = tmp_path / "t.swf", tmp_path / "t.swf.gz"
    plain.write_bytes(text)
    gz.write_bytes(_gzip(text, members, level))
    try:
        want = read_swf_columns(plain, chunk_bytes=chunk)
    except InputError as exc:  # (every record dropped: the gzip is refused alike)
        with pytest.raises(InputError) as info:
            read_swf_columns(gz, chunk_bytes=chunk)
        assert str(info.value).replace(str(gz), str(plain)) == str(exc)
        return
    _same(read_swf_columns(gz, chunk_bytes=chunk), want)
    table_gz, table = read_swf(gz), read_swf(plain)
    pd.testing.assert_frame_equal(table_gz.jobs, table.jobs)
    assert table_gz.meta["cleaning"] == table.meta["cleaning"]
    assert table_gz.meta["header"] == table.meta["header"]
