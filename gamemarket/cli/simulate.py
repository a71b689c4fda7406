"""``gamemarket simulate``: one profile (mechanism x beta mix) on one workload."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gamemarket import bids, consumers
from gamemarket.cli.options import JOBS_COUNT, LOAD, NONNEGATIVE, SEED, add_deprecated_alias, add_force, examples
from gamemarket.cli.output import print_dict
from gamemarket.cli.plugin import add_plugin_option
from gamemarket.cli.workload import workload_options
from gamemarket.errors import InputError
from gamemarket.io import jobtable
from gamemarket.io.files import check_output_file, check_outputs, dumps_json
from gamemarket.io.jobtable import check_table_path
from gamemarket.market import Mechanism, simulate
from gamemarket.market.payments import PAYMENTS
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.market.simulate import simulate_columns, simulate_to_file
from gamemarket.registry import Registry


def cmd_simulate(a) -> int:
    """``gamemarket simulate``: one profile (mechanism x beta mix) on a workload or a job table; prints the
    summary and writes the per-job outcomes where ``--out`` asks.
    """

    mech = Mechanism(a.scheduler, a.payment, a.reserve)
    _check_outputs(a)
    t0 = time.perf_counter()
    fast = a.job_table and not a.jobs_out
    if a.job_table:
        given = [
            f"--{k.replace('_', '-')}"
            for k in ("workload", "mix", "seed", "synthetic_jobs", "load", "reduction")
            if getattr(a, k) is not None
        ]
        if given:
            raise InputError(
                f"--job-table {a.job_table}: a job table fixes the jobs, bids and every random draw, so "
                f"{', '.join(given)} would have no effect; leave {'it' if len(given) == 1 else 'them'} out"
            )
        if a.nodes is None:
            raise InputError("--job-table needs --nodes (a job table carries no processor count)")
        # a job table in and CSV out go without pandas (its import is a good part of a short run's time)
        table = jobtable.read_columns(a.job_table) if fast else jobtable.read(a.job_table)
        short = jobtable.short_estimates(table)
        if short:
            print(
                f"gamemarket: note: {a.job_table}: {short} of {len(table['id'])} jobs have an estimate below their run "
                "time; "
                "kept as they are (market model section 7), and only wspt-est reads them",
                file=sys.stderr,
            )
        nodes = a.nodes
        source = str(a.job_table)
        seed = None
    else:  # the workload modules (and scipy) only where a workload is read or generated
        from gamemarket.workloads import is_model_path, load  # deferred: pandas

        workload = a.workload or "synthetic"
        seed = 0 if a.seed is None else a.seed
        if is_model_path(workload):  # a fitted model: its own jobs and load unless given
            synth = {
                "seed": seed,
                **({"jobs": a.synthetic_jobs} if a.synthetic_jobs is not None else {}),
                **({"load": a.load} if a.load is not None else {}),
            }
        elif workload == "synthetic":
            synth = {
                "jobs": 4000 if a.synthetic_jobs is None else a.synthetic_jobs,
                "load": 0.9 if a.load is None else a.load,
                "seed": seed,
            }
        else:
            if a.synthetic_jobs is not None or a.load is not None:
                raise InputError("--synthetic-jobs and --load apply to 'synthetic' or a model file, not to a trace")
            synth = {}
        if synth and a.nodes is not None:
            synth["nodes"] = a.nodes
        w = load(workload, parallel=a.parallel, skip_bad_lines=a.skip_bad_lines, **synth)
        nodes = w.nodes(a.nodes, a.reduction)
        mix = consumers.BetaMix.parse(a.mix or "FT")
        table = bids.job_table(w.jobs, mix, seed)
        source = w.meta.get("source")
    if a.jobs_out:
        jobtable.write_table(jobtable.exchange_columns(table), a.jobs_out)
    if fast and a.out:  # the per-job outcome streamed to the file in row groups, never whole in memory
        run_summary = simulate_to_file(table, nodes, mech, a.out)
        elapsed = time.perf_counter() - t0
    elif fast:  # jobtable.read_columns has validated the table
        jobs, run_summary = simulate_columns(table, nodes, mech)
        elapsed = time.perf_counter() - t0
    else:
        result = simulate(table, nodes, mech, validate=not a.job_table)  # jobtable.read has validated a job table
        run_summary = result.summary
        elapsed = time.perf_counter() - t0
        if a.out:
            jobtable.write_table(result.jobs, a.out)
    summary = {
        "workload": source,
        **mech.describe(),
        "mix": a.mix or "FT" if not a.job_table else "from job table",
        "seed": seed if seed is not None else "from job table",
        **run_summary,
        "seconds": round(elapsed, 3),
    }
    if a.format == "json":
        print(dumps_json(summary, indent=2))
    else:
        print_dict(summary)
    return 0


def _check_outputs(a) -> None:
    """Before any work: the outputs are not the inputs nor one file, each has a known format, and an
    existing file is replaced only with ``--force``."""

    workload = a.workload if a.workload and not a.workload.endswith(".toml") else None
    inputs = [p for p in (a.job_table, workload) if p and Path(p).exists()]
    check_outputs({"--out": a.out, "--jobs-out": a.jobs_out}, inputs)
    for option in ("out", "jobs_out"):
        path = getattr(a, option)
        if path:
            check_table_path(check_output_file(path, option=f"--{option.replace('_', '-')}", force=a.force))


# ---------------------------------------------------------------- parser


def _names(registry: Registry) -> str:
    """The registered names, as argparse shows choices: ``{hb,nphb,...}``."""
    return "{" + ",".join(registry) + "}"


def _entries_help(registry: Registry, default: str) -> str:
    """An option's help from a registry: every entry's name and one-line description, and the default
    (``%`` doubled: argparse formats help strings)."""
    entries = "; ".join(f"{name}: {entry.description}" for name, entry in registry.items())
    return f"the {registry.what} (default {default}): {entries}".replace("%", "%%")


def add_simulate_command(sub) -> None:
    """Register ``gamemarket simulate`` on the parser's subcommands ``sub``."""
    s = sub.add_parser(
        "simulate",
        help="run one profile (mechanism x beta mix) and print the summary",
        description="Run one profile (a mechanism and a beta mix) on one workload or job table; print its summary.",
        epilog=examples(
            "gamemarket simulate --synthetic-jobs 2000 --scheduler hb --payment kth --mix SRG",
            "gamemarket simulate --workload LPC-EGEE-2004-1.2-cln --reduction 0.5 --jobs-out table.csv",
            "gamemarket simulate --job-table table.csv --nodes 105 --payment first --out outcomes.parquet",
        ),
    )
    s.add_argument(
        "--workload", help="an SWF path, a known trace name, 'synthetic' (default), or a workload model file (.toml)"
    )
    table = s.add_argument(
        "--job-table",
        help="a job table (CSV/Parquet, market model section 8) fixing every bid; needs --nodes "
        "(default: none, a workload's jobs and bids are drawn)",
    )
    add_deprecated_alias(s, "--jobs", table)
    workload_options(s)
    s.add_argument("--synthetic-jobs", type=JOBS_COUNT, help="synthetic workload size (default 4000; a model's own)")
    s.add_argument("--load", type=LOAD, help="synthetic workload's offered load (default 0.9; a model's own)")
    # the names as the metavar, not argparse choices: an unknown name stays the registry's error (exit 2,
    # "unknown scheduler 'x'; expected one of [...]") rather than a usage message
    for option, registry, default in (
        ("--scheduler", SCHEDULERS, Mechanism.scheduler),
        ("--payment", PAYMENTS, Mechanism.payment),
    ):
        s.add_argument(option, default=default, metavar=_names(registry), help=_entries_help(registry, default))
    s.add_argument("--reserve", type=NONNEGATIVE, default=1.0, help="reservation price r (per unit of bid)")
    s.add_argument("--mix", help="FT (default), SRG or 'fraction:beta,...'")
    s.add_argument("--seed", type=SEED, help="seed of the workload's draw and of the bids (default 0)")
    s.add_argument("--out", help="write the per-job outcome table here (.csv or .parquet; default: none)")
    s.add_argument(
        "--jobs-out",
        help="write the job table used (.csv or .parquet) to repeat the run with --job-table (default: none)",
    )
    s.add_argument("--format", choices=["text", "json"], default="text", help="how the summary is printed")
    add_force(s, "the --out and --jobs-out files")
    add_plugin_option(s)
    s.set_defaults(func=cmd_simulate)
