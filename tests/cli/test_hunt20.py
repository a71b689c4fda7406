"""Regression rows of the session of 2026-12-05 (22:05-): the limits the last session named, and the held-out
hunts of this session, each with its family."""

import contextlib
import gzip
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from math import comb
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from gamemarket import workers
from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.games import Game, solve
from gamemarket.games.bimatrix import from_results
from gamemarket.games.budget import SearchClock, TimeUp
from gamemarket.games.io import read_csv_game
from gamemarket.games.rsg_equilibria import _gain_roots, regret_minimize
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.market.payments import PAYMENTS, payment_rule
from gamemarket.market.payoffs import unit
from gamemarket.plugins import local_workers
from gamemarket.pricing import problem as price_problem
from gamemarket.reports import drawing
from gamemarket.reports.exploration import mixture_of
from gamemarket.reports.population import HOW_TO_READ
from gamemarket.search.exploration import read_stored_exploration
from gamemarket.search.probe import ProbeAnswer, probe
from gamemarket.studies import load_study
from gamemarket.studies import run_study as run_simulations
from gamemarket.workloads.swf import read_swf
from study_helpers import EXPLORING, SMALL_DESIGN, TINY, sorted_metrics, write_population_study, write_study

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "text,said",
    [
        ('NFG 1 R "g" { "a" "b" } { 2 2 }\n# pay\n1 1 0 0 0 0 1 1\n', "expected 8 payoffs for a 2x2 game, found 10"),
        ('NFG 1 R "g" { "a" "b" } { 2 2 }\n1 1 0 0 0 0 1 #1\n', "expected a number, got '#1'"),
        (
            'NFG 1 R "g" { "P1" "P2" } { { "x" "y" } { "u" "v" } }\n""\n{ { "" 1 1 } }\n1 0 0 1 # ends\n',
            "expected a number, got '#'",
        ),
    ],
)
def test_a_hash_in_an_nfg_is_said_to_be_no_comment(text, said, tmp_path, capsys):
    """Hunt 19b-W2's last row: a ``#`` in an .nfg file was counted as a payoff, the cause unsaid."""
    (tmp_path / "g.nfg").write_text(text)
    assert main(["game", "solve", str(tmp_path / "g.nfg")]) == 2
    err = capsys.readouterr().err
    assert said in err and "an .nfg file has no comments" in err and err.count("\n") == 1, err


def test_a_price_problems_utility_saved_as_bytes_reads_and_another_array_is_named(tmp_path):
    """Hunt 19b-W2: a ``utility`` saved as bytes was named ``np.bytes_(b'log')``, an unknown utility."""
    p = price_problem.synthetic(6, 2, "linear")
    np.savez(tmp_path / "b.npz", A=p.A, R=p.R, utility=np.bytes_(b"linear"))
    assert price_problem.load(tmp_path / "b.npz").utility.name == "linear"
    np.savez(tmp_path / "x.npz", A=p.A, R=p.R, utility=np.bytes_(b"\xfflog"))
    with pytest.raises(InputError, match=r"x.npz: array 'utility' holds \|S4 of shape \(\); expected one name"):
        price_problem.load(tmp_path / "x.npz")


def test_a_reports_markdown_holds_no_raw_html_of_a_name_or_a_description(tmp_path):
    """Hunt 18b-W5: a consumer named ``<img src=x onerror=...>`` and a description holding HTML and a NUL reached
    ``report.md`` raw (``index.html`` escaped them); both pages now show them as text."""
    evil = "<i>z</i>"  # (short: a long name overlaps the heatmap's labels, a warning the suite makes an error)
    body = TINY.format(count=2).replace('consumers = ["FT", "SRG"]', f'consumers = ["FT", "{evil}"]')
    body = 'description = "see <script>alert(2)</script> and \\u0000 here"\n' + body
    body += f'[strategies.consumer."{evil}"]\ngroups = [[0.9, 0.1], [0.1, 0.9]]\n'
    study = write_study(tmp_path, body)
    assert main(["study", "run", str(study), "--n-jobs", "1", "--no-progress"]) == 0
    md = (tmp_path / "studies" / "reports" / "tiny" / "report.md").read_text()
    assert "&lt;i>z&lt;/i>" in md and "&lt;script>" in md and "\x00" not in md
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(md)
    raw = [c.content for t in tokens for c in [t, *(t.children or [])] if c.type in ("html_inline", "html_block")]
    assert raw == []


@pytest.mark.parametrize("metric", ["mean_bsd", "ssj_share"])
def test_a_consumer_metric_wanted_low_is_played_negated(metric):
    """Hunt 20a-F1: a game of ``mean_bsd`` (or ``ssj_share``) was solved with the consumers maximising their
    slowdown; each side maximises its payoff, so a metric wanted low is played negated, and named so."""
    rows = []
    for p, rev in (("hb-first", 10.0), ("hb-kth", 9.0)):
        for c, low in (("FT", 2.0), ("SRG", 5.0)):  # FT: the lower slowdown under either mechanism
            rows += [{"provider": p, "consumer": c, "seed": s, "revenue": rev, metric: low + 0.1 * s} for s in (1, 2)]
    g = from_results(pd.DataFrame(rows), "revenue", metric)
    assert g.meta["consumer_payoff"] == f"-{metric}" and g.meta["provider_payoff"] == "revenue"
    assert np.allclose(g.B, [[-2.15, -5.15], [-2.15, -5.15]])
    (eq,) = solve(g).equilibria
    assert g.rows[int(np.argmax(eq.x))] == "hb-first" and g.cols[int(np.argmax(eq.y))] == "FT"
    assert unit(g.meta["consumer_payoff"]) == unit(metric) != ""


def _swf(path, scale: float = 1.0) -> None:
    """A small SWF trace of 150 one-processor jobs on 6 nodes, its run times times ``scale``."""
    rng = np.random.default_rng(7)
    lines = ["; MaxProcs: 6"]
    t = 0
    for k in range(150):
        t += int(rng.integers(1, 60))
        run = max(1, int(rng.integers(30, 600) * scale))
        lines.append(f"{k + 1} {t} 0 {run} 1 -1 -1 1 {2 * run} -1 1 {k % 7 + 1} 1 1 1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")


POPULATION_OF_A_TRACE_AND_A_PLUGIN = """
name = "edits"
[plugins]
modules = ["shade_by_amount.py"]
[workload]
source = "tr.swf"
[strategies]
providers = ["hb-first"]
[game]
kind = "population"
agents = "jobs"
strategies = ["truthful", "sb30"]
reduced_players = 3
probe = 0.05
max_seeds = 3
[game.shading.sb30]
family = "shade-by"
amount = 30
[replications]
count = 2
"""


def test_a_population_answer_is_not_served_after_its_plugin_or_trace_is_edited(tmp_path, capsys):
    """Hunt 20a-F7: the population analysis's cache key held neither the plugins' text nor the workload's content
    (the runs' keys hold both): after an edit, `study run` answered from the cache with the old numbers, exit 0."""
    study = write_study(tmp_path, POPULATION_OF_A_TRACE_AND_A_PLUGIN)
    shutil.copy(ROOT / "examples" / "plugins" / "shade_by_amount.py", study.parent / "shade_by_amount.py")
    _swf(study.parent / "tr.swf")

    def run_now() -> int:
        assert main(["study", "run", str(study), "--n-jobs", "1", "--no-progress"]) == 0
        said = re.search(r"(\d+) simulations \((\d+) run now\)", capsys.readouterr().out)
        return int(said.group(2))

    assert run_now() > 0 and run_now() == 0  # (the cache answers an unchanged study)
    plugin = study.parent / "shade_by_amount.py"
    plugin.write_text(plugin.read_text().replace("w - self.amount *", "w - 0.2 * self.amount *"))
    assert run_now() > 0
    _swf(study.parent / "tr.swf", scale=0.5)
    assert run_now() > 0 and run_now() == 0


def test_a_linked_population_studys_fields_quote_its_reports_answer(tmp_path, capsys):
    """Hunt 20a-F6: a bimatrix study's discussion quoted the menu-only equilibria and leader of a linked population
    study whose own report answers with its exploration; they quote the exploration's now."""
    write_study(tmp_path, EXPLORING, "ex.toml")
    notes = 'notes = "Leader {population.leader}; under hb-first: {population.hb-first.equilibria}."\n'
    body = 'population_study = "ex.toml"\n' + notes + TINY.format(count=2)
    study = write_study(tmp_path, body)
    assert main(["study", "run", str(study), "--n-jobs", "1", "--no-progress"]) == 0
    capsys.readouterr()
    explored = json.loads((tmp_path / "studies" / "reports" / "ex" / "data" / "exploration.json").read_text())
    spec = load_study(tmp_path / "studies" / "ex.toml")
    exploration, missing = read_stored_exploration(spec)
    assert missing == "" and explored
    marked = [
        (e, "" if e.verdict == "certified" else f" ({e.verdict})")
        for e in exploration.mechanisms["hb-first"].equilibria
    ]
    expected = "; ".join(mixture_of(e) + mark for e, mark in marked)
    md = (tmp_path / "studies" / "reports" / "tiny" / "report.md").read_text()
    said = re.search(r"Leader (\S+); under hb-first: (.+)\.", md)
    assert said.group(1) == (exploration.provider.leader or "none") and said.group(2) == expected, said.group(0)


@pytest.mark.parametrize("players", [7, 60, 61, 102, 400])
def test_a_two_strategy_role_of_many_players_is_solved_in_closed_form(players, tmp_path, capsys):
    """Hunt 20b-F2: a one-role game of two strategies and 102 or more players was numpy's "Power is too large"
    traceback (the gain polynomial in the power basis); the gain is now solved in the Bernstein form. Strategy a
    pays 10 - (c - 1) to each of its c players, b pays 5: the equilibrium plays a with 5 / (N - 1)."""
    profiles = []
    for c in range(players + 1):
        entry = ([["a", c, 10.0 - (c - 1)]] if c else []) + ([["b", players - c, 5.0]] if players - c else [])
        profiles.append({"all": entry})
    game = {"type": "game.1", "players": {"all": players}, "strategies": {"all": ["a", "b"]}, "profiles": profiles}
    (tmp_path / "g.json").write_text(json.dumps(game))
    assert main(["game", "solve", str(tmp_path / "g.json"), "--format", "json"]) == 0
    (eq,) = json.loads(capsys.readouterr().out)
    assert eq["mixture"]["all"]["a"] == pytest.approx(5 / (players - 1), abs=1e-9) and eq["regret"] < 1e-9


def test_the_truthful_gains_caption_and_table_say_the_verdict_is_not_read_from_their_intervals():
    """Hunt 20a-F2: the figure's caption said a bar above zero made truthful bidding no equilibrium, beside a table
    that called it undecided (the verdict is the largest gain's corrected bound against the tolerance)."""
    caption = HOW_TO_READ["fig-truthful-gains.png"]
    assert "not an equilibrium" not in caption and "not read from these intervals" in caption
    for name in ("population-default", "population-shudler2010", "population-exploration-shudler2010"):
        md = (ROOT / "reports" / name / "report.md").read_text()
        assert "The verdict is not read from these intervals" in md and caption.split(". ")[-1] in md, name


@pytest.mark.parametrize("option", [["--parallel", "drop"], ["--skip-bad-lines"]])
def test_a_trace_reading_option_beside_a_job_table_is_refused(option, tmp_path, capsys):
    """Hunt 20b-F3: ``--parallel`` and ``--skip-bad-lines`` beside ``--job-table`` were accepted and did nothing."""
    table = str(tmp_path / "jt.csv")
    assert main(["simulate", "--synthetic-jobs", "40", "--nodes", "4", "--jobs-out", table]) == 0
    capsys.readouterr()
    assert main(["simulate", "--nodes", "4", "--job-table", table, *option]) == 2
    assert f"so {option[0]} would have no effect" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--methods", "pure"], ["--methods", "gnm"], ["--complete"]])
def test_a_bimatrix_search_option_beside_an_egta_game_is_refused(option, capsys):
    """Hunt 20b-F1: ``--methods pure`` of an EGTA game printed a mixed equilibrium, ``--complete`` did nothing."""
    game = str(ROOT / "tests" / "games" / "data" / "egta-online-layout.json")
    assert main(["game", "solve", game, *option]) == 2
    assert f"{option[0]} applies to a provider/consumer (bimatrix) game's search" in capsys.readouterr().err


def test_the_slsqp_step_of_the_role_symmetric_search_keeps_the_time_limit():
    """Hunt 20b-F4: one SLSQP call (up to 500 iterations) ran 7 s past a 5 s limit; the clock is checked at each of
    its iterations."""
    game = RoleSymmetricGame.from_function(["r"], [3], [["a", "b", "c"]], lambda prof: prof[::-1] * 1.0)
    clock = SearchClock(1e-9)
    with pytest.raises(TimeUp):
        regret_minimize(game, [0.2, 0.3, 0.5], clock=clock)
    assert np.isclose(regret_minimize(game, [0.2, 0.3, 0.5]).sum(), 1.0)  # (without a clock: as before)


def test_observed_play_that_a_studys_game_lacks_is_refused_before_any_game_is_printed(tmp_path, capsys):
    """Hunt 20b-F5: ``--concept qre --observed consumer:FT=30`` of a study printed some games, then exit 2 naming no
    game (its "aggressive users" game leaves FT out: no aggressive group)."""
    study = write_study(tmp_path, TINY.format(count=2))
    assert main(["study", "run", str(study), "--n-jobs", "1", "--no-progress", "--no-report"]) == 0
    capsys.readouterr()
    observed = ["--observed", "consumer:FT=30", "consumer:SRG=10"]
    assert main(["game", "solve", str(study), "--concept", "qre", *observed]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "game aggressive users: --observed: 'consumer:FT' names no strategy" in err
    assert "this game leaves out FT: its payoff is undefined there" in err and "--game NAME" in err
    assert main(["game", "solve", str(study), "--concept", "qre", *observed, "--game", "all jobs"]) == 0


def test_a_study_with_an_exploration_writes_a_study_file_that_reads_back_to_it(tmp_path):
    """Hunt 20a-F4: ``to_toml`` of a population study whose ``[game.exploration]`` leaves fields at their defaults
    was tomli_w's ``TypeError: Object of type 'NoneType' is not TOML serializable``."""
    spec = load_study(write_study(tmp_path, EXPLORING, "ex.toml"))
    copy = tmp_path / "studies" / "copy.toml"
    spec.to_toml(copy)
    again = load_study(copy)
    assert again.exploration == spec.exploration and again.population.names == spec.population.names
    assert again.to_dict(copy.parent) == spec.to_dict(copy.parent)


def test_a_study_run_with_plugin_is_read_with_it_by_every_command_and_told_how_without(tmp_path, capsys):
    """Hunt 20a-F5: `study run --plugin FILE` worked, then `study status`, `report`, `study jobs` and `game export`
    had no --plugin, and refused the study: "unknown payment scheme", no word of a plugin."""
    plugin = str(ROOT / "examples" / "plugins" / "lowest_running.py")
    body = TINY.format(count=2).replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first", "hb-low"]')
    study = str(
        write_study(tmp_path, body + '[strategies.provider.hb-low]\nscheduler = "hb"\npayment = "lowest-running"\n')
    )
    assert main(["study", "run", study, "--plugin", plugin, "--n-jobs", "1", "--no-progress", "--no-report"]) == 0
    commands = [
        ["study", "status", study],
        ["report", study],
        [
            "study",
            "jobs",
            study,
            "--provider",
            "hb-low",
            "--consumer",
            "FT",
            "--seed",
            "1",
            "--out",
            str(tmp_path / "j.csv"),
        ],
        ["game", "export", study, "--out", str(tmp_path / "exported")],
    ]
    for command in commands:  # without it: a fresh process, which has not loaded the plugin
        r = subprocess.run([sys.executable, "-m", "gamemarket", *command], capture_output=True, text=True)
        assert r.returncode == 2 and "unknown payment scheme 'lowest-running'" in r.stderr, r.stderr
        assert "or give --plugin FILE" in r.stderr
    for command in commands:
        assert main([*command, "--plugin", plugin]) == 0, (command, capsys.readouterr().err)


def test_an_entry_registered_in_this_process_runs_here_not_in_workers_that_cannot_load_it(tmp_path, monkeypatch):
    """Hunt 20a-F3: a payment rule registered in a script ran with n_jobs=1, and died in the pool's workers ("unknown
    payment scheme") once a study was large enough for a pool; it runs in this process, warned, the same numbers."""

    @payment_rule("half-first-20a", "half of the first price, floored at r")
    def half_first(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        return reserve if free > 0 else max(reserve, 0.5 * bid)

    monkeypatch.setenv("GAMEMARKET_POOL_START_S", "0")  # (any n_jobs > 1 starts a pool: the workers would die)
    try:
        provider = '\n[strategies.provider.hb-half]\nscheduler = "hb"\npayment = "half-first-20a"\n'
        body = TINY.format(count=2).replace('"hb-kth"]', '"hb-half"]') + provider
        one = load_study(write_study(tmp_path, body), results=tmp_path / "r1")
        two = load_study(write_study(tmp_path, body), results=tmp_path / "r2")
        assert run_simulations(one, n_jobs=1, progress=False).run == 8
        with pytest.warns(UserWarning, match=r"payment scheme 'half-first-20a' exists in this process only"):
            assert run_simulations(two, n_jobs=2, progress=False).workers == 1
        assert sorted_metrics(one).equals(sorted_metrics(two))
        params = [p.params() for p in one.providers]
        with pytest.raises(InputError, match=r"a dask worker cannot load it; register it in a plugin file"):
            local_workers(params, 2, "tcp://127.0.0.1:8786", "study 'tiny'")
    finally:
        PAYMENTS.remove("half-first-20a")


POPULATION_BODY = EXPLORING.replace("exploration = {", "# exploration = {")


@pytest.mark.parametrize(
    "body,said",
    [
        (POPULATION_BODY + '[[games]]\nname = "x"\n', "[[games]] applies to a provider/consumer study"),
        (
            POPULATION_BODY.replace(
                'providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first"]\nconsumers = ["FT"]'
            ),
            "[strategies] consumers applies to a provider/consumer study",
        ),
        (POPULATION_BODY + "[strategies.consumer.Z]\ngroups = [[1.0, 0.0]]\n", "[strategies.consumer.*] applies"),
        ('companions = ["a.toml"]\n' + POPULATION_BODY, "companions applies to a provider/consumer study"),
        (POPULATION_BODY + '[output]\nresults = "~/gm/x"\n', "'~/gm/x' is not expanded (no '~' or '$VARIABLE'"),
        (POPULATION_BODY + '[output]\nreport = "$HOME/gm/x"\n', "'$HOME/gm/x' is not expanded"),
        (SMALL_DESIGN + "constraint = { welfare = 1.0 }\n", "metric 'welfare' is a sum of valuations -w x time"),
        (SMALL_DESIGN + "constraint = { welfare_all = 1e30 }\n", "metric 'welfare_all' is a sum of valuations"),
    ],
)
def test_a_population_or_design_study_refuses_what_would_have_no_effect_or_no_design_reaches(body, said, tmp_path):
    """Hunt 20a W1, W4, W5: a population study read past [[games]] and [strategies] consumers; ``~`` and ``$HOME`` in
    an output folder made folders named so beside the study; a positive least welfare was searched for in vain."""
    study = write_study(tmp_path, body)
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(study)
    assert not (tmp_path / "studies" / "~").exists() and not (tmp_path / "studies" / "$HOME").exists()


def test_a_linked_population_study_that_no_field_quotes_is_refused(tmp_path):
    """Hunt 20a-W7: `population_study` was run (hours on a real study) where the discussion quoted none of it."""
    write_study(tmp_path, EXPLORING, "ex.toml")
    study = write_study(tmp_path, 'population_study = "ex.toml"\n' + TINY.format(count=2))
    with pytest.raises(InputError, match=r"population_study 'ex.toml' would have no effect: the discussion"):
        load_study(study)


def test_a_probe_whose_every_gain_is_exactly_zero_says_the_rule_most_likely_changed_nothing():
    """Hunt 20a-W6: a probe whose 4 agents had no high bid read "gain 0 [0, 0]", as if certain."""
    ans = ProbeAnswer(
        "hb-first", {"truthful": 1.0}, "shade-high-0.9", (0.0, 0.0, 0.0), [1, 2, 3], 0.01, [0, 0, 0], 4, 400
    )
    assert "most likely changed no probe agent's bid or choice (4 of 400 per seed)" in ans.to_dict()["note"]
    moved = ProbeAnswer("hb-first", {"truthful": 1.0}, "shade-0.5", (1.0, -2.0, 4.0), [1, 2], 0.01, [0, 2.0], 4, 400)
    assert moved.note is None and moved.to_dict()["note"] is None


@given(st.integers(0, 2**32 - 1), st.integers(0, 1), st.integers(0, 1), st.integers(0, 1))
@settings(max_examples=40, deadline=None)
def test_deviation_payoffs_at_a_pure_profile_of_an_integer_game_are_exact(seed, a, b, c):
    """Hunt 20b-W14: a profile the others cannot play leaked tiny^k times its payoff into the deviation payoffs of a
    pure profile (regret 1.56e-307, a payoff 2.2e-308 for 0); it weighs exactly 0."""
    table = np.random.default_rng(seed).integers(-5, 5, size=(2, 2, 2, 3))
    game = RoleSymmetricGame.from_function(
        ["r1", "r2", "r3"], [1, 1, 1], [["a", "b"], ["c", "d"], ["e", "f"]],
        lambda prof: np.repeat(table[tuple(np.flatnonzero(prof) % 2)], 2) * prof,
    )  # fmt: skip
    pure = np.zeros(6)
    pure[[a, 2 + b, 4 + c]] = 1.0
    dev = game.deviation_payoffs(pure)
    for role, (k, o) in enumerate(((a, 0), (b, 2), (c, 4))):
        for s in (0, 1):  # the deviator's payoff when it plays s and the others keep their pure strategies
            at = [a, b, c]
            at[role] = s
            assert dev[o + s] == table[tuple(at)][role]


def test_nfg_strategies_that_differ_by_spaces_around_them_are_refused(tmp_path, capsys):
    """Hunt 20b-W16: "x" and "x " were two strategies that printed alike (``0.5 x + 0.5 x``)."""
    (tmp_path / "ws.nfg").write_text('NFG 1 R "g" { "a" "b" } { { "x" "x " } { "u" "v" } }\n1 1 0 0 0 0 1 1\n')
    assert main(["game", "solve", str(tmp_path / "ws.nfg")]) == 2
    assert "'x' and 'x ' are one name written two ways (spaces around it" in capsys.readouterr().err


def test_an_answer_given_as_a_game_is_named(tmp_path, capsys):
    """Hunt 20b-W11: a report's equilibria.json given to `game solve` was "read past" then "missing field 'players'"."""
    for answer in ("default/data/equilibria.json", "population-default/data/population.json"):
        assert main(["game", "solve", str(ROOT / "reports" / answer)]) == 2
        assert "holds an answer (" in capsys.readouterr().err
    (tmp_path / "l.json").write_text('[{"mixture": {"a": 1}}]')
    assert main(["game", "solve", str(tmp_path / "l.json")]) == 2
    assert "a JSON list (of equilibria or profiles?), not a game" in capsys.readouterr().err


@pytest.mark.parametrize("order", [["--job-table", "{a}", "--jobs", "{b}"], ["--jobs", "{a}", "--job-table", "{b}"]])
def test_an_option_and_its_deprecated_spelling_with_two_values_are_refused(order, tmp_path, capsys):
    """Hunt 20b-W12: ``--job-table A --jobs B`` ran whichever came last."""
    a, b = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    assert main(["simulate", "--synthetic-jobs", "20", "--nodes", "4", "--jobs-out", a]) == 0
    capsys.readouterr()
    args = [x.format(a=a, b=b) for x in order]
    with pytest.raises(SystemExit) if order[0] == "--job-table" else contextlib.nullcontext():
        assert main(["simulate", "--nodes", "4", *args]) == 2
    assert "are one option" in capsys.readouterr().err


@pytest.mark.parametrize("generator", ["synthetic", "hetero"])
def test_workload_fit_of_a_generator_is_refused(generator, tmp_path, capsys):
    """Hunt 20b-W13: `workload fit synthetic` fitted a model to a draw of the generator, without a word."""
    assert main(["workload", "fit", generator, "--out", str(tmp_path / "m.toml")]) == 2
    assert "a generator, not a trace" in capsys.readouterr().err and not (tmp_path / "m.toml").exists()


def _gamemarket(args, stdin=None):
    return subprocess.run([sys.executable, "-m", "gamemarket", *args], stdin=stdin, capture_output=True, text=True)


def test_a_game_on_stdin_is_told_by_its_bytes_and_named_as_stdin(tmp_path):
    """Hunt 20b W4-W6: `game solve /dev/stdin < pd.npz` (a redirect, not a pipe) was refused by its name's ending; a
    piped game's warnings and header named a temporary copy; a study on a pipe was pandas' tokenizer message."""
    np.savez(tmp_path / "pd.npz", A=[[3, 0], [5, 1]], B=[[3, 5], [0, 1]])
    with open(tmp_path / "pd.npz", "rb") as f:
        r = _gamemarket(["game", "solve", "/dev/stdin"], stdin=f)
    assert r.returncode == 0 and "equilibria: 1" in r.stdout, r.stderr
    table = (
        "provider,consumer,provider_payoff,consumer_payoff,provider_ci95\na,x,1,2,0\na,y,3,4,0\nb,x,5,6,0\nb,y,7,8,0\n"
    )
    (tmp_path / "t.csv").write_text(table)
    with open(tmp_path / "t.csv") as f:
        r = _gamemarket(["game", "solve", "/dev/stdin"], stdin=f)
    assert r.returncode == 0 and "/dev/stdin: column(s) provider_ci95 read past" in r.stderr
    assert "gamemarket-pipe-" not in r.stdout + r.stderr
    (tmp_path / "s.toml").write_text(TINY.format(count=2))
    with open(tmp_path / "s.toml") as f:
        r = _gamemarket(["game", "solve", "/dev/stdin"], stdin=f)
    assert r.returncode == 2 and "a stream holding TOML text" in r.stderr and "save it to a file first" in r.stderr


def test_compressed_games_and_problems_and_upper_case_members_are_named(tmp_path, capsys):
    """Hunt 20b W7, W10: a gzipped .nfg was "told by the name's ending", a gzipped price problem "not a zip archive",
    an archive of A.NPY and B.NPY "no arrays; its arrays {}"."""
    (tmp_path / "g.nfg").write_text('NFG 1 R "g" { "a" "b" } { 2 2 }\n1 1 0 0 0 0 1 1\n')
    (tmp_path / "g.nfg.gz").write_bytes(gzip.compress((tmp_path / "g.nfg").read_bytes()))
    p = price_problem.synthetic(6, 2)
    np.savez(tmp_path / "p.npz", A=p.A, R=p.R)
    (tmp_path / "p.npz.gz").write_bytes(gzip.compress((tmp_path / "p.npz").read_bytes()))
    with zipfile.ZipFile(tmp_path / "upper.npz", "w") as z:
        for name in ("A.NPY", "B.NPY"):
            z.writestr(name, _npy(np.eye(2)))
    for command, said in [
        (["game", "solve", str(tmp_path / "g.nfg.gz")], "(is gzip-compressed (decompress it first"),
        (["price", "solve", str(tmp_path / "p.npz.gz")], "p.npz.gz: is gzip-compressed (decompress it first"),
        (["game", "solve", str(tmp_path / "upper.npz")], "no arrays (its members: A.NPY, B.NPY; an array is"),
    ]:
        assert main(command) == 2, command
        assert said in capsys.readouterr().err


def _npy(array) -> bytes:
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def test_a_gzip_trace_reads_as_gzip_d_reads_it_and_a_tar_is_named(tmp_path, capsys):
    """Hunt 20b W8, W9: trailing bytes after a gzip trace were "corrupt gzip data" (gzip -d reads it, ignoring them),
    a .tar.gz of a trace a "malformed SWF line"."""
    _swf(tmp_path / "t.swf")
    plain = (tmp_path / "t.swf").read_bytes()
    packed = gzip.compress(plain)
    cases = {"trail.swf.gz": packed + b"garbage trailing\n", "pad.swf.gz": packed + bytes(1000), "two.swf.gz": packed}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    with pytest.warns(UserWarning, match=r"bytes after the gzip data \(not another gzip member\) are ignored"):
        trailing = read_swf(tmp_path / "trail.swf.gz")
    assert len(trailing.jobs) == len(read_swf(tmp_path / "t.swf").jobs) == len(read_swf(tmp_path / "pad.swf.gz").jobs)
    (tmp_path / "cut.swf.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match="corrupt gzip data: the gzip stream ends inside a member"):
        read_swf(tmp_path / "cut.swf.gz")
    with tarfile.open(tmp_path / "t.tgz", "w:gz") as tar:
        tar.add(tmp_path / "t.swf", arcname="t.swf")
    assert main(["workload", "info", str(tmp_path / "t.tgz")]) == 2
    assert "is a tar archive (gzip-compressed), not an SWF trace" in capsys.readouterr().err


def test_a_models_workload_is_named_as_the_model_and_a_separator_hint_is_named(tmp_path, capsys):
    """Hunt 20b W2, W3: `workload info MODEL` said its source was "synthetic" (and named "synthetic" in its
    errors); a table whose first line is a spreadsheet's ``sep=,`` was "TOML text" (a job table) or columns
    ['sep=', 'Unnamed: 1'] (a payoff table)."""
    model = str(ROOT / "gamemarket" / "data" / "models" / "lpc-egee-2004.toml")
    assert main(["workload", "info", model]) == 0
    assert re.search(r"^source\s+workload model of LPC-EGEE-2004-1.2-cln$", capsys.readouterr().out, re.M)
    assert main(["workload", "info", model, "--nodes", "10", "--reduction", "0.5"]) == 2
    assert capsys.readouterr().err.startswith("gamemarket: error: workload model of LPC-EGEE-2004-1.2-cln: give")
    table = tmp_path / "jt.csv"
    assert main(["simulate", "--synthetic-jobs", "20", "--nodes", "4", "--jobs-out", str(table)]) == 0
    (tmp_path / "sep.csv").write_text("sep=,\n" + table.read_text())
    (tmp_path / "g.csv").write_text("sep=,\nprovider,consumer,provider_payoff,consumer_payoff\na,x,1,2\n")
    capsys.readouterr()
    for command in (
        ["simulate", "--nodes", "4", "--job-table", str(tmp_path / "sep.csv")],
        ["game", "solve", str(tmp_path / "g.csv")],
    ):
        assert main(command) == 2
        assert "line 1 ('sep=,') says it is a spreadsheet's separator hint" in capsys.readouterr().err


@given(st.integers(1, 6), st.integers(1, 6), st.data())
@settings(max_examples=60, deadline=None)
def test_an_incomplete_payoff_table_names_its_first_missing_profile(m, n, data):
    """Hunt 20b-W15: the first missing profile was found over an m x n array (477 MB under a 50 MB limit); it is
    found from the lines' own profiles: the same profile as a plain search of the grid in the reader's order (the
    strategies as they first appear)."""
    profiles = [(i, j) for i in range(m) for j in range(n)]
    kept = data.draw(st.permutations([p for p in profiles if data.draw(st.booleans())]))
    rows = list(dict.fromkeys(i for i, _ in kept))
    cols = list(dict.fromkeys(j for _, j in kept))
    missing = [(i, j) for i in rows for j in cols if (i, j) not in kept]
    if not kept or not missing:
        return
    text = "provider,consumer,provider_payoff,consumer_payoff\n" + "".join(f"r{i},c{j},{i},{j}\n" for i, j in kept)
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "t.csv").write_text(text)
        with pytest.raises(InputError) as refused:
            read_csv_game(Path(d) / "t.csv")
    i, j = missing[0]
    assert f"the first missing is (r{i}, c{j})" in str(refused.value)


HETERO = """
name = "h"
[workload]
source = "hetero"
[workload.hetero]
jobs = 40
resources = 2
load = 2.0
seed = 1
[strategies]
providers = ["clearing", "p"]
consumers = ["FT", "SRG"]
[replications]
count = 2
[strategies.provider.p]
kind = "pricing"
"""


@pytest.mark.parametrize(
    "entry,said",
    [
        ('mechanism = "pay-as-bid"\nreserve = 50.0\n', "field 'reserve' would have no effect: mechanism 'pay-as-bid'"),
        ('mechanism = "clearing"\nprices = 30.0\n', "field 'prices' would have no effect: mechanism 'clearing' reads"),
        ('mechanism = "clearing-reserve"\nprices = 3.0\nreserve = 1.0\n', "field 'prices' would have no effect"),
        ('mechanism = "clearing-reserve"\n', "mechanism 'clearing-reserve' needs field 'reserve'"),
        ('mechanism = "posted"\n', "mechanism 'posted' needs field 'prices'"),
    ],
)
def test_a_pricing_providers_parameters_are_those_its_mechanism_reads(entry, said, tmp_path):
    """Hunt 20c-F1: a pricing provider's reserve or prices that its mechanism does not read was accepted (the runs
    the same as without it), and one it needs was defaulted in silence (posted charged 1, clearing-reserve cleared)."""
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(write_study(tmp_path, HETERO + entry))


def test_an_outside_price_beyond_the_highest_reserve_is_refused_when_read(tmp_path):
    """Hunt 20c-F5: outside_price = 1e306 overflowed a leaver's utility to -inf after the runs began."""
    with pytest.raises(InputError, match=r"outside_price"):
        load_study(write_study(tmp_path, SMALL_DESIGN.replace("outside_price = 20.0", "outside_price = 1e306")))


def test_a_gains_studys_status_counts_its_gain_runs_and_the_advice_runs_the_study_itself(tmp_path, capsys):
    """Hunt 20c F3, F4: with gain runs lost, `study status` said "0 missing" while `report` refused, and `report`'s
    advice ran the parent study into a size's results folder (a loop)."""
    body = HETERO.replace('providers = ["clearing", "p"]', 'providers = ["clearing"]').replace(
        'consumers = ["FT", "SRG"]', 'consumers = ["FT", "SRG", "DEV1"]'
    )
    body = body.replace('[strategies.provider.p]\nkind = "pricing"\n', "") + "[gains]\njobs = [20, 40]\nseeds = 2\n"
    study = str(write_study(tmp_path, body))
    results = tmp_path / "r"
    assert main(["study", "run", study, "--n-jobs", "1", "--no-progress", "--results", str(results)]) == 0
    lost = sorted((results / "gains" / "n40").rglob("*.parquet"))[:2]
    for f in lost:
        f.unlink()
    capsys.readouterr()
    assert main(["study", "status", study, "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"shading gains \(\[gains\]\): 20 jobs 6/6, 40 jobs 4/6 runs stored; 2 missing", out), out
    assert main(["report", study, "--results", str(results), "--report", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    advice = f"run `gamemarket study run {study} --results {results} --report {tmp_path / 'p'}` first"
    assert advice in err and "gains/n40 --report" not in err, err


@pytest.mark.parametrize("n", [10, 61, 80, 101, 150])
@pytest.mark.parametrize("double", [0.25, 0.5, 0.5001])
def test_a_two_strategy_gains_double_root_is_found_and_kept_in_the_simplex(n, double):
    """Review 20: past 60 other players, a tangent (double) root was found by the slope's sign change and then thrown
    out of [0, 1] by an unguarded Newton step. The gain (p - r)^2 (p - 0.9) in the Bernstein basis of n others (the
    monomial p^j has the coefficients C(k, j) / C(n, j))."""
    a = np.polynomial.polynomial.polyfromroots([double, double, 0.9])
    b = np.array([sum(a[j] * comb(k, j) / comb(n, j) for j in range(len(a))) for k in range(n + 1)])
    roots = _gain_roots(b)
    assert all(0.0 <= r <= 1.0 for r in roots), roots
    assert any(abs(r - double) < 1e-6 for r in roots) and any(abs(r - 0.9) < 1e-9 for r in roots), roots


def test_a_probe_of_an_entry_registered_in_this_process_runs_here(tmp_path, monkeypatch):
    """Review 20 (3): `population probe` (and the exploration's oracle) sent an in-process entry to workers, which
    died with "unknown payment scheme", without a warning."""
    monkeypatch.setenv("GAMEMARKET_POOL_START_S", "0")

    @payment_rule("half-first-rv20", "half of the first price, floored at r")
    def half_first(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        return reserve if free > 0 else max(reserve, 0.5 * bid)

    try:
        provider = '[strategies.provider.hb-half]\nscheduler = "hb"\npayment = "half-first-rv20"\n'
        body = POPULATION_BODY.replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-half"]') + provider
        spec = load_study(write_study(tmp_path, body))
        with pytest.warns(UserWarning, match=r"payment scheme 'half-first-rv20' exists in this process only"):
            ans = probe(spec, "hb-half", "truthful", "shade-0.5", seeds=[1, 2], n_jobs=2)
        assert len(ans.per_seed) == 2
    finally:
        PAYMENTS.remove("half-first-rv20")


def test_more_workers_than_cores_are_capped_and_said_once():
    """Hunt 20c-W4: --n-jobs 40 on 2 cores started 40 workers (5 times slower than one, each importing numba)."""
    cores = max(1, joblib.cpu_count())
    with pytest.warns(UserWarning, match=rf"{cores + 37} worker processes asked for on {cores} usable cores"):
        assert workers._within_the_cores(cores + 37) == cores
    assert workers._within_the_cores(cores) == cores


def test_a_log_axis_label_is_said_as_the_figure_shows_it():
    """Hunt 20c-W2: an overlap warning named matplotlib's math text ('$\\\\mathdefault{3\\\\times10^{0}}$')."""
    assert drawing._as_read("$\\mathdefault{3\\times10^{0}}$") == "3×10^0" and drawing._as_read("FT") == "FT"


def test_a_gains_report_says_where_a_way_had_no_shading_job(tmp_path):
    """Hunt 20c-W1: at 40 jobs 1% deviators is no job: DEV1's rows were left out of the gains table without a word."""
    body = HETERO.replace('providers = ["clearing", "p"]', 'providers = ["clearing"]').replace(
        'consumers = ["FT", "SRG"]', 'consumers = ["FT", "SRG", "DEV1"]'
    )
    body = body.replace('[strategies.provider.p]\nkind = "pricing"\n', "") + "[gains]\njobs = [20, 40]\nseeds = 2\n"
    study = str(write_study(tmp_path, body))
    assert main(["study", "run", study, "--n-jobs", "1", "--no-progress"]) == 0
    md = (tmp_path / "studies" / "reports" / "h" / "report.md").read_text()
    assert "*DEV1* has no shading job at 20, 40 jobs (too few jobs for its share): not measured there." in md
    assert "*SRG* has no shading job" not in md


def test_a_population_report_of_the_pricing_market_is_in_its_words(tmp_path):
    """Hunt 20c-W3: a pricing market's population report said "2 nodes" of 2 resource types and "bid x seconds"
    of a weight x throughput utility."""
    body = HETERO.replace('consumers = ["FT", "SRG"]\n', "").replace(
        'providers = ["clearing", "p"]', 'providers = ["clearing"]'
    )
    body = body.replace('[strategies.provider.p]\nkind = "pricing"\n', "")
    body += (
        '[game]\nkind = "population"\nstrategies = ["truthful", "shade-high-0.9"]\nreduced_players = 2\nprobe = 0.05\n'
    )
    study = str(write_study(tmp_path, body))
    assert main(["study", "run", study, "--n-jobs", "1", "--no-progress"]) == 0
    md = (tmp_path / "studies" / "reports" / "h" / "report.md").read_text()
    assert "(40 jobs, 2 resources)" in md and "Utilities are in value x throughput per job" in md


def test_a_degenerate_games_answer_says_whether_every_extreme_equilibrium_is_listed():
    """Hunt 20d-F4: a report said "Degenerate game: yes (all extreme equilibria listed)" two lines above its note that
    the methods asked (ipa) do not list them all; every answer now reads Solution.degenerate_words."""
    A = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 2.0]])
    B = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # two rows alike: degenerate
    game = Game(A, B, ["a", "b", "c"], ["x", "y"])
    assert solve(game).degenerate_words == "yes (all extreme equilibria listed)"
    partial = solve(game, methods=["lemke_howson"])  # (a method that finds one or a few, as ipa does)
    assert partial.degenerate_words == "yes (not every extreme equilibrium enumerated: see the note)"


@pytest.mark.parametrize(
    "notes,said",
    [
        ("gap {claim.rule-first-revenue.mean:.2f}", "has a format spec or conversion, which a field does not take"),
        ("gap {claim.rule-first-revenue.mean!r}", "has a format spec or conversion"),
        ("a set { of things", "a single brace"),
        ("a } alone", "a single brace"),
        ("empty {} here", "'{}' is empty"),  # (two braces, not one: hunt 31a-W5)
    ],
)
def test_a_discussion_brace_that_is_neither_a_field_nor_doubled_is_refused(notes, said, tmp_path):
    """Hunt 20d-F2: a field with a format spec (``:.2f``) or conversion (``!r``), and a single brace, reached the
    report as template text, exit 0 (the ``2`` of ``.2f`` past the typed-number rule too)."""
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(write_study(tmp_path, f'notes = "{notes}"\n' + TINY.format(count=2)))


def test_a_studys_model_and_trace_are_found_beside_it_never_in_the_working_folder(tmp_path, monkeypatch):
    """Hunt 20d-F3: `[workload] model` and an SWF `source` fell back to the working folder: one study file ran the
    LPC model from one folder and the SDSC model from another, exit 0 both times."""
    proj, elsewhere = tmp_path / "proj", tmp_path / "A"
    proj.mkdir()
    elsewhere.mkdir()
    shutil.copy(ROOT / "gamemarket" / "data" / "models" / "lpc-egee-2004.toml", elsewhere / "m.toml")
    _swf(elsewhere / "t.swf")
    monkeypatch.chdir(elsewhere)
    body = TINY.format(count=2).replace('source = "synthetic"', 'source = "synthetic"\nmodel = "m.toml"')
    body = body.replace("nodes = 4\n[workload.synthetic]\njobs = 120\nload = 1.1\n", "nodes = 4\n")
    (proj / "s.toml").write_text(body)
    with pytest.raises(InputError, match=r"\[workload\] field 'model': no such file 'm.toml'"):
        load_study(proj / "s.toml")
    (proj / "t.toml").write_text(TINY.format(count=2).replace('source = "synthetic"', 'source = "t.swf"').replace(
        "[workload.synthetic]\njobs = 120\nload = 1.1\n", ""))  # fmt: skip
    with pytest.raises(InputError, match=r"\[workload\] field 'source': no such trace 't.swf' beside the study file"):
        load_study(proj / "t.toml")
    shutil.copy(elsewhere / "t.swf", proj / "t.swf")  # beside the study: read
    assert load_study(proj / "t.toml").workload["source"] == str((proj / "t.swf").resolve())


@pytest.mark.parametrize(
    "extra,said",
    [
        ('[[games]]\nname = "tier 1] jobs"\n', "game 'tier 1] jobs': holds ']'"),
        (
            '[strategies.consumer."_d_"]\ngroups = [[1.0, 0.5]]\n',
            "consumer strategy '_d_': holds '_' at its start or end",
        ),
        ('[strategies.provider."*p*"]\nscheduler = "hb"\npayment = "kth"\n', "provider strategy '*p*': holds '*'"),
    ],
)
def test_a_name_the_report_prints_holds_no_markdown_syntax(extra, said, tmp_path):
    """Hunt 20d-F1: a game named `tier 1] jobs` lost its figure in both pages (the `]` ended the alt text), and the
    strategies `_d_` and `*p*` were printed as italics."""
    body = TINY.format(count=2)
    if "_d_" in extra:
        body = body.replace('consumers = ["FT", "SRG"]', 'consumers = ["FT", "_d_"]')
    if "*p*" in extra:
        body = body.replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first", "*p*"]')
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(write_study(tmp_path, body + extra))
    ok = TINY.format(count=2).replace('consumers = ["FT", "SRG"]', 'consumers = ["FT", "my_rule"]')
    load_study(write_study(tmp_path, ok + '[strategies.consumer."my_rule"]\ngroups = [[1.0, 0.5]]\n'))


def test_hunt_20d_worth_a_look_rows(tmp_path, capsys):
    """Hunt 20d W5, W9, W12: an empty pipe was "cannot read CSV: No columns to parse from file"; a report's
    equilibria.csv was solved as a game; a description of several paragraphs broke out of the report's italics."""
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "solve", "/dev/stdin"], input="", capture_output=True, text=True
    )  # (an empty pipe)
    assert r.returncode == 2 and "the stream is empty" in r.stderr, r.stderr
    assert main(["game", "solve", str(ROOT / "reports" / "default" / "data" / "equilibria.csv")]) == 2
    assert "holds an answer (columns game, equilibrium, ...: a report's data/equilibria.csv)" in capsys.readouterr().err
    for text, said in (("First.\\n\\nSecond.", "no blank line"), ("First.\\n## Heading", "opens a heading, list")):
        with pytest.raises(InputError, match=re.escape(said)):
            load_study(write_study(tmp_path, f'description = "{text}"\n' + TINY.format(count=2)))


def test_a_hint_to_run_a_study_again_names_the_plugins_the_command_was_given(tmp_path, capsys):
    """Hunt 20d-W4: `report STUDY --plugin P` said to run `study run STUDY` first, which failed as written."""
    plugin = str(ROOT / "examples" / "plugins" / "lowest_running.py")
    body = TINY.format(count=2).replace('providers = ["hb-first", "hb-kth"]', 'providers = ["hb-first", "hb-low"]')
    study = str(
        write_study(tmp_path, body + '[strategies.provider.hb-low]\nscheduler = "hb"\npayment = "lowest-running"\n')
    )
    assert main(["report", study, "--plugin", plugin]) == 2
    assert f"--plugin {plugin}` first" in capsys.readouterr().err
    assert main(["report", str(write_study(tmp_path, TINY.format(count=2), "t.toml"))]) == 2
    assert "--plugin" not in capsys.readouterr().err  # (a later command without it: none named)


def test_study_status_counts_the_companions_runs(tmp_path, capsys):
    """Hunt 20d-W10: `study status` of a study with companions counted its own runs only ("27/27 stored") while its
    companion's were all missing."""
    write_study(tmp_path, TINY.format(count=2).replace('name = "tiny"', 'name = "comp"'), "comp.toml")
    study = str(write_study(tmp_path, 'companions = ["comp.toml"]\n' + TINY.format(count=2)))
    assert main(["study", "status", study]) == 0
    out = capsys.readouterr().out
    assert "study tiny: 0/8 runs stored" in out and "companion study comp: 0/8 runs stored, 8 missing" in out


def test_a_file_in_the_population_folder_that_is_no_record_is_said_to_be_left(tmp_path, capsys):
    """Hunt 20d-W13: a user's notes in population/ were promised a clean-up by `study run` that never came."""
    study = write_population_study(tmp_path)
    spec = load_study(study)
    (spec.results_dir / "population").mkdir(parents=True)
    (spec.results_dir / "population" / "my-notes.json").write_text('{"note": "mine"}')
    assert main(["study", "status", str(study)]) == 0
    out = capsys.readouterr().out
    assert "1 file(s) in" in out and "are no record of gamemarket's (first: my-notes.json): left as they are" in out
    assert "sets aside" not in out


def test_a_design_studys_status_counts_only_the_mechanisms_its_search_compares(tmp_path, capsys):
    """Hunt 20c-F2: with `[design] compare = []` the run ran no fixed mechanism, and status counted the providers'
    runs as missing forever."""
    study = str(write_study(tmp_path, SMALL_DESIGN + "compare = []\n"))
    assert main(["study", "status", study]) == 0
    assert "the design search's points' and no fixed mechanism's ([design] compare = [])" in capsys.readouterr().out
    study = str(write_study(tmp_path, SMALL_DESIGN + 'compare = ["hb-kth"]\n', "one.toml"))
    assert main(["study", "status", study]) == 0
    assert "the fixed mechanisms' (0/12 of their initial seeds)" in capsys.readouterr().out  # (both: 0/24)
