"""Named provider and consumer strategies, loaded from TOML and validated with precise errors.

The consumer catalogue is read by :mod:`gamemarket.consumers.catalogue` (the market's ``simulate --mix`` names its
strategies too, and sits below the studies); its functions are the studies' through this module as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gamemarket.consumers import ConsumerStrategy  # noqa: F401 (the studies' name for it)
from gamemarket.consumers.catalogue import (  # noqa: F401 (the studies' names for the catalogue's reading)
    CATALOGUE_ORDER,
    builtin_catalogue,
    catalogue_files,
    load_consumers,
    parse_consumers,
    read_catalogues,
    read_toml,
    say_redefined,
)
from gamemarket.errors import InputError
from gamemarket.io.schema import check
from gamemarket.market.base import MARKETS
from gamemarket.plugins import PROVIDERS
from gamemarket.studies.schema import PROVIDER_TABLES


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


def load_providers(path: str | Path | None = None, *, near: Path | None = None) -> dict[str, ProviderStrategy]:
    """The provider strategies of a catalogue file; without one, of every catalogue a study in the folder
    ``near`` reads (``catalogue_files``: the built-in one, extended or overridden by the study's own); then
    those the loaded plugins declare (``gamemarket.plugins.register_provider``), which replace a catalogue's
    entry of the same name."""

    def read(p: Path) -> dict[str, ProviderStrategy]:
        return {name: parse_provider(name, entry, str(p)) for name, entry in read_toml(p).items()}

    if path:
        out = read(Path(path))
        say_redefined("providers.toml", Path(path), out, read, "provider strategy")  # (as a catalogue beside it is)
    else:
        out = read_catalogues("providers.toml", near, read, "provider strategy")
    for name, declared in PROVIDERS.items():
        out[name] = parse_provider(name, declared.entry(), f"plugin {declared.source or 'registered in code'}")
    return out
