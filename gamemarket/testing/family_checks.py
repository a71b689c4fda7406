"""Conformance checks for a registered consumer-strategy family: what every family and its strategies satisfy.

In the spirit of Axelrod's ``TestPlayer``: the checks our own suite runs on every built-in family and
catalogue strategy (``tests/test_consumers.py``), as one call a plugin author runs on theirs::

    from gamemarket.testing import check_family

    def test_my_family_conforms():
        check_family("shade-by")  # raises ConformanceError (an AssertionError) naming the failed checks

The strategies checked are the points of a parametric family (its box's corners and a seeded random point),
or, for a family that is not parametric, what its catalogue entry with no fields gives (``family = "NAME"``
alone: the default strategy of a family without parameters; :func:`family_defaults`), and any ``strategies``
passed in. Each check names the strategy and, for a bid, the job and the value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from gamemarket import bids, consumers
from gamemarket.consumers import FAMILIES, ConsumerStrategy, Family, ParametricFamily
from gamemarket.consumers.base import check_reported
from gamemarket.errors import InputError, check_text, shown_value
from gamemarket.testing.report import FAILED, PASSED, SKIPPED, ConformanceReport, check_case_seed, check_options

#: the most seeded jobs :func:`family_draws` draws (four arrays of float64 each: 320 MB at the most)
MAX_DRAWS = 10**7


def _check_strategy(s, what: str) -> None:
    """``s`` a :class:`ConsumerStrategy`, else an :class:`InputError` naming ``what`` and the value."""
    if not isinstance(s, ConsumerStrategy):
        raise InputError(f"{what}: s must be a ConsumerStrategy, got {shown_value(s)} ({type(s).__name__})")


def _check_family(fam, kind: type, what: str, expected: str) -> None:
    """``fam`` a ``kind`` (a family object, not its name), else an :class:`InputError` naming ``what``."""
    if not isinstance(fam, kind):
        hint = f" (consumers.FAMILIES[{fam!r}] is the family of that name)" if isinstance(fam, str) else ""
        raise InputError(f"{what} must be {expected}, got {shown_value(fam)} ({type(fam).__name__}){hint}")


def family_draws(n: int = 4000, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Private bids, their classes and the group and shading draws of ``n`` seeded jobs, plus four jobs at the
    bid classes' edges and the range's ends (``w = 0, 60, 120, 180``) with extreme draws.

    Returns
    -------
    (w, bid_class, G, U) : tuple of numpy.ndarray
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_DRAWS:
        raise InputError(f"family_draws: n must be a whole number from 1 to {MAX_DRAWS:,}, got {shown_value(n)}")
    d = bids.draw(int(n), check_case_seed(seed, "family_draws: seed"))
    w = np.concatenate([d.private_bid, [0.0, 60.0, 120.0, 180.0]])  # the class edges and the range's ends
    G = np.concatenate([d.G, [0.0, 0.5, 0.999, 0.25]])
    U = np.concatenate([d.U, [0.999999, 0.0, 0.5, 0.999999]])
    return w, bids.bid_bin_codes(w), G, U


def family_points(family: ParametricFamily, seed: int = 7) -> dict[str, ConsumerStrategy]:
    """Points of a parametric family: its lower corner, the corner just under its upper bounds, and a random
    point (seeded), by ``low``, ``high`` and ``random``."""
    _check_family(family, ParametricFamily, "family_points: family", "a ParametricFamily")
    rng = np.random.default_rng(check_case_seed(seed, "family_points: seed"))
    lo = np.array([b[0] for b in family.bounds], dtype=float)
    hi = np.nextafter(np.array([b[1] for b in family.bounds], dtype=float), -np.inf)
    return {
        tag: family.point(x) for tag, x in (("low", lo), ("high", hi), ("random", lo + rng.random(len(lo)) * (hi - lo)))
    }


def family_defaults(family: Family) -> dict[str, ConsumerStrategy]:
    """The strategies of a family's catalogue entry with no fields (``family = "NAME"`` alone), by name: the
    default point(s) of a family without parameters.

    Raises
    ------
    InputError
        The family needs fields in an entry (it has parameters); its own message.
    """
    _check_family(family, Family, "family_defaults: family", "a consumer-strategy Family")
    return family.from_entry(family.name, {}, "check_family", f"[strategies.consumer.{family.name}]")


def check_bids(s: ConsumerStrategy) -> str:
    """Its reported bids: shapes and dtypes, finite, within ``[0, w]``, groups in range, the same bits on the
    same draws and (unless truthful) other bids on other draws. Raises ``AssertionError`` or ``InputError``."""
    _check_strategy(s, "check_bids")
    assert s.family in FAMILIES, f"its family {s.family!r} is not registered"
    w, cls, G, U = family_draws()
    group, rw = s.reported_bids(w, cls, G, U)
    assert np.shape(rw) == w.shape and np.shape(group) == w.shape, f"shapes {np.shape(group)}, {np.shape(rw)}"
    assert np.asarray(group).dtype == np.int64, f"group indices of dtype {np.asarray(group).dtype}, not int64"
    check_reported(s, w, group, rw)  # finite, in [0, w], groups in range: an InputError naming the job
    again = s.reported_bids(*family_draws())
    assert np.array_equal(again[0], group) and np.array_equal(again[1], rw), "two calls on the same draws differ"
    other = s.reported_bids(*family_draws(seed=4))
    assert s.truthful or not np.array_equal(other[1][:-4], rw[:-4]), "other draws give the same bids"
    return "finite, in [0, w], groups in range, repeatable"


def check_round_trip(s: ConsumerStrategy) -> str:
    """``params`` back through ``from_params`` and ``entry`` back through ``from_entry``: the same key and bids."""
    _check_strategy(s, "check_round_trip")
    p = s.params()
    back = consumers.from_params(p, s.name)
    bare = {k: v for k, v in p.items() if k != "plugin"}
    assert {k: v for k, v in back.params().items() if k != "plugin"} == bare, f"params {p} come back as {back.params()}"
    assert back.key() == s.key() and back.family == s.family, "from_params gives another strategy"
    assert consumers.family_of(bare).name == s.family, f"params {p} are not recognised as family {s.family!r}"
    made = consumers.from_entry(s.name, s.entry(), "entry()", default_family=s.family)
    assert made[s.name].key() == s.key(), f"entry() {s.entry()} reads back as another strategy"
    w, cls, G, U = family_draws(300)
    assert np.array_equal(back.reported_bids(w, cls, G, U)[1], s.reported_bids(w, cls, G, U)[1]), "other bids"
    return "params and entry() read back to the same strategy"


def check_independent(s: ConsumerStrategy) -> str:
    """A job's bid does not depend on who else plays the strategy (``population_bids``), and a strategy that
    declares ``betas_by_class`` bids what its one table lookup gives."""
    _check_strategy(s, "check_independent")
    w, cls, G, U = family_draws(500)
    truthful = consumers.ShadingRule("t", (0, 0, 0))
    which = (np.arange(len(w)) % 2).astype(np.int64)
    mixed = consumers.population_bids([truthful, s], which, w, G, U)
    alone = s.reported_bids(w, cls, G, U)[1]
    assert np.array_equal(mixed[which == 1], alone[which == 1]), "its jobs bid otherwise beside other strategies"
    assert np.array_equal(mixed[which == 0], w[which == 0]), "it changes the other strategy's bids"
    if s.betas_by_class is not None:
        lookup = w * (1.0 - np.asarray(s.betas_by_class, dtype=float)[cls] * U)
        assert np.array_equal(lookup, alone), "its betas_by_class give other bids than its reported_bids"
    return "each job's bid is its own"


def check_box(fam: ParametricFamily) -> str:
    """A parametric family's box: as many names as bounds, points named by their values (two points that
    ``%g`` would merge keep apart), coordinates back, and a value outside its bound an error naming it."""
    _check_family(fam, ParametricFamily, "check_box: fam", "a ParametricFamily")
    assert fam.dimension == len(fam.bounds) == len(fam.param_names) > 0, "param_names and bounds do not match"
    x = [0.5 * (lo + hi) for lo, hi in fam.bounds]
    s = fam.point(x)
    assert np.array_equal(fam.coordinates(s), x), f"coordinates {fam.coordinates(s)} of the point {x}"
    assert fam.point(dict(zip(fam.param_names, x))).key() == s.key(), "a point by name is another strategy"
    assert fam.point(x).name == s.name and fam.name in s.name, f"point name {s.name!r}"
    lo, hi = fam.bounds[0]
    y = [x[0] + (hi - lo) * 1.234567891e-3, *x[1:]]
    if float(f"{y[0]:g}") != y[0]:
        rounded = [float(f"{y[0]:g}"), *x[1:]]
        assert fam.point(y).name != fam.point(rounded).name, "two points %g merges get the same name"
    for k, bad in ((len(x) - 1, fam.bounds[-1][1]), (0, fam.bounds[0][0] - 0.01 * (hi - lo)), (0, float("nan"))):
        z = list(x)
        z[k] = bad
        try:
            fam.point(z)
        except InputError as exc:
            assert repr(fam.param_names[k]) in str(exc), f"the error {exc} does not name {fam.param_names[k]!r}"
        else:
            raise AssertionError(f"the point {z} outside the bounds {fam.bounds} is accepted")
    return f"{fam.dimension} parameter(s) {fam.list_names()}, bounds {list(fam.bounds)}"


def _each(report, check: str, strategies: dict, fn: Callable[[ConsumerStrategy], str]) -> None:
    """Run ``fn`` on every strategy; record the first failure (naming the strategy) or a pass."""
    detail = ""
    for label, s in strategies.items():
        try:
            detail = fn(s)
        except Exception as exc:  # a check reports what broke and where, rather than stopping the report
            report.add(check, FAILED, f"strategy {label!r}: {type(exc).__name__}: {exc}")
            return
    report.add(check, PASSED, f"{len(strategies)} strategies: {detail}")


def check_family(
    name: str, *, strategies: Sequence[ConsumerStrategy] = (), seed: int = 7, raise_on_failure: bool = True
) -> ConformanceReport:
    """Check a registered consumer-strategy family and its strategies.

    Checks: ``registered`` (its registered name is its own and it has a description), ``box`` (a parametric
    family: see :func:`check_box`) or ``default`` (a family that is not parametric, whose entry with no fields
    reads: :func:`family_defaults`), ``bids`` (:func:`check_bids`), ``round trip`` (:func:`check_round_trip`)
    and ``independent`` (:func:`check_independent`), on the family's points (:func:`family_points`) or default
    strategies, and the ``strategies`` given. A family that is not parametric and needs fields in an entry (the
    built-in ``beta-mix``) is checked on the ``strategies`` given only.

    Parameters
    ----------
    name : str
        A name in ``gamemarket.consumers.FAMILIES``.
    strategies : sequence of ConsumerStrategy, optional
        More strategies of the family to check (a family that is not parametric and has parameters has only
        these).
    seed : int
        The random point's seed.
    raise_on_failure : bool
        Raise :class:`ConformanceError` (an ``AssertionError``) when a check fails; else return the report.

    Returns
    -------
    ConformanceReport
    """
    check_options("check_family", seed=seed, raise_on_failure=raise_on_failure)
    check_text(name, "check_family: name")
    if not isinstance(strategies, (list, tuple)):  # (a number was a TypeError, a dict's keys were taken)
        raise InputError(
            f"check_family: strategies must be a list of ConsumerStrategy, got {shown_value(strategies)} "
            f"({type(strategies).__name__})"
        )
    fam = FAMILIES.get(name)
    others = [s for s in strategies if not isinstance(s, ConsumerStrategy) or s.family != fam.name]
    if others:  # (a beta mix was checked, and passed, as a per-class strategy)
        o = others[0]
        raise InputError(
            f"check_family: strategies must be {fam.name!r} strategies, got {getattr(o, 'name', o)!r} of family "
            f"{getattr(o, 'family', type(o).__name__)!r}"
        )
    report = ConformanceReport("consumer-strategy family", name)
    if fam.name != name or not fam.description:
        report.add(
            "registered", FAILED, f"registered as {name!r}, names itself {fam.name!r}, description {fam.description!r}"
        )
    else:
        where = f"plugin {fam.source}" if fam.source else "registered in code"
        report.add("registered", PASSED, f"{type(fam).__name__} ({where})")
    pool = {f"{s.name}": s for s in strategies}
    needs = ""
    if isinstance(fam, ParametricFamily):
        try:
            report.add("box", PASSED, check_box(fam))
            pool.update({f"{name}:{tag}": s for tag, s in family_points(fam, seed).items()})
        except Exception as exc:  # a check reports what broke, rather than stopping the report
            report.add("box", FAILED, f"{type(exc).__name__}: {exc}")
    else:  # no box to take points from: its entry with no fields, where it reads one (a family without parameters)
        try:
            defaults = family_defaults(fam)
            assert defaults and all(isinstance(s, ConsumerStrategy) for s in defaults.values()), (
                f"its entry with no fields gives {defaults!r}, not strategies"
            )
            report.add("default", PASSED, f"its entry with no fields gives {sorted(defaults)}")
            pool.update({f"{name}:default:{n}": s for n, s in defaults.items()})
        except InputError as exc:  # it has parameters: an entry needs fields, and only given strategies are checked
            needs = f" (its entry needs fields: {' '.join(str(exc).split())})"
        except Exception as exc:  # a check reports what broke, rather than stopping the report
            report.add("default", FAILED, f"its entry with no fields: {type(exc).__name__}: {exc}")
    if not pool:
        report.add("bids", SKIPPED, f"no strategies to check: pass strategies= for this family{needs}")
    else:
        for check, fn in (("bids", check_bids), ("round trip", check_round_trip), ("independent", check_independent)):
            _each(report, check, pool, fn)
    return report.raise_if_failed() if raise_on_failure else report
