"""A task that fails in a dask worker ends the study with its error, never hangs it (bimatrix and population
studies): here a plugin whose text does not import on the workers, which their unpickling of a task's strategy
objects (a family's points) found before the task ran. The study is exit 2 naming the plugin, and stores
nothing half-written (a run that finished before the error is stored whole, as a study resumes)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from study_helpers import write_study

ROOT = Path(__file__).resolve().parents[2]
#: lines that make the example family fail to import in a dask worker process where the variable is set (the
#: scheduler, in this process, unpickles the tasks too: there it loads)
BREAK = (
    "import multiprocessing, os\n"
    "if os.environ.get('GAMEMARKET_TEST_BREAK') and multiprocessing.current_process().name.startswith('Dask Worker'):\n"
    "    raise RuntimeError('broken on purpose')\n"
)

STUDY = """
name = "worker-error"
[plugins]
modules = ["shade.py"]
[workload]
source = "synthetic"
nodes = 4
[workload.synthetic]
jobs = 60
load = 1.2
seed = 3
[strategies]
providers = ["hb-kth"]
"""
KINDS = {
    "bimatrix": 'consumers = ["FT", "sb20"]\n[strategies.consumer.sb20]\nfamily = "shade-by"\namount = 20\n',
    "population": '[game]\nkind = "population"\nstrategies = ["truthful", "sb30"]\nreduced_players = 2\n'
    'probe = 0.01\n[game.shading.sb30]\nfamily = "shade-by"\namount = 30\n',
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_plugin_that_fails_in_the_dask_workers_fails_the_study_with_exit_2(kind, tmp_path, monkeypatch):
    from dask.distributed import LocalCluster  # deferred: the test extra's

    study = write_study(tmp_path, STUDY + KINDS[kind] + "[replications]\ncount = 2\n")
    text = (ROOT / "examples" / "plugins" / "shade_by_amount.py").read_text()
    head = "from __future__ import annotations\n"
    (study.parent / "shade.py").write_text(text.replace(head, head + BREAK))
    monkeypatch.setenv("GAMEMARKET_TEST_BREAK", "1")  # the workers start with it, ...
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True, dashboard_address=None) as c:
        env = {k: v for k, v in os.environ.items() if k != "GAMEMARKET_TEST_BREAK"}  # ... the study's process does not
        env["PYTHONPATH"] = str(ROOT)
        cmd = [sys.executable, "-m", "gamemarket", "study", "run", str(study), "--scheduler-address"]
        cmd += [c.scheduler_address, "--no-report", "--no-progress"]
        # a hang is what this guards against: it fails the test after the timeout rather than hanging it
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"plugin {(study.parent / 'shade.py').resolve()}: does not import: RuntimeError: broken on purpose" in (
        proc.stderr
    )
    assert "Traceback" not in proc.stderr
    # what is stored is whole runs that finished before the error, of the consumer without the plugin's objects
    stored = [f for f in (study.parent / "results").rglob("*") if f.is_file() and not f.name.startswith(".")]
    assert all(f.suffix in (".parquet", ".json") for f in stored), stored
    for f in stored:
        task = json.loads(pq.read_metadata(f).metadata[b"gamemarket.task"]) if f.suffix == ".parquet" else {}
        assert f.suffix == ".parquet" and "shade-by" not in json.dumps(task), (f, task)
