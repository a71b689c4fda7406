"""The CLI fuzz's bounded budget (issue 27, item 7): every command, fed generated study files, job
tables, games, workload models, traces, pricing problems and option values (valid, slightly wrong and
hostile), keeps its invariants (``tests/fuzz_cli.py``): exit 0 with a result that passes its own check, 2
with one line on stderr, or a stated 3; never a traceback; no file outside its declared outputs created,
changed or deleted; no temporary file left.

The examples are derandomized (``derandomize=True``, no example database): every CI run, and every
developer's run, tries the same cases, so a failure here is reproducible from the test's name alone and
the budget's time is stable. Exploring new cases is the long run's job (``python benchmarks/fuzz_cli.py
--minutes 30``), which draws fresh random cases and prints what it finds; each finding it made is fixed
with a row of ``tests/cli/test_bad_input.py``. ``FUZZ_CLI_SCALE`` multiplies the budget (``0.2`` for a
quick look, ``5`` for a longer reproducible run).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_cli import KINDS, new_problems, report, run_case

#: examples per kind of input: together a few minutes on a 2-core machine (the study runs and reports
#: dominate; most hostile cases are refused in milliseconds)
BUDGET = {"study": 40, "job table": 40, "game": 50, "model": 40, "price problem": 25, "trace": 30, "options": 60}
SCALE = float(os.environ.get("FUZZ_CLI_SCALE", 1))


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_command_keeps_its_invariants(kind):
    @settings(
        max_examples=max(1, round(BUDGET[kind] * SCALE)),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=KINDS[kind]())
    def check(case):
        problems = new_problems(run_case(case))  # known findings, not fixed yet, are listed in fuzz_cli.KNOWN
        assert not problems, report(case, problems)

    check()
