"""Every command's text tables come from one writer (``gamemarket.cli.output``): a header, columns two spaces apart
at least, numbers as the reports write them, whole numbers whole, any rounding said below the table, and a table
wider than the terminal cut into blocks that repeat the row labels."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gamemarket.cli import main
from gamemarket.cli.output import Figure, Parts, RowWriter, table_lines, terminal_width, value_text

ROOT = Path(__file__).resolve().parents[2]
GAP = re.compile(r"\s{2,}")


def _fields(line: str) -> list[str]:
    return GAP.split(line.strip())


def test_wide_cells_keep_two_spaces_between_columns():
    """``game solve`` once printed ``646,160,000 ± 43,000,000592,840,000 ± ...``: a cell wider than a fixed width."""
    cell = Parts((Figure(646_161_234.5, 5, what="means"), " ± ", Figure(43_012_345.6, 2, what="half-widths")))
    lines = table_lines(("provider", "FT", "SRG"), [("hb-first", cell, cell), ("hb-kth", 1.5, 2.5)])
    assert lines[0].split() == ["provider", "FT", "SRG"]
    assert _fields(lines[1]) == ["hb-first", "646,160,000 ± 43,000,000", "646,160,000 ± 43,000,000"]
    assert lines[2].endswith("1.5  " + " " * (len("646,160,000 ± 43,000,000") - 3) + "2.5")  # numbers to the right
    assert lines[-1] == "rounded: means to 5 significant digits; half-widths to 2 significant digits"


def test_whole_numbers_are_written_whole_and_unrounded_tables_say_nothing():
    """``simulate`` once printed ``revenue: 6,059,480`` for 6,059,482, nothing saying it was rounded."""
    assert value_text(6059482.0) == "6,059,482" and value_text(6059482) == "6,059,482"
    assert value_text(True) == "yes" and value_text([1.0, 2.5]) == "1; 2.5"  # "," is the thousands separator
    lines = table_lines(("quantity", "value"), [("revenue", 6059482.0), ("share", 0.25), ("mix", "SRG")])
    assert lines == ["quantity  value", "revenue   6,059,482", "share     0.25", "mix       SRG"]
    lines = table_lines(("quantity", "value"), [("revenue", 6059482.4)], full="--format json prints every digit")
    assert lines[1:] == [
        "revenue   6,059,480",
        "rounded: numbers to 6 significant digits (--format json prints every digit)",
    ]


def test_rounding_rules_are_said_per_kind_of_number():
    rows = [("a", Figure(0.12345, 2), Figure(0.0705, 1, "percent", what="shares"), Figure(1.234, 2, "fixed"))]
    rows.append(("b", Figure(0.12345, 3), Figure(0.5, 1, "percent", what="shares"), 7))
    (note,) = [x for x in table_lines(("x", "y", "z", "w"), rows) if x.startswith("rounded")]
    assert note == (
        "rounded: numbers to 2 or 3 significant digits; shares to 1 decimal of a percent; numbers to 2 decimals"
    )


@pytest.mark.parametrize("columns", [200, 48])
def test_a_table_on_a_wide_and_a_narrow_terminal(columns):
    headers = ("provider", *(f"consumer-{k}" for k in range(6)))
    rows = [(f"p{i}", *(Figure(-123456.789 * (i + 1) * (k + 1), 5) for k in range(6))) for i in range(3)]
    lines = table_lines(headers, rows, width=columns, indent=2)
    blocks = "\n".join(lines).split("\n\n")
    seen = set()
    for block in blocks:
        head, *body = block.splitlines()
        assert head.startswith("  provider")  # each block repeats the row labels
        for line in body:
            if line.startswith("  rounded"):
                continue
            assert len(line) <= columns and len(_fields(line)) == len(head.split())
            seen.update(_fields(line)[1:])
        assert len(head) <= columns
    assert (len(blocks) == 1) == (columns == 200)
    assert seen == {value_text(Figure(-123456.789 * (i + 1) * (k + 1), 5)) for i in range(3) for k in range(6)}
    assert all(len(x) <= columns for x in lines)  # the rounding line too, wrapped


def test_the_width_is_the_terminals_or_none(monkeypatch):
    monkeypatch.setenv("COLUMNS", "61")
    assert terminal_width() == 61
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() is None  # pytest's captured stdout is no terminal: a file gets whole rows


def test_a_streamed_table_keeps_its_columns(capsys):
    w = RowWriter(("evaluation", "dual"), (4, 16), indent=2)
    w.row((1, Figure(-325.59443371, 10, what="duals")))
    w.row((12345, Figure(-1.5, 10, what="duals")))
    w.close()
    assert capsys.readouterr().out.splitlines() == [
        "  evaluation              dual",
        "           1      -325.5944337",
        "      12,345              -1.5",
        "  rounded: duals to 10 significant digits",
    ]


def _game(tmp_path) -> Path:
    game = tmp_path / "g.csv"
    rows = ["provider,consumer,provider_payoff,consumer_payoff"]
    for i, p in enumerate(["hb-first", "hb-kth", "nphb-first-with-a-long-name"]):
        for j, c in enumerate(["FT", "SRG", "DEV1", "LRG", "UNI50"]):
            rows.append(f"{p},{c},{646160000.5 - 1e7 * (i + j)},{-591230.25 - 1000 * (i * j)}")
    game.write_text("\n".join(rows) + "\n")
    return game


@pytest.mark.parametrize("columns", ["250", "60"])
def test_game_solve_on_a_wide_and_a_narrow_terminal(tmp_path, capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    game = _game(tmp_path)
    assert main(["game", "solve", str(game)]) == 0
    text = capsys.readouterr().out
    headers = [line for line in text.splitlines() if line.split()[:2] == ["provider", "FT"]]
    assert len(headers) == 2  # two payoff tables: whole, or cut into blocks, the first block's header with FT
    assert ("\n\n" in text) == (columns == "60")
    for line in text.splitlines():
        if line.startswith("  hb-") or line.startswith("  nphb-"):
            assert len(line) <= int(columns)
            assert all(GAP.search(x) is None for x in _fields(line))  # cells apart, each its own field
    assert "646,160,000" in text and "rounded: means to 5 significant digits" in text
    assert main(["game", "solve", str(game), "--format", "json"]) == 0  # unchanged: every digit
    assert {"provider": 646160000.5, "consumer": -591230.25} in [
        e["payoffs"] for e in json.loads(capsys.readouterr().out)
    ]


def test_workload_compare_prints_one_aligned_table(capsys):
    model = str(ROOT / "models" / "lpc-egee-2004.toml")
    argv = ["workload", "compare", model, model, "--nodes", "8", "--synthetic-jobs", "300"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["statistic", "lpc-egee-2004.toml", "(seed", "1)", "lpc-egee-2004.toml", "(seed", "1)'"]
    k = next(i for i, line in enumerate(lines) if line.startswith("rounded: "))
    rows = lines[2:k]
    assert len(rows) == 14
    # after the table, each statistic shown n/a with why (300 jobs span less than four days: no daily cycle)
    assert lines[k + 1 :] and all(line.startswith("n/a: ") for line in lines[k + 1 :])
    ends = {len(line) for line in rows}
    assert ends == {len(lines[1])}  # every number ends where its header does: aligned right
    assert all(len(_fields(line)) == 3 for line in rows)
    jobs = _fields(rows[0])
    assert jobs == ["jobs", "300", "300"]  # a count whole
