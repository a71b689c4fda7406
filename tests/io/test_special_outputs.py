"""An output is written only as a regular file: a pipe, a device or a socket where an output goes is refused, even
with --force (replacing one destroys it: a copy of /dev/null became a 223 KB file), by every writer (the check is
in ``atomic_path``, which every writer uses, and in the commands' output checks, before any work)."""

import os
import socket
import subprocess
import sys

import pytest

from gamemarket.errors import InputError
from gamemarket.io.files import atomic_path, check_output_file

SWF = "; MaxProcs: 4\n" + "".join(f"{i} {10 * i} 0 100 1 -1 -1 1 200 -1 1 1 1 -1 1 -1 -1 -1\n" for i in range(1, 9))


def _specials(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    out = [("a pipe", fifo)]
    sock = tmp_path / "s.csv"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock))
    out.append(("a socket", sock))
    if os.geteuid() == 0:  # a copy of /dev/null (making a device needs root)
        dev = tmp_path / "null.csv"
        os.mknod(dev, 0o666 | 0o020000, os.makedev(1, 3))
        out.append(("a device", dev))
    return out, s


def test_the_writers_refuse_a_pipe_a_socket_or_a_device(tmp_path):
    specials, s = _specials(tmp_path)
    try:
        for kind, path in specials:
            mode = path.stat().st_mode
            with pytest.raises(InputError, match=f"{path.name}: is {kind}, not a regular file"):
                check_output_file(path, option="--out", force=True)
            with pytest.raises(InputError, match=f"{path.name}: is {kind}, not a regular file"):
                with atomic_path(path, "table") as tmp:
                    tmp.write_text("x")
            assert path.stat().st_mode == mode
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for _, p in specials)  # nothing left
    finally:
        s.close()


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_simulate_out_a_pipe_exits_2_and_leaves_it(tmp_path, force):
    (tmp_path / "in.swf").write_text(SWF)
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "simulate", "--workload", "in.swf", "--nodes", "4", "--out", "out.csv"]
        + force,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "--out out.csv: is a pipe, not a regular file" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and fifo.is_fifo()
