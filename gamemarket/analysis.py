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
from gamemarket.jobtable import write_table
from gamemarket.studies import StudySpec, load_results


@dataclass
class SolvedGame:
    name: str
    game: Game
    solution: Solution
    robustness: list[Robustness | None]


@dataclass
class StudyAnalysis:
    spec: StudySpec
    metrics: pd.DataFrame
    bins: pd.DataFrame | None
    meta: dict
    games: list[SolvedGame] = field(default_factory=list)


DEFAULT_METHODS = ("pure", "polytope")


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
        out.games.append(SolvedGame(gd.name, g, sol, bootstrap(g, sol.equilibria, resamples=resamples)))
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
