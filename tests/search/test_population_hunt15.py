"""Hunt 15a: a population report's answer when the exploration's budget runs out, when two mechanisms tie, and the
numbering of its equilibria in the Python API.

- H15a-1: an exploration whose budget ran out before the grown menu's game was certified answered "none found" and
  the mechanism dropped out of the provider's choice: the answer is now the last round answered in full (said so),
  and a mechanism with no answered round is "not answered", with the choice among the answered ones only.
- H15a-2: ``StudyResult.equilibria()`` numbered the equilibria worst first where the report, its CSV and
  population.json number them as the study found them, and carried none of their figures.
- H15a-4: two mechanisms of exactly the same worst revenue: one was "its choice", the other "rank 2".
"""

import json
from dataclasses import replace

import pandas as pd
import pytest
from test_exploration import check_one_answer

from gamemarket.io.answers import RankedMechanism
from gamemarket.reports.answer import answer_paragraph, answer_table, rows
from gamemarket.search.exploration import answered_round, fell_back, not_answered
from gamemarket.search.population import leaders, ranks
from gamemarket.workflow import run_study
from study_helpers import write_study

#: the tester's exploration study (expl/ex.toml) at the budget that runs out in hb-first's second round
EXPLORED = """
name = "ex"
[workload]
source = "synthetic"
nodes = 6
[workload.synthetic]
jobs = 300
load = 0.9
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
agents = "jobs"
strategies = ["truthful", "shade-0.5", "shade-high-0.9"]
reduced_players = 4
probe = 0.05
regret_tol = 0.01
max_seeds = 4
seed_step = 2
joint = false
exploration = { family = "per-class", budget = 200, optimiser = "nelder-mead", evaluations = 12, search_seeds = 2, \
first_seeds = 4, confirm_seeds = 8, probe = 0.05 }
[replications]
count = 2
first = 1
[output]
results = "results"
report = "report"
"""

#: the design how-to's workload without its [design] (h4/tie.toml): everyone pays the reserve, both mechanisms earn
#: exactly the same
TIE = """
name = "tie"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 300
load = 0.3
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "shade-high-0.9", "leave-all"]
outside_price = 20.0
probe = 0.05
joint = false
[game.shading.leave-all]
beta = 0.0
leave = 1.0
description = "every job takes the outside option"
[replications]
count = 3
[output]
results = "results"
report = "report"
"""

#: the tester's pop/pop.toml: hb-first has three equilibria, found in another order than worst first
POP = """
name = "pop"
[workload]
source = "synthetic"
nodes = 6
[workload.synthetic]
jobs = 250
load = 0.9
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
agents = "jobs"
strategies = ["truthful", "shade-0.5", "shade-high-0.9"]
reduced_players = 4
probe = 0.05
regret_tol = 0.01
max_seeds = 4
seed_step = 2
joint = false
[replications]
count = 2
first = 1
[output]
results = "results"
report = "report"
"""


def _first_table(md: str) -> dict:
    lines = md.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("| mechanism | users play |"))
    out = {}
    for line in lines[k + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        out[cells[0]] = cells
    return out


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    """The exploration study run once (a few seconds): its result and its report's text."""
    tmp = tmp_path_factory.mktemp("explored")
    res = run_study(write_study(tmp, EXPLORED, "ex.toml"), n_jobs=1)
    return res, (res.report.parent / "report.md").read_text()


def test_a_budget_that_runs_out_in_a_later_round_falls_back_on_the_last_round_answered(explored):
    res, md = explored
    m = res.exploration.mechanisms["hb-first"]
    # round 2 (the menu grown to 4 rules) was cut short: its game's equilibrium never certified
    assert len(m.rounds) == 2 and m.rounds[-1].equilibria == () and len(m.rounds[-1].menu) == 4
    # the answer is round 1's (was: none, and "none found" in the report)
    assert m.equilibria == m.rounds[0].equilibria and m.equilibria
    assert answered_round(m) == 0 and fell_back(m) and not not_answered(m) and not m.certified
    assert m.reason.startswith("the budget of 200 simulations ran out (") and "the answer is round 1's" in m.reason
    assert m.epsilon == max(e.epsilon for e in m.equilibria)
    # it stays in the provider's choice (was: left out, and hb-kth "its choice")
    assert "hb-first" in [r.mechanism for r in res.exploration.provider.ranking]
    row = _first_table(md)["hb-first"]
    assert row[1] != "none found" and row[3] == "not certified (round 1's answer: budget ran out)"
    assert (
        f"hb-first's answer is round 1's, over 3 rules: the exploration's budget ran out ({m.simulations:,} of 200"
        in md
    )
    assert "hb-first's equilibria are round 1's" in md.split("## The provider's choice")[1]
    # every section names the same answer (the exploration's), the comparison sections labelled so
    check_one_answer(md, json.loads((res.report.parent / "data" / "exploration.json").read_text()))
    # the API's table says which round its equilibria come from
    eq = res.equilibria()
    assert list(eq[eq["mechanism"] == "hb-first"]["round"]) == [1] * len(m.equilibria)


def test_a_mechanism_the_budget_left_unanswered_is_unknown_and_the_choice_is_among_the_answered(explored):
    res, _ = explored
    ex = res.exploration
    kth = ex.mechanisms["hb-kth"]
    # hb-kth as an exploration too small for one certificate leaves it: no equilibrium, the budget's reason
    gone = replace(
        kth, equilibria=(), epsilon=None, reason="the budget of 200 simulations is too small for one certificate"
    )
    ex2 = replace(
        ex,
        mechanisms={**ex.mechanisms, "hb-kth": gone},
        provider=replace(ex.provider, ranking=tuple(r for r in ex.provider.ranking if r.mechanism != "hb-kth")),
    )
    assert not_answered(gone) and not not_answered(kth)
    table = rows(res.population, ex2)
    by = {r.mechanism: r for r in table}
    assert by["hb-kth"].verdict == "not answered" and by["hb-kth"].rank is None
    cells = _first_table(answer_table(table))["hb-kth"]
    assert cells[1] == "not answered" and cells[6] == "unknown (not answered)"  # never "none found"
    words = answer_paragraph(res.population, table, ex2)
    assert (
        "Among the mechanisms answered only (hb-kth is not: the exploration's budget ran out "
        f"({kth.simulations:,} of 200" in words
    )
    assert "earns most under hb-first" in words


def test_ties_share_a_rank():
    r = [RankedMechanism("a", 1, 714.0, 714.0), RankedMechanism("b", 2, 714.0 * (1 + 1e-12), 900.0)]
    r.append(RankedMechanism("c", 1, 600.0, 600.0))
    assert ranks(r) == {"a": 1, "b": 1, "c": 3} and leaders(r) == ("a", "b")
    assert ranks(r[:1] + [RankedMechanism("b", 1, 715.0, 715.0)]) == {"a": 2, "b": 1}


def test_two_mechanisms_of_the_same_worst_revenue_tie_in_the_report(tmp_path):
    res = run_study(write_study(tmp_path, TIE, "tie.toml"), n_jobs=1)
    md = (res.report.parent / "report.md").read_text()
    table = _first_table(md)
    revs = {r.mechanism: r.worst_revenue for r in res.population.provider.ranking}
    assert revs["hb-first"] == revs["hb-kth"]  # the case: everyone pays the reserve
    assert table["hb-first"][6].startswith("**its choice**, tied with hb-kth")
    assert table["hb-kth"][6].startswith("**its choice**, tied with hb-first")  # was: "rank 2"
    assert "earns most under hb-first and hb-kth, which tie (714,000 each at their worst equilibrium)" in md
    assert "earns most under hb-first (" not in md
    choice = md.split("## The provider's choice")[1]
    assert choice.count("| 1 (tie) |") == 2
    ans = res.answers()
    assert list(ans["provider_rank"]) == [1, 1] and list(ans["tied_with"]) == ["hb-kth", "hb-first"]


def test_the_apis_equilibria_are_numbered_and_described_as_the_reports_csv(tmp_path):
    res = run_study(write_study(tmp_path, POP, "pop.toml"), n_jobs=1)
    data = res.report.parent / "data"
    csv = pd.read_csv(data / "population-equilibria.csv")
    eq = res.equilibria()
    assert len(eq) == len(csv) and set(eq["source"]) == {"menu"}
    for col in ("mechanism", "equilibrium", "mixture", "verified", "stability"):
        assert list(eq[col]) == list(csv[col]), col
    for col in ("regret", "regret_ci_low", "regret_ci_high", "revenue", "welfare"):
        assert list(eq[col]) == pytest.approx(list(csv[col]), rel=1e-6), col
    # the case: hb-first's equilibria, worst first, are not in the order the study found them
    first = eq[eq["mechanism"] == "hb-first"]
    assert len(first) >= 2 and list(first["revenue"]) != sorted(first["revenue"])
    md = (res.report.parent / "report.md").read_text()
    assert "(mechanism and its number: the order of the equilibria table above and of data/population-equilib" in md
    assert "the first table's" not in md  # the first table lists them worst first, unnumbered


def test_the_apis_explored_equilibria_are_numbered_as_the_exploration_file(explored):
    res, md = explored
    data = json.loads((res.report.parent / "data" / "exploration.json").read_text())
    eq = res.equilibria()
    assert set(eq["source"]) == {"exploration"}
    for name, m in data["mechanisms"].items():
        sub = eq[eq["mechanism"] == name]
        assert list(sub["equilibrium"]) == list(range(1, len(m["equilibria"]) + 1))
        assert list(sub["revenue"]) == pytest.approx([e["revenue"][0] for e in m["equilibria"]])
        assert list(sub["verdict"]) == [e["verdict"] for e in m["equilibria"]]
    assert "(mechanism and its number: their order in data/exploration.json" in md
