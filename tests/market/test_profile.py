"""``gamemarket.simulate_profile``: the library call behind ``gamemarket simulate`` gives the command's files and
numbers; the command keeps its errors (exit 2, the same messages)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gamemarket
from gamemarket.cli import main
from gamemarket.errors import InputError

SMALL = {"synthetic_jobs": 200, "nodes": 6, "mix": "SRG", "seed": 3, "payment": "first"}


def _cli(capsys, *args) -> dict:
    assert main(["simulate", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _without_seconds(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "seconds"}


def test_the_call_gives_the_commands_summary_and_files(tmp_path, capsys):
    run = gamemarket.simulate_profile(**SMALL, out=tmp_path / "lib.csv", jobs_out=tmp_path / "lib-table.csv")
    printed = _cli(
        capsys,
        *("--synthetic-jobs", "200", "--nodes", "6", "--mix", "SRG", "--seed", "3", "--payment", "first"),
        *("--out", str(tmp_path / "cli.csv"), "--jobs-out", str(tmp_path / "cli-table.csv")),
    )
    assert _without_seconds(json.loads(json.dumps(run.summary))) == _without_seconds(printed)
    assert (tmp_path / "lib.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "lib-table.csv").read_bytes() == (tmp_path / "cli-table.csv").read_bytes()
    # the tables a notebook reads
    assert len(run.outcomes) == 200 and run.summary_table().set_index("quantity")["value"]["jobs"] == 200
    assert "<table" in run._repr_html_() and run.notes == []


def test_a_job_table_runs_as_the_command_runs_it(tmp_path, capsys):
    table = tmp_path / "table.csv"
    gamemarket.simulate_profile(**SMALL, jobs_out=table)
    run = gamemarket.simulate_profile(job_table=table, nodes=6, out=tmp_path / "lib.csv")
    printed = _cli(capsys, "--job-table", str(table), "--nodes", "6", "--out", str(tmp_path / "cli.csv"))
    assert _without_seconds(run.summary) == _without_seconds(printed)
    assert run.summary["mix"] == "from job table" and run.jobs is None  # streamed to the file
    assert (tmp_path / "lib.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    in_memory = gamemarket.simulate_profile(job_table=table, nodes=6)  # no pandas needed for the run
    assert _without_seconds(in_memory.summary) == _without_seconds(run.summary)
    assert list(in_memory.outcomes["runtime_group"].cat.categories) == ["SHORT", "MEDIUM", "LONG"]


@pytest.mark.parametrize(
    "kwargs,argv,msg",
    [
        ({"job_table": "t.csv"}, ["--job-table", "{d}/t.csv"], "--job-table needs --nodes"),
        (
            {"job_table": "t.csv", "nodes": 4, "mix": "SRG"},
            ["--job-table", "{d}/t.csv", "--nodes", "4", "--mix", "SRG"],
            "--mix would have no effect; leave it out",
        ),
        (
            {"workload": "x.swf", "synthetic_jobs": 10},
            ["--workload", "x.swf", "--synthetic-jobs", "10"],
            "--synthetic-jobs and --load apply to 'synthetic' or a model file, not to a trace",
        ),
        ({"scheduler": "nope"}, ["--scheduler", "nope"], "unknown scheduler 'nope'"),
    ],
)
def test_bad_input_is_the_same_error_from_the_call_and_the_command(tmp_path, capsys, kwargs, argv, msg):
    kwargs = {k: (str(tmp_path / v) if k == "job_table" else v) for k, v in kwargs.items()}
    with pytest.raises(InputError, match=msg):
        gamemarket.simulate_profile(**kwargs)
    assert main(["simulate", *(a.format(d=tmp_path) for a in argv)]) == 2
    assert msg in capsys.readouterr().err


def test_import_gamemarket_stays_light():
    import subprocess
    import sys

    code = "import sys, gamemarket; print('gamemarket.market' in sys.modules, callable(gamemarket.simulate_profile))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gamemarket.nope  # noqa: B018


def test_a_blend_profile_pays_the_blend_of_first_and_kth_price():
    from gamemarket.market.profile import simulate_profile

    kw = {"synthetic_jobs": 400, "seed": 3, "mix": "SRG"}
    first = simulate_profile(payment="first", **kw).summary["revenue"]
    kth = simulate_profile(payment="kth", **kw).summary["revenue"]
    blend = simulate_profile(payment="blend", blend=0.25, **kw).summary
    assert blend["blend"] == 0.25
    assert blend["revenue"] == pytest.approx(0.25 * first + 0.75 * kth, rel=1e-12)


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("payment", ["first", "kth"])
def test_a_trace_read_in_chunks_gives_the_summary_of_the_whole_table(tmp_path, capsys, gz, payment):
    """``outcome=False`` (the command's way: the trace read as narrow columns in chunks, the summary streamed)
    and the DataFrame path with the per-job outcome kept: the same summary, to the last bit, as the command
    prints it."""
    import gzip

    rng = np.random.default_rng(5)
    lines = ["; MaxProcs: 16"]
    for i in range(400):
        procs = int(rng.integers(1, 6))
        fields = [i + 1, i * 7, -1, int(rng.integers(1, 900)), procs, -1, -1, procs, int(rng.integers(-1, 2000))]
        lines.append(" ".join(map(str, fields + [-1, 1, int(rng.integers(1, 9)), -1, -1, 1, -1, -1, -1])))
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / ("trace.swf.gz" if gz else "trace.swf")
    path.write_bytes(gzip.compress(data) if gz else data)
    kw = {"workload": str(path), "mix": "SRG", "seed": 4, "payment": payment, "reduction": 0.25}
    kept = gamemarket.simulate_profile(**kw)
    streamed = gamemarket.simulate_profile(**kw, outcome=False, out=tmp_path / "o.parquet")
    assert kept.outcomes is not None and streamed.jobs is None
    assert _without_seconds(kept.summary) == _without_seconds(streamed.summary)
    printed = _cli(
        capsys, "--workload", str(path), "--mix", "SRG", "--seed", "4", "--payment", payment, "--reduction", "0.25"
    )
    assert _without_seconds(json.loads(json.dumps(kept.summary))) == _without_seconds(printed)
