import gzip
import hashlib
import json

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.io import jobtable
from gamemarket.market import PAYMENTS, SCHEDULERS
from gamemarket.workloads import archive


def test_fetch_verifies_checksum(tmp_path, monkeypatch):
    payload = gzip.compress(b"1 0 -1 10 1 -1 -1 -1 -1 -1 1 1 1 -1 1 1 -1 -1\n")
    src = tmp_path / "src.swf.gz"
    src.write_bytes(payload)
    good = hashlib.sha256(payload).hexdigest()
    monkeypatch.setitem(archive.KNOWN_TRACES, "T", archive.Trace("T", "https://example.invalid/T.swf.gz", good))
    dest = tmp_path / "cache"
    out = archive.fetch("T", dest=dest, url=src.as_uri())
    assert out.read_bytes() == payload
    # wrong checksum: error, nothing left behind
    monkeypatch.setitem(archive.KNOWN_TRACES, "T", archive.Trace("T", "https://example.invalid/T.swf.gz", "0" * 64))
    out.unlink()
    with pytest.raises(archive.ChecksumError):
        archive.fetch("T", dest=dest, url=src.as_uri())
    assert list(dest.iterdir()) == []
    with pytest.raises(InputError, match="unknown trace"):
        archive.fetch("nope")


def test_jobtable_validation(tmp_path):
    t = pd.DataFrame(
        {
            "id": [0, 1],
            "submit": [0, 1],
            "runtime": [5, 6],
            "estimate": [5, 6],
            "private_bid": [1.0, 2.0],
            "reported_bid": [1.0, 2.0],
        }
    )
    assert len(jobtable.validate(t)) == 2
    with pytest.raises(InputError, match="missing column"):
        jobtable.validate(t.drop(columns="estimate"))
    bad = t.copy()
    bad.loc[1, "private_bid"] = float("nan")
    with pytest.raises(InputError, match="row 1: column 'private_bid'"):
        jobtable.validate(bad)
    bad = t.copy()
    bad.loc[0, "runtime"] = 0
    with pytest.raises(InputError, match="row 0: column 'runtime' is 0, expected > 0"):
        jobtable.validate(bad)
    bad = t.copy()
    bad.loc[1, "submit"] = -5
    with pytest.raises(InputError, match="row 1: column 'submit' is -5, expected >= 0"):
        jobtable.validate(bad)
    bad.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(InputError, match=r"t\.csv: line 3: column 'submit'"):  # the file's line, header counted
        jobtable.read(tmp_path / "t.csv")
    t.iloc[:0].to_csv(tmp_path / "empty.csv", index=False)
    with pytest.raises(InputError, match="no rows"):
        jobtable.read(tmp_path / "empty.csv")
    bad = t.copy()
    bad["id"] = [3, 3]
    with pytest.raises(InputError, match="unique"):
        jobtable.validate(bad)
    bad = t.copy()
    bad["submit"] = [0.5, 1]
    with pytest.raises(InputError, match="integer"):
        jobtable.validate(bad)


def test_cli_simulate_roundtrip_with_jobs(tmp_path, capsys):
    jobs, out1, out2 = tmp_path / "jobs.csv", tmp_path / "o1.parquet", tmp_path / "o2.csv"
    assert (
        main(
            [
                "simulate",
                "--synthetic-jobs",
                "300",
                "--nodes",
                "8",
                "--mix",
                "SRG",
                "--seed",
                "4",
                "--payment",
                "first",
                "--jobs-out",
                str(jobs),
                "--out",
                str(out1),
                "--format",
                "json",
            ]
        )
        == 0
    )
    s1 = json.loads(capsys.readouterr().out)
    assert (
        main(
            [
                "simulate",
                "--job-table",
                str(jobs),
                "--nodes",
                "8",
                "--payment",
                "first",
                "--out",
                str(out2),
                "--format",
                "json",
            ]
        )
        == 0
    )
    s2 = json.loads(capsys.readouterr().out)
    assert s1["revenue"] == s2["revenue"] and s1["mean_utility"] == s2["mean_utility"]
    a, b = pd.read_parquet(out1), pd.read_csv(out2)
    for c in jobtable.REQUIRED[:1] + ("start", "end", "flow", "wait", "ssj", "preemptions"):
        assert (a[c].to_numpy() == b[c].to_numpy()).all()
    pd.testing.assert_series_equal(a["payment"], b["payment"], rtol=1e-12)


def test_cli_errors_exit_nonzero(tmp_path, capsys):
    assert main(["simulate", "--mix", "0.5:0.1"]) == 2
    assert "sum to 1" in capsys.readouterr().err
    assert main(["simulate", "--scheduler", "nope"]) == 2
    assert "unknown scheduler" in capsys.readouterr().err
    p = tmp_path / "x.swf"
    p.write_text("1 2 3\n")
    assert main(["workload", "info", str(p)]) == 2
    assert f"{p}:1:" in capsys.readouterr().err
    assert main(["simulate", "--out", str(tmp_path / "o.txt"), "--synthetic-jobs", "10"]) == 2


def test_lpc_full_hb_kth(lpc):
    from gamemarket.bids import job_table
    from gamemarket.consumers import SRG
    from gamemarket.market import Mechanism, simulate
    from gamemarket.workloads import read_swf

    w = read_swf(lpc)
    t = job_table(w.jobs, SRG, 1)
    r = simulate(t, w.nodes(reduction=0.25), Mechanism("hb", "kth", 1.0))
    j = r.jobs
    assert len(j) == 214_322 and (j["end"] - j["start"] >= j["runtime"]).all()
    assert (j["payment"] >= j["runtime"] * (1 - 1e-12)).all()
    assert r.summary["preemptions"] > 0 and 0 < r.summary["utilization"] < 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    jobs=st.integers(1, 400),
    nodes=st.integers(1, 12),
    sched=st.sampled_from(list(SCHEDULERS)),
    pay=st.sampled_from(list(PAYMENTS)),
    shuffle=st.booleans(),
)
def test_simulate_jobs_without_pandas_equals_the_dataframe_path(
    tmp_path, capsys, seed, jobs, nodes, sched, pay, shuffle
):
    """``simulate --job-table T.csv --out O.csv`` goes without pandas (``read_columns``, ``simulate_columns``, an
    Arrow table); its output file is byte for byte, and its summary number for number, what the DataFrame
    path (``read``, ``simulate``, ``write_table``: the reference) gives, rows in any order."""
    from gamemarket.bids import job_table
    from gamemarket.consumers import SRG
    from gamemarket.market import Mechanism, simulate
    from gamemarket.workloads import generate

    t = job_table(generate(jobs=jobs, nodes=nodes, seed=seed).jobs, SRG, seed)
    if shuffle:
        t = t.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    d = tmp_path / f"{seed}-{jobs}-{nodes}-{sched}-{pay}-{shuffle}"
    d.mkdir()
    jobtable.write_table(jobtable.exchange_columns(t), d / "t.csv")
    want = simulate(jobtable.read(d / "t.csv"), nodes, Mechanism(sched, pay))
    jobtable.write_table(want.jobs, d / "want.csv")
    capsys.readouterr()
    argv = ["simulate", "--job-table", str(d / "t.csv"), "--nodes", str(nodes), "--scheduler", sched, "--payment", pay]
    assert main([*argv, "--out", str(d / "got.csv"), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (d / "got.csv").read_bytes() == (d / "want.csv").read_bytes()
    for k, v in want.summary.items():
        assert got[k] == pytest.approx(v, rel=1e-15, abs=0), k


@pytest.mark.slow
def test_simulate_jobs_to_csv_does_not_import_pandas(tmp_path):
    """The point of that path: a whole ``simulate --job-table`` process never imports pandas."""
    import subprocess
    import sys

    from gamemarket.bids import job_table
    from gamemarket.consumers import SRG
    from gamemarket.workloads import generate

    t = job_table(generate(jobs=50, nodes=4, seed=1).jobs, SRG, 1)
    jobtable.write_table(jobtable.exchange_columns(t), tmp_path / "t.csv")
    code = (
        "import sys; from gamemarket.cli import main; "
        f"rc = main(['simulate', '--job-table', {str(tmp_path / 't.csv')!r}, '--nodes', '4', '--out', "
        f"{str(tmp_path / 'o.csv')!r}]); assert rc == 0; print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"


@settings(max_examples=10, deadline=None)
@given(rows=st.integers(0, 700), per=st.integers(1, 300), seed=st.integers(0, 100))
def test_csv_written_in_slices_equals_one_write(tmp_path_factory, rows, per, seed):
    """Slices formatted on threads and written in order give the bytes of one ``write_csv`` call (the
    reference), whatever the slice size and the number of rows (header-only included)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    t = pa.table(
        {
            "a": rng.integers(-5, 5, rows),
            "b": rng.normal(size=rows) * 10.0 ** rng.integers(-300, 300, rows),
            "c": rng.random(rows) < 0.5,
            "d": pa.DictionaryArray.from_arrays(pa.array(rng.integers(0, 3, rows).astype(np.int8)), ["x", "y,z", 'q"']),
        }
    )
    d = tmp_path_factory.mktemp("w")
    jobtable._write_arrow_csv(t, d / "sliced.csv", slice_rows=per, cores=3)
    pacsv.write_csv(t, d / "one.csv", pacsv.WriteOptions(quoting_style="needed"))
    assert (d / "sliced.csv").read_bytes() == (d / "one.csv").read_bytes()
