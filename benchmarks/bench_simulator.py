"""Simulator speed and memory on the whole LPC trace (issue 2's targets), and at scale (issue 31's).

    python benchmarks/bench_simulator.py [--trace PATH] [--repeat 5]
    python benchmarks/bench_simulator.py --scale [--jobs 16000000] [--nodes 9216] [--load 0.85]
    python benchmarks/bench_simulator.py --swf [--jobs 16500000] [--nodes 9216] [--load 0.85] [--repeat 5]

Prints: trace read + clean time, bid draw time, first-call compile time, and per scheduler x
payment the best-of-N time of one full simulation (engine + per-job outcome table), the engine
alone, and the peak RSS of a fresh process that reads the trace and runs HB + k-th price.

``--scale``: a synthetic trace of wide parallel jobs (widths log-uniform from 1 to the node count, run
times log-normal, Poisson arrivals at the offered load) split into ``--jobs`` serial jobs, as the SWF
reader splits a parallel job, with SRG bids (seed 1), written as a Parquet job table; then a fresh
process reads it (``jobtable.read_columns``) and runs HB + k-th price with the per-job outcome streamed
to Parquet in row groups (``simulate_to_file``). Prints that process's times, its peak RSS and the
bytes per serial job (peak RSS / jobs; issue 31's targets: at most 150 B/job and 30 s at 16M jobs).

``--swf``: the same scale from an SWF file, the way a researcher's trace enters: an LLNL-Atlas-like trace
(``atlas_like_swf``: about 44,000 parallel jobs of whole 8-processor nodes averaging about 380 processors,
on 9,216 processors) written as ``.swf.gz`` and split into ``--jobs`` serial jobs. One fresh process
runs the phases one after another (read and clean, split, draw the bids, simulate with the summary, write
the per-job outcome) and prints each one's time and peak resident memory (Linux's high-water mark, reset
between phases); then ``gamemarket simulate --workload TRACE.swf.gz --out outcome.parquet`` runs
``--repeat`` times, each in a fresh process, timed with its own peak RSS (issue 44's targets: at most 150
B/serial job and 30 s, median); the DataFrame path (``read_swf``, ``job_table``, ``simulate``) once, for
the figures before; and every summary is checked to be identical.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "workloads" / "LPC-EGEE-2004-1.2-cln.swf.gz"


def best(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def peak_child(trace: str) -> float:
    code = f"""
import resource
from gamemarket.workloads import read_swf
from gamemarket.bids import job_table
from gamemarket.consumers import SRG
from gamemarket.market import simulate, Mechanism
w = read_swf({trace!r}); t = job_table(w.jobs, SRG, 1)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = simulate(t, w.nodes(reduction=0.25), Mechanism('hb', 'kth'))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, base / 1024)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def wide_parallel_trace(jobs: int, nodes: int, load: float, seed: int = 0):
    """A job table (DataFrame) of about ``jobs`` serial jobs split from parallel jobs whose widths are
    log-uniform on [1, nodes], with log-normal run times (median 1 h, capped at 3 days), Poisson arrivals
    at ``load`` and SRG bids of seed 1. Serial jobs split from one parallel job share its submit time, run
    time and estimate, and have consecutive ids (the SWF reader's split)."""
    import numpy as np
    import pandas as pd

    from gamemarket.bids import job_table
    from gamemarket.consumers import SRG

    rng = np.random.default_rng(seed)
    mean_width = (nodes - 1) / np.log(nodes)
    widths = np.minimum(np.floor(np.exp(rng.uniform(0, np.log(nodes + 1), int(1.1 * jobs / mean_width) + 16))), nodes)
    widths = widths.astype(np.int64)
    cum = np.cumsum(widths)
    P = int(np.searchsorted(cum, jobs)) + 1
    widths = widths[:P]
    widths[-1] -= cum[P - 1] - jobs
    runtime = np.clip(np.rint(np.exp(rng.normal(np.log(3600.0), 1.5, P))), 1, 3 * 86400).astype(np.int64)
    span = float((widths * runtime).sum()) / (nodes * load)
    submit = np.sort(np.floor(rng.uniform(0, span, P))).astype(np.int64)
    estimate = np.maximum(runtime, np.ceil(runtime * rng.uniform(1, 4, P))).astype(np.int64)
    t = pd.DataFrame(
        {
            "id": np.arange(jobs, dtype=np.int64),
            "submit": np.repeat(submit, widths),
            "runtime": np.repeat(runtime, widths),
            "estimate": np.repeat(estimate, widths),
        }
    )
    return job_table(t, SRG, 1), P


def scale_child(path: str, nodes: int, out: str) -> dict:
    """A fresh process reads the job table at ``path`` and runs HB + k-th price, streaming to ``out``."""
    code = f"""
import json, resource, time
t0 = time.perf_counter()
from gamemarket.io import jobtable
from gamemarket.market import Mechanism
from gamemarket.market.simulate import simulate_to_file
t1 = time.perf_counter()
cols = jobtable.read_columns({path!r})
t2 = time.perf_counter()
summ = simulate_to_file(cols, {nodes}, Mechanism('hb', 'kth'), {out!r})
t3 = time.perf_counter()
print(json.dumps(dict(import_s=t1 - t0, read_s=t2 - t1, run_s=t3 - t2, total_s=t3 - t0, summary=summ,
                      peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def scale(jobs: int, nodes: int, load: float) -> None:
    """The ``--scale`` case (module docstring)."""
    import tempfile

    import pyarrow as pa
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        table, parallel = wide_parallel_trace(jobs, nodes, load)
        path = str(Path(d) / "jobs.parquet")
        pq.write_table(pa.Table.from_pandas(table, preserve_index=False), path)
        small = str(Path(d) / "warm-jobs.parquet")
        pq.write_table(pa.Table.from_pandas(table.iloc[:1000], preserve_index=False), small)
        gen_s = time.perf_counter() - t0
        del table
        # compile (or load from the cache) the engine once, on the table's first 1,000 jobs, outside the
        # measured process: a first run after the engine's source changed compiles it, about 8 s and 100 MB
        scale_child(small, nodes, str(Path(d) / "warm.parquet"))
        r = scale_child(path, nodes, str(Path(d) / "outcome.parquet"))
        rows = pq.ParquetFile(Path(d) / "outcome.parquet").metadata
    peak_b = r["peak_mb"] * 1024 * 1024
    print(f"workload: {parallel:,} parallel jobs split into {jobs:,} serial jobs, {nodes:,} nodes, load {load}")
    print(f"generated and written in {gen_s:.1f} s (not part of the run)")
    print(
        f"run (fresh process): import {r['import_s']:.2f} s, read job table {r['read_s']:.2f} s, simulate + write "
        f"outcome {r['run_s']:.2f} s; total {r['total_s']:.2f} s"
    )
    print(f"outcome file: {rows.num_rows:,} rows in {rows.num_row_groups} row groups")
    print(f"peak RSS {r['peak_mb']:.0f} MB: {peak_b / jobs:.1f} bytes per serial job")
    print(json.dumps({"jobs": jobs, "nodes": nodes, "bytes_per_job": peak_b / jobs, **r}))


def atlas_like_swf(path: Path, serial: int, nodes: int, load: float, seed: int = 0) -> tuple[int, int]:
    """Write an SWF trace (gzip) shaped like LLNL-Atlas: parallel jobs of whole 8-processor nodes, widths
    log-normal (median 128 processors, mean about 380, at most ``nodes``), run times log-normal (median 1 h,
    at most a day), requested times 1 to 3 times the run time, Poisson arrivals at ``load`` on ``nodes``
    processors; about ``serial`` processors in all (44,000 parallel jobs for 16.5 million). Returns (parallel
    jobs, serial jobs)."""
    import gzip

    import numpy as np

    rng = np.random.default_rng(seed)
    widths = np.clip(8 * np.ceil(np.exp(rng.normal(np.log(16), 1.5, serial // 300 + 16))), 8, nodes).astype(np.int64)
    P = int(np.searchsorted(np.cumsum(widths), serial)) + 1  # the first jobs that make ``serial`` processors
    widths = widths[:P]
    runtime = np.clip(np.rint(np.exp(rng.normal(np.log(3600.0), 1.5, P))), 1, 86400).astype(np.int64)
    span = float((widths * runtime).sum()) / (nodes * load)
    submit = np.sort(np.floor(rng.uniform(0, span, P))).astype(np.int64)
    reqtime = np.ceil(runtime * rng.uniform(1, 3, P)).astype(np.int64)
    user = rng.integers(1, 300, P)
    header = f"; Version: 2.2\n; Computer: LLNL-Atlas-like (generated)\n; MaxNodes: {nodes // 8}\n; MaxProcs: {nodes}\n"
    lines = [header]
    for i in range(P):
        w = widths[i]
        fields = (i + 1, submit[i], -1, runtime[i], w, -1, -1, w, reqtime[i], -1, 1, user[i], -1, -1, 1, -1, -1, -1)
        lines.append(" ".join(map(str, fields)) + "\n")
    path.write_bytes(gzip.compress("".join(lines).encode(), compresslevel=6))
    return P, int(widths.sum())


_SWF_PHASES = """
import json, sys, time
from pathlib import Path
from gamemarket.bids import job_columns
from gamemarket.consumers import SRG
from gamemarket.market import Mechanism, outcomes
from gamemarket.market.simulate import _engine_parts
from gamemarket.bids import bid_bin_codes
from gamemarket.workloads.swf import _Content, _Records, _fast_fields, parse_fields_careful, scan_comments
import numpy as np

def hwm():  # this process's peak resident memory since the last reset, MB
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

def reset():  # Linux: writing 5 to clear_refs resets the peak (VmHWM) to the current resident memory
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass

path, nodes, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
phases = {}
def phase(name, t0):
    phases[name] = dict(s=time.perf_counter() - t0, peak_mb=hwm())
    reset()
reset(); t0 = time.perf_counter()
records = _Records("split", extra=False)
for first, chunk in _Content(path):
    fields = _fast_fields(chunk, scan_comments(chunk)[1])
    if fields is None:
        fields, _ = parse_fields_careful(chunk, path, first_line=first)
    records.add(fields)
del fields
phase("read", t0); t0 = time.perf_counter()
cols, counts = records.split(narrow=True)
del records
phase("split", t0); t0 = time.perf_counter()
table = job_columns(cols, SRG, 0)
del cols
phase("bids", t0); t0 = time.perf_counter()
runtime = np.asarray(table["runtime"], dtype=np.int64)
codes = outcomes.runtime_group_codes(runtime, np.asarray(table["id"], dtype=np.int64))
del runtime
bid_codes = bid_bin_codes(table["private_bid"])
part, J, steps = _engine_parts(table, nodes, Mechanism("hb", "kth"))
parts = lambda only=None: outcomes.per_job_parts(table, part, J, runtime_codes=codes, bid_codes=bid_codes, only=only)
summ = outcomes.streamed_summary(parts, table, J, nodes, part.scratch)
summ["allocation_steps"] = int(steps)
phase("simulate", t0); t0 = time.perf_counter()
outcomes.write_per_job(out, parts())
phase("write", t0)
print(json.dumps(dict(jobs=J, phases=phases, summary=summ)))
"""

_SWF_REFERENCE = """
import json, resource, sys
from gamemarket.bids import job_table
from gamemarket.consumers import SRG
from gamemarket.market import Mechanism, simulate
from gamemarket.workloads import read_swf
w = read_swf(sys.argv[1])
r = simulate(job_table(w.jobs, SRG, 0), int(sys.argv[2]), Mechanism("hb", "kth"))
print(json.dumps(dict(summary=r.summary, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)))
"""


def _child(args: list[str]) -> tuple[str, float, float]:
    """(stdout, seconds, peak RSS in MB) of one fresh process: its own peak, from ``os.wait4``'s usage."""
    import os
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(args, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
        out.seek(0)
        err.seek(0)
        if p.returncode:
            raise SystemExit(f"{' '.join(args)} failed ({p.returncode}): {err.read().decode()}")
        return out.read().decode(), seconds, usage.ru_maxrss / 1024


def swf_case(serial: int, nodes: int, load: float, repeat: int) -> None:
    """The ``--swf`` case (module docstring)."""
    import statistics
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        trace, small, out = Path(d) / "atlas-like.swf.gz", Path(d) / "warm.swf.gz", str(Path(d) / "outcome.parquet")
        t0 = time.perf_counter()
        P, J = atlas_like_swf(trace, serial, nodes, load)
        gen_s = time.perf_counter() - t0
        atlas_like_swf(small, 20_000, nodes, load, seed=1)
        cli = [sys.executable, "-m", "gamemarket", "simulate", "--nodes", str(nodes), "--mix", "SRG", "--seed", "0"]
        # compile (or load from the cache) the engine outside the measured processes
        _child([*cli, "--workload", str(small)])
        phases = json.loads(
            _child([sys.executable, "-c", _SWF_PHASES, str(trace), str(nodes), out])[0].splitlines()[-1]
        )
        runs = []
        for _ in range(repeat):
            text, seconds, peak = _child([*cli, "--workload", str(trace), "--out", out, "--force", "--format", "json"])
            runs.append(dict(s=seconds, peak_mb=peak, summary=json.loads(text)))
        ref_text, ref_s, ref_peak = _child([sys.executable, "-c", _SWF_REFERENCE, str(trace), str(nodes)])
        size = trace.stat().st_size
    ref = json.loads(ref_text.splitlines()[-1])["summary"]
    same = all({k: r["summary"][k] for k in ref} == ref for r in runs) and phases["summary"] == ref
    mb = 1024 * 1024
    print(f"trace: {P:,} parallel jobs (LLNL-Atlas-like, generated in {gen_s:.1f} s; {size / mb:.1f} MB gzip) split")
    print(f"into {J:,} serial jobs, {nodes:,} nodes, load {load}; HB + k-th price, SRG bids of seed 0")
    print("phases in one fresh process (peak: the process's resident memory high-water mark within the phase):")
    for name, p in phases["phases"].items():
        print(
            f"  {name:<9}{p['s']:>7.2f} s   peak {p['peak_mb']:>7.0f} MB   {p['peak_mb'] * mb / J:>6.1f} B/serial job"
        )
    secs = [r["s"] for r in runs]
    peaks = [r["peak_mb"] for r in runs]
    print(
        f"`gamemarket simulate --workload TRACE.swf.gz --nodes {nodes} --mix SRG --out outcome.parquet`, {repeat} runs:"
    )
    print(f"  seconds {', '.join(f'{s:.1f}' for s in secs)}; median {statistics.median(secs):.1f} s")
    print(f"  peak RSS {max(peaks):.0f} MB at most: {max(peaks) * mb / J:.1f} B/serial job")
    print(
        f"the DataFrame path (read_swf, job_table, simulate): {ref_s:.1f} s, peak {ref_peak:.0f} MB "
        f"({ref_peak * mb / J:.1f} B/serial job)"
    )
    print(f"summaries identical (command, phases and DataFrame path): {same}")
    print(
        json.dumps(
            {
                "parallel": P,
                "jobs": J,
                "nodes": nodes,
                "phases": phases["phases"],
                "runs_s": secs,
                "peaks_mb": peaks,
                "reference_s": ref_s,
                "reference_peak_mb": ref_peak,
                "identical": same,
            }
        )
    )
    if not same:
        raise SystemExit("the summaries differ")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", action="store_true", help="the 16M-serial-job case (module docstring)")
    ap.add_argument("--swf", action="store_true", help="the 16.5M-serial-job case from an SWF file (module docstring)")
    ap.add_argument("--jobs", type=int, help="serial jobs (default 16,000,000; with --swf 16,500,000)")
    ap.add_argument("--nodes", type=int, default=9216)
    ap.add_argument("--load", type=float, default=0.85)
    a = ap.parse_args()
    if a.scale:
        scale(a.jobs or 16_000_000, a.nodes, a.load)
        return
    if a.swf:
        swf_case(a.jobs or 16_500_000, a.nodes, a.load, a.repeat)
        return
    if not Path(a.trace).exists():
        sys.exit(f"trace {a.trace} not found: fetch it with `gamemarket workload fetch LPC-EGEE-2004-1.2-cln`")

    t0 = time.perf_counter()
    from gamemarket.bids import draw, job_table
    from gamemarket.consumers import SRG
    from gamemarket.io import jobtable
    from gamemarket.market import Mechanism, simulate
    from gamemarket.market.simulate import run_arrays
    from gamemarket.workloads import read_swf

    import_s = time.perf_counter() - t0

    read_s, w = best(lambda: read_swf(a.trace), a.repeat)
    nodes = w.nodes(reduction=0.25)
    draw_s, _ = best(lambda: draw(len(w.jobs), 1), a.repeat)
    table = jobtable.validate(job_table(w.jobs, SRG, 1))
    t0 = time.perf_counter()
    run_arrays(table.head(50), 4, Mechanism("hb", "kth"))
    first_call_s = time.perf_counter() - t0
    rows = []
    for sched in ("hb", "nphb", "wspt", "wspt-est"):
        for pay in ("first", "kth"):
            m = Mechanism(sched, pay, 1.0)
            run_arrays(table.head(50), 4, m)  # compile (or load from cache) this specialisation
            eng_s, _ = best(lambda: run_arrays(table, nodes, m), a.repeat)
            full_s, r = best(lambda: simulate(table, nodes, m, validate=False), a.repeat)
            rows.append(
                {
                    "scheduler": sched,
                    "payment": pay,
                    "engine_s": round(eng_s, 4),
                    "simulate_s": round(full_s, 4),
                    "steps": r.summary["allocation_steps"],
                    "revenue": r.summary["revenue"],
                }
            )
    peak, base = peak_child(a.trace)
    print(f"trace: {a.trace} ({len(w.jobs)} jobs, {nodes} nodes, SRG, seed 1)")
    print(f"import gamemarket: {import_s:.3f} s")
    print(f"read + clean trace (best of {a.repeat}): {read_s:.3f} s")
    print(f"draw bids: {draw_s:.4f} s")
    print(f"first engine call (compile or cache load): {first_call_s:.3f} s")
    print(f"{'scheduler':<10}{'payment':<8}{'engine s':>10}{'simulate s':>12}{'steps':>9}")
    for r in rows:
        print(f"{r['scheduler']:<10}{r['payment']:<8}{r['engine_s']:>10.4f}{r['simulate_s']:>12.4f}{r['steps']:>9}")
    print(f"peak RSS, one HB + k-th run in a fresh process: {peak:.0f} MB (after reading the trace: {base:.0f} MB)")
    print(
        json.dumps(
            {"read_s": read_s, "draw_s": draw_s, "first_call_s": first_call_s, "runs": rows, "peak_rss_mb": peak}
        )
    )


if __name__ == "__main__":
    main()
