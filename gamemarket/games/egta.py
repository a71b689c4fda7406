"""Role-symmetric games in and out: the EGTA JSON format and a tidy CSV.

EGTA JSON, as gameanalysis and egta-online write it::

    {"players": {"role": count, ...},
     "strategies": {"role": ["s1", "s2", ...], ...},
     "profiles": [{"role": [["s1", count, payoff], ...], ...}, ...]}

A profile lists, per role, each strategy with a positive count and the mean payoff of a player
of that strategy. Where a profile carries observations instead (``[strategy, count, [payoffs]]``)
their mean is used, with a warning (the observations' spread is not kept). Every error names the profile (its
position in the list) and the field.

egta-online's game layout is read too: ``"roles": [{"name", "strategies", "count"}]`` and profiles of
``"symmetry_groups": [{"role", "strategy", "count", "payoff"}]`` (ids and ``payoff_sd`` dropped, with a warning).

gameanalysis (8.x) adds ``"type"``: ``"game.1"`` (payoffs) or ``"samplegame.1"`` (observations) are read as
above, ``"matrix.1"`` (one player per role, payoffs nested by strategy: :func:`from_matrix`) in its own layout; its
other types (``"empty.1"``: no payoffs, and others) are refused, naming the type. Top-level fields a game has no
place for (a tool's name, description or configuration) are read past, named in a warning. ``gamemarket game solve`` and
``read_egta`` are tested on files gameanalysis wrote (``tests/games/data/gameanalysis/``; the matrix game on one
laid out as its ``MatrixGame.to_json`` writes it).

The tidy CSV has one row per (profile, role, strategy): ``profile, role, strategy, count, payoff``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path
from typing import Annotated

import numpy as np
import pandas as pd
from pydantic import Field

from gamemarket.errors import InputError, check_path, shown_list, shown_name, shown_value
from gamemarket.games.checks import exact_payoff
from gamemarket.games.io import write_json
from gamemarket.games.rsgame import RoleSymmetricGame, num_profiles
from gamemarket.io.files import read_json
from gamemarket.io.limits import check_fits
from gamemarket.io.schema import Table, check

#: the most players a role may have (a reduced or a full game's; beyond it no profile count fits a table)
MAX_PLAYERS = 10**9


def _count(v, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v) or v < 0:
        raise InputError(f"{where}: count must be an integer >= 0, got {v!r}")
    return int(v)


#: gameanalysis's ``"type"`` tags that this reader reads (the format's name, then its version)
READ_TYPES = ("game.1", "samplegame.1", "matrix.1")


def _mean(vals: list) -> float:
    """The mean of finite payoffs, finite wherever they are: summed in units of the largest (two observations of
    1.5e308 overflowed the sum, and a valid game was refused as "payoff ... is inf", hunt 29b-W3)."""
    arr = np.asarray(vals, dtype=float)
    with np.errstate(over="ignore"):
        plain = float(np.mean(arr))
    if math.isfinite(plain):  # (the plain mean wherever it is finite: the same digits gameanalysis reads)
        return plain
    top = float(np.abs(arr).max())
    return top * float(np.mean(arr / top))


def _payoff(v, where: str, averaged: list | None = None) -> float:
    if isinstance(v, list):
        if not v:
            raise InputError(f"{where}: an empty list of payoff observations")
        nested = next((x for x in v if isinstance(x, list)), None)
        if nested is not None:  # (averaged level by level, [[1, 2], [3]] read as 2.25, exit 0: hunt 39b-F1)
            raise InputError(
                f"{where}: a payoff's observations must be numbers, a flat list as gameanalysis writes them; got a "
                f"list inside them: {shown_value(nested)}"
            )
        vals = [_payoff(x, where) for x in v]
        if averaged is not None:
            averaged.append(len(vals))
        return _mean(vals)
    try:  # an integer beyond float range (10**400 in the JSON) is no payoff either: float() overflows
        finite = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(float(v))
    except OverflowError:
        finite = False
    if not finite:  # (JSON's null said as null, not Python's None: hunt 41c-W1)
        got = "null (no payoff)" if v is None else shown_value(v)
        raise InputError(f"{where}: payoff must be a finite number, one a float holds; got {got}")
    return exact_payoff(v, where)


def from_egta(data: dict, *, source: str = "EGTA JSON") -> RoleSymmetricGame:
    """A game from the parsed EGTA JSON object (see the module docstring)."""
    kind = data.get("type") if isinstance(data, dict) else None
    if kind is not None and kind not in READ_TYPES:
        raise InputError(
            f"{source}: field 'type' is {kind!r}; expected one of {list(READ_TYPES)} (gameanalysis's game and "
            "samplegame, and its matrix game; an empty game holds no payoffs)"
        )
    roles, counts, strat_lists = _roles(data, source)
    offset = {}
    k = 0
    for r, ss in zip(roles, strat_lists):
        for s in ss:
            offset[(r, s)] = k
            k += 1
    profiles = data["profiles"]
    if not isinstance(profiles, list) or not profiles:
        raise InputError(f"{source}: field 'profiles' must be a non-empty list")
    # the tables sized before they are made: the listed profiles' two (counts, payoffs), and where the file lists as
    # many profiles as the complete game has, its three (hunt 26b-F4: a 9.5 MB file of 250,000 profiles over 1,000
    # strategies took 6.5 GB under a 1.2 GB limit before the game's own check, made on the tables already built); a
    # file declaring more than it lists is the game's own check's, after the profiles' names are read
    need = num_profiles(counts, [len(ss) for ss in strat_lists])
    complete = need if need == len(profiles) else 0
    check_fits(
        (2 * len(profiles) + 3 * complete) * k * 8,
        f"{source}: {len(profiles):,} profiles over {k:,} strategies (their tables as read and held)",
    )
    prof = np.zeros((len(profiles), k), dtype=np.int64)
    pay = np.zeros((len(profiles), k))
    averaged: list = []  # the number of observations of every payoff given as a list
    for i, p in enumerate(profiles):
        where = f"{source}: profile #{i + 1}"
        if not isinstance(p, dict):
            raise InputError(f"{where}: expected an object {{role: [[strategy, count, payoff], ...]}}")
        unknown = sorted(set(p) - set(roles))
        if unknown:
            raise InputError(f"{where}: unknown role(s) {shown_list(unknown)}; roles: {shown_list(roles)}")
        for r, n in zip(roles, counts):
            _read_role(p.get(r), r, n, where, data["strategies"][r], offset, prof[i], pay[i], averaged)
    if averaged:
        warnings.warn(
            f"{source}: {len(averaged):,} payoffs are lists of observations ({min(averaged)} to {max(averaged)} each); "
            "each is read as its mean, and the observations' spread is not kept",
            stacklevel=2,
        )
    try:
        return RoleSymmetricGame(roles, counts, strat_lists, prof, pay)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None


def _roles(data, source: str) -> tuple[list[str], list[int], list[list[str]]]:
    """The roles (sorted), their player counts and their strategies (sorted) of an EGTA JSON object."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a JSON object with players, strategies and profiles")
    for key in ("players", "strategies", "profiles"):
        if key not in data:
            raise InputError(f"{source}: missing field {key!r}")
    players, strategies = data["players"], data["strategies"]
    if not isinstance(players, dict) or not players:
        raise InputError(f"{source}: field 'players' must be an object {{role: count}}")
    if not isinstance(strategies, dict) or set(strategies) != set(players):
        raise InputError(f"{source}: field 'strategies' must list the strategies of the roles {sorted(players)}")
    roles = sorted(players)
    counts = []
    for r in roles:
        n = _count(players[r], f"{source}: players[{r!r}]")
        if not 1 <= n <= MAX_PLAYERS:
            raise InputError(f"{source}: players[{r!r}] must be >= 1 and <= {MAX_PLAYERS:,}, got {n}")
        counts.append(n)
        ss = strategies[r]
        if not isinstance(ss, list) or not ss or not all(isinstance(s, str) for s in ss) or len(set(ss)) != len(ss):
            raise InputError(f"{source}: strategies[{r!r}] must be a non-empty list of distinct names")
    return roles, counts, [sorted(strategies[r]) for r in roles]


def _read_role(entries, r: str, n: int, where: str, strategies: list, offset: dict, prof, pay, averaged=None) -> None:
    """One role's ``[[strategy, count, payoff], ...]`` of a profile into its row of counts and payoffs."""
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{where}: role {r!r} is missing or empty")
    total = 0
    for e in entries:
        if not (isinstance(e, list) and len(e) == 3):
            raise InputError(f"{where}, role {r!r}: expected [strategy, count, payoff], got {e!r}")
        s, c, v = e
        if not isinstance(s, str):
            raise InputError(f"{where}, role {r!r}: a strategy is named by a string, got {s!r}")
        if (r, s) not in offset:
            raise InputError(f"{where}, role {r!r}: unknown strategy {shown_name(s)}; known: {shown_list(strategies)}")
        c = _count(c, f"{where}, role {r!r}, strategy {s!r}")
        if c > n:  # also keeps the count within the profile array's int64
            raise InputError(f"{where}, role {r!r}, strategy {s!r}: count {c} exceeds the role's {n} players")
        if prof[offset[(r, s)]]:
            raise InputError(f"{where}, role {r!r}: strategy {s!r} is listed twice")
        prof[offset[(r, s)]] = c
        pay[offset[(r, s)]] = _payoff(v, f"{where}, role {r!r}, strategy {s!r}", averaged) if c else 0.0
        total += c
    if total != n:
        raise InputError(f"{where}, role {r!r}: counts sum to {total}, but the role has {n} players")


class EgtaFile(Table):
    """An EGTA JSON game's shape (the values are checked by ``from_egta``, naming the profile)."""

    players: dict[str, Annotated[int, Field(ge=1, le=MAX_PLAYERS)]] = Field(
        min_length=1, max_length=100, description="players per role"
    )
    # (a role's empty list named as itself: it was told as the profiles' fault, hunt 41c-W2)
    strategies: dict[str, Annotated[list[str], Field(min_length=1)]] = Field(
        min_length=1, max_length=100, description="strategies per role"
    )
    profiles: list[dict[str, list[list]]] = Field(
        min_length=1, max_length=10**7, description="per profile and role: [strategy, count, payoff] entries"
    )
    type: str | None = Field(
        None, description="the writer's format tag (gameanalysis: 'game.1', 'samplegame.1'), checked by from_egta"
    )


def _is_egta_online(data) -> bool:
    """Whether ``data`` is in egta-online's layout: ``roles`` a list, profiles made of ``symmetry_groups``; not a file
    that says it is gameanalysis's (``"type": "game.1"`` or ``"samplegame.1"``), whose wrong layout was told of
    egta-online's fields (``'symmetry_groups' missing``), not of the ``players`` and ``strategies`` it lacks (hunt
    35b-W2)."""
    if not isinstance(data, dict) or data.get("type") in ("game.1", "samplegame.1"):
        return False
    return isinstance(data.get("roles"), list) and "players" not in data


def from_egta_online(data: dict, source: str = "EGTA JSON") -> dict:
    """egta-online's game layout in the one above: ``roles`` as ``[{"name", "strategies", "count"}]`` and each
    profile's ``symmetry_groups`` as ``[{"id", "role", "strategy", "count", "payoff"}]``.

    The service's three exports are read as gameanalysis reads them (``paygame.profpay_from_json``): *summary*
    (each group's ``payoff``), *observations* (each profile's ``observations``, each with ``symmetry_groups`` of
    ``{"id", "payoff"}``: a group's payoff is the mean over the observations) and *full* (each observation's
    ``players`` of ``{"sid", "p"}``: the mean over the group's players and observations). What the layout above has
    no place for (ids, the game's name, simulator and configuration, the observation counts, a group's
    ``payoff_sd`` where it is given) is dropped, with a warning; a field that is missing or of another kind is an
    error naming the role or the profile (its position) and the field; a game with ``"profiles": null`` (the
    service's game with no profile observed) is an error saying so."""

    def need(obj, key, kind, where):
        if not isinstance(obj, dict) or key not in obj or not isinstance(obj[key], kind) or isinstance(obj[key], bool):
            what = {int: "a whole number", str: "a text", list: "a list"}[kind]
            raise InputError(f"{source}: {where}: field {key!r} missing or not {what}; expected egta-online's layout")
        return obj[key]

    players, strategies, first = {}, {}, {}
    for k, role in enumerate(data["roles"]):
        name = need(role, "name", str, f"role #{k + 1}")
        if name in first:  # (the last declaration won, the first dropped without a word: hunt 19b-F3)
            raise InputError(
                f"{source}: roles #{first[name] + 1} and #{k + 1} both name the role {name!r}; expected each role once"
            )
        first[name] = k
        players[name] = need(role, "count", int, f"role {name!r}")
        if players[name] < 1:  # (said of the file's own field: it was "field 'players.consumers'", hunt 19c-W1)
            raise InputError(
                f"{source}: roles #{k + 1} ({name!r}): field 'count' is {players[name]}; expected a whole number >= 1"
            )
        strategies[name] = need(role, "strategies", list, f"role {name!r}")
    if isinstance(data, dict) and "profiles" in data and data["profiles"] is None:
        raise InputError(
            f"{source}: the game has no profiles ('profiles' is null: egta-online writes that for a game with no "
            "profile observed yet); expected a complete game, a payoff for every profile"
        )
    profiles = []
    for k, prof in enumerate(need(data, "profiles", list, "the game")):
        groups = need(prof, "symmetry_groups", list, f"profile #{k + 1}")
        payoffs = _observed_payoffs(prof, groups, f"{source}: profile #{k + 1}") if "observations" in prof else None
        out: dict[str, list] = {}
        for j, g in enumerate(groups):
            role = need(g, "role", str, f"profile #{k + 1}")
            payoff = g.get("payoff") if payoffs is None else payoffs[j]
            out.setdefault(role, []).append(
                [need(g, "strategy", str, f"profile #{k + 1}"), need(g, "count", int, f"profile #{k + 1}"), payoff]
            )
        profiles.append(out)
    dropped = sorted({key for key in data if key not in ("roles", "profiles")})
    kinds = [
        ("observations_count", lambda p: "observations_count" in p),
        ("observations", lambda p: "observations" in p),
        ("payoff_sd", lambda p: any(g.get("payoff_sd") is not None for g in p["symmetry_groups"])),
    ]
    dropped += [name for name, has in kinds if any(has(p) for p in data["profiles"])]
    if dropped:
        warnings.warn(f"{source}: egta-online's layout read; not kept: {', '.join(dropped)}", stacklevel=2)
    return {"players": players, "strategies": strategies, "profiles": profiles}


def _observed_payoffs(prof: dict, groups: list, where: str) -> list:
    """Each symmetry group's payoff, the mean over the profile's ``observations`` (the service's *observations*
    export: per observation, ``symmetry_groups`` of ``{"id", "payoff"}``; its *full* export: per observation,
    ``players`` of ``{"sid", "p"}``), as gameanalysis averages them; a group no observation pays is an error."""
    obs = prof["observations"]
    if not isinstance(obs, list) or not obs:
        raise InputError(f"{where}: 'observations' is {obs!r}; expected a non-empty list (a profile with no payoff)")
    ids = {}
    for j, g in enumerate(groups):
        if not isinstance(g, dict) or not isinstance(g.get("id"), (int, str)) or isinstance(g["id"], bool):
            raise InputError(
                f"{where}: symmetry group {j}: field 'id' missing or not a whole number or a text; the observations "
                "name groups by it"
            )
        if g["id"] in ids:
            raise InputError(f"{where}: symmetry group id {g['id']!r} is listed twice")
        ids[g["id"]] = j
    seen: list[list] = [[] for _ in groups]  # each group's observed payoffs
    for n, o in enumerate(obs):
        entries = o.get("symmetry_groups", o.get("players")) if isinstance(o, dict) else None
        if not isinstance(entries, list):
            raise InputError(f"{where}, observation {n}: expected 'symmetry_groups' or 'players', a list")
        full = "symmetry_groups" not in o
        key, pay = ("sid", "p") if full else ("id", "payoff")
        for e in entries:
            if not isinstance(e, dict) or not isinstance(e.get(key), (int, str)) or e[key] not in ids:
                got = e.get(key) if isinstance(e, dict) else e
                raise InputError(f"{where}, observation {n}: {key} {got!r} is no symmetry group of the profile")
            v = e.get(pay)
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise InputError(f"{where}, observation {n}: {pay} {shown_value(v)}; expected a number")
            seen[ids[e[key]]].append(v)
    for j, vals in enumerate(seen):
        if not vals:
            raise InputError(f"{where}: symmetry group {groups[j].get('id')!r} has no observed payoff")
    # each number checked and the mean taken as a samplegame's observations are (a plain sum overflowed where two
    # observations were 1.5e308, and a payoff of 10**400 ended in Python's OverflowError: hunt 39b-F1's siblings)
    return [_payoff(vals, f"{where}, symmetry group {groups[j].get('id')!r}") for j, vals in enumerate(seen)]


def from_matrix(data: dict, source: str = "EGTA JSON") -> dict:
    """gameanalysis's matrix game (``"type": "matrix.1"``, ``MatrixGame.to_json``) in the profile layout above: one
    player per role, and ``"payoffs"`` nested one level per role (roles in sorted order, each level keyed by that
    role's strategy), ending in ``{role: payoff}``; every profile is there. A field that is missing or of another
    kind is an error naming the path of keys (hunt 16a: a real matrix file was refused for its ``payoffs``)."""
    players, strategies, payoffs = data.get("players"), data.get("strategies"), data.get("payoffs")
    if not isinstance(players, dict) or not isinstance(strategies, dict) or set(players) != set(strategies):
        raise InputError(f"{source}: a matrix game (type 'matrix.1') needs 'players' and 'strategies' of its roles")
    roles = sorted(players)
    for r in roles:
        if players[r] != 1 or isinstance(players[r], bool):
            raise InputError(f"{source}: players[{r!r}] is {players[r]!r}; a matrix game has one player per role")
        if not isinstance(strategies[r], list) or not strategies[r]:
            raise InputError(f"{source}: strategies[{r!r}] must be a non-empty list of names")
    total = math.prod(len(strategies[r]) for r in roles)
    if total > 10**7:  # (EgtaFile's limit on profiles)
        raise InputError(f"{source}: a matrix game of {total:,} profiles; at most 10,000,000 are read")
    profiles = []
    for choice in itertools.product(*(strategies[r] for r in roles)):
        node, path = payoffs, "payoffs"
        for s in choice:
            if not isinstance(node, dict) or s not in node:
                raise InputError(f"{source}: {path} has no entry {s!r}; a matrix game lists every profile")
            node, path = node[s], f"{path}[{s!r}]"
        if not isinstance(node, dict) or set(node) != set(roles):
            raise InputError(f"{source}: {path} must give each role's payoff {{role: payoff}} of roles {roles}")
        profiles.append({r: [[s, 1, node[r]]] for r, s in zip(roles, choice)})
    return {"players": players, "strategies": strategies, "profiles": profiles}


#: the fields of gameanalysis's matrix game (:func:`from_matrix`)
MATRIX_FIELDS = ("players", "strategies", "payoffs", "type")


def _known_fields(data, source: str, known: tuple):
    """``data`` without the top-level fields a game has no place for, said in a warning: a tool's own additions (a
    name, a description, its configuration) are read past, as the issue's "ignore what is not needed, with a
    warning where information is dropped" asks (a file with a field of its own was refused whole). A misspelt
    field cannot pass for a known one: the game's own fields (``players``, ``strategies``, ``profiles``) are then
    missing, and that is an error naming them."""
    if not isinstance(data, dict):
        return data
    dropped = sorted((k for k in data if k not in known), key=str)
    if not dropped:
        return data
    names = ", ".join(repr(k) for k in dropped[:10]) + (f" and {len(dropped) - 10:,} more" if len(dropped) > 10 else "")
    warnings.warn(f"{source}: field(s) {names} read past (a game has {', '.join(known)})", stacklevel=3)
    return {k: v for k, v in data.items() if k in known}


#: the fields of gamemarket's own JSON answers (a study's data/equilibria.json, a population study's population.json,
#: an exploration's exploration.json): told from a game, which has players (or roles), strategies and profiles
ANSWER_FIELDS = {"games", "answers", "mechanisms", "equilibria", "study", "meta", "version"}


def _not_an_answer(data, path) -> None:
    """Refuse a JSON file that is an answer, not a game: gamemarket's equilibria (a report's ``data/*.json``) or a
    list of equilibria (hunt 20b-W11: "field(s) 'games', 'meta', 'study', 'version' read past", then "missing field
    'players'", with no word that it was no game)."""
    if not isinstance(data, dict):  # (null was "the file: expected a table of fields, got NoneType None", 39b-W7)
        what = (
            "a JSON list (of equilibria or profiles?)"
            if isinstance(data, list)
            else "a JSON "
            + {bool: "true or false", int: "number", float: "number", str: "text"}.get(type(data), "null")
            + " alone"
        )
        raise InputError(
            f"{path}: {what}, not a game: an EGTA JSON game is an object with its players (or roles), strategies and "
            "profiles"
        )
    if isinstance(data, dict) and not {"players", "roles", "profiles"} & set(data) and ANSWER_FIELDS & set(data):
        raise InputError(
            f"{path}: holds an answer ({', '.join(sorted(ANSWER_FIELDS & set(data)))}), not a game: gamemarket's "
            "equilibria of a study (its report's data/equilibria.json or population.json); `game solve` takes the "
            "study file itself, or one of its games (data/game-*.nfg, data/payoffs-*.csv, data/game-*.json)"
        )


def read_egta(path: str | Path) -> RoleSymmetricGame:
    """Read an EGTA JSON file: strict JSON (no NaN or Infinity literals, no nesting beyond the parser's
    depth), of the declared shape (``EgtaFile``), every profile checked. egta-online's layout (roles as a list,
    profiles of symmetry groups) is read too (:func:`from_egta_online`)."""
    path = check_path(path, "read_egta: path")  # (an int, bytes or None: named as the reader's argument)
    data = read_json(path, "EGTA JSON file")
    _not_an_answer(data, path)
    if _is_egta_online(data):
        data = from_egta_online(data, str(path))
    elif isinstance(data, dict) and data.get("type") == "matrix.1":
        data = from_matrix(_known_fields(data, str(path), MATRIX_FIELDS), str(path))
    else:
        data = _known_fields(data, str(path), tuple(EgtaFile.model_fields))
    check(EgtaFile, data, str(path))
    return from_egta(data, source=str(path))


def to_egta(game: RoleSymmetricGame) -> dict:
    """The game as an EGTA JSON object."""
    if not isinstance(game, RoleSymmetricGame):  # (None: an AttributeError deep in, hunt 18c)
        raise InputError(f"to_egta: expected a RoleSymmetricGame, got {type(game).__name__}")
    names = game.strategy_names
    profiles = []
    for row, pay in zip(game.profiles, game.payoffs):
        p = {}
        for r, (a, k) in enumerate(zip(game.role_starts, game.num_strategies)):
            p[game.roles[r]] = [[names[a + j], int(row[a + j]), float(pay[a + j])] for j in range(k) if row[a + j]]
        profiles.append(p)
    return {
        "players": dict(zip(game.roles, game.players)),
        "strategies": {r: list(ss) for r, ss in zip(game.roles, game.strategies)},
        "profiles": profiles,
    }


def write_egta(game: RoleSymmetricGame, path: str | Path) -> Path:
    """Write ``game`` as EGTA JSON (:func:`to_egta`) to ``path``, atomically; returns the path."""
    path = Path(path)
    write_json(path, to_egta(game))
    return path


def to_tidy(game: RoleSymmetricGame) -> pd.DataFrame:
    """One row per (profile, role, strategy) with a positive count."""
    names = game.strategy_names
    ri = game.role_index
    rows = []
    for i, (row, pay) in enumerate(zip(game.profiles, game.payoffs)):
        for s in np.flatnonzero(row):
            rows.append(
                {
                    "profile": i,
                    "role": game.roles[ri[s]],
                    "strategy": names[s],
                    "count": int(row[s]),
                    "payoff": float(pay[s]),
                }
            )
    return pd.DataFrame(rows, columns=["profile", "role", "strategy", "count", "payoff"])


def from_tidy(df: pd.DataFrame, players: dict, strategies: dict, *, source: str = "tidy CSV") -> RoleSymmetricGame:
    """The inverse of :func:`to_tidy` (player counts and strategy lists given, as CSV does not carry them)."""
    missing = [c for c in ("profile", "role", "strategy", "count", "payoff") if c not in df.columns]
    if missing:
        raise InputError(f"{source}: missing column(s) {missing}")
    profiles = []
    for pid, g in df.groupby("profile", sort=True):
        p: dict = {}
        for r, s, c, v in zip(g["role"], g["strategy"], g["count"], g["payoff"]):
            p.setdefault(str(r), []).append([str(s), int(c) if float(c) == int(c) else float(c), float(v)])
        profiles.append(p)
    return from_egta({"players": players, "strategies": strategies, "profiles": profiles}, source=source)
