"""A report holds no timing and no path of the machine that wrote it, so that running a study again (the
README's main job from a fresh clone) leaves the committed reports as they are: ``git status`` stays clean."""

import re
from pathlib import Path

import pandas as pd
import pytest

from gamemarket.cli import main
from gamemarket.io.names import workload_name
from tests.study_helpers import POPULATION_STUDY, SMALL, write_study

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted(p for p in (ROOT / "reports").iterdir() if (p / "index.html").exists())
#: what a report wrote before it held no timing: wall and run times, a finishing time, a run count of this call
TIMING = re.compile(
    r"wall time|written in|simulation time|summed run time|in this invocation|\d ?s in all|finished 20\d\d"
)
#: an absolute path of a machine (POSIX or Windows), as a trace's location was printed
MACHINE_PATH = re.compile(r"(?<![\w.])(/(work|home|tmp|Users|root|data|mnt|var)/|[A-Z]:\\\\)")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("body", [SMALL, POPULATION_STUDY], ids=["bimatrix", "population"])
def test_a_study_run_twice_writes_the_same_report_byte_for_byte(body, tmp_path, capsys):
    """Two fresh runs of one study (every simulation timed again) into two folders: the same files."""
    study = write_study(tmp_path, body)
    reports = []
    for k in (1, 2):
        out = tmp_path / f"report-{k}"
        argv = ["study", "run", str(study), "--n-jobs", "1", "--no-progress", "--results", str(tmp_path / f"r{k}")]
        assert main([*argv, "--report", str(out)]) == 0
        log = capsys.readouterr().out
        assert re.search(r" in [0-9.]+ s", log)  # the times: in the log
        reports.append(_files(out))
    assert reports[0].keys() == reports[1].keys() and "report.md" in reports[0]
    assert "__" not in reports[0]["report.md"].decode().splitlines()  # no description: no empty emphasis
    assert [name for name in reports[0] if reports[0][name] != reports[1][name]] == []
    if body is SMALL:
        runs = pd.read_csv(tmp_path / "report-1" / "data" / "runs.csv")
        assert "task_seconds" not in runs.columns
        assert "task_seconds" in pd.read_parquet(next((tmp_path / "r1").rglob("*.parquet"))).columns  # kept there


@pytest.mark.parametrize("report", COMMITTED, ids=[p.name for p in COMMITTED])
def test_a_committed_report_holds_no_timing_and_no_machine_path(report):
    assert COMMITTED
    for name in ("report.md", "index.html", "data/equilibria.json", "data/runs.csv", "data/population.json"):
        path = report / name
        if not path.exists():
            continue
        text = path.read_text()
        assert not TIMING.search(text), f"{path}: {TIMING.search(text).group(0)!r}"
        assert not MACHINE_PATH.search(text), f"{path}: a machine's path near {MACHINE_PATH.search(text).start()}"
        assert not re.search(r"task_seconds|wall_seconds|run_now", text), path


def test_a_trace_is_named_by_its_catalogue_name():
    assert workload_name("/work/shared/workloads/LPC-EGEE-2004-1.2-cln.swf.gz") == "LPC-EGEE-2004-1.2-cln"
    assert workload_name(r"C:\traces\SDSC-Par-1996-3.1-cln.swf") == "SDSC-Par-1996-3.1-cln"
    assert workload_name("synthetic") == "synthetic" and workload_name(None) == "-"
