"""A study asked for several workers runs in process when a pool would not pay (workers.worth_a_pool), with the
same numbers as on the pool."""

import pandas as pd
import pytest

from gamemarket.errors import InputError
from gamemarket.studies import load_study, run_study, runner
from gamemarket.studies.workers import POOL_START_ENV, pool_start_seconds, worth_a_pool
from study_helpers import SMALL, sorted_metrics, write_study


def test_a_small_study_stays_in_process_with_the_pools_numbers(tmp_path, monkeypatch):
    spec = load_study(write_study(tmp_path, SMALL))
    spec.results_dir = tmp_path / "pool"
    monkeypatch.setenv(POOL_START_ENV, "0")  # a pool always pays: the runs go to 2 workers
    pool = run_study(spec, n_jobs=2, progress=False)
    assert pool.workers == 2 and pool.run == spec.n_tasks == 27
    on_pool = sorted_metrics(spec)
    monkeypatch.setenv(POOL_START_ENV, "1000")  # a pool never pays at this size
    spec.results_dir = tmp_path / "here"
    here = run_study(spec, n_jobs=2, progress=False)
    assert here.workers == 1 and here.run == 27 and here.n_jobs == 2
    pd.testing.assert_frame_equal(sorted_metrics(spec), on_pool, check_exact=True)
    spec.results_dir = tmp_path / "one"
    assert run_study(spec, n_jobs=1, progress=False).workers == 1
    pd.testing.assert_frame_equal(sorted_metrics(spec), on_pool, check_exact=True)


def test_a_pool_started_after_a_group_in_process_gives_the_same_numbers(tmp_path, monkeypatch):
    spec = load_study(write_study(tmp_path, SMALL))
    spec.results_dir = tmp_path / "one"
    run_study(spec, n_jobs=1, progress=False)
    one = sorted_metrics(spec)
    ran_here = []
    run_group = runner._run_group
    monkeypatch.setattr(runner, "_run_group", lambda g, *a: ran_here.append(len(g)) or run_group(g, *a))
    monkeypatch.setattr(runner, "LEAST_SECONDS_PER_JOB_RUN", 0.0)  # no estimate from job counts: groups timed
    monkeypatch.setenv(POOL_START_ENV, "1e-9")  # the first group's time pays for a pool
    spec.results_dir = tmp_path / "mixed"
    info = run_study(spec, n_jobs=2, progress=False)
    assert ran_here == [3] and info.workers == 2 and info.run == 27  # 1 group here, 8 on the pool
    pd.testing.assert_frame_equal(sorted_metrics(spec), one, check_exact=True)


def test_worth_a_pool():
    assert worth_a_pool(1.0, 7, 2, 3.0)  # 7 s of runs, 3.5 s saved by a second worker, 3 s to start
    assert not worth_a_pool(0.3, 7, 2, 3.0)  # 2.1 s of runs: 1.05 s saved
    assert not worth_a_pool(100.0, 1, 2, 0.5)  # one job left: a second worker has nothing to do
    assert worth_a_pool(0.01, 3, 4, 0.0)  # free to start: a pool whenever it can share the work
    assert not worth_a_pool(0.0, 0, 2, 0.0)


@pytest.mark.parametrize("text", ["-1", "abc", "inf", "nan"])
def test_a_bad_pool_start_is_an_input_error(monkeypatch, text):
    monkeypatch.setenv(POOL_START_ENV, text)
    with pytest.raises(InputError, match=f"{POOL_START_ENV}={text!r}: expected a number of seconds >= 0"):
        pool_start_seconds()


def test_the_default_pool_start(monkeypatch):
    monkeypatch.delenv(POOL_START_ENV)
    assert pool_start_seconds() > 0
