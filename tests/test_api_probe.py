"""Every exported callable, every argument, every hostile value: an :class:`InputError` naming it, or an answer where
the value is one the argument takes.

Hunt 14 called each exported function with a bad value in every argument at once and found about 20 that raised a
bare ``AttributeError``, ``TypeError`` or ``ValueError`` from deep inside numpy or pandas (H14-7). The hunt's examples
were mended one by one; this is the mechanism that lets none through again: each exported name of the package's
parts (``__all__``) has a valid call here, and each of its arguments in turn is given each hostile value while the
others stay valid, then all of its required ones at once (the hunt's matrix). A new exported name without an entry
here fails :func:`test_every_exported_callable_is_covered`.

What may happen: a :class:`~gamemarket.errors.GameMarketError` (the message naming the argument is checked by the
parts' own tests), or an answer where the value is one the argument takes (:func:`accepted`: ``None`` where the
default is ``None``, a text where the argument is a name or a description, a bool where it is a flag, and the
listed ones of :data:`TAKES`). What may not: any other exception, an answer to a value the argument does not take,
a call that runs past :data:`SECONDS`.
"""

from __future__ import annotations

import importlib
import inspect
import math
import signal
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gamemarket.errors import GameMarketError
from gamemarket.registry import Registry

PARTS = ("games", "market", "pricing", "consumers", "workloads", "studies", "testing", "reports")

#: the hostile values, by the name a failure shows
HOSTILE = {
    "None": None,
    "text": "abc",
    "empty list": [],
    "empty array": np.array([]),
    "nan": math.nan,
    "-3": -3,
    "True": True,
    "1e30 (int)": 10**30,
    "dict": {},
    "object": object(),
}

#: seconds one call may take (a value taken where it should be refused may start a long run)
SECONDS = 20

#: records the library fills in (a solver's answer, a check's result, an exception, an abstract base): not checked on
#: construction, as a dataclass of results is not; what reads them is what their producers wrote
RECORDS = {
    "games.Equilibrium",
    "games.Solution",
    "market.RunResult",
    "pricing.Allocation",
    "pricing.Result",
    "pricing.TimeLimitReached",
    "testing.Case",
    "testing.CheckResult",
    "testing.ConformanceReport",
    "testing.ConformanceError",
    "testing.UnknownSemanticsError",
    "consumers.ConsumerStrategy",
    "consumers.Family",
    "consumers.ParametricFamily",
}

#: (name, argument) -> the hostile values it takes, beyond :func:`accepted`'s rule, and why
TAKES = {
    # a predicate: says whether a source names a workload model; anything that does not is False
    ("workloads.is_model_path", "source"): set(HOSTILE),
    # generate(None) is the default spec, as its signature says (spec=None)
    ("workloads.generate", "spec"): {"None"},
    ("workloads.is_model_path", "*"): set(HOSTILE),
    # None is no time limit, as solve's docstring says (its default is 10 s, not None)
    ("games.solve", "time_limit"): {"None"},
    # no bids, no draws: a workload of no jobs (draw(0), job_table) gets an empty answer
    ("consumers.bid_bin", "w"): {"empty array", "empty list"},
    ("consumers.bid_bin", "*"): {"empty array", "empty list"},
    ("consumers.bid_bin_codes", "w"): {"empty array", "empty list"},
    ("consumers.bid_bin_codes", "*"): {"empty array", "empty list"},
    ("consumers.BetaMix.assign", "G"): {"empty array", "empty list"},
    ("consumers.BetaMix.assign", "*"): {"empty array", "empty list"},
    ("consumers.PiecewiseRule.beta", "private_bid"): {"empty array", "empty list"},
    ("consumers.PiecewiseRule.beta", "*"): {"empty array", "empty list"},
    # a spec's overestimate and gap spread may be any size on construction: generate() sizes them and names the
    # value it cannot draw (tests/workloads/test_generation_limits.py)
    ("workloads.SyntheticSpec", "overestimate"): {"1e30 (int)"},
    ("workloads.SyntheticSpec", "gap_sigma"): {"1e30 (int)"},
    ("workloads.SyntheticSpec", "max_runtime"): {"1e30 (int)"},  # a cap: a huge one caps nothing (draws are sized)
    # a starting price or a price floor may be any finite price >= 0: an alpha-fair problem's optimal prices can lie
    # far beyond 1e30, and a floor above every bid sells nothing, converged, gap 0
    ("pricing.solve", "p0"): {"1e30 (int)"},
    ("pricing.solve", "p_min"): {"1e30 (int)"},
    # a study made in Python has no file (path=None; the annotation says Path | None) and may have no companions
    # nor plugins (their defaults are empty lists)
    ("studies.StudySpec", "path"): {"None"},
    ("studies.StudySpec", "companions"): {"empty list"},
    ("studies.StudySpec", "plugins"): {"empty list"},
    ("studies.StudySpec", "runs_with"): {"None", "text"},  # a command's text, or none (the study's own)
    ("testing.check_family", "strategies"): {"empty list"},  # the default, ()
    ("games.from_results", "lower_is_better"): {"empty list"},  # no metric played negated
    ("testing.reference_run", "jobs"): {"empty list"},  # no jobs: an empty outcome (every job left, say)
    ("studies.GameDef", "*"): {"text"},  # GameDef("abc"): a game's name
    # an empty [workload.synthetic] table: the generator's defaults
    ("workloads.synthetic_spec", "params"): {"dict"},
    ("workloads.synthetic_spec", "*"): {"dict"},
    ("workloads.SyntheticSpec.from_dict", "d"): {"dict"},
    ("workloads.SyntheticSpec.from_dict", "*"): {"dict"},
}


#: arguments that are a name, a description, a title or the place a message names: any text
NAMES = ("name", "description", "title", "where", "root", "label", "what", "rule", "notes", "source")

#: arguments that are a folder or a file: a text is a path (one that does not exist is the callee's error)
PATHS = ("path", "base", "results", "report", "results_dir", "report_dir")

#: arguments that are a tolerance, a limit or a budget: a huge one is a number they take (no limit, stop at once)
LIMITS = ("eps", "rel_eps", "rel_tol", "limit", "time_limit", "max_iter")


def accepted(name: str, param: inspect.Parameter, kind: str) -> bool:
    """Whether ``HOSTILE[kind]`` is a value argument ``param`` of ``name`` takes (an answer is then right)."""
    if kind in TAKES.get((name, param.name), ()):
        return True
    annotation = str(param.annotation)
    optional = param.default is not inspect.Parameter.empty
    return (
        (kind == "None" and param.default is None)
        or (kind == "text" and param.name in NAMES + PATHS)
        or (kind == "True" and (isinstance(param.default, bool) or "bool" in annotation))
        or (kind == "dict" and optional and ("dict" in annotation or "Mapping" in annotation))
        or (kind == "1e30 (int)" and param.name in LIMITS)
    )


class _Timeout(Exception):
    pass


def _alarm(*_):
    raise _Timeout


def outcome(call) -> tuple[str, str]:
    """('error' | 'answer' | 'bare' | 'timeout', detail) of ``call()``, the registries as they were after it."""
    saved = [(r, dict(r._items)) for r in Registry.instances]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = call()
        return "answer", repr(value)[:100]
    except GameMarketError as exc:
        return "error", str(exc)[:100]
    except _Timeout:
        return "timeout", f"ran past {SECONDS} s"
    except Exception as exc:  # noqa: BLE001 - what the test is looking for
        where = exc.__traceback__
        while where.tb_next is not None:
            where = where.tb_next
        return "bare", f"{type(exc).__name__}: {str(exc)[:100]} @ {where.tb_frame.f_code.co_filename}:{where.tb_lineno}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        for registry, items in saved:
            registry._items.clear()
            registry._items.update(items)


# ---------------------------------------------------------------------------------------------------------------
# A valid call of each exported callable: (args, kwargs), made in a folder of the test's own


def _table():
    from gamemarket.testing import random_cases

    case = random_cases(1, seed=3)[0]
    return case.table, case.nodes


def _metrics():
    rows = [
        {"provider": p, "consumer": c, "seed": s, "revenue": 1.0 + i, "utility": -1.0 - i}
        for i, (p, c, s) in enumerate((p, c, s) for p in ("a", "b") for c in ("x", "y") for s in (0, 1))
    ]
    return pd.DataFrame(rows)


def _study(folder: Path):
    from gamemarket.studies import load_study

    path = folder / "tiny.toml"
    path.write_text(
        'name = "tiny"\n[workload]\nsource = "synthetic"\nnodes = 2\n[workload.synthetic]\njobs = 40\n'
        '[strategies]\nproviders = ["hb-kth"]\nconsumers = ["FT"]\n[replications]\ncount = 1\n'
    )
    return load_study(path, results=folder / "results", report=folder / "reports")


def _valid_calls(folder: Path) -> dict:  # noqa: C901 - one entry per exported name, a table
    from gamemarket import consumers, games, pricing, workloads
    from gamemarket.market import Mechanism

    table, nodes = _table()
    game = games.Game(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 2.0]]))
    problem = pricing.synthetic(6, 2, "log", seed=1)
    problem.save(folder / "problem.npz")
    model = workloads.WorkloadModel.read(Path(workloads.__file__).parent.parent / "data/models/sdsc-par-1996.toml")
    rule = consumers.ShadingRule("r", (0.1, 0.2, 0.3))
    swf = folder / "t.swf"
    swf.write_text("; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n")
    draws = np.full(4, 100.0), np.zeros(4, dtype=int), np.full(4, 0.5), np.full(4, 0.5)
    model_fields = {f: getattr(model, f) for f in inspect.signature(workloads.WorkloadModel).parameters}
    spec = _study(folder)
    workloads_free_spec = type(spec)  # StudySpec, reached from an instance (from_toml is a classmethod)
    mix = consumers.BetaMix(((0.5, 0.1), (0.5, 0.3)), "m")
    piecewise = consumers.PiecewiseRule("p", (60.0, 120.0), (0.1, 0.2))
    family = consumers.FAMILIES["per-class"]
    workload = workloads.Workload(table)
    model_path = Path(workloads.__file__).parent.parent / "data/models/sdsc-par-1996.toml"
    model_dict = tomllib.loads(model_path.read_text())
    return {
        "games.Game": ((game.A, game.B), {}),
        "games.from_results": ((_metrics(), "revenue", "utility"), {}),
        "games.pure_equilibria": ((game.A, game.B), {}),
        "games.regret": ((game.A, game.B, [1.0, 0.0], [1.0, 0.0]), {}),
        "games.solve": ((game,), {}),
        "market.Mechanism": (("hb", "kth", 1.0, 0.0), {}),
        "market.get_payment": (("kth",), {}),
        "market.get_scheduler": (("hb",), {}),
        "market.register_payment": (("my-pay", 0, "pays its bid"), {}),
        "market.register_scheduler": (("my-fcfs", False, lambda job: job["submit"], "first come"), {}),
        "market.simulate": ((table, nodes, Mechanism()), {}),
        "market.simulate_many": ((table, nodes, [Mechanism()]), {}),
        "pricing.Linear": ((np.ones(6),), {}),
        "pricing.Log": ((), {}),
        "pricing.Power": ((2.0,), {}),
        "pricing.Target": ((np.ones(6),), {}),
        "pricing.Utility": ((np.ones(6),), {}),
        "pricing.Problem": ((problem.A, problem.R, "log"), {}),
        "pricing.load": ((folder / "problem.npz",), {}),
        "pricing.make_utility": (("log",), {}),
        "pricing.register_utility": (("my-log", pricing.Log), {}),
        "pricing.solve": ((problem,), {"max_iter": 50}),
        "pricing.synthetic": ((6, 2, "log"), {}),
        "consumers.BetaMix": ((((1.0, 0.2),), "m", "d"), {}),
        "consumers.PiecewiseRule": (("p", (60.0, 120.0), (0.1, 0.2)), {}),
        "consumers.ShadingRule": (("r", (0.1, 0.2, 0.3), "d"), {}),
        "consumers.bid_bin": ((np.array([10.0, 90.0, 150.0]),), {}),
        "consumers.bid_bin_codes": ((np.array([10.0, 90.0, 150.0]),), {}),
        "consumers.family_of": ((rule.params(),), {}),
        "consumers.from_entry": (("r", {"betas": [0.1, 0.2, 0.3]}, "study.toml", "per-class"), {}),
        "consumers.from_params": ((rule.params(),), {}),
        "consumers.grid_name": ((0.5, 0.2), {}),
        "consumers.population_bids": (([rule], np.zeros(4, dtype=int), draws[0], draws[2], draws[3]), {}),
        "consumers.register": ((consumers.FAMILIES["per-class"],), {}),
        "workloads.Workload": ((table,), {}),
        "workloads.WorkloadModel": ((), model_fields),
        "workloads.SyntheticSpec": ((40, 2), {}),
        "workloads.generate": ((workloads.SyntheticSpec(40, 2),), {}),
        "workloads.generate_from_model": ((model,), {"jobs": 40, "nodes": 4}),
        "workloads.is_model_path": (("x.toml",), {}),
        "workloads.load": (("synthetic",), {"jobs": 40, "nodes": 2}),
        "workloads.nodes_from_processors": ((128, 0.25), {}),
        "workloads.read_swf": ((swf,), {}),
        "workloads.synthetic_spec": (({"jobs": 40, "nodes": 2},), {}),
        "studies.GameDef": (("g",), {}),
        "studies.StudySpec": (
            (spec.name, spec.path, spec.workload, spec.providers, spec.consumers, spec.seeds),
            {"results_dir": spec.results_dir, "report_dir": spec.report_dir},
        ),
        "studies.load_results": ((spec,), {}),
        "studies.load_study": ((spec.path,), {"results": folder / "results", "report": folder / "reports"}),
        "studies.run_study": ((spec,), {"progress": False}),
        "studies.study_status": ((spec,), {}),
        "testing.check_bids": ((rule,), {}),
        "testing.check_box": ((consumers.FAMILIES["per-class"],), {}),
        "testing.check_event_scheduler": (("hb",), {"cases": 2}),
        "testing.check_family": (("per-class",), {}),
        "testing.check_independent": ((rule,), {}),
        "testing.check_market": (("job",), {}),
        "testing.check_payment": (("kth",), {"cases": 2}),
        "testing.check_provider": (("hb-kth",), {"cases": 2}),
        "testing.check_round_trip": ((rule,), {}),
        "testing.check_runners": (("job",), {}),
        "testing.check_scheduler": (("hb",), {"cases": 2}),
        "testing.compare_with_reference": ((_case(), "hb", "kth"), {}),
        "testing.family_defaults": ((consumers.FAMILIES["per-class"],), {}),
        "testing.family_draws": ((40, 3), {}),
        "testing.family_points": ((consumers.FAMILIES["per-class"],), {}),
        "testing.key_fn": (("hb", {"reported_bid": 1.0, "submit": 0.0, "estimate": 1.0, "id": 0}), {}),
        "testing.one_job_cases": ((0,), {}),
        "testing.preemption_candidates": ((2, 0), {}),
        "testing.random_cases": ((2, 0), {}),
        "testing.reference_run": ((_case().table, 2), {}),
        "testing.tie_cases": ((0,), {}),
        "reports.write_report": ((None,), {}),  # only its first argument is given a hostile value (below)
        # the public methods that take a user's values (a strategy's reported_bids, a family's make and a utility's
        # evaluations are the interfaces the engine calls with arrays it made, checked by the conformance kit)
        "games.Game.ci": (game.ci, (0.95,), {}),
        "games.Game.restrict_cols": (game.restrict_cols, (np.array([True, False]),), {}),
        "pricing.Problem.save": (problem.save, (folder / "again.npz",), {}),
        "consumers.BetaMix.assign": (mix.assign, (draws[2],), {}),
        "consumers.BetaMix.parse": (consumers.BetaMix.parse, ("0.5:0.1,0.5:0.3",), {}),
        "consumers.PiecewiseRule.beta": (piecewise.beta, (draws[0],), {}),
        "consumers.ShadingRule.from_entry": (consumers.ShadingRule.from_entry, ("r", rule.entry(), "s.toml"), {}),
        "consumers.ParametricFamily.check_point": (family.check_point, ([0.1, 0.2, 0.3],), {}),
        "consumers.ParametricFamily.point": (family.point, ([0.1, 0.2, 0.3],), {}),
        "consumers.ParametricFamily.point_name": (family.point_name, (np.array([0.1, 0.2, 0.3]),), {}),
        "consumers.ParametricFamily.coordinates": (family.coordinates, (rule,), {}),
        "workloads.Workload.nodes": (workload.nodes, (4,), {}),
        "workloads.Workload.offered_load": (workload.offered_load, (4,), {}),
        "workloads.Workload.info": (workload.info, (4,), {}),
        "workloads.WorkloadModel.save": (model.save, (folder / "model.toml",), {}),
        "workloads.WorkloadModel.read": (workloads.WorkloadModel.read, (model_path,), {}),
        "workloads.WorkloadModel.from_dict": (workloads.WorkloadModel.from_dict, (model_dict,), {}),
        "workloads.SyntheticSpec.from_dict": (workloads.SyntheticSpec.from_dict, ({"jobs": 40, "nodes": 2},), {}),
        "studies.StudySpec.from_toml": (workloads_free_spec.from_toml, (spec.path,), {}),
        "studies.StudySpec.to_dict": (spec.to_dict, (folder,), {}),
        "studies.StudySpec.to_toml": (spec.to_toml, (folder / "again.toml",), {}),
    }


def _case():
    from gamemarket.testing import random_cases

    return random_cases(1, seed=3)[0]


#: arguments not given hostile values one at a time, and why (each is in the all-at-once matrix)
NOT_ONE_AT_A_TIME = {
    # its other arguments need a whole study's analysis, made by `gamemarket report`: the first is the one a user
    # gets wrong
    "reports.write_report": {"force", "n_jobs"},
}


def exported() -> list[tuple[str, object]]:
    """(``part.name``, object) of every exported callable."""
    out = []
    for part in PARTS:
        module = importlib.import_module(f"gamemarket.{part}")
        out += [(f"{part}.{name}", getattr(module, name)) for name in module.__all__ if callable(getattr(module, name))]
    return out


#: methods the engine calls with arrays it made (a strategy's bids, a family's ``make``, a utility's evaluations, in
#: the solver's loop): the interfaces a plugin implements, checked by the conformance kit (``gamemarket.testing``)
INTERFACE = {"reported_bids", "report", "make", "from_params", "owns"}
#: the utilities' methods are the solver's evaluations, called once per job per iteration: an interface too
UTILITIES = {"pricing.Utility", "pricing.Linear", "pricing.Log", "pricing.Power", "pricing.Target"}


def methods() -> list[str]:
    """``part.Class.method`` of every public method of an exported class that takes an argument (not an interface)."""
    out = []
    for name, obj in exported():
        if not inspect.isclass(obj) or name in RECORDS or name in UTILITIES:
            continue
        for attr, value in vars(obj).items():
            func = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            if attr.startswith("_") or attr in INTERFACE or not inspect.isfunction(func):
                continue
            if len([p for p in inspect.signature(func).parameters if p not in ("self", "cls")]) > 0:
                out.append(f"{name}.{attr}")
    return out


def probed() -> list[str]:
    """Every exported callable and method the probe gives hostile values."""
    return [n for n, _ in exported() if n not in RECORDS] + methods()


def target(name: str, valid: dict):
    """(callable, args, kwargs) of a valid call of ``name``."""
    entry = valid[name]
    if len(entry) == 3:
        return entry
    return dict(exported())[name], *entry


def one_at_a_time(name, obj, args, kwargs):
    """(argument, hostile kind, outcome, detail) of each argument given each hostile value, the rest valid."""
    sig = inspect.signature(obj)
    bound = sig.bind(*args, **kwargs)
    rows = []
    for param in sig.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.name in NOT_ONE_AT_A_TIME.get(name, ()):
            continue
        for kind, value in HOSTILE.items():
            call = dict(bound.arguments)
            call[param.name] = value
            again = sig.bind_partial()
            again.arguments.update(call)
            result, detail = outcome(lambda a=again: obj(*a.args, **a.kwargs))
            rows.append((param, kind, result, detail))
    return rows


def all_at_once(name, obj):
    """(kind, outcome, detail, taken) of every required argument given the same hostile value (hunt 14's matrix);
    ``taken``: whether each of them takes that value (an answer is then right)."""
    sig = inspect.signature(obj)
    required = [
        p
        for p in sig.parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if not required:
        return []
    return [
        (kind, *outcome(lambda v=value: obj(*[v] * len(required))), all(accepted(name, p, kind) for p in required))
        for kind, value in HOSTILE.items()
    ]


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    return _valid_calls(tmp_path_factory.mktemp("api"))


def test_every_exported_callable_is_covered(valid):
    """A new exported name or method needs a valid call here (or a place among the records), so that it is probed."""
    missing = [name for name in probed() if name not in valid]
    assert not missing, f"exported callables with no valid call in {__name__}: {missing}"


@pytest.fixture(autouse=True)
def _elsewhere(tmp_path, monkeypatch):
    """A path argument given a text writes there: in a folder of the test's own, never the checkout."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("name", probed())
def test_hostile_arguments_are_named_errors(name, valid):
    obj, args, kwargs = target(name, valid)
    wrong = []
    if name not in NOT_ONE_AT_A_TIME or len(NOT_ONE_AT_A_TIME[name]) < len(inspect.signature(obj).parameters):
        for param, kind, result, detail in one_at_a_time(name, obj, args, kwargs):
            if result == "error" or (result == "answer" and accepted(name, param, kind)):
                continue
            wrong.append(f"{name}({param.name}={kind}): {result}: {detail}")
    for kind, result, detail, taken in all_at_once(name, obj):
        if result != "error" and not (result == "answer" and (taken or kind in TAKES.get((name, "*"), ()))):
            wrong.append(f"{name}(every required argument {kind}): {result}: {detail}")
    assert not wrong, "\n".join(wrong)
