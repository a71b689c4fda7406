"""Hunt 25c-F2/W6: a custom ``Utility`` written to its documented contract solves (the default ``best_response_matrix``
hands ``best_response`` one slope per job, shape (n,), column by column), and whatever a custom utility's methods return
to the solver is checked as it is returned: a wrong shape, values that are no numbers, or a NaN is an ``InputError``
naming the class, the method and what was expected (a bare numpy ValueError or TypeError, or "no finite duality gap",
before)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.pricing import Problem, solve
from gamemarket.pricing.allocation import check_feasible
from gamemarket.pricing.certificate import duality_tolerance
from gamemarket.pricing.utilities import CHECKED, Linear, Log, Power, Target, Utility, check_return

N, M = 200, 3
R = np.array([20.0, 30.0, 10.0])


def _A(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.1, 1.0, (N, M))


class Sqrt(Utility):
    """``u(t) = w sqrt(t)``, written to the per-job contract only (the hunt's reproducer)."""

    def value(self, t):
        return self.w * np.sqrt(np.maximum(t, 0))

    def best_response(self, s):  # argmax_t w sqrt(t) - s t = (w / 2s)^2
        with np.errstate(divide="ignore"):
            return np.where(s > 0, (self.w / (2 * s)) ** 2, np.inf)

    def marginal(self, t):
        return self.w / (2 * np.sqrt(np.maximum(t, 1e-300)))


class SqrtMatrix(Sqrt):
    """The same utility with a hand-written closed form over the envelope's whole slope matrix: the reference."""

    def best_response_matrix(self, S):
        with np.errstate(divide="ignore"):
            return np.where(S > 0, (self.w[:, None] / (2 * S)) ** 2, np.inf)


def _solved(utility):
    problem = Problem(_A(), R, utility)
    return problem, solve(problem)


def test_the_reproducer_solves_with_a_feasible_allocation_and_a_small_gap():
    problem, r = _solved(Sqrt())
    assert r.converged, r.message
    a = r.allocation
    shares = a.x1 + a.x2 + (0.0 if a.extra is None else np.bincount(a.extra[0], weights=a.extra[2], minlength=N))
    assert (a.x1 >= 0).all() and (a.x2 >= 0).all() and shares.max() <= 1 + 1e-9  # one unit of time per job
    assert (a.usage(np.ones(N)) <= R * (1 + 1e-9)).all()  # within the capacities
    assert check_feasible(problem, a) <= 1e-9
    tol = duality_tolerance(abs(r.dual) + abs(r.objective) + float(r.prices @ R), N)
    assert -tol <= r.gap <= 1e-6 * abs(r.objective) + tol
    assert np.isclose(r.objective, float(np.sum(np.sqrt(r.throughput))), rtol=1e-12)


def test_the_reproducer_matches_a_hand_written_matrix_version_of_the_same_utility():
    _, r = _solved(Sqrt())
    _, ref = _solved(SqrtMatrix())
    assert ref.converged
    np.testing.assert_allclose(r.prices, ref.prices, rtol=1e-3)
    assert abs(r.objective - ref.objective) <= r.gap + ref.gap + 1e-9 * abs(ref.objective)


def test_the_default_matrix_method_calls_best_response_column_by_column_with_one_slope_per_job():
    seen = []

    class Recording(Sqrt):
        def best_response(self, s):
            seen.append(np.shape(s))
            return super().best_response(s)

    u = Recording().bind(5)
    S = np.random.default_rng(1).uniform(0.1, 2.0, (5, 4))
    S[0, 3] = np.inf  # beyond a job's last segment
    H = u.best_response_matrix(S)
    assert seen == [(5,)] * 4
    np.testing.assert_array_equal(H, SqrtMatrix().bind(5).best_response_matrix(S))


def test_nan_answers_to_slopes_beyond_a_jobs_last_segment_are_allowed():
    """Only a finite slope needs an answer: the envelope pads with +inf, and those entries are never read."""

    class NanAtInf(Sqrt):
        def best_response(self, s):
            return np.where(np.isfinite(s), super().best_response(s), np.nan)

    out = NanAtInf().bind(3).best_response(np.array([1.0, np.inf, 0.5]))
    assert np.isnan(out[1]) and np.isfinite(out[[0, 2]]).all()


# ---------------------------------------------------------------- what a custom utility returns is checked


def _bad(method: str, how: str):
    """A Sqrt whose ``method`` returns a wrong shape, objects or NaN (``how``)."""

    def broken(self, *args):
        good = getattr(SqrtMatrix, method)(self, *args)
        if how == "shape":
            return np.atleast_1d(good)[..., None] if method != "best_response" else np.column_stack([good, good])
        if how == "objects":
            return np.asarray(good, dtype=object)
        return np.full(np.shape(good), np.nan)

    return type(f"Broken_{method}_{how}", (SqrtMatrix,), {method: broken})


@pytest.mark.parametrize("how", ["shape", "objects", "nan"])
@pytest.mark.parametrize("method", ["value", "marginal", "best_response", "best_response_matrix", "maximize"])
def test_a_bad_return_is_an_input_error_naming_the_class_and_the_method(method, how):
    cls = _bad(method, how)
    if method == "best_response":  # reached through the default matrix method
        cls = type(cls.__name__, (Sqrt,), {"best_response": cls.best_response})
    what = {"shape": r"an array of shape", "objects": r"an object array \(such as", "nan": r"NaN at entry"}[how]
    with pytest.raises(InputError, match=rf"utility {cls.__name__}: {method}\([^)]*\) returned {what}.*expected"):
        solve(Problem(_A(), R, cls()))


def test_a_bare_best_response_of_the_whole_matrix_is_named_with_the_shape_expected():
    class Broadcasting(Sqrt):  # written for a matrix of slopes: (n,) in, (n, n) out
        def best_response(self, s):
            return (self.w[:, None] / (2 * s)) ** 2

    with pytest.raises(InputError, match=r"utility Broadcasting: best_response\(s\) returned an array of shape "):
        solve(Problem(_A(), R, Broadcasting()))


def test_text_and_booleans_are_no_numbers():
    class Text(Sqrt):
        def marginal(self, t):
            return np.full(np.shape(t), "1.0")

    with pytest.raises(InputError, match=r"utility Text: marginal\(t\) returned <U3 values.*not a numeric array"):
        solve(Problem(_A(), R, Text()))
    u = Sqrt().bind(3)
    with pytest.raises(InputError, match=r"utility Sqrt: value\(t\) returned bool values"):
        check_return(u, "value", np.ones(3, bool), (np.ones(3),))


def test_the_slope_for_newton_and_the_initial_price_are_checked_too():
    class NanSlope(SqrtMatrix):
        def best_response_slope(self, s):
            return np.full(np.shape(s), np.nan)

    with pytest.raises(InputError, match=r"utility NanSlope: best_response_slope\(s\) returned NaN"):
        solve(Problem(_A(), R, NanSlope()), method="newton")

    class BadPrice(SqrtMatrix):
        def initial_price(self, A, R):
            return np.ones(len(R) + 1)

    with pytest.raises(InputError, match=r"utility BadPrice: initial_price\(A, R\) returned an array of shape \(4,\)"):
        solve(Problem(_A(), R, BadPrice()))


def test_a_correct_slope_gives_newton_and_the_same_answer():
    class WithSlope(SqrtMatrix):
        def best_response_slope(self, s):  # d/ds (w / 2s)^2 = -w^2 / (2 s^3)
            with np.errstate(divide="ignore"):
                return np.where(s > 0, -(self.w**2) / (2 * s**3), 0.0)

    _, ref = _solved(SqrtMatrix())
    problem = Problem(_A(), R, WithSlope())
    r = solve(problem, method="newton")
    assert r.converged and check_feasible(problem, r.allocation) <= 1e-9
    np.testing.assert_allclose(r.prices, ref.prices, rtol=1e-3)


def test_a_method_set_on_the_class_later_is_checked_when_the_problem_is_built():
    class Late(Sqrt):
        pass

    Late.value = lambda self, t: np.full(np.shape(t), np.nan)
    with pytest.raises(InputError, match=r"utility Late: value\(t\) returned NaN at entry 0 where t = "):
        solve(Problem(_A(), R, Late()))


def test_the_built_in_utilities_are_not_wrapped_and_a_subclass_override_is():
    for cls in (Linear, Power, Log, Target):
        for method in ("value", "marginal", "best_response", "best_response_matrix", "best_response_slope"):
            assert not getattr(getattr(cls, method), CHECKED, False), (cls, method)

    class MyLog(Log):
        def value(self, t):
            return super().value(t)

    assert getattr(MyLog.value, CHECKED) and not getattr(MyLog.marginal, CHECKED, False)
    assert MyLog.value.__doc__ is None and MyLog.value.__name__ == "value"


def test_a_checked_custom_utility_still_pickles():
    u = pickle.loads(pickle.dumps(Sqrt().bind(4)))
    np.testing.assert_allclose(u.value(np.full(4, 4.0)), 2.0)
