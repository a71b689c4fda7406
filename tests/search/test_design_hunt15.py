"""Hunt 15 (H15a-3, -5, -6): a design report's claims are what was computed.

H15a-3: "How it is measured" said "the best 5 feasible designs" of a run that confirmed 4 (and of one where none was
feasible), that a grid of budget 5 "proposed 5 points (a Latin hypercube start ...)" where it evaluated a 2 x 2
grid, and the notes were glued into one clause. H15a-5: a design compared with the chosen one on one seed had its
single difference counted as its own "95% upper bound". H15a-6: with ``explore = true`` a fixed mechanism, answered
over the menu alone, could be chosen beside designs whose answers were all explored."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from gamemarket.reports.design import _lead, _method_section, _sure, notes_text
from gamemarket.search import design as design_mod
from gamemarket.search.design import DesignAnswer, DesignEvaluator, regret_bound
from gamemarket.studies import load_study
from gamemarket.studies.design_config import DesignConfig
from study_helpers import write_study


def _point(name, obj, *, seeds=None, feasible=True, params=None, order=0, explored=None):
    seeds = seeds or list(range(1, len(obj) + 1))
    p = design_mod.DesignPoint(name, "hb", params or {}, order, "x", {"truthful": 1.0}, [1.0], "yes", 0.0, 1.0, 1,
                               seeds, {"revenue": list(obj)}, list(obj), feasible)  # fmt: skip
    p.explored = explored
    return p


def _conf(name, obj):
    return design_mod.Confirmation(name, [10, 11, 12, 13][: len(obj)], {"revenue": list(obj)}, list(obj), True)


# ---------------------------------------------------------------------------- H15a-5: no bound from one seed
def test_a_design_compared_on_one_seed_gets_no_bound_and_is_named():
    # the hunt: one search seed; the non-contenders' single differences were "95% upper bounds"
    chosen = _point("best", [100.0])
    lone = _point("lone", [400.0])  # not a contender: compared on the search seed alone
    rival = _point("rival", [90.0])
    conf = {"best": _conf("best", [100.0, 110.0, 90.0]), "rival": _conf("rival", [95.0, 112.0, 80.0])}
    got, bound, against, _, upper, unbounded = design_mod._choose([chosen, lone, rival], [chosen, rival], conf)
    d = np.subtract([95.0, 112.0, 80.0], [100.0, 110.0, 90.0])
    want = d.mean() + stats.t.ppf(1 - 0.05, 2) * d.std(ddof=1) / np.sqrt(3)  # Bonferroni over the one bounded
    assert got == "best" and unbounded == ["lone"] and against == "rival"
    assert upper == pytest.approx(want) and bound == pytest.approx(max(want, 0.0))
    assert bound < 300.0  # not the single difference 300 taken for a bound


def test_with_every_other_design_on_one_seed_no_bound_is_claimed():
    chosen, lone = _point("best", [100.0]), _point("lone", [150.0])
    got, bound, against, _, upper, unbounded = design_mod._choose(
        [chosen, lone], [chosen], {"best": _conf("best", [1.0, 2.0])}
    )
    assert (got, bound, against, upper, unbounded) == ("best", None, None, None, ["lone"])


def test_equal_values_on_two_seeds_or_more_stay_an_exact_bound():
    assert regret_bound({"a": np.array([3.0, 3.0])}) == (3.0, "a", 3.0, [])
    assert regret_bound({"a": np.array([-3.0, -3.0, -3.0])}) == (0.0, "a", -3.0, [])
    assert regret_bound({"a": np.array([5.0])}) == (None, None, None, ["a"])
    with pytest.raises(ValueError):
        design_mod._upper(np.array([5.0]), 0.05)


def _answer(points, conf, chosen, *, config=None, compare=(), notes=(), **kw):
    cfg = config or DesignConfig(reserve=(0.0, 40.0), blend=(0.0, 1.0), budget=8, contenders=4).table()
    return DesignAnswer("s", cfg, ("revenue",), list(points), list(compare), conf, chosen, kw.get("bound"),
                        kw.get("against"), 99, 0.0, 20.0, {"workload": "synthetic", "jobs": 300, "nodes": 8},
                        list(notes), kw.get("upper"), list(kw.get("unbounded", [])))  # fmt: skip


def test_the_report_says_no_95_bound_from_one_seed_and_names_them():
    pts = [_point("best", [100.0]), _point("lone", [400.0]), _point("other", [50.0])]
    ans = _answer(pts, {"best": _conf("best", [1.0, 2.0])}, "best", unbounded=["lone", "other"])
    text = _sure(ans)
    assert text.startswith("How sure: no 95% bound: 2 mechanisms were compared with it on one seed only")
    assert "`lone`, `other`" in text and "at 95%" not in text.replace("no 95% bound", "")
    ans = _answer(pts, {"best": _conf("best", [1.0, 2.0])}, "best", bound=2.0, against="other", upper=2.0,
                  unbounded=["lone"])  # fmt: skip
    text = _sure(ans)
    assert "no other mechanism compared with it on two seeds or more beats it by more than 2" in text
    assert "1 mechanism was compared with it on one seed only (`lone`): no interval, so no bound against it" in text


def test_a_stored_answer_without_the_new_field_still_reads():
    ans = _answer([_point("best", [1.0, 2.0])], {"best": _conf("best", [1.0, 2.0])}, "best", bound=0.0)
    d = json.loads(json.dumps(ans.to_dict()))
    assert d["regret_unbounded"] == []
    del d["regret_unbounded"]
    assert DesignAnswer.from_dict(d).regret_unbounded == []


# ---------------------------------------------------------------------------- H15a-3: counts of what was run
SPEC = SimpleNamespace(population=SimpleNamespace(reduced_players=4), seeds=[0, 1, 2])


def _method(ans) -> str:
    return " ".join(_method_section(ans, SPEC))


def test_the_method_counts_the_designs_confirmed_not_the_configured_contenders():
    # the hunt: 4 feasible designs, contenders = 4: "The best 5 feasible designs"
    pts = [_point(f"d{k}", [10.0 - k] * 3, params={"reserve": float(k), "blend": 0.5}) for k in range(4)]
    fixed = _point("hb-kth", [1.0] * 3, order=-1)
    conf = {p.provider: _conf(p.provider, [10.0 - k] * 4) for k, p in enumerate(pts)}
    conf["hb-kth"] = _conf("hb-kth", [1.0] * 4)
    text = _method(_answer(pts, conf, "d0", compare=[fixed], bound=0.0, against="d1", upper=-1.0))
    assert "The 4 feasible designs and the study's fixed mechanism hb-kth were then run" in text
    assert "best 5" not in text and "over the 4 other feasible mechanisms" in text
    assert "on 3 seeds" in text and "8 distinct points" not in text and "4 distinct points were evaluated" in text
    # two of the four confirmed
    conf2 = {k: v for k, v in conf.items() if k not in ("d2", "d3")}
    assert "The best 2 of the 4 feasible designs" in _method(_answer(pts, conf2, "d0", compare=[fixed], bound=0.0))


def test_with_no_feasible_design_nothing_is_said_of_a_choice_among_contenders():
    pts = [_point(f"d{k}", [1.0] * 3, feasible=False) for k in range(3)]
    fixed = _point("hb-first", [1.0] * 3, order=-1)
    text = _method(_answer(pts, {"hb-first": _conf("hb-first", [1.0] * 4)}, None, compare=[fixed]))
    assert "No design was feasible on the search seeds, so none was confirmed and none is chosen" in text
    assert "the study's fixed mechanism hb-first was run at its equilibrium on 4 fresh seeds" in text
    assert "feasible designs" not in text and "chosen mechanism is" not in text and "regret bound is" not in text


def test_a_grid_says_the_grid_it_evaluated_not_the_budget_or_a_latin_hypercube():
    # the hunt: budget 5 over 2 parameters is a 2 x 2 grid; the text said "proposed 5 points (a Latin hypercube ...)"
    cfg = DesignConfig(reserve=(0.0, 40.0), blend=(0.0, 1.0), budget=5, optimiser="grid").table()
    pts = [_point(f"d{r}{a}", [1.0] * 3, params={"reserve": r, "blend": a}) for r in (0.0, 40.0) for a in (0.0, 1.0)]
    text = _method(_answer(pts, {}, None, config=cfg))
    assert "a regular grid of 2 reserve values x 2 blend values" in text and "4 points" in text
    assert "Latin hypercube" not in text and "proposed 5" not in text and "line search" not in text


def test_a_model_based_search_says_its_start_its_polish_and_the_points_it_evaluated():
    cfg = DesignConfig(reserve=(0.0, 40.0), blend=(0.0, 1.0), budget=12, optimiser="gp").table()
    pts = [_point(f"d{k}", [1.0] * 3, params={"reserve": float(k), "blend": 0.5}) for k in range(7)]
    text = _method(_answer(pts, {}, None, config=cfg))
    assert "given a budget of 12 proposals, the first 5 a Latin hypercube (seed 0)" in text
    assert "up to 3 of them a line search" in text and "7 distinct points were evaluated" in text


def test_notes_read_as_separate_sentences():
    notes = [
        "2 contenders tie on the fresh seeds: `a`, `b`; the one farthest inside is chosen (the objective does not "
        "depend on what sets them apart there)",
        "the fixed mechanism hb-first beat every design the search found on the fresh seeds",
    ]
    text = notes_text(notes)
    assert "there). The fixed mechanism hb-first beat" in text and text.endswith("seeds.")
    assert notes_text(["hb-first is a name"]) == "hb-first is a name."  # a name is not capitalised
    pts = [_point("hb-first", [1.0] * 3, order=-1)]
    lead = "\n".join(_lead(_answer([], {}, None, compare=pts, notes=notes), SimpleNamespace(name="s")))
    assert "**No design is chosen:** 2 contenders tie" in lead and "there). The fixed" in lead


# ---------------------------------------------------------------------------- H15a-6: fixed mechanisms explored
def test_a_chosen_fixed_mechanism_answered_over_the_menu_alone_is_said_to_be():
    cfg = DesignConfig(reserve=(0.0, 40.0), blend=(0.0, 1.0), budget=8, explore=True).table()
    fixed = _point("hb-kth", [5.0] * 3, order=-1, params={"payment": "kth", "reserve": 1.0})
    d = _point("d", [1.0] * 3, explored={"certified": False, "epsilon": 1.0, "tolerance": 2.0, "added": [],
                                          "warm_start": None, "reason": "", "rounds": 1, "simulations": 5})  # fmt: skip
    spec = SimpleNamespace(
        name="s",
        description="",
        population=SimpleNamespace(strategies=[], agents="jobs"),
        exploration={},
        workload={"source": "synthetic"},
    )
    conf = {"hb-kth": _conf("hb-kth", [5.0] * 4), "d": _conf("d", [1.0] * 4)}
    ans = _answer([d], conf, "hb-kth", config=cfg, compare=[fixed], bound=0.0, against="d", upper=-4.0)
    lead = "\n".join(_lead(ans, spec))
    assert "its users' answer is over the study's menu only (not explored" in lead
    assert "The fixed mechanism hb-kth is answered over the study's menu only, not explored" in _method(ans)
    fixed.explored = dict(d.explored, warm_start="d")
    lead = "\n".join(_lead(ans, spec))
    assert "explored at this point, warm-started from `d`" in lead and "menu only" not in lead
    text = _method(ans)
    assert "At each of the 1 design points and at the fixed mechanism hb-kth" in text
    assert "whichever mechanism is chosen, its users' answer was explored the same way" in text


EXPLORING = """
name = "design-explore-fixed"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 200
load = 0.3
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "leave-all"]
outside_price = 20.0
probe = 0.05
joint = false
[game.shading.leave-all]
family = "per-class-leave"
beta = 0
leave = 1
[game.exploration]
family = "per-class-leave"
budget = 150
evaluations = 6
confirm_seeds = 2
first_seeds = 2
[replications]
count = 2
[design]
schedulers = ["hb"]
payment = "blend"
reserve = [0, 40]
blend = [0, 1]
budget = 4
optimiser = "grid"
confirm_seeds = 2
explore = true
"""


def test_with_explore_a_fixed_mechanism_is_explored_from_the_nearest_design_by_its_payment(tmp_path):
    spec = load_study(write_study(tmp_path, EXPLORING))
    ev = DesignEvaluator(spec)
    provs = {p.name: p for p in spec.providers}
    far = spec.design.point("hb", np.array([40.0, 0.0]))  # reserve 40, k-th price
    near_first = spec.design.point("hb", np.array([0.0, 1.0]))  # reserve 0, first price: hb-first's nearest
    for k, prov in enumerate([far, near_first]):
        ev.evaluate(prov, order=k, source="grid")
    p = ev.evaluate(provs["hb-first"], order=-1, source="compare")
    assert p.explored is not None and p.explored["simulations"] > 0
    assert p.explored["warm_start"] == near_first.name  # first price is the blend 1, not the box's low end 0


def test_an_exploration_stopped_by_its_budget_says_so_and_fixed_mechanisms_show_their_certificate():
    from gamemarket.reports.design import _compare_section

    cfg = DesignConfig(reserve=(0.0, 40.0), blend=(0.0, 1.0), budget=8, explore=True).table()
    x = {"certified": False, "epsilon": 71970.0, "tolerance": 1890.0, "added": [], "warm_start": None,
         "reason": "the budget of 60 simulations ran out (44 used)", "rounds": 2, "simulations": 44}  # fmt: skip
    d = _point("d", [1.0] * 3, explored=x)
    fixed = _point("hb-kth", [5.0] * 3, order=-1, explored=dict(x, reason="an equilibrium's epsilon is above"))
    conf = {"hb-kth": _conf("hb-kth", [5.0] * 4), "d": _conf("d", [1.0] * 4)}
    text = "\n".join(_compare_section(_answer([d], conf, "hb-kth", config=cfg, compare=[fixed])))
    assert (
        "family: not certified (epsilon 71,970, tolerance 1,890; the budget of 60 simulations ran out (44 used))"
        in text
    )
    assert "family: not certified (epsilon 71,970, tolerance 1,890) |" in text  # no reason but the budget's


def test_a_fixed_mechanism_that_ties_the_design_is_said_and_one_that_beats_it_by_rounding_is_not_chosen():
    """Hunt 15a, W10 (H15a-4's sibling): a fixed mechanism earning exactly the design's objective on the fresh
    seeds was not mentioned; one ahead by 1e-12 of it was 'chosen, beating every design'."""
    best, fixed = _point("best", [100.0, 100.0]), _point("hb-kth", [100.0, 100.0])
    for extra in (0.0, 100.0 * 1e-12):
        conf = {"best": _conf("best", [100.0, 100.0]), "hb-kth": _conf("hb-kth", [100.0 + extra, 100.0 + extra])}
        got, _, _, notes, _, _ = design_mod._choose([best], [best], conf, [fixed])
        assert got == "best"
        assert any("the fixed mechanism hb-kth ties with best on the fresh seeds" in n for n in notes), notes
        assert not any("beat every design" in n for n in notes)
