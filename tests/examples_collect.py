"""Every example the project shows a reader, collected (#45 item 1; ``tests/test_examples.py`` runs them): each
command of each subcommand's ``--help`` epilog (``gamemarket.cli.options.examples``), and of README.md and
``docs/**/*.md`` every command line of a ``bash``/``console``/``shell``/``sh`` block, every indented command line
of the text, and every ``python`` block.

An example keeps its *group*: the page, or the command whose ``--help`` shows it. A group's examples run in
order in one folder, as a reader following the page would run them (``--jobs-out table.csv`` before
``--job-table table.csv``).
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LPC_NAME = "LPC-EGEE-2004-1.2-cln.swf.gz"
SDSC_NAME = "SDSC-Par-1996-3.1-cln.swf.gz"
#: folders of docs/ that hold built or generated pages, never a written example
BUILT = {"_build", "generated", "jupyter_execute"}
#: a fenced block of these languages is a shell session: one example per command line
SHELL = {"bash", "console", "shell", "sh"}
#: the first word of an indented line of the text that makes it a command line
COMMAND = re.compile(r"(gamemarket|python3?|pip|pipx|dask|\.venv/bin/\S+|\.|source)(\s|$)")


def trace_path(name: str) -> Path | None:
    """A shared trace's path, where conftest's fixtures find it (``$GAMEMARKET_TRACES``, else
    ``../shared/workloads``), or None."""
    env = os.environ.get("GAMEMARKET_TRACES")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "workloads"]:
        if (base / name).exists():
            return base / name
    return None


@dataclass(frozen=True)
class Example:
    """One example as a reader sees it.

    ``source`` says where it is (``docs/how-to/x.md:12``, ``gamemarket study run --help``); ``group`` is the page
    or the help it belongs to; ``kind`` is ``shell`` or ``python``; ``text`` the example as written (a shell
    command on one logical line, ``\\`` continuations kept); ``output`` what the page shows it printing (a
    ``console`` block's lines after the ``$`` line), else None.
    """

    source: str
    group: str
    kind: str
    text: str
    output: str | None = None

    def __str__(self) -> str:
        return f"{self.source}: {self.text}"


def parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("gamemarket",)):
    """Every (command path, parser) pair, depth first, the top-level parser included."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def logical_lines(text: str) -> list[tuple[int, str]]:
    """The command lines of a shell text: (first line's index, the command), a line ending in ``\\`` joined to
    the next as the shell joins it; blank lines and comment lines left out."""
    out, start, parts = [], 0, []
    for k, line in enumerate(text.splitlines()):
        if not parts:
            start = k
            if not line.strip() or line.lstrip().startswith("#"):
                continue
        parts.append(line)
        if not line.rstrip().endswith("\\"):
            out.append((start, "\n".join(parts)))
            parts = []
    if parts:
        out.append((start, "\n".join(parts)))
    return out


def help_examples() -> list[Example]:
    """Each example command of every command's ``--help``, the top-level one included."""
    from gamemarket.cli import build_parser

    out = []
    for path, parser in parsers(build_parser()):
        if not parser.epilog or not parser.epilog.startswith("examples:\n"):
            continue
        where = " ".join((*path, "--help"))
        lines = "\n".join(line.strip() for line in parser.epilog.splitlines()[1:])
        out += [Example(where, where, "shell", text) for _, text in logical_lines(lines)]
    return out


def pages() -> list[Path]:
    """README.md and every written page of docs/, in a fixed order."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if not BUILT & set(p.relative_to(ROOT).parts))
    return [ROOT / "README.md", *docs]


def _fences(text: str):
    """Each fenced block of a Markdown text: (language, first line's index of its body, body), and the text with
    every fenced block blanked (its lines kept, empty), for the indented command lines outside them."""
    blocks, outside, lang, start, body = [], [], None, 0, []
    for k, line in enumerate(text.splitlines()):
        if lang is None and line.startswith("```"):
            lang, start, body = (line[3:].split() or [""])[0], k + 1, []
            outside.append("")
        elif lang is not None and line.startswith("```"):
            blocks.append((lang, start, "\n".join(body) + "\n"))
            lang = None
            outside.append("")
        elif lang is not None:
            body.append(line)
            outside.append("")
        else:
            outside.append(line)
    return blocks, outside


def _console(page: str, start: int, body: str) -> list[Example]:
    """A ``console`` block's commands (``$ `` lines) and the output shown under each."""
    out, cmd, at, shown = [], None, 0, []
    for k, line in enumerate([*body.splitlines(), "$ "]):
        if line.startswith("$ "):
            if cmd:
                output = "\n".join(shown).strip("\n") or None
                out.append(Example(f"{page}:{start + at + 1}", page, "shell", cmd, output))
            cmd, at, shown = line[2:].strip(), k, []
        else:
            shown.append(line)
    return out


def page_examples(path: Path) -> list[Example]:
    """A page's examples in the page's order: its shell blocks' commands, its indented command lines and its
    Python blocks."""
    page = str(path.relative_to(ROOT))
    blocks, outside = _fences(path.read_text())
    found: list[tuple[int, Example]] = []
    for lang, start, body in blocks:
        if lang == "console":
            found += [(int(e.source.rsplit(":", 1)[1]), e) for e in _console(page, start, body)]
        elif lang in SHELL:
            for k, text in logical_lines(body):
                found.append((start + k + 1, Example(f"{page}:{start + k + 1}", page, "shell", text)))
        elif lang == "python":
            found.append((start, Example(f"{page}:{start}", page, "python", body)))
    indented = "\n".join(line[4:] if line.startswith("    ") else "" for line in outside)
    for k, text in logical_lines(indented):
        if outside[k].startswith("    ") and COMMAND.match(text):
            found.append((k + 1, Example(f"{page}:{k + 1}", page, "shell", text)))
    return [e for _, e in sorted(found, key=lambda pair: pair[0])]


def all_examples() -> list[Example]:
    """Every example: the commands' help first, then README.md and the docs' pages."""
    return help_examples() + [e for p in pages() for e in page_examples(p)]


def groups() -> dict[str, list[Example]]:
    """The examples by group, each group's in order."""
    out: dict[str, list[Example]] = {}
    for e in all_examples():
        out.setdefault(e.group, []).append(e)
    return out


def shown_output_matches(shown: str, printed: str) -> bool:
    """Whether ``printed`` is what a page shows as ``shown``: line by line from the start, ``…`` standing for any
    text within a line and a line of ``...`` alone for any lines (none included); trailing spaces ignored."""
    pattern = []
    for line in shown.rstrip().splitlines():
        if line.strip() == "...":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(".*?".join(re.escape(part) for part in line.rstrip().split("…")) + r"[ \t]*\n")
    text = "\n".join(line.rstrip() for line in printed.splitlines()) + "\n"
    return re.match("".join(pattern), text) is not None
