"""Reading and writing files safely: checked reads, atomic writes, resolved paths, strict JSON.

- Reads (:func:`read_text`, :func:`read_toml`, :func:`read_json`) turn every way a file can fail to
  read (missing, a folder, binary, a symlink loop, nesting too deep for the parser, an integer too long
  to convert) into an :class:`~gamemarket.errors.InputError` naming the path.
- Writes go to a temporary file beside the target, then a rename (:func:`atomic_path`), so nothing is
  ever half-written. The temporary name carries the writing process's id in a pattern only gamemarket
  uses (``.<name>.gm-<pid>-<n>.tmp``), so a later run can remove what a killed run left
  (:func:`remove_stale_temps`) without touching anyone else's files.
- JSON meant for people or other programs (:func:`dumps_json`) is strict JSON: a NaN or an infinity is
  written as ``null``, never as the ``NaN``/``Infinity`` literals no JSON parser but Python's accepts.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError

_TMP_COUNTER = itertools.count()
#: the temporary files of :func:`atomic_path` (and of a download): ``.<target name>.gm-<pid>-<tag>.tmp``
TEMP_NAME = re.compile(r"^\..+\.gm-(\d+)-[A-Za-z0-9_]+\.tmp$")


def temp_prefix(path: Path) -> str:
    """The start of a temporary file's name for ``path`` (``tempfile.mkstemp(prefix=..., suffix=".tmp")``)."""
    return f".{path.name}.gm-{os.getpid()}-"


def shown_path(path) -> str:
    """A path as a message shows it: as it is, or quoted with escapes where it holds a character a terminal
    would not show (a NUL byte, a control character)."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def _read_error(path: Path, exc: Exception, what: str) -> InputError:
    """The message for a file that cannot be read, naming it and what was expected."""
    if not str(path).isprintable():
        return InputError(f"{shown_path(path)}: cannot read: {getattr(exc, 'strerror', None) or exc}")
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{path}: no such {what}")
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{path}: is a folder; expected a {what}")
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"{path}: not a text file ({exc.reason} at byte {exc.start}); expected a {what}")
    return InputError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}")


def resolve(path: str | os.PathLike, what: str = "path") -> Path:
    """``path`` made absolute with every symlink followed; a symlink loop, an unreadable path or a name no
    file system holds (a NUL byte, which a study file's string may carry) is an :class:`InputError` naming
    it (``Path.resolve`` raises ``RuntimeError``, ``OSError`` or ``ValueError`` there)."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"{shown_path(path)}: cannot resolve the {what}: {reason}") from None


def check_table(entry, where: str, allowed: set, required: set = frozenset()) -> None:
    """A TOML table with only ``allowed`` fields and every ``required`` one; errors name ``where`` and the fields."""
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected a table of fields, got {type(entry).__name__}")
    unknown = sorted(set(entry) - set(allowed))
    if unknown:
        raise InputError(f"{where}: unknown field(s) {unknown}; allowed: {sorted(allowed)}")
    missing = sorted(set(required) - set(entry))
    if missing:
        raise InputError(f"{where}: missing field(s) {missing}")


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """A text file's contents; a missing file, a folder, a symlink loop, binary content or a name with a NUL
    byte is an error naming the path."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:  # ValueError: UnicodeDecodeError, or "embedded null byte"
        raise _read_error(path, exc, what) from None


def _parse_error(path, exc: Exception, kind: str) -> InputError | None:
    """A parser's failure on a hostile but readable file (nesting too deep, an integer too long) as an error."""
    if isinstance(exc, RecursionError):
        return InputError(f"{path}: invalid {kind}: nested too deeply to read")
    if isinstance(exc, ValueError) and "digits" in str(exc):  # int() of more digits than Python converts
        return InputError(f"{path}: invalid {kind}: a number with too many digits ({exc})")
    return None


def read_toml(path: str | os.PathLike, what: str = "TOML file") -> dict:
    """A TOML file as a dict; a missing file, a folder, binary content or bad TOML is an error naming the path."""
    text = read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: invalid TOML: {exc}") from None
    except (RecursionError, ValueError) as exc:
        err = _parse_error(path, exc, "TOML")
        if err is None:
            raise
        raise err from None


def loads_json(text: str, where: str):
    """Parse JSON text; bad JSON, nesting too deep or a too-long integer is an error naming ``where``.
    ``NaN`` and ``Infinity`` literals are refused too: they are not JSON."""

    def constant(name: str):
        raise InputError(f"{where}: invalid JSON: {name} is not a JSON value; expected a number or null")

    try:
        return json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: invalid JSON: {exc}") from None
    except (RecursionError, ValueError) as exc:
        err = _parse_error(where, exc, "JSON")
        if err is None:
            raise
        raise err from None


def read_json(path: str | os.PathLike, what: str = "JSON file"):
    """A JSON file's value (see :func:`loads_json`); every failure is an error naming the path."""
    return loads_json(read_text(path, what), str(path))


def finite_or_none(value):
    """``value`` with every non-finite float (NaN, +-inf; numpy scalars and arrays included) replaced by
    ``None``, recursively through dicts, lists and tuples: what strict JSON can hold."""
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [finite_or_none(v) for v in value]
    if isinstance(value, np.ndarray):
        return finite_or_none(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def dumps_json(payload, **kw) -> str:
    """Strict JSON text of ``payload`` (numpy values converted; NaN and infinities as ``null``)."""
    return json.dumps(finite_or_none(payload), allow_nan=False, default=str, **kw)


def _temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.gm-{os.getpid()}-{next(_TMP_COUNTER)}.tmp")


@contextmanager
def atomic_path(path: str | os.PathLike, what: str = "file") -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on any failure it is removed.

    An unwritable target (a folder, a missing or read-only parent, ``/proc``) is an
    :class:`InputError` naming the path and the reason, and no temporary file is left behind.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder; expected a {what} file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise InputError(f"{path}: cannot create its folder: {getattr(exc, 'strerror', None) or exc}") from None
    tmp = _temp_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"{path}: cannot write the {what}: {exc.strerror or exc}") from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user: alive
        return True
    return True


def remove_stale_temps(root: str | os.PathLike) -> list[Path]:
    """Remove the temporary files that killed runs left anywhere under ``root``: only names of
    :func:`atomic_path`'s pattern whose writing process is gone. Returns what was removed."""
    root = Path(root)
    removed = []
    if not root.is_dir():
        return removed
    for dirpath, _, names in os.walk(root):
        for name in names:
            m = TEMP_NAME.match(name)
            if m and not _alive(int(m.group(1))):
                p = Path(dirpath) / name
                try:
                    p.unlink()
                    removed.append(p)
                except OSError:
                    pass
    return removed
