"""Hostile inputs found by hand (a fresh-eyes hunt, after the CLI fuzz): a trace header with a processor count no
machine has.

Each case runs the ``gamemarket`` command in this process and checks the house rule for bad input: exit 2 with one
line naming the file or value and what was expected, no traceback, and nothing written where it was not asked.
"""

from __future__ import annotations

import gzip
import json

import pytest

from gamemarket.cli import main

SWF_LINES = "1 0 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n2 5 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"


def _error_line(err: str) -> str:
    """The one ``gamemarket: error:`` line of stderr (failing when there is none, more, or a traceback)."""
    lines = [x for x in err.splitlines() if x.startswith("gamemarket: error: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("count", ["10000001", "99999999999999999999999", "9223372036854775808"])
def test_a_trace_header_with_more_processors_than_any_command_takes_is_refused(tmp_path, capsys, count):
    trace = tmp_path / "huge.swf.gz"
    trace.write_bytes(gzip.compress(f"; MaxProcs: {count}\n{SWF_LINES}".encode()))
    rc = main(["simulate", "--workload", str(trace), "--format", "json"])
    line = _error_line(capsys.readouterr().err)
    # before, the run went ahead on 99999999999999991611392 nodes (the count through a float)
    assert rc == 2
    assert f"huge.swf.gz: header field MaxProcs is '{count}'; expected a positive processor count of at most" in line
    # the nodes given on the command line: the header's count is not read, and the run goes ahead
    assert main(["simulate", "--workload", str(trace), "--nodes", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 2
