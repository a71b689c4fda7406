"""The outside option: a posted price per node-second with no wait, which a job may take instead of the cluster.

Market model, "The outside option". A job ``i`` that takes it leaves the cluster's workload before the first
allocation step (the cluster never sees it) and gets ``u_i = -w_i tau_i - c tau_i``: it runs at once elsewhere
(flow time = run time) and pays ``c`` per node-second. Who leaves is part of a consumer rule (its share of each
private-bid class that leaves, by each job's leave draw: ``gamemarket.bids.population_stay``), so the population
game, the exploration and the probe decide it. The cluster's revenue, welfare and utilization count the jobs that
stay; ``stay`` is their share of the jobs, and ``welfare_all`` the welfare of everyone: the stayers' valuations plus
each leaver's ``-w_i tau_i - c tau_i`` (the posted price taken as what computing elsewhere costs).

:func:`outside_runner` wraps a market's ``payoff_runner``: the jobs that stay run as a workload of their own (the
same engine, the same numbers as a run of that smaller job table), and the leavers' utilities are filled in.
"""

from __future__ import annotations

import math

import numpy as np

from gamemarket.errors import InputError

#: the fields a run with an outside option adds to its summary
OUTSIDE_FIELDS = ("stay", "welfare_all")


def check_outside_price(value, where: str = "outside_price") -> float:
    """An outside price as a float: finite and >= 0, else an :class:`InputError` naming ``where`` and the value."""
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: expected a finite number >= 0 (a price per node-second), got {value!r}") from None
    if isinstance(value, bool) or not (math.isfinite(c) and c >= 0):
        raise InputError(f"{where}: expected a finite number >= 0 (a price per node-second), got {value!r}")
    return c


def leave_utility(runtime: np.ndarray, private: np.ndarray, outside: float) -> np.ndarray:
    """``-w tau - c tau`` of each job: its utility where it takes the outside option."""
    tau = np.asarray(runtime, dtype=np.float64)
    return -np.asarray(private, dtype=np.float64) * tau - float(outside) * tau


def outside_runner(market, arrays: dict, nodes: int, provider: dict, private: np.ndarray, outside: float | None):
    """``run(reported, group, stay=None) -> (utility, fields)``: ``market.payoff_runner``'s runs where the jobs with
    ``stay`` False take the outside option at price ``outside`` (module docstring).

    With ``outside`` None, no job may leave (a ``stay`` with a False is an :class:`InputError`) and the runs are the
    payoff runner's, unchanged. With an outside price, the fields gain ``stay`` and ``welfare_all``
    (``OUTSIDE_FIELDS``).

    Raises
    ------
    InputError
        A job leaves where no outside price is set, or the market's jobs have no run time (``runtime``), which the
        outside option's utility needs.
    """
    n = market.size(arrays)
    full = market.payoff_runner(arrays, nodes, provider, private)
    if outside is None:

        def run(reported, group, stay=None):
            if stay is not None and not np.all(stay):
                raise InputError(
                    "a consumer rule sends jobs to the outside option, but no outside price is set; expected "
                    "[game] field 'outside_price'"
                )
            return full(reported, group)

        return run
    if "runtime" not in arrays:
        raise InputError(
            f"outside_price: the {market.kind} market's jobs have no run time, which the outside option's utility "
            "(-w tau - c tau) needs; expected a market whose jobs have one (the scheduling market)"
        )
    c = check_outside_price(outside)
    gone = leave_utility(arrays["runtime"], private, c)

    def run(reported, group, stay=None):
        if stay is None or np.all(stay):
            u, fields = full(reported, group)
            return u, {**fields, "stay": 1.0, "welfare_all": fields.get("welfare", 0.0)}
        keep = np.flatnonzero(stay)
        u = gone.copy()
        if keep.size:
            sub = {k: (v[keep] if isinstance(v, np.ndarray) and v.shape[:1] == (n,) else v) for k, v in arrays.items()}
            one = market.payoff_runner(sub, nodes, provider, private[keep])
            u_in, fields = one(np.asarray(reported)[keep], np.asarray(group)[keep])
            u[keep] = u_in
        else:  # nobody stays: the cluster runs nothing
            fields = {"revenue": 0.0, "utilization": 0.0, "welfare": 0.0}
        left = np.ones(n, dtype=bool)
        left[keep] = False
        fields = {**fields, "stay": keep.size / n, "welfare_all": fields["welfare"] + float(gone[left].sum())}
        return u, fields

    return run
