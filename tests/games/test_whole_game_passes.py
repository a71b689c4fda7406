"""The passes over a whole game that no time limit bounds, kept few and without copies (hunt 34b-F1: a 12,000 x 12,000
game of zeros ran 124 s at ``--time-limit 5``): the checks of its payoffs read their least and largest (no mask of
every entry), a reader's arrays are held as read (``Game(..., copy=False)``), dominance of a game that keeps every
strategy compares the game itself, a regret of a large game is shifted a block at a time, and a profile is weighed
against the other's payoffs by its support alone. Each fast path is held to its plain reference here."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.errors import InputError
from gamemarket.games import Game
from gamemarket.games import equilibria as eq
from gamemarket.games.checks import check_finite


def _check_finite_reference(M, what):
    """The check as it was: a mask of every entry, then the range."""
    M = np.asarray(M, dtype=float)
    bad = ~np.isfinite(M)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InputError(f"{what}: payoff at ({i}, {j}) is {float(M[bad][0])!r}; every payoff must be a finite number")
    if M.size:
        with np.errstate(over="ignore"):
            spread = np.float64(M.max()) - np.float64(M.min())
        if not np.isfinite(spread):
            raise InputError(
                f"{what}: payoffs range from {M.min():g} to {M.max():g}, a difference beyond the float range"
            )


def _said(f, M):
    try:
        f(M, "g")
    except InputError as exc:
        return str(exc).split(";")[0]
    return None


@settings(max_examples=300, deadline=None)
@given(
    shape=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    values=st.lists(
        st.sampled_from([0.0, 1.0, -2.5, 1e308, -1e308, np.nan, np.inf, -np.inf, 5e-324]), min_size=25, max_size=25
    ),
)
def test_the_finite_check_by_extremes_says_what_the_mask_said(shape, values):
    M = np.array(values[: shape[0] * shape[1]], dtype=float).reshape(shape)
    assert _said(check_finite, M) == _said(_check_finite_reference, M)


def test_a_game_holds_copies_unless_told_not_to():
    A, B = np.zeros((3, 2)), np.ones((3, 2))
    copied = Game(A, B)
    held = Game(A, B, copy=False)
    assert copied.A is not A and not np.shares_memory(copied.A, A)
    assert held.A is A and held.B is B and held == copied
    assert Game(A.astype(np.float32), B, copy=False).A.dtype == np.float64  # (made float64: a copy all the same)
    with pytest.raises(InputError, match=r"Game: copy must be True or False, got 'no'"):
        Game(A, B, copy="no")
    with pytest.raises(InputError, match=r"payoff at \(r1, c0\) is nan"):
        Game(np.array([[0.0, 1.0], [np.nan, 2.0]]), np.zeros((2, 2)), copy=False)


def test_a_read_npz_game_holds_the_arrays_it_read(tmp_path, monkeypatch):
    from gamemarket.games import io as gio

    made = []
    real = np.array

    def counting(obj, *a, **k):  # every float64 copy of a payoff matrix the reader or the game makes
        out = real(obj, *a, **k)
        if isinstance(obj, np.ndarray) and obj.shape == (40, 30) and out is not obj:
            made.append(obj.shape)
        return out

    np.savez(tmp_path / "g.npz", A=np.arange(1200.0).reshape(40, 30), B=np.ones((40, 30)))
    monkeypatch.setattr("gamemarket.games.bimatrix.np.array", counting, raising=False)
    g = gio.read_npz_game(tmp_path / "g.npz")
    assert g.A.shape == (40, 30) and g.A[39, 29] == 1199.0 and not made


def test_dominance_of_a_game_that_keeps_every_strategy_compares_the_game_itself():
    M = np.arange(12.0).reshape(3, 4)
    every = np.ones(3, bool), np.ones(4, bool)
    assert eq._kept(M, *every) is M
    some = np.array([True, False, True]), np.array([True, True, False, True])
    assert np.array_equal(eq._kept(M, *some), M[np.ix_(*some)])


@settings(max_examples=200, deadline=None)
@given(
    m=st.integers(1, 12),
    n=st.integers(1, 12),
    block=st.integers(1, 30),
    offset=st.sampled_from([0.0, 1e6, -1e12]),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_regret_shifted_a_block_at_a_time_is_the_regret_shifted_whole(m, n, block, offset, seed):
    rng = np.random.default_rng(seed)
    A, B = offset + rng.random((m, n)), offset + rng.random((m, n))
    x, y = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(n))
    whole = (
        max(0.0, float(((A - A.min()) @ y).max() - x @ ((A - A.min()) @ y))),
        max(0.0, float((x @ (B - B.min())).max() - (x @ (B - B.min())) @ y)),
    )
    old = eq.REGRET_BLOCK_CELLS
    eq.REGRET_BLOCK_CELLS = block  # (a hypothesis test takes no function-scoped fixture: set and put back)
    try:
        blocked = eq.unchecked_regret(A, B, x, y)
    finally:
        eq.REGRET_BLOCK_CELLS = old
    assert np.allclose(blocked, whole, rtol=1e-12, atol=1e-12), (blocked, whole)


@settings(max_examples=300, deadline=None)
@given(
    m=st.integers(1, 40),
    n=st.integers(1, 40),
    played=st.tuples(st.integers(1, 40), st.integers(1, 40)),
    offset=st.sampled_from([0.0, 1e6, -1e12]),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_profile_weighed_by_its_support_is_weighed_as_by_the_whole_game(m, n, played, offset, seed):
    rng = np.random.default_rng(seed)
    A, B = offset + rng.random((m, n)), offset + rng.random((m, n))
    x, y = np.zeros(m), np.zeros(n)
    S, T = rng.choice(m, min(m, played[0]), replace=False), rng.choice(n, min(n, played[1]), replace=False)
    x[S], y[T] = rng.dirichlet(np.ones(len(S))), rng.dirichlet(np.ones(len(T)))
    x[S] /= x.sum()  # (a single share exactly 1, as a pure profile's: numpy's Dirichlet of one may return 1 - 1e-16)
    y[T] /= y.sum()
    Ay, xB = eq.against(A, B, x, y)
    size = abs(offset) + 1.0
    assert np.allclose(Ay, A @ y, rtol=0, atol=1e-13 * size) and np.allclose(xB, x @ B, rtol=0, atol=1e-13 * size)
    assert np.allclose(eq.payoffs_at(A, B, x, y), (x @ A @ y, x @ B @ y), rtol=0, atol=1e-13 * size)
    if len(S) == 1 and len(T) == 1:  # a pure profile: a column and a row of the game, read exactly
        (i,), (j,) = S, T
        assert (
            np.array_equal(Ay, A[:, j]) and np.array_equal(xB, B[i]) and eq.payoffs_at(A, B, x, y) == (A[i, j], B[i, j])
        )
        px, py = eq._polished(A, B, x, y)
        assert px is x and py is y  # (nothing to solve again: the same arrays)


def test_the_pure_methods_equilibria_hold_at_most_a_copy_of_the_games_payoffs(monkeypatch):
    # verified a column and a row each, 100,000 candidates of a 12,000 x 12,000 game of ties would be found within a
    # few seconds and held as 19 GB of profiles: their count is bounded by the memory of a copy of the game's payoffs
    assert eq.most_pure_candidates(12_000, 12_000) == 6_000
    assert eq.most_pure_candidates(5, 4) == eq.MAX_PURE_CANDIDATES  # (a small game: every one, up to the bound)
    monkeypatch.setattr(eq, "PURE_LIST_BYTES", 8 * 60 * 40)  # (60 x 40's own payoffs: 2,400 cells, 24 profiles)
    z = np.zeros((60, 40))
    sol = eq.solve(Game(z, z), methods=("pure",), time_limit=None)
    assert len(sol.equilibria) == eq.most_pure_candidates(60, 40) == 24
    assert len(sol.equilibria) * (60 + 40) * 8 <= z.nbytes
    (note,) = [n for n in sol.notes if n.startswith("incomplete: pure:")]
    assert "the game has 2,400 pure equilibria" in note and "(at most 24 in a game of 60 x 40" in note


def _deaf(seconds):  # a child that takes SIGTERM for nothing (as one stopped before its own handlers are set)
    import signal
    import time

    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(seconds)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="a forked child: POSIX only")
def test_a_solvers_child_that_does_not_end_when_asked_is_killed():
    # hunt 34b-F1's run: Gambit's child, stopped as it started, went on building a 5,000 x 5,000 game (8.6 GB, a
    # minute) after `game solve` had ended
    import multiprocessing as mp
    import time

    from gamemarket.games.budget import STOP_WAIT_S, stop_child

    p = mp.get_context("fork").Process(target=_deaf, args=(60,), daemon=True)
    p.start()
    time.sleep(0.3)  # (its handler set)
    t = time.monotonic()
    stop_child(p)
    assert not p.is_alive() and p.exitcode == -9 and time.monotonic() - t < 2 * STOP_WAIT_S + 1


def test_no_solver_child_is_started_without_time_left_or_beyond_the_memory_it_would_take(monkeypatch):
    from gamemarket.games import gambit
    from gamemarket.games.budget import time_for_a_child
    from gamemarket.games.nashpy_runs import nashpy_equilibria

    assert time_for_a_child(None, "x") is None and time_for_a_child(0.05, "x") is None
    assert time_for_a_child(0.001, "gambit gnm") == (
        "gambit gnm: not started: the steps before it spent the time limit (0.001 s were left to it)"
    )
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(10**9))
    said = gambit.too_large((12_000, 12_000), "gnm", None)
    assert said.startswith("gambit gnm: not started: pygambit builds this 12,000 x 12,000 game's 144,000,000 payoffs")
    assert "in about 115 GB, beyond the memory limit of 1 GB" in said
    assert "in about 20 s, beyond the 5 s left to it" in gambit.too_large((1000, 1000), "gnm", 5.0)
    assert gambit.too_large((20, 20), "gnm", 5.0) is None
    assert eq.large_game_method((12_000, 12_000), 5.0) == "lemke_howson_first"
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(10**7))
    z = np.zeros((600, 600))  # (nashpy's tableaux: 8 x 1,201 x 1,200 bytes, and its two copies: 17 MB)
    profiles, problem = nashpy_equilibria(z, z, "lemke_howson_first", time_limit=5)
    assert not profiles and problem == (
        "nashpy lemke_howson_first: not started: its tableaux for this 600 x 600 game take about 0.0173 GB, beyond the "
        "memory limit of 0.01 GB"
    )


def test_dominance_and_the_verification_show_their_bars_when_asked(monkeypatch, capsys):
    # hunt 36c-F1: an 8,000 x 8,000 game's dominance and its candidates' verification ran seconds each with
    # --progress and not a line on stderr (the methods' own searches had bars, these passes none)
    from gamemarket.games import budget

    monkeypatch.setattr(budget, "PROGRESS_DELAY", 0.0)
    z = np.zeros((300, 300))
    eq.solve(Game(z, z), methods=("pure",), time_limit=30, progress=True)
    err = capsys.readouterr().err
    assert "dominance: strategies compared" in err and "pure: candidates verified" in err, err[-500:]
    eq.solve(Game(z, z), methods=("pure",), time_limit=30, progress=False)
    assert capsys.readouterr().err == ""


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(2, 4),
    exponent=st.integers(-12, 12),
    offset=st.sampled_from([0.0, 1.0, -1e3]),
    seed=st.integers(0, 2**31),
)
def test_a_mixed_profiles_shares_are_solved_again_to_the_floats_precision_at_every_payoff_scale(
    k, exponent, offset, seed
):
    # hunt 39c-F1: Gambit's GNM answered matching pennies to 1e-12 of its spread at every scale; solved again in the
    # game's units, beside the shares' row of ones, a block of 1e6 or 1e-6 came back worse than that (2.6e-11 of the
    # spread) and the equilibrium was discarded, "none found", where at scale 1 it was listed
    rng = np.random.default_rng(seed)
    x0, y0 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
    A0, B0 = rng.normal(size=(k, k)), rng.normal(size=(k, k))
    A0 -= (A0 @ y0)[:, None]  # every row indifferent against y0, every column against x0: (x0, y0) an equilibrium
    B0 -= (x0 @ B0)[None, :]
    scale = 10.0**exponent
    A, B = (A0 + offset) * scale, (B0 + offset) * scale
    noisy = [p + rng.normal(0, 1e-12, k) for p in (x0, y0)]
    x, y = [np.abs(p) / np.abs(p).sum() for p in noisy]
    px, py = eq._polished(A, B, x, y)
    spread = max(np.ptp(A), np.ptp(B))
    assert max(eq.unchecked_regret(A, B, px, py)) <= 64 * np.finfo(float).eps * spread
