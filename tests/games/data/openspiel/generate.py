"""Make the alpha-rank fixtures of ``alpharank.json`` with OpenSpiel (see PROVENANCE).

Two steps, as gamemarket and OpenSpiel live in different environments:

1. ``PYTHONPATH=. .venv/bin/python tests/games/data/openspiel/generate.py export /tmp/alpharank-tables.json``
   (gamemarket's environment): every game below as one payoff table per player (a role-symmetric game's players
   each a population of their own: the tables of its normal form).
2. ``/tmp/osenv/bin/python tests/games/data/openspiel/generate.py compute /tmp/alpharank-tables.json
   tests/games/data/openspiel/alpharank.json`` (a venv with ``open-spiel==2.0.2``): OpenSpiel's
   ``alpharank.compute`` on each table set, at each alpha and in the infinite-alpha limit.
"""

import itertools
import json
import sys

import numpy as np

GAMES = {
    "prisoners-dilemma": ([[3, 0], [5, 1]], [[3, 5], [0, 1]]),
    "matching-pennies": ([[1, -1], [-1, 1]], [[-1, 1], [1, -1]]),
    "battle-of-sexes": ([[2, 0], [0, 1]], [[1, 0], [0, 2]]),
    "rock-paper-scissors-biased": ([[0, -1, 2], [1, 0, -1], [-1, 1, 0]], [[0, 1, -1], [-2, 0, 1], [1, -1, 0]]),
}
FILES = [
    "reports/default/data/game-all-jobs.nfg",
    "reports/shudler2010/data/game-all-jobs.nfg",
    "reports/population-default/data/game-hb-first.json",
    "reports/population-default/data/game-provider-consumers.json",
    "reports/population-shudler2010/data/game-wspt-kth.json",
    "tests/games/data/gameanalysis/game.json",
]
ALPHAS = [0.1, 1.0, 10.0, 100.0]  # times 1 / (the largest payoff spread of the game)


def export(out: str) -> None:
    from gamemarket.games.bimatrix import Game
    from gamemarket.games.egta import read_egta
    from gamemarket.games.io import read_nfg
    from gamemarket.games.rsgame import as_role_symmetric

    games = {k: Game(np.array(a, float), np.array(b, float)) for k, (a, b) in GAMES.items()}
    for f in FILES:
        games[f] = read_nfg(f) if f.endswith(".nfg") else read_egta(f)
    tables = {}
    for name, g in games.items():
        rsg = as_role_symmetric(g)
        seats = [r for r, n in enumerate(rsg.players) for _ in range(n)]
        sizes = [rsg.num_strategies[r] for r in seats]
        index = {tuple(row): i for i, row in enumerate(rsg.profiles.tolist())}
        out_tables = np.zeros((len(seats), *sizes))
        for prof in itertools.product(*(range(k) for k in sizes)):
            counts = np.zeros(rsg.num_all_strategies, int)
            flat = [int(rsg.role_starts[r]) + s for r, s in zip(seats, prof)]
            for i in flat:
                counts[i] += 1
            p = index[tuple(counts.tolist())]
            for k, i in enumerate(flat):
                out_tables[(k, *prof)] = rsg.payoffs[p, i]
        spread = max(
            float(np.ptp(rsg.payoffs[:, rsg.role_index == r][rsg.profiles[:, rsg.role_index == r] > 0]))
            for r in range(len(rsg.roles))
        )
        tables[name] = {
            "roles": list(rsg.roles),
            "seats": [rsg.roles[r] for r in seats],
            "strategies": [list(rsg.strategies[r]) for r in seats],
            "tables": out_tables.tolist(),
            "alphas": [a / spread for a in ALPHAS],
        }
    with open(out, "w") as fh:
        json.dump(tables, fh)


def compute(tables_file: str, out: str) -> None:
    from open_spiel.python.egt import alpharank, utils

    with open(tables_file) as fh:
        tables = json.load(fh)
    fixtures = {}
    for name, t in tables.items():
        payoffs = [np.array(x) for x in t["tables"]]
        sizes = [len(s) for s in t["strategies"]]
        profiles = [utils.get_strat_profile_from_id(np.array(sizes), i).tolist() for i in range(int(np.prod(sizes)))]
        runs = []
        for alpha in t["alphas"]:
            try:
                _, _, pi, _, _ = alpharank.compute(payoffs, m=50, alpha=alpha)
            except ValueError as exc:  # OpenSpiel's eigenvector: more than one eigenvalue near 1
                runs.append({"alpha": alpha, "m": 50, "error": str(exc)})
                continue
            runs.append({"alpha": alpha, "m": 50, "pi": pi.tolist()})
        _, _, pi, _, _ = alpharank.compute(payoffs, m=50, alpha=1.0, use_inf_alpha=True, inf_alpha_eps=0.01)
        runs.append({"alpha": None, "m": 50, "eps": 0.01, "pi": pi.tolist()})
        fixtures[name] = {k: t[k] for k in ("roles", "seats", "strategies")} | {"profiles": profiles, "runs": runs}
    with open(out, "w") as fh:
        json.dump(fixtures, fh, indent=1)


if __name__ == "__main__":
    export(sys.argv[2]) if sys.argv[1] == "export" else compute(sys.argv[2], sys.argv[3])
