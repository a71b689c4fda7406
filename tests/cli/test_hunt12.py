"""Held-out hunt 12's problems, each a regression test."""

import json

import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError

TINY = """
name = "tiny"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 120
load = 1.1
[strategies]
providers = ["hb-first", "hb-kth"]
consumers = ["FT", "SRG"]
[replications]
count = 2
"""


@pytest.mark.parametrize("url", ["http://[::1", "http://", "https://x:99999/a", "http://h:abc/x"])
def test_a_malformed_download_address_is_named_and_nothing_is_made(tmp_path, capsys, url):
    """--url 'http://[::1' was urllib's ValueError, a traceback."""
    dest = tmp_path / "fetch"
    assert main(["workload", "fetch", "SDSC-Par-1996-3.1-cln", "--dest", str(dest), "--url", url]) == 2
    assert f"--url {url!r}: not an address" in capsys.readouterr().err
    assert not dest.exists()


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(TINY)
    return tmp_path / "tiny.toml"


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("seeds", [], r"\[replications\] field 'seeds': expected at least 1 item"),
        ("providers", [], r"field 'providers': expected a non-empty list of ProviderStrategy, got \[\]"),
        ("providers", ["hb-first"], r"field 'providers': expected a non-empty list of ProviderStrategy, got \['hb"),
        ("report_dir", "results", r"\[output\] the results and report folders are one folder"),
    ],
)
def test_a_spec_changed_in_python_after_it_loaded_is_checked_again_before_it_runs(tiny, field, value, message):
    """seeds = [] was pandas' "No objects to concatenate", providers given as names an AttributeError, and a
    report folder set to the results folder ran."""
    from gamemarket.studies import load_study
    from gamemarket.workflow import run_study

    spec = load_study(tiny)
    setattr(spec, field, spec.results_dir if value == "results" else value)
    with pytest.raises(InputError, match=message):
        run_study(spec, write_report=False)
    assert sorted(p.name for p in tiny.parent.iterdir()) == ["tiny.toml"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda w, s: w.run_study(s, write_report="no"), r"write_report must be True or False, got 'no'"),
        (lambda w, s: w.run_study(s, progress="yes"), r"progress must be True or False, got 'yes'"),
        (lambda w, s: w.write_study_report(s, log="print"), r"log must be a callable .* got 'print'"),
        (lambda w, s: w.write_study_report(s, force=1), r"force must be True or False, got 1"),
        (lambda w, s: w.run_study(42), r"expected the path of a study file \(.toml\), got int 42"),
    ],
)
def test_the_workflow_calls_check_their_arguments_before_anything_runs(tiny, call, message):
    from gamemarket import workflow

    with pytest.raises(InputError, match=message):
        call(workflow, str(tiny))
    assert sorted(p.name for p in tiny.parent.iterdir()) == ["tiny.toml"]


POP = TINY.replace('consumers = ["FT", "SRG"]\n', "") + (
    '[game]\nkind = "population"\nstrategies = ["truthful", "shade-0.5"]\nreduced_players = 2\nprobe = 0.05\n'
)


@pytest.mark.parametrize(
    "spec_of, seeds, message",
    [
        (lambda p: p, [1, 2], r"spec must be a study loaded by gamemarket.studies.load_study, got "),
        (None, 3, r"seeds must be a list of seeds \(whole numbers >= 0\), got 3"),
        (None, [1, 1], r"--seeds: seed 1 is given twice; expected each once"),
    ],
)
def test_the_probe_api_names_what_it_refuses(tmp_path, spec_of, seeds, message):
    """probe(path, ...) was an AttributeError, seeds=3 a TypeError, and seeds=[1, 1] counted one run twice."""
    from gamemarket.search.probe import probe
    from gamemarket.studies import load_study

    (tmp_path / "pop.toml").write_text(POP)
    spec = (spec_of or (lambda p: load_study(p)))(str(tmp_path / "pop.toml"))
    with pytest.raises(InputError, match=message):
        probe(spec, "hb-kth", "truthful", "shade-0.5", seeds=seeds)


def test_game_solve_json_says_on_stderr_what_the_text_says_of_the_game(tmp_path, capsys):
    """A 2 x 2 game of equal payoffs printed 4 equilibria as JSON and nothing of its being degenerate."""
    (tmp_path / "deg.csv").write_text("row,col,row_payoff,col_payoff\na,x,1,1\na,y,1,1\nb,x,1,1\nb,y,1,1\n")
    assert main(["game", "solve", str(tmp_path / "deg.csv"), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == "gamemarket: degenerate game: yes (all extreme equilibria listed)\n" and len(json.loads(out)) == 4


def test_a_status_query_moves_no_stored_run(tiny, capsys):
    """study status renamed a damaged run file to .corrupt and said its task "will be re-run", though it runs
    nothing; study run then sets it aside and runs it again."""
    assert main(["study", "run", str(tiny), "--no-progress", "--no-report"]) == 0
    runs = sorted((tiny.parent / "results" / "tiny" / "runs").glob("*.parquet"))
    runs[0].write_text("garbage")
    capsys.readouterr()
    assert main(["study", "status", str(tiny)]) == 0
    assert "7/8 runs stored, 1 missing" in capsys.readouterr().out and runs[0].read_text() == "garbage"
    assert main(["study", "run", str(tiny), "--no-progress", "--no-report"]) == 0
    assert runs[0].with_name(runs[0].name + ".corrupt").exists() and runs[0].stat().st_size > 7


def test_the_methods_of_a_workflow_call_are_names_not_letters(tiny):
    from gamemarket.workflow import run_study

    assert run_study(str(tiny), methods="pure", write_report=False).spec.name == "tiny"  # ("unknown method 'p'")
    with pytest.raises(InputError, match=r"load_study: results= must be a folder's path, got 5"):
        from gamemarket.studies import load_study

        load_study(str(tiny), results=5)
