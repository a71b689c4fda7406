"""The answers' types (``gamemarket.io.answers``, ``gamemarket.io.explored``): each reads back what it writes, and the
committed reports' ``data/population.json`` and ``data/exploration.json`` read back to the same JSON, byte for byte."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.io.answers import (
    Interval,
    JointAnswer,
    JointEquilibrium,
    MechanismAnswer,
    PopulationAnalysis,
    PopulationMeta,
    ProviderChoice,
    RankedMechanism,
    RunAccounting,
    SimultaneousChoice,
    VerifiedEquilibrium,
)
from gamemarket.io.explored import ExplorationAnswer
from gamemarket.io.files import dumps_json

REPORTS = Path(__file__).resolve().parents[2] / "reports"

names = st.text("abcdefgh-.$", min_size=1, max_size=8)
reals = st.floats(allow_nan=False, allow_infinity=False, width=64)
shares = st.dictionaries(names, st.floats(0, 1), min_size=1, max_size=3)
intervals = st.builds(Interval, reals, reals, reals)
verdicts = st.sampled_from(["yes", "no", "undecided"])
mixes = st.lists(st.floats(0, 1), min_size=1, max_size=4).map(tuple)

equilibria = st.builds(
    VerifiedEquilibrium,
    shares,
    mixes,
    reals,
    st.sampled_from(["stable", "unstable"]),
    verdicts,
    reals,
    reals,
    intervals,
    st.dictionaries(names, reals, max_size=3),
    intervals,
    intervals,
    reals,
    st.integers(1, 40),
)
answers = st.builds(
    MechanismAnswer,
    names,
    st.none(),
    st.lists(st.integers(0, 99), min_size=1, max_size=5).map(tuple),
    st.lists(equilibria, max_size=2).map(tuple),
    st.dictionaries(names, intervals, max_size=3),
    verdicts,
    st.lists(st.text(max_size=10), max_size=2).map(tuple),
    st.dictionaries(st.sampled_from(["supports", "starts", "roots"]), st.integers(0, 9)),
)
joints = st.builds(
    JointAnswer,
    st.none(),
    st.lists(
        st.builds(
            JointEquilibrium,
            shares,
            shares,
            mixes,
            reals,
            st.sampled_from(["stable", "unstable"]),
            verdicts,
            intervals,
            intervals,
            st.dictionaries(names, reals, max_size=2),
            reals,
            st.integers(1, 9),
        ),
        max_size=2,
    ).map(tuple),
    st.none() | names,
    st.lists(st.text(max_size=8), max_size=1).map(tuple),
    st.just({}),
    st.lists(mixes, max_size=3).map(tuple),
    st.lists(mixes, max_size=2).map(tuple),
)
choices = st.builds(
    ProviderChoice,
    st.none() | names,
    st.lists(st.builds(RankedMechanism, names, st.integers(1, 3), reals, reals), max_size=2).map(tuple),
    st.lists(st.builds(SimultaneousChoice, names, shares, reals), max_size=2).map(tuple),
    st.none() | joints,
)
analyses = st.builds(
    PopulationAnalysis,
    names,
    st.lists(answers, max_size=3).map(tuple),
    choices,
    st.builds(
        RunAccounting,
        st.integers(0, 999),
        st.integers(0, 999),
        st.dictionaries(names, st.integers(1, 9), max_size=3),
        st.integers(1, 4),
        st.just(0.05),
    ),
    st.builds(
        PopulationMeta,
        st.just("synthetic"),
        st.integers(1, 99),
        st.integers(1, 9),
        st.none(),
        st.integers(1, 9),
        st.integers(1, 5),
    ),
)


@settings(max_examples=60, deadline=None)
@given(an=analyses)
def test_a_population_answer_reads_back_from_its_report_json(an):
    """dataclass -> population.json -> dataclass: the same answer (games are not in a report's file)."""
    text = dumps_json(an.report_json("0"), indent=2)
    back = PopulationAnalysis.from_report_json(json.loads(text))
    assert back == an
    assert dumps_json(back.report_json("0"), indent=2) == text


@settings(max_examples=60, deadline=None)
@given(a=answers)
def test_a_mechanism_answer_reads_back_from_its_cache_json(a):
    assert MechanismAnswer.from_json(json.loads(json.dumps(a.to_json()))) == a


def _committed(name: str) -> list[Path]:
    return sorted(REPORTS.glob(f"*/data/{name}"))


@pytest.mark.parametrize("path", _committed("population.json"), ids=lambda p: p.parent.parent.name)
def test_a_committed_population_json_reads_back_to_the_same_json(path):
    text = path.read_text()
    data = json.loads(text)
    back = PopulationAnalysis.from_report_json(data)
    assert json.loads(dumps_json(back.report_json(data["version"]))) == data  # a mixture tuple is a JSON list
    assert dumps_json(back.report_json(data["version"]), indent=2) == text.rstrip("\n")


@pytest.mark.parametrize("path", _committed("exploration.json"), ids=lambda p: p.parent.parent.name)
def test_a_committed_exploration_json_reads_back_to_the_same_json(path):
    text = path.read_text()
    back = ExplorationAnswer.from_json(json.loads(text))
    assert back.wall_seconds is None and all(m.run_now is None for m in back.mechanisms.values())
    assert dumps_json(back.to_json(), indent=1) == text.rstrip("\n")
    assert back.without_run() == back


def test_there_are_committed_files_to_read():
    assert _committed("population.json") and _committed("exploration.json")
