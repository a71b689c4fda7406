"""The CLI's text output writes numbers for people (thousands separated, no exponent), through the reports'
one formatter; ``--format json`` keeps every number at full precision."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from gamemarket.cli import main
from gamemarket.cli.output import print_dict, value_text
from gamemarket.io.answers import Interval, MechanismAnswer, ProviderChoice, VerifiedEquilibrium
from gamemarket.reports.console import population_lines
from gamemarket.reports.markdown import num

#: a large number as Python's ``%g`` writes it (``-3.52e+05``): what a person should not have to read (below
#: 1e-4 the formatter keeps an exponent, ``1.2e-07``, which reads better than ``0.00000012``)
EXPONENT = re.compile(r"\d[eE]\+?\d")


def _numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"[-+]?\d[\d,]*(?:\.\d+)?", text)]


def test_print_dict_formats_floats_for_people(capsys):
    print_dict({"welfare": -40557999.7, "inner": {"share": 0.123456789, "n": 3, "prices": [1234567.8, 0.5]}})
    out = capsys.readouterr().out
    assert out == (
        "quantity           value\n"
        "welfare      -40,558,000\n"
        "inner\n"
        "  share         0.123457\n"
        "  n                    3\n"
        "  prices  1,234,570; 0.5\n"
        "rounded: numbers to 6 significant digits\n"
    )
    assert value_text("hb") == "hb" and value_text(float("nan")) == "n/a"


def _summary(text: str) -> dict:
    """A ``quantity  value`` table's rows (the header and the rounding line left out)."""
    rows = [line.split(None, 1) for line in text.splitlines()[1:] if not line.startswith("rounded: ")]
    return {r[0]: r[1] if len(r) > 1 else "" for r in rows}


def test_simulate_text_is_for_people_and_json_is_full_precision(capsys):
    argv = ["simulate", "--synthetic-jobs", "300", "--nodes", "4", "--mix", "SRG", "--payment", "first"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main([*argv, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not EXPONENT.search(text), text
    lines = _summary(text)
    assert abs(data["mean_utility"]) >= 1e4  # a congested market's utilities are large: the case at issue
    for key in ("mean_utility", "welfare", "revenue", "utilization"):
        assert lines[key] == num(data[key], 6)
    assert "," in lines["welfare"]
    assert data["mean_utility"] != float(lines["mean_utility"].replace(",", ""))  # json keeps every digit
    # and the text says so
    assert text.splitlines()[-1] == "rounded: numbers to 6 significant digits (--format json prints every digit)"


def test_price_solve_text_is_for_people(capsys):
    argv = ["price", "solve", "--n", "300", "--m", "3", "--seed", "1"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main([*argv, "--format", "json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not EXPONENT.search(text), text
    summary = _summary(text.split("quantity", 1)[1])
    assert summary["objective"] == num(data["objective"], 10)
    assert summary["prices"] == "; ".join(num(p, 6) for p in data["prices"])


def test_game_solve_text_is_for_people(tmp_path, capsys):
    game = tmp_path / "g.csv"
    game.write_text(
        "row,col,row_payoff,col_payoff\n"
        "a,x,-352123.456,12345.6\na,y,-351000.5,-2.5e5\nb,x,-360000.25,12000.75\nb,y,-349999.5,-250100.0\n"
    )
    assert main(["game", "solve", str(game)]) == 0
    text = capsys.readouterr().out
    assert not EXPONENT.search(text), text
    assert "-352,120" in text and "12,346" in text  # five significant digits in the payoff table
    assert main(["game", "solve", str(game), "--format", "json"]) == 0
    eqs = json.loads(capsys.readouterr().out)
    assert {"row": -352123.456, "col": 12345.6} in [e["payoffs"] for e in eqs]  # every digit


def test_population_summary_is_for_people(capsys):
    answer = MechanismAnswer(
        "hb-first",
        None,
        (0, 1),
        (
            VerifiedEquilibrium(
                {"truthful": 0.25, "shade-0.5": 0.75},
                (0.25, 0.75),
                0.0,
                "stable",
                "verified",
                2.5e-6,
                1.0,
                Interval(1.5e-7, 0.0, 2.5e-6),
                {},
                Interval(1.23456e8, 1.2e8, 1.3e8),
                Interval(0.0, 0.0, 0.0),
                0.0,
                2,
            ),
        ),
        {"shade-0.5": Interval(11730.4, 5329.2, 18120.9)},
        "no",
    )
    text = "\n".join(population_lines(SimpleNamespace(answers=[answer], provider=ProviderChoice(None, (), ()))))
    assert "+11,730 [+5,329, +18,120]" in text and "revenue 123,500,000" in text
    assert "regret 1.5e-07 [0, 2.5e-06]" in text  # below 1e-4 an exponent is what a person reads best


@pytest.mark.parametrize("value", [-3.52e5, 1.173e4, 0.0296, 123456789.0])
def test_no_exponent_where_a_person_reads_the_number(value):
    assert not EXPONENT.search(num(value, 4)) and _numbers(num(value, 4))


def test_a_continuum_of_equilibria_is_counted_past_the_first_twenty():
    """Fuzz run O: a population game whose strategies tie exactly listed 6,817 points of its continuum of
    equilibria, a console line each; the console lists the first 20 and counts the rest (the data tables keep
    every one)."""
    from gamemarket.reports import console

    def eq(k: int):
        share = k / 1000
        return VerifiedEquilibrium(
            {"truthful": share, "shade-0.5": 1 - share}, (share, 1 - share), 0.0, "neutral", "verified", 1e-6, 1.0,
            Interval(0.0, 0.0, 1e-6), {}, Interval(1e8, 1e8, 1e8), Interval(0.0, 0.0, 0.0), 0.0, 2,
        )  # fmt: skip

    for n in (console.MAX_EQUILIBRIA, console.MAX_EQUILIBRIA + 1, 6817):
        answer = MechanismAnswer("hb-first", None, (0, 1), tuple(eq(k) for k in range(n)), {}, "no")
        lines = population_lines(SimpleNamespace(answers=[answer], provider=ProviderChoice(None, (), ())))
        listed = [x for x in lines if x.startswith("  equilibrium ")]
        assert len(listed) == min(n, console.MAX_EQUILIBRIA)
        counted = [x for x in lines if "equilibria, the first 20 listed" in x]
        assert counted == (
            [] if n <= 20 else [f"  {n:,} equilibria, the first 20 listed; the report's data tables list every one"]
        )
