"""The pricing API's arguments checked at its entry: a bad value is an :class:`InputError` naming the argument and
the value (a bare TypeError, AttributeError or ValueError from numpy or pathlib, or an answer to a value the
argument does not take, before), and valid values still give the same answers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.pricing import Linear, Log, Power, Problem, Target, Utility, load, register_utility, solve, synthetic


@pytest.fixture(scope="module")
def problem():
    return synthetic(6, 2, "log", seed=1)


@pytest.mark.parametrize("kind", [Linear, Target, Utility])
@pytest.mark.parametrize(
    "weight, message",
    [
        ("abc", r"utility weight must hold numbers .* got <U3 values such as 'abc'"),
        ([], r"weight must be one number per job \(a 1-D array .*\), got \[\]"),
        (np.array([]), r"weight must be one number per job .*, got \[\]"),
        (math.nan, r"weight must be one number per job .*, got nan"),
        (-3, r"weight must be one number per job .*, got -3"),
        (True, r"utility weight must hold numbers .* got bool values such as True"),
        (10**30, r"utility weight must hold numbers .* got 1000000000000000000000000000000 \(int\)"),
        ({}, r"utility weight must hold numbers .* got \{\} \(dict\)"),
        (object(), r"utility weight must hold numbers .* got <object object"),
        ([1.0, math.nan], r"utility weight of job 1 is nan"),
        ([1.0, -2.0], r"utility weight of job 1 is -2.0"),
        ([1.0, 1e30], r"utility weight\[1\] is 1e\+30: expected 0 or a magnitude"),
        ([[1.0, 2.0]], r"weight must be one number per job"),
    ],
)
def test_a_utilitys_weight_is_one_number_per_job(kind, weight, message):
    with pytest.raises(InputError, match=message):
        kind(weight=weight)


def test_a_utilitys_weight_as_given_is_the_problems(problem):
    w = np.arange(1, 7, dtype=float)
    own = solve(Problem(problem.A, problem.R, Linear(weight=[1, 2, 3, 4, 5, 6])))
    given = solve(Problem(problem.A, problem.R, "linear", weight=w))
    assert own.objective == given.objective
    assert Linear().weight is None and Target(weight=[0, 1]).weight.tolist() == [0.0, 1.0]


@pytest.mark.parametrize(
    "alpha, message",
    [
        (10**30, r"alpha 1e\+30 is above 100"),
        (10**400, r"alpha must be a finite number > 0, got 100000000000\.\.\. \(401 digits\)"),
        (True, r"alpha must be a finite number > 0, got True"),
        (math.nan, r"alpha must be a finite number > 0, got nan"),
        (-3, r"alpha must be a finite number > 0, got -3"),
        ("2", r"alpha must be a finite number > 0, got '2'"),
        (None, r"alpha must be a finite number > 0, got None"),
    ],
)
def test_power_takes_a_finite_real_alpha(alpha, message):
    with pytest.raises(InputError, match=message):
        Power(alpha)


def test_power_of_a_valid_alpha_is_unchanged():
    assert Power(2).alpha == 2.0 and Power(np.float32(0.5)).alpha == 0.5 and Log().alpha == 1.0


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("R", None, r"resource limits R must hold numbers .* got None \(NoneType\)"),
        ("R", 10**30, r"resource limits R must hold numbers .* got 1000000000000000000000000000000 \(int\)"),
        ("R", {}, r"resource limits R must hold numbers .* got \{\} \(dict\)"),
        ("R", object(), r"resource limits R must hold numbers .* got <object object"),
        ("demand", 10**30, r"demand must hold numbers .* got 1000000000000000000000000000000"),
        ("demand", {}, r"demand must hold numbers .* got \{\}"),
        ("weight", object(), r"utility weight must hold numbers .* got <object object"),
        ("weight", 10**30, r"utility weight must hold numbers"),
        ("utility", 3, r"utility must be a name .* or a gamemarket.pricing.Utility, got 3 \(int\)"),
    ],
)
def test_a_problems_arrays_are_numbers(problem, field, value, message):
    args = dict(A=problem.A, R=problem.R, utility="log")
    args[field] = value
    with pytest.raises(InputError, match=message):
        Problem(**args)


@pytest.mark.parametrize("path", [None, [], np.array([]), math.nan, -3, True, 10**30, {}, object()])
def test_load_and_save_take_a_path(problem, path):
    with pytest.raises(InputError, match=r"load: path must be a path \(a str or an os.PathLike\), got "):
        load(path)
    with pytest.raises(InputError, match=r"Problem.save: path must be a path \(a str or an os.PathLike\)"):
        problem.save(path)


def test_load_and_save_of_a_path_still_work(problem, tmp_path):
    problem.save(tmp_path / "p.npz")
    problem.save(str(tmp_path / "q.npz"))
    assert np.array_equal(load(str(tmp_path / "p.npz")).A, problem.A)
    assert np.array_equal(load(Path(tmp_path / "q.npz")).R, problem.R)


@pytest.mark.parametrize("replace", [None, "abc", [], np.array([]), math.nan, -3, 10**30, {}, object()])
def test_register_utility_replace_is_a_flag(replace):
    with pytest.raises(InputError, match=r"register_utility: replace must be True or False, got "):
        register_utility("api-args-log", Log, replace=replace)


@pytest.mark.parametrize(
    "argument, value, message",
    [
        ("p0", True, r"p0 must be 2 finite number\(s\) >= 0 .* got True"),
        ("p0", [True, False], r"p0 must be 2 finite number\(s\) >= 0 .* got \[True, False\]"),
        ("p0", 10**400, r"p0 must be 2 .* got 100000000000\.\.\. \(401 digits\)"),
        ("p0", "abc", r"p0 must be 2 .* got 'abc'"),
        ("p0", {}, r"p0 must be 2 .* got \{\}"),
        ("p_min", True, r"p_min must be 2 finite number\(s\) >= 0 .* got True"),
        ("p_min", np.array([1.0, math.nan]), r"p_min must be 2 .* got \[1.0, nan\]"),
        ("method", np.array([]), r"method must be one of \('lbfgs', 'newton', 'auto'\), got array\(\[\]"),
        ("method", [], r"method must be one of .*, got \[\]"),
        ("backend", np.array([]), r"backend must be 'numpy' or 'torch', got array\(\[\]"),
        ("backend", {}, r"backend must be 'numpy' or 'torch', got \{\}"),
        ("device", None, r"device must be a device name \(cpu, cuda, cuda:<index>, mps or xpu\), got None"),
        ("device", "abc", r"device must be a device name .*, got 'abc'"),
        ("device", True, r"device must be a device name .*, got True"),
        ("device", -3, r"device must be a device name .*, got -3"),
        ("device", "cuda:x", r"device must be a device name .*, got 'cuda:x'"),
        ("device", "cuda:0", r"device='cuda:0' applies to the torch backend; give backend='torch'"),  # (was ignored)
        ("dtype", None, r"dtype must be float64 or float32 \(numpy's, or their names\), got None"),
        ("dtype", "abc", r"dtype must be float64 or float32 .*, got 'abc'"),
        ("dtype", True, r"dtype must be float64 or float32 .*, got True"),
        ("dtype", 10**30, r"dtype must be float64 or float32 .*, got 1000000000000000000000000000000"),
        ("dtype", {}, r"dtype must be float64 or float32 .*, got \{\}"),
        ("dtype", np.array([]), r"dtype must be float64 or float32 .*, got array"),
        ("dtype", "int64", r"dtype must be float64 or float32 .*, got 'int64'"),
    ],
)
def test_solve_refuses_what_its_arguments_do_not_take(problem, argument, value, message):
    with pytest.raises(InputError, match=message):
        solve(problem, max_iter=50, **{argument: value})


def test_solve_of_valid_arguments_is_unchanged(problem):
    base = solve(problem, max_iter=50)
    for kwargs in (
        dict(device="cpu"),
        dict(dtype=np.float64),
        dict(dtype="float64"),
        dict(dtype=np.dtype("float64")),
        dict(dtype=float),
    ):
        assert solve(problem, max_iter=50, **kwargs).objective == base.objective, kwargs
    single = solve(problem, max_iter=50, dtype=np.float32).objective
    assert solve(problem, max_iter=50, dtype="float32").objective == single
    assert solve(problem, max_iter=50, p0=np.array(base.prices)).converged
    assert solve(problem, max_iter=50, p0=1, p_min=[0, 0]).converged


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(m=10**30), r"a synthetic price problem of 6 jobs x 1,000,000,000,000,000,000,000,000,000,000 resources "),
        (dict(n=10**30, m=10**30), r"cannot be drawn .*; expected a smaller problem"),
        (dict(utility=np.array([])), r"synthetic: utility must be a name .*, got array\(\[\], dtype=float64\)"),
        (dict(utility=[]), r"synthetic: utility must be a name .*, got \[\] \(list\)"),
        (dict(dtype=None), r"synthetic: dtype must be float64 or float32 .*, got None"),
        (dict(dtype="abc"), r"synthetic: dtype must be float64 or float32 .*, got 'abc'"),
        (dict(dtype=[]), r"synthetic: dtype must be float64 or float32 .*, got \[\]"),
        (dict(dtype={}), r"synthetic: dtype must be float64 or float32 .*, got \{\}"),
        (dict(dtype=True), r"synthetic: dtype must be float64 or float32 .*, got True"),
        (dict(dtype=object()), r"synthetic: dtype must be float64 or float32 .*, got <object object"),
    ],
)
def test_synthetic_refuses_what_its_arguments_do_not_take(kwargs, message):
    args = dict(n=6, m=2, utility="log")
    args.update(kwargs)
    with pytest.raises(InputError, match=message):
        synthetic(**args)


def test_synthetic_of_a_dtypes_name_is_that_dtypes_problem():
    single = synthetic(6, 2, "log", seed=3, dtype=np.float32)
    assert single.A.dtype == np.float32
    for name in ("float32", np.dtype("float32")):
        assert np.array_equal(synthetic(6, 2, "log", seed=3, dtype=name).A, single.A)
    assert np.array_equal(synthetic(6, 2, "log", seed=3, dtype="float64").A, synthetic(6, 2, "log", seed=3).A)
