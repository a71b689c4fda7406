"""No leftovers (#43 item 9): a run removes the temporary files that earlier killed runs of gamemarket left where it
writes (an ``--out`` file's folder, a study's results and report folders), and only those: gamemarket's name
pattern, this machine's, written by a process that is gone. A live writer's file, another machine's, another
program's (a name that only looks alike) are kept."""

import os
import subprocess
import sys

import pytest

from gamemarket.cli import main
from gamemarket.io import files
from gamemarket.io.files import HOST, TEMP_NAME, atomic_path, remove_stale_temps, temp_prefix
from study_helpers import write_study

TINY = """
name = "tiny"
[workload]
source = "synthetic"
nodes = 4
[workload.synthetic]
jobs = 100
load = 1.1
seed = 3
[strategies]
providers = ["hb-kth"]
consumers = ["FT"]
[replications]
count = 1
"""


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The id of a process that has ended (spawned and reaped), as a killed writer's is."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def live_pid():
    """The id of a process that runs while the test does (a writer still writing)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


@pytest.fixture(autouse=True)
def _fresh_sweeps(monkeypatch):
    """Each test's process has written into no folder yet (``atomic_path`` clears a folder once a process)."""
    monkeypatch.setattr(files, "_SWEPT", {})


def _leftovers(folder, dead: int, live: int) -> dict:
    """A killed writer's temporaries (of both name forms) and what must be kept, created in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    names = {
        "dead": f".out.csv.gm-{dead}-h{HOST}_3.tmp",
        "dead-old-form": f".runs.parquet.gm-{dead}-0.tmp",  # an older version's form, or a user's: kept (hunt 16d)
        "users-own": f".notes.gm-{dead}-draft.tmp",  # a user's file of gamemarket's shape (hunt 16d: deleted)
        "live": f".out.csv.gm-{live}-h{HOST}_0.tmp",
        "other-machine": f".out.csv.gm-{dead}-h{'0' * 8 if HOST != '0' * 8 else '1' * 8}_0.tmp",
        "no-pid-at-all": ".out.csv.gm-99999999999999999999-0.tmp",  # os.kill overflows: kept, not a traceback
        "no-dot": f"out.csv.gm-{dead}-0.tmp",
        "other-program": f".out.csv.{dead}.tmp",
        "other-suffix": f".out.csv.gm-{dead}-0.tmp.bak",
    }
    out = {}
    for what, name in names.items():
        (folder / name).write_text("half-written")
        out[what] = folder / name
    return out


def _only_dead_gone(left: dict) -> None:
    gone = {what for what, p in left.items() if not p.exists()}
    assert gone == {"dead"}, gone


def test_the_pattern_is_what_atomic_path_and_downloads_write(tmp_path):
    assert TEMP_NAME.match(files._temp_path(tmp_path / "x.csv").name)
    assert TEMP_NAME.match(temp_prefix(tmp_path / "x.csv") + "k2_9abc.tmp")  # tempfile.mkstemp's tail
    assert not TEMP_NAME.match(".x.csv.gm-12-3.tmp")  # an older version's form: not taken as ours (hunt 16d)
    assert not TEMP_NAME.match(f".notes.gm-12-h{HOST}_draft two.tmp")


def test_an_atomic_write_clears_its_folder_of_dead_writers_temporaries_only(tmp_path, dead_pid, live_pid):
    left = _leftovers(tmp_path / "out", dead_pid, live_pid)
    (tmp_path / "out" / "sub").mkdir()
    below = tmp_path / "out" / "sub" / f".x.gm-{dead_pid}-h{HOST}_0.tmp"  # not the folder written into: not swept
    below.write_text("x")
    with atomic_path(tmp_path / "out" / "new.csv") as tmp:
        tmp.write_text("a\n")
    _only_dead_gone(left)
    assert below.exists() and (tmp_path / "out" / "new.csv").read_text() == "a\n"
    assert remove_stale_temps(tmp_path / "out") == [below]  # a whole results folder: below too
    _only_dead_gone(left)


def test_simulate_out_removes_what_a_killed_simulate_left(tmp_path, capsys, dead_pid, live_pid):
    left = _leftovers(tmp_path / "o", dead_pid, live_pid)
    rc = main(["simulate", "--synthetic-jobs", "30", "--out", str(tmp_path / "o" / "out.csv")])
    assert rc == 0, capsys.readouterr().err
    _only_dead_gone(left)


def test_a_failing_command_touches_no_leftover(tmp_path, capsys, dead_pid, live_pid):
    """A command refused before it writes (an unknown scheduler) writes nothing, and removes nothing either."""
    left = _leftovers(tmp_path / "o", dead_pid, live_pid)
    rc = main(["simulate", "--synthetic-jobs", "30", "--scheduler", "nope", "--out", str(tmp_path / "o" / "out.csv")])
    assert rc == 2 and "nope" in capsys.readouterr().err
    assert all(p.exists() for p in left.values()) and not (tmp_path / "o" / "out.csv").exists()


@pytest.mark.slow
def test_a_study_run_removes_what_a_killed_run_left_in_its_results_and_report(tmp_path, capsys, dead_pid, live_pid):
    study = write_study(tmp_path, TINY)
    assert main(["study", "run", str(study), "--n-jobs", "1"]) == 0, capsys.readouterr().err
    results, report = study.parent / "results" / "tiny", study.parent / "reports" / "tiny"
    lefts = [_leftovers(d, dead_pid, live_pid) for d in (results / "runs", results, report / "data", report)]
    assert main(["study", "run", str(study), "--n-jobs", "1"]) == 0, capsys.readouterr().err
    for left in lefts:
        _only_dead_gone(left)
    assert os.listdir(results / "runs")  # the stored run is kept
