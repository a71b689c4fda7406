"""A heterogeneous-cluster market: price discovery as a provider mechanism (pricing model section 5).

``m`` resource types with capacities ``R``, ``n`` jobs with efficiency rows ``A`` (from a seed, or
loaded from a file). Job ``i`` values throughput linearly at its private weight ``w_i`` (drawn from the
scheduling market's bid distribution) and reports ``rw_i``, shaded by the consumers' beta mix with
the same common random numbers (market model 3.2-3.3). Its true utility is ``w_i t_i - payment_i``.

Mechanisms (registered by name; each states its allocation and payment rule):

* ``clearing``: the allocation maximizing reported value ``sum_i rw_i t_i`` under the capacities, with
  market-clearing prices from price discovery; each job pays ``p^T x_i``.
* ``clearing-reserve``: the same with a reserve price per resource (prices never fall below it, and
  capacity nobody values above it stays unsold); each job pays ``p^T x_i``.
* ``posted``: fixed posted prices; each job takes its best response at those prices (its reported
  value per throughput against the cheapest price per throughput), and where demand for a resource
  exceeds its capacity every buyer of it is rationed in proportion; each job pays ``p^T x_i`` for
  what it gets.
* ``pay-as-bid``: the allocation of ``clearing``; each job pays its reported value ``rw_i t_i``.

``PricingMarket`` answers the market protocol (``gamemarket.market.base``) with these mechanisms; ``base``
registers it as ``MARKETS["pricing"]``.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from gamemarket.errors import InputError
from gamemarket.io.files import check_table
from gamemarket.io.limits import memory_limit
from gamemarket.market.runs import MarketRun, PreparedWorkload
from gamemarket.pricing import SOLVER_VERSION, Problem, solve
from gamemarket.pricing.dual import evaluate
from gamemarket.pricing.envelope import sort_efficiencies
from gamemarket.pricing.problem import check_solve_fits, npz_headers, read_npz
from gamemarket.pricing.repair import make_feasible
from gamemarket.registry import PLUGIN_HINT, Registry


@dataclass(frozen=True)
class HeteroSpec:
    """A synthetic heterogeneous cluster: the pricing model's family (resources from least to most
    efficient on average) with total capacity ``n / load`` split over the resources."""

    jobs: int = 2000
    resources: int = 4
    load: float = 2.0  #: jobs per unit of total capacity (> 1: not every job can run fully)
    seed: int = 0

    def __post_init__(self) -> None:
        if self.jobs < 1 or self.resources < 1:
            raise InputError("hetero workload: jobs and resources must be >= 1")
        if not (math.isfinite(self.load) and self.load > 0):
            raise InputError("hetero workload: load must be > 0")
        if self.seed < 0:
            raise InputError("hetero workload: seed must be >= 0")

    @classmethod
    def from_dict(cls, d: dict, where: str = "hetero") -> "HeteroSpec":
        """The generator's parameters from a ``[workload.hetero]`` table; an unknown field is an
        :class:`InputError` that names it (``where`` says which table).
        """
        unknown = sorted(set(d) - set(cls.__dataclass_fields__))
        if unknown:
            raise InputError(
                f"{where}: unknown field(s) {unknown}; expected some of {sorted(cls.__dataclass_fields__)}"
            )
        return cls(**d)

    def check_fits(self, where: str = "hetero") -> None:
        """Refuse a cluster whose runs would not fit in memory (``GAMEMARKET_MEMORY_LIMIT``, else this machine's):
        each run solves the ``jobs x resources`` price problem, checked as ``price solve`` checks one, before anything
        is drawn (hunt 21c-F4: jobs = 1e8 under a 200 MB limit took 3.3 GB in `study status` and the kernel's OOM
        killer in `study run`)."""
        check_solve_fits(
            self.jobs,
            self.resources,
            f"{where}: a cluster of {self.jobs:,} jobs x {self.resources:,} resources (each run's price discovery)",
            memory_limit(),
        )


def generate(spec: HeteroSpec) -> dict[str, np.ndarray]:
    """Efficiencies ``A`` (n x m) and capacities ``R`` (m) from a seed."""
    rng = np.random.default_rng(np.random.SeedSequence([spec.seed, 0x4E7E]))
    n, m = spec.jobs, spec.resources
    A = rng.random((n, m)) * (np.arange(1, m + 1) / m)
    share = rng.uniform(0.5, 1.5, m)
    R = share / share.sum() * n / spec.load
    return {"A": A, "R": R}


def load_market(path) -> dict[str, np.ndarray]:
    """An ``.npz`` with ``A`` (n x m) and ``R`` (m), and nothing else: a market's jobs value throughput linearly at
    their drawn weights (the module docstring), so a price problem's ``demand``, ``weight``, ``target`` or
    ``utility`` would be ignored in silence (as a misspelt array would): each is an error naming it."""
    z = read_npz(path, what="market", limit=memory_limit())  # sized from the arrays' headers before inflating
    other = sorted(set(z) - {"A", "R"})
    if other:
        raise InputError(
            f"{path}: array(s) {other} have no place in a study's pricing market, which reads A (efficiencies) and "
            "R (capacities) only: the jobs' values are drawn, their utility linear in throughput; leave them out "
            "(a price problem's file is for `gamemarket price solve`)"
        )
    try:
        Problem(z["A"], z["R"], "linear")  # validates
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from exc
    if not (np.asarray(z["R"], dtype=np.float64) > 0).any():
        raise InputError(f"{path}: every resource has capacity 0 (R): a market needs one of capacity > 0 to sell")
    return {"A": np.asarray(z["A"], dtype=np.float64), "R": np.asarray(z["R"], dtype=np.float64)}


@dataclass(frozen=True)
class HeteroMechanism:
    """A pricing-market mechanism: its name, its rule ``(A, R, reported values, params) -> (allocation,
    prices, payments, info)`` and a description.
    """

    name: str
    rule: Callable
    description: str
    #: the provider parameters it reads (``reserve``, ``prices``): another is refused as having no effect; None
    #: (a mechanism that does not say) takes either
    reads: tuple | None = None
    #: those it cannot run without (a ``clearing-reserve`` without a reserve was plain clearing, in silence)
    needs: tuple = ()


HETERO_MECHANISMS: Registry[HeteroMechanism] = Registry("pricing mechanism", hint=PLUGIN_HINT)


def register_mechanism(
    name: str, rule: Callable, description: str, *, reads=None, needs=(), replace: bool = False
) -> HeteroMechanism:
    """Register a pricing-market mechanism under ``name`` (provider strategies with ``kind = "pricing"``
    then accept it); ``replace`` replaces one already registered (never a built-in one: ``gamemarket.registry``).
    ``reads``: the provider parameters (``reserve``, ``prices``) its rule reads, the others then refused as having no
    effect (None: either is taken); ``needs``: those it cannot run without.
    """
    reads = None if reads is None else tuple(reads)
    return HETERO_MECHANISMS.register(
        name, HeteroMechanism(name, rule, description, reads, tuple(needs)), replace=replace
    )


def _reads_what_it_is_given(mech: HeteroMechanism, entry: dict) -> None:
    """Refuse a provider's ``reserve`` or ``prices`` its mechanism does not read (no effect), and one it needs that is
    not given (hunt 20c-F1)."""
    given = [k for k in ("reserve", "prices") if k in entry]
    if mech.reads is not None:
        extra = [k for k in given if k not in mech.reads]
        if extra:
            raise InputError(
                f"field {extra[0]!r} would have no effect: mechanism {mech.name!r} reads "
                + (f"only {', '.join(repr(k) for k in mech.reads)}" if mech.reads else "neither reserve nor prices")
            )
    missing = [k for k in mech.needs if k not in entry]
    if missing:
        raise InputError(f"mechanism {mech.name!r} needs field {missing[0]!r} (a number >= 0, or one per resource)")


def _vector(value, m, what) -> np.ndarray:
    """A per-resource vector from one number or a list of ``m``."""
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 0:
        v = np.full(m, float(v))
    if v.shape != (m,) or not np.isfinite(v).all() or (v < 0).any():
        raise InputError(f"{what} must be a number >= 0 or one per resource ({m})")
    return v


def _clearing(A, R, rw, params):
    reserve = _vector(params.get("reserve", 0.0), A.shape[1], "reserve")
    r = solve(
        Problem(A, R, "linear", weight=rw),
        p_min=reserve if reserve.any() else None,
        eps=params.get("eps"),  # default for a linear utility: 1e-3 n (pricing.solve)
        max_iter=params.get("max_iter", 500),
    )
    pay = r.allocation.spend(r.prices)
    return r.allocation, r.prices, pay, {"converged": r.converged, "gap": r.gap, "iterations": r.iterations}


def _pay_as_bid(A, R, rw, params):
    alloc, prices, _, info = _clearing(A, R, rw, {k: v for k, v in params.items() if k != "reserve"})
    t = alloc.throughput(A)
    return alloc, prices, rw * t, info


def _posted(A, R, rw, params):
    m = A.shape[1]
    prices = _vector(params.get("prices", 1.0), m, "posted prices")
    pr = Problem(A, R, "linear", weight=rw)
    _, _, alloc, _ = evaluate(pr, prices, sort_efficiencies(A), A)
    alloc = make_feasible(pr, alloc)  # proportional rationing of over-demanded resources
    pay = alloc.spend(prices)
    return alloc, prices, pay, {"converged": True, "gap": 0.0, "iterations": 0}


# (hunt 20c-F1: each took reserve and prices, read its own and dropped the other, and ran without its own)
register_mechanism("clearing", _clearing, "market-clearing prices from price discovery; pay p^T x_i", reads=())
register_mechanism(
    "clearing-reserve",
    _clearing,
    "market clearing with a reserve price per resource; pay p^T x_i",
    reads=("reserve",),
    needs=("reserve",),
)
register_mechanism(
    "posted",
    _posted,
    "posted prices, proportional rationing of over-demanded resources; pay p^T x_i",
    reads=("prices",),
    needs=("prices",),
)
register_mechanism("pay-as-bid", _pay_as_bid, "the clearing allocation; pay the reported value rw_i t_i", reads=())
HETERO_MECHANISMS.seal()  # built in: never replaced (``Registry.seal``)


def get_mechanism(name: str) -> HeteroMechanism:
    """The pricing-market mechanism registered as ``name``; an unknown name is an error listing the known ones."""
    return HETERO_MECHANISMS.get(name)


def run(
    A: np.ndarray,
    R: np.ndarray,
    private: np.ndarray,
    reported: np.ndarray,
    group: np.ndarray,
    mechanism: str,
    *,
    params: dict | None = None,
):
    """One market: the per-job outcome table and the provider's summary, as a ``MarketRun``
    (a named pair: ``jobs, summary = run(...)`` still works)."""
    params = dict(params or {})
    mech = get_mechanism(mechanism)
    alloc, prices, pay, info = mech.rule(A, R, reported, params)
    t = alloc.throughput(A)
    use = alloc.usage(np.ones(A.shape[0]))
    n = A.shape[0]
    # the rare job an optimum puts on three or more resources: its shares beyond the two slots
    x_more, n_more = np.zeros(n), np.zeros(n, np.int64)
    if alloc.extra is not None:
        x_more = np.bincount(alloc.extra[0], weights=alloc.extra[2], minlength=n)
        n_more = np.bincount(alloc.extra[0], weights=alloc.extra[2] > 0, minlength=n).astype(np.int64)
    jobs = pd.DataFrame(
        {
            "id": np.arange(n),
            "j1": alloc.j1,
            "x1": alloc.x1,
            "j2": alloc.j2,
            "x2": alloc.x2,
            "x_more": x_more,
            "resources": (alloc.x1 > 0).astype(np.int64) + (alloc.x2 > 0) + n_more,
            "throughput": t,
            "payment": pay,
            "private_bid": private,
            "reported_bid": reported,
            "group": group,
            "utility": private * t - pay,
            "reported_utility": reported * t - pay,
            "valuation": private * t,
        }
    )
    summary = {
        "revenue": float(pay.sum()),
        "welfare": float((private * t).sum()),
        "utilization": float(use.sum() / R.sum()),
        "mean_utility": float(jobs["utility"].mean()),
        "prices": prices.tolist(),
        **info,
    }
    return MarketRun(jobs, summary)


class PricingMarket:
    """Jobs bidding for throughput on a heterogeneous cluster, allocated by price discovery
    (the mechanisms above; the contract ``pricing-model.md``)."""

    kind = "pricing"
    description = "a heterogeneous cluster's resources, allocated by price discovery"
    workload_sources = ("hetero",)
    generator_sources = ("hetero",)
    size_name = "resources"
    #: what a job's utility is measured in (a population report's words; hunt 20c-W3 read "bid x seconds")
    utility_unit = "value x throughput per job"
    has_users = False
    paper_analysis = False
    #: the payoffs of ``gamemarket.market.payoffs`` it never measures (no slowdown, no run-time groups): a study's
    #: game over one is refused before any run (hunt 23a-W2: every run made, then "the game is not built")
    unmeasured = ("mean_bsd", "ssj_share", "mean_utility_SHORT", "mean_utility_MEDIUM", "mean_utility_LONG")
    #: a small over-demanded cluster the conformance checks run (``gamemarket.testing.check_market``)
    example_workload = {"source": "hetero", "hetero": {"jobs": 40, "resources": 3, "load": 2.0, "seed": 1}}
    #: the ranges its figures lie in by the rules alone: only the outside option's share of the jobs that stay (a
    #: registered mechanism may pay jobs or allocate past a capacity, so revenue and utilization have none)
    figure_ranges = {"stay": (0.0, 1.0)}

    def example_providers(self) -> list[dict]:
        """Every registered mechanism as a provider table, with the parameters it needs (the built-in catalogue's
        values: a reserve of 20, posted prices of 30 per unit)."""
        example = {"reserve": 20.0, "prices": 30.0}
        return [
            {"kind": self.kind, "mechanism": name, **{k: example[k] for k in mech.needs if k in example}}
            for name, mech in HETERO_MECHANISMS.items()
        ]

    def prepare(self, workload: dict) -> PreparedWorkload:
        """A market file (``[workload] file``) or the generator's ``[workload.hetero]`` parameters."""
        if "file" in workload:
            mk = load_market(workload["file"])
            meta = {"source": workload["file"]}
        else:
            hs = HeteroSpec.from_dict(workload.get("hetero", {}))
            hs.check_fits()
            mk = generate(hs)
            # "synthetic": the generator's parameters, under the key every market's meta uses for them
            meta = {"source": "hetero", "synthetic": {k: getattr(hs, k) for k in hs.__dataclass_fields__}}
        arrays = {"A": np.ascontiguousarray(mk["A"]), "R": np.ascontiguousarray(mk["R"])}
        return PreparedWorkload(self.kind, arrays, int(mk["A"].shape[1]), meta, mk, jobs=self.size(arrays))

    def check_workload(self, workload: dict, where: str, base: Path) -> dict:
        """A market file (``file``, relative to the study) or the generator's ``[workload.hetero]`` table."""
        wl = dict(workload)
        HeteroSpec.from_dict(wl.get("hetero", {}), where=f"{where}: [workload.hetero]").check_fits(
            f"{where}: [workload.hetero]"
        )
        if "file" in wl and not Path(wl["file"]).is_absolute():
            wl["file"] = str((base / wl["file"]).resolve())
        if "file" in wl:  # the file's cluster sized by its runs' solve, from its arrays' headers (hunt 22a-F4: a file
            # whose arrays fit but whose solve did not ran to 1.8 GB under a 400 MB limit, where price solve refused it)
            shape = (npz_headers(wl["file"]) or {}).get("A", (None, None))[0]
            if shape is not None and len(shape) == 2:
                n, m = int(shape[0]), int(shape[1])
                what = f"{where}: [workload] field 'file' ({Path(wl['file']).name}): a cluster of {n:,} jobs x {m:,} "
                check_solve_fits(n, m, what + "resources (each run's price discovery)", memory_limit())
        return wl

    def with_jobs(self, workload: dict, n: int, where: str) -> dict:
        """The generator's table with ``jobs = n``."""
        wl = copy.deepcopy(workload)
        wl.setdefault("hetero", {})["jobs"] = int(n)
        HeteroSpec.from_dict(wl["hetero"]).check_fits(f"{where}: a size of {int(n):,} jobs")
        return wl

    def provider_params(self, entry: dict, where: str) -> dict:
        """``mechanism`` (registered in ``HETERO_MECHANISMS``), and ``reserve`` or ``prices``: a number >= 0 or
        one per resource (lists become tuples, so the parameters are hashable)."""
        check_table(entry, where, {"kind", "mechanism", "reserve", "prices", "description"}, {"mechanism"})
        try:
            mech = get_mechanism(str(entry["mechanism"]))
            _reads_what_it_is_given(mech, entry)
            params = {"mechanism": str(entry["mechanism"])}
            for key in ("reserve", "prices"):
                if key in entry:
                    v = entry[key]
                    vals = [float(x) for x in v] if isinstance(v, list) else float(v)
                    if any(not np.isfinite(x) or x < 0 for x in np.atleast_1d(vals)):
                        raise InputError(f"field {key!r} must be numbers >= 0")
                    params[key] = tuple(vals) if isinstance(vals, list) else vals
        except (InputError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: {exc}") from exc
        return params

    def check_providers(self, workload: dict, providers: list, where: str) -> None:
        """Each provider's per-resource ``reserve`` or ``prices`` of one entry per resource of the workload (its
        ``[workload.hetero] resources``, or its market file's ``R``): a list of another length failed at the first
        run, naming neither the study nor the provider."""
        if "file" in workload:
            headers = npz_headers(workload["file"]) or {}
            shape = (headers.get("R") or (None, None))[0]
            if shape is None or len(shape) != 1:
                return  # (reading the file says what is wrong with it)
            m, whose = int(shape[0]), f"the market file's R ({workload['file']})"
        else:
            m = HeteroSpec.from_dict(workload.get("hetero", {})).resources
            whose = "[workload.hetero] resources"
        for provider in providers:  # (ProviderStrategy: a name and its market's parameters)
            name, params = provider.name, provider.params()
            for key in ("reserve", "prices"):
                v = params.get(key)
                if isinstance(v, tuple) and len(v) != m:
                    raise InputError(
                        f"{where}: [strategies.provider.{name}] field {key!r}: {len(v)} number(s) {list(v)}; expected "
                        f"one number for every resource, or one per resource: {m} ({whose})"
                    )

    def describe_provider(self, params: dict) -> str:
        """``(mechanism=..., reserve=...)``: every parameter."""
        return f"({', '.join(f'{a}={b}' for a, b in params.items() if a != 'kind')})"

    def size(self, arrays: dict) -> int:
        """The number of jobs (rows of the efficiencies ``A``)."""
        return arrays["A"].shape[0]

    def key_fields(self) -> dict:
        """The price-discovery solver's version: a changed solver never reuses a stored result."""
        return {"solver": SOLVER_VERSION}

    def run(self, arrays, nodes, provider, private, reported, group) -> MarketRun:
        """One pricing mechanism (``run``) with these bids."""
        params = {k: v for k, v in provider.items() if k not in ("kind", "mechanism")}
        return run(arrays["A"], arrays["R"], private, reported, group, provider["mechanism"], params=params)

    def runner(self, arrays, nodes, provider, private):
        """``run(reported, group) -> MarketRun`` of one mechanism with these private bids: ``run`` itself (each
        run solves its own allocation problem: nothing to share)."""
        return lambda reported, group: self.run(arrays, nodes, provider, private, reported, group)

    def payoff_runner(self, arrays, nodes, provider, private):
        """``run(reported, group) -> (utility, fields)``: ``runner``'s per-job utilities and its summary (each run
        solves its own problem, beside which its outcome is small: nothing to leave out)."""
        one = self.runner(arrays, nodes, provider, private)

        def run(reported, group):
            res = one(reported, group)
            return np.asarray(res.jobs["utility"], dtype=np.float64), res.summary

        return run

    def run_many(self, arrays, nodes, providers, private, reported, group) -> list[MarketRun]:
        """Each mechanism solves its own allocation problem: nothing to share."""
        return [self.run(arrays, nodes, p, private, reported, group) for p in providers]
