"""Plugins in worker processes: a study's task carries its parent's plugins (their list, each file's text) to the
worker that runs it (:class:`WithPlugins`); there a registry's miss, or the unpickling of a plugin's object, loads
them again (:func:`load_listed`, :class:`PluginModules`), from the file where its hash is the parent's, else from
the text the task carried. Importing this module sets those hooks.
"""

from __future__ import annotations

import faulthandler
import importlib.abc
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

from gamemarket.errors import InputError, foreign_prints
from gamemarket.plugins import loading
from gamemarket.plugins.entries import ENTRY_POINT, ENV, REGISTRIES, listed_plugins, text_hash

# the texts the tasks this process ran shipped, by hash: what a listed plugin loads from where its file is absent
# or holds other text (kept apart from ``loading.TEXTS``: without a shipment, a file edited since is still refused)
SHIPPED: dict[str, bytes] = {}


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
        self.parent = os.getpid()
        self.listed = listed_plugins()
        self.texts = {d: t for p, d in self.listed if not p.startswith(f"{ENTRY_POINT} ") and (t := _text_of(p, d))}

    def __setstate__(self, state):
        # unpickled in the worker before the task's arguments, which may be instances of a plugin's classes
        # (a family's strategies): with the list set first, the import of their module finds the plugin
        self.__dict__.update(state)
        self._merge()

    def _merge(self) -> None:
        # the texts are content-addressed (a hash names one text): kept for every later task of this worker
        SHIPPED.update(getattr(self, "texts", {}))
        if self.listed:
            # the parent's list is the worker's: a reused worker may hold a file's older text, or a plugin the
            # parent has since dropped (whose names a listed plugin may now register)
            os.environ[ENV] = json.dumps(self.listed)
            with loading.LOCK:  # and taken back now: a name still registered (no miss) would run the old text
                _take_back_unlisted()

    def __call__(self, *args, **kwargs):
        self._merge()
        _raise_broken()
        if os.getpid() != getattr(self, "parent", os.getpid()) and "PYTHONFAULTHANDLER" not in os.environ:
            # a worker (loky enables Python's fault handler in each): a crash of native code printed its 26-line
            # stack above the command's one line (hunt 16a); the parent names the signal, and says how to see it
            faulthandler.disable()
        # a worker's stdout is its parent's (loky, a local dask cluster): what a plugin's code prints as the task
        # runs (or loads, at a registry's miss) would land in the command's result (``--format json``)
        with foreign_prints():
            return self.fn(*args, **kwargs)


def _text_of(path: str, digest: str) -> bytes | None:
    """The text of the listed file plugin ``path`` of hash ``digest``: as this process loaded it or a task shipped
    it, else the file's if its hash is still ``digest``; None where none is known (the file edited or gone)."""
    text = loading.TEXTS.get(digest) or SHIPPED.get(digest)
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
    with loading.LOCK:
        return _load_listed()


def _take_back_unlisted() -> None:
    """Take back the file plugins loaded here that ``GAMEMARKET_PLUGINS`` no longer lists: their names are free."""
    listed = {f"{path}@{digest}" for path, digest in listed_plugins()}
    for modname, old in list(loading.LOADED.items()):
        if old.file and old.source not in listed:
            for kind, name in old.entries:
                REGISTRIES[kind].remove(name)
            del loading.LOADED[modname]


def _load_listed() -> bool:
    _take_back_unlisted()
    done = {p.source for p in loading.LOADED.values()}
    new = False
    for path, digest in listed_plugins():
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
            loading.load_plugin(path)
        elif digest in SHIPPED:  # the file is absent here or holds other text: the parent's text, as its path
            loading.load_file(Path(path), shipped=SHIPPED[digest])
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
    plugin = loading.load_plugin(where[len(ENTRY_POINT) + 1 :])
    if plugin.digest != digest:
        for kind, name in plugin.entries:
            REGISTRIES[kind].remove(name)
        loading.LOADED.pop(where, None)
        raise InputError(
            f"plugin {where}: the installed version here is not the one the study was started with (hash "
            f"{plugin.digest}, expected {digest}); install the same version on every worker"
        )


class PluginModules(importlib.abc.MetaPathFinder):
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
        if not any(d == digest for _, d in listed_plugins()):
            return None
        return importlib.util.spec_from_loader(fullname, _ListedLoader())


class _ListedLoader(importlib.abc.Loader):
    """Loads a listed plugin (:func:`load_listed`) and hands over its module, loaded once."""

    def create_module(self, spec):
        """The plugin's module, loaded now (under the plugins' lock) unless it was before; where it does not load,
        a stand-in (:func:`_stand_in`) and the error kept for the task to raise."""
        with loading.LOCK:  # another thread may be loading it now: wait, then hand over what it loaded
            if spec.name not in loading.LOADED:
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
    listed = {f"{PluginModules.PREFIX}{digest}" for _, digest in listed_plugins()}
    with loading.LOCK:
        for name in [n for n in _BROKEN if n not in listed]:
            del _BROKEN[name]
            if name not in loading.LOADED:
                sys.modules.pop(name, None)
        broken = list(_BROKEN.values())
    if broken:
        raise broken[0]


for _reg in REGISTRIES.values():
    _reg.on_miss = load_listed
if not any(isinstance(f, PluginModules) for f in sys.meta_path):
    sys.meta_path.append(PluginModules())
