"""Where README.md and the docs name the code's constants, they are the code's (#45 item 3): the files gamemarket
marks its folders with, the environment variables it reads, the exit codes its commands return, the options'
defaults and choices a page states, and the schedulers, payment schemes and consumer strategies a page lists.

What a page can take from the code when it is built, it does: the study file's reference
(``docs/reference/study-file.md``, ``tests/test_docs.py``), the command line's options (``{argparse}``), the
registries (``{registry}``), the job table's columns (``{job-table-columns}``) and the exit codes
(``{exit-codes}``, from ``gamemarket.cli.options.EXIT_CODES``), all in ``docs/_ext/gamemarket_docs.py``. The rest
is prose that names a constant in passing; these tests check each such name against the constant."""

import re
from pathlib import Path

import pytest

from examples_collect import ROOT, pages, parsers
from gamemarket.cli import build_parser
from gamemarket.cli.options import EXIT_CODES

#: each page's text, its lines joined by spaces (a sentence may break anywhere)
TEXTS = {str(p.relative_to(ROOT)): " ".join(p.read_text().split()) for p in pages()}
ENV = re.compile(r"GAMEMARKET_[A-Z_]*[A-Z]")


def _source(*folders: str) -> str:
    """The text of every Python file under the checkout's ``folders``."""
    return "\n".join(p.read_text() for f in folders for p in sorted((ROOT / f).rglob("*.py")))


def _options() -> dict[str, list]:
    """Every option string of every command -> its actions (an option may belong to several commands)."""
    out: dict[str, list] = {}
    for _, parser in parsers(build_parser()):
        for action in parser._actions:
            for option in action.option_strings:
                out.setdefault(option, []).append(action)
    return out


def test_the_marker_files_a_page_names_are_the_codes():
    from gamemarket.io import files

    names = {v for k, v in vars(files).items() if k.isupper() and isinstance(v, str) and v.startswith(".gamemarket")}
    named = {(page, m) for page, text in TEXTS.items() for m in re.findall(r"\.gamemarket[-\w.]*\w", text)}
    assert named, "no page names the manifest"
    assert not [pair for pair in named if pair[1] not in names], names


def test_the_environment_variables_a_page_names_are_read_and_every_one_the_package_reads_is_named():
    """A page names only variables the code reads (the package, its benchmarks, tests or docs build), and every
    variable the package reads is named on a page."""
    named = {m for text in TEXTS.values() for m in ENV.findall(text)}
    read_anywhere = set(ENV.findall(_source("gamemarket", "benchmarks", "tests", "docs")))
    assert named <= read_anywhere, named - read_anywhere
    read_by_package = set(ENV.findall(_source("gamemarket")))
    assert read_by_package <= named, f"read by the package, named on no page: {read_by_package - named}"


def test_every_exit_code_a_command_returns_is_a_listed_constant():
    """The commands return the named constants, never a bare number other than 0; the list is what the CLI
    reference shows (``{exit-codes}``)."""
    bare = [
        f"{p.relative_to(ROOT)}:{k}: {line.strip()}"
        for p in sorted((ROOT / "gamemarket" / "cli").glob("*.py"))
        for k, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"\breturn\s+(?!0\b)\d+\b|\bexit\(\s*[1-9]", line)
    ]
    assert not bare, bare
    assert {0, 1, 2, 3, 130} <= set(EXIT_CODES)
    assert "{exit-codes} gamemarket.cli.options.EXIT_CODES" in TEXTS["docs/reference/cli.md"]


def test_the_exit_codes_a_page_states_are_the_commands():
    pattern = re.compile(r"\bexit(?:s|s with| with)?(?: code)? (\d+)\b|\bcode (\d+)\b")
    stated = {(page, int(a or b)) for page, text in TEXTS.items() for a, b in pattern.findall(text)}
    assert stated
    assert not [pair for pair in stated if pair[1] not in EXIT_CODES], sorted(EXIT_CODES)


def test_the_option_defaults_a_page_states_are_the_parsers():
    """ "`--opt` ... (default N)" with a number N: some command's ``--opt`` defaults to N."""
    options, checked = _options(), 0
    for page, text in TEXTS.items():
        for option, value in re.findall(r"`(--[a-z0-9-]+)`[^`.;]{0,60}?\(default:? ([0-9][0-9.e+-]*)\)", text):
            assert option in options, f"{page}: {option} is no command's option"
            defaults = [a.default for a in options[option]]
            assert any(isinstance(d, (int, float)) and d == float(value) for d in defaults), (page, option, defaults)
            checked += 1
    assert checked >= 2


def test_the_option_choices_a_page_lists_are_the_parsers():
    """ "`--opt` (`a`, `b`, ...)": some command's ``--opt`` has exactly those choices."""
    options, checked = _options(), 0
    for page, text in TEXTS.items():
        for option, listed in re.findall(r"`(--[a-z0-9-]+)`\s*\((`[^`]+`(?:,\s*`[^`]+`)+)\)", text):
            names = set(re.findall(r"`([^`]+)`", listed))
            assert any(set(a.choices or ()) == names for a in options.get(option, [])), (page, option, names)
            checked += 1
    assert checked >= 1


@pytest.mark.parametrize("page", ["docs/explanation/in-depth.md"])
def test_the_schedulers_payments_and_consumers_a_page_lists_are_the_codes(page):
    from gamemarket.consumers.catalogue import load_consumers
    from gamemarket.market import PAYMENTS, SCHEDULERS

    text = TEXTS[page]
    schedulers, payments = re.search(r"Schedulers: (.*?)\. Payment schemes: (.*?), with", text).groups()
    assert set(re.findall(r"`([^`]+)`", schedulers)) == {n for n, _ in SCHEDULERS.items() if SCHEDULERS.is_builtin(n)}
    assert set(re.findall(r"`([^`]+)`", payments)) == {n for n, _ in PAYMENTS.items() if PAYMENTS.is_builtin(n)}
    catalogue = re.search(r"a name of the consumer catalogue \((.*?), a grid cell", text).group(1)
    named = re.findall(r"`([^`]+)`", catalogue)
    assert named and set(named) <= set(load_consumers(Path(ROOT / "strategies" / "consumers.toml")))
