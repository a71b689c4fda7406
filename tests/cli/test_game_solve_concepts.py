"""``gamemarket game solve --concept qre|alpharank`` (#46 items 1 and 2): the logit QRE's branch and limit, the
alpha-rank ranking and its sensitivity, as tables and JSON; bad values exit 2 naming them."""

import json

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.games.equilibria import regret
from gamemarket.games.io import read_nfg
from gamemarket.games.qre import fit_lambda, logit_branch

NFG = "reports/default/data/game-all-jobs.nfg"
EGTA = "reports/population-default/data/game-provider-consumers.json"


def test_qre_json_limit_is_an_equilibrium(capsys):
    assert main(["game", "solve", NFG, "--concept", "qre", "--lambda-range", "1", "100", "--format", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    g = read_nfg(NFG)
    assert [p["lambda"] for p in rec["branch"]][0] == pytest.approx(1.0)
    assert [p["lambda"] for p in rec["branch"]][-1] == pytest.approx(100.0)
    assert all(p["residual"] <= 1e-8 for p in rec["branch"])
    lim = rec["limit"]["mixture"]
    x = np.array([lim["provider"][s] for s in g.rows])
    y = np.array([lim["consumer"][s] for s in g.cols])
    assert rec["limit"]["verified"] and max(regret(g.A, g.B, x, y)) <= 1e-9


def test_qre_text(capsys):
    assert main(["game", "solve", EGTA, "--concept", "qre"]) == 0
    out = capsys.readouterr().out
    assert "logit QRE" in out and "limit (branch traced to lambda" in out and "a Nash equilibrium, verified" in out


def test_alpharank_json_and_text(capsys):
    assert main(["game", "solve", EGTA, "--concept", "alpharank", "--alpha", "10", "--format", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    scores = [r["score"] for r in rec["ranking"]]
    assert sum(scores) == pytest.approx(1.0) and scores == sorted(scores, reverse=True)
    assert [s["alpha"] for s in rec["sensitivity"]] == [0.1, 1.0, 10.0, 100.0, None]
    assert main(["game", "solve", NFG, "--concept", "alpharank", "--population", "20"]) == 0
    out = capsys.readouterr().out
    assert "alpha-rank, alpha 100" in out and "m 20" in out and "sensitivity" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--concept", "alpharank", "--alpha", "nan"],
            "--alpha: expected a selection intensity >= 1e-300 and <= 1e+11, got nan",
        ),
        (
            ["--concept", "alpharank", "--alpha", "inf"],
            "--alpha: expected a selection intensity >= 1e-300 and <= 1e+11, got inf",
        ),
        (
            ["--concept", "alpharank", "--alpha", "-1"],
            "--alpha: expected a selection intensity >= 1e-300 and <= 1e+11, got -1",
        ),
        (["--concept", "qre", "--lambda-range", "10", "1"], "--lambda-range: expected LOW < HIGH, both > 0; got 10 1"),
        (["--concept", "qre", "--lambda-range", "2", "2"], "--lambda-range: expected LOW < HIGH, both > 0; got 2 2"),
        (["--concept", "qre", "--lambda-range", "0", "1"], "--lambda-range: expected a finite number > 0, got 0"),
        (["--concept", "qre", "--lambda-range", "1", "inf"], "--lambda-range: expected a finite number > 0, got inf"),
        (["--concept", "qre", "--alpha", "3"], "--alpha applies to --concept alpharank, not --concept qre"),
        (["--lambda-range", "1", "2"], "--lambda-range applies to --concept qre, not --concept nash"),
        (["--observed", "FT=1"], "--observed applies to --concept qre, not --concept nash"),
        (["--concept", "qre", "--observed", "FT"], "--observed: expected ROLE:STRATEGY=COUNT, got 'FT'"),
        (["--concept", "qre", "--observed", "=3"], "--observed: expected ROLE:STRATEGY=COUNT, got '=3'"),
        (["--concept", "qre", "--observed", "consumer:XX=1"], "'consumer:XX' names no strategy of the game; expected"),
        (["--concept", "qre", "--observed", "provider:FT=1"], "'provider:FT' names no strategy of the game"),
        (["--concept", "qre", "--observed", "FT=-1"], "--observed: 'FT=-1': expected a count or share >= 0, got '-1'"),
        (["--concept", "qre", "--observed", "FT=nan"], "--observed: 'FT=nan': expected a count or share >= 0"),
        (["--concept", "qre", "--observed", "FT=lots"], "expected a count or share >= 0, got 'lots'"),
        (["--concept", "qre", "--observed", "FT=0"], "--observed: every count is 0; expected some play observed"),
        (
            ["--concept", "qre", "--observed", "SRG=10", "consumer:SRG=5"],  # one strategy, by two names: not summed
            "--observed: consumer:SRG is given twice ('SRG=10' and 'consumer:SRG=5'); give each strategy once",
        ),
        (
            ["--concept", "alpharank", "--methods", "pure"],
            "--methods applies to --concept nash, not --concept alpharank",
        ),
    ],
)
def test_bad_values_exit_2_naming_them(args, message, capsys):
    try:
        rc = main(["game", "solve", NFG, *args])
    except SystemExit as exc:  # (argparse's own error for a value its type refuses)
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_population_study_refused(capsys):
    assert main(["game", "solve", "studies/population-default.toml", "--concept", "alpharank"]) == 2
    assert "does not apply to a population study's search" in capsys.readouterr().err


def test_observed_play_fits_the_lambda_fit_lambda_finds(capsys):
    """``--observed`` gives the counts, by role and strategy or by a strategy's name alone, to ``fit_lambda`` on the
    same branch: the same lambda and mixture; the text prints the fit."""
    args = ["provider:hb-first=12", "nphb-first=3", "consumer:FT=30", "SRG=15"]
    assert main(["game", "solve", NFG, "--concept", "qre", "--observed", *args, "--format", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    g = read_nfg(NFG)
    counts = np.zeros(len(g.rows) + len(g.cols))
    counts[g.rows.index("hb-first")], counts[g.rows.index("nphb-first")] = 12, 3
    counts[len(g.rows) + g.cols.index("FT")], counts[len(g.rows) + g.cols.index("SRG")] = 30, 15
    lam, x, ll = fit_lambda(logit_branch(g), counts)
    fit = rec["fit"]
    assert fit["lambda"] == pytest.approx(lam, rel=1e-9) and fit["log_likelihood"] == pytest.approx(ll, rel=1e-9)
    assert [fit["mixture"]["provider"][s] for s in g.rows] == pytest.approx(x[: len(g.rows)], abs=1e-12)
    assert main(["game", "solve", NFG, "--concept", "qre", "--observed", *args]) == 0
    out = capsys.readouterr().out
    assert f"fitted to the observed play: lambda {lam:.4g}" in out and "fitted " in out
    assert main(["game", "solve", NFG, "--concept", "qre", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["fit"] is None


def test_an_equilibrium_payoff_below_the_arithmetics_precision_reads_0(tmp_path, capsys):
    # matching pennies: the mixed equilibrium's payoffs sum four terms of 0.25 to 3.08e-33, printed as such
    (tmp_path / "mp.nfg").write_text('NFG 1 R "mp" { "row" "col" } { 2 2 }\n1 -1 -1 1 -1 1 1 -1\n')
    assert main(["game", "solve", str(tmp_path / "mp.nfg")]) == 0
    row = [line.split() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("1  mixed")]
    assert row and row[0][12:14] == ["0", "0"], row  # the row and column payoffs
    assert main(["game", "solve", str(tmp_path / "mp.nfg"), "--format", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)  # JSON keeps every digit the solver computed
    assert 0 < abs(rec["payoffs"]["row"]) <= 1e-12
