"""Equilibria on textbook games, agreement with nashpy and a brute-force reference, IO round trips."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.games import Game, pure_equilibria, regret, solve
from gamemarket.games.equilibria import dominance, nashpy_equilibria
from gamemarket.games.io import read_csv_game, read_nfg, to_csv_table, to_nfg

ALL = ("pure", "polytope", "support_enumeration", "vertex_enumeration", "lemke_howson")


def profiles(sol):
    return sorted((tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))) for e in sol.equilibria)


def test_matching_pennies():
    s = solve(Game([[1, -1], [-1, 1]], [[-1, 1], [1, -1]], ["H", "T"], ["H", "T"]), methods=ALL)
    assert profiles(s) == [((0.5, 0.5), (0.5, 0.5))]
    assert s.equilibria[0].methods == set(ALL) - {"pure"}
    assert not s.degenerate


def test_prisoners_dilemma():
    A = np.array([[3, 0], [5, 1]])
    s = solve(Game(A, A.T, ["C", "D"], ["C", "D"]), methods=ALL)
    assert profiles(s) == [((0.0, 1.0), (0.0, 1.0))]
    assert s.dominated_rows == ["C"] and s.dominated_cols == ["C"]
    assert s.equilibria[0].methods == set(ALL)  # the nashpy methods on the 1x1 game dominance leaves


def test_battle_of_the_sexes():
    A = np.array([[3, 0], [0, 2]])
    B = np.array([[2, 0], [0, 3]])
    s = solve(Game(A, B, ["O", "F"], ["O", "F"]), methods=ALL)
    assert profiles(s) == [((0.0, 1.0), (0.0, 1.0)), ((0.6, 0.4), (0.4, 0.6)), ((1.0, 0.0), (1.0, 0.0))]
    by = {(tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))): e.methods for e in s.equilibria}
    # every enumeration finds all three; Lemke-Howson's paths from every label end at the pure ones only
    assert by[((0.6, 0.4), (0.4, 0.6))] == {"polytope", "support_enumeration", "vertex_enumeration"}
    assert by[((1.0, 0.0), (1.0, 0.0))] == by[((0.0, 1.0), (0.0, 1.0))] == set(ALL)


def test_rock_paper_scissors():
    A = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    s = solve(Game(A, -A, list("RPS"), list("RPS")), methods=ALL)
    assert profiles(s) == [((1 / 3,) * 3, (1 / 3,) * 3)] or np.allclose(s.equilibria[0].x, 1 / 3)
    assert len(s.equilibria) == 1
    assert s.equilibria[0].methods == set(ALL) - {"pure"}


def test_degenerate_game_all_extreme_equilibria():
    # von Stengel's degenerate example: row 0 leaves the column player indifferent
    A = np.array([[3, 3], [2, 5], [0, 6]])
    B = np.array([[3, 3], [2, 6], [3, 1]])
    s = solve(Game(A, B, None, None), methods=("pure", "polytope"))
    assert s.degenerate
    expected = [((0.0, 1 / 3, 2 / 3), (1 / 3, 2 / 3)), ((1.0, 0.0, 0.0), (2 / 3, 1 / 3)), ((1.0, 0.0, 0.0), (1.0, 0.0))]
    got = profiles(s)
    assert len(got) == 3
    for e in expected:
        assert any(np.allclose(g[0], e[0], atol=1e-6) and np.allclose(g[1], e[1], atol=1e-6) for g in got)
    # with every method: support enumeration (equal-size supports) misses the equilibrium whose supports
    # differ in size, (1, 0, 0) against (2/3, 1/3); vertex enumeration and our polytope find all three
    s = solve(Game(A, B, None, None), methods=ALL)
    by = {(tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))): e.methods for e in s.equilibria}
    assert by[((1.0, 0.0, 0.0), (0.666667, 0.333333))] == {"polytope", "vertex_enumeration"}
    assert by[((1.0, 0.0, 0.0), (1.0, 0.0))] == set(ALL)
    assert by[((0.0, 0.333333, 0.666667), (0.333333, 0.666667))] == set(ALL) - {"pure"}


@settings(max_examples=80, deadline=None)
@given(m=st.integers(2, 3), n=st.integers(2, 3), data=st.data())
def test_face_enumeration_on_degenerate_integer_games(m, n, data):
    """Integer games with a duplicated column are degenerate: a pure equilibrium's best-response set has
    two columns for one row, which only the face enumeration of ``polytope_equilibria`` resolves. Every
    profile it returns is an equilibrium, and every pure equilibrium is among them."""
    from gamemarket.games import equilibria as eqmod
    from gamemarket.games.equilibria import polytope_equilibria

    ints = st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=m, max_size=m)
    A, B = np.array(data.draw(ints), dtype=float), np.array(data.draw(ints), dtype=float)
    j = data.draw(st.integers(0, n - 1))
    A, B = np.c_[A, A[:, j]], np.c_[B, B[:, j]]
    calls = []
    real, small = eqmod._face_vertices, eqmod.vertex_pairs.fits
    eqmod._face_vertices = lambda *a, **k: calls.append(1) or real(*a, **k)
    eqmod.vertex_pairs.fits = lambda m, n: False  # the general search (the small games' path has no faces)
    try:
        found, _ = polytope_equilibria(A, B)
    finally:
        eqmod._face_vertices, eqmod.vertex_pairs.fits = real, small
    want = set(pure_equilibria(A, B))
    for profiles in (found, polytope_equilibria(A, B)[0]):  # the general search, then the small games' path
        for x, y in profiles:
            assert max(regret(A, B, x, y)) <= 1e-9
        pure = {
            (int(np.argmax(x)), int(np.argmax(y))) for x, y in profiles if x.max() > 1 - 1e-12 and y.max() > 1 - 1e-12
        }
        assert want <= pure
    if any(jj in (j, n) for _, jj in want):  # a pure equilibrium on the duplicated column needs the face branch
        assert calls


def test_face_enumeration_is_reached_and_needed():
    """A fixed game whose pure equilibria lie on two identical columns: without the face branch they
    would not be found."""
    from gamemarket.games import equilibria as eqmod
    from gamemarket.games.equilibria import polytope_equilibria

    A = np.array([[2.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    B = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    calls = []
    real, small = eqmod._face_vertices, eqmod.vertex_pairs.fits
    eqmod._face_vertices = lambda *a, **k: calls.append(1) or real(*a, **k)
    eqmod.vertex_pairs.fits = lambda m, n: False  # the general search (the small games' path has no faces)
    try:
        found, degenerate = polytope_equilibria(A, B)
    finally:
        eqmod._face_vertices, eqmod.vertex_pairs.fits = real, small
    pure = {(int(np.argmax(x)), int(np.argmax(y))) for x, y in found if x.max() == 1 and y.max() == 1}
    assert calls and degenerate and {(0, 0), (0, 1), (1, 2)} <= pure
    found, degenerate = polytope_equilibria(A, B)  # the small games' path: the same pure equilibria
    pure = {(int(np.argmax(x)), int(np.argmax(y))) for x, y in found if x.max() == 1 and y.max() == 1}
    assert degenerate and {(0, 0), (0, 1), (1, 2)} <= pure


@pytest.mark.parametrize("shape", [(1, 4), (4, 1), (1, 1)])
def test_one_strategy_games(shape):
    rng = np.random.default_rng(1)
    A, B = rng.random(shape), rng.random(shape)
    s = solve(Game(A, B, None, None), methods=ALL, eliminate=False)
    assert len(s.equilibria) == 1 and s.equilibria[0].pure
    i, j = np.argmax(s.equilibria[0].x), np.argmax(s.equilibria[0].y)
    assert A[i, j] == A[:, j].max() and B[i, j] == B[i, :].max()


def test_non_finite_payoffs_rejected():
    with pytest.raises(InputError, match="finite"):
        Game([[1, np.nan]], [[0, 0]], ["a"], ["x", "y"])
    with pytest.raises(InputError, match="finite"):
        pure_equilibria(np.array([[1.0, np.inf]]), np.zeros((1, 2)))


def brute_force(A, B, tol=1e-9):
    """Reference for non-degenerate games: equal-size support enumeration with exact checks."""
    m, n = A.shape
    out = []
    for k in range(1, min(m, n) + 1):
        for I in itertools.combinations(range(m), k):
            for J in itertools.combinations(range(n), k):

                def mix(M):  # solve M z = v 1, sum z = 1
                    K = np.zeros((k + 1, k + 1))
                    K[:k, :k] = M
                    K[:k, k] = -1
                    K[k, :k] = 1
                    rhs = np.zeros(k + 1)
                    rhs[k] = 1
                    try:
                        return np.linalg.solve(K, rhs)[:k]
                    except np.linalg.LinAlgError:
                        return None

                yJ = mix(A[np.ix_(I, J)])
                xI = mix(B[np.ix_(I, J)].T)
                if yJ is None or xI is None or yJ.min() <= tol or xI.min() <= tol:
                    continue
                x = np.zeros(m)
                x[list(I)] = xI
                y = np.zeros(n)
                y[list(J)] = yJ
                if max(regret(A, B, x, y)) <= 1e-9:
                    out.append((tuple(np.round(x, 6)), tuple(np.round(y, 6))))
    return sorted(out)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(2, 5), n=st.integers(2, 5), seed=st.integers(0, 10**6))
def test_polytope_equals_brute_force_on_random_games(m, n, seed):
    rng = np.random.default_rng(seed)
    A, B = rng.standard_normal((m, n)), rng.standard_normal((m, n))
    s = solve(Game(A, B, None, None), methods=("pure", "polytope"), eliminate=False)
    assert not s.degenerate
    assert profiles(s) == brute_force(A, B)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_agrees_with_nashpy(n, seed):
    rng = np.random.default_rng(seed)
    A, B = rng.random((n, n)), rng.random((n, n))
    ours = profiles(solve(Game(A, B, None, None), methods=("polytope",), eliminate=False))
    theirs, problem = nashpy_equilibria(A, B, "vertex_enumeration", time_limit=30)
    assert problem is None
    verified = sorted(
        (tuple(np.round(x, 6)), tuple(np.round(y, 6)))
        for x, y in theirs
        if max(regret(A, B, np.asarray(x), np.asarray(y))) < 1e-7
    )
    # nashpy may miss equilibria (it tests probabilities >= 0 exactly); all it finds must be ours
    assert set(verified) <= set(ours)


def test_elimination_keeps_equilibria():
    rng = np.random.default_rng(5)
    A, B = rng.random((6, 6)), rng.random((6, 6))
    A[0] = A[1] - 0.5  # row 0 strictly dominated by row 1
    full = profiles(solve(Game(A, B, None, None), eliminate=False))
    reduced = profiles(solve(Game(A, B, None, None), eliminate=True))
    assert full == reduced
    rows, _ = dominance(A, B)
    assert not rows[0]


def test_bad_solver_output_is_discarded(monkeypatch):
    import gamemarket.games.equilibria as eq

    monkeypatch.setattr(eq, "_pure_mask", lambda A, B, tol=None: np.array([[True, True], [False, False]]))
    A = np.array([[1.0, 0.0], [0.0, 1.0]])
    s = eq.solve(Game(A, A, None, None), methods=("pure",))
    assert len(s.equilibria) == 1 and any("not an equilibrium" in n for n in s.notes)


def test_lemke_howson_time_limit_is_reported():
    rng = np.random.default_rng(0)
    A, B = rng.random((6, 6)), rng.random((6, 6))
    # (at the least time for which a child is started, a game whose enumeration takes seconds, hunt 34b-W2)
    from gamemarket.games.budget import CHILD_MIN_S

    big = rng.random((14, 14)), rng.random((14, 14))
    profiles_, problem = nashpy_equilibria(*big, "vertex_enumeration", time_limit=CHILD_MIN_S)
    said = ("no answer within 0.05 s (stopped after", "stopped at its time limit of 0.05 s after")  # (what it found)
    assert any(s in problem for s in said), problem
    profiles_, problem = nashpy_equilibria(A, B, "vertex_enumeration", time_limit=1e-4)  # (below it: none started)
    assert profiles_ == [] and problem.endswith(
        "not started: the steps before it spent the time limit (0.0001 s were left to it)"
    )


def test_pure_equilibria_masks_match_loop():
    rng = np.random.default_rng(2)
    A, B = rng.integers(0, 4, (30, 40)).astype(float), rng.integers(0, 4, (30, 40)).astype(float)
    expected = [(i, j) for i in range(30) for j in range(40) if A[i, j] == A[:, j].max() and B[i, j] == B[i].max()]
    assert pure_equilibria(A, B) == expected


def test_nfg_roundtrip_exact(tmp_path):
    rng = np.random.default_rng(3)
    g = Game(
        rng.standard_normal((3, 4)) * 1e9,
        rng.standard_normal((3, 4)) * 1e-12,
        ["a", "b", 'c "q"'],
        ["w", "x", "y", "z"],
        title="t",
    )
    p = tmp_path / "g.nfg"
    p.write_text(to_nfg(g))
    h = read_nfg(p)
    assert (h.A == g.A).all() and (h.B == g.B).all() and h.rows == g.rows and h.cols == g.cols
    # player 1's strategy varies fastest
    first_pair = p.read_text().split("\n")[3].split()[:4]
    assert [float(v) for v in first_pair] == [g.A[0, 0], g.B[0, 0], g.A[1, 0], g.B[1, 0]]


def test_nfg_outcome_version(tmp_path):
    p = tmp_path / "pd.nfg"
    p.write_text(
        'NFG 1 R "PD" { "1" "2" }\n{ { "C" "D" } { "C" "D" } }\n""\n\n'
        '{\n{ "CC" 3, 3 }\n{ "DC" 5, 0 }\n{ "CD" 0, 5 }\n{ "DD" 1, 1 }\n}\n1 2 3 4\n'
    )
    g = read_nfg(p)
    assert g.A.tolist() == [[3, 0], [5, 1]] and g.B.tolist() == [[3, 5], [0, 1]]
    s = solve(g)
    assert profiles(s) == [((0.0, 1.0), (0.0, 1.0))]
    p.write_text('NFG 1 R "x" { "1" "2" } { 2 2 }\n1 2 3\n')
    with pytest.raises(InputError, match="expected 8 payoffs"):
        read_nfg(p)


HEAD = 'NFG 1 R "t" { "a" "b" } '


@pytest.mark.parametrize(
    "text, message",
    [
        ('NFG 2 R "t" { "a" "b" } { 1 1 } "c" 1 2', "not an 'NFG 1 R' (or 'NFG 1 D') strategic-form file"),
        ('NFG 1 R "t" { "a" "b" "c" } { 1 1 1 } "c" 1 2 3', "only two-player games are supported, found 3 players"),
        (HEAD + "{ 2 1.5 } 1 2 3 4", "b has '1.5' strategies; expected a whole number from 1 to 100,000"),
        (HEAD + "{ 2 0 }", "b has '0' strategies; expected a whole number"),
        (HEAD + "{ 2 2 } 1 2 3", "expected 8 payoffs for a 2x2 game, found 3"),
        (HEAD + '{ 3 3 } { { "o" 1 2 } } 1', "expected 9 outcome indices, found at most 8 tokens"),
        (HEAD + '{ 1 2 } { { "o" 1 2 } { "p" 3 } } 1 2', "outcome 2 has 1 payoffs, expected 2"),
        (HEAD + '{ 1 2 } { { "o" 1 2 } } 1 1.5', "outcome index '1.5' is not a whole number"),
        (HEAD + '{ 1 2 } { { "o" 1 2 } } 1 0 1', "expected 2 outcome indices, found 3"),
        (HEAD + '{ 1 2 } { { "o" 1 2 } } 1 2', "outcome index 2 out of range 0..1"),
        (HEAD + '{ 1 2 } { { "o" 1 x } } 1 1', "expected a number, got 'x'"),
        (HEAD + "{ { " + '"x"', "unexpected end of file"),
        (HEAD + "{ 1 1 }" + ' "c" { { "o" 1 2 }', "unexpected end of file"),
        ('NFG 1 R "t" { "a" "b" } 1 1', "expected {, got '1'"),
    ],
)
def test_nfg_refusals_name_the_file_and_what_was_expected(tmp_path, text, message):
    p = tmp_path / "g.nfg"
    p.write_text(text + "\n")
    with pytest.raises(InputError) as exc:
        read_nfg(p)
    assert str(exc.value).startswith(f"{p}: ") and message in str(exc.value)


def test_nfg_outcome_index_zero_is_no_outcome_and_counted_strategies_are_numbered(tmp_path):
    p = tmp_path / "g.nfg"
    p.write_text(HEAD + '{ 2 1 } "c" { { "o" 1 2 } { "p" 3/2 -4 } } 0 2\n')
    g = read_nfg(p)
    assert g.rows == ["1", "2"] and g.cols == ["1"] and g.title == "t" and tuple(g.players) == ("a", "b")
    assert g.A.tolist() == [[0.0], [1.5]] and g.B.tolist() == [[0.0], [-4.0]]


def test_csv_roundtrip(tmp_path):
    g = Game([[1.5, 2], [3, 4]], [[0, 1], [1, 0]], ["p", "q"], ["c", "d"])
    p = tmp_path / "g.csv"
    to_csv_table(g).to_csv(p, index=False)
    h = read_csv_game(p)
    assert (h.A == g.A).all() and (h.B == g.B).all()
    p.write_text("provider,consumer,provider_payoff,consumer_payoff\np,c,1,nan\np,d,1,1\n")
    with pytest.raises(InputError, match="finite"):
        read_csv_game(p)


def test_a_csv_games_interval_columns_are_checked_and_said_to_be_read_past(tmp_path):
    """Hunt 18c-W3: a payoff table's replications and half-widths were read past whatever they held (-1, 2.5, a
    negative half-width), the answer then saying "the game holds no intervals" of a file with interval columns."""
    import warnings

    A, B, spread = np.array([[1.5, 2], [3, 4]]), np.array([[0, 1], [1, 0]]), np.array([-1.0, 0.0, 1.0])
    g = Game(A, B, ["p", "q"], ["c", "d"], A[..., None] + spread, B[..., None] + spread)
    p = tmp_path / "g.csv"
    to_csv_table(g).to_csv(p, index=False)
    with pytest.warns(UserWarning, match=r"provider_ci95, consumer_ci95, replications read past.*mean payoffs"):
        h = read_csv_game(p)
    assert (h.A == g.A).all() and h.reps() == 0
    table = to_csv_table(g)
    for col, bad in (
        ("replications", -1),
        ("replications", 2.5),
        ("replications", "many"),
        ("provider_ci95", -5),
        ("consumer_ci95", "inf"),
        ("provider_ci95", "x"),
    ):
        t = table.astype({col: object})
        t.loc[1, col] = bad
        t.to_csv(p, index=False)
        with pytest.raises(InputError, match=rf"{p}: line 3: column '{col}' is '{bad}'; expected a"):
            read_csv_game(p)
    t = table.astype({"provider_ci95": object, "replications": object})  # no interval, or not recorded: empty
    t.loc[0, "provider_ci95"] = ""
    t.loc[0, "replications"] = ""
    t["note"] = "x"
    t.to_csv(p, index=False)
    with pytest.warns(UserWarning, match="note read past"):
        read_csv_game(p)
    p.write_text("provider,consumer,provider_payoff,consumer_payoff\np,c,1,2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_csv_game(p)  # nothing read past: nothing said


@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(2, 4),
    n=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    units=st.sampled_from([(0.0, 2.0**-20), (1e12, 1.0), (1e12, 1024.0), (0.0, 1e200), (-1e15, 4.0)]),
)
def test_equilibria_do_not_depend_on_the_payoffs_units(m, n, seed, units):
    # a positive affine map of the payoffs leaves the equilibria unchanged: tolerances are relative to
    # the payoffs' spread, so a large offset (1e12) or scale (1e200) neither merges nor loses any
    # (the maps are chosen so that float64 holds the mapped integer payoffs exactly)
    offset, scale = units
    rng = np.random.default_rng(seed)
    A, B = rng.integers(0, 9, (m, n)).astype(float), rng.integers(0, 9, (m, n)).astype(float)
    base = profiles(solve(Game(A, B, None, None)))
    moved = solve(Game(A * scale + offset, B * scale + offset, None, None))
    assert profiles(moved) == base
    for e in moved.equilibria:  # regrets in the game's own units, small against its spread
        assert max(e.regret) <= 1e-9 * 8 * scale


def test_large_offset_does_not_hide_a_regret_of_units():
    # the reliability issue's case: payoffs near 1e12, a deviation worth 4 is still a deviation
    A = 1e12 + np.array([[3.0, 0.0], [5.0, 1.0]])
    s = solve(Game(A, A.T.copy(), None, None), methods=("pure", "polytope"), eliminate=False)
    assert [(tuple(e.x), tuple(e.y)) for e in s.equilibria] == [((0.0, 1.0), (0.0, 1.0))]


@pytest.mark.parametrize("method", ["lemke_howson", "support_enumeration", "vertex_enumeration"])
def test_nashpy_method_on_a_game_dominance_solves(method):
    # iterated dominance leaves 1x1: the method's answer is the lone profile, never "0 equilibria"
    A = np.array([[3.0, 0.0], [5.0, 1.0]])
    s = solve(Game(A, A.T.copy(), None, None), methods=(method,))
    assert len(s.equilibria) == 1 and s.equilibria[0].methods == {method}
    assert "left after iterated dominance is 1x1" in s.notes[0]
