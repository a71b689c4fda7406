"""Hunt 18b: a negative duality gap is never "converged" (F7), a price-discovery file given to ``game solve`` is named
as no game (F8), one shape rule for every per-job and per-resource array (W1), and an incomplete ``Utility`` named on
construction (W6)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from scipy.optimize import linprog

from gamemarket.cli import main
from gamemarket.errors import GameMarketError, InputError
from gamemarket.games.io import read_npz_game
from gamemarket.pricing import Problem, load, solve
from gamemarket.pricing.allocation import check_feasible
from gamemarket.pricing.certificate import check_result, duality_tolerance
from gamemarket.pricing.utilities import Linear, Log, Utility


class NegBR(Linear):
    """A utility whose best response is wrong (negative throughputs): its dual bound lies below the optimum."""

    name = "negbr"

    def fused(self):
        return None

    def best_response(self, s):
        return -np.abs(super().best_response(s)) - 1.0

    def best_response_matrix(self, S):
        return -np.abs(super().best_response_matrix(S)) - 1.0


class GenericLinear(Linear):
    """The linear utility on the generic (numpy) path, correct: it must still converge."""

    name = "genlin"

    def fused(self):
        return None


def _problem_arrays():
    A = np.random.default_rng(0).uniform(0.1, 1, (30, 3))
    return A, np.full(3, 5.0)


def _lp_optimum(A, R):
    """The linear problem's optimum by scipy's linprog (the plain reference)."""
    n, m = A.shape
    c = -A.ravel()
    rows = np.zeros((n + m, n * m))
    for i in range(n):
        rows[i, i * m : (i + 1) * m] = 1.0
    for j in range(m):
        rows[n + j, j::m] = 1.0
    res = linprog(c, A_ub=rows, b_ub=np.concatenate([np.ones(n), R]), bounds=(0, None), method="highs")
    assert res.status == 0
    return -res.fun


def test_a_wrong_best_response_is_an_error_naming_the_utility_not_converged():
    A, R = _problem_arrays()
    with pytest.raises(InputError, match=r"utility 'negbr' \(NegBR\).*weak duality is violated.*best_response"):
        solve(Problem(A, R, NegBR()))


@pytest.mark.parametrize("method", ["lbfgs", "newton", "auto"])
def test_a_wrong_best_response_is_refused_by_every_method(method):
    A, R = _problem_arrays()
    with pytest.raises(InputError, match="weak duality"):
        solve(Problem(A, R, NegBR()), method=method, eps=1e-3)


@pytest.mark.parametrize("utility", ["linear", "log", "alpha:2", "target", GenericLinear()])
def test_the_built_in_utilities_still_converge_with_a_certificate_that_holds_both_ways(utility):
    A, R = _problem_arrays()
    target = np.full(30, 0.3) if utility == "target" else None
    problem = Problem(A, R, utility, target=target)
    r = solve(problem)
    assert r.converged
    tol = duality_tolerance(abs(r.dual) + abs(r.objective) + float(r.prices @ R), 30)
    assert r.gap >= -tol and r.dual >= r.objective - tol
    assert check_feasible(problem, r.allocation) <= 1e-9
    if utility in ("linear",) or isinstance(utility, GenericLinear):
        assert abs(r.objective - _lp_optimum(A, R)) <= r.gap + 1e-6  # the optimum within the certified gap


def test_identical_resources_and_zero_capacity_paths_keep_the_check():
    """The two other places a solve declares success (identical resources priced as one; a capacity of 0)."""
    A, R = _problem_arrays()
    A2 = np.column_stack([A[:, 0], A[:, 0], A[:, 1]])
    with pytest.raises(InputError, match="weak duality"):
        solve(Problem(A2, R, NegBR()))
    assert solve(Problem(A2, R, "linear")).converged
    with pytest.raises(InputError, match="weak duality"):
        solve(Problem(A, np.array([0.0, 5.0, 5.0]), NegBR()))
    assert solve(Problem(A, np.array([0.0, 5.0, 5.0]), "linear")).converged


def test_check_result_refuses_a_negative_gap_and_an_infeasible_allocation():
    A, R = _problem_arrays()
    problem = Problem(A, R, "log")
    r = solve(problem)
    check_result(problem, r)  # a true certificate passes
    bad = type(r)(**{**r.__dict__, "dual": r.objective - 1.0, "gap": -1.0})
    with pytest.raises(GameMarketError, match=r"utility 'log' \(Log\).*weak duality.*a bug"):
        check_result(problem, bad)
    over = r.allocation
    over = type(over)(over.j1, over.x1 * 2.0, over.j2, over.x2 * 2.0, over.m)
    with pytest.raises(GameMarketError, match="violates a constraint"):
        check_result(problem, type(r)(**{**r.__dict__, "allocation": over}))


def test_a_rounding_sized_negative_gap_is_allowed():
    A, R = _problem_arrays()
    problem = Problem(A, R, "log")
    r = solve(problem)
    tiny = 1e-3 * duality_tolerance(abs(r.objective), 30)
    check_result(problem, type(r)(**{**r.__dict__, "dual": r.objective - tiny, "gap": -tiny}))


# ---------------------------------------------------------------- W6: an incomplete utility


class Bare(Utility):
    pass


class HalfDone(Utility):
    def value(self, t):
        return self.w * t


def test_an_incomplete_utility_is_named_when_the_problem_is_built():
    A, R = _problem_arrays()
    with pytest.raises(InputError, match=r"utility Bare does not define value, best_response, marginal \(a Utility"):
        Problem(A, R, Bare())
    with pytest.raises(InputError, match=r"utility HalfDone does not define best_response, marginal \("):
        Problem(A, R, HalfDone())


def test_an_incomplete_utility_set_after_construction_is_named_when_solve_starts():
    A, R = _problem_arrays()
    problem = Problem(A, R, "log")
    problem.utility = Bare().bind(30)
    with pytest.raises(InputError, match="utility Bare does not define"):
        solve(problem)


def test_a_complete_custom_utility_is_accepted():
    A, R = _problem_arrays()

    class MyLog(Log):
        name = "mylog"

    assert solve(Problem(A, R, MyLog())).converged


# ---------------------------------------------------------------- W1: one shape rule


@pytest.mark.parametrize("shape", [(1, 3), (3, 1), (1, 1, 3), ()])
def test_R_of_any_other_shape_than_m_is_refused(shape):
    A, R = _problem_arrays()
    bad = np.full(shape, 5.0)
    with pytest.raises(InputError, match=rf"resource limits R must have shape \(3,\).*got shape {re_shape(shape)}"):
        Problem(A, bad, "log")


@pytest.mark.parametrize("what", ["demand", "weight", "target"])
@pytest.mark.parametrize("shape", [(30, 1), (1, 30)])
def test_per_job_arrays_of_any_other_shape_than_n_are_refused(what, shape):
    A, R = _problem_arrays()
    kwargs = {"target": np.full(30, 0.3)} if what == "target" else {}
    kwargs[what] = np.full(shape, 0.5)
    name = "utility weight" if what == "weight" else what
    with pytest.raises(InputError, match=rf"{name} must have shape \(30,\).*got shape {re_shape(shape)}"):
        Problem(A, R, "target" if what == "target" else "log", **kwargs)


def test_the_documented_shapes_are_accepted():
    A, R = _problem_arrays()
    p = Problem(A, R, "target", demand=np.ones(30), weight=np.ones(30), target=np.full(30, 0.3))
    assert p.R.shape == (3,) and p.demand.shape == (30,)


def test_a_saved_problem_with_a_2d_R_is_refused_naming_the_file(tmp_path):
    A, R = _problem_arrays()
    path = tmp_path / "p.npz"
    np.savez(path, A=A, R=R[None, :])
    with pytest.raises(InputError, match=r"p\.npz: resource limits R must have shape \(3,\)"):
        load(path)


def re_shape(shape) -> str:
    """A shape as the message writes it, escaped for a regular expression."""
    return str(tuple(shape)).replace("(", r"\(").replace(")", r"\)")


# ---------------------------------------------------------------- F8: a price file is no game


def test_a_price_problem_given_as_a_game_is_named_as_no_game(tmp_path):
    A, R = _problem_arrays()
    p = tmp_path / "p.npz"
    np.savez(p, A=A, R=R, utility=np.array("log"))
    with pytest.raises(InputError, match=r"not a game's arrays: it holds A, R, utility \(a price-discovery problem\?"):
        read_npz_game(p)


def test_a_price_result_given_as_a_game_is_named_as_no_game(tmp_path):
    p = tmp_path / "r.npz"
    np.savez(p, prices=np.ones(3), converged=np.bool_(True), gap=np.float64(0.1))
    with pytest.raises(InputError, match=r"not a game's arrays: it holds prices, converged, gap \(a `gamemarket price"):
        read_npz_game(p)


def test_a_game_cli_refuses_a_price_problem_with_exit_2(tmp_path, capsys):
    A, R = _problem_arrays()
    p = tmp_path / "p.npz"
    np.savez(p, A=A, R=R, utility=np.array("log"))
    assert main(["game", "solve", str(p)]) == 2
    err = capsys.readouterr().err
    assert "not a game's arrays" in err and "dtype" not in err


@pytest.mark.parametrize(
    "arrays",
    [
        {"A": np.eye(2), "B": np.eye(2), "labels": np.array(["a", "b"])},
        {"arr_0": np.eye(2), "arr_1": np.eye(2)},
        {"G": np.stack([np.eye(2), np.eye(2)])},
    ],
    ids=["named-with-text-beside", "in-turn", "stacked"],
)
def test_the_game_layouts_still_read(tmp_path, arrays):
    p = tmp_path / "g.npz"
    np.savez(p, **arrays)
    with pytest.warns(UserWarning) if "labels" in arrays else _nothing():
        g = read_npz_game(p)
    np.testing.assert_array_equal(g.A, np.eye(2))


def test_a_game_array_of_text_is_still_checked(tmp_path):
    p = tmp_path / "g.npz"
    np.savez(p, A=np.array([["a"]]), B=np.ones((1, 1)), R=np.array("x"))
    with pytest.warns(UserWarning), pytest.raises(InputError, match=r"array 'A' has dtype <U1"):
        read_npz_game(p)


def _nothing():
    return contextlib.nullcontext()
