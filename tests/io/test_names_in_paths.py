"""Names are not paths (issue 27, item 2): a test that walks every writer.

Every place in the package that builds a file name from a value (an f-string passed to
``OutputFolder.file`` or joined to a path with ``/``) must interpolate only values that cannot leave
the folder or collide: a ``slug(...)`` of a name (``gamemarket.io.names.slug``), a variable assigned from
one in the same function, or a value of the few kinds declared safe below (content hashes, integers,
entries of fixed tuples in the code). A new writer that puts a name from a file into a path fails here
until it goes through ``slug`` (or is declared, with its reason). The behaviour itself (``../`` names,
names equal but for case) is tested in ``tests/io/test_ownership.py`` and the bad-input table.
"""

import ast
from pathlib import Path

import pytest

import gamemarket

PACKAGE = Path(gamemarket.__file__).parent

#: (module, interpolated expression) pairs that are safe, each with why
SAFE = {
    ("studies/population.py", "key"): "a run's content hash (hex digits), computed by the store",
    ("studies/store.py", "key"): "a run's content hash (hex digits), computed by the store",
    ("studies/store.py", "k"): "a table name from the store's own TABLES constant",
    ("analysis/population_cache.py", "key"): "the analysis cache's content hash (hex digits)",
    ("studies/gains.py", "n"): "a market size, an int checked by the study's schema",
    ("reports/figures.py", "value"): "an entry of a fixed tuple in the code ('bsd', 'ssj')",
    ("studies/spec.py", "name"): "the study's name, checked against the one NAME rule (check_name) on reading",
}


def _writers():
    """(module, function, f-string node) for every f-string used as a file name."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(), rel)
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and _called(node) == "file":  # OutputFolder.file, or a local file()
                    names = node.args[:1]
                elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                    names = [node.right]
                else:
                    continue
                for arg in names:
                    for s in ast.walk(arg):
                        if isinstance(s, ast.JoinedStr):
                            yield rel, fn, s


def _called(call: ast.Call) -> str | None:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _slugged(fn, name: str) -> bool:
    """Whether ``name`` is assigned from a ``slug(...)`` call in function ``fn``."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            v = node.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "slug":
                return True
    return False


def _is_safe(rel, fn, expr) -> bool:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "slug":
        return True
    if isinstance(expr, ast.Name) and (_slugged(fn, expr.id) or (rel, expr.id) in SAFE):
        return True
    return False


@pytest.mark.slow
def test_the_walk_finds_the_writers():
    """The walk sees the writers it is meant to guard (a walk that finds nothing passes vacuously)."""
    found = {(rel, fn.name) for rel, fn, _ in _writers()}
    assert ("analysis/study.py", "export") in found
    assert ("reports/population.py", "_write_data") in found
    assert {rel for rel, _ in found} >= {"reports/report.py", "studies/spec.py", "studies/store.py"}


@pytest.mark.slow
def test_every_name_in_a_file_name_is_a_slug_or_declared_safe():
    bad = []
    for rel, fn, s in _writers():
        for part in s.values:
            if isinstance(part, ast.FormattedValue) and not _is_safe(rel, fn, part.value):
                bad.append(f"{rel}:{part.value.lineno} in {fn.name}: {ast.unparse(part.value)}")
    assert not bad, "names put into file names without slug():\n" + "\n".join(bad)


def test_every_declared_exception_is_still_used():
    used = set()
    for rel, fn, s in _writers():
        for part in s.values:
            if isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name):
                used.add((rel, part.value.id))
    assert not set(SAFE) - used, f"declared safe but no longer found: {sorted(set(SAFE) - used)}"
