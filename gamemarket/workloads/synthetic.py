"""Seeded synthetic workloads: the embedded default, so that nothing needs downloading.

Arrivals are a Poisson process (optionally with a daily cycle), or bursty: log-normal gaps between
arrival instants of spread ``gap_sigma`` and geometric batches of mean ``batch_mean`` jobs per
instant; run times are log-normal,
clipped to ``[1, max_runtime]``; estimates follow the modal model of
``gamemarket.workloads.base.generate_estimates`` inflated by a random over-estimation factor;
submit times are finally scaled so that the offered load ``work / (nodes * span)`` meets the target.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from gamemarket.errors import InputError
from gamemarket.workloads.base import Workload, generate_estimates


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
        checks = [
            (self.jobs >= 1, "jobs must be >= 1"),
            (self.nodes >= 1, "nodes must be >= 1"),
            (0 < self.load, "load must be > 0"),
            (self.runtime_median >= 1, "runtime_median must be >= 1 second"),
            (self.runtime_sigma >= 0, "runtime_sigma must be >= 0"),
            (self.max_runtime >= 1, "max_runtime must be >= 1"),
            (0 <= self.daily_cycle < 1, "daily_cycle must be in [0, 1)"),
            (self.overestimate >= 1, "overestimate must be >= 1"),
            (self.gap_sigma >= 0, "gap_sigma must be >= 0"),
            (self.batch_mean >= 1, "batch_mean must be >= 1"),
            (self.seed >= 0, "seed must be >= 0"),
        ]
        for ok, msg in checks:
            if not ok:
                raise InputError(f"synthetic workload: {msg}")

    @classmethod
    def from_dict(cls, d: dict, where: str = "synthetic") -> "SyntheticSpec":
        """The generator's parameters from a ``[workload.synthetic]`` table; an unknown field is an
        :class:`InputError` that names it (``where`` says which table).
        """
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        if unknown:
            raise InputError(f"{where}: unknown field(s) {unknown}; expected some of {sorted(known)}")
        try:
            return cls(**d)
        except TypeError as exc:
            raise InputError(f"{where}: {exc}") from exc


def generate(spec: SyntheticSpec | None = None, **kwargs) -> Workload:
    """A synthetic ``Workload`` from a spec (or keyword parameters of ``SyntheticSpec``)."""
    if spec is None:
        spec = SyntheticSpec(**kwargs)
    rng = np.random.default_rng(np.random.SeedSequence([spec.seed, 0x5EED]))
    J = spec.jobs
    runtime = np.exp(np.log(spec.runtime_median) + spec.runtime_sigma * rng.standard_normal(J))
    runtime = np.clip(np.rint(runtime), 1, spec.max_runtime).astype(np.int64)
    # Thinned Poisson process with a daily cycle, then rescaled to hit the load exactly.
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
        mean_gap = runtime.mean() / (spec.nodes * spec.load)
        t_real = t * mean_gap
        phase = 2 * np.pi * t_real / day
        t = t_real - spec.daily_cycle * day / (2 * np.pi) * np.sin(phase)
    t = t - t[0]
    span_target = runtime.sum() / (spec.nodes * spec.load)
    if t[-1] > 0:
        t = t * (span_target / t[-1])
    submit = np.floor(t).astype(np.int64)
    submit = np.maximum.accumulate(submit)
    factor = rng.uniform(1.0, spec.overestimate, J)
    estimate = generate_estimates(np.ceil(runtime * factor).astype(np.int64))
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
