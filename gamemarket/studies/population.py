"""The market as a population game, its runs: does a user gain by shading, given what everyone else does?

Consumers are many self-interested agents (jobs, the paper's model; or users, SWF field 12, all
of whose jobs share one strategy) who each pick a shading rule (``strategies/shading.toml``).
Under a provider mechanism the consumers form one role of a role-symmetric game; the provider
picks the mechanism. This module holds the study's runs (its ``[game]`` table is
``gamemarket.studies.population_config``'s): one stored run per (mechanism, population mixture,
seed), their keys, and the fan-out that makes sure the runs an analysis asks for exist. It stores
runs; it never solves a game: the games, their equilibria and the provider's choice are
``gamemarket.analysis.population``'s.

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

A run's record (:func:`run_chunk`, stored by :class:`PopulationStore`) holds per strategy the
number of agents and jobs and the sums of their utilities in the run and in the baseline, and the
provider's revenue, utilization and welfare; :func:`payoffs_of` reads the estimator from it.

References
----------
.. [Shudler2010] J. Shudler, L. Amar, A. Barak and A. Mu'alem, "The effects of untruthful bids on
   user utilities and stability in computing markets", CCGrid 2010.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
from numba import njit

from gamemarket import MODEL_VERSION, bids, plugins
from gamemarket.errors import InputError, shown_value
from gamemarket.io.files import RECORD_MAX_BYTES, atomic_path, shown_path
from gamemarket.io.names import workload_source
from gamemarket.market.base import MARKETS, PreparedWorkload, market_for
from gamemarket.market.outside import OUTSIDE_FIELDS, outside_runner
from gamemarket.market.simulate import Mechanism
from gamemarket.studies.deviations import PAIRED_ESTIMATOR, SeedRuns, paired_record
from gamemarket.studies.population_config import PopulationConfig
from gamemarket.studies.runner import load_workload, parallel_backend
from gamemarket.studies.store import NotStoredFile, content_hash, open_stored, set_aside, task_key
from gamemarket.workers import LEAST_SECONDS_PER_JOB_RUN, exit_with_parent, fan_out, most_workers, parent_gone

# ---------------------------------------------------------------------------- the store
#: a stored run's field holding the SHA-256 of the rest (:func:`_digest`): a run whose numbers were edited by hand is
#: told from the one gamemarket wrote (hunt 16d: edited population runs were used without notice, where the
#: provider/consumer studies' run files record their rows' digest)
DIGEST_FIELD = "sha256"


def _digest(rec: dict) -> str:
    """SHA-256 of a stored run's record (its key included, its digest not), as JSON with sorted keys."""
    return hashlib.sha256(json.dumps(rec, sort_keys=True).encode()).hexdigest()


class PopulationStore:
    """One small JSON file per (mechanism, mixture, seed) run, written atomically, verified on read."""

    def __init__(self, root: str | Path):
        self.dir = Path(root) / "population"

    def path(self, key: str) -> Path:
        """The file of the run with this key."""
        return self.dir / f"{key}.json"

    def read(self, key: str, *, set_aside_bad: bool = False, name_bad: bool = False) -> dict | None:
        """The stored run with this key, or None where there is none. A file that does not parse, or records
        another key, is read as missing and moved nowhere (a query, a report: hunt 16d, a report renamed one
        ``.corrupt``); ``set_aside_bad``: set aside with a warning (what a run does, which runs it again);
        ``name_bad``: an :class:`InputError` naming it (a reader that needs it).
        """
        path = self.path(key)
        try:
            with open_stored(path, "stored run") as f:  # (a pipe in its place is refused, not waited on)
                size = os.fstat(f.fileno()).st_size
                if size > RECORD_MAX_BYTES:  # (damage, not read whole: hunt 18a-F6's manifests)
                    raise NotStoredFile(f"{size:,} bytes, more than a stored run holds (at most {RECORD_MAX_BYTES:,})")
                rec = json.loads(f.read().decode("utf-8"))
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError, NotStoredFile) as exc:
            rec, reason = None, f"{type(exc).__name__}: {exc}"
        else:
            reason = "it records another key" if isinstance(rec, dict) else "not a JSON object"
        if isinstance(rec, dict) and rec.get("key") == key:
            said = rec.pop(DIGEST_FIELD, None)  # (runs stored before the digest was recorded have none)
            if said is None or said == _digest(rec):
                return rec
            reason = "its numbers are not those gamemarket wrote (edited since)"
        if set_aside_bad:
            set_aside(path, reason, "stored run")
        elif name_bad:
            raise InputError(
                f"{shown_path(path)}: the stored run does not read ({' '.join(reason.split())}); `study run` sets it "
                "aside and runs it again"
            )
        return None

    def write(self, key: str, rec: dict) -> None:
        """Store a run under its key, atomically."""
        body = {**rec, "key": key}
        with atomic_path(self.path(key), "stored run") as tmp:
            tmp.write_text(json.dumps({**body, DIGEST_FIELD: _digest(body)}), encoding="utf-8")


# ---------------------------------------------------------------------------- one chunk of runs
def mix_key(x) -> tuple:
    """A population mixture as the runs key it: a tuple of its shares rounded to 12 decimals (so that the same
    mixture reached by different arithmetic is the same run)."""
    return tuple(round(float(v), 12) for v in x)


def run_chunk(
    arrays: dict,
    nodes: int,
    mechanism: dict,
    seed: int,
    mixtures: list,
    cfg: PopulationConfig,
    distribution: bids.BidDistribution,
    workload_key: str | None = None,
) -> list[dict]:
    """Every mixture of one (mechanism, seed), after the all-truthful baseline of the same seed.

    With ``workload_key`` (the workload's content hash) the baseline is kept in this process (``BASELINES``)
    and reused by the next chunk of the same workload, nodes, mechanism, seed and bids: a study asks for many
    small chunks (adaptive seeds, candidates, the provider-consumer game), each of which ran it again.

    Returns one record per mixture: per strategy the number of agents and jobs and the sums of
    their utilities in this run and in the baseline; the provider's revenue, utilization and welfare.

    ``mechanism`` is a provider strategy's parameters (a dict) or a :class:`gamemarket.market.Mechanism`; each
    mixture one share per rule of ``cfg`` (finite, >= 0, summing to 1); the ``arrays`` of one length. Else an
    :class:`InputError` naming what is wrong (:func:`check_chunk`).
    """
    t0 = time.perf_counter()
    mechanism = check_chunk(arrays, mechanism, mixtures, cfg)
    n = market_for(mechanism).size(arrays)
    draws = bids.draw(n, seed, distribution=distribution)
    w, U = draws.private_bid, draws.U
    run = _market(arrays, nodes, mechanism, n, w, cfg.outside_price)
    bid_class = bids.bid_bin_codes(w)  # the same private bids in every run of the chunk
    leaves = any(r.leave_by_class is not None and any(r.leave_by_class) for r in cfg.strategies)
    L = bids.leave_draws(n, seed) if leaves else None
    if cfg.agents == "users":
        agent = np.unique(arrays["user"], return_inverse=True)[1]
        d = bids.user_draws(arrays["user"], seed)
    else:
        agent = np.arange(n)
        d = draws.G
    n_agents = int(agent.max()) + 1 if n else 0
    probe = probe_used(cfg, n_agents)
    base_key = (
        None
        if workload_key is None
        else (workload_key, int(nodes), json.dumps(mechanism, sort_keys=True), int(seed), repr(distribution))
    )
    u0 = BASELINES.pop(base_key, None) if base_key is not None else None
    if u0 is None:
        u0, _ = run(w.copy())
    if base_key is not None:  # most recently used last; the oldest goes beyond the bound
        BASELINES[base_key] = u0
        while len(BASELINES) > 1 and sum(v.nbytes for v in BASELINES.values()) > MAX_BASELINE_BYTES:
            BASELINES.pop(next(iter(BASELINES)))
    # with each job its own agent, a job's agent sum ``bincount(arange(n), weights=u)`` is ``0.0 + u`` (one addition
    # to a zero bin: the same bits, -0.0 made 0.0) and its agent's strategy its own, without the scatter
    by_job = cfg.agents != "users"
    u0_agent = u0 + 0.0 if by_job else np.bincount(agent, weights=u0, minlength=n_agents)
    u0_all = float(u0_agent.sum())
    out = []
    S = len(cfg.strategies)
    betas = class_betas(cfg.strategies)  # every rule a beta per bid class: the reported bids in one compiled pass
    for x in mixtures:
        lo, hi = bids.population_slices(np.asarray(x), probe)
        strat = slice_assign(d, lo, hi)
        if betas is None:
            rw = bids.unchecked_population_bids(cfg.strategies, strat, w, draws.G, U, bid_class=bid_class)
        else:
            rw = _class_bids(strat, bid_class, w, U, betas)
        u, summary = run(rw, bids.population_stay(cfg.strategies, strat, bid_class, L) if leaves else None)
        if by_job:  # a job's agent sum is ``u + 0.0``, which adds to a bin as ``u`` does (``_strategy_sums``)
            u_agent, s_agent = u, strat
        else:
            u_agent = np.bincount(agent, weights=u, minlength=n_agents)
            s_agent = np.zeros(n_agents, dtype=np.int64)
            s_agent[agent] = strat
        counts, sum_u, sum_u0 = _strategy_sums(s_agent, u_agent, u0_agent, S)
        n_by_agent = counts.tolist()
        out.append(
            {
                "mixture": [float(v) for v in x],
                "seed": int(seed),
                "n_agents": n_by_agent,
                "n_jobs": list(n_by_agent) if by_job else np.bincount(strat, minlength=S).tolist(),
                "sum_u": sum_u.tolist(),
                "sum_u0": sum_u0.tolist(),
                "agents": n_agents,
                "sum_u0_all": u0_all,
                "revenue": summary["revenue"],
                "utilization": summary["utilization"],
                "welfare": summary["welfare"],
                "probe": probe,
                **{k: summary[k] for k in OUTSIDE_FIELDS if k in summary},
            }
        )
    seconds = time.perf_counter() - t0
    for r in out:
        r["chunk_seconds"] = seconds / len(out)
    return out


def check_chunk(arrays, mechanism, mixtures, cfg) -> dict:
    """:func:`run_chunk`'s arguments checked, its mechanism as a dict: an :class:`InputError` naming what is
    wrong, where a NaN or a negative share gave payoffs (finite, or NaN), three shares for two rules numbers, and a
    short column or a mechanism without a reserve a bare numpy or Python error."""
    if isinstance(mechanism, Mechanism):
        mechanism = mechanism.describe()
    if not isinstance(mechanism, dict) or market_for(mechanism) is None:
        raise InputError(
            f"run_chunk: mechanism must be a provider strategy's parameters (a dict such as {{'scheduler': 'hb', "
            f"'payment': 'first', 'reserve': 1.0}}) or a Mechanism, got {shown_value(mechanism)}"
        )
    if mechanism.get("kind", "scheduling") == "scheduling":
        missing = [k for k in ("scheduler", "payment", "reserve") if k not in mechanism]
        if missing:
            raise InputError(f"run_chunk: mechanism {shown_value(mechanism)} lacks {', '.join(map(repr, missing))}")
        Mechanism(mechanism["scheduler"], mechanism["payment"], mechanism["reserve"], blend=mechanism.get("blend"))
    if not isinstance(cfg, PopulationConfig):
        raise InputError(f"run_chunk: cfg must be a PopulationConfig, got {type(cfg).__name__}")
    _check_arrays(arrays, mechanism)
    if isinstance(mixtures, (str, dict)) or not hasattr(mixtures, "__len__") or len(mixtures) == 0:
        raise InputError(f"run_chunk: mixtures must be a non-empty list of mixtures, got {shown_value(mixtures)}")
    for k, x in enumerate(mixtures):
        check_mixture(x, len(cfg.strategies), f"run_chunk: mixtures[{k}]")
    return mechanism


def _check_arrays(arrays, mechanism: dict) -> None:
    """The prepared workload of a chunk: a dict of the market's arrays, holding what the market reads to size it.
    The scheduling market's arrays are job columns, one length each; another market's shapes are its own (the
    pricing market's capacities ``R`` are one per resource: a check of one length for every array refused every
    pricing study), checked where it prepared them."""
    if not isinstance(arrays, dict):
        raise InputError(f"run_chunk: arrays must be a dict of job columns, got {type(arrays).__name__}")
    market = market_for(mechanism)
    try:
        n = market.size(arrays)
    except KeyError as exc:
        raise InputError(f"run_chunk: arrays lacks column {exc.args[0]!r} (have {sorted(arrays)})") from None
    if getattr(market, "kind", None) != "scheduling":
        return
    for name, column in arrays.items():
        rows = np.shape(column)[0] if np.ndim(column) else None
        if rows != n:
            raise InputError(f"run_chunk: arrays[{name!r}] has {rows} rows, the other columns {n}; expected one length")


#: how far a population mixture's shares may stray by rounding: their sum from 1, and a share below 0
MIXTURE_TOL = 1e-9


def check_mixture(x, rules: int, what: str) -> np.ndarray:
    """A population mixture: one finite share >= 0 per rule, summing to 1 (within :data:`MIXTURE_TOL`), as floats;
    else an :class:`InputError` naming ``what`` and the value."""
    try:
        arr = np.asarray(x) if not isinstance(x, (str, dict)) else None
    except (TypeError, ValueError):
        arr = None
    ok = arr is not None and arr.dtype.kind in "iuf" and arr.shape == (rules,)
    if ok:
        arr = arr.astype(float)
        ok = bool(np.isfinite(arr).all() and (arr >= -MIXTURE_TOL).all() and abs(arr.sum() - 1.0) <= MIXTURE_TOL)
    if not ok:
        raise InputError(
            f"{what} must be {rules} shares (one per rule: finite, >= 0, summing to 1), got {shown_value(x)}"
        )
    return arr


#: the all-truthful baselines this process ran, by (workload, nodes, mechanism, seed, bids): each a float array of
#: the jobs' utilities (1.7 MB at LPC's 214,322 jobs), at most ``MAX_BASELINE_BYTES`` of them (the newest always)
BASELINES: dict = {}
#: 128 MiB: 78 of LPC's baselines, more than its 8 mechanisms x 6 seeds. A study asks for every (mechanism, seed)
#: in each round (the grid, the candidates, the joint points): a bound of 16 baselines, under its 32 pairs, had
#: each round run every baseline again
MAX_BASELINE_BYTES = 128 << 20


def slice_assign(draw: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``bids.assign(draw, lo, hi)`` (each agent's strategy from its uniform draw and the slices of
    ``bids.population_slices``) in one compiled pass: with a handful of slices, comparing each draw with every
    upper edge costs less than a binary search per draw or sorting the draws (a tenth of the time on LPC)."""
    order = np.lexsort((hi, lo))  # as ``assign``: by lower edge, so the upper edges ascend
    return _slice_assign(np.ascontiguousarray(draw, np.float64), np.ascontiguousarray(hi[order], np.float64), order)


@njit(cache=True)
def _slice_assign(draw, edges, order):
    # ``assign``'s ``searchsorted(edges, d, side="right")`` capped at the last slice is the number of the first
    # m - 1 ascending edges at or below ``d``: a count without branches, which the compiler vectorises
    n, m = len(draw), len(edges)
    out = np.empty(n, np.int64)
    for i in range(n):
        k = 0
        d = draw[i]
        for j in range(m - 1):
            k += edges[j] <= d
        out[i] = order[k]
    return out


def class_betas(strategies) -> np.ndarray | None:
    """Every strategy's beta per private-bid class as an (S, 3) table, where each of them shades that way
    (``betas_by_class``; ``bids.population_bids``' table lookup), else None."""
    by_class = [s.betas_by_class for s in strategies]
    if any(b is None for b in by_class):
        return None
    table = np.array(by_class, dtype=float).reshape(len(strategies), -1)
    # the compiled lookup does not check its indices: only a table with a column for each class a bid can have
    return np.ascontiguousarray(table) if table.shape[1] == len(bids.BID_CLASSES) else None


@njit(cache=True)
def _class_bids(strategy, bid_class, w, U, betas):
    # ``population_bids``' ``w * (1.0 - betas[strategy, bid_class] * U)``, job by job: the same three operations on
    # the same operands (numba contracts no multiply-add without fastmath), so the same bits
    out = np.empty(len(w))
    for i in range(len(w)):
        out[i] = w[i] * (1.0 - betas[strategy[i], bid_class[i]] * U[i])
    return out


@njit(cache=True)
def _strategy_sums(s_agent, u_agent, u0_agent, S):
    # ``bincount(s_agent, minlength=S)`` and ``bincount(s_agent, weights=..., minlength=S)`` of both utilities in one
    # pass: bincount adds the weights to zeroed bins in index order, as here, so the sums have the same bits. A bin
    # is never -0.0 (it starts at 0.0), so adding -0.0 or 0.0 leaves it the same: ``u`` sums as ``u + 0.0`` does
    count = np.zeros(S, np.int64)
    su = np.zeros(S)
    su0 = np.zeros(S)
    for i in range(len(s_agent)):
        s = s_agent[i]
        count[s] += 1
        su[s] += u_agent[i]
        su0[s] += u0_agent[i]
    return count, su, su0


def _market(arrays: dict, nodes: int, provider: dict, n: int, private: np.ndarray, outside: float | None = None):
    """``run(reported, stay=None) -> (utility per job, provider summary)`` in the provider's market
    (``gamemarket.market.base``: the scheduling market or the pricing market), for runs with the same
    ``private`` bids (the market's ``payoff_runner``: it computes once what they share, and only what a record
    reads); the jobs with ``stay`` False take the outside option at price ``outside``
    (``gamemarket.market.outside``)."""
    group = np.zeros(n, dtype=np.int64)
    one = outside_runner(market_for(provider), arrays, nodes, provider, private, outside)
    return lambda rw, stay=None: one(rw, group, stay)


def payoffs_of(rec: dict) -> np.ndarray:
    """Each strategy's estimated payoff in one run (control-variate estimator; NaN for an empty slice)."""
    n = np.asarray(rec["n_agents"], dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = (np.asarray(rec["sum_u"]) - np.asarray(rec["sum_u0"])) / n
    return np.where(n > 0, diff + rec["sum_u0_all"] / rec["agents"], np.nan)


# ---------------------------------------------------------------------------- the study's runs
_connected: str | None = None  #: the scheduler :func:`on_scheduler` is connected to in this process


@contextlib.contextmanager
def on_scheduler(address: str | None):
    """Run joblib's work inside this block on the dask scheduler at ``address`` (None: local workers), with one
    client for every :meth:`PopulationRuns.ensure` inside it (a nested block reuses it).

    Raises
    ------
    InputError
        An address that is not one, a scheduler that does not answer, or no dask.distributed installed: here,
        on entering, even where the block then finds every run stored (the option is never ignored).
    """
    global _connected
    if address is None or _connected == address:
        yield
        return
    with parallel_backend(address):
        _connected = address
        try:
            yield
        finally:
            _connected = None


def _check_user_ids(users: np.ndarray, path, workload: str) -> None:
    """A users' game's agents are the trace's user numbers (SWF field 12): natural numbers, or -1 for unknown (all of
    them one agent). Another negative number is no user (hunt 22b-W11: a job of user -2 was counted as an 11th user
    and carried the study past its fewest users): refused, naming it."""
    bad = users < -1
    if bad.any():
        values = np.unique(users[bad])
        raise InputError(
            f"{path}: [game] field 'agents' = 'users': the workload {workload} has {int(bad.sum()):,} job(s) of user "
            f"number {', '.join(str(v) for v in values[:5])}{', ...' if len(values) > 5 else ''} (SWF field 12); "
            "expected a user number >= 0, or -1 for an unknown user (all of them counted as one user)"
        )


class PopulationRuns:
    """A population study's runs: their keys, running what is missing (resumably, in parallel), reading them.

    Parameters
    ----------
    spec : StudySpec
        The study (``spec.population`` its ``[game]`` table).
    workload : PreparedWorkload
        The study's workload as its market prepares it (``gamemarket.studies.runner.load_workload``).
    n_jobs : int
        Worker processes for the runs (joblib).
    progress : bool
        Show a progress bar while running.
    run : bool
        Run what is missing; with False a run that is not stored yet is an :class:`InputError`.
    scheduler_address : str, optional
        A dask.distributed scheduler to run on instead of local workers (``n_jobs`` is then unused): the
        chunks run on its workers and come back to this process, which stores them, so the workers need
        no shared file system. A chunk's numbers are a function of its inputs alone (common random
        numbers from the seed), so they are the same as a local run's.
    """

    def __init__(
        self,
        spec,
        workload: PreparedWorkload,
        *,
        n_jobs: int = 1,
        progress: bool = False,
        run: bool = True,
        scheduler_address: str | None = None,
    ):
        self.spec = spec
        self.cfg: PopulationConfig = spec.population
        market = MARKETS.get(workload.market)
        users = workload.source.jobs["user"].to_numpy(np.int64) if market.has_users else None
        self.meta = {
            "workload": Path(str(workload_source(workload.meta))).name,
            "jobs": workload.jobs,
            "nodes": workload.nodes,
            "users": int(len(np.unique(users))) if users is not None else None,
        }
        if users is None and self.cfg.agents != "jobs":
            raise InputError(
                f"study {spec.name!r}: the {market.kind} market ({market.description}) has no users; "
                "use agents = 'jobs'"
            )
        if self.cfg.agents == "users":
            _check_user_ids(users, spec.path, self.meta["workload"])
        if self.cfg.agents == "users" and self.meta["users"] < MIN_USERS:
            raise InputError(
                f"{spec.path}: [game] field 'agents' = 'users': the workload {self.meta['workload']} has "
                f"{self.meta['users']:,} user(s) (SWF field 12; -1, unknown, counts as one), fewer than {MIN_USERS}: "
                "so few agents cannot realise the reduced game's mixtures (each is a share 1/n of the population); "
                "use agents = 'jobs'"
            )
        self.arrays = (
            dict(workload.arrays) if users is None else {**workload.arrays, "user": np.ascontiguousarray(users)}
        )
        self.nodes = workload.nodes
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
        self.n_jobs = plugins.local_workers(spec.played_params(), n_jobs, scheduler_address, f"study {spec.name!r}")
        self.progress = progress
        self.run = run
        self.scheduler_address = scheduler_address
        #: the processes that ran this study's chunks: 1 (this one: no pool paid for its start), the most local
        #: workers a fan-out used (``workers.fan_out``), or ``"dask"``; ``last-run.json`` records it
        self.workers: int | str = 1
        self.runs_done = 0  #: stored runs made (each chunk of runs also makes one all-truthful baseline run)
        self.chunks_done = 0
        #: every (mechanism, mixture, seed, paired) an analysis has read: the simulations used (two a paired record)
        self.requested: set = set()

    def key(self, provider, x, seed, paired: bool = False) -> str:
        """The stored-run key of ``provider`` at population mixture ``x`` with ``seed``; ``paired``: the paired record
        of every rule's gain against ``x`` (``gamemarket.studies.deviations.paired_record``), not the run at ``x``."""
        fields = {**self.base, "provider": provider.params(), "mixture": list(mix_key(x)), "seed": int(seed)}
        if paired:
            fields["estimator"] = PAIRED_ESTIMATOR
        return task_key({**fields, **plugins.key_fields(provider.params())})  # a plugin's entries: its hash

    def ensure(self, wanted: dict, paired: bool = False) -> None:
        """Run what is missing of ``{(provider name, seed): [mixtures]}`` (chunked per mechanism and seed): the runs at
        the mixtures, or with ``paired`` their paired records (a base run and a shared deviation run each)."""
        provs = {p.name: p for p in self.spec.providers}
        todo = []
        for (pname, seed), mixes in wanted.items():
            self.requested.update((pname, mix_key(x), int(seed), paired) for x in mixes)
            missing = [
                m
                for m in dict.fromkeys(mix_key(x) for x in mixes)
                if self.store.read(
                    self.key(provs[pname], m, seed, paired), set_aside_bad=self.run, name_bad=not self.run
                )
                is None
            ]
            if missing:
                todo.append((pname, seed, missing))
        if not todo:
            return
        if not self.run:
            n = sum(len(m) for *_, m in todo)
            raise InputError(
                f"study {self.spec.name!r}: {n} population runs are not stored yet; run "
                f"`{self.spec.run_command()}` first"
            )
        remote = self.scheduler_address is not None
        root = None if remote else str(self.spec.results_dir)  # across machines the parent stores the runs
        calls = [
            (
                _chunk_task,
                (
                    self.arrays,
                    self.nodes,
                    provs[p].params(),
                    s,
                    mixes,
                    self.cfg,
                    self.spec.bids,
                    root,
                    [self.key(provs[p], m, s, paired) for m in mixes],
                    None if remote else os.getpid(),
                    self.base["workload"],
                    paired,
                ),
            )
            for p, s, mixes in todo
        ]
        # the least a chunk takes: its mixtures' runs at the least time per job and run (its baseline may be kept)
        runs_each = 2 if paired else 1  # a paired record: its base run and its deviation run
        least = runs_each * sum(len(m) for *_, m in todo) * self.meta["jobs"] * LEAST_SECONDS_PER_JOB_RUN / len(todo)
        bar = None
        if self.progress:
            from tqdm.auto import tqdm  # deferred: only a run with a progress bar needs it

            bar = tqdm(total=sum(len(m) for *_, m in todo), unit="run", desc=self.spec.name)
        used = [1]
        with on_scheduler(self.scheduler_address):
            names = [f"{p}, seed {s}, {len(mixes)} mixture(s)" for p, s, mixes in todo]
            for done in fan_out(calls, self.n_jobs, least_each=least, remote=remote, used=used, names=names):
                for key, rec in done:
                    if rec is not None:  # computed on a dask worker: stored here
                        self.store.write(key, rec)
                self.runs_done += runs_each * len(done)
                self.chunks_done += 1
                if bar is not None:
                    bar.update(len(done))
        self.workers = most_workers(self.workers, used[0])
        if bar is not None:
            bar.close()

    def records(self, provider, seeds, x, paired: bool = False) -> list[dict]:
        """The stored runs of ``provider`` at mixture ``x`` (``paired``: their paired records), one per seed; a
        missing one is an :class:`InputError` that says to run the study.
        """
        out = []
        for s in seeds:
            rec = self.store.read(self.key(provider, x, s, paired), set_aside_bad=self.run, name_bad=not self.run)
            if rec is None:
                raise InputError(
                    f"study {self.spec.name!r}: no stored run for {provider.name}, mixture {list(x)}, "
                    f"seed {s}; run `{self.spec.run_command()}` first"
                )
            out.append(rec)
        return out


def run_paired_chunk(arrays: dict, nodes: int, mechanism: dict, seed: int, mixtures: list, cfg, distribution) -> list:
    """The paired record of every mixture of one (mechanism, seed): every rule's gain against it, by a base run and
    one deviation run in which each rule has a block of probe agents of its own
    (``gamemarket.studies.deviations.paired_record``, the study's ``probe``)."""
    t0 = time.perf_counter()
    s = SeedRuns(arrays, nodes, mechanism, seed, distribution, cfg.agents, cfg.outside_price)
    out = [paired_record(s, cfg.strategies, x, cfg.probe) for x in mixtures]
    for r in out:
        r["chunk_seconds"] = (time.perf_counter() - t0) / len(out)
    return out


def _chunk_task(
    arrays,
    nodes,
    provider_params,
    seed,
    mixtures,
    cfg,
    distribution,
    root,
    keys,
    parent_pid,
    workload_key=None,
    paired: bool = False,
) -> list:
    """Run one chunk (:func:`run_chunk`, or :func:`run_paired_chunk` with ``paired``): with a results folder ``root``
    (local workers) store each run here and return ``(key, None)`` pairs; without one (dask workers on other
    machines) return ``(key, record)`` pairs for the parent to store."""
    exit_with_parent(parent_pid)  # never write results for a run that was killed
    if paired:
        recs = run_paired_chunk(arrays, nodes, provider_params, seed, mixtures, cfg, distribution)
    else:
        recs = run_chunk(arrays, nodes, provider_params, seed, mixtures, cfg, distribution, workload_key)
    if root is None:
        return list(zip(keys, recs))
    store = PopulationStore(root)
    for rec, key in zip(recs, keys):
        if parent_gone(parent_pid):  # the run was killed while this chunk computed: store nothing more
            os._exit(1)
        store.write(key, rec)
    return [(key, None) for key in keys]


#: the fewest users a population game of users is played by: each agent is a share 1/n of the population, and with
#: fewer the reduced game's mixtures are not realised (2 users ran the mixture 0.75/0.25 as 1/1, reported as
#: verified; 1 user failed with "1 probe slices of 1.0 leave no room for the mixture": hunt 21c-F2)
MIN_USERS = 10


def probe_used(cfg, n_agents: int) -> float:
    """The share of the agents a probe slice holds in a run: ``[game] probe``, or one agent where the players are
    users and one is more than that share (``1 / n_agents``): what the runs use and the report says."""
    return max(cfg.probe, 1.0 / max(n_agents, 1)) if cfg.agents == "users" else cfg.probe


def answer_tables(spec, names) -> dict:
    """The study file's tables ``names`` as a stored answer's key holds them (an exploration's, a design's): every
    ``description`` left out, at any depth (a provider's, a shading rule's): report text, which no answer depends on
    (hunt 20d-W6: a design answer was "not current: the study's tables changed" after a rule's description was
    edited, and the report refused until the study was run again)."""
    d = spec.to_dict()
    return {k: _without_descriptions(d.get(k)) for k in names}


def _without_descriptions(value):
    """``value`` (a study table as ``StudySpec.to_dict`` gives it) with every mapping's ``description`` left out."""
    if isinstance(value, dict):
        return {k: _without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


def study_inputs(spec) -> dict:
    """What a population study's cached answers depend on beyond its file's tables, as its runs' keys do: the
    plugins' text (their hashes) and the workload's content (a trace or a model edited in place, as
    ``PopulationRuns.base["workload"]``). The rule of the analysis's key (``gamemarket.analysis.population_cache``)
    and the exploration's (the design's answer key holds the same two, by its own code) (hunt 20a-F7: the analysis had
    neither, and served the answer of a plugin or a trace as it was before an edit)."""
    # entries registered from Python, by their definitions (hunt 24a-F5: an edited rule's old answer was served); a
    # study without any keeps the key it had
    entries = sorted({d for p in spec.providers for d in plugins.key_fields(p.params()).get("plugins", []) if ":" in d})
    return {
        "plugins": sorted(p.digest for p in spec.plugins),
        "workload_content": PopulationRuns(spec, load_workload(spec), run=False).base["workload"],
    } | ({"entries": entries} if entries else {})
