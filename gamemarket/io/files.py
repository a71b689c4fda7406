"""Writing files so that nothing is ever half-written: a temporary file beside the target, then a rename."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError


def _read_error(path: Path, exc: Exception, what: str) -> InputError:
    """The message for a file that cannot be read, naming it and what was expected."""
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{path}: no such {what}")
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{path}: is a folder; expected a {what}")
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"{path}: not a text file ({exc.reason} at byte {exc.start}); expected a {what}")
    return InputError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}")


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
    """A text file's contents; a missing file, a folder or binary content is an error naming the path."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _read_error(path, exc, what) from None


def read_toml(path: str | os.PathLike, what: str = "TOML file") -> dict:
    """A TOML file as a dict; a missing file, a folder, binary content or bad TOML is an error naming the path."""
    import tomllib

    try:
        return tomllib.loads(read_text(path, what))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: invalid TOML: {exc}") from None


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
    except OSError as exc:
        raise InputError(f"{path}: cannot create its folder: {exc.strerror or exc}") from None
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
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


def write_json(path: str | os.PathLike, payload: dict) -> None:
    """Write JSON atomically (numpy values converted)."""
    with atomic_path(path, "JSON file") as tmp:
        tmp.write_text(json.dumps(payload, indent=2, default=_json_default))


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)
