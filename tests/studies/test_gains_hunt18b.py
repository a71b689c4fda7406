"""Hunt 18b, F3 and F4: the shading-gain experiment (``[gains]``) labels every number with the market size it was
computed at, and counts each seed once.

F3: a study whose workload is a market file (``[workload] file``, which fixes its jobs) ran ``[gains]``' sizes on the
file's market and reported byte-identical rows under 100 and 1,000 jobs. F4: a size listed twice pooled its seeds
twice (``seeds 6.0`` for 3 seeds: a narrower interval), and the ``seeds`` column was written as a float.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gamemarket.cli import main
from gamemarket.errors import SEED_MAX, InputError
from gamemarket.studies import load_study
from study_helpers import write_study

HETERO = """
name = "g"
[workload]
source = "hetero"
[workload.hetero]
jobs = 40
resources = 3
load = 2.0
[strategies]
providers = ["clearing"]
consumers = ["FT", "SRG", "DEV1"]
[replications]
count = 2
"""

ON_FILE = """
name = "g"
[workload]
source = "hetero"
file = "cl.npz"
[strategies]
providers = ["clearing", "posted"]
consumers = ["FT", "SRG", "DEV1"]
[replications]
count = 2
[gains]
jobs = [1000, 100]
seeds = [2, 2]
"""


def _market_file(path, jobs=50, resources=3):
    rng = np.random.default_rng(0)
    np.savez(path, A=rng.uniform(0.1, 1.0, (jobs, resources)), R=np.full(resources, 5.0))


def _err(capsys) -> str:
    return capsys.readouterr().err


def test_a_market_file_refuses_gains_when_the_study_is_read_naming_the_file_the_field_and_its_size(tmp_path, capsys):
    """The file fixes the market at its 50 jobs: ``[gains]``' sizes cannot be applied, so the study is refused
    before any run (before: every size ran the 50-job market and was reported under its own size)."""
    study = write_study(tmp_path, ON_FILE)
    _market_file(study.parent / "cl.npz", jobs=50)
    with pytest.raises(InputError) as exc:
        load_study(study)
    msg = str(exc.value)
    assert msg.startswith(f"{study}: [gains] field 'jobs' ([1000, 100]): ") and "\n" not in msg
    assert f"[workload] file = {study.parent / 'cl.npz'}" in msg
    assert "fixes the market's size at 50 jobs" in msg and "[workload.hetero]" in msg
    assert main(["study", "run", str(study), "--no-progress"]) == 2
    assert "fixes the market's size at 50 jobs" in _err(capsys)
    assert not (study.parent / "results").exists()  # refused before any simulation
    # the same file without [gains] is a study (the refusal is [gains]', not the file's)
    load_study(write_study(tmp_path, ON_FILE.split("[gains]")[0], name="plain.toml"))


def test_a_market_file_whose_header_cannot_be_read_is_still_refused_with_gains(tmp_path):
    """The size named in the message comes from the file's header; a file whose header cannot be read is refused
    all the same (its own fault is named when the file is loaded)."""
    study = write_study(tmp_path, ON_FILE)
    (study.parent / "cl.npz").write_bytes(b"not a zip archive")
    with pytest.raises(InputError, match=r"fixes the market's size at the jobs it holds"):
        load_study(study)


@pytest.mark.parametrize(
    "sizes, twice",
    [("[200, 200]", "[200]"), ("[100, 200, 100]", "[100]"), ("[50, 60, 50, 60]", "[50, 60]")],
)
def test_a_market_size_listed_twice_is_refused_when_the_study_is_read(tmp_path, capsys, sizes, twice):
    """A repeated size ran one derived study (one results folder, the same seeds) and pooled its seeds twice."""
    study = write_study(tmp_path, HETERO + f"[gains]\njobs = {sizes}\nseeds = 3\n")
    with pytest.raises(InputError) as exc:
        load_study(study)
    msg = str(exc.value)
    assert msg.startswith(f"{study}: [gains]") and f"field 'jobs': a market size is listed twice: {twice}" in msg
    assert main(["study", "run", str(study), "--no-progress"]) == 2
    assert "is listed twice" in _err(capsys) and not (study.parent / "results").exists()


@pytest.mark.parametrize(
    "table, said",
    [
        ("jobs = [100, 1000]\nseeds = [2]\n", "field 'seeds': 1 count(s) [2] for 2 size(s) [100, 1000]"),
        ("jobs = [100]\nseeds = [2, 3]\n", "field 'seeds': 2 count(s) [2, 3] for 1 size(s) [100]"),
        ("jobs = [100]\nseeds = 100001\n", "100000"),
        (f"jobs = [100]\nseeds = 3\nfirst = {SEED_MAX - 1}\n", "pass the largest seed"),
        (f"jobs = [100, 200]\nseeds = [2, 4]\nfirst = {SEED_MAX - 2}\n", "pass the largest seed"),
    ],
)
def test_the_gains_lists_lengths_and_seeds_are_checked_when_read(tmp_path, table, said):
    """Every list of ``[gains]``: one count per size, each count within the seeds a study may run, the last seed
    within the largest."""
    with pytest.raises(InputError, match="gains") as exc:
        load_study(write_study(tmp_path, HETERO + "[gains]\n" + table))
    assert said in str(exc.value)


def test_sizes_once_each_and_a_count_per_size_are_a_study(tmp_path):
    """The checks refuse only what they say: distinct sizes with their counts (or one count) pass."""
    for table in ("jobs = [100, 1000]\nseeds = [2, 3]\n", "jobs = [100, 1000]\nseeds = 2\n"):
        spec = load_study(write_study(tmp_path, HETERO + "[gains]\n" + table))
        assert spec.gains["jobs"] == [100, 1000]
    first = f"jobs = [100]\nseeds = 3\nfirst = {SEED_MAX - 2}\n"  # the last seed is the largest: allowed
    assert load_study(write_study(tmp_path, HETERO + "[gains]\n" + first)).gains["first"] == SEED_MAX - 2


def test_a_market_that_does_not_resize_is_refused_before_any_size_runs(tmp_path, monkeypatch):
    """The run-time guard: a market whose ``with_jobs`` leaves the jobs as they were (a plugin's market could) is
    refused before any derived study runs, naming the size and the market's real size; with the market that does
    resize, the same check passes (so the test can fail)."""
    from gamemarket.market.pricing_market import PricingMarket
    from gamemarket.studies.gains import check_sizes, derived_studies, run_gains

    spec = load_study(write_study(tmp_path, HETERO + "[gains]\njobs = [60, 80]\nseeds = 2\n"))
    check_sizes(spec, derived_studies(spec))  # resized honestly: 60 and 80 jobs
    monkeypatch.setattr(PricingMarket, "with_jobs", lambda self, workload, n, where: dict(workload))
    with pytest.raises(InputError, match=r"the market size 60 gives a market of 40 jobs"):
        run_gains(spec)
    assert not (spec.results_dir / "gains").exists()


def test_the_report_writes_the_seeds_as_a_count(tmp_path):
    """``shading-gains.csv``: ``seeds`` is an integer (2, not 2.0), every row's seeds are distinct ones, and each
    size's derived study ran a market of that many jobs."""
    from gamemarket.analysis.incentives import gains
    from gamemarket.io.files import OutputFolder
    from gamemarket.reports.report import FigureJobs, _growth_section
    from gamemarket.studies.gains import derived_studies, run_gains
    from gamemarket.studies.runner import load_workload

    spec = load_study(write_study(tmp_path, HETERO + "[gains]\njobs = [60, 40]\nseeds = [3, 2]\n"))
    assert [(n, load_workload(sub).jobs) for n, sub in derived_studies(spec)] == [(60, 60), (40, 40)]
    run_gains(spec)
    per_seed, summ = gains(spec)
    out = OutputFolder(tmp_path / "report", owner="test", what="report folder")
    md = "".join(_growth_section((per_seed, summ), out, FigureJobs(), ()))
    path = tmp_path / "report" / "data" / "shading-gains.csv"
    csv = pd.read_csv(path)
    assert csv["seeds"].dtype == np.int64 and not csv.empty
    text = path.read_text(encoding="utf-8")
    assert "clearing,SRG,60,3," in text and "clearing,SRG,40,2," in text  # every SRG seed has its shaders
    for row in csv.itertuples():  # each seed counted once: the per-seed rows behind each summary row
        seeds = per_seed[(per_seed["n"] == row.n) & (per_seed["mechanism"] == row.mechanism)]
        seeds = seeds[seeds["way"] == row.way]["seed"]
        assert row.seeds == len(seeds) == seeds.nunique() <= {60: 3, 40: 2}[row.n]
    assert "| clearing | SRG | 60 | 3 |" in md  # the table's count, as the CSV's
