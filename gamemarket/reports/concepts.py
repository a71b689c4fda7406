"""Beside a game's Nash equilibria in a report: the equilibrium the logit QRE selects and alpha-rank's first profiles
(#46 item 5), and a sentence where they disagree.

The logit limit (:func:`gamemarket.games.qre.logit_branch`) is matched to the listed equilibria (the largest
difference of a probability at most 1e-6); alpha-rank (:func:`gamemarket.games.alpharank.alpharank`, its defaults:
alpha 100 in units of each role's payoff spread, populations of 50) ranks the pure profiles. A concept that
cannot be computed is said to be, with the reason, rather than failing the report.
"""

from __future__ import annotations

import numpy as np

from gamemarket.errors import InputError
from gamemarket.games.alpharank import DEFAULT_ALPHA, DEFAULT_M, ELIMINATION_RATE, alpharank
from gamemarket.games.qre import logit_branch
from gamemarket.reports.markdown import num

#: alpha-rank's profiles named in the paragraph
TOP = 3
#: two mixtures closer than this (largest difference of a probability) are one equilibrium
SAME = 1e-6


def _words(roles, strategies, x, digits: int = 3) -> str:
    """A mixture (every role's, role by role) in words: ``provider hb-first; consumer 0.5 FT + 0.5 SRG``."""
    parts, k = [], 0
    for role, names in zip(roles, strategies):
        p = np.asarray(x[k : k + len(names)], dtype=float)
        k += len(names)
        used = [(s, v) for s, v in zip(names, p) if v > SAME]
        inner = used[0][0] if len(used) == 1 else " + ".join(f"{num(v, digits)} {s}" for s, v in used)
        parts.append(f"{role} {inner}")
    return "; ".join(parts)


def _shares(counts: np.ndarray, strategies) -> np.ndarray:
    """A profile's counts per strategy as each role's shares (a mixture, role by role)."""
    out, k = np.asarray(counts, dtype=float).copy(), 0
    for names in strategies:
        total = out[k : k + len(names)].sum()
        if total > 0:
            out[k : k + len(names)] /= total
        k += len(names)
    return out


def concepts_summary(game, equilibria: list[np.ndarray]) -> dict:
    """The logit selection and alpha-rank's ranking of ``game`` beside its listed ``equilibria`` (each a mixture of
    every role, role by role: a bimatrix game's ``concatenate([x, y])``).

    Returns
    -------
    dict
        ``selection`` (index into ``equilibria`` of the logit limit, or None), ``limit`` (its mixture), ``regret``,
        ``alpharank`` (the first profiles: (rank, profile as a mixture, score)) and ``words`` (the paragraph), or
        ``error`` where a concept could not be computed.
    """
    try:
        _check_alpharank_size(game)
        br = logit_branch(game)
        ar = alpharank(game)
    except InputError as exc:
        return {"error": str(exc), "words": f"The logit QRE and alpha-rank were not computed: {exc}"}
    eqs = [np.asarray(e, dtype=float) for e in equilibria]
    dist = [float(np.abs(br.limit - e).max()) for e in eqs]
    selection = int(np.argmin(dist)) if dist and min(dist) <= SAME else None
    counts = np.asarray(ar.counts, dtype=float)
    top = [(int(ar.ranks[i]), counts[i], float(ar.pi[i])) for i in ar.order[:TOP]]
    # a profile's counts as each role's shares: the listed equilibria are mixtures (a role-symmetric game's
    # players count many to a role; compared as counts, "4 truthful" was never the mixture "truthful")
    shares = _shares(top[0][1], br.strategies)
    first_eq = next((k for k, e in enumerate(eqs) if np.abs(e - shares).max() <= SAME), None)
    return {
        "selection": selection,
        "limit": br.limit,
        "regret": max(br.limit_regret),
        "alpharank": top,
        "first_equilibrium": first_eq,
        "words": _paragraph(
            br, top, selection, first_eq, getattr(game, "A", None) is None, selection is None and _mixes(br.limit, eqs)
        ),
    }


#: the most seconds alpha-rank's estimate (:data:`gamemarket.games.alpharank.ELIMINATION_RATE`) may reach for a
#: report to compute it: past it, the report says so instead (hunt 28a-F2: 6 rules and 12 players, 6,188 profiles,
#: kept a report silent past 70 s). Decided by the game's size alone, so that a report is the same on every machine
REPORT_ALPHARANK_SECONDS = 10.0


def _check_alpharank_size(game) -> None:
    """An :class:`InputError` where alpha-rank of ``game`` (one chain) would take more than
    :data:`REPORT_ALPHARANK_SECONDS` by its estimate, saying how to compute it anyway."""
    shape = np.shape(getattr(game, "A", None))
    P = shape[0] * shape[1] if len(shape) == 2 else len(game.profiles)
    seconds = P**3 / 3 / ELIMINATION_RATE
    if seconds > REPORT_ALPHARANK_SECONDS:
        raise InputError(
            f"alpha-rank of its {P:,} profiles would take about {seconds:,.0f} s (more than the "
            f"{REPORT_ALPHARANK_SECONDS:g} s a report gives it); `gamemarket game solve GAME --concept alpharank "
            "--time-limit SECONDS` (and `--concept qre`) compute them on the game's exported file"
        )


def _mixes(limit: np.ndarray, eqs: list[np.ndarray]) -> bool:
    """Whether ``limit`` is a mixture of the listed equilibria (a point of their convex hull, to :data:`SAME`): in a
    degenerate game the logit limit may be such a point of a component whose extreme equilibria are listed (hunt
    23a-W3: the average of three listed equilibria was "an equilibrium the listed equilibria do not include")."""
    if len(eqs) < 2:
        return False
    from scipy.optimize import nnls  # deferred: scipy.optimize (about a second), only where the limit is no listed one

    big = 1e3  # the weights' sum held at 1 by a heavily weighted row
    E = np.vstack([np.column_stack(eqs), big * np.ones(len(eqs))])
    lam, _ = nnls(E, np.r_[limit, big])
    return bool(np.abs(np.column_stack(eqs) @ lam - limit).max() <= SAME and abs(lam.sum() - 1) <= SAME)


def _paragraph(
    br, top, selection: int | None, first_eq: int | None, missed_by_search: bool = False, mixed: bool = False
) -> str:
    """The summary in words: the selection, alpha-rank's first profiles, and whether they agree."""
    roles, strategies = br.roles, br.strategies
    limit = _words(roles, strategies, br.limit)
    if selection is not None:
        qre = f"The logit QRE's principal branch ends at equilibrium {selection + 1} ({limit})"
    elif br.polished and mixed:
        qre = (
            f"The logit QRE's principal branch ends at {limit}, an equilibrium (its regret "
            f"{num(max(br.limit_regret), 3)}) that mixes listed equilibria: a point of the component they span in this "
            "degenerate game, not an extreme one itself"
        )
    elif br.polished:
        regret = num(max(br.limit_regret), 3)
        why = " (the role-symmetric search lists the roots its Newton starts reached, a statistic: it missed this one)"
        qre = (
            f"The logit QRE's principal branch ends at {limit}, an equilibrium (its regret {regret}) that the listed "
            f"equilibria do not include{why if missed_by_search else ''}"
        )
    else:
        qre = (
            f"The logit QRE's principal branch ends near {limit} (its regret {num(max(br.limit_regret), 3)}: not "
            "verified as an equilibrium)"
        )
    ranked = "; ".join(f"{rank}. {_words(roles, strategies, x)} ({num(s, 3)})" for rank, x, s in top)
    text = (
        f"{qre}. Alpha-rank (alpha {num(DEFAULT_ALPHA)} in units of each role's payoff spread, populations of "
        f"{DEFAULT_M}) ranks first {ranked}."
    )
    first = _words(roles, strategies, top[0][1])
    if first_eq is None:
        return text + (
            f" They disagree: alpha-rank's first profile ({first}) is none of the listed equilibria; the populations' "
            "dynamics spend most of their time there without it being one of them."
        )
    tied = sum(rank == 1 for rank, _, _ in top) > 1
    if selection is not None and (first_eq != selection or tied):
        n_first = sum(rank == 1 for rank, _, _ in top)
        first = f"ties {n_first} profiles first" if tied else f"puts equilibrium {first_eq + 1} first"
        return text + f" They disagree: alpha-rank {first}, the logit rule selects equilibrium {selection + 1}."

    if selection is None and mixed:
        return text + " The logit limit is a mixture of listed equilibria, not one of them itself."
    if selection is None:
        return text + " They disagree: the logit limit is not a listed equilibrium."
    return text + " Nash, the logit selection and alpha-rank agree."
