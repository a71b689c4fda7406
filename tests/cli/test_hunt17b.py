"""Held-out hunt 17b (solvers of large games, plugins that raise BaseExceptions, a pipe in a stored run's place, a
sum past the float range, signals at start): regression rows."""

import os
import subprocess
import sys

import numpy as np
import pytest

from gamemarket.cli import main
from study_helpers import ROOT, TINY


def test_the_enumeration_estimate_of_an_800x800_game_is_a_number_not_an_overflow():
    """H17b-F1: `game solve` of a random 800 x 800 game ended in an OverflowError traceback, exit 1: the polytope's
    vertex bound (McMullen's) is an integer past the float range, multiplied by qhull's seconds per vertex."""
    from gamemarket.games import equilibria as eq

    assert eq.enumeration_seconds(800, 800) == float("inf")
    assert eq.shown_vertices(800, 800) == "more than 1e308"
    assert eq.shown_vertices(200, 200).startswith(("1", "2", "3", "4", "5", "6", "7", "8", "9")) and "e+" in (
        eq.shown_vertices(200, 200)
    )
    assert eq.shown_vertices(4, 4) == f"{eq.max_vertices(4, 4):,}"
    note = eq._large_game_switch(["polytope"], (800, 800), 2.0, False)
    assert "could visit up to more than 1e308 vertices (more than 1e308 s, beyond the time limit of 2 s)" in note


@pytest.mark.slow
def test_a_solver_child_stopped_at_the_limit_prints_nothing(tmp_path):
    """H17b-F2: nashpy's Lemke-Howson stopped at the time limit printed "Process ForkProcess-1:" and a 27-line
    traceback: the forked child held the command's SIGTERM handler, which turned the parent's terminate into a
    KeyboardInterrupt there. A solver's child ends quietly at SIGTERM now."""
    rng = np.random.default_rng(4)
    np.savez(tmp_path / "g.npz", A=rng.normal(size=(150, 150)), B=rng.normal(size=(150, 150)))
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "game", "solve", "g.npz", "--time-limit", "1", "--no-progress"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    if r.returncode == 0:
        pytest.skip("the game was solved within 1 s (a fast machine): no child was stopped")
    assert r.returncode == 3 and "Traceback" not in r.stderr and "ForkProcess" not in r.stderr, r.stderr
    assert r.stderr.endswith("gamemarket: the search for equilibria did not finish (see the note); exit 3\n")


BASE = """
from gamemarket.market.payments import payment_rule
class MyBase(BaseException):
    pass
@payment_rule("e-base", "raises a BaseException", jit=False)
def rule(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    if free > 0:
        return reserve
    raise {what}
"""


@pytest.mark.parametrize("what", ['MyBase("odd base")', "GeneratorExit"])
def test_a_plugin_that_raises_a_base_exception_is_one_line_and_exit_2(tmp_path, capsys, what):
    """H17b-F4: a plugin raising a BaseException subclass (or GeneratorExit) was a traceback, exit 1, in the
    command's process and from a pool worker alike."""
    plugin = tmp_path / "e_base.py"
    plugin.write_text(BASE.format(what=what))
    argv = ["simulate", "--plugin", str(plugin), "--payment", "e-base", "--synthetic-jobs", "200", "--nodes", "4"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a BaseException that is no Exception" in err, err
    assert err.startswith(f"gamemarket: error: {what.split('(')[0]}")


@pytest.mark.slow
def test_a_plugin_base_exception_in_a_pool_worker_is_one_line(tmp_path):
    (tmp_path / "e_base.py").write_text(BASE.format(what='MyBase("odd base")'))
    (tmp_path / "eb.toml").write_text(
        TINY.format(count=2).replace('"hb-kth"]', '"hb-eb"]')
        + '[plugins]\nmodules = ["e_base.py"]\n[strategies.provider.hb-eb]\nscheduler = "hb"\npayment = "e-base"\n'
    )
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "study", "run", "eb.toml", "--n-jobs", "2", "--no-report",
         "--no-progress"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "GAMEMARKET_POOL_START_S": "0"},
    )  # fmt: skip
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("gamemarket: error: MyBase: odd base was raised while the command ran")


@pytest.mark.parametrize("command", ["status", "report", "run"])
def test_a_pipe_in_a_stored_runs_place_is_said_not_waited_on(tmp_path, command):
    """H17b-F5: a FIFO in place of a stored run (a bimatrix run file, a population run) made `study status`,
    `report` and `study run` block for good. Opened without blocking, it is no file gamemarket stored: counted
    missing and named by the readers, set aside and run again by `study run`."""
    study = tmp_path / "tiny.toml"
    study.write_text(TINY.format(count=2))
    assert main(["study", "run", str(study), "--no-progress", "--no-report"]) == 0
    victim = sorted((tmp_path / "results" / "tiny" / "runs").glob("*.parquet"))[0]
    victim.unlink()
    os.mkfifo(victim)
    argv = {"status": ["study", "status"], "report": ["report"], "run": ["study", "run"]}[command]
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", *argv, str(study), *(["--no-progress"] * (command == "run"))],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    said = "NotStoredFile: it is a pipe, not a file gamemarket stored"
    if command == "run":
        assert r.returncode == 0 and "(7 already stored, 1 run now)" in r.stdout and said in r.stderr, r.stderr
        assert victim.is_file() and victim.with_name(victim.name + ".corrupt").exists()
    else:
        assert said in (r.stdout + r.stderr) and r.returncode == (0 if command == "status" else 2), r.stderr


def test_a_pipe_in_a_population_runs_place_is_missing_not_waited_on(tmp_path):
    from gamemarket.studies.population import PopulationStore

    store = PopulationStore(tmp_path)
    store.write("k1", {"key": "k1", "revenue": 1.0})
    assert store.read("k1") == {"key": "k1", "revenue": 1.0}
    store.path("k1").unlink()
    os.mkfifo(store.path("k1"))
    assert store.read("k1") is None  # a query: missing, moved nowhere
    assert store.path("k1").exists()


HUGE = """
from gamemarket.market.payments import payment_rule
@payment_rule("huge-plain", "a finite but huge rate", jit=False)
def rule(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    return reserve if free > 0 else 1e306
"""


def test_a_plain_rates_sum_past_the_float_range_is_one_line(tmp_path, capsys):
    """H17b-F7: a jit=False rate whose payments summed past the float range printed numpy's "warning: overflow
    encountered in scalar add" before the error; the compiled one said the error alone. Both say one line."""
    plugin = tmp_path / "huge.py"
    plugin.write_text(HUGE)
    argv = ["simulate", "--plugin", str(plugin), "--payment", "huge-plain", "--synthetic-jobs", "300", "--nodes", "4"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "overflow encountered" not in err, err
    # (named since hunt 31a-W3: the scheme, its plugin and its function, as a NaN rate is)
    assert "payment scheme 'huge-plain' (plugin " in err and "rate function 'rule''s rates sum past the float" in err


@pytest.mark.slow
def test_a_pooled_study_run_that_succeeds_prints_nothing_of_joblibs_folders(tmp_path):
    """H17b-F8: a pooled `study run` that succeeded printed loky's "There appear to be 1 leaked folder objects to
    clean up at shutdown" (2 lines, 3 of 3 times): the process ends at once after its output, and the folders the
    pool shared arrays through were removed by an exit handler of joblib's that never ran. They are removed with
    the pool now."""
    (tmp_path / "tiny.toml").write_text(TINY.format(count=2))
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "study", "run", "tiny.toml", "--n-jobs", "2", "--no-report",
         "--no-progress"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "GAMEMARKET_POOL_START_S": "0"},
    )  # fmt: skip
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_figure_named_with_a_trailing_slash_is_refused(tmp_path, capsys):
    """H17b-27 (a sibling of 17a-55 the fix missed): `workload compare --figure new/c.png/` wrote a file c.png."""
    argv = ["workload", "compare", "synthetic", "synthetic", "--nodes", "4", "--figure", f"{tmp_path}/new/c.png/"]
    assert main(argv) == 2
    assert "ends in a slash, which names a folder; expected a file name" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_force_into_a_folder_of_another_kind_removes_none_of_its_files(tmp_path, capsys):
    """H17b-36: `game export --out RESULTS --force`, RESULTS another study's results folder, deleted its .lock,
    last-run.json and tables (files the export never writes), the refusal having said "it would replace" them.
    A folder of another kind taken with --force keeps every file of its owner's the command does not write."""
    study, other = tmp_path / "tiny.toml", tmp_path / "other.toml"
    study.write_text(TINY.format(count=2))
    other.write_text(
        TINY.format(count=2).replace('name = "tiny"', 'name = "other"').replace("load = 1.1", "load = 1.2")
    )
    for s in (study, other):
        assert main(["study", "run", str(s), "--no-progress", "--no-report"]) == 0
    results = tmp_path / "results" / "other"
    before = {p.relative_to(results) for p in results.rglob("*") if p.name != ".gamemarket-manifest.json"}
    capsys.readouterr()
    assert main(["game", "export", str(study), "--out", str(results)]) == 2
    assert "the rest kept" in capsys.readouterr().err
    assert main(["game", "export", str(study), "--out", str(results), "--force"]) == 0
    after = {p.relative_to(results) for p in results.rglob("*")}
    assert before <= after and any(p.suffix == ".nfg" for p in after)


def test_an_npz_holding_one_array_twice_is_refused(tmp_path, capsys):
    """H17b-7: a zip with A.npy twice (then B) was read with the second A, as numpy reads it, in silence (another
    game: 2 equilibria for 1), and the warning named nothing ("array(s)  read past")."""
    import io
    import warnings
    import zipfile

    def npy(a):
        b = io.BytesIO()
        np.save(b, a)
        return b.getvalue()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zipfile's "Duplicate name")
        with zipfile.ZipFile(tmp_path / "dup.npz", "w") as z:
            z.writestr("A.npy", npy(np.array([[3.0, 0.0], [5.0, 1.0]])))
            z.writestr("B.npy", npy(np.array([[3.0, 5.0], [0.0, 1.0]])))
            z.writestr("A.npy", npy(np.full((2, 2), 9.0)))
    for argv in (["game", "solve"], ["price", "solve"]):
        assert main([*argv, str(tmp_path / "dup.npz")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the archive holds 'A.npy' 2 times; expected each array once" in err, err


def test_alpharank_is_held_to_the_memory_limit_before_it_builds_its_chain(tmp_path, capsys, monkeypatch):
    """H17b-19: alpha-rank of a 60 x 60 game (3,600 profiles: three 3,600 x 3,600 matrices) ran to 764 MB under
    GAMEMARKET_MEMORY_LIMIT=50000000; refused before it builds them now, as every other computation is."""
    rng = np.random.default_rng(2)
    np.savez(tmp_path / "g.npz", A=rng.normal(size=(60, 60)), B=rng.normal(size=(60, 60)))
    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", "50000000")
    assert main(["game", "solve", str(tmp_path / "g.npz"), "--concept", "alpharank"]) == 2
    err = capsys.readouterr().err
    assert "alpha-rank of 3,600 profiles (6 3,600 x 3,600 matrices) needs about 622 MB" in err, err


def test_an_unread_array_is_not_counted_against_the_memory_limit(tmp_path, capsys):
    """H17b-2: an .npz game with A, B and an array C whose header declares 100,000 x 100,000 floats (16 bytes of data)
    was refused for C's 80 GB, though C is left unread. The size check counts what is read."""
    import io
    import zipfile

    def npy(a):
        b = io.BytesIO()
        np.save(b, a)
        return b.getvalue()

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (100000, 100000)})
    with zipfile.ZipFile(tmp_path / "g.npz", "w") as z:
        z.writestr("A.npy", npy(np.array([[3.0, 0.0], [5.0, 1.0]])))
        z.writestr("B.npy", npy(np.array([[3.0, 5.0], [0.0, 1.0]])))
        z.writestr("C.npy", np.lib.format.magic(1, 0) + header.getvalue() + b"0" * 16)
    assert main(["game", "solve", str(tmp_path / "g.npz")]) == 0
    assert "array(s) 'C' read past" in capsys.readouterr().err


def test_a_solver_child_ends_when_its_parent_has_gone(tmp_path):
    """Found beside hunt 17b: solver children (qhull's on a large game) of a suite killed by SIGTERM ran on for an
    hour, computing for nobody (their Python handler waited for the C code). A solver child ends once its parent
    has gone, whatever ended it."""
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import multiprocessing as mp, os, sys, time\n"
        "from gamemarket.games.budget import solver_child\n"
        "def busy(path):\n"
        "    solver_child()\n"
        "    open(path, 'w').write(str(os.getpid()))\n"
        "    while True:\n"
        "        sum(range(10000))\n"
        "if __name__ == '__main__':\n"
        "    p = mp.get_context('fork').Process(target=busy, args=(sys.argv[1],), daemon=True)\n"
        "    p.start()\n"
        "    while not os.path.exists(sys.argv[1]):\n"
        "        time.sleep(0.05)\n"
        "    os._exit(0)  # as SIGKILL would end it: no exit handler terminates the child\n"
    )
    pid_file = tmp_path / "child.pid"
    subprocess.run([sys.executable, str(script), str(pid_file)], timeout=120, check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    child = int(pid_file.read_text())
    for _ in range(100):  # it looks every 0.5 s
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, 9)
    raise AssertionError("the solver child outlived its parent by 10 s")
