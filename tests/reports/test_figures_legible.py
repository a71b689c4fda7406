"""Every figure a report draws is legible on its page: its smallest text at least 9 px tall where the page shows the
image (1,168 px wide at most: a wider image is scaled down). ``drawing.save`` scales a figure's texts up where
they would be smaller (a payoff heatmap of 5 consumer strategies side by side showed its 7-point values 6.9 px
tall); the PNGs of a figure drawn twice stay the same, byte for byte."""

import matplotlib
import matplotlib.figure

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gamemarket.analysis.study import SolvedGame  # noqa: E402
from gamemarket.games.bimatrix import Game  # noqa: E402
from gamemarket.games.equilibria import solve  # noqa: E402
from gamemarket.reports import drawing, figures  # noqa: E402


def test_a_wide_figure_gets_its_texts_scaled_up_to_9_px_and_a_narrow_one_is_left_alone():
    fig, ax = plt.subplots(figsize=(17, 4))
    ax.plot([1, 2], [3, 4])
    ax.set_title("title", fontsize=9)
    ax.text(1.5, 3.5, "a cell's value", fontsize=7)
    assert drawing.smallest_text_px(fig, 110) < 7
    tick = ax.xaxis.get_ticklabels()[0].get_fontsize()
    factor = drawing.legible(fig, 110)
    assert factor > 1 and drawing.smallest_text_px(fig, 110) >= drawing.MIN_TEXT_PX
    assert ax.xaxis.get_ticklabels()[0].get_fontsize() == pytest.approx(tick * factor)  # scaled once, not twice
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.set_title("title", fontsize=9)
    assert drawing.legible(fig, 110) == 1.0 and ax.title.get_fontsize() == 9
    plt.close(fig)


@pytest.mark.parametrize("shape", [(2, 2), (4, 5), (8, 14), (8, 30)])
def test_payoff_heatmaps_are_legible_at_page_width(shape, tmp_path, monkeypatch):
    rng = np.random.default_rng(sum(shape))
    m, n = shape
    reps = rng.normal(1e9, 1e7, (m, n, 5)), rng.normal(-1e5, 1e3, (m, n, 5))
    g = Game(reps[0].mean(2), reps[1].mean(2), [f"p{i}" for i in range(m)], [f"c{j}" for j in range(n)], *reps)
    seen = []
    real = matplotlib.figure.Figure.savefig

    def measured(fig, fname, *args, dpi=None, **kw):  # the figure as it is written
        seen.append(drawing.smallest_text_px(fig, dpi))
        return real(fig, fname, *args, dpi=dpi, **kw)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", measured)
    figures.payoff_heatmaps(SolvedGame("all jobs", g, solve(g), []), tmp_path / "h.png")
    assert seen and min(seen) >= drawing.MIN_TEXT_PX
    first = (tmp_path / "h.png").read_bytes()
    figures.payoff_heatmaps(SolvedGame("all jobs", g, solve(g), []), tmp_path / "h.png")
    assert (tmp_path / "h.png").read_bytes() == first
