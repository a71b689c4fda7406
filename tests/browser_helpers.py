"""Headless Chromium for the browser checks (``tests/reports/test_browser.py``, the reports;
``tests/test_docs_browser.py``, the documentation site): where Chromium is, the probe that measures a page after
it has loaded, and a session that opens many pages in one Chromium process.

The session speaks Chromium's DevTools protocol over a pipe (``--remote-debugging-pipe``: JSON messages, each ended
by a NUL byte, read by Chromium from file descriptor 3 and written to 4), so it needs nothing beyond the standard
library; starting one Chromium per page costs about a second, which over the docs' ~180 pages is minutes.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
NO_BROWSER = "no chromium on PATH (Debian: apt-get install chromium); the browser check needs one"
#: how every check starts Chromium (each adds how it talks to it and the window's size)
HEADLESS = [
    "--headless",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    "--hide-scrollbars",
]

#: a JavaScript expression whose value is what the checks read of a loaded page:
#:
#: - ``images``: each image's reference and whether it loaded;
#: - ``small``: text shown smaller than 9 px;
#: - ``markdown``: text that is still Markdown (``*yes*``, ``**bold**``, a backquoted name) outside code;
#: - ``cut``: code blocks and tables cut on the right: wider than their box with its overflow hidden, or reaching
#:   past the window;
#: - ``scrolled``: code blocks and tables that do not fit their box at the window's width, even where the box
#:   scrolls (``overflow: auto``, as Sphinx themes give ``pre``): a reader at page width sees them cut as well;
#: - ``magics``: lines of a notebook cell's input (myst-nb's ``.cell_input``) that are Jupyter magics or shell
#:   escapes (``%%bash``, ``%time``, ``!ls``), which a tutorial should not show.
CHECKS = r"""(() => {
  const b = document.body;
  const images = [...document.images].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]);
  const small = [], markdown = [], cut = [], scrolled = [], magics = [];
  const walk = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const t = n.textContent.trim(), e = n.parentElement;
    if (!t || !e || e.closest('script, style')) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < 9 && e.getClientRects().length) small.push([t.slice(0, 40), size]);
    if (!e.closest('pre, code') && /(^|\s)(\*\*?[^*\s][^*]*\*\*?|`[^`]+`)(\s|[.,;:]|$)/.test(t))
      markdown.push(t.slice(0, 60));
  }
  for (const e of document.querySelectorAll('pre, table')) {
    if (!e.getClientRects().length) continue;
    const r = e.getBoundingClientRect(), what = [e.tagName, e.textContent.trim().slice(0, 40)];
    const hidden = getComputedStyle(e).overflowX === 'hidden' && e.scrollWidth > e.clientWidth + 1;
    if (hidden || r.right > window.innerWidth + 1) cut.push(what);
    let over = getComputedStyle(e).overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1;
    for (let a = e.parentElement; !over && a && a !== b; a = a.parentElement) {
      const box = a.getBoundingClientRect();
      over = getComputedStyle(a).overflowX !== 'visible' && r.right > box.left + a.clientLeft + a.clientWidth + 1;
    }
    if (over) scrolled.push([...what, Math.round(e.scrollWidth), Math.round(e.clientWidth)]);
  }
  for (const e of document.querySelectorAll('.cell_input pre'))
    for (const line of e.textContent.split('\n'))
      if (/^\s*(%%?[A-Za-z]|!\S)/.test(line)) magics.push(line.trim().slice(0, 60));
  return {images, small, markdown, cut, scrolled, magics};
})()"""

#: added to a copy of a page (before ``</body>``): on load, the probe's findings as attributes of ``<body>``
#: (``data-images``, and the rest as ``data-checks``), for ``--dump-dom`` to show
PROBE = (
    "<script>window.addEventListener('load', () => {\n  const c = "
    + CHECKS
    + ";\n  document.body.setAttribute('data-images', JSON.stringify(c.images));\n  delete c.images;\n"
    + "  document.body.setAttribute('data-checks', JSON.stringify(c));\n});</script>"
)


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more (closing the old one), clear of the 3 and 4 the pipe is given."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


#: the DevTools events in which a page says something
_SAID = ("Runtime.consoleAPICalled", "Log.entryAdded", "Runtime.exceptionThrown")


def _said(event: dict) -> str:
    """One of the ``_SAID`` events as ``"KIND: text"``."""
    p = event["params"]
    if event["method"] == "Runtime.consoleAPICalled":
        return f"console.{p['type']}: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
    if event["method"] == "Log.entryAdded":
        return f"log.{p['entry']['level']}: {p['entry']['text']}"
    details = p["exceptionDetails"]
    return "exception: " + details.get("exception", {}).get("description", details.get("text", ""))


class Chromium:
    """One headless Chromium process and one tab in it, at ``width`` x ``height`` CSS pixels, opening pages one
    after another: ``check(url)`` loads a page and returns the probe's findings with the console's messages.

    Use it as a context manager; the process ends with the ``with`` block."""

    def __init__(self, width: int = 1280, height: int = 1000, timeout: float = 60):
        self.timeout = timeout
        to_chromium_r, self._to_chromium = map(_high, os.pipe())
        self._from_chromium, from_chromium_w = map(_high, os.pipe())

        def give_pipe():  # in the child, before exec: the pipe's ends at 3 and 4, kept across exec
            os.dup2(to_chromium_r, 3)
            os.dup2(from_chromium_w, 4)

        argv = [
            BROWSER,
            *HEADLESS,
            "--remote-debugging-pipe",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,  # the pipe's ends at 3 and 4 (inheritable); the rest are close-on-exec
            preexec_fn=give_pipe,
        )
        os.close(to_chromium_r)
        os.close(from_chromium_w)
        self._buffer, self._next_id, self.events = b"", 0, []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            self._call(method, session=True)
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
        self._call("Emulation.setDeviceMetricsOverride", metrics, session=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self._send({"id": 0, "method": "Browser.close"})
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        for fd in (self._to_chromium, self._from_chromium):
            try:
                os.close(fd)
            except OSError:
                pass

    def _send(self, message: dict) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_chromium, data) :]

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chromium], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_chromium, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium ended (exit status {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _call(self, method: str, params: dict | None = None, session: bool = False) -> dict:
        """Send a command and wait for its answer, keeping the events that arrive meanwhile."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def _wait_for(self, method: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._receive(deadline))

    def check(self, url: str) -> dict:
        """Open ``url``, wait for its load event and its fonts, and return the probe's findings (``CHECKS``), with
        ``console``: what the page said, each ``"KIND: text"``: a console call (``console.error: ...``), a log
        entry of the browser (``log.warning: ...``) or an uncaught exception (``exception: ...``)."""
        self.events = []
        self._call("Page.navigate", {"url": url}, session=True)
        self._wait_for("Page.loadEventFired")
        self._call("Runtime.evaluate", {"expression": "document.fonts.ready", "awaitPromise": True}, session=True)
        found = self._call(
            "Runtime.evaluate", {"expression": CHECKS, "returnByValue": True, "awaitPromise": True}, session=True
        )
        if "exceptionDetails" in found:
            raise RuntimeError(f"the probe failed on {url}: {found['exceptionDetails']}")
        result = found["result"]["value"]
        result["console"] = [_said(e) for e in self.events if e.get("method") in _SAID]
        return result

    def screenshot(self, path) -> None:
        """The tab as it is now, at its window size, written to ``path`` as PNG."""
        import base64

        shot = self._call("Page.captureScreenshot", {"format": "png"}, session=True)
        with open(path, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
