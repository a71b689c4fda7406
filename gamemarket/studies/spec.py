"""A study file (TOML): workload, strategies, replication seeds, payoff definitions, outputs."""

from __future__ import annotations

import os
import re
import shlex
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import tomli_w

from gamemarket import consumers, plugins
from gamemarket.bids import BidDistribution
from gamemarket.errors import SEED_MAX, InputError, shown_list, shown_value
from gamemarket.io.files import atomic_path, check_no_dangling_link, read_toml, resolve, shown_path, special_kind
from gamemarket.io.names import check_name, check_names
from gamemarket.io.schema import check
from gamemarket.market.base import generator_sources, market_for_workload
from gamemarket.market.payoffs import CONSUMER_PAYOFFS, PROVIDER_PAYOFFS
from gamemarket.plugins import Plugin, load_plugin
from gamemarket.studies.design_config import DesignConfig, parse_design
from gamemarket.studies.population_config import (
    TABLE_FIELDS,
    PopulationConfig,
    certificate_need,
    check_exploration,
    load_shading,
    parse_config,
)
from gamemarket.studies.schema import (  # noqa: F401 (fill_notes, note_fields, typed_numbers: the discussion's)
    GAINS_STRATEGIES,
    HeteroTable,
    ModelDrawTable,
    StudyFile,
    SyntheticTable,
    fill_notes,
    note_fields,
    typed_numbers,
)
from gamemarket.studies.strategies import (
    ConsumerStrategy,
    ProviderStrategy,
    load_consumers,
    load_providers,
    parse_consumers,
    parse_provider,
    read_catalogues,
)
from gamemarket.workloads.model_file import FORMAT as MODEL_FORMAT

_WARNED: set[str] = set()
#: characters Markdown reads as formatting wherever they stand (a name holding one is refused: a report prints it)
MARKDOWN_SYNTAX = "[]*`\\~"
#: an HTML character reference (``&amp;``, ``&#38;``): a Markdown viewer and a browser print the character it names, not
#: the name as written (hunt 21c-W1: "a&amp;b" was shown as "a&b")
CHARACTER_REFERENCE = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


@dataclass(frozen=True)
class GameDef:
    """One game of a study: its name and the provider's and the consumers' payoff metric."""

    name: str
    provider: str = "revenue"
    consumer: str = "mean_utility"

    def __post_init__(self) -> None:
        for field_name in ("name", "provider", "consumer"):  # (None, [] and True were taken: hunt 14)
            value = getattr(self, field_name)
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"game {self.name!r}: {field_name} must be a non-empty text, got {value!r}")
        for field_name, known in (("provider", PROVIDER_PAYOFFS), ("consumer", CONSUMER_PAYOFFS)):
            value = getattr(self, field_name)  # (a metric no run has was a KeyError after every run)
            if value not in known:
                raise InputError(f"game {self.name!r}: {field_name} must be one of {list(known)}, got {value!r}")


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)  # (a numpy integer is refused by the schema, as a file's)


def _list_of(kind, *, empty: bool = True):
    """A check that a value is a list (or a tuple) of ``kind``, non-empty unless ``empty``."""
    return lambda v: isinstance(v, (list, tuple)) and (empty or len(v) > 0) and all(isinstance(x, kind) for x in v)


def _text_map(v) -> bool:
    return isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str) for k, x in v.items())


#: the fields of :class:`StudySpec` given as a text that are converted to a Path
_PATH_FIELDS = ("path", "results_dir", "report_dir")
#: what each field of :class:`StudySpec` holds (``workload``, ``providers`` and ``consumers`` have their own checks):
#: (field, test, what it must be); a value that fails its test is an InputError naming the field, before the study
#: file's schema reads it (a None, a number or an array was an AttributeError or a TypeError deep inside, or taken)
_FIELD_KINDS = (
    ("name", lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty text"),
    ("path", lambda v: v is None or isinstance(v, Path), "the study file's path (a Path or a text), or None"),
    (
        "seeds",
        lambda v: isinstance(v, (list, tuple)) and all(_whole(x) for x in v),
        "a list of whole numbers >= 0 (int)",
    ),
    ("games", _list_of(GameDef, empty=False), "a non-empty list of GameDef"),
    ("bids", lambda v: isinstance(v, BidDistribution), "a BidDistribution (gamemarket.bids)"),
    ("results_dir", lambda v: isinstance(v, Path), "a folder's path (a Path or a text)"),
    ("report_dir", lambda v: isinstance(v, Path), "a folder's path (a Path or a text)"),
    ("description", lambda v: isinstance(v, str), "a text"),
    ("companions", _list_of(Path), "a list of study files' paths (Path)"),
    ("notes", lambda v: isinstance(v, str), "a text"),
    ("gains", lambda v: v is None or isinstance(v, dict), "the [gains] table (a dict), or None"),
    ("population", lambda v: v is None or isinstance(v, PopulationConfig), "a PopulationConfig, or None"),
    ("aliases", _text_map, "a dict of consumer names (text) to the names kept (text)"),
    ("paper", lambda v: isinstance(v, dict), "the [paper] table (a dict)"),
    ("population_study", lambda v: v is None or isinstance(v, Path), "a study file's path (a Path), or None"),
    ("plugins", _list_of(Plugin), "a list of loaded Plugin (gamemarket.plugins.load_plugin)"),
    ("exploration", lambda v: v is None or isinstance(v, dict), "the [game.exploration] table (a dict), or None"),
    ("design", lambda v: v is None or isinstance(v, DesignConfig), "a DesignConfig, or None"),
    (
        "folders_given",
        lambda v: isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, bool) for x in v),
        "a tuple of two bools (results and report folders given)",
    ),
    ("runs_with", lambda v: v is None or (isinstance(v, str) and bool(v.strip())), "a command's text, or None"),
)


def _check_place(value, what: str) -> None:
    """``value`` a path (a text or a path object) or None, else an :class:`InputError` naming ``what`` (pathlib's
    ``TypeError`` before; a blank text was the current folder)."""
    if value is None or (isinstance(value, str) and value.strip()) or isinstance(value, os.PathLike):
        return
    raise InputError(f"{what} must be a path (a text or a Path), or None, got {shown_value(value)}")


def _check_field_kinds(spec, where: str) -> None:
    """Each field of ``spec`` of the kind :data:`_FIELD_KINDS` says, else an :class:`InputError` naming it."""
    for name, test, expected in _FIELD_KINDS:
        value = getattr(spec, name)
        if not test(value):
            raise InputError(
                f"{where}: field {name!r}: expected {expected}, got {shown_value(value)} ({type(value).__name__})"
            )


DEFAULT_GAMES = (
    GameDef("all jobs", "revenue", "mean_utility"),
    GameDef("SHORT jobs", "revenue", "mean_utility_SHORT"),
    GameDef("MEDIUM jobs", "revenue", "mean_utility_MEDIUM"),
    GameDef("LONG jobs", "revenue", "mean_utility_LONG"),
    GameDef("aggressive users", "revenue", "mean_utility_aggressive"),
    GameDef("conservative users", "revenue", "mean_utility_conservative"),
)


#: a strategy's name that reads as the mixture notation answers print: a share then a space, or " + " between two
MIXTURE_LIKE = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s+\S|\s\+\s")


@dataclass
class StudySpec:
    """A study: workload, provider and consumer strategies, seeds, games, outputs; checked on construction."""

    name: str
    path: Path | None
    workload: dict
    providers: list[ProviderStrategy]
    consumers: list[ConsumerStrategy]
    seeds: list[int]
    games: list[GameDef] = field(default_factory=lambda: list(DEFAULT_GAMES))
    bids: BidDistribution = field(default_factory=BidDistribution)
    results_dir: Path = Path("results")
    report_dir: Path = Path("reports")
    description: str = ""
    companions: list[Path] = field(default_factory=list)  #: studies run and reported alongside
    notes: str = ""  #: a discussion (Markdown) the report prints after the measured claims
    gains: dict | None = None  #: market sizes and seeds of the shading-gain experiment (hetero studies)
    population: object | None = None  #: a PopulationConfig where ``[game] kind = "population"``
    aliases: dict[str, str] = field(default_factory=dict)  #: consumer listed twice under two names -> the name kept
    paper: dict = field(default_factory=dict)  #: the source paper's own figures for the workload (its Table 1)
    population_study: Path | None = None  #: a population study of the same market, linked from the discussion
    plugins: list[Plugin] = field(default_factory=list)  #: ``[plugins] modules``, loaded (``gamemarket.plugins``)
    exploration: dict | None = None  #: ``[game] exploration``: family, budget, optimiser, bounds, evaluations
    design: object | None = None  #: a DesignConfig where the study has ``[design]`` (``studies.design_config``)
    #: the folders given beside the file (``--results``, ``--report``; ``load_study``'s ``results=``, ``report=``)
    folders_given: tuple = (False, False)
    #: the command that makes this study's runs where another study's run makes them (a ``[gains]`` size's: its
    #: parent's ``study run``), else None: :meth:`run_command` is then the study's own
    runs_with: str | None = None

    def __post_init__(self) -> None:
        for name in _PATH_FIELDS:  # a folder or file given as a text is its path
            value = getattr(self, name)
            if isinstance(value, str) and value.strip():
                setattr(self, name, Path(value))
        self.validate()

    def run_command(self) -> str:
        """The command that runs this study into its folders: ``gamemarket study run PATH`` with the ``--results``
        and ``--report`` it was loaded with (hunt 8: a hint without them ran into the file's own folders); a study
        whose runs another study's run makes, that one's (hunt 20c-F3: a ``[gains]`` size's hint ran the parent study
        into the size's results folder)."""
        if self.runs_with is not None:
            return self.runs_with
        words = ["gamemarket", "study", "run", str(self.path)]
        folders = (("--results", self.results_dir), ("--report", self.report_dir))
        for given, (option, folder) in zip(self.folders_given, folders):
            words += [option, str(folder)] if given else []
        for plugin in plugins.GIVEN_ON_THE_COMMAND_LINE:  # (as this command was given them: hunt 20d-W4)
            words += ["--plugin", str(plugin)]
        return shlex.join(words)

    @classmethod
    def from_toml(cls, path: str | Path) -> "StudySpec":
        """Read and validate a study file (``load_study``)."""
        return load_study(path)

    def _check_games_measured(self, where: str) -> None:
        """A game the study names over a payoff its market never measures (``Market.unmeasured``) is refused here,
        naming the game, not after every run (the default games leave such games out, said in the report)."""
        if list(self.games) == list(DEFAULT_GAMES):
            return
        market = market_for_workload(self.workload["source"])
        never = set(getattr(market, "unmeasured", ()))
        for g in self.games:
            for side, metric in (("provider", g.provider), ("consumer", g.consumer)):
                if metric in never:
                    known = PROVIDER_PAYOFFS if side == "provider" else CONSUMER_PAYOFFS
                    raise InputError(
                        f"{where}: [[games]] {g.name!r}: {side} = {metric!r}, which the {market.kind} market never "
                        f"measures ({market.description}); expected one of "
                        f"{[m for m in known if m not in never]}"
                    )

    def _check_fresh_seeds(self, where: str) -> None:
        """The seeds drawn after the study's own (a population game's added ones up to ``max_seeds``, an exploration's
        certificate seeds, a design's confirmation seeds) must stay within 2**63 - 1: refused here, naming the
        fields, not after every search simulation (hunt 23a-F5: a design study of the largest seeds ran its whole
        search, then failed on seed 2**63)."""
        if not self.seeds:
            return
        after = {}
        cfg = self.population
        if cfg is not None and getattr(cfg, "max_seeds", None):
            after["[game] max_seeds"] = max(0, int(cfg.max_seeds) - len(self.seeds))
        if self.exploration:
            after["[game.exploration] confirm_seeds"] = int(self.exploration.get("confirm_seeds") or 0)
        if self.design is not None:
            after["[design] confirm_seeds"] = int(self.design.confirm_seeds)
        top = max(self.seeds) + sum(after.values())
        if top > SEED_MAX:
            drawn = ", ".join(f"{n:,} by {f}" for f, n in after.items() if n)
            raise InputError(
                f"{where}: [replications]: the study's largest seed is {max(self.seeds)}, and the seeds drawn after "
                f"it ({drawn}) would pass the largest seed, {SEED_MAX} (2**63 - 1); expected seeds at most "
                f"{SEED_MAX - sum(after.values())}"
            )

    def _check_gains(self, where: str) -> None:
        """``[gains]`` against the workload and the strategies: every market size must be one the workload can be
        resized to (``Market.with_jobs``; a market file fixes its jobs, hunt 18b F3: each size's row was the file's
        market under another size's label), and the study must play the strategies the experiment compares."""
        jobs = list(self.gains["jobs"])
        market = market_for_workload(self.workload["source"])
        for n in jobs:  # the market's own refusal (a scheduling market's size is its nodes), naming the field
            market.with_jobs(
                dict(self.workload),
                n,
                f"{where}: [gains] field 'jobs' ({jobs}) with [workload] source = {self.workload['source']!r}",
            )
        if self.workload.get("file") is not None:  # a generator's market the file replaces: `jobs` would be ignored
            n = _market_file_jobs(self.workload["file"])
            size = f"{n:,} jobs" if n is not None else "the jobs it holds"
            raise InputError(
                f"{where}: [gains] field 'jobs' ({jobs}): the workload's market file ([workload] file = "
                f"{self.workload['file']}) fixes the market's size at {size}, so no other size can be applied to it "
                "(each would be the file's market under another size's label); expected a generated market "
                "([workload.hetero], whose 'jobs' each size replaces) for [gains], or no [gains] table"
            )
        missing = [c for c in GAINS_STRATEGIES if c not in {x.name for x in self.consumers}]
        if missing:  # (found after every run before)
            raise InputError(
                f"{where}: [gains] compares the consumer strategies {list(GAINS_STRATEGIES)}; the study's "
                f"[strategies] consumers lack {missing}: add them"
            )

    def validate(self) -> None:
        """Check the study by its declaration, so that a spec built in Python fails here, not inside ``run_study``:
        its strategies are strategy objects, and its tables (:meth:`to_dict`) pass the study file's schema
        (``gamemarket.studies.schema.StudyFile``), every rule of which a study file gets too.

        The study file's reader (``load_study``) adds the file to each message."""
        where = f"study {self.name!r}"
        _check_field_kinds(self, where)
        wl = self.workload
        if not isinstance(wl, dict) or not isinstance(wl.get("source"), str):
            raise InputError(f"{where}: field 'workload': expected a table with a 'source', got {wl!r}")
        for kind, items, cls in (
            ("provider", self.providers, ProviderStrategy),
            ("consumer", self.consumers, ConsumerStrategy),
        ):
            if not (isinstance(items, list) and items and all(isinstance(x, cls) for x in items)):
                raise InputError(
                    f"{where}: field '{kind}s': expected a non-empty list of {cls.__name__}, got {items!r}"
                )
        check(StudyFile, self.to_dict(), where, context={"base": self.path.parent if self.path else Path.cwd()})
        self._check_printed_names(where)
        self._check_leaving(where)
        if self.gains:  # a market whose size is not its jobs refuses [gains]: here, before any run, not after them
            self._check_gains(where)
        self._check_fresh_seeds(where)
        self._check_games_measured(where)
        own = [self.path.resolve()] if self.path else []
        for c in self.companions:  # the study itself, or one companion named twice, would be reported twice
            if c.resolve() in own:
                raise InputError(
                    f"{where}: field 'companions': {c} is "
                    + ("the study itself" if self.path and c.resolve() == self.path.resolve() else "listed twice")
                    + "; expected each companion study once, and not the study"
                )
            own.append(c.resolve())
        if self.design is not None and self.design.compare is not None:
            known = [p.name for p in self.providers]
            bad = [c for c in self.design.compare if c not in known]
            if bad:
                raise InputError(
                    f"{where}: [design] field 'compare': {bad[0]!r} is not one of the study's providers {known}"
                )

    def played_params(self) -> list[dict]:
        """The parameters of every strategy the study plays: its providers', its consumers' (a provider/consumer study)
        or its menu's (a population or design study), and a design's searched points' (its schedulers with its payment
        scheme): what ``gamemarket.plugins.local_workers`` checks for entries that exist in this process only."""
        players = list(self.population.strategies) if self.population is not None else list(self.consumers)
        searched = (
            [{"scheduler": s, "payment": self.design.payment} for s in self.design.schedulers] if self.design else []
        )
        return [p.params() for p in self.providers] + [s.params() for s in players] + searched

    def _check_printed_names(self, where: str) -> None:
        """The names a report prints (strategies, games, a population study's rules) hold no Markdown syntax: a ``]``
        in a game's name ended its figure's alt text and the figure was shown nowhere, and ``_d_`` or ``*p*`` were
        printed as italics (hunt 20d-F1); an underscore inside a name (``shade_high``) prints as it is."""
        names = [("provider strategy", p.name) for p in self.providers]
        if self.population is not None:
            names += [("shading rule", r.name) for r in self.population.strategies]
        else:
            names += [("consumer strategy", c.name) for c in self.consumers]
        names += [("game", g.name) for g in self.games]
        for what, name in names:
            if what != "game" and MIXTURE_LIKE.search(name):  # (hunt 23a-W1: `0.5 hb-kth` and `a + b` read as mixtures)
                raise InputError(
                    f"{where}: {what} {name!r}: reads as a mixture of strategies (a share and a name, or ' + ' between "
                    "two), as answers print mixtures ('0.5 truthful + 0.5 shade-0.5'); rename it without a leading "
                    "number and a space, and without ' + '"
                )
            bad = sorted(set(name) & set(MARKDOWN_SYNTAX))
            entity = CHARACTER_REFERENCE.search(name)
            if bad or entity or name[:1] == "_" or name[-1:] == "_":
                shown = (
                    ", ".join(repr(c) for c in bad)
                    if bad
                    else f"the character reference {entity.group(0)!r}"
                    if entity
                    else "'_' at its start or end"
                )
                raise InputError(
                    f"{where}: {what} {name!r}: holds {shown}, which Markdown reads as formatting (a report prints "
                    "it); rename it without [ ] * ` \\ ~, without a character reference (&amp;) and without _ at "
                    "either end"
                )

    def _check_leaving(self, where: str) -> None:
        """Jobs that may leave need an outside price, and a market whose jobs have a run time (the scheduling
        market): a menu rule that leaves, an explored family whose points leave, or an outside price or ``[design]``
        on another market's workload is refused here, before any run."""
        cfg = self.population
        if cfg is None:
            return
        kind = market_for_workload(self.workload["source"]).kind
        if kind != "scheduling" and (cfg.outside_price is not None or self.design is not None):
            field = "[design]" if self.design is not None else "[game] field 'outside_price'"
            why = (
                "design points are scheduling mechanisms"
                if self.design is not None
                else "the outside option is priced per node-second of a job's run time, which its jobs do not have"
            )  # (hunt 20c-W3: a study without [design] was told of design points)
            raise InputError(f"{where}: {field}: on the {kind} market {why}; expected a scheduling-market workload")
        family_leaves = False
        if self.exploration is not None:
            fam = consumers.FAMILIES.get(self.exploration["family"])
            mid = [(float(lo) + float(hi)) / 2 for lo, hi in fam.bounds]
            q = getattr(fam.point(mid), "leave_by_class", None)
            family_leaves = q is not None and any(q)
            if family_leaves and cfg.outside_price is None:
                raise InputError(
                    f"{where}: [game] field 'outside_price': the explored family {fam.name!r} sends jobs to the "
                    "outside option; expected its price per node-second (outside_price = ...)"
                )
        menu_leaves = any(r.leave_by_class is not None and any(r.leave_by_class) for r in cfg.strategies)
        if cfg.outside_price is not None and not (menu_leaves or family_leaves):  # (hunt 21a-W1: read past)
            raise InputError(
                f"{where}: [game] field 'outside_price' would have no effect: no rule of the menu (nor of an explored "
                "family) sends a job to the outside option; give a rule a leave share, or leave the field out"
            )

    def to_dict(self, base: str | Path | None = None) -> dict:
        """The study as the tables of a study file (``gamemarket.studies.schema.StudyFile``, in its order), self-
        contained: every strategy and shading rule is written inline, so the file does not depend on the
        catalogues in ``strategies/``. A table with nothing to say (no plugins, the default games) is left out.

        Paths (outputs, companions, the population study, a workload model or file) are written
        relative to ``base`` (the folder of the file to be written) where given, else absolute.
        Consumers merged as aliases of an identical beta mix are written once, under the kept name.
        """
        _check_place(base, "StudySpec.to_dict: base (the folder of the file to be written)")

        def rel(p) -> str:
            if base is None:
                return str(Path(p))
            return os.path.relpath(Path(p).resolve(), Path(base).resolve())

        tables = ((key, _TABLES[key](self, rel)) for key in StudyFile.model_fields)
        return {key: value for key, value in tables if value is not None}

    def to_toml(self, path: str | Path | None = None) -> str:
        """The study file's text (:meth:`to_dict` as TOML); with ``path``, also written there atomically.

        ``StudySpec.from_toml`` reads it back to an equal spec (up to merged aliases)."""
        _check_place(path, "StudySpec.to_toml: path")

        text = tomli_w.dumps(
            _without_none(self.to_dict(None if path is None else Path(path).resolve().parent)), multiline_strings=True
        )
        if path is not None:
            with atomic_path(path, "study") as tmp:
                tmp.write_text(text, encoding="utf-8")
        return text

    def inputs(self) -> list[Path]:
        """The files the study reads (the study file, its companions and population study, a trace, model or
        market file): an output may never be one of them."""
        wl = self.workload
        files = [self.path, *self.companions, self.population_study]
        files += [Path(wl[k]) for k in ("model", "file") if k in wl]
        files += [Path(p.file) for p in self.plugins if p.file]
        if wl["source"] not in generator_sources() and Path(wl["source"]).exists():
            files.append(Path(wl["source"]))
        return [f for f in files if f is not None]

    @property
    def n_tasks(self) -> int:
        """The number of simulations: providers x consumers x seeds."""
        return len(self.providers) * len(self.consumers) * len(self.seeds)


def _workload_table(spec: StudySpec, rel) -> dict:
    wl = {k: (dict(v) if isinstance(v, dict) else v) for k, v in spec.workload.items()}
    for key in ("model", "file"):
        if key in wl:
            wl[key] = rel(wl[key])
    if wl["source"] not in generator_sources() and Path(wl["source"]).is_absolute():
        wl["source"] = rel(wl["source"])
    return wl


def _provider_entry(p: ProviderStrategy) -> dict:
    entry = {k: (list(v) if isinstance(v, tuple) else v) for k, v in p.params().items()}
    return {**entry, "description": p.description} if p.description else entry


def _strategies_table(spec: StudySpec, rel) -> dict:
    providers = {
        "providers": [p.name for p in spec.providers],
        "provider": {p.name: _provider_entry(p) for p in spec.providers},
    }
    if spec.population is not None:  # its consumers play the [game] menu: a consumers list would have no effect
        return providers
    return providers | {
        "consumers": [c.name for c in spec.consumers],
        "consumer": {c.name: c.entry() for c in spec.consumers},
    }


def _without_none(value):
    """A study's tables with every field left at None (its default, decided when the study runs) left out: TOML has
    no null (hunt 20a-F4: an exploration's unset ``search_seeds`` was tomli_w's bare TypeError in ``to_toml``)."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def _game_table(spec: StudySpec, rel) -> dict | None:
    cfg = spec.population
    if cfg is None:
        return None
    settings = {k: getattr(cfg, k) for k in TABLE_FIELDS}
    game = {"kind": "population", "strategies": cfg.names, **{k: v for k, v in settings.items() if v is not None}}
    game["shading"] = {r.name: r.entry() for r in cfg.strategies}
    if spec.exploration is not None:
        game["exploration"] = dict(spec.exploration)
    return game


def _games_table(spec: StudySpec, rel) -> list | None:
    if list(spec.games) == list(DEFAULT_GAMES):
        return None
    return [{"name": g.name, "provider": g.provider, "consumer": g.consumer} for g in spec.games]


#: how :meth:`StudySpec.to_dict` writes each field of the study file (``StudyFile``): ``(spec, rel)`` -> its value,
#: None where the file leaves it out (nothing to say); ``rel`` writes a path as the file does
_TABLES = {
    "name": lambda s, rel: s.name,
    "description": lambda s, rel: s.description or None,
    "plugins": lambda s, rel: (
        {"modules": [rel(p.file) if p.file else p.spec for p in s.plugins]} if s.plugins else None
    ),
    "workload": _workload_table,
    "bids": lambda s, rel: {"components": [list(c) for c in s.bids.components], "lo": s.bids.lo, "hi": s.bids.hi},
    "strategies": _strategies_table,
    "replications": lambda s, rel: {"seeds": list(s.seeds) if isinstance(s.seeds, (list, tuple)) else s.seeds},
    "games": _games_table,
    "output": lambda s, rel: {"results": rel(s.results_dir), "report": rel(s.report_dir)},
    "companions": lambda s, rel: [rel(c) for c in s.companions] or None,
    "population_study": lambda s, rel: None if s.population_study is None else rel(s.population_study),
    "gains": lambda s, rel: None if s.gains is None else dict(s.gains),
    "paper": lambda s, rel: dict(s.paper) or None,
    "game": _game_table,
    "design": lambda s, rel: None if s.design is None else s.design.table(),
    "notes": lambda s, rel: s.notes or None,
}
assert set(_TABLES) == set(StudyFile.model_fields), "every field of the study file is written by StudySpec.to_dict"


def load_study(path: str | Path, *, results: str | Path | None = None, report: str | Path | None = None) -> StudySpec:
    """Read and check a study file (against ``gamemarket.studies.schema.StudyFile``), and build the study
    from its checked tables, one function per table; every error names the file, the table and the field.

    Parameters
    ----------
    path : path
        The study file (TOML).
    results, report : path, optional
        The results and report folders, replacing the file's ``[output]`` (the CLI's ``--results`` and
        ``--report``).
    """
    if not isinstance(path, (str, os.PathLike)):  # (a dict was a TypeError from pathlib)
        raise InputError(
            f"load_study: expected the path of a study file (.toml), got {type(path).__name__} {path!r:.100}"
        )
    for what, folder in (("results", results), ("report", report)):  # (results=5 was pathlib's TypeError)
        if folder is not None and not isinstance(folder, (str, os.PathLike)):
            raise InputError(f"load_study: {what}= must be a folder's path, got {folder!r:.100}")
    given = Path(path)
    kind = special_kind(given)
    if str(path) == "-" and not given.exists():  # (hunt 22b-W4: the usual name of standard input, here a path)
        raise InputError(
            "-: no such study file; a study file is read from its path, not from standard input (its results and "
            "reports are placed beside it)"
        )
    if kind is not None:  # <(cat s.toml), a named pipe: its results and reports go beside the file, which it has not
        what = "a stream (a pipe or a process substitution)" if kind == "a pipe" else kind
        raise InputError(
            f"{given}: {what}, not a study file; save it to a file first (a study's results and reports are placed "
            "beside its file)"
        )
    path = resolve(path, "study file")
    where = str(path)
    data = read_toml(path, "study file (TOML)")
    if not data:  # every field has its default, but a file cut short to nothing ran a whole default study
        raise InputError(
            f"{where}: holds no field (empty, or only comments); expected a study's tables, e.g. [workload] and "
            "[strategies] (`gamemarket study new NAME` writes a study file that runs as it is)"
        )
    if data.get("format") == MODEL_FORMAT:  # (its tables were "unknown fields" of a study: hunt 18c-W4)
        raise InputError(
            f"{where}: is a workload model (format = {MODEL_FORMAT!r}), not a study file; a study names it in its "
            '[workload] table (source = "synthetic", model = "<its path from the study file>"), and '
            f"`gamemarket simulate --workload {given}` simulates it"
        )
    if _a_catalogue(data):  # (its strategies were "unknown field(s)" of a study: hunt 19a's review)
        raise InputError(
            f"{where}: holds only tables of strategies ({shown_list(sorted(data)[:6])}"
            f"{', ...' if len(data) > 6 else ''}): a strategy catalogue (consumers.toml, providers.toml, "
            "shading.toml), not a study file; a study reads the catalogues of its folder's strategies/, and names "
            "the strategies in its [strategies] table"
        )
    doc = check(StudyFile, data, where, context={"base": path.parent})
    base = path.parent
    name = doc.name or check_name(path.stem, where, "name (the file's stem)")
    plugins = _plugins(doc.plugins, where, base)  # before the strategies, which may name their entries
    aliases: dict[str, str] = {}
    providers, consumers = _strategies(doc.strategies, where, base, aliases)
    results_dir, report_dir = _outputs(doc.output, name, base, results, report)
    workload = _workload(doc, where, base)
    check_fit = getattr(market_for_workload(workload["source"]), "check_providers", None)
    if check_fit is not None:  # (a provider's parameters against the workload: one price per resource)
        check_fit(workload, providers, where)
    try:
        spec = StudySpec(
            name=name,
            path=path,
            workload=workload,
            providers=providers,
            consumers=consumers,
            seeds=_seeds(doc.replications),
            aliases=aliases,
            paper=doc.paper.model_dump(exclude_none=True) if doc.paper else {},
            population_study=_study_file(doc.population_study, base, where, "population study", kind="population"),
            games=[GameDef(g.name or f"game {k + 1}", g.provider, g.consumer) for k, g in enumerate(doc.games)]
            or list(DEFAULT_GAMES),
            bids=_bids(doc.bids, where),
            results_dir=results_dir,
            report_dir=report_dir,
            description=doc.description,
            companions=[_study_file(c, base, where, "companion study", kind="bimatrix") for c in doc.companions],
            notes=doc.notes,
            gains=doc.gains.model_dump() if doc.gains else None,
            population=_population(doc.game, where, base),
            plugins=plugins,
            exploration=_exploration(doc.game, where, len(_seeds(doc.replications))),
            design=parse_design(doc.design, where),
            folders_given=(results is not None, report is not None),
        )
    except InputError as exc:  # the spec's own checks: say which file
        msg, prefix = str(exc), f"study {name!r}: "
        raise InputError(f"{where}: {msg[len(prefix) :]}" if msg.startswith(prefix) else msg) from None
    _one_certificate(spec, where)
    return spec


def _one_certificate(spec: StudySpec, where: str) -> None:
    """Refuse an exploration's budget too small for its first certificate, before any run: the budget of 1 was taken,
    every mechanism's runs made, and then each said "not certified: the budget of 1 simulations is too small for one
    certificate" (hunt 34a-W2): :func:`certificate_need`, the exploration's own rule."""
    ex, pop = spec.exploration, spec.population
    if not ex or pop is None:
        return
    searched = ex.get("search_seeds") or len(spec.seeds)
    need = certificate_need(searched, ex["first_seeds"], ex["confirm_seeds"], len(pop.strategies))
    if ex["budget"] < need:
        raise InputError(
            f"{where}: [game.exploration] field 'budget': {ex['budget']:,} simulations are too few for one "
            f"certificate, which the exploration starts only with {need:,} left (what its search and first look may "
            f"take; it may use fewer): ({searched:,} search seeds + {ex['first_seeds']:,} first_seeds) x "
            f"({len(pop.strategies):,} rules of the menu + the one searched) + {searched:,} base runs + "
            f"{ex['confirm_seeds']:,} confirm_seeds; expected a budget of at least {need:,}"
        )


#: fields of a strategy catalogue's entries (consumers.toml, providers.toml, shading.toml), none a study's table
CATALOGUE_FIELDS = {"groups", "beta", "betas", "family", "scheduler", "payment", "mechanism", "aggressive_betas"}


def _a_catalogue(data: dict) -> bool:
    """Whether a TOML file given as a study is a strategy catalogue: tables only, none of a study's, each holding
    a field of a catalogue's entries (a misspelt study table, ``[Workload]``, is not one: it is an unknown field)."""
    return bool(data) and all(
        isinstance(v, dict) and k not in StudyFile.model_fields and CATALOGUE_FIELDS & set(v) for k, v in data.items()
    )


def _plugins(table, where: str, base: Path) -> list[Plugin]:
    """``[plugins] modules``: each loaded (relative paths from the study's folder); an error names the study."""
    out: list[Plugin] = []
    for k, module in enumerate(table.modules):
        try:
            plugin = load_plugin(module, base=base)
        except InputError as exc:
            raise InputError(f"{where}: [plugins] modules[{k}]: {exc}") from None
        first = next((i for i, p in enumerate(out) if p.path == plugin.path), None)
        if first is not None:  # (one module under two spellings, "p.py" and "./p.py", or twice as itself)
            raise InputError(
                f"{where}: [plugins] modules[{k}] ({module!r}) is the plugin of modules[{first}] "
                f"({table.modules[first]!r}), {plugin.path}; expected each plugin once"
            )
        out.append(plugin)
    return out


def _workload(doc: StudyFile, where: str, base: Path) -> dict:
    """``[workload]`` as given (its sub-table checked by the declaration for its source), then checked and
    completed by its market (``Market.check_workload``: files found relative to the study)."""
    wl = doc.workload.model_dump(exclude_unset=True, exclude_none=True)
    wl.setdefault("source", "synthetic")
    if wl["source"] == "synthetic":
        table = ModelDrawTable if "model" in wl else SyntheticTable
        check(table, wl.get("synthetic", {}), where, root="[workload.synthetic]")
    elif wl["source"] == "hetero":
        check(HeteroTable, wl.get("hetero", {}), where, root="[workload.hetero]")
    for key in ("model", "file"):  # (a market file that was a pipe hung the study, silent: hunt 31a-W1)
        named = wl.get(key)
        if isinstance(named, str) and named.strip():
            given = Path(named) if Path(named).is_absolute() else base / named
            _not_a_stream(given, f"{where}: [workload] field {key!r} ({shown_path(given)})")
    wl = market_for_workload(wl["source"]).check_workload(wl, where, base)
    source = wl.get("source")
    if isinstance(source, str) and source not in generator_sources():
        given = Path(source) if Path(source).is_absolute() else base / source
        # (a named pipe: read once, then the report's second read hung, hunt 28b-W4)
        reads = "its trace more than once (its runs, its report, a resumed run)"
        _not_a_stream(given, f"{where}: [workload] source {source!r}", reads)
    return wl


def _bids(table, where: str) -> BidDistribution:
    """``[bids]``: the private-bid mixture (its sum and order rules are the distribution's own)."""
    try:
        return BidDistribution(tuple(tuple(c) for c in table.components), table.lo, table.hi)
    except InputError as exc:
        raise InputError(f"{where}: [bids]: {exc}") from None


def _strategies(st, where: str, base: Path, aliases: dict) -> tuple[list, list]:
    """``[strategies]``: the named providers and consumers, from the catalogues and the inline tables."""
    providers_cat = _catalogue(load_providers, st.provider_file, "provider_file", where, base)
    consumers_cat = _catalogue(load_consumers, st.consumer_file, "consumer_file", where, base)
    inline_providers = {n: parse_provider(n, e, where, "strategies.provider") for n, e in st.provider.items()}
    inline_consumers = parse_consumers(st.consumer, where, "strategies.consumer")
    if "grid" in st.consumer:  # the study's grid replaces the catalogue's, as a consumer_file's [grid] does (hunt
        # 21a-F5: grid:* played the built-in grid's cells beside the study's, two conservative betas in one heatmap)
        consumers_cat = {k: c for k, c in consumers_cat.items() if not _is_grid(k) or k in inline_consumers}
        consumers_cat.update({k: c for k, c in inline_consumers.items() if _is_grid(k)})
    for kind, catalogue, inline in (
        ("provider", providers_cat, inline_providers),
        ("consumer", consumers_cat, inline_consumers),
    ):
        _say_redefined(kind, catalogue, inline, where)
        catalogue.update(inline)
    providers = _pick(st.providers, providers_cat, "provider", where)
    # a name an answer prints: a control character was refused by the game, after every simulation
    check_names(st.providers, f"{where}: [strategies] providers")
    check_names([n for n in st.consumers if n != "grid:*"], f"{where}: [strategies] consumers")
    wildcard = {c.name for c in consumers_cat.values() if _is_grid(c.name)} if "grid:*" in st.consumers else set()
    picked = _pick(st.consumers, consumers_cat, "consumer", where)
    return providers, _merge_identical(picked, where, aliases, wildcard)


def _not_a_stream(path: Path, named: str, reads: str = "its files again at each command") -> None:
    """Refuse a pipe or a device where a study names a file (``named``: the field that names it, said first; ``reads``:
    how often the study reads it): a study is read again by each command (its status, its run, its report), a pipe
    gives its bytes once, and one with no writer waits for good (hunt 30a-W1: a ``consumer_file`` or ``shading_file``
    that was a pipe hung, silent, as its trace did, 28b-W4)."""
    kind = special_kind(path)
    if kind is not None:
        raise InputError(
            f"{named} is {kind}; a study reads {reads}, and a pipe or a device gives it once: save it to a file first"
        )


def _catalogue(load, file: str | None, field: str, where: str, base: Path) -> dict:
    """The strategies of the catalogue a study names (``provider_file``, ``consumer_file``: relative to the study),
    or of the catalogues it reads without naming one; a file that does not read names the study and the field too
    (hunt 21a-W4: "nofile.toml: no such TOML file" named neither)."""
    if not file:
        return load(None, near=base)
    _not_a_stream(base / file, f"{where}: [strategies] field {field!r} ({shown_path(base / file)})")
    try:
        return load(base / file, near=base)
    except InputError as exc:
        raise InputError(f"{where}: [strategies] field {field!r} ({file!r}): {exc}") from None


def _say_redefined(kind: str, catalogue: dict, inline: dict, where: str) -> None:
    """A warning where a study's own strategy takes the name of a catalogue's with other parameters: overriding is
    the catalogues' rule, but a report that says "SRG" of everyone shading 0.3 was read as the paper's SRG without a
    word (hunt 19c-W6)."""
    for name, mine in inline.items():
        theirs = catalogue.get(name)
        if theirs is not None and theirs.params() != mine.params():
            msg = (
                f"{where}: [strategies.{kind}.{name}] redefines the catalogue's {kind} strategy {name!r} "
                f"({theirs.params()}) as {mine.params()}; the study's reports name this one {name!r}"
            )
            if msg not in _WARNED:  # (a study loads several times a command)
                _WARNED.add(msg)
                warnings.warn(msg, stacklevel=4)


#: a beta-grid cell's name as ``consumers.betamix.grid_name`` writes it: ``g<fraction>x<beta>`` (``g0.5x0.9``, ``g1x0``,
#: ``g1e-05x0.3``)
_GRID_CELL = re.compile(r"g(?:[0-9]*\.?[0-9]+(?:e-?[0-9]+)?)x(?:[0-9]*\.?[0-9]+(?:e-?[0-9]+)?)")


def _is_grid(name: str) -> bool:
    """Whether ``name`` is a beta-grid cell's (``g0.5x0.9``): ``galaxy`` was taken for one, and ``grid:*`` played it
    unlisted (hunt 22a-F1)."""
    return _GRID_CELL.fullmatch(name) is not None


def _pick(names: list[str], catalogue: dict, kind: str, where: str) -> list:
    """The strategies named, in order (``grid:*``: every grid cell), a name matched in any case where the catalogue
    holds one strategy of it (as ``--mix`` matches); an unknown or repeated name is an error."""
    out = []
    for n in names:
        if n == "grid:*" and kind == "consumer":
            out += [c for k, c in catalogue.items() if _is_grid(k)]
            continue
        folded = [k for k in catalogue if isinstance(n, str) and k.casefold() == n.casefold()]
        if n not in catalogue and len(folded) != 1:
            raise InputError(f"{where}: [strategies] unknown {kind} strategy {n!r}; known: {sorted(catalogue)}")
        # one rule with --mix: a name in another case ('ft') is the catalogue's one strategy of that name, kept
        # under the catalogue's name ('FT')
        out.append(catalogue[n] if n in catalogue else catalogue[folded[0]])
    names_ = [s.name for s in out]
    if len(set(names_)) != len(names_):
        twice = sorted({x for x in names_ if names_.count(x) > 1})
        raise InputError(f"{where}: [strategies] a {kind} strategy is listed twice: {twice}")
    return out


def _merge_identical(out: list, where: str, aliases: dict, wildcard: set) -> list:
    """Two names for one beta mix (SRG is the grid's g0.1x0.9) would be the same column twice: keep
    the first name and record the other as its alias (the report's setup lists it). Two names listed
    by hand are a likely mistake and get a warning; a grid cell that repeats a named mix does not."""
    kept: dict[tuple, str] = {}
    unique = []
    for c in out:
        same = kept.get(c.key())
        if same is None:
            kept[c.key()] = c.name
            unique.append(c)
            continue
        aliases[c.name] = same
        msg = (
            f"{where}: [strategies] consumer {c.name!r} is the same beta mix as {same!r} "
            f"({c.params()}); kept once, as {same!r}"
        )
        if c.name not in wildcard and msg not in _WARNED:  # a study loads several times a command
            _WARNED.add(msg)
            warnings.warn(msg, stacklevel=3)
    return unique


def _seeds(rep) -> list[int]:
    """``[replications]``: the seeds given, or ``count`` seeds from ``first``."""
    return list(rep.seeds) if rep.seeds is not None else list(range(rep.first, rep.first + rep.count))


def _outputs(out, name: str, base: Path, results, report) -> tuple[Path, Path]:
    """The results and report folders: the CLI's (``--results``, ``--report``), else ``[output]``'s (relative
    to the study file), else ``results/NAME`` and ``reports/NAME`` in the study file's folder."""
    results_dir = Path(results) if results is not None else base / (out.results or f"results/{name}")
    report_dir = Path(report) if report is not None else base / (out.report or f"reports/{name}")

    def named(opt: str, kw: str, given, default: str) -> str:  # (a default was "[output] results": hunt 19c-W3)
        return opt if given is not None else f"[output] {kw}" if getattr(out, kw) else f"the default {default}"

    for folder, what, opt, kw, given in (
        (results_dir, "results folder", "--results", "results", results),
        (report_dir, "report folder", "--report", "report", report),
    ):  # (before resolving, which follows the link to a target it would then make)
        check_no_dangling_link(folder, named(opt, kw, given, f"{kw.removesuffix('s')}s/{name}"), what)
    res, rep = resolve(results_dir, "results folder"), resolve(report_dir, "report folder")
    if res == rep or res in rep.parents or rep in res.parents:  # the file's [output] is checked by its schema
        how = "one folder" if res == rep else "one inside the other"
        said = " and ".join(
            named(opt, kw, given, f"{kw.removesuffix('s')}s/{name}")
            for opt, kw, given in (("--results", "results", results), ("--report", "report", report))
        )
        raise InputError(
            f"the results and report folders ({said}) are {how} ({res}, {rep}); give each its own folder, so that "
            "neither writes over the other's files"
        )
    return res, rep


def _study_file(value: str | None, base: Path, where: str, what: str, *, kind: str) -> Path | None:
    """A study file the study names (a companion, the population study), relative to it; it must exist and be a
    study of ``kind`` (its ``[game] kind``; a design study is of kind "design"): a companion is run and reported as a
    provider/consumer game, the population study quoted as a population game's answer."""
    if value is None:
        return None
    p = resolve(base / value, what)
    if p.is_dir():  # (hunt 27a-W1: a folder was said not to exist)
        raise InputError(f"{where}: {what} {p} is a folder; expected a study file (TOML)")
    _not_a_stream(p, f"{where}: {what} {shown_path(p)}")  # (a pipe "does not exist": 30a-W1, 31a-W1)
    if not p.is_file():
        raise InputError(f"{where}: {what} {p} does not exist")
    doc = read_toml(p, "study file (TOML)")
    game = doc.get("game") if isinstance(doc.get("game"), dict) else {}
    found = "design" if "design" in doc else game.get("kind", "bimatrix")
    if found != kind:
        wanted = {"bimatrix": "a provider/consumer (bimatrix) study", "population": "a population study"}[kind]
        raise InputError(
            f"{where}: {what} {p} is a {found} study ([game] kind = {found!r}); expected {wanted}"
            if found != "design"
            else f"{where}: {what} {p} is a design study ([design]); expected {wanted}"
        )
    return p


def _exploration(game, where: str, seeds: int) -> dict | None:
    """``[game] exploration``: its checked fields (every one, defaults filled in), or None. What the schema cannot
    check, since it needs the study's plugins (loaded by now), is checked here, before any run
    (``population_config.check_exploration``): the family and its declaration, the bounds within the family's,
    the optimiser's library."""
    if game is None or game.exploration is None:
        return None
    d = game.exploration.model_dump()
    check_exploration(d, f"{where}: [game.exploration]")
    if d.get("search_seeds") is not None and d["search_seeds"] > seeds:
        raise InputError(
            f"{where}: [game.exploration] field 'search_seeds': {d['search_seeds']} of the study's seeds, which are "
            f"{seeds} ([replications]); expected at most {seeds}"
        )
    d["bounds"] = list(d["bounds"])
    return d


def _population(game, where: str, base: Path):
    """``[game]``: None for a bimatrix game, else the population game's config (shading rules from the
    built-in catalogue extended by the study's own, or from ``shading_file``, and the inline ones)."""
    if game is None or game.kind == "bimatrix":
        return None
    if game.shading_file is not None:
        shading = base / game.shading_file
        _not_a_stream(shading, f"{where}: [game] field 'shading_file' ({shown_path(shading)})")
        catalogue = load_shading(base / game.shading_file)
    else:
        catalogue = read_catalogues("shading.toml", base, load_shading, "shading rule")
    entry = game.model_dump(exclude_unset=True, exclude={"kind", "shading_file", "exploration"})
    # each entry is checked by the table of the family it names (population_config.shading_rules)
    entry["shading"] = {k: v.model_dump(exclude_unset=True) for k, v in game.shading.items()}
    return parse_config(entry, where, catalogue)


def _market_file_jobs(path: str | os.PathLike) -> int | None:
    """The number of jobs (rows of ``A``) a pricing market file (``.npz``) holds, read from the array's header
    alone; None where the header cannot be read (the market's reader names that fault when the file is loaded)."""
    readers = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    try:
        with zipfile.ZipFile(path) as zf, zf.open("A.npy") as f:
            reader = readers.get(np.lib.format.read_magic(f))
            shape = reader(f)[0] if reader is not None else ()
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    return int(shape[0]) if len(shape) == 2 else None
