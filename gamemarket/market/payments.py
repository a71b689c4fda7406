"""Payment schemes, registered by name (market model section 5).

A scheme sets a *market price* ``M`` after every allocation step from the state just after it
(``N`` present jobs, ``n`` nodes, the waiting jobs' highest reported bid, ``-inf`` when nobody
waits) and the reservation price ``r``. Each running job pays at the rate ``min(max(r, rw_i), M)``
until the next step. The contract's two schemes in that form:

* first price: ``M = r`` if ``N < n`` (some node idle), else ``+inf`` (so the rate is ``max(r, rw_i)``);
* k-th price: ``M = r`` if nobody waits, else ``max(r, max_{j in Q} rw_j)``, so the rate is
  ``max(r, min(rw_i, max_Q rw_j))``.

Adding a scheme: give it a new code, add its branch to ``market_price`` and call
``register_payment``; the engine calls ``market_price`` with the code and needs no change.
(A code rather than a function argument keeps the engine cacheable on disk, so worker processes
load it instead of compiling it.)

A scheme also declares its ``rule``: what the code's branch means, in words the plain reference
(``gamemarket.testing.reference``) knows (``FIRST_PRICE_RULE``, ``KTH_PRICE_RULE``); it computes each
running job's rate from the rule on its own, and the conformance checks
(``gamemarket.testing.check_payment``) hold the engine to it. A scheme without a rule the reference knows
is refused there by name.

A scheme from outside the package (a plugin, ``gamemarket.plugins``) is a *rate function* instead of a
code: ``rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid)``, the price per
node-second a running job with reported bid ``bid`` pays until the next allocation step, from the state
just after the step (``free`` idle nodes, ``waiting`` jobs waiting, the highest waiting bid, ``-inf``
when none waits, and the lowest running bid, ``+inf`` when none runs). It is plain Python over floats and
integers; the engine compiles it with numba (``rates.plugin_engine``), and runs it uncompiled where
asked (``jit=False``) or where numba cannot compile it, with the same numbers.
:func:`register_payment_rule` (or the decorator :func:`payment_rule`) registers one.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from gamemarket.errors import InputError, check_flag, check_text, check_whole, shown_value
from gamemarket.registry import PLUGIN_HINT, Registry

FIRST_PRICE = 0
KTH_PRICE = 1
#: the code of a scheme given as a rate function (``register_payment_rule``): no branch in ``market_price``
RATE_FUNCTION = -1
#: the rules a scheme may declare (``PaymentScheme.rule``), as the plain reference names them
FIRST_PRICE_RULE = "first price"
KTH_PRICE_RULE = "k-th price"
#: the rule of a scheme given as a rate function: the plain reference calls the function itself
RATE_FUNCTION_RULE = "rate function"
#: the payment of a blend (``simulate.Mechanism.blend``): ``alpha`` times the first price's rate plus ``1 - alpha``
#: times the k-th price's, both floored by the reserve (market model, "Parametric mechanisms"); not a registered
#: scheme
BLEND = "blend"
#: a rate function's parameters, in order
RATE_PARAMETERS = ("bid", "reserve", "nodes", "free", "waiting", "max_waiting_bid", "min_running_bid")


class RateValueError(InputError):
    """A rate function returned what is not a number (a text, a bool, None, a tuple, an array)."""


def rate_value(rate: Callable, value) -> float:
    """What a rate function ``rate`` returned, as a float: a real number (an ``int``, a ``float``, a numpy scalar)
    that a float holds, else :class:`RateValueError` naming the function and the value. ``float()`` alone took
    ``"1.5"`` and ``True`` as prices, ``"abc"`` was its own ``ValueError`` and ``10**400`` its ``OverflowError``
    (each said to be the function's), where the compiled function gave another number."""
    fn = f"rate function {getattr(rate, '__qualname__', rate)!r}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise RateValueError(
            f"{fn} returned {shown_value(value)} ({type(value).__name__}); expected a number (a price per node-second)"
        )
    try:
        return float(value)
    except OverflowError:  # a Python integer (a Fraction) beyond float range
        raise RateValueError(
            f"{fn} returned {shown_value(value)} ({type(value).__name__}), beyond float range; expected a number a "
            "float holds (a price per node-second)"
        ) from None


#: numpy's errors while a rate function computes in plain Python: raised, not warned. A numpy scalar that
#: overflows (``np.uint8(bid) - np.uint8(200)`` wraps to 56; ``np.float32(bid) * 1e30 * 1e10`` is inf) gave a price
#: with one warning line, where numba's compiled form gave another number (hunt 16b): now an error in both paths
RATE_ERRORS = {"over": "raise", "divide": "raise", "invalid": "raise"}


def plain_rate(rate: Callable, *args) -> float:
    """``rate(*args)`` in plain Python under :data:`RATE_ERRORS`, as a price (:func:`rate_value`): what the
    plain engine, the compiled form's probe and the reference each call."""
    with np.errstate(**RATE_ERRORS):
        value = rate(*args)
    return rate_value(rate, value)


@njit(cache=True)
def market_price(scheme, reserve, n, n_present, n_waiting, max_waiting_bid):
    """The market price ``M`` of scheme ``scheme`` after an allocation step."""
    if scheme == FIRST_PRICE:
        if n_present < n:
            return reserve
        return np.inf
    if scheme == KTH_PRICE:
        if n_waiting == 0:
            return reserve
        return max(reserve, max_waiting_bid)
    return np.nan


@dataclass(frozen=True)
class PaymentScheme:
    """A payment scheme: its name, the code of its branch in the engine's ``market_price`` kernel, a
    description of the rule, and the rule it declares (``FIRST_PRICE_RULE``, ...; ``None``: undeclared),
    which the plain reference reproduces.
    """

    name: str
    code: int
    description: str
    rule: str | None = None  #: the declared semantics, in the plain reference's words
    rate: Callable | None = None  #: a rate function (``register_payment_rule``), else None
    source: str | None = None  #: the plugin that registered it (``gamemarket.plugins``: path and text hash)
    jit: bool = True  #: compile ``rate`` with numba (False: run it as plain Python, the same numbers)


PAYMENTS: Registry[PaymentScheme] = Registry("payment scheme", hint=PLUGIN_HINT)


def _not_blend(name: str) -> None:
    """``blend`` names the built-in blend of first and k-th price (``simulate.Mechanism``): no scheme may take it."""
    if name == BLEND:
        raise InputError(
            f"payment scheme {name!r}: the name is reserved for the blend of first and k-th price "
            "(payment = 'blend', blend = alpha); choose another name"
        )


def register_payment(
    name: str, code: int, description: str, *, rule: str | None = None, replace: bool = False
) -> PaymentScheme:
    """Register a payment scheme under ``name`` (studies and the CLI then accept it).

    Parameters
    ----------
    name : str
    code : int
        Its branch in ``market_price``; a code without one is an :class:`InputError`.
    description : str
        One line, shown by the CLI's help.
    rule : str, keyword-only, optional
        What the branch computes, as the plain reference names it (``FIRST_PRICE_RULE``,
        ``KTH_PRICE_RULE``); the conformance checks compare the engine with the reference's rule.
    replace : bool, keyword-only
        Replace a scheme already registered under ``name`` (else that is an error); a built-in one
        (``first``, ``kth``) is never replaced.

    Returns
    -------
    PaymentScheme
    """
    check_text(name, "register_payment: name")
    code = check_whole(code, f"payment scheme {name!r}: code (its branch in market_price)")
    check_text(description, f"payment scheme {name!r}: description")
    check_text(rule, f"payment scheme {name!r}: rule (as the plain reference names it)", none=True)
    replace = check_flag(replace, f"payment scheme {name!r}: replace")
    # the plain Python function: calling the compiled one here would start numba's compiler (0.7 s) in
    # every process that imports the market, even one that never runs it
    _not_blend(name)
    if np.isnan(market_price.py_func(code, 1.0, 1, 1, 1, 1.0)):
        raise InputError(f"payment scheme {name!r}: code {code} has no branch in market_price")
    return PAYMENTS.register(name, PaymentScheme(name, code, description, rule), replace=replace)


register_payment(
    "first",
    FIRST_PRICE,
    "first price: r while a node is idle, else max(r, own reported bid)",
    rule=FIRST_PRICE_RULE,
)
register_payment(
    "kth",
    KTH_PRICE,
    "k-th price: r while nobody waits, else max(r, min(own bid, highest waiting bid))",
    rule=KTH_PRICE_RULE,
)
PAYMENTS.seal()  # built in: never replaced (``Registry.seal``)


def register_payment_rule(
    name: str, rate: Callable, description: str, *, jit: bool = True, replace: bool = False
) -> PaymentScheme:
    """Register a payment scheme given as a rate function (a plugin's scheme; the module docstring).

    Parameters
    ----------
    name : str
    rate : callable
        ``rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid) -> float``: the price
        per node-second of a running job, plain Python that numba can compile (floats, integers, ``math``).
        A price that is NaN, negative or infinite stops the run with an error naming the job.
    description : str
        One line, shown by the CLI's help.
    jit : bool, keyword-only
        Compile ``rate`` with numba (default); False runs the engine's plain-Python path (slower, the same
        numbers), as where numba cannot compile the function.
    replace : bool, keyword-only
        Replace a scheme already registered under ``name`` (else that is an error); a built-in one
        (``first``, ``kth``) is never replaced.

    Returns
    -------
    PaymentScheme
    """
    check_text(name, "register_payment_rule: name")
    jit = check_flag(jit, f"payment scheme {name!r}: jit")
    replace = check_flag(replace, f"payment scheme {name!r}: replace")
    what = f"payment scheme {name!r}: rate function {getattr(rate, '__name__', rate)!r}"
    if not callable(rate):
        raise InputError(f"{what}: expected a function, got {type(rate).__name__}")
    try:
        params = list(inspect.signature(rate).parameters.values())
    except (TypeError, ValueError):
        params = None
    plain = params is not None and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    if not plain or len(params) != len(RATE_PARAMETERS):
        got = "?" if params is None else ", ".join(str(p) for p in params)
        raise InputError(f"{what}: takes ({got}); expected {len(RATE_PARAMETERS)} ({', '.join(RATE_PARAMETERS)})")
    _not_blend(name)
    if not isinstance(description, str) or not description.strip():  # (as a family's and an event scheduler's)
        raise InputError(f"payment scheme {name!r}: description: expected a non-empty text, got {description!r}")
    entry = PaymentScheme(name, RATE_FUNCTION, description, RATE_FUNCTION_RULE, rate, None, bool(jit))
    return PAYMENTS.register(name, entry, replace=replace)


def payment_rule(name: str, description: str, *, jit: bool = True, replace: bool = False) -> Callable:
    """Decorator form of :func:`register_payment_rule`: ``@payment_rule("lowest", "...")`` over the rate
    function registers it and returns it unchanged."""

    def deco(rate: Callable) -> Callable:
        register_payment_rule(name, rate, description, jit=jit, replace=replace)
        return rate

    return deco


def get_payment(name: str) -> PaymentScheme:
    """The payment scheme registered as ``name``; an unknown name is an error listing the known ones (and the
    blend, which is not a registered scheme: ``simulate.Mechanism``)."""
    try:
        return PAYMENTS.get(name)  # the registry's lookup (it may load a shipped plugin's entry first)
    except InputError:
        if isinstance(name, str) and name == BLEND:  # (an array: "truth value of an empty array is ambiguous")
            raise InputError(
                f"payment scheme {name!r}: the blend of first and k-th price is a mechanism's payment "
                "(simulate.Mechanism with blend = alpha), not a registered scheme"
            ) from None
        also = f", or {BLEND!r} with its 'blend' (alpha in [0, 1])"
        raise InputError(PAYMENTS.unknown_message(name, also)) from None
