"""A population chunk's records (``run_chunk``: the market's lean ``payoff_runner``, agents that are jobs summed
without the identity bincount) equal, to the last bit, a plain reference: every run through the market's full
``run`` (the per-job table and summary), every agent sum a bincount."""

import json

import numpy as np
import pytest

from gamemarket import bids
from gamemarket.consumers import ShadingRule
from gamemarket.market.base import market_for
from gamemarket.studies import population
from gamemarket.studies.population import PopulationConfig, run_chunk
from gamemarket.workloads import load

RULES = (
    ShadingRule("truthful", (0, 0, 0)),
    ShadingRule("shade-0.9", (0.9,) * 3),
    ShadingRule("shade-high", (0, 0, 0.9)),
    ShadingRule("shade-low", (0.5, 0, 0)),
)
MIXTURES = [[1.0, 0.0, 0.0, 0.0], [0.5, 0.3, 0.2, 0.0], [0.0, 0.0, 0.6, 0.4], [0.25, 0.25, 0.25, 0.25]]


def reference_chunk(arrays, nodes, mechanism, seed, mixtures, cfg, distribution) -> list[dict]:
    """``run_chunk``'s records the plain way: each run is the market's ``run`` (the full per-job path)."""
    market = market_for(mechanism)
    n = market.size(arrays)
    draws = bids.draw(n, seed, distribution=distribution)
    w, U = draws.private_bid, draws.U
    group = np.zeros(n, dtype=np.int64)

    def run(rw):
        res = market.run(arrays, nodes, mechanism, w, rw, group)
        return np.asarray(res.jobs["utility"], dtype=float), res.summary

    if cfg.agents == "users":
        agent, d = np.unique(arrays["user"], return_inverse=True)[1], bids.user_draws(arrays["user"], seed)
    else:
        agent, d = np.arange(n), draws.G
    n_agents = int(agent.max()) + 1
    probe = max(cfg.probe, 1.0 / n_agents) if cfg.agents == "users" else cfg.probe
    u0_agent = np.bincount(agent, weights=run(w.copy())[0], minlength=n_agents)
    S, out = len(cfg.strategies), []
    for x in mixtures:
        lo, hi = bids.population_slices(np.asarray(x), probe)
        strat = bids.assign(d, lo, hi)
        u, summary = run(bids.population_bids(cfg.strategies, strat, w, draws.G, U))
        u_agent = np.bincount(agent, weights=u, minlength=n_agents)
        s_agent = np.zeros(n_agents, dtype=np.int64)
        s_agent[agent] = strat
        out.append(
            {
                "mixture": [float(v) for v in x],
                "seed": int(seed),
                "n_agents": np.bincount(s_agent, minlength=S).tolist(),
                "n_jobs": np.bincount(strat, minlength=S).tolist(),
                "sum_u": np.bincount(s_agent, weights=u_agent, minlength=S).tolist(),
                "sum_u0": np.bincount(s_agent, weights=u0_agent, minlength=S).tolist(),
                "agents": n_agents,
                "sum_u0_all": float(u0_agent.sum()),
                "revenue": summary["revenue"],
                "utilization": summary["utilization"],
                "welfare": summary["welfare"],
                "probe": probe,
            }
        )
    return out


@pytest.fixture(scope="module")
def market():
    w = load("synthetic", jobs=1200, load=1.2, seed=7, nodes=6)
    cols = ("id", "submit", "runtime", "estimate", "user")
    return {c: np.ascontiguousarray(w.jobs[c].to_numpy(np.int64)) for c in cols}, 6


@pytest.mark.parametrize("agents", ["jobs", "users"])
@pytest.mark.parametrize(
    "mechanism",
    [("hb", "first", 1.0), ("hb", "kth", 1.0), ("nphb", "kth", 0.0), ("wspt", "first", 1.0), ("wspt-est", "kth", 1.0)],
)
def test_chunk_records_equal_the_full_paths(market, agents, mechanism):
    arrays, nodes = market
    mech = {"kind": "scheduling", "scheduler": mechanism[0], "payment": mechanism[1], "reserve": mechanism[2]}
    cfg = PopulationConfig(RULES, agents=agents, probe=0.02)
    dist = bids.BidDistribution()
    for seed in (1, 2):
        want = reference_chunk(arrays, nodes, mech, seed, MIXTURES, cfg, dist)
        for key in (None, "test-workload", "test-workload"):  # the second keyed chunk reuses its baseline
            got = run_chunk(arrays, nodes, mech, seed, MIXTURES, cfg, dist, workload_key=key)
            for r in got:
                r.pop("chunk_seconds")
            assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)  # floats by repr: every bit


def test_baselines_are_kept_within_their_byte_bound(market, monkeypatch):
    """A process keeps its chunks' all-truthful baselines up to ``MAX_BASELINE_BYTES`` (the newest always), oldest
    out first; a chunk whose baseline went runs it again, with the same records."""
    arrays, nodes = market
    monkeypatch.setattr(population, "BASELINES", {})
    monkeypatch.setattr(population, "MAX_BASELINE_BYTES", 2 * 8 * len(arrays["id"]))  # two baselines
    cfg, dist = PopulationConfig(RULES, probe=0.02), bids.BidDistribution()
    mech = {"kind": "scheduling", "scheduler": "hb", "payment": "kth", "reserve": 1.0}
    first = run_chunk(arrays, nodes, mech, 1, MIXTURES[:1], cfg, dist, workload_key="w")
    for seed in (2, 3):
        run_chunk(arrays, nodes, mech, seed, MIXTURES[:1], cfg, dist, workload_key="w")
    assert [k[3] for k in population.BASELINES] == [2, 3]
    again = run_chunk(arrays, nodes, mech, 1, MIXTURES[:1], cfg, dist, workload_key="w")
    assert [k[3] for k in population.BASELINES] == [3, 1]
    for r in first + again:
        r.pop("chunk_seconds")
    assert json.dumps(first) == json.dumps(again)
