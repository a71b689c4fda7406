"""Seeded synthetic workloads: the embedded default, so that nothing needs downloading.

Arrivals are a Poisson process (optionally with a daily cycle), or bursty: log-normal gaps between
arrival instants of spread ``gap_sigma`` and geometric batches of mean ``batch_mean`` jobs per
instant; run times are log-normal,
clipped to ``[1, max_runtime]``; estimates follow the modal model of
``gamemarket.workloads.base.generate_estimates`` inflated by a random over-estimation factor;
submit times are finally scaled so that the offered load ``work / (nodes * span)`` meets the target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

import numpy as np
import pandas as pd

from gamemarket.errors import SEED_MAX, InputError, check_instance, check_text, shown_value
from gamemarket.io.limits import MAX_NODES, MAX_TIME, check_fits
from gamemarket.workloads.base import Workload, generate_estimates

#: bytes per job at the generator's peak (measured with tracemalloc: 155 for 10^5 and 4 x 10^5 jobs)
SYNTHETIC_BYTES_PER_JOB = 160
#: the largest seed (a study file's, ``[workload.synthetic] seed``: an int64) and job count (an int64 job id; a
#: count that does not fit in memory is refused by the generator, naming its size)
MAX_SEED = MAX_COUNT = SEED_MAX  # the shared bound (gamemarket.errors)
#: the upper bounds of the generator's parameters, where the generator itself would not refuse a huge one
#: (as a study file's ``[workload.synthetic]`` table bounds them; a log-sd beyond 100 draws every run time as 1 s or
#: the cap). Those without one (``max_runtime``: a cap; ``overestimate``, ``gap_sigma``) are refused by the
#: generator where their draws leave the job table's range, naming them.
SPEC_MAXIMA = {
    "jobs": (MAX_COUNT, "2^63 - 1"),
    "nodes": (MAX_NODES, f"{MAX_NODES:,}"),
    "load": (1e6, "1e6"),
    "runtime_median": (MAX_TIME, "2^53 seconds"),
    "runtime_sigma": (100.0, "100"),
    "batch_mean": (1e6, "1e6"),
    "seed": (MAX_SEED, "2^63 - 1"),
}


@dataclass(frozen=True)
class SyntheticSpec:
    """Parameters of the synthetic generator (validated on construction)."""

    jobs: int = 4000
    nodes: int = 32
    load: float = 0.9
    runtime_median: float = 600.0  #: seconds, median of the log-normal run time
    runtime_sigma: float = 1.8  #: sd of log run time
    max_runtime: int = 3 * 24 * 3600
    daily_cycle: float = 0.5  #: amplitude in [0, 1) of the sinusoidal daily arrival rate
    overestimate: float = 2.0  #: estimates are runtime * U(1, overestimate) rounded up to popular values
    gap_sigma: float = 0.0  #: > 0: log-normal gaps between arrival instants with this log-sd (bursty)
    batch_mean: float = 1.0  #: mean jobs per arrival instant (geometric batches; 1 = single arrivals)
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("jobs", "nodes", "seed"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise InputError(f"synthetic workload: {name} must be a whole number, got {v!r}")
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name not in ("jobs", "nodes", "seed") and (
                isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v)
            ):
                raise InputError(f"synthetic workload: {f.name} must be a finite number, got {v!r}")
        checks = [
            (self.jobs >= 1, "jobs", ">= 1"),
            (self.nodes >= 1, "nodes", ">= 1"),
            (0 < self.load, "load", "> 0"),
            (self.runtime_median >= 1, "runtime_median", ">= 1 second"),
            (self.runtime_sigma >= 0, "runtime_sigma", ">= 0"),
            (self.max_runtime >= 1, "max_runtime", ">= 1"),
            (0 <= self.daily_cycle < 1, "daily_cycle", "in [0, 1)"),
            (self.overestimate >= 1, "overestimate", ">= 1"),
            (self.gap_sigma >= 0, "gap_sigma", ">= 0"),
            (self.batch_mean >= 1, "batch_mean", ">= 1"),
            (self.seed >= 0, "seed", ">= 0"),
        ]
        for ok, name, rule in checks:
            if not ok:  # (the value was not said: "jobs must be >= 1")
                raise InputError(f"synthetic workload: {name} must be {rule}, got {getattr(self, name)!r}")
        for name, (most, words) in SPEC_MAXIMA.items():
            if getattr(self, name) > most:
                raise InputError(
                    f"synthetic workload: {name} must be at most {words}, got {shown_value(getattr(self, name))}"
                )

    @classmethod
    def from_dict(cls, d: dict, where: str = "synthetic") -> "SyntheticSpec":
        """The generator's parameters from a ``[workload.synthetic]`` table; an unknown field is an
        :class:`InputError` that names it (``where``, a text, says which table). An empty table is the generator's
        defaults.
        """
        check_text(where, "SyntheticSpec.from_dict: where (the table messages name)")
        if not isinstance(d, Mapping):
            raise InputError(
                f"{where}: expected a table of the generator's parameters (a mapping), got {shown_value(d)}"
            )
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        if unknown:
            raise InputError(f"{where}: unknown field(s) {unknown}; expected some of {sorted(known)}")
        try:
            return cls(**d)
        except TypeError as exc:
            raise InputError(f"{where}: {exc}") from exc


def _run_times(spec: SyntheticSpec, rng: np.random.Generator) -> np.ndarray:
    """Log-normal run times, rounded and clipped to ``[1, max_runtime]``; beyond 2^53 s an error."""
    runtime = np.exp(np.log(spec.runtime_median) + spec.runtime_sigma * rng.standard_normal(spec.jobs))
    runtime = np.clip(np.rint(runtime), 1, spec.max_runtime)
    if not runtime.max() < MAX_TIME:
        raise InputError(
            f"synthetic workload: a run time of {runtime.max():.3g} s was drawn (runtime_median "
            f"{spec.runtime_median!r}, runtime_sigma {spec.runtime_sigma!r}, max_runtime {spec.max_runtime!r}); "
            "expected run times below 2^53 s (a smaller max_runtime)"
        )
    return runtime.astype(np.int64)


def _arrival_instants(spec: SyntheticSpec, rng: np.random.Generator, runtime: np.ndarray) -> np.ndarray:
    """Arrival instants of a unit-rate process (bursty where asked), warped by the daily cycle; not yet
    scaled to the load."""
    J = spec.jobs
    if spec.gap_sigma > 0:
        gaps = rng.lognormal(0.0, spec.gap_sigma, J)
    else:
        gaps = rng.exponential(1.0, J)
    if spec.batch_mean > 1:  # jobs of one batch share an arrival instant
        new_instant = rng.random(J) < 1.0 / spec.batch_mean
        new_instant[0] = True
        gaps = np.where(new_instant, gaps, 0.0)
    t = np.cumsum(gaps)
    if spec.daily_cycle > 0:
        # time warping: a unit-rate process through the inverse cumulative intensity
        day = 86400.0
        with np.errstate(over="ignore", invalid="ignore"):  # an overflowed time: an error just below, not a warning
            mean_gap = runtime.mean() / (spec.nodes * spec.load)
            t_real = t * mean_gap
            phase = 2 * np.pi * t_real / day
            t = t_real - spec.daily_cycle * day / (2 * np.pi) * np.sin(phase)
    if not np.isfinite(t[-1]):
        raise InputError(
            f"synthetic workload: the arrival times overflow (gap_sigma {spec.gap_sigma!r}, load {spec.load!r}, "
            f"daily_cycle {spec.daily_cycle!r}); expected gaps whose sum over {J:,} jobs is finite (a smaller "
            "gap_sigma, a larger load)"
        )
    return t - t[0]


def _span_target(spec: SyntheticSpec, runtime: np.ndarray) -> float:
    """``work / (nodes x load)``: the span the arrivals are scaled to; beyond 2^53 s an error."""
    work = float(np.sum(runtime, dtype=np.float64))
    if not work < MAX_TIME:
        raise InputError(
            f"synthetic workload: {spec.jobs:,} jobs hold {work:.3g} s of work; expected below 2^53 s (fewer jobs "
            "or a smaller max_runtime)"
        )
    span = runtime.sum() / (spec.nodes * spec.load)
    if not span < MAX_TIME:
        raise InputError(
            f"synthetic workload: load {spec.load!r} on {spec.nodes} nodes makes the span work / (nodes x load) "
            f"{span:.3g} s; expected a span below 2^53 s (a load of at least {work / (spec.nodes * MAX_TIME):.3g})"
        )
    return span


def generate(spec: SyntheticSpec | None = None, **kwargs) -> Workload:
    """A synthetic ``Workload`` from a spec (or keyword parameters of ``SyntheticSpec``).

    Raises
    ------
    InputError
        Bad parameters; a workload that would not fit in memory (:func:`gamemarket.io.limits.check_fits`);
        or parameters whose draws leave the job table's range (times beyond 2^53 s), naming them.
    """
    if spec is None:
        spec = SyntheticSpec(**kwargs)
    else:
        check_instance(spec, SyntheticSpec, "generate: spec", "a SyntheticSpec (or None: keyword parameters)")
        if kwargs:  # (they were ignored in silence)
            raise InputError(f"generate: give a spec or keyword parameters {sorted(kwargs)}, not both")
    J = spec.jobs
    check_fits(J * SYNTHETIC_BYTES_PER_JOB, f"synthetic workload of {J:,} jobs")
    rng = np.random.default_rng(np.random.SeedSequence([spec.seed, 0x5EED]))
    runtime = _run_times(spec, rng)
    # Thinned Poisson process with a daily cycle, then rescaled to hit the load exactly.
    t = _arrival_instants(spec, rng, runtime)
    span_target = _span_target(spec, runtime)
    if t[-1] > 0:
        t = t * (span_target / t[-1])
    submit = np.floor(t).astype(np.int64)
    submit = np.maximum.accumulate(submit)
    factor = rng.uniform(1.0, spec.overestimate, J)
    with np.errstate(over="ignore"):  # an overflowed estimate: an error just below, not a warning
        estimate = np.ceil(runtime * factor)
    if not estimate.max() < MAX_TIME:
        raise InputError(
            f"synthetic workload: an estimate of {estimate.max():.3g} s was drawn (overestimate "
            f"{spec.overestimate!r}); expected estimates below 2^53 s (a smaller overestimate)"
        )
    estimate = generate_estimates(estimate.astype(np.int64))
    jobs = pd.DataFrame(
        {
            "id": np.arange(J, dtype=np.int64),
            "submit": submit,
            "runtime": runtime,
            "estimate": estimate,
            "estimate_generated": np.ones(J, dtype=bool),
            "swf_job": np.arange(1, J + 1, dtype=np.int64),
            "status": np.ones(J, dtype=np.int64),
            "user": rng.integers(1, 51, J).astype(np.int64),
        }
    )
    meta = {
        "source": "synthetic",
        "name": "synthetic",
        "synthetic": asdict(spec),
        "nodes": spec.nodes,
        "processors": spec.nodes,
    }
    return Workload(jobs=jobs, meta=meta)
