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

from gamemarket.games.budget import solver_child, stop_child, time_for_a_child
from gamemarket.io.limits import memory_limit

#: Gambit's methods this module runs: its name for each, and what it is
GAMBIT_METHODS = {
    "gnm": "Gambit's global Newton method (GNM, pygambit): an equilibrium or a few",
    "ipa": "Gambit's iterated polymatrix approximation (IPA, pygambit): an equilibrium",
}
INSTALL = "pip install 'gamemarket[gambit]' (pygambit builds from source, about 7 minutes)"


def available() -> bool:
    """Whether pygambit is installed."""
    return importlib.util.find_spec("pygambit") is not None


#: what pygambit takes to build a game from arrays, a cell (``Game.from_arrays``: its payoffs as exact rationals):
#: bytes and seconds, measured on a random 1,000 x 1,000 game (740 MB and 27 s on a loaded 2-core machine; 520 MB and
#: 16 s of zeros)
GAMBIT_BYTES_PER_CELL = 800
GAMBIT_SECONDS_PER_CELL = 2e-5


def too_large(shape: tuple[int, int], method: str, time_limit: float | None) -> str | None:
    """None where pygambit can build a game of ``shape`` within the memory limit and ``time_limit`` (the seconds
    left; None: no limit), else the problem a note says: started anyway, its child went on building a 5,000 x 5,000
    game (8.6 GB, a minute) after the command had ended (hunt 34b-F1's run); a 12,000 x 12,000 game's would take
    about 115 GB and 48 minutes by the constants above."""
    cells = shape[0] * shape[1]
    need, seconds, limit = cells * GAMBIT_BYTES_PER_CELL, cells * GAMBIT_SECONDS_PER_CELL, memory_limit()
    what = f"gambit {method}: not started: pygambit builds this {shape[0]:,} x {shape[1]:,} game's {cells:,} payoffs"
    if limit is not None and need > limit:
        return f"{what} in about {need / 1e9:.3g} GB, beyond the memory limit of {limit / 1e9:.3g} GB"
    if time_limit is not None and seconds > time_limit:
        return f"{what} in about {seconds:.3g} s, beyond the {time_limit:.3g} s left to it"
    return None


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
    problem = time_for_a_child(time_limit, f"gambit {method}") or too_large(A.shape, method, time_limit)
    if problem:
        return [], problem
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    q = ctx.Queue()
    p = ctx.Process(target=_worker, args=(method, np.asarray(A, float), np.asarray(B, float), q), daemon=True)
    p.start()
    try:
        status, payload = q.get(timeout=time_limit)
    except Exception:  # noqa: BLE001 - queue.Empty: the time limit
        return [], f"gambit {method}: no answer within {time_limit:g} s (stopped)"
    finally:
        stop_child(p)
    if status != "ok":
        return [], f"gambit {method}: {payload}"
    return payload, None
