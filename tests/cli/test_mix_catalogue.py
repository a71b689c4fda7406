"""``simulate --mix`` (and ``simulate_profile(mix=...)``) names a consumer strategy as a study does: a name of the
consumer catalogue (``UNI50`` was refused while studies accepted it), a point of a parametric family, or a beta mix
written out; its help lists what is registered."""

from __future__ import annotations

import json

import pytest

from gamemarket.cli import main
from gamemarket.consumers import FAMILIES
from gamemarket.consumers.catalogue import consumer_strategy, load_consumers, parametric_families
from gamemarket.errors import InputError
from gamemarket.market.profile import simulate_profile

CATALOGUE = load_consumers()
SMALL = ["--synthetic-jobs", "120", "--nodes", "4", "--format", "json"]


def _run(capsys, mix: str) -> dict:
    assert main(["simulate", "--mix", mix, *SMALL]) == 0
    return json.loads(capsys.readouterr().out)


def _outcome(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("mix", "seconds")}


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_name_of_the_consumer_catalogue_runs_as_its_groups_written_out(capsys, name):
    mix = CATALOGUE[name]
    written = ",".join(f"{share!r}:{beta!r}" for share, beta in mix.consumer_groups())
    by_name, by_groups = _run(capsys, name), _run(capsys, written)
    assert by_name["mix"] == name and _outcome(by_name) == _outcome(by_groups)


def test_the_python_call_takes_the_same_names():
    a = simulate_profile(mix="UNI50", synthetic_jobs=120, nodes=4)
    b = simulate_profile(mix="1:0.5", synthetic_jobs=120, nodes=4)
    assert a.summary["mix"] == "UNI50" and _outcome(a.summary) == _outcome(b.summary)


def test_letter_case_aside_a_name_is_the_catalogues():
    assert consumer_strategy("uni50") == CATALOGUE["UNI50"]
    assert consumer_strategy("srg").consumer_groups() == ((0.9, 0.1), (0.1, 0.9))


def test_a_point_of_a_family_runs(capsys):
    shaded = _run(capsys, "per-class[0,0.5,0.9]")
    truthful = _run(capsys, "per-class[0,0,0]")
    assert shaded["mix"] == "per-class[0,0.5,0.9]" and shaded["revenue"] != truthful["revenue"]
    assert _outcome(truthful) == _outcome(_run(capsys, "FT"))  # no shading: the truthful bids


@pytest.mark.parametrize(
    "mix, words",
    [
        ("UNI5", ["--mix 'UNI5': unknown consumer strategy", "UNI50", "g0.1x0.9", "per-class", "'fraction:beta,...'"]),
        ("per-class[0,2,0.9]", ["--mix 'per-class[0,2,0.9]'", "'middle' must be in [0, 1), got 2.0"]),
        ("per-class[0,x,0.9]", ["--mix 'per-class[0,x,0.9]': expected 3 finite numbers"]),
        ("0.5:0.1,0.4:0.2", ["--mix '0.5:0.1,0.4:0.2'", "fractions must sum to 1"]),
        ("per-class-leave[0,0,0,0,0,0.5]", ["sends jobs to the outside option", "expected a strategy whose jobs"]),
    ],
)
def test_a_strategy_it_cannot_run_is_one_line_and_exit_2(capsys, mix, words):
    assert main(["simulate", "--mix", mix, *SMALL]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("gamemarket: error: ")
    for w in words:
        assert w in err, err


def test_the_python_call_refuses_an_unknown_name_before_the_workload_is_read(tmp_path):
    with pytest.raises(InputError, match="unknown consumer strategy"):
        simulate_profile(str(tmp_path / "no-such-trace.swf"), mix="NOPE")


def test_the_help_lists_the_catalogue_and_the_families(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, strategy in CATALOGUE.items():
        assert f"{name}: {' '.join(strategy.description.split())}" in text
    for family in parametric_families():
        assert f"{family}[{', '.join(FAMILIES.get(family).param_names)}]" in text
    assert "--mix STRATEGY" in text
