"""What the command prints for people stays honest and on one line: an error quoting a library's message that
ends in a line break, and a wall time too short for one decimal (issue #29's review)."""

import re

import pytest

from gamemarket.cli import main
from gamemarket.reports.markdown import duration


def test_a_csv_parse_error_is_one_line(tmp_path, capsys):
    """pandas's C parser ends its message with a newline: the error printed an empty line after it."""
    bad = tmp_path / "jobs.csv"
    bad.write_text("id,submit,runtime,reported_bid\n1,0,10,5\n2,1,10,5,9\n")
    rc = main(["simulate", "--job-table", str(bad), "--nodes", "4"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err == (
        f"gamemarket: error: {bad}: cannot read job table: Error tokenizing data. C error: Expected 4 fields in "
        "line 3, saw 5\n"
    )


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0.0, "under 0.05 s"), (0.0049, "under 0.05 s"), (0.0499, "under 0.05 s"), (0.05, "0.1 s"), (12.345, "12.3 s")],
)
def test_a_wall_time_under_a_twentieth_of_a_second_is_not_printed_as_no_time(seconds, shown):
    assert duration(seconds) == shown


def test_a_study_read_back_from_its_stored_runs_never_took_0_0_s(tmp_path, capsys):
    study = tmp_path / "tiny.toml"
    study.write_text(
        'name = "tiny"\n[workload]\nsource = "synthetic"\nnodes = 4\n[workload.synthetic]\njobs = 20\nload = 1.2\n'
        'seed = 3\n[strategies]\nproviders = ["hb-kth"]\nconsumers = ["FT"]\n[replications]\ncount = 3\n'
    )
    args = [
        "study",
        "run",
        str(study),
        "--no-report",
        "--no-progress",
        "--n-jobs",
        "1",
        "--results",
        str(tmp_path / "r"),
    ]
    for _ in range(2):
        assert main(args) == 0
    out = capsys.readouterr().out
    assert "3 runs (3 already stored, 0 run now) in " in out
    assert not re.search(r" in 0\.0 s", out), out
