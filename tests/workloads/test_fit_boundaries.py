"""Fitting a trace whose span is huge (a submit time of 2^53 + 1 seconds): no allocation by the span."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamemarket.errors import InputError
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
    lines.append(f"1200 {2**53 - 1} 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1")  # (the largest it reads exactly)
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    # fitted without allocating its 2.5e12 hours, and refused: no model file holds a long gap of 9e15 s (hunt
    # 16a-55: such a model was written, then refused by every reader of the file)
    with pytest.raises(InputError, match=r"the model fitted to it is beyond what a model file holds.*long_gap"):
        fit_model(read_swf(path), nodes=8)


@pytest.mark.parametrize("runtime", [10**15, 10**12])
def test_a_run_time_no_model_file_holds_names_the_trace_not_a_model(tmp_path, runtime):
    """Hunt 16a-56: one run time of 1e15 s gave a load of 1.6e8, refused by the model's constructor as a field of
    "workload model (t)", a model the user never wrote; the trace is named, as for a model the reader refuses."""
    lines = [f"{k} {10 * k} 0 {100 + k % 50} 1 -1 -1 1 200 -1 1 {k % 7} -1 -1 -1 -1 -1 -1" for k in range(1, 1200)]
    lines[7] = f"8 80 0 {runtime} 1 -1 -1 1 {runtime} -1 1 1 -1 -1 -1 -1 -1 -1"
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    for source, head in (("t", "trace t"), ("", "the trace")):
        with pytest.raises(InputError) as e:
            fit_model(read_swf(path), nodes=8, source=source)
        said = str(e.value)
        assert said.startswith(
            f"{head}: the model fitted to it is beyond what a model file holds ([defaults] field 'load'"
        )
        assert "workload model" not in said
