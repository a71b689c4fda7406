"""Loading plugins: from a file (named by its text's hash) or an entry point; what a plugin registers carries its
source; a plugin that does not import, registers nothing, takes a name, or has the wrong signature is an error
naming the file and the entry, and leaves nothing registered."""

import json
import os
from pathlib import Path

import pytest

from gamemarket import plugins
from gamemarket.errors import InputError
from gamemarket.market import PAYMENTS, SCHEDULERS
from gamemarket.plugins import load_plugin

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"

SCHEDULER = """
from gamemarket.market import register_scheduler
from gamemarket.market.schedulers import PriorityKey
register_scheduler({name!r}, False, PriorityKey("runtime"), "shortest run time first")
"""


def _write(tmp_path, name, text) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_file_registers_entries_marked_with_its_source(tmp_path):
    plugin = load_plugin(_write(tmp_path, "spt.py", SCHEDULER.format(name="spt")))
    assert plugin.entries == (("scheduler", "spt"),) and len(plugin.digest) == 16
    assert SCHEDULERS.get("spt").source == plugin.source == f"{(tmp_path / 'spt.py').resolve()}@{plugin.digest}"
    assert [plugin.path, plugin.digest] in json.loads(os.environ[plugins.ENV])


def test_the_same_text_twice_registers_once_and_two_files_never_collide(tmp_path):
    a = load_plugin(_write(tmp_path, "a.py", SCHEDULER.format(name="spt-a")))
    assert load_plugin(tmp_path / "a.py") is a  # no "already registered"
    other = tmp_path / "other"
    other.mkdir()
    b = load_plugin(_write(other, "a.py", SCHEDULER.format(name="spt-b")))  # same file name, other text
    assert a.digest != b.digest and {"spt-a", "spt-b"} <= set(SCHEDULERS)


def test_an_edited_file_replaces_what_it_registered(tmp_path):
    p = _write(tmp_path, "spt.py", SCHEDULER.format(name="spt"))
    first = load_plugin(p)
    p.write_text(SCHEDULER.format(name="spt").replace('"runtime"', '"estimate"'))
    second = load_plugin(p)
    assert first.digest != second.digest and SCHEDULERS.get("spt").source == second.source
    assert SCHEDULERS.get("spt").priority.column == "estimate"


def test_relative_paths_are_found_from_the_base(tmp_path):
    _write(tmp_path, "spt.py", SCHEDULER.format(name="spt"))
    assert load_plugin("spt.py", base=tmp_path).entries == (("scheduler", "spt"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("import no_such_module_anywhere\n", "does not import: ModuleNotFoundError: No module named"),
        ("def broken(:\n", "does not import: SyntaxError:"),
        ("raise RuntimeError('my own\\nmessage')\n", "does not import: RuntimeError: my own message"),
        ("import sys\nsys.exit(3)\n", "does not import: it called sys.exit(3)"),
        ("x = 1\n", "registers nothing; expected a scheduler"),
        (SCHEDULER.format(name="hb"), "scheduler 'hb' is already registered"),
        (
            "from gamemarket.market.payments import payment_rule\n"
            "@payment_rule('two', 'x')\ndef two(bid, reserve):\n    return reserve\n",
            "payment scheme 'two': rate function 'two': takes (bid, reserve); expected 7",
        ),
    ],
    ids=["missing import", "syntax", "raises", "exits", "registers nothing", "name taken", "wrong signature"],
)
def test_a_bad_plugin_is_an_error_naming_the_file_and_registers_nothing(tmp_path, text, message):
    before = (set(SCHEDULERS), set(PAYMENTS))
    # a plugin that registers one good entry before its error takes that back too
    good = "" if "registers nothing" in message else SCHEDULER.format(name="good-first")
    p = _write(tmp_path, "bad.py", good + text)
    with pytest.raises(InputError) as err:
        load_plugin(p)
    msg = str(err.value)
    assert msg.startswith(f"plugin {p.resolve()}: ") and message in msg and "\n" not in msg
    assert (set(SCHEDULERS), set(PAYMENTS)) == before and plugins.loaded() == []


def test_a_missing_file_or_unknown_entry_point_is_an_error(tmp_path):
    with pytest.raises(InputError, match="nope.py: cannot read it"):
        load_plugin(tmp_path / "nope.py")
    with pytest.raises(InputError, match="no installed entry point of group 'gamemarket.plugins'"):
        load_plugin("no-such-plugin-name")


def test_an_entry_point_is_loaded_by_name(tmp_path, monkeypatch):
    pkg = tmp_path / "site"
    pkg.mkdir()
    (pkg / "my_mech.py").write_text(SCHEDULER.format(name="spt-ep"))
    dist = pkg / "my_mech-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-mech\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[gamemarket.plugins]\nspt = my_mech\n")
    monkeypatch.syspath_prepend(str(pkg))
    plugin = load_plugin("spt")
    assert plugin.entries == (("scheduler", "spt-ep"),) and SCHEDULERS.get("spt-ep").source == plugin.source


def test_a_worker_loads_its_parents_plugins_on_a_miss_and_refuses_an_edited_one(tmp_path, monkeypatch):
    p = _write(tmp_path, "spt.py", SCHEDULER.format(name="spt-w"))
    plugin = load_plugin(p)
    # a fresh worker: none of it registered, the parent's list in its environment
    SCHEDULERS.remove("spt-w")
    monkeypatch.setattr(plugins.loading, "LOADED", {})
    assert SCHEDULERS.get("spt-w").source == plugin.source
    SCHEDULERS.remove("spt-w")
    monkeypatch.setattr(plugins.loading, "LOADED", {})
    p.write_text(SCHEDULER.format(name="spt-w") + "# edited\n")
    with pytest.raises(InputError, match="changed \\(or removed\\) while the study runs"):
        SCHEDULERS.get("spt-w")


def test_the_examples_load():
    for f in ("lowest_running.py", "bid_per_node_second.py"):
        assert load_plugin(EXAMPLES / f).entries
