"""Download traces from the Parallel Workloads Archive and verify their SHA-256.

Traces are never committed to the project: users fetch them once into a cache folder
(``$GAMEMARKET_TRACES`` or ``~/.cache/gamemarket/traces``). A download lands in a temporary
file and is moved into place only when its checksum matches.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from gamemarket.errors import GameMarketError, InputError
from gamemarket.io.files import check_link, remove_stale_temps, temp_prefix

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


def fetch(
    name: str,
    *,
    dest: str | os.PathLike | None = None,
    url: str | None = None,
    timeout: float = 60.0,
    force: bool = False,
) -> Path:
    """Download a known trace (or ``url`` with the known trace's checksum) into ``dest``.

    An existing file with the right checksum is kept; a file of that name with another checksum is not
    gamemarket's download, and is replaced only with ``force``.
    """
    key = name[: -len(".swf.gz")] if name.endswith(".swf.gz") else name
    if key not in KNOWN_TRACES:
        raise InputError(f"unknown trace {name!r}; known: {sorted(KNOWN_TRACES)}")
    trace = KNOWN_TRACES[key]
    url = url or trace.url
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme not in URL_SCHEMES:
        raise InputError(f"--url {url!r}: expected an address of scheme {', '.join(URL_SCHEMES)}")
    try:  # parsed before any folder is made ('http://[::1' was urllib's ValueError, a traceback)
        parts = urllib.parse.urlsplit(url)
        _ = parts.port
    except ValueError as exc:
        raise InputError(f"--url {url!r}: not an address ({exc})") from None
    if scheme != "file" and not parts.hostname:
        raise InputError(f"--url {url!r}: not an address (it names no host)")
    dest_dir = Path(dest) if dest is not None else cache_dir()
    if dest_dir.exists() and not dest_dir.is_dir():
        raise InputError(f"--dest {dest_dir}: is a file; expected a folder")
    made = [q for q in (dest_dir, *dest_dir.parents) if not q.exists()]  # removed again if the download fails
    try:
        dest_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--dest {dest_dir}: cannot create the folder: {exc.strerror or exc}") from None
    try:
        return _fetch_into(dest_dir, trace, url, timeout, force)
    except BaseException:
        for q in made:  # deepest first: a folder this download made holds nothing of it now
            try:
                q.rmdir()
            except OSError:
                break
        raise


def _fetch_into(dest_dir: Path, trace: Trace, url: str, timeout: float, force: bool) -> Path:
    """:func:`fetch` into an existing folder."""
    target = dest_dir / Path(trace.url).name
    if target.exists():
        try:
            verify(target, trace.sha256)
            return target
        except ChecksumError as exc:
            if not force:
                raise InputError(
                    f"{exc}: not the catalogued trace; pass --force to replace it with a download"
                ) from None
    remove_stale_temps(dest_dir)  # what a killed download left
    fd, tmp = tempfile.mkstemp(dir=dest_dir, prefix=temp_prefix(target), suffix=".tmp")
    try:
        # the scheme is one of URL_SCHEMES (checked above), and the content is accepted only with its SHA-256
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:  # nosec B310
            _copy_bounded(resp, out, trace, url)
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


def _copy_bounded(resp, out, trace: Trace, url: str, chunk: int = 1 << 20) -> None:
    """Copy a download, reading no more than the catalogued trace's size (``/dev/zero`` never ends)."""
    done = 0
    while True:
        block = resp.read(chunk)
        if not block:
            return
        done += len(block)
        if trace.size is not None and done > trace.size:
            raise ChecksumError(
                f"{url}: the download passes {trace.size:,} bytes, the catalogued {trace.name}'s size; not it "
                "(stopped there)"
            )
        out.write(block)


def search_dirs() -> list[Path]:
    """Where known traces are looked for: the cache, then a ``shared/workloads`` beside the project."""
    return [
        cache_dir(),
        Path.cwd().parent / "shared" / "workloads",
        Path(__file__).resolve().parents[2].parent / "shared" / "workloads",
    ]


def resolve(path_or_name: str) -> Path:
    """A trace path as given, or a known trace's local copy (see ``search_dirs``); never downloads."""
    p = Path(path_or_name)
    if p.is_dir():
        raise InputError(f"{path_or_name}: is a folder; expected an SWF file (plain or gzip) or a known trace name")
    if p.exists():
        return p
    check_link(p, "workload file (SWF)")
    key = path_or_name[: -len(".swf.gz")] if path_or_name.endswith(".swf.gz") else path_or_name
    for base in search_dirs():
        if key in KNOWN_TRACES:
            cand = base / Path(KNOWN_TRACES[key].url).name
            if cand.exists():
                return cand
    env = os.environ.get("GAMEMARKET_TRACES", "").strip()
    looked = (
        f"; GAMEMARKET_TRACES={env!r} is not a folder"
        if env and not Path(env).is_dir()
        else f"; looked in {', '.join(str(b) for b in search_dirs())}"
        if key in KNOWN_TRACES
        else ""
    )
    raise InputError(
        f"{path_or_name}: no such workload file (and no cached copy of a known trace{looked}; "
        f"run `gamemarket workload fetch NAME`)"
    )
