"""Small games fast (issue 46's target: the whole answer of a 5 x 5 and a 6 x 6 bimatrix game, pure and mixed,
verified, in at most 5x quantecon's vertex enumeration, in-process, median of 50 games).

    python benchmarks/bench_small_games.py [--games 50]
    python benchmarks/bench_small_games.py --smoke

For each size, 50 random games (uniform payoffs, seed 0): ``gamemarket.games.equilibria.solve`` (dominance, pure
equilibria, every extreme equilibrium by the small games' path, ``vertex_pairs``, each verified by its regret) and,
where quantecon is importable, ``quantecon.game_theory.vertex_enumeration`` on the same games, each timed one game
at a time after a first call (numba's compilation) and compared by their medians; both answers are checked to be the
same set of equilibria. Also the role-symmetric solver (``rsg_equilibria.equilibria``) on random games of up to 4
strategies, for the record (quantecon has no such solver). quantecon is not a dependency: install it where you
run this (``pip install quantecon``), or point ``PYTHONPATH`` at a copy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def _median_ms(fn, items) -> float:
    fn(items[0])  # the first call compiles (or loads numba's cache)
    times = []
    for it in items:
        t0 = time.perf_counter()
        fn(it)
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def _profiles(pairs) -> set:
    return {(tuple(np.round(x, 6)), tuple(np.round(y, 6))) for x, y in pairs}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--smoke", action="store_true", help="5 games of each size")
    a = ap.parse_args()
    from gamemarket.games.bimatrix import Game
    from gamemarket.games.equilibria import solve
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.games.rsgame import RoleSymmetricGame

    try:
        import quantecon.game_theory as qe
    except ImportError:
        qe = None
    count = 5 if a.smoke else a.games
    rng = np.random.default_rng(0)
    rows = []
    for k in (5, 6):
        games = [(rng.random((k, k)), rng.random((k, k))) for _ in range(count)]
        ours = _median_ms(lambda g: solve(Game(*g)), games)
        row = {"size": f"{k}x{k}", "games": count, "ours_ms": ours}
        if qe is not None:
            qgames = [qe.NormalFormGame((qe.Player(A), qe.Player(B.T))) for A, B in games]
            row["quantecon_ms"] = _median_ms(qe.vertex_enumeration, qgames)
            row["ratio"] = ours / row["quantecon_ms"]
            row["same_answers"] = all(
                _profiles((e.x, e.y) for e in solve(Game(*g)).equilibria) == _profiles(qe.vertex_enumeration(q))
                for g, q in zip(games, qgames)
            )
        rows.append(row)
    rsg = []
    for players, strategies in (([5], [3]), ([5], [4]), ([3, 3], [2, 2]), ([2, 2], [2, 3])):
        games = [RoleSymmetricGame.random(players, strategies, rng) for _ in range(max(3, count // 5))]
        rsg.append({"players": players, "strategies": strategies, "ms": _median_ms(equilibria, games)})
    print(f"bimatrix games, median of {count} each (quantecon {'not installed' if qe is None else qe.__name__}):")
    for r in rows:
        line = f"  {r['size']}: gamemarket solve {r['ours_ms']:.3f} ms"
        if "ratio" in r:
            line += f"; quantecon vertex_enumeration {r['quantecon_ms']:.3f} ms; {r['ratio']:.1f}x (target <= 5x)"
            line += f"; same equilibria: {r['same_answers']}"
        print(line)
    print("role-symmetric games (rsg_equilibria.equilibria), median:")
    for r in rsg:
        print(f"  players {r['players']}, strategies {r['strategies']}: {r['ms']:.1f} ms")
    print(json.dumps({"bimatrix": rows, "role_symmetric": rsg}))
    if any(r.get("same_answers") is False for r in rows):
        raise SystemExit("gamemarket and quantecon found different equilibria")


if __name__ == "__main__":
    main()
