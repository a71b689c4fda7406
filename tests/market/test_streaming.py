"""The streamed run (``simulate_to_file``: the engine's rows read in slices, the outcome written in row groups)
against the plain one (``simulate``: whole columns, one table), and the engine's growing heaps against the plain
reference on runs larger than the heaps' first size."""

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_helpers import bursts
from gamemarket.io import jobtable
from gamemarket.market import PAYMENTS as PAYMENT_REGISTRY
from gamemarket.market import SCHEDULERS as SCHEDULER_REGISTRY
from gamemarket.market import Mechanism, simulate
from gamemarket.market.engine import FIRST_HEAP
from gamemarket.market.outcomes import congestion
from gamemarket.market.simulate import simulate_to_file
from gamemarket.testing.reference import reference_run
from hypothesis_strategies import workloads

SCHEDULERS = list(SCHEDULER_REGISTRY)
PAYMENTS = list(PAYMENT_REGISTRY)


def _same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    for c in want.columns:
        a, b = got[c], want[c]
        if isinstance(b.dtype, pd.CategoricalDtype):
            assert list(a.astype(str)) == list(b.astype(str)), c
        else:
            assert a.dtype == b.dtype and np.array_equal(a.to_numpy(), b.to_numpy()), c  # bit for bit, not approx


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    case=workloads(),
    sched=st.sampled_from(SCHEDULERS),
    pay=st.sampled_from(PAYMENTS),
    rows=st.integers(1, 40),
    suffix=st.sampled_from([".parquet", ".csv"]),
    as_columns=st.booleans(),
)
@pytest.mark.slow
def test_streamed_run_equals_the_plain_run(tmp_path, case, sched, pay, rows, suffix, as_columns):
    """Summary equal to the last bit, and the file holds the plain run's per-job table, whatever the slice
    size, the job table's order (the strategy's ids are shuffled) or its form (DataFrame or columns)."""
    table, n, reserve = case
    table = jobtable.validate(table)
    m = Mechanism(sched, pay, reserve)
    want = simulate(table, n, m, validate=False)
    given_table = {c: table[c].to_numpy() for c in table.columns} if as_columns else table
    out = tmp_path / f"out{suffix}"
    got = simulate_to_file(given_table, n, m, out, rows=rows)
    assert got == want.summary
    if suffix == ".csv":
        plain = tmp_path / "plain.csv"
        jobtable.write_table(want.jobs, plain)
        assert out.read_bytes() == plain.read_bytes()
    else:
        _same_table(pq.read_table(out).to_pandas(), want.jobs)
        assert pq.ParquetFile(out).metadata.num_row_groups == -(-len(table) // rows)


@pytest.mark.slow
@pytest.mark.parametrize("sched", ["hb", "nphb", "wspt"])
@pytest.mark.parametrize("pay", ["first", "kth"])
def test_growing_heaps_match_the_reference(sched, pay):
    """A congested run of 3 x FIRST_HEAP jobs in bursts: start, end, preemptions equal to the plain reference's
    and payments within its rounding, as in ``test_engine_matches_reference`` on small tables."""
    J = 3 * FIRST_HEAP
    table = bursts(J, 7)
    jobs = simulate(table, 48, Mechanism(sched, pay, 1.0)).jobs
    assert congestion(jobs, 48)["peak_jobs_present"] > 2 * FIRST_HEAP  # more jobs at once than the heaps first hold
    res = jobs.set_index("id")
    ref = reference_run(table.to_dict("records"), 48, sched, pay, 1.0)
    for i, (s, e, p, k) in ref.items():
        row = res.loc[i]
        assert (row["start"], row["end"], row["preemptions"]) == (s, e, k), (i, sched, pay)
        assert row["payment"] == pytest.approx(p, rel=1e-9, abs=1e-12), (i, sched, pay)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40_000),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["f8", "i8", "?"]),
    spread=st.sampled_from([1.0, 1e-8, 1e12]),
)
def test_sums_of_a_strided_column_equal_a_contiguous_ones(n, seed, kind, spread):
    """The streamed summary sums a column of the engine's rows (stride 64 bytes) where ``summary`` sums a
    contiguous array: numpy's sums and means read the elements in the same order and give the same bits,
    buffered casts (bool, int to float, in blocks of 8,192) included."""
    rng = np.random.default_rng(seed)
    if kind == "f8":
        v = rng.standard_normal(n) * np.exp(rng.uniform(-1, 1, n) * np.log(1 + spread))
    elif kind == "i8":
        v = rng.integers(-(10**12), 10**12, n)
    else:
        v = rng.random(n) < 0.3
    rows = np.zeros((n, 8), np.int64)
    col = rows.view(v.dtype)[:, 8 // v.dtype.itemsize]
    col[:] = v
    assert not col.flags.c_contiguous or n == 1
    for how in (np.sum, np.mean):
        a, b = how(col), how(v)
        assert a == b or (np.isnan(a) and np.isnan(b))


@pytest.mark.parametrize("sched", ["hb", "wspt"])
def test_streamed_run_equals_the_plain_run_on_a_larger_table(tmp_path, sched):
    """Beyond numpy's pairwise blocks (128) and cast buffers (8,192): 30,000 synthetic jobs."""
    from gamemarket.bids import job_table
    from gamemarket.consumers import SRG
    from gamemarket.workloads import synthetic

    w = synthetic.generate(jobs=30_000, load=1.1, seed=5)
    table = jobtable.validate(job_table(w.jobs, SRG, 2))
    m = Mechanism(sched, "kth", 1.0)
    want = simulate(table, 60, m, validate=False)
    got = simulate_to_file({c: table[c].to_numpy() for c in table.columns}, 60, m, tmp_path / "o.parquet", rows=4096)
    assert got == want.summary
    _same_table(pq.read_table(tmp_path / "o.parquet").to_pandas(), want.jobs)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), sched=st.sampled_from(SCHEDULERS), pay=st.sampled_from(PAYMENTS), narrow=st.booleans())
def test_the_summary_alone_equals_the_plain_runs(case, sched, pay, narrow):
    """``simulate_summary`` (what ``gamemarket simulate`` runs) to the last bit, on a DataFrame or on columns at
    the narrow types an SWF trace is read into (``read_swf_columns``, ``job_columns``: int32 ids and estimates,
    int8 groups)."""
    from gamemarket.market.simulate import simulate_summary

    table, n, reserve = case
    table = jobtable.validate(table)
    m = Mechanism(sched, pay, reserve)
    given_table = table
    if narrow:
        given_table = {c: table[c].to_numpy() for c in table.columns}
        for c, dtype in (("id", np.int32), ("estimate", np.int32), ("group", np.int8)):
            if c in given_table and np.abs(given_table[c]).max(initial=0) < 100:
                given_table[c] = given_table[c].astype(dtype)
    assert simulate_summary(given_table, n, m) == simulate(table, n, m, validate=False).summary
