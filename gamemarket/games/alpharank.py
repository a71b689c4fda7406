"""Alpha-rank: pure profiles ranked by the stationary distribution of an evolutionary Markov chain.

Each player is a population of ``m`` individuals [Omidshafiei2019]_. Almost always every population is monomorphic
(all its individuals play one strategy), so the state is a pure profile. Now and then one population, drawn
uniformly, has a mutant strategy, drawn uniformly among its others, appear; it takes over with the fixation
probability of a Moran process under the Fermi selection function with intensity ``alpha``: where the mutant
earns ``f_t`` and the residents ``f_s``, ``u = alpha (f_t - f_s)`` and::

    rho(u) = (1 - exp(-u)) / (1 - exp(-m u))        (1 / m where u = 0)

The chain's transition from profile ``p`` to the profile ``q`` where population ``k`` switched is ``eta rho``, with
``eta = 1 / sum_k (|S_k| - 1)``; it stays at ``p`` with the rest. Its stationary distribution ``pi`` over the pure
profiles is the ranking: a profile's score is the share of time the populations spend there.

A role-symmetric game has ``N_r`` players in role ``r``, each a population of its own (the multi-population model
of the paper, which is what OpenSpiel computes for a game given one payoff table per player). The chain over the
players' pure profiles is symmetric within a role, so it lumps exactly onto the game's profiles (counts per
strategy): from counts ``c``, one of the ``c_s`` players of strategy ``s`` switches to ``t`` at rate
``c_s eta rho`` with ``eta = 1 / sum_r N_r (|S_r| - 1)``; a profile's score is the sum of its players' orderings'
scores. A bimatrix game is the case of two roles of one player. (OpenSpiel's single-population model, for
two-player symmetric games, is another chain and is not computed here.)

The stationary distribution is computed by the Grassmann-Taksar-Heyman elimination [Grassmann1985]_, which
subtracts nothing and so stays accurate where transition probabilities are tiny (a large ``alpha``); where some
are below ``exp(-600)`` it runs on their logarithms, so that a fixation probability of ``exp(-5000)`` still counts
(it decides between two sink components) and profiles whose scores are below the float range are still ranked.
``pi`` is checked: it sums to 1 and ``pi C = pi`` within 1e-12 (1e-9 where the elimination ran in logs, whose
rounding grows with their size).

As ``alpha`` grows, ``pi`` concentrates on the sink strongly connected components of the response graph (an edge
from a profile to a deviation that gains): :func:`sink_components`. The infinite-``alpha`` limit is computed as
OpenSpiel does (``use_inf_alpha``): a gaining switch has probability ``eta (1 - eps)``, a losing one ``eta eps``
and a neutral one ``eta / 2``, ``eps`` small, which keeps the chain irreducible.

References
----------
.. [Omidshafiei2019] S. Omidshafiei, C. Papadimitriou, G. Piliouras, K. Tuyls, M. Rowland, J.-B. Lespiau, W. M.
   Czarnecki, M. Lanctot, J. Perolat and R. Munos, "alpha-Rank: Multi-agent evaluation by evolution", Scientific
   Reports 9 (2019) 9937.
.. [Grassmann1985] W. K. Grassmann, M. I. Taksar and D. P. Heyman, "Regenerative analysis and steady state
   distributions for Markov chains", Operations Research 33 (1985) 1107-1116.
.. [Lanctot2019] M. Lanctot et al., "OpenSpiel: a framework for reinforcement learning in games", arXiv:1908.09453
   (2019). (``open_spiel.python.egt.alpharank``: the fixtures under ``tests/games/data/openspiel``.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from gamemarket.errors import InputError, check_flag, check_whole
from gamemarket.games.budget import RAISE_LIMIT, SearchClock, Stopped, TimeUp
from gamemarket.io.limits import check_fits

#: OpenSpiel's defaults: population size, selection intensity and the infinite-alpha limit's noise
DEFAULT_M = 50
DEFAULT_ALPHA = 100.0
#: the largest selection intensity: beyond it every fixation probability of a loss is below exp(-1e12) (the chain is
#: the infinite-alpha limit's, :func:`sink_components`) and ``alpha`` times a population's gains passes the float range
MAX_ALPHA = 1e12
#: the smallest: below it ``alpha`` is a subnormal float whose digits are lost (1e-320 was echoed as 9.99989e-321:
#: hunt 18c-W6); an intensity that small ranks every profile as alpha 0 does. The CLI takes at least
#: 1e-300 (its sensitivity is shown at ALPHA/100 too)
MIN_ALPHA = float(np.finfo(float).tiny)
DEFAULT_EPS = 0.01


@dataclass
class AlphaRank:
    """What :func:`alpharank` returns.

    Attributes
    ----------
    profiles : list of str
        Every pure profile in words (``role {strategy: count}; ...``), in the game's profile order.
    counts : numpy.ndarray
        The profiles as counts per strategy (a bimatrix game: one row strategy and one column strategy).
    pi : numpy.ndarray
        The stationary distribution over the profiles (sums to 1).
    order : numpy.ndarray
        Profile indices, highest score first (ties in profile order).
    log_pi : numpy.ndarray
        Its logarithm, which orders profiles whose scores are below the float range.
    ranks : numpy.ndarray
        Each profile's rank (1 the best; profiles whose log-scores differ by at most 1e-9 share one).
    alpha : float or None
        The selection intensity (None: the infinite-alpha limit).
    m, eps : int, float or None
        Population size; the limit's noise (None for a finite ``alpha``).
    normalized : bool
        Whether payoff differences were in units of each role's payoff spread.
    residual : float
        ``max |pi C - pi|``: how stationary ``pi`` is.
    """

    profiles: list
    counts: np.ndarray
    pi: np.ndarray
    log_pi: np.ndarray
    order: np.ndarray
    ranks: np.ndarray
    alpha: float | None
    m: int
    eps: float | None
    normalized: bool
    residual: float
    notes: list = field(default_factory=list)

    def top(self, k: int = 5) -> list[tuple[int, str, float]]:
        """The ``k`` best profiles: (rank, profile in words, score)."""
        return [(int(self.ranks[i]), self.profiles[i], float(self.pi[i])) for i in self.order[:k]]


def as_role_symmetric(game):
    """:func:`gamemarket.games.rsgame.as_role_symmetric` (a bimatrix game as two roles of one player each)."""
    from gamemarket.games.rsgame import as_role_symmetric as convert  # deferred: pandas (through the bimatrix game)

    try:
        return convert(game)
    except InputError as exc:
        raise InputError(f"alpha-rank: {exc}") from None


def fixation(u: np.ndarray, m: int) -> np.ndarray:
    """The Moran fixation probability ``(1 - exp(-u)) / (1 - exp(-m u))`` of a mutant with fitness advantage
    ``u`` (already times ``alpha``) in a population of ``m``, without overflow (``1/m`` where ``|u| < 1e-14``)."""
    u = np.asarray(u, dtype=float)
    out = np.full(u.shape, 1.0 / m)
    pos, neg = u > 1e-14, u < -1e-14
    with np.errstate(under="ignore", over="ignore"):
        out[pos] = np.expm1(-u[pos]) / np.expm1(-m * u[pos])
        v = -u[neg]
        out[neg] = np.exp(-(m - 1) * v) * np.expm1(-v) / np.expm1(-m * v)
    return out


def _moves(game, normalize: bool, clock: SearchClock | None = None):
    """Every switch of one player: (from profile, to profile, how many players can make it, payoff gain); ``clock``
    checked every :data:`MOVES_PER_LOOK` profiles (a 110 x 110 game's 8 million moves took 30 s of pure Python before
    a 1 s limit was first looked at: hunt 21b-F5), :class:`TimeUp` past its limit."""
    prof, pay = game.profiles, game.payoffs
    ri = game.role_index
    units = np.ones(len(game.roles))
    if normalize:
        for r in range(len(game.roles)):
            vals = pay[:, ri == r][prof[:, ri == r] > 0]
            spread = float(vals.max() - vals.min()) if vals.size else 0.0
            units[r] = spread if spread > 0 else 1.0
    index = {tuple(row): i for i, row in enumerate(prof.tolist())}
    src, dst, mult, gain = [], [], [], []
    for p, row in enumerate(prof.tolist()):
        if clock is not None and p % MOVES_PER_LOOK == 0:
            clock.check()
        for s in np.flatnonzero(prof[p]):
            r = ri[s]
            for t in np.flatnonzero(ri == r):
                if t == s:
                    continue
                q = list(row)
                q[s] -= 1
                q[t] += 1
                j = index[tuple(q)]
                src.append(p)
                dst.append(j)
                mult.append(row[s])
                gain.append((pay[j, t] - pay[p, s]) / units[r])
    return np.array(src, int), np.array(dst, int), np.array(mult, float), np.array(gain, float)


#: profiles of :func:`_moves` between two looks at the clock
MOVES_PER_LOOK = 200


def _log_rates(game, alpha, m: int, eps: float, normalize: bool, clock: SearchClock | None = None):
    """The chain's off-diagonal transitions as (from, to, log probability): logs, so that a fixation probability
    far below the float range (``exp(-5000)``) still counts."""
    _check(alpha, m, eps)
    normalize = check_flag(normalize, "alpha-rank: normalize")  # ('no' was true: the raw payoffs never used)
    src, dst, mult, gain = _moves(game, normalize, clock)
    eta = 1.0 / max(1, sum(n * (k - 1) for n, k in zip(game.players, game.num_strategies)))
    if alpha is None:
        tie = np.abs(gain) <= 1e-14
        log_rho = np.log(np.where(tie, 0.5, np.where(gain > 0, 1.0 - eps, eps)))
    else:
        log_rho = log_fixation(alpha * gain, m)
    return src, dst, np.log(eta * mult) + log_rho


def log_fixation(u: np.ndarray, m: int) -> np.ndarray:
    """The logarithm of :func:`fixation`, finite however large ``|u|``."""
    u = np.asarray(u, dtype=float)
    out = np.full(u.shape, -np.log(m))
    pos, neg = u > 1e-14, u < -1e-14
    up, v = u[pos], -u[neg]
    out[pos] = np.log(-np.expm1(-up)) - np.log(-np.expm1(-m * up))
    out[neg] = -(m - 1) * v + np.log(-np.expm1(-v)) - np.log(-np.expm1(-m * v))
    return out


def transition_matrix(
    game,
    *,
    alpha: float | None = DEFAULT_ALPHA,
    m: int = DEFAULT_M,
    eps: float = DEFAULT_EPS,
    normalize: bool = True,
) -> np.ndarray:
    """The alpha-rank Markov chain over the game's profiles (rows sum to 1; probabilities below the float range
    are 0 here); ``alpha=None``: the infinite-alpha limit with noise ``eps``."""
    game = as_role_symmetric(game)
    return _matrix(len(game.profiles), *_log_rates(game, alpha, m, eps, normalize))


def _matrix(P: int, src: np.ndarray, dst: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """The chain's ``P x P`` matrix from its off-diagonal transitions (:func:`_log_rates`); rows sum to 1."""
    C = np.zeros((P, P))
    np.add.at(C, (src, dst), np.exp(logp))
    C[np.diag_indices(P)] = 1.0 - C.sum(axis=1)
    return C


def _check(alpha, m, eps) -> None:
    if alpha is not None and (
        isinstance(alpha, (bool, np.bool_))
        or not isinstance(alpha, (int, float, np.integer, np.floating))  # (np.int64(5), np.float32 were refused)
        or not math.isfinite(alpha)
        or not MIN_ALPHA <= alpha <= MAX_ALPHA
    ):
        raise InputError(
            f"alpha-rank: alpha must be a number >= {MIN_ALPHA!r} and at most {MAX_ALPHA:g}, got {alpha!r} (larger: "
            "the infinite-alpha limit, alpha=None; smaller: a float that loses its digits, ranking as alpha 0 does)"
        )
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or m < 2:
        raise InputError(f"alpha-rank: the population size m must be an integer >= 2, got {m!r}")
    if alpha is None and not (0 < eps < 0.5):
        raise InputError(f"alpha-rank: eps must be in (0, 0.5), got {eps!r}")


def log_stationary(L: np.ndarray, clock: SearchClock | None = None) -> np.ndarray:
    """The logarithm of the stationary distribution of the chain whose off-diagonal transition probabilities have
    logarithms ``L`` (``-inf``: none; the diagonal is not read): Grassmann-Taksar-Heyman elimination in logs.

    Raises
    ------
    InputError
        Where the chain is reducible (its stationary distribution need not be unique).
    """
    A = np.array(L, dtype=float)
    n = len(A)
    with np.errstate(divide="ignore"):
        for k in range(n - 1, 0, -1):
            _step(clock, n - k)
            s = np.logaddexp.reduce(A[k, :k])
            if not np.isfinite(s):
                raise InputError(f"alpha-rank: the chain is reducible (state {k} leads to none before it)")
            A[:k, k] -= s
            A[:k, :k] = np.logaddexp(A[:k, :k], A[:k, k][:, None] + A[k, :k][None, :])
        lp = np.full(n, -np.inf)
        lp[0] = 0.0
        for k in range(1, n):
            lp[k] = np.logaddexp.reduce(lp[:k] + A[:k, k])
    return lp - np.logaddexp.reduce(lp)


class _Eliminated(TimeUp):
    """The clock ran out after ``done`` states of the elimination (said in the message)."""

    def __init__(self, done: int):
        super().__init__(done)
        self.done = done


def _step(clock: SearchClock | None, done: int) -> None:
    """One state of the elimination: the clock checked (past its limit, :class:`_Eliminated` with the states
    eliminated before this one) and its bar moved on."""
    if clock is not None:
        if clock.expired():
            raise _Eliminated(done - 1)
        clock.advance()


def stationary(C: np.ndarray) -> np.ndarray:
    """The stationary distribution of the irreducible chain ``C`` by Grassmann-Taksar-Heyman elimination (in
    logarithms where the ratios it forms leave the float range: :func:`log_stationary`)."""
    C = np.asarray(C, dtype=float)
    pi = _gth(C)
    if pi is None:
        with np.errstate(divide="ignore"):
            log_pi = log_stationary(np.log(C))
        pi = np.exp(log_pi - log_pi.max())
        pi /= pi.sum()
    return pi


def _gth(C: np.ndarray, clock: SearchClock | None = None) -> np.ndarray | None:
    """Grassmann-Taksar-Heyman elimination (the diagonal is not read); None where a ratio it forms leaves the float
    range (the elimination in logs then: :func:`log_stationary`)."""
    A = np.array(C, dtype=float)
    n = len(A)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(n - 1, 0, -1):
            _step(clock, n - k)
            s = A[k, :k].sum()
            if not s > 0:
                raise InputError(f"alpha-rank: the chain is reducible (state {k} leads to none before it)")
            A[:k, k] /= s
            A[:k, :k] += np.outer(A[:k, k], A[k, :k])
        pi = np.zeros(n)
        pi[0] = 1.0
        for k in range(1, n):
            pi[:k] /= pi[:k].max()  # rescaled as it goes (a ratio may be exp(600)): what underflows is negligible
            pi[k] = pi[:k] @ A[:k, k]
    if not np.isfinite(pi).all() or not np.isfinite(A).all():
        return None  # a ratio past the float range (a rate of 1e-236 against one of 0.5, at alpha 15)
    return pi / pi.sum()


def _ranks(log_pi: np.ndarray, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """(order, best first; each profile's rank, profiles whose log-scores are within ``tol`` of the one above
    sharing its rank): by logarithms, so that scores below the float range are still ordered."""
    pi = log_pi
    order = np.argsort(-pi, kind="stable")
    ranks = np.empty(len(pi), int)
    rank = 1
    for k, i in enumerate(order):
        if k and pi[order[k - 1]] != pi[i] and pi[order[k - 1]] - pi[i] > tol:  # (-inf ties -inf)
            rank = k + 1
        ranks[i] = rank
    return order, ranks


#: P x P matrices alpha-rank holds at its peak (:func:`alpharank`)
MATRICES = 6
#: operations a second of the elimination (:func:`_gth`): 5.2e8 measured on 2,000 profiles on an idle 2-core machine,
#: 1.5e8 under load (hunt 24c-F3: 1,600 profiles estimated 2.7 s took 8 s each): the slower rate, so that a chain
#: started is one that finishes; the estimate is refused only where it is :data:`OVERRUN` times the time left
ELIMINATION_RATE = 1.5e8
OVERRUN = 4


def alpharank(
    game,
    *,
    alpha: float | None = DEFAULT_ALPHA,
    m: int = DEFAULT_M,
    eps: float = DEFAULT_EPS,
    normalize: bool = True,
    time_limit: float | None = None,
    progress: bool | None = None,
    clock: SearchClock | None = None,
    chains: int = 1,
) -> AlphaRank:
    """Alpha-rank of a bimatrix or role-symmetric game: the stationary distribution over its pure profiles.

    Parameters
    ----------
    game : gamemarket.games.bimatrix.Game or RoleSymmetricGame
    alpha : float or None, keyword-only
        The selection intensity (finite, > 0), in units of each role's payoff spread where ``normalize``, else of
        the raw payoffs (OpenSpiel's). None: the infinite-alpha limit.
    m : int, keyword-only
        Each population's size (>= 2).
    eps : float, keyword-only
        The infinite-alpha limit's noise, in (0, 0.5).
    normalize : bool, keyword-only
        Payoff differences in units of each role's payoff spread (default), so that one ``alpha`` means the same in
        a game of revenues and in one of utilities.
    time_limit : float or None, keyword-only
        Wall-clock seconds (None: no limit). The elimination's work grows as the cube of the profiles (a 40 x 40
        game's 1,600: 37 s on a laptop; 60 x 60: minutes), and it has no partial answer: past the limit,
        :class:`~gamemarket.games.budget.Stopped` says how far it got.
    progress : bool or None, keyword-only
        A progress bar on stderr past a few seconds: True, False, or None (where stderr is a terminal).
    clock : SearchClock or None, keyword-only
        A running clock whose limit this computation shares with others (``game solve`` runs five, for the
        ranking's sensitivity to alpha): used instead of ``time_limit`` and ``progress``.
    chains : int, keyword-only
        How many chains of this game the caller will compute on ``clock``, this one first (``game solve``: five):
        the estimate made before it starts counts them all, so that a run refused is refused before the first
        (the estimate counted one, and the fifth was stopped after four had run).

    Returns
    -------
    AlphaRank
        ``pi`` checked: it sums to 1 and is stationary (``residual``, at most 1e-12).

    Raises
    ------
    InputError
        A non-finite or non-positive ``alpha``, a bad ``m`` or ``eps`` (the message names the value).
    """
    shape = np.shape(getattr(game, "A", None))  # (a role-symmetric game has no A: ())
    if len(shape) == 2:  # a bimatrix game's chain is sized by its shape before the conversion (hunt 22a-F5: 3.6 GB
        # and 16 s of conversion before the chain's refusal, under a 1.5 GB limit)
        P = shape[0] * shape[1]
        check_fits(MATRICES * P * P * 8, f"alpha-rank of {P:,} profiles ({MATRICES} {P:,} x {P:,} matrices)")
    rsg = as_role_symmetric(game)
    clock = SearchClock(time_limit, progress=progress) if clock is None else clock
    P = len(rsg.profiles)
    # the chain's matrix, its elimination's copy and its outer products, and (in logarithms) two more: P x P floats
    # each (hunt 17b-19: a 60 x 60 game's 3,600 profiles took 535 MB past a limit of 50 MB; 23c-F4: an EGTA game's
    # 4,096 took 650 MB more than the three matrices counted)
    check_fits(MATRICES * P * P * 8, f"alpha-rank of {P:,} profiles ({MATRICES} {P:,} x {P:,} matrices)")
    _check(alpha, m, eps)  # (before the clock: a bad argument is an error, not a stop)
    chains = check_whole(chains, "chains", 1)
    seconds = chains * P**3 / 3 / ELIMINATION_RATE
    left = clock.remaining()
    if left is not None and seconds > max(OVERRUN * left, 5.0):
        # its work estimated before it starts: an EGTA game of 27,225 profiles ran 32 s past a 2 s limit, one P x P
        # matrix at a time (hunt 23b-F2)
        times = f"{chains} chains of " if chains > 1 else ""
        raise Stopped(
            f"alpha-rank of {times}{P:,} profiles would take about {seconds:,.0f} s ({P:,}^3 / 3 operations"
            f"{' each' if chains > 1 else ''} at about {ELIMINATION_RATE:.2g} a second), past the time limit of "
            f"{clock.limit:g} s: not started; {RAISE_LIMIT}"
        )
    try:
        # the moves are counted in the limit too (once: the matrix is made from them)
        src, dst, logp = _log_rates(rsg, alpha, m, eps, normalize, clock)
        clock.check()  # (before each P x P matrix: a 12,376-profile game's took seconds each past the limit, 22b-F4)
        C = _matrix(P, src, dst, logp)
        clock.bar(P, unit="state", desc="alpha-rank")
        direct = _gth(C, clock) if P > 1 and not (logp.size and logp.min() < -600) else None
        if P > 1 and direct is None:  # probabilities near or below the float range, or ratios past it: in logs
            clock.bar(P, unit="state", desc="alpha-rank (in logarithms)")
            clock.check()
            L = np.full((P, P), -np.inf)
            L[src, dst] = logp  # (each move reaches a distinct profile)
            log_pi = log_stationary(L, clock)
    except TimeUp as stop:
        done = stop.done if isinstance(stop, _Eliminated) else 0
        raise Stopped(
            f"alpha-rank stopped {clock.stopped()} after eliminating {done:,} of its {P:,} "
            f"profiles (its work grows as the cube of the profiles); it has no partial ranking: {RAISE_LIMIT}"
        ) from None
    finally:
        clock.close()
    if P > 1 and direct is None:
        log_pi -= log_pi.max()
        tol = 1e-9  # (logs of size |log p| carry rounding of |log p| * 1e-16)
    else:
        with np.errstate(divide="ignore"):
            log_pi = np.log(direct) if P > 1 else np.zeros(1)
        tol = 1e-12
    pi = np.exp(log_pi)
    total = pi.sum()  # (the normalization, rounded once per state in logs, is redone here in one sum)
    pi /= total
    log_pi -= np.log(total)
    residual = float(np.abs(pi @ C - pi).max())
    if abs(pi.sum() - 1) > 1e-12 or residual > tol:
        raise InputError(f"alpha-rank: the stationary distribution did not check (residual {residual:.3g})")
    order, ranks = _ranks(log_pi)
    texts = [rsg.profile_text(row) for row in rsg.profiles]
    return AlphaRank(
        texts, rsg.profiles, pi, log_pi, order, ranks, alpha, m, None if alpha is not None else eps, normalize, residual
    )


def sweep(game, alphas, *, m: int = DEFAULT_M, normalize: bool = True) -> np.ndarray:
    """The stationary distribution at each ``alpha`` of ``alphas`` (rows), for the ranking's sensitivity to it.

    The paper's advice [Omidshafiei2019]_: take ``alpha`` as large as the computation allows, where the ranking
    has settled on the sink components of the response graph; the sweep shows where it settles.
    """
    rsg = as_role_symmetric(game)
    return np.array([alpharank(rsg, alpha=float(a), m=m, normalize=normalize).pi for a in alphas])


def sink_components(game, *, normalize: bool = True) -> list[list[int]]:
    """The sink strongly connected components of the response graph (profile indices): where the stationary
    distribution concentrates as ``alpha`` grows. An edge goes from a profile to each profile where one player
    switched and gained; a switch that neither gains nor loses is an edge both ways."""
    rsg = as_role_symmetric(game)
    src, dst, _, gain = _moves(rsg, normalize)
    keep = gain >= -1e-14
    P = len(rsg.profiles)
    graph = coo_matrix((np.ones(keep.sum()), (src[keep], dst[keep])), shape=(P, P)).tocsr()
    n, label = connected_components(graph, directed=True, connection="strong")
    leaves = np.ones(n, bool)
    leaves[label[src[keep]][label[src[keep]] != label[dst[keep]]]] = False
    return [np.flatnonzero(label == c).tolist() for c in range(n) if leaves[c]]
