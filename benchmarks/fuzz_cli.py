"""The CLI fuzz's long run (issue 27, item 7's target: at least 30 minutes, nothing found or every finding
fixed with a regression row).

    python benchmarks/fuzz_cli.py [--minutes 30] [--kinds study,options,...] [--batch 25] [--seed N]

Draws fresh random cases of every kind of input (``tests/fuzz_cli.py``: study files, job tables, games,
workload models, traces, pricing problems, option values; valid, slightly wrong and hostile; a real tool's game
files mutated, declared sizes far beyond the data, a command killed mid-run and run again, two writers of one
study at once), runs each command in this one process (a killed or a background one in a process of its own),
and checks the CLI's invariants. Kinds take turns in batches of ``--batch``
examples. A problem of a kind not seen before is shrunk by hypothesis to a small case and printed at
once (the case in full, the command lines, what broke); later cases with the same signature are counted,
not shrunk again. Known findings (``fuzz_cli.KNOWN``: found before, not fixed yet) are counted apart.
At the end it prints, per kind, the examples and commands run and their exit codes, and one line per
finding. One process, one core: it shares the machine.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

import fuzz_cli  # noqa: E402


class Finding(Exception):
    """A problem of a signature not seen before: raised so that hypothesis shrinks its case."""

    def __init__(self, signature: str, case, problems):
        super().__init__(signature)
        self.signature, self.case, self.problems = signature, case, problems


class StopShrinking(BaseException):
    """Shrinking ran past its time: hypothesis lets a BaseException through, with the smallest case so far kept."""


class Fuzz:
    """The long run's state: the findings so far, counts, and the time left."""

    def __init__(self, deadline: float, shrink_seconds: float = 90.0):
        self.deadline, self.shrink_seconds = deadline, shrink_seconds
        self.shrink_started = 0.0
        self.best = None  #: the smallest failing case of the target so far (while shrinking)
        self.found: dict[str, dict] = {}  #: signature -> {"case", "problems", "count", "shrunk", "kind"}
        self.known = collections.Counter()
        self.examples = collections.Counter()
        self.codes: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.commands = collections.Counter()
        self.target: str | None = None  #: the new signature this batch shrinks, once one is seen

    def check(self, kind: str, case) -> None:
        """One example: run it, count it, and raise :class:`Finding` for the batch's new signature."""
        if self.target is None and time.monotonic() > self.deadline:
            return  # out of time (never while a finding is being shrunk: it would look flaky)
        log: list = []
        problems = fuzz_cli.run_case(case, log=log)
        fresh = fuzz_cli.new_problems(problems)
        if self.target is None:  # generating (not shrinking): count, and pick the batch's target
            self.count(kind, log, problems, fresh, case)
        elif time.monotonic() - self.shrink_started > self.shrink_seconds:
            raise StopShrinking
        mine = [p for p in fresh if p.signature == self.target]
        if mine:  # one place raises, so that hypothesis sees one failure while it shrinks and replays
            self.best = (case, mine)
            raise Finding(self.target, case, mine)

    def count(self, kind: str, log: list, problems: list, fresh: list, case) -> None:
        self.examples[kind] += 1
        for _, rc, _, _ in log:
            self.codes[kind][str(rc)] += 1
            self.commands[kind] += 1
        for p in problems:
            if fuzz_cli.known(p) is not None:
                self.known[p.signature] += 1
        for sig in dict.fromkeys(p.signature for p in fresh):
            mine = [p for p in fresh if p.signature == sig]
            entry = self.found.setdefault(
                sig, {"case": case, "problems": mine, "count": 0, "shrunk": False, "kind": kind}
            )
            entry["count"] += 1
            if not entry["shrunk"] and self.target is None:
                self.target, self.shrink_started = sig, time.monotonic()

    def batch(self, kind: str, examples: int, rng: random.Random) -> None:
        """``examples`` random cases of one kind; a new finding is shrunk and printed."""
        self.target = None

        @seed(rng.getrandbits(64))
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate, Phase.shrink],
            report_multiple_bugs=False,
        )
        @given(case=fuzz_cli.KINDS[kind]())
        def run(case):
            self.check(kind, case)

        try:
            run()
        except Finding as f:  # the smallest case hypothesis found for the batch's new signature
            self.show(kind, f.signature, f.case, f.problems)
        except StopShrinking:  # the smallest case so far
            self.show(kind, self.target, *self.best, note=f" (shrinking stopped after {self.shrink_seconds:g} s)")
        except Exception as exc:  # noqa: BLE001 - hypothesis' own (a flaky case): say so, keep the case unshrunk
            print(f"\n#### {kind}: batch stopped by {type(exc).__name__}: {str(exc)[:500]}", flush=True)
            for inner in getattr(exc, "exceptions", ()):  # (a flaky case's finding: what it was, in full)
                if isinstance(inner, Finding):
                    self.show(kind, inner.signature, inner.case, inner.problems, note=" (flaky: not seen again)")

    def show(self, kind: str, signature: str, case, problems, note: str = "") -> None:
        """Print a finding as soon as it is shrunk."""
        self.found[signature].update(case=case, problems=problems, shrunk=True)
        print(f"\n#### finding {len(self.found)}: {signature} ({kind}){note}", flush=True)
        print(fuzz_cli.report(case, problems), flush=True)

    def summary(self, seconds: float) -> None:
        total = sum(self.examples.values())
        print(f"\n== {total} examples, {sum(self.commands.values())} commands in {seconds / 60:.1f} min")
        for kind in fuzz_cli.KINDS:
            codes = ", ".join(f"{k}: {v}" for k, v in sorted(self.codes[kind].items()))
            print(f"  {kind:<14} {self.examples[kind]:6d} examples, {self.commands[kind]:6d} commands (exit {codes})")
        print(f"== findings: {len(self.found)} new, {len(self.known)} known")
        for k, (sig, e) in enumerate(self.found.items(), 1):
            print(f"  {k}. {sig}  [{e['kind']}; seen {e['count']} times{'' if e['shrunk'] else '; not shrunk'}]")
        for sig, n in self.known.items():
            print(f"  known: {sig}  [seen {n} times]")
        for sig, e in self.found.items():
            if not e["shrunk"]:  # seen only while another signature was being shrunk: print as found
                print(f"\n#### finding (not shrunk): {sig}")
                print(fuzz_cli.report(e["case"], e["problems"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--kinds", default=",".join(fuzz_cli.KINDS), help="comma-separated kinds of input")
    ap.add_argument("--batch", type=int, default=25, help="examples of one kind before the next kind's turn")
    ap.add_argument("--seed", type=int, default=None, help="seed of the batches' seeds (default: random)")
    ap.add_argument("--shrink-seconds", type=float, default=90.0, help="time to shrink one finding (default 90)")
    a = ap.parse_args()
    kinds = [k.strip() for k in a.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in fuzz_cli.KINDS]
    if unknown:
        ap.error(f"unknown kind(s) {unknown}; kinds: {list(fuzz_cli.KINDS)}")
    master = a.seed if a.seed is not None else random.SystemRandom().getrandbits(32)
    rng = random.Random(master)
    print(f"fuzzing {', '.join(kinds)} for {a.minutes:g} min (seed {master}; batches of {a.batch})", flush=True)
    warnings.simplefilter("ignore")  # hypothesis' own notes; the commands' warnings are checked per command
    t0 = time.monotonic()
    fuzz = Fuzz(t0 + a.minutes * 60, a.shrink_seconds)
    try:
        while time.monotonic() < fuzz.deadline:
            for kind in kinds:
                if time.monotonic() >= fuzz.deadline:
                    break
                fuzz.batch(kind, a.batch, rng)
                done = sum(fuzz.examples.values())
                print(
                    f"[{(time.monotonic() - t0) / 60:5.1f} min] {kind}: {fuzz.examples[kind]} examples; "
                    f"{done} in all, {len(fuzz.found)} findings",
                    flush=True,
                )
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    fuzz.summary(time.monotonic() - t0)


if __name__ == "__main__":
    main()
