"""The ``gamemarket`` command: a thin layer over the modules; errors become a message and exit 2.

One module per command group: ``workload``, ``simulate``, ``studies`` (study and game), ``pricing`` (price).
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import gc
import os
import re
import signal
import sys
import threading
import warnings

from gamemarket import __version__
from gamemarket.cli.options import (
    EXIT_BROKEN_PIPE,
    EXIT_ERROR,
    EXIT_HANGUP,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_UNFINISHED,
    Parser,
    check_aliases,
    examples,
    use_help_formatter,
)
from gamemarket.cli.output import STDOUT, NamedStdout, foreign_code, quiet_stdout
from gamemarket.cli.pricing import add_pricing_commands
from gamemarket.cli.workload import add_workload_commands
from gamemarket.errors import GameMarketError, InputError, WorkerLost, plain_numbers, raised, worker_died
from gamemarket.io.files import forget_new_outputs
from gamemarket.io.limits import MEMORY_LIMIT_ENV, memory_limit
from gamemarket.registry import PLUGINS_ENV

#: the command groups, in the order ``gamemarket --help`` lists them, by the words that start their commands
GROUPS = {
    "workload": ("workload",),
    "simulate": ("simulate",),
    "studies": ("study", "game", "report"),
    "population": ("population",),
    "pricing": ("price",),
    "plugin": ("plugin",),
}


def _group(argv: list[str] | None) -> str | None:
    """The command group of ``argv``'s command (its first argument: the top-level parser's only options, ``--help``
    and ``--version``, end the run), None when it names none (an option first, a misspelt command, no argument):
    then every group is registered, and help and errors list every command."""
    word = argv[0] if argv else None
    return next((g for g, words in GROUPS.items() if word in words), None)


def _register(sub, group: str) -> None:  # noqa: C901 (one branch per group, each with its own import)
    """Register command group ``group``'s commands on the parser's subcommands ``sub``. Each group's module is
    imported here where it loads a heavy library, for a parser that registers it: the market (numba), which
    ``price solve`` does not need."""
    if group == "workload":
        add_workload_commands(sub)
    elif group == "simulate":
        from gamemarket.cli.simulate import add_simulate_command  # deferred: numba (the market), for its command

        add_simulate_command(sub)
    elif group == "studies":
        from gamemarket.cli.studies import add_study_commands  # deferred: numba (the market), for its commands

        add_study_commands(sub)
    elif group == "population":
        from gamemarket.cli.population import add_population_commands  # deferred: numba (the market), for its commands

        add_population_commands(sub)
    elif group == "pricing":
        add_pricing_commands(sub)
    else:
        from gamemarket.cli.plugin import add_plugin_commands  # deferred: numba (the registries), for its commands

        add_plugin_commands(sub)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``gamemarket`` argument parser: every command group registers its own subcommands.

    Parameters
    ----------
    argv : list of str, optional
        The arguments the parser is for: when their command belongs to one group (``price solve``), only that
        group is registered, so that a command loads only the modules its own group needs; without ``argv``, or
        when it names no group's command, every group (the full parser: its help lists every command).
    """
    wanted = _group(argv)
    p = Parser(
        prog="gamemarket",
        description="Game-theoretic analysis of computing markets.",
        epilog=examples(
            "gamemarket study run studies/default.toml",
            "gamemarket simulate --synthetic-jobs 2000 --payment kth",
            "gamemarket COMMAND --help",
        ),
    )
    p.add_argument("--version", action="version", version=f"gamemarket {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for group, words in GROUPS.items():
        if wanted is None or group == wanted:
            _register(sub, group)
        else:  # a bare name only, so that the usage line (printed on an error after the command) lists every command
            for word in words:
                sub.add_parser(word)
    use_help_formatter(p)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings meant for the user (a merged strategy, a result set aside) as one line (:func:`_one_line`: at most
    :data:`MAX_MESSAGE` characters), without source code."""
    print(f"gamemarket: warning: {_one_line(message)}", file=file or sys.stderr)


#: the most characters of an error's one line: a longer one keeps its start and its end (where what was expected is
#: said), the middle cut and counted (hunt 17a: an error naming 200,000 strategies was 2 MB on one line)
MAX_MESSAGE = 2000


def _one_line(message) -> str:
    """An error's message on one line (a library's own text, quoted in ours, may hold line breaks: pandas's CSV
    parser ends its with one), spaces elsewhere kept as they are, at most :data:`MAX_MESSAGE` characters."""
    text = re.sub(r"\s*\n\s*", " ", str(message).strip())
    # a character a terminal would not show (a tab or an escape in a file's name): escaped as Python writes it, not
    # printed raw (hunt 22b-W14: "t<TAB>y.swf:7: malformed SWF line")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if len(text) > MAX_MESSAGE:
        head, tail = MAX_MESSAGE * 3 // 4, MAX_MESSAGE // 4 - 40
        text = f"{text[:head]} [... {len(text) - head - tail:,} characters cut ...] {text[-tail:]}"
    return plain_numbers(text)  # gamemarket's errors are plain already; a library's own message may not be


def _exit_called(exc: SystemExit) -> str:
    """The message for a ``sys.exit`` called while a command ran: a plugin's code (its rate function, its
    strategy) ended the process, with or without a message, where it should have raised an error; naming the
    plugins loaded tells the user whose code it was."""
    from gamemarket import plugins  # deferred: numba, as build_parser's imports

    loaded = ", ".join(p.source for p in plugins.loaded())
    return (
        f"sys.exit({exc.code!r}) was called while the command ran{f' (plugins loaded: {loaded})' if loaded else ''}; "
        "the command did not finish: expected plugin code to raise an exception, not to end the process"
    )


def _ignore_inherited_plugins() -> None:
    """Warn about, and drop, the plugins ``GAMEMARKET_PLUGINS`` lists that this process did not load: the variable is
    how gamemarket hands its plugins to its worker processes, and a value inherited from the user's environment would
    run code no ``--plugin`` names (``gamemarket.plugins.drop_inherited``)."""
    if not os.environ.get(PLUGINS_ENV, "").strip():
        return  # none listed: nothing to drop, and the registries (numba) stay unloaded
    from gamemarket import plugins  # deferred: numba, as build_parser's imports

    try:
        dropped = plugins.drop_inherited()
    except InputError as exc:  # not a list a gamemarket process wrote: ignored as a well-formed one is, and said
        os.environ.pop(PLUGINS_ENV, None)
        warnings.warn(f"{exc.args[0].removesuffix('; unset it')}; it is ignored (unset it)", stacklevel=2)
        return
    if dropped:
        warnings.warn(
            f"the environment variable {plugins.ENV} lists plugins this command did not load ({', '.join(dropped)}); "
            "they are not loaded: it is how gamemarket hands its plugins to its worker processes; load a plugin with "
            "--plugin FILE or a study's [plugins] modules",
            stacklevel=2,
        )


def main(argv: list[str] | None = None, *, on_start=None, on_end=None) -> int:
    """Run the command line; returns the exit code.

    A :class:`GameMarketError` (bad input, a failed check) prints one line on stderr and exits 2,
    with no traceback; warnings meant for the user print as one line each. A ``sys.exit`` called while the
    command runs (a plugin's code: gamemarket's own never calls it there) is an error too, exit 2, rather than a
    silent end whose exit code, even 0, would say nothing of what happened. Plugins an inherited
    ``GAMEMARKET_PLUGINS`` lists are not loaded (a warning names them); a malformed value is an error.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).
    on_start : callable, optional
        Called as the command starts to work, its options read (the entry point, ``gamemarket.__main__``, gives
        Ctrl-C back to Python there: until then its own handler exits in one line).
    on_end : callable, optional
        Called with the exit code as soon as the command has finished, interrupted or not (the entry point ignores
        Ctrl-C from there on: the process only ends, and a KeyboardInterrupt then ended it by the signal, exit -2
        with no word, after a command that had finished; the fuzzer's signals family found it).
    """

    argv = sys.argv[1:] if argv is None else list(argv)
    # the plugins the command line names load before the parser is built: its help and its lists of names then
    # show their entries; the command loads them again from its parsed options (a text loaded again registers
    # nothing)
    with _ctrl_c_seen():
        failed = _guarded(lambda: _load_plugins(_plugins_named(argv)))
    if failed is not None:
        return failed
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    failed = _guarded(lambda: _no_empty_values(parser, args) or check_aliases(args))
    if failed is not None:
        return failed
    stores = getattr(args.func, "__name__", "") == "cmd_study_run"  # the one command that stores runs as it goes
    said = "finished runs are kept (the same command resumes)" if stores else "no file was half-written"
    if on_start is not None:  # (the entry point: Ctrl-C back to Python, a KeyboardInterrupt said by _guarded)
        on_start()
    with _ctrl_c_seen():
        limit = getattr(args, "run_time_limit", None) if stores else None  # `study run --time-limit`
        return _guarded(lambda: _time_limited(limit, lambda: _run(args)), interrupted=f"interrupted; {said}",
                        on_end=on_end)  # fmt: skip


#: set by the command's SIGINT handler: a Ctrl-C came while the command ran
_SIGINT = threading.Event()
#: set while that handler is the command's (:func:`_ctrl_c_seen`), or one that ends the process on Ctrl-C (the entry
#: point's before the command starts): a KeyboardInterrupt with no Ctrl-C recorded was then raised by code the
#: command ran
_RECORDING = threading.Event()


#: numba's Python code that its compiled code calls back into (``_numba_unpickle``, as a compiled function's tuple
#: result is made Python's, or its exception raised): a KeyboardInterrupt raised there is not numba's to see
COMPILED_CALLBACKS = frozenset({"numba.core.serialize"})
#: how long after a signal taken later (:func:`_taken_later`) it is sent again, in seconds
AGAIN_S = 0.005


def _taken_later(signum, frame, send=None) -> bool:
    """Whether a signal whose handler stops the command came while compiled code had called back into numba's
    Python code (:data:`COMPILED_CALLBACKS`): a signal during a long compiled run is handled at the first Python
    code after it, which was numba's, boxing the run's tuple of results; the KeyboardInterrupt raised there ended
    `simulate` of 2,000,000 jobs with a segmentation fault (exit 139) where SIGTERM or Ctrl-C came in its run, and a
    smaller case with numba's SystemError. The signal is sent again a moment later instead (:data:`AGAIN_S`), by a
    thread, and so handled once back in gamemarket's code (sent again at once, it was handled again at the same
    instruction, without end)."""
    while frame is not None:
        if frame.f_globals.get("__name__") in COMPILED_CALLBACKS:
            again = (
                threading.Timer(AGAIN_S, os.kill, (os.getpid(), signum))
                if send is None
                else threading.Timer(AGAIN_S, send)
            )
            again.daemon = True
            again.start()
            return True
        frame = frame.f_back
    return False


def _record_ctrl_c(signum, frame) -> None:
    """Python's own handler (a KeyboardInterrupt), the Ctrl-C recorded first: a C extension interrupted as it
    initialises (matplotlib's, imported 1.5 s into `study run`) turns the KeyboardInterrupt into "ImportError:
    initialization failed", a traceback and exit 1 (the fuzzer's signals family found it). Inside numba's
    callbacks, taken later (:func:`_taken_later`)."""
    if _taken_later(signum, frame):
        return
    _SIGINT.set()
    raise KeyboardInterrupt


#: the signals that stop a command as Ctrl-C does, where their handler is the default: SIGTERM (``kill``,
#: ``timeout``, systemd, ``docker stop``) and SIGHUP (the terminal closed); exit 128 + the signal's number
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
ENDED_EXIT = {signal.SIGTERM: EXIT_TERMINATED, signal.SIGHUP: EXIT_HANGUP}
#: the ending signal received while the command ran (its number), else None
_ENDED_BY: list = [None]


def _record_term(signum, frame) -> None:
    """SIGTERM or SIGHUP while the command runs: stopped as a Ctrl-C stops it (a KeyboardInterrupt, what every
    writer cleans up after), recorded as a termination (hunt 17a-66: `game export` killed by SIGTERM ended 143 with
    no word and left a new folder holding an empty manifest, where SIGINT cleaned up). Inside numba's callbacks,
    taken later (:func:`_taken_later`)."""
    if _taken_later(signum, frame):
        return
    _ENDED_BY[0] = signum
    raise KeyboardInterrupt


@contextlib.contextmanager
def _ctrl_c_seen():
    """While the command runs, where Ctrl-C raises KeyboardInterrupt (Python's default handler is in place), record
    each Ctrl-C before it is raised (:func:`_record_ctrl_c`), and stop at SIGTERM or SIGHUP as at a Ctrl-C where
    its handler is the default (:func:`_record_term`); the handlers are put back after."""
    _SIGINT.clear()
    _ENDED_BY[0] = None
    _TIMED_OUT.clear()  # (a command's earlier run in this process stopped at its limit: not this one's, the review)
    current = signal.getsignal(signal.SIGINT)
    mine = current is signal.default_int_handler
    if mine:
        signal.signal(signal.SIGINT, _record_ctrl_c)
    if mine or getattr(current, "exits_on_ctrl_c", False):  # (the entry point's, before the command starts)
        _RECORDING.set()
    main_thread = threading.current_thread() is threading.main_thread()
    ours = [s for s in ENDING_SIGNALS if main_thread and signal.getsignal(s) is signal.SIG_DFL]
    for s in ours:
        signal.signal(s, _record_term)
    try:
        yield
    finally:
        _RECORDING.clear()
        # put back only where still ours: the entry point's on_end ignores Ctrl-C once the command has finished,
        # and putting Python's handler back over that let a Ctrl-C during the process's end kill it (exit -2)
        if mine and signal.getsignal(signal.SIGINT) is _record_ctrl_c:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        for s in ours:
            if signal.getsignal(s) is _record_term:
                signal.signal(s, signal.SIG_DFL)


#: the command's own time limit (``study run --time-limit``) in seconds, while it is armed; and whether it was reached
_TIME_LIMIT: list = [None]
_TIMED_OUT = threading.Event()


def _time_limited(seconds: float | None, step):
    """``step()`` under a time limit of its own (``study run --time-limit``; None: none): at ``seconds`` of wall
    clock (``SIGALRM``, from ``setitimer``, which wakes a wait as Ctrl-C does and reaches the process alone, not its
    workers) the command stops as at a Ctrl-C, every writer cleaning up after it as there, and :func:`_stopped` says
    the limit was reached (exit 3). A signal rather than a look at the clock in each loop: the one stop every stage
    of a study already takes anywhere (its runs, a population's adaptive seeds, a design's probes, its report),
    tested there by the fuzzer's signals family. The timer and its handler are put back as they were after."""
    _TIMED_OUT.clear()
    if seconds is None:
        return step()
    previous = signal.signal(signal.SIGALRM, _record_time_limit)
    _TIME_LIMIT[0] = seconds
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return step()
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            signal.signal(signal.SIGALRM, previous)


def _record_time_limit(signum, frame) -> None:
    """``SIGALRM`` at the command's time limit: recorded, then raised as a Ctrl-C is (not where the command is
    already stopping at a Ctrl-C or a signal; inside numba's callbacks, taken later: :func:`_taken_later`)."""
    if _SIGINT.is_set() or _ENDED_BY[0] is not None or _taken_later(signum, frame, send=_alarm_again):
        return
    _TIMED_OUT.set()
    raise KeyboardInterrupt


def _alarm_again() -> None:
    """The time limit's signal taken later (:func:`_taken_later`), as Python's own handler would take it
    (``_thread.interrupt_main``): where the command has ended meanwhile and its handler is put back (the default's
    would end the process, "Alarm clock", after a command that had finished: the review), nothing happens."""
    _thread.interrupt_main(signal.SIGALRM)


#: what a KeyboardInterrupt raised with no Ctrl-C is said to be (a plugin's ``raise KeyboardInterrupt`` in a worker
#: was said to be the user's Ctrl-C, exit 130)
RAISED_NOT_PRESSED = (
    "a KeyboardInterrupt was raised with no Ctrl-C here: by code the command ran (a plugin's?) or an interrupt sent to "
    "a worker alone; expected plugin code to raise an exception that says what is wrong"
)

#: seconds after which a KeyboardInterrupt Python could only report is delivered to the main thread again
REDELIVER_S = 0.05


def _unraisable(hook):
    """``sys.unraisablehook`` for a running command: a KeyboardInterrupt raised where Python can only report it (a
    ctypes callback: numba compiling through llvmlite) printed a traceback and was lost, the command going on; it
    is delivered to the main thread again instead (``_thread.interrupt_main``, :data:`REDELIVER_S` later, from a
    timer's thread), in silence. Anything else goes to
    ``hook`` (Python's)."""

    def unraisable(info) -> None:
        if info.exc_type is not None and issubclass(info.exc_type, KeyboardInterrupt):
            # a moment later, from another thread: called here, in the main thread, the SIGINT handler ran inside
            # this hook, whose KeyboardInterrupt Python printed ("Exception ignored in sys.unraisablehook", a
            # traceback) and lost (the fuzzer's signals family, run M)
            later = threading.Timer(REDELIVER_S, _thread.interrupt_main)
            later.daemon = True
            later.start()
            return
        hook(info)

    return unraisable


def _no_empty_values(parser: argparse.ArgumentParser, args) -> None:
    """An option or argument given as an empty string (``--out ""``, ``--mix=``, a variable that was not set) is
    an error naming it (exit 2): taken as it is, it read as not given (``if a.out``), and the command did what it
    does without it. Returns None (the command goes on)."""
    named: dict[str, str] = {}
    p = parser
    while p is not None:  # the parsers of the command given (``plugin check``), each one's options named
        sub = None
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                sub = action.choices.get(getattr(args, action.dest, None))
            else:
                named[action.dest] = "/".join(action.option_strings) or action.metavar or action.dest
        p = sub
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise InputError(f"argument {named.get(dest, dest)}: expected a value, got {value!r}")
    return None


def _run(args) -> int:
    """The parsed command: its ``--plugin`` files loaded (before it looks up a name one registers), then run."""
    _load_plugins(getattr(args, "plugin", None) or [])
    return int(args.func(args) or 0)


def _guarded(step, interrupted: str = "interrupted; no file was half-written", on_end=None):
    """``step()``'s result, or the exit code of what it raised, said in one line (see :func:`main`);
    ``interrupted``: what Ctrl-C leaves, said where it stops the command; ``on_end``: called with the code before
    it is returned (:func:`main`)."""
    code = _guarded_code(step, interrupted)
    if on_end is not None:
        on_end(code)
    return code


def _guarded_code(step, interrupted: str):
    """:func:`_guarded`'s result (see there)."""
    shown, warnings.showwarning = warnings.showwarning, _show_warning
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable(sys.unraisablehook)
    out, err = sys.stdout, sys.stderr
    sys.stdout = NamedStdout(out)  # an error writing what the command prints names standard output
    if err is None:  # stderr closed (``2>&-``): its lines go nowhere, not into standard output (print's None)
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (closed in the finally below)
    try:
        _ignore_inherited_plugins()
        code = step()
        sys.stdout.flush()  # what the command printed is written before it is said to have finished
        return code
    except SystemExit as exc:  # gamemarket never exits inside a command: a plugin's code called sys.exit
        print(f"gamemarket: error: {_exit_called(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except GameMarketError as exc:
        print(f"gamemarket: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader went away (``gamemarket ... | head``): stop quietly, as a filter does
        quiet_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # a file or connection the checks above did not foresee: still a message, not a trace
        where = f"{exc.filename}: " if exc.filename else ""
        if exc.filename == STDOUT:  # the interpreter's flush at exit would fail on the rest a second time
            quiet_stdout()
        print(f"gamemarket: error: {_one_line(f'{where}{exc.strerror or exc}')}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return _stopped(interrupted)
    except MemoryError:  # past every size check (hunt 16c: a limit the checks did not know of was a traceback)
        print(f"gamemarket: error: {_out_of_memory()}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        if _ENDED_BY[0] is not None or _SIGINT.is_set() or _TIMED_OUT.is_set():  # a signal that surfaced as
            # another error: a Ctrl-C in a C extension's import; SIGTERM while numba wrote its cache ("no compiled
            # object yet", hunt 23b-F6)
            return _stopped(interrupted)
        if not worker_died(exc):
            raise
        print(f"gamemarket: error: {_one_line(_worker_death(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except BaseException as exc:  # neither an Exception nor one of the above: code the command ran raised it
        print(f"gamemarket: error: {_one_line(_base_exception(exc))}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        forget_new_outputs()  # the outputs it found absent: the next command (a test's, in this process) checks its own
        sys.stdout = out
        if err is None:
            sys.stderr.close()
            sys.stderr = err
        warnings.showwarning = shown
        sys.unraisablehook = hook


def _stopped(interrupted: str) -> int:
    """A KeyboardInterrupt in words and its exit code: SIGTERM or SIGHUP (recorded by their handler), a Ctrl-C, or
    code's own (no Ctrl-C recorded while the command's handler was in place: hunt 16e-31, a plugin's)."""
    said = interrupted.partition("; ")[2]
    if _TIMED_OUT.is_set():  # (before a signal: the handlers above ignore the limit once one of those stops it)
        print(f"gamemarket: stopped at --time-limit ({_TIME_LIMIT[0]:g} s); {said}; exit 3", file=sys.stderr)
        return EXIT_UNFINISHED
    if _ENDED_BY[0] is not None:
        print(f"gamemarket: terminated ({signal.Signals(_ENDED_BY[0]).name}); {said}", file=sys.stderr)
        return ENDED_EXIT[_ENDED_BY[0]]
    if _RECORDING.is_set() and not _SIGINT.is_set():
        print(f"gamemarket: error: {RAISED_NOT_PRESSED} ({said})", file=sys.stderr)
        return EXIT_ERROR
    print(f"gamemarket: {interrupted}", file=sys.stderr)
    return EXIT_INTERRUPTED


def _base_exception(exc: BaseException) -> str:
    """A ``BaseException`` that is no ``Exception`` (a plugin's own subclass, a ``GeneratorExit`` raised by hand),
    in words: gamemarket raises none, so it is code the command ran (hunt 17b-F4: a traceback, exit 1, in the command's
    process and from a worker alike)."""
    from gamemarket import plugins  # deferred: numba, as build_parser's imports

    loaded = ", ".join(p.source for p in plugins.loaded())
    return (
        f"{raised(exc)} was raised while the command ran{f' (plugins loaded: {loaded})' if loaded else ''}: a "
        "BaseException that is no Exception, which gamemarket never raises; expected plugin code to raise an "
        "Exception that says what is wrong"
    )


def _out_of_memory() -> str:
    """A MemoryError in words: the limit the size checks held it to, and what to do."""
    try:
        limit = memory_limit()
    except GameMarketError:
        limit = None
    held = (
        f" (the size checks allowed {int(limit):,} bytes: {getattr(limit, 'said', MEMORY_LIMIT_ENV)})" if limit else ""
    )
    return (
        f"ran out of memory{held}; nothing was half-written. Ask for less (fewer jobs, runs or strategies), or set "
        f"{MEMORY_LIMIT_ENV} (bytes) to what this process may really take, so that a request beyond it is refused "
        "before it starts"
    )


def _worker_death(exc: BaseException) -> str:
    """A worker's death in words: the signal where the pool names one, the likely cause, and how to resume."""
    chain, e = [], exc
    while e is not None:  # the pool's own error may lie under ours (WorkerLost, which names the unfinished runs)
        chain.append(e)
        e = e.__cause__ or e.__context__
    text = " ".join(str(e) for e in chain)
    sig = next((s for s in ("SIGKILL", "SIGSEGV", "SIGTERM", "SIGBUS", "SIGABRT") if s in text), None)
    crashes = {"SIGSEGV", "SIGBUS", "SIGABRT"}
    killed = any(type(e).__name__ == "KilledWorker" for e in chain)
    cancelled = any("CancelledError" in type(e).__name__ for e in chain)
    why = (
        "on the dask cluster: its scheduler gave a run up after the workers running it died (KilledWorker); the "
        "workers' logs say how (a plugin's exit, a crash, the out-of-memory killer)"
        if killed
        else "on the dask cluster: its scheduler cancelled the runs once the workers holding their data had died; the "
        "workers' logs say how (a plugin's exit, a crash, the out-of-memory killer)"
        if cancelled
        else "SIGKILL: most often the kernel's out-of-memory killer (see `dmesg`)"
        if sig == "SIGKILL"
        else f"{sig}: its native code crashed (a plugin's compiled code, or a library's); PYTHONFAULTHANDLER=1 has the "
        "worker print where"
        if sig in crashes
        else (sig or "no signal named")
    )
    lost = next((e for e in chain if isinstance(e, WorkerLost)), None)
    held = f" with {lost} (one of them the dead worker's)" if lost is not None and lost.runs else ""
    return (
        f"a worker process died ({why}){held}; the runs that finished are kept. Run the same command again to "
        "resume (with fewer workers, --n-jobs, or more memory, where memory ran out)"
    )


def _plugins_named(argv: list[str]) -> list[str]:
    """The files ``--plugin FILE`` (or ``--plugin=FILE``) names on the command line, in order, read before the
    parser exists (its options and its help list what the plugins register)."""
    out = []
    for k, a in enumerate(argv):
        if a == "--":
            break
        if a == "--plugin" and k + 1 < len(argv):
            out.append(argv[k + 1])
        elif a.startswith("--plugin="):
            out.append(a.split("=", 1)[1])
    return out


def _load_plugins(specs: list[str]) -> None:
    """Load the plugins ``specs`` names (none: nothing is imported), their prints kept off stdout (``foreign_code``)."""
    if not specs:
        loaded = sys.modules.get("gamemarket.plugins")  # (a command of its own: no earlier command's plugins named)
        if loaded is not None:
            loaded.GIVEN_ON_THE_COMMAND_LINE.clear()
        return
    from gamemarket.cli.plugin import load_cli_plugins  # deferred: numba, as build_parser's imports

    with foreign_code(f"plugin {', '.join(map(str, specs))}"):
        load_cli_plugins(argparse.Namespace(plugin=specs))


#: the collector's young-generation threshold for a command-line process (Python's default is 700)
PROCESS_GC_THRESHOLD = 100_000


def run(*, on_start=None, on_end=None) -> int:
    """The process's command (``gamemarket.__main__.run``, the ``gamemarket`` console script and ``python -m
    gamemarket``, calls it with its ``on_start``): :func:`main`, with the garbage collector set for a process that
    ends when the command does.

    - Importing numba and initialising its compiler target make some 10^5 objects that live as long as
      the process. At Python's default threshold the collector walks them a few hundred times during
      start-up; with a young generation of ``PROCESS_GC_THRESHOLD`` objects it walks them about once.
      Cyclic garbage is still collected, in larger batches.
    - At exit the interpreter's last collection walks every object again and runs LLVM's destructors on
      memory the operating system takes back anyway; freezing the objects first skips that walk. Exit
      handlers, module teardown and the flushing of files run as before.

    :func:`main` itself leaves the collector alone: tests and scripts call it in their own process.
    ``python benchmarks/bench_startup.py`` measures the whole process.
    """
    gc.set_threshold(PROCESS_GC_THRESHOLD, *gc.get_threshold()[1:])
    code = main(on_start=on_start, on_end=on_end)
    gc.freeze()
    return code
