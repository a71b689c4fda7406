"""Reading and writing files safely: checked reads, atomic writes, resolved paths, strict JSON.

- Reads (:func:`read_text`, :func:`read_toml`, :func:`read_json`) turn every way a file can fail to
  read (missing, a folder, binary, a symlink loop, nesting too deep for the parser, an integer too long
  to convert) into an :class:`~gamemarket.errors.InputError` naming the path.
- Writes go to a temporary file beside the target, then a rename (:func:`atomic_path`), so nothing is
  ever half-written. The temporary name carries the writing process's id in a pattern only gamemarket
  uses (``.<name>.gm-<pid>-h<host>_<n>.tmp``), so a later run can remove what a killed run left without touching
  anyone else's files (:func:`remove_stale_temps` for a whole results or report folder; every
  :func:`atomic_path` clears its target's folder the first time a process writes there, so a ``--out`` file's
  folder too).
- JSON meant for people or other programs (:func:`dumps_json`) is strict JSON: a NaN or an infinity is
  written as ``null``, never as the ``NaN``/``Infinity`` literals no JSON parser but Python's accepts.

Ownership of output: gamemarket overwrites or deletes only what it wrote.

Two shapes of output:

- **An output folder** (a report, an export, a results store): :class:`OutputFolder`. Every folder
  gamemarket writes into carries a manifest, ``.gamemarket-manifest.json``, naming its owner (the study
  or command it belongs to) and every file gamemarket wrote there. The rules:

  * a folder that does not exist, or is empty, is created or adopted, with its manifest;
  * a folder whose manifest names another owner is refused, unless ``force``;
  * a folder that holds files but no manifest was not made by gamemarket: it is refused, naming what it
    holds and what would be replaced, unless ``force``; with ``force``, files of the names gamemarket
    writes are replaced and every other file is left as it is;
  * cleaning (:meth:`OutputFolder.finish`) removes only files the manifest lists that this run did not
    write again (figures an earlier report drew, say), never another file.

  * a folder inside another gamemarket folder whose manifest lists files in it (a report's ``data/``) is part of
    that folder: it is refused unless ``force``;
  * a staged folder (a report's) writes its files into a staging folder and moves them into place together when
    the run finishes: a run stopped half-way leaves the last finished run's files as they were.

  A file is entered in the manifest before it is written, so a run killed half-way still owns what it
  left, and the next run may replace it.

- **An output file** (``simulate --out``, ``price solve --out``, a model file): :func:`check_output_file`.
  An existing file is replaced only with ``force``; a file a gamemarket folder's manifest lists (a stored run, a
  report's table) never: it is that folder's owner's to replace.

In both shapes an output that resolves (symlinks and hard links included) to one of the command's inputs
is refused, ``force`` or not, as are two outputs that would be one file (names that differ only in case
included, since they are one file on case-insensitive file systems); see :func:`check_outputs`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import fnmatch
import functools
import hashlib
import itertools
import json
import math
import os
import re
import shutil
import socket
import stat
import sys
import time
import tomllib
import warnings
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from gamemarket.errors import InputError, check_path, no_such, underflows
from gamemarket.io.kinds import HEAD_BYTES, kind_of, says_it_is
from gamemarket.io.limits import check_fits, memory_limit

_TMP_COUNTER = itertools.count()
#: this machine, in a temporary file's name: a process id is this machine's, and a folder may be shared (a results
#: store on a network file system that workers on other machines write into)
HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
#: the temporary files of :func:`atomic_path` (and of a download): ``.<target name>.gm-<pid>-<tag>.tmp``, the tag
#: ``h<host>_<n>`` (older versions: ``<n>``, no host)
TEMP_NAME = re.compile(r"^\..+\.gm-(\d+)-h([0-9a-f]{8})_[A-Za-z0-9_]{1,20}\.tmp$")


def _stage_name() -> str:
    """A staging folder's name (:class:`OutputFolder` ``staged``): :data:`TEMP_NAME`'s pattern, of this process
    and machine (``.stage.gm-<pid>-h<host>_<n>.tmp``), so that one a killed run left is known as such."""
    return f".stage.gm-{os.getpid()}-h{HOST}_{next(_TMP_COUNTER)}.tmp"


#: the longest file name (in bytes) the file systems gamemarket writes on take (Linux's NAME_MAX)
NAME_MAX = 255
#: the bytes a temporary's name keeps after :func:`temp_prefix` for what follows it: a counter (or
#: ``mkstemp``'s random letters) and ``.tmp``
TEMP_TAIL = 28


def temp_prefix(path: Path) -> str:
    """The start of a temporary file's name for ``path`` (``tempfile.mkstemp(prefix=..., suffix=".tmp")``):
    ``.<name>.gm-<pid>-h<host>_``, the target's name shortened where the whole would pass :data:`NAME_MAX` (an
    output named with 230 to 255 bytes is legal, and its temporary must be too) and made UTF-8 text (a byte that is
    not, in a name from a Latin-1 system, is ``_``), so that every writer (Arrow's, which takes UTF-8 names only)
    takes the temporary's name."""
    fixed = f".gm-{os.getpid()}-h{HOST}_"
    room = NAME_MAX - 1 - len(fixed) - TEMP_TAIL
    name = os.fsencode(path.name).decode("utf-8", "replace").replace("\ufffd", "_")
    name = name.encode("utf-8")[:room].decode("utf-8", "ignore")
    return f".{name}{fixed}"


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
        return InputError(no_such(path, what))
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{path}: is a folder; expected {_article(what)} {what}")
    if isinstance(exc, UnicodeDecodeError):
        return InputError(f"{path}: {not_utf8(exc)}; expected {_article(what)} {what}")
    return InputError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}")


#: the first bytes of binary files a text reader may be given, and what each is
BINARY_MARKS = (
    (b"PK\x03\x04", "a zip archive"),
    (b"\x1f\x8b", "gzip-compressed (decompress it first: gunzip -k FILE)"),
    (b"BZh", "bzip2-compressed"),
    (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
    (b"\x7fELF", "a compiled program (ELF)"),
    (b"\x89PNG", "a PNG image"),
    (b"%PDF", "a PDF document"),
)


def binary_mark(path: str | os.PathLike) -> str | None:
    """What a file's first bytes say it is where they are one of :data:`BINARY_MARKS` (``"gzip-compressed
    (decompress it first: gunzip -k FILE)"``), else None (a stream or an unreadable file too): a reader's error
    tail where a compressed game or price problem was "told by the name's ending" or "not a zip archive" (hunt
    20b-W7)."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return None
    return next((what for magic, what in BINARY_MARKS if head.startswith(magic)), None)


def _utf16_without_mark(head: bytes) -> bool:
    """Whether ``head`` reads as UTF-16 text without its byte-order mark: a NUL in every other byte (ASCII text in
    UTF-16, little- or big-endian), the bytes between them not NUL. Many NULs anywhere (an .npz, a program) were
    taken for UTF-16, the user told to "save it as UTF-8" (hunt 19a-F3)."""
    if len(head) < 8:
        return False
    head = head[: len(head) // 2 * 2]
    for nuls, chars in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):
        if nuls.count(0) >= 0.9 * len(nuls) and chars.count(0) <= 0.1 * len(chars):
            return True
    return False


def not_utf8(exc: UnicodeDecodeError) -> str:
    """What text that does not decode as UTF-8 is (:func:`not_text`), with where it fails."""
    data = exc.object if isinstance(exc.object, bytes) else bytes(exc.object)
    return not_text(data, exc.start, exc.reason)


def not_text(data: bytes, start: int, reason: str) -> str:
    """What bytes that are no UTF-8 text (from byte ``start`` on, for ``reason``) are: UTF-16 (its byte-order mark,
    or a NUL in every other byte), a binary file of a kind known by its first bytes (an .npz, a program, an
    archive), text in an 8-bit encoding (Latin-1, Windows-1252: a byte above 127 outside any UTF-8 sequence, among
    printable text), or not text at all; with where it fails."""
    line = data.count(b"\n", 0, start) + 1
    where = f"byte {start}, line {line}"
    head = data[:4096]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or _utf16_without_mark(head):
        return "is UTF-16 text, not UTF-8: save it as UTF-8"
    found = kind_of(head[:HEAD_BYTES])  # (a binary file of a kind gamemarket knows: said as such, hunt 19a-F3)
    if found is not None and found[0].name in ("npz", "parquet"):
        return f"{found[0].told()}, not text; {found[0].reads_it}"
    for magic, what in BINARY_MARKS:
        if head.startswith(magic):
            return f"is {what}, not text"
    text = head.decode("latin-1")
    if b"\x00" not in head and sum(c.isprintable() or c in "\r\n\t" for c in text) >= 0.95 * len(text):
        return (
            f"is not UTF-8 (the byte {data[start]:#04x} at {where}: text in Latin-1, Windows-1252 or another "
            "8-bit encoding?): save it as UTF-8"
        )
    return f"not a text file ({reason} at {where})"


def resolve(path: str | os.PathLike, what: str = "path") -> Path:
    """``path`` made absolute with every symlink followed; a symlink loop, an unreadable path or a name no
    file system holds (a NUL byte, which a study file's string may carry) is an :class:`InputError` naming
    it (``Path.resolve`` raises ``RuntimeError``, ``OSError`` or ``ValueError`` there)."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError, ValueError) as exc:
        if isinstance(exc, RuntimeError):  # a loop: said as the readers say it, where the path itself is the link
            check_link(path, what)
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"{shown_path(path)}: cannot resolve the {what}: {reason}") from None


def _leads_nowhere(link: Path) -> bool:
    """Whether following ``link`` finds no file (its target missing), not a loop of links (said by
    :func:`resolve`, as such)."""
    try:
        os.stat(link)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def check_no_dangling_link(path: str | os.PathLike, where: str, what: str) -> None:
    """Refuse an output folder's path that is, or lies under, a symbolic link to nothing: making the folder would
    make the link's target (``cannot create the export folder: File exists``, of a folder that was not there; a
    study's ``[output] results`` through a link copied without its target made three folders there, among them a
    ``gamemarket/`` that shadowed the package: hunt 18b-W4)."""
    p = Path(path)
    dangling = next((q for q in (p, *p.parents) if q.is_symlink() and _leads_nowhere(q)), None)
    if dangling is not None:
        raise InputError(
            f"{where}: {dangling} is a link to {os.readlink(dangling)}, which does not exist; expected a folder "
            f"(or no file of that name) for the {what}"
        )


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


def check_input(path: str | os.PathLike, what: str = "file") -> None:
    """An input that can be read to its end, or an error naming it: a device (``/dev/zero`` never ends: a job table
    read from it grew to 23 GB before the kernel killed the process; ``/dev/stdin`` at a terminal waits) or a socket.
    A pipe or a process substitution (``<(zcat trace.swf.gz)``) is read once, as a file is. Every reader of a
    user's file calls this first."""
    kind = special_kind(path)
    if kind in ("a device", "a socket"):
        raise InputError(f"{path}: is {kind}, not a file; the {what} is read from a file (or a pipe)")
    check_link(path, what)


def check_link(path: str | os.PathLike, what: str = "file") -> None:
    """A symbolic link that leads nowhere (a loop, or a target that does not exist) is an error saying so: the
    readers said "no such file" of a name ``ls`` shows (hunt 16b: a link loop as a trace, a plugin, a game)."""
    if not os.path.islink(path) or os.path.exists(path):
        return
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(
                f"{path}: is a symbolic link in a loop (it leads back to itself); expected {_article(what)} {what}"
            ) from None
        raise InputError(
            f"{path}: is a symbolic link to {os.readlink(path)!r}, which does not exist; expected "
            f"{_article(what)} {what}"
        ) from None


#: bytes read from a pipe at a time (``read_input_bytes``)
PIPE_BLOCK = 1 << 20


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a pipe or a process substitution (``<(cat table.csv)``): its bytes can be read once, so a
    reader that looks twice (a header, then the table) must hold them (``read_input_bytes``)."""
    return special_kind(path) == "a pipe"


def a_descriptor(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a file descriptor (``/dev/stdin``, ``/dev/fd/N``, ``/proc/self/fd/N``): the name of a
    redirected file or a pipe, which says nothing of its format."""
    p = Path(path)
    return str(p) in ("/dev/stdin", "-") or str(p.parent) in ("/dev/fd", "/proc/self/fd")


def told_by_bytes(path: str | os.PathLike) -> bool:
    """Whether a reader tells ``path``'s format by its bytes, not its name: a pipe (``<(cat t.csv)``, read once) or a
    descriptor's name (``/dev/stdin`` redirected from a file: hunt 20b-W4 for games, 21c-F6 for job tables)."""
    return is_stream(path) or a_descriptor(path)


def read_input_bytes(path: str | os.PathLike, what: str = "file", *, limit: int | None = None) -> bytes:
    """A user's input file's bytes, read once: a regular file whole; a pipe in blocks, refused once it has given
    more than ``limit`` bytes (default: ``GAMEMARKET_MEMORY_LIMIT``, else this machine's memory), so that an endless
    stream (``<(yes)``) is an error naming it, not a process the kernel kills. Devices and sockets are refused
    (:func:`check_input`); a missing file, a folder or an unreadable one is an error naming the path."""
    path = check_path(path, "read_input_bytes: path")  # (an int, bytes or None: pathlib's bare TypeError)
    check_input(path, what)
    try:
        if not is_stream(path):
            return path.read_bytes()
        limit = memory_limit() if limit is None else limit
        blocks, total = [], 0
        with open(path, "rb") as f:
            while block := f.read(PIPE_BLOCK):
                total += len(block)
                if limit is not None and total > limit:
                    raise InputError(
                        f"{path}: the pipe gave more than {limit:,} bytes, the most it may (GAMEMARKET_MEMORY_LIMIT, "
                        f"or this machine's memory); a {what} is read whole: expected a shorter stream, or a file"
                    )
                blocks.append(block)
        return b"".join(blocks)
    except InputError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: "embedded null byte" in the name
        raise _read_error(path, exc, what) from None


def read_text(path: str | os.PathLike, what: str = "file", *, per_char: int = 0, doing: str = "reading") -> str:
    """A text file's contents (a UTF-8 byte-order mark dropped); a missing file, a folder, a symlink loop, binary
    content, a device or a name with a NUL byte is an error naming the path; a pipe is read once, up to the memory
    limit (:func:`read_input_bytes`). ``per_char``: the bytes of memory its caller's parse takes a character; a
    regular file is sized by its length (at least its characters) against the memory limit before a byte is read
    (hunt 29b-F3: a 300 MB .nfg was read and decoded, 816 MB, before its characters were counted under a 100 MB
    limit), the caller counting the characters of a pipe's text once it has it."""
    path = check_path(path, "read_text: path")  # (an int, bytes or None: pathlib's bare TypeError)
    if per_char:
        check_input(path, what)
        if not is_stream(path):
            size = path.stat().st_size
            check_fits(per_char * size, f"{shown_path(path)}: {doing} its {size:,} bytes of {what}")
    data = read_input_bytes(path, what)
    try:
        # utf-8-sig: a byte-order mark, which editors on Windows write first, is read as none (with "utf-8" it
        # made the first line of an .nfg or a study file unreadable)
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _read_error(path, exc, what) from None
    if "\x00" in text:  # (valid UTF-8, but no text: UTF-16 without its mark, a program; hunt 19a-F3)
        at = data.index(b"\x00")
        raise InputError(f"{path}: {not_text(data, at, 'a NUL byte')}; expected {_article(what)} {what}")
    return text


@contextmanager
def fields_named(path, what: str):
    """Around pandas' ``read_csv(..., index_col=False)`` of a CSV table whose first line names its columns: a data
    row with a field more than the header names is refused, naming the line. Without ``index_col=False`` pandas took
    the first column for the rows' index, silently, and read every column one place to the left (hunt 25c-F1: a
    payoff table so shifted was solved as another game, exit 0); with it, pandas drops the field and warns, which
    is made this error. Pandas tells it from the first data row, line 2 (a later row's extra field is its own
    ``ParserError``, which names the line)."""
    import pandas as pd  # deferred: pandas (a second), only where a CSV table is read with it

    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            yield
        except pd.errors.ParserWarning:
            said = says_it_is(path, "csv")  # (a first line that is no header: Excel's "sep=," hint, hunt 20b-W3)
            raise InputError(
                f"{path}: line 2: more fields than the header (line 1) names columns: a field no column is named for "
                f"(a trailing comma, or a column without its name); expected as many fields a line as the header's "
                f"names in {_article(what)} {what}{said}"
            ) from None


def _parse_error(path, exc: Exception, kind: str) -> InputError | None:
    """A parser's failure on a hostile but readable file (nesting too deep, an integer too long) as an error."""
    if isinstance(exc, RecursionError):
        return InputError(f"{path}: invalid {kind}: nested too deeply to read")
    if isinstance(exc, ValueError) and "digits" in str(exc):  # int() of more digits than Python converts
        # (exc's own words told a user of the command to call sys.set_int_max_str_digits(), hunt 36b-W1)
        return InputError(
            f"{path}: a whole number of more than {sys.get_int_max_str_digits():,} digits, more than Python reads as "
            f"one, far past every count, time and float this {kind} may hold; expected numbers a float holds"
        )
    return None


def _toml_float(path, text: str, number: str) -> float:
    """A TOML file's float as float() reads it, unless it is beyond the float range or below it: ``1e400`` read as
    infinity was said as "got inf" (hunt 34a-W1), and ``1e-400`` read as 0 went on as 0; both are refused here, as
    written, at their line (the first line that holds the number's text)."""
    value = float(number)
    beyond = math.isinf(value) and "inf" not in number
    if not beyond and not (value == 0 and underflows(number)):
        return value
    at = text.find(number)
    line = f"line {text.count(chr(10), 0, at) + 1}: " if at >= 0 else ""
    raise InputError(
        f"{path}: {line}the number {number[:40]} is {'beyond' if beyond else 'below'} the float range (it reads as "
        f"{'infinity' if beyond else '0'}); expected a number a float holds (at most about 1.8e308 in size, and a "
        "nonzero one at least about 5e-324)"
    )


def read_toml(path: str | os.PathLike, what: str = "TOML file") -> dict:
    """A TOML file as a dict; a missing file, a folder, binary content or bad TOML is an error naming the path."""
    text = read_text(path, what)
    try:
        return tomllib.loads(text, parse_float=functools.partial(_toml_float, path, text))
    except tomllib.TOMLDecodeError as exc:  # (a trace or a job table given as a study: said as such)
        raise InputError(f"{path}: invalid TOML: {exc}{says_it_is(path, 'toml')}") from None
    except (RecursionError, ValueError) as exc:
        err = _parse_error(path, exc, "TOML")
        if err is None:
            raise
        raise err from None


#: what a JSON number that may read as 0 below the float range, or as infinity beyond it, holds (:func:`loads_json`):
#: a signed exponent (as json, gameanalysis and egta-online write them: 1e-05, 1e+16), or 300 zeros in a row (the
#: smallest subnormal is about 4.9e-324); a number of an unsigned exponent (1e400, by hand) that reads as infinity
#: is refused by the reader's finite check instead, its value said as infinity (each look a search of the text:
#: eighteen more for the unsigned exponents took 2.5 s of 41 MB)
MAY_UNDERFLOW = ("e-", "E-", "e+", "E+", "0" * 300)


def loads_json(text: str, where: str):
    """Parse JSON text; bad JSON, nesting too deep or a too-long integer is an error naming ``where``.
    ``NaN`` and ``Infinity`` literals are refused too: they are not JSON; so is a key given twice in one object
    (Python's parser keeps the last, others the first: the file means two things)."""

    def constant(name: str):
        raise InputError(f"{where}: invalid JSON: {name} is not a JSON value; expected a number or null")

    def unique(pairs: list) -> dict:  # a key given twice: JSON readers differ on which one wins, so neither does
        out: dict = {}
        for key, value in pairs:
            if key in out:
                raise InputError(f"{where}: invalid JSON: the key {key!r} is given twice in one object")
            out[key] = value
        return out

    def number(text: str) -> float:  # (1e-400 read as 0 without a word: matching pennies became equal payoffs, 28b-F2)
        value = float(text)
        if (value == 0 and underflows(text)) or math.isinf(value):  # (1e400 was "got inf": 32b-W2)
            where_ = "below the float range (it reads as 0)" if value == 0 else "beyond the float range"
            raise InputError(
                f"{where}: the number {text[:40]} is {where_}; expected numbers a float64 holds: rescale them"
            )
        return value

    # each float through Python only where one may be below the float range (a negative exponent, or a run of 300
    # zeros): it parsed every EGTA file about 1.6x slower (41 MB of floats: 1.46 s, not 0.93 s); the look is
    # str's own search, milliseconds (a regular expression's took 0.25-0.48 s of the same text)
    tiny = {"parse_float": number} if any(s in text for s in MAY_UNDERFLOW) else {}
    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=unique, **tiny)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: invalid JSON: {exc}") from None
    except (RecursionError, ValueError) as exc:
        err = _parse_error(where, exc, "JSON")
        if err is None:
            raise
        raise err from None


#: bytes of Python objects per character of JSON text parsed, at most (lists of numbers: a float object and its slot
#: per few characters; a 48 MB EGTA game of a million profiles took 1.3 GB, hunt 23b-F4)
JSON_BYTES_PER_CHAR = 30


def read_json(path: str | os.PathLike, what: str = "JSON file"):
    """A JSON file's value (see :func:`loads_json`); every failure is an error naming the path. Its parse is sized
    against the memory limit before it is made (:data:`JSON_BYTES_PER_CHAR`)."""
    text = read_text(path, what, per_char=JSON_BYTES_PER_CHAR, doing="parsing")
    check_fits(
        JSON_BYTES_PER_CHAR * len(text), f"{shown_path(path)}: parsing its {len(text):,} characters of JSON ({what})"
    )
    return loads_json(text, str(path))


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
    return path.with_name(f"{temp_prefix(path)}{next(_TMP_COUNTER)}.tmp")


@contextmanager
def atomic_path(path: str | os.PathLike, what: str = "file") -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on any failure it is removed. The first
    write of a process into a folder removes there what killed runs left (:func:`_sweep`). Inside
    :func:`output_group` the temporary is moved into place only when the whole group has been written.

    An unwritable target (a folder, a pipe, a device, a socket, a missing or read-only parent, ``/proc``) is an
    :class:`InputError` naming the path and the reason, and no temporary file is left behind.

    A path that is not UTF-8 text (a folder named on a Latin-1 system: ``lat\\xe9n/``) is a legal name that Arrow's
    writers refuse: the temporary is then yielded as a name of the folder through an open handle of it
    (``/proc/self/fd/N/<temporary>``, Linux), which every writer takes; where the system has no such names, the
    path is refused with a message naming it.
    """
    path = Path(path)
    check_still_locked(path)
    if path.is_dir():
        raise InputError(f"{shown_path(path)}: is a folder; expected {_article(what)} {what} file name")
    kind = special_kind(path)
    if kind is not None:  # replacing it would destroy it (a copy of /dev/null, a pipe another program reads)
        raise InputError(f"{shown_path(path)}: is {kind}, not a regular file; the {what} is written only as a file")
    make_parent(path)
    _sweep(path.parent)
    tmp = _temp_path(path)
    pending = _PENDING
    try:
        with _writable_name(tmp, path, what) as name:
            yield name
        if pending is None:
            _place(tmp, path, what)
        else:  # moved into place with the group's other outputs (``output_group``)
            pending.append((tmp, path, what))
            tmp = None
    except OSError as exc:
        raise InputError(f"{shown_path(path)}: cannot write the {what}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass


#: the most bytes a record gamemarket writes for itself is read to hold (a folder's manifest, a stored run's JSON):
#: one past it is damage (a file grown by a bad copy or a crash, zero-filled), said without reading it whole
RECORD_MAX_BYTES = 64 << 20


def _size_of(path: Path) -> int | None:
    """A regular file's size in bytes, or None where ``path`` is none (missing, a folder, a pipe: said by its
    reader)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


#: the folders this process holds a writer's lock on (:func:`hold_lock`): their path (as given and resolved) -> the
#: lock file and its (device, inode) as taken
_LOCKED: dict[str, tuple[Path, tuple[int, int]]] = {}


@contextlib.contextmanager
def hold_lock(root: str | os.PathLike, lock: Path, descriptor: int) -> Iterator[None]:
    """While a writer's lock on ``root`` is held (its lock file ``lock``, open as ``descriptor``), every file
    written under ``root`` (:func:`atomic_path`) first checks that the lock file is still the one taken: a folder
    removed (``rm -rf``) or replaced while the command writes to it is said, and nothing more written there (hunt
    17b-W6: a study run wrote on into a folder it made anew, unlocked, then refused it as "not made by gamemarket")."""
    st = os.fstat(descriptor)
    keys = {os.path.abspath(root), os.path.realpath(root)}
    for key in keys:
        _LOCKED[key] = (lock, (st.st_dev, st.st_ino))
    try:
        yield
    finally:
        for key in keys:
            _LOCKED.pop(key, None)


def check_still_locked(path: str | os.PathLike) -> None:
    """An :class:`InputError` where ``path`` lies in a folder this process holds a lock on (:func:`hold_lock`) whose
    lock file has gone or been replaced since it was taken (the folder removed or moved while the command ran)."""
    if not _LOCKED:
        return
    where = os.path.abspath(path)
    for root, (lock, taken) in _LOCKED.items():
        if where != root and not where.startswith(root.rstrip(os.sep) + os.sep):
            continue
        try:
            st = os.stat(lock)
            now = (st.st_dev, st.st_ino)
        except OSError:
            now = None
        if now != taken:
            raise InputError(
                f"{shown_path(root)}: the folder was removed or replaced while this command wrote to it (its lock "
                f"file {lock.name} is {'gone' if now is None else 'another one'}); the command stops rather than "
                "write there unlocked, and writes nothing more: run it again"
            )


def make_parent(path: Path) -> None:
    """``path``'s folder made where missing; a parent that cannot be made is an :class:`InputError` naming the
    path and why, a parent that is a file said as such (``mkdir``'s own word was "File exists")."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        blocker = file_above(path.parent)
        if blocker is not None:
            raise InputError(
                f"{shown_path(path)}: cannot create its folder: {shown_path(blocker)} is a file, not a folder"
            ) from None
        raise InputError(
            f"{shown_path(path)}: cannot create its folder: {getattr(exc, 'strerror', None) or exc}"
        ) from None


def file_above(folder: Path) -> Path | None:
    """The first of ``folder`` and the folders above it that is a file (so that ``folder`` cannot be made), or
    None."""
    try:
        return next((p for p in [folder, *folder.parents] if p.is_file()), None)
    except (OSError, ValueError):
        return None


def utf8_name(path: str | os.PathLike) -> bool:
    """Whether ``path`` is UTF-8 text, which Arrow (Parquet and its CSV writer) takes as a file name; a byte that is
    not (a name from a Latin-1 system) is held by Python as a lone surrogate."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@contextmanager
def _writable_name(tmp: Path, target: Path, what: str) -> Iterator[Path]:
    """``tmp`` as a name every writer takes (:func:`atomic_path`): itself, or where it is not UTF-8 text, its name
    in its folder reached through an open handle of the folder (``/proc/self/fd/N``)."""
    if utf8_name(tmp):
        yield tmp
        return
    try:
        fd = os.open(tmp.parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise InputError(f"{shown_path(target)}: cannot write the {what}: {exc.strerror or exc}") from None
    try:
        handle = Path(f"/proc/self/fd/{fd}")
        if not handle.is_dir():
            raise InputError(
                f"{shown_path(target)}: the name is not UTF-8 text, which the {what}'s writer needs on this "
                "system; choose a name of UTF-8 text"
            )
        yield handle / tmp.name
    finally:
        os.close(fd)


#: the outputs of the :func:`output_group` under way: (temporary, target, what) of each written one
_PENDING: list | None = None


@contextmanager
def output_group() -> Iterator[None]:
    """A command's several outputs, landing together or not at all: every :func:`atomic_path` inside writes its
    temporary as always, and the temporaries are moved into place when the block ends without an error; an error
    removes them all, and no target is touched (``price solve --out``'s result and its trace; ``simulate``'s
    ``--jobs-out`` and ``--out``). A group inside a group is the outer one's."""
    global _PENDING
    if _PENDING is not None:
        yield
        return
    pending: list = []
    _PENDING = pending
    try:
        yield
    except BaseException:
        for tmp, _, _ in pending:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        raise
    finally:
        _PENDING = None
    _commit(pending)


def _commit(pending: list) -> None:
    """Move an :func:`output_group`'s temporaries into place; where a move fails, the outputs it had placed that were
    new are removed again (one replaced is not brought back: its file is gone), every temporary too, and the
    failure is an :class:`InputError` naming the output."""
    placed = []
    for k, (tmp, path, what) in enumerate(pending):
        new = not (path.exists() or path.is_symlink())
        try:
            _place(tmp, path, what)
        except (OSError, InputError) as exc:
            for left, _, _ in pending[k:]:
                with contextlib.suppress(OSError):
                    left.unlink(missing_ok=True)
            for done in placed:
                with contextlib.suppress(OSError):
                    done.unlink()
            if isinstance(exc, InputError):
                raise
            raise InputError(f"{shown_path(path)}: cannot write the {what}: {exc.strerror or exc}") from None
        if new:
            placed.append(path)


#: the folders :func:`atomic_path` has cleared of killed runs' temporaries in this process: folder -> when (the
#: monotonic clock); each again after :data:`SWEEP_AGAIN_S`, for a process that lives on (a notebook writing into a
#: folder where another process was killed since: fuzz run T, whose commands run in one process)
_SWEPT: dict = {}
SWEEP_AGAIN_S = 60.0


def _sweep(folder: Path) -> None:
    """Remove what killed runs left in ``folder`` (not below it) the first time this process writes there: the
    temporaries of :func:`atomic_path` whose writer is gone (:func:`remove_stale_temps`), so a ``--out`` file, a
    results store or a report folder written after a ``kill -9`` holds no ``.NAME.gm-PID-N.tmp`` of it. Once per
    folder and process: a store writes thousands of files into one folder."""
    key, now = os.path.abspath(folder), time.monotonic()  # (absolute: "folder" of another working directory is
    # another folder; the fuzzer's cases, each in its own, shared the key "folder")
    if key in _SWEPT and now - _SWEPT[key] < SWEEP_AGAIN_S:
        return
    _SWEPT[key] = now
    try:
        names = [e.name for e in os.scandir(folder) if e.is_file(follow_symlinks=False)]
    except OSError:
        return
    for name in names:
        if _stale(name, folder):
            try:
                (folder / name).unlink()
            except OSError:
                pass


def _started(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), or None where that cannot be told; ``-inf`` for a
    zombie (ended, not yet waited for by its parent: gone, though ``kill(pid, 0)`` still finds it). From
    ``/proc/PID/stat`` (its state and start time in clock ticks after boot) and ``/proc/stat``'s boot time (Linux)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # (after the command's name, which may hold spaces)
        with open("/proc/stat", encoding="utf-8") as f:
            boot = next(int(w.split()[1]) for w in f if w.startswith("btime "))
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    if fields[0] == "Z":
        return -math.inf
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")


def _stale(name: str, folder: Path | None = None) -> bool:
    """Whether ``name`` is a temporary file of :func:`atomic_path` that a killed run left: gamemarket's pattern
    (:data:`TEMP_NAME`, its machine's tag and its tail included), written on this machine (another's process ids
    are not this one's: a shared folder's live writer elsewhere is left alone), by a process that is gone. A name
    without the machine's tag (an older version's form, ``.x.gm-PID-0.tmp``) is kept: a user's own file of that
    shape (``.notes.gm-424242-draft.tmp``) was deleted as one (hunt 16d). A process id no process can have
    (``gm-99999999999999999999``) is no process of ours: the file is kept."""
    m = TEMP_NAME.match(name)
    if m is None or m.group(2) != HOST:
        return False
    pid = int(m.group(1))
    if pid == os.getpid() or pid <= 0 or pid > _pid_max():  # (an id no process can have: not a process of ours)
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, ValueError):  # another user's process, or no process id at all
        return False
    # a process of that id runs: the writer, or a zombie of it (killed, not yet waited for), or another process
    # that has the id since (ids wrap: 32,768 of them on this kind of machine); the file of a run killed by
    # SIGKILL was left by the next run beside such a one (fuzz run S)
    started = _started(pid)
    if started == -math.inf:
        return True
    if started is None or folder is None:
        return False
    try:
        written = os.stat(folder / name).st_mtime
    except OSError:
        return False
    return written < started - 1.0  # (written before the process of that id began: its writer is gone)


def _pid_max() -> int:
    """The largest process id this system gives (``/proc/sys/kernel/pid_max``; 2**22 where unknown)."""
    try:
        with open("/proc/sys/kernel/pid_max", encoding="utf-8") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 1 << 22


def remove_stale_temps(root: str | os.PathLike) -> list[Path]:
    """Remove the temporary files that killed runs left anywhere under ``root``: only names of
    :func:`atomic_path`'s pattern written on this machine whose writing process is gone (:func:`_stale`).
    Returns what was removed."""
    root = Path(root)
    removed = []
    if not root.is_dir():
        return removed
    for dirpath, _, names in os.walk(root):
        for name in names:
            if _stale(name, Path(dirpath)):
                p = Path(dirpath) / name
                try:
                    p.unlink()
                    removed.append(p)
                except OSError:
                    pass
    return removed


# -- output the package owns: folders with a manifest, single files -------------------------------------


MANIFEST = ".gamemarket-manifest.json"
#: the marker of report folders written before manifests (its text: the owning study, relative to the folder)
LEGACY_MARKER = ".gamemarket-study"
#: entries a listing names before it says "and N more"
SHOWN = 8


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths are one file: equal once resolved, or one inode (a hard link)."""
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _listing(names: Iterable[str]) -> str:
    names = sorted(names)
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def check_outputs(outputs: dict[str, str | os.PathLike | None], inputs: Iterable[str | os.PathLike] = ()) -> None:
    """Refuse outputs that are one of the command's inputs, or two outputs that are one file.

    Parameters
    ----------
    outputs : dict
        What each output is called in messages (an option such as ``--out``) -> its path (None: not asked).
    inputs : iterable of path
        The files and folders the command reads.

    Raises
    ------
    InputError
        Naming the output, its path and the input (or the other output) it resolves to.
    """
    given = {k: resolve(v, "output path") for k, v in outputs.items() if v not in (None, "")}
    ins = [(str(i), resolve(i, "input path")) for i in inputs if i not in (None, "")]
    for opt, out in given.items():
        for shown, inp in ins:
            if _same_file(out, inp):
                raise InputError(f"{opt} {out}: is the input {shown}; an output never replaces an input")
            if inp.is_dir() and inp in out.parents:
                raise InputError(
                    f"{opt} {out}: lies inside the input folder {shown}, which this command reads; an output is "
                    "written outside its inputs"
                )
    seen: dict[str, str] = {}
    for opt, out in given.items():
        key = str(out).casefold()
        if key in seen:
            raise InputError(f"{opt} and {seen[key]} are one file ({out}); give each output its own path")
        seen[key] = opt


def special_kind(path: str | os.PathLike) -> str | None:
    """What ``path`` is where it exists and is not a regular file or a folder (following links): "a pipe" (a FIFO,
    ``/dev/fd/N`` of a process substitution), "a device" or "a socket"; else None. The one test of every input and
    output that must be a file: a pipe would be read once or block, a device never end, and either be destroyed
    by a file written in its place."""
    try:
        mode = Path(path).stat().st_mode
    except (OSError, ValueError):  # ValueError: a NUL byte in the name
        return None
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def check_output_file_name(path: str | os.PathLike, option: str) -> None:
    """An output file's name as given: one that ends in a slash names a folder, and is an :class:`InputError` (a
    ``Path`` made of it drops the slash: ``--out new/x.csv/`` wrote a file ``new/x.csv``, hunt 17a-55)."""
    text = os.fspath(path)
    if isinstance(text, str) and text.endswith(("/", os.sep)) and text.strip("/"):
        raise InputError(f"{option} {text}: ends in a slash, which names a folder; expected a file name")


def check_output_file(path: str | os.PathLike, *, option: str, force: bool = False, hint: str = "--force") -> Path:
    """An output file that may be written: a folder, a pipe, a device or a socket (even with ``force``: replacing
    one would destroy it), or an existing file (without ``force``) is refused. One found absent without ``force``
    is written only while still absent (:data:`NEW_ONLY`).

    Returns the path. An existing file is named with how to replace it (``hint``: ``--force``, or the Python
    API's ``force=True``). A name that ends in a slash names a folder, and is refused (hunt 17a-55: ``--out
    new/x.csv/`` wrote a file ``new/x.csv``, ``Path`` having dropped the slash)."""
    check_output_file_name(path, option)
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{option} {path}: is a folder; expected a file name")
    kind = special_kind(path)
    if kind is not None:
        raise InputError(f"{option} {path}: is {kind}, not a regular file; an output is written only as a file")
    owner = _listed_by_manifest(path)
    if owner is not None:
        said = "is a file of" if path.exists() else "is a name kept for the files of"
        raise InputError(
            f"{option} {path}: {said} the {owner}; gamemarket writes a folder's files only as that folder's "
            "owner (the study's run, report or export), --force or not: choose another file"
        )
    if (path.exists() or path.is_symlink()) and not force:
        raise InputError(f"{option} {path}: the file exists; pass {hint} to replace it")
    if force:
        NEW_ONLY.discard(os.path.abspath(path))
    else:  # found absent: it is placed only while still absent (another command may make it meanwhile)
        NEW_ONLY.add(os.path.abspath(path))
    return path


#: the outputs :func:`check_output_file` found absent, without ``force``: :func:`atomic_path` places each only where
#: it is still absent when the command has written it (two commands given one new ``--out`` at once: the second to
#: finish replaced the first's file, both ending 0)
NEW_ONLY: set[str] = set()


@contextmanager
def forgotten_after(paths: Iterable) -> Iterator[None]:
    """Drop ``paths`` from :data:`NEW_ONLY` when the block ends, however it ends (a Python API call that checked its
    outputs, :func:`check_output_file`, and has placed them or failed)."""
    keys = [os.path.abspath(p) for p in paths]
    try:
        yield
    finally:
        NEW_ONLY.difference_update(keys)


def forget_new_outputs() -> None:
    """Empty :data:`NEW_ONLY` (a command's end: the next command checks its own outputs)."""
    NEW_ONLY.clear()


def _place(tmp: Path, path: Path, what: str) -> None:
    """Move a written temporary ``tmp`` into place at ``path``: replacing it, unless the command found ``path``
    absent without being told to replace it (:data:`NEW_ONLY`), where it is placed only if still absent (a hard link,
    then the temporary removed: one step; on a file system without hard links, the name claimed first with
    ``O_EXCL``, then the move); a file made meanwhile is an :class:`InputError` naming it, left as it is."""
    key = os.path.abspath(path)
    if key not in NEW_ONLY:
        os.replace(tmp, path)
        return
    try:
        try:
            os.link(tmp, path, follow_symlinks=False)
        except FileExistsError:
            raise
        except OSError:  # no hard links here (EPERM, EOPNOTSUPP, ...): claim the name, then move over the claim
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            os.replace(tmp, path)
        else:
            tmp.unlink()
    except FileExistsError:
        raise InputError(
            f"{shown_path(path)}: the file was made by another program while this command ran; the {what} was not "
            "written and that file is left as it is: run again with another name, or with --force to replace it"
        ) from None
    NEW_ONLY.discard(key)


def _article(noun: str) -> str:
    """ "an" before a vowel, else "a"."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _owner_from_here(folder: Path, owner, *, gone: bool = True) -> str:
    """A manifest's owner as a user reads it from the working folder: the study file it names is relative to the
    folder the manifest is in (``../t.toml``, read from elsewhere, named a file that is not there: hunt 18c-W2), and
    so is the study a command's owner names ("game export of ../t.toml"). Of the readings (the whole owner a path,
    or what follows its first " of "; from the folder as named or as resolved, a report's owner being recorded from
    the resolved folder), the one that leads to a file; else the study file from the folder as named, said to be no
    longer there (where ``gone``: a folder's recorded owner; not a command's own study, named beside it)."""
    if not isinstance(owner, str):
        return repr(owner)
    readings = [("", owner)]
    if " of " in owner:
        command, _, study = owner.partition(" of ")
        readings.append((f"{command} of ", study))
    for prefix, study in readings:
        for base in (Path(folder), Path(os.path.realpath(folder))):
            candidate = os.path.normpath(base / study)
            if os.path.isfile(candidate):
                return f"{prefix}{candidate}"
    prefix, study = readings[-1]
    if not study.endswith(".toml"):
        return owner
    # a study file no longer there (renamed or moved: hunt 20d-W2 named it as if it were) is said to be gone
    said = " (a study file no longer there: renamed or moved?)" if gone else ""
    return f"{prefix}{os.path.normpath(Path(folder) / study)}{said}"


def copy_of_ours(path: Path, recorded: str, what: str | None, owner: str, ours_what: str) -> bool:
    """Whether a folder at ``path`` whose manifest names ``recorded`` (of kind ``what``) is ``owner``'s all the same
    (``owner``'s folders being of kind ``ours_what``): a study's folder copied or moved away from its study file
    (hunt 13: ``report --results COPY`` needed ``--force``, the owner being the study file relative to the folder).
    It is, where both owners are study files and the recorded one, read from the folder, leads to no file or to a
    file of the same bytes as ours (one study, copied). Another study's folder (a different file there, or a copy
    edited since) stays refused; the manifest then names us. A folder of another kind (its manifest's ``what``, or
    an owner that is a command's, "game export of STUDY") is never ours: a report written into a study's export
    folder deleted the export's files without --force (hunt 17a-43), its owner "game export of ../s.toml" read as a
    study file that had moved. One rule, for the commands that claim a folder (:class:`OutputFolder`) and those
    that only ask whose it is (:func:`other_owner`)."""
    if what is not None and what != ours_what:
        return False
    if " of " in recorded or " of " in owner:  # (a command's folder: "game export of ../s.toml")
        return False
    if not (recorded.endswith(".toml") and owner.endswith(".toml")):
        return False
    theirs, ours = path / recorded, path / owner
    try:
        if not theirs.exists():
            return Path(recorded).name == Path(owner).name
        return theirs.is_file() and ours.is_file() and theirs.read_bytes() == ours.read_bytes()
    except OSError:
        return False


def other_owner(path: str | os.PathLike, owner: str, what: str) -> str | None:
    """Who else a folder gamemarket made belongs to, read without claiming it (a query: ``study status``): its
    manifest's owner from the working folder where that is not ``owner`` (nor a copy of ``owner``'s folder, nor of
    another kind than ``what``: :func:`copy_of_ours`, the rule :class:`OutputFolder` claims by), else None. A
    folder with no manifest, or one that does not read, is no one else's here (the commands that write it say what
    is wrong with it)."""
    path = Path(path)
    try:
        data = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
        theirs, kind = data["owner"], data.get("what")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(theirs, str) or (theirs == owner and kind in (None, what)):
        return None
    if copy_of_ours(path, theirs, kind, owner, what):
        return None
    return _owner_from_here(path, theirs)


def _nearest_manifest(real: Path) -> Path | None:
    """The nearest folder above ``real`` (a resolved path) that holds a gamemarket manifest: the folder whose owner
    a file or folder at ``real`` would belong to (``_listed_by_manifest``, ``OutputFolder``); None where none does."""
    return next((up for up in real.parents if (up / MANIFEST).is_file()), None)


def _listed_by_manifest(path: Path) -> str | None:
    """Where ``path`` is a file that the manifest of a folder above it lists (a stored run, a report's table), or a
    new name its patterns take (``runs/*.parquet``: a table written there counted as a stored run, and was set aside
    as damaged by the next `study run`; hunt 16b): that folder, as "report folder <path> (of <owner>)"; else None.
    A manifest that does not read is no owner here (the folder's own commands say what is wrong with it)."""
    try:
        real = resolve(path, "output path") if path.exists() else Path(os.path.realpath(path))
    except (InputError, OSError, ValueError):
        return None
    up = _nearest_manifest(real)
    if up is not None:
        manifest = up / MANIFEST
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            rel = real.relative_to(up).as_posix()
            patterns = [p for p in data.get("patterns", []) if isinstance(p, str)]
            listed = rel in data["files"] or any(fnmatch.fnmatchcase(rel, p) for p in patterns)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        what = data.get("what") if isinstance(data.get("what"), str) else "folder"
        return f"{what} {up} (of {_owner_from_here(up, data.get('owner'))})" if listed else None
    return None


def _safe_relative(name: str, where: Path) -> str:
    """A manifest entry: a relative path inside the folder, with no ``..``, no absolute or empty part."""
    parts = Path(name).parts
    if not parts or Path(name).is_absolute() or any(p in ("..", ".", "") for p in parts):
        raise InputError(f"{where}: {name!r} is not a file name inside the folder; {MANIFEST_REMEDY}")
    return Path(*parts).as_posix()


#: what to do about a manifest that does not read (said with its error: hunt 16b, 16e)
MANIFEST_REMEDY = (  # (it said the folder "counts as not gamemarket's": one of gamemarket's own files is adopted)
    "it is gamemarket's record of the files it wrote in this folder: remove it, and the folder is read anew, as "
    "one an older version wrote (a results or report folder holding only the files gamemarket writes there is "
    "taken as gamemarket's; any other is refused without --force, which replaces the files of the names "
    "gamemarket writes)"
)


class OutputFolder:
    """A folder gamemarket writes files into, with a manifest of what it wrote (see the module docstring).

    Parameters
    ----------
    path : path
        The folder.
    owner : str
        Who the folder belongs to (a study file relative to the folder, a command); recorded in the
        manifest and compared on the next claim.
    what : str
        What the folder is, for messages ("report folder", "results folder").
    force : bool
        Write into a folder gamemarket did not make, or that another owner's manifest names.
    inputs : iterable of path
        The command's inputs: a file to be written that is one of them is refused, ``force`` or not; so is a
        folder that is an input folder (a study's results folder, which the command reads) or lies inside one.
    legacy : callable, optional
        ``legacy(path)``: for a folder without a manifest, the files an earlier version of gamemarket wrote
        there (before manifests), or None where the folder is not such a folder. A legacy folder is
        adopted with those files as its own (see :func:`legacy_report_files`).
    option : str
        The option or field that named the folder, for messages.
    staged : bool
        Write every file into a staging folder inside the folder (``.stage.gm-<pid>-h<host>_<n>.tmp``) and move
        them into place together at :meth:`finish`: a run stopped half-way (Ctrl-C, an error) leaves the files of
        the last finished run as they were, never some of this run's beside some of that one's (a report whose
        ``index.html`` is an earlier run's and whose ``data/`` this one's). :meth:`file` returns the staging path;
        :meth:`final` says where it lands. A staging folder a killed run left is removed by the next claim.
    owns : tuple of str
        Glob patterns (relative to the folder) of files the folder's owner writes without entering each in the
        manifest (a results folder's per-task files, ``runs/*.parquet``): recorded in the manifest, so that an
        output file of another command is not written over one of them (:func:`check_output_file`).
    exclusive : bool
        Hold the folder itself (an advisory ``flock`` on the folder, no file of its own) from before its manifest is
        read until :meth:`finish`, :meth:`abandon` or :meth:`release`: a second command that claims it meanwhile
        (another study writing the same report folder with ``--force``) is refused, naming the folder, instead of
        reading a manifest the first is about to replace (hunt 15: the first's figure was left outside the second's
        manifest for good). Claims of one process nest.
    guest : bool
        A command that reads the folder and writes there only what its owner's commands would (a report's lock and
        analysis cache in a study's results folder): with ``force``, another owner's folder is written into and
        its manifest keeps that owner.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        owner: str,
        what: str = "output folder",
        force: bool = False,
        inputs: Iterable[str | os.PathLike] = (),
        legacy=None,
        option: str = "",
        owns: tuple[str, ...] = (),
        staged: bool = False,
        exclusive: bool = False,
        writes: str | None = None,
        guest: bool = False,
    ):
        self.path = Path(path)
        self.writes = writes
        self.guest = guest
        self._kept_owner: str | None = None  #: another owner a guest's force writes beside, its manifest kept hers
        self.exclusive = exclusive
        self._held: str | None = None  #: the folder this claim holds (:meth:`_hold`), until it is released
        self.owns_patterns = tuple(owns)
        self.staged = staged
        self._stage: Path | None = None  #: where a staged folder's files are written until :meth:`finish`
        self._stages_done: list[Path] = []  #: the staging folders published (:meth:`final` maps their paths)
        self.owner, self.what, self.force = owner, what, force
        self.option = f"{option} " if option else ""
        self.inputs = [resolve(i, "input path") for i in inputs if i not in (None, "")]
        self.old: set[str] = set()  #: files the manifest listed when claimed
        self.written: set[str] = set()  #: files entered by this run
        try:
            self._claim(legacy)
        except BaseException:
            self.release()  # a refused claim holds nothing
            raise

    # -- claiming ----------------------------------------------------------------------------------
    def _claim(self, legacy) -> None:
        p = self.path
        where = f"{self.option}{p}"
        real = self._real = resolve(p, self.what)
        if p.exists() and not p.is_dir():  # (hunt 22b-W13: /dev/null was "a file")
            raise InputError(f"{where}: is {special_kind(p) or 'a file'}; expected {_article(self.what)} {self.what}")
        for inp in self.inputs:
            if _same_file(real, inp) or (inp.is_dir() and inp in real.parents):
                raise InputError(f"{where}: is the input {inp}; an output never replaces an input")
        if self.exclusive and p.is_dir():
            self._hold(where)
        self._adopt(where, real, legacy)
        self.created = [q for q in (p, *p.parents) if not q.exists()]  #: folders this claim makes, deepest first
        check_no_dangling_link(p, where, self.what)
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            blocker = file_above(p)
            reason = f"{shown_path(blocker)} is a file, not a folder" if blocker else exc.strerror or exc
            raise InputError(f"{where}: cannot create the {self.what}: {reason}") from None
        if not os.access(p, os.W_OK | os.X_OK):
            raise InputError(f"{where}: cannot write into the {self.what} (permission denied)")
        if self.exclusive and self._held is None:
            self._hold(where)
            if (p / MANIFEST).is_file() and not self._had_manifest:  # another writer's, made before we held it
                made, self.created = self.created, []
                self._claim(legacy)
                self.created = made
                return
        _remove_stale_stages(p)
        self._save()

    def _adopt(self, where: str, real: Path, legacy) -> None:
        """What the folder holds, as this claim takes it: its manifest's files (another owner's refused without
        ``force``), a legacy folder's, or none (a folder not gamemarket's refused without ``force``)."""
        p = self.path
        manifest = p / MANIFEST
        self._had_manifest = manifest.is_file()
        if not self.force:  # (its own manifest too: a forced export's in a report's data/ let the next export, without
            # --force, replace the report's files there, hunt 30b-F3, 25b-W1)
            self._check_not_part_of_another(where, real)
        if manifest.is_file():
            data = self._read_manifest(manifest)
            theirs = data.get("what")  # (manifests before it was recorded have none)
            other_kind = theirs is not None and theirs != self.what
            if (
                (data["owner"] != self.owner or other_kind)
                and not self.force
                and not self._copy_of_ours(data["owner"], theirs)
            ):
                mine = _owner_from_here(p, self.owner, gone=False)
                whose = (
                    f"is {_article(theirs)} {theirs} ({_owner_from_here(p, data['owner'])}), not "
                    f"{_article(self.what)} {self.what} ({mine})"
                    if other_kind
                    else f"belongs to {_owner_from_here(p, data['owner'])}, not {mine}"
                )
                what = self.writes or (
                    "its files of the names this command writes would be replaced, the rest kept"
                    if other_kind
                    else f"it would replace: {_listing(data['files']) or '-'}"
                )
                raise InputError(
                    f"{where}: this {'folder' if other_kind else self.what} {whose}; choose another folder, or pass "
                    f"--force to write into it ({what})"
                )
            # a folder of another kind, written into with --force: its files are its owner's, not this claim's to
            # remove (hunt 17b-36: `game export --force` into another study's results folder deleted its .lock,
            # last-run.json and tables, files the export never writes); those of the names written are replaced
            self.old = set() if other_kind else set(data["files"])
            if self.guest and data["owner"] != self.owner:
                # a guest (a report that reads another study's runs) writes beside the owner without taking the
                # folder over (hunt 25a-F1: `report --force` made the results its own, and their study was refused)
                self._kept_owner = data["owner"]
        elif p.is_dir():
            entries = [e.name for e in os.scandir(p)]
            adopted = legacy(p) if legacy is not None and entries else None
            if adopted is not None:
                self.old = set(adopted)
            elif entries and not self.force:
                raise InputError(
                    f"{where}: the folder exists and was not made by gamemarket (it has no {MANIFEST}); it holds "
                    f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} ({_listing(entries)}). Choose another "
                    f"{self.what}, or pass --force to write into it: files of the names gamemarket writes would be "
                    "replaced, and nothing else is touched"
                )

    def _hold(self, where: str) -> None:
        """Take the folder's lock (:data:`_HELD_FOLDERS`; nested in one process), or an :class:`InputError` naming
        it where another process holds it. A file system without ``flock`` is written unlocked, as before."""
        key = str(self._real)
        if self._held is not None:
            return
        if key in _HELD_FOLDERS:
            _HELD_FOLDERS[key][1] += 1
            self._held = key
            return
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = lock_holder(self.path)
            who = f"another command ({holder})" if holder else "another command (a study's run, report or export)"
            raise InputError(
                f"{where}: the {self.what} is being written by {who}; wait for it to finish and run again, or give "
                "this one a folder of its own"
            ) from None
        except OSError:
            os.close(fd)
            return
        _HELD_FOLDERS[key] = [fd, 1]
        self._held = key
        self._releaser = weakref.finalize(self, _release_folder, key)

    def release(self) -> None:
        """Give the folder's lock back (a claim with ``exclusive``; once): :meth:`finish` and :meth:`abandon` do."""
        key, self._held = self._held, None
        if key is not None:
            if getattr(self, "_releaser", None) is not None:
                self._releaser.detach()
            _release_folder(key)

    def _copy_of_ours(self, recorded: str, what: str | None = None) -> bool:
        """Whether a folder whose manifest names another owner is ours all the same (:func:`copy_of_ours`)."""
        return copy_of_ours(self.path, recorded, what, self.owner, self.what)

    def _check_not_part_of_another(self, where: str, real: Path) -> None:
        """Refuse (without ``force``) a folder inside another folder gamemarket made whose manifest lists files in
        it (a report's ``data/``): its files belong to that folder's owner, and writing them here would make two
        owners of one file."""
        up = _nearest_manifest(real)
        if up is None:
            return
        data = self._read_manifest(up / MANIFEST)
        inside = real.relative_to(up).as_posix() + "/"
        theirs = [f[len(inside) :] for f in data["files"] if f.startswith(inside)]
        if theirs:
            raise InputError(
                f"{where}: is part of the {data.get('what') or 'folder'} {up} (it belongs to "
                f"{_owner_from_here(up, data['owner'])}, "
                f"whose manifest lists {len(theirs)} file{'' if len(theirs) == 1 else 's'} here: "
                f"{_listing(theirs)}); choose a folder of its own, or pass --force to write into it"
            )

    def _read_manifest(self, manifest: Path) -> dict:
        remedy = MANIFEST_REMEDY
        size = _size_of(manifest)
        if size is not None and size > RECORD_MAX_BYTES:  # (a 3 GB one was read whole: 6.5 GB, hunt 18a-F6)
            raise InputError(
                f"{manifest}: {size:,} bytes, more than a gamemarket manifest holds (at most {RECORD_MAX_BYTES:,}: a "
                f"list of the folder's files); damaged; {remedy}"
            )
        try:
            data = loads_json(read_text(manifest, "manifest"), str(manifest))
        except InputError as exc:  # a damaged record (hunt 16b: truncated, and nothing said what would help)
            raise InputError(f"{exc}; {remedy}") from None
        ok = (
            isinstance(data, dict)
            and isinstance(data.get("owner"), str)
            and isinstance(data.get("files"), list)
            and all(isinstance(f, str) for f in data["files"])
        )
        if not ok:
            raise InputError(f"{manifest}: not a gamemarket manifest (expected owner and files); {remedy}")
        files = [_safe_relative(f, manifest) for f in data["files"]]
        return {
            "owner": data["owner"],
            "what": data.get("what") if isinstance(data.get("what"), str) else None,
            "files": files,
        }

    def _save(self) -> None:
        files = sorted(self.old | self.written)
        record = {"owner": self._kept_owner or self.owner, "what": self.what, "files": files}
        if self.owns_patterns:
            record["patterns"] = list(self.owns_patterns)
        text = dumps_json(record, indent=1) + "\n"
        manifest = self.path / MANIFEST
        try:  # the same record is left as it is (a report that failed for want of runs rewrote both, unchanged)
            size = _size_of(manifest)
            if size == len(text.encode()) and manifest.read_text(encoding="utf-8") == text:
                return
        except (OSError, UnicodeDecodeError):
            pass
        with atomic_path(manifest, "manifest") as tmp:
            tmp.write_text(text, encoding="utf-8")

    # -- writing -----------------------------------------------------------------------------------
    def forget(self, name: str) -> None:
        """Take ``name`` (a file gamemarket wrote here, already removed by the caller) out of the manifest, which is
        saved at once: a lock file given back (``ResultStore``) is no longer the folder's."""
        name = _safe_relative(name, self.path)
        self.old.discard(name)
        self.written.discard(name)
        self._save()

    def owns(self, name: str) -> bool:
        """Whether ``name`` (relative to the folder) is a file gamemarket wrote here."""
        return _safe_relative(name, self.path) in self.old | self.written

    def file(self, name: str, *, once: bool = True) -> Path:
        """The path to write the file ``name`` (relative to the folder; sub-folders allowed), entered in the
        manifest first.

        Refused: a name that leaves the folder, one that is one file with another output of this run
        (names equal but for case included; with ``once=False`` the same name may be asked for again, for
        a file that is rewritten), a path that is one of the inputs, and an existing file that gamemarket
        did not write (unless ``force``).
        """
        rel = _safe_relative(name, self.path)
        if rel in self.written:
            if once:
                raise InputError(
                    f"{self.path / rel}: two outputs of this run would be this one file; give the names that "
                    "make them (games, strategies, mechanisms, ...) distinct names"
                )
            return self._staged(rel) if self.staged else self.path / rel
        clash = next((w for w in self.written if w.casefold() == rel.casefold()), None)
        if clash is not None:
            raise InputError(
                f"{self.path}: two outputs, {clash!r} and {rel!r}, differ only in case and would be one file on "
                "many file systems; give the names that make them (games, strategies, ...) distinct names"
            )
        target = self.path / rel
        real = resolve(target, "output path")
        for inp in self.inputs:
            if _same_file(real, inp):
                raise InputError(f"{target}: is the input {inp}; an output never replaces an input")
        if self._real not in real.parents:
            raise InputError(f"{target}: leads outside the {self.what} {self.path} (a symbolic link?)")
        if target.is_dir():
            raise InputError(f"{target}: is a folder; expected a file name")
        kind = special_kind(target)
        if kind is not None:
            raise InputError(f"{target}: is {kind}, not a regular file; an output is written only as a file")
        if (target.exists() or target.is_symlink()) and rel not in self.old and not self.force:
            raise InputError(f"{target}: the file exists and was not written by gamemarket; pass --force to replace it")
        self.written.add(rel)
        self._save()
        return self._staged(rel) if self.staged else target

    def _staged(self, rel: str) -> Path:
        """The staging path of ``rel`` (the staging folder made on the first file)."""
        if self._stage is None:
            self._stage = self.path / _stage_name()
            self._stage.mkdir()
            _STAGES.add(str(self._stage))
            # a run that never publishes (an error, Ctrl-C) leaves no staging folder once its folder object is gone,
            # or at the latest when the process exits
            self._dropper = weakref.finalize(self, _drop_stage, self._stage)
        path = self._stage / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def final(self, path: str | os.PathLike) -> Path:
        """Where a path :meth:`file` returned lands (a staged file's place in the folder; else the path itself)."""
        path = Path(path)
        for stage in (self._stage, *self._stages_done):
            if stage is not None and stage in path.parents:
                return self.path / path.relative_to(stage)
        return path

    def _publish(self) -> None:
        """Move the staged files into place (each an atomic rename), then remove the staging folder."""
        stage, self._stage = self._stage, None
        if stage is None:
            return
        self._dropper.detach()
        self._stages_done.append(stage)
        for rel in sorted(self.written):
            src = stage / rel
            if src.is_file():
                dst = self.path / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
        _drop_stage(stage)

    def discard_stage(self) -> None:
        """Drop what a staged run wrote and has not published (a run that failed or was stopped): the folder's files
        stay as the last finished run left them, and none of this run's is its own."""
        stage, self._stage = self._stage, None
        if stage is not None:
            self._dropper.detach()
            _drop_stage(stage)
            self.written.clear()
            if self.path.is_dir():  # the manifest as this run found it: entries of files that never landed go
                self._save()

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        """A run that fails or is stopped inside ``with folder:`` gives the folder back (:meth:`abandon`)."""
        if kind is None:
            return
        stage = self._stage
        self.abandon()
        if stage is not None and isinstance(exc, InputError) and str(stage) in str(exc):
            # a message names the file where it lands, not where it was staged (which is gone now)
            raise InputError(str(exc).replace(str(stage), str(self.path))) from None

    def files(self, names: Iterable[str], *, once: bool = True) -> list[Path]:
        """:meth:`file` for several names."""
        return [self.file(n, once=once) for n in names]

    def listed(self) -> list[str]:
        """Every file the manifest lists (earlier runs' and this one's), relative to the folder."""
        return sorted(self.old | self.written)

    def discard(self, which) -> list[Path]:
        """Remove the listed files for which ``which(relative name)`` is true (only listed ones), and drop
        them from the manifest. Returns the removed files."""
        gone = [rel for rel in self.listed() if which(rel)]
        removed = self._remove(gone)
        self.old -= set(gone)
        self.written -= set(gone)
        self._save()
        return removed

    def _remove(self, rels: Iterable[str]) -> list[Path]:
        removed = []
        for rel in rels:
            p = self.path / rel
            try:
                if p.is_file() or p.is_symlink():
                    p.unlink()
                    removed.append(p)
            except OSError:
                continue
            # a sub-folder emptied by this removal (and only then) goes too
            parent = p.parent
            while parent != self.path and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        return removed

    def abandon(self) -> None:
        """Undo a claim that wrote nothing (a run that failed before its first file): a folder that was
        there keeps what it held (its manifest as it was, or none if it had none); folders this claim
        created are removed again when empty. A staged run's unpublished files are dropped."""
        try:
            self._abandon()
        finally:
            self.release()

    def _abandon(self) -> None:
        self.discard_stage()
        if self.written:
            self._save()
            return
        manifest = self.path / MANIFEST
        # (one that lists files is another run's of this process, which wrote them: a report written under this claim)
        if not self._had_manifest and manifest.is_file() and not self._read_manifest(manifest)["files"]:
            manifest.unlink()
        for q in self.created:
            try:
                q.rmdir()
            except OSError:
                break

    def finish(self, *, clean: bool = True) -> list[Path]:
        """Close the run: with ``clean``, remove the files the manifest listed that this run did not write
        (only those), then save the manifest. Returns the removed files."""
        try:
            self._publish()
            removed = []
            if clean:
                removed = self._remove(sorted(self.old - self.written))
                self.old &= self.written
            self._save()
        finally:
            self.release()
        return removed


#: the staging folders of this process's staged runs not yet published or dropped
_STAGES: set[str] = set()

#: the folders this process holds (:class:`OutputFolder` ``exclusive``): resolved path -> [descriptor, holds]
_HELD_FOLDERS: dict[str, list] = {}


def flock_pid(path: str | os.PathLike) -> int | None:
    """The process holding a ``flock`` on ``path`` (a file or a folder), from the kernel's table of locks
    (``/proc/locks``, Linux), or None where none does or that cannot be told. Asking takes no lock, so a writer
    starting at that moment never finds it held."""
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="utf-8") as f:
            table = f.read()
    except OSError:
        return None
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for w in map(str.split, table.splitlines()):
        if len(w) > 5 and w[1] == "FLOCK" and w[5] == inode and w[4].isdigit():
            return int(w[4])
    return None


def lock_holder(path: str | os.PathLike) -> str | None:
    """Who holds a ``flock`` on ``path`` (:func:`flock_pid`), as "pid N: its command line", or None (hunt 16d: a
    second run of one study was told "another study's run or report", with no process named)."""
    pid = flock_pid(path)
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
    except OSError:
        argv = []
    shown = " ".join(argv[1:] if argv and "python" in os.path.basename(argv[0]) else argv)
    return f"pid {pid}: {shown[:200]}" if shown else f"pid {pid}"


def _release_folder(key: str) -> None:
    """One hold of ``key`` given back; the last closes its descriptor, which gives the lock back."""
    held = _HELD_FOLDERS.get(key)
    if held is None:
        return
    held[1] -= 1
    if held[1] <= 0:
        del _HELD_FOLDERS[key]
        os.close(held[0])


def _drop_stage(stage: Path) -> None:
    _STAGES.discard(str(stage))
    shutil.rmtree(stage, ignore_errors=True)


def drop_stages() -> None:
    """Remove every staging folder of this process not yet published: what the folders' finalizers do at the
    interpreter's exit, for a process that ends without it (``gamemarket.__main__.end_now``)."""
    for stage in list(_STAGES):
        _drop_stage(Path(stage))


def _remove_stale_stages(folder: Path) -> None:
    """Remove the staging folders (:class:`OutputFolder` ``staged``) that killed or stopped runs left in ``folder``:
    of a process that is gone (:func:`_stale`), or of this process but no run of it now."""
    try:
        names = [e.name for e in os.scandir(folder) if e.is_dir(follow_symlinks=False) and e.name.startswith(".stage.")]
    except OSError:
        return
    for name in names:
        m = TEMP_NAME.match(name)
        mine = m is not None and int(m.group(1)) == os.getpid() and m.group(2) == HOST
        if _stale(name, folder) or (mine and str(folder / name) not in _STAGES):
            shutil.rmtree(folder / name, ignore_errors=True)


def legacy_report_files(owner: str):
    """The ``legacy`` of a report folder: one marked by ``LEGACY_MARKER`` naming ``owner`` was written by an
    earlier version, which wrote only these files there (the marker, the text, the figures, ``data/``)."""

    def files(path: Path) -> set[str] | None:
        marker = path / LEGACY_MARKER
        if not marker.is_file() or read_text(marker).strip() != owner:
            return None
        found = [*path.glob("*.png"), *path.glob("data/*.csv"), *path.glob("data/*.json"), *path.glob("data/*.nfg")]
        found += [path / n for n in ("report.md", "index.html", LEGACY_MARKER) if (path / n).is_file()]
        return {f.relative_to(path).as_posix() for f in found if f.is_file()}

    return files
