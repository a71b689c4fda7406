"""The command line's option values, declared: each option's type and range in one place.

``integer(...)`` and ``number(...)`` build argparse ``type`` callables from a declaration (bounds, whether
a bound is open, finiteness). A value outside its declaration is refused by argparse with the option's
name, the value and what was expected (exit 2, no traceback): ``--reduction 1.5``, ``--eps inf``,
``--nodes 2.5``, ``--seed -1``, ``--max-iter 0``, ``--synthetic-jobs 99999999999999999999`` never reach
the code that would misread them.
"""

from __future__ import annotations

import argparse
import difflib
import math
import re
import sys

from gamemarket.cli.output import STDOUT, quiet_stdout
from gamemarket.errors import SEED_MAX, InputError
from gamemarket.io.limits import MAX_NODES, MAX_WORKERS, check_workers

#: numpy's seeds and the engine's counters are 64-bit: a seed must fit
MAX_SEED = SEED_MAX  # the shared bound (gamemarket.errors)


def _shown(v) -> str:
    """A bound as a user would type it: an integer's digits, a float's shortest form."""
    return str(v) if isinstance(v, int) else f"{v:g}"


def _bounds(lo, hi, lo_open: bool, hi_open: bool) -> str:
    parts = []
    if lo is not None:
        parts.append(f"{'>' if lo_open else '>='} {_shown(lo)}")
    if hi is not None:
        parts.append(f"{'<' if hi_open else '<='} {_shown(hi)}")
    return " and ".join(parts)


def integer(
    *,
    min: int | None = None,  # noqa: A002
    max: int | None = None,  # noqa: A002
    limit: int | None = None,
    what: str = "an integer",
):
    """An argparse type: a whole number (``2.5``, ``1e3``, ``true`` and text refused) in ``[min, max]``.

    ``limit``: the most gamemarket can hold (an array of that many nodes or jobs), refused with its own
    message ("... and at most LIMIT"), so that what the option means (``>= 1``) stays what it says."""
    expected = what + (f" {_bounds(min, max, False, False)}" if min is not None or max is not None else "")

    def parse(text: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]{1,30}", text.strip()):  # (said: "2.5" met ">= 2", hunt 18c)
            most = f" and at most {limit:,}" if limit is not None else ""
            raise argparse.ArgumentTypeError(f"expected {expected}{most}, a whole number, got {text!r}")
        v = int(text)
        if (min is not None and v < min) or (max is not None and v > max):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {v}")
        if limit is not None and v > limit:
            raise argparse.ArgumentTypeError(f"expected {expected} and at most {limit}, got {v}")
        return v

    parse.__name__ = "integer"
    return parse


def number(
    *,
    min: float | None = None,  # noqa: A002
    max: float | None = None,  # noqa: A002
    min_open: bool = False,
    max_open: bool = False,
    what: str = "a finite number",
):
    """An argparse type: a finite number (``nan``, ``inf`` refused) within the declared bounds."""
    expected = what + (f" {_bounds(min, max, min_open, max_open)}" if min is not None or max is not None else "")

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        low = min is not None and (v <= min if min_open else v < min)
        high = max is not None and (v >= max if max_open else v > max)
        if not math.isfinite(v) or low or high:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text}")
        return v

    parse.__name__ = "number"
    return parse


#: the largest job count a command accepts (and, ``MAX_NODES``, node count): the study file's bounds
#: (``[workload.synthetic] jobs``, ``[workload] nodes``); beyond them an array of that size cannot even be allocated
MAX_JOBS = 10**9

#: the declarations shared by several commands
NODES = integer(min=1, limit=MAX_NODES, what="a number of nodes")
SEED = integer(min=0, max=MAX_SEED, what="a seed")
REDUCTION = number(min=0, max=1, max_open=True, what="a fraction of the trace's processors")
JOBS_COUNT = integer(min=1, limit=MAX_JOBS, what="a number of jobs")
POSITIVE = number(min=0, min_open=True, what="a finite number")
#: an offered load: far from 0 and from overflow (the generator's span is work / (nodes x load))
LOAD = number(min=1e-3, max=1e6, what="an offered load")  # as a study's [workload.synthetic] load
NONNEGATIVE = number(min=0, what="a finite number")


def workers(text: str) -> int:
    """``--n-jobs``: worker processes, >= 1, or -1 for all cores (joblib's 0 and -2 ... are refused)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    try:
        return check_workers(v)  # the rule of every path (run_study's n_jobs too)
    except InputError:
        raise argparse.ArgumentTypeError(
            f"expected a number of worker processes from 1 to {MAX_WORKERS}, or -1 for all cores; got {v}"
        ) from None


def add_force(parser, what: str) -> None:
    """The ``--force`` option of a command that writes ``what``."""
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace {what} where it exists (default: refuse); never an input, a pipe or a device, nor a file of "
        "a study's results or report folder",
    )


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every command's help: descriptions and epilogs keep their lines (the examples), and an option's help
    ends with its default where it has one and the help does not already say it.

    ``argparse.ArgumentDefaultsHelpFormatter`` would also print ``(default: None)`` for an option whose
    absence means something a sentence says better ("the model's own"), and ``(default: False)`` for
    every flag; here those help texts state their default in words. An empty default (``[]``, ``""``) is not shown
    either: ``(default: )`` says nothing; the help says what its absence means.
    """

    def _get_help_string(self, action) -> str:
        text = action.help or ""
        default = action.default
        if (
            default is None
            or default is argparse.SUPPRESS
            or isinstance(default, bool)
            or (isinstance(default, (str, list, tuple)) and not default)  # nothing to show: "(default: )"
            or "default" in text
            or not action.option_strings
        ):
            return text
        shown = " ".join(map(str, default)) if isinstance(default, (list, tuple)) else "%(default)s"
        return f"{text} (default: {shown})"


class Parser(argparse.ArgumentParser):
    """The ``gamemarket`` parser and, as argparse makes every subcommand's parser of its parent's class, each
    command's: a usage error (an unknown option, a value out of range, a missing argument) is one line on
    standard error, as every other error is, naming the command and where its help is, exit 2; argparse's own
    prints the usage block first (six to nine lines of every option) before the line that says what is wrong.
    A missing command lists the commands there are."""

    def parse_known_args(self, args=None, namespace=None):
        """argparse's, the words it was given kept for :meth:`error`'s hints."""
        self._words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def _greedy_hint(self) -> str:
        """Where an option that takes one or more values (``--methods pure lemke_howson``) was given before a
        positional argument, the hint that it took the argument too: "the following arguments are required: file"
        was said of a file that was given (``game solve --methods pure FILE``)."""
        words = getattr(self, "_words", [])
        greedy = [opt for act in self._actions if act.nargs in ("+", "*") for opt in act.option_strings if opt in words]
        if not greedy:
            return ""
        return (
            f" ({greedy[0]} takes every word after it, up to the next option: give the arguments before it, or end "
            "its values with --)"
        )

    def error(self, message: str):
        """Print ``message`` as one line naming the command and where its help is; exit 2."""
        sub = self._commands()
        if message.startswith("the following arguments are required") and not (sub is not None and sub.dest in message):
            message += self._greedy_hint()
        if sub is not None and message.startswith("the following arguments are required") and sub.dest in message:
            message = f"expected a command: one of {', '.join(sub.choices)}"
        elif sub is not None and message.startswith(f"argument {sub.dest}: invalid choice: "):
            # argparse names the command's internal dest ("argument scmd: invalid choice: 'check' (choose from ...)")
            given = message[len(f"argument {sub.dest}: invalid choice: ") :].split(" (choose from", 1)[0]
            near = difflib.get_close_matches(given.strip("'"), list(sub.choices), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            message = f"unknown command {given}{hint}; expected one of {', '.join(sub.choices)}"
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}; see `{self.prog} --help`\n")

    def _print_message(self, message, file=None):
        """argparse's, but a failed write is said, not swallowed: ``--help > /dev/full`` exited 0 with nothing
        written. A closed pipe (``--help | head -1``) is left quiet, as argparse leaves it."""
        if not message:
            return
        file = sys.stderr if file is None else file
        if file is None:  # the stream is closed (``2>&-``): nothing to say it on, and the exit code still says it
            return
        try:
            file.write(message)
            file.flush()
        except BrokenPipeError:
            pass
        except OSError as exc:
            name = STDOUT if file is sys.stdout else "standard error"
            try:
                sys.stderr.write(f"gamemarket: error: {name}: {exc.strerror or exc}\n")
            except OSError:
                pass
            quiet_stdout()
            raise SystemExit(EXIT_ERROR) from None

    def parse_args(self, args=None, namespace=None):
        """argparse's, but arguments no command knows are named by the command they were given to (argparse's
        top-level parser reports them, naming only ``gamemarket``)."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            parser = self
            while (sub := parser._commands()) is not None and getattr(ns, sub.dest, None) in sub.choices:
                parser = sub.choices[getattr(ns, sub.dest)]
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns

    def _commands(self) -> argparse._SubParsersAction | None:
        """The parser's subcommands, where it has them."""
        return next((a for a in self._actions if isinstance(a, argparse._SubParsersAction)), None)


def use_help_formatter(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and all its subcommands' parsers :class:`HelpFormatter` (set after they are built, so
    that a command group registered anywhere gets it)."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                use_help_formatter(sub)


#: the command's exit codes; ``EXIT_CODES`` says what each means (``docs/reference/cli.md`` lists them from here)
EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_ERROR = 2
EXIT_UNFINISHED = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
EXIT_HANGUP = 129
EXIT_TERMINATED = 143
EXIT_CODES = {
    EXIT_OK: "success",
    EXIT_CHECK_FAILED: "a conformance check failed (`plugin check`: the report names the check, the case and the "
    "first differing job)",
    EXIT_ERROR: "bad input (a damaged or unreadable file, a value out of range, an option that would have no "
    "effect), with one line on standard error that names the file, field or value and what was expected, and "
    "nothing half-written; also when a worker process dies under a command (killed by a signal: SIGKILL is most "
    "often the kernel's out-of-memory killer), with one line naming the signal (finished runs are kept and the "
    "same command resumes); also when the command's output cannot be written (a full disk under `> out.txt`: the "
    "line names standard output)",
    EXIT_UNFINISHED: "a solver stopped without converging (`price solve`), found no equilibrium (`game solve` of "
    "an EGTA JSON game, or with `--methods` that do not enumerate every equilibrium), or stopped before it had "
    "enumerated every equilibrium (`game solve` at its `--time-limit`, or of a bimatrix game whose degenerate "
    "faces exceed the enumeration's budget: what it found "
    "is printed, each verified, with a note that says how far the search got), or a `--concept qre` or "
    "`alpharank` computation stopped at `--time-limit` (one line says how far it got), or `study run` stopped at "
    "its `--time-limit` (finished runs are kept; the same command resumes)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C): no file is left half-written, and `study run` keeps the runs it "
    "finished (the same command resumes); one line on standard error says so, also while the command starts",
    EXIT_BROKEN_PIPE: "the reader of its output went away (`gamemarket ... | head`): it stops quietly, as a filter "
    "does",
    EXIT_HANGUP: "its terminal closed (SIGHUP) while the command ran: it stops as at a Ctrl-C, nothing left "
    "half-written",
    EXIT_TERMINATED: "terminated (SIGTERM: `kill`, `timeout`, a service manager) while the command ran: it stops as "
    "at a Ctrl-C, nothing left half-written, and one line on standard error says so",
}


def examples(*lines: str) -> str:
    """A subcommand's epilog: its example command lines, one per line (kept as written by :class:`HelpFormatter`)."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


class DeprecatedAlias(argparse.Action):
    """An option's old spelling, kept for one release: stores into the new option's ``dest`` and prints a
    one-line deprecation warning on stderr naming the new spelling."""

    def __init__(self, option_strings, dest, *, new: str, new_default=None, **kwargs):
        self.new, self.new_default = new, new_default
        kwargs.setdefault("help", f"deprecated spelling of {new}")
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(
            f"gamemarket: warning: {option_string} is deprecated and will be removed; use {self.new}", file=sys.stderr
        )
        prior = getattr(namespace, self.dest, self.new_default)
        if prior != self.new_default and prior != values:  # the new spelling came first, with another value
            parser.error(
                f"{self.new} {prior} and {option_string} {values} are one option (the second its deprecated "
                f"spelling) given twice with two values; give {self.new} once"
            )
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{ALIAS_MARK}{self.dest}", (option_string, self.new, values))


#: the attribute a deprecated spelling leaves on the parsed options: what it gave, checked against what the option
#: holds once every option is parsed (:func:`check_aliases`)
ALIAS_MARK = "_deprecated_alias_"


def check_aliases(args) -> None:
    """Refuse an option given in its deprecated spelling and its own with two values (hunt 20b-W12: ``--job-table A
    --jobs B`` ran whichever came last, the other dropped without a word)."""
    for name, (old, new, values) in [(k, v) for k, v in vars(args).items() if k.startswith(ALIAS_MARK)]:
        final = getattr(args, name[len(ALIAS_MARK) :])
        if final != values:
            raise InputError(
                f"{old} {values} and {new} {final} are one option (the first its deprecated spelling) given twice "
                f"with two values; give {new} once"
            )


def add_deprecated_alias(parser, old: str, new_action: argparse.Action) -> None:
    """Register ``old`` as a deprecated spelling of ``new_action`` (same type and destination)."""
    parser.add_argument(
        old,
        action=DeprecatedAlias,
        new=new_action.option_strings[0],
        new_default=new_action.default,
        dest=new_action.dest,
        type=new_action.type,
        metavar=new_action.metavar or new_action.dest.upper(),
        default=argparse.SUPPRESS,
    )


class OnceList(argparse.Action):
    """An option of one or more values that may be given once: argparse's own kept the last of two (``--methods
    pure lemke_howson --methods vertex`` solved by vertex alone, without a word); a second is an error saying to
    give every value after one."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = f"_given_{self.dest}"
        if getattr(namespace, seen, False):
            parser.error(
                f"argument {option_string}: given twice; give all its values after one {option_string} (such as "
                f"{option_string} {' '.join(map(str, values))} ...)"
            )
        setattr(namespace, seen, True)
        setattr(namespace, self.dest, values)


def names_option(registry, default, what: str) -> dict:
    """The keyword arguments of an option that takes one or more names of ``registry`` (a
    :class:`gamemarket.registry.Registry`): the names as its metavar, every entry's name and description in its help
    (``what`` names them), ``default`` (a tuple of names). The names are not argparse choices: an unknown one stays
    the registry's error (exit 2, listing the registered names), which a plugin's entries can answer too."""
    entries = "; ".join(f"{name}: {entry.description}" for name, entry in registry.items())
    return {
        "nargs": "+",
        "action": OnceList,
        "default": list(default),
        "metavar": "{" + ",".join(registry) + "}",
        "help": f"{what}: {entries}".replace("%", "%%"),
    }
