"""Download traces from the Parallel Workloads Archive and verify their SHA-256.

Traces are never committed to the project: users fetch them once into a cache folder
(``$GAMEMARKET_TRACES`` or ``~/.cache/gamemarket/traces``). A download lands in a temporary
file and is moved into place only when its checksum matches.
"""

from __future__ import annotations

import hashlib
import http.client
import math
import os
import secrets
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from gamemarket.errors import GameMarketError, InputError, shown_name
from gamemarket.io.files import check_link, no_such, remove_stale_temps, shown_path, special_kind, temp_prefix

PWA = "https://www.cs.huji.ac.il/labs/parallel/workload"


@dataclass(frozen=True)
class Trace:
    """A known trace of the Parallel Workloads Archive: its name, download address, SHA-256 and a note."""

    name: str
    url: str
    sha256: str
    note: str = ""
    size: int | None = None  #: its bytes: a download is read no further (a wrong address may never end)


KNOWN_TRACES = {
    t.name: t
    for t in [
        Trace(
            "LPC-EGEE-2004-1.2-cln",
            f"{PWA}/l_lpc/LPC-EGEE-2004-1.2-cln.swf.gz",
            "2fc37df5cc14c355fc7a88235f72e54fdf5f0d93de09399d015383ee5c35a59d",
            "LPC EGEE cluster, Aug 2004 - May 2005, 140 processors; data: Emmanuel Medernach",
            size=2_718_006,
        ),
        Trace(
            "SDSC-Par-1996-3.1-cln",
            f"{PWA}/l_sdsc_par/SDSC-Par-1996-3.1-cln.swf.gz",
            "cb1aab02b5e3c34659d1c1d6f73c002d415229c59f40c03fab4e20331abdaff7",
            "SDSC Intel Paragon, Dec 1995 - Dec 1996, 400 nodes, congested (offered load about 0.75); "
            "data: Reagan Moore and Allen Downey",
            size=497_990,
        ),
    ]
}


class ChecksumError(GameMarketError):
    """A downloaded or cached trace whose SHA-256 is not the catalogued one."""

    pass


def cache_dir() -> Path:
    """Where traces are looked up and downloaded: ``$GAMEMARKET_TRACES``, else ``~/.cache/gamemarket/traces``."""
    # an empty value is unset, as every GAMEMARKET_* variable's (Path("") is the working folder: hunt 8's `workload
    # fetch` downloaded there without a word)
    env = os.environ.get("GAMEMARKET_TRACES", "").strip()
    return Path(env) if env else Path.home() / ".cache" / "gamemarket" / "traces"


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """The SHA-256 of a file, read in chunks of ``chunk`` bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def verify(path: str | os.PathLike, expected: str) -> str:
    """Raise ``ChecksumError`` unless the file's SHA-256 is ``expected``; return the digest."""
    got = sha256_file(path)
    if got != expected.lower():
        raise ChecksumError(f"{path}: SHA-256 is {got}, expected {expected}")
    return got


#: the address schemes a download may use (a local mirror is a file: address); the checksum is enforced on all
URL_SCHEMES = ("https", "http", "ftp", "file")

#: the slowest a download may be, in bytes a second: a download stops once it has run :data:`DOWNLOAD_GRACE_S` plus
#: its catalogued size at this rate (hunt 18a: a server that sent one byte a second held the command for days, the
#: socket's timeout bounding each read, not the whole)
DOWNLOAD_MIN_RATE = 20_000
#: the seconds every download may take on top of its size at :data:`DOWNLOAD_MIN_RATE` (connecting, a slow start)
DOWNLOAD_GRACE_S = 120.0
#: the most a download of a trace whose size is not catalogued may take, in seconds
DOWNLOAD_UNSIZED_S = 3600.0
#: the bytes read at a time: one system call's worth at most (``read1``), so the deadline is looked at between reads
READ_BLOCK = 1 << 16


def download_deadline(trace: Trace) -> float:
    """The seconds a download of ``trace`` may take, all of it (connection, headers, body).

    It scales with the catalogued size (:data:`DOWNLOAD_GRACE_S` plus the size at :data:`DOWNLOAD_MIN_RATE`), so a
    big trace on a slow link still arrives while a server that drips bytes is stopped: about 4 minutes for the
    2.7 MB LPC trace, 2 for the 0.5 MB SDSC one.
    """
    if trace.size is None:
        return DOWNLOAD_UNSIZED_S
    return DOWNLOAD_GRACE_S + trace.size / DOWNLOAD_MIN_RATE


def fetch(
    name: str,
    *,
    dest: str | os.PathLike | None = None,
    url: str | None = None,
    timeout: float = 60.0,
    force: bool = False,
    deadline: float | None = None,
) -> Path:
    """Download a known trace (or ``url`` with the known trace's checksum) into ``dest``.

    An existing file with the right checksum is kept; a file of that name with another checksum is not
    gamemarket's download, and is replaced only with ``force``. A folder, a pipe, a device or a socket of that
    name is never replaced (``force`` or not): opening a pipe to check it would wait for a writer for good, and
    replacing one would destroy what another program uses.

    Parameters
    ----------
    timeout
        Seconds one read from the server may wait.
    deadline
        Seconds the whole download may take; default :func:`download_deadline` (a per-read timeout alone lets a
        server that sends a byte a second hold the command for days).
    """
    key = name[: -len(".swf.gz")] if name.endswith(".swf.gz") else name
    if key not in KNOWN_TRACES:
        raise InputError(f"unknown trace {shown_name(name)}; known: {sorted(KNOWN_TRACES)}")
    trace = KNOWN_TRACES[key]
    if deadline is None:
        deadline = download_deadline(trace)
    elif isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not 0 < deadline < math.inf:
        raise InputError(f"fetch: deadline must be a positive number of seconds, got {deadline!r}")
    url = url or trace.url
    _check_url(url)
    dest_dir = Path(dest) if dest is not None else cache_dir()
    if dest_dir.exists() and not dest_dir.is_dir():
        kind = special_kind(dest_dir) or "a file"
        raise InputError(f"--dest {shown_path(dest_dir)}: is {kind}; expected a folder")
    made = [q for q in (dest_dir, *dest_dir.parents) if not q.exists()]  # removed again if the download fails
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--dest {dest_dir}: cannot create the folder: {exc.strerror or exc}") from None
    try:
        return _fetch_into(dest_dir, trace, _Download(url, trace, timeout, deadline), force)
    except BaseException:
        for q in made:  # deepest first: a folder this download made holds nothing of it now
            try:
                q.rmdir()
            except OSError:
                break
        raise


def _check_url(url: str) -> None:
    """A download address of one of :data:`URL_SCHEMES` that parses, or an :class:`InputError` naming it, before
    any folder is made ('http://[::1' was urllib's ValueError, a traceback)."""
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in URL_SCHEMES:
        raise InputError(f"--url {url!r}: expected an address of scheme {', '.join(URL_SCHEMES)}")
    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port
    except ValueError as exc:
        raise InputError(f"--url {url!r}: not an address ({exc})") from None
    if scheme != "file" and not parts.hostname:
        raise InputError(f"--url {url!r}: not an address (it names no host)")


def check_trace_file(path: Path, trace: Trace, hint: str) -> None:
    """Refuse a folder, a pipe, a device or a socket where ``trace``'s file belongs, naming it.

    Hashing or opening a pipe waits for a writer for good (hunt 18a: a FIFO in ``--dest`` or in
    ``$GAMEMARKET_TRACES`` hung ``workload fetch`` and ``workload info NAME``), a device never ends, and replacing
    any of them would destroy what another program uses; ``hint`` says what to do instead.
    """
    kind = "a folder" if path.is_dir() else special_kind(path)
    if kind is not None:
        raise InputError(
            f"{shown_path(path)}: is {kind}, not a regular file; expected the known trace {trace.name}'s copy "
            f"(a .swf.gz file): {hint}"
        )


def _fetch_into(dest_dir: Path, trace: Trace, download: _Download, force: bool) -> Path:
    """:func:`fetch` into an existing folder: the download lands in a temporary file moved into place only once
    complete and of the catalogued checksum."""
    target = dest_dir / Path(trace.url).name
    check_trace_file(target, trace, "move it away (--force never replaces one)")
    if target.exists():
        try:
            verify(target, trace.sha256)
            return target
        except ChecksumError as exc:
            if not force:
                raise InputError(
                    f"{exc}: not the catalogued trace; pass --force to replace it with a download"
                ) from None
        except OSError as exc:
            raise InputError(f"{shown_path(target)}: cannot read: {exc.strerror or exc}") from None
    remove_stale_temps(dest_dir)  # what a killed download left
    fd, tmp = _new_temp(target)
    url = download.url
    try:
        with os.fdopen(fd, "wb") as out:
            download.into(out)
        try:
            verify(tmp, trace.sha256)
        except ChecksumError as exc:  # named by the address it came from: the temporary file is gone below
            got = str(exc).split("SHA-256 is ", 1)[-1]
            raise ChecksumError(f"{url}: SHA-256 of the download is {got}; not the catalogued {trace.name}") from None
        os.replace(tmp, target)
    except OSError as exc:
        raise GameMarketError(f"cannot download {url}: {exc}") from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def _new_temp(target: Path) -> tuple[int, str]:
    """A new temporary file beside ``target`` (a name :func:`remove_stale_temps` knows), opened for writing.

    Made with mode 0666 less the umask, as every other output is (``open``'s, through :func:`atomic_path`):
    ``mkstemp``'s 0600 left a downloaded trace unreadable to the group that shares the cache (hunt 18a).
    """
    for _ in range(100):
        tmp = str(target.with_name(f"{temp_prefix(target)}{secrets.token_hex(6)}.tmp"))
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
    raise GameMarketError(f"{target.parent}: no free temporary file name for the download")  # pragma: no cover


class _Download:
    """One download of a trace from ``url`` into a file, bounded in bytes (the catalogued size) and in time
    (``deadline`` seconds for the whole, connection and headers included), whose failures are one line each.

    A watchdog timer shuts the connection's socket down at the deadline, so a read blocked on a server that drips
    (a byte a second, each within the per-read ``timeout``) returns at once; a reply that is not HTTP (a bad
    status line, a header too long or too many, a broken chunked body) is an error naming the address, not
    ``http.client``'s traceback.
    """

    def __init__(self, url: str, trace: Trace, timeout: float, deadline: float):
        self.url, self.trace, self.timeout, self.deadline = url, trace, timeout, deadline
        self.done = 0  # bytes received so far
        self.expected: int | None = trace.size  # the server's Content-Length once known, else the catalogued size
        self.said = f"the catalogued {trace.name}'s size"
        self.fired = False
        self._socks: list = []
        self._end = 0.0

    def into(self, out) -> None:
        """Download into the open binary file ``out``; every failure is a :class:`GameMarketError` (or an
        ``OSError`` of the connection, which the caller names)."""
        self._end = time.monotonic() + self.deadline
        timer = threading.Timer(self.deadline, self._abort)
        timer.daemon = True
        timer.start()
        try:
            # the scheme is one of URL_SCHEMES (checked), and the content is accepted only with its SHA-256
            with self._opener().open(self.url, timeout=min(self.timeout, self.deadline)) as resp:  # nosec B310
                self._declared(resp)
                self._copy(resp, out)
        except GameMarketError:
            raise
        except OSError:  # (first: a server that closes without a reply is a connection's failure, not bad HTTP)
            if self.fired:
                raise self._late() from None
            raise
        except (http.client.HTTPException, ValueError) as exc:  # ValueError: a chunk size that is no number
            raise self._late() or self._not_http(exc) from None
        finally:
            timer.cancel()
        if self.fired:  # the shut socket read as the reply's end
            raise self._late()
        if self.expected is not None and self.done < self.expected:
            raise GameMarketError(
                f"{self.url}: the download is incomplete: got {self.done:,} of {self.expected:,} bytes ({self.said}) "
                "before the server closed the connection; nothing was kept: try again"
            )

    def _opener(self):
        """An opener whose HTTP(S) connections hand their socket to the watchdog (redirects' included)."""
        watch = self._watch

        def watched(cls):
            class Watched(cls):  # an http.client connection whose socket the watchdog may shut
                def connect(self):
                    super().connect()
                    watch(self.sock)

            return Watched

        class HTTP(urllib.request.HTTPHandler):
            def do_open(self, http_class, req, **kw):
                return super().do_open(watched(http_class), req, **kw)

        handlers = [HTTP()]
        if hasattr(urllib.request, "HTTPSHandler"):

            class HTTPS(urllib.request.HTTPSHandler):
                def do_open(self, http_class, req, **kw):
                    return super().do_open(watched(http_class), req, **kw)

            handlers.append(HTTPS())
        return urllib.request.build_opener(*handlers)

    def _watch(self, sock) -> None:
        """Hand a connection's socket to the watchdog; one connected after the deadline is shut at once."""
        self._socks.append(sock)
        if self.fired:
            self._abort()

    def _abort(self) -> None:
        """The deadline passed: shut every socket of the download, so its blocked read returns."""
        self.fired = True
        for sock in list(self._socks):
            try:
                sock.shutdown(2)  # socket.SHUT_RDWR
            except OSError:
                pass

    def _declared(self, resp) -> None:
        """Take the reply's Content-Length as the bytes expected, where it is a whole number (``-5`` is none)."""
        text = (resp.headers.get("Content-Length") or "").strip()
        if text.isdigit():
            self.expected, self.said = int(text), "the server's Content-Length"

    def _copy(self, resp, out) -> None:
        """Copy the reply, reading no more than the catalogued trace's size (``/dev/zero`` never ends) and
        stopping at the deadline."""
        size = self.trace.size
        read = getattr(resp, "read1", resp.read)  # one system call at a time: the deadline is looked at between
        while block := read(READ_BLOCK):
            self.done += len(block)
            if size is not None and self.done > size:
                raise ChecksumError(
                    f"{self.url}: the download passes {size:,} bytes, the catalogued {self.trace.name}'s size; not "
                    "it (stopped there)"
                )
            out.write(block)
            if time.monotonic() > self._end:
                self.fired = True
                raise self._late()

    def _late(self) -> GameMarketError | None:
        """The error of a download stopped at its deadline (None where it was not)."""
        if not self.fired:
            return None
        of = f" of {self.expected:,}" if self.expected is not None else ""
        return GameMarketError(
            f"{self.url}: the download took longer than {self.deadline:g} s, the most it may (got {self.done:,}{of} "
            f"bytes; at least {DOWNLOAD_MIN_RATE:,} bytes a second after {DOWNLOAD_GRACE_S:g} s); stopped, nothing "
            "was kept: try again, or another --url"
        )

    def _not_http(self, exc: Exception) -> GameMarketError:
        """The error of a reply ``http.client`` cannot read, with its reason (a cut chunked body: how far it got)."""
        text = str(exc)
        text = text if len(text) <= 200 else text[:200] + "..."
        name = type(exc).__name__
        reason = text if text.startswith(name) else f"{name}: {text}" if text else name
        cut = ""
        if isinstance(exc, http.client.IncompleteRead):
            of = f" of {self.expected:,}" if self.expected is not None else ""
            cut = f"; the download is incomplete (got {self.done + len(exc.partial):,}{of} bytes)"
        return GameMarketError(
            f"{self.url}: the server's reply is not valid HTTP ({shown_path(reason)}){cut}; nothing was kept"
        )


def search_dirs() -> list[Path]:
    """Where known traces are looked for: the cache, then a ``shared/workloads`` beside the project."""
    return [
        cache_dir(),
        Path.cwd().parent / "shared" / "workloads",
        Path(__file__).resolve().parents[2].parent / "shared" / "workloads",
    ]


#: the copies of known traces found to hold the catalogued SHA-256 (:func:`checked_copy`), by (path, device, inode,
#: size, modification time): a 100 MB trace is hashed once per process, not at each name's resolution
_VERIFIED: set[tuple] = set()


def checked_copy(path: Path, trace: Trace) -> Path:
    """``path``, a copy of the known ``trace`` found by its name, once it holds the catalogued SHA-256.

    A copy found by name is read as that trace (its results stored and reported under the name), so it must be
    it: a cut or changed copy (hunt 18a: the first 2,000 lines, gzipped, in ``$GAMEMARKET_TRACES``) is refused,
    naming its hash and the catalogued one and how to download it again. A file given by its path is the user's
    own and is read as it is. Hashing a 100 MB trace takes a moment: the verdict is kept for the process while
    the file's size and modification time stay.
    """
    again = f"`gamemarket workload fetch {trace.name}" + (
        "" if path.parent == cache_dir() else f" --dest {shown_path(path.parent)}"
    )
    check_trace_file(path, trace, f"move it away and run {again}`")
    try:
        st = path.stat()
        key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if key in _VERIFIED:
            return path
        got = sha256_file(path)
    except OSError as exc:
        raise InputError(
            f"{shown_path(path)}: cannot read the known trace {trace.name}: {exc.strerror or exc}"
        ) from None
    if got != trace.sha256.lower():
        raise InputError(
            f"{shown_path(path)}: SHA-256 is {got}, expected {trace.sha256}: not the catalogued {trace.name} (a cut "
            f"or changed copy); download it again with {again} --force`"
        )
    _VERIFIED.add(key)
    return path


def _other_forms(name: str) -> list[str]:
    """Other names a user gives a known trace's file: gunzipped (``X.swf`` for ``X.swf.gz``), or without ``.swf``."""
    stem = name[: -len(".gz")] if name.endswith(".gz") else name
    return [f for f in dict.fromkeys([stem, stem[: -len(".swf")] if stem.endswith(".swf") else stem]) if f != name]


def named_copy(path: Path, name: str) -> Path:
    """``path``, a file found under the name ``name`` as given (in the working folder, or beside a study file): where
    ``name`` is a known trace's name itself (not a file name such as ``NAME.swf.gz``), the file must be that trace
    (:func:`checked_copy`), and a refusal says how to read one's own file of that name (``./NAME``); else ``path`` as
    it is (hunt 21b-W2: a cut copy named like the catalogued trace was read, and reported, as it)."""
    if name not in KNOWN_TRACES:  # (a file name, ``T.swf.gz``, is a path: the user's own file, read as it is)
        return path
    try:
        return checked_copy(path, KNOWN_TRACES[name])
    except InputError as exc:
        raise InputError(f"{exc} (to read your own file of that name, give it as ./{name})") from None


def resolve(path_or_name: str) -> Path:
    """A trace path as given, or a known trace's local copy (see ``search_dirs``), checked (:func:`checked_copy`);
    never downloads."""
    p = Path(path_or_name)
    key = path_or_name[: -len(".swf.gz")] if path_or_name.endswith(".swf.gz") else path_or_name
    # a folder named as a known trace is passed over for the trace, as one named NAME.swf.gz is (hunt 23b-W1: it
    # made the known name unusable, "expected ... a known trace name", which was given)
    if p.is_dir() and path_or_name not in KNOWN_TRACES:
        raise InputError(f"{path_or_name}: is a folder; expected an SWF file (plain or gzip) or a known trace name")
    if p.exists() and not p.is_dir():
        return named_copy(p, path_or_name) if p.name == path_or_name else p
    check_link(p, "workload file (SWF)")
    if key in KNOWN_TRACES:
        for base in search_dirs():
            cand = base / Path(KNOWN_TRACES[key].url).name
            if cand.exists():
                return checked_copy(cand, KNOWN_TRACES[key])
    if key in KNOWN_TRACES:  # a copy under another form of the name (gunzipped: hunt 21b-W8) is found, and not used
        name = Path(KNOWN_TRACES[key].url).name
        other = [base / alt for base in search_dirs() for alt in _other_forms(name) if (base / alt).exists()]
        if other:
            raise InputError(
                f"{path_or_name}: the known trace's file is {name} (compressed as catalogued, its SHA-256 checked); "
                f"found {shown_path(other[0])}, another form of it, which is not checked against the catalogue: "
                f"compress it back (gzip -k), give it by its path, or run `gamemarket workload fetch {key}`"
            )
    env = os.environ.get("GAMEMARKET_TRACES", "").strip()
    looked = (
        f"; GAMEMARKET_TRACES={env!r} is not a folder"
        if env and not Path(env).is_dir()
        else f"; looked in {', '.join(str(b) for b in search_dirs())}"
        if key in KNOWN_TRACES
        else ""
    )
    if str(path_or_name) == "-":  # (no known trace is named -)
        raise InputError(no_such(path_or_name, "workload file"))
    raise InputError(
        f"{no_such(path_or_name, 'workload file')} (and no cached copy of a known trace{looked}; "
        f"run `gamemarket workload fetch NAME`)"
    )
