"""Names are not paths: the one rule by which a name from a file becomes part of a file name.

A study's name names its folders; game, provider, strategy and mechanism names name the files of a
report (``payoffs-<game>.csv``, ``game-<mechanism>.csv``, ``heatmap-<game>.png``). A name comes from a
user's file, so it is never used as it is: :func:`slug` turns it into a fragment of lower-case letters,
digits and hyphens (no ``/``, no ``..``, no leading dot, nothing a file system reads specially), and
:func:`check_name` checks a name that must be usable as it is (a study's). Two names that make one
file are refused where the files are written (:class:`gamemarket.io.ownership.OutputFolder`).
"""

from __future__ import annotations

import re

from gamemarket.errors import InputError

#: a name used as it is in a path (a study's): 1-100 letters, digits, '.', '_' or '-', starting with a
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
            f"{where}: field {field!r}: {name!r} must be 1-100 letters, digits, '.', '_' or '-', starting "
            f"with a letter or digit, without '..' (it names the results and report folders)"
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
        raise InputError(f"{what} {name!r}: has no letter or digit to name its files by")
    return out
