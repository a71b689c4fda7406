"""A single agent's deviation gain, by paired runs with common random numbers: the estimator's runs.

Against a population mixture ``x`` over the rules ``support``, on seed ``k`` (every run of the seed shares its
private bids, group and shading draws, and each agent's uniform draw; ``gamemarket.bids.draw``):

* the **base run**: every agent plays ``x``, its rule given by its uniform draw (``bids.population_slices`` of
  ``x`` with no probe slice);
* the **probe agents**: ``m = max(1, round(probe * agents))`` agents drawn at random from a stream of the seed of
  their own (stream 4: independent of the rule each agent plays in the base run, of its job and of its bids);
* a **deviation run** per candidate rule ``D``: the probe agents play ``D``, every other agent as in the base run;
* the **gain** of ``D`` on seed ``k``: the mean, over the probe agents, of their utility in the deviation run less
  *their own* utility in the base run.

The probe agents are a simple random sample of the agents, and each plays ``x`` in the base run, so the gain is an
unbiased estimate of what a probe-sized group gains by switching from ``x`` to ``D`` while everyone else plays
``x``: the single agent's deviation gain, up to the probe's own effect on the market (``O(probe)``, as for the
population game's probe slices). The pairing removes everything the two runs share: the job, its private bid, its
shading draw, the seed's workload of bids. A truthful-run control variate (the estimator of the population game's
payoffs) cancels in the paired difference: ``(u_D - u_0) - (u_x - u_0) = u_D - u_x``.

With ``share``, several candidates are evaluated in one deviation run, each on its own block of ``m`` probe
agents (the first ``m`` of the probe order, the next ``m``, ...): fewer runs, each candidate's agents then facing
the other blocks' deviations too. That effect is measured where nothing of an agent's own is mixed in, on the
agents of no block (their mean change of utility from the base run), and taken off every block's agents that
switch; an agent whose base rule is the candidate itself does not switch, and gains exactly 0 (the mixture's own
rule at a pure mixture gains nothing: with the other blocks' effect left in, it "gained" that effect, and a report
quoted an all-truthful regret of 4,380 beside truthful gains of at most -43,160). Without ``share``, every candidate
of a seed is evaluated on the same ``m`` probe agents in a run of its own (common random numbers across
candidates), where a candidate the probe agents already play changes nothing.

References
----------
.. [Law2015] A. M. Law, "Simulation Modeling and Analysis", 5th ed., McGraw-Hill (2015), section 11.2
   (common random numbers) and 11.4 (control variates).
"""

from __future__ import annotations

import numpy as np

from gamemarket import bids
from gamemarket.errors import InputError
from gamemarket.market.base import market_for
from gamemarket.market.outside import OUTSIDE_FIELDS, outside_runner

#: the stored name of the paired records' estimator: a record of another (``"paired"``: the other blocks' effect
#: left in each block's gain, and the candidate's own rule then "gaining" it) is a run of its own key, made again
PAIRED_ESTIMATOR = "paired-blocks"

#: the seed's stream of the probe agents' draws (streams 0-2: ``bids.draw``; 3: ``bids.user_draws``)
PROBE_STREAM = 4


def probe_size(n_agents: int, probe: float) -> int:
    """The number of probe agents of one block: ``max(1, round(probe * n_agents))``."""
    return max(1, int(round(float(probe) * int(n_agents))))


def probe_order(n_agents: int, seed: int) -> np.ndarray:
    """The agents in the order the probe blocks take them: by a uniform draw each, from stream ``PROBE_STREAM`` of
    the seed (ties, of probability zero, by agent index)."""
    u = np.random.default_rng(np.random.SeedSequence(int(seed)).spawn(PROBE_STREAM + 1)[PROBE_STREAM]).random(n_agents)
    return np.argsort(u, kind="stable")


def probe_blocks(n_agents: int, seed: int, probe: float, blocks: int = 1) -> np.ndarray:
    """``blocks`` disjoint sets of probe agents, ``(blocks, m)``: the first ``m`` agents of :func:`probe_order`, the
    next ``m``, ...

    Raises
    ------
    InputError
        Where the blocks need more agents than the market has.
    """
    m = probe_size(n_agents, probe)
    if blocks * m > n_agents:
        raise InputError(
            f"population: {blocks} probe block(s) of {m} agents (probe {probe}) need more than the market's "
            f"{n_agents} agents; expected a smaller probe or fewer candidates in one run"
        )
    return probe_order(n_agents, seed)[: blocks * m].reshape(blocks, m)


class SeedRuns:
    """What every run of one (mechanism, seed) shares: the draws, each job's agent and base rule, and the market.

    Parameters
    ----------
    arrays, nodes : dict, int
        A population study's prepared workload (``PopulationRuns.arrays``, ``.nodes``).
    mechanism : dict
        The provider's parameters (``ProviderStrategy.params()``).
    seed : int
    distribution : bids.BidDistribution
    agents : {"jobs", "users"}
        Who picks a rule: each job, or each user (SWF field 12) for all of its jobs.
    outside : float, optional
        The outside option's price per node-second (``gamemarket.market.outside``): jobs whose rule leaves take it.
        None: no rule may leave.
    """

    def __init__(self, arrays, nodes, mechanism, seed, distribution, agents, outside=None):
        self.n = market_for(mechanism).size(arrays)
        self.draws = bids.draw(self.n, seed, distribution=distribution)
        self.seed = int(seed)
        if agents == "users":
            self.agent = np.unique(arrays["user"], return_inverse=True)[1]
            self.d = bids.user_draws(arrays["user"], seed)
        else:
            self.agent, self.d = np.arange(self.n), self.draws.G
        self.n_agents = int(self.agent.max()) + 1 if self.n else 0
        self.by_job = agents != "users"
        self.bid_class = bids.bid_bin_codes(self.draws.private_bid)
        group = np.zeros(self.n, dtype=np.int64)
        one = outside_runner(market_for(mechanism), arrays, nodes, mechanism, self.draws.private_bid, outside)
        self._run = lambda rw, stay: one(rw, group, stay)
        self._leave: np.ndarray | None = None  # the jobs' leave draws, drawn where a rule leaves

    def base_rules(self, x) -> np.ndarray:
        """Each job's rule (an index into the support) when every agent plays mixture ``x`` (no probe slice)."""
        lo, hi = bids.population_slices(np.asarray(x, dtype=float), 0.0)
        return bids.assign(self.d, lo, hi)

    def per_agent(self, u: np.ndarray) -> np.ndarray:
        """Each agent's utility: its job's, or the sum over its jobs."""
        return u + 0.0 if self.by_job else np.bincount(self.agent, weights=u, minlength=self.n_agents)

    def run(self, rules, strategy) -> tuple[np.ndarray, dict]:
        """``(utility per job, provider summary)`` when job ``i`` plays ``rules[strategy[i]]``."""
        w = self.draws.private_bid
        rw = bids.unchecked_population_bids(
            list(rules), strategy, w, self.draws.G, self.draws.U, bid_class=self.bid_class
        )
        if any(r.leave_by_class is not None and any(r.leave_by_class) for r in rules) and self._leave is None:
            self._leave = bids.leave_draws(self.n, self.seed)
        return self._run(rw, bids.population_stay(list(rules), strategy, self.bid_class, self._leave))

    def switches(self, base: np.ndarray, support, rule) -> np.ndarray:
        """Per agent, whether playing ``rule`` changes what it does in the base run (``base``: each job's index into
        ``support``, :meth:`base_rules`): False for the agents whose base rule is ``rule`` itself."""
        same = [i for i, r in enumerate(support) if r is rule]
        job = ~np.isin(base, same) if same else np.ones(self.n, dtype=bool)
        if self.by_job:
            return job
        return np.bincount(self.agent, weights=job, minlength=self.n_agents) > 0

    def jobs_of(self, agents: np.ndarray) -> np.ndarray:
        """A mask of the jobs of ``agents``."""
        if self.by_job:
            mask = np.zeros(self.n, dtype=bool)
            mask[agents] = True
            return mask
        return np.isin(self.agent, agents)


def base_task(arrays, nodes, mechanism, seed, distribution, agents, support, x, outside=None) -> dict:
    """The base run of mixture ``x`` over ``support`` on ``seed``: each agent's utility and the provider's figures.

    Returns
    -------
    dict
        ``u_agent`` (each agent's utility), ``revenue``, ``welfare``, ``utilization`` (the provider's summary),
        ``mean_utility`` (per agent), and with an ``outside`` price ``stay`` and ``welfare_all``
        (``gamemarket.market.outside``).
    """
    s = SeedRuns(arrays, nodes, mechanism, seed, distribution, agents, outside)
    u, summary = s.run(support, s.base_rules(x))
    u_agent = s.per_agent(u)
    return {
        "u_agent": u_agent,
        **_figures(summary),
        "mean_utility": float(u_agent.mean()) if len(u_agent) else float("nan"),
    }


def _figures(summary: dict) -> dict:
    """The provider's figures of a run's summary: revenue, welfare, utilization, and ``OUTSIDE_FIELDS`` where set."""
    out = {k: float(summary[k]) for k in ("revenue", "welfare", "utilization")}
    out.update({k: float(summary[k]) for k in OUTSIDE_FIELDS if k in summary})
    return out


def deviation_gains(s: SeedRuns, support, x, candidates, u_base_agent, probe: float, share: bool) -> np.ndarray:
    """Per candidate ``(gain, within-seed variance of the mean)`` on one seed (module docstring), ``(k, 2)``.

    Parameters
    ----------
    s : SeedRuns
        The seed's shared state.
    support, x : list of ConsumerStrategy, array_like
        The base mixture.
    candidates : list of ConsumerStrategy
        The deviations.
    u_base_agent : np.ndarray
        Each agent's utility in the base run (:func:`base_task`).
    probe : float
        The probe agents' share of all agents.
    share : bool
        All candidates in one run, each on a block of its own; else one run each, on the same probe agents.
    """
    k = len(candidates)
    blocks = probe_blocks(s.n_agents, s.seed, probe, k if share else 1)
    base = s.base_rules(x)
    rules = list(support) + list(candidates)
    groups = [list(range(k))] if share else [[j] for j in range(k)]
    out = np.empty((k, 2))
    for group in groups:
        strat = base.copy()
        for b, j in enumerate(group):
            strat[s.jobs_of(blocks[b if share else 0])] = len(support) + j
        u, _ = s.run(rules, strat)
        change = s.per_agent(u) - u_base_agent
        crowd = _crowding(change, blocks) if share else 0.0
        for b, j in enumerate(group):
            agents_j = blocks[b if share else 0]
            diff = change[agents_j]
            if share:  # the other blocks' effect removed; an agent that already plays the rule gains nothing by it
                diff = np.where(s.switches(base, support, candidates[j])[agents_j], diff - crowd, 0.0)
            out[j] = diff.mean(), diff.var(ddof=1) / len(diff) if len(diff) > 1 else np.nan
    return out


def _crowding(change: np.ndarray, blocks: np.ndarray) -> float:
    """What a shared deviation run's blocks do to the agents of none of them: their mean change of utility from the
    base run (0 where every agent is in a block). Each block's agents meet the other blocks' deviations too; this
    is that effect, measured where no deviation of an agent's own is mixed in."""
    rest = np.ones(len(change), dtype=bool)
    rest[blocks.ravel()] = False
    return float(change[rest].mean()) if rest.any() else 0.0


def deviation_task(
    arrays,
    nodes,
    mechanism,
    seed,
    distribution,
    agents,
    probe,
    support,
    x,
    candidates,
    u_base_agent,
    share,
    outside=None,
):
    """:func:`deviation_gains` of one seed as a task of its own (a worker process): per candidate, its gain and the
    within-seed variance of that mean, ``(k, 2)``."""
    s = SeedRuns(arrays, nodes, mechanism, seed, distribution, agents, outside)
    return deviation_gains(s, support, x, candidates, u_base_agent, probe, share)


def paired_record(s: SeedRuns, rules, x, probe: float, base: dict | None = None) -> dict:
    """Every rule's paired gain against mixture ``x`` (over ``rules``; ``x`` is zero where a rule is not played) on
    one seed, each rule on its own block of probe agents in one shared deviation run (the other blocks' effect
    taken off, the agents that already play the rule gaining 0: module docstring), with the base run's provider
    figures: the record a population study stores for a candidate's verification and for its truthful gains.

    ``base``: the base run's :func:`base_task` answer, where the caller has it (the all-truthful run).
    """
    x = np.asarray(x, dtype=float)
    on = x > 0
    support = [r for r, o in zip(rules, on) if o]
    if base is None:
        u, summary = s.run(support, s.base_rules(x[on]))
        base = {"u_agent": s.per_agent(u), **_figures(summary)}
    g = deviation_gains(s, support, x[on], list(rules), base["u_agent"], probe, share=True)
    return {
        "mixture": [float(v) for v in x],
        "seed": s.seed,
        "estimator": PAIRED_ESTIMATOR,
        "gain": g[:, 0].tolist(),
        "probe_agents": probe_size(s.n_agents, probe),
        "agents": s.n_agents,
        "mean_utility": float(base["u_agent"].mean()) if s.n_agents else float("nan"),
        "revenue": base["revenue"],
        "welfare": base["welfare"],
        "utilization": base["utilization"],
        "probe": probe,
        **{k: base[k] for k in OUTSIDE_FIELDS if k in base},
    }
