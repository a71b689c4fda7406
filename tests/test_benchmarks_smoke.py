"""Every benchmark runs to its end from a fresh clone: each file in ``benchmarks/`` in its small mode, from a
copy of the checkout's files (tracked, and untracked ones git does not ignore) in a temporary folder, with the
copy's package imported.

A benchmark that needs what a fresh clone may lack (the LPC trace, a GPU, another package) is skipped, saying
why, where it is absent. A file added to ``benchmarks/`` without a row in ``SMOKE`` fails
``test_every_benchmark_has_a_smoke_mode``: give it a small mode and a row.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: each file of ``benchmarks/``: the arguments of its small mode (``{tmp}``: a scratch folder, ``{swf}``: a small
#: SWF trace this test writes), a list of them where its small mode is several runs, or None for a helper that
#: another benchmark's small mode runs
SMOKE: dict[str, list | None] = {
    "bench_certificates.py": ["--smoke"],
    "bench_deviation.py": ["--smoke"],
    "bench_design.py": ["--smoke"],
    "bench_engine.py": ["--repeat", "2", "--jobs", "2000"],
    "bench_exploration.py": ["--smoke"],
    "bench_large_games.py": ["--smoke"],
    "bench_lp_finish.py": ["--n", "300", "--m", "4"],
    "bench_plugins.py": ["--repeat", "2", "--jobs", "2000"],
    "bench_population.py": ["--smoke"],
    "bench_pricing.py": ["--smoke", "--out", "{tmp}"],
    "bench_pricing_cvxpy.py": ["--n", "2000", "--m", "4"],
    "bench_pricing_gpu.py": ["--sizes", "20000x4", "--out", "{tmp}"],
    "bench_pricing_stress.py": ["--smoke"],
    "bench_pricing_wide.py": ["--smoke"],
    "bench_reproduction.py": ["--smoke", "--n-jobs", "1"],
    "bench_rsg_completeness.py": ["--smoke"],
    "bench_resalloc.py": ["--resalloc-python", "{resalloc}", "--cases", "2000x4"],
    "bench_small_games.py": ["--smoke"],
    "bench_simulator.py": [["--trace", "{swf}", "--repeat", "1"], ["--swf", "--jobs", "200000", "--repeat", "1"]],
    "bench_startup.py": ["--smoke"],
    "bench_study.py": ["--smoke"],
    "bench_study_jobs.py": ["--smoke"],
    "bench_test_tiers.py": ["--smoke"],
    "bench_workload.py": ["--smoke"],
    "fuzz_cli.py": ["--minutes", "0.1", "--batch", "2", "--seed", "1", "--shrink-seconds", "5"],
    "heapq_market.py": None,  # bench_startup's comparator: its --smoke runs it and checks the outcomes agree
    "solver_fingerprint.py": ["{tmp}/fingerprint.json", "--smoke"],
}


def _runs(args: list) -> list[list[str]]:
    """A row's runs: its arguments, or a list of them where a benchmark's small mode is several runs."""
    return args if args and isinstance(args[0], list) else [args]


def _needs(name: str) -> str | None:
    """Why ``name`` cannot run here (None where it can)."""
    if name == "bench_pricing_gpu.py":
        if importlib.util.find_spec("torch") is None:
            return "needs PyTorch with CUDA (pip install 'gamemarket[torch]'); torch is not installed"
        import torch  # deferred: only where it is installed

        if not torch.cuda.is_available():
            return "needs a CUDA device; none is visible"
    if name == "bench_resalloc.py" and not os.environ.get("GAMEMARKET_RESALLOC_PYTHON"):
        return "needs a Python with resalloc installed: set GAMEMARKET_RESALLOC_PYTHON to run it"
    return None


def test_every_benchmark_has_a_smoke_mode():
    """A new benchmark needs a small mode and its row here; a ``--smoke`` row needs the option in its file."""
    files = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))
    assert files == sorted(SMOKE), (
        f"benchmarks without a smoke row: {sorted(set(files) - set(SMOKE))}; rows without a file: "
        f"{sorted(set(SMOKE) - set(files))}"
    )
    for name, args in SMOKE.items():
        if args and any("--smoke" in run for run in _runs(args)):
            assert '"--smoke"' in (ROOT / "benchmarks" / name).read_text(), f"{name} has no --smoke option"
    helpers = [n for n, a in SMOKE.items() if a is None]
    for h in helpers:  # a helper is run by some benchmark's small mode
        assert any(h in (ROOT / "benchmarks" / n).read_text() for n, a in SMOKE.items() if a), h


def _checkout_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [f for f in out.decode().split("\0") if f and ((ROOT / f).is_file() or (ROOT / f).is_symlink())]


def _small_swf(path: Path, jobs: int = 3000) -> Path:
    """A small SWF trace (serial jobs on 64 processors, congested at times), for a benchmark that reads one."""
    rng = np.random.default_rng(7)
    submit = np.cumsum(rng.exponential(60.0, jobs)).astype(int)
    runtime = np.maximum(1, rng.lognormal(6.0, 1.5, jobs)).astype(int)
    lines = ["; Version: 2.2", "; MaxProcs: 64"]
    for k in range(jobs):
        r = runtime[k]
        lines.append(f"{k + 1} {submit[k]} 0 {r} 1 -1 -1 1 {2 * r} -1 1 {k % 40 + 1} 1 -1 1 1 -1 -1")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A copy of the checkout's files, as a fresh clone has them (with the compiled-function caches numba keeps
    beside the sources, so that the copy does not compile the engine again: the same code, not an input)."""
    try:
        files = _checkout_files()
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout ({exc}): nothing to copy as a fresh clone")
    dest = tmp_path_factory.mktemp("clone")
    for f in files:
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / f).is_symlink():  # as git keeps it (models/ and strategies/ point into the package)
            os.symlink(os.readlink(ROOT / f), dest / f)
        else:
            shutil.copy2(ROOT / f, dest / f)
    for cache in (ROOT / "gamemarket").rglob("__pycache__/*.nb[ic]"):
        target = dest / cache.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(cache, target)
    return dest


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(n for n, a in SMOKE.items() if a))
def test_benchmark_runs_to_its_end_in_its_small_mode(name, clone, tmp_path):
    why = _needs(name)
    if why:
        pytest.skip(f"{name} {why}")
    values = {
        "tmp": str(tmp_path),
        "swf": str(_small_swf(tmp_path / "small.swf")) if name == "bench_simulator.py" else "",
        "resalloc": os.environ.get("GAMEMARKET_RESALLOC_PYTHON", ""),
    }
    env = {**os.environ, "PYTHONPATH": str(clone), "MPLBACKEND": "Agg"}
    env.pop("GAMEMARKET_TRACES", None)  # a fresh clone's machine need not have the traces: none is needed here
    for run in _runs(SMOKE[name]):
        args = [a.format(**values) for a in run]
        r = subprocess.run(
            [sys.executable, str(clone / "benchmarks" / name), *args],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, (
            f"{name} {' '.join(args)}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        )
        assert "Traceback" not in r.stderr, r.stderr[-3000:]
