"""The mechanism-design how-to (``docs/how-to/design-a-mechanism.md``) runs as written: its study file, saved in
an empty folder, and its command, with only the installed package on the PATH; the report's first line is the
shape the page shows."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "how-to" / "design-a-mechanism.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(), flags=re.S)


@pytest.mark.slow
def test_the_design_how_to_runs_as_written(tmp_path):
    (tmp_path / "my-design.toml").write_text(_blocks("toml")[0])
    commands = [line[2:] for b in _blocks("console") for line in b.splitlines() if line.startswith("$ ")]
    assert commands == ["gamemarket study run my-design.toml"]
    exe = shutil.which("gamemarket", path=str(Path(sys.executable).parent))
    assert exe, "the installed package's command is not beside the interpreter"
    env = {**os.environ, "PATH": str(Path(exe).parent) + os.pathsep + "/usr/bin:/bin", "MPLBACKEND": "Agg"}
    r = subprocess.run(commands[0].split(), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    report = (tmp_path / "reports" / "my-design" / "report.md").read_text().splitlines()
    shown = _blocks("text")[0].splitlines()[0]
    head = shown.split("...")[0]
    assert report[2].startswith(head), (report[2][:200], head)
    assert "How sure: no design the search evaluated beats it" in report[2]
    again = subprocess.run(
        ["gamemarket", "report", "my-design.toml"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr[-2000:]
    # its status counts the search's stored runs, not only the fixed mechanisms' plan (hunt 15: "0/60 stored" of a
    # search stopped with 180 of its runs stored)
    status = subprocess.run(
        ["gamemarket", "study", "status", "my-design.toml"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert status.returncode == 0, status.stderr[-2000:]
    stored = int(re.search(r"study my-design: ([\d,]+) population runs stored", status.stdout)[1].replace(",", ""))
    files = len(list((tmp_path / "results" / "my-design" / "population").glob("*.json")))
    assert stored == files > 60 and "the fixed mechanisms' (60/60 of their initial seeds)" in status.stdout
    assert "design answer: stored, and current" in status.stdout
    # a file of another name there (a report's manifest, written with --force) is no run (hunt 34a-W3: counted one)
    (tmp_path / "results" / "my-design" / "population" / ".gamemarket-manifest.json").write_text("{}")
    status = subprocess.run(
        ["gamemarket", "study", "status", "my-design.toml"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert f"study my-design: {stored:,} population runs stored" in status.stdout, status.stdout
