"""The hypothesis strategies the tests share: generated workloads, markets, games and mixtures."""

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from gamemarket.games.rsgame import RoleSymmetricGame


@st.composite
def workloads(draw):
    J = draw(st.integers(1, 30))
    spread = draw(st.sampled_from([3, 20, 200]))  # small spread: ties and congestion; large: idle gaps
    submits = draw(st.lists(st.integers(0, spread), min_size=J, max_size=J))
    runtimes = draw(st.lists(st.integers(1, 15), min_size=J, max_size=J))
    estimates = draw(st.lists(st.integers(1, 30), min_size=J, max_size=J))
    bid_pool = st.sampled_from([0.0, 0.5, 1.0, 7.0, 30.0, 30.0, 150.0]) | st.floats(0, 180, allow_nan=False)
    bids = draw(st.lists(bid_pool, min_size=J, max_size=J))
    ids = draw(st.permutations(list(range(J))))
    n = draw(st.integers(1, 5))
    reserve = draw(st.sampled_from([0.0, 1.0, 10.0]))
    table = pd.DataFrame(
        {
            "id": ids,
            "submit": submits,
            "runtime": runtimes,
            "estimate": estimates,
            "private_bid": bids,
            "reported_bid": bids,
        }
    )
    return table, n, reserve


@st.composite
def job_sets(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 7))
    pool = st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 2, allow_nan=False)
    A = np.array(draw(st.lists(st.lists(pool, min_size=m, max_size=m), min_size=n, max_size=n)))
    if draw(st.booleans()) and m > 1:
        A[:, 1] = A[:, 0]  # identical resource columns
    A[:, 0] = np.maximum(A[:, 0], 0.05)  # log utilities need one positive efficiency per job
    P = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0, 5), min_size=m, max_size=m)))
    return A, P, draw(st.integers(0, 2**31))


@st.composite
def tied_markets(draw):
    """Small markets whose prices put many jobs on ties: integer-ish efficiencies and prices
    proportional to a column, so that ``p_k / a_ik = p_l / a_il`` for many jobs and resources."""
    n = draw(st.integers(2, 14))
    m = draw(st.integers(2, 6))
    vals = st.sampled_from([0.0, 0.5, 1.0, 2.0, 4.0]) | st.floats(0.05, 3, allow_nan=False)
    A = np.array(draw(st.lists(st.lists(vals, min_size=m, max_size=m), min_size=n, max_size=n)))
    A[:, 0] = np.maximum(A[:, 0], 0.5)
    base = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 4.0]), min_size=m, max_size=m)))
    p = base * draw(st.sampled_from([0.05, 0.3, 1.0, 3.0]))
    demand = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    return A, p, demand, draw(st.integers(0, 2**31))


@st.composite
def small_games(draw, max_players=4, max_strategies=3, max_roles=2):
    roles = draw(st.integers(1, max_roles))
    players = [draw(st.integers(1, max_players)) for _ in range(roles)]
    strategies = [draw(st.integers(1, max_strategies)) for _ in range(roles)]
    seed = draw(st.integers(0, 2**31))
    return RoleSymmetricGame.random(players, strategies, np.random.default_rng(seed))


@st.composite
def mixtures(draw, game, zeros=True):
    x = np.array([draw(st.floats(0.0 if zeros else 0.01, 1.0)) for _ in range(game.num_all_strategies)])
    for a, k in zip(game.role_starts, game.num_strategies):
        if x[a : a + k].sum() == 0:
            x[a] = 1.0
    return game.normalize(x)


def random_role_symmetric(seed: int) -> RoleSymmetricGame:
    """A random game of 1 or 2 roles of 2-5 players and 2-3 strategies, all drawn from ``seed``: the sweeps' games
    (the QRE and the role-symmetric search were swept over these seeds; a seed a sweep found names its game)."""
    rng = np.random.default_rng(seed)
    roles, players, strategies = int(rng.integers(1, 3)), int(rng.integers(2, 6)), int(rng.integers(2, 4))
    return RoleSymmetricGame.random([players] * roles, [strategies] * roles, rng)
