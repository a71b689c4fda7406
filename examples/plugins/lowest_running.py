"""A payment rule not in the paper: every running job pays the lowest running bid while every node is busy,
else the reservation price.

While a node is idle the provider could sell it to anyone for ``r``, so ``r`` is what the time is worth. When every
node is busy, the marginal running job's bid is what the market values a node-second at; each running job
pays that (floored at ``r``), a uniform price set by the weakest winner rather than, as in the k-th price, by
the strongest loser.

Run it beside the paper's mechanisms::

    gamemarket plugin check examples/plugins/lowest_running.py
    gamemarket simulate --plugin examples/plugins/lowest_running.py --payment lowest-running
"""

from gamemarket.market.payments import payment_rule


@payment_rule("lowest-running", "the lowest running bid while every node is busy, else r")
def lowest_running(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    """The price per node-second of a running job with reported bid ``bid`` until the next allocation step."""
    if free > 0:
        return reserve
    return min_running_bid if min_running_bid > reserve else reserve
