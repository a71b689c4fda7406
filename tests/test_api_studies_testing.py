"""The studies' and the conformance kit's public entries answer a bad argument with an InputError naming it (the
probe of ``tests/test_api_probe.py``), and still answer valid calls as before."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from gamemarket import consumers, testing
from gamemarket.errors import InputError
from gamemarket.studies import GameDef, StudySpec, load_study, run_study

STUDY = (
    'name = "tiny"\n[workload]\nsource = "synthetic"\nnodes = 2\n[workload.synthetic]\njobs = 40\n'
    '[strategies]\nproviders = ["hb-kth"]\nconsumers = ["FT"]\n[replications]\ncount = 1\n'
)


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(STUDY)
    return load_study(path, results=tmp_path / "results", report=tmp_path / "reports")


def _fields(spec) -> dict:
    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}


# ---------------------------------------------------------------------------------------------------------------
# studies


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"provider": "abc"}, r"game 'g': provider must be one of \['revenue'"),
        ({"consumer": "abc"}, r"game 'g': consumer must be one of \['mean_utility'"),
        ({"consumer": None}, "consumer must be a non-empty text, got None"),
    ],
)
def test_a_game_names_a_known_payoff(kwargs, msg):
    with pytest.raises(InputError, match=msg):
        GameDef("g", **kwargs)
    assert GameDef("g", "welfare", "mean_utility_SHORT").consumer == "mean_utility_SHORT"


@pytest.mark.parametrize(
    "field, value, msg",
    [
        ("name", None, r"study None: field 'name': expected a non-empty text, got None"),
        ("path", 5, r"field 'path': expected the study file's path \(a Path or a text\), or None, got 5 \(int\)"),
        ("path", [], r"field 'path': expected .*, got \[\] \(list\)"),
        ("seeds", None, r"field 'seeds': expected a list of whole numbers >= 0 \(int\), got None"),
        ("seeds", [True], r"field 'seeds': expected a list of whole numbers"),
        (
            "seeds",
            [np.int64(3)],
            r"field 'seeds': expected a list of whole numbers >= 0 \(int\), got \[3\] \(list\)",
        ),
        ("games", [], r"field 'games': expected a non-empty list of GameDef, got \[\]"),
        ("games", "abc", r"field 'games': expected a non-empty list of GameDef, got 'abc'"),
        ("bids", None, r"field 'bids': expected a BidDistribution"),
        ("results_dir", None, r"field 'results_dir': expected a folder's path"),
        ("report_dir", math.nan, r"field 'report_dir': expected a folder's path .*, got nan \(float\)"),
        ("description", None, r"field 'description': expected a text, got None"),
        ("notes", [], r"field 'notes': expected a text, got \[\]"),
        ("companions", "abc", r"field 'companions': expected a list of study files' paths"),
        ("companions", None, r"field 'companions': expected a list"),
        ("gains", "abc", r"field 'gains': expected the \[gains\] table \(a dict\), or None"),
        ("population", {}, r"field 'population': expected a PopulationConfig, or None, got \{\} \(dict\)"),
        ("aliases", None, r"field 'aliases': expected a dict of consumer names"),
        ("aliases", {"a": 1}, r"field 'aliases': expected a dict"),
        ("paper", [], r"field 'paper': expected the \[paper\] table"),
        ("population_study", "abc", r"field 'population_study': expected a study file's path \(a Path\), or None"),
        ("plugins", None, r"field 'plugins': expected a list of loaded Plugin"),
        ("exploration", True, r"field 'exploration': expected the \[game.exploration\] table"),
        ("design", "abc", r"field 'design': expected a DesignConfig, or None"),
        ("folders_given", None, r"field 'folders_given': expected a tuple of two bools"),
        ("folders_given", (1, 0), r"field 'folders_given': expected a tuple of two bools"),
    ],
)
def test_a_spec_built_in_python_names_a_field_of_the_wrong_kind(spec, field, value, msg):
    with pytest.raises(InputError, match=msg) as e:
        StudySpec(**{**_fields(spec), field: value})
    assert str(e.value).startswith("study ")


def test_a_spec_takes_paths_as_text_and_loads_as_before(spec, tmp_path):
    again = StudySpec(
        **{**_fields(spec), "path": str(spec.path), "results_dir": str(tmp_path / "r"), "report_dir": "reports"}
    )
    assert again.path == spec.path and again.results_dir == tmp_path / "r" and again.report_dir == Path("reports")
    assert isinstance(spec.path, Path) and spec.games and spec.folders_given == (True, True)
    assert StudySpec(**{**_fields(spec), "path": None, "seeds": (0, 3)}).seeds == (0, 3)
    assert spec.to_dict(str(tmp_path))["name"] == "tiny"


@pytest.mark.parametrize(
    "method, value, msg",
    [
        ("to_dict", 5, r"StudySpec.to_dict: base .* must be a path \(a text or a Path\), or None, got 5"),
        ("to_dict", [], r"StudySpec.to_dict: base"),
        ("to_toml", True, r"StudySpec.to_toml: path must be a path .*, got True"),
        ("to_toml", " ", r"StudySpec.to_toml: path must be a path"),
    ],
)
def test_a_spec_writes_to_a_path_only(spec, method, value, msg):
    with pytest.raises(InputError, match=msg):
        getattr(spec, method)(value)


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"n_jobs": None}, r"run_study: n_jobs must be a number of worker processes from 1 to 1024, or -1 .*None"),
        ({"n_jobs": 0}, "run_study: n_jobs must be"),
        ({"n_jobs": 10**30}, "run_study: n_jobs must be"),
        ({"n_jobs": True}, "run_study: n_jobs must be"),
        ({"progress": None}, "run_study: progress must be True or False, got None"),
        ({"force": "yes"}, "run_study: force must be True or False, got 'yes'"),
        ({"store": "abc"}, r"run_study: store must be a ResultStore \(or None: the study's own\), got 'abc' \(str\)"),
        ({"store": []}, "run_study: store must be a ResultStore"),
    ],
)
def test_run_study_checks_its_options_before_running(spec, kwargs, msg):
    with pytest.raises(InputError, match=msg):
        run_study(spec, **kwargs)
    assert not (spec.results_dir / "last-run.json").exists()


# ---------------------------------------------------------------------------------------------------------------
# testing


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: testing.random_cases(None), r"random_cases: count must be a whole number from 1 to 100,000, got None"),
        (lambda: testing.random_cases(0), "random_cases: count must be"),
        (lambda: testing.random_cases(10**30), r"random_cases: count must be .*, got 1000000000000000000000000000000"),
        (lambda: testing.random_cases(2, True), r"random_cases: seed must be a whole number from 0 to 2\*\*63 - 1"),
        (lambda: testing.random_cases(2, -3), "random_cases: seed must be"),
        (lambda: testing.random_cases(2, 2**63), "random_cases: seed must be"),
        (lambda: testing.preemption_candidates(-3), "preemption_candidates: count must be"),
        (lambda: testing.preemption_candidates(2, []), r"preemption_candidates: seed must be .*, got \[\]"),
        (lambda: testing.one_job_cases("abc"), "one_job_cases: seed must be .*, got 'abc'"),
        (lambda: testing.tie_cases(math.nan), "tie_cases: seed must be .*, got nan"),
    ],
)
def test_the_case_generators_check_count_and_seed(call, msg):
    with pytest.raises(InputError, match=msg):
        call()


def test_the_case_generators_give_the_same_cases_as_before():
    a, b = testing.random_cases(3, np.int64(5)), testing.random_cases(3, 5)
    assert [c.label for c in a] == [c.label for c in b] == [f"random case {k} (seed 5)" for k in range(3)]
    assert all(x.table.equals(y.table) for x, y in zip(a, b))
    assert len(testing.preemption_candidates(4, 1)) == 4 and len(testing.tie_cases(2)) == 4


def _case():
    return testing.random_cases(1, seed=3)[0]


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        ({"jobs": None}, r"reference_run: jobs must be a job table \(a DataFrame\) or a list of mappings"),
        ({"jobs": "abc"}, "reference_run: jobs must be"),
        ({"jobs": {}}, "reference_run: jobs must be"),
        ({"jobs": np.array([])}, "reference_run: jobs must be"),
        ({"jobs": [{"id": 0}]}, r"reference_run: jobs\[0\]: missing field 'submit'"),
        ({"n": None}, r"reference_run: n \(the number of nodes\) must be a whole number >= 1, got None"),
        ({"n": 2.0}, "reference_run: n"),
        ({"n": 10**30}, r"reference_run: n \(the number of nodes\) must be <= 2\*\*63 - 1"),
        ({"scheduler": None}, "reference_run: scheduler must be a non-empty text, got None"),
        ({"payment": np.array([])}, "reference_run: payment must be a non-empty text"),
        ({"reserve": math.nan}, "reference_run: reserve must be a finite number, got nan"),
        ({"reserve": -3}, "reference_run: reserve must be >= 0, got -3"),
        ({"record": "yes"}, "reference_run: record must be True or False"),
        ({"blend": True}, "reference_run: blend must be a number, got True"),
        ({"blend": 0.5}, r"reference_run: blend \(0.5\) applies to payment 'blend' only, not 'kth'"),
    ],
)
def test_reference_run_names_a_bad_argument(kwargs, msg):
    args = {"jobs": _case().jobs(), "n": 2, **kwargs}
    with pytest.raises(InputError, match=msg):
        testing.reference_run(**args)


def test_reference_run_checks_each_job():
    jobs = _case().jobs()
    with pytest.raises(InputError, match=r"jobs\[1\]: field 'runtime' must be a number, got True"):
        testing.reference_run([jobs[0], {**jobs[1], "runtime": True}], 2)
    with pytest.raises(InputError, match=r"jobs\[0\]: expected a run time > 0"):
        testing.reference_run([{**jobs[0], "runtime": -3}], 2)
    with pytest.raises(InputError, match="two jobs have the same id"):
        testing.reference_run([jobs[0], jobs[0]], 2)
    with pytest.raises(InputError, match=r"jobs: missing column\(s\) \['runtime'\]"):
        testing.reference_run(_case().table.drop(columns="runtime"), 2)


def test_reference_run_takes_a_job_table_or_its_records():
    case = _case()
    want = testing.reference_run(case.jobs(), case.nodes, "hb", "kth", case.reserve)
    assert testing.reference_run(case.table, case.nodes, "hb", "kth", case.reserve) == want
    assert set(want) == set(case.table["id"])
    assert testing.reference_run([], 2) == {}  # no job: no outcome (a population where every job left)


@pytest.mark.parametrize(
    "args, msg",
    [
        (("hb", None), "key_fn: job must be a mapping of a job's fields, got None"),
        (("hb", {}), r"key_fn: job: missing field 'reported_bid'; expected the fields \['reported_bid', 'submit'"),
        (("hb", {"reported_bid": "1", "submit": 0, "id": 0}), "key_fn: job: field 'reported_bid' must be a number"),
        ((None, {"reported_bid": 1.0, "submit": 0, "id": 0}), "key_fn: scheduler must be a non-empty text"),
    ],
)
def test_key_fn_names_a_bad_argument(args, msg):
    with pytest.raises(InputError, match=msg):
        testing.key_fn(*args)


def test_key_fn_answers_as_before():
    assert testing.key_fn("wspt", {"reported_bid": 6.0, "runtime": 3, "submit": 1, "id": 4}) == (-2.0, 1, 4)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: testing.compare_with_reference(None, "hb", "kth"), r"compare_with_reference: case must be a .*Case"),
        (lambda: testing.compare_with_reference(_case(), "hb", np.array([])), "compare_with_reference: payment must"),
        (lambda: testing.check_scheduler("hb", payments=[]), "check_scheduler: payments must be a non-empty list"),
        (lambda: testing.check_scheduler("hb", payments={}), "check_scheduler: payments must be"),
        (lambda: testing.check_scheduler("hb", payments=-3), "check_scheduler: payments must be"),
        (lambda: testing.check_scheduler("hb", cases=None), "check_scheduler: cases must be a whole number from 1"),
        (lambda: testing.check_scheduler("hb", cases=10**30), "check_scheduler: cases must be"),
        (lambda: testing.check_scheduler("hb", seed=10**30), r"check_scheduler: seed must be .* 2\*\*63 - 1"),
        (lambda: testing.check_payment("kth", schedulers=[]), "check_payment: schedulers must be a non-empty list"),
        (lambda: testing.check_provider(None), "check_provider: name must be a non-empty text"),
        (lambda: testing.check_event_scheduler(None), "check_event_scheduler: scheduler must be a registered"),
        (lambda: testing.check_event_scheduler("hb", payments=None), "check_event_scheduler: payments must be"),
        (lambda: testing.check_family("per-class", strategies=None), "check_family: strategies must be a list"),
        (lambda: testing.check_family("per-class", strategies={}), "check_family: strategies must be a list"),
        (lambda: testing.check_family("per-class", seed=10**30), "check_family: seed must be"),
        (lambda: testing.check_family(None), "check_family: name must be a non-empty text"),
    ],
)
def test_the_checks_name_a_bad_option(call, msg):
    with pytest.raises(InputError, match=msg):
        call()


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: testing.check_bids(None), r"check_bids: s must be a ConsumerStrategy, got None \(NoneType\)"),
        (lambda: testing.check_round_trip("FT"), "check_round_trip: s must be a ConsumerStrategy, got 'FT'"),
        (lambda: testing.check_independent({}), "check_independent: s must be a ConsumerStrategy"),
        (
            lambda: testing.check_box("per-class"),
            r"check_box: fam must be a ParametricFamily, .*FAMILIES\['per-class'\]",
        ),
        (lambda: testing.family_points(None), "family_points: family must be a ParametricFamily"),
        (lambda: testing.family_defaults(3), "family_defaults: family must be a consumer-strategy Family"),
        (lambda: testing.family_draws(None), r"family_draws: n must be a whole number from 1 to 10,000,000, got None"),
        (lambda: testing.family_draws(True), "family_draws: n must be"),
        (lambda: testing.family_draws(10**30), "family_draws: n must be"),
        (lambda: testing.family_draws(40, 10**30), "family_draws: seed must be"),
        (lambda: testing.family_points(consumers.FAMILIES["per-class"], None), "family_points: seed must be"),
    ],
)
def test_the_family_checks_name_a_bad_argument(call, msg):
    with pytest.raises(InputError, match=msg):
        call()


def test_the_family_checks_answer_valid_calls():
    fam = consumers.FAMILIES["per-class"]
    rule = consumers.ShadingRule("r", (0.1, 0.2, 0.3))
    assert set(testing.family_points(fam)) == {"low", "high", "random"}
    assert len(testing.family_draws(40, 3)[0]) == 44
    assert testing.check_bids(rule) and testing.check_round_trip(rule) and testing.check_independent(rule)
    assert testing.check_box(fam).startswith("3 parameter(s)")
    assert testing.check_family("per-class", strategies=[]).passed
    assert testing.compare_with_reference(_case(), "hb", "kth") is None
