"""What several test modules share about studies: small study files of both kinds, how to write them, metrics."""

import json
import shutil
from pathlib import Path

from gamemarket.studies import load_results
from gamemarket.studies.deviations import PAIRED_ESTIMATOR

ROOT = Path(__file__).resolve().parents[1]


def write_study(tmp_path, body: str, name="s.toml") -> Path:
    """``<tmp_path>/studies/<name>`` holding ``body``, with the checkout's strategy catalogues beside it (as a
    study in a copy of the repository has them); a study of either kind."""
    shutil.copytree(ROOT / "strategies", tmp_path / "strategies", dirs_exist_ok=True)
    d = tmp_path / "studies"
    d.mkdir(exist_ok=True)
    p = d / name
    p.write_text(body)
    return p


#: the plugin tests' study workload: 150 synthetic jobs on 6 nodes, congested (``tests/plugins``)
PLUGIN_WORKLOAD = """
[workload]
source = "synthetic"
nodes = 6
[workload.synthetic]
jobs = 150
load = 1.2
seed = 3
"""

#: a tiny study on 120 synthetic jobs: 2 providers x 2 consumers x ``count`` seeds (``TINY.format(count=2)``); the
#: hunts' regression rows run it in a second or two
TINY = """
name = "tiny"
[workload]
source = "synthetic"
nodes = 4
[workload.synthetic]
jobs = 120
load = 1.1
[strategies]
providers = ["hb-first", "hb-kth"]
consumers = ["FT", "SRG"]
[replications]
count = {count}
"""

#: a small congested synthetic workload, for studies of either kind
WORKLOAD = """
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 600
load = 1.1
seed = 3
"""

SMALL = (
    """
name = "small"
"""
    + WORKLOAD
    + """[strategies]
providers = ["hb-first", "hb-kth", "nphb-kth"]
consumers = ["FT", "SRG", "g0.3x0.9"]
[replications]
count = 3
"""
)


def sorted_metrics(spec):
    m, _, _ = load_results(spec)
    return m.drop(columns=["task_seconds"]).sort_values(["provider", "consumer", "seed"]).reset_index(drop=True)


#: a small population study (two mechanisms, three shading rules, a 3-player reduced game)
POPULATION_STUDY = """
name = "pop-test"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 800
load = 1.1
seed = 2
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "shade-0.5", "shade-high-0.9"]
reduced_players = 3
probe = 0.01
max_seeds = 4
[replications]
count = 2
[output]
results = "results"
report = "report"
"""


#: a small population study that explores the per-class family (budget 400)
EXPLORING = """
name = "ex"
[workload]
source = "synthetic"
nodes = 4
[workload.synthetic]
jobs = 400
load = 1.1
seed = 2
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "shade-0.5", "shade-high-0.9"]
reduced_players = 3
probe = 0.05
max_seeds = 4
exploration = { family = "per-class", budget = 400, evaluations = 10, confirm_seeds = 4, first_seeds = 2 }
[replications]
count = 2
"""


def write_population_study(tmp_path, body: str = POPULATION_STUDY) -> Path:
    """``<tmp_path>/studies/pop.toml`` holding ``body`` (the small population study unless given), as
    :func:`write_study` writes a study."""
    return write_study(tmp_path, body, "pop.toml")


def population_records(spec) -> dict:
    """Every stored run of a population study by file name, without its timing (the only field a machine changes)
    and the digest that covers it."""
    out = {}
    for f in sorted((spec.results_dir / "population").glob("*.json")):
        rec = json.loads(f.read_text())
        rec.pop("chunk_seconds")
        rec.pop("sha256", None)
        out[f.name] = rec
    return out


def runs_of(records: dict) -> int:
    """The market runs a population study's stored records took: one a run at a mixture, two a paired record (its
    base run and its deviation run)."""
    return sum(2 if rec.get("estimator") == PAIRED_ESTIMATOR else 1 for rec in records.values())


def ended_pid() -> int:
    """The id of a process that has ended (spawned and reaped), as a killed writer's is: within the system's range of
    ids (a temporary of an id beyond it is no process's, and is kept)."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


#: a small design study: 300 jobs on 8 nodes, a grid over the reserve of a blended payment
SMALL_DESIGN = """
name = "design-small"
[workload]
source = "synthetic"
nodes = 8
[workload.synthetic]
jobs = 300
load = 0.3
seed = 0
[strategies]
providers = ["hb-first", "hb-kth"]
[game]
kind = "population"
strategies = ["truthful", "leave-all"]
outside_price = 20.0
probe = 0.05
joint = false
[game.shading.leave-all]
beta = 0
leave = 1
[replications]
count = 3
[design]
schedulers = ["hb"]
payment = "blend"
reserve = [0, 40]
blend = 0.5
budget = 6
optimiser = "grid"
confirm_seeds = 4
contenders = 2
"""


def write_users_study(folder: Path, name: str, users: list) -> Path:
    """A users' population study (two mechanisms, truthful and shade-0.5, 2 seeds) on an SWF trace of one serial job per
    entry of ``users`` (its user number, SWF field 12), both written into ``folder``; the study file's path."""
    records = [f"{i + 1} {i * 50} 0 {100 + i % 5 * 40} 1 -1 -1 1 300 -1 1 {u} -1 -1 -1 -1 -1 -1" for i, u in
               enumerate(users)]  # fmt: skip
    (folder / f"{name}.swf").write_text("\n".join(["; MaxProcs: 8", *records]) + "\n")
    path = folder / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\n[workload]\nsource = "{name}.swf"\n[strategies]\nproviders = ["hb-first", "hb-kth"]\n'
        '[game]\nkind = "population"\nagents = "users"\nstrategies = ["truthful", "shade-0.5"]\n[replications]\n'
        "count = 2\n"
    )
    return path


def users_study_commands(path: Path) -> list[list[str]]:
    """The commands that read a users' study before any run: status, run and a probe."""
    return [
        ["study", "status", str(path)],
        ["study", "run", str(path), "--no-progress"],
        ["population", "probe", str(path), "--mechanism", "hb-first", "--base", "truthful", "--deviation", "shade-0.5"],
    ]
