import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamemarket.bids import BidDistribution, bid_bin, draw, job_table
from gamemarket.consumers import FT, SRG, BetaMix
from gamemarket.errors import InputError


def test_default_distribution_bimodal_and_truncated():
    d = draw(200_000, 3)
    w = d.private_bid
    assert w.min() >= 0 and w.max() <= 180
    low = (w < 90).mean()
    assert 0.79 < low < 0.81  # mixture weight 0.8 (a little more after truncation at 0 is redrawn)
    assert abs(np.median(w[w > 90]) - 150) < 1


def test_truncation_redraws_whole_mixture():
    # one component mostly below lo: redraws must land in [lo, hi] and keep the other component's share
    dist = BidDistribution(((0.5, -100.0, 1.0), (0.5, 50.0, 1.0)), lo=0, hi=180)
    w = dist.sample(1000, np.random.default_rng(0))
    assert (w > 40).all()


def test_group_assignment_boundaries():
    mix = BetaMix(((0.25, 0.0), (0.75, 0.5)))
    G = np.array([0.0, 0.2499999, 0.25, 0.9999999])
    assert mix.assign(G).tolist() == [0, 0, 1, 1]


def test_reported_bid_range():
    d = draw(10_000, 1)
    g, rw = SRG.report(d.private_bid, d.G, d.U)
    beta = np.where(g == 1, 0.9, 0.1)
    assert ((rw <= d.private_bid) & (rw >= (1 - beta) * d.private_bid - 1e-12)).all()
    assert abs((g == 1).mean() - 0.1) < 0.01
    g0, rw0 = FT.report(d.private_bid, d.G, d.U)
    assert (rw0 == d.private_bid).all() and (g0 == 0).all()


def test_common_random_numbers():
    jobs = pd.DataFrame({"id": np.arange(50), "submit": 0, "runtime": 1, "estimate": 1})
    a = job_table(jobs, FT, 7)
    b = job_table(jobs, SRG, 7)
    assert (a["private_bid"] == b["private_bid"]).all()
    c = job_table(jobs, SRG, 8)
    assert not (a["private_bid"] == c["private_bid"]).all()
    d1, d2 = draw(50, 7), draw(50, 7)
    assert (d1.U == d2.U).all() and (d1.G == d2.G).all()


@pytest.mark.parametrize(
    "groups,msg",
    [
        (((0.5, 0.1),), "sum to 1"),
        (((0.5, 0.1), (0.5, 1.0)), "beta must be in"),
        (((1.0, -0.1),), "beta must be in"),
        ((), "at least one"),
        (((1.2, 0.1), (-0.2, 0.1)), "fraction"),
    ],
)
def test_invalid_mixes(groups, msg):
    with pytest.raises(InputError, match=msg):
        BetaMix(groups)


def test_parse():
    assert BetaMix.parse("srg") == SRG
    m = BetaMix.parse("0.99:0.0, 0.01:0.9")
    assert m.groups == ((0.99, 0.0), (0.01, 0.9))
    with pytest.raises(InputError):
        BetaMix.parse("0.5-0.1")


@given(st.lists(st.floats(0.01, 1), min_size=1, max_size=6))
def test_assign_matches_definition(fracs):
    fr = np.array(fracs) / sum(fracs)
    fr[-1] = 1 - fr[:-1].sum()
    if fr[-1] <= 0:
        return
    mix = BetaMix(tuple((f, 0.0) for f in fr))
    G = np.random.default_rng(0).random(500)
    cum = np.cumsum(fr)
    cum[-1] = 1.0
    expected = [next(g for g in range(len(cum)) if (0 if g == 0 else cum[g - 1]) <= x < cum[g]) for x in G]
    assert mix.assign(G).tolist() == expected


def test_bid_bins():
    assert bid_bin(np.array([0, 60, 60.01, 119.9, 120, 180])).tolist() == [
        "low",
        "low",
        "middle",
        "middle",
        "high",
        "high",
    ]


def test_acceptance_is_the_mass_inside_the_interval():
    assert BidDistribution().acceptance() == pytest.approx(0.8 * (1 - 0.0227501) + 0.2 * (1 - 0.0227501), abs=1e-6)
    assert BidDistribution(((1.0, 50.0, 0.0),)).acceptance() == 1.0
    far = BidDistribution(((0.5, -3.0, 1.0), (0.5, 183.0, 1.0)), lo=0, hi=180)  # 0.00135 inside: still drawn
    assert far.acceptance() == pytest.approx(0.0013499, rel=1e-4)
    w = far.sample(2000, np.random.default_rng(1))
    assert ((w >= 0) & (w <= 180)).all()


@pytest.mark.parametrize(
    "components",
    [((1.0, 500.0, 10.0),), ((1.0, 200.0, 0.0),), ((0.5, -50.0, 5.0), (0.5, 400.0, 5.0))],
)
def test_a_distribution_with_no_mass_inside_is_refused_when_made(components):
    """It used to be refused only after 10,000 rounds of redraws of every bid (or never, on a near miss)."""
    with pytest.raises(InputError, match=r"put .* of their mass in \[lo, hi\] = \[0.0, 180.0\]; expected at least"):
        BidDistribution(components)


def test_rejection_sampling_is_bounded_and_says_what_was_left():
    half = BidDistribution(((0.5, -100.0, 1.0), (0.5, 50.0, 1.0)))
    with pytest.raises(InputError, match=r"draws still outside \[lo, hi\] = \[0.0, 180.0\] after 1 rounds"):
        half.sample(1000, np.random.default_rng(0), max_rounds=1)
    assert len(half.sample(1000, np.random.default_rng(0))) == 1000  # the default bound: from the acceptance


@given(
    n=st.integers(0, 300), seed=st.integers(0, 2**32), mix=st.sampled_from([FT, SRG, BetaMix.parse("0.3:0.2,0.7:0.9")])
)
def test_job_columns_draw_job_tables_bids_without_copying_the_columns(n, seed, mix):
    from gamemarket.bids import job_columns

    cols = {"id": np.arange(n, dtype=np.int32), "submit": np.zeros(n, np.int64)}
    cols.update(runtime=np.ones(n, np.int64), estimate=np.ones(n, np.int64))  # a workload's columns (job_table's check)
    got = job_columns(cols, mix, seed)
    want = job_table(pd.DataFrame(cols), mix, seed)
    assert got["id"] is cols["id"] and got["submit"] is cols["submit"]
    assert got["group"].dtype == np.int8
    for c in ("private_bid", "reported_bid", "group"):
        assert np.array_equal(got[c], want[c].to_numpy()), c
