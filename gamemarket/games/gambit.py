"""Gambit's methods for one equilibrium of a large bimatrix game (pygambit): the global Newton method (GNM) and
iterated polymatrix approximation (IPA), run in a child process under a time limit.

Where the complete enumeration of a game's extreme equilibria would take longer than its time limit (a random 20 x
20 game's best-response polytope may have millions of vertices), :func:`gamemarket.games.equilibria.solve` answers
with one of these instead, and says so. pygambit builds from source (``pip install 'gamemarket[gambit]'``, about 7
minutes); where it is absent, nashpy's Lemke-Howson takes their place.

References
----------
.. [Govindan2003] S. Govindan and R. Wilson, "A global Newton method to compute Nash equilibria", Journal of
   Economic Theory 110 (2003) 65-86.
.. [Govindan2004] S. Govindan and R. Wilson, "Computing Nash equilibria by iterated polymatrix approximation",
   Journal of Economic Dynamics and Control 28 (2004) 1229-1241.
.. [McKelvey2016] R. D. McKelvey, A. M. McLennan and T. L. Turocy, "Gambit: Software Tools for Game Theory",
   version 16 (2016-2025), https://www.gambit-project.org.
"""

from __future__ import annotations

import importlib.util
import multiprocessing as mp

import numpy as np

from gamemarket.games.budget import solver_child

#: Gambit's methods this module runs: its name for each, and what it is
GAMBIT_METHODS = {
    "gnm": "Gambit's global Newton method (GNM, pygambit): an equilibrium or a few",
    "ipa": "Gambit's iterated polymatrix approximation (IPA, pygambit): an equilibrium",
}
INSTALL = "pip install 'gamemarket[gambit]' (pygambit builds from source, about 7 minutes)"


def available() -> bool:
    """Whether pygambit is installed."""
    return importlib.util.find_spec("pygambit") is not None


def _worker(method: str, A: np.ndarray, B: np.ndarray, queue) -> None:
    solver_child()
    try:
        import pygambit as gbt  # deferred: only the child process loads it

        g = gbt.Game.from_arrays(A, B)
        solver = gbt.nash.gnm_solve if method == "gnm" else gbt.nash.ipa_solve
        p1, p2 = list(g.players)
        out = [
            (np.array([float(eq[s]) for s in p1.strategies]), np.array([float(eq[s]) for s in p2.strategies]))
            for eq in solver(g).equilibria
        ]
        queue.put(("ok", out))
    except Exception as exc:  # noqa: BLE001 - a solver failure is reported, not fatal
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def gambit_equilibria(
    A: np.ndarray, B: np.ndarray, method: str, *, time_limit: float | None
) -> tuple[list, str | None]:
    """``(profiles, problem or None)`` of Gambit's ``method`` ("gnm" or "ipa") on the game ``(A, B)``, run in a
    child process stopped at ``time_limit`` seconds (None: no limit). The profiles are not verified here:
    :func:`gamemarket.games.equilibria.solve` keeps those whose regret is within its tolerance."""
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    q = ctx.Queue()
    p = ctx.Process(target=_worker, args=(method, np.asarray(A, float), np.asarray(B, float), q), daemon=True)
    p.start()
    try:
        status, payload = q.get(timeout=time_limit)
    except Exception:  # noqa: BLE001 - queue.Empty: the time limit
        p.terminate()
        p.join(1)
        return [], f"gambit {method}: no answer within {time_limit:g} s (stopped)"
    p.join(1)
    if status != "ok":
        return [], f"gambit {method}: {payload}"
    return payload, None
