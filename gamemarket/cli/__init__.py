"""The ``gamemarket`` command: a thin layer over the modules; errors become a message and exit 2.

One module per command group: ``workload``, ``simulate``, ``studies`` (study and game), ``pricing`` (price).
"""

from __future__ import annotations

import argparse
import gc
import sys
import warnings

from gamemarket import __version__
from gamemarket.cli.options import examples, use_help_formatter
from gamemarket.cli.output import foreign_code
from gamemarket.cli.pricing import add_pricing_commands
from gamemarket.cli.workload import add_workload_commands
from gamemarket.errors import GameMarketError


def build_parser() -> argparse.ArgumentParser:
    """The ``gamemarket`` argument parser: every command group registers its own subcommands."""
    # deferred: the command groups load the market (numba) only when a parser is built, not on import
    from gamemarket.cli.plugin import add_plugin_commands
    from gamemarket.cli.simulate import add_simulate_command
    from gamemarket.cli.studies import add_study_commands

    p = argparse.ArgumentParser(
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
    add_workload_commands(sub)
    add_simulate_command(sub)
    add_study_commands(sub)
    add_pricing_commands(sub)
    add_plugin_commands(sub)
    use_help_formatter(p)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings meant for the user (a merged strategy, a result set aside) as one line, without source code."""
    print(f"gamemarket: warning: {message}", file=file or sys.stderr)


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


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    A :class:`GameMarketError` (bad input, a failed check) prints one line on stderr and exits 2,
    with no traceback; warnings meant for the user print as one line each. A ``sys.exit`` called while the
    command runs (a plugin's code: gamemarket's own never calls it there) is an error too, exit 2, rather than a
    silent end whose exit code, even 0, would say nothing of what happened.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).
    """

    from gamemarket.cli.plugin import load_cli_plugins  # deferred: numba, as build_parser's imports

    parser = build_parser()
    args = parser.parse_args(argv)
    shown, warnings.showwarning = warnings.showwarning, _show_warning
    try:
        # --plugin FILE: before the command looks up a name the plugin registers; its prints kept off stdout
        with foreign_code(f"plugin {', '.join(map(str, getattr(args, 'plugin', None) or []))}"):
            load_cli_plugins(args)
        return int(args.func(args) or 0)
    except SystemExit as exc:  # gamemarket never exits inside a command: a plugin's code called sys.exit
        print(f"gamemarket: error: {_exit_called(exc)}", file=sys.stderr)
        return 2
    except GameMarketError as exc:
        print(f"gamemarket: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or connection the checks above did not foresee: still a message, not a trace
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"gamemarket: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gamemarket: interrupted; finished runs are kept", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = shown


#: the collector's young-generation threshold for a command-line process (Python's default is 700)
PROCESS_GC_THRESHOLD = 100_000


def run() -> int:
    """The process entry point (the ``gamemarket`` console script and ``python -m gamemarket``):
    :func:`main`, with the garbage collector set for a process that ends when the command does.

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
    code = main()
    gc.freeze()
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
