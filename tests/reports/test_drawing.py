"""Figures are laid out once (``drawing.save`` writes the same bytes as ``tight_layout`` then ``savefig``), and
heatmaps are seaborn's, on a colour scale that diverges only where the values change sign."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import seaborn as sns

from gamemarket.reports import figures, population
from gamemarket.reports.drawing import people_ticks, save
from gamemarket.reports.markdown import num


def _matrix(seed=2, shift=0.0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(4, 6)) + shift, index=list("abcd"), columns=[f"g0.{k}x0.9" for k in range(6)])


def _figure(draw=None):
    draw = draw or (lambda ax, df: figures.heatmap(ax, df, cbar_label="utility"))
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for k, ax in enumerate(axes):
        draw(ax, _matrix(2 + k))
        ax.set_title("a title long enough to matter for the layout", fontsize=9)
    fig.suptitle("suptitle")
    return fig


def test_save_writes_what_tight_layout_then_savefig_writes(tmp_path):
    fig = _figure()
    fig.tight_layout()
    fig.savefig(tmp_path / "plain.png", dpi=110)
    plt.close(fig)
    fig = _figure()
    assert save(fig, tmp_path / "once.png", dpi=110) == tmp_path / "once.png"
    assert fig.get_layout_engine() is None
    assert (tmp_path / "once.png").read_bytes() == (tmp_path / "plain.png").read_bytes()
    assert not plt.fignum_exists(fig.number)  # closed


def test_a_heatmap_is_seaborns_and_hiding_the_other_panels_while_it_draws_changes_no_pixel(tmp_path):
    """``figures.heatmap`` is ``seaborn.heatmap`` with the reports' labels (cells and colour bar written as the
    reports write numbers); the other panels it hides during seaborn's tick-overlap draw are back, and the file
    is the one seaborn alone draws with those labels."""

    def plain(ax, df):
        sns.heatmap(
            df,
            ax=ax,
            annot=np.vectorize(lambda v: num(v, 3))(df.to_numpy()),
            fmt="",
            annot_kws={"fontsize": 7},
            cbar_kws={"label": "utility"},
            xticklabels=True,
            yticklabels=True,
            cmap="RdBu",
            center=0.0,
        )
        ax.tick_params(axis="y", rotation=0)
        people_ticks(ax.collections[0].colorbar.ax.yaxis)
        for t in ax.texts:
            t.set_in_layout(False)

    save(_figure(plain), tmp_path / "seaborn.png")
    fig = _figure()
    assert all(ax.get_visible() for ax in fig.axes)
    save(fig, tmp_path / "ours.png")
    assert (tmp_path / "ours.png").read_bytes() == (tmp_path / "seaborn.png").read_bytes()


@pytest.mark.parametrize(
    "values,diverging",
    [
        ([-3.0, -1.0, -2.5], False),  # all negative: sequential, whatever the median
        ([1.0, 2.0, 5.0], False),
        ([0.0, 2.0, 5.0], False),  # touches zero, no change of sign
        ([-1.0, 0.0], False),
        ([-1.0, 2.0], True),
        ([np.nan, -1.0, 2.0], True),
        ([np.nan, -1.0, -2.0], False),
        ([], False),
    ],
)
def test_a_colour_scale_diverges_at_zero_only_when_the_values_change_sign(values, diverging):
    scale = figures.colour_scale(np.array(values))
    assert scale == ({"cmap": "RdBu", "center": 0.0} if diverging else {"cmap": "viridis", "center": None})


def test_a_heatmap_of_negative_utilities_is_sequential_and_one_of_both_signs_is_centred_at_zero():
    fig, (a, b) = plt.subplots(1, 2)
    figures.heatmap(a, _matrix(shift=-10.0))
    figures.heatmap(b, _matrix())
    assert a.collections[0].cmap.name == "viridis"
    mesh = b.collections[0]
    np.testing.assert_allclose(mesh.cmap(mesh.norm(0.0)), matplotlib.colormaps["RdBu"](0.5), atol=0.01)
    plt.close(fig)


@pytest.fixture
def kept(monkeypatch):
    """The figures a module draws, laid out and kept open instead of written."""
    out = []

    def keep(fig, path, dpi=110):
        fig.tight_layout()
        fig.canvas.draw()
        out.append(fig)
        return path

    monkeypatch.setattr(figures, "save", keep)
    monkeypatch.setattr(population, "save", keep)
    yield out
    for fig in out:
        plt.close(fig)


def _grid(shift):
    rows = [
        {"provider": p, "fraction": f, "beta": b, "gain": shift + k}
        for p in ("hb-first", "hb-kth")
        for k, (f, b) in enumerate((f, b) for f in (0.1, 0.5) for b in (0.3, 0.9))
    ]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("shift,cmap", [(-10.0, "Reds_r"), (10.0, "Blues"), (-1.5, None)])
def test_the_beta_grid_shares_one_scale_that_diverges_only_across_zero(kept, shift, cmap):
    figures.grid_gain_heatmap(_grid(shift), "unused.png")
    meshes = [ax.collections[0] for ax in kept[0].axes if ax.get_title()]  # the panels, not the colour bar
    assert len(meshes) == 2 and len({(m.norm.vmin, m.norm.vmax) for m in meshes}) == 1
    if cmap is None:  # both signs: RdBu, white at zero, limits symmetric
        assert meshes[0].norm.vmin == -meshes[0].norm.vmax
        np.testing.assert_allclose(meshes[0].cmap(meshes[0].norm(0.0)), matplotlib.colormaps["RdBu"](0.5), atol=0.01)
    else:
        assert meshes[0].cmap.name == cmap
        assert (meshes[0].norm.vmin, meshes[0].norm.vmax) == (shift, shift + 3)


def _inside(fig, artist):
    r = fig.canvas.get_renderer()
    box, page = artist.get_window_extent(r), fig.bbox
    return page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1


def test_the_population_figures_titles_are_whole_and_clear_of_the_offset_label(kept):
    gains = pd.DataFrame(
        [
            {"mechanism": m, "strategy": s, "gain": g, "ci_low": g - 1e4, "ci_high": g + 1e4}
            for m in ("hb-first", "hb-kth")
            for s, g in (("shade-0.5", -3e4), ("shade-high-0.9", 2e4))
        ]
    )
    bars = pd.DataFrame(
        {
            "label": ["hb-first #1", "hb-kth #1"],
            "revenue": [(3.4e8, 3.3e8, 3.5e8), (1.3e8, 1.2e8, 1.4e8)],
            "state": ["good", "open"],
        }
    )
    population._gains_figure(gains, "unused.png", "97.5%", "bid x seconds per job")  # 6 inches: one line did not fit
    population._revenue_figure(bars, "unused.png", explored=False)
    for fig in kept:
        assert fig._suptitle is not None and _inside(fig, fig._suptitle)
    fig = kept[1]
    r = fig.canvas.get_renderer()
    offset = fig.axes[0].yaxis.get_offset_text()
    # the "1e8" offset label the title overlapped is gone: the ticks write the numbers out, as the report does
    assert offset.get_text() == "" and "300,000,000" in [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert not fig._suptitle.get_window_extent(r).overlaps(offset.get_window_extent(r))


class _Game:
    """A 3-strategy game whose payoffs favour the first strategy more the rarer it is."""

    def deviation_payoffs(self, x):
        return np.array([1.0 - x[0], 0.5, 0.2 * x[2]])


def test_the_replicator_flow_has_one_colour_bar_for_every_panel(kept):
    answers = [
        SimpleNamespace(
            game=_Game(), mechanism=m, equilibria=[SimpleNamespace(mixture_vector=(1, 0, 0), stability="stable")]
        )
        for m in ("hb-first", "hb-kth")
    ]
    population._flow_figure(answers, ["truthful", "shade-0.5", "shade-high-0.9"], "unused.png")
    fig = kept[0]
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "log10 speed"]
    assert len(bars) == 1
    arrows = [c for ax in fig.axes for c in ax.collections if isinstance(c, matplotlib.quiver.Quiver)]
    assert len(arrows) == 2 and arrows[0].norm is arrows[1].norm  # one scale: the bar reads for both


def test_people_ticks_write_axis_numbers_as_the_reports_do():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gamemarket.reports.drawing import people_ticks

    fig, ax = plt.subplots()
    ax.bar([0, 1], [3.5e8, 1.4e8])
    people_ticks(ax.yaxis)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert "300,000,000" in labels and ax.yaxis.get_offset_text().get_text() == ""  # no "1e8" to collide with
    plt.close(fig)
