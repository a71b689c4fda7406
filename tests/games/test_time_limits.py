"""The exhaustive solvers under a time limit (issue #43): a search that cannot finish stops there with what it found,
each equilibrium verified, and a note saying how far it got; a search that finishes gets the same answer whatever
the limit; a bad limit is an error naming the value.

Nothing here asserts how fast a machine is: the stopped games need minutes without a limit (a random 20x20 bimatrix
game: over two minutes and 2 GB; the role-symmetric one: over ten times its limit), and the time bounds asserted are
ten times the limit."""

import math
import re
import time

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games import Game, budget, solve
from gamemarket.games import equilibria as eq
from gamemarket.games.equilibria import max_vertices, regret, tolerance
from gamemarket.games.rsg_equilibria import equilibria
from gamemarket.games.rsgame import RoleSymmetricGame


def _random(n: int, seed: int = 0) -> Game:
    rng = np.random.default_rng(seed)
    return Game(rng.random((n, n)), rng.random((n, n)))


def _same(a, b) -> None:
    """Two solutions of one game are the same answer: equilibria, their methods, the flags and the notes."""
    assert len(a.equilibria) == len(b.equilibria)
    for e, f in zip(a.equilibria, b.equilibria):
        assert np.array_equal(e.x, f.x) and np.array_equal(e.y, f.y) and e.methods == f.methods
        assert e.regret == f.regret and e.payoffs == f.payoffs
    assert (a.degenerate, a.complete, a.notes) == (b.degenerate, b.complete, b.notes)


def test_a_random_20x20_game_stops_at_its_limit_with_verified_equilibria():
    g = _random(20)
    t0 = time.monotonic()
    sol = solve(g, time_limit=1.5, complete=True)  # the enumeration, not the large games' answer
    took = time.monotonic() - t0
    assert took < 15, took  # without a limit: minutes
    assert not sol.complete
    (note,) = [n for n in sol.notes if n.startswith("incomplete:")]
    assert note.startswith("incomplete: polytope: stopped at the time limit of 1.5 s")
    assert "at most 40,060,020" in note and "searched the supports of up to" in note and "--time-limit" in note
    assert sol.equilibria  # its pure equilibrium at least (r0, c5), and the mixed ones of the supports searched
    ta, tb = tolerance(g.A, g.B)
    for e in sol.equilibria:  # every one verified again here, from the payoffs
        ra, rb = regret(g.A, g.B, e.x, e.y)
        assert ra <= 10 * ta and rb <= 10 * tb
        assert math.isclose(e.x.sum(), 1) and math.isclose(e.y.sum(), 1)
    assert any(e.supports() == ((0,), (5,)) for e in sol.equilibria)


@pytest.mark.parametrize("n", [3, 8, 11])
def test_a_game_that_finishes_gets_the_same_answer_whatever_the_limit(n):
    g = _random(n, seed=n)
    _same(solve(g, time_limit=None), solve(g, time_limit=1000))
    _same(solve(g, time_limit=None), solve(g))  # the default limit


def test_a_degenerate_game_gets_the_same_answer_and_its_face_budget_note_whatever_the_limit():
    g = Game(np.zeros((12, 12)), np.zeros((12, 12)))  # every face degenerate: the face budget is spent
    _same(solve(g, time_limit=None), solve(g, time_limit=1000))


def test_qhull_in_a_child_process_lists_the_same_vertices(monkeypatch):
    """Where the estimate says qhull could take more than half the limit it runs in a child process: within the
    limit, the answer is the one qhull gives in this process."""
    g = _random(10, seed=4)
    here = solve(g, time_limit=None)
    monkeypatch.setattr(eq, "QHULL_SECONDS_PER_VERTEX", 1.0)  # every game "too large": the child process
    here_calls = []  # qhull run in this process (a child's calls are its own)
    real = eq._qhull_vertices
    monkeypatch.setattr(eq, "_qhull_vertices", lambda Bp: (here_calls.append(1), real(Bp))[1])
    _same(here, solve(g, time_limit=1000, complete=True))  # "too large" would otherwise be answered by GNM
    assert not here_calls  # the child ran it
    _same(here, solve(g, time_limit=None))
    assert here_calls  # without a limit: this process


class _Stops(budget.SearchClock):
    """A clock that runs out after its first ``checks`` looks at it (no machine's speed involved)."""

    def __init__(self, checks: int):
        super().__init__(1000.0, progress=False)
        self.left = checks

    def expired(self) -> bool:
        self.left -= 1
        return self.left < 0


def test_a_search_stopped_among_the_vertices_keeps_the_equilibria_of_those_it_visited():
    g = _random(11, seed=2)
    full = solve(g, time_limit=None)
    A, B = g.A, g.B
    Ap = (A - A.min()) / np.ptp(A) + 1.0
    Bp = (B - B.min()) / np.ptp(B) + 1.0
    profiles, _, skipped, stop = eq._vertex_equilibria(Ap, Bp, _Stops(2))
    nverts = len(eq._qhull_vertices(Bp))
    assert stop == f"after 128 of the polytope's {nverts:,} vertices" and skipped == 0
    whole = [(x, y) for x, y in eq._vertex_equilibria(Ap, Bp, budget.SearchClock(None))[0]]
    assert len(profiles) < len(whole)
    for x, y in profiles:  # a part of the full search's answer
        assert any(np.allclose(x, X) and np.allclose(y, Y) for X, Y in whole)
    assert len(full.equilibria) >= len(whole)


def test_the_vertex_bound_holds_and_is_the_upper_bound_theorem():
    assert max_vertices(2, 5) == 5 + 2  # a polygon: as many vertices as edges
    assert max_vertices(20, 20) == math.comb(30, 20) + math.comb(29, 20)
    for n in (4, 7, 10):
        g = _random(n, seed=n)
        Bp = (g.B - g.B.min()) / np.ptp(g.B) + 1.0
        assert len(eq._qhull_vertices(Bp)) <= max_vertices(n, n)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), 1e8, "10", True])
def test_a_bad_time_limit_is_an_error_naming_the_value(bad):
    g = _random(3)
    with pytest.raises(InputError, match=r"time_limit: expected .*seconds > 0.*; got " + re.escape(repr(bad))):
        solve(g, time_limit=bad)
    rsg = RoleSymmetricGame.random((2,), (2,), np.random.default_rng(0))
    with pytest.raises(InputError, match="time_limit: expected"):
        equilibria(rsg, time_limit=bad)


def test_the_progress_bar_goes_to_stderr_only_when_asked(monkeypatch, capsys):
    monkeypatch.setattr(budget, "PROGRESS_DELAY", 0.0)
    g = _random(12)
    solve(g, time_limit=1000, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "polytope" in err and "vertex" in err
    solve(g, time_limit=1000, progress=False)
    assert capsys.readouterr() == ("", "")
    solve(g, time_limit=1000)  # stderr is not a terminal here
    assert capsys.readouterr() == ("", "")


# ---------------------------------------------------------------- role-symmetric games
def _rsg(players, strategies, seed=0) -> RoleSymmetricGame:
    return RoleSymmetricGame.random(players, strategies, np.random.default_rng(seed))


def test_a_role_symmetric_search_stops_at_its_limit_with_verified_equilibria():
    g = _rsg((3,), (12,))  # 4,083 supports to search: a second searches a few hundred
    t0 = time.monotonic()
    sol = equilibria(g, time_limit=1.0)
    took = time.monotonic() - t0
    assert took < 10, took
    assert not sol.complete and sol.search is not None and sol.search.stopped
    assert sol.search.supports < sol.search.to_search == 4083
    (note,) = [n for n in sol.notes if n.startswith("incomplete: stopped")]  # (the stability's may follow)
    assert note.startswith("incomplete: stopped at the time limit of 1 s in support enumeration, after ")
    assert "of its 4,083 supports" in note and "--time-limit" in note
    for e in sol.equilibria:
        assert g.regret(e.mixture) <= sol.tolerance and e.regret <= sol.tolerance


@pytest.mark.parametrize(("players", "strategies"), [((3,), (3,)), ((2, 3), (2, 3)), ((1, 1), (3, 4))])
def test_a_role_symmetric_game_that_finishes_gets_the_same_answer_whatever_the_limit(players, strategies):
    g = _rsg(players, strategies, seed=7)
    a, b = equilibria(g), equilibria(g, time_limit=1000)
    assert a.complete and b.complete and a.notes == b.notes
    assert len(a.equilibria) == len(b.equilibria)
    for e, f in zip(a.equilibria, b.equilibria):
        assert np.array_equal(e.mixture, f.mixture) and e.regret == f.regret and e.methods == f.methods


@pytest.mark.slow
@pytest.mark.parametrize("method", ["support_enumeration", "vertex_enumeration", "lemke_howson"])
def test_any_method_stopped_at_its_limit_leaves_the_search_unfinished(method, tmp_path, capsys):
    """A method the time limit stops did not finish, whichever it is: not only the polytope search. ``--methods
    support_enumeration`` on a 30 x 30 game once ended "equilibria: 0" with exit 0; it is exit 3 now, the note
    beginning "incomplete:"."""
    from gamemarket.cli import main

    rng = np.random.default_rng(5)
    g = Game(rng.random((30, 30)), rng.random((30, 30)))
    sol = solve(g, methods=[method], time_limit=0.5)
    assert not sol.complete and not sol.exhaustive
    said = (f"incomplete: nashpy {method}: no answer within 0.5 s", f"incomplete: nashpy {method}: stopped at its")
    assert any(n.startswith(said) and "0.5 s" in n for n in sol.notes), sol.notes
    np.savez(tmp_path / "g.npz", A=g.A, B=g.B)
    argv = ["game", "solve", str(tmp_path / "g.npz"), "--methods", method, "--time-limit", "0.5", "--no-progress"]
    assert main(argv) == 3
    assert "the search for equilibria did not finish (see the note); exit 3" in capsys.readouterr().err


def test_a_stopped_method_beside_a_complete_enumeration_loses_nothing(monkeypatch):
    """Where polytope enumerated every extreme equilibrium, another method's stop leaves the answer complete; where
    only methods that do not enumerate them all ran, the answer says it is not every one ("partial:")."""

    def stopped(A, B, method, *, time_limit):
        return [], f"nashpy {method}: no answer within {time_limit:g} s (stopped)"

    monkeypatch.setattr(eq, "nashpy_equilibria", stopped)
    rng = np.random.default_rng(1)
    g = Game(rng.random((4, 4)), rng.random((4, 4)))
    both = solve(g, methods=["polytope", "lemke_howson"])
    assert both.complete and both.exhaustive and both.equilibria
    assert any(n.startswith("incomplete: nashpy lemke_howson") for n in both.notes)
    alone = solve(g, methods=["lemke_howson"])
    assert not alone.complete and not alone.exhaustive and not alone.equilibria
    pure = solve(g, methods=["pure"])
    assert pure.complete and not pure.exhaustive
    assert any(n.startswith("partial: the methods asked (pure) do not enumerate every") for n in pure.notes)


def test_thousands_of_equilibria_are_told_apart_by_support_not_pairwise():
    """Hunt 16a-48: a 1 x 5000 game of zeros (a 40 KB .npz) ran past 300 s with --time-limit 5: each of its 5,000
    pure equilibria was compared with every one found before it, outside the time limit. Now by support, 3.2 s."""
    n = 3000
    t0 = time.perf_counter()
    sol = eq.solve(Game(np.zeros((1, n)), np.zeros((1, n))), time_limit=30)
    assert len(sol.equilibria) == n and all(e.pure for e in sol.equilibria)
    assert {int(np.argmax(e.y)) for e in sol.equilibria} == set(range(n))
    assert time.perf_counter() - t0 < 120  # (pairwise: about 70 s at n = 3000 on the 2-core machine)


@pytest.mark.parametrize("seed", range(5))
def test_profiles_found_twice_are_listed_once(seed):
    """What the support key groups is what the pairwise rule merged: a degenerate game's methods find the same
    equilibria more than once (each listed once, with both methods)."""
    rng = np.random.default_rng(seed)
    A = rng.integers(0, 3, (4, 4)).astype(float)
    B = rng.integers(0, 3, (4, 4)).astype(float)
    sol = eq.solve(Game(A, B), methods=["pure", "polytope", "vertex_enumeration"])
    for i, e in enumerate(sol.equilibria):
        for f in sol.equilibria[i + 1 :]:
            assert not (eq._close(e.x, f.x) and eq._close(e.y, f.y))


def test_stability_past_the_limit_is_said_not_computed_and_every_equilibrium_still_verified(monkeypatch):
    """Fuzz run O's sibling: a 200-strategy game of zeros stopped at 19.7 s under a 10 s limit, 13 s of it the
    stability of its 212 equilibria (an eigenvalue problem each) computed after the search had stopped. Stability
    is computed while the clock runs: once it has run out, the rest are said to be "not computed", in an
    "incomplete:" note, and each is verified by its regret as ever. The clock here runs out after the first
    stability (no machine's speed assumed)."""
    from gamemarket.games import rsg_equilibria as rsg
    from gamemarket.games.egta import from_egta

    names = ["a", "b", "c"]  # a coordination game: 3 pure equilibria and 4 mixed ones
    profiles = [{"all": [[s, 2, 1.0]]} for s in names]
    profiles += [{"all": [[s, 1, 0.0], [t, 1, 0.0]]} for i, s in enumerate(names) for t in names[i + 1 :]]
    game = from_egta({"players": {"all": 2}, "strategies": {"all": names}, "profiles": profiles})
    whole = equilibria(game, time_limit=1000)
    assert whole.complete and len(whole.equilibria) == 7
    assert all(e.stability in ("stable", "unstable", "neutral") for e in whole.equilibria)

    computed = []
    stability = rsg._stability
    monkeypatch.setattr(rsg, "_stability", lambda *a: computed.append(1) or stability(*a))
    monkeypatch.setattr(budget.SearchClock, "expired", lambda self: self.limit is not None and len(computed) >= 1)
    sol = equilibria(game, time_limit=1000)
    assert not sol.complete and len(computed) == 1
    assert [e.mixture.tolist() for e in sol.equilibria] == [e.mixture.tolist() for e in whole.equilibria]
    assert sol.equilibria[0].stability == whole.equilibria[0].stability
    assert [e.stability for e in sol.equilibria[1:]] == [rsg.NOT_COMPUTED] * 6
    (note,) = [n for n in sol.notes if "stability" in n]
    assert note.startswith("incomplete: the stability of 6 of the 7 equilibria is 'not computed'")
    assert all(game.regret(e.mixture) <= sol.tolerance for e in sol.equilibria)


def test_iterated_dominance_spends_its_share_of_the_time_limit_and_the_methods_search_the_rest():
    # hunt 39c-W1: a 2,000 x 2,000 game's elimination spent the whole of a 10 s limit, and no method searched
    rng = np.random.default_rng(2)
    g = Game(rng.normal(size=(900, 900)), rng.normal(size=(900, 900)))
    t = time.perf_counter()
    sol = solve(g, methods=("pure", "lemke_howson_first"), time_limit=0.4)
    took = time.perf_counter() - t
    (note,) = [n for n in sol.notes if n.startswith("partial: iterated dominance")]
    share = 0.4 * eq.DOMINANCE_SHARE
    assert f"stopped at its share of the time limit ({share:g} of 0.4 s)" in note
    left = float(note.split("the methods had the ")[1].split(" s left")[0])
    assert 0.05 < left <= 0.4 - share + 0.05  # (the rest of the limit, not the 1 ms they had)
    assert not any("not started: the steps before it spent the time limit" in n for n in sol.notes), sol.notes
    assert took < 30


def test_a_one_player_per_role_game_answered_by_a_method_that_finds_a_few_is_not_said_to_have_them_all(monkeypatch):
    # hunt 40c-F3: an EGTA game of one player per role, too large to enumerate, was answered by GNM (or Lemke-Howson)
    # with one equilibrium, said to be "every equilibrium of a nondegenerate bimatrix game", and the searches that
    # would have found the others never ran. The bimatrix answer's own flags decide: a search that finished
    # (``complete``) but lists only some (``exhaustive`` False: the large-game switch) is not every equilibrium
    import dataclasses

    from gamemarket.games import rsg_equilibria
    from gamemarket.games.rsgame import as_role_symmetric

    rng = np.random.default_rng(1)
    game = as_role_symmetric(Game(rng.normal(size=(4, 4)), rng.normal(size=(4, 4))))
    whole = solve(game.to_bimatrix())
    assert whole.complete and whole.exhaustive and not whole.degenerate
    found, every = rsg_equilibria._exact(game, notes=[])
    assert len(found) == len(whole.equilibria) and every  # (every one, where the answer is every one)
    partial = dataclasses.replace(whole, exhaustive=False)  # (as the switch to a method that finds a few leaves it)
    monkeypatch.setattr(rsg_equilibria, "solve", lambda *a, **k: partial)
    found, every = rsg_equilibria._exact(game, notes=[])
    assert found and not every
