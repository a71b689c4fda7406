"""The consumers' and workloads' public entries refuse a bad argument with an InputError naming it and the value
(``tests/test_api_probe.py`` probes every one with hostile values; these are the messages), and valid calls
give what they gave."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gamemarket import bids, consumers, workloads
from gamemarket.errors import InputError
from gamemarket.workloads.model import WorkloadModel
from study_helpers import ROOT

RULE = consumers.ShadingRule("r", (0.1, 0.2, 0.3))


@pytest.fixture(scope="module")
def model():
    return WorkloadModel.read(ROOT / "models" / "lpc-egee-2004.toml")


def _draws(n=6):
    d = bids.draw(n, 3)
    return d.private_bid, d.G, d.U


# ----------------------------------------------------------------------------------------------- consumers


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: consumers.BetaMix(((1.0, 0.2),), name=None), r"beta mix: name must be a text, got None"),
        (lambda: consumers.BetaMix(((1.0, 0.2),), "m", np.array([])), r"beta mix 'm': description must be a text"),
        (lambda: consumers.ShadingRule(True, (0.1, 0.2, 0.3)), r"shading rule: name must be a text, got True"),
        (lambda: consumers.ShadingRule("r", (0.1, 0.2, 0.3), -3), r"shading rule 'r': description must be a text"),
        (lambda: consumers.PiecewiseRule({}, (60.0, 120.0), (0.1, 0.2)), r"piecewise rule: name must be a text"),
        (lambda: consumers.from_params(RULE.params(), name=math.nan), r"from_params: name must be a text, got nan"),
        (lambda: consumers.family_of(RULE.params(), where=[]), r"family_of: where .* must be a non-empty text"),
        (lambda: consumers.from_entry("r", {"betas": [0.1]}, "s.toml", "per-class", root=5), r"from_entry: root"),
        (lambda: consumers.from_entry("r", {}, np.array([]), "per-class"), r"from_entry: where"),
        (lambda: consumers.ShadingRule.from_entry(None, RULE.entry(), "s.toml"), r"from_entry: name must be a text"),
        (lambda: consumers.BetaMix.parse(-3), r"BetaMix.parse: text .* must be a non-empty text, got -3"),
    ],
)
def test_names_and_descriptions_are_texts(make, match):
    with pytest.raises(InputError, match=match):
        make()


@pytest.mark.parametrize(
    "fraction, beta, match",
    [
        (None, 0.2, r"grid_name: fraction .* must be a number, got None"),
        (math.nan, 0.2, r"grid_name: fraction .* must be a finite number, got nan"),
        (0.0, 0.2, r"grid_name: fraction .* must be > 0, got 0.0"),
        (True, 0.2, r"grid_name: fraction .* must be a number, got True"),
        (0.5, 1.0, r"grid_name: beta .* must be < 1, got 1.0"),
        (0.5, -3, r"grid_name: beta .* must be >= 0, got -3"),
        (0.5, "abc", r"grid_name: beta .* must be a number, got 'abc'"),
    ],
)
def test_grid_name_takes_a_grid_cells_numbers(fraction, beta, match):
    with pytest.raises(InputError, match=match):
        consumers.grid_name(fraction, beta)


def test_grid_name_of_valid_cells_is_unchanged():
    assert consumers.grid_name(0.5, 0.2) == "g0.5x0.2"
    assert consumers.grid_name(1, 0) == "g1x0"


@pytest.mark.parametrize("fn", [consumers.bid_bin, consumers.bid_bin_codes])
@pytest.mark.parametrize(
    "w, match",
    [
        (None, r"expected private bids \(numbers\), got None"),
        ("abc", r"expected private bids \(numbers\), got 'abc'"),
        ({}, r"expected private bids \(numbers\), got \{\}"),
        (True, r"expected private bids \(numbers\), got True"),
        (math.nan, r"a private bid is nan; expected finite bids in \[0, 1e\+09\]"),
        (-3, r"a private bid is -3.0; expected finite bids"),
        (10**30, r"a private bid is 1e\+30; expected finite bids"),
        (np.array([10.0, np.inf]), r"a private bid is inf"),
    ],
)
def test_bid_classes_refuse_what_is_no_private_bid(fn, w, match):
    with pytest.raises(InputError, match=rf"{fn.__name__}: {match}"):
        fn(w)


def test_bid_classes_of_valid_bids_are_unchanged():
    w = np.array([0, 60, 60.01, 119.9, 120, 180])
    assert consumers.bid_bin_codes(w).tolist() == [0, 0, 1, 1, 2, 2]
    assert consumers.bid_bin_codes(w).dtype == np.int8
    assert consumers.bid_bin_codes([10, 90, 150]).tolist() == [0, 1, 2]  # integers too
    assert consumers.bid_bin(w).tolist() == ["low", "low", "middle", "middle", "high", "high"]
    assert consumers.bid_bin_codes(np.array([])).size == 0  # no jobs, no classes
    assert np.array_equal(bids.unchecked_bid_bin_codes(w), consumers.bid_bin_codes(w))


def _population(**change):
    w, G, U = _draws()
    args = {"strategies": [RULE], "strategy": np.zeros(6, dtype=int), "private_bid": w, "G": G, "U": U}
    args.update(change)
    bid_class = args.pop("bid_class", None)
    return consumers.population_bids(*args.values(), bid_class=bid_class)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"strategies": None}, r"strategies must be a non-empty list of consumer strategies .*got None"),
        ({"strategies": []}, r"strategies must be a non-empty list"),
        ({"strategies": "SRG"}, r"strategies must be a non-empty list .*got 'SRG'"),
        ({"strategies": [RULE, 3]}, r"strategies\[1\] must be a consumer strategy .*got 3 \(int\)"),
        ({"strategy": None}, r"strategy must be an array of integers, one per job, got None"),
        ({"strategy": np.full(6, 0.0)}, r"strategy must be an array of integers"),
        ({"strategy": np.array([0, 0, 0, 0, 0, 1])}, r"strategy\[5\] is 1; expected values in \[0, 0\]"),
        ({"strategy": np.zeros(3, dtype=int)}, r"strategy must be a 1-D array of 6 .*got shape \(3,\)"),
        ({"private_bid": "abc"}, r"private_bid: expected private bids \(numbers\)"),
        ({"private_bid": np.full(6, -3.0)}, r"private_bid: a private bid is -3.0"),
        ({"private_bid": 5.0}, r"private_bid must be a 1-D array of private bids, got shape \(\)"),
        ({"G": None}, r"G must be an array of numbers, one per job, got None"),
        ({"G": np.full(6, 1.0)}, r"G\[0\] is 1.0; expected values in \[0, 1\)"),
        ({"U": np.full(6, np.nan)}, r"U\[0\] is nan; expected values in \[0, 1\)"),
        ({"U": True}, r"U must be an array of numbers, one per job, got True"),
        ({"bid_class": -3}, r"bid_class must be an array of integers"),
        ({"bid_class": np.full(6, 3)}, r"bid_class\[0\] is 3; expected values in \[0, 2\]"),
    ],
)
def test_population_bids_names_the_bad_argument(change, match):
    with pytest.raises(InputError, match=rf"population_bids: {match}"):
        _population(**change)


def test_population_bids_of_valid_arguments_are_unchanged():
    w, G, U = _draws(500)
    rules = [consumers.ShadingRule("a", (0.3, 0.1, 0.9)), consumers.FAMILIES.get("piecewise").point([0.2] * 7)]
    which = (np.arange(500) % 2).astype(np.int64)
    for strategies in (rules[:1] * 2, rules):
        checked = consumers.population_bids(strategies, which, w, G, U)
        unchecked = bids.unchecked_population_bids(strategies, which, w, G, U)
        assert np.array_equal(checked, unchecked)
        codes = consumers.bid_bin_codes(w)
        assert np.array_equal(consumers.population_bids(strategies, which, w, G, U, bid_class=codes), checked)
    assert consumers.population_bids([RULE], [], [], [], []).size == 0  # no jobs


def test_a_beta_mixs_groups_and_a_piecewise_rules_betas_refuse_bad_draws_and_bids():
    mix = consumers.SRG
    with pytest.raises(InputError, match=r"beta mix 'SRG': assign: a group draw G is nan; expected draws in \[0, 1\)"):
        mix.assign(np.array([0.5, np.nan]))
    with pytest.raises(InputError, match=r"beta mix 'SRG': assign: G must be group draws .*got"):
        mix.assign("abc")
    assert mix.assign(np.array([0.0, 0.89, 0.9, 0.999])).tolist() == [0, 0, 1, 1]
    rule = consumers.FAMILIES.get("piecewise").point([0.2] * 7, name="p")
    with pytest.raises(InputError, match=r"piecewise rule 'p': beta: private_bid: a private bid is -3.0"):
        rule.beta(-3)
    assert rule.beta(np.array([0.0, 90.0])).tolist() == [0.2, 0.2]


# ----------------------------------------------------------------------------------------------- workloads


def _table():
    return pd.DataFrame({"id": [0, 1], "submit": [0, 5], "runtime": [10, 20], "estimate": [60, 60]})


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda: workloads.Workload(None),
            r"Workload: jobs must be a pandas DataFrame of jobs .*got None \(NoneType\)",
        ),
        (lambda: workloads.Workload([]), r"Workload: jobs must be a pandas DataFrame"),
        (lambda: workloads.Workload(_table(), meta=None), r"Workload: meta must be a dict of metadata"),
        (lambda: workloads.Workload(_table(), meta="abc"), r"Workload: meta must be a dict .*got 'abc' \(str\)"),
        (lambda: workloads.Workload(_table()).offered_load(True), r"offered_load: nodes must be a whole number"),
        (lambda: workloads.Workload(_table()).nodes(10**30), r"nodes must be a whole number from 1 to 10,000,000"),
    ],
)
def test_a_workload_is_a_table_and_a_dict(make, match):
    with pytest.raises(InputError, match=match):
        make()


def test_a_valid_workload_is_unchanged():
    w = workloads.Workload(_table(), {"nodes": 2})
    assert len(w) == 2 and w.nodes() == 2 and w.offered_load(2) == pytest.approx(30 / (2 * 5))


@pytest.mark.parametrize(
    "processors, reduction, match",
    [
        (128, None, r"reduction \(the share of the processors left out\) must be a number, got None"),
        (128, "abc", r"reduction .* must be a number, got 'abc'"),
        (128, np.array([]), r"reduction .* must be a number"),
        (128, math.nan, r"reduction .* must be a finite number, got nan"),
        (128, 4.0, r"reduction must be in \[0, 1\), got 4.0"),
        (True, 0.25, r"nodes_from_processors: processors must be a whole number >= 1, got True"),
        (2.5, 0.25, r"nodes_from_processors: processors must be a whole number >= 1, got 2.5"),
        (10**30, 0.25, r"nodes_from_processors: processors must be at most 10,000,000"),
    ],
)
def test_nodes_from_processors_names_the_bad_argument(processors, reduction, match):
    with pytest.raises(InputError, match=match):
        workloads.nodes_from_processors(processors, reduction)


def test_nodes_from_processors_of_valid_arguments_is_unchanged():
    assert workloads.nodes_from_processors(128, 0.25) == 96
    assert workloads.nodes_from_processors(100, 0) == 100


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"jobs": 10**30}, r"synthetic workload: jobs must be at most 2\^63 - 1, got 1000000000000"),
        ({"nodes": 10**30}, r"synthetic workload: nodes must be at most 10,000,000"),
        ({"load": 10**30}, r"synthetic workload: load must be at most 1e6"),
        ({"runtime_median": 10**30}, r"synthetic workload: runtime_median must be at most 2\^53 seconds"),
        ({"runtime_sigma": 10**30}, r"synthetic workload: runtime_sigma must be at most 100"),
        ({"batch_mean": 10**30}, r"synthetic workload: batch_mean must be at most 1e6"),
        ({"seed": 10**30}, r"synthetic workload: seed must be at most 2\^63 - 1"),
    ],
)
def test_synthetic_parameters_are_in_range(kw, match):
    with pytest.raises(InputError, match=match):
        workloads.SyntheticSpec(**{"jobs": 40, "nodes": 2, **kw})


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: workloads.generate("abc"), r"generate: spec must be a SyntheticSpec .*got 'abc' \(str\)"),
        (lambda: workloads.generate(workloads.SyntheticSpec(40, 2), jobs=3), r"give a spec or keyword parameters"),
        (lambda: workloads.synthetic_spec(None), r"\[workload.synthetic\]: expected a table .*got None"),
        (lambda: workloads.synthetic_spec({"jobs": 40}, where=3), r"synthetic_spec: where .* must be a non-empty text"),
        (lambda: workloads.SyntheticSpec.from_dict(-3), r"synthetic: expected a table .*got -3"),
        (lambda: workloads.SyntheticSpec.from_dict({}, where=None), r"SyntheticSpec.from_dict: where"),
        (lambda: workloads.load("synthetic", parallel=None), r"load: parallel must be one of \['split', 'drop'\]"),
        (lambda: workloads.load("synthetic", skip_bad_lines="no"), r"load: skip_bad_lines must be True or False"),
        (lambda: workloads.load("synthetic", model=[]), r"load: model must be a workload model file's path"),
        (lambda: workloads.read_swf("x.swf", parallel=np.array([])), r"x.swf: parallel mode must be one of"),
        (lambda: workloads.read_swf("x.swf", skip_bad_lines=None), r"x.swf: skip_bad_lines must be True or False"),
    ],
)
def test_the_generators_and_readers_name_the_bad_argument(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_valid_synthetic_calls_are_unchanged():
    a = workloads.generate(workloads.SyntheticSpec(40, 2, seed=3))
    b = workloads.load("synthetic", jobs=40, nodes=2, seed=3)
    c = workloads.generate(workloads.synthetic_spec({"jobs": 40, "nodes": 2, "seed": 3}))
    assert a.jobs.equals(b.jobs) and a.jobs.equals(c.jobs)
    assert workloads.synthetic_spec({}) == workloads.SyntheticSpec()  # an empty table: the defaults


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: workloads.generate_from_model(None), r"generate_from_model: model must be a WorkloadModel"),
        (lambda m: workloads.generate_from_model({}), r"generate_from_model: model must be a WorkloadModel"),
        (lambda m: workloads.generate_from_model(m, jobs=True), r"workload model: jobs must be an integer >= 1"),
        (lambda m: workloads.generate_from_model(m, nodes=10**30), r"nodes must be an integer from 1 to 10,000,000"),
        (lambda m: workloads.generate_from_model(m, load=True), r"workload model: load must be > 0 and at most 1e"),
        (lambda m: workloads.generate_from_model(m, load=10**30), r"workload model: load must be > 0 and at most"),
        (lambda m: workloads.generate_from_model(m, seed=10**30), r"seed must be an integer from 0 to 2\^63 - 1"),
        (lambda m: m.save(3), r"WorkloadModel.save: path must be a path .*got 3"),
        (lambda m: WorkloadModel.read(None), r"WorkloadModel.read: path must be a path .*got None"),
        (lambda m: WorkloadModel.from_dict({}, where=[]), r"WorkloadModel.from_dict: where"),
    ],
)
def test_model_draws_name_the_bad_argument(model, call, match):
    with pytest.raises(InputError, match=match):
        call(model)


@pytest.mark.parametrize(
    "field, value, match",
    [
        ("jobs", 10**30, r"\[defaults\] field 'jobs': expected an integer >= 1 and <= 1,000,000,000"),
        ("nodes", 10**30, r"\[defaults\] field 'nodes': expected an integer >= 1 and <= 10,000,000"),
        ("load", True, r"\[defaults\] field 'load': expected a number > 0 and <= 1e\+06, got True"),
        ("threshold", 10**30, r"\[campaigns\] field 'threshold': expected seconds > 0 and <= 1e\+07"),
        ("size_quantiles", "abc", r"\[campaigns\] field 'size_quantiles': expected a list of numbers, got 'abc'"),
        ("hour_of_week", {}, r"\[arrivals\] field 'hour_of_week': expected a list of numbers, got \{\}"),
        ("user_shares", object(), r"\[campaigns\] field 'user_shares': expected a list of numbers"),
        ("user_share", True, r"\[runtime\] field 'user_share': expected a number in \[0, 1\), got True"),
        ("source", None, r"workload model: source .* must be a text, got None"),
        ("notes", [], r"workload model: notes must be a dict"),
    ],
)
def test_a_workload_models_fields_are_named(model, field, value, match):
    import dataclasses

    with pytest.raises(InputError, match=match):
        dataclasses.replace(model, **{field: value})


def test_a_valid_model_draw_is_unchanged(model):
    a = workloads.generate_from_model(model, jobs=300, nodes=4, seed=2)
    b = workloads.generate_from_model(model, jobs=300, nodes=4, seed=2)
    assert len(a) == 300 and a.jobs.equals(b.jobs) and a.meta["nodes"] == 4
