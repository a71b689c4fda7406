"""Private bids (a truncated normal mixture), common random numbers, a population's strategy slices.

Reported bids are the consumer strategies' (:mod:`gamemarket.consumers`: beta mixes, shading rules,
parametric families); this module only calls their one method, ``reported_bids``, so it sits below them.

Market model section 3. For one seed, three independent streams are spawned from
``numpy.random.SeedSequence(seed)``: stream 0 draws private bids, stream 1 the group draws
``G_i``, stream 2 the shading draws ``U_i``. The draws are a function of (seed, number of jobs)
only, never of the scheduler, payment scheme, beta mix or number of processes, so every profile
of one seed shares them (common random numbers).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from gamemarket.errors import InputError, check_seed, real_numbers, shown_value
from gamemarket.io.jobtable import COLUMNS, WORKLOAD_REQUIRED, check_column, check_frame

if TYPE_CHECKING:
    import pandas as pd

#: the smallest share of a bid distribution's mass in [lo, hi] that rejection sampling accepts (at most a
#: thousand draws per bid on average)
MIN_ACCEPTANCE = 1e-3
#: the highest private bid a distribution may reach (bid per second of run time; the market model's bids lie in
#: [0, 180]): a job's valuation, bid x its seconds, and a study's sums of them stay far inside the float range, and a
#: bid's class of width 10 an integer
MAX_BID = 1e9
#: the highest reservation price (per node-second), as high as the highest private bid: a run's payments, their sums
#: and their spreads stay far inside the float range
MAX_RESERVE = MAX_BID


def valid_reserve(value) -> float | None:
    """``value`` as a reserve price: a float where it is a real number (not a bool, not a text) in ``[0,
    MAX_RESERVE]``, else None; the caller names the value in its own error (``Mechanism``, ``register_provider``)."""
    real = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    return float(value) if real and math.isfinite(value) and 0 <= value <= MAX_RESERVE else None


@dataclass(frozen=True)
class BidDistribution:
    """A mixture of normal components ``(weight, mean, sd)`` truncated to ``[lo, hi]``.

    A draw outside the interval is discarded and the whole mixture draw (component and value)
    is repeated. The default is the paper's bimodal population. A mixture with less than
    ``MIN_ACCEPTANCE`` of its mass inside ``[lo, hi]`` is an :class:`InputError`.
    """

    components: tuple[tuple[float, float, float], ...] = ((0.8, 30.0, 15.0), (0.2, 150.0, 15.0))
    lo: float = 0.0
    hi: float = 180.0

    def __post_init__(self) -> None:
        comps = tuple(tuple(float(x) for x in c) for c in self.components)
        object.__setattr__(self, "components", comps)
        if not comps:
            raise InputError("bid distribution: at least one component (weight, mean, sd) is needed")
        for k, c in enumerate(comps):
            if len(c) != 3:
                raise InputError(f"bid distribution: component {k} must be (weight, mean, sd), got {c}")
            w, m, s = c
            if not (math.isfinite(w) and w > 0):
                raise InputError(f"bid distribution: component {k} weight must be > 0, got {w}")
            if not (math.isfinite(m) and math.isfinite(s) and s >= 0):
                raise InputError(f"bid distribution: component {k} needs a finite mean and sd >= 0, got {c}")
        if abs(sum(c[0] for c in comps) - 1.0) > 1e-9:
            raise InputError(f"bid distribution: component weights must sum to 1, got {sum(c[0] for c in comps)}")
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and 0 <= self.lo < self.hi):
            raise InputError(f"bid distribution: need 0 <= lo < hi, got [{self.lo}, {self.hi}]")
        if self.hi > MAX_BID:
            raise InputError(f"bid distribution: hi must be at most {MAX_BID:g} (a bid per second), got {self.hi:g}")
        p = self.acceptance()
        if p < MIN_ACCEPTANCE:  # rejection sampling would take more than 1 / MIN_ACCEPTANCE draws per bid
            raise InputError(
                f"bid distribution: the components (weight, mean, sd) {list(comps)} put {p:.3g} of their mass in "
                f"[lo, hi] = [{self.lo}, {self.hi}]; expected at least {MIN_ACCEPTANCE:g} (a component whose mean "
                "lies within a few sd of the interval)"
            )

    def _masses(self) -> tuple[float, float]:
        """(inside, outside): the probabilities that one mixture draw lands in ``[lo, hi]`` and outside it,
        each from the normal tails (``erfc``) so that a share near 0 keeps its digits."""
        inside = outside = 0.0
        r2 = math.sqrt(2.0)
        for w, m, sd in self.components:
            if sd == 0:
                inside += w * float(self.lo <= m <= self.hi)
                outside += w * float(not self.lo <= m <= self.hi)
                continue
            z_lo, z_hi = (self.lo - m) / sd, (self.hi - m) / sd
            if z_lo > 0:  # the interval in the upper tail: Phi(z_hi) - Phi(z_lo) = Q(z_lo) - Q(z_hi)
                inside += w * 0.5 * (math.erfc(z_lo / r2) - math.erfc(z_hi / r2))
            else:
                inside += w * 0.5 * (math.erfc(-z_hi / r2) - math.erfc(-z_lo / r2))
            outside += w * 0.5 * (math.erfc(-z_lo / r2) + math.erfc(z_hi / r2))  # Phi(z_lo) + Q(z_hi)
        return min(max(inside, 0.0), 1.0), min(max(outside, 0.0), 1.0)

    def acceptance(self) -> float:
        """The probability that one mixture draw (component, then value) lands in ``[lo, hi]``."""
        return self._masses()[0]

    def sample(self, size: int, rng: np.random.Generator, max_rounds: int | None = None) -> np.ndarray:
        """``size`` draws; rejected draws are redrawn whole, in rounds, in job order.

        Parameters
        ----------
        size : int
        rng : numpy.random.Generator
        max_rounds : int, optional
            Rounds of redraws before giving up; by default enough that all ``size`` draws are accepted
            but for a chance below 1e-12, from the acceptance probability (:meth:`acceptance`).

        Raises
        ------
        InputError
            ``max_rounds`` did not suffice (by default a chance below 1e-12); the message names the
            components and the interval. (A mixture with less than ``MIN_ACCEPTANCE`` of its mass in
            ``[lo, hi]`` is refused when it is made.)
        """
        if size == 0:
            return np.empty(0)
        p, q = self._masses()
        if max_rounds is None:  # every one of `size` draws accepted within R rounds but for size q^R < 1e-12
            max_rounds = 1 if q <= 0 else max(1, math.ceil(math.log(1e-12 / size) / math.log(q)))
        weights = np.array([c[0] for c in self.components])
        means = np.array([c[1] for c in self.components])
        sds = np.array([c[2] for c in self.components])
        cum = np.cumsum(weights)
        cum[-1] = 1.0
        out = np.empty(size)
        todo = np.arange(size)
        for _ in range(max_rounds):
            if todo.size == 0:
                return out
            comp = np.searchsorted(cum, rng.random(todo.size), side="right")
            vals = means[comp] + sds[comp] * rng.standard_normal(todo.size)
            ok = (vals >= self.lo) & (vals <= self.hi)
            out[todo[ok]] = vals[ok]
            todo = todo[~ok]
        if todo.size == 0:
            return out
        raise InputError(
            f"bid distribution: {todo.size:,} of {size:,} draws still outside [lo, hi] = [{self.lo}, {self.hi}] "
            f"after {max_rounds:,} rounds of rejection sampling (acceptance {p:.3g} per draw, components "
            f"{list(self.components)}); expected components with more of their mass inside [lo, hi]"
        )


@dataclass(frozen=True)
class Draws:
    """The common random numbers of one seed: private bids, group draws, shading draws."""

    private_bid: np.ndarray
    G: np.ndarray
    U: np.ndarray


def draw(n: int, seed: int, *, distribution: BidDistribution | None = None) -> Draws:
    """The private bid and the group and shading draws of each of ``n`` jobs, from independent streams.

    (``n``, not ``n_jobs``: in gamemarket ``n_jobs`` always means worker processes.)"""
    if n < 0:
        raise InputError(f"the number of jobs must be >= 0, got {n}")
    seed = check_seed(seed)
    distribution = distribution or BidDistribution()
    s_bid, s_group, s_shade = np.random.SeedSequence(seed).spawn(3)
    w = distribution.sample(n, np.random.default_rng(s_bid))
    G = np.random.default_rng(s_group).random(n)
    U = np.random.default_rng(s_shade).random(n)
    return Draws(w, G, U)


def _check_mix(mix) -> None:
    """A consumer strategy (what reports the jobs' bids), or an error naming what was given instead (a name such as
    ``"SRG"`` was an AttributeError deep inside)."""
    if not callable(getattr(mix, "reported_bids", None)):
        raise InputError(
            f"mix must be a consumer strategy (gamemarket.consumers.SRG, or one of gamemarket.consumers.catalogue."
            f"load_consumers()'s by name), got {mix!r}"
        )


def job_table(
    jobs: pd.DataFrame,
    mix,
    seed: int,
    *,
    distribution: BidDistribution | None = None,
    draws: Draws | None = None,
) -> pd.DataFrame:
    """The section-8 job table: workload columns plus ``private_bid``, ``reported_bid``, ``group``; ``mix`` is
    any consumer strategy (``gamemarket.consumers.ConsumerStrategy``: a beta mix such as ``consumers.SRG``); ``seed``
    a whole number >= 0 (unused where ``draws`` are given). ``jobs`` must have a workload's columns
    (``io.jobtable.WORKLOAD_REQUIRED``: ``id, submit, runtime, estimate``)."""
    _check_mix(mix)
    check_frame(jobs, WORKLOAD_REQUIRED, "jobs", "(a workload's jobs: gamemarket.workloads)")
    _check_workload_values(jobs)
    given = draws is not None  # a caller's draws are checked; our own are private bids by construction
    if draws is None:
        draws = draw(len(jobs), seed, distribution=distribution)
    w = draws.private_bid
    group, rw = mix.reported_bids(w, bid_bin_codes(w) if given else unchecked_bid_bin_codes(w), draws.G, draws.U)
    out = jobs.copy()
    out["private_bid"] = draws.private_bid
    out["reported_bid"] = rw
    out["group"] = group
    return out


def _check_workload_values(jobs) -> None:
    """The workload's numeric columns checked as :func:`gamemarket.market.simulate` checks them (finite, whole,
    within range): a NaN run time gave a table of NaN run times, refused only by the simulation after it. Columns
    of other types are left to it (it names them)."""
    for col in COLUMNS:
        if col.name in WORKLOAD_REQUIRED and getattr(jobs[col.name].dtype, "kind", "O") in "iuf":
            try:
                values = jobs[col.name].to_numpy(dtype=np.float64)
            except (TypeError, ValueError):  # a nullable column with a missing value: the simulation names it
                continue
            check_column(col, values, "jobs")


def job_columns(columns: Mapping[str, np.ndarray], mix, seed: int, *, distribution: BidDistribution | None = None):
    """``job_table`` on a job table given as column arrays (``gamemarket.workloads.swf.read_swf_columns``): the
    same bids and groups, added as columns (``private_bid``, ``reported_bid``, ``group``; the group as int8 where
    it fits), without pandas and without copying the given columns: the draws of a trace of 16 million serial
    jobs in a few hundred MB beside its columns."""
    _check_mix(mix)
    n = _column_rows(columns)
    draws = draw(n, seed, distribution=distribution)
    w = draws.private_bid
    group, rw = mix.reported_bids(w, unchecked_bid_bin_codes(w), draws.G, draws.U)
    del draws
    group = np.asarray(group)
    if len(group) == 0 or (group.min() >= np.iinfo(np.int8).min and group.max() <= np.iinfo(np.int8).max):
        group = group.astype(np.int8)
    return {**columns, "private_bid": w, "reported_bid": rw, "group": group}


def _column_rows(columns) -> int:
    """The rows of a job table given as column arrays, or an error naming what is missing or uneven (a missing
    ``id`` was a KeyError)."""
    if not (isinstance(columns, Mapping) or callable(getattr(columns, "keys", None))):  # (a DataFrame has its keys)
        raise InputError(
            f"columns: expected a mapping of column name to array (gamemarket.workloads.swf.read_swf_columns), got "
            f"{type(columns).__name__}"
        )
    required = list(WORKLOAD_REQUIRED)
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(f"columns: missing column(s) {missing}; required: {required}")
    rows = {c: len(np.asarray(columns[c])) for c in required}
    if len(set(rows.values())) > 1:
        raise InputError(f"columns: the required columns differ in length {rows}; expected one length")
    return rows[required[0]]


#: Bid classes of the reports (market-model.md), on the private bid: low [0, 60], middle (60, 120), high [120, 180].
LOW_MAX = 60.0
HIGH_MIN = 120.0


def private_bids(w, what: str) -> np.ndarray:
    """``w`` as float64 private bids (a scalar or an array of any shape), each a finite number in ``[0, MAX_BID]``,
    else an :class:`InputError` that starts with ``what`` and names the first bad bid: a text, a bool, None, an
    object, NaN, a negative bid or one beyond ``MAX_BID`` (NaN was classed high, a bool low). Two reductions over
    the bids (their least and greatest), no Python loop but for an object array."""
    values, problem = real_numbers(w)
    if problem:
        raise InputError(f"{what}: expected private bids (numbers), got {shown_value(w)}: {problem}")
    if values.size and not (values.min() >= 0 and values.max() <= MAX_BID):  # NaN fails both comparisons
        bad = values[~((values >= 0) & (values <= MAX_BID))].ravel()[0]
        raise InputError(
            f"{what}: a private bid is {float(bad)!r}; expected finite bids in [0, {MAX_BID:g}] (per second of run "
            f"time), got {shown_value(w)}"
        )
    return values


def unchecked_bid_bin_codes(w: np.ndarray) -> np.ndarray:
    """:func:`bid_bin_codes` without its checks, for callers whose bids are private bids by construction
    (:func:`draw`'s, once per run)."""
    w = np.asarray(w)
    return np.where(w <= LOW_MAX, 0, np.where(w < HIGH_MIN, 1, 2)).astype(np.int8)


def bid_bin_codes(w: np.ndarray) -> np.ndarray:
    """0 low (``w <= 60``), 1 middle (``60 < w < 120``), 2 high (``w >= 120``) of each private bid ``w`` (a number
    or an array); a bid that is no finite number in ``[0, MAX_BID]`` (a text, a bool, NaN, a negative one) is an
    :class:`InputError` (:func:`private_bids`), as in :func:`bid_bin`. An empty array of bids (no jobs) has no
    codes."""
    return unchecked_bid_bin_codes(private_bids(w, "bid_bin_codes"))


def bid_bin(w: np.ndarray) -> np.ndarray:
    """The bid class of each private bid: ``low``, ``middle`` or ``high``; a bid that is no finite number in
    ``[0, MAX_BID]`` is an :class:`InputError` (NaN was classed high, -3 low)."""
    return np.array(["low", "middle", "high"])[unchecked_bid_bin_codes(private_bids(w, "bid_bin"))]


#: Private-bid classes of the paper's figures: low [0, 60], middle (60, 120), high [120, 180].
BID_CLASSES = ("low", "middle", "high")


def population_bids(
    strategies, strategy: np.ndarray, private_bid: np.ndarray, G: np.ndarray, U: np.ndarray, *, bid_class=None
):
    """Reported bids when job ``i`` follows ``strategies[strategy[i]]`` (a population game's agents).

    Each strategy (a ``gamemarket.consumers.ConsumerStrategy``) reports the bids of its own jobs
    (``reported_bids``, elementwise, so a job's bid does not depend on which other jobs share its strategy).
    Where every strategy shades by a beta per bid class (``betas_by_class``), one table lookup gives the
    same numbers without gathering each strategy's jobs (the per-strategy path took about twice as long on
    the LPC trace's 214,322 jobs and five rules). ``bid_class``: ``bid_bin_codes(private_bid)``, where the
    caller has them already (a chunk of runs with the same private bids).

    The arguments are checked (:func:`check_population`): ``strategies`` a non-empty list of consumer strategies;
    ``strategy`` integers in ``[0, len(strategies))``, one per job; ``private_bid`` finite bids in ``[0,
    MAX_BID]``; ``G`` and ``U`` draws in ``[0, 1)``; ``bid_class`` None or codes 0, 1, 2, all of one length. A
    simulation's loop, whose arguments are checked once, calls :func:`unchecked_population_bids`.
    """
    args = check_population(strategies, strategy, private_bid, G, U, bid_class)
    return unchecked_population_bids(*args[:5], bid_class=args[5])


def _population_array(value, what: str, n: int, integer: bool = False) -> np.ndarray:
    """One of ``population_bids``' per-job arrays: 1-D, of ``n`` elements, of integers
    (``integer``: not bools) or of real numbers (as float64), else an :class:`InputError` naming ``what``."""
    if integer:
        try:
            arr = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        except ValueError:  # a ragged list
            arr = None
        if arr is not None and arr.size == 0 and arr.dtype.kind == "f":  # [] : no jobs
            arr = arr.astype(np.int64)
        if arr is None or arr.dtype.kind not in "iu":
            raise InputError(
                f"population_bids: {what} must be an array of integers, one per job, got {shown_value(value)}"
            )
    else:
        arr, problem = real_numbers(value)
        if problem:
            raise InputError(
                f"population_bids: {what} must be an array of numbers, one per job, got {shown_value(value)}: {problem}"
            )
    if arr.shape != (n,):
        raise InputError(
            f"population_bids: {what} must be a 1-D array of {n} (one per job: private_bid's length), got shape "
            f"{arr.shape}: {shown_value(value)}"
        )
    return arr


def _in_range(arr: np.ndarray, what: str, lo, hi, closed: bool) -> None:
    """Every element of ``arr`` in ``[lo, hi]`` (``closed``) or ``[lo, hi)``, else an error naming the first not."""
    if arr.size and not (arr.min() >= lo and (arr.max() <= hi if closed else arr.max() < hi)):
        ok = (arr >= lo) & ((arr <= hi) if closed else (arr < hi))
        i = int(np.flatnonzero(~ok)[0])
        end = "]" if closed else ")"
        raise InputError(f"population_bids: {what}[{i}] is {arr[i].item()!r}; expected values in [{lo:g}, {hi:g}{end}")


def check_population(strategies, strategy, private_bid, G, U, bid_class=None) -> tuple:
    """``population_bids``' arguments checked, as ``(strategies, strategy, private_bid, G, U, bid_class)`` with the
    arrays as numpy arrays (the bids and draws float64); a bad one is an :class:`InputError` naming it."""
    if isinstance(strategies, (str, bytes, Mapping)) or not isinstance(strategies, (list, tuple)) or not strategies:
        raise InputError(
            f"population_bids: strategies must be a non-empty list of consumer strategies "
            f"(gamemarket.consumers.ConsumerStrategy), got {shown_value(strategies)}"
        )
    for k, s in enumerate(strategies):
        if not callable(getattr(s, "reported_bids", None)):
            raise InputError(
                f"population_bids: strategies[{k}] must be a consumer strategy (gamemarket.consumers."
                f"ConsumerStrategy), got {shown_value(s)} ({type(s).__name__})"
            )
    w = private_bids(private_bid, "population_bids: private_bid")
    if w.ndim != 1:
        raise InputError(f"population_bids: private_bid must be a 1-D array of private bids, got shape {w.shape}")
    n = len(w)
    strategy = _population_array(strategy, "strategy", n, integer=True)
    _in_range(strategy, "strategy", 0, len(strategies) - 1, closed=True)
    G = _population_array(G, "G", n)
    _in_range(G, "G", 0, 1, closed=False)
    U = _population_array(U, "U", n)
    _in_range(U, "U", 0, 1, closed=False)
    if bid_class is not None:
        bid_class = _population_array(bid_class, "bid_class", n, integer=True)
        _in_range(bid_class, "bid_class", 0, len(BID_CLASSES) - 1, closed=True)
    return list(strategies), strategy, w, G, U, bid_class


def unchecked_population_bids(
    strategies, strategy: np.ndarray, private_bid: np.ndarray, G: np.ndarray, U: np.ndarray, *, bid_class=None
):
    """:func:`population_bids` without its checks, for a simulation's loop whose arguments were checked once (the
    same numbers)."""
    w = np.asarray(private_bid, dtype=float)
    strategy = np.asarray(strategy)
    bid_class = unchecked_bid_bin_codes(w) if bid_class is None else bid_class  # a chunk of runs reuses its classes
    by_class = [s.betas_by_class for s in strategies]
    if all(b is not None for b in by_class):  # each shades by a beta per bid class: one table lookup, the same bits
        return w * (1.0 - np.array(by_class, dtype=float).reshape(len(strategies), -1)[strategy, bid_class] * U)
    out = w.copy()
    for k, s in enumerate(strategies):
        sel = np.flatnonzero(strategy == k)
        if sel.size:
            out[sel] = s.reported_bids(w[sel], bid_class[sel], G[sel], U[sel])[1]
    return out


def shade(w: np.ndarray, U: np.ndarray, rules: list, strategy: np.ndarray) -> np.ndarray:
    """Reported bids when job ``i`` follows ``rules[strategy[i]]``, for rules that ignore the group draw (as
    shading rules do); ``population_bids`` takes the group draws too."""
    w = np.asarray(w, dtype=float)
    return unchecked_population_bids(rules, strategy, w, np.zeros_like(w), U)


def population_slices(mixture: np.ndarray, probe: float) -> tuple[np.ndarray, np.ndarray]:
    """Where each strategy's agents sit on [0, 1): (lower edges, upper edges).

    The strategies of the mixture's support share ``[0, 1 - k probe)`` in proportion to their
    probabilities, in list order; each of the ``k`` strategies outside the support gets a probe
    slice of width ``probe`` at the top, in list order. An agent whose uniform draw falls in a
    strategy's slice plays it: one run then measures every strategy's payoff (a probe's agents face
    a population that is ``k probe`` away from the mixture, which is the probe's bias).
    """
    x = np.asarray(mixture, dtype=float)
    out = ~(x > 0)
    k = int(out.sum())
    if k * probe >= 1:
        raise InputError(f"population: {k} probe slices of {probe} leave no room for the mixture")
    width = np.where(out, probe, x * (1 - k * probe))
    order = np.concatenate([np.flatnonzero(~out), np.flatnonzero(out)])
    # monotone edges from 0 to exactly 1: rounding in the running sum must not push an edge past 1
    edges = np.minimum(np.concatenate([[0.0], np.cumsum(width[order])]), 1.0)
    edges[-1] = 1.0
    lo = np.empty(len(x))
    hi = np.empty(len(x))
    lo[order], hi[order] = edges[:-1], edges[1:]
    return lo, hi


def assign(draw: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The strategy of each agent from its uniform draw and the slices of ``population_slices``."""
    order = np.lexsort((hi, lo))  # by lower edge; an empty slice (a vanishing probability) before its neighbour
    idx = np.searchsorted(hi[order], np.asarray(draw), side="right")
    return order[np.minimum(idx, len(order) - 1)].astype(np.int64)


def user_draws(users: np.ndarray, seed: int) -> np.ndarray:
    """One uniform draw per job's user (stream 3 of the seed), so all of a user's jobs share a strategy.

    Users are ranked by id; their draws are replaced by their rank's midpoint ``(rank + 0.5) / n_u``
    in the order of a uniform draw, so that every slice of width ``1 / n_u`` holds one user.
    """
    uniq, inv = np.unique(np.asarray(users), return_inverse=True)
    stream = np.random.SeedSequence(int(seed)).spawn(4)[3]
    u = np.random.default_rng(stream).random(len(uniq))
    rank = np.empty(len(uniq))
    rank[np.argsort(u, kind="stable")] = (np.arange(len(uniq)) + 0.5) / len(uniq)
    return rank[inv]


#: the seed's stream of the jobs' leave draws (streams 0-2: ``draw``; 3: ``user_draws``; 4: the probe agents)
LEAVE_STREAM = 5


def leave_draws(n: int, seed: int) -> np.ndarray:
    """Each job's leave draw ``L_i``, uniform on [0, 1), from stream ``LEAVE_STREAM`` of the seed: a rule that sends
    a share ``q`` of a bid class to the outside option sends the jobs of that class with ``L_i < q`` (market model,
    "The outside option"). Independent of the bids, the group and shading draws and the probe agents."""
    stream = np.random.SeedSequence(int(seed)).spawn(LEAVE_STREAM + 1)[LEAVE_STREAM]
    return np.random.default_rng(stream).random(int(n))


def population_stay(strategies, strategy: np.ndarray, bid_class: np.ndarray, L) -> np.ndarray | None:
    """Which jobs stay in the cluster when job ``i`` follows ``strategies[strategy[i]]``: job ``i`` leaves for the
    outside option where its rule's share of its bid class that leaves (``leave_by_class``) exceeds its leave draw
    ``L[i]``. None where no rule leaves (every job stays; ``L`` is then not read and may be None)."""
    shares = [getattr(s, "leave_by_class", None) for s in strategies]
    if all(q is None or not any(q) for q in shares):
        return None
    table = np.array([q if q is not None else (0.0,) * len(BID_CLASSES) for q in shares], dtype=float)
    return ~(np.asarray(L) < table[np.asarray(strategy), np.asarray(bid_class)])
