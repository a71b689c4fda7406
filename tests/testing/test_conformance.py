"""The conformance suite on every registered entry, and the suite's own checks: it fails, by name, where it should."""

import subprocess
import sys

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.market import PAYMENTS, SCHEDULERS
from gamemarket.market.base import MARKETS
from gamemarket.market.payments import FIRST_PRICE, KTH_PRICE, KTH_PRICE_RULE, PaymentScheme
from gamemarket.market.schedulers import PriorityKey, Scheduler
from gamemarket.testing import (
    ConformanceError,
    UnknownSemanticsError,
    check_market,
    check_payment,
    check_scheduler,
    random_cases,
    reference_run,
)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_every_registered_scheduler_conforms(name):
    report = check_scheduler(name)
    assert report.passed and {r.check for r in report.results} >= {"semantics", "reference", "ties", "preemption"}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PAYMENTS))
def test_every_registered_payment_scheme_conforms(name):
    report = check_payment(name)
    assert report.passed and {r.check for r in report.results} >= {"semantics", "reference", "one job", "repeatable"}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(MARKETS))
def test_every_registered_market_conforms(kind):
    assert check_market(kind).passed


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_the_reference_knows_every_registered_scheduler(name):
    """The plain reference takes every registered scheduler from its declared semantics, on a case it can run."""
    case = random_cases(1, seed=3)[0]
    assert set(reference_run(case.jobs(), case.nodes, name, "kth", case.reserve)) == set(case.table["id"])


@pytest.fixture
def registered(monkeypatch):
    """Register a scheduler or payment scheme for one test only."""

    def add(entry):
        registry = SCHEDULERS if isinstance(entry, Scheduler) else PAYMENTS
        monkeypatch.setitem(registry._items, entry.name, entry)
        return entry.name

    return add


def test_a_scheduler_without_declared_semantics_is_refused_by_name(registered):
    name = registered(Scheduler("opaque", False, lambda t: np.asarray(t["runtime"], dtype=float), "a plain function"))
    with pytest.raises(UnknownSemanticsError, match="scheduler 'opaque': the plain reference cannot reproduce it"):
        reference_run(random_cases(1)[0].jobs(), 2, name, "kth")
    report = check_scheduler(name, raise_on_failure=False)
    assert not report.passed and [r.check for r in report.failures] == ["semantics"]
    with pytest.raises(ConformanceError, match="scheduler 'opaque' fails 1 conformance check"):
        check_scheduler(name)
    assert isinstance(UnknownSemanticsError("x"), InputError)


@pytest.mark.slow
def test_a_plain_function_key_declared_by_a_priority_key_is_checked_against_it(registered):
    """A fast key function with a declared meaning passes where they agree, and fails, naming a job, where not."""
    good = registered(
        Scheduler(
            "lpt",
            True,
            lambda t: -np.asarray(t["runtime"], dtype=float),
            "longest first",
            PriorityKey("runtime", descending=True),
        )
    )
    assert check_scheduler(good).passed
    bad = registered(
        Scheduler(
            "lpt-bad",
            True,
            lambda t: np.asarray(t["runtime"], dtype=float),
            "x",
            PriorityKey("runtime", descending=True),
        )
    )
    report = check_scheduler(bad, raise_on_failure=False)
    assert "key" in [r.check for r in report.failures]
    assert "job id" in next(r.detail for r in report.failures if r.check == "key")


def test_a_payment_scheme_whose_code_breaks_its_declared_rule_fails_naming_the_case_and_job(registered):
    """First price's engine branch declared as the k-th price rule: the engine and the reference part."""
    name = registered(PaymentScheme("kth-liar", FIRST_PRICE, "pays first price, says k-th", KTH_PRICE_RULE))
    report = check_payment(name, raise_on_failure=False)
    failed = {r.check: r.detail for r in report.failures}
    assert "reference" in failed and "random case" in failed["reference"] and "job id" in failed["reference"]
    assert "engine (start, end, payment, preemptions)" in failed["reference"]
    with pytest.raises(ConformanceError, match="payment scheme 'kth-liar' fails"):
        check_payment(name)


def test_a_payment_scheme_with_an_unknown_rule_is_refused_by_name(registered):
    name = registered(PaymentScheme("mystery", KTH_PRICE, "no rule the reference knows", "english auction"))
    with pytest.raises(UnknownSemanticsError, match="payment scheme 'mystery'.*'english auction' is not one of"):
        reference_run(random_cases(1)[0].jobs(), 2, "hb", name)
    report = check_payment(name, raise_on_failure=False)
    assert [r.check for r in report.failures] == ["semantics"]


@pytest.mark.slow
def test_a_report_prints_one_line_per_check_and_serialises():
    report = check_payment("kth", cases=3, raise_on_failure=False)
    text = str(report)
    assert text.splitlines()[0].startswith("payment scheme 'kth': 6 checks, 6 passed")
    assert len(text.splitlines()) == 1 + len(report.results) and "PASSED   reference" in text
    d = report.to_dict()
    assert d["passed"] is True and [r["check"] for r in d["results"]] == [r.check for r in report.results]


def test_the_same_seed_gives_the_same_cases_and_another_seed_others():
    a, b, c = random_cases(5, seed=1), random_cases(5, seed=1), random_cases(5, seed=2)
    assert all(x.table.equals(y.table) and (x.nodes, x.reserve) == (y.nodes, y.reserve) for x, y in zip(a, b))
    assert not all(x.table.equals(z.table) for x, z in zip(a, c))


@pytest.mark.slow
def test_the_checks_run_without_pytest_or_hypothesis():
    """Plugin authors call them from anywhere: the package needs neither."""
    code = (
        "import sys; sys.modules['pytest'] = None; sys.modules['hypothesis'] = None\n"
        "from gamemarket.testing import check_payment, check_scheduler\n"
        "print(check_scheduler('hb', cases=2).passed and check_payment('first', cases=2).passed)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_a_market_whose_run_leaves_its_declared_figure_ranges_fails_naming_the_field(monkeypatch):
    """The ranges a market declares (``figure_ranges``: what confidence intervals are intersected with) are held to
    its runs: a declared range its revenue leaves fails the run check, naming the field and the range."""
    market = MARKETS.get("scheduling")
    monkeypatch.setattr(market, "figure_ranges", {**market.figure_ranges, "revenue": (float("-inf"), 0.0)})
    report = check_market("scheduling", providers=[{"scheduler": "hb", "payment": "first", "reserve": 1.0}],
                          raise_on_failure=False)  # fmt: skip
    failed = [r for r in report.results if not r.passed]
    assert [r.check for r in failed] == ["run"] and "revenue = " in failed[0].detail
    assert "outside its declared range [-inf, 0.0]" in failed[0].detail
