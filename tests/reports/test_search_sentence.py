"""A population report's sentence on how thoroughly the reduced games were searched: its counts are the records',
and its stopping rule is the search's own (``support_newton``'s constants), met or not."""

from types import SimpleNamespace

from gamemarket.games import support_newton
from gamemarket.reports.population import _search_sentence


def _answer(**search):
    base = {"supports": 40, "starts": 1000, "roots": 12, "singletons": 0, "open_supports": 0}
    return SimpleNamespace(search={**base, **search})


def test_a_search_that_met_its_rule_everywhere_says_so_with_the_rule():
    s = _search_sentence([_answer(), _answer(starts=500, roots=3)])
    assert "(1,500 starts over the 2 mechanisms, 15 distinct roots, 0 of them reached by a single start;" in s
    rule = (
        f"each root reached at least twice, and at least {support_newton.MIN_HITS} convergences and "
        f"{support_newton.HITS_PER_ROOT} per distinct root)"
    )
    assert f"every support's search ended by its stopping rule: {rule}" in s


def test_supports_whose_budget_ran_out_are_counted():
    s = _search_sentence([_answer(open_supports=2, singletons=1), _answer(open_supports=1)])
    assert "1 of them reached by a single start; the budgets of 3 supports ran out before their stopping rule" in s


def test_no_record_no_counts():
    assert "replicator dynamics and polish only" in _search_sentence([SimpleNamespace(search=None)])


def test_a_search_that_found_no_root_claims_no_rule_about_roots():
    """Hunt 12: with no root anywhere, "each root reached at least twice" held of nothing; the sentence says none
    was found instead."""
    s = _search_sentence([_answer(roots=0), _answer(roots=0, starts=500)])
    assert "1,500 starts over the 2 mechanisms, and no support's system had a root" in s
    assert "at least twice" not in s and "distinct roots" not in s


def test_the_simultaneous_answer_says_on_which_seeds_its_revenue_was_measured():
    """Hunt 13: the mechanism table gave hb-first's revenue at all-truthful over 4 seeds (the adaptive looks), the
    simultaneous sentence over the study's 2, and neither said why the two figures differed."""
    from gamemarket.reports.population import _provider_section

    provider = SimpleNamespace(
        ranking=[], simultaneous=[SimpleNamespace(mechanism="hb-first", mixture={"t": 1.0}, revenue=5.0)]
    )
    an = SimpleNamespace(provider=provider, spec=SimpleNamespace(seeds=[1, 2]))
    text = "\n".join(_provider_section(an, []))
    assert (
        "every mechanism simulated at that mixture on the study's 2 seeds, which the tables above may have added"
        in text
    )
