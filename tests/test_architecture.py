"""The layering of the package, checked on its imports (every import, module-level or inside a function).

Data flow one way: workload -> bids -> market -> outcomes -> payoffs -> game -> equilibria -> analysis ->
report. Parts are the sub-packages (``market``, ``studies``, ...) and the few base modules (``errors``,
``registry``, ``bids``, ``confidence``)."""

import argparse
import ast
import functools
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "gamemarket"
COMPUTING = {
    "workloads",
    "bids",
    "consumers",
    "market",
    "pricing",
    "games",
    "studies",
    "analysis",
    "io",
    "confidence",
    "errors",
    "registry",
    "testing",
    "plugins",
    "search",
    "workers",
}
DRAWING = ("matplotlib", "seaborn")


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    me = _module(path)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = me.split(".")[: len(me.split(".")) - node.level + (1 if path.name == "__init__.py" else 0)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            if mod == "gamemarket":  # from gamemarket import bids: the names may be modules
                out.update(f"gamemarket.{a.name}" for a in node.names)
    return out


def _part(module: str) -> str | None:
    bits = module.split(".")
    if bits[0] != "gamemarket" or len(bits) < 2:
        return None
    return bits[1]


MODULES = {_module(p): _imports(p) for p in PKG.rglob("*.py")}
KNOWN = {_part(m) for m in MODULES} - {None}


def _edges():
    edges = {}
    for mod, imps in MODULES.items():
        src = _part(mod)
        for i in imps:
            dst = _part(i)
            if src and dst and dst in KNOWN and dst != src and dst not in ("__version__", "MODEL_VERSION"):
                edges.setdefault(src, {}).setdefault(dst, set()).add(f"{mod} -> {i}")
    return edges


def test_every_module_sits_in_a_part_and_no_loose_modules_are_left():
    loose = sorted(
        m
        for m in MODULES
        if m.count(".") == 1
        and _part(m)
        not in {
            "errors",
            "registry",
            "bids",
            "consumers",
            "confidence",
            "__main__",
            "cli",
            "analysis",
            "io",
            "market",
            "pricing",
            "games",
            "studies",
            "workloads",
            "reports",
            "testing",
            "plugins",
            "search",
            "workflow",
            "workers",
        }
    )
    assert loose == []


def test_no_import_cycle_between_parts():
    edges = _edges()
    graph = {k: set(v) for k, v in edges.items()}

    def reach(a, seen):
        for b in graph.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    cycles = [(a, b, sorted(edges[a][b])[0]) for a in graph for b in graph[a] if a in reach(b, set())]
    assert cycles == []


@pytest.mark.parametrize("part", sorted(COMPUTING))
def test_computing_never_imports_drawing_reports_or_the_cli(part):
    bad = sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) == part
        for i in imps
        if i.split(".")[0] in DRAWING or _part(i) in ("reports", "cli")
    )
    assert bad == []


def test_nothing_outside_reports_draws():
    bad = sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) not in ("reports",)
        for i in imps
        if i.split(".")[0] in DRAWING
    )
    assert bad == []


def test_the_market_never_imports_studies_or_analysis():
    bad = sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) == "market"
        for i in imps
        if _part(i) in ("studies", "analysis")
    )
    assert bad == []


def test_the_studies_never_import_games():
    """The runner stores runs, it does not solve: the games and their equilibria are the analysis' (``analysis/``)."""
    bad = sorted(
        f"{m} -> {i}" for m, imps in MODULES.items() if _part(m) == "studies" for i in imps if _part(i) == "games"
    )
    assert bad == []


def test_the_search_sits_between_the_studies_and_the_reports():
    """The drivers that decide which runs to make next (``search/``) use the studies (runs), the games and the
    analysis (answers from stored runs); none of those imports a driver, so a driver's loop is in one place."""
    bad = sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) in ("studies", "analysis", "games", "market", "consumers", "workloads", "io")
        for i in imps
        if _part(i) == "search"
    )
    assert bad == []


def test_one_fan_out_below_everything_that_fans_out():
    """``workers.py`` decides where local work runs (in this process or a pool) for the studies, the search and the
    reports alike; it stands on the plugins (a task carries them to its worker) and nothing else of the package."""
    mine = sorted({_part(i) for i in MODULES["gamemarket.workers"]} - {None})
    assert mine == ["errors", "plugins"]
    users = sorted({_part(m) for m, imps in MODULES.items() if "gamemarket.workers" in imps} - {"workers"})
    assert users == ["reports", "search", "studies"]


def test_only_the_cli_calls_the_workflows():
    """``workflow/`` puts the other parts in the command line's order; it sits on top of them, under the CLI, so
    no part it calls can call it back (the package's own ``__init__`` offers its calls lazily)."""
    bad = sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) not in (None, "cli", "workflow")
        for i in imps
        if _part(i) == "workflow"
    )
    assert bad == []


#: what starts simulations: the runner's entry points, a market's runners, the fan-out, a store's ``ensure``
RUNNING_CALLS = {"ensure", "run_study", "run_gains", "fan_out", "payoff_runner", "run_chunk", "simulate", "run_market"}


def test_the_analysis_starts_no_simulation():
    """``analysis/`` goes from stored runs to answers: it imports no driver and calls nothing that runs the market
    (the loops that decide which runs to make are ``search/``'s)."""
    bad = []
    for path in sorted((PKG / "analysis").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
                if name in RUNNING_CALLS:
                    bad.append(f"{path.name}:{node.lineno} calls {name}")
    bad += sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) == "analysis"
        for i in imps
        if i in ("gamemarket.workers", "gamemarket.market.simulate")
    )
    assert bad == []


def test_pricing_stands_alone():
    bad = sorted(
        f"{m} -> {i}"
        for m, imps in MODULES.items()
        if _part(m) == "pricing"
        for i in imps
        if _part(i) not in (None, "pricing", "errors", "registry")
    )
    assert bad == []


def test_one_registry_kind_for_every_named_thing():
    from gamemarket.errors import InputError
    from gamemarket.market import PAYMENTS, SCHEDULERS
    from gamemarket.market.pricing_market import HETERO_MECHANISMS
    from gamemarket.pricing.utilities import UTILITIES
    from gamemarket.registry import Registry

    for reg, known in ((SCHEDULERS, "hb"), (PAYMENTS, "kth"), (HETERO_MECHANISMS, "clearing"), (UTILITIES, "log")):
        assert isinstance(reg, Registry) and known in reg and reg.get(known) is reg[known]
        with pytest.raises(InputError, match=rf"unknown {reg.what} 'nope'; expected one of \[.*'{known}'"):
            reg.get("nope")
        with pytest.raises(InputError, match="already registered"):
            reg.register(known, reg[known])


def test_one_bibliography():
    """Every ``.. [Key] citation`` in a module's References is in the README's References, same text."""
    import re

    readme = (PKG.parent / "README.md").read_text()
    bib = dict(re.findall(r"^- \[(\w+)\] (.+)$", readme.split("\n## References\n", 1)[1], flags=re.M))
    cited = {}
    for path in PKG.rglob("*.py"):
        for doc in (
            ast.get_docstring(n)
            for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
        ):
            for key, text in re.findall(r"^\.\. \[(\w+)\] (.+?)(?=^\.\. \[|\Z)", doc or "", flags=re.M | re.S):
                cited.setdefault(key, []).append((path.name, " ".join(text.split())))
    assert len(cited) >= 10
    for key, uses in cited.items():
        assert key in bib, f"{key} (cited in {uses[0][0]}) is not in the README's References"
        for where, text in uses:
            assert text.startswith(bib[key]), f"{where}: [{key}] differs from the README's entry"


def test_no_import_cycle_between_the_pricing_modules():
    """solver.py and torch_backend.py used to import each other; one algorithm per module, no cycle."""
    mods = {
        m: {i for i in imps if i.startswith("gamemarket.pricing.") and i in MODULES}
        for m, imps in MODULES.items()
        if m.startswith("gamemarket.pricing.")
    }

    def reach(a, seen):
        for b in mods.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    assert [m for m in mods if m in reach(m, set())] == []
    assert {"allocation", "dual", "repair", "newton", "identical", "solver"} <= {m.split(".")[-1] for m in mods}


def test_the_engine_and_the_reference_never_compare_with_a_registered_name():
    """The engine runs, and the plain reference reproduces, what an entry declares: neither tests for a name."""
    from gamemarket.market import PAYMENTS, SCHEDULERS
    from gamemarket.market.pricing_market import HETERO_MECHANISMS

    names = set(SCHEDULERS) | set(PAYMENTS) | set(HETERO_MECHANISMS)
    files = [PKG / "market" / f for f in ("engine.py", "simulate.py", "schedulers.py", "payments.py")]
    files += sorted((PKG / "testing").glob("*.py"))
    bad = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Compare, ast.Match)):
                for c in ast.walk(node):
                    if isinstance(c, ast.Constant) and c.value in names:
                        bad.append(f"{path.name}:{node.lineno} compares with {c.value!r}")
    assert bad == []


@pytest.mark.slow
def test_every_public_name_has_a_docstring():
    """Every public module-level function and class, and every public method of those classes, says what it does."""
    missing = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
                continue
            items = [node]
            if isinstance(node, ast.ClassDef):
                items += [m for m in node.body if isinstance(m, ast.FunctionDef) and not m.name.startswith("_")]
            missing += [
                f"{path.relative_to(PKG.parent)}:{n.lineno} {n.name}" for n in items if not ast.get_docstring(n)
            ]
    assert not missing, f"{len(missing)} public names without a docstring: {missing[:10]}"


def _file_imports(path: Path) -> set[str]:
    """The package's modules a file imports (module-level or inside a function); ``from pkg import mod``
    counts as importing ``pkg.mod`` where that is a module, not the package's ``__init__``."""
    me = _module(path)
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = me.split(".")[: len(me.split(".")) - node.level + (1 if path.name == "__init__.py" else 0)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.update(f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names)
    return {m for m in out if m in MODULES and m != me}


@functools.cache
def _file_graph() -> dict[str, set[str]]:
    return {_module(p): _file_imports(p) for p in PKG.rglob("*.py")}


def _in_a_cycle(parts: tuple[str, ...]) -> list[str]:
    graph = _file_graph()

    def reach(a, seen):
        for b in graph.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    return sorted(m for m in graph if _part(m) in parts and m in reach(m, set()))


@pytest.mark.slow
@pytest.mark.parametrize("part", sorted(KNOWN))
def test_no_import_cycle_between_the_files_of(part):
    """No file of the part reaches itself through the imports of any files, those inside functions counted.

    Cycles once hidden by an import inside a function: ``market/base.py`` <-> ``market/pricing_market.py``;
    ``reports/discussion.py`` -> ``population.py`` -> ``report.py`` -> ``discussion.py``;
    ``studies/population.py`` -> ``runner.py`` -> ``spec.py`` -> ``population.py``."""
    assert _in_a_cycle((part,)) == []


def test_no_module_imports_a_private_name_of_another_module():
    """Shared helpers are public (``reports.markdown``, ``games.io.mixture_words``, ``cli.output``,
    ``games.rsgame.fast_exp``): ``_md_table``, ``_mix``, ``_print_dict`` and ``_exp`` once crossed modules."""
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gamemarket"):
                bad += [
                    f"{_module(path)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert bad == []


def _text_io_without_encoding(node) -> bool:
    """A call that reads or writes text in the locale's encoding: ``x.write_text(...)``, ``x.read_text(...)`` or
    ``open(...)`` / ``x.open(...)`` in a text mode, without ``encoding=``."""
    if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
        return False
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if name in ("write_text", "read_text"):  # pathlib's; ``io.files.read_text``, the reports' ``write_text``: ours
        return isinstance(f, ast.Attribute)
    if name != "open" or (isinstance(f, ast.Attribute) and not isinstance(f.value, (ast.Name, ast.Attribute))):
        return False
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("os", "gzip", "zf", "tf"):
        return False
    mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
    return not (isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "b" in mode.value)


def test_every_text_file_is_read_and_written_as_utf8():
    """Hunt 15b: reports, study files and records were written in the locale's encoding (``LC_ALL=C
    PYTHONUTF8=0``: a description with an accent ended ``study run`` in a UnicodeEncodeError after its runs were
    stored, and no report was written); a file gamemarket writes reads the same on every machine."""
    bad = [
        f"{path.relative_to(PKG.parent)}:{n.lineno}"
        for path in sorted(PKG.rglob("*.py"))
        for n in ast.walk(ast.parse(path.read_text()))
        if _text_io_without_encoding(n)
    ]
    assert bad == []


def test_no_function_is_longer_than_120_lines():
    """Every function and method of the package, counted from its ``def`` line to its last line: decorators
    excluded (``FunctionDef.lineno`` is the ``def`` line), docstring and comments included."""
    long = [
        f"{path.relative_to(PKG.parent)}:{n.lineno} {n.name} ({n.end_lineno - n.lineno + 1} lines)"
        for path in sorted(PKG.rglob("*.py"))
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > 120
    ]
    assert long == []


# Libraries whose import costs a start (tenths of a second up to seconds: ``python -X importtime -c "import X"``),
# or which are optional (torch, dask, cvxpy): only these may be imported inside a function, to defer them.
HEAVY = (  # the first that matches names the library: a module before its package
    "matplotlib.pyplot",
    "matplotlib",
    "seaborn",
    "scipy.optimize",
    "scipy.stats",
    "scipy.spatial",
    "dask",
    "distributed",
    "torch",
    "tomli_w",
    "pyarrow",
    "cvxpy",
    "nashpy",
    "pygambit",  # optional (the gambit extra), and a compiled library of its own
    "optuna",
    "bayes_opt",
    "sklearn",
    "pandas",
    "numba",
    "joblib",
    "tqdm",
    "numpy",  # a tenth of a second: the command's entry point (gamemarket.__main__) sets its Ctrl-C handler first
)
# Function-local imports in files that other branches are editing this round (cli/, reports/, pricing/,
# market/outcomes.py, studies/runner.py): to be emptied when the parallel branches merge. Each entry then
# moves to module level ("move up"), or gets its ``# deferred: ...`` comment ("say why"; the test's message
# says what it defers). The last test names the entries that are fixed, so that they leave the list.
LOCAL_IMPORTS_TO_MOVE: dict[str, str] = {}  # emptied: every branch has merged and its imports moved or said why


def _heavy(name: str) -> str | None:
    """The entry of ``HEAVY`` that ``name`` is, or is a module of."""
    return next((h for h in HEAVY if name == h or name.startswith(h + ".")), None)


def _module_level_imports(path: Path) -> set[str]:
    """Every module a file imports when it is imported: its statements outside functions (``TYPE_CHECKING``
    blocks left out); ``from pkg import x`` counts as ``pkg.x`` where that is a module of the package, and
    as both ``pkg`` and ``pkg.x`` for a library (``from scipy import optimize`` loads ``scipy.optimize``)."""
    me = _module(path)
    out = set()

    def visit(nodes):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                mod = _resolve(node, me, path)
                if mod.split(".")[0] == "gamemarket":
                    out.update(f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names)
                else:
                    out.update({mod, *(f"{mod}.{a.name}" for a in node.names)})
            else:
                visit(ast.iter_child_nodes(node))

    visit(ast.parse(path.read_text()).body)
    return out


def _resolve(node: ast.ImportFrom, me: str, path: Path) -> str:
    if not node.level:
        return node.module or ""
    base = me.split(".")[: len(me.split(".")) - node.level + (1 if path.name == "__init__.py" else 0)]
    return ".".join(base + ([node.module] if node.module else []))


_DIRECT: dict[str, set[str]] = {}


def _loads(module: str) -> set[str]:
    """The ``HEAVY`` libraries that importing ``module`` loads, through module-level imports (a module
    loads its packages' ``__init__`` too)."""
    if not _DIRECT:
        _DIRECT.update({_module(p): _module_level_imports(p) for p in PKG.rglob("*.py")})
    seen, todo, heavy = set(), [module], set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        packages = [".".join(m.split(".")[:k]) for k in range(2, m.count(".") + 1)]
        for i in [*_DIRECT.get(m, ()), *packages]:
            if i in MODULES:
                todo.append(i)
            elif _heavy(i):
                heavy.add(_heavy(i))
    return heavy


def _local_imports():
    """Every import inside a function: (file, function, module imported, line, its reason or None).

    The reason is a ``# deferred: ...`` comment on the import's line, or on the line above the run of import
    lines it belongs to."""
    for path in sorted(PKG.rglob("*.py")):
        lines = path.read_text().splitlines()
        tree = ast.parse("\n".join(lines))
        me = _module(path)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            inner = {n for f in ast.walk(fn) if f is not fn and isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                     for n in ast.walk(f)}  # fmt: skip
            for node in ast.walk(fn):
                if node in inner or not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                else:
                    mod = _resolve(node, me, path)
                    names = sorted({f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names})
                k = node.lineno - 1
                while k > 0 and lines[k - 1].lstrip().startswith(("import ", "from ")):
                    k -= 1
                said = [lines[node.lineno - 1], lines[k - 1] if k > 0 else ""]
                reason = next((c.split("deferred:", 1)[1].strip() for c in said if "# deferred:" in c), None)
                for name in names:
                    yield path.relative_to(PKG.parent).as_posix(), fn.name, name, node.lineno, reason


@functools.cache
def _local_import_faults() -> dict[str, str]:
    """Each import inside a function that breaks the rule, with what is wrong: a deferral must say why, and
    must put off a heavy library that importing its module does not load anyway."""
    faults = {}
    for where, fn, name, line, reason in _local_imports():
        me = _module(PKG.parent / where)
        saves = (_loads(name) if name.split(".")[0] == "gamemarket" else {_heavy(name)} - {None}) - _loads(me)
        if not saves:
            faults[f"{where}:{fn} imports {name}"] = f"line {line}: defers nothing heavy; import it at module level"
        elif reason is None:
            faults[f"{where}:{fn} imports {name}"] = f"line {line}: defers {sorted(saves)}; say so (# deferred: ...)"
    return faults


@pytest.mark.slow
def test_an_import_inside_a_function_only_defers_a_heavy_library():
    """An import inside a function says why (``# deferred: ...``, on its line or the line above its group of
    imports) and defers a heavy library that its module does not load anyway: one of ``HEAVY``, or a module of
    the package that loads one (``gamemarket --help`` starts without pandas). Everything else is imported at
    module level, where a cycle between files shows (and is fixed, not hidden)."""
    faults = {k: v for k, v in _local_import_faults().items() if k not in LOCAL_IMPORTS_TO_MOVE}
    assert faults == {}, "\n".join(f"{k} ({v})" for k, v in sorted(faults.items()))


def test_the_list_of_imports_to_move_holds_only_what_is_still_there():
    """Shrink ``LOCAL_IMPORTS_TO_MOVE`` as the branches merge: an entry that is fixed leaves the list."""
    stale = sorted(set(LOCAL_IMPORTS_TO_MOVE) - set(_local_import_faults()))
    assert stale == []


@pytest.mark.slow
def test_the_command_line_starts_without_the_heavy_libraries():
    """``gamemarket --help`` (the parser of every command built) loads none of the libraries that only a study, a
    report or a solve needs: the static check above cannot see an import through a package's lazy ``__getattr__``
    (``from gamemarket.reports import write_report`` at a CLI module's top loaded matplotlib and pandas)."""
    import subprocess
    import sys

    code = (
        "import sys, gamemarket.cli as c; c.build_parser(); "
        "print(sorted(m for m in ('pandas', 'matplotlib', 'seaborn', 'pyarrow', 'scipy.optimize', 'joblib', "
        "'dask', 'nashpy', 'cvxpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]", out


@pytest.mark.slow
def test_price_solve_starts_without_the_market():
    """A ``price solve`` process registers only the pricing commands and loads neither the market nor the plugin
    registries (numba's schedulers and payments): price discovery's whole-process time is a benchmark target
    (``benchmarks/bench_resalloc.py``), and the market's import was a fifth of it."""
    import os
    import subprocess
    import sys

    from gamemarket.registry import PLUGINS_ENV

    code = (
        "import sys; from gamemarket.cli import main; "
        "rc = main(['price', 'solve', '--n', '50', '--m', '2', '--quiet']); assert rc == 0, rc; "
        "print(sorted(m for m in ('gamemarket.market', 'gamemarket.plugins', 'gamemarket.cli.studies', "
        "'gamemarket.cli.simulate') if m in sys.modules))"
    )
    # without GAMEMARKET_PLUGINS: a test that loaded a plugin in this process left it set for its workers, and a
    # command that inherits it loads the registries to warn about it (cli._ignore_inherited_plugins)
    env = {k: v for k, v in os.environ.items() if k != PLUGINS_ENV}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip().splitlines()[-1] == "[]", out


def test_a_parser_for_one_command_holds_its_group_and_the_full_parser_every_command():
    """``build_parser(argv)`` registers only the group of ``argv``'s command; without one, or for a word that is no
    command (a misspelling, an option first), every command, so that help and errors list them all; the usage line
    lists every command either way."""
    from gamemarket.cli import GROUPS, build_parser

    def commands(parser):
        """The commands built: a parser with arguments beyond its help (another group's name is a bare parser,
        there only for the usage line)."""
        choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        return {w for w, sub in choices.items() if len(sub._actions) > 1}

    every = {w for words in GROUPS.values() for w in words}
    assert commands(build_parser()) == every
    for argv in ([], ["--help"], ["prcie", "solve"], ["--version"]):
        assert commands(build_parser(argv)) == every, argv
    usage = build_parser().format_usage()
    assert all(w in usage for w in every)
    for words in GROUPS.values():
        for w in words:
            assert commands(build_parser([w, "--help"])) == set(words), w
            # an error after the command word prints the top-level usage: every command, as the full parser's
            assert build_parser([w]).format_usage() == usage, w
