"""The time limit and the progress bar of an exhaustive equilibrium search.

A search estimates its work before it starts (how many vertices or supports it will visit, from the game's
shape), checks the clock as it goes (:meth:`SearchClock.check` raises :class:`TimeUp` once the limit is
reached) and, where it is stopped, returns what it found so far with a note that says how far it got; its
caller verifies every profile by its regret as always. A search that finishes within its limit finds exactly
what it finds without one: the clock only decides where to stop.

The progress bar (tqdm) goes to stderr, never to stdout: it appears only once a search has run
``PROGRESS_DELAY`` seconds, and only where stderr is a terminal or the caller asks for it (``progress=True``).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal
import sys
import threading
import time
from math import comb

from gamemarket.errors import MAX_TIME_LIMIT, GameMarketError, check_time_limit, compile_seconds  # noqa: F401 (re-exported)

#: seconds a search runs before its progress bar appears
PROGRESS_DELAY = 3.0

#: seconds each method of ``equilibria.solve`` may spend on one game unless told otherwise (``game solve --time-limit``)
DEFAULT_TIME_LIMIT = 10.0

#: whether a search shows a progress bar: True, False, or None (where stderr is a terminal); set by the solvers'
#: ``progress`` argument for the searches they run (a registered method's signature has no room for it)
_PROGRESS: contextvars.ContextVar[bool | None] = contextvars.ContextVar("gamemarket_solver_progress", default=None)


def solver_child() -> None:
    """In a solver's child process (qhull's, nashpy's, Gambit's, forked and stopped by ``terminate`` at the time
    limit): end quietly at SIGTERM or SIGHUP, and leave Ctrl-C to the parent, which stops it. Forked, it held the
    command's handlers, which turned the parent's SIGTERM into a KeyboardInterrupt and multiprocessing's 27-line
    traceback (hunt 17b-F2); a Python handler also waits for the C code it interrupts (qhull ran on for an hour
    under a parent that had gone). It ends too where its parent has gone (killed by SIGKILL: nobody is left to
    stop it), looked at every :data:`PARENT_LOOK_S`."""
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_LOOK_S)
        os._exit(1)

    threading.Thread(target=watch, name="gamemarket-solver-parent-watch", daemon=True).start()


#: seconds between a solver child's looks at its parent (:func:`solver_child`)
PARENT_LOOK_S = 0.5

#: seconds a solver's child is given to end after it was asked to (SIGTERM), before it is killed (:func:`stop_child`)
STOP_WAIT_S = 1.0

#: the least time left to a solver for which its child process is started (:func:`time_for_a_child`)
CHILD_MIN_S = 0.05


def stop_child(p) -> None:
    """End a solver's child process (a ``multiprocessing.Process``), at once: SIGTERM, then SIGKILL where it has not
    ended within :data:`STOP_WAIT_S`. Stopped before it set its own handlers (:func:`solver_child`: the signal came
    while it started), a child took the command's handler, went on and outlived the command: Gambit's child building
    a 5,000 x 5,000 game, 8.6 GB and a minute after `game solve` had ended (hunt 34b-F1's run); and its look at its
    parent waits for the C code that holds Python's lock."""
    if p.is_alive():
        p.terminate()
    p.join(STOP_WAIT_S)
    if p.is_alive():
        p.kill()
        p.join(STOP_WAIT_S)


def time_for_a_child(time_limit: float | None, what: str) -> str | None:
    """None where ``time_limit`` (the seconds left to a solver, None: no limit) leaves time to start its child
    process (:data:`CHILD_MIN_S`), else the problem a solver's note says: "gnm: no answer within 0.001 s (stopped)"
    after the steps before it had spent the limit (hunt 34b-W2), its child started and stopped at once."""
    if time_limit is None or time_limit >= CHILD_MIN_S:
        return None
    return f"{what}: not started: the steps before it spent the time limit ({time_limit:.2g} s were left to it)"


class TimeUp(Exception):
    """The search's time limit was reached (internal: the search notes it and returns what it found)."""


class Stopped(GameMarketError):
    """A computation with no partial answer (alpha-rank's stationary distribution, the logit QRE's branch) stopped at
    its time limit; the message says how far it got (``gamemarket game solve``: exit 3)."""


@contextlib.contextmanager
def progress_wanted(progress: bool | None):
    """Within the block, searches show their progress bar as ``progress`` says (None: where stderr is a terminal)."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (where a progress bar is seen); False where it was replaced or closed."""
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # replaced by an object without one, or closed
        return False


class SearchClock:
    """A search's wall clock against its limit (``time_limit`` seconds from now; None: no limit), and its progress
    bar (:meth:`bar`; shown as :func:`progress_wanted` says, unless ``progress`` is given here)."""

    def __init__(self, time_limit: float | None, *, progress: bool | None = None):
        self.limit = check_time_limit(time_limit)
        self.start = time.monotonic()
        self._compiled = compile_seconds()  # (numba's compiling is no search: errors.compile_seconds)
        want = _PROGRESS.get() if progress is None else progress
        self.show = stderr_is_terminal() if want is None else bool(want)
        self._bar = None

    def elapsed(self) -> float:
        """Seconds since the clock started, less numba's compiling meanwhile (once after an install)."""
        return time.monotonic() - self.start - (compile_seconds() - self._compiled)

    def remaining(self) -> float | None:
        """Seconds left (at least 0), or None without a limit."""
        return None if self.limit is None else max(0.0, self.limit - self.elapsed())

    def expired(self) -> bool:
        """True once the limit is reached."""
        return self.limit is not None and self.elapsed() >= self.limit

    def check(self) -> None:
        """Raise :class:`TimeUp` once the limit is reached."""
        if self.expired():
            raise TimeUp

    def bar(self, total: int | None, *, unit: str, desc: str) -> None:
        """Start a progress bar of ``total`` steps (None: a count without a total), closing the last one."""
        self.close()
        if self.show:
            from tqdm.auto import tqdm  # deferred: only a search with a progress bar needs it

            # the bar appears once the search has run PROGRESS_DELAY seconds in all, not this step alone
            delay = max(0.0, PROGRESS_DELAY - self.elapsed())
            self._bar = tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, delay=delay, leave=False)

    def advance(self, n: int = 1) -> None:
        """Move the progress bar on by ``n`` steps (where there is one)."""
        if self._bar is not None:
            self._bar.update(n)

    def refresh(self) -> None:
        """Redraw the progress bar (its elapsed time) while a step runs that cannot report."""
        if self._bar is not None:
            self._bar.refresh()

    def close(self) -> None:
        """Close the progress bar (where there is one): it leaves no line behind."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def stopped(self) -> str:
        """Where a search was stopped: "at the time limit of N s"."""
        return f"at the time limit of {self.limit:g} s"


#: how to raise the limit, for the notes of a stopped search
RAISE_LIMIT = "raise the limit (gamemarket game solve --time-limit SECONDS; time_limit= in Python) to search further"


def max_vertices(m: int, n: int) -> int:
    """The most vertices the best-response polytope ``{x in R^m : x >= 0, B'^T x <= 1}`` of an ``m x n`` game can
    have (``m`` >= 2): a polytope of dimension ``m`` with at most ``m + n`` facets, bounded by McMullen's upper bound
    theorem (the cyclic polytope's dual). A random 20x20 game's has about 3 million; the bound is 40 million."""
    d, f = m, m + n
    return comb(f - (d + 1) // 2, f - d) + comb(f - (d + 2) // 2, f - d)
