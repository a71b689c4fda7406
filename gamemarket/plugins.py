"""Plugins: schedulers, payment schemes, consumer-strategy families and provider strategies a researcher writes
outside the package.

A plugin is a Python file (or an installed package exposing an entry point in the group
``gamemarket.plugins``) that registers entries with the public API when it is imported::

    # mechanisms.py
    from gamemarket.market import register_scheduler
    from gamemarket.market.payments import payment_rule
    from gamemarket.market.schedulers import PriorityKey

    register_scheduler("bid-per-est", False, PriorityKey("reported_bid", per="estimate", descending=True),
                       "bid per estimated node-second")

    @payment_rule("lowest-running", "the lowest running bid while every node is busy, else r")
    def lowest_running(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        return reserve if free > 0 else max(reserve, min_running_bid)

    # a consumer-strategy family (gamemarket.consumers.register) and a provider strategy combining entries
    register_provider("bpns-lowest", "bid-per-est", "lowest-running", reserve=1.0)

**Loading a plugin runs its code**, with your permissions, as importing any Python module does (as pytest
runs a ``conftest.py``): load only files you trust.

:func:`load_plugin` imports a file under a module name derived from a hash of its text, so two plugins never
collide and loading the same text twice registers nothing twice; what the plugin registered is marked with
its :attr:`Plugin.source` (path and hash), which a study's result keys include, so editing a plugin reruns
what it changed. Every plugin loaded in a process is listed in the environment variable ``GAMEMARKET_PLUGINS``,
which worker processes (joblib, a local dask cluster) inherit: there a registry's miss loads them again. A
study's tasks (:class:`WithPlugins`) also carry each file plugin's text, so a worker where the file is absent
or holds other text (a remote dask worker, a file edited while the study runs) loads the text its parent
loaded, under the same path, hash and module name; without shipped text, a file whose text has changed is
refused. The ``gamemarket`` command ignores, with a warning, what the variable lists as it starts
(:func:`drop_inherited`): it is not a way to load plugins (that is ``--plugin`` or a study's ``[plugins]``), and
a value left in the user's environment would run code no command line names. An entry point is loaded again by
its name (the package must be installed on the worker, the same version: its hash is checked). Only the
plugin's own file travels: a module it imports (a sibling file) must be importable on the worker too. Errors (a
file that does not import, registers nothing, registers a name already taken, a rate function or a family's
method with the wrong signature, a provider naming an unknown scheduler) are ``InputError`` naming the file and
the entry.

A plugin only adds entries: one that replaces or removes an entry registered before it (a built-in one, whatever
the way: ``replace=True``, the registry's dict; another plugin's) is refused and leaves the registries as they
were, since a stored result of a built-in entry is keyed by its name alone and would be served for the plugin's.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.abc
import importlib.util
import json
import os
import stat
import sys
import threading
import tomllib
import types
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import entry_points
from pathlib import Path

from gamemarket.consumers.base import FAMILIES
from gamemarket.errors import InputError, foreign_prints, raised
from gamemarket.market.hooks import EVENT_SCHEDULERS
from gamemarket.market.payments import PAYMENTS
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.registry import PLUGINS_ENV, Registry

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
PROVIDERS: Registry[ProviderEntry] = Registry("provider strategy")


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
    try:
        r = float(reserve)
    except (TypeError, ValueError):
        r = float("nan")
    if isinstance(reserve, bool) or not (r >= 0 and r != float("inf")):
        raise InputError(f"{what}: field 'reserve': expected a finite number >= 0, got {reserve!r}")
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


_LOADED: dict[str, Plugin] = {}  # module name -> plugin
# the text of each file plugin loaded in this process, by hash: what a task (``WithPlugins``) ships to its worker
_TEXTS: dict[str, bytes] = {}
# the texts the tasks this process ran shipped, by hash: what a listed plugin loads from where its file is absent
# or holds other text (kept apart from ``_TEXTS``: without a shipment, a file edited since is still refused)
_SHIPPED: dict[str, bytes] = {}
# one plugin loads at a time: a dask worker unpickles a task (whose plugin strategies import their module,
# ``_PluginModules``) on one thread while another runs a task whose registry miss loads the plugins; both loaded
# the same file, and the second registration of its family failed ("already registered") and broke the worker
_LOCK = threading.RLock()


def text_hash(text: bytes) -> str:
    """A plugin's hash: SHA-256 of its text, first 16 hex digits."""
    return hashlib.sha256(text).hexdigest()[:16]


def load_plugin(spec: str | os.PathLike, *, base: str | os.PathLike | None = None) -> Plugin:
    """Load a plugin: a Python file (relative to ``base`` where given) or the name of an installed entry point
    of the group ``gamemarket.plugins``. Loading it runs its code.

    Parameters
    ----------
    spec : str or path
        A ``.py`` file, or an entry point's name.
    base : str or path, optional
        The folder a relative file is found in (a study's folder); default the working directory.

    Returns
    -------
    Plugin

    Raises
    ------
    InputError
        The file does not exist or does not import (its own exception's message, on one line), registers
        nothing, registers a name already taken, or registers a rate function with the wrong signature.
    """
    text = str(spec)
    if not text.strip():  # Path("") is ".", the working directory: "plugin .: cannot read it (Is a directory)"
        raise InputError(f"plugin {text!r}: the path is empty; expected a .py file or an installed entry point's name")
    if "\0" in text:
        raise InputError(f"plugin {text!r}: the path holds a NUL character; expected a .py file")
    path = Path(text)
    if not path.is_absolute() and base is not None:
        path = Path(base) / path
    with _LOCK:
        if text.endswith(".py") or path.exists() or os.sep in text or "/" in text:
            return _load_file(path)
        return _load_entry_point(text)


def _load_file(path: Path, shipped: bytes | None = None) -> Plugin:
    """Load the plugin file ``path``, or, given ``shipped`` (the text a task carried), that text as the file
    ``path`` (the parent's resolved path, kept as it is: the entries' source is the parent's)."""
    if shipped is None:
        try:
            info = path.stat()
            if stat.S_ISDIR(info.st_mode):
                raise InputError(f"plugin {path}: is a directory; expected a .py file")
            if not stat.S_ISREG(info.st_mode):  # a pipe would block the read, a device (/dev/zero) never end it
                raise InputError(f"plugin {path}: is not a regular file (a pipe, a device, ...); expected a .py file")
            if info.st_size > MAX_PLUGIN_BYTES:
                raise InputError(
                    f"plugin {path}: {info.st_size:,} bytes; expected a Python module of at most "
                    f"{MAX_PLUGIN_BYTES:,} bytes (its text travels with every task of a study)"
                )
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"plugin {path}: cannot read it ({exc.strerror or exc})") from None
        resolved = str(path.resolve())
        if importlib.util.spec_from_file_location("gamemarket_plugin_", path) is None:
            raise InputError(f"plugin {path}: not a Python file importlib can load (expected a .py file)")
    else:
        data, resolved = shipped, str(path)
    digest = text_hash(data)
    modname = f"gamemarket_plugin_{digest}"
    if modname in _LOADED:  # the same text, loaded before: its entries are registered already
        return _LOADED[modname]
    # the text read and hashed is the text run: importing the file would read it again, and a file rewritten in
    # between (an editor saving, a checkout) ran other code under this hash, whose results then carried it
    spec = importlib.util.spec_from_file_location(modname, resolved, loader=_ShippedLoader(resolved, data))
    module = importlib.util.module_from_spec(spec)
    # the same file with other text (edited since): its new text replaces what the old one registered
    for old_name, old in list(_LOADED.items()):
        if old.path == resolved:
            for kind, name in old.entries:
                REGISTRIES[kind].remove(name)
            del _LOADED[old_name]
    plugin = _mark(Plugin(resolved, digest, _register(resolved, lambda: _exec(spec, module, modname))))
    _LOADED[modname] = plugin
    _TEXTS[digest] = data
    _announce(resolved, digest)
    return plugin


class _ShippedLoader(importlib.abc.SourceLoader):
    """Loads a plugin from the text read and hashed (or that a task shipped), as the file ``path`` (which may not
    exist here): the module's ``__file__`` is that path, and a traceback shows that text (``get_source``). Nothing
    is cached as bytecode (``path_stats`` is not defined: the source loader then writes none)."""

    def __init__(self, path: str, data: bytes):
        self.path, self.data = path, data

    def get_filename(self, fullname: str) -> str:
        """The parent's path of the plugin file."""
        return self.path

    def get_data(self, path) -> bytes:
        """The shipped text, whatever the path's file holds here."""
        return self.data

    def is_package(self, fullname: str) -> bool:
        """A plugin is one module, never a package."""
        return False


def _exec(spec, module, modname: str) -> None:
    """Run a plugin's code as the module ``modname``, which is in ``sys.modules`` while it runs (a dataclass's
    annotations are resolved in its module's namespace, found there) and after it, if it ran to its end.

    Another thread sees the module from the start of its code: a dask worker unpickles a task's plugin objects
    (``import modname``, then its names) while another thread loads the plugins at a registry's miss. The import
    system does not make that thread wait, as it does for a module it imports itself (this module is never
    ``_initializing`` under the import system's lock; taking that lock here, behind ``_LOCK``, would deadlock with
    :class:`_ListedLoader`, which takes them in the other order). So, while the code runs, a name it has not
    defined yet is looked up by a module ``__getattr__`` (PEP 562, asked only for a missing name) that waits for
    ``_LOCK``, which the loading thread holds to the end of the load: the name then exists, or the plugin did not
    load (an ``AttributeError`` saying so). The loading thread itself holds the lock, so for it a missing name is
    missing at once. The hook is removed when the code has run, unless the plugin's code defined its own.
    """

    def wait_for_the_load(name: str):
        with _LOCK:  # released by the loading thread when the plugin has loaded, or failed to
            pass
        if sys.modules.get(modname) is not module:
            raise AttributeError(f"plugin module {modname!r} did not load (see the plugin's error); no {name!r}")
        if name in module.__dict__:
            return module.__dict__[name]
        raise AttributeError(f"module {modname!r} has no attribute {name!r}")

    with _LOCK:
        module.__getattr__ = wait_for_the_load
        sys.modules[modname] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:  # a module that failed to import is not left half-made in sys.modules
            sys.modules.pop(modname, None)
            raise
        finally:
            if module.__dict__.get("__getattr__") is wait_for_the_load:
                del module.__getattr__


def _load_entry_point(name: str) -> Plugin:
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
        raise InputError(
            f"plugin {name!r}: no such file, and no installed entry point of group {ENTRY_POINT_GROUP!r} by that "
            f"name (installed: {known or 'none'})"
        )
    ep = found[0]
    where = f"{ENTRY_POINT} {name}"
    if where in _LOADED:
        return _LOADED[where]

    def load() -> None:
        obj = ep.load()
        if callable(obj):  # an entry point may name a function that registers, rather than a module
            obj()

    entries = _register(where, load)
    module_file = getattr(sys.modules.get(ep.value.split(":")[0].strip()), "__file__", None)
    digest = text_hash(Path(module_file).read_bytes() if module_file else ep.value.encode())
    plugin = _mark(Plugin(where, digest, entries))
    _LOADED[where] = plugin
    _announce(where, digest)  # a worker loads it again by its name (``_load_listed``)
    return plugin


def _register(where: str, run) -> tuple:
    """Run a plugin's code (``run``) and return what it registered, as (kind, name) pairs; on an error take
    back whatever it registered before the error.

    A plugin adds entries; it never replaces or removes one registered before it (a built-in one, another
    plugin's): every registry (``Registry.instances``, those of :data:`REGISTRIES` and the pricing market's,
    utilities', markets' and claims') is compared before and after, by object, whatever way the plugin took
    (``replace=True``, the registry's dict). A stored result of a built-in entry is keyed by its name, and a
    plugin's entry by the plugin's hash only where the entry is the plugin's own, so an entry put in another's
    place would be served that one's stored results. A plugin's entry in a registry a plugin may not add to
    (whose results would not carry its hash) is refused too."""
    before = {id(reg): dict(reg._items) for reg in Registry.instances}
    before["loaded"] = set(_LOADED)  # a plugin may load another (load_plugin in its code): that one's are its own
    cwd = os.getcwd()
    try:
        with foreign_prints():  # its prints are not a command's output (``--format json``)
            run()
    except InputError as exc:
        _restore(before)
        raise InputError(f"plugin {where}: {exc}") from None
    except Exception as exc:  # the plugin's own error, whatever it is: its message, on one line
        _restore(before)
        raise InputError(f"plugin {where}: does not import: {raised(exc)}") from None
    except SystemExit as exc:  # sys.exit() at a plugin's top level: an error too, not the end of the command
        _restore(before)
        raise InputError(f"plugin {where}: does not import: it called sys.exit({exc.code!r})") from None
    except KeyboardInterrupt:  # the user's: nothing of the plugin is left registered, and the command ends
        _restore(before)
        raise
    except BaseException as exc:  # a plugin's own BaseException subclass (GeneratorExit, ...): its error too
        _restore(before)
        raise InputError(f"plugin {where}: does not import: {raised(exc)} (a BaseException)") from None
    finally:
        moved = _cwd_changed(cwd)
    if moved:
        _restore(before)
        raise InputError(
            f"plugin {where}: changed the working directory (from {cwd} to {moved}) as it loaded; expected it to "
            "leave it as it is (relative paths would name other files)"
        )
    problem = _replaced(before) or _unsupported(before)
    if problem:
        _restore(before)
        raise InputError(f"plugin {where}: {problem}")
    # an event scheduler's entry in SCHEDULERS (market.hooks) is part of it, not an entry of its own; an entry
    # sealed built in since (a gamemarket module the plugin imported first) is gamemarket's; one of a plugin its code
    # loaded is that plugin's (marked with its hash: editing that file reruns its runs)
    nested = {e for m, p in _LOADED.items() if m not in before["loaded"] for e in p.entries}

    def its_own(kind: str, reg: Registry, n: str) -> bool:
        if (kind, n) in nested or n in before[id(reg)] or reg.is_builtin(n):
            return False
        return not (kind == "scheduler" and reg[n].hooks is not None)

    entries = tuple((kind, n) for kind, reg in REGISTRIES.items() for n in reg if its_own(kind, reg, n))
    if not entries:
        _restore(before)
        raise InputError(
            f"plugin {where}: registers nothing; expected a scheduler (register_scheduler), a payment "
            "scheme (register_payment_rule, @payment_rule), a consumer-strategy family (gamemarket.consumers."
            "register), a provider strategy (register_provider) or an event scheduler (register_event_scheduler)"
        )
    return entries


def _cwd_changed(cwd: str) -> str | None:
    """The working directory a plugin's code moved to (changed back to ``cwd`` now), or None where it stayed."""
    try:
        now = os.getcwd()
    except OSError:  # it deleted the folder it moved to
        now = "(a folder since deleted)"
    if now == cwd:
        return None
    os.chdir(cwd)
    return now


def _replaced(before: dict) -> str | None:
    """What a plugin's code put in place of (or removed from) an entry registered before it, or None."""
    for reg in Registry.instances:
        for name, item in before.get(id(reg), {}).items():
            now = reg._items.get(name)
            if now is item:
                continue
            whose = "the built-in" if name in reg._builtin else "the"
            source = getattr(item, "source", None)
            of = f" of plugin {source}" if source else "" if name in reg._builtin else " registered before it"
            did = "removes" if name not in reg._items else "replaces"
            return (
                f"{did} {whose} {reg.what} {name!r}{of}; a plugin may only add entries (stored results are keyed "
                "by the entry's name, or its plugin's hash, and would be reused for the other); register yours "
                "under a new name"
            )
    return None


def _unsupported(before: dict) -> str | None:
    """A plugin's entry in a registry plugins may not add to, named with what they may register, or None."""
    kinds = {id(reg) for reg in REGISTRIES.values()}
    for reg in Registry.instances:
        if id(reg) in kinds:
            continue
        new = [n for n in reg._items if n not in before.get(id(reg), {}) and not reg.is_builtin(n)]
        if new:
            return (
                f"registers the {reg.what} {new[0]!r}; a plugin may register schedulers, payment schemes, "
                "consumer-strategy families, provider strategies and event schedulers only (the results of "
                f"a {reg.what} are not keyed by a plugin's hash)"
            )
    return None


def _restore(before: dict) -> None:
    """Every registry as it was before a plugin's code ran (what it added taken back, what it replaced or removed
    put back), but for entries sealed built in since (a gamemarket module the plugin imported); a plugin its code
    loaded is forgotten with it (its entries are taken back with the rest)."""
    for modname in set(_LOADED) - before["loaded"]:
        gone = _LOADED.pop(modname)
        listed = [e for e in _listed() if e != [gone.path, gone.digest]]
        os.environ[ENV] = json.dumps(listed)
    for reg in Registry.instances:
        was = before.get(id(reg), {})  # (none: made as the plugin ran, a gamemarket module it imported)
        # in the order they were (the claims are measured in the order they were registered)
        sealed = {n: item for n, item in reg._items.items() if n not in was and reg.is_builtin(n)}
        reg._items.clear()
        reg._items.update({**was, **sealed})


def _mark(plugin: Plugin) -> Plugin:
    """Mark each entry of ``plugin`` with its source (path@hash)."""
    for kind, name in plugin.entries:
        reg = REGISTRIES[kind]
        if kind in ("family", "event-scheduler"):  # the plugin's own object (not a dataclass): marked in place
            reg[name].source = plugin.source
            if kind == "event-scheduler":  # and its entry in SCHEDULERS, which a result's key reads (key_fields)
                SCHEDULERS.register(name, dataclasses.replace(SCHEDULERS[name], source=plugin.source), replace=True)
        else:
            reg.register(name, dataclasses.replace(reg[name], source=plugin.source), replace=True)
    return plugin


def loaded() -> list[Plugin]:
    """The plugins loaded in this process, in the order they were loaded."""
    return list(_LOADED.values())


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
    return {"plugins": found} if found else {}


def _announce(path: str, digest: str) -> None:
    """List a loaded file (or ``entry point NAME``) in ``GAMEMARKET_PLUGINS``, for the worker processes this one
    starts."""
    listed = _listed()
    if [path, digest] not in listed:
        # the file's older text (edited and loaded again since) is no longer the plugin: a worker would refuse it
        listed = [e for e in listed if e[0] != path] + [[path, digest]]
        os.environ[ENV] = json.dumps(listed)


def _listed() -> list:
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


def drop_inherited() -> list[str]:
    """Take out of ``GAMEMARKET_PLUGINS`` the plugins it lists that this process did not load, and return them
    (``path@hash``): what the ``gamemarket`` command does as it starts (and warns about).

    The variable is how a process hands the plugins it loaded to its worker processes, not a way to load plugins:
    one inherited from the user's environment (a stale export, a shell hook) would otherwise run code that no
    ``--plugin`` and no ``[plugins] modules`` names, at the first name a registry misses. A worker (a joblib or
    dask process) does not run the command: it keeps the list its parent hands it.

    Raises
    ------
    InputError
        A value that is not such a list, naming the variable and the value.
    """
    listed = _listed()
    mine = {p.source for p in _LOADED.values()}
    dropped = [f"{path}@{digest}" for path, digest in listed if f"{path}@{digest}" not in mine]
    if dropped:
        os.environ[ENV] = json.dumps([e for e in listed if f"{e[0]}@{e[1]}" in mine])
    return dropped


class WithPlugins:
    """A task function that carries this process's plugins to the worker that runs it: their list (path or entry
    point, and hash) and each file plugin's text.

    A worker learns its parent's plugins from ``GAMEMARKET_PLUGINS``, but a pool of workers outlives a task:
    loky reuses the processes it started before a plugin was loaded, and their environment is the one they
    started with (a study run after another in one session failed with "unknown payment scheme"). Wrapped,
    every task sets the list before it runs, and a registry's miss then loads what the parent had. The texts
    travel too: a remote dask worker need not have the plugin's file, and one whose file at that path holds
    other text loads the parent's (the hash decides), so the entries' sources, the results' keys and the
    numbers are the parent's.

    Parameters
    ----------
    fn : callable
        A module-level function (what joblib pickles by reference).
    """

    def __init__(self, fn):
        self.fn = fn
        self.listed = _listed()
        self.texts = {d: t for p, d in self.listed if not p.startswith(f"{ENTRY_POINT} ") and (t := _text_of(p, d))}

    def __setstate__(self, state):
        # unpickled in the worker before the task's arguments, which may be instances of a plugin's classes
        # (a family's strategies): with the list set first, the import of their module finds the plugin
        self.__dict__.update(state)
        self._merge()

    def _merge(self) -> None:
        # the texts are content-addressed (a hash names one text): kept for every later task of this worker
        _SHIPPED.update(getattr(self, "texts", {}))
        if self.listed:
            # the parent's list is the worker's: a reused worker may hold a file's older text, or a plugin the
            # parent has since dropped (whose names a listed plugin may now register)
            os.environ[ENV] = json.dumps(self.listed)
            with _LOCK:  # and taken back now: a name still registered (no miss) would run the old text
                _take_back_unlisted()

    def __call__(self, *args, **kwargs):
        self._merge()
        _raise_broken()
        # a worker's stdout is its parent's (loky, a local dask cluster): what a plugin's code prints as the task
        # runs (or loads, at a registry's miss) would land in the command's result (``--format json``)
        with foreign_prints():
            return self.fn(*args, **kwargs)


def _text_of(path: str, digest: str) -> bytes | None:
    """The text of the listed file plugin ``path`` of hash ``digest``: as this process loaded it or a task shipped
    it, else the file's if its hash is still ``digest``; None where none is known (the file edited or gone)."""
    text = _TEXTS.get(digest) or _SHIPPED.get(digest)
    if text is None:
        try:
            text = Path(path).read_bytes()
        except OSError:
            return None
    return text if text_hash(text) == digest else None


def load_listed(name: str = "") -> bool:
    """In a worker: load the plugins its parent listed in ``GAMEMARKET_PLUGINS`` (a registry's ``on_miss``).
    A file plugin loads from its file where the file's hash is the listed one, else from the text a task shipped
    (:class:`WithPlugins`), as the parent's path; with neither, a file whose text has changed since the parent
    loaded it is an error naming it. An entry point loads by its name, and an installed version whose hash is
    not the parent's is an error naming it. A file plugin loaded here
    before but no longer listed (a reused worker; the parent dropped it or loaded the file's new text) is taken
    back first, so its names are free. Returns whether any plugin was loaded now."""
    with _LOCK:
        return _load_listed()


def _take_back_unlisted() -> None:
    """Take back the file plugins loaded here that ``GAMEMARKET_PLUGINS`` no longer lists: their names are free."""
    listed = {f"{path}@{digest}" for path, digest in _listed()}
    for modname, old in list(_LOADED.items()):
        if old.file and old.source not in listed:
            for kind, name in old.entries:
                REGISTRIES[kind].remove(name)
            del _LOADED[modname]


def _load_listed() -> bool:
    _take_back_unlisted()
    done = {p.source for p in _LOADED.values()}
    new = False
    for path, digest in _listed():
        if f"{path}@{digest}" in done:
            continue
        if path.startswith(f"{ENTRY_POINT} "):
            _load_listed_entry_point(path, digest)
            new = True
            continue
        try:
            now = text_hash(Path(path).read_bytes())
        except OSError:
            now = None
        if now == digest:
            load_plugin(path)
        elif digest in _SHIPPED:  # the file is absent here or holds other text: the parent's text, as its path
            _load_file(Path(path), shipped=_SHIPPED[digest])
        else:
            raise InputError(
                f"plugin {path}: changed (or removed) while the study runs (loaded with hash {digest}, now "
                f"{now or 'unreadable'}); run the study again"
            )
        new = True
    return new


def _load_listed_entry_point(where: str, digest: str) -> None:
    """Load the listed entry point ``where`` (``entry point NAME``) by its name; an installed version of other
    text than the parent's (another hash) is taken back and is an error naming it."""
    plugin = load_plugin(where[len(ENTRY_POINT) + 1 :])
    if plugin.digest != digest:
        for kind, name in plugin.entries:
            REGISTRIES[kind].remove(name)
        _LOADED.pop(where, None)
        raise InputError(
            f"plugin {where}: the installed version here is not the one the study was started with (hash "
            f"{plugin.digest}, expected {digest}); install the same version on every worker"
        )


class _PluginModules(importlib.abc.MetaPathFinder):
    """Finds a plugin's module by its name (``gamemarket_plugin_<hash>``) in a worker process: the instances of
    a plugin's classes (a family's strategies) are pickled by reference to it, and unpickling them imports it.
    Its loader loads the listed plugin of that hash (``GAMEMARKET_PLUGINS``; a file whose text has changed since
    is an error, as in :func:`load_listed`) and hands over that module."""

    PREFIX = "gamemarket_plugin_"

    def find_spec(self, fullname, path=None, target=None):
        """A spec whose loader loads the listed plugin of ``fullname``'s hash; None for another name.

        The loading is the loader's, not this method's: a module that ``find_spec`` put in ``sys.modules``
        is imported again from its own spec (the import system prefers it), which ran the plugin twice.
        """
        if not fullname.startswith(self.PREFIX):
            return None
        digest = fullname[len(self.PREFIX) :]
        if not any(d == digest for _, d in _listed()):
            return None
        return importlib.util.spec_from_loader(fullname, _ListedLoader())


class _ListedLoader(importlib.abc.Loader):
    """Loads a listed plugin (:func:`load_listed`) and hands over its module, loaded once."""

    def create_module(self, spec):
        """The plugin's module, loaded now (under the plugins' lock) unless it was before; where it does not load,
        a stand-in (:func:`_stand_in`) and the error kept for the task to raise."""
        with _LOCK:  # another thread may be loading it now: wait, then hand over what it loaded
            if spec.name not in _LOADED:
                try:
                    load_listed()
                except InputError as exc:
                    return _stand_in(spec.name, exc)
            module = sys.modules.get(spec.name)
        if module is None:
            raise ImportError(f"plugin module {spec.name}: no listed plugin has that hash", name=spec.name)
        return module

    def exec_module(self, module) -> None:
        """Nothing to run: loading ran it."""


#: the plugin modules that did not load in this worker while a task's arguments were unpickled, with the error
_BROKEN: dict[str, InputError] = {}


class _Unloaded:
    """What a stand-in module (:func:`_stand_in`) gives for any name: an object that takes whatever unpickling
    hands it, so the task's arguments finish unpickling; the task then raises the plugin's error, and so does any
    use of the object (an attribute it lacks: ``_error``, the module's)."""

    _error: InputError

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __getattr__(self, name):
        raise type(self)._error


def _stand_in(name: str, exc: InputError):
    """A module named ``name`` whose every attribute stands in for the plugin's (:class:`_Unloaded`), with ``exc``
    kept in ``_BROKEN``.

    A plugin's objects in a task's arguments (a family's strategies) import its module as they are unpickled. On a
    dask worker that happens in the transport, before the task runs (and once for data shared between tasks): an
    error there failed the worker's connection, not the task, so dask restarted the worker, sent the task again,
    and the study hung (seen with the plugin's text made not to import on the workers). With a stand-in the
    arguments unpickle, and every task (:meth:`WithPlugins.__call__`) raises ``exc`` while the plugin is listed:
    the study ends with it, naming the plugin (exit 2)."""
    module = types.ModuleType(name)
    unloaded = type("_Unloaded", (_Unloaded,), {"_error": exc, "__module__": __name__})
    module.__getattr__ = lambda attr: unloaded  # PEP 562: every name the unpickler looks up
    _BROKEN[name] = exc
    return module


def _raise_broken() -> None:
    """Raise the error of a listed plugin whose module did not load here while a task's arguments were unpickled
    (:func:`_stand_in`); one no longer listed (a later study's other text) is forgotten."""
    if not _BROKEN:
        return
    listed = {f"{_PluginModules.PREFIX}{digest}" for _, digest in _listed()}
    with _LOCK:
        for name in [n for n in _BROKEN if n not in listed]:
            del _BROKEN[name]
            if name not in _LOADED:
                sys.modules.pop(name, None)
        broken = list(_BROKEN.values())
    if broken:
        raise broken[0]


for _reg in REGISTRIES.values():
    _reg.on_miss = load_listed
if not any(isinstance(f, _PluginModules) for f in sys.meta_path):
    sys.meta_path.append(_PluginModules())
