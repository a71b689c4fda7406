"""Writing a drawn figure: laid out once, saved atomically, closed (every figure goes through ``save``)."""

from __future__ import annotations

from pathlib import Path

from gamemarket.errors import InputError
from gamemarket.io.files import atomic_path
from gamemarket.reports.markdown import num

#: the figure formats gamemarket writes, by file name suffix
FIGURE_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}


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

    fig.tight_layout()
    fig.set_layout_engine(None)
    path = check_figure_path(path)
    try:
        with atomic_path(path, "figure") as tmp:
            fig.savefig(tmp, dpi=dpi, format=FIGURE_FORMATS[path.suffix.lower()])
    finally:
        plt.close(fig)
    return path


def people_ticks(axis) -> None:
    """Tick labels as the reports write numbers (``markdown.num``: thousands separated, no offset label such as
    ``1e8`` above the axis), on a matplotlib ``axis`` (``ax.yaxis``, ``ax.xaxis``, a colour bar's)."""
    from matplotlib.ticker import FuncFormatter  # deferred: matplotlib, as every drawing import

    axis.set_major_formatter(FuncFormatter(lambda v, _pos: num(v, 6)))
