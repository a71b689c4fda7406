"""A population study's ``[game]`` table: its shading rules and settings, checked by the study schema.

The settings' types and ranges are declared once, in :class:`gamemarket.studies.schema.PopulationSettings`;
:class:`PopulationConfig` checks them against it on construction (so a config built in Python is checked
as a study file is), and adds the rules about the strategies themselves (a truthful reference, no rule
twice).
"""

from __future__ import annotations

import importlib.util
import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamemarket import consumers
from gamemarket.errors import InputError, shown_name
from gamemarket.io.files import read_toml
from gamemarket.io.names import check_names
from gamemarket.io.schema import check
from gamemarket.studies.schema import PopulationSettings

#: the family of a shading entry that names none (``shading.toml``, ``[game.shading]``)
SHADING_FAMILY = "per-class"

AGENTS = ("jobs", "users")
#: the redefinitions of catalogue rules already warned of in this process
_REDEFINED: set[str] = set()
#: the ``[game]`` fields that are PopulationConfig's settings (read by ``parse_config``, written by ``to_dict``)
TABLE_FIELDS = tuple(PopulationSettings.model_fields)


@dataclass(frozen=True)
class PopulationConfig:
    """The ``[game]`` table of a population study (``kind = "population"``)."""

    strategies: tuple  #: a consumer strategy (``gamemarket.consumers``) each; the first truthful one is the reference
    agents: str = "jobs"
    reduced_players: int = 4
    probe: float = 0.005
    regret_tol: float = 0.01  #: relative to the mean absolute truthful utility per agent
    max_seeds: int = 0  #: adaptive budget per mechanism (0: the study's seeds only)
    seed_step: int = 2
    joint: bool = True  #: solve the provider-and-consumers game with a mixed provider
    outside_price: float | None = None  #: the outside option's posted price per node-second (None: no job leaves)

    def __post_init__(self) -> None:
        rules = self.strategies
        if isinstance(rules, (str, bytes)) or not isinstance(rules, (tuple, list)):  # (a name: an AttributeError
            # deep in the check, hunt 18c)
            raise InputError(
                f"PopulationConfig: strategies must be a sequence of consumer strategies (gamemarket.consumers), got "
                f"{type(rules).__name__} {rules!r:.80}"
            )
        bad = next((r for r in rules if not isinstance(r, consumers.ConsumerStrategy)), None)
        if bad is not None:
            raise InputError(
                f"PopulationConfig: strategies must be consumer strategies (gamemarket.consumers), got "
                f"{type(bad).__name__} {bad!r:.80}"
            )
        check(PopulationSettings, {k: getattr(self, k) for k in TABLE_FIELDS}, "", root="[game]")
        if len(self.strategies) < 2:
            raise InputError("[game] field 'strategies': a population game needs at least 2 shading rules")
        misnamed = next((r for r in self.strategies if r.name == "truthful" and not r.truthful_and_staying), None)
        if misnamed is not None:  # (hunt 21a-F3: "gain of truthful over truthful: -12,830", the rule shading by 0.3;
            # said first: "include a truthful rule" beside a rule named truthful misled, hunt 22a-W2)
            raise InputError(
                f"[game] field 'strategies': the rule named 'truthful' is {misnamed.params()}: it shades or sends jobs "
                "to the outside option, where the report's 'truthful' is truthful bidding (beta = 0, no job leaving); "
                "give it another name"
            )
        if not any(r.truthful_and_staying for r in self.strategies):
            raise InputError(
                "[game] field 'strategies': include a truthful rule (beta = 0, no job leaving), the reference of the "
                "gains"
            )
        names = [r.name for r in self.strategies]
        check_names(names, "[game] field 'strategies'")  # printable: the answer names each rule
        if len(set(names)) != len(names):
            raise InputError(f"[game] field 'strategies': a rule is listed twice in {names}")
        leaving = [r.name for r in self.strategies if r.leave_by_class is not None and any(r.leave_by_class)]
        if leaving and self.outside_price is None:
            raise InputError(
                f"[game] field 'outside_price': rule {leaving[0]!r} sends jobs to the outside option; expected the "
                "outside option's price per node-second (outside_price = ...)"
            )
        same = [
            (a.name, b.name)
            for i, a in enumerate(self.strategies)
            for b in self.strategies[i + 1 :]
            if a.key() == b.key()
        ]
        if same:
            raise InputError(f"[game] field 'strategies': {same[0][0]!r} and {same[0][1]!r} are the same rule")

    @property
    def names(self) -> list[str]:
        """The strategies' (shading rules') names, in order."""
        return [r.name for r in self.strategies]

    @property
    def truthful_index(self) -> int:
        """The index of the first truthful rule that keeps every job (``truthful_and_staying``): the reference of every
        gain (a rule of beta 0 that leaves, listed first, was taken for it)."""
        return next(i for i, r in enumerate(self.strategies) if r.truthful_and_staying)

    def params(self) -> dict:
        """What, in this table, determines a run's numbers: part of every stored run's key."""
        out = {"agents": self.agents, "probe": self.probe, "strategies": [r.params() for r in self.strategies]}
        if self.outside_price is not None:  # only where set: the keys of every study without one are unchanged
            out["outside_price"] = float(self.outside_price)
        return out


def shading_rules(entries: dict, where: str, table: str) -> dict:
    """Consumer strategies by name from a table of ``[NAME]`` entries (a catalogue, or ``[game.shading]``),
    each made by the family it names (``family = "..."``, default ``per-class``: a beta per bid class),
    which checks it by its declared table; errors name ``where``, the table and the rule."""
    inner = table.strip("[]")
    if not isinstance(entries, dict):
        raise InputError(f"{where}: [{inner}]: expected a table of shading rules ([{inner}.NAME])")
    out = {}
    for name, entry in entries.items():
        root = f"[{inner + '.' if inner else ''}{name}]"
        out.update(consumers.from_entry(name, entry, where, SHADING_FAMILY, root=root))
    return out


def parse_config(entry: dict, where: str, catalogue: dict) -> PopulationConfig:
    """The ``[game]`` table of a population study (checked by the study schema), as a config.

    Parameters
    ----------
    entry : dict
        The table (``kind = "population"``, ``strategies``, the settings, and inline rules ``shading``).
    where : str
        The study file, for messages.
    catalogue : dict
        Shading rules by name (the built-in catalogue, or the study's ``shading_file``); the inline
        rules are added to it.

    Raises
    ------
    InputError
        Naming the file, the table and the field.
    """
    inline = shading_rules(entry.get("shading", {}), where, "[game.shading]")
    for name, rule in inline.items():  # (hunt 22a-W1: silent, where a consumer or provider redefinition is warned of)
        theirs = catalogue.get(name)
        if theirs is not None and theirs.params() != rule.params():
            msg = (
                f"{where}: [game.shading.{name}] redefines the catalogue's shading rule {name!r} "
                f"({theirs.params()}) as {rule.params()}; the study's reports name this one {name!r}"
            )
            if msg not in _REDEFINED:  # (a study is read several times a command)
                _REDEFINED.add(msg)
                warnings.warn(msg, stacklevel=3)
    catalogue = {**catalogue, **inline}
    names = entry.get("strategies", list(catalogue))
    unused = [n for n in inline if n not in names]
    if unused:  # (hunt 22a-W10: accepted without a word, as an unused [strategies.consumer.*] is not)
        raise InputError(
            f"{where}: [game.shading.{unused[0]}] would have no effect: [game] strategies does not play it "
            f"({list(names)}); list it there, or leave the table out"
        )
    rules = []
    for n in names:
        if n not in catalogue:
            raise InputError(
                f"{where}: [game] field 'strategies': unknown shading rule {shown_name(n)}; known: {sorted(catalogue)}"
            )
        rules.append(catalogue[n])
    kw = {k: entry[k] for k in TABLE_FIELDS if k in entry}
    try:
        return PopulationConfig(tuple(rules), **kw)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def load_shading(path: Path) -> dict:
    """The shading rules of a catalogue file, by name; errors name the file and the rule."""
    data = read_toml(path, "shading-rule catalogue (TOML)")
    study = {k for k in ("workload", "strategies", "game", "replications") if k in data}
    study = {k for k in study if not (isinstance(data[k], dict) and "beta" in data[k])}  # (a rule may be so named)
    if study:  # (a study file given as the catalogue was "[name]: expected a table of fields", hunt 40a-W2)
        raise InputError(
            f"{path}: a study file (its tables {sorted(study)}), not a shading-rule catalogue: [game] shading_file "
            "names a TOML file of [NAME] tables, each a rule's fields (see strategies/shading.toml)"
        )
    return shading_rules(data, str(path), "")


def search_family(name: str, where: str = "[game.exploration] field 'family'") -> consumers.ParametricFamily:
    """The registered parametric family ``name`` that a strategy exploration searches (``[game] exploration``),
    its declaration checked against its own points: when the study is loaded, before any run.

    Parameters
    ----------
    name : str
        A family of ``gamemarket.consumers.FAMILIES`` (``per-class``, ``piecewise``, a plugin's).
    where : str
        The field that names it, for messages.

    Raises
    ------
    InputError
        An unknown family, one that is not parametric (no box to search), one whose declared parameters
        (``param_names``, ``bounds``) do not match its points, or one declared outside [0, 1) (correct, but no box
        the exploration searches: shares of a bid).
    """
    known = sorted(n for n, f in consumers.FAMILIES.items() if isinstance(f, consumers.ParametricFamily))
    if name not in consumers.FAMILIES:
        raise InputError(f"{where}: unknown family {shown_name(name)}; expected one of {known}")
    fam = consumers.FAMILIES.get(name)
    if not isinstance(fam, consumers.ParametricFamily):
        raise InputError(f"{where}: family {name!r} has no box of parameters to search; expected one of {known}")
    problem = _declaration_problem(fam)
    if problem:
        raise InputError(f"{where}: family {name!r}: its parameters do not match its declaration: {problem}")
    for n, (lo, hi) in zip(fam.param_names, fam.bounds):
        if not (0 <= float(lo) and float(hi) <= 1):  # (the search's limit, not the family's: hunt 18b, F5's sibling)
            raise InputError(
                f"{where}: family {name!r} cannot be explored: its parameter {n!r} lies in [{float(lo):g}, "
                f"{float(hi):g}), and an exploration searches parameters in [0, 1) at a step of {RESOLUTION:g} (shares "
                "of a bid); its points are played by name, or as FAMILY[...] in `population probe`"
            )
    return fam


def _declaration_problem(fam: consumers.ParametricFamily) -> str:
    """What is wrong with a family's declaration (names, bounds, and a point's round trip), or ''."""
    names, bounds = list(fam.param_names), list(fam.bounds)
    if not names or len(set(names)) != len(names) or not all(isinstance(n, str) for n in names):
        return f"param_names must be distinct names, got {names}"
    if len(bounds) != len(names):
        return f"{len(names)} param_names {names} but {len(bounds)} bounds"
    for n, b in zip(names, bounds):
        lo, hi = (float(v) for v in b)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            return f"the bounds of {n!r} must be finite with lower < upper, got [{lo:g}, {hi:g})"
    mid = np.array([round((float(lo) + float(hi)) / 2, 2) for lo, hi in bounds])
    try:
        s = fam.point(mid)
        back = np.asarray(fam.coordinates(s), dtype=float)
    except InputError as exc:
        return f"its point at the middle of its bounds is refused ({exc})"
    if s.family != fam.name or back.shape != mid.shape or not np.array_equal(back, mid):
        return f"the point {mid.tolist()} comes back as {back.tolist()} of family {s.family!r}"
    return ""


#: the default search box of every parameter: [0, 0.99] (a beta near 1 bids nothing), within the family's bounds
DEFAULT_BOUNDS = (0.0, 0.99)
#: an exploration's candidates' parameters are rounded to this step, so that a point has a short exact name and
#: the search does not run twice what it has already run
RESOLUTION = 0.01


def search_box(fam: consumers.ParametricFamily, bounds=DEFAULT_BOUNDS, where: str = "[game.exploration]") -> list:
    """The box an exploration's oracle searches: per parameter, ``bounds`` ([lower, upper], the study's) within the
    family's declared ``[low, high)``, its ends on the ``RESOLUTION`` grid where the family's are not (a candidate
    is rounded to the grid, and must stay inside: the lower end rounded up, the upper one pulled in by a step).

    Raises
    ------
    InputError
        Where ``bounds`` leave no room inside a parameter's declared range, naming the field and the parameter.
    """
    lo, hi = (float(v) for v in bounds)
    box = []
    for n, (flo, fhi) in zip(fam.param_names, fam.bounds):
        floor = round(math.ceil(round(float(flo) / RESOLUTION, 6)) * RESOLUTION, 10)  # flo itself where on the grid
        b = (max(lo, floor), min(hi, round(float(fhi) - RESOLUTION, 10)))
        if not b[0] < b[1]:
            raise InputError(
                f"{where} field 'bounds': {[lo, hi]} leaves no room for parameter {n!r} of family "
                f"{fam.name!r}, declared in [{flo:g}, {fhi:g})"
            )
        box.append(b)
    return box


def optuna_missing(where: str = "[game.exploration]") -> InputError:
    """The error of an exploration that asks for optuna's TPE where optuna is not installed."""
    return InputError(
        f"{where} field 'optimiser': 'optuna-tpe' needs optuna; install it with `pip install gamemarket[explore]`, "
        "or choose one of ['nelder-mead', 'differential_evolution', 'direct']"
    )


def certificate_need(searched: int, first: int, fresh: int, rules: int) -> int:
    """The simulations an exploration holds back before it starts a certificate over a menu of ``rules`` (what its
    search and first look may take): each rule and the one searched on the ``searched`` search seeds and the
    ``first`` seeds of the first look, then the base runs on the search seeds and every ``fresh`` seed. The rule
    of ``search.exploration``'s certificates and of the study file's check of its budget, written once."""
    return (searched + first) * (rules + 1) + searched + fresh


def check_exploration(ex: dict, where: str = "[game.exploration]") -> consumers.ParametricFamily:
    """Every check of a strategy exploration (``[game] exploration``'s checked fields) that its runs would
    otherwise meet only after the menu-only study: the family (registered, parametric, its declaration matching
    its points: :func:`search_family`), the search box (``bounds`` within the family's: :func:`search_box`) and
    the optimiser's library. Called when the study is loaded (its plugins loaded first), before any run.

    Returns
    -------
    ParametricFamily
        The family searched.

    Raises
    ------
    InputError
        Naming ``where`` (the file and ``[game.exploration]``), the field and the value.
    """
    fam = search_family(ex["family"], f"{where} field 'family'")
    search_box(fam, ex["bounds"], where)
    if ex.get("optimiser") == "optuna-tpe" and importlib.util.find_spec("optuna") is None:
        raise optuna_missing(where)
    return fam
