"""A scheduler: the highest reported bid per estimated node-second first, non-preemptive.

A serial job's estimated node-seconds are its run-time estimate, so the key is ``-reported_bid / estimate``
(a :class:`~gamemarket.market.schedulers.PriorityKey`, which the plain reference and the conformance checks
read): the value a job offers per unit of the machine it asks for, as the user estimated it.

    gamemarket plugin check examples/plugins/bid_per_node_second.py
    gamemarket simulate --plugin examples/plugins/bid_per_node_second.py --scheduler bid-per-node-second
"""

from gamemarket.market import register_scheduler
from gamemarket.market.schedulers import PriorityKey

register_scheduler(
    "bid-per-node-second",
    False,
    PriorityKey("reported_bid", per="estimate", descending=True),
    "the highest reported bid per estimated node-second first, non-preemptive",
)
