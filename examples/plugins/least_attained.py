"""An event-hook scheduler: least attained service first, preemptive (not of the priority-key form).

After every event the ``n`` present jobs that have run least so far run, the higher reported bid first among
equals (then the earlier submit, then the id). What a job has received changes as the run goes, so no key
computed before the run can rank the jobs: the scheduler is written as event hooks
(:mod:`gamemarket.market.hooks`), here only ``allocate``, and runs in the pure-Python loop ``run_hooks``::

    from gamemarket.market.hooks import run_hooks
    run_hooks(table, 16, "least-attained", payment="kth")
"""

from gamemarket.market.hooks import EventScheduler, register_event_scheduler


class LeastAttained(EventScheduler):
    """Least attained service first (a job's run time so far), the higher bid first among equals."""

    name = "least-attained"
    description = "least attained service first, preemptive; ties: higher reported bid, earlier submit, id"

    def allocate(self, t, state):
        """The ``state.nodes`` present jobs with the least run time so far."""
        present = state.waiting | state.running
        jobs = state.jobs

        def order(i):
            return (state.attained[i], -float(jobs[i]["reported_bid"]), int(jobs[i]["submit"]), i)

        return sorted(present, key=order)[: state.nodes]


register_event_scheduler(LeastAttained())
