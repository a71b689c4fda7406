"""Small fixes: empty workloads, worker and resample counts on the CLI, Game defaults."""

import subprocess
import sys

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games import Game
from gamemarket.workloads import read_swf


@pytest.mark.slow
@pytest.mark.parametrize("text", ["", "; only comments\n; here\n", "1 0 0 -1 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n"])
def test_an_swf_without_jobs_is_an_error(tmp_path, text):
    p = tmp_path / "empty.swf"
    p.write_text(text)
    with pytest.raises(InputError, match=r"empty.swf: no job is left to simulate"):
        read_swf(p)
    r = subprocess.run([sys.executable, "-m", "gamemarket", "workload", "info", str(p)], capture_output=True, text=True)
    assert r.returncode == 2 and "no job is left" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "args,match",
    [
        (["study", "run", "x.toml", "--n-jobs", "0"], "argument --n-jobs: expected a number of worker processes fr"),
        (["study", "run", "x.toml", "--n-jobs", "-3"], "argument --n-jobs"),
        (
            ["game", "solve", "x.nfg", "--resamples", "0"],
            "argument --resamples: expected a number of bootstrap resamples >= 100",
        ),
        (["game", "export", "x.toml", "--resamples", "-1"], "argument --resamples"),
    ],
)
@pytest.mark.slow
def test_cli_counts_are_checked(args, match):
    r = subprocess.run([sys.executable, "-m", "gamemarket", *args], capture_output=True, text=True)
    assert r.returncode == 2 and match in r.stderr and "Traceback" not in r.stderr


def test_game_default_labels_and_nashpy():
    g = Game(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert g.rows == ["r0", "r1"] and g.cols == ["c0", "c1"]
    eqs = list(g.to_nashpy().support_enumeration())
    assert len(eqs) == 3  # two pure, one mixed
