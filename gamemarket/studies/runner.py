"""Run a study: every (provider strategy, consumer strategy, seed) is one task, fanned out with joblib.

The workload is parsed once; its arrays go to the workers (joblib memory-maps large arrays for
local processes). Tasks already in the store are skipped; each finished task is stored at once,
so a killed study resumes where it stopped. Every task's numbers depend only on its inputs and
seed, so ``n_jobs=1``, ``n_jobs=2`` and a dask cluster give identical results.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
from joblib import parallel_config

from gamemarket import MODEL_VERSION, __version__, bids, plugins
from gamemarket.consumers import ConsumerStrategy, bid_bin_codes
from gamemarket.errors import InputError, WorkerLost, check_flag, shown_value, worker_died
from gamemarket.io.files import shown_path, special_kind
from gamemarket.io.limits import check_fits, check_workers
from gamemarket.io.names import workload_source
from gamemarket.market import payoffs
from gamemarket.market.base import PreparedWorkload, market_for, market_for_workload
from gamemarket.studies.scheduler import identify
from gamemarket.studies.spec import StudySpec
from gamemarket.studies.store import NOT_STORED, RESULTS_FORMAT, ResultStore, content_hash, study_store, task_key
from gamemarket.workers import LEAST_SECONDS_PER_JOB_RUN, exit_with_parent, fan_out, parent_gone


@dataclass(frozen=True)
class Task:
    """One simulation of a study: a provider strategy x a consumer strategy x a seed, with its stored result's
    key. ``strategy`` is the consumer strategy itself (``gamemarket.consumers``): the worker calls it."""

    provider: str
    consumer: str
    seed: int
    key: str
    provider_params: dict
    strategy: ConsumerStrategy


_WORKLOADS: dict[str, tuple] = {}  # the last few workloads loaded, by study file and [workload] table
WORKLOAD_CACHE = 4


def load_workload(spec: StudySpec) -> PreparedWorkload:
    """The study's workload as its market prepares it (``Market.prepare``), parsed once per process:
    running, checking, and reporting a study (and its companions) all read the same object. The key
    is the study file, its whole ``[workload]`` table and the state of the files it names (a trace or a model
    rewritten in place: its size and modification time), so a changed table or file loads again (hunt 20a-F7: a
    trace rewritten between two runs in one process was the old one's workload)."""
    files = [_file_state(v) for v in spec.workload.values() if isinstance(v, str)]
    key = json.dumps({"study": str(spec.path), "workload": spec.workload, "files": files}, sort_keys=True, default=str)
    hit = _WORKLOADS.pop(key, None)
    if hit is None:
        hit = _load_workload(spec)
    _WORKLOADS[key] = hit  # most recently used last
    while len(_WORKLOADS) > WORKLOAD_CACHE:
        _WORKLOADS.pop(next(iter(_WORKLOADS)))
    return hit


def _file_state(value: str) -> list | None:
    """A workload field's file, as a cache key holds it: its size and modification time, or None (no such file: an
    archive's name, ``synthetic``)."""
    try:
        st = os.stat(value)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns]


def _load_workload(spec: StudySpec) -> PreparedWorkload:
    return market_for_workload(spec.workload["source"]).prepare(spec.workload)


#: bytes one task of a plan holds (its key, its strategies' parameters): 403 measured on a plan of 6,000
#: (``tracemalloc``), rounded up
TASK_BYTES = 512


def planned_runs(spec: StudySpec) -> int:
    """The runs of a provider/consumer study's plan (:func:`plan`): one per provider, consumer strategy and seed."""
    return len(spec.providers) * len(spec.consumers) * len(spec.seeds)


#: a provider/consumer study of more runs than this has its plan said before its runs (:func:`runs_plan_text`)
PLAN_SAY_RUNS = 1_000


def runs_plan_text(spec: StudySpec) -> str:
    """What a provider/consumer study runs, in one line said before its runs (hunt 31a-W2: 39,204 runs began with not
    a line said where stderr was no terminal): its profiles x seeds = runs, as :func:`plan` makes them."""
    p, c, s = len(spec.providers), len(spec.consumers), len(spec.seeds)
    return (
        f"study {spec.name}: {p} mechanism(s) x {c:,} consumer strategies = {p * c:,} profiles x {s:,} seed(s) = "
        f"{planned_runs(spec):,} runs, those already stored kept (Ctrl-C or `study run --time-limit SECONDS` keeps "
        "every finished run; the same command resumes)"
    )


def plan(spec: StudySpec, arrays: dict[str, np.ndarray], nodes: int) -> list[Task]:
    """All tasks of a study, each with the key of its stored result. A plan larger than the memory allows
    (:func:`~gamemarket.io.limits.check_fits`: a 4 KB study file of a 100 x 100 grid and 100,000 seeds is 3e9 runs)
    is an :class:`InputError` before any is made (hunt 16a: a MemoryError traceback, a minute's wait)."""
    runs = planned_runs(spec)
    check_fits(
        runs * TASK_BYTES,
        f"study {spec.name!r}: a plan of {runs:,} runs ({len(spec.providers)} providers x {len(spec.consumers):,} "
        f"consumer strategies x {len(spec.seeds):,} seeds)",
    )
    base = {
        "model": MODEL_VERSION,
        "results": RESULTS_FORMAT,
        "workload": content_hash(arrays),
        "nodes": nodes,
        "bids": {"components": spec.bids.components, "lo": spec.bids.lo, "hi": spec.bids.hi},
    }
    tasks = []
    for p in spec.providers:
        for c in spec.consumers:
            for s in spec.seeds:
                fields = {
                    **base,
                    "provider": p.params(),
                    "consumer": c.params(),
                    "seed": s,
                    **market_for(p.params()).key_fields(),
                    **plugins.key_fields(p.params()),  # a plugin's entries: its text's hash
                }
                tasks.append(Task(p.name, c.name, s, task_key(fields), p.params(), c))
    return tasks


def run_task(
    arrays: dict[str, np.ndarray],
    nodes: int,
    provider: dict,
    consumer: ConsumerStrategy,
    seed: int,
    distribution: bids.BidDistribution,
) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """One simulation in either market: (flat metrics, binned aggregates, cohort sums). Pure: same inputs,
    same numbers. The market comes from the provider's kind (``gamemarket.market.base.MARKETS``); the
    bids (``consumer.reported_bids``) and the payoffs are computed the same way for both."""
    return run_tasks(arrays, nodes, [provider], consumer, seed, distribution)[0]


def run_tasks(
    arrays: dict[str, np.ndarray],
    nodes: int,
    providers: list[dict],
    consumer: ConsumerStrategy,
    seed: int,
    distribution: bids.BidDistribution,
) -> list[tuple[dict, pd.DataFrame, pd.DataFrame]]:
    """The simulations of several provider strategies against one consumer strategy and seed, one result each
    as ``run_task`` returns it, and equal to it.

    The bids are drawn once, and the market shares what it can between the providers
    (``Market.run_many``: under every scheduler the schedule depends only on the reported bids, so one
    engine pass pays every payment scheme and reservation price). Each result's ``task_seconds`` is
    its share of the group's time: the shared work split evenly, plus its own payoffs."""
    t0 = time.perf_counter()
    by_market: dict[str, list[int]] = {}
    for i, p in enumerate(providers):
        by_market.setdefault(market_for(p).kind, []).append(i)
    betas = consumer.group_betas()
    out: list = [None] * len(providers)
    for kind, idx in by_market.items():
        market = market_for(providers[idx[0]])
        draws = bids.draw(market.size(arrays), seed, distribution=distribution)
        w = draws.private_bid
        group, reported = consumer.reported_bids(w, bid_bin_codes(w), draws.G, draws.U)
        runs = market.run_many(arrays, nodes, [providers[i] for i in idx], draws.private_bid, reported, group)
        cells = payoffs.Cells.of(runs[0].jobs, draws.G, draws.private_bid)  # the same for every run here
        shared = (time.perf_counter() - t0) / len(idx)
        for i, run in zip(idx, runs):
            t1 = time.perf_counter()
            metrics, binned, cohorts = payoffs.of_run(run, betas, draws.G, draws.private_bid, cells=cells)
            metrics["task_seconds"] = shared + time.perf_counter() - t1
            out[i] = (metrics, binned, cohorts)
        t0 = time.perf_counter()
    return out


def _task_info(task: Task, nodes: int) -> dict:
    return {
        "provider": task.provider,
        "consumer": task.consumer,
        "seed": task.seed,
        "provider_params": task.provider_params,
        **task.strategy.params(),
        "nodes": nodes,
        "version": __version__,
        "model": MODEL_VERSION,
    }


def _run_group(tasks: list[Task], arrays, nodes, distribution, store_root, parent_pid=None):
    """Run the tasks of one consumer mix and seed (``run_tasks``); with a shared file system (local
    workers) the worker stores each result, across machines (dask) the parent does. The results also
    travel back (a few hundred rows each), so the parent writes the study's consolidated tables without
    reading every file again. A local worker ends itself when the parent is gone
    (``workers.exit_with_parent``)."""
    exit_with_parent(parent_pid)
    first = tasks[0]
    results = run_tasks(arrays, nodes, [t.provider_params for t in tasks], first.strategy, first.seed, distribution)
    out = []
    for task, (metrics, binned, cohorts) in zip(tasks, results):
        if store_root is not None:
            if parent_gone(parent_pid):  # the run was killed while this one computed: store nothing more
                os._exit(1)
            ResultStore(store_root).write(task.key, metrics, binned, _task_info(task, nodes), cohorts)
        out.append((task, metrics, binned, cohorts, store_root is not None))
    return out


def task_groups(tasks: list[Task]) -> list[list[Task]]:
    """Tasks that share a consumer strategy (by its parameters) and a seed, in plan order: each group draws its
    bids once and runs as one job (``run_tasks``)."""
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault((t.strategy.key(), t.seed), []).append(t)
    return list(groups.values())


#: seconds to wait for a dask scheduler before saying it cannot be reached
CONNECT_TIMEOUT_S = 10


@contextlib.contextmanager
def parallel_backend(scheduler_address: str | None):
    """joblib's backend for the runs inside: the local processes (``None``), or the dask scheduler at
    ``scheduler_address``, connected once (an address no scheduler answers is an :class:`InputError`)."""
    if scheduler_address is None:
        yield None
        return
    identify(scheduler_address)  # parsed and asked who it is, each step bounded: Client itself can wait forever
    from dask.distributed import Client  # deferred: dask (identify has said where it is missing)

    try:
        client = Client(scheduler_address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        raise InputError(
            f"--scheduler-address {scheduler_address}: no dask scheduler answered within "
            f"{CONNECT_TIMEOUT_S} s ({type(exc).__name__}); is it running and reachable?"
        ) from None
    _check_workers(client, scheduler_address)
    # dask's own log (a stream closed while the client shuts down after a failed run, say) prints tracebacks on
    # stderr: the command says what went wrong in its one line, so dask's log is kept to its critical errors
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        with client, parallel_config(backend="dask"):
            yield client
    finally:
        log.setLevel(level)


def _check_workers(client, scheduler_address: str) -> None:
    """Wait up to :data:`CONNECT_TIMEOUT_S` for the scheduler's first worker; a scheduler with none is an
    :class:`InputError` saying how to start one (joblib's own message, raised from inside the first run, named a
    Python call, ``parallel_config(..., wait_for_workers_timeout=20)``, to a user of the command line)."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        status = str(getattr(client, "status", "running"))
        client.close()
        if status != "running":  # (the scheduler went away: "no worker joined" blamed the workers; hunt 19a-W4)
            raise InputError(
                f"--scheduler-address {scheduler_address}: the dask scheduler there stopped answering before a worker "
                f"joined (the connection is {status}); start it again and run again: finished runs are kept"
            ) from None
        raise InputError(
            f"--scheduler-address {scheduler_address}: the dask scheduler there has no worker (none joined within "
            f"{CONNECT_TIMEOUT_S} s: {type(exc).__name__}); start one (dask worker {scheduler_address}) and run "
            "again: finished runs are kept"
        ) from None


def run_study(
    spec: StudySpec,
    *,
    n_jobs: int = 1,
    scheduler_address: str | None = None,
    progress: bool = True,
    store: ResultStore | None = None,
    force: bool = False,
) -> StudyRun:
    """Run every unfinished task of a study and store each result as it finishes.

    The results folder must be the study's own, or new (``force``: use another; see ``ResultStore``).
    Returns a small report: tasks total, skipped (already stored), run, wall seconds.
    """
    check_spec(spec, "run_study")
    check_workers(n_jobs, "run_study: n_jobs")
    check_flag(progress, "run_study: progress")
    check_flag(force, "run_study: force")
    if store is not None and not isinstance(store, ResultStore):  # (a text was an AttributeError on .lock)
        raise InputError(
            f"run_study: store must be a ResultStore (or None: the study's own), got {shown_value(store)} "
            f"({type(store).__name__})"
        )
    if scheduler_address is not None:  # before the lock: an address that is not a scheduler holds nothing
        identify(scheduler_address)
    prep = load_workload(spec)
    tasks = plan(spec, prep.arrays, prep.nodes)
    n_jobs = plugins.local_workers(spec.played_params(), n_jobs, scheduler_address, f"study {spec.name!r}")
    store = store or study_store(spec, force=force)
    with store.lock():
        return _run_plan(tasks, prep, spec.bids, store, n_jobs, scheduler_address, spec.name if progress else None)


@dataclass
class StudyRun:
    """What one ``run_study`` did: tasks planned, skipped (already stored) and run now, its wall time and the
    summed simulation time, and the workload it ran on. ``workers``: the processes that ran them (1 where the
    study was too small for a pool to pay, whatever ``n_jobs`` asked; ``"dask"`` on a cluster). ``to_dict()``
    is the ``last-run.json`` record."""

    tasks: int
    skipped: int
    run: int
    wall_seconds: float
    task_seconds: float
    nodes: int
    n_jobs: int | str
    workload: str | None
    workload_sha256: str | None
    jobs: int
    finished: str
    workers: int | str = 1

    def to_dict(self) -> dict:
        """The run's record as a dict (``last-run.json``)."""

        return asdict(self)


class StoredResults(NamedTuple):
    """A study's stored results: one row of payoffs per task, the binned sums (or None), and metadata."""

    metrics: pd.DataFrame
    bins: pd.DataFrame | None
    meta: dict


def _group_results(groups, arrays, nodes, jobs, distribution, store, n_jobs, scheduler_address, workers):
    """Each group's results (``_run_group``) as it finishes: on the dask cluster, else in local workers where a
    pool pays, else in this process (``workers.fan_out``). ``jobs``: the workload's; ``workers`` (a one-item list)
    is set to the processes used.

    The least a group can take is its runs' job counts at the least time per job and run
    (``LEAST_SECONDS_PER_JOB_RUN``): where even that pays for a pool, no group is timed first (that would leave
    the other workers idle for a group's time). Job counts alone cannot decide: the same number of jobs costs
    several times more on a congested workload than on a quiet one. Every task's numbers depend only on its
    inputs and seed, so where a group runs changes none of them."""
    if scheduler_address:
        calls = [(_run_group, (g, arrays, nodes, distribution, None, None)) for g in groups]
        yield from fan_out(calls, -1, remote=True, used=workers)
        return
    least = sum(map(len, groups)) * jobs * LEAST_SECONDS_PER_JOB_RUN / max(len(groups), 1)
    calls = [(_run_group, (g, arrays, nodes, distribution, store.root, os.getpid())) for g in groups]
    yield from fan_out(calls, n_jobs, least_each=least, used=workers)


def _run_plan(
    tasks: list[Task],
    prep: PreparedWorkload,
    distribution,
    store: ResultStore,
    n_jobs: int,
    scheduler_address: str | None,
    bar_name: str | None,
) -> StudyRun:
    """Run the tasks of a plan that the store does not hold, store each as it finishes, and index them (the
    consolidated tables); ``bar_name``: a progress bar's title, or None for no bar."""
    t0 = time.perf_counter()
    arrays, nodes = prep.arrays, prep.nodes
    # every task's own file is the record and is verified (a damaged one is set aside and run again); the
    # consolidated tables are an index of them, written again only where they are not complete and readable. Where
    # they do not vouch for the run files as they are now (none built yet, or a file changed since), every run file
    # is read whole here, so that one damaged past its footer (a row edited) is set aside and run again by this
    # command: found only while the tables were built, it ended the run in an error (asking for another run)
    keys = [t.key for t in tasks]
    rows = not store.verify_tables(plan_hash(tasks), keys)
    todo = [t for t in tasks if not store.has(t.key, set_aside=True, rows=rows)]
    tables_ok = not rows and not todo
    bar = None
    if bar_name is not None and todo:
        from tqdm.auto import tqdm  # deferred: tqdm

        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), unit="run", desc=bar_name)
    sim_seconds = 0.0
    workers = [1]
    with parallel_backend(scheduler_address):
        groups = task_groups(todo)
        results = _group_results(
            groups, arrays, nodes, prep.jobs, distribution, store, n_jobs, scheduler_address, workers
        )
        fresh = {}
        try:
            for done in results:
                for task, metrics, binned, cohorts, stored in done:
                    if not stored:
                        store.write(task.key, metrics, binned, _task_info(task, nodes), cohorts)
                    fresh[task.key] = (metrics, binned, cohorts)
                    sim_seconds += metrics["task_seconds"]
                if bar is not None:
                    bar.update(len(done))
        except Exception as exc:  # a dead worker: name the runs that were unfinished (one of them was its)
            if not worker_died(exc):
                raise
            lost = [t for t in todo if t.key not in fresh and not store.has(t.key)]
            raise WorkerLost([f"{t.provider} x {t.consumer} x seed {t.seed}" for t in lost]) from exc
    if bar is not None:
        bar.close()
    if not tables_ok:
        assemble_tables(tasks, store, fresh=fresh, set_aside=True)
    info = StudyRun(
        tasks=len(tasks),
        skipped=len(tasks) - len(todo),
        run=len(todo),
        wall_seconds=time.perf_counter() - t0,
        task_seconds=sim_seconds,
        nodes=nodes,
        n_jobs=n_jobs if not scheduler_address else f"dask {scheduler_address}",
        workers=workers[0],
        workload=prep.meta.get("source"),
        workload_sha256=prep.meta.get("sha256"),
        jobs=prep.jobs,
        finished=time.strftime("%Y-%m-%d %H:%M:%S"),
    )
    if todo:  # keep the figures of the run that computed the results
        store.write_record("last-run.json", info.to_dict())
    return info


def check_spec(spec, what: str) -> None:
    """``spec`` a :class:`StudySpec`, else an :class:`InputError` naming ``what`` and saying how to get one (a path
    given to ``run_study`` was an AttributeError on ``.path``)."""
    if not isinstance(spec, StudySpec):
        raise InputError(
            f"{what}: expected a StudySpec (gamemarket.studies.load_study(path) reads one; "
            f"gamemarket.workflow.{what} takes a path too), got {spec!r:.80}"
        )


def study_status(spec: StudySpec) -> dict:
    """How many of a study's tasks have a stored result that reads (``study``, ``tasks``, ``done``,
    ``missing``, ``tables``), and who writes them now (``writer``: ``ResultStore.writer``, or None).

    Each count is verified: a task counts as done when its own file, the record, reads (footer, metadata
    and key, and its rows where the consolidated tables do not vouch for the files as they are; a damaged one counts
    as missing, and ``study run`` sets it aside and runs it again: a status, a query, moves nothing), and ``tables``
    says whether the plan's consolidated tables are complete and read; ``unreadable`` how many of the missing are
    stored but do not read, ``first_bad`` the first one's file and why."""
    check_spec(spec, "study_status")
    if Path(spec.results_dir).exists() and not Path(spec.results_dir).is_dir():  # as study run and report say
        kind = special_kind(spec.results_dir) or "a file"  # (hunt 22b-W13: /dev/null was "a file")
        raise InputError(f"{spec.results_dir}: is {kind}; expected a results folder")
    store = ResultStore(spec.results_dir)
    prep = load_workload(spec)
    tasks = plan(spec, prep.arrays, prep.nodes)
    tables = store.verify_tables(plan_hash(tasks), [t.key for t in tasks])
    problems = [store.problem(t.key, rows=not tables) for t in tasks]  # (as ``study run`` counts)
    bad = [(t, r) for t, r in zip(tasks, problems) if r not in (None, NOT_STORED)]
    done = problems.count(None)
    return {
        "study": spec.name,
        "tasks": len(tasks),
        "done": done,
        "missing": len(tasks) - done,
        "unreadable": len(bad),  #: of the missing, those stored but not readable; the first named in ``first_bad``
        "first_bad": f"{shown_path(store.path(bad[0][0].key))}: {bad[0][1]}" if bad else None,
        "tables": tables,
        "writer": store.writer(),
        "results": str(spec.results_dir),
    }


def plan_hash(tasks: list[Task]) -> str:
    """A hash of a plan's task keys, with the names the tables give them, in order: the name of its consolidated
    tables. The names count: a strategy renamed in the study file (the same parameters, so the same stored runs)
    read the tables of its old name, and the payoff table had "no run" for the new one."""
    text = "\n".join(f"{t.key} {t.provider!r} {t.consumer!r}" for t in tasks)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def study_tables(
    spec: StudySpec, *, store: ResultStore | None = None, fresh: dict | None = None, tasks: list[Task] | None = None
):
    """A study's results as three tidy tables (``metrics``: one row per task; ``bins``; ``cohorts``), each
    with the task's ``provider``, ``consumer`` and ``seed`` first, in plan order.

    Read from the consolidated tables when stored (``ResultStore.read_tables``); else assembled from the
    per-task files (and ``fresh``: results of this run still in memory), then stored for the next read.
    ``tasks``: the study's plan, when the caller has it.
    Raises ``InputError`` when a task has no stored result yet, or one does not read (it is set aside, so
    ``study run`` runs it again).
    """
    store = store or study_store(spec)
    if tasks is None:
        prep = load_workload(spec)
        tasks = plan(spec, prep.arrays, prep.nodes)
    return assemble_tables(tasks, store, fresh=fresh, study=spec.name, run=spec.run_command())


def assemble_tables(
    tasks: list[Task], store: ResultStore, *, fresh: dict | None = None, study="", run="", set_aside: bool = False
):
    """:func:`study_tables` of a plan: the consolidated tables where the store holds them, else assembled from the
    per-task files (and ``fresh``) and stored. ``study``, ``run``: the study's name and the command that runs it
    (``StudySpec.run_command``), for messages. ``set_aside``: a damaged stored result is moved aside (``.corrupt``,
    what ``study run`` does, which runs its task again); by default (a reader: a report, ``load_results``) it is
    named in the error and left where it is."""
    name = plan_hash(tasks)
    fresh = fresh or {}
    keys = [t.key for t in tasks]
    tables = store.read_tables(name, keys)  # None where the run files are not those they were built from
    if tables is not None:
        return tables
    # an index of the stored runs, which are the record: runs removed since (to be run again) leave it stale
    gone = [t for t in tasks if t.key not in fresh and not store.path(t.key).exists()] if store.has_tables(name) else []
    if gone:
        warnings.warn(
            f"{store.tables_dir(name)}: the consolidated tables index {len(gone)} run(s) whose stored files are gone "
            f"(first: {store.path(gone[0].key).name}); they are not used",
            stacklevel=2,
        )
    missing = [t for t in tasks if t.key not in fresh and not store.has(t.key, set_aside=set_aside)]
    if missing:
        writer = None if set_aside else store.writer()  # (a reader: a run in progress is said, hunt 16b)
        then = (
            f"they are being written now by {writer}: wait for it"
            if writer
            else f"run `{run or 'gamemarket study run STUDY'}` first"
        )
        raise InputError(
            f"{_study(study)}{len(missing)} of {len(tasks)} runs have no stored result{_unreadable(store, missing)}; "
            f"{then}"
        )
    rows, bins, cohorts, bin_ids, cohort_ids = [], [], [], [], []
    for t in tasks:
        if t.key in fresh:
            metrics, b, c = fresh[t.key]
        else:
            try:
                metrics, b, c = store.read_all(t.key)
            except InputError:  # not readable here (no permission, an I/O error): named, never moved
                raise
            except Exception as exc:  # damage past the footer that ``has`` checks
                _damaged(store, t, exc, study, run, set_aside)
        ids = {"provider": t.provider, "consumer": t.consumer, "seed": t.seed}
        rows.append({**ids, **metrics})
        bins.append(b)
        bin_ids.append((ids, len(b)))
        if c is not None:
            cohorts.append(c)
            cohort_ids.append((ids, len(c)))
    tables = {
        "metrics": pd.DataFrame(rows),
        "bins": _with_ids(bins, bin_ids),
        "cohorts": _with_ids(cohorts, cohort_ids) if cohorts else pd.DataFrame(columns=["provider"]),
    }
    # what a read of the stored tables returns, dtypes included, whichever way they were assembled
    tables = {k: pa.Table.from_pandas(v, preserve_index=False).to_pandas() for k, v in tables.items()}
    with contextlib.suppress(OSError):  # a read-only store: assembled again at each read
        store.write_tables(name, tables, keys)
    return tables


def _unreadable(store: ResultStore, missing: list[Task]) -> str:
    """What a reader's message adds about the missing runs that have a file: how many, and the first one's file and
    what is wrong with it (a run file copied from another study was counted as missing, with no word of why)."""
    if not any(store.path(t.key).exists() for t in missing):
        return ""
    bad = [(t, r) for t in missing if (r := store.problem(t.key)) not in (None, NOT_STORED)]
    if not bad:
        return ""
    t, reason = bad[0]
    return f" ({len(bad)} of them stored but not readable: first {shown_path(store.path(t.key))}: {reason})"


def _study(name: str) -> str:
    """A message's head naming the study, where it is known (``study run`` builds its tables without the name: a
    message began "study '':")."""
    return f"study {name!r}: " if name else ""


def _damaged(store: ResultStore, task: Task, exc: Exception, study: str, run: str, set_aside: bool) -> None:
    """The error for a stored result damaged past its footer (:func:`assemble_tables`): set aside first where
    ``set_aside`` (``study run``), left where it is for a reader."""
    run = run or "gamemarket study run STUDY"
    path = shown_path(store.path(task.key))
    if set_aside:
        store.set_aside(task.key, f"{type(exc).__name__}: {exc}")
        raise InputError(
            f"{_study(study)}the stored result {path} does not read; it is kept aside, and `{run}` runs that task again"
        ) from None
    raise InputError(
        f"{_study(study)}the stored result {path} does not read ({type(exc).__name__}: {' '.join(str(exc).split())}"
        f"); `{run}` sets it aside and runs that task again"
    ) from None


def _with_ids(frames: list[pd.DataFrame], ids: list[tuple[dict, int]]) -> pd.DataFrame:
    """The tasks' frames stacked, each row led by its task's ``provider``, ``consumer`` and ``seed``
    (``ids``: each frame's ids and row count): one concatenation, not a copy of every frame."""
    out = pd.concat(frames, ignore_index=True)
    counts = np.array([n for _, n in ids], dtype=np.int64)
    for k, name in enumerate(("provider", "consumer", "seed")):
        values = [i[name] for i, _ in ids]
        out.insert(k, name, np.repeat(np.array(values, dtype=object if name != "seed" else np.int64), counts))
    return out


def load_cohorts(spec: StudySpec) -> pd.DataFrame:
    """The cohort sums of every task (columns provider, consumer, seed, g_bin, bid_class, n, sums)."""
    return study_tables(spec)["cohorts"]


def load_results(spec: StudySpec, *, with_bins: bool = False) -> StoredResults:
    """Stored results of a study's tasks: a tidy metrics table (one row per task) and binned rows.

    Raises ``InputError`` when a task has no stored result yet.
    """
    check_spec(spec, "load_results")
    check_flag(with_bins, "load_results: with_bins")  # ("no" was truthy: the bins loaded, hunt 41a-W1)
    tables = study_tables(spec)
    prep = load_workload(spec)
    meta = {
        "study": spec.name,
        "nodes": prep.nodes,
        "jobs": prep.jobs,
        "workload": workload_source(prep.meta),
        "kind": prep.market,
        "workload_sha256": prep.meta.get("sha256"),
        "seeds": spec.seeds,
        "providers": {p.name: p.params() for p in spec.providers},
        "consumers": {c.name: c.params() for c in spec.consumers},
    }
    if prep.meta.get("synthetic"):  # a generator's parameters
        meta["synthetic"] = prep.meta["synthetic"]
    return StoredResults(tables["metrics"], tables["bins"] if with_bins else None, meta)
