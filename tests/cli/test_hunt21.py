"""Regression rows of the session of 2026-12-06 (01:24-): the limits the last session named (hunt 20's "worth a
look" rows left open), and the held-out hunts of this session, each with its family."""

import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamemarket.analysis import claims
from gamemarket.analysis.study import SolvedGame, claim_keys_made
from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.games import Game, solve
from gamemarket.reports.console import MENU_COMPARISON
from gamemarket.reports.report import answer_paragraph
from gamemarket.search.design import answer_key
from gamemarket.search.exploration import exploration_key, read_stored_exploration
from gamemarket.search.population import run_population_study
from gamemarket.studies import load_results, load_study
from gamemarket.studies.runner import load_cohorts
from study_helpers import (
    EXPLORING,
    POPULATION_STUDY,
    SMALL_DESIGN,
    TINY,
    users_study_commands,
    write_population_study,
    write_study,
    write_users_study,
)

ROOT = Path(__file__).resolve().parents[2]

#: SMALL_DESIGN with an inline provider and a described shading rule: the descriptions any edit may change
DESCRIBED_DESIGN = SMALL_DESIGN.replace(
    'providers = ["hb-first", "hb-kth"]',
    'providers = ["hb-first", "mine"]\n[strategies.provider.mine]\nscheduler = "hb"\npayment = "kth"\n'
    'description = "HB, k-th price"',
).replace("leave = 1\n", 'leave = 1\ndescription = "every job leaves"\n')


@pytest.mark.parametrize(
    "edit,current",
    [
        (("every job leaves", "all of them go elsewhere"), True),
        (("HB, k-th price", "the k-th price one"), True),
        (('name = "design-small"', 'name = "design-small"\ndescription = "edited"'), True),
        (("leave = 1\n", "leave = 0.5\n"), False),  # a parameter: the answer is another one
        (('payment = "kth"', 'payment = "first"'), False),
    ],
)
def test_a_design_or_exploration_answer_stays_current_after_a_description_edit(tmp_path, edit, current):
    # hunt 20d-W6: editing a shading rule's description made a design answer "not current: the study's tables
    # changed", and report refused until the study ran again; descriptions are report text
    before = load_study(write_study(tmp_path, DESCRIBED_DESIGN))
    assert edit[0] in DESCRIBED_DESIGN
    after = load_study(write_study(tmp_path / "edited", DESCRIBED_DESIGN.replace(*edit)))
    assert (answer_key(before, "w") == answer_key(after, "w")) is current
    assert (exploration_key(before) == exploration_key(after)) is current


def test_a_design_study_whose_descriptions_changed_reports_without_running_again(tmp_path, capsys):
    path = write_study(tmp_path, DESCRIBED_DESIGN)
    assert main(["study", "run", str(path), "--no-progress"]) == 0
    path.write_text(DESCRIBED_DESIGN.replace("every job leaves", "they all leave"), encoding="utf-8")
    capsys.readouterr()
    assert main(["study", "status", str(path)]) == 0
    assert "design answer: stored, and current" in capsys.readouterr().out
    assert main(["report", str(path)]) == 0


def _solved(name: str, A, B) -> SolvedGame:
    game = Game(A, B, ["hb-first", "hb-kth"], ["FT", "SRG"])
    sol = solve(game)
    return SolvedGame(name, game, sol, [None] * len(sol.equilibria))


@pytest.mark.parametrize(
    "second,said",
    [
        # hb-first and hb-kth pay the provider alike against FT, which dominates: two pure equilibria
        (([[5, 5], [5, 5]], [[2, 1], [2, 1]]), "the provider picks hb-first in every one; and also hb-kth in slow."),
        (([[5, 1], [4, 1]], [[2, 1], [2, 1]]), "the provider picks hb-first in every one."),
        (([[1, 1], [5, 5]], [[2, 1], [2, 1]]), "pick depends on the game: all jobs: hb-first; slow: hb-kth"),
    ],
)
def test_the_answer_names_every_pick_of_every_game(second, said):
    # hunt 20d-W11: "the provider picks hb-first in every one" left out hb-kth, as good in the second game
    first = _solved("all jobs", np.array([[5.0, 1.0], [4.0, 1.0]]), np.array([[2.0, 1.0], [2.0, 1.0]]))
    an = SimpleNamespace(games=[first, _solved("slow", *map(np.array, second))], games_left_out=[], meta={})
    assert said in answer_paragraph(an)


def test_a_renamed_study_is_told_that_its_folder_names_a_file_no_longer_there(tmp_path, capsys):
    # hunt 20d-W2: after `mv s.toml s-v2.toml`, status and report named s.toml as the folder's owner as if there
    path = write_study(tmp_path, TINY.format(count=2))
    assert main(["study", "run", str(path), "--no-progress", "--no-report"]) == 0
    renamed = path.with_name("s-v2.toml")
    path.rename(renamed)
    capsys.readouterr()
    assert main(["study", "status", str(renamed)]) == 0
    err = capsys.readouterr().err
    assert f"belongs to {path} (a study file no longer there: renamed or moved?), not to this study" in err
    assert main(["report", str(renamed)]) == 2
    assert f"{path} (a study file no longer there: renamed or moved?)" in capsys.readouterr().err
    # a folder whose owner is there (another study: a file of other bytes) is named without it
    path.write_text(TINY.format(count=3), encoding="utf-8")
    assert main(["study", "status", str(renamed)]) == 0
    err = capsys.readouterr().err
    assert f"belongs to {path}, not to this study" in err and "no longer there" not in err


def _claimed(providers, consumers, notes="") -> str:
    """TINY (two seeds) playing ``providers`` x ``consumers``, with a discussion ``notes``."""
    body = TINY.format(count=2).replace('name = "tiny"', f'name = "claimed"\nnotes = "{notes}"')
    body = body.replace('providers = ["hb-first", "hb-kth"]', f"providers = {json.dumps(providers)}")
    return body.replace('consumers = ["FT", "SRG"]', f"consumers = {json.dumps(consumers)}")


@pytest.mark.parametrize(
    "providers,consumers",
    [
        (["hb-first", "hb-kth"], ["FT", "SRG"]),
        (["hb-first", "nphb-first", "wspt-first"], ["FT", "SRG", "DEV1"]),
        (["hb-kth", "wspt-est-kth"], ["FT", "UNI50"]),
        (["hb-first", "hb-kth-r10"], ["SRG", "LRG"]),
    ],
)
def test_the_claim_keys_told_before_the_runs_are_those_the_runs_make(tmp_path, providers, consumers):
    # the reference: the claims evaluated on the stored results of the study, run
    spec = load_study(write_study(tmp_path, _claimed(providers, consumers)))
    told = claim_keys_made(spec)
    assert main(["study", "run", str(spec.path), "--no-progress", "--no-report"]) == 0
    m, b, meta = load_results(spec, with_bins=True)
    made = {r["key"] for r in claims.evaluate(m, b, load_cohorts(spec), meta["consumers"], meta["providers"])}
    assert told == made


@pytest.mark.parametrize(
    "consumers,key,ok",
    [
        (["FT", "DEV1"], "c1", False),  # no SRG: claims (1)-(3) make no row
        (["FT", "SRG"], "c1", True),
        (["FT", "DEV1"], "c4-DEV1-first-high", True),
        (["FT", "DEV1"], "c4-SRG-first-high", False),
    ],
)
def test_a_claim_key_the_study_cannot_make_is_refused_before_any_run(tmp_path, capsys, consumers, key, ok):
    # hunt 20d-W3: `{claim.c1.ci}` in a study without SRG was refused only after every run
    path = write_study(tmp_path, _claimed(["hb-first", "hb-kth"], consumers, notes=f"c: {{claim.{key}.ci}}"))
    rc = main(["study", "run", str(path), "--no-progress"])
    err = capsys.readouterr().err
    if ok:
        assert rc == 0, err
        return
    assert rc == 2 and f"this study makes no claim row of key {key!r}" in err and "The keys it makes: c" in err
    assert not (tmp_path / "studies" / "results").exists()  # before any run


def test_a_pricing_study_makes_no_claim_key(tmp_path):
    spec = load_study(ROOT / "studies" / "price-discovery-market.toml")
    assert claim_keys_made(spec) == set()


LEAVING = "outside_price = 20.0\n[game.shading.leave-all]\nbeta = 0\nleave = 1\n"


@pytest.mark.parametrize(
    "strategies,extra,said",
    [
        # hunt 21a-F3: "gain of truthful over truthful at the all-truthful population: -12,830", truthful shading 0.3
        (
            '["truthful", "honest", "shade-0.5"]',
            "[game.shading.truthful]\nbeta = 0.3\n[game.shading.honest]\nbeta = 0.0\n",
            "the rule named 'truthful' is",
        ),
        (
            '["truthful", "honest", "shade-0.5"]',
            "outside_price = 20.0\n[game.shading.truthful]\nbeta = 0\nleave = 1\n[game.shading.honest]\nbeta = 0\n",
            "the rule named 'truthful' is",
        ),
        # a rule of beta 0 that leaves is no truthful reference
        ('["leave-all", "shade-0.5"]', LEAVING, "include a truthful rule (beta = 0, no job leaving)"),
    ],
)
def test_the_truthful_reference_bids_truthfully_and_stays(tmp_path, strategies, extra, said):
    body = POPULATION_STUDY.replace('["truthful", "shade-0.5", "shade-high-0.9"]', strategies)
    body = body.replace("[replications]", extra + "[replications]")
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(write_population_study(tmp_path, body))


def test_a_rule_that_leaves_listed_first_is_not_the_reference(tmp_path):
    body = POPULATION_STUDY.replace('["truthful", "shade-0.5", "shade-high-0.9"]', '["leave-all", "truthful"]')
    spec = load_study(write_population_study(tmp_path, body.replace("[replications]", LEAVING + "[replications]")))
    assert spec.population.names[spec.population.truthful_index] == "truthful"


def test_a_studys_inline_grid_replaces_the_catalogues(tmp_path, recwarn):
    # hunt 21a-F5: grid:* played the built-in grid's 12 cells beside the study's 2, two conservative betas in one grid
    body = TINY.format(count=2).replace('consumers = ["FT", "SRG"]', 'consumers = ["FT", "grid:*"]')
    body = body.replace(
        "[replications]",
        "[strategies.consumer.grid]\naggressive_fractions = [0.5]\naggressive_betas = [0.3, 0.9]\n"
        "conservative_beta = 0.0\n[replications]",
    )
    spec = load_study(write_study(tmp_path, body))
    assert [c.name for c in spec.consumers] == ["FT", "g0.5x0.3", "g0.5x0.9"]
    assert [c.params()["groups"] for c in spec.consumers[1:]] == [[[0.5, 0.0], [0.5, 0.3]], [[0.5, 0.0], [0.5, 0.9]]]
    assert not [w for w in recwarn if "redefines" in str(w.message)]  # the grid as a whole is the study's
    # without an inline grid, grid:* is the catalogue's (12 cells)
    plain = load_study(
        write_study(tmp_path / "plain", body.split("[strategies.consumer.grid]")[0] + "[replications]\ncount = 2\n")
    )
    assert len(plain.consumers) == 13


def test_a_users_game_states_its_payoffs_per_user(tmp_path, capsys):
    # hunt 21a-F4: with agents = "users" the payoffs are sums over each user's jobs, and the report said "bid x
    # seconds per job" of them (in its setup, its truthful gains, its answer and its figure)
    body = POPULATION_STUDY.replace("jobs = 800", "jobs = 300").replace("probe = 0.01", 'agents = "users"')
    study = write_population_study(tmp_path, body)
    assert main(["study", "run", str(study), "--no-progress"]) == 0
    text = (tmp_path / "studies" / "report" / "report.md").read_text()
    per_user = "bid x seconds per user (the sum over the user's jobs)"
    assert text.count(per_user) >= 3, text
    assert "seconds per job" not in text
    # the probe share the runs used (one user, where that is more than [game] probe): hunt 21c-F2 read the nominal one
    from gamemarket.workloads import load

    users = load("synthetic", jobs=300, load=1.1, seed=2, nodes=8).jobs["user"].nunique()
    assert f"probe slices of {max(0.005, 1 / users):g} of the agents" in text


def test_game_solve_of_an_exploring_study_answers_with_its_exploration(tmp_path, capsys):
    # hunt 21a-F1: `game solve` printed the menu-only equilibria, unlabelled, as the answer of a study whose report
    # answers with its exploration (and `study run` printed them unlabelled above the exploration's verdicts)
    path = write_study(tmp_path, EXPLORING, "ex.toml")
    assert main(["study", "run", str(path), "--no-progress", "--n-jobs", "1", "--no-report"]) == 0
    run = capsys.readouterr().out
    assert MENU_COMPARISON + ":" in run and "    equilibrium " in run  # the explored equilibria listed
    assert main(["game", "solve", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("the study's answer: its exploration's\n  exploration hb-first: ")
    assert out.index("exploration's provider choice") < out.index(MENU_COMPARISON) and "    equilibrium " in out
    ex, why = read_stored_exploration(load_study(path))
    assert ex is not None and not why
    assert main(["game", "solve", str(path), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    explored = [r for r in records if r["source"] == "exploration"]
    assert [r["mechanism"] for r in explored] == [n for n, m in ex.mechanisms.items() for _ in m.equilibria]
    shares = [e.shares for m in ex.mechanisms.values() for e in m.equilibria]
    assert [r["mixture"]["consumers"] for r in explored] == shares
    assert {r["source"] for r in records} == {"exploration", "menu"}
    # without a stored exploration the answer says so, and the menu is still said to be a comparison
    (tmp_path / "studies" / "results" / "ex" / "exploration.json").unlink()
    assert main(["game", "solve", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("the study's answer: its exploration's: none stored (") and MENU_COMPARISON in out


LEAVERS = """
name = "jo"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 300
load = 0.6
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "shade-high-0.9", "leave-all", "leave-high"]
outside_price = 20.0
probe = 0.05
joint = true
[game.shading.leave-all]
beta = 0.0
leave = 1.0
[game.shading.leave-high]
beta = 0.0
leave = { high = 1.0 }
[replications]
count = 3
"""


def test_all_truthful_verified_an_equilibrium_is_listed_among_the_equilibria(tmp_path):
    # hunt 21a-F2: "truthful is an equilibrium: yes" beside equilibria (and a provider's worst case) without it: its
    # regret's bound was within the tolerance, but it was no exact equilibrium of the reduced game (regret 1,476.6)
    spec = load_study(write_study(tmp_path, LEAVERS, "jo.toml"))
    an = run_population_study(spec, n_jobs=1)
    said = [a for a in an.answers if a.truthful_is_equilibrium == "yes"]
    assert said  # (hb-kth here)
    truthful = tuple(float(i == spec.population.truthful_index) for i in range(4))
    for a in an.answers:
        listed = [e for e in a.equilibria if e.mixture_vector == truthful]
        assert bool(listed) is (a.truthful_is_equilibrium == "yes"), a.mechanism
        for e in listed:
            assert e.verified == "yes" and e.regret.high <= e.tolerance
            if e.reduced_regret > 0:
                assert any(n.startswith("all-truthful is listed among the equilibria") for n in a.notes)
    # the provider's worst case counts it: every ranked worst revenue is that of an equilibrium listed
    for r in an.provider.ranking:
        a = next(a for a in an.answers if a.mechanism == r.mechanism)
        assert r.worst_revenue == min(e.revenue.mean for e in a.equilibria if e.verified != "no")


@pytest.mark.parametrize(
    "body,said",
    [
        # hunt 21a-W1: tables and fields that did nothing were read past
        (
            SMALL_DESIGN.replace(
                "[replications]", '[game.exploration]\nfamily = "per-class"\nbudget = 9\n[replications]'
            ),
            "[game.exploration] would have no effect: a design study explores its users' answer only with [design]",
        ),
        (SMALL_DESIGN + '[paper]\nsource = "x"\njobs = 3\n', "[paper] applies to a provider/consumer study"),
        (POPULATION_STUDY + '[paper]\nsource = "x"\njobs = 3\n', "[paper] applies to a provider/consumer study"),
        (
            POPULATION_STUDY.replace("max_seeds = 4", "max_seeds = 4\noutside_price = 50.0"),
            "[game] field 'outside_price' would have no effect: no rule of the menu (nor of an explored family)",
        ),
    ],
)
def test_a_table_a_population_or_design_study_would_not_read_is_refused(tmp_path, body, said):
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(write_study(tmp_path, body))


def test_an_outside_price_with_a_family_that_leaves_is_kept(tmp_path):
    body = POPULATION_STUDY.replace(
        "max_seeds = 4",
        'max_seeds = 4\noutside_price = 50.0\nexploration = { family = "per-class-leave", budget = 100 }',
    )
    assert load_study(write_study(tmp_path, body)).population.outside_price == 50.0


def test_a_named_catalogue_that_redefines_a_built_in_strategy_is_warned_of(tmp_path):
    # hunt 21a-W3: a provider_file redefining hb-first as a k-th price mechanism ran without a word, where the same
    # redefinition inline or in a catalogue beside the study was warned of
    body = TINY.format(count=2).replace("[strategies]", '[strategies]\nprovider_file = "mine.toml"')
    path = write_study(tmp_path, body)
    (path.parent / "mine.toml").write_text(
        '[hb-first]\nscheduler = "hb"\npayment = "kth"\n[hb-kth]\nscheduler = "hb"\npayment = "kth"\n'
    )
    with pytest.warns(
        UserWarning, match=r"mine\.toml: \[hb-first\] redefines the built-in provider strategy 'hb-first'"
    ):
        load_study(path)
    body = TINY.format(count=2).replace("[strategies]", '[strategies]\nconsumer_file = "cons.toml"')
    path = write_study(tmp_path / "c", body)
    (path.parent / "cons.toml").write_text("[FT]\ngroups = [[1.0, 0.3]]\n[SRG]\ngroups = [[0.9, 0.1], [0.1, 0.9]]\n")
    with pytest.warns(UserWarning, match=r"cons\.toml: \[FT\] redefines the built-in consumer strategy 'FT'"):
        load_study(path)


@pytest.mark.parametrize("field", ["provider_file", "consumer_file"])
def test_a_missing_named_catalogue_names_the_study_and_the_field(tmp_path, field):
    # hunt 21a-W4: "/.../nofile.toml: no such TOML file" named neither the study nor the field that named it
    path = write_study(tmp_path, TINY.format(count=2).replace("[strategies]", f'[strategies]\n{field} = "nofile.toml"'))
    with pytest.raises(
        InputError, match=rf"s\.toml: \[strategies\] field '{field}' \('nofile\.toml'\): .*nofile\.toml"
    ):
        load_study(path)


def test_a_design_studys_result_names_its_design_for_every_other_kinds_method(tmp_path):
    # hunt 21a-W5: answers() sent a design study to equilibria(), which sent it to design.points; metrics() called it
    # a population study
    from gamemarket.workflow import run_study

    res = run_study(write_study(tmp_path, SMALL_DESIGN), n_jobs=1, write_report=False)
    assert res.design is not None and res.design.points
    for method in (res.answers, res.equilibria, res.metrics):
        with pytest.raises(InputError, match=r"a design study's answer is its design \(\.design: the chosen"):
            method()


def test_a_share_of_dust_in_an_equilibrium_is_set_to_zero_where_it_stays_one():
    # hunt 21a-W2: a joint equilibrium was printed as "1 truthful + 3.55e-193 sb20" (a search's rounding)
    from gamemarket.games.rsg_equilibria import DUST, _without_dust
    from gamemarket.games.rsgame import RoleSymmetricGame

    game = RoleSymmetricGame.from_function(["c"], [3], [["a", "b"]], lambda p: [2.0, 1.0])  # a dominates
    x = np.array([1.0, 3.55e-193])
    clean, r = _without_dust(game, x, game.regret(x), 1e-9)
    assert clean.tolist() == [1.0, 0.0] and r == 0.0
    # where the rest is no equilibrium within the tolerance, nothing is changed
    y = np.array([DUST / 2, 1.0 - DUST / 2])
    kept, r_kept = _without_dust(game, y, game.regret(y), game.regret(y))
    assert kept is y and r_kept == game.regret(y)


@pytest.mark.parametrize(
    "lo,hi,k,expected",
    [
        (0.0, 60.0, 4, [0.0, 20.0, 40.0, 60.0]),  # hunt 21c-F1: 0, 19.98, 40.02, 60 (the outside price was 20)
        (0.0, 30.0, 4, [0.0, 10.0, 20.0, 30.0]),
        (0.0, 1.0, 5, [0.0, 0.25, 0.5, 0.75, 1.0]),
        (5.0, 80.0, 4, [5.0, 30.0, 55.0, 80.0]),
    ],
)
def test_a_regular_design_grid_is_evaluated_where_it_lies(lo, hi, k, expected):
    from gamemarket.search.design import grid_points
    from gamemarket.studies.design_config import snap

    assert [snap(v, lo, hi) for v in grid_points([("reserve", lo, hi)], k)[:, 0]] == expected


@settings(max_examples=200, deadline=None)
@given(v=st.floats(0, 1), lo=st.floats(0, 1000), width=st.floats(1e-3, 1e6))
def test_a_snapped_value_is_a_multiple_of_the_resolution_nearest_it(v, lo, width):
    from gamemarket.studies.design_config import RESOLUTION, resolution, snap

    hi = lo + width
    step = resolution(lo, hi)
    assert RESOLUTION * (hi - lo) / 10 < step <= RESOLUTION * (hi - lo) * (1 + 1e-8)
    x = snap(lo + v * width, lo, hi)
    assert lo <= x <= hi
    if lo < x < hi:  # (an end is itself where the nearest multiple lies outside)
        assert abs(x / step - round(x / step)) < 1e-6 and abs(x - (lo + v * width)) <= step / 2 * (1 + 1e-9)


HETERO = """
name = "gm"
[workload]
source = "hetero"
[workload.hetero]
jobs = {jobs}
resources = 2
load = 2.0
[strategies]
providers = ["clearing", "posted"]
consumers = ["FT", "SRG"]
[replications]
count = 2
"""


@pytest.mark.parametrize(
    "body,said",
    [
        (HETERO.format(jobs=10**8), "[workload.hetero]: a cluster of 100,000,000 jobs x 2 resources"),
        (HETERO.format(jobs=100) + "[gains]\njobs = [100, 100000000]\nseeds = 2\n", "a size of 100,000,000 jobs: a"),
    ],
)
def test_a_pricing_cluster_too_large_for_memory_is_refused_when_read(tmp_path, capsys, monkeypatch, body, said):
    # hunt 21c-F4: jobs = 1e8 under a 200 MB limit took 3.3 GB in `study status` and the OOM killer in `study run`
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(200_000_000))
    path = write_study(tmp_path, body)
    for command in ("status", "run"):
        assert main(["study", command, str(path)]) == 2
        err = capsys.readouterr().err
        assert said in err and "needs about 38.4 GB of memory; the limit is 200 MB" in err
    assert not (tmp_path / "studies" / "results").exists()


def test_study_status_counts_the_population_study_the_notes_quote(tmp_path, capsys):
    # hunt 21c-F3: "8/8 runs stored" beside a report refused for the quoted population study's missing runs
    pop = write_study(tmp_path, EXPLORING, "ex.toml")
    body = TINY.format(count=2).replace(
        'name = "tiny"', 'name = "tiny"\npopulation_study = "ex.toml"\nnotes = "The leader is {population.leader}."'
    )
    path = write_study(tmp_path, body)
    assert main(["study", "run", str(path), "--no-progress", "--n-jobs", "1"]) == 0  # (runs ex.toml first)
    capsys.readouterr()
    assert main(["study", "status", str(path)]) == 0
    out = capsys.readouterr().out
    stored = re.search(r"population study ex \(the notes quote it\): (\d+)/(\d+) population runs", out)
    assert stored and stored.group(1) == stored.group(2) != "0", out
    shutil.rmtree(pop.parent / "results" / "ex")
    assert main(["study", "status", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"population study ex \(the notes quote it\): 0/\d+ population runs", out), out
    assert main(["report", str(path)]) == 2  # the report needs them: status no longer says all is stored


@pytest.mark.parametrize("form", ["parquet", "csv", "csv.gz"])
def test_a_job_table_redirected_to_stdin_is_told_by_its_bytes(tmp_path, form):
    # hunt 21c-F6: `simulate --job-table /dev/stdin < table.parquet` was refused as "a Parquet table ..., not text",
    # telling the user to run the same command (a pipe of it ran)
    gm = [sys.executable, "-m", "gamemarket"]
    table = tmp_path / f"jt.{form.split('.')[0]}"
    made = subprocess.run(
        [*gm, "simulate", "--synthetic-jobs", "200", "--nodes", "8", "--mix", "SRG", "--jobs-out", str(table)],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    if form == "csv.gz":
        gz = tmp_path / "jt.csv.gz"
        gz.write_bytes(gzip.compress(table.read_bytes()))
        table = gz
    args = ["simulate", "--nodes", "8", "--format", "json"]
    direct = subprocess.run([*gm, *args, "--job-table", str(table)], capture_output=True, text=True)
    with open(table, "rb") as f:
        redirected = subprocess.run([*gm, *args, "--job-table", "/dev/stdin"], stdin=f, capture_output=True, text=True)
    assert redirected.returncode == 0, redirected.stderr
    assert json.loads(redirected.stdout)["revenue"] == json.loads(direct.stdout)["revenue"]


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--workload", str(ROOT / "models" / "lpc-egee-2004.toml"), "--synthetic-jobs", "300"],
        ["simulate", "--synthetic-jobs", "300"],
        ["workload", "info", str(ROOT / "models" / "lpc-egee-2004.toml")],
        ["workload", "info", "synthetic"],
    ],
)
def test_a_reduction_of_a_generated_workload_is_refused(argv, capsys):
    # hunt 21c-F5: a model with --reduction 0.5 was drawn for its 105 nodes and run on 52 (utilization 0.396), where
    # --nodes 52 drew it for 52 (0.269): two workloads for one node count; a study file refuses the field
    assert main([*argv, "--reduction", "0.5"]) == 2
    assert "a reduction (0.5) applies to a trace" in capsys.readouterr().err


def test_a_dominated_strategys_outlier_does_not_loosen_the_regret_tolerance(tmp_path, capsys):
    # hunt 21b-F1: matching pennies beside a strictly dominated column paying the provider 1e12: two pure profiles of
    # provider regret 2 were listed as equilibria (the tolerance relative to a spread the dominated column made)
    A = np.array([[1.0, -1.0, 1e12], [-1.0, 1.0, 0.0]])
    B = np.array([[-1.0, 1.0, -10.0], [1.0, -1.0, -10.0]])
    sol = solve(Game(A, B, ["r0", "r1"], ["c0", "c1", "c2"]))
    assert [(e.x.round(12).tolist(), e.y.round(12).tolist()) for e in sol.equilibria] == [([0.5, 0.5], [0.5, 0.5, 0.0])]
    assert all(max(e.regret) <= 1e-9 for e in sol.equilibria)
    path = tmp_path / "outlier.npz"
    np.savez(path, A=A, B=B)
    assert main(["game", "solve", str(path), "--methods", "pure"]) == 3  # none: the pure ones had regret 2
    assert "none found" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name",
    ['say "hi"', "esc\x1b[0m", "evil\nname = 1", "back\\slash", "del\x7f", "bad\udcff"],  # (22b-F5: no UTF-8)
)
def test_a_trace_name_of_any_characters_is_written_into_its_model_as_toml_writes_it(tmp_path, capsys, name):
    # hunt 21b-F3: a quote or a control character in the trace's name crashed `workload fit` with tomllib's traceback
    # when the model was read back; a newline was blamed on the trace's times
    from gamemarket.workloads import load

    records = [
        f"{i + 1} {i * 40} 0 {100 + i % 7 * 30} 1 -1 -1 1 300 -1 1 {1 + i % 3} -1 -1 -1 -1 -1 -1" for i in range(1500)
    ]
    trace = tmp_path / f"{name}.swf"
    trace.write_text("\n".join(["; MaxProcs: 8", *records]) + "\n")
    out = tmp_path / "m.toml"
    assert main(["workload", "fit", str(trace), "--out", str(out)]) == 0
    assert capsys.readouterr().out.rstrip("\n").isprintable()  # the name shown, not its control characters
    assert out.read_text(encoding="utf-8").splitlines()[0].isprintable()
    shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    assert load(str(out), jobs=50).meta["name"] == f"model:{shown}"


@pytest.mark.parametrize("utility", ["log", "alpha:2", "alpha:0.5"])
@pytest.mark.parametrize("seed", [3, 4])
def test_a_job_of_weight_zero_values_nothing_and_the_rest_solve_as_without_it(utility, seed):
    # hunt 21b-F2: a job of weight 0 (which the reader accepts) made a log or alpha:2 problem "no finite duality gap"
    from gamemarket.pricing import Problem
    from gamemarket.pricing import solve as price

    rng = np.random.default_rng(seed)
    n = 30
    A, R = rng.uniform(0.1, 1, (n, 3)), np.array([5.0, 4.0, 3.0])
    w = np.ones(n)
    w[[0, 7]] = 0.0
    with_zero = price(Problem(A, R, utility, weight=w))
    without = price(Problem(A[w > 0], R, utility))
    assert with_zero.converged and without.converged
    assert with_zero.objective == pytest.approx(without.objective, abs=with_zero.gap + without.gap + 1e-9)


def test_a_users_game_of_too_few_users_is_refused_by_every_command(tmp_path, capsys):
    # hunt 21c-F2: one user failed in `study run` with a message naming nothing ("1 probe slices of 1.0 leave no room
    # for the mixture") after `study status` had accepted it; two users ran 0.75/0.25 as 1/1, reported as verified
    path = write_users_study(tmp_path, "u2", [1 + i % 2 for i in range(300)])
    for argv in users_study_commands(path):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "[game] field 'agents' = 'users': the workload u2.swf has 2 user(s)" in err and "fewer than 10" in err
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("form", ["csv", "csv.gz", "parquet"])
def test_a_job_table_too_large_for_memory_is_refused_before_it_is_parsed(tmp_path, capsys, monkeypatch, form):
    # hunt 21b-F4: 4,000,000 jobs ran at 886 MB under a 200 MB limit, where a trace of the same jobs was refused
    import pandas as pd

    n = 20_000
    table = pd.DataFrame(
        {"id": range(n), "submit": range(n), "runtime": 100, "estimate": 300, "private_bid": 20.5,
         "reported_bid": 20.5, "group": 0}
    )  # fmt: skip
    path = tmp_path / f"t.{form}"
    if form == "parquet":
        table.to_parquet(path)
    else:
        table.to_csv(path, index=False)
    limit = 20_000 * 100  # under what 20,000 jobs need in either form
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(limit))
    assert main(["simulate", "--job-table", str(path), "--nodes", "8"]) == 2
    assert (
        f"{path}: a job table of {n:,} jobs and their run needs about" in capsys.readouterr().err  # (22b-W3: no header)
    )
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(limit * 100))
    assert main(["simulate", "--job-table", str(path), "--nodes", "8"]) == 0


def test_bootstrap_resamples_are_sized_against_the_memory_limit_before_they_are_drawn(monkeypatch):
    # hunt 21b-F7: a million resamples took 594 MB more under a 300 MB limit
    from gamemarket.games.robustness import bootstrap

    rng = np.random.default_rng(0)
    A_reps, B_reps = rng.normal(size=(4, 5, 6)), rng.normal(size=(4, 5, 6))
    game = Game(A_reps.mean(axis=2), B_reps.mean(axis=2), [f"r{i}" for i in range(4)], [f"c{j}" for j in range(5)],
                A_reps=A_reps, B_reps=B_reps)  # fmt: skip
    eqs = solve(game).equilibria
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(50_000_000))
    with pytest.raises(InputError, match=r"1,000,000 bootstrap resamples of a 4 x 5 game of 6 replications needs"):
        bootstrap(game, eqs, resamples=1_000_000)
    assert len(bootstrap(game, eqs, resamples=1000)) == len(eqs)


def test_alpharank_counts_building_its_chain_within_the_time_limit(monkeypatch):
    # hunt 21b-F5: an 80 x 80 game's chain (8 million moves, pure Python) was built before the clock was first looked
    # at: a 1 s limit ended after 11-14 s
    from gamemarket.games import alpharank as ar
    from gamemarket.games.budget import Stopped

    built = []
    monkeypatch.setattr(ar, "_matrix", lambda *args: built.append(args) or None)
    rng = np.random.default_rng(1)
    game = Game(rng.normal(size=(30, 30)), rng.normal(size=(30, 30)), [f"r{i}" for i in range(30)],
                [f"c{j}" for j in range(30)])  # fmt: skip
    with pytest.raises(Stopped, match="alpha-rank stopped"):
        ar.alpharank(game, time_limit=1e-9)
    assert not built  # stopped while its moves were listed, before any matrix


class _Expired:
    """A search clock whose limit has passed."""

    limit = 3.0

    def expired(self):
        return True

    def stopped(self):
        return "at the time limit of 3 s"


def test_verification_past_the_time_limit_leaves_the_rest_out_and_says_so():
    # hunt 21b-F6: a 300 x 300 zero game's 90,000 pure candidates were verified for 24-39 s past a 3 s limit, and an
    # EGTA game's 4,177 for 9 s past a 2 s one (a re-test of 20b-F4)
    from gamemarket.games.equilibria import _verify_each
    from gamemarket.games.rsg_equilibria import VERIFY_PER_LOOK, _verified
    from gamemarket.games.rsgame import RoleSymmetricGame

    seen, notes = [], []
    done = _verify_each([(i, i) for i in range(100)], lambda x, y: seen.append(x), 3.0, [3.0], "pure", notes)
    assert not done and not seen and "100 of its 100 candidates were left unverified" in notes[0]
    assert notes[0].startswith("incomplete: the time limit of 3 s was reached while verifying what pure found")
    # the budget is the verification's own: a search that used its whole limit still has its candidates verified
    notes, seen = [], []
    assert _verify_each([(i, i) for i in range(100)], lambda x, y: seen.append(x), 3.0, [0.0], "pure", notes)
    assert len(seen) == 100 and not notes
    game = RoleSymmetricGame.from_function(["c"], [3], [["a", "b"]], lambda p: [2.0, 1.0])
    cands = [(np.array([1.0, 0.0]), "replicator")] * (3 * VERIFY_PER_LOOK)
    notes = []
    found = _verified(game, cands, {}, 1e-9, 1e-6, _Expired(), notes)
    left = f"{2 * VERIFY_PER_LOOK:,} of {3 * VERIFY_PER_LOOK:,} were left unverified"
    assert len(found) == 1 and notes and left in notes[0]


@pytest.mark.parametrize(
    "entry", ['mechanism = "posted"\nprices = 1e300', 'mechanism = "clearing-reserve"\nreserve = [1.0, 1e12]']
)
def test_a_pricing_providers_prices_are_bounded_as_a_reserve_is(tmp_path, entry):
    # hunt 21c-W6: prices = 1e300 passed status and run (revenue 0, nobody bought); a scheduling reserve is <= 1e9
    body = (
        HETERO.format(jobs=40)
        .replace('providers = ["clearing", "posted"]', 'providers = ["clearing", "x"]')
        .replace("[replications]", f'[strategies.provider.x]\nkind = "pricing"\n{entry}\n[replications]')
    )
    with pytest.raises(InputError, match=r"expected a number (>= 0 and )?<= (1000000000.0|1e\+09)"):
        load_study(write_study(tmp_path, body))


@pytest.mark.parametrize(("name", "said"), [("a&amp;b", "the character reference '&amp;'"), ("x~~y~~", "'~'"),
                                            ("r&#38;d", "the character reference '&#38;'")])  # fmt: skip
def test_a_name_a_viewer_would_print_otherwise_is_refused(tmp_path, name, said):
    # hunt 21c-W1: "a&amp;b" was shown as "a&b" in both pages, "x~~y~~" struck through on GitHub
    body = TINY.format(count=2).replace('consumers = ["FT", "SRG"]', f'consumers = ["FT", "{name}"]')
    body = body.replace("[replications]", f'[strategies.consumer."{name}"]\ngroups = [[1.0, 0.3]]\n[replications]')
    with pytest.raises(InputError, match=re.escape(f"consumer strategy {name!r}: holds {said}")):
        load_study(write_study(tmp_path, body))
    ok = body.replace(name, "a&b")  # '&' alone is kept (it is no reference)
    assert load_study(write_study(tmp_path / "ok", ok)).consumers[1].name == "a&b"


def test_an_swf_field_in_pythons_number_syntax_is_refused_naming_its_line(tmp_path, capsys):
    # hunt 21b-W6: a run time written 1_000 was read as 1000 (Python's float()), not refused
    records = [f"{i + 1} {i * 40} 0 100 1 -1 -1 1 300 -1 1 1 -1 -1 -1 -1 -1 -1" for i in range(20)]
    records[4] = records[4].replace(" 0 100 ", " 0 1_000 ", 1)
    path = tmp_path / "t.swf"
    path.write_text("\n".join(["; MaxProcs: 8", *records]) + "\n")
    assert main(["workload", "info", str(path)]) == 2
    assert f"{path}:6: malformed SWF line: field 4 is '1_000', expected a number" in capsys.readouterr().err


def test_a_payoff_table_with_a_comment_line_is_told_to_remove_it(tmp_path, capsys):
    # hunt 21b-W5: a '#' first line sent the user back to the command they had run
    path = tmp_path / "g.csv"
    path.write_text("# my game\nprovider,consumer,provider_payoff,consumer_payoff\na,x,1,2\na,y,0,0\nb,x,0,0\nb,y,2,1")
    assert main(["game", "solve", str(path)]) == 2
    assert "line 1 ('# my game') is a comment, which a payoff table has none of; remove it" in capsys.readouterr().err


def test_upper_case_endings_are_taken_by_every_reader_and_writer(tmp_path, capsys):
    # hunt 21b-W3: R.NPZ and M.TOML were refused by price solve --out and workload fit --out, and a model named
    # M.TOML read as a trace, then told to end .toml
    model = tmp_path / "M.TOML"
    shutil.copy(ROOT / "models" / "lpc-egee-2004.toml", model)
    assert main(["workload", "info", str(model)]) == 0
    assert "workload model of LPC-EGEE-2004-1.2-cln" in capsys.readouterr().out
    assert main(["price", "solve", "--n", "20", "--m", "2", "--out", str(tmp_path / "R.NPZ"), "--quiet"]) == 0
    assert (tmp_path / "R.NPZ").is_file()
    assert main(["simulate", "--workload", str(model), "--synthetic-jobs", "200", "--format", "json"]) == 0


def test_a_known_traces_copy_in_another_form_is_named_with_why_it_is_not_used(tmp_path, monkeypatch):
    # hunt 21b-W8: a gunzipped copy of a catalogued trace in GAMEMARKET_TRACES was "no such workload file"
    from gamemarket.workloads import archive

    (tmp_path / "SDSC-Par-1996-3.1-cln.swf").write_text(
        "; MaxProcs: 8\n1 0 0 10 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    )
    monkeypatch.setattr(archive, "search_dirs", lambda: [tmp_path])
    with pytest.raises(
        InputError, match=r"found \S*SDSC-Par-1996-3\.1-cln\.swf, another form of it, which is not checked"
    ):
        archive.resolve("SDSC-Par-1996-3.1-cln")


def test_a_file_named_like_a_known_trace_must_be_it_unless_given_as_a_path(tmp_path, monkeypatch, capsys):
    # hunt 21b-W2: a 400-line cut named LPC-EGEE-2004-1.2-cln, in the working folder or beside a study, was read and
    # reported as the catalogued trace, its checksum never checked
    cut = tmp_path / "LPC-EGEE-2004-1.2-cln"
    records = [f"{i + 1} {i * 40} 0 100 1 -1 -1 1 300 -1 1 1 -1 -1 -1 -1 -1 -1" for i in range(50)]
    cut.write_text("\n".join(["; MaxProcs: 8", *records]) + "\n")
    monkeypatch.chdir(tmp_path)
    assert main(["workload", "info", "LPC-EGEE-2004-1.2-cln"]) == 2
    assert "not the catalogued LPC-EGEE-2004-1.2-cln" in capsys.readouterr().err
    assert main(["workload", "info", "./LPC-EGEE-2004-1.2-cln"]) == 0
    study = tmp_path / "s.toml"
    body = TINY.format(count=1).replace('source = "synthetic"', 'source = "LPC-EGEE-2004-1.2-cln"')
    study.write_text(body.replace("[workload.synthetic]\njobs = 120\nload = 1.1\n", ""))
    with pytest.raises(
        InputError, match=r"s\.toml: \[workload\] field 'source': .*give it as \./LPC-EGEE-2004-1\.2-cln"
    ):
        load_study(study)
    study.write_text(study.read_text().replace('"LPC-EGEE', '"./LPC-EGEE'))
    assert load_study(study).workload["source"] == str(cut)


def test_a_price_result_and_an_outcome_table_given_as_inputs_are_named(tmp_path, capsys):
    # hunt 21b-W7: a price solve --out result given to price solve was "missing array 'A'", and simulate --out's
    # outcome table given as a job table "missing column(s) ['estimate']", naming neither for what it is
    result = tmp_path / "r.npz"
    assert main(["price", "solve", "--n", "20", "--m", "2", "--out", str(result), "--quiet"]) == 0
    assert main(["price", "solve", str(result)]) == 2
    assert "a price solve --out result (prices, allocation, converged), not a problem" in capsys.readouterr().err
    outcome = tmp_path / "o.csv"
    assert main(["simulate", "--synthetic-jobs", "50", "--nodes", "4", "--out", str(outcome)]) == 0
    capsys.readouterr()
    assert main(["simulate", "--job-table", str(outcome), "--nodes", "4"]) == 2
    assert "an outcome table (what `simulate --out` writes" in capsys.readouterr().err


@pytest.mark.parametrize(
    "notes,typed",
    [("As Shudler et al. (2010) found.", []), ("Shudler et al., 2010 found", []), ("We use 10 seeds.", ["10"]),
     ("In the year 2010.", ["2010"])],
)  # fmt: skip
def test_a_citations_year_is_a_reference_not_a_typed_number(notes, typed):
    # hunt 21c-W2: "As Shudler et al. (2010) found." was refused as a typed number
    from gamemarket.studies.schema import typed_numbers

    assert typed_numbers(notes) == typed


def test_a_companion_is_reported_as_it_is_run(tmp_path, capsys):
    # hunt 21a-W6: a companion was run but its report written by no command (the schema: "run and reported alongside")
    write_study(tmp_path, TINY.format(count=2).replace('name = "tiny"', 'name = "comp"'), "comp.toml")
    main_study = write_study(
        tmp_path, TINY.format(count=2).replace('name = "tiny"', 'name = "tiny"\ncompanions = ["comp.toml"]')
    )
    assert main(["study", "run", str(main_study), "--no-progress", "--n-jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "companion report: " in out
    comp = load_study(tmp_path / "studies" / "comp.toml")
    assert (Path(comp.report_dir) / "index.html").is_file() and (Path(comp.report_dir) / "report.md").is_file()


def test_alpharank_says_when_its_eps_limit_names_another_first_profile(tmp_path, capsys):
    # hunt 21b-W1: the "infinite" row named (r0, c0) first where every alpha from 10 up names (r1, c1), and its note
    # said the row's ranking is the point
    rng = np.random.default_rng(7)
    path = tmp_path / "q34.npz"
    np.savez(path, A=rng.integers(-5, 6, (3, 4)).astype(float), B=rng.integers(-5, 6, (3, 4)).astype(float))
    assert main(["game", "solve", str(path), "--concept", "alpharank"]) == 0
    out = capsys.readouterr().out
    assert "  eps-limit  provider {r0: 1}; consumer {c0: 1}" in out
    assert "here its first profile is not the largest alpha's (provider {r1: 1}; consumer {c1: 1})" in out


def test_a_design_run_says_what_it_ran_now_and_records_it(tmp_path, capsys):
    # hunt 21a-W7: a design study wrote no last-run.json, and its line did not say what was run now against reused
    path = write_study(tmp_path, SMALL_DESIGN)
    assert main(["study", "run", str(path), "--no-progress", "--n-jobs", "1", "--no-report"]) == 0
    first = re.search(
        r"simulations \(([\d,]+) population records stored now, the rest reused\)", capsys.readouterr().out
    )
    assert first and int(first.group(1).replace(",", "")) > 0
    record = json.loads((Path(load_study(path).results_dir) / "last-run.json").read_text())
    assert record["kind"] == "design" and record["records_stored_now"] == int(first.group(1).replace(",", ""))
    assert main(["study", "run", str(path), "--no-progress", "--n-jobs", "1", "--no-report"]) == 0
    assert "(0 population records stored now, the rest reused)" in capsys.readouterr().out


def test_a_pricing_mechanism_registered_in_a_script_runs_in_this_process():
    # review 20: a pricing mechanism registered from a script was not found by local_workers (its runs would die in a
    # pool's workers, "unknown pricing mechanism"), where a scheduler or payment so registered was
    from gamemarket.market.pricing_market import HETERO_MECHANISMS, register_mechanism
    from gamemarket.plugins import in_process_entries

    ns = {"__name__": "__main__"}
    exec("def rule(*args, **kwargs):\n    raise AssertionError('not run here')\n", ns)  # a script's function
    register_mechanism("script-mech", ns["rule"], "a script's")
    try:
        assert in_process_entries([{"kind": "pricing", "mechanism": "script-mech"}]) == [
            "pricing mechanism 'script-mech'"
        ]
        assert in_process_entries([{"kind": "pricing", "mechanism": "clearing"}]) == []  # built in
    finally:
        HETERO_MECHANISMS.remove("script-mech")


def test_grid_wildcard_plays_the_grid_cells_only(tmp_path):
    # hunt 22a-F1: an inline consumer named "galaxy" (g...x...) was taken for a grid cell: grid:* played it unlisted
    body = TINY.format(count=2).replace('consumers = ["FT", "SRG"]', 'consumers = ["FT", "grid:*"]')
    body = body.replace(
        "[replications]",
        "[strategies.consumer.galaxy]\ngroups = [[1.0, 0.4]]\n[strategies.consumer.grid]\n"
        "aggressive_fractions = [0.5]\naggressive_betas = [0.3, 0.9]\n[replications]",
    )
    assert [c.name for c in load_study(write_study(tmp_path, body)).consumers] == ["FT", "g0.5x0.3", "g0.5x0.9"]
    listed = body.replace('consumers = ["FT", "grid:*"]', 'consumers = ["FT", "galaxy", "grid:*"]')
    names = [c.name for c in load_study(write_study(tmp_path / "listed", listed)).consumers]
    assert names == ["FT", "galaxy", "g0.5x0.3", "g0.5x0.9"]


def test_a_pricing_studys_cluster_file_is_sized_by_its_solve_when_read(tmp_path, monkeypatch):
    # hunt 22a-F4: a cluster file whose arrays fit but whose solve did not ran to 1.8 GB under a 400 MB limit
    body = HETERO.format(jobs=40).replace(
        "[workload.hetero]\njobs = 40\nresources = 2\nload = 2.0\n", 'file = "mid.npz"\n'
    )
    path = write_study(tmp_path, body)
    rng = np.random.default_rng(0)
    np.savez(path.parent / "mid.npz", A=rng.uniform(0.1, 1, (2000, 50)), R=np.full(50, 10.0))
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(2_000_000))
    with pytest.raises(
        InputError, match=r"s\.toml: \[workload\] field 'file' \(mid\.npz\): a cluster of 2,000 jobs x 50"
    ):
        load_study(path)
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(2_000_000_000))
    assert load_study(path).workload["file"].endswith("mid.npz")


def test_alpharank_of_a_bimatrix_game_is_sized_before_its_conversion(monkeypatch):
    # hunt 22a-F5 (a re-test of 19b-F2): a 300 x 300 game's conversion reached 3.6 GB under a 1.5 GB limit before
    # the chain's refusal; the conversion's own estimate was a quarter of what it took
    from gamemarket.games import rsgame
    from gamemarket.games.alpharank import alpharank

    converted = []
    real = rsgame.as_role_symmetric
    monkeypatch.setattr(rsgame, "as_role_symmetric", lambda g: converted.append(g) or real(g))
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(1_500_000_000))
    game = Game(
        np.zeros((300, 300)), np.zeros((300, 300)), [f"r{i}" for i in range(300)], [f"c{j}" for j in range(300)]
    )
    with pytest.raises(InputError, match=r"alpha-rank of 90,000 profiles \(6 90,000 x 90,000 matrices\) needs"):
        alpharank(game)
    assert not converted
    with pytest.raises(
        InputError, match=r"a 300 x 300 game as a role-symmetric game \(90,000 profiles\) needs about 3"
    ):
        rsgame.as_role_symmetric(game)


@pytest.mark.parametrize(
    "body,said",
    [
        (SMALL_DESIGN.replace("joint = false", "joint = false\nmax_seeds = 4"), "field(s) ['max_seeds'] would have no"),
        (POPULATION_STUDY.replace("max_seeds = 4", "seed_step = 4"), "field 'seed_step' would have no effect"),
    ],
)
def test_population_fields_a_design_or_a_fixed_seed_count_ignores_are_refused(tmp_path, body, said):
    # hunt 22a-F6: max_seeds, seed_step and joint = true were accepted in a design study, which ignores them, and
    # seed_step without max_seeds in a population study
    with pytest.raises(InputError, match=re.escape(said)):
        load_study(write_study(tmp_path, body))


@pytest.mark.parametrize(
    "A,B",
    [
        ([[1.0, -1.0, 1e12], [-1.0, 1.0, 0.0]], [[-1.0, 1.0, -0.5], [1.0, -1.0, -0.5]]),  # hunt 21b-F1's second game
        ([[1.0, -1.0, 1e12], [-1.0, 1.0, 1e12]], [[-1.0, 1.0, -1.0], [1.0, -1.0, -1.0]]),  # hunt 22a-F3
    ],
)
def test_a_strategy_dominated_by_a_mixture_does_not_loosen_the_tolerance(A, B):
    # hunt 22a-F3, 22b-F3: a column dominated only by a mixture, paying the other 1e12, listed four profiles of regret
    # 1 and 2; nashpy finds the one equilibrium
    import nashpy

    A, B = np.array(A), np.array(B)
    sol = solve(Game(A, B, ["r0", "r1"], ["c0", "c1", "c2"]))
    theirs = [(x.round(9).tolist(), y.round(9).tolist()) for x, y in nashpy.Game(A, B).support_enumeration()]
    assert [(e.x.round(9).tolist(), e.y.round(9).tolist()) for e in sol.equilibria] == theirs


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), outlier=st.sampled_from([1e6, 1e9, 1e12]))
def test_every_listed_equilibrium_has_no_regret_on_the_payoffs_that_decide_the_game(seed, outlier):
    # a random 3 x 3 game with a fourth column a mixture of the first two dominates for the consumer, paying the
    # provider a huge outlier: every profile listed is an equilibrium by the regrets of the payoffs that matter
    rng = np.random.default_rng(seed)
    A3, B3 = rng.integers(-5, 6, (3, 3)).astype(float), rng.integers(-5, 6, (3, 3)).astype(float)
    A = np.c_[A3, np.full(3, outlier)]
    B = np.c_[B3, (B3[:, 0] + B3[:, 1]) / 2 - 1.0]  # below the 50/50 mixture of c0 and c1 everywhere
    sol = solve(Game(A, B, ["r0", "r1", "r2"], ["c0", "c1", "c2", "c3"]))
    assert sol.equilibria
    for e in sol.equilibria:
        assert e.y[3] == 0
        ra = (A3 @ e.y[:3]).max() - e.x @ A3 @ e.y[:3]
        rb = (e.x @ B).max() - e.x @ B @ e.y
        assert ra <= 1e-6 * 10 and rb <= 1e-6 * 10, (ra, rb)


@pytest.mark.parametrize("n,m,ok", [(1000, 80, True), (1000, 81, False), (1, 63, True), (1, 10_000, False)])
def test_the_synthetic_price_family_refuses_an_m_its_capacities_cannot_hold(n, m, ok):
    # hunt 22b-F1: m = 100 of n = 1000 was told to "rescale the problem's units" (capacities below 1e-12), and m in
    # the thousands overflowed 1.5^m with numpy's warning
    from gamemarket.pricing import synthetic

    if ok:
        assert synthetic(n, m, "log", seed=0).R.min() >= 1e-12
    else:
        with pytest.raises(InputError, match=rf"synthetic: m \(resources\) is {m:,}: .* expected m <= "):
            synthetic(n, m, "log", seed=0)


def test_game_solve_json_says_a_partial_searchs_degenerate_game_as_the_text_does(tmp_path, capsys):
    # hunt 22b-F7: --format json with --methods ipa (or lemke_howson_first) said "its extreme equilibria are listed"
    rng = np.random.default_rng(7)
    path = tmp_path / "r8.npz"
    np.savez(path, A=rng.integers(-5, 6, (8, 7)).astype(float), B=rng.integers(-5, 6, (8, 7)).astype(float))
    main(["game", "solve", str(path), "--methods", "lemke_howson_first", "--format", "json"])
    err = capsys.readouterr().err
    assert "degenerate game: yes (not every extreme equilibrium enumerated: see the note)" in err
    assert "are listed" not in err


def test_alpharank_looks_at_the_clock_before_each_large_matrix(monkeypatch):
    # hunt 22b-F4: an EGTA game of 12,376 profiles built its P x P matrices (seconds each) past a 2 s limit
    from gamemarket.games import alpharank as ar
    from gamemarket.games.budget import Stopped

    built = []
    monkeypatch.setattr(ar, "_matrix", lambda *args: built.append(args) or None)
    real = ar._log_rates
    monkeypatch.setattr(ar, "_log_rates", lambda *args: real(*args[:5]))  # the moves listed without the clock
    game = Game(np.eye(6), np.eye(6), [f"r{i}" for i in range(6)], [f"c{j}" for j in range(6)])
    with pytest.raises(Stopped, match="alpha-rank stopped"):
        ar.alpharank(game, time_limit=1e-9)
    assert not built


@pytest.mark.parametrize(
    "field,said",
    [
        ("population.hb-first.truthful", "the study names no population_study"),
        ("game.nosuch.equilibria", "the study has no game 'nosuch'"),
        ("gains.hb-first.UNI50.all", "gains.<mechanism>.<consumer strategy>: the study plays"),
        ("paper.jobs", "the study has no [paper] table"),
        ("growth.hb-first.SRG.smallest", "the study has no [gains] table"),
        ("other.claim.c1.ci", "no companion study is named 'other'"),
    ],
)
def test_a_discussion_field_the_study_cannot_make_is_refused_before_any_run(tmp_path, capsys, field, said):
    # hunt 22a-F2: every kind of field but claim keys was refused only after every simulation
    body = TINY.format(count=2).replace('name = "tiny"', f'name = "tiny"\nnotes = "Quote: {{{field}}}."')
    path = write_study(tmp_path, body)
    assert main(["study", "run", str(path), "--no-progress"]) == 2
    assert f"'notes' field {{{field}}}: {said}" in capsys.readouterr().err
    assert not (tmp_path / "studies" / "results").exists()  # before any run


def test_an_inline_shading_rule_that_redefines_a_catalogue_rule_is_warned_of(tmp_path):
    # hunt 22a-W1: [game.shading."shade-0.5"] beta = 0.1 was silent; reports would call a beta-0.1 rule shade-0.5
    body = POPULATION_STUDY.replace("[replications]", '[game.shading."shade-0.5"]\nbeta = 0.1\n[replications]')
    with pytest.warns(UserWarning, match=r"\[game\.shading\.shade-0\.5\] redefines the catalogue's shading rule"):
        load_study(write_population_study(tmp_path, body))


def test_a_misdefined_truthful_is_named_before_the_missing_reference(tmp_path):
    # hunt 22a-W2: a rule named truthful that leaves got "include a truthful rule", as if it were not there
    body = POPULATION_STUDY.replace("max_seeds = 4", "max_seeds = 4\noutside_price = 20.0")
    body = body.replace("[replications]", "[game.shading.truthful]\nbeta = 0\nleave = 1\n[replications]")
    with pytest.raises(InputError, match="the rule named 'truthful' is"):
        load_study(write_population_study(tmp_path, body))


def test_study_jobs_of_a_design_study_names_its_kind(tmp_path, capsys):
    # hunt 22a-W5: study jobs on a design study called it a population study
    path = write_study(tmp_path, SMALL_DESIGN)
    argv = ["study", "jobs", str(path), "--provider", "hb-first", "--consumer", "FT", "--seed", "1"]
    assert main([*argv, "--out", str(tmp_path / "jobs.csv")]) == 2
    assert "a design study's runs are mixtures" in capsys.readouterr().err


def test_an_explicit_reduction_of_zero_is_taken_for_a_generated_workload(capsys):
    # hunt 22b-W5: --reduction 0 (what --help calls the default) was refused for a model's draw
    assert main(["simulate", "--synthetic-jobs", "100", "--nodes", "4", "--reduction", "0"]) == 2  # (nodes and a
    # reduction both given: refused as before, by the rule of one node count)
    capsys.readouterr()
    assert main(["workload", "info", "synthetic", "--reduction", "0"]) == 0


def test_an_unfinished_egta_search_says_each_note_once(tmp_path, capsys):
    # hunt 22b-W2: an EGTA search stopped at its limit printed each note twice (as a note, then again on stderr)
    from gamemarket.games.egta import write_egta
    from gamemarket.games.rsgame import RoleSymmetricGame

    game = RoleSymmetricGame.random([12], [6], np.random.default_rng(0))
    path = tmp_path / "g.json"
    write_egta(game, path)
    assert main(["game", "solve", str(path), "--time-limit", "0.01"]) == 3
    out, err = capsys.readouterr()
    notes = [line.strip().removeprefix("note: ") for line in out.splitlines() if line.strip().startswith("note:")]
    assert notes and err.endswith("the search for equilibria did not finish (see the note); exit 3\n")
    for n in notes:
        assert (out + err).count(n.removeprefix("incomplete: ")) == 1, n


def test_the_command_process_prints_no_destructors_traceback(tmp_path):
    # fuzz run AC: SIGTERM stopped a first numba compilation, and llvmlite's ObjectRef.__del__ printed "Exception
    # ignored in ..." and its traceback after the command's one line; any object failing as it is freed did alike
    plugin = tmp_path / "boom.py"
    plugin.write_text('class Boom:\n    def __del__(self):\n        raise RuntimeError("boom")\n\n\nBoom()\n')
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "plugin", "check", str(plugin)], capture_output=True, text=True
    )
    assert r.returncode == 2 and "registers nothing" in r.stderr
    assert "Exception ignored" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_an_unused_inline_shading_rule_is_refused(tmp_path):
    # hunt 22a-W10: [game.shading.unused] not in [game] strategies was accepted without a word
    body = POPULATION_STUDY.replace("[replications]", "[game.shading.unused]\nbeta = 0.2\n[replications]")
    with pytest.raises(InputError, match=r"\[game\.shading\.unused\] would have no effect: \[game\] strategies"):
        load_study(write_population_study(tmp_path, body))


def test_a_probe_of_a_leaving_rule_without_an_outside_price_names_the_option_and_the_study(tmp_path, capsys):
    # hunt 22a-W6: "a consumer rule sends jobs to the outside option, but no outside price is set" named neither
    path = write_population_study(tmp_path)
    argv = ["population", "probe", str(path), "--mechanism", "hb-first", "--base", "truthful"]
    assert main([*argv, "--deviation", "per-class-leave[0,0,0,0.9,0.9,0.9]", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "--deviation: rule 'per-class-leave[0,0,0,0.9,0.9,0.9]' sends jobs to the outside option, but study" in err
    assert "[game] outside_price in" in err
