"""A scheduler address is parsed and the scheduler identified, each step bounded, before anything is claimed or
locked: what answers at the address is named (nothing, an HTTP server, a dask worker), never a hang."""

import http.server
import threading

import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.studies.scheduler import identify, parse


@pytest.mark.parametrize(
    "address, message",
    [
        ("garbage", "expected an address such as tcp://10.0.0.1:8786"),
        ("http://127.0.0.1:8787", "an http address is a web page"),
        ("https://example.org", "an https address is a web page"),
        ("foo://host:1", "unknown scheme 'foo'"),
        ("tcp://127.0.0.1:notaport", "a port from 1 to 65535"),
        ("tcp://127.0.0.1:70000", "a port from 1 to 65535"),
        ("tcp://:8786", "a host and a port"),
        ("tcp://10.0.0.1:8786/path?x=1", r"no path, query or user; expected tcp://10.0.0.1:8786"),
        ("tcp://me@10.0.0.1:8786", r"no path, query or user"),
        ("inproc://x", r"an inproc address is inproc://HOST/PID/N, a cluster inside one process"),
        ("inproc://10.0.0.1/1/1", r"names a cluster inside process 1, which no other process reaches"),
        # (hunt 26c-W3: urlsplit strips and lowers the scheme, dask does not: the handshake failed, the peer blamed)
        (" tcp://127.0.0.1:8786", r"the scheme ' tcp' has spaces; expected it as dask writes it, tcp://"),
        ("TCP://127.0.0.1:8786", r"the scheme 'TCP' has capitals"),
        # (hunt 28c-F2: a bracketed host that is no IP address was urlsplit's ValueError, a traceback, exit 1)
        ("tcp://[::1", r"Invalid IPv6 URL; expected a host and a port, as in tcp://10.0.0.1:8786 or tcp://\[::1\]"),
        ("tcp://[zz]:8786", r"'zz' does not appear to be an IPv4 or IPv6 address; expected a host and a port"),
        ("ws://[1.2.3.4]:8786", r"An IPv4 address cannot be in brackets; expected a host and a port"),
        # (hunt 29c-W5: urllib dropped what follows the brackets: both read as ::1 port 8786)
        ("tcp://[::1]x:8786", r"its host and port read as \[::1\]:8786, not as written"),
        ("tcp://[::1]]:8786", r"its host and port read as \[::1\]:8786, not as written"),
    ],
)
def test_an_address_that_is_not_one_is_named(address, message):
    with pytest.raises(InputError, match=message):
        parse(address)
    assert parse("tcp://10.0.0.1:8786") == ("tcp", "10.0.0.1", 8786)


@pytest.fixture
def http_server():
    """An HTTP server on a free port of this machine (what listens at a dask dashboard's port)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()


@pytest.mark.slow
def test_an_http_server_at_the_address_is_named_within_the_timeout(http_server, tmp_path, capsys):
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    with pytest.raises(InputError, match="an HTTP server .* not a dask scheduler"):
        identify(f"tcp://127.0.0.1:{http_server}", timeout=2)
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "s"\n[workload]\nsource = "synthetic"\n[workload.synthetic]\njobs = 50\n'
        '[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT"]\n[replications]\ncount = 1\n'
    )
    address = f"tcp://127.0.0.1:{http_server}"
    assert main(["study", "run", str(study), "--no-progress", "--scheduler-address", address]) == 2
    assert "not a dask scheduler" in capsys.readouterr().err
    assert not (tmp_path / "results").exists() and not (tmp_path / "reports").exists()  # nothing claimed or locked


@pytest.mark.slow
def test_a_scheduler_is_identified_and_a_worker_is_not_one():
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        assert identify(c.scheduler_address)["type"] == "Scheduler"
        worker = next(iter(c.workers.values())).address
        with pytest.raises(InputError, match="a dask Worker answered, not a scheduler"):
            identify(worker, timeout=3)


@pytest.fixture
def answers_400():
    """A peer that waits for the client to speak, then answers HTTP 400 and closes (a reverse proxy's way): dask
    read "HTTP/1.1" as a frame length and numpy tried to allocate 3.07 EiB (hunt 16a-68)."""
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def answer(conn):
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(1024)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
            except OSError:
                pass

    def serve():  # each connection answered on its own (the check's handshake and its look for HTTP overlap)
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    "scheme, said",
    [
        ("tcp", "an HTTP server"),
        ("ws", "an HTTP server"),
        ("tls", "tls:// needs dask's TLS settings"),
        ("ucx", "ucx:// needs UCX-Py"),
    ],
)
def test_whatever_the_handshake_raises_is_said_in_one_line(answers_400, scheme, said):
    """Hunt 16a-65/66/67/68: tls://, ws:// and ucx:// addresses and a peer answering HTTP 400 gave tracebacks (a
    TypeError, a WebSocketError, a 3 EiB allocation): the check caught only a few exception types."""
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    with pytest.raises(InputError, match=said) as err:
        identify(f"{scheme}://127.0.0.1:{answers_400}", timeout=10)
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_a_peer_that_answers_garbage_is_said_not_to_speak_dasks_protocol():
    """Hunt 16e W1: a peer answering random bytes got dask's own wording ("Maximum allowed dimension exceeded")."""
    import socket

    pytest.importorskip("distributed", reason="the dask extra is not installed")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)

    def serve():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                try:
                    conn.sendall(bytes(range(256)) * 8)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        with pytest.raises(InputError) as err:
            identify(f"tcp://127.0.0.1:{srv.getsockname()[1]}", timeout=5)
    finally:
        srv.close()
    assert "what answered does not speak dask's protocol" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.slow
def test_a_scheduler_with_no_worker_is_said_so_with_how_to_start_one(tmp_path, capsys, monkeypatch):
    """A scheduler started with no worker ended `study run` in joblib's own message, which named a Python call
    (`parallel_config(backend='dask', wait_for_workers_timeout=20)`) to a user of the command line. The command
    waits for a first worker as long as for the scheduler, then says how to start one; nothing is run."""
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    from gamemarket.studies import runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 2)
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "s"\n[workload]\nsource = "synthetic"\n[workload.synthetic]\njobs = 50\n'
        '[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT"]\n[replications]\ncount = 1\n'
    )
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as c:
        argv = ["study", "run", str(study), "--no-progress", "--scheduler-address", c.scheduler_address]
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"--scheduler-address {c.scheduler_address}: the dask scheduler there has no worker" in err
    assert f"start one (dask worker {c.scheduler_address})" in err and "parallel_config" not in err
    assert not list((tmp_path / "results").glob("*/runs/*.parquet"))
