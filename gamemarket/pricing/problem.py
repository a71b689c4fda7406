"""An allocation problem of fungible resources (pricing model section 1), validated on construction."""

from __future__ import annotations

import difflib
import io
import math
import numbers
import os
import stat
import tempfile
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError, check_path, check_seed, check_whole, no_such, shown_value
from gamemarket.pricing.utilities import (
    MAGNITUDE,
    Utility,
    as_float64,
    check_complete,
    check_magnitude,
    make_utility,
    one_per,
)


def efficiencies(value) -> np.ndarray:
    """``A`` given to :class:`Problem` as a 2-D float array, else an :class:`InputError` naming it. A float array is
    held as given, not copied: a problem of millions of jobs would hold its largest array twice (the CLI's and
    ``synthetic``'s arrays are the problem's own); a caller who changes theirs afterwards changes the problem (give
    ``A.copy()`` to keep one apart). An object array of
    real numbers (a pandas frame of pyarrow or nullable dtypes gives one) is taken as numbers; a masked array
    with masked entries, a ``scipy.sparse`` matrix ("got shape ()"), text and booleans are refused."""
    if hasattr(value, "tocsr") and hasattr(value, "nnz"):
        raise InputError(
            f"A must be a dense array; a scipy.sparse matrix ({type(value).__name__}, shape {value.shape}) is not "
            "taken: give A.toarray()"
        )
    if isinstance(value, np.ma.MaskedArray):
        if np.ma.count_masked(value):
            raise InputError(
                f"A is a masked array with {int(np.ma.count_masked(value)):,} masked entries; the mask would be "
                "ignored: give the values themselves (A.filled(...))"
            )
        value = value.data
    try:
        A = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"A must be an (n jobs x m resources) matrix of numbers ({exc})") from None
    if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
        raise InputError(f"A must be an (n jobs x m resources) matrix, got shape {A.shape}")
    if A.dtype.kind == "O":
        odd = next((v for v in A.flat if not _real(v)), None)
        if odd is None:
            return A.astype(np.float64)
        raise InputError(f"A must hold numbers (integers or floats), got {shown_value(odd)} ({type(odd).__name__})")
    if A.dtype.kind not in "iuf":  # ('1' was read as 1.0, True as 1: numbers no one wrote)
        raise InputError(f"A must hold numbers (integers or floats), got {A.dtype} values such as {A.flat[0].item()!r}")
    if not np.issubdtype(A.dtype, np.floating) or A.dtype.itemsize > 8:  # (wider floats: what float64 holds)
        return as_float64(A, "A")
    return A


def _real(v) -> bool:
    """A real number (not a bool, a text or a missing value) among an object array's entries."""
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


#: the bytes of a target's name that :meth:`Problem.save`'s temporary file keeps (names of up to 255 bytes are legal)
TEMP_STEM_BYTES = 160


@dataclass
class Problem:
    """``maximize sum_i u_i(a_i^T x_i)`` s.t. ``x_i >= 0``, ``1^T x_i <= 1``, ``X^T d <= R``."""

    A: np.ndarray
    R: np.ndarray
    utility: Utility
    demand: np.ndarray | None = None
    weight: np.ndarray | None = None
    target: np.ndarray | None = None

    def __post_init__(self) -> None:
        A = efficiencies(self.A)
        if not np.isfinite(A).all():
            i, j = np.argwhere(~np.isfinite(A))[0]
            raise InputError(f"A[{i}, {j}] is {A[i, j]!r}: efficiencies must be finite")
        if (A < 0).any():
            i, j = np.argwhere(A < 0)[0]
            raise InputError(f"A[{i}, {j}] is {A[i, j]!r}: efficiencies must be >= 0")
        n, m = A.shape
        R = one_per(self.R, "resource limits R", m, "limit per resource")
        if not np.isfinite(R).all() or (R < 0).any():  # 0 allowed (R in R^m_+): such a resource goes unused
            raise InputError(f"resource limits R must be finite and >= 0, got {R.tolist()[:8]}")
        d = np.ones(n) if self.demand is None else one_per(self.demand, "demand", n, "number per job")
        bad = ~(np.isfinite(d) & (d > 0))
        if bad.any():  # (the job named, as a weight's or a target's is: 41c-W3)
            j = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"demand of job {j} is {d[j].item()!r}; expected {n} finite numbers > 0 ({int(bad.sum()):,} job(s) not)"
            )
        self.utility = check_complete(make_utility(self.utility)).bind(n, self.weight, self.target)
        if self.target is not None and getattr(self.utility, "t_des", None) is None:  # kept and unused, before
            raise InputError(
                f"target (a desired throughput per job) applies to the target utility, not {self.utility.name!r}; "
                "give utility='target', or leave the targets out"
            )
        for name, arr in (("A", A), ("R", R), ("demand", d), ("weight", self.utility.w), ("target", self.target)):
            check_magnitude(name, arr, zero=name != "demand")  # (a demand of 0 is refused above)
        if self.utility.needs_positive_throughput:
            # (a job of weight 0 is worth 0 whatever it gets, since 21b-F2: none of its -inf, hunt 23c-W1)
            weight = np.broadcast_to(np.asarray(self.utility.w, dtype=float), (A.shape[0],))
            dead = ~((A > 0) & (R > 0)).any(axis=1) & (weight > 0)
            if dead.any():
                where = " on a resource of capacity > 0" if (R == 0).any() else ""
                raise InputError(
                    f"job {int(np.flatnonzero(dead)[0])} has no positive efficiency{where}: its "
                    f"{self.utility.name} utility would be -inf"
                )
        self.A, self.R, self.demand = A, R, d

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, m)``: jobs and resources."""
        return self.A.shape

    def save(self, path: str | Path) -> None:
        """Write the problem as ``.npz`` (``A``, ``R``, ``demand``, ``weight``, ``utility`` and ``target`` where
        the utility has one): ``gamemarket price solve`` and :func:`load` read it back. Written atomically (a
        temporary file, then a rename): a failed write leaves no part of it, and ``path`` is used as it is named.
        """
        arrays = {
            "A": self.A,
            "R": self.R,
            "demand": self.demand,
            "weight": self.utility.w,
            "utility": np.array(self.utility.name),
        }
        if getattr(self.utility, "t_des", None) is not None:
            arrays["target"] = self.utility.t_des
        # (pricing stands alone, so not ``io.files.atomic_path``: the same temporary file and rename, here)
        path = check_path(path, "Problem.save: path")
        if path.is_dir():  # (os.replace's IsADirectoryError, naming the temporary)
            raise InputError(f"{path}: is a folder; Problem.save writes a file (.npz)")
        tmp = None
        try:
            # the target's name cut to 160 bytes: a legal name of up to 255 bytes keeps a legal temporary
            # (mkstemp adds 8 letters and ".tmp"; a cut inside a character stays the same bytes on disk)
            stem = os.fsdecode(os.fsencode(path.name)[:TEMP_STEM_BYTES])
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{stem}.", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:  # a file object: numpy adds no ".npz" to the name
                np.savez(f, **arrays)
            # mkstemp's file is private (0600): the problem gets the modes every other output gets (the umask's)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except OSError as exc:  # a full or read-only disk, a parent that is a file, a symlink loop
            raise InputError(f"{path}: cannot write the problem: {os_reason(exc)}") from None
        finally:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)


def _umask() -> int:
    """The process's umask: from ``/proc/self/status`` (Linux: read without changing it, which another thread's
    file would see), else by setting it and putting it back at once."""
    try:
        with open("/proc/self/status", encoding="utf-8") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def os_reason(exc: OSError) -> str:
    """An :class:`OSError`'s reason alone (``No space left on device``), without the paths it names (the
    temporary's, which the caller never wrote)."""
    return exc.strerror or str(exc) or type(exc).__name__


def _check_input(path: Path, what: str) -> None:
    """A device or a socket is no problem file (``/dev/zero`` never ends): an error naming it. (Pricing stands alone,
    importing nothing of the package but its errors: ``gamemarket.io.files.check_input`` is the rest's.)"""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):  # missing, or a NUL byte in the name: reading it says so
        return
    kind = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else None
    if kind is not None:
        raise InputError(f"{path}: is {kind}, not a file; the {what} is read from a file (or a pipe)")


def _stream_bytes(path: Path, what: str, limit: int | None, said: str) -> bytes | None:
    """A pipe's bytes (``<(cat problem.npz)``), read once and in blocks, refused past ``limit`` bytes (an endless
    stream); None for a regular file, which is read where it lies. (Pricing stands alone: the rest of the package
    has ``gamemarket.io.files.read_input_bytes``.) A zip archive is read twice (its headers, then its arrays), which
    a pipe cannot give: it said "the file is empty"."""
    try:
        if not stat.S_ISFIFO(path.stat().st_mode):
            return None
    except (OSError, ValueError):
        return None
    blocks, total = [], 0
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            total += len(block)
            if limit is not None and total > limit:
                raise InputError(
                    f"{path}: the pipe gave more than {limit:,} bytes, the most it may ({said}); expected a shorter "
                    "stream, or a file"
                )
            blocks.append(block)
    return b"".join(blocks)


def npz_headers(source) -> dict | None:
    """``{array name: (shape, dtype)}`` of an ``.npz``'s ``.npy`` members, from their headers alone (nothing is
    inflated past them; ``(None, None)`` for a member whose header cannot be read: reading it says why); None where
    the file is not a zip archive."""
    headers = {}
    try:
        with zipfile.ZipFile(source) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                name = info.filename[: -len(".npy")]
                try:
                    with zf.open(info) as f:
                        fmt = np.lib.format
                        version = fmt.read_magic(f)
                        read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                        shape, _, dtype = read(f)
                    headers[name] = (tuple(shape), dtype)
                except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError):
                    headers[name] = (None, None)  # (a damaged member: unread where the layout leaves it out)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None
    return headers


def declared_bytes(path, keep: tuple = ()) -> int:
    """The bytes an ``.npz``'s arrays take once read, from each ``.npy`` header alone (a compressed archive is not
    inflated to find out); 0 where the file is not a zip archive (its reading says why). Where the archive holds
    every array of ``keep``, only those count: the rest are left unread (hunt 17b-2: an unread array declaring 80 GB
    had the game refused)."""
    total = 0
    try:
        with zipfile.ZipFile(path) as zf:
            members = zf.infolist()
            names = {info.filename for info in members}
            only = {f"{k}.npy" for k in keep} if keep and all(f"{k}.npy" in names for k in keep) else None
            for info in members:
                if not info.filename.endswith(".npy") or (only is not None and info.filename not in only):
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
    path: str | Path,
    required=("A", "R"),
    what: str = "problem",
    text=("utility",),
    *,
    limit: int | None = None,
    keep: tuple = (),
) -> dict:
    """Every array of an ``.npz``, read eagerly, with an error naming the file and array when one cannot
    be read, is missing, or is not numeric (``text`` names the arrays that hold a string instead). Where the
    archive holds every array of ``keep``, only those are read: the others are named in a warning and left unread
    (a tool's labels or seed beside a game's payoffs), whatever they hold.

    Python objects are never unpickled: an array of objects is an error, whatever the file says. With ``limit``
    (bytes), an archive whose arrays would take more once read (:func:`declared_bytes`, from their headers) is
    refused before anything is inflated.

    ``keep`` may also be a function ``keep(path, headers)`` of the archive's :func:`npz_headers` (``{name: (shape,
    dtype)}``) that returns the arrays to read, or raises: a reader that tells its layout from the names and shapes
    (a game's ``A`` and ``B``) decides it before any array is read or checked (hunt 18b-F8: a price problem given to
    ``game solve`` was refused for the dtype of its ``utility``, an array a game would never read). Not called where
    the file is no zip archive (its reading says why).
    """
    path = check_path(path, "read_npz: path")  # (an int, bytes or None: pathlib's bare TypeError)
    said = limit_source(limit)
    limit = check_limit(limit)
    if path.is_dir():
        raise InputError(f"{path}: is a folder; expected a {what} file (.npz)")
    _check_input(path, what)
    try:
        source = _stream_bytes(path, what, limit, said)  # a pipe, read once; else None (read where it lies)
        opened = (lambda: io.BytesIO(source)) if source is not None else (lambda: path)
        if callable(keep):
            headers = npz_headers(opened())
            keep = () if headers is None else tuple(keep(path, headers))
        if limit is not None and (need := declared_bytes(opened(), keep)) > limit:
            raise InputError(
                f"{path}: its arrays take {need:,} bytes once read; the limit is {limit:,} bytes ({said}); expected "
                "a smaller problem"
            )
        z = _arrays(path, opened, what, len(source) if source is not None else None, keep)
    except OSError as exc:  # a symlink loop, no permission, a parent that is a file
        raise InputError(f"{path}: cannot read the {what}: {os_reason(exc)}") from None
    for key in required:
        if key not in z:
            game = (  # (a game's arrays given as a price problem: hunt 18c-W4's review)
                "; A and B are a game's two payoff matrices: solve it with `gamemarket game solve FILE.npz`"
                if {"A", "B"} <= set(z) and "R" not in z
                else "; a price solve --out result (prices, allocation, converged), not a problem: solve the problem "
                "it came from"
                if {"prices", "converged"} <= set(z)  # (hunt 21b-W7: named as an array missing)
                else ""
            )
            raise InputError(f"{path}: missing array {key!r} (have {sorted(z)}){game}")
    for key, arr in z.items():
        if key in text:
            if arr.dtype.kind not in "US" or arr.ndim != 0:
                raise InputError(f"{path}: array {key!r} is {arr.dtype} of shape {arr.shape}; expected one string")
        elif arr.dtype.kind not in "iuf":  # booleans too: True as 1 is a number no one wrote (job tables refuse them)
            raise InputError(f"{path}: array {key!r} has dtype {arr.dtype}; expected numbers (integers or floats)")
    return z


def _arrays(path: Path, opened, what: str, size: int | None, keep: tuple = ()) -> dict:
    """Every array of the archive ``opened()`` gives (a fresh path or in-memory file each call), never unpickled;
    an error naming ``path`` where one cannot be read (``size``: a stream's length, else the file's). Where the
    archive holds all of ``keep``, only those (the rest named in a warning)."""
    try:
        _no_repeated_members(path, opened)
        with np.load(opened(), allow_pickle=False) as f:  # a lone .npy array is no context manager: caught below
            z = {}
            names = f.files
            if keep and set(keep) <= set(names) and len(names) > len(keep):
                rest = sorted(set(names) - set(keep))
                shown = ", ".join(repr(k) for k in rest[:10]) + (
                    f" and {len(rest) - 10:,} more" if len(rest) > 10 else ""
                )
                warnings.warn(
                    f"{path}: array(s) {shown} read past (a {what} is its arrays {', '.join(keep)})", stacklevel=4
                )
                names = list(keep)
            for key in names:
                try:
                    z[key] = f[key]
                except ValueError as exc:
                    if "allow_pickle" in str(exc):
                        raise InputError(
                            f"{path}: array {key!r} holds Python objects; expected numbers "
                            "(gamemarket never unpickles a file)"
                        ) from None
                    raise
                if not isinstance(z[key], np.ndarray):  # numpy's bytes of a member with no .npy header (40b-F1)
                    member = key if key.endswith(".npy") or key not in names else f"{key}.npy"
                    raise InputError(
                        f"{path}: cannot read {what}: member {member!r} is not a .npy array (no NumPy header); "
                        "expected a .npz file as numpy.savez writes"
                    )
            return z
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(no_such(path, f"{what} file")) from None
    except Exception:  # a zero-byte file (EOFError), not a zip (BadZipFile), a bad header (ValueError)
        # numpy's own reasons can suggest unpickling; say what is wrong in our words instead
        reason = (
            "the file is empty"
            if (path.stat().st_size if size is None else size) == 0
            else "a damaged array inside the archive"
            if zipfile.is_zipfile(opened())
            else "not a zip archive of .npy arrays"
        )
        raise InputError(f"{path}: cannot read {what}: {reason}; expected a .npz file as numpy.savez writes") from None


def _no_repeated_members(path: Path, opened) -> None:
    """An :class:`InputError` where the archive holds one array's name twice (hunt 17b-7: a zip with ``A.npy`` twice
    was read with the second, as numpy reads it, in silence: another game than the first ``A`` gave)."""
    source = opened()
    if not zipfile.is_zipfile(source):
        return
    with zipfile.ZipFile(opened()) as zf:
        names = zf.namelist()
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(
            f"{path}: the archive holds {repeated[0]!r} {names.count(repeated[0])} times; expected each array once "
            "(which one is meant cannot be told)"
        )


#: the floating-point types a problem's efficiencies are held in (and a solve computes in)
FLOAT_TYPES = (np.float64, np.float32)


def check_dtype(dtype, what: str) -> type:
    """A floating-point type given to the API (``dtype=``): float64 or float32, as a numpy type, a
    ``numpy.dtype`` or a name numpy reads as one of them (``"float32"``, ``"f8"``); Python's ``float`` is float64.
    Returned as ``np.float64`` or ``np.float32``; else an :class:`InputError` naming ``what`` and the value (None
    was float64 in silence, ``"abc"`` or 3 numpy's ``TypeError``)."""
    found = None
    if dtype is not None and not isinstance(dtype, (bool, np.bool_, numbers.Number)):
        try:
            found = np.dtype(dtype)
        except (TypeError, ValueError, KeyError, AttributeError):
            found = None
    for kind in FLOAT_TYPES:
        if found is not None and found == np.dtype(kind):
            return kind
    raise InputError(f"{what} must be float64 or float32 (numpy's, or their names), got {shown_value(dtype)}")


#: the arrays a problem's ``.npz`` may hold (:meth:`Problem.save` writes them)
PROBLEM_ARRAYS = ("A", "R", "demand", "weight", "target", "utility")


def _utility_name(value: np.ndarray, path) -> str:
    """A saved problem's ``utility``: one name, stored as text (``np.savez(..., utility="log")``) or as bytes
    (``b"log"``, decoded: it was named ``np.bytes_(b'log')``, hunt 19b-W2); any other array is named as it is."""
    if value.ndim == 0 and value.dtype.kind == "S":
        try:
            return value.item().decode("utf-8")
        except UnicodeDecodeError:
            pass
    elif value.ndim == 0 and value.dtype.kind == "U":
        return str(value.item())
    raise InputError(
        f"{path}: array 'utility' holds {value.dtype} of shape {value.shape}; expected one name (linear, log, "
        "target or alpha:<value>), saved as np.savez(..., utility='log')"
    )


def load(path: str | Path, *, limit: int | None = None) -> Problem:
    """An ``.npz`` with ``A`` (n x m), ``R`` (m), optional ``demand``, ``weight``, ``target`` (n) and a
    string ``utility`` (linear, log, alpha:<value>, target); ``limit``: the most bytes its arrays may take
    (:func:`read_npz`, before they are inflated) and its solve (:func:`check_solve_fits`)."""
    path = check_path(path, "load: path")
    limit = check_limit(limit)
    # the solve sized from the headers, before the arrays are inflated (hunt 32b-F1: 700 kB of compressed ones, 20,000 x
    # 3,000, were read whole, 1.27 GB under a 600 MB limit, then refused), after the arrays' own size (read_npz's)
    if os.path.isfile(path) and (limit is None or declared_bytes(path) <= limit):
        shape = (npz_headers(path) or {}).get("A", (None, None))[0]
        if shape is not None and len(shape) == 2:
            n, m = int(shape[0]), int(shape[1])
            check_solve_fits(n, m, f"{path}: its {n:,} jobs x {m:,} resources (their solve)", limit)
    z = read_npz(path, limit=limit)
    unknown = sorted(set(z) - set(PROBLEM_ARRAYS))
    if unknown:  # a misspelt optional array ("weights") would leave its default in silence
        hint = difflib.get_close_matches(unknown[0], PROBLEM_ARRAYS, n=1)
        raise InputError(
            f"{path}: unknown array {unknown[0]!r}"
            + (f" (did you mean {hint[0]!r}?)" if hint else "")
            + f"; expected only {', '.join(PROBLEM_ARRAYS)}"
        )
    util = _utility_name(z["utility"], path) if "utility" in z else "log"
    if "target" in z and util != "target":  # a utility left out (log) would ignore the targets in silence
        raise InputError(
            f"{path}: array 'target' (a target throughput per job) applies to the target utility, not {util!r}"
            f"{'' if 'utility' in z else ' (no utility array: the default)'}; give utility = 'target', or leave "
            "the targets out"
        )
    try:
        problem = Problem(
            z["A"],
            z["R"],
            util,
            demand=z["demand"] if "demand" in z else None,
            weight=z["weight"] if "weight" in z else None,
            target=z["target"] if "target" in z else None,
        )
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from exc
    n, m = problem.shape
    check_solve_fits(n, m, f"{path}: its {n:,} jobs x {m:,} resources (their solve)", limit)
    return problem


#: a solve's peak memory, estimated from its shape: bytes per job (the per-job vectors: bids, utilities, targets,
#: the allocation's bookkeeping) and per job and resource (the efficiencies and the dual evaluations' n x m work
#: arrays). Near the measured peaks (``benchmarks/results/pricing-bench.txt``: 1e6 x 4, 16 and 32 in float64 peak
#: at 0.5, 0.6 and 2.5 GB of resident memory; this estimate says 0.5, 1.3 and 2.3 GB): a guard against requests that
#: cannot fit, not a promise that one under the limit will
SOLVE_BYTES_PER_JOB = 256
SOLVE_BYTES_PER_CELL = 64


def limit_source(limit) -> str:
    """Where a memory ``limit`` came from, for a message: the command's (``gamemarket.io.limits.memory_limit``
    gives its ``source``), else the ``limit=`` argument (it was called "GAMEMARKET_MEMORY_LIMIT, or this machine's
    memory" whatever set it)."""
    return str(getattr(limit, "source", "the limit= argument"))


def check_limit(limit) -> int | None:
    """A memory ``limit`` given to the API as a whole number of bytes > 0 (or None: no limit), else an
    :class:`InputError` naming the value (``limit=-1`` was refused as "expected a smaller problem")."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit <= 0:
        raise InputError(f"limit must be a whole number of bytes > 0 (or None: no limit), got {limit!r}")
    # (a whole number as given, so that the command's keeps its source: made int, every later message said the limit
    # came from "the limit= argument", whatever set it, hunts 36b-W2 and 39b-W1)
    return limit if isinstance(limit, int) else int(limit)


def check_solve_fits(n: int, m: int, what: str, limit: int | None) -> None:
    """Refuse a problem of ``n`` jobs and ``m`` resources whose solve would take more than ``limit`` bytes (the
    command passes ``GAMEMARKET_MEMORY_LIMIT``, else this machine's memory; None: no limit), before anything of
    that size is allocated. (The pricing package stands alone: the limit is given, not read here.)"""
    said = limit_source(limit)
    limit = check_limit(limit)
    need = float(n) * (SOLVE_BYTES_PER_JOB + SOLVE_BYTES_PER_CELL * float(m))
    if limit is not None and need > limit:
        raise InputError(
            f"{what} needs about {bytes_text(need)} of memory; the limit is {bytes_text(limit)} ({said}); expected a "
            "smaller problem"
        )


def bytes_text(n: float) -> str:
    """A size for a person: three significant digits in the largest unit it reaches (``64 TB``, ``100 kB``)."""
    units = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
    return next((f"{n / size:.3g} {unit}" for size, unit in units if n >= size), f"{n:.0f} bytes")


#: numbers of the synthetic family's efficiencies drawn at once (float64, then held in the precision asked)
DRAW_CELLS = 1 << 20


def synthetic(
    n: int, m: int, utility: str = "log", *, seed: int = 0, dtype=np.float64, limit: int | None = None
) -> Problem:
    """The paper's synthetic family: resources from least to most efficient on average,
    ``R_j ~ U[0.1, 1] * n / 1.5^(j-1)``, unit weights. With ``limit`` (bytes), a problem whose solve would take
    more is refused before it is drawn (:func:`check_solve_fits`)."""
    n, m = check_whole(n, "n (jobs)", 1), check_whole(m, "m (resources)", 1)  # (the message named neither value)
    check_seed(seed)  # (numpy's ValueError before)
    dtype = check_dtype(dtype, "synthetic: dtype")
    if not isinstance(utility, (str, Utility)):  # (an empty array was numpy's "truth value ... is ambiguous")
        raise InputError(
            f"synthetic: utility must be a name (linear, log, target, alpha:<value>) or a gamemarket.pricing.Utility, "
            f"got {shown_value(utility)} ({type(utility).__name__})"
        )
    check_solve_fits(n, m, f"a synthetic price problem of {n:,} jobs x {m:,} resources (its solve)", limit)
    rng = np.random.default_rng(seed)
    try:  # (no limit given: 10**13 jobs were numpy's MemoryError, 10**30 jobs or resources its "maximum allowed size")
        # drawn in float64 whatever the precision held, row blocks of at most DRAW_CELLS numbers (the stream is the
        # same as one draw's), each rounded to ``dtype``: float32 is the float64 problem rounded, never numpy's float32
        # stream, another problem for the same seed (hunt 26c-F3: objective -1,841.7 against -1,552.4)
        scale = np.arange(1, m + 1) / m
        A = np.empty((n, m), dtype=dtype)
        rows = max(1, DRAW_CELLS // m)
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            A[start:stop] = rng.random((stop - start, m)) * scale
    except (MemoryError, ValueError) as exc:
        raise InputError(
            f"a synthetic price problem of {n:,} jobs x {m:,} resources cannot be drawn ({exc}); expected a smaller "
            "problem (limit= refuses one before it is drawn)"
        ) from None
    # the family's capacities fall as 1.5^-j: past this many resources the smallest drops below the least magnitude a
    # problem may hold (hunt 22b-F1: m = 100 of n = 1000 was told to "rescale the problem's units" of a problem the
    # user never wrote, and m in the thousands overflowed 1.5^m with numpy's warning)
    most = 1 + int(math.floor(math.log(0.1 * n / MAGNITUDE[0]) / math.log(1.5)))
    if m > most:
        raise InputError(
            f"synthetic: m (resources) is {m:,}: the paper's family draws capacities U[0.1, 1] n / 1.5^j, which for "
            f"n = {n:,} jobs fall below {MAGNITUDE[0]:g} past m = {most:,}; expected m <= {most:,} (or more jobs)"
        )
    R = rng.uniform(0.1, 1.0, m) * n / 1.5 ** np.arange(m)
    target = None
    if utility == "target":
        target = rng.uniform(0.1, 0.5, n)
    return Problem(A, R, utility, target=target)
