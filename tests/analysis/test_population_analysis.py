"""The population game's analysis: regret bootstrap, the joint provider-consumer game, the provider's dominant
mechanism, and the analysis cache (keyed by its inputs, data only, read back exactly, never a pickle)."""

import dataclasses
import json
import math
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest

import gamemarket.analysis.population as pop
import gamemarket.analysis.population_cache as cache
import gamemarket.search.population as driver
from gamemarket import bids
from gamemarket.analysis.population import (
    PopulationGames,
    analysis_from_json,
    analysis_to_json,
    dominant_mechanism,
    equilibria_json,
)
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.io.answers import Interval
from gamemarket.market.base import MARKETS
from gamemarket.search.population import run_population_study
from gamemarket.studies import load_study, population
from gamemarket.studies.population import mix_key
from gamemarket.testing.market_checks import JOB_COLUMNS
from study_helpers import write_population_study


@pytest.fixture
def study(tmp_path):
    return write_population_study(tmp_path)


def assert_same(a, b, where="analysis"):
    """``a`` and ``b`` are the same value: the same types all the way down, dicts in the same order, floats bit
    for bit (NaN's sign and payload too), games' arrays of the same dtype and bytes."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, RoleSymmetricGame):
        assert (a.roles, a.players, a.strategies) == (b.roles, b.players, b.strategies), where
        for name in ("profiles", "payoffs"):
            x, y = getattr(a, name), getattr(b, name)
            assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes(), f"{where}.{name}"
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.name == "spec":
                assert a.spec is b.spec, f"{where}.spec"
            else:
                assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b), f"{where}: {a!r} != {b!r}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _round_trip(an, key="k" * 32):
    return analysis_from_json(json.loads(json.dumps(analysis_to_json(an, key), allow_nan=False)), an.spec, key=key)


@pytest.mark.slow
def test_population_analysis_is_cached_by_its_inputs(study, monkeypatch):
    """A second analysis of unchanged stored runs reads the cached one (no equilibrium is solved);
    a new stored run, or a damaged cache file, makes it computed again."""
    spec = load_study(study)
    first = run_population_study(spec, n_jobs=1)
    cached = sorted((spec.results_dir / "analysis").glob("population-*.json"))
    assert [p.name for p in cached] == [f"population-{pop.analysis_key(spec)}.json"]
    solves = []
    real = driver.equilibria
    monkeypatch.setattr(driver, "equilibria", lambda game: solves.append(1) or real(game))
    again = run_population_study(spec, run=False)
    assert not solves and again.runs.run_now == 0
    assert equilibria_json(again) == equilibria_json(first) and again.spec is spec
    # another stored run: another key, computed again (and the old cache file dropped)
    runs = spec.results_dir / "population"
    f = sorted(runs.glob("*.json"))[0]
    (runs / ("0" * 64 + ".json")).write_text(f.read_text())
    old_key = pop.analysis_key(spec)
    run_population_study(spec, run=False)
    assert solves
    assert [p.name for p in (spec.results_dir / "analysis").glob("population-*.json")] == [f"population-{old_key}.json"]
    # a damaged cache file: set aside with a warning, computed again, same answer
    solves.clear()
    path = spec.results_dir / "analysis" / f"population-{old_key}.json"
    path.write_bytes(b"not JSON")
    with pytest.warns(UserWarning, match="cached analysis does not read"):
        third = run_population_study(spec, run=False)
    assert solves and equilibria_json(third) == equilibria_json(first)
    assert path.with_name(path.name + ".corrupt").exists()


def test_joint_game_is_built_from_the_mechanisms_games_and_their_revenue(study):
    """The provider-consumer game (any provider mixture): a consumer's payoff is its mechanism's reduced-game
    payoff, the provider's its mean revenue per agent in the runs at c / n; every equilibrium has a small
    regret in it, and its verification equals a plain recomputation from the stored runs."""
    spec = load_study(study)
    an = run_population_study(spec, n_jobs=1)
    st_ = PopulationGames(spec, run=False)
    joint = an.provider.joint
    g = joint.game
    provs = list(spec.providers)
    M, n = len(provs), spec.population.reduced_players
    assert g.roles == ("provider", "consumers") and g.players == (1, n)
    games = {a.mechanism: a for a in an.answers}
    base = list(spec.seeds)
    for prof, pay in zip(g.profiles, g.payoffs):
        m = int(np.argmax(prof[:M]))
        c = prof[M:]
        a = games[provs[m].name]
        want = a.game.profile_payoffs(c)
        np.testing.assert_array_equal(pay[M:][c > 0], want[c > 0])
        recs = st_.runs.records(provs[m], base, mix_key(c / n))
        assert pay[m] == np.mean([r["revenue"] / r["agents"] for r in recs])
    assert joint.equilibria, joint.notes
    for e in joint.equilibria:
        x = np.array(e.mixture_vector)
        assert g.regret(x) <= 1e-8 * g.payoff_scale()
        q, xc = x[:M], x[M:]
        if (q == 1).any():  # a pure provider strategy: the consumers play an equilibrium of its game
            a = games[provs[int(np.argmax(q))].name]
            assert a.game.regret(xc) <= 1e-8 * g.payoff_scale()
        # the verification, recomputed plainly from the paired records: the consumers' regret is the largest of the
        # rules' gains against the mechanisms' mixture (at least 0), the provider's its best revenue's excess
        recs = [st_.runs.records(p, base, mix_key(xc), paired=True) for p in provs]
        Gq = sum(w * np.array([r["gain"] for r in rs]) for w, rs in zip(q, recs) if w > 0)
        R = np.array([[r["revenue"] / r["agents"] for r in rs] for rs in recs]).T
        assert e.consumer_regret.mean == pytest.approx(max(Gq.mean(axis=0).max(), 0.0), rel=1e-12, abs=1e-12)
        best = float(R.mean(axis=0).max() - R.mean(axis=0) @ q)  # the best mechanism's excess over the mixture
        assert e.provider_regret.mean == pytest.approx(max(best, 0.0), rel=1e-9, abs=1e-9)
        assert e.expected_revenue_per_agent == pytest.approx(float(R.mean(axis=0) @ q), rel=1e-12)
        assert e.verified in ("yes", "no", "undecided")
    recs = [r for r in equilibria_json(an) if r.get("game") == "provider-consumers"]
    assert len(recs) == len(joint.equilibria) and all(set(r["mixture"]) == {"provider", "consumers"} for r in recs)


def test_the_code_part_of_the_analysis_key_is_read_once_per_process(study, monkeypatch):
    """A process whose files are edited while it runs files its answer under the code it started with:
    the code is hashed at the first key, not again (an edited file would otherwise give the old answer the
    new code's key, and a later process would read it as the new code's)."""
    import pathlib

    spec = load_study(study)
    key = pop.analysis_key(spec)
    real = pathlib.Path.read_bytes

    def edited(self):
        return real(self) + b"# edited" if self.suffix == ".py" else real(self)

    monkeypatch.setattr(pathlib.Path, "read_bytes", edited)
    assert pop.analysis_key(spec) == key
    cache._code_hash.cache_clear()  # a new process reads the edited code: another key
    try:
        assert pop.analysis_key(spec) != key
    finally:
        cache._code_hash.cache_clear()


def test_dominant_mechanism_of_the_provider():
    def game(rev):  # rev(m, c) -> the provider's payoff; the consumers' payoffs are irrelevant here
        return RoleSymmetricGame.from_function(
            ["provider", "consumers"],
            [1, 2],
            [["a", "b", "c"], ["t", "s"]],
            lambda prof: np.concatenate([[rev(m, tuple(prof[3:])) for m in range(3)], [0.0, 0.0]]),
        )

    assert dominant_mechanism(game(lambda m, c: [1.0, 3.0, 2.0][m] + c[0])) == "b"
    assert dominant_mechanism(game(lambda m, c: [1.0, 3.0, 3.0][m])) == "b"  # ties: the first
    assert dominant_mechanism(game(lambda m, c: (m == 0) * c[0] + (m == 1) * c[1])) is None


def test_a_cached_analysis_reads_back_exactly(study, monkeypatch):
    """The cache file rebuilds the analysis exactly: every field, floats bit for bit, the games' arrays, the
    order of every dict; NaN (either sign, any payload), infinities, signed zeros, tuples and keys that look
    like the file's tags too."""
    spec = load_study(study)
    first = run_population_study(spec, n_jobs=1)
    assert_same(_round_trip(first), first)
    solves = []
    real = driver.equilibria
    monkeypatch.setattr(driver, "equilibria", lambda game: solves.append(1) or real(game))
    again = run_population_study(spec, run=False)  # from the cache file
    assert not solves
    assert again.runs.run_now == 0 and again.runs.wall_seconds < first.runs.wall_seconds
    again = dataclasses.replace(
        again, runs=dataclasses.replace(again.runs, run_now=first.runs.run_now, wall_seconds=first.runs.wall_seconds)
    )
    assert_same(again, first)
    # values a study may hold that JSON cannot, or could confuse with the file's own tags
    neg_nan = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000001))[0]
    gains = {
        "nan": Interval(float("nan"), neg_nan, 1.0),
        "inf": Interval(math.inf, -math.inf, -0.0),
        "$float": Interval(1, 2.5, None),
        "$$game": Interval(True, "$tuple", 0.0),
    }
    a0 = dataclasses.replace(first.answers[0], truthful_gains=gains)
    odd = dataclasses.replace(
        first, answers=(a0, *first.answers[1:]), meta=dataclasses.replace(first.meta, users=np.float64(0.1))
    )
    back = _round_trip(odd)
    # a numpy float reads back as the same Python float
    assert_same(back, dataclasses.replace(odd, meta=dataclasses.replace(odd.meta, users=0.1)))
    assert struct.pack("<d", back.answers[0].truthful_gains["nan"][1]) == struct.pack("<d", neg_nan)


@pytest.mark.slow
def test_the_analysis_cache_is_never_a_pickle(study, tmp_path, monkeypatch):
    """A crafted pickle in the analysis folder, under the current key's old name or the new one, is never
    loaded (the code in it does not run): the analysis is computed, and the ``.pkl`` is left alone."""
    spec = load_study(study)
    first = run_population_study(spec, n_jobs=1)
    key = pop.analysis_key(spec)
    folder = spec.results_dir / "analysis"
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    crafted = pickle.dumps(Payload())
    pickle.loads(crafted).close()  # the payload works: unpickling it creates the file
    assert marker.exists()
    marker.unlink()
    (folder / f"population-{key}.json").unlink()
    (folder / f"population-{key}.pkl").write_bytes(crafted)  # where earlier versions kept it
    solves = []
    real = driver.equilibria
    monkeypatch.setattr(driver, "equilibria", lambda game: solves.append(1) or real(game))
    an = run_population_study(spec, run=False)
    assert solves and not marker.exists()
    assert equilibria_json(an) == equilibria_json(first)
    assert (folder / f"population-{key}.pkl").read_bytes() == crafted  # not ours to delete
    # a pickle under the cache file's own name: does not parse, set aside, computed again
    solves.clear()
    (folder / f"population-{key}.json").write_bytes(crafted)
    with pytest.warns(UserWarning, match="cached analysis does not read"):
        an = run_population_study(spec, run=False)
    assert solves and not marker.exists() and equilibria_json(an) == equilibria_json(first)
    assert (folder / f"population-{key}.json.corrupt").read_bytes() == crafted


def _another_key(d):
    d["key"] = "0" * 32


def _bad_float(d):
    d["answers"][0]["truthful_gains"] = {"x": {"$float": "nan:zz"}}


def _no_answers(d):
    d["answers"] = 5


def _other_mechanisms(d):
    d["answers"] = d["answers"][::-1]


def _short_game(d):
    d["answers"][0]["game"]["$game"]["profiles"].pop()


def _float_counts(d):
    g = d["answers"][0]["game"]["$game"]
    g["profiles"] = [[float(c) for c in row] for row in g["profiles"]]


def _missing_field(d):
    del d["answers"][0]["seeds"]


def _other_version(d):
    d["version"] = 0


@pytest.mark.parametrize(
    "damage",
    [
        _another_key,
        _bad_float,
        _no_answers,
        _other_mechanisms,
        _short_game,
        _float_counts,
        _missing_field,
        _other_version,
    ],
)
@pytest.mark.slow
def test_a_malformed_cache_file_is_set_aside_and_the_analysis_computed_again(study, monkeypatch, damage):
    spec = load_study(study)
    first = run_population_study(spec, n_jobs=1)
    path = spec.results_dir / "analysis" / f"population-{pop.analysis_key(spec)}.json"
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    solves = []
    real = driver.equilibria
    monkeypatch.setattr(driver, "equilibria", lambda game: solves.append(1) or real(game))
    with pytest.warns(UserWarning, match="cached analysis does not read"):
        again = run_population_study(spec, run=False)
    assert solves and equilibria_json(again) == equilibria_json(first)
    assert path.with_name(path.name + ".corrupt").exists()
    assert json.loads(path.read_text())["key"] == pop.analysis_key(spec)  # the recomputed analysis, cached again


def test_the_analysis_code_is_part_of_the_key():
    """The files that decide a population analysis are hashed into its key: the analysis itself, the runs'
    records, the games package."""
    code = {"analysis/population.py", "analysis/population_cache.py", "io/answers.py", "studies/population.py"}
    assert code | {"games", "confidence.py"} <= set(cache._ANALYSIS_CODE)
    pkg = Path(pop.__file__).resolve().parents[1]
    assert all((pkg / rel).exists() for rel in cache._ANALYSIS_CODE)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(MARKETS))
def test_a_markets_runner_gives_the_numbers_of_its_runs(kind):
    """A population chunk's runs go through the market's ``runner`` (what no reported bid changes, computed
    once): each run equals ``run``'s, column for column and field for field."""
    market = MARKETS.get(kind)
    prep = market.prepare(market.check_workload(dict(market.example_workload), "test", Path.cwd()))
    d = bids.draw(prep.jobs, 5)
    group = np.zeros(prep.jobs, np.int64)
    for entry in market.example_providers()[:4]:
        params = {"kind": kind, **market.provider_params(dict(entry), "test")}
        one = market.runner(prep.arrays, prep.nodes, params, d.private_bid)
        for beta in (0.0, 0.5, 0.9):
            rw = d.private_bid * (1 - beta * d.U)
            alone = market.run(prep.arrays, prep.nodes, params, d.private_bid, rw, group)
            shared = one(rw, group)
            assert json.dumps(alone.summary, sort_keys=True) == json.dumps(shared.summary, sort_keys=True)
            for c in (*JOB_COLUMNS, "start", "end", "flow", "valuation"):
                if c in alone.jobs:
                    np.testing.assert_array_equal(np.asarray(alone.jobs[c]), np.asarray(shared.jobs[c]), err_msg=c)


def test_slice_assign_as_assign_does():
    """A chunk's compiled assignment (``population.slice_assign``): every slicing gives ``assign``'s strategies,
    ties and draws on an edge included."""
    rng = np.random.default_rng(0)
    checked = 0
    for t in range(600):
        n, k = int(rng.integers(1, 200)), int(rng.integers(1, 7))
        d = rng.random(n)
        x = rng.random(k) * (rng.random(k) > 0.3)
        x = x / x.sum() if x.sum() > 0 else np.eye(k)[0]
        lo, hi = bids.population_slices(x, 0.05 if (x == 0).sum() * 0.05 < 1 else 0.0)
        if t % 3 == 0:  # ties, and draws exactly on the edges
            d, lo, hi = np.round(d, 1), np.round(lo, 1), np.round(hi, 1)
        a, b = bids.assign(d, lo, hi), population.slice_assign(d, lo, hi)
        assert a.dtype == b.dtype == np.int64 and np.array_equal(a, b)
        checked += 1
    assert checked == 600


@pytest.mark.slow
def test_an_edited_cached_analysis_is_set_aside_and_computed_again(study):
    """Hunt 16e-41: a cached analysis edited by hand (its answer changed) was reported as it was: the file now
    records the SHA-256 of its contents."""
    spec = load_study(study)
    first = run_population_study(spec, n_jobs=1)
    path = spec.results_dir / "analysis" / f"population-{pop.analysis_key(spec)}.json"
    data = json.loads(path.read_text())
    data["answers"] = data["answers"][::-1]  # valid, and not what was computed
    path.write_text(json.dumps(data))
    with pytest.warns(UserWarning, match="cached analysis does not read.*not those gamemarket wrote"):
        again = run_population_study(spec, run=False)
    assert equilibria_json(again) == equilibria_json(first)
