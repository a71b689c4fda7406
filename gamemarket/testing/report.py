"""What a conformance check finds: one result per check, gathered in a report that prints and raises.

A :class:`ConformanceReport` lists every check run on one registered entry (passed, failed or
skipped, with what was run or what differed); ``str(report)`` is the text a command prints, and
``to_dict`` its JSON. :meth:`ConformanceReport.raise_if_failed` raises :class:`ConformanceError`, an
``AssertionError``, so a plugin author's test fails with the report as its message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gamemarket.errors import SEED_MAX, InputError, check_flag, shown_value

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


@dataclass(frozen=True)
class CheckResult:
    """One check on one entry: its name, its status (``passed``, ``failed``, ``skipped``) and a detail
    (what it ran; for a failure, the case and the first differing job)."""

    check: str
    status: str
    detail: str = ""

    @property
    def passed(self) -> bool:
        """Whether the check did not fail (a skipped check does not fail the entry)."""
        return self.status != FAILED


@dataclass
class ConformanceReport:
    """Every check run on one registered entry (``what``: "scheduler", "payment scheme", "market")."""

    what: str
    name: str
    results: list[CheckResult] = field(default_factory=list)

    @property
    def entry(self) -> str:
        """The entry as messages name it: ``scheduler 'hb'``."""
        return f"{self.what} {self.name!r}"

    @property
    def passed(self) -> bool:
        """Whether no check failed."""
        return all(r.passed for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        """The failed checks, in the order they ran."""
        return [r for r in self.results if not r.passed]

    def add(self, check: str, status: str, detail: str = "") -> CheckResult:
        """Record one check's result and return it."""
        result = CheckResult(check, status, detail)
        self.results.append(result)
        return result

    def to_dict(self) -> dict:
        """The report as plain data (a command's ``--format json``)."""
        return {
            "what": self.what,
            "name": self.name,
            "passed": self.passed,
            "results": [{"check": r.check, "status": r.status, "detail": r.detail} for r in self.results],
        }

    @property
    def head(self) -> str:
        """The report's first line: the entry and its counts (``payment scheme 'x': 6 checks, 6 passed``)."""
        counts = {s: sum(r.status == s for r in self.results) for s in (PASSED, FAILED, SKIPPED)}
        return f"{self.entry}: {len(self.results)} checks, " + ", ".join(f"{v} {k}" for k, v in counts.items() if v)

    def __str__(self) -> str:
        head = self.head
        width = max((len(r.check) for r in self.results), default=0)
        lines = [f"  {r.status.upper():<8} {r.check:<{width}}  {r.detail}".rstrip() for r in self.results]
        return "\n".join([head, *lines])

    def raise_if_failed(self) -> ConformanceReport:
        """Raise :class:`ConformanceError` if a check failed; else return the report."""
        if not self.passed:
            raise ConformanceError(self)
        return self


class ConformanceError(AssertionError):
    """A registered entry failed a conformance check; ``report`` holds every check's result, and the
    message names the entry, each failed check, its case and the first differing job."""

    def __init__(self, report: ConformanceReport):
        self.report = report
        failed = "\n".join(f"  {r.check}: {r.detail}" for r in report.failures)
        super().__init__(f"{report.entry} fails {len(report.failures)} conformance check(s):\n{failed}")


#: the largest seed of a conformance check's cases (a signed 64-bit integer, as a study's seeds are)
MAX_SEED = SEED_MAX  # the shared bound (gamemarket.errors)
#: the most cases one check or generator runs (each a small table run twice or more: a billion asked for ran for hours)
MAX_CASES = 100_000
#: what ``check_options`` is given for a check that takes no ``cases``
NO_CASES = object()


def check_case_seed(seed, what: str = "seed") -> int:
    """A conformance check's seed: a whole number from 0 to ``2**63 - 1`` (the CLI's and a study's bound), else an
    :class:`InputError` naming ``what`` and the value (numpy's ``ValueError`` for -1, a label saying ``seed []``)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"{what} must be a whole number from 0 to 2**63 - 1, got {shown_value(seed)}")
    return int(seed)


def check_count(count, what: str = "count") -> int:
    """A number of cases: a whole number from 1 to :data:`MAX_CASES`, else an :class:`InputError` naming ``what`` and
    the value (0 or -3 checked no case and passed; ``10**30`` ran for ever)."""
    if isinstance(count, (bool, np.bool_)) or not isinstance(count, (int, np.integer)) or not 1 <= count <= MAX_CASES:
        raise InputError(f"{what} must be a whole number from 1 to {MAX_CASES:,}, got {shown_value(count)}")
    return int(count)


def check_options(check: str, *, seed=0, raise_on_failure=True, cases=NO_CASES) -> None:
    """A conformance check's own options, checked before it runs: ``seed`` a whole number from 0 to ``2**63 - 1``,
    ``cases`` (where the check takes one) a whole number from 1 to :data:`MAX_CASES`, ``raise_on_failure`` True or
    False; else an :class:`InputError` naming the check and the option. Unchecked, ``seed=-1`` was reported as the
    plugin's failure, and ``cases=0`` passed on no case at all."""
    try:
        check_case_seed(seed)
        if cases is not NO_CASES:
            check_count(cases, "cases")
        check_flag(raise_on_failure, "raise_on_failure")
    except InputError as exc:
        raise InputError(f"{check}: {exc}") from None


def check_names(names, what: str, *, none: bool = True) -> list[str] | None:
    """Registered names to pair an entry with: None (where ``none``: every registered one), or a non-empty list or
    tuple of texts; else an :class:`InputError` naming ``what`` and the value (an empty list failed the entry's
    ``reference`` check, a number was a ``TypeError``, a dict's keys were taken)."""
    if names is None and none:
        return None
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) and n for n in names):
        raise InputError(
            f"{what} must be a non-empty list of registered names{' (or None: every one)' if none else ''}, got "
            f"{shown_value(names)}"
        )
    return list(names)
