"""Figures are laid out once: ``drawing.save`` writes the same bytes as ``tight_layout`` then ``savefig``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gamemarket.reports import figures
from gamemarket.reports.drawing import save


def _figure():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(2)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for ax in axes:
        df = pd.DataFrame(rng.normal(size=(4, 6)), index=list("abcd"), columns=[f"g0.{k}x0.9" for k in range(6)])
        figures.heatmap(ax, df, cbar_label="utility")
        ax.set_title("a title long enough to matter for the layout", fontsize=9)
    fig.suptitle("suptitle")
    return fig


def test_save_writes_what_tight_layout_then_savefig_writes(tmp_path):
    import matplotlib.pyplot as plt

    fig = _figure()
    fig.tight_layout()
    fig.savefig(tmp_path / "plain.png", dpi=110)
    plt.close(fig)
    fig = _figure()
    assert save(fig, tmp_path / "once.png", dpi=110) == tmp_path / "once.png"
    assert fig.get_layout_engine() is None
    assert (tmp_path / "once.png").read_bytes() == (tmp_path / "plain.png").read_bytes()
    assert not plt.fignum_exists(fig.number)  # closed


def test_relative_luminance_is_seaborns():
    """The heatmap's annotation colour rule: the luminance seaborn computes, bit for bit, for every colour of
    the maps the reports use and for random ones."""
    import matplotlib
    import pytest

    utils = pytest.importorskip("seaborn.utils", reason="seaborn (a test extra) is the reference")
    rng = np.random.default_rng(0)
    colors = [matplotlib.colormaps[m](np.linspace(0, 1, 257)) for m in ("viridis", "RdBu", "RdBu_r")]
    colors.append(np.column_stack([rng.random((20_000, 3)), np.ones(20_000)]))
    for rgba in colors:
        want = np.array([utils.relative_luminance(c) for c in rgba])
        np.testing.assert_array_equal(figures.relative_luminance(rgba), want)
    grid = colors[0][:256].reshape(16, 16, 4)  # a heatmap's (rows, columns, RGBA) array
    np.testing.assert_array_equal(
        figures.relative_luminance(grid), figures.relative_luminance(grid.reshape(-1, 4)).reshape(16, 16)
    )
