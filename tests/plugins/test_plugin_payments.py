"""Payment schemes as rate functions: the paper's schemes re-written as plugins give the built-in engine's
payments bit for bit (compiled and plain Python), and a price that is NaN or negative is an error naming the
scheme, the function, the job and the value."""

import numpy as np
import pytest
from builtin_rates import first_price, kth_price, nan_when_busy, negative_when_busy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_helpers import bursts
from gamemarket import bids
from gamemarket.consumers import SRG
from gamemarket.errors import InputError
from gamemarket.market import Mechanism, get_scheduler, register_scheduler, simulate
from gamemarket.market.engine import FIRST_HEAP, run_market
from gamemarket.market.outcomes import congestion
from gamemarket.market.payments import FIRST_PRICE, KTH_PRICE, RATE_FUNCTION, register_payment_rule
from gamemarket.market.rates import plugin_engine
from gamemarket.market.schedulers import PriorityKey
from gamemarket.market.simulate import prepare, run_schedule
from gamemarket.testing import check_payment, random_cases
from gamemarket.workloads import load
from hypothesis_strategies import workloads

SCHEDULERS = ("hb", "nphb", "wspt", "wspt-est", "fcfs")


def _bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.int64)


@pytest.fixture
def as_plugins():
    """The built-in schemes as rate functions, compiled (``p-*``) and plain Python (``py-*``); HB and WSPT as
    a plugin would register them."""
    register_payment_rule("p-first", first_price, "first price, as a plugin")
    register_payment_rule("p-kth", kth_price, "k-th price, as a plugin")
    register_payment_rule("py-first", first_price, "first price, plain Python", jit=False)
    register_payment_rule("py-kth", kth_price, "k-th price, plain Python", jit=False)
    register_scheduler("p-hb", True, PriorityKey("reported_bid", descending=True), "HB, as a plugin")
    register_scheduler("p-wspt", False, PriorityKey("reported_bid", per="runtime", descending=True), "WSPT, plugin")


@pytest.fixture(scope="module")
def workload_table():
    """A congested synthetic workload with FT-mix bids: hundreds of steps with queues, preemptions and ties."""
    w = load("synthetic", jobs=600, nodes=16, load=1.3, seed=7)
    return bids.job_table(w.jobs, SRG, seed=7), 16


def _pay(table, nodes, scheduler, payment, reserve):
    return simulate(table, nodes, Mechanism(scheduler, payment, reserve)).jobs


@pytest.mark.slow
@pytest.mark.parametrize("builtin", ["first", "kth"])
def test_builtin_schemes_as_plugins_are_bit_for_bit(as_plugins, workload_table, builtin):
    table, nodes = workload_table
    for scheduler in SCHEDULERS:
        for reserve in (0.0, 1.0, 40.0):
            want = _pay(table, nodes, scheduler, builtin, reserve)
            for plugin in (f"p-{builtin}", f"py-{builtin}"):
                got = _pay(table, nodes, scheduler, plugin, reserve)
                assert (_bits(got["payment"]) == _bits(want["payment"])).all(), (scheduler, plugin, reserve)
                for c in ("start", "end", "preemptions"):
                    assert (got[c].to_numpy() == want[c].to_numpy()).all()


def test_hb_and_wspt_as_plugins_are_bit_for_bit(as_plugins, workload_table):
    table, nodes = workload_table
    for mine, theirs in (("p-hb", "hb"), ("p-wspt", "wspt")):
        for pay in ("first", "kth", "p-kth"):
            got, want = _pay(table, nodes, mine, pay, 1.0), _pay(table, nodes, theirs, "kth", 1.0)
            if pay != "kth":
                want = _pay(table, nodes, theirs, pay.removeprefix("p-"), 1.0)
            for c in ("start", "end", "preemptions"):
                assert (got[c].to_numpy() == want[c].to_numpy()).all()
            assert (_bits(got["payment"]) == _bits(want["payment"])).all()


@pytest.mark.slow
def test_small_cases_bit_for_bit_with_signed_zeros(as_plugins):
    """The conformance suite's cases (bids of 0 and reserves of 0 among them), every scheduler."""
    for case in random_cases(12, seed=5):
        for scheduler in SCHEDULERS:
            for builtin in ("first", "kth"):
                want = _pay(case.table, case.nodes, scheduler, builtin, case.reserve)["payment"]
                got = _pay(case.table, case.nodes, scheduler, f"p-{builtin}", case.reserve)["payment"]
                assert (_bits(got) == _bits(want)).all(), (case.describe(), scheduler, builtin)


def test_one_pass_mixes_builtin_and_plugin_schemes(as_plugins, workload_table):
    """``run_schedule`` with built-in and plugin schemes together: each row as the scheme's own run gives."""
    table, nodes = workload_table
    pricing = [("kth", 1.0), ("p-first", 0.0), ("first", 2.0), ("p-kth", 1.0), ("p-first", 5.0)]
    start, end, pay, npre, steps = run_schedule(table, nodes, "hb", pricing)
    for k, (p, r) in enumerate(pricing):
        alone = run_schedule(table, nodes, "hb", [(p, r)])
        assert (_bits(pay[k]) == _bits(alone[2][0])).all() and alone[4] == steps
        assert (start == alone[0]).all() and (npre == alone[3]).all()


@pytest.mark.slow
def test_plugin_rule_passes_the_conformance_checks(as_plugins):
    assert check_payment("p-kth", cases=8).passed and check_payment("py-first", cases=8).passed


@pytest.mark.slow
@pytest.mark.parametrize(("fn", "value"), [(nan_when_busy, "nan"), (negative_when_busy, "-")])
def test_a_nan_or_negative_price_names_scheme_function_job_and_value(fn, value):
    register_payment_rule("broken", fn, "a broken rule")
    case = random_cases(1, seed=2)[0]
    table = case.table.assign(reported_bid=case.table["reported_bid"] + 1.0)
    with pytest.raises(InputError) as err:
        simulate(table, 1, Mechanism("hb", "broken", 0.0))
    msg = str(err.value)
    assert "payment scheme 'broken'" in msg and f"rate function {fn.__name__!r}" in msg and "for job id " in msg
    job = int(msg.split("for job id ")[1].split()[0])
    assert job in set(table["id"]) and f"gave {value}" in msg and "expected a finite price >= 0" in msg
    bid = float(table.loc[table["id"] == job, "reported_bid"].iloc[0])
    assert f"(reported bid {bid!r}, reserve 0.0)" in msg


def test_a_raising_rate_function_is_an_error_naming_it():
    def divide(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        return bid / (free - free)

    register_payment_rule("divides", divide, "divides by zero", jit=False)
    case = random_cases(1, seed=2)[0]
    with pytest.raises(InputError, match="payment scheme 'divides': rate function 'divide' raised ZeroDivisionError"):
        simulate(case.table, case.nodes, Mechanism("hb", "divides", 1.0))


def test_a_rate_function_numba_cannot_compile_is_an_error_saying_what_to_do():
    def needs_objects(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        return float(str(reserve))

    register_payment_rule("objects", needs_objects, "uses Python objects")
    case = random_cases(1, seed=2)[0]
    with pytest.raises(InputError, match="numba cannot compile it .*jit=False"):
        simulate(case.table, case.nodes, Mechanism("hb", "objects", 1.0))
    register_payment_rule("objects-py", needs_objects, "uses Python objects", jit=False)
    assert simulate(case.table, case.nodes, Mechanism("hb", "objects-py", 1.0)).summary["jobs"] == len(case.table)


def test_a_compiled_rate_that_only_raises_is_said_in_one_short_line():
    # hunt 35a-W2: numba types a rate whose body only raises as returning nothing, found as the engine compiles at its
    # first call: "raised TypingError" and a 2,010-character dump of escaped colour codes and numba's file names
    def boom(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
        raise RuntimeError("boom")

    register_payment_rule("booms", boom, "raises")
    case = random_cases(1, seed=2)[0]
    with pytest.raises(InputError) as info:
        simulate(case.table, case.nodes, Mechanism("hb", "booms", 1.0))
    msg = str(info.value)
    assert msg.startswith("payment scheme 'booms': rate function ") and "numba cannot compile it (" in msg
    assert msg.endswith("register it with jit=False to run it as plain Python") and "\x1b" not in msg
    assert len(msg) < 400 and "\n" not in msg, msg
    register_payment_rule("booms-py", boom, "raises", jit=False)
    with pytest.raises(InputError, match="rate function 'boom' raised RuntimeError: boom"):
        simulate(case.table, case.nodes, Mechanism("hb", "booms-py", 1.0))


@pytest.mark.parametrize(
    "fn",
    [lambda bid, reserve: reserve, lambda *args: 0.0, lambda a, b, c, d, e, f, g, *, h=1: 0.0, 3.0],
    ids=["two parameters", "varargs", "keyword-only", "not callable"],
)
def test_a_wrong_signature_is_refused_when_registered(fn):
    with pytest.raises(InputError, match="payment scheme 'wrong': rate function .*expected"):
        register_payment_rule("wrong", fn, "wrong")


def test_a_rate_function_scheme_has_no_engine_code():
    entry = register_payment_rule("p-first", first_price, "first price, as a plugin")
    assert entry.code == RATE_FUNCTION and entry.rate is first_price


@pytest.mark.parametrize("scheduler", ["hb", "nphb", "wspt"])
def test_plugin_engine_heaps_grow_bit_for_bit(as_plugins, scheduler):
    """A congested run of 3 x FIRST_HEAP jobs in bursts, more jobs present at once than the heaps first hold:
    the plugin engine's heaps grow as the built-in engine's do, and its payments are the built-in's bit for bit,
    compiled and plain Python (under HB and NPHB without a bid heap, under WSPT with one)."""
    table = bursts(3 * FIRST_HEAP, 7)
    want = _pay(table, 48, scheduler, "kth", 1.0)
    assert congestion(want, 48)["peak_jobs_present"] > 2 * FIRST_HEAP
    for plugin in ("p-kth", "py-kth"):
        got = _pay(table, 48, scheduler, plugin, 1.0)
        for c in ("start", "end", "preemptions"):
            assert (got[c].to_numpy() == want[c].to_numpy()).all(), (scheduler, plugin, c)
        assert (_bits(got["payment"]) == _bits(want["payment"])).all(), (scheduler, plugin)


def kth_price_reading_the_lowest(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    """The k-th price where the lowest running bid is what it must be for a running job, finite and at most its
    bid; NaN (an error) where it is not: the engine computes it for this function (it reads it) and not for
    ``kth_price``."""
    if not (min_running_bid <= bid):
        return np.nan
    if waiting == 0:  # kth_price's body (numba compiles this function, not what it would call)
        return reserve
    m = max(reserve, max_waiting_bid)
    c = bid if bid >= reserve else reserve
    return c if c < m else m


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=workloads(), scheduler=st.sampled_from(SCHEDULERS), jit=st.booleans())
def test_plugin_engine_is_the_builtin_engine_on_drawn_markets(case, scheduler, jit):
    """The plugin engine is the built-in engine's loop paying with a rate function: with the first and k-th price
    as rate functions it gives ``run_market``'s start, end, payments, preemptions and step count bit for bit, on
    drawn markets (ties, idle gaps, bids and reserves of 0), three reserves in one pass, compiled and plain Python;
    and a function that reads the lowest running bid sees one that is finite and at most the running job's bid."""
    table, n, _ = case
    a = prepare(table, scheduler)[1]
    args = (a["submit"], a["runtime"], a["rank"], a["bidrank"], a["reported"], n, get_scheduler(scheduler).preemptive)
    reserves = np.array([0.0, 1.0, 10.0])
    for code, rates in ((FIRST_PRICE, (first_price,)), (KTH_PRICE, (kth_price, kth_price_reading_the_lowest))):
        want = run_market(*args, np.full(3, code), reserves)
        for rate in rates:
            bad = np.full(3, -1.0)
            got = plugin_engine(rate, jit)(*args, reserves, n, bad)
            assert bad[0] == -1.0, (rate.__name__, bad)
            for x, y, what in zip(got, want, ("start", "end", "payment", "preemptions", "steps")):
                assert np.asarray(x).tobytes() == np.asarray(y).tobytes(), (rate.__name__, what)


def _wraps(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return 2**70  # numba: a 64-bit integer, wrapped around to 0; Python: exact


def _wraps_times_bid(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return bid * 2**70 if free == 0 else reserve


def _large_float(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return bid * 2.0**70 if free == 0 else reserve  # floats: the same number compiled and not


@pytest.mark.parametrize("fn", [_wraps, _wraps_times_bid])
def test_a_rate_whose_compiled_numbers_are_not_pythons_is_refused_naming_it(workload_table, fn):
    """A rate of ``2**70`` paid 0.0 compiled and 8.4e26 in plain Python, exit 0: the compiled path and the plain
    one agree on every value they accept, or the compiled one is refused with what differs."""
    with pytest.raises(
        InputError, match=rf"rate function '{fn.__name__}': compiled by numba it gives 0\.0 where Python"
    ):
        plugin_engine(fn, True)
    register_payment_rule(f"wrap-{fn.__name__}", fn, "a price that wraps around in 64 bits")
    table, nodes = workload_table
    with pytest.raises(InputError, match=rf"payment scheme 'wrap-{fn.__name__}'.*numba's integers are 64 bits"):
        _pay(table, nodes, "hb", f"wrap-{fn.__name__}", 1.0)
    register_payment_rule(f"wrap-py-{fn.__name__}", fn, "the same, plain Python", jit=False)
    paid = _pay(table, nodes, "hb", f"wrap-py-{fn.__name__}", 1.0)["payment"]
    assert paid.max() > 1e20  # the Python function's numbers, exactly what it returns


def test_a_rate_computed_with_large_floats_compiles_and_agrees(workload_table):
    register_payment_rule("big-float", _large_float, "large float prices, compiled")
    register_payment_rule("big-float-py", _large_float, "the same, plain Python", jit=False)
    table, nodes = workload_table
    a = _pay(table, nodes, "hb", "big-float", 1.0)["payment"].to_numpy()
    b = _pay(table, nodes, "hb", "big-float-py", 1.0)["payment"].to_numpy()
    assert (_bits(a) == _bits(b)).all() and a.max() > 1e20
