"""Fitting a trace whose span is huge (a submit time of 2^53 + 1 seconds): no allocation by the span."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gamemarket.workloads.fit import fit_model
from gamemarket.workloads.swf import read_swf


@given(st.integers(1, 5000))
def test_the_hours_of_the_week_in_closed_form_are_the_counted_ones(hours):
    counted = np.bincount(np.arange(hours) % 168, minlength=168).astype(float)
    closed = np.full(168, float(hours // 168))
    closed[: hours % 168] += 1.0
    assert (counted == closed).all()


def test_a_trace_spanning_2_to_the_53_seconds_is_fitted_without_allocating_its_hours(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(2 * 10**9))
    lines = [f"{k} {10 * k} 0 {100 + k % 50} 1 -1 -1 1 200 -1 1 {k % 7} -1 -1 -1 -1 -1 -1" for k in range(1, 1200)]
    lines.append(f"1200 {2**53 + 1} 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1")
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    model = fit_model(read_swf(path), nodes=8)
    rate = np.asarray(model.hour_of_week, dtype=float)
    assert model.jobs == 1200 and len(rate) == 168 and np.isfinite(rate).all() and rate.mean() > 0
