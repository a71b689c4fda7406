"""``gamemarket.workflow.run_study`` does what ``gamemarket study run`` does: the same runs, the same report files,
the same lines; its :class:`StudyResult` gives the answer as tables."""

import filecmp
import shutil

import pandas as pd
import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.studies import load_study
from gamemarket.workflow import StudyResult, run_study, write_study_report
from study_helpers import SMALL, sorted_metrics, write_population_study, write_study

pytestmark = pytest.mark.slow


def _same_tree(a, b) -> list[str]:
    """The files that differ, or are in one tree only, between two folders (their manifests, which name when they
    were written, left out)."""
    out = []

    def walk(c: filecmp.dircmp):
        out.extend(c.left_only + c.right_only)
        out.extend(f for f in c.diff_files if f != ".gamemarket-manifest.json")
        for sub in c.subdirs.values():
            walk(sub)

    walk(filecmp.dircmp(a, b))
    return out


def _said(lines, folder) -> list[str]:
    """The lines without the machine's times and with the study's folder as ``<here>``."""
    return [ln.replace(str(folder), "<here>").split(" in ")[0].split(" (written")[0] for ln in lines]


def _twin(tmp_path, body, write):
    """The same study file in two folders: one for the library call, one for the command."""
    one, two = tmp_path / "lib", tmp_path / "cli"
    return write(one, body), write(two, body)


def test_a_provider_consumer_study_gives_the_commands_runs_report_and_lines(tmp_path, capsys):
    lib, cli = _twin(tmp_path, SMALL, write_study)
    lines = []
    res = run_study(lib, n_jobs=1, log=lines.append)
    assert main(["study", "run", str(cli), "--n-jobs", "1", "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert _said(lines, tmp_path / "lib") == _said(printed, tmp_path / "cli") and len(lines) == 2
    a, b = load_study(lib), load_study(cli)
    pd.testing.assert_frame_equal(sorted_metrics(a), sorted_metrics(b))
    assert _same_tree(a.report_dir, b.report_dir) == []
    assert isinstance(res, StudyResult) and res.kind == "bimatrix" and res.report == a.report_dir / "index.html"
    assert [r.tasks for r in res.runs] == [27] and res.runs[0].run == 27


def test_its_tables_are_the_reports_numbers(tmp_path):
    res = run_study(write_study(tmp_path, SMALL), n_jobs=1)
    eq = res.equilibria()
    assert list(eq.columns[:5]) == ["game", "equilibrium", "pure", "provider", "consumer"]
    assert len(eq) == sum(len(sg.solution.equilibria) for sg in res.analysis.games) > 0
    first = res.analysis.games[0].solution.equilibria[0]
    assert eq.iloc[0]["provider_regret"] == first.regret[0] and eq.iloc[0]["consumer_payoff"] == first.payoffs[1]
    m = res.metrics()
    assert len(m) == 27 and set(m["provider"]) == {"hb-first", "hb-kth", "nphb-kth"}
    html = res._repr_html_()
    assert html.startswith("<p><b>study small (bimatrix): 27 runs (27 run now); report ") and "<table" in html
    with pytest.raises(InputError, match="answers\\(\\) is a population study's"):
        res.answers()


def test_without_a_report_the_analysis_is_made_on_first_use_and_simulates_nothing(tmp_path):
    path = write_study(tmp_path, SMALL)
    res = run_study(path, n_jobs=1, write_report=False)
    spec = load_study(path)
    assert res.report is None and not spec.report_dir.exists()
    before = sorted(p.name for p in (spec.results_dir / "runs").iterdir())
    assert len(res.equilibria()) > 0
    assert sorted(p.name for p in (spec.results_dir / "runs").iterdir()) == before


def test_a_population_study_gives_the_commands_report_and_its_answer_table(tmp_path, capsys):
    lib, cli = _twin(tmp_path, None, lambda d, _: write_population_study(d))
    lines = []
    res = run_study(lib, log=lines.append)
    assert main(["study", "run", str(cli), "--n-jobs", "1", "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert _said(lines, tmp_path / "lib") == _said(printed, tmp_path / "cli") and len(lines) > 3
    a, b = load_study(lib), load_study(cli)
    assert _same_tree(a.report_dir, b.report_dir) == []
    ans = res.answers()
    assert list(ans["mechanism"]) == ["hb-first", "hb-kth"] and set(ans["source"]) == {"menu"}
    md = (a.report_dir / "report.md").read_text()
    for _, r in ans.iterrows():  # the report's first table names each mechanism's verdict
        assert f"| {r['mechanism']} |" in md and r["verdict"] in md
    eq = res.equilibria()
    # the report's CSV rows (rejected candidates included), the first table's count of those not rejected
    assert set(eq["mechanism"]) <= {"hb-first", "hb-kth"} and (eq["verified"] != "no").sum() == ans["equilibria"].sum()
    assert res.runs == () and res.population.runs.simulations > 0
    assert res.report == a.report_dir / "index.html" and res.report.is_file()  # the web page, as a bimatrix run's
    assert printed[-1] == f"report: {b.report_dir / 'index.html'}"
    with pytest.raises(InputError, match="read through its answer"):
        res.metrics()


def test_write_study_report_writes_the_reports_command_files(tmp_path, capsys):
    lib = write_study(tmp_path / "lib", SMALL)
    run_study(lib, n_jobs=1, write_report=False)
    cli = write_study(tmp_path / "cli", SMALL)
    shutil.copytree(load_study(lib).results_dir, load_study(cli).results_dir)
    write_study_report(lib)
    assert main(["report", str(cli)]) == 0
    assert _same_tree(load_study(lib).report_dir, load_study(cli).report_dir) == []


def test_a_loaded_study_names_its_own_folders(tmp_path):
    spec = load_study(write_study(tmp_path, SMALL))
    with pytest.raises(InputError, match=r"study small: results= and report= replace a study file's \[output\]"):
        run_study(spec, results=tmp_path / "elsewhere")
    assert not (tmp_path / "elsewhere").exists()


def test_a_report_folder_of_another_study_is_refused_before_any_run(tmp_path):
    path = write_study(tmp_path, SMALL)
    spec = load_study(path)
    spec.report_dir.mkdir(parents=True)
    (spec.report_dir / "mine.txt").write_text("not gamemarket's")
    with pytest.raises(InputError, match="report folder"):
        run_study(path, n_jobs=1)
    assert not (spec.results_dir / "runs").exists() or not any((spec.results_dir / "runs").iterdir())


@pytest.mark.parametrize("kind", ["bimatrix", "population"])
def test_a_report_without_its_runs_leaves_no_folder_behind(tmp_path, capsys, kind):
    path = write_population_study(tmp_path) if kind == "population" else write_study(tmp_path, SMALL)
    spec = load_study(path)
    assert main(["report", str(path)]) == 2
    assert "have no stored result" in capsys.readouterr().err or kind == "population"
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if "strategies" not in p.parts)
    assert left == ["studies", f"studies/{path.name}"] and not spec.report_dir.exists()


def test_a_report_beside_a_run_of_the_same_study_exits_naming_the_run(tmp_path):
    """One lock for every writer of a study: a run holds it to its report's last file; ``report`` takes it too, so
    the two never write one folder at once (a report beside a run once said that the run's ``report.md`` "was not
    written by gamemarket")."""
    import subprocess
    import sys

    from gamemarket.studies.store import study_store

    path = write_study(tmp_path, SMALL)
    run_study(path, n_jobs=1, write_report=False)
    spec = load_study(path)
    with study_store(spec).lock("study run of the test"):
        done = subprocess.run(
            [sys.executable, "-m", "gamemarket", "report", str(path)], capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "results and report are being written by study run of the test (pid" in done.stderr
    assert not spec.report_dir.exists()
    assert main(["report", str(path)]) == 0 and (spec.report_dir / "report.md").is_file()  # and after it, it writes
