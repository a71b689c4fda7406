"""The ``gamemarket`` command's entry point: the console script (``gamemarket.__main__:run``) and ``python -m
gamemarket``.

Ctrl-C while the command starts (importing its modules, reading its options: a second or more on a busy machine)
printed a Python traceback and ended the process by the signal. This module imports nothing heavy before it sets
a SIGINT handler that says so in one line and exits 130 (nothing has been written then); the command takes Ctrl-C
over where it starts to work (``gamemarket.cli.main``'s ``on_start``), and says what an interrupted command leaves.
"""

import os
import shutil
import signal
import sys
import tempfile
import threading


def interrupted_at_start(signum, frame) -> None:
    """SIGINT before the command started: one line, exit 130 (nothing has been written yet)."""
    os.write(2, b"gamemarket: interrupted; the command had not started: nothing was run\n")
    os._exit(130)


interrupted_at_start.exits_on_ctrl_c = True  # (a KeyboardInterrupt while it is the handler is code's: cli._RECORDING)


def ended_at_start(signum, frame) -> None:
    """SIGTERM or SIGHUP before the command started: one line, exit 128 + the signal's number (143, 129), as the
    command says it once started (the signal's default ended the process in silence, -15, in its imports)."""
    name = signal.Signals(signum).name
    os.write(2, f"gamemarket: terminated ({name}); the command had not started: nothing was run\n".encode())
    os._exit(128 + signum)


#: the signals that end the process at once before the command starts, given back to their default as it starts
#: (the command stops at them as at a Ctrl-C: ``gamemarket.cli.ENDING_SIGNALS``)
ENDING_AT_START = (signal.SIGTERM, signal.SIGHUP)


def _ctrl_c_to_the_command() -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for s in ENDING_AT_START:
        if signal.getsignal(s) is ended_at_start:
            signal.signal(s, signal.SIG_DFL)


def _finished(code: int) -> None:
    """The command has finished (its code known, its output written): a Ctrl-C while the process ends changes
    nothing, so it is ignored (it ended the process by the signal, exit -2 with no word); so are SIGTERM and SIGHUP."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


#: dask's configuration key (read from the environment when dask is imported) that sets its loggers' levels
DASK_LOG = "DASK_LOGGING"
#: every logger distributed configures with its own handler (``distributed.config.initialize_logging``'s defaults),
#: kept to critical errors: ``distributed`` alone left ``distributed.client`` at warning, whose error on a stream
#: closed as the client shut down printed a traceback beside the command's one line (the flake came back)
DASK_LOGGERS = ("distributed", "distributed.client", "distributed.gc", "bokeh", "tornado", "tornado.application")


def quiet_dask_log() -> None:
    """Keep dask's log to its critical errors for the whole process, unless the user set its level.

    The command says what went wrong in its one line; dask's log printed tracebacks beside it (a stream closed
    while the client shut down after a failed run). ``runner.parallel_backend`` raises the level while the client is
    open, which is right for the Python API, but a comm thread could still log after it put the level back, as
    the process ended (a flake of the worker-error test on a loaded machine). The level is set through dask's
    configuration before dask is imported, so no window is left."""
    if any(k == DASK_LOG or k.startswith(DASK_LOG + "__") for k in os.environ):
        return  # the user's levels, as set
    os.environ[DASK_LOG] = repr(dict.fromkeys(DASK_LOGGERS, "critical"))  # (dask reads it with ast.literal_eval)


#: numpy's switch (read from the environment as numpy is imported) for advising the kernel to back large arrays with
#: huge pages
HUGEPAGE = "NUMPY_MADVISE_HUGEPAGE"


def no_hugepage_advice() -> None:
    """Turn numpy's huge-page advice off for the command's process (and its workers), unless the user set it.

    Where memory is fragmented (a machine whose page cache fills most of it), each large array numpy makes with the
    advice stalls in the kernel's compaction while it finds huge pages: a 5,000 x 5,000 game's `game solve` took 13.7 s
    with it and 6.9 s without, a 1,000,000-job `price solve` 12.5 s and 9.8 s, the kernel's time 8.3 s and 0.7 s, 3.7 s
    and 0.7 s (medians of 3 on a 2-core machine: ``benchmarks/bench_large_games.py --hugepages``,
    ``benchmarks/results/large-games.txt``). The command makes its large arrays once; the advice would pay back in
    fewer address translations over long computations, which it did not here. ``NUMPY_MADVISE_HUGEPAGE=1`` gives
    it back."""
    os.environ.setdefault(HUGEPAGE, "0")


def _unsaid(_unraisable) -> None:
    """The command process's ``sys.unraisablehook``: an exception raised where nothing can catch it (a destructor's,
    as the process ends) is not printed (:func:`run`)."""


def run() -> int:
    """Set :func:`interrupted_at_start` for SIGINT, then run the command (``gamemarket.cli.run``), which gives
    Ctrl-C back to Python (a KeyboardInterrupt it handles) where the command starts to work and ignores it once the
    command has finished (:func:`_finished`). dask's log is kept to critical errors (:func:`quiet_dask_log`), numpy's
    huge-page advice off (:func:`no_hugepage_advice`)."""
    signal.signal(signal.SIGINT, interrupted_at_start)
    for s in ENDING_AT_START:
        if signal.getsignal(s) is signal.SIG_DFL:  # (one ignored by the caller, nohup's SIGHUP, stays ignored)
            signal.signal(s, ended_at_start)
    quiet_dask_log()
    no_hugepage_advice()
    # a library's object that fails as it is freed says so on stderr ("Exception ignored in ..."), beside the command's
    # one line: after SIGTERM stopped a first numba compilation, llvmlite's ObjectRef.__del__ traceback (fuzz run AC);
    # the command's process says what went wrong in its own words, and ends without the interpreter's teardown
    sys.unraisablehook = _unsaid
    from gamemarket.cli import run as command  # deferred: numpy and the rest, after the handler is set

    try:
        code = command(on_start=_ctrl_c_to_the_command, on_end=_finished)
    except KeyboardInterrupt:  # in the few steps between the command's end and _finished: it had finished
        _finished(0)
        os.write(2, b"gamemarket: interrupted; the command had finished, its output complete\n")
        code = 130
    end_now(code)
    return code  # (where end_now is replaced: the tests')


def end_now(code: int) -> None:
    """End the command's process now, with ``code``, its output flushed: without the interpreter's teardown.

    Its output complete, a command still ended by SIGINT (exit -2, no further word) or by a C++ library's
    "terminate called without an active exception" (exit -6 or 134): about once in 50 interrupts of `study run` on
    a loaded machine (the fuzzer's signals family; loops of 100 interrupts at 2-4 s), twice in 24 errors of
    `report` (hunt 16d: a run file of 0 bytes), and once in 2,871 commands of the fuzzer's run N, a `study run` that
    had succeeded (exit 0) beside another. The teardown (exit handlers, module and library destructors: pyarrow's
    thread pools among them) ran with a library's thread still running. Which step ended it was not pinned down
    (under strace, which slows the process, it did not happen); ending here, 100 interrupts gave 130 each. Every file
    the command wrote was closed by its own ``with`` blocks; its workers end with it (``workers.exit_with_parent``
    and joblib's own watch, the pool shut down here first); what the operating system holds (locks, descriptors,
    joblib's shared memory through its resource tracker) it releases."""
    from gamemarket.io.files import drop_stages  # deferred: numpy (imported already by the command)

    drop_stages()  # a report's staging folder not published: what its finalizer does at the interpreter's exit
    _shut_workers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or gone: nothing more can be said there
            pass
    os._exit(code)


#: seconds the pool of local workers is given to shut down as the process ends at once
SHUTDOWN_S = 10.0


def _shut_workers() -> None:
    """Shut joblib's pool of local workers down (its workers killed, its semaphores given back), as its exit handler
    would at the interpreter's exit: without it, joblib's resource tracker printed "There appear to be 1 leaked
    semlock objects" and a second line after the command's one line (hunt 16e: a worker that died). Bounded by
    :data:`SHUTDOWN_S`: a pool that does not stop in time is left to its workers' own watch of this process."""
    module = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(module, "_executor", None)
    if executor is None:
        return

    def shut() -> None:
        try:
            executor.shutdown(wait=True, kill_workers=True)
        except Exception:  # noqa: BLE001, S110 - a broken pool (its worker died): nothing more to give back
            pass
        # and the folders it shared arrays through (/dev/shm/joblib_memmapping_folder_*), which an exit handler of
        # joblib's removes at the interpreter's exit: "There appear to be 1 leaked folder objects" after a pooled
        # run that had succeeded (hunt 17b-F8)
        manager = getattr(executor, "_temp_folder_manager", None)
        try:
            if manager is not None:
                manager._clean_temporary_resources(force=True, allow_non_empty=True)
        except Exception:  # noqa: BLE001, S110 - what is left, joblib's resource tracker removes
            pass

    worker = threading.Thread(target=shut, daemon=True)
    worker.start()
    worker.join(SHUTDOWN_S)
    _drop_pool_folders()
    util = sys.modules.get("multiprocessing.util")
    if util is not None:  # the pool's semaphores' finalizers (they give them back to the resource tracker), as the
        # interpreter's exit runs them; children are left to their own watch of this process
        try:
            util._run_finalizers(0)
            util._run_finalizers()
        except Exception:  # noqa: BLE001, S110 - nothing more can be given back
            pass


def _pool_folder_bases() -> set[str]:
    """Where joblib makes the folders its pools share arrays through, as joblib chooses: ``JOBLIB_TEMP_FOLDER``, its
    shared-memory file system, the temporary folder."""
    reducer = sys.modules.get("joblib._memmapping_reducer")
    shared = getattr(reducer, "SYSTEM_SHARED_MEM_FS", None)
    return {b for b in (os.environ.get("JOBLIB_TEMP_FOLDER"), shared, tempfile.gettempdir()) if b}


def _drop_pool_folders() -> None:
    """Remove the folders this process's pools shared arrays through that are still there, and give them back to
    loky's resource tracker, as joblib's exit handlers would at the interpreter's exit (which the command ends
    without): a pool made anew within the command (the report's, after the runs') left its predecessor's folder to
    those handlers, and the tracker printed "There appear to be 1 leaked folder objects" (2 lines) after a pooled
    `study run` that had succeeded (hunt 18b-F1; 17b-F8 mended the last pool's only). The folders are this
    process's by their names (``joblib_memmapping_folder_<pid>_...``)."""
    tracker = sys.modules.get("joblib.externals.loky.backend.resource_tracker")
    if tracker is None:
        return
    prefix = f"joblib_memmapping_folder_{os.getpid()}_"
    for base in _pool_folder_bases():
        try:
            names = [n for n in os.listdir(base) if n.startswith(prefix)]
        except OSError:
            continue
        for name in names:
            path = os.path.join(base, name)
            shutil.rmtree(path, ignore_errors=True)
            try:
                tracker.unregister(path, "folder")
            except Exception:  # noqa: BLE001, S110 - the tracker gone: it has nothing left to say
                pass


if __name__ == "__main__":
    raise SystemExit(run())
