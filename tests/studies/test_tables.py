"""The consolidated tables a report reads: equal to the per-task files, whichever way they were built."""

import shutil

import numpy as np
import pandas as pd
import pytest

from gamemarket import bids
from gamemarket.market import payoffs
from gamemarket.studies import load_study, run_study
from gamemarket.studies.runner import load_workload, plan, plan_hash, run_task, study_tables
from gamemarket.studies.store import ResultStore
from study_helpers import SMALL, write_study


@pytest.fixture
def small(tmp_path):
    spec = load_study(write_study(tmp_path, SMALL.replace("count = 3", "count = 2")))
    run_study(spec, n_jobs=2, progress=False)
    return spec


def _assert_tables_equal(a, b):
    assert set(a) == set(b) == {"metrics", "bins", "cohorts"}
    for k in a:
        x, y = a[k], b[k]
        if k == "metrics":  # the run's own timing differs between runs
            x, y = x.drop(columns="task_seconds"), y.drop(columns="task_seconds")
        pd.testing.assert_frame_equal(x, y, check_exact=True)


def test_a_run_writes_tables_equal_to_the_per_task_files(small):
    store = ResultStore(small.results_dir)
    prep = load_workload(small)
    tasks = plan(small, prep.arrays, prep.nodes)
    built_in_run = store.read_tables(plan_hash(tasks))
    assert built_in_run is not None, "the run stores its consolidated tables"
    shutil.rmtree(small.results_dir / "tables")
    from_files = study_tables(small)  # assembled from the per-task files, then stored
    _assert_tables_equal(built_in_run, from_files)
    _assert_tables_equal(from_files, store.read_tables(plan_hash(tasks)))
    m = from_files["metrics"]
    assert len(m) == len(tasks) == small.n_tasks
    assert list(m[["provider", "consumer", "seed"]].itertuples(index=False, name=None)) == [
        (t.provider, t.consumer, t.seed) for t in tasks
    ]


def test_tables_hold_each_task_exactly(small):
    """Every row of the tables is the task's own numbers, recomputed here, to the last bit (cohort sums
    included: they are stored exactly, not as decimal text)."""
    tables = study_tables(small)
    prep = load_workload(small)
    arrays, nodes = prep.arrays, prep.nodes
    for t in plan(small, arrays, nodes)[::5]:
        metrics, binned, cohorts = run_task(arrays, nodes, t.provider_params, t.strategy, t.seed, small.bids)
        sel = lambda f: f[(f.provider == t.provider) & (f.consumer == t.consumer) & (f.seed == t.seed)]  # noqa: E731
        row = sel(tables["metrics"]).iloc[0]
        for k, v in metrics.items():
            if k != "task_seconds":
                assert (np.isnan(v) and np.isnan(row[k])) or row[k] == v, k
        got = sel(tables["cohorts"]).drop(columns=["provider", "consumer", "seed"]).reset_index(drop=True)
        for col in cohorts.columns:
            np.testing.assert_array_equal(got[col].to_numpy(), cohorts[col].to_numpy())
        got_b = sel(tables["bins"]).drop(columns=["provider", "consumer", "seed"]).reset_index(drop=True)
        for col in binned.columns:
            np.testing.assert_array_equal(got_b[col].to_numpy(), binned[col].to_numpy())


def test_a_damaged_table_is_rebuilt_from_the_task_files(small):
    good = study_tables(small)
    folder = next((small.results_dir / "tables").iterdir())
    (folder / "cohorts.parquet").write_bytes(b"PAR1 not a table")
    _assert_tables_equal(good, study_tables(small))
    (folder / "metrics.parquet").unlink()  # killed between two table writes: the set is incomplete
    _assert_tables_equal(good, study_tables(small))


def test_another_plan_gets_its_own_tables(small, tmp_path):
    """A study that adds a seed is another plan: new tables, the old ones dropped, never a stale read."""
    first = study_tables(small)
    more = load_study(write_study(tmp_path, SMALL.replace("count = 3", "count = 3")))
    run_study(more, n_jobs=1, progress=False)
    t = study_tables(more)
    assert len(t["metrics"]) == len(first["metrics"]) * 3 // 2
    assert len(list((small.results_dir / "tables").iterdir())) == 1


def test_cohort_sums_round_trip_exactly(tmp_path):
    store = ResultStore(tmp_path)
    rng = np.random.default_rng(0)
    n = 5_000
    jobs = pd.DataFrame(
        {"utility": rng.standard_normal(n) * 1e7 / 3, "payment": rng.random(n) * 1e9 / 7, "group": np.zeros(n, int)}
    )
    c = payoffs.cohorts(jobs, rng.random(n), bids.BidDistribution().sample(n, rng))
    store.write("k", {"revenue": 1.0}, pd.DataFrame({"a": [1]}), {"task": 1}, c)
    back = store.read_cohorts("k")
    pd.testing.assert_frame_equal(back, pa_roundtrip(c), check_exact=True)


def pa_roundtrip(df):
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False).to_pandas()


def test_stacking_with_ids_equals_a_copy_per_task():
    """``_with_ids`` (one concatenation, ids repeated) against the plain way (each frame given its ids, then
    concatenated), after the Arrow round trip every consolidated table takes: equal, dtypes included,
    with empty frames among them."""
    import pyarrow as pa

    from gamemarket.studies.runner import _with_ids

    rng = np.random.default_rng(0)
    frames, ids = [], []
    for k in range(7):
        n = int(rng.integers(0, 4)) if k != 3 else 0
        frames.append(pd.DataFrame({"g_bin": rng.integers(0, 9, n), "sum_utility": rng.normal(size=n)}))
        ids.append(({"provider": f"p{k % 2}", "consumer": f"c{k % 3}", "seed": k}, n))
    ref = pd.concat([f.assign(**i)[[*i, *f.columns]] for f, (i, _) in zip(frames, ids)], ignore_index=True)

    def arrow(frame):
        return pa.Table.from_pandas(frame, preserve_index=False).to_pandas()

    pd.testing.assert_frame_equal(arrow(_with_ids(frames, ids)), arrow(ref), check_exact=True)


@pytest.mark.parametrize("table", ["metrics", "bins", "cohorts"])
@pytest.mark.parametrize("edit", ["repeat a row", "drop a row", "change a value"])
def test_a_table_changed_since_it_was_written_is_named_and_built_again(small, table, edit):
    """A consolidated table is an index of the per-task files: one whose rows are not those gamemarket wrote is
    named in a warning and built again from the runs, by a read and by ``study run``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    store = ResultStore(small.results_dir)
    prep = load_workload(small)
    name = plan_hash(plan(small, prep.arrays, prep.nodes))
    good = store.read_tables(name)
    path = store.tables_dir(name) / f"{table}.parquet"
    stored = pq.read_table(path)
    frame = stored.to_pandas()
    if edit == "repeat a row":
        frame = pd.concat([frame, frame.iloc[[0]]], ignore_index=True)
    elif edit == "drop a row":
        frame = frame.iloc[1:].reset_index(drop=True)
    else:
        col = next(c for c in frame.columns if frame[c].dtype.kind == "f")
        frame.loc[0, col] = frame.loc[0, col] + 1.0
    # written as a careless hand would: the file's own metadata (the digest among it) kept as it was
    pq.write_table(
        pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(stored.schema.metadata), path
    )
    with pytest.warns(UserWarning, match=rf"{path.name}: its rows are not those gamemarket wrote"):
        again = study_tables(small)
    _assert_tables_equal(good, again)
    assert store.read_tables(name) is not None  # written again whole
    pq.write_table(
        pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(stored.schema.metadata), path
    )
    with pytest.warns(UserWarning, match="its rows are not those gamemarket wrote"):
        run_study(small, n_jobs=1, progress=False)  # nothing to run; the index is built again
    _assert_tables_equal(good, store.read_tables(name))


def test_tables_of_an_older_gamemarket_without_a_digest_are_built_again_quietly(small, recwarn):
    import pyarrow.parquet as pq

    store = ResultStore(small.results_dir)
    prep = load_workload(small)
    name = plan_hash(plan(small, prep.arrays, prep.nodes))
    good = store.read_tables(name)
    for k in store.TABLES:
        path = store.tables_dir(name) / f"{k}.parquet"
        t = pq.read_table(path)
        meta = {a: b for a, b in t.schema.metadata.items() if not a.startswith(b"gamemarket.")}
        pq.write_table(t.replace_schema_metadata(meta), path)
    assert store.read_tables(name) is None and not [w for w in recwarn if "gamemarket wrote" in str(w.message)]
    _assert_tables_equal(good, study_tables(small))
    assert store.read_tables(name) is not None
