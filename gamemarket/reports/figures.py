"""The study report's figures: payoff heatmaps and beta-grid gains (seaborn), the paper's curves, the
shading gain against market size. Each figure is a function of its inputs alone, drawn where it is called
(a worker process of ``FigureJobs`` or the report's)."""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:  # a notebook keeps its own (inline) backend: its user's figures still show
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from gamemarket.analysis.shading import paper_strategies  # noqa: E402
from gamemarket.consumers import from_params  # noqa: E402
from gamemarket.market.outcomes import RUNTIME_GROUPS  # noqa: E402
from gamemarket.market.payoffs import BID_UNIT, aggressive_group, unit  # noqa: E402
from gamemarket.reports.drawing import PAGE_PX, people_ticks, save  # noqa: E402
from gamemarket.reports.markdown import compact, num  # noqa: E402

LARGE_GAME = 6  #: a game with more strategies than this on either side is drawn stacked, values only
#: the narrowest a stacked heatmap's cell may be on a report's page (pixels) and still hold its value ("10.7G") at the
#: smallest legible size (``drawing.MIN_TEXT_PX``, about 34 px wide): a game of more columns is drawn without them
MIN_CELL_PX = 40


def colour_scale(values, *, sequential: str = "viridis", diverging: str = "RdBu") -> dict:
    """The colour scale of a heatmap of ``values``: diverging, centred at 0, only when the values change
    sign (their colours then say the sign), else sequential (a diverging map centred elsewhere would
    read as a sign that is not there).

    Parameters
    ----------
    values : array_like
        The values the scale covers (NaN ignored).
    sequential, diverging : str
        The colormaps of each case.

    Returns
    -------
    dict
        ``cmap`` and ``center`` for ``seaborn.heatmap``.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size and v.min() < 0 < v.max():
        return {"cmap": diverging, "center": 0.0}
    return {"cmap": sequential, "center": None}


def heatmap(
    ax,
    data: pd.DataFrame,
    *,
    annot=None,
    digits: int = 3,
    cbar_label: str = "",
    fontsize: float = 7,
    **kws,
):
    """An annotated heatmap of a labelled matrix, drawn by ``seaborn.heatmap``: rows top down, every row
    and column labelled (the rows' labels upright), the colour scale by :func:`colour_scale` unless
    ``cmap`` is given.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    data : pandas.DataFrame
        The matrix; its index and columns label the rows and columns, their names the axes.
    annot : None, False or array of str
        The cells' labels: None for the values as the reports write numbers (:func:`markdown.num`, ``digits``
        significant digits), False for none, or one string a cell.
    digits : int
        The values' significant digits where ``annot`` is None.
    cbar_label : str
        The colour bar's label.
    fontsize : float
        The cells' labels' font size.
    **kws
        Passed to ``seaborn.heatmap``: ``cmap``, ``center``, ``vmin``, ``vmax``, ``cbar``, ``linewidths``, ...

    Returns
    -------
    matplotlib.axes.Axes
        ``ax``.
    """
    # deferred: seaborn imports scipy.stats (half a second); a worker process that draws imports it once
    import seaborn as sns

    if "cmap" not in kws:
        kws.update(colour_scale(data.to_numpy()))
    if annot is None:  # the values as the reports write numbers, not seaborn's %g (6.462e+08)
        annot = np.vectorize(lambda v: num(v, digits))(data.to_numpy(dtype=float))
    annot = annot if annot is False else np.asarray(annot)
    # seaborn draws the whole figure once per heatmap, to check whether this axes' tick labels overlap: the
    # figure's other axes (earlier panels, their annotations) are hidden meanwhile, so that a figure of k
    # panels is not drawn k times over (the file is the same: tested)
    others = [a for a in ax.figure.axes if a is not ax and a.get_visible()]
    for a in others:
        a.set_visible(False)
    try:
        sns.heatmap(
            data,
            ax=ax,
            annot=annot,
            fmt="",
            annot_kws={"fontsize": fontsize},
            cbar_kws={"label": cbar_label},
            xticklabels=True,
            yticklabels=True,
            **kws,
        )
    finally:
        for a in others:
            a.set_visible(True)
    ax.tick_params(axis="y", rotation=0)
    bar = getattr(ax.collections[0], "colorbar", None) if ax.collections else None
    if bar is not None:  # its ticks as the reports write numbers, without an offset label such as 1e8
        people_ticks(bar.ax.yaxis)
    for t in ax.texts:  # the annotations lie inside their cells: tight_layout need not measure them
        t.set_in_layout(False)
    return ax


#: the widest value a side-by-side heatmap's cell holds written out ("646,200,000"); wider ones are written compactly
#: ("10.23G"), the figure's title saying so: "10,230,000,000" overran its cell at page width
CELL_CHARS = 11


def _annot(M, C) -> tuple[np.ndarray, bool]:
    """Each cell's mean and 95% half-width, written out, or compactly where one would be wider than ``CELL_CHARS``;
    and whether they are compact."""
    short = max((len(num(v, 4)) for v in M.ravel()), default=0) > CELL_CHARS
    write = (lambda v, d: compact(v, d)) if short else num
    cells = [
        [
            f"{write(M[i, j], 4)}\n±{write(C[i, j], 2)}" if np.isfinite(C[i, j]) else write(M[i, j], 4)
            for j in range(M.shape[1])
        ]
        for i in range(M.shape[0])
    ]
    return np.array(cells), short


def payoff_heatmaps(sg, path: Path, consumer_kind: str | None = "beta mix") -> Path:
    """Both players' payoff matrices; pure equilibria outlined, mixed supports marked.

    ``consumer_kind`` names what the columns are in the axis label ("beta mix"), None where the study's
    consumer strategies are of several families (a plugin's beside the beta mixes).

    A small game shows both matrices side by side with each mean's 95% half-width; a large one
    (more than ``LARGE_GAME`` strategies a side) stacks them and prints means only, so that the
    figure stays readable (the half-widths are in the payoff CSV); one whose cells would be narrower than
    ``MIN_CELL_PX`` on the page (more than 24 columns) shows the colours only, and says so."""
    g, sol = sg.game, sg.solution
    ca, cb = g.ci()
    m, n = g.shape
    large = max(m, n) > LARGE_GAME
    valued = True
    if large:
        width, dpi = 0.75 * n + 3.5, 100
        valued = 0.75 * dpi * min(1.0, PAGE_PX / (width * dpi)) >= MIN_CELL_PX
        fig, axes = plt.subplots(2, 1, figsize=(width, 2 * (0.45 * m + 1.6)))
    else:
        fig, axes = plt.subplots(1, 2, figsize=(max(8, 2.6 * n + 4), max(3, 0.9 * m + 1.6)))
    compacted = False
    for ax, M, C, who in ((axes[0], g.A, ca, g.players[0]), (axes[1], g.B, cb, g.players[1])):
        df = pd.DataFrame(M, index=g.rows, columns=g.cols)
        metric = g.meta.get(who + "_payoff", "")
        if large:
            annot = np.vectorize(lambda v: compact(v, 3))(M) if valued else False
        else:
            annot, short = _annot(M, C)
            compacted |= short
        # each matrix its own scale: diverging at 0 only where its payoffs change sign
        heatmap(ax, df, annot=annot, cbar_label=unit(metric), linewidths=0.5, linecolor="white")
        ax.set_title(f"{who} payoff: {metric} ({unit(metric)})", fontsize=9)
        ax.set_xlabel(f"{g.players[1]} strategy" + (f" ({consumer_kind})" if consumer_kind else ""))
        if large:  # upright beside a panel of a few rows, which a label along the axis overran (and the next one's)
            ax.set_ylabel(f"{g.players[0]}\nstrategy\n(mechanism)", rotation=0, ha="right", va="center", labelpad=10)
        elif m <= 2:  # in two lines beside a panel of one or two rows (a 1 x 1 game's ran into the title)
            ax.set_ylabel(f"{g.players[0]} strategy\n(mechanism)")
        else:
            ax.set_ylabel(f"{g.players[0]} strategy (mechanism)")
        for e in sol.equilibria:
            if e.pure:
                i, j = int(np.argmax(e.x)), int(np.argmax(e.y))
                ax.add_patch(Rectangle((j, i), 1, 1, fill=False, edgecolor="black", lw=3))
            else:
                for i in np.flatnonzero(e.x > 0):
                    for j in np.flatnonzero(e.y > 0):
                        ax.add_patch(
                            Rectangle((j + 0.08, i + 0.08), 0.84, 0.84, fill=False, edgecolor="orange", lw=1.5, ls="--")
                        )
    cells = "; cells: k thousand, M million, G billion" if large or compacted else ""
    if not valued:  # the values would overlap at page width
        cells = f"; {n} columns: too many to print the values (the payoff table in data/ has them)"
    fig.suptitle(
        f"{sg.name}: black box = pure equilibrium, dashed = support of a mixed equilibrium{cells}", fontsize=10
    )
    save(fig, path, dpi=100 if large else 110)
    return path


def grid_gain_heatmap(gains: pd.DataFrame, path: Path) -> Path | None:
    """Per mechanism, over the beta-mix grid (aggressive fraction x beta): the aggressive users' gain
    over the same jobs' truthful run, the table :func:`gamemarket.analysis.claims.grid_gains` computes.
    None where the table is empty."""
    if gains is None or not len(gains):
        return None
    provs = list(dict.fromkeys(gains["provider"]))
    ncol = min(4, len(provs))
    nrow = -(-len(provs) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.8 * ncol, 3.2 * nrow), squeeze=False)
    # one scale for every panel: diverging at 0 where the gains change sign, else sequential in the colour
    # of their sign (red: shading loses, blue: it pays), darker for a larger gain or loss
    gain = gains["gain"].to_numpy(dtype=float)
    lo, hi = float(np.nanmin(gain)), float(np.nanmax(gain))
    scale = colour_scale(gain, sequential="Reds_r" if hi <= 0 else "Blues")
    if scale["center"] is not None:
        lim = max(-lo, hi)
        lo, hi = -lim, lim
    elif lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    for k, p in enumerate(provs):
        ax = axes[k // ncol][k % ncol]
        piv = gains[gains["provider"] == p].pivot(index="fraction", columns="beta", values="gain")
        heatmap(
            ax,
            piv,
            **scale,
            vmin=lo,
            vmax=hi,
            cbar=k % ncol == ncol - 1,
            cbar_label="gain (bid x s per job)",
        )
        ax.set_title(p, fontsize=9)
        ax.set_xlabel("aggressive group's beta")
        ax.set_ylabel("aggressive fraction of jobs")
    for k in range(len(provs), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    fig.suptitle(
        "aggressive users' mean utility minus the same jobs' mean utility when truthful (FT, same seed); "
        "red: shading loses, blue: it pays",
        fontsize=9,
    )
    save(fig, path, dpi=110)
    return path


def _curve(bins: pd.DataFrame, value: str) -> pd.DataFrame:
    """Per seed and bid bin: mean of ``value`` (bsd, ssj share or utility) from the binned sums."""
    g = bins.groupby(["seed", "bid_bin"], as_index=False)[["n", "sum_bsd", "n_ssj", "sum_utility"]].sum()
    col = {"bsd": "sum_bsd", "ssj": "n_ssj", "utility": "sum_utility"}[value]
    g["value"] = g[col] / g["n"]
    return g


def _band(ax, df, label, color):
    s = df.groupby("bid_bin")["value"]
    mean, sd, cnt = s.mean(), s.std(ddof=1), s.count()
    half = 1.96 * sd / np.sqrt(cnt)
    x = mean.index.to_numpy() + 5
    ax.plot(x, mean.to_numpy(), label=label, color=color, marker="o", ms=3)
    ax.fill_between(x, (mean - half).to_numpy(), (mean + half).to_numpy(), color=color, alpha=0.2)


def _agg_rows(bins: pd.DataFrame, consumers: dict, consumer: str) -> pd.DataFrame:
    """The binned rows of a mix's aggressive group (all its rows when it has none)."""
    betas = from_params(consumers[consumer], consumer).group_betas()
    a = aggressive_group(betas)
    sub = bins[bins["consumer"] == consumer]
    return sub if a is None else sub[sub["group"] == a]


def _fig_srg_vs_ft(
    bins: pd.DataFrame, consumers: dict, names: tuple[str, str], value: str, ylabel: str, path: Path
) -> Path:
    """The paper's Figs. 1-2: the SRG risk-aggressive users against all users under FT (``names``: the study's
    strategies that are the paper's FT and SRG), one panel per mechanism."""
    ft, srg_name = names
    provs = list(dict.fromkeys(bins["provider"]))
    ncol = min(4, len(provs))
    nrow = -(-len(provs) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.8 * ncol, 3.2 * nrow), squeeze=False, sharey=True)
    for k in range(len(provs), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    srg = _agg_rows(bins, consumers, srg_name)
    for ax, p in zip(axes.ravel(), provs):
        _band(ax, _curve(srg[srg["provider"] == p], value), "SRG risk-aggressive", "C3")
        _band(ax, _curve(bins[(bins["consumer"] == ft) & (bins["provider"] == p)], value), "FT all users", "C0")
        ax.set_title(p, fontsize=9)
        ax.set_xlabel(f"private bid ({BID_UNIT})")
    for row in axes:
        row[0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def _fig_bsd_schedulers(bins: pd.DataFrame, consumers: dict, srg_name: str, scheds: list[str], path: Path) -> Path:
    """The paper's Fig. 3: the SRG risk-aggressive users' BSD by scheduler (``srg_name``: the study's SRG)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    srg = _agg_rows(bins, consumers, srg_name)
    for k, p in enumerate(scheds):
        _band(ax, _curve(srg[srg["provider"] == p], "bsd"), p, f"C{k}")
    ax.set_xlabel(f"private bid ({BID_UNIT})")
    ax.set_ylabel("average BSD (SRG risk-aggressive)")
    ax.legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def _fig_utility_runtime_groups(
    bins: pd.DataFrame, consumers: dict, names: tuple[str, str], hb: list[str], path: Path
) -> Path:
    # Figs. 5-7: average utility of the risk-aggressive users (red) and of all users bidding truthfully
    # (blue), per runtime group; one row per payment scheme, so the two never overlap. ``names``: the study's
    # strategies that are the paper's FT and SRG
    ft, srg_name = names
    fig, axes = plt.subplots(len(hb), 3, figsize=(12, 3.1 * len(hb)), squeeze=False)
    agg = _agg_rows(bins, consumers, srg_name)
    for row, p in zip(axes, hb):
        for ax, rg in zip(row, RUNTIME_GROUPS):
            for sub, label, color in (
                (agg[(agg["provider"] == p) & (agg["runtime_group"] == rg)], "SRG risk-aggressive users", "C3"),
                (
                    bins[(bins["provider"] == p) & (bins["consumer"] == ft) & (bins["runtime_group"] == rg)],
                    "FT all users",
                    "C0",
                ),
            ):
                if len(sub):
                    _band(ax, _curve(sub, "utility"), label, color)
            ax.set_title(f"{p}: {rg} jobs", fontsize=9)
            ax.set_xlabel(f"private bid ({BID_UNIT})")
        row[0].set_ylabel("average utility (bid x s)")
    axes[0][0].legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def paper_figure_plan(bins: pd.DataFrame, consumers: dict, out) -> list[tuple[str, object, tuple]]:
    """The paper's figures that the study's profiles allow, without drawing them: (caption, function,
    arguments) each, so that a report can draw them in parallel; ``function(*arguments)`` draws one and
    returns its path. ``out`` is the report's ``OutputFolder`` (each figure's file is entered in its manifest).
    The figures read the study's strategies that are the paper's FT and SRG (``paper_strategies``): none where the
    study has no such pair (its own FT or SRG of another definition is not the paper's)."""
    paper = paper_strategies(consumers)
    ft, srg = paper.name("FT"), paper.name("SRG")
    if not (ft and srg):
        return []
    names = (ft, srg)
    provs = list(dict.fromkeys(bins["provider"]))
    # only the rows and columns these figures read travel to the processes that draw them
    keep = ["provider", "consumer", "group", "runtime_group", "seed", "bid_bin", "n", "sum_bsd", "n_ssj", "sum_utility"]
    bins = bins.loc[bins["consumer"].isin([srg, ft]), keep]
    plan = []
    for value, ylabel in (("bsd", "average BSD"), ("ssj", "share of SSJs")):
        path = out.file(f"fig-{value}-srg-vs-ft.png")
        plan.append(
            (
                f"{ylabel} against the private bid: risk-aggressive users (SRG) vs all users (FT)",
                _fig_srg_vs_ft,
                (bins, consumers, names, value, ylabel, path),
            )
        )
    scheds = [p for p in provs if p.endswith("-first")] or provs
    if len(scheds) > 1:
        path = out.file("fig-bsd-schedulers.png")
        plan.append(
            (
                "average BSD of the risk-aggressive users (SRG) by scheduler",
                _fig_bsd_schedulers,
                (bins, consumers, srg, scheds, path),
            )
        )
    hb = [p for p in provs if p.startswith("hb-")]
    if hb:
        path = out.file("fig-utility-runtime-groups.png")
        plan.append(
            (
                "average utility against the private bid, per runtime group and payment scheme: "
                "risk-aggressive users (SRG) vs all users bidding truthfully (FT), as in the paper's "
                "Figs. 5-7",
                _fig_utility_runtime_groups,
                (bins, consumers, names, hb, path),
            )
        )
    return plan


def paper_figures(bins: pd.DataFrame, consumers: dict, out) -> list[tuple[str, Path]]:
    """The paper's figures that the study's profiles allow (each with 95% bands across seeds), drawn here."""
    return [(caption, func(*args)) for caption, func, args in paper_figure_plan(bins, consumers, out)]


def gain_plot(summary: pd.DataFrame, path: Path) -> Path:
    """The shading users' per-job gain against market size, per mechanism, with 95% intervals."""
    ways = list(dict.fromkeys(summary["way"]))
    fig, axes = plt.subplots(1, len(ways), figsize=(5.2 * len(ways), 3.6), squeeze=False, sharey=False)
    for ax, way in zip(axes[0], ways):
        for k, (mech, g) in enumerate(summary[summary["way"] == way].groupby("mechanism", sort=False)):
            g = g.sort_values("n")
            ax.plot(g["n"], g["gain"], marker="o", color=f"C{k}", label=mech)
            ax.fill_between(g["n"], g["ci_low"], g["ci_high"], color=f"C{k}", alpha=0.2)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("jobs in the market (fixed resource types and load)")
        ax.set_ylabel("utility gain per shading job (bid x s)")
        people_ticks(ax.yaxis)
        ax.set_title(
            {
                "SRG": "SRG: the aggressive 10% vs the same jobs truthful",
                "DEV1": "DEV1: 1% deviators vs the same jobs truthful",
            }.get(way, way),
            fontsize=9,
        )
        ax.legend(fontsize=7)
    save(fig, path, dpi=110)
    return path
