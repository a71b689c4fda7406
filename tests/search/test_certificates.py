"""Certificates: epsilon over every evaluated rule, by sequential sampling, and the statistics they rest on."""

import numpy as np
import pytest
from scipy import stats

from gamemarket.confidence import doubling_looks, spending, t_bound
from gamemarket.search.certificates import certify


def test_the_one_sided_bound_is_the_student_t_one():
    rng = np.random.default_rng(0)
    for n in (2, 5, 30):
        v = rng.normal(3, 2, n)
        want = v.mean() + stats.t.ppf(0.95, n - 1) * v.std(ddof=1) / np.sqrt(n)
        assert t_bound(v, 0.05) == pytest.approx(want, rel=1e-12)
        assert t_bound(v, 0.05, "lower") == pytest.approx(2 * v.mean() - want, rel=1e-12)
    assert np.isnan(t_bound([1.0], 0.05))


def test_the_looks_double_up_to_the_cap_and_spend_the_error_evenly():
    assert doubling_looks(4, 40) == [4, 8, 16, 32, 40] and doubling_looks(4, 4) == [4] and doubling_looks(6, 3) == [3]
    assert spending(0.05, 5) == [0.01] * 5 and sum(spending(0.05, 3)) == pytest.approx(0.05)


class Rules:
    """Rules with known mean gains and normal noise per seed; counts every (rule, seed) evaluated."""

    def __init__(self, means, sd=1.0, seed=0):
        self.means, self.sd = dict(means), sd
        self.rng = np.random.default_rng(seed)
        self.values: dict = {}
        self.asked: list = []

    def __call__(self, rules, seeds):
        out = []
        for r in rules:
            row = []
            for s in seeds:
                if (r, s) not in self.values:
                    self.values[(r, s)] = self.means[r] + self.sd * self.rng.standard_normal()
                    self.asked.append((r, s))
                row.append(self.values[(r, s)])
            out.append(row)
        return np.array(out)

    def cost(self, rules, seeds):
        return sum((r, s) not in self.values for r in rules for s in seeds)


FRESH = list(range(100, 140))


def test_a_clear_equilibrium_is_certified_at_the_first_look_and_epsilon_is_the_largest_bound():
    ev = Rules({"a": -10.0, "b": -8.0, "c": 0.0}, sd=0.5)
    c = certify(ev, ["a", "b", "c"], FRESH, 3.0, first=4, cost=ev.cost)
    assert c.verdict == "certified" and c.looks == 1 and c.epsilon <= 3.0
    assert c.epsilon == max(b.upper for b in c.rules) and c.best.rule == "c"
    assert c.simulations == 12 == len(ev.asked)


def test_only_unsettled_rules_get_more_seeds_and_a_clear_deviation_is_said():
    ev = Rules({"far": -50.0, "near": 2.5}, sd=2.0, seed=1)
    c = certify(ev, ["far", "near"], FRESH, 3.0, first=4, cost=ev.cost)
    far = {s for r, s in ev.asked if r == "far"}
    assert far == set(FRESH[:4])  # settled at the first look
    assert {b.rule: b.seeds for b in c.rules}["near"] > 4
    ev = Rules({"a": 0.0, "big": 20.0}, sd=1.0)
    c = certify(ev, ["a", "big"], FRESH, 3.0, first=4, cost=ev.cost)
    assert c.verdict == "deviation" and c.best.rule == "big" and c.best.lower > 3.0


def test_a_rule_at_the_tolerance_ends_undecided_at_the_cap_and_the_budget_stops_the_looks():
    ev = Rules({"edge": 3.0}, sd=5.0, seed=2)
    c = certify(ev, ["edge"], FRESH, 3.0, first=4, cost=ev.cost)
    assert c.verdict == "undecided" and c.looks == 5 and "cap" in c.reason and c.epsilon > 3.0
    ev = Rules({"edge": 3.0}, sd=5.0, seed=2)
    c = certify(ev, ["edge"], FRESH, 3.0, first=4, cost=ev.cost, budget=10)
    assert c.verdict == "undecided" and c.simulations <= 10 and "budget" in c.reason


def test_a_rule_that_gains_exactly_the_same_on_every_seed_bounds_itself():
    c = certify(lambda rules, seeds: np.zeros((len(rules), len(seeds))), ["own"], FRESH, 0.0, first=4)
    assert c.verdict == "certified" and c.epsilon == 0.0


@pytest.mark.slow
@pytest.mark.parametrize("means", [[0.0] * 12, [-1.0] * 6 + [0.0], [0.0, -0.5, -2.0, -5.0]])
def test_epsilon_covers_the_largest_gain_at_least_95_percent_of_the_time(means):
    """Over many repetitions with known gains, the largest true gain is at most epsilon in at least 95% of them
    (the maximum of one-sided bounds needs no correction for the number of rules; the looks are corrected)."""
    names = [f"r{k}" for k in range(len(means))]
    covered, reps = 0, 400
    for rep in range(reps):
        ev = Rules(dict(zip(names, means)), sd=1.0, seed=1000 + rep)
        c = certify(ev, names, FRESH, 0.3, first=4, cost=ev.cost)
        covered += max(means) <= c.epsilon
    assert covered / reps >= 0.95
