"""What a conformance check finds: one result per check, gathered in a report that prints and raises.

A :class:`ConformanceReport` lists every check run on one registered entry (passed, failed or
skipped, with what was run or what differed); ``str(report)`` is the text a command prints, and
``to_dict`` its JSON. :meth:`ConformanceReport.raise_if_failed` raises :class:`ConformanceError`, an
``AssertionError``, so a plugin author's test fails with the report as its message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gamemarket.errors import InputError, check_flag, check_seed, check_whole

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


def check_options(check: str, *, seed=0, raise_on_failure=True, cases=None) -> None:
    """A conformance check's own options, checked before it runs: ``seed`` a whole number >= 0, ``cases`` (where the
    check takes one) a whole number >= 1, ``raise_on_failure`` True or False; else an :class:`InputError` naming the
    check and the option. Unchecked, ``seed=-1`` was reported as the plugin's failure, and ``cases=0`` passed on no
    case at all."""
    try:
        check_seed(seed)
        if cases is not None:
            check_whole(cases, "cases", 1)
        check_flag(raise_on_failure, "raise_on_failure")
    except InputError as exc:
        raise InputError(f"{check}: {exc}") from None
