"""Event-hook schedulers (``gamemarket.market.hooks``): an event scheduler that makes HB's choices pays what the
engine's HB pays, bit for bit; the example (least attained service) is a preemptive scheduler no priority key
expresses; bad hooks are errors naming the scheduler; a plugin registers one and ``plugin check`` checks it."""

from pathlib import Path

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.market import Mechanism, simulate
from gamemarket.market.hooks import EVENT_SCHEDULERS, EventScheduler, run_hooks
from gamemarket.plugins import load_plugin
from gamemarket.testing import check_event_scheduler, random_cases

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "least_attained.py"


class HighestBid(EventScheduler):
    """HB as hooks: the n present jobs with the highest bids (then earlier submit, then id)."""

    name = "hb-hooks"
    description = "Highest-Bid written as an event scheduler"

    def allocate(self, t, state):
        present = state.waiting | state.running
        return sorted(present, key=lambda i: (-state.jobs[i]["reported_bid"], state.jobs[i]["submit"], i))[
            : state.nodes
        ]


@pytest.mark.parametrize("payment", ["first", "kth"])
def test_hb_as_hooks_equals_the_engine_bit_for_bit(payment):
    for case in random_cases(12, seed=5):
        got = run_hooks(case.table, case.nodes, HighestBid(), payment, case.reserve)
        want = simulate(case.table, case.nodes, Mechanism("hb", payment, case.reserve)).jobs
        want = want.set_index("id").loc[got["id"]]
        for c in ("start", "end", "preemptions"):
            assert np.array_equal(got[c].to_numpy(), want[c].to_numpy()), (case.describe(), c)
        assert got["payment"].to_numpy().tobytes() == want["payment"].to_numpy().tobytes(), case.describe()


def test_the_example_runs_least_attained_service_first_and_conforms(capsys):
    plugin = load_plugin(EXAMPLE)
    assert plugin.entries == (("event-scheduler", "least-attained"),)
    assert check_event_scheduler("least-attained", cases=10).passed
    for case in random_cases(8, seed=2):
        out = run_hooks(case.table, case.nodes, "least-attained", "kth", case.reserve)
        runtime = case.table.set_index("id").loc[out["id"], "runtime"].to_numpy()
        assert np.all(out["end"] - out["start"] >= runtime)  # it preempts: a job may take longer than its run time
        assert np.all(out["payment"] >= 0)
    assert main(["plugin", "check", str(EXAMPLE), "--cases", "4"]) == 0
    assert "event scheduler 'least-attained'" in capsys.readouterr().out


class TooMany(EventScheduler):
    name = "too-many"
    description = "runs every present job"

    def allocate(self, t, state):
        return state.waiting | state.running


class Idle(EventScheduler):
    name = "idle"
    description = "runs nothing"

    def allocate(self, t, state):
        return []


@pytest.mark.parametrize(
    ("sched", "match"),
    [
        (TooMany(), r"event scheduler 'too-many': allocate at t=\d+ chose \d+ jobs; expected at most 1"),
        (Idle(), r"event scheduler 'idle': allocate at t=\d+ runs nothing while \d+ job\(s\) wait"),
    ],
)
def test_a_bad_allocation_is_an_error_naming_the_scheduler(sched, match):
    case = next(c for c in random_cases(20, seed=1) if len(c.table) > 2)
    with pytest.raises(InputError, match=match):
        run_hooks(case.table, 1, sched)
    assert not check_event_scheduler(sched, cases=3, raise_on_failure=False).passed


def test_a_plugin_without_allocate_is_refused(tmp_path):
    p = tmp_path / "noalloc.py"
    p.write_text(
        "from gamemarket.market.hooks import EventScheduler, register_event_scheduler\n"
        "class N(EventScheduler):\n    name = 'none'\n    description = 'no allocate'\n"
        "register_event_scheduler(N())\n"
    )
    with pytest.raises(InputError, match=rf"plugin {p.resolve()}: event scheduler 'none': it does not implement"):
        load_plugin(p)
    assert "none" not in EVENT_SCHEDULERS
