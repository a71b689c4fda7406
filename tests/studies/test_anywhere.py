"""A study runs wherever it is (issue 32, items 1 and 2): built-in catalogues, output where the user says."""

import os
from pathlib import Path

import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.studies import load_study
from gamemarket.studies.strategies import builtin_catalogue, catalogue_files


def test_the_catalogues_are_package_data():
    for f in ("providers.toml", "consumers.toml", "shading.toml"):
        p = builtin_catalogue(f)
        assert p.is_file() and "gamemarket" in p.parts and "data" in p.parts


@pytest.mark.slow
def test_a_new_study_runs_from_an_unrelated_folder(tmp_path, monkeypatch, capsys):
    here = tmp_path / "somewhere" / "else"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    assert main(["study", "new", "mine"]) == 0
    assert main(["study", "run", "mine.toml", "--n-jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "18 runs" in out
    assert (here / "results" / "mine").is_dir() and (here / "reports" / "mine" / "index.html").is_file()
    assert main(["study", "new", "pop", "--population"]) == 0
    assert main(["study", "status", "pop.toml"]) == 0  # checked and planned: the shading rules are built in


def test_study_new_never_replaces_a_file_without_force(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.toml").write_text("# the user's own study\n")
    assert main(["study", "new", "mine"]) == 2
    assert "mine.toml: the file exists; pass --force" in capsys.readouterr().err
    assert (tmp_path / "mine.toml").read_text() == "# the user's own study\n"
    assert main(["study", "new", "mine", "--force"]) == 0
    assert main(["study", "new", "two words"]) == 2  # the stem names folders: one rule for names
    assert main(["study", "new", str(tmp_path / "nope" / "s")]) == 2
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder: the permission check cannot be seen")
def test_a_study_in_a_folder_without_write_permission_says_where(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "s.toml").write_text('name = "s"\n[workload.synthetic]\njobs = 50\n[replications]\ncount = 1\n')
    ro.chmod(0o500)
    try:
        assert main(["study", "run", str(ro / "s.toml"), "--no-report", "--no-progress"]) == 2
        assert str(ro / "results" / "s") in capsys.readouterr().err
    finally:
        ro.chmod(0o700)


def test_a_study_folder_strategies_extend_and_override_the_built_in_ones(tmp_path):
    (tmp_path / "strategies").mkdir()
    (tmp_path / "strategies" / "providers.toml").write_text(
        '[mine]\nscheduler = "wspt"\npayment = "first"\n[hb-kth]\nscheduler = "hb"\npayment = "kth"\nreserve = 2.0\n'
    )
    s = tmp_path / "s.toml"
    s.write_text('name = "s"\n[strategies]\nproviders = ["mine", "hb-kth", "hb-first"]\nconsumers = ["FT"]\n')
    spec = load_study(s)
    params = {p.name: p.params() for p in spec.providers}
    assert params["mine"]["scheduler"] == "wspt" and params["hb-kth"]["reserve"] == 2.0
    assert params["hb-first"]["reserve"] == 1.0  # the built-in entry, untouched
    assert [f.parent for f in catalogue_files("providers.toml", tmp_path)][-1] == tmp_path / "strategies"


def test_output_goes_where_the_user_says(tmp_path, capsys):
    s = tmp_path / "my" / "s.toml"
    s.parent.mkdir()
    s.write_text('name = "s"\n[workload.synthetic]\njobs = 60\nnodes = 4\n[replications]\ncount = 1\n')
    spec = load_study(s)
    assert (
        spec.results_dir == (tmp_path / "my" / "results" / "s") and spec.report_dir == tmp_path / "my" / "reports" / "s"
    )
    other = load_study(s, results=tmp_path / "R", report=tmp_path / "P")
    assert other.results_dir == tmp_path / "R" and other.report_dir == tmp_path / "P"
    argv = ["study", "run", str(s), "--results", str(tmp_path / "R"), "--no-report", "--no-progress", "--n-jobs", "1"]
    assert main(argv) == 0
    assert (tmp_path / "R" / "runs").is_dir() and not (tmp_path / "my" / "results").exists()
    (tmp_path / "file").write_text("x")
    assert main(["study", "run", str(s), "--results", str(tmp_path / "file"), "--no-report"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'file'}: is a file; expected a results folder" in err


def test_a_missing_trace_says_where_it_was_looked_for(tmp_path):
    s = tmp_path / "s.toml"
    s.write_text('name = "s"\n[workload]\nsource = "nope.trace"\n')
    with pytest.raises(InputError, match=f"looked for in {tmp_path}"):
        load_study(s)
    assert Path(s).exists()


@pytest.mark.slow
def test_a_study_that_quotes_a_population_study_runs_it_first(tmp_path, capsys):
    """Issue 32, item 6: the reproduction's command runs as written from a fresh copy: the population study its
    discussion quotes is run (or resumed) first, so the report has every number it quotes."""
    small = (
        '[workload]\nsource = "synthetic"\nnodes = 8\n[workload.synthetic]\njobs = 600\nload = 1.1\n'
        '[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT"]\n[replications]\ncount = 2\n'
    )
    pop = '[game]\nkind = "population"\nstrategies = ["truthful", "shade-0.5"]\nreduced_players = 2\n'
    (tmp_path / "pop.toml").write_text('name = "pop"\n' + small.replace('consumers = ["FT"]\n', "") + pop)
    main_study = tmp_path / "s.toml"
    main_study.write_text(
        'name = "s"\npopulation_study = "pop.toml"\nnotes = "{population.hb-first.truthful}"\n' + small
    )
    assert main(["study", "run", str(main_study), "--n-jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "quotes the population study" in out and "study pop:" in out and "study s:" in out
    assert (tmp_path / "reports" / "pop" / "report.md").is_file()
    assert "{population" not in (tmp_path / "reports" / "s" / "report.md").read_text()


def test_a_copied_study_finds_the_built_in_workload_model(tmp_path, monkeypatch):
    """``model = "models/lpc-egee-2004.toml"`` in a study copied out of the checkout reads the installed model;
    a user's own file of that name beside the study is preferred; a name neither holds is an error naming both."""
    from gamemarket.market.scheduling_market import builtin_models

    assert "lpc-egee-2004.toml" in builtin_models()
    monkeypatch.chdir(tmp_path)
    study = tmp_path / "copy.toml"
    study.write_text(
        'name = "copy"\n[workload]\nsource = "synthetic"\nmodel = "models/lpc-egee-2004.toml"\n'
        "[workload.synthetic]\njobs = 200\n[replications]\ncount = 1\n"
    )
    spec = load_study(study)
    model = Path(spec.workload["model"])
    assert model.is_file() and "data" in model.parts and "gamemarket" in model.parts
    (tmp_path / "models").mkdir()
    own = tmp_path / "models" / "lpc-egee-2004.toml"
    own.write_bytes(model.read_bytes())
    assert Path(load_study(study).workload["model"]) == own.resolve()
    study.write_text(study.read_text().replace("lpc-egee-2004", "no-such-model"))
    with pytest.raises(InputError, match="built-in models"):
        load_study(study)


def test_the_study_file_reference_is_printed_for_a_user_without_the_repository(tmp_path, monkeypatch, capsys):
    """``study new``'s file points to ``gamemarket study reference``, which prints the same reference as the docs'
    page (generated from the same schema), so that a user with only the installed package has it."""
    monkeypatch.chdir(tmp_path)
    assert main(["study", "new", "mine"]) == 0
    assert "`gamemarket study reference`" in (tmp_path / "mine.toml").read_text()
    capsys.readouterr()
    assert main(["study", "reference"]) == 0
    printed = capsys.readouterr().out
    page = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "study-file.md").read_text()
    assert printed.startswith("# The study file") and page.endswith(printed)
    assert "| `seeds` | list of integer | at least 1 item |" in printed
