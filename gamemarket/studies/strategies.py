"""Named provider and consumer strategies, loaded from TOML and validated with precise errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamemarket.io import files
from gamemarket.bids import BetaMix
from gamemarket.errors import InputError
from gamemarket.market import Mechanism

STRATEGIES_DIR = Path(__file__).resolve().parents[2] / "strategies"  # a source checkout's catalogue


def catalogue_dir(near: Path | None = None) -> Path:
    """The strategies folder: beside the study's folder, else in the working directory, else the checkout's."""
    for cand in ([near.parent / "strategies"] if near else []) + [Path.cwd() / "strategies", STRATEGIES_DIR]:
        if (cand / "providers.toml").exists():
            return cand
    raise InputError(
        "no strategies/providers.toml found beside the study's folder, in the working directory "
        "or in the gamemarket checkout; name the files with provider_file / consumer_file"
    )


def read_toml(path: str | Path) -> dict:
    """A TOML file's tables; a missing, unreadable or invalid file is an error naming it."""
    return files.read_toml(path, "TOML file")


@dataclass(frozen=True)
class ProviderStrategy:
    """A provider mechanism: ``kind`` "scheduling" (a ``Mechanism``: scheduler x payment x reserve) or
    "pricing" (a heterogeneous-cluster mechanism of ``gamemarket.market.pricing_market`` with its parameters)."""

    name: str
    mechanism: Mechanism | None
    description: str = ""
    kind: str = "scheduling"
    pricing: tuple = ()  #: sorted (key, value) pairs of a pricing mechanism's parameters

    def params(self) -> dict:
        """The mechanism's parameters with its market's ``kind``: part of every task's key, and what the
        market runs.
        """
        if self.kind == "pricing":
            return {"kind": "pricing", **dict(self.pricing)}
        return {"kind": "scheduling", **self.mechanism.describe()}


@dataclass(frozen=True)
class ConsumerStrategy:
    """A consumer strategy: a named beta mix (the whole population's shading)."""

    name: str
    mix: BetaMix
    description: str = ""

    def params(self) -> dict:
        """The beta mix's groups ``[[share, beta], ...]``: part of every task's key."""
        return {"groups": [list(g) for g in self.mix.groups]}


def _fields(entry: dict, where: str, allowed: set, required: set) -> None:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected a table of fields, got {type(entry).__name__}")
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise InputError(f"{where}: unknown field(s) {unknown}; allowed: {sorted(allowed)}")
    missing = sorted(required - set(entry))
    if missing:
        raise InputError(f"{where}: missing field(s) {missing}")


def parse_provider(name: str, entry: dict, where: str) -> ProviderStrategy:
    """A provider strategy from its TOML table; errors name the table and field."""
    where = f"{where}: provider {name!r}"
    if isinstance(entry, dict) and entry.get("kind", "scheduling") == "pricing":
        from gamemarket.market.pricing_market import get_mechanism

        _fields(entry, where, {"kind", "mechanism", "reserve", "prices", "description"}, {"mechanism"})
        try:
            get_mechanism(str(entry["mechanism"]))
            params = {"mechanism": str(entry["mechanism"])}
            for key in ("reserve", "prices"):
                if key in entry:
                    v = entry[key]
                    vals = [float(x) for x in v] if isinstance(v, list) else float(v)
                    if any(not np.isfinite(x) or x < 0 for x in np.atleast_1d(vals)):
                        raise InputError(f"field {key!r} must be numbers >= 0")
                    params[key] = vals
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: {exc}") from exc
        return ProviderStrategy(
            name,
            None,
            str(entry.get("description", "")),
            "pricing",
            tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items())),
        )
    if isinstance(entry, dict) and entry.get("kind", "scheduling") != "scheduling":
        raise InputError(f"{where}: field 'kind' must be 'scheduling' or 'pricing', got {entry.get('kind')!r}")
    _fields(entry, where, {"kind", "scheduler", "payment", "reserve", "description"}, {"scheduler", "payment"})
    try:
        reserve = float(entry.get("reserve", 1.0))
        mech = Mechanism(str(entry["scheduler"]), str(entry["payment"]), reserve)
    except (InputError, TypeError, ValueError) as exc:
        raise InputError(f"{where}: {exc}") from exc
    return ProviderStrategy(name, mech, str(entry.get("description", "")))


def grid_name(fraction: float, beta: float) -> str:
    """The name of a beta-grid cell: ``g<fraction>x<beta>``."""
    return f"g{fraction:g}x{beta:g}"


def parse_consumers(data: dict, where: str) -> dict[str, ConsumerStrategy]:
    """Consumer strategies from TOML tables: named mixes, and the ``[grid]`` that defines ``g<f>x<b>`` cells."""
    out: dict[str, ConsumerStrategy] = {}
    for name, entry in data.items():
        if name == "grid":
            w = f"{where}: consumer grid"
            _fields(
                entry,
                w,
                {"aggressive_fractions", "aggressive_betas", "conservative_beta", "description"},
                {"aggressive_fractions", "aggressive_betas"},
            )
            cb = entry.get("conservative_beta", 0.0)
            for f in entry["aggressive_fractions"]:
                for b in entry["aggressive_betas"]:
                    try:
                        groups = ((1.0 - float(f), float(cb)), (float(f), float(b))) if f < 1 else ((1.0, float(b)),)
                        mix = BetaMix(groups, name=grid_name(f, b))
                    except (InputError, TypeError, ValueError) as exc:
                        raise InputError(f"{w}: fraction {f}, beta {b}: {exc}") from exc
                    out[mix.name] = ConsumerStrategy(mix.name, mix, f"{f:g} of jobs shade up to {b:g}")
            continue
        w = f"{where}: consumer {name!r}"
        _fields(entry, w, {"groups", "description"}, {"groups"})
        try:
            mix = BetaMix(tuple(tuple(g) for g in entry["groups"]), name=name)
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{w}: field 'groups': {exc}") from exc
        out[name] = ConsumerStrategy(name, mix, str(entry.get("description", "")))
    return out


def load_providers(path: str | Path | None = None, *, near: Path | None = None) -> dict[str, ProviderStrategy]:
    """The provider strategies of a catalogue file (default: ``strategies/providers.toml``)."""
    path = Path(path) if path else catalogue_dir(near) / "providers.toml"
    data = read_toml(path)
    return {name: parse_provider(name, entry, str(path)) for name, entry in data.items()}


def load_consumers(path: str | Path | None = None, *, near: Path | None = None) -> dict[str, ConsumerStrategy]:
    """The consumer strategies of a catalogue file (default: ``strategies/consumers.toml``)."""
    path = Path(path) if path else catalogue_dir(near) / "consumers.toml"
    return parse_consumers(read_toml(path), str(path))
