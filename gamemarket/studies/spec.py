"""A study file (TOML): workload, strategies, replication seeds, payoff definitions, outputs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gamemarket.bids import BID_CLASSES, BidDistribution
from gamemarket.errors import InputError
from gamemarket.io.files import check_table
from gamemarket.market.payoffs import CONSUMER_PAYOFFS, PROVIDER_PAYOFFS
from gamemarket.studies.strategies import (
    ConsumerStrategy,
    ProviderStrategy,
    load_consumers,
    load_providers,
    parse_consumers,
    parse_provider,
    read_toml,
)

TOP_FIELDS = {
    "name",
    "description",
    "workload",
    "bids",
    "strategies",
    "replications",
    "games",
    "output",
    "companions",
    "notes",
    "gains",
    "game",
    "paper",
    "population_study",
}
# A study's discussion (``notes``) quotes computed numbers as fields, e.g. {claim.c1.ci}, filled in by
# gamemarket.reports.discussion; its literal text may hold references to the paper, claim numbers and
# names with digits (g0.5x0.6, DEV1, LPC-EGEE-2004), never a typed number.
NOTE_FIELD = re.compile(r"\{([A-Za-z0-9_.\-]+)\}")
NOTE_REFERENCE = re.compile(
    r"Figs?\.\s*\d+(?:\s*[-,]\s*\d+)*|Table\s+\d+|Eq\.\s*\d+|Section\s+\d+"
    r"|\(\d\)(?:\s*-\s*\(\d\))?"
)
TYPED_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(?<![A-Za-z0-9]-)\d(?:[\d,.]*\d)?")


def typed_numbers(template: str) -> list[str]:
    """The numbers typed into a discussion's literal text (outside fields, references and names)."""
    return TYPED_NUMBER.findall(NOTE_REFERENCE.sub(" ", NOTE_FIELD.sub(" ", template)))


_WARNED: set[str] = set()
PAPER_FIELDS = {
    "source": "the paper and its table",
    "jobs": "number of (serial) jobs",
    "nodes": "nodes",
    "mean_runtime": "mean run time in seconds",
}


@dataclass(frozen=True)
class GameDef:
    """One game of a study: its name and the provider's and the consumers' payoff metric."""

    name: str
    provider: str = "revenue"
    consumer: str = "mean_utility"


DEFAULT_GAMES = (
    GameDef("all jobs", "revenue", "mean_utility"),
    GameDef("SHORT jobs", "revenue", "mean_utility_SHORT"),
    GameDef("MEDIUM jobs", "revenue", "mean_utility_MEDIUM"),
    GameDef("LONG jobs", "revenue", "mean_utility_LONG"),
    GameDef("aggressive users", "revenue", "mean_utility_aggressive"),
    GameDef("conservative users", "revenue", "mean_utility_conservative"),
)


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

    def __post_init__(self) -> None:
        self.validate()

    @classmethod
    def from_toml(cls, path: str | Path) -> "StudySpec":
        """Read and validate a study file (``load_study``)."""
        return load_study(path)

    def validate(self) -> None:
        """Check every field, so that a spec built in Python fails here, not inside ``run_study``.

        The study file's reader (``load_study``) adds the file and table to each message."""
        where = f"study {self.name!r}"
        if not (isinstance(self.name, str) and NAME.fullmatch(self.name) and ".." not in self.name):
            raise InputError(
                f"{where}: field 'name': {self.name!r} must be 1-100 letters, digits, '.', '_' or '-', starting "
                f"with a letter or digit (it names the results and report folders)"
            )
        wl = self.workload
        if not isinstance(wl, dict) or not isinstance(wl.get("source"), str):
            raise InputError(f"{where}: field 'workload': expected a table with a 'source', got {wl!r}")
        _check_source(wl["source"], where)
        if "nodes" in wl and "reduction" in wl:
            raise InputError(f"{where}: [workload] give either 'nodes' or 'reduction', not both")
        for kind, items, cls in (
            ("provider", self.providers, ProviderStrategy),
            ("consumer", self.consumers, ConsumerStrategy),
        ):
            if not (isinstance(items, list) and items and all(isinstance(x, cls) for x in items)):
                raise InputError(
                    f"{where}: field '{kind}s': expected a non-empty list of {cls.__name__}, got {items!r}"
                )
            names = [x.name for x in items]
            if len(set(names)) != len(names):
                raise InputError(f"{where}: [strategies] a {kind} strategy is listed twice")
        from gamemarket.market.base import market_for_workload

        want = market_for_workload(wl["source"]).kind
        for p in self.providers:
            if p.kind != want:
                raise InputError(
                    f"{where}: [strategies] provider {p.name!r} is a {p.kind} mechanism but the workload "
                    f"({wl['source']}) needs {want} mechanisms"
                )
        seeds = self.seeds
        if not (
            isinstance(seeds, list)
            and seeds
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in seeds)
        ):
            raise InputError(
                f"{where}: [replications] 'seeds' must be a non-empty list of integers >= 0, got {seeds!r}"
            )
        if len(set(seeds)) != len(seeds):
            raise InputError(f"{where}: [replications] 'seeds' has duplicates")
        for k, gd in enumerate(self.games):
            if gd.provider not in PROVIDER_PAYOFFS:
                raise InputError(
                    f"{where}: [[games]] #{k + 1} field 'provider': {gd.provider!r} is not one of {PROVIDER_PAYOFFS}"
                )
            if gd.consumer not in CONSUMER_PAYOFFS:
                raise InputError(
                    f"{where}: [[games]] #{k + 1} field 'consumer': {gd.consumer!r} is not one of {CONSUMER_PAYOFFS}"
                )
        if not isinstance(self.notes, str):
            raise InputError(f"{where}: 'notes' must be a string")
        typed = typed_numbers(self.notes)
        if typed:
            raise InputError(
                f"{where}: 'notes' quotes the number(s) {typed[:5]} as typed text; a discussion quotes "
                "computed numbers as fields such as {claim.c1.ci} (see gamemarket.reports.discussion)"
            )

    def to_dict(self, base: str | Path | None = None) -> dict:
        """The study as the tables of a study file, self-contained: every strategy and shading rule is
        written inline, so the file does not depend on the catalogues in ``strategies/``.

        Paths (outputs, companions, the population study, a workload model or file) are written
        relative to ``base`` (the folder of the file to be written) where given, else absolute.
        Consumers merged as aliases of an identical beta mix are written once, under the kept name.
        """
        import os

        def rel(p) -> str:
            p = Path(p)
            if base is None:
                return str(p)
            return os.path.relpath(p.resolve(), Path(base).resolve())

        from gamemarket.market.base import generator_sources

        wl = {k: (dict(v) if isinstance(v, dict) else v) for k, v in self.workload.items()}
        for key in ("model", "file"):
            if key in wl:
                wl[key] = rel(wl[key])
        src = wl["source"]
        if src not in generator_sources() and Path(src).is_absolute():
            wl["source"] = rel(src)
        providers = {}
        for p in self.providers:
            entry = {k: (list(v) if isinstance(v, tuple) else v) for k, v in p.params().items()}
            if p.description:
                entry["description"] = p.description
            providers[p.name] = entry
        consumers = {}
        for c in self.consumers:
            entry = {"groups": [list(g) for g in c.mix.groups]}
            if c.description:
                entry["description"] = c.description
            consumers[c.name] = entry
        out: dict = {"name": self.name}
        if self.description:
            out["description"] = self.description
        out["workload"] = wl
        out["bids"] = {"components": [list(c) for c in self.bids.components], "lo": self.bids.lo, "hi": self.bids.hi}
        out["strategies"] = {
            "providers": [p.name for p in self.providers],
            "consumers": [c.name for c in self.consumers],
            "provider": providers,
            "consumer": consumers,
        }
        out["replications"] = {"seeds": list(self.seeds)}
        if list(self.games) != list(DEFAULT_GAMES):
            out["games"] = [{"name": g.name, "provider": g.provider, "consumer": g.consumer} for g in self.games]
        out["output"] = {"results": rel(self.results_dir), "report": rel(self.report_dir)}
        if self.companions:
            out["companions"] = [rel(c) for c in self.companions]
        if self.population_study is not None:
            out["population_study"] = rel(self.population_study)
        if self.gains is not None:
            out["gains"] = dict(self.gains)
        if self.paper:
            out["paper"] = dict(self.paper)
        if self.population is not None:
            cfg = self.population
            from gamemarket.studies.population import TABLE_FIELDS

            game = {"kind": "population", "strategies": cfg.names, **{k: getattr(cfg, k) for k in TABLE_FIELDS}}
            game["shading"] = {
                r.name: {
                    "beta": dict(zip(BID_CLASSES, r.betas)),
                    **({"description": r.description} if r.description else {}),
                }
                for r in cfg.strategies
            }
            out["game"] = game
        if self.notes:
            out["notes"] = self.notes
        return out

    def to_toml(self, path: str | Path | None = None) -> str:
        """The study file's text (:meth:`to_dict` as TOML); with ``path``, also written there atomically.

        ``StudySpec.from_toml`` reads it back to an equal spec (up to merged aliases)."""
        import tomli_w

        from gamemarket.io.files import atomic_path

        text = tomli_w.dumps(
            self.to_dict(None if path is None else Path(path).resolve().parent), multiline_strings=True
        )
        if path is not None:
            with atomic_path(path, "study") as tmp:
                tmp.write_text(text)
        return text

    @property
    def n_tasks(self) -> int:
        """The number of simulations: providers x consumers x seeds."""
        return len(self.providers) * len(self.consumers) * len(self.seeds)


NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _check_source(source: str, where: str) -> None:
    """A workload source is a market's generator (``synthetic``, ``hetero``), a known trace name, or a trace
    file (one that exists, or a path ending in .swf or .swf.gz that ``gamemarket workload fetch`` or the
    user will provide)."""
    from gamemarket.market.base import generator_sources
    from gamemarket.workloads.archive import KNOWN_TRACES

    key = source[: -len(".swf.gz")] if source.endswith(".swf.gz") else source
    if source in generator_sources() or key in KNOWN_TRACES or Path(source).exists():
        return
    if source.endswith((".swf", ".swf.gz", ".gz")):
        return
    generators = ", ".join(repr(g) for g in sorted(generator_sources(), reverse=True))
    raise InputError(
        f"{where}: [workload] field 'source': {source!r} is not {generators}, a known trace "
        f"({', '.join(sorted(KNOWN_TRACES))}) or a trace file (.swf or .swf.gz)"
    )


def load_study(path: str | Path) -> StudySpec:
    """Read and validate a study file; every error names the file and the field."""
    path = Path(path).resolve()
    data = read_toml(path)
    where = str(path)
    check_table(data, where, TOP_FIELDS)
    base = path.parent
    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise InputError(f"{where}: field 'name': expected a string, got {name!r}")

    wl = data.get("workload", {"source": "synthetic"})
    check_table(
        wl,
        f"{where}: [workload]",
        {"source", "nodes", "reduction", "parallel", "skip_bad_lines", "synthetic", "hetero", "file", "model"},
    )
    wl = dict(wl)
    wl.setdefault("source", "synthetic")
    if not isinstance(wl["source"], str):
        raise InputError(f"{where}: [workload] field 'source': expected a string, got {wl['source']!r}")
    from gamemarket.market.base import market_for_workload

    wl = market_for_workload(wl["source"]).check_workload(wl, where, base)
    bids_entry = data.get("bids", {})
    check_table(bids_entry, f"{where}: [bids]", {"components", "lo", "hi"})
    try:
        bids = BidDistribution(
            **{k: (tuple(tuple(c) for c in v) if k == "components" else v) for k, v in bids_entry.items()}
        )
    except (InputError, TypeError) as exc:
        raise InputError(f"{where}: [bids]: {exc}") from exc

    st = data.get("strategies", {})
    check_table(
        st,
        f"{where}: [strategies]",
        {"providers", "consumers", "provider_file", "consumer_file", "provider", "consumer"},
    )
    providers_cat = load_providers(base / st["provider_file"] if "provider_file" in st else None, near=base)
    consumers_cat = load_consumers(base / st["consumer_file"] if "consumer_file" in st else None, near=base)
    for table in ("provider", "consumer"):  # inline definitions: tables of named strategies
        if not isinstance(st.get(table, {}), dict):
            raise InputError(
                f"{where}: [strategies] field {table!r}: expected a table of named {table} strategies "
                f"([strategies.{table}.NAME]), got {st[table]!r}; the list of names is '{table}s'"
            )
    for pname, entry in st.get("provider", {}).items():  # inline definitions
        providers_cat[pname] = parse_provider(pname, entry, f"{where}: [strategies.provider]")
    consumers_cat.update(parse_consumers(st.get("consumer", {}), f"{where}: [strategies.consumer]"))

    def pick(names, catalogue, kind):
        if not isinstance(names, list) or not names:
            raise InputError(f"{where}: [strategies] '{kind}s' must be a non-empty list of names")
        out = []
        for n in names:
            if n == "grid:*" and kind == "consumer":
                grid = [c for k, c in catalogue.items() if k.startswith("g") and "x" in k]
                wildcard.update(c.name for c in grid)
                out += grid
                continue
            if n not in catalogue:
                raise InputError(f"{where}: [strategies] unknown {kind} strategy {n!r}; known: {sorted(catalogue)}")
            out.append(catalogue[n])
        names_ = [s.name for s in out]
        if len(set(names_)) != len(names_):
            raise InputError(f"{where}: [strategies] a {kind} strategy is listed twice")
        if kind == "consumer":
            out = _merge_identical(out)
        return out

    def _merge_identical(out):
        """Two names for one beta mix (SRG is the grid's g0.1x0.9) would be the same column twice: keep
        the first name and record the other as its alias (the report's setup lists it). Two names listed
        by hand are a likely mistake and get a warning; a grid cell that repeats a named mix does not."""
        import warnings

        kept: dict[tuple, str] = {}
        unique = []
        for c in out:
            same = kept.get(c.mix.groups)
            if same is None:
                kept[c.mix.groups] = c.name
                unique.append(c)
            else:
                aliases[c.name] = same
                msg = (
                    f"{where}: [strategies] consumer {c.name!r} is the same beta mix as {same!r} "
                    f"({[list(g) for g in c.mix.groups]}); kept once, as {same!r}"
                )
                if c.name not in wildcard and msg not in _WARNED:  # a study loads several times a command
                    _WARNED.add(msg)
                    warnings.warn(msg, stacklevel=2)
        return unique

    aliases: dict[str, str] = {}
    wildcard: set[str] = set()

    providers = pick(st.get("providers", ["hb-first", "hb-kth"]), providers_cat, "provider")
    consumers = pick(st.get("consumers", ["FT", "SRG"]), consumers_cat, "consumer")

    rep = data.get("replications", {"count": 5})
    check_table(rep, f"{where}: [replications]", {"seeds", "count", "first"})
    if "seeds" in rep:
        seeds = rep["seeds"]  # checked by StudySpec.validate
    else:
        count, first = rep.get("count", 5), rep.get("first", 1)
        if not (isinstance(count, int) and count >= 1 and isinstance(first, int) and first >= 0):
            raise InputError(f"{where}: [replications] 'count' must be >= 1 and 'first' >= 0")
        seeds = list(range(first, first + count))

    games = []
    for k, g in enumerate(data.get("games", [])):
        check_table(g, f"{where}: [[games]] #{k + 1}", {"name", "provider", "consumer"})
        gd = GameDef(
            str(g.get("name", f"game {k + 1}")), g.get("provider", "revenue"), g.get("consumer", "mean_utility")
        )
        games.append(gd)

    out = data.get("output", {})
    check_table(out, f"{where}: [output]", {"results", "report"})
    results_dir = (base / out.get("results", f"../results/{name}")).resolve()
    report_dir = (base / out.get("report", f"../reports/{name}")).resolve()
    comp = data.get("companions", [])
    if not (isinstance(comp, list) and all(isinstance(c, str) for c in comp)):
        raise InputError(f"{where}: 'companions' must be a list of study file names")
    companions = [(base / c).resolve() for c in comp]
    for c in companions:
        if not c.exists():
            raise InputError(f"{where}: companion study {c} does not exist")
    population_study = data.get("population_study")
    if population_study is not None:
        if not isinstance(population_study, str):
            raise InputError(f"{where}: 'population_study' must be a study file name")
        population_study = (base / population_study).resolve()
        if not population_study.is_file():
            raise InputError(f"{where}: population study {population_study} does not exist")
    gains = data.get("gains")
    if gains is not None:
        check_table(gains, f"{where}: [gains]", {"jobs", "seeds", "first"})
        sizes, seeds_ = gains.get("jobs"), gains.get("seeds", 10)
        if not (isinstance(sizes, list) and sizes and all(isinstance(x, int) and x >= 1 for x in sizes)):
            raise InputError(f"{where}: [gains] 'jobs' must be a list of market sizes >= 1")
        if isinstance(seeds_, list):
            if len(seeds_) != len(sizes) or not all(isinstance(x, int) and x >= 2 for x in seeds_):
                raise InputError(f"{where}: [gains] 'seeds' must be one count >= 2 per size in 'jobs'")
        elif not (isinstance(seeds_, int) and seeds_ >= 2):
            raise InputError(f"{where}: [gains] 'seeds' must be a count >= 2 or a list of counts")
        gains = {"jobs": sizes, "seeds": seeds_, "first": gains.get("first", 1)}
    notes = data.get("notes", "")
    paper = data.get("paper", {})
    check_table(paper, f"{where}: [paper]", set(PAPER_FIELDS))
    for k, v in paper.items():
        ok = (
            isinstance(v, str) if k == "source" else (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0)
        )
        if not ok:
            raise InputError(
                f"{where}: [paper] field {k!r}: expected {'a string' if k == 'source' else 'a number > 0'} "
                f"({PAPER_FIELDS[k]}), got {v!r}"
            )
    population = None
    game = data.get("game")
    if game is not None:
        if not isinstance(game, dict):
            raise InputError(f"{where}: [game] must be a table")
        kind = game.get("kind", "bimatrix")
        if kind == "population":
            from gamemarket.studies.population import load_shading, parse_config
            from gamemarket.studies.strategies import catalogue_dir

            shading = base / game["shading_file"] if "shading_file" in game else catalogue_dir(base) / "shading.toml"
            catalogue = load_shading(shading) if "shading_file" in game or shading.is_file() else {}
            population = parse_config({k: v for k, v in game.items() if k != "shading_file"}, where, catalogue)
        elif kind != "bimatrix":
            raise InputError(f"{where}: [game] field 'kind': expected 'bimatrix' or 'population', got {kind!r}")
    try:
        return StudySpec(
            gains=gains,
            notes=notes,
            population=population,
            companions=companions,
            name=name,
            path=path,
            workload=wl,
            providers=providers,
            consumers=consumers,
            seeds=seeds,
            aliases=aliases,
            paper=paper,
            population_study=population_study,
            games=games or list(DEFAULT_GAMES),
            bids=bids,
            results_dir=results_dir,
            report_dir=report_dir,
            description=str(data.get("description", "")),
        )
    except InputError as exc:  # the spec's own checks: say which file
        msg, prefix = str(exc), f"study {name!r}: "
        raise InputError(f"{where}: {msg[len(prefix) :]}" if msg.startswith(prefix) else msg) from None
