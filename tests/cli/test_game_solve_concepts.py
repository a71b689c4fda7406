"""``gamemarket game solve --concept qre|alpharank`` (#46 items 1 and 2): the logit QRE's branch and limit, the
alpha-rank ranking and its sensitivity, as tables and JSON; bad values exit 2 naming them."""

import json

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.games.equilibria import regret
from gamemarket.games.io import read_nfg

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
        (["--concept", "alpharank", "--alpha", "nan"], "--alpha: expected a finite number > 0, got nan"),
        (["--concept", "alpharank", "--alpha", "inf"], "--alpha: expected a finite number > 0, got inf"),
        (["--concept", "alpharank", "--alpha", "-1"], "--alpha: expected a finite number > 0, got -1"),
        (["--concept", "qre", "--lambda-range", "10", "1"], "--lambda-range: expected LOW < HIGH, both > 0; got 10 1"),
        (["--concept", "qre", "--lambda-range", "2", "2"], "--lambda-range: expected LOW < HIGH, both > 0; got 2 2"),
        (["--concept", "qre", "--lambda-range", "0", "1"], "--lambda-range: expected a finite number > 0, got 0"),
        (["--concept", "qre", "--lambda-range", "1", "inf"], "--lambda-range: expected a finite number > 0, got inf"),
        (["--concept", "qre", "--alpha", "3"], "--alpha applies to --concept alpharank, not --concept qre"),
        (["--lambda-range", "1", "2"], "--lambda-range applies to --concept qre, not --concept nash"),
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
