"""One registry of named things: schedulers, payment schemes, pricing mechanisms, utilities, markets.

A registry maps a name to an object carrying its own metadata (a description, flags), so callers
look things up by name and never branch on one (Axelrod's classifier idea). An unknown name is an
``InputError`` that lists the known ones; registering a name twice is refused unless ``replace``.

A built-in entry (one gamemarket registers as it is imported, marked by :meth:`Registry.seal`) is never replaced
nor removed, ``replace`` or not: a stored result of a built-in entry is keyed by its name alone, so another
object under that name would be served the built-in's results (and they its). Yours go under a name of their own.

A registry may have a ``on_miss`` hook, called with a name it does not hold before that is an error: a
worker process whose parent loaded plugins (``gamemarket.plugins``) loads them there on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from gamemarket.errors import InputError, shown_name

T = TypeVar("T")

#: the environment variable through which a process hands the plugins it loaded to its workers
#: (``gamemarket.plugins``), here so that the command line can read it without loading the registries
PLUGINS_ENV = "GAMEMARKET_PLUGINS"


#: how an unknown name of a kind plugins add to is told to be loaded (hunt 20a-F5: `study status` of a study run with
#: --plugin said only "unknown payment scheme")
PLUGIN_HINT = (
    " (a plugin's entry is known once its file is loaded: list it in the study's [plugins] modules, or give "
    "--plugin FILE; in Python, gamemarket.plugins.load_plugin(FILE))"
)


class Registry(Mapping, Generic[T]):
    """Named objects of one kind (``what`` names the kind in messages: "scheduler", "utility", ...)."""

    #: every registry made (a plugin's load compares them all before and after: ``gamemarket.plugins``)
    instances: list[Registry] = []

    def __init__(self, what: str, *, hint: str = ""):
        self.what = what
        #: said after an unknown name's list of the known ones (a kind plugins add to: how to load them)
        self.hint = hint
        self._items: dict[str, T] = {}
        self._builtin: dict[str, T] = {}  # name -> the built-in object (:meth:`seal`)
        Registry.instances.append(self)
        #: called with an unknown name; returns whether it may now be registered (a plugin loaded)
        self.on_miss: Callable[[str], bool] | None = None

    def register(self, name: str, item: T, *, replace: bool = False) -> T:
        """Add ``item`` under ``name`` and return it; a name already taken is an error unless ``replace``."""
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"a {self.what} needs a non-empty name, got {name!r}")
        if not name.isprintable() or name != name.strip():  # (a line end in a name broke the summary's table and
            # every message naming it: hunt 18b-W3)
            raise InputError(
                f"a {self.what}'s name is one line of printable text without spaces around it (no line end, tab or "
                f"control character), got {name!r}"
            )
        if name in self._builtin:
            raise InputError(self.builtin_message(name))
        if name in self._items and not replace:
            raise InputError(
                f"{self.what} {name!r} is already registered (by another plugin, or earlier in this one); give this "
                "one another name (or, from Python, pass replace=True to redefine it)"
            )
        self._items[name] = item
        return item

    def builtin_message(self, name: str) -> str:
        """Why the built-in ``name`` is not replaced (the error of :meth:`register` and of a plugin's load)."""
        return (
            f"{self.what} {name!r} is already registered, built in: it is never replaced nor removed (stored "
            "results of the built-in one are keyed by its name, and would be reused for yours); register yours "
            "under another name"
        )

    def seal(self) -> None:
        """Mark every entry registered so far as built in (the module that registers gamemarket's own calls it
        after them): :meth:`register` and :meth:`remove` then refuse its name."""
        self._builtin.update(self._items)

    def is_builtin(self, name: str) -> bool:
        """Whether ``name`` is a built-in entry, and is registered as the built-in object (not something put in
        its place behind the registry's back)."""
        return name in self._builtin and self._items.get(name) is self._builtin[name]

    def remove(self, name: str) -> None:
        """Forget ``name`` (a plugin that failed to load takes back what it registered); absent is a no-op; a
        built-in name is an error."""
        if name in self._builtin:
            raise InputError(self.builtin_message(name))
        self._items.pop(name, None)

    def get(self, name: str, default=None) -> T:  # type: ignore[override]
        """The object registered as ``name``; an unknown name is an error listing the known ones."""
        try:
            return self._items[name]
        except (KeyError, TypeError):
            if isinstance(name, str) and self.on_miss is not None and self.on_miss(name) and name in self._items:
                return self._items[name]
            if default is not None:
                return default
            raise InputError(self.unknown_message(name)) from None

    def unknown_message(self, name, also: str = "") -> str:
        """What an unknown ``name`` is told: the known names (and ``also``, what else is accepted), and the hint."""
        return f"unknown {self.what} {shown_name(name)}; expected one of {sorted(self._items)}{also}{self.hint}"

    def __getitem__(self, name: str) -> T:
        try:
            return self._items[name]
        except TypeError:  # a name that is no text (a list from a file: [nan]) was a TypeError, a traceback
            raise InputError(self.unknown_message(name)) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {sorted(self._items)})"
