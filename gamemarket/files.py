"""Writing files so that nothing is ever half-written: a temporary file beside the target, then a rename."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gamemarket.errors import InputError


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
