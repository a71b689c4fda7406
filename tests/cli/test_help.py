"""The command line's help: every argument says what it is and, where it has one, its default; every command
shows an example; an option name means one thing, and the old spellings still work, with a warning."""

import argparse
import re

import pytest

from gamemarket.cli import build_parser, main
from gamemarket.cli.options import DeprecatedAlias, HelpFormatter


def _parsers(parser: argparse.ArgumentParser, path=("gamemarket",)):
    """Every (command path, parser) pair, depth first, the top-level parser included."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def _leaf(parser) -> bool:
    return not any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


FLAGS = (argparse._StoreTrueAction, argparse._StoreFalseAction, argparse._HelpAction, argparse._VersionAction)


def _arguments():
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if not isinstance(action, argparse._SubParsersAction):
                yield " ".join(path), parser, action


def test_every_argument_has_help():
    missing = [f"{cmd} {a.option_strings or a.dest}" for cmd, _, a in _arguments() if not (a.help or "").strip()]
    assert not missing, f"arguments without help: {missing}"


def test_every_option_with_a_value_shows_its_default_or_that_it_is_required():
    silent = []
    for cmd, parser, action in _arguments():
        if not action.option_strings or isinstance(action, (*FLAGS, DeprecatedAlias)):
            continue
        shown = parser._get_formatter()._expand_help(action)  # the help as --help prints it
        if "default" not in shown and "required" not in shown:
            silent.append(f"{cmd} {action.option_strings[0]}")
    assert not silent, f"options whose help states no default: {silent}"


def test_every_command_has_an_example_and_keeps_its_lines(capsys):
    for path, parser in _parsers(build_parser()):
        if _leaf(parser):
            assert parser.epilog and f"gamemarket {' '.join(path[1:])}" in parser.epilog, path
        assert parser.formatter_class is HelpFormatter, path
    with pytest.raises(SystemExit):
        main(["study", "run", "--help"])
    out = capsys.readouterr().out
    assert "examples:\n  gamemarket study run studies/default.toml\n" in out
    assert "--n-jobs N_JOBS       worker processes (-1: all cores) (default: -1)" in out


def test_no_help_shows_an_empty_default():
    """Every command's --help, as printed: no ``(default: )``, ``(default: None)`` or ``(default: [])``."""
    empty = re.compile(r"default:\s*(\)|None\b|\[\])")
    bad = []
    for path, parser in _parsers(build_parser()):
        text = parser.format_help()
        bad += [f"{' '.join(path)}: ...{text[max(m.start() - 60, 0) : m.end()]!r}" for m in empty.finditer(text)]
    assert not bad, bad


def test_an_empty_default_is_not_shown_and_a_said_one_is_kept():
    p = argparse.ArgumentParser(formatter_class=HelpFormatter)
    p.add_argument("--names", nargs="*", default=[], help="some names")
    p.add_argument("--tag", default="", help="a tag")
    p.add_argument("--n", type=int, default=3, help="a count")
    text = " ".join(p.format_help().split())
    assert "some names --tag" in text and "a tag --n" in text and "a count (default: 3)" in text
    assert "default: )" not in text


def test_an_option_means_one_thing():
    """``--jobs`` is gone as a current name: a job table is ``--job-table``, a count ``--synthetic-jobs``."""
    for cmd, _, action in _arguments():
        if "--jobs" in action.option_strings:
            assert isinstance(action, DeprecatedAlias), cmd
    aliases = {cmd: a.new for cmd, _, a in _arguments() if isinstance(a, DeprecatedAlias)}
    assert aliases == {"gamemarket simulate": "--job-table", "gamemarket workload compare": "--synthetic-jobs"}


def test_the_old_spelling_of_a_job_table_works_and_warns(tmp_path, capsys):
    table = tmp_path / "t.csv"
    assert main(["simulate", "--synthetic-jobs", "40", "--jobs-out", str(table), "--format", "json"]) == 0
    new = capsys.readouterr()
    assert "deprecated" not in new.err
    assert main(["simulate", "--job-table", str(table), "--nodes", "8", "--format", "json"]) == 0
    by_new = capsys.readouterr()
    assert main(["simulate", "--jobs", str(table), "--nodes", "8", "--format", "json"]) == 0
    by_old = capsys.readouterr()
    assert by_old.err.splitlines() == ["gamemarket: warning: --jobs is deprecated and will be removed; use --job-table"]
    drop = lambda text: [line for line in text.splitlines() if '"seconds"' not in line]  # noqa: E731
    assert drop(by_old.out) == drop(by_new.out)


def test_the_old_spelling_of_a_job_count_works_and_warns():
    parser = build_parser()
    new = parser.parse_args(["workload", "compare", "a", "b", "--nodes", "3", "--synthetic-jobs", "60"])
    assert new.synthetic_jobs == 60
    assert parser.parse_args(["workload", "compare", "a", "b", "--nodes", "3"]).synthetic_jobs is None


def test_the_old_count_spelling_prints_one_warning(capsys):
    args = build_parser().parse_args(["workload", "compare", "a", "b", "--nodes", "3", "--jobs", "60"])
    assert args.synthetic_jobs == 60
    assert capsys.readouterr().err == (
        "gamemarket: warning: --jobs is deprecated and will be removed; use --synthetic-jobs\n"
    )
