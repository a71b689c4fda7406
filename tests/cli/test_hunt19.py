"""Regression rows of the session of 2026-12-05 (18:55-): the worth-a-look rows hunt 18c left, and the held-out
hunt of this session, each with its family."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.studies.spec import load_study
from gamemarket.workloads.swf import read_swf


def _files_of_other_kinds(tmp_path):
    """gamemarket's own files that are not traces, each as the command that reads it writes it."""
    assert main(["simulate", "--synthetic-jobs", "30", "--nodes", "4", "--jobs-out", str(tmp_path / "jt.csv")]) == 0
    np.savez(tmp_path / "pd.npz", A=[[3, 0], [5, 1]], B=[[3, 5], [0, 1]])
    (tmp_path / "g.nfg").write_text('NFG 1 R "g" { "a" "b" } { 2 2 }\n\n3 3 0 5 5 0 1 1\n')
    (tmp_path / "g.json").write_text('{\n  "type": "game.1", "roles": []\n}\n')
    (tmp_path / "s.txt").write_text('# a study\nname = "s"\n')
    (tmp_path / "t.txt").write_text("\n[workload]\nsource = 'synthetic'\n")
    return {
        "jt.csv": "CSV text (a job table",
        "pd.npz": "is a NumPy .npz archive",
        "g.nfg": "is a Gambit .nfg game",
        "g.json": "is JSON text",
        "s.txt": "TOML text",
        "t.txt": "TOML text",
    }


def test_workload_commands_name_gamemarkets_other_files(tmp_path, capsys):
    """Hunt 18c-W4: a job table, a Gambit game or a game's JSON given as a trace was a "malformed SWF line", and a
    game's .npz sent the user to unzip it for a trace; each is now named, with the command that reads it."""
    expected = _files_of_other_kinds(tmp_path)
    capsys.readouterr()
    for name, said in expected.items():
        with pytest.raises(InputError, match="not an SWF trace") as refused:
            read_swf(tmp_path / name)
        assert said in str(refused.value) and "unzip" not in str(refused.value), refused.value
        for command in (["workload", "info"], ["workload", "fit", "--out", str(tmp_path / "m.toml")]):
            assert main([*command, str(tmp_path / name)]) == 2
            err = capsys.readouterr().err
            assert said in err and err.count("\n") == 1, err
        assert not (tmp_path / "m.toml").exists()


def test_a_trace_with_words_in_its_comments_still_reads(tmp_path):
    """The other kinds are told by the first line that is not a comment: a header's ``; Key: value, more`` and a
    first job line after blank lines read as before."""
    (tmp_path / "t.swf").write_text(
        "; Version: 2.2, a comment = with, punctuation [x]\n;\n\n" + "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 -1 -1 -1\n"
    )
    assert len(read_swf(tmp_path / "t.swf").jobs) == 1


def test_a_workload_model_given_as_a_study_is_named(tmp_path, capsys):
    """The reverse of W4: `study status MODEL.toml` listed the model's tables as unknown fields of a study."""
    from importlib.resources import files

    model = files("gamemarket") / "data" / "models" / "lpc-egee-2004.toml"
    with pytest.raises(InputError, match=r"is a workload model \(format = .*\), not a study file; a study names it"):
        load_study(str(model))
    (tmp_path / "m.toml").write_text(model.read_text())
    assert main(["study", "run", str(tmp_path / "m.toml")]) == 2
    assert "is a workload model" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.toml"]


@pytest.mark.parametrize(
    "roles, players, strategies, said",
    [
        (["all"], [2], ["vs"], r"role 'all': strategies must be a list of names, got str 'vs' \(a text is not split"),
        ("ab", [2, 2], [["v"], ["s"]], r"roles must be a list of names, got str 'ab'"),
        (["all"], [2], "vs", r"strategies must be one list per role, got 'vs'"),
        ({"all": 1}, [2], [["v", "s"]], r"roles must be a list of names, got dict"),
        (["all"], [2], [b"vs"], r"role 'all': strategies must be a list of names, got bytes"),
        (["all"], [2], [{"v", "s"}], r"role 'all': strategies must be a list of names, got set"),  # (no order)
    ],
)
def test_a_text_given_for_a_list_of_names_is_refused(roles, players, strategies, said):
    """Hunt 18c-W5: a text where the API takes a list of names was split into its letters without a word
    (``["vs"]`` two strategies ``v`` and ``s``; roles ``"ab"`` two roles); now refused, naming the value."""
    from gamemarket.games.rsgame import RoleSymmetricGame

    with pytest.raises(InputError, match=said):
        RoleSymmetricGame.from_function(roles, players, strategies, lambda c: np.ones(2))
    game = RoleSymmetricGame.from_function(["all"], [2], [["v", "s"]], lambda c: np.array([0.7, 1.0]))
    assert game.strategies == (("v", "s"),) and game.roles == ("all",)


def test_alpharank_writes_one_number_format_and_refuses_a_subnormal_alpha(tmp_path, capsys):
    """Hunt 18c-W6: a whole log10 score (-8.7e15) was written with 16 digits and separators beside its neighbour's
    -2.606e+16, under "rounded: 4 significant digits"; an --alpha of 1e-320 was taken, and echoed as 9.99989e-321
    (a subnormal float: its digits lost)."""
    from gamemarket.games import Game
    from gamemarket.games.alpharank import alpharank

    np.savez(tmp_path / "pd.npz", A=[[3, 0], [5, 1]], B=[[3, 5], [0, 1]])
    game = str(tmp_path / "pd.npz")
    assert main(["game", "solve", game, "--concept", "alpharank", "--alpha", "1e11", "--population", "1000000"]) == 0
    table = capsys.readouterr().out.split("sensitivity")[0]
    scores = [line.split()[-1] for line in table.splitlines() if line.strip()[:1].isdigit()]
    assert len(scores) == 4 and scores[0] == "0" and all("e+1" in s and "," not in s for s in scores[1:]), table
    for alpha in ("1e-320", "1e-301", "0"):
        with pytest.raises(SystemExit) as refused:
            main(["game", "solve", game, "--concept", "alpharank", "--alpha", alpha])
        assert refused.value.code == 2
        assert f"expected a selection intensity >= 1e-300 and <= 1e+11, got {alpha}" in capsys.readouterr().err
    assert main(["game", "solve", game, "--concept", "alpharank", "--alpha", "1e-300"]) == 0
    assert "alpha 1e-300 " in capsys.readouterr().out
    with pytest.raises(InputError, match=r"alpha must be a number >= 2\.2250738585072014e-308 .*got 1e-320"):
        alpharank(Game([[3, 0], [5, 1]], [[3, 5], [0, 1]]), alpha=1e-320)


def test_a_plugin_listed_twice_and_a_gains_size_past_the_generators_are_refused(tmp_path):
    """Named limits of the last session: ``[plugins] modules`` took one plugin twice (under two spellings too), and
    ``[gains] jobs`` took sizes far past what ``[workload.hetero] jobs`` takes (1e12)."""
    from pathlib import Path

    (tmp_path / "pk.py").write_text(
        "from gamemarket.market import register_scheduler\nfrom gamemarket.market.schedulers import PriorityKey\n"
        'register_scheduler("pk-est-19", False, PriorityKey("estimate"), "test")\n'
    )
    base = 'name = "t"\n[plugins]\nmodules = {}\n'
    study = tmp_path / "t.toml"
    study.write_text(base.format('["pk.py", "./pk.py"]'))
    with pytest.raises(InputError, match=r"modules\[1\] \('\./pk\.py'\) is the plugin of modules\[0\] \('pk\.py'\)"):
        load_study(study)
    study.write_text(base.format('["pk.py"]'))
    assert len(load_study(study).plugins) == 1
    pricing = (Path(__file__).parents[2] / "studies" / "price-discovery-market.toml").read_text()
    assert "jobs = [100, 1000, 10000, 100000, 1000000]" in pricing
    study.write_text(pricing.replace("jobs = [100, 1000, 10000, 100000, 1000000]", "jobs = [100, 1000000000000]"))
    with pytest.raises(InputError, match=r"\[gains\].*jobs.*1000000000000"):
        load_study(study)


def test_a_pricing_providers_per_resource_list_is_checked_against_the_workload_at_load(tmp_path, capsys):
    """The last session's named limit: a provider's ``prices`` or ``reserve`` of another length than the workload's
    resources failed at the first run ("posted prices must be ... one per resource (4)"), naming neither the study
    nor the provider; it is now refused when the study is read, by every command, naming both."""
    study = tmp_path / "pp.toml"
    text = (
        'name = "pp"\n[workload]\nsource = "hetero"\n{workload}\n[strategies]\nproviders = ["p2"]\n'
        'consumers = ["FT", "SRG"]\n[strategies.provider.p2]\nkind = "pricing"\nmechanism = "{mechanism}"\n'
        "{key} = {values}\n[replications]\ncount = 2\n"
    )
    hetero = "[workload.hetero]\njobs = 100\nresources = 4\n"
    np.savez(tmp_path / "m.npz", A=np.ones((5, 3)), R=np.ones(3))
    for workload, resources, whose in ((hetero, 4, "[workload.hetero] resources"), ('file = "m.npz"', 3, "m.npz")):
        for mechanism, key in (("posted", "prices"), ("clearing-reserve", "reserve")):  # (what each reads)
            for values, fits in (("[1.0, 2.0]", False), (str([1.0] * resources), True), ("0.5", True)):
                study.write_text(text.format(workload=workload, mechanism=mechanism, key=key, values=values))
                if fits:
                    assert len(load_study(study).providers) == 1
                    continue
                with pytest.raises(InputError) as refused:
                    load_study(study)
                said = str(refused.value)
                assert said.startswith(f"{study}: [strategies.provider.p2] field '{key}': 2 number(s)"), said
                assert f"one per resource: {resources} (" in said and whose in said, said
                assert main(["study", "run", str(study), "--no-progress"]) == 2
                assert "[strategies.provider.p2]" in capsys.readouterr().err
                assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "pp.toml"]


def test_a_trace_with_a_stray_first_line_is_read_as_a_trace(tmp_path):
    """Review of W4's fix: a real trace whose first line is a stray title (no ';', a comma in it, or ``key = v``)
    was refused as CSV or TOML text, even with --skip-bad-lines; a head that holds a job line is a trace's."""
    job = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 -1 -1 -1\n"
    for stray in ("My trace, cleaned 2004\n", "version = 2\n", "[trace]\n"):
        (tmp_path / "t.swf").write_text(stray + job * 3)
        with pytest.raises(InputError, match="t.swf:1: malformed SWF line"):
            read_swf(tmp_path / "t.swf")
        assert len(read_swf(tmp_path / "t.swf", skip_bad_lines=True).jobs) == 3


def _two_studies_one_run(tmp_path) -> Path:
    """Two small studies, ``a/s.toml`` and ``b/s.toml`` (another load), the first run: its results folder."""
    from study_helpers import TINY

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    (tmp_path / "a" / "s.toml").write_text(TINY.format(count=2))
    (tmp_path / "b" / "s.toml").write_text(TINY.format(count=2).replace("load = 1.1", "load = 0.9"))
    assert main(["study", "run", str(tmp_path / "a" / "s.toml"), "--no-progress", "--no-report"]) == 0
    return tmp_path / "a" / "results" / "tiny"


def test_a_results_folder_of_another_study_is_refused_saying_what_a_run_does_there(tmp_path, capsys):
    """Review of the writes= change: `study run` and `report` into another study's results folder said "it would
    replace: .lock, last-run.json, tables/<its key>/...", where a run (even with --force) removes none of the folder's
    runs and replaces its tables (an index of the runs); the refusal now says what a run does there, and that holds."""
    a_results = _two_studies_one_run(tmp_path)
    before = sorted(str(p.relative_to(a_results)) for p in a_results.rglob("*") if p.is_file())
    capsys.readouterr()
    for command in (["study", "run", "--no-progress"], ["report"]):
        assert main([*command, str(tmp_path / "b" / "s.toml"), "--results", str(a_results)]) == 2
        err = capsys.readouterr().err
        assert "it would replace" not in err and "it removes none of the folder's runs" in err, err
    argv = ["study", "run", str(tmp_path / "b" / "s.toml"), "--results", str(a_results), "--no-progress"]
    assert main([*argv, "--no-report", "--force"]) == 0
    after = {str(p.relative_to(a_results)) for p in a_results.rglob("*") if p.is_file()}
    runs = {name for name in before if name.startswith("runs/")}
    assert len(runs) == 8 and runs < after and len(after) > len(before)  # no run removed, b's added
    # the first study's tables, replaced by the second's, are rebuilt from its runs when read
    assert main(["study", "run", str(tmp_path / "a" / "s.toml"), "--no-progress", "--no-report", "--force"]) == 0


def test_each_reader_names_gamemarkets_other_files(tmp_path, capsys):
    """Review of W4: the readers the other way round. A trace given as a job table was pandas' "Expected 1 fields",
    a trace or a job table given as a study "invalid TOML", a game with another ending "expected a study (.toml),
    ...", a game's arrays given as a price problem "missing array 'R'"; each now says what the file is."""
    job = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 -1 -1 -1\n"
    (tmp_path / "tr.swf").write_text("; Version: 2.2\n; Computer: x\n" + job * 3)
    (tmp_path / "tr.toml").write_text((tmp_path / "tr.swf").read_text())
    _files_of_other_kinds(tmp_path)
    (tmp_path / "jt.toml").write_text((tmp_path / "jt.csv").read_text())
    (tmp_path / "g.txt").write_text((tmp_path / "g.nfg").read_text())
    capsys.readouterr()
    cases = [
        (["simulate", "--job-table", str(tmp_path / "tr.swf"), "--nodes", "4"], "says it is an SWF trace"),
        (["study", "run", str(tmp_path / "tr.toml")], "says it is an SWF trace"),
        (["study", "run", str(tmp_path / "jt.toml")], "says it is CSV text (a job table"),
        (["game", "solve", str(tmp_path / "g.txt")], "says it is a Gambit .nfg game"),
        (["price", "solve", str(tmp_path / "pd.npz")], "A and B are a game's two payoff matrices"),
    ]
    for argv, said in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["tr.swf", "tr.toml", "jt.csv", "jt.toml", "pd.npz", "g.nfg", "g.json", "g.txt", "s.txt", "t.txt"]
    )


@settings(max_examples=200, deadline=None)
@given(
    stray=st.sampled_from(["", "My trace, 2004\n", "version = 2\n", "[x]\n", "# note\n", "\n\n", "; c, d = e\n"]),
    jobs=st.lists(st.lists(st.integers(-1, 10**9), min_size=18, max_size=18), min_size=1, max_size=40),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_a_traces_head_is_never_taken_for_another_kind(stray, jobs, crlf, bom):
    """Whatever stray line a trace opens with, a head (the first 512 bytes) that holds a job line or opens with a
    comment is a trace's: the other kinds are said only where the head says nothing of a trace."""
    from gamemarket.io.kinds import HEAD_BYTES, kind_of

    text = stray + "".join(" ".join(map(str, j)) + "\n" for j in jobs)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.replace("\n", "\r\n" if crlf else "\n").encode()
    head = data[:HEAD_BYTES]
    found = kind_of(head)
    whole_job_line_in_head = len(head) == len(data) or head.count(b"\n") > len(stray.splitlines()) + 1
    if whole_job_line_in_head or stray.startswith(";"):
        assert found is not None and found[0].name == "swf", (text[:200], found)


@pytest.mark.parametrize("method", ["support_enumeration"])  # (vertex enumeration fails on a degenerate game)
def test_an_enumeration_stopped_at_its_limit_keeps_what_it_found(method, tmp_path, capsys):
    """Hunt 19a-F2: nashpy's support and vertex enumerations were collected whole in the worker, so a time limit
    threw away every equilibrium they had yielded (a 40 x 40 zero game: "0 equilibria", its first answers found in
    milliseconds); each is now sent as it is found, verified, and printed with the note."""
    from gamemarket.games import Game, solve

    sol = solve(Game(np.zeros((30, 30)), np.zeros((30, 30))), methods=[method], time_limit=2)
    assert not sol.complete and sol.equilibria, sol.notes
    assert all(max(e.regret) == 0 for e in sol.equilibria)
    assert any(f"nashpy {method}: stopped at its time limit of 2 s" in n for n in sol.notes), sol.notes
    np.savez(tmp_path / "z.npz", A=np.zeros((30, 30)), B=np.zeros((30, 30)))
    assert main(["game", "solve", str(tmp_path / "z.npz"), "--methods", method, "--time-limit", "2"]) == 3
    out = capsys.readouterr().out
    assert "equilibria: 0" not in out and "found by then" in out


@pytest.mark.parametrize("players", [("payoffs", "regret"), ("pure", "found_by"), ("game", "b"), ("a", "robustness")])
def test_a_player_named_as_a_key_of_the_json_record_is_refused_in_json(players, tmp_path, capsys):
    """Hunt 19a-F1: `game solve --format json` of a Gambit game whose player is named `payoffs`, `regret`, `pure` or
    `found_by` wrote the record's own keys over the mixtures, exit 0; refused now, naming the player (the text
    answer, which has no such keys, still prints)."""
    path = tmp_path / "clash.nfg"
    path.write_text(
        f'NFG 1 R "clash" {{ "{players[0]}" "{players[1]}" }}\n{{ {{ "a" "b" }} {{ "x" "y" }} }}\n\n1 0 0 1 0 1 1 0\n'
    )
    assert main(["game", "solve", str(path), "--format", "json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "is the name of a key of an equilibrium's JSON record" in captured.err
    assert main(["game", "solve", str(path)]) == 0
    assert "0.5 a + 0.5 b" in capsys.readouterr().out


def test_a_binary_file_is_said_to_be_what_it_is_not_utf16(tmp_path, capsys):
    """Hunt 19a-F3: any file whose first 4 KiB were a third NULs was "UTF-16 text, not UTF-8: save it as UTF-8" (a
    game's .npz given as a CSV, .nfg or .json game, a compiled program given as a study); a random job table was the
    codec's own words. Each is now named for what it is; UTF-16 is said where a NUL falls in every other byte."""
    np.savez(tmp_path / "z.npz", A=np.zeros((40, 40)), B=np.zeros((40, 40)))
    data = (tmp_path / "z.npz").read_bytes()
    cases = {
        "w.csv": (data, ["game", "solve"], "is a NumPy .npz archive"),
        "w.nfg": (data, ["game", "solve"], "is a NumPy .npz archive"),
        "w.json": (data, ["game", "solve"], "is a NumPy .npz archive"),
        "w.toml": (b"\x7fELF\x02\x01\x01" + bytes(4000), ["study", "run"], "is a compiled program (ELF), not text"),
        "u.toml": ('name = "x"\n'.encode("utf-16-le") * 20, ["study", "run"], "is UTF-16 text, not UTF-8"),
        "g.csv": (bytes(range(128, 256)) * 20, ["simulate", "--nodes", "2", "--job-table"], "not a text file"),
        "n.csv": (data, ["simulate", "--nodes", "2", "--job-table"], "is a NumPy .npz archive"),
    }
    for name, (content, command, said) in cases.items():
        (tmp_path / name).write_bytes(content)
        assert main([*command, str(tmp_path / name)]) == 2, name
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1 and "codec" not in err, (name, err)
        assert "UTF-16" not in err or name == "u.toml", (name, err)


def test_a_role_symmetric_game_of_subnormal_payoffs_is_refused_not_misanswered(tmp_path, capsys):
    """Hunt 19a-F4: payoffs of 1e-310 (b strictly dominant) were solved under tolerances floored at 1e-308: every
    regret 0, "1 a" listed (regret 1e-310) and the only equilibrium, "1 b", left out, exit 0. Refused now, naming the
    spread; the same game at 1e-300 is solved ("1 b" alone)."""
    from gamemarket.games.egta import read_egta
    from gamemarket.games.rsg_equilibria import equilibria

    body = (
        '{{"players": {{"r": 2}}, "strategies": {{"r": ["a", "b"]}}, "profiles": [{{"r": [["a", 2, {u}]]}}, '
        '{{"r": [["a", 1, 0.0], ["b", 1, {v}]]}}, {{"r": [["b", 2, {u}]]}}]}}'
    )
    path = tmp_path / "tiny.json"
    path.write_text(body.format(u="1e-310", v="2e-310"))
    assert main(["game", "solve", str(path)]) == 2
    assert "payoffs spread over 2e-310, below 1e-300" in capsys.readouterr().err
    with pytest.raises(InputError, match="below 1e-300"):
        equilibria(read_egta(path))
    path.write_text(body.format(u="1e-300", v="2e-300"))
    answer = equilibria(read_egta(path))
    assert [e.mixture.tolist() for e in answer.equilibria] == [[0.0, 1.0]]


def test_a_role_symmetric_answer_prints_its_notes_and_says_every_mixture_only_where_true(tmp_path, capsys):
    """Hunt 19a-F5 and F6: `game solve` of an EGTA game printed the solver's notes only of an unfinished search (a
    duplicate strategy's equilibria, listed once, went unsaid); and "every mixture is an equilibrium" was noted of a
    coordination game (each profile's own strategies paid alike), beside its three isolated equilibria."""
    from gamemarket.games.egta import read_egta
    from gamemarket.games.rsg_equilibria import equilibria

    one = '{{"players": {{"r": 2}}, "strategies": {{"r": ["a", "{s}"]}}, "profiles": [{profiles}]}}'
    coordination = one.format(
        s="c", profiles='{"r": [["a", 2, 1.0]]}, {"r": [["a", 1, 0.0], ["c", 1, 0.0]]}, {"r": [["c", 2, 1.5]]}'
    )
    constant = one.format(
        s="b", profiles='{"r": [["a", 2, 5.0]]}, {"r": [["a", 1, 5.0], ["b", 1, 5.0]]}, {"r": [["b", 2, 5.0]]}'
    )
    # every player indifferent, whatever the others play, yet the payoffs move with the others: every mixture
    indifferent = one.format(
        s="b", profiles='{"r": [["a", 2, 3.0]]}, {"r": [["a", 1, 1.0], ["b", 1, 3.0]]}, {"r": [["b", 2, 1.0]]}'
    )
    every = "every mixture is an equilibrium"
    for name, body, says in (("co", coordination, False), ("k", constant, True), ("i", indifferent, True)):
        path = tmp_path / f"{name}.json"
        path.write_text(body)
        answer = equilibria(read_egta(path))
        assert any(every in n for n in answer.notes) == says, (name, answer.notes)
        if not says:
            assert max(read_egta(path).regret(np.array([0.5, 0.5])), 0) > 0.1
        assert main(["game", "solve", str(path)]) == 0
        out = capsys.readouterr().out
        assert (every in out) == says and out.count("  note: ") == len(answer.notes), out
        assert main(["game", "solve", str(path), "--format", "json"]) == 0
        err = capsys.readouterr().err
        assert err.count("gamemarket: note: ") == len(answer.notes), err


def test_a_payoff_table_is_sized_before_its_matrices_are_made(tmp_path, monkeypatch):
    """Hunt 19a-F7: a payoff table's matrices were sized from its distinct names unchecked: 3,000 names a side (a
    6,000-line file) took 661 MB under a 50 MB limit, and 100,000 a side ran out of memory before the table was found
    incomplete. An incomplete table is said at once; a complete one is checked against the limit."""
    from gamemarket.games.io import read_csv_game

    path = tmp_path / "sparse.csv"
    lines = ["row,col,row_payoff,col_payoff"]
    lines += [f"r{i},x,1,0" for i in range(3000)] + [f"a,c{j},1,0" for j in range(3000)]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"6,000 payoff line\(s\) for 3,001 x 3,001 strategies: a complete game"):
        read_csv_game(path)
    path.write_text(
        "row,col,row_payoff,col_payoff\n" + "".join(f"r{i},c{j},1,0\n" for i in range(60) for j in range(60))
    )
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", "50000")
    # (since hunt 25b-F2 the table's text is sized before it is parsed: a complete table's text, a line a profile,
    # always needs more than its two matrices, so that check is the one that refuses it)
    with pytest.raises(InputError, match=r"bytes of CSV game needs about"):  # (by its length: hunt 29b-F3)
        read_csv_game(path)


CELL = st.sampled_from(
    [
        "1",
        "-2.5",
        "0",
        " 3 ",
        "1e3",
        "1_000",
        "x",
        "",
        "nan",
        "inf",
        "1,000",
        "9007199254740993",
        "1/2",
        "4/2",
        "0.1234567890123456",
        "+7",
        "1e400",
        "NaN",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    m=st.integers(1, 4),
    n=st.integers(1, 4),
    cells=st.lists(st.tuples(CELL, CELL), min_size=16, max_size=16),
    drop=st.integers(0, 20),
    again=st.integers(0, 20),
    plain=st.booleans(),
)
def test_the_payoff_tables_fast_read_is_its_line_by_line_reference(m, n, cells, drop, again, plain):
    """The payoff table's cells read at once (hunt 19a-W7: 20 s a million lines one by one) give what the plain
    line-by-line reference gives: the same matrices, or the same first error."""
    from gamemarket.games import io as gio

    profiles = [(f"r{i}", f"c{j}") for i in range(m) for j in range(n)]
    if drop < len(profiles) and m * n > 1:
        profiles.pop(drop)
    if again < len(profiles):
        profiles.append(profiles[again])
    rows = [(a, b, *(("1", "2") if plain else cells[k % len(cells)])) for k, (a, b) in enumerate(profiles)]
    df = pd.DataFrame(rows, columns=["row", "col", "row_payoff", "col_payoff"])
    names = (list(dict.fromkeys(df["row"])), list(dict.fromkeys(df["col"])))
    outcomes = []
    for read in (gio._payoff_cells, gio._payoff_cells_reference):
        try:
            outcomes.append(read(Path("t.csv"), df, "row", "col", *names))
        except InputError as exc:
            outcomes.append(str(exc))
    fast, reference = outcomes
    if isinstance(reference, str):
        assert fast == reference
    else:
        assert not isinstance(fast, str), fast
        assert all(np.array_equal(f, g, equal_nan=True) for f, g in zip(fast, reference))


@pytest.mark.parametrize(
    "reader",
    [
        "gamemarket.games.egta:read_egta",
        "gamemarket.games.io:read_nfg",
        "gamemarket.games.io:read_csv_game",
        "gamemarket.games.io:read_npz_game",
        "gamemarket.io.jobtable:read",
        "gamemarket.io.jobtable:read_columns",
        "gamemarket.pricing.problem:read_npz",
        "gamemarket.pricing.problem:load",
        "gamemarket.workloads.swf:read_swf",
        "gamemarket.io.files:read_text",
        "gamemarket.io.files:read_toml",
    ],
)
@pytest.mark.parametrize("bad", [3, b"g.json", None, ["g.json"], ""])
def test_every_reader_names_an_argument_that_is_no_path(reader, bad):
    """Hunt 19a-W5: the Python readers gave pathlib's bare TypeError for an argument of another type (read_egta of
    bytes, read_nfg of 3), where load_study names it; each now raises an InputError naming its argument."""
    import importlib

    module, name = reader.split(":")
    with pytest.raises(InputError, match="must be a path|read from a path"):
        getattr(importlib.import_module(module), name)(bad)


def test_a_population_reports_tidy_table_points_to_its_json_game(capsys):
    """Hunt 19a-W1: `game solve` of a population report's tidy game table listed the columns it expected and
    stopped there; it now says what the table is and names the EGTA JSON game beside it, which solves."""
    folder = Path(__file__).resolve().parents[2] / "reports" / "population-default" / "data"
    table = sorted(folder.glob("game-*.csv"))[0]
    assert main(["game", "solve", str(table)]) == 2
    err = capsys.readouterr().err
    assert "a role-symmetric game's tidy table" in err and f"({table.with_suffix('.json').name})" in err, err
    assert main(["game", "solve", str(table.with_suffix(".json"))]) == 0


def test_study_status_says_whose_results_folder_it_counts(tmp_path, capsys):
    """Hunt 19a-W2: `study status --results <another study's folder>` counted "0/18 stored" without a word, where
    `study run` and `report` say the folder belongs to the other study; status says so too (and writes nothing)."""
    a_results = _two_studies_one_run(tmp_path)
    capsys.readouterr()
    before = sorted(p.name for p in a_results.rglob("*"))
    assert main(["study", "status", str(tmp_path / "b" / "s.toml"), "--results", str(a_results)]) == 0
    captured = capsys.readouterr()
    assert f"this results folder belongs to {tmp_path / 'a' / 's.toml'}, not to this study" in captured.err
    assert "0/8 runs stored" in captured.out
    assert main(["study", "status", str(tmp_path / "a" / "s.toml")]) == 0
    assert capsys.readouterr().err == ""
    assert sorted(p.name for p in a_results.rglob("*")) == before
    assert main(["study", "status", str(tmp_path / "b" / "s.toml")]) == 0  # its own folder, not made: none made
    assert not (tmp_path / "b" / "results").exists()


def test_a_lost_dask_scheduler_is_said_in_a_short_line_and_not_blamed_on_the_workers():
    """Hunt 19a-W4: the scheduler killed mid-run gave one line carrying dask's keys of ~80 cancelled runs (2.5 kB);
    killed before a worker joined, "the dask scheduler there has no worker (none joined ...)" blamed the workers."""
    from gamemarket.studies.runner import _check_workers
    from gamemarket.workers import _scheduler_lost

    class FutureCancelledError(Exception):
        pass

    keys = ", ".join(f"'run-{k:032x}'" for k in range(80))
    exc = FutureCancelledError(f"({keys}) cancelled for reason: scheduler-connection-lost.")

    class Client:
        status = "closed"
        scheduler = type("S", (), {"address": "tcp://127.0.0.1:1"})()

        def wait_for_workers(self, n, timeout):
            raise TimeoutError("no worker")

        def close(self):
            pass

    said = str(_scheduler_lost(Client(), exc))
    assert "(FutureCancelledError: scheduler-connection-lost)" in said and "run-" not in said and len(said) < 300
    with pytest.raises(InputError, match=r"the dask scheduler there stopped answering before a worker joined"):
        _check_workers(Client(), "tcp://127.0.0.1:1")
    Client.status = "running"
    with pytest.raises(InputError, match=r"has no worker \(none joined within"):
        _check_workers(Client(), "tcp://127.0.0.1:1")


@pytest.mark.parametrize("catalogue", ["consumers.toml", "providers.toml", "shading.toml"])
def test_a_strategy_catalogue_given_as_a_study_is_named(catalogue, tmp_path, capsys):
    """Review of hunt 19a: a strategy catalogue given as a study listed its strategies as unknown fields of a study;
    it is named as a catalogue (a misspelt study table, [Workload], is still an unknown field)."""
    source = Path(__file__).resolve().parents[2] / "strategies" / catalogue
    (tmp_path / catalogue).write_text(source.read_text())
    assert main(["study", "status", str(tmp_path / catalogue)]) == 2
    assert "a strategy catalogue (consumers.toml, providers.toml, shading.toml), not a study file" in (
        capsys.readouterr().err
    )
    (tmp_path / "mis.toml").write_text('[Workload]\nsource = "synthetic"\n')
    assert main(["study", "status", str(tmp_path / "mis.toml")]) == 2
    assert "unknown field(s) ['Workload']" in capsys.readouterr().err


def test_population_study_status_names_records_that_do_not_read(tmp_path, capsys):
    """Hunt 19a-W6: `study status` of a population study counted the initial seeds' runs only, "8/8 stored", beside
    an edited record that `report` refuses; it now says how many stored records do not read, naming the first, and
    moves nothing."""
    import json

    from study_helpers import write_population_study

    study = write_population_study(tmp_path)
    assert main(["study", "run", str(study), "--no-progress", "--no-report", "--n-jobs", "1"]) == 0
    capsys.readouterr()
    records = sorted((tmp_path / "studies" / "results" / "population").glob("*.json"))
    assert len(records) > 2
    rec = json.loads(records[-1].read_text())
    rec["key"] = "edited"  # (what a hand's edit does to a record: it is no longer the run of its key)
    records[-1].write_text(json.dumps(rec))
    assert main(["study", "status", str(study)]) == 0
    out = capsys.readouterr().out
    assert f"1 of the {len(records):,} stored records do not read (first: " in out and records[-1].name in out, out
    assert records[-1].exists() and not records[-1].with_suffix(".json.corrupt").exists()


def test_a_gzipped_file_of_another_kind_is_named_and_a_gzipped_trace_reads(tmp_path):
    """Review of hunt 19a: a gzipped job table given as a trace was still a "malformed SWF line" (the check looked at
    the compressed bytes only); what the stream decompresses to is told now. A gzipped trace reads as before."""
    import gzip

    rows = "".join(f"{k},{k * 10},100,200,5.0,5.0\n" for k in range(200))
    (tmp_path / "jt.csv.gz").write_bytes(
        gzip.compress(b"id,submit,runtime,estimate,private_bid,reported_bid\n" + rows.encode())
    )
    with pytest.raises(InputError, match=r"jt.csv.gz: gzip-compressed; its line 1 .* says it is CSV text"):
        read_swf(tmp_path / "jt.csv.gz")
    job = "1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 -1 -1 -1\n"
    (tmp_path / "t.swf.gz").write_bytes(gzip.compress(("My trace, 2004\n; Version: 2\n" + job * 400).encode()))
    assert len(read_swf(tmp_path / "t.swf.gz", skip_bad_lines=True).jobs) == 400


def _dominance_reference(A, B, tol):
    """Iterated strict dominance as it was written first: the whole m x m x n comparison at once."""
    rows, cols = np.ones(A.shape[0], bool), np.ones(A.shape[1], bool)
    changed = True
    while changed:
        changed = False
        Ar, ri = A[np.ix_(rows, cols)], np.flatnonzero(rows)
        out = (Ar[:, None, :] > Ar[None, :, :] + tol[0]).all(axis=2).any(axis=0)
        if out.any() and (~out).any():
            rows[ri[out]], changed = False, True
        Bc, ci = B[np.ix_(rows, cols)], np.flatnonzero(cols)
        out = (Bc.T[:, None, :] > Bc.T[None, :, :] + tol[1]).all(axis=2).any(axis=0)
        if out.any() and (~out).any():
            cols[ci[out]], changed = False, True
    return rows, cols


@settings(max_examples=200, deadline=None)
@given(m=st.integers(1, 9), n=st.integers(1, 9), seed=st.integers(0, 10**6), block=st.sampled_from([1, 7, 64, 1 << 25]))
def test_blocked_dominance_is_the_whole_comparison(m, n, seed, block):
    """Hunt 19b-F1: iterated dominance compares in blocks now (the whole m x m x n array took 25 GiB of a 3,000 x
    3,000 game); whatever the block, it keeps what the whole comparison keeps (integer payoffs: ties and chains)."""
    from gamemarket.games import equilibria as eq

    rng = np.random.default_rng(seed)
    A, B = rng.integers(0, 4, (m, n)).astype(float), rng.integers(0, 4, (m, n)).astype(float)
    saved = eq.DOMINANCE_BLOCK_BYTES
    eq.DOMINANCE_BLOCK_BYTES = block
    try:
        got = eq.dominance(A, B, (0.0, 0.0))
    finally:
        eq.DOMINANCE_BLOCK_BYTES = saved
    want = _dominance_reference(A, B, (0.0, 0.0))
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_a_large_game_is_sized_before_it_is_solved_and_its_elimination_keeps_the_time_limit(monkeypatch):
    """Hunt 19b-F1 and F2: a 3,000 x 3,000 game's dominance step asked for 25 GiB, unsized, and a 2,000 x 2,000
    game's ran 83 s under a 5 s limit; a float32 .npz passed the limit as stored, its float64 copies 5 times it.
    The solver sizes its copies first, and the elimination stops at the limit, saying so."""
    import time

    from gamemarket.games import Game, solve

    rng = np.random.default_rng(0)
    g = Game(rng.random((800, 800)), rng.random((800, 800)))
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(40_000_000))
    with pytest.raises(InputError, match=r"solving a 800 x 800 game \(its payoffs and the solver's copies\)"):
        solve(g)
    monkeypatch.delenv("GAMEMARKET_MEMORY_LIMIT")
    t = time.perf_counter()
    sol = solve(g, time_limit=0.2)
    assert time.perf_counter() - t < 30 and not sol.complete
    # (at its share of the limit, the rest the methods': hunt 39c-W1)
    said = "partial: iterated dominance stopped at its share of the time limit (0.1 of 0.2 s)"
    assert any(n.startswith(said) for n in sol.notes), sol.notes
    assert all(max(e.regret) <= 1e-6 for e in sol.equilibria)


def test_a_float32_game_archive_is_sized_as_the_game_holds_it(tmp_path, monkeypatch, capsys):
    """Hunt 19b-F2: a float32 .npz was sized as stored (4 bytes a payoff), then held as float64 copies, five times
    the limit; it is sized as float64 (three copies at the peak: hunt 25b-F1) before any array is read."""
    z = np.zeros((1000, 1000), dtype=np.float32)
    np.savez_compressed(tmp_path / "g32.npz", A=z, B=z)
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(20_000_000))  # (the arrays as stored: 8 MB; as float64: 32)
    assert main(["game", "solve", str(tmp_path / "g32.npz")]) == 2
    assert "a game of 2,000,000 payoffs (as read, as float64 and the game's copy)" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["first", "last"])
def test_a_role_declared_twice_in_egta_onlines_layout_is_named(where, tmp_path):
    """Hunt 19b-F3: a role declared twice in an egta-online game's `roles` was read with the last declaration (the
    first dropped without a word), or blamed on the profiles ("counts sum to 2, but the role has 5 players")."""
    import json

    from gamemarket.games.egta import read_egta

    base = json.loads((Path(__file__).resolve().parents[1] / "games" / "data" / "egta-online-layout.json").read_text())
    again = {"name": base["roles"][0]["name"], "strategies": ["b"], "count": 7}
    if where == "first":
        base["roles"].insert(0, again)
    else:
        base["roles"].append(again)
    (tmp_path / "g.json").write_text(json.dumps(base))
    with pytest.raises(InputError, match=rf"roles #1 and #{len(base['roles'])} both name the role '{again['name']}'"):
        read_egta(tmp_path / "g.json")


def test_game_files_take_their_formats_numbers_only_and_name_the_file(tmp_path, capsys):
    """Hunt 19b-W2 and W3: Python's 1_000 was read as 1000 in a payoff table and an .nfg (while 1,5 was refused),
    1e400 in an .nfg was "payoff at (2, 2) is inf", and a payoff table's range beyond floats was said without its
    file."""
    head = "provider,consumer,provider_payoff,consumer_payoff\n"
    cases = {
        "us.csv": (head + "a,x,1_000,1\na,y,0,0\nb,x,0,0\nb,y,2,2\n", "column 'provider_payoff' is '1_000'"),
        "us.nfg": ('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n3 0 5 1 1_000 0 0 1\n', "expected a number, got '1_000'"),
        "e.nfg": ('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1/3 1 0 0 0 0 1 1e400\n', "'1e400' is beyond the float range"),
        "i.nfg": ('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1 1 0 0 0 0 1 inf\n', "expected a number, got 'inf'"),
        "big.csv": (head + "a,x,1e308,1\na,y,-1e308,0\nb,x,0,0\nb,y,2,2\n", "payoffs range from -1e+308 to 1e+308"),
    }
    for name, (text, said) in cases.items():
        (tmp_path / name).write_text(text)
        assert main(["game", "solve", str(tmp_path / name)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith(f"gamemarket: error: {tmp_path / name}: ") and said in err, err


def test_a_record_beyond_the_traces_machine_is_warned_of(tmp_path):
    """Hunt 19b-W1: one record of 99,999,999 processors on a machine of 400 (the header's MaxProcs) became 100
    million serial jobs and an offered load of 20 without a word; the market model's split stands, with a warning."""
    job = "{k} 0 0 10 {p} -1 -1 {p} 20 -1 1 1 1 1 1 -1 -1 -1\n"
    text = "; MaxProcs: 4\n" + "".join(job.format(k=k, p=1) for k in range(1, 4)) + job.format(k=4, p=9)
    (tmp_path / "t.swf").write_text(text)
    with pytest.warns(UserWarning, match=r"a record asks for 9 processors, more than the trace's MaxProcs \(4\)"):
        assert len(read_swf(tmp_path / "t.swf").jobs) == 12
    (tmp_path / "t.swf").write_text(text.replace("MaxProcs: 4", "MaxProcs: 9"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_swf(tmp_path / "t.swf")


@pytest.mark.parametrize("nodes", [4, 64])
def test_workload_info_draws_a_generated_workload_for_the_nodes_asked(nodes, capsys):
    """Hunt 19c-F1: `workload info synthetic --nodes N` drew the workload for 32 nodes and divided its load by N
    (7.2 at 4 nodes, 0.45 at 64), where simulate and a study draw it for N nodes at the load asked (0.9)."""
    from gamemarket.workloads import load

    assert main(["workload", "info", "synthetic", "--nodes", str(nodes)]) == 0
    out = capsys.readouterr().out
    said = next(line.split()[-1] for line in out.splitlines() if line.startswith("offered_load"))
    drawn = load("synthetic", nodes=nodes).info(nodes=nodes)
    assert float(said) == pytest.approx(drawn["offered_load"], rel=1e-4) and float(said) == pytest.approx(0.9, rel=0.05)
    with pytest.raises(InputError, match="workload source must be 'synthetic'.*got ''"):
        load("")


def test_an_incomplete_payoff_table_names_its_first_missing_profile(tmp_path):
    """Hunt 19c-W2: an incomplete payoff table was said to be so without the profile missing, or the names that
    differ only by spaces (``a`` and ``a ``) that made it so."""
    from gamemarket.games.io import read_csv_game

    head = "provider,consumer,provider_payoff,consumer_payoff\n"
    (tmp_path / "m.csv").write_text(head + "a,x,1,2\na,y,3,4\nb,x,5,6\n")
    with pytest.raises(InputError, match=r"the first missing is \(b, y\)$"):
        read_csv_game(tmp_path / "m.csv")
    (tmp_path / "s.csv").write_text(head + "a,x,1,2\na ,y,3,4\nb,x,5,6\nb,y,7,8\n")
    with pytest.raises(InputError, match=r"the first missing is \(a, y\); names that differ only by spaces: 'a' and"):
        read_csv_game(tmp_path / "s.csv")


def test_a_default_output_folder_is_named_as_the_default(tmp_path, capsys):
    """Hunt 19c-W3: `report --report <the results folder>` of a study with no [output] table blamed "[output]
    results", a field the file does not have; the default is named as one."""
    from study_helpers import TINY

    study = tmp_path / "s.toml"
    study.write_text(TINY.format(count=2))
    assert main(["report", str(study), "--report", str(tmp_path / "results" / "tiny")]) == 2
    err = capsys.readouterr().err
    assert "the results and report folders (the default results/tiny and --report) are one folder" in err, err


def test_an_egta_online_role_count_is_named_as_the_file_spells_it(tmp_path):
    """Hunt 19c-W1: a role count of 0 in egta-online's layout was said of "field 'players.consumers'", which the
    file does not have (it holds roles[].count)."""
    import json

    from gamemarket.games.egta import read_egta

    game = json.loads((Path(__file__).resolve().parents[1] / "games" / "data" / "egta-online-layout.json").read_text())
    game["roles"][0]["count"] = 0
    (tmp_path / "g.json").write_text(json.dumps(game))
    with pytest.raises(InputError, match=r"roles #1 \('consumers'\): field 'count' is 0; expected a whole number >= 1"):
        read_egta(tmp_path / "g.json")


def test_a_studys_strategy_that_redefines_a_catalogue_name_is_warned_of(tmp_path):
    """Hunt 19c-W6: `[strategies.consumer.SRG] groups = [[1.0, 0.3]]` replaced the paper's SRG without a word (the
    reports then said "SRG" of everyone shading 0.3); overriding stands, with a warning naming both."""
    from study_helpers import TINY

    study = tmp_path / "s.toml"
    study.write_text(TINY.format(count=2) + "[strategies.consumer.SRG]\ngroups = [[1.0, 0.3]]\n")
    with pytest.warns(UserWarning, match=r"\[strategies.consumer.SRG\] redefines the catalogue's consumer strategy"):
        load_study(study)
    study.write_text(TINY.format(count=2) + "[strategies.consumer.SRG]\ngroups = [[0.9, 0.1], [0.1, 0.9]]\n")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_study(study)  # the same parameters: nothing to say


def test_a_subnormal_private_bid_gives_no_stray_warning(tmp_path, capsys):
    """Fuzz run X: a job table's private bid of 1e-320 beside a reported bid of 0.847 overflowed the ratio of the
    two in the count of bids above the private ones, and numpy's RuntimeWarning was printed beside the answer."""
    import warnings

    (tmp_path / "t.csv").write_text("id,submit,runtime,estimate,private_bid,reported_bid\n0,425,127,204,1e-320,0.847\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["simulate", "--job-table", str(tmp_path / "t.csv"), "--nodes", "1"]) == 0
    assert "RuntimeWarning" not in capsys.readouterr().err
