"""Regression rows of held-out hunt 15 and of the named limits the last session left (issue #43)."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

from gamemarket.cli import main


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="PyTorch is installed here")
def test_torch_backend_without_pytorch_prints_nothing_but_the_error(capsys):
    """Hunt 14's worth-a-look: the solve's header line was printed before the backend was found missing."""
    assert main(["price", "solve", "--n", "10", "--m", "2", "--backend", "torch"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "the torch backend needs PyTorch: pip install 'gamemarket[torch]'" in err


def _claims(folder, study, force=False):
    from gamemarket.io.files import OutputFolder

    owner = __import__("os").path.relpath(study, folder)
    OutputFolder(folder, owner=owner, force=force).finish()


def test_a_results_folder_copied_away_from_its_study_is_still_its_own(tmp_path):
    """Hunt 13's worth-a-look: ``report --results COPY`` needed ``--force`` (the owner is the study file relative
    to the folder, so a copy elsewhere named another owner); another study's folder stays refused."""
    import shutil

    from gamemarket.errors import InputError
    from gamemarket.io.files import MANIFEST

    a = tmp_path / "a"
    a.mkdir()
    study = a / "tiny.toml"
    study.write_text('name = "tiny"\n')
    _claims(a / "results" / "tiny", study)
    # the folder copied away (its recorded owner, ../../tiny.toml from there, leads to no file): still the study's
    copy = tmp_path / "elsewhere" / "deeper" / "copy"
    shutil.copytree(a / "results" / "tiny", copy)
    _claims(copy, study)
    assert __import__("os").path.relpath(study, copy) in (copy / MANIFEST).read_text()
    # the study file copied beside it, byte for byte: the same study
    twin_dir = tmp_path / "b"
    shutil.copytree(a, twin_dir)
    _claims(twin_dir / "results" / "tiny", study)  # its recorded owner, b/tiny.toml, holds the same bytes
    # an edited copy is another study: once it holds its folder, the first study is refused there, naming it
    (twin_dir / "tiny.toml").write_text('name = "tiny"\ndescription = "a variant"\n')
    with pytest.raises(InputError) as refused:
        _claims(twin_dir / "results" / "tiny", twin_dir / "tiny.toml")
    # both named as paths from the working folder (the manifest's are relative to the folder, and read as if relative
    # to the working folder: hunt 15a, 18c-W2)
    assert f"belongs to {study}, not {twin_dir / 'tiny.toml'};" in str(refused.value)
    _claims(twin_dir / "results" / "tiny", twin_dir / "tiny.toml", force=True)
    with pytest.raises(InputError) as refused:
        _claims(twin_dir / "results" / "tiny", study)
    assert f"belongs to {twin_dir / 'tiny.toml'}, not {study};" in str(refused.value)


def test_a_report_folder_is_held_by_one_writer_at_a_time(tmp_path):
    """H15a-8: two studies writing one report folder at once (``--force``) were not serialized (the lock is the
    results folder's): the second read the manifest before the first replaced it, and the first's figure stayed in
    the folder, outside every manifest, for good. The folder is now held from before its manifest is read to the
    last file; a claim of another process meanwhile is refused naming it, claims of one process nest."""
    import subprocess
    import sys

    from gamemarket.io.files import MANIFEST, OutputFolder

    out = tmp_path / "shared"
    claim = (
        "import sys\nfrom gamemarket.io.files import OutputFolder\nfrom gamemarket.errors import InputError\n"
        "try:\n    f = OutputFolder(sys.argv[1], owner='../b.toml', force=True, exclusive=True)\n"
        "    f.file('b.md').write_text('b')\n    f.finish()\nexcept InputError as e:\n    print(e)\n    sys.exit(2)\n"
    )

    def other():
        return subprocess.run([sys.executable, "-c", claim, str(out)], capture_output=True, text=True)

    first = OutputFolder(out, owner="../a.toml", exclusive=True)
    first.file("fig-a.png").write_bytes(b"png")
    inner = OutputFolder(out, owner="../a.toml", exclusive=True)  # the same process claims it again: nested
    inner.finish(clean=False)
    r = other()
    assert r.returncode == 2 and "is being written by another command" in r.stdout and str(out) in r.stdout
    assert f"(pid {os.getpid()}: " in r.stdout  # the holder named (hunt 16d: "another study's run", no process)
    first.finish()
    r = other()  # the first writer done: the second takes the folder, and removes what the first's manifest listed
    assert r.returncode == 0, r.stdout
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "b.md"]
    # a folder the claim makes is held too, and a refused claim holds nothing
    fresh = OutputFolder(tmp_path / "new", owner="../a.toml", exclusive=True)
    refused = __import__("gamemarket.errors").errors.InputError
    gone = re.escape(f"belongs to {tmp_path / 'a.toml'} (a study file no longer there: renamed or moved?), not")
    with pytest.raises(refused, match=gone):
        OutputFolder(tmp_path / "new", owner="../c.toml", exclusive=True)
    fresh.abandon()
    assert not (tmp_path / "new").exists()


def test_bayes_opt_says_nothing_on_the_commands_output(capsys):
    """Hunt 15a's worth-a-look: bayes_opt printed a red "Data point ... is not unique" line to stdout for each
    repeated point the design search registers (on purpose: a point evaluated twice is two estimates)."""
    pytest.importorskip("bayes_opt")
    from bayes_opt import BayesianOptimization

    from gamemarket.search import design

    opt = BayesianOptimization(
        f=None, pbounds={"r": (0.0, 1.0)}, random_state=0, verbose=0, allow_duplicate_points=True
    )
    design._register(opt, {"r": 0.5}, 1.0)
    design._register(opt, {"r": 0.5}, 2.0)
    assert len(opt.space) == 2
    assert capsys.readouterr().out == ""


def test_the_console_names_every_mechanism_that_ties_as_the_choice():
    """Hunt 15a (H15a-4's sibling): ``study run`` printed the first of two mechanisms whose worst revenues are
    equal as "the provider's choice"; it names both, as the report does."""
    from types import SimpleNamespace as R

    from gamemarket.reports import console

    tie = [R(mechanism="hb-first", worst_revenue=713966.0), R(mechanism="hb-kth", worst_revenue=713966.0)]
    assert console._leaders(tie) == "hb-first and hb-kth (tie)"
    three = tie + [R(mechanism="fcfs", worst_revenue=713966.0 * (1 + 1e-12))]
    assert console._leaders(three) == "hb-first, hb-kth and fcfs (tie)"
    assert console._leaders([*tie[:1], R(mechanism="fcfs", worst_revenue=1.0)]) == "hb-first"


def test_a_bimatrix_reports_ranking_shares_a_rank_between_equal_payoffs():
    """Hunt 15a's sibling of H15a-4 in the bimatrix report: two strategies of the same payoff were ranked 1 and 2,
    the second "0 below the best"."""
    import numpy as np

    from gamemarket.reports import report

    md = report._ranked_table("provider", ["a", "b", "c"], np.array([5.0, 7.0, 7.0]), np.zeros(3))
    rows = [line.split(" | ")[:2] for line in md.splitlines()[2:]]
    assert rows == [["| 1 (tie)", "b"], ["| 1 (tie)", "c"], ["| 3", "a"]]


def _gamemarket(args, cwd, **env):
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = shutil.which("gamemarket", path=str(Path(sys.executable).parent))
    return subprocess.run(
        [exe, *args], cwd=cwd, env={**os.environ, "MPLBACKEND": "Agg", **env}, capture_output=True, timeout=600
    )


def test_a_closed_standard_output_is_named_not_a_traceback(tmp_path):
    """H15b-4: ``gamemarket simulate ... >&-`` ended in "'NoneType' object has no attribute 'flush'", exit 1."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = shutil.which("gamemarket", path=str(Path(sys.executable).parent))
    r = subprocess.run(
        [exe, "simulate", "--synthetic-jobs", "60", "--nodes", "2"], cwd=tmp_path, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1), timeout=300,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert (
        r.stderr.strip() == "gamemarket: error: standard output: it is closed; the command's output has nowhere to go"
    )


def test_a_study_in_an_ascii_locale_writes_its_report_in_utf8(tmp_path):
    """H15b-3: under ``LC_ALL=C PYTHONUTF8=0`` a description with an accent ended ``study run`` in a
    UnicodeEncodeError after its runs were stored, and no report was written (reports were written in the locale's
    encoding, study files read as UTF-8)."""
    study = tmp_path / "tiny.toml"
    study.write_text(
        'name = "tiny"\ndescription = "Étude à deux nœuds"\n[workload]\nsource = "synthetic"\nnodes = 2\n'
        '[workload.synthetic]\njobs = 60\n[strategies]\nproviders = ["hb-kth", "hb-first"]\nconsumers = ["FT"]\n'
        "[replications]\ncount = 1\n",
        encoding="utf-8",
    )
    r = _gamemarket(["study", "run", "tiny.toml", "--no-progress"], tmp_path, LC_ALL="C", LANG="C", PYTHONUTF8="0")
    assert r.returncode == 0, r.stderr.decode("ascii", "replace")[-2000:]
    assert b"\\xc9tude" in r.stdout or b"Etude" not in r.stdout  # what the console cannot hold, escaped
    report = (tmp_path / "reports" / "tiny" / "report.md").read_text(encoding="utf-8")
    assert "Étude à deux nœuds" in report
    from gamemarket.studies import load_study

    copy = tmp_path / "copy.toml"  # StudySpec.to_toml too: UTF-8 whatever the locale
    r = _gamemarket(["study", "status", "tiny.toml"], tmp_path, LC_ALL="C", LANG="C", PYTHONUTF8="0")
    assert r.returncode == 0
    load_study(study).to_toml(copy)
    assert "Étude à deux nœuds" in copy.read_text(encoding="utf-8")


def test_a_point_that_is_not_drawn_covers_no_label():
    """The fuzzer's run L: ``workload compare ... --figure`` warned of 864 overlaps of an axis label with markers
    "at (nan, nan) px": points at NaN (a zero on a log axis) are not drawn, and cover nothing."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from gamemarket.reports.drawing import overlaps

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_xscale("log")
    ax.plot([0.0, 0.0, np.nan], [1.0, 2.0, 3.0], "o")  # none of them drawn
    ax.scatter([np.nan], [1.0])
    ax.set_xlabel("run time (s)")
    assert overlaps(fig) == []
    plt.close(fig)
