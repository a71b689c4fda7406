"""No test module imports from a ``conftest``: with ``tests/plugins/conftest.py`` beside the root one, both are
modules named ``conftest`` (pytest's default import mode), and in a run that collects both the name is the last
one imported, so ``from conftest import ROOT`` failed in ``tests/workloads`` (shared helpers live in
``study_helpers.py`` and the other helper modules)."""

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_test_module_imports_from_a_conftest():
    found = [
        f"{p.relative_to(TESTS)}:{i}: {line.strip()}"
        for p in sorted(TESTS.rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if re.match(r"\s*(from\s+conftest\s+import|import\s+conftest\b)", line)
    ]
    assert not found, "import the helper from a module of its own, not from conftest:\n" + "\n".join(found)


def test_test_files_have_unique_names():
    """pytest imports test modules by their file name (rootdir mode, no packages): two test files of one name in
    two folders stop the whole suite at collection (tests/cli/test_tables.py beside tests/studies/test_tables.py)."""
    from collections import Counter
    from pathlib import Path

    names = Counter(p.name for p in Path(__file__).resolve().parent.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
