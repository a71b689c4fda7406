"""The outside option (market model, "The outside option"): jobs that leave never enter the cluster and get
``-w tau - c tau``; the cluster's figures count the jobs that stay. Checked against the plain reference run on the
stayers' job table, and the leave draws against their definition."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket import bids, consumers
from gamemarket.errors import InputError
from gamemarket.market.base import SchedulingMarket
from gamemarket.market.outside import check_outside_price, outside_runner
from gamemarket.studies.population_config import PopulationConfig
from gamemarket.testing.reference import reference_run
from tests.hypothesis_strategies import workloads

MARKET = SchedulingMarket()


def arrays_of(table):
    return {c: table[c].to_numpy() for c in ("id", "submit", "runtime", "estimate")}


@settings(max_examples=120, deadline=None)
@given(
    case=workloads(),
    c=st.sampled_from([0.0, 2.5, 40.0]),
    pay=st.sampled_from(["first", "kth", "blend"]),
    data=st.data(),
)
def test_leavers_get_the_outside_utility_and_stayers_the_reference_run(case, c, pay, data):
    table, n, reserve = case
    J = len(table)
    stay = np.array(data.draw(st.lists(st.booleans(), min_size=J, max_size=J)))
    provider = {"scheduler": "hb", "payment": pay, "reserve": reserve, **({"blend": 0.4} if pay == "blend" else {})}
    w = table["private_bid"].to_numpy(dtype=float)
    run = outside_runner(MARKET, arrays_of(table), n, provider, w, c)
    u, f = run(table["reported_bid"].to_numpy(dtype=float), np.zeros(J, np.int64), stay)
    tau = table["runtime"].to_numpy(dtype=float)
    np.testing.assert_allclose(u[~stay], -w[~stay] * tau[~stay] - c * tau[~stay], rtol=1e-12)
    kept = table[stay].to_dict("records")
    ref = reference_run(kept, n, "hb", pay, reserve, blend=0.4 if pay == "blend" else None)
    revenue, welfare = 0.0, 0.0
    for j in kept:
        start, end, p, _ = ref[j["id"]]
        flow = end - j["submit"]
        i = int(np.flatnonzero(table["id"].to_numpy() == j["id"])[0])
        assert u[i] == pytest.approx(-j["private_bid"] * flow - p, rel=1e-9, abs=1e-9)
        revenue += p
        welfare += -j["private_bid"] * flow
    assert f["revenue"] == pytest.approx(revenue, rel=1e-9, abs=1e-9)
    assert f["welfare"] == pytest.approx(welfare, rel=1e-9, abs=1e-9)
    assert f["stay"] == stay.sum() / J
    leave_sum = float((-w[~stay] * tau[~stay] - c * tau[~stay]).sum())
    assert f["welfare_all"] == pytest.approx(welfare + leave_sum, rel=1e-9, abs=1e-9)


def test_without_an_outside_price_the_runs_are_the_payoff_runners_and_nobody_may_leave():
    rng = np.random.default_rng(0)
    J = 40
    a = {"id": np.arange(J), "submit": np.sort(rng.integers(0, 100, J)), "runtime": rng.integers(1, 50, J)}
    a["estimate"] = a["runtime"]
    w = rng.uniform(0, 180, J)
    prov = {"scheduler": "hb", "payment": "kth", "reserve": 1.0}
    plain = MARKET.payoff_runner(a, 3, prov, w)(w, np.zeros(J, np.int64))
    run = outside_runner(MARKET, a, 3, prov, w, None)
    u, f = run(w, np.zeros(J, np.int64))
    np.testing.assert_array_equal(u, plain[0])
    assert f == plain[1] and "stay" not in f
    with pytest.raises(InputError, match="outside_price"):
        run(w, np.zeros(J, np.int64), np.arange(J) % 2 == 0)


def test_no_congestion_stayers_pay_the_reserve_per_node_second():
    # the closed form of the design issue: load far under 1, every job runs at once and pays r per node-second
    J = 30
    a = {"id": np.arange(J), "submit": np.arange(J) * 1000, "runtime": np.full(J, 100), "estimate": np.full(J, 100)}
    w = np.linspace(1, 170, J)
    for pay in ("first", "kth"):
        run = outside_runner(MARKET, a, 4, {"scheduler": "hb", "payment": pay, "reserve": 7.0}, w, 9.0)
        u, f = run(w * 0.5, np.zeros(J, np.int64), np.ones(J, bool))
        assert f["revenue"] == 7.0 * 100 * J
        np.testing.assert_allclose(u, -w * 100 - 7.0 * 100)
        u2, f2 = run(w * 0.5, np.zeros(J, np.int64), np.zeros(J, bool))  # everyone leaves: the cluster runs nothing
        assert f2["revenue"] == 0.0 and f2["stay"] == 0.0
        np.testing.assert_allclose(u2, -w * 100 - 9.0 * 100)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf"), "x", True])
def test_bad_outside_prices_name_the_field(bad):
    with pytest.raises(InputError, match="outside_price"):
        check_outside_price(bad)


def test_leave_draws_decide_who_leaves_by_class_share():
    n, seed = 5000, 3
    L = bids.leave_draws(n, seed)
    np.testing.assert_array_equal(L, bids.leave_draws(n, seed))  # common random numbers
    d = bids.draw(n, seed)
    assert not np.array_equal(L, d.G) and not np.array_equal(L, d.U)
    rule = consumers.from_entry("r", {"beta": 0, "leave": {"low": 0.25, "high": 1}}, "f", "per-class")["r"]
    truthful = consumers.from_entry("t", {"beta": 0}, "f", "per-class")["t"]
    cls = bids.bid_bin_codes(d.private_bid)
    strat = np.zeros(n, np.int64)
    stay = bids.population_stay([rule, truthful], strat, cls, L)
    np.testing.assert_array_equal(stay, ~(((cls == 0) & (L < 0.25)) | (cls == 2)))
    assert bids.population_stay([truthful], strat, cls, None) is None  # no rule leaves: nothing to draw
    stay_other = bids.population_stay([rule, truthful], np.ones(n, np.int64), cls, L)
    assert stay_other.all()


def test_a_leaving_rule_needs_an_outside_price():
    t = consumers.from_entry("t", {"beta": 0}, "f", "per-class")["t"]
    r = consumers.from_entry("leave-high", {"beta": 0, "leave": {"high": 1}}, "f", "per-class")["leave-high"]
    with pytest.raises(InputError, match="outside_price.*leave-high"):
        PopulationConfig((t, r))
    cfg = PopulationConfig((t, r), outside_price=12.0)
    assert cfg.params()["outside_price"] == 12.0
    assert "outside_price" not in PopulationConfig((t, consumers.ShadingRule("s", (0, 0, 0.5)))).params()
    with pytest.raises(InputError, match="outside_price"):
        PopulationConfig((t, r), outside_price=-1.0)


def test_per_class_leave_family_round_trips_its_points():
    fam = consumers.FAMILIES.get("per-class-leave")
    p = fam.point([0.1, 0, 0.5, 0, 0.3, 0.9])
    assert p.leave_by_class == (0.0, 0.3, 0.9) and not p.truthful
    np.testing.assert_array_equal(fam.coordinates(p), [0.1, 0, 0.5, 0, 0.3, 0.9])
    assert consumers.from_params(p.params()).key() == p.key()
    with pytest.raises(InputError, match="leave"):
        consumers.from_entry("x", {"beta": 0, "leave": 1.5}, "f", "per-class")
