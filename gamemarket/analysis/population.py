"""The market as a population game, its answers: the consumers' games, their verified equilibria, the provider's choice.

From a population study's stored runs (``gamemarket.studies.population``: the runs, their keys and
the payoff estimator ``u_s(x)`` of strategy ``s`` at population mixture ``x``) to what the study
answers: does a user gain by shading, given what everyone else does, and which mechanism does the
provider pick?

Game. Per mechanism, the consumers' game is reduced by deviation-preserving reduction to
``reduced_players`` players: the payoff of ``s`` in reduced profile ``c`` is ``u_s`` at the population
mixture ``(c - e_s) / (n - 1)`` (``games.reduction.population_points``). Its equilibria are
candidates; each is verified by a run at the candidate itself: its regret with a bootstrap
confidence interval over seeds (Wiedenbeck, Cassell and Wellman 2014). Seeds are added where a
regret interval straddles the tolerance or a gain over truthful straddles zero, up to a budget.

Provider. Leader and followers: the mechanism with the highest revenue at its worst confirmed
consumer equilibrium. Simultaneously: the provider (a role of one player, its strategies the
mechanisms) and the consumers as one role-symmetric game (``PopulationGames.joint_game``), so the
provider may mix over mechanisms; DPR keeps the provider whole, and its payoff at consumer profile
``c`` is its revenue per agent in the runs at ``c / n``. Each of that game's equilibria is verified
by runs at its consumer mixture under every mechanism, both roles' regrets with bootstrap CIs.

Cache. An analysis is a function of the study, the analysing code and the stored runs
(:func:`analysis_key`), so it is kept under ``<results>/analysis/population-<key>.json`` and read
back instead of solved again. The file is data only (JSON: numbers, strings, lists; the games as
their profile and payoff arrays; a float that JSON cannot hold, NaN or an infinity, as a tagged
string of its bits): reading it never runs code from it. A file that does not parse, records
another key, or does not hold an analysis of this study is set aside and the analysis computed
again. Pickled caches of earlier versions (``population-*.pkl``) are never read.

References
----------
.. [Wiedenbeck2012] B. Wiedenbeck and M. P. Wellman, "Scaling simulation-based game analysis through
   deviation-preserving reduction", AAMAS 2012.
.. [Wiedenbeck2014] B. Wiedenbeck, B.-A. Cassell and M. P. Wellman, "Bootstrap statistics for
   empirical games", AAMAS 2014.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import math
import os
import struct
import warnings
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from gamemarket.confidence import t_interval
from gamemarket.errors import InputError
from gamemarket.games.reduction import population_points
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.io.files import atomic_path, read_json
from gamemarket.studies.population import PopulationRuns, mix_key, payoffs_of
from gamemarket.studies.population_config import PopulationConfig
from gamemarket.studies.runner import load_workload
from gamemarket.studies.store import set_aside


@dataclass
class MechanismAnswer:
    """What the population game says under one mechanism."""

    mechanism: str
    game: RoleSymmetricGame
    seeds: list[int]
    equilibria: list[dict]  #: mixture, regret (reduced game), verified regret [mean, low, high], stability, revenue...
    truthful_gains: dict  #: strategy -> [mean, low, high] at the all-truthful population
    truthful_is_equilibrium: str  #: "yes", "no" or "undecided"
    notes: list[str] = field(default_factory=list)
    search: dict = field(default_factory=dict)  #: what the equilibrium search tried (support enumeration's counts)


@dataclass
class PopulationAnalysis:
    """What a population study answers: the study and its ``[game]`` table, one :class:`MechanismAnswer`
    per mechanism, the provider's choice, the simulations used, and metadata about the workload.
    """

    spec: object
    config: PopulationConfig
    answers: list[MechanismAnswer]
    provider: dict  #: leader-follower choice, simultaneous pure-provider equilibria, the joint game's (``joint``)
    runs: dict  #: simulations used, and a fixed design of the same confidence
    meta: dict


class PopulationGames:
    """A population study's games, estimated from its stored runs, and their verification by runs.

    Parameters
    ----------
    spec : StudySpec
        The study (``spec.population`` its ``[game]`` table).
    n_jobs, progress, run, scheduler_address
        How the runs an analysis asks for are made (:class:`~gamemarket.studies.population.PopulationRuns`):
        worker processes, a progress bar, whether a run that is not stored yet is run (True) or an
        :class:`InputError` (False), and a dask scheduler to run them on (None: local workers).
    workload : PreparedWorkload, optional
        The study's workload as its market prepares it, where the caller has it (default: prepared here).
    """

    def __init__(
        self,
        spec,
        *,
        n_jobs: int = 1,
        progress: bool = False,
        run: bool = True,
        scheduler_address: str | None = None,
        workload=None,
    ):
        self.spec = spec
        self.cfg: PopulationConfig = spec.population
        self.workload = workload if workload is not None else load_workload(spec)
        self.runs = PopulationRuns(
            spec, self.workload, n_jobs=n_jobs, progress=progress, run=run, scheduler_address=scheduler_address
        )
        #: the population mixtures of the reduced games' profiles: every mechanism's first runs
        self.grid = sorted(
            {mix_key(m) for _, m, _ in population_points([self.cfg.reduced_players], [len(self.cfg.strategies)])}
        )

    def with_menu(self, rules) -> "PopulationGames":
        """The same study's games over another menu of shading rules ``rules`` (the ``[game]`` table's settings
        kept, its strategies replaced), sharing this one's workload and way of running. Its runs are stored
        beside this one's, under their own keys (a run's key holds the menu: the probe slices depend on it)."""
        spec = copy.copy(self.spec)
        spec.population = dataclasses.replace(self.cfg, strategies=tuple(rules))
        r = self.runs
        return PopulationGames(
            spec,
            n_jobs=r.n_jobs,
            progress=r.progress,
            run=r.run,
            scheduler_address=r.scheduler_address,
            workload=self.workload,
        )

    def reduced_game(self, provider, seeds) -> RoleSymmetricGame:
        """The consumers' game under ``provider``, reduced by DPR to ``reduced_players`` [Wiedenbeck2012]_:
        each reduced profile's payoffs are the stored runs' means over ``seeds`` at the population
        mixture the profile stands for.
        """
        cfg = self.cfg
        n, S = cfg.reduced_players, len(cfg.strategies)
        cache = {}
        rows, pays = {}, {}
        for prof, mix, s in population_points([n], [S]):
            k = mix_key(mix)
            if k not in cache:
                cache[k] = self._mean_payoffs(provider, seeds, mix)
            key = tuple(prof.tolist())
            rows[key] = prof
            pays.setdefault(key, np.zeros(S))[s] = cache[k][s]
        keys = list(rows)
        return RoleSymmetricGame(
            ["consumers"], [n], [cfg.names], np.array([rows[k] for k in keys]), np.array([pays[k] for k in keys])
        )

    def _mean_payoffs(self, provider, seeds, mix) -> np.ndarray:
        """Each strategy's payoff at mixture ``mix`` under ``provider``, the mean over the runs of ``seeds``
        in which an agent played it; a strategy the mixture plays (or probes) that no agent played in any run
        is an :class:`InputError` naming it, never a NaN payoff in a game."""
        P = np.array([payoffs_of(r) for r in self.runs.records(provider, seeds, mix_key(mix))])
        empty = np.isnan(P).all(axis=0)
        if empty.any():
            recs = self.runs.records(provider, seeds, mix_key(mix))
            names = ", ".join(repr(self.cfg.names[j]) for j in np.flatnonzero(empty))
            at = dict(zip(self.cfg.names, np.round(mix, 6).tolist()))
            agents, probe = recs[0]["agents"], recs[0]["probe"]
            raise InputError(
                f"{self.spec.path or self.spec.name}: [game]: no agent played {names} at the mixture {at} under "
                f"provider {getattr(provider, 'name', provider)!r} in any of its {len(recs)} run(s) (the market has "
                f"{agents} agents; a probe slice of width {probe} holds {agents * probe:.2g} of them on average); "
                "expected a market of at least 1 / probe agents: more jobs, a wider probe or more seeds"
            )
        with np.errstate(invalid="ignore"):
            return np.nanmean(P, axis=0)

    def joint_points(self) -> list[tuple]:
        """The consumer mixtures where the joint game's provider payoffs are measured: ``c / n`` for every
        composition ``c`` of the ``n = reduced_players`` consumers (DPR keeps the provider, a role of one,
        whole and lets it face all ``n`` reduced consumers), run under every mechanism."""
        M = len(self.spec.providers)
        pts = population_points([1, self.cfg.reduced_players], [M, len(self.cfg.strategies)])
        return sorted({mix_key(mix[M:]) for _, mix, s in pts if s < M})

    def joint_game(self, consumers: dict, base_seeds) -> RoleSymmetricGame:
        """The provider and the consumers as one role-symmetric game, reduced by DPR [Wiedenbeck2012]_: a
        provider role of one player whose strategies are the mechanisms, and the consumers' role of
        ``reduced_players``.

        A consumer's payoff at (mechanism m, consumer profile c) is the one of the consumers' reduced game
        under m (``consumers[m]``: :meth:`reduced_game` over m's seeds, as its answer holds it). The
        provider's is its revenue per agent in the runs at ``c / n`` under m (over ``base_seeds``): per
        agent, so that both roles' payoffs are in bid x seconds per agent and one regret tolerance fits both
        (an equilibrium does not change when a role's payoffs are rescaled)."""
        provs = list(self.spec.providers)
        M, S, n = len(provs), len(self.cfg.strategies), self.cfg.reduced_players
        revenue: dict = {}
        rows, pays = {}, {}
        for prof, mix, s in population_points([1, n], [M, S]):
            m = int(np.argmax(prof[:M]))
            key = tuple(prof.tolist())
            rows[key] = prof
            pay = pays.setdefault(key, np.zeros(M + S))
            if s < M:
                x = mix_key(mix[M:])
                if (m, x) not in revenue:
                    recs = self.runs.records(provs[m], base_seeds, x)
                    revenue[(m, x)] = float(np.mean([r["revenue"] / r["agents"] for r in recs]))
                pay[s] = revenue[(m, x)]
            else:
                pay[s] = consumers[provs[m].name].profile_payoffs(prof[M:])[s - M]
        keys = list(rows)
        return RoleSymmetricGame(
            ["provider", "consumers"],
            [1, n],
            [[p.name for p in provs], self.cfg.names],
            np.array([rows[k] for k in keys]),
            np.array([pays[k] for k in keys]),
        )

    def paired_gains(self, provider, seeds, x) -> tuple[np.ndarray, list[dict]]:
        """Every rule's paired gain against mixture ``x`` under ``provider``, per seed (seeds x rules), and the
        records (``gamemarket.studies.deviations.paired_record``: the probe agents' utility when they play the rule,
        less their own utility in the base run at ``x``)."""
        recs = self.runs.records(provider, seeds, mix_key(x), paired=True)
        return np.array([r["gain"] for r in recs], dtype=float), recs

    def verify_joint(self, seeds, q, x, rng, alpha: float = 0.05) -> dict:
        """Regrets of the provider mixture ``q`` with the consumer mixture ``x`` from the paired records at ``x``
        under every mechanism (``seeds``): the consumers' (their gains against ``q``: the mechanisms' gains
        weighted by ``q``, seed by seed) and the provider's (revenue per agent in the base runs), each a point
        estimate with a ``1 - alpha`` bootstrap CI over seeds, and the expected revenue per agent."""
        provs = list(self.spec.providers)
        both = [self.paired_gains(p, seeds, x) for p in provs]
        G = np.array([g for g, _ in both])  # mechanisms x seeds x strategies
        R = np.array([[r["revenue"] / r["agents"] for r in recs] for _, recs in both]).T  # seeds x mechanisms
        q = np.asarray(q, dtype=float)
        on = q > 0
        Gq = np.einsum("m,mks->ks", q[on], G[on])
        c_point, c_boot = gain_regret_bootstrap(Gq, self.cfg.resamples, rng)
        p_point, p_boot = regret_bootstrap(R, q, self.cfg.resamples, rng)
        return {
            "consumer_regret": _quantiles(c_point, c_boot, alpha),
            "provider_regret": _quantiles(p_point, p_boot, alpha),
            "revenue_per_agent": {p.name: float(R[:, i].mean()) for i, p in enumerate(provs)},
            "expected_revenue_per_agent": float(R.mean(axis=0) @ q),
            "seeds": len(seeds),
        }

    def verify(self, provider, seeds, x, rng, alpha: float = 0.05) -> dict:
        """Regret of mixture ``x`` from its paired records: the largest of every rule's paired gain against ``x``
        (at least 0: ``x`` itself gains nothing), with a ``1 - alpha`` bootstrap CI over seeds; each rule's payoff
        (the base runs' mean utility plus its gain) and the provider's figures in the base runs."""
        G, recs = self.paired_gains(provider, seeds, x)
        point, boot = gain_regret_bootstrap(G, self.cfg.resamples, rng)
        rev = np.array([r["revenue"] for r in recs])
        wel = np.array([r["welfare"] for r in recs])
        base = float(np.mean([r["mean_utility"] for r in recs]))
        return {
            "regret": _quantiles(point, boot, alpha),
            "payoffs": dict(zip(self.cfg.names, (base + G.mean(axis=0)).tolist())),
            "revenue": _t_interval(rev),
            "welfare": _t_interval(wel),
            "mean_utility": base,
            "seeds": len(recs),
        }

    def scale(self, provider, seeds) -> float:
        """Mean absolute truthful utility per agent: the unit of the regret tolerance."""
        T = self.cfg.truthful_index
        recs = self.runs.records(provider, seeds, mix_key(np.eye(len(self.cfg.strategies))[T]))
        return float(np.mean([abs(r["sum_u0_all"]) / r["agents"] for r in recs]))

    def gains(self, provider, seeds, level: float = 0.95) -> dict:
        """Each strategy's paired gain at the all-truthful population under ``provider``: its probe agents' utility
        less their own in the all-truthful run, a ``level`` t-interval over ``seeds``, ``{strategy: [mean, low,
        high]}``.
        """
        T = self.cfg.truthful_index
        G, _ = self.paired_gains(provider, seeds, np.eye(len(self.cfg.strategies))[T])
        return {name: list(t_interval(G[:, j], level)) for j, name in enumerate(self.cfg.names) if j != T}


def gain_regret_bootstrap(G: np.ndarray, resamples: int, rng: np.random.Generator):
    """Regret from per-seed paired gains ``G`` (seeds x rules): the largest mean gain (at least 0), and the same on
    ``resamples`` bootstrap resamples of the seeds (all drawn in one call)."""

    def regret(M):  # per row of means
        return np.maximum(np.nanmax(M, axis=-1), 0.0)

    return float(regret(G.mean(axis=0))), regret(G[rng.integers(0, len(G), (resamples, len(G)))].mean(axis=1))


def _quantiles(point: float, boot: np.ndarray, alpha: float) -> list[float]:
    """``[point, low, high]``: the ``alpha / 2`` and ``1 - alpha / 2`` quantiles of the bootstrap values."""
    return [point, float(np.quantile(boot, alpha / 2)), float(np.quantile(boot, 1 - alpha / 2))]


def regret_bootstrap(P: np.ndarray, x: np.ndarray, resamples: int, rng: np.random.Generator):
    """Regret of mixture ``x`` from per-seed payoffs ``P`` (seeds x strategies): the best strategy's mean
    payoff minus the mixture's, and the same on ``resamples`` bootstrap resamples of the seeds.

    All resamples are drawn in one call, which gives the same indices as one call per resample."""
    x = np.asarray(x)

    def regret(M):  # per row of means
        return np.nanmax(M, axis=-1) - np.nansum(x * M, axis=-1)

    return float(regret(P.mean(axis=0))), regret(P[rng.integers(0, len(P), (resamples, len(P)))].mean(axis=1))


def _t_interval(v) -> list[float]:
    return list(t_interval(v))


def combined_verdict(verdicts) -> str:
    """One verdict from several: "no" if any is, "yes" if all are, else "undecided"."""
    return "no" if "no" in verdicts else ("yes" if all(v == "yes" for v in verdicts) else "undecided")


def search_counts(sol) -> dict:
    """What support enumeration tried for a solution (empty where it did not run)."""
    if sol.search is None:
        return {}
    return {k: getattr(sol.search, k) for k in ("supports", "starts", "roots", "singletons", "open_supports")}


def decide(interval, threshold) -> str:
    """A verdict from a ``[point, low, high]`` interval against ``threshold``: "yes" where the interval's upper end is
    at most it, "no" where its lower end is above it, else (or where the interval is undefined) "undecided"."""
    lo, hi = interval[1], interval[2]
    if not np.isfinite(lo):
        return "undecided"
    if hi <= threshold:
        return "yes"
    if lo > threshold:
        return "no"
    return "undecided"


def dominant_mechanism(game: RoleSymmetricGame) -> str | None:
    """The provider's weakly dominant mechanism in the provider-consumer game (its revenue at least every other
    mechanism's at every consumer profile; the first such), or None."""
    M = game.num_strategies[0]
    rev: dict = {}
    for prof, pay in zip(game.profiles, game.payoffs):
        m = int(np.argmax(prof[:M]))
        rev.setdefault(tuple(prof[M:].tolist()), np.full(M, np.nan))[m] = pay[m]
    R = np.array(list(rev.values()))  # consumer profiles x mechanisms
    best = np.flatnonzero((R >= R.max(axis=1, keepdims=True)).all(axis=0))
    return game.strategies[0][int(best[0])] if len(best) else None


def equilibria_json(an: PopulationAnalysis) -> list[dict]:
    """The ``game solve --format json`` payload of a population study: one entry per mechanism's equilibrium."""
    out = []
    for a in an.answers:
        for e in a.equilibria:
            out.append(
                {
                    "mechanism": a.mechanism,
                    "mixture": {"consumers": e["mixture"]},
                    "regret": e["regret"][0],
                    "regret_ci": e["regret"][1:],
                    "verified": e["verified"],
                    "stability": e["stability"],
                    "revenue": e["revenue"],
                    "welfare": e["welfare"],
                    "truthful_gains": a.truthful_gains,
                }
            )
        if not a.equilibria:
            out.append(
                {
                    "mechanism": a.mechanism,
                    "mixture": None,
                    "regret": None,
                    "note": "; ".join(a.notes),
                    "truthful_gains": a.truthful_gains,
                }
            )
    joint = an.provider.get("joint")
    for e in joint["equilibria"] if joint is not None else []:  # the provider-consumer game: both roles
        out.append(
            {
                "game": "provider-consumers",
                "mixture": {"provider": e["provider"], "consumers": e["consumers"]},
                "regret": e["reduced_regret"],
                "consumer_regret": e["consumer_regret"],
                "provider_regret": e["provider_regret"],
                "verified": e["verified"],
                "stability": e["stability"],
                "expected_revenue_per_agent": e["expected_revenue_per_agent"],
            }
        )
    return out


# ---------------------------------------------------------------------------- the analysis cache
#: the code that decides a population analysis from its stored runs: any change to it is a new cache key
_ANALYSIS_CODE = (
    "games",
    "analysis/population.py",
    "search/population.py",
    "studies/population.py",
    "confidence.py",
    "__init__.py",
)

#: what a cached analysis file holds (its ``format`` and ``version``); any other file is set aside, never read
CACHE_FORMAT = "gamemarket population analysis"
CACHE_VERSION = 2


def analysis_key(spec) -> str:
    """The key of a population study's analysis: a hash of the study (every field), the code that
    analyses it (``_ANALYSIS_CODE``, byte for byte) and the names and sizes of its stored runs. The
    analysis is a function of these alone, so a cached one with the same key is the same answer."""
    h = hashlib.sha256()
    # paths relative to the study file: a study copied with its results keeps its key
    base = Path(spec.path).parent if spec.path else None
    h.update(json.dumps(spec.to_dict(base), sort_keys=True, default=str).encode())
    h.update(_code_hash().encode())
    runs = Path(spec.results_dir) / "population"
    if runs.is_dir():
        for e in sorted(os.scandir(runs), key=lambda e: e.name):
            if e.name.endswith(".json"):
                h.update(f"{e.name} {e.stat().st_size}\n".encode())
    return h.hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def _code_hash() -> str:
    """The hash of the analysing code (``_ANALYSIS_CODE``, byte for byte) as this process first read it: once
    per process, so that a process whose files are edited while it runs still files its answer under the
    code it started with, not under the edited code's key."""
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parents[1]
    for rel in _ANALYSIS_CODE:
        path = pkg / rel
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(f.relative_to(pkg).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _analysis_path(spec, key: str) -> Path:
    return Path(spec.results_dir) / "analysis" / f"population-{key}.json"


def read_analysis(spec) -> PopulationAnalysis | None:
    """The cached analysis with the current key, or None; a file that does not read back as one is set aside."""
    key = analysis_key(spec)
    path = _analysis_path(spec, key)
    if not path.is_file():
        return None
    try:
        return analysis_from_json(read_json(path, "cached analysis"), spec, key=key)
    except Exception as exc:  # damaged, foreign or malformed (data only: nothing in it can run): computed again
        set_aside(path, f"{type(exc).__name__}: {exc}", "cached analysis")
        return None


def write_analysis(spec, an: PopulationAnalysis) -> None:
    """Cache the analysis under its key (atomically), dropping the older caches this program wrote (files in
    the cache format that record the key their name says); a read-only store skips it."""
    key = analysis_key(spec)
    path = _analysis_path(spec, key)
    try:
        text = json.dumps(analysis_to_json(an, key), allow_nan=False)
    except (TypeError, ValueError) as exc:  # a value JSON cannot hold exactly: not cached, still answered
        warnings.warn(f"{path}: the analysis is not cached ({exc})", stacklevel=2)
        return
    try:
        with atomic_path(path, "cached analysis") as tmp:
            tmp.write_text(text)
        for old in path.parent.glob("population-*.json"):
            if old != path and _is_cache_file(old):
                old.unlink(missing_ok=True)
    except (InputError, OSError):
        pass


def _is_cache_file(path: Path) -> bool:
    """Whether ``path`` is a cached analysis this program wrote: the cache format, and the key its name says."""
    try:
        head = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(head, dict)
        and head.get("format") == CACHE_FORMAT
        and path.name == f"population-{head.get('key')}.json"
    )


def analysis_to_json(an: PopulationAnalysis, key: str) -> dict:
    """A population analysis as the cache file's JSON object (data only; :func:`analysis_from_json` reads it).

    Everything but the study (the reader has it; ``config`` is its ``[game]`` table): the answers, their
    games (roles, players, strategies, profile and payoff arrays), equilibria and gains, the provider's
    choice and the joint game, the runs used and the metadata. Floats are JSON numbers (the shortest repr,
    which reads back to the same double); NaN and infinities, tuples and games are one-key objects
    (``{"$float": ...}``, ``{"$tuple": [...]}``, ``{"$game": {...}}``).
    """
    return {
        "format": CACHE_FORMAT,
        "version": CACHE_VERSION,
        "key": key,
        "study": an.spec.name,
        "answers": [_plain({f.name: getattr(a, f.name) for f in fields(MechanismAnswer)}) for a in an.answers],
        "provider": _plain(an.provider),
        "runs": _plain(an.runs),
        "meta": _plain(an.meta),
    }


def analysis_from_json(data: dict, spec, *, key: str) -> PopulationAnalysis:
    """The analysis of ``spec`` that :func:`analysis_to_json` wrote, exactly as it was computed.

    Raises
    ------
    ValueError, TypeError, KeyError, InputError
        Where ``data`` is not such an analysis: another format or version, another key, another study's
        mechanisms, or a field of the wrong kind.
    """
    _expect(data, dict, "the file")
    if data.get("format") != CACHE_FORMAT or data.get("version") != CACHE_VERSION:
        raise ValueError(f"not a cached population analysis of version {CACHE_VERSION}")
    if data.get("key") != key:
        raise ValueError(f"it records another key ({str(data.get('key'))[:40]!r}, expected {key!r})")
    answers = [_answer(_from_plain(a)) for a in _expect(data["answers"], list, "answers")]
    names = [p.name for p in spec.providers]
    if [a.mechanism for a in answers] != names:
        raise ValueError(f"its mechanisms {[a.mechanism for a in answers]} are not the study's {names}")
    provider = _expect(_from_plain(data["provider"]), dict, "provider")
    if set(provider) != {"leader", "ranking", "simultaneous", "joint"}:
        raise ValueError(f"provider: unexpected fields {sorted(provider)}")
    if provider["joint"] is not None:
        _expect(_expect(provider["joint"], dict, "provider.joint")["game"], RoleSymmetricGame, "the joint game")
    runs = _expect(_from_plain(data["runs"]), dict, "runs")
    meta = _expect(_from_plain(data["meta"]), dict, "meta")
    return PopulationAnalysis(spec, spec.population, answers, provider, runs, meta)


_ANSWER_TYPES = {
    "mechanism": str,
    "game": RoleSymmetricGame,
    "seeds": list,
    "equilibria": list,
    "truthful_gains": dict,
    "truthful_is_equilibrium": str,
    "notes": list,
    "search": dict,
}


def _answer(d) -> MechanismAnswer:
    _expect(d, dict, "an answer")
    if set(d) != set(_ANSWER_TYPES):
        raise ValueError(f"an answer has the fields {sorted(d)}, expected {sorted(_ANSWER_TYPES)}")
    for name, kind in _ANSWER_TYPES.items():
        _expect(d[name], kind, f"answer field {name!r}")
    return MechanismAnswer(**{f.name: d[f.name] for f in fields(MechanismAnswer)})


def _expect(value, kind, what: str):
    if not isinstance(value, kind):
        raise TypeError(f"{what}: expected a {kind.__name__}, got a {type(value).__name__}")
    return value


_TAGS = ("$float", "$tuple", "$game")


def _plain(v):
    """``v`` as plain JSON values, exactly (see :func:`analysis_to_json`); a dict key that starts with ``$`` gets
    another ``$``, so that no data is read as a tag."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else {"$float": _float_tag(float(v))}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, tuple):
        return {"$tuple": [_plain(x) for x in v]}
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise TypeError(f"a dict with keys {list(v)[:3]}: only string keys are cached")
        return {("$" + k if k.startswith("$") else k): _plain(x) for k, x in v.items()}
    if isinstance(v, RoleSymmetricGame):
        return {
            "$game": {
                "roles": list(v.roles),
                "players": list(v.players),
                "strategies": [list(s) for s in v.strategies],
                "profiles": v.profiles.tolist(),
                "payoffs": v.payoffs.tolist(),  # finite: a game's payoffs are
            }
        }
    raise TypeError(f"a {type(v).__name__} is not cached")


def _from_plain(v):
    """The inverse of :func:`_plain`."""
    if isinstance(v, list):
        return [_from_plain(x) for x in v]
    if not isinstance(v, dict):
        return v
    if len(v) == 1 and next(iter(v)) in _TAGS:
        tag, x = next(iter(v.items()))
        if tag == "$float":
            return _float_from_tag(x)
        if tag == "$tuple":
            return tuple(_from_plain(y) for y in _expect(x, list, "a tuple"))
        return _game_from_plain(x)
    return {(k[1:] if k.startswith("$") else k): _from_plain(x) for k, x in v.items()}


def _float_tag(v: float) -> str:
    """A float JSON cannot hold: ``inf``, ``-inf``, or ``nan:`` and the NaN's 64 bits in hex (its sign and payload)."""
    if math.isnan(v):
        return f"nan:{struct.unpack('<Q', struct.pack('<d', v))[0]:016x}"
    return "inf" if v > 0 else "-inf"


def _float_from_tag(s) -> float:
    _expect(s, str, "a tagged float")
    if s in ("inf", "-inf"):
        return float(s)
    if s.startswith("nan:") and len(s) == 20:
        v = struct.unpack("<d", struct.pack("<Q", int(s[4:], 16)))[0]
        if math.isnan(v):
            return v
    raise ValueError(f"not a tagged float: {s[:30]!r}")


def _game_from_plain(d) -> RoleSymmetricGame:
    _expect(d, dict, "a game")
    profiles, payoffs = np.array(d["profiles"]), np.array(d["payoffs"])
    if profiles.dtype.kind != "i" or payoffs.dtype.kind != "f":
        raise TypeError(
            f"a game's profiles must be integers and its payoffs floats, got {profiles.dtype}, {payoffs.dtype}"
        )
    return RoleSymmetricGame(d["roles"], d["players"], d["strategies"], profiles.astype(np.int64), payoffs)
