"""No figure is written with a label over another label or over a marker (an equilibrium's dot).

``drawing.overlaps`` measures, in the one draw ``drawing.save`` makes, the rectangles the figure's texts cover
(rotated with them: matplotlib's own extent of a rotated label is the upright box around it) and the squares of its
markers; ``save`` warns (``FigureOverlapWarning``) where any meet, and ``setup.cfg`` makes that warning an error in
the test suite, so every figure any test draws is checked where it is written. Found by it and fixed: a colour bar's
tick label above the bar's end (matplotlib keeps it, undrawn: not an overlap), the stacked heatmaps' axis labels
running into each other beside a game of two mechanisms, the replicator figure's equilibrium dot over its corner
label."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gamemarket.analysis.study import SolvedGame  # noqa: E402
from gamemarket.games.bimatrix import Game  # noqa: E402
from gamemarket.games.equilibria import solve  # noqa: E402
from gamemarket.games.rsgame import RoleSymmetricGame  # noqa: E402
from gamemarket.reports import drawing, figures  # noqa: E402
from gamemarket.reports.population import _flow_figure  # noqa: E402


def test_two_labels_in_one_place_overlap_and_apart_they_do_not():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.5, 0.5, "first label")
    ax.text(0.52, 0.5, "second label")
    assert drawing.overlaps(fig) == [("first label", "second label")]
    ax.texts[1].set_position((0.5, 0.1))
    assert drawing.overlaps(fig) == []
    plt.close(fig)


def test_a_label_over_a_marker_is_found_and_one_beside_it_is_not():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    ax.plot([0.5], [0.5], "o", ms=8)
    label = ax.annotate("corner", (0.5, 0.5), ha="center", va="top")
    found = drawing.overlaps(fig)
    assert [a for a, _ in found] == ["corner"] and found[0][1].startswith("a marker at")
    label.set_position((0.5, 0.5))
    label.xyann, label.anncoords = (0, -7), "offset points"  # 7 points below a dot of radius 4
    assert drawing.overlaps(fig) == []
    plt.close(fig)


def test_scatter_markers_count_as_markers():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_xlim(0, 1), ax.set_ylim(0, 1)
    ax.scatter([0.3], [0.3], s=200)
    ax.text(0.3, 0.3, "x", ha="center", va="center")
    assert [a for a, _ in drawing.overlaps(fig)] == ["x"]
    plt.close(fig)


def test_rotated_labels_side_by_side_are_apart_though_their_upright_boxes_meet():
    fig, ax = plt.subplots(figsize=(7, 3.6))
    ax.bar(np.arange(14), np.ones(14))
    ax.set_xticks(np.arange(14))
    ax.set_xticklabels([f"wspt-est-first #{k}" for k in range(14)], rotation=30, ha="right", fontsize=7)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in ax.get_xticklabels()]
    assert boxes[0].overlaps(boxes[1])  # the upright boxes do meet
    assert drawing.overlaps(fig) == []
    ax.set_xticklabels([f"wspt-est-first #{k}" for k in range(14)], rotation=0, fontsize=7)  # upright they collide
    assert len(drawing.overlaps(fig)) >= 5
    plt.close(fig)


def test_a_tick_label_outside_the_axis_view_is_not_a_label():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    ax.set_yticks([0, 0.5, 1, 1.5])
    ax.set_ylim(0, 1)  # the tick at 1.5 is kept, visible, but not drawn
    fig.suptitle("a title")
    fig.canvas.draw()
    undrawn = [t for t in ax.get_yticklabels() if t.get_text() == "1.5"]
    assert undrawn and undrawn[0].get_visible()
    assert "1.5" not in [t.get_text() for t in drawing._texts(fig)]
    plt.close(fig)


def test_save_warns_naming_the_file_and_the_labels(tmp_path):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.text(0.5, 0.5, "first label")
    ax.text(0.5, 0.5, "second label")
    with pytest.warns(drawing.FigureOverlapWarning, match=r"f\.png: labels overlap: 'first label' and 'second"):
        drawing.save(fig, tmp_path / "f.png")
    assert (tmp_path / "f.png").is_file()  # written all the same: the reader is told, the report not lost


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (2, 2), (3, 3), (6, 6), (2, 16), (4, 24), (3, 30), (12, 12)])
def test_payoff_heatmaps_of_few_or_many_rows_have_no_overlapping_labels(shape, tmp_path):
    rng = np.random.default_rng(sum(shape))
    m, n = shape
    reps = rng.normal(1e10, 1e9, (m, n, 5)), rng.normal(-2e5, 1e4, (m, n, 5))
    rows = [f"mechanism-{i}" for i in range(m)]
    g = Game(reps[0].mean(2), reps[1].mean(2), rows, [f"g0.{j}x0.3" for j in range(n)], *reps)
    figures.payoff_heatmaps(SolvedGame("all jobs", g, solve(g), []), tmp_path / "h.png")  # an overlap: an error


@pytest.mark.parametrize("corner", [0, 1, 2])
def test_the_replicator_figure_keeps_an_equilibrium_at_a_corner_clear_of_its_label(corner, tmp_path):
    game = RoleSymmetricGame.random([5], [3], np.random.default_rng(corner))
    at_corner = SimpleNamespace(mixture_vector=tuple(np.eye(3)[corner]), stability="stable")
    inside = SimpleNamespace(mixture_vector=(0.2, 0.3, 0.5), stability="unstable")
    answers = [SimpleNamespace(game=game, equilibria=(at_corner, inside), mechanism=m) for m in ("hb-first", "hb-kth")]
    _flow_figure(answers, ["truthful", "shade-0.5", "shade-high-0.9"], tmp_path / "flow.png")  # an overlap: an error
    assert (tmp_path / "flow.png").is_file()
