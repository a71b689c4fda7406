"""Small games fast (issue 46's target: the whole answer of a 5 x 5 and a 6 x 6 bimatrix game, pure and mixed,
verified, in at most 5x quantecon's vertex enumeration, in-process, median of 50 games).

    python benchmarks/bench_small_games.py [--games 50]
    python benchmarks/bench_small_games.py --smoke

For each size, 50 random games (uniform payoffs, seed 0): ``gamemarket.games.equilibria.solve`` (dominance, pure
equilibria, every extreme equilibrium by the small games' path, ``vertex_pairs``, each verified by its regret) and,
where quantecon is importable, ``quantecon.game_theory.vertex_enumeration`` on the same games, each timed one game
at a time after a first call (numba's compilation) and compared by their medians; both answers are checked to be the
same set of equilibria.

Also the role-symmetric solver (``rsg_equilibria.equilibria``, its whole answer: pure, mixed, verified, with each
equilibrium's stability) on random role-symmetric games of up to 4 strategies, median of 25 games each (15 at
``--games`` 30 or fewer), with its compiled searches (the default) and their numpy references (``jit=False``; the
tally of distinct roots is compiled either way).
quantecon has no role-symmetric solver, but a game of one role of two players is the symmetric bimatrix game
``(A, A^T)``, which the solver answers by its vertex pairs: there quantecon's ``vertex_enumeration`` runs on it
too, its symmetric equilibria ``(x, x)`` (it lists the asymmetric ones too) must be ours, and the searches it no
longer needs are timed too (``exact=False``, compiled and in numpy: the latter was its path before). quantecon is
not a dependency: install it where you run this (``pip install quantecon``), or point ``PYTHONPATH`` at a copy; run
from the checkout with ``PYTHONPATH`` naming it too, so that its package is the one imported.
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


def _two_player_matrix(game) -> np.ndarray:
    """A one-role game of two players as the row player's matrix of the symmetric bimatrix game ``(A, A^T)``."""
    k = game.num_strategies[0]
    A = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            A[i, j] = game.profile_payoffs(np.eye(k, dtype=int)[i] + np.eye(k, dtype=int)[j])[i]
    return A


def _role_symmetric(cases, count, rng, qe) -> list:
    """Each case's median ms, compiled and numpy, and for one role of two players quantecon's on ``(A, A^T)``."""
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.games.rsgame import RoleSymmetricGame

    out = []
    for players, strategies in cases:
        games = [RoleSymmetricGame.random(players, strategies, rng) for _ in range(count)]
        row = {"players": players, "strategies": strategies, "games": count, "ms": _median_ms(equilibria, games)}
        # the path before the compiled searches: numpy's, and for one role of two players (no exact method then) the
        # searches rather than the vertex pairs
        before = {"jit": False, "exact": players != [2]}
        row["before_ms"] = _median_ms(lambda g: equilibria(g, **before), games)
        if players == [2]:
            row["searches_ms"] = _median_ms(lambda g: equilibria(g, exact=False), games)  # compiled, no vertex pairs
        if qe is not None and players == [2]:
            qgames = [qe.NormalFormGame((qe.Player(A), qe.Player(A))) for A in map(_two_player_matrix, games)]
            row["quantecon_ms"] = _median_ms(qe.vertex_enumeration, qgames)
            row["ratio"] = row["ms"] / row["quantecon_ms"]
            row["same_answers"] = all(
                {tuple(np.round(e.mixture, 6)) for e in equilibria(g).equilibria}
                == {tuple(np.round(x, 6)) for x, y in qe.vertex_enumeration(q) if np.abs(x - y).max() < 1e-9}
                for g, q in zip(games, qgames)
            )
        out.append(row)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--smoke", action="store_true", help="5 games of each size")
    a = ap.parse_args()
    from gamemarket.games.bimatrix import Game
    from gamemarket.games.equilibria import solve

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
    cases = (([5], [3]), ([5], [4]), ([3, 3], [2, 2]), ([2, 2], [2, 3]), ([2], [3]), ([2], [4]))
    rsg = _role_symmetric(cases, 3 if a.smoke else max(15, count // 2), rng, qe)
    print(f"bimatrix games, median of {count} each (quantecon {'not installed' if qe is None else qe.__name__}):")
    for r in rows:
        line = f"  {r['size']}: gamemarket solve {r['ours_ms']:.3f} ms"
        if "ratio" in r:
            line += f"; quantecon vertex_enumeration {r['quantecon_ms']:.3f} ms; {r['ratio']:.1f}x (target <= 5x)"
            line += f"; same equilibria: {r['same_answers']}"
        print(line)
    print(f"role-symmetric games (rsg_equilibria.equilibria, the whole answer), median of {rsg[0]['games']} each:")
    for r in rsg:
        line = f"  players {r['players']}, strategies {r['strategies']}: {r['ms']:.3f} ms"
        if "searches_ms" in r:
            line += f" (vertex pairs; the searches: {r['searches_ms']:.1f} ms compiled, {r['before_ms']:.1f} ms numpy)"
        else:
            line += f" (the searches in numpy, jit=False: {r['before_ms']:.1f} ms, {r['before_ms'] / r['ms']:.1f}x)"
        if "ratio" in r:
            line += f"; quantecon vertex_enumeration on (A, A^T) {r['quantecon_ms']:.3f} ms; {r['ratio']:.1f}x"
            line += f" (target <= 5x); same symmetric equilibria: {r['same_answers']}"
        print(line)
    print(json.dumps({"bimatrix": rows, "role_symmetric": rsg}))
    if any(r.get("same_answers") is False for r in rows + rsg):
        raise SystemExit("gamemarket and quantecon found different equilibria")


if __name__ == "__main__":
    main()
