"""The market as a population game, its answers: the consumers' games, their verified equilibria, the provider's choice.

From a population study's stored runs (``gamemarket.studies.population``: the runs, their keys and
the payoff estimator ``u_s(x)`` of strategy ``s`` at population mixture ``x``) to what the study
answers: does a user gain by shading, given what everyone else does, and which mechanism does the
provider pick?

Game. Per mechanism, the consumers' game is reduced by deviation-preserving reduction to
``reduced_players`` players: the payoff of ``s`` in reduced profile ``c`` is ``u_s`` at the population
mixture ``(c - e_s) / (n - 1)`` (``games.reduction.population_points``). Its equilibria are
candidates; each is verified by a run at the candidate itself: its regret with a confidence interval over
seeds, the rules' Student-t bounds (``gamemarket.confidence.regret_interval``). Seeds are added where a
regret interval straddles the tolerance or a gain over truthful straddles zero, up to a budget.

Provider. Leader and followers: the mechanism with the highest revenue at its worst confirmed
consumer equilibrium. Simultaneously: the provider (a role of one player, its strategies the
mechanisms) and the consumers as one role-symmetric game (``PopulationGames.joint_game``), so the
provider may mix over mechanisms; DPR keeps the provider whole, and its payoff at consumer profile
``c`` is its revenue per agent in the runs at ``c / n``. Each of that game's equilibria is verified
by runs at its consumer mixture under every mechanism, both roles' regrets with such intervals.

Answers. Its types (``gamemarket.io.answers``: a mechanism's answer, its verified equilibria, the provider's
choice, the run accounting) are frozen dataclasses with their JSON. Cache. An analysis is a function of the study,
the analysing code and the stored runs, so it is kept and read back instead of solved again
(``gamemarket.analysis.population_cache``). Pickled caches of earlier versions (``population-*.pkl``) are never
read.

References
----------
.. [Wiedenbeck2012] B. Wiedenbeck and M. P. Wellman, "Scaling simulation-based game analysis through
   deviation-preserving reduction", AAMAS 2012.
.. [Wiedenbeck2014] B. Wiedenbeck, B.-A. Cassell and M. P. Wellman, "Bootstrap statistics for
   empirical games", AAMAS 2014.
"""

from __future__ import annotations

import copy
import dataclasses
from math import comb

import numpy as np

from gamemarket.analysis.population_cache import (  # noqa: F401  the cache's names, where callers found them
    CACHE_FORMAT,
    CACHE_VERSION,
    analysis_from_json,
    analysis_key,
    analysis_to_json,
    read_analysis,
    write_analysis,
)
from gamemarket.confidence import regret_interval, t_interval
from gamemarket.errors import InputError
from gamemarket.games.reduction import population_points
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.io.answers import MechanismAnswer, PopulationAnalysis  # noqa: F401  the answer's types
from gamemarket.io.limits import check_fits
from gamemarket.market.base import figure_ranges
from gamemarket.studies.population import PopulationRuns, mix_key, payoffs_of
from gamemarket.studies.population_config import PopulationConfig
from gamemarket.studies.runner import load_workload

#: the most (profile, strategy) points a population study's reduced game may need: beyond, the study is refused as it
#: is read (hunt 23a-F4: 12 rules and reduced_players = 12, 8 million points, ran `study status` past 175 s at 3.5 GB
#: with nothing said); a reduced game of 4 players over 8 rules needs 1,320
MAX_POINTS = 2_000_000
#: bytes one point holds while the plan is made (its mixture, its profile's share, the tuple), rounded up
POINT_BYTES = 320


def _check_plan_size(spec, cfg: PopulationConfig) -> None:
    """Refuse a population study whose reduced game needs more points than :data:`MAX_POINTS`, or more memory than
    the limit, from its declared numbers, before any is enumerated, naming the file and the fields."""
    n, k = int(cfg.reduced_players), len(cfg.strategies)
    profiles = comb(n + k - 1, k - 1)
    points = profiles * min(n, k)  # (a profile's points: the strategies it plays, at most n and k)
    what = (
        f"{spec.path}: [game] reduced_players = {n} over {k} rules ('strategies'): a reduced game of {profiles:,} "
        f"profiles, up to {points:,} (profile, rule) payoffs to estimate per mechanism and seed"
    )
    if points > MAX_POINTS:
        raise InputError(
            f"{what}, more than the {MAX_POINTS:,} a study may plan; expected fewer reduced_players or rules"
        )
    check_fits(points * POINT_BYTES, what)


class PopulationGames:
    """A population study's games, estimated from its stored runs, and their verification by runs.

    Parameters
    ----------
    spec : StudySpec
        The study (``spec.population`` its ``[game]`` table).
    n_jobs, progress, run, scheduler_address
        How the runs an analysis asks for are made (:class:`~gamemarket.studies.population.PopulationRuns`):
        worker processes, a progress bar, whether a run that is not stored yet is run (True) or an
        :class:`InputError` (False), and a dask scheduler to run them on (None: local workers).
    workload : PreparedWorkload, optional
        The study's workload as its market prepares it, where the caller has it (default: prepared here).
    """

    def __init__(
        self,
        spec,
        *,
        n_jobs: int = 1,
        progress: bool = False,
        run: bool = True,
        scheduler_address: str | None = None,
        workload=None,
    ):
        self.spec = spec
        self.cfg: PopulationConfig = spec.population
        self.workload = workload if workload is not None else load_workload(spec)
        self.runs = PopulationRuns(
            spec, self.workload, n_jobs=n_jobs, progress=progress, run=run, scheduler_address=scheduler_address
        )
        _check_plan_size(spec, self.cfg)
        #: the population mixtures of the reduced games' profiles: every mechanism's first runs
        self.grid = sorted(
            {mix_key(m) for _, m, _ in population_points([self.cfg.reduced_players], [len(self.cfg.strategies)])}
        )

    def with_menu(self, rules) -> "PopulationGames":
        """The same study's games over another menu of shading rules ``rules`` (the ``[game]`` table's settings
        kept, its strategies replaced), sharing this one's workload and way of running. Its runs are stored
        beside this one's, under their own keys (a run's key holds the menu: the probe slices depend on it)."""
        spec = copy.copy(self.spec)
        spec.population = dataclasses.replace(self.cfg, strategies=tuple(rules))
        r = self.runs
        return PopulationGames(
            spec,
            n_jobs=r.n_jobs,
            progress=r.progress,
            run=r.run,
            scheduler_address=r.scheduler_address,
            workload=self.workload,
        )

    def reduced_game(self, provider, seeds) -> RoleSymmetricGame:
        """The consumers' game under ``provider``, reduced by DPR to ``reduced_players`` [Wiedenbeck2012]_:
        each reduced profile's payoffs are the stored runs' means over ``seeds`` at the population
        mixture the profile stands for.
        """
        cfg = self.cfg
        n, S = cfg.reduced_players, len(cfg.strategies)
        cache = {}
        rows, pays = {}, {}
        for prof, mix, s in population_points([n], [S]):
            k = mix_key(mix)
            if k not in cache:
                cache[k] = self._mean_payoffs(provider, seeds, mix)
            key = tuple(prof.tolist())
            rows[key] = prof
            pays.setdefault(key, np.zeros(S))[s] = cache[k][s]
        keys = list(rows)
        return RoleSymmetricGame(
            ["consumers"], [n], [cfg.names], np.array([rows[k] for k in keys]), np.array([pays[k] for k in keys])
        )

    def _mean_payoffs(self, provider, seeds, mix) -> np.ndarray:
        """Each strategy's payoff at mixture ``mix`` under ``provider``, the mean over the runs of ``seeds``
        in which an agent played it; a strategy the mixture plays (or probes) that no agent played in any run
        is an :class:`InputError` naming it, never a NaN payoff in a game."""
        P = np.array([payoffs_of(r) for r in self.runs.records(provider, seeds, mix_key(mix))])
        empty = np.isnan(P).all(axis=0)
        if empty.any():
            recs = self.runs.records(provider, seeds, mix_key(mix))
            names = ", ".join(repr(self.cfg.names[j]) for j in np.flatnonzero(empty))
            at = dict(zip(self.cfg.names, np.round(mix, 6).tolist()))
            agents, probe = recs[0]["agents"], recs[0]["probe"]
            raise InputError(
                f"{self.spec.path or self.spec.name}: [game]: no agent played {names} at the mixture {at} under "
                f"provider {getattr(provider, 'name', provider)!r} in any of its {len(recs)} run(s) (the market has "
                f"{agents} agents; a probe slice of width {probe} holds {agents * probe:.2g} of them on average); "
                "expected a market of at least 1 / probe agents: more jobs, a wider probe or more seeds"
            )
        with np.errstate(invalid="ignore"):
            return np.nanmean(P, axis=0)

    def joint_points(self) -> list[tuple]:
        """The consumer mixtures where the joint game's provider payoffs are measured: ``c / n`` for every
        composition ``c`` of the ``n = reduced_players`` consumers (DPR keeps the provider, a role of one,
        whole and lets it face all ``n`` reduced consumers), run under every mechanism."""
        M = len(self.spec.providers)
        pts = population_points([1, self.cfg.reduced_players], [M, len(self.cfg.strategies)])
        return sorted({mix_key(mix[M:]) for _, mix, s in pts if s < M})

    def joint_game(self, consumers: dict, base_seeds) -> RoleSymmetricGame:
        """The provider and the consumers as one role-symmetric game, reduced by DPR [Wiedenbeck2012]_: a
        provider role of one player whose strategies are the mechanisms, and the consumers' role of
        ``reduced_players``.

        A consumer's payoff at (mechanism m, consumer profile c) is the one of the consumers' reduced game
        under m (``consumers[m]``: :meth:`reduced_game` over m's seeds, as its answer holds it). The
        provider's is its revenue per agent in the runs at ``c / n`` under m (over ``base_seeds``): per
        agent, so that both roles' payoffs are in bid x seconds per agent and one regret tolerance fits both
        (an equilibrium does not change when a role's payoffs are rescaled)."""
        provs = list(self.spec.providers)
        M, S, n = len(provs), len(self.cfg.strategies), self.cfg.reduced_players
        revenue: dict = {}
        rows, pays = {}, {}
        for prof, mix, s in population_points([1, n], [M, S]):
            m = int(np.argmax(prof[:M]))
            key = tuple(prof.tolist())
            rows[key] = prof
            pay = pays.setdefault(key, np.zeros(M + S))
            if s < M:
                x = mix_key(mix[M:])
                if (m, x) not in revenue:
                    recs = self.runs.records(provs[m], base_seeds, x)
                    revenue[(m, x)] = float(np.mean([r["revenue"] / r["agents"] for r in recs]))
                pay[s] = revenue[(m, x)]
            else:
                pay[s] = consumers[provs[m].name].profile_payoffs(prof[M:])[s - M]
        keys = list(rows)
        return RoleSymmetricGame(
            ["provider", "consumers"],
            [1, n],
            [[p.name for p in provs], self.cfg.names],
            np.array([rows[k] for k in keys]),
            np.array([pays[k] for k in keys]),
        )

    def paired_gains(self, provider, seeds, x) -> tuple[np.ndarray, list[dict]]:
        """Every rule's paired gain against mixture ``x`` under ``provider``, per seed (seeds x rules), and the
        records (``gamemarket.studies.deviations.paired_record``: the probe agents' utility when they play the rule,
        less their own utility in the base run at ``x``)."""
        recs = self.runs.records(provider, seeds, mix_key(x), paired=True)
        return np.array([r["gain"] for r in recs], dtype=float), recs

    def verify_joint(self, seeds, q, x, alpha: float = 0.05) -> dict:
        """Regrets of the provider mixture ``q`` with the consumer mixture ``x`` from the paired records at ``x``
        under every mechanism (``seeds``): the consumers' (their gains against ``q``: the mechanisms' gains
        weighted by ``q``, seed by seed) and the provider's (revenue per agent in the base runs), each a point
        estimate with a ``1 - alpha`` interval over seeds (``gamemarket.confidence.regret_interval``), and the expected
        revenue per agent."""
        provs = list(self.spec.providers)
        both = [self.paired_gains(p, seeds, x) for p in provs]
        G = np.array([g for g, _ in both])  # mechanisms x seeds x strategies
        R = np.array([[r["revenue"] / r["agents"] for r in recs] for _, recs in both]).T  # seeds x mechanisms
        q = np.asarray(q, dtype=float)
        on = q > 0
        Gq = np.einsum("m,mks->ks", q[on], G[on])
        return {
            "consumer_regret": list(regret_interval(Gq, alpha)),
            # the provider's gain of each mechanism over its mixture, seed by seed (paired: the same runs)
            "provider_regret": list(regret_interval(R - (R @ q)[:, None], alpha)),
            "revenue_per_agent": {p.name: float(R[:, i].mean()) for i, p in enumerate(provs)},
            "expected_revenue_per_agent": float(R.mean(axis=0) @ q),
            "seeds": len(seeds),
        }

    def verify(self, provider, seeds, x, alpha: float = 0.05) -> dict:
        """Regret of mixture ``x`` from its paired records: the largest of every rule's paired gain against ``x``
        (at least 0: ``x`` itself gains nothing), with a ``1 - alpha`` interval over seeds (the rules' Student-t
        bounds: ``gamemarket.confidence.regret_interval``); each rule's payoff (the base runs' mean utility plus its
        gain) and the provider's figures in the base runs."""
        G, recs = self.paired_gains(provider, seeds, x)
        rev = np.array([r["revenue"] for r in recs])
        wel = np.array([r["welfare"] for r in recs])
        base = float(np.mean([r["mean_utility"] for r in recs]))
        ranges = figure_ranges(provider.params())  # the intervals within what the market's rules allow
        return {
            "regret": list(regret_interval(G, alpha)),
            "payoffs": dict(zip(self.cfg.names, (base + G.mean(axis=0)).tolist())),
            "revenue": _t_interval(rev, ranges.get("revenue")),
            "welfare": _t_interval(wel, ranges.get("welfare")),
            "mean_utility": base,
            "seeds": len(recs),
        }

    def regret_at(self, provider, seeds, x, alpha: float = 0.05) -> list[float]:
        """``[point, low, high]``: the regret of mixture ``x`` under ``provider`` from its paired records, at ``1 -
        alpha`` (:func:`gamemarket.confidence.regret_interval`), as :meth:`verify` decides it."""
        return list(regret_interval(self.paired_gains(provider, seeds, x)[0], alpha))

    def scale(self, provider, seeds) -> float:
        """Mean absolute truthful utility per agent: the unit of the regret tolerance."""
        T = self.cfg.truthful_index
        recs = self.runs.records(provider, seeds, mix_key(np.eye(len(self.cfg.strategies))[T]))
        return float(np.mean([abs(r["sum_u0_all"]) / r["agents"] for r in recs]))

    def gains(self, provider, seeds, level: float = 0.95) -> dict:
        """Each strategy's paired gain at the all-truthful population under ``provider``: its probe agents' utility
        less their own in the all-truthful run, a ``level`` t-interval over ``seeds``, ``{strategy: [mean, low,
        high]}``.
        """
        T = self.cfg.truthful_index
        G, _ = self.paired_gains(provider, seeds, np.eye(len(self.cfg.strategies))[T])
        return {name: list(t_interval(G[:, j], level)) for j, name in enumerate(self.cfg.names) if j != T}


def _t_interval(v, within=None) -> list[float]:
    return list(t_interval(v, within=within))


def combined_verdict(verdicts) -> str:
    """One verdict from several: "no" if any is, "yes" if all are, else "undecided"."""
    return "no" if "no" in verdicts else ("yes" if all(v == "yes" for v in verdicts) else "undecided")


def search_counts(sol) -> dict:
    """What support enumeration tried for a solution (empty where it did not run)."""
    if sol.search is None:
        return {}
    return {k: getattr(sol.search, k) for k in ("supports", "starts", "roots", "singletons", "open_supports")}


def decide(interval, threshold) -> str:
    """A verdict from a ``[point, low, high]`` interval against ``threshold``: "yes" where the interval's upper end is
    at most it, "no" where its lower end is above it, else (or where the interval is undefined) "undecided"."""
    lo, hi = interval[1], interval[2]
    if not np.isfinite(lo):
        return "undecided"
    if hi <= threshold:
        return "yes"
    if lo > threshold:
        return "no"
    return "undecided"


def dominant_mechanism(game: RoleSymmetricGame) -> str | None:
    """The provider's weakly dominant mechanism in the provider-consumer game (its revenue at least every other
    mechanism's at every consumer profile; the first such), or None."""
    M = game.num_strategies[0]
    rev: dict = {}
    for prof, pay in zip(game.profiles, game.payoffs):
        m = int(np.argmax(prof[:M]))
        rev.setdefault(tuple(prof[M:].tolist()), np.full(M, np.nan))[m] = pay[m]
    R = np.array(list(rev.values()))  # consumer profiles x mechanisms
    best = np.flatnonzero((R >= R.max(axis=1, keepdims=True)).all(axis=0))
    return game.strategies[0][int(best[0])] if len(best) else None


def equilibria_json(an: PopulationAnalysis) -> list[dict]:
    """The ``game solve --format json`` payload of a population study: one entry per mechanism's equilibrium."""
    out = []
    for a in an.answers:
        gains = {k: v.to_json() for k, v in a.truthful_gains.items()}
        for e in a.equilibria:
            out.append(
                {
                    "mechanism": a.mechanism,
                    "mixture": {"consumers": e.mixture},
                    "regret": e.regret.mean,
                    "regret_ci": [e.regret.low, e.regret.high],
                    "verified": e.verified,
                    "stability": e.stability,
                    "revenue": e.revenue.to_json(),
                    "welfare": e.welfare.to_json(),
                    "truthful_gains": gains,
                }
            )
        if not a.equilibria:
            out.append(
                {
                    "mechanism": a.mechanism,
                    "mixture": None,
                    "regret": None,
                    "note": "; ".join(a.notes),
                    "truthful_gains": gains,
                }
            )
    joint = an.provider.joint
    for e in joint.equilibria if joint is not None else []:  # the provider-consumer game: both roles
        out.append(
            {
                "game": "provider-consumers",
                "mixture": {"provider": e.provider, "consumers": e.consumers},
                "regret": e.reduced_regret,
                "consumer_regret": e.consumer_regret.to_json(),
                "provider_regret": e.provider_regret.to_json(),
                "verified": e.verified,
                "stability": e.stability,
                "expected_revenue_per_agent": e.expected_revenue_per_agent,
            }
        )
    return out
