"""Markdown and HTML for the reports: a Markdown table, and a report's Markdown as a self-contained HTML page
(markdown-it-py). Shared by every report (the study's, the population study's, the design study's)."""

from __future__ import annotations

import functools
import html
import math
import re
from urllib.parse import unquote

from markdown_it import MarkdownIt


def counted(n: int, word: str) -> str:
    """``n`` and ``word``, plural where ``n`` is not 1: ``1 mechanism``, ``4 mechanisms`` ("1 replication seeds")."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def coarse_bootstrap(seeds: int, least: int = 100) -> str:
    """A sentence for a report whose bootstrap over ``seeds`` seeds has fewer distinct resamples than ``least`` (the
    fewest resamples a run may ask for, ``gamemarket.io.limits.MIN_RESAMPLES``), else "". ``k`` seeds give
    ``C(2k - 1, k)`` distinct resamples (multisets): 3 of 2 seeds, 35 of 4; a robustness of 100% or a regret
    interval of [0, 0] may then say only that the few seeds agree."""
    if seeds < 2 or (distinct := math.comb(2 * seeds - 1, seeds)) >= least:
        return ""
    return (
        f"With {seeds} seeds the bootstrap draws from only {distinct} distinct resamples of them, so its shares and "
        f"intervals are coarse (100% or [0, 0] may say only that the {seeds} seeds agree); {_seeds_for(least)} seeds "
        f"or more give it at least {least}."
    )


def _seeds_for(least: int) -> int:
    """The fewest seeds whose bootstrap has at least ``least`` distinct resamples."""
    k = 2
    while math.comb(2 * k - 1, k) < least:
        k += 1
    return k


def num(x, digits: int = 4, *, sign: bool = False) -> str:
    """A number as the reports print it for people: ``digits`` significant digits, thousands separated,
    no exponent, no trailing zeros (``11730.4`` -> ``11,730``; ``-5.912e5`` -> ``-591,200``; ``0.50`` -> ``0.5``).

    Parameters
    ----------
    x : float
        The number; ``None``, NaN and infinities print as ``n/a``, ``inf`` or ``-inf``.
    digits : int
        Significant digits (each table chooses its own: its numbers' precision, not the float's).
    sign : bool
        Print ``+`` before a positive number (a difference).

    Returns
    -------
    str
        The number, e.g. ``+11,730``. Magnitudes below 1e-4 or from 1e15 keep an exponent (``1.2e-07``).
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    x = float(x)
    plus = "+" if sign else ""
    if math.isinf(x):
        return f"{plus if x > 0 else '-'}inf"
    if x == 0:
        return "0"
    rounded = float(f"{x:.{digits}g}")
    if math.isinf(rounded):  # (1.7976931348623157e308 rounds up past the float range: a traceback, hunt 29b-F4)
        return f"{x:{plus}.{digits}g}"
    magnitude = math.floor(math.log10(abs(rounded)))
    if magnitude < -4 or magnitude >= 15:
        return f"{rounded:{plus}.{digits}g}"
    decimals = max(digits - 1 - magnitude, 0)
    text = f"{rounded:{plus},.{decimals}f}"
    return text.rstrip("0").rstrip(".") if decimals else text  # trailing zeros say nothing, as with %g


#: the suffixes of :func:`compact`, from the largest
SUFFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def compact(x, digits: int = 3) -> str:
    """A number short enough for a heatmap's cell: ``digits`` significant digits and a suffix from 10,000 on
    (``13,200,000,000`` -> ``13.2G``, ``-252,000`` -> ``-252k``, ``7,530`` -> ``7,530``; k, M, G, T: thousand,
    million, billion, trillion); below that, :func:`num`."""
    v = float(x)
    if math.isfinite(v) and v != 0:
        v = float(f"{v:.{digits}g}")  # rounded first: 999,999 is 1M, not 1,000k
    for size, suffix in SUFFIXES:
        if abs(v) >= max(size, 1e4) and math.isfinite(v):
            return num(v / size, digits) + suffix
    return num(v, digits)


def num_ci(mean, low, high, digits: int = 4, *, sign: bool = True) -> str:
    """A mean and its interval as the reports print them: ``+11,730 [+5,329, +18,120]`` (see :func:`num`).

    Parameters
    ----------
    mean, low, high : float
        The mean and the interval's ends; a NaN ``low`` prints the mean alone with ``(no interval)``.
    digits : int
        Significant digits of each number.
    sign : bool
        Signed numbers (differences, gains), the default.

    Returns
    -------
    str
        ``mean [low, high]``.
    """
    if low is None or (isinstance(low, float) and math.isnan(low)):
        return f"{num(mean, digits, sign=sign)} (no interval)"
    return f"{num(mean, digits, sign=sign)} [{num(low, digits, sign=sign)}, {num(high, digits, sign=sign)}]"


def md_table(headers, rows) -> str:
    """A Markdown table.

    Parameters
    ----------
    headers : sequence
        The column headers.
    rows : iterable of sequences
        The rows; each cell is written with ``str``.

    Returns
    -------
    str
        The table's lines (header, separator, rows), without a trailing newline.
    """
    out = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def _cell(value) -> str:
    """A table cell's text: a ``|`` in it escaped (``\\|``), as GitHub's Markdown reads a table (a strategy named
    ``hb|first`` split its row into one cell more than the header, and every figure after it moved a column), and
    a line end as a space (a cell is one line)."""
    return " ".join(str(value).splitlines()).replace("|", "\\|")


STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:4px 8px}"
    "th{background:#f3f3f3}img{max-width:100%}code{background:#f6f6f6;padding:0 3px}"
)  #: the HTML reports' style sheet


def _local(src: str) -> bool:
    """A figure's source the self-contained page may show: a file beside the report (``fig-a.png``,
    ``data/x.png``), not an address (``https://...``, ``javascript:...``), a path from the root nor one that climbs
    out of the folder (``../x.png``); a line that
    names one otherwise is shown as its text."""
    parts = unquote(src).replace("\\", "/").split("/")  # (%2e%2e is .. to a browser)
    return ":" not in src and not src.startswith(("/", "\\")) and ".." not in parts  # (../ left the folder: hunt 14)


def _image(renderer, tokens, idx, options, env) -> str:
    """An image of a file beside the report as markdown-it renders it; any other source (an address, a path from
    the root) as the Markdown that named it, in text: the page shows only its own figures."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    if _local(src):
        return renderer.image(tokens, idx, options, env)
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    return html.escape(f"![{alt}]({src})")


@functools.lru_cache(maxsize=1)
def _markdown():
    """The reports' Markdown reader: CommonMark with GitHub's tables (markdown-it-py), raw HTML shown as text (a
    name or a note holding ``<script>`` is text on the page), figures only of files beside the report."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.add_render_rule("image", _image)
    return md


def without_raw_html(md: str) -> str:
    """A report's Markdown with the raw HTML in it written as text (its ``<`` as ``&lt;``), NUL bytes left out and
    line ends made ``\\n``: a name or a note holding ``<img src=x onerror=...>`` is text in any Markdown viewer, as
    it is on the HTML page (hunt 18b-W5: ``report.md`` carried it raw, for a viewer that passes HTML through). What is
    raw HTML is what a CommonMark reader that passes HTML through (markdown-it-py) finds. Every piece is written out
    at once, outside code spans, where that leaves none and the page the same (one reading each); else, in turn, the
    first ``<`` of the lines that hold its first piece whose writing out leaves less of it (:func:`_one_by_one`).
    Markdown without raw HTML is returned unchanged (one reading).

    Where the two readers disagree on a block's bounds (a code span whose second line opens an HTML block: code to
    one, HTML to the other) the page shows ``&lt;`` where it showed ``<``: nothing is run either way."""
    md = _LINE_END.sub("\n", md.replace("\x00", ""))  # (as the reader numbers lines: a bare \r looped, review 20)
    tokens = _html_reader().parse(md)
    if not _pieces(tokens):
        return md
    batch = _all_at_once(md, tokens)
    if not _pieces(_html_reader().parse(batch)) and _markdown().render(batch) == _markdown().render(md):
        return batch
    return _one_by_one(md)


_LINE_END = re.compile(r"\r\n?")
#: an inline code span on one line (its backticks matched): left as it is
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")


def _pieces(tokens) -> list[tuple[tuple[int, int], str | None]]:
    """The raw HTML a reading found: (lines, its tag) of each inline tag, (lines, None) of each HTML block (a table
    cell's lines are its row's)."""
    out, where = [], (0, 0)
    for token in tokens:
        where = token.map or where
        if token.type == "html_block":
            out.append((tuple(where), None))
        out += [(tuple(where), c.content) for c in token.children or [] if c.type == "html_inline"]
    return out


def _all_at_once(md: str, tokens) -> str:
    """Every piece written out in one pass: each tag's text (each ``<`` of a block's lines) outside code spans."""
    lines = md.split("\n")
    for (first, end), tag in _pieces(tokens):
        for k in range(first, min(end, len(lines))):
            line, out, at = lines[k], [], 0
            for span in _CODE_SPAN.finditer(line):
                out += [_written_out(line[at : span.start()], tag), span.group(0)]
                at = span.end()
            lines[k] = "".join(out) + _written_out(line[at:], tag)
    return "\n".join(lines)


def _written_out(text: str, tag: str | None) -> str:
    """``text`` with ``tag`` (every ``<`` where None: an HTML block's line) written out."""
    return text.replace(tag, "&lt;" + tag[1:]) if tag else text.replace("<", "&lt;")


def _one_by_one(md: str) -> str:
    """Raw HTML written out ``<`` by ``<``: the first of the lines of the first piece whose writing out leaves less
    of it; where none does, every ``<`` of those lines (and, where they hold none, of the whole text: it ends)."""
    count, lines = _raw_html(md)
    while count:
        line_starts = [0] + [m.end() for m in re.finditer("\n", md)]
        first, end = lines
        low, high = (
            line_starts[min(first, len(line_starts) - 1)],
            (line_starts[end] if end < len(line_starts) else len(md)),
        )
        for at in (m.start() for m in re.finditer("<", md[low:high])):
            tried = md[: low + at] + "&lt;" + md[low + at + 1 :]
            left, left_lines = _raw_html(tried)
            if left < count:
                md, count, lines = tried, left, left_lines
                break
        else:  # (no "<" of those lines found to be it: every one written out)
            if "<" not in md[low:high]:
                return md.replace("<", "&lt;")
            md = md[:low] + md[low:high].replace("<", "&lt;") + md[high:]
            count, lines = _raw_html(md)
    return md


def _raw_html(md: str) -> tuple[int, tuple[int, int]]:
    """How much raw HTML (the characters of its tags and blocks) a reader that passes HTML through finds in ``md``,
    and the lines of its first piece (a table cell's: its row's)."""
    count, lines, where = 0, (0, 0), (0, 0)
    for token in _html_reader().parse(md):
        where = token.map or where
        found = len(token.content) if token.type == "html_block" else 0
        found += sum(len(c.content) for c in token.children or [] if c.type == "html_inline")
        if found and not count:
            lines = tuple(where)
        count += found
    return count, lines


@functools.lru_cache(maxsize=1)
def _html_reader():
    """A CommonMark reader (with GitHub's tables) that passes raw HTML through: what finds it in a report."""
    return MarkdownIt("commonmark", {"html": True}).enable("table")


def report_pages(md: str, title: str) -> tuple[str, str]:
    """A report's two pages from its Markdown: ``report.md`` (:func:`without_raw_html`) and ``index.html``
    (:func:`to_html` of it): what every report writes, the study's, the population study's and the design study's."""
    md = without_raw_html(md)
    return md, to_html(md, title)


def to_html(md: str, title: str) -> str:
    """A report's Markdown (CommonMark with GitHub's tables, as ``md_table`` writes them) as one self-contained HTML
    page, rendered by markdown-it-py [markdown-it-py]_: raw HTML is shown as text, and a figure is shown only where
    it is a file beside the report.

    Parameters
    ----------
    md : str
        The report's Markdown.
    title : str
        The page's title.

    Returns
    -------
    str
        The HTML document.

    References
    ----------
    .. [markdown-it-py] The Executable Book Project, markdown-it-py, a Python port of markdown-it (CommonMark
       0.31 and GitHub-flavoured tables), https://github.com/executablebooks/markdown-it-py.
    """
    body = _markdown().render(md.replace("\x00", ""))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n" + body + "</body></html>\n"
    )


def duration(seconds: float) -> str:
    """A wall time as the commands print it: ``12.3 s`` (one decimal), and ``under 0.05 s`` where one decimal
    would say ``0.0 s`` (three stored runs read back take milliseconds, not no time at all)."""
    return f"{seconds:.1f} s" if seconds >= 0.05 else "under 0.05 s"
