"""What a plugin's code may do as it loads, checked: it only adds entries (it replaces or removes none registered
before it), adds them only to the registries plugins may add to, leaves the working directory where it was, and
registers something; on any error, or any of those broken, every registry is put back as it was.
"""

from __future__ import annotations

import json
import os

from gamemarket.errors import InputError, foreign_prints, raised
from gamemarket.plugins.entries import ENV, REGISTRIES, listed_plugins
from gamemarket.registry import Registry


def run_checked(where: str, run, loaded: dict) -> tuple:
    """Run a plugin's code (``run``; ``loaded``: the plugins loaded in this process, by module name) and return
    what it registered, as (kind, name) pairs; on an error take
    back whatever it registered before the error.

    A plugin adds entries; it never replaces or removes one registered before it (a built-in one, another
    plugin's): every registry (``Registry.instances``, those of :data:`REGISTRIES` and the pricing market's,
    utilities', markets' and claims') is compared before and after, by object, whatever way the plugin took
    (``replace=True``, the registry's dict). A stored result of a built-in entry is keyed by its name, and a
    plugin's entry by the plugin's hash only where the entry is the plugin's own, so an entry put in another's
    place would be served that one's stored results. A plugin's entry in a registry a plugin may not add to
    (whose results would not carry its hash) is refused too."""
    before = {id(reg): dict(reg._items) for reg in Registry.instances}
    before["loaded"] = set(loaded)  # a plugin may load another (load_plugin in its code): that one's are its own
    cwd = os.getcwd()
    try:
        with foreign_prints():  # its prints are not a command's output (``--format json``)
            run()
    except InputError as exc:
        _restore(before, loaded)
        raise InputError(f"plugin {where}: {exc}") from None
    except Exception as exc:  # the plugin's own error, whatever it is: its message, on one line
        _restore(before, loaded)
        raise InputError(f"plugin {where}: does not import: {raised(exc)}") from None
    except SystemExit as exc:  # sys.exit() at a plugin's top level: an error too, not the end of the command
        _restore(before, loaded)
        raise InputError(f"plugin {where}: does not import: it called sys.exit({exc.code!r})") from None
    except KeyboardInterrupt:  # the user's: nothing of the plugin is left registered, and the command ends
        _restore(before, loaded)
        raise
    except BaseException as exc:  # a plugin's own BaseException subclass (GeneratorExit, ...): its error too
        _restore(before, loaded)
        raise InputError(f"plugin {where}: does not import: {raised(exc)} (a BaseException)") from None
    finally:
        moved = _cwd_changed(cwd)
    if moved:
        _restore(before, loaded)
        raise InputError(
            f"plugin {where}: changed the working directory (from {cwd} to {moved}) as it loaded; expected it to "
            "leave it as it is (relative paths would name other files)"
        )
    problem = _replaced(before) or _unsupported(before)
    if problem:
        _restore(before, loaded)
        raise InputError(f"plugin {where}: {problem}")
    # an event scheduler's entry in SCHEDULERS (market.hooks) is part of it, not an entry of its own; an entry
    # sealed built in since (a gamemarket module the plugin imported first) is gamemarket's; one of a plugin its code
    # loaded is that plugin's (marked with its hash: editing that file reruns its runs)
    nested = {e for m, p in loaded.items() if m not in before["loaded"] for e in p.entries}

    def its_own(kind: str, reg: Registry, n: str) -> bool:
        if (kind, n) in nested or n in before[id(reg)] or reg.is_builtin(n):
            return False
        return not (kind == "scheduler" and reg[n].hooks is not None)

    entries = tuple((kind, n) for kind, reg in REGISTRIES.items() for n in reg if its_own(kind, reg, n))
    if not entries:
        _restore(before, loaded)
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


def _restore(before: dict, loaded: dict) -> None:
    """Every registry as it was before a plugin's code ran (what it added taken back, what it replaced or removed
    put back), but for entries sealed built in since (a gamemarket module the plugin imported); a plugin its code
    loaded is forgotten with it (its entries are taken back with the rest)."""
    for modname in set(loaded) - before["loaded"]:
        gone = loaded.pop(modname)
        listed = [e for e in listed_plugins() if e != [gone.path, gone.digest]]
        os.environ[ENV] = json.dumps(listed)
    for reg in Registry.instances:
        was = before.get(id(reg), {})  # (none: made as the plugin ran, a gamemarket module it imported)
        # in the order they were (the claims are measured in the order they were registered)
        sealed = {n: item for n, item in reg._items.items() if n not in was and reg.is_builtin(n)}
        reg._items.clear()
        reg._items.update({**was, **sealed})
