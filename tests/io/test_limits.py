"""The memory check a computation makes before it allocates (``gamemarket.io.limits``)."""

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


def test_the_default_limit_is_the_physical_memory(monkeypatch):
    monkeypatch.delenv(limits.MEMORY_LIMIT_ENV, raising=False)
    phys = limits.physical_memory()
    assert limits.memory_limit() == phys
    assert phys is None or phys > 2**20
    if phys is not None:  # an absurd request is refused against the machine's memory
        with pytest.raises(InputError, match="this machine's memory"):
            limits.check_fits(1e30, "a galaxy")
