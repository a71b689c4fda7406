"""A generative workload model with the structure that makes real clusters congest.

Users submit *campaigns*: runs of similar jobs in a burst (Zakay and Feitelson 2013 resample
traces by user sessions for the same reason). The model has four parts:

- **campaigns**: a campaign's size (jobs) and the gaps between its submissions are drawn from the
  trace's quantiles; each campaign belongs to a user, drawn by the users' shares of campaigns;
- **run times**: a Gaussian copula with user and campaign effects. A job's latent score is
  ``sqrt(rho_u) a_user + sqrt(rho_c) b_campaign + sqrt(1 - rho_u - rho_c) e_job`` (``a_user`` the
  user's effect fitted from the trace, ``b`` and ``e`` standard normal draws), and its run time is
  the trace's quantile at the normal score of its rank among the generated jobs. The marginal
  distribution is the trace's (mean and median kept, no clip), and jobs of one campaign (and of one
  user) are correlated as in the trace;
- **arrivals**: campaigns start as a Poisson process whose rate follows the trace's hour-of-week
  profile (a true 24-hour and weekly cycle, in seconds of wall-clock time);
- **load**: the campaign start times are stretched until ``work / (nodes * span)`` equals the
  target exactly (a final rescale of under a part in a thousand fixes the rounding).

The model file (TOML) holds numbers only: quantiles, shares, a rate profile; never a record of
the trace. Estimates are the run time times a ratio drawn from the trace's quantiles.

References
----------
.. [Lublin2003] U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling
   the characteristics of rigid jobs", Journal of Parallel and Distributed Computing 63 (2003)
   1105-1122.
.. [Zakay2013] N. Zakay and D. G. Feitelson, "Workload resampling for performance evaluation of
   parallel job schedulers", ICPE 2013, 149-160.
.. [Feitelson2015] D. G. Feitelson, "Workload Modeling for Computer Systems Performance Evaluation",
   Cambridge University Press (2015), chapters 6 and 8: user sessions and locality of sampling.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np
import pandas as pd
import tomli_w
from scipy.special import ndtr, ndtri

from gamemarket.errors import SEED_MAX, InputError, check_instance, check_path, check_text, real_numbers, shown_value
from gamemarket.io.files import atomic_path, read_toml
from gamemarket.io.limits import MAX_NODES, MAX_TIME, check_fits
from gamemarket.io.schema import check
from gamemarket.workloads.base import Workload
from gamemarket.workloads.model_file import FORMAT, ModelFile

#: Normal scores at which the log run-time quantiles are kept (the ends hold the minimum and maximum).
Z_GRID = np.round(np.linspace(-5.0, 5.0, 201), 10)
WEEK, HOUR = 7 * 86400.0, 3600.0
#: bytes per job at a draw's peak (measured with tracemalloc: 220 for 10^5 and 4 x 10^5 jobs), for the memory check
MODEL_BYTES_PER_JOB = 224
#: rounds of campaign-size draws before a model whose sizes never cover the jobs is an error
MAX_SIZE_ROUNDS = 1000
#: the ranges of a model's own size, load and threshold, as a model file's schema bounds them (``model_file``)
MAX_MODEL_JOBS = 10**9
MAX_LOAD = 1e6
MAX_THRESHOLD = 1e7
#: the largest seed of a draw (a study file's: an int64)
MAX_SEED = SEED_MAX  # the shared bound (gamemarket.errors)


def z_probabilities() -> np.ndarray:
    """The probabilities of ``Z_GRID``: ``Phi(z)``, with the ends at exactly 0 and 1."""
    p = ndtr(Z_GRID)
    p[0], p[-1] = 0.0, 1.0
    return p


#: Probabilities at which every other quantile list is kept: those of ``Z_GRID``, dense in both
#: tails, so that the rare long gaps and huge campaigns are drawn as often as in the trace.
P_GRID = z_probabilities()


@dataclass(frozen=True)
class WorkloadModel:
    """The parameters of the campaign model (validated on construction; see the module docstring)."""

    jobs: int
    nodes: int
    load: float
    size_quantiles: tuple  #: jobs per campaign at ``P_GRID``
    gap_quantiles: tuple  #: seconds between a campaign's submissions at ``P_GRID``
    user_shares: tuple  #: each user's share of campaigns
    user_effects: tuple  #: each user's latent run-time effect (standardised mean normal score)
    log_runtime_quantiles: tuple  #: log run time (s) at ``Z_GRID``
    user_share: float  #: share of the latent variance between users
    campaign_share: float  #: share between campaigns of one user
    hour_of_week: tuple  #: relative rate of submissions per hour of the week (168)
    start_gap_quantiles: tuple  #: operational seconds between campaign starts at ``P_GRID`` (below a day)
    long_gap_share: float  #: idle periods (a day or more without a submission) per campaign
    long_gap_quantiles: tuple  #: their lengths (operational seconds) at ``P_GRID``
    log_estimate_ratio_quantiles: tuple  #: log(estimate / run time) at ``P_GRID``
    threshold: float = 1200.0  #: seconds of silence that end a campaign (used when fitting)
    source: str = ""
    notes: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        check_text(self.source, "workload model: source (the trace it was fitted to)", empty=True)
        check_instance(self.notes, dict, "workload model: notes", "a dict (notes that take no part in comparisons)")
        where = f"workload model{f' ({self.source})' if self.source else ''}"

        def bad(name, what):
            raise InputError(f"{where}: {field_name(name)}: {what}")

        self._check_sizes(bad)
        self._check_quantiles(bad)
        self._check_users(bad)
        for name in ("user_share", "campaign_share", "long_gap_share"):
            v = getattr(self, name)
            if not (_real(v) and 0.0 <= v < 1.0):
                bad(name, f"expected a number in [0, 1), got {shown_value(v)}")
        if self.user_share + self.campaign_share >= 1.0:
            bad(
                "campaign_share",
                f"user_share + campaign_share must be < 1, got {self.user_share + self.campaign_share}",
            )
        h = _reals(self.hour_of_week, "hour_of_week", bad)
        if h.shape != (168,) or not np.all(np.isfinite(h)) or np.any(h < 0) or h.sum() <= 0:
            bad("hour_of_week", "expected 168 non-negative rates with a positive sum")
        object.__setattr__(self, "hour_of_week", tuple(float(x) for x in h / h.mean()))

    def _check_sizes(self, bad) -> None:
        """The model's own jobs, nodes, load and threshold: in the ranges a model file's schema gives them."""
        for name, most in (("jobs", MAX_MODEL_JOBS), ("nodes", MAX_NODES)):
            v = getattr(self, name)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1:
                bad(name, f"expected an integer >= 1, got {shown_value(v)}")
            if v > most:
                bad(name, f"expected an integer >= 1 and <= {most:,}, got {shown_value(v)}")
        if not (_real(self.load) and 0 < self.load <= MAX_LOAD):
            bad("load", f"expected a number > 0 and <= {MAX_LOAD:g}, got {shown_value(self.load)}")
        if not (_real(self.threshold) and 0 < self.threshold <= MAX_THRESHOLD):
            bad("threshold", f"expected seconds > 0 and <= {MAX_THRESHOLD:g}, got {shown_value(self.threshold)}")

    def _check_quantiles(self, bad) -> None:
        """The quantile lists: their lengths, finite and non-decreasing; stored as tuples of floats."""
        for name, n, lo in (
            ("size_quantiles", len(P_GRID), 1.0),
            ("gap_quantiles", len(P_GRID), 0.0),
            ("log_runtime_quantiles", len(Z_GRID), 0.0),
            ("start_gap_quantiles", len(P_GRID), 0.0),
            ("long_gap_quantiles", len(P_GRID), 0.0),
            ("log_estimate_ratio_quantiles", len(P_GRID), 0.0),
        ):
            v = _reals(getattr(self, name), name, bad)
            if v.shape != (n,):
                bad(name, f"expected {n} numbers, got {v.size}")
            if not np.all(np.isfinite(v)) or np.any(v < lo) or np.any(np.diff(v) < 0):
                bad(name, f"expected a non-decreasing list of finite numbers >= {lo}")
            object.__setattr__(self, name, tuple(float(x) for x in v))

    def _check_users(self, bad) -> None:
        """The user shares (positive, summing to 1; stored normalised) and their effects (one each)."""
        shares = _reals(self.user_shares, "user_shares", bad)
        if shares.ndim != 1 or shares.size < 1 or not np.all(np.isfinite(shares)) or np.any(shares <= 0):
            bad("user_shares", "expected a non-empty list of positive numbers")
        if abs(shares.sum() - 1.0) > 1e-6:
            bad("user_shares", f"the shares must sum to 1, got {shares.sum():.9g}")
        object.__setattr__(self, "user_shares", tuple(float(x) for x in shares / shares.sum()))
        eff = _reals(self.user_effects, "user_effects", bad)
        if eff.shape != shares.shape or not np.all(np.isfinite(eff)):
            bad("user_effects", f"expected {shares.size} finite numbers (one per user share), got {eff.size}")
        object.__setattr__(self, "user_effects", tuple(float(x) for x in eff))

    # ------------------------------------------------------------------ file
    def to_toml(self) -> str:
        """The model file's text: numbers only (quantiles, shares, rates), which :meth:`read` reads back."""

        def arr(v, fmt="{:.9g}"):
            return "[" + ", ".join(fmt.format(x) for x in v) + "]"

        # the trace's name as TOML writes a string (a quote, a backslash or a control character escaped: the name
        # went in raw, and the model read back was tomllib's traceback, hunt 21b-F3), and printable in the comment
        shown = "".join(c if c.isprintable() else "?" for c in (self.source or "a trace"))
        lines = [
            f"# gamemarket workload model: numbers only, fitted from {shown}",
            "# (campaign model; see gamemarket/workloads/model.py)",
            f'format = "{FORMAT}"',
            tomli_w.dumps({"source": self.source}).rstrip("\n"),
            "",
            "[defaults]",
            f"jobs = {int(self.jobs)}",
            f"nodes = {int(self.nodes)}",
            f"load = {self.load:.9g}",
            "",
            "[campaigns]",
            f"threshold = {self.threshold:.9g}",
            "# jobs per campaign and seconds between its submissions, at probabilities Phi(-5), Phi(-4.95), ..., "
            "Phi(5) (ends: minimum, maximum)",
            f"size_quantiles = {arr(self.size_quantiles)}",
            f"gap_quantiles = {arr(self.gap_quantiles)}",
            "# each user's share of campaigns, and the user's run-time effect (standardised normal score)",
            f"user_shares = {arr(self.user_shares)}",
            f"user_effects = {arr(self.user_effects)}",
            "",
            "[runtime]",
            "# log run time (seconds) at normal scores -5, -4.95, ..., 5 (ends: minimum, maximum)",
            f"log_quantiles = {arr(self.log_runtime_quantiles)}",
            "# shares of the latent variance between users and between campaigns of a user",
            f"user_share = {self.user_share:.9g}",
            f"campaign_share = {self.campaign_share:.9g}",
            "",
            "[arrivals]",
            "# relative rate of submissions in each hour of the week (mean 1)",
            f"hour_of_week = {arr(self.hour_of_week)}",
            "# operational seconds (the week's cycle taken out) between campaign starts, at probabilities "
            "Phi(-5), Phi(-4.95), ..., Phi(5) (ends: minimum, maximum)",
            f"start_gap_quantiles = {arr(self.start_gap_quantiles)}",
            "# idle periods (a day or more without a submission, operational time): how many per campaign, "
            "and their lengths",
            f"long_gap_share = {self.long_gap_share:.9g}",
            f"long_gap_quantiles = {arr(self.long_gap_quantiles)}",
            "",
            "[estimates]",
            "# log(estimate / run time) at probabilities Phi(-5), Phi(-4.95), ..., Phi(5) (ends: minimum, maximum)",
            f"log_ratio_quantiles = {arr(self.log_estimate_ratio_quantiles)}",
            "",
        ]
        return "\n".join(lines)

    def save(self, path: str | Path) -> Path:
        """Write the model file atomically (a temporary file, then a rename) to ``path`` (a text or a path)."""
        check_path(path, "WorkloadModel.save: path")
        with atomic_path(path, "model (.toml)") as tmp:
            tmp.write_text(self.to_toml(), encoding="utf-8")
        return Path(path)

    @classmethod
    def read(cls, path: str | Path) -> "WorkloadModel":
        """Read and validate a model file (``path``: a text or a path); errors name the file and the field (also
        those of a draw)."""
        check_path(path, "WorkloadModel.read: path")
        model = cls.from_dict(read_toml(path, "workload model file (.toml)"), where=str(path))
        model.notes["file"] = str(path)  # notes take no part in comparisons or the file's text
        return model

    @classmethod
    def from_dict(cls, d: dict, where: str = "workload model") -> "WorkloadModel":
        """A model from a model file's tables, validated; errors name ``where`` (the file, a text) and the field."""
        check_text(where, "WorkloadModel.from_dict: where (the file messages name)")
        study_tables = {"workload", "strategies", "replications", "game", "design"}
        if isinstance(d, dict) and "format" not in d and study_tables & set(d):
            raise InputError(
                f"{where}: is a study file ({', '.join(sorted(study_tables & set(d)))}), not a workload model; a model "
                "file (written by `gamemarket workload fit`) starts with format = ..."
            )
        check(ModelFile, d, where)  # types, ranges, unknown and missing fields, each named with its table
        try:
            g = {
                "jobs": d["defaults"]["jobs"],
                "nodes": d["defaults"]["nodes"],
                "load": d["defaults"]["load"],
                "threshold": d["campaigns"]["threshold"],
                "size_quantiles": d["campaigns"]["size_quantiles"],
                "gap_quantiles": d["campaigns"]["gap_quantiles"],
                "user_shares": d["campaigns"]["user_shares"],
                "user_effects": d["campaigns"]["user_effects"],
                "log_runtime_quantiles": d["runtime"]["log_quantiles"],
                "user_share": d["runtime"]["user_share"],
                "campaign_share": d["runtime"]["campaign_share"],
                "hour_of_week": d["arrivals"]["hour_of_week"],
                "start_gap_quantiles": d["arrivals"]["start_gap_quantiles"],
                "long_gap_share": d["arrivals"]["long_gap_share"],
                "long_gap_quantiles": d["arrivals"]["long_gap_quantiles"],
                "log_estimate_ratio_quantiles": d["estimates"]["log_ratio_quantiles"],
                "source": str(d.get("source", "")),
            }
        except KeyError as exc:
            raise InputError(f"{where}: missing field {exc.args[0]!r}") from None
        try:
            return cls(**g)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None

    def summary(self) -> dict:
        """The model's headline parameters (jobs, nodes, load, user and campaign shares, threshold, source)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name in ("jobs", "nodes", "load", "user_share", "campaign_share", "threshold", "source")
        }


def _real(v) -> bool:
    """Whether ``v`` is a finite real number (an int or a float, numpy's too; not a bool)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an integer beyond float range
        return False


def _reals(value, name: str, bad) -> np.ndarray:
    """A model's list of numbers as float64, or ``bad(name, ...)`` naming what it holds instead (a text, a dict,
    an object: numpy's conversion error, before)."""
    if isinstance(value, (str, bytes, dict)):
        bad(name, f"expected a list of numbers, got {shown_value(value)}")
    arr, problem = real_numbers(value)
    if problem:
        bad(name, f"expected a list of numbers, got {shown_value(value)}: {problem}")
    return arr


# ---------------------------------------------------------------------- generation
def _interp(u: np.ndarray, grid: np.ndarray, values) -> np.ndarray:
    return np.interp(u, grid, np.asarray(values, dtype=float))


def _inverse_cumulative_rate(v: np.ndarray, hour_of_week: np.ndarray) -> np.ndarray:
    """Seconds ``t`` at which the cumulative rate (hourly profile, periodic over a week) reaches ``v``.

    ``v`` is in units of mean-rate seconds: the cumulative rate of a profile of mean 1 over a week
    is one week of seconds.
    """
    cum = np.concatenate([[0.0], np.cumsum(hour_of_week) * HOUR])  # 169 entries, cum[-1] = WEEK
    weeks = np.floor(v / WEEK)
    r = v - weeks * WEEK
    h = np.clip(np.searchsorted(cum, r, side="right") - 1, 0, 167)
    rate = hour_of_week[h]
    within = np.where(rate > 0, (r - cum[h]) / np.where(rate > 0, rate, 1.0), 0.0)
    return weeks * WEEK + h * HOUR + np.minimum(within, HOUR)


#: each parameter's place in a model file (``WorkloadModel.from_dict``): ``[table] field``
FILE_FIELDS = {
    "jobs": ("defaults", "jobs"),
    "nodes": ("defaults", "nodes"),
    "load": ("defaults", "load"),
    "threshold": ("campaigns", "threshold"),
    "size_quantiles": ("campaigns", "size_quantiles"),
    "gap_quantiles": ("campaigns", "gap_quantiles"),
    "user_shares": ("campaigns", "user_shares"),
    "user_effects": ("campaigns", "user_effects"),
    "log_runtime_quantiles": ("runtime", "log_quantiles"),
    "user_share": ("runtime", "user_share"),
    "campaign_share": ("runtime", "campaign_share"),
    "hour_of_week": ("arrivals", "hour_of_week"),
    "start_gap_quantiles": ("arrivals", "start_gap_quantiles"),
    "long_gap_share": ("arrivals", "long_gap_share"),
    "long_gap_quantiles": ("arrivals", "long_gap_quantiles"),
    "log_estimate_ratio_quantiles": ("estimates", "log_ratio_quantiles"),
}


def field_name(name: str) -> str:
    """A parameter as a message names it: where a model file holds it (``[runtime] field 'log_quantiles'``)."""
    if name not in FILE_FIELDS:
        return f"field {name!r}"
    table, key = FILE_FIELDS[name]
    return f"[{table}] field {key!r}"


def _where(model: WorkloadModel) -> str:
    """How errors name the model: its file where it was read from one, else its source trace."""
    if model.notes.get("file"):
        return f"model file {model.notes['file']}"
    return f"workload model{f' ({model.source})' if model.source else ''}"


def _draw_arguments(model: WorkloadModel, jobs, nodes, load, seed) -> tuple[int, int, float]:
    """(jobs, nodes, load) of a draw, the model's own where not given; bad values are errors: jobs a whole number
    >= 1 (one that does not fit in memory is refused by the draw, naming its size), nodes one in ``[1,
    MAX_NODES]``, load a number in ``(0, MAX_LOAD]``, seed a whole number in ``[0, MAX_SEED]``."""
    J = model.jobs if jobs is None else jobs
    n = model.nodes if nodes is None else nodes
    target = model.load if load is None else load
    for name, v, ok in (
        ("jobs", J, _whole(J) and J >= 1),
        ("nodes", n, _whole(n) and 1 <= n <= MAX_NODES),
        ("load", target, _real(target) and 0 < target <= MAX_LOAD),
        ("seed", seed, _whole(seed) and 0 <= seed <= MAX_SEED),
    ):
        if not ok:
            rule = {
                "jobs": "an integer >= 1",
                "nodes": f"an integer from 1 to {MAX_NODES:,}",
                "load": f"> 0 and at most {MAX_LOAD:g}",
                "seed": "an integer from 0 to 2^63 - 1",
            }[name]
            raise InputError(f"workload model: {name} must be {rule}, got {shown_value(v)}")
    return int(J), int(n), target


def _whole(v) -> bool:
    """Whether ``v`` is a whole number (an int or a numpy integer; not a bool)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _campaign_sizes(rng: np.random.Generator, model: WorkloadModel, J: int) -> np.ndarray:
    """Campaign sizes drawn until they cover ``J`` jobs, the last one cut short.

    A round draws 1.2 times the jobs still missing at the quantiles' mean size (and 16 more), so sizes
    whose draws average a fiftieth of that mean still cover 10^9 jobs in fewer than ``MAX_SIZE_ROUNDS``
    rounds; more rounds are an error that names the quantiles. A size above ``J`` is drawn as ``J``
    (the cut makes it so anyway), which keeps the sizes and their sums within int64."""
    sizes_q = np.asarray(model.size_quantiles)
    sizes = np.empty(0, np.int64)
    mean_size = max(float(np.trapezoid(sizes_q, P_GRID)), 1.0)  # the integral of the quantile function
    rounds = 0
    while sizes.sum() < J:
        if rounds == MAX_SIZE_ROUNDS:
            raise InputError(
                f"{_where(model)}: {field_name('size_quantiles')}: {rounds} rounds of campaign sizes covered "
                f"{int(sizes.sum()):,} of {J:,} jobs: the sizes drawn average {sizes.mean():.3g} jobs, the "
                f"quantiles' mean is {mean_size:.3g}; expected size quantiles whose draws reach their mean "
                f"(the largest, {sizes_q.max():.3g}, is it a campaign size?)"
            )
        rounds += 1
        more = int(1.2 * (J - sizes.sum()) / mean_size) + 16
        s = np.exp(_interp(rng.random(more), P_GRID, np.log(sizes_q)))
        sizes = np.concatenate([sizes, np.minimum(np.maximum(np.rint(s), 1), J).astype(np.int64)])
    cum = np.cumsum(sizes)
    C = int(np.searchsorted(cum, J)) + 1
    sizes = sizes[:C]
    sizes[-1] -= cum[C - 1] - J
    return sizes


def _run_times(rng, model: WorkloadModel, J: int, camp: np.ndarray, user_of: np.ndarray) -> np.ndarray:
    """The Gaussian copula with user and campaign effects; ranks then map onto the model's quantiles, so
    that the marginal is the model's whatever the few users drew."""
    C = len(user_of)
    a = np.asarray(model.user_effects)
    b, e = rng.standard_normal(C), rng.standard_normal(J)
    ru, rc = model.user_share, model.campaign_share
    z = math.sqrt(ru) * a[user_of[camp]] + math.sqrt(rc) * b[camp] + math.sqrt(1.0 - ru - rc) * e
    rank = np.empty(J, dtype=np.float64)
    rank[np.argsort(z, kind="stable")] = np.arange(J)
    score = ndtri((rank + 0.5) / J)
    runtime = np.rint(np.exp(_interp(np.clip(score, Z_GRID[0], Z_GRID[-1]), Z_GRID, model.log_runtime_quantiles)))
    if not runtime.max() < MAX_TIME:
        raise InputError(
            f"{_where(model)}: {field_name('log_runtime_quantiles')}: a run time of {runtime.max():.3g} s was drawn; "
            f"expected log run times below {math.log(MAX_TIME):.4g} (run times below 2^53 s)"
        )
    return np.maximum(runtime, 1).astype(np.int64)


def _idle_periods(rng, model: WorkloadModel, starts: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """(count, campaign starts they follow, lengths) of the idle periods, stratified: as many as the share
    says, their lengths spread over the quantiles, each shifting every later submission."""
    C = len(starts)
    n_long = min(int(round(model.long_gap_share * C)), max(C - 1, 0))
    cut, pause = np.zeros(0), np.zeros(0)
    if n_long:
        cut = np.sort(starts[1 + rng.choice(C - 1, size=n_long, replace=False)])
        u_long = (np.arange(n_long) + rng.random(n_long)) / n_long
        pause = rng.permutation(np.expm1(_interp(u_long, P_GRID, np.log1p(model.long_gap_quantiles))))
    return n_long, cut, pause


def _span_target(model: WorkloadModel, runtime: np.ndarray, n: int, target: float) -> float:
    """``work / (nodes x load)``: the span the submissions are stretched to; beyond 2^53 s an error."""
    work = float(np.sum(runtime, dtype=np.float64))
    if not work < MAX_TIME:
        raise InputError(
            f"{_where(model)}: {len(runtime):,} jobs of the model's run times hold {work:.3g} s of work; "
            f"expected below 2^53 s (fewer jobs)"
        )
    span = float(runtime.sum()) / (n * target)
    if not span < MAX_TIME:
        raise InputError(
            f"{_where(model)}: load {target!r} on {n} nodes makes the span work / (nodes x load) {span:.3g} s; "
            f"expected a span below 2^53 s (a load of at least {work / (n * MAX_TIME):.3g})"
        )
    return span


def _stretched_submissions(model, starts, camp, offset, first, n_long, cut, pause, span_target) -> np.ndarray:
    """Submit times: the campaign starts stretched until the span is ``span_target`` (the campaigns' own gaps
    and the idle periods kept), then warped by the hour-of-week profile into wall-clock seconds."""
    C = len(starts)
    hw = np.asarray(model.hour_of_week)

    def place(k):  # campaign starts stretched by k (the campaigns' own gaps and the idle periods kept)
        op = k * starts[camp] + offset
        if n_long:
            op = op + np.concatenate([[0.0], np.cumsum(pause)])[np.searchsorted(k * cut, op, side="right")]
        return _inverse_cumulative_rate(op, hw)

    # the warp and the pauses are monotone, so the span runs from the first start to the latest
    # campaign end: the stretch is found on the campaigns alone, then every job is placed once
    ends = starts + np.maximum.reduceat(offset, first)

    def span_of(k):
        op = np.array([0.0, float((k * ends).max())]) if C else np.zeros(2)
        if n_long:
            op = op + np.concatenate([[0.0], np.cumsum(pause)])[np.searchsorted(k * cut, op, side="right")]
        t = _inverse_cumulative_rate(op, hw)
        return float(t[1] - t[0])

    k = span_target / max(float(ends.max()), 1.0)
    for _ in range(8):
        span = span_of(k)
        if span <= 0:
            break
        k *= span_target / span
    t = place(k)
    if not np.isfinite(t).all():
        raise InputError(
            f"{_where(model)}: [campaigns] field 'gap_quantiles', [arrivals] fields 'start_gap_quantiles', "
            "'long_gap_quantiles': the gaps "
            f"drawn sum beyond a double's range; expected gaps whose sum over {len(camp):,} jobs is finite"
        )
    t -= t.min()
    if t.max() > 0:
        t = np.minimum(t * (span_target / t.max()), span_target)  # the product may round one ulp above
    return np.floor(t).astype(np.int64)


def _estimates(rng, model: WorkloadModel, runtime: np.ndarray) -> np.ndarray:
    """Estimates: each run time times a ratio drawn from the model's quantiles, rounded up."""
    ratio = np.exp(_interp(rng.random(len(runtime)), P_GRID, model.log_estimate_ratio_quantiles))
    estimate = np.maximum(np.ceil(runtime * ratio), runtime)
    if not estimate.max() < MAX_TIME:
        raise InputError(
            f"{_where(model)}: {field_name('log_estimate_ratio_quantiles')}: an estimate of {estimate.max():.3g} s was "
            f"drawn; expected estimates below 2^53 s (log ratios below {math.log(MAX_TIME / runtime.max()):.4g})"
        )
    return estimate.astype(np.int64)


def generate_from_model(
    model: WorkloadModel, *, jobs: int | None = None, nodes: int | None = None, load: float | None = None, seed: int = 0
) -> Workload:
    """Draw a job table from ``model`` (its defaults for whatever is not given).

    Same seed, same table. The submit times are set so that ``work / (nodes * span)`` equals
    ``load``.

    Raises
    ------
    InputError
        A bad argument; a draw that would not fit in memory (:func:`gamemarket.io.limits.check_fits`); or
        a model whose draws leave the job table's range (run times, estimates or the span beyond 2^53 s,
        gaps beyond a double's, campaign sizes that never cover the jobs), naming the field.
    """
    check_instance(model, WorkloadModel, "generate_from_model: model", "a WorkloadModel (WorkloadModel.read(path))")
    J, n, target = _draw_arguments(model, jobs, nodes, load, seed)
    check_fits(J * MODEL_BYTES_PER_JOB, f"{_where(model)}: a draw of {J:,} jobs")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xCA4A16]))
    sizes = _campaign_sizes(rng, model, J)
    C = len(sizes)
    camp = np.repeat(np.arange(C), sizes)
    first = np.r_[0, np.cumsum(sizes)[:-1]]
    user_of = rng.choice(len(model.user_shares), size=C, p=np.asarray(model.user_shares))
    runtime = _run_times(rng, model, J, camp, user_of)
    # submissions: campaign starts a renewal process, the campaign's own gaps after it, all in
    # operational time; the hour-of-week profile then warps operational time into wall-clock time
    with np.errstate(over="ignore", invalid="ignore"):  # gaps whose sums overflow: an error below, not a warning
        gaps = np.expm1(_interp(rng.random(J), P_GRID, np.log1p(model.gap_quantiles)))
        gaps[first] = 0.0
        offset = np.cumsum(gaps)
        offset -= np.repeat(offset[first], sizes)
        start_gaps = np.expm1(_interp(rng.random(C), P_GRID, np.log1p(model.start_gap_quantiles)))
        start_gaps[0] = 0.0
        starts = np.cumsum(start_gaps)
        n_long, cut, pause = _idle_periods(rng, model, starts)
        span_target = _span_target(model, runtime, n, target)
        submit = _stretched_submissions(model, starts, camp, offset, first, n_long, cut, pause, span_target)
    estimate = _estimates(rng, model, runtime)
    order = np.argsort(submit, kind="stable")
    jobs_df = pd.DataFrame(
        {
            "id": np.arange(J, dtype=np.int64),
            "submit": submit[order],
            "runtime": runtime[order],
            "estimate": estimate[order],
            "estimate_generated": np.ones(J, dtype=bool),
            "swf_job": np.arange(1, J + 1, dtype=np.int64),
            "status": np.ones(J, dtype=np.int64),
            "user": (user_of[camp] + 1).astype(np.int64)[order],
        }
    )
    meta = {
        "source": "synthetic",
        "name": f"model:{model.source or 'unnamed'}",
        "nodes": n,
        "processors": n,
        "synthetic": {"model": model.source, "jobs": J, "nodes": n, "load": float(target), "seed": int(seed)},
    }
    return Workload(jobs=jobs_df, meta=meta)
