"""Reports: figures, Markdown and self-contained HTML for a study (nothing else draws)."""

__all__ = ["write_report"]


def __getattr__(name: str):
    # imported on first use, so that a worker process unpickling one figure function (which imports this
    # package first) does not also import the analysis and the study machinery that ``report`` needs
    if name == "write_report":
        # deferred: joblib, matplotlib, pandas, pyarrow (the analysis and the study machinery)
        from gamemarket.reports.report import write_report

        return write_report
    raise AttributeError(f"module 'gamemarket.reports' has no attribute {name!r}")
