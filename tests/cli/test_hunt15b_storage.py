"""Held-out hunt 15b's storage problems (H15b-1, -2, -6, -7 and the worth-a-look S01, W03, E08, F10, F14, F22),
each a regression test."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import gamemarket
from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.io import files
from gamemarket.io.files import NAME_MAX, atomic_path, output_group, remove_stale_temps, temp_prefix
from gamemarket.studies import store as store_module
from study_helpers import TINY as TINY_STUDY
from study_helpers import ended_pid

TINY = TINY_STUDY.format(count=2)
LATIN1 = os.fsdecode(b"lat\xe9n")  # a folder named on a Latin-1 system: not UTF-8 text
SIM = ["simulate", "--synthetic-jobs", "120", "--nodes", "4"]


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(TINY, encoding="utf-8")
    return tmp_path / "tiny.toml"


def _read(path: Path):
    with open(path, "rb") as f:
        return pq.read_table(f)


def _runs(results: Path) -> list[Path]:
    return sorted((results / "runs").iterdir())


def test_a_results_folder_whose_name_is_not_utf8_is_written_read_and_never_set_aside(tiny, capsys):
    """H15b-1/-2: study run in such a folder was pyarrow's UnicodeEncodeError (a traceback), and a report of a
    folder renamed so set every valid stored result aside as .corrupt."""
    results, report = tiny.parent / LATIN1, tiny.parent / os.fsdecode(b"rep\xe9")
    assert main(["study", "run", str(tiny), "--no-progress", "--no-report", "--results", str(results)]) == 0
    stored = _runs(results)
    assert len(stored) == 8 and all(p.suffix == ".parquet" for p in stored)
    for p in results.glob("tables/*"):  # the report reads the per-task files
        for f in p.iterdir():
            f.unlink()
    assert main(["study", "status", str(tiny), "--results", str(results)]) == 0
    assert "8/8 runs stored" in capsys.readouterr().out
    assert main(["report", str(tiny), "--results", str(results), "--report", str(report)]) == 0
    assert _runs(results) == stored and (report / "index.html").is_file()
    assert not list(results.rglob("*.corrupt"))


def test_an_unreadable_stored_result_is_an_error_naming_it_and_is_never_moved(tiny, capsys, monkeypatch):
    """H15b-1: a result this user may not read (a colleague's) was renamed .corrupt and its task run again."""
    assert main(["study", "run", str(tiny), "--no-progress", "--no-report"]) == 0
    results = tiny.parent / "results" / "tiny"
    victim = _runs(results)[0]
    real_open = os.open  # (stored files open with os.open: without blocking, a pipe in their place refused)

    def denied(path, *args, **kw):
        if Path(path) == victim:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kw)

    monkeypatch.setattr(store_module.os, "open", denied)
    capsys.readouterr()
    for argv in (["study", "run", str(tiny), "--no-progress", "--no-report"], ["study", "status", str(tiny)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{victim}: cannot read the stored result: Permission denied; it is left as it is" in err
        assert victim.is_file() and not list(results.rglob("*.corrupt"))
    with pytest.raises(InputError, match="Permission denied"):  # the last line of defence: set_aside itself
        store_module.set_aside(victim, "a test")
    assert victim.is_file()


def test_a_reader_names_a_damaged_result_and_moves_nothing(tiny, capsys):
    """H15b-1: `report` (a reader) renamed damaged stored results; `study run` still sets them aside."""
    assert main(["study", "run", str(tiny), "--no-progress", "--no-report"]) == 0
    results = tiny.parent / "results" / "tiny"
    for f in results.glob("tables/*/*"):
        f.unlink()
    victim = _runs(results)[0]
    victim.write_bytes(b"garbage")
    capsys.readouterr()
    assert main(["report", str(tiny)]) == 2
    assert "1 of 8 runs have no stored result" in capsys.readouterr().err
    assert victim.read_bytes() == b"garbage" and not list(results.rglob("*.corrupt"))
    assert main(["study", "run", str(tiny), "--no-progress", "--no-report"]) == 0
    assert "stored result does not read" in capsys.readouterr().err
    assert victim.with_name(victim.name + ".corrupt").is_file()


@pytest.mark.parametrize("name", ["out.csv", "out.parquet", os.fsdecode(b"out\xe9.parquet")])
def test_simulate_writes_into_a_folder_whose_name_is_not_utf8(tmp_path, name):
    """H15b-2: --jobs-out and --out there were pyarrow's UnicodeEncodeError, a traceback (exit 1)."""
    folder = tmp_path / LATIN1
    jobs, out = folder / f"jobs-{name}", folder / name
    assert main([*SIM, "--jobs-out", str(jobs), "--out", str(out)]) == 0
    assert (
        _read(out).num_rows == 120 if out.suffix == ".parquet" else out.read_text(encoding="utf-8").count("\n") == 121
    )
    assert sorted(os.listdir(folder)) == sorted([jobs.name, out.name])  # no temporary left


def test_an_output_name_up_to_the_file_systems_limit_is_written(tmp_path):
    """H15b-6: names of 234-255 bytes were refused ("File name too long": the temporary's name was longer)."""
    out = tmp_path / ("c" * (NAME_MAX - 4) + ".csv")
    assert main([*SIM, "--jobs-out", str(out)]) == 0
    assert out.is_file() and os.listdir(tmp_path) == [out.name]
    for name in (out.name, "é" * 127 + ".csv", os.fsdecode(b"x\xe9" * 100)):
        prefix = temp_prefix(Path(name))
        assert len(os.fsencode(prefix)) + files.TEMP_TAIL <= NAME_MAX and prefix.encode("utf-8")
        stale = tmp_path / f"{prefix.replace(str(os.getpid()), str(ended_pid()))}7.tmp"
        stale.write_text("left by a killed run", encoding="utf-8")
        assert files.TEMP_NAME.match(stale.name)
    assert len(remove_stale_temps(tmp_path)) == 3  # what the cleanup relies on still holds


def test_price_solve_writes_its_result_and_trace_together(tmp_path, monkeypatch, capsys):
    """H15b-7: a trace that did not fit left r.npz, and the command run again was refused ("the file exists")."""
    import pandas as pd

    out = tmp_path / "r.npz"

    def full(self, *args, **kw):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(pd.DataFrame, "to_csv", full)
        assert main(["price", "solve", "--n", "300", "--m", "3", "--quiet", "--out", str(out)]) == 2
    assert "r.trace.csv: cannot write the trace (.csv): No space left on device" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []
    assert main(["price", "solve", "--n", "300", "--m", "3", "--quiet", "--out", str(out)]) == 0
    assert sorted(os.listdir(tmp_path)) == ["r.npz", "r.trace.csv"]


def test_simulate_leaves_no_job_table_when_its_outcome_fails(tiny, capsys):
    """H15b-7 and F22: --jobs-out was left when --out failed; a parent that is a file was "File exists"."""
    jobs = tiny.parent / "j.parquet"
    assert main([*SIM, "--jobs-out", str(jobs), "--out", "tiny.toml/s.csv"]) == 2
    assert "tiny.toml/s.csv: cannot create its folder: tiny.toml is a file, not a folder" in capsys.readouterr().err
    assert not jobs.exists() and sorted(os.listdir(tiny.parent)) == ["tiny.toml"]


def test_an_output_group_moves_nothing_into_place_when_one_fails(tmp_path):
    """The mechanism: every output of a group is a temporary until all are written."""
    (tmp_path / "b.txt").write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), output_group():
        for name in ("a.txt", "b.txt"):
            with atomic_path(tmp_path / name) as tmp:
                tmp.write_text("new", encoding="utf-8")
        raise RuntimeError("the third output failed")
    assert sorted(os.listdir(tmp_path)) == ["b.txt"] and (tmp_path / "b.txt").read_text(encoding="utf-8") == "old"
    with output_group():
        for name in ("a.txt", "b.txt"):
            with atomic_path(tmp_path / name) as tmp:
                tmp.write_text("new", encoding="utf-8")
    assert [(tmp_path / n).read_text(encoding="utf-8") for n in sorted(os.listdir(tmp_path))] == ["new", "new"]


def test_simulate_profile_replaces_an_existing_file_only_with_force(tmp_path):
    """S01: jobs_out= an existing file was replaced without a word (the command asks --force)."""
    table = tmp_path / "exists.csv"
    table.write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match=r"jobs_out .*exists.csv: the file exists; pass force=True"):
        gamemarket.simulate_profile(synthetic_jobs=120, nodes=4, jobs_out=table)
    assert table.read_text(encoding="utf-8") == "mine"
    gamemarket.simulate_profile(synthetic_jobs=120, nodes=4, jobs_out=table, force=True)
    assert table.read_text(encoding="utf-8").startswith('"id",')


def test_run_study_refuses_an_empty_folder_name(tiny):
    """W03: results='' meant the working folder."""
    from gamemarket.workflow import run_study

    for kw in ({"results": ""}, {"report": " "}):
        with pytest.raises(InputError, match=r"= must be a folder's path, got"):
            run_study(str(tiny), write_report=False, **kw)
    assert sorted(os.listdir(tiny.parent)) == ["tiny.toml"]


def test_a_bad_option_with_stderr_closed_still_exits_2(tmp_path):
    """E08: `--nodes 0 2>&-` exited 1 (argparse wrote its message to a closed stream)."""
    for args in ("--nodes 0", "--nodes 4 --mix nope"):
        cmd = f"{sys.executable} -m gamemarket simulate --synthetic-jobs 120 {args} 2>&-"
        done = subprocess.run(["sh", "-c", cmd], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == ""


def test_the_printed_folder_names_are_escaped(tiny):
    """F10: a newline in --results split the printed "results in ..." line."""
    from gamemarket.workflow import run_study

    lines = []
    run_study(str(tiny), results="res\nults", write_report=False, log=lines.append)
    assert len(lines) == 1 and "\n" not in lines[0] and "res\\nults" in lines[0]


def test_force_replaces_a_link_not_its_target(tmp_path):
    """F14, as docs/reference/output-files.md says: the link is replaced by a file; its target is untouched."""
    target, link = tmp_path / "target.csv", tmp_path / "link.csv"
    target.write_text("kept", encoding="utf-8")
    link.symlink_to(target)
    assert main([*SIM, "--jobs-out", str(link)]) == 2
    assert main([*SIM, "--jobs-out", str(link), "--force"]) == 0
    assert not link.is_symlink() and target.read_text(encoding="utf-8") == "kept"


@pytest.mark.parametrize("name", ["p" * (NAME_MAX - 4) + ".npz", "é" * 125 + ".npz"])
def test_a_problem_is_saved_under_a_name_up_to_the_file_systems_limit(tmp_path, name):
    """H15b-6's sibling: ``Problem.save`` builds its own temporary (pricing stands alone) from the whole target
    name, and names of 234-255 bytes were refused ("File name too long")."""
    from gamemarket.pricing import load, synthetic

    problem = synthetic(20, 2, seed=1)
    assert len(os.fsencode(name)) <= NAME_MAX
    problem.save(tmp_path / name)
    assert os.listdir(tmp_path) == [name]
    assert np.array_equal(load(tmp_path / name).A, problem.A)


def test_a_saved_problem_gets_the_modes_of_every_other_output(tmp_path):
    """Hunt 16d: Problem.save's file was private (0600, mkstemp's), where the command line's outputs get 0644."""
    from gamemarket.pricing import synthetic

    synthetic(20, 2, seed=1).save(tmp_path / "p.npz")
    mask = os.umask(0o022)
    os.umask(mask)
    assert (tmp_path / "p.npz").stat().st_mode & 0o777 == 0o666 & ~mask
