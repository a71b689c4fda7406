"""Hostile inputs found by hand (a fresh-eyes hunt, after the CLI fuzz): plugins that print, move the working
directory or call ``sys.exit``, and a trace header with a processor count no machine has.

Each case runs the ``gamemarket`` command in this process and checks the house rule for bad input: exit 2 with one
line naming the file or value and what was expected, no traceback, and nothing written where it was not asked.
"""

from __future__ import annotations

import gzip
import json
import os

import pytest

from gamemarket import plugins
from gamemarket.cli import main

PRINTS = """print("hello from the plugin")
from gamemarket.market.payments import payment_rule


@payment_rule("hostile-prints", "a rule whose module prints as it loads")
def prints(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return reserve
"""

MOVES = """import os

os.chdir(os.path.dirname(os.path.dirname(__file__)))
from gamemarket.market.payments import payment_rule


@payment_rule("hostile-moves", "a rule whose module changes the working directory as it loads")
def moves(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return reserve
"""

EXITS = """import sys

from gamemarket.market.payments import payment_rule


@payment_rule("hostile-exits", "a rule that ends the process when it is called", jit=False)
def exits(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    sys.exit(CODE)
"""

SWF_LINES = "1 0 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n2 5 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"


@pytest.fixture(autouse=True)
def _registries_restored(monkeypatch):
    """What a test's plugin registers, and the list of loaded plugins, undone after it (as for ``tests/plugins/``):
    a payment scheme left registered would show in every later test's ``--payment`` choices."""
    for reg in plugins.REGISTRIES.values():
        monkeypatch.setattr(reg, "_items", dict(reg._items))
    monkeypatch.setattr(plugins.loading, "LOADED", {})
    monkeypatch.setenv(plugins.ENV, "[]")


def _error_line(err: str) -> str:
    """The one ``gamemarket: error:`` line of stderr (failing when there is none, more, or a traceback)."""
    lines = [x for x in err.splitlines() if x.startswith("gamemarket: error: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_a_plugin_that_prints_as_it_loads_leaves_the_json_result_alone(tmp_path, capsys, monkeypatch):
    (tmp_path / "prints.py").write_text(PRINTS)
    monkeypatch.chdir(tmp_path)
    rc = main(["simulate", "--synthetic-jobs", "30", "--plugin", "prints.py", "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 0
    assert json.loads(out)["jobs"] == 30  # the result alone on stdout: it parses (before, the print came first)
    assert "hello from the plugin" in err and "hello" not in out


def test_a_plugin_that_changes_the_working_directory_is_refused_before_anything_is_written(
    tmp_path, capsys, monkeypatch
):
    work = tmp_path / "work"
    work.mkdir()
    (work / "moves.py").write_text(MOVES)
    monkeypatch.chdir(work)
    rc = main(["simulate", "--synthetic-jobs", "30", "--plugin", "moves.py", "--out", "rel.csv"])
    line = _error_line(capsys.readouterr().err)
    assert rc == 2
    # named as the loader names a plugin: its resolved path (the check is the loader's, wherever it loads from)
    assert f"plugin {work / 'moves.py'}: changed the working directory (from {work} to {tmp_path})" in line
    assert os.getcwd() == str(work)  # changed back: the command's relative paths name the files they did
    # before, rel.csv was written into the folder the plugin moved to, not where the user asked
    assert not (tmp_path / "rel.csv").exists() and not (work / "rel.csv").exists()


@pytest.mark.parametrize("code", [0, 4, "'bye'"])
def test_a_plugin_that_calls_sys_exit_while_the_command_runs_is_an_error(tmp_path, capsys, monkeypatch, code):
    (tmp_path / "exits.py").write_text(EXITS.replace("CODE", str(code)))
    monkeypatch.chdir(tmp_path)
    rc = main(["plugin", "check", "exits.py", "--cases", "2"])
    line = _error_line(capsys.readouterr().err)
    # before, the process ended with the plugin's code (0 passed for success) and said nothing
    assert rc == 2
    assert f"sys.exit({eval(str(code))!r}) was called while the command ran (plugins loaded: " in line
    assert f"{tmp_path / 'exits.py'}@" in line and "the command did not finish" in line


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
