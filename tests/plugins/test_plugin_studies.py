"""A study that loads a plugin (``[plugins] modules``): its runs are keyed by the plugin's text, so editing it
reruns its runs and nothing else; worker processes load it again (the same numbers with 1 and 2 processes)."""

import shutil
from pathlib import Path

import pytest

from gamemarket.errors import InputError
from gamemarket.studies import load_study
from gamemarket.studies.runner import load_workload, plan, run_study
from study_helpers import PLUGIN_WORKLOAD, sorted_metrics, write_study

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"

STUDY = (
    """
name = "with-plugin"
[plugins]
modules = ["mechanisms/lowest_running.py", "mechanisms/bid_per_node_second.py"]"""
    + PLUGIN_WORKLOAD
    + """[strategies]
providers = ["hb-kth", "hb-lowest", "pns-first"]
consumers = ["FT", "SRG"]
[strategies.provider.hb-lowest]
scheduler = "hb"
payment = "lowest-running"
[strategies.provider.pns-first]
scheduler = "bid-per-node-second"
payment = "first"
[replications]
count = 2
"""
)


@pytest.fixture
def study(tmp_path) -> Path:
    path = write_study(tmp_path, STUDY)
    (path.parent / "mechanisms").mkdir()
    for f in ("lowest_running.py", "bid_per_node_second.py"):
        shutil.copy(EXAMPLES / f, path.parent / "mechanisms" / f)
    return path


def _keys(spec) -> dict:
    prep = load_workload(spec)
    return {(t.provider, t.consumer, t.seed): t.key for t in plan(spec, prep.arrays, prep.nodes)}


def test_keys_follow_the_plugins_text_and_leave_builtin_runs_alone(study):
    spec = load_study(study)
    assert [p.file for p in spec.plugins] == [
        str((study.parent / "mechanisms" / f).resolve()) for f in ("lowest_running.py", "bid_per_node_second.py")
    ]
    before = _keys(spec)
    plugin = study.parent / "mechanisms" / "lowest_running.py"
    plugin.write_text(plugin.read_text() + "\n# an edit that changes the text\n")
    after = _keys(load_study(study))
    changed = {k[0] for k in before if before[k] != after[k]}
    assert changed == {"hb-lowest"}  # pns-first's plugin and the built-in hb-kth are as they were


def test_a_built_in_providers_key_is_the_same_with_or_without_plugins(study):
    keys = _keys(load_study(study))
    text = study.read_text().replace('"mechanisms/lowest_running.py", "mechanisms/bid_per_node_second.py"', "")
    text = text.replace('providers = ["hb-kth", "hb-lowest", "pns-first"]', 'providers = ["hb-kth"]')
    bare = study.parent / "bare.toml"
    bare.write_text(text.replace('name = "with-plugin"', 'name = "bare"'))
    bare_keys = _keys(load_study(bare))
    assert bare_keys and all(keys[k] == v for k, v in bare_keys.items())


@pytest.mark.slow
def test_same_numbers_with_one_and_two_worker_processes(study, tmp_path):
    one = load_study(study, results=tmp_path / "r1")
    two = load_study(study, results=tmp_path / "r2")
    assert run_study(one, n_jobs=1, progress=False).run == 12
    assert run_study(two, n_jobs=2, progress=False).run == 12
    a, b = sorted_metrics(one), sorted_metrics(two)
    assert a.equals(b) and set(a["provider"]) == {"hb-kth", "hb-lowest", "pns-first"}
    assert run_study(one, n_jobs=1, progress=False).run == 0  # stored: nothing reruns


def test_the_study_file_round_trips_its_plugins(study, tmp_path):
    spec = load_study(study)
    out = study.parent / "copy.toml"
    spec.to_toml(out)
    assert "mechanisms/lowest_running.py" in out.read_text()
    assert [p.source for p in load_study(out).plugins] == [p.source for p in spec.plugins]
    assert all(Path(p.file) in spec.inputs() for p in spec.plugins)


def test_a_missing_plugin_is_an_error_naming_the_study_and_the_entry(study):
    study.write_text(study.read_text().replace("mechanisms/bid_per_node_second.py", "mechanisms/nope.py"))
    with pytest.raises(InputError, match=r"s.toml: \[plugins\] modules\[1\]: plugin .*nope.py: cannot read it"):
        load_study(study)


def test_workers_started_before_a_plugin_was_loaded_still_find_it():
    """loky reuses worker processes across runs: one started before the plugin was loaded has the environment
    it started with. Every task carries the parent's plugin list (``plugins.WithPlugins``)."""
    from joblib import Parallel, delayed

    from gamemarket import plugins

    Parallel(n_jobs=2)(delayed(abs)(i) for i in range(4))  # the pool, started with no plugin listed
    plugins.load_plugin(str(EXAMPLES / "lowest_running.py"))
    found = Parallel(n_jobs=2)(delayed(plugins.WithPlugins(_payment_known))("lowest-running") for _ in range(4))
    assert found == [True] * 4


def _payment_known(name: str) -> bool:
    from gamemarket.market import PAYMENTS

    return PAYMENTS.get(name, default=False) is not False  # a miss loads the listed plugins first
