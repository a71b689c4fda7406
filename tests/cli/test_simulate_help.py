"""``gamemarket simulate --help`` is built from the registries: every scheduler and payment scheme, its
one-line description and the default, with nothing listed by hand."""

import pytest

from gamemarket.cli import main
from gamemarket.market import PAYMENTS, SCHEDULERS, Mechanism
from gamemarket.market.schedulers import PriorityKey, Scheduler


def _help(capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--help"])
    assert exc.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines


def test_the_help_lists_every_registered_entry_with_its_description_and_the_default(capsys):
    text = _help(capsys)
    for registry, default, extra in ((SCHEDULERS, Mechanism.scheduler, []), (PAYMENTS, Mechanism.payment, ["blend"])):
        assert f"the {registry.what} (default {default}):" in text
        assert "{" + ",".join(list(registry) + extra) + "}" in text  # the payment's blend: not a registered scheme
        for name, entry in registry.items():
            assert f"{name}: {' '.join(entry.description.split())}" in text


def test_a_newly_registered_scheduler_shows_in_the_help_and_runs(capsys, monkeypatch):
    entry = Scheduler("lpt", False, PriorityKey("runtime", descending=True), "longest run time first (100% greedy)")
    monkeypatch.setitem(SCHEDULERS._items, "lpt", entry)
    text = _help(capsys)
    assert "lpt: longest run time first (100% greedy)" in text and "fcfs,lpt}" in text
    assert main(["simulate", "--synthetic-jobs", "30", "--scheduler", "lpt", "--format", "json"]) == 0
    assert '"scheduler": "lpt"' in capsys.readouterr().out
