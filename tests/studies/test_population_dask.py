"""Population studies on a dask cluster: the same stored runs as a local run, and an address that no scheduler
answers is an error (never silently ignored)."""

import pytest

from gamemarket.errors import InputError
from gamemarket.search.population import run_population_study
from gamemarket.studies import load_study
from study_helpers import POPULATION_STUDY, population_records, runs_of, write_population_study

TINY = POPULATION_STUDY.replace("jobs = 800", "jobs = 300").replace("max_seeds = 4", "max_seeds = 2")


def _local_and_dask(spec, tmp_path, run):
    """``run(spec, ...)`` with one local worker into ``<tmp_path>/local``, then on a two-worker dask
    ``LocalCluster`` into ``<tmp_path>/dask``: (local answer, dask answer); ``spec`` is left on the dask folder."""
    from dask.distributed import LocalCluster  # deferred: the test extra's

    spec.results_dir = tmp_path / "local"
    local = run(spec, n_jobs=1)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True, dashboard_address=None
    ) as cluster:
        spec.results_dir = tmp_path / "dask"
        remote = run(spec, scheduler_address=cluster.scheduler_address)
    return local, remote


@pytest.fixture
def tiny(tmp_path):
    """The tiny population study, loaded (a body with changes: ``write_population_study`` directly)."""
    return load_study(write_population_study(tmp_path, TINY))


@pytest.mark.slow
def test_population_study_on_dask_stores_the_local_numbers(tiny, tmp_path):
    spec = tiny
    local, remote = _local_and_dask(spec, tmp_path, run_population_study)
    b = population_records(spec)
    spec.results_dir = tmp_path / "local"
    a = population_records(spec)
    assert a and a == b
    assert remote.runs.run_now == local.runs.run_now == runs_of(a)
    assert [e.mixture for x in remote.answers for e in x.equilibria] == [
        e.mixture for x in local.answers for e in x.equilibria
    ]


@pytest.mark.slow
def test_an_unanswered_scheduler_is_an_error_even_with_every_run_stored(tiny):
    spec = tiny
    with pytest.raises(InputError, match="nothing answers at 127.0.0.1:1"):
        run_population_study(spec, scheduler_address="tcp://127.0.0.1:1")
    run_population_study(spec, n_jobs=1)
    with pytest.raises(InputError, match="nothing answers at 127.0.0.1:1"):
        run_population_study(spec, scheduler_address="tcp://127.0.0.1:1")
    with pytest.raises(InputError, match="expected an address"):
        run_population_study(spec, scheduler_address="127.0.0.1")


@pytest.mark.slow
def test_exploration_on_dask_gives_the_local_answer(tmp_path):
    from gamemarket.search.exploration import run_exploration  # deferred: scipy.optimize

    body = (
        TINY.replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first"]')
        .replace('strategies = ["truthful", "shade-0.5", "shade-high-0.9"]', 'strategies = ["truthful", "shade-0.5"]')
        .replace("reduced_players = 3", "reduced_players = 2")
        .replace("probe = 0.01", "probe = 0.05")
        .replace(
            "max_seeds = 2", 'max_seeds = 2\nexploration = { family = "per-class", budget = 120, evaluations = 6 }'
        )
    )
    local, remote = _local_and_dask(load_study(write_population_study(tmp_path, body)), tmp_path, run_exploration)
    local, remote = local.to_json(), remote.to_json()
    local.pop("wall_seconds"), remote.pop("wall_seconds")
    assert remote["mechanisms"]["hb-first"].pop("workers") == "dask"
    assert local["mechanisms"]["hb-first"].pop("workers") in (1, 2)
    assert remote == local  # oracle_run_now included: both ran everything
    assert local["mechanisms"]["hb-first"]["oracle_simulations"] > 0
