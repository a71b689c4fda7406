"""Cross-checks against Gambit: enummixed on random games, and Gambit reading our .nfg files.

pygambit builds from source (about 7 minutes here), so it is an optional extra (``gamemarket[gambit]``)
kept out of the default and test installs; these tests skip where it is absent.
"""

import numpy as np
import pytest

gbt = pytest.importorskip("pygambit", reason="pygambit (extra 'gambit') is not installed; it builds from source")

from gamemarket.games import Game, solve  # noqa: E402
from gamemarket.games.io import to_nfg  # noqa: E402


def gambit_equilibria(A, B):
    g = gbt.Game.from_arrays(A, B)
    res = gbt.nash.enummixed_solve(g, rational=False)
    out = []
    p1, p2 = list(g.players)
    for eq in res.equilibria:
        x = tuple(round(float(eq[s]), 6) for s in p1.strategies)
        y = tuple(round(float(eq[s]), 6) for s in p2.strategies)
        out.append((x, y))
    return sorted(out)


@pytest.mark.parametrize("shape", [(3, 3), (4, 4), (3, 6), (6, 6)])
@pytest.mark.parametrize("seed", range(5))
def test_same_equilibria_as_gambit_enummixed(shape, seed):
    rng = np.random.default_rng(seed)
    A, B = rng.standard_normal(shape), rng.standard_normal(shape)
    ours = sorted(
        (tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6)))
        for e in solve(Game(A, B, None, None), methods=("pure", "polytope"), eliminate=False).equilibria
    )
    assert ours == gambit_equilibria(A, B)


def test_gambit_opens_our_nfg(tmp_path):
    rng = np.random.default_rng(3)
    g = Game(
        rng.standard_normal((3, 4)) * 1e6,
        rng.standard_normal((3, 4)) * 1e-9,
        ["a", "b", "c"],
        ["w", "x", "y", "z"],
        title="round trip",
    )
    p = tmp_path / "g.nfg"
    p.write_text(to_nfg(g))
    h = gbt.read_nfg(str(p))
    p1, p2 = list(h.players)
    assert [s.label for s in p1.strategies] == g.rows and [s.label for s in p2.strategies] == g.cols
    for i, s1 in enumerate(p1.strategies):
        for j, s2 in enumerate(p2.strategies):
            assert float(h[s1, s2][p1]) == g.A[i, j] and float(h[s1, s2][p2]) == g.B[i, j]


ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
EXPORTS = sorted(p for p in (ROOT / "reports").glob("*/data/game-*.nfg") if not p.name.endswith(".rescaled.nfg"))


def _gambit_set(game, result) -> set:
    p1, p2 = list(game.players)
    return {
        (tuple(round(float(eq[s]), 6) for s in p1.strategies), tuple(round(float(eq[s]), 6) for s in p2.strategies))
        for eq in result.equilibria
    }


@pytest.mark.parametrize("path", EXPORTS, ids=[f"{p.parts[-3]}/{p.name}" for p in EXPORTS])
def test_gambit_solves_every_committed_export_in_its_rescaled_form(path):
    """Gambit reads each exported game with its payoffs exact; on the rescaled form its enummixed (float and
    rational) finds exactly the equilibria ``game solve`` lists and lcp finds one of them (on the exact form of the
    study games with payoffs near 1e10 beside -1e5, enummixed found none and lcp failed)."""
    from gamemarket.games.io import read_nfg

    assert EXPORTS
    ours_game = read_nfg(path)
    ours = {(tuple(np.round(e.x, 6)), tuple(np.round(e.y, 6))) for e in solve(ours_game).equilibria}
    exact = gbt.read_nfg(str(path))
    p1, p2 = list(exact.players)
    for i, s1 in enumerate(p1.strategies):
        for j, s2 in enumerate(p2.strategies):
            assert float(exact[s1, s2][p1]) == ours_game.A[i, j] and float(exact[s1, s2][p2]) == ours_game.B[i, j]
    small = gbt.read_nfg(str(path.with_name(path.name.replace(".nfg", ".rescaled.nfg"))))
    assert _gambit_set(small, gbt.nash.enummixed_solve(small, rational=False)) == ours
    assert _gambit_set(small, gbt.nash.enummixed_solve(small, rational=True)) == ours
    lcp = _gambit_set(small, gbt.nash.lcp_solve(small, rational=False))
    assert lcp and lcp <= ours


def test_gambit_reads_an_export_whose_names_are_not_its_labels(tmp_path):
    """Hunt 16a-42: a study's strategies named in another script, or with two spaces, were written as they are, and
    Gambit refused the file ("Invalid label"). They are written as labels Gambit reads, said in a warning."""
    names = ["ünï-shade", "two  spaces", ' say "hi" ', "cafe", "café", "消费者"]
    A = np.arange(12.0).reshape(2, 6)
    g = Game(A, -A, ["r 1", "r²"], names, players=("Provider", "Kunde ü"), title="Spiel «1»")
    with pytest.warns(UserWarning, match=r"names written as labels Gambit reads .*'ünï-shade' -> 'uni-shade'"):
        text = to_nfg(g, comment="study «ü»")
    path = tmp_path / "g.nfg"
    path.write_text(text, encoding="utf-8")
    read = gbt.read_nfg(str(path))
    p1, p2 = list(read.players)
    assert [s.label for s in p2.strategies] == ["uni-shade", "two spaces", 'say "hi"', "cafe", "cafe~2", "___"]
    assert [s.label for s in p1.strategies] == ["r 1", "r2"] and p2.label == "Kunde u"


@pytest.mark.parametrize("method", ["gnm", "ipa"])
@pytest.mark.parametrize("scale", [1.0, 1e6, 1e-6, 1e10, -1e-3])
def test_gambits_answer_of_a_scaled_game_is_kept_at_every_scale(method, scale):
    # hunt 39c-F1: GNM's matching pennies (shares to 1e-12) was discarded at scales 1e6 and 1e-6, "none found"
    base = np.array([[1.0, -1.0], [-1.0, 1.0]]) * abs(scale) + (scale < 0)
    sol = solve(Game(base, -base), methods=(method,))
    (e,) = sol.equilibria
    assert np.allclose(e.x, 0.5, atol=1e-9) and np.allclose(e.y, 0.5, atol=1e-9)
    assert max(e.regret) <= 1e-12 * abs(scale) * 2
