"""Held-out hunt 16b (overlapping writers, plugin numbers, derived tables): regression rows."""

import contextlib
import os

import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.io import files
from study_helpers import TINY

SIM = ["simulate", "--synthetic-jobs", "120", "--nodes", "4"]


def _made_meanwhile(monkeypatch, target, text="another command's result\n"):
    """As this command writes ``target``'s temporary (every ``atomic_path`` writer's), another program makes
    ``target`` itself."""
    original = files._writable_name

    @contextlib.contextmanager
    def writable(tmp, path, what):
        with original(tmp, path, what) as name:
            if os.path.abspath(path) == os.path.abspath(target):
                target.write_text(text, encoding="utf-8")
            yield name

    monkeypatch.setattr(files, "_writable_name", writable)


@pytest.mark.parametrize("out_name", ["o.csv", "o.parquet"])
def test_an_output_made_by_another_command_meanwhile_is_not_replaced(tmp_path, monkeypatch, capsys, out_name):
    """H16b-43/44/47: two commands given one new --out at once both ended 0, the second's file over the first's:
    the absence was checked at the start, the move at the end replaced whatever was there."""
    out = tmp_path / out_name
    _made_meanwhile(monkeypatch, out)
    assert main([*SIM, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{out}: the file was made by another program while this command ran" in err
    assert out.read_text(encoding="utf-8") == "another command's result\n"
    assert sorted(os.listdir(tmp_path)) == [out_name]  # no temporary left
    out.unlink()
    monkeypatch.undo()
    assert main([*SIM, "--out", str(out)]) == 0  # the same command, the name free again: written


def test_with_force_the_output_made_meanwhile_is_replaced(tmp_path, monkeypatch):
    out = tmp_path / "o.csv"
    _made_meanwhile(monkeypatch, out)
    assert main([*SIM, "--out", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith('"id"')


def test_a_group_of_outputs_lands_whole_or_not_at_all_when_one_is_made_meanwhile(tmp_path, monkeypatch, capsys):
    """price solve --out: its .npz and its trace; the trace made meanwhile, neither is written."""
    out = tmp_path / "r.npz"
    trace = tmp_path / "r.trace.csv"
    _made_meanwhile(monkeypatch, trace)
    assert main(["price", "solve", "--n", "200", "--m", "3", "--quiet", "--out", str(out)]) == 2
    assert "r.trace.csv: the file was made by another program" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["r.trace.csv"]
    assert trace.read_text(encoding="utf-8") == "another command's result\n"


def test_a_model_file_made_meanwhile_is_not_replaced(tmp_path, monkeypatch, capsys):
    from gamemarket.workloads import WorkloadModel, generate_from_model
    from study_helpers import ROOT

    model = WorkloadModel.read(ROOT / "models" / "lpc-egee-2004.toml")
    jobs = generate_from_model(model, jobs=3000, nodes=16, load=0.5, seed=3).jobs
    swf = tmp_path / "t.swf"
    swf.write_text(
        "; MaxNodes: 16\n"
        + "".join(
            f"{i + 1} {s} 0 {r} 1 -1 -1 1 {e} -1 1 {u} 1 -1 1 1 -1 -1\n"
            for i, (s, r, e, u) in enumerate(zip(jobs["submit"], jobs["runtime"], jobs["estimate"], jobs["user"]))
        ),
        encoding="utf-8",
    )
    out = tmp_path / "m.toml"
    _made_meanwhile(monkeypatch, out, "# the other model\n")
    assert main(["workload", "fit", str(swf), "--out", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "# the other model\n"
    assert sorted(os.listdir(tmp_path)) == ["m.toml", "t.swf"]


def test_the_new_outputs_are_forgotten_when_the_command_ends(tmp_path):
    """A command that failed after its checks leaves no mark on the next one (tests run many in one process)."""
    table = tmp_path / "nope.csv"
    assert main(["simulate", "--job-table", str(table), "--nodes", "4", "--out", str(tmp_path / "a.csv")]) == 2
    assert files.NEW_ONLY == set()


# ------------------------------------------------------------------ derived tables and stored runs (H16b-8/10/48/50)


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A tiny study, run: its study file, its results folder."""
    monkeypatch.chdir(tmp_path)
    study = tmp_path / "tiny.toml"
    study.write_text(TINY.format(count=2), encoding="utf-8")
    assert main(["study", "run", str(study), "--no-progress", "--no-report"]) == 0
    return study, tmp_path / "results" / "tiny"


def _rewrite_run(path, change):
    """Rewrite a stored run file with ``change(table) -> table``, its metadata (key, metrics, ...) kept."""
    import pyarrow.parquet as pq

    with open(path, "rb") as f:
        table = pq.read_table(f)
    new = change(table).replace_schema_metadata(table.schema.metadata)
    with open(path, "wb") as f:
        pq.write_table(new, f)


def _study(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_run_file_replaced_by_garbage_is_named_by_report_though_tables_were_built(tiny, capsys):
    """H16b-8: report ended 0 from the consolidated tables, no word of the file (output-files.md: an error naming
    it); the tables now record the run files they were built from."""
    study, results = tiny
    victim = sorted((results / "runs").iterdir())[0]
    victim.write_bytes(b"not a parquet file\n")
    rc, _, err = _study(["report", str(study), "--report", "rep"], capsys)
    assert rc == 2 and "1 of 8 runs have no stored result" in err and "Traceback" not in err, err
    rc, out, _ = _study(["study", "status", str(study)], capsys)
    assert "7/8 runs stored" in out
    assert _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)[0] == 0
    assert victim.with_name(victim.name + ".corrupt").is_file()  # set aside by study run, and run again
    assert _study(["report", str(study), "--report", "rep"], capsys)[0] == 0


def test_another_studys_tables_copied_in_are_not_used(tmp_path, monkeypatch, capsys):
    """H16b-10: another study's consolidated tables copied over this one's were reported (its 2 seeds' rows under
    "3 replication seeds"), and `study run` kept them."""
    import shutil

    import pandas as pd

    monkeypatch.chdir(tmp_path)
    for name, count in (("small", 2), ("big", 3)):
        (tmp_path / f"{name}.toml").write_text(
            TINY.format(count=count).replace('name = "tiny"', f'name = "{name}"'), encoding="utf-8"
        )
        assert main(["study", "run", f"{name}.toml", "--no-progress", "--no-report"]) == 0
    [theirs] = (tmp_path / "results" / "small" / "tables").iterdir()
    [ours] = (tmp_path / "results" / "big" / "tables").iterdir()
    for f in theirs.iterdir():
        shutil.copyfile(f, ours / f.name)
    capsys.readouterr()
    rc, _, err = _study(["report", "big.toml", "--report", "rep"], capsys)
    assert rc == 0, err
    assert "was built for another study plan" in err and str(ours) in err
    runs = pd.read_csv(tmp_path / "rep" / "data" / "runs.csv")
    assert len(runs) == 12 and sorted(runs["seed"].unique()) == [1, 2, 3]


def test_a_run_file_whose_column_type_changed_is_missing_to_status_and_set_aside_by_study_run(tiny, capsys):
    """H16b-48: a column cast from integers to text (metadata kept): status said 8/8 stored, report and study run a
    pyarrow traceback naming no file."""
    import pyarrow as pa

    study, results = tiny
    victim = sorted((results / "runs").iterdir())[0]
    _rewrite_run(victim, lambda t: t.set_column(t.schema.get_field_index("n"), "n", t["n"].cast(pa.string())))
    rc, out, _ = _study(["study", "status", str(study)], capsys)
    assert rc == 0 and "7/8 runs stored" in out
    rc, _, err = _study(["report", str(study), "--report", "rep"], capsys)
    assert rc == 2 and "Traceback" not in err and err.count("\n") == 1, err
    rc, _, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 0 and "its columns are not those gamemarket wrote" in err, err
    assert victim.with_name(victim.name + ".corrupt").is_file() and victim.is_file()


def test_a_run_file_with_a_row_repeated_is_named_not_indexed(tiny, capsys):
    """H16b-50: a run file with its first row appended again was accepted; the rebuilt bins table held one key
    twice. Its rows no longer match the digest it records."""
    import pyarrow as pa

    study, results = tiny
    for f in (results / "tables").rglob("*.parquet"):
        f.unlink()
    victim = sorted((results / "runs").iterdir())[0]
    _rewrite_run(victim, lambda t: pa.concat_tables([t, t.slice(0, 1)]))
    rc, _, err = _study(["report", str(study), "--report", "rep"], capsys)
    assert rc == 2 and f"{victim}" in err and "rows are not those gamemarket wrote" in err, err
    assert victim.is_file()  # a reader names it, never moves it
    rc, out, err = _study(["study", "status", str(study)], capsys)
    assert rc == 0 and "7/8 runs stored, 1 missing" in out and victim.is_file()  # counted as study run counts
    # study run sets it aside and runs it again, in one command (it ended in an error asking for another run, its
    # message headed "study '':")
    rc, out, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 0 and "(7 already stored, 1 run now)" in out, err
    assert "rows are not those gamemarket wrote" in err and "will be run again" in err and "study ''" not in err
    assert victim.with_name(victim.name + ".corrupt").is_file() and victim.is_file()
    assert _study(["report", str(study), "--report", "rep"], capsys)[0] == 0


def test_a_run_file_whose_values_were_edited_after_its_tables_were_built_is_run_again_by_one_study_run(tiny, capsys):
    """Found after hunt 16e: a value edited in a stored run (its metadata kept), the tables built before: `study
    status` said 8/8, and `study run` warned that the run would be run again, then ended in an error asking for
    another run, headed "study '':". Every run file is read whole where the tables do not vouch for it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    study, results = tiny
    victim = sorted((results / "runs").iterdir())[0]
    _rewrite_run(victim, lambda t: t.set_column(t.schema.get_field_index("sum_flow"), "sum_flow", pc.add(
        t["sum_flow"], pa.scalar(1, t["sum_flow"].type))))  # fmt: skip
    rc, out, _ = _study(["study", "status", str(study)], capsys)
    assert rc == 0 and "7/8 runs stored, 1 missing" in out
    rc, out, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 0 and "(7 already stored, 1 run now)" in out and "will be run again" in err, err
    rc, out, _ = _study(["study", "status", str(study)], capsys)
    assert rc == 0 and "8/8 runs stored, 0 missing" in out
    rc, out, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 0 and "(8 already stored, 0 run now)" in out and err == "", err


def test_a_run_file_copied_from_another_study_is_named_with_what_is_wrong(tiny, capsys):
    """A worth-a-look row of hunts 16b/16d: a run file copied over from another study (another key) was counted as
    missing by `report` and `study status`, with no word of which file or why; both name it now, and the key it
    records, and `study run` sets it aside and runs it again."""
    study, results = tiny
    other = study.parent / "other.toml"
    other.write_text(
        TINY.format(count=2).replace('name = "tiny"', 'name = "other"').replace("load = 1.1", "load = 1.3"),
        encoding="utf-8",
    )
    assert main(["study", "run", str(other), "--no-progress", "--no-report"]) == 0
    theirs = sorted((study.parent / "results" / "other" / "runs").iterdir())[0]
    victim = sorted((results / "runs").iterdir())[0]
    victim.write_bytes(theirs.read_bytes())
    capsys.readouterr()
    rc, _, err = _study(["report", str(study), "--report", "rep"], capsys)
    assert rc == 2 and err.count("\n") == 1, err
    assert f"1 of 8 runs have no stored result (1 of them stored but not readable: first {victim}: " in err
    assert f"it records the key {theirs.stem}: another run's result, copied or renamed" in err
    rc, out, _ = _study(["study", "status", str(study)], capsys)
    assert rc == 0 and "7/8 runs stored, 1 missing" in out
    assert f"1 of the missing are stored but do not read (first: {victim}: ValueError: it records the key" in out
    assert victim.read_bytes() == theirs.read_bytes()  # readers move nothing
    rc, out, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 0 and "(7 already stored, 1 run now)" in out and victim.with_name(victim.name + ".corrupt").is_file()


def test_workload_fit_refuses_a_trace_whose_model_no_model_file_holds(tmp_path, capsys):
    """Hunt 16a-55: one submit time at 1e15 s: fit wrote a model (a long gap of 1e15 s) that workload info and
    simulate then refused; the fitted model is now read back by the reader's schema before it is written."""
    lines = ["; MaxNodes: 16"]
    for i in range(999):
        lines.append(f"{i + 1} {37 * i} 0 {50 + i % 300} 1 -1 -1 1 {600 + i % 300} -1 1 {i % 7 + 1} 1 -1 1 1 -1 -1")
    lines.append(f"1000 {10**15} 0 60 1 -1 -1 1 600 -1 1 1 1 -1 1 1 -1 -1")
    swf = tmp_path / "w.swf"
    swf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "m.toml"
    assert main(["workload", "fit", str(swf), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the model fitted to it is beyond what a model file holds" in err, err
    assert "long_gap_quantiles" in err and not out.exists()


def test_a_study_plan_beyond_the_memory_is_refused_before_it_is_built(tmp_path, monkeypatch, capsys):
    """Hunt 16a-60: a 4 KB study file (a 100 x 100 grid, 100,000 seeds: 3e9 runs) gave `study status` a MemoryError
    traceback and `study run` a minute's wait, 600 lines and a results folder left behind."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(1_000_000))
    (tmp_path / "big.toml").write_text(TINY.format(count=1000).replace('"tiny"', '"big"'), encoding="utf-8")
    for command in (["study", "status", "big.toml"], ["study", "run", "big.toml", "--no-progress"]):
        rc, _, err = _study(command, capsys)
        assert rc == 2 and err.count("\n") == 1, err
        assert "a plan of 4,000 runs (2 providers x 2 consumer strategies x 1,000 seeds) needs about" in err, err
    assert sorted(os.listdir(tmp_path)) == ["big.toml"]  # nothing claimed, nothing left


def test_a_new_output_under_a_studys_runs_is_refused_as_the_studys_name(tiny, capsys):
    """Hunt 16b-6/7: `simulate --out results/tiny/runs/zz.parquet` was written, then counted as a stored run (a
    study run set it aside as damaged); a name the results folder keeps for its own files is refused."""
    study, results = tiny
    out = results / "runs" / "zz.parquet"
    rc, _, err = _study([*SIM, "--out", str(out)], capsys)
    assert rc == 2 and "is a name kept for the files of the results folder" in err, err
    assert not out.exists()
    mine = results / "notes.csv"  # a name the folder does not keep: the user's, written
    assert _study([*SIM, "--out", str(mine)], capsys)[0] == 0 and mine.is_file()


@contextlib.contextmanager
def _held_elsewhere(study):
    """The study's lock held by another process (``study run``'s hold, as a running study run holds it): its pid."""
    import subprocess
    import sys

    code = (
        "import sys, time\nfrom gamemarket.studies.spec import load_study\n"
        "from gamemarket.studies.store import study_store\n"
        "with study_store(load_study(sys.argv[1])).lock('study run'):\n    print('held', flush=True)\n"
        "    time.sleep(120)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code, str(study)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        yield p.pid
    finally:
        p.kill()
        p.wait()


def test_study_status_says_who_writes_the_study_now(tiny, capsys):
    """Hunt 16b-5: `study status` never said that a `study run` held the lock (its counts changing as it ran)."""
    study, _ = tiny
    with _held_elsewhere(study) as pid:
        rc, out, _ = _study(["study", "status", str(study)], capsys)
        assert rc == 0 and f"being written now by study run (pid {pid}, since " in out, out
    rc, out, _ = _study(["study", "status", str(study)], capsys)
    assert rc == 0 and "being written" not in out


def test_a_damaged_manifest_is_named_with_what_to_do(tiny, capsys):
    """Hunt 16b-13: a truncated manifest was refused by name, but --force did not help and nothing said what would."""
    study, results = tiny
    manifest = results / ".gamemarket-manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:50])
    rc, _, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "invalid JSON" in err and "remove it" in err, err
    manifest.unlink()
    assert _study(["study", "run", str(study), "--no-progress", "--no-report", "--force"], capsys)[0] == 0


def test_a_reader_of_a_study_being_run_names_the_run(tiny, capsys):
    """Hunt 16b-42: `game export` during a `study run` said "run `gamemarket study run` first"; a reader's own hold
    (a report reads under the lock) is not another's (the first form of this fix said a report was written by
    itself)."""
    study, results = tiny
    sorted((results / "runs").iterdir())[0].unlink()
    with _held_elsewhere(study) as pid:
        rc, _, err = _study(["game", "export", str(study), "--out", "exp"], capsys)
    assert rc == 2 and f"1 of 8 runs have no stored result; they are being written now by study run (pid {pid}" in err
    rc, _, err = _study(["report", str(study), "--report", "rep"], capsys)
    assert rc == 2 and "run `gamemarket study run" in err and "being written" not in err, err


def test_an_export_folder_is_held_by_one_writer_at_a_time(tiny):
    """Hunt 16d-30/31: two `game export --out F` at once gave a false "not written by gamemarket", and a report and
    an export into one folder both ended 0, the export's files lost: the export folder was not held."""
    import subprocess
    import sys

    from gamemarket.io.files import OutputFolder

    study, _ = tiny
    out = study.parent / "exp"
    held = OutputFolder(out, owner="../tiny.toml", what="report folder", exclusive=True)
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "export", str(study), "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 2 and "is being written by another command" in r.stderr, r.stderr
    assert "not written by gamemarket" not in r.stderr
    held.abandon()


@pytest.mark.slow
def test_a_damaged_population_run_is_named_by_a_report_and_set_aside_only_by_study_run(tmp_path, capsys):
    """Hunt 16d-50: `report` renamed a truncated population run `.corrupt` (a reader moving stored data, the tree
    changed by a failed command) and printed two lines."""
    from study_helpers import write_population_study

    study = write_population_study(tmp_path)
    assert _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)[0] == 0
    runs = sorted((study.parent / "results" / "population").glob("*.json"))
    victim = runs[len(runs) // 2]
    victim.write_bytes(victim.read_bytes()[:20])
    before = sorted(p.name for p in victim.parent.iterdir())
    rc, _, err = _study(["report", str(study)], capsys)
    assert rc == 2 and err.count("\n") == 1 and f"{victim}: the stored run does not read" in err, err
    assert sorted(p.name for p in victim.parent.iterdir()) == before  # moved nowhere
    rc, _, err = _study(["study", "run", str(study), "--no-progress", "--no-report"], capsys)
    assert rc == 0, err
    assert victim.with_name(victim.name + ".corrupt").is_file() and victim.is_file()


def test_study_jobs_refuses_a_run_file_whose_rows_were_edited(tiny, capsys):
    """Hunt 16d-48: a run file whose rows were edited (its metadata kept) was taken by `study jobs`, which said its
    cohort sums "equal the stored ones exactly" (it read the metadata alone), where report refused the file."""
    import pyarrow as pa
    import pyarrow.compute as pc

    study, results = tiny
    for f in (results / "runs").glob("*.parquet"):
        _rewrite_run(f, lambda t: t.set_column(t.schema.get_field_index("sum_flow"), "sum_flow", pc.multiply(
            t["sum_flow"], pa.scalar(2, t["sum_flow"].type))))  # fmt: skip
    rc, _, err = _study(
        ["study", "jobs", str(study), "--provider", "hb-first", "--consumer", "FT", "--seed", "1", "--out", "j.csv"],
        capsys,
    )
    assert rc == 2 and "does not read (ValueError: its rows are not those gamemarket wrote" in err, err
    assert not (study.parent / "j.csv").exists()


def test_a_population_run_whose_numbers_were_edited_is_told_from_its_own(tmp_path):
    """Hunt 16d: an edited population run was used without notice (no digest, unlike a run file's rows)."""
    from gamemarket.studies.population import PopulationStore

    store = PopulationStore(tmp_path)
    store.write("k1", {"revenue": 1.5, "gains": [0.25, -1.0]})
    assert store.read("k1") == {"revenue": 1.5, "gains": [0.25, -1.0], "key": "k1"}
    text = store.path("k1").read_text(encoding="utf-8").replace("1.5", "7.5")
    store.path("k1").write_text(text, encoding="utf-8")
    assert store.read("k1") is None and store.path("k1").exists()  # a reader: missing, moved nowhere
    with pytest.raises(InputError, match=r"k1.json: the stored run does not read \(its numbers are not those"):
        store.read("k1", name_bad=True)
    old = {"revenue": 2.0, "key": "k2"}  # a run stored before the digest: taken as it is
    store.path("k2").write_text(__import__("json").dumps(old), encoding="utf-8")
    assert store.read("k2") == old


def test_the_revenue_figure_draws_a_bounded_number_of_bars(tmp_path, monkeypatch):
    """Fuzz run O: a game whose strategies tie exactly listed 6,817 equilibria (a continuum's points); the revenue
    figure drew a bar and a label each (1.6 million overlap checks, a 5-minute report). It draws each mechanism's
    first equilibria, ``MAX_BARS`` in all, and its title says how many more the data table lists."""
    import pandas as pd

    from gamemarket.reports import population as rp

    seen = {}

    def save(fig, path, dpi):
        seen["bars"] = len(fig.axes[0].patches)
        seen["labels"] = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        seen["title"] = fig._suptitle.get_text()

    monkeypatch.setattr(rp, "save", save)
    bars = pd.DataFrame(
        [
            {"label": f"{m} #{k + 1}", "revenue": (5.0, 4.0, 6.0), "state": "open"}
            for m in ("a", "b")
            for k in range(500)
        ]
    )
    rp._revenue_figure(bars, tmp_path / "fig.png", explored=False)
    assert seen["bars"] == rp.MAX_BARS and seen["labels"][:2] == ["a #1", "a #2"] and "b #1" in seen["labels"]
    assert (
        "first 15 consumer equilibria" in seen["title"]
        and "970 more in data/population-equilibria.csv" in seen["title"]
    )
    rp._revenue_figure(bars.head(3), tmp_path / "fig.png", explored=False)  # a few: every one, as before
    assert seen["bars"] == 3 and seen["title"].startswith("Revenue at each consumer equilibrium")
