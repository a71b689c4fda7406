"""Numeric arrays from ``.npz`` archives, as ``numpy.savez`` writes them: sized from their headers before anything
is inflated, never unpickled, every problem named by file and array. The pricing problems and markets and the
bimatrix games given as arrays (nashpy's ``Game(A, B)``, saved) are read here."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError


def declared_bytes(path: str | Path) -> int:
    """The bytes an ``.npz``'s arrays take once read, from each ``.npy`` header alone (a compressed archive is not
    inflated to find out); 0 where the file is not a zip archive (its reading says why)."""
    total = 0
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                with zf.open(info) as f:
                    fmt = np.lib.format
                    version = fmt.read_magic(f)
                    read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                    shape, _, dtype = read(f)
                total += int(np.prod(shape, dtype=object)) * dtype.itemsize
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return 0
    return total


def read_npz(
    path: str | Path, required=("A", "R"), what: str = "problem", text=("utility",), *, limit: int | None = None
) -> dict:
    """Every array of an ``.npz``, read eagerly, with an error naming the file and array when one cannot
    be read, is missing, or is not numeric (``text`` names the arrays that hold a string instead).

    Python objects are never unpickled: an array of objects is an error, whatever the file says. With ``limit``
    (bytes), an archive whose arrays would take more once read (:func:`declared_bytes`, from their headers) is
    refused before anything is inflated.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder; expected a {what} file (.npz)")
    if limit is not None and (need := declared_bytes(path)) > limit:
        raise InputError(
            f"{path}: its arrays take {need:,} bytes once read; the limit is {limit:,} bytes "
            "(GAMEMARKET_MEMORY_LIMIT, or this machine's memory); expected a smaller problem"
        )
    try:
        with np.load(path, allow_pickle=False) as f:  # a lone .npy array is no context manager: caught below
            z = {}
            for key in f.files:
                try:
                    z[key] = f[key]
                except ValueError as exc:
                    if "allow_pickle" in str(exc):
                        raise InputError(
                            f"{path}: array {key!r} holds Python objects; expected numbers "
                            "(gamemarket never unpickles a file)"
                        ) from None
                    raise
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what} file") from None
    except Exception:  # a zero-byte file (EOFError), not a zip (BadZipFile), a bad header (ValueError)
        # numpy's own reasons can suggest unpickling; say what is wrong in our words instead
        reason = (
            "the file is empty"
            if path.stat().st_size == 0
            else "a damaged array inside the archive"
            if zipfile.is_zipfile(path)
            else "not a zip archive of .npy arrays"
        )
        raise InputError(f"{path}: cannot read {what}: {reason}; expected a .npz file as numpy.savez writes") from None
    for key in required:
        if key not in z:
            raise InputError(f"{path}: missing array {key!r} (have {sorted(z)})")
    for key, arr in z.items():
        if key in text:
            if arr.dtype.kind not in "US" or arr.ndim != 0:
                raise InputError(f"{path}: array {key!r} is {arr.dtype} of shape {arr.shape}; expected one string")
        elif arr.dtype.kind not in "biuf":
            raise InputError(f"{path}: array {key!r} has dtype {arr.dtype}; expected numbers")
    return z
