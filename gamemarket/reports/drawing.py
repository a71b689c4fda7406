"""Writing a drawn figure: laid out once, saved atomically, closed (every figure goes through ``save``)."""

from __future__ import annotations

from pathlib import Path

from gamemarket.errors import InputError
from gamemarket.io.files import atomic_path
from gamemarket.reports.markdown import num

#: the figure formats gamemarket writes, by file name suffix
FIGURE_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}
#: the width, in CSS pixels, a figure is shown at on a report's page (``markdown.STYLE``: a body of at most 1,200 px
#: with 1em of padding a side); a wider image is scaled down to it
PAGE_PX = 1168
#: the smallest text a figure may show at that width, in pixels (text smaller than 9 px is hard to read)
MIN_TEXT_PX = 9.0


def check_figure_path(path) -> Path:
    """A figure file name of a known format (checked before the work that draws it)."""
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

    legible(fig, dpi)
    fig.tight_layout()
    fig.set_layout_engine(None)
    path = check_figure_path(path)
    try:
        with atomic_path(path, "figure") as tmp:
            fig.savefig(tmp, dpi=dpi, format=FIGURE_FORMATS[path.suffix.lower()])
    finally:
        plt.close(fig)
    return path


def _texts(fig) -> list:
    """The figure's visible texts that show something (titles, labels, tick labels, legends, annotations)."""
    from matplotlib.text import Text  # deferred: matplotlib, as every drawing import

    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


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


def people_ticks(axis) -> None:
    """Tick labels as the reports write numbers (``markdown.num``: thousands separated, no offset label such as
    ``1e8`` above the axis), on a matplotlib ``axis`` (``ax.yaxis``, ``ax.xaxis``, a colour bar's)."""
    from matplotlib.ticker import FuncFormatter  # deferred: matplotlib, as every drawing import

    axis.set_major_formatter(FuncFormatter(lambda v, _pos: num(v, 6)))
