"""Names are not paths: the one rule by which a name from a file becomes part of a file name.

A study's name names its folders; game, provider, strategy and mechanism names name the files of a
report (``payoffs-<game>.csv``, ``game-<mechanism>.csv``, ``heatmap-<game>.png``). A name comes from a
user's file, so it is never used as it is: :func:`slug` turns it into a fragment of lower-case letters,
digits and hyphens (no ``/``, no ``..``, no leading dot, nothing a file system reads specially), and
:func:`check_name` checks a name that must be usable as it is (a study's). Two names that make one
file are refused where the files are written (:class:`gamemarket.io.files.OutputFolder`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Set

from gamemarket.errors import InputError

#: a name used as it is in a path (a study's): 1-100 ASCII letters, digits, '.', '_' or '-', starting with a
#: letter or digit, and no '..'
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: the longest fragment a slug keeps (file systems allow 255 bytes a name; prefixes and suffixes need room)
SLUG_MAX = 120


def is_name(name) -> bool:
    """Whether ``name`` may be used as it is in a path (see ``NAME``)."""
    return isinstance(name, str) and NAME.fullmatch(name) is not None and ".." not in name


def check_name(name, where: str, field: str = "name") -> str:
    """``name`` if it may be used as it is in a path, else an error naming ``where`` and ``field``."""
    if not is_name(name):
        raise InputError(
            f"{where}: field {field!r}: {name!r} must be 1-100 ASCII letters (a-z, A-Z), digits, '.', '_' or '-', "
            "starting with a letter or digit, without '..' (it names the results and report folders)"
        )
    return name


def slug(name: str, what: str = "name") -> str:
    """A name as a file-name fragment: lower case, every run of other characters one hyphen, no hyphen at
    either end (``All jobs`` -> ``all-jobs``, ``../x`` -> ``x``).

    A name with no letter or digit makes no fragment: an error naming it (``what`` says what it names).
    """
    text = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in str(name).lower())
    out = re.sub(r"-+", "-", text).strip("-")[:SLUG_MAX].strip("-")
    if not out:
        raise InputError(f"{what} {name!r}: has no ASCII letter or digit (a-z, 0-9) to name its files by")
    return out


def workload_source(meta: dict):
    """What a prepared workload's ``meta`` says it came from: its ``source`` (a trace's path, ``synthetic``), or
    for a draw of a fitted workload model ``workload model of <the trace it was fitted to>`` (its ``source`` is
    ``synthetic`` too, but a report that said only that would hide the model)."""
    src, name = meta.get("source"), str(meta.get("name", ""))
    return f"workload model of {name[len('model:') :]}" if src == "synthetic" and name.startswith("model:") else src


def workload_name(source) -> str:
    """A workload's source as a report or an exported file names it, never a path of the machine that ran it.

    A trace file is named by its file name without the folders and the ``.swf``/``.swf.gz`` ending, which for a
    catalogued trace is its catalogue name (``/data/LPC-EGEE-2004-1.2-cln.swf.gz`` -> ``LPC-EGEE-2004-1.2-cln``);
    other sources (``synthetic``, a model file) keep their file name. Its SHA-256, printed beside it, says
    which file it was.

    Parameters
    ----------
    source : str or None
        The workload source as stored with a study's results (``meta["workload"]``).

    Returns
    -------
    str
        The name (``"-"`` for none).
    """
    if not source:
        return "-"
    name = re.split(r"[\\/]", str(source))[-1]
    for ending in (".gz", ".swf"):
        name = name.removesuffix(ending) if name.lower().endswith(ending) else name
    return name or str(source)


def check_names(names, what: str, kind: str = "strategies") -> None:
    """Refuse names an answer could not tell apart or print: an empty one, one with a control character (a line
    break would split a table, a NUL end a line), or two that are one name written two ways (``é`` and ``e`` with a
    combining accent, ``a`` and ``a `` with a space: the same letters on screen, two strategies in the game; hunt
    20b-W16), and a text given for the list (its
    letters were taken as names: ``"vs"`` two strategies, ``"ab"`` two roles; hunt 18c-W5)."""
    if isinstance(names, (str, bytes, Set, Mapping)) or not isinstance(names, Iterable):  # (a set: no order)
        raise InputError(
            f"{what}: {kind} must be a list of names, got {type(names).__name__} {names!r:.100}"
            + (" (a text is not split into names: give [" + repr(names) + "])" if isinstance(names, str) else "")
        )
    seen: dict[str, str] = {}
    for name in names:
        if not str(name).strip():
            raise InputError(f"{what}: one of its {kind} has an empty name; expected a name to print it by")
        if not str(name).isprintable():
            one = {"strategies": "strategy", "players": "player", "roles": "role"}.get(kind, kind)
            raise InputError(
                f"{what}: {one} name {name!r} holds a control or format character (a line break, a tab, a NUL, a "
                "bidirectional override); expected printable text"
            )
        key = unicodedata.normalize("NFC", str(name)).strip()
        if key in seen and seen[key] != name:
            how = "spaces around it" if str(seen[key]).strip() == str(name).strip() else "Unicode"
            raise InputError(
                f"{what}: the {kind} {ascii(seen[key])} and {ascii(name)} are one name written two ways ({how}: they "
                "print alike); expected distinct names"
            )
        seen[key] = name
