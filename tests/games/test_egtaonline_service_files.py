"""Games the EGTA-online web service (``egtaonline/egtaonline3``) wrote: its summary export of a game, committed in
that repository as the input of its analysis scripts (``tests/games/data/egtaonline-service/``, see its
``PROVENANCE.md``). They are read as EGTA JSON, every payoff as the file states it; a game with no profiles
(``"profiles": null``) and an incomplete game are refused, named."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games.egta import read_egta

DATA = Path(__file__).parent / "data" / "egtaonline-service"

HFT = "21-analysis-20140208114933EDT.json"
HFT_LATER = "23-analysis-20140808235209EDT.json"
BERTRAND = "14-analysis-20140208113449EDT.json"
BERTRAND_INCOMPLETE = "15-analysis-20140208115500EDT.json"
NO_PROFILES = "18-analysis-20140208113747EDT.json"
COMPLETE = [HFT, HFT_LATER, BERTRAND]


def _read(name: str):
    with pytest.warns(UserWarning, match="egta-online's layout read; not kept: configuration, id, name") as seen:
        g = read_egta(DATA / name)
    data = json.loads((DATA / name).read_text())
    message = str(seen[0].message)
    assert "observations_count" in message  # every profile of the service's export counts its observations
    # payoff_sd is said to be dropped only where the file gives one (game 14's are all null)
    sds = [sg["payoff_sd"] for p in data["profiles"] for sg in p["symmetry_groups"]]
    assert ("payoff_sd" in message) == any(sd is not None for sd in sds), name
    return g


def _payoff(g, counts: dict, strategy: str) -> float:
    """The payoff of ``strategy`` in the profile of ``counts`` (strategy -> count, one role)."""
    names = list(g.strategy_names)
    row = np.zeros(len(names), dtype=np.int64)
    for s, c in counts.items():
        row[names.index(s)] = c
    return float(g.payoffs[g.profile_index(row)][names.index(strategy)])


def test_every_file_is_the_services_summary_export_kept_byte_for_byte():
    provenance = (DATA / "PROVENANCE.md").read_text()
    for path in sorted(DATA.glob("*.json")):
        data = json.loads(path.read_text())
        assert set(data) == {"id", "name", "simulator_fullname", "configuration", "roles", "profiles"}, path.name
        assert path.read_bytes().count(b"\n") == 1, "the service writes the game as one line"
        assert f"`{path.name}`" in provenance
        row = next(line for line in provenance.splitlines() if line.startswith(f"| `{path.name}`"))
        assert re.search(r"`[0-9a-f]{40}` \| `[0-9a-f]{40}`", row), row
        blob = re.findall(r"`([0-9a-f]{40})`", row)[1]
        git = subprocess.run(["git", "hash-object", str(path)], capture_output=True, text=True)
        if git.returncode == 0:
            assert git.stdout.strip() == blob, path.name


def test_the_hft_game_is_read_with_the_payoffs_the_service_wrote():
    g = _read(HFT)
    lo, hi = "ZIR:bidRange_2000_maxqty_10", "ZIR:bidRange_5000_maxqty_10"
    assert g.roles == ("BACKGROUND",) and g.players == (5,)
    assert g.strategies == ((lo, hi),)
    assert len(g.profiles) == 6
    # profile 65160: 4 x lo (-4482.5), 1 x hi (-11717.8); 65161: 5 x hi (4116.28); 65159: 5 x lo (271.14)
    assert _payoff(g, {lo: 4, hi: 1}, lo) == -4482.5
    assert _payoff(g, {lo: 4, hi: 1}, hi) == -11717.8
    assert _payoff(g, {hi: 5}, hi) == 4116.28
    assert _payoff(g, {lo: 5}, lo) == 271.14
    assert _payoff(g, {lo: 3, hi: 2}, lo) == -9349.43333333333


def test_every_symmetry_group_of_a_complete_file_is_a_payoff_of_the_game():
    for name in COMPLETE:
        g = _read(name)
        data = json.loads((DATA / name).read_text())
        assert [r["name"] for r in data["roles"]] == list(g.roles)
        assert [r["count"] for r in data["roles"]] == list(g.players)
        assert [sorted(r["strategies"]) for r in data["roles"]] == [list(ss) for ss in g.strategies]
        assert len(g.profiles) == len(data["profiles"])
        for p in data["profiles"]:
            counts = {sg["strategy"]: sg["count"] for sg in p["symmetry_groups"]}
            for sg in p["symmetry_groups"]:
                assert _payoff(g, counts, sg["strategy"]) == float(sg["payoff"]), (name, p["id"], sg["id"])


def test_the_later_export_with_more_digits_gives_the_same_game():
    a, b = _read(HFT), _read(HFT_LATER)
    assert (a.roles, a.players, a.strategies) == (b.roles, b.players, b.strategies)
    order_a = np.lexsort(a.profiles.T)
    order_b = np.lexsort(b.profiles.T)
    assert np.array_equal(a.profiles[order_a], b.profiles[order_b])
    # game 21's payoffs are printed to 15 significant digits, game 23's to 17 or more: equal to that precision
    assert np.allclose(a.payoffs[order_a], b.payoffs[order_b], rtol=1e-14, atol=0)
    assert not np.array_equal(a.payoffs[order_a], b.payoffs[order_b])


def test_the_bertrand_game_with_null_payoff_sd_is_read_complete():
    data = json.loads((DATA / BERTRAND).read_text())
    assert all(sg["payoff_sd"] is None for p in data["profiles"] for sg in p["symmetry_groups"])
    g = _read(BERTRAND)
    assert g.roles == ("All",) and g.players == (2,)
    assert len(g.strategies[0]) == 19 and "negative_price10_location30" in g.strategies[0]
    assert len(g.profiles) == 190  # 19 strategies, 2 players: 19 * 20 / 2
    a, b = "negative_price13.0_location58.0_14", "positive_price16.0_location48.0_7"
    assert _payoff(g, {a: 1, b: 1}, a) == 80008 and _payoff(g, {a: 1, b: 1}, b) == 0
    c, d = "negative_price15.0_location42.0_6", "positive_price14.0_location94.0_1"
    assert _payoff(g, {c: 1, d: 1}, c) == 65250 and _payoff(g, {c: 1, d: 1}, d) == 31284
    assert _payoff(g, {c: 2}, c) == 50005 and _payoff(g, {a: 2}, a) == 40004


def test_a_game_without_profiles_is_refused_naming_the_field():
    data = json.loads((DATA / NO_PROFILES).read_text())
    assert data["profiles"] is None and len(data["roles"]) == 4
    with pytest.raises(InputError, match=r"the game has no profiles \('profiles' is null: egta-online writes"):
        read_egta(DATA / NO_PROFILES)


def test_an_incomplete_game_is_refused_naming_a_missing_profile():
    data = json.loads((DATA / BERTRAND_INCOMPLETE).read_text())
    assert len(data["profiles"]) == 153 and len(data["roles"][0]["strategies"]) == 20
    with pytest.warns(UserWarning, match="egta-online's layout read"):
        with pytest.raises(InputError, match=r"\} is missing; a complete game has 210 profiles, got 153"):
            read_egta(DATA / BERTRAND_INCOMPLETE)


def _solve(name: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "solve", str(DATA / name), "--format", "json"],
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPLETE)
def test_game_solve_reads_the_services_files(name):
    r = _solve(name)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) and "Traceback" not in r.stderr
    assert "egta-online's layout read" in r.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "message"), [(NO_PROFILES, "the game has no profiles"), (BERTRAND_INCOMPLETE, "is missing")]
)
def test_game_solve_refuses_a_game_without_profiles_or_incomplete_naming_why(name, message):
    r = _solve(name)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def _as_export(name: str, kind: str, tmp_path: Path) -> Path:
    """The summary file ``name`` rewritten in the service's *observations* or *full* export (the layout of
    ``GamePresenter#observations`` and ``#full``: no such file the service wrote was found; see PROVENANCE.md):
    two observations per profile whose payoffs are the summary's plus and minus 1 (their mean, the summary's)."""
    data = json.loads((DATA / name).read_text())
    for p in data["profiles"]:
        obs = []
        for sign in (1.0, -1.0):
            if kind == "observations":
                obs.append(
                    {"symmetry_groups": [{"id": g["id"], "payoff": g["payoff"] + sign} for g in p["symmetry_groups"]]}
                )
            else:  # full: one entry per player of each group
                players = [
                    {"sid": g["id"], "p": g["payoff"] + sign} for g in p["symmetry_groups"] for _ in range(g["count"])
                ]
                obs.append({"players": players, "features": {}, "extended_features": {}})
        for g in p["symmetry_groups"]:
            del g["payoff"], g["payoff_sd"]
        p["observations"] = obs
    out = tmp_path / f"{kind}.json"
    out.write_text(json.dumps(data))
    return out


@pytest.mark.parametrize("kind", ["observations", "full"])
def test_the_services_observations_and_full_exports_average_to_the_summary(kind, tmp_path):
    """The payoff of a group is the mean of its observed payoffs, as gameanalysis reads these exports."""
    with pytest.warns(UserWarning, match="not kept: .*observations"):
        g = read_egta(_as_export(HFT, kind, tmp_path))
    summary = _read(HFT)
    order_a, order_b = np.lexsort(g.profiles.T), np.lexsort(summary.profiles.T)
    assert np.array_equal(g.profiles[order_a], summary.profiles[order_b])
    np.testing.assert_allclose(g.payoffs[order_a], summary.payoffs[order_b], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p.update(observations=[]), r"'observations' is \[\]; expected a non-empty list"),
        (lambda p: p["observations"][0]["symmetry_groups"][0].update(id=-5), "id -5 is no symmetry group"),
        (lambda p: p["observations"][1]["symmetry_groups"][0].update(payoff="x"), "payoff 'x'; expected a number"),
        (lambda p: p["symmetry_groups"][0].pop("id"), "field 'id' missing or not a whole number or a text"),
        (lambda p: p["symmetry_groups"][0].update(id=[1]), "field 'id' missing or not a whole number or a text"),
        (lambda p: p["observations"][0]["symmetry_groups"][0].update(id=[1]), r"id \[1\] is no symmetry group"),
        (lambda p: p["observations"][0].pop("symmetry_groups"), "expected 'symmetry_groups' or 'players', a list"),
        (lambda p: p["symmetry_groups"][1].update(id=p["symmetry_groups"][0]["id"]), "is listed twice"),
    ],
)
def test_a_bad_observations_export_names_the_profile_and_the_field(change, message, tmp_path):
    path = _as_export(HFT, "observations", tmp_path)
    data = json.loads(path.read_text())
    change(data["profiles"][3])  # (a profile of two symmetry groups)
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=f"profile #4.*{message}"):
        read_egta(path)
