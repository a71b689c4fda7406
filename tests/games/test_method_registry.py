"""The equilibrium methods are a registry, like the schedulers: one default, written once, read by every solver and
command; an unknown name is an error listing the registered ones."""

from __future__ import annotations

import numpy as np
import pytest

from gamemarket.errors import InputError
from gamemarket.games import DEFAULT_METHODS, EQUILIBRIUM_METHODS, Game, solve
from gamemarket.games.equilibria import register_method
from gamemarket.registry import Registry

COORDINATION = Game(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]), ["a", "b"], ["c", "d"])


def test_the_methods_are_a_registry_with_their_default():
    assert isinstance(EQUILIBRIUM_METHODS, Registry)
    assert set(EQUILIBRIUM_METHODS) == {
        *("pure", "polytope"),
        *("support_enumeration", "vertex_enumeration", "lemke_howson", "lemke_howson_first"),  # nashpy's
        *("gnm", "ipa"),  # Gambit's, where pygambit is installed
    }
    assert DEFAULT_METHODS == ("pure", "polytope") and all(EQUILIBRIUM_METHODS.is_builtin(m) for m in DEFAULT_METHODS)
    sol = solve(COORDINATION)
    assert {m for e in sol.equilibria for m in e.methods} == set(DEFAULT_METHODS) and len(sol.equilibria) == 3


def test_an_unknown_method_is_refused_before_any_runs_listing_the_registered_ones():
    with pytest.raises(InputError, match=r"unknown method 'simplex'; expected one of \[.*'polytope', 'pure'"):
        solve(COORDINATION, methods=("pure", "simplex"))


def test_a_registered_method_is_solved_with_and_verified():
    def first_cell(A, B, tol, time_limit, notes):
        return [(np.array([1.0, 0.0]), np.array([1.0, 0.0])), (np.array([1.0, 0.0]), np.array([0.0, 1.0]))], False

    register_method("first-cell", first_cell, "the first cell, and a profile that is no equilibrium")
    try:
        sol = solve(COORDINATION, methods=("first-cell",))
        assert [e.methods for e in sol.equilibria] == [{"first-cell"}]
        assert any("not an equilibrium (discarded)" in n for n in sol.notes)
        with pytest.raises(InputError, match="built in"):
            register_method("pure", first_cell, "no", replace=True)
    finally:
        EQUILIBRIUM_METHODS.remove("first-cell")


@pytest.mark.parametrize("command", [["study", "run"], ["game", "solve"], ["game", "export"], ["report"]])
def test_every_methods_option_lists_the_registry_and_its_default(command, capsys):
    from gamemarket.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser([*command, "--help"]).parse_args([*command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "{" + ",".join(EQUILIBRIUM_METHODS) + "}" in text
    assert all(f"{name}: {m.description}" in text for name, m in EQUILIBRIUM_METHODS.items())
    assert f"(default: {' '.join(DEFAULT_METHODS)})" in text
