"""Write the Gambit fixtures of this folder with pygambit (the files as Gambit writes them) and record their
provenance and payoffs in ``provenance.json``: run with pygambit installed (``pip install 'gamemarket[gambit]'``),

    python tests/games/data/gambit/make_fixtures.py

``tests/games/test_gambit_files.py`` reads the files without pygambit and checks them against the payoffs recorded
here; ``tests/games/test_gambit.py`` (where pygambit is installed) solves the reports' exports with it.
"""

from __future__ import annotations

import json
import platform
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pygambit as gbt

HERE = Path(__file__).resolve().parent


def _label(g, names_rows, names_cols, players):
    p1, p2 = list(g.players)  # indexing g.players takes a label, not a position
    for s, name in zip(p1.strategies, names_rows):
        s.label = name
    for s, name in zip(p2.strategies, names_cols):
        s.label = name
    for p, name in zip((p1, p2), players):
        p.label = name
    return g


def _cases():
    rng = np.random.default_rng(11)
    yield (
        "prisoners-dilemma",
        "Game.from_arrays of integers, players and strategies labelled, to_nfg()",
        _label(
            gbt.Game.from_arrays(np.array([[3, 0], [5, 1]]), np.array([[3, 5], [0, 1]]), title="Prisoner's dilemma"),
            ["cooperate", "defect"],
            ["cooperate", "defect"],
            ["Row player", 'The "column" player'],
        ),
    )
    yield (
        "study-sized-floats",
        "Game.from_arrays of floats of a study's sizes (1e10 beside -1e5), unlabelled, to_nfg()",
        gbt.Game.from_arrays(rng.random((3, 4)) * 1e10, -rng.random((3, 4)) * 1e5, title="floats"),
    )
    yield (
        "rationals",
        "Game.from_arrays of fractions.Fraction, to_nfg() (payoffs written as a/b)",
        gbt.Game.from_arrays(
            np.array([[Fraction(1, 3), Fraction(2, 7)], [Fraction(-5, 2), 1]], dtype=object),
            np.array([[Fraction(3, 4), 0], [2, Fraction(1, 9)]], dtype=object),
            title="rationals",
        ),
    )
    yield (
        "three-players",
        "Game.new_table([2, 2, 2]) with integer payoffs: a game gamemarket refuses (two players only)",
        gbt.Game.from_arrays(*(rng.integers(0, 5, (2, 2, 2)) for _ in range(3)), title="three players"),
    )


def main() -> None:
    prov = {
        "tool": "pygambit",
        "version": gbt.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "how": "each file is pygambit's Game.to_nfg() of the game below, written as it returns it",
        "files": {},
    }
    for name, how, g in _cases():
        path = HERE / f"{name}.nfg"
        path.write_text(g.to_nfg())
        arrays = [np.vectorize(float)(np.asarray(a, dtype=object)).tolist() for a in g.to_arrays()]
        prov["files"][path.name] = {"made": how, "payoffs": arrays}
    (HERE / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")


if __name__ == "__main__":
    main()
