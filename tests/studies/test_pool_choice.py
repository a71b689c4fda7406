"""Work asked of several workers runs in process when a pool would not pay (workers.worth_a_pool, one decision in
workers.fan_out for a bimatrix study's groups, a population study's chunks and a report's figures), with the same
numbers as on the pool."""

import json
import math
import time

import pandas as pd
import pytest

from gamemarket import workers
from gamemarket.errors import InputError
from gamemarket.reports.report import FigureJobs
from gamemarket.search.population import run_population_study
from gamemarket.studies import load_study, population, run_study, runner
from gamemarket.workers import POOL_START_ENV, pool_start_seconds, worth_a_pool
from study_helpers import (
    POPULATION_STUDY,
    SMALL,
    population_records,
    runs_of,
    sorted_metrics,
    write_population_study,
    write_study,
)

#: no pool used yet in this process (``workers._warm``)
COLD = (float("-inf"), 0)


def test_a_small_study_stays_in_process_with_the_pools_numbers(tmp_path, monkeypatch):
    spec = load_study(write_study(tmp_path, SMALL))
    spec.results_dir = tmp_path / "pool"
    monkeypatch.setenv(POOL_START_ENV, "0")  # a pool always pays: the runs go to 2 workers
    pool = run_study(spec, n_jobs=2, progress=False)
    assert pool.workers == 2 and pool.run == spec.n_tasks == 27
    on_pool = sorted_metrics(spec)
    monkeypatch.setenv(POOL_START_ENV, "1000")  # a pool never pays at this size
    monkeypatch.setattr(workers, "_warm", COLD)  # (the pool just used is still up: a fan-out to it costs nothing)
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
    monkeypatch.setattr(workers, "_warm", COLD)
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


#: the small population study on 400 jobs: 4 chunks (2 mechanisms x 2 seeds) a fan-out, each a few runs
POP = POPULATION_STUDY.replace("jobs = 800", "jobs = 400").replace("max_seeds = 4", "max_seeds = 2")


@pytest.mark.slow
def test_a_population_study_runs_where_a_pool_pays_with_the_same_numbers(tmp_path, monkeypatch):
    spec = load_study(write_population_study(tmp_path, POP))
    monkeypatch.setenv(POOL_START_ENV, "0")  # a pool always pays: every chunk goes to 2 workers
    spec.results_dir = tmp_path / "pool"
    pool = run_population_study(spec, n_jobs=2)
    on_pool = population_records(spec)
    assert json.loads((spec.results_dir / "last-run.json").read_text())["workers"] == 2
    assert runs_of(on_pool) == pool.runs.run_now > 0

    monkeypatch.setenv(POOL_START_ENV, "1000")  # a pool never pays at this size: every chunk in process
    monkeypatch.setattr(workers, "_warm", COLD)
    spec.results_dir = tmp_path / "here"
    here = run_population_study(spec, n_jobs=2)
    last = json.loads((spec.results_dir / "last-run.json").read_text())
    assert last["workers"] == 1 and last["n_jobs"] == 2 and last["kind"] == "population"
    assert last["run"] == here.runs.run_now == pool.runs.run_now and last["jobs"] == 400
    assert population_records(spec) == on_pool  # exactly: floats compared as stored, bit for bit

    ran_here = []
    chunk = population._chunk_task
    monkeypatch.setattr(population, "_chunk_task", lambda *a: ran_here.append(1) or chunk(*a))
    monkeypatch.setattr(population, "LEAST_SECONDS_PER_JOB_RUN", 0.0)  # no estimate: the first chunk is timed
    monkeypatch.setenv(POOL_START_ENV, "1e-9")  # the first chunk's time pays for a pool
    monkeypatch.setattr(workers, "_warm", COLD)
    spec.results_dir = tmp_path / "mixed"
    run_population_study(spec, n_jobs=2)
    assert ran_here == [1]  # one chunk here, the rest on the pool (then still up: every later fan-out goes to it)
    assert json.loads((spec.results_dir / "last-run.json").read_text())["workers"] == 2
    assert population_records(spec) == on_pool


def test_figures_are_drawn_where_a_pool_pays_in_their_order(monkeypatch):
    jobs = FigureJobs()
    for k in range(5):
        jobs.add(math.ldexp, 1.0, k, weight=k % 3)  # a module-level function: what a worker can unpickle
    monkeypatch.setenv(POOL_START_ENV, "0")
    assert jobs.draw(2) == [1.0, 2.0, 4.0, 8.0, 16.0] and jobs.workers == 2
    monkeypatch.setenv(POOL_START_ENV, "1000")
    monkeypatch.setattr(workers, "_warm", COLD)
    assert jobs.draw(2) == [1.0, 2.0, 4.0, 8.0, 16.0] and jobs.workers == 1
    assert jobs.draw(1) == [1.0, 2.0, 4.0, 8.0, 16.0] and jobs.workers == 1


def test_a_pool_still_up_costs_nothing_to_start(monkeypatch):
    monkeypatch.setenv(POOL_START_ENV, "1000")
    monkeypatch.setattr(workers, "_warm", COLD)
    used = [None]
    assert list(workers.fan_out([(abs, (-k,)) for k in range(4)], 2, ordered=True, used=used)) == [0, 1, 2, 3]
    assert used == [1]  # no pool yet: in process
    monkeypatch.setattr(workers, "_warm", (time.monotonic(), 2))  # one of 2 workers just used
    assert list(workers.fan_out([(abs, (-k,)) for k in range(4)], 2, ordered=True, used=used)) == [0, 1, 2, 3]
    assert used == [2] and workers.pool_is_warm(2) and not workers.pool_is_warm(3)
    monkeypatch.setattr(workers, "_warm", (time.monotonic() - workers.WARM_S - 1, 2))  # idle too long: gone
    assert not workers.pool_is_warm(2)
    monkeypatch.setattr(workers, "_warm", COLD)
    used = [None]
    assert list(workers.fan_out([], 2, used=used)) == [] and used == [1] and workers._warm == COLD  # no pool
    assert workers.most_workers(1, 2) == 2 and workers.most_workers("dask", 2) == "dask"
