"""No code from data (issue 27, item 3): the package never unpickles what it reads back.

Scanned on the package's syntax tree, every module and every import inside a function: no pickle, dill,
cloudpickle, shelve or marshal import, no ``joblib.load``, no ``pandas.read_pickle``, and every
``numpy.load`` says ``allow_pickle=False``. ``.ci/run`` also runs bandit over the package.
"""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "gamemarket"
UNPICKLERS = {"pickle", "cPickle", "dill", "cloudpickle", "shelve", "marshal", "_pickle"}


def _findings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            out += [f"{where}: import {a.name}" for a in node.names if a.name.split(".")[0] in UNPICKLERS]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in UNPICKLERS:
            out.append(f"{where}: from {node.module} import ...")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
            name = node.func.attr
            if (owner, name) in {("joblib", "load"), ("pd", "read_pickle"), ("pandas", "read_pickle")}:
                out.append(f"{where}: {owner}.{name}")
            if (owner, name) in {("np", "load"), ("numpy", "load")}:
                kw = {k.arg: k.value for k in node.keywords}
                safe = isinstance(kw.get("allow_pickle"), ast.Constant) and kw["allow_pickle"].value is False
                if not safe:
                    out.append(f"{where}: {owner}.load without allow_pickle=False")
    return out


@pytest.mark.slow
def test_the_package_never_unpickles():
    found = [f"{p.relative_to(PKG)}: {f}" for p in sorted(PKG.rglob("*.py")) for f in _findings(p)]
    assert not found, found


def test_the_scan_finds_what_it_looks_for(tmp_path):
    bad = tmp_path / "probe.py"
    bad.write_text("import pickle\nimport numpy as np\nnp.load('x')\nimport joblib\njoblib.load('y')\n")
    assert len(_findings(bad)) == 3
