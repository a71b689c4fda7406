"""The paper's strategies are found by definition, not by name alone (hunt 13, H13-2): a study may define its own
``FT`` or ``SRG``; the paper's claims, shading gains, game and figures then leave them out and the report says why,
instead of measuring a shading "FT" as the truthful baseline and a reordered "SRG"'s truthful jobs as its
risk-aggressive 10%."""

import numpy as np
import pandas as pd
import pytest

from gamemarket.analysis import claims
from gamemarket.analysis.incentives import measured_ways
from gamemarket.analysis.shading import paper_strategies
from gamemarket.bids import BID_CLASSES
from gamemarket.studies import load_study
from gamemarket.workflow import run_study
from study_helpers import write_study

PAPER = {
    "FT": {"groups": [[1.0, 0.0]]},
    "SRG": {"groups": [[0.9, 0.1], [0.1, 0.9]]},
    "DEV1": {"groups": [[0.99, 0.0], [0.01, 0.9]]},
}
#: the hunt's study: everyone shades under "FT", and "SRG"'s aggressive 10% come first (G >= 0.9 is truthful)
REDEFINED = {"FT": {"groups": [[1.0, 0.5]]}, "SRG": {"groups": [[0.1, 0.9], [0.9, 0.0]]}}
PROVIDERS = {
    "hb-first": {"kind": "scheduling", "scheduler": "hb", "payment": "first", "reserve": 1.0},
    "hb-kth": {"kind": "scheduling", "scheduler": "hb", "payment": "kth", "reserve": 1.0},
}
BINS = pd.DataFrame(
    columns=["provider", "consumer", "seed", "group", "runtime_group", "bid_bin", "n", "sum_bsd", "n_ssj"]
    + ["sum_utility"]
)


def _tables(consumers: dict, seeds=range(1, 5)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Metrics and cohort sums of every (provider, consumer, seed): the jobs with G >= 0.9 of every strategy but FT
    gain 20 per job over FT's under first price."""
    rng = np.random.default_rng(0)
    metrics = pd.DataFrame(
        [
            {"provider": p, "consumer": c, "seed": s, "mean_utility": -100.0 + 5 * (p == "hb-kth"), "revenue": 1e3}
            for p in PROVIDERS
            for c in consumers
            for s in seeds
        ]
    )
    cohorts = pd.DataFrame(
        [
            {"provider": p, "consumer": c, "seed": s, "g_bin": k, "bid_class": cls, "n": 10}
            | {"sum_utility": 10 * (-100.0 + (20.0 * (p == "hb-first" and c != "FT") if k >= 90 else 0) + rng.normal())}
            for p in PROVIDERS
            for c in consumers
            for s in seeds
            for k in range(100)
            for cls in BID_CLASSES
        ]
    )
    return metrics, cohorts


def _keys(consumers: dict) -> list[str]:
    metrics, cohorts = _tables(consumers)
    return [r["key"] for r in claims.evaluate(metrics, BINS, cohorts, consumers, PROVIDERS)]


def test_the_catalogues_strategies_are_the_papers():
    paper = paper_strategies(PAPER)
    assert paper.names == {"FT": "FT", "SRG": "SRG", "DEV1": "DEV1"} and not paper.unlike and not paper.notes()
    # truthful bidding is truthful however its jobs are split
    assert paper_strategies({"FT": {"groups": [[0.5, 0.0], [0.5, 0.0]]}}).name("FT") == "FT"


def test_a_study_of_its_own_ft_and_srg_is_told_they_are_not_the_papers():
    paper = paper_strategies(REDEFINED)
    assert paper.names == {} and set(paper.unlike) == {"FT", "SRG"}
    notes = paper.notes()
    assert len(notes) == 2
    assert "left out: this study's FT is not the paper's FT (groups [[1.0, 0.5]], not truthful bidding" in notes[0]
    assert (
        "left out: this study's SRG is not the paper's SRG (groups [[0.1, 0.9], [0.9, 0.0]]; the paper's has "
        "groups [[0.9, 0.1], [0.1, 0.9]])" in notes[1]
    )
    # the milder form: an SRG whose aggressive group is half the jobs is not "the aggressive 10%"
    mild = paper_strategies({**PAPER, "SRG": {"groups": [[0.5, 0.5], [0.5, 0.9]]}})
    assert mild.name("SRG") is None and mild.name("FT") == "FT" and "SRG" in mild.unlike


def test_the_papers_srg_under_another_name_is_found_and_said():
    """Renaming SRG (same groups) no longer makes the paper's analyses vanish without a word; a study's own
    strategy of a paper name is never replaced by another of the paper's definition."""
    paper = paper_strategies({"FT": PAPER["FT"], "RISKY": PAPER["SRG"]})
    assert paper.name("SRG") == "RISKY"
    assert paper.notes() == [
        "This study's RISKY is the paper's SRG (the same definition): the paper's analyses read it as SRG."
    ]
    both = paper_strategies({"FT": PAPER["FT"], "SRG": REDEFINED["SRG"], "RISKY": PAPER["SRG"]})
    assert both.name("SRG") is None and "SRG" in both.unlike


def test_claims_and_gains_hold_no_verdict_on_a_redefined_ft_or_srg():
    assert {"c4-SRG-first-high", "c4-DEV1-first-high", "rule-kth-utility-FT"} <= set(_keys(PAPER))
    assert _keys(REDEFINED) == ["rule-first-revenue"]  # the only claim that reads no consumer strategy by name
    # only DEV1 kept: its claim (4), none on SRG
    keys = _keys({"FT": PAPER["FT"], "SRG": REDEFINED["SRG"], "DEV1": PAPER["DEV1"]})
    assert "c4-DEV1-first-high" in keys and not any("SRG" in k for k in keys)
    _, cohorts = _tables(REDEFINED)
    assert claims.shading_gains(cohorts, PROVIDERS, REDEFINED).empty
    _, cohorts = _tables(PAPER)
    gains = claims.shading_gains(cohorts, PROVIDERS, PAPER)
    assert set(gains["consumer"]) == {"SRG", "DEV1"}
    # the beta-grid gains are over truthful bidding too: none against a shading "FT"
    grid = {"FT": REDEFINED["FT"], "g0.3x0.6": {"groups": [[0.7, 0.1], [0.3, 0.6]]}}
    _, cohorts = _tables(grid)
    assert claims.grid_gains(cohorts, grid, list(PROVIDERS)).empty
    assert len(claims.grid_gains(cohorts, {**grid, "FT": PAPER["FT"]}, list(PROVIDERS))) == 2


def test_the_papers_srg_under_another_name_is_measured_as_srg():
    renamed = {"FT": PAPER["FT"], "RISKY": PAPER["SRG"]}
    metrics, cohorts = _tables(renamed)
    rows = {r["key"]: r for r in claims.evaluate(metrics, BINS, cohorts, renamed, PROVIDERS)}
    named = {"FT": PAPER["FT"], "SRG": PAPER["SRG"]}
    m, c = _tables(named)
    want = {r["key"]: r for r in claims.evaluate(m, BINS, c, named, PROVIDERS)}
    assert rows["c4-SRG-first-high"]["mean"] == want["c4-SRG-first-high"]["mean"]
    assert rows["c4-SRG-first-high"]["verdict"] == "supported"


def test_the_gains_against_market_size_measure_only_the_papers_strategies(tmp_path):
    """The derived studies of ``[gains]`` play the study's strategies named FT, SRG and DEV1: a way is measured
    only where they are the paper's."""
    body = STUDY.format(name="g").replace('consumers = ["FT", "SRG"]', 'consumers = ["FT", "SRG", "DEV1"]')
    assert measured_ways(load_study(write_study(tmp_path, body, "g.toml"))) == {"SRG": 90, "DEV1": 99}
    own_srg = body + "[strategies.consumer.SRG]\ngroups = [[0.1, 0.9], [0.9, 0.0]]\n"
    assert measured_ways(load_study(write_study(tmp_path, own_srg, "s.toml"))) == {"DEV1": 99}
    own_ft = body + "[strategies.consumer.FT]\ngroups = [[1.0, 0.5]]\n"
    assert measured_ways(load_study(write_study(tmp_path, own_ft, "f.toml"))) == {}


STUDY = """
name = "{name}"
[paper]
source = "a test"
[workload]
source = "synthetic"
nodes = 4
[workload.synthetic]
jobs = 300
load = 1.1
seed = 3
[strategies]
providers = ["hb-first", "hb-kth", "nphb-kth"]
consumers = ["FT", "SRG"]
[replications]
count = 3
"""


@pytest.mark.slow
def test_a_report_leaves_out_the_papers_analyses_of_a_redefined_ft_and_srg(tmp_path):
    """The hunt's study: its report has no shading-gain section, no paper game and no paper figures, says why in
    one sentence per strategy, and its ``data/claims.csv`` holds no verdict on FT or SRG; the same study with the
    catalogue's FT and SRG gets all of them."""
    own = (
        STUDY.format(name="redef")
        + "[strategies.consumer.FT]\ngroups = [[1.0, 0.5]]\n"
        + "[strategies.consumer.SRG]\ngroups = [[0.1, 0.9], [0.9, 0.0]]\n"
    )
    reports = {}
    for name, body in (("redef", own), ("paper", STUDY.format(name="paper"))):
        run_study(write_study(tmp_path, body, f"{name}.toml"), n_jobs=1)
        folder = tmp_path / "studies" / "reports" / name
        reports[name] = (
            (folder / "report.md").read_text(),
            pd.read_csv(folder / "data" / "claims.csv"),
            {p.name for p in folder.glob("*.png")},
        )
    text, csv, figs = reports["redef"]
    assert "this study's FT is not the paper's FT (groups [[1.0, 0.5]], not truthful bidding" in text
    assert "this study's SRG is not the paper's SRG (groups [[0.1, 0.9], [0.9, 0.0]]" in text
    assert "Does shading pay?" not in text and "risk-aggressive 10% (SRG)" not in text
    assert "## The paper's game" not in text and not any("srg-vs-ft" in f for f in figs)
    assert list(csv["key"]) == ["rule-first-revenue"]
    assert "No claim (1)-(4) of the paper is measured on this study" in text
    text, csv, figs = reports["paper"]
    assert "The paper's strategies." not in text
    assert "Does shading pay?" in text and "risk-aggressive 10% (SRG)" in text and "## The paper's game" in text
    assert {"c1", "c2", "c4-SRG-first-high", "rule-kth-utility-FT"} <= set(csv["key"])
    assert "fig-bsd-srg-vs-ft.png" in figs
