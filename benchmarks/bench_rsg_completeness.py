"""Does the role-symmetric solver find every equilibrium? Its default against support enumeration with many starts.

The games: ``benchmarks/data/gameanalysis-random-games.json``, 120 random role-symmetric games written by
gameanalysis's own generator (``gamegen.game``; its version and the call are in the file's provenance): a provider
of one player and five consumers, two or three strategies each (6 players, 4 or 6 strategies). Per game, the
default ``gamemarket.games.rsg_equilibria.equilibria`` is timed and compared with a reference: support enumeration
with 64 times the starts and budget per support, joined with the default's own answer (every mixture verified by its
regret; two mixtures within 1e-6 are one). Reported: the equilibria the default missed, per 100 of the reference's,
the games with a miss, the default's stated chance of a missed root where it missed, and the time of both.

    python benchmarks/bench_rsg_completeness.py [--games 120] [--out benchmarks/results/rsg-completeness.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from gamemarket.games import support_newton
from gamemarket.games.egta import from_egta
from gamemarket.games.rsg_equilibria import DEFAULT_REL_TOL, equilibria
from gamemarket.games.support_newton import support_enumeration

#: the support enumeration's settings before this benchmark (8 starts a round, 64 a support, 4 convergences), run
#: beside today's on the same games for the time and the misses
PREVIOUS = {"starts_per_round": 8, "max_starts": 64, "min_hits": 4}


def previous(game):
    """The default search with the previous settings (``PREVIOUS``)."""
    kept = support_newton._MIN_HITS
    support_newton._MIN_HITS = PREVIOUS["min_hits"]
    try:
        return equilibria(game, starts_per_round=PREVIOUS["starts_per_round"], max_starts=PREVIOUS["max_starts"])
    finally:
        support_newton._MIN_HITS = kept


DATA = Path(__file__).resolve().parent / "data" / "gameanalysis-random-games.json"


def reference(game, found: list, *, starts_per_round: int, max_starts: int) -> list:
    """Every equilibrium of ``found`` and of a support enumeration with a large budget, verified and deduplicated."""
    tol = DEFAULT_REL_TOL * game.payoff_scale()
    big = support_enumeration(game, tolerance=tol, starts_per_round=starts_per_round, max_starts=max_starts, seed=7)
    out: list = []
    for x in list(found) + (big.mixtures if big is not None else []):
        if game.regret(x) <= tol and all(np.abs(x - y).max() > 1e-6 for y in out):
            out.append(x)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=120, help="how many of the file's games (default: all 120)")
    ap.add_argument("--out", default="benchmarks/results/rsg-completeness.json")
    ap.add_argument("--reference-starts", type=int, default=64, help="the reference's starts per support and round")
    ap.add_argument("--reference-budget", type=int, default=4096, help="the reference's most starts per support")
    ap.add_argument("--smoke", action="store_true", help="4 games, a small reference, written to a temporary file")
    a = ap.parse_args()
    doc = json.loads(DATA.read_text())
    games = doc["games"][: 4 if a.smoke else a.games]
    if a.smoke:
        import tempfile

        a.out, a.reference_starts, a.reference_budget = str(Path(tempfile.gettempdir()) / "rsg-smoke.json"), 16, 256
    rows = []
    t_default = t_reference = t_previous = 0.0
    for rec in games:
        game = from_egta(rec["game"], source=f"game of seed {rec['seed']}")
        t0 = time.perf_counter()
        sol = equilibria(game)
        t1 = time.perf_counter()
        ref = reference(
            game,
            [e.mixture for e in sol.equilibria],
            starts_per_round=a.reference_starts,
            max_starts=a.reference_budget,
        )
        t2 = time.perf_counter()
        old = previous(game)
        t3 = time.perf_counter()
        t_default += t1 - t0
        t_reference += t2 - t1
        t_previous += t3 - t2
        missed = len(ref) - len(sol.equilibria)
        old_missed = sum(all(np.abs(x - e.mixture).max() > 1e-6 for e in old.equilibria) for x in ref)
        rows.append(
            {
                "seed": rec["seed"],
                "strategies": game.num_strategies.tolist()
                if hasattr(game.num_strategies, "tolist")
                else list(game.num_strategies),
                "found": len(sol.equilibria),
                "reference": len(ref),
                "missed": missed,
                "previous_missed": old_missed,
                "stated_unseen_chance": sol.search.unseen_chance if sol.search is not None else None,
                "seconds": t1 - t0,
            }
        )
        print(rows[-1], flush=True)
    total = sum(r["reference"] for r in rows)
    missed = sum(r["missed"] for r in rows)
    report = {
        "data": DATA.name,
        "provenance": doc["provenance"],
        "games": len(rows),
        "equilibria": total,
        "missed": missed,
        "missed_per_100": 100 * missed / max(total, 1),
        "games_with_a_miss": sum(r["missed"] > 0 for r in rows),
        "stated_chance_where_missed": [r["stated_unseen_chance"] for r in rows if r["missed"] > 0],
        "default_seconds": t_default,
        "previous": {
            **PREVIOUS,
            "missed": sum(r["previous_missed"] for r in rows),
            "missed_per_100": 100 * sum(r["previous_missed"] for r in rows) / max(total, 1),
            "seconds": t_previous,
        },
        "time_ratio_to_previous": t_default / max(t_previous, 1e-9),
        "reference_seconds": t_reference,
        "reference": {"starts_per_round": a.reference_starts, "max_starts": a.reference_budget},
        "per_game": rows,
    }
    print({k: v for k, v in report.items() if k != "per_game"})
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
