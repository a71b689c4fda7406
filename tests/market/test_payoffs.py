import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.bids import job_table
from gamemarket.consumers import SRG, BetaMix
from gamemarket.market import PAYMENTS, SCHEDULERS, Mechanism, payoffs, simulate
from gamemarket.market.outcomes import runtime_groups
from gamemarket.workloads import generate


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 1000), jobs=st.integers(5, 400))
def test_binned_equals_pandas_groupby(seed, jobs):
    t = job_table(generate(jobs=jobs, nodes=4, seed=seed).jobs, SRG, seed)
    r = simulate(t, 4, Mechanism("hb", "first"))
    b = payoffs.binned(r.jobs)
    j = r.jobs
    df = pd.DataFrame(
        {
            "group": j["group"],
            "runtime_group": j["runtime_group"].astype(str),
            "bid_bin": np.floor(j["private_bid"] / 10) * 10,
            "bsd": j["bsd"],
            "u": j["utility"],
            "ssj": j["ssj"].astype(int),
        }
    )
    ref = (
        df.groupby(["group", "runtime_group", "bid_bin"])
        .agg(n=("bsd", "size"), sum_bsd=("bsd", "sum"), n_ssj=("ssj", "sum"), sum_utility=("u", "sum"))
        .reset_index()
    )
    m = b.merge(ref, on=["group", "runtime_group", "bid_bin"], suffixes=("", "_r"), how="outer", indicator=True)
    assert (m["_merge"] == "both").all()
    assert (m["n"] == m["n_r"]).all() and (m["n_ssj"] == m["n_ssj_r"]).all()
    assert np.allclose(m["sum_bsd"], m["sum_bsd_r"]) and np.allclose(m["sum_utility"], m["sum_utility_r"])


def test_runtime_groups_sizes_and_ties():
    rt = np.array([5, 1, 5, 5, 2, 9, 5])
    ids = np.array([6, 5, 4, 3, 2, 1, 0])
    g = np.asarray(runtime_groups(rt, ids))
    # sorted by (runtime, id): ids 5(1), 2(2) | 0(5), 3(5) | 4(5), 6(5), 1(9)
    assert list(g[[1, 4]]) == ["SHORT"] * 2 and list(g[[6, 3]]) == ["MEDIUM"] * 2
    assert list(g[[2, 0, 5]]) == ["LONG"] * 3


def test_run_metrics_groups():
    t = job_table(generate(jobs=300, nodes=4).jobs, SRG, 2)
    r = simulate(t, 4)
    m = payoffs.run_metrics(r.jobs, r.summary, SRG.betas)
    agg = r.jobs["group"] == 1
    assert np.isclose(m["mean_utility_aggressive"], r.jobs.loc[agg, "utility"].mean())
    assert np.isclose(m["mean_utility_conservative"], r.jobs.loc[~agg, "utility"].mean())
    ft = payoffs.run_metrics(r.jobs, r.summary, BetaMix(((1.0, 0.0),)).betas)
    assert np.isnan(ft["mean_utility_aggressive"])
    assert np.isclose(
        sum(m[f"mean_utility_{g}"] * n for g, n in zip(("SHORT", "MEDIUM", "LONG"), (100, 100, 100))) / 300,
        m["mean_utility"],
    )


def test_cohorts_follow_the_same_jobs_across_mixes():
    from gamemarket.bids import draw
    from gamemarket.consumers import FT

    w = generate(jobs=500, nodes=4).jobs
    d = draw(len(w), 9)
    dev = BetaMix(((0.99, 0.0), (0.01, 0.9)))
    r = simulate(job_table(w, dev, 9, draws=d), 4)
    c = payoffs.cohorts(r.jobs, d.G, d.private_bid).groupby("g_bin")[["n", "sum_utility"]].sum()
    agg = r.jobs["group"] == 1  # the deviators: G >= 0.99
    assert c.loc[99, "n"] == agg.sum()
    assert np.isclose(c.loc[99, "sum_utility"], r.jobs.loc[agg, "utility"].sum())
    srg_agg = SRG.assign(d.G) == 1
    assert c.loc[90:, "n"].sum() == srg_agg.sum()
    rf = simulate(job_table(w, FT, 9, draws=d), 4)
    cf = payoffs.cohorts(rf.jobs, d.G, d.private_bid).groupby("g_bin")[["n", "sum_utility"]].sum()
    assert np.isclose(cf.loc[99, "sum_utility"], rf.jobs.loc[agg.to_numpy(), "utility"].sum())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 0.999999),
            st.sampled_from([0.0, 30.0, 60.0, np.nextafter(60.0, 61), 90.0, np.nextafter(120.0, 0), 120.0, 179.9]),
            st.floats(-1e6, 1e6),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_cohort_cells_match_a_per_job_loop(rows):
    """Every job lands in the cell of its G bin and its contract bid class (low [0, 60], middle (60, 120),
    high [120, 180]); the sums are those of a plain loop."""
    G = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    u = np.array([r[2] for r in rows])
    c = payoffs.cohorts(pd.DataFrame({"utility": u}), G, w).set_index(["g_bin", "bid_class"])
    want_n, want_u = {}, {}
    for g, b, x in rows:
        k = sum(1 for i in range(1, 100) if i / 100 <= g)  # bins [k/100, (k+1)/100)
        cls = "low" if b <= 60 else "middle" if b < 120 else "high"
        want_n[(k, cls)] = want_n.get((k, cls), 0) + 1
        want_u[(k, cls)] = want_u.get((k, cls), 0.0) + x
    assert len(c) == 300 and int(c["n"].sum()) == len(rows)
    for key, n in want_n.items():
        assert c.loc[key, "n"] == n
        assert c.loc[key, "sum_utility"] == pytest.approx(want_u[key], rel=1e-12, abs=1e-6)


def _near_thresholds():
    k = st.integers(0, payoffs.COHORT_BINS)
    return k.flatmap(
        lambda k: st.sampled_from(
            [
                np.nextafter(k / payoffs.COHORT_BINS, -1.0),
                k / payoffs.COHORT_BINS,
                np.nextafter(k / payoffs.COHORT_BINS, 2.0),
            ]
        )
    )


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(G=st.lists(st.floats(0, 1, exclude_max=True) | _near_thresholds().filter(lambda g: 0 <= g < 1), max_size=60))
def test_g_bins_equal_the_threshold_search(G):
    """The O(1) cohort bin equals the plain search over the doubles k/100, even one ulp from a threshold."""
    G = np.array(G, dtype=float)
    want = np.searchsorted(np.arange(1, payoffs.COHORT_BINS) / payoffs.COHORT_BINS, G, side="right")
    np.testing.assert_array_equal(payoffs.g_bins(G), want)


def test_g_bins_on_every_threshold_and_its_neighbours():
    t = np.arange(payoffs.COHORT_BINS) / payoffs.COHORT_BINS
    G = np.concatenate([t, np.nextafter(t, 2.0), np.nextafter(t[1:], -1.0), np.random.default_rng(0).random(100_000)])
    want = np.searchsorted(np.arange(1, payoffs.COHORT_BINS) / payoffs.COHORT_BINS, G, side="right")
    np.testing.assert_array_equal(payoffs.g_bins(G), want)


def test_shared_cells_give_the_same_payoffs_and_refuse_other_jobs():
    """A group of runs of one mix and seed computes its cells once (``payoffs.Cells``): each run's payoffs
    equal those computed on their own, and cells made from other jobs are refused, never silently used."""
    from gamemarket import bids
    from gamemarket.market.simulate import simulate_many

    w = generate(jobs=300, nodes=4, seed=3).jobs
    d = bids.draw(len(w), 5)
    mix = BetaMix.parse("0.7:0,0.3:0.6")
    group, reported = mix.report(d.private_bid, d.G, d.U)
    t = pd.DataFrame({c: w[c].to_numpy() for c in ("id", "submit", "runtime", "estimate")})
    t["private_bid"], t["reported_bid"], t["group"] = d.private_bid, reported, group
    runs = simulate_many(t, 4, [Mechanism("hb", "first"), Mechanism("hb", "kth"), Mechanism("wspt", "kth")])
    cells = payoffs.Cells.of(runs[0].jobs, d.G, d.private_bid)
    for r in runs:
        shared = payoffs.of_run(r, mix.betas, d.G, d.private_bid, cells=cells)
        alone = payoffs.of_run(r, mix.betas, d.G, d.private_bid)
        assert shared[0] == pytest.approx(alone[0], nan_ok=True, rel=0, abs=0)
        pd.testing.assert_frame_equal(shared[1], alone[1], check_exact=True)
        pd.testing.assert_frame_equal(shared[2], alone[2], check_exact=True)
    other = runs[0].jobs.copy()
    other["private_bid"] = other["private_bid"] + 1.0
    with pytest.raises(ValueError, match="other jobs"):
        payoffs.binned(other, cells)
    with pytest.raises(ValueError, match="other group draws"):
        payoffs.cohorts(runs[0].jobs, 1.0 - d.G, d.private_bid, cells)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 600), pricing=st.booleans())
def test_one_pass_sums_equal_the_bincount_reference(seed, n, pricing):
    """``payoffs.sums`` (one compiled pass over the jobs) returns ``binned`` and ``cohorts`` bit for bit, for
    a scheduling market's outcome columns and for a pricing market's (no runtime groups, a throughput)."""
    from gamemarket import bids

    rng = np.random.default_rng(seed)
    d = bids.draw(n, seed % 1000)
    jobs = pd.DataFrame(
        {
            "group": rng.integers(0, 3, n),
            "private_bid": d.private_bid,
            "utility": rng.normal(-1e4, 1e4, n),
            "payment": rng.exponential(1e3, n),
        }
    )
    if pricing:
        jobs["throughput"] = rng.random(n)
    else:
        jobs["runtime_group"] = runtime_groups(rng.integers(1, 1000, n), np.arange(n))
        jobs["bsd"] = rng.exponential(3.0, n)
        jobs["ssj"] = jobs["bsd"] >= 5.0
        jobs["flow"] = rng.integers(0, 10**6, n)
    cells = payoffs.Cells.of(jobs, d.G, d.private_bid)
    bins, coh = payoffs.sums(jobs, d.G, d.private_bid, cells)
    pd.testing.assert_frame_equal(bins, payoffs.binned(jobs), check_exact=True)
    pd.testing.assert_frame_equal(coh, payoffs.cohorts(jobs, d.G, d.private_bid), check_exact=True)
    with pytest.raises(ValueError, match="other group draws"):
        payoffs.sums(jobs, 1.0 - d.G, d.private_bid, cells)


@settings(max_examples=60, deadline=None)
@given(
    runtimes=st.lists(st.integers(0, 2**40), min_size=1, max_size=300),
    gaps=st.lists(st.integers(1, 2**20), min_size=300, max_size=300),
    first=st.integers(-(2**20), 2**20),
    shuffle=st.booleans(),
)
@pytest.mark.slow
def test_runtime_group_codes_equal_the_lexsort_reference(runtimes, gaps, first, shuffle):
    """The one-key selection (increasing ids from 0 up) and the lexsort fallback (any ids, negative ones too)
    both give the groups of the (runtime, id) order, ties in run time broken by id."""
    from gamemarket.market.outcomes import runtime_group_codes

    rt = np.array(runtimes, dtype=np.int64) // 2**30  # many ties
    ids = first + np.cumsum(np.array(gaps[: len(rt)], dtype=np.int64))
    if shuffle:
        ids = np.random.default_rng(len(rt)).permutation(ids)
    order = np.lexsort((ids, rt))
    want = np.full(len(rt), 2, dtype=np.int8)
    third = len(rt) // 3
    want[order[:third]] = 0
    want[order[third : 2 * third]] = 1
    np.testing.assert_array_equal(runtime_group_codes(rt, ids), want)


def test_runtime_group_codes_of_ids_whose_last_is_minus_one():
    """Ids not increasing whose last is -1 (so ``ids[-1] + 1`` is 0) take the lexsort path, not a division by
    zero."""
    from gamemarket.market.outcomes import runtime_group_codes

    np.testing.assert_array_equal(runtime_group_codes([1, 2, 3], [0, 5, -1]), [0, 1, 2])
    np.testing.assert_array_equal(runtime_group_codes([5, 5, 5], [0, 5, -1]), [1, 2, 0])


def test_a_groups_column_runs_pay_what_separate_table_runs_pay():
    """``SchedulingMarket.run_many`` gives its per-job outcomes as column arrays (a study's path); each run's
    columns, and the payoffs computed from them with shared cells, equal ``run``'s DataFrame and the payoffs
    computed from it alone, bit for bit."""
    from gamemarket import bids
    from gamemarket.market.outcomes import CATEGORIES
    from gamemarket.market.scheduling_market import SchedulingMarket

    w = generate(jobs=400, nodes=4, load=1.2, seed=11).jobs
    arrays = {c: w[c].to_numpy() for c in ("id", "submit", "runtime", "estimate")}
    d = bids.draw(len(w), 2)
    mix = BetaMix.parse("0.6:0,0.4:0.7")
    group, reported = mix.report(d.private_bid, d.G, d.U)
    providers = [{"scheduler": s, "payment": p, "reserve": r} for s in SCHEDULERS for p in PAYMENTS for r in (0, 1)]
    market = SchedulingMarket()
    runs = market.run_many(arrays, 4, providers, d.private_bid, reported, group)
    cells = payoffs.Cells.of(runs[0].jobs, d.G, d.private_bid)
    for provider, run in zip(providers, runs):
        alone = market.run(arrays, 4, provider, d.private_bid, reported, group)
        assert isinstance(run.jobs, dict) and isinstance(alone.jobs, pd.DataFrame)
        assert list(run.jobs) == list(alone.jobs.columns)
        for c, v in run.jobs.items():
            want = alone.jobs[c].cat.codes if c in CATEGORIES else alone.jobs[c]
            np.testing.assert_array_equal(v, want.to_numpy(), strict=c not in CATEGORIES)
        assert run.summary == alone.summary
        shared = payoffs.of_run(run, mix.betas, d.G, d.private_bid, cells=cells)
        own = payoffs.of_run(alone, mix.betas, d.G, d.private_bid)
        assert shared[0] == pytest.approx(own[0], nan_ok=True, rel=0, abs=0)
        pd.testing.assert_frame_equal(shared[1], own[1], check_exact=True)
        pd.testing.assert_frame_equal(shared[2], own[2], check_exact=True)
