"""Named provider and consumer strategies, loaded from TOML and validated with precise errors."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gamemarket import consumers
from gamemarket.consumers import ConsumerStrategy
from gamemarket.errors import InputError
from gamemarket.io import files
from gamemarket.io.files import resolve
from gamemarket.io.schema import check
from gamemarket.market.base import MARKETS
from gamemarket.plugins import PROVIDERS
from gamemarket.studies.schema import PROVIDER_TABLES

#: the order in which catalogues of one kind are read: the built-in one (package data), then a
#: ``strategies/`` folder beside the study's folder, then one in the study's folder; a later entry of a
#: name replaces an earlier one, so a study's own catalogue extends or overrides the built-in one
CATALOGUE_ORDER = ("built-in", "<study folder>/../strategies", "<study folder>/strategies")


def builtin_catalogue(file: str) -> Path:
    """A built-in catalogue file (``providers.toml``, ``consumers.toml``, ``shading.toml``), installed with the
    package and found by ``importlib.resources`` wherever the package is."""
    return Path(str(resources.files("gamemarket") / "data" / "strategies" / file))


def catalogue_files(file: str, near: Path | None = None) -> list[Path]:
    """Every catalogue file of one kind a study reads, in ``CATALOGUE_ORDER`` (the same file found twice,
    as in a checkout whose ``strategies/`` is the package's, is read once)."""
    cands = [builtin_catalogue(file)]
    if near is not None:
        cands += [near.parent / "strategies" / file, near / "strategies" / file]
    out: list[Path] = []
    for c in cands:
        if c.is_file() and not any(resolve(c) == resolve(o) for o in out):
            out.append(c)
    return out


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


def parse_provider(name: str, entry: dict, where: str, table: str = "") -> ProviderStrategy:
    """A provider strategy from its TOML table: checked by its market's declared table (``kind``, default
    "scheduling"; ``gamemarket.studies.schema.PROVIDER_TABLES``), then made the market's parameters
    (``Market.provider_params``); errors name the file, the table and the field."""
    root = f"[{table + '.' if table else ''}{name}]"
    kind = entry.get("kind", "scheduling") if isinstance(entry, dict) else "scheduling"
    if kind not in MARKETS or kind not in PROVIDER_TABLES:
        raise InputError(f"{where}: {root} field 'kind': expected one of {sorted(MARKETS)}, got {kind!r}")
    check(PROVIDER_TABLES[kind], entry, where, root=root)
    settings = MARKETS.get(kind).provider_params(entry, f"{where}: {root}")
    return ProviderStrategy(name, kind, tuple(sorted(settings.items())), str(entry.get("description", "")))


def parse_consumers(
    data: dict, where: str, table: str = "", default_family: str = "beta-mix"
) -> dict[str, ConsumerStrategy]:
    """Consumer strategies from TOML tables, each made by the family it names (``family = "..."``, default
    ``default_family``; ``gamemarket.consumers.FAMILIES``), which checks it by its declared table: a
    beta mix's ``groups`` (``ConsumerMix``), the ``[grid]`` that defines ``g<f>x<b>`` cells
    (``ConsumerGrid``), a parametric family's point."""
    out: dict[str, ConsumerStrategy] = {}
    for name, entry in data.items():
        root = f"[{table + '.' if table else ''}{name}]"
        out.update(consumers.from_entry(name, entry, where, default_family, root=root))
    return out


def load_providers(path: str | Path | None = None, *, near: Path | None = None) -> dict[str, ProviderStrategy]:
    """The provider strategies of a catalogue file; without one, of every catalogue a study in the folder
    ``near`` reads (``catalogue_files``: the built-in one, extended or overridden by the study's own); then
    those the loaded plugins declare (``gamemarket.plugins.register_provider``), which replace a catalogue's
    entry of the same name."""
    out: dict[str, ProviderStrategy] = {}
    for p in [Path(path)] if path else catalogue_files("providers.toml", near):
        data = read_toml(p)
        out.update({name: parse_provider(name, entry, str(p)) for name, entry in data.items()})
    for name, declared in PROVIDERS.items():
        out[name] = parse_provider(name, declared.entry(), f"plugin {declared.source or 'registered in code'}")
    return out


def load_consumers(path: str | Path | None = None, *, near: Path | None = None) -> dict[str, ConsumerStrategy]:
    """The consumer strategies of a catalogue file; without one, of every catalogue a study in the folder
    ``near`` reads (see ``load_providers``)."""
    out: dict[str, ConsumerStrategy] = {}
    for p in [Path(path)] if path else catalogue_files("consumers.toml", near):
        out.update(parse_consumers(read_toml(p), str(p)))
    return out
