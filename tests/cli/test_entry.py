"""The process entry point: ``main`` with the collector set for a short-lived process."""

from __future__ import annotations

import configparser
import gc
import sys
from pathlib import Path

import pytest

from gamemarket import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector():
    """Put the collector back as it was: ``run`` changes it for the rest of its process."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_run_is_main_with_the_process_collector(tmp_path, monkeypatch, capsys, collector):
    argv = ["simulate", "--job-table", str(tmp_path / "missing.csv"), "--nodes", "4"]
    assert cli.main(argv) == 2
    said = capsys.readouterr().err
    assert "missing.csv" in said
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != cli.PROCESS_GC_THRESHOLD

    monkeypatch.setattr(sys, "argv", ["gamemarket", *argv])
    older = gc.get_threshold()[1:]
    assert cli.run() == 2
    assert capsys.readouterr().err == said
    assert gc.get_threshold() == (cli.PROCESS_GC_THRESHOLD, *older)
    assert gc.get_freeze_count() > 0  # the interpreter's last collection will skip them


def test_both_ways_in_go_through_run():
    scripts = configparser.ConfigParser()
    scripts.read(ROOT / "setup.cfg")
    lines = scripts["options.entry_points"]["console_scripts"].strip().splitlines()
    entries = {name.strip(): target.strip() for name, target in (line.split("=", 1) for line in lines)}
    assert entries["gamemarket"] == "gamemarket.cli:run"
    assert "import run" in (ROOT / "gamemarket" / "__main__.py").read_text()


class _ClosedPipe:
    """A stdout whose reader has gone away: every write raises BrokenPipeError, as a closed pipe does."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path, monkeypatch, capsys):
    """``gamemarket ... | head``: the closed pipe stops the command with 141, without an error message."""
    game = tmp_path / "g.nfg"
    game.write_text('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1 1 0 0 0 0 1 1\n')
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert cli.main(["game", "solve", str(game)]) == 141
    assert "error" not in capsys.readouterr().err
