"""gamemarket: game-theoretic analysis of computing markets.

Data flows one way: workload -> bids -> simulation -> outcomes -> payoffs -> game -> report.

``gamemarket.simulate_profile(...)`` runs one profile as ``gamemarket simulate`` does (``ProfileRun``: its summary
and per-job outcome as tables); it is loaded on first use, so that ``import gamemarket`` stays light.
"""

__version__ = "0.1.0"

#: Bumped whenever a change alters simulation results; part of every stored result's key.
MODEL_VERSION = "2"

__all__ = ["__version__", "MODEL_VERSION", "GameMarketError", "InputError", "ProfileRun", "simulate_profile"]

#: the names loaded on first use (from ``gamemarket.market.profile``)
_LAZY = ("simulate_profile", "ProfileRun")
#: the errors, loaded on first use too (``gamemarket.errors`` imports numpy): ``import gamemarket`` imports nothing,
#: so that the command's entry point (``gamemarket._start``) handles Ctrl-C before any import that takes time
_ERRORS = ("GameMarketError", "InputError")


def __getattr__(name: str):
    """``simulate_profile`` and ``ProfileRun`` (``gamemarket.market.profile``), ``GameMarketError`` and
    ``InputError`` (``gamemarket.errors``), on first use."""
    if name in _ERRORS:
        from gamemarket import errors  # deferred: numpy

        return getattr(errors, name)
    if name not in _LAZY:
        raise AttributeError(f"module 'gamemarket' has no attribute {name!r}")
    from gamemarket.market import profile  # deferred: numba (the market), for the call that needs it

    return getattr(profile, name)
