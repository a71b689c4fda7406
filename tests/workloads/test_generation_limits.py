"""The generators refuse what they cannot draw, naming the parameter: a request that does not fit in
memory, parameters whose times overflow the job table's range (2^53 s), and campaign sizes that never
cover the jobs (which used to loop for ever)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.io import limits
from gamemarket.workloads import SyntheticSpec, WorkloadModel, generate, generate_from_model
from gamemarket.workloads.model import P_GRID, Z_GRID
from study_helpers import ROOT


@pytest.fixture(scope="module")
def model():
    return WorkloadModel.read(ROOT / "models" / "lpc-egee-2004.toml")


def test_a_synthetic_workload_that_does_not_fit_is_refused_before_it_allocates(monkeypatch):
    monkeypatch.setenv(limits.MEMORY_LIMIT_ENV, "1e6")
    generate(jobs=1000)  # 160 kB
    with pytest.raises(InputError, match=r"synthetic workload of 100,000 jobs needs about 16 MB.*limit is 1 MB"):
        generate(jobs=100_000)
    monkeypatch.delenv(limits.MEMORY_LIMIT_ENV)
    if limits.physical_memory():  # the finding: --synthetic-jobs 1e13 ended in MemoryError
        with pytest.raises(InputError, match="10,000,000,000,000 jobs needs about"):
            generate(jobs=10**13)


def test_a_model_draw_that_does_not_fit_is_refused_before_it_allocates(monkeypatch, model):
    monkeypatch.setenv(limits.MEMORY_LIMIT_ENV, "1e6")
    with pytest.raises(InputError, match=r"model file .*lpc-egee-2004.toml: a draw of 100,000 jobs needs about 22"):
        generate_from_model(model, jobs=100_000)


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"load": 1e-300}, "load 1e-300 on 32 nodes makes the span"),
        ({"runtime_sigma": 50.0, "max_runtime": 1e300}, "max_runtime 1e[+]300"),
        ({"overestimate": 1e300}, "overestimate 1e[+]300"),
        ({"gap_sigma": 1e3}, "gap_sigma 1000.0"),
        ({"jobs": 10, "runtime_median": 1e15, "runtime_sigma": 0.0, "max_runtime": 2**52}, "10 jobs hold 1e[+]16 s"),
    ],
)
def test_synthetic_times_beyond_the_table_range_name_the_parameter(kw, field):
    with pytest.raises(InputError, match=field):
        generate(**{"jobs": 100, **kw})


@pytest.mark.parametrize(
    "kw, what",
    [
        ({"load": float("inf")}, "load must be a finite number"),
        ({"runtime_sigma": float("nan")}, "runtime_sigma must be a finite number"),
        ({"jobs": 4000.0}, "jobs must be a whole number"),
        ({"seed": True}, "seed must be a whole number"),
    ],
)
def test_synthetic_parameters_are_finite_and_counts_whole(kw, what):
    with pytest.raises(InputError, match=what):
        SyntheticSpec(**kw)


def test_extreme_valid_synthetic_parameters_draw_a_valid_table():
    for kw in ({"load": 1e-6}, {"load": 1e6}, {"runtime_sigma": 20.0, "max_runtime": 10**9}, {"overestimate": 1e3}):
        j = generate(jobs=2000, **kw).jobs
        assert (j["submit"] >= 0).all() and (j["runtime"] >= 1).all() and (j["estimate"] >= j["runtime"]).all()
        assert j["submit"].max() < 2**53 and j["estimate"].max() < 2**53


def _with(model, **fields):
    return dataclasses.replace(model, **fields)


def test_model_times_beyond_the_table_range_name_the_field(model):
    cases = [
        ({}, {"load": 1e-300}, "load 1e-300 on 105 nodes makes the span"),
        ({"log_runtime_quantiles": tuple(np.linspace(0, 700, len(Z_GRID)))}, {}, r"\[runtime\] field 'log_quantiles'"),
        (
            {"log_estimate_ratio_quantiles": tuple(np.linspace(0, 800, len(P_GRID)))},
            {},
            r"\[estimates\] field 'log_ratio_quantiles'",
        ),
        (
            {"gap_quantiles": tuple(np.full(len(P_GRID), 1e308))},
            {},
            "'gap_quantiles', .arrivals. fields 'start_gap_quantiles'",
        ),
        (
            {"start_gap_quantiles": tuple(np.full(len(P_GRID), 1e308))},
            {},
            "'gap_quantiles', .arrivals. fields 'start_gap_quantiles'",
        ),
    ]
    for fields, kw, match in cases:
        with pytest.raises(InputError, match=match):
            generate_from_model(_with(model, **fields), jobs=100, **kw)


def test_campaign_sizes_that_never_cover_the_jobs_are_an_error_not_a_hang(model):
    # all but the largest size quantile are 1: the quantiles' mean is 1e293, the draws' about 1, so each
    # round covers 16 jobs; 20,000 jobs would take 1,250 rounds
    sizes = tuple(np.r_[np.ones(len(P_GRID) - 1), 1e300])
    assert len(generate_from_model(_with(model, size_quantiles=sizes), jobs=4000).jobs) == 4000
    with pytest.raises(
        InputError, match=r"\[campaigns\] field 'size_quantiles': 1000 rounds of campaign sizes covered 16,000 of"
    ):
        generate_from_model(_with(model, size_quantiles=sizes), jobs=20_000)


def test_huge_campaign_sizes_are_cut_to_the_jobs(model):
    """Every size 1e300: the draws used to overflow int64 to negative sizes, and the loop never ended."""
    j = generate_from_model(_with(model, size_quantiles=tuple(np.full(len(P_GRID), 1e300))), jobs=300, seed=1).jobs
    assert len(j) == 300 and j["user"].nunique() == 1  # one campaign of every job, one user
    assert (j["submit"] >= 0).all() and (np.diff(j["submit"]) >= 0).all()


def test_extreme_valid_loads_draw_a_valid_table(model):
    for load in (1e-6, 1e6):
        j = generate_from_model(model, jobs=300, load=load).jobs
        assert (j["submit"] >= 0).all() and j["submit"].max() < 2**53 and (j["estimate"] >= j["runtime"]).all()
