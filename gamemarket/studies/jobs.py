"""A stored run's jobs on demand: the per-job outcome of any run a provider/consumer study holds, by running it again
exactly, checked against what the study stored.

A study stores each run's cohort sums, not its per-job outcomes (the outcome of a trace's run is tens of megabytes).
:func:`run_jobs` re-runs the run (provider strategy x consumer strategy x replication seed) the way the study ran it
(``runner.run_tasks``: the study's prepared workload, the seed's draws, the market's ``run_many``) and checks that the
cohort sums of the per-job table it returns equal the stored ones exactly, bit for bit; a run the study does not hold
(an unknown name or seed, or a run not stored yet) is an :class:`InputError` naming it.

How seeds map: a study's replication seed ``s`` draws the jobs' private bids, group and shading draws
(``bids.draw(n, s)``); its workload is the study's own (a trace, or the synthetic workload of ``[workload.synthetic]
seed``, fixed across replications). ``gamemarket simulate --seed N`` draws both the synthetic workload and the bids
from ``N``, so it reproduces a study's run only where the two seeds coincide; ``study jobs`` always does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamemarket import bids
from gamemarket.bids import bid_bin_codes
from gamemarket.errors import InputError
from gamemarket.io.files import shown_path
from gamemarket.market import payoffs
from gamemarket.market.base import market_for
from gamemarket.studies.runner import load_workload, plan
from gamemarket.studies.store import ResultStore


def find_task(spec, tasks, provider: str, consumer: str, seed: int):
    """The study's task of ``(provider, consumer, seed)``, or an :class:`InputError` naming what the study holds."""
    provs = [p.name for p in spec.providers]
    cons = [c.name for c in spec.consumers]
    what = f"study {spec.name!r} holds no run {provider} x {consumer} x seed {seed}"
    if provider not in provs:
        raise InputError(f"{what}: --provider {provider!r} is not one of its providers {provs}")
    if consumer not in cons:
        raise InputError(f"{what}: --consumer {consumer!r} is not one of its consumers {cons}")
    if seed not in list(spec.seeds):
        raise InputError(f"{what}: --seed {seed} is not one of its seeds {list(spec.seeds)}")
    return next(t for t in tasks if (t.provider, t.consumer, t.seed) == (provider, consumer, seed))


def run_jobs(spec, provider: str, consumer: str, seed: int) -> tuple[pd.DataFrame, dict]:
    """The per-job outcome of one stored run of a provider/consumer study, re-run and checked.

    Parameters
    ----------
    spec : StudySpec
        A provider/consumer study (not a population game).
    provider, consumer : str
        Names of the study's strategies.
    seed : int
        One of its replication seeds.

    Returns
    -------
    (pandas.DataFrame, dict)
        The market's per-job outcome table (scheduling market: ``id, start, end, flow, wait, bsd, ssj, payment,
        utility, preemptions``, the job's ``submit``, ``runtime``, bids and group, its valuation, runtime group and
        bid bin), exactly the run the study stored; and the run's summary (revenue, utilization, welfare, ...).

    Raises
    ------
    InputError
        A population study, a run the study does not hold or has not stored, or a re-run whose cohort sums differ
        from the stored ones (naming the run and the first cell that differs).
    """
    if spec.population is not None:  # (a design study was called a population study: hunt 22a-W5)
        kind = "design" if spec.design is not None else "population"
        raise InputError(f"study {spec.name!r}: a {kind} study's runs are mixtures, not (provider, consumer, seed)")
    workload = load_workload(spec)
    arrays, nodes = workload.arrays, workload.nodes
    task = find_task(spec, plan(spec, arrays, nodes), provider, consumer, int(seed))
    store = ResultStore(spec.results_dir)
    name = f"study {spec.name!r}, run {provider} x {consumer} x seed {seed}"
    if not store.has(task.key):
        raise InputError(f"{name}: not stored in {spec.results_dir}; run `{spec.run_command()}` first")
    market = market_for(task.provider_params)
    draws = bids.draw(market.size(arrays), task.seed, distribution=spec.bids)
    w = draws.private_bid
    group, reported = task.strategy.reported_bids(w, bid_bin_codes(w), draws.G, draws.U)
    run = market.run(arrays, nodes, task.provider_params, w, reported, group)  # its per-job table as a DataFrame
    _, _, cohorts = payoffs.of_run(run, task.strategy.group_betas(), draws.G, w)
    try:  # the whole file, checked: its rows against their digest (hunt 16d: a file whose rows were edited was
        # taken, and its cohort sums said to equal the run's)
        _, _, stored = store.read_all(task.key)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - damage past the footer: named, moved nowhere
        raise InputError(
            f"{name}: the stored result {shown_path(store.path(task.key))} does not read ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())}); `{spec.run_command()}` sets it aside and runs that task again"
        ) from None
    if stored is None:
        raise InputError(f"{name}: stored without cohort sums (an older results format); run the study again")
    _check_same(name, cohorts, stored)
    jobs = run.jobs if isinstance(run.jobs, pd.DataFrame) else pd.DataFrame(dict(run.jobs))
    return jobs.reset_index(drop=True), dict(run.summary)


def _check_same(name: str, got: pd.DataFrame, stored: pd.DataFrame) -> None:
    """The re-run's cohort sums equal the stored ones exactly, else an error naming the first cell that differs."""
    a, b = got.reset_index(drop=True), stored.reset_index(drop=True)
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        raise InputError(f"{name}: the re-run's cohort table has another shape than the stored one")
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        same = np.array_equal(x, y) if x.dtype.kind not in "fc" else np.array_equal(x, y, equal_nan=True)
        if not same:
            k = int(np.flatnonzero(~((x == y) | (pd.isna(x) & pd.isna(y))))[0])
            raise InputError(
                f"{name}: the re-run does not reproduce the stored result: cohort row {k}, column {c!r}: "
                f"{x[k]!r} re-run against {y[k]!r} stored"
            )
