"""The consumer catalogue: named consumer strategies as data (``consumers.toml``), read where every part that names a
strategy can read it.

The built-in catalogue is package data (``gamemarket/data/strategies/consumers.toml``); a study extends or overrides
it with catalogues beside it (``CATALOGUE_ORDER``). The studies read their catalogues here, and so does the market's
one profile (``gamemarket simulate --mix``, ``simulate_profile(mix=...)``), which sits below the studies: one
reading, and one set of names, for both.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path

from gamemarket.consumers.base import FAMILIES, ConsumerStrategy, ParametricFamily, from_entry
from gamemarket.consumers.betamix import BetaMix
from gamemarket.errors import InputError, shown_name
from gamemarket.io import files
from gamemarket.io.files import resolve

#: the order in which catalogues of one kind are read: the built-in one (package data), then a
#: ``strategies/`` folder beside the study's folder, then one in the study's folder; a later entry of a
#: name replaces an earlier one, so a study's own catalogue extends or overrides the built-in one
CATALOGUE_ORDER = ("built-in", "<study folder>/../strategies", "<study folder>/strategies")

#: a point of a parametric family, named as the family names its points: ``per-class[0,0.5,0.9]``
_FAMILY_POINT = re.compile(r"^([A-Za-z0-9_.-]+)\[([^\]]*)\]$")

#: a beta mix written out, as the option's help shows it
MIX_SYNTAX = "'fraction:beta,...'"


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


def _definition(entry) -> object:
    """What makes a catalogue entry the strategy it is (its name and description aside): a provider's market and
    settings, a consumer strategy's or shading rule's family and parameters."""
    if hasattr(entry, "settings"):
        return (entry.kind, entry.settings)
    return (type(entry).__name__, entry.params())


#: redefinitions already warned of in this process (a study is loaded several times a command)
_REDEFINED: set[str] = set()


def read_catalogues(file: str, near: Path | None, read: Callable[[Path], dict], kind: str) -> dict:
    """Every catalogue of one kind a study in the folder ``near`` reads (``catalogue_files``), merged in
    ``CATALOGUE_ORDER``: a later entry of a name replaces an earlier one. A study's catalogue that redefines a
    built-in strategy is warned of (:func:`say_redefined`).

    ``read(path)`` parses one file into name -> entry; ``kind`` names the entries in the warning ("consumer
    strategy")."""
    builtin = builtin_catalogue(file)
    out: dict = {}
    for p in catalogue_files(file, near):
        entries = read(p)
        if p != builtin:
            say_redefined(file, p, entries, read, kind)
        out.update(entries)
    return out


def say_redefined(file: str, path: Path, entries: dict, read: Callable[[Path], dict], kind: str) -> None:
    """A warning for each entry of the catalogue ``path`` (parsed: ``entries``) that redefines a built-in strategy
    of the catalogue ``file`` (the same name, other parameters: its reports would call something else ``FT``),
    naming the file and the strategy; a copy of the built-in entry is not warned of. Whether the file sits beside
    the study or is named by it (``provider_file``, ``consumer_file``: hunt 21a-W3 redefined ``hb-first`` as a
    k-th price mechanism without a word)."""
    base = read(builtin_catalogue(file))
    for name, entry in entries.items():
        if name in base and _definition(entry) != _definition(base[name]):
            msg = (
                f"{path}: [{name}] redefines the built-in {kind} {name!r} ({_definition(base[name])[1]} -> "
                f"{_definition(entry)[1]}); a study reading this file plays and reports its own {name!r}, not "
                "gamemarket's (rename it to keep both)"
            )
            if msg not in _REDEFINED:
                _REDEFINED.add(msg)
                warnings.warn(msg, stacklevel=3)


def read_toml(path: str | Path) -> dict:
    """A TOML file's tables; a missing, unreadable or invalid file is an error naming it."""
    return files.read_toml(path, "TOML file")


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
        out.update(from_entry(name, entry, where, default_family, root=root))
    return out


def load_consumers(path: str | Path | None = None, *, near: Path | None = None) -> dict[str, ConsumerStrategy]:
    """The consumer strategies of a catalogue file; without one, of every catalogue a study in the folder
    ``near`` reads (``catalogue_files``: the built-in one, extended or overridden by the study's own)."""

    def read(p: Path) -> dict[str, ConsumerStrategy]:
        return parse_consumers(read_toml(p), str(p))

    if path:  # the study's consumer_file: warned of as a catalogue beside the study is
        entries = read(Path(path))
        say_redefined("consumers.toml", Path(path), entries, read, "consumer strategy")
        return entries
    return read_catalogues("consumers.toml", near, read, "consumer strategy")


def parametric_families() -> list[str]:
    """The registered parametric families (built in, and a loaded plugin's), whose points name strategies."""
    return sorted(n for n, f in FAMILIES.items() if isinstance(f, ParametricFamily))


def consumer_strategy(
    text: str, catalogue: Mapping[str, ConsumerStrategy] | None = None, *, where: str = "--mix", outside: bool = True
) -> ConsumerStrategy:
    """The consumer strategy ``text`` names, as a study names one: a name of the consumer catalogue (``UNI50``,
    ``g0.1x0.9``; letter case aside where that names one entry), a point of a parametric family
    (``per-class[0,0.5,0.9]``, a loaded plugin's family too), or a beta mix written out (``0.9:0.1,0.1:0.9``).

    Parameters
    ----------
    text : str
        The name, the point or the mix.
    catalogue : mapping, optional
        Name -> strategy (default: the built-in catalogue, :func:`load_consumers`).
    where : str
        The option or field that names it, for messages.
    outside : bool
        Whether the run has an outside option: without one, a strategy that sends jobs to it is refused (its jobs
        would silently stay).

    Returns
    -------
    ConsumerStrategy

    Raises
    ------
    InputError
        A name neither catalogued nor a point nor a mix (the message lists the catalogue's names and the
        families), or a point or a mix whose numbers are wrong; naming ``where`` and the value.
    """
    strategy = _named(text, load_consumers() if catalogue is None else catalogue, where)
    leave = getattr(strategy, "leave_by_class", None)
    if not outside and leave is not None and any(leave):
        raise InputError(
            f"{where} {text!r}: sends jobs to the outside option, which this run has no price for; expected a "
            "strategy whose jobs all stay"
        )
    return strategy


def _named(text: str, catalogue: Mapping[str, ConsumerStrategy], where: str) -> ConsumerStrategy:
    """:func:`consumer_strategy`'s lookup: the catalogue's name, a family's point or a beta mix."""
    key = str(text).strip()
    if key in catalogue:
        return catalogue[key]
    folded = [n for n in catalogue if n.casefold() == key.casefold()]
    if len(folded) == 1:
        return catalogue[folded[0]]
    point = _FAMILY_POINT.match(key)
    if point and point.group(1) in parametric_families():
        return _point(key, point.group(1), point.group(2), where)
    if ":" in key:
        try:
            return BetaMix.parse(key)
        except InputError as exc:
            raise InputError(f"{where} {text!r}: {exc}") from None
    raise InputError(
        f"{where} {shown_name(text)}: unknown consumer strategy; expected a name of the consumer catalogue "
        f"({', '.join(catalogue)}), a point of a family FAMILY[v1,v2,...] (families: "
        f"{', '.join(parametric_families())}) or a beta mix {MIX_SYNTAX} (0.9:0.1,0.1:0.9)"
    )


def _point(text: str, family: str, body: str, where: str) -> ConsumerStrategy:
    """The strategy at the point ``body`` (``v1,v2,...``) of the parametric family ``family``, checked against its
    bounds."""
    fam = FAMILIES.get(family)
    try:
        values = [float(v) for v in body.split(",")]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) for v in values):
        raise InputError(
            f"{where} {text!r}: expected {fam.dimension} finite numbers {fam.list_names()} in the brackets"
        )
    return fam.point(fam.check_point(values, f"{where} {text!r}"))
