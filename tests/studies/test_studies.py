"""Strategies and studies as data; the runner's determinism across backends; resume after a kill."""

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from gamemarket.errors import InputError
from gamemarket.studies import load_study, run_study
from gamemarket.studies.strategies import load_consumers, load_providers
from study_helpers import ROOT, SMALL, WORKLOAD, sorted_metrics, write_study


def test_identical_mixes_are_kept_once_with_a_warning(tmp_path, capsys):
    """SRG and the grid's g0.1x0.9 are one beta mix: the same column twice would be a degenerate game."""
    from gamemarket.cli import main

    p = write_study(tmp_path, SMALL.replace('"g0.3x0.9"', '"g0.1x0.9"'))
    with pytest.warns(UserWarning, match=r"consumer 'g0.1x0.9' is the same beta mix as 'SRG'.*kept once, as 'SRG'"):
        spec = load_study(p)
    assert [c.name for c in spec.consumers] == ["FT", "SRG"] and spec.aliases == {"g0.1x0.9": "SRG"}
    p = write_study(tmp_path, SMALL.replace('"g0.3x0.9"', '"g0.1x0.9"'), name="t.toml")  # said once per file
    assert main(["study", "status", str(p)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("gamemarket: warning: ") and "kept once, as 'SRG'" in err and "Traceback" not in err


def test_catalogue_loads_and_grid():
    p = load_providers(ROOT / "strategies" / "providers.toml")
    c = load_consumers(ROOT / "strategies" / "consumers.toml")
    assert p["hb-kth"].params()["payment"] == "kth" and p["hb-kth"].kind == "scheduling"
    assert c["SRG"].groups == ((0.9, 0.1), (0.1, 0.9))
    assert c["g0.1x0.9"].groups == ((0.9, 0.1), (0.1, 0.9))


@pytest.mark.parametrize(
    "kind,text,msg",
    [
        ("providers", '[x]\nscheduler = "hb"\n', "[x] missing field 'payment'"),
        ("providers", '[x]\nscheduler = "zz"\npayment = "kth"\n', "[x]: unknown scheduler 'zz'"),
        (
            "providers",
            '[x]\nscheduler = "hb"\npayment = "kth"\nreserv = 1\n',
            "[x]: unknown field(s) ['reserv']",
        ),
        (
            "providers",
            '[x]\nscheduler = "hb"\npayment = "kth"\nreserve = -1\n',
            "[x] field 'reserve': expected a number >= 0",
        ),
        ("providers", "[x\n", "invalid TOML"),
        ("consumers", "[m]\ngroups = [[0.5, 0.1]]\n", "[m]: field 'groups'"),
        ("consumers", "[m]\ngroups = [[1.0, 1.5]]\n", "beta must be in [0, 1)"),
        ("consumers", "[m]\ngroup = [[1.0, 0.0]]\n", "unknown field(s) ['group']"),
    ],
)
def test_catalogue_errors_name_file_entry_field(tmp_path, kind, text, msg):
    p = tmp_path / f"{kind}.toml"
    p.write_text(text)
    with pytest.raises(InputError) as e:
        (load_providers if kind == "providers" else load_consumers)(p)
    assert str(p) in str(e.value) and msg in str(e.value)


@pytest.mark.parametrize(
    "patch,msg",
    [
        (('consumers = ["FT", "SRG", "g0.3x0.9"]', 'consumers = ["FT", "NOPE"]'), "unknown consumer strategy 'NOPE'"),
        (("count = 3", "count = 0"), "[replications] field 'count': expected an integer >= 1"),
        (("nodes = 8", "nodes = 8\nreduction = 0.2"), "either 'nodes' or 'reduction'"),
        (("[replications]", '[[games]]\nprovider = "profit"\n[replications]'), "field 'provider': 'profit'"),
    ],
)
def test_study_errors(tmp_path, patch, msg):
    p = write_study(tmp_path, SMALL.replace(*patch))
    with pytest.raises(InputError, match=msg.replace("(", r"\(").replace("[", r"\[")):
        load_study(p)


@pytest.mark.slow
def test_same_numbers_for_one_two_workers_and_dask(tmp_path):
    p = write_study(tmp_path, SMALL)
    spec = load_study(p)
    spec.results_dir = tmp_path / "r1"
    info = run_study(spec, n_jobs=1, progress=False)
    assert info.run == spec.n_tasks == 27
    one = sorted_metrics(spec)
    spec.results_dir = tmp_path / "r2"
    run_study(spec, n_jobs=2, progress=False)
    two = sorted_metrics(spec)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True, dashboard_address=None
    ) as cluster:
        spec.results_dir = tmp_path / "r3"
        run_study(spec, scheduler_address=cluster.scheduler_address, progress=False)
    pd.testing.assert_frame_equal(one, sorted_metrics(spec), check_exact=True)
    # a second run finds everything stored
    assert run_study(spec, n_jobs=1, progress=False).run == 0


def test_changed_input_is_not_reused(tmp_path):
    p = write_study(tmp_path, SMALL)
    spec = load_study(p)
    run_study(spec, n_jobs=1, progress=False)
    p.write_text(SMALL.replace("load = 1.1", "load = 1.2"))
    spec2 = load_study(p)
    assert run_study(spec2, n_jobs=1, progress=False).run == spec2.n_tasks


@pytest.mark.slow
def test_killed_study_resumes_identically(tmp_path):
    body = SMALL.replace("jobs = 600", "jobs = 40000").replace("count = 3", "count = 4")
    p = write_study(tmp_path, body)
    spec = load_study(p)
    runs = spec.results_dir / "runs"
    cmd = [sys.executable, "-m", "gamemarket", "study", "run", str(p), "--n-jobs", "1", "--no-report", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        done = len(list(runs.glob("*.parquet"))) if runs.exists() else 0
        if done >= 3:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(list(runs.glob("*.parquet")))
    assert 3 <= partial < spec.n_tasks, "the run was not interrupted halfway"
    assert subprocess.run(cmd, cwd=tmp_path).returncode == 0
    resumed = sorted_metrics(spec)
    spec.results_dir = tmp_path / "fresh"
    run_study(spec, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(resumed, sorted_metrics(spec), check_exact=True)


@pytest.mark.slow
def test_cli_study_game_report(tmp_path, capsys):
    import json

    from matplotlib.image import imread

    from gamemarket.cli import main

    p = write_study(tmp_path, SMALL)
    assert main(["game", "solve", str(p)]) == 2  # nothing stored yet
    assert "no stored result" in capsys.readouterr().err
    assert main(["study", "run", str(p), "--n-jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "27 runs" in out and "report:" in out
    assert main(["study", "status", str(p)]) == 0
    assert "27/27" in capsys.readouterr().out
    assert main(["game", "solve", str(p), "--game", "all jobs", "--format", "json"]) == 0
    eqs = json.loads(capsys.readouterr().out)
    assert eqs and all(set(e) >= {"provider", "consumer", "payoffs"} for e in eqs)
    assert all(abs(sum(e["provider"].values()) - 1) < 1e-9 for e in eqs)
    report = p.parent / "reports" / "small"  # the default: beside the study file
    html = (report / "index.html").read_text()
    import re

    links = re.findall(r'src="([^"]+)"', html)
    assert links and all((report / link).exists() for link in links)
    for link in links:
        assert imread(report / link).ndim == 3
    # a figure an earlier report drew and this one does not goes; a file the user put there stays
    (report / "my-figure.png").write_bytes((report / links[0]).read_bytes())
    p.write_text(SMALL + '[[games]]\nname = "all jobs"\n')  # one game left: five heatmaps fewer
    assert main(["study", "run", str(p), "--n-jobs", "1", "--no-progress"]) == 0
    capsys.readouterr()
    now = re.findall(r'src="([^"]+)"', (report / "index.html").read_text())
    assert "heatmap-short-jobs.png" in links and "heatmap-short-jobs.png" not in now
    assert sorted(f.name for f in report.glob("*.png")) == sorted(set(now) | {"my-figure.png"})
    p.write_text(SMALL)
    assert main(["study", "run", str(p), "--n-jobs", "1", "--no-progress"]) == 0
    capsys.readouterr()
    assert (report / "report.md").exists() and (report / "data" / "equilibria.json").exists()
    nfg = report / "data" / "game-all-jobs.nfg"
    assert main(["game", "solve", str(nfg), "--format", "json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert [e["provider"] for e in again] == [e["provider"] for e in eqs]
    assert not list((p.parent / "results").rglob("*.tmp"))
    # claims as data; the claim the rules imply has no interval and is checked on every seed
    import pandas as pd

    from gamemarket.analysis.claims import CSV_COLUMNS

    claims = pd.read_csv(report / "data" / "claims.csv")
    assert list(claims.columns) == CSV_COLUMNS + ["study"] and len(claims)
    rule = claims[claims["claim"].str.contains("k-th price raises")]
    assert len(rule) and (rule["verdict"] == "follows from the rules").all()
    assert rule["ci_low"].isna().all() and (rule["mean"] >= 0).all() and (rule["n_seeds"] == 3).all()
    ssj = claims[claims["claim"].str.contains("fewer SSJs")]  # Fig. 4: aggressive users, by bid class
    assert sorted(ssj["bid_class"]) == ["high", "low", "middle"] and (ssj["group"] == "SRG aggressive").all()
    measured = claims[claims["claim"].str.startswith("(1)")]
    assert measured["ci_low"].notna().all() and (measured["ci_low"] <= measured["ci_high"]).all()


@pytest.mark.slow
def test_a_study_run_and_its_report_parse_the_workload_once(tmp_path, monkeypatch, capsys):
    from gamemarket.cli import main
    from gamemarket.studies import runner

    calls = []
    real = runner._load_workload
    monkeypatch.setattr(runner, "_WORKLOADS", {})
    monkeypatch.setattr(runner, "_load_workload", lambda spec: calls.append(spec.name) or real(spec))
    p = write_study(tmp_path, SMALL.replace("count = 3", "count = 2"))
    assert main(["study", "run", str(p), "--n-jobs", "1", "--no-progress"]) == 0
    assert calls == ["small"]
    # a changed [workload] table is loaded again
    p.write_text(SMALL.replace("count = 3", "count = 2").replace("load = 1.1", "load = 1.2"))
    assert main(["study", "status", str(p)]) == 0
    assert calls == ["small", "small"]


@pytest.mark.parametrize(
    "change,msg",
    [
        (
            {"workload": {"source": "synthtic"}},
            "field 'source': 'synthtic' is not 'synthetic', 'hetero', a known trace",
        ),
        # the study file's own message: a spec built in Python is checked by the file's schema (to_dict)
        ({"seeds": [-1]}, "[replications] field 'seeds #1': expected an integer >= 0 (the seeds), got -1"),
        ({"seeds": [1, 1]}, "'seeds' has duplicates"),
        ({"name": "../x"}, "field 'name': '../x'"),
        ({"providers": []}, "field 'providers': expected a non-empty list of ProviderStrategy"),
        ({"notes": "gains 12% more"}, "quotes the number(s) ['12']"),
    ],
)
def test_a_spec_built_in_python_is_checked_on_construction(tmp_path, change, msg):
    import dataclasses

    from gamemarket.studies.spec import StudySpec

    spec = StudySpec.from_toml(write_study(tmp_path, SMALL))
    fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    with pytest.raises(InputError) as e:
        StudySpec(**{**fields, **change})
    assert msg in str(e.value) and str(e.value).startswith("study ")


POPULATION = (
    """
name = "pop"
"""
    + WORKLOAD
    + """[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "shade-0.5"]
reduced_players = 2
"""
)


def test_a_report_quoting_a_population_study_that_is_not_there_says_why(tmp_path):
    """A discussion that quotes a linked population study whose runs are not stored: the error names the
    study and says what to run, instead of listing the discussion's fields as unknown."""
    from gamemarket.analysis.study import analyze
    from gamemarket.reports import write_report

    write_study(tmp_path, POPULATION, "pop.toml")
    (tmp_path / "strategies" / "shading.toml").write_text((ROOT / "strategies" / "shading.toml").read_text())
    body = 'population_study = "pop.toml"\nnotes = "Truthful under hb-kth: {population.hb-kth.truthful}."\n' + SMALL
    spec = load_study(write_study(tmp_path, body))
    run_study(spec, n_jobs=1, progress=False)
    an = analyze(spec, for_report=True)
    assert an.population is None and an.population_missing is not None
    with pytest.raises(InputError, match=r"quotes the population study .*pop\.toml.*not stored yet; run"):
        write_report(an)
