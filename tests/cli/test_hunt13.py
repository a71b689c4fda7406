"""Hunt 13's problems, each as the family it stood for: public API corners that checked nothing they were given
(``run_hooks``, a game's replications, ``bootstrap``, the plugin authors' checks, role-symmetric games, a solve's
callback)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gamemarket.errors import InputError
from gamemarket.market.hooks import EventScheduler, run_hooks


class HighestBidHooks(EventScheduler):
    """HB as hooks (the n present jobs with the highest bids)."""

    name = "hb-hooks-13"
    description = "Highest-Bid as an event scheduler"

    def allocate(self, t, state):
        present = state.waiting | state.running
        return sorted(present, key=lambda i: (-state.jobs[i]["reported_bid"], state.jobs[i]["submit"], i))[
            : state.nodes
        ]


def _table(**change):
    t = pd.DataFrame(
        {
            "id": [1, 2, 3],
            "submit": [0, 0, 10],
            "runtime": [100, 50, 20],
            "estimate": [100, 60, 20],
            "private_bid": [10.0, 5.0, 20.0],
            "reported_bid": [10.0, 5.0, 20.0],
        }
    )
    return t.assign(**change)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(reserve=-1.0), r"reserve must be a finite price >= 0 .* got -1.0"),
        (dict(reserve=float("nan")), r"reserve must be a finite price .* got nan"),
        (dict(reserve=float("inf")), r"got inf"),
        (dict(reserve="abc"), r"got 'abc'"),
        (dict(nodes=1.5), r"nodes must be a whole number >= 1, got 1.5"),
        (dict(nodes=True), r"nodes must be a whole number >= 1, got True"),
        (dict(nodes="4"), r"nodes must be a whole number >= 1, got '4'"),
        (dict(table=_table(runtime=[-5, 50, 20])), r"run_hooks: table: row 0: column 'runtime' is -5"),
        (dict(table=_table(runtime=[1.5, 50, 20])), r"column 'runtime' is 1.5, expected an integer"),
        (dict(table=_table(reported_bid=[np.nan, 5, 20])), r"column 'reported_bid' is empty or NaN"),
        (dict(table=_table(id=[1, 1, 3])), r"id 1 appears more than once"),
        (dict(table=_table().drop(columns="reported_bid")), r"missing column\(s\) \['reported_bid'\]"),
        (dict(table=np.zeros((3, 6))), r"expected a pandas DataFrame"),
        (dict(scheduler=5), r"scheduler must be a registered name or an EventScheduler, got 5"),
    ],
)
def test_run_hooks_checks_what_simulate_checks(kwargs, message):
    """H13-1: a negative run time looped for ever, a reserve of -1 paid the jobs, NaN made every payment NaN, and a
    missing column was a KeyError: ``run_hooks`` now refuses what ``simulate`` refuses, naming it."""
    args = dict(table=_table(), nodes=2, scheduler=HighestBidHooks(), payment="kth", reserve=1.0)
    args.update(kwargs)
    with pytest.raises(InputError, match=message):
        run_hooks(args.pop("table"), args.pop("nodes"), args.pop("scheduler"), **args)


def test_run_hooks_keeps_the_columns_a_scheduler_reads_and_takes_a_mapping():
    plain = run_hooks(_table(), 2, HighestBidHooks(), "kth", 1.0)
    mapping = run_hooks({k: list(v) for k, v in _table(extra=[7, 8, 9]).items()}, 2, HighestBidHooks(), "kth", 1.0)
    pd.testing.assert_frame_equal(plain, mapping)
    assert (plain["payment"] >= 0).all() and list(plain["id"]) == [1, 2, 3]


# ---------------------------------------------------------------------------- H13-3, H13-4: a game's replications
def _reps_game(**kw):
    from gamemarket.games import Game

    rng = np.random.default_rng(0)
    Ar = rng.normal(size=(2, 2, 5))
    args = dict(A=Ar.mean(2), B=Ar.mean(2), A_reps=Ar, B_reps=Ar)
    args.update(kw)
    return Game(**args)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(B_reps=np.zeros((2, 2, 3))), r"B_reps's mean at \(r0, c0\) is 0, but the game's payoff"),
        (dict(A_reps=np.zeros((3, 2, 5))), r"A_reps has shape \(3, 2, 5\); expected \(2, 2, 'R'\)"),
        (dict(A_reps=np.zeros((2, 2)), B_reps=np.zeros((2, 2))), r"A_reps has shape \(2, 2\)"),
        (dict(B_reps=None), r"A_reps given without B_reps; expected both players' replications, or neither"),
        (dict(A=-np.eye(2), B=-np.eye(2), A_reps=np.eye(2)[:, :, None], B_reps=np.eye(2)[:, :, None]), r"mean at"),
        (dict(A_reps=np.full((2, 2, 5), "x")), r"A_reps must be numbers"),
        (dict(A_reps=np.full((2, 2, 5), np.nan)), r"A_reps\[0, 0, 0\] is nan; expected finite payoffs"),
    ],
)
def test_a_games_replications_are_checked_when_it_is_made(kw, message):
    """H13-3: replications of another shape were an IndexError in ``bootstrap``; replications that contradicted
    the means gave robustness figures of other data, without a word."""
    with pytest.raises(InputError, match=message):
        _reps_game(**kw)


def test_replications_of_unequal_counts_are_refused():
    from gamemarket.games import Game

    rng = np.random.default_rng(1)
    Ar, Br = rng.normal(size=(2, 2, 5)), rng.normal(size=(2, 2, 3))
    with pytest.raises(InputError, match="A_reps has 5 replications, B_reps 3"):
        Game(Ar.mean(2), Br.mean(2), A_reps=Ar, B_reps=Br)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(level=1.5), r"level must be .* got 1.5"),
        (dict(level=0), r"level must be .* got 0"),
        (dict(level=95), r"a share: 0.95, not 95"),
        (dict(seed=-1), r"seed must be a whole number >= 0, got -1"),
        (dict(seed="a"), r"seed must be a whole number >= 0, got 'a'"),
    ],
)
def test_bootstrap_checks_its_level_and_seed(kw, message):
    """H13-4: ``level=1.5`` and ``seed=-1`` were numpy's errors, ``level=0`` "a 0% interval"."""
    from gamemarket.games import solve
    from gamemarket.games.robustness import bootstrap

    g = _reps_game()
    with pytest.raises(InputError, match=message):
        bootstrap(g, solve(g).equilibria, resamples=200, **kw)


def test_a_games_other_arguments_name_what_they_expect():
    from gamemarket.games import Game

    with pytest.raises(InputError, match=r"players must be two names, such as \('row', 'col'\), got 'ab'"):
        Game(np.eye(2), np.eye(2), players="ab")
    with pytest.raises(InputError, match=r"restrict_cols takes one true or false per consumer strategy \(2\)"):
        Game(np.eye(2), np.eye(2)).restrict_cols([True, False, True])
    assert Game(np.eye(2), np.eye(2)).restrict_cols(np.array([True, False])).shape == (2, 1)


# ---------------------------------------------------------------------------- H13-5: the plugin authors' checks
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda t: t.check_scheduler("hb", seed=-1, raise_on_failure=False), r"check_scheduler: seed must be"),
        (lambda t: t.check_scheduler("hb", cases=-1, raise_on_failure=False), r"check_scheduler: cases must be a"),
        (lambda t: t.check_payment("kth", cases=0, raise_on_failure=False), r"check_payment: cases must be a whole"),
        (lambda t: t.check_family("per-class", seed=-1, raise_on_failure=False), r"check_family: seed must be"),
        (lambda t: t.check_scheduler("hb", raise_on_failure="no"), r"raise_on_failure must be True or False"),
        (lambda t: t.check_event_scheduler(HighestBidHooks(), cases=0), r"check_event_scheduler: cases must be"),
        (lambda t: t.check_market("scheduling", seed=-2, raise_on_failure=False), r"check_market: seed must be"),
    ],
)
def test_a_conformance_checks_own_options_are_checked_before_it_runs(call, message):
    """H13-5: ``seed=-1`` was reported as the built-in family's failure, and ``cases=0`` passed on no case."""
    import gamemarket.testing as t

    with pytest.raises(InputError, match=message):
        call(t)


def test_check_family_refuses_another_familys_strategy():
    from gamemarket.consumers import SRG
    from gamemarket.testing import check_family

    with pytest.raises(InputError, match=r"check_family: strategies must be 'per-class' strategies, got 'SRG'"):
        check_family("per-class", strategies=[SRG], raise_on_failure=False)


# ---------------------------------------------------------------------------- H13-6, H13-8 and pricing inputs
def test_a_role_symmetric_game_takes_whole_player_counts_and_says_what_a_payoff_returned():
    from gamemarket.games.reduction import reduce_game
    from gamemarket.games.rsgame import RoleSymmetricGame

    def pay(c):
        return np.array([0.7, 1.0 if c[0] > 0 else 0.0])

    with pytest.raises(InputError, match=r"role 'all': player count must be a whole number >= 1, got 2.7"):
        RoleSymmetricGame.from_function(["all"], [2.7], [["v", "s"]], pay)
    with pytest.raises(InputError, match=r"from_function: payoff\(\[0, 3\]\) returned 'x'; expected one number"):
        RoleSymmetricGame.from_function(["all"], [3], [["v", "s"]], lambda c: "x")
    g = RoleSymmetricGame.from_function(["all"], [6], [["v", "s"]], pay)
    with pytest.raises(InputError, match=r"reduced players must be one count per role \(1: a list such as \[2\]\)"):
        reduce_game(g, 3)
    with pytest.raises(InputError, match=r"a reduced player count must be a whole number >= 1, got 2.5"):
        reduce_game(g, [2.5])
    assert reduce_game(g, [3]).players == (3,)


def test_price_discovery_names_a_callback_that_is_no_function_and_inputs_it_would_ignore():
    from gamemarket.pricing import Problem, solve

    with pytest.raises(InputError, match=r"callback must be a function of each evaluation's row \(or None\), got 5"):
        solve(Problem([[1, 2]], [1, 1], "log"), callback=5)
    with pytest.raises(InputError, match=r"A must hold numbers \(integers or floats\), got <U1 values such as '1'"):
        Problem([["1", "2"]], [1, 1], "log")
    with pytest.raises(InputError, match=r"target .* applies to the target utility, not 'log'"):
        Problem([[1.0, 2.0]], [1, 1], "log", target=[0.5])


# ---------------------------------------------------------------------------- options of several values
def test_an_option_of_several_values_before_the_file_says_it_took_the_file(tmp_path, capsys):
    """Worth-a-look: ``game solve --methods pure FILE`` said the file was missing, which it was not."""
    from gamemarket.cli import main

    game = tmp_path / "g.csv"
    game.write_text("row,col,row_payoff,col_payoff\nU,L,3,3\nU,R,0,5\nD,L,5,0\nD,R,1,1\n")
    with pytest.raises(SystemExit) as exc:
        main(["game", "solve", "--methods", "pure", str(game)])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert "the following arguments are required: file (--methods takes every word after it" in err
    assert "end its values with --" in err
    assert main(["game", "solve", "--methods", "pure", "--", str(game)]) == 0  # as the hint says
    capsys.readouterr()


@pytest.mark.parametrize(
    "argv",
    [
        ["--methods", "pure", "lemke_howson", "--methods", "vertex"],
        ["--concept", "qre", "--observed", "row:U=1", "--observed", "row:D=2"],
    ],
)
def test_an_option_of_several_values_given_twice_is_refused(tmp_path, capsys, argv):
    """Worth-a-look: the second ``--methods`` replaced the first, without a word."""
    from gamemarket.cli import main

    game = tmp_path / "g.csv"
    game.write_text("row,col,row_payoff,col_payoff\nU,L,3,3\nU,R,0,5\nD,L,5,0\nD,R,1,1\n")
    with pytest.raises(SystemExit) as exc:
        main(["game", "solve", str(game), *argv])
    assert exc.value.code == 2
    assert f"argument {argv[-2]}: given twice; give all its values after one {argv[-2]}" in capsys.readouterr().err


def test_registration_and_alpharank_options_are_checked_where_they_are_given():
    """Worth-a-look: a scheduler's key that is no function failed at its first run, a priority that is no
    PriorityKey was reported by check_scheduler only, an empty description passed for a payment scheme (families
    and event schedulers refuse one), and alpharank(normalize='no') normalised."""
    from gamemarket.games import Game
    from gamemarket.games.alpharank import alpharank
    from gamemarket.market.payments import register_payment_rule
    from gamemarket.market.schedulers import register_scheduler

    with pytest.raises(InputError, match=r"scheduler 'k13': key must be a PriorityKey or a function"):
        register_scheduler("k13", True, "submit", "by submit time")
    with pytest.raises(InputError, match=r"scheduler 'k13': priority must be a PriorityKey \(or None\), got 'submit'"):
        register_scheduler("k13", True, lambda t: np.zeros(len(t)), "by nothing", priority="submit")
    with pytest.raises(InputError, match=r"scheduler 'k13': description: expected a non-empty text, got '  '"):
        register_scheduler("k13", True, lambda t: np.zeros(len(t)), "  ")

    def rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        return reserve

    with pytest.raises(InputError, match=r"payment scheme 'p13': description: expected a non-empty text, got ''"):
        register_payment_rule("p13", rate, "")
    with pytest.raises(InputError, match=r"alpha-rank: normalize must be True or False, got 'no'"):
        alpharank(Game(np.eye(2), np.eye(2)), normalize="no")


@pytest.mark.slow
def test_a_report_that_fails_for_want_of_runs_leaves_every_manifest_as_it_was(tmp_path, capsys):
    """Worth-a-look: ``gamemarket report`` refused (a run missing, exit 2) and still rewrote both folders'
    manifests (the same content, a new time)."""
    from gamemarket.cli import main
    from gamemarket.io.files import MANIFEST
    from study_helpers import SMALL, write_study

    study = write_study(tmp_path, SMALL)
    results, report = tmp_path / "r", tmp_path / "rep"
    assert main(["study", "run", str(study), "--no-progress", "--results", str(results), "--report", str(report)]) == 0
    next((results / "runs").glob("*.parquet")).unlink()
    manifests = [results / MANIFEST, report / MANIFEST]
    before = [(m.stat().st_mtime_ns, m.read_bytes()) for m in manifests]
    capsys.readouterr()
    assert main(["report", str(study), "--results", str(results), "--report", str(report)]) == 2
    assert "study run" in capsys.readouterr().err
    assert [(m.stat().st_mtime_ns, m.read_bytes()) for m in manifests] == before


def test_an_output_folder_that_is_a_dangling_link_is_named(tmp_path):
    """Worth-a-look: ``--out`` a link to nothing said "cannot create the export folder: File exists"."""
    from gamemarket.io.files import OutputFolder

    link = tmp_path / "out"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(InputError, match=r"out is a link to .*gone, which does not exist; expected a folder"):
        OutputFolder(link, owner="me", what="export folder", option="--out")
    assert not (tmp_path / "gone").exists()


# ---------------------------------------------------------------------------- hunt 14: pricing inputs
def test_a_utilitys_own_weights_are_the_problems_and_every_array_holds_numbers():
    """H14-5: ``Problem(A, R, Linear(weight=[10, 1, 1]))`` solved with weights of 1 (objective 2.0, not 11.0), and
    took weights that were text; H14-9: R and the weights took text and booleans (``R=[True, False]`` made a
    resource of capacity 0), and ``Power(True)`` was the log utility."""
    from gamemarket.pricing import Linear, Power, Problem, solve

    A, R = np.array([[1.0, 0.5], [0.5, 1.0], [1.0, 1.0]]), np.array([1.0, 1.0])
    own = solve(Problem(A, R, Linear(weight=[10, 1, 1])))
    given = solve(Problem(A, R, "linear", weight=[10, 1, 1]))
    assert own.objective == pytest.approx(given.objective, rel=1e-3) and own.objective > 10
    with pytest.raises(InputError, match="utility weight given twice"):
        Problem(A, R, Linear(weight=[10, 1, 1]), weight=[1, 1, 1])
    for bad, message in [
        (dict(utility=lambda: Linear(weight="abc")), r"utility weight must hold numbers .* got <U3"),
        (dict(utility=lambda: Linear(weight=[-1, 2, 3])), r"utility weight of job 0 is -1.0"),
        (dict(R=["1", "2"]), r"resource limits R must hold numbers .* such as '1'"),
        (dict(R=[True, False]), r"resource limits R must hold numbers .* got bool"),
        (dict(weight=[True, True, True]), r"utility weight must hold numbers .* got bool"),
        (dict(demand=["1", "1", "1"]), r"demand must hold numbers"),
    ]:
        args = dict(A=A, R=R, utility="linear")
        args.update(bad)
        with pytest.raises(InputError, match=message):  # a utility's weights refused as it is made, now
            Problem(**{k: v() if callable(v) else v for k, v in args.items()})
    for alpha in (True, None, [], "2"):
        with pytest.raises(InputError, match=r"alpha must be a finite number > 0"):
            Power(alpha)


def test_a_utility_registered_as_no_factory_is_refused_when_registered():
    """H14-6: ``register_utility('abc', 'abc')`` registered, and every use of the name was a TypeError."""
    from gamemarket.pricing import register_utility

    with pytest.raises(InputError, match=r"register_utility: factory must be a Utility subclass or a function"):
        register_utility("h14-abc", "abc")


# ---------------------------------------------------------------------------- hunt 14: the exported API's entries
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: __import__("gamemarket.workloads").workloads.load(None), r"workload source must be 'synthetic'"),
        (
            lambda: __import__("gamemarket.workloads").workloads.read_swf(5),
            r"an SWF trace.s path must be a path \(a str or an os.PathLike\), got 5",
        ),
        (lambda: __import__("gamemarket.studies").studies.run_study("x.toml"), r"run_study: expected a StudySpec"),
        (lambda: __import__("gamemarket.studies").studies.load_results("x"), r"load_results: expected a StudySpec"),
        (lambda: __import__("gamemarket.studies").studies.study_status("x"), r"study_status: expected a StudySpec"),
        (lambda: __import__("gamemarket.games").games.regret([], [], [], []), r"payoff matrices must be non-empty"),
        (lambda: __import__("gamemarket.games").games.pure_equilibria("abc", "abc"), r"payoff matrices must be"),
        (lambda: __import__("gamemarket.consumers").consumers.family_of("abc"), r"parameters must be a mapping"),
        (lambda: __import__("gamemarket.consumers").consumers.from_params(None), r"parameters must be a mapping"),
        (lambda: __import__("gamemarket.pricing").pricing.synthetic(10**13, 4), r"cannot be drawn"),
        (lambda: __import__("gamemarket.market").market.get_payment(np.array([])), r"unknown payment scheme"),
    ],
)
def test_exported_functions_name_what_they_were_given(call, message):
    """H14-7: each was a bare TypeError, AttributeError, ValueError or MemoryError from deep inside."""
    with pytest.raises(InputError, match=message):
        call()


def test_regret_names_a_mixture_of_the_wrong_size_and_options_are_keyword_only():
    from gamemarket.games import pure_equilibria, regret
    from gamemarket.pricing import synthetic

    with pytest.raises(InputError, match=r"y \(the column's\) must be 2 finite probabilities"):
        regret(np.eye(2), np.eye(2), [1, 0], [0, 1, 0])
    assert regret(np.eye(2), np.eye(2), [1, 0], [1, 0]) == (0.0, 0.0)
    with pytest.raises(TypeError):  # H14-8: synthetic(1000, 4, "log", 1) read 1 as... the seed is a keyword now
        synthetic(100, 4, "log", 1)
    with pytest.raises(TypeError):
        pure_equilibria(np.eye(2), np.eye(2), (0.1, 0.1))


def test_a_billion_workers_are_refused(capsys):
    """Hunt 14's worth-a-look: --n-jobs had no upper bound (joblib starts as many as there are tasks)."""
    from gamemarket.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["study", "run", "x.toml", "--n-jobs", "1000000000"])
    assert exc.value.code == 2
    assert "expected a number of worker processes from 1 to 1024, or -1 for all cores" in capsys.readouterr().err


def test_price_floors_are_no_part_of_the_relative_gap():
    """Hunt 14's worth-a-look: with a floor of 1e7 on a capacity of 5 the default's "1e-6 relative" gap was 5, the
    objective holding the floors' 5e7 beside a utility of about -93; the floors' value leaves it as the utilities'
    constant does."""
    from gamemarket.pricing import Problem, solve

    rng = np.random.default_rng(1)
    A, R = rng.random((50, 3)), np.array([5.0, 10.0, 8.0])
    r = solve(Problem(A, R, "log"), p_min=np.array([1e7, 0.0, 0.0]))
    assert r.converged and "less its constant 5e+07" in r.message
    utility_part = r.objective - 5e7
    assert r.gap <= 1e-6 * abs(utility_part) + 1e-8 * 50


def test_a_game_definition_and_a_bid_class_check_their_values():
    """Hunt 14's worth-a-look: GameDef(name=None) was taken, and a NaN bid was classed high."""
    from gamemarket.bids import bid_bin
    from gamemarket.studies import GameDef

    with pytest.raises(InputError, match=r"name must be a non-empty text, got None"):
        GameDef(None)
    with pytest.raises(InputError, match=r"provider must be a non-empty text, got True"):
        GameDef("g", provider=True)
    with pytest.raises(InputError, match=r"bid_bin: a private bid is nan; expected finite bids"):
        bid_bin([10.0, np.nan])
    assert list(bid_bin([10, 100, 150])) == ["low", "middle", "high"]
