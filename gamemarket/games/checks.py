"""Checks of payoff matrices that the games and their solvers share (numpy only: the solvers' registry is read by
the command line, which loads no pandas)."""

from __future__ import annotations

import numpy as np

from gamemarket.errors import InputError


def check_finite(M: np.ndarray, what: str, rows=None, cols=None) -> None:
    """Refuse a payoff matrix with a NaN or infinite entry, naming the entry."""
    M = np.asarray(M, dtype=float)
    bad = ~np.isfinite(M)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        r = rows[idx[0]] if rows is not None else idx[0]
        c = cols[idx[1]] if cols is not None and len(idx) > 1 else (idx[1] if len(idx) > 1 else "")
        raise InputError(f"{what}: payoff at ({r}, {c}) is {float(M[bad][0])!r}; every payoff must be a finite number")
