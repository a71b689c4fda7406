"""Hunt 31a: a design search and a large provider/consumer study say their plan before any run, a design search
says how far it is as it goes, and `study status` counts a design search's points stored.

F1: a design study of ``budget = 100000`` evaluated points at once, with not a line of how many (99,856 on the grid)
or what each costs; W7: after a search stopped part-way, `study status` said only "0/60" (its fixed mechanisms'
count); W2: a provider/consumer study of 39,204 runs began with no plan."""

import numpy as np
import pytest

from gamemarket.analysis.population import PopulationGames
from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.search import design as design_mod
from gamemarket.search.design import DesignEvaluator, design_plan, grid_points, most_points, points_stored
from gamemarket.studies import load_study
from gamemarket.studies.population import PopulationRuns
from gamemarket.studies.runner import planned_runs, runs_plan_text
from gamemarket.workflow import run_study
from gamemarket.workflow import study as workflow_study
from study_helpers import SMALL_DESIGN, TINY, write_study


def _tallied(monkeypatch, lines: list) -> dict:
    """Every population run a search asks for, tallied: the grid's runs (provider, mixture, seed), and how many lines
    had been said when the first run was asked for."""
    tally: dict = {"grid": set(), "said_before": None}
    ensure = PopulationRuns.ensure

    def spy(self, wanted, paired=False):
        if tally["said_before"] is None:
            tally["said_before"] = len(lines)
        if not paired:
            tally["grid"] |= {(p, tuple(np.round(x, 12)), s) for (p, s), mixes in wanted.items() for x in mixes}
        return ensure(self, wanted, paired)

    monkeypatch.setattr(PopulationRuns, "ensure", spy)
    return tally


def test_a_design_search_says_its_plan_before_any_run_and_does_what_it_says(tmp_path, monkeypatch):
    path = write_study(tmp_path, SMALL_DESIGN)
    spec = load_study(path)
    lines: list = []
    tally = _tallied(monkeypatch, lines)
    res = run_study(path, n_jobs=1, write_report=False, log=lines.append)
    plan = design_plan(spec, len(PopulationGames(spec).grid))
    # said first, before any run is asked for
    assert tally["said_before"] == 1 and lines[0] == plan.text
    assert plan.points == 6 and "at most 6 point(s) x 1 scheduler(s) = 6 design points" in plan.text
    assert "budget = 6 per scheduler; the grid: 6 a side over 1 parameter(s)" in plan.text
    assert "Ctrl-C or `study run --time-limit SECONDS` keeps every finished run; the same command resumes" in plan.text
    # its numbers are what the search does: the points evaluated, the grid's runs, the confirmation's base runs
    ans = res.design
    assert len(ans.points) == plan.points
    assert len(tally["grid"]) == plan.grid_simulations == (6 + 2) * plan.per_point
    assert f"up to {plan.grid_simulations:,} grid simulations in all" in plan.text
    assert sum(len(c.seeds) for c in ans.confirmations.values()) == plan.confirm_runs == (3 + 2) * 4
    assert f"up to {plan.confirm_runs:,} base runs" in plan.text


def test_a_design_search_says_how_far_it_is_as_it_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(design_mod, "LOOK_SAY_S", 0.0)  # a line at every point (default: every few seconds)
    path = write_study(tmp_path, SMALL_DESIGN)
    lines: list = []
    run_study(path, n_jobs=1, write_report=False, log=lines.append)
    far = [ln for ln in lines if "design points evaluated" in ln]
    assert [ln.split(": ")[1].split(" design")[0] for ln in far] == [f"{k} of at most 6" for k in range(1, 7)]
    assert all("simulations so far" in ln for ln in far)


def test_the_command_prints_a_large_grids_plan_before_its_first_point(tmp_path, capsys, monkeypatch):
    body = SMALL_DESIGN.replace("blend = 0.5", "blend = [0.0, 1.0]").replace("budget = 6", "budget = 100000")
    path = write_study(tmp_path, body)
    spec = load_study(path)
    plan = design_plan(spec, len(PopulationGames(spec).grid))
    assert plan.points == most_points(spec.design.box(), "grid", 100_000) == 316**2
    assert "= 99,856 design points" in plan.text and "316 a side over 2 parameter(s)" in plan.text

    def stop(self, prov, **kw):  # no point evaluated: the plan alone
        raise InputError("stopped before the first point")

    monkeypatch.setattr(DesignEvaluator, "evaluate", stop)
    assert main(["study", "run", str(path), "--n-jobs", "1", "--no-report"]) == 2
    assert capsys.readouterr().out.splitlines() == [plan.text]


@pytest.mark.parametrize(("dims", "budget"), [(1, 2), (1, 7), (2, 4), (2, 26), (2, 100_000), (3, 30)])
def test_the_plans_grid_count_is_the_grids(dims, budget):
    box = [(f"p{k}", 0.0, 1.0) for k in range(dims)]
    assert most_points(box, "grid", budget) == len(grid_points(box, budget)) <= budget
    assert most_points(box, "gp", budget) == budget


def test_status_counts_the_design_points_of_a_search_stopped_part_way(tmp_path, capsys, monkeypatch):
    path = write_study(tmp_path, SMALL_DESIGN)
    evaluate, seen = DesignEvaluator.evaluate, []

    def stopped_at_the_fourth(self, prov, **kw):
        if prov.name not in self.cache and len(seen) == 3:
            raise KeyboardInterrupt
        seen.append(prov.name)
        return evaluate(self, prov, **kw)

    monkeypatch.setattr(DesignEvaluator, "evaluate", stopped_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        run_study(path, n_jobs=1, write_report=False)
    monkeypatch.setattr(DesignEvaluator, "evaluate", evaluate)
    assert points_stored(load_study(path)) == (3, True)
    assert main(["study", "status", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("design search: 3 of at most 6 design points stored ([design] budget = 6 per scheduler")
    assert out[-1].startswith("design answer: not current")
    run_study(path, n_jobs=1, write_report=False)
    assert main(["study", "status", str(path)]) == 0
    assert "design search: 6 of at most 6 design points stored" in capsys.readouterr().out


def test_status_counts_a_model_based_searchs_points_by_replaying_it(tmp_path):
    pytest.importorskip("optuna")
    path = write_study(tmp_path, SMALL_DESIGN.replace('optimiser = "grid"', 'optimiser = "tpe"'))
    assert points_stored(load_study(path)) == (0, True)
    res = run_study(path, n_jobs=1, write_report=False)
    assert points_stored(load_study(path)) == (len(res.design.points), True)
    assert points_stored(load_study(path), seconds=0.0) == (0, False)  # the count's time spent: "at least 0"


def test_a_large_provider_consumer_study_says_its_plan_before_its_runs(tmp_path, monkeypatch):
    path = write_study(tmp_path, TINY.format(count=2))
    lines: list = []
    run_study(path, n_jobs=1, write_report=False, log=lines.append)
    assert not any("profiles" in ln for ln in lines)  # a small study: as it was (one line per study run)
    monkeypatch.setattr(workflow_study, "PLAN_SAY_RUNS", 1)
    lines.clear()
    res = run_study(path, n_jobs=1, write_report=False, log=lines.append)
    spec = load_study(path)
    assert lines[0] == runs_plan_text(spec)
    assert "2 mechanism(s) x 2 consumer strategies = 4 profiles x 2 seed(s) = 8 runs" in lines[0]
    assert planned_runs(spec) == res.runs[0].tasks == 8
