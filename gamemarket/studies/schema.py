"""The study file's schema: every table and field a study (and a strategy catalogue) may hold, declared.

Each table is a :class:`gamemarket.io.schema.Table`: its fields' types, ranges, defaults and meanings
are written once, here. ``gamemarket.studies.spec.load_study`` checks a study file against
:class:`StudyFile` and builds the study from the checked tables, one small function per table; the
reference of the study file format (``docs/reference/study-file.md``) is generated from these classes
(:func:`study_file_reference`), so it cannot drift from what is checked.

Rules that involve several fields are the tables' validators: ``nodes`` or ``reduction`` but not both;
fields that would have no effect for the workload's source are refused rather than ignored; a probe
slice narrower than one agent; ``seeds`` beside ``count``; a per-size seed list of the wrong length; a strategy
listed twice; a provider of another market than the workload's; results and report folders that overlap;
numbers typed into the discussion. They are the only checks of a study: ``StudySpec`` checks a study built in
Python by checking its tables (``StudySpec.to_dict``) against :class:`StudyFile`, as a study file is.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, ValidationInfo, field_validator, model_validator

# the consumer strategies' tables are declared by their families (gamemarket.consumers); the study's
# schema holds them where a study may write them, and its reference lists them
from gamemarket.bids import MAX_BID, MAX_RESERVE
from gamemarket.consumers.betamix import ConsumerGrid, ConsumerMix
from gamemarket.consumers.piecewise import PiecewiseEntry
from gamemarket.consumers.shading import ShadingEntry
from gamemarket.errors import SEED_MAX, InputError, shown_name
from gamemarket.io.names import is_name, slug
from gamemarket.io.schema import Table, reference
from gamemarket.market.base import MARKETS, generator_sources, market_for_workload
from gamemarket.market.payments import PAYMENTS
from gamemarket.market.payoffs import CONSUMER_PAYOFFS, PROVIDER_PAYOFFS
from gamemarket.workloads.archive import KNOWN_TRACES
from gamemarket.workloads.synthetic import SyntheticSpec

Fraction01 = Annotated[float, Field(ge=0, lt=1)]
NonNegative = Annotated[float, Field(ge=0)]
#: a price per unit of a pricing market's resource: bounded as a scheduling provider's reserve is (1e300 passed, and
#: nobody bought: hunt 21c-W6)
Price = Annotated[float, Field(ge=0, le=MAX_BID)]
Positive = Annotated[float, Field(gt=0)]
#: the largest replication seed (a signed 64-bit integer, as the results tables store seeds)
Seed = Annotated[int, Field(ge=0, le=SEED_MAX)]
Count = Annotated[int, Field(ge=1)]
#: the most jobs of a generated pricing market (``[workload.hetero] jobs``, and each ``[gains] jobs`` size)
HETERO_MAX_JOBS = 10**8
#: a generator's offered load: below 0.001 (an idle cluster) the span it scales the submit times to
#: (work / (nodes x load)) leaves the range of whole seconds the engine holds, and the times wrap
Load = Annotated[float, Field(ge=1e-3, le=1e6)]
#: the longest run time a generator may draw, seconds (some 116 days; beyond every trace): every run time
#: and estimate stays a whole number the engine holds exactly
MAX_RUNTIME = 10**7


# A study's discussion (``notes``) quotes computed numbers as fields, e.g. {claim.c1.ci}, filled in by
# gamemarket.reports.discussion; its literal text may hold references to the paper, claim numbers and
# names with digits (g0.5x0.6, DEV1, LPC-EGEE-2004), never a typed number. A literal brace is written twice, ``{{``
# and ``}}`` (as in Python's str.format), so Markdown and LaTeX (``\\mathbb{{R}}``) can be written.
#: what a discussion's text is read as, left to right: a doubled brace (a literal one), or a field
NOTE_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z0-9_.\-]+)\}")


def note_fields(template: str) -> list[str]:
    """The fields a discussion quotes, in order (``{{x}}`` is the literal text ``{x}``, no field)."""
    return [m.group(1) for m in NOTE_TOKEN.finditer(template) if m.group(1)]


def note_brace_problem(template: str) -> str | None:
    """What is wrong with a brace of a discussion that is neither a field nor a doubled (literal) one, or None: a
    format spec or conversion (``{claim.c1.mean:.2f}``, ``{...!r}``: neither filled nor refused, their text reached
    the report; hunt 20d-F2), an empty ``{}``, or a single ``{`` or ``}``."""
    left = NOTE_TOKEN.sub(lambda m: "", template)
    if "{" not in left and "}" not in left:
        return None
    nested = _field_in_braces(template)  # (first: '{market.jobs:{x}}' was quoted '{market.jobs:}', 36a-W6)
    if nested:
        return (
            f"{nested[:60]!r} holds a field inside a field's braces: a field is {{kind.key.attr}}, in one pair of "
            "braces; a literal brace is written twice, {{ and }}"
        )
    spec = re.search(r"\{[^{}]*[:!][^{}]*\}", left)
    if spec:
        return (
            f"{spec.group(0)[:60]!r} has a format spec or conversion, which a field does not take (a field is "
            "{kind.key.attr}, printed as the report prints its numbers); a literal brace is written twice, {{ and }}"
        )
    pair = re.search(r"\{([^{}]*)\}", left)  # (two braces called "a single brace": hunt 31a-W5)
    if pair:
        inside = pair.group(1)
        what = "is empty" if not inside.strip() else "holds blanks" if inside != inside.strip() else "is not a field"
        return (
            f"{pair.group(0)[:60]!r} {what}: a field is {{kind.key.attr}}, without blanks; a literal brace is written "
            "twice, {{ and }}"
        )
    at = min(i for i in (left.find("{"), left.find("}")) if i >= 0)
    return (
        f"a single brace ({left[max(0, at - 20) : at + 20]!r}): a field is {{kind.key.attr}}, and a literal brace is "
        "written twice, {{ and }}"
    )


def _field_in_braces(template: str) -> str | None:
    """The text of a stray ``{`` to the next stray ``}`` where a field lies between them
    (``{market.jobs{market.jobs}}``), else None. With the field taken out, what was left read ``'{market.jobs}' is
    not a field``, a field that is one (hunt 35a-W1)."""
    fields, stray = [], []
    at = 0
    for m in NOTE_TOKEN.finditer(template):
        stray += [(i, template[i]) for i in range(at, m.start()) if template[i] in "{}"]
        if m.group(1):
            fields.append(m.start())
        at = m.end()
    stray += [(i, template[i]) for i in range(at, len(template)) if template[i] in "{}"]
    for (i, a), (j, b) in zip(stray, stray[1:]):
        if a == "{" and b == "}" and any(i < f < j for f in fields):
            return template[i : j + 1]
    return None


def fill_notes(template: str, value) -> str:
    """A discussion with each field replaced by ``value(field)`` and each doubled brace by one brace."""
    return NOTE_TOKEN.sub(lambda m: value(m.group(1)) if m.group(1) else m.group(0)[0], template)


#: the kinds of field a discussion may quote (``gamemarket.reports.discussion.facts``: the first part of each)
NOTE_KINDS = frozenset(
    {"claim", "claims", "game", "paper-game", "games", "gains", "workload", "paper", "growth", "market", "population"}
)
#: what a field of each kind may end with, where that is fixed before any run (``gamemarket.reports.discussion``
#: makes them: a test holds every field it makes to these): a kind's whole key (``claims``, ``games``, ``market``),
#: or its last part (``claim.<key>.<attr>``, ``game.<game>.<attr>``); a misspelt one is named when the study is read
NOTE_KEYS = {
    "claims": frozenset(
        {
            "tested",
            "supported",
            "contradicted",
            "inconclusive",
            "supported.list",
            "contradicted.list",
            "inconclusive.list",
        }
    ),  # fmt: skip
    "games": frozenset({"provider", "edge", "edge.count", "count"}),
    "market": frozenset({"jobs", "nodes", "resources"}),
    # (``analysis.study.workload_facts``; dropped_runtime where a trace's cleaning dropped records)
    "workload": frozenset({"jobs", "nodes", "mean_runtime", "offered_load", "dropped_runtime"}),
}
#: what ``growth.<mechanism>.<group>.`` is followed by (``reports.discussion.growth_facts``); ``growth.smallest`` and
#: ``growth.largest`` stand alone
GROWTH_ATTRS = frozenset(
    {
        *(f"{end}{part}" for end in ("smallest", "largest") for part in ("", ".jobs", ".relative")),
        "relative_range",
        "significant_loss_from",
        "significant_loss",
        "significant_sizes",
    }
)
#: the last part of ``gains.<mechanism>.<consumer strategy>.<bid class>`` (``gamemarket.bids.BID_CLASSES`` and all)
GAINS_CLASSES = frozenset({"low", "middle", "high", "all"})
NOTE_ATTRS = {
    "claim": frozenset({"mean", "ci", "verdict", "seeds"}),
    "game": frozenset({"equilibria", "count", "robustness", "flags"}),
    "paper-game": frozenset({"equilibria", "count", "robustness", "flags"}),
    "population": frozenset({"truthful", "best_rule", "best_gain", "equilibria", "study", "leader"}),
}


def note_field_problem(field: str) -> str | None:
    """What is wrong with a discussion field that can be told before any run (its kind, a fixed key, the last part
    of a kind whose middle names a claim, a game or a mechanism), or None."""
    head, _, rest = field.partition(".")
    if head not in NOTE_KINDS:
        if rest.partition(".")[0] not in ("claim", "claims"):  # a companion's
            return (
                f"unknown kind {shown_name(head)}; a field starts with one of {sorted(NOTE_KINDS)} (or a companion "
                "study's name, then claim. or claims.); a literal brace is written twice, {{ and }}"
            )
        head, _, rest = rest.partition(".")
    if head in NOTE_KEYS and rest not in NOTE_KEYS[head]:
        return f"{head}. is followed by one of {sorted(NOTE_KEYS[head])}, not {rest!r}"
    parts = rest.split(".")
    if (
        head == "growth"
        and rest not in ("smallest", "largest")
        and (len(parts) < 3 or ".".join(parts[2:]) not in GROWTH_ATTRS)
    ):
        # (hunt 23: a misspelt growth. or gains. field was found only after every run)
        return (
            "a growth. field is growth.smallest, growth.largest or growth.<mechanism>.<group>.<one of "
            f"{sorted(GROWTH_ATTRS)}>, not growth.{rest}"
        )
    if head == "gains" and (len(parts) != 3 or parts[2] not in GAINS_CLASSES):
        return (
            f"a gains. field is gains.<mechanism>.<consumer strategy>.<bid class: one of {sorted(GAINS_CLASSES)}>, "
            f"not gains.{rest}"
        )
    attr = rest.rpartition(".")[2]
    if head in NOTE_ATTRS and ("." not in rest and head != "population" or attr not in NOTE_ATTRS[head]):
        return f"a {head}. field ends with one of {sorted(NOTE_ATTRS[head])}, not {attr!r}"
    return None


NOTE_REFERENCE = re.compile(
    r"Figs?\.\s*\d+(?:\s*[-,]\s*\d+)*|Table\s+\d+|Eq\.\s*\d+|Section\s+\d+"
    r"|\(\d\)(?:\s*-\s*\(\d\))?"
    r"|\((?:19|20)\d\d[a-z]?\)|et al\.,?\s+(?:19|20)\d\d[a-z]?"  # a citation's year (hunt 21c-W2: "(2010)" refused)
    r"|\b(?:https?|ftp)://[^\s<>\"]+|\bdoi:\s*[^\s<>\"]+|\b10\.\d{4,9}/[^\s<>\"]+"  # a link or a DOI (hunt 32a-W2)
)
TYPED_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(?<![A-Za-z0-9]-)\d(?:[\d,.]*\d)?")


def typed_numbers(template: str) -> list[str]:
    """The numbers typed into a discussion's literal text (outside fields, references and names)."""
    return TYPED_NUMBER.findall(NOTE_REFERENCE.sub(" ", fill_notes(template, lambda _field: " ")))


def _listed_twice(names: list[str]) -> list[str]:
    return sorted({x for x in names if names.count(x) > 1})


# ---------------------------------------------------------------------------- [workload]
class SyntheticTable(Table):
    """The plain synthetic generator's parameters (``source = "synthetic"`` without a ``model``); the
    defaults are those of ``gamemarket.workloads.SyntheticSpec``."""

    # every default is the generator's own (its dataclass's field, read as the class attribute it is)
    jobs: Count = Field(SyntheticSpec.jobs, le=10**9, description="number of serial jobs")
    nodes: Count = Field(SyntheticSpec.nodes, le=10**7, description="nodes of the generated cluster")
    load: Load = Field(SyntheticSpec.load, description="offered load: node-seconds of work per node-second of the span")
    runtime_median: float = Field(
        SyntheticSpec.runtime_median, ge=1, le=MAX_RUNTIME, description="median of the log-normal run time, seconds"
    )
    runtime_sigma: NonNegative = Field(SyntheticSpec.runtime_sigma, le=20, description="sd of the log run time")
    max_runtime: Count = Field(SyntheticSpec.max_runtime, le=MAX_RUNTIME, description="longest run time, seconds")
    daily_cycle: Fraction01 = Field(
        SyntheticSpec.daily_cycle, description="amplitude of the sinusoidal daily arrival rate"
    )
    overestimate: float = Field(
        SyntheticSpec.overestimate, ge=1, le=1000, description="estimates are run time x U(1, overestimate), rounded up"
    )
    gap_sigma: NonNegative = Field(
        SyntheticSpec.gap_sigma, le=20, description="log-sd of log-normal gaps between arrivals (bursty)"
    )
    batch_mean: float = Field(
        SyntheticSpec.batch_mean, ge=1, le=1e6, description="mean jobs per arrival instant (geometric batches)"
    )
    seed: Seed = Field(SyntheticSpec.seed, description="seed of the draw")


class ModelDrawTable(Table):
    """A workload model's draw (``source = "synthetic"`` with ``model``): its size, load and seed; the rest
    is the model's."""

    jobs: Count | None = Field(None, le=10**9, description="jobs to draw (default: the model's)")
    load: Load | None = Field(None, description="offered load to scale to (default: the model's)")
    seed: Seed = Field(0, description="seed of the draw")


class HeteroTable(Table):
    """The pricing market's synthetic heterogeneous cluster (``source = "hetero"``)."""

    jobs: Count = Field(2000, le=HETERO_MAX_JOBS, description="number of jobs")
    resources: Count = Field(4, le=10**4, description="number of resource types")
    load: float = Field(
        2.0, ge=1e-6, le=1e6, description="jobs per unit of total capacity (> 1: not every job runs fully)"
    )
    seed: Seed = Field(0, description="seed of the draw")


#: the sources that are generators rather than trace files, and the [workload] fields each may use
GENERATOR_FIELDS = {"synthetic": {"synthetic", "model", "nodes"}, "hetero": {"hetero", "file"}}
TRACE_FIELDS = {"nodes", "reduction", "parallel", "skip_bad_lines"}


class WorkloadTable(Table):
    """Where the jobs come from: a trace (an SWF file or a known trace name), the synthetic generator,
    a fitted workload model, or the pricing market's cluster."""

    source: str = Field(
        "synthetic", description="'synthetic', 'hetero', a known trace name, or an SWF file (relative to the study)"
    )
    nodes: Count | None = Field(None, le=10**7, description="number of nodes (default: the trace's or generator's)")
    reduction: Fraction01 | None = Field(None, description="a trace's nodes = floor(MaxProcs x (1 - reduction))")
    parallel: Literal["split", "drop"] = Field("split", description="a trace's parallel jobs: split or drop")
    skip_bad_lines: bool = Field(False, description="skip a trace's malformed lines (and say how many)")
    synthetic: dict | None = Field(None, description="the generator's or the model's parameters (tables below)")
    model: str | None = Field(None, description="a workload model file (.toml), with source = 'synthetic'")
    hetero: dict | None = Field(None, description="the pricing market's cluster (table below)")
    file: str | None = Field(None, description="a pricing market file (.npz with A and R), with source = 'hetero'")

    @field_validator("source")
    @classmethod
    def _known_source(cls, v: str, info: ValidationInfo):
        """A generator, a known trace, or a trace file (one that exists relative to the study, or a name
        ending in .swf or .swf.gz that ``gamemarket workload fetch`` or the user will provide)."""
        base = Path((info.context or {}).get("base", "."))
        key = v[: -len(".swf.gz")] if v.endswith(".swf.gz") else v
        if not v.strip():
            raise ValueError("expected a source (a generator, a known trace or a trace file), got an empty string")
        if v not in generator_sources() and key not in KNOWN_TRACES and (base / v).is_dir():
            raise ValueError(
                f"{v!r} is a folder ({(base / v).resolve()}); expected a trace file (.swf or .swf.gz) inside it, "
                "relative to the study file"
            )
        if v in generator_sources() or key in KNOWN_TRACES or (base / v).exists() or v.endswith((".swf", ".gz")):
            return v
        generators = ", ".join(repr(g) for g in sorted(generator_sources(), reverse=True))
        raise ValueError(
            f"{v!r} is not {generators}, a known trace ({', '.join(sorted(KNOWN_TRACES))}) or a trace file "
            f"(.swf or .swf.gz; looked for in {base.resolve()})"
        )

    @model_validator(mode="after")
    def _fields_fit_the_source(self):
        given = {k for k in type(self).model_fields if k != "source" and k in self.model_fields_set}
        if "nodes" in given and "reduction" in given:
            raise ValueError(
                f"give either 'nodes' or 'reduction', not both (nodes = {self.nodes}, reduction = {self.reduction})"
            )
        allowed = GENERATOR_FIELDS.get(self.source, TRACE_FIELDS)
        if self.source == "hetero" and "hetero" in given and "file" in given:
            raise ValueError("give either a [workload.hetero] table or a 'file', not both")
        extra = sorted(given - allowed)
        if extra:
            # every source it applies to ('nodes': a trace and the generator, not the pricing market)
            where = [f"source = {s!r}" for s, f in GENERATOR_FIELDS.items() if extra[0] in f]
            where = (["a trace"] if extra[0] in TRACE_FIELDS else []) + where
            raise ValueError(
                f"field {extra[0]!r} applies to {' or '.join(where)}, not to source {self.source!r}: it would have no "
                "effect"
            )
        return self


# ---------------------------------------------------------------------------- [bids]
class BidsTable(Table):
    """The private bids: a mixture of normal components truncated to [lo, hi] (market model section 3)."""

    components: list[Annotated[list[float], Field(min_length=3, max_length=3)]] = Field(
        [[0.8, 30.0, 15.0], [0.2, 150.0, 15.0]],
        min_length=1,
        max_length=100,
        description="[weight, mean, sd] per component; weights sum to 1",
    )
    lo: NonNegative = Field(0.0, le=MAX_BID, description="lowest private bid")
    hi: Positive = Field(180.0, le=MAX_BID, description="highest private bid")


# ---------------------------------------------------------------------------- [strategies]
class SchedulingProvider(Table):
    """A provider strategy of the scheduling market: a scheduler, a payment scheme, a reserve price."""

    kind: Literal["scheduling"] = "scheduling"
    scheduler: str = Field(description="a registered scheduler (hb, nphb, wspt, wspt-est, fcfs, ...)")
    payment: str = Field(description="a registered payment scheme (first, kth, ...), or blend")
    reserve: NonNegative = Field(1.0, le=MAX_BID, description="reservation price r: the lowest price per node-second")
    blend: float | None = Field(
        None, ge=0, le=1, description="payment blend: alpha x first price + (1 - alpha) x k-th price (payment blend)"
    )
    preemption_overhead: float = Field(0.0, description="seconds lost per preemption; only 0 is implemented")
    description: str = ""

    @field_validator("preemption_overhead")
    @classmethod
    def _only_free(cls, v):
        if v != 0:
            raise ValueError("only 0 (free preemption and migration) is implemented")
        return v


class PricingProvider(Table):
    """A provider strategy of the pricing market: a price-discovery mechanism and its reserve or posted prices."""

    kind: Literal["pricing"]
    mechanism: str = Field(description="a registered pricing mechanism")
    reserve: Price | list[Price] | None = Field(None, description="a reserve price, or one per resource")
    prices: Price | list[Price] | None = Field(None, description="posted prices, or one per resource")
    description: str = ""


#: each market's provider table, by the provider's ``kind``
PROVIDER_TABLES = {"scheduling": SchedulingProvider, "pricing": PricingProvider}


class StrategiesTable(Table):
    """The strategies a study plays: names from the catalogues (``strategies/*.toml``) or defined inline."""

    providers: list[str] = Field(["hb-first", "hb-kth"], min_length=1, description="the provider strategies")
    consumers: list[str] = Field(
        ["FT", "SRG"], min_length=1, description="the consumer strategies ('grid:*': every grid cell)"
    )
    provider_file: str | None = Field(None, description="a provider catalogue (default: the built-in one)")
    consumer_file: str | None = Field(None, description="a consumer catalogue (default: the built-in one)")
    provider: dict[str, dict] = Field({}, description="inline provider strategies ([strategies.provider.NAME])")
    consumer: dict[str, dict] = Field({}, description="inline consumer strategies ([strategies.consumer.NAME])")

    @model_validator(mode="after")
    def _each_listed_once(self):
        for kind, names in (("provider", self.providers), ("consumer", self.consumers)):
            if _listed_twice(names):
                raise ValueError(f"a {kind} strategy is listed twice: {_listed_twice(names)}")
        return self


class ReplicationsTable(Table):
    """The replication seeds: every profile runs once per seed, all profiles with the same draws."""

    seeds: list[Seed] | None = Field(None, min_length=1, max_length=100_000, description="the seeds")
    count: Count = Field(5, le=100_000, description="with no 'seeds': this many seeds ...")
    first: Seed = Field(1, description="... from this one")

    @model_validator(mode="after")
    def _seeds_or_count(self):
        if self.seeds is not None and self.model_fields_set & {"count", "first"}:
            raise ValueError("give either 'seeds' or 'count' (and 'first'), not both")
        if self.seeds is not None and len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"'seeds' has duplicates: {self.seeds}")
        last = self.first + self.count - 1
        if self.seeds is None and last > SEED_MAX:
            raise ValueError(
                f"fields 'first' and 'count': the seeds {self.first}..{last} pass the largest seed, {SEED_MAX} "
                f"(2**63 - 1); expected first <= {SEED_MAX - self.count + 1} for {self.count} seeds"
            )
        return self


class GameEntry(Table):
    """A game of a bimatrix study: which payoff each side maximises."""

    name: str | None = Field(None, min_length=1, max_length=100, description="the game's name (names its files)")
    provider: str = Field("revenue", description="the provider's payoff (revenue, utilization, welfare)")
    consumer: str = Field("mean_utility", description="the consumers' payoff (mean_utility, mean_utility_SHORT, ...)")

    @field_validator("provider", "consumer")
    @classmethod
    def _a_payoff(cls, v: str, info: ValidationInfo):
        known = PROVIDER_PAYOFFS if info.field_name == "provider" else CONSUMER_PAYOFFS
        if v not in known:
            raise ValueError(f"{v!r} is not one of {known}")
        return v


#: a path written as a shell writes one, "~/x", "~user/x", "$HOME/x", "${HOME}/x": a study's paths are not expanded
SHELL_PATH = re.compile(r"^~|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")


def not_a_shell_path(value: str | None) -> str | None:
    """An output folder as given, refused where it is written as a shell would expand it (hunt 20a-W4: ``~/gm`` and
    ``$HOME/gm`` made folders named ``~`` and ``$HOME`` beside the study, a later ``rm -rf ~`` away from harm)."""
    if value is not None and not value.strip():  # (taken as the default folder, in silence: hunt 39a-W3)
        raise ValueError("is empty; leave the field out for the default folder (beside the study file, by its name)")
    if value is not None and SHELL_PATH.search(value):
        raise ValueError(
            f"{value!r} is not expanded (no '~' or '$VARIABLE': a study's paths are taken as written, relative to "
            "the study file); write the folder's whole path, or a path relative to the study file"
        )
    return value


#: a line that opens a Markdown block of its own: a heading, a quote, a table row, a list item, a fence
BLOCK_LINE = re.compile(r"^\s*(#|>|\||[-*+]\s|\d+[.)]\s|```|~~~)")


def one_paragraph(value: str) -> str:
    """A description as the report prints it, one paragraph in italics: a blank line, a heading, a list, a quote
    or a table would break out of it among the report's own sections (hunt 20d-W12)."""
    lines = value.strip().splitlines()
    if any(not line.strip() for line in lines):
        raise ValueError("expected one paragraph (the report prints it in italics at its top): no blank line")
    block = next((line for line in lines if BLOCK_LINE.match(line)), None)
    if block is not None:
        raise ValueError(
            f"expected one paragraph (the report prints it in italics at its top): the line {block.strip()[:40]!r} "
            "opens a heading, list, quote or table of its own"
        )
    return value


class OutputTable(Table):
    """Where the study writes (relative to the study file; the CLI's --results and --report override)."""

    results: Annotated[str | None, AfterValidator(not_a_shell_path)] = Field(
        None, description="results folder (default: results/NAME beside the study file)"
    )
    report: Annotated[str | None, AfterValidator(not_a_shell_path)] = Field(
        None, description="report folder (default: reports/NAME beside the study file)"
    )

    def overlap(self, base: Path) -> str | None:
        """The complaint when the results and report folders (relative to ``base``) are one folder or one inside
        the other, else None; folders not given (the defaults, ``results/NAME`` and ``reports/NAME``) never are."""
        if self.results is None or self.report is None:
            return None
        try:
            res, rep = (base / self.results).resolve(), (base / self.report).resolve()
        except (OSError, RuntimeError, ValueError):  # a NUL byte, a symlink loop: the study's reader says which
            return None
        if not (res == rep or res in rep.parents or rep in res.parents):
            return None
        how = "one folder" if res == rep else "one inside the other"
        return (
            f"[output] the results and report folders are {how} ({res}, {rep}); give each its own folder, so that "
            "neither writes over the other's files"
        )


#: the consumer strategies the shading-gain experiment (``[gains]``) compares: truthful FT, everyone by SRG, and 1%
#: shading by 0.9 (DEV1); a study with ``[gains]`` lists each (``StudySpec`` checks it when the study is read)
GAINS_STRATEGIES = ("FT", "SRG", "DEV1")


#: the seeds of one market size of ``[gains]``: at least 2 (a t-interval), at most [replications]' most
GainsSeeds = Annotated[int, Field(ge=2, le=100_000)]


class GainsTable(Table):
    """The shading-gain experiment over market sizes (pricing-market studies of a generated market: each size
    replaces ``[workload.hetero] jobs``; a market file, ``[workload] file``, fixes its size and refuses it)."""

    jobs: list[Annotated[int, Field(ge=1, le=HETERO_MAX_JOBS)]] = Field(  # (the generator's bound: 1e12 was taken)
        min_length=1,
        max_length=100,
        description="market sizes in jobs, each listed once (each replaces [workload.hetero] jobs)",
    )
    seeds: GainsSeeds | list[GainsSeeds] = Field(10, description="seeds per size: one count, or one per size")
    first: Seed = Field(1, description="the first seed")

    @model_validator(mode="after")
    def _sizes_once_one_count_each(self):
        # a size listed twice ran its derived study (the same seeds, one results folder) once, and its seeds were
        # pooled twice: counted as twice as many, a narrower interval (hunt 18b, F4)
        if _listed_twice(self.jobs):
            raise ValueError(
                f"field 'jobs': a market size is listed twice: {_listed_twice(self.jobs)} (in {self.jobs}); "
                "expected each size once"
            )
        if isinstance(self.seeds, list) and len(self.seeds) != len(self.jobs):
            raise ValueError(
                f"field 'seeds': {len(self.seeds)} count(s) {self.seeds} for {len(self.jobs)} size(s) {self.jobs} in "
                f"'jobs'; expected one count >= 2 per size (or one count for every size)"
            )
        most = max(self.seeds) if isinstance(self.seeds, list) else self.seeds
        if self.first + most - 1 > SEED_MAX:
            raise ValueError(
                f"fields 'first' and 'seeds': the seeds {self.first}..{self.first + most - 1} pass the largest seed, "
                f"{SEED_MAX} (2**63 - 1); expected first <= {SEED_MAX - most + 1} for {most} seeds"
            )
        return self


class PaperTable(Table):
    """The source paper's own figures for the workload (its Table 1), printed beside the measured ones."""

    source: str | None = Field(None, description="the paper and its table")
    jobs: Positive | None = Field(None, description="number of (serial) jobs")
    nodes: Positive | None = Field(None, description="nodes")
    mean_runtime: Positive | None = Field(None, description="mean run time in seconds")


class PopulationSettings(Table):
    """The population game's settings (``[game] kind = "population"``), also checked when a
    ``PopulationConfig`` is built in Python."""

    agents: Literal["jobs", "users"] = Field(
        "jobs", description="the players: jobs, or users (SWF field 12; a user's payoff is the sum over its jobs)"
    )
    reduced_players: int = Field(4, ge=2, le=12, description="players of the deviation-preserving reduction")
    probe: float = Field(0.005, gt=0, le=0.05, description="width of each deviation's probe slice")
    regret_tol: float = Field(0.01, gt=0, lt=1, description="regret tolerance, relative to truthful utility")
    max_seeds: int = Field(0, ge=0, le=100_000, description="adaptive seed budget per mechanism (0: none)")
    seed_step: Count = Field(2, le=100_000, description="seeds added at a time")
    joint: bool = Field(
        True,
        description="solve the provider-and-consumers game with a mixed provider (its runs: every consumer "
        "composition under every mechanism); the pure-provider answer is given either way",
    )
    outside_price: float | None = Field(
        None,
        ge=0,
        le=MAX_RESERVE,  # (hunt 20c-F5: 1e306 overflowed a leaver's utility to -inf after the runs began)
        description="the outside option's posted price per node-second (no wait), at most the highest reserve; "
        "rules with 'leave' send jobs there (market model, 'The outside option'); none: no job can leave",
    )


class InlineStrategy(Table):
    """An inline consumer strategy: the entry of the family it names (``family``), whose own table checks
    the other fields (``gamemarket.consumers``; below, the per-class and piecewise tables)."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True, allow_inf_nan=False)

    family: str = Field("per-class", description="the strategy's family: per-class, piecewise, ...")


class ExplorationTable(Table):
    """Strategy exploration of a population game (``[game] exploration = {...}``): a best-response search over a
    family of shading rules grows each mechanism's menu (``gamemarket.search.exploration``)."""

    family: str = Field(
        description="the parametric family searched: per-class (a beta per private-bid class), piecewise (beta "
        "linear in the private bid on 7 knots over [0, 180]), or a plugin's (checked once the study's plugins "
        "are loaded, with the bounds and the optimiser)"
    )
    budget: Count = Field(le=10**9, description="the most simulations (market runs) per mechanism")
    optimiser: Literal["nelder-mead", "differential_evolution", "direct", "optuna-tpe"] = Field(
        "nelder-mead", description="the derivative-free search (scipy.optimize; optuna-tpe: optuna's TPE, seeded)"
    )
    bounds: list[Fraction01] = Field(
        [0.0, 0.99],
        min_length=2,
        max_length=2,
        description="[lower, upper] of every parameter, in [0, 1), within the family's declared bounds",
    )
    evaluations: Count = Field(60, le=100_000, description="the most candidates one search evaluates")
    confirm_seeds: int = Field(
        10,
        ge=2,
        le=100_000,
        description="the most fresh seeds a certificate evaluates a rule on (its last look; every rule the search "
        "evaluated is run on fresh seeds)",
    )
    first_seeds: int = Field(
        4, ge=2, le=100_000, description="the fresh seeds of a certificate's first look (then doubled up to the cap)"
    )
    search_seeds: int | None = Field(
        None, ge=1, le=100_000, description="how many of the study's seeds a search uses (default: all of them)"
    )
    probe: float | None = Field(
        None,
        gt=0,
        le=0.1,
        description="the probe agents' share of all agents in the oracle's and the certificates' paired runs "
        "(default: [game] probe)",
    )

    @model_validator(mode="after")
    def _bounds_in_order(self):
        if not self.bounds[0] < self.bounds[1]:
            raise ValueError(f"field 'bounds': expected lower < upper, got {list(self.bounds)}")
        if self.first_seeds > self.confirm_seeds:  # the first look's seeds are the cap's first ones
            raise ValueError(
                f"field 'first_seeds' ({self.first_seeds}) is above 'confirm_seeds' ({self.confirm_seeds}), the most "
                "fresh seeds a certificate looks at; expected first_seeds <= confirm_seeds"
            )
        return self


class GameTable(PopulationSettings):
    """The game a study analyses: the bimatrix game (default) or the population game."""

    kind: Literal["bimatrix", "population"] = Field("bimatrix", description="")
    strategies: list[str] | None = Field(None, min_length=2, description="the shading rules played")
    shading: dict[str, InlineStrategy] = Field({}, description="inline shading rules ([game.shading.NAME])")
    shading_file: str | None = Field(None, description="a shading-rule catalogue (default: the built-in one)")
    exploration: ExplorationTable | None = Field(None, description="strategy exploration of the population game")
    resamples: int | None = Field(None, description="no longer read (a population game's verdicts use no bootstrap)")

    @model_validator(mode="after")
    def _resamples_read_by_nothing(self):
        # a population game's regret intervals were a bootstrap of this many resamples; they are Student-t bounds
        # over the seeds now (``gamemarket.confidence.regret_interval``), so the field would have no effect
        if self.resamples is not None:
            raise ValueError(
                "field 'resamples': no longer read: a population game's regret intervals are Student-t bounds over "
                "its seeds, not a bootstrap (a bimatrix study's robustness takes `--resamples` on the command line); "
                "leave it out"
            )
        return self

    @model_validator(mode="after")
    def _population_fields_need_a_population_game(self):
        if self.kind == "bimatrix":
            extra = sorted(self.model_fields_set - {"kind"})
            if extra:
                raise ValueError(f"field {extra[0]!r} applies to kind = 'population'; it would have no effect here")
        return self


#: what a design search's objective and constraint may name: the provider's figures at the consumers' equilibrium
#: (``stay`` and ``welfare_all`` need ``[game] outside_price``)
DESIGN_METRICS = ("revenue", "welfare", "welfare_all", "stay", "utilization")
#: the design metrics that are shares of their whole, in [0, 1]
SHARE_METRICS = ("stay", "utilization")
#: the design metrics never above 0: sums of valuations, -w x flow time (a leaver's, -w x run time - c x run time)
NON_POSITIVE_METRICS = ("welfare", "welfare_all")
#: the design search's optimisers: bayes_opt's Gaussian process (a noise term fitted), optuna's TPE, a regular grid
DESIGN_OPTIMISERS = ("gp", "tpe", "grid")
#: the largest seed of a design search's optimiser: numpy's ``RandomState`` (bayes_opt's, optuna's TPE) takes less
#: than 2**32
DESIGN_SEED_MAX = 2**32 - 1
#: the largest size of a weight of the objective: a weight past it could carry the objective (a weighted sum of
#: figures of up to about MAX_BID bid x seconds a job) past a float's range, to ``inf``
DESIGN_WEIGHT_MAX = 1e12


class DesignTable(Table):
    """Mechanism design (``[design]``): the provider's best point of a family of mechanisms when the consumers play
    the population game's equilibrium at each point (``gamemarket.search.design``)."""

    schedulers: list[str] = Field(
        ["hb"], min_length=1, max_length=20, description="the family's schedulers, each searched over its own box"
    )
    payment: str = Field("blend", description="blend (its alpha searched or fixed by 'blend'), or a fixed scheme")
    reserve: float | list[float] = Field(
        description="the reserve r: [0, R] to search it, or one number to fix it (per node-second)"
    )
    blend: float | list[float] | None = Field(
        None, description="payment blend alpha: [low, high] within [0, 1] to search it, one number to fix it"
    )
    objective: dict[str, float] = Field(
        {"revenue": 1.0}, description="weight per metric (revenue, welfare, welfare_all, stay, utilization)"
    )
    constraint: dict[str, float] = Field({}, description="the least mean of a metric a design must reach")
    budget: Count = Field(le=100_000, description="the design points searched per scheduler")
    optimiser: Literal["gp", "tpe", "grid"] = Field(
        "gp", description="gp (bayes_opt, a noise term fitted), tpe (optuna, seeded) or grid (exhaustive)"
    )
    confirm_seeds: int = Field(8, ge=2, le=100_000, description="fresh seeds of the chosen design's confirmation")
    contenders: int = Field(4, ge=1, le=100, description="the best designs confirmed beside the chosen one")
    seed: int = Field(
        0, ge=0, le=DESIGN_SEED_MAX, description="the optimiser's seed: below 2**32, as numpy's and optuna's"
    )
    compare: list[str] | None = Field(
        None, description="fixed mechanisms shown beside the design (default: the study's providers)"
    )
    explore: bool = Field(
        False,
        description="at each point, grow the menu by the study's [game.exploration] (warm-started from the nearest "
        "point's grown menu) before reading the users' equilibrium",
    )

    @model_validator(mode="after")
    def _fields(self):
        # the reserve's bound is the market's (``Mechanism``, simulate's --reserve): hunt 18a, W4, ``reserve = [0,
        # 1e300]`` passed `study status` and stopped `study run` after two design points, naming no file or field
        for field, b, lo_ok, hi in (("reserve", self.reserve, 0.0, MAX_RESERVE), ("blend", self.blend, 0.0, 1.0)):
            vals = b if isinstance(b, list) else [] if b is None else [b]
            if isinstance(b, list) and (len(b) != 2 or not b[0] < b[1]):
                raise ValueError(f"field {field!r}: expected [low, high] with low < high, or one number, got {b}")
            for v in vals:
                if not (math.isfinite(v) and lo_ok <= v <= hi):
                    raise ValueError(
                        f"field {field!r}: {v!r} is outside the family's bounds: expected in [{lo_ok:g}, {hi:g}]"
                    )
        if self.payment == "blend" and self.blend is None:
            raise ValueError("field 'blend': payment 'blend' needs its alpha: [low, high] within [0, 1], or a number")
        # (a payment no scheme is named is said first, by the design's own check: hunt 26a-W4 blamed 'blend')
        if self.payment != "blend" and self.blend is not None and self.payment in PAYMENTS:
            raise ValueError(f"field 'blend' applies to payment 'blend', not {self.payment!r}")
        for table in ("objective", "constraint"):
            for k, v in getattr(self, table).items():
                if k not in DESIGN_METRICS:
                    raise ValueError(
                        f"field {table!r}: unknown metric {shown_name(k)}; expected one of {list(DESIGN_METRICS)}"
                    )
                most = DESIGN_WEIGHT_MAX if table == "objective" else math.inf
                if not (math.isfinite(v) and abs(v) <= most):
                    within = f" within [-{most:g}, {most:g}]" if table == "objective" else ""
                    raise ValueError(f"field {table!r}: metric {k!r}: expected a finite number{within}, got {v!r}")
                if table == "constraint" and k in SHARE_METRICS and not 0 <= v <= 1:
                    raise ValueError(
                        f"field 'constraint': metric {k!r} is a share, so no design reaches {v!r}; expected a least "
                        "mean in [0, 1]"
                    )
                if table == "constraint" and k in NON_POSITIVE_METRICS and v > 0:  # (hunt 20a-W5)
                    raise ValueError(
                        f"field 'constraint': metric {k!r} is a sum of valuations -w x time, never above 0, so no "
                        f"design reaches {v!r}; expected a least mean <= 0"
                    )
        if not self.objective or not any(v != 0 for v in self.objective.values()):
            raise ValueError("field 'objective': expected a non-zero weight on at least one metric")
        return self


class PluginsTable(Table):
    """Plugins the study loads before it reads its strategies: schedulers (priority keys or event hooks), payment
    schemes, consumer-strategy families and provider strategies written outside the package (``gamemarket.plugins``).
    Loading a plugin runs its code: name only files you trust."""

    modules: list[str] = Field(
        [], max_length=100, description="plugin files (.py, relative to the study file) or installed entry points"
    )


class StudyFile(Table):
    """A study file: its top-level fields and tables."""

    # in the order StudySpec.to_dict writes them (a table's text keeps its order: the scalars, then the tables)

    name: str | None = Field(None, description="names the results and report folders (default: the file's stem)")
    description: Annotated[str, AfterValidator(one_paragraph)] = Field(
        "", description="a paragraph the report opens with (one: no blank line, heading, list or table)"
    )
    plugins: PluginsTable = Field(PluginsTable(), description="plugins loaded first (loading runs their code)")
    workload: WorkloadTable = Field(WorkloadTable(), description="the jobs")
    bids: BidsTable = Field(BidsTable(), description="the private bids")
    strategies: StrategiesTable = Field(StrategiesTable(), description="the strategies played")
    replications: ReplicationsTable = Field(ReplicationsTable(), description="the seeds")
    games: list[GameEntry] = Field([], max_length=100, description="the bimatrix games ([[games]])")
    output: OutputTable = Field(OutputTable(), description="where results and the report go")
    companions: list[str] = Field(
        [], description="studies run and reported alongside, their own companions first (files)"
    )
    population_study: str | None = Field(None, description="a population study the discussion quotes (file)")
    gains: GainsTable | None = Field(None, description="the shading-gain experiment")
    paper: PaperTable | None = Field(None, description="the source paper's Table 1 figures")
    game: GameTable | None = Field(None, description="the game's kind and a population game's settings")
    design: DesignTable | None = Field(None, description="mechanism design over a family of provider mechanisms")
    notes: str = Field(
        "",
        description=(
            "the report's discussion: Markdown with computed fields such as {claim.c1.ci}; a literal brace is "
            "written twice, {{ and }}"
        ),
    )

    @field_validator("name")
    @classmethod
    def _name_is_a_path_part(cls, v, info: ValidationInfo):
        if v is not None and not is_name(v):
            raise ValueError(
                f"{v!r} must be 1-100 ASCII letters (a-z, A-Z), digits, '.', '_' or '-', starting with a letter or "
                "digit, without '..' (it names the results and report folders)"
            )
        return v

    # the rules across tables say where they are themselves (a top-level error names no table)
    @model_validator(mode="after")
    def _providers_fit_the_workload(self, info: ValidationInfo):
        """Every provider strategy played whose table is here (a study's written out: all of them) belongs to the
        workload's market."""
        source = self.workload.source
        want = market_for_workload(source).kind
        for name in self.strategies.providers:
            kind = self.strategies.provider.get(name, {}).get("kind", want)
            if kind != want and kind in MARKETS:  # a kind of no market: the provider's table says so
                raise ValueError(
                    f"[strategies] provider {name!r} is a {kind} mechanism but the workload ({source}) needs {want} "
                    "mechanisms"
                )
        return self

    @model_validator(mode="after")
    def _names_make_distinct_files(self):
        """Names that name a report's files (a bimatrix study's games; a population study's mechanisms) make
        distinct file names: checked here, before anything is simulated, not where the files are written."""
        named = [("[[games]]", "game", [g.name or f"game {k + 1}" for k, g in enumerate(self.games)])]
        if self.game is not None and self.game.kind == "population":
            named.append(("[strategies] providers", "mechanism", list(self.strategies.providers)))
        for where, what, names in named:
            seen: dict[str, str] = {}
            for name in names:
                if not str(name).isprintable():  # (a game named with U+202E or U+0085: raw in data/ and the
                    # figures' titles, hunt 36a-W5)
                    raise ValueError(
                        f"{where}: the {what} name {name!r} holds a control or format character (a line break, a "
                        "bidirectional override); expected printable text"
                    )
                try:
                    key = slug(name, what)
                except InputError as exc:
                    raise ValueError(f"{where}: {exc}") from None
                if key in seen:
                    raise ValueError(
                        f"{where}: the {what}s {seen[key]!r} and {name!r} make one file name ({key!r}: a report "
                        f"names a {what}'s files by its name in lower case, other characters as '-'); give them "
                        "distinct names"
                    )
                seen[key] = name
        return self

    @model_validator(mode="after")
    def _population_reads_no_bimatrix_field(self):
        """A population (or design) study plays its [game] menu against its mechanisms: the provider/consumer study's
        fields would have no effect there (hunt 20a-W1: [[games]] and [strategies] consumers were read past), as
        [game]'s population fields are refused in a provider/consumer study."""
        if self.game is None or self.game.kind != "population":
            return self
        given = [
            name
            for name, used in (
                ("[[games]]", bool(self.games)),
                ("[strategies] consumers", "consumers" in self.strategies.model_fields_set),
                ("[strategies.consumer.*]", bool(self.strategies.consumer)),
                ("[strategies] consumer_file", self.strategies.consumer_file is not None),
                ("companions", bool(self.companions)),
                ("population_study", self.population_study is not None),
                ("[gains]", self.gains is not None),
                ("[paper]", self.paper is not None),  # (the paper's Table 1 beside its claims: hunt 21a-W1)
            )
            if used
        ]
        if given:
            raise ValueError(
                f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to a provider/consumer study; a "
                "population study's consumers play the [game] strategies (its menu) against the [strategies] "
                "providers, so it would have no effect here: leave it out"
            )
        return self

    @model_validator(mode="after")
    def _seed_step_needs_max_seeds(self):
        """``seed_step`` paces the seeds added up to ``max_seeds``: without it no seed is added, and the step would
        have no effect (hunt 22a-F6)."""
        game = self.game
        default = PopulationSettings.model_fields["seed_step"].default  # (by value: see the design's rule)
        if game is not None and game.kind == "population" and game.max_seeds:
            reps = self.replications
            seeds = len(reps.seeds) if reps.seeds is not None else reps.count
            if game.max_seeds < seeds:  # (hunt 25a-W2: accepted in silence, with no effect, as if it capped them)
                raise ValueError(
                    f"[game] field 'max_seeds' = {game.max_seeds} is below the study's own {seeds} seeds "
                    "([replications]), which are all run: seeds are added past them up to max_seeds, so it would have "
                    f"no effect; expected max_seeds >= {seeds} (equal: the study's seeds only, as 0), or fewer seeds"
                )
        if game is not None and game.kind == "population" and game.seed_step != default:
            if not game.max_seeds:
                raise ValueError(
                    "[game] field 'seed_step' would have no effect: seeds are added only up to max_seeds, which is "
                    "not set (0: the study's seeds only); set max_seeds, or leave seed_step out"
                )
        return self

    @model_validator(mode="after")
    def _design_needs_a_population_game(self):
        if self.design is None:
            return self
        if self.game is None or self.game.kind != "population":
            raise ValueError("[design] needs a population game ([game] kind = 'population'): the consumers' answer")
        if self.design.explore and self.game.exploration is None:
            raise ValueError("[design] field 'explore': needs [game.exploration] (the family, budget and seeds)")
        # (by value, not by the fields given: a study written out holds every field at its default; joint, true by
        # default, is left alone)
        defaults = PopulationSettings.model_fields
        ignored = [f for f in ("max_seeds", "seed_step") if getattr(self.game, f) != defaults[f].default]
        if ignored:  # (hunt 22a-F6: a design's answer with max_seeds = 4 was the one without, field by field)
            raise ValueError(
                f"[game] field(s) {ignored} would have no effect in a design study: each design point's users' "
                "answer is searched on the study's seeds and confirmed on fresh ones ([design] confirm_seeds), and "
                "the provider's choice is the design search's; leave them out"
            )
        if not self.design.explore and self.game.exploration is not None:  # (hunt 21a-W1: nothing was explored)
            raise ValueError(
                "[game.exploration] would have no effect: a design study explores its users' answer only with "
                "[design] explore = true; set it, or leave the table out"
            )
        needs = sorted({"stay", "welfare_all"} & (set(self.design.objective) | set(self.design.constraint)))
        if needs and self.game.outside_price is None:
            raise ValueError(f"[design] metric {needs[0]!r} needs an outside option: set [game] outside_price")
        return self

    @model_validator(mode="after")
    def _folders_apart(self, info: ValidationInfo):
        overlap = self.output.overlap(Path((info.context or {}).get("base", ".")))
        if overlap:
            raise ValueError(overlap)
        return self

    @model_validator(mode="after")
    def _notes_quote_fields(self):
        kind = "a design study" if self.design is not None else None
        kind = kind or ("a population study" if self.game is not None and self.game.kind == "population" else None)
        if self.notes.strip() and kind:  # its report has no discussion: the text was accepted and printed nowhere
            raise ValueError(
                f"'notes' would have no effect: {kind}'s report has no discussion; a provider/consumer study that "
                "names it as population_study quotes its numbers ({population.<mechanism>.truthful}, ...)"
            )
        braces = note_brace_problem(self.notes)
        if braces:
            raise ValueError(f"'notes': {braces}")
        typed = typed_numbers(self.notes)
        if typed:
            raise ValueError(
                f"'notes' quotes the number(s) {typed[:5]} as typed text; a discussion quotes computed numbers as "
                "fields such as {claim.c1.ci} (see gamemarket.reports.discussion), and references as they are (Fig. 3, "
                "Table 1, Section 4, claim (4), a citation's year: (2010) or et al. 2010, a link or a DOI)"
            )
        if self.population_study is not None and not any(f.startswith("population.") for f in note_fields(self.notes)):
            raise ValueError(  # (hunt 20a-W7: it was run, hours on a real study, and nothing of it was used)
                f"population_study {self.population_study!r} would have no effect: the discussion ('notes') quotes "
                "none of its fields ({population.<mechanism>.truthful}, {population.leader}, ...), and nothing else "
                "in the report reads it"
            )
        # a field's kind is known before any run (its key only once the analysis has it): a misspelt kind is named
        # now, not after every simulation
        for f in note_fields(self.notes):
            problem = note_field_problem(f)
            if problem:
                raise ValueError(f"'notes' field {{{f}}}: {problem}")
        return self


def study_file_reference() -> str:
    """The Markdown reference of the study file (every table and field), generated from this schema."""
    parts = [
        "# The study file\n",
        "A study is a TOML file. Every table and field it may hold is listed here, with its type, range, "
        "default and meaning; this page is generated from the declarations that check a study "
        "(`gamemarket/studies/schema.py`), so it says exactly what is accepted. An unknown field, a value of "
        'the wrong type (an integer field refuses `300.5`, `"many"` and `true`), a value out of range, and a '
        "field that would have no effect for the workload's source are errors that name the file, the table, "
        "the field and the value.\n",
        reference(StudyFile, "top level"),
        "## Tables inside the tables\n",
        reference(SyntheticTable, "[workload.synthetic]", level=3),
        reference(ModelDrawTable, "[workload.synthetic] with a model", level=3),
        reference(HeteroTable, "[workload.hetero]", level=3),
        reference(SchedulingProvider, "[strategies.provider.NAME] (scheduling market)", level=3),
        reference(PricingProvider, "[strategies.provider.NAME] (pricing market)", level=3),
        reference(ConsumerMix, "[strategies.consumer.NAME]", level=3),
        reference(ConsumerGrid, "[strategies.consumer.grid]", level=3),
        reference(ShadingEntry, "[game.shading.NAME]", level=3),
        reference(PiecewiseEntry, '[game.shading.NAME] with family = "piecewise"', level=3),
    ]
    return "\n".join(parts)
