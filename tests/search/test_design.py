"""Mechanism design (``[design]``): the family's points, the search on a small synthetic market, its answer and
report, the closed-form case, the regret bound against a plain computation, and bad input."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gamemarket.errors import InputError
from gamemarket.search import design as design_mod
from gamemarket.search.design import DesignEvaluator, grid_points, read_answer, run_design
from gamemarket.studies import load_study
from gamemarket.studies.design_config import DesignConfig, snap
from gamemarket.studies.strategies import load_providers
from gamemarket.workflow import run_study, write_study_report
from study_helpers import SMALL_DESIGN, write_study

#: a small market with an outside option: 300 jobs on 8 nodes, jobs stay truthfully or leave


def test_a_point_is_a_provider_strategy_named_and_keyed_by_its_parameters():
    cfg = DesignConfig(reserve=(0.0, 80.0), budget=4, schedulers=("hb", "nphb"), payment="blend", blend=(0.0, 1.0))
    p = cfg.point("nphb", [12.3456, 0.25])
    assert p.name == "nphb-blend[r=12.35,a=0.25]"  # snapped to a power of ten at most a thousandth of each range
    assert p.params() == {
        "kind": "scheduling",
        "scheduler": "nphb",
        "payment": "blend",
        "reserve": 12.35,
        "blend": 0.25,
        "preemption_overhead": 0.0,
    }
    assert cfg.coordinates(p) == [12.35, 0.25]
    # a point with a catalogue mechanism's parameters has its parameters, so its stored runs are the catalogue's
    kth = DesignConfig(reserve=(0.0, 10.0), budget=2, payment="kth").point("hb", [1.0])
    assert kth.params() == load_providers()["hb-kth"].params()
    with pytest.raises(InputError, match="reserve"):
        cfg.point("hb", [90.0, 0.5])


@given(v=st.floats(0, 1), lo=st.floats(0, 10), width=st.floats(0.01, 100))
def test_snap_stays_in_the_box_on_the_grid(v, lo, width):
    hi = lo + width
    x = snap(lo + v * width, lo, hi)
    assert lo - 1e-9 <= x <= hi + 1e-9
    assert abs(x - (lo + v * width)) <= 1e-3 * width / 2 + 1e-6 * max(1, hi)


def test_grid_points_cover_the_box_ends_included():
    box = [("reserve", 0.0, 40.0), ("blend", 0.0, 1.0)]
    g = grid_points(box, 9)
    assert g.shape == (9, 2)
    assert {tuple(r) for r in g} == {(a, b) for a in (0.0, 20.0, 40.0) for b in (0.0, 0.5, 1.0)}


@settings(max_examples=60, deadline=None)
@given(
    diffs=st.lists(st.lists(st.floats(-50, 50), min_size=4, max_size=4), min_size=1, max_size=5),
)
def test_regret_bound_is_the_largest_bonferroni_t_bound_of_the_paired_differences(diffs):
    # a plain computation: per other design, mean + t_{1 - alpha/m, n-1} sd / sqrt(n) of (its objective - chosen's)
    chosen = [100.0, 110.0, 90.0, 105.0]
    points = [_point("best", chosen)] + [_point(f"d{k}", list(np.add(chosen, d))) for k, d in enumerate(diffs)]
    _, bound, against, _, upper, _ = design_mod._choose(points, points[:1], {"best": _conf("best", chosen)})
    m = len(diffs)
    want = []
    for d in diffs:
        d = np.asarray(np.add(chosen, d)) - np.asarray(chosen)
        sd = d.std(ddof=1)
        want.append(d.mean() if sd == 0 else d.mean() + stats.t.ppf(1 - 0.05 / m, 3) * sd / 2.0)
    assert bound == pytest.approx(max(0.0, max(want)), rel=1e-9, abs=1e-9)
    assert upper == pytest.approx(max(want), rel=1e-9, abs=1e-9)
    assert against == f"d{int(np.argmax(want))}"


def _point(name, obj):
    return design_mod.DesignPoint(name, "hb", {}, 0, "x", {"t": 1.0}, [1.0], "yes", 0.0, 1.0, 1, [1, 2, 3, 4],
                                  {"revenue": obj}, obj, True)  # fmt: skip


def _conf(name, obj):
    return design_mod.Confirmation(name, [5, 6, 7, 8], {"revenue": obj}, obj, True)


@pytest.mark.slow
def test_a_small_design_study_runs_reports_and_reports_again_from_its_answer(tmp_path):
    path = write_study(tmp_path, SMALL_DESIGN)
    res = run_study(path, n_jobs=1)
    ans = res.design
    assert res.kind == "design" and ans is not None
    assert len(ans.points) == 6 and [p.provider for p in ans.compare] == ["hb-first", "hb-kth"]
    assert ans.chosen in {p.provider for p in ans.points + ans.compare if p.feasible}
    if ans.chosen in {p.provider for p in ans.compare}:  # a fixed mechanism chosen: the notes say why
        assert any(f"the fixed mechanism {ans.chosen} beat every design" in n for n in ans.notes)
    assert ans.regret_bound is not None and ans.regret_bound >= 0
    # the chosen one is the contender of best fresh mean
    best = max(
        (n for n in ans.confirmations if ans.point(n).order >= 0), key=lambda n: ans.confirmations[n].objective[0]
    )
    assert ans.chosen == best
    # every reserve above the outside price sends everyone away: no revenue, and nobody stays
    for p in ans.points:
        if p.params["reserve"] > 20.0 + 1e-9:
            assert p.equilibrium == {"leave-all": 1.0} and max(p.per_seed["revenue"]) == 0.0
    report = res.report.with_name("report.md")
    text = report.read_text()
    first = text.splitlines()[2]
    assert first.startswith("**The provider should set scheduler hb") and ans.chosen in first
    data = json.loads(res.report.with_name("data").joinpath("design.json").read_text())
    assert data["chosen"] == ans.chosen and data["regret_bound"] == pytest.approx(ans.regret_bound)
    # the report's numbers are the answer's: the chosen design's fresh revenue as the lead paragraph writes it
    from gamemarket.reports.markdown import num_ci

    assert num_ci(*ans.confirmations[ans.chosen].figures["revenue"], sign=False) in first
    # the answer is stored; `report` renders the same files from it without running anything
    before = {p.name: p.read_bytes() for p in res.report.parent.rglob("*") if p.is_file() and p.suffix != ".png"}
    write_study_report(path)
    after = {p.name: p.read_bytes() for p in res.report.parent.rglob("*") if p.is_file() and p.suffix != ".png"}
    assert before == after
    with pytest.raises(InputError, match="design study"):
        res.equilibria()
    again = read_answer(load_study(path))
    assert again.to_dict() == ans.to_dict() and again.wall_seconds == ans.wall_seconds


@pytest.mark.slow
def test_a_stored_answer_of_another_design_is_refused(tmp_path):
    path = write_study(tmp_path, SMALL_DESIGN)
    ans = run_study(path, n_jobs=1, write_report=False).design
    # the providers reordered: the same answer, current (hunt 22a-W7: "not current: the study's tables changed")
    path.write_text(SMALL_DESIGN.replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-kth", "hb-first"]'))
    assert read_answer(load_study(path)).chosen == ans.chosen
    path.write_text(SMALL_DESIGN.replace("budget = 6", "budget = 5"))
    with pytest.raises(InputError, match="changed since"):
        read_answer(load_study(path))


def _numbers(ans) -> dict:
    """The answer as its report's data holds it (no wall time): what a run computes."""
    return ans.to_dict()


@pytest.mark.slow
def test_the_same_design_answer_with_two_workers_and_on_a_two_worker_dask_cluster(tmp_path):
    from dask.distributed import LocalCluster  # deferred: the test extra's

    body = SMALL_DESIGN.replace("budget = 6", "budget = 3")
    spec = load_study(write_study(tmp_path, body))
    spec.results_dir = tmp_path / "one"
    one = run_design(spec, n_jobs=1)
    spec.results_dir = tmp_path / "two"
    two = run_design(spec, n_jobs=2)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True, dashboard_address=None
    ) as cluster:
        spec.results_dir = tmp_path / "dask"
        remote = run_design(spec, scheduler_address=cluster.scheduler_address)
    assert _numbers(one) == _numbers(two) == _numbers(remote)


@pytest.mark.slow
@pytest.mark.parametrize("optimiser", ["tpe", "gp"])
def test_closed_form_reserve_no_congestion_is_the_outside_price(tmp_path, optimiser):
    # with no congestion every stayer pays r per node-second, so a job stays exactly when r <= c and the revenue
    # is r x (the stayers' work): the best reserve is c = 20; the search finds it within 2% (24 points)
    body = SMALL_DESIGN.replace("nodes = 8", "nodes = 400").replace('optimiser = "grid"', f'optimiser = "{optimiser}"')
    body = body.replace("budget = 6", "budget = 24").replace('payment = "blend"', 'payment = "kth"')
    body = body.replace("blend = 0.5\n", "")
    ans = run_design(load_study(write_study(tmp_path, body)))
    r = ans.point(ans.chosen).params["reserve"]
    assert abs(r - 20.0) <= 0.02 * 20.0, (optimiser, r, sorted(p.params["reserve"] for p in ans.points))


def test_an_evaluated_point_is_the_population_games_answer(tmp_path):
    spec = load_study(write_study(tmp_path, SMALL_DESIGN.replace("nodes = 8", "nodes = 400")))
    ev = DesignEvaluator(spec)
    low = ev.evaluate(spec.design.point("hb", [10.0]), order=0, source="test")
    high = ev.evaluate(spec.design.point("hb", [30.0]), order=1, source="test")
    # no congestion: below the outside price everyone stays and pays r per node-second; above it everyone leaves
    assert low.equilibrium == {"truthful": 1.0} and low.per_seed["stay"] == [1.0, 1.0, 1.0]
    work = float(ev.st0.runs.arrays["runtime"].sum())
    assert low.per_seed["revenue"] == [10.0 * work] * 3
    assert high.equilibrium == {"leave-all": 1.0} and high.per_seed["revenue"] == [0.0] * 3
    assert high.per_seed["stay"] == [0.0] * 3


@pytest.mark.parametrize(
    "change, field",
    [
        (("outside_price = 20.0", "outside_price = -1.0"), "outside_price"),
        (("outside_price = 20.0", "outside_price = nan"), "outside_price"),
        (("reserve = [0, 40]", "reserve = [-5, 40]"), "reserve"),
        (("blend = 0.5", "blend = [0, 1.5]"), "blend"),
        (("budget = 6", "budget = 0"), "budget"),
        (('optimiser = "grid"', "objective = { profit = 1.0 }"), "objective"),
        (('optimiser = "grid"', "constraint = { speed = 0.8 }"), "constraint"),
        (("reserve = [0, 40]", "reserve = [40, 0]"), "reserve"),
        (('schedulers = ["hb"]', 'schedulers = ["nope"]'), "nope"),
        (("blend = 0.5\n", ""), "blend"),
    ],
)
def test_bad_design_input_names_the_field(tmp_path, change, field):
    path = write_study(tmp_path, SMALL_DESIGN.replace(*change))
    with pytest.raises(InputError, match=field):
        load_study(path)


def test_a_metric_of_the_outside_option_needs_an_outside_price(tmp_path):
    body = SMALL_DESIGN.replace("outside_price = 20.0\n", "").replace('strategies = ["truthful", "leave-all"]', "")
    body = body.replace("[game.shading.leave-all]\nbeta = 0\nleave = 1\n", "")
    body = body.replace('optimiser = "grid"', 'optimiser = "grid"\nconstraint = { stay = 0.8 }')
    with pytest.raises(InputError, match="outside_price"):
        load_study(write_study(tmp_path, body))


def test_design_needs_a_population_game(tmp_path):
    body = SMALL_DESIGN.replace('kind = "population"', 'kind = "bimatrix"')
    with pytest.raises(InputError):
        load_study(write_study(tmp_path, body))


def test_bad_design_input_exits_2_naming_the_field(tmp_path):
    path = write_study(tmp_path, SMALL_DESIGN.replace("budget = 6", "budget = 0"))
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "study", "run", str(path)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and "budget" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "studies" / "results").exists()


def test_metric_weights_make_the_objective():
    cfg = DesignConfig(reserve=(0.0, 1.0), budget=2, payment="kth", objective=(("revenue", 1.0), ("welfare", 0.5)))
    assert cfg.objective_of({"revenue": 10.0, "welfare": -4.0}) == 8.0
    cfg2 = DesignConfig(reserve=(0.0, 1.0), budget=2, payment="kth", constraint=(("stay", 0.8),))
    assert cfg2.feasible({"stay": 0.8}) and not cfg2.feasible({"stay": 0.79})
    assert math.isfinite(cfg.objective_of({"revenue": 1e12, "welfare": -1e12}))


EXPLORING = (
    SMALL_DESIGN.replace(
        "[game.shading.leave-all]\nbeta = 0", '[game.shading.leave-all]\nfamily = "per-class-leave"\nbeta = 0'
    )
    .replace(
        "[replications]",
        """[game.exploration]
family = "per-class-leave"
budget = 400
evaluations = 12
confirm_seeds = 4
first_seeds = 2

[replications]""",
    )
    .replace("budget = 6", "budget = 4\nexplore = true")
)


@pytest.mark.slow
def test_exploring_design_points_warm_start_from_the_nearest_explored_point(tmp_path):
    spec = load_study(write_study(tmp_path, EXPLORING))
    ans = run_design(spec)
    starts = [p.explored["warm_start"] for p in ans.points]
    assert starts[0] is None  # the first point starts from the study's menu
    for k, p in enumerate(ans.points[1:], start=1):
        earlier = ans.points[:k]
        mine = p.params["reserve"]
        nearest = min(earlier, key=lambda q: abs(q.params["reserve"] - mine))
        assert p.explored["warm_start"] == nearest.provider
    for p in ans.points:
        assert p.menu[:2] == ["truthful", "leave-all"] and p.explored["simulations"] > 0
        assert set(p.equilibrium) <= set(p.menu)
    # the fixed mechanisms, which may be chosen, are explored too (hunt 15), from the nearest explored point's menu
    assert all(q.explored and q.explored["simulations"] > 0 for q in ans.compare)
    assert all(q.explored["warm_start"] is not None for q in ans.compare)


def test_explore_needs_an_exploration_table(tmp_path):
    with pytest.raises(InputError, match="explore"):
        load_study(write_study(tmp_path, SMALL_DESIGN.replace("budget = 6", "budget = 6\nexplore = true")))


@pytest.mark.parametrize("optimiser", ["gp", "tpe"])
def test_infeasible_points_never_outrank_feasible_ones(optimiser):
    # every point left of 0.5 is infeasible; the objective is negative (welfare-like) and best at 0.8: an early
    # infeasible point told as a fixed value would have outranked every feasible one, and the polish started there
    asked = []

    def value(x):
        asked.append(float(x[0]))
        return None if x[0] < 0.5 else -1e6 * (1 + (x[0] - 0.8) ** 2)

    design_mod.optimise(value, [("reserve", 0.0, 1.0)], optimiser, 16, seed=0)
    polish = asked[-4:]  # the last quarter: the line search, from the best feasible point
    assert all(v >= 0.5 for v in polish), asked
    best = max((v for v in asked if v >= 0.5), key=lambda v: -((v - 0.8) ** 2))
    assert abs(best - 0.8) < 0.05, asked


def test_a_fixed_mechanism_that_beats_every_design_found_is_chosen_and_said_to_be():
    # hunt 6: a grid of 4 points chose r=0 at 168,600 while hb-first (reserve 1, inside the family) reached 567,000 on
    # the same fresh seeds, and the report recommended the design beside the mechanism that beat it
    found, fixed = _point("hb-blend[r=0,a=1]", [1.0, 2.0, 3.0, 4.0]), _point("hb-first", [5.0, 6.0, 7.0, 8.0])
    conf = {"hb-blend[r=0,a=1]": _conf("hb-blend[r=0,a=1]", [1.0, 2.0, 3.0, 4.0]),
            "hb-first": _conf("hb-first", [5.0, 6.5, 7.0, 8.5])}  # fmt: skip
    chosen, bound, against, notes, upper, _ = design_mod._choose([found], [found], conf, [fixed])
    assert chosen == "hb-first" and against == "hb-blend[r=0,a=1]"
    assert "the fixed mechanism hb-first beat every design the search found on the fresh seeds" in notes[0]
    assert bound == 0.0 and upper < 0  # the design found does worse on every seed: its bound is below 0
    # a fixed mechanism that does worse is not chosen, but counts in the regret bound (paired on the fresh seeds)
    worse = _point("hb-kth", [0.0, 0.0, 0.0, 0.0])
    conf["hb-kth"] = _conf("hb-kth", [0.5, 2.5, 2.0, 4.5])
    chosen, bound, against, notes, upper, _ = design_mod._choose([found], [found], conf, [worse])
    d = np.subtract([0.5, 2.5, 2.0, 4.5], [1.0, 2.0, 3.0, 4.0])
    want = d.mean() + stats.t.ppf(1 - 0.05, 3) * d.std(ddof=1) / 2.0
    assert chosen == "hb-blend[r=0,a=1]" and not notes and against == "hb-kth"
    assert upper == pytest.approx(want) and bound == pytest.approx(max(want, 0.0))
    # a fixed mechanism never confirmed (no equilibrium: not in the confirmations) is neither chosen nor counted
    assert design_mod._choose([found], [found], {"hb-blend[r=0,a=1]": conf["hb-blend[r=0,a=1]"]}, [fixed])[:3] == (
        "hb-blend[r=0,a=1]", 0.0, None)  # fmt: skip


def test_every_contender_infeasible_on_fresh_seeds_chooses_none():
    p = _point("a", [1.0, 2.0, 3.0, 4.0])
    conf = {"a": design_mod.Confirmation("a", [5, 6, 7, 8], {"revenue": [1.0] * 4}, [1.0] * 4, False)}
    chosen, bound, _, notes, _, _ = design_mod._choose([p], [p], conf)
    assert chosen is None and bound is None and "missed a constraint" in notes[0]


def test_a_grid_smaller_than_two_a_side_is_refused():
    with pytest.raises(InputError, match="budget"):
        grid_points([("reserve", 0.0, 1.0), ("blend", 0.0, 1.0)], 3)


@pytest.mark.parametrize(("blend", "budget", "least"), [("0.5", 1, 2), ("[0, 1]", 3, 4)])
def test_a_grid_budget_below_two_a_side_is_refused_when_the_study_is_read_naming_the_file(
    tmp_path, blend, budget, least
):
    """Hunt 7: the grid's budget was checked when the search started (after the lock, without the file's name)."""
    body = SMALL_DESIGN.replace("budget = 6", f"budget = {budget}").replace("blend = 0.5", f"blend = {blend}")
    path = write_study(tmp_path, body)
    dims = 1 if blend == "0.5" else 2
    with pytest.raises(InputError) as exc:
        load_study(path)
    assert str(exc.value) == (
        f"{path}: [design] field 'budget': a grid over {dims} parameter(s) needs at least {least} points (2 a side), "
        f"got {budget}"
    )


@pytest.mark.slow
def test_a_stored_answer_for_other_workload_content_is_refused(tmp_path):
    path = write_study(tmp_path, SMALL_DESIGN.replace("budget = 6", "budget = 4"))
    run_study(path, n_jobs=1, write_report=False)
    spec = load_study(path)
    stored = spec.results_dir / "design.json"
    doc = json.loads(stored.read_text())
    assert doc["key"]["workload_content"] == design_mod.load_workload_hash(spec)
    read_answer(spec)  # as stored: read back
    doc["key"]["workload_content"] = "0" * 16  # as if the workload's file had been edited in place
    stored.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="changed since"):
        read_answer(spec)


def test_an_explored_family_that_leaves_needs_an_outside_price_at_load(tmp_path):
    body = EXPLORING.replace("outside_price = 20.0\n", "").replace("explore = true", "")
    body = body.replace('strategies = ["truthful", "leave-all"]', 'strategies = ["truthful", "shade-0.5"]')
    body = body.replace('[game.shading.leave-all]\nfamily = "per-class-leave"\nbeta = 0\nleave = 1\n', "")
    body = body.replace("[design]", "[nodesign]").split("[nodesign]")[0]
    with pytest.raises(InputError, match="outside_price.*per-class-leave"):
        load_study(write_study(tmp_path, body))


def test_design_on_another_market_is_refused_at_load(tmp_path):
    body = SMALL_DESIGN.replace(
        '[workload]\nsource = "synthetic"\nnodes = 8\n[workload.synthetic]\njobs = 300\nload = 0.3\nseed = 0',
        '[workload]\nsource = "hetero"\n[workload.hetero]\njobs = 60\nresources = 3',
    ).replace('providers = ["hb-first", "hb-kth"]', 'providers = ["clearing"]')
    with pytest.raises(InputError, match="scheduling-market workload"):
        load_study(write_study(tmp_path, body))


def test_the_name_blend_is_reserved_and_checked_as_a_number():
    from gamemarket.market.payments import register_payment_rule
    from gamemarket.market.simulate import Mechanism

    with pytest.raises(InputError, match="reserved"):
        register_payment_rule("blend", lambda b, r, n, f, w, mw, mr: r, "a rate")
    with pytest.raises(InputError, match="blend"):
        Mechanism("hb", "blend", 1.0, blend=True)
    assert Mechanism("hb", "blend", 1.0, blend=np.float32(0.5)).legs()[0][2] == 0.5


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["--payment", "blend"], "payment 'blend' (--payment blend) needs blend (--blend ALPHA, a number in [0, 1])"),
        (["--payment", "blend", "--blend", "1.5"], "got 1.5"),
        (["--payment", "blend", "--blend", "nan"], "got nan"),
        (["--payment", "kth", "--blend", "0.3"], "(--blend 0.3) applies to payment 'blend' (--payment blend) only"),
        (["--payment", "blend", "--blend", "x"], "--blend"),
    ],
)
def test_simulate_blend_bad_values_exit_2(args, message):
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "simulate", "--synthetic-jobs", "50", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "leave, message",
    [("1.5", "leave"), ("{ top = 1 }", "unknown bid class(es) ['top']"), ('"all"', "leave"), ("-0.1", "leave")],
)
def test_a_bad_leave_share_in_a_study_file_exits_2_naming_it(tmp_path, leave, message):
    path = write_study(tmp_path, SMALL_DESIGN.replace("leave = 1\n", f"leave = {leave}\n"))
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "study", "run", str(path)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and message in r.stderr and "leave-all" in r.stderr and "Traceback" not in r.stderr, (
        r.stderr
    )
    assert not (tmp_path / "studies" / "results").exists()


def test_every_interval_of_a_design_lies_in_its_quantitys_range():
    """D17 (hunt 7): a design report's two-seed Student-t intervals reached past what the quantity can be (revenue
    [-39,870,000, ...], utilization [0.2134, 1.131]). Each is intersected with its metric's range (the scheduling
    market's ``figure_ranges``), the objective's with its weights' (revenue and stay: >= 0); means are unchanged."""
    from gamemarket.confidence import t_interval
    from gamemarket.search.design import RANGES, Confirmation, DesignAnswer

    per_seed = {"revenue": [1.0e6, 9.0e7], "welfare": [-1.0, -5.0e5], "stay": [0.99, 0.2], "utilization": [0.21, 0.99]}
    conf = Confirmation("d", [1, 2], per_seed, [1.0e6 + 0.99, 9.0e7 + 0.2], True)
    cfg = {"objective": {"revenue": 1.0, "stay": 1.0}}
    DesignAnswer("s", cfg, tuple(per_seed), [], [], {"d": conf}, "d", None, None, 0, 0.0, None)
    for m, (mean, lo, hi) in conf.figures.items():
        plain = t_interval(per_seed[m])
        assert mean == plain[0] and plain[1] <= lo <= mean <= hi <= plain[2]
        assert RANGES[m][0] <= lo and hi <= RANGES[m][1], (m, lo, hi)
    assert t_interval(per_seed["revenue"])[1] < 0 and conf.figures["revenue"][1] == 0.0  # it did reach past 0
    assert t_interval(per_seed["utilization"])[2] > 1 and conf.figures["utilization"][2] == 1.0
    assert conf.objective[1] == 0.0 and conf.objective[0] == pytest.approx(np.mean(conf.objective_seeds))
    # a weight that may be negative leaves the objective unbounded: its interval is Student-t's own
    conf2 = Confirmation("d", [1, 2], per_seed, [-5.0, 7.0], True)
    DesignAnswer(
        "s", {"objective": {"revenue": 1.0, "welfare": 1.0}}, (), [], [], {"d": conf2}, "d", *[None] * 2, 0, 0.0, None
    )
    assert conf2.objective == t_interval([-5.0, 7.0])


@pytest.mark.parametrize(
    ("reserve", "outside", "said"),
    [
        (1e9, None, "the chosen reserve 1,000,000,000 is the upper end of its searched range [0, 1,000,000,000]: the "
         "objective may keep improving past it; without an outside option no user can leave, so revenue grows with "
         "the reserve: set [game] outside_price for a reserve users can refuse"),
        (1e9, 20.0, "the chosen reserve 1,000,000,000 is the upper end of its searched range [0, 1,000,000,000]: the "
         "objective may keep improving past it"),
        # a reserve cannot go below 0: no "may keep improving past it" at that end (hunt 13, H13-7)
        (0.0, None, None),
        (5.0, None, None),
    ],
)  # fmt: skip
def test_a_chosen_design_at_the_edge_of_its_range_is_said_to_be(reserve, outside, said):
    """Hunt 8 (S14): with no outside option and reserve = [0, 1e9] the search chose r = 1e9 (revenue 7.1e14) without
    a word; a chosen point at an end of its range may not be the best, and with no outside option it never is."""
    d = DesignConfig(reserve=(0.0, 1e9), budget=6, blend=0.5, optimiser="grid")
    p = _point("d", [1.0, 2.0])
    p.params = {"reserve": reserve, "blend": 0.5, "payment": "blend"}
    assert design_mod.edge_notes(d, p, outside) == ([said] if said else [])
    assert design_mod.edge_notes(d, None, outside) == []  # a fixed mechanism chosen: no range of its own


def test_a_design_report_with_no_chosen_design_heads_its_table_as_contenders():
    """Hunt 8 (S13): with no feasible design the table was still headed "The chosen design beside ..."."""
    from gamemarket.reports.design import _compare_section

    p = _point("a", [1.0, 2.0, 3.0, 4.0])
    ans = design_mod.DesignAnswer("s", {}, ("revenue",), [p], [], {"a": _conf("a", [1.0] * 4)}, None, None, None, 0,
                                  0.0, None)  # fmt: skip
    assert _compare_section(ans)[0] == "## The contenders (none chosen) beside the study's mechanisms, on fresh seeds"
    ans.chosen = "a"
    assert _compare_section(ans)[0] == "## The chosen design beside the study's mechanisms, on fresh seeds"


def test_study_status_of_a_design_study_says_whether_its_answer_is_current(tmp_path, capsys):
    """Hunt 8 (S17): ``study status`` said "8/8 population runs ... stored" of a design study whose [design] had
    changed, while ``report`` said its answer was stale; it now says the answer's state too."""
    from gamemarket.cli import main

    path = write_study(tmp_path, SMALL_DESIGN)
    assert main(["study", "status", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("design answer: not current: study 'design-small': no design answer in ")
    assert out[-1].endswith(f"; run `gamemarket study run {path}` first")
