"""One profile (a mechanism x a consumer strategy) on one workload or job table: what ``gamemarket simulate`` does,
as a call (``gamemarket.simulate_profile``).

The command line parses its options into :func:`simulate_profile`'s arguments and prints the result's summary; a
notebook gets the same run, the same files and the same numbers, with the summary and the per-job outcome as
pandas tables (:class:`ProfileRun`, which shows itself as a table in a notebook).
"""

from __future__ import annotations

import inspect
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gamemarket import bids
from gamemarket.consumers.catalogue import consumer_strategy
from gamemarket.errors import InputError, check_flag, check_seed, check_whole
from gamemarket.io import jobtable
from gamemarket.io.files import check_output_file, check_outputs, forgotten_after, output_group
from gamemarket.market.outcomes import CATEGORIES
from gamemarket.market.simulate import Mechanism, simulate, simulate_columns, simulate_summary, simulate_to_file

if TYPE_CHECKING:
    import pandas as pd

#: the consumer strategy of a profile that names none: everyone truthful
DEFAULT_MIX = "FT"
#: the workload of a profile that names neither a workload nor a job table: the synthetic generator's
DEFAULT_WORKLOAD = "synthetic"
#: what a job table fixes, so that these arguments (``--`` options of ``gamemarket simulate``) would have no effect
#: (``parallel`` and ``skip_bad_lines`` say how a trace is read: a job table is none; hunt 20b-F3)
_FIXED_BY_A_JOB_TABLE = ("workload", "mix", "seed", "synthetic_jobs", "load", "reduction", "parallel", "skip_bad_lines")

PathLike = str | os.PathLike


@dataclass
class ProfileRun:
    """A profile's run (:func:`simulate_profile`): its summary (the workload, the mechanism, the consumer strategy,
    the seed, the provider's outcome and the seconds it took, as ``gamemarket simulate`` prints it), the per-job
    outcome, and notes on the input (estimates below run times).

    ``jobs`` is the per-job outcome as the run made it: a DataFrame, a mapping of column arrays (a job table run
    without pandas), or None where it was streamed to the ``out`` file; :attr:`outcomes` is it as a DataFrame.
    """

    summary: dict
    jobs: object = None
    notes: list[str] = field(default_factory=list)

    @property
    def outcomes(self) -> pd.DataFrame | None:
        """The per-job outcome table (``runtime_group`` and ``bid_bin`` categorical), None where it went to a file."""
        import pandas as pd  # deferred: pandas (a job table's run goes without it)

        if self.jobs is None or isinstance(self.jobs, pd.DataFrame):
            return self.jobs
        cols = dict(self.jobs)
        for c, labels in CATEGORIES.items():
            cols[c] = pd.Categorical.from_codes(cols[c], categories=list(labels))
        return pd.DataFrame(cols, copy=False)

    def summary_table(self) -> pd.DataFrame:
        """The summary as a tidy table: one row per quantity (``quantity``, ``value``)."""
        import pandas as pd  # deferred: pandas

        return pd.DataFrame({"quantity": list(self.summary), "value": list(self.summary.values())})

    def _repr_html_(self) -> str:
        """A notebook shows the summary table (and says where the per-job outcome is)."""
        jobs = "in a file" if self.jobs is None else f"{len(self.outcomes)} jobs: .outcomes"
        return f"{self.summary_table().to_html(index=False)}<p>per-job outcome: {jobs}</p>"


def simulate_profile(
    workload: str | None = None,
    *,
    job_table: PathLike | None = None,
    nodes: int | None = None,
    reduction: float | None = None,
    synthetic_jobs: int | None = None,
    load: float | None = None,
    seed: int | None = None,
    mix: str | None = None,
    scheduler: str = Mechanism.scheduler,
    payment: str = Mechanism.payment,
    reserve: float = 1.0,
    blend: float | None = None,
    parallel: str | None = None,
    skip_bad_lines: bool = False,
    out: PathLike | None = None,
    jobs_out: PathLike | None = None,
    force: bool = False,
    outcome: bool = True,
) -> ProfileRun:
    """Run one profile, as ``gamemarket simulate`` does: each argument is the command's option of that name
    (``synthetic_jobs``: ``--synthetic-jobs``), and errors name the options.

    Parameters
    ----------
    workload : str, optional
        An SWF path, a known trace name, ``"synthetic"`` (default) or a workload model file (.toml).
    job_table : path, optional
        A job table (CSV or Parquet, market model section 8) that fixes the jobs and every bid; it needs ``nodes``,
        and leaves no room for ``workload``, ``mix``, ``seed``, ``synthetic_jobs``, ``load`` or ``reduction``.
    nodes : int, optional
        The nodes (default: the workload's own).
    reduction : float, optional
        A trace's nodes = floor(MaxProcs x (1 - reduction)).
    synthetic_jobs, load : optional
        The size and offered load of a synthetic workload (default: the generator's, ``SyntheticSpec``) or of a
        model's draw (default: the model's own).
    seed : int, optional
        The seed of the workload's draw and of the bids (default 0).
    mix : str, optional
        The consumers' strategy, as a study names one (``gamemarket.consumers.catalogue.consumer_strategy``): a
        name of the consumer catalogue (``FT``, the default; ``SRG``, ``UNI50``, ``g0.1x0.9``, ...), a point of a
        parametric family (``per-class[0,0.5,0.9]``) or a beta mix ``"fraction:beta,..."``.
    scheduler, payment, reserve
        The mechanism (``Mechanism``): registered names and the reservation price.
    parallel, skip_bad_lines
        How a trace's parallel and malformed records are read.
    out, jobs_out : path, optional
        Write the per-job outcome, and the job table used, there (.csv or .parquet). A job table run without
        ``jobs_out`` goes without pandas, and streams the outcome to ``out``. The two are written together or not at
        all: a failure writing one leaves neither.
    force : bool
        Replace an existing ``out`` or ``jobs_out`` file (``--force``); without it an existing file is an error.
    outcome : bool
        Keep the per-job outcome in memory (``ProfileRun.jobs``); False: the summary alone (and the ``out`` file),
        computed slice by slice, so that a trace of millions of jobs runs in the least memory (what
        ``gamemarket simulate`` does). An SWF trace is then read in chunks, its columns at their narrowest
        types (``read_swf_columns``), without pandas' table.

    Returns
    -------
    ProfileRun
    """
    _check_arguments(workload, nodes, synthetic_jobs, load, seed, reduction)
    # named by their options, as the command takes them (hunt 21b-W4: a study file's words, "field 'blend'", and "got
    # None" of a value nobody typed)
    if blend is not None and payment != "blend":
        raise InputError(f"blend (--blend {blend}) applies to payment 'blend' (--payment blend) only, not {payment!r}")
    if blend is None and payment == "blend":
        raise InputError("payment 'blend' (--payment blend) needs blend (--blend ALPHA, a number in [0, 1])")
    mech = Mechanism(scheduler, payment, reserve, blend=blend)
    # an output never replaces an input, nor another output (the command checks it too; a call wrote its outcome
    # over the job table it read)
    check_outputs({"out": out, "jobs_out": jobs_out}, [p for p in (job_table, workload) if p and Path(p).exists()])
    check_flag(force, "force")
    outputs = [(path, option) for path, option in ((out, "out"), (jobs_out, "jobs_out")) if path not in (None, "")]
    for path, option in outputs:  # a folder, a device, a file of a gamemarket folder; an existing one without force
        check_output_file(path, option=option, force=force, hint="force=True")
    # the two land together, or neither does; a new one's mark (NEW_ONLY) is dropped once they have landed
    with forgotten_after([p for p, _ in outputs]), output_group():
        return _profile(
            workload,
            job_table,
            nodes,
            reduction,
            synthetic_jobs,
            load,
            seed,
            mix,
            mech,
            (parallel, skip_bad_lines),
            out,
            jobs_out,
            outcome,
        )


def _profile(
    workload, job_table, nodes, reduction, synthetic_jobs, load, seed, mix, mech, reading, out, jobs_out, outcome
) -> ProfileRun:
    """:func:`simulate_profile` once its arguments are checked (``reading``: ``parallel``, ``skip_bad_lines``)."""
    t0 = time.perf_counter()
    fast = job_table is not None and not jobs_out
    if job_table is not None:
        given = {"workload": workload, "mix": mix, "seed": seed, "synthetic_jobs": synthetic_jobs, "load": load}
        parallel, skip_bad_lines = reading
        given |= {"reduction": reduction, "parallel": parallel, "skip_bad_lines": skip_bad_lines or None}
        table, notes = _job_table(job_table, nodes, fast, given)
        source, mix_name, seed_shown = str(job_table), "from job table", "from job table"
    else:
        seed = 0 if seed is None else seed
        table, nodes, source = _drawn_table(
            workload or DEFAULT_WORKLOAD,
            nodes,
            reduction,
            synthetic_jobs,
            load,
            seed,
            mix,
            reading,
            columns=not (outcome or jobs_out),
        )
        # the catalogue's name, as a study records it (hunt 15b: --mix srg, matched, was recorded as 'srg')
        mix_name = consumer_strategy(mix or DEFAULT_MIX, where="--mix", outside=False).name
        notes, seed_shown = [], seed
    if jobs_out:
        jobtable.write_table(jobtable.exchange_columns(table), jobs_out)
    jobs, run_summary = _run(table, nodes, mech, fast=fast, validate=job_table is None, out=out, outcome=outcome)
    seconds = round(time.perf_counter() - t0, 3)  # the run's, not the writing of its outcome
    if out and jobs is not None:
        jobtable.write_table(jobs, out)
    summary = {"workload": source, **mech.describe(), "mix": mix_name, "seed": seed_shown, **run_summary}
    return ProfileRun({**summary, "seconds": seconds}, jobs, notes)


def _check_arguments(workload, nodes, synthetic_jobs, load, seed, reduction) -> None:
    """``simulate_profile``'s numbers and workload, each named by its argument (and option) with its value, as the
    command names them: the generator's own checks named its field ("synthetic workload: jobs must be >= 1") and
    ``workload=5`` was a TypeError from pathlib."""
    if workload is not None and not isinstance(workload, (str, os.PathLike)):
        raise InputError(
            f"workload (--workload) must be a path, a known trace's name, 'synthetic' or a model file, got {workload!r}"
        )
    for value, what in ((nodes, "nodes (--nodes)"), (synthetic_jobs, "synthetic_jobs (--synthetic-jobs)")):
        if value is not None:
            check_whole(value, what, 1)
    if seed is not None:
        check_seed(seed, "seed (--seed)")
    for value, what, ok, rule in (
        (load, "load (--load)", lambda v: v > 0, "> 0"),
        (reduction, "reduction (--reduction)", lambda v: 0 <= v < 1, "in [0, 1)"),
    ):
        number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
        if value is not None and not (number and math.isfinite(value) and ok(value)):
            raise InputError(f"{what} must be a finite number {rule}, got {value!r}")


#: the arguments of :func:`simulate_profile` that are ``gamemarket simulate``'s options of the same names (the
#: command keeps no per-job outcome in memory: ``outcome`` is False there)
PROFILE_OPTIONS = tuple(p for p in inspect.signature(simulate_profile).parameters if p != "outcome")


def _job_table(path: PathLike, nodes: int | None, fast: bool, given: dict):
    """A job table's columns (without pandas where ``fast``) or DataFrame, and a note on estimates below run times;
    the arguments it leaves no room for (``given``, where not None) are an error, and so is a missing ``nodes``."""
    # (a reduction of 0 is the default, taken as it is for a generated workload: hunt 23b-W3)
    options = [
        f"--{k.replace('_', '-')}"
        for k in _FIXED_BY_A_JOB_TABLE
        if given.get(k) is not None and not (k == "reduction" and given[k] == 0)
    ]
    if options:
        raise InputError(
            f"--job-table {path}: a job table fixes the jobs, bids and every random draw, so "
            f"{', '.join(options)} would have no effect; leave {'it' if len(options) == 1 else 'them'} out"
        )
    if nodes is None:
        raise InputError("--job-table needs --nodes (a job table carries no processor count)")
    table = jobtable.read_columns(path) if fast else jobtable.read(path)
    short = jobtable.short_estimates(table)
    notes = []
    if short:
        notes.append(
            f"{path}: {short} of {len(table['id'])} jobs have an estimate below their run time; kept as they are "
            "(market model section 7), and only wspt-est reads them"
        )
    above, most, over_zero = jobtable.bids_above_private(table)
    if above:  # (hunt 17a-61: every job reporting 3 times its private bid tripled the revenue, in silence)
        ratio = f"{most:.4g}" if math.isfinite(most) else "more than 1e308"  # (a subnormal private bid)
        how = [f"up to {ratio} times it"] if above > over_zero else []
        how += [f"{over_zero} of them over a private bid of 0"] if over_zero else []
        notes.append(
            f"{path}: {above} of {len(table['id'])} jobs report more than their private bid ({'; '.join(how)}); kept "
            "as they are (a job table fixes the bids), though no beta mix reports more: such a job's utility can be "
            "below 0"
        )
    return table, notes


def _synthetic_params(workload: str, synthetic_jobs, load, seed: int, nodes) -> dict:
    """The generator's or the model's parameters: those given, the generator's defaults for ``synthetic``
    (``SyntheticSpec``), a model's own for a model; a trace takes none."""
    from gamemarket.workloads import SyntheticSpec, is_model_path  # deferred: pandas

    given = {k: v for k, v in (("jobs", synthetic_jobs), ("load", load)) if v is not None}
    if is_model_path(workload):  # a fitted model: its own jobs and load unless given
        synth = {"seed": seed, **given}
    elif workload == DEFAULT_WORKLOAD:
        synth = {"jobs": SyntheticSpec.jobs, "load": SyntheticSpec.load, **given, "seed": seed}
    elif given:
        raise InputError("--synthetic-jobs and --load apply to 'synthetic' or a model file, not to a trace")
    else:
        synth = {}
    return {**synth, "nodes": nodes} if synth and nodes is not None else synth


def check_trace_options(workload: str, parallel: str | None, skip_bad_lines: bool) -> None:
    """``--parallel`` and ``--skip-bad-lines`` say how an SWF trace is read: given with a generated workload (the
    generator, a model file) they would have no effect, and are refused, named."""
    from gamemarket.workloads import is_model_path  # deferred: pandas

    given = [o for o, v in (("--parallel", parallel is not None), ("--skip-bad-lines", skip_bad_lines)) if v]
    if given and (workload == "synthetic" or is_model_path(workload)):
        raise InputError(
            f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to an SWF trace; {workload} is generated "
            f"(leave {'it' if len(given) == 1 else 'them'} out: no effect)"
        )


def _drawn_table(workload: str, nodes, reduction, synthetic_jobs, load, seed: int, mix, reading, *, columns: bool):
    """The job table of a workload (read or generated) with the mix's bids drawn from ``seed``; its nodes; its
    source. ``reading``: (parallel, skip_bad_lines) of a trace. ``columns``: a trace's table as column arrays at
    their narrowest types, read in chunks (``read_swf_columns``, ``bids.job_columns``), not a DataFrame."""
    # deferred: pandas
    from gamemarket.workloads import is_model_path, resolve_trace
    from gamemarket.workloads import load as load_workload
    from gamemarket.workloads.base import nodes_of
    from gamemarket.workloads.swf import read_swf_columns

    parallel, skip_bad_lines = reading
    strategy = consumer_strategy(mix or DEFAULT_MIX, where="--mix", outside=False)  # before the trace is read
    synth = _synthetic_params(workload, synthetic_jobs, load, seed, nodes)
    check_trace_options(workload, parallel, skip_bad_lines)
    parallel = parallel or "split"
    if columns and not synth and not is_model_path(workload):  # a trace
        cols, meta = read_swf_columns(resolve_trace(workload), parallel=parallel, skip_bad_lines=skip_bad_lines)
        table = bids.job_columns(cols, strategy, seed)
        for c in ("private_bid", "reported_bid"):  # what ``simulate`` validates; the reader's columns are valid
            jobtable.check_column(jobtable.SPEC[c], table[c], f"workload {meta['source']}")
        return table, nodes_of(meta, nodes, reduction), meta.get("source")
    w = load_workload(workload, parallel=parallel, skip_bad_lines=skip_bad_lines, **synth)
    table = bids.job_table(w.jobs, strategy, seed)
    # a model's draw is named by its file ("model models/lpc.toml"), not by the generator ("synthetic")
    shown = f"model {workload}" if is_model_path(workload) else w.meta.get("source")
    return table, w.nodes(nodes, reduction), shown or w.meta.get("source")


def _run(table, nodes: int, mech: Mechanism, *, fast: bool, validate: bool, out, outcome: bool) -> tuple[object, dict]:
    """The per-job outcome and the summary: a job table read without pandas (``fast``: ``jobtable.read_columns``
    has validated it) runs on its columns, and streams its outcome to ``out`` where given (the outcome is then
    None: it is in the file); so does any table where no ``outcome`` is kept."""
    if not outcome or (fast and out):  # never the whole per-job outcome in memory
        if validate and not isinstance(table, dict):
            table = jobtable.validate(table)
        return None, simulate_to_file(table, nodes, mech, out) if out else simulate_summary(table, nodes, mech)
    if fast:
        return simulate_columns(table, nodes, mech)
    result = simulate(table, nodes, mech, validate=validate)  # jobtable.read has validated a job table
    return result.jobs, result.summary
