"""Writing a drawn figure: laid out once, saved atomically, closed (every figure goes through ``save``)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError
from gamemarket.io.files import atomic_path, check_output_file_name
from gamemarket.reports.markdown import num

#: the figure formats gamemarket writes, by file name suffix
FIGURE_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}
#: the width, in CSS pixels, a figure is shown at on a report's page (``markdown.STYLE``: a body of at most 1,200 px
#: with 1em of padding a side); a wider image is scaled down to it
PAGE_PX = 1168
#: the smallest text a figure may show at that width, in pixels (text smaller than 9 px is hard to read)
MIN_TEXT_PX = 9.0
#: how far (in the written image's pixels) two boxes may run into each other before they count as overlapping: the
#: glyph boxes of neighbouring lines of one label, or of a tick label and its neighbour, touch by design
OVERLAP_SLACK_PX = 1.0


class FigureOverlapWarning(UserWarning):
    """A figure was written with a label over another label or over a marker (an equilibrium's dot): the reader
    cannot read it. The test suite turns it into an error (``setup.cfg``'s ``filterwarnings``), so every figure a
    test draws is checked where it is written."""


def check_figure_path(path) -> Path:
    """A figure file name of a known format (checked before the work that draws it); a name ending in a slash
    names a folder (hunt 17b: ``--figure new/c.png/`` wrote a file)."""
    check_output_file_name(path, "figure")
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise InputError(
            f"{path}: unknown figure format {path.suffix or '(none)'!r}; expected {sorted(FIGURE_FORMATS)}"
        )
    if path.is_dir():
        raise InputError(f"{path}: is a folder; expected a figure file name")
    return path


def save(fig, path, dpi: float = 110) -> Path:
    """Lay ``fig`` out tightly, write it to ``path`` (PNG, PDF or SVG by its suffix) at ``dpi``, atomically,
    and close it; returns the path.

    After ``tight_layout`` a figure keeps a placeholder layout engine, and ``savefig`` then draws the
    whole figure once more, with drawing switched off, only to lay it out again. The engine is removed
    first, so each figure is drawn once; the files are byte for byte the same (tested). The report's time
    is measured by ``benchmarks/bench_reproduction.py``.
    """
    import matplotlib.pyplot as plt  # deferred: matplotlib.pyplot

    if legible(fig, dpi) > 1:
        upright_ticks(fig)
    fig.tight_layout()
    fig.set_layout_engine(None)
    path = check_figure_path(path)
    found: list[tuple[str, str]] = []
    # the overlaps are measured in the one draw savefig makes (its draw event), where every text is where it is written
    listening = fig.canvas.mpl_connect("draw_event", lambda event: found.extend(overlaps(fig, event.renderer)))
    try:
        with atomic_path(path, "figure") as tmp:
            fig.savefig(tmp, dpi=dpi, format=FIGURE_FORMATS[path.suffix.lower()])
    finally:
        fig.canvas.mpl_disconnect(listening)
        plt.close(fig)
    if found:
        pairs = "; ".join(f"{_as_read(a)!r} and {_as_read(b)!r}" for a, b in found[:5])
        more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
        warnings.warn(f"{path.name}: labels overlap: {pairs}{more}", FigureOverlapWarning, stacklevel=2)
    return path


def _as_read(label: str) -> str:
    """A label as the figure shows it, not as matplotlib's math text writes it (``$\\mathdefault{3\\times10^{0}}$``
    is ``3×10^0``; hunt 20c-W2)."""
    if "$" not in label:
        return label
    text = re.sub(r"\\mathdefault\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", r"\1", label.replace("$", ""))
    text = text.replace("\\times", "×").replace("\\cdot", "·").replace("\\minus", "-").replace("\\mathregular", "")
    return re.sub(r"\^\{([^{}]*)\}", r"^\1", text).replace("{", "").replace("}", "")


def _texts(fig) -> list:
    """The figure's visible texts that show something (titles, labels, tick labels, legends, annotations). A tick
    label whose tick lies outside its axis' view (matplotlib keeps it, visible, with a stale position, but does not
    draw it: a colour bar's ``700,000,000`` above its top) is left out."""
    from matplotlib.text import Text  # deferred: matplotlib, as every drawing import

    undrawn = set()
    for axis in (a for ax in fig.axes for a in (ax.xaxis, ax.yaxis)):
        lo, hi = sorted(axis.get_view_interval())
        slack = (hi - lo) * 1e-10
        for tick in axis.get_major_ticks() + axis.get_minor_ticks():
            if not lo - slack <= tick.get_loc() <= hi + slack:
                undrawn.update((id(tick.label1), id(tick.label2)))
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in undrawn]


def _rectangle(box, degrees: float = 0.0):
    """The corners (4 x 2, display pixels) of what a text rotated by ``degrees`` covers, from its window extent
    ``box``: matplotlib's extent of a rotated text is the axis-aligned box around it, which for labels at 30 degrees
    side by side overlaps where the glyphs do not. The rotated rectangle ``w x h`` is recovered from the extent
    ``W x H`` (``W = w |cos| + h |sin|``, ``H = w |sin| + h |cos|``); near 45 degrees, where that cannot be
    solved, the extent itself is used (it holds the text: an overlap found there may be a false alarm, none is
    missed)."""
    W, H = box.width, box.height
    t = np.radians(degrees % 180.0)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    det = c * c - s * s
    if abs(det) < 0.2:
        w, h, t = W, H, 0.0
    else:
        w, h = max((W * c - H * s) / det, 0.0), max((H * c - W * s) / det, 0.0)
    u = np.array([np.cos(t), np.sin(t)]) * w / 2
    v = np.array([-np.sin(t), np.cos(t)]) * h / 2
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    return np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])


def _shapes(fig, renderer) -> tuple[list, list]:
    """The figure's texts and markers as ``(name, corners)`` pairs in display pixels: each visible text that shows
    something (:func:`_rectangle`), and each marker of a line or scatter plot in the axes (the square of its size). A
    legend's own samples and texts belong to the legend, which matplotlib lays out, and are left out."""
    from matplotlib.collections import PathCollection  # deferred: matplotlib, as every drawing import
    from matplotlib.legend import Legend  # deferred: matplotlib
    from matplotlib.transforms import Bbox  # deferred: matplotlib

    in_legend = {id(a) for leg in fig.findobj(Legend) for a in leg.findobj()}
    texts = [
        (t.get_text(), _rectangle(t.get_window_extent(renderer), t.get_rotation()))
        for t in _texts(fig)
        if id(t) not in in_legend
    ]
    markers = []
    px = renderer.points_to_pixels(1.0)

    def square(x, y, half):
        return (f"a marker at ({x:.0f}, {y:.0f}) px", _rectangle(Bbox([[x - half, y - half], [x + half, y + half]])))

    for ax in fig.axes:
        for line in ax.lines:
            if id(line) in in_legend or not line.get_visible() or line.get_marker() in (None, "", "None", " "):
                continue
            half = line.get_markersize() * px / 2
            xy = line.get_transform().transform(line.get_xydata())
            # a point at NaN (a zero on a log axis, a missing value) is not drawn: it covers nothing (the fuzzer's
            # run L: 864 "overlaps" of 'run time (s)' with markers "at (nan, nan) px")
            markers += [square(x, y, half) for x, y in xy[np.isfinite(xy).all(axis=1)]]
        for coll in ax.collections:
            if not isinstance(coll, PathCollection) or not coll.get_visible():
                continue
            sizes = coll.get_sizes()  # areas, points squared
            offsets = coll.get_offset_transform().transform(coll.get_offsets())
            for i, (x, y) in enumerate(offsets):
                if np.isfinite(x) and np.isfinite(y):  # (a point at NaN is not drawn)
                    markers.append(square(x, y, (sizes[i % len(sizes)] if len(sizes) else 36.0) ** 0.5 * px / 2))
    return texts, markers


def _meet(a, b, slack: float) -> bool:
    """Whether convex quadrilaterals ``a`` and ``b`` (corners in order) overlap by more than ``slack`` pixels along
    every separating direction (the separating axis theorem: two convex shapes are apart where their projections
    on one of their edges' normals are)."""
    for shape in (a, b):
        for k in range(2):
            edge = shape[k + 1] - shape[k]
            norm = np.hypot(*edge)
            if norm == 0:
                continue
            axis = np.array([-edge[1], edge[0]]) / norm
            pa, pb = a @ axis, b @ axis
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= slack:
                return False
    return True


def overlaps(fig, renderer=None, slack: float = OVERLAP_SLACK_PX) -> list[tuple[str, str]]:
    """The pairs of a figure's labels that overlap each other, and of labels that cover a marker, as drawn by
    ``renderer`` (default: the figure's canvas, drawn now): ``(label, label or marker)`` pairs, empty where
    every label stands clear.

    Texts are compared by the rectangles their glyphs cover (rotated with them), markers by the square of their
    size; shapes that run into each other by at most ``slack`` pixels do not count.
    """
    if renderer is None:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
    texts, markers = _shapes(fig, renderer)
    if not texts:
        return []
    shapes = texts + markers
    corners = np.array([c for _, c in shapes])  # n x 4 x 2
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    # the pairs whose boxes meet (a text with every later text and every marker), before the exact test
    apart = (np.minimum(hi[:, None], hi[None]) - np.maximum(lo[:, None], lo[None]) <= slack).any(axis=2)
    found = []
    for i, j in zip(*np.nonzero(~apart[: len(texts)])):
        if j > i and _meet(corners[i], corners[j], slack):
            found.append((shapes[i][0], shapes[j][0]))
    return found


def smallest_text_px(fig, dpi: float, page_px: float = PAGE_PX) -> float:
    """The height in pixels of the figure's smallest text as a report's page shows it: its size in points, at
    ``dpi``, scaled down where the image is wider than the page (``page_px``)."""
    fig.canvas.draw()  # the tick labels as they will be drawn
    width_px = fig.get_size_inches()[0] * dpi
    sizes = [t.get_fontsize() for t in _texts(fig)]
    return min(sizes, default=float("inf")) * dpi / 72 * min(1.0, page_px / width_px)


def legible(fig, dpi: float, page_px: float = PAGE_PX) -> float:
    """Scale every text of ``fig`` up (the same factor for all, tick labels included) so that its smallest is at
    least ``MIN_TEXT_PX`` as a report's page shows the figure (:func:`smallest_text_px`); returns the factor (1 where
    it already was). A figure wide enough to be scaled down on the page (a payoff heatmap of many strategies side by
    side) had its 7-point cell values shown 6 px tall."""
    smallest = smallest_text_px(fig, dpi, page_px)
    if smallest >= MIN_TEXT_PX:
        return 1.0
    factor = MIN_TEXT_PX / smallest * 1.02
    ticks = set()
    for ax in fig.axes:  # tick labels are made again at each draw, from the axis' own size
        for axis, which in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            labels = axis.get_ticklabels(which="both")
            ticks.update(map(id, labels))
            shown = [t for t in labels if t.get_text().strip()]
            if shown:
                ax.tick_params(axis=which, which="both", labelsize=shown[0].get_fontsize() * factor)
    for t in _texts(fig):
        if id(t) not in ticks:
            t.set_fontsize(t.get_fontsize() * factor)
    return factor


def upright_ticks(fig) -> list:
    """Turn an axes' x tick labels to read upwards where, level, they run into each other (texts scaled up by
    :func:`legible` after seaborn chose level labels: a heatmap's ``g0.1x0.3`` beside ``g0.2x0.3``); returns the
    axes turned."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    turned = []
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text().strip()]
        if not labels or any(t.get_rotation() % 180 for t in labels):
            continue
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        if any(a.x1 - b.x0 > OVERLAP_SLACK_PX for a, b in zip(boxes, boxes[1:])):
            ax.tick_params(axis="x", labelrotation=90)
            turned.append(ax)
    return turned


def people_ticks(axis) -> None:
    """Tick labels as the reports write numbers (``markdown.num``: thousands separated, no offset label such as
    ``1e8`` above the axis), on a matplotlib ``axis`` (``ax.yaxis``, ``ax.xaxis``, a colour bar's)."""
    from matplotlib.ticker import FuncFormatter  # deferred: matplotlib, as every drawing import

    axis.set_major_formatter(FuncFormatter(lambda v, _pos: num(v, 6)))
