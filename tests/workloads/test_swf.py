import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.workloads import Workload, nodes_from_processors, read_swf
from gamemarket.workloads.base import generate_estimates
from gamemarket.workloads.swf import _fast_fields, parse_fields_careful

HEADER = """; Version: 2.2
; Computer: Test Cluster
; Installation: Lab A
; Installation: Part of B
;   MaxNodes: 70  (dual)
;   MaxProcs: 140
; UnixStartTime: 1091615532
; TimeZoneString: Europe/Paris
; Note: ignored key
"""


def rec(job, submit, run, alloc, req_procs=-1, req_time=-1, status=1, user=1):
    f = [job, submit, -1, run, alloc, -1, -1, req_procs, req_time, -1, status, user, 1, -1, 1, 1, -1, -1]
    return " ".join(str(x) for x in f)


def write(tmp_path, text, name="t.swf", gz=False):
    p = tmp_path / name
    data = text.encode()
    p.write_bytes(gzip.compress(data) if gz else data)
    return p


def test_header_and_cleaning(tmp_path):
    lines = [
        HEADER,
        rec(1, 0, 10, 1, req_time=100),
        "",  # blank
        "   ; indented comment",
        rec(2, 5, -1, 1),  # rule 1: run time missing
        rec(3, 6, 0, 1),  # rule 1: run time 0
        rec(4, 7, 10, 0, 0),  # rule 2: no processors
        rec(5, 8, 10, -1, 3, 50),  # processors from field 8: 3 serial jobs
        rec(6, -1, 10, 1),  # rule 3: submit missing
        rec(7, 9, -1, 0),  # fails rules 1 and 2: counted once, by rule 1
        rec(8, 9, 20, 2, req_time=-1, status=5, user=7),
    ]
    w = read_swf(write(tmp_path, "\n".join(lines)))
    c = w.meta["cleaning"]
    assert (c["dropped_runtime"], c["dropped_processors"], c["dropped_submit"]) == (3, 1, 1)
    assert c["records"] == 8 and c["serial_jobs"] == 1 + 3 + 2
    j = w.jobs
    assert j["id"].tolist() == list(range(6))
    assert j["swf_job"].tolist() == [1, 5, 5, 5, 8, 8]
    assert j["estimate"].tolist()[:4] == [100, 50, 50, 50]
    assert j["estimate_generated"].tolist() == [False] * 4 + [True] * 2
    assert j["estimate"].iloc[4] == 60  # generated: smallest popular value >= 20 s
    assert j["status"].iloc[-1] == 5 and j["user"].iloc[-1] == 7
    h = w.meta["header"]
    assert h["MaxProcs"] == "140" and h["Installation"] == "Lab A; Part of B" and "Note" not in h
    assert w.processors == 140 and w.nodes(reduction=0.25) == 105


def test_drop_parallel_and_gzip_magic(tmp_path):
    text = "\n".join([rec(1, 0, 10, 1), rec(2, 1, 10, 4)])
    p = write(tmp_path, text, name="looks_plain.swf", gz=True)  # gzip detected by magic bytes, not by name
    w = read_swf(p, parallel="drop")
    assert len(w) == 1 and w.meta["cleaning"]["dropped_parallel"] == 1
    assert len(read_swf(p)) == 5


def test_fractional_times_rounded_and_counted(tmp_path):
    w = read_swf(write(tmp_path, rec(1, 0.4, 10.5, 1) + "\n" + rec(2, 3, 0.4, 1)))
    assert w.jobs["submit"].tolist() == [0] and w.jobs["runtime"].tolist() == [11]
    assert w.meta["cleaning"]["rounded_records"] == 1 and w.meta["cleaning"]["dropped_runtime"] == 1


@pytest.mark.parametrize(
    "bad,what",
    [
        (" ".join(["1"] * 17), "found 17"),
        (" ".join(["1"] * 19), "found 19"),
        (rec(9, "abc", 10, 1), "field 2 is 'abc'"),
        (rec(9, 1, "nan", 1), "finite"),
        (rec(9, 1, "inf", 1), "finite"),
        (rec(9, 1, 10, 1) + " ; trailing", "found"),
    ],
)
def test_malformed_line_named(tmp_path, bad, what):
    text = "\n".join([HEADER, rec(1, 0, 10, 1), bad, rec(2, 1, 10, 1)])
    p = write(tmp_path, text)
    lineno = HEADER.count("\n") + 3  # the join adds a blank line after the header
    with pytest.raises(InputError) as e:
        read_swf(p)
    assert f"{p}:{lineno}:" in str(e.value) and what in str(e.value)
    w = read_swf(p, skip_bad_lines=True)
    assert len(w) == 2 and w.meta["cleaning"]["skipped_lines"] == 1


def test_missing_file_and_corrupt_gzip(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_swf(tmp_path / "nope.swf")
    p = tmp_path / "bad.swf.gz"
    p.write_bytes(b"\x1f\x8b" + b"garbage")
    with pytest.raises(InputError, match="gzip"):
        read_swf(p)


@settings(max_examples=50, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(1, 10**6),
            st.integers(-1, 10**6),
            st.integers(-1, 10**5),
            st.integers(-1, 8),
            st.integers(-1, 8),
            st.integers(-1, 10**5),
        ),
        max_size=30,
    )
)
def test_fast_parser_equals_careful_parser(rows):
    text = "\n".join(rec(a, b, c, d, e, f) for a, b, c, d, e, f in rows).encode()
    fast = _fast_fields(text)
    careful, skipped = parse_fields_careful(text, "x")
    assert skipped == 0 and fast is not None
    if isinstance(fast, dict):
        for k, col in fast.items():
            np.testing.assert_array_equal(col, careful.reshape(-1, 18)[:, k])
    else:
        assert fast.size == 0 and careful.size == 0


def test_nodes_from_processors():
    assert nodes_from_processors(140, 0.25) == 105
    assert nodes_from_processors(10, 0.9) == 1  # 10 * 0.1 is 0.9999999999999998 in binary
    with pytest.raises(InputError):
        nodes_from_processors(1, 0.5)
    with pytest.raises(InputError):
        nodes_from_processors(10, 1.0)


def test_generated_estimates_cover_runtime():
    rt = np.array([1, 60, 61, 3600, 3601, 72 * 3600, 72 * 3600 + 1])
    est = generate_estimates(rt)
    assert (est >= rt).all()
    assert est.tolist() == [60, 60, 300, 3600, 7200, 72 * 3600, 4 * 86400]


def test_workload_requires_columns():
    import pandas as pd

    with pytest.raises(InputError, match="lacks"):
        Workload(pd.DataFrame({"id": [0]}))


def test_lpc_trace(lpc):
    w = read_swf(lpc)
    assert len(w) == 214_322
    assert w.meta["sha256"] == "2fc37df5cc14c355fc7a88235f72e54fdf5f0d93de09399d015383ee5c35a59d"
    assert w.nodes(reduction=0.25) == 105
    c = w.meta["cleaning"]
    assert c["records"] == 234_889 and c["dropped_runtime"] == 20_567


@pytest.mark.parametrize(
    "record,message",
    [
        (rec(7, 10**20, 100, 1), "SWF record of job 7: field 2 (submit time) = 1e+20"),
        (rec(7, 0, 10**19, 1), "field 4 (run time) = 1e+19"),
        (rec(7, 0, 100, 1, req_time=2**60), "field 9 (requested time)"),
        (rec(7, 0, 100, 10**17), "field 5 (allocated processors) = 1e+17"),
    ],
)
def test_times_and_counts_beyond_what_a_trace_may_hold_are_refused(tmp_path, record, message):
    """A time beyond 2^53 s (int64 arithmetic in the engine, a 777 TiB allocation once in the statistics) or a
    processor count that could never be split: an error naming the file, the record, the field and the value."""
    p = write(tmp_path, HEADER + rec(1, 0, 100, 1) + "\n" + record + "\n")
    with pytest.raises(InputError, match="expected below 2\\^53 = 9,007,199,254,740,992") as e:
        read_swf(p)
    assert str(e.value).startswith(f"{p}: ") and message in str(e.value)


def test_a_split_that_cannot_fit_in_memory_is_refused_before_it_allocates(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", "1e6")
    p = write(tmp_path, HEADER + rec(1, 0, 100, 10**6) + "\n")  # a million serial jobs: ~160 MB
    said = (
        r"holding the 1,000,000 serial jobs .* read so far as a table of every SWF field needs about 160 MB .* is 1 MB"
    )
    with pytest.raises(InputError, match=said):
        read_swf(p)
    p = write(tmp_path, HEADER + rec(1, 0, 100, 10**6) + "\n" + rec(2, 5, 100, 1) + "\n")
    assert len(read_swf(p, parallel="drop").jobs) == 1  # dropped, the parallel record costs nothing
