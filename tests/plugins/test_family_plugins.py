"""A plugin's consumer-strategy family and provider strategies: registered through the public interface,
checked by ``gamemarket.testing.check_family`` / ``check_provider`` (and ``gamemarket plugin check``), named by
bimatrix and population studies like the built-in ones, keyed by the plugin's text, run by worker processes;
bad entries and bad bids are errors naming the plugin, the entry and the value (exit 2)."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from gamemarket import consumers
from gamemarket.analysis.population import equilibria_json
from gamemarket.cli import main
from gamemarket.consumers import FAMILIES
from gamemarket.errors import InputError
from gamemarket.plugins import PROVIDERS, load_plugin
from gamemarket.search.population import run_population_study
from gamemarket.studies import load_study
from gamemarket.studies.runner import load_workload, plan, run_study
from gamemarket.testing import check_family, check_provider, family_draws
from study_helpers import PLUGIN_WORKLOAD, sorted_metrics, write_study

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"
SHADE_BY = EXAMPLES / "shade_by_amount.py"

#: a plugin combining entries: the example scheduler and payment rule, and a built-in pair at another reserve
PROVIDERS_PLUGIN = """
from gamemarket.plugins import register_provider
register_provider("pns-lowest", "bid-per-node-second", "lowest-running", description="both example plugins")
register_provider("hb-kth-r3", "hb", "kth", reserve=3.0)
"""

#: the plugins (the three examples and PROVIDERS_PLUGIN, beside the study: ``folder``) and the workload both
#: studies below play
PLUGINS_AND_WORKLOAD = (
    """[plugins]
modules = ["mechanisms/shade_by_amount.py", "mechanisms/lowest_running.py", "mechanisms/bid_per_node_second.py",
           "mechanisms/providers.py"]"""
    + PLUGIN_WORKLOAD
)

STUDY = (
    """
name = "with-family"
"""
    + PLUGINS_AND_WORKLOAD
    + """[strategies]
providers = ["hb-kth", "pns-lowest"]
consumers = ["FT", "sb20"]
[strategies.consumer.sb20]
family = "shade-by"
amount = 20
[replications]
count = 2
"""
)

POPULATION = (
    """
name = "pop-family"
"""
    + PLUGINS_AND_WORKLOAD
    + """[strategies]
providers = ["hb-kth", "pns-lowest"]
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
)


@pytest.fixture
def folder(tmp_path) -> Path:
    mech = tmp_path / "studies" / "mechanisms"  # beside the study file write_study makes
    mech.mkdir(parents=True)
    for f in ("shade_by_amount.py", "lowest_running.py", "bid_per_node_second.py"):
        shutil.copy(EXAMPLES / f, mech / f)
    (mech / "providers.py").write_text(PROVIDERS_PLUGIN)
    return tmp_path


def test_the_example_family_conforms_and_shades_by_a_fixed_amount():
    plugin = load_plugin(SHADE_BY)
    assert plugin.entries == (("family", "shade-by"),)
    report = check_family("shade-by")
    assert [r.check for r in report.results] == ["registered", "box", "bids", "round trip", "independent"]
    s = FAMILIES.get("shade-by").point([20])
    assert s.name == "shade-by[20]" and s.params() == {"family": "shade-by", "amount": 20.0, "plugin": plugin.digest}
    w, cls, G, U = family_draws(500)
    group, rw = s.reported_bids(w, cls, G, U)
    assert np.array_equal(rw, np.maximum(0.0, w - 20 * U)) and not group.any()
    shaded = (w - rw)[w > 20]
    assert np.all(shaded <= 20) and np.all(shaded >= 0)  # an amount, not a share: the same cap at every bid
    assert consumers.from_params(s.params(), "x").amount == 20.0


def test_the_built_in_families_pass_the_same_checks():
    for name, fam in FAMILIES.items():
        extra = [consumers.SRG, consumers.FT] if name == "beta-mix" else []
        assert check_family(name, strategies=extra).passed


def test_plugin_check_runs_the_family_checks(capsys):
    assert main(["plugin", "check", str(SHADE_BY), "--format", "json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)["reports"]
    assert report["what"] == "consumer-strategy family" and report["name"] == "shade-by" and report["passed"]
    assert {r["check"] for r in report["results"]} == {"registered", "box", "bids", "round trip", "independent"}


def _bad_family(tmp_path, body: str, name: str = "bad.py") -> Path:
    p = tmp_path / name
    p.write_text(
        SHADE_BY.read_text()
        .replace('name = "shade-by"', 'name = "bad-by"')
        .replace('family: ClassVar[str] = "shade-by"', 'family: ClassVar[str] = "bad-by"')
        + body
    )
    return p


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (
            lambda t: t.replace('name = "bad-by"', 'name = "per-class"'),
            r"consumer-strategy family 'per-class' is already registered",
        ),
        (
            lambda t: t.replace(
                "def from_entry(self, name: str, entry: dict, where: str, root: str)", "def from_entry(self, name)"
            ),
            r"consumer-strategy family 'bad-by': method 'from_entry' has the wrong signature \(name\)",
        ),
        (
            lambda t: t.replace("bounds = ((0.0, TOP),)", "bounds = ((5.0, 1.0),)"),
            r"consumer-strategy family 'bad-by': field 'bounds' of 'amount'",
        ),
        (
            lambda t: t.replace('description = "shade by', 'description = ""\n    _ = "'),
            r"consumer-strategy family 'bad-by': field 'description'",
        ),
    ],
)
def test_a_bad_family_is_an_error_naming_the_plugin_and_the_entry_exit_2(tmp_path, capsys, edit, match):
    p = tmp_path / "bad.py"
    p.write_text(edit(_bad_family(tmp_path, "").read_text()))
    with pytest.raises(InputError, match=rf"plugin {p.resolve()}: {match}"):
        load_plugin(p)
    assert "bad-by" not in FAMILIES  # nothing half-registered
    assert main(["plugin", "check", str(p)]) == 2
    assert str(p.resolve()) in capsys.readouterr().err


@pytest.mark.parametrize(
    ("bids", "value"),
    [("w - 200.0", "-"), ("np.where(w > 100, np.nan, w)", "nan"), ("w + 1.0", "")],
)
def test_bids_the_engine_does_not_accept_are_errors_naming_plugin_strategy_job_and_value(tmp_path, bids, value):
    p = _bad_family(tmp_path, "")
    text = p.read_text().replace("np.maximum(0.0, w - self.amount * np.asarray(U, dtype=float))", bids)
    p.write_text(text)
    plugin = load_plugin(p)
    s = FAMILIES.get("bad-by").point([10])
    w, cls, G, U = family_draws(50)
    with pytest.raises(InputError) as err:
        s.reported_bids(w, cls, G, U)
    msg = str(err.value)
    assert f"plugin {plugin.source}: consumer-strategy family 'bad-by', strategy 'bad-by[10]'" in msg
    assert "gives job " in msg and f"the bid {value}" in msg and "expected a finite bid in [0, private bid]" in msg
    assert not check_family("bad-by", raise_on_failure=False).passed


@pytest.mark.slow
def test_a_study_that_plays_a_bad_family_exits_2_and_stores_none_of_its_runs(folder, capsys):
    bad = folder / "studies" / "mechanisms" / "shade_by_amount.py"
    bad.write_text(
        bad.read_text().replace("np.maximum(0.0, w - self.amount * np.asarray(U, dtype=float))", "w - 500.0")
    )
    study = write_study(folder, STUDY)
    assert main(["study", "run", str(study), "--n-jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "consumer-strategy family 'shade-by', strategy 'sb20'" in err and "Traceback" not in err
    stored = {f.stem for f in folder.rglob("runs/*.parquet")}
    keys = _keys(load_study(study))
    assert not stored & {v for k, v in keys.items() if k[1] == "sb20"}  # the runs before the error are kept


def _keys(spec) -> dict:
    prep = load_workload(spec)
    return {(t.provider, t.consumer, t.seed): t.key for t in plan(spec, prep.arrays, prep.nodes)}


@pytest.mark.slow
def test_a_bimatrix_study_plays_the_plugin_family_and_providers_keyed_by_their_text(folder, tmp_path):
    study = write_study(folder, STUDY)
    spec = load_study(study)
    assert [p.name for p in spec.providers] == ["hb-kth", "pns-lowest"]
    got = spec.providers[1].params()
    assert (got["scheduler"], got["payment"], got["reserve"]) == ("bid-per-node-second", "lowest-running", 1.0)
    assert spec.consumers[1].params()["amount"] == 20.0
    before = _keys(spec)
    plugin = folder / "studies" / "mechanisms" / "shade_by_amount.py"
    plugin.write_text(plugin.read_text() + "\n# an edit\n")
    after = _keys(load_study(study))
    assert {k for k in before if before[k] != after[k]} == {k for k in before if k[1] == "sb20"}
    one = load_study(study, results=tmp_path / "r1")
    two = load_study(study, results=tmp_path / "r2")
    assert run_study(one, n_jobs=1, progress=False).run == 8
    assert run_study(two, n_jobs=2, progress=False).run == 8  # workers unpickle the plugin's strategy class
    a, b = sorted_metrics(one), sorted_metrics(two)
    assert a.equals(b) and set(a["consumer"]) == {"FT", "sb20"}


@pytest.mark.slow
def test_a_population_study_plays_the_plugin_family_and_provider(folder):
    spec = load_study(write_study(folder, POPULATION))
    assert spec.population.strategies[1].params()["amount"] == 30.0
    assert [p.name for p in spec.providers] == ["hb-kth", "pns-lowest"]
    an = run_population_study(spec, n_jobs=1)
    again = run_population_study(load_study(write_study(folder, POPULATION)), n_jobs=2)
    assert equilibria_json(an) == equilibria_json(again)  # workers unpickle the plugin's strategies


@pytest.mark.slow
def test_plugin_providers_check_and_bad_ones_are_errors(folder, tmp_path, capsys):
    load_plugin(EXAMPLES / "lowest_running.py")
    load_plugin(EXAMPLES / "bid_per_node_second.py")
    load_plugin(folder / "studies" / "mechanisms" / "providers.py")
    assert PROVIDERS.get("hb-kth-r3").reserve == 3.0
    assert check_provider("hb-kth-r3", cases=5).passed and check_provider("pns-lowest", cases=5).passed
    for body, match in [
        (
            'register_provider("x", "nope", "kth")',
            r"provider strategy 'x': field 'scheduler': unknown scheduler 'nope'",
        ),
        (
            'register_provider("x", "hb", "kth", reserve=-1)',
            r"provider strategy 'x': field 'reserve': expected a number >= 0 and <= 1e\+09",
        ),
        ('register_provider("hb-kth-r3", "hb", "first")', r"provider strategy 'hb-kth-r3' is already registered"),
    ]:
        p = tmp_path / "badprov.py"
        p.write_text(f"from gamemarket.plugins import register_provider\n{body}\n")
        with pytest.raises(InputError, match=rf"plugin {p.resolve()}: {match}"):
            load_plugin(p)
        assert "x" not in PROVIDERS


@pytest.mark.slow
def test_the_combined_example_needs_its_entries_loaded_first(capsys):
    combined = EXAMPLES / "combined.py"
    assert main(["plugin", "check", str(combined)]) == 2  # alone: its entries are unknown
    assert "provider strategy 'pns-lowest': field 'scheduler': unknown scheduler 'bid-per-node-second'" in (
        capsys.readouterr().err
    )
    first = ["--plugin", str(EXAMPLES / "lowest_running.py"), "--plugin", str(EXAMPLES / "bid_per_node_second.py")]
    assert main(["plugin", "check", str(combined), *first, "--cases", "3"]) == 0
    out = capsys.readouterr().out
    assert "provider strategy 'pns-lowest'" in out and "provider strategy 'hb-lowest'" in out  # only FILE's entries
    assert "payment scheme 'lowest-running'" not in out
    plugin = load_plugin(combined)
    assert plugin.entries == (("provider", "pns-lowest"), ("provider", "hb-lowest"))
    for _, name in plugin.entries:
        assert check_provider(name, cases=5).passed


def _payment_known(name: str) -> bool:
    from gamemarket.market import PAYMENTS

    return PAYMENTS.get(name, default=False) is not False  # a miss loads the listed plugins first


def _bids_of(strategy) -> list:
    return strategy.reported_bids(np.array([10.0, 50.0]), np.array([0, 1]), np.array([0.1, 0.2]), np.array([0.5, 0.5]))[
        1
    ].tolist()


def test_reused_workers_import_a_plugin_strategys_module_once():
    """A worker that loaded one plugin (a registry miss) then unpickles a strategy of another: the import of its
    module loads the listed plugin once (the import system once ran it a second time from the module's own spec,
    and the family's second registration broke the pool)."""
    from joblib import Parallel, delayed

    from gamemarket import plugins

    load_plugin(EXAMPLES / "lowest_running.py")
    assert (
        Parallel(n_jobs=2)(delayed(plugins.WithPlugins(_payment_known))("lowest-running") for _ in range(4))
        == [True] * 4
    )
    load_plugin(SHADE_BY)
    s = FAMILIES.get("shade-by").point([20])
    assert Parallel(n_jobs=2)(delayed(plugins.WithPlugins(_bids_of))(s) for _ in range(4)) == [[0.0, 40.0]] * 4


@pytest.mark.slow
def test_a_population_study_of_the_plugin_family_on_dask_stores_the_local_numbers(folder, local_then_dask):
    """The plugin's strategy objects reach dask's workers by reference to its module, which they import by loading
    the listed plugin (``plugins.PluginModules``): the same stored runs as a local run."""
    spec = load_study(write_study(folder, POPULATION.replace("jobs = 150", "jobs = 100")))
    local, remote, records_local, records_dask = local_then_dask(spec)
    assert records_local and records_local == records_dask
    assert remote.runs.run_now == local.runs.run_now


#: a consumer-strategy family without parameters (not parametric): its one strategy bids ``FACTOR`` times ``w``
HALF_BID = """
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gamemarket.consumers import ConsumerStrategy, Family, register

FACTOR = 0.5


@dataclass(frozen=True)
class HalfBid(ConsumerStrategy):
    family: ClassVar[str] = "half-bid"
    name: str = "half-bid"
    description: str = ""

    def params(self):
        return {"family": self.family}

    def reported_bids(self, private_bid, bid_class, G, U):
        w = np.asarray(private_bid, dtype=float)
        return np.zeros(len(w), dtype=np.int64), FACTOR * w

    def consumer_groups(self):
        return ((1.0, 0.5),)

    def entry(self):
        return {"family": self.family}


class HalfBidFamily(Family):
    name = "half-bid"
    description = "every job reports half its private bid (no parameters)"

    def from_entry(self, name, entry, where, root):
        return {name: HalfBid(name)}

    def from_params(self, params, name=""):
        return HalfBid(name or "half-bid")


register(HalfBidFamily())
"""


@pytest.mark.parametrize("factor", ["0.5", "1.5"])
def test_check_family_checks_a_family_without_parameters_on_its_default_strategy(tmp_path, factor):
    """A family that is not parametric is checked on what its entry with no fields gives, with no strategies
    passed: a broken one (bids above the private bid) fails, naming the strategy."""
    p = tmp_path / "half_bid.py"
    p.write_text(HALF_BID.replace("FACTOR = 0.5", f"FACTOR = {factor}"))
    load_plugin(p)
    report = check_family("half-bid", raise_on_failure=False)
    by_check = {r.check: r for r in report.results}
    assert list(by_check) == ["registered", "default", "bids", "round trip", "independent"]
    assert by_check["default"].status == "passed" and "'half-bid'" in by_check["default"].detail
    if factor == "0.5":
        assert report.passed
    else:
        assert not report.passed and by_check["bids"].status == "failed"
        assert (
            "half-bid:default:half-bid" in by_check["bids"].detail
            and "expected a finite bid" in by_check["bids"].detail
        )


def test_a_family_whose_entry_needs_fields_is_checked_on_the_strategies_given_only():
    report = check_family("beta-mix", raise_on_failure=False)  # its entry needs 'groups'
    assert [(r.check, r.status) for r in report.results] == [("registered", "passed"), ("bids", "skipped")]
    assert "its entry needs fields" in report.results[-1].detail and "groups" in report.results[-1].detail
