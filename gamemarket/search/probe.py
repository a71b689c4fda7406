"""One question asked directly: under mechanism M, with the population playing mixture X, what does a single agent
gain by playing rule D? The paired estimate (``gamemarket.studies.deviations``) on a population study's workload and
seeds, with its 95% Student-t interval over the seeds.

Rules are named as a study names them (a rule of the study's menu or of its shading catalogue), or given as a point
of a parametric family, ``FAMILY[v1,...]`` checked against that family's own bounds (as a study file's
``[game.shading]`` table is), such as ``per-class[0,0.83,0.78]`` or ``0,0.83,0.78`` (a beta per private-bid class:
low, middle, high). A mixture is one rule, or shares of rules written as the reports write them: ``0.7 shade-0.5 +
0.3 truthful``, in any order: it is put in one order (the study's rules first, in its order, then the others by
name) before any draw, so that the same mixture gives the same numbers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real
from pathlib import Path

import numpy as np

from gamemarket import consumers
from gamemarket.confidence import t_interval
from gamemarket.consumers import ConsumerStrategy
from gamemarket.errors import InputError, check_seed, shown_name
from gamemarket.market.base import market_for
from gamemarket.plugins import local_workers
from gamemarket.search.exploration import exploration_probe
from gamemarket.search.oracle import ProbeOracle, strategy_entry
from gamemarket.studies.deviations import probe_size
from gamemarket.studies.population import PopulationRuns, on_scheduler
from gamemarket.studies.population_config import load_shading
from gamemarket.studies.runner import load_workload
from gamemarket.studies.spec import StudySpec
from gamemarket.studies.strategies import read_catalogues

#: a point named as a family's points are, ``family[v1,v2,...]``
_FAMILY_POINT = re.compile(r"^([A-Za-z0-9_.-]+)\[([^\]]*)\]$")
_POINT = re.compile(r"^\s*(?:per-class\s*)?\[?\s*([^\[\]]*?)\s*\]?\s*$")


@dataclass(frozen=True)
class ProbeAnswer:
    """A single agent's paired gain from ``deviation`` against ``base`` under ``mechanism``."""

    mechanism: str
    base: dict  #: rule name -> share
    deviation: str
    gain: tuple  #: (mean, low, high): the 95% Student-t interval over the seeds
    seeds: list
    probe: float
    per_seed: list
    probe_agents: int = 0  #: the agents of the probe slice (``probe`` of ``agents``, at least one)
    agents: int = 0  #: the market's agents (jobs or users)

    @property
    def note(self) -> str | None:
        """What the gain cannot say: where every seed's gain is exactly 0, the rule most likely changed no probe
        agent's bid (hunt 20a-W6: a rule that shades high bids, 4 probe agents without one, read "0 [0, 0]", as if
        certain, where the study's report estimated +10,935 [-33,823, +55,693] for the same question)."""
        if self.per_seed and all(g == 0 for g in self.per_seed) and set(self.base) == {self.deviation}:
            # (hunt 23c-W6: a deviation to the base's own rule was told to draw a larger --probe)
            return f"{self.deviation} is the base's own rule: its gain is 0 by definition, whatever --probe"
        if self.per_seed and all(g == 0 for g in self.per_seed):
            return (
                f"every seed's gain is exactly 0: {self.deviation} most likely changed no probe agent's bid or "
                f"choice ({self.probe_agents} of {self.agents:,} per seed); a larger --probe draws more of them, and "
                "the interval then says something"
            )
        return None

    def to_dict(self) -> dict:
        """The ``--format json`` payload: mechanism, base, deviation, gain ``[mean, low, high]``, seeds, and
        ``interval``, what the gain's bounds are (the 95% Student-t interval over the seeds, or none with one), and
        ``note`` (:attr:`note`, or null)."""
        return {
            "mechanism": self.mechanism,
            "base": self.base,
            "deviation": self.deviation,
            "gain": list(self.gain),
            "seeds": list(self.seeds),
            "probe": self.probe,
            "probe_agents": self.probe_agents,
            "agents": self.agents,
            "per_seed": list(self.per_seed),
            # always present (with one seed only, before: a key a reader could not rely on)
            "interval": (
                f"95% Student-t over {len(self.seeds)} seeds"
                if len(self.seeds) > 1
                else "none: one seed (an interval needs two or more)"
            ),
            "note": self.note,
        }


def rule(text: str, known: dict, where: str) -> ConsumerStrategy:
    """A rule from its name (in ``known``) or as a point of a parametric family, as the reports name one:
    ``FAMILY[v1,v2,...]`` (``per-class-leave[0,0,0.5,0,0,1]``, ``piecewise[...]``), and for the per-class family also
    ``[a,b,c]`` or ``a,b,c``; checked against the family's bounds.

    Raises
    ------
    InputError
        An unknown name or family, or a point that is not the family's numbers within its bounds, naming ``where``.
    """
    name = text.strip()
    if name in known:
        return known[name]
    fam_name, body = "per-class", None
    named = _FAMILY_POINT.match(name)
    if named and named.group(1) in consumers.FAMILIES:
        fam_name, body = named.group(1), named.group(2)
    else:
        m = _POINT.match(name)
        body = m.group(1) if m and "," in m.group(1) else None
    if body is None:
        families = sorted(n for n, f in consumers.FAMILIES.items() if isinstance(f, consumers.ParametricFamily))
        raise InputError(
            f"{where}: unknown rule {shown_name(text)}; expected a rule of the study ({', '.join(sorted(known))}) or a "
            f"point of a family, FAMILY[v1,v2,...] (families: {', '.join(families)}), e.g. per-class[low,middle,high]"
        )
    fam = _family(fam_name, where)
    try:
        values = [float(p) for p in body.split(",")]
    except ValueError:
        raise InputError(
            f"{where}: {text!r} is not a point of the {fam_name} family: expected {fam.dimension} numbers "
            f"{fam.list_names()}"
        ) from None
    if not all(math.isfinite(v) for v in values):
        raise InputError(f"{where}: {text!r}: expected finite numbers")
    fam.check_point(values, where)  # its own message, naming the option
    # as typed: the exploration's 0.01 grid (``oracle.point``) is its search's, not a rule the user names
    return fam.point(values)


def _family(name: str, where: str):
    """The registered parametric family ``name`` of a point given as ``FAMILY[...]``: its point is then checked
    against the family's own declared bounds (``ParametricFamily.check_point``), as a study file's
    ``[game.shading]`` table is (hunt 18b, F5: the exploration's [0, 1) search box, ``search_family``, refused
    ``shade-by[20]`` of a family declared over [0, 180), blaming a correct plugin; that box is the exploration's
    only)."""
    fam = consumers.FAMILIES.get(name)
    if not isinstance(fam, consumers.ParametricFamily):
        known = sorted(n for n, f in consumers.FAMILIES.items() if isinstance(f, consumers.ParametricFamily))
        raise InputError(f"{where}: family {name!r} has no parameters to give as a point; expected one of {known}")
    return fam


def canonical(rules: list, shares, menu=()) -> tuple[list, np.ndarray]:
    """A mixture ``(rules, shares)`` in one order whatever order it was written in: the rules of ``menu`` (the
    study's strategies) in its order, then any other rule by name (then by its parameters), so that the same mixture
    gives the same draws and the same numbers (hunt 18b, W2: ``0.7 a + 0.3 b`` and ``0.3 b + 0.7 a`` gave other
    gains on the same seeds)."""
    where = {m.key(): k for k, m in enumerate(menu)}
    order = sorted(
        range(len(rules)),
        key=lambda i: (where.get(rules[i].key(), len(where)), rules[i].name, repr(rules[i].key())),
    )
    shares = np.asarray(shares, dtype=float)
    return [rules[i] for i in order], shares[order]


def mixture(text: str, known: dict, where: str) -> tuple[list, np.ndarray]:
    """A population mixture ``(rules, shares)`` from ``"rule"`` or ``"0.7 rule + 0.3 rule"``.

    Raises
    ------
    InputError
        An unknown rule, a share that is not a number in (0, 1], a rule named twice, or shares whose sum is not 1.
    """
    rules, shares = [], []
    for term in text.split(" + "):
        bits = term.strip().split(None, 1)
        if len(bits) == 2 and re.fullmatch(r"[0-9.eE+-]+", bits[0]):
            try:
                share = float(bits[0])
            except ValueError:
                raise InputError(f"{where}: share {bits[0]!r} in {text!r} is not a number") from None
            r = rule(bits[1], known, where)
        else:
            share, r = 1.0, rule(term, known, where)
        if not (math.isfinite(share) and 0 < share <= 1):
            raise InputError(f"{where}: share {share!r} of {r.name!r}: expected a number in (0, 1]")
        if any(q.key() == r.key() for q in rules):
            raise InputError(f"{where}: {r.name!r} is named twice in {text!r}")
        rules.append(r)
        shares.append(share)
    total = sum(shares)
    if abs(total - 1) > 1e-6:
        raise InputError(f"{where}: the shares of {text!r} sum to {total:g}; expected 1")
    return rules, np.asarray(shares) / total


def probe(
    spec,
    mechanism: str,
    base: str,
    deviation: str,
    *,
    seeds: list[int] | None = None,
    probe_share: float | None = None,
    n_jobs: int = 1,
    scheduler_address: str | None = None,
) -> ProbeAnswer:
    """The paired gain of a single agent playing ``deviation`` against the population mixture ``base`` under
    ``mechanism``, on the study's workload and bids (module docstring).

    Parameters
    ----------
    spec : StudySpec
        A population study (its workload, bids, ``[game]`` agents and probe, its mechanisms and rules).
    mechanism : str
        One of the study's mechanisms.
    base, deviation : str
        The mixture and the rule (module docstring).
    seeds : list of int, optional
        Default: the study's seeds.
    probe_share : float, optional
        The probe agents' share (default: the exploration's, else the study's ``[game] probe``).
    n_jobs, scheduler_address
        Where the runs go (local worker processes, or a dask scheduler).

    Raises
    ------
    InputError
        A study that is not a population game, an unknown mechanism, rule or seed, a mixture whose shares do not
        sum to 1, a rule outside the family's bounds.
    """
    if not isinstance(spec, StudySpec):  # (a path was an AttributeError: 'str' object has no attribute 'population')
        raise InputError(f"spec must be a study loaded by gamemarket.studies.load_study, got {spec!r:.100}")
    if spec.population is None:
        raise InputError(f"study {spec.name!r}: its [game] is not a population game (kind = 'population')")
    provs = {p.name: p for p in spec.providers}
    if mechanism not in provs:
        point = "[" in str(mechanism)  # (a design's point, as its report names it: hb-kth[r=20]; hunt 20c-W5)
        raise InputError(
            f"--mechanism: unknown mechanism {shown_name(mechanism)} of study {spec.name!r}; expected one of "
            f"{list(provs)}"
            + (
                "; a design's point is probed once the study declares it as a provider ([strategies.provider.NAME] "
                "with its scheduler, payment and reserve, NAME listed in [strategies] providers)"
                if point
                else ""
            )
        )
    known = read_catalogues("shading.toml", Path(spec.path).parent if spec.path else None, load_shading, "shading rule")
    known.update({r.name: r for r in spec.population.strategies})
    rules, x = canonical(*mixture(base, known, "--base"), spec.population.strategies)  # before any draw
    dev = rule(deviation, known, "--deviation")
    if spec.population.outside_price is None:  # (hunt 22a-W6: said later, naming neither the option nor the study)
        for where, played in (("--base", [r for r, q in zip(rules, x) if q > 0]), ("--deviation", [dev])):
            leaving = next((r for r in played if any(r.leave_by_class or ())), None)
            if leaving is not None:
                raise InputError(
                    f"{where}: rule {leaving.name!r} sends jobs to the outside option, but study {spec.name!r} sets "
                    f"no outside price ([game] outside_price in {spec.path}); give it one, or choose a rule that stays"
                )
    if seeds is not None and (isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__")):
        raise InputError(f"seeds must be a list of seeds (whole numbers >= 0), got {seeds!r}")  # (3 was a TypeError)
    seeds = list(spec.seeds) if seeds is None else [check_seed(s, "--seeds: a seed") for s in seeds]  # (1.5 was 1)
    if not seeds:
        raise InputError(f"--seeds: expected seeds >= 0, got {seeds}")
    if len(set(seeds)) != len(seeds):  # one seed twice is one run counted twice: an interval too narrow
        raise InputError(
            f"--seeds: seed {next(s for s in seeds if seeds.count(s) > 1)} is given twice; expected each once"
        )
    share = exploration_probe(spec.population, spec.exploration or {}) if probe_share is None else probe_share
    if isinstance(share, bool) or not isinstance(share, Real) or not (0 < share <= 0.1):
        shown = f"{share:g}" if isinstance(share, Real) and not isinstance(share, bool) else repr(share)
        raise InputError(f"--probe: expected a share in (0, 0.1], got {shown}")
    # an entry registered in this process only is run here, refused on a cluster (review 20: it died in the pool)
    played = spec.played_params() + [r.params() for r in [*rules, dev]]  # (the probe's rules may be no menu's)
    n_jobs = local_workers(played, n_jobs, scheduler_address, f"study {spec.name!r}: probe")
    with on_scheduler(scheduler_address):
        runs = PopulationRuns(spec, load_workload(spec), run=False, scheduler_address=scheduler_address)
        oracle = ProbeOracle(
            runs.arrays,
            runs.nodes,
            provs[mechanism].params(),
            spec.population.agents,
            share,
            spec.bids,
            seeds,
            n_jobs=-1 if scheduler_address else n_jobs,
            remote=scheduler_address is not None,
            outside=spec.population.outside_price,
        )
        g = oracle.gains(rules, x, [dev], seeds)[0]
        n_agents = _agents(runs.arrays, spec.population.agents, market_for(provs[mechanism].params()))
    return ProbeAnswer(
        mechanism,
        {r.name: float(p) for r, p in zip(rules, x)},
        strategy_entry(dev)["strategy"],
        tuple(t_interval(g)),
        seeds,
        share,
        g.tolist(),
        probe_size(n_agents, share),
        n_agents,
    )


def _agents(arrays: dict, agents: str, market) -> int:
    """The market's agents: its users (``agents = "users"``) or its jobs, as the runs count them."""
    return int(np.unique(arrays["user"]).size) if agents == "users" else int(market.size(arrays))
