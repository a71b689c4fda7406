"""Fixtures the plugin tests share. Fixtures only: a test module never imports from here (a second module named
``conftest`` would shadow the root one, ``tests/conftest.py``, for ``from conftest import ...``); shared study
texts are in ``tests/study_helpers.py``. The registries are restored by the root conftest's autouse fixture."""

import json
from pathlib import Path

import pytest

from gamemarket.search.population import run_population_study


def _records(folder: Path) -> dict:
    """A population study's stored records by file name, less their wall times."""
    out = {}
    for f in sorted((folder / "population").glob("*.json")):
        rec = json.loads(f.read_text())
        rec.pop("chunk_seconds")
        rec.pop("sha256", None)  # (the digest covers the wall time)
        out[f.name] = rec
    return out


@pytest.fixture
def local_then_dask(tmp_path):
    """Run a population study locally (one process, into ``tmp_path/local``), then call ``between()`` (move the
    plugin files away, say), then run it on a two-worker dask ``LocalCluster`` (into ``tmp_path/dask``); returns
    the two runs' results and stored records, ``(local, remote, records_local, records_dask)``."""

    def run(spec, between=None):
        from dask.distributed import LocalCluster  # deferred: the test extra's

        spec.results_dir = tmp_path / "local"
        local = run_population_study(spec, n_jobs=1)
        if between is not None:
            between()
        with LocalCluster(
            n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True, dashboard_address=None
        ) as c:
            spec.results_dir = tmp_path / "dask"
            remote = run_population_study(spec, scheduler_address=c.scheduler_address)
        return local, remote, _records(tmp_path / "local"), _records(tmp_path / "dask")

    return run
