"""What a plugin may register, and what the package keeps of it: provider strategies declared by plugins, the
registries plugins add to, a loaded plugin's record, its text's hash, and the keys a plugin's entries add to a
stored result. The list of loaded plugins a process hands its workers (``GAMEMARKET_PLUGINS``) is read here too.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tomllib
import types
import warnings
from dataclasses import dataclass
from importlib import resources

from gamemarket.bids import MAX_RESERVE, valid_reserve
from gamemarket.consumers.base import FAMILIES
from gamemarket.errors import InputError
from gamemarket.market.hooks import EVENT_SCHEDULERS
from gamemarket.market.payments import BLEND, PAYMENTS
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.registry import PLUGIN_HINT, PLUGINS_ENV, Registry

#: the entry-point group of installed plugins
ENTRY_POINT_GROUP = "gamemarket.plugins"

#: how a plugin loaded from an entry point names itself (``Plugin.path``): ``entry point NAME``
ENTRY_POINT = "entry point"

#: the environment variable listing the plugins loaded in this process (JSON: [[path, hash], ...])
ENV = PLUGINS_ENV

#: the largest plugin file loaded (bytes): a module's text, read whole, hashed and shipped with every task
MAX_PLUGIN_BYTES = 16 * 2**20


@dataclass(frozen=True)
class ProviderEntry:
    """A provider strategy a plugin declares (:func:`register_provider`): a scheduler and a payment scheme of
    the scheduling market, built-in or a plugin's, and a reserve price. A study's catalogue lists it beside
    its own (``gamemarket.studies.strategies.load_providers``), so bimatrix and population studies name it
    as they name ``hb-first``.

    Attributes
    ----------
    name, scheduler, payment : str
    reserve : float
    description : str
    source : str or None
        ``path@hash`` of the plugin that declared it.
    """

    name: str
    scheduler: str
    payment: str
    reserve: float = 1.0
    description: str = ""
    source: str | None = None

    def entry(self) -> dict:
        """The provider as a catalogue table (``[NAME]`` of ``providers.toml``)."""
        out = {"scheduler": self.scheduler, "payment": self.payment, "reserve": self.reserve}
        return {**out, "description": self.description} if self.description else out


#: provider strategies declared by plugins (:func:`register_provider`), by name
PROVIDERS: Registry[ProviderEntry] = Registry("provider strategy", hint=PLUGIN_HINT)


def register_provider(name: str, scheduler: str, payment: str, *, reserve: float = 1.0, description: str = ""):
    """Declare a provider strategy: ``scheduler`` x ``payment`` at ``reserve``, each built-in or a plugin's
    (registered before this call), usable by name in bimatrix and population studies alike.

    Parameters
    ----------
    name : str
        The strategy's name in a study's ``[strategies] providers``. It replaces a study catalogue's entry of
        the same name (``load_providers``); a study's inline ``[strategies.provider.NAME]`` replaces it. A name
        of the built-in catalogue (``hb-kth``, ...) is refused.
    scheduler, payment : str
        Registered names (``gamemarket.market.SCHEDULERS``, ``PAYMENTS``).
    reserve : float
        The reservation price r (>= 0, finite).
    description : str

    Returns
    -------
    ProviderEntry

    Raises
    ------
    InputError
        A name already declared or built in, an unknown scheduler or payment scheme, or a reserve that is not a
        finite number >= 0; naming the provider and the field.
    """
    what = f"provider strategy {name!r}"
    if isinstance(name, str) and name in _builtin_providers():
        raise InputError(
            f"{what}: is a built-in provider strategy (gamemarket's providers.toml): it cannot be replaced (a "
            "study naming it would run yours under the built-in's name); declare yours under another name"
        )
    for field, value, reg in (("scheduler", scheduler, SCHEDULERS), ("payment", payment, PAYMENTS)):
        if not isinstance(value, str) or value not in reg:
            raise InputError(f"{what}: field {field!r}: unknown {reg.what} {value!r}; expected one of {sorted(reg)}")
    r = valid_reserve(reserve)  # a number, as Mechanism takes one ("1" was read as 1.0: hunt 9)
    if r is None:
        raise InputError(f"{what}: field 'reserve': expected a number >= 0 and <= {MAX_RESERVE:g}, got {reserve!r}")
    return PROVIDERS.register(name, ProviderEntry(name, scheduler, payment, r, str(description)))


@functools.cache
def _builtin_providers() -> frozenset:
    """The names of the built-in catalogue's provider strategies (package data ``strategies/providers.toml``)."""
    with (resources.files("gamemarket") / "data" / "strategies" / "providers.toml").open("rb") as f:
        return frozenset(tomllib.load(f))


#: the registries a plugin may add to, by the kind of entry
REGISTRIES = {
    "scheduler": SCHEDULERS,
    "payment": PAYMENTS,
    "family": FAMILIES,
    "provider": PROVIDERS,
    "event-scheduler": EVENT_SCHEDULERS,
}


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: where it came from, the hash of its text, and what it registered.

    Attributes
    ----------
    path : str
        The file (resolved), or ``entry point NAME`` for an installed one.
    digest : str
        SHA-256 of the module's text (first 16 hex digits).
    entries : tuple of (kind, name)
        What it registered: ``("scheduler", name)``, ``("payment", name)``, ``("family", name)``,
        ``("provider", name)`` or ``("event-scheduler", name)``.
    """

    path: str
    digest: str
    entries: tuple

    @property
    def file(self) -> str | None:
        """The plugin's file, or None for an installed entry point."""
        return None if self.path.startswith(f"{ENTRY_POINT} ") else self.path

    @property
    def spec(self) -> str:
        """What :func:`load_plugin` takes to load it again: the file, or the entry point's name."""
        return self.file or self.path[len(ENTRY_POINT) + 1 :]

    @property
    def source(self) -> str:
        """``path@digest``: what its entries carry as ``source``, and part of a study's result keys."""
        return f"{self.path}@{self.digest}"


def text_hash(text: bytes) -> str:
    """A plugin's hash: SHA-256 of its text, first 16 hex digits."""
    return hashlib.sha256(text).hexdigest()[:16]


def sources(*entries) -> list[str]:
    """The plugin sources (``path@hash``) of registry entries, those registered by a plugin, sorted."""
    return sorted({e.source for e in entries if getattr(e, "source", None)})


def key_fields(params: dict) -> dict:
    """What a stored result's key adds for a provider's plugins: ``{"plugins": [hash, ...]}``, the text hashes
    of the plugins that registered its scheduler and payment scheme (so editing a plugin reruns the runs of
    its entries, and only those), or ``{}`` for built-in entries (their keys stay as they were)."""
    found = []
    for kind, field in (("scheduler", "scheduler"), ("payment", "payment")):
        name = params.get(field)
        if kind == "payment" and name == BLEND:  # a blend of the built-in first and k-th price: nothing to add
            continue
        if isinstance(name, str):
            reg = REGISTRIES[kind]
            source = getattr(reg.get(name), "source", None)
            if source:
                found.append(source.rsplit("@", 1)[1])
            elif name in reg._builtin and not reg.is_builtin(name):  # put in its place behind the registry's back
                raise InputError(
                    f"{reg.what} {name!r}: is not the built-in one (something replaced it after gamemarket "
                    "registered it); its runs cannot be keyed as the built-in's, nor as a plugin's"
                )
            elif name in reg and not reg.is_builtin(name):
                # registered from Python (a script, a notebook): keyed by what defines it, so an edit made between
                # two runs makes its runs again (hunt 23a-F3: a payment rule's old runs were reused by its name)
                found.append(f"{kind}:{name}:{definition_digest(reg.get(name))}")
    return {"plugins": found} if found else {}


def definition_digest(entry) -> str:
    """SHA-256 (16 hex digits) of what defines an entry registered from Python: its fields (a dataclass's, but its
    description and source), each function among them by its code (bytecode, constants, names, defaults and the
    values its closure holds), nested code and functions alike; anything else by its ``repr``."""
    h = hashlib.sha256()
    _digest_into(h, entry, depth=0)
    return h.hexdigest()[:16]


def _digest_into(h, value, depth: int) -> None:
    if depth > 8:  # (a cycle or a deep structure: its repr)
        h.update(repr(value).encode())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        h.update(type(value).__qualname__.encode())
        for f in dataclasses.fields(value):
            if f.name not in ("description", "source"):
                h.update(f.name.encode())
                _digest_into(h, getattr(value, f.name), depth + 1)
    elif isinstance(value, types.FunctionType):
        _digest_function(h, value, depth)
    elif isinstance(value, types.CodeType):
        h.update(value.co_code)
        h.update(repr(value.co_names).encode())
        for c in value.co_consts:
            _digest_into(h, c, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _digest_into(h, v, depth + 1)
    else:
        _digest_object(h, value, depth)


def _digest_function(h, fn, depth: int) -> None:
    """A function by its code, defaults, closure and the globals its code reads, by value (hunt 24a-F1: a rule reading
    a module-level constant kept its runs when the constant changed); a module by its name."""
    _digest_into(h, fn.__code__, depth + 1)
    _digest_into(h, fn.__defaults__, depth + 1)
    for cell in fn.__closure__ or ():
        _digest_into(h, cell.cell_contents, depth + 1)
    for name in sorted(_names(fn.__code__)):
        if name in fn.__globals__:
            g = fn.__globals__[name]
            h.update(name.encode())
            if isinstance(g, types.ModuleType):
                h.update(g.__name__.encode())
            else:
                _digest_into(h, g, depth + 1)
    wrapped = getattr(fn, "__wrapped__", None)
    if wrapped is not None:
        _digest_into(h, wrapped, depth + 1)


def _digest_object(h, value, depth: int) -> None:
    """A numba dispatcher by its Python function, a class by its attributes (methods by their code), an instance by
    its class and attributes, never by an address (hunt 24a-F2: an event scheduler keyed by a repr holding one made
    its runs again on every call); anything else by its repr."""
    if callable(value) and hasattr(value, "py_func"):
        _digest_into(h, value.py_func, depth + 1)
    elif isinstance(value, (staticmethod, classmethod)):
        _digest_into(h, value.__func__, depth + 1)
    elif isinstance(value, type):
        h.update(value.__qualname__.encode())
        for name, attr in sorted(vars(value).items()):
            if not (name.startswith("__") and name.endswith("__")) or name in ("__init__", "__call__"):
                h.update(name.encode())
                _digest_into(h, attr, depth + 1)
    elif hasattr(value, "__dict__") and not isinstance(value, types.ModuleType):
        _digest_into(h, type(value), depth + 1)
        for name, attr in sorted(vars(value).items()):
            h.update(name.encode())
            _digest_into(h, attr, depth + 1)
    else:
        h.update(repr(value).encode())


def _names(code) -> set:
    """The global names a code object and the code nested in it read."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


#: the plugins this process loaded from the command line (``--plugin FILE``), in order: a command's hint to run a
#: study again names them (hunt 20d-W4: it omitted them, and failed as written with "unknown payment scheme")
GIVEN_ON_THE_COMMAND_LINE: list[str] = []


def in_process_entries(params: list[dict]) -> list[str]:
    """The entries that strategies' parameters (providers' and consumers') name and that exist in this process only:
    registered from Python (a script, a notebook) rather than by a plugin file or an installed entry point, so no
    worker process can load them ("scheduler 'x'", "payment scheme 'y'", "consumer-strategy family 'z'")."""
    from gamemarket.market.pricing_market import HETERO_MECHANISMS  # deferred: pandas, scipy (the pricing market)

    found = []
    for p in params:
        for reg, name in ((REGISTRIES["scheduler"], p.get("scheduler")), (REGISTRIES["payment"], p.get("payment"))):
            if isinstance(name, str) and name in reg and not reg.is_builtin(name):
                if getattr(reg.get(name), "source", None) is None:
                    found.append(f"{reg.what} {name!r}")
        family, families = p.get("family"), REGISTRIES["family"]
        if isinstance(family, str) and family in families and not families.is_builtin(family):
            if getattr(families.get(family), "source", None) is None:
                found.append(f"{families.what} {family!r}")
        mech = p.get("mechanism") if p.get("kind") == "pricing" else None
        if isinstance(mech, str) and mech in HETERO_MECHANISMS and not HETERO_MECHANISMS.is_builtin(mech):
            # a pricing mechanism records no plugin: its rule's module says where it lives (a script's or a notebook's
            # __main__ is this process's only; a plugin file's module, or an installed one, a worker loads too)
            if getattr(HETERO_MECHANISMS.get(mech).rule, "__module__", None) in (None, "__main__"):
                found.append(f"{HETERO_MECHANISMS.what} {mech!r}")
    return sorted(set(found))


def local_workers(params: list[dict], n_jobs, scheduler_address: str | None, where: str):
    """The worker processes a run may use, given the entries its strategies name (:func:`in_process_entries`): one
    (this process, with a warning) where some exist in this process only and more were asked for, since a worker
    cannot load them (hunt 20a-F3: the run died in the pool's workers, "unknown payment scheme", on a study large
    enough for a pool); an error on a dask cluster. The numbers are the same in either case."""
    local = in_process_entries(params)
    if not local:
        return n_jobs
    verb, it = ("exists", "it") if len(local) == 1 else ("exist", "them")
    fix = f"register {it} in a plugin file instead (a study's [plugins] modules, or load_plugin(FILE))"
    if scheduler_address is not None:
        raise InputError(
            f"{where}: {', '.join(local)} {verb} in this process only (registered from Python, not by a plugin "
            f"file): a dask worker cannot load {it}; {fix}, or run without a scheduler address"
        )
    if n_jobs != 1:
        warnings.warn(
            f"{where}: {', '.join(local)} {verb} in this process only (registered from Python, not by a plugin "
            f"file), which worker processes cannot load: the runs are made in this process (the same numbers); "
            f"{fix} to use workers",
            stacklevel=3,
        )
    return 1


def listed_plugins() -> list:
    """The plugins ``GAMEMARKET_PLUGINS`` lists, as [path, hash] pairs (unset: none); a value that is not such a list
    is an error naming the variable and the value (a gamemarket process writes it: someone else did)."""
    raw = os.environ.get(ENV)
    if raw is None or not raw.strip():
        return []
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    ok = isinstance(value, list) and all(
        isinstance(e, list)
        and len(e) == 2
        and all(isinstance(x, str) for x in e)
        and e[0].strip()
        and len(e[1]) == 16
        and all(c in "0123456789abcdef" for c in e[1])
        for e in value
    )
    if not ok:
        shown = raw if len(raw) <= 200 else raw[:200] + f"... ({len(raw)} characters)"
        raise InputError(
            f"environment variable {ENV}={shown!r}: expected a JSON list of [path, hash] pairs, the plugins a "
            'gamemarket process hands its worker processes (e.g. [["/abs/mine.py", "0123456789abcdef"]]); unset it'
        )
    return value
