"""Write the nashpy fixtures of this folder: games made with nashpy and saved as its users save them (the payoff
matrices nashpy holds, ``numpy.savez``), with nashpy's own equilibria of each in ``provenance.json``:

    python tests/games/data/nashpy/make_fixtures.py

``tests/games/test_gambit_files.py`` reads them with ``game solve``'s reader and checks gamemarket's equilibria
against nashpy's recorded ones.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nashpy as nash
import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(5)
    games = {  # the file, how it was saved, and the game's payoffs (integers: a degenerate game may come out)
        "named.npz": ("np.savez(path, A=A, B=B) of nash.Game(A, B).payoff_matrices", (3, 3)),
        "in-turn.npz": ("np.savez(path, *nash.Game(A, B).payoff_matrices)", (4, 3)),
        "stacked.npz": ("np.savez(path, np.stack(nash.Game(A, B).payoff_matrices))", (2, 5)),
    }
    prov = {"tool": "nashpy", "version": nash.__version__, "numpy": np.__version__, "python": sys.version.split()[0]}
    prov["files"] = {}
    for name, (how, shape) in games.items():
        g = nash.Game(rng.random(shape), rng.random(shape))
        M = g.payoff_matrices
        if name == "named.npz":
            np.savez(HERE / name, A=M[0], B=M[1])
        elif name == "in-turn.npz":
            np.savez(HERE / name, *M)
        else:
            np.savez(HERE / name, np.stack(M))
        eqs = [[np.round(x, 9).tolist(), np.round(y, 9).tolist()] for x, y in g.support_enumeration()]
        prov["files"][name] = {"made": how, "support_enumeration": eqs}
    (HERE / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")


if __name__ == "__main__":
    main()
