"""``gamemarket plugin check FILE`` and the ``--plugin FILE`` option of ``simulate``, ``study run``, ``game solve``
and the commands that read a study's stored runs (``study status``, ``study jobs``, ``report``, ``game export``).

Loading a plugin runs its code (``gamemarket.plugins``).
"""

from __future__ import annotations

import json

from gamemarket.cli.options import EXIT_CHECK_FAILED, EXIT_OK, SEED, examples, integer
from gamemarket.cli.output import foreign_code, print_table
from gamemarket.errors import raised
from gamemarket.plugins import GIVEN_ON_THE_COMMAND_LINE, load_plugin

#: the number of random cases of each check
CASES = integer(min=1, max=10_000, what="a number of cases")


def add_plugin_option(parser) -> None:
    """Add ``--plugin FILE`` (repeatable) to a command's parser; :func:`load_cli_plugins` loads them."""
    parser.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="FILE",
        help="load a plugin (a .py file or an installed entry point) first; loading it runs its code; repeatable "
        "(default: none)",
    )


def load_cli_plugins(args) -> None:
    """Load the plugins a command's ``--plugin`` options name, in order (a command without the option: none)."""
    specs = list(getattr(args, "plugin", None) or [])
    for spec in specs:
        load_plugin(spec)
    GIVEN_ON_THE_COMMAND_LINE[:] = specs  # (this command's: a hint to run a study again carries them, hunt 20d-W4)


def cmd_plugin_check(a) -> int:
    """``gamemarket plugin check FILE``: the conformance checks (``gamemarket.testing``) on every entry the
    plugin registers; prints each check's result; exit 1 when one fails, 2 on bad input."""
    # deferred: the checks' cases are DataFrames: pandas only for this command, not for every command's start
    from gamemarket.testing import check_event_scheduler, check_family, check_payment, check_provider, check_scheduler

    checks = {
        "scheduler": lambda n: check_scheduler(n, cases=a.cases, seed=a.seed, raise_on_failure=False),
        "payment": lambda n: check_payment(n, cases=a.cases, seed=a.seed, raise_on_failure=False),
        "family": lambda n: check_family(n, seed=a.seed, raise_on_failure=False),
        "provider": lambda n: check_provider(n, cases=a.cases, seed=a.seed, raise_on_failure=False),
        "event-scheduler": lambda n: check_event_scheduler(n, cases=a.cases, seed=a.seed, raise_on_failure=False),
    }
    load_cli_plugins(a)  # the plugins whose entries this one combines (a provider strategy's), loaded first
    # the plugin's code runs as it loads and as it is checked: what it prints goes to stderr, not into the report
    with foreign_code(f"plugin {a.file}"):
        plugin = load_plugin(a.file)
        reports = [_checked(checks[kind], kind, name, plugin) for kind, name in plugin.entries]
    if a.format == "json":
        print(json.dumps({"plugin": plugin.source, "reports": [r.to_dict() for r in reports]}, indent=2))
    else:
        entries = f"{len(plugin.entries)} {'entry' if len(plugin.entries) == 1 else 'entries'}"
        print(f"plugin {plugin.path} (hash {plugin.digest}): {entries}")
        for r in reports:
            print(r.head)
            print_table(
                ("result", "check", "detail"), [(c.status.upper(), c.check, c.detail) for c in r.results], indent=2
            )
        failed = [r.entry for r in reports if not r.passed]
        print(f"{'FAILED: ' + ', '.join(failed) if failed else 'all entries passed'}")
    return EXIT_CHECK_FAILED if any(not r.passed for r in reports) else EXIT_OK


#: how a report names each kind of entry (``ConformanceReport.what``)
_WHAT = {
    "scheduler": "scheduler",
    "payment": "payment scheme",
    "family": "consumer-strategy family",
    "provider": "provider strategy",
    "event-scheduler": "event scheduler",
}


def _checked(check, kind: str, name: str, plugin):
    """``check(name)``'s report; where the plugin's code stops the checks themselves (an error no check caught),
    a report of that entry whose ``checks`` check failed, naming the plugin, the entry and the error: the entry
    fails (exit 1), and the other entries' reports still print."""
    from gamemarket.testing.report import FAILED, ConformanceReport  # deferred: pandas, scipy.optimize (the checks)

    try:
        return check(name)
    except Exception as exc:  # the plugin's code, whatever it raised: its message, on one line
        report = ConformanceReport(_WHAT.get(kind, kind), name)
        detail = f"plugin {plugin.source}: the checks stopped: {raised(exc)}"
        report.add("checks", FAILED, detail)
        return report


def add_plugin_commands(sub) -> None:
    """Register ``gamemarket plugin check`` on the parser's subcommands ``sub``."""
    pl = sub.add_parser("plugin", help="check plugins").add_subparsers(dest="pcmd", required=True)
    c = pl.add_parser(
        "check",
        help="run the conformance checks on every entry a plugin registers (scheduler, payment, family, provider)",
        description="Loads the plugin (which runs its code), then checks each entry against the plain reference.",
        epilog=examples(
            "gamemarket plugin check examples/plugins/lowest_running.py",
            "gamemarket plugin check examples/plugins/shade_by_amount.py",
            "gamemarket plugin check examples/plugins/combined.py --plugin examples/plugins/lowest_running.py "
            "--plugin examples/plugins/bid_per_node_second.py",
            "gamemarket plugin check mechanisms.py --cases 100 --seed 1 --format json",
        ),
    )
    c.add_argument("file", help="the plugin: a .py file, or the name of an installed entry point")
    c.add_argument("--cases", type=CASES, default=30, help="random cases per check")
    c.add_argument("--seed", type=SEED, default=0, help="the cases' seed")
    c.add_argument("--format", choices=["text", "json"], default="text", help="each check's result as text or JSON")
    add_plugin_option(c)  # plugins loaded (not checked) before FILE: the entries it builds on
    c.set_defaults(func=cmd_plugin_check)
