"""Workloads: SWF traces (read, clean, split), the synthetic generators, the archive download."""

import os
from collections.abc import Mapping
from dataclasses import fields

from gamemarket.errors import InputError, check_flag, check_text, shown_value
from gamemarket.workloads.archive import KNOWN_TRACES
from gamemarket.workloads.archive import resolve as resolve_trace
from gamemarket.workloads.base import Workload, nodes_from_processors
from gamemarket.workloads.model import WorkloadModel, generate_from_model
from gamemarket.workloads.swf import SPLIT_MODES, read_swf
from gamemarket.workloads.synthetic import SyntheticSpec, generate


def is_model_path(source) -> bool:
    """A workload given as a model file (``.toml``, in any case: ``M.TOML``) rather than a trace (hunt 21b-W3: an
    upper-case ending was read as a trace, then told to end .toml)."""
    return str(source).lower().endswith(".toml")


def synthetic_spec(params: dict, where: str = "[workload.synthetic]") -> SyntheticSpec:
    """The plain generator's parameters from a mapping (an empty one: the generator's defaults), with an error
    naming any unknown or mistyped field; ``where`` is the table messages name."""
    check_text(where, "synthetic_spec: where (the table messages name)")
    if not isinstance(params, Mapping):
        raise InputError(
            f"{where}: expected a table of the generator's parameters (a mapping), got {shown_value(params)}"
        )
    known = [f.name for f in fields(SyntheticSpec)]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise InputError(f"{where}: unknown field(s) {unknown}; expected some of {known}")
    try:
        return SyntheticSpec(**params)
    except TypeError as exc:  # a string where a number belongs, compared in the checks
        raise InputError(f"{where}: every field is a number; got {params} ({exc})") from None


def load(
    source: str, *, parallel: str = "split", skip_bad_lines: bool = False, model: str | None = None, **synthetic
) -> Workload:
    """A workload from ``source``.

    ``"synthetic"``: the campaign model in ``model`` (a ``.toml`` file; keyword parameters
    ``jobs``, ``nodes``, ``load``, ``seed``), or without a model the plain generator
    (keyword parameters of ``SyntheticSpec``). A path ending in ``.toml`` is a model file.
    Anything else is an SWF path or a known trace name. ``parallel`` (one of ``SPLIT_MODES``), ``skip_bad_lines``
    (a flag) and ``model`` (a path, or None) are checked whatever the source.
    """
    _check_load_options(parallel, skip_bad_lines, model)
    if isinstance(source, bytes) or not isinstance(source, (str, os.PathLike)) or not str(source).strip():
        # (None: pathlib's TypeError; "": ": is a folder", the working folder read; hunt 19c-W5)
        raise InputError(
            f"workload source must be 'synthetic', a trace's path or catalogue name, or a model file (.toml), got "
            f"{source!r:.80}"
        )
    if is_model_path(source):
        source, model = "synthetic", source
    if source == "synthetic":
        if model is not None:
            unknown = sorted(set(synthetic) - {"jobs", "nodes", "load", "seed"})
            if unknown:
                raise InputError(
                    f"[workload.synthetic] with a model: unknown field(s) {unknown}; expected some of "
                    f"['jobs', 'load', 'seed'] (the rest is the model's)"
                )
            return generate_from_model(WorkloadModel.read(model), **synthetic)
        return generate(synthetic_spec(synthetic))
    if synthetic or model is not None:  # a trace has its own jobs and header: these would be ignored in silence
        _check_trace_named(source)
        given = sorted(synthetic) + (["model"] if model is not None else [])
        raise InputError(
            f"{source}: a trace takes no generator parameters, got {given}; its node count is the workload's "
            "nodes(nodes, reduction), after it is read"
        )
    return read_swf(resolve_trace(source), parallel=parallel, skip_bad_lines=skip_bad_lines)


def _check_trace_named(source) -> None:
    """A bare name (no folder, no suffix) given generator parameters that is neither a file nor a known trace: an
    error saying so, not that "a trace takes no generator parameters" (``'Synthetic'`` was called a trace)."""
    name = str(source)
    key = name[: -len(".swf.gz")] if name.endswith(".swf.gz") else name
    if os.path.lexists(name) or key in KNOWN_TRACES or os.sep in name or os.path.splitext(name)[1]:
        return  # (a file, a trace, or what reads as a path, ``x.swf``: "a trace takes no generator parameters")
    hint = " (did you mean 'synthetic', in lower case?)" if name.strip().lower() == "synthetic" else ""
    raise InputError(
        f"{name}: neither a workload file nor a known trace ({', '.join(sorted(KNOWN_TRACES))}), and the synthetic "
        f"generator is named 'synthetic'{hint}"
    )


def _check_load_options(parallel, skip_bad_lines, model) -> None:
    """``load``'s options, else an :class:`InputError` naming the one that is wrong (a synthetic source took any
    value of the trace's options in silence)."""
    if not isinstance(parallel, str) or parallel not in SPLIT_MODES:
        raise InputError(f"load: parallel must be one of {list(SPLIT_MODES)}, got {shown_value(parallel)}")
    check_flag(skip_bad_lines, "load: skip_bad_lines")
    if model is not None and (isinstance(model, bytes) or not isinstance(model, (str, os.PathLike))):
        raise InputError(f"load: model must be a workload model file's path (.toml) or None, got {shown_value(model)}")


__all__ = [
    "Workload",
    "WorkloadModel",
    "SyntheticSpec",
    "generate",
    "generate_from_model",
    "is_model_path",
    "load",
    "nodes_from_processors",
    "read_swf",
    "synthetic_spec",
]
