"""``gamemarket price solve``'s steps one by one: ``--out`` checked before the solve, the problem's source,
and the result written (.npz and its trace) and printed."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from gamemarket.cli import main
from gamemarket.pricing import synthetic


def test_out_naming_a_folder_is_refused_before_the_solve(tmp_path, capsys):
    (tmp_path / "r.npz").mkdir()
    assert main(["price", "solve", "--n", "20", "--m", "2", "--out", str(tmp_path / "r.npz"), "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert "price discovery" not in out  # refused before the solve
    assert "r.npz" in err and "is a folder; expected a .npz file name" in err


def test_a_saved_problem_refuses_every_option_that_it_fixes(tmp_path, capsys):
    path = tmp_path / "p.npz"
    synthetic(10, 2, "log", seed=1).save(path)
    assert main(["price", "solve", str(path), "--n", "5", "--utility", "linear"]) == 2
    assert "--n, --utility would have no effect; leave them out" in capsys.readouterr().err


def test_out_holds_the_allocation_and_the_trace_and_json_the_summary(tmp_path, capsys):
    out = tmp_path / "r.npz"
    rc = main(["price", "solve", "--n", "40", "--m", "3", "--seed", "2", "--out", str(out), "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    assert rc == (0 if summary["converged"] else 3)
    with np.load(out) as f:
        assert set(f.files) == {
            "prices",
            "j1",
            "x1",
            "j2",
            "x2",
            "extra_job",
            "extra_resource",
            "extra_share",
            "throughput",
            "converged",
            "gap",
            "objective",
            "dual",
        }
        assert f["prices"].tolist() == summary["prices"] and f["j1"].shape == (40,)
        assert bool(f["converged"]) == summary["converged"] and float(f["gap"]) == summary["gap"]


def test_a_run_stopped_short_of_its_gap_writes_a_file_that_says_so(tmp_path, capsys):
    out = tmp_path / "nc.npz"
    argv = ["price", "solve", "--n", "2000", "--m", "4", "--max-iter", "1", "--method", "lbfgs", "--out", str(out)]
    assert main([*argv, "--quiet", "--format", "json"]) == 3
    summary = json.loads(capsys.readouterr().out)
    with np.load(out) as f:
        assert not bool(f["converged"]) and float(f["gap"]) == summary["gap"] > 0
    trace = pd.read_csv(out.with_suffix(".trace.csv"))
    assert len(trace) == summary["evaluations"]
    assert list(trace.columns) == ["evaluation", "iteration", "dual", "primal", "gap", "max_violation", "seconds"]
