"""From a study's stored results to solved games: payoff tables, equilibria, robustness, exports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from gamemarket import __version__
from gamemarket.errors import UndefinedPayoffError
from gamemarket.games import Game, Solution, from_results, solve
from gamemarket.games.io import equilibria_records, to_csv_table, to_nfg, write_json
from gamemarket.games.robustness import Robustness, best_responses, bootstrap
from gamemarket.io.jobtable import write_table
from gamemarket.studies import StudySpec, load_results


@dataclass
class SolvedGame:
    name: str
    game: Game
    solution: Solution
    robustness: list[Robustness | None]
    flags: list[str] = field(default_factory=list)  #: what a reader must know before trusting an equilibrium


@dataclass
class StudyAnalysis:
    spec: StudySpec
    metrics: pd.DataFrame
    bins: pd.DataFrame | None
    meta: dict
    games: list[SolvedGame] = field(default_factory=list)
    #: the source paper's own game, HB with first or k-th price x FT or SRG, per payoff definition
    paper_games: list[SolvedGame] = field(default_factory=list)


DEFAULT_METHODS = ("pure", "polytope")
PAPER_GAME = (("hb-first", "hb-kth"), ("FT", "SRG"))


def _grid_cells(consumers: dict) -> dict[str, tuple[float, float]]:
    """Consumer mixes of the beta-mix grid (named ``g<fraction>x<beta>``): name -> (fraction, beta) of
    the aggressive group."""
    out = {}
    for name, c in consumers.items():
        if name.startswith("g") and "x" in name and len(c["groups"]) == 2:
            out[name] = tuple(float(v) for v in c["groups"][-1])
    return out


def game_flags(game: Game, solution: Solution, consumers: dict) -> list[str]:
    """Warnings about a solved game: an equilibrium on the edge of the consumer grid (extend the grid),
    and per-group payoffs that compare groups of different sizes across columns."""
    import numpy as np

    from gamemarket.market.payoffs import aggressive_group

    flags = []
    grid = {n: fb for n, fb in _grid_cells(consumers).items() if n in game.cols}
    if len(grid) >= 2:
        fr = sorted({f for f, _ in grid.values()})
        be = sorted({b for _, b in grid.values()})
        for k, e in enumerate(solution.equilibria):
            for j in np.flatnonzero(e.y > 0):
                name = game.cols[j]
                if name not in grid:
                    continue
                f, b = grid[name]
                edges = ([f"the largest aggressive fraction ({f:g})"] if f == fr[-1] and len(fr) > 1 else []) + \
                        ([f"the smallest aggressive fraction ({f:g})"] if f == fr[0] and len(fr) > 1 else []) + \
                        ([f"the largest beta ({b:g})"] if b == be[-1] and len(be) > 1 else []) + \
                        ([f"the smallest beta ({b:g})"] if b == be[0] and len(be) > 1 else [])
                if edges:
                    flags.append(f"equilibrium {k + 1}: the consumer plays {name}, on the edge of the strategy grid "
                                 f"({' and '.join(edges)}); extend the grid to see whether the equilibrium moves")
    pay = game.meta.get("consumer_payoff", "")
    if pay in ("mean_utility_aggressive", "mean_utility_conservative"):
        share = {}
        for name in game.cols:
            groups = consumers[name]["groups"]
            a = aggressive_group(np.array([b for _, b in groups]))
            frac = 0.0 if a is None else float(groups[a][0])
            share[name] = frac if pay.endswith("aggressive") else 1.0 - frac
        lo, hi = min(share.values()), max(share.values())
        if hi > lo:
            who = "aggressive" if pay.endswith("aggressive") else "conservative"
            flags.append(f"not comparable across columns: the {who} group is {lo:.0%} to {hi:.0%} of the jobs, so "
                         f"its mean utility compares different sets of users, not the same users under another mix")
    return flags


def analyze(spec: StudySpec, with_bins: bool = False, methods=DEFAULT_METHODS, resamples: int = 1000,
            time_limit: float = 10.0) -> StudyAnalysis:
    metrics, bins, meta = load_results(spec, with_bins=with_bins)
    out = StudyAnalysis(spec, metrics, bins, meta)
    rows = [p.name for p in spec.providers]
    cols = [c.name for c in spec.consumers]
    for gd in spec.games:
        try:
            g = from_results(metrics, gd.provider, gd.consumer, title=gd.name, rows=rows, cols=cols)
        except UndefinedPayoffError:
            continue  # e.g. per-group payoffs in a study without any aggressive group
        sol = solve(g, methods=methods, time_limit=time_limit)
        out.games.append(SolvedGame(gd.name, g, sol, bootstrap(g, sol.equilibria, resamples=resamples),
                                    game_flags(g, sol, meta["consumers"])))
    prov, cons = PAPER_GAME
    if set(prov) <= set(rows) and set(cons) <= set(cols) and (len(rows), len(cols)) != (2, 2):
        for gd in spec.games:
            try:
                g = from_results(metrics, gd.provider, gd.consumer, title=gd.name, rows=list(prov), cols=list(cons))
            except UndefinedPayoffError:
                continue
            sol = solve(g, methods=methods, time_limit=time_limit)
            out.paper_games.append(SolvedGame(gd.name, g, sol, bootstrap(g, sol.equilibria, resamples=resamples),
                                              game_flags(g, sol, meta["consumers"])))
    return out


def solve_game(game: Game, methods=DEFAULT_METHODS, resamples: int = 1000, time_limit: float = 10.0) -> SolvedGame:
    sol = solve(game, methods=methods, time_limit=time_limit)
    return SolvedGame(game.title, game, sol, bootstrap(game, sol.equilibria, resamples=resamples))


def slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")


def export(analysis: StudyAnalysis, out_dir: str | Path) -> list[Path]:
    """Payoff tables (CSV), equilibria (CSV and JSON with metadata) and ``.nfg`` files of every game."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [write_table(analysis.metrics, out_dir / "runs.csv")]
    payload = {"study": analysis.spec.name, "version": __version__, "meta": analysis.meta, "games": []}
    eq_rows = []
    for sg in analysis.games:
        s = slug(sg.name)
        written.append(write_table(to_csv_table(sg.game), out_dir / f"payoffs-{s}.csv"))
        nfg = out_dir / f"game-{s}.nfg"
        nfg.write_text(to_nfg(sg.game, comment=f"gamemarket {__version__}: study {analysis.spec.name}, {sg.name}"))
        written.append(nfg)
        recs = equilibria_records(sg.solution, sg.robustness)
        payload["games"].append({"name": sg.name, **sg.game.meta, "providers": sg.game.rows,
                                 "consumers": sg.game.cols, "degenerate": sg.solution.degenerate,
                                 "dominated_providers": sg.solution.dominated_rows,
                                 "dominated_consumers": sg.solution.dominated_cols,
                                 "notes": sg.solution.notes, "equilibria": recs})
        for k, r in enumerate(recs):
            eq_rows.append({"game": sg.name, "equilibrium": k + 1,
                            "provider": " + ".join(f"{p:.4g} {n}" for n, p in r["provider"].items()),
                            "consumer": " + ".join(f"{p:.4g} {n}" for n, p in r["consumer"].items()),
                            "provider_payoff": r["payoffs"]["provider"], "consumer_payoff": r["payoffs"]["consumer"],
                            "provider_regret": r["regret"]["provider"], "consumer_regret": r["regret"]["consumer"],
                            "stable_share": r.get("robustness", {}).get("stable_share")})
        written.append(write_table(best_responses(sg.game), out_dir / f"best-responses-{s}.csv"))
    written.append(write_table(pd.DataFrame(eq_rows), out_dir / "equilibria.csv"))
    write_json(out_dir / "equilibria.json", payload)
    written.append(out_dir / "equilibria.json")
    return written
