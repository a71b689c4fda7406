"""A discussion quotes computed numbers only; games flag what a reader must know before trusting them."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamemarket.analysis.study import game_flags
from gamemarket.errors import InputError
from gamemarket.games import Game, solve
from gamemarket.reports import discussion
from gamemarket.studies import load_study
from gamemarket.studies.spec import fill_notes, note_fields, typed_numbers
from study_helpers import SMALL, write_study

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "text,typed",
    [
        ("gain {claim.c1.ci} under g0.5x0.6, DEV1, LPC-EGEE-2004-1.2-cln and hb-kth", []),
        ("Fig. 3, Figs. 5-7, Table 1, claims (1)-(3) and (4), Eq. 2", []),
        ("a gain of -26,240 per job", ["26,240"]),
        ("on 105 nodes", ["105"]),
        ("never for the paper's beta of 0.9", ["0.9"]),
        ("the aggressive 10% of the jobs", ["10"]),
        ("(1, 2)", ["1", "2"]),
    ],
)
def test_typed_numbers_are_found_and_names_are_not(text, typed):
    assert typed_numbers(text) == typed


@pytest.mark.parametrize("path", sorted((ROOT / "studies").glob("*.toml")), ids=lambda p: p.name)
def test_no_study_discussion_types_a_number(path, recwarn):
    spec = load_study(path)  # loading refuses a typed number; this says which study
    assert typed_numbers(spec.notes) == []


def test_a_study_with_a_typed_number_is_refused(tmp_path):
    p = write_study(tmp_path, 'notes = "shading never pays for beta 0.9"\n' + SMALL)
    with pytest.raises(InputError, match=r"s.toml: 'notes' quotes the number\(s\) \['0.9'\] as typed text"):
        load_study(p)


def test_render_fills_fields_and_names_an_unknown_one():
    values = {"claim.c1.ci": "10.4 [9.47, 11.4]", "claim.c1.verdict": "supported"}
    text = "Claim (1) is {claim.c1.verdict}:\n{claim.c1.ci}.\n\n- one\n  item\n- two"
    assert (
        discussion.render(text, values, "x.toml") == "Claim (1) is supported: 10.4 [9.47, 11.4].\n\n- one item\n- two"
    )
    with pytest.raises(InputError, match=r"x.toml: 'notes' uses unknown field\(s\) \['claim.c9.ci'\]"):
        discussion.render("{claim.c9.ci}", values, "x.toml")


def test_claim_facts_are_the_claims_numbers():
    rows = [
        {
            "key": "c1",
            "claim": "(1) a",
            "mean": 10.42,
            "ci_low": 9.47,
            "ci_high": 11.37,
            "n_seeds": 10,
            "verdict": "supported",
        },
        {
            "key": "c2",
            "claim": "(2) b",
            "mean": -26240.4,
            "ci_low": -28152.0,
            "ci_high": -24328.0,
            "n_seeds": 10,
            "verdict": "contradicted",
        },
        {
            "key": "r",
            "claim": "(4) rule",
            "mean": 5.0,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "n_seeds": 3,
            "verdict": "follows from the rules",
        },
    ]
    f = discussion.claim_facts(rows)
    assert f["claim.c1.ci"] == "10.4 [9.47, 11.4]" and f["claim.c2.mean"] == "-26,240"
    assert f["claim.r.ci"] == "5 (no interval)"
    assert f["claims.tested"] == "2" and f["claims.supported"] == "1" and f["claims.contradicted.list"] == "(2) b"


def _game(B, cols):
    A = np.zeros_like(B)
    return Game(
        A, B, ["hb-first"], cols, title="t", meta={"provider_payoff": "revenue", "consumer_payoff": "mean_utility"}
    )


CONSUMERS = {
    "FT": {"groups": [[1.0, 0.0]]},
    "SRG": {"groups": [[0.9, 0.1], [0.1, 0.9]]},
    **{f"g{f:g}x{b:g}": {"groups": [[1 - f, 0.1], [f, b]]} for f in (0.1, 0.3, 0.5) for b in (0.3, 0.6, 0.9)},
}


def test_an_equilibrium_on_the_grid_edge_is_flagged_and_an_inner_one_is_not():
    cols = [c for c in CONSUMERS if c.startswith("g")]
    for best, edge in (
        ("g0.5x0.6", "the largest aggressive fraction (0.5)"),
        ("g0.3x0.9", "the largest beta (0.9)"),
        ("g0.3x0.6", None),
    ):
        B = np.array([[1.0 if c == best else 0.0 for c in cols]])
        g = _game(B, cols)
        flags = game_flags(g, solve(g), CONSUMERS)
        if edge is None:
            assert flags == []
        else:
            assert len(flags) == 1 and best in flags[0] and edge in flags[0] and "extend the grid" in flags[0]


def test_group_payoffs_of_groups_of_changing_size_are_flagged():
    cols = ["SRG", "g0.5x0.9"]
    g = Game(
        np.zeros((1, 2)),
        np.array([[1.0, 0.0]]),
        ["hb-first"],
        cols,
        title="t",
        meta={"provider_payoff": "revenue", "consumer_payoff": "mean_utility_aggressive"},
    )
    flags = game_flags(g, solve(g), CONSUMERS)
    assert any("not comparable across columns: the aggressive group is 10% to 50% of the jobs" in f for f in flags)
    g.meta["consumer_payoff"] = "mean_utility"
    assert not any("not comparable" in f for f in game_flags(g, solve(g), CONSUMERS))


@pytest.mark.slow
def test_report_discussion_quotes_the_computed_claims(tmp_path):
    """End to end: the discussion's fields are filled from the same analysis that writes claims.csv."""
    from gamemarket.cli import main

    notes = (
        'notes = """\nClaim (1): {claim.c1.ci}, {claim.c1.verdict}. Claim (4): {claim.c4-SRG.verdict}; high bids '
        'under first price {claim.c4-SRG-first-high.ci}. Paper game: {paper-game.all-jobs.equilibria}.\n"""\n'
    )
    p = write_study(tmp_path, notes + SMALL)
    assert main(["study", "run", str(p), "--n-jobs", "1", "--no-progress"]) == 0
    report = p.parent / "reports" / "small"  # the default: beside the study file
    md = (report / "report.md").read_text()
    claims = pd.read_csv(report / "data" / "claims.csv").set_index("key")
    c1 = claims.loc["c1"]
    assert f"Claim (1): {discussion.fmt_ci(c1['mean'], c1['ci_low'], c1['ci_high'])}, {c1['verdict']}." in md
    hi = claims.loc["c4-SRG-first-high"]
    assert (
        f"{claims.loc['c4-SRG', 'verdict']}; high bids under first price "
        f"{discussion.fmt_ci(hi['mean'], hi['ci_low'], hi['ci_high'])}." in md
    )
    # every field the discussion can quote passes the checks a study file's notes meet when read (the fixed keys
    # and last parts of studies.schema.NOTE_KEYS / NOTE_ATTRS do not drift from what the analysis makes)
    from gamemarket.analysis.study import analyze
    from gamemarket.studies import load_study
    from gamemarket.studies.schema import note_field_problem

    fields = discussion.facts(analyze(load_study(p), for_report=True))
    assert len(fields) > 20 and [(f, note_field_problem(f)) for f in fields if note_field_problem(f)] == []
    assert "## The paper's game: HB first / k-th price x FT / SRG" in md
    assert "Paper game: hb-" in md and "{" not in md.split("## Discussion")[1].split("##")[0]
    gains = pd.read_csv(report / "data" / "shading-gains-by-bid-class.csv")
    assert set(gains["bid_class"]) == {"low", "middle", "high", "all"}


def test_a_grid_cell_repeating_a_named_mix_is_merged_silently(tmp_path, recwarn):
    spec = load_study(write_study(tmp_path, SMALL.replace('"g0.3x0.9"]', '"grid:*"]')))
    assert spec.aliases == {"g0.1x0.9": "SRG"} and "g0.1x0.9" not in [c.name for c in spec.consumers]
    assert not [w for w in recwarn if "same beta mix" in str(w.message)]


def test_a_doubled_brace_is_a_literal_one():
    # hunt 19c-W4: Markdown and LaTeX braces could not be written
    values = {"claim.c1.ci": "10.4 [9.47, 11.4]"}
    text = r"costs in \(\mathbb{{R}}\), a set {{x}}, {{{claim.c1.ci}}} and {claim.c1.ci}"
    assert discussion.render(
        text, values, "x.toml"
    ) == r"costs in \(\mathbb{R}\), a set {x}, {10.4 [9.47, 11.4]} and " + ("10.4 [9.47, 11.4]")
    assert typed_numbers("a set {{x}} of {claim.c1.ci}") == [] and typed_numbers("{{12}}") == ["12"]


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60))
def test_any_text_with_its_braces_doubled_is_itself(text):
    escaped = text.replace("{", "{{").replace("}", "}}")
    assert fill_notes(escaped, lambda f: pytest.fail(f"no field: {f}")) == text and note_fields(escaped) == []


def test_a_study_writes_latex_with_doubled_braces_and_is_told_how(tmp_path):
    p = write_study(tmp_path, 'notes = "costs in \\\\(\\\\mathbb{{R}}\\\\), quoted {claim.c1.ci}"\n' + SMALL)
    assert note_fields(load_study(p).notes) == ["claim.c1.ci"]
    p = write_study(tmp_path, 'notes = "costs in \\\\(\\\\mathbb{R}\\\\)"\n' + SMALL)
    with pytest.raises(InputError, match=r"'notes' field \{R\}: unknown kind 'R'.*a literal brace is written twice"):
        load_study(p)
