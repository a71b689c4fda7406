"""The market as a population game: does a user gain by shading, given what everyone else does?

Consumers are many self-interested agents (jobs, the paper's model; or users, SWF field 12, all
of whose jobs share one strategy) who each pick a shading rule (``strategies/shading.toml``).
Under a provider mechanism the consumers form one role of a role-symmetric game; the provider
picks the mechanism.

Payoff estimator. A run at population mixture ``x`` puts each agent on a strategy by its uniform
draw (``bids.population_slices``; common random numbers: the same draws under every mixture and
mechanism), with a probe slice of width ``probe`` for every strategy outside the support, so one
run yields every strategy's deviation payoff. The payoff of strategy ``s`` is the mean utility of
the agents that play it, with a control variate: the same agents' utility in the all-truthful run
of the same seed and mechanism (the baseline),

    u_s(x) = mean_{i plays s} (U_i(x) - U_i(truthful)) + mean_i U_i(truthful).

Both terms are unbiased (an agent's draw is independent of its job), and the difference removes
most of the variance between agents; the gain of ``s`` over ``t`` is then a same-job comparison,
exactly the G-cohort gain the bimatrix studies compute. The probe's bias: its agents face the
mixture ``(1 - k probe) x + probe * (the k probe strategies)``, not ``x``; for ``k`` probes the
payoffs move by ``O(k probe)`` (measured in the tests). With user agents a probe holds at least one
user (``probe >= 1 / users``).

Game. Per mechanism, the consumers' game is reduced by deviation-preserving reduction to
``reduced_players`` players: the payoff of ``s`` in reduced profile ``c`` is ``u_s`` at the population
mixture ``(c - e_s) / (n - 1)`` (``games.reduction.population_points``). Its equilibria are
candidates; each is verified by a run at the candidate itself: its regret with a bootstrap
confidence interval over seeds (Wiedenbeck, Cassell and Wellman 2014). Seeds are added where a
regret interval straddles the tolerance or a gain over truthful straddles zero, up to a budget.

Provider. Leader and followers: the mechanism with the highest revenue at its worst confirmed
consumer equilibrium. Simultaneously: the provider (a role of one player, its strategies the
mechanisms) and the consumers as one role-symmetric game (``PopulationStudy.joint_game``), so the
provider may mix over mechanisms; DPR keeps the provider whole, and its payoff at consumer profile
``c`` is its revenue per agent in the runs at ``c / n``. Each of that game's equilibria is verified
by runs at its consumer mixture under every mechanism, both roles' regrets with bootstrap CIs.

References
----------
.. [Wiedenbeck2012] B. Wiedenbeck and M. P. Wellman, "Scaling simulation-based game analysis through
   deviation-preserving reduction", AAMAS 2012.
.. [Wiedenbeck2014] B. Wiedenbeck, B.-A. Cassell and M. P. Wellman, "Bootstrap statistics for
   empirical games", AAMAS 2014.
.. [Shudler2010] J. Shudler, L. Amar, A. Barak and A. Mu'alem, "The effects of untruthful bids on
   user utilities and stability in computing markets", CCGrid 2010.
"""

from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from gamemarket import MODEL_VERSION, bids
from gamemarket.market.base import market_for
from gamemarket.confidence import t_interval
from gamemarket.errors import InputError
from gamemarket.games.reduction import population_points
from gamemarket.games.rsg_equilibria import equilibria
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.io.files import atomic_path
from gamemarket.studies.population_config import PopulationConfig
from gamemarket.studies.store import set_aside, study_store, task_key
from gamemarket.studies.workers import exit_with_parent


# ---------------------------------------------------------------------------- the store
class PopulationStore:
    """One small JSON file per (mechanism, mixture, seed) run, written atomically, verified on read."""

    def __init__(self, root: str | Path):
        self.dir = Path(root) / "population"

    def path(self, key: str) -> Path:
        """The file of the run with this key."""
        return self.dir / f"{key}.json"

    def read(self, key: str) -> dict | None:
        """The stored run with this key, or None where there is none; a file that does not parse, or records
        another key, is set aside with a warning and read as missing (so it is run again).
        """
        path = self.path(key)
        try:
            rec = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            rec, reason = None, f"{type(exc).__name__}: {exc}"
        else:
            reason = "it records another key" if isinstance(rec, dict) else "not a JSON object"
        if isinstance(rec, dict) and rec.get("key") == key:
            return rec
        set_aside(path, reason, "stored run")
        return None

    def write(self, key: str, rec: dict) -> None:
        """Store a run under its key, atomically."""
        with atomic_path(self.path(key), "stored run") as tmp:
            tmp.write_text(json.dumps({**rec, "key": key}))


# ---------------------------------------------------------------------------- one chunk of runs
def _mix_key(x) -> tuple:
    return tuple(round(float(v), 12) for v in x)


def run_chunk(
    arrays: dict,
    nodes: int,
    mechanism: dict,
    seed: int,
    mixtures: list,
    cfg: PopulationConfig,
    distribution: bids.BidDistribution,
) -> list[dict]:
    """Every mixture of one (mechanism, seed), after the all-truthful baseline of the same seed.

    Returns one record per mixture: per strategy the number of agents and jobs and the sums of
    their utilities in this run and in the baseline; the provider's revenue, utilization and welfare.
    """
    t0 = time.perf_counter()
    n = market_for(mechanism).size(arrays)
    draws = bids.draw(n, seed, distribution=distribution)
    w, U = draws.private_bid, draws.U
    run = _market(arrays, nodes, mechanism, n)
    if cfg.agents == "users":
        agent = np.unique(arrays["user"], return_inverse=True)[1]
        d = bids.user_draws(arrays["user"], seed)
    else:
        agent = np.arange(n)
        d = draws.G
    n_agents = int(agent.max()) + 1 if n else 0
    probe = max(cfg.probe, 1.0 / max(n_agents, 1)) if cfg.agents == "users" else cfg.probe
    u0, _ = run(w, w.copy())
    u0_agent = np.bincount(agent, weights=u0, minlength=n_agents)
    out = []
    S = len(cfg.strategies)
    for x in mixtures:
        lo, hi = bids.population_slices(np.asarray(x), probe)
        strat = bids.assign(d, lo, hi)
        u, summary = run(w, bids.shade(w, U, list(cfg.strategies), strat))
        u_agent = np.bincount(agent, weights=u, minlength=n_agents)
        s_agent = np.zeros(n_agents, dtype=np.int64)
        s_agent[agent] = strat
        out.append(
            {
                "mixture": [float(v) for v in x],
                "seed": int(seed),
                "n_agents": np.bincount(s_agent, minlength=S).tolist(),
                "n_jobs": np.bincount(strat, minlength=S).tolist(),
                "sum_u": np.bincount(s_agent, weights=u_agent, minlength=S).tolist(),
                "sum_u0": np.bincount(s_agent, weights=u0_agent, minlength=S).tolist(),
                "agents": n_agents,
                "sum_u0_all": float(u0_agent.sum()),
                "revenue": summary["revenue"],
                "utilization": summary["utilization"],
                "welfare": summary["welfare"],
                "probe": probe,
            }
        )
    seconds = time.perf_counter() - t0
    for r in out:
        r["chunk_seconds"] = seconds / len(out)
    return out


def _market(arrays: dict, nodes: int, provider: dict, n: int):
    """``run(private, reported) -> (utility per job, provider summary)`` in the provider's market
    (``gamemarket.market.base``: the scheduling market or the pricing market)."""
    market = market_for(provider)
    group = np.zeros(n, dtype=np.int64)

    def run(w, rw):
        res = market.run(arrays, nodes, provider, w, rw, group)
        return res.jobs["utility"].to_numpy(), res.summary

    return run


def payoffs_of(rec: dict) -> np.ndarray:
    """Each strategy's estimated payoff in one run (control-variate estimator; NaN for an empty slice)."""
    n = np.asarray(rec["n_agents"], dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = (np.asarray(rec["sum_u"]) - np.asarray(rec["sum_u0"])) / n
    return np.where(n > 0, diff + rec["sum_u0_all"] / rec["agents"], np.nan)


# ---------------------------------------------------------------------------- the study
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


class PopulationStudy:
    """Plans, runs (resumably, in parallel) and analyses a population study."""

    def __init__(self, spec, *, n_jobs: int = 1, progress: bool = False, run: bool = True):
        from gamemarket.market.base import MARKETS
        from gamemarket.studies.runner import content_hash, load_workload

        self.spec = spec
        self.cfg: PopulationConfig = spec.population
        prep = load_workload(spec)
        market = MARKETS.get(prep.market)
        users = prep.source.jobs["user"].to_numpy(np.int64) if market.has_users else None
        self.meta = {
            "workload": Path(str(prep.meta.get("source"))).name,
            "jobs": prep.jobs,
            "nodes": prep.nodes,
            "users": int(len(np.unique(users))) if users is not None else None,
        }
        if users is None and self.cfg.agents != "jobs":
            raise InputError(
                f"study {spec.name!r}: the {market.kind} market ({market.description}) has no users; "
                "use agents = 'jobs'"
            )
        self.arrays = dict(prep.arrays) if users is None else {**prep.arrays, "user": np.ascontiguousarray(users)}
        self.nodes = prep.nodes
        self.base = {
            "model": MODEL_VERSION,
            "workload": content_hash(self.arrays),
            "nodes": self.nodes,
            "bids": {"components": spec.bids.components, "lo": spec.bids.lo, "hi": spec.bids.hi},
            "population": self.cfg.params(),
        }
        for p in spec.providers:  # a market's own key fields (the pricing solver's version)
            self.base.update(market_for(p.params()).key_fields())
        self.store = PopulationStore(spec.results_dir)
        self.n_jobs = n_jobs
        self.progress = progress
        self.run = run
        self.runs_done = 0
        self.requested: set = set()  #: every (mechanism, mixture, seed) the analysis has read: the simulations used
        self.grid = sorted(
            {_mix_key(m) for _, m, _ in population_points([self.cfg.reduced_players], [len(self.cfg.strategies)])}
        )

    def key(self, provider, x, seed) -> str:
        """The stored-run key of ``provider`` at population mixture ``x`` with ``seed``."""
        return task_key({**self.base, "provider": provider.params(), "mixture": list(_mix_key(x)), "seed": int(seed)})

    def ensure(self, wanted: dict) -> None:
        """Run what is missing of ``{(provider name, seed): [mixtures]}`` (chunked per mechanism and seed)."""
        provs = {p.name: p for p in self.spec.providers}
        todo = []
        for (pname, seed), mixes in wanted.items():
            self.requested.update((pname, _mix_key(x), int(seed)) for x in mixes)
            missing = [
                m
                for m in dict.fromkeys(_mix_key(x) for x in mixes)
                if self.store.read(self.key(provs[pname], m, seed)) is None
            ]
            if missing:
                todo.append((pname, seed, missing))
        if not todo:
            return
        if not self.run:
            n = sum(len(m) for *_, m in todo)
            raise InputError(
                f"study {self.spec.name!r}: {n} population runs are not stored yet; run "
                f"`gamemarket study run {self.spec.path}` first"
            )
        jobs = (
            delayed(_chunk_task)(
                self.arrays,
                self.nodes,
                provs[p].params(),
                s,
                mixes,
                self.cfg,
                self.spec.bids,
                str(self.spec.results_dir),
                [self.key(provs[p], m, s) for m in mixes],
                os.getpid(),
            )
            for p, s, mixes in todo
        )
        bar = None
        if self.progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=sum(len(m) for *_, m in todo), unit="run", desc=self.spec.name)
        for k in Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")(jobs):
            self.runs_done += k
            if bar is not None:
                bar.update(k)
        if bar is not None:
            bar.close()

    def records(self, provider, seeds, x) -> list[dict]:
        """The stored runs of ``provider`` at mixture ``x``, one per seed; a missing one is an
        :class:`InputError` that says to run the study.
        """
        out = []
        for s in seeds:
            rec = self.store.read(self.key(provider, x, s))
            if rec is None:
                raise InputError(
                    f"study {self.spec.name!r}: no stored run for {provider.name}, mixture {list(x)}, "
                    f"seed {s}; run `gamemarket study run {self.spec.path}` first"
                )
            out.append(rec)
        return out

    # ---------------------------------------------------------------- analysis pieces
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
            k = _mix_key(mix)
            if k not in cache:
                cache[k] = np.nanmean([payoffs_of(r) for r in self.records(provider, seeds, k)], axis=0)
            key = tuple(prof.tolist())
            rows[key] = prof
            pays.setdefault(key, np.zeros(S))[s] = cache[k][s]
        keys = list(rows)
        return RoleSymmetricGame(
            ["consumers"], [n], [cfg.names], np.array([rows[k] for k in keys]), np.array([pays[k] for k in keys])
        )

    def joint_points(self) -> list[tuple]:
        """The consumer mixtures where the joint game's provider payoffs are measured: ``c / n`` for every
        composition ``c`` of the ``n = reduced_players`` consumers (DPR keeps the provider, a role of one,
        whole and lets it face all ``n`` reduced consumers), run under every mechanism."""
        M = len(self.spec.providers)
        pts = population_points([1, self.cfg.reduced_players], [M, len(self.cfg.strategies)])
        return sorted({_mix_key(mix[M:]) for _, mix, s in pts if s < M})

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
                x = _mix_key(mix[M:])
                if (m, x) not in revenue:
                    recs = self.records(provs[m], base_seeds, x)
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

    def verify_joint(self, seeds, q, x, rng) -> dict:
        """Regrets of the provider mixture ``q`` with the consumer mixture ``x`` from runs at ``x`` under
        every mechanism (``seeds``): the consumers' (their payoffs against ``q``: the mechanisms' payoffs
        weighted by ``q``, seed by seed) and the provider's (revenue per agent), each a point estimate with
        a bootstrap CI over seeds, and the expected revenue per agent."""
        provs = list(self.spec.providers)
        recs = [self.records(p, seeds, _mix_key(x)) for p in provs]
        P = np.array([[payoffs_of(r) for r in rs] for rs in recs])  # mechanisms x seeds x strategies
        R = np.array([[r["revenue"] / r["agents"] for r in rs] for rs in recs]).T  # seeds x mechanisms
        q = np.asarray(q, dtype=float)
        on = q > 0
        Pq = np.einsum("m,mks->ks", q[on], P[on])
        c_point, c_boot = regret_bootstrap(Pq, x, self.cfg.resamples, rng)
        p_point, p_boot = regret_bootstrap(R, q, self.cfg.resamples, rng)
        return {
            "consumer_regret": [c_point, float(np.quantile(c_boot, 0.025)), float(np.quantile(c_boot, 0.975))],
            "provider_regret": [p_point, float(np.quantile(p_boot, 0.025)), float(np.quantile(p_boot, 0.975))],
            "revenue_per_agent": {p.name: float(R[:, i].mean()) for i, p in enumerate(provs)},
            "expected_revenue_per_agent": float(R.mean(axis=0) @ q),
            "seeds": len(seeds),
        }

    def verify(self, provider, seeds, x, rng) -> dict:
        """Regret of mixture ``x`` from runs at ``x`` itself: point estimate and bootstrap CI over seeds."""
        recs = self.records(provider, seeds, _mix_key(x))
        P = np.array([payoffs_of(r) for r in recs])  # seeds x S
        x = np.asarray(x)

        point, boot = regret_bootstrap(P, x, self.cfg.resamples, rng)
        rev = np.array([r["revenue"] for r in recs])
        wel = np.array([r["welfare"] for r in recs])
        return {
            "regret": [point, float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))],
            "payoffs": dict(zip(self.cfg.names, P.mean(axis=0).tolist())),
            "revenue": _t_interval(rev),
            "welfare": _t_interval(wel),
            "mean_utility": float(np.nansum(x * P.mean(axis=0))),
            "seeds": len(recs),
        }

    def scale(self, provider, seeds) -> float:
        """Mean absolute truthful utility per agent: the unit of the regret tolerance."""
        T = self.cfg.truthful_index
        recs = self.records(provider, seeds, _mix_key(np.eye(len(self.cfg.strategies))[T]))
        return float(np.mean([abs(r["sum_u0_all"]) / r["agents"] for r in recs]))

    def gains(self, provider, seeds) -> dict:
        """Each strategy's gain over truthful at the all-truthful population under ``provider``: a 95%
        t-interval over ``seeds`` of the paired differences, ``{strategy: [mean, low, high]}``.
        """
        T = self.cfg.truthful_index
        recs = self.records(provider, seeds, _mix_key(np.eye(len(self.cfg.strategies))[T]))
        P = np.array([payoffs_of(r) for r in recs])
        return {name: _t_interval(P[:, j] - P[:, T]) for j, name in enumerate(self.cfg.names) if j != T}


def regret_bootstrap(P: np.ndarray, x: np.ndarray, resamples: int, rng: np.random.Generator):
    """Regret of mixture ``x`` from per-seed payoffs ``P`` (seeds x strategies): the best strategy's mean
    payoff minus the mixture's, and the same on ``resamples`` bootstrap resamples of the seeds.

    All resamples are drawn in one call, which gives the same indices as one call per resample."""
    x = np.asarray(x)

    def regret(M):  # per row of means
        return np.nanmax(M, axis=-1) - np.nansum(x * M, axis=-1)

    return float(regret(P.mean(axis=0))), regret(P[rng.integers(0, len(P), (resamples, len(P)))].mean(axis=1))


def _chunk_task(arrays, nodes, provider_params, seed, mixtures, cfg, distribution, root, keys, parent_pid) -> int:
    exit_with_parent(parent_pid)  # never write results for a run that was killed
    store = PopulationStore(root)
    for rec, key in zip(run_chunk(arrays, nodes, provider_params, seed, mixtures, cfg, distribution), keys):
        store.write(key, rec)
    return len(keys)


def _t_interval(v) -> list[float]:
    return list(t_interval(v))


def _combined(verdicts) -> str:
    """One verdict from several: "no" if any is, "yes" if all are, else "undecided"."""
    return "no" if "no" in verdicts else ("yes" if all(v == "yes" for v in verdicts) else "undecided")


def _search_counts(sol) -> dict:
    """What support enumeration tried for a solution (empty where it did not run)."""
    if sol.search is None:
        return {}
    return {k: getattr(sol.search, k) for k in ("supports", "starts", "roots", "singletons", "open_supports")}


def _decide(interval, threshold) -> str:
    lo, hi = interval[1], interval[2]
    if not np.isfinite(lo):
        return "undecided"
    if hi <= threshold:
        return "yes"
    if lo > threshold:
        return "no"
    return "undecided"


def run_population_study(
    spec, *, n_jobs: int = 1, progress: bool = False, run: bool = True, force: bool = False
) -> PopulationAnalysis:
    """Run (or resume) a population study and answer it (see the module docstring).

    With ``run=False`` nothing is simulated: a run that is not stored yet is an error. With
    ``run=True`` the study's results folder is claimed (``force``: one gamemarket did not make, or another
    study's) and locked: a second run of the same study exits with a clear message instead of doing the
    work twice.
    """
    import contextlib

    lock = study_store(spec, force=force).lock("population study run") if run else contextlib.nullcontext()
    with lock:
        t0 = time.perf_counter()
        cached = _read_analysis(spec)
        if cached is not None:
            cached.runs = {**cached.runs, "run_now": 0, "wall_seconds": time.perf_counter() - t0}
            return cached
        an = _run_population_study(spec, n_jobs=n_jobs, progress=progress, run=run)
        _write_analysis(spec, an)
        return an


#: the code that decides a population analysis from its stored runs: any change to it is a new cache key
_ANALYSIS_CODE = ("games", "studies/population.py", "confidence.py", "__init__.py")


def analysis_key(spec) -> str:
    """The key of a population study's analysis: a hash of the study (every field), the code that
    analyses it (``_ANALYSIS_CODE``, byte for byte) and the names and sizes of its stored runs. The
    analysis is a function of these alone, so a cached one with the same key is the same answer."""
    import hashlib

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
    import hashlib

    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parents[1]
    for rel in _ANALYSIS_CODE:
        path = pkg / rel
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(f.relative_to(pkg).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _analysis_path(spec, key: str) -> Path:
    return Path(spec.results_dir) / "analysis" / f"population-{key}.pkl"


def _read_analysis(spec) -> PopulationAnalysis | None:
    """The cached analysis with the current key, or None; one that does not load is set aside."""
    import pickle

    path = _analysis_path(spec, analysis_key(spec))
    if not path.is_file():
        return None
    try:
        an = pickle.loads(path.read_bytes())
        if not isinstance(an, PopulationAnalysis):
            raise TypeError(f"holds a {type(an).__name__}")
    except Exception as exc:  # a damaged or foreign file: computed again
        set_aside(path, f"{type(exc).__name__}: {exc}", "cached analysis")
        return None
    an.spec = spec
    return an


def _write_analysis(spec, an: PopulationAnalysis) -> None:
    """Cache the analysis under its key (atomically), dropping older ones; a read-only store skips it."""
    import pickle

    path = _analysis_path(spec, analysis_key(spec))
    try:
        with atomic_path(path, "cached analysis") as tmp:
            tmp.write_bytes(pickle.dumps(an, protocol=pickle.HIGHEST_PROTOCOL))
        for old in path.parent.glob("population-*.pkl"):
            if old != path:
                old.unlink(missing_ok=True)
    except (InputError, OSError):
        pass


def _run_population_study(spec, *, n_jobs: int, progress: bool, run: bool) -> PopulationAnalysis:
    t0 = time.perf_counter()
    st = PopulationStudy(spec, n_jobs=n_jobs, progress=progress, run=run)
    cfg = st.cfg
    seeds = {p.name: list(spec.seeds) for p in spec.providers}
    budget = max(cfg.max_seeds, len(spec.seeds))
    rng = np.random.default_rng(0)
    answers: dict[str, MechanismAnswer] = {}
    pending = [p.name for p in spec.providers]
    provs = {p.name: p for p in spec.providers}
    while pending:
        st.ensure({(p, s): st.grid for p in pending for s in seeds[p]})
        cands = {}
        for p in pending:
            sol = equilibria(st.reduced_game(provs[p], seeds[p]))
            cands[p] = sol
        st.ensure({(p, s): [e.mixture for e in cands[p].equilibria] for p in pending for s in seeds[p]})
        again = []
        for p in pending:
            prov = provs[p]
            sol = cands[p]
            scale = st.scale(prov, seeds[p])
            tol = cfg.regret_tol * scale
            eqs = []
            for e in sol.equilibria:
                v = st.verify(prov, seeds[p], e.mixture, rng)
                eqs.append(
                    {
                        "mixture": {n_: float(q) for n_, q in zip(cfg.names, e.mixture) if q > 0},
                        "mixture_vector": e.mixture.tolist(),
                        "reduced_regret": e.regret,
                        "stability": e.stability,
                        "verified": _decide(v["regret"], tol),
                        **v,
                    }
                )
            g = st.gains(prov, seeds[p])
            # the regret of all-truthful is its largest gain: the same verdict rule as a candidate's
            ans_t = _combined([_decide(gv, tol) for gv in g.values()])
            notes = [] if sol.found else [sol.summary()]
            answers[p] = MechanismAnswer(p, sol.game, list(seeds[p]), eqs, g, ans_t, notes, _search_counts(sol))
            unsure = any(e["verified"] == "undecided" for e in eqs) or ans_t == "undecided"
            if unsure and len(seeds[p]) < budget:
                nxt = max(seeds[p]) + 1
                seeds[p] = seeds[p] + list(range(nxt, nxt + min(cfg.seed_step, budget - len(seeds[p]))))
                again.append(p)
        pending = again
    # the provider: revenue of every mechanism at every mechanism's confirmed consumer equilibria
    base_seeds = list(spec.seeds)
    points = {_mix_key(e["mixture_vector"]) for a in answers.values() for e in a.equilibria}
    st.ensure({(p.name, s): sorted(points) for p in spec.providers for s in base_seeds})

    def revenue(pname, x):
        return float(np.mean([r["revenue"] for r in st.records(provs[pname], base_seeds, _mix_key(x))]))

    leader = []
    for a in answers.values():
        revs = [e["revenue"][0] for e in a.equilibria if e["verified"] != "no"]
        leader.append(
            {
                "mechanism": a.mechanism,
                "equilibria": len(revs),
                "worst_revenue": min(revs) if revs else None,
                "best_revenue": max(revs) if revs else None,
            }
        )
    ranked = sorted([r for r in leader if r["worst_revenue"] is not None], key=lambda r: -r["worst_revenue"])
    simultaneous = []
    for a in answers.values():
        for e in a.equilibria:
            if e["verified"] == "no":
                continue
            x = e["mixture_vector"]
            revs = {p.name: revenue(p.name, x) for p in spec.providers}
            best = max(revs.values())
            if revs[a.mechanism] >= best - 1e-9 * max(1.0, abs(best)):
                simultaneous.append({"mechanism": a.mechanism, "mixture": e["mixture"], "revenue": revs[a.mechanism]})
    joint = _joint_answer(st, answers, base_seeds, rng)
    grid_runs = len(st.grid)
    used = len(st.requested)  # distinct stored runs the answers read
    # a fixed design of the same confidence: every mechanism at the largest seed count used, at the grid and its
    # candidates; the mixtures run under every mechanism (candidates', the joint game's) at the base seeds
    longest = max(seeds.values(), key=len)
    fixed = {
        (p, m, s)
        for p, a in answers.items()
        for m in set(st.grid) | {_mix_key(e["mixture_vector"]) for e in a.equilibria}
        for s in longest
    }
    fixed |= {(p.name, m, s) for p in spec.providers for m in points | set(joint["points"]) for s in base_seeds}
    fixed = len(fixed)
    runs = {
        "simulations": used,
        "fixed_design": fixed,
        "seeds": {p: len(v) for p, v in seeds.items()},
        "run_now": st.runs_done,
        "wall_seconds": time.perf_counter() - t0,
    }
    provider = {
        "leader": ranked[0]["mechanism"] if ranked else None,
        "ranking": ranked,
        "simultaneous": simultaneous,
        "joint": joint,
    }
    return PopulationAnalysis(
        spec,
        cfg,
        [answers[p.name] for p in spec.providers],
        provider,
        runs,
        {**st.meta, "grid_mixtures": grid_runs, "reduced_players": cfg.reduced_players},
    )


def _joint_answer(st: PopulationStudy, answers: dict, base_seeds: list, rng) -> dict:
    """The simultaneous equilibria of the provider-consumer game with any provider mixture
    (:meth:`PopulationStudy.joint_game`, from each mechanism's answer), each verified by runs at its consumer
    mixture under every mechanism: both roles' regrets with bootstrap CIs over the base seeds, decided
    against the study's ``regret_tol`` times each role's scale (the consumers': mean absolute truthful
    utility per agent; the provider's: mean revenue per agent at the candidate)."""
    cfg, provs = st.cfg, list(st.spec.providers)
    M = len(provs)
    grid = st.joint_points()
    st.ensure({(p.name, s): grid for p in provs for s in base_seeds})
    game = st.joint_game({p: a.game for p, a in answers.items()}, base_seeds)
    sol = equilibria(game)
    points = sorted({_mix_key(e.mixture[M:]) for e in sol.equilibria} - set(grid))
    st.ensure({(p.name, s): points for p in provs for s in base_seeds})
    c_scale = float(np.mean([st.scale(p, base_seeds) for p in provs]))
    eqs = []
    for e in sol.equilibria:
        q, x = e.mixture[:M], e.mixture[M:]
        v = st.verify_joint(base_seeds, q, x, rng)
        p_scale = float(np.mean(np.abs(list(v["revenue_per_agent"].values()))))
        verified = _combined(
            [
                _decide(v["consumer_regret"], cfg.regret_tol * c_scale),
                _decide(v["provider_regret"], cfg.regret_tol * p_scale),
            ]
        )
        eqs.append(
            {
                "provider": {p.name: float(w) for p, w in zip(provs, q) if w > 0},
                "consumers": {n_: float(w) for n_, w in zip(cfg.names, x) if w > 0},
                "mixture_vector": e.mixture.tolist(),
                "reduced_regret": e.regret,
                "stability": e.stability,
                "verified": verified,
                **v,
            }
        )
    return {
        "game": game,
        "equilibria": eqs,
        "dominant": dominant_mechanism(game),
        "notes": [] if sol.found else [sol.summary()],
        "search": _search_counts(sol),
        "points": sorted(set(grid) | set(points)),
    }


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
