"""Payment schemes, registered by name (market model section 5).

A scheme is a numba-compiled *market price* ``M = price(r, n, N, n_waiting, max_waiting_bid)``
evaluated after every allocation step (``N`` present jobs, ``n`` nodes, ``r`` the reservation
price, ``max_waiting_bid = -inf`` when nobody waits). Each running job pays at the rate
``min(max(r, rw_i), M)`` until the next step. The contract's two schemes in that form:

* first price: ``M = r`` if ``N < n`` (some node idle), else ``+inf`` (so the rate is ``max(r, rw_i)``);
* k-th price: ``M = r`` if nobody waits, else ``max(r, max_{j in Q} rw_j)``, so the rate is
  ``max(r, min(rw_i, max_Q rw_j))``.

Adding a scheme: write its market price as an ``@njit`` function and call ``register_payment``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numba import njit

from gamemarket.errors import InputError


@njit(cache=True)
def first_price(reserve, n, n_present, n_waiting, max_waiting_bid):
    if n_present < n:
        return reserve
    return np.inf


@njit(cache=True)
def kth_price(reserve, n, n_present, n_waiting, max_waiting_bid):
    if n_waiting == 0:
        return reserve
    return max(reserve, max_waiting_bid)


@dataclass(frozen=True)
class PaymentScheme:
    name: str
    price: Callable
    description: str


PAYMENTS: dict[str, PaymentScheme] = {}


def register_payment(name: str, price: Callable, description: str) -> PaymentScheme:
    scheme = PaymentScheme(name, price, description)
    PAYMENTS[name] = scheme
    return scheme


register_payment("first", first_price, "first price: r while a node is idle, else max(r, own reported bid)")
register_payment("kth", kth_price, "k-th price: r while nobody waits, else max(r, min(own bid, highest waiting bid))")


def get_payment(name: str) -> PaymentScheme:
    try:
        return PAYMENTS[name]
    except KeyError:
        raise InputError(f"unknown payment scheme {name!r}; expected one of {sorted(PAYMENTS)}") from None
