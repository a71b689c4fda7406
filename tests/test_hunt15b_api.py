"""Hunt 15b's Python-API findings: each refused with an InputError naming the argument, or answered right."""

from __future__ import annotations

import copy
import os
import pickle

import numpy as np
import pandas as pd
import pytest

from gamemarket.errors import InputError


@pytest.fixture(scope="module")
def priced():
    from gamemarket.pricing import Problem, solve

    pr = Problem(np.random.default_rng(0).uniform(0.1, 1, (40, 3)), np.full(3, 6.0), "log")
    return pr, solve(pr)


@pytest.mark.parametrize(
    ("method", "value", "said"),
    [
        ("usage", np.ones(5), r"usage: demand must have shape \(40,\) .* got shape \(5,\)"),  # read past its end
        ("usage", np.ones(500), r"got shape \(500,\)"),  # was cut to 40 in silence
        ("usage", np.ones((40, 3)), r"got shape \(40, 3\)"),  # numba's TypingError
        ("usage", ["a"] * 40, r"usage: demand must be a plain array of numbers"),
        ("throughput", np.ones((5, 3)), r"throughput: A must have shape \(40, 3\) .* got shape \(5, 3\)"),
        ("throughput", np.ones((40, 2)), r"got shape \(40, 2\)"),  # read out of bounds
        ("throughput", np.ones(40), r"got shape \(40,\)"),
        ("spend", np.ones(1), r"spend: prices must have shape \(3,\) .* got shape \(1,\)"),  # IndexError
        ("spend", np.ones(10), r"got shape \(10,\)"),  # cut to 3
    ],
)
def test_an_allocation_refuses_arguments_of_another_shape(priced, method, value, said):
    with pytest.raises(InputError, match=said):
        getattr(priced[1].allocation, method)(value)


def test_an_allocation_answers_arguments_of_its_shape(priced):
    pr, r = priced
    X = r.allocation.dense()
    np.testing.assert_allclose(r.allocation.usage(pr.demand), pr.demand @ X, atol=1e-12)
    np.testing.assert_allclose(r.allocation.throughput(pr.A.astype(np.float32)), (pr.A * X).sum(1), rtol=1e-6)
    np.testing.assert_allclose(r.allocation.spend(r.prices.tolist()), X @ r.prices, atol=1e-12)


def test_solve_refuses_a_device_the_numpy_backend_ignores_and_an_overflowing_start(priced):
    from gamemarket.pricing import solve

    with pytest.raises(InputError, match=r"device='cuda' applies to the torch backend"):
        solve(priced[0], device="cuda")
    with pytest.raises(InputError, match=r"p0: the dual is not finite at these starting prices"):
        solve(priced[0], p0=np.full(3, 1e308))


def test_a_problem_takes_object_and_pyarrow_efficiencies_and_refuses_sparse_and_masked():
    from gamemarket.pricing import Problem

    A = np.random.default_rng(0).uniform(0.1, 1, (20, 3))
    for given in (A.astype(object), pd.DataFrame(A).convert_dtypes(dtype_backend="pyarrow")):
        np.testing.assert_array_equal(Problem(given, np.full(3, 3.0), "log").A, A)  # AttributeError before
    scipy_sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(InputError, match=r"scipy.sparse matrix .* is not taken: give A.toarray\(\)"):
        Problem(scipy_sparse.csr_matrix(A), np.full(3, 3.0), "log")
    with pytest.raises(InputError, match=r"A is a masked array with 1 masked entries"):
        Problem(np.ma.array(A, mask=np.eye(20, 3)[:, ::-1] * (np.arange(20)[:, None] == 0)), np.full(3, 3.0), "log")
    with pytest.raises(InputError, match=r"A must hold numbers .* got 'x'"):
        Problem(np.array([[1.0, "x"]], dtype=object), np.full(2, 3.0), "log")
    mine = A.copy()
    problem = Problem(mine, np.full(3, 3.0), "log")
    assert problem.A is mine  # held as given, not copied: a problem of millions of jobs would hold A twice


def test_problem_save_and_load_name_the_path_and_the_os_reason(tmp_path, monkeypatch):
    from gamemarket.pricing import load, synthetic

    pr = synthetic(20, 2)
    with pytest.raises(InputError, match=r"is a folder; Problem.save writes a file"):
        pr.save(tmp_path)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match=r"file/p.npz: cannot write the problem: Not a directory"):
        pr.save(tmp_path / "file" / "p.npz")
    os.symlink(tmp_path / "loopB", tmp_path / "loopA")
    os.symlink(tmp_path / "loopA", tmp_path / "loopB")
    with pytest.raises(InputError, match=r"loopA: cannot read the problem: Too many levels of symbolic links"):
        load(tmp_path / "loopA")

    def full(*args, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(InputError, match=r"p.npz: cannot write the problem: No space left on device"):
        pr.save(tmp_path / "p.npz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "loopA", "loopB"]


def test_a_memory_limit_is_named_by_where_it_came_from(tmp_path, monkeypatch):
    from gamemarket.io.limits import memory_limit
    from gamemarket.pricing import synthetic

    with pytest.raises(InputError, match=r"the limit is 10 bytes \(the limit= argument\)"):
        synthetic(100, 3, limit=10)
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", "10")
    with pytest.raises(InputError, match=r"the limit is 10 bytes \(GAMEMARKET_MEMORY_LIMIT\);"):  # (set: 39b-W1)
        synthetic(100, 3, limit=memory_limit())
    assert pickle.loads(pickle.dumps(memory_limit())) == 10


A2 = np.array([[3, 0], [5, 1.0]])
B2 = np.array([[3, 5], [0, 1.0]])


@pytest.mark.parametrize(
    ("x", "said"),
    [
        ([0.3, 0.3], r"must be 2 probabilities \(each >= 0, summing to 1\), got \[0.3, 0.3\] \(sum 0.6\)"),
        ([1.5, -0.5], r"must be 2 probabilities .* got \[1.5, -0.5\]"),
        (["0.5", "0.5"], r"must be 2 finite probabilities, got \['0.5', '0.5'\]"),
        ((v for v in (0.5, 0.5)), r"must be 2 probabilities .* got <generator object"),  # was "got None"
    ],
)
def test_regret_refuses_mixtures_that_are_not_probabilities(x, said):
    from gamemarket.games import regret

    with pytest.raises(InputError, match=r"x \(the row player's mixture\) " + said):
        regret(A2, B2, x, [1, 0])


def test_regret_takes_a_mixture_off_by_rounding():
    from gamemarket.games import regret

    assert regret(A2, B2, [0.5, 0.5 + 1e-12], [1, 0]) == pytest.approx((1.0, 1.5))


def test_a_game_copies_refuses_masks_and_names_positional_axes_by_default():
    from gamemarket.games import Game

    mine = A2.copy()
    g = Game(mine, B2)
    mine[0, 0] = np.nan
    assert g.A[0, 0] == 3.0
    with pytest.raises(InputError, match=r"A is a masked array with 1 masked entries"):
        Game(np.ma.array(A2, mask=[[1, 0], [0, 0]]), B2)
    g = Game(pd.DataFrame(A2, index=[10, 20]), B2)
    assert (g.rows, g.cols) == (["10", "20"], ["c0", "c1"])  # cols were '0', '1'


def test_replications_near_the_float_limit_are_checked_and_bounded():
    from gamemarket.games import Game

    reps = np.full((2, 2, 3), 1e308)
    Game(np.full((2, 2), 1e308), np.zeros((2, 2)), A_reps=reps, B_reps=np.zeros((2, 2, 3)))  # "mean is inf"
    r = np.stack([np.full((2, 2), 1e307), np.full((2, 2), -1e307)], axis=2)
    half, _ = Game(np.zeros((2, 2)), np.zeros((2, 2)), A_reps=r, B_reps=r).ci()
    assert np.isfinite(half).all()


def _payoff_table():
    return pd.DataFrame(
        {
            "provider": ["p1", "p1", "p2", "p2"] * 2,
            "consumer": ["c1", "c2"] * 4,
            "revenue": np.arange(8.0),
            "mean_utility": np.arange(8.0)[::-1],
            "seed": [1] * 4 + [2] * 4,
        }
    )


def test_from_results_names_a_text_metric_column():
    from gamemarket.games import from_results

    with pytest.raises(InputError, match=r"payoff table column 'revenue' must hold numbers, got 'x'"):
        from_results(_payoff_table().assign(revenue="x"), "revenue", "mean_utility")


def test_games_and_results_compare_by_value():
    from gamemarket.games import Game, from_results
    from gamemarket.games.rsgame import RoleSymmetricGame
    from gamemarket.market.simulate import RunResult

    g = from_results(_payoff_table(), "revenue", "mean_utility")
    assert g == pickle.loads(pickle.dumps(g)) and g == copy.deepcopy(g)
    assert g != Game(g.A, g.B) and Game(A2, B2) == Game(A2, B2) and Game(A2, B2) != Game(A2, B2 + 1)
    rsg = RoleSymmetricGame.from_function(["all"], [2], [["a", "b"]], lambda p: np.asarray(p, dtype=float))
    assert rsg == copy.deepcopy(rsg)
    run = RunResult(pd.DataFrame({"x": [1.0, np.nan]}), {"revenue": 1.0, "w": np.nan}, {"a": np.arange(3)})
    assert run == copy.deepcopy(run) and run != RunResult(run.jobs, {"revenue": 2.0, "w": np.nan}, run.meta)


@pytest.fixture(scope="module")
def population():
    from gamemarket import bids
    from gamemarket.consumers import ShadingRule
    from gamemarket.studies.population import PopulationConfig
    from gamemarket.workloads import load

    w = load("synthetic", jobs=100, load=1.1, seed=1, nodes=8)
    arrays = {c: w.jobs[c].to_numpy(np.int64) for c in ("id", "submit", "runtime", "estimate", "user")}
    rules = (ShadingRule("truthful", (0, 0, 0)), ShadingRule("shade-high", (0, 0, 0.9)))
    return arrays, PopulationConfig(rules, probe=0.01), bids.BidDistribution()


MECH = {"scheduler": "hb", "payment": "first", "reserve": 1.0}


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (dict(mixtures=[np.array([np.nan, 1.0])]), r"mixtures\[0\] must be 2 shares .* got array\(\[nan, 1\.\]\)"),
        (dict(mixtures=[np.array([0.5, 0.2])]), r"mixtures\[0\] must be 2 shares"),
        (dict(mixtures=[np.array([1.5, -0.5])]), r"mixtures\[0\] must be 2 shares"),
        (dict(mixtures=[np.array([0.5, 0.3, 0.2])]), r"mixtures\[0\] must be 2 shares"),
        (dict(mixtures=[np.array([[1.0, 0.0]])]), r"mixtures\[0\] must be 2 shares"),
        (dict(mixtures=[]), r"mixtures must be a non-empty list"),
        (dict(mechanism={"scheduler": "hb", "payment": "first"}), r"mechanism .* lacks 'reserve'"),
        (dict(short=True), r"arrays\['runtime'\] has 99 rows, the other columns 100"),
    ],
)
def test_run_chunk_refuses_inconsistent_arguments(population, change, said):
    from gamemarket.studies.population import run_chunk

    arrays, cfg, dist = population
    if change.pop("short", False):
        arrays = {**arrays, "runtime": arrays["runtime"][:-1]}
    args = {"mechanism": MECH, "mixtures": [np.array([1.0, 0.0])], **change}
    with pytest.raises(InputError, match=r"run_chunk: " + said):
        run_chunk(arrays, 8, args["mechanism"], 1, args["mixtures"], cfg, dist)


def test_run_chunk_takes_a_mechanism_object(population):
    from gamemarket.market import Mechanism
    from gamemarket.studies.population import payoffs_of, run_chunk

    arrays, cfg, dist = population
    one = payoffs_of(run_chunk(arrays, 8, MECH, 1, [[1.0, 0.0]], cfg, dist)[0])
    two = payoffs_of(run_chunk(arrays, 8, Mechanism("hb", "first", 1.0), 1, [[1.0, 0.0]], cfg, dist)[0])
    np.testing.assert_array_equal(one, two)


def test_numpy_integers_are_whole_numbers_of_workers():
    from gamemarket.io.limits import check_workers

    assert check_workers(np.int64(1)) == 1 and type(check_workers(np.int32(-1))) is int
    with pytest.raises(InputError, match=r"got 1.5 \(float\)"):
        check_workers(1.5)


def test_a_mechanism_keeps_python_numbers():
    from gamemarket.market import Mechanism

    m = Mechanism("hb", "kth", np.float32(0.1))
    assert type(m.reserve) is float and m.reserve == 0.1
    assert type(Mechanism("hb", "kth", 1).reserve) is int  # (a Python number stays as given: keys unchanged)


def test_consumer_strategy_names_hold_no_control_character():
    from gamemarket.consumers import BetaMix, ShadingRule

    with pytest.raises(InputError, match=r"beta mix: name: strategy name 'a\\nb' holds a control or format character"):
        BetaMix(((1.0, 0.5),), name="a\nb")
    with pytest.raises(InputError, match=r"shading rule: name: strategy name 'a\\tb' holds a control or format"):
        ShadingRule("a\tb", (0, 0, 0))


def test_job_table_refuses_a_nan_run_time():
    from gamemarket import bids, consumers
    from gamemarket.workloads import load

    jobs = load("synthetic", jobs=20, seed=1, nodes=8).jobs
    with pytest.raises(InputError, match=r"jobs: row 0: column 'runtime' is empty or NaN"):
        bids.job_table(jobs.assign(runtime=np.nan), consumers.SRG, seed=1)


def test_a_source_neither_a_file_nor_a_trace_is_not_called_a_trace(tmp_path, monkeypatch):
    from gamemarket.workloads import load

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=r"Synthetic: neither a workload file nor a known trace .*did you mean"):
        load("Synthetic", jobs=300)


def test_overflowing_generator_parameters_print_no_warning(recwarn):
    from gamemarket.workloads import load

    for kw in (dict(load=5e-324), dict(overestimate=1e308)):
        with pytest.raises(InputError, match=r"synthetic workload"):
            load("synthetic", jobs=300, **kw)
    assert [str(w.message) for w in recwarn if issubclass(w.category, RuntimeWarning)] == []


def test_a_mix_given_in_another_case_is_recorded_under_the_catalogues_name():
    """S03/D02, the simulate half: ``--mix srg`` matched SRG and was recorded as 'srg'."""
    from gamemarket.market.profile import simulate_profile

    run = simulate_profile(synthetic_jobs=60, nodes=2, mix="srg")
    assert run.summary["mix"] == "SRG"
