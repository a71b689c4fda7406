"""Make the docs' trace-against-model comparison (docs/reference/workload-compare.md and its figures) from the
data: for each trace of the catalogue with a fitted model, ``gamemarket workload compare TRACE MODEL`` at the
model's node count, its statistics as JSON and its four-panel figure.

    python docs/figures/workload_compare.py [--traces /work/shared/workloads]

Nothing in the page is typed in: rerun this script after a model is refitted. A trace that is not found (in
``--traces`` or the archive's cache) is left out of the page, which says so.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "docs" / "_static"
PAGE = ROOT / "docs" / "reference" / "workload-compare.md"
#: (trace file, model file, name in the page); the model file's own node count is used
PAIRS = (
    ("LPC-EGEE-2004-1.2-cln.swf.gz", "gamemarket/data/models/lpc-egee-2004.toml", "LPC-EGEE-2004-1.2-cln"),
    ("SDSC-Par-1996-3.1-cln.swf.gz", "gamemarket/data/models/sdsc-par-1996.toml", "SDSC-Par-1996-3.1-cln"),
)
ROWS = (
    ("jobs", "jobs", "{:,.0f}"),
    ("offered load", "offered_load", "{:.3f}"),
    ("mean run time (s)", "mean_runtime", "{:,.0f}"),
    ("median run time (s)", "median_runtime", "{:,.0f}"),
    ("share of time with a queue", "queue_time_share", "{:.1%}"),
    ("share of jobs that wait", "waiting_job_share", "{:.1%}"),
    ("peak jobs present", "peak_jobs_present", "{:,.0f}"),
    ("days with offered load above 1", "days_overloaded", "{:.1%}"),
    ("99th percentile of hourly offered load", "hourly_load_p99", "{:.2f}"),
    ("CV of inter-arrival gaps", "gap_cv", "{:.1f}"),
    ("autocorrelation of log run time, lag 1", "acf_log_runtime_1", "{:.2f}"),
    ("autocorrelation of log run time, lag 100", "acf_log_runtime_100", "{:.2f}"),
    ("daily-cycle period (h)", "daily_period_h", "{:.1f}"),
)


def nodes_of(model: Path) -> int:
    """The model file's node count (its ``nodes`` line)."""
    for line in model.read_text().splitlines():
        if line.split("=")[0].strip() == "nodes":
            return int(line.split("=")[1])
    raise SystemExit(f"{model}: no nodes line")


def compare(trace: Path, model: Path, figure: Path) -> dict:
    """``gamemarket workload compare`` of the trace and the model: its JSON, and its figure at ``figure``."""
    cmd = [sys.executable, "-m", "gamemarket", "workload", "compare", str(trace), str(model)]
    cmd += ["--nodes", str(nodes_of(model)), "--format", "json", "--figure", str(figure), "--force"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def section(name: str, data: dict, figure: str) -> list[str]:
    """The page's part for one trace: the statistics side by side, then the figure."""
    (trace_label, a), (model_label, b) = data["workloads"].items()
    lines = [f"## {name}", "", f"{data['nodes']} nodes; congestion from one run of {data['mechanism']} on each.", ""]
    lines += [f"| statistic | trace | model: {model_label} |", "| --- | --- | --- |"]
    for label, key, fmt in ROWS:
        if key in a and key in b:
            lines.append(f"| {label} | {fmt.format(a[key])} | {fmt.format(b[key])} |")
    lines += ["", f"![{name}: trace against its fitted model](../_static/{figure})", ""]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default=str(ROOT.parent / "shared" / "workloads"))
    a = ap.parse_args()
    lines = [
        "# Traces against their fitted models",
        "",
        "Made by `python docs/figures/workload_compare.py` from the traces and the model files in",
        "`gamemarket/data/models/` (`gamemarket workload compare TRACE MODEL --nodes N` at the model's own node",
        "count and the command's default seed, named in each section); nothing here is typed in. How a model",
        "is fitted: [the how-to](../how-to/workload-model.md). At another node count the two offered loads differ",
        "by design (a model draws its arrivals at its own load on the nodes given; a trace keeps its arrival times),",
        "and the command says so below its table.",
        "",
    ]
    for trace_file, model, name in PAIRS:
        trace = Path(a.traces) / trace_file
        if not trace.exists():
            lines += [f"## {name}", "", f"(not made: the trace {trace_file} was not found)", ""]
            continue
        figure = f"workload-compare-{name.lower()}.png"
        lines += section(name, compare(trace, ROOT / model, STATIC / figure), figure)
    PAGE.write_text("\n".join(lines))
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
