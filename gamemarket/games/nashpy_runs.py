"""nashpy's equilibrium methods, each run in a child process under a time limit, with an estimate and progress.

nashpy's enumerations have no clock and report nothing while they run: each runs in a forked child, stopped at the
time limit, and sends what it finds as it finds it (a stop keeps those found). Support and vertex enumeration are
run step by step from nashpy's own pieces (``potential_support_pairs``, ``solve_indifference``, ``obey_support``,
``is_ne``; ``build_halfspaces``, ``non_trivial_vertices``), exactly as ``nashpy.Game.support_enumeration`` and
``vertex_enumeration`` compose them, so that the child can say how far it got: the parent estimates the work before
it starts (:func:`nashpy_work`) and shows it as a progress bar (hunt 27c-F3: a 12x12 game's support enumeration ran
to its 10 s limit with neither). Vertex enumeration lists the column player's vertices once where nashpy lists them
again for each row vertex: the same pairs, in the same order.

Every profile is verified by its regret by the caller (``equilibria.solve``), like any method's.

References
----------
.. [Nisan2007] N. Nisan, T. Roughgarden, E. Tardos and V. V. Vazirani (eds.), *Algorithmic Game Theory*,
   Cambridge University Press, 2007: Algorithms 3.4 (support enumeration) and 3.5 (vertex enumeration).
.. [Knight2018] V. Knight and J. Campbell, "Nashpy: A Python library for the computation of Nash equilibria",
   Journal of Open Source Software 3(30), 904, 2018.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import queue as queues
import time
import warnings

import numpy as np

from gamemarket.errors import InputError, shown_name
from gamemarket.games.budget import (
    DEFAULT_TIME_LIMIT,
    SearchClock,
    check_time_limit,
    max_vertices,
    solver_child,
    stop_child,
    time_for_a_child,
)
from gamemarket.games.checks import check_payoff_pair
from gamemarket.io.limits import memory_limit

NASHPY_METHODS = ("support_enumeration", "vertex_enumeration", "lemke_howson", "lemke_howson_first")

#: seconds per support pair of nashpy's support enumeration, about (two linear solves and the checks: 43, 68 and
#: 103 microseconds a pair on random 6x6, 8x8 and 10x10 games here): the larger, so that the estimate is an upper one
SECONDS_PER_SUPPORT_PAIR = 1e-4
#: seconds per pair of vertices (one of each player's best-response polytope) of nashpy's vertex enumeration, about
#: (its label test: a random 10x10 game's 1,676 x 649 pairs in 66 s as nashpy runs them)
SECONDS_PER_VERTEX_PAIR = 6e-5
#: seconds between the child's reports of how far it got
TICK_S = 0.2


def support_pairs(m: int, n: int) -> int:
    """The support pairs nashpy's support enumeration tries on an ``m x n`` game: every non-empty support of each
    player against every one of the other's (its default, ``non_degenerate=False``)."""
    return (2**m - 1) * (2**n - 1)


def nashpy_work(method: str, m: int, n: int) -> tuple[int, str, float] | None:
    """The work of ``method`` on an ``m x n`` game before it starts: ``(steps, unit, seconds)`` (the steps the
    progress bar counts, what they are, about how long they take in all, at most), or None for Lemke-Howson (a path
    of unknown length per initial label)."""
    if method == "support_enumeration":
        pairs = support_pairs(m, n)
        return pairs, "support pairs", _seconds(pairs, SECONDS_PER_SUPPORT_PAIR)
    if method == "vertex_enumeration":
        rows, cols = (max_vertices(k, j) if k >= 2 else 1 for k, j in ((m, n), (n, m)))
        return rows, "row vertices", _seconds(rows * cols, SECONDS_PER_VERTEX_PAIR)
    return None


def _seconds(steps: int, each: float) -> float:
    """``steps * each`` as a float, infinity past the float range (a 520 x 520 game's 2^1040 support pairs were an
    OverflowError once its child had started)."""
    try:
        return float(steps) * each
    except OverflowError:
        return math.inf


def _count(steps: int) -> str:
    """A count of steps for a message: its digits up to 10^15, else its order ("about 10^313")."""
    return f"{steps:,}" if steps < 10**15 else f"about 10^{len(str(steps)) - 1}"


def _support_enumeration(A, B, tick):
    """nashpy's support enumeration (``nashpy.algorithms.support_enumeration``), its pieces composed as it composes
    them, calling ``tick(pairs done)`` as it goes."""
    from nashpy.algorithms.support_enumeration import (  # deferred: nashpy imports scipy.optimize (worker only)
        is_ne,
        obey_support,
        potential_support_pairs,
        solve_indifference,
    )

    for done, pair in enumerate(potential_support_pairs(A, B), 1):
        tick(done)
        s1 = solve_indifference(B.T, *(pair[::-1]))
        s2 = solve_indifference(A, *pair)
        if obey_support(s1, pair[0]) and obey_support(s2, pair[1]) and is_ne((s1, s2), pair, (A, B)):
            yield s1, s2


def _vertex_enumeration(A, B, tick):
    """nashpy's vertex enumeration (``nashpy.algorithms.vertex_enumeration``): each row vertex against each column
    vertex, fully labelled pairs kept; the column vertices listed once; ``tick(row vertices done)``."""
    from nashpy.polytope import build_halfspaces, non_trivial_vertices  # deferred: nashpy (the worker only)

    if np.min(A) < 0:  # nashpy's own shift, as vertex_enumeration makes it
        A = A + abs(np.min(A))
    if np.min(B) < 0:
        B = B + abs(np.min(B))
    rows = A.shape[0]
    labels = set(range(sum(A.shape)))
    cols = list(non_trivial_vertices(build_halfspaces(A)))
    for done, (row_v, row_l) in enumerate(non_trivial_vertices(build_halfspaces(B.transpose())), 1):
        tick(done)
        row_l = {(label + rows) % len(labels) for label in row_l}
        for col_v, col_l in cols:
            if row_l.union(col_l) == labels:
                yield row_v / sum(row_v), col_v / sum(col_v)


def _enumerate(method, A, B, q) -> None:
    """Support or vertex enumeration in the child: each profile sent as it is found ("part"), and how far it got
    ("tick") every :data:`TICK_S`."""
    last = [time.monotonic()]

    def tick(done: int) -> None:
        now = time.monotonic()
        if now - last[0] >= TICK_S:
            last[0] = now
            q.put(("tick", done))

    run = _support_enumeration if method == "support_enumeration" else _vertex_enumeration
    # nashpy's own divisions by zero on a degenerate game's vertices (bare numpy warnings with no context, hunt
    # 25c-W2): what it returns is verified like any method's answer
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        for x, y in run(A, B, tick):
            q.put(("part", (np.asarray(x, dtype=float), np.asarray(y, dtype=float))))


def _lemke_howson(method, A, B, q, out) -> None:
    """Lemke-Howson in the child: every initial label's path, each sent as it ends ("lemke_howson": a path that
    never ends keeps the others), or the labels in turn until one ends at a distribution ("lemke_howson_first")."""
    import nashpy as nash  # deferred: nashpy imports scipy.optimize; only the worker process pays for it

    g = nash.Game(A, B)
    for label in range(sum(A.shape)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x, y = (np.asarray(v, dtype=float) for v in g.lemke_howson(initial_dropped_label=label))
        if method == "lemke_howson":
            q.put(("part", (x, y)))
        elif np.isfinite(x).all() and np.isfinite(y).all() and x.min() >= -1e-9 and y.min() >= -1e-9:
            out.append((x, y))
            break


def _worker(method, A, B, q) -> None:
    solver_child()
    out = []
    try:
        if method in ("support_enumeration", "vertex_enumeration"):
            _enumerate(method, A, B, q)
        else:
            _lemke_howson(method, A, B, q, out)
        q.put(("ok", out))
    except Exception as exc:  # noqa: BLE001 - a solver failure is reported, not fatal
        q.put(("error", f"{type(exc).__name__}: {exc}"))


def nashpy_equilibria(A, B, method: str, *, time_limit: float | None = DEFAULT_TIME_LIMIT) -> tuple[list, str | None]:
    """Run one nashpy method in a child process; returns (profiles, problem or None). ``time_limit``: seconds
    (None: no limit); the child is stopped there, and the problem says so, with how far it got and the whole
    work's estimate. The enumerations show a progress bar past a few seconds (``budget.progress_wanted``)."""
    if method not in NASHPY_METHODS:
        raise InputError(f"unknown nashpy method {shown_name(method)}; expected one of {NASHPY_METHODS}")
    time_limit = check_time_limit(time_limit)
    A, B = check_payoff_pair(A, B)
    problem = time_for_a_child(time_limit, f"nashpy {method}") or _beyond_memory(method, *A.shape)
    if problem:
        return [], problem
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    q = ctx.Queue()
    p = ctx.Process(target=_worker, args=(method, A, B, q), daemon=True)
    p.start()
    clock = SearchClock(time_limit)
    work = nashpy_work(method, *A.shape)
    if work is not None:  # (a count past 10^15 is no bar's total: counted without one)
        total = work[0] if work[0] < 10**15 else None
        clock.bar(total, unit=" " + work[1].split()[-1], desc=f"nashpy {method.replace('_', ' ')}")
    parts, done = [], 0  # (Lemke-Howson's paths that ended, or the enumerations' profiles, one message each)
    try:
        while True:
            left = clock.remaining()
            status, payload = q.get(timeout=None if left is None else max(left, 1e-3))
            if status == "tick":
                clock.advance(payload - done)
                done = payload
            elif status == "part":
                parts.append(payload)
            else:
                break
    except queues.Empty:  # the time limit
        return parts, _stopped(method, A.shape, time_limit, parts, done)
    finally:
        clock.close()
        stop_child(p)
    if status != "ok":
        return parts, f"nashpy {method} failed: {payload}"
    return parts + payload, None


def _beyond_memory(method: str, m: int, n: int) -> str | None:
    """None where nashpy's ``method`` on an ``m x n`` game fits the memory limit, else the problem its note says:
    Lemke-Howson's two tableaux hold ``(m + n + 1)`` columns a strategy (4.6 GB of a 12,000 x 12,000 game) beside
    nashpy's copies of the payoffs, in a child process no limit sized."""
    if not method.startswith("lemke_howson"):
        return None
    need, limit = 8 * ((m + n) * (m + n + 1) + 2 * m * n), memory_limit()
    if limit is None or need <= limit:
        return None
    return (
        f"nashpy {method}: not started: its tableaux for this {m:,} x {n:,} game take about {need / 1e9:.3g} GB, "
        f"beyond the memory limit of {limit / 1e9:.3g} GB"
    )


def _stopped(method: str, shape, time_limit: float, parts: list, done: int) -> str:
    """What a run stopped at its time limit says: how far it got (of its whole work's estimate) and what it found."""
    work = nashpy_work(method, *shape)
    if method == "lemke_howson":  # (one message a path that ended: "no answer" beside five found, hunt 29c-W2)
        labels = f"{len(parts)} of its {sum(shape)} initial labels"
        if parts:
            return f"nashpy {method}: stopped at its time limit of {time_limit:g} s after {labels}, whose ends are kept"
        return f"nashpy {method}: no answer within {time_limit:g} s (stopped after {labels})"
    if work is None:
        return f"nashpy {method}: no answer within {time_limit:g} s (stopped)"
    # (support and vertex enumeration send each profile as they find it: those found are kept, hunt 19a-F2)
    steps, unit, seconds = work
    whole = (
        f"about {seconds:,.0f} s"
        if seconds < 1e15
        else f"about {seconds:.3g} s"
        if seconds < math.inf
        else "past 1e308 s"
    )
    far = f"after {done:,} of up to {_count(steps)} {unit}, the whole {whole}"
    if not parts:
        return f"nashpy {method}: no answer within {time_limit:g} s (stopped {far})"
    return f"nashpy {method}: stopped at its time limit of {time_limit:g} s {far}, {len(parts):,} found by then"
