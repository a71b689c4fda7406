"""Large bimatrix games: the payoff table's read (at once, against its line-by-line reference) and ``solve`` of a
random game under a time limit, whose iterated dominance compares in blocks and stops at the limit (hunts 19a-W7
and 19b-F1).

    PYTHONPATH=. python benchmarks/bench_large_games.py            # a 1,000 x 1,000 table; a 2,000 x 2,000 game
    PYTHONPATH=. python benchmarks/bench_large_games.py --smoke    # 100 x 100 and 200 x 200
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gamemarket.games import Game, solve
from gamemarket.games import io as gio


def _table(path: Path, n: int, rng) -> None:
    A, B = rng.random((n, n)).tolist(), rng.random((n, n)).tolist()
    with open(path, "w", encoding="utf-8") as f:
        f.write("row,col,row_payoff,col_payoff\n")
        for i in range(n):
            f.write("".join(f"r{i},c{j},{A[i][j]!r},{B[i][j]!r}\n" for j in range(n)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="small sizes (the suite's smoke run)")
    a = ap.parse_args()
    table_n, game_n, limit = (100, 200, 1.0) if a.smoke else (1000, 2000, 5.0)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        _table(path, table_n, rng)
        t = time.perf_counter()
        g = gio.read_csv_game(path)
        fast = time.perf_counter() - t
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
        names = list(dict.fromkeys(df["row"])), list(dict.fromkeys(df["col"]))
        t = time.perf_counter()
        A, B = gio._payoff_cells_reference(path, df, "row", "col", *names)
        reference = time.perf_counter() - t
        assert np.array_equal(A, g.A) and np.array_equal(B, g.B)
    print(f"payoff table {table_n:,} x {table_n:,}: read_csv_game {fast:.2f} s (cells line by line: {reference:.2f} s)")
    game = Game(rng.random((game_n, game_n)), rng.random((game_n, game_n)))
    t = time.perf_counter()
    sol = solve(game, time_limit=limit)
    wall = time.perf_counter() - t
    assert all(max(e.regret) <= 1e-6 * max(np.ptp(game.A), np.ptp(game.B)) for e in sol.equilibria)
    print(
        f"solve {game_n:,} x {game_n:,} random game, time limit {limit:g} s: {wall:.2f} s, {len(sol.equilibria)} found"
    )


if __name__ == "__main__":
    main()
