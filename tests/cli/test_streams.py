"""Inputs that are streams (a named pipe, ``<(cat file)``): read once, or refused with a message saying why."""

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
