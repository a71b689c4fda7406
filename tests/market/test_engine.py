"""The fast engine against the plain reference, and the scheduling invariants."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamemarket.market import PAYMENTS as PAYMENT_REGISTRY
from gamemarket.market import SCHEDULERS as SCHEDULER_REGISTRY
from gamemarket.market import Mechanism, get_scheduler, simulate
from gamemarket.testing.reference import key_fn, reference_run
from hypothesis_strategies import workloads

# every registered entry, read from the registries (a new one is tested without editing this file)
SCHEDULERS = list(SCHEDULER_REGISTRY)
PAYMENTS = list(PAYMENT_REGISTRY)
PREEMPTIVE = [s for s in SCHEDULERS if get_scheduler(s).preemptive]


def compare(table, n, sched, pay, reserve):
    res = simulate(table, n, Mechanism(sched, pay, reserve)).jobs.set_index("id")
    ref = reference_run(table.to_dict("records"), n, sched, pay, reserve)
    for i, (s, e, p, k) in ref.items():
        row = res.loc[i]
        assert (row["start"], row["end"], row["preemptions"]) == (s, e, k), (i, sched, pay)
        assert row["payment"] == pytest.approx(p, rel=1e-9, abs=1e-12), (i, sched, pay)


@pytest.mark.slow
@pytest.mark.parametrize("sched", SCHEDULERS)
@pytest.mark.parametrize("pay", PAYMENTS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads())
def test_engine_matches_reference(sched, pay, case):
    table, n, reserve = case
    compare(table, n, sched, pay, reserve)


def test_hand_checked_hb_kth():
    # two nodes; job 2 (bid 50) arrives at t=2 and preempts job 1 (bid 5)
    table = pd.DataFrame(
        {
            "id": [0, 1, 2],
            "submit": [0, 0, 2],
            "runtime": [4, 4, 2],
            "estimate": [4, 4, 2],
            "private_bid": [10.0, 5.0, 50.0],
            "reported_bid": [10.0, 5.0, 50.0],
        }
    )
    r = simulate(table, 2, Mechanism("hb", "kth", 1.0)).jobs.set_index("id")
    # t=0..2: 0 and 1 run, nobody waits -> rate 1. t=2..4: 0 and 2 run, 1 waits (bid 5) -> rate 5.
    # t=4: 0 and 2 finish, 1 resumes with 2 s left, alone -> rate 1 until t=6.
    assert list(r["start"]) == [0, 0, 2] and list(r["end"]) == [4, 6, 4]
    assert list(r["preemptions"]) == [0, 1, 0]
    assert list(r["payment"]) == [2 * 1 + 2 * 5, 2 * 1 + 2 * 1, 2 * 5]
    f = simulate(table, 2, Mechanism("hb", "first", 1.0)).jobs.set_index("id")
    # first price: N >= n = 2 during [0, 4) (the paper's rule: N = n already charges the bid),
    # so each running job pays its own bid; job 1 runs alone on [4, 6) and pays r = 1
    assert list(f["payment"]) == [4 * 10.0, 2 * 5 + 2 * 1.0, 2 * 50.0]
    assert f["flow"].tolist() == [4, 6, 2] and f["wait"].tolist() == [0, 2, 0]
    assert f["bsd"].tolist() == [4 / 60, 6 / 60, 2 / 60]
    assert f["utility"].tolist() == [-10 * 4 - 40.0, -5 * 6 - 12.0, -50 * 2 - 100.0]


def test_reserve_floors_rate_but_admits_low_bids():
    table = pd.DataFrame(
        {"id": [0], "submit": [5], "runtime": [10], "estimate": [10], "private_bid": [0.2], "reported_bid": [0.2]}
    )
    r = simulate(table, 1, Mechanism("hb", "first", 3.0)).jobs
    assert r["start"].item() == 5 and r["payment"].item() == 30.0


@pytest.mark.slow
@pytest.mark.parametrize("sched", PREEMPTIVE)
@settings(max_examples=150, deadline=None)
@given(case=workloads(), pay=st.sampled_from(PAYMENTS))
def test_preemptive_invariants_on_reference_timeline(sched, case, pay):
    """A preemptive scheduler (HB) runs the n best present keys (so at most n, and work-conserving); the
    reference is the witness."""
    table, n, reserve = case
    jobs = table.to_dict("records")
    key = {j["id"]: key_fn(sched, j) for j in jobs}
    _, timeline = reference_run(jobs, n, sched, pay, reserve, record=True)
    for _t, present, running in timeline:
        best = set(sorted(present, key=lambda i: key[i])[:n])
        assert running == best
        assert len(running) == min(n, len(present))


@pytest.mark.slow
@pytest.mark.parametrize("sched", SCHEDULERS)
@pytest.mark.parametrize("pay", PAYMENTS)
@settings(max_examples=60, deadline=None)
@given(case=workloads())
def test_outcome_invariants(sched, pay, case):
    table, n, reserve = case
    r = simulate(table, n, Mechanism(sched, pay, reserve)).jobs
    tau = r["runtime"].to_numpy()
    assert (r["flow"] >= tau).all() and (r["wait"] >= 0).all()
    assert (r["start"] >= r["submit"]).all() and (r["end"] - r["start"] >= tau).all()
    cap = np.maximum(reserve, r["reported_bid"].to_numpy())
    assert (r["payment"] >= reserve * tau * (1 - 1e-12)).all()
    assert (r["payment"] <= cap * tau * (1 + 1e-12) + 1e-9).all()
    if not get_scheduler(sched).preemptive:
        assert (r["end"] - r["start"] == tau).all() and (r["preemptions"] == 0).all()
        # never more than n jobs at once: sweep the run intervals
        ev = sorted([(s, 1) for s in r["start"]] + [(e, -1) for e in r["end"]], key=lambda x: (x[0], x[1]))
        live = 0
        for _, d in ev:
            live += d
            assert live <= n


@pytest.mark.slow
@pytest.mark.parametrize("sched", SCHEDULERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), pay=st.sampled_from(PAYMENTS))
def test_more_nodes_than_jobs_never_binds(sched, pay, case):
    # 2**40 nodes (the reliability issue's MemoryError) runs like the reference with J + 1 nodes (with J,
    # first price differs: N = n jobs pay their bids)
    table, _, reserve = case
    huge = simulate(table, 2**40, Mechanism(sched, pay, reserve)).jobs.set_index("id")
    ref = reference_run(table.to_dict("records"), len(table) + 1, sched, pay, reserve)
    for i, (s, e, p, k) in ref.items():
        assert (huge.loc[i, "start"], huge.loc[i, "end"], huge.loc[i, "preemptions"]) == (s, e, k)
        assert huge.loc[i, "payment"] == pytest.approx(p, rel=1e-9, abs=1e-12)


PRICING = [(p, r) for p in PAYMENTS for r in (0.0, 1.0, 10.0)]


@pytest.mark.slow
@pytest.mark.parametrize("sched", SCHEDULERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), picks=st.lists(st.sampled_from(PRICING), min_size=1, max_size=6))
def test_one_pass_pays_every_scheme_as_separate_runs(sched, case, picks):
    """One engine pass per scheduler serves every (payment scheme, reserve) pair (issue 15): each pair's
    per-job outcome equals its own run's to the last bit, and the reference implementation's."""
    from gamemarket.market.simulate import simulate_many

    table, n, _ = case
    mechanisms = [Mechanism(sched, p, r) for p, r in picks]
    many = simulate_many(table, n, mechanisms)
    for m, res in zip(mechanisms, many):
        alone = simulate(table, n, m)
        pd.testing.assert_frame_equal(res.jobs, alone.jobs, check_exact=True)
        assert res.summary == alone.summary
        compare(table, n, sched, m.payment, m.reserve)


def test_one_pass_runs_each_scheduler_once(monkeypatch):
    """Mechanisms that share a scheduler share its engine pass; the results keep the callers' order."""
    import importlib

    sim_mod = importlib.import_module("gamemarket.market.simulate")  # the module, not the function
    table = pd.DataFrame(
        {
            "id": [1, 2, 3, 4],
            "submit": [0, 0, 1, 2],
            "runtime": [5, 3, 4, 2],
            "estimate": [5, 3, 4, 2],
            "private_bid": [10.0, 20.0, 30.0, 5.0],
            "reported_bid": [10.0, 20.0, 30.0, 5.0],
        }
    )
    calls = []
    real = sim_mod.run_market

    def counting(*args):
        calls.append(len(args[-2]))
        return real(*args)

    monkeypatch.setattr(sim_mod, "run_market", counting)
    ms = [Mechanism("hb", "first"), Mechanism("wspt", "kth"), Mechanism("hb", "kth"), Mechanism("hb", "kth", 7.0)]
    out = sim_mod.simulate_many(table, 1, ms)
    assert sorted(calls) == [1, 3]
    assert [r.meta["mechanism"] for r in out] == [m.describe() for m in ms]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([-3.0, -0.0, 0.0, 1.5, 2.0, 7.25]) | st.floats(-1e6, 1e6), min_size=0, max_size=60),
    st.integers(0, 70),
)
def test_rank_equals_a_stable_sort(keys, split):
    """The ranking's fast paths (an unstable sort, kept only where no two keys tie; and from ``split`` keys on,
    the two halves sorted on two threads and merged) give exactly the stable sort's ranks: arrival order among
    equal keys (-0.0 and 0.0 included), ties across the halves too."""
    from gamemarket.market.simulate import _rank

    key = np.array(keys, dtype=np.float64)
    rank = _rank(key, split=split)
    want = np.empty(len(key), np.int64)
    want[np.argsort(key, kind="stable")] = np.arange(len(key))
    assert rank.dtype == np.int32 and np.array_equal(rank, want)


def test_the_split_ranking_runs_where_two_processors_are_reported(monkeypatch):
    """With one processor the ranking sorts once; with two it sorts the halves on threads: both the same ranks."""
    import importlib

    sim_mod = importlib.import_module("gamemarket.market.simulate")  # the module (the package exports the function)
    key = np.random.default_rng(3).integers(0, 50, 5000).astype(np.float64)
    want = np.empty(len(key), np.int64)
    want[np.argsort(key, kind="stable")] = np.arange(len(key))
    threads = []
    real = sim_mod.ThreadPoolExecutor
    monkeypatch.setattr(sim_mod, "ThreadPoolExecutor", lambda n: threads.append(n) or real(n))
    for cpus, pools in ((1, []), (2, [2])):
        threads.clear()
        monkeypatch.setattr(sim_mod.os, "cpu_count", lambda c=cpus: c)
        assert np.array_equal(sim_mod._rank(key, split=100), want)
        assert threads == pools


def test_a_run_larger_than_the_packed_heap_entries_allow_is_refused(monkeypatch):
    """The engine packs a job's rank and index into one integer, so a run takes fewer than ``MAX_JOBS`` jobs;
    a larger one is an input error with the count, never a silently wrong schedule. (The limit is lowered
    here: 2^31 jobs do not fit a test.)"""
    import importlib

    from gamemarket.errors import InputError
    from gamemarket.market.engine import MASK, MAX_JOBS, SHIFT

    assert MAX_JOBS - 1 <= MASK and (MAX_JOBS - 1) << SHIFT | MASK <= np.iinfo(np.int64).max
    t = pd.DataFrame(
        {
            "id": np.arange(5),
            "submit": np.arange(5),
            "runtime": np.full(5, 10),
            "estimate": np.full(5, 10),
            "private_bid": np.full(5, 2.0),
            "reported_bid": np.full(5, 2.0),
        }
    )
    assert simulate(t, 2).summary["jobs"] == 5
    sim_mod = importlib.import_module("gamemarket.market.simulate")  # the module, not the function
    monkeypatch.setattr(sim_mod, "MAX_JOBS", 5)
    with pytest.raises(InputError, match="at most 4 jobs; this table has 5"):
        simulate(t, 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), alpha=st.floats(0, 1), sched=st.sampled_from(["hb", "nphb"]))
def test_blend_matches_reference_step_by_step(case, alpha, sched):
    # the engine pays a blend as alpha x (first-price payment) + (1 - alpha) x (k-th price payment) of one pass; the
    # plain reference pays alpha x (first-price rate) + (1 - alpha) x (k-th price rate) at every step
    table, n, reserve = case
    res = simulate(table, n, Mechanism(sched, "blend", reserve, blend=alpha)).jobs.set_index("id")
    ref = reference_run(table.to_dict("records"), n, sched, "blend", reserve, blend=alpha)
    for i, (s, e, p, k) in ref.items():
        row = res.loc[i]
        assert (row["start"], row["end"], row["preemptions"]) == (s, e, k)
        assert row["payment"] == pytest.approx(p, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"payment": "blend"}, "blend"),
        ({"payment": "blend", "blend": 1.5}, "blend"),
        ({"payment": "blend", "blend": float("nan")}, "blend"),
        ({"payment": "kth", "blend": 0.5}, "blend"),
    ],
)
def test_blend_bad_values_name_the_field(kw, field):
    from gamemarket.errors import InputError

    with pytest.raises(InputError, match=field):
        Mechanism("hb", reserve=1.0, **kw)
