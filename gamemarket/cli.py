"""The ``gamemarket`` command: a thin layer over the modules; errors become a message and exit 2."""

from __future__ import annotations

import argparse
import json
import sys
import time

from gamemarket import __version__
from gamemarket.errors import GameMarketError


def _print_dict(d: dict, indent: int = 0) -> None:
    for k, v in d.items():
        if isinstance(v, dict):
            print(" " * indent + f"{k}:")
            _print_dict(v, indent + 2)
        elif isinstance(v, float):
            print(" " * indent + f"{k}: {v:.6g}")
        else:
            print(" " * indent + f"{k}: {v}")


# ---------------------------------------------------------------- workload
def cmd_workload_info(a) -> int:
    from gamemarket.workloads import load

    w = load(a.path, parallel=a.parallel, skip_bad_lines=a.skip_bad_lines)
    _print_dict(w.info(nodes=a.nodes, reduction=a.reduction))
    return 0


def cmd_workload_fetch(a) -> int:
    from gamemarket.workloads.archive import fetch

    path = fetch(a.name, dest=a.dest, url=a.url)
    print(f"{path} (SHA-256 verified)")
    return 0


# ---------------------------------------------------------------- simulate
def cmd_simulate(a) -> int:
    from gamemarket import bids, jobtable
    from gamemarket.market import Mechanism, simulate
    from gamemarket.workloads import load

    mech = Mechanism(a.scheduler, a.payment, a.reserve)
    t0 = time.perf_counter()
    if a.jobs:
        table = jobtable.read(a.jobs)
        if a.nodes is None:
            raise GameMarketError("--jobs needs --nodes (a job table carries no processor count)")
        nodes = a.nodes
        source = str(a.jobs)
    else:
        synth = {"jobs": a.synthetic_jobs, "load": a.load, "seed": a.seed} if a.workload == "synthetic" else {}
        if a.workload == "synthetic" and a.nodes is not None:
            synth["nodes"] = a.nodes
        w = load(a.workload, parallel=a.parallel, skip_bad_lines=a.skip_bad_lines, **synth)
        nodes = w.nodes(a.nodes, a.reduction)
        mix = bids.BetaMix.parse(a.mix)
        table = bids.job_table(w.jobs, mix, a.seed)
        source = w.meta.get("source")
    if a.jobs_out:
        jobtable.write_table(jobtable.exchange_columns(table), a.jobs_out)
    result = simulate(table, nodes, mech)
    elapsed = time.perf_counter() - t0
    if a.out:
        jobtable.write_table(result.jobs, a.out)
    summary = {"workload": source, **mech.describe(), "mix": a.mix if not a.jobs else "from job table",
               "seed": a.seed, **result.summary, "seconds": round(elapsed, 3)}
    if a.format == "json":
        print(json.dumps(summary, indent=2))
    else:
        _print_dict(summary)
    return 0


# ---------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gamemarket", description="Game-theoretic analysis of computing markets.")
    p.add_argument("--version", action="version", version=f"gamemarket {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def workload_opts(sp):
        sp.add_argument("--parallel", choices=["split", "drop"], default="split",
                        help="parallel records: split into serial jobs (default) or drop")
        sp.add_argument("--skip-bad-lines", action="store_true", help="skip malformed SWF lines and report how many")
        sp.add_argument("--nodes", type=int, help="number of nodes")
        sp.add_argument("--reduction", type=float, help="derive nodes = floor(MaxProcs * (1 - reduction))")

    w = sub.add_parser("workload", help="inspect or download workloads").add_subparsers(dest="wcmd", required=True)
    wi = w.add_parser("info", help="jobs, processors, span, offered load, run-time quantiles")
    wi.add_argument("path", help="an SWF file (plain or gzip), a known trace name, or 'synthetic'")
    workload_opts(wi)
    wi.set_defaults(func=cmd_workload_info)
    wf = w.add_parser("fetch", help="download a trace from the Parallel Workloads Archive, verifying its SHA-256")
    wf.add_argument("name", help="trace name, e.g. LPC-EGEE-2004-1.2-cln")
    wf.add_argument("--dest", help="folder (default $GAMEMARKET_TRACES or ~/.cache/gamemarket/traces)")
    wf.add_argument("--url", help="download from this address instead (the checksum is still enforced)")
    wf.set_defaults(func=cmd_workload_fetch)

    s = sub.add_parser("simulate", help="run one profile (mechanism x beta mix) and print the summary")
    s.add_argument("--workload", default="synthetic", help="an SWF path, a known trace name, or 'synthetic'")
    s.add_argument("--jobs", help="a job table (CSV/Parquet, section 8) fixing every bid; needs --nodes")
    workload_opts(s)
    s.add_argument("--synthetic-jobs", type=int, default=4000, help="synthetic workload size")
    s.add_argument("--load", type=float, default=0.9, help="synthetic workload's offered load")
    s.add_argument("--scheduler", default="hb", help="hb, nphb, wspt, wspt-est, fcfs")
    s.add_argument("--payment", default="kth", help="first or kth")
    s.add_argument("--reserve", type=float, default=1.0, help="reservation price r")
    s.add_argument("--mix", default="FT", help="FT, SRG or 'fraction:beta,...'")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", help="per-job outcome table (.csv or .parquet)")
    s.add_argument("--jobs-out", help="write the job table used (.csv or .parquet) to repeat the run with --jobs")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(func=cmd_simulate)

    from gamemarket.cli_pricing import add_pricing_commands
    from gamemarket.cli_studies import add_study_commands

    add_study_commands(sub)

    add_pricing_commands(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except GameMarketError as exc:
        print(f"gamemarket: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gamemarket: interrupted; finished runs are kept", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
