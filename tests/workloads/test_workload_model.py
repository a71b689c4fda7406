"""The campaign workload model (issue 12): statistics against plain references, the model file,
generation, fitting, the CLI, studies, and the targets against the LPC trace (skipped without it)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gamemarket import bids
from gamemarket.cli import main
from gamemarket.consumers import BetaMix
from gamemarket.errors import InputError
from gamemarket.market import Mechanism, outcomes, simulate
from gamemarket.workloads import Workload, WorkloadModel, generate_from_model, load
from gamemarket.workloads.fit import fit_model
from gamemarket.workloads.stats import autocorrelation, daily_period_hours, workload_stats
from study_helpers import ROOT

MODEL = ROOT / "models" / "lpc-egee-2004.toml"
SDSC_MODEL = ROOT / "models" / "sdsc-par-1996.toml"


@pytest.fixture(scope="module")
def model():
    return WorkloadModel.read(MODEL)


def swf_text(jobs: pd.DataFrame) -> str:
    head = "; Version: 2.2\n; MaxProcs: 64\n; MaxNodes: 64\n"
    lines = [
        f"{i + 1} {s} 0 {r} 1 -1 -1 1 {e} -1 1 {u} 1 -1 1 1 -1 -1"
        for i, (s, r, e, u) in enumerate(zip(jobs["submit"], jobs["runtime"], jobs["estimate"], jobs["user"]))
    ]
    return head + "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- statistics vs references
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=5, max_size=60), st.integers(1, 4))
def test_autocorrelation_matches_the_textbook_sum(xs, lag):
    x = np.array(xs)
    d = x - x.mean()
    den = sum(v * v for v in d)
    # a constant series is undefined (its deviations from its mean are rounding: [51.34...] * 5 gave 0.8)
    ref = sum(d[i] * d[i + lag] for i in range(len(x) - lag)) / den if den > 0 and x.min() < x.max() else np.nan
    got = autocorrelation(x, lag)
    if len(x) <= lag + 1 or not np.isfinite(ref):
        assert np.isnan(got) or not np.isfinite(ref)
    else:
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 20)), min_size=1, max_size=25), st.integers(1, 4))
def test_congestion_matches_a_second_by_second_count(jobs, nodes):
    """The event sweep against counting, second by second, the jobs present (submitted, not ended)."""
    df = pd.DataFrame(
        {
            "id": np.arange(len(jobs)),
            "submit": [s for s, _ in jobs],
            "runtime": [r for _, r in jobs],
            "estimate": [r for _, r in jobs],
        }
    )
    table = bids.job_table(df, BetaMix.parse("FT"), 0)
    run = simulate(table, nodes, Mechanism("hb", "first", 1.0)).jobs
    got = outcomes.congestion(run, nodes)
    sub, end = run["submit"].to_numpy(), run["end"].to_numpy()
    t0, t1 = sub.min(), end.max()
    present = np.array([np.sum((sub <= t) & (end > t)) for t in range(t0, t1)])
    assert got["queue_time_share"] == pytest.approx(np.mean(present > nodes) if t1 > t0 else 0.0)
    assert got["peak_jobs_present"] == present.max()
    assert got["waiting_job_share"] == pytest.approx(np.mean(end - sub > run["runtime"].to_numpy()))


def test_daily_period_of_a_24_hour_cycle():
    rng = np.random.default_rng(3)
    t = np.sort(rng.uniform(0, 60 * 86400, 200_000))
    keep = rng.random(len(t)) < 0.5 * (1 + 0.8 * np.sin(2 * np.pi * t / 86400))
    assert daily_period_hours(t[keep]) == pytest.approx(24.0, abs=0.2)
    assert np.isnan(daily_period_hours(np.arange(0, 3600 * 50, 60)))  # under four days


def test_workload_stats_by_hand():
    df = pd.DataFrame({"submit": [0, 0, 3600, 7200], "runtime": [3600, 3600, 7200, 10]})
    s = workload_stats(df, 2)
    assert s["offered_load"] == pytest.approx(14410 / (2 * 7200))
    gaps = np.array([0, 3600, 3600.0])
    assert s["gap_cv"] == pytest.approx(gaps.std() / gaps.mean())
    assert s["hourly_load_p99"] == pytest.approx(np.quantile([1.0, 1.0, 10 / 7200], 0.99))
    with pytest.raises(InputError, match="nodes"):
        workload_stats(df, 0)


# ---------------------------------------------------------------------- the model file
def test_model_file_round_trip(tmp_path, model):
    p = model.save(tmp_path / "m.toml")
    again = WorkloadModel.read(p)
    assert again == model
    assert "records" not in p.read_text()  # numbers only: no table of jobs
    assert len(p.read_text()) < 40_000


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda t: t.replace("[defaults]", "[defaults]\nnoise = 3"), "noise"),
        (lambda t: t.replace("user_share = ", "user_share = 1.5 #"), "user_share"),
        (lambda t: t.replace("jobs = ", "jobs = -4 #"), "jobs"),
        (lambda t: t.replace("size_quantiles = [1, ", "size_quantiles = [9, "), "size_quantiles"),
        (lambda t: t.replace("gap_quantiles = [", "gap_quantiles = [-1, "), "gap_quantiles"),
        (lambda t: t.replace('format = "gamemarket-workload-model/1"', 'format = "v0"'), "format"),
        (lambda t: t.replace("[arrivals]", "[arrivals]\nbursts = 2"), "bursts"),
    ],
)
def test_bad_model_files_name_the_field(tmp_path, edit, field):
    bad = tmp_path / "bad.toml"
    bad.write_text(edit(MODEL.read_text()))
    with pytest.raises(InputError, match=field) as e:
        WorkloadModel.read(bad)
    assert str(bad) in str(e.value)


def test_missing_or_folder_model(tmp_path):
    with pytest.raises(InputError, match="no such"):
        WorkloadModel.read(tmp_path / "none.toml")
    with pytest.raises(InputError, match="folder"):
        WorkloadModel.read(tmp_path)


# ---------------------------------------------------------------------- generation
@settings(max_examples=15, deadline=None)
@given(jobs=st.integers(50, 3000), nodes=st.integers(1, 200), load=st.floats(0.05, 3.0), seed=st.integers(0, 2**31))
@example(jobs=50, nodes=1, load=0.05000000000000001, seed=50)  # span target 3034439.9999999995: scaled one ulp over
def test_generation_sets_the_load_and_is_a_valid_job_table(model, jobs, nodes, load, seed):
    w = generate_from_model(model, jobs=jobs, nodes=nodes, load=load, seed=seed)
    j = w.jobs
    assert len(j) == jobs and list(j["id"]) == list(range(jobs))
    assert np.all(np.diff(j["submit"]) >= 0) and j["submit"].min() == 0
    assert np.all(j["runtime"] >= 1) and np.all(j["estimate"] >= j["runtime"])
    work = j["runtime"].sum()
    span = j["submit"].max()
    # the span is set to work / (nodes * load) and then floored to whole seconds
    assert work / (nodes * load) - 1 <= span <= work / (nodes * load)
    assert set(j["user"]) <= set(range(1, len(model.user_shares) + 1))


def test_same_seed_same_table(model):
    a = generate_from_model(model, jobs=5000, seed=4).jobs
    b = generate_from_model(model, jobs=5000, seed=4).jobs
    c = generate_from_model(model, jobs=5000, seed=5).jobs
    pd.testing.assert_frame_equal(a, b)
    assert not a["runtime"].equals(c["runtime"])


def test_the_marginal_is_the_models(model):
    """Ranks map onto the model's quantiles, so mean and median hold after any draw (no clip)."""
    j = generate_from_model(model, jobs=200_000, seed=1).jobs
    q = np.exp(np.array(model.log_runtime_quantiles))
    assert j["runtime"].median() == pytest.approx(q[100], rel=0.05)
    assert j["runtime"].max() <= q[-1] + 1
    # the same marginal at any size and seed: the mean (carried by the heavy tail) holds too
    small = generate_from_model(model, jobs=20_000, seed=7).jobs
    assert small["runtime"].mean() == pytest.approx(j["runtime"].mean(), rel=0.10)
    assert small["runtime"].median() == pytest.approx(j["runtime"].median(), rel=0.05)


def test_generation_errors(model):
    for kw, field in (({"jobs": 0}, "jobs"), ({"nodes": -1}, "nodes"), ({"load": 0.0}, "load"), ({"seed": -2}, "seed")):
        with pytest.raises(InputError, match=field):
            generate_from_model(model, **kw)


# ---------------------------------------------------------------------- fitting
def test_fit_recovers_the_model_it_was_drawn_from(model):
    w = generate_from_model(model, jobs=60_000, nodes=40, load=0.4, seed=2)
    refit = fit_model(w, nodes=40)
    assert refit.load == pytest.approx(0.4, rel=1e-3)
    assert refit.jobs == 60_000 and refit.nodes == 40
    med = np.exp(refit.log_runtime_quantiles[100])
    assert med == pytest.approx(w.jobs["runtime"].median(), rel=0.1)
    # within a campaign the draws are independent, so neighbours correlate by user + campaign share
    assert refit.user_share + refit.campaign_share == pytest.approx(model.user_share + model.campaign_share, abs=0.08)


def test_fit_errors_name_the_problem(model):
    w = generate_from_model(model, jobs=5000, nodes=8, seed=1)
    one_user = Workload(jobs=w.jobs.assign(user=7), meta={"nodes": 8})
    with pytest.raises(InputError, match="1 user"):
        fit_model(one_user)
    few = Workload(jobs=w.jobs.iloc[:200].copy(), meta={"nodes": 8})
    with pytest.raises(InputError, match="200 jobs"):
        fit_model(few)
    with pytest.raises(InputError, match="threshold"):
        fit_model(Workload(jobs=w.jobs, meta={"nodes": 8}), threshold=0)
    # found by the CLI fuzz: run times all equal divided by a zero variance (a warning, then 'user_share' is nan)
    same = Workload(jobs=w.jobs.assign(runtime=600), meta={"nodes": 8})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any numpy warning
        with pytest.raises(InputError, match="every job runs 600 s; the model fits a distribution of run times"):
            fit_model(same)


# ---------------------------------------------------------------------- CLI and studies
def test_cli_fit_and_compare(tmp_path, capsys, model):
    w = generate_from_model(model, jobs=4000, nodes=16, load=0.5, seed=3)
    swf = tmp_path / "t.swf"
    swf.write_text(swf_text(w.jobs))
    out = tmp_path / "fitted.toml"
    assert main(["workload", "fit", str(swf), "--nodes", "16", "--out", str(out)]) == 0
    fitted = WorkloadModel.read(out)
    assert fitted.jobs == 4000 and fitted.source == "t"
    capsys.readouterr()
    fig = tmp_path / "cmp.png"
    assert (
        main(["workload", "compare", str(swf), str(out), "--nodes", "16", "--figure", str(fig), "--format", "json"])
        == 0
    )
    res = json.loads(capsys.readouterr().out)
    a, b = res["workloads"].values()
    assert a["jobs"] == b["jobs"] == 4000
    assert a["offered_load"] == pytest.approx(b["offered_load"], rel=0.01)
    assert fig.stat().st_size > 10_000
    assert "note" not in res  # at the model's own node count the loads agree: nothing to say
    # at another node count the trace's load follows --nodes and the model's does not: said, with the count to use
    assert main(["workload", "compare", str(swf), str(out), "--nodes", "4"]) == 0
    text = capsys.readouterr().out
    a4, b4 = (float(v) for v in next(x for x in text.splitlines() if x.startswith("offered load")).split()[-2:])
    assert a4 == pytest.approx(4 * b4, rel=0.05)  # 16/4 times the load: by design
    assert text.splitlines()[-1] == (
        f"note: the model draws its arrivals at its own offered load ({fitted.load:.3g}, fitted at 16 nodes) whatever "
        "--nodes; the trace keeps its arrival times, so its load is its work over the 4 nodes given: a trace's load "
        "and its model's agree at the model's node count (--nodes 16)"
    )
    assert main(["simulate", "--workload", str(out), "--nodes", "16", "--seed", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == 4000


def test_cli_bad_inputs_exit_2(tmp_path, capsys, model):
    w = generate_from_model(model, jobs=3000, nodes=16, seed=3)
    swf = tmp_path / "one.swf"
    swf.write_text(swf_text(w.jobs.assign(user=5)))
    assert main(["workload", "fit", str(swf), "--nodes", "16", "--out", str(tmp_path / "m.toml")]) == 2
    assert "1 user" in capsys.readouterr().err
    assert not (tmp_path / "m.toml").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text(MODEL.read_text().replace("[runtime]", "[runtime]\nskew = 1"))
    assert main(["simulate", "--workload", str(bad), "--nodes", "4"]) == 2
    assert "skew" in capsys.readouterr().err
    assert main(["workload", "fit", str(swf), "--out", str(tmp_path / "m.txt")]) == 2
    with pytest.raises(SystemExit) as exc:  # refused by the option's declaration, before any work
        main(["workload", "compare", str(MODEL), str(MODEL), "--nodes", "0"])
    assert exc.value.code == 2 and "--nodes: expected a number of nodes >= 1, got 0" in capsys.readouterr().err
    assert main(["simulate", "--workload", "synthetic", "--load", "0.5", "--workload", str(swf)]) == 2
    assert "--load" in capsys.readouterr().err


def test_study_with_a_model(tmp_path):
    from gamemarket.studies import load_study
    from gamemarket.studies.runner import load_workload

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.toml").write_text(MODEL.read_text())
    (tmp_path / "studies").mkdir()
    body = (
        'name = "m"\n[workload]\nsource = "synthetic"\nmodel = "models/m.toml"\nnodes = 8\n'
        "[workload.synthetic]\njobs = 500\nload = 0.7\nseed = 3\n"
        '[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT"]\n[replications]\ncount = 1\n'
    )
    p = tmp_path / "studies" / "s.toml"
    p.write_text(body)
    spec = load_study(p)
    prep = load_workload(spec)
    w, nodes = prep.source, prep.nodes
    assert nodes == 8 and len(w.jobs) == 500 and prep.jobs == 500
    assert w.offered_load(8) == pytest.approx(0.7, rel=1e-3)
    p.write_text(body.replace("models/m.toml", "models/none.toml"))
    with pytest.raises(InputError, match="model.*no such file"):
        load_study(p)
    p.write_text(body.replace("seed = 3", "seed = 3\nruntime_sigma = 2"))
    with pytest.raises(InputError, match="runtime_sigma"):
        load_study(p)


def test_the_committed_studies_use_the_model():
    from gamemarket.studies import load_study

    for name in ("default", "shudler2010-synthetic", "population-default"):
        spec = load_study(ROOT / "studies" / f"{name}.toml")
        assert spec.workload["model"] == str(MODEL.resolve())


# ---------------------------------------------------------------------- targets on the trace
@pytest.mark.slow
def test_fit_to_lpc_meets_the_targets(lpc):
    """Issue 12's targets, at the trace's length and node count, on the median over five draws
    (congestion comes from a few large campaigns, so single draws scatter)."""
    check_fit_meets_the_targets(lpc, MODEL, 105)


@pytest.mark.slow
def test_fit_to_sdsc_meets_the_targets(sdsc):
    """The same targets on the second trace (issue 31): the SDSC Paragon, congested (offered load about
    0.75 at its 400 nodes) unlike LPC, fitted at its own node count."""
    check_fit_meets_the_targets(sdsc, SDSC_MODEL, 400)


def check_fit_meets_the_targets(path, model_file, nodes):
    """The committed model is the fit of the trace at ``path`` on ``nodes`` nodes, and its draws meet issue
    12's targets on the median over five draws."""
    w = load(str(path))
    m = fit_model(w, nodes=nodes)
    committed = WorkloadModel.read(model_file)  # the committed model is this fit, written to 9 digits
    assert committed.user_share == pytest.approx(m.user_share, rel=1e-8)
    np.testing.assert_allclose(committed.log_runtime_quantiles, m.log_runtime_quantiles, rtol=1e-8)
    np.testing.assert_allclose(committed.start_gap_quantiles, m.start_gap_quantiles, rtol=1e-8)

    def stats(jobs):
        s = workload_stats(jobs, nodes)
        run = simulate(bids.job_table(jobs, BetaMix.parse("FT"), 1), nodes, Mechanism("hb", "first", 1.0))
        s.update(outcomes.congestion(run.jobs, nodes))
        return s

    trace = stats(w.jobs)
    draws = [stats(generate_from_model(m, seed=s).jobs) for s in range(1, 6)]
    med = {k: float(np.median([d[k] for d in draws])) for k in trace}
    for k in ("queue_time_share", "waiting_job_share"):
        assert trace[k] / 1.5 <= med[k] <= trace[k] * 1.5, (k, med[k], trace[k])
    assert med["offered_load"] == pytest.approx(trace["offered_load"], rel=0.05)
    for k in ("mean_runtime", "median_runtime"):
        assert med[k] == pytest.approx(trace[k], rel=0.10), k
    for k in ("gap_cv", "acf_log_runtime_1"):
        assert med[k] == pytest.approx(trace[k], rel=0.25), (k, med[k], trace[k])
    assert abs(med["daily_period_h"] - 24.0) <= 1.0
