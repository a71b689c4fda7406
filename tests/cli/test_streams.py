"""Inputs that are streams (a named pipe, ``<(cat file)``): read once, or refused with a message saying why."""

import json
import os
import threading

import pytest

from gamemarket.cli import main
from study_helpers import ROOT

SWF = "".join(f"{k} {10 * k} 0 {100 + k} 1 -1 -1 1 200 -1 1 {k % 3} -1 -1 -1 -1 -1 -1\n" for k in range(1, 41))


def _fifo(tmp_path, name: str, content: bytes):
    """A named pipe whose writer sends ``content`` once, from a thread."""
    path = tmp_path / name
    os.mkfifo(path)

    def write():
        try:
            with open(path, "wb") as f:
                f.write(content)
        except BrokenPipeError:  # the reader went away without reading all: as a refused stream does
            pass

    threading.Thread(target=write, daemon=True).start()
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_trace_from_a_pipe_is_read_once(tmp_path, capsys):
    plain = tmp_path / "t.swf"
    plain.write_text(SWF)
    assert main(["workload", "info", str(plain)]) == 0
    # every line but the source's name (the table's second)
    want = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("source ")]
    assert main(["workload", "info", str(_fifo(tmp_path, "pipe.swf", SWF.encode()))]) == 0
    got = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("source ")]
    assert got == want and ["jobs", "40"] in [line.split() for line in got]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_study_file_from_a_pipe_is_refused_saying_why(tmp_path, capsys):
    pipe = _fifo(tmp_path, "s.toml", (ROOT / "studies" / "default.toml").read_bytes())
    assert main(["study", "run", str(pipe), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "a stream (a pipe or a process substitution), not a study file; save it to a file first" in err
    with open(pipe, "rb") as f:  # let the writer finish
        f.read()


def _endless(tmp_path, name: str, line: bytes):
    """A named pipe whose writer sends ``line`` again and again until the reader goes away."""
    path = tmp_path / name
    os.mkfifo(path)

    def write():
        try:
            with open(path, "wb") as f:
                while True:
                    f.write(line * 4096)
        except (BrokenPipeError, OSError):
            pass

    threading.Thread(target=write, daemon=True).start()
    return path


def _table(n=30):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(4)
    return pd.DataFrame(
        {
            "id": np.arange(n),
            "submit": np.sort(rng.integers(0, 500, n)),
            "runtime": rng.integers(1, 80, n),
            "estimate": rng.integers(80, 100, n),
            "private_bid": rng.uniform(1, 2, n),
            "reported_bid": rng.uniform(0.5, 1, n),
        }
    )


NAMED_PIPES = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")


@NAMED_PIPES
@pytest.mark.parametrize("form", ["csv", "csv with a column of text", "parquet", "parquet without its extension"])
def test_a_job_table_from_a_pipe_is_read_once_and_gives_the_files_numbers(tmp_path, capsys, form):
    """The fast reader and pandas' both looked at the stream (and the header was read again): a table with a column
    the fast path leaves to pandas found the pipe empty ("No columns to parse from file"); a Parquet stream, which
    has no extension, was read as CSV."""
    table = _table()
    if "text" in form:
        table["note"] = "x"
    plain = tmp_path / ("t.parquet" if "parquet" in form else "t.csv")
    table.to_parquet(plain) if "parquet" in form else table.to_csv(plain, index=False)
    argv = ["simulate", "--nodes", "4", "--format", "json", "--job-table"]
    assert main([*argv, str(plain)]) == 0
    want = json.loads(capsys.readouterr().out.replace(str(plain), "SOURCE"))
    want.pop("seconds")  # a wall time
    pipe = _fifo(tmp_path, "pipe" if "without" in form else f"pipe{plain.suffix}", plain.read_bytes())
    assert main([*argv, str(pipe)]) == 0
    got = json.loads(capsys.readouterr().out.replace(str(pipe), "SOURCE"))
    assert got.pop("seconds") >= 0 and got == want and want["jobs"] == 30


@NAMED_PIPES
@pytest.mark.parametrize(
    "argv, name, line",
    [
        (["simulate", "--nodes", "4", "--job-table"], "endless.csv", b"y\n"),
        (["price", "solve"], "endless.npz", b"y\n"),
        (["game", "solve"], "endless.nfg", b"y\n"),
        (["workload", "info"], "endless.swf", b"1 0 0 100 1 -1 -1 1 200 -1 1 1 1 1 1 -1 -1 -1\n"),
        (["workload", "info"], "comments.swf", b"; MaxProcs: 4\n"),  # (kept for the header, without bound: hunt 14)
    ],
)
def test_an_endless_stream_is_refused_at_the_memory_limit(tmp_path, capsys, monkeypatch, argv, name, line):
    """``<(yes)`` as an input was read until the kernel killed the process; now the reader stops at the memory
    limit and names the stream."""
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(4_000_000))
    pipe = _endless(tmp_path, name, line)
    assert main([*argv, str(pipe)]) == 2
    err = capsys.readouterr().err
    said = (
        "the pipe gave more than 4,000,000 bytes",
        "serial jobs (its parallel",
        "header and comment lines read so far",
    )
    assert str(pipe) in err and any(s in err for s in said), err


@NAMED_PIPES
def test_a_csv_game_from_a_pipe_is_read_once(tmp_path, capsys):
    """``read_csv_game`` read the stream with pandas, then again for its header (which then found it empty)."""
    text = "row,col,row_payoff,col_payoff\nU,L,3,3\nU,R,0,5\nD,L,5,0\nD,R,1,1\n"
    plain = tmp_path / "g.csv"
    plain.write_text(text)
    assert main(["game", "solve", str(plain), "--format", "json"]) == 0
    want = capsys.readouterr().out
    assert main(["game", "solve", str(_fifo(tmp_path, "pipe.csv", text.encode())), "--format", "json"]) == 0
    assert capsys.readouterr().out.replace("pipe", "g") == want and '"D"' in want


@NAMED_PIPES
@pytest.mark.parametrize(
    "text",
    [
        'NFG 1 R "g" { "row" "col" } { 2 2 }\n\n3 3 5 0 0 5 1 1\n',
        "row,col,row_payoff,col_payoff\nU,L,3,3\nU,R,0,5\nD,L,5,0\nD,R,1,1\n",
    ],
    ids=["nfg", "csv"],
)
def test_a_game_from_a_pipe_without_an_ending_is_told_by_its_bytes(tmp_path, capsys, text):
    """Hunt 14: a pipe (``<(cat game.nfg)``: /dev/fd/63, no ending) was refused as no known format; its bytes tell
    it now, and the answer is the file's."""
    suffix = ".nfg" if text.startswith("NFG") else ".csv"
    plain = tmp_path / f"g{suffix}"
    plain.write_text(text)
    assert main(["game", "solve", str(plain), "--format", "json"]) == 0
    want = capsys.readouterr().out
    assert main(["game", "solve", str(_fifo(tmp_path, "pipe", text.encode())), "--format", "json"]) == 0
    assert capsys.readouterr().out == want
    assert main(["game", "solve", str(_fifo(tmp_path, "junk", b"garbage\n"))]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "junk") in err and "gamemarket-pipe" not in err  # the pipe named, not the private copy


@NAMED_PIPES
def test_a_gzip_job_table_and_a_model_from_a_pipe(tmp_path, capsys):
    """Hunt 14: a gzip job table read by its path was a UTF-8 error through a pipe; a workload model through a pipe
    was read as a trace ("malformed SWF line")."""
    import gzip

    plain = tmp_path / "t.csv"
    _table().to_csv(plain, index=False)
    argv = ["simulate", "--nodes", "4", "--format", "json", "--job-table"]
    assert main([*argv, str(plain)]) == 0
    want = json.loads(capsys.readouterr().out.replace(str(plain), "SOURCE"))
    pipe = _fifo(tmp_path, "pipe", gzip.compress(plain.read_bytes()))
    assert main([*argv, str(pipe)]) == 0
    got = json.loads(capsys.readouterr().out.replace(str(pipe), "SOURCE"))
    assert got.pop("seconds") >= 0 and want.pop("seconds") >= 0 and got == want
    model = (ROOT / "gamemarket" / "data" / "models" / "lpc-egee-2004.toml").read_bytes()
    assert main(["workload", "info", str(_fifo(tmp_path, "model", model))]) == 2
    assert "is a gamemarket workload model (TOML), not an SWF trace" in capsys.readouterr().err


@NAMED_PIPES
def test_workload_compare_reads_a_model_from_a_named_pipe_once(tmp_path, capsys):
    """The fuzzer's streams family: ``workload compare pipe.toml m.toml`` printed its comparison, then read the model
    again for its note on offered loads, and waited for ever on the pipe."""
    model = (ROOT / "gamemarket" / "data" / "models" / "lpc-egee-2004.toml").read_bytes()
    plain = tmp_path / "m.toml"
    plain.write_bytes(model)
    argv = ["workload", "compare", "--nodes", "4", "--synthetic-jobs", "60", "--format", "json"]
    assert main([*argv, str(plain), str(plain)]) == 0
    want = capsys.readouterr().out.replace(str(plain), "M")
    (tmp_path / "p").mkdir()
    pipe = _fifo(tmp_path / "p", "m.toml", model)  # the file's name, in another folder: the same labels
    assert main([*argv, str(pipe), str(plain)]) == 0
    assert capsys.readouterr().out.replace(str(pipe), "M").replace(str(plain), "M") == want


@NAMED_PIPES
def test_one_named_pipe_given_as_both_workloads_is_read_once(tmp_path, capsys):
    """The fuzzer's streams family: ``workload compare pipe.toml pipe.toml`` read the pipe twice and waited for ever
    on the second read."""
    model = (ROOT / "gamemarket" / "data" / "models" / "lpc-egee-2004.toml").read_bytes()
    (tmp_path / "p").mkdir()
    plain = tmp_path / "m.toml"
    plain.write_bytes(model)
    argv = ["workload", "compare", "--nodes", "4", "--synthetic-jobs", "60", "--format", "json"]
    assert main([*argv, str(plain), str(plain)]) == 0
    want = capsys.readouterr().out.replace(str(plain), "M")
    pipe = _fifo(tmp_path / "p", "m.toml", model)
    assert main([*argv, str(pipe), str(pipe)]) == 0
    assert capsys.readouterr().out.replace(str(pipe), "M") == want


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_model_fitted_from_a_pipe_names_it_as_one(tmp_path, capsys):
    """Hunt 16b-22: `workload fit <(cat trace.swf)` recorded the model's source as "63" (the descriptor's number)."""
    text = "".join(
        f"{k} {37 * k} 0 {50 + k % 300} 1 -1 -1 1 {400 + k % 300} -1 1 {k % 7 + 1} 1 -1 1 1 -1 -1\n"
        for k in range(1, 1200)
    )
    pipe = _fifo(tmp_path, "63", ("; MaxNodes: 16\n" + text).encode())
    out = tmp_path / "m.toml"
    assert main(["workload", "fit", str(pipe), "--out", str(out)]) == 0, capsys.readouterr().err
    assert f'source = "a pipe ({pipe})"' in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [
        ["workload", "info", "{x}.swf"],
        ["workload", "fit", "{x}.swf", "--out", "m.toml"],
        ["simulate", "--workload", "{x}"],
        ["plugin", "check", "{x}"],
        ["game", "solve", "{x}"],
        ["study", "run", "{x}.toml"],
    ],
)
@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_link_that_leads_nowhere_is_said_to_be_one(tmp_path, monkeypatch, capsys, argv, kind):
    """Hunt 16b-26: a symbolic link loop given as a trace, a plugin or a game was "no such workload file", "no such
    file", or "expected a study (.toml), ...": untrue of a name `ls` shows."""
    monkeypatch.chdir(tmp_path)
    name = "x"
    for suffix in ("", ".swf", ".toml"):
        if kind == "loop":
            os.symlink(f"{name}{suffix}", f"{name}{suffix}")
        else:
            os.symlink(f"nowhere{suffix}", f"{name}{suffix}")
    assert main([a.replace("{x}", name) for a in argv]) == 2
    err = capsys.readouterr().err
    said = "is a symbolic link in a loop" if kind == "loop" else "is a symbolic link to 'nowhere"
    if kind == "dangling" and argv[0] == "study":  # the study file is named through its link: the missing target
        said = "nowhere.toml: no such study file"
    assert err.count("\n") == 1 and said in err, err
