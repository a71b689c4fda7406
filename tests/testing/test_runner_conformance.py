"""The runners' conformance check on every registered market, and the check's own test: it fails, by name, where a
runner's numbers are not its market's ``run``'s."""

import numpy as np
import pytest

from gamemarket.market.base import MARKETS
from gamemarket.market.runs import MarketRun
from gamemarket.market.scheduling_market import SchedulingMarket
from gamemarket.testing import ConformanceError, check_runners


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(MARKETS))
def test_every_registered_markets_runners_give_its_runs_numbers(kind):
    """Two of each market's example providers (a pricing run solves its allocation problem, about a second each
    here; every scheduling mechanism is checked below and by ``tests/market/test_payoff_runner.py``)."""
    market = MARKETS.get(kind)
    report = check_runners(kind, providers=market.example_providers()[:2])
    assert report.passed
    assert [r.check for r in report.results] == ["workload", "providers", "run", "runner", "payoff_runner"]


class OneUlpRevenue(SchedulingMarket):
    """A lean path whose revenue is one ulp off the plain run's."""

    def payoff_runner(self, arrays, nodes, provider, private):
        one = super().payoff_runner(arrays, nodes, provider, private)

        def run(reported, group):
            utility, fields = one(reported, group)
            return utility, {**fields, "revenue": float(np.nextafter(fields["revenue"], np.inf))}

        return run


class SharedUtilities(SchedulingMarket):
    """A lean path that hands out one buffer for every run's utilities: a kept result changes on the next call."""

    def payoff_runner(self, arrays, nodes, provider, private):
        one, buf = super().payoff_runner(arrays, nodes, provider, private), np.empty(len(private))

        def run(reported, group):
            utility, fields = one(reported, group)
            buf[:] = utility
            return buf, fields

        return run


class FirstBidsKept(SchedulingMarket):
    """A runner that keeps the first profile's reported bids: the next profiles run with them."""

    def runner(self, arrays, nodes, provider, private):
        one, first = super().runner(arrays, nodes, provider, private), []

        def run(reported, group):
            first.append(reported)
            return one(first[0], group)

        return run


class SignedZeroWelfare(SchedulingMarket):
    """A runner whose summary's welfare is right by ``==`` but not to the bit: -0.0 where the run has 0.0."""

    def runner(self, arrays, nodes, provider, private):
        one = super().runner(arrays, nodes, provider, private)

        def run(reported, group):
            res = one(reported, group)
            return MarketRun(res.jobs, {**res.summary, "welfare": -0.0 if res.summary["welfare"] == 0 else -1.0})

        return run


@pytest.mark.parametrize(
    "broken, check, says",
    [
        (OneUlpRevenue, "payoff_runner", "field 'revenue' differs"),
        (SharedUtilities, "payoff_runner", "utilities differ"),
        (FirstBidsKept, "runner", "differs from run's"),
        (SignedZeroWelfare, "runner", "summary field 'welfare'"),
    ],
)
@pytest.mark.slow
def test_the_check_fails_by_name_where_a_runner_is_not_exact(monkeypatch, broken, check, says):
    monkeypatch.setitem(MARKETS._items, "scheduling", broken())
    report = check_runners("scheduling", raise_on_failure=False)
    assert [r.check for r in report.failures] == [check]
    assert says in report.failures[0].detail and "profile" in report.failures[0].detail
    with pytest.raises(ConformanceError):
        check_runners("scheduling")
