"""The ``gamemarket`` command: a thin layer over the modules; errors become a message and exit 2."""

from __future__ import annotations

import argparse
import json
import sys
import time

from gamemarket import __version__
from gamemarket.errors import GameMarketError, InputError


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


def cmd_workload_fit(a) -> int:
    from pathlib import Path

    from gamemarket.workloads import is_model_path, load
    from gamemarket.workloads.fit import fit_model

    if is_model_path(a.trace):
        raise InputError(f"{a.trace}: a model file; `workload fit` reads a trace (an SWF file or a known trace name)")
    if not a.out.endswith(".toml"):
        raise InputError(f"--out {a.out!r}: expected a .toml file name")
    t0 = time.perf_counter()
    w = load(a.trace, parallel=a.parallel, skip_bad_lines=a.skip_bad_lines)
    nodes = w.nodes(a.nodes, a.reduction)
    name = Path(a.trace).name.removesuffix(".gz").removesuffix(".swf")
    model = fit_model(w, nodes=nodes, threshold=a.threshold, source=name)
    model.save(a.out)
    print(f"{a.out}: campaign model of {name} ({model.notes['campaigns']:,} campaigns of {model.notes['users']} users; "
          f"{model.jobs:,} jobs, {nodes} nodes, load {model.load:.3f}; user share {model.user_share:.3f}, "
          f"campaign share {model.campaign_share:.3f}) in {time.perf_counter() - t0:.2f} s")
    return 0


def _workload_for_compare(source: str, nodes: int, seed: int, jobs: int | None):
    from pathlib import Path

    from gamemarket.workloads import WorkloadModel, generate_from_model, is_model_path, load

    if is_model_path(source):
        model = WorkloadModel.read(source)
        return generate_from_model(model, jobs=jobs, nodes=nodes, seed=seed), f"{Path(source).name} (seed {seed})"
    if jobs is not None:
        raise InputError("--jobs applies to model files only; a trace has its own jobs")
    return load(source), Path(source).name


def cmd_workload_compare(a) -> int:
    from gamemarket import bids, outcomes
    from gamemarket.market import Mechanism, simulate
    from gamemarket.workloads.stats import workload_curves, workload_stats

    if a.nodes < 1:
        raise InputError(f"--nodes must be >= 1, got {a.nodes}")
    cols, curves = {}, {}
    for src in (a.a, a.b):
        w, label = _workload_for_compare(src, a.nodes, a.seed, a.jobs)
        st = workload_stats(w.jobs, a.nodes)
        run = simulate(bids.job_table(w.jobs, bids.BetaMix.parse("FT"), a.seed), a.nodes, Mechanism("hb", "first", 1.0))
        st.update(outcomes.congestion(run.jobs, a.nodes))
        while label in cols:
            label += "'"
        cols[label] = st
        curves[label] = workload_curves(w.jobs, a.nodes)
    rows = [("jobs", "jobs", "{:,.0f}"), ("offered load", "offered_load", "{:.3f}"),
            ("mean run time (s)", "mean_runtime", "{:,.0f}"), ("median run time (s)", "median_runtime", "{:,.0f}"),
            ("share of time with a queue", "queue_time_share", "{:.1%}"),
            ("share of jobs that wait", "waiting_job_share", "{:.1%}"),
            ("peak jobs present", "peak_jobs_present", "{:,.0f}"),
            ("days with offered load above 1", "days_overloaded", "{:.1%}"),
            ("99th percentile of hourly offered load", "hourly_load_p99", "{:.2f}"),
            ("CV of inter-arrival gaps", "gap_cv", "{:.1f}"),
            ("autocorrelation of log run time, lag 1", "acf_log_runtime_1", "{:.2f}"),
            ("autocorrelation of log run time, lag 100", "acf_log_runtime_100", "{:.2f}"),
            ("autocorrelation of log run time, lag 1000", "acf_log_runtime_1000", "{:.2f}"),
            ("daily-cycle period (h)", "daily_period_h", "{:.1f}")]
    if a.format == "json":
        print(json.dumps({"nodes": a.nodes, "mechanism": "hb-first, FT, seed %d" % a.seed, "workloads": cols}, indent=2))
    else:
        labels = list(cols)
        w0 = max(len(r[0]) for r in rows)
        w1 = max(12, *(len(x) for x in labels))
        print(f"{a.nodes} nodes; queue statistics under HB with first price, all bids truthful, seed {a.seed}")
        print(f"{'statistic':<{w0}}  " + "  ".join(f"{x:>{w1}}" for x in labels))
        for title, key, fmt in rows:
            print(f"{title:<{w0}}  " + "  ".join(f"{fmt.format(cols[x][key]):>{w1}}" for x in labels))
    if a.figure:
        from gamemarket.reports.workload import draw_workload_comparison

        out = draw_workload_comparison(curves, a.figure, nodes=a.nodes)
        print(f"figure: {out}", file=sys.stderr)
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
        given = [f"--{k.replace('_', '-')}" for k in ("workload", "mix", "seed", "synthetic_jobs", "load", "reduction")
                 if getattr(a, k) is not None]
        if given:
            raise InputError(f"--jobs {a.jobs}: a job table fixes the jobs, bids and every random draw, so "
                             f"{', '.join(given)} would have no effect; leave {'it' if len(given) == 1 else 'them'} out")
        if a.nodes is None:
            raise InputError("--jobs needs --nodes (a job table carries no processor count)")
        table = jobtable.read(a.jobs)
        short = jobtable.short_estimates(table)
        if short:
            print(f"gamemarket: note: {a.jobs}: {short} of {len(table)} jobs have an estimate below their run time; "
                  "kept as they are (market model section 7), and only wspt-est reads them", file=sys.stderr)
        nodes = a.nodes
        source = str(a.jobs)
        seed = None
    else:
        from gamemarket.workloads import is_model_path

        workload = a.workload or "synthetic"
        seed = 0 if a.seed is None else a.seed
        if is_model_path(workload):  # a fitted model: its own jobs and load unless given
            synth = {"seed": seed, **({"jobs": a.synthetic_jobs} if a.synthetic_jobs is not None else {}),
                     **({"load": a.load} if a.load is not None else {})}
        elif workload == "synthetic":
            synth = {"jobs": 4000 if a.synthetic_jobs is None else a.synthetic_jobs,
                     "load": 0.9 if a.load is None else a.load, "seed": seed}
        else:
            if a.synthetic_jobs is not None or a.load is not None:
                raise InputError("--synthetic-jobs and --load apply to 'synthetic' or a model file, not to a trace")
            synth = {}
        if synth and a.nodes is not None:
            synth["nodes"] = a.nodes
        w = load(workload, parallel=a.parallel, skip_bad_lines=a.skip_bad_lines, **synth)
        nodes = w.nodes(a.nodes, a.reduction)
        mix = bids.BetaMix.parse(a.mix or "FT")
        table = bids.job_table(w.jobs, mix, seed)
        source = w.meta.get("source")
    if a.jobs_out:
        jobtable.write_table(jobtable.exchange_columns(table), a.jobs_out)
    result = simulate(table, nodes, mech)
    elapsed = time.perf_counter() - t0
    if a.out:
        jobtable.write_table(result.jobs, a.out)
    summary = {"workload": source, **mech.describe(), "mix": a.mix or "FT" if not a.jobs else "from job table",
               "seed": seed if seed is not None else "from job table", **result.summary, "seconds": round(elapsed, 3)}
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

    wfit = w.add_parser("fit", help="fit the campaign workload model to a trace (numbers only, never its records)")
    wfit.add_argument("trace", help="an SWF file (plain or gzip) or a known trace name")
    workload_opts(wfit)
    wfit.add_argument("--threshold", type=float, default=1200.0,
                      help="seconds of silence that end a user's campaign (default 1200)")
    wfit.add_argument("--out", required=True, help="the model file to write (.toml)")
    wfit.set_defaults(func=cmd_workload_fit)
    wc = w.add_parser("compare", help="congestion statistics of two workloads (traces or models) side by side")
    wc.add_argument("a", help="a trace (SWF path or known name) or a model file (.toml)")
    wc.add_argument("b", help="a trace (SWF path or known name) or a model file (.toml)")
    wc.add_argument("--nodes", type=int, required=True, help="number of nodes")
    wc.add_argument("--seed", type=int, default=1, help="seed of a model's draw and of the bids (default 1)")
    wc.add_argument("--jobs", type=int, help="jobs drawn from a model (default: the model's)")
    wc.add_argument("--figure", default="workload-compare.png",
                    help="the comparison figure (default workload-compare.png; '' for none)")
    wc.add_argument("--format", choices=["text", "json"], default="text")
    wc.set_defaults(func=cmd_workload_compare)

    s = sub.add_parser("simulate", help="run one profile (mechanism x beta mix) and print the summary")
    s.add_argument("--workload", help="an SWF path, a known trace name, 'synthetic' (default), or a workload model "
                                      "file (.toml)")
    s.add_argument("--jobs", help="a job table (CSV/Parquet, section 8) fixing every bid; needs --nodes")
    workload_opts(s)
    s.add_argument("--synthetic-jobs", type=int, help="synthetic workload size (default 4000; a model's own)")
    s.add_argument("--load", type=float, help="synthetic workload's offered load (default 0.9; a model's own)")
    s.add_argument("--scheduler", default="hb", help="hb, nphb, wspt, wspt-est, fcfs")
    s.add_argument("--payment", default="kth", help="first or kth")
    s.add_argument("--reserve", type=float, default=1.0, help="reservation price r")
    s.add_argument("--mix", help="FT (default), SRG or 'fraction:beta,...'")
    s.add_argument("--seed", type=int, help="seed of the workload's draw and of the bids (default 0)")
    s.add_argument("--out", help="per-job outcome table (.csv or .parquet)")
    s.add_argument("--jobs-out", help="write the job table used (.csv or .parquet) to repeat the run with --jobs")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(func=cmd_simulate)

    from gamemarket.cli_pricing import add_pricing_commands
    from gamemarket.cli_studies import add_study_commands

    add_study_commands(sub)

    add_pricing_commands(sub)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings meant for the user (a merged strategy, a result set aside) as one line, without source code."""
    print(f"gamemarket: warning: {message}", file=file or sys.stderr)


def main(argv: list[str] | None = None) -> int:
    import warnings

    parser = build_parser()
    args = parser.parse_args(argv)
    shown, warnings.showwarning = warnings.showwarning, _show_warning
    try:
        return int(args.func(args) or 0)
    except GameMarketError as exc:
        print(f"gamemarket: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or connection the checks above did not foresee: still a message, not a trace
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gamemarket: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gamemarket: interrupted; finished runs are kept", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = shown


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
