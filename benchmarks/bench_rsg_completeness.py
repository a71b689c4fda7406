"""Does the role-symmetric solver find every equilibrium? Its default against support enumeration with many starts.

Two sets of games. *gameanalysis*: ``benchmarks/data/gameanalysis-random-games.json``, 120 random role-symmetric
games written by gameanalysis's own generator (``gamegen.game``; its version and the call are in the file's
provenance): a provider of one player and five consumers, two or three strategies each (6 players, 4 or 6
strategies). *two roles of many roots*: 100 games of two roles of 4 or 5 players and 3 strategies each
(``RoleSymmetricGame.random`` from ``numpy.random.default_rng(10_000 + i)``, the players drawn first), whose full
supports hold 8 to 20 roots reached by few starts each. Per game, the default
``gamemarket.games.rsg_equilibria.equilibria`` is timed and compared with a reference: support enumeration with 64
times the starts and budget per support, joined with the default's own answer (every mixture verified by its
regret; two mixtures within 1e-6 are one), and with the search under the settings before the current ones
(``PREVIOUS``). Reported per set: the equilibria the default missed, per 100 of the reference's, the games with a
miss, the default's stated chance of a missed root where it missed, and the time of each.

    python benchmarks/bench_rsg_completeness.py [--games 120] [--two-role-games 100]
        [--out benchmarks/results/rsg-completeness.json]
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

#: the support enumeration's settings before the current ones (16 starts a round, 128 a support, 16 convergences,
#: none per root, no extension of the budget), run beside today's on the same games for the time and the misses
PREVIOUS = {"starts_per_round": 16, "max_starts": 128, "min_hits": 16, "hits_per_root": 0, "extend": 1}


def previous(game):
    """The default search with the previous settings (``PREVIOUS``)."""
    names = ("MIN_HITS", "HITS_PER_ROOT", "EXTEND")
    kept = [getattr(support_newton, n) for n in names]
    for n, key in zip(names, ("min_hits", "hits_per_root", "extend")):
        setattr(support_newton, n, PREVIOUS[key])
    try:
        return equilibria(game, starts_per_round=PREVIOUS["starts_per_round"], max_starts=PREVIOUS["max_starts"])
    finally:
        for n, v in zip(names, kept):
            setattr(support_newton, n, v)


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


def two_role_game(seed: int):
    """A game of two roles of 4 or 5 players (drawn first) and 3 strategies each, from ``seed``."""
    from gamemarket.games.rsgame import RoleSymmetricGame

    rng = np.random.default_rng(seed)
    players = int(rng.integers(4, 6))
    return RoleSymmetricGame.random([players, players], [3, 3], rng)


def measure(games, a) -> dict:
    """The default, the reference and the previous settings on ``games`` ((seed, game) pairs)."""
    rows = []
    t_default = t_reference = t_previous = 0.0
    for seed, game in games:
        t0 = time.perf_counter()
        sol = equilibria(game)
        t1 = time.perf_counter()
        found = [e.mixture for e in sol.equilibria]
        ref = reference(game, found, starts_per_round=a.reference_starts, max_starts=a.reference_budget)
        t2 = time.perf_counter()
        old = previous(game)
        t3 = time.perf_counter()
        t_default += t1 - t0
        t_reference += t2 - t1
        t_previous += t3 - t2
        missed = sum(all(np.abs(x - y).max() > 1e-6 for y in found) for x in ref)
        old_missed = sum(all(np.abs(x - e.mixture).max() > 1e-6 for e in old.equilibria) for x in ref)
        rows.append(
            {
                "seed": seed,
                "players": list(map(int, game.players)),
                "strategies": list(map(int, game.num_strategies)),
                "found": len(found),
                "reference": len(ref),
                "missed": missed,
                "previous_missed": old_missed,
                "stated_unseen_chance": sol.search.unseen_chance if sol.search is not None else None,
                "open_supports": sol.search.open_supports if sol.search is not None else None,
                "seconds": t1 - t0,
            }
        )
        print(rows[-1], flush=True)
    total = sum(r["reference"] for r in rows)
    missed = sum(r["missed"] for r in rows)
    return {
        "games": len(rows),
        "equilibria": total,
        "missed": missed,
        "missed_per_100": 100 * missed / max(total, 1),
        "games_with_a_miss": sum(r["missed"] > 0 for r in rows),
        "stated_chance_where_missed": [r["stated_unseen_chance"] for r in rows if r["missed"] > 0],
        "open_supports_where_missed": [r["open_supports"] for r in rows if r["missed"] > 0],
        "default_seconds": t_default,
        "previous": {
            **PREVIOUS,
            "missed": sum(r["previous_missed"] for r in rows),
            "missed_per_100": 100 * sum(r["previous_missed"] for r in rows) / max(total, 1),
            "seconds": t_previous,
        },
        "time_ratio_to_previous": t_default / max(t_previous, 1e-9),
        "reference_seconds": t_reference,
        "per_game": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=120, help="how many of the file's games (default: all 120)")
    ap.add_argument("--out", default="benchmarks/results/rsg-completeness.json")
    ap.add_argument("--two-role-games", type=int, default=100, help="how many two-role games (default: 100)")
    ap.add_argument("--reference-starts", type=int, default=64, help="the reference's starts per support and round")
    ap.add_argument("--reference-budget", type=int, default=4096, help="the reference's most starts per support")
    ap.add_argument("--smoke", action="store_true", help="4 games, a small reference, written to a temporary file")
    a = ap.parse_args()
    doc = json.loads(DATA.read_text())
    n_ga, n_two = (4, 2) if a.smoke else (a.games, a.two_role_games)
    if a.smoke:
        import tempfile

        a.out, a.reference_starts, a.reference_budget = str(Path(tempfile.gettempdir()) / "rsg-smoke.json"), 16, 256
    sets = {
        "gameanalysis": [
            (rec["seed"], from_egta(rec["game"], source=f"game of seed {rec['seed']}")) for rec in doc["games"][:n_ga]
        ],
        "two roles of many roots": [(10_000 + i, two_role_game(10_000 + i)) for i in range(n_two)],
    }
    for games in sets.values():  # compile the Newton loops (numba) before anything is timed
        if games:
            equilibria(games[0][1])
            previous(games[0][1])
    report = {
        "data": DATA.name,
        "provenance": doc["provenance"],
        "reference": {"starts_per_round": a.reference_starts, "max_starts": a.reference_budget},
        "default": {
            "min_hits": support_newton.MIN_HITS,
            "hits_per_root": support_newton.HITS_PER_ROOT,
            "extend": support_newton.EXTEND,
        },
        "sets": {name: measure(games, a) for name, games in sets.items()},
    }
    for name, rec in report["sets"].items():
        print(name, {k: v for k, v in rec.items() if k != "per_game"})
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
