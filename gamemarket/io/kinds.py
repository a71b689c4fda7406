"""What a file is, told by its first bytes: gamemarket's kinds of input, each with the command that reads it.

Each reader names its own format's errors; where a file fails to read as the kind a command expects, the reader
asks :func:`kind_of` what the file says it is, so that the message names the other kind and its command (a job
table given as a trace was a "malformed SWF line", a trace given as a job table pandas' "Expected 1 fields", a
trace given as a study "invalid TOML", a game's arrays given as a price problem "missing array 'R'"; hunt 18c-W4
and its review). A file is told by its first :data:`HEAD_BYTES` only: a kind is said where those say it, and
nothing is said where they do not (the reader's own error stands).
"""

from __future__ import annotations

import os
import re
import zipfile
from dataclasses import dataclass

from gamemarket.errors import InputError

#: the bytes looked at to tell a file's kind
HEAD_BYTES = 512
UTF8_BOM = b"\xef\xbb\xbf"
#: a line of an SWF trace's jobs: 18 whitespace-separated numbers
SWF_LINE = re.compile(rb"\s*(?:[-+.\deE]+\s+){17}[-+.\deE]+\s*")
#: the first line of a workload model as ``gamemarket workload fit`` writes it
MODEL_MARK = b"# gamemarket workload model"


@dataclass(frozen=True)
class Kind:
    """A kind of file: ``name`` (``"swf"``, ``"job-table"``, ...), what it is in words, and what reads it."""

    name: str
    what: str
    reads_it: str

    def told(self, line: int = 0, text: str = "") -> str:
        """``"line 3 ('...') says it is X"``, or ``"is X"`` where no line tells it (a binary header)."""
        return f"line {line} ({text!r}) says it is {self.what}" if line else f"is {self.what}"


SWF = Kind("swf", "an SWF trace", "a trace is read by `gamemarket workload info FILE` and `--workload FILE`")
JOB_TABLE = Kind(
    "csv",
    "CSV text (a job table or a payoff table)",
    "a job table is simulated with "
    "`gamemarket simulate --job-table FILE --nodes N`, a payoff table solved with `gamemarket game solve "
    "FILE.csv`",
)
NFG = Kind("nfg", "a Gambit .nfg game", "solve it with `gamemarket game solve FILE.nfg` (the name ending .nfg)")
JSON = Kind(
    "json",
    "JSON text (a game or a record)",
    "a game is solved with `gamemarket game solve FILE.json` (the name ending .json)",
)
MODEL = Kind(
    "model",
    "a gamemarket workload model (TOML)",
    "a model is simulated with `gamemarket simulate "
    "--workload FILE.toml`, and named in a study's [workload] table (model = ...)",
)
TOML = Kind(
    "toml",
    "TOML text (a study file, a model or a strategy catalogue)",
    "a study is run with `gamemarket study run FILE.toml`",
)
NPZ = Kind(
    "npz",
    "a NumPy .npz archive (a game's A and B, or a price problem's arrays)",
    "solve a game with `gamemarket game solve FILE.npz`, a price problem with `gamemarket price solve FILE.npz`",
)
PARQUET = Kind(
    "parquet",
    "a Parquet table (a job table or a stored run)",
    "a job table is simulated with `gamemarket simulate --job-table FILE.parquet --nodes N`",
)

#: (pattern of the first line that is no comment, kind), in order: the first that matches tells
#: a spreadsheet's first line ``sep=,`` (Excel's separator hint), which a CSV reader takes for its header (hunt
#: 20b-W3: a job table opening with one was "TOML text")
SEPARATOR_HINT = Kind(
    "separator-hint",
    "a spreadsheet's separator hint (Excel's sep=), not a table's header",
    "remove that first line: a table's first line names its columns",
)
FIRST_LINE = (
    (re.compile(rb"sep=.$"), SEPARATOR_HINT),
    (re.compile(rb"NFG\s+1\s"), NFG),
    (re.compile(rb"[{]"), JSON),
    (re.compile(rb"(\[[^\]]*\]|[A-Za-z_][\w-]*\s*=)"), TOML),
    (re.compile(rb"[^,]*,"), JOB_TABLE),
)


def _npz(head: bytes) -> bool:
    """Whether a zip archive's first member is a NumPy array (``name.npy``): the archive is an ``.npz``."""
    if not head.startswith(b"PK\x03\x04") or len(head) < 30:
        return False
    size = int.from_bytes(head[26:28], "little")
    return head[30 : 30 + size].endswith(b".npy")


def kind_of(head: bytes, *, whole: bool | None = None) -> tuple[Kind, int, str] | None:
    """The kind ``head`` (a file's first bytes) says it is, with the line that says it (its number and text; 0 and
    "" for a binary header), or None where it says none. ``whole``: whether ``head`` is the whole file (default:
    shorter than :data:`HEAD_BYTES`), so that its last line is complete.

    An SWF trace is told by a comment line (``;``) or a job line anywhere in the head before any other kind's
    first line is trusted: a trace with a stray first line (a title with a comma) stays a trace."""
    if _npz(head):
        return NPZ, 0, ""
    if head.startswith(b"PAR1"):
        return PARQUET, 0, ""
    if head.startswith(MODEL_MARK):
        return MODEL, 1, MODEL_MARK.decode()
    whole = len(head) < HEAD_BYTES if whole is None else whole
    lines = head.removeprefix(UTF8_BOM).replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    lines = lines if whole else lines[:-1]  # (the last may be cut)
    numbered = [(k, line.strip()) for k, line in enumerate(lines, 1) if line.strip()]
    texts = [(k, line) for k, line in numbered if line.isascii() and not any(b < 32 and b != 9 for b in line)]
    if len(texts) != len(numbered) or not texts:
        return None  # (binary, or nothing to tell by)
    if texts[0][1].startswith(b";") or any(SWF_LINE.fullmatch(line) for _, line in texts):
        return SWF, texts[0][0], texts[0][1][:60].decode()
    k, first = next(((k, line) for k, line in texts if not line.startswith(b"#")), (0, b""))
    if b'format = "gamemarket-workload-model' in head:
        return MODEL, k, first[:60].decode()
    for pattern, kind in FIRST_LINE:
        if k and pattern.match(first):
            return kind, k, first[:60].decode()
    return None


def kind_of_file(path: str | os.PathLike) -> tuple[Kind, int, str] | None:
    """:func:`kind_of` of a regular file's first bytes (None for a stream, which cannot be read twice, or a file
    that cannot be read: its reader says why)."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    if _npz(head) or head.startswith(b"PK\x03\x04"):
        try:  # (a zip archive whose first member is no array may still be arrays: their names tell)
            with zipfile.ZipFile(path) as zf:
                if any(n.endswith(".npy") for n in zf.namelist()):
                    return NPZ, 0, ""
        except (OSError, zipfile.BadZipFile, ValueError):
            return None
    return kind_of(head)


def check_kind(path: str | os.PathLike, expected: tuple[str, ...], what: str) -> None:
    """Refuse a file that tells another kind than ``expected`` (:class:`Kind` names), before a reader of ``what``
    parses it into a misleading error (a short trace read as a one-column CSV was "missing column(s) ['id', ...]")."""
    found = kind_of_file(path)
    if found is not None and found[0].name not in expected:
        kind, line, text = found
        raise InputError(f"{path}: {kind.told(line, text)}, not {what}; {kind.reads_it}")


def says_it_is(path: str | os.PathLike, expected: str) -> str:
    """``"; line 1 ('...') says it is X, not <expected>; <what reads it>"`` where the file tells another kind than
    ``expected`` (a :class:`Kind` name), else ``""``: a tail for a reader's error."""
    found = kind_of_file(path)
    if found is None or found[0].name == expected:
        return ""
    kind, line, text = found
    return f" ({kind.told(line, text)}; {kind.reads_it})"
