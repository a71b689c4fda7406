"""Highest-Bid written as an event-hook scheduler: the engine's HB, as ``allocate`` (a check, and a template).

After every event the ``n`` present jobs with the highest reported bids run (the earlier submit, then the smaller
id, among equal bids): HB's top-n rule. Run with any payment scheme, it pays what the built-in ``hb`` pays, bit for
bit (``tests/plugins/test_hooks_everywhere.py``), through ``simulate``, a provider strategy and a study alike; it is
pure Python, so it is slower (the how-to says by how much). Copy it to write a scheduler whose choice depends on
the run itself::

    gamemarket simulate --plugin examples/plugins/highest_bid_hooks.py --scheduler hb-hooks --payment kth
"""

from gamemarket.market.hooks import EventScheduler, register_event_scheduler


class HighestBidHooks(EventScheduler):
    """HB's top-n rule: the ``state.nodes`` present jobs with the highest reported bids."""

    name = "hb-hooks"
    description = "Highest-Bid written as event hooks (pure Python; the built-in hb's numbers, slower)"

    def allocate(self, t, state):
        """The ``state.nodes`` present jobs with the highest bids, then the earlier submit, then the id."""
        jobs = state.jobs

        def order(i):
            return (-float(jobs[i]["reported_bid"]), int(jobs[i]["submit"]), i)

        return sorted(state.waiting | state.running, key=order)[: state.nodes]


register_event_scheduler(HighestBidHooks())
