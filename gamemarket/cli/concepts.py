"""``gamemarket game solve --concept qre|alpharank``: solution concepts beside Nash equilibria (the logit QRE's
principal branch and its limit, alpha-rank's ranking of the pure profiles), as tables or ``--format json``."""

from __future__ import annotations

import math
import sys

import numpy as np

from gamemarket.cli.options import EXIT_UNFINISHED, OnceList, integer, number
from gamemarket.cli.output import FULL, Figure, Parts, print_table
from gamemarket.errors import InputError
from gamemarket.games.alpharank import DEFAULT_ALPHA, DEFAULT_EPS, DEFAULT_M, MAX_ALPHA, alpharank
from gamemarket.games.budget import SearchClock, Stopped
from gamemarket.games.qre import fit_lambda, logit_branch, roles_and_strategies
from gamemarket.io.files import dumps_json, shown_path

#: the least ``--alpha``: a round number whose hundredth (where the sensitivity is shown) is a normal float
LEAST_ALPHA = 1e-300

CONCEPTS = ("nash", "qre", "alpharank")

#: the lambda range whose branch points are printed by default (units of each role's payoff spread)
DEFAULT_LAMBDA_RANGE = (0.1, 1000.0)
#: branch points printed between the range's ends (log-spaced)
POINTS = 7
#: alpha-rank's profiles printed
TOP = 10


def add_concept_options(gs) -> None:
    """``--concept`` and the options of the concepts beside Nash, on the game solve command ``gs``."""
    gs.add_argument(
        "--concept",
        choices=CONCEPTS,
        default="nash",
        help="what to compute: nash (the equilibria, each verified by its regret), qre (the logit quantal response "
        "equilibria's principal branch and its limit, the equilibrium it selects) or alpharank (the pure profiles "
        "ranked by the stationary distribution of evolutionary dynamics)",
    )
    positive = number(min=0, min_open=True, what="a finite number")
    # (its sensitivity is printed at 10 ALPHA and ALPHA/100: at most alpharank's largest intensity, and a float whose
    # hundredth is normal)
    intensity = number(min=LEAST_ALPHA, max=MAX_ALPHA / 10, what="a selection intensity")
    gs.add_argument(
        "--lambda-range",
        nargs=2,
        type=positive,
        metavar=("LOW", "HIGH"),
        help=f"--concept qre: print the branch at {POINTS} log-spaced lambdas from LOW to HIGH, in units of each "
        f"role's payoff spread (default: {DEFAULT_LAMBDA_RANGE[0]:g} {DEFAULT_LAMBDA_RANGE[1]:g}); increasing, > 0",
    )
    gs.add_argument(
        "--observed",
        nargs="+",
        action=OnceList,
        metavar="ROLE:STRATEGY=COUNT",
        help="--concept qre: observed play (how often each strategy was played, counts or shares; each strategy "
        "once, a strategy not named: 0), to fit the lambda under which it is most likely (maximum likelihood on the "
        "branch, McKelvey and Palfrey's fit); e.g. provider:hb-first=12 consumer:FT=30 consumer:SRG=10 (default: "
        "none, no fit)",
    )
    gs.add_argument(
        "--alpha",
        type=intensity,
        metavar="ALPHA",
        help=f"--concept alpharank: the selection intensity, at least {LEAST_ALPHA:g} and at most "
        f"{MAX_ALPHA / 10:g}, in units of each "
        "role's payoff spread "
        "(default: 100, OpenSpiel's); the ranking is also printed at ALPHA/100, ALPHA/10, 10 ALPHA and in the "
        "infinite-alpha limit, for its sensitivity",
    )
    gs.add_argument(
        "--population",
        type=integer(min=2, limit=10**6, what="a population size"),
        metavar="M",
        help="--concept alpharank: each player's population size (default: 50, OpenSpiel's)",
    )


def _given(a) -> dict:
    """Each option of a concept beside Nash: (whether it was given, its concept)."""
    return {
        "--lambda-range": (a.lambda_range is not None, "qre"),
        "--observed": (a.observed is not None, "qre"),
        "--alpha": (a.alpha is not None, "alpharank"),
        "--population": (a.population is not None, "alpharank"),
    }


def concept_options_given(a) -> bool:
    """Whether any option of a concept beside Nash was given (refused with ``--concept nash`` by
    :func:`check_concept_options`)."""
    return any(set_ for set_, _ in _given(a).values())


def check_concept_options(a) -> None:
    """Refuse an option of one concept given with another, and a lambda range that does not increase."""
    for opt, (set_, concept) in _given(a).items():
        if set_ and a.concept != concept:
            raise InputError(f"{opt} applies to --concept {concept}, not --concept {a.concept}")
    if a.lambda_range is not None:
        lo, hi = a.lambda_range
        if not (0 < lo < hi) or not math.isfinite(hi):
            raise InputError(f"--lambda-range: expected LOW < HIGH, both > 0; got {lo:g} {hi:g}")


def solve_concept(a, games: list) -> int:
    """``gamemarket game solve --concept qre|alpharank`` on ``games`` ((name, game) pairs: bimatrix games or an
    EGTA JSON role-symmetric game), printed as the command's ``--format`` says."""
    if a.concept == "qre" and a.observed:  # every game before any is printed (hunt 20b-F5: half an answer, exit 2)
        for name, game in games:
            _check_observed(a, name, game, len(games))
    out = []
    clock = SearchClock(a.time_limit, progress=a.progress)  # one limit for the file's games and their computations
    for name, game in games:
        try:
            rec = _qre(a, game, clock) if a.concept == "qre" else _alpharank(a, game, clock)
        except Stopped as exc:  # no partial answer: what was computed of the file's games is printed, then why not
            if a.format == "json":
                print(dumps_json(out, indent=2))
            print(f"gamemarket: {getattr(a, 'shown', a.file)}: game {name}: {exc}", file=sys.stderr)
            return EXIT_UNFINISHED
        except InputError as exc:
            raise InputError(f"{a.file}: {exc}") from None
        rec = {"game": name, "concept": a.concept, **rec}
        out.append(rec)
        if a.format == "text":
            (_print_qre if a.concept == "qre" else _print_alpharank)(rec)
    if a.format == "json":
        print(dumps_json(out, indent=2))
    return 0


def _check_observed(a, name: str, game, count: int) -> None:
    """``--observed`` against one of the file's games, naming the game (and, of a study's game, the strategies it
    left out: their payoff is undefined there) where it does not fit."""
    try:
        observed_counts(a.observed, *roles_and_strategies(game))
    except InputError as exc:
        dropped = (getattr(game, "meta", None) or {}).get("dropped_consumers") or []
        raise InputError(
            f"{a.file}: game {name}: {exc}"
            + (f" (this game leaves out {', '.join(dropped)}: its payoff is undefined there)" if dropped else "")
            + ("; --game NAME solves one of the study's games" if count > 1 else "")
        ) from None


def _qre(a, game, clock: SearchClock) -> dict:
    lo, hi = a.lambda_range or DEFAULT_LAMBDA_RANGE
    br = logit_branch(game, clock=clock)
    if hi > br.lambdas.max():
        raise InputError(f"--lambda-range: HIGH {hi:g} is beyond the traced branch (up to {br.lambdas.max():g})")
    points = []
    for lam in np.geomspace(lo, hi, POINTS):
        x = br.at(lam)
        points.append({"lambda": float(lam), "mixture": br.mixture_dict(x), "residual": br.residual_at(x, lam)})
    fit = None
    if a.observed:
        lam, x, ll = fit_lambda(br, observed_counts(a.observed, br.roles, br.strategies))
        fit = {"lambda": lam, "mixture": br.mixture_dict(x), "log_likelihood": ll, "observed": a.observed}
    return {
        "lambda_units": "each role's payoff spread",
        "units": dict(zip(br.roles, br.units.tolist())),
        "branch": points,
        "limit": {
            "lambda": float(br.lambdas[-1]),
            "mixture": br.mixture_dict(br.limit),
            "regret": dict(zip(br.roles, (float(r) for r in br.limit_regret))),
            "verified": br.polished,
        },
        "fit": fit,
        "notes": br.notes,
    }


def observed_counts(items: list[str], roles: list, strategies: list) -> np.ndarray:
    """The counts ``--observed`` gives (``ROLE:STRATEGY=COUNT`` each; the role may be left out where the game has
    one role, or where the strategy's name is one role's only), as a vector in the game's order of strategies."""
    index = {(r, s): k for k, (r, s) in enumerate((r, s) for r, names in zip(roles, strategies) for s in names)}
    counts = np.zeros(len(index))
    given: dict[int, str] = {}  # strategy -> the item that gave its count
    for item in items:
        name, eq, value = item.rpartition("=")
        if not eq or not name:
            raise InputError(f"--observed: expected ROLE:STRATEGY=COUNT, got {item!r}")
        # ROLE:STRATEGY, or a strategy's name alone (a name that itself holds a colon matches as it is)
        keys = [k for k in index if f"{k[0]}:{k[1]}" == name] or [k for k in index if k[1] == name]
        if len(keys) != 1:
            known = ", ".join(f"{r}:{s}" for r, s in index)
            what = "names more than one strategy" if keys else "names no strategy of the game"
            raise InputError(f"--observed: {name!r} {what}; expected one of {known}")
        try:
            n = float(value)
        except ValueError:
            n = math.nan
        if not math.isfinite(n) or n < 0:
            raise InputError(f"--observed: {item!r}: expected a count or share >= 0, got {value!r}")
        k = index[keys[0]]
        if k in given:  # (summed before: with shares rather than counts a sum means nothing)
            raise InputError(
                f"--observed: {keys[0][0]}:{keys[0][1]} is given twice ({given[k]!r} and {item!r}); give each "
                "strategy once, with all of its observed play"
            )
        given[k] = item
        counts[k] = n
    if not counts.any():
        raise InputError("--observed: every count is 0; expected some play observed")
    return counts


def _mixture_cell(mixture: dict) -> Parts:
    parts = []
    for s, p in mixture.items():
        parts += [" + "] if parts else []
        parts += [Figure(p, 4, what="shares"), f" {s}"]
    return Parts(tuple(parts), text=True)


def _print_qre(rec: dict) -> None:
    roles = list(rec["limit"]["mixture"])
    print(f"== {shown_path(rec['game'])}: logit QRE, lambda in units of each role's payoff spread")
    rows = [
        (Figure(p["lambda"], 4, what="lambdas"), *(_mixture_cell(p["mixture"][r]) for r in roles), p["residual"])
        for p in rec["branch"]
    ]
    lim = rec["limit"]
    rows.append(("limit", *(_mixture_cell(lim["mixture"][r]) for r in roles), "-"))
    print_table(("lambda", *roles, "logit residual"), rows, indent=2, full=FULL)
    regrets = ", ".join(f"{r} {v:.3g}" for r, v in lim["regret"].items())
    verdict = "a Nash equilibrium, verified" if lim["verified"] else "not verified as a Nash equilibrium"
    print(f"  limit (branch traced to lambda {lim['lambda']:.4g}): {verdict} (regret: {regrets})")
    fit = rec["fit"]
    if fit is not None:
        print(f"  fitted to the observed play: lambda {fit['lambda']:.4g} (log-likelihood {fit['log_likelihood']:.6g})")
        rows = [("fitted", *(_mixture_cell(fit["mixture"][r]) for r in roles))]
        print_table(("lambda", *roles), rows, indent=2, full=FULL)
    for n in rec["notes"]:
        print(f"  note: {n}")


def _alpharank(a, game, clock: SearchClock) -> dict:
    alpha = a.alpha if a.alpha is not None else DEFAULT_ALPHA
    m = a.population if a.population is not None else DEFAULT_M
    alphas = (alpha / 100, alpha / 10, alpha, alpha * 10, None)
    # the five chains estimated together before the first starts (the estimate counted one: hunt 24c-F3's note)
    res = alpharank(game, alpha=alpha, m=m, clock=clock, chains=len(alphas))
    sensitivity = []
    for k, al in enumerate(alphas):
        left = sum(1 for b in alphas[k:] if b != alpha)  # this chain and those after it
        r = res if al == alpha else alpharank(game, alpha=al, m=m, clock=clock, chains=left)
        # the first profile among those ranked first (ties within the ranking's tolerance: in profile order, never
        # by float noise in the last digits, hunt 25c-W1), and the others tied with it
        firsts = [int(i) for i in np.flatnonzero(np.asarray(r.ranks) == 1)] or [int(r.order[0])]
        best = firsts[0]
        sensitivity.append(
            {
                "alpha": al,
                "first": r.profiles[best],
                "score": float(r.pi[best]),
                "tied_with": [r.profiles[i] for i in firsts[1:]],
            }
        )
    return {
        "alpha": alpha,
        "population": m,
        "alpha_units": "each role's payoff spread",
        "ranking": [
            {"rank": int(res.ranks[i]), "profile": res.profiles[i], "score": float(res.pi[i]), "log_score": lp}
            for i in res.order
            for lp in [float(res.log_pi[i]) if np.isfinite(res.log_pi[i]) else None]
        ],
        "sensitivity": sensitivity,
        "residual": res.residual,
    }


def _log10(log_score: float):
    """A score's base-10 logarithm, which orders scores below the float range (None: 0 in floats)."""
    # (never as an integer: a whole -8.7e15 was written with 16 digits beside -2.606e+16; hunt 18c-W6)
    return "-inf" if log_score is None else Figure(log_score / math.log(10), 4, what="logarithms", whole=False)


def _print_alpharank(rec: dict) -> None:
    units = "units of each role's payoff spread"
    print(f"== {shown_path(rec['game'])}: alpha-rank, alpha {rec['alpha']:g} ({units}), m {rec['population']}")
    rows = [
        (r["rank"], r["profile"], Figure(r["score"], 4, what="scores"), _log10(r["log_score"]))
        for r in rec["ranking"][:TOP]
    ]
    print_table(("rank", "profile", "score", "log10 score"), rows, indent=2, full=FULL)
    left = len(rec["ranking"]) - TOP
    if left > 0:
        print(f"  ({left:,} more profiles; --format json lists them all)")
    print("  sensitivity: the first profile at other alphas")
    rows = [
        (
            "eps-limit" if s["alpha"] is None else Figure(s["alpha"], 4, what="alphas"),
            s["first"] + (f" (tied with {len(s['tied_with']):,} more)" if s.get("tied_with") else ""),
            Figure(s["score"], 4),
        )
        for s in rec["sensitivity"]
    ]
    print_table(("alpha", "first", "score"), rows, indent=2)
    finite = [s for s in rec["sensitivity"] if s["alpha"] is not None]
    limit = next((s for s in rec["sensitivity"] if s["alpha"] is None), None)
    # (hunt 21b-W1: the row named another winner than every large alpha, and the note said its ranking is the point;
    # 25c-W1: tied first profiles are one answer, whichever of them is named)
    differs = (
        limit is not None
        and finite
        and not {limit["first"], *limit.get("tied_with", [])} & {finite[-1]["first"], *finite[-1].get("tied_with", [])}
    )
    print(
        f"  (eps-limit: OpenSpiel's infinite-alpha limit, a losing switch kept at probability eps {DEFAULT_EPS:g}, so "
        "its score may be below a large alpha's"
        + (
            f"; here its first profile is not the largest alpha's ({finite[-1]['first']}): the finite alphas' trend "
            "is the chain's own limit, the eps-limit another chain's)"
            if differs
            else ")"
        )
    )
