"""Ownership of output: gamemarket overwrites or deletes only what it wrote (issue 27, item 1)."""

import json
import os

import pytest

from gamemarket.errors import InputError
from gamemarket.io import files
from gamemarket.io.files import (
    LEGACY_MARKER,
    MANIFEST,
    OutputFolder,
    atomic_path,
    check_output_file,
    check_outputs,
    legacy_report_files,
    remove_stale_temps,
)
from gamemarket.io.names import slug


def _write(folder: OutputFolder, name: str, text: str = "x") -> None:
    with atomic_path(folder.file(name)) as tmp:
        tmp.write_text(text)


def test_a_new_folder_gets_a_manifest_of_what_was_written(tmp_path):
    f = OutputFolder(tmp_path / "out", owner="s.toml")
    _write(f, "a.csv")
    _write(f, "data/b.csv")
    f.finish()
    data = json.loads((tmp_path / "out" / MANIFEST).read_text())
    assert data["owner"] == "s.toml" and data["files"] == ["a.csv", "data/b.csv"]


def test_cleaning_removes_only_manifest_entries(tmp_path):
    out = tmp_path / "out"
    f = OutputFolder(out, owner="s.toml")
    _write(f, "old.png")
    _write(f, "kept.png")
    f.finish()
    (out / "mine.png").write_text("the user's own figure")  # added by hand
    f = OutputFolder(out, owner="s.toml", force=True)
    _write(f, "kept.png")
    removed = f.finish()
    assert removed == [out / "old.png"]
    assert (out / "mine.png").read_text() == "the user's own figure" and (out / "kept.png").exists()


def test_a_folder_gamemarket_did_not_make_needs_force_and_says_what_it_holds(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match=r"was not made by gamemarket .* holds 1 entry \(notes.txt\).*--force"):
        OutputFolder(out, owner="s.toml")
    assert not (out / MANIFEST).exists()
    f = OutputFolder(out, owner="s.toml", force=True)
    with pytest.raises(InputError, match="notes.txt: the file exists and was not written by gamemarket"):
        OutputFolder(out, owner="s.toml").file("notes.txt")  # owned now, but that file is still the user's
    _write(f, "report.md")
    f.finish()
    assert (out / "notes.txt").read_text() == "keep me"


def test_another_owner_is_refused_unless_forced(tmp_path):
    OutputFolder(tmp_path / "o", owner="a.toml").finish()
    gone = r"\(a study file no longer there: renamed or moved\?\)"  # (neither file is there: owners by name alone)
    with pytest.raises(InputError, match=rf"belongs to \S*/o/a\.toml {gone}, not \S*/o/b\.toml;"):
        OutputFolder(tmp_path / "o", owner="b.toml")
    OutputFolder(tmp_path / "o", owner="b.toml", force=True).finish()


def test_a_refusal_names_the_owner_as_read_from_the_working_folder(tmp_path, monkeypatch):
    """Hunt 18c-W2: a manifest records its owner relative to its folder (``../../t.toml``); a refusal quoted it as
    is, which, read from the working folder, named a file that is not there. Every refusal names it from here."""
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "t.toml").write_text("")
    report = OutputFolder(tmp_path / "s1" / "reports" / "t", owner="../../t.toml", what="report folder")
    _write(report, "data/a.csv")
    report.finish()
    monkeypatch.chdir(tmp_path)
    messages = []
    for make in (
        lambda: OutputFolder("s1/reports/t/data", owner="../../../t.toml", what="export folder"),  # part of another
        lambda: OutputFolder("s1/reports/t", owner="../../u.toml", what="report folder"),  # another owner
        lambda: OutputFolder("s1/reports/t", owner="game export of ../../t.toml", what="export folder"),  # kind
        lambda: check_output_file("s1/reports/t/data/a.csv", option="--out"),  # a file the folder lists
    ):
        with pytest.raises(InputError) as refused:
            make()
        messages.append(str(refused.value))
    for message in messages:
        assert os.path.join("s1", "t.toml") in message, message
        assert "../" not in message, message
    assert "belongs to s1/t.toml, not s1/u.toml;" in messages[1]
    # through a link to the folder (the manifest's path is from the folder resolved), and a study path with " of "
    os.symlink("s1/reports/t", "lnk")
    with pytest.raises(InputError, match=r"belongs to \S*s1/t\.toml, not"):
        OutputFolder("lnk", owner="../../u.toml", what="report folder")
    (tmp_path / "a of b").mkdir()
    (tmp_path / "a of b" / "s.toml").write_text("")
    OutputFolder("a of b/out", owner="../s.toml", what="export folder").finish()
    with pytest.raises(InputError, match=r"belongs to a of b/s\.toml, not"):
        OutputFolder("a of b/out", owner="../t.toml", what="export folder")


def test_an_empty_folder_is_adopted(tmp_path):
    (tmp_path / "e").mkdir()
    OutputFolder(tmp_path / "e", owner="s").finish()
    assert (tmp_path / "e" / MANIFEST).is_file()


@pytest.mark.parametrize("name", ["../x", "/etc/passwd", "a/../../x", ""])
def test_a_name_that_leaves_the_folder_is_refused(tmp_path, name):
    f = OutputFolder(tmp_path / "o", owner="s")
    with pytest.raises(InputError, match="not a file name inside the folder"):
        f.file(name)


def test_two_outputs_that_are_one_file_are_refused(tmp_path):
    f = OutputFolder(tmp_path / "o", owner="s")
    f.file("payoffs-all-jobs.csv")
    with pytest.raises(InputError, match="differ only in case"):
        f.file("payoffs-All-Jobs.csv")
    with pytest.raises(InputError, match="two outputs of this run would be this one file"):
        f.file("payoffs-all-jobs.csv")
    assert slug("All jobs") == slug("all jobs")  # such names meet here, and are refused here


def test_a_symlink_out_of_the_folder_is_refused(tmp_path):
    f = OutputFolder(tmp_path / "o", owner="s")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "o" / "data")
    with pytest.raises(InputError, match="leads outside"):
        f.file("data/x.csv")


def test_an_output_that_is_an_input_is_refused_even_with_force(tmp_path):
    table = tmp_path / "T.csv"
    table.write_text("id\n")
    with pytest.raises(InputError, match="is the input"):
        check_outputs({"--out": table}, [table])
    os.symlink(table, tmp_path / "link.csv")
    with pytest.raises(InputError, match="is the input"):
        check_outputs({"--out": tmp_path / "link.csv"}, [table])
    os.link(table, tmp_path / "hard.csv")
    with pytest.raises(InputError, match="is the input"):
        check_outputs({"--out": tmp_path / "hard.csv"}, [table])
    f = OutputFolder(tmp_path, owner="s", force=True, inputs=[table])
    with pytest.raises(InputError, match="is the input"):
        f.file("T.csv")
    assert table.read_text() == "id\n"


def test_an_existing_output_file_needs_force(tmp_path):
    p = tmp_path / "o.csv"
    p.write_text("mine")
    with pytest.raises(InputError, match="the file exists; pass --force"):
        check_output_file(p, option="--out")
    assert check_output_file(p, option="--out", force=True) == p


def test_a_legacy_report_folder_is_adopted_with_its_own_files_only(tmp_path):
    out = tmp_path / "r"
    (out / "data").mkdir(parents=True)
    (out / LEGACY_MARKER).write_text("../s.toml\n")
    (out / "fig.png").write_text("old figure")
    (out / "data" / "runs.csv").write_text("old")
    (out / "notes.txt").write_text("the user's")
    f = OutputFolder(out, owner="../s.toml", legacy=legacy_report_files("../s.toml"))
    _write(f, "report.md")
    f.finish()
    assert not (out / "fig.png").exists() and not (out / "data").exists()  # what the old version wrote
    assert (out / "notes.txt").read_text() == "the user's"
    with pytest.raises(InputError, match="was not made by gamemarket"):  # another study's marker: not adopted
        (tmp_path / "q").mkdir()
        (tmp_path / "q" / LEGACY_MARKER).write_text("../other.toml\n")
        OutputFolder(tmp_path / "q", owner="../s.toml", legacy=legacy_report_files("../s.toml"))


def test_stale_temporary_files_of_dead_processes_only_are_removed(tmp_path):
    (tmp_path / "sub").mkdir()
    import subprocess
    import sys

    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    dead = tmp_path / "sub" / f".a.csv.gm-{ended.pid}-h{files.HOST}_0.tmp"
    beyond = tmp_path / f".d.csv.gm-{files._pid_max() + 1}-h{files.HOST}_0.tmp"  # an id no process can have: kept
    live = tmp_path / f".b.csv.gm-{os.getpid()}-h{files.HOST}_0.tmp"
    foreign = tmp_path / ".c.csv.12345.tmp"  # not gamemarket's pattern
    for p in (dead, live, foreign, beyond):
        p.write_text("x")
    assert remove_stale_temps(tmp_path) == [dead]
    assert live.exists() and foreign.exists() and beyond.exists()


def test_a_symlink_loop_is_an_input_error(tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(InputError, match="cannot resolve"):
        OutputFolder(tmp_path / "loop" / "x", owner="s")


def test_abandon_gives_back_only_what_the_claim_made(tmp_path):
    """A claim undone before any file: the folders it created go, a folder that was there keeps what it held."""
    new = OutputFolder(tmp_path / "a" / "b", owner="me")
    assert (tmp_path / "a" / "b" / MANIFEST).is_file()
    new.abandon()
    assert not (tmp_path / "a").exists()
    (tmp_path / "mine").mkdir()
    OutputFolder(tmp_path / "mine", owner="me").finish()
    before = (tmp_path / "mine" / MANIFEST).read_bytes()
    again = OutputFolder(tmp_path / "mine", owner="me")
    again.abandon()
    assert (tmp_path / "mine" / MANIFEST).read_bytes() == before
    wrote = OutputFolder(tmp_path / "w", owner="me")
    wrote.file("x.txt").write_text("x")
    wrote.abandon()  # a file was written: the claim stands, and the manifest lists it
    assert (tmp_path / "w" / "x.txt").is_file() and "x.txt" in (tmp_path / "w" / MANIFEST).read_text()
