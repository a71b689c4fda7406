"""How much to trust an equilibrium found from sampled payoffs.

Replications share their random numbers across profiles (common random numbers), so a bootstrap
resample draws replication indices once and applies them to every cell. For each equilibrium:

* its regret in every resampled game, with a percentile confidence interval;
* the share of resamples in which it remains an equilibrium: for a pure equilibrium, the same
  pure profile is an equilibrium of the resampled game; for a mixed one, the resampled game has an
  equilibrium with the same supports (the probabilities move with the payoffs).

Best-response tables and dominated strategies complete the picture.

References
----------
.. [Wiedenbeck2014] B. Wiedenbeck, B.-A. Cassell and M. P. Wellman, "Bootstrap statistics for
   empirical games", AAMAS 2014.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gamemarket.confidence import check_probability
from gamemarket.errors import InputError, check_seed
from gamemarket.games.bimatrix import Game
from gamemarket.games.budget import SearchClock, Stopped, TimeUp
from gamemarket.games.equilibria import Equilibrium, in_unit_spread, tolerance, unchecked_regret
from gamemarket.io.limits import MAX_RESAMPLES, MIN_RESAMPLES, check_fits


@dataclass
class Robustness:
    """How an equilibrium of the mean game fares across bootstrap resamples of the replications
    [Wiedenbeck2014]_: each player's regret (point estimate and 95% CI) and the share of resamples in
    which it stays an equilibrium.
    """

    regret_provider: tuple[float, float, float]  #: point estimate (mean game), CI low, CI high
    regret_consumer: tuple[float, float, float]
    stable_share: float
    resamples: int


def _support_equilibrium(A, B, S, T, tol) -> bool:
    """Does the game (A, B) have an equilibrium with row support S and column support T?"""
    S, T = list(S), list(T)
    m, n = A.shape
    if len(S) == 1 and len(T) == 1:
        i, j = S[0], T[0]
        return A[i, j] >= A[:, j].max() - tol[0] and B[i, j] >= B[i, :].max() - tol[1]

    # column mix y on T making rows in S indifferent: A[S,T] y = v, sum y = 1, solved with the block shifted to a
    # least of 0 and scaled to a greatest of 1 (the same mix): in the game's units, beside the row of ones, a
    # resample of provider payoffs near 1e10 missed the residual's bound of 1e-9 and a mixed equilibrium was never
    # stable (hunt 39c-F1's sibling; payoffs near 1e-10 were solved to noise)
    def solve(M, k):
        M = in_unit_spread(M)
        K = np.zeros((M.shape[0] + 1, k + 1))
        K[:-1, :k] = M
        K[:-1, k] = -1
        K[-1, :k] = 1
        rhs = np.zeros(M.shape[0] + 1)
        rhs[-1] = 1
        sol, *_ = np.linalg.lstsq(K, rhs, rcond=None)
        if np.abs(K @ sol - rhs).max() > 1e-9:
            return None
        return sol[:k]

    y_t = solve(A[np.ix_(S, T)], len(T))
    x_s = solve(B[np.ix_(S, T)].T, len(S))
    if y_t is None or x_s is None:
        return False
    if y_t.min() < -1e-12 or x_s.min() < -1e-12:
        return False
    y = np.zeros(n)
    y[T] = y_t
    x = np.zeros(m)
    x[S] = x_s
    regrets = unchecked_regret(A, B, x, y)  # (the game's units, shifted as every regret is)
    return regrets[0] <= tol[0] and regrets[1] <= tol[1]


def _tolerances(Ms: np.ndarray, rel: float = 1e-9) -> np.ndarray:
    """``equilibria.tolerance`` of each game in a stack (resamples, m, n): ``rel`` times the spread."""
    with np.errstate(over="ignore"):
        spread = Ms.max(axis=(1, 2)) - Ms.min(axis=(1, 2))
    if not np.all(np.isfinite(spread)):
        return np.array([tolerance(M, M, rel)[0] for M in Ms])  # raises the error that names the payoffs
    return rel * np.where(spread > 0, spread, 1.0)


def _resampled(reps: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The games of the bootstrap resamples ``idx`` (resamples x R replication indices) of the payoff draws
    ``reps`` (m, n, R), at once: (resamples, m, n). The same means, bit for bit, as one resample at a time
    (the reference in the tests), since each cell still averages its R draws along the last axis."""
    m, n, R = reps.shape
    step = max(1, 4_000_000 // (m * n * R))  # resamples per chunk: the draws of a chunk fit in memory
    return np.concatenate(
        [np.moveaxis(reps[:, :, idx[a : a + step]].mean(axis=3), 2, 0) for a in range(0, len(idx), step)]
    )


#: resamples between two looks at the bootstrap's clock
CLOCK_EVERY = 256


def bootstrap(
    game: Game,
    equilibria: list[Equilibrium],
    *,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    time_limit: float | None = None,
    progress: bool | None = None,
) -> list[Robustness | None]:
    """Bootstrap robustness of each equilibrium (None for all when the game has < 2 replications). ``resamples``:
    ``io.limits.MIN_RESAMPLES`` to ``MAX_RESAMPLES`` (fewer make the 95% interval the extremes of a handful of
    draws). ``time_limit``: wall-clock seconds (None: none); the bootstrap stopped there raises
    :class:`gamemarket.games.budget.Stopped` saying how far it got (a share of fewer resamples than asked is not
    the robustness asked for). ``progress``: a progress bar on stderr past a few seconds (None: where stderr is a
    terminal)."""
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)):
        raise InputError(f"resamples must be a whole number, got {resamples!r}")
    if not MIN_RESAMPLES <= resamples <= MAX_RESAMPLES:
        raise InputError(
            f"resamples must be >= {MIN_RESAMPLES} and <= {MAX_RESAMPLES:,}, got {resamples}: fewer bootstrap "
            "resamples make a 95% interval the extremes of a handful of draws"
        )
    level = check_probability(level, "level")  # (1.5 was numpy's quantile error; 0 "a 0% interval")
    seed = check_seed(seed)
    if not isinstance(game, Game):
        raise InputError(f"game must be a bimatrix game (gamemarket.games.Game), got {type(game).__name__}")
    if game.A_reps is None or game.A_reps.shape[2] < 2:
        return [None] * len(equilibria)
    R = game.A_reps.shape[2]
    m, n = game.A.shape
    # the draws' indices, both players' resampled payoffs and each equilibrium's regrets, before any is drawn: a million
    # resamples took 594 MB more under a 300 MB limit (hunt 21b-F7)
    check_fits(  # (x 2.5: what a million resamples of a 2 x 3 game took, 300 MB, against the arrays' 136 MB: 22b-F8)
        2.5 * resamples * (8 * R + 16 * m * n + 16 * max(len(equilibria), 1)),
        f"{resamples:,} bootstrap resamples of a {m} x {n} game of {R} replications",
    )
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, R, size=(resamples, R))
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    out = []
    if not equilibria:
        return out
    clock = SearchClock(time_limit, progress=progress)  # (a million resamples ran minutes unseen: hunt 22b-F9)
    As, Bs = _resampled(game.A_reps, idx), _resampled(game.B_reps, idx)
    tol_a, tol_b = _tolerances(As), _tolerances(Bs)
    clock.bar(resamples * len(equilibria), unit="resample", desc=f"bootstrap of {game.title or 'the game'}")
    try:
        for e in equilibria:
            rp, rc, stable = _resampled_regrets(As, Bs, e, (tol_a, tol_b), clock)
            out.append(_robustness(e, rp, rc, stable, resamples, (lo_q, hi_q)))
    except TimeUp:
        of = f" of game {game.title!r}" if game.title else ""
        raise Stopped(
            f"the bootstrap of {resamples:,} resamples{of} stopped {clock.stopped()}, at equilibrium {len(out) + 1} of "
            f"{len(equilibria)}: robustness not computed; ask fewer resamples (--resamples; resamples= in Python) or "
            "a longer time limit (--time-limit; time_limit=)"
        ) from None
    finally:
        clock.close()
    return out


def _resampled_regrets(As, Bs, e: Equilibrium, tols, clock: SearchClock) -> tuple[np.ndarray, np.ndarray, int]:
    """The equilibrium's regrets in each resampled game (both players) and the count of resamples in which its
    supports still hold an equilibrium, the clock looked at every :data:`CLOCK_EVERY` resamples."""
    S, T = e.supports()
    n = len(As)
    rp, rc = np.empty(n), np.empty(n)
    stable = 0
    for k in range(n):
        if k % CLOCK_EVERY == 0:
            clock.check()
            clock.advance(min(CLOCK_EVERY, n - k))
        # one resample at a time: a stacked product would round differently from ``regret``'s
        rp[k], rc[k] = unchecked_regret(As[k], Bs[k], e.x, e.y)
        stable += _support_equilibrium(As[k], Bs[k], S, T, (tols[0][k], tols[1][k]))
    return rp, rc, stable


def _robustness(e: Equilibrium, rp, rc, stable: int, resamples: int, q: tuple[float, float]) -> Robustness:
    return Robustness(
        (e.regret[0], float(np.quantile(rp, q[0])), float(np.quantile(rp, q[1]))),
        (e.regret[1], float(np.quantile(rc, q[0])), float(np.quantile(rc, q[1]))),
        stable / resamples,
        resamples,
    )


def best_responses(game: Game) -> pd.DataFrame:
    """Each player's best responses to every pure strategy of the other (ties listed)."""
    ta, tb = tolerance(game.A, game.B)
    rows = []
    for j, c in enumerate(game.cols):
        col = game.A[:, j]
        best = [game.rows[i] for i in np.flatnonzero(col >= col.max() - ta)]
        rows.append({"player": game.players[0], "against": c, "best_responses": ", ".join(best)})
    for i, r in enumerate(game.rows):
        row = game.B[i]
        best = [game.cols[j] for j in np.flatnonzero(row >= row.max() - tb)]
        rows.append({"player": game.players[1], "against": r, "best_responses": ", ".join(best)})
    return pd.DataFrame(rows)
