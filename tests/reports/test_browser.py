"""Each committed report's ``index.html`` opened in a real browser (headless Chromium) at 1,280 px: every image it
shows is a file of the report, referenced by a relative name, and loads; the page logs nothing to the console; no
text is under 9 px, none is still Markdown, no code block or table is cut on the right; a screenshot of it is kept
(``$GAMEMARKET_ARTIFACTS``, else pytest's temporary folder, ``artifacts/``).

Skipped, saying why, where no Chromium is installed (``.ci/run`` installs Debian's ``chromium`` where it can)."""

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from browser_helpers import BROWSER, HEADLESS, NO_BROWSER, PROBE

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted(p for p in (ROOT / "reports").iterdir() if (p / "index.html").exists())
pytestmark = pytest.mark.skipif(BROWSER is None, reason=NO_BROWSER)
# PROBE, added to a copy of the page, is shared with the docs' check (tests/test_docs_browser.py)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    folder = os.environ.get("GAMEMARKET_ARTIFACTS")
    out = Path(folder) if folder else tmp_path_factory.mktemp("artifacts")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _open(page: Path, screenshot: Path) -> tuple[str, str]:
    """(the DOM after load, the browser's log) of ``page``, its screenshot written to ``screenshot``."""
    argv = [
        BROWSER,
        *HEADLESS,
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=10000",  # lets the page (its images) finish loading before the dump
        "--window-size=1280,2400",
        f"--screenshot={screenshot}",
        "--dump-dom",
        page.as_uri(),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def test_there_are_reports_to_open():
    assert {p.name for p in REPORTS} >= {"default", "population-default"}


@pytest.mark.parametrize("report", REPORTS, ids=[p.name for p in REPORTS])
def test_a_committed_report_renders_in_a_browser(report, tmp_path, artifacts):
    page = (report / "index.html").read_text()
    sources = [html.unescape(s) for s in re.findall(r'<img src="([^"]+)"', page)]
    assert sources, f"{report.name}: no figure"
    for src in sources:  # each image a file of this report, named relative to it
        assert not re.match(r"[a-z]+:|/", src) and ".." not in src, f"{report.name}: {src} is not a relative name"
        assert (report / src).is_file(), f"{report.name}: {src} is referenced but not there"
        assert (report / src).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{report.name}: {src} is not a PNG"
    copy = tmp_path / report.name
    shutil.copytree(report, copy)
    (copy / "index.html").write_text(page.replace("</body>", PROBE + "</body>"))
    shot = artifacts / f"report-{report.name}.png"
    dom, log = _open(copy / "index.html", shot)
    found = re.search(r'data-images="([^"]*)"', dom)
    assert found, f"{report.name}: the page did not finish loading"
    images = json.loads(html.unescape(found.group(1)))
    assert [src for src, _ in images] == sources
    assert [src for src, loaded in images if not loaded] == [], f"{report.name}: images that did not load"
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    assert console == [], f"{report.name}: the page logged {console}"
    checks = json.loads(html.unescape(re.search(r'data-checks="([^"]*)"', dom).group(1)))
    assert checks["small"] == [], f"{report.name}: text under 9 px at 1,280 px: {checks['small'][:5]}"
    assert checks["markdown"] == [], f"{report.name}: Markdown shown as text: {checks['markdown'][:5]}"
    assert checks["cut"] == [], f"{report.name}: cut on the right at 1,280 px: {checks['cut'][:5]}"
    assert shot.is_file() and shot.stat().st_size > 10_000
