"""Writing a drawn figure: laid out once, saved, closed (every report figure goes through ``save``)."""

from __future__ import annotations

from pathlib import Path


def save(fig, path, dpi: float = 110) -> Path:
    """Lay ``fig`` out tightly, write it to ``path`` as PNG at ``dpi`` and close it; returns the path.

    After ``tight_layout`` a figure keeps a placeholder layout engine, and ``savefig`` then draws the
    whole figure once more, with drawing switched off, only to lay it out again. The engine is removed
    first, so each figure is drawn once; the files are byte for byte the same (tested). The report's time
    is measured by ``benchmarks/bench_reproduction.py``.
    """
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.set_layout_engine(None)
    path = Path(path)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
