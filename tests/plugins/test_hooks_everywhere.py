"""An event-hook scheduler is usable wherever a scheduler is: ``simulate`` (the Python API and the CLI's
``--plugin F --scheduler NAME``), a provider strategy, bimatrix and population studies (1 and 2 processes, dask);
HB written as hooks gives the built-in engine's numbers bit for bit through each; a hook that raises or breaks an
invariant is an error naming the plugin, the function, the job and the value (exit 2, nothing stored)."""

import json
import re
import shutil
from pathlib import Path

import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.market import SCHEDULERS, Mechanism, simulate, simulate_many
from gamemarket.plugins import PROVIDERS, key_fields, load_plugin
from gamemarket.studies import load_study
from gamemarket.studies.runner import run_study
from gamemarket.testing import random_cases
from study_helpers import sorted_metrics, write_study

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"
HB_HOOKS = EXAMPLES / "highest_bid_hooks.py"

STUDY = """
name = "hooks-study"
[plugins]
modules = ["mechanisms/highest_bid_hooks.py", "mechanisms/lowest_running.py", "mechanisms/providers.py"]
[workload]
source = "synthetic"
nodes = 6
[workload.synthetic]
jobs = 120
load = 1.2
seed = 3
[strategies]
providers = ["hb-kth", "hbh-kth", "hb-lowest", "hbh-lowest"]
consumers = ["FT", "SRG"]
[replications]
count = 2
"""

PROVIDERS_PLUGIN = """
from gamemarket.plugins import register_provider
register_provider("hbh-kth", "hb-hooks", "kth")
register_provider("hb-lowest", "hb", "lowest-running")
register_provider("hbh-lowest", "hb-hooks", "lowest-running")
"""


def _same_jobs(a, b) -> None:
    assert list(a.columns) == list(b.columns)
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        assert x.dtype == y.dtype and (x.tobytes() == y.tobytes() if x.dtype != object else list(x) == list(y)), c


@pytest.mark.slow
@pytest.mark.parametrize("payment", ["first", "kth", "lowest-running"])
def test_hb_as_hooks_through_simulate_is_the_engine_bit_for_bit(payment):
    load_plugin(HB_HOOKS)
    load_plugin(EXAMPLES / "lowest_running.py")
    assert SCHEDULERS.get("hb-hooks").hooks is not None and SCHEDULERS.get("hb-hooks").source.endswith(
        load_plugin(HB_HOOKS).digest
    )
    for case in random_cases(10, seed=7):
        got = simulate(case.table, case.nodes, Mechanism("hb-hooks", payment, case.reserve))
        want = simulate(case.table, case.nodes, Mechanism("hb", payment, case.reserve))
        _same_jobs(got.jobs, want.jobs)
        assert json.dumps(got.summary) == json.dumps(want.summary), case.describe()
    # several payment schemes and reserves in one pass of the hooks' loop: each as its own run
    case = random_cases(3, seed=2)[-1]
    mechs = [Mechanism("hb-hooks", p, r) for p in ("first", "kth", payment) for r in (0.0, 2.0)]
    for m, res in zip(mechs, simulate_many(case.table, case.nodes, mechs)):
        _same_jobs(res.jobs, simulate(case.table, case.nodes, Mechanism("hb", m.payment, m.reserve)).jobs)


def test_simulate_cli_takes_an_event_scheduler_from_a_plugin(tmp_path, capsys):
    base = [
        "simulate",
        "--synthetic-jobs",
        "300",
        "--nodes",
        "4",
        "--load",
        "1.2",
        "--payment",
        "kth",
        "--format",
        "json",
    ]
    assert (
        main([*base, "--plugin", str(HB_HOOKS), "--scheduler", "hb-hooks", "--jobs-out", str(tmp_path / "t.csv")]) == 0
    )
    hooks = _summary(capsys)
    assert main([*base, "--scheduler", "hb"]) == 0
    builtin = _summary(capsys)
    assert hooks == builtin and hooks["preemptions"] > 0
    # a job table in, the per-job outcome streamed to a file (simulate_to_file), as the built-in writes it
    outs = {}
    for sched in ("hb-hooks", "hb"):
        out = tmp_path / f"{sched}.csv"
        args = ["simulate", "--job-table", str(tmp_path / "t.csv"), "--nodes", "4", "--scheduler", sched]
        assert main([*args, "--plugin", str(HB_HOOKS), "--out", str(out), "--format", "json"]) == 0
        outs[sched] = (_summary(capsys), out.read_bytes())
    assert outs["hb-hooks"] == outs["hb"]


def _summary(capsys) -> dict:
    """The printed summary, without the scheduler's name and the time taken."""
    out = json.loads(capsys.readouterr().out)
    return {k: v for k, v in out.items() if k not in ("scheduler", "seconds")}


def test_an_unknown_scheduler_without_the_plugin_is_exit_2(capsys):
    assert main(["simulate", "--synthetic-jobs", "50", "--scheduler", "hb-hooks"]) == 2
    assert "unknown scheduler 'hb-hooks'" in capsys.readouterr().err


@pytest.fixture
def hooks_study(tmp_path) -> Path:
    path = write_study(tmp_path, STUDY)
    (path.parent / "mechanisms").mkdir()
    for f in ("highest_bid_hooks.py", "lowest_running.py"):
        shutil.copy(EXAMPLES / f, path.parent / "mechanisms" / f)
    (path.parent / "mechanisms" / "providers.py").write_text(PROVIDERS_PLUGIN)
    return path


@pytest.mark.slow
def test_a_bimatrix_study_of_hb_as_hooks_stores_the_engines_numbers_with_one_and_two_processes(hooks_study, tmp_path):
    one = load_study(hooks_study, results=tmp_path / "r1")
    two = load_study(hooks_study, results=tmp_path / "r2")
    assert run_study(one, n_jobs=1, progress=False).run == 16
    assert run_study(two, n_jobs=2, progress=False).run == 16
    a, b = sorted_metrics(one), sorted_metrics(two)
    assert a.equals(b)
    assert PROVIDERS.get("hbh-kth").scheduler == "hb-hooks"
    assert key_fields({"scheduler": "hb-hooks", "payment": "kth"}) == {"plugins": [load_plugin(HB_HOOKS).digest]}
    numbers = [c for c in a.columns if c not in ("provider", "key")]
    for hooks, builtin in (("hbh-kth", "hb-kth"), ("hbh-lowest", "hb-lowest")):
        x = a[a["provider"] == hooks][numbers].reset_index(drop=True)
        y = a[a["provider"] == builtin][numbers].reset_index(drop=True)
        assert len(x) == 4 and x.equals(y), hooks
    assert run_study(one, n_jobs=1, progress=False).run == 0  # stored: nothing reruns


@pytest.mark.slow
def test_a_population_study_of_hb_as_hooks_on_dask_stores_the_local_numbers(hooks_study, tmp_path):
    from dask.distributed import LocalCluster  # deferred: the test extra's

    from gamemarket.search.population import run_population_study

    body = hooks_study.read_text().replace('consumers = ["FT", "SRG"]\n', "")
    body = body.replace('providers = ["hb-kth", "hbh-kth", "hb-lowest", "hbh-lowest"]', 'providers = ["hbh-kth"]')
    body += '[game]\nkind = "population"\nstrategies = ["truthful", "shade-0.5"]\nreduced_players = 2\nprobe = 0.01\n'
    spec = load_study(write_study(tmp_path, body.replace("jobs = 120", "jobs = 80"), "pop.toml"))
    records = {}
    for name in ("local", "dask"):
        spec.results_dir = tmp_path / name
        if name == "local":
            run_population_study(spec, n_jobs=1)
        else:
            with LocalCluster(
                n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True, dashboard_address=None
            ) as c:
                run_population_study(spec, scheduler_address=c.scheduler_address)
        records[name] = {}
        for f in sorted((tmp_path / name / "population").glob("*.json")):
            rec = json.loads(f.read_text())
            rec.pop("chunk_seconds")
            rec.pop("sha256", None)  # (the digest covers the wall time)
            records[name][f.name] = rec
    assert records["local"] and records["local"] == records["dask"]


#: hooks that break the market's rules, each named in the error with the plugin, the function, the job, the value
BAD = {
    "raises": (
        "    def on_arrival(self, t, job, state):\n        if job['id'] == 3:\n            raise KeyError('oops')\n",
        r"event scheduler 'bad' \(plugin .*bad.py@\w+\): on_arrival raised KeyError: 'oops' at t=\d+ for job id 3",
    ),
    "too many": (
        "    def pick(self, state):\n        return list(state.waiting | state.running)\n",
        r"event scheduler 'bad' \(plugin .*bad.py@\w+\): allocate at t=\d+ chose \d+ jobs; expected at most 2 of",
    ),
    "not waiting": (
        "    def pick(self, state):\n        return [max(state.jobs)]\n",
        r"'bad' \(plugin .*bad.py@\w+\): allocate at t=\d+ chose job id \d+, which is neither waiting nor running",
    ),
    "nan": (
        "    def pick(self, state):\n        return [float('nan')]\n",
        r"'bad' \(plugin .*bad.py@\w+\): allocate at t=\d+ returned nan \(float\); expected the ids \(integers\)",
    ),
}

BAD_PLUGIN = """
from gamemarket.market.hooks import EventScheduler, register_event_scheduler
from gamemarket.plugins import register_provider
class Bad(EventScheduler):
    name = "bad"
    description = "breaks a rule"
    def pick(self, state):
        return sorted(state.waiting | state.running)[: state.nodes]
    def allocate(self, t, state):
        return self.pick(state)
{body}
register_event_scheduler(Bad())
register_provider("bad-kth", "bad", "kth")
"""


@pytest.mark.parametrize("what", sorted(BAD))
def test_a_bad_hook_is_exit_2_naming_it_through_simulate_and_a_study_and_nothing_is_stored(what, tmp_path, capsys):
    body, match = BAD[what]
    path = write_study(tmp_path, STUDY)
    plugin = path.parent / "bad.py"
    plugin.write_text(BAD_PLUGIN.replace("{body}", body))
    assert (
        main(["simulate", "--plugin", str(plugin), "--scheduler", "bad", "--synthetic-jobs", "40", "--nodes", "2"]) == 2
    )
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert re.search(match, err), err
    body = STUDY.replace(
        'modules = ["mechanisms/highest_bid_hooks.py", "mechanisms/lowest_running.py", "mechanisms/providers.py"]',
        'modules = ["bad.py"]',
    )
    study = write_study(
        tmp_path,
        body.replace('"hb-kth", "hbh-kth", "hb-lowest", "hbh-lowest"', '"bad-kth"').replace("nodes = 6", "nodes = 2"),
        "bad.toml",
    )
    assert main(["study", "run", str(study), "--n-jobs", "1", "--no-report", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert re.search(match, err), err
    stored = [f for f in (study.parent / "results").rglob("*") if f.is_file() and not f.name.startswith(".")]
    assert stored == []  # no run's record (the store's own manifest aside)


def test_an_event_scheduler_name_is_one_schedulers(tmp_path):
    p = tmp_path / "taken.py"
    p.write_text(
        "from gamemarket.market.hooks import EventScheduler, register_event_scheduler\n"
        "class H(EventScheduler):\n    name = 'hb'\n    description = 'takes a built-in name'\n"
        "    def allocate(self, t, state):\n        return []\n"
        "register_event_scheduler(H())\n"
    )
    with pytest.raises(InputError, match=rf"plugin {p.resolve()}: scheduler 'hb' is already registered"):
        load_plugin(p)
    assert SCHEDULERS.get("hb").hooks is None
