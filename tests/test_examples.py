"""Every example runs as written (#45 item 1): each command of every command's ``--help``, each command line of
README.md and of the docs (shell blocks and indented lines), and each Python block of the docs that no other test
runs (``tests/examples_collect.py`` collects them; ``test_the_examples_are_all_listed`` prints the list).

How they run. The examples of one page (or one command's help) run in order in one fresh folder, a copy of the
checkout's files without the package's source (``gamemarket/``), the tests and anything built, so that a command
reaches the package only through ``PATH``: a shell example runs under ``bash -e -c`` with ``/usr/bin:/bin`` on
``PATH`` and, before them, the installed package's ``bin`` (the interpreter's folder: the venv the docs tell the
reader to make). A page that makes the venv itself (``INSTALL``) has it in ``.venv/bin`` only, as the reader's
shell does, until it activates it (``. .venv/bin/activate``): its bare ``gamemarket`` before that fails. A
Python block runs as a file with that interpreter (a block that defines ``test_`` functions runs under pytest, as
the page says to run it). ``PYTHONPATH`` names the folder the tested package is imported from (the checkout,
where the venv's install is editable; the installed package itself otherwise), ``$GAMEMARKET_TRACES`` a folder
of links to the traces of ``../shared/workloads`` where they are there (the examples that name a trace skip
where they are not), and ``HOME`` a fresh folder. Where a page shows what a command prints (a ``console``
block), the output is checked (``examples_collect.shown_output_matches``).

What stands in for what cannot run here is listed below, each with why: ``INSTALL`` (the reader's install from
the package index: the folder's ``.venv`` is a link to the running venv, and the rest of the line runs as
written), ``PLACEHOLDERS`` (``COMMAND``: the commands it stands for), ``PREPARE`` (the files a page tells the
reader to make or have, made the way the page says), ``NOT_RUN`` (installs from the package index, the test
suite itself, the docs build, a dask cluster), ``RUN_ELSEWHERE`` (what another test runs as written),
``EXCERPTS`` (a Python block that shows part of a plugin file, checked against the file) and ``OPTIONAL`` (a
block that needs an extra not installed skips). A test fails when an entry of those lists no longer names an
example, so that they shrink as the docs change.

Time (about four minutes on two cores): the default and population-default studies run once, as the README and
the tutorials write them, in a base folder that every page's folder is copied from; a page that runs them again
finds every run stored and writes its report (as a reader's second run does). The study runs of the
reproduction (``studies/shudler2010.toml``, ``studies/population-shudler2010.toml``: most of ten minutes on two
cores) and of ``studies/price-discovery-market.toml`` (two minutes) are ``LONG``: they run where
``$GAMEMARKET_EXAMPLES_LONG`` is set, and skip, saying so, elsewhere.
"""

from __future__ import annotations

import gzip
import importlib.util
import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import gamemarket
from examples_collect import (
    LPC_NAME,
    ROOT,
    SDSC_NAME,
    Example,
    all_examples,
    groups,
    parsers,
    shown_output_matches,
    trace_path,
)
from gamemarket.cli import build_parser

#: the folder of the installed package's commands: the venv's bin, beside this interpreter
VENV_BIN = Path(sys.executable).parent
#: where the tested package is imported from (the checkout under an editable install)
PACKAGE_PARENT = Path(gamemarket.__file__).resolve().parents[1]
#: the reader's install, which the test's venv stands for: the folder's .venv is a link to it, and the rest of the
#: command line runs as written
INSTALL = "python3 -m venv .venv && .venv/bin/pip install ."
#: a placeholder of an example -> what it stands for (``COMMAND``: every command of the parser)
PLACEHOLDERS = {"COMMAND": [path[1] for path, _ in parsers(build_parser()) if len(path) == 2]}
NOT_RUN = {
    'python3 -m venv .venv && .venv/bin/pip install ".[test]" && .venv/bin/python -m pytest -q': (
        "the whole test suite, this test included (CI runs it; the install needs the package index)"
    ),
    '.venv/bin/python -m pytest -q -m "not slow"': "the test suite's fast tier, this test's own suite",
    'pip install ".[dask]"': "an install from the package index (the test's venv has the extra)",
    'pip install ".[docs]"': "an install from the package index (the docs build has the extra)",
    "python -m sphinx -W --keep-going -b html docs docs/_build/html": "the docs build: CI's docs job runs it",
    "dask scheduler                                   # on the head node; prints its address, tcp://HOST:8786": (
        "a cluster's scheduler, a process that runs until stopped"
    ),
    "dask worker tcp://HOST:8786 --nthreads 1 --nworkers 8   # on each worker machine": (
        "a cluster's workers, processes that run until stopped"
    ),
    "gamemarket study run studies/lpc-first-vs-kth.toml --scheduler-address tcp://HOST:8786": (
        "needs the dask cluster of the page's previous commands; tests/studies run studies on a local cluster"
    ),
    "gamemarket study run studies/lpc-first-vs-kth.toml --scheduler-address tcp://host:8786   # on a dask cluster": (
        "needs a dask cluster at host:8786; tests/studies run studies on a local cluster"
    ),
    "gamemarket study run studies/shudler2010.toml --scheduler-address tcp://10.0.0.1:8786": (
        "needs a dask cluster at 10.0.0.1:8786; tests/studies run studies on a local cluster"
    ),
}
#: (group, kind) -> the test that runs those examples as written
RUN_ELSEWHERE = {
    ("README.md", "python"): "tests/test_readme.py",
    ("docs/how-to/python-api.md", "python"): "tests/test_readme.py",
    ("docs/how-to/large-traces.md", "python"): "tests/test_readme.py",
    ("docs/how-to/design-a-mechanism.md", "shell"): "tests/test_howto_design.py",
}
#: a whole study run of minutes (the reproduction, its population study, the price-discovery market): run where
#: $GAMEMARKET_EXAMPLES_LONG is set
LONG = ("studies/shudler2010.toml", "studies/population-shudler2010.toml", "studies/price-discovery-market.toml")
#: a module a Python block imports that only an extra installs -> the extra (the block skips where it is absent)
OPTIONAL = {"pygambit": "gambit"}
#: a command line that puts the reader's venv on PATH for the page's later commands, as it does in a shell
ACTIVATE = re.compile(r"(^|&&|;)\s*(\.|source)\s+\.venv/bin/activate\b")
#: what names a trace of ../shared/workloads (directly, by a study, or by the page's own file)
NEEDS_TRACE = ("LPC-EGEE", "shudler2010", "lpc-first-vs-kth", "mytrace")
#: the checkout's parts a reader's folder has no use for (the package comes through PATH)
LEFT_OUT = {".git", ".venv", "gamemarket", "tests", "_build", "results", "__pycache__", ".pytest_cache", "build"}
#: a Python block that is an excerpt of a plugin file, not a program: (page, its first line) -> the file it is from
#: (``gamemarket plugin check`` runs the file as a whole, in this test too); its classes and registered names are
#: checked to be the file's
EXCERPTS = {
    ("docs/how-to/add-a-mechanism.md", "@dataclass(frozen=True)"): "examples/plugins/shade_by_amount.py",
    (
        "docs/how-to/add-a-mechanism.md",
        "from gamemarket.plugins import register_provider",
    ): "examples/plugins/combined.py",
}


def _python_block(page: str, text: str) -> str:
    """What a page shows in a Python block (the README's Python guide block, a plugin's lines), to key lists."""
    return (page, text.splitlines()[0])


def _link(target: Path, source: Path | None) -> None:
    """``target`` made a link to ``source`` (its folders made); a missing source skips the example."""
    if source is None:
        pytest.skip(f"the trace is not in ../shared/workloads nor in $GAMEMARKET_TRACES: {target.name}")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(source)


def _price_problem(folder: Path) -> None:
    """``problem.npz``, as the price-discovery how-to's first block writes it."""
    rng = np.random.default_rng(0)
    np.savez(folder / "problem.npz", A=rng.uniform(0.1, 1.0, (20000, 4)), R=np.full(4, 3000.0), utility=np.array("log"))


def _own_trace(folder: Path) -> None:
    """The own-trace how-to's trace, at both paths the page names: the SDSC Paragon trace's header and first
    3,000 records stand for the reader's (a whole trace's study takes a minute), and its study file, the page's
    TOML block saved as the page says."""
    source = trace_path(SDSC_NAME)
    if source is None:
        pytest.skip(f"the trace {SDSC_NAME} is not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    with gzip.open(source, "rt") as f:
        lines = list(itertools.islice(f, 20000))
    header = [line for line in lines if line.startswith(";")]
    records = [line for line in lines if not line.startswith(";")][:3000]
    for at in ("path/to/mytrace.swf.gz", "traces/mytrace.swf.gz"):
        (folder / at).parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(folder / at, "wt") as f:
            f.writelines(header + records)
    page = (ROOT / "docs" / "how-to" / "own-swf-trace.md").read_text()
    (folder / "mytrace.toml").write_text(re.findall(r"```toml\n(.*?)```", page, flags=re.S)[0])


def _command(folder: Path, line: str) -> None:
    """Run a preparing command line in ``folder`` (as the docs say to make what an example uses)."""
    done = subprocess.run(["bash", "-e", "-c", line], cwd=folder, env=_env(folder), capture_output=True, text=True)
    assert done.returncode == 0, f"preparing {line!r}: {done.stderr[-2000:]}"


#: a group -> what its folder needs before its examples run, made as the docs make it
PREPARE = {
    "gamemarket study run --help": lambda f: _command(f, "gamemarket study new mine"),
    "gamemarket report --help": lambda f: _command(
        f, "gamemarket study new mine && gamemarket study run mine.toml --results out/results --no-report --no-progress"
    ),
    "gamemarket price solve --help": _price_problem,
    "docs/explanation/in-depth.md": _price_problem,
    "gamemarket plugin check --help": lambda f: shutil.copy(
        f / "examples/plugins/lowest_running.py", f / "mechanisms.py"
    ),
    "gamemarket workload fetch --help": lambda f: _link(f / "traces" / LPC_NAME, trace_path(LPC_NAME)),
    "docs/how-to/own-swf-trace.md": _own_trace,
    "docs/how-to/export-and-solve-elsewhere.md": lambda f: shutil.copy(
        f / "reports/population-default/data/game-hb-kth.json", f / "some-game.json"
    ),
}


def _env(folder: Path, on_path: bool = True) -> dict[str, str]:
    """A reader's environment: the installed package's commands first on PATH (unless ``on_path`` is false:
    a page that made the venv itself has them in ``.venv/bin`` only), a fresh HOME, the traces."""
    keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TMPDIR", "USER", "LOGNAME", "TZ")}
    home = folder.parent / f"{folder.name}-home"
    home.mkdir(exist_ok=True)
    path = os.pathsep.join([str(VENV_BIN)] * on_path + ["/usr/bin", "/bin"])
    env = {**keep, "HOME": str(home), "PATH": path, "MPLBACKEND": "Agg"}
    env["PYTHONPATH"] = str(PACKAGE_PARENT)
    env["GAMEMARKET_TRACES"] = str(folder.parent / "traces")
    return env


def _copy_checkout(dest: Path) -> None:
    """The checkout's files as a reader's clone has them, without the package's source, the tests or builds."""
    # links copied as files: models/ and strategies/ link into the package's data, which is left out
    shutil.copytree(ROOT, dest, symlinks=False, ignore=lambda _, names: [n for n in names if n in LEFT_OUT])


@pytest.fixture(scope="session")
def examples_base(tmp_path_factory) -> Path:
    """A copy of the checkout where the README's two studies have run as written (every later run of them finds
    its runs stored), and a folder of links to the shared traces for ``$GAMEMARKET_TRACES``."""
    top = tmp_path_factory.mktemp("examples")
    (top / "traces").mkdir()
    for name in (LPC_NAME, SDSC_NAME):
        if trace_path(name):
            (top / "traces" / name).symlink_to(trace_path(name))
    base = top / "base"
    _copy_checkout(base)
    for study in ("studies/default.toml", "studies/population-default.toml"):
        _command(base, f"gamemarket study run {study}")
    return base


#: group -> (its folder, the indices of its examples run there so far)
_FOLDERS: dict[str, tuple[Path, set[int]]] = {}


def _folder(base: Path, group: str) -> tuple[Path, set[int]]:
    """The group's folder: a copy of the base made on first use, prepared as ``PREPARE`` says."""
    if group not in _FOLDERS:
        folder = base.parent / f"g{len(_FOLDERS):02d}"
        shutil.copytree(base, folder, symlinks=True)
        if any(INSTALL in e.text for e in groups()[group]):
            (folder / ".venv").symlink_to(VENV_BIN.parent)
        _FOLDERS[group] = (folder, set())
        if group in PREPARE:
            PREPARE[group](folder)
    return _FOLDERS[group]


def _why_not_run(e: Example) -> str | None:
    """Why the test does not run ``e`` here (None: it runs)."""
    if e.text in NOT_RUN:
        return f"not run: {NOT_RUN[e.text]}"
    kind = "python" if e.kind == "python" else "shell"
    if (e.group, kind) in RUN_ELSEWHERE:
        return f"run as written by {RUN_ELSEWHERE[(e.group, kind)]}"
    if e.kind == "python" and _python_block(e.group, e.text) in EXCERPTS:
        return f"an excerpt of {EXCERPTS[_python_block(e.group, e.text)]}, checked against it"
    if any(s in e.text for s in LONG) and not os.environ.get("GAMEMARKET_EXAMPLES_LONG"):
        return "a whole study run of minutes: runs where $GAMEMARKET_EXAMPLES_LONG is set"
    return None


def _commands(e: Example) -> list[str]:
    """The shell command lines that run ``e``: as written, the reader's install left to the linked venv, and a
    placeholder replaced by each thing it stands for."""
    text = e.text.replace(INSTALL, "true")
    for word, values in PLACEHOLDERS.items():
        if word in text.split():
            return [text.replace(word, v) for v in values]
    return [text]


def _on_path(members: list[Example], k: int) -> bool:
    """Whether the installed package's commands are on PATH for the group's ``k``-th example: always, unless the
    page made the venv itself (then only once it has activated it, as in a reader's shell)."""
    return not any(INSTALL in e.text for e in members) or any(ACTIVATE.search(e.text) for e in members[:k])


def run_example(e: Example, folder: Path, on_path: bool = True) -> str | None:
    """Run ``e`` in ``folder``: None where it did what the page says, else what went wrong."""
    env = _env(folder, on_path)
    if e.kind == "python":
        name = "test_example_block.py" if "def test_" in e.text else "example_block.py"
        (folder / name).write_text(e.text)
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name] if name[:5] == "test_" else None
        runs = [argv or [sys.executable, name]]
    else:
        runs = [["bash", "-e", "-c", line] for line in _commands(e)]
    for argv in runs:
        done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return f"exit {done.returncode}: {(done.stderr or done.stdout)[-1500:]}"
        if e.output and not shown_output_matches(e.output, done.stdout):
            return f"printed\n{done.stdout[:1500]}\nwhere the page shows\n{e.output}"
    return None


EXAMPLES = all_examples()


def _param(e: Example):
    marks = [pytest.mark.slow]
    if any(s in e.text for s in NEEDS_TRACE):
        marks.append(pytest.mark.trace)
    return pytest.param(e, id=e.source + ":" + e.text.split("\n")[0][:60], marks=marks)


def test_the_examples_are_all_listed(capsys):
    """The list, by source, with what is not run here and why; there are examples of every kind."""
    by: dict[str, int] = {}
    for e in EXAMPLES:
        source = "--help" if e.group.endswith("--help") else "/".join(e.group.split("/")[:2])
        by[source] = by.get(source, 0) + 1
        why = _why_not_run(e)
        print(f"{e}" + (f"   [{why}]" if why else ""))
    print(by)
    assert len(EXAMPLES) > 100 and {e.kind for e in EXAMPLES} == {"shell", "python"}
    assert any(e.output for e in EXAMPLES)


def test_every_stand_in_names_an_example():
    """An entry of NOT_RUN, RUN_ELSEWHERE, EXCERPTS, PREPARE or PLACEHOLDERS that names no example any more is
    stale: it goes."""
    texts = {e.text for e in EXAMPLES}
    assert set(NOT_RUN) <= texts, set(NOT_RUN) - texts
    assert set(RUN_ELSEWHERE) <= {(e.group, e.kind) for e in EXAMPLES}
    assert set(EXCERPTS) <= {_python_block(e.group, e.text) for e in EXAMPLES if e.kind == "python"}
    assert set(PREPARE) <= {e.group for e in EXAMPLES}
    assert all(any(w in t.split() for t in texts) for w in PLACEHOLDERS)
    assert any(INSTALL in t for t in texts)


@pytest.mark.parametrize("page_first, path", EXCERPTS.items())
def test_an_excerpt_is_its_files(page_first, path):
    """A block that shows part of a plugin file: its classes and the names it registers are the file's."""
    import re

    (block,) = [e.text for e in EXAMPLES if e.kind == "python" and _python_block(e.group, e.text) == page_first]
    text = (ROOT / path).read_text()
    names = re.findall(r"^class (\w+)", block, flags=re.M) + re.findall(r"register\w*\(\s*\"([^\"]+)\"", block)
    assert names and all(n in text for n in names), [n for n in names if n not in text]


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES])
def test_the_example_runs_as_written(example, examples_base):
    """The example runs in its group's folder after the group's earlier examples, and prints what its page shows."""
    why = _why_not_run(example)
    if why:
        pytest.skip(why)
    if any(s in example.text for s in NEEDS_TRACE) and trace_path(LPC_NAME) is None:
        pytest.skip(f"needs the trace {LPC_NAME}, not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    for module, extra in OPTIONAL.items():
        imports = re.search(rf"^\s*(import|from) {module}\b", example.text, flags=re.M)
        if imports and not importlib.util.find_spec(module):
            pytest.skip(f"needs {module}, of the extra {extra!r}, not installed here")
    folder, done = _folder(examples_base, example.group)
    members = groups()[example.group]
    k = members.index(example)
    if trace_path(LPC_NAME) is None:  # an earlier example that needs the trace may make what this one reads
        before = [e for e in members[:k] if not _why_not_run(e) and any(s in e.text for s in NEEDS_TRACE)]
        if before:
            pytest.skip(
                f"an earlier example of its page needs the trace {LPC_NAME} ({before[0]}), not in "
                "../shared/workloads nor in $GAMEMARKET_TRACES; this one may read what that one makes"
            )
    for j in range(k):  # what the page ran before it, where this test runs alone
        if j not in done and not _why_not_run(members[j]):
            run_example(members[j], folder, _on_path(members, j))
            done.add(j)
    started = time.perf_counter()
    failed = run_example(example, folder, _on_path(members, k))
    done.add(k)
    assert failed is None, f"{example}\n{failed}\n(in {folder}, {time.perf_counter() - started:.1f} s)"
