"""The games' and the market's exported API names a bad argument: an InputError naming the argument and the value,
at the public entry (``tests/test_api_probe.py`` gives every argument every hostile value); valid calls answer
as before."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gamemarket.errors import InputError
from gamemarket.games import Game, from_results, pure_equilibria, solve
from gamemarket.market import PAYMENTS, SCHEDULERS, Mechanism, register_payment, register_scheduler
from gamemarket.market.payments import register_payment_rule
from gamemarket.market.schedulers import PriorityKey

A = np.array([[1.0, 0.0], [0.0, 1.0]])
B = np.array([[1.0, 0.0], [0.0, 2.0]])


def _metrics() -> pd.DataFrame:
    rows = [
        {"provider": p, "consumer": c, "seed": s, "revenue": 1.0 + i + j + s, "utility": 2.0 - i - j + s}
        for i, p in enumerate(("p0", "p1"))
        for j, c in enumerate(("c0", "c1"))
        for s in (1, 2)
    ]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------- Game
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (
            {"rows": math.nan},
            r"game '': rows must be a list of distinct names \(texts, one per row of A\), or None, got nan",
        ),
        ({"rows": True}, r"rows must be a list of distinct names .* got True \(bool\)"),
        ({"rows": "ab"}, r"rows must be a list of distinct names .* got 'ab' \(str\)"),
        ({"rows": [1, 2]}, r"rows must be a list of distinct names .* got \[1, 2\]"),
        ({"cols": object()}, r"cols must be a list of distinct names \(texts, one per column of A\)"),
        ({"cols": -3}, r"cols must be a list .* got -3 \(int\)"),
        ({"rows": ["a"]}, r"rows must be a list of 2 distinct names \(one per row of A, of shape \(2, 2\)\), got 1"),
        ({"cols": np.array([])}, r"cols must be a list of 2 distinct names \(one per column of A"),
        ({"title": None}, r"Game: title must be a text, got None"),
        ({"title": 3}, r"Game: title must be a text, got 3"),
        ({"meta": "abc"}, r"game '': meta must be a dict, got 'abc' \(str\)"),
        ({"meta": None}, r"meta must be a dict, got None"),
    ],
)
def test_game_names_a_bad_argument(kwargs, match):
    with pytest.raises(InputError, match=match):
        Game(A, B, **kwargs)


def test_game_takes_names_as_before():
    g = Game(A, B, ("a", "b"), np.array(["x", "y"]), title="t", meta={"k": 1})
    assert g.rows == ["a", "b"] and g.cols == ["x", "y"] and g.title == "t" and g.meta == {"k": 1}
    assert Game(A, B).rows == ["r0", "r1"]
    labelled = Game(
        pd.DataFrame(A, index=[10, 20], columns=["x", "y"]), pd.DataFrame(B, index=[10, 20], columns=["x", "y"])
    )
    assert labelled.rows == ["10", "20"]  # a table's labels are its names, as text (as before)


@pytest.mark.parametrize("level, match", [(95, "strictly between 0 and 1"), (True, "got True"), (math.nan, "got nan")])
def test_game_ci_names_its_level(level, match):
    with pytest.raises(InputError, match=rf"game '': ci: level must be a number {match}|level .*{match}"):
        Game(A, B).ci(level)


def test_game_ci_answers_as_before():
    ca, cb = Game(A, B).ci(0.9)
    assert np.isnan(ca).all() and np.isnan(cb).all()


# ---------------------------------------------------------------------------------------------------- from_results
@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (
            (None, "revenue", "utility"),
            {},
            r"from_results: metrics must be a payoff table \(a pandas DataFrame\), got None",
        ),
        (([], "revenue", "utility"), {}, r"from_results: metrics must be a payoff table .* got \[\] \(list\)"),
        ((_metrics(), [], "utility"), {}, r"from_results: provider_metric \(a column of the payoff table\) must be a"),
        ((_metrics(), "revenue", {}), {}, r"from_results: consumer_metric .* must be a non-empty text, got \{\}"),
        ((_metrics(), "revenue", "utility"), {"title": 3}, r"from_results: title must be a text, got 3"),
        (
            (_metrics(), "revenue", "utility"),
            {"rows": []},
            r"from_results: rows must be None \(every provider\) or a non",
        ),
        ((_metrics(), "revenue", "utility"), {"rows": {}}, r"rows must be None .* got \{\} \(dict\)"),
        (
            (_metrics(), "revenue", "utility"),
            {"cols": "c0"},
            r"cols must be None \(every consumer\) .* got 'c0' \(str\)",
        ),
        ((_metrics(), "revenue", "utility"), {"cols": 3}, r"cols must be None .* got 3 \(int\)"),
        ((_metrics(), "revenue", "utility"), {"rows": ["p0", "px"]}, r"rows names 'px', which the payoff table's"),
        ((_metrics(), "revenue", "utility"), {"cols": [[]]}, r"cols names \[\], which"),
        (
            (_metrics(), "revenue", "utility"),
            {"drop_undefined": "no"},
            r"drop_undefined must be True or False, got 'no'",
        ),
        ((_metrics(), "revenue", "utility"), {"drop_undefined": np.array([])}, r"drop_undefined must be True or False"),
    ],
)
def test_from_results_names_a_bad_argument(args, kwargs, match):
    with pytest.raises(InputError, match=match):
        from_results(*args, **kwargs)


def test_from_results_answers_as_before():
    g = from_results(_metrics(), "revenue", "utility", title="t", rows=["p1", "p0"], cols=("c1",))
    assert g.rows == ["p1", "p0"] and g.cols == ["c1"] and g.title == "t"
    assert g.A.tolist() == [[4.5], [3.5]] and g.B.tolist() == [[1.5], [2.5]]
    whole = from_results(_metrics(), "revenue", "utility", drop_undefined=False)
    assert whole.rows == ["p0", "p1"] and whole.cols == ["c0", "c1"]
    numbered = _metrics().replace({"provider": {"p0": 0, "p1": 1}})
    assert from_results(numbered, "revenue", "utility").rows == ["0", "1"]  # labels as text, as before
    assert from_results(numbered, "revenue", "utility", rows=[1]).rows == ["1"]


# ---------------------------------------------------------------------------------------------------- equilibria
@pytest.mark.parametrize(
    "tol, match",
    [
        ("ab", r"pure_equilibria: tol must be a pair of tolerances .* got 'ab' \(str\)"),
        ([], r"tol must be a pair .* got \[\] \(list\)"),
        ({}, r"tol must be a pair .* got \{\} \(dict\)"),
        (math.nan, r"tol must be a pair .* got nan \(float\)"),
        (1e-9, r"tol must be a pair"),
        ((1e-9, -1.0), r"pure_equilibria: tol\[1\] \(the column player's tolerance\) must be >= 0, got -1.0"),
        ((math.nan, 0.0), r"tol\[0\] \(the row player's tolerance\) must be a finite number, got nan"),
        ((True, 0.0), r"tol\[0\] .* must be a number, got True"),
    ],
)
def test_pure_equilibria_names_its_tol(tol, match):
    with pytest.raises(InputError, match=match):
        pure_equilibria(A, B, tol=tol)


def test_pure_equilibria_answers_as_before():
    assert pure_equilibria(A, B) == [(0, 0), (1, 1)]
    assert pure_equilibria(A, B, tol=(0.0, 0.0)) == [(0, 0), (1, 1)]
    assert pure_equilibria(A, B, tol=np.array([2.0, 3.0])) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_solve_takes_no_time_limit():
    """``time_limit=None`` is no limit, as ``solve``'s docstring says."""
    assert solve(Game(A, B), time_limit=None).complete


# ---------------------------------------------------------------------------------------------------- Mechanism
@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"payment": np.array([])}, r"Mechanism: payment \(a registered payment scheme's name, or 'blend'\) must be a"),
        ({"payment": 3}, r"Mechanism: payment .* got 3"),
        ({"scheduler": ["hb"]}, r"Mechanism: scheduler \(a registered scheduler's name\) must be a non-empty text"),
        ({"payment": "nope"}, r"unknown payment scheme 'nope'"),
        ({"preemption_overhead": np.array([])}, r"Mechanism: preemption_overhead \(seconds\) must be a number"),
        ({"preemption_overhead": math.nan}, r"preemption_overhead \(seconds\) must be a finite number, got nan"),
        ({"preemption_overhead": -3}, r"preemption_overhead \(seconds\) must be >= 0, got -3"),
        ({"preemption_overhead": True}, r"preemption_overhead \(seconds\) must be a number, got True"),
        ({"preemption_overhead": 1.0}, r"only 0 \(free preemption and migration\) is implemented"),
    ],
)
def test_mechanism_names_a_bad_argument(kwargs, match):
    with pytest.raises(InputError, match=match):
        Mechanism(**kwargs)


def test_mechanism_answers_as_before():
    m = Mechanism("wspt", "first", 2.0, 0)
    assert m.describe() == {"scheduler": "wspt", "payment": "first", "reserve": 2.0, "preemption_overhead": 0}
    assert Mechanism(payment="blend", blend=0.5).legs() == [("first", 1.0, 0.5), ("kth", 1.0, 0.5)]


# ---------------------------------------------------------------------------------------------------- registries
@pytest.fixture
def restored():
    saved = [(r, dict(r._items)) for r in (PAYMENTS, SCHEDULERS)]
    yield
    for registry, items in saved:
        registry._items.clear()
        registry._items.update(items)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((np.array([]), 0, "d"), {}, r"register_payment: name must be a non-empty text, got array"),
        ((3, 0, "d"), {}, r"register_payment: name must be a non-empty text, got 3"),
        (("my-pay", True, "d"), {}, r"payment scheme 'my-pay': code \(its branch in market_price\) must be a whole"),
        (("my-pay", np.array([]), "d"), {}, r"code .* must be a whole number >= 0, got array"),
        (("my-pay", 2.0, "d"), {}, r"code .* must be a whole number >= 0, got 2.0"),
        (("my-pay", 7, "d"), {}, r"code 7 has no branch in market_price"),
        (("my-pay", 0, None), {}, r"payment scheme 'my-pay': description must be a non-empty text, got None"),
        (("my-pay", 0, -3), {}, r"description must be a non-empty text, got -3"),
        (("my-pay", 0, "d"), {"rule": []}, r"payment scheme 'my-pay': rule \(as the plain reference names it\) must"),
        (("my-pay", 0, "d"), {"rule": True}, r"rule .* must be a non-empty text, got True"),
        (("my-pay", 0, "d"), {"replace": None}, r"payment scheme 'my-pay': replace must be True or False, got None"),
        (("my-pay", 0, "d"), {"replace": "yes"}, r"replace must be True or False, got 'yes'"),
    ],
)
def test_register_payment_names_a_bad_argument(restored, args, kwargs, match):
    with pytest.raises(InputError, match=match):
        register_payment(*args, **kwargs)


def test_register_payment_answers_as_before(restored):
    scheme = register_payment("my-pay", 0, "pays its bid", rule="first price")
    assert (scheme.name, scheme.code, scheme.description, scheme.rule) == ("my-pay", 0, "pays its bid", "first price")
    assert register_payment("my-pay", np.int64(1), "again", replace=True).code == 1


def _rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return reserve


@pytest.mark.parametrize(
    "kwargs, match",
    [({"jit": "no"}, r"payment scheme 'my-rate': jit must be True or False"), ({"replace": 1}, r"replace must be")],
)
def test_register_payment_rule_names_its_flags(restored, kwargs, match):
    with pytest.raises(InputError, match=match):
        register_payment_rule("my-rate", _rate, "the reserve", **kwargs)
    with pytest.raises(InputError, match=r"register_payment_rule: name must be a non-empty text, got \[\]"):
        register_payment_rule([], _rate, "the reserve")


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        ((None, False, PriorityKey("submit"), "d"), {}, r"register_scheduler: name must be a non-empty text, got None"),
        (
            ("my-fcfs", False, PriorityKey("submit"), "d"),
            {"replace": None},
            r"scheduler 'my-fcfs': replace must be True",
        ),
        (
            ("my-fcfs", False, PriorityKey("submit"), "d"),
            {"replace": math.nan},
            r"replace must be True or False, got nan",
        ),
    ],
)
def test_register_scheduler_names_a_bad_argument(restored, args, kwargs, match):
    with pytest.raises(InputError, match=match):
        register_scheduler(*args, **kwargs)


def test_register_scheduler_answers_as_before(restored):
    s = register_scheduler("my-fcfs", False, PriorityKey("submit"), "first come", replace=False)
    assert (s.name, s.preemptive, s.description) == ("my-fcfs", False, "first come")


# ---------------------------------------------------------------------------------------------------- simulate
@pytest.fixture(scope="module")
def jobs():
    from gamemarket.testing import random_cases

    case = random_cases(1, seed=3)[0]
    return case.table, case.nodes


@pytest.mark.parametrize("bad", [None, "abc", [], np.array([]), math.nan, -3, 10**30, {}, object()])
def test_simulate_names_its_flags(jobs, bad):
    from gamemarket.market import simulate, simulate_many

    table, nodes = jobs
    with pytest.raises(InputError, match=r"^simulate: validate must be True or False, got "):
        simulate(table, nodes, Mechanism(), validate=bad)
    with pytest.raises(InputError, match=r"^simulate_many: validate must be True or False, got "):
        simulate_many(table, nodes, [Mechanism()], validate=bad)
    with pytest.raises(InputError, match=r"^simulate_many: columns must be True or False, got "):
        simulate_many(table, nodes, [Mechanism()], columns=bad)


def test_simulate_answers_as_before(jobs):
    from gamemarket.market import simulate, simulate_many

    table, nodes = jobs
    one = simulate(table, nodes, Mechanism(), validate=np.True_)
    many = simulate_many(table, nodes, [Mechanism()], validate=True, columns=np.False_)
    assert one.summary == many[0].summary
    assert isinstance(simulate_many(table, nodes, [Mechanism()], columns=True)[0].jobs, dict)
