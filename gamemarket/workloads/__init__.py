"""Workloads: SWF traces (read, clean, split), the synthetic generator, the archive download."""

from gamemarket.workloads.base import Workload, nodes_from_processors
from gamemarket.workloads.swf import read_swf
from gamemarket.workloads.synthetic import SyntheticSpec, generate


def load(source: str, parallel: str = "split", skip_bad_lines: bool = False, **synthetic) -> Workload:
    """``"synthetic"`` (keyword parameters of ``SyntheticSpec``) or an SWF path / known trace name."""
    if source == "synthetic":
        return generate(SyntheticSpec(**synthetic))
    from gamemarket.workloads.archive import resolve

    return read_swf(resolve(source), parallel=parallel, skip_bad_lines=skip_bad_lines)


__all__ = ["Workload", "SyntheticSpec", "generate", "load", "nodes_from_processors", "read_swf"]
