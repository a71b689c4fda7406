"""``gamemarket study jobs``: a stored run's per-job outcome, re-run exactly and checked against the stored sums;
its help's example as written; a run the study does not hold."""

import shlex
import shutil

import numpy as np
import pandas as pd
import pytest

from gamemarket.cli import build_parser, main
from gamemarket.errors import InputError
from gamemarket.studies import load_study, run_study
from gamemarket.studies.jobs import _check_same, run_jobs
from gamemarket.studies.runner import load_results
from study_helpers import ROOT, SMALL, write_study


def _example() -> str:
    parser = build_parser(["study"])
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices["study"]
    p = next(a for a in sub._actions if a.__class__.__name__ == "_SubParsersAction").choices["jobs"]
    (line,) = [x.strip() for x in p.epilog.splitlines() if x.strip().startswith("gamemarket ")]
    return line


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jobs")
    spec = load_study(write_study(tmp, SMALL.replace("count = 3", "count = 2")))
    run_study(spec, n_jobs=1, progress=False)
    return spec


@pytest.mark.slow
def test_the_jobs_of_every_stored_run_sum_to_its_stored_metrics(small, tmp_path, capsys):
    metrics = load_results(small).metrics.set_index(["provider", "consumer", "seed"])
    for p in ("hb-first", "nphb-kth"):
        for c in ("SRG", "g0.3x0.9"):
            out = tmp_path / f"{p}-{c}.parquet"
            assert main(["study", "jobs", str(small.path), "--provider", p, "--consumer", c, "--seed", "2",
                         "--out", str(out)]) == 0  # fmt: skip
            jobs = pd.read_parquet(out)
            row = metrics.loc[(p, c, 2)]
            assert len(jobs) == 600 and float(jobs["payment"].sum()) == row["revenue"]
            assert float(jobs["valuation"].sum()) == row["welfare"]
            assert float(jobs["utility"].mean()) == pytest.approx(row["mean_utility"], rel=1e-12)
    assert "its cohort sums equal the stored ones exactly" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["--provider", "nope", "--consumer", "FT", "--seed", "1"], "'nope' is not one of its providers"),
        (["--provider", "hb-first", "--consumer", "XX", "--seed", "1"], "'XX' is not one of its consumers"),
        (["--provider", "hb-first", "--consumer", "FT", "--seed", "9"], "--seed 9 is not one of its seeds [1, 2]"),
    ],
)
def test_a_run_the_study_does_not_hold_is_exit_2_naming_it(small, tmp_path, capsys, args, message):
    out = tmp_path / "x.csv"
    assert main(["study", "jobs", str(small.path), *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "holds no run" in err and not out.exists()


@pytest.mark.slow
def test_a_run_not_stored_yet_is_refused_naming_it(small, tmp_path):
    with pytest.raises(InputError, match="not stored in"):
        run_jobs(load_study(small.path, results=tmp_path / "empty"), "hb-first", "FT", 1)


def test_a_rerun_that_differs_from_the_stored_sums_names_the_cell():
    a = pd.DataFrame({"g": [0, 1], "payment": [1.0, 2.0]})
    b = a.copy()
    b.loc[1, "payment"] = np.nextafter(2.0, 3.0)  # one ulp
    with pytest.raises(InputError, match=r"cohort row 1, column 'payment'"):
        _check_same("run", a, b)
    _check_same("run", a, a.copy())


@pytest.mark.slow
def test_the_help_example_runs_as_written(tmp_path, monkeypatch, capsys):
    for d in ("studies", "models", "strategies"):
        shutil.copytree(ROOT / d, tmp_path / d, symlinks=False)
    monkeypatch.chdir(tmp_path)
    example = _example()
    assert main(["study", "run", "studies/default.toml", "--no-report", "--n-jobs", "1", "--no-progress"]) == 0
    assert main(shlex.split(example)[1:]) == 0
    assert (tmp_path / "jobs.csv").is_file() and "cohort sums equal" in capsys.readouterr().out


@pytest.mark.slow
def test_an_existing_out_file_needs_force_and_an_input_is_never_written(small, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    out.write_text("mine\n")
    args = ["study", "jobs", str(small.path), "--provider", "hb-first", "--consumer", "FT", "--seed", "1"]
    assert main([*args, "--out", str(out)]) == 2 and out.read_text() == "mine\n"
    assert "--force" in capsys.readouterr().err
    assert main([*args, "--out", str(out), "--force"]) == 0 and out.read_text() != "mine\n"
    before = small.path.read_bytes()
    assert main([*args, "--out", str(small.path), "--force"]) == 2 and small.path.read_bytes() == before
