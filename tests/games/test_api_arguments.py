"""The public API's numeric, count, seed, flag and object arguments, checked on entry (hunt 8).

Each bad value is an :class:`InputError` whose message names the argument and the value given: never a raw
AttributeError, TypeError or numpy ValueError, never a silent wrong answer (``rel_tol=10`` listed all four profiles of
the prisoner's dilemma as equilibria), never an empty "success" (``methods=()``, ``simulate_many(T, 4, [])``)."""

import re

import numpy as np
import pytest

from gamemarket import bids, consumers
from gamemarket.errors import InputError
from gamemarket.games import Game, rsg_equilibria, solve
from gamemarket.games.qre import logit_branch
from gamemarket.games.rsgame import as_role_symmetric
from gamemarket.market import Mechanism, simulate, simulate_many
from gamemarket.pricing import Problem
from gamemarket.pricing import solve as price_solve
from gamemarket.pricing import synthetic as price_synthetic
from gamemarket.workloads.synthetic import SyntheticSpec, generate

PD = Game([[3, 0], [5, 1]], [[3, 5], [0, 1]])  # one equilibrium: (r1, c1), both defect
COORDINATION = Game([[1, 0], [0, 1]], [[1, 0], [0, 1]])


@pytest.fixture(scope="module")
def jobs():
    return generate(SyntheticSpec(jobs=30, nodes=4)).jobs


@pytest.fixture(scope="module")
def table(jobs):
    return bids.job_table(jobs, consumers.SRG, 0)


@pytest.fixture(scope="module")
def price_problem():
    A = np.random.default_rng(0).random((20, 3))
    return Problem(A, np.full(3, 5.0), "log")


# ---------------------------------------------------------------------------- games.solve
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"rel_tol": -1}, r"rel_tol must be in \(0, 1\), got -1"),
        ({"rel_tol": 0}, r"rel_tol must be in \(0, 1\), got 0"),
        ({"rel_tol": 10}, r"rel_tol must be in \(0, 1\), got 10"),
        ({"rel_tol": 1e9}, r"rel_tol must be in \(0, 1\), got 1000000000.0"),
        ({"rel_tol": float("nan")}, r"rel_tol must be in \(0, 1\), got nan"),
        ({"rel_tol": "1e-9"}, r"rel_tol must be in \(0, 1\), got '1e-9'"),
        ({"rel_tol": True}, r"rel_tol must be in \(0, 1\), got True"),
        ({"methods": ()}, r"methods must name at least one equilibrium method, got \(\); expected some of .*'pure'"),
        ({"methods": []}, r"methods must name at least one equilibrium method, got \[\]"),
        ({"methods": 3}, r"methods must name at least one equilibrium method, got 3"),
        ({"methods": "nope"}, r"unknown method 'nope'; expected one of .*'polytope'"),
        ({"complete": "yes"}, r"complete must be True or False, got 'yes'"),
        ({"complete": 1}, r"complete must be True or False, got 1"),
        ({"eliminate": "no"}, r"eliminate must be True or False, got 'no'"),
        ({"progress": "no"}, r"progress must be True or False \(or None\), got 'no'"),
    ],
)
def test_solve_refuses_bad_arguments(kwargs, message):
    with pytest.raises(InputError, match=message):
        solve(PD, **kwargs)


@pytest.mark.parametrize("game", [[[1, 2], [3, 4]], np.eye(2), None])
def test_solve_refuses_what_is_not_a_game(game):
    with pytest.raises(InputError, match=r"game must be a bimatrix game \(gamemarket.games.Game\(A, B\) makes one"):
        solve(game)


def test_solve_with_good_arguments_still_answers():
    assert [(e.supports()) for e in solve(PD).equilibria] == [((1,), (1,))]
    assert len(solve(PD, rel_tol=1e-6).equilibria) == 1
    assert len(solve(COORDINATION).equilibria) == 3
    one = solve(PD, methods="pure")  # one name alone is one method
    assert [e.methods for e in one.equilibria] == [{"pure"}]
    assert solve(PD, complete=True, eliminate=False, progress=None).complete


# ---------------------------------------------------------------------------- the role-symmetric solver
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"rel_tol": -1}, r"equilibria: rel_tol must be in \(0, 1\), got -1"),
        ({"rel_tol": "x"}, r"equilibria: rel_tol must be in \(0, 1\), got 'x'"),
        ({"seed": -1}, r"equilibria: seed must be a whole number >= 0, got -1"),
        ({"seed": None}, r"equilibria: seed must be a whole number >= 0, got None"),
        ({"seed": 1.5}, r"equilibria: seed must be a whole number >= 0, got 1.5"),
        ({"n_random": -3}, r"equilibria: n_random must be a whole number >= 0, got -3"),
        ({"n_random": 2.5}, r"equilibria: n_random must be a whole number >= 0, got 2.5"),
        ({"max_iters": 0}, r"equilibria: max_iters must be a whole number >= 1, got 0"),
        ({"starts_per_round": 0}, r"equilibria: starts_per_round must be a whole number >= 1, got 0"),
        ({"max_starts": -1}, r"equilibria: max_starts must be a whole number >= 1, got -1"),
        ({"dedup": -1e-6}, r"equilibria: dedup must be a number in \[0, 1\), got -1e-06"),
        ({"exact": "no"}, r"equilibria: exact must be True or False, got 'no'"),
        ({"supports": None}, r"equilibria: supports must be True or False, got None"),
        ({"progress": "yes"}, r"equilibria: progress must be True or False \(or None\), got 'yes'"),
    ],
)
def test_role_symmetric_equilibria_refuse_bad_arguments(kwargs, message):
    with pytest.raises(InputError, match=message):
        rsg_equilibria.equilibria(as_role_symmetric(PD), **kwargs)


def test_role_symmetric_equilibria_with_good_arguments_still_answer():
    sol = rsg_equilibria.equilibria(as_role_symmetric(PD), exact=False, n_random=0, seed=np.int64(3))
    assert len(sol.equilibria) == 1


# ---------------------------------------------------------------------------- logit QRE
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"max_steps": 0}, r"max_steps must be a whole number >= 1, got 0"),
        ({"max_steps": -5}, r"max_steps must be a whole number >= 1, got -5"),
        ({"max_steps": 10.0}, r"max_steps must be a whole number >= 1, got 10.0"),
        ({"normalize": "yes"}, r"normalize must be True or False, got 'yes'"),
        ({"lambda_max": "big"}, r"lambda_max must be a finite number > 0, got 'big'"),
    ],
)
def test_logit_branch_refuses_bad_arguments(kwargs, message):
    with pytest.raises(InputError, match=message):
        logit_branch(PD, **kwargs)


def test_logit_branch_with_good_arguments_still_traces():
    assert len(logit_branch(PD, max_steps=200).lambdas) > 1


# ---------------------------------------------------------------------------- the market's runs
@pytest.mark.parametrize(
    "mechanisms, message",
    [
        (["hb-kth"], r"mechanisms\[0\] must be a Mechanism \(scheduler, payment, reserve\), got 'hb-kth'"),
        ([Mechanism(), None], r"mechanisms\[1\] must be a Mechanism \(scheduler, payment, reserve\), got None"),
        ([], r"mechanisms: expected at least one mechanism, got \[\]"),
        ("hb", r"mechanisms must be a list of Mechanism \(scheduler, payment, reserve\), got 'hb'"),
        (None, r"mechanisms must be a list of Mechanism \(scheduler, payment, reserve\), got None"),
        (Mechanism(), r"mechanisms must be a list of Mechanism \(scheduler, payment, reserve\), got Mechanism\("),
    ],
)
def test_simulate_many_refuses_what_is_not_a_list_of_mechanisms(table, mechanisms, message):
    with pytest.raises(InputError, match=message):
        simulate_many(table, 4, mechanisms)


@pytest.mark.parametrize("mechanism", ["hb-kth", ""])
def test_simulate_refuses_a_name_for_a_mechanism(table, mechanism):
    with pytest.raises(InputError, match=r"mechanism must be a Mechanism \(scheduler, payment, reserve\), got '"):
        simulate(table, 4, mechanism)


def test_simulate_many_with_good_mechanisms_still_runs(table):
    one, two = simulate_many(table, 4, (Mechanism(), Mechanism("hb", "first", 1.0)))
    assert one.summary == simulate(table, 4).summary
    assert two.summary == simulate(table, 4, Mechanism("hb", "first", 1.0)).summary


# ---------------------------------------------------------------------------- bids
@pytest.mark.parametrize("seed", [None, -1, 1.5, True, "3"])
def test_job_table_refuses_a_seed_that_is_no_whole_number(jobs, seed):
    with pytest.raises(InputError, match=rf"seed must be a whole number >= 0, got {seed!r}"):
        bids.job_table(jobs, consumers.SRG, seed)


@pytest.mark.parametrize("drop", [["runtime"], ["id", "estimate"]])
def test_job_table_names_the_workload_columns_missing(jobs, drop):
    missing = [c for c in ("id", "submit", "runtime", "estimate") if c in drop]
    with pytest.raises(InputError, match=re.escape(f"jobs: missing column(s) {missing}; required: ")):
        bids.job_table(jobs.drop(columns=drop), consumers.SRG, 0)


def test_job_table_refuses_what_is_not_a_data_frame():
    with pytest.raises(InputError, match=r"jobs: expected a pandas DataFrame with columns \['id', 'submit'.*got list"):
        bids.job_table([1, 2], consumers.SRG, 0)


def test_job_table_with_good_arguments_still_draws(jobs):
    a = bids.job_table(jobs, consumers.SRG, np.uint32(7))
    assert a.equals(bids.job_table(jobs, consumers.SRG, 7)) and len(a) == len(jobs)


def _columns(jobs):
    return {c: jobs[c].to_numpy() for c in jobs.columns}


@pytest.mark.parametrize("drop", [["id"], ["runtime", "estimate"]])
def test_job_columns_names_the_workload_columns_missing(jobs, drop):
    columns = {c: a for c, a in _columns(jobs).items() if c not in drop}
    missing = [c for c in ("id", "submit", "runtime", "estimate") if c in drop]
    with pytest.raises(InputError, match=re.escape(f"columns: missing column(s) {missing}; required: ")):
        bids.job_columns(columns, consumers.SRG, 0)  # (a missing id was a KeyError)


def test_job_columns_refuses_columns_of_uneven_length_and_what_is_no_mapping(jobs):
    columns = _columns(jobs)
    columns["runtime"] = columns["runtime"][:-1]
    with pytest.raises(InputError, match=r"columns: the required columns differ in length \{'id': 30, .*'runtime': 29"):
        bids.job_columns(columns, consumers.SRG, 0)
    with pytest.raises(InputError, match=r"columns: expected a mapping of column name to array .*got list"):
        bids.job_columns([jobs["id"].to_numpy()], consumers.SRG, 0)


@pytest.mark.parametrize("given", [_columns, lambda jobs: jobs])  # column arrays, or a DataFrame's columns
def test_job_columns_with_good_columns_draws_the_job_tables_bids(jobs, given):
    got = bids.job_columns(given(jobs), consumers.SRG, 7)
    want = bids.job_table(jobs, consumers.SRG, 7)
    for c in ("private_bid", "reported_bid", "group"):
        np.testing.assert_array_equal(np.asarray(got[c]), want[c].to_numpy())


@pytest.mark.parametrize("rows", [0, 2.5, "x", None, True])
def test_simulate_to_file_refuses_a_slice_that_is_no_whole_number(table, tmp_path, rows):
    from gamemarket.market.simulate import simulate_to_file

    said = rf"rows \(jobs per slice\) must be a whole number >= 1, got {re.escape(repr(rows))}"
    with pytest.raises(InputError, match=said):
        simulate_to_file(table, 4, None, tmp_path / "o.csv", rows=rows)
    assert not (tmp_path / "o.csv").exists()


# ---------------------------------------------------------------------------- pricing
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"p0": np.array([1.0, 2.0])},
            r"p0 must be 3 finite number\(s\) >= 0 \(one price per resource.*got \[1.0, 2.0\]",
        ),
        ({"p0": [1.0, -1.0, 1.0]}, r"p0 must be 3 finite number\(s\) >= 0 .*got \[1.0, -1.0, 1.0\]"),
        ({"p0": [1.0, np.inf, 1.0]}, r"p0 must be 3 finite number\(s\) >= 0 .*got \[1.0, inf, 1.0\]"),
        ({"p0": "abc"}, r"p0 must be 3 finite number\(s\) >= 0 .*got 'abc'"),
        ({"p_min": [1.0, 2.0]}, r"p_min must be 3 finite number\(s\) >= 0 .*got \[1.0, 2.0\]"),
        ({"eps": "x"}, r"eps must be a number, got 'x'"),
        ({"rel_eps": None}, r"rel_eps must be a number, got None"),
    ],
)
def test_price_solve_refuses_bad_arguments(price_problem, kwargs, message):
    with pytest.raises(InputError, match=message):
        price_solve(price_problem, **kwargs)


def test_price_solve_refuses_what_is_not_a_problem():
    with pytest.raises(InputError, match=r"problem must be a Problem \(gamemarket.pricing.Problem\(A, R, utility\)\)"):
        price_solve([[1.0]])


def test_price_solve_with_good_starts_still_converges(price_problem):
    base = price_solve(price_problem)
    assert base.converged
    assert price_solve(price_problem, p0=base.prices).converged
    assert price_solve(price_problem, p0=1.0).converged  # one price for all


@pytest.mark.parametrize("seed", [-1, None, 2.0])
def test_synthetic_prices_share_the_seed_check(seed):
    with pytest.raises(InputError, match=rf"seed must be a whole number >= 0, got {seed!r}"):
        price_synthetic(5, 2, seed=seed)


@pytest.mark.parametrize("n, m, message", [(0, 2, r"n \(jobs\) .* got 0"), (5, 2.0, r"m \(resources\) .* got 2.0")])
def test_synthetic_prices_name_the_count_refused(n, m, message):
    with pytest.raises(InputError, match=message):  # ("n and m must be >= 1" named neither)
        price_synthetic(n, m)


@pytest.mark.parametrize("rel_tol", [1e-9, 1e-3, 0.1, 0.3, 0.5])
def test_every_equilibrium_solve_keeps_is_within_rel_tol_of_the_spread(rel_tol):
    """A kept profile's regret is at most rel_tol of each player's payoff spread (1e-8 where rel_tol is smaller): the
    acceptance was 10 rel_tol, so rel_tol = 0.1 kept all four profiles of the prisoner's dilemma (regret 0.4 of 5)."""
    from gamemarket.games import Game, solve

    A, B = np.array([[3.0, 0], [5, 1]]), np.array([[3.0, 5], [0, 1]])
    sol = solve(Game(A, B), rel_tol=rel_tol)
    for e in sol.equilibria:
        ra = float((A @ e.y).max() - e.x @ A @ e.y)
        rb = float((e.x @ B).max() - e.x @ B @ e.y)
        assert ra <= max(rel_tol, 1e-8) * 5 + 1e-12 and rb <= max(rel_tol, 1e-8) * 5 + 1e-12
    pure = {(int(np.argmax(e.x)), int(np.argmax(e.y))) for e in sol.equilibria}
    assert pure == ({(1, 1)} if rel_tol < 0.2 else {(0, 0), (0, 1), (1, 0), (1, 1)} if rel_tol >= 0.4 else pure)


@pytest.mark.parametrize(
    "A, B, message",
    [
        ([], [], r"A must be a matrix \(rows of payoffs, one per row strategy\), got an array of shape \(0,\)"),
        ([[1, 2]], [1, 2], r"B must be a matrix .* shape \(2,\)"),
        ([[1]], [[1, 2]], r"A and B must be matrices of one shape, got \(1, 1\) and \(1, 2\)"),
    ],
)
def test_a_game_that_is_not_two_matrices_of_one_shape_says_which(A, B, message):
    """Hunt 12: ``Game([], [])`` was told its matrices must be "of one shape", which they were."""
    from gamemarket.games import Game

    with pytest.raises(InputError, match=message):
        Game(A, B)
