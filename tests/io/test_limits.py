"""The memory check a computation makes before it allocates (``gamemarket.io.limits``)."""

import os

import pytest

from gamemarket.errors import InputError
from gamemarket.io import limits


def test_under_the_limit_passes_and_over_it_is_refused_with_both_figures():
    limits.check_fits(1000, "a thing", limit=1000)
    with pytest.raises(InputError, match=r"a thing needs about 2 kB of memory; the limit is 1 kB"):
        limits.check_fits(2000, "a thing", limit=1000)


def test_the_environment_sets_the_limit(monkeypatch):
    monkeypatch.setenv(limits.MEMORY_LIMIT_ENV, "5e6")
    assert limits.memory_limit() == 5_000_000
    limits.check_fits(5e6, "a table")
    with pytest.raises(InputError, match=rf"a table needs about 6 MB.*limit is 5 MB \({limits.MEMORY_LIMIT_ENV}\)"):
        limits.check_fits(6e6, "a table")


@pytest.mark.parametrize("value", ["lots", "0", "-5", "inf", "nan"])
def test_a_bad_limit_in_the_environment_is_named(monkeypatch, value):
    monkeypatch.setenv(limits.MEMORY_LIMIT_ENV, value)
    with pytest.raises(InputError, match=rf"environment variable {limits.MEMORY_LIMIT_ENV}='{value}'"):
        limits.memory_limit()


def test_the_default_limit_is_the_least_bound_the_system_states(monkeypatch):
    monkeypatch.delenv(limits.MEMORY_LIMIT_ENV, raising=False)
    phys = limits.physical_memory()
    bounds = limits.memory_bounds()
    assert limits.memory_limit() == (min(bounds)[0] if bounds else None)
    assert phys is None or (phys, "this machine's memory") in bounds
    assert phys is None or phys > 2**20
    if phys is not None:  # an absurd request is refused against the machine's memory
        with pytest.raises(InputError, match="this machine's memory"):
            limits.check_fits(1e30, "a galaxy")


def test_an_address_space_limit_bounds_every_request(tmp_path):
    """Hunt 16c-34: under ``ulimit -v 4000000`` (a login node's), a simulation the machine's 25 GB allowed ran 14 s
    and ended in a MemoryError traceback: the checks knew only the machine's memory."""
    import resource
    import subprocess
    import sys

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 * 1024, resource.RLIM_INFINITY))

    env = {k: v for k, v in os.environ.items() if k != limits.MEMORY_LIMIT_ENV}
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "simulate", "--synthetic-jobs", "60000000"],
        capture_output=True, text=True, timeout=300, preexec_fn=limited, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "this process's address-space limit, ulimit -v" in r.stderr and "Traceback" not in r.stderr


def test_a_memory_error_past_the_checks_is_one_line(monkeypatch, capsys):
    from gamemarket import cli

    def step():
        raise MemoryError

    assert cli._guarded(step) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gamemarket: error: ran out of memory (the size checks allowed")
