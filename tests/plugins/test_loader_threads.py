"""A plugin module that one thread is loading, seen from another thread: a name its code has not defined yet is
waited for, never missing (a dask worker unpickles a task's plugin objects on one thread while another loads the
plugins at a registry's miss; the module is in ``sys.modules`` from the start of its code)."""

import pickle
import sys
import threading
import types

import pytest

from gamemarket import plugins
from gamemarket.plugins import load_plugin

#: a plugin whose code stops half-way, until the test lets it go on: ``Late`` is defined after the gate
GATED = """
import _gamemarket_test_gate as gate
from gamemarket.plugins import register_provider

gate.started.set()
assert gate.go.wait(30), "the test never let the plugin go on"


class Late:
    pass


register_provider({name!r}, "hb", "kth")
{tail}
"""


@pytest.fixture
def gate(monkeypatch):
    g = types.ModuleType("_gamemarket_test_gate")
    g.started, g.go = threading.Event(), threading.Event()
    monkeypatch.setitem(sys.modules, g.__name__, g)
    yield g
    g.go.set()  # a failed test never leaves the loading thread waiting


def _load_in_a_thread(path):
    out = {}

    def load():
        try:
            out["plugin"] = load_plugin(path)
        except Exception as exc:  # noqa: BLE001 (the test reads it)
            out["error"] = exc

    t = threading.Thread(target=load, daemon=True)
    t.start()
    return t, out


def _ask_in_a_thread(fetch):
    """Run ``fetch()`` on another thread, which signals just before it asks."""
    out, asked = {}, threading.Event()

    def get():
        asked.set()
        try:
            out["value"] = fetch()
        except Exception as exc:  # noqa: BLE001 (the test reads it)
            out["error"] = exc

    t = threading.Thread(target=get, daemon=True)
    t.start()
    assert asked.wait(10)
    return t, out


@pytest.mark.slow
@pytest.mark.parametrize("fails", [False, True])
@pytest.mark.parametrize("how", ["unpickle", "getattr"])
def test_another_thread_waits_for_a_half_loaded_plugin_module(tmp_path, gate, fails, how):
    path = tmp_path / "gated.py"
    path.write_text(GATED.format(name=f"gated-{fails}", tail='raise RuntimeError("broken")' if fails else ""))
    modname = f"gamemarket_plugin_{plugins.text_hash(path.read_bytes())}"
    loader, loaded = _load_in_a_thread(path)
    assert gate.started.wait(10)
    half = sys.modules[modname]  # its code runs as the module's (a dataclass there needs it)
    if how == "unpickle":  # a reference to a plugin's class, as a task's plugin objects are unpickled
        reader, got = _ask_in_a_thread(lambda: pickle.loads(f"c{modname}\nLate\n.".encode()))
    else:
        reader, got = _ask_in_a_thread(lambda: half.Late)
    reader.join(0.3)
    assert reader.is_alive(), f"it did not wait for the plugin's code to finish: {got}"
    gate.go.set()
    loader.join(10)
    reader.join(10)
    assert not loader.is_alive() and not reader.is_alive()
    if fails:
        assert "broken" in str(loaded["error"]) and modname not in sys.modules
        assert isinstance(got["error"], AttributeError) and "value" not in got
        if how == "getattr":  # (the unpickler words its error its own way)
            assert f"plugin module {modname!r} did not load" in str(got["error"])
    else:
        module = sys.modules[modname]
        assert module is half and got == {"value": module.Late}
        assert loaded["plugin"].entries == (("provider", "gated-False"),)
        assert "__getattr__" not in vars(module)  # a loaded module is left as its code made it
