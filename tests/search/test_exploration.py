"""Strategy exploration: the per-class family's points, the [game] exploration table, the oracle, the loop."""

import dataclasses
import json
import re
import time
import typing

import numpy as np
import pytest

from gamemarket import bids
from gamemarket.analysis.population import PopulationGames
from gamemarket.cli import main
from gamemarket.consumers import FAMILIES, ParametricFamily, PiecewiseRule, ShadingRule
from gamemarket.errors import InputError
from gamemarket.games.io import mixture_words
from gamemarket.io.explored import ExplorationAnswer
from gamemarket.io.files import OutputFolder, dumps_json
from gamemarket.reports.markdown import num
from gamemarket.search.exploration import not_answered, run_exploration, write_exploration
from gamemarket.search.oracle import ProbeOracle, params_of, point
from gamemarket.studies import load_study
from gamemarket.studies.population_config import search_box, search_family
from study_helpers import POPULATION_STUDY, write_population_study

#: a small exploration study: one pay-your-bid mechanism, a menu of two rules, a 2-player reduced game
STUDY = (
    POPULATION_STUDY.replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first"]')
    .replace("jobs = 800", "jobs = 600")
    .replace('strategies = ["truthful", "shade-0.5", "shade-high-0.9"]', 'strategies = ["truthful", "shade-0.5"]')
    .replace("reduced_players = 3", "reduced_players = 2")
    .replace("probe = 0.01", "probe = 0.05")
    .replace(
        "max_seeds = 4",
        "max_seeds = 6\n"
        'exploration = { family = "per-class", budget = 400, optimiser = "nelder-mead", evaluations = 15 }',
    )
)


def test_a_point_is_the_familys_own_point_and_name():
    r = point([0.1, 0, 0.904])
    assert isinstance(r, ShadingRule)
    fam = FAMILIES.get("per-class")
    assert r == fam.point([0.1, 0.0, 0.9]) and r.name == fam.point_name(np.array([0.1, 0.0, 0.9]))
    assert r.name == "per-class[0.1,0,0.9]" and r.betas == (0.1, 0.0, 0.9)
    assert point(r.betas) == r and point({"low": 0.1, "middle": 0, "high": 0.9}) == r
    p = point([0.1] * 7, family="piecewise")
    assert isinstance(p, PiecewiseRule) and p == FAMILIES.get("piecewise").point([0.1] * 7)
    assert p.name == "piecewise[0.1,0.1,0.1,0.1,0.1,0.1,0.1]" and params_of(p)["beta_180"] == 0.1
    with pytest.raises(InputError, match=r"parameter 'high' must be in \[0, 1\)"):
        point([0, 0, 1.0])
    with pytest.raises(InputError, match=r"expected 3 parameters \[low, middle, high\], got 2"):
        point([0.1, 0.2])
    with pytest.raises(InputError, match=r"expected 7 parameters"):
        point([0.1, 0.2, 0.3], family="piecewise")
    with pytest.raises(InputError, match="unknown family 'splines'"):
        point([0, 0, 0], family="splines")
    with pytest.raises(InputError, match="family 'beta-mix' has no box of parameters to search"):
        point([0, 0, 0], family="beta-mix")


class _Lopsided(ParametricFamily):
    """A family that declares three parameters but makes points of two (a plugin's mistake)."""

    name = "lopsided"
    param_names = ("a", "b", "c")
    bounds = ((0.0, 1.0),) * 3

    def from_entry(self, name, entry, where, root):
        raise NotImplementedError

    def from_params(self, params, name=""):
        raise NotImplementedError

    def make(self, x, name, description):
        return ShadingRule(name, (float(x[0]), float(x[1]), 0.0))

    def coordinates(self, strategy):
        return np.array(strategy.betas[:2])


def test_a_family_whose_parameters_do_not_match_its_declaration_is_refused(tmp_path, capsys):
    FAMILIES.register("lopsided", _Lopsided())
    try:
        with pytest.raises(InputError, match=r"family 'lopsided': its parameters do not match its declaration"):
            search_family("lopsided")
        # from a study: exit 2 when the study is loaded, naming the file and the field, before any run
        path = write_population_study(tmp_path, STUDY.replace('family = "per-class"', 'family = "lopsided"'))
        assert main(["study", "run", str(path), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"{path}: [game.exploration] field 'family': family 'lopsided': its parameters do not match" in err
        assert "3 param_names" not in err and "comes back as" in err and "Traceback" not in err
        assert not (tmp_path / "studies" / "results").exists()
        bad = _Lopsided()
        bad.bounds = ((0.0, 1.0), (1.5, 0.5), (0.0, 1.0))
        with pytest.raises(InputError, match=r"the bounds of 'b' must be finite with lower < upper, got \[1.5, 0.5\)"):
            FAMILIES.register("lopsided", bad, replace=True)
            search_family("lopsided")
    finally:
        FAMILIES.remove("lopsided")
    with pytest.raises(InputError, match=r"field 'bounds': \[0.995, 0.999\] leaves no room for parameter 'low'"):
        search_box(FAMILIES.get("per-class"), (0.995, 0.999))
    assert search_box(FAMILIES.get("piecewise")) == [(0.0, 0.99)] * 7


@dataclasses.dataclass(frozen=True)
class _AmountRule(ShadingRule):
    family: typing.ClassVar[str] = "amount-19"


class _Amount(ParametricFamily):
    """A correct family whose parameter is no share (an amount in [0, 180), as examples/plugins' shade-by)."""

    name = "amount-19"
    param_names = ("amount",)
    bounds = ((0.0, 180.0),)

    def from_entry(self, name, entry, where, root):
        raise NotImplementedError

    def from_params(self, params, name=""):
        raise NotImplementedError

    def make(self, x, name, description):
        return _AmountRule(name or "a", (float(x[0]) / 180.0,) * 3)

    def coordinates(self, strategy):
        return np.array([strategy.betas[0] * 180.0])


def test_a_correct_family_the_exploration_cannot_search_is_not_blamed():
    """Hunt 18b F5's sibling: a family of parameters outside [0, 1) (an amount) was refused by the exploration as
    "its parameters do not match its declaration", sending the user to mend a correct plugin; the limit is the
    search's, and is said as such."""
    FAMILIES.register("amount-19", _Amount())
    try:
        with pytest.raises(InputError) as refused:
            search_family("amount-19")
        said = str(refused.value)
        assert "family 'amount-19' cannot be explored: its parameter 'amount' lies in [0, 180)" in said
        assert "declaration" not in said and "searches parameters in [0, 1)" in said
    finally:
        FAMILIES.remove("amount-19")


@pytest.mark.parametrize(
    "table,match",
    [
        ('{ family = "splines", budget = 10 }', r"\[game.exploration\] field 'family': unknown family 'splines'; "),
        ('{ family = "beta-mix", budget = 10 }', r"field 'family': family 'beta-mix' has no box .*'piecewise'"),
        ('{ family = "per-class", budget = 9, bounds = [0.995, 0.998] }', r"field 'bounds': \[0.995, 0.998\] leaves"),
        ('{ family = "per-class", budget = 0 }', r"\[game.exploration\] field 'budget': expected an integer >= 1"),
        ('{ family = "per-class", budget = 9, bounds = [0, 1] }', r"field 'bounds #2': expected a number < 1, got 1"),
        ('{ family = "per-class", budget = 9, bounds = [-0.1, 0.5] }', r"field 'bounds #1': expected a number >= 0"),
        ('{ family = "per-class", budget = 9, bounds = [0.5, 0.2] }', r"field 'bounds': expected lower < upper"),
        ('{ family = "per-class", budget = 9, optimiser = "bfgs" }', r"field 'optimiser': expected 'nelder-mead'"),
        ('{ family = "per-class", budget = 9, knots = 7 }', r"\[game.exploration\]: unknown field\(s\) \['knots'\]"),
        (
            '{ family = "per-class", budget = 9, probe = 0.5 }',
            r"field 'probe': expected a number > 0 and <= 0.1 .*got 0.5",
        ),
        ('{ family = "per-class", budget = 9, probe = 0 }', r"field 'probe': expected a number > 0"),
        ('{ family = "per-class", budget = 9, first_seeds = 1 }', r"field 'first_seeds': expected an integer >= 2"),
        ('{ family = "per-class", budget = 9, search_seeds = 0 }', r"field 'search_seeds': expected an integer >= 1"),
    ],
)
def test_bad_exploration_tables_name_the_field(tmp_path, table, match):
    body = STUDY.replace(STUDY[STUDY.index("exploration = {") :].split("\n")[0], f"exploration = {table}")
    with pytest.raises(InputError, match=match):
        load_study(write_population_study(tmp_path, body))


def _oracle(spec, st, seeds=(0, 1), **kw):
    return ProbeOracle(
        st.runs.arrays, st.runs.nodes, spec.providers[0].params(), "jobs", st.cfg.probe, spec.bids, list(seeds), **kw
    )


def test_the_oracle_counts_its_runs_and_reuses_what_it_ran(tmp_path):
    spec = load_study(write_population_study(tmp_path, STUDY))
    st = PopulationGames(spec)
    o = _oracle(spec, st)
    truthful = [ShadingRule("truthful", (0, 0, 0))]
    assert o.pending(truthful, [1.0], [(0, 0, 0), (0, 0.5, 0.9)], [0, 1]) == 2 + 4
    g = o.gains(truthful, [1.0], [(0, 0, 0), (0, 0.5, 0.9)])
    assert g.shape == (2, 2) and o.simulations == 2 + 4 == o.run_now  # a base run a seed, a run a candidate and seed
    assert (g[0] == 0).all()  # truthful against the all-truthful population: the probe agents play what they played
    again = o.gains(truthful, [1.0], [(0, 0.5, 0.9)])
    assert o.simulations == 6 and (again[0] == g[1]).all() and o.pending(truthful, [1.0], [(0, 0.5, 0.9)], [0, 1]) == 0
    r = o.search(truthful, [1.0], optimiser="nelder-mead", evaluations=12, start=truthful)
    assert r.candidates <= 12 and r.search_gain >= 0 and r.candidates == len(r.rules)
    assert r.search_gain == max(v for _, v in r.trace) and r.rules[0].name == "truthful"
    # the base runs' provider figures: read back, not run again
    figs = o.figures(truthful, [1.0], [0, 1])
    assert len(figs) == 2 and o.run_now == o.simulations and {"revenue", "welfare", "mean_utility"} <= set(figs[0])


def test_an_exploration_study_writes_its_answer(tmp_path):
    spec = load_study(write_population_study(tmp_path, STUDY))
    ex = run_exploration(spec)
    m = ex.mechanisms["hb-first"]
    assert ex.family == "per-class" and ex.optimiser == "nelder-mead"
    assert m.simulations <= 400
    assert m.certified or m.reason
    assert m.menu_only and m.equilibria
    names = {r.strategy for r in m.menu}
    assert {"truthful", "shade-0.5"} <= names
    for e in m.equilibria:
        assert sum(x.probability for x in e.mixture) == pytest.approx(1)
        for x in e.mixture:
            assert (
                x.strategy in names and len(x.rule.betas_by_class) == 3 and set(x.rule.params) == set(bids.BID_CLASSES)
            )
        d = e.best_deviation
        assert len(d.gain) == 3 and d.gain[1] <= d.gain[0] <= d.gain[2]
        assert e.candidates_evaluated >= 1 and isinstance(e.certified, bool)
        # the provider's figures within what the scheduling market's rules allow (``figure_ranges``)
        assert 0 <= e.revenue.low <= e.revenue.mean <= e.revenue.high
        assert e.welfare.high <= 0 and e.mean_utility.high <= 0
        cert = e.certificate
        # every rule the search evaluated has a fresh-seed bound, and epsilon is the largest of them
        assert len(cert.rules) == e.candidates_evaluated
        assert e.epsilon == max(r.upper for r in cert.rules)
        assert e.certified == (e.epsilon <= m.tolerance) == (e.verdict == "certified")
        assert d.strategy == max(cert.rules, key=lambda r: r.gain[0]).rule
    for r in m.rounds[:-1]:  # a round that grew the menu found a rule above the tolerance: decided or likely
        assert r.added
        for name in r.added:
            bound = [b for e in r.equilibria for b in e.certificate.rules if b.rule == name]
            assert bound and max(b.gain[0] for b in bound) > m.tolerance
    # a second run reads every run and every candidate's gain back, and takes the same path to the same answer
    again = run_exploration(spec)
    assert again.mechanisms["hb-first"].oracle_run_now == 0 < m.oracle_run_now
    assert again.mechanisms["hb-first"].run_now == 0 < m.run_now
    last = json.loads((spec.results_dir / "last-run.json").read_text())  # from the first run: the second ran none
    # the record counts what the answer counts (study run prints it): the searches and the provider's choice
    assert last["exploration"]["simulations"] == ex.simulations
    assert last["exploration"]["run"] == sum(a.run_now for a in ex.mechanisms.values()) + ex.provider.run_now
    assert last["exploration"]["workers"] == m.workers == 1
    assert json.dumps(again.to_json(run=False)) == json.dumps(ex.to_json(run=False))
    assert again.without_run().to_json() == ex.to_json(run=False)
    folder = OutputFolder(tmp_path / "report", owner="test", what="report folder")
    path = write_exploration(ex, folder)
    written = json.loads(path.read_text())
    assert written["mechanisms"]["hb-first"]["certified"] == m.certified
    # the file reads back to the answer without this call's figures, and writes the same JSON again
    back = ExplorationAnswer.from_json(written)
    assert back.wall_seconds is None and back.mechanisms["hb-first"].run_now is None
    assert dumps_json(back.to_json(), indent=1) == path.read_text()


def test_a_budget_too_small_is_not_certified_and_says_why(tmp_path):
    # a study file's budget too small for one certificate is refused before any run (hunt 34a-W2: taken, every
    # mechanism's runs made, then "not certified"), by the sum the exploration reckons with
    with pytest.raises(InputError) as exc:
        load_study(write_population_study(tmp_path / "file", STUDY.replace("budget = 400", "budget = 29")))
    said = str(exc.value)
    assert "[game.exploration] field 'budget': 29 simulations are too few for one certificate, which the " in said
    assert (
        "exploration starts only with 30 left (what its search and first look may take; it may use fewer): (2 " in said
    )
    load_study(write_population_study(tmp_path / "ok", STUDY.replace("budget = 400", "budget = 30")))
    # a spec made in Python past that check is run, and says why it is not certified
    spec = load_study(write_population_study(tmp_path, STUDY))
    spec = dataclasses.replace(spec, exploration={**spec.exploration, "budget": 5})
    m = run_exploration(spec).mechanisms["hb-first"]
    assert not m.certified and m.simulations <= 5
    said = "ran out" if m.simulations else "is too small for one certificate: none searched"  # (not "0 used")
    assert m.reason.startswith(f"the budget of 5 simulations {said}")
    assert m.equilibria == () and [r.strategy for r in m.menu] == ["truthful", "shade-0.5"]
    assert not_answered(m)  # a report says "not answered", never "none found" (hunt 15)


def test_a_study_without_exploration_is_refused(tmp_path):
    spec = load_study(write_population_study(tmp_path))
    with pytest.raises(InputError, match=r"\[game\] has no 'exploration' table"):
        run_exploration(spec)


def test_the_piecewise_family_is_searched_through_its_interface(tmp_path):
    body = STUDY.replace('family = "per-class", budget = 400', 'family = "piecewise", budget = 120').replace(
        "evaluations = 15", "evaluations = 10"
    )
    spec = load_study(write_population_study(tmp_path, body))
    ex = run_exploration(spec).to_json()  # as data/exploration.json names a point of the family
    assert ex["family"] == "piecewise" and ex["parameters"] == [f"beta_{k}" for k in range(0, 181, 30)]
    m = ex["mechanisms"]["hb-first"]
    assert m["simulations"] <= 120 and (m["certified"] or m["reason"])
    for e in m["menu_only"]:
        d = e["best_deviation"]
        assert len(d["gain"]) == 3 and d["gain"][1] <= d["gain"][0] <= d["gain"][2]
        assert e["epsilon"] >= d["gain"][0]
        if d["family"] == "piecewise":  # a point of the family: named by it, its 7 betas each in the box
            assert d["strategy"] == FAMILIES.get("piecewise").point(list(d["params"].values())).name
            assert len(d["params"]) == 7 and all(0 <= v <= 0.99 for v in d["params"].values())
            assert "betas_by_class" not in d
        else:  # the best was a menu rule (they are evaluated first)
            assert d["strategy"] in {"truthful", "shade-0.5"}
    assert [r["strategy"] for r in m["menu"]][:2] == ["truthful", "shade-0.5"]


def test_the_tpe_search_is_seeded_and_keeps_its_cap(tmp_path):
    spec = load_study(write_population_study(tmp_path, STUDY))
    st = PopulationGames(spec)
    truthful = [ShadingRule("truthful", (0, 0, 0))]
    found = []
    for _ in range(2):  # fresh oracles: nothing read back from memory, the same seed asks the same points
        o = _oracle(spec, st)
        found.append(o.search(truthful, [1.0], optimiser="optuna-tpe", evaluations=8, start=truthful))
    names = [[(r.name, v) for r, v in f.trace] for f in found]
    assert names[0] == names[1] and found[0].rule.name == found[1].rule.name
    assert found[0].candidates <= 8 and names[0][0][0] == "truthful"
    assert found[0].search_gain == max(v for _, v in found[0].trace)


def _table(md: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with ``header``, as lists of cells."""
    lines = md.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith(header))
    out = []
    for line in lines[k + 2 :]:
        if not line.startswith("|"):
            break
        out.append([c.strip() for c in line.strip("|").split("|")])
    return out


def _sections(md: str) -> dict:
    """The report's sections by their heading (``## ...`` and ``### ...``), the text before the first one as ''."""
    out, name = {"": []}, ""
    for line in md.splitlines():
        if line.startswith("## ") or line.startswith("### "):
            name = line.lstrip("# ").strip()
            out[name] = []
        out[name].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def check_one_answer(md: str, ex: dict) -> None:
    """Every section of a population report that names a mechanism's equilibria names the exploration's, except the
    ones labelled a comparison (and those say so): the first table, the provider's ranking and simultaneous
    equilibria, the exploration's final answer."""
    sections = _sections(md)
    for name, text in sections.items():
        if "menu only" in name or "the study's menu" in name:
            assert "(a comparison)" in name and "A comparison: the answer of this report is the exploration's" in text
    for mech, m in ex["mechanisms"].items():
        words = {mixture_words({x["strategy"]: x["probability"] for x in e["mixture"]}) for e in m["equilibria"]}
        lead = {r[0]: r for r in _table(md, "| mechanism | users play |")}
        # a mechanism with no equilibrium: "none found" where the search ended, "not answered" where the budget
        # ran out first (hunt 15)
        nothing = {"not answered"} if m["reason"].startswith("the budget of ") else {"none found"}
        assert set(lead[mech][1].split(" or ")) == (words or nothing)
        final = {r[0]: r for r in _table(md, "| mechanism | menu only | with exploration |")}
        said = re.sub(r" \(round \d+'s\)$", "", final[mech][2])  # an earlier round's answer says which (hunt 15)
        assert set(said.split(" or ")) == (words or ({"not answered"} if "not answered" in nothing else {"none"}))
        ranking = {r[0]: r for r in _table(sections["The provider's choice"], "| mechanism | consumer equilibria |")}
        if words:
            assert ranking[mech][1] == str(len(words))
        for s_ in ex["provider"]["simultaneous"]:
            if s_["mechanism"] == mech:
                assert mixture_words(s_["mixture"]) in words


@pytest.mark.slow
def test_the_report_leads_with_the_explorations_answer_and_a_report_from_stored_results_keeps_it(tmp_path, capsys):
    path = write_population_study(tmp_path, STUDY)
    assert main(["study", "run", str(path), "--no-progress"]) == 0
    report = tmp_path / "studies" / "report"
    ex = json.loads((report / "data" / "exploration.json").read_text())
    assert "wall_seconds" not in ex and all("oracle_run_now" not in m for m in ex["mechanisms"].values())
    assert all(
        "workers" not in m and "run_now" not in m for m in ex["mechanisms"].values()
    )  # the run's, not the data's
    md = (report / "report.md").read_text()
    assert not re.search(r"\{[a-z_]+(\[|\}|:)", md), "a placeholder left unformatted"
    blocks = md.split("\n\n")
    assert blocks[1].startswith("| mechanism | users play | epsilon (tolerance) | verdict |")  # the answer, first
    m = ex["mechanisms"]["hb-first"]
    row = _table(md, "| mechanism | users play |")[0]
    assert row[2] == f"{num(m['epsilon'], 3)} ({num(m['tolerance'], 3)})"
    assert row[3] == ("certified" if m["certified"] else "not certified")
    assert "A certificate covers the rules the search evaluated" in blocks[2] and len(blocks[2].split()) < 200
    check_one_answer(md, ex)
    done = sum(bool(x["certified"]) for x in ex["mechanisms"].values())  # the heading counts, claims nothing
    heading = "## Strategy exploration: the menu grown by a best-response search"
    assert (
        f"{heading} ({done} of {len(ex['mechanisms'])} mechanism{'s' * (len(ex['mechanisms']) != 1)} certified)" in md
    )
    rounds = _table(md, "| mechanism | round | rules | equilibrium |")
    for k, r in enumerate(m["rounds"]):  # round by round: each equilibrium's epsilon and best rule on fresh seeds
        for e in r["equilibria"]:
            d = e["best_deviation"]
            assert any(
                x[1] == str(k + 1) and x[5].startswith(num(e["epsilon"], 3)) and x[6] == d["strategy"] for x in rounds
            )
        assert f"added: {', '.join(r['added']) or 'none'}" in md
    assert f"{ex['simulations']:,} simulations in all" in md
    # a report from stored results (nothing simulated) renders the same exploration, and keeps its data
    assert main(["report", str(path)]) == 0
    assert (report / "report.md").read_text() == md
    assert json.loads((report / "data" / "exploration.json").read_text()) == ex


@pytest.mark.slow
def test_the_consistency_check_fails_on_a_section_that_names_another_equilibrium(tmp_path):
    """The check of one answer per report can fail: a provider section quoting the menu-only equilibrium where the
    exploration found another is caught."""
    path = write_population_study(tmp_path, STUDY)
    assert main(["study", "run", str(path), "--no-progress"]) == 0
    report = tmp_path / "studies" / "report"
    ex = json.loads((report / "data" / "exploration.json").read_text())
    md = (report / "report.md").read_text()
    bad = md.replace("| mechanism | users play |", "| mechanism | users play |", 1)  # unchanged: passes
    check_one_answer(bad, ex)
    row = _table(md, "| mechanism | users play |")[0]
    with pytest.raises(AssertionError):
        check_one_answer(md.replace(f"| {row[1]} |", "| 1 something-else |", 1), ex)
    with pytest.raises(AssertionError):  # a menu-only section that does not say it is a comparison
        check_one_answer(md.replace("over the study's menu only (a comparison)", "over the study's menu only"), ex)


#: a plugin's parametric family of one parameter, declared in [0.505, 0.6): narrower than the default search box
NARROW_PLUGIN = """
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gamemarket.consumers import ConsumerStrategy, ParametricFamily, register


@dataclass(frozen=True)
class Narrow(ConsumerStrategy):
    family: ClassVar[str] = "narrow"
    name: str
    beta: float
    description: str = ""

    def params(self):
        return {"family": self.family, "beta": float(self.beta)}

    def reported_bids(self, private_bid, bid_class, G, U):
        w = np.asarray(private_bid, dtype=float)
        return np.zeros(len(w), dtype=np.int64), w * (1 - self.beta * np.asarray(U, dtype=float))

    def consumer_groups(self):
        return ((1.0, self.beta),)

    def entry(self):
        return {"family": self.family, "beta": float(self.beta)}


class NarrowFamily(ParametricFamily):
    name = "narrow"
    description = "a beta in [0.505, 0.6)"
    param_names = ("beta",)
    bounds = ((0.505, 0.6),)

    def from_entry(self, name, entry, where, root):
        return {name: self.make(self.check_point([entry["beta"]], where), name, "")}

    def from_params(self, params, name=""):
        return self.make(self.check_point([params["beta"]]), name, "")

    def make(self, x, name, description):
        return Narrow(name, float(x[0]), description)

    def coordinates(self, strategy):
        return np.array([strategy.beta], dtype=float)


register(NarrowFamily())
"""


@pytest.fixture
def registries_restored(monkeypatch):
    """What a plugin registers in this test is undone after it (as for the tests under tests/plugins/)."""
    from gamemarket import plugins

    for reg in plugins.REGISTRIES.values():
        monkeypatch.setattr(reg, "_items", dict(reg._items))
    monkeypatch.setattr(plugins.loading, "LOADED", {})
    monkeypatch.setenv(plugins.ENV, "[]")


def test_a_plugin_familys_bounds_are_checked_when_the_study_loads(tmp_path, capsys, monkeypatch, registries_restored):
    """Issue #30: an exploration of a plugin's family whose declared bounds leave no room in the study's bounds
    was refused only when the exploration started, after the whole menu-only study had run."""
    from gamemarket.studies.population import PopulationRuns

    ran = []
    monkeypatch.setattr(PopulationRuns, "ensure", lambda self, wanted: ran.append(wanted))
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "narrow.py").write_text(NARROW_PLUGIN)
    body = STUDY.replace('name = "pop-test"', 'name = "pop-test"\n[plugins]\nmodules = ["narrow.py"]').replace(
        'family = "per-class"', 'family = "narrow", bounds = [0.0, 0.3]'
    )
    path = write_population_study(tmp_path, body)
    results, report = tmp_path / "res", tmp_path / "rep"
    t0 = time.perf_counter()
    code = main(["study", "run", str(path), "--no-progress", "--results", str(results), "--report", str(report)])
    err = capsys.readouterr().err
    assert code == 2 and ran == [], err  # refused before any simulation
    assert time.perf_counter() - t0 < 30  # the load alone: no workload prepared, no run
    assert f"{path}: [game.exploration] field 'bounds': [0.0, 0.3] leaves no room for parameter 'beta'" in err
    assert "of family 'narrow', declared in [0.505, 0.6)" in err and "Traceback" not in err
    assert not results.exists() and not report.exists()  # nothing written
    # bounds that meet the family's: the plugin's family loads (the schema refused any family not built in), and
    # its box's lower end is on the grid candidates are rounded to, so the lowest candidate is the family's
    spec = load_study(write_population_study(tmp_path, body.replace("bounds = [0.0, 0.3]", "bounds = [0.0, 0.99]")))
    fam = FAMILIES.get("narrow")
    assert spec.exploration["family"] == "narrow" and search_box(fam, spec.exploration["bounds"]) == [(0.51, 0.59)]
    assert point([0.51], family="narrow").beta == 0.51
    assert ran == []


def test_a_missing_optimiser_library_is_refused_when_the_study_loads(tmp_path, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "optuna" else find_spec(name, *a))
    path = write_population_study(tmp_path, STUDY.replace('optimiser = "nelder-mead"', 'optimiser = "optuna-tpe"'))
    with pytest.raises(InputError, match=r"\[game.exploration\] field 'optimiser': 'optuna-tpe' needs optuna"):
        load_study(path)
