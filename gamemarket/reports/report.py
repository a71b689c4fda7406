"""Assemble a study's report: ``index.html`` and ``report.md`` with the same content, figures, CSVs."""

from __future__ import annotations

import html
import time
from pathlib import Path

import numpy as np

from gamemarket import __version__
from gamemarket.analysis import analyze, export, slug
from gamemarket.reports import figures


def _md_table(headers, rows) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


MARKER = ".gamemarket-study"


def claim_folder(out: Path, spec, force: bool = False) -> None:
    """Make ``out`` the report folder of ``spec``: a folder that records another study is refused
    unless ``force`` (a copied study file that kept its name would replace another study's report)."""
    from gamemarket.errors import InputError

    import os

    out = Path(out)
    marker = out / MARKER
    # the study file relative to the folder: the same in every clone of a repository
    me = os.path.relpath(spec.path, out.resolve()) if spec.path else spec.name
    if marker.exists() and not force:
        owner = marker.read_text().strip()
        if owner and owner != me:
            raise InputError(f"{out}: this report folder belongs to the study {owner}, not {me}; give the study "
                             f"another name or [output] report folder, or pass --force to replace it")
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(me + "\n")


def write_report(spec, wall_seconds: float | None = None, methods=("pure", "polytope"), resamples: int = 1000,
                 force: bool = False) -> Path:
    """Write ``<report_dir>/index.html``, ``report.md``, figures and ``data/`` tables; return the HTML path."""
    t0 = time.perf_counter()
    out = Path(spec.report_dir)
    claim_folder(out, spec, force)
    an = analyze(spec, with_bins=True, methods=methods, resamples=resamples)
    export(an, out / "data")
    md: list[str] = []
    meta = an.meta
    md.append(f"# Study report: {spec.name}\n")
    if spec.description:
        md.append(spec.description + "\n")
    md.append("## Setup\n")
    wl = meta.get("workload")
    md.append(_md_table(["item", "value"], [
        ["workload", wl + (f" (SHA-256 `{meta['workload_sha256']}`)" if meta.get("workload_sha256") else "")],
        ["synthetic parameters", ", ".join(f"{k} = {v}" for k, v in meta["synthetic"].items()) if meta.get("synthetic") else "-"],
        ["jobs", meta["jobs"]], ["resource types" if meta.get("kind") == "pricing" else "nodes", meta["nodes"]],
        ["provider strategies", ", ".join(
            f"{k} ({v['scheduler']}, {v['payment']}, r={v['reserve']:g})" if v["kind"] == "scheduling"
            else f"{k} ({', '.join(f'{a}={b}' for a, b in v.items() if a != 'kind')})"
            for k, v in meta["providers"].items())],
        ["consumer strategies", ", ".join(f"{k} {v['groups']}" for k, v in meta["consumers"].items())],
        ["replication seeds", ", ".join(str(s) for s in meta["seeds"])],
        ["gamemarket version", __version__],
        ["study wall time", _wall(spec, wall_seconds)],
        ["summed simulation time", f"{an.metrics['task_seconds'].sum():.1f} s"],
    ]) + "\n")
    figs: list[tuple[str, Path]] = []
    md.append("## Games and equilibria\n")
    md.append("Payoffs are means over the replication seeds with 95% Student-t half-widths. Every equilibrium "
              "is verified by its regret (the best gain from a unilateral deviation) on the mean payoffs; "
              f"robustness is the share of {resamples} bootstrap resamples of the seeds in which it remains an "
              "equilibrium (for a mixed one: an equilibrium with the same supports exists), with a 95% "
              "interval of its regret.\n")
    for sg in an.games:
        g, sol = sg.game, sg.solution
        md.append(f"### {sg.name}\n")
        md.append(f"Provider payoff: `{g.meta['provider_payoff']}`; consumer payoff: `{g.meta['consumer_payoff']}`."
                  + (f" Left out (payoff undefined): {', '.join(g.meta['dropped_consumers'])}." if g.meta.get("dropped_consumers") else "")
                  + "\n")
        path = figures.payoff_heatmaps(sg, out / f"heatmap-{slug(sg.name)}.png")
        md.append(f"![{sg.name}]({path.name})\n")
        rows = []
        for k, (e, rb) in enumerate(zip(sol.equilibria, sg.robustness)):
            px = " + ".join(f"{e.x[i]:.3g} {g.rows[i]}" for i in np.flatnonzero(e.x > 0))
            py = " + ".join(f"{e.y[j]:.3g} {g.cols[j]}" for j in np.flatnonzero(e.y > 0))
            rob = (f"{rb.stable_share:.0%}; regret CI provider [{rb.regret_provider[1]:.3g}, {rb.regret_provider[2]:.3g}], "
                   f"consumer [{rb.regret_consumer[1]:.3g}, {rb.regret_consumer[2]:.3g}]") if rb else "-"
            rows.append([k + 1, "pure" if e.pure else "mixed", px, py, f"{e.payoffs[0]:.6g}", f"{e.payoffs[1]:.6g}",
                         f"{max(e.regret):.2g}", rob])
        md.append(_md_table(["#", "kind", "provider", "consumer", "provider payoff", "consumer payoff", "regret",
                             "robustness"], rows) + "\n")
        md.append(f"Degenerate game: {'yes (all extreme equilibria listed)' if sol.degenerate else 'no'}. "
                  f"Strictly dominated (iterated): provider {', '.join(sol.dominated_rows) or 'none'}; "
                  f"consumer {', '.join(sol.dominated_cols) or 'none'}.\n")
        for note in sol.notes:
            md.append(f"- note: {note}\n")
    claim_rows = _claims(spec, an) if meta.get("kind") == "scheduling" else []
    if claim_rows:
        md.append("## Claims of Shudler et al. (2010), measured\n")
        md.append("Paired by replication seed (common random numbers: the pairs share every private bid); "
                  "mean difference [95% t-interval over seeds]. *supported*: the interval lies on the claimed "
                  "side of zero; *contradicted*: on the other side; *inconclusive*: it covers zero. For claim (4) "
                  "under k-th price, 'gain nothing' is supported unless the gain is significantly positive. "
                  "Low bids: private bid < 60; high: >= 120. Claims (1)-(3) use the risk-aggressive group of SRG.\n")
        headers = ["claim", "paper", "measured: " + spec.name, "verdict"]
        comp_names = [c for c, _ in claim_rows[1:]]
        headers += [f"{h}: {n}" for n in comp_names for h in ("measured", "verdict")]
        base = claim_rows[0][1]
        others = [dict((r["claim"], r) for r in rows) for _, rows in claim_rows[1:]]
        table = []
        for r in base:
            row = [r["claim"], r["paper"], r["measured"], f"**{r['verdict']}**"]
            for o in others:
                c = o.get(r["claim"])
                row += [c["measured"], f"**{c['verdict']}**"] if c else ["-", "-"]
            table.append(row)
        md.append(_md_table(headers, table) + "\n")
        from gamemarket.claims import claims_csv

        claims_csv(claim_rows).to_csv(out / "data" / "claims.csv", index=False)
        md.append("Every claim with its mechanism, group, bid class, statistic, mean, interval and verdict: "
                  "`data/claims.csv`. *follows from the rules*: under HB the schedule depends only on the "
                  "reported bids, and the k-th price never exceeds the first, so k-th price cannot lower a "
                  "user's utility; the row shows the measured difference and checks the rule on every seed.\n")
    if spec.gains:
        from gamemarket.incentives import gains

        per_seed, summ = gains(spec, run=False)
        summ.to_csv(out / "data" / "shading-gains.csv", index=False)
        per_seed.to_csv(out / "data" / "shading-gains-per-seed.csv", index=False)
        path = figures.gain_plot(summ, out / "fig-shading-gain.png")
        md.append("## How much does shading pay as the market grows?\n")
        md.append("Per-job utility gain of the shading users over the same jobs' truthful run (same seed), "
                  "mean with a 95% t-interval over seeds. *SRG*: everyone bids by the SRG model, the aggressive "
                  "10% are measured; *DEV1*: only 1% of the jobs shade (beta 0.9), everyone else is truthful. "
                  "Relative: the gain divided by the same jobs' mean truthful utility.\n")
        md.append(f"![shading gain]({path.name})\n")
        rows = [[r.mechanism, r.way, f"{int(r.n):,}", int(r.seeds), f"{r.cohort_jobs:.0f}",
                 f"{r.gain:+.4g} [{r.ci_low:+.4g}, {r.ci_high:+.4g}]",
                 f"{r.relative_gain:+.2%}" if np.isfinite(r.relative_gain) else "n/a (truthful utility 0)"]
                for r in summ.itertuples()]
        md.append(_md_table(["mechanism", "who shades", "jobs", "seeds", "shading jobs", "gain per job [95% CI]",
                             "relative"], rows) + "\n")
    if spec.notes:
        md.append("## Discussion\n")
        md.append(spec.notes.strip() + "\n")
    from gamemarket.studies.runner import load_cohorts

    gp = figures.grid_gain_heatmap(an.metrics, meta["consumers"], out / "heatmap-beta-grid.png", load_cohorts(spec))
    if gp:
        figs.append(("aggressive users' utility gain over truthful bidding across the beta-mix grid", gp))
    if meta.get("kind") == "scheduling":
        figs += figures.paper_figures(an.bins, meta["consumers"], out)
    if figs:
        md.append("## Figures\n")
        for caption, path in figs:
            md.append(f"**{caption}**\n\n![{caption}]({path.name})\n")
    md.append("## Data\n")
    md.append("Tables in `data/`: `runs.csv` (every run's payoffs), `payoffs-*.csv`, `equilibria.csv`, "
              "`equilibria.json` (with metadata), `best-responses-*.csv`, and `game-*.nfg` (Gambit).\n")
    md.append(f"\n_Report written in {time.perf_counter() - t0:.1f} s by gamemarket {__version__}._\n")
    text = "\n".join(md)
    (out / "report.md").write_text(text)
    (out / "index.html").write_text(_to_html(text, spec.name))
    return out / "index.html"


def _wall(spec, wall_seconds) -> str:
    import json

    parts = []
    from gamemarket.studies import load_study

    runs = [spec] + [load_study(c) for c in spec.companions]
    for s in runs:
        f = Path(s.results_dir) / "last-run.json"
        if f.exists():
            info = json.loads(f.read_text())
            parts.append(f"{s.name}: {info['wall_seconds']:.0f} s for {info['run']} runs with n_jobs={info['n_jobs']} "
                         f"(summed run time {info['task_seconds']:.0f} s, finished {info.get('finished', '?')})")
    if wall_seconds is not None:
        parts.append(f"this command: {wall_seconds:.1f} s")
    return "; ".join(parts) or "-"


def _claims(spec, an) -> list[tuple[str, list[dict]]]:
    """Claims measured on this study and on each companion study whose results are stored."""
    from gamemarket import claims
    from gamemarket.errors import InputError
    from gamemarket.studies import load_results, load_study
    from gamemarket.studies.runner import load_cohorts

    out = [(spec.name, claims.evaluate(an.metrics, an.bins, load_cohorts(spec), an.meta["consumers"],
                                       an.meta["providers"]))]
    if not out[0][1]:
        return []
    for cpath in spec.companions:
        cs = load_study(cpath)
        try:
            m, b, meta = load_results(cs, with_bins=True)
        except InputError:
            continue
        out.append((cs.name, claims.evaluate(m, b, load_cohorts(cs), meta["consumers"], meta["providers"])))
    return out


def _to_html(md: str, title: str) -> str:
    """A small Markdown subset (headings, tables, images, paragraphs, bullet notes) as HTML."""
    lines = md.split("\n")
    body = []
    i = 0

    def inline(s):
        s = html.escape(s)
        import re

        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
        s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"_([^_]+)_$", r"<em>\1</em>", s)
        return s

    while i < len(lines):
        ln = lines[i]
        if ln.startswith("#"):
            level = len(ln) - len(ln.lstrip("#"))
            body.append(f"<h{level}>{inline(ln[level:].strip())}</h{level}>")
        elif ln.startswith("!["):
            alt, src = ln[2:].split("](", 1)
            body.append(f'<figure><img src="{html.escape(src.rstrip(")"))}" alt="{html.escape(alt)}"></figure>')
        elif ln.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not lines[i].startswith("|---"):
                    rows.append([c.strip() for c in lines[i].strip("|").split(" | ")])
                i += 1
            body.append("<table><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in rows[0]) + "</tr></thead><tbody>"
                        + "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
                        + "</tbody></table>")
            continue
        elif ln.startswith("- "):
            body.append(f"<ul><li>{inline(ln[2:])}</li></ul>")
        elif ln.strip():
            body.append(f"<p>{inline(ln)}</p>")
        i += 1
    style = ("body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
             "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:4px 8px}"
             "th{background:#f3f3f3}img{max-width:100%}code{background:#f6f6f6;padding:0 3px}")
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
