import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# The suite draws the same hypothesis examples on every run: a failure on main is the code's, not the draw's, and CI
# gets the answer its developer got (two CI runs failed on examples no run before had drawn: a stopping rule's test
# read without its constant, a QRE trace near a tie of 4e-5). GAMEMARKET_HYPOTHESIS=explore draws new examples on
# each run, as a search for bugs before a release (docs/how-to/develop.md).
settings.register_profile("suite", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("GAMEMARKET_HYPOTHESIS", "").strip() or "suite")  # (empty: the suite's)

ROOT = Path(__file__).resolve().parents[1]
# A study asked for several workers starts a pool only where its runs outlast the pool's start
# (gamemarket.workers.worth_a_pool); every test study is that small. At 0 the tests that ask for
# workers get them, in process and in the CLI's subprocesses alike, so they test the pool as they say;
# tests/studies/test_pool_choice.py sets it back to test the in-process choice.
os.environ.setdefault("GAMEMARKET_POOL_START_S", "0")
LPC_NAME = "LPC-EGEE-2004-1.2-cln.swf.gz"
SDSC_NAME = "SDSC-Par-1996-3.1-cln.swf.gz"


def trace_path(name: str = LPC_NAME) -> Path | None:
    env = os.environ.get("GAMEMARKET_TRACES")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "workloads"]:
        p = base / name
        if p.exists():
            return p
    return None


def lpc_path() -> Path | None:
    return trace_path(LPC_NAME)


@pytest.fixture(scope="session")
def lpc():
    p = lpc_path()
    if p is None:
        pytest.skip(f"the LPC trace {LPC_NAME} is not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    return p


@pytest.fixture(scope="session")
def sdsc():
    p = trace_path(SDSC_NAME)
    if p is None:
        pytest.skip(f"the SDSC Paragon trace {SDSC_NAME} is not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    return p


#: the signals whose handlers a command, the entry point or a test sets; each test leaves them as it found them
RESTORED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Each test leaves the suite's signal handlers as it found them: a test of the entry point's end
    (``_finished``: SIGTERM and SIGHUP ignored) put back SIGINT only, and every later subprocess of the suite
    inherited SIGTERM ignored (an ignored signal stays ignored across exec), so the SIGTERM tests' commands ran on to
    their end (skipped as "finished": a fast machine) or past their timeout (a loaded one)."""
    import signal

    saved = {name: signal.getsignal(getattr(signal, name)) for name in RESTORED_SIGNALS}
    yield
    for name, handler in saved.items():
        if handler is not None and signal.getsignal(getattr(signal, name)) is not handler:
            signal.signal(getattr(signal, name), handler)


@pytest.fixture(autouse=True)
def _plugin_registries_restored(request, monkeypatch):
    """Each test leaves the plugin registries as it found them; each test under ``tests/plugins/`` also starts from
    the package's own registries: what its plugin registers, and the list of loaded plugins handed to workers, are
    undone after it. (``tests/plugins/conftest.py`` holds those tests' other fixtures; no test imports from a
    conftest, since in a run that collects both the module name ``conftest`` is the last one imported:
    ``tests/test_conftest_imports.py``.)"""
    if "plugins" not in request.node.path.parent.parts[-1:]:
        # any other test that loads a plugin in process (a study with [plugins], a --plugin option) has it undone
        # too: a scheduler an earlier test loaded showed in a later test's --help ("fcfs,bid-per-node-second,lpt")
        from gamemarket import plugins

        for reg in plugins.REGISTRIES.values():
            monkeypatch.setattr(reg, "_items", dict(reg._items))
        monkeypatch.setattr(plugins.loading, "LOADED", dict(plugins.loading.LOADED))
        # and the list of loaded plugins handed to workers as it was (a plugin a test loaded in process, listed
        # there, warned as "inherited" in the next test's command: `plugin check` then any other)
        before = os.environ.get(plugins.ENV)
        yield
        if before is None:
            os.environ.pop(plugins.ENV, None)
        else:
            os.environ[plugins.ENV] = before
        return
    from gamemarket import plugins

    for reg in plugins.REGISTRIES.values():
        monkeypatch.setattr(reg, "_items", dict(reg._items))
    monkeypatch.setattr(plugins.loading, "LOADED", {})
    monkeypatch.setenv(plugins.ENV, "[]")
    yield


@pytest.fixture
def ctrl_c():
    """A Ctrl-C as the user's keyboard sends it: ``ctrl_c()`` delivers SIGINT to this process, Python's own handler
    in place for the test (a suite started in the background by a shell inherits SIGINT ignored). A command tells
    a Ctrl-C (its handler records it) from a KeyboardInterrupt raised by code it ran (a plugin's: exit 2), so a test
    of Ctrl-C sends the signal rather than raising the exception."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield lambda: signal.raise_signal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, before)
