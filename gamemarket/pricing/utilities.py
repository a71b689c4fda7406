"""Job utilities for price discovery (pricing model section 2), vectorized over jobs.

A utility needs three things:

* ``value(t)``: the utility of throughput ``t`` (per job: ``t`` of shape ``(n,)``, the result too);
* ``best_response(s)``: the maximizer over ``t >= 0`` of ``u(t) - s t`` for a linear cost of slope
  ``s`` (one slope per job, shape ``(n,)``; ``inf`` means "as much as possible"). The maximizer of
  ``u(t) - c(t)`` for a piecewise-linear convex ``c`` follows from it (``maximize``, below), because an
  optimum sits where ``u'`` crosses the envelope's slopes: ``best_response_matrix`` calls it once per
  envelope segment, each time with shape ``(n,)``;
* ``marginal(t)``: ``u'(t)`` per job (the initial price guess, the repair and the LP finish read it).

New utilities subclass ``Utility`` and register with ``register_utility``; ``best_response_matrix`` or
``maximize`` may be overridden where a closed form over the whole envelope is faster. What a new
utility's methods return is checked as they return it (:data:`RETURNS`, :func:`check_return`): a wrong
shape, values that are no numbers, or NaN is an :class:`~gamemarket.errors.InputError` naming the class,
the method and what was expected, never a numpy error from deep inside the solver.

References
----------
.. [Agrawal2022] A. Agrawal, S. Boyd, D. Narayanan, F. Kazhamiaka and M. Zaharia, "Allocation of fungible
   resources via a fast, scalable price discovery method", Mathematical Programming Computation 14 (2022)
   593-622.
"""

from __future__ import annotations

import functools
import inspect
import math
import re

import numpy as np

from gamemarket.errors import InputError, check_flag, check_real, shown_name, shown_value, underflows
from gamemarket.pricing.envelope import U_LINEAR, U_POWER, U_TARGET
from gamemarket.registry import Registry


class Utility:
    """A job utility ``u(t)`` of throughput, vectorized over jobs (pricing model section 2)
    [Agrawal2022]_.

    Subclasses define ``value``, ``best_response`` and ``marginal``; ``bind`` sets the per-job
    parameters (weights, and targets where the utility has them). The solver reads ``smooth``,
    ``mu`` and ``log_prices``; ``fused`` hands the built-in utilities to the compiled kernel.
    A subclass defined outside this module has what its methods return checked against
    :data:`RETURNS` on every call (:func:`install_checks`; the built-in ones are not wrapped).

    Parameters
    ----------
    weight : array_like, optional
        Per-job weights ``w`` (default: set by ``bind``, 1 for every job).
    """

    name = "utility"
    needs_positive_throughput = False  #: True when u(0) = -inf (log, alpha >= 1)

    def fused(self):
        """(code, alpha, target array) for the fused kernel, or None for the generic numpy path."""
        return None

    def offset(self) -> float:
        """The constant part of the utilities' sum, which no allocation changes (0 but for alpha-fair utilities):
        the stopping rule's relative terms read the objective without it."""
        return 0.0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__ != __name__:  # a custom utility: its returns are checked (the built-in ones run as written)
            install_checks(cls)

    def __init__(self, weight=None):
        self.weight = None if weight is None else checked_weight(weight, f"{type(self).__name__}: weight")

    def bind(self, n: int, weight=None, target=None) -> "Utility":
        """Per-job parameters, validated: ``weight`` (the problem's), else the weights the utility was made with
        (``Linear(weight=...)``: replaced by ones before, a different problem solved without a word), else ones."""
        own = getattr(self, "weight", None)
        if weight is not None and own is not None and not np.array_equal(np.asarray(weight), np.asarray(own)):
            raise InputError("utility weight given twice, to the utility and to the problem, and they differ; give one")
        weight = own if weight is None else weight
        w = np.ones(n) if weight is None else one_per(weight, "utility weight", n, "entry per job")
        _check_per_job(w, "utility weight")
        self.w = w
        return self

    def value(self, t):
        """The utility of throughput ``t``, per job.

        Parameters
        ----------
        t : ndarray, shape (n,)

        Returns
        -------
        ndarray, shape (n,)
            Floats (integers are taken as floats), never NaN at a finite ``t``; ``-inf`` where ``u(t)`` is (as
            ``log``'s at 0).
        """
        raise NotImplementedError

    def best_response(self, s):
        """The maximizer over ``t >= 0`` of ``u(t) - s t`` (with the smoothing ``-mu/2 t^2`` where set), per job.

        Parameters
        ----------
        s : ndarray, shape (n,)
            Each job's marginal cost of throughput.

        Returns
        -------
        ndarray, shape (n,)
            Floats, never NaN at a finite ``s``; ``inf`` where the job wants as much as it can get.
        """
        raise NotImplementedError

    #: strength of the quadratic smoothing ``-mu/2 t^2`` (set by the solver for piecewise-linear utilities)
    mu = 0.0
    smooth = False  #: the solver smooths this utility (its dual is piecewise linear otherwise)
    log_prices = False  #: L-BFGS on log prices (see ``solver.solve``)

    def marginal(self, t):
        """``u'(t)`` per job: ``t`` of shape ``(n,)``, a float array of shape ``(n,)`` back, never NaN at a finite
        ``t`` (``inf`` where ``u'`` is unbounded, as ``log``'s at 0). The initial price guess, the repair and the LP
        finish read it."""
        raise NotImplementedError

    def linear_pieces(self):
        """``(w, cap)`` when ``u(t) = w min(t, cap) + const`` per job (a linear program: ``lp_finish``),
        else None."""
        return None

    def initial_price(self, A, R):
        """Each resource priced at an average job's marginal value of it at the fair-share throughput
        ``t0 = sum_j R_j mean_i(a_ij) / n``. An override returns one finite price per resource, shape ``(m,)``."""
        n = A.shape[0]
        col = A.mean(axis=0)
        t0 = max(float(np.sum(np.minimum(R, n) * col)) / n, 1e-12)
        mv = float(np.median(self.marginal(np.full(n, t0))))
        return np.asarray(np.maximum(mv, 0.0) * col, dtype=np.float64)

    def maximize(self, T, S, K):
        """Per job, the throughput maximizing ``u(t) - c(t)`` for the envelope with vertices ``T``
        (``T[:, 0] = 0``), slopes ``S`` (segment k runs from ``T[:, k-1]`` to ``T[:, k]``) and ``K``
        segments: ``t* = min(T_K, min_k max(h(S_k), T_{k-1}))`` with ``h = best_response_matrix``. An override
        returns each job's throughput, a finite float array of shape ``(n,)``."""
        n, width = S.shape
        seg = np.arange(1, width + 1)[None, :] <= K[:, None]
        h = self.best_response_matrix(S)
        cand = np.where(seg, np.maximum(h, T[:, :-1]), np.inf)
        tK = np.take_along_axis(T, K[:, None], axis=1)[:, 0]
        return np.minimum(tK, cand.min(axis=1))

    def best_response_matrix(self, S):
        """:meth:`best_response` for a matrix of slopes ``S``, shape ``(n, K)`` (one row per job, one column per
        envelope segment; ``inf`` beyond a job's last segment), as a float array of the same shape, never NaN at a
        finite slope. This default calls :meth:`best_response` once per column, with shape ``(n,)`` as its contract
        says (it was handed the whole matrix, and a ``best_response`` written to that contract died in numpy's
        broadcasting, hunt 25c-F2); an override computes the whole matrix at once (the built-in utilities do)."""
        S = np.asarray(S)
        H = np.empty(S.shape, dtype=np.float64)
        for k in range(S.shape[1]):
            H[:, k] = self.best_response(np.ascontiguousarray(S[:, k]))  # (checked: install_checks)
        return H

    def best_response_slope(self, s):
        """``d best_response / d s`` per job (<= 0), for the Newton price update; None when unknown. An override
        returns, for ``s`` of shape ``(n,)``, a float array of shape ``(n,)``, never NaN at a finite ``s``."""
        return None


class Linear(Utility):
    """``u(t) = w t``."""

    name = "linear"

    smooth = True

    def fused(self):
        """The fused kernel's code for ``w t``."""
        return U_LINEAR, 0.0, np.zeros_like(self.w)

    def linear_pieces(self):
        """``(w, inf)``: ``u(t) = w t``."""
        return self.w, np.full(len(self.w), np.inf)

    def value(self, t):
        """``w t``."""
        return self.w * t

    def marginal(self, t):
        """``w`` for every throughput."""
        return self.w + 0 * t

    def _h(self, s, w):
        if self.mu > 0:
            with np.errstate(all="ignore"):
                return np.maximum(0.0, (w - s) / self.mu)
        return np.where(s < w, np.inf, 0.0)

    def best_response_matrix(self, S):
        """:meth:`best_response` per job and segment slope."""
        return self._h(S, self.w[:, None])

    def best_response(self, s):
        """``(w - s) / mu`` clipped at 0 with smoothing ``mu > 0``; without it ``inf`` where ``s < w``, else 0."""
        return self._h(s, self.w)

    def best_response_slope(self, s):
        """``-1/mu`` where the smoothed best response is positive, else 0."""
        if self.mu <= 0:
            return np.zeros_like(s)
        return np.where((self.w - s) / self.mu > 0, -1.0 / self.mu, 0.0)


#: the largest alpha-fair exponent accepted: t^-100 stays finite for throughputs down to about 1e-3
MAX_ALPHA = 100.0


class Power(Utility):
    """Alpha-fair ``u(t) = w t^(1-alpha) / (1-alpha)`` (log for alpha = 1)."""

    def __init__(self, alpha: float):
        try:  # (True was alpha 1: the log; 10**30 was a TypeError from np.isfinite)
            alpha = check_real(alpha, "alpha", minimum=0.0, above=True)
        except InputError:
            raise InputError(f"alpha must be a finite number > 0, got {shown_value(alpha)}") from None
        if alpha > MAX_ALPHA:
            raise InputError(
                f"alpha {alpha:g} is above {MAX_ALPHA:g}: the marginal utility t^-alpha overflows float64 "
                f"for throughputs below 10^(-308/alpha); as alpha grows the allocation tends to max-min "
                f"fairness, which alpha = {MAX_ALPHA:g} already approximates"
            )
        self.alpha = float(alpha)
        self.name = "log" if self.alpha == 1.0 else f"alpha:{self.alpha:g}"
        self.needs_positive_throughput = self.alpha >= 1.0
        # the solver's L-BFGS works on log prices (t = (w / slope)^(1/alpha): for alpha > 1 the dual
        # is a narrow valley in p)
        self.log_prices = self.alpha > 1.0

    def value(self, t):
        """``w t^(1-alpha) / (1-alpha)``, or ``w log t`` for alpha = 1 (``-inf`` at ``t = 0`` when alpha >= 1); 0 for a
        job of weight 0, whatever its throughput (it values nothing: ``0 log 0`` was NaN, and a problem with such a job
        found "no finite duality gap", hunt 21b-F2)."""
        t = np.asarray(t, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.alpha == 1.0:
                u = self.w * np.log(t)
            else:
                u = self.w * t ** (1 - self.alpha) / (1 - self.alpha)
        return np.where(np.broadcast_to(self.w, np.shape(u)) == 0, 0.0, u)

    def _h(self, s, w):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.alpha == 1.0:
                h = w / s
            else:
                h = (w / s) ** (1.0 / self.alpha)
        return np.where(s <= 0, np.inf, np.where(w > 0, h, 0.0))

    def best_response(self, s):
        """``(w / s)^(1/alpha)`` (``w / s`` for log); ``inf`` where ``s <= 0``, 0 where ``w = 0``."""
        return self._h(s, self.w)

    def best_response_matrix(self, S):
        """:meth:`best_response` per job and segment slope."""
        return self._h(S, self.w[:, None])

    def fused(self):
        """The fused kernel's code and this utility's alpha."""
        return U_POWER, self.alpha, np.zeros_like(self.w)

    def offset(self) -> float:
        """``sum(w) / (1 - alpha)``: ``w t^(1-alpha) / (1-alpha)`` is that plus ``w (t^(1-alpha) - 1) / (1-alpha)``,
        which tends to the log utility as alpha tends to 1 (0 for log itself)."""
        return 0.0 if self.alpha == 1.0 else float(np.sum(self.w)) / (1.0 - self.alpha)

    def marginal(self, t):
        """``w t^-alpha``."""
        return self.w * np.asarray(t, dtype=np.float64) ** (-self.alpha)

    def best_response_slope(self, s):
        """``d h / d s = -h / (alpha s)`` for the best response ``h``; 0 where it is not finite."""
        h = self._h(s, self.w)
        with np.errstate(all="ignore"):
            d = -h / (self.alpha * s)
        return np.where(np.isfinite(d), d, 0.0)


class Log(Power):
    """``u(t) = w log t`` (proportional fairness)."""

    def __init__(self):
        super().__init__(1.0)


class Target(Utility):
    """``u(t) = -w max(0, t_des - t)``: each job wants throughput ``t_des`` and values shortfall linearly."""

    name = "target"

    def bind(self, n, weight=None, target=None):
        """Per-job weights and desired throughputs ``target`` (required: finite, >= 0, one per job)."""
        super().bind(n, weight)
        if target is None:
            raise InputError("the target utility needs a per-job 'target' (desired throughput)")
        t = one_per(target, "target", n, "desired throughput per job")
        _check_per_job(t, "target")
        self.t_des = t
        return self

    def offset(self) -> float:
        """``-sum(w t_des)``: ``u(t) = w min(t, t_des) - w t_des``. Read into the objective, a distant target
        (1e6) made the stopping rule's relative floor 3 against the documented 1e-3 n = 0.03, and the solver
        stopped at a gap of 2.5 with prices 26% below the LP's duals."""
        return -float(np.sum(self.w * self.t_des))

    smooth = True

    def fused(self):
        """The fused kernel's code and the per-job targets."""

        return U_TARGET, 0.0, self.t_des

    def linear_pieces(self):
        """``(w, t_des)``: ``u(t) = w min(t, t_des) - w t_des``."""
        return self.w, self.t_des

    def value(self, t):
        """``-w max(0, t_des - t)``."""
        return -self.w * np.maximum(0.0, self.t_des - t)

    def marginal(self, t):
        """``w`` below the target, 0 above it."""
        return np.where(t < self.t_des, self.w, 0.0)

    def initial_price(self, A, R):
        """The base guess; where it is zero (the fair share meets most targets), a tenth of what a job of
        median weight and average efficiency would pay at most (``w a_j``): the dual has a kink at zero
        prices, where every job is indifferent between resources, and L-BFGS finds no descent there."""
        p = super().initial_price(A, R)
        if not (p > 0).any():
            p = 0.1 * float(np.median(self.w)) * np.asarray(A.mean(axis=0), dtype=np.float64)
        return p

    def _h(self, s, w, td):
        if self.mu > 0:
            with np.errstate(all="ignore"):
                return np.minimum(td, np.maximum(0.0, (w - s) / self.mu))
        return np.where(s < w, td, 0.0)

    def best_response(self, s):
        """``min(t_des, max(0, (w - s) / mu))`` with smoothing; without it ``t_des`` where ``s < w``, else 0."""
        return self._h(s, self.w, self.t_des)

    def best_response_matrix(self, S):
        """:meth:`best_response` per job and segment slope."""
        return self._h(S, self.w[:, None], self.t_des[:, None])

    def best_response_slope(self, s):
        """``-1/mu`` where the smoothed best response is strictly between 0 and the target, else 0."""
        if self.mu <= 0:
            return np.zeros_like(s)
        v = (self.w - s) / self.mu
        return np.where((v > 0) & (v < self.t_des), -1.0 / self.mu, 0.0)


UTILITIES: Registry = Registry("utility")
for _name, _factory in (("linear", Linear), ("log", Log), ("target", Target)):
    UTILITIES.register(_name, _factory)
UTILITIES.seal()  # built in: never replaced (``Registry.seal``)


def register_utility(name: str, factory, *, replace: bool = False) -> None:
    """Register a utility under ``name``: ``factory()`` returns a fresh :class:`Utility` (``make_utility``
    and ``Problem`` then accept the name); ``replace`` replaces one already registered (never a built-in one:
    ``gamemarket.registry``). A factory that is no callable is refused here (``'abc'`` registered, and every use
    of the name was a TypeError).
    """
    if not callable(factory):
        raise InputError(
            f"register_utility: factory must be a Utility subclass or a function returning a Utility, got "
            f"{factory!r:.80}"
        )
    replace = check_flag(replace, "register_utility: replace")  # ('no', [] or 0 were taken as themselves)
    UTILITIES.register(name, factory, replace=replace)


def make_utility(spec: str | Utility) -> Utility:
    """``linear``, ``log``, ``target``, ``alpha:<value>`` (or ``power:<value>``), or a Utility instance."""
    if isinstance(spec, Utility):
        return spec
    if not isinstance(spec, str):  # (an object whose str() was a utility's name was taken as that name)
        raise InputError(
            f"utility must be a name (linear, log, target, alpha:<value>) or a gamemarket.pricing.Utility, got "
            f"{shown_value(spec)} ({type(spec).__name__})"
        )
    m = re.fullmatch(r"(alpha|power):([0-9.eE+-]+)", str(spec).strip())
    if m:
        try:
            a = float(m.group(2))
        except ValueError:
            raise InputError(f"utility {spec!r}: alpha must be a number") from None
        text = m.group(2)
        if (a == 0 and underflows(text)) or math.isinf(a):  # (as written: "alpha:1e-400" was "got 0.0", hunt 31b-W3)
            where = "below the float range (it reads as 0)" if a == 0 else "beyond the float range"
            raise InputError(f"utility {spec!r}: alpha {text} is {where}; expected a finite number > 0")
        try:
            return Log() if a == 1.0 else Power(a)
        except InputError as exc:
            raise InputError(f"utility {spec!r}: {exc}") from None
    if isinstance(spec, str) and spec in UTILITIES:
        made = UTILITIES[spec]()
        if not isinstance(made, Utility):
            raise InputError(f"utility {spec!r}: its factory returned {made!r:.80}, not a gamemarket.pricing.Utility")
        return made
    raise InputError(f"unknown utility {shown_name(spec)}; expected linear, log, target or alpha:<value>")


#: what a :class:`Utility` must define (pricing model section 2), each with the methods that stand for it: its value,
#: its best response to a linear cost (or, for the envelope, ``best_response_matrix`` or ``maximize`` in its place) and
#: its marginal utility (the initial price guess, the repair and the LP finish read it)
REQUIRED_METHODS = (
    ("value", ("value",)),
    ("best_response", ("best_response", "best_response_matrix", "maximize")),
    ("marginal", ("marginal",)),
)


def check_complete(utility: Utility) -> Utility:
    """``utility`` where its class defines every method of :data:`REQUIRED_METHODS`, else an :class:`InputError`
    naming the class and the missing methods (``class Bare(Utility): pass`` was a bare ``NotImplementedError``, with
    no text, from ``marginal`` once a solve had started)."""
    cls = type(utility)
    missing = [
        name for name, options in REQUIRED_METHODS if all(getattr(cls, m, None) is getattr(Utility, m) for m in options)
    ]
    if missing:
        raise InputError(
            f"utility {cls.__name__} does not define {', '.join(missing)} (a Utility must define value(t), "
            "best_response(s) and marginal(t): see gamemarket.pricing.utilities.Utility)"
        )
    install_checks(cls)  # (a method set on the class after it was made: checked as well)
    return utility


#: what each method of a custom :class:`Utility` returns to the solver, checked on every call (:func:`check_return`):
#: the arguments it is given, the shape expected (``"same"``: the first argument's, ``"jobs"``: one per row of ``S``,
#: ``"resources"``: one per column of ``A``), and what each entry is. A wrong shape, values that are no numbers
#: (objects, text, booleans, complex) or a NaN are an :class:`InputError` naming the class, the method and this
#: (hunt 25c-F2/W6: a bare numpy ValueError or TypeError, or "no finite duality gap", naming neither)
RETURNS = {
    "value": ("t", "same", "u(t) at each entry of t, never NaN at a finite t (-inf where u(t) is, as log's at 0)"),
    "marginal": ("t", "same", "u'(t) at each entry of t, never NaN at a finite t (+inf where u' is unbounded)"),
    "best_response": (
        "s",
        "same",
        "the maximiser over t >= 0 of u(t) - s t at each entry of s, never NaN at a finite s (+inf where the job "
        "wants as much as it can get)",
    ),
    "best_response_matrix": (
        "S",
        "same",
        "best_response at each entry of S (one row per job, one column per envelope segment), never NaN at a "
        "finite slope (+inf where the job wants as much as it can get)",
    ),
    "best_response_slope": ("s", "same", "d best_response / d s (<= 0) at each entry of s, never NaN at a finite s"),
    "maximize": ("T, S, K", "jobs", "each job's throughput, finite"),
    "initial_price": ("A, R", "resources", "one finite price per resource"),
}
#: the attribute that marks a method already wrapped by :func:`checked_method`
CHECKED = "__gamemarket_checked__"


def install_checks(cls: type) -> None:
    """Wrap each method of :data:`RETURNS` that ``cls`` has from outside this module (a custom utility's own, or
    inherited from a mixin) in :func:`checked_method`, on ``cls`` itself; the built-in utilities' methods, and
    methods already wrapped, stay as they are. Called when a subclass is made and again by :func:`check_complete`."""
    for method in RETURNS:
        raw = inspect.getattr_static(cls, method, None)
        if inspect.isfunction(raw) and raw.__module__ != __name__ and not getattr(raw, CHECKED, False):
            setattr(cls, method, checked_method(method, raw))


def checked_method(method: str, func):
    """``func`` (a utility's ``method``) with what it returns passed through :func:`check_return`."""

    @functools.wraps(func)
    def checked(self, *args, **kwargs):
        return check_return(self, method, func(self, *args, **kwargs), args, kwargs)

    setattr(checked, CHECKED, True)
    return checked


def _given(method: str, args, kwargs):
    """The argument the result of ``method`` answers, entry by entry or by its shape (None where not given)."""
    names = RETURNS[method][0].split(", ")
    at = 1 if method == "maximize" else 0  # maximize(T, S, K): S; initial_price(A, R): A; else the only argument
    if len(args) > at:
        return np.asarray(args[at])
    return None if names[at] not in kwargs else np.asarray(kwargs[names[at]])


def check_return(utility: Utility, method: str, out, args=(), kwargs=None):
    """``out``, what ``utility.method(*args, **kwargs)`` returned, as a float array once it is what :data:`RETURNS`
    says (``best_response_slope`` may return None), else an :class:`InputError` naming the utility's class, the
    method, what it returned and what was expected."""
    arg, rule, meaning = RETURNS[method]
    given = _given(method, args, kwargs or {})
    if given is None or (out is None and method == "best_response_slope"):
        return out
    shape = {"same": given.shape, "jobs": given.shape[:1], "resources": given.shape[1:2]}[rule]
    # (the solver asks best_response_slope(np.ones(1)) whether there is one: a per-job answer is fine there)
    probe = method == "best_response_slope" and given.shape == (1,)
    expected = f"expected a float array of shape {shape}: {meaning}"
    head = f"utility {type(utility).__name__}: {method}({arg}) returned"
    try:
        arr = np.asarray(out)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{head} {shown_value(out)} ({exc}); {expected}") from None
    if arr.dtype.kind not in "iuf":
        kind = "an object array" if arr.dtype.kind == "O" else f"{arr.dtype} values"
        shown = shown_value(arr.flat[0]) if arr.size else "none"
        raise InputError(f"{head} {kind} (such as {shown}), not a numeric array; {expected}")
    if arr.shape != shape and not probe:
        raise InputError(f"{head} an array of shape {arr.shape}; {expected}")
    arr = arr if arr.dtype.kind == "f" else arr.astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(arr) if rule != "same" else np.isnan(arr) & np.isfinite(given)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        value = float(arr[at])
        said = f" where {arg} = {float(np.broadcast_to(given, arr.shape)[at]):.6g}" if rule == "same" else ""
        raise InputError(
            f"{head} {'NaN' if np.isnan(value) else value} at entry {at[0] if len(at) == 1 else at}{said} "
            f"({int(bad.sum()):,} of {arr.size:,} entries {'NaN' if rule == 'same' else 'not finite'}); {expected}"
        )
    return arr


def one_per(value, what: str, count: int, each: str) -> np.ndarray:
    """A per-job or per-resource array (``R``, ``demand``, ``weight``, ``target``) as float64 of exactly the documented
    shape ``(count,)`` (pricing model section 1), else an :class:`InputError` naming ``what``, its shape and the shape
    expected. One rule for all of them: an ``R`` of shape (1, 3), (3, 1) or (1, 1, 3), or a demand of (20, 1), were
    flattened in silence while a weight of (50, 1) was refused (hunt 18b-W1); a (3, 1) is as likely a transposed
    mistake as anything."""
    arr = per_job_numbers(value, what)
    if arr.shape != (count,):
        raise InputError(f"{what} must have shape ({count},), one {each}, got shape {arr.shape}")
    return arr


def per_job_numbers(value, what: str) -> np.ndarray:
    """Numbers given per job (weights, targets, demands) or per resource (capacities) as float64, else an
    :class:`InputError` naming ``what``: text ('1' was read as 1.0) and booleans (True as 1: a capacity of
    ``[True, False]`` made a resource of capacity 0) are not numbers anyone wrote."""
    if isinstance(value, np.ma.MaskedArray) and np.ma.count_masked(value):  # (the mask was ignored)
        raise InputError(f"{what} is a masked array with masked entries; the mask would be ignored: give the values")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be numbers, got {value!r:.80} ({exc})") from None
    if arr.dtype.kind == "O":  # None, a dict, an object, an integer beyond int64 (10**30): no .item() to show
        raise InputError(
            f"{what} must hold numbers (floats, or integers within int64's range), got {shown_value(value)} "
            f"({type(value).__name__})"
        )
    if arr.dtype.kind not in "iuf":
        shown = arr.flat[0].item() if arr.size else arr.tolist()
        raise InputError(f"{what} must hold numbers (integers or floats), got {arr.dtype} values such as {shown!r}")
    return as_float64(arr, what)


def as_float64(arr: np.ndarray, what: str) -> np.ndarray:
    """``arr`` as float64, the solver's precision; a float wider than it (``np.longdouble``) holding a value float64
    reads as 0 or as infinity is an :class:`InputError` naming the entry (hunt 29b-F5: efficiencies of 1e-4000 in a
    float128 file were zeros to the solver, a vague failure inside it, or a column solved as unused in silence)."""
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        with np.errstate(over="ignore", under="ignore"):
            low = arr.astype(np.float64)
        bad = np.flatnonzero((((low == 0) & (arr != 0)) | (np.isinf(low) & np.isfinite(arr))).ravel())
        if bad.size:
            at = np.unravel_index(int(bad[0]), arr.shape)
            shown = np.format_float_scientific(arr[at], unique=True, trim="-")
            raise InputError(
                f"{what}[{', '.join(str(int(k)) for k in at)}] is {shown} (a {arr.dtype} value): float64, which the "
                f"solver computes in, reads it as {low[at]}; expected numbers float64 holds (rescale them)"
            )
        return low
    return arr.astype(np.float64)


#: the range a problem's numbers may take (efficiencies, limits, demands, weights, targets; zero aside where
#: allowed): within it the dual's sums over millions of jobs and its squares stay finite in float64 (values
#: near 1e300 overflowed in the solver, with numpy warnings and LAPACK errors, and an answer with exit 0)
MAGNITUDE = (1e-12, 1e12)


def check_magnitude(name: str, arr, *, zero: bool = True) -> None:
    """Every value of ``arr`` (None: nothing to check) 0 (where ``zero``) or of a magnitude in :data:`MAGNITUDE`,
    else an :class:`InputError` naming ``name``, the first value outside and how many are; what is expected is said
    as the array may hold it (hunt 31c-W4: "expected 0 or a magnitude ..." of a demand, where a demand of 0 is
    refused)."""
    if arr is None:
        return
    full = np.asarray(arr, dtype=np.float64)
    a = np.abs(full).ravel()
    lo, hi = MAGNITUDE
    bad = np.flatnonzero((a > hi) | ((a > 0) & (a < lo)))
    if len(bad):
        i = int(bad[0])
        at = ", ".join(str(int(k)) for k in np.unravel_index(i, full.shape)) if full.ndim > 1 else str(i)
        raise InputError(  # (a matrix's entry by its row and column: "A[7]" meant A[2, 1], hunt 30c-W1)
            f"{name}[{at}] is {full.ravel()[i]:.6g}: expected {'0 or ' if zero else ''}a magnitude in [{lo:g}, "
            f"{hi:g}] ({len(bad):,} "
            "value(s) outside); rescale the problem's units"
        )


def checked_weight(weight, what: str) -> np.ndarray:
    """Per-job weights given to a utility's constructor (``Linear(weight=...)``), as float64: a 1-D array of at
    least one finite number >= 0 (0, or a magnitude in :data:`MAGNITUDE`), as :class:`Problem` requires of its
    weights; else an :class:`InputError` naming ``what`` and the value. (Text, -3, NaN, True, ``{}`` were kept and
    refused, or not, only once the utility was bound to a problem; a scalar never bound.)"""
    w = per_job_numbers(weight, "utility weight")
    if w.ndim != 1 or w.size == 0:
        raise InputError(
            f"{what} must be one number per job (a 1-D array of at least one number, or None: ones), got "
            f"{shown_value(weight.tolist() if isinstance(weight, np.ndarray) else weight)}"
        )
    _check_per_job(w, "utility weight")
    check_magnitude("utility weight", w)
    return w


def _check_per_job(values: np.ndarray, what: str) -> None:
    """Per-job parameters: finite and >= 0, else an error naming the first job that is not and its value."""
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{what} of job {i} is {values[i]!r}; expected finite numbers >= 0 ({bad.size} job(s) not)")
