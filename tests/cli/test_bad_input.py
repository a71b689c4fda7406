"""Every bad input the reliability issue lists, and the rest of the CLI surface, as one table.

Each case runs the ``gamemarket`` command in this process and asserts exit code 2, a message
that names the file, field or value and what was expected, no traceback (an unexpected exception
would fail the test), and nothing half-written: no temporary file, no output where the command failed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gamemarket.cli import main

SWF_LINE = "1 0 0 100 1 -1 -1 1 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"
JOB_HEADER = "id,submit,runtime,estimate,private_bid,reported_bid\n"


def _files(d: Path) -> None:
    """The bad (and a few good) inputs, written into ``d``."""
    (d / "folder").mkdir()
    (d / "plain.txt").write_text("a file, not a folder\n")
    (d / "empty.swf").write_text("")
    (d / "comments.swf").write_text("; Version: 2.2\n; MaxProcs: 4\n")
    (d / "negprocs.swf").write_text("; MaxProcs: -5\n; MaxNodes: 8\n" + SWF_LINE)
    (d / "binary.swf").write_bytes(bytes(range(256)) * 8)
    (d / "badline.swf").write_text(SWF_LINE + "2 10 0 nan 1\n")
    (d / "header-only.csv").write_text(JOB_HEADER)
    (d / "negsubmit.csv").write_text(JOB_HEADER + "1,0,100,100,2,2\n2,-5,100,100,1,1\n")
    (d / "good.csv").write_text(JOB_HEADER + "1,0,100,100,2,2\n2,5,100,100,1,1\n")
    (d / "huge-id.csv").write_text(JOB_HEADER + "1,0,100,100,2,2\n99999999999999999999,5,100,100,1,1\n")
    (d / "hex.csv").write_text(JOB_HEADER + "1,0,100,100,2,2\n2,5,0x10,100,1,1\n")
    (d / "missing-col.csv").write_text("id,submit,runtime\n1,0,5\n")
    (d / "unknown-key.toml").write_text(
        'name = "u"\n[workload]\nsource = "synthetic"\n[workload.synthetic]\njobs = 100\nfoo = 1\n'
    )
    (d / "typo-field.toml").write_text('name = "u"\nreplication = 3\n')
    (d / "escape.toml").write_text('name = "../../escape"\n')
    (d / "not-toml.toml").write_text("name = [unclosed\n")
    (d / "overflow.nfg").write_text('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1.7e308 1 -1.7e308 2 3 0 1 4\n')
    (d / "good.nfg").write_text('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1 1 0 0 0 0 1 1\n')
    (d / "short.nfg").write_text('NFG 1 R "g" { "P1" "P2" } { 2 2 }\n1 2 3\n')
    (d / "game.txt").write_text("1 2\n")
    (d / "zero.npz").write_bytes(b"")
    (d / "text.npz").write_text("not an archive")
    np.savez(d / "objects.npz", A=np.array([object(), 1], dtype=object), R=np.array([1.0]))
    np.savez(d / "strings.npz", A=np.array([["a", "b"]]), R=np.array([1.0, 2.0]))
    np.savez(d / "noR.npz", A=np.ones((3, 2)))
    np.savez(d / "problem.npz", A=np.ones((3, 2)), R=np.ones(2))
    small = (
        '[workload]\nsource = "synthetic"\nnodes = 4\n[workload.synthetic]\njobs = 60\n'
        '[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT"]\n[replications]\ncount = 2\n'
        '[output]\nresults = "results"\nreport = "report"\n'
    )
    (d / "paper-field.toml").write_text('name = "p"\n[paper]\npages = 3\n' + small)
    (d / "paper-jobs.toml").write_text('name = "p"\n[paper]\njobs = -1\n' + small)
    quotes = 'notes = "{population.hb-first.truthful}"\n'  # (a population study no field quotes: no effect)
    (d / "no-population.toml").write_text('name = "p"\npopulation_study = "nope.toml"\n' + quotes + small)
    small_pop = small.replace('consumers = ["FT"]\n', "")  # (a population study plays its [game] menu)
    (d / "typed-notes.toml").write_text('name = "p"\nnotes = "shading pays 12% more"\n' + small)
    (d / "unknown-field-notes.toml").write_text('name = "p"\nnotes = "claim (1): {claim.c9.ci}"\n' + small)
    unmeasured = 'name = "p"\nnotes = "claim (3): {claim.c3-nphb-low-bsd.ci}"\n'
    (d / "unmeasured-field-notes.toml").write_text(unmeasured + small)
    (d / "consumer-list.toml").write_text('name = "p"\n' + small.replace("consumers =", "consumer ="))
    pop = '[game]\nkind = "population"\nstrategies = ["truthful", "mine"]\n'
    (d / "shading-number.toml").write_text('name = "p"\n' + small_pop + pop + "shading = 3\n")
    (d / "shading-class.toml").write_text(
        'name = "p"\n' + small_pop + pop + "[game.shading.mine]\nbeta = {top = 0.5}\n"
    )
    provider = '[strategies.provider.x]\nscheduler = "hb"\npayment = "kth"\n'
    own = small.replace('providers = ["hb-first"]', 'providers = ["x"]')
    (d / "provider-kind.toml").write_text('name = "p"\n' + own + provider + 'kind = "auction"\n')
    (d / "provider-overhead.toml").write_text('name = "p"\n' + own + provider + "preemption_overhead = 5.0\n")
    (d / "hetero-table.toml").write_text('name = "p"\n' + small.replace("[workload.synthetic]", "[workload.hetero]"))
    (d / "source-typo.toml").write_text('name = "p"\n' + small.replace('"synthetic"', '"synthtic"', 1))
    unrun = '[game]\nkind = "population"\nstrategies = ["truthful", "shade-0.5"]\nreduced_players = 2\n'
    (d / "unrun-pop.toml").write_text(
        'name = "q"\n' + small_pop.replace('results = "results"', 'results = "q"') + unrun
    )
    # the reliability issue's families (issue 27): hostile files of every input kind
    import pandas as pd

    jobs = pd.DataFrame(
        {"id": [1, 2], "submit": [0, 5], "runtime": [100, 100], "estimate": [100, 100], "private_bid": [2.0, 1.0]}
    )
    jobs.assign(reported_bid=[2.0, 1.0], submit=pd.to_datetime([0, 5], unit="s")).to_parquet(d / "datetime.parquet")
    jobs.assign(reported_bid=[2.0, 1.0], runtime=[True, True]).to_parquet(d / "bool.parquet")
    (d / "huge-bid.csv").write_text(JOB_HEADER + "1,0,100,100,2,2\n2,5,100,100,1e300,1e300\n")
    (d / "twice.csv").write_text(
        "provider,consumer,provider_payoff,consumer_payoff\na,x,1,1\na,y,2,2\nb,x,3,3\nb,y,4,4\na,x,9,9\n"
    )
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    # plugins (gamemarket.plugins): each bad one is refused before it registers anything
    (d / "plugin-raises.py").write_text("raise ValueError('my plugin broke')\n")
    (d / "plugin-empty.py").write_text("x = 1\n")
    (d / "plugin-taken.py").write_text(
        "from gamemarket.market import register_scheduler\nfrom gamemarket.market.schedulers import PriorityKey\n"
        "register_scheduler('hb', False, PriorityKey('runtime'), 'takes a built-in name')\n"
    )
    (d / "plugin-signature.py").write_text(
        "from gamemarket.market.payments import payment_rule\n"
        "@payment_rule('one-arg', 'x')\ndef f(bid):\n    return bid\n"
    )
    (d / "huge-int.json").write_text('{"players": {"all": ' + "9" * 5000 + "}}")
    # gameanalysis's matrix game (matrix.1), malformed: a profile left out, two players in a role, a payoff of text,
    # and a declared size beyond what is read (refused before the profiles are built)
    matrix = {"players": {"p": 1, "q": 1}, "strategies": {"p": ["a", "b"], "q": ["x", "y"]}, "type": "matrix.1"}
    cell = {"p": 1.0, "q": 0.0}  # (nested by role in sorted order: p's strategy, then q's)
    full = {"a": {"x": cell, "y": cell}, "b": {"x": cell, "y": cell}}
    huge = {"p": [f"s{i}" for i in range(4000)], "q": [f"t{i}" for i in range(4000)]}
    for name, change in {
        "m-missing": {"payoffs": {"a": {"x": cell, "y": cell}, "b": {"x": cell}}},
        "m-players": {"payoffs": full, "players": {"p": 2, "q": 1}},
        "m-text": {"payoffs": {**full, "b": {"x": cell, "y": {"p": "1", "q": 0.0}}}},
        "m-huge": {"payoffs": {}, "strategies": huge},
    }.items():
        (d / f"{name}.json").write_text(json.dumps({**matrix, **change}))
    (d / "nan.json").write_text('{"players": {"all": NaN}, "strategies": {}, "profiles": []}')
    (d / "loop.toml").symlink_to(d / "loop.toml")
    (d / "fraction-count.toml").write_text('name = "p"\n' + small.replace("count = 2", "count = 2.5"))
    (d / "string-count.toml").write_text('name = "p"\n' + small.replace("count = 2", 'count = "many"'))
    (d / "bool-nodes.toml").write_text('name = "p"\n' + small.replace("nodes = 4", "nodes = true"))
    (d / "negative-seed.toml").write_text('name = "p"\n' + small.replace("count = 2", "seeds = [1, -3]"))
    (d / "huge-toml-int.toml").write_text('name = "p"\n' + small.replace("jobs = 60", "jobs = 1" + "0" * 30))
    (d / "deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    (d / "no-effect.toml").write_text('name = "p"\n' + small.replace("nodes = 4\n", 'nodes = 4\nparallel = "drop"\n'))
    (d / "users-folder").mkdir()
    (d / "users-folder" / "notes.txt").write_text("the user's own file\n")
    (d / "into-users.toml").write_text(
        'name = "p"\n' + small.replace('results = "results"', 'results = "users-folder"')
    )
    (d / "report-into-users.toml").write_text(
        'name = "p"\n' + small.replace('report = "report"', 'report = "users-folder"')
    )
    (d / "outputs-one.toml").write_text('name = "p"\n' + small.replace('report = "report"', 'report = "results"'))
    (d / "existing.csv").write_text("the user's table\n")
    (d / "fracprocs.swf").write_text("; MaxProcs: 2.5\n" + SWF_LINE)
    (d / "loop-results").symlink_to(d / "loop-results")
    (d / "loop-out.toml").write_text(
        'name = "p"\n' + small.replace('results = "results"', 'results = "loop-results/x"')
    )
    # found by the CLI fuzz (tests/fuzz_cli.py): generator values whose times leave the engine's whole seconds
    (d / "tiny-load.toml").write_text('name = "p"\n' + small.replace("jobs = 60", "jobs = 60\nload = 1e-300"))
    (d / "huge-overestimate.toml").write_text(
        'name = "p"\n' + small.replace("jobs = 60", "jobs = 60\noverestimate = 1e16")
    )
    (d / "huge-max-runtime.toml").write_text(
        'name = "p"\n' + small.replace("jobs = 60", "jobs = 60\nmax_runtime = 1" + "0" * 30)
    )
    (d / "huge-median.toml").write_text(
        'name = "p"\n' + small.replace("jobs = 60", "jobs = 60\nruntime_median = 1e300")
    )
    model = (Path(__file__).resolve().parents[2] / "models" / "lpc-egee-2004.toml").as_posix()
    (d / "tiny-model-load.toml").write_text(
        'name = "p"\n'
        + small.replace("nodes = 4\n", f'nodes = 4\nmodel = "{model}"\n').replace("jobs = 60", "load = 1e-9")
    )
    (d / "twice-bid.csv").write_text(JOB_HEADER.strip() + ",private_bid\n1,0,100,100,2,2,90\n2,5,100,100,1,1,90\n")
    extra = "".join(f",note{k}" for k in range(20_000))
    (d / "wide.csv").write_text(
        JOB_HEADER.strip() + extra + "\n1,0,100,100,2,2" + ",0" * 20_000 + "\n2,-5,100,100,1,1" + ",0" * 20_000 + "\n"
    )
    # a NUL byte: TOML's strings may hold one (\u0000), no file system's names can
    (d / "nul-results.toml").write_text('name = "p"\n' + small.replace('results = "results"', 'results = "a\\u0000b"'))
    (d / "nul-catalogue.toml").write_text(
        'name = "p"\n' + small.replace("[strategies]\n", '[strategies]\nprovider_file = "p\\u0000.toml"\n')
    )
    (d / "nul-companion.toml").write_text('name = "p"\ncompanions = ["c\\u0000.toml"]\n' + small)
    (d / "quotes-unrun.toml").write_text(
        'name = "p"\npopulation_study = "unrun-pop.toml"\nnotes = "{population.hb-first.truthful}"\n' + small
    )


# (argv with {d} for the folder, what the message must contain, paths that must not exist afterwards)
CASES = {
    # empty input that used to "succeed"
    "empty SWF": (["workload", "info", "{d}/empty.swf"], "empty.swf: no job is left to simulate", []),
    "comments-only SWF": (["workload", "info", "{d}/comments.swf"], "comments.swf: no job is left", []),
    "binary file, bad lines skipped": (
        ["workload", "info", "{d}/binary.swf", "--skip-bad-lines"],
        "the trace holds no job line (9 malformed lines skipped)",
        [],
    ),
    "malformed SWF line": (
        ["workload", "info", "{d}/badline.swf"],
        "badline.swf:2: malformed SWF line: expected 18",
        [],
    ),
    "header-only job table": (
        ["simulate", "--job-table", "{d}/header-only.csv", "--nodes", "2"],
        "header-only.csv: the job table has no rows",
        [],
    ),
    # accepted silently before
    "negative submit time": (
        ["simulate", "--job-table", "{d}/negsubmit.csv", "--nodes", "2"],
        "negsubmit.csv: line 3: column 'submit' is -5, expected >= 0",
        [],
    ),
    "job id beyond int64": (
        ["simulate", "--job-table", "{d}/huge-id.csv", "--nodes", "2", "--out", "{d}/o.csv"],
        "huge-id.csv: line 3: column 'id' is 1e+20, expected an integer below 2^53 in size",
        ["o.csv"],
    ),
    "hexadecimal run time": (
        ["simulate", "--job-table", "{d}/hex.csv", "--nodes", "2", "--out", "{d}/o.csv"],
        "hex.csv: line 3: column 'runtime' is '0x10', expected a number",
        ["o.csv"],
    ),
    "MaxProcs -5": (["workload", "info", "{d}/negprocs.swf"], "header field MaxProcs is '-5'; expected a positive", []),
    "--seed with --job-table": (
        ["simulate", "--job-table", "{d}/good.csv", "--nodes", "2", "--seed", "5"],
        "--seed would have no effect",
        [],
    ),
    "--workload with --job-table": (
        ["simulate", "--job-table", "{d}/good.csv", "--nodes", "2", "--workload", "synthetic"],
        "--workload would have no effect",
        [],
    ),
    "--job-table without --nodes": (["simulate", "--job-table", "{d}/good.csv"], "--job-table needs --nodes", []),
    "--reduction with --nodes": (
        ["simulate", "--synthetic-jobs", "50", "--nodes", "4", "--reduction", "0.5"],
        "give nodes (4) or a reduction (0.5), not both",
        [],
    ),
    "--load with a trace": (
        ["simulate", "--workload", "{d}/comments.swf", "--load", "0.5"],
        "--synthetic-jobs and --load apply to 'synthetic'",
        [],
    ),
    "problem with --n": (["price", "solve", "{d}/problem.npz", "--n", "5"], "--n would have no effect", []),
    "--device cuda without torch": (
        ["price", "solve", "--n", "5", "--m", "2", "--device", "cuda"],
        "--device cuda applies to the torch backend",
        [],
    ),
    "--n without --m": (["price", "solve", "--n", "5"], "--n and --m", []),
    "plugin that does not import": (
        ["simulate", "--plugin", "{d}/plugin-raises.py", "--synthetic-jobs", "50", "--out", "{d}/o.csv"],
        "plugin-raises.py: does not import: ValueError: my plugin broke",
        ["{d}/o.csv"],
    ),
    "plugin that registers nothing": (
        ["study", "run", "{d}/unknown-key.toml", "--plugin", "{d}/plugin-empty.py"],
        "plugin-empty.py: registers nothing",
        [],
    ),
    "plugin that takes a name": (
        ["game", "solve", "{d}/good.nfg", "--plugin", "{d}/plugin-taken.py"],
        "plugin-taken.py: scheduler 'hb' is already registered",
        [],
    ),
    "plugin rate function of the wrong signature": (
        ["plugin", "check", "{d}/plugin-signature.py"],
        "plugin-signature.py: payment scheme 'one-arg': rate function 'f': takes (bid); expected 7",
        [],
    ),
    "missing plugin": (["plugin", "check", "{d}/nope.py"], "nope.py: cannot read it", []),
    # tracebacks before
    "folder as workload": (["simulate", "--workload", "{d}/folder"], "folder: is a folder; expected an SWF file", []),
    "folder as study": (["study", "run", "{d}/folder"], "folder: is a folder; expected a study file (TOML)", []),
    "binary file as study": (["study", "status", "{d}/binary.swf"], "binary.swf: not a text file", []),
    "invalid TOML": (["study", "run", "{d}/not-toml.toml"], "not-toml.toml: invalid TOML", []),
    "--out under a file": (
        ["simulate", "--synthetic-jobs", "50", "--out", "{d}/plain.txt/x.csv"],
        "plain.txt/x.csv: cannot",
        ["{d}/plain.txt/x.csv"],
    ),
    "--out a folder": (
        ["simulate", "--synthetic-jobs", "50", "--out", "{d}/folder"],
        "folder: is a folder; expected a file name",
        [],
    ),
    "--out of unknown format": (
        ["simulate", "--synthetic-jobs", "50", "--out", "{d}/x.xlsx"],
        "x.xlsx: unknown table format",
        ["{d}/x.xlsx"],
    ),
    "unknown key in [workload.synthetic]": (
        ["study", "run", "{d}/unknown-key.toml", "--no-report"],
        "[workload.synthetic]: unknown field(s) ['foo']",
        [],
    ),
    "unknown top-level field": (["study", "run", "{d}/typo-field.toml"], "replication", []),
    "unknown field in [paper]": (["study", "run", "{d}/paper-field.toml"], "[paper]: unknown field(s) ['pages']", []),
    "negative job count in [paper]": (
        ["study", "run", "{d}/paper-jobs.toml"],
        "[paper] field 'jobs': expected a number > 0 (number of (serial) jobs), got -1",
        [],
    ),
    "a provider of an unknown market": (
        ["study", "status", "{d}/provider-kind.toml"],
        "[strategies.provider.x] field 'kind': expected one of ['pricing', 'scheduling'], got 'auction'",
        [],
    ),
    "a provider with a preemption overhead": (
        ["study", "run", "{d}/provider-overhead.toml"],
        "[strategies.provider.x] field 'preemption_overhead': only 0 (free preemption and migration) is implemented",
        ["{d}/results"],
    ),
    "a pricing-market table under a scheduling workload": (
        ["study", "status", "{d}/hetero-table.toml"],
        "[workload]: field 'hetero' applies to source = 'hetero', not to source 'synthetic'",
        [],
    ),
    "inline shading rules that are not a table": (
        ["study", "status", "{d}/shading-number.toml"],
        "[game.shading]: expected a table, got 3",
        [],
    ),
    "inline shading rule with an unknown bid class": (
        ["study", "run", "{d}/shading-class.toml"],
        "[game.shading]: shading rule 'mine': field 'beta': unknown bid class(es) ['top']",
        ["{d}/results"],
    ),
    "population study whose probe slices hold no agent": (
        ["study", "run", "{d}/unrun-pop.toml", "--n-jobs", "1", "--no-progress"],
        "[game]: no agent played 'truthful' at the mixture {'truthful': 0.0, 'shade-0.5': 1.0} under provider "
        "'hb-first' in any of its 2 run(s) (the market has 60 agents",
        ["{d}/report"],  # the report folder claimed before the runs is given back when they fail
    ),
    "population study that does not exist": (
        ["study", "status", "{d}/no-population.toml"],
        "nope.toml does not exist",
        [],
    ),
    "typed number in a discussion": (
        ["study", "run", "{d}/typed-notes.toml"],
        "typed-notes.toml: 'notes' quotes the number(s) ['12'] as typed text",
        ["{d}/results"],
    ),
    "discussion field no claim has": (  # refused before any run (hunt 19c-W4)
        ["study", "run", "{d}/unknown-field-notes.toml", "--n-jobs", "1", "--no-progress"],
        "unknown-field-notes.toml: 'notes' field {claim.c9.ci}: no claim has the key 'c9'",
        ["{d}/results", "{d}/report"],
    ),
    "discussion field the analysis lacks": (  # a claim's key this study cannot make: refused before any run (hunt
        # 20d-W3; it was said after every run)
        ["study", "run", "{d}/unmeasured-field-notes.toml", "--n-jobs", "1", "--no-progress"],
        "unmeasured-field-notes.toml: 'notes' field {claim.c3-nphb-low-bsd.ci}: this study makes no claim row of key "
        "'c3-nphb-low-bsd'",
        ["{d}/results", "{d}/report"],
    ),
    "a list where inline strategies go": (
        ["study", "status", "{d}/consumer-list.toml"],
        "[strategies] field 'consumer': expected a table (inline consumer strategies ([strategies.consumer.NAME]))",
        [],
    ),
    "workload source typo": (
        ["study", "status", "{d}/source-typo.toml"],
        "field 'source': 'synthtic' is not 'synthetic', 'hetero', a known trace",
        [],
    ),
    "study name outside the tree": (["study", "run", "{d}/escape.toml"], "field 'name': '../../escape'", []),
    "malformed scheduler address": (
        ["study", "run", "{d}/unknown-key.toml", "--scheduler-address", "foo"],
        "--scheduler-address 'foo': expected an address such as tcp://10.0.0.1:8786",
        [],
    ),
    "payoffs whose spread overflows": (
        ["game", "solve", "{d}/overflow.nfg"],
        "overflow.nfg: game 'g' (P1): payoffs range from -1.7e+308 to 1.7e+308, a difference beyond the float range",
        [],
    ),
    "short .nfg": (["game", "solve", "{d}/short.nfg"], "short.nfg", []),
    "unknown game format": (["game", "solve", "{d}/game.txt"], "game.txt: expected a study (.toml), a game (.nfg)", []),
    "unknown solver method": (
        ["game", "solve", "{d}/good.nfg", "--methods", "simplex"],
        "unknown method 'simplex'",
        [],
    ),
    "zero-byte .npz": (["price", "solve", "{d}/zero.npz"], "zero.npz: cannot read problem: the file is empty", []),
    "text as .npz": (["price", "solve", "{d}/text.npz"], "text.npz: cannot read problem: not a zip archive", []),
    "object array .npz": (
        ["price", "solve", "{d}/objects.npz"],
        "array 'A' holds Python objects; expected numbers",
        [],
    ),
    "string array .npz": (["price", "solve", "{d}/strings.npz"], "array 'A' has dtype <U1; expected numbers", []),
    "missing array .npz": (["price", "solve", "{d}/noR.npz"], "noR.npz: missing array 'R'", []),
    "unwritable price --out": (
        ["price", "solve", "{d}/problem.npz", "--out", "{d}/plain.txt/r.npz", "--quiet"],
        "plain.txt/r.npz",
        ["{d}/plain.txt/r.npz"],
    ),
    "price --out not .npz": (["price", "solve", "{d}/problem.npz", "--out", "{d}/r.csv"], "expected a .npz", []),
    "alpha = 1e6": (
        ["price", "solve", "--n", "20", "--m", "2", "--utility", "alpha:1e6"],
        "alpha 1e+06 is above 100",
        [],
    ),
    "unknown utility": (["price", "solve", "--n", "20", "--m", "2", "--utility", "cubic"], "cubic", []),
    "fit of a model file": (
        ["workload", "fit", "{d}/unknown-key.toml", "--out", "{d}/m.toml"],
        "a model file; `workload fit` reads a trace",
        ["{d}/m.toml"],
    ),
    "fit --out not .toml": (["workload", "fit", "{d}/comments.swf", "--out", "{d}/m.txt"], "expected a .toml", []),
    "no such trace": (["workload", "info", "{d}/nope.swf"], "nope.swf: no such workload file", []),
    "no such job table": (
        ["simulate", "--job-table", "{d}/nope.csv", "--nodes", "2"],
        "nope.csv: no such job table",
        [],
    ),
    "missing job-table column": (
        ["simulate", "--job-table", "{d}/missing-col.csv", "--nodes", "2"],
        "missing column(s)",
        [],
    ),
    "unknown scheduler": (["simulate", "--synthetic-jobs", "20", "--scheduler", "lottery"], "lottery", []),
    "unknown beta mix": (["simulate", "--synthetic-jobs", "20", "--mix", "0.5:zz"], "0.5:zz", []),
    # issue 27: a user's files are never destroyed
    "--out is the --job-table input": (
        ["simulate", "--job-table", "{d}/good.csv", "--nodes", "2", "--out", "{d}/good.csv"],
        "good.csv: is the input",
        [],
    ),
    "--out and --jobs-out one file": (
        ["simulate", "--synthetic-jobs", "20", "--out", "{d}/t.csv", "--jobs-out", "{d}/T.csv/../t.csv"],
        "are one file",
        ["{d}/t.csv"],
    ),
    "--out over a file gamemarket did not write": (
        ["simulate", "--synthetic-jobs", "20", "--out", "{d}/existing.csv"],
        "existing.csv: the file exists; pass --force to replace it",
        [],
    ),
    "a results folder gamemarket did not make": (
        ["study", "run", "{d}/into-users.toml", "--no-report", "--no-progress", "--n-jobs", "1"],
        "users-folder: the folder exists and was not made by gamemarket",
        ["{d}/users-folder/runs", "{d}/users-folder/.lock"],
    ),
    "a report folder gamemarket did not make": (
        ["study", "run", "{d}/report-into-users.toml", "--no-progress", "--n-jobs", "1"],
        "users-folder: the folder exists and was not made by gamemarket",
        ["{d}/results", "{d}/users-folder/report.md"],  # refused before any run
    ),
    "results and report one folder": (
        ["study", "run", "{d}/outputs-one.toml", "--no-progress", "--n-jobs", "1"],
        "the results and report folders are one folder",
        ["{d}/results"],
    ),
    "--figure of an unknown format": (
        ["workload", "compare", "{d}/comments.swf", "{d}/comments.swf", "--nodes", "2", "--figure", "{d}/f.xyz"],
        "f.xyz: unknown figure format '.xyz'",
        ["{d}/f.xyz"],
    ),
    "a symlink loop as the results folder": (
        ["study", "run", "{d}/loop-out.toml", "--no-report"],
        "loop-results/x: cannot resolve the results folder",
        [],
    ),
    # issue 27: hostile values
    "a fractional processor count": (
        ["workload", "info", "{d}/fracprocs.swf"],
        "header field MaxProcs is '2.5'; expected a whole processor count",
        [],
    ),
    "a Parquet datetime column": (
        ["simulate", "--job-table", "{d}/datetime.parquet", "--nodes", "2"],
        "column 'submit' holds datetime64",
        [],
    ),
    "a Parquet boolean column": (
        ["simulate", "--job-table", "{d}/bool.parquet", "--nodes", "2"],
        "column 'runtime' holds bool values; expected numbers",
        [],
    ),
    "a bid that overflows the arithmetic": (
        ["simulate", "--job-table", "{d}/huge-bid.csv", "--nodes", "2", "--format", "json"],
        "huge-bid.csv: line 3: column 'private_bid' is 1e+300, expected a number of at most 1e+09 in size",
        [],
    ),
    "a payoff table listing a profile twice": (
        ["game", "solve", "{d}/twice.csv"],
        "twice.csv: line 6: the profile (a, x) is listed again (first on line 2)",
        [],
    ),
    "a job table repeating a column (CSV)": (
        ["simulate", "--job-table", "{d}/twice-bid.csv", "--nodes", "2", "--out", "{d}/o.parquet"],
        "twice-bid.csv: column(s) ['private_bid'] appear more than once",
        ["{d}/o.parquet"],
    ),
    "a job table repeating a column (CSV, pandas-free path)": (
        ["simulate", "--job-table", "{d}/twice-bid.csv", "--nodes", "2", "--out", "{d}/o.csv"],
        "twice-bid.csv: column(s) ['private_bid'] appear more than once",
        ["{d}/o.csv"],
    ),
    "a job table of 20,000 columns (checked in linear time)": (
        ["simulate", "--job-table", "{d}/wide.csv", "--nodes", "2"],
        "wide.csv: line 3: column 'submit' is -5, expected >= 0",
        [],
    ),
    "deeply nested JSON": (["game", "solve", "{d}/deep.json"], "deep.json: invalid JSON: nested too deeply", []),
    "a huge integer in JSON": (
        ["game", "solve", "{d}/huge-int.json"],
        "huge-int.json: a whole number of more than 4,300 digits, more than Python reads as one",
        [],
    ),
    "a NaN literal in JSON": (["game", "solve", "{d}/nan.json"], "nan.json: invalid JSON: NaN is not a JSON value", []),
    "a matrix game missing a profile": (
        ["game", "solve", "{d}/m-missing.json"],
        "m-missing.json: payoffs['b'] has no entry 'y'",
        [],
    ),
    "a matrix game of two players in a role": (
        ["game", "solve", "{d}/m-players.json"],
        "m-players.json: players['p'] is 2; a matrix game has one player",
        [],
    ),
    "a matrix game with a payoff of text": (
        ["game", "solve", "{d}/m-text.json"],
        "role 'p', strategy 'b': payoff must be a finite number, one a float holds; got '1'",
        [],
    ),
    "a matrix game declaring 16 million profiles": (
        ["game", "solve", "{d}/m-huge.json"],
        "m-huge.json: a matrix game of 16,000,000 profiles; at most 10,000,000",
        [],
    ),
    "a symlink loop as the study": (["study", "run", "{d}/loop.toml"], "loop.toml: is a symbolic link in a loop", []),
    "a fractional count": (
        ["study", "status", "{d}/fraction-count.toml"],
        "[replications] field 'count': expected an integer",
        [],
    ),
    "a string count": (["study", "status", "{d}/string-count.toml"], "expected an integer", []),
    "a boolean node count": (
        ["study", "status", "{d}/bool-nodes.toml"],
        "[workload] field 'nodes': expected an integer",
        [],
    ),
    "a negative seed": (
        ["study", "status", "{d}/negative-seed.toml"],
        "[replications] field 'seeds #2': expected an integer >= 0",
        [],
    ),
    "a job count beyond any machine": (
        ["study", "status", "{d}/huge-toml-int.toml"],
        "[workload.synthetic] field 'jobs': expected an integer >= 1 and <= 1000000000",
        [],
    ),
    "deeply nested TOML": (["study", "status", "{d}/deep.toml"], "deep.toml: invalid TOML", []),
    "a load that scales the submit times past any clock": (
        ["study", "run", "{d}/tiny-load.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "[workload.synthetic] field 'load': expected a number >= 0.001",
        ["{d}/results"],
    ),
    "an over-estimation factor whose estimates overflow": (
        ["study", "run", "{d}/huge-overestimate.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "[workload.synthetic] field 'overestimate': expected a number >= 1 and <= 1000",
        ["{d}/results"],
    ),
    "a longest run time beyond whole seconds": (
        ["study", "run", "{d}/huge-max-runtime.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "[workload.synthetic] field 'max_runtime': expected an integer >= 1 and <= 10000000",
        ["{d}/results"],
    ),
    "a median run time beyond the longest": (
        ["study", "run", "{d}/huge-median.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "[workload.synthetic] field 'runtime_median': expected a number >= 1 and <= 10000000",
        ["{d}/results"],
    ),
    "a model drawn at a load that scales the submit times past any clock": (
        ["study", "run", "{d}/tiny-model-load.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "[workload.synthetic] field 'load': expected a number >= 0.001",
        ["{d}/results"],
    ),
    "a NUL byte in the results folder's name": (
        ["study", "run", "{d}/nul-results.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "a\\x00b': cannot resolve the results folder: embedded null byte",
        ["{d}/results"],
    ),
    "a NUL byte in a catalogue's name": (
        ["study", "status", "{d}/nul-catalogue.toml"],
        "p\\x00.toml': cannot read: embedded null byte",
        [],
    ),
    "a NUL byte in a companion's name": (
        ["study", "run", "{d}/nul-companion.toml", "--no-progress", "--no-report", "--n-jobs", "1"],
        "c\\x00.toml': cannot resolve the companion study: embedded null byte",
        ["{d}/results"],
    ),
    "a field with no effect for the source": (
        ["study", "status", "{d}/no-effect.toml"],
        "field 'parallel' applies to a trace, not to source 'synthetic': it would have no effect",
        [],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gets_a_clear_error(name, tmp_path, capsys, monkeypatch):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = {p for p in tmp_path.rglob("*")}
    contents = {p: p.read_bytes() for p in before if p.is_file() and not p.is_symlink()}
    argv, message, absent = CASES[name]
    argv = [a.replace("{d}", str(tmp_path)) for a in argv]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, (rc, err)
    assert message in err, err
    assert err.startswith("gamemarket: error: ") and "Traceback" not in err
    for p in absent:
        assert not Path(p.replace("{d}", str(tmp_path))).exists()
    left = {p for p in tmp_path.rglob("*")} - before
    assert not [p for p in left if ".tmp" in p.name], left  # nothing half-written
    changed = [p for p, b in contents.items() if not p.exists() or p.read_bytes() != b]
    assert not changed, changed  # no input, and no file of the user's, is changed or deleted


@pytest.mark.parametrize(
    "argv,message",
    [
        (["study", "run", "x.toml", "--n-jobs", "0"], "argument --n-jobs: expected a number of worker processes fr"),
        (
            ["game", "solve", "x.nfg", "--resamples", "0"],
            "argument --resamples: expected a number of bootstrap resamples",
        ),
        (["game", "solve", "x.nfg", "--resamples", "-1"], "argument --resamples"),
        (
            ["simulate", "--nodes", "many"],
            "argument --nodes: expected a number of nodes >= 1 and at most 10,000,000, a whole number, got 'many'",
        ),
        (
            ["simulate", "--nodes", "2.5"],
            "argument --nodes: expected a number of nodes >= 1 and at most 10,000,000, a whole number, got '2.5'",
        ),
        (["simulate", "--reserve", "-1"], "argument --reserve: expected a reservation price >= 0 and <= 1e+09, got -1"),
        (["simulate", "--seed", "-1"], "argument --seed: expected a seed >= 0"),
        (["simulate", "--reduction", "1.5"], "argument --reduction: expected a fraction of the trace's processors"),
        (["simulate", "--load", "nan"], "argument --load: expected an offered load >= 0.001 and <= 1e+06, got nan"),
        (["simulate", "--load", "1e-300"], "argument --load: expected an offered load >= 0.001"),
        (["price", "solve", "--eps", "-1"], "argument --eps: expected a finite number > 0, got -1"),
        (["price", "solve", "--eps", "inf"], "argument --eps: expected a finite number > 0, got inf"),
        (["price", "solve", "--eps", "1e-9", "--rel-eps", "-1"], "argument --rel-eps: expected a finite number >= 0"),
        (["price", "solve", "--eps", "1e-9", "--rel-eps", "nan"], "argument --rel-eps: expected a finite number"),
        (["game", "export", "s.toml", "--out", "x", "--time-limit", "0"], "argument --time-limit: expected a number"),
        (["price", "solve", "--max-iter", "0"], "argument --max-iter: expected a number of iterations >= 1, got 0"),
        (["price", "solve", "--max-iter", "-5"], "argument --max-iter: expected a number of iterations >= 1"),
        (["workload", "compare", "a", "b", "--nodes", "0"], "argument --nodes: expected a number of nodes >= 1, got 0"),
        (["price", "solve", "--method", "simplex"], "argument --method: invalid choice"),
        # found by the CLI fuzz (tests/fuzz_cli.py): sizes no array can hold (a traceback before)
        (
            ["simulate", "--synthetic-jobs", "99999999999999999999"],
            "--synthetic-jobs: expected a number of jobs >= 1 and at most 1000000000, got 99999999999999999999",
        ),
        (
            ["simulate", "--workload", "m.toml", "--synthetic-jobs", "1000000001"],
            "argument --synthetic-jobs: expected a number of jobs >= 1 and at most 1000000000, got 1000000001",
        ),
        (
            ["workload", "compare", "a", "b", "--nodes", "3", "--synthetic-jobs", "99999999999999999999"],
            "argument --synthetic-jobs: expected a number of jobs >= 1 and at most 1000000000",
        ),
        (
            ["simulate", "--nodes", "99999999999999999999"],
            "argument --nodes: expected a number of nodes >= 1 and at most 10000000, got 99999999999999999999",
        ),
        (["simulate", "--seed", "-1"], "expected a seed >= 0 and <= 9223372036854775807, got -1"),
        (
            ["game", "solve", "x.nfg", "--resamples", "99999999999999999999"],
            "argument --resamples: expected a number of bootstrap resamples >= 100 and at most 1000000",
        ),
        (
            ["price", "solve", "--n", "99999999999999999999", "--m", "2"],
            "argument --n: expected a number of jobs >= 1 and at most 100000000",
        ),
        (
            ["price", "solve", "--n", "10", "--m", "10001"],
            "argument --m: expected a number of resources >= 1 and at most",
        ),
        # the long fuzz run: a fit wrote a model file its own reader refuses
        (
            ["workload", "fit", "t.swf", "--out", "m.toml", "--threshold", "1e13"],
            "argument --threshold: expected seconds of silence > 0 and <= 1e+07, got 1e13",
        ),
    ],
)
def test_bad_options_exit_2_from_argparse(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_unreachable_scheduler_is_a_message_not_a_traceback(tmp_path, capsys, monkeypatch):
    pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
    from gamemarket.studies import runner

    monkeypatch.setattr(runner, "CONNECT_TIMEOUT_S", 1)
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "s"\n[workload]\nsource = "synthetic"\n[workload.synthetic]\njobs = 50\n'
        '[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT"]\n[replications]\ncount = 1\n'
    )
    monkeypatch.chdir(tmp_path)
    rc = main(["study", "run", str(study), "--no-report", "--no-progress", "--scheduler-address", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert rc == 2 and "nothing answers at 127.0.0.1:1" in err


def test_two_traces_refuse_a_job_count_before_any_work(tmp_path, capsys):
    """``workload compare`` sizes a model's draw by ``--synthetic-jobs`` (its help's example: a trace beside a
    model, run by tests/test_examples.py); two traces have their own jobs and refuse it, naming it."""
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxProcs: 4\n" + SWF_LINE)
    assert main(["workload", "compare", str(trace), str(trace), "--nodes", "2", "--synthetic-jobs", "60"]) == 2
    assert "--synthetic-jobs applies to model files only" in capsys.readouterr().err
