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

The package: :mod:`~gamemarket.plugins.entries` (what a plugin may register and the keys its entries add),
:mod:`~gamemarket.plugins.checks` (what its code may do as it loads), :mod:`~gamemarket.plugins.loading` (a file or
an entry point loaded) and :mod:`~gamemarket.plugins.shipping` (its text carried to worker processes, and loaded
there again).
"""

from gamemarket.plugins.entries import (
    ENTRY_POINT,
    ENTRY_POINT_GROUP,
    ENV,
    GIVEN_ON_THE_COMMAND_LINE,
    MAX_PLUGIN_BYTES,
    PROVIDERS,
    REGISTRIES,
    Plugin,
    ProviderEntry,
    in_process_entries,
    key_fields,
    listed_plugins,
    local_workers,
    register_provider,
    sources,
    text_hash,
)
from gamemarket.plugins.loading import drop_inherited, load_plugin, loaded
from gamemarket.plugins.shipping import PluginModules, WithPlugins, load_listed

__all__ = [
    "ENTRY_POINT",
    "ENTRY_POINT_GROUP",
    "ENV",
    "MAX_PLUGIN_BYTES",
    "PROVIDERS",
    "REGISTRIES",
    "Plugin",
    "PluginModules",
    "ProviderEntry",
    "WithPlugins",
    "drop_inherited",
    "GIVEN_ON_THE_COMMAND_LINE",
    "in_process_entries",
    "key_fields",
    "local_workers",
    "listed_plugins",
    "load_listed",
    "load_plugin",
    "loaded",
    "register_provider",
    "sources",
    "text_hash",
]
