"""``gamemarket workload``: inspect, fetch, fit and compare workloads."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from gamemarket import bids, consumers
from gamemarket.cli.options import (
    JOBS_COUNT,
    NODES,
    REDUCTION,
    SEED,
    add_deprecated_alias,
    add_force,
    examples,
    number,
)
from gamemarket.cli.output import FULL, Figure, print_dict, print_table
from gamemarket.errors import InputError
from gamemarket.io.files import check_output_file, check_outputs, dumps_json, is_stream, shown_path
from gamemarket.reports.drawing import check_figure_path
from gamemarket.reports.markdown import num
from gamemarket.reports.workload import draw_workload_comparison


def workload_options(sp) -> None:
    """The options every command that reads a trace takes."""
    sp.add_argument(
        "--parallel",
        choices=["split", "drop"],
        help="an SWF trace's parallel records: split into serial jobs (default) or drop",
    )
    sp.add_argument(
        "--skip-bad-lines", action="store_true", help="skip an SWF trace's malformed lines and report how many"
    )
    sp.add_argument(
        "--nodes",
        type=NODES,
        help="number of nodes (default: the workload's own, a trace's header MaxProcs or a model's nodes)",
    )
    sp.add_argument(
        "--reduction",
        type=REDUCTION,
        help="derive nodes = floor(MaxProcs * (1 - reduction)); a fraction in [0, 1) (default: none, i.e. 0)",
    )


# ---------------------------------------------------------------- workload
def cmd_workload_info(a) -> int:
    """``gamemarket workload info``: jobs, processors, span, offered load and run-time quantiles of a workload."""
    from gamemarket.market.profile import check_trace_options  # deferred: the market (numba)
    from gamemarket.workloads import is_model_path, load  # deferred: pandas

    check_trace_options(a.path, a.parallel, a.skip_bad_lines)
    # a generated workload is drawn for the nodes asked, as simulate and a study draw it (it was drawn for 32 and
    # its load divided by the nodes asked: 7.2 where simulate runs 0.9; hunt 19c-F1)
    drawn = {"nodes": a.nodes} if a.nodes is not None and (a.path == "synthetic" or is_model_path(a.path)) else {}
    w = load(a.path, parallel=a.parallel or "split", skip_bad_lines=a.skip_bad_lines, **drawn)
    print_dict(w.info(nodes=a.nodes, reduction=a.reduction))
    return 0


def cmd_workload_fit(a) -> int:
    """``gamemarket workload fit``: fit the workload model to a trace and write it as a model file."""
    from gamemarket.workloads import is_model_path, load  # deferred: pandas
    from gamemarket.workloads.fit import fit_model  # deferred: pandas, scipy.stats

    if is_model_path(a.trace):
        raise InputError(f"{a.trace}: a model file; `workload fit` reads a trace (an SWF file or a known trace name)")
    from gamemarket.market.base import generator_sources  # deferred: the markets (numba)

    if a.trace in generator_sources() and not Path(a.trace).exists():  # (hunt 20b-W13: fitted to a draw)
        raise InputError(
            f"{a.trace!r}: a generator, not a trace; `workload fit` reads a trace (an SWF file or a known trace "
            "name) and writes the model that draws its like"
        )
    if not a.out.lower().endswith(".toml"):  # (M.TOML as every reader takes it: hunt 21b-W3)
        raise InputError(f"--out {a.out!r}: expected a .toml file name")
    check_outputs({"--out": a.out}, [a.trace] if Path(a.trace).exists() else [])
    check_output_file(a.out, option="--out", force=a.force)
    t0 = time.perf_counter()
    from gamemarket.market.profile import check_trace_options  # deferred: the market (numba)

    check_trace_options(a.trace, a.parallel, a.skip_bad_lines)
    w = load(a.trace, parallel=a.parallel or "split", skip_bad_lines=a.skip_bad_lines)
    nodes = w.nodes(a.nodes, a.reduction)
    name = Path(a.trace).name.removesuffix(".gz").removesuffix(".swf")
    # a name of bytes that are no UTF-8 (held as surrogates) is written with U+FFFD where they stood: the model is
    # UTF-8 text (hunt 22b-F5: UnicodeEncodeError's traceback)
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if is_stream(a.trace):  # ``<(cat trace.swf)``: its name is a descriptor's number (hunt 16b: source = "63")
        name = f"a pipe ({a.trace})"
    model = fit_model(w, nodes=nodes, threshold=a.threshold, source=name)
    model.save(a.out)
    print(
        f"{shown_path(a.out)}: campaign model of {shown_path(name)} ({model.notes['campaigns']:,} campaigns of "
        f"{model.notes['users']} users; "
        f"{model.jobs:,} jobs, {nodes} nodes, load {num(model.load, 3)}; user share {num(model.user_share, 3)}, "
        f"campaign share {num(model.campaign_share, 3)}) in {time.perf_counter() - t0:.2f} s"
    )
    return 0


def _workload_for_compare(source: str, nodes: int, seed: int, jobs: int | None):
    from gamemarket.workloads import WorkloadModel, generate_from_model, is_model_path, load  # deferred: pandas

    if is_model_path(source):
        model = WorkloadModel.read(source)
        label = f"{Path(source).name} (seed {seed})"
        return generate_from_model(model, jobs=jobs, nodes=nodes, seed=seed), label, model
    return load(source), Path(source).name, None  # a trace has its own jobs: --synthetic-jobs sizes the model beside it


def _compared(a) -> list:
    """``(source, (workload, label, model))`` of the two workloads compared, one named twice read once (a named pipe
    gives its bytes once: a second read waited for ever)."""
    first = _workload_for_compare(a.a, a.nodes, a.seed, a.synthetic_jobs)
    second = first if a.b == a.a else _workload_for_compare(a.b, a.nodes, a.seed, a.synthetic_jobs)
    return [(a.a, first), (a.b, second)]


def _loads_note(a, models: list) -> str | None:
    """Where a trace is compared with a model at other than the model's own node count, why their offered loads
    differ: a model draws its arrivals at its own load on the nodes given, a trace keeps its arrival times (its
    load is its work over ``--nodes``). (Hunt 7: 4.45 beside 0.712 at 64 nodes, without a word.)"""
    # (``models``: those the comparison read, not read again: a named pipe gives its bytes once, and a second read
    # waited for ever, the comparison printed)
    if len(models) != 1 or models[0].nodes == a.nodes:
        return None
    m = models[0]
    return (
        f"note: the model draws its arrivals at its own offered load ({m.load:.3g}, fitted at {m.nodes:,} nodes) "
        f"whatever --nodes; the trace keeps its arrival times, so its load is its work over the {a.nodes:,} nodes "
        f"given: a trace's load and its model's agree at the model's node count (--nodes {m.nodes})"
    )


def cmd_workload_compare(a) -> int:
    """``gamemarket workload compare``: two workloads' statistics side by side (congestion included, from one
    run of the market on each), optionally as JSON and as a four-panel figure.
    """
    from gamemarket.market import Mechanism, outcomes, simulate  # deferred: numba
    from gamemarket.workloads.stats import undefined, workload_curves, workload_stats  # deferred: pandas

    if a.figure:  # checked before the work that draws it
        inputs = [p for p in (a.a, a.b) if Path(p).exists()]
        check_outputs({"--figure": a.figure}, inputs)
        check_output_file(check_figure_path(a.figure), option="--figure", force=a.force)
    from gamemarket.workloads import is_model_path  # deferred: pandas (the workloads package loads it)

    if a.synthetic_jobs is not None and not any(is_model_path(src) for src in (a.a, a.b)):
        raise InputError("--synthetic-jobs applies to model files only; a trace has its own jobs")
    cols, curves, models = {}, {}, []
    for src, (w, label, model) in _compared(a):
        models += [model] if model is not None else []
        try:
            st = workload_stats(w.jobs, a.nodes)
        except InputError as exc:  # (a one-job trace: "need at least 2 jobs", naming no file)
            raise InputError(f"{src}: {exc}") from None
        run = simulate(
            bids.job_table(w.jobs, consumers.BetaMix.parse("FT"), a.seed), a.nodes, Mechanism("hb", "first", 1.0)
        )
        st.update(outcomes.congestion(run.jobs, a.nodes))
        while label in cols:
            label += "'"
        cols[label] = st
        curves[label] = workload_curves(w.jobs, a.nodes)

    # each statistic as a figure: counts whole, shares as percentages, the rest to the significant digits that
    # tell two workloads apart (the reports' formatter, gamemarket.reports.markdown.num); the table says so
    def count(v):
        return int(round(v))

    def share(v):
        return Figure(v, 1, "percent", what="shares")

    def digits(k):
        return lambda v: Figure(v, k)

    rows = [
        ("jobs", "jobs", count),
        ("offered load", "offered_load", digits(3)),
        ("mean run time (s)", "mean_runtime", digits(4)),
        ("median run time (s)", "median_runtime", digits(4)),
        ("share of time with a queue", "queue_time_share", share),
        ("share of jobs that wait", "waiting_job_share", share),
        ("peak jobs present", "peak_jobs_present", count),
        ("days with offered load above 1", "days_overloaded", share),
        ("99th percentile of hourly offered load", "hourly_load_p99", digits(3)),
        ("CV of inter-arrival gaps", "gap_cv", digits(3)),  # (two digits showed 15.3 and 15.1 as "15": hunt 21c-W5)
        ("autocorrelation of log run time, lag 1", "acf_log_runtime_1", digits(2)),
        ("autocorrelation of log run time, lag 100", "acf_log_runtime_100", digits(2)),
        ("autocorrelation of log run time, lag 1000", "acf_log_runtime_1000", digits(2)),
        ("daily-cycle period (h)", "daily_period_h", digits(3)),
    ]
    why = {label: undefined(c) for label, c in cols.items()}
    if a.format == "json":
        doc = {"nodes": a.nodes, "mechanism": "hb-first, FT, seed %d" % a.seed, "workloads": cols}
        doc["undefined"] = {label: w for label, w in why.items() if w}  # each null, with why
        if (note := _loads_note(a, models)) is not None:
            doc["note"] = note.removeprefix("note: ")
        print(dumps_json(doc, indent=2))
    else:
        print(f"{a.nodes} nodes; queue statistics under HB with first price, all bids truthful, seed {a.seed}")
        print_table(
            ("statistic", *cols),
            [(title, *(fmt(c[key]) for c in cols.values())) for title, key, fmt in rows],
            full=FULL,
        )
        titles = {key: title for title, key, _ in rows}
        for label, w in why.items():
            for key, reason in w.items():
                print(f"n/a: {titles.get(key, key)} of {label}: {reason}")
        if (note := _loads_note(a, models)) is not None:
            print(note)
    if a.figure:
        out = draw_workload_comparison(curves, a.figure, nodes=a.nodes)
        print(f"figure: {out}", file=sys.stderr)
    return 0


def cmd_workload_fetch(a) -> int:
    """``gamemarket workload fetch``: download a known trace into the cache and verify its SHA-256."""
    from gamemarket.workloads.archive import fetch  # deferred: pandas

    path = fetch(a.name, dest=a.dest, url=a.url, force=a.force)
    print(f"{path} (SHA-256 verified)")
    return 0


# ---------------------------------------------------------------- simulate


def add_workload_commands(sub) -> None:
    """Register ``gamemarket workload ...`` on the parser's subcommands ``sub``."""
    w = sub.add_parser("workload", help="inspect or download workloads").add_subparsers(dest="wcmd", required=True)
    wi = w.add_parser(
        "info",
        help="jobs, processors, span, offered load, run-time quantiles",
        epilog=examples(
            "gamemarket workload info LPC-EGEE-2004-1.2-cln --reduction 0.5",
            "gamemarket workload info synthetic --nodes 64",
        ),
    )
    wi.add_argument("path", help="an SWF file (plain or gzip), a known trace name, or 'synthetic'")
    workload_options(wi)
    wi.set_defaults(func=cmd_workload_info)
    wf = w.add_parser(
        "fetch",
        help="download a trace from the Parallel Workloads Archive, verifying its SHA-256",
        epilog=examples(
            "gamemarket workload fetch LPC-EGEE-2004-1.2-cln",
            "gamemarket workload fetch LPC-EGEE-2004-1.2-cln --dest traces/",
        ),
    )
    wf.add_argument("name", help="trace name, e.g. LPC-EGEE-2004-1.2-cln")
    wf.add_argument("--dest", help="folder (default $GAMEMARKET_TRACES or ~/.cache/gamemarket/traces)")
    wf.add_argument(
        "--url",
        help="download from this address instead (the checksum is still enforced; default: the archive's address)",
    )
    add_force(wf, "a file of the trace's name whose checksum is not the catalogued one")
    wf.set_defaults(func=cmd_workload_fetch)

    wfit = w.add_parser(
        "fit",
        help="fit the campaign workload model to a trace (numbers only, never its records)",
        epilog=examples("gamemarket workload fit LPC-EGEE-2004-1.2-cln --reduction 0.5 --out my-lpc.toml"),
    )
    wfit.add_argument("trace", help="an SWF file (plain or gzip) or a known trace name")
    workload_options(wfit)
    wfit.add_argument(
        "--threshold",
        # the model file's own bound (workloads.model_file.ModelFile): a fit never writes a file it cannot read
        type=number(min=0, min_open=True, max=1e7, what="seconds of silence"),
        default=1200.0,
        help="seconds of silence that end a user's campaign",
    )
    wfit.add_argument("--out", required=True, help="the model file to write (.toml; required)")
    add_force(wfit, "the --out file")
    wfit.set_defaults(func=cmd_workload_fit)
    wc = w.add_parser(
        "compare",
        help="congestion statistics of two workloads (traces or models) side by side",
        epilog=examples(
            "gamemarket workload compare LPC-EGEE-2004-1.2-cln models/lpc-egee-2004.toml --nodes 35",
            "gamemarket workload compare LPC-EGEE-2004-1.2-cln models/lpc-egee-2004.toml --nodes 35 \\",
            "    --synthetic-jobs 5000 --figure compare.png",
        ),
    )
    wc.add_argument("a", help="a trace (SWF path or known name) or a model file (.toml)")
    wc.add_argument("b", help="a trace (SWF path or known name) or a model file (.toml)")
    wc.add_argument("--nodes", type=NODES, required=True, help="number of nodes (required)")
    wc.add_argument("--seed", type=SEED, default=1, help="seed of a model's draw and of the bids")
    count = wc.add_argument(
        "--synthetic-jobs", type=JOBS_COUNT, help="jobs drawn from a model (default: the model's own count)"
    )
    add_deprecated_alias(wc, "--jobs", count)
    wc.add_argument("--figure", help="also draw the comparison figure here (.png, .pdf or .svg; default: none)")
    wc.add_argument("--format", choices=["text", "json"], default="text", help="how the statistics are printed")
    add_force(wc, "the --figure file")
    wc.set_defaults(func=cmd_workload_compare)
