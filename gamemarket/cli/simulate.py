"""``gamemarket simulate``: one profile (mechanism x beta mix) on one workload."""

from __future__ import annotations

import sys
from pathlib import Path

from gamemarket.bids import MAX_RESERVE
from gamemarket.cli.options import (
    JOBS_COUNT,
    LOAD,
    SEED,
    add_deprecated_alias,
    add_force,
    examples,
    number,
)
from gamemarket.cli.output import FULL, print_dict
from gamemarket.cli.plugin import add_plugin_option
from gamemarket.cli.workload import workload_options
from gamemarket.consumers import FAMILIES
from gamemarket.consumers.catalogue import MIX_SYNTAX, load_consumers, parametric_families
from gamemarket.io.files import check_output_file, check_outputs, dumps_json
from gamemarket.io.jobtable import check_table_path
from gamemarket.market import Mechanism
from gamemarket.market.payments import BLEND, PAYMENTS
from gamemarket.market.profile import DEFAULT_MIX, PROFILE_OPTIONS, simulate_profile
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.registry import Registry


def cmd_simulate(a) -> int:
    """``gamemarket simulate``: one profile (mechanism x beta mix) on a workload or a job table
    (``gamemarket.market.profile.simulate_profile``); prints the summary, and the run writes the per-job outcomes
    where ``--out`` asks.
    """
    _check_outputs(a)
    # the summary alone: the per-job outcome goes to --out, never whole into memory (a trace of millions of jobs)
    run = simulate_profile(**{k: getattr(a, k) for k in PROFILE_OPTIONS}, outcome=False)
    for note in run.notes:
        print(f"gamemarket: note: {note}", file=sys.stderr)
    if a.format == "json":
        print(dumps_json(run.summary, indent=2))
    else:  # a seed as it is typed (--seed 12345), not as a quantity (12,345)
        print_dict({**run.summary, "seed": str(run.summary["seed"])}, full=FULL)
    return 0


def _check_outputs(a) -> None:
    """Before any work: the outputs are not the inputs nor one file, each has a known format, and an
    existing file is replaced only with ``--force``."""

    workload = a.workload if a.workload and not a.workload.lower().endswith(".toml") else None  # (a model: no input)
    inputs = [p for p in (a.job_table, workload) if p and Path(p).exists()]
    check_outputs({"--out": a.out, "--jobs-out": a.jobs_out}, inputs)
    for option in ("out", "jobs_out"):
        path = getattr(a, option)
        if path:
            check_table_path(check_output_file(path, option=f"--{option.replace('_', '-')}", force=a.force))


# ---------------------------------------------------------------- parser


class GeneratorDefault:
    """A field's default of the synthetic generator (``gamemarket.workloads.SyntheticSpec``, where it is written
    once) as an option's help shows it (``%(generator_default)s``): read when the help is printed, since the
    generator's module loads pandas, which building the parser does not."""

    def __init__(self, field: str):
        self.field = field

    def __str__(self) -> str:
        from gamemarket.workloads import SyntheticSpec  # deferred: pandas, for the help only

        return f"{getattr(SyntheticSpec, self.field):g}"


def _names(registry: Registry) -> str:
    """The registered names, as argparse shows choices: ``{hb,nphb,...}``."""
    return "{" + ",".join(registry) + "}"


def _entries_help(registry: Registry, default: str) -> str:
    """An option's help from a registry: every entry's name and one-line description, and the default
    (``%`` doubled: argparse formats help strings)."""
    entries = "; ".join(f"{name}: {entry.description}" for name, entry in registry.items())
    return f"the {registry.what} (default {default}): {entries}".replace("%", "%%")


def _mix_help() -> str:
    """``--mix``'s help from what is registered: every strategy of the consumer catalogue with its description, the
    parametric families (a loaded plugin's too) with their parameters, and the beta mix written out."""
    catalogue = load_consumers()
    names = "; ".join(f"{name}: {s.description}" if s.description else name for name, s in catalogue.items())
    families = ", ".join(f"{f}{FAMILIES.get(f).list_names()}" for f in parametric_families())
    return (
        f"the consumers' strategy (default {DEFAULT_MIX}), as a study names one: a name of the consumer catalogue "
        f"({names}); a point of a family ({families}); or a beta mix {MIX_SYNTAX}, e.g. 0.9:0.1,0.1:0.9"
    ).replace("%", "%%")


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
    # the generator's defaults, read from it (SyntheticSpec) only when the help is printed: it loads pandas
    jobs = s.add_argument(
        "--synthetic-jobs",
        type=JOBS_COUNT,
        help="synthetic workload size (default %(generator_default)s; a model's own)",
    )
    jobs.generator_default = GeneratorDefault("jobs")
    load = s.add_argument(
        "--load", type=LOAD, help="synthetic workload's offered load (default %(generator_default)s; a model's own)"
    )
    load.generator_default = GeneratorDefault("load")
    # the names as the metavar, not argparse choices: an unknown name stays the registry's error (exit 2,
    # "unknown scheduler 'x'; expected one of [...]") rather than a usage message
    s.add_argument(
        "--scheduler",
        default=Mechanism.scheduler,
        metavar=_names(SCHEDULERS),
        help=_entries_help(SCHEDULERS, Mechanism.scheduler),
    )
    s.add_argument(
        "--payment",
        default=Mechanism.payment,
        metavar=_names(PAYMENTS)[:-1] + f",{BLEND}" + "}",
        help=_entries_help(PAYMENTS, Mechanism.payment)
        + f"; {BLEND}: alpha x first price + (1 - alpha) x k-th price, alpha given by --blend",
    )
    s.add_argument(
        "--reserve",
        type=number(min=0, max=MAX_RESERVE, what="a reservation price"),
        default=1.0,
        help=f"reservation price r (per unit of bid; at most {MAX_RESERVE:g})",
    )
    s.add_argument(
        "--blend",
        type=float,
        help="alpha of --payment blend, in [0, 1]: 0 is k-th price, 1 first price (default: none)",
    )
    s.add_argument("--mix", metavar="STRATEGY", help=_mix_help())
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
