"""Record, beside each game file of Gambit's repository kept here, what pygambit reads from it (the payoffs) and the
equilibria Gambit's ``enummixed`` (rational) lists, into ``provenance.json``, with pygambit's version.

Run with pygambit installed (``pip install ".[gambit]"``): ``python tests/games/data/gambit-repository/record.py``.
The files themselves are Gambit's, copied byte for byte; only ``provenance.json``'s ``read`` entries are written here.
"""

import json
import platform
from pathlib import Path

import pygambit as gbt

HERE = Path(__file__).resolve().parent


def main() -> None:
    prov = json.loads((HERE / "provenance.json").read_text())
    prov["read_by"] = {"tool": "pygambit", "version": gbt.__version__, "python": platform.python_version()}
    for name, entry in prov["files"].items():
        h = gbt.read_nfg(str(HERE / name))
        p1, p2 = list(h.players)
        payoffs = [[[str(h[s1, s2][p]) for s2 in p2.strategies] for s1 in p1.strategies] for p in (p1, p2)]
        res = gbt.nash.enummixed_solve(h, rational=True)
        eqs = [[[str(eq[s]) for s in p.strategies] for p in (p1, p2)] for eq in res.equilibria]
        entry["read"] = {
            "players": [p.label for p in (p1, p2)],
            "strategies": [[s.label for s in p.strategies] for p in (p1, p2)],
            "payoffs": payoffs,
            "enummixed_rational": eqs,
        }
    (HERE / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")


if __name__ == "__main__":
    main()
