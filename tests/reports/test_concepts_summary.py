"""A report's paragraph beside a game's Nash equilibria: the logit selection, alpha-rank's first profiles, and a
sentence where they disagree (#46 item 5)."""

from pathlib import Path

import numpy as np

from gamemarket.games.bimatrix import Game
from gamemarket.games.equilibria import solve
from gamemarket.games.io import read_nfg
from gamemarket.reports.concepts import concepts_summary

ROOT = Path(__file__).parents[2]


def _listed(g):
    return [np.concatenate([e.x, e.y]) for e in solve(g).equilibria]


def test_agreement_on_a_dominant_strategy_game():
    g = Game([[3, 0], [5, 1]], [[3, 5], [0, 1]], ["cooperate", "defect"], ["cooperate", "defect"])
    s = concepts_summary(g, _listed(g))
    assert s["selection"] == 0 and s["first_equilibrium"] == 0
    assert "ends at equilibrium 1 (provider defect; consumer defect)" in s["words"]
    assert s["words"].endswith("Nash, the logit selection and alpha-rank agree.")


def test_disagreement_where_the_first_profile_is_no_equilibrium():
    """Matching pennies: the logit selection is the mixed equilibrium; alpha-rank's profiles are on a cycle."""
    g = Game([[1, -1], [-1, 1]], [[-1, 1], [1, -1]])
    s = concepts_summary(g, _listed(g))
    assert s["selection"] == 0 and s["first_equilibrium"] is None
    assert "They disagree: alpha-rank's first profile" in s["words"] and "none of the listed equilibria" in s["words"]


def test_agreement_on_the_risk_dominant_equilibrium_of_a_stag_hunt():
    g = Game([[9, 0], [8, 7]], [[9, 8], [0, 7]], ["A", "B"], ["A", "B"])
    s = concepts_summary(g, _listed(g))
    assert s["selection"] == s["first_equilibrium"] == 1  # (B, B), the risk-dominant one
    assert s["words"].endswith("agree.")


def test_disagreement_on_an_asymmetric_battle_of_the_sexes():
    """Each player prefers its own pure equilibrium tenfold: the logit rule selects the mixed equilibrium, and
    alpha-rank ties the two pure ones first."""
    g = Game([[10, 0], [0, 1]], [[1, 0], [0, 10]], ["A", "B"], ["A", "B"])
    listed = _listed(g)
    s = concepts_summary(g, listed)
    assert len(listed) == 3 and not np.isin(listed[s["selection"]], (0.0, 1.0)).all()
    assert s["words"].endswith(
        f"They disagree: alpha-rank ties 2 profiles first, the logit rule selects equilibrium {s['selection'] + 1}."
    )


def test_committed_games_say_something():
    for path in sorted(ROOT.glob("reports/*/data/game-all-jobs.nfg")):
        g = read_nfg(path)
        s = concepts_summary(g, _listed(g))
        assert "error" not in s and s["selection"] is not None, path


def test_population_report_lines_per_mechanism():
    """The population report's lines: one per mechanism with a reduced game, none for one read from a file."""
    from types import SimpleNamespace

    from gamemarket.games.egta import read_egta
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.reports.population import _concepts_lines

    g = read_egta(ROOT / "reports/population-default/data/game-hb-first.json")
    eqs = [SimpleNamespace(mixture_vector=tuple(e.mixture)) for e in equilibria(g).equilibria]
    lines = _concepts_lines([SimpleNamespace(mechanism="hb-first", game=g, equilibria=eqs)])
    assert lines[1] == "Other solution concepts, on each mechanism's reduced game:"
    assert lines[3].startswith("- hb-first: The logit QRE's principal branch ends at equilibrium 1")
    # alpha-rank's first profile, everyone truthful (counts 4, 0), is the equilibrium "truthful" (shares 1, 0): the
    # paragraph once said it was no equilibrium, beside a table listing it
    assert lines[3].endswith("Nash, the logit selection and alpha-rank agree."), lines[3]
    assert _concepts_lines([SimpleNamespace(mechanism="x", game=None, equilibria=())]) == []


def test_a_verified_limit_the_search_missed_is_called_an_equilibrium():
    """A role-symmetric game whose listed equilibria lack the one the logit branch ends at (as where support
    enumeration, a statistic, missed it: here it is taken out of the list): the paragraph says the limit is an
    equilibrium the list does not include, and why."""
    from gamemarket.games.rsg_equilibria import equilibria
    from gamemarket.games.rsgame import RoleSymmetricGame

    g = RoleSymmetricGame.random([3, 3], [3, 3], np.random.default_rng(5))
    limit = concepts_summary(g, [e.mixture for e in equilibria(g).equilibria])["limit"]
    listed = [e.mixture for e in equilibria(g).equilibria if np.abs(e.mixture - limit).max() > 1e-6]
    s = concepts_summary(g, listed)
    assert s["selection"] is None and s["regret"] <= 1e-12
    assert "an equilibrium (its regret" in s["words"] and "the listed equilibria do not include" in s["words"]
    assert "Newton starts reached, a statistic: it missed this one" in s["words"]


def test_an_unverified_limit_is_not_called_an_equilibrium(monkeypatch):
    import gamemarket.reports.concepts as concepts

    g = Game([[3, 0], [5, 1]], [[3, 5], [0, 1]])
    br = concepts.logit_branch(g)
    br.polished, br.limit_regret = False, (0.25, 0.0)
    br.limit = np.array([0.5, 0.5, 0.5, 0.5])
    monkeypatch.setattr(concepts, "logit_branch", lambda game: br)
    s = concepts_summary(g, _listed(g))
    assert "ends near" in s["words"] and "not verified as an equilibrium" in s["words"]
