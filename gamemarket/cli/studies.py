"""CLI commands for studies, games and reports (added to the ``gamemarket`` parser)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

from gamemarket.cli.concepts import add_concept_options, check_concept_options, concept_options_given, solve_concept
from gamemarket.cli.options import EXIT_UNFINISHED, add_force, examples, integer, names_option, number, workers
from gamemarket.cli.output import FULL, Figure, Parts, exact, print_table, table_lines, terminal_width
from gamemarket.cli.plugin import add_plugin_option
from gamemarket.errors import InputError, UndefinedPayoffError
from gamemarket.games.budget import MAX_TIME_LIMIT, stderr_is_terminal
from gamemarket.games.equilibria import DEFAULT_METHODS, DEFAULT_TIME_LIMIT, EQUILIBRIUM_METHODS, check_solvable
from gamemarket.io.files import (
    OutputFolder,
    binary_mark,
    check_link,
    check_output_file,
    check_outputs,
    dumps_json,
    other_owner,
    read_input_bytes,
    shown_path,
    told_by_bytes,
)
from gamemarket.io.jobtable import check_table_path, write_table
from gamemarket.io.kinds import HEAD_BYTES, MODEL, TOML, kind_of, says_it_is
from gamemarket.io.limits import MAX_RESAMPLES, MIN_RESAMPLES


def _study(a, path):
    """The study file ``path`` with the command's ``--results`` and ``--report`` folders, where given."""
    from gamemarket.studies import load_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

    return load_study(path, results=getattr(a, "results", None), report=getattr(a, "report", None))


def _load_game_source(path: str, game_name: str | None, a=None, sized=None):
    """A study file (its stored results), a CSV game or an .nfg game -> list of (name, Game); ``sized``: a check of
    the game's shape an ``.npz`` makes from its headers before it is read (``read_npz_game``)."""
    from gamemarket.games.io import read_csv_game, read_nfg  # deferred: pandas

    p = Path(path)
    check_link(p, "study or game file")
    if p.suffix.lower() == ".toml":
        from gamemarket.games.bimatrix import from_results  # deferred: pandas
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
            except UndefinedPayoffError as exc:  # said: a game named, or left out of every game
                if game_name:
                    raise InputError(f"{path}: {exc}") from None
                warnings.warn(f"{path}: {exc}; it is left out", stacklevel=2)
        if game_name and not games:
            raise InputError(f"{path}: no game named {game_name!r}; games: {[g.name for g in spec.games]}")
        return games
    if p.suffix.lower() == ".nfg":
        return [read_nfg(p)]
    if p.suffix.lower() == ".csv":
        return [read_csv_game(p)]
    if p.suffix.lower() == ".npz":
        from gamemarket.games.io import read_npz_game  # deferred: pandas

        return [read_npz_game(p, sized=sized)]
    raise InputError(
        f"{path}: expected a study (.toml), a game (.nfg), a payoff table (.csv), a game's arrays (.npz) or an EGTA "
        f"JSON game (.json), told by the name's ending{says_it_is(path, '') or _marked(path)}"
    )


def _marked(path) -> str:
    """`` (is gzip-compressed (decompress it first: ...))`` where the file's first bytes say so, else ``""``."""
    mark = binary_mark(path)
    return f" (is {mark})" if mark else ""


#: the most cells of a payoff table the text answer prints: a larger game's tables are said, not printed (a 2,000 x
#: 2,000 game's 8 million cells took 136 s of a 5 s search's answer; hunt 19b-F1)
PRINTED_CELLS = 2_500


def _payoff_lines(game, width: int | None) -> list[str]:
    """Each player's payoff table: rows the first player's strategies, columns the second's, each cell the mean
    and its 95% CI half-width (the mean alone where the game has no interval); one line for a game of more than
    :data:`PRINTED_CELLS` cells."""
    if game.A.size > PRINTED_CELLS:
        return [
            f"  payoff tables: {game.A.shape[0]:,} x {game.A.shape[1]:,}, not printed (more than {PRINTED_CELLS:,} "
            "cells each); the game's file holds them"
        ]
    ca, cb = game.ci()
    lines = []
    named = [(game.meta or {}).get(f"{who}_payoff") for who in ("provider", "consumer")]
    # a study's game names its payoffs; a negated one is said so (review 20: -mean_bsd printed without a word)
    said = [f" {n}" + (" (negated: lower is better)" if n.startswith("-") else "") if n else "" for n in named]
    for title, M, C in (
        (f"{game.players[0]} payoff{said[0]}", game.A, ca),
        (f"{game.players[1]} payoff{said[1]}", game.B, cb),
    ):
        cells = "mean ± 95% CI half-width" if np.isfinite(C).any() else "payoff; the game holds no intervals"
        lines.append(f"  {title} (rows: {game.players[0]}, columns: {game.players[1]}; {cells})")
        rows = [
            (
                r,
                *(
                    Parts((Figure(M[i, j], 5, what="means"), " ± ", Figure(C[i, j], 2, what="half-widths")))
                    if np.isfinite(C[i, j])
                    else Figure(M[i, j], 5, what="means")
                    for j in range(len(game.cols))
                ),
            )
            for i, r in enumerate(game.rows)
        ]
        # where every digit is, said once (the first table's rounding line)
        lines += table_lines((game.players[0], *game.cols), rows, indent=2, width=width, full="" if lines[1:] else FULL)
    return lines


def _above_noise(value: float, payoffs, x, y) -> float:
    """An equilibrium's payoff, 0 where it is below the rounding of its sum ``x A y`` (64 ulps of the sum of its
    terms' sizes): matching pennies' 0 was printed as 3.08149e-33. Of the terms the profile weighs, not of the
    largest payoff: a payoff of 1 beside an unplayed 1e12, and one of 1e-6, were printed as 0 (hunts 30b-F2, 29c-W1)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    S, T = np.flatnonzero(x), np.flatnonzero(y)
    # (the block of the strategies played alone: the whole game's sizes were a copy of it an equilibrium, 2 minutes
    # of 1,500 pure equilibria of a 3,000 x 3,000 game, hunt 34b-F1's family)
    A = np.abs(np.asarray(payoffs, dtype=float)[np.ix_(S, T)])
    with np.errstate(over="ignore"):
        size = float(np.abs(x[S]) @ A @ np.abs(y[T])) if A.size else 0.0
    return 0.0 if abs(value) <= 64 * np.finfo(float).eps * size else value


def _equilibria_lines(sg, width: int | None) -> list[str]:
    """A solved game's equilibria as a table (each one's strategies, payoffs, regrets and the methods that found
    it), and their robustness as a second where it was measured."""
    from gamemarket.games.io import profile_words  # deferred: pandas

    g, sol = sg.game, sg.solution
    you, them = g.players
    rows, robust = [], []
    for k, (e, rb) in enumerate(zip(sol.equilibria, sg.robustness)):
        px, py = profile_words(g, e, digits=4)
        pay = [Figure(_above_noise(v, m, e.x, e.y), 6, what="payoffs") for v, m in zip(e.payoffs, (g.A, g.B))]
        regret = [Figure(e.regret[0], 2, what="regrets"), Figure(e.regret[1], 2, what="regrets")]
        rows.append((k + 1, "pure" if e.pure else "mixed", px, py, *pay, *regret, ", ".join(sorted(e.methods))))
        if rb is not None:
            ci = [
                Parts(("[", Figure(lo, 3, what="intervals"), ", ", Figure(hi, 3, what="intervals"), "]"))
                for lo, hi in (
                    (rb.regret_provider[1], rb.regret_provider[2]),
                    (rb.regret_consumer[1], rb.regret_consumer[2]),
                )
            ]
            robust.append((k + 1, rb.resamples, Figure(rb.stable_share, 1, "percent", what="shares"), *ci))
    headers = ("#", "kind", you, them, f"{you} payoff", f"{them} payoff", f"{you} regret", f"{them} regret", "found by")
    lines = table_lines(headers, rows, indent=2, width=width) if rows else []
    if robust:
        lines.append("  robustness: the equilibrium under bootstrap resamples of the seeds")
        headers = ("#", "resamples", "still an equilibrium", f"{you} regret 95% CI", f"{them} regret 95% CI")
        lines += table_lines(headers, robust, indent=2, width=width)
    return lines


def print_solved(sg) -> None:
    """Print one solved game of a study: its payoff tables with their CIs, its equilibria with their regrets
    and robustness (tables, cut to the terminal's width), and the game's flags.
    """
    g, sol = sg.game, sg.solution
    width = terminal_width()
    # (a title or file name holding escapes or a line break: shown escaped, not run by the terminal, 32b-W1)
    print(
        f"== game: {shown_path(sg.name)} ({g.shape[0]}x{g.shape[1]}"
        + (f", {g.reps()} replications" if g.reps() else "")
        + ")"
    )
    if g.meta.get("dropped_consumers"):
        print(f"  (consumer strategies without this payoff, left out: {', '.join(g.meta['dropped_consumers'])})")
    print("\n".join(_payoff_lines(g, width)))
    if sol.dominated_rows or sol.dominated_cols:
        print(
            f"  strictly dominated (iterated): {g.players[0]}: {', '.join(sol.dominated_rows) or '-'}; "
            f"{g.players[1]}: {', '.join(sol.dominated_cols) or '-'}"
        )
    print(f"  degenerate game: {sol.degenerate_words}")
    print(f"  equilibria: {len(sol.equilibria)}" + ("" if sol.exhaustive else " (not every one: see the note)"))
    lines = _equilibria_lines(sg, width)
    if lines:
        print("\n".join(lines))
    for n in sol.notes:
        print(f"  note: {n}")


def cmd_study_run(a) -> int:
    """``gamemarket study run``: :func:`gamemarket.workflow.run_study` with the command's options, its lines
    printed as it goes."""
    from gamemarket.workflow import run_study  # deferred: joblib, matplotlib, pandas, pyarrow, scipy.optimize

    if a.no_report:
        _no_effect(a.file, {"--report": a.report is not None, "--methods": list(a.methods) != list(DEFAULT_METHODS)},
                   "to the report, which --no-report leaves out")  # fmt: skip
    run_study(
        a.file,
        results=a.results,
        report=a.report,
        write_report=not a.no_report,
        n_jobs=a.n_jobs,
        scheduler_address=a.scheduler_address,
        progress=not a.no_progress and stderr_is_terminal(),  # as --help says: a bar only where one is seen
        force=a.force,
        methods=tuple(a.methods),
        log=print,
    )
    return 0


def _no_effect(file, given: dict[str, bool], why: str) -> None:
    """Refuse options that would have no effect (``given``: option -> whether it was given), naming them and
    ``why`` (and the ``file`` they would have applied to, where there is one): a command that ignored them would
    have done something other than what was asked."""
    named = [k for k, v in given.items() if v]
    if named:
        raise InputError(
            f"{f'{file}: ' if file is not None else ''}{', '.join(named)} appl{'ies' if len(named) == 1 else 'y'} "
            f"{why}; leave "
            f"{'it' if len(named) == 1 else 'them'} out (no effect)"
        )


def _mixture_cell(mixture: dict) -> Parts:
    """One role's mixture as a cell: ``0.25 truthful + 0.75 shade-0.5``, shares to 6 significant digits."""
    parts = []
    for s, p in mixture.items():
        parts += [" + "] if parts else []
        parts += [Figure(p, 6, what="shares"), f" {s}"]
    return Parts(tuple(parts), text=True)


def _solve_egta(a) -> int:
    from gamemarket.games.egta import read_egta  # deferred: pandas
    from gamemarket.games.rsg_equilibria import equilibria  # deferred: pandas, scipy.optimize

    game = read_egta(a.file)
    try:
        sol = equilibria(game, time_limit=a.time_limit, progress=a.progress)
    except InputError as exc:  # about the game's payoffs: say which file (hunt 29b-W7, 29c-F1's message named none)
        raise InputError(f"{getattr(a, 'shown', a.file)}: {exc}") from None
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
        shown = shown_path(getattr(a, "shown", a.file))
        print(f"== {shown}: roles {dict(zip(game.roles, game.players))}; {sol.summary()}")
        rows = [
            (
                k + 1,
                *(_mixture_cell(r["mixture"][role]) for role in game.roles),
                Figure(r["regret"], 3, what="regrets"),
                r["stability"],
                ", ".join(r["methods"]),
            )
            for k, r in enumerate(recs)
        ]
        if rows:
            headers = ("#", *game.roles, "regret", "stability", "found by")
            print_table(headers, rows, indent=2, full=FULL)
    for n in sol.notes:  # (a duplicate strategy's equilibria listed once, a game where every mixture is one: the
        # answer's own words, printed only of an unfinished search before: hunt 19a-F5); JSON: beside it, on stderr
        print(f"gamemarket: note: {n}", file=sys.stderr) if a.format == "json" else print(f"  note: {n}")
    if not sol.complete:  # what was found is printed; the search did not finish (its notes said above: 22b-W2 read
        # each twice)
        _unfinished([])
        return EXIT_UNFINISHED
    if not sol.found:
        print(f"gamemarket: {sol.summary()}", file=__import__("sys").stderr)
        return EXIT_UNFINISHED
    return 0


def _said_beside_the_answer(solved, json_out: bool) -> int:
    """Exit 3 where the methods asked found no equilibrium of a game (every game has one: ``--methods pure`` of
    rock-paper-scissors printed ``[]`` and exit 0), saying so on stderr; 0 otherwise. With ``--format json`` what
    the text says of the game goes to stderr too (degenerate, strictly dominated strategies, a partial search's
    note): the JSON list holds equilibria only."""
    for sg in solved:
        where = f"{sg.name}: " if len(solved) > 1 else ""
        if json_out:  # what the text says of the game beside its equilibria (the JSON list holds equilibria only)
            sol = sg.solution
            if sol.degenerate:
                # (the text's words: "listed" above a partial search's note was hunt 22b-F7, a sibling of 20d-F4)
                print(f"gamemarket: {where}degenerate game: {sol.degenerate_words}", file=sys.stderr)
            if sol.dominated_rows or sol.dominated_cols:
                g = sg.game
                print(
                    f"gamemarket: {where}strictly dominated (iterated): {g.players[0]}: "
                    f"{', '.join(sol.dominated_rows) or '-'}; {g.players[1]}: {', '.join(sol.dominated_cols) or '-'}",
                    file=sys.stderr,
                )
            for n in sol.notes:  # every note the text prints (hunt 26c-W4: "X: returned a profile ... (discarded)"
                # was the text's alone, and the JSON's user saw no sign that anything was dropped)
                print(f"gamemarket: {where}{n}", file=sys.stderr)
    empty = [sg for sg in solved if not sg.solution.equilibria]
    if not empty:
        return 0
    for sg in empty:
        where = f" of {sg.name}" if len(solved) > 1 else ""
        print(f"gamemarket: none found: no equilibrium{where} by the methods asked; exit 3", file=sys.stderr)
    return EXIT_UNFINISHED


def _unfinished(notes: list[str], what: str = "the search for equilibria") -> None:
    """On stderr: ``what`` did not finish, and each note that says where it stopped (in either format: ``--format
    json`` prints no notes on stdout)."""
    for n in notes:
        if n.startswith("incomplete: "):
            print(f"gamemarket: {n[len('incomplete: ') :]}", file=sys.stderr)
    print(f"gamemarket: {what} did not finish (see the note); exit 3", file=sys.stderr)


def _solved_unfinished(solved) -> bool:
    """Where a game's search or bootstrap stopped at the time limit (what was found is the answer, printed or
    written): say so on stderr, True (the command's exit 3)."""
    if all(sg.finished for sg in solved):
        return False
    search = not all(sg.solution.complete for sg in solved)
    _unfinished(
        [n for sg in solved for n in sg.solution.notes],
        "the search for equilibria" if search else "the bootstrap of the equilibria's robustness",
    )
    return True


def cmd_study_new(a) -> int:
    """``gamemarket study new``: write a commented study file that runs as it is."""
    from gamemarket.studies.templates import new_study  # deferred: joblib, pandas, pyarrow, scipy.optimize

    path = new_study(a.name, population=a.population, force=a.force)
    print(f"{path}: a new {'population ' if a.population else ''}study; run it with `gamemarket study run {path}`")
    return 0


def cmd_study_reference(a) -> int:
    """``gamemarket study reference``: the study file's reference, generated from the schema that checks a study
    (the same text as ``docs/reference/study-file.md``), for a user with the package and not the repository."""
    from gamemarket.studies.schema import study_file_reference  # deferred: pydantic

    print(study_file_reference(), end="")
    return 0


#: a population record's file name (without ``.json``): its key's hash
RECORD_NAME = re.compile(r"[0-9a-f]{32}")


def _say_unreadable(store) -> None:
    """The stored population records that do not read (damaged, edited since), where any: the count of the initial
    seeds' runs said nothing of the candidates' and added seeds' records, which `report` refuses (hunt 19a-W6)."""
    folder = store.dir
    names = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
    bad = [k for k in names if store.read(k) is None]  # (a query: nothing is moved)
    keyed = [k for k in bad if RECORD_NAME.fullmatch(k)]  # a record's name is its key's hash
    if keyed:
        print(
            f"{len(keyed):,} of the {len(names):,} stored records do not read (first: "
            f"{shown_path(store.path(keyed[0]))}); `gamemarket study run` sets aside those this study needs and runs "
            "them again"
        )
    if len(bad) > len(keyed):  # (hunt 20d-W13: a user's notes there were promised a clean-up that never came)
        other = next(k for k in bad if k not in keyed)
        print(
            f"{len(bad) - len(keyed):,} file(s) in {shown_path(folder)} are no record of gamemarket's (first: "
            f"{other}.json): left as they are"
        )


def _say_whose_results(spec) -> None:
    """On stderr, where the study's results folder is another study's (``--results``): `study run` and `report`
    refuse it, and `study status` counted its runs as this study's without a word (hunt 19a-W2)."""
    from gamemarket.studies.store import study_store  # deferred: joblib, pandas, pyarrow

    store = study_store(spec)
    theirs = other_owner(store.root, store.owner, "results folder")
    if theirs is not None:
        print(
            f"gamemarket: {shown_path(store.root)}: this results folder belongs to {theirs}, not to this study: the "
            "counts below are of the runs stored there that this study's inputs name (`study run` and `report` "
            "refuse the folder without --force)",
            file=sys.stderr,
        )


def cmd_study_status(a) -> int:
    """``gamemarket study status``: how many of a study's runs are stored and how many are missing."""
    from gamemarket.studies import study_status  # deferred: joblib, pandas, pyarrow, scipy.optimize
    from gamemarket.workflow.study import check_notes, companions_of  # deferred: joblib, matplotlib, pandas, pyarrow

    spec = _study(a, a.file)
    check_notes(spec)  # a discussion field the run would refuse, said before it (hunt 22b-W10)
    _say_whose_results(spec)
    if spec.population is not None:
        from gamemarket.analysis.population import PopulationGames  # deferred: joblib, pandas, pyarrow, scipy.optimize

        st = PopulationGames(spec)
        # a design's fixed mechanisms are those its search compares: [design] compare, else every provider (hunt
        # 20c-F2: with compare = [] the run ran none, and status counted the providers' runs as missing forever)
        compare = spec.design.compare if spec.design is not None else None
        counted = [p for p in spec.providers if compare is None or p.name in compare]
        done, total = _initial_runs_stored(spec, st, counted)
        if spec.design is None:
            _say_population_stored(spec, st, done, total)
            _say_unreadable(st.runs.store)
        else:  # its answer is the design search's: stored, or why not (hunt 8: "8/8 stored" beside a report that
            # said the answer was stale); its runs are mostly the search's points', which no plan lists in advance
            # (hunt 15: "0/60 stored" of a search interrupted with 180 of its runs stored)
            from gamemarket.search.design import (  # deferred: scipy, the optimisers
                DamagedAnswer,
                design_plan,
                points_stored,
                read_answer,
            )

            # (a record's name is its key's hash: a report's manifest written there with --force was counted as a
            # run, hunt 34a-W3)
            folder = st.runs.store.dir
            stored = sum(1 for p in folder.glob("*.json") if RECORD_NAME.fullmatch(p.stem)) if folder.is_dir() else 0
            of_fixed = (
                f"the fixed mechanisms' ({done:,}/{total:,} of their initial seeds)"
                if counted
                else "no fixed mechanism's ([design] compare = [])"
            )
            print(
                f"study {spec.name}: {stored:,} population runs stored ({shown_path(st.runs.store.dir)}): the design "
                f"search's points' and {of_fixed}; a search that was stopped goes on from them"
            )
            # the points against the most the search evaluates (hunt 31a-W7: "0/60", the fixed mechanisms' count, was
            # all it said of a search stopped at 156 of its 400 points)
            plan = design_plan(spec, len(st.grid))
            try:
                n, whole = points_stored(spec)
                said = f"{'' if whole else 'at least '}{n:,} of at most {plan.points:,} design points stored"
            except InputError as exc:  # (the optimiser's library missing: the run says so too)
                said = f"the design points stored were not counted ({exc})"
            print(
                f"design search: {said} ([design] budget = {plan.budget:,} per scheduler; each point "
                f"{plan.per_point:,} grid simulations and its paired records; up to {plan.grid_simulations:,} grid "
                "simulations in all with the fixed mechanisms)"
            )
            try:
                read_answer(spec)
                print("design answer: stored, and current")
            except DamagedAnswer as exc:  # (hunt 18a, F7: an edited answer was "stored, and current")
                print(f"design answer: {exc}")  # (it says where, what is wrong, and that it is not to be trusted)
            except InputError as exc:
                print(f"design answer: not current: {exc}")
        return 0
    st = study_status(spec)
    print(
        f"study {st['study']}: {st['done']:,}/{st['tasks']:,} runs stored, {st['missing']:,} missing "
        f"({shown_path(st['results'])})"
    )
    if st["unreadable"]:
        print(
            f"{st['unreadable']:,} of the missing are stored but do not read (first: {st['first_bad']}); "
            "`gamemarket study run` sets them aside and runs them again"
        )
    if st["writer"]:
        print(f"being written now by {st['writer']}: the counts change as it stores its runs")
    if spec.gains is not None:
        _say_gains_stored(spec)
    # every companion `study run` runs, and the report reads (hunt 20d-W10), a companion's own too (31a-W6)
    for companion in companions_of(spec):
        cs = study_status(companion)
        print(
            f"companion study {cs['study']}: {cs['done']:,}/{cs['tasks']:,} runs stored, {cs['missing']:,} missing "
            f"({shown_path(cs['results'])})"
        )
    if spec.population_study is not None:  # its report quotes it, `study run` runs it (hunt 21c-F3: "8/8 stored"
        # beside a report refused for the population study's missing runs)
        from gamemarket.analysis.population import PopulationGames  # deferred: joblib, pandas, pyarrow, scipy

        linked = _study(None, spec.population_study)
        st = PopulationGames(linked)
        done, total = _initial_runs_stored(linked, st, linked.providers)
        _say_population_stored(linked, st, done, total, f"population study {linked.name} (the notes quote it)")
    return 0


def _initial_runs_stored(spec, st, providers) -> tuple[int, int]:
    """Of a population study's runs at its grid on its initial seeds for ``providers``: how many are stored, of how
    many (a query: nothing is moved)."""
    keys = [st.runs.key(p, m, s) for p in providers for s in spec.seeds for m in st.grid]
    return sum(st.runs.store.read(k, set_aside_bad=False) is not None for k in keys), len(keys)


def _say_population_stored(spec, st, done: int, total: int, who: str = "") -> None:
    """A population study's initial-seed runs stored (``done`` of ``total``) and its exploration's state: its own
    status, or (``who``) that of the population study a provider/consumer study's discussion quotes."""
    from gamemarket.search.exploration import exploration_status  # deferred: scipy, the optimisers

    print(
        f"{who or f'study {spec.name}'}: {done:,}/{total:,} population runs of the initial seeds stored "
        f"({shown_path(st.runs.store.dir)}); candidates and added seeds follow from these"
    )
    said = exploration_status(spec)  # (hunt 18b-F2: an exploration that was not stored was not mentioned)
    if said:
        print(said)


def _say_gains_stored(spec) -> None:
    """The ``[gains]`` experiment's runs, size by size: `study run` makes them and the report needs them (hunt
    20c-F4: "36/36 runs stored, 0 missing" beside a report refused for missing gain runs)."""
    from gamemarket.studies import study_status  # deferred: joblib, pandas, pyarrow, scipy.optimize
    from gamemarket.studies.gains import derived_studies  # deferred: the markets

    counts = [(n, study_status(sub)) for n, sub in derived_studies(spec)]
    parts = ", ".join(f"{n:,} jobs {s['done']:,}/{s['tasks']:,}" for n, s in counts)
    missing = sum(s["missing"] for _, s in counts)
    print(
        f"shading gains ([gains]): {parts} runs stored"
        + (f"; {missing:,} missing: `{spec.run_command()}` runs them" if missing else "")
    )


def cmd_study_jobs(a) -> int:
    """``gamemarket study jobs``: the per-job outcome of one stored run, re-run exactly and checked."""
    from gamemarket.studies.jobs import run_jobs  # deferred: joblib, pandas, pyarrow, scipy.optimize

    spec = _study(a, a.file)
    # never one of its inputs, nor inside the results folder it reads (a stored run)
    check_outputs({"--out": a.out}, [p for p in [*spec.inputs(), spec.results_dir] if Path(p).exists()])
    out = check_table_path(check_output_file(a.out, option="--out", force=a.force))
    jobs, summary = run_jobs(spec, a.provider, a.consumer, a.seed)
    write_table(jobs, out)
    print(
        f"{out}: {len(jobs):,} jobs of {a.provider} x {a.consumer} x seed {a.seed} (revenue "
        f"{exact(summary['revenue'])}, every digit); its cohort sums equal the stored ones exactly"
    )
    return 0


#: the endings ``game solve`` tells a game file's format by
GAME_SUFFIXES = (".toml", ".nfg", ".csv", ".npz", ".json")


def _sniffed_suffix(data: bytes) -> str:
    """A game's format told by its first bytes, for a pipe (whose name, ``/dev/fd/63``, has no ending): a zip
    archive is arrays (.npz), ``NFG`` Gambit's, ``{`` an EGTA JSON game, anything else a payoff table (CSV, whose
    reader says what is wrong with it)."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if data[:2] == b"PK":
        return ".npz"
    if head[:3] == b"NFG":
        return ".nfg"
    return ".json" if head[:1] == b"{" else ".csv"


@contextlib.contextmanager
def _piped_game(a):
    """A game given as a pipe (``<(cat game.nfg)``): its bytes read once (up to the memory limit), its format told
    by them, and the command run on a private copy of them, every message naming the pipe. A pipe has no ending to
    tell the format by: every .nfg, .csv and .json game was refused as "expected a study (.toml), a game ...",
    which the docs' "a pipe is read once, as a file is" did not allow (hunt 14)."""
    p = Path(a.file)
    # a descriptor's name (/dev/stdin redirected from a file, /dev/fd/3) has no ending either (hunt 20b-W4)
    if p.suffix.lower() in GAME_SUFFIXES or not told_by_bytes(p):
        yield
        return
    data = read_input_bytes(p, "game")
    if not data.strip():  # (hunt 20d-W5: pandas' "No columns to parse from file")
        raise InputError(f"{p}: the stream is empty; expected a game (.nfg, CSV, EGTA JSON or .npz bytes)")
    said = kind_of(data[:HEAD_BYTES], whole=len(data) < HEAD_BYTES)
    if said is not None and said[0] in (TOML, MODEL):  # (hunt 20b-W6: pandas' "Error tokenizing data")
        raise InputError(
            f"{p}: a stream holding {said[0].what}, not a game; a study's results and reports are placed "
            "beside its file: save it to a file first"
        )
    with tempfile.TemporaryDirectory(prefix="gamemarket-pipe-") as folder:
        copy = (Path(folder) / "game").with_suffix(_sniffed_suffix(data))  # (no name of the user's in a file name)
        copy.write_bytes(data)
        a.file, a.shown = str(copy), str(p)
        try:
            with warnings.catch_warnings(record=True) as said_beside:
                warnings.simplefilter("always")
                yield
        except InputError as exc:
            raise InputError(str(exc).replace(str(copy), str(p))) from None
        finally:
            a.file = str(p)
            for w in said_beside:  # the warnings, naming the pipe, not the copy (hunt 20b-W5)
                warnings.warn_explicit(str(w.message).replace(str(copy), str(p)), w.category, w.filename, w.lineno)


def _population_answer(spec, form: str) -> int:
    """``game solve`` of a population study: its stored answer, as ``study run`` prints it; of a study that
    explores, the exploration's answer first (the report's), then the menu's only, said to be a comparison (in
    JSON: each record's ``source``, ``exploration`` or ``menu``), or why no exploration is stored."""
    # deferred: joblib, pandas, pyarrow, scipy.optimize
    from gamemarket.analysis.population import equilibria_json
    from gamemarket.reports.console import MENU_COMPARISON, exploration_lines, population_lines
    from gamemarket.search.exploration import read_stored_exploration
    from gamemarket.search.population import run_population_study

    an = run_population_study(spec, run=False)
    explores = spec.exploration is not None
    ex, why = read_stored_exploration(spec)
    if form == "json":
        menu = equilibria_json(an)
        if explores:
            menu = _exploration_records(ex, why) + [{"source": "menu", **r} for r in menu]
        print(dumps_json(menu, indent=2))
        return 0
    if explores:
        print("the study's answer: its exploration's" + (f": none stored ({why})" if ex is None else ""))
        if ex is not None:
            print("\n".join(exploration_lines(ex)))
    print("\n".join(population_lines(an, comparison=explores)))
    if explores:
        print(f"({MENU_COMPARISON})")
    return 0


def _exploration_records(ex, why: str) -> list[dict]:
    """The ``--format json`` records of a stored exploration's equilibria (``source``: ``exploration``), or one
    record saying why none is stored."""
    if ex is None:
        return [{"source": "exploration", "mechanism": None, "mixture": None, "note": why}]
    out = []
    for name, m in ex.mechanisms.items():
        for e in m.equilibria:
            out.append(
                {
                    "source": "exploration",
                    "mechanism": name,
                    "mixture": {"consumers": e.shares},
                    "epsilon": e.epsilon,
                    "tolerance": m.tolerance,
                    "verdict": e.verdict,
                    "certified": e.certified,
                    "revenue": e.revenue.to_json(),
                    "welfare": e.welfare.to_json(),
                }
            )
        if not m.equilibria:
            out.append({"source": "exploration", "mechanism": name, "mixture": None, "note": m.reason})
    return out


def cmd_game_solve(a) -> int:
    """``gamemarket game solve``: the equilibria of a study's games, a ``.nfg`` or CSV bimatrix game, or an
    EGTA JSON role-symmetric game, each verified by its regret; ``--format json`` prints a JSON list. A pipe is
    read once, its format told by its bytes (:func:`_piped_game`).
    """
    with _piped_game(a):
        if Path(a.file).suffix.lower() == ".toml":  # a design study: refused before any option of a game's search
            _no_game_of_a_design(a, _study(a, Path(a.file)), "game solve finds a game's equilibria")
        return _game_solve(a)


def _game_file_options(a, p: Path) -> None:
    """Refuse the options a game file's kind would ignore: a study's (``--game``, ``--results``, ``--resamples``)
    beside any game file, and the bimatrix search's (``--methods``, ``--complete``) beside an EGTA game (hunt 20b-F1:
    ``--methods pure`` printed a mixed equilibrium, exit 0). (The other concepts' options are refused there.)"""
    if p.suffix.lower() != ".toml":  # a game file has no study: its games, results and seeds are not there
        _no_effect(
            a.file,
            {"--game": a.game is not None, "--results": a.results is not None, "--resamples": a.resamples != 1000},
            "to a study file (.toml) only: a game file holds one game (no --game to pick), no stored results (no "
            "--results) and no seeds to resample (no --resamples)",
        )
    if p.suffix.lower() == ".json" and a.concept == "nash" and not concept_options_given(a):
        _no_effect(
            a.file,
            {"--methods": a.methods != list(DEFAULT_METHODS), "--complete": a.complete},
            "to a provider/consumer (bimatrix) game's search; an EGTA game is searched its own way (the role-symmetric "
            "search: pure profiles, support enumeration and replicator starts, each answer verified by its regret), "
            "within --time-limit",
        )


def _game_solve(a) -> int:
    """:func:`cmd_game_solve` of a file named by its ending."""
    from gamemarket.analysis.study import solve_game  # deferred: joblib, pandas, pyarrow, scipy.optimize
    from gamemarket.games.io import equilibria_records  # deferred: pandas

    p = Path(a.file)
    _game_file_options(a, p)
    if a.concept != "nash" or concept_options_given(a):  # (an option of another concept: refused there)
        return _solve_concept(a)
    if a.complete and not any(EQUILIBRIUM_METHODS.get(m).exhaustive for m in a.methods):
        exhaustive = [n for n, m in EQUILIBRIUM_METHODS.items() if m.exhaustive]
        raise InputError(
            f"--complete asks for every extreme equilibrium, which the methods asked ({', '.join(a.methods)}) do not "
            f"enumerate; add one that does ({', '.join(exhaustive)})"
        )
    if p.suffix.lower() == ".json":
        return _solve_egta(a)
    if p.suffix.lower() == ".toml":
        spec = _study(a, p)
        if spec.population is not None:
            # its answer is the stored search's: the bimatrix search's options would change nothing (hunt 8: --game
            # nonexistent, --methods gnm and --time-limit 0.001 printed every mechanism's answer, exit 0)
            _no_effect(
                a.file,
                {
                    "--game": a.game is not None,
                    "--methods": a.methods != list(DEFAULT_METHODS),
                    "--time-limit": a.time_limit != DEFAULT_TIME_LIMIT,
                    "--resamples": a.resamples != 1000,
                    "--complete": a.complete,
                },
                "to the equilibria of a provider/consumer (bimatrix) game, not to a population study's answer, "
                "which is the one its search stored (each mechanism's game is an EGTA JSON file in its report's data "
                "folder, which `game solve` takes)",
            )
            return _population_answer(spec, a.format)
    games = _load_game_source(a.file, a.game, a, sized=check_solvable)  # (an .npz sized as the solve will: 25b-F1)
    try:
        solved = [
            solve_game(
                g,
                methods=tuple(a.methods),
                resamples=a.resamples,
                time_limit=a.time_limit,
                progress=a.progress,
                complete=a.complete,
            )
            for g in games
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
    if _solved_unfinished(solved):  # what was found is printed; the search or the bootstrap did not finish
        return EXIT_UNFINISHED
    return _said_beside_the_answer(solved, a.format == "json")


def _solve_concept(a) -> int:
    """``game solve --concept qre|alpharank``: the file's games (an EGTA JSON game, or the bimatrix games of a study,
    an .nfg or a CSV table) through :func:`gamemarket.cli.concepts.solve_concept`; a population study is refused."""
    check_concept_options(a)
    if a.concept != "nash":  # the Nash search's own options: the other concepts run no such search
        nash_only = {  # (--time-limit bounds each concept's computation: hunt 17a-28, alpha-rank grew as n^6)
            "--methods": a.methods != list(DEFAULT_METHODS),
            "--complete": a.complete,
        }
        _no_effect(None, nash_only, f"to --concept nash, not --concept {a.concept}")
    p = Path(a.file)
    if p.suffix.lower() == ".json":
        from gamemarket.games.egta import read_egta  # deferred: pandas

        return solve_concept(a, [(str(getattr(a, "shown", a.file)), read_egta(a.file))])
    if p.suffix.lower() == ".toml" and _study(a, p).population is not None:
        raise InputError(
            f"{a.file}: --concept {a.concept} does not apply to a population study's search; give one of its games "
            "(the EGTA JSON files in its report's data folder)"
        )
    return solve_concept(
        a, [(g.title or str(getattr(a, "shown", a.file)), g) for g in _load_game_source(a.file, a.game, a)]
    )


def _no_game_of_a_design(a, spec, what: str) -> None:
    """Refuse a design study at once, saying what its answer is and where (the files that exist): it has no game of
    ``game solve``'s or ``game export``'s (hunt 18a, F8: `game solve` asked for `study run` after one, and `game
    export` named EGTA files its report does not hold)."""
    if spec.design is None:
        return
    from gamemarket.search.design import answer_whereabouts  # deferred: scipy, the optimisers

    raise InputError(f"{a.file}: a design study; {what}, and {answer_whereabouts(spec)}")


def cmd_game_export(a) -> int:
    """``gamemarket game export``: a study's payoff tables and games as files (CSV, JSON, ``.nfg``)."""
    from gamemarket.analysis.study import analyze, export  # deferred: joblib, pandas, pyarrow, scipy.optimize

    p = Path(a.file)
    if p.suffix.lower() != ".toml":
        raise InputError(f"{a.file}: export takes a study file (.toml)")
    spec = _study(a, p)
    _no_game_of_a_design(a, spec, "game export writes a provider/consumer study's games")
    if spec.population is not None:
        kind = "a population study"
        raise InputError(
            f"{a.file}: {kind}; game export writes a provider/consumer study's games. This study's games are in its "
            f"report's data/ ({spec.report_dir / 'data'}: each mechanism's reduced game as EGTA JSON and CSV), which "
            "study run and report write"
        )
    if not a.out:
        raise InputError(
            f"{a.file}: game export needs --out FOLDER, a folder of its own; the study's report folder already "
            f"holds these files in {spec.report_dir / 'data'} (study run and report write them there)"
        )
    out = Path(a.out)
    owner = f"game export of {os.path.relpath(spec.path, out.resolve())}"
    # the study's results folder is what export reads: --out may not be it (with --force its manifest was taken
    # over and its tables deleted), nor lie inside it
    inputs = [*spec.inputs(), spec.results_dir]
    folder = OutputFolder(  # held to finish(): another writer of this folder at once is refused (hunt 16d)
        out,
        owner=owner,
        what="export folder",
        force=a.force,
        inputs=inputs,
        option="--out",
        exclusive=True,
        staged=True,  # its files land together at finish(): a full disk left 10 of 23 beside a manifest (27b-F1)
    )
    with folder:  # an export that fails (no stored runs) gives the folder back as it was: none, where it made it
        an = analyze(
            spec, methods=tuple(a.methods), resamples=a.resamples, time_limit=a.time_limit, progress=a.progress
        )
        written = export(an, folder)
        folder.finish()
    for f in written:
        print(folder.final(f))
    # the files hold what was found, their notes say where a search or a bootstrap stopped (hunt 22b-F9: a million
    # resamples ran minutes with nothing said)
    return EXIT_UNFINISHED if _solved_unfinished(an.games + an.paper_games) else 0


def cmd_report(a) -> int:
    """``gamemarket report``: :func:`gamemarket.workflow.write_study_report` (nothing is simulated)."""
    from gamemarket.workflow import write_study_report  # deferred: joblib, matplotlib, pandas, pyarrow

    write_study_report(a.study, results=a.results, report=a.report, force=a.force, methods=tuple(a.methods), log=print)
    return 0


#: bootstrap resamples: as a study's ``[game] resamples`` (``io.limits.MIN_RESAMPLES`` to ``MAX_RESAMPLES``)
_resamples = integer(min=MIN_RESAMPLES, limit=MAX_RESAMPLES, what="a number of bootstrap resamples")


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


def _add_jobs_command(st) -> None:
    """Register ``gamemarket study jobs`` on the study command's subcommands ``st``."""
    j = st.add_parser(
        "jobs",
        help="the per-job outcome of one stored run, re-run exactly and checked against the stored sums",
        epilog=examples(
            "gamemarket study jobs studies/default.toml --provider hb-first --consumer FT --seed 1 --out jobs.csv"
        ),
    )
    j.add_argument("file", help="the study file (.toml) of a provider/consumer study")
    j.add_argument("--provider", required=True, help="one of the study's provider strategies (required)")
    j.add_argument("--consumer", required=True, help="one of the study's consumer strategies (required)")
    j.add_argument("--seed", type=int, required=True, help="one of the study's replication seeds (required)")
    j.add_argument("--out", required=True, help="the table to write: a .csv or .parquet file name (required)")
    add_force(j, "the --out file")
    _output_options(j, report=False)
    add_plugin_option(j)  # a study run with --plugin is read with it too (hunt 20a-F5)
    j.set_defaults(func=cmd_study_jobs)


def _add_solve_command(g, methods: dict) -> None:
    """Register ``gamemarket game solve`` on the game command's subcommands ``g`` (``methods``: the --methods
    option's declaration)."""
    gs = g.add_parser(
        "solve",
        help="equilibria of a study's games, a CSV payoff table, an .nfg file or an EGTA JSON role-symmetric game; "
        "or their logit QRE or alpha-rank (--concept)",
        epilog=examples(
            'gamemarket game solve studies/default.toml --game "all jobs"',
            "gamemarket game solve reports/default/data/game-all-jobs.nfg --format json",
            "gamemarket game solve reports/default/data/game-all-jobs.nfg --concept qre --lambda-range 1 1000",
            "gamemarket game solve reports/default/data/game-all-jobs.nfg --concept qre "
            "--observed provider:hb-first=12 consumer:FT=30 consumer:UNI50=10",
            "gamemarket game solve reports/population-default/data/game-provider-consumers.json --concept alpharank",
        ),
    )
    gs.add_argument(
        "file",
        help="a study file (.toml), a game (.nfg), a payoff table (.csv), a game's two payoff matrices (.npz: A and "
        "B, as numpy.savez writes them) or an EGTA JSON game (.json)",
    )
    gs.add_argument("--game", help="only this game of a study (default: all of them)")
    _output_options(gs, report=False)
    gs.add_argument("--format", choices=["text", "json"], default="text", help="how the equilibria are printed")
    gs.add_argument("--methods", **methods)
    gs.add_argument(
        "--resamples", type=_resamples, default=1000, help="bootstrap resamples of the seeds for robustness"
    )
    _time_limit_option(gs, solve_file=True)
    gs.add_argument(
        "--complete",
        action="store_true",
        help="enumerate every extreme equilibrium however long it may take, under --time-limit (default: a game "
        "whose enumeration's estimated work exceeds the time limit is answered by one equilibrium or a few, from "
        "Gambit's GNM where pygambit is installed, else nashpy's Lemke-Howson, and a note says so)",
    )
    _progress_option(gs)
    add_concept_options(gs)
    add_plugin_option(gs)
    gs.set_defaults(func=cmd_game_solve)


def _time_limit_option(p, *, solve_file: bool) -> None:
    """``--time-limit``: each game's search, its verification and its bootstrap, each on a clock of its own."""
    p.add_argument(
        "--time-limit",
        type=number(min=0, min_open=True, max=MAX_TIME_LIMIT, what="a number of seconds"),
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help="wall-clock seconds each equilibrium method may spend on one game ("
        + ("an EGTA JSON game: its whole search; " if solve_file else "")
        + f"default: {DEFAULT_TIME_LIMIT:g}), the elimination of dominated strategies before them spending at most "
        "half of it, as long again, at most, verifying what the search found, and as long "
        "again for the game's bootstrap of --resamples (reading the file and a few passes over its payoffs are not "
        "counted: seconds for a game of tens of millions of cells); a search stopped there "
        + ("prints" if solve_file else "writes")
        + " what it found, every equilibrium verified by its regret, with a note saying how far it got, and exits 3 "
        "(a bootstrap stopped there: no robustness, the note says so, exit 3)"
        + (
            ". With --concept qre or alpharank: the file's whole computation, which has no partial answer: one line "
            "says how far it got, exit 3"
            if solve_file
            else ""
        ),
    )


def _progress_option(p) -> None:
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr for a search or a bootstrap that runs more than 3 s (default: where stderr is "
        "a terminal)",
    )


def add_study_commands(sub) -> None:
    """Register ``gamemarket study ...``, ``gamemarket game ...`` and ``gamemarket report`` on the parser's
    subcommands ``sub``.
    """
    methods = names_option(EQUILIBRIUM_METHODS, DEFAULT_METHODS, "equilibrium methods")  # their registry's
    st = sub.add_parser("study", help="run equilibrium studies").add_subparsers(dest="scmd", required=True)
    r = st.add_parser(
        "run",
        help="run every unfinished profile x seed, then write the report",
        epilog=examples(
            "gamemarket study run studies/default.toml",
            "gamemarket study run mine.toml --n-jobs 4 --results out/results --report out/report",
            "gamemarket study run studies/shudler2010.toml --scheduler-address tcp://10.0.0.1:8786",
            "gamemarket study run studies/default.toml --time-limit 600",
        ),
    )
    r.add_argument("file", help="the study file (.toml); runs already stored in its results folder are kept")
    r.add_argument("--n-jobs", type=workers, default=-1, help="worker processes (-1: all cores)")
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
    r.add_argument("--methods", **methods)
    r.add_argument(
        "--time-limit",
        dest="run_time_limit",
        type=number(min=0, min_open=True, max=MAX_TIME_LIMIT, what="a number of seconds"),
        default=None,
        metavar="SECONDS",
        help="wall-clock seconds the whole command may run (its runs, a population study's adaptive seeds, a design's "
        "probes, its companions and its report; default: no limit): there it stops as at a Ctrl-C, every finished "
        "run kept and no file half-written, and exits 3; the same command resumes",
    )
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
    ref = st.add_parser(
        "reference",
        help="print the study-file reference (every table and field: type, range, default, meaning) as Markdown",
        epilog=examples("gamemarket study reference > study-file.md"),
    )
    ref.set_defaults(func=cmd_study_reference)
    _add_jobs_command(st)
    s = st.add_parser(
        "status",
        help="how many runs are stored",
        epilog=examples("gamemarket study status studies/default.toml"),
    )
    s.add_argument("file", help="the study file (.toml)")
    _output_options(s, report=False)
    add_plugin_option(s)  # a study run with --plugin is read with it too (hunt 20a-F5)
    s.set_defaults(func=cmd_study_status)

    g = sub.add_parser("game", help="solve and export games").add_subparsers(dest="gcmd", required=True)
    _add_solve_command(g, methods)
    ge = g.add_parser(
        "export",
        help="payoff tables, equilibria (CSV, JSON) and .nfg files of a study",
        epilog=examples("gamemarket game export studies/default.toml --out exported/"),
    )
    ge.add_argument("file", help="the study file (.toml)")
    ge.add_argument(
        "--out",
        help="the export folder, a folder of its own (required: the report folder's data/ already holds these files)",
    )
    _output_options(ge)
    ge.add_argument(
        "--force", action="store_true", help="write into a folder gamemarket did not make (default: refuse)"
    )
    ge.add_argument("--methods", **methods)
    ge.add_argument(
        "--resamples", type=_resamples, default=1000, help="bootstrap resamples of the seeds for robustness"
    )
    _time_limit_option(ge, solve_file=False)
    _progress_option(ge)
    add_plugin_option(ge)  # a study run with --plugin is read with it too (hunt 20a-F5)
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
    rp.add_argument("--methods", **methods)
    _output_options(rp)
    rp.add_argument(
        "--force",
        action="store_true",
        help="write into a report folder gamemarket did not make, or that belongs to another study (default: refuse)",
    )
    add_plugin_option(rp)  # a study run with --plugin is read with it too (hunt 20a-F5)
    rp.set_defaults(func=cmd_report)
