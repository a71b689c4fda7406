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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from gamemarket.errors import InputError
from gamemarket.registry import Registry

FIRST_PRICE = 0
KTH_PRICE = 1
#: the rules a scheme may declare (``PaymentScheme.rule``), as the plain reference names them
FIRST_PRICE_RULE = "first price"
KTH_PRICE_RULE = "k-th price"


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


PAYMENTS: Registry[PaymentScheme] = Registry("payment scheme")


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
        Replace a scheme already registered under ``name`` (else that is an error).

    Returns
    -------
    PaymentScheme
    """
    # the plain Python function: calling the compiled one here would start numba's compiler (0.7 s) in
    # every process that imports the market, even one that never runs it
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


def get_payment(name: str) -> PaymentScheme:
    """The payment scheme registered as ``name``; an unknown name is an error listing the known ones."""
    return PAYMENTS.get(name)
