"""Hunt 18b: a population study's exploration stored with its results (F2), a report into another study's results
folder (F6), a family point given to ``population probe`` (F5), and a mixture written in another order (W2)."""

import json
import shutil
from pathlib import Path

from gamemarket.cli import main
from gamemarket.search.exploration import STORED_FILE, exploration_status, read_stored_exploration
from gamemarket.studies import load_study
from study_helpers import POPULATION_STUDY, write_population_study, write_study

ROOT = Path(__file__).resolve().parents[2]

#: a small study that explores: one mechanism, two rules, a 2-player reduced game, a small budget
EXPLORES = (
    POPULATION_STUDY.replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first"]')
    .replace("jobs = 800", "jobs = 300")
    .replace("nodes = 8", "nodes = 6")
    .replace('strategies = ["truthful", "shade-0.5", "shade-high-0.9"]', 'strategies = ["truthful", "shade-0.5"]')
    .replace("reduced_players = 3", "reduced_players = 2")
    .replace(
        "max_seeds = 4",
        "max_seeds = 4\n"
        'exploration = { family = "per-class", budget = 60, evaluations = 4, confirm_seeds = 4, first_seeds = 2 }',
    )
)

MISSING = "**The strategy exploration is missing.**"
HEADING = "## Strategy exploration"


def _err(capsys) -> str:
    return capsys.readouterr().err


def test_no_report_then_report_renders_the_exploration_stored_with_the_results(tmp_path, capsys):
    """F2: `study run --no-report` then `report` left the exploration out without a word (it lived only in the report
    folder), and so did a report folder removed and written again."""
    path = write_population_study(tmp_path, EXPLORES)
    results, report = tmp_path / "studies" / "results", tmp_path / "studies" / "report"
    assert main(["study", "run", str(path), "--no-progress", "--no-report"]) == 0
    assert not report.exists() and (results / STORED_FILE).is_file()
    manifest = json.loads((results / ".gamemarket-manifest.json").read_text(encoding="utf-8"))
    assert STORED_FILE in manifest["files"]  # the results folder's own file
    spec = load_study(path)
    assert (
        read_stored_exploration(spec)[1] == "" and exploration_status(spec) == "exploration answer: stored, and current"
    )
    capsys.readouterr()
    assert main(["study", "status", str(path)]) == 0
    assert "\nexploration answer: stored, and current\n" in capsys.readouterr().out  # (study status said nothing)
    assert main(["report", str(path)]) == 0
    assert "exploration" not in _err(capsys)  # no warning: it is there
    md = (report / "report.md").read_text(encoding="utf-8")
    assert HEADING in md and MISSING not in md and (report / "data" / "exploration.json").is_file()
    # the same report as the run's own
    shutil.rmtree(report)
    assert main(["study", "run", str(path), "--no-progress"]) == 0
    assert (report / "report.md").read_text(encoding="utf-8") == md
    # a report folder removed and written again from the results: the same
    shutil.rmtree(report)
    assert main(["report", str(path)]) == 0
    assert (report / "report.md").read_text(encoding="utf-8") == md


def test_a_report_says_when_the_exploration_is_missing_stale_or_damaged(tmp_path, capsys):
    """F2: where the study asks for an exploration and none is stored, or it is stale or edited, the report says so
    at its top and on stderr, and `study status`'s line says why."""
    path = write_population_study(tmp_path, EXPLORES)
    results, report = tmp_path / "studies" / "results", tmp_path / "studies" / "report"
    assert main(["study", "run", str(path), "--no-progress", "--no-report"]) == 0
    stored = results / STORED_FILE
    text = stored.read_text(encoding="utf-8")
    cases = {
        "no exploration answer is stored": lambda: stored.unlink(),
        "the stored exploration answer is damaged (its content does not match": lambda: stored.write_text(
            text.replace('"budget": 60', '"budget": 6'), encoding="utf-8"
        ),
        "the study changed since its exploration was computed (stale)": lambda: path.write_text(
            EXPLORES.replace("budget = 60", "budget = 61"), encoding="utf-8"
        ),
    }
    for why, damage in cases.items():
        stored.write_text(text, encoding="utf-8")
        path.write_text(EXPLORES, encoding="utf-8")
        damage()
        assert why in exploration_status(load_study(path))
        capsys.readouterr()
        assert main(["report", str(path)]) == 0
        err = _err(capsys)
        assert "warning: study pop-test: its exploration is not in the report: " in err and why in err
        md = (report / "report.md").read_text(encoding="utf-8")
        assert md.split("\n\n")[1].startswith(MISSING) and why in md.split("\n\n")[1]
        assert HEADING not in md and not (report / "data" / "exploration.json").exists()
    # a study that asks for none says nothing of one
    plain = write_study(tmp_path / "plain", POPULATION_STUDY, "plain.toml")
    assert exploration_status(load_study(plain)) == "" and read_stored_exploration(load_study(plain)) == (None, "")


def test_a_report_into_another_studys_results_keeps_its_analysis_cache(tmp_path, capsys):
    """F6: `report B --results <A's results> --force` deleted A's analysis cache, and the refusal without --force
    listed A's files ("it would replace: .lock, last-run.json") in place of what the report writes."""
    body = EXPLORES.replace("\nexploration = {", "\n# exploration = {")
    a = write_study(tmp_path, body, "a.toml")
    b = write_study(tmp_path, body.replace('name = "pop-test"', 'name = "other"'), "b.toml")
    assert main(["study", "run", str(a), "--no-progress"]) == 0
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "studies" / "results", copy)
    theirs = sorted(p.name for p in (copy / "analysis").glob("population-*.json"))
    assert len(theirs) == 1
    manifest = json.loads((copy / ".gamemarket-manifest.json").read_text(encoding="utf-8"))
    assert "analysis/*.json" in manifest["patterns"]  # the cache is the folder's own
    capsys.readouterr()
    assert main(["report", str(b), "--results", str(copy), "--report", str(tmp_path / "rb")]) == 2
    err = _err(capsys)
    assert "pass --force to write into it (a report reads its runs, and writes there only its lock, .lock, and " in err
    assert "analysis/population-" in err and "last-run.json" not in err and "removes none" in err
    before = (copy / "last-run.json").read_bytes()
    assert main(["report", str(b), "--results", str(copy), "--report", str(tmp_path / "rb"), "--force"]) == 0
    now = sorted(p.name for p in (copy / "analysis").glob("population-*.json"))
    assert set(theirs) < set(now) and len(now) == 2  # A's cache kept, B's beside it
    assert (copy / "last-run.json").read_bytes() == before
    # a study's own older cache still goes (its key changed: one file a study), never another study's
    assert main(["report", str(a), "--results", str(copy), "--report", str(tmp_path / "ra"), "--force"]) == 0
    later = sorted(p.name for p in (copy / "analysis").glob("population-*.json"))
    assert len(later) == 2 and set(now) - set(theirs) <= set(later) and not set(theirs) & set(later)


def _plugin_study(tmp_path) -> Path:
    shutil.copy(ROOT / "examples" / "plugins" / "shade_by_amount.py", tmp_path / "shade_by_amount.py")
    body = (
        EXPLORES.replace("\nexploration = {", "\n# exploration = {")
        .replace('strategies = ["truthful", "shade-0.5"]', 'strategies = ["truthful", "sb20"]')
        .replace("[replications]", '[game.shading.sb20]\nfamily = "shade-by"\namount = 20\n[replications]')
    )
    return write_study(tmp_path, body + '[plugins]\nmodules = ["../shade_by_amount.py"]\n', "sb.toml")


def test_a_family_point_given_to_probe_is_checked_against_the_familys_own_bounds(tmp_path, capsys):
    """F5: `--deviation "shade-by[20]"` (a family declared over [0, 180)) was refused by the exploration's [0, 1)
    box check, with a message that blamed the plugin; the study file accepts the same point by name."""
    path = _plugin_study(tmp_path)
    out = {}
    for dev in ("sb20", "shade-by[20]"):
        capsys.readouterr()
        code = main(
            ["population", "probe", str(path), "--mechanism", "hb-first", "--base", "truthful", "--deviation", dev]
            + ["--seeds", "2", "--format", "json"]
        )
        assert code == 0, capsys.readouterr().err
        out[dev] = json.loads(capsys.readouterr().out)
    assert out["sb20"]["per_seed"] == out["shade-by[20]"]["per_seed"]
    capsys.readouterr()
    code = main(
        ["population", "probe", str(path), "--mechanism", "hb-first", "--base", "shade-by[20]", "--deviation"]
        + ["shade-by[200]", "--seeds", "1"]
    )
    assert code == 2
    err = _err(capsys)
    assert "--deviation: family 'shade-by': parameter 'amount' must be in [0, 180), got 200.0" in err
    assert "declaration" not in err and err.count("\n") == 1


def test_a_mixture_written_in_another_order_gives_the_same_numbers(tmp_path):
    """W2: `0.7 shade-0.5 + 0.3 truthful` and `0.3 truthful + 0.7 shade-0.5` gave other gains on the same seeds."""
    from gamemarket.search.probe import canonical, probe
    from gamemarket.studies.strategies import read_catalogues  # noqa: F401 (the probe's catalogue)

    spec = load_study(write_population_study(tmp_path))
    dev = "per-class[0,0.5,0.9]"
    one = probe(spec, "hb-kth", "0.7 shade-0.5 + 0.3 truthful", dev, seeds=[1, 2, 3])
    two = probe(spec, "hb-kth", "0.3 truthful + 0.7 shade-0.5", dev, seeds=[1, 2, 3])
    assert one.per_seed == two.per_seed and one.gain == two.gain
    assert list(one.base) == list(two.base) == ["truthful", "shade-0.5"]  # the study's order
    three = probe(spec, "hb-kth", "0.2 per-class[0,0.1,0.2] + 0.5 shade-high-0.9 + 0.3 shade-0.5", dev, seeds=[1, 2])
    assert list(three.base) == ["shade-0.5", "shade-high-0.9", "per-class[0,0.1,0.2]"]  # then the others by name
    rules = spec.population.strategies
    r, x = canonical([rules[2], rules[0]], [0.25, 0.75], rules)
    assert [q.name for q in r] == [rules[0].name, rules[2].name] and list(x) == [0.75, 0.25]
