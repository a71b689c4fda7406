"""Payment schemes given as functions: the engine of a plugin's rate function.

A plugin's scheme is a rate function (``payments.register_payment_rule``), not a branch of ``market_price``.
Each one gets its own engine: the event loop of :mod:`~gamemarket.market.engine` (``engine_loop``) with the
function's accrual (``_rate_accrual``) in place of the built-in ``_accrue``, compiled with the function as a
constant (numba inlines it), so the built-in engine and its disk cache stay as they are. Where ``run_market``
keeps each running job's rate cap beside its payment (``rcap``), this engine keeps its reported bid; each interval
pays each running job ``rate(bid, r, state) * dt``, the state the market's after the last step (free nodes,
waiting jobs, highest waiting and lowest running bid), in one pass, as ``_accrue`` pays ``min(cap, M) * dt``: the
same operations in the same order, so a rate function that computes a built-in scheme's rate gives its payments
bit for bit.
"""

from __future__ import annotations

import dis
import re

import numpy as np
from numba import float64, int64, njit
from numba.core.errors import NumbaError

from gamemarket.errors import InputError, foreign_prints, raised
from gamemarket.market.engine import FLOATS, MASK, engine_loop, job_rows, outcome_arrays, run_market
from gamemarket.market.payments import RateValueError, plain_rate


@njit(cache=True)
def _bid_rows(runtime, reported, reserves):
    """``job_rows`` with each job's reported bid where ``run_market`` keeps its K rate caps."""
    ji, jf = job_rows(runtime, reported, reserves)
    for j in range(reported.shape[0]):
        for s in range(reserves.shape[0]):
            jf[j, FLOATS + s] = reported[j]
    return ji, jf


def _pay_rates(rate, reserves, rbid, rpay, rheap, rcnt, dt, nodes, free, waiting, maxq, minr, bad):
    """Every running job pays ``rate(bid, r, state) * dt`` under each reservation price; False (and ``bad``
    filled with the job, the price and the reserve's index) where a price is NaN, negative or infinite."""
    fdt = float(dt)
    for s in range(reserves.shape[0]):
        r = float(reserves[s])
        bs = rbid[s]
        ys = rpay[s]
        # branch-free, so the loop vectorises as ``_accrue``'s does: count the prices that are finite and
        # >= 0, and look for the first that is not only when one is not
        ngood = 0
        for k in range(rcnt):
            v = float(rate(float(bs[k]), r, nodes, free, waiting, maxq, minr))
            ngood += (v >= 0.0) & (v < np.inf)
            ys[k] += v * fdt
        if ngood != rcnt:
            for k in range(rcnt):
                v = float(rate(float(bs[k]), r, nodes, free, waiting, maxq, minr))
                if not (v >= 0.0 and v < np.inf):
                    bad[0] = rheap[k] & MASK
                    bad[1] = v
                    bad[2] = s
                    return False
    return True


def _plain_pay_rates(*args):
    """:func:`_pay_rates` in Python (a rate function with ``jit=False``), its sums overflowing to infinity as the
    compiled step's do, without numpy's warning: a sum past the float range is the run's error, said once where the
    payments are checked (hunt 17b-F7: "warning: overflow encountered in scalar add" came first). The rate function
    computes under its own errors raised (``payments.plain_rate``)."""
    with np.errstate(over="ignore"):
        return _pay_rates(*args)


# compiled as the other steps are, but not cached on disk: each compilation is specialised on one rate function,
# and numba's cache index would record that function's module, which another process may not import
_pay_rates_step = njit(_nrt=False, forceinline=True)(_pay_rates)


def _rate_accrual(rate, low: bool, jit: bool):
    """The accrual of a rate function ``rate`` for ``engine_loop`` (``pay``: the market's true node count and the
    ``bad`` array of :func:`plugin_engine`); ``low``: whether ``rate`` reads the lowest running bid (else that pass
    over the running jobs is skipped); ``jit``: whether the loop is compiled (the accrual is then inlined in it, in
    numba's IR, and its payment step ``_pay_rates_step`` inlined by LLVM, as the steps are)."""
    pay_rates = _pay_rates_step if jit else _plain_pay_rates

    def accrue(reserves, pay, n, rcnt, wcnt, maxq, rbid, rpay, rheap, dt):
        nodes, bad = pay
        minr = np.inf
        if low:
            b0 = rbid[0]
            for k in range(rcnt):
                if b0[k] < minr:
                    minr = float(b0[k])
        return pay_rates(rate, reserves, rbid, rpay, rheap, rcnt, dt, nodes, nodes - rcnt, wcnt, float(maxq), minr, bad)

    return njit(inline="always")(accrue) if jit else accrue


def _rates_engine(rate, low: bool, jit: bool):
    """:func:`plugin_engine`'s ``run`` of ``rate`` (``low``, ``jit``: as for ``_rate_accrual``): the rows of bids,
    the loop paying with the rate function, the outcomes. It calls the three from Python, each compiled on its own:
    a compiled ``run`` would compile the loop again as part of itself (inlined, or its code optimised again), some
    0.4 s more for each rate function and process, for a call or two saved per run."""
    loop = engine_loop(_rate_accrual(rate, low, jit))
    loop = njit(loop) if jit else loop

    def run(submit, runtime, rank, bidrank, reported, n, preemptive, reserves, nodes, bad):
        ji, jf = _bid_rows(runtime, reported, reserves)
        steps = loop(submit, rank, bidrank, reported, n, preemptive, ji, jf, reserves, (nodes, bad))
        start, end, pay, npre = outcome_arrays(ji, jf, reserves.shape[0])
        return start, end, pay, npre, steps

    return run


def _reads(rate, position: int) -> bool:
    """Whether the function ``rate`` reads its parameter at ``position`` (else the engine need not compute it);
    True where that cannot be told (no code object, a closure over it)."""
    code = getattr(rate, "__code__", None)
    if code is None or position >= code.co_argcount:
        return True
    name = code.co_varnames[position]
    if name in code.co_cellvars:
        return True
    for ins in dis.get_instructions(code):
        arg = ins.argval
        if arg == name or (isinstance(arg, tuple) and name in arg):
            return True
    return False


_PLUGIN_ENGINES: dict = {}


def _numbers_only(rate):
    """``rate``, whose every return is a real number (``payments.rate_value``: a text or a tuple is an error naming
    the function and the value, not a price ``float()`` makes of ``"1.5"``)."""

    def checked(*args) -> float:
        return plain_rate(rate, *args)

    return checked


#: the market states a compiled rate function is held against its plain Python self (:func:`_same_numbers`): bids
#: and reserves from zero to large, a full and a free cluster, no queue and one, no running job (inf) and some
PROBES = [
    (bid, r, 8, free, waiting, maxq, minr)
    for bid in (0.0, 0.37, 1.0, 250.0)
    for r in (0.0, 1.0)
    for free in (0, 3)
    for waiting in (0, 5)
    for maxq in (0.0, 2.5)
    for minr in (0.5, np.inf)
]


def _same_numbers(rate, compiled) -> None:
    """Refuse a rate function whose compiled form gives other numbers than its plain Python self on
    :data:`PROBES`: numba's integers are 64 bits and wrap around (``2**70`` compiled is 0.0, an overflow no
    one sees), where Python's are exact. A state where the Python function returns no price :func:`rate_value`
    accepts (a text, a bool, an integer beyond float range) refuses it, with the plain path's message. Where it
    raises (its own error, or numpy's overflow, :data:`~gamemarket.market.payments.RATE_ERRORS`), the compiled form
    must raise too: one that gives a number there (``np.int16(70000)``: Python's OverflowError, numba's wrapped
    4464, paid) is refused. Agreement to 1e-9 relative is agreement (the same float operations, in another order)."""
    for args in PROBES:
        try:
            want = plain_rate(rate, *args)
        except RateValueError:  # no price in Python (a text, a bool, 10**400): refused compiled too, where numba's
            raise  # float64 signature made a number of it (or wrapped it around), as the plain path refuses it
        except Exception as exc:  # noqa: BLE001 - the function's own error on this state: the compiled one's too?
            want = f"raises {raised(exc)}"
        try:
            got = float(compiled(*args))
        except Exception:  # noqa: BLE001 - numba's error where Python's is too: both refuse the state
            if isinstance(want, str):
                continue
            raise
        if isinstance(want, float) and (
            want == got or (np.isnan(want) and np.isnan(got)) or abs(want - got) <= 1e-9 * max(abs(want), abs(got))
        ):
            continue
        bid, r, nodes, free, waiting, maxq, minr = args
        said = want if isinstance(want, str) else f"gives {want!r}"
        raise InputError(
            f"rate function {getattr(rate, '__qualname__', rate)!r}: compiled by numba it gives {got!r} where Python "
            f"{said} (bid {bid}, reserve {r}, nodes {nodes}, free {free}, waiting {waiting}, highest waiting "
            f"bid {maxq}, lowest running bid {minr}); numba's integers are 64 bits and wrap around, and its numpy "
            "scalars overflow without an error: compute with floats (2.0**70, not 2**70), or register it with "
            "jit=False to run it as plain Python"
        )


def plugin_engine(rate, jit: bool = True):
    """The engine of a rate function: ``run(submit, runtime, rank, bidrank, reported, n, preemptive, reserves,
    nodes, bad)`` with ``run_market``'s arguments and results (K reservation prices, one function), ``nodes``
    the market's true node count (``n`` may be capped at J + 1) and ``bad`` a float64 array of 3 that a price
    NaN, negative or infinite fills with (job, value, reserve's index) before the run stops.

    ``jit`` compiles ``rate`` and the loop with numba (once per function and process); otherwise the loop is
    plain Python over the compiled steps, calling ``rate`` as it is: slower, the same numbers. A function numba
    cannot compile, or whose compiled form gives other numbers than Python on :data:`PROBES` (an integer that
    wraps around), is an ``InputError`` naming it (register it with ``jit=False`` to run it uncompiled).
    """
    key = (rate, bool(jit))
    hit = _PLUGIN_ENGINES.get(key)
    if hit is not None:
        return hit
    low = _reads(rate, 6)  # min_running_bid
    if not jit:  # what it returns checked to be a number (compiled, numba's float64 signature does that)
        run = _rates_engine(_numbers_only(rate), low, False)
    else:
        try:
            compiled = njit(float64(float64, float64, int64, int64, int64, float64, float64))(rate)
        except Exception as exc:  # numba's typing and lowering errors have no common public base
            raise InputError(_uncompiled(rate, exc)) from None
        _same_numbers(rate, compiled)
        run = _rates_engine(compiled, low, True)
    _PLUGIN_ENGINES[key] = run
    return run


def _uncompiled(rate, exc: Exception) -> str:
    """What a rate function numba cannot compile is told: the first line of numba's error, without its terminal
    colours (a 2,010-character typing dump of escaped colour codes and numba's own file names, hunt 35a-W2)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return (
        f"rate function {getattr(rate, '__qualname__', rate)!r}: numba cannot compile it ({first}); register it with "
        "jit=False to run it as plain Python"
    )


def run_pricing(submit, runtime, rank, bidrank, reported, n, preemptive, schemes, reserves, *, nodes, job_id):
    """``run_market`` over payment-scheme entries (``payments.PaymentScheme``): the built-in ones in one pass
    of ``run_market`` (as before, and as fast), each rate function in a pass of its own engine
    (:func:`plugin_engine`); the schedule is the same in every pass, so the results are ``run_market``'s.

    Parameters
    ----------
    submit, runtime, rank, bidrank, reported, n, preemptive
        As for :func:`run_market`.
    schemes : sequence of PaymentScheme
        K entries, one per row of the payment matrix.
    reserves : float64 array of K reservation prices
    nodes : int, keyword-only
        The market's node count (``n`` may be capped at J + 1); what a rate function reads.
    job_id : callable, keyword-only
        A job's id from its arrival index, for the error of a price that is NaN, negative or infinite.

    Returns
    -------
    start, end, payment (K x J), preemptions, steps, as :func:`run_market`.
    """
    codes = np.array([e.code for e in schemes], dtype=np.int64)
    if all(e.rate is None for e in schemes):
        return run_market(submit, runtime, rank, bidrank, reported, n, preemptive, codes, reserves)
    pay = np.empty((len(schemes), submit.shape[0]), np.float64)
    out = None
    builtin = [k for k, e in enumerate(schemes) if e.rate is None]
    if builtin:
        out = run_market(submit, runtime, rank, bidrank, reported, n, preemptive, codes[builtin], reserves[builtin])
        pay[builtin] = out[2]
    groups: dict = {}
    for k, e in enumerate(schemes):
        if e.rate is not None:
            groups.setdefault((e.rate, e.jit), []).append(k)
    for (rate, jit), idx in groups.items():
        entry = schemes[idx[0]]
        what = f"payment scheme {entry.name!r}{f' (plugin {entry.source})' if entry.source else ''}"
        fn = f"rate function {getattr(rate, '__name__', rate)!r}"
        try:
            run = plugin_engine(rate, jit)
        except InputError as exc:  # numba cannot compile it, or its numbers are not Python's: the scheme named
            raise InputError(f"{what}: {exc}") from None
        bad = np.full(3, -1.0)
        try:
            with foreign_prints():  # the plugin's function: what it prints is not the command's output
                res = run(submit, runtime, rank, bidrank, reported, n, preemptive, reserves[idx], int(nodes), bad)
        except RateValueError as exc:  # it returned what is not a number: named by ``rate_value``
            raise InputError(f"{what}: {exc}") from None
        except NumbaError as exc:  # compiled with the engine at its first call: a rate that only raises, typed none
            raise InputError(f"{what}: {_uncompiled(rate, exc)}") from None
        except Exception as exc:  # the user's function raised: its own message, on one line
            raise InputError(f"{what}: {fn} raised {raised(exc)}") from None
        if bad[0] >= 0:
            j, r = int(bad[0]), float(reserves[idx][int(bad[2])])
            raise InputError(
                f"{what}: {fn} gave {float(bad[1])!r} for job id {job_id(j)} (reported bid {float(reported[j])!r}, "
                f"reserve {r!r}); expected a finite price >= 0"
            )
        over = np.flatnonzero(~np.isfinite(np.asarray(res[2])).all(axis=0))
        if over.size:  # each rate finite, their sum not (hunt 31a-W3, 30c-W4: the run's revenue "is inf", unnamed)
            raise InputError(
                f"{what}: {fn}'s rates sum past the float range (1.8e308) in the payment of job id "
                f"{job_id(int(over[0]))} (each rate times the seconds and nodes it is paid for); expected rates whose "
                "products with the jobs' node-seconds stay within it"
            )
        pay[idx] = res[2]
        out = out if out is not None else res
    return out[0], out[1], pay, out[3], out[4]
