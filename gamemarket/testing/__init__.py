"""Conformance checks for what a plugin registers: schedulers, payment schemes, consumer-strategy families,
provider strategies and markets.

In the spirit of scikit-learn's ``check_estimator`` and Axelrod's ``TestPlayer``: one call runs every
check on one registered entry and says what failed, on which case and at which job. Our own suite runs
them on every registered entry (``tests/testing/test_conformance.py``); a plugin author runs them on theirs, with
or without pytest (the cases are seeded numpy draws, so nothing else is needed)::

    from gamemarket.market import register_scheduler
    from gamemarket.market.schedulers import PriorityKey
    from gamemarket.testing import check_scheduler

    register_scheduler("lpt", False, PriorityKey("runtime", descending=True), "longest run time first")

    def test_lpt_conforms():
        check_scheduler("lpt")  # raises ConformanceError (an AssertionError) naming the failed checks

    report = check_scheduler("lpt", raise_on_failure=False)  # or look at the report
    print(report)  # one line per check: passed, failed or skipped, with its case and first differing job

What is checked follows what the entry declares (``gamemarket.testing.reference``): a scheduler's
``PriorityKey`` and whether it preempts, a payment scheme's ``rule``. An entry that declares nothing
the plain reference knows fails its ``semantics`` check, by name. ``check_market`` runs a registered
market's own example workload and providers through the market protocol, and ``check_runners`` its ``runner``
and ``payoff_runner`` against its ``run``. ``check_family`` runs the
consumer-strategy interface's checks on a family's points (and any strategies given), and ``check_provider``
a plugin's provider strategy against the reference at its reserve.
"""

from gamemarket.testing.cases import Case, one_job_cases, preemption_candidates, random_cases, tie_cases
from gamemarket.testing.checks import check_payment, check_provider, check_scheduler, compare_with_reference
from gamemarket.testing.family_checks import (
    check_bids,
    check_box,
    check_family,
    check_independent,
    check_round_trip,
    family_defaults,
    family_draws,
    family_points,
)
from gamemarket.testing.hook_checks import check_event_scheduler
from gamemarket.testing.market_checks import check_market
from gamemarket.testing.reference import UnknownSemanticsError, key_fn, reference_run
from gamemarket.testing.report import CheckResult, ConformanceError, ConformanceReport
from gamemarket.testing.runner_checks import check_runners

__all__ = [
    "Case",
    "CheckResult",
    "ConformanceError",
    "ConformanceReport",
    "UnknownSemanticsError",
    "check_bids",
    "check_box",
    "check_event_scheduler",
    "check_family",
    "check_independent",
    "check_market",
    "check_payment",
    "check_provider",
    "check_round_trip",
    "check_runners",
    "check_scheduler",
    "compare_with_reference",
    "family_defaults",
    "family_draws",
    "family_points",
    "key_fn",
    "one_job_cases",
    "preemption_candidates",
    "random_cases",
    "reference_run",
    "tie_cases",
]
