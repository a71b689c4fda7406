"""Hunt 13 (H13-7): payoff-equivalent rules and flat objectives in the design search.

At load 0.3 nobody waits, so ``truthful`` and ``shade-high-0.9`` pay every user the same, yet the users' reduced game
was searched whole: the other rule's estimated payoffs move with the split between the two (which agents a slice
holds moves with the mixture: estimator noise, not rounding), so the strict duplicate merge never applied, support
enumeration sampled the continuum of splits as 5,472-6,478 "equilibria" per design point, and every one was verified
by its own paired runs (356,298 simulations, 709 MB). Now the two are one class before the search: one equilibrium,
verified once. And the revenue did not depend on the blend there, yet the tie went to the blend 1, with a note that
the objective "may keep improving past" a blend that cannot exceed 1."""

import numpy as np

from gamemarket.games.rsg_equilibria import DUPLICATES_NOTE, duplicate_strategies, equilibria, equivalence_classes
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.reports.design import play_words
from gamemarket.search import design as design_mod
from gamemarket.search.design import DesignEvaluator, break_tie
from gamemarket.studies import load_study
from gamemarket.studies.design_config import DesignConfig
from study_helpers import write_study


def _study_like_game(noise: float = 40.0) -> RoleSymmetricGame:
    """The shape of the hunt's game (4 players; truthful, shade-high-0.9, leave-all): the first two pay the mover
    the same in every profile; leave-all pays less, and by how many play each of the first two (``noise``)."""

    def payoff(n):
        t, s, leave = (float(v) for v in n)
        stay = -202_723.87 + 5.0 * leave  # the same to whoever plays truthful or shade-high
        return np.array([stay, stay, -204_600.0 - noise * (t * s) / 4.0 + 3.0 * leave])

    return RoleSymmetricGame.from_function(["users"], [4], [["truthful", "shade-high-0.9", "leave-all"]], payoff)


def test_rules_that_pay_the_mover_the_same_are_one_class_not_a_continuum_of_equilibria():
    g = _study_like_game()
    atol = 1e-9 * g.payoff_scale()
    # not strict duplicates (leave-all's payoff moves with the split) but the same to whoever plays them
    assert duplicate_strategies(g, atol) == []
    assert duplicate_strategies(g, atol, others=False) == [(0, 1)]
    sol = equilibria(g)
    assert len(sol.equilibria) == 1, [e.mixture for e in sol.equilibria]
    e = sol.equilibria[0]
    np.testing.assert_allclose(e.mixture, [1.0, 0.0, 0.0])
    assert g.regret(e.mixture) <= sol.tolerance
    assert e.classes == [(0, (1,), True)]  # every split of truthful's share with shade-high is one too
    for f in (0.25, 0.5, 1.0):
        assert g.regret(np.array([1 - f, f, 0.0])) <= sol.tolerance
    note = next(n for n in sol.notes if n.startswith(DUPLICATES_NOTE))
    assert "shade-high-0.9 pays as truthful" in note and "merged into one class before the search" in note


def test_a_split_that_is_no_equilibrium_is_not_claimed():
    # leave-all gains once both rules are played, so only the ends of the split hold: the class says so
    def payoff(n):
        t, s, leave = (float(v) for v in n)
        return np.array([0.0, 0.0, -1.0 + 3.0 * t * s])

    g = RoleSymmetricGame.from_function(["users"], [4], [["a", "b", "c"]], payoff)
    assert equivalence_classes(g, np.array([1.0, 0.0, 0.0])) == [(0, (1,), False)]


def test_strict_duplicates_are_a_class_of_any_mix_without_checking_splits():
    g = RoleSymmetricGame.from_function(
        ["all"], [4], [["a", "b", "c"]], lambda n: np.array([2 - 0.3 * n[2], 2 - 0.3 * n[2], 1.0 + 0.1 * (n[0] + n[1])])
    )
    sol = equilibria(g)
    assert all(e.mixture[1] == 0 for e in sol.equilibria)
    assert [e.classes for e in sol.equilibria if e.mixture[0] > 0] == [[(0, (1,), True)]]


def test_a_one_player_role_keeps_rules_that_pay_it_the_same_apart():
    # the row player gets 0 whatever it plays, the column player wants to match it: the only equilibrium has the row
    # player split its two (payoff-equivalent) rows evenly, which a merge of the rows would lose
    col = {(1, 0, 1, 0): 1.0, (1, 0, 0, 1): 0.0, (0, 1, 1, 0): 0.0, (0, 1, 0, 1): 1.0}
    g = RoleSymmetricGame.from_function(
        ["row", "col"], [1, 1], [["a", "b"], ["x", "y"]], lambda n: np.array([0.0, 0.0, 1.0, 1.0]) * col[tuple(n)]
    )
    sol = equilibria(g)
    assert any(np.allclose(e.mixture, [0.5, 0.5, 0.5, 0.5]) for e in sol.equilibria)
    assert not any(n.startswith(DUPLICATES_NOTE) for n in sol.notes)


#: the how-to's market, small: at load 0.3 and reserve 19 nobody waits and everyone pays the reserve
EQUIVALENT = """
name = "design-equivalent"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 120
load = 0.3
seed = 0
[strategies]
providers = ["hb-first"]
[game]
kind = "population"
strategies = ["truthful", "shade-high-0.9", "leave-all"]
outside_price = 20.0
probe = 0.05
joint = false
[game.shading.leave-all]
beta = 0.0
leave = 1.0
[replications]
count = 2
[design]
schedulers = ["hb"]
payment = "blend"
reserve = [0.0, 40.0]
blend = [0.0, 1.0]
budget = 4
optimiser = "grid"
confirm_seeds = 2
"""


def test_a_design_point_with_payoff_equivalent_rules_verifies_one_class_once(tmp_path):
    spec = load_study(write_study(tmp_path, EQUIVALENT))
    ev = DesignEvaluator(spec)
    prov = spec.design.point("hb", [19.0, 1.0])
    p = ev.evaluate(prov, order=0, source="grid")
    assert p.equilibria == 1 and p.verified == "yes"
    assert p.equilibrium == {"truthful": 1.0}
    assert p.classes == {"truthful": {"with": ["shade-high-0.9"], "any_mix": True}}
    assert "or shade-high-0.9, in any mix with truthful" in play_words(p)
    # verified once: the paired runs are at the all-truthful population (its gains), which is the candidate too
    paired = {m for _, _, m, _, is_paired in ev._used if is_paired}
    assert paired == {(1.0, 0.0, 0.0)}
    assert ev.simulations < 100  # was thousands per point: a paired record per sampled split and seed


def _point(name, params, obj, feasible=True):
    return design_mod.DesignPoint(name, "hb", params, 0, "x", {"truthful": 1.0}, [1.0, 0.0], "yes", 0.0, 1.0, 1,
                                  [1, 2, 3], {"revenue": obj}, obj, feasible)  # fmt: skip


BOX = [("reserve", 0.0, 40.0), ("blend", 0.0, 1.0)]


def test_a_blend_of_1_is_not_said_to_be_improvable_past_its_end():
    d = DesignConfig(reserve=(0.0, 40.0), budget=12, blend=(0.0, 1.0), optimiser="grid")
    chosen = _point("a", {"reserve": 19.0, "blend": 1.0, "payment": "blend"}, [3.0, 4.0, 5.0])
    assert design_mod.edge_notes(d, chosen, 20.0) == []  # a blend cannot exceed 1 (first price)
    # a blend range that stops short of 1: its upper end is the search's, not the parameter's
    short = DesignConfig(reserve=(0.0, 40.0), budget=12, blend=(0.0, 0.5), optimiser="grid")
    chosen.params = {"reserve": 19.0, "blend": 0.5, "payment": "blend"}
    assert design_mod.edge_notes(short, chosen, 20.0) == [
        "the chosen blend 0.5 is the upper end of its searched range [0, 0.5]: the objective may keep improving past it"
    ]


def test_a_flat_objective_along_the_parameter_gives_no_edge_note():
    d = DesignConfig(reserve=(0.0, 40.0), budget=12, blend=(0.0, 0.9), optimiser="grid")
    chosen = _point("a", {"reserve": 19.0, "blend": 0.9, "payment": "blend"}, [3.0, 4.0, 5.0])
    same = _point("b", {"reserve": 19.0, "blend": 0.786, "payment": "blend"}, [3.0, 4.0, 5.0])
    other_r = _point("c", {"reserve": 12.0, "blend": 0.5, "payment": "blend"}, [1.0, 2.0, 3.0])
    assert design_mod.edge_notes(d, chosen, 20.0, [chosen, same, other_r]) == []
    lower = _point("b", {"reserve": 19.0, "blend": 0.786, "payment": "blend"}, [2.0, 3.0, 4.0])
    assert len(design_mod.edge_notes(d, chosen, 20.0, [chosen, lower, other_r])) == 1  # rising: it may go on


def test_a_tie_on_the_fresh_seeds_goes_to_the_interior_and_is_said():
    pts = [
        _point("hb-blend[r=19,a=1]", {"reserve": 19.0, "blend": 1.0}, [5.0, 5.0, 5.0]),
        _point("hb-blend[r=19,a=0.786]", {"reserve": 19.0, "blend": 0.786}, [5.0, 5.0, 5.0]),
        _point("hb-blend[r=19,a=0.868]", {"reserve": 19.0, "blend": 0.868}, [5.0, 5.0, 5.0]),
    ]
    best, note = break_tie(pts, BOX)
    assert best.provider == "hb-blend[r=19,a=0.786]" and "3 contenders tie" in note
    conf = {p.provider: design_mod.Confirmation(p.provider, [7, 8, 9], {"revenue": [6.0] * 3}, [6.0] * 3, True)
            for p in pts}  # fmt: skip
    chosen, _, _, notes, _, _ = design_mod._choose(pts, pts, conf, (), BOX)
    assert chosen == "hb-blend[r=19,a=0.786]" and any("farthest inside the searched ranges" in n for n in notes)
    assert break_tie(pts[:1], BOX) == (pts[0], None)  # no tie: nothing said


def test_a_tie_at_the_end_of_one_range_goes_to_the_interior_of_the_others():
    # hunt 25a-F2: five contenders tied, all at r = 40 (the end of the reserve's range: the least distance 0 for each);
    # the smaller parameters then chose a = 0, the end of the blend's range, over a = 0.5, and the report said "the
    # one farthest inside the searched ranges is chosen"
    blends = [1.0, 0.0, 0.5, 0.967, 0.979]
    pts = [_point(f"hb-blend[r=40,a={a:g}]", {"reserve": 40.0, "blend": a}, [5.0, 5.0, 5.0]) for a in blends]
    best, note = break_tie(pts, BOX)
    assert best.provider == "hb-blend[r=40,a=0.5]" and "5 contenders tie" in note
    # every order of the contenders chooses the same one
    assert all(break_tie(pts[k:] + pts[:k], BOX)[0].provider == best.provider for k in range(len(pts)))


def test_a_tie_between_schedulers_is_broken_by_name_not_by_their_order():
    # hunt 26a-W1: hb-blend and wspt-blend tied at the same point; `schedulers = ["hb", "wspt"]` recommended one and
    # `["wspt", "hb"]` the other
    pts = [
        _point("wspt-blend[r=40,a=0]", {"reserve": 40.0, "blend": 0.0}, [5.0, 5.0, 5.0]),
        _point("hb-blend[r=40,a=0]", {"reserve": 40.0, "blend": 0.0}, [5.0, 5.0, 5.0]),
    ]
    assert break_tie(pts, BOX)[0].provider == break_tie(pts[::-1], BOX)[0].provider == "hb-blend[r=40,a=0]"
