"""Large bimatrix games: the payoff table's read (at once, against its line-by-line reference) and ``solve`` of a
random game under a time limit, whose iterated dominance compares in blocks and stops at the limit (hunts 19a-W7
and 19b-F1).

    PYTHONPATH=. python benchmarks/bench_large_games.py            # a 1,000 x 1,000 table; a 2,000 x 2,000 game
    PYTHONPATH=. python benchmarks/bench_large_games.py --smoke    # 100 x 100 and 200 x 200
    PYTHONPATH=. python benchmarks/bench_large_games.py --hugepages   # commands with numpy's huge-page advice and
                                                                      # without (NUMPY_MADVISE_HUGEPAGE=1 / 0)

``--hugepages`` times whole commands, in turn (with, without, with, ...; ``--repeat`` each): ``game solve`` of a
5,000 x 5,000 game of zeros (a compressed ``.npz``) under ``--time-limit 2``, and ``price solve`` of the synthetic
family at n = 1,000,000, m = 16; for each the median wall seconds and the median seconds the kernel spent for it
(system time: where memory is fragmented, the compaction that finding huge pages costs).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
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


def _timed(cmd: list[str], advice: str) -> tuple[float, float, int]:
    """One run of ``cmd`` with ``NUMPY_MADVISE_HUGEPAGE=advice``: wall seconds, system seconds, exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime
    t = time.perf_counter()
    code = subprocess.run(cmd, env={**os.environ, "NUMPY_MADVISE_HUGEPAGE": advice}, capture_output=True).returncode
    wall = time.perf_counter() - t
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime - before, code


def hugepages(repeat: int) -> None:
    """The ``--hugepages`` comparison (see the module's docstring)."""
    gm = [sys.executable, "-m", "gamemarket"]
    with tempfile.TemporaryDirectory() as folder:
        game = Path(folder) / "zeros.npz"
        np.savez_compressed(game, A=np.zeros((5000, 5000)), B=np.zeros((5000, 5000)))
        commands = {
            "game solve 5,000 x 5,000 zeros --time-limit 2": gm + ["game", "solve", str(game), "--time-limit", "2"],
            "price solve --n 1000000 --m 16 --utility log": gm
            + ["price", "solve", "--n", "1000000", "--m", "16", "--utility", "log"],
        }
        for what, cmd in commands.items():
            runs = {"1": [], "0": []}
            for _ in range(repeat):
                for advice in runs:
                    runs[advice].append(_timed(cmd, advice))
            for advice, rs in runs.items():
                codes = sorted({r[2] for r in rs})
                print(
                    f"{what}: NUMPY_MADVISE_HUGEPAGE={advice}: wall {statistics.median(r[0] for r in rs):.2f} s, "
                    f"system {statistics.median(r[1] for r in rs):.2f} s (median of {repeat}; exit {codes})"
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="small sizes (the suite's smoke run)")
    ap.add_argument("--hugepages", action="store_true", help="the command with numpy's huge-page advice and without")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command each way (--hugepages)")
    a = ap.parse_args()
    if a.hugepages:
        hugepages(a.repeat)
        return
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
