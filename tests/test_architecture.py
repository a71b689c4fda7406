"""The layering of the package, checked on its imports (every import, module-level or inside a function).

Data flow one way: workload -> bids -> market -> outcomes -> payoffs -> game -> equilibria -> analysis ->
report. Parts are the sub-packages (``market``, ``studies``, ...) and the few base modules (``errors``,
``registry``, ``bids``, ``confidence``)."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "gamemarket"
COMPUTING = {
    "workloads",
    "bids",
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


def _file_imports(path: Path) -> set[str]:
    """The package's modules a file imports (module-level or inside a function), ``from pkg import mod``
    counted as an import of ``pkg.mod`` (the submodule it loads), not of the package."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            subs = {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES}
            out |= subs if len(subs) == len(node.names) else subs | {node.module}
    return {i for i in out if i in MODULES}


@pytest.mark.parametrize("part", ["market", "testing"])
def test_no_import_cycle_between_the_modules_of(part):
    """base.py and pricing_market.py used to import each other (inside a function); one market per module,
    registered by base, with no cycle between files."""
    mods = {
        _module(p): {i for i in _file_imports(p) if _part(i) in ("market", "testing")}
        for p in PKG.rglob("*.py")
        if _part(_module(p)) == part
    }

    def reach(a, seen):
        for b in mods.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    assert [m for m in mods if m in reach(m, set())] == []


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


def _in_a_cycle(parts: tuple[str, ...]) -> list[str]:
    graph = {_module(p): _file_imports(p) for p in PKG.rglob("*.py")}

    def reach(a, seen):
        for b in graph.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    return sorted(m for m in graph if _part(m) in parts and m in reach(m, set()))


def test_no_import_cycle_between_the_report_and_cli_files():
    """reports/discussion.py -> population.py -> report.py -> discussion.py was such a cycle (through an
    import inside a function)."""
    assert _in_a_cycle(("reports", "cli")) == []


def test_the_reports_and_the_cli_import_no_private_name_of_another_module():
    """Shared helpers are public (``reports.markdown``, ``games.io.mixture_words``, ``cli.output``)."""
    bad = []
    for path in [*(PKG / "reports").rglob("*.py"), *(PKG / "cli").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gamemarket"):
                bad += [
                    f"{_module(path)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert bad == []


def test_no_report_or_cli_function_is_longer_than_120_lines():
    long = [
        f"{path.relative_to(PKG.parent)}:{n.lineno} {n.name} ({n.end_lineno - n.lineno + 1} lines)"
        for path in [*(PKG / "reports").rglob("*.py"), *(PKG / "cli").rglob("*.py")]
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > 120
    ]
    assert long == []
