"""Numbers a plugin hands the package (#43 item 6): a rate function's price, a consumer strategy's reported bids,
a price an event scheduler's run pays. What is no number the engine can hold (an integer beyond float range,
a text, a bool, an object array of them) is refused with one line naming the plugin, the function, the value
and what was expected, exit 2, and the compiled and the plain paths refuse it alike (numba's float64 signature
made a number of ``10**400`` or ``True``, the plain path an ``OverflowError`` said to be the function's)."""

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from gamemarket.cli import main
from gamemarket.consumers import FAMILIES
from gamemarket.errors import InputError, real_numbers, shown_value
from gamemarket.market.hooks import run_hooks
from gamemarket.plugins import load_plugin
from gamemarket.testing import family_draws, random_cases

SHADE_BY = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "shade_by_amount.py"

RATE = """
from gamemarket.market.payments import payment_rule
@payment_rule("odd-rate", "returns an odd value", jit={jit})
def odd_rate(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return {value}
"""

#: (what the rate function returns, the message's tail after "rate function 'odd_rate' returned ")
RETURNS = [
    ("10**400", r"100000000000\.\.\. \(401 digits\) \(int\), beyond float range; expected a number a float holds"),
    ("-(10**400)", r"-10000000000\.\.\. \(401 digits\) \(int\), beyond float range; expected a number"),
    ("10**400 if bid > 100 else reserve", r"100000000000\.\.\. \(401 digits\) \(int\), beyond float range"),
    ("True", r"True \(bool\); expected a number \(a price per node-second\)"),
    ("bid > 100", r"(True|False) \(bool\); expected a number \(a price per node-second\)"),
]


def _run(tmp_path, capsys, text: str, *args) -> tuple[int, str, str]:
    p = tmp_path / "odd.py"
    p.write_text(text)
    rc = main(["simulate", "--synthetic-jobs", "30", "--plugin", str(p), *args])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize(("value", "tail"), RETURNS)
def test_a_rate_beyond_float_range_or_a_bool_is_refused_alike_compiled_and_plain(tmp_path, capsys, value, tail):
    errors = {}
    for jit in (True, False):
        rc, out, err = _run(tmp_path, capsys, RATE.format(value=value, jit=jit), "--payment", "odd-rate")
        assert rc == 2 and out == "" and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert re.match(
            rf"gamemarket: error: payment scheme 'odd-rate' \(plugin .*odd\.py@[0-9a-f]{{16}}\): "
            rf"rate function 'odd_rate' returned {tail}",
            err,
        ), err
        assert "raised OverflowError" not in err  # the value is named, not float()'s error as the function's
        errors[jit] = re.sub(r"@[0-9a-f]{16}", "@HASH", err)  # the text differs (jit=...): so does its hash
    if value != "bid > 100":  # which state first gives the bool differs: the probes, or the run's first job
        assert errors[True] == errors[False]


def test_a_large_integer_a_float_holds_is_a_price_in_both_paths(tmp_path, capsys):
    """Python's exact 2**70 is a price (1.18e21); compiled it wraps around to 0: refused there, naming both."""
    rc, _, err = _run(tmp_path, capsys, RATE.format(value="int(reserve) * 2**70", jit=False), "--payment", "odd-rate")
    assert rc == 0, err
    rc, _, err = _run(tmp_path, capsys, RATE.format(value="int(reserve) * 2**70", jit=True), "--payment", "odd-rate")
    assert rc == 2 and "numba's integers are 64 bits" in err and "1.1805916207174113e+21" in err, err


#: numpy scalars of fixed width that overflow (hunt 16b): Python raised or warned and paid the wrapped value, numba
#: wrapped or refused; each path gave another answer. Now both refuse, in one line.
NUMPY_OVERFLOWS = [
    "np.int16(70000) + bid",  # Python: OverflowError (numpy 2); numba: 4464, paid
    "np.uint8(bid) - np.uint8(200)",  # Python: 56 with a warning; numba: 1.8e19
    "np.float32(bid) * np.float32(1e30) * np.float32(1e10)",  # Python: inf with a warning; numba: inf
    "np.int64(9223372036854775807) + np.int64(bid)",  # Python: wraps with a warning; numba: wraps in silence
    "np.int8(bid) * np.int8(100)",
]


@pytest.mark.parametrize("value", NUMPY_OVERFLOWS)
def test_a_numpy_scalar_that_overflows_is_refused_in_both_paths_in_one_line(tmp_path, capsys, value):
    text = "import numpy as np\n" + RATE.format(value=value, jit="{jit}")
    for jit in (True, False):
        rc, out, err = _run(tmp_path, capsys, text.format(jit=jit), "--payment", "odd-rate")
        assert rc == 2 and out == "" and "Traceback" not in err, (jit, err)
        assert len(err.strip().splitlines()) == 1 and "warning" not in err, (jit, err)
        assert "payment scheme 'odd-rate'" in err and "rate function 'odd_rate'" in err, (jit, err)
        if jit:
            assert "compiled by numba it gives" in err and "where Python" in err, err
        else:
            assert re.search(r"raised (OverflowError|FloatingPointError)|returned inf", err), err


def test_plugin_check_refuses_a_rate_whose_numpy_scalar_wraps(tmp_path, capsys):
    """``plugin check`` passed ``np.uint8(bid) - np.uint8(200)`` (6 checks, 6 passed, and many warning lines)."""
    p = tmp_path / "wraps.py"
    p.write_text("import numpy as np\n" + RATE.format(value="np.uint8(bid) - np.uint8(200)", jit=False))
    assert main(["plugin", "check", str(p)]) != 0
    out, err = capsys.readouterr()
    assert "FloatingPointError" in out + err and "warning" not in err, out + err


def test_an_event_schedulers_run_refuses_a_rate_beyond_float_range_naming_the_scheme(tmp_path):
    """The hooks path called float() on the rate: 10**400 was 'raised OverflowError', '1.5' a price."""
    load_plugin(SHADE_BY.with_name("least_attained.py"))  # an event scheduler
    for value, what in (("10**400", "beyond float range"), ('"1.5"', r"'1\.5' \(str\); expected a number")):
        p = tmp_path / f"odd{len(value)}.py"
        p.write_text(RATE.format(value=value, jit=False).replace("odd-rate", f"odd-rate-{len(value)}"))
        load_plugin(p)
        case = random_cases(1, seed=3)[0]
        with pytest.raises(
            InputError,
            match=rf"payment scheme 'odd-rate-{len(value)}' \(plugin .*rate function "
            rf"'odd_rate' returned .*{what}",
        ):
            run_hooks(case.table, case.nodes, "least-attained", f"odd-rate-{len(value)}", case.reserve)


def _family(tmp_path, bids: str) -> str:
    p = tmp_path / "bad.py"
    text = (
        SHADE_BY.read_text()
        .replace('name = "shade-by"', 'name = "bad-by"')
        .replace('family: ClassVar[str] = "shade-by"', 'family: ClassVar[str] = "bad-by"')
        .replace("np.maximum(0.0, w - self.amount * np.asarray(U, dtype=float))", bids)
    )
    p.write_text(text)
    return load_plugin(p).source


@pytest.mark.parametrize(
    ("bids", "message"),
    [
        ("np.array([10**400] * len(w), dtype=object)", r"element 0 is 100000000000\.\.\. \(401 digits\) \(int\)"),
        ("[10**400] + [0] * (len(w) - 1)", r"element 0 is 100000000000\.\.\. \(401 digits\) \(int\), beyond float"),
        ("np.array(['1.5'] * len(w))", r"an array of dtype <U3 \(element 0 is '1\.5'\), not of real numbers"),
        ("np.ones(len(w), dtype=bool)", r"an array of dtype bool \(element 0 is True\), not of real numbers"),
        ("np.ones(len(w)) * 1j", r"an array of dtype complex128 \(element 0 is 1j\), not of real numbers"),
        ("np.array([None] * len(w))", r"element 0 is None \(NoneType\), not a real number"),
        ("[[0.0], [1.0, 2.0]]", r"not an array of numbers \(ValueError: "),
    ],
)
def test_bids_that_are_no_numbers_are_refused_naming_plugin_strategy_and_value(tmp_path, bids, message):
    source = _family(tmp_path, bids)
    s = FAMILIES.get("bad-by").point([10])
    with pytest.raises(InputError) as err:
        s.reported_bids(*family_draws(50))
    msg = str(err.value)
    assert msg.startswith(
        f"plugin {source}: consumer-strategy family 'bad-by', strategy 'bad-by[10]': reported_bids returned bids: "
    ), msg
    assert re.search(message, msg) and msg.endswith("expected a finite bid in [0, private bid] per job"), msg


def test_an_object_array_of_integers_a_float_holds_bids_as_the_floats(tmp_path):
    _family(tmp_path, "np.array([int(x) for x in w], dtype=object)")
    w, cls, G, U = family_draws(50)
    group, reported = FAMILIES.get("bad-by").point([10]).reported_bids(w, cls, G, U)
    assert reported.dtype == np.float64 and np.array_equal(reported, np.floor(w))


def test_a_study_of_a_family_bidding_huge_integers_exits_2_without_a_traceback(tmp_path, capsys):
    p = tmp_path / "bad.py"
    _family(tmp_path, "np.array([10**400] * len(w), dtype=object)")
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", str(p), "--mix", "bad-by[10]"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "beyond float range" in err, err


def test_shown_value_and_real_numbers():
    assert shown_value(10**400) == "100000000000... (401 digits)"
    assert shown_value(-(2**60000)) == "-~2**60000"  # str() refuses more than 4300 digits
    assert shown_value("x" * 200).endswith("...") and len(shown_value("x" * 200)) == 83
    got, problem = real_numbers(np.array([1, 2**64, Fraction(1, 2)], dtype=object))
    assert problem is None and got.tolist() == [1.0, 2.0**64, 0.5]
    assert real_numbers([1.0, float("nan")])[1] is None  # finiteness is the caller's: it names what it expected
    assert real_numbers(np.array([1.0, 10**400], dtype=object))[1].startswith("element 1 is 100000000000...")


KEY = """
import numpy as np
from gamemarket.market import register_scheduler
def key(table):
    n = len(table["submit"])
    return {body}
register_scheduler("odd-key", False, key, "an odd key function")
"""


@pytest.mark.parametrize(
    "body",
    ["np.array([10**400] * n, dtype=object)", "[10**400] * n", "np.array(['1'] * n)", "np.ones(n, dtype=bool)"],
)
def test_a_key_function_returning_no_numbers_is_exit_2_naming_the_value(tmp_path, capsys, body):
    p = tmp_path / "key.py"
    p.write_text(KEY.format(body=body))
    rc = main(["simulate", "--synthetic-jobs", "20", "--plugin", str(p), "--scheduler", "odd-key"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and "scheduler 'odd-key' (plugin " in err and "element 0 is" in err
