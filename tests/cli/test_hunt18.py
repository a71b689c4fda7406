"""Regression rows of the session of 2026-12-05 (16:00-): the last session's named limits (hunt 17b-W6) and the
held-out hunts of this session, each with its family."""

import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.studies.store import ResultStore
from study_helpers import TINY

RM_PLUGIN = """
import os, shutil
from gamemarket.market.payments import payment_rule
@payment_rule("rm-once", "removes the results folder on its first call", jit=False)
def rule(bid, reserve, nodes, free, waiting, max_waiting_bid, min_running_bid):
    flag = os.environ["GM_TEST_FLAG"]
    if not os.path.exists(flag):
        open(flag, "w").close()
        shutil.rmtree(os.environ["GM_TEST_RM"], ignore_errors=True)
    return bid
"""


def test_a_results_folder_removed_while_its_study_runs_is_said_and_not_written_again(tmp_path, capsys, monkeypatch):
    """Hunt 17b-W6: `rm -rf` of the results folder while `study run` wrote to it: the run made the folder anew and
    wrote on into it unlocked, then refused it as "not made by gamemarket"; the next run needed --force. Now the
    first write after the removal stops the command, one line, exit 2, nothing made again; the next run needs no
    --force."""
    (tmp_path / "rm_plugin.py").write_text(RM_PLUGIN)
    study = tmp_path / "t.toml"
    study.write_text(
        TINY.format(count=3).replace('"hb-kth"]', '"hb-rm"]')
        + '[plugins]\nmodules = ["rm_plugin.py"]\n[strategies.provider.hb-rm]\nscheduler = "hb"\npayment = "rm-once"\n'
    )
    results = tmp_path / "results" / "tiny"
    monkeypatch.setenv("GM_TEST_FLAG", str(tmp_path / "flag"))
    monkeypatch.setenv("GM_TEST_RM", str(results))
    monkeypatch.chdir(tmp_path)
    assert main(["study", "run", str(study), "--n-jobs", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was removed or replaced while this command wrote to it" in err, err
    assert "lock file .lock is gone" in err and str(results) in err
    assert not results.exists()  # nothing was made again
    assert main(["study", "run", str(study), "--n-jobs", "1", "--no-progress", "--no-report"]) == 0
    assert len(list((results / "runs").glob("*.parquet"))) == 12


def test_a_results_folder_replaced_while_locked_is_not_written(tmp_path):
    """The family of W6 in the Python API: the folder moved away and another made in its place (a lock file of
    its own) is not written to; the folder moved away keeps what was written before."""
    root = tmp_path / "r"
    store = ResultStore(root, owner="test")
    bins = pd.DataFrame({"a": np.arange(3.0)})
    with store.lock():
        store.write("k1", {"m": 1.0}, bins, {"t": 1})
        shutil.move(root, tmp_path / "moved")
        root.mkdir()
        (root / ".lock").write_text("someone else")
        with pytest.raises(InputError, match=r"removed or replaced .* is another one"):
            store.write("k2", {"m": 2.0}, bins, {"t": 2})
    assert sorted(os.listdir(root)) == [".lock"]
    assert (tmp_path / "moved" / "runs" / "k1.parquet").is_file()


def test_a_logit_trace_whose_first_step_would_pass_the_limit_stops_before_it(monkeypatch):
    """Hunt 17b-F3's named rest: the first tangent (one factorisation of the game's system: seconds for an 800 x 800
    game) was taken before the clock's first look. Its time is estimated first, and a step that would pass the limit
    is not begun."""
    from gamemarket.games import qre
    from gamemarket.games.bimatrix import Game
    from gamemarket.games.budget import Stopped

    r = np.random.default_rng(1)
    game = Game(r.normal(size=(30, 30)), r.normal(size=(30, 30)))
    monkeypatch.setattr(qre, "tangent_seconds", lambda size: 50.0)
    monkeypatch.setattr(qre, "_tangent", lambda *a: pytest.fail("a tangent was computed"))
    with pytest.raises(Stopped, match=r"before its first step: .* 60 strategies, about 50 s here"):
        qre.logit_branch(game, time_limit=10)


def test_the_tangent_estimate_grows_with_the_system():
    """The estimate is a time (positive, finite) and grows as the cube of the system past the timed size."""
    from gamemarket.games.qre import TIMED_SIZE, tangent_seconds

    small, large = tangent_seconds(TIMED_SIZE), tangent_seconds(4 * TIMED_SIZE)
    assert 0 < small < np.inf and large > 10 * small


# ------------------------------------------------------------ a signal during a compiled run (found this session)

COMPILED_TUPLE = """
import os, subprocess, sys, time
import numba
import numpy as np
from gamemarket import cli

@numba.njit
def work(n):
    a = np.zeros((n, 8), np.int64)
    b = np.zeros((n, 4))
    s = 0
    for k in range(200):
        for i in range(n):
            a[i, k % 8] += i
            s += a[i, (k + 1) % 8]
    return a, b, s  # (a tuple: numba boxes it through its Python callback)

work(10)
kill = subprocess.Popen(["sh", "-c", "sleep 0.5; kill -{sig} %d" % os.getpid()])
began = time.monotonic()
try:
    with cli._ctrl_c_seen():
        a, b, s = work(3_000_000)
        time.sleep(2)  # (gamemarket's code after the run, where the signal is taken)
    print("finished", time.monotonic() - began - 2)
except KeyboardInterrupt:
    print("stopped", cli._ENDED_BY[0], cli._SIGINT.is_set())
kill.wait()
"""


@pytest.mark.parametrize("sig", ["TERM", "INT"])
def test_a_signal_during_a_compiled_run_stops_it_in_gamemarkets_code_not_numbas(tmp_path, sig):
    """SIGTERM or Ctrl-C while a compiled function ran (`simulate` of 2,000,000 jobs, 2 s in) was handled at the
    first Python code after it: numba's own, boxing the function's tuple of results; the KeyboardInterrupt raised
    there ended the process with a segmentation fault (exit 139; numba's SystemError in this smaller case). It is
    taken a moment later, back in gamemarket's code."""
    import subprocess
    import sys

    from study_helpers import ROOT

    script = tmp_path / "s.py"
    script.write_text(COMPILED_TUPLE.format(sig=sig))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    if r.stdout.startswith("finished"):
        pytest.skip(f"the compiled run finished before the signal ({r.stdout.split()[1]} s): a fast machine")
    assert r.returncode == 0 and "Error" not in r.stderr, (r.returncode, r.stderr[-2000:])
    expected = {"TERM": "stopped 15 False", "INT": "stopped None True"}[sig]
    assert r.stdout.strip() == expected, r.stdout


def test_a_signal_in_numbas_callback_is_sent_again_later_not_raised(monkeypatch):
    """The handlers' rule itself: a frame of numba's callback module anywhere on the stack defers the signal to a
    timer thread, unrecorded; elsewhere the handler raises as before."""
    import signal
    import sys

    from gamemarket import cli

    timers = []

    class Timer:
        def __init__(self, delay, fn, args):
            timers.append((delay, fn, args))

        def start(self):
            pass

    monkeypatch.setattr(cli.threading, "Timer", Timer)
    monkeypatch.setattr(cli, "_ENDED_BY", [None])
    inside = {"__name__": "numba.core.serialize", "cli": cli, "sys": sys}
    exec("def callback():\n    cli._record_term(15, sys._getframe())\ncallback()", inside)
    assert timers == [(cli.AGAIN_S, cli.os.kill, (cli.os.getpid(), signal.SIGTERM))]
    assert cli._ENDED_BY[0] is None  # (recorded when it comes again, in gamemarket's code)
    with pytest.raises(KeyboardInterrupt):
        cli._record_term(signal.SIGTERM, sys._getframe())
    assert cli._ENDED_BY[0] == signal.SIGTERM and len(timers) == 1


# ------------------------------------------------------------ hunt 18a: records of gamemarket's own, grown huge


def test_a_manifest_grown_past_any_gamemarket_writes_is_named_without_reading_it(tmp_path, capsys, monkeypatch):
    """Hunt 18a-F6: a 3 GB results manifest (zero-filled by a bad copy) was read whole: 6.5 GB of memory, and under a
    memory limit a message naming neither the manifest nor the cause. Its size is looked at first."""
    import gamemarket.io.files as files

    (tmp_path / "tiny.toml").write_text(TINY.format(count=1))
    monkeypatch.chdir(tmp_path)
    assert main(["study", "run", "tiny.toml", "--no-progress", "--no-report"]) == 0
    capsys.readouterr()
    manifest = tmp_path / "results" / "tiny" / files.MANIFEST
    monkeypatch.setattr(files, "RECORD_MAX_BYTES", 4096)  # (the rule, not 64 MB of disk)
    with open(manifest, "r+b") as f:
        f.truncate(10_000)
    read_text = files.read_text

    def reading(path, *a, **k):
        assert Path(path) != manifest, "the manifest was read"
        return read_text(path, *a, **k)

    monkeypatch.setattr(files, "read_text", reading)
    assert main(["report", "tiny.toml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{manifest}: 10,000 bytes, more than a gamemarket manifest holds" in err, err


def test_a_stored_population_run_grown_huge_is_damage_not_read(tmp_path, monkeypatch):
    from gamemarket.studies import population

    store = population.PopulationStore(tmp_path)
    store.write("k", {"a": 1})
    assert store.read("k") == {"a": 1, "key": "k"}
    monkeypatch.setattr(population, "RECORD_MAX_BYTES", 8)
    with pytest.raises(InputError, match=r"k.json: the stored run does not read \(NotStoredFile: \d+ bytes, more than"):
        store.read("k", name_bad=True)


# ------------------------------------------------------------ hunt 18b: a pool made anew within the command


@pytest.mark.slow
def test_a_pooled_study_run_with_its_report_prints_nothing_of_joblibs_folders(tmp_path):
    """Hunt 18b-F1: with its report (a second pool, after the runs'), a pooled `study run` that succeeded printed
    loky's "There appear to be 1 leaked folder objects" (3 of 3 times; 17b-F8's test ran with --no-report): the
    first pool's folder was left to joblib's exit handlers, which a command that ends at once never runs. Every
    folder of the process's pools is removed and given back to the tracker as the command ends."""
    import subprocess
    import sys

    from study_helpers import ROOT

    (tmp_path / "tiny.toml").write_text(TINY.format(count=2))
    r = subprocess.run(
        [sys.executable, "-m", "gamemarket", "study", "run", "tiny.toml", "--n-jobs", "2", "--no-progress"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "GAMEMARKET_POOL_START_S": "0"},
    )  # fmt: skip
    assert r.returncode == 0 and r.stderr == "", r.stderr


@pytest.mark.parametrize("name", ["a\nb", "tab\tname", " padded", "bell\x07", "nul\x00x"])
def test_a_plugin_name_is_one_line_of_printable_text(name):
    """Hunt 18b-W3: a payment rule named "a\\nb" passed `plugin check` and broke `simulate`'s summary table; empty and
    blank names were refused, control characters were not. Every registry refuses them."""
    from gamemarket.registry import Registry

    reg = Registry("test thing")
    try:
        with pytest.raises(InputError, match="one line of printable text"):
            reg.register(name, object())
        reg.register("fine-name", object())
    finally:
        Registry.instances.remove(reg)


@pytest.mark.parametrize("field", ["results", "report"])
def test_an_output_folder_through_a_link_to_nothing_is_refused_when_the_study_is_read(tmp_path, capsys, field):
    """Hunt 18b-W4: `[output] results = "strategies"`, a link copied without its target, was followed and its target
    made (three folders, among them a `gamemarket/` that shadowed the package); `--out` to such a link was refused."""
    (tmp_path / "gone").symlink_to("no/such/target")
    other = "report" if field == "results" else "results"
    (tmp_path / "t.toml").write_text(TINY.format(count=1) + f'[output]\n{field} = "gone/x"\n{other} = "elsewhere"\n')
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["study", "status", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"[output] {field}" in err and "is a link to no/such/target" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before and not (tmp_path / "no").exists()


# ------------------------------------------------------------ fuzz run S: a killed writer's temporary


def _temp_of(pid: int, folder: Path) -> Path:
    from gamemarket.io import files

    path = folder / f".o.parquet.gm-{pid}-h{files.HOST}_0.tmp"
    path.write_bytes(b"half")
    assert files.TEMP_NAME.match(path.name)
    return path


def test_a_temporary_of_a_killed_writer_not_yet_waited_for_is_stale(tmp_path):
    """Fuzz run S: `simulate --out` killed by SIGKILL left its temporary, and the next run beside it kept it: the
    killed writer was a zombie (not yet waited for by its parent), which `kill(pid, 0)` still finds."""
    import subprocess
    import time

    from gamemarket.io import files

    child = subprocess.Popen(["true"])
    for _ in range(100):  # until it has ended (a zombie: not waited for)
        if files._started(child.pid) == float("-inf"):
            break
        time.sleep(0.05)
    try:
        path = _temp_of(child.pid, tmp_path)
        assert files._stale(path.name, tmp_path)
        assert files.remove_stale_temps(tmp_path) == [path] and not path.exists()
    finally:
        child.wait()


def test_a_temporary_older_than_the_process_that_has_its_id_now_is_stale(tmp_path):
    """Process ids wrap (32,768 here): a temporary written before the process now holding its writer's id began was
    left by a writer that is gone; one written since may be that process's own, and is kept."""
    from gamemarket.io import files

    pid = os.getppid()  # (a live process: this suite's parent)
    path = _temp_of(pid, tmp_path)
    assert not files._stale(path.name, tmp_path)  # written after it began: perhaps its own
    os.utime(path, (0, 0))  # written in 1970: before it began
    assert files._stale(path.name, tmp_path)


# ------------------------------------------------------------ hunt 18c


PK_GROUP = """
from gamemarket.market import register_scheduler
from gamemarket.market.schedulers import PriorityKey
register_scheduler("pk-group", False, PriorityKey("group", per="estimate", descending=True), "test")
"""


def test_a_scheduler_keyed_on_an_optional_column_passes_plugin_check_and_a_table_without_it_is_named(tmp_path, capsys):
    """Hunt 18c-F1: a PriorityKey on `group` (an optional job-table column) registered and ran, but `plugin check`
    failed all five checks ("KeyError: 'group'", its preemption check saying a non-preemptive scheduler preempts):
    its cases had no optional column. A job table without the column named no column either."""
    import csv

    (tmp_path / "pk_group.py").write_text(PK_GROUP)
    assert main(["plugin", "check", str(tmp_path / "pk_group.py")]) == 0, capsys.readouterr()
    capsys.readouterr()
    table = tmp_path / "jt.csv"
    with open(table, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "submit", "runtime", "estimate", "private_bid", "reported_bid"])
        w.writerows([[k, k, 5, 5, 1.0 + k, 1.0 + k] for k in range(6)])
    argv = ["simulate", "--job-table", str(table), "--nodes", "2", "--plugin", str(tmp_path / "pk_group.py")]
    assert main([*argv, "--scheduler", "pk-group"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the job table has no column 'group'" in err and "KeyError" not in err, err


def test_api_arguments_of_the_wrong_type_are_named(monkeypatch):
    """Hunt 18c-F2: `to_egta(None)` and `PopulationConfig("truthful", ...)` were AttributeErrors from inside."""
    from gamemarket.games.egta import to_egta
    from gamemarket.studies.population import PopulationConfig

    with pytest.raises(InputError, match="to_egta: expected a RoleSymmetricGame, got NoneType"):
        to_egta(None)
    with pytest.raises(InputError, match="strategies must be a sequence of consumer strategies .* got str"):
        PopulationConfig("truthful", probe=0.01)
    with pytest.raises(InputError, match="strategies must be consumer strategies .* got int"):
        PopulationConfig((1, 2), probe=0.01)


def test_from_function_is_sized_before_it_enumerates(monkeypatch):
    """Hunt 18c-F3: 10^8 players of `RoleSymmetricGame.from_function` ended in a bare MemoryError under a 4 GB cap,
    and without one filled the machine (22.8 GB): sized in closed form first."""
    from gamemarket.games.rsgame import RoleSymmetricGame, all_profiles

    monkeypatch.setenv("GAMEMARKET_MEMORY_LIMIT", str(1 << 30))

    def never(counts):
        raise AssertionError("a payoff was asked for")

    with pytest.raises(InputError, match=r"from_function: a game of 100,000,001 profiles needs about"):
        RoleSymmetricGame.from_function(["all"], [10**8], [["v", "s"]], never)
    with pytest.raises(InputError, match=r"every profile of a role-symmetric game: 100,000,001 of them"):
        all_profiles([10**8], [2])
    assert all_profiles([3], [2]).tolist() == [[0, 3], [1, 2], [2, 1], [3, 0]]


def test_a_process_that_lives_on_sweeps_a_folder_again_after_a_while(tmp_path, monkeypatch):
    """Fuzz run T: a folder was swept of killed runs' temporaries once per process; a process that lives on (a
    notebook; the fuzzer, whose commands run in one process) kept a temporary a later killed writer left there."""
    import time

    from gamemarket.io import files

    monkeypatch.setattr(files, "_SWEPT", {})
    out = tmp_path / "o.csv"
    with files.atomic_path(out) as tmp:
        tmp.write_text("a")
    left = _temp_of(2**22 - 1 if files._pid_max() >= 2**22 - 1 else files._pid_max(), tmp_path)  # (no such process)
    with files.atomic_path(out) as tmp:  # at once: swept a moment ago, not again
        tmp.write_text("b")
    assert left.exists()
    monkeypatch.setattr(files, "_SWEPT", {os.path.abspath(tmp_path): time.monotonic() - files.SWEEP_AGAIN_S - 1})
    with files.atomic_path(out) as tmp:
        tmp.write_text("c")
    assert not left.exists() and out.read_text() == "c"


def test_a_folder_of_the_same_name_in_another_working_directory_is_swept_too(tmp_path, monkeypatch):
    """Fuzz runs S and T: the sweep's memory was keyed by the folder as named ("folder"), so a case in another
    working directory found "folder" swept already and kept the temporary a killed writer left there."""
    from gamemarket.io import files

    monkeypatch.setattr(files, "_SWEPT", {})
    for k in range(2):
        work = tmp_path / f"w{k}"
        (work / "folder").mkdir(parents=True)
        monkeypatch.chdir(work)
        left = _temp_of(files._pid_max(), work / "folder")  # (an id no process has)
        with files.atomic_path(Path("folder") / "o.csv") as tmp:
            tmp.write_text("x")
        assert not left.exists(), k


@pytest.mark.parametrize("given", [".toml", ".TOML"])
def test_study_new_of_no_name_before_toml_is_refused(tmp_path, capsys, monkeypatch, given):
    """Hunt 18c-W7: `study new .toml` named a file `.toml.toml` in its error."""
    monkeypatch.chdir(tmp_path)
    assert main(["study", "new", given]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no name before .toml" in err and ".toml.toml" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_description_holding_control_characters_writes_a_report_of_text(tmp_path, capsys, monkeypatch):
    """Hunt 18b-W5: a description holding a NUL wrote it into report.md (grep called it a binary file)."""
    study = tmp_path / "t.toml"
    study.write_text(TINY.format(count=1).replace('name = "tiny"', 'name = "tiny"\ndescription = "a\\u0000b\\u0007c"'))
    monkeypatch.chdir(tmp_path)
    assert main(["study", "run", str(study), "--no-progress"]) == 0, capsys.readouterr().err
    md = (tmp_path / "reports" / "tiny" / "report.md").read_text(encoding="utf-8")
    assert "abc" in md and "\x00" not in md and "\x07" not in md
