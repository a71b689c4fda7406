"""Hostile plugins (issue #29's review): a plugin never takes a built-in entry's place (whose stored results are
keyed by its name), whatever way it tries; what it does wrong is an error naming the plugin file and the entry,
exit 2, and leaves every registry as it was."""

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gamemarket import plugins
from gamemarket.cli import main
from gamemarket.consumers import FAMILIES
from gamemarket.errors import InputError
from gamemarket.market import PAYMENTS, SCHEDULERS
from gamemarket.market.pricing_market import HETERO_MECHANISMS
from gamemarket.plugins import load_plugin
from gamemarket.pricing.utilities import UTILITIES
from gamemarket.registry import Registry
from gamemarket.studies import load_study
from gamemarket.studies.runner import load_workload, plan
from study_helpers import write_study

ROOT = Path(__file__).resolve().parents[2]

HEAD = """
import dataclasses
from gamemarket.market import PAYMENTS, SCHEDULERS, register_scheduler
from gamemarket.market.payments import payment_rule, register_payment_rule
from gamemarket.market.schedulers import PriorityKey
from gamemarket.consumers import FAMILIES
register_scheduler("own-spt", False, PriorityKey("runtime"), "shortest run time first")  # one entry of its own
"""

RATE = "def rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):\n    return reserve\n"


def _snapshot() -> dict:
    return {id(reg): dict(reg._items) for reg in Registry.instances}


def _same_as(before: dict) -> bool:
    """Every registry holds the same objects under the same names as in ``before``."""
    return all(
        reg._items.keys() == before[id(reg)].keys() and all(reg._items[n] is v for n, v in before[id(reg)].items())
        for reg in Registry.instances
        if id(reg) in before
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            'register_scheduler("hb", True, PriorityKey("submit"), "fake", replace=True)',
            "scheduler 'hb' is already registered, built in: it is never replaced",
        ),
        (
            f'{RATE}register_payment_rule("kth", rate, "fake", replace=True)',
            "payment scheme 'kth' is already registered, built in",
        ),
        (
            f'{RATE}payment_rule("first", "fake", replace=True)(rate)',
            "payment scheme 'first' is already registered, built in",
        ),
        (
            'FAMILIES.register("beta-mix", FAMILIES["per-class"], replace=True)',
            "consumer-strategy family 'beta-mix' is already registered, built in",
        ),
        (
            "from gamemarket.market.pricing_market import register_mechanism, HETERO_MECHANISMS\n"
            'register_mechanism("posted", HETERO_MECHANISMS["clearing"].rule, "fake", replace=True)',
            "pricing mechanism 'posted' is already registered, built in",
        ),
        (
            "from gamemarket.pricing.utilities import register_utility, UTILITIES\n"
            'register_utility("linear", UTILITIES["log"], replace=True)',
            "utility 'linear' is already registered, built in",
        ),
        (  # behind the registry's back: seen by comparing the registries before and after
            'SCHEDULERS._items["hb"] = dataclasses.replace(SCHEDULERS["hb"], key=PriorityKey("submit"))',
            "replaces the built-in scheduler 'hb'; a plugin may only add entries",
        ),
        ('PAYMENTS._items.pop("kth")', "removes the built-in payment scheme 'kth'"),
        ('SCHEDULERS.remove("fcfs")', "scheduler 'fcfs' is already registered, built in"),
        (
            'from gamemarket.plugins import register_provider\nregister_provider("hb-kth", "fcfs", "first")',
            "provider strategy 'hb-kth': is a built-in provider strategy",
        ),
        (  # a registry whose results do not carry a plugin's hash: not a plugin's to add to
            "from gamemarket.market.pricing_market import register_mechanism, HETERO_MECHANISMS\n"
            'register_mechanism("my-posted", HETERO_MECHANISMS["posted"].rule, "mine")',
            "registers the pricing mechanism 'my-posted'; a plugin may register schedulers",
        ),
    ],
    ids=[
        "scheduler replace",
        "payment replace",
        "decorator replace",
        "family replace",
        "pricing mechanism replace",
        "utility replace",
        "dict poke",
        "dict pop",
        "remove",
        "built-in provider name",
        "unsupported registry",
    ],
)
def test_a_plugin_never_replaces_a_built_in_entry(tmp_path, body, message):
    before = _snapshot()
    p = tmp_path / "hostile.py"
    p.write_text(HEAD + body + "\n")
    with pytest.raises(InputError, match=rf"^plugin {p.resolve()}: .*{message}"):
        load_plugin(p)
    assert _same_as(before)  # the built-in back in place, the plugin's own entry taken back
    assert "own-spt" not in SCHEDULERS


def test_a_plugin_never_replaces_another_plugins_entry(tmp_path):
    first = load_plugin(_write(tmp_path, "first.py", HEAD))
    before = _snapshot()
    body = 'register_scheduler("own-spt", True, PriorityKey("submit"), "fake", replace=True)\n'
    body += 'register_scheduler("second-spt", False, PriorityKey("runtime"), "x")\n'
    second = _write(tmp_path, "second.py", HEAD.split("register_scheduler(")[0] + body)
    with pytest.raises(InputError, match=rf"plugin {second.resolve()}: replaces the scheduler 'own-spt' of plugin "):
        load_plugin(second)
    assert _same_as(before) and SCHEDULERS["own-spt"].source == first.source


def _write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(text)
    return p


STUDY = """
name = "poison"
[plugins]
modules = [{modules}]
[workload]
source = "synthetic"
nodes = 4
[workload.synthetic]
jobs = 40
load = 1.2
seed = 3
[strategies]
providers = ["hb-kth"]
consumers = ["FT"]
[replications]
count = 1
"""


def _keys(path: Path) -> list[str]:
    spec = load_study(path)
    prep = load_workload(spec)
    return [t.key for t in plan(spec, prep.arrays, prep.nodes)]


def test_a_study_with_a_plugin_replacing_hb_is_refused_rather_than_reusing_hbs_results(tmp_path):
    """The reported attack: the plugin's "hb" ran under the built-in's key, so it was served (and stored) the
    built-in's results."""
    clean = write_study(tmp_path / "clean", STUDY.format(modules=""))
    keys = _keys(clean)
    hostile = HEAD + 'register_scheduler("hb", True, PriorityKey("submit"), "fake", replace=True)\n'
    poisoned = write_study(tmp_path / "poisoned", STUDY.format(modules='"hostile.py"'))
    _write(poisoned.parent, "hostile.py", hostile)
    with pytest.raises(InputError, match=r"plugin .*hostile\.py: .*scheduler 'hb' is already registered, built in"):
        _keys(poisoned)
    assert SCHEDULERS.is_builtin("hb") and _keys(clean) == keys


def test_a_built_in_entry_replaced_after_loading_cannot_be_keyed(tmp_path, monkeypatch):
    """Behind the registry's back, after every plugin loaded (a rate function's code, say): the key refuses it."""
    path = write_study(tmp_path, STUDY.format(modules=""))
    fake = SCHEDULERS["hb"].__class__(**{**SCHEDULERS["hb"].__dict__, "description": "fake"})
    monkeypatch.setitem(SCHEDULERS._items, "hb", fake)
    with pytest.raises(InputError, match="scheduler 'hb': is not the built-in one"):
        _keys(path)


def test_the_cli_refuses_it_exit_2_naming_the_file_and_the_entry(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "hostile.py", HEAD + 'SCHEDULERS._items["fcfs"] = SCHEDULERS["hb"]\n')
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", "hostile.py", "--scheduler", "fcfs"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err
    assert f"plugin {(tmp_path / 'hostile.py').resolve()}: replaces the built-in scheduler 'fcfs'" in err
    assert SCHEDULERS.is_builtin("fcfs")


@pytest.mark.slow
def test_built_in_entries_a_plugin_makes_gamemarket_import_are_not_the_plugins(tmp_path):
    """A fresh process, where the pricing market, the utilities and the claims are not imported yet: the plugin's
    import of them registers gamemarket's own entries while it loads, which are neither its entries nor refused."""
    p = _write(
        tmp_path,
        "imports.py",
        "import gamemarket.analysis.claims, gamemarket.market.pricing_market, gamemarket.pricing.utilities\n" + HEAD,
    )
    code = "import sys; from gamemarket.plugins import load_plugin; print(load_plugin(sys.argv[1]).entries)"
    env = {**os.environ, "PYTHONPATH": str(ROOT), plugins.ENV: "[]"}
    done = subprocess.run([sys.executable, "-c", code, str(p)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(('scheduler', 'own-spt'),)"


def test_every_registry_that_keys_results_by_name_is_sealed():
    """The registries whose entries' results are keyed by name hold built-in entries that are sealed."""
    for reg in (SCHEDULERS, PAYMENTS, FAMILIES, HETERO_MECHANISMS, UTILITIES):
        assert reg._builtin and all(reg.is_builtin(n) for n in reg._builtin), reg.what
    assert json.loads(os.environ[plugins.ENV]) == []


# --- GAMEMARKET_PLUGINS: how a process hands its plugins to its workers, not a way to load plugins


@pytest.mark.parametrize(
    "value",
    ["notjson", '{"a": 1}', "[1, 2]", '[["x"]]', "[[1, 2]]", '[["/a.py", "not-a-hash"]]', '[["", "0123456789abcdef"]]'],
)
def test_a_malformed_plugin_list_in_the_environment_is_ignored_with_a_warning_naming_it(value, capsys, monkeypatch):
    # the command ignores an inherited list (it loads none of it): a malformed one alike, not exit 2 for every command
    monkeypatch.setenv(plugins.ENV, value)
    rc = main(["simulate", "--synthetic-jobs", "20", "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 0 and json.loads(out)["jobs"] == 20 and "Traceback" not in err
    assert err.startswith(f"gamemarket: warning: environment variable {plugins.ENV}={value!r}: expected a JSON list")
    assert err.rstrip().endswith("it is ignored (unset it)") and err.count("\n") == 1


def test_a_malformed_list_is_an_error_in_a_worker_too(monkeypatch):
    monkeypatch.setenv(plugins.ENV, "[[1, 2]]")
    with pytest.raises(InputError, match=rf"environment variable {plugins.ENV}='\[\[1, 2\]\]': expected"):
        SCHEDULERS.get("no-such-scheduler")  # a registry's miss reads the list (``load_listed``)


def test_an_inherited_plugin_list_runs_no_code_in_a_command(tmp_path, capsys, monkeypatch):
    """The user's environment lists a plugin (an export left over, a shell hook): the command does not run it, and
    says so; before, the first name a registry missed loaded it."""
    marker = tmp_path / "ran"
    p = _write(tmp_path, "inherited.py", f"open({str(marker)!r}, 'w').close()\n" + HEAD)
    listed = [[str(p.resolve()), plugins.text_hash(p.read_bytes())]]
    monkeypatch.setenv(plugins.ENV, json.dumps(listed))
    rc = main(["simulate", "--synthetic-jobs", "20", "--scheduler", "own-spt", "--format", "json"])
    out, err = capsys.readouterr()
    assert not marker.exists() and "own-spt" not in SCHEDULERS
    assert rc == 2 and out == "" and "Traceback" not in err
    assert f"gamemarket: warning: the environment variable {plugins.ENV} lists plugins this command did not load" in err
    assert f"{listed[0][0]}@{listed[0][1]}" in err and "gamemarket: error: unknown scheduler 'own-spt'" in err
    assert json.loads(os.environ[plugins.ENV]) == []  # nor do its worker processes get it


def test_a_plugin_the_command_loads_is_listed_for_its_workers_without_a_warning(tmp_path, capsys, monkeypatch):
    p = _write(tmp_path, "mine.py", HEAD)
    rc = main(["simulate", "--synthetic-jobs", "20", "--scheduler", "own-spt", "--plugin", str(p)])
    out, err = capsys.readouterr()
    assert rc == 0 and "warning" not in err, err
    assert [str(p.resolve()), plugins.text_hash(p.read_bytes())] in json.loads(os.environ[plugins.ENV])


# --- plugin check: a rate function returning what is not a price fails its checks, by name, never a traceback

RETURNS = """
from gamemarket.market.payments import payment_rule
@payment_rule("odd-rate", "returns an odd value", jit={jit})
def odd_rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return {value}
"""


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"abc"', r"returned 'abc' \(str\); expected a number"),
        ('"1.5"', r"returned '1.5' \(str\); expected a number"),  # float() made a price of it
        ("None", r"returned None \(NoneType\); expected a number"),
        ("(1.0, 2.0)", r"returned \(1.0, 2.0\) \(tuple\); expected a number"),
        ("__import__('numpy').array([1.0])", r"returned array\(\[1.\]\) \(ndarray\); expected a number"),
        ("True", r"returned True \(bool\); expected a number"),
        ("1 / 0", "raised ZeroDivisionError: division by zero"),
        ("float('inf')", "inf"),
        ("float('nan')", "nan"),
    ],
)
def test_plugin_check_reports_a_rate_function_returning_no_price_as_failed_checks(tmp_path, capsys, value, message):
    p = _write(tmp_path, "odd.py", RETURNS.format(value=value, jit=False))
    rc = main(["plugin", "check", str(p), "--cases", "3", "--format", "json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and rc == 1, err
    report = json.loads(out)["reports"][0]
    failed = [r for r in report["results"] if r["status"] == "failed"]
    assert report["name"] == "odd-rate" and failed
    for r in failed:  # each names the scheme, its plugin, the function and the value
        assert f"payment scheme 'odd-rate' (plugin {p.resolve()}@" in r["detail"], r
        assert "rate function 'odd_rate'" in r["detail"]
        assert re.search(message, r["detail"]), r


def test_the_plain_reference_refuses_what_is_not_a_price(tmp_path):
    from gamemarket.testing.reference import RateFunctionError, payment_rule

    load_plugin(_write(tmp_path, "odd.py", RETURNS.format(value='"1.5"', jit=False)))
    with pytest.raises(RateFunctionError, match=r"payment scheme 'odd-rate' \(plugin .*rate function 'odd_rate' "):
        payment_rule("odd-rate")(10.0, 1.0, 2, 2, [], [10.0])


def test_a_simulation_refuses_a_text_price_rather_than_paying_it(tmp_path, capsys):
    """The engine's plain-Python path took float("1.5") as a price, and named float()'s error as the function's."""
    p = _write(tmp_path, "odd.py", RETURNS.format(value='"1.5"', jit=False))
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", str(p), "--payment", "odd-rate"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err
    assert "rate function 'odd_rate' returned '1.5' (str); expected a number" in err


def test_plugin_check_reports_an_entry_whose_code_stops_the_checks(tmp_path, capsys, monkeypatch):
    """Whatever a check does not catch (here: the checks themselves raise) fails that entry, by name."""
    from gamemarket import testing

    p = _write(tmp_path, "spt.py", HEAD)

    def broken(name, **kw):
        raise ValueError(f"boom\nin {name}")

    monkeypatch.setattr(testing, "check_scheduler", broken)
    rc = main(["plugin", "check", str(p), "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 1 and "Traceback" not in err
    (result,) = json.loads(out)["reports"][0]["results"]
    assert result["status"] == "failed" and result["check"] == "checks"
    assert result["detail"] == f"plugin {p.resolve()}@{plugins.text_hash(p.read_bytes())}: the checks stopped: " + (
        "ValueError: boom in own-spt"
    )


# --- stdout holds the command's output only: a plugin's prints go to stderr, in plugin check and in workers

PRINTS = """
import os
print("PLUGIN-PRINTS-AT-IMPORT", os.getpid())
from gamemarket.market.payments import payment_rule
@payment_rule("printing-first", "first price, printing", jit=False)
def printing_first(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    print("PLUGIN-PRINTS-AT-RUN")
    return reserve if free > 0 else max(reserve, bid)
"""


def test_plugin_check_keeps_the_plugins_prints_off_stdout(tmp_path, capsys):
    p = _write(tmp_path, "printing.py", PRINTS)
    rc = main(["plugin", "check", str(p), "--cases", "2", "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["reports"][0]["name"] == "printing-first"  # before, the plugin's lines came first
    assert "PLUGIN-PRINTS-AT-IMPORT" in err and "PLUGIN-PRINTS-AT-RUN" in err and "PLUGIN-PRINTS" not in out


@pytest.mark.slow
def test_worker_processes_keep_the_plugins_prints_off_stdout(tmp_path):
    """A loky worker's stdout is the command's: the plugin it loads (at a registry's miss) and its rate function
    printed there."""
    study = write_study(tmp_path, STUDY.format(modules='"printing.py"').replace('["hb-kth"]', '["hb-printing"]'))
    text = study.read_text() + '[strategies.provider.hb-printing]\nscheduler = "hb"\npayment = "printing-first"\n'
    study.write_text(text.replace("count = 1", "count = 4"))
    _write(study.parent, "printing.py", PRINTS)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(plugins.ENV, None)
    cmd = [sys.executable, "-m", "gamemarket", "study", "run", str(study), "--n-jobs", "2", "--no-report"]
    done = subprocess.run(cmd + ["--no-progress"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "PLUGIN-PRINTS" not in done.stdout, done.stdout[:500]
    pids = {line.split()[1] for line in done.stderr.splitlines() if line.startswith("PLUGIN-PRINTS-AT-IMPORT")}
    assert len(pids) >= 2  # the command's process and a worker loaded it, and both printed to stderr


# --- the loader's other hostile inputs: each an error naming the plugin and what was expected, exit 2


def _check_error(capsys, spec: str) -> str:
    """``plugin check SPEC``'s one error line (exit 2, nothing on stdout, no traceback)."""
    rc = main(["plugin", "check", spec])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err, (rc, out, err)
    (line,) = err.splitlines()
    return line


@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_plugin_path_is_named_empty_not_dot(capsys, spec):
    # before: "plugin .: cannot read it (Is a directory)" (Path("") is the working directory); on the command line
    # every empty value is refused as one, before the command runs
    assert _check_error(capsys, spec) == f"gamemarket: error: argument file: expected a value, got {spec!r}"
    with pytest.raises(InputError) as err:  # a study file's [plugins] modules reach the loader itself
        load_plugin(spec)
    assert str(err.value) == f"plugin {spec!r}: the path is empty; expected a .py file or an installed " + (
        "entry point's name"
    )


def test_a_nul_character_in_a_plugin_path_is_an_error():
    with pytest.raises(InputError, match="the path holds a NUL character"):
        load_plugin("mine\0.py")  # a study file's [plugins] modules can hold one; argv cannot


def test_a_directory_is_not_a_plugin(tmp_path, capsys):
    (tmp_path / "mine.py").mkdir()
    assert _check_error(capsys, str(tmp_path / "mine.py")).endswith("mine.py: is a directory; expected a .py file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_or_a_device_is_refused_before_it_is_read(tmp_path, capsys):
    """A pipe blocked the read until something wrote to it (here a thread writes a plugin, so a loader that reads
    pipes fails this test rather than hanging it); a device such as /dev/zero would have filled the memory."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)

    def write():
        try:
            fifo.write_text(HEAD)
        except BrokenPipeError:  # the reader below opens and closes at once: nothing reads what was written
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        for spec, kind in ((str(fifo), "a pipe"), ("/dev/null", "a device")):
            line = _check_error(capsys, spec)
            assert line == f"gamemarket: error: plugin {spec}: is {kind}, not a regular file; expected a .py file"
    finally:  # the writer waits for a reader: one that opens and closes lets it finish
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(10)


def test_a_huge_plugin_file_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(plugins.loading, "MAX_PLUGIN_BYTES", 1000)
    p = _write(tmp_path, "huge.py", HEAD + "#" * 1000 + "\n")
    size = p.stat().st_size
    line = _check_error(capsys, str(p))
    assert f"huge.py: {size:,} bytes; expected a Python module of at most 1,000 bytes" in line


def test_a_symlink_loop_and_non_utf8_text_are_errors_naming_the_file(tmp_path, capsys):
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    assert "a.py: is a symbolic link in a loop (it leads back to itself)" in _check_error(
        capsys, str(tmp_path / "a.py")
    )
    (tmp_path / "latin.py").write_bytes(b'x = "\xff\xfe"\n' + HEAD.encode())
    assert "latin.py: does not import: SyntaxError: (unicode error) 'utf-8' codec can't decode byte 0xff" in (
        _check_error(capsys, str(tmp_path / "latin.py"))
    )


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        (
            "class Boom(BaseException):\n    pass\nraise Boom('mine')\n",
            r"does not import: Boom: mine \(a BaseException\)",
        ),
        (
            "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no text')\nraise Odd()\n",
            r"does not import: Odd: \(its message cannot be shown: str\(\) of it raised\)",
        ),
        ("raise RuntimeError('after registering')\n", "does not import: RuntimeError: after registering"),
    ],
    ids=["own BaseException", "unprintable exception", "registers then raises"],
)
def test_a_plugin_that_registers_then_raises_anything_leaves_nothing_registered(tmp_path, tail, message):
    before = _snapshot()
    p = _write(tmp_path, "raises.py", HEAD + tail)
    with pytest.raises(InputError, match=rf"^plugin {p.resolve()}: {message}$"):  # before: a traceback, exit 1
        load_plugin(p)
    assert _same_as(before) and "own-spt" not in SCHEDULERS


def test_ctrl_c_while_a_plugin_loads_exits_130_without_a_traceback(tmp_path, capsys, ctrl_c):
    before = _snapshot()
    p = _write(tmp_path, "slow.py", HEAD + "import signal\nsignal.raise_signal(signal.SIGINT)\n")
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", str(p)])
    out, err = capsys.readouterr()
    assert rc == 130 and out == "" and err.startswith("gamemarket: interrupted") and "Traceback" not in err
    assert _same_as(before)


def test_a_plugin_that_raises_keyboardinterrupt_is_no_ctrl_c(tmp_path, capsys, ctrl_c):
    """Hunt 16e-31: plugin code that raises KeyboardInterrupt (no Ctrl-C pressed) ended with exit 130,
    "interrupted", as if the user had stopped the command; it is an error of the plugin's code, exit 2."""
    before = _snapshot()
    p = _write(tmp_path, "raises.py", HEAD + "raise KeyboardInterrupt\n")
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", str(p)])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("gamemarket: error: a KeyboardInterrupt was raised with no Ctrl-C here: by code the ")
    assert err.endswith("(no file was half-written)\n") and _same_as(before)


def test_a_study_plugin_that_changes_the_working_directory_is_refused(tmp_path, monkeypatch):
    """The CLI refused it for --plugin only; a study's [plugins] modules load elsewhere: the loader refuses it."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    p = _write(tmp_path, "moves.py", HEAD + f"import os\nos.chdir({str(tmp_path)!r})\n")
    with pytest.raises(InputError, match=rf"plugin {p.resolve()}: changed the working directory \(from {work} to "):
        load_plugin(p)
    assert os.getcwd() == str(work) and "own-spt" not in SCHEDULERS


def test_two_plugins_of_one_file_name_in_two_folders_never_collide(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    a = load_plugin(_write(tmp_path / "one", "mech.py", HEAD))
    b = load_plugin(_write(tmp_path / "two", "mech.py", HEAD.replace("own-spt", "own-spt-2")))
    assert a.digest != b.digest and SCHEDULERS["own-spt"].source == a.source
    assert SCHEDULERS["own-spt-2"].source == b.source


# --- a plugin scheduler's key function: what it raises or returns is named, never numpy's traceback

KEY = """
import numpy as np
from gamemarket.market import register_scheduler
def key(table):
    {body}
register_scheduler("odd-key", False, key, "an odd key function")
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("raise ValueError('no key')", "its key function raised ValueError: no key"),
        ("return 'abc'", r"its key function returned 'abc' \(str\); expected one number per job \(20\)"),
        ("return None", r"its key function returned None \(NoneType\); expected one number per job \(20\)"),
        ("return [1.0]", r"its key function returned \[1.0\] \(shape \(1,\)\); expected one number per job \(20\)"),
        (
            "return np.full(len(table['submit']), np.nan)",
            r"the priority key of job \d+ is nan; expected a finite number",
        ),
    ],
)
def test_a_key_function_that_raises_or_returns_no_keys_is_exit_2_naming_it(tmp_path, capsys, body, message):
    p = _write(tmp_path, "key.py", KEY.format(body=body))
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", str(p), "--scheduler", "odd-key"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and "Traceback" not in err, err
    assert re.match(rf"gamemarket: error: scheduler 'odd-key' \(plugin {p.resolve()}@[0-9a-f]{{16}}\): {message}$", err)


def test_a_plugins_prints_as_it_runs_in_the_commands_process_stay_off_stdout(tmp_path, capsys):
    """simulate (no workers): the rate function and the key function print as the run goes."""
    body = 'print("PLUGIN-PRINTS-IN-KEY")\n    return np.asarray(table["runtime"], dtype=float)'
    key = _write(tmp_path, "key.py", KEY.format(body=body))
    rate = _write(tmp_path, "printing.py", PRINTS)
    args = ["simulate", "--synthetic-jobs", "20", "--plugin", str(key), "--plugin", str(rate), "--format", "json"]
    rc = main(args + ["--scheduler", "odd-key", "--payment", "printing-first"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["jobs"] == 20 and "PLUGIN-PRINTS" not in out
    assert "PLUGIN-PRINTS-IN-KEY" in err and "PLUGIN-PRINTS-AT-RUN" in err


def test_foreign_prints_nested_by_threads_gives_stdout_back_once_all_have_left():
    from gamemarket.errors import foreign_prints

    real = sys.stdout
    entered, leave_first = threading.Event(), threading.Event()

    def first():
        with foreign_prints():
            entered.set()
            leave_first.wait(10)

    t = threading.Thread(target=first)
    t.start()
    entered.wait(10)
    with foreign_prints():  # entered second, ...
        leave_first.set()
        t.join(10)  # ... the first left: stdout still the plugin's stderr while this one runs
        assert sys.stdout is sys.stderr
    assert sys.stdout is real


NESTED = """
import os
from gamemarket.plugins import load_plugin
load_plugin(os.path.join(os.path.dirname(__file__), "inner.py"))
"""


def test_a_plugin_that_loads_another_does_not_claim_its_entries(tmp_path):
    """Before, the outer plugin's load counted the inner one's entries as its own and marked them with its hash: an
    edit of inner.py left their stored runs' keys as they were."""
    inner = _write(tmp_path, "inner.py", HEAD.replace("own-spt", "inner-spt"))
    outer = load_plugin(_write(tmp_path, "outer.py", NESTED + HEAD))
    assert outer.entries == (("scheduler", "own-spt"),)
    assert SCHEDULERS["inner-spt"].source == f"{inner.resolve()}@{plugins.text_hash(inner.read_bytes())}"


def test_a_plugin_that_fails_after_loading_another_leaves_neither(tmp_path):
    _write(tmp_path, "inner.py", HEAD.replace("own-spt", "inner-spt"))
    outer = _write(tmp_path, "outer.py", NESTED + "raise RuntimeError('outer breaks')\n")
    before = _snapshot()
    with pytest.raises(InputError, match="outer.py: does not import: RuntimeError: outer breaks"):
        load_plugin(outer)
    assert _same_as(before) and plugins.loaded() == [] and json.loads(os.environ[plugins.ENV]) == []
    assert load_plugin(tmp_path / "inner.py").entries == (("scheduler", "inner-spt"),)  # it loads again, whole


def test_what_a_refused_plugin_took_is_put_back_in_its_place(tmp_path):
    """The order of a registry is the order of --scheduler's choices and of the claims a report measures."""
    order = list(SCHEDULERS)
    p = _write(
        tmp_path, "pops.py", HEAD + 'SCHEDULERS._items.pop("hb")\nSCHEDULERS._items["hb"] = SCHEDULERS["fcfs"]\n'
    )
    with pytest.raises(InputError, match="replaces the built-in scheduler 'hb'"):
        load_plugin(p)
    assert list(SCHEDULERS) == order and SCHEDULERS.is_builtin("hb")


def test_the_text_a_plugin_is_hashed_by_is_the_text_that_runs(tmp_path, monkeypatch):
    """The loader hashed the bytes it read, then imported the file, which read it again: a file rewritten in
    between ran other code under the first text's hash (and its runs' keys)."""
    p = _write(tmp_path, "racy.py", HEAD)
    real = importlib.util.spec_from_file_location

    def rewritten_meanwhile(name, location=None, **kw):
        if name.startswith("gamemarket_plugin_") and name != "gamemarket_plugin_":  # between the read and the run
            p.write_text(HEAD.replace("own-spt", "other-spt"))
        return real(name, location, **kw)

    monkeypatch.setattr(plugins.loading.importlib.util, "spec_from_file_location", rewritten_meanwhile)
    plugin = load_plugin(p)
    assert plugin.entries == (("scheduler", "own-spt"),) and "other-spt" not in SCHEDULERS
    assert plugin.digest == plugins.text_hash(HEAD.encode())


def test_a_file_without_the_py_suffix_is_still_refused(tmp_path):
    p = _write(tmp_path, "mine.txt", HEAD)
    with pytest.raises(InputError, match=r"mine.txt: not a Python file importlib can load \(expected a .py file\)"):
        load_plugin(p)
