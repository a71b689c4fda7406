"""Loading a plugin: a file, imported under a module name made of its text's hash, or an installed entry point;
its code run under the checks of :mod:`~gamemarket.plugins.checks`, its entries marked with its source, and its
text kept (a study's tasks carry it to their workers: :mod:`~gamemarket.plugins.shipping`).
"""

from __future__ import annotations

import dataclasses
import importlib.abc
import importlib.util
import json
import os
import stat
import sys
import threading
from importlib.metadata import entry_points
from pathlib import Path

from gamemarket.errors import InputError
from gamemarket.io.files import check_link, special_kind
from gamemarket.market.schedulers import SCHEDULERS
from gamemarket.plugins.checks import run_checked
from gamemarket.plugins.entries import (
    ENTRY_POINT,
    ENTRY_POINT_GROUP,
    ENV,
    MAX_PLUGIN_BYTES,
    REGISTRIES,
    Plugin,
    listed_plugins,
    text_hash,
)

LOADED: dict[str, Plugin] = {}  # module name -> plugin

# the text of each file plugin loaded in this process, by hash: what a task (``WithPlugins``) ships to its worker
TEXTS: dict[str, bytes] = {}

# one plugin loads at a time: a dask worker unpickles a task (whose plugin strategies import their module,
# ``_PluginModules``) on one thread while another runs a task whose registry miss loads the plugins; both loaded
# the same file, and the second registration of its family failed ("already registered") and broke the worker
LOCK = threading.RLock()


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
    check_link(path, "plugin (.py)")  # a link that leads nowhere is not "no such file"
    with LOCK:
        if text.endswith(".py") or path.exists() or os.sep in text or "/" in text:
            return load_file(path)
        return _load_entry_point(text)


def load_file(path: Path, shipped: bytes | None = None) -> Plugin:
    """Load the plugin file ``path``, or, given ``shipped`` (the text a task carried), that text as the file
    ``path`` (the parent's resolved path, kept as it is: the entries' source is the parent's)."""
    if shipped is None:
        try:
            info = path.stat()
            if stat.S_ISDIR(info.st_mode):
                raise InputError(f"plugin {path}: is a directory; expected a .py file")
            if not stat.S_ISREG(info.st_mode):  # a pipe would block the read, a device (/dev/zero) never end it
                raise InputError(
                    f"plugin {path}: is {special_kind(path) or 'something'}, not a regular file; expected a .py file"
                )
            if info.st_size > MAX_PLUGIN_BYTES:
                raise InputError(
                    f"plugin {path}: {info.st_size:,} bytes; expected a Python module of at most "
                    f"{MAX_PLUGIN_BYTES:,} bytes (its text travels with every task of a study)"
                )
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"plugin {path}: cannot read it ({exc.strerror or exc})") from None
        if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:4096]:  # as the other readers say
            raise InputError(
                f"plugin {path}: is UTF-16 text (or binary), not UTF-8; save it as UTF-8 (Python read it as 'source "
                "code string cannot contain null bytes')"
            )
        resolved = str(path.resolve())
        if importlib.util.spec_from_file_location("gamemarket_plugin_", path) is None:
            raise InputError(f"plugin {path}: not a Python file importlib can load (expected a .py file)")
    else:
        data, resolved = shipped, str(path)
    digest = text_hash(data)
    modname = f"gamemarket_plugin_{digest}"
    if modname in LOADED:  # the same text, loaded before: its entries are registered already
        return LOADED[modname]
    # the text read and hashed is the text run: importing the file would read it again, and a file rewritten in
    # between (an editor saving, a checkout) ran other code under this hash, whose results then carried it
    spec = importlib.util.spec_from_file_location(modname, resolved, loader=_ShippedLoader(resolved, data))
    module = importlib.util.module_from_spec(spec)
    # the same file with other text (edited since): its new text replaces what the old one registered
    for old_name, old in list(LOADED.items()):
        if old.path == resolved:
            for kind, name in old.entries:
                REGISTRIES[kind].remove(name)
            del LOADED[old_name]
    plugin = _mark(Plugin(resolved, digest, run_checked(resolved, lambda: _exec(spec, module, modname), LOADED)))
    LOADED[modname] = plugin
    TEXTS[digest] = data
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
    ``_initializing`` under the import system's lock; taking that lock here, behind ``LOCK``, would deadlock with
    :class:`_ListedLoader`, which takes them in the other order). So, while the code runs, a name it has not
    defined yet is looked up by a module ``__getattr__`` (PEP 562, asked only for a missing name) that waits for
    ``LOCK``, which the loading thread holds to the end of the load: the name then exists, or the plugin did not
    load (an ``AttributeError`` saying so). The loading thread itself holds the lock, so for it a missing name is
    missing at once. The hook is removed when the code has run, unless the plugin's code defined its own.
    """

    def wait_for_the_load(name: str):
        with LOCK:  # released by the loading thread when the plugin has loaded, or failed to
            pass
        if sys.modules.get(modname) is not module:
            raise AttributeError(f"plugin module {modname!r} did not load (see the plugin's error); no {name!r}")
        if name in module.__dict__:
            return module.__dict__[name]
        raise AttributeError(f"module {modname!r} has no attribute {name!r}")

    with LOCK:
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
    if where in LOADED:
        return LOADED[where]

    def load() -> None:
        obj = ep.load()
        if callable(obj):  # an entry point may name a function that registers, rather than a module
            obj()

    entries = run_checked(where, load, LOADED)
    module_file = getattr(sys.modules.get(ep.value.split(":")[0].strip()), "__file__", None)
    digest = text_hash(Path(module_file).read_bytes() if module_file else ep.value.encode())
    plugin = _mark(Plugin(where, digest, entries))
    LOADED[where] = plugin
    _announce(where, digest)  # a worker loads it again by its name (``_load_listed``)
    return plugin


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
    return list(LOADED.values())


def _announce(path: str, digest: str) -> None:
    """List a loaded file (or ``entry point NAME``) in ``GAMEMARKET_PLUGINS``, for the worker processes this one
    starts."""
    listed = listed_plugins()
    if [path, digest] not in listed:
        # the file's older text (edited and loaded again since) is no longer the plugin: a worker would refuse it
        listed = [e for e in listed if e[0] != path] + [[path, digest]]
        os.environ[ENV] = json.dumps(listed)


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
    listed = listed_plugins()
    mine = {p.source for p in LOADED.values()}
    dropped = [f"{path}@{digest}" for path, digest in listed if f"{path}@{digest}" not in mine]
    if dropped:
        os.environ[ENV] = json.dumps([e for e in listed if f"{e[0]}@{e[1]}" in mine])
    return dropped
