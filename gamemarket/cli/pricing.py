"""``gamemarket price solve``: price discovery on a saved problem or the paper's synthetic family."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np

from gamemarket.cli.options import EXIT_OK, EXIT_UNFINISHED, POSITIVE, SEED, add_force, examples, integer, number
from gamemarket.cli.output import FULL, Figure, RowWriter, figure_width, print_table
from gamemarket.errors import MAX_TIME_LIMIT, InputError
from gamemarket.io.files import (
    atomic_path,
    binary_mark,
    check_output_file,
    check_output_file_name,
    check_outputs,
    dumps_json,
    output_group,
)
from gamemarket.io.limits import memory_limit

#: the columns of the trace ``price solve`` prints as it goes, and their widths (the widest each figure is written)
TRACE_HEADERS = ("evaluation", "iteration", "dual", "primal", "gap", "max violation", "seconds")
TRACE_WIDTHS = (4, 4, figure_width(10), figure_width(10), figure_width(4), figure_width(3), 6)


def cmd_price_solve(a) -> int:
    """``gamemarket price solve``: discover prices for a problem file or a synthetic problem, check the
    allocation against every constraint, print or write the result. Exit 0 when converged, 3 when
    not (the result is still written, and says so).
    """

    from gamemarket.pricing import TimeLimitReached, solve  # deferred: numba, pandas, scipy.optimize

    if a.device != "cpu" and a.backend != "torch":
        raise InputError(f"--device {a.device} applies to the torch backend; add --backend torch")
    if a.rel_eps is not None and a.eps is None:  # (hunt 22b-W12: --eps alone could not go below 1e-7 |objective|)
        raise InputError(
            f"--rel-eps {a.rel_eps:g} is the relative part of --eps's rule: add --eps (without it the rule is a "
            "certified relative gap of 1e-6 of its own)"
        )
    if a.backend == "torch" and importlib.util.find_spec("torch") is None:  # before the header: nothing is printed
        raise InputError("the torch backend needs PyTorch: pip install 'gamemarket[torch]'")
    out = _checked_out(a) if a.out else None  # checked before the solve, not after it
    problem = _problem(a)
    trace_rows = []
    trace = None

    def show(row):
        nonlocal trace
        trace_rows.append(row)
        if a.format == "text" and not a.quiet:
            if trace is None:  # the header once the solve has started (a refused input prints nothing of it)
                trace = RowWriter(TRACE_HEADERS, TRACE_WIDTHS, indent=2)
            trace.row(
                (
                    row["evaluation"],
                    row["iteration"],
                    Figure(row["dual"], 10, what="dual and primal"),
                    Figure(row["primal"], 10, what="dual and primal"),
                    Figure(row["gap"], 4, what="gaps"),
                    Figure(row["max_violation"], 3, what="violations"),
                    Figure(row["seconds"], 2, "fixed", what="seconds"),
                )
            )

    n, m = problem.shape
    if a.format == "text":
        print(f"price discovery: {n} jobs x {m} resources, utility {problem.utility.name}, method {a.method}")
    try:
        r = solve(
            problem,
            eps=a.eps,
            **({} if a.rel_eps is None else {"rel_eps": a.rel_eps}),
            max_iter=a.max_iter,
            method=a.method,
            callback=show,
            backend=a.backend,
            device=a.device,
            dtype=np.float32 if a.float32 else np.float64,
            time_limit=a.time_limit,
            limit=memory_limit(),
        )
    except TimeLimitReached as exc:  # no allocation to print: said, exit 3 (the documented code of a stopped solve)
        if trace is not None:
            trace.close()
        print(f"gamemarket: {exc}", file=sys.stderr)
        return EXIT_UNFINISHED
    except InputError as exc:  # what the problem is refused for, naming its file (hunt 14: a capacity 0 no price
        # keeps a job off named the resource and the job, not the file)
        if a.problem is None or str(exc).startswith(str(a.problem)):
            raise
        raise InputError(f"{a.problem}: {exc}") from None
    if trace is not None:
        trace.close()
    if out is not None:
        _write_result(out, r)
    _print_result(a, r)
    return EXIT_OK if r.converged else EXIT_UNFINISHED


def _checked_out(a) -> Path:
    """``--out`` as a path, refused before the solve unless it names a .npz file that, with its trace
    (``.trace.csv``), can be written where it points (``--force`` to replace files of ours)."""
    check_output_file_name(a.out, "--out")
    out = Path(a.out)
    if out.suffix.lower() != ".npz":  # (R.NPZ as the readers take it: hunt 21b-W3)
        raise InputError(f"--out {a.out!r}: expected a .npz file name")
    if out.is_dir():
        raise InputError(f"--out {a.out!r}: is a folder; expected a .npz file name")
    parent = next((p for p in [out.parent, *out.parent.parents] if p.exists()), Path("."))
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"--out {a.out!r}: cannot write there ({parent} is not a writable folder)")
    trace = out.with_suffix(".trace.csv")
    check_outputs({"--out": out, "--out's trace": trace}, [a.problem] if a.problem else [])
    check_output_file(out, option="--out", force=a.force)
    check_output_file(trace, option="--out's trace", force=a.force)
    return out


def _problem(a):
    """The problem to solve: the saved one (``--problem``, where ``--n``, ``--m`` and ``--utility`` are
    refused as having no effect), or the paper's synthetic family from ``--n`` and ``--m``."""
    from gamemarket.pricing import load, synthetic  # deferred: numba, pandas, scipy.optimize

    if a.problem:
        given = [f"--{k}" for k in ("n", "m", "utility", "seed") if getattr(a, k) is not None]
        if given:
            raise InputError(
                f"{a.problem}: a saved problem fixes its jobs, resources, utility and numbers, so "
                f"{', '.join(given)} would have no effect; leave {'it' if len(given) == 1 else 'them'} out"
            )
        mark = binary_mark(a.problem)
        if mark and not mark.startswith("a zip"):  # (hunt 20b-W7: "not a zip archive" of a gzipped .npz)
            raise InputError(f"{a.problem}: is {mark}; expected a .npz file as numpy.savez writes")
        return load(a.problem, limit=memory_limit())  # its arrays' size from their headers, before inflating
    if a.n is None or a.m is None:
        raise InputError("give a saved problem (.npz) or --n and --m for the paper's synthetic family")
    seed = 0 if a.seed is None else a.seed
    dtype = np.float32 if a.float32 else np.float64
    # sized before it is drawn
    return synthetic(a.n, a.m, a.utility or "log", seed=seed, dtype=dtype, limit=memory_limit())


def _write_result(out: Path, r) -> None:
    """The result's prices, allocation and throughputs to ``out`` (.npz), its trace beside it (.trace.csv): one
    result, written together or not at all (``output_group``: a trace that does not fit left the .npz, and the
    command run again refused it as an existing file)."""
    with output_group():
        _write_npz(out, r)
        with atomic_path(out.with_suffix(".trace.csv"), "trace (.csv)") as tmp:
            r.trace.to_csv(tmp, index=False)


def _write_npz(out: Path, r) -> None:
    """The result's prices, allocation and throughputs to ``out`` (.npz)."""
    ex = r.allocation.extra or (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    with atomic_path(out, "result (.npz)") as tmp, open(tmp, "wb") as f:
        np.savez(
            f,
            prices=r.prices,
            j1=r.allocation.j1,
            x1=r.allocation.x1,
            j2=r.allocation.j2,
            x2=r.allocation.x2,
            # shares beyond the two slots, for the rare job an optimum puts on three or more resources
            extra_job=ex[0],
            extra_resource=ex[1],
            extra_share=ex[2],
            throughput=r.throughput,
            # whether the run met its stopping gap, and the gap it reached: a stopped run's file says so itself
            converged=np.array(bool(r.converged)),
            gap=np.array(float(r.gap)),
            objective=np.array(float(r.objective)),
            dual=np.array(float(r.dual)),
        )


def _print_result(a, r) -> None:
    """The result's summary, as JSON (``--format json``) or as text."""
    summary = {
        "objective": r.objective,
        "prices": r.prices.tolist(),
        "gap": r.gap,
        "iterations": r.iterations,
        "converged": r.converged,
        "seconds": r.seconds,
        "evaluations": r.evaluations,
        "dual": r.dual,
        "message": r.message,
    }
    if a.format == "json":
        print(dumps_json(summary))
    else:
        rows = [
            ("converged", f"{'yes' if r.converged else 'no'} ({r.message})"),
            ("objective", Figure(r.objective, 10)),
            ("dual bound", Figure(r.dual, 10)),
            ("gap", Figure(r.gap, 4, what="the gap")),
            ("iterations", r.iterations),
            ("evaluations", r.evaluations),
            ("seconds", Figure(r.seconds, 2, "fixed", what="seconds")),
            ("prices", [Figure(p, 6, what="prices") for p in r.prices]),
        ]
        print_table(("quantity", "value"), rows, full=FULL)


def add_pricing_commands(sub) -> None:
    """Register ``gamemarket price ...`` on the parser's subcommands ``sub``."""
    pr = sub.add_parser("price", help="allocation of fungible resources by price discovery").add_subparsers(
        dest="pcmd", required=True
    )
    s = pr.add_parser(
        "solve",
        help="discover prices and a feasible allocation; exit 3 when not converged",
        epilog=examples(
            "gamemarket price solve --n 100000 --m 4 --utility log --seed 1",
            "gamemarket price solve problem.npz --out result.npz --format json --quiet",
        ),
    )
    s.add_argument(
        "problem",
        nargs="?",
        help="a saved problem (.npz with A, R, optional demand/weight/target, utility); or none and --n, --m",
    )
    s.add_argument(
        "--n", type=integer(min=1, limit=10**8, what="a number of jobs"), help="jobs (synthetic family; default: none)"
    )
    s.add_argument(
        "--m",
        type=integer(min=1, limit=10**4, what="a number of resources"),
        help="resources (synthetic family; default: none)",
    )
    s.add_argument("--utility", help="linear, log, target or alpha:<value> (synthetic family; default log)")
    s.add_argument("--seed", type=SEED, help="seed of the synthetic family's draw (default: 0)")
    s.add_argument(
        "--float32",
        action="store_true",
        help="hold efficiencies in float32 (half the memory; the synthetic family draws the same problem, rounded)",
    )
    s.add_argument(
        "--eps",
        type=POSITIVE,
        help="stopping duality gap: stop once the gap <= max(EPS, REL_EPS abs(objective)) (default: a certified "
        "relative gap of 1e-6, gap <= 1e-6 abs(objective); 1e-3 n for linear and target utilities, at most 1e-2 "
        "of the utilities' size)",
    )
    s.add_argument(
        "--rel-eps",
        type=number(min=0, what="a finite number"),
        metavar="REL_EPS",
        help="with --eps, the relative part of its rule (default: 1e-7: a gap far below 1e-16 abs(objective) is "
        "beyond float64; 0: --eps alone, which may then end unconverged at --max-iter)",
    )
    s.add_argument(
        "--max-iter", type=integer(min=1, what="a number of iterations"), default=500, help="iterations at most"
    )
    s.add_argument(
        "--time-limit",
        type=number(min=0, min_open=True, max=MAX_TIME_LIMIT, what="a number of seconds"),
        help="seconds the solve may take; at the limit the best feasible allocation found so far is the answer, not "
        "converged (exit 3; default: no limit)",
    )
    s.add_argument(
        "--method",
        default="auto",
        choices=["lbfgs", "newton", "auto"],
        help="the dual's optimiser: L-BFGS-B, projected Newton, or L-BFGS-B rounds with Newton steps (auto)",
    )
    s.add_argument("--backend", default="numpy", choices=["numpy", "torch"], help="array library of the evaluations")
    s.add_argument("--device", default="cpu", help="torch device: cpu or cuda")
    s.add_argument(
        "--out", help="save prices, allocation and throughputs (.npz) and the trace (.trace.csv); default: none"
    )
    s.add_argument("--format", choices=["text", "json"], default="text", help="how the result is printed")
    s.add_argument("--quiet", action="store_true", help="no per-evaluation trace")
    add_force(s, "the --out files")
    s.set_defaults(func=cmd_price_solve)
