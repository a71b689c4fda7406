"""Small seeded job tables for the conformance checks: random ones, one job, ties, and candidates for preemption.

Every case is a section-8 job table (``id``, ``submit``, ``runtime``, ``estimate``, ``private_bid``,
``reported_bid``, and the optional ``group``, ``swf_job``, ``status`` and ``user``; ids shuffled, so table order,
id order and arrival order differ) with a node count and a reservation price, and a label that says how to make
it again (the generator, its seed and its index). The same seed gives the same cases, with numpy alone (no
hypothesis), so plugin authors' checks and our suite see the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gamemarket.testing.report import check_case_seed, check_count

#: bids drawn from these (duplicates on purpose: ties) or uniformly on [0, 180]
BID_POOL = np.array([0.0, 0.5, 1.0, 7.0, 30.0, 30.0, 150.0])
RESERVES = (0.0, 1.0, 10.0)


@dataclass(frozen=True)
class Case:
    """One run's input: a job table, its node count and reservation price, and a label naming the case."""

    label: str
    table: pd.DataFrame
    nodes: int
    reserve: float

    def describe(self) -> str:
        """The case in a few words: ``random case 3 (seed 0): 7 jobs, 2 nodes, r=1``."""
        return f"{self.label}: {len(self.table)} jobs, {self.nodes} nodes, r={self.reserve:g}"

    def jobs(self) -> list[dict]:
        """The jobs as the plain reference takes them: one dict per row."""
        return self.table.to_dict("records")


def _table(rng: np.random.Generator, submit, runtime, estimate, bids) -> pd.DataFrame:
    J = len(submit)
    ids = rng.permutation(J).astype(np.int64)
    return pd.DataFrame(
        {
            "id": ids,
            "submit": np.asarray(submit, dtype=np.int64),
            "runtime": np.asarray(runtime, dtype=np.int64),
            "estimate": np.asarray(estimate, dtype=np.int64),
            "private_bid": np.asarray(bids, dtype=np.float64),
            "reported_bid": np.asarray(bids, dtype=np.float64),
            # the optional columns a trace's table has, from the ids (no draw: the cases' other numbers stay as
            # they were): a scheduler keyed on one (PriorityKey("group")) failed every check, "KeyError: 'group'",
            # and its preemption check said a non-preemptive scheduler preempts (hunt 18c)
            "group": (ids % 3).astype(np.int64),
            "swf_job": ids + 1,
            "status": np.ones(J, dtype=np.int64),
            "user": (ids % 4).astype(np.int64),
        }
    )


def _bids(rng: np.random.Generator, J: int) -> np.ndarray:
    return np.where(rng.random(J) < 0.5, rng.choice(BID_POOL, J), rng.uniform(0.0, 180.0, J))


def random_cases(count: int = 30, seed: int = 0) -> list[Case]:
    """``count`` random cases: 1-30 jobs; arrivals packed (ties, congestion) or spread (idle gaps); run
    times 1-15 s, estimates 1-30 s (some below the run time); 1-5 nodes; r in {0, 1, 10}.

    Parameters
    ----------
    count : int
    seed : int
        The same seed gives the same cases.

    Returns
    -------
    list of Case
    """
    count, seed = check_count(count, "random_cases: count"), check_case_seed(seed, "random_cases: seed")
    out = []
    for k in range(count):
        rng = np.random.default_rng([seed, k])
        J = int(rng.integers(1, 31))
        spread = int(rng.choice([3, 20, 200]))
        table = _table(
            rng, rng.integers(0, spread + 1, J), rng.integers(1, 16, J), rng.integers(1, 31, J), _bids(rng, J)
        )
        out.append(Case(f"random case {k} (seed {seed})", table, int(rng.integers(1, 6)), float(rng.choice(RESERVES))))
    return out


def one_job_cases(seed: int = 0) -> list[Case]:
    """A single job, on one node and on two, under each reservation price (one below its bid, one above)."""
    seed = check_case_seed(seed, "one_job_cases: seed")
    rng = np.random.default_rng([seed, 1])
    table = _table(rng, [int(rng.integers(0, 10))], [int(rng.integers(1, 16))], [int(rng.integers(1, 31))], [7.0])
    return [Case(f"one job (seed {seed})", table, nodes, reserve) for nodes in (1, 2) for reserve in RESERVES]


def tie_cases(seed: int = 0) -> list[Case]:
    """Cases where keys tie, so the tie rule (submit time, then id) decides: identical jobs but for their
    ids; equal bids; bids proportional to run times and estimates (equal bid per second); two bid values.
    """
    seed = check_case_seed(seed, "tie_cases: seed")
    out = []
    for k in range(4):
        rng = np.random.default_rng([seed, 2, k])
        J = int(rng.integers(4, 16))
        nodes = int(rng.integers(1, 4))
        reserve = float(rng.choice(RESERVES))
        submit = rng.integers(0, 3, J)
        runtime = rng.integers(1, 8, J)
        if k == 0:  # identical jobs but for their ids
            table = _table(rng, np.zeros(J), np.full(J, 5), np.full(J, 5), np.full(J, 7.0))
            label = "identical jobs"
        elif k == 1:
            table = _table(rng, submit, runtime, rng.integers(1, 10, J), np.full(J, 30.0))
            label = "equal bids"
        elif k == 2:  # bid / runtime = bid / estimate = 5 for every job
            table = _table(rng, submit, runtime, runtime, 5.0 * runtime)
            label = "equal bids per second"
        else:
            table = _table(rng, submit, runtime, rng.integers(1, 10, J), rng.choice([1.0, 7.0], J))
            label = "two bid values"
        out.append(Case(f"ties: {label} (seed {seed})", table, nodes, reserve))
    return out


def preemption_candidates(count: int = 60, seed: int = 0) -> list[Case]:
    """Busy cases on one or two nodes, where later arrivals often carry better keys than the running
    jobs: long run times, arrivals over the first few seconds, widely spread bids. A preemptive
    scheduler's check keeps those where the plain reference preempts."""
    count = check_count(count, "preemption_candidates: count")
    seed = check_case_seed(seed, "preemption_candidates: seed")
    out = []
    for k in range(count):
        rng = np.random.default_rng([seed, 3, k])
        J = int(rng.integers(2, 9))
        table = _table(
            rng, rng.integers(0, 11, J), rng.integers(5, 21, J), rng.integers(1, 31, J), rng.uniform(0, 180, J)
        )
        out.append(Case(f"preemption candidate {k} (seed {seed})", table, int(rng.integers(1, 3)), 1.0))
    return out
