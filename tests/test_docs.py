"""The documentation's cheap checks: what is generated from the code is up to date, and the command line
reference covers every command. The full build (``python -m sphinx -W --keep-going -b html docs
docs/_build/html``, executed tutorials included) runs in CI after the tests."""

import argparse
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="sphinx is not installed (the 'docs' extra); the docs checks need its toolchain")

from gamemarket.cli import build_parser  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _extension():
    """docs/_ext/gamemarket_docs.py, the extension that generates and checks the pages made from the code."""
    spec = importlib.util.spec_from_file_location("gamemarket_docs", DOCS / "_ext" / "gamemarket_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commands(parser: argparse.ArgumentParser, path=()):
    """Every command path of the parser, depth first: ('workload',), ('workload', 'info'), ..."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield path + (name,)
                yield from _commands(sub, path + (name,))


def test_the_study_file_reference_is_what_the_schema_generates():
    ext = _extension()
    stale = ext.stale_pages()
    assert not stale, f"stale: {[str(p) for p in stale]}; write them again with `python docs/_ext/gamemarket_docs.py`"
    text = (DOCS / "reference" / "study-file.md").read_text()
    for table in ("[workload]", "[strategies]", "[replications]", "[game]", "[output]", "[game.shading.NAME]"):
        assert f"`{table}`" in text


def test_a_stale_study_file_reference_is_caught(tmp_path, monkeypatch):
    ext = _extension()
    stale_copy = tmp_path / "study-file.md"
    stale_copy.write_text(ext.generated_pages()[ext.STUDY_FILE].replace("the seeds", "the sheep"))
    monkeypatch.setattr(ext, "STUDY_FILE", stale_copy)
    assert ext.stale_pages() == [stale_copy]


def test_every_command_is_in_the_cli_reference():
    source = (DOCS / "reference" / "cli.md").read_text()
    documented = {line.split(":path:", 1)[1].strip() for line in source.splitlines() if line.startswith(":path:")}
    paths = list(_commands(build_parser()))
    leaves = [" ".join(p) for p in paths if not any(len(q) > len(p) and q[: len(p)] == p for q in paths)]
    assert {"simulate", "study run", "price solve"} <= set(leaves)
    missing = [c for c in leaves if c not in documented]
    assert not missing, f"commands missing from docs/reference/cli.md (add an argparse block with :path:): {missing}"
    unknown = sorted(documented - set(leaves))
    assert not unknown, f"docs/reference/cli.md documents commands the parser does not have: {unknown}"


def test_the_output_files_page_names_the_files_the_code_writes():
    """The marker files' names in ``output-files.md`` are the code's (the page once named ``.gamemarket-study``
    as what every folder holds, after the manifest had replaced it)."""
    from gamemarket.io.files import LEGACY_MARKER, MANIFEST

    text = (DOCS / "reference" / "output-files.md").read_text()
    for folder in ("results", "reports"):
        assert f"`{folder}/NAME/{MANIFEST}`" in text
    assert f"marked by `{LEGACY_MARKER}`" in text and f"`reports/NAME/{LEGACY_MARKER}`" not in text
