"""Named provider and consumer strategies, loaded from TOML and validated with precise errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


from gamemarket.io import files
from gamemarket.io.files import check_table
from gamemarket.bids import BetaMix
from gamemarket.errors import InputError

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
    """A provider mechanism of one market: ``kind`` names the market (a key of
    ``gamemarket.market.base.MARKETS``) and ``settings`` are the mechanism's parameters as that market
    checked them (``Market.provider_params``), sorted ``(key, value)`` pairs."""

    name: str
    kind: str
    settings: tuple
    description: str = ""

    def params(self) -> dict:
        """The mechanism's parameters with its market's ``kind``: part of every task's key, and what the
        market runs.
        """
        return {"kind": self.kind, **dict(self.settings)}


@dataclass(frozen=True)
class ConsumerStrategy:
    """A consumer strategy: a named beta mix (the whole population's shading)."""

    name: str
    mix: BetaMix
    description: str = ""

    def params(self) -> dict:
        """The beta mix's groups ``[[share, beta], ...]``: part of every task's key."""
        return {"groups": [list(g) for g in self.mix.groups]}


def parse_provider(name: str, entry: dict, where: str) -> ProviderStrategy:
    """A provider strategy from its TOML table: its market (``kind``, default "scheduling") checks the
    rest (``Market.provider_params``); errors name the table and field."""
    from gamemarket.market.base import MARKETS

    where = f"{where}: provider {name!r}"
    kind = entry.get("kind", "scheduling") if isinstance(entry, dict) else "scheduling"
    if kind not in MARKETS:
        raise InputError(f"{where}: field 'kind' must be one of {sorted(MARKETS)}, got {kind!r}")
    settings = MARKETS.get(kind).provider_params(entry, where)
    return ProviderStrategy(name, kind, tuple(sorted(settings.items())), str(entry.get("description", "")))


def grid_name(fraction: float, beta: float) -> str:
    """The name of a beta-grid cell: ``g<fraction>x<beta>``."""
    return f"g{fraction:g}x{beta:g}"


def parse_consumers(data: dict, where: str) -> dict[str, ConsumerStrategy]:
    """Consumer strategies from TOML tables: named mixes, and the ``[grid]`` that defines ``g<f>x<b>`` cells."""
    out: dict[str, ConsumerStrategy] = {}
    for name, entry in data.items():
        if name == "grid":
            w = f"{where}: consumer grid"
            check_table(
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
        check_table(entry, w, {"groups", "description"}, {"groups"})
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
