"""The derivative-free optimisers a best-response search can use, over a parametric family's box.

scipy.optimize's Nelder-Mead, differential evolution (a generation as one batch of candidates, [Storn1997]_) and
locally biased DIRECT, and optuna's TPE sampler (seeded; the ``explore`` extra). Each maximises an objective that
takes a batch of points and records what it is asked: the caller keeps the best.

References
----------
.. [Storn1997] R. Storn and K. Price, "Differential evolution: a simple and efficient heuristic for global
   optimization over continuous spaces", Journal of Global Optimization 11 (1997) 341-359.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from gamemarket import bids
from gamemarket.consumers import ConsumerStrategy, ParametricFamily
from gamemarket.errors import InputError, shown_name
from gamemarket.studies.population_config import RESOLUTION, optuna_missing

#: the derivative-free optimisers the oracle can use: scipy.optimize's three, and optuna's TPE (an optional extra)
OPTIMISERS = ("nelder-mead", "differential_evolution", "direct", "optuna-tpe")


def start_point(fam: ParametricFamily, rule: ConsumerStrategy):
    """Where a search of ``fam`` may start from ``rule``: its coordinates where it is one of the family's
    points; for a family on knots of the private bid (``piecewise``), the beta of each knot's bid class where
    the rule shades by class (a per-class rule's closest point); else None."""
    if rule.family == fam.name:
        return np.asarray(fam.coordinates(rule), dtype=float)
    knots = getattr(fam, "knots", None)
    if knots is not None and rule.betas_by_class is not None and len(knots) == fam.dimension:
        return np.asarray(rule.betas_by_class, dtype=float)[bids.bid_bin_codes(np.asarray(knots, dtype=float))]
    return None


def optimise(objective, box, optimiser: str, evaluations: int, *, x0=None, seed: int = 0) -> None:
    """Maximise ``objective`` (a batch of points -> their values) over ``box``.

    Parameters
    ----------
    objective : callable
        ``objective(list of points) -> list of values``; it records what it is asked (the caller keeps the best).
    box : list of (float, float)
        ``[lower, upper]`` of each coordinate (:func:`search_box`).
    optimiser : str
        ``differential_evolution`` (a generation at a time, [Storn1997]), ``nelder-mead`` (from ``x0``, one
        point at a time), ``direct`` (the locally biased DIRECT of Gablonsky and Kelley), all scipy.optimize;
        or ``optuna-tpe`` (optuna's tree-structured Parzen estimator, seeded, from ``x0``; the ``explore`` extra).
    evaluations : int
        The most objective values to ask for (approximately for differential evolution: whole generations).
    x0 : sequence of float, optional
        A start point (Nelder-Mead's and TPE's first; differential evolution's first generation holds it;
        DIRECT ignores it).
    seed : int
        The optimiser's random seed (differential evolution's and TPE's).
    """
    box = [(float(a), float(b)) for a, b in box]
    lo, hi = np.array([b[0] for b in box]), np.array([b[1] for b in box])

    def f(v):  # one point: minimised
        return -objective([np.clip(v, lo, hi)])[0]

    if optimiser == "differential_evolution":
        _differential_evolution(objective, f, box, evaluations, x0, seed)
    elif optimiser == "nelder-mead":
        dim = len(box)
        start = np.clip(np.asarray(x0 if x0 is not None else (lo + hi) / 2, dtype=float), lo, hi)
        step = 0.25 * (hi - lo)
        simplex = [start] + [
            np.clip(start + step[k] * np.eye(dim)[k] * (1 if start[k] + step[k] <= hi[k] else -1), lo, hi)
            for k in range(dim)
        ]
        optimize.minimize(
            f,
            start,
            method="Nelder-Mead",
            bounds=box,
            options={"maxfev": evaluations, "initial_simplex": np.array(simplex), "xatol": RESOLUTION, "fatol": 0},
        )
    elif optimiser == "direct":
        optimize.direct(f, box, maxfun=evaluations, locally_biased=True, len_tol=RESOLUTION / float(min(hi - lo)))
    elif optimiser == "optuna-tpe":
        _tpe(objective, box, evaluations, x0, seed)
    else:
        raise InputError(f"exploration: unknown optimiser {shown_name(optimiser)}; expected one of {list(OPTIMISERS)}")


def _differential_evolution(objective, f, box, evaluations: int, x0, seed: int) -> None:
    """scipy's differential evolution, a generation as one batch of candidates (one fan-out of runs)."""
    dim = len(box)
    lo, hi = np.array([b[0] for b in box]), np.array([b[1] for b in box])
    popsize = 5  # x dim points a generation: a short search of a 3-parameter family needs few generations
    gens = max(evaluations // (popsize * dim) - 1, 0)
    init = "latinhypercube"

    def batch_map(func, pts):  # scipy's `workers`: one generation as one batch of candidates (one fan-out)
        pts = [np.clip(p, lo, hi) for p in pts]
        return [-v for v in objective(pts)]

    if x0 is not None:
        rng = np.random.default_rng(seed)
        init = rng.uniform(lo, hi, (popsize * dim, dim))
        init[0] = np.clip(x0, lo, hi)
    optimize.differential_evolution(
        f,
        box,
        maxiter=gens,
        popsize=popsize,
        init=init,
        seed=seed,
        polish=False,
        tol=0,
        updating="deferred",
        workers=batch_map,
    )


def _tpe(objective, box, evaluations: int, x0, seed: int) -> None:
    """optuna's TPE sampler (seeded, so the same seed asks the same points), one point at a time, ``x0`` first."""
    try:
        import optuna  # deferred: an optional extra (``pip install gamemarket[explore]``), and slow to import
    except ImportError:
        raise optuna_missing() from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed))
    names = [f"x{k}" for k in range(len(box))]
    if x0 is not None:
        study.enqueue_trial(dict(zip(names, (float(v) for v in np.clip(x0, *np.transpose(box))))))
    for _ in range(evaluations):
        trial = study.ask()
        v = [trial.suggest_float(n, lo, hi) for n, (lo, hi) in zip(names, box)]
        study.tell(trial, float(objective([np.array(v)])[0]))
