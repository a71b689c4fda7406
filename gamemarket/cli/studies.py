"""CLI commands for studies, games and reports (added to the ``gamemarket`` parser)."""

from __future__ import annotations

import argparse
import os
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from gamemarket.cli.options import examples, integer
from gamemarket.cli.output import duration
from gamemarket.cli.plugin import add_plugin_option
from gamemarket.errors import InputError, UndefinedPayoffError
from gamemarket.io.files import dumps_json
from gamemarket.io.ownership import OutputFolder
from gamemarket.reports.markdown import num, num_ci


def _study(a, path):
    """The study file ``path`` with the command's ``--results`` and ``--report`` folders, where given."""
    from gamemarket.studies import load_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

    return load_study(path, results=getattr(a, "results", None), report=getattr(a, "report", None))


def _load_game_source(path: str, game_name: str | None, a=None):
    """A study file (its stored results), a CSV game or an .nfg game -> list of (name, Game)."""
    from gamemarket.games.io import read_csv_game, read_nfg  # deferred: pandas

    p = Path(path)
    if p.suffix == ".toml":
        from gamemarket.games import from_results  # deferred: pandas
        from gamemarket.studies import load_results  # deferred: joblib, pandas, pyarrow, scipy.optimize

        spec = _study(a, p)
        metrics, _, _ = load_results(spec)
        games = []
        for gd in spec.games:
            if game_name and gd.name != game_name:
                continue
            try:
                games.append(
                    from_results(
                        metrics,
                        gd.provider,
                        gd.consumer,
                        title=gd.name,
                        rows=[x.name for x in spec.providers],
                        cols=[x.name for x in spec.consumers],
                    )
                )
            except UndefinedPayoffError:
                pass
        if game_name and not games:
            raise InputError(f"{path}: no game named {game_name!r}; games: {[g.name for g in spec.games]}")
        return games
    if p.suffix == ".nfg":
        return [read_nfg(p)]
    if p.suffix == ".csv":
        return [read_csv_game(p)]
    raise InputError(
        f"{path}: expected a study (.toml), a game (.nfg), a payoff table (.csv) or an EGTA JSON game (.json)"
    )


def _fmt_matrix(game) -> str:

    ca, cb = game.ci()
    w = max(len(c) for c in game.cols + ["consumer"]) + 2
    lines = []
    for title, M, C in ((f"{game.players[0]} payoff", game.A, ca), (f"{game.players[1]} payoff", game.B, cb)):
        lines.append(f"  {title} (rows: {game.players[0]}, columns: {game.players[1]}; mean ± 95% CI half-width)")
        lw = max(len(r) for r in game.rows) + 2
        lines.append(" " * (lw + 2) + "".join(f"{c:>{max(w, 22)}}" for c in game.cols))
        for i, r in enumerate(game.rows):
            cells = "".join(
                f"{f'{num(M[i, j], 5)} ± {num(C[i, j], 2)}' if np.isfinite(C[i, j]) else num(M[i, j], 5):>{max(w, 22)}}"
                for j in range(len(game.cols))
            )
            lines.append(f"  {r:<{lw}}{cells}")
    return "\n".join(lines)


def print_solved(sg) -> None:
    """Print one solved game of a study: its payoff tables with their CIs, each equilibrium in words with
    its regret and robustness, and the game's flags.
    """
    from gamemarket.games.io import profile_words  # deferred: pandas

    g, sol = sg.game, sg.solution
    print(f"== game: {sg.name} ({g.shape[0]}x{g.shape[1]}" + (f", {g.reps()} replications" if g.reps() else "") + ")")
    if g.meta.get("dropped_consumers"):
        print(f"  (consumer strategies without this payoff, left out: {', '.join(g.meta['dropped_consumers'])})")
    print(_fmt_matrix(g))
    if sol.dominated_rows or sol.dominated_cols:
        print(
            f"  strictly dominated (iterated): {g.players[0]}: {', '.join(sol.dominated_rows) or '-'}; "
            f"{g.players[1]}: {', '.join(sol.dominated_cols) or '-'}"
        )
    listed = (
        "all extreme equilibria listed" if sol.complete else "not every extreme equilibrium enumerated: see the note"
    )
    print(f"  degenerate game: {f'yes ({listed})' if sol.degenerate else 'no'}")
    print(f"  equilibria: {len(sol.equilibria)}")
    for k, (e, rb) in enumerate(zip(sol.equilibria, sg.robustness)):
        px, py = profile_words(g, e, digits=4)
        print(f"  [{k + 1}] {'pure' if e.pure else 'mixed'}: {g.players[0]} = {px}; {g.players[1]} = {py}")
        print(
            f"      payoffs: {num(e.payoffs[0], 6)}, {num(e.payoffs[1], 6)}; regret: {num(e.regret[0], 2)}, "
            f"{num(e.regret[1], 2)};"
            f" found by: {', '.join(sorted(e.methods))}"
        )
        if rb is not None:
            print(
                f"      robustness ({rb.resamples} bootstrap resamples): still an equilibrium in {rb.stable_share:.1%};"
                f" regret 95% CI: {g.players[0]} [{num(rb.regret_provider[1], 3)}, {num(rb.regret_provider[2], 3)}],"
                f" {g.players[1]} [{num(rb.regret_consumer[1], 3)}, {num(rb.regret_consumer[2], 3)}]"
            )
    for n in sol.notes:
        print(f"  note: {n}")


def cmd_study_run(a) -> int:
    """``gamemarket study run``: run what is missing of a study (bimatrix or population), then write its
    report unless ``--no-report``. A study that quotes a population study (``population_study``) runs (or
    resumes) that one first, so its report has what its discussion quotes.
    """
    if a.scheduler_address is not None:  # before any folder is claimed or locked: what answers there, named
        from gamemarket.studies.scheduler import identify  # deferred: gamemarket.studies loads pandas and joblib

        identify(a.scheduler_address)
    spec = _study(a, a.file)
    if spec.population is not None:
        return _run_population(a, spec, force=a.force)
    if spec.population_study is not None and not a.no_report:
        from gamemarket.studies import load_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

        print(f"study {spec.name} quotes the population study {spec.population_study}: running it first")
        _run_population(a, load_study(spec.population_study), force=False)
    return _run_bimatrix(a, spec)


@contextmanager
def _report_claimed(a, spec, force: bool):
    """The study's report folder claimed before the work (a folder that is not the study's is refused before
    any simulation), the claim undone if the work fails before the report writes a file."""
    if a.no_report:
        yield None
        return
    # deferred: joblib, matplotlib, matplotlib.pyplot, pandas, pyarrow, scipy.optimize
    from gamemarket.reports.report import claim_folder

    folder = claim_folder(Path(spec.report_dir), spec, force)
    try:
        yield folder
    except BaseException:
        folder.abandon()
        raise


def _run_population(a, spec, *, force: bool) -> int:
    from gamemarket.search.population import run_population_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

    with _report_claimed(a, spec, force):
        an = run_population_study(
            spec, n_jobs=a.n_jobs, progress=not a.no_progress, force=force, scheduler_address=a.scheduler_address
        )
    print(
        f"study {spec.name}: {an.runs.simulations:,} simulations ({an.runs.run_now:,} run now) in "
        f"{duration(an.runs.wall_seconds)}; results in {spec.results_dir}"
    )
    _print_population(an)
    ex = _run_exploration(a, spec, an) if spec.exploration is not None else None
    if not a.no_report:
        # deferred: joblib, matplotlib, matplotlib.pyplot, pandas, pyarrow, scipy.optimize
        from gamemarket.reports.population import write_population_report

        print(f"report: {write_population_report(an, force=force, exploration=ex)}")
    return 0


def _run_exploration(a, spec, an):
    """The study's strategy exploration (``[game] exploration``), from its menu-only answer ``an``; the report
    renders it and writes its ``data/exploration.json``."""
    # deferred: the analysis (pandas, scipy.optimize) only for a study that explores
    from gamemarket.search.exploration import run_exploration

    ex = run_exploration(
        spec, analysis=an, n_jobs=a.n_jobs, progress=not a.no_progress, scheduler_address=a.scheduler_address
    )
    for name, m in ex.mechanisms.items():
        eps = "" if m.epsilon is None else f", epsilon {num(m.epsilon)} (tolerance {num(m.tolerance)})"
        verdict = "certified" if m.certified else f"not certified: {m.reason}"
        print(f"  exploration {name}: {len(m.menu)} rules in the menu, {m.simulations} simulations{eps}; {verdict}")
    print(f"exploration: {ex.simulations} simulations in {duration(ex.wall_seconds)}")
    return ex


def _run_bimatrix(a, spec) -> int:
    from gamemarket.studies import load_study, run_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

    t0 = time.perf_counter()
    with _report_claimed(a, spec, a.force):
        for s in [load_study(c) for c in spec.companions] + [spec]:
            info = run_study(
                s,
                n_jobs=a.n_jobs,
                scheduler_address=a.scheduler_address,
                progress=not a.no_progress,
                force=a.force and s is spec,  # --force is about this study's folders, not its companions'
            )
            print(
                f"study {s.name}: {info.tasks:,} runs ({info.skipped:,} already stored, {info.run:,} run now) "
                f"in {duration(info.wall_seconds)}; results in {s.results_dir}"
            )
        if spec.gains:
            from gamemarket.studies.gains import run_gains  # deferred: joblib, pandas, pyarrow

            t1 = time.perf_counter()
            run_gains(spec, n_jobs=a.n_jobs, scheduler_address=a.scheduler_address, progress=not a.no_progress)
            print(f"shading gains over market sizes {spec.gains['jobs']}: {duration(time.perf_counter() - t1)}")
    if not a.no_report:
        from gamemarket.analysis.study import analyze  # deferred: joblib, pandas, pyarrow, scipy.optimize
        from gamemarket.reports.report import write_report  # deferred: matplotlib, pandas

        t1 = time.perf_counter()
        from gamemarket.search.population import linked_population  # deferred: joblib, pandas, scipy.optimize

        an = analyze(spec, methods=tuple(a.methods), for_report=True, population=linked_population(spec))
        path = write_report(an, force=a.force, n_jobs=a.n_jobs)
        # the times go to the log, not into the report (a report written again from the same results is the same)
        print(
            f"report: {path} (written in {duration(time.perf_counter() - t1)}; "
            f"{duration(time.perf_counter() - t0)} in all)"
        )
    return 0


def _print_population(an) -> None:
    # deferred like this module's other imports (games.io imports pandas; the CLI starts without it)
    from gamemarket.games.io import mixture_words as mix  # deferred: pandas

    for a in an.answers:
        print(f"== {a.mechanism} ({len(a.seeds)} seeds): truthful is an equilibrium: {a.truthful_is_equilibrium}")
        for s, (m, lo, hi) in a.truthful_gains.items():
            print(f"  gain of {s} over truthful at the all-truthful population: {num_ci(m, lo, hi, 4)}")
        if not a.equilibria:
            print(f"  {'; '.join(a.notes)}")
        for e in a.equilibria:
            print(
                f"  equilibrium {mix(e.mixture)}: regret {num_ci(*e.regret, 3, sign=False)} "
                f"({e.verified}, {e.stability}); revenue {num(e.revenue.mean, 4)}"
            )
    if an.provider.leader:
        print(f"provider's choice (leader, worst consumer equilibrium): {an.provider.leader}")
    joint = an.provider.joint
    if joint is not None:
        if not joint.equilibria:
            print(f"provider and consumers together: no equilibrium found; {'; '.join(joint.notes)}")
        for e in joint.equilibria:
            c, p = e.consumer_regret, e.provider_regret
            print(
                f"provider and consumers together: {mix(e.provider)} with {mix(e.consumers)}: "
                f"consumers' regret {num_ci(*c, 3, sign=False)}, provider's {num_ci(*p, 3, sign=False)} "
                f"({e.verified})"
            )


def _solve_egta(a) -> int:
    from gamemarket.games.egta import read_egta  # deferred: pandas
    from gamemarket.games.rsg_equilibria import equilibria  # deferred: pandas, scipy.optimize

    game = read_egta(a.file)
    sol = equilibria(game)
    recs = [
        {
            "mixture": game.mixture_dict(e.mixture),
            "regret": e.regret,
            "payoffs": dict(zip(game.roles, e.payoffs.tolist())),
            "stability": e.stability,
            "methods": sorted(e.methods),
        }
        for e in sol.equilibria
    ]
    if a.format == "json":
        print(dumps_json(recs, indent=2))
    else:
        print(f"== {a.file}: roles {dict(zip(game.roles, game.players))}; {sol.summary()}")
        for k, r in enumerate(recs):
            mix = "; ".join(
                f"{role}: " + " + ".join(f"{num(p, 6)} {s}" for s, p in m.items()) for role, m in r["mixture"].items()
            )
            print(
                f"  [{k + 1}] {mix}; regret {num(r['regret'], 3)}; {r['stability']}; found by {', '.join(r['methods'])}"
            )
    if not sol.found:
        print(f"gamemarket: {sol.summary()}", file=__import__("sys").stderr)
        return 3
    return 0


def cmd_study_new(a) -> int:
    """``gamemarket study new``: write a commented study file that runs as it is."""
    from gamemarket.studies.templates import new_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

    path = new_study(a.name, population=a.population, force=a.force)
    print(f"{path}: a new {'population ' if a.population else ''}study; run it with `gamemarket study run {path}`")
    return 0


def cmd_study_status(a) -> int:
    """``gamemarket study status``: how many of a study's runs are stored and how many are missing."""
    from gamemarket.studies import study_status  # deferred: joblib, pandas, pyarrow, scipy.optimize

    spec = _study(a, a.file)
    if spec.population is not None:
        from gamemarket.analysis.population import PopulationGames  # deferred: joblib, pandas, pyarrow, scipy.optimize

        st = PopulationGames(spec)
        keys = [st.runs.key(p, m, s) for p in spec.providers for s in spec.seeds for m in st.grid]
        done = sum(st.runs.store.read(k) is not None for k in keys)
        print(
            f"study {spec.name}: {done:,}/{len(keys):,} population runs of the initial seeds stored "
            f"({st.runs.store.dir}); candidates and added seeds follow from these"
        )
        return 0
    st = study_status(spec)
    print(
        f"study {st['study']}: {st['done']:,}/{st['tasks']:,} runs stored, {st['missing']:,} missing ({st['results']})"
    )
    return 0


def cmd_game_solve(a) -> int:
    """``gamemarket game solve``: the equilibria of a study's games, a ``.nfg`` or CSV bimatrix game, or an
    EGTA JSON role-symmetric game, each verified by its regret; ``--format json`` prints a JSON list.
    """
    from gamemarket.analysis.study import solve_game  # deferred: joblib, pandas, pyarrow, scipy.optimize
    from gamemarket.games.io import equilibria_records  # deferred: pandas

    p = Path(a.file)
    if p.suffix == ".json":
        return _solve_egta(a)
    if p.suffix == ".toml":
        spec = _study(a, p)
        if spec.population is not None:
            # deferred: joblib, pandas, pyarrow, scipy.optimize
            from gamemarket.analysis.population import equilibria_json
            from gamemarket.search.population import run_population_study

            an = run_population_study(spec, run=False)
            if a.format == "json":
                print(dumps_json(equilibria_json(an), indent=2))
            else:
                _print_population(an)
            return 0
    games = _load_game_source(a.file, a.game, a)
    try:
        solved = [
            solve_game(g, methods=tuple(a.methods), resamples=a.resamples, time_limit=a.time_limit) for g in games
        ]
    except InputError as exc:  # about the game's payoffs or the options: say which file
        raise InputError(f"{a.file}: {exc}") from None
    if a.format == "json":
        out = []
        for sg in solved:
            for rec in equilibria_records(sg.solution, sg.robustness):
                if len(solved) > 1:
                    rec["game"] = sg.name
                out.append(rec)
        print(dumps_json(out, indent=2))
    else:
        for sg in solved:
            print_solved(sg)
    if not all(sg.solution.complete for sg in solved):  # what was found is printed; the search did not finish
        print(
            "gamemarket: the search for equilibria did not finish (see the note); exit 3",
            file=__import__("sys").stderr,
        )
        return 3
    return 0


def cmd_game_export(a) -> int:
    """``gamemarket game export``: a study's payoff tables and games as files (CSV, JSON, ``.nfg``)."""
    from gamemarket.analysis.study import analyze, export  # deferred: joblib, pandas, pyarrow, scipy.optimize

    p = Path(a.file)
    if p.suffix != ".toml":
        raise InputError(f"{a.file}: export takes a study file (.toml)")
    spec = _study(a, p)
    out = Path(a.out) if a.out else spec.report_dir / "data"
    owner = f"game export of {os.path.relpath(spec.path, out.resolve())}"
    folder = OutputFolder(out, owner=owner, what="export folder", force=a.force, inputs=spec.inputs(), option="--out")
    an = analyze(spec, methods=tuple(a.methods), resamples=a.resamples)
    for f in export(an, folder):
        print(f)
    folder.finish()
    return 0


def cmd_report(a) -> int:
    """``gamemarket report``: write a study's report from its stored results (nothing is simulated)."""
    from gamemarket.reports.report import write_report  # deferred: matplotlib, pandas

    spec = _study(a, a.study)
    if spec.population is not None:
        # deferred: joblib, pandas, pyarrow, scipy.optimize
        # deferred: joblib, matplotlib, matplotlib.pyplot, pandas, pyarrow, scipy.optimize
        from gamemarket.reports.population import write_population_report
        from gamemarket.search.population import run_population_study

        print(f"report: {write_population_report(run_population_study(spec, run=False), force=a.force)}")
        return 0
    from gamemarket.analysis.study import analyze  # deferred: joblib, pandas, pyarrow, scipy.optimize

    # deferred: joblib, matplotlib, matplotlib.pyplot, pandas, pyarrow, scipy.optimize
    from gamemarket.reports.report import claim_folder

    claim_folder(Path(spec.report_dir), spec, a.force)  # refuse another study's folder before the work
    t0 = time.perf_counter()
    from gamemarket.search.population import linked_population  # deferred: joblib, pandas, scipy.optimize

    an = analyze(spec, methods=tuple(a.methods), for_report=True, population=linked_population(spec))
    path = write_report(an, force=a.force)
    print(f"report: {path} (written in {duration(time.perf_counter() - t0)})")
    return 0


def _workers(text: str) -> int:

    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if v == 0 or v < -1:
        raise argparse.ArgumentTypeError(f"expected a number of worker processes >= 1, or -1 for all cores; got {v}")
    return v


#: bootstrap resamples: as a study's ``[game] resamples`` at most 10**6 (each one a game's regrets recomputed)
_resamples = integer(min=1, limit=10**6, what="a number of bootstrap resamples")


def _output_options(p, *, report: bool = True) -> None:
    """``--results`` (and ``--report``): the study's folders, replacing its ``[output]`` table."""
    p.add_argument(
        "--results",
        help="the study's results folder (default: the study file's [output] results, else results/NAME beside it)",
    )
    if report:
        p.add_argument(
            "--report",
            help="the study's report folder (default: the study file's [output] report, else reports/NAME beside it)",
        )


def add_study_commands(sub) -> None:
    """Register ``gamemarket study ...``, ``gamemarket game ...`` and ``gamemarket report`` on the parser's
    subcommands ``sub``.
    """
    methods_help = "equilibrium methods: pure, polytope, support_enumeration, vertex_enumeration, lemke_howson"
    st = sub.add_parser("study", help="run equilibrium studies").add_subparsers(dest="scmd", required=True)
    r = st.add_parser(
        "run",
        help="run every unfinished profile x seed, then write the report",
        epilog=examples(
            "gamemarket study run studies/default.toml",
            "gamemarket study run mine.toml --n-jobs 4 --results out/results --report out/report",
            "gamemarket study run studies/shudler2010.toml --scheduler-address tcp://10.0.0.1:8786",
        ),
    )
    r.add_argument("file", help="the study file (.toml); runs already stored in its results folder are kept")
    r.add_argument("--n-jobs", type=_workers, default=-1, help="worker processes (-1: all cores)")
    r.add_argument(
        "--scheduler-address",
        help="a dask.distributed scheduler, e.g. tcp://10.0.0.1:8786 (default: none, local worker processes)",
    )
    r.add_argument(
        "--no-report", action="store_true", help="run the simulations only; write no report (default: write it)"
    )
    r.add_argument(
        "--no-progress", action="store_true", help="no progress bar on stderr (default: one where stderr is a terminal)"
    )
    r.add_argument("--methods", nargs="+", default=["pure", "polytope"], help=methods_help)
    _output_options(r)
    r.add_argument(
        "--force",
        action="store_true",
        help="write into a results or report folder gamemarket did not make, or that belongs to another study "
        "(files of the names gamemarket writes are replaced; nothing else is touched; default: refuse)",
    )
    add_plugin_option(r)
    r.set_defaults(func=cmd_study_run)
    n = st.add_parser(
        "new",
        help="write a commented study file that runs as it is",
        epilog=examples(
            "gamemarket study new mine && gamemarket study run mine.toml",
            "gamemarket study new my-population --population",
        ),
    )
    n.add_argument("name", help="the study's name, or a file name NAME.toml (the study's name is its stem)")
    n.add_argument("--population", action="store_true", help="a population game (default: a provider/consumer game)")
    n.add_argument("--force", action="store_true", help="replace an existing file of that name (default: refuse)")
    n.set_defaults(func=cmd_study_new)
    s = st.add_parser(
        "status",
        help="how many runs are stored",
        epilog=examples("gamemarket study status studies/default.toml"),
    )
    s.add_argument("file", help="the study file (.toml)")
    _output_options(s, report=False)
    s.set_defaults(func=cmd_study_status)

    g = sub.add_parser("game", help="solve and export games").add_subparsers(dest="gcmd", required=True)
    gs = g.add_parser(
        "solve",
        help="equilibria of a study's games, a CSV payoff table, an .nfg file or an EGTA JSON role-symmetric game",
        epilog=examples(
            'gamemarket game solve studies/default.toml --game "all jobs"',
            "gamemarket game solve reports/default/data/game-all-jobs.nfg --format json",
        ),
    )
    gs.add_argument(
        "file", help="a study file (.toml), a game (.nfg), a payoff table (.csv) or an EGTA JSON game (.json)"
    )
    gs.add_argument("--game", help="only this game of a study (default: all of them)")
    _output_options(gs, report=False)
    gs.add_argument("--format", choices=["text", "json"], default="text", help="how the equilibria are printed")
    gs.add_argument("--methods", nargs="+", default=["pure", "polytope"], help=methods_help)
    gs.add_argument(
        "--resamples", type=_resamples, default=1000, help="bootstrap resamples of the seeds for robustness"
    )
    gs.add_argument("--time-limit", type=float, default=10.0, help="seconds per nashpy method (wall clock)")
    add_plugin_option(gs)
    gs.set_defaults(func=cmd_game_solve)
    ge = g.add_parser(
        "export",
        help="payoff tables, equilibria (CSV, JSON) and .nfg files of a study",
        epilog=examples("gamemarket game export studies/default.toml --out exported/"),
    )
    ge.add_argument("file", help="the study file (.toml)")
    ge.add_argument("--out", help="folder (default: the study's report folder /data)")
    _output_options(ge)
    ge.add_argument(
        "--force", action="store_true", help="write into a folder gamemarket did not make (default: refuse)"
    )
    ge.add_argument("--methods", nargs="+", default=["pure", "polytope"], help=methods_help)
    ge.add_argument(
        "--resamples", type=_resamples, default=1000, help="bootstrap resamples of the seeds for robustness"
    )
    ge.set_defaults(func=cmd_game_export)

    rp = sub.add_parser(
        "report",
        help="write a study's report (HTML + Markdown + figures + tables)",
        epilog=examples(
            "gamemarket report studies/default.toml",
            "gamemarket report mine.toml --results out/results --report out/report",
        ),
    )
    rp.add_argument("study", help="the study file (.toml); its runs must be stored (see study run)")
    rp.add_argument("--methods", nargs="+", default=["pure", "polytope"], help=methods_help)
    _output_options(rp)
    rp.add_argument(
        "--force",
        action="store_true",
        help="write into a report folder gamemarket did not make, or that belongs to another study (default: refuse)",
    )
    rp.set_defaults(func=cmd_report)
