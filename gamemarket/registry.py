"""One registry of named things: schedulers, payment schemes, pricing mechanisms, utilities, markets.

A registry maps a name to an object carrying its own metadata (a description, flags), so callers
look things up by name and never branch on one (Axelrod's classifier idea). An unknown name is an
``InputError`` that lists the known ones; registering a name twice is refused unless ``replace``.

A registry may have a ``on_miss`` hook, called with a name it does not hold before that is an error: a
worker process whose parent loaded plugins (``gamemarket.plugins``) loads them there on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

from gamemarket.errors import InputError

T = TypeVar("T")


class Registry(Mapping, Generic[T]):
    """Named objects of one kind (``what`` names the kind in messages: "scheduler", "utility", ...)."""

    def __init__(self, what: str):
        self.what = what
        self._items: dict[str, T] = {}
        #: called with an unknown name; returns whether it may now be registered (a plugin loaded)
        self.on_miss: Callable[[str], bool] | None = None

    def register(self, name: str, item: T, *, replace: bool = False) -> T:
        """Add ``item`` under ``name`` and return it; a name already taken is an error unless ``replace``."""
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"a {self.what} needs a non-empty name, got {name!r}")
        if name in self._items and not replace:
            raise InputError(f"{self.what} {name!r} is already registered; pass replace=True to redefine it")
        self._items[name] = item
        return item

    def remove(self, name: str) -> None:
        """Forget ``name`` (a plugin that failed to load takes back what it registered); absent is a no-op."""
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
            raise InputError(f"unknown {self.what} {name!r}; expected one of {sorted(self._items)}") from None

    def __getitem__(self, name: str) -> T:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {sorted(self._items)})"
