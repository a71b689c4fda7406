"""nashpy's enumerations as ``game solve`` runs them: step by step from nashpy's own pieces, so that a stop says how
far it got and a progress bar shows it (hunt 27c-F3), with the same answers as ``nashpy.Game``'s own methods."""

from __future__ import annotations

import warnings

import nashpy as nash
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.games import budget
from gamemarket.games import nashpy_runs as nr
from gamemarket.games.bimatrix import Game
from gamemarket.games.equilibria import solve


def theirs(A, B, method):
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return [(np.asarray(x, float), np.asarray(y, float)) for x, y in getattr(nash.Game(A, B), method)()]


def ours(A, B, method):
    run = nr._support_enumeration if method == "support_enumeration" else nr._vertex_enumeration
    ticks = []
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        found = [(np.asarray(x, float), np.asarray(y, float)) for x, y in run(A, B, ticks.append)]
    return found, ticks


games = st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(0, 10**6), st.booleans()).map(
    lambda t: (
        lambda rng: (
            (rng.integers(-2, 3, (t[0], t[1])), rng.integers(-2, 3, (t[0], t[1])))
            if t[3]
            else (rng.normal(size=(t[0], t[1])), rng.normal(size=(t[0], t[1])))
        )
    )(np.random.default_rng(t[2]))
)


@settings(max_examples=60, deadline=None)
@given(game=games, method=st.sampled_from(["support_enumeration", "vertex_enumeration"]))
def test_the_counted_enumerations_give_nashpys_answers_in_its_order(game, method):
    # random and tied (small integer) games: the same profiles, in the same order, as nashpy's own generator
    A, B = (np.asarray(M, dtype=float) for M in game)
    if method == "vertex_enumeration" and min(A.shape) < 2:
        return  # (nashpy's polytopes need two strategies a side: the solver answers 1 x n games directly)
    mine, ticks = ours(A, B, method)
    ref = theirs(A, B, method)
    assert len(mine) == len(ref)
    for (x, y), (u, v) in zip(mine, ref):
        np.testing.assert_allclose(x, u, atol=1e-12)
        np.testing.assert_allclose(y, v, atol=1e-12)
    if method == "support_enumeration":  # every support pair counted
        assert ticks == list(range(1, nr.support_pairs(*A.shape) + 1))
    else:
        assert ticks == list(range(1, len(ticks) + 1)) and len(ticks) <= budget.max_vertices(*A.shape)


def test_the_work_is_estimated_before_it_starts():
    assert nr.support_pairs(2, 3) == 3 * 7
    steps, unit, seconds = nr.nashpy_work("support_enumeration", 11, 11)
    assert (steps, unit) == (2047**2, "support pairs") and seconds == pytest.approx(steps * nr.SECONDS_PER_SUPPORT_PAIR)
    steps, unit, seconds = nr.nashpy_work("vertex_enumeration", 6, 8)
    assert unit == "row vertices" and steps == budget.max_vertices(6, 8)
    assert seconds == pytest.approx(steps * budget.max_vertices(8, 6) * nr.SECONDS_PER_VERTEX_PAIR)
    assert nr.nashpy_work("lemke_howson", 5, 5) is None


@pytest.mark.parametrize("method", ["support_enumeration", "vertex_enumeration"])
def test_a_stopped_enumeration_says_how_far_it_got_and_shows_its_bar(method, monkeypatch, capsys):
    # hunt 27c-F3: a 12x12 game's enumeration ran to its 10 s limit with --progress and said nothing while it ran
    monkeypatch.setattr(budget, "PROGRESS_DELAY", 0.0)
    rng = np.random.default_rng(1)
    M = rng.normal(size=(12, 12))
    s = solve(Game(M, -M, None, None), methods=[method], time_limit=1.5, progress=True, eliminate=False)
    err = capsys.readouterr().err
    unit = "support pairs" if method == "support_enumeration" else "row vertices"
    steps = nr.nashpy_work(method, 12, 12)[0]
    note = next(n for n in s.notes if n.startswith(f"incomplete: nashpy {method}"))
    assert f"of up to {steps:,} {unit}, the whole about " in note, note
    assert f"nashpy {method.replace('_', ' ')}:" in err and f"/{steps}" in err  # the bar, with its total
    assert not s.complete


def test_a_finished_enumeration_is_complete_and_quiet(capsys):
    A = np.array([[3.0, 0.0], [0.0, 2.0]])
    for method in ("support_enumeration", "vertex_enumeration"):
        s = solve(Game(A, A, None, None), methods=[method], time_limit=30, progress=False)
        assert len(s.equilibria) == 3 and not any(n.startswith("incomplete:") for n in s.notes)
    assert capsys.readouterr() == ("", "")


def test_a_stopped_lemke_howson_says_what_it_kept():
    # hunt 29c-W2: five paths that ended were kept, and the note said "no answer"
    kept = [(np.ones(3) / 3, np.ones(3) / 3)] * 5
    said = nr._stopped("lemke_howson", (3, 3), 2.0, kept, 0)
    assert (
        said
        == "nashpy lemke_howson: stopped at its time limit of 2 s after 5 of its 6 initial labels, whose ends are kept"
    )
    assert "no answer within 2 s (stopped after 0 of its 6" in nr._stopped("lemke_howson", (3, 3), 2.0, [], 0)


def test_the_estimate_of_a_large_game_is_said_not_raised():
    # review: 2^1040 support pairs of a 520 x 520 game times a float was an OverflowError once the child had started
    steps, _, seconds = nr.nashpy_work("support_enumeration", 520, 520)
    assert seconds == float("inf") and nr._count(steps).startswith("about 10^")
    assert nr.nashpy_work("vertex_enumeration", 2000, 2000)[2] == float("inf")
    said = nr._stopped("support_enumeration", (520, 520), 2.0, [], 19)
    assert "after 19 of up to about 10^" in said and "the whole past 1e308 s" in said
