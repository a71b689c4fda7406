"""The paper's two payment schemes written as rate functions, as a plugin author would (market model section 5),
with the built-in engine's operations in its order: ``max(rw, r)`` as ``rw if rw >= r else r``, ``min`` as
``c if c < m else m``."""


def first_price(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    if free > 0:  # N < n: some node is idle (no job waits once the step has filled the nodes)
        return reserve
    return bid if bid >= reserve else reserve


def kth_price(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    if waiting == 0:
        return reserve
    m = max(reserve, max_waiting_bid)
    c = bid if bid >= reserve else reserve
    return c if c < m else m


def nan_when_busy(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return reserve if free > 0 else float("nan")


def negative_when_busy(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return reserve if free > 0 else -bid - 1.0
