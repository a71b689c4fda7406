"""Hunt 18a: ``gamemarket workload fetch`` against servers that answer badly or slowly, special files where a trace
belongs (in ``--dest`` and in ``$GAMEMARKET_TRACES``), the download's file mode, a download cut short, and a known
trace's cached copy read by name without its checksum.

Every server here is a raw socket in a thread of the test, on a free port: the replies are exactly the bytes a
broken server sends, which no HTTP server library would send."""

from __future__ import annotations

import gzip
import hashlib
import os
import socket
import stat
import threading
import time
from pathlib import Path

import pytest

from gamemarket.cli import main
from gamemarket.errors import GameMarketError, InputError
from gamemarket.workloads import archive

PAYLOAD = b"; a tiny trace\n" + b"1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n" * 40
SHA = hashlib.sha256(PAYLOAD).hexdigest()


def _err(capsys) -> str:
    """The command's standard error: one line, no traceback."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


class RawServer:
    """A TCP server on 127.0.0.1 that answers each connection by ``reply(conn)`` once it has read the request."""

    def __init__(self, reply):
        self.reply = reply
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def url(self, name: str = "T.swf.gz") -> str:
        return f"http://127.0.0.1:{self.port}/{name}"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                request = b""
                try:
                    while b"\r\n\r\n" not in request and (part := conn.recv(4096)):
                        request += part
                    self.reply(conn, self.stop)
                except OSError:  # the client went away (a deadline passed, an error was found)
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def serve():
    servers = []

    def start(reply):
        if isinstance(reply, bytes):
            data = reply

            def reply(conn, stop):
                conn.sendall(data)

        servers.append(RawServer(reply))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def trace_t(monkeypatch):
    """A catalogued trace "T" of :data:`PAYLOAD`'s checksum and size."""
    trace = archive.Trace("T", "https://example.invalid/T.swf.gz", SHA, size=len(PAYLOAD))
    monkeypatch.setitem(archive.KNOWN_TRACES, "T", trace)
    return trace


def _left(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# --- F1: a reply that is not HTTP is one line naming the address, and nothing is left ------------------------------

BAD_REPLIES = {
    "chunk size ZZZ": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n",
    "cut mid-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nabcdef",
    "not HTTP": b"\xff\xfe garbage\r\n\r\n",
    "status abc": b"HTTP/1.1 abc OK\r\n\r\n",
    "200 kB header": b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n",
    "500 headers": b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(500)) + b"\r\n",
}


@pytest.mark.parametrize("case", sorted(BAD_REPLIES))
def test_a_reply_that_is_not_http_is_named_and_nothing_is_left(tmp_path, capsys, serve, trace_t, case):
    """Before: http.client's IncompleteRead, BadStatusLine, LineTooLong, HTTPException or a ValueError, a traceback
    and exit 1 (``_fetch_into`` caught OSError only)."""
    server = serve(BAD_REPLIES[case])
    dest = tmp_path / "a" / "b"
    assert main(["workload", "fetch", "T", "--url", server.url(), "--dest", str(dest)]) == 2
    err = _err(capsys)
    assert f"gamemarket: error: {server.url()}: the server's reply is not valid HTTP (" in err
    if case == "cut mid-chunk":
        assert "the download is incomplete (got 6 of" in err
    assert _left(tmp_path) == []  # no made folder, no temporary file


def test_a_good_reply_over_http_is_fetched(tmp_path, capsys, serve, trace_t):
    """The opener that watches the connection still downloads (the control of the cases above)."""
    server = serve(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(PAYLOAD) + PAYLOAD)
    assert main(["workload", "fetch", "T", "--url", server.url(), "--dest", str(tmp_path)]) == 0
    assert (tmp_path / "T.swf.gz").read_bytes() == PAYLOAD
    assert _left(tmp_path) == ["T.swf.gz"]


# --- F2: a server that drips is stopped at a deadline for the whole download --------------------------------------


def _drip_body(conn, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 497990\r\n\r\n")
    while not stop.is_set():
        conn.sendall(b"x")
        time.sleep(0.05)


def _drip_status(conn, stop):
    for byte in b"HTTP/1.1 200 OK\r\n" + b"X: " + b"a" * 10_000:
        if stop.is_set():
            return
        conn.sendall(bytes([byte]))
        time.sleep(0.05)


@pytest.mark.parametrize("reply", [_drip_body, _drip_status], ids=["body", "headers"])
def test_a_dripping_server_is_stopped_at_the_deadline(tmp_path, serve, trace_t, reply):
    """Before: Content-Length 497990 then a byte a second held the command for days (the 60 s timeout bounds each
    read, not the download). Each read here comes within the per-read timeout: only the deadline stops it."""
    server = serve(reply)
    dest = tmp_path / "d"
    began = time.monotonic()
    with pytest.raises(GameMarketError, match=rf"^{server.url()}: the download took longer than 1 s, the most it may"):
        archive.fetch("T", url=server.url(), dest=dest, timeout=30, deadline=1.0)
    assert time.monotonic() - began < 10
    assert _left(tmp_path) == []


def test_the_cli_deadline_is_the_module_bound(tmp_path, capsys, serve, trace_t, monkeypatch):
    """The command takes the bound of :func:`archive.download_deadline` (grace plus the size at the least rate)."""
    monkeypatch.setattr(archive, "DOWNLOAD_GRACE_S", 0.5)
    monkeypatch.setattr(archive, "DOWNLOAD_MIN_RATE", len(PAYLOAD) * 2)
    assert archive.download_deadline(trace_t) == pytest.approx(1.0)
    server = serve(_drip_body)
    assert main(["workload", "fetch", "T", "--url", server.url(), "--dest", str(tmp_path / "d")]) == 2
    assert f"{server.url()}: the download took longer than 1 s" in _err(capsys)
    assert _left(tmp_path) == []


def test_the_deadline_scales_with_the_catalogued_size():
    lpc, sdsc = archive.KNOWN_TRACES["LPC-EGEE-2004-1.2-cln"], archive.KNOWN_TRACES["SDSC-Par-1996-3.1-cln"]
    assert archive.download_deadline(lpc) == archive.DOWNLOAD_GRACE_S + lpc.size / archive.DOWNLOAD_MIN_RATE
    assert archive.DOWNLOAD_GRACE_S < archive.download_deadline(sdsc) < archive.download_deadline(lpc) < 3600
    unsized = archive.Trace("U", "https://example.invalid/U.swf.gz", SHA)
    assert archive.download_deadline(unsized) == archive.DOWNLOAD_UNSIZED_S


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "5"])
def test_a_deadline_that_is_not_a_positive_time_is_refused(tmp_path, trace_t, bad):
    with pytest.raises(InputError, match=r"^fetch: deadline must be a positive number of seconds, got "):
        archive.fetch("T", url=(tmp_path / "x").as_uri(), dest=tmp_path / "d", deadline=bad)
    assert _left(tmp_path) == []


# --- F3: a pipe, a socket, a device or a folder where the trace belongs -------------------------------------------


def _release_later(fifo: Path, after: float = 3.0) -> threading.Thread:
    """Open ``fifo``'s writing end after ``after`` seconds (and close it): a reader blocked on it (the bug) then
    reads an empty file, and the test fails on its message instead of hanging for good."""

    def release():
        end = time.monotonic() + after + 5
        time.sleep(after)
        while time.monotonic() < end and fifo.exists():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                return
            except OSError:  # no reader: nothing blocks on it
                time.sleep(0.1)

    t = threading.Thread(target=release, daemon=True)
    t.start()
    return t


def _make_special(path: Path, kind: str):
    if kind == "a pipe":
        os.mkfifo(path)
        return _release_later(path)
    if kind == "a socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        return s
    if kind == "a device":
        path.symlink_to("/dev/null")
        return None
    path.mkdir()
    (path / "inside").write_text("x", encoding="utf-8")
    return None


KINDS = ["a pipe", "a socket", "a device", "a folder"]


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_at_the_fetch_target_is_refused_at_once(tmp_path, capsys, trace_t, kind, force):
    """Before: a FIFO at ``--dest/T.swf.gz`` hung ``workload fetch`` (hashing it waits for a writer), --force or
    not; --force never replaces a pipe, a device, a socket or a folder."""
    src = tmp_path / "src.swf.gz"
    src.write_bytes(PAYLOAD)
    dest = tmp_path / "dest"
    dest.mkdir()
    target = dest / "T.swf.gz"
    held = _make_special(target, kind)
    before = _left(dest)
    began = time.monotonic()
    argv = ["workload", "fetch", "T", "--url", src.as_uri(), "--dest", str(dest)] + (["--force"] if force else [])
    assert main(argv) == 2
    assert time.monotonic() - began < 2
    err = _err(capsys)
    assert f"gamemarket: error: {target}: is {kind}, not a regular file; expected the known trace T's copy" in err
    assert "--force never replaces one" in err
    assert _left(dest) == before
    if isinstance(held, socket.socket):
        held.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_at_a_known_traces_cached_name_is_refused_at_once(tmp_path, capsys, monkeypatch, kind):
    """Before: a FIFO named LPC-EGEE-2004-1.2-cln.swf.gz in $GAMEMARKET_TRACES hung ``workload info NAME``."""
    monkeypatch.setenv("GAMEMARKET_TRACES", str(tmp_path))
    name = "LPC-EGEE-2004-1.2-cln"
    cached = tmp_path / f"{name}.swf.gz"
    held = _make_special(cached, kind)
    began = time.monotonic()
    assert main(["workload", "info", name]) == 2
    assert time.monotonic() - began < 2
    err = _err(capsys)
    assert f"gamemarket: error: {cached}: is {kind}, not a regular file; expected the known trace {name}'s copy" in err
    assert f"move it away and run `gamemarket workload fetch {name}`" in err
    if isinstance(held, socket.socket):
        held.close()


def test_a_special_file_as_dest_is_named_as_what_it_is(tmp_path, capsys, trace_t):
    fifo = tmp_path / "dest"
    os.mkfifo(fifo)
    assert main(["workload", "fetch", "T", "--url", (tmp_path / "x").as_uri(), "--dest", str(fifo)]) == 2
    assert f"--dest {fifo}: is a pipe; expected a folder" in _err(capsys)


# --- F4: the download's mode is the umask's ------------------------------------------------------------------------


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_download_gets_the_umasks_mode(tmp_path, trace_t, mask, mode):
    """Before: 0600 whatever the umask (mkstemp's), where every other output is 0666 less the umask."""
    src = tmp_path / "src.swf.gz"
    src.write_bytes(PAYLOAD)
    old = os.umask(mask)
    try:
        out = archive.fetch("T", url=src.as_uri(), dest=tmp_path / "d")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == mode


# --- W2: a download cut short says so ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "head, said",
    [
        (b"Content-Length: 1000\r\n", "got 10 of 1,000 bytes (the server's Content-Length)"),
        (b"Content-Length: -5\r\n", "got 10 of 1,000 bytes (the catalogued T's size)"),
        (b"", "got 10 of 1,000 bytes (the catalogued T's size)"),
    ],
)
def test_a_download_cut_short_is_said_to_be_incomplete(tmp_path, capsys, serve, monkeypatch, head, said):
    """Before: "SHA-256 of the download is ...; not the catalogued trace", of a download the server cut."""
    monkeypatch.setitem(
        archive.KNOWN_TRACES, "T", archive.Trace("T", "https://example.invalid/T.swf.gz", SHA, size=1000)
    )
    server = serve(b"HTTP/1.1 200 OK\r\n" + head + b"\r\n" + b"x" * 10)
    assert main(["workload", "fetch", "T", "--url", server.url(), "--dest", str(tmp_path / "d")]) == 2
    err = _err(capsys)
    assert f"{server.url()}: the download is incomplete: {said} before the server closed the connection" in err
    assert "SHA-256" not in err
    assert _left(tmp_path) == []


# --- W3: a known trace's copy found by name is the catalogued one -------------------------------------------------


def test_a_cut_cached_copy_of_a_known_trace_is_refused_by_name(tmp_path, capsys, monkeypatch):
    """Before: the first 2,000 lines of the LPC trace, gzipped, in $GAMEMARKET_TRACES were read silently as
    LPC-EGEE-2004-1.2-cln (and its results stored under that name)."""
    monkeypatch.setenv("GAMEMARKET_TRACES", str(tmp_path))
    name = "LPC-EGEE-2004-1.2-cln"
    cached = tmp_path / f"{name}.swf.gz"
    cached.write_bytes(gzip.compress(PAYLOAD * 50))
    got = hashlib.sha256(cached.read_bytes()).hexdigest()
    assert main(["workload", "info", name]) == 2
    err = _err(capsys)
    expected = archive.KNOWN_TRACES[name].sha256
    assert f"{cached}: SHA-256 is {got}, expected {expected}: not the catalogued {name}" in err
    assert f"download it again with `gamemarket workload fetch {name} --force`" in err
    assert cached.read_bytes() == gzip.compress(PAYLOAD * 50)  # left as it is


def test_a_cached_copy_is_hashed_once_while_it_stays_the_same(tmp_path, monkeypatch, trace_t):
    monkeypatch.setenv("GAMEMARKET_TRACES", str(tmp_path))
    monkeypatch.setattr(archive, "search_dirs", lambda: [tmp_path])
    cached = tmp_path / "T.swf.gz"
    cached.write_bytes(PAYLOAD)
    calls = []
    real = archive.sha256_file
    monkeypatch.setattr(archive, "sha256_file", lambda p: calls.append(p) or real(p))
    assert archive.resolve("T") == cached
    assert archive.resolve("T.swf.gz") == cached
    assert len(calls) == 1
    cached.write_bytes(PAYLOAD[:-1] + b"!")  # changed: hashed again, and refused
    os.utime(cached, ns=(time.time_ns(), time.time_ns() + 10**9))
    with pytest.raises(
        InputError, match=rf"^{cached}: SHA-256 is [0-9a-f]{{64}}, expected {SHA}: not the catalogued T"
    ):
        archive.resolve("T")
    assert len(calls) == 2


def test_a_file_given_by_path_is_read_as_it_is(tmp_path, monkeypatch, trace_t):
    """A path is the user's own file: only a copy found by a known trace's name must be that trace."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "T.swf.gz").write_bytes(b"another trace")
    assert archive.resolve("T.swf.gz") == Path("T.swf.gz")


@pytest.mark.parametrize("name", ["LPC-EGEE-2004-1.2-cln", "SDSC-Par-1996-3.1-cln"])
def test_the_real_traces_resolve_by_name(tmp_path, monkeypatch, name):
    from examples_collect import trace_path

    real = trace_path(f"{name}.swf.gz")
    if real is None:
        pytest.skip(f"the trace {name} is not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    (tmp_path / real.name).symlink_to(real.resolve())
    monkeypatch.setenv("GAMEMARKET_TRACES", str(tmp_path))
    assert archive.resolve(name) == tmp_path / real.name
