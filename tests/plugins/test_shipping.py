"""Plugins travel with a study's tasks (``plugins.WithPlugins``): each task carries every file plugin's text and
hash, and a worker where the file is absent (a remote dask worker) or holds other text (edited there) loads the
parent's text under the same path, hash and module name, so the numbers and the entries' sources (the results'
keys) are the parent's; an entry point travels by its name, and an installed version of other text is refused."""

import importlib
import inspect
import json
import pickle
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from joblib import Parallel, delayed

from gamemarket import bids, plugins
from gamemarket.consumers import FAMILIES, SRG
from gamemarket.errors import InputError
from gamemarket.market import PAYMENTS, SCHEDULERS, Mechanism, simulate
from gamemarket.plugins import load_plugin
from gamemarket.studies import load_study
from gamemarket.workloads import load
from study_helpers import write_study

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"
RULE = "return min_running_bid if min_running_bid > reserve else reserve"

#: a population study of a plugin family under a plugin payment scheme
POPULATION = """
name = "pop-shipped"
[plugins]
modules = ["mechanisms/shade_by_amount.py", "mechanisms/lowest_running.py"]
[workload]
source = "synthetic"
nodes = 6
[workload.synthetic]
jobs = 100
load = 1.2
seed = 3
[strategies]
providers = ["hb-kth", "hb-low"]
[strategies.provider.hb-low]
scheduler = "hb"
payment = "lowest-running"
[game]
kind = "population"
strategies = ["truthful", "sb30"]
reduced_players = 3
probe = 0.01
[game.shading.sb30]
family = "shade-by"
amount = 30
[replications]
count = 2
"""


@pytest.fixture(autouse=True)
def _no_texts(monkeypatch):
    """No text loaded or shipped before the test (the conftest's fixture restores the registries and the list)."""
    monkeypatch.setattr(plugins.loading, "TEXTS", {})
    monkeypatch.setattr(plugins.shipping, "SHIPPED", {})


def _copy(tmp_path, name: str) -> Path:
    """An example plugin copied to a folder of its own, with a line of its own: a hash no worker has loaded."""
    p = tmp_path / "study" / name
    p.parent.mkdir(exist_ok=True)
    p.write_text((EXAMPLES / name).read_text() + f"# {tmp_path.name}\n")
    return p


def _payments(payment: str):
    """A task: the source of the payment scheme and the bits of every job's payment on a congested workload."""
    w = load("synthetic", jobs=150, nodes=8, load=1.3, seed=3)
    jobs = simulate(bids.job_table(w.jobs, SRG, seed=3), 8, Mechanism("hb", payment, 1.0)).jobs
    return PAYMENTS.get(payment).source, np.asarray(jobs["payment"], dtype=np.float64).view(np.int64).tolist()


def _bids_of(strategy) -> list:
    """A task: a plugin family's strategy's reported bids (its argument is unpickled by importing its module)."""
    out = strategy.reported_bids(np.array([10.0, 50.0]), np.array([0, 1]), np.array([0.1, 0.2]), np.array([0.5, 0.5]))
    return out[1].tolist()


def _fresh_worker(monkeypatch) -> None:
    """This process as a fresh worker: no plugin registered or loaded, no text known, none listed."""
    for plugin in plugins.loaded():
        for kind, name in plugin.entries:
            plugins.REGISTRIES[kind].remove(name)
        sys.modules.pop(f"gamemarket_plugin_{plugin.digest}", None)
    monkeypatch.setattr(plugins.loading, "LOADED", {})
    monkeypatch.setattr(plugins.loading, "TEXTS", {})
    monkeypatch.setenv(plugins.ENV, "[]")


def _edit(p: Path) -> None:
    """Another rule under the same name: every job pays 2r + 1."""
    assert RULE in p.read_text()
    p.write_text(p.read_text().replace(RULE, "return 2.0 * reserve + 1.0"))


def test_a_task_carries_each_file_plugins_text_and_hash(tmp_path):
    plugin = load_plugin(_copy(tmp_path, "lowest_running.py"))
    task = plugins.WithPlugins(_payments)
    assert task.listed == [[plugin.path, plugin.digest]]
    assert task.texts == {plugin.digest: Path(plugin.path).read_bytes()}


@pytest.mark.slow
def test_a_worker_without_the_file_loads_the_shipped_text_as_the_parents_path(tmp_path, monkeypatch):
    p = _copy(tmp_path, "lowest_running.py")
    plugin, plugin_text = load_plugin(p), p.read_text()
    want = _payments("lowest-running")
    task = pickle.dumps(plugins.WithPlugins(_payments))
    p.unlink()
    _fresh_worker(monkeypatch)
    assert pickle.loads(task)("lowest-running") == want and want[0] == plugin.source
    module = sys.modules[f"gamemarket_plugin_{plugin.digest}"]
    assert module.__file__ == plugin.path and plugins.loaded()[0].source == plugin.source
    assert inspect.getsource(module.lowest_running) in plugin_text  # a traceback shows the shipped text


@pytest.mark.slow
def test_an_edited_file_on_the_worker_is_not_used(tmp_path, monkeypatch):
    p = _copy(tmp_path, "lowest_running.py")
    load_plugin(p)
    want = _payments("lowest-running")
    task = pickle.dumps(plugins.WithPlugins(_payments))
    _edit(p)
    _fresh_worker(monkeypatch)
    assert pickle.loads(task)("lowest-running") == want  # the hash decides: the shipped text, not the file's
    _fresh_worker(monkeypatch)
    load_plugin(p)  # the edited file, loaded as a plugin: other numbers (the assertion above can fail)
    assert _payments("lowest-running")[1] != want[1]


def test_without_a_shipped_text_an_edited_file_is_still_refused(tmp_path, monkeypatch):
    p = _copy(tmp_path, "lowest_running.py")
    plugin = load_plugin(p)
    listed = [[plugin.path, plugin.digest]]
    _edit(p)
    _fresh_worker(monkeypatch)
    monkeypatch.setenv(plugins.ENV, json.dumps(listed))  # inherited, as a joblib worker's environment
    with pytest.raises(InputError, match="changed \\(or removed\\) while the study runs"):
        PAYMENTS.get("lowest-running")


def test_a_family_strategy_unpickled_on_a_worker_without_the_file_imports_the_shipped_text(tmp_path, monkeypatch):
    """As a dask worker unpickles a task: the function (which sets the list and the texts) before its arguments,
    whose module (``gamemarket_plugin_<hash>``) the import then loads from the shipped text."""
    p = _copy(tmp_path, "shade_by_amount.py")
    load_plugin(p)
    strategy = FAMILIES.get("shade-by").point([20])
    want = _bids_of(strategy)
    task = pickle.dumps((plugins.WithPlugins(_bids_of), strategy))
    p.unlink()
    _fresh_worker(monkeypatch)
    fn, arg = pickle.loads(task)
    assert fn(arg) == want == [0.0, 40.0]


@pytest.mark.slow
@pytest.mark.parametrize("on_the_worker", ["moved away", "edited"])
def test_reused_loky_workers_give_the_parents_numbers(tmp_path, on_the_worker):
    Parallel(n_jobs=2)(delayed(abs)(i) for i in range(2))  # the pool, started before the plugin was loaded
    p = _copy(tmp_path, "lowest_running.py")
    load_plugin(p)
    want = _payments("lowest-running")
    if on_the_worker == "edited":
        _edit(p)
    else:
        p.rename(tmp_path / "elsewhere.py")
    got = Parallel(n_jobs=2)(delayed(plugins.WithPlugins(_payments))("lowest-running") for _ in range(4))
    assert got == [want] * 4


@pytest.mark.slow
def test_a_reused_worker_runs_the_new_text_of_a_plugin_edited_between_runs(tmp_path):
    """A worker that ran the old text still has its entries registered (no registry miss would load the new
    one): a task whose list no longer names the old text takes it back first."""
    p = _copy(tmp_path, "lowest_running.py")
    load_plugin(p)
    first = Parallel(n_jobs=2)(delayed(plugins.WithPlugins(_payments))("lowest-running") for _ in range(4))
    _edit(p)
    plugin = load_plugin(p)
    want = _payments("lowest-running")
    got = Parallel(n_jobs=2)(delayed(plugins.WithPlugins(_payments))("lowest-running") for _ in range(4))
    assert got == [want] * 4 and want[0] == plugin.source and want[1] != first[0][1]


def _entry_point(tmp_path, monkeypatch) -> Path:
    pkg = tmp_path / "site"
    pkg.mkdir()
    (pkg / "my_mech_ship.py").write_text(
        "from gamemarket.market import register_scheduler\nfrom gamemarket.market.schedulers import PriorityKey\n"
        "register_scheduler('spt-ship', False, PriorityKey('runtime'), 'shortest run time first')\n"
    )
    dist = pkg / "my_mech_ship-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-mech-ship\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[gamemarket.plugins]\nspt-ship = my_mech_ship\n")
    monkeypatch.syspath_prepend(str(pkg))
    return pkg / "my_mech_ship.py"


def test_an_entry_point_travels_by_name_and_its_hash_is_checked(tmp_path, monkeypatch):
    module = _entry_point(tmp_path, monkeypatch)
    plugin = load_plugin("spt-ship")
    task = pickle.dumps(plugins.WithPlugins(_scheduler_source))
    assert plugins.WithPlugins(_scheduler_source).listed == [[plugin.path, plugin.digest]]
    _fresh_worker(monkeypatch)
    sys.modules.pop("my_mech_ship")  # a fresh worker has not imported it
    assert pickle.loads(task)("spt-ship") == plugin.source  # loaded here by its name, on the registry's miss
    _fresh_worker(monkeypatch)
    sys.modules.pop("my_mech_ship")
    module.write_text(module.read_text() + "# another version\n")
    importlib.invalidate_caches()
    with pytest.raises(InputError, match="plugin entry point spt-ship: the installed version here is not the one"):
        pickle.loads(task)("spt-ship")
    assert "spt-ship" not in SCHEDULERS  # taken back


def _scheduler_source(name: str) -> str:
    return SCHEDULERS.get(name).source


@pytest.mark.slow
def test_a_dask_population_study_whose_plugin_files_are_gone_stores_the_local_numbers(tmp_path, local_then_dask):
    """dask's worker processes start after the plugin files are moved away: what they load is the text each task
    carried, and the stored runs (their keys name the plugins' paths and hashes) are a local run's."""
    mech = tmp_path / "studies" / "mechanisms"
    mech.mkdir(parents=True)
    for f in ("shade_by_amount.py", "lowest_running.py"):
        shutil.copy(EXAMPLES / f, mech / f)
    spec = load_study(write_study(tmp_path, POPULATION))
    local, remote, records_local, records_dask = local_then_dask(spec, between=lambda: mech.rename(tmp_path / "gone"))
    assert records_local and records_local == records_dask
    assert remote.runs.run_now == local.runs.run_now > 0
