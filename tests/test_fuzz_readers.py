"""Every reader, fed damaged and random files: a clear error (``InputError``) or a valid result, never a traceback.

Each reader gets random bytes, random text, and its own valid example with bytes inserted,
deleted or replaced (hypothesis shrinks a failure to the smallest damaged file).
"""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.games.egta import read_egta
from gamemarket.games.io import read_csv_game, read_nfg
from gamemarket.io import jobtable
from gamemarket.pricing import load as load_problem
from gamemarket.studies import load_study
from gamemarket.workloads import WorkloadModel, read_swf

ROOT = Path(__file__).resolve().parents[1]

SWF = (
    b"; Version: 2.2\n; MaxProcs: 8\n"
    b"1 0 5 100 1 -1 -1 1 200 -1 1 3 -1 -1 -1 -1 -1 -1\n"
    b"2 30 0 50 2 -1 -1 2 60 -1 1 4 -1 -1 -1 -1 -1 -1\n"
)
JOBS = b"id,submit,runtime,estimate,private_bid,reported_bid,user\n1,0,100,100,2.5,2,3\n2,10,50,80,1,1,4\n"
NFG = b'NFG 1 R "g" { "P1" "P2" } { 2 2 }\n3 3 0 5 5 0 1 1\n'
NFG_OUTCOMES = (
    b'NFG 1 R "g" { "P1" "P2" }\n{ { "C" "D" } { "C" "D" } }\n""\n{\n{ "" 3, 3 }\n{ "" 5, 0 }\n'
    b'{ "" 0, 5 }\n{ "" 1, 1 }\n}\n1 2 3 4\n'
)
CSV_GAME = b"provider,consumer,provider_payoff,consumer_payoff\na,x,1,2\na,y,0,1\nb,x,3,0\nb,y,2,2\n"
EGTA = json.dumps(
    {
        "players": {"consumers": 4},
        "strategies": {"consumers": ["FT", "SRG"]},
        "profiles": [
            {"consumers": [["FT", 4, 1.0]]},
            {"consumers": [["FT", 2, 0.5], ["SRG", 2, 0.7]]},
            {"consumers": [["SRG", 4, 0.2]]},
            {"consumers": [["FT", 3, 0.9], ["SRG", 1, 1.1]]},
            {"consumers": [["FT", 1, 0.3], ["SRG", 3, 0.4]]},
        ],
    }
).encode()
STUDY = (
    b'name = "fuzz"\n[workload]\nsource = "synthetic"\nnodes = 4\n[workload.synthetic]\njobs = 50\n'
    b'[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT", "SRG"]\n[replications]\ncount = 2\n'
)


def _npz() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, A=np.array([[1.0, 2.0], [0.5, 0.0]]), R=np.array([1.0, 2.0]), utility=np.array("log"))
    return buf.getvalue()


def _model() -> bytes:
    return (ROOT / "models" / "lpc-egee-2004.toml").read_bytes()


def _study_dir(d: Path) -> None:
    (d / "strategies").mkdir(exist_ok=True)
    for f in ("providers.toml", "consumers.toml"):
        (d / "strategies" / f).write_text((ROOT / "strategies" / f).read_text())


READERS = {  # name: (file name, valid example, reader)
    "swf": ("t.swf", SWF, lambda p: read_swf(p)),
    "swf, bad lines skipped": ("t.swf", SWF, lambda p: read_swf(p, skip_bad_lines=True)),
    "job table": ("t.csv", JOBS, jobtable.read),
    "job table, without pandas": ("t.csv", JOBS, jobtable.read_columns),
    "nfg": ("g.nfg", NFG, read_nfg),
    "nfg, outcome version": ("g.nfg", NFG_OUTCOMES, read_nfg),
    "csv game": ("g.csv", CSV_GAME, read_csv_game),
    "egta json": ("g.json", EGTA, read_egta),
    "npz problem": ("p.npz", _npz(), load_problem),
    "workload model": ("m.toml", None, WorkloadModel.read),
    "study": ("s.toml", STUDY, load_study),
}


@st.composite
def damaged(draw, valid: bytes | None, name: str):
    if valid is None:
        valid = _model()
    kind = draw(st.sampled_from(["mutate", "mutate", "mutate", "bytes", "text"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "text":
        return draw(st.text(alphabet=st.characters(codec="utf-8"), max_size=300)).encode()
    data = bytearray(valid)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, max(len(data) - 1, 0)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "truncate"]))
        b = draw(
            st.sampled_from(
                [
                    b"-",
                    b"9",
                    b"e",
                    b"\n",
                    b",",
                    b" ",
                    b'"',
                    b"[",
                    b"nan",
                    b"inf",
                    b"1e400",
                    b"\x00",
                    b"\xff",
                    b"#",
                    b";",
                    b"=",
                    b"{",
                ]
            )
        )
        if op == "insert":
            data[i:i] = b
        elif op == "delete":
            del data[i : i + draw(st.integers(1, 8))]
        elif op == "replace":
            data[i : i + len(b)] = b
        else:
            del data[i:]
    return bytes(data)


@pytest.mark.parametrize("reader", list(READERS))
@settings(
    max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", 60)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@pytest.mark.slow
@given(data=st.data())
def test_reader_gives_a_result_or_a_clear_error(reader, data):
    name, valid, read = READERS[reader]
    blob = data.draw(damaged(valid, name))
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        if reader == "study":
            _study_dir(d)
        path = d / name
        path.write_bytes(blob)
        try:
            read(path)
        except InputError as exc:
            assert str(exc).strip(), "an empty error message"


@pytest.mark.parametrize("reader", list(READERS))
def test_the_valid_examples_read(reader, tmp_path):
    name, valid, read = READERS[reader]
    if reader == "study":
        _study_dir(tmp_path)
    (tmp_path / name).write_bytes(valid if valid is not None else _model())
    read(tmp_path / name)


def _assert_readers_agree(path: Path) -> None:
    """``jobtable.read_columns`` gives ``jobtable.read``'s columns, values and dtypes, or its error word for word."""
    try:
        want = jobtable.read(path)
    except InputError as exc:
        with pytest.raises(InputError) as got:
            jobtable.read_columns(path)
        assert str(got.value) == str(exc)
        return
    got = jobtable.read_columns(path)
    assert list(got) == list(want.columns)
    for c in want.columns:
        assert got[c].dtype == want[c].dtype and np.array_equal(got[c], want[c].to_numpy()), c


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_pandas_free_job_table_reader_equals_the_pandas_one(data):
    """``jobtable.read_columns`` (Arrow's CSV reader, for ``simulate --jobs``) against ``jobtable.read``
    (pandas; the reference): the same columns, values and dtypes, or the same error word for word."""
    blob = data.draw(damaged(JOBS, "t.csv"))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.csv"
        path.write_bytes(blob)
        _assert_readers_agree(path)


TOKENS = ["0", "1", "2", "7", "60", "1.0", "2.5", "-1", "1e3", "1e400", "nan", "inf", "", '"3"', " 4", "0x1"]
TOKENS += ["true", "a"]
PLAIN = ["0", "1", "2", "7", "60", "1.0", "2.5", "-1", "1e3", "1e400", "+1", "1.", ".5", "1e-3", "5E2", "-0", "00"]
TOKENS += ["+1", "1.", ".5", "1e", "1-2", "--1", "1e-3", "5E2", "1.5e+2", "00", "-0", "9" * 20, "1,2", "\r"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cols=st.permutations(list(jobtable.REQUIRED) + ["group", "user"]).flatmap(
        lambda c: st.sampled_from([c, c[:-1], c + ["note"]])
    ),
    rows=st.sampled_from([TOKENS, PLAIN]).flatmap(
        lambda tokens: st.lists(st.lists(st.sampled_from(tokens), min_size=8, max_size=8), min_size=0, max_size=6)
    ),
    ids=st.booleans(),
    quoted=st.booleans(),
)
@pytest.mark.slow
def test_the_pandas_free_reader_on_tables_of_numbers(tmp_path_factory, cols, rows, ids, quoted):
    """The same comparison on tables built from number-like fields (ints, floats, exponents, NaN,
    infinities, quoted, padded, empty), mostly valid, so that Arrow's path is taken often."""
    lines = [",".join(f'"{c}"' if quoted else c for c in cols)]
    for k, r in enumerate(rows):
        r = list((r + ["a"])[: len(cols)])
        if ids and "id" in cols:
            r[cols.index("id")] = str(k)
        lines.append(",".join(r))
    path = tmp_path_factory.mktemp("t") / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    _assert_readers_agree(path)
