"""Make the logit QRE fixtures of ``logit.json`` with Gambit (see PROVENANCE).

``/tmp/osenv/bin/python tests/games/data/gambit/generate.py tests/games/data/gambit/logit.json`` (a venv with
``pygambit``): for each game, Gambit's principal branch at a few ``lambda`` (``logit_solve_lambda``), its limit
(``nash.logit_solve``) and a fitted ``lambda`` (``qre.logit_estimate``) for made-up counts, each player's payoffs
divided by their spread (``A``, ``B`` as written: what Gambit was given).
"""

import json
import sys

import numpy as np
import pygambit as gbt

CLASSIC = {
    "prisoners-dilemma": ([[3, 0], [5, 1]], [[3, 5], [0, 1]]),
    "matching-pennies": ([[1, -1], [-1, 1]], [[-1, 1], [1, -1]]),
    "battle-of-sexes": ([[2, 0], [0, 1]], [[1, 0], [0, 2]]),
    "rock-paper-scissors-biased": ([[0, -1, 2], [1, 0, -1], [-1, 1, 0]], [[0, 1, -1], [-2, 0, 1], [1, -1, 0]]),
}
FILES = ["reports/default/data/game-all-jobs.nfg", "reports/shudler2010/data/game-short-jobs.nfg"]
LAMBDAS = [0.5, 1.0, 2.0, 5.0, 10.0]


def main(out: str) -> None:
    games = {}
    rng = np.random.default_rng(46)
    for name, (a, b) in CLASSIC.items():
        games[name] = (np.array(a, float), np.array(b, float))
    for k, (m, n) in enumerate([(2, 2), (3, 3), (3, 4), (4, 4), (4, 3)]):
        games[f"random-{k}-{m}x{n}"] = (
            rng.integers(-9, 10, (m, n)).astype(float),
            rng.integers(-9, 10, (m, n)).astype(float),
        )
    fixtures = {}
    for name, payoffs in list(games.items()) + [(f, None) for f in FILES]:
        print(name, flush=True)
        raw = gbt.read_nfg(name) if payoffs is None else gbt.StrategicGame.from_arrays(*payoffs)
        # each player's payoffs in units of their spread (gamemarket's default; Gambit traces raw payoffs of 1e7
        # with steps of 0.03 in lambda, which does not end)
        A, B = (np.array(x, float) / (np.ptp(np.array(x, float)) or 1.0) for x in raw.to_arrays())
        g = gbt.StrategicGame.from_arrays(A, B)
        lams = LAMBDAS
        points = gbt.qre.logit_solve_lambda(g, lams)
        limit = gbt.nash.logit_solve(g).equilibrium
        counts = [list(np.arange(1, k + 1, dtype=float)) for k in A.shape]
        data = g.mixed_strategy_profile([list(c) for c in counts])
        fit = gbt.qre.logit_estimate(data)
        fixtures[name] = {
            "A": A.tolist(),
            "B": B.tolist(),
            "lambdas": [float(p.lam) for p in points],
            "points": [[float(v) for pl in g.players for _, v in p.profile[pl]] for p in points],
            "limit": [float(v) for pl in g.players for _, v in limit[pl]],
            "observed": [v for c in counts for v in c],
            "fit_lambda": float(fit.lam),
            "fit_log_like": float(fit.log_like),
            "fit_profile": [float(v) for pl in g.players for _, v in fit.profile[pl]],
        }
    with open(out, "w") as fh:
        json.dump(fixtures, fh, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
