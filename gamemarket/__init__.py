"""gamemarket: game-theoretic analysis of computing markets.

Data flows one way: workload -> bids -> simulation -> outcomes -> payoffs -> game -> report.

``gamemarket.simulate_profile(...)`` runs one profile as ``gamemarket simulate`` does (``ProfileRun``: its summary
and per-job outcome as tables); it is loaded on first use, so that ``import gamemarket`` stays light.
"""

import os
import sys
import tempfile

__version__ = "0.1.0"


def numba_cache_dir() -> str | None:
    """Where numba must keep its compiled functions' cache for this user, or None where numba's own choice works.

    numba caches next to the package (``__pycache__``), else in the user's cache folder (``~/.cache/numba``); where
    neither can be written (another user of a shared install, whose home is not writable), every ``cache=True``
    function raised "cannot cache function: no locator available" as gamemarket was imported: even ``gamemarket
    --version`` was a 44-line traceback (hunt 16d). Then a folder of this user's own in the temporary folder is used
    (made private; one another user made, or that others may write, is not: numba's cache is code it runs)."""
    if os.environ.get("NUMBA_CACHE_DIR", "").strip():
        return None
    if os.access(os.path.dirname(os.path.abspath(__file__)), os.W_OK):
        return None
    user = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numba")
    try:
        os.makedirs(user, exist_ok=True)
        if os.access(user, os.W_OK | os.X_OK):
            return None
    except OSError:
        pass
    mine = os.path.join(tempfile.gettempdir(), f"gamemarket-numba-{os.getuid()}")
    try:
        os.makedirs(mine, mode=0o700, exist_ok=True)
        st = os.lstat(mine)
        if os.path.isdir(mine) and not os.path.islink(mine) and st.st_uid == os.getuid() and not st.st_mode & 0o022:
            return mine
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="gamemarket-numba-")  # private to this process: no reuse, but safe


def _set_numba_cache() -> None:
    """Point numba at :func:`numba_cache_dir` where its own choice fails, before numba reads its configuration."""
    where = numba_cache_dir()
    if where is not None:
        os.environ["NUMBA_CACHE_DIR"] = where
        config = getattr(sys.modules.get("numba"), "config", None)
        if config is not None:  # numba imported already (by the caller): its configuration read, so set there too
            config.CACHE_DIR = where


_set_numba_cache()

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
