"""``StudySpec.to_toml``: a study written out reads back to an equal spec."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from gamemarket.errors import InputError
from gamemarket.studies import load_study
from gamemarket.studies.spec import StudySpec
from gamemarket.studies.strategies import load_consumers, load_providers

ROOT = Path(__file__).resolve().parents[2]
STUDIES = sorted((ROOT / "studies").glob("*.toml"))


def _fields(spec: StudySpec) -> dict:
    out = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    out.pop("path")
    out.pop("aliases")  # written once, under the kept name
    return out


@pytest.mark.parametrize("path", STUDIES, ids=[p.stem for p in STUDIES])
def test_every_committed_study_round_trips(path, tmp_path):
    spec = load_study(path)
    # written into another folder: every path is rewritten relative to it and resolves the same
    out = tmp_path / "elsewhere" / f"{path.stem}.toml"
    text = spec.to_toml(out)
    assert out.read_text() == text
    assert "[strategies.provider." in text  # self-contained: no catalogue needed
    again = load_study(out)
    assert _fields(again) == _fields(spec)
    assert again.aliases == {} or again.aliases == spec.aliases


def test_a_spec_built_in_python_round_trips(tmp_path):
    providers = load_providers()
    consumers = load_consumers()
    spec = StudySpec(
        name="from-python",
        path=None,
        workload={"source": "synthetic", "synthetic": {"jobs": 300, "nodes": 8, "seed": 3}},
        providers=[providers["hb-first"], providers["wspt-kth"]],
        consumers=[consumers["FT"], consumers["SRG"]],
        seeds=[4, 7],
        results_dir=tmp_path / "results" / "from-python",
        report_dir=tmp_path / "reports" / "from-python",
        description="written by a test",
    )
    text = spec.to_toml()
    data = tomllib.loads(text)  # without a path: valid TOML with absolute paths
    assert Path(data["output"]["results"]).is_absolute()
    f = tmp_path / "studies" / "from-python.toml"
    spec.to_toml(f)
    assert tomllib.loads(f.read_text())["output"]["results"] == "../results/from-python"
    assert _fields(load_study(f)) == _fields(spec)


def test_an_unwritable_target_is_a_clear_error(tmp_path):
    spec = load_study(ROOT / "studies" / "default.toml")
    with pytest.raises(InputError, match="is a folder"):
        spec.to_toml(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_inline_shading_rules(tmp_path):
    f = tmp_path / "pop.toml"
    f.write_text(
        'name = "pop"\n[workload]\nsource = "synthetic"\n[strategies]\nproviders = ["hb-first"]\n'
        '[game]\nkind = "population"\nstrategies = ["truthful", "mine"]\n'
        "[game.shading.mine]\nbeta = {high = 0.7}\n"
    )
    spec = load_study(f)
    assert [r.betas for r in spec.population.strategies] == [(0.0, 0.0, 0.0), (0.0, 0.0, 0.7)]
    f.write_text(f.read_text().replace("beta = {high = 0.7}", "beta = {top = 0.7}"))
    with pytest.raises(InputError, match=r"\[game.shading\].*'mine'.*unknown bid class"):
        load_study(f)
