"""Held-out hunt 17a (dask workers that die, a scheduler that goes away, long messages, plugin consumer groups,
SIGTERM): regression rows."""

import json

import pytest

from gamemarket.cli import MAX_MESSAGE, _one_line, main
from gamemarket.errors import shown_list

EO_PD = {
    "id": 1,
    "name": "pd",
    "roles": [{"name": r, "strategies": ["C", "D"], "count": 1} for r in ("row", "col")],
    "profiles": [
        {"id": k, "symmetry_groups": [
            {"id": 2 * k, "role": "row", "strategy": a, "count": 1, "payoff": pay[0]},
            {"id": 2 * k + 1, "role": "col", "strategy": b, "count": 1, "payoff": pay[1]},
        ]}
        for k, (a, b, pay) in enumerate(
            [("C", "C", (3, 3)), ("C", "D", (0, 5)), ("D", "C", (5, 0)), ("D", "D", (1, 1))]
        )
    ],
}  # fmt: skip


def test_an_unknown_strategy_among_200000_declared_is_said_in_a_short_line(tmp_path, capsys):
    """H17a-33: an egta-online game whose role declares 200,000 strategies, its profiles naming others: the error
    listed every declared one, 2,089,139 bytes on one line."""
    game = json.loads(json.dumps(EO_PD))
    game["roles"][0]["strategies"] = [f"s{i}" for i in range(200_000)]
    p = tmp_path / "g.json"
    p.write_text(json.dumps(game))
    assert main(["game", "solve", str(p)]) == 2
    err = capsys.readouterr().err  # (a warning line first: the layout's ids and name are not kept)
    assert err.count("\n") == 2 and len(err) < 600, len(err)
    assert "unknown strategy 'C'; known: ['s0', 's1'," in err and "... and 199,990 more]" in err


def test_shown_list_counts_what_it_leaves_out():
    assert shown_list(["a", "b"]) == "['a', 'b']"
    assert shown_list(range(12)) == "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... and 2 more]"
    assert shown_list([], 3) == "[]"


@pytest.mark.parametrize("n", [MAX_MESSAGE - 1, MAX_MESSAGE, MAX_MESSAGE + 1, 10**6])
def test_no_error_line_is_longer_than_its_bound_and_its_end_is_kept(n):
    """By construction, whatever a message quotes (a library's text, a value): its start and its end (where what
    was expected is said) are kept, the middle cut and counted."""
    text = "x" * (n - len(" expected y")) + " expected y"
    line = _one_line(text)
    assert len(line) <= MAX_MESSAGE and line.endswith(" expected y") and line.startswith("xxx")
    if n > MAX_MESSAGE:
        cut = int(line.split("[... ")[1].split(" characters cut")[0].replace(",", ""))
        assert len(line) - len(" [...  characters cut ...] ") - len(f"{cut:,}") + cut == n
    else:
        assert line == text


def test_a_warning_is_one_line_of_at_most_the_bound(tmp_path, capsys):
    """A warning quoting what a file holds (the fields read past of a game with 100,000 of its own) is one line of
    at most MAX_MESSAGE characters, as an error is."""
    game = {f"x{i}": i for i in range(100_000)}
    game.update(players={"all": 2}, strategies={"all": ["a"]}, profiles=[{"all": [["a", 2, 1.0]]}])
    p = tmp_path / "g.json"
    p.write_text(json.dumps(game))
    assert main(["game", "solve", str(p)]) == 0
    (warning,) = [x for x in capsys.readouterr().err.splitlines() if "warning" in x]
    assert len(warning) <= MAX_MESSAGE + len("gamemarket: warning: ") and "and 99,990 more" in warning
