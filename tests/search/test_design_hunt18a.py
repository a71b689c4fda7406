"""Hunt 18a on design studies: a stored answer edited but still JSON is named as damaged where it is read (`report`,
`study status`) and set aside by `study run` (F7); `game solve` and `game export` refuse a design study at once,
naming what its answer is and only files that exist (F8); every number of ``[design]`` is checked with its bound when
the study is read (W4); no list of ``[design]`` takes a name twice (W5)."""

import json
import re
import shutil
from pathlib import Path

import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.search import design as design_mod
from gamemarket.search.design import DIGEST_FIELD, DamagedAnswer, answer_problem, read_answer
from gamemarket.studies import load_study
from gamemarket.workflow import run_study
from study_helpers import SMALL_DESIGN, write_study

#: 300 jobs on 8 nodes, a 4-point grid over the reserve; one contender beside the best: two points not confirmed
DBASE = (
    SMALL_DESIGN.replace('name = "design-small"', 'name = "dz"')
    .replace("budget = 6", "budget = 4")
    .replace("contenders = 2", "contenders = 1")
)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """The design study run once (its report written): its file, and its stored answer's text as written."""
    tmp = tmp_path_factory.mktemp("dbase")
    path = write_study(tmp, DBASE, "dbase.toml")
    run_study(path, n_jobs=1)
    stored = load_study(path).results_dir / "design.json"
    return path, stored, stored.read_text(encoding="utf-8")


@pytest.fixture
def answer(ran):
    """The study's file, its stored answer's path and document; the answer as written put back afterwards."""
    path, stored, text = ran
    stored.write_text(text, encoding="utf-8")
    yield path, stored, json.loads(text)
    stored.write_text(text, encoding="utf-8")
    for aside in stored.parent.glob("design.json.corrupt"):
        aside.unlink()


def _unconfirmed(doc) -> str:
    a = doc["answer"]
    return next(p["provider"] for p in a["points"] if p["provider"] not in a["confirmations"])


def _set(doc, field, value):
    doc["answer"][field] = value


EDITS = {
    "a real point, not confirmed, chosen": (lambda d: _set(d, "chosen", _unconfirmed(d)), "'chosen'"),
    "a mechanism never evaluated chosen": (lambda d: _set(d, "chosen", "ghost-mech"), "'chosen' is \"ghost-mech\""),
    "no points": (lambda d: _set(d, "points", []), "'points' is []"),
    "a word for the regret bound": (lambda d: _set(d, "regret_bound", "abc"), "'regret_bound' is \"abc\""),
    "an infinite regret bound": (lambda d: _set(d, "regret_upper", 1e400), "'regret_upper'"),
    "a count edited, consistent": (lambda d: _set(d, "simulations", d["answer"]["simulations"] + 1), DIGEST_FIELD),
}


def _stored(stored: Path, doc: dict) -> None:
    stored.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _err_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_design_answer_is_named_damaged_and_study_run_sets_it_aside(answer, capsys, edit):
    """F7: each edit crashed `report` (KeyError, StopIteration, ValueError) or was rendered, while `study status`
    said "stored, and current"; now each names the file and what is wrong, and `study run` sets it aside."""
    path, stored, doc = answer
    change, said = EDITS[edit]
    change(doc)
    _stored(stored, doc)
    with pytest.raises(DamagedAnswer, match=re.escape(said)):
        read_answer(load_study(path))
    report = stored.parent.parent.parent / "reports" / "dz" / "report.md"
    before = report.read_bytes()
    assert main(["report", str(path)]) == 2
    err = _err_line(capsys)
    assert f"{stored}: the stored design answer is damaged (" in err and said in err
    assert f"`gamemarket study run {path}` sets it aside and computes it again" in err
    assert report.read_bytes() == before  # nothing half-written: the report is as it was
    assert main(["study", "status", str(path)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert (
        last.startswith(f"design answer: {stored}: the stored design answer is damaged") and "not to be trusted" in last
    )
    with pytest.warns(UserWarning, match="stored design answer does not read"):
        run_study(path, n_jobs=1, write_report=False)
    assert stored.with_name("design.json.corrupt").is_file()
    assert answer_problem(json.loads(stored.read_text(encoding="utf-8"))) is None
    read_answer(load_study(path))  # computed again: read back


def test_an_answer_stored_before_the_digest_is_read_on_its_consistency(answer, capsys):
    """Files written before the digest existed have none: they read, checked for consistency alone (as the
    population runs are)."""
    path, stored, doc = answer
    assert doc[DIGEST_FIELD] == design_mod.answer_digest({k: v for k, v in doc.items() if k != DIGEST_FIELD})
    doc.pop(DIGEST_FIELD)
    _stored(stored, doc)
    assert read_answer(load_study(path)).chosen == doc["answer"]["chosen"]
    doc["answer"]["chosen"] = "ghost-mech"
    _stored(stored, doc)
    with pytest.raises(DamagedAnswer, match="'chosen' is \"ghost-mech\""):
        read_answer(load_study(path))


def test_a_damaged_answer_of_a_changed_study_is_still_stale_first(answer):
    """The study's tables changed: that is said first (its run replaces the answer either way)."""
    path, stored, doc = answer
    doc["key"]["workload_content"] = "0" * 16
    _stored(stored, doc)
    with pytest.raises(InputError, match="changed since"):
        read_answer(load_study(path))


def test_a_truncated_answer_is_damaged_and_set_aside(answer):
    path, stored, doc = answer
    stored.write_text(json.dumps(doc)[:200], encoding="utf-8")
    with pytest.raises(DamagedAnswer, match="not a design answer gamemarket wrote"):
        read_answer(load_study(path))
    with pytest.warns(UserWarning, match="stored design answer does not read"):
        design_mod.set_aside_damaged(load_study(path))
    assert not stored.exists() and stored.with_name("design.json.corrupt").is_file()


def _paths_exist(line: str) -> None:
    """Every absolute path a message names is a file or folder that exists."""
    for word in re.findall(r"(?:^|\s)(/[^\s,;:()`]+)", line):
        assert Path(word).exists(), f"{word} named but missing: {line}"


@pytest.mark.parametrize("argv", [["game", "solve"], ["game", "solve", "--concept", "qre"], ["game", "export"]])
def test_game_solve_and_export_of_a_design_study_say_what_its_answer_is_and_where(ran, tmp_path, capsys, argv):
    """F8: `game solve` asked for `study run` after one ("4 population runs are not stored yet"), and `game export`
    named EGTA files its report does not hold; now both refuse at once, naming the stored answer and the report's
    files, every one of which exists."""
    path = ran[0]
    out = ["--out", str(tmp_path / "ex")] if argv[-1] == "export" else []
    assert main([*argv, str(path), *out]) == 2
    err = _err_line(capsys)
    assert "a design study" in err and "the mechanism its search chose" in err
    assert f"stored in {ran[1]}" in err and "report.md" in err and "design-points.csv" in err
    assert "study run" not in err and "EGTA" not in err and "not stored yet" not in err
    _paths_exist(err.split(": ", 1)[1])
    assert not (tmp_path / "ex").exists()
    # a design study not run yet: its run computes the answer (the one command that helps)
    fresh = write_study(tmp_path, DBASE.replace('name = "dz"', 'name = "dnew"'), "dnew.toml")
    assert main([*argv, str(fresh), *out]) == 2
    err = _err_line(capsys)
    assert f"none is stored yet: `gamemarket study run {fresh}` computes it" in err and "report.md" not in err


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("reserve = [0, 40]", "reserve = [0.0, 1e300]"), "field 'reserve': 1e+300 is outside the family's bounds: "
         "expected in [0, 1e+09]"),
        (("reserve = [0, 40]", "reserve = 1e10\nblend = 0.5"), "field 'reserve': 10000000000.0 is outside"),
        (("contenders = 1", "contenders = 1\nseed = 4294967296"), "field 'seed'"),
        (("contenders = 1", "contenders = 1\nobjective = { revenue = 1e300 }"), "field 'objective': metric 'revenue'"),
        (("contenders = 1", "contenders = 1\ncompare = [\"hb-first\", \"hb-first\"]"),
         "[design] field 'compare': a mechanism is listed twice in ['hb-first', 'hb-first']"),
        (('schedulers = ["hb"]', 'schedulers = ["hb", "hb"]'),
         "[design] field 'schedulers': a scheduler is listed twice in ['hb', 'hb']"),
    ],
)  # fmt: skip
def test_every_number_and_list_of_design_is_checked_when_the_study_is_read(tmp_path, capsys, change, said):
    """W4: ``reserve = [0, 1e300]`` passed `study status` and stopped `study run` after two design points, naming no
    file or field; W5: a mechanism listed twice in 'compare' passed where a scheduler listed twice was refused."""
    body = DBASE.replace(*change)
    if "blend = 0.5\nblend = 0.5" in body:
        body = body.replace("blend = 0.5\nblend = 0.5", "blend = [0, 1]")
    path = write_study(tmp_path, body)
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(path)
    assert main(["study", "status", str(path)]) == 2
    err = _err_line(capsys)
    assert err.startswith(f"gamemarket: error: {path}: [design]") and said in err
    assert not (tmp_path / "studies" / "results").exists()


def test_the_bounds_themselves_are_accepted(tmp_path):
    body = DBASE.replace("reserve = [0, 40]", "reserve = [0, 1e9]").replace(
        "contenders = 1", 'contenders = 1\nseed = 4294967295\ncompare = ["hb-first"]'
    )
    spec = load_study(write_study(tmp_path, body))
    assert spec.design.box() == [("reserve", 0.0, 1e9)] and spec.design.seed == 2**32 - 1


def test_a_point_not_in_the_answer_is_a_key_error_naming_it(answer):
    path, _, _ = answer
    ans = read_answer(load_study(path))
    with pytest.raises(KeyError, match="ghost"):
        ans.point("ghost")


def test_the_copy_of_a_study_reads_its_answer(ran, tmp_path):
    """The digest is of the answer's content, not of where it lies: a copied study's answer reads back."""
    path, stored, _ = ran
    shutil.copytree(stored.parents[3], tmp_path / "copy")
    copy = tmp_path / "copy" / "studies" / "dbase.toml"
    assert read_answer(load_study(copy)).to_dict() == read_answer(load_study(path)).to_dict()
