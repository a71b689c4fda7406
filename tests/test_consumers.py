"""The consumer-strategy interface: checks every registered family and catalogue strategy gets for free
(in the spirit of Axelrod's TestPlayer; the checks are ``gamemarket.testing`` functions, so a plugin's family gets
them too), and the parametric families' API."""

import math

import numpy as np
import pytest

from gamemarket import consumers
from gamemarket.consumers import FAMILIES, BetaMix, ConsumerStrategy, ParametricFamily, PiecewiseRule, ShadingRule
from gamemarket.errors import InputError
from gamemarket.studies.population_config import PopulationConfig, load_shading
from gamemarket.studies.strategies import builtin_catalogue, load_consumers
from gamemarket.testing import check_bids, check_box, check_independent, check_round_trip, family_draws, family_points


def _catalogue() -> dict[str, ConsumerStrategy]:
    out = {f"consumers:{k}": v for k, v in load_consumers().items()}
    out.update({f"shading:{k}": v for k, v in load_shading(builtin_catalogue("shading.toml")).items()})
    return out


def _points() -> dict[str, ConsumerStrategy]:
    """Points of every parametric family: its corners (lower bound, just under the upper) and a random one
    (``gamemarket.testing.family_points``, what ``check_family`` checks a plugin's family on)."""
    out = {}
    for name, fam in FAMILIES.items():
        if isinstance(fam, ParametricFamily):
            out.update({f"{name}:{tag}": s for tag, s in family_points(fam).items()})
    return out


STRATEGIES = {**_catalogue(), **_points()}


_draws = family_draws  # the seeded jobs, with the bid classes' edges, that the conformance checks use


def test_every_family_is_registered_with_a_description():
    assert {"beta-mix", "per-class", "piecewise"} <= set(FAMILIES)
    for name, fam in FAMILIES.items():
        assert fam.name == name and fam.description


@pytest.mark.parametrize("key", sorted(STRATEGIES))
def test_reported_bids_are_finite_within_zero_and_the_private_bid_and_deterministic(key):
    check_bids(STRATEGIES[key])  # gamemarket.testing: the checks a plugin's family gets too


@pytest.mark.parametrize("key", sorted(STRATEGIES))
def test_params_round_trip_through_the_family(key):
    check_round_trip(STRATEGIES[key])


@pytest.mark.parametrize("key", sorted(STRATEGIES))
def test_a_job_bid_does_not_depend_on_who_else_plays_the_strategy(key):
    """``population_bids`` gives each strategy its own jobs: the same bits as the strategy on all jobs."""
    check_independent(STRATEGIES[key])


def test_the_shared_checks_fail_on_a_bad_strategy():
    """The library checks can fail: a strategy whose bids exceed the private bid, or that forgets its params."""

    class Over(ShadingRule):
        def reported_bids(self, private_bid, bid_class, G, U):
            group, rw = super().reported_bids(private_bid, bid_class, G, U)
            return group, rw + 1.0

    with pytest.raises(InputError, match=r"expected a finite bid in \[0, private bid\]"):
        check_bids(Over("over", (0.1, 0.1, 0.1)))

    class Forgets(ShadingRule):
        def params(self):
            return {"betas": [0.0, 0.0, 0.0]}

    with pytest.raises(AssertionError):
        check_round_trip(Forgets("f", (0.5, 0.5, 0.5)))


@pytest.mark.parametrize("name", [n for n, f in FAMILIES.items() if isinstance(f, ParametricFamily)])
def test_a_parametric_family_declares_its_box_and_names_points_by_their_parameters(name):
    fam = FAMILIES.get(name)
    assert check_box(fam)  # gamemarket.testing's version, for any family's bounds; this test's messages are [0, 1)'s
    assert fam.dimension == len(fam.bounds) == len(fam.param_names) > 0
    x = [0.5 * (lo + hi) for lo, hi in fam.bounds]
    s = fam.point(x)
    assert np.array_equal(fam.coordinates(s), x)
    assert fam.point(dict(zip(fam.param_names, x))).key() == s.key()
    assert fam.point(x).name == s.name and name in s.name
    y = list(x)
    y[0] = 0.1234567891
    assert fam.point(y).name != fam.point([0.123457] + x[1:]).name  # %g would merge them: the hash does not
    for bad in (fam.bounds[-1][1], fam.bounds[0][0] - 0.01, math.nan):
        z = list(x)
        z[-1 if bad == fam.bounds[-1][1] else 0] = bad
        field = fam.param_names[-1 if bad == fam.bounds[-1][1] else 0]
        with pytest.raises(InputError, match=rf"family '{name}': parameter '{field}' must be in \[0, 1\)"):
            fam.point(z)
    with pytest.raises(InputError, match=f"expected {fam.dimension} parameters"):
        fam.point(x[:-1])
    with pytest.raises(InputError, match=r"unknown \['nope'\]"):
        fam.point({**dict(zip(fam.param_names, x)), "nope": 0.1})


def test_todays_shading_rules_are_points_of_the_per_class_family():
    fam = FAMILIES.get("per-class")
    cat = load_shading(builtin_catalogue("shading.toml"))
    for rule in cat.values():
        p = fam.point(fam.coordinates(rule))
        assert p.params() == rule.params() and p.key() == rule.key()
    assert fam.point([0, 0, 0.9]).name == "per-class[0,0,0.9]"


def test_piecewise_rule_interpolates_between_its_knots():
    fam = FAMILIES.get("piecewise")
    assert fam.knots == consumers.KNOTS == (0.0, 30.0, 60.0, 90.0, 120.0, 150.0, 180.0)
    r = fam.point([0, 0, 0, 0.2, 0.4, 0.6, 0.9])
    np.testing.assert_allclose(r.beta(np.array([0, 75, 90, 135, 180, 200])), [0, 0.1, 0.2, 0.5, 0.9, 0.9])
    _, rw = r.reported_bids(np.array([135.0]), np.array([2]), np.array([0.3]), np.array([0.5]))
    assert rw[0] == 135.0 * (1 - 0.5 * 0.5)
    with pytest.raises(InputError, match="field 'knots'"):
        fam.from_params({"family": "piecewise", "knots": [0, 90, 180], "betas": [0, 0, 0]}, "x")


def test_catalogue_entries_name_their_family(tmp_path):
    f = tmp_path / "shading.toml"
    f.write_text(
        '[truthful]\nbeta = 0.0\n\n[rise]\nfamily = "piecewise"\nbetas = [0, 0, 0, 0.3, 0.6, 0.9, 0.9]\n'
        '\n[mid]\nfamily = "per-class"\nbeta = { middle = 0.4 }\n'
    )
    cat = load_shading(f)
    assert isinstance(cat["rise"], PiecewiseRule) and cat["rise"].betas[-1] == 0.9
    assert cat["mid"].params() == {"betas": [0.0, 0.4, 0.0]}
    cfg = PopulationConfig(tuple(cat.values()))
    assert cfg.params()["strategies"][1] == {
        "family": "piecewise",
        "knots": list(consumers.KNOTS),
        "betas": [0, 0, 0, 0.3, 0.6, 0.9, 0.9],
    }


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('[x]\nfamily = "nope"\nbeta = 0.1\n', r"\[x\] field 'family': unknown consumer-strategy family 'nope'"),
        ('[x]\nfamily = "piecewise"\nbetas = [0.1, 0.2]\n', r"\[x\] field 'betas': expected 7 values"),
        (
            '[x]\nfamily = "piecewise"\nbetas = [0, 0, 0, 0, 0, 0, 1.0]\n',
            r"\[x\] field 'betas #7': expected a number < 1",
        ),
        ('[x]\nfamily = "piecewise"\nbeta = 0.1\n', r"\[x\].*'beta'"),
    ],
)
def test_bad_catalogue_entries_are_errors_naming_the_field(tmp_path, text, match):
    f = tmp_path / "shading.toml"
    f.write_text(text)
    with pytest.raises(InputError, match=match):
        load_shading(f)


def test_the_two_legacy_shapes_keep_their_keys():
    """Stored runs and committed reports keep their keys: the params of today's strategies are unchanged."""
    assert BetaMix(((0.9, 0.1), (0.1, 0.9)), "SRG").params() == {"groups": [[0.9, 0.1], [0.1, 0.9]]}
    assert ShadingRule("s", (0, 0, 0.9)).params() == {"betas": [0.0, 0.0, 0.9]}


def test_a_population_study_plays_inline_strategies_of_any_family_and_writes_them_back(tmp_path):
    from gamemarket.studies import load_study

    f = tmp_path / "pop.toml"
    f.write_text(
        'name = "pop"\n[workload]\nsource = "synthetic"\n[strategies]\nproviders = ["hb-first"]\n'
        '[game]\nkind = "population"\nstrategies = ["truthful", "mine", "rise"]\n'
        "[game.shading.mine]\nbeta = {high = 0.7}\n"
        '[game.shading.rise]\nfamily = "piecewise"\nbetas = [0, 0, 0, 0.2, 0.4, 0.6, 0.8]\n'
    )
    spec = load_study(f)
    keys = [s.key() for s in spec.population.strategies]
    assert isinstance(spec.population.strategies[2], PiecewiseRule)
    spec.to_toml(tmp_path / "again.toml")
    assert [s.key() for s in load_study(tmp_path / "again.toml").population.strategies] == keys
    f.write_text(f.read_text().replace('family = "piecewise"', 'family = "spline"'))
    with pytest.raises(InputError, match=r"\[game.shading.rise\] field 'family': unknown consumer-strategy family"):
        load_study(f)


def test_the_one_lookup_of_per_class_rules_equals_each_rule_on_its_own_jobs():
    w, cls, G, U = _draws(3000)
    rules = [ShadingRule("t", (0, 0, 0)), ShadingRule("a", (0.3, 0.1, 0.9)), ShadingRule("b", (0.5, 0.5, 0.5))]
    which = np.random.default_rng(1).integers(0, 3, len(w))
    fast = consumers.population_bids(rules, which, w, G, U)
    slow = consumers.population_bids(rules + [FAMILIES.get("piecewise").point([0.2] * 7)], which, w, G, U)
    assert np.array_equal(fast, slow)  # the piecewise rule plays no job here: the general path, the same bits
    assert (
        rules[1].betas_by_class == (0.3, 0.1, 0.9) and FAMILIES.get("piecewise").point([0] * 7).betas_by_class is None
    )


@pytest.mark.parametrize("value", ["0.5", b"0.5", 0.5, None, {"low": 0.1}, [0.1, "x", 0.2]])
def test_a_rules_numbers_that_are_no_sequence_of_numbers_are_named(value):
    """``ShadingRule('x', '0.5')`` read the string as the characters '0', '.', '5' ("could not convert string to float:
    '.'"): a string, a single number or a sequence of non-numbers is refused naming the rule, the field and the value,
    in every family that takes numbers per class or per knot."""
    from gamemarket.consumers.shading import LeavingRule

    with pytest.raises(InputError, match=r"^shading rule 'x': betas must be (a sequence of )?numbers, got "):
        ShadingRule("x", value)
    with pytest.raises(InputError, match=r"^shading rule 'y': leave shares must be (a sequence of )?numbers, got "):
        LeavingRule("y", (0.0, 0.0, 0.0), leave=value)
    with pytest.raises(InputError, match=r"^piecewise rule 'p': knots must be (a sequence of )?numbers, got "):
        PiecewiseRule("p", value, (0.0, 0.5))
    assert ShadingRule("x", np.array([0.1, 0.2, 0.3])).betas == (0.1, 0.2, 0.3)
