"""The shading-gain experiment's runs: one derived study per market size (``[gains]``), run and stored like any study.

The gains themselves are computed from the stored runs by ``gamemarket.analysis.incentives``.
"""

from __future__ import annotations

import copy

from gamemarket.errors import InputError
from gamemarket.market.base import market_for_workload
from gamemarket.studies.runner import load_workload, run_study
from gamemarket.studies.schema import GAINS_STRATEGIES
from gamemarket.studies.spec import StudySpec

#: the shading mixes the experiment compares with FT: everyone by SRG, and 1% shading by 0.9
SHADING_MIXES = tuple(c for c in GAINS_STRATEGIES if c != "FT")


def derived(spec: StudySpec, n: int, seeds: list[int]) -> StudySpec:
    """The study of the shading-gain experiment at market size ``n``: the same market with ``n`` jobs,
    the truthful mix and the shading mixes only, these seeds, and results of its own.

    Parameters
    ----------
    spec : StudySpec
        A study with a ``[gains]`` table, of a market whose size is its number of jobs.
    n : int
        Number of jobs.
    seeds : list of int
        The replication seeds at this size.

    Raises
    ------
    InputError
        When the study's market cannot be resized (``Market.with_jobs``: the pricing market's generator can; a
        market file, which fixes its jobs, is refused when the study is read), or a shading mix the experiment
        needs is not in the study.
    """
    sub = copy.copy(spec)
    sub.runs_with = spec.run_command()  # (its runs are made by the parent's run, not its own)
    sub.workload = market_for_workload(spec.workload["source"]).with_jobs(spec.workload, n, f"study {spec.name!r}")
    by_name = {c.name: c for c in spec.consumers}
    missing = [c for c in GAINS_STRATEGIES if c not in by_name]
    if missing:
        raise InputError(f"study {spec.name!r}: [gains] needs the consumer strategies {missing} in the study")
    sub.consumers = [by_name[c] for c in GAINS_STRATEGIES]
    sub.seeds = list(seeds)
    sub.name = f"{spec.name}-n{n}"
    sub.results_dir = spec.results_dir / "gains" / f"n{n}"
    sub.companions = []
    return sub


def derived_studies(spec: StudySpec) -> list[tuple[int, StudySpec]]:
    """``(n, derived study)`` for every market size of the study's ``[gains]`` table, with its seeds."""
    cfg = spec.gains
    sizes = cfg["jobs"]
    seed_counts = cfg["seeds"] if isinstance(cfg["seeds"], list) else [cfg["seeds"]] * len(sizes)
    first = cfg.get("first", 1)
    return [(n, derived(spec, n, list(range(first, first + count)))) for n, count in zip(sizes, seed_counts)]


def check_sizes(spec: StudySpec, subs: list[tuple[int, StudySpec]]) -> None:
    """Each derived study's market has the size it is labelled with: its prepared workload holds ``n`` jobs.

    The study file's reader refuses the workloads known not to resize (``StudySpec`` refuses a market file,
    which fixes its jobs); this catches any other whose ``Market.with_jobs`` leaves the jobs as they were (a
    plugin's market), before any size runs, so that no gain is stored or reported under a size it was not
    computed at (hunt 18b, F3)."""
    for n, sub in subs:
        got = load_workload(sub).jobs
        if got != n:
            raise InputError(
                f"study {spec.name!r}: [gains] field 'jobs' ({list(spec.gains['jobs'])}): the market size {n:,} gives "
                f"a market of {got:,} jobs (its market, {sub.workload['source']!r}, did not resize the workload to "
                "it); expected a workload each size resizes, or no [gains] table"
            )


def run_gains(
    spec: StudySpec, *, n_jobs: int = 1, scheduler_address: str | None = None, progress: bool = False
) -> None:
    """Run (or resume) every derived study of the study's ``[gains]`` table, each size's market checked first
    (:func:`check_sizes`)."""
    subs = derived_studies(spec)
    check_sizes(spec, subs)
    for _, sub in subs:
        run_study(sub, n_jobs=n_jobs, scheduler_address=scheduler_address, progress=progress)
