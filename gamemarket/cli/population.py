"""``gamemarket population ...``: questions asked of a population study directly (``probe``)."""

from __future__ import annotations

from gamemarket.cli.options import examples, workers
from gamemarket.cli.plugin import add_plugin_option
from gamemarket.errors import SEED_MAX, InputError
from gamemarket.io.files import dumps_json
from gamemarket.reports.markdown import counted, num, num_ci

#: the most seeds and the largest seed, as a study file's ``seeds`` allows (gamemarket.studies.schema)
MAX_SEEDS = 100_000
MAX_SEED = SEED_MAX  # the shared bound (gamemarket.errors)


def _seeds(text: str) -> list[int]:
    """``--seeds``: a count from 1 (``6``) or a list (``1,2,5``)."""
    try:
        parts = [int(p) for p in text.split(",")]
    except ValueError:
        raise InputError(f"--seeds: expected a count (6) or a list of seeds (1,2,5), got {text!r}") from None
    if len(parts) == 1:
        if not 1 <= parts[0] <= MAX_SEEDS:
            raise InputError(f"--seeds: expected a count from 1 to {MAX_SEEDS:,} (a study's most seeds), got {text!r}")
        return list(range(1, parts[0] + 1))
    if len(parts) > MAX_SEEDS:
        raise InputError(f"--seeds: expected at most {MAX_SEEDS:,} seeds (a study's most), got {len(parts):,}")
    if min(parts) < 0 or max(parts) > MAX_SEED or len(set(parts)) != len(parts):
        raise InputError(f"--seeds: expected distinct seeds from 0 to 2**63 - 1, got {text!r}")
    return parts


def cmd_probe(a) -> int:
    """``population probe``: a single agent's paired gain, printed or as JSON."""
    # deferred: the study's workload and the market (pandas, numba)
    from gamemarket.search.probe import probe
    from gamemarket.studies import load_study

    if a.scheduler_address is not None:  # what answers there, named, before the workload is read
        from gamemarket.studies.scheduler import identify  # deferred: gamemarket.studies loads pandas and joblib

        identify(a.scheduler_address)
    spec = load_study(a.study)  # (a probe runs what it asks: it reads no stored results, and writes none)
    seeds = _seeds(a.seeds) if a.seeds is not None else None
    ans = probe(
        spec,
        a.mechanism,
        a.base,
        a.deviation,
        seeds=seeds,
        probe_share=a.probe,
        n_jobs=a.n_jobs,
        scheduler_address=a.scheduler_address,
    )
    if a.format == "json":
        print(dumps_json(ans.to_dict(), indent=2))
        return 0
    m, lo, hi = ans.gain
    gain = num_ci(m, lo, hi, 4) if lo == lo else f"{num(m, 4, sign=True)} (no interval: one seed)"
    base = " + ".join(f"{num(p, 3)} {r}" for r, p in ans.base.items())
    print(
        f"under {ans.mechanism}, with the population playing {base}, a single agent playing {ans.deviation} gains "
        f"{gain} bid x seconds per agent ("
        + (f"95% CI over {len(ans.seeds)} seeds; " if len(ans.seeds) > 1 else "")
        + "the paired estimate, "
        f"{num(ans.probe)} of the agents as probes: {counted(ans.probe_agents, 'agent')} of {ans.agents:,}, drawn "
        "anew at each seed; an "
        "estimate of its own: a study's report draws other probe agents, so its figure for the same question is "
        "another estimate of the same gain)"
    )
    if ans.note:
        print(f"note: {ans.note}")
    return 0


def add_population_commands(sub) -> None:
    """Register ``gamemarket population ...`` on the parser's subcommands ``sub``."""
    pop = sub.add_parser("population", help="ask a population study one question directly").add_subparsers(
        dest="pcmd", required=True
    )
    p = pop.add_parser(
        "probe",
        help="what a single agent gains by a rule, against a population mixture, under a mechanism",
        epilog=examples(
            "gamemarket population probe studies/population-default.toml --mechanism hb-first --base truthful "
            "--deviation shade-high-0.9",
            'gamemarket population probe studies/population-default.toml --mechanism hb-kth --base "0.5 truthful + '
            '0.5 shade-0.5" --deviation "per-class[0,0.5,0.9]" --seeds 4 --format json',
        ),
    )
    p.add_argument("study", help="a population study file (.toml): its workload, bids, agents, mechanisms and rules")
    p.add_argument(
        "--mechanism", required=True, help="one of the study's mechanisms (its [strategies] providers; required)"
    )
    p.add_argument(
        "--base",
        required=True,
        help='the population\'s mixture: a rule ("truthful"), or shares as the reports write them '
        '("0.7 shade-0.5 + 0.3 truthful"); a rule is a name of the study or its catalogue, or a point of a '
        "family, FAMILY[v1,...] within the family's own bounds, such as per-class[low,middle,high] (required); "
        "the shares' order does not matter: the mixture is drawn in the study's order of rules, then by name",
    )
    p.add_argument("--deviation", required=True, help="the single agent's rule (as for --base, one rule; required)")
    p.add_argument("--seeds", help="a count from seed 1 (6) or a list (1,2,5) (default: the study's seeds)")
    p.add_argument(
        "--probe",
        type=float,
        help="the probe agents' share (default: the study's [game.exploration] probe, else its [game] probe)",
    )
    p.add_argument("--format", choices=["text", "json"], default="text", help="how the answer is printed")
    p.add_argument("--n-jobs", type=workers, default=1, help="worker processes (default: 1; -1: all cores)")
    p.add_argument("--scheduler-address", help="a dask.distributed scheduler (default: none, local processes)")
    add_plugin_option(p)
    p.set_defaults(func=cmd_probe)
