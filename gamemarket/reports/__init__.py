"""Reports: figures, Markdown and self-contained HTML for a study (nothing else draws)."""

from gamemarket.reports.report import write_report

__all__ = ["write_report"]
