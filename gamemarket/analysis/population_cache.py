"""The cache of a population study's analysis: its key, and its file (data only, read back exactly).

An analysis is a function of the study, the analysing code and the stored runs (:func:`analysis_key`), so it is
kept under ``<results>/analysis/population-<key>.json`` and read back instead of solved again. The file is data
only (JSON: numbers, strings, lists; the games as their profile and payoff arrays; a float that JSON cannot hold,
NaN or an infinity, as a tagged string of its bits): reading it never runs code from it. A file that does not parse,
records another key, or does not hold an analysis of this study is set aside and the analysis computed again. Its
parts are the answer's own types (``gamemarket.io.answers``) in their JSON layout; this module adds the tags.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import struct
import warnings
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError
from gamemarket.games.rsgame import RoleSymmetricGame
from gamemarket.io.answers import (
    MechanismAnswer,
    PopulationAnalysis,
    PopulationMeta,
    ProviderChoice,
    RunAccounting,
)
from gamemarket.io.files import atomic_path, read_json
from gamemarket.studies.population import study_inputs
from gamemarket.studies.store import set_aside

#: the code that decides a population analysis from its stored runs: any change to it is a new cache key
_ANALYSIS_CODE = (
    "games",
    "analysis/population.py",
    "analysis/population_cache.py",
    "io/answers.py",
    "search/population.py",
    "studies/population.py",
    "studies/population_config.py",
    "confidence.py",
    "__init__.py",
)

#: what a cached analysis file holds (its ``format`` and ``version``); any other file is set aside, never read
CACHE_FORMAT = "gamemarket population analysis"
CACHE_VERSION = 3  # 3: the file records the SHA-256 of its contents (hunt 16e: an edited cache was used)


def analysis_key(spec) -> str:
    """The key of a population study's analysis: a hash of the study (every field), what its runs' keys hold beside
    it (its plugins' text and its workload's content: ``gamemarket.studies.population.study_inputs``), the code that
    analyses it (``_ANALYSIS_CODE``, byte for byte) and the names and sizes of its stored runs. The analysis is a
    function of these alone, so a cached one with the same key is the same answer."""
    h = hashlib.sha256()
    # paths relative to the study file: a study copied with its results keeps its key
    base = Path(spec.path).parent if spec.path else None
    h.update(json.dumps(spec.to_dict(base), sort_keys=True, default=str).encode())
    h.update(json.dumps(study_inputs(spec), sort_keys=True).encode())  # what the runs' keys hold beside the file
    h.update(_code_hash().encode())
    runs = Path(spec.results_dir) / "population"
    if runs.is_dir():
        for e in sorted(os.scandir(runs), key=lambda e: e.name):
            if e.name.endswith(".json"):
                h.update(f"{e.name} {e.stat().st_size}\n".encode())
    return h.hexdigest()[:32]


@functools.lru_cache(maxsize=1)
def _code_hash() -> str:
    """The hash of the analysing code (``_ANALYSIS_CODE``, byte for byte) as this process first read it: once
    per process, so that a process whose files are edited while it runs still files its answer under the
    code it started with, not under the edited code's key."""
    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parents[1]
    for rel in _ANALYSIS_CODE:
        path = pkg / rel
        for f in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(f.relative_to(pkg).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


#: the cache file's field holding the SHA-256 of the rest (:func:`_digest`): an analysis edited by hand (its leader
#: changed, hunt 16e) is set aside and computed again, not reported
DIGEST_FIELD = "sha256"


def _digest(data: dict) -> str:
    """SHA-256 of a cache file's object (its digest field left out), as JSON with sorted keys."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, allow_nan=False).encode()).hexdigest()


def _analysis_path(spec, key: str) -> Path:
    return Path(spec.results_dir) / "analysis" / f"population-{key}.json"


def read_analysis(spec) -> PopulationAnalysis | None:
    """The cached analysis with the current key, or None; a file that does not read back as one is set aside."""
    key = analysis_key(spec)
    path = _analysis_path(spec, key)
    if not path.is_file():
        return None
    try:
        data = read_json(path, "cached analysis")
        if isinstance(data, dict) and data.pop(DIGEST_FIELD, None) != _digest(data):
            raise ValueError("its contents are not those gamemarket wrote (edited since)")
        return analysis_from_json(data, spec, key=key)
    except Exception as exc:  # damaged, foreign or malformed (data only: nothing in it can run): computed again
        set_aside(path, f"{type(exc).__name__}: {exc}", "cached analysis")
        return None


def write_analysis(spec, an: PopulationAnalysis) -> None:
    """Cache the analysis under its key (atomically), dropping the older caches this program wrote for this study
    (files in the cache format that record the key their name says and this study's name); a read-only store skips
    it. Another study's cache in the same folder is never removed (hunt 18b, F6: a ``report --results`` into another
    study's results folder, with ``--force``, deleted that study's cache)."""
    key = analysis_key(spec)
    path = _analysis_path(spec, key)
    try:
        payload = analysis_to_json(an, key)
        text = json.dumps({**payload, DIGEST_FIELD: _digest(payload)}, allow_nan=False)
    except (TypeError, ValueError) as exc:  # a value JSON cannot hold exactly: not cached, still answered
        warnings.warn(f"{path}: the analysis is not cached ({exc})", stacklevel=2)
        return
    try:
        with atomic_path(path, "cached analysis") as tmp:
            tmp.write_text(text, encoding="utf-8")
        for old in path.parent.glob("population-*.json"):
            if old != path and _is_cache_file(old, an.study):
                old.unlink(missing_ok=True)
    except (InputError, OSError):
        pass


def _is_cache_file(path: Path, study: str) -> bool:
    """Whether ``path`` is a cached analysis this program wrote for the study named ``study``: the cache format, the
    key its name says, and that study's name."""
    if not path.is_file():  # (a pipe of that name would block the read)
        return False
    try:
        head = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(head, dict)
        and head.get("format") == CACHE_FORMAT
        and path.name == f"population-{head.get('key')}.json"
        and head.get("study") == study
    )


def analysis_to_json(an: PopulationAnalysis, key: str) -> dict:
    """A population analysis as the cache file's JSON object (data only; :func:`analysis_from_json` reads it).

    Everything but the study (the reader has it; ``config`` is its ``[game]`` table): the answers, their
    games (roles, players, strategies, profile and payoff arrays), equilibria and gains, the provider's
    choice and the joint game, the runs used and the metadata. Floats are JSON numbers (the shortest repr,
    which reads back to the same double); NaN and infinities, tuples and games are one-key objects
    (``{"$float": ...}``, ``{"$tuple": [...]}``, ``{"$game": {...}}``).
    """
    return {
        "format": CACHE_FORMAT,
        "version": CACHE_VERSION,
        "key": key,
        "study": an.study,
        "answers": [_plain(a.to_json()) for a in an.answers],
        "provider": _plain(an.provider.to_json()),
        "runs": _plain(an.runs.to_json()),
        "meta": _plain(an.meta.to_json()),
    }


def analysis_from_json(data: dict, spec, *, key: str) -> PopulationAnalysis:
    """The analysis of ``spec`` that :func:`analysis_to_json` wrote, exactly as it was computed.

    Raises
    ------
    ValueError, TypeError, KeyError, InputError
        Where ``data`` is not such an analysis: another format or version, another key, another study's
        mechanisms, or a field of the wrong kind.
    """
    _expect(data, dict, "the file")
    if data.get("format") != CACHE_FORMAT or data.get("version") != CACHE_VERSION:
        raise ValueError(f"not a cached population analysis of version {CACHE_VERSION}")
    if data.get("key") != key:
        raise ValueError(f"it records another key ({str(data.get('key'))[:40]!r}, expected {key!r})")
    answers = tuple(_answer(_from_plain(a)) for a in _expect(data["answers"], list, "answers"))
    names = [p.name for p in spec.providers]
    if [a.mechanism for a in answers] != names:
        raise ValueError(f"its mechanisms {[a.mechanism for a in answers]} are not the study's {names}")
    provider = _expect(_from_plain(data["provider"]), dict, "provider")
    if set(provider) != {"leader", "ranking", "simultaneous", "joint"}:
        raise ValueError(f"provider: unexpected fields {sorted(provider)}")
    if provider["joint"] is not None:
        _expect(_expect(provider["joint"], dict, "provider.joint")["game"], RoleSymmetricGame, "the joint game")
    runs = RunAccounting.from_json(_expect(_from_plain(data["runs"]), dict, "runs"))
    meta = PopulationMeta.from_json(_expect(_from_plain(data["meta"]), dict, "meta"))
    return PopulationAnalysis(
        spec.name, answers, ProviderChoice.from_json(provider), runs, meta, spec=spec, config=spec.population
    )


_ANSWER_TYPES = {
    "mechanism": str,
    "game": RoleSymmetricGame,
    "seeds": list,
    "equilibria": list,
    "truthful_gains": dict,
    "truthful_is_equilibrium": str,
    "notes": list,
    "search": dict,
}


def _answer(d) -> MechanismAnswer:
    _expect(d, dict, "an answer")
    if set(d) != set(_ANSWER_TYPES):
        raise ValueError(f"an answer has the fields {sorted(d)}, expected {sorted(_ANSWER_TYPES)}")
    for name, kind in _ANSWER_TYPES.items():
        _expect(d[name], kind, f"answer field {name!r}")
    return MechanismAnswer.from_json(d)


def _expect(value, kind, what: str):
    if not isinstance(value, kind):
        raise TypeError(f"{what}: expected a {kind.__name__}, got a {type(value).__name__}")
    return value


_TAGS = ("$float", "$tuple", "$game")


def _plain(v):
    """``v`` as plain JSON values, exactly (see :func:`analysis_to_json`); a dict key that starts with ``$`` gets
    another ``$``, so that no data is read as a tag."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else {"$float": _float_tag(float(v))}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, tuple):
        return {"$tuple": [_plain(x) for x in v]}
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise TypeError(f"a dict with keys {list(v)[:3]}: only string keys are cached")
        return {("$" + k if k.startswith("$") else k): _plain(x) for k, x in v.items()}
    if isinstance(v, RoleSymmetricGame):
        return {
            "$game": {
                "roles": list(v.roles),
                "players": list(v.players),
                "strategies": [list(s) for s in v.strategies],
                "profiles": v.profiles.tolist(),
                "payoffs": v.payoffs.tolist(),  # finite: a game's payoffs are
            }
        }
    raise TypeError(f"a {type(v).__name__} is not cached")


def _from_plain(v):
    """The inverse of :func:`_plain`."""
    if isinstance(v, list):
        return [_from_plain(x) for x in v]
    if not isinstance(v, dict):
        return v
    if len(v) == 1 and next(iter(v)) in _TAGS:
        tag, x = next(iter(v.items()))
        if tag == "$float":
            return _float_from_tag(x)
        if tag == "$tuple":
            return tuple(_from_plain(y) for y in _expect(x, list, "a tuple"))
        return _game_from_plain(x)
    return {(k[1:] if k.startswith("$") else k): _from_plain(x) for k, x in v.items()}


def _float_tag(v: float) -> str:
    """A float JSON cannot hold: ``inf``, ``-inf``, or ``nan:`` and the NaN's 64 bits in hex (its sign and payload)."""
    if math.isnan(v):
        return f"nan:{struct.unpack('<Q', struct.pack('<d', v))[0]:016x}"
    return "inf" if v > 0 else "-inf"


def _float_from_tag(s) -> float:
    _expect(s, str, "a tagged float")
    if s in ("inf", "-inf"):
        return float(s)
    if s.startswith("nan:") and len(s) == 20:
        v = struct.unpack("<d", struct.pack("<Q", int(s[4:], 16)))[0]
        if math.isnan(v):
            return v
    raise ValueError(f"not a tagged float: {s[:30]!r}")


def _game_from_plain(d) -> RoleSymmetricGame:
    _expect(d, dict, "a game")
    profiles, payoffs = np.array(d["profiles"]), np.array(d["payoffs"])
    if profiles.dtype.kind != "i" or payoffs.dtype.kind != "f":
        raise TypeError(
            f"a game's profiles must be integers and its payoffs floats, got {profiles.dtype}, {payoffs.dtype}"
        )
    return RoleSymmetricGame(d["roles"], d["players"], d["strategies"], profiles.astype(np.int64), payoffs)
