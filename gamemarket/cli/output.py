"""What the commands print: the one table writer every command's text output goes through, and helpers shared by
the command modules.

A table (:func:`table_lines`, :func:`print_table`) has a header line and its columns aligned, two spaces at least
between them: text to the left, numbers to the right. Numbers are written as the reports write them
(:func:`gamemarket.reports.markdown.num`): thousands separated, a chosen number of significant digits, no exponent
(``-351,987`` where Python prints ``-3.51987e+05``). An integer, and a float whose value is an integer, is written
whole (``6,059,482``, never ``6,059,480``); a number that had to be rounded is said to be, in one line below the
table (``rounded: numbers to 6 significant digits``). ``--format json`` prints every number at full precision
instead.

A table wider than the terminal is cut into blocks of columns, one below the other, each repeating the row labels;
the width is ``$COLUMNS`` where set, else the terminal's, and unlimited where standard output is not a terminal (a
file or a pipe gets whole rows).

A command's standard output is its result (``--format json`` is read by programs): code that is not the
command's own, a plugin's as it loads, runs under :func:`foreign_code`, which sends what it prints to stderr.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import shutil
import sys
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gamemarket.errors import InputError
from gamemarket.io.files import shown_path
from gamemarket.reports.markdown import num

#: significant digits of a summary's numbers (``print_dict``): a run's means and shares, to the precision
#: that tells two runs apart
SUMMARY_DIGITS = 6

#: where a command with ``--format json`` says every digit is, beside its text's rounding line
FULL = "--format json prints every digit"

#: the space between two columns of a table
GAP = "  "

#: the largest integer a float holds exactly: a float at or below it whose value is whole is written whole
_EXACT = 2**53


@dataclass(frozen=True)
class Figure:
    """A number as a table's cell: its value and how it is rounded where it must be.

    Attributes
    ----------
    value : float
    digits : int
        Significant digits (``style="significant"``), or decimals (``"fixed"``, ``"percent"``).
    style : str
        ``"significant"`` (:func:`gamemarket.reports.markdown.num`), ``"fixed"`` (``12.34``) or ``"percent"``
        (a share as ``78.1%``).
    sign : bool
        ``+`` before a positive number (a difference).
    what : str
        The numbers' name in the rounding line below the table (``"means"``, ``"half-widths"``).
    whole : bool
        Write a whole value as an integer, every digit (a count); false for computed figures that are whole by
        chance (a logarithm of -8.7e15 was written with 16 digits beside its neighbour's ``-2.606e+16``).
    """

    value: float
    digits: int = SUMMARY_DIGITS
    style: str = "significant"
    sign: bool = False
    what: str = "numbers"
    whole: bool = True

    def text(self) -> tuple[str, bool]:
        """The figure as written, and whether it was rounded to be written so."""
        v = self.value
        if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
            return str(v), False
        if isinstance(v, int):
            return f"{v:{'+' if self.sign else ''},}", False
        if not math.isfinite(v):
            return num(v, sign=self.sign), False
        if self.style == "percent":
            text = f"{v:{'+' if self.sign else ''}.{self.digits}%}"
            return text, not math.isclose(float(text[:-1]), v * 100, rel_tol=1e-12)  # v * 100's own error
        if self.style == "fixed":
            text = f"{v:{'+' if self.sign else ''},.{self.digits}f}"
            return text, float(text.replace(",", "")) != v
        if self.whole and v == int(v) and abs(v) <= _EXACT:
            return f"{int(v):{'+' if self.sign and v > 0 else ''},}", False
        text = num(v, self.digits, sign=self.sign)
        return text, float(text.replace(",", "")) != v

    def rule(self) -> tuple[str, str]:
        """How the figure is rounded: the unit of its digits (``significant digits``) and how many (``6``)."""
        unit = {"significant": "significant digit", "fixed": "decimal", "percent": "decimal of a percent"}
        return unit[self.style], str(self.digits)


def exact(v: float) -> str:
    """Every digit of a number, thousands separated: a whole one as an integer (``6,059,482``), any other as
    Python's shortest exact form (``104,935,656.72158004``)."""
    v = float(v)
    return f"{int(v):,}" if v.is_integer() else f"{v:,}"


def value_text(v, digits: int = SUMMARY_DIGITS) -> str:
    """A summary's value as printed for people: a number (or a list of numbers) as :class:`Figure` writes it,
    anything else as ``str`` (a bool as ``yes`` or ``no``).

    Parameters
    ----------
    v : object
        The value.
    digits : int
        Significant digits of a float that is not whole.

    Returns
    -------
    str
    """
    return _cell(v, digits)[0]


def _cell(v, digits: int = SUMMARY_DIGITS) -> tuple[str, bool, list]:
    """A cell as written: its text, whether it is a number (aligned right), and the figures rounded in it."""
    if isinstance(v, bool):
        return ("yes" if v else "no"), False, []
    if isinstance(v, (int, float)):
        v = Figure(v, digits)
    if isinstance(v, Figure):
        text, rounded = v.text()
        return text, True, [v] if rounded else []
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float, Figure)) for x in v):
        parts = [_cell(x, digits) for x in v]
        return "; ".join(p[0] for p in parts), True, [f for p in parts for f in p[2]]  # "," is in the numbers
    if isinstance(v, Parts):
        parts = [_cell(x, digits) for x in v.parts]
        number = not v.text and any(p[1] for p in parts)
        return "".join(p[0] for p in parts), number, [f for p in parts for f in p[2]]
    # a text holding a character a terminal would not show (a tab in a trace's name): escaped, as a message shows
    # it, not printed raw into the table (hunt 22b-W14)
    return ("" if v is None else shown_path(v)), False, []


@dataclass(frozen=True)
class Parts:
    """A cell written from several pieces, text and :class:`Figure` (``Parts((mean, " ± ", half_width))``): a
    number's cell (aligned right) where one piece is, unless ``text`` says it reads as words (a mixture,
    ``0.25 truthful + 0.75 shade-0.5``)."""

    parts: tuple
    text: bool = False


def terminal_width() -> int | None:
    """The width tables are cut to: ``$COLUMNS`` where set, else the terminal's; None (no limit) where standard
    output is not a terminal."""
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stdout
        tty = False
    return shutil.get_terminal_size().columns if tty else None


def rounding_line(figures: Iterable[Figure], full: str = "") -> str | None:
    """The line that says how a table's numbers were rounded (``rounded: means to 5 significant digits;
    half-widths to 2 significant digits``), None where none was; ``full`` says where every digit is.

    Parameters
    ----------
    figures : iterable of Figure
        The figures that were rounded.
    full : str
        Where every digit is (``--format json prints every digit``), in brackets after the rules.

    Returns
    -------
    str or None
    """
    rules: dict[tuple[str, str], set] = {}
    for f in figures:
        unit, digits = f.rule()
        rules.setdefault((f.what, unit), set()).add(int(digits))
    if not rules:
        return None
    said = []
    for (what, unit), counts in rules.items():
        k = sorted(counts)
        n = str(k[0]) if len(k) == 1 else ", ".join(map(str, k[:-1])) + f" or {k[-1]}"
        plural = unit.replace("digit", "digits").replace("decimal", "decimals") if k != [1] else unit
        said.append(f"{what} to {n} {plural}")
    return "rounded: " + "; ".join(said) + (f" ({full})" if full else "")


def table_lines(
    headers: Sequence[str],
    rows: Iterable[Sequence],
    *,
    keys: int = 1,
    width: int | None = None,
    indent: int = 0,
    digits: int = SUMMARY_DIGITS,
    full: str = "",
) -> list[str]:
    """A table's lines: the header, one line per row, and the line that says how its numbers were rounded.

    Parameters
    ----------
    headers : sequence of str
        The columns' headers.
    rows : iterable of sequences
        The cells: text, numbers (a float that is not whole to ``digits`` significant digits), :class:`Figure`,
        :class:`Parts`, or a list of numbers (written ``a, b, c``). A column of numbers is aligned right, any other
        left.
    keys : int
        The first columns that label a row: repeated in every block where the table is cut to ``width``.
    width : int, optional
        The most characters a line may take (default: no limit): a wider table is cut into blocks of columns, one
        below the other, a blank line between them. A single column wider than that is written whole.
    indent : int
        Spaces before each line.
    digits : int
        Significant digits of a plain float.
    full : str
        Where every digit is (``--format json prints every digit``), said with the rounding line.

    Returns
    -------
    list of str
    """
    cells = [_cell(h) for h in headers]
    body = [[_cell(c, digits) for c in r] for r in rows]
    n = len(headers)
    if any(len(r) != n for r in body):
        raise ValueError(f"every row needs {n} cells, as the headers")
    right = [bool(body) and all(r[j][1] or not r[j][0] for r in body) for j in range(n)]
    widths = [max(len(c[0]) for c in [cells[j], *(r[j] for r in body)]) for j in range(n)]
    pad = " " * indent
    out: list[str] = []
    for block in _blocks(widths, keys, None if width is None else width - indent):
        if out:
            out.append("")
        for r in [cells, *body]:
            line = GAP.join(r[j][0].rjust(widths[j]) if right[j] else r[j][0].ljust(widths[j]) for j in block)
            out.append(pad + line.rstrip())
    note = rounding_line([f for r in body for c in r for f in c[2]], full)
    if not note:
        return out
    notes = [note] if width is None else textwrap.wrap(note, max(width - indent, 20), subsequent_indent="  ")
    return out + [pad + line for line in notes]


def _blocks(widths: list[int], keys: int, width: int | None) -> list[list[int]]:
    """The columns of each block of a table cut to ``width``: the ``keys`` first in every block, then as many of
    the others, in order, as fit (one at least)."""
    keys = min(keys, len(widths))
    head = list(range(keys))
    used = sum(widths[:keys]) + len(GAP) * keys
    blocks: list[list[int]] = []
    block: list[int] = []
    for j in range(keys, len(widths)):
        taken = used + sum(widths[k] + len(GAP) for k in block) + widths[j]
        if block and width is not None and taken > width:
            blocks.append(head + block)
            block = []
        block.append(j)
    if block or not blocks:
        blocks.append(head + block)
    return blocks


def print_table(headers: Sequence[str], rows: Iterable[Sequence], **options) -> None:
    """Print a table (:func:`table_lines`; its ``options``), cut to the terminal's width (:func:`terminal_width`)
    unless ``width`` is given."""
    options.setdefault("width", terminal_width())
    print("\n".join(table_lines(headers, rows, **options)))


class RowWriter:
    """A table printed a row at a time, as its rows come (a solver's trace, each evaluation as it ends): the header
    first, the columns' widths fixed by ``widths`` (a wider cell widens its own line only, two spaces still before
    it), and the rounding line by :meth:`close`. Numbers are aligned right, text left, as in :func:`table_lines`.

    Parameters
    ----------
    headers : sequence of str
        The columns' headers.
    widths : sequence of int
        Each column's width (at least its header's).
    indent : int
        Spaces before each line.
    full : str
        Where every digit is, said with the rounding line.
    """

    def __init__(self, headers: Sequence[str], widths: Sequence[int], *, indent: int = 0, full: str = ""):
        self.widths = [max(len(h), w) for h, w in zip(headers, widths)]
        self.pad, self.full = " " * indent, full
        self.rounded: list[Figure] = []
        print(self.pad + GAP.join(h.rjust(w) for h, w in zip(headers, self.widths)).rstrip())

    def row(self, cells: Sequence) -> None:
        """Print one row (cells as :func:`table_lines` takes them)."""
        written = [_cell(c) for c in cells]
        self.rounded += [f for c in written for f in c[2]]
        line = GAP.join(t.rjust(w) if number else t.ljust(w) for (t, number, _), w in zip(written, self.widths))
        print(self.pad + line.rstrip())

    def close(self) -> None:
        """Print the line that says how the rows' numbers were rounded, where one was."""
        note = rounding_line(self.rounded, self.full)
        if note:
            print(self.pad + note)


def figure_width(digits: int) -> int:
    """The widest a figure of ``digits`` significant digits is written: its digits, their separators, a sign and a
    point, or its exponent form (``-1.2345e-05``)."""
    return digits + max((digits - 1) // 3 + 2, 6)


def _flat(d: dict, indent: int = 0) -> list[tuple[str, object]]:
    """A (nested) dict's items as ``(key, value)`` rows, a nested dict's keys below its own, indented."""
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out.append((" " * indent + str(k), ""))
            out += _flat(v, indent + 2)
        else:
            out.append((" " * indent + str(k), v))
    return out


def print_dict(d: dict, digits: int = SUMMARY_DIGITS, *, full: str = "") -> None:
    """Print a (nested) dictionary as a table of quantities and values (:func:`print_table`): a dict value's items
    below its key, indented by two spaces; numbers as :class:`Figure` writes them.

    Parameters
    ----------
    d : dict
        The items to print.
    digits : int
        Significant digits of each float that is not whole.
    full : str
        Where every digit is, said with the rounding line.
    """
    print_table(("quantity", "value"), _flat(d), digits=digits, full=full)


@contextlib.contextmanager
def foreign_code(what: str):
    """Run code that is not the command's own (a plugin's, as it loads) without letting it change what the command
    prints or where it writes: what it prints goes to stderr, and a working directory it changes is changed back
    and refused.

    A plugin's ``print`` at its top level would otherwise land in the command's result (``--format json`` no longer
    parses), and an ``os.chdir`` would make every relative path of the command line (``--out rel.csv``) name a file
    in another folder.

    Parameters
    ----------
    what : str
        The code, for the message (``"plugin mine.py"``).

    Raises
    ------
    InputError
        The code changed the working directory (which is restored first, so nothing is written there).
    """
    cwd = os.getcwd()
    with contextlib.redirect_stdout(sys.stderr):
        try:
            yield
        finally:
            try:
                now = os.getcwd()
            except OSError:  # the code deleted the folder it moved to
                now = "(a folder since deleted)"
            if now != cwd:
                os.chdir(cwd)
    if now != cwd:
        raise InputError(
            f"{what}: changed the working directory (from {cwd} to {now}) as it loaded; expected it to leave it "
            "as it is (the command's relative paths would name other files)"
        )


#: the name an error writing the command's output gives its file
STDOUT = "standard output"


class NamedStdout:
    """The command's stdout, whose write errors name it: ``> /dev/full`` (a full disk under the output's file) said
    "No space left on device" and named no file. A closed pipe is left as it is (``BrokenPipeError``: the reader
    went away, which the command takes quietly); everything else is the stream's own.

    A standard output that is closed (``>&-``: Python's ``sys.stdout`` is None) is an error naming it where the
    command writes to it, and nothing where it writes nothing (hunt 15b: a traceback, "'NoneType' object has no
    attribute 'flush'"). A text the stream's encoding cannot hold (``LC_ALL=C PYTHONUTF8=0`` and a description with
    an accent) is written with backslash escapes for what it cannot hold, not a traceback."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def _named(self, call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            if exc.filename is not None:
                raise
            raise OSError(exc.errno, exc.strerror, STDOUT) from None

    def write(self, text):
        """The stream's ``write``, an error naming standard output."""
        if self._stream is None:
            raise OSError(errno.EBADF, "it is closed; the command's output has nowhere to go", STDOUT)
        try:
            return self._named(self._stream.write, text)
        except UnicodeEncodeError:
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            return self._named(self._stream.write, text.encode(encoding, "backslashreplace").decode(encoding))

    def flush(self) -> None:
        """The stream's ``flush``, an error naming standard output (a closed one has nothing to flush)."""
        if self._stream is not None:
            return self._named(self._stream.flush)
        return None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit, into the closed pipe (or the file
    that failed), raises nothing (Python's documented way to stop after a SIGPIPE without a second error)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor to point (a captured stdout): nothing to do
        pass
