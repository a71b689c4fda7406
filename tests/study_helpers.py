"""What several test modules share about studies: a small study file and how to write one, sorted metrics."""

from pathlib import Path

from gamemarket.studies import load_results

ROOT = Path(__file__).resolve().parents[1]


def write_study(tmp_path, body: str, name="s.toml") -> Path:
    (tmp_path / "strategies").mkdir(exist_ok=True)
    for f in ("providers.toml", "consumers.toml"):
        (tmp_path / "strategies" / f).write_text((ROOT / "strategies" / f).read_text())
    d = tmp_path / "studies"
    d.mkdir(exist_ok=True)
    p = d / name
    p.write_text(body)
    return p


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
