"""Certificates: the bound an equilibrium carries over every rule evaluated against it, by sequential sampling.

A best-response search evaluates many rules against an equilibrium on its search seeds and keeps the best; that
rule's in-sample gain is biased upward (the winner's curse), and a fresh-seed interval of that one rule says
nothing of the others. A certificate instead evaluates **every** rule the search evaluated (the menu's rules
included) on fresh seeds, and reports

    epsilon = max over the evaluated rules of the one-sided upper confidence bound of its gain.

Why no correction for the number of rules. The statement "every evaluated rule gains at most epsilon" is the
statement "the largest true gain is at most epsilon". Let ``i*`` be the rule of largest true gain (a fixed rule,
whatever the data): if the largest true gain exceeds epsilon, then rule ``i*``'s own bound fails, which happens
with probability at most ``alpha``. So the maximum of per-rule ``1 - alpha`` bounds is a ``1 - alpha`` bound on the
maximum, with no union bound over the rules (the intersection-union principle [Berger1982]_: "every gain is at most
the tolerance" is rejected only where each rule's own test rejects). A union bound over ``m`` rules is needed only to
claim that a *particular* rule gains more than the tolerance: the deviation verdict below uses it (each rule's lower
bound at ``alpha / m``).

Sequential sampling. Rules are evaluated on ``n0`` fresh seeds, then on twice as many, and so on up to a cap
(:func:`gamemarket.confidence.doubling_looks`); at each look a rule whose upper bound is at most the tolerance is
settled, and only the unsettled ones get more seeds. The error is spent evenly over the planned looks
(:func:`gamemarket.confidence.spending`, Bonferroni over the looks [Jennison2000]_), so the bound holds whichever look
the design stops at: with probability at least ``1 - alpha``, no evaluated rule gains more than the reported
epsilon. The design stops at the first look where

* every rule is settled: **certified** (epsilon at most the tolerance);
* some rule's lower bound, at ``alpha_look / m``, is above the tolerance: **deviation**;

and otherwise, at the cap or where the budget of simulations ends: **undecided**, with its epsilon.

References
----------
.. [Berger1982] R. L. Berger, "Multiparameter hypothesis testing and acceptance sampling", Technometrics 24(4)
   (1982) 295-300.
.. [Jennison2000] C. Jennison and B. W. Turnbull, "Group Sequential Methods with Applications to Clinical Trials",
   Chapman & Hall/CRC (2000), chapter 2 (Pocock's design) and chapter 9 (repeated confidence intervals).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from gamemarket.confidence import doubling_looks, spending, t_bound, t_interval
from gamemarket.io.explored import CERTIFICATE_ALPHA, Certificate, RuleBound  # noqa: F401  a certificate and its JSON

#: the error of a certificate: epsilon is a 95% upper bound
ALPHA = CERTIFICATE_ALPHA

VERDICTS = ("certified", "deviation", "undecided")


def certify(
    evaluate: Callable,
    rules: list,
    fresh: list[int],
    tolerance: float,
    *,
    first: int,
    budget: int | None = None,
    cost: Callable | None = None,
    alpha: float = ALPHA,
    names: Callable = str,
    search_gains: dict | None = None,
) -> Certificate:
    """The certificate of an equilibrium over ``rules`` (module docstring), by sequential sampling on ``fresh`` seeds.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(rules, seeds) -> array (rules x seeds)`` of the rules' paired gains on those seeds (the oracle's,
        which keeps what it ran).
    rules : list
        Every rule evaluated against the equilibrium (distinct).
    fresh : list of int
        The fresh seeds, in the order they are used; their number is the cap.
    tolerance : float
    first : int
        The seeds of the first look.
    budget : int, optional
        The most simulations the certificate may use; a look that would exceed it is not made (undecided).
    cost : callable, optional
        ``cost(rules, seeds) -> int``: the simulations a look would make (the oracle's count of runs not made yet).
    alpha : float
        The error: epsilon is a ``1 - alpha`` upper bound.
    names : callable
        A rule's name.
    search_gains : dict, optional
        A rule's name -> its search-seed mean gain (reported beside its fresh figures).

    Returns
    -------
    Certificate
    """
    plan = doubling_looks(min(first, len(fresh)), len(fresh))
    levels = spending(alpha, len(plan))
    m = max(len(rules), 1)
    active = list(rules)
    latest: dict = {}
    used, looks, reason = 0, 0, ""
    verdict = "undecided"
    for n, a in zip(plan, levels):
        seeds = list(fresh[:n])
        need = cost(active, seeds) if cost is not None else 0
        if budget is not None and used + need > budget:
            reason = f"the budget of simulations ended before the look at {n} fresh seeds"
            break
        G = np.asarray(evaluate(active, seeds), dtype=float).reshape(len(active), len(seeds))
        used += need
        looks += 1
        for r, g in zip(active, G):
            latest[names(r)] = RuleBound(
                names(r),
                len(seeds),
                t_interval(g),
                _bound(g, a, "upper"),
                _bound(g, a / m, "lower"),
                float((search_gains or {}).get(names(r), float("nan"))),
            )
        if any(latest[names(r)].lower > tolerance for r in active):
            verdict = "deviation"
            break
        active = [r for r in active if not latest[names(r)].upper <= tolerance]
        if not active:
            verdict = "certified"
            break
    else:
        reason = f"a rule's upper bound is above the tolerance after {plan[-1]} fresh seeds (the cap)"
    bounds = sorted(latest.values(), key=lambda b: -b.gain[0] if math.isfinite(b.gain[0]) else math.inf)
    eps = max((b.upper for b in bounds), default=float("nan"))
    if verdict == "certified" and not eps <= tolerance:  # a NaN bound never certifies
        verdict = "undecided"
    return Certificate(
        eps,
        float(tolerance),
        verdict,
        tuple(bounds),
        looks,
        tuple(plan),
        alpha,
        used,
        "" if verdict != "undecided" else reason,
    )


def _bound(g: np.ndarray, alpha: float, side: str) -> float:
    """A one-sided bound of the mean of ``g``; a rule whose gains are all the same (the equilibrium's own rule, whose
    probe agents play what they played) is bounded by that value exactly."""
    if len(g) >= 2 and np.ptp(g) == 0:
        return float(g[0])
    return t_bound(g, alpha, side)
