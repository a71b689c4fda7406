"""Workloads that exercise the engine's internals, shared by the engine's and the plugin engine's tests."""

import numpy as np
import pandas as pd


def bursts(J: int, seed: int) -> pd.DataFrame:
    """Wide parallel jobs split into serial ones: bursts of up to 400 jobs with one submit time and run time,
    so that the waiting, bid and completion heaps all outgrow their first size (``FIRST_HEAP``)."""
    rng = np.random.default_rng(seed)
    widths = rng.integers(1, 400, J)
    cum = np.cumsum(widths)
    P = int(np.searchsorted(cum, J)) + 1
    widths = widths[:P]
    widths[-1] -= cum[P - 1] - J
    submit = np.repeat(np.sort(rng.integers(0, J // 40, P)), widths)
    runtime = np.repeat(rng.integers(1, 200, P), widths)
    bids = rng.choice([1.0, 30.0, 150.0], J) + np.round(rng.random(J), 2) * (rng.random(J) < 0.7)
    return pd.DataFrame(
        {
            "id": np.arange(J),
            "submit": submit,
            "runtime": runtime,
            "estimate": runtime + 5,
            "private_bid": bids,
            "reported_bid": bids,
        }
    )
