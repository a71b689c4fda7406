"""The reports' shared Markdown and HTML helpers, and the one mixture formatter."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from gamemarket.games.io import mixture_words
from gamemarket.reports.markdown import md_table, report_pages, to_html, without_raw_html


def test_md_table():
    assert md_table(["a", "b"], [[1, "x"], [2.5, None]]) == "| a | b |\n|---|---|\n| 1 | x |\n| 2.5 | None |"


def test_to_html_writes_each_kind_of_line():
    md = "\n\n".join(  # blocks apart, as every report writes them (a table runs on to the next blank line)
        [
            "# Title & more",
            "",
            "A paragraph with `code` and **bold** <tags>.",
            md_table(["k", "v"], [["`x`", "**1**"]]),
            "![a figure](fig-a.png)",
            "- a note",
            "_written by gamemarket_",
        ]
    )
    page = to_html(md, "t <1>")
    assert page.startswith('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t &lt;1&gt;</title>')
    body = re.sub(r">\n+<", "><", page.split("<body>\n", 1)[1])  # markdown-it ends each block's line
    assert body == (
        "<h1>Title &amp; more</h1>"
        "<p>A paragraph with <code>code</code> and <strong>bold</strong> &lt;tags&gt;.</p>"
        "<table><thead><tr><th>k</th><th>v</th></tr></thead><tbody>"
        "<tr><td><code>x</code></td><td><strong>1</strong></td></tr></tbody></table>"
        '<p><img src="fig-a.png" alt="a figure" /></p>'
        "<ul><li>a note</li></ul>"
        "<p><em>written by gamemarket</em></p>"
        "</body></html>\n"
    )


def test_a_mixture_is_written_largest_share_first():
    assert mixture_words({"truthful": 0.25, "shade-0.5": 0.75}) == "0.75 shade-0.5 + 0.25 truthful"
    assert mixture_words({"a": 0.5, "b": 0.5}) == "0.5 a + 0.5 b"  # stable on ties
    assert mixture_words({"truthful": 1.0}) == "1 truthful"
    assert mixture_words({"x": 1 / 3, "y": 2 / 3}, digits=6) == "0.666667 y + 0.333333 x"


def test_numbers_are_written_for_people():
    from gamemarket.reports.markdown import num, num_ci

    assert num_ci(1.173e4, 5329, 1.812e4) == "+11,730 [+5,329, +18,120]"
    assert num(-5.912e5) == "-591,200" and num(6.462e8) == "646,200,000" and num(6.462e8, 3) == "646,000,000"
    assert num(0.0838) == "0.0838" and num(0.5) == "0.5" and num(1.0) == "1" and num(123.456) == "123.5"
    assert num(109.3, 3, sign=True) == "+109" and num(-0.117, 3) == "-0.117" and num(0) == "0"
    assert num(1.23e-7) == "1.23e-07" and num(2e16) == "2e+16"  # beyond people's range, an exponent
    assert num(float("nan")) == "n/a" and num(None) == "n/a" and num(float("inf"), sign=True) == "+inf"
    assert num_ci(-3.0, float("nan"), float("nan")) == "-3 (no interval)"


def test_the_discussion_formats_through_the_same_formatter():
    from gamemarket.reports.discussion import fmt

    assert fmt(646161234.7) == "646,161,235" and fmt(1234.5) == "1,234" and fmt(0.000123) == "0.000123"
    assert fmt(-999.6) == "-1,000"  # was "-1e+03"


def test_claim_rows_hold_numbers_and_the_report_formats_them():
    """The analysis returns a claim's numbers; the report's formatter writes them (no number in the row's text)."""
    import re

    import numpy as np
    import pandas as pd

    from gamemarket.analysis import claims
    from gamemarket.reports.claims import claim_measured

    providers = {
        "hb-first": {"kind": "scheduling", "scheduler": "hb", "payment": "first", "reserve": 1.0},
        "hb-kth": {"kind": "scheduling", "scheduler": "hb", "payment": "kth", "reserve": 1.0},
    }
    consumers = {"FT": {"groups": [[1.0, 0.0]]}, "SRG": {"groups": [[0.9, 0.1], [0.1, 0.9]]}}
    metrics = pd.DataFrame(
        [
            {
                "provider": p,
                "consumer": c,
                "seed": s,
                "mean_utility": -3.5e5 + 1e4 * s * (p == "hb-kth"),
                "revenue": 1e8,
            }
            for p in providers
            for c in consumers
            for s in range(1, 4)
        ]
    )
    bins = pd.DataFrame(
        [
            {"provider": "hb-first", "consumer": c, "seed": s, "group": g, "bid_bin": 10, "n": 10}
            | {"sum_bsd": 10 * (s + (c == "SRG") * 12345.6), "n_ssj": 1, "sum_utility": -1.0}
            for c, g in (("SRG", 1), ("FT", 0))
            for s in range(1, 4)
        ]
    )
    rows = {r["key"]: r for r in claims.evaluate(metrics, bins, None, consumers, providers)}
    for r in rows.values():
        assert not re.search(r"\d", r["measured"]), r["measured"]  # a name, not a number
    c1, rule = rows["c1"], rows["rule-kth-utility-FT"]
    assert (c1["form"], rule["form"]) == ("interval", "mean")
    assert c1["mean"] == 12345.6 and np.isnan(rule["ci_low"]) and rule["mean"] == 20000.0
    assert claim_measured(c1) == "SRG aggressive minus FT: +12,350 [+12,350, +12,350] (n=3)"  # the same on every seed
    assert claim_measured(dict(c1, ci_low=11730.4, ci_high=13000.0)).endswith("[+11,730, +13,000] (n=3)")
    assert claim_measured(rule) == "k-th minus first: +20,000 (every one of 3 seeds >= 0: yes)"
    assert claim_measured({"measured": "hb-first, hb-kth"}) == "hb-first, hb-kth"  # a row of text alone


@pytest.mark.parametrize(
    "text,html_out",
    [
        ("shading pays. *SRG*: the aggressive", "shading pays. <em>SRG</em>: the aggressive"),
        ("Verdict: *yes* when", "Verdict: <em>yes</em> when"),
        ("**bold** and *it*.", "<strong>bold</strong> and <em>it</em>."),
        ("x * y and a*b", "x * y and a*b"),  # a product, not emphasis
        ("r * 2 * 3", "r * 2 * 3"),
    ],
)
def test_stars_are_emphasis_in_the_html_and_a_product_is_not(text, html_out):
    """The population report's verdicts and the gain tables' captions (*yes*, *SRG*) showed their stars."""
    assert f"<p>{html_out}</p>" in to_html(text, "t")


def test_compact_numbers_fit_a_cell():
    from gamemarket.reports.markdown import compact

    assert [compact(v) for v in (13.2e9, -252_000, 7_530, 0.5, 1e13, 12_345, 999_999)] == [
        "13.2G",
        "-252k",
        "7,530",
        "0.5",
        "10T",
        "12.3k",
        "1M",
    ]


@pytest.mark.parametrize(
    "text",
    ["a note with <script>alert(1)</script>", "<img src=x onerror=alert(1)>", "<!-- hidden --> text"],
)
def test_raw_html_in_a_report_is_shown_as_text_on_its_page(text):
    """A name, a description or a note holding HTML: the page shows it, it does not run it (markdown-it with
    ``html`` off)."""
    page = to_html(f"# study\n\n{text}\n", "t")
    assert "<script>" not in page.split("</style>", 1)[1] and "&lt;" in page
    assert "onerror=alert" not in page or "&lt;img" in page


def test_the_page_is_commonmark_with_tables_as_github_reads_them():
    """What a reader of report.md on GitHub sees: a list, a second paragraph, a table with an escaped pipe."""
    md = "intro\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| x\\|y | 2 |\n"
    body = re.sub(r">\n+<", "><", to_html(md, "t"))
    assert "<ol><li>one</li><li>two</li></ol>" in body
    assert "<tbody><tr><td>x|y</td><td>2</td></tr></tbody>" in body


@pytest.mark.parametrize(
    "block",
    [
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "```\ncode line 1\ncode line 2\n```",
        "Title\n---",
        "1. one\n2. two",
        "* one\n* two",
        "- one\n  - nested",
        "> quote\n> more",
    ],
)
def test_a_notes_block_of_markdown_structure_is_kept_as_written(block):
    """Hunt 14: the study's notes were joined line by line, so a table, a fence, a setext heading or a numbered list
    became one line of text in report.md and index.html alike; wrapped paragraphs and bullets are still joined."""
    from gamemarket.reports.discussion import reflow

    assert reflow(f"a wrapped\nparagraph\n\n{block}\n\n- item one\n  continues") == (
        f"a wrapped paragraph\n\n{block}\n\n- item one continues"
    )


def _raw_html(md: str) -> list[str]:
    """The raw HTML a CommonMark viewer that passes HTML through (markdown-it-py with html on) finds."""
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(md)
    return [t.content for t in tokens if t.type == "html_block"] + [
        c.content for t in tokens for c in t.children or [] if c.type == "html_inline"
    ]


PIECES = ["<img src=x onerror=a()>", "<a>", "</a>", "<!-- c -->", "<div>", "`", "``", " ", "x", "|", "\\", "<", ">"]
PIECES += [
    "<https://e.org>",
    "<a@b.c>",
    "    ",
    "- ",
    "# ",
    "*",
    "[l](<u>)",
    "&lt;",
    "<b\nc>",
    "\n",
    "```\n",
    "\x00",
    "\r",
    "\r\n",
]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(PIECES), max_size=16).map("".join))
def test_no_raw_html_is_left_for_a_viewer_that_passes_it_through(md):
    """Hunt 18b-W5: ``report.md`` carried a name's ``<img onerror=...>`` raw: any Markdown, however broken, is left
    with no raw HTML and no NUL byte."""
    out = without_raw_html(md)
    assert _raw_html(out) == [] and "\x00" not in out
    if "<" not in md and "\x00" not in md and "\r" not in md:
        assert out == md  # (Markdown without any is left as it is)
    assert "\r" not in out and _raw_html(out.replace("\n", "\r")) == []  # (a bare \r looped, review 20)


NAMES = st.lists(st.sampled_from(["<img src=x onerror=a()>", "</b>", "<!-- c -->", "a", "1", "-", "<", ">", " "]))


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(["h", "p", "li", "code", "cell", "fence"]), NAMES.map("".join)), max_size=8))
def test_a_reports_page_shows_the_same_with_its_names_written_out(parts):
    """The lines a report writes (headings, sentences, list items, code spans, table cells, fenced blocks), each
    quoting a name that may hold HTML: ``index.html`` made from the written-out Markdown shows what it showed."""
    shapes = {
        "h": "## Game of {n}",
        "p": "The consumer {n} shades.",
        "li": "- {n}: first price",
        "code": "run `{n}` again",
        "cell": "| mechanism | consumer |\n|---|---|\n| {n} | x |",
        "fence": "```\n{n}\n```",
    }
    md = "\n\n".join(shapes[kind].format(n=name.replace("`", "")) for kind, name in parts)
    out, page = report_pages(md, "t")
    assert _raw_html(out) == [] and page == to_html(md, "t")
