"""Each plugin test starts from the package's own registries and leaves them so: what a test's plugin registers,
and the list of loaded plugins handed to workers, are undone after it."""

import pytest

from gamemarket import plugins


@pytest.fixture(autouse=True)
def clean_registries(monkeypatch):
    for reg in plugins.REGISTRIES.values():
        monkeypatch.setattr(reg, "_items", dict(reg._items))
    monkeypatch.setattr(plugins, "_LOADED", {})
    monkeypatch.setenv(plugins.ENV, "[]")
