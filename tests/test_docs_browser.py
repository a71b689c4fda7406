"""Every page of the built documentation site opened in a real browser (headless Chromium) at 1,280 px, as a reader
sees it (#45 item 5): no text is under 9 px, none is still Markdown outside code, no code block or table is cut on
the right (wider than its box: cut where the box hides the rest, and cut for a reader at page width where the box
scrolls, as Sphinx themes make ``pre`` do), every image loads, the page throws no uncaught error, and no notebook
cell shows a Jupyter magic (``%%bash``, ``%time``, ``!cmd``): the tutorials read as what a reader types.

The site is ``$GAMEMARKET_DOCS_SITE``, else ``docs/_build/html``; build it first (``python -m sphinx -W --keep-going
-b html docs docs/_build/html``; ``.ci/run`` runs this check after its docs build, naming the site). Skipped, saying
why, where no site is built, where the default site is older than a source of the docs (``docs/``, README.md: a
checkout's old build would fail on what has since been fixed), or where no Chromium is on PATH.

Pages left out, as Sphinx's generated boilerplate rather than pages written for a reader: ``genindex.html``,
``py-modindex.html`` and ``search.html`` (the index lists and the search form, the same on every Sphinx site),
``_modules/`` (sphinx.ext.viewcode's highlighted copies of the package's source, lines up to the 120 columns of
the code's own format: the readable form of the same is the API reference, which is checked) and ``_static/``
(the theme's assets).

All pages are opened one after another in one Chromium process (``browser_helpers.Chromium``), about 0.2 s each.
"""

import os
from pathlib import Path

import pytest

from browser_helpers import BROWSER, NO_BROWSER, Chromium

ROOT = Path(__file__).resolve().parents[1]
NAMED = os.environ.get("GAMEMARKET_DOCS_SITE")
SITE = Path(NAMED or ROOT / "docs" / "_build" / "html").resolve()
#: Sphinx's generated pages that are not part of the written documentation (see the module's docstring)
LEFT_OUT_PAGES = {"genindex.html", "py-modindex.html", "search.html"}
LEFT_OUT_FOLDERS = {"_modules", "_sources", "_static"}
PAGES = (
    sorted(
        p.relative_to(SITE).as_posix()
        for p in SITE.rglob("*.html")
        if p.relative_to(SITE).as_posix() not in LEFT_OUT_PAGES
        and not LEFT_OUT_FOLDERS & set(p.relative_to(SITE).parts)
    )
    if (SITE / "index.html").is_file()
    else []
)


def _stale() -> str | None:
    """The newest source of the docs where it is newer than every page of the default site, else None."""
    if NAMED or not PAGES:
        return None
    sources = [ROOT / "README.md"] + [
        p for p in (ROOT / "docs").rglob("*") if p.is_file() and not {"_build", "jupyter_execute"} & set(p.parts)
    ]
    newest = max(sources, key=lambda p: p.stat().st_mtime)
    built = max(p.stat().st_mtime for p in SITE.rglob("*.html"))
    return str(newest.relative_to(ROOT)) if newest.stat().st_mtime > built else None


STALE = _stale()
pytestmark = [
    pytest.mark.skipif(BROWSER is None, reason=NO_BROWSER),
    pytest.mark.skipif(
        not PAGES,
        reason=f"no docs site at {SITE}: build it (python -m sphinx -b html docs docs/_build/html) "
        "or name it by GAMEMARKET_DOCS_SITE",
    ),
    pytest.mark.skipif(
        STALE is not None,
        reason=f"the docs site at {SITE} is older than {STALE}: build it again, or name a site by GAMEMARKET_DOCS_SITE",
    ),
]


@pytest.fixture(scope="module")
def browser():
    with Chromium(width=1280, height=1000) as chromium:
        yield chromium


def test_the_site_has_its_pages():
    assert {"index.html", "tutorials/first-study.html", "reference/cli.html"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_a_docs_page_reads_at_page_width(page, browser):
    found = browser.check((SITE / page).as_uri())
    assert found["small"] == [], f"{page}: text under 9 px at 1,280 px: {found['small'][:5]}"
    assert found["markdown"] == [], f"{page}: Markdown shown as text: {found['markdown'][:5]}"
    cut = found["cut"] + found["scrolled"]
    assert cut == [], f"{page}: code or tables cut on the right at 1,280 px (tag, text, width, box): {cut[:5]}"
    assert [src for src, loaded in found["images"] if not loaded] == [], f"{page}: images that did not load"
    thrown = [c for c in found["console"] if c.startswith("exception:")]
    assert thrown == [], f"{page}: uncaught errors: {thrown}"
    assert found["magics"] == [], f"{page}: notebook magics shown in a cell: {found['magics'][:5]}"
