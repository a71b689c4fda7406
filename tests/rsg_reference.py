"""Plain reference implementations for role-symmetric games (test oracles, no vectorisation).

Deviation payoffs by enumerating every assignment of strategies to the other players, one player
at a time; replicator dynamics and a support polish written from the textbook definitions.
"""

from __future__ import annotations

import itertools

import numpy as np


def deviation_payoffs(game, x):
    """E[payoff of s | one player plays s, every other player draws from x], by brute force."""
    x = np.asarray(x, dtype=float)
    starts, ks, N = game.role_starts, game.num_strategies, game.players
    table = {tuple(p): pay for p, pay in zip(game.profiles.tolist(), game.payoffs)}
    out = np.zeros(len(x))
    for s in range(len(x)):
        r_s = game.role_index[s]
        others = [N[r] - (1 if r == r_s else 0) for r in range(len(N))]
        choices = []
        for r, n in enumerate(others):
            choices += [list(range(starts[r], starts[r] + ks[r]))] * n
        total = 0.0
        for assign in itertools.product(*choices):
            prob = np.prod([x[a] for a in assign]) if assign else 1.0
            if prob == 0:
                continue
            prof = np.zeros(len(x), dtype=int)
            for a in assign:
                prof[a] += 1
            prof[s] += 1
            total += prob * table[tuple(prof)][s]
        out[s] = total
    return out


def regret(game, x, brute_force=False):
    """Largest gain of a deviation; from the game's own deviation payoffs unless ``brute_force``
    (those are checked against the brute-force sum on small games in test_rsgame)."""
    dev = deviation_payoffs(game, x) if brute_force else game.deviation_payoffs(x)
    best = 0.0
    for r, (a, k) in enumerate(zip(game.role_starts, game.num_strategies)):
        u = float(np.dot(x[a : a + k], dev[a : a + k]))
        best = max(best, float(dev[a : a + k].max()) - u)
    return best


def replicator_then_polish(game, starts, iters=3000, converged=1e-5):
    """Replicator dynamics from each start, then Newton on the support's indifference conditions.

    Only runs whose dynamics came to rest (regret below ``converged`` before the polish) count:
    Newton from a point still on its way somewhere reaches an equilibrium that depends on the path.
    """
    found = []
    for x in starts:
        x = np.array(x, dtype=float)
        vals = game.payoffs[game.profiles > 0]
        lo = vals.min() - 1e-3 * (vals.max() - vals.min())
        for _ in range(iters):
            dev = game.deviation_payoffs(x)
            y = x * (dev - lo)
            for a, k in zip(game.role_starts, game.num_strategies):
                y[a : a + k] /= y[a : a + k].sum()
            x = y
        if regret(game, x) > converged:
            continue
        supp = x > 1e-4
        z = np.where(supp, x, 0.0)
        for _ in range(30):  # Newton with a finite-difference Jacobian

            def F(v):
                dev = game.deviation_payoffs(v)
                res = []
                for a, k in zip(game.role_starts, game.num_strategies):
                    idx = [a + j for j in range(k) if supp[a + j]]
                    res += [dev[i] - dev[idx[0]] for i in idx[1:]] + [sum(v[i] for i in idx) - 1]
                return np.array(res)

            idx = np.flatnonzero(supp)
            f0 = F(z)
            J = np.zeros((len(f0), len(idx)))
            for c, i in enumerate(idx):
                e = np.zeros(len(z))
                e[i] = 1e-7
                J[:, c] = (F(z + e) - F(z - e)) / 2e-7
            z[idx] = z[idx] + np.linalg.lstsq(J, -f0, rcond=None)[0]
        if np.all(z >= -1e-12):
            z = np.clip(z, 0, None)
            found.append(z)
    return found
