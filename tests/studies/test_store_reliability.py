"""Stored results are verified on read, one run of a study at a time, and no worker outlives its run."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from gamemarket.errors import InputError
from gamemarket.studies import load_results, load_study, run_study, study_status
from gamemarket.studies import store as store_module
from gamemarket.studies.store import ResultStore, study_store
from study_helpers import SMALL, sorted_metrics, write_study


def _small(tmp_path):
    """A finished small study, its metrics, and its per-task files, without the consolidated tables:
    damage to a per-task file matters only when they are rebuilt
    (``test_damage_behind_valid_tables_costs_nothing``)."""
    spec = load_study(write_study(tmp_path, SMALL.replace("count = 3", "count = 2")))
    run_study(spec, n_jobs=1, progress=False)
    before = sorted_metrics(spec)
    shutil.rmtree(spec.results_dir / "tables")
    return spec, sorted((spec.results_dir / "runs").glob("*.parquet")), before


def test_a_damaged_task_file_behind_valid_tables_is_counted_missing_and_run_again(tmp_path):
    """The per-task files are the record: with the consolidated tables of the plan stored, ``study status``
    still verifies each file it counts, so a truncated one is missing (a query: moved nowhere), and ``study run``
    sets it aside and runs that task again. The tables record the run files they were built from, so they no longer
    count as this store's index (hunt 16b: a report from them ended 0 beside a garbage run file); built again, the
    numbers are the same."""
    spec = load_study(write_study(tmp_path, SMALL.replace("count = 3", "count = 2")))
    run_study(spec, n_jobs=1, progress=False)
    before = sorted_metrics(spec)
    victim = sorted((spec.results_dir / "runs").glob("*.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[:100])
    st = study_status(spec)
    assert st["missing"] == 1 and st["tables"] is False and victim.stat().st_size == 100
    assert run_study(spec, n_jobs=1, progress=False).run == 1
    assert study_status(spec)["missing"] == 0
    pd.testing.assert_frame_equal(sorted_metrics(spec), before, check_exact=True)
    shutil.rmtree(spec.results_dir / "tables")
    assert run_study(spec, n_jobs=1, progress=False).run == 0  # every task file reads: only the tables again
    pd.testing.assert_frame_equal(sorted_metrics(spec), before, check_exact=True)


def test_a_truncated_result_is_set_aside_and_run_again(tmp_path):
    spec, files, before = _small(tmp_path)
    victim = files[0]
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    st = study_status(spec)  # a query: counted missing, moved nowhere (hunt 12)
    assert st["missing"] == 1 and not Path(str(victim) + ".corrupt").exists()
    with pytest.warns(UserWarning, match=f"{victim.name}: stored result does not read.*run again"):
        assert run_study(spec, n_jobs=1, progress=False).run == 1
    assert Path(str(victim) + ".corrupt").exists()
    pd.testing.assert_frame_equal(sorted_metrics(spec), before, check_exact=True)


def test_a_result_under_another_tasks_name_is_not_trusted(tmp_path):
    spec, files, before = _small(tmp_path)
    files[1].write_bytes(files[0].read_bytes())  # a copy made by hand: a valid file, the wrong task
    with pytest.warns(UserWarning, match="records the key"):
        assert run_study(spec, n_jobs=1, progress=False).run == 1
    pd.testing.assert_frame_equal(sorted_metrics(spec), before, check_exact=True)


def test_damage_past_the_footer_is_an_error_that_says_what_to_do(tmp_path, monkeypatch):
    spec, files, _ = _small(tmp_path)

    def broken(self, key):
        raise OSError("checksum mismatch in a data page")

    monkeypatch.setattr(ResultStore, "read_all", broken)
    # a reader names it and moves nothing (hunt 15b); ``study run`` sets it aside and runs it again
    with pytest.raises(InputError, match=r"does not read \(OSError: checksum mismatch.*`gamemarket study run.*sets it"):
        load_results(spec)
    assert not list((spec.results_dir / "runs").glob("*.corrupt"))


@pytest.mark.slow
def test_a_second_run_of_the_same_study_is_refused(tmp_path):
    """The lock is a process's (a run holds it again for its own report): another process holding it refuses."""
    path = write_study(tmp_path, SMALL)
    spec = load_study(path)
    code = (
        "import sys, time; from gamemarket.studies import load_study; from gamemarket.studies.store import "
        "study_store; held = study_store(load_study(sys.argv[1])).lock('the test'); held.__enter__(); "
        "print('held', flush=True); time.sleep(120)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError, match=r"results and report are being written by the test \(pid \d+"):
            run_study(spec, n_jobs=1, progress=False)
        assert not (spec.results_dir / "runs").exists()  # nothing was run twice
    finally:
        holder.kill()
        holder.wait()
    run_study(spec, n_jobs=1, progress=False)  # the lock went with its holder


def test_a_lock_this_process_holds_is_held_again_not_taken_twice(tmp_path):
    spec = load_study(write_study(tmp_path, SMALL))
    with study_store(spec).lock("the workflow"):
        run_study(spec, n_jobs=1, progress=False)  # its runs, under the study's lock that its caller holds
        assert (spec.results_dir / ".lock").read_text().startswith("the workflow (pid")
    assert not store_module.HELD


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return not any(line.startswith("State:") and "Z" in line for line in f)
    except FileNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc to list child processes")
def test_workers_end_when_the_run_is_killed(tmp_path):
    body = SMALL.replace("jobs = 600", "jobs = 30000").replace("count = 3", "count = 6")
    p = write_study(tmp_path, body)
    runs = load_study(p).results_dir / "runs"
    cmd = [sys.executable, "-m", "gamemarket", "study", "run", str(p), "--n-jobs", "2", "--no-report", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=tmp_path)
    deadline = time.time() + 120
    while time.time() < deadline and not (runs.exists() and list(runs.glob("*.parquet"))):
        time.sleep(0.05)

    def descendants(pid):
        out = []
        for task in Path(f"/proc/{pid}/task").glob("*"):
            for c in (task / "children").read_text().split():
                out += [int(c), *descendants(int(c))]
        return out

    workers = descendants(proc.pid)
    assert workers, "no worker process was started"
    os.kill(proc.pid, signal.SIGKILL)  # the parent alone: no chance to stop its workers
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)], "workers outlived the killed run"
    stored = len(list(runs.glob("*.parquet")))
    time.sleep(1.0)
    assert len(list(runs.glob("*.parquet"))) == stored  # and nothing is written after it


def test_a_report_folder_refuses_another_study(tmp_path):
    from gamemarket.io.files import MANIFEST
    from gamemarket.reports.report import claim_folder

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = load_study(write_study(tmp_path / "a", SMALL))
    b = load_study(write_study(tmp_path / "b", SMALL + "\n# a variant\n"))  # a copy, edited, that kept its name
    out = tmp_path / "reports" / "small"
    claim_folder(out, a)
    claim_folder(out, a)  # its own folder: fine
    with pytest.raises(InputError, match="belongs to .*a/studies/s.toml.*pass --force"):
        claim_folder(out, b)
    claim_folder(out, b, force=True)
    assert "b/studies/s.toml" in (out / MANIFEST).read_text()


def test_a_damaged_population_run_is_set_aside(tmp_path):
    from gamemarket.studies.population import PopulationStore

    store = PopulationStore(tmp_path)
    store.write("k1", {"revenue": 1.0})
    assert store.read("k1")["revenue"] == 1.0
    store.path("k2").write_text(store.path("k1").read_text())  # valid JSON, another run's key
    store.path("k3").write_text('{"revenue": ')  # truncated
    for key, why in (("k2", "records another key"), ("k3", "JSONDecodeError")):
        assert store.read(key) is None and store.path(key).exists()  # a reader's default: moved nowhere (hunt 16d)
        with pytest.raises(InputError, match=f"{key}.json: the stored run does not read .*{why}"):
            store.read(key, name_bad=True)
        with pytest.warns(UserWarning, match=f"{key}.json: stored run does not read .*{why}.*run again"):
            assert store.read(key, set_aside_bad=True) is None  # a run's
        assert Path(str(store.path(key)) + ".corrupt").exists() and not store.path(key).exists()
    assert not list(store.dir.glob("*.tmp"))
