"""A dask scheduler's address, checked before anything is locked or run: parsed, then the scheduler identified.

``dask.distributed.Client`` given an address where something else listens (an HTTP server: the scheduler's own
dashboard is on the next port) waits for a handshake that never comes, past its own timeout. So the address is
parsed first (a scheme dask speaks, a host, a port), then a dask comm is opened and the peer asked who it is, each
step bounded by a timeout; every failure says what was found at the address: nothing listening, an HTTP server,
something that does not speak dask, a dask worker rather than a scheduler.
"""

from __future__ import annotations

import asyncio
import os
import socket
from urllib.parse import urlsplit

from gamemarket.errors import InputError, shown_name

#: the schemes of dask's comms (``inproc``: a cluster inside this process, as tests start one)
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
#: seconds each step of the check may take
TIMEOUT_S = 10.0
#: seconds the look for an HTTP server at an address that failed the handshake may take
HTTP_LOOK_S = 2.0


def parse(address: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address such as ``tcp://10.0.0.1:8786``.

    Raises
    ------
    InputError
        Naming the address and what is wrong with it (no scheme, an HTTP address, no host, a port that is not one).
    """
    where = f"--scheduler-address {address!r}"
    if not isinstance(address, str) or "://" not in address:
        raise InputError(f"{where}: expected an address such as tcp://10.0.0.1:8786")
    scheme = address.partition("://")[0]
    if scheme != scheme.strip() or scheme != scheme.lower():  # (urlsplit strips and lowers it; dask does neither: the
        # handshake then failed and the peer was blamed, hunt 26c-W3)
        raise InputError(
            f"{where}: the scheme {scheme!r} has {'spaces' if scheme != scheme.strip() else 'capitals'}; expected it "
            f"as dask writes it, {scheme.strip().lower()}://"
        )
    try:  # (a bracketed host that is no IP address: Python's "Invalid IPv6 URL" traceback, exit 1, hunt 28c-F2)
        parts = urlsplit(address)
        parts.hostname  # noqa: B018 - parses the host (and its brackets) or raises here
    except ValueError as exc:
        raise InputError(
            f"{where}: {exc}; expected a host and a port, as in tcp://10.0.0.1:8786 or tcp://[::1]:8786"
        ) from None
    if parts.scheme in ("http", "https"):
        raise InputError(
            f"{where}: an {parts.scheme} address is a web page (the scheduler's dashboard?); a scheduler's address "
            "starts tcp:// (the dashboard's port is usually 8787, the scheduler's 8786)"
        )
    if parts.scheme not in SCHEMES:
        raise InputError(f"{where}: unknown scheme {shown_name(parts.scheme)}; expected one of {list(SCHEMES)}")
    if parts.scheme == "inproc":  # inproc://host/pid/n: a cluster inside one process, no port
        _check_inproc(where, parts)
        return parts.scheme, parts.hostname or "", 0
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname or port is None or not 0 < port < 65536:
        raise InputError(f"{where}: expected a host and a port from 1 to 65535, as in tcp://10.0.0.1:8786")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if parts.netloc.lower() != f"{host}:{port}".lower() and parts.netloc.lower() != f"{host}:{port:d}".lower():
        # (urllib reads "[::1]x:8786" and "[::1]]:8786" as ::1 port 8786: what follows the brackets dropped, 29c-W5)
        if not (parts.username or parts.password):
            raise InputError(
                f"{where}: its host and port read as {host}:{port}, not as written; expected {host}:{port}"
            )
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise InputError(  # (hunt 16c: tcp://host:port/path?x=1 reached the handshake, Python's ValueError 12 s on)
            f"{where}: a scheduler's address is a scheme, a host and a port, with no path, query or user; expected "
            f"{parts.scheme}://{parts.hostname}:{port}"
        )
    return parts.scheme, parts.hostname, port


def _is_http(host: str, port: int, timeout: float) -> bool:
    """Whether an HTTP server answers a request at ``host:port`` (what a port that ignores dask's handshake is)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(b"HEAD / HTTP/1.0\r\n\r\n")
            return s.recv(5) == b"HTTP/"
    except OSError:
        return False


def _found(scheme: str, host: str, port: int, timeout: float, exc: BaseException) -> str:
    """What was found at an address whose dask handshake failed with ``exc``, said for the user: an HTTP server,
    something silent, a scheme this machine's dask cannot use, or the handshake's own error on one line."""
    # (a short look: an HTTP server answers at once; the handshake's own wait was already spent, hunt 16c)
    if scheme in ("tcp", "ws") and _is_http(host, port, min(timeout, HTTP_LOOK_S)):
        return "an HTTP server (the scheduler's dashboard? a proxy?), not a dask scheduler"
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return f"no dask handshake within {timeout:g} s: what is there accepted the connection and said nothing"
    if isinstance(exc, MemoryError):  # its reply's first bytes read as a message length (exabytes)
        return "what answered does not speak dask's protocol (its reply, read as dask's, announced an impossible size)"
    if scheme in ("tls", "wss") and "ssl" in str(exc).lower():
        return (
            f"{scheme}:// needs dask's TLS settings (distributed.comm.tls: a CA, a certificate and a key); {_said(exc)}"
        )
    if scheme == "ucx":
        return f"ucx:// needs UCX-Py with dask's UCX support installed here; {_said(exc)}"
    if scheme == "tcp" and not isinstance(exc, OSError):  # it answered, in bytes dask could not read (hunt 16e)
        return f"what answered does not speak dask's protocol (its reply, read as dask's: {_said(exc)})"
    return f"the dask handshake failed ({_said(exc)})"


def _said(exc: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


async def _identity(address: str, timeout: float) -> dict:
    from distributed.comm import connect  # deferred: dask, for a study on a cluster only

    comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout + 1)  # its own timeout can be passed
    try:
        await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), timeout)
        return await asyncio.wait_for(comm.read(), timeout)
    finally:
        await comm.close()


def identify(address: str, timeout: float = TIMEOUT_S) -> dict:
    """Parse ``address`` and ask the dask peer there who it is; its identity (``type`` is ``"Scheduler"``).

    Raises
    ------
    InputError
        The address does not parse, dask is not installed, nothing listens there, what answers is not a dask
        scheduler (an HTTP server, a dask worker, something silent): each named, with the address.
    """
    scheme, host, port = parse(address)
    where = f"--scheduler-address {address}"
    try:
        import distributed  # noqa: F401  # deferred: dask, for a study on a cluster only
    except ImportError:
        raise InputError(
            "--scheduler-address needs dask.distributed, which the default install leaves out: "
            "pip install 'gamemarket[dask]'"
        ) from None
    if scheme in ("tcp", "tls"):
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError as exc:
            raise InputError(
                f"{where}: nothing answers at {host}:{port} ({exc.strerror or exc}); is it running?"
            ) from None
    try:
        info = asyncio.run(_identity(address, timeout))
    except Exception as exc:  # noqa: BLE001 - whatever dask's comm raised (hunt 16a: tls, ws, ucx, a 3 EiB read)
        raise InputError(f"{where}: {_found(scheme, host, port, timeout, exc)}") from None
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        raise InputError(
            f"{where}: a dask {kind or 'peer'} answered, not a scheduler; expected the scheduler's address"
        )
    return info


def _check_inproc(where: str, parts) -> None:
    """An ``inproc://host/pid/n`` address of this process's own cluster; else an :class:`InputError` saying why
    (hunts 16a/16c: ``inproc://x`` got "the dask handshake failed (ValueError: not enough values to unpack)")."""
    bits = parts.path.strip("/").split("/")
    if not parts.hostname or len(bits) != 2 or not all(b.isdigit() for b in bits):
        raise InputError(
            f"{where}: an inproc address is inproc://HOST/PID/N, a cluster inside one process (a command's own "
            "process can hold none); give the scheduler's tcp:// address, as in tcp://10.0.0.1:8786"
        )
    if int(bits[0]) != os.getpid():
        raise InputError(
            f"{where}: an inproc address names a cluster inside process {bits[0]}, which no other process reaches; "
            "give the scheduler's tcp:// address, as in tcp://10.0.0.1:8786"
        )
