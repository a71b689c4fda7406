"""Price discovery: dual decomposition with a quasi-Newton price update (pricing model section 3).

The dual ``g(p) = sum_i max_{x_i} [u_i(a_i^T x_i) - d_i p^T x_i] + p^T R`` is convex in ``p >= 0`` and
its gradient is ``R - sum_i d_i x_i(p)``; L-BFGS-B (scipy) minimizes it, in rounds with a projected
Newton method on the dual's exact Hessian (``method="auto"``). After every evaluation a feasible
allocation is recovered from ``x(p)`` by scaling down the use of over-subscribed resources, and near
the target by ``repair`` (load moved to resources with slack at the same throughput, then taken from
the jobs that value it least); the run stops when the duality gap ``g(p) - sum_i u_i(t_i)`` of that feasible allocation
is below ``max(eps, rel_eps * |objective|)``, or reports that the iteration cap was hit. The gap bounds
the objective's distance to the optimum. Defaults: ``rel_eps = 1e-7`` (the absolute rule alone is
unattainable in float64 when the objective is far above ``eps / 1e-16``, as with alpha-fair utilities of
large alpha); for strictly concave utilities (log, alpha-fair) a certified relative gap, ``gap <= 1e-6
|objective|`` (``default_target``: at most ``1e-4 n``, at least ``1e-8 n``), reached through a second-order
primal recovery (``polish``) and, on small problems, the tangent-cut finish after each round; ``eps = 1e-3 n``
for the piecewise-linear ones (linear, target), whose smoothing below spends half of ``eps``. An explicit
``eps`` stops at ``max(eps, rel_eps * |objective|)`` with the recovery it always had.

Piecewise-linear utilities (linear, target) have a piecewise-linear dual on which a quasi-Newton
method stalls and whose ``x(p)`` jumps between extremes. They are smoothed by ``-mu/2 t^2`` with
``mu = eps / (n max(a)^2)``: the smoothed dual plus the bound ``mu/2 sum_i max(a_i)^2`` on the
smoothing's effect is an upper bound on the original optimum, so the reported gap stays a true
duality gap of the original problem. When a round stops short of the gap (a failed line search), the
next one restarts from the best prices while iterations remain and the gap still improves. Where they
still stop short (heavy-tailed efficiencies, scarce capacity), the exact finish (``lp_finish``) solves
the linear program restricted to the columns the prices single out, by column generation. Smooth
utilities get the same finish on tangent cuts of the utility (refined where they overstate it) when
everything else stops short, on problems small enough (``lp_finish.MAX_CUTS``).

Alpha-fair utilities of large alpha have a dual whose price level is its flattest direction (curvature
falling like 1/alpha) while ties put kinks across the others; after every L-BFGS round the line search
along the ray through the lowest dual's prices (``level.calibrate``) sets the level again.

References
----------
.. [Agrawal2022] A. Agrawal, S. Boyd, D. Narayanan, F. Kazhamiaka and M. Zaharia, "Allocation of
   fungible resources via a fast, scalable price discovery method", Mathematical Programming
   Computation 14 (2022) 593-622. (The method: the dual, its smoothing and the stopping rule.)
.. [Byrd1995] R. H. Byrd, P. Lu, J. Nocedal and C. Zhu, "A limited memory algorithm for bound
   constrained optimization", SIAM Journal on Scientific Computing 16 (1995) 1190-1208. (L-BFGS-B,
   as in scipy.)
"""

from __future__ import annotations

import contextlib
import copy
import re
import time

import numba
import numpy as np

from gamemarket.errors import (
    GameMarketError,
    InputError,
    check_time_limit,
    check_whole,
    limit_clock,
    real_numbers,
    shown_value,
)
from gamemarket.pricing import ties as tie
from gamemarket.pricing.allocation import Allocation, check_feasible
from gamemarket.pricing.certificate import check_result, check_weak_duality, magnitude
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.identical import groups_text, identical_columns, merged_answer, merged_problem
from gamemarket.pricing.level import PriceVariables, calibrate, path_start
from gamemarket.pricing.lp_finish import fits as lp_fits
from gamemarket.pricing.lp_finish import lp_finish
from gamemarket.pricing.newton import projected_newton
from gamemarket.pricing.polish import polish
from gamemarket.pricing.problem import (
    SOLVE_BYTES_PER_CELL,
    SOLVE_BYTES_PER_JOB,
    Problem,
    bytes_text,
    check_dtype,
    check_limit,
    limit_source,
)
from gamemarket.pricing.repair import make_feasible, repair
from gamemarket.pricing.result import (  # noqa: F401 (DEFAULT_REL_GAP: callers import the rule's numbers from here)
    DEFAULT_GAP_PER_JOB,
    DEFAULT_REL_GAP,
    Result,
    default_target,
    met_message,
    stopping_rule,
)
from gamemarket.pricing.torch_backend import TorchEvaluator
from gamemarket.pricing.unavailable import solve_available
from gamemarket.pricing.utilities import Power, check_complete

METHODS = ("lbfgs", "newton", "auto")
BACKENDS = ("numpy", "torch")
#: the devices ``solve(device=...)`` names: a kind PyTorch knows, with an optional index (``cuda:0``)
DEVICE = re.compile(r"(cpu|cuda|mps|xpu)(:[0-9]+)?")


#: the Newton step in the allocation (``polish``) runs at each iteration once the cheap recovery's gap is
#: within this factor of the target (its gap is second order where the cheap one is first: at n = 1e5,
#: m = 16 of the synthetic family they were 0.18 and 37.6), and at every repair
POLISH_FROM = 1000.0
#: the dual is also evaluated at the polish's Newton step of the prices when the polished gap is within this
#: factor of the target
POLISH_PRICES = 10.0


def solve(
    problem: Problem,
    *,
    eps: float | None = None,
    max_iter: int = 500,
    p0: np.ndarray | None = None,
    callback=None,
    rel_eps: float = 1e-7,
    method: str = "auto",
    p_min: np.ndarray | None = None,
    backend: str = "numpy",
    device: str = "cpu",
    dtype=np.float64,
    time_limit: float | None = None,
    limit: int | None = None,
) -> Result:
    """Discover market-clearing prices and a feasible allocation.

    Parameters
    ----------
    eps : stop when the duality gap is below ``max(eps, rel_eps * |objective|)``. Default (None): for
        strictly concave utilities (log, alpha-fair) a certified relative gap of ``1e-6``
        (``default_target``: ``1e-6 |objective|``, at most ``1e-4 n``, at least ``1e-8 n``); for the
        piecewise-linear ones (linear, target) ``eps = 1e-3 * n``, as their smoothing spends half of it, and at most
        ``1e-2`` of the utilities' own size (:func:`default_smoothed_eps`: a problem in small units)
    max_iter : L-BFGS iteration cap; hitting it is reported (``converged=False``), never silent
    p0 : initial prices, one per resource or one for all, finite and >= 0 (default: the utility's guess)
    rel_eps : the relative part of the stopping rule
    backend : "numpy" (numba kernels, the default) or "torch" (PyTorch, ``device`` "cpu" or "cuda")
    device : where the torch backend computes; the numpy backend takes only "cpu" (another is an InputError)
    dtype : float64, or float32 to hold ``A`` (and, with torch, compute) in single precision
    p_min : price floors (reserve prices), default 0. With floors the dual ``min_{p >= p_min} g(p)`` is
        that of ``max sum_i u_i - p_min^T (X^T d - R)`` (unsold capacity earns its reserve price), and
        the reported objective and gap are of that problem
    method : "lbfgs" (scipy's L-BFGS-B, the paper's method), "newton" (projected Newton with the
        dual's exact Hessian, for utilities that give ``best_response_slope``), or "auto" (L-BFGS
        for up to 30 iterations, then Newton from the best prices when not yet converged)
    time_limit : seconds the solve may take (None: no limit, the default). Checked at every evaluation of the dual
        and between the LP finish's rounds (HiGHS itself is given what is left); once it is reached the best
        feasible allocation found so far is returned, ``converged=False`` and its message saying that the limit
        stopped it (its gap still certifies its objective). Where no allocation with a finite gap was found by
        then, :class:`TimeLimitReached` says so
    limit : bytes of memory the solve may take (None: no limit; the command passes ``GAMEMARKET_MEMORY_LIMIT``, else
        this machine's memory): Newton's ``m x m`` Hessian is used only where it fits (``"auto"`` leaves its steps
        out otherwise, and its message says so; ``"newton"`` is refused before any work), as only where the utility
        gives ``best_response_slope``
    """
    if not isinstance(problem, Problem):  # (a matrix: AttributeError deep inside before)
        raise InputError(
            f"problem must be a Problem (gamemarket.pricing.Problem(A, R, utility)), got {type(problem).__name__}"
        )
    if not isinstance(method, str) or method not in METHODS:  # (an array was numpy's "truth value ... ambiguous")
        raise InputError(f"method must be one of {METHODS}, got {shown_value(method)}")
    if callback is not None and not callable(callback):  # (5 was a TypeError at the first evaluation)
        raise InputError(f"callback must be a function of each evaluation's row (or None), got {callback!r}")
    check_complete(problem.utility)  # (a utility set after the Problem was built: checked again)
    no_newton = _no_newton(problem, method, limit)
    t0 = time.perf_counter()
    time_limit = check_time_limit(time_limit)
    deadline = None if time_limit is None else limit_clock() + time_limit  # (numba's compiling aside)
    # the solver sets the utility's smoothing (mu) while it runs: it works on copies, so the caller's
    # Problem and Utility are never modified (shallow copies: the arrays are shared, never written)
    problem = copy.copy(problem)
    problem.utility = copy.copy(problem.utility)
    n, m = problem.shape
    eps_given = eps
    smoothed = problem.utility.smooth
    certified = eps is None and not smoothed  # the default's relative rule (``default_target``)
    if eps is None:
        eps = default_smoothed_eps(problem) if smoothed else DEFAULT_GAP_PER_JOB * n
    else:
        eps = _number(eps, "eps")
    rel_eps = _number(rel_eps, "rel_eps")
    if not rel_eps >= 0:
        raise InputError(f"rel_eps must be >= 0, got {rel_eps}")
    if not eps > 0:
        raise InputError(f"eps must be > 0, got {eps}")
    # the CLI refuses --max-iter below 1; the API alike (0 or -5 ran one evaluation, reported as a stop)
    max_iter = check_whole(max_iter, "max_iter", 1)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InputError(f"backend must be 'numpy' or 'torch', got {shown_value(backend)}")
    device = check_device(device)
    if device != "cpu" and backend != "torch":  # (ignored in silence before; the CLI refuses it too)
        raise InputError(f"device={device!r} applies to the torch backend; give backend='torch', or leave device out")
    dtype = check_dtype(dtype, "dtype")
    lo = np.zeros(m) if p_min is None else price_vector(p_min, m, "p_min")
    p0 = None if p0 is None else price_vector(p0, m, "p0")
    if (problem.R == 0).any():  # resources of capacity 0: the problem without them, whose optimum is the same
        options = dict(eps=eps_given, max_iter=max_iter, callback=callback, rel_eps=rel_eps, method=method)
        options.update(backend=backend, device=device, dtype=dtype, time_limit=_left(deadline), limit=limit)
        return solve_available(problem, lambda pr, floors, start: solve(pr, p0=start, p_min=floors, **options), lo, p0)
    if no_newton is not None:  # "auto" without Newton's steps is L-BFGS (hunt 23b-F5, 23c-F2)
        method = "lbfgs"
    common = dict(eps=eps, rel_eps=rel_eps, max_iter=max_iter, method=method, lo=lo, callback=callback)
    common.update(certified=certified, deadline=deadline, limit=limit, time_limit=time_limit)
    common.update(backend=backend, device=device, dtype=dtype, t0=t0)
    with threads_for(n):
        result = _solve_once(problem, p0, **common)
        alpha = getattr(problem.utility, "alpha", 1.0)
        if not result.converged and p0 is None and isinstance(problem.utility, Power) and alpha > ALPHA_PATH_FROM:
            result = _alpha_path(problem, result, **common)
    # the certificate checked both ways before anything is returned: a feasible allocation, and a dual bound not
    # below its objective beyond rounding (a negative gap passed ``gap <= eps`` as "converged": hunt 18b-F7)
    check_result(problem, result, dtype)
    if no_newton is not None:
        result.message += f" (L-BFGS alone, without Newton's steps: {no_newton})"
    return result


def default_smoothed_eps(problem: Problem) -> float:
    """The default stopping gap of the piecewise-linear utilities (linear, target), smoothed: the paper's ``1e-3 n``,
    and at most ``1e-2`` of the utilities' own size where that is smaller, ``sum_i max(|u_i(0)|, |u_i(t_i^max)|)``
    (``t_i^max`` the job's best efficiency, the most it can get). An absolute ``1e-3 n`` took the first allocation
    of a problem in small units (efficiencies near 1e-6) for converged, worth 1/1,240 of the optimum (hunt 26c-F2)."""
    n = problem.shape[0]
    A = np.asarray(problem.A)
    with np.errstate(all="ignore"):
        top = A.max(axis=1).astype(np.float64) if A.size else np.zeros(n)
        size = float(np.sum(np.maximum(np.abs(problem.utility.value(np.zeros(n))), np.abs(problem.utility.value(top)))))
    if not np.isfinite(size) or size <= 0:
        return 1e-3 * n
    return min(1e-3 * n, 1e-2 * size)


class TimeLimitReached(GameMarketError):
    """``solve(time_limit=...)`` reached its limit before any allocation with a finite duality gap was found
    (``gamemarket price solve``: exit 3); where one was found, the solve returns it, not converged."""


class _OutOfTime(Exception):
    """Internal: the solve's deadline passed (raised after an evaluation is recorded; ``PriceDiscovery.run``
    returns the best allocation so far)."""


def _left(deadline: float | None) -> float | None:
    """Seconds left before ``deadline`` (a :func:`~gamemarket.errors.limit_clock` reading; None: no limit), at least
    a microsecond (a limit already reached stops a nested solve at its first evaluation)."""
    return None if deadline is None else max(deadline - limit_clock(), 1e-6)


#: jobs below which a solve's per-job loops (numba ``parallel=True``) run on one thread: each parallel region wakes
#: every worker thread, which on a busy machine costs milliseconds a region; a 20 x 2 problem took 5 to 10 s at
#: ``nice 15`` beside a test suite, 0.2 s on one thread (the fuzzer's 120 s limit ran out once), and at 5,000 jobs
#: one thread was still the faster (the whole command 0.67 s against 0.81 s, load 3 on 2 cores)
PARALLEL_MIN_JOBS = 10_000


@contextlib.contextmanager
def threads_for(n: int):
    """Run the block on one of numba's threads where ``n`` jobs are fewer than :data:`PARALLEL_MIN_JOBS` (numba's
    thread count is the calling thread's own, and is put back after)."""
    if n >= PARALLEL_MIN_JOBS:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def constant_part(problem: Problem, lo: np.ndarray) -> float:
    """The objective's part no allocation changes, which a relative stopping rule leaves out: the utilities'
    constant (``Utility.offset``) and, with price floors, the floors' value of the whole capacity ``p_min^T R`` (the
    objective is ``sum_i u_i + p_min^T (R - X^T d)``): a floor of 1e7 on a capacity of 5 made the default's
    "1e-6 relative" gap 5, against a utility of about -93 (hunt 14)."""
    return problem.utility.offset() + float(np.dot(lo, problem.R))


def _number(value, what: str) -> float:
    """A real number argument as a float (its range is the caller's to check), else an :class:`InputError` naming
    it (``eps="x"`` was float()'s ``ValueError``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"{what} must be a number, got {shown_value(value)}")
    return float(value)


def check_device(device) -> str:
    """The ``device`` given to :func:`solve`: a device name PyTorch knows (``cpu``, ``cuda``, ``cuda:0``, ``mps``,
    ``xpu``; only the torch backend takes one other than ``cpu``, which :func:`solve` refuses with numpy's), else an
    :class:`InputError` naming the value (None, 3 or "abc" were ignored by the numpy backend, and a bare error from
    the torch one)."""
    if isinstance(device, str) and DEVICE.fullmatch(device):
        return device
    raise InputError(f"device must be a device name (cpu, cuda, cuda:<index>, mps or xpu), got {shown_value(device)}")


def price_vector(value, m: int, what: str) -> np.ndarray:
    """Prices given to :func:`solve` (``p0``, ``p_min``): one finite number >= 0 per resource (``m``), or one for
    all, as a float64 array of ``m``; else an :class:`InputError` naming ``what`` and the value (two prices for
    three resources were numpy's broadcast ``ValueError``, and a negative start was silently raised to 0)."""
    p, _ = real_numbers(value)  # (bool True was a price of 1, and 10**400 float()'s OverflowError)
    if p is not None and p.ndim == 0:
        p = np.full(m, float(p))
    if p is None or p.shape != (m,) or not np.isfinite(p).all() or (p < 0).any():
        raise InputError(
            f"{what} must be {m} finite number(s) >= 0 (one price per resource, or one for all), got "
            f"{shown_value(value.tolist() if isinstance(value, np.ndarray) else value)}"
        )
    return p


#: alpha-fair problems above this alpha that stop short are solved again along ``ALPHA_PATH``
ALPHA_PATH_FROM = 5.0
#: the exponents of the continuation path, below the problem's own (which ends it)
ALPHA_PATH = (2.0, 5.0, 10.0, 20.0, 30.0, 40.0)


def _alpha_path(problem: Problem, direct: Result, **common) -> Result:
    """An alpha-fair problem solved by continuation in alpha: from alpha = 2 up the path to its own, each
    solve started from its predecessor's answer (``level.path_start``). For large alpha the optimal price level
    is extreme (it scales as ``t^-alpha``), and a start from the utility's guess may not reach it (two
    alpha = 50 stress members stopped 9 to 18 orders of magnitude below it); one exponent at a time the
    prices move a few. The answer is the original problem's, checked by its own gap like any other; it
    replaces ``direct`` only where that gap is smaller."""
    alpha = problem.utility.alpha
    n = problem.shape[0]
    A = np.ascontiguousarray(problem.A, dtype=np.float64)
    order = sort_efficiencies(A)
    steps = [a for a in ALPHA_PATH if a < alpha] + [alpha]
    prices = None
    for k, a in enumerate(steps):
        if common["deadline"] is not None and limit_clock() >= common["deadline"]:
            return direct
        step = copy.copy(problem)
        step.utility = Power(a).bind(n, problem.utility.w, None)
        r = _solve_once(step, prices, **common)
        if k + 1 == len(steps):
            break
        step.utility = Power(steps[k + 1]).bind(n, problem.utility.w, None)
        prices = path_start(step, r, A, order, common["lo"])
        if prices is None:
            return direct
    if not r.gap < direct.gap:
        return direct
    r.message += " (along alpha = " + ", ".join(f"{a:g}" for a in steps) + ", each from its predecessor's prices)"
    r.seconds = time.perf_counter() - common["t0"]
    return r


#: bytes per cell of Newton's ``m x m`` Hessian at its peak (the matrix, the sums it is built from, the solve's copy)
HESSIAN_BYTES_PER_CELL = 40
#: bytes per job and resource of an evaluation with the Hessian, beyond the solve's own (``SOLVE_BYTES_PER_CELL``):
#: it builds every job's envelope (``envelope_arrays``, ``segment``) where the fused kernel does not. Measured with
#: tracemalloc at 54-74 bytes a cell (1e5 x 16, 2e4 x 60, 2e5 x 4); the whole of a Newton solve of 1e5 x 16 peaked
#: 72 MB (45 bytes a cell) above an L-BFGS one's (hunt 27c-F5: the limit passed by 2.3 times, its estimate blind to it)
NEWTON_BYTES_PER_CELL = 64


def _no_newton(problem: Problem, method: str, limit) -> str | None:
    """Why Newton's steps cannot be taken (the utility gives no ``best_response_slope``; the ``m x m`` Hessian does
    not fit ``limit``), or None: ``method="newton"`` is refused for it, before any work (it was found after the
    L-BFGS rounds: "use method='lbfgs'", hunt 23b-F5); ``"auto"`` runs without them. Where the Hessian would not fit,
    50 jobs over 10,000 resources took 3.4 GB under a 300 MB limit (hunt 23c-F2)."""
    if method == "lbfgs":
        return None
    m = problem.shape[1]
    why = None
    if problem.utility.best_response_slope(np.ones(1)) is None:
        why = f"utility {problem.utility.name!r} gives no best_response_slope (the dual's Hessian)"
    else:
        n = problem.shape[0]
        need = HESSIAN_BYTES_PER_CELL * float(m) ** 2
        steps = float(n) * (SOLVE_BYTES_PER_JOB + (SOLVE_BYTES_PER_CELL + NEWTON_BYTES_PER_CELL) * float(m)) + need
        bound = check_limit(limit)
        if bound is not None and need > bound:
            why = (
                f"Newton's {m:,} x {m:,} Hessian needs about {bytes_text(need)} of memory; the limit is "
                f"{bytes_text(bound)} ({limit_source(limit)})"
            )
        elif bound is not None and steps > bound:
            why = (
                f"Newton's steps over {n:,} jobs x {m:,} resources (every job's envelope at each step) need about "
                f"{bytes_text(steps)} of memory; the limit is {bytes_text(bound)} ({limit_source(limit)})"
            )
    if why is not None and method == "newton":
        raise InputError(f"method='newton': {why}; use method='lbfgs' (or 'auto', which leaves Newton's steps out)")
    return why


def _solve_once(
    problem,
    p0,
    *,
    eps,
    rel_eps,
    certified,
    max_iter,
    method,
    lo,
    callback,
    backend,
    device,
    dtype,
    t0,
    deadline,
    limit,
    time_limit,
) -> Result:
    """``solve`` from ``p0`` (None: the utility's guess), identical resources priced as one first;
    ``certified``: the default's relative rule (``default_target``), else ``max(eps, rel_eps |objective|)``."""
    n, m = problem.shape
    warm = None
    groups = identical_columns(problem.A, lo) if p0 is None and m > 1 else []
    if groups:
        # identical resources make every job's choice between them a tie, along which the dual has a
        # kink that stalls L-BFGS and Newton alike: price them as one resource first, then start the
        # original problem from those prices (the allocation among the members is what remains)
        merged, lo_m, index = merged_problem(problem, groups, lo)
        warm = solve(
            merged,
            eps=None if certified else eps,  # the same rule: the merged problem has the same jobs
            max_iter=max_iter,
            rel_eps=rel_eps,
            method=method,
            p_min=lo_m,
            backend=backend,
            device=device,
            dtype=dtype,
            time_limit=_left(deadline),
            limit=limit,
        )
        p0 = warm.prices[index]
        if warm.converged:
            rule = stopping_rule(certified, eps, rel_eps, n, constant_part(problem, lo))
            done = merged_answer(problem, warm, groups, index, lo, rule, t0)
            if done is not None:
                return done
    return PriceDiscovery(
        problem,
        eps=eps,
        rel_eps=rel_eps,
        certified=certified,
        max_iter=max_iter,
        method=method,
        lo=lo,
        callback=callback,
        backend=backend,
        device=device,
        dtype=dtype,
        t0=t0,
        deadline=deadline,
        limit=limit,
        time_limit=time_limit,
    ).run(p0, warm, groups)


class PriceDiscovery:
    """One run of price discovery, its state explicit (``solve`` validates the options and builds one).

    State: ``best`` (the feasible allocation with the smallest gap so far, and its prices), ``low`` (the
    lowest dual value seen: where every round restarts), ``last`` (the latest evaluation, for the
    repair), ``state`` (evaluation and iteration counts), ``rows`` (the trace), ``vars``/``fscale`` (the
    preconditioning of prices and dual values), ``want_h`` (whether the next evaluation computes the
    Hessian) and ``repair_gain`` (repaired gap / cheap gap at the last repair). Phases: L-BFGS-B rounds
    (``_lbfgs_round``), projected Newton (``newton.projected_newton``), recovery of a feasible allocation
    at every evaluation (``repair.make_feasible``) and, when predicted to pay, the greedy repair
    (``repair.repair``).
    """

    def __init__(
        self,
        problem: Problem,
        *,
        eps,
        rel_eps,
        certified,
        max_iter,
        method,
        lo,
        callback,
        backend,
        device,
        dtype,
        t0,
        deadline=None,
        limit=None,
        time_limit=None,
    ):
        self.problem, self.eps, self.rel_eps, self.max_iter, self.method = problem, eps, rel_eps, max_iter, method
        self.lo, self.callback, self.t0 = lo, callback, t0
        #: the time limit's end (a limit_clock reading, or None), and whether it stopped the run; the limit as given
        self.deadline, self.timed_out, self.time_limit = deadline, False, time_limit
        bound = check_limit(limit)
        #: the most resources the polish's Hessian may cover within the memory limit (hunt 24b-F3)
        self.max_resources = None if bound is None else int(np.sqrt(bound / HESSIAN_BYTES_PER_CELL))
        self.n, self.m = problem.shape
        self.target, self.rule = stopping_rule(certified, eps, rel_eps, self.n, constant_part(problem, lo))
        self.certified = certified  #: the default rule, and with it the polish (``try_polish``)
        self.A64 = np.ascontiguousarray(problem.A, dtype=dtype)  # float32 on request: half the memory
        self.order = sort_efficiencies(self.A64)
        self.util = problem.utility
        self.tev = None
        if backend == "torch":
            self.tev = TorchEvaluator(problem, device, single=np.dtype(dtype) == np.float32)
        self.bias = 0.0
        if self.util.smooth:
            amax = self.A64.max(axis=1)
            self.util.mu = eps / (self.n * max(float(np.max(amax)) ** 2, 1e-300))
            self.bias = self.util.mu / 2 * float(np.sum(amax**2))
        self.want_h = False
        self.repair_gain = 0.1  #: repaired gap / cheap gap at the last repair (``try_repair``)
        self.last: dict = {}
        self.H = None
        self.memo = None  #: (prices, dual, gradient) of the latest evaluation without the Hessian (``fun``)
        # Alpha-fair utilities of alpha > 1 have a dual that is a narrow valley in p (prices span orders of
        # magnitude for small changes in throughput: t = (w / slope)^(1/alpha)); L-BFGS then works on
        # z = log((p - p_min) / scale), where it is close to quadratic.
        self.logspace = bool(getattr(self.util, "log_prices", False))
        self.vars = PriceVariables(lo, self.logspace, float(problem.R.sum() + problem.demand.sum()))
        self.finished, self.finished_at = "", None  #: the LP finish's outcome and its starting prices

    # ------------------------------------------------------------------ recovery and bookkeeping
    def rent(self, alloc) -> float:
        """Reserve price earned by unsold capacity: the primal's extra term under price floors."""
        if not self.lo.any():
            return 0.0
        return float(self.lo @ (self.problem.R - alloc.usage_unchecked(self.problem.demand)))

    def record(self, feas: Allocation, q: np.ndarray, dual: float) -> tuple[float, float, np.ndarray]:
        """The gap of a feasible allocation against ``dual`` (at prices ``q``); the best one is kept."""
        t = feas.throughput_unchecked(self.A64)
        with np.errstate(divide="ignore"):
            values = self.problem.utility.value(t)
            primal = float(np.sum(values)) + self.rent(feas)
        gap = dual - primal
        if gap < 0:  # any dual bounds any feasible allocation: below it beyond rounding, the dual is wrong
            self.weak_duality(dual, primal, values, q, lambda: check_feasible(self.problem, feas))
        if np.isfinite(gap) and gap < self.best["gap"]:
            self.best.update(gap=gap, p=q.copy(), alloc=feas, t=t, dual=dual, primal=primal)
        return gap, primal, t

    def weak_duality(self, dual, primal, values, q, feasible=None):
        """An error where the dual bound ``dual`` (at prices ``q``) lies below the objective ``primal`` of a feasible
        allocation (utilities ``values``) beyond rounding (``certificate.check_weak_duality``)."""
        scale = magnitude(np.asarray(values, dtype=np.float64), dual, primal, q, self.problem.R)
        check_weak_duality(
            dual, primal, scale, self.util, self.n, self.A64.dtype, feasible, "the objective of a feasible allocation"
        )

    def try_repair(self, force: bool = False):
        """At most once per iteration: the greedy repair of the latest x(p), when it is predicted to
        reach the target, every 10th iteration, and at the end. The prediction scales the cheap gap
        by what the last repair achieved against its cheap gap (at first by 1/10): on smooth problems
        uniform scaling is nearly as good and a repair, which costs a few passes over the jobs per
        resource, is rarely worth it; on degenerate ones it is what converges."""
        last, problem = self.last, self.problem
        if "alloc" not in last:
            return
        target = self.target(last["primal"]) if np.isfinite(last["primal"]) else self.target(0.0)
        if last["gap"] <= target:
            return
        periodic = self.state["iters"] % 10 == 0
        if force or periodic or last["gap"] <= POLISH_FROM * target:
            self.try_polish()
            if self.done():
                return
        if not (force or last["gap"] * self.repair_gain <= target or periodic):
            return
        q, start = last["q"], last["alloc"]
        untied = last.get("untied")  # the Newton phase's tie mixture (``subgradient``)
        if untied is not None and untied is not start:
            # it keeps every throughput; the repair starts from it when it fits the limits better (in
            # value at these prices) than x(p) does
            def misfit(a):
                return float(q @ np.abs(problem.R - a.usage_unchecked(problem.demand)))

            if misfit(untied) < misfit(start):
                start = untied
        cheap = last["gap"]
        gap = self.record(repair(problem, start, self.A64, self.deadline), q, last["dual"])[0]
        if np.isfinite(gap) and np.isfinite(cheap) and cheap > 0:
            self.repair_gain = float(np.clip(gap / cheap, 1e-3, 1.0))
        last["gap"] = -np.inf  # not again for this point

    def recover_at(self, q):
        """Every recovery (the polish and the greedy repair) of ``x(q)``, outside the iterations."""
        out = evaluate(self.problem, q, self.order, self.A64)
        self.last.clear()
        self.last.update(alloc=out[2], dual=out[0] + self.bias, q=q, gap=np.inf, primal=-np.inf, t=out[3], H=None)
        self.try_repair(force=True)

    def try_polish(self):
        """Once per evaluated point, under the default rule (strictly concave utilities): the Newton step in
        the allocation (``polish``) from the latest ``x(p)``; its gap is recorded like any recovery's.

        A run given ``eps`` recovers as before, so its numbers do not change: with the polish a gap is
        reached at prices further from the optimum's (the gap certifies the objective, not the prices), and
        callers that asked for a loose ``eps`` may rely on the prices the longer run gave. Piecewise-linear
        utilities keep their own finish (``lp_finish``): their smoothed ``x(p)`` is not what they converge to."""
        last = self.last
        if not self.certified or last.get("polished") or "alloc" not in last or not np.isfinite(last["dual"]):
            return
        last["polished"] = True
        out = polish(
            self.problem,
            last["q"],
            last["alloc"],
            last["t"],
            self.A64,
            self.lo,
            max_resources=self.max_resources,
            deadline=self.deadline,
        )
        if out is None:
            return
        feas, q = make_feasible(self.problem, out[0]), last["q"]
        gap, primal, _ = self.record(feas, q, last["dual"])
        if self.done() or not gap <= POLISH_PRICES * self.target(primal):
            return  # certified already (no further evaluation needed), or too far for the Newton prices to help
        # near the target: the polish's own price step is a Newton step of the dual, whose bound there is
        # usually lower (and whose prices are closer to the optimum's); it is evaluated like any other point
        # (a bound at any prices) and the allocation is measured against the lower of the two bounds
        q2 = np.maximum(q + out[1], self.lo)
        if not np.isfinite(q2).all() or np.array_equal(q2, q):
            return
        dual_at_q = last["dual"]  # fun_p refills ``self.last`` (the same dict) with q2's evaluation
        with np.errstate(all="ignore"):
            self.fun_p(q2)
        if self.last["dual"] < dual_at_q:
            self.record(feas, q2, self.last["dual"])

    def finish(self):
        """The finish by the restricted linear program (``lp_finish``: exact for piecewise-linear
        utilities, tangent cuts for smooth ones) from the lowest dual's prices; its allocation and prices
        are kept when they improve the gap. Once per distinct starting point."""
        if np.array_equal(self.finished_at, self.low["p"]) or self.out_of_time():
            return
        self.finished_at = self.low["p"].copy()
        mu, self.util.mu = self.util.mu, 0.0  # the finish works on the original problem
        n, m = self.n, self.m
        try:
            f = lp_finish(
                self.problem,
                self.A64,
                self.order,
                self.low["p"],
                self.lo,
                rounds=20 if n * m <= 100_000 else 6,
                target_gap=self.target,
                deadline=self.deadline,
            )
        finally:
            self.util.mu = mu
        kind = "exact LP finish" if self.util.linear_pieces() is not None else "LP finish with tangent cuts"
        if f is None:
            self.finished = f"{kind} skipped: the restricted program exceeds lp_finish's size limits"
            return
        self.finished = f"{kind}: {f.rounds} rounds, {f.columns} columns, {f.message}"
        if f.on_three:
            self.finished += f"; {f.on_three} job(s) on three or more resources"
        if f.allocation is None:
            return
        gap = f.dual - f.objective
        if gap < 0:
            t = f.allocation.throughput_unchecked(self.A64)
            self.weak_duality(f.dual, f.objective, self.util.value(t), f.prices)
        if gap < self.best["gap"]:
            t = f.allocation.throughput_unchecked(self.A64)
            self.best.update(gap=gap, p=f.prices, alloc=f.allocation, t=t, dual=f.dual, primal=f.objective)
        self.rows.append(
            {
                "evaluation": self.state["evals"],
                "iteration": self.state["iters"],
                "dual": f.dual,
                "primal": f.objective,
                "gap": gap,
                "max_violation": 0.0,
                "seconds": time.perf_counter() - self.t0,
            }
        )

    def untie(self, q, alloc, t, H):
        """x(q) with its tied jobs mixed to fit the limits (``ties``), and the residual subgradient, in
        the metric of the inverse Hessian ``H`` (the identity when ``H`` is unknown)."""
        problem, m = self.problem, self.m
        ts = tie.find_ties(self.A64, problem.demand, q, alloc.j1, alloc.x1, alloc.j2, alloc.x2, t)
        at_floor = q <= self.lo
        lam, w = tie.mix(
            ts,
            alloc.usage_unchecked(problem.demand),
            problem.R,
            problem.demand,
            tie.metric(H, m),
            slack=at_floor if at_floor.any() else None,
            deadline=self.deadline,
        )
        if len(ts) == 0:
            return alloc, w
        return Allocation(*tie.apply(ts, lam, alloc.j1, alloc.x1, alloc.j2, alloc.x2), m), w

    def subgradient(self, q, g, H):
        """For Newton: the minimal subgradient at ``q``; the tie mixture is also a recovery candidate."""
        last = self.last
        if not np.array_equal(last.get("q"), q):
            self.fun_h(q)
        untied, w = self.untie(q, last["alloc"], last["t"], H)
        last["untied"] = untied
        if untied is not last["alloc"]:
            gap = self.record(make_feasible(self.problem, untied), q, last["dual"])[0]
            last["gap"] = min(last["gap"], gap)
        return w

    def fun(self, z):
        """The scaled dual and its gradient in the optimizer's variables (what L-BFGS-B minimizes)."""
        q = self.vars.to_p(z)
        memo = self.memo
        if memo is not None and np.array_equal(memo[0], q) and np.array_equal(self.last.get("q"), q):
            # L-BFGS-B's first call is at the start the run has just evaluated (its scale ``fscale``): the same
            # numbers again, one evaluation (0.1 s at 1e6 x 4) not repeated
            f, grad = memo[1], memo[2]
        else:
            f, grad = self.fun_p(q)
        return f / self.fscale, grad * self.vars.jacobian(z) / self.fscale

    def fun_p(self, q):
        """The dual (plus the smoothing bound) and its gradient at prices ``q``; records the evaluation, its
        feasible allocation and its gap, and keeps the best so far."""
        problem, state, last = self.problem, self.state, self.last
        if self.tev is not None and not self.want_h:
            out = self.tev(q, self.util.mu)
        else:
            out = evaluate(problem, q, self.order, self.A64, hessian=self.want_h)
        dual, grad, alloc = out[0], out[1], out[2]
        self.H = out[4] if self.want_h else None
        smoothed = dual
        dual = dual + self.bias  # an upper bound on the original problem's optimum
        state["evals"] += 1
        # cheap recovery (uniform scaling) every time; the greedy repair, which loses much less
        # utility but costs a few passes over the jobs, only once the cheap gap is near the target
        gap, primal, _ = self.record(make_feasible(problem, alloc), q, dual)
        if np.isfinite(smoothed) and np.isfinite(gap) and smoothed < self.low["f"]:
            self.low.update(f=smoothed, p=q.copy())
        last.clear()
        last.update(alloc=alloc, dual=dual, q=q, gap=gap, primal=primal, t=out[3], H=self.H)
        viol = float(np.maximum(-grad, 0).max() / max(problem.R.max(), 1e-300))
        self.rows.append(
            {
                "evaluation": state["evals"],
                "iteration": state["iters"],
                "dual": dual,
                "primal": primal,
                "gap": gap,
                "max_violation": viol,
                "seconds": time.perf_counter() - self.t0,
            }
        )
        if self.callback:
            self.callback(self.rows[-1])
        # the latest plain evaluation, for ``fun`` (one with the Hessian takes the generic path: not reused)
        self.memo = None if self.want_h else (q.copy(), smoothed, grad)
        if self.out_of_time():  # after the evaluation is recorded: the best allocation so far includes it
            raise _OutOfTime
        return smoothed, grad

    def out_of_time(self) -> bool:
        """Whether the solve's time limit has been reached."""
        return self.deadline is not None and limit_clock() >= self.deadline

    def check_time(self) -> None:
        """Stop the run where its time limit has been reached (between Newton's linear solves: hunt 24b-F3)."""
        if self.out_of_time():
            raise _OutOfTime

    def fun_h(self, q):
        """The dual, its gradient and its exact Hessian at ``q`` (the Newton phase)."""
        f, g = self.fun_p(q)
        if self.H is None:
            raise InputError(f"utility {self.util.name!r} gives no best_response_slope: use method='lbfgs'")
        return f, g, self.H

    def done(self):
        """Whether the best allocation so far meets the stopping rule (``target``: ``max(eps, rel_eps
        |objective|)``, or the default's ``default_target``)."""
        return self.best["gap"] <= self.target(self.best.get("primal", np.inf))

    # ------------------------------------------------------------------ the phases
    def _lbfgs_round(self, p, cap):
        """L-BFGS-B from ``p`` up to iteration ``cap``, restarted from the best prices when its line search
        fails; returns the prices to continue from and scipy's message."""
        from scipy.optimize import minimize  # deferred: scipy.optimize (about a second) only where prices are sought

        state, message = self.state, ""
        for _restart in range(20):
            if state["iters"] >= cap or self.done():
                break

            def stop_at_cap(xk, cap=cap):
                state["iters"] += 1
                self.try_repair()
                if self.done() or state["iters"] >= cap:
                    raise StopIteration

            self.want_h = False
            res = minimize(
                self.fun,
                self.vars.to_z(p),
                jac=True,
                method="L-BFGS-B",
                bounds=self.vars.bounds(),
                callback=stop_at_cap,
                options={
                    "maxiter": cap - state["iters"],
                    "maxfun": self.max_iter * 20,
                    "ftol": 0.0,
                    "gtol": 0.0,
                    "maxcor": 20,
                },
            )
            message = str(res.message)
            if "p" not in self.best:
                break
            p = self.best["p"]  # restart from the best prices so far, with a fresh curvature memory
        return p, message

    def run(self, p0, warm, groups) -> Result:
        """L-BFGS rounds, then Newton from the best prices (``method``), from ``p0`` or the utility's guess;
        the best feasible allocation found, as a ``Result``."""
        message = ""
        try:
            p = self._start(p0, warm)
            message = self._rounds(p)
            self._last_recoveries()
        except _OutOfTime:  # the best allocation recorded so far is the answer (``_result`` says why it stopped)
            self.timed_out = True
        finally:
            self.util.mu = 0.0
        return self._result(message, groups)

    def _start(self, p0, warm):
        """The run's state (continued from ``warm``, the merged problem's answer, where given) and its first
        evaluation, at ``p0`` or the utility's guess (set to its level along the ray, for log prices without
        floors); returns the starting prices."""
        problem, lo, m = self.problem, self.lo, self.m
        p = problem.utility.initial_price(self.A64, problem.R) if p0 is None else np.asarray(p0, dtype=np.float64)
        p = np.maximum(p, lo)
        if p.shape != (m,) or not np.isfinite(p).all() or (p < 0).any():
            raise InputError(f"initial prices must be {m} finite numbers >= 0")
        self.rows = [] if warm is None else list(warm.rows)
        self.best = {"gap": np.inf}
        self.state = {"evals": 0, "iters": 0} if warm is None else {"evals": warm.evaluations, "iters": warm.iterations}
        # Precondition: L-BFGS works on z = p / scale with the dual divided by fscale, so that
        # variables and values are of order one whatever the utility's magnitude (alpha-fair utilities
        # of large alpha have prices near 1e20: unscaled, every step is lost in rounding).
        quiet = np.errstate(over="ignore", invalid="ignore") if p0 is not None else contextlib.nullcontext()
        with quiet:  # (p0 = 1e308 overflowed here, with numpy warnings, then "check the utility and A")
            self.vars.set_scale(p)
            self.fscale = 1.0
            self.low = {"f": np.inf, "p": p.copy()}  #: the lowest dual value seen: where every round restarts
            if self.logspace and p0 is None and not lo.any():
                p = calibrate(self.fun_p, p)
                self.vars.set_scale(p)
            f0 = self.fun_p(p)[0]
        self.bad_start = None if p0 is None or np.isfinite(f0) else float(np.max(p))  # (named if nothing is found)
        self.fscale = max(1.0, abs(f0)) if np.isfinite(f0) else 1.0
        return p

    def _rounds(self, p) -> str:
        """Rounds: L-BFGS (restarted from the best prices when its line search fails), then Newton from the
        best prices ("auto", "newton"); again while iterations remain and the gap still improves. Returns the
        message of the last phase that ran (scipy's, or "Newton")."""
        best, low, state, max_iter, method, done = (
            self.best,
            self.low,
            self.state,
            self.max_iter,
            self.method,
            self.done,
        )
        message = ""
        round_len = max_iter if method == "lbfgs" else (30 if method == "auto" else 0)
        for _round in range(50):
            gap_before, low_before = best["gap"], low["f"]
            cap = min(max_iter, state["iters"] + round_len)
            p, msg = self._lbfgs_round(p, cap)
            message = msg or message
            p = self._after_lbfgs(p)
            if done() or state["iters"] >= max_iter or "p" not in best or method == "lbfgs":
                break
            self._newton_round()
            message = "Newton"
            p = low["p"]
            if self.certified and _round >= 1 and not done() and lp_fits(self.n, self.m, exact=False):
                # small problems (few jobs per resource: m = 32 over 400 jobs) sit on ties and binding
                # capacities the dual method closes only slowly (m = 32: not within 300 iterations): the
                # finish, cheap there, is tried after each round from the second on rather than only after
                # the last (kept only where it improves the gap). Not after the first: where the dual method
                # converges in its second round it keeps every job on at most two resources, which the
                # finish's vertex may not (synthetic(500, 4, seed 3): two jobs on three)
                self.finish()
            progress = best["gap"] < gap_before or low["f"] < low_before - 1e-12 * abs(low_before)
            self.stalled = not progress and not done() and state["iters"] < max_iter
            if done() or state["iters"] >= max_iter or method == "newton" or not progress:
                break
        return message

    def _after_lbfgs(self, p):
        """After an L-BFGS round short of the target: the exact finish for piecewise-linear utilities (worth
        trying early), and for log prices without floors the price level set again; the prices to go on from."""
        best, done = self.best, self.done
        if not done() and "p" in best and self.util.linear_pieces() is not None:
            self.finish()
        if self.logspace and not self.lo.any() and not done() and "p" in best:
            # the price level is the dual's flattest direction for large alpha (its curvature falls
            # like 1/alpha), while ties put kinks across the others: L-BFGS can stall far from the
            # level that clears the market. The line search along the ray that started the run is
            # repeated from the lowest dual seen (``low`` then holds the better level)
            calibrate(self.fun_p, self.low["p"].copy())
            p = self.low["p"]
        return p

    def _newton_round(self):
        """Projected Newton with the dual's exact Hessian from the best-gap prices, then (when that falls short)
        from the lowest dual seen: the first is where recovery works best, the second where the dual is
        closest to optimal. Up to 30 iterations each ("auto"), or to the cap ("newton")."""
        best, low, state, max_iter, done = self.best, self.low, self.state, self.max_iter, self.done
        self.want_h = True
        for start in (best["p"], low["p"]):
            if done() or state["iters"] >= max_iter:
                break
            if start is low["p"] and np.array_equal(start, best["p"]):
                continue
            newton_cap = max_iter if self.method == "newton" else min(max_iter, state["iters"] + 30)
            projected_newton(
                self.fun_h,
                start.copy(),
                newton_cap,
                done,
                state,
                self.try_repair,
                self.lo,
                self.subgradient,
                check_time=self.check_time,
            )
        self.want_h = False

    def _last_recoveries(self):
        """After the rounds, while the target is not met: the polish and repair at the lowest dual's prices
        (under the default rule), the LP finish from them, and a last repair at the best prices found."""
        best, done = self.best, self.done
        if "p" in best and not done() and self.certified:
            self.recover_at(self.low["p"])  # the polish works best where the dual is lowest
        if "p" in best and not done():
            self.finish()  # from the lowest dual's prices, when they moved since the last finish
        if "p" in best and not done():  # a last repair at the best prices found
            self.recover_at(best["p"])

    def _result(self, message: str, groups) -> Result:
        """The best feasible allocation found as a ``Result``, its message saying whether and how the stopping
        rule was met (``message``: the last phase's, kept only where it was not)."""
        best, state = self.best, self.state
        if "p" not in best and getattr(self, "bad_start", None) is not None:
            raise InputError(
                f"p0: the dual is not finite at these starting prices (largest {self.bad_start:.6g}) and price "
                "discovery found no finite duality gap from them; give smaller ones, or leave p0 out (the utility's "
                "guess)"
            )
        if "p" not in best and self.timed_out:
            raise TimeLimitReached(
                f"price discovery reached its time limit ({self.time_limit:.3g} s) after {state['evals']} "
                "evaluation(s) without an allocation of finite duality gap; give a longer limit"
            )
        if "p" not in best:
            raise GameMarketError("price discovery found no finite duality gap: check the utility and A")
        converged = self.done()
        if converged:
            message = met_message(best["gap"], best["primal"], self.target, self.rule)
        elif self.timed_out:
            target = self.target(best["primal"])
            message = (
                f"stopped at the time limit ({self.time_limit:.3g} s) after {state['iters']} iterations and "
                f"{state['evals']} evaluations with gap {best['gap']:.3g} > {target:.3g} ({self.rule})"
            )
        else:
            target = self.target(best["primal"])
            message = (
                f"stopped after {state['iters']} iterations with gap {best['gap']:.3g} > {target:.3g} ({self.rule})"
            )
            if getattr(self, "stalled", False):  # (hunt 23b-W4: "stopped after 272 iterations" of 500, no reason)
                message += (
                    f", before the cap of {self.max_iter}: its last round of L-BFGS and Newton steps improved neither "
                    "the gap nor the dual"
                )
        if self.finished:
            message += f" ({self.finished})"
        if groups:
            message += f" (identical resources {groups_text(groups)} priced as one first)"
        alloc = best["alloc"]
        viol = check_feasible(self.problem, alloc)
        if viol > 1e-9:
            raise GameMarketError(f"recovered allocation violates a constraint by {viol:.3g} (a bug)")
        return Result(
            alloc,
            best["p"],
            best["t"],
            best["primal"],
            best["dual"],
            best["gap"],
            state["iters"],
            state["evals"],
            bool(converged),
            time.perf_counter() - self.t0,
            list(self.rows),
            message,
        )
