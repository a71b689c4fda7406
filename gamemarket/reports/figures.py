"""Figures (the only module that draws): payoff heatmaps, beta-grid gains, the paper's curves."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from gamemarket.market.outcomes import RUNTIME_GROUPS  # noqa: E402
from gamemarket.market.payoffs import BID_UNIT, aggressive_group, unit  # noqa: E402
from gamemarket.reports.drawing import save  # noqa: E402

LARGE_GAME = 6  #: a game with more strategies than this on either side is drawn stacked, values only


def relative_luminance(rgba) -> np.ndarray:
    """The W3C relative luminance of RGBA colours (the last axis), computed as seaborn's
    ``utils.relative_luminance`` computes it (tested equal), so that a process that draws does not import
    seaborn, and with it scipy.stats, for three lines."""
    rgb = np.asarray(rgba, dtype=float)[..., :3]
    rgb = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    # summed left to right, as a three-term dot product is: a matrix product would round differently
    return rgb[..., 0] * 0.2126 + rgb[..., 1] * 0.7152 + rgb[..., 2] * 0.0722


def heatmap(
    ax,
    data: pd.DataFrame,
    *,
    annot=None,
    fmt: str = ".3g",
    cmap="viridis",
    center: float | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    cbar: bool = True,
    cbar_label: str = "",
    fontsize: float = 7,
    linewidths: float = 0.0,
    linecolor: str = "white",
):
    """An annotated heatmap of a labelled matrix, drawn as seaborn's ``heatmap`` draws it (rows top down,
    a colormap centred on ``center`` and cut to the data's range, annotation colour by the cell's
    luminance), without its tick-overlap check, which draws the whole figure once per heatmap (seconds
    for a report's stacked game matrices).

    ``annot``: None (the values, formatted by ``fmt``), False, or an array of strings."""
    import matplotlib.colors as mcolors
    from matplotlib.font_manager import FontProperties

    M = np.asarray(data.to_numpy(), dtype=float)
    finite = M[np.isfinite(M)]
    lo = float(finite.min()) if vmin is None and finite.size else (vmin if vmin is not None else 0.0)
    hi = float(finite.max()) if vmax is None and finite.size else (vmax if vmax is not None else 1.0)
    cm = plt.get_cmap(cmap) if isinstance(cmap, str) else cmap
    if center is not None:  # seaborn's recentring: the colormap's middle at ``center``, cut to [lo, hi]
        vrange = max(hi - center, center - lo) or 1.0
        cut = np.linspace(0.5 + (lo - center) / (2 * vrange), 0.5 + (hi - center) / (2 * vrange), 256)
        cm = mcolors.ListedColormap(cm(cut))
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    mesh = ax.pcolormesh(
        np.ma.masked_invalid(M),
        cmap=cm,
        vmin=lo,
        vmax=hi,
        edgecolors=linecolor if linewidths else "face",
        linewidth=linewidths,
    )
    ax.set(xlim=(0, M.shape[1]), ylim=(0, M.shape[0]))
    ax.invert_yaxis()
    for side in ax.spines.values():
        side.set_visible(False)
    if cbar:
        cb = ax.figure.colorbar(mesh, ax=ax)
        cb.outline.set_linewidth(0)
        if cbar_label:
            cb.set_label(cbar_label)
    # column labels across when they fit their cells (at about 0.6 em per character), else upright
    xl = [str(c) for c in data.columns]
    cell_in = ax.get_position().width * ax.figure.get_figwidth() / max(M.shape[1], 1)
    pts = FontProperties(size=plt.rcParams["xtick.labelsize"]).get_size_in_points()
    fits = max((len(x) for x in xl), default=0) * 0.6 * pts / 72 < cell_in
    ax.set_xticks(np.arange(M.shape[1]) + 0.5, xl, rotation=0 if fits else 90)
    ax.set_yticks(np.arange(M.shape[0]) + 0.5, [str(r) for r in data.index], rotation=0, va="center")
    ax.tick_params(length=0)
    if annot is not False:
        labels = np.vectorize(lambda v: format(v, fmt))(M) if annot is None else np.asarray(annot)
        lum = relative_luminance(mesh.cmap(mesh.norm(M)))
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                if np.isfinite(M[i, j]):
                    dark = lum[i, j] <= 0.408
                    ax.text(
                        j + 0.5,
                        i + 0.5,
                        labels[i, j],
                        ha="center",
                        va="center",
                        fontsize=fontsize,
                        color="white" if dark else "black",
                    ).set_in_layout(False)  # inside its cell: tight_layout need not measure it
    ax.set_xlabel(data.columns.name or "")
    ax.set_ylabel(data.index.name or "")
    return mesh


def _annot(M, C):
    return np.array(
        [
            [f"{M[i, j]:.4g}\n±{C[i, j]:.2g}" if np.isfinite(C[i, j]) else f"{M[i, j]:.4g}" for j in range(M.shape[1])]
            for i in range(M.shape[0])
        ]
    )


def payoff_heatmaps(sg, path: Path) -> Path:
    """Both players' payoff matrices; pure equilibria outlined, mixed supports marked.

    A small game shows both matrices side by side with each mean's 95% half-width; a large one
    (more than ``LARGE_GAME`` strategies a side) stacks them and prints means only, so that the
    figure stays readable (the half-widths are in the payoff CSV)."""
    g, sol = sg.game, sg.solution
    ca, cb = g.ci()
    m, n = g.shape
    large = max(m, n) > LARGE_GAME
    if large:
        fig, axes = plt.subplots(2, 1, figsize=(0.75 * n + 3.5, 2 * (0.45 * m + 1.6)))
    else:
        fig, axes = plt.subplots(1, 2, figsize=(max(8, 2.6 * n + 4), max(3, 0.9 * m + 1.6)))
    for ax, M, C, who, cmap, center in (
        (axes[0], g.A, ca, g.players[0], "viridis", None),
        (axes[1], g.B, cb, g.players[1], "RdBu_r", None),
    ):
        df = pd.DataFrame(M, index=g.rows, columns=g.cols)
        if who == g.players[1]:  # utilities: a diverging map centred on the column mean
            center = float(np.median(M))
            cmap = "RdBu"
        metric = g.meta.get(who + "_payoff", "")
        annot = np.vectorize(lambda v: f"{v:.3g}")(M) if large else _annot(M, C)
        heatmap(
            ax, df, annot=annot, cmap=cmap, center=center, cbar_label=unit(metric), linewidths=0.5, linecolor="white"
        )
        ax.set_title(f"{who} payoff: {metric} ({unit(metric)})", fontsize=9)
        ax.set_xlabel(f"{g.players[1]} strategy (beta mix)")
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
    fig.suptitle(f"{sg.name}: black box = pure equilibrium, dashed = support of a mixed equilibrium", fontsize=10)
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
    lim = float(np.abs(gains["gain"]).max()) or 1.0
    for k, p in enumerate(provs):
        ax = axes[k // ncol][k % ncol]
        piv = gains[gains["provider"] == p].pivot(index="fraction", columns="beta", values="gain")
        heatmap(
            ax,
            piv,
            cmap="RdBu",
            center=0,
            vmin=-lim,
            vmax=lim,
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
        "blue: shading pays",
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
    betas = np.array([b for _, b in consumers[consumer]["groups"]])
    a = aggressive_group(betas)
    sub = bins[bins["consumer"] == consumer]
    return sub if a is None else sub[sub["group"] == a]


def _fig_srg_vs_ft(bins: pd.DataFrame, consumers: dict, value: str, ylabel: str, path: Path) -> Path:
    provs = list(dict.fromkeys(bins["provider"]))
    ncol = min(4, len(provs))
    nrow = -(-len(provs) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.8 * ncol, 3.2 * nrow), squeeze=False, sharey=True)
    for k in range(len(provs), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    srg = _agg_rows(bins, consumers, "SRG")
    for ax, p in zip(axes.ravel(), provs):
        _band(ax, _curve(srg[srg["provider"] == p], value), "SRG risk-aggressive", "C3")
        _band(ax, _curve(bins[(bins["consumer"] == "FT") & (bins["provider"] == p)], value), "FT all users", "C0")
        ax.set_title(p, fontsize=9)
        ax.set_xlabel(f"private bid ({BID_UNIT})")
    for row in axes:
        row[0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def _fig_bsd_schedulers(bins: pd.DataFrame, consumers: dict, scheds: list[str], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(5.5, 3.5))
    srg = _agg_rows(bins, consumers, "SRG")
    for k, p in enumerate(scheds):
        _band(ax, _curve(srg[srg["provider"] == p], "bsd"), p, f"C{k}")
    ax.set_xlabel(f"private bid ({BID_UNIT})")
    ax.set_ylabel("average BSD (SRG risk-aggressive)")
    ax.legend(fontsize=7)
    save(fig, path, dpi=110)
    return path


def _fig_utility_runtime_groups(bins: pd.DataFrame, consumers: dict, hb: list[str], path: Path) -> Path:
    # Figs. 5-7: average utility of the risk-aggressive users (red) and of all users bidding truthfully
    # (blue), per runtime group; one row per payment scheme, so the two never overlap
    fig, axes = plt.subplots(len(hb), 3, figsize=(12, 3.1 * len(hb)), squeeze=False)
    agg = _agg_rows(bins, consumers, "SRG")
    for row, p in zip(axes, hb):
        for ax, rg in zip(row, RUNTIME_GROUPS):
            for sub, label, color in (
                (agg[(agg["provider"] == p) & (agg["runtime_group"] == rg)], "SRG risk-aggressive users", "C3"),
                (
                    bins[(bins["provider"] == p) & (bins["consumer"] == "FT") & (bins["runtime_group"] == rg)],
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


def paper_figure_plan(bins: pd.DataFrame, consumers: dict, out: Path) -> list[tuple[str, object, tuple]]:
    """The paper's figures that the study's profiles allow, without drawing them: (caption, function,
    arguments) each, so that a report can draw them in parallel; ``function(*arguments)`` draws one and
    returns its path."""
    if not ("SRG" in consumers and "FT" in consumers):
        return []
    provs = list(dict.fromkeys(bins["provider"]))
    # only the rows and columns these figures read travel to the processes that draw them
    keep = ["provider", "consumer", "group", "runtime_group", "seed", "bid_bin", "n", "sum_bsd", "n_ssj", "sum_utility"]
    bins = bins.loc[bins["consumer"].isin(["SRG", "FT"]), keep]
    plan = []
    for value, ylabel in (("bsd", "average BSD"), ("ssj", "share of SSJs")):
        path = out / f"fig-{value}-srg-vs-ft.png"
        plan.append(
            (
                f"{ylabel} against the private bid: risk-aggressive users (SRG) vs all users (FT)",
                _fig_srg_vs_ft,
                (bins, consumers, value, ylabel, path),
            )
        )
    scheds = [p for p in provs if p.endswith("-first")] or provs
    if len(scheds) > 1:
        path = out / "fig-bsd-schedulers.png"
        plan.append(
            (
                "average BSD of the risk-aggressive users (SRG) by scheduler",
                _fig_bsd_schedulers,
                (bins, consumers, scheds, path),
            )
        )
    hb = [p for p in provs if p.startswith("hb-")]
    if hb:
        path = out / "fig-utility-runtime-groups.png"
        plan.append(
            (
                "average utility against the private bid, per runtime group and payment scheme: "
                "risk-aggressive users (SRG) vs all users bidding truthfully (FT), as in the paper's "
                "Figs. 5-7",
                _fig_utility_runtime_groups,
                (bins, consumers, hb, path),
            )
        )
    return plan


def paper_figures(bins: pd.DataFrame, consumers: dict, out: Path) -> list[tuple[str, Path]]:
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
