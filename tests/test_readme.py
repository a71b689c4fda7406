"""The README's Python code blocks, and those of the Python guide and the large-traces how-to (docs/how-to/), run as
written; the README's commands are the ones that work."""

import re
import shlex
from pathlib import Path

import pytest

from gamemarket.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: the Python guide holds the examples the README had before it shrank; they run as written too
PAGES = [README, ROOT / "docs" / "how-to" / "python-api.md", ROOT / "docs" / "how-to" / "large-traces.md"]
BLOCKS = [block for page in PAGES for block in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)]


def test_readme_has_python_examples():
    assert re.findall(r"```python\n", README.read_text())


def _commands(text: str) -> list[list[str]]:
    """Every ``gamemarket ...`` command of a page's indented command lines (after ``&&`` too), comments cut."""
    out = []
    for line in text.splitlines():
        if not line.startswith("    ") or "gamemarket " not in line:
            continue
        for part in line.split(" # ", 1)[0].split("&&"):
            words = shlex.split(part.strip())
            at = next((k for k, w in enumerate(words) if w.endswith("gamemarket")), None)
            if at is not None and "COMMAND" not in words and "--help" not in words:
                out.append(words[at + 1 :])
    return out


def test_the_readme_commands_are_ones_the_command_line_accepts():
    """Each command the README shows parses as written (a renamed option would fail here, not on a reader)."""
    commands = _commands(README.read_text())
    assert ["study", "run", "studies/default.toml"] in commands
    assert ["study", "run", "studies/population-default.toml"] in commands
    for argv in commands:
        build_parser().parse_args(argv)
    for study in re.findall(r"study run (studies/\S+\.toml)", README.read_text()):
        assert (ROOT / study).is_file(), study


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_readme_block_runs(k, capsys):
    exec(compile(BLOCKS[k], f"README.md python block {k + 1}", "exec"), {"__name__": "readme"})
