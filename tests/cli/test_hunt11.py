"""Held-out hunt 11's problems, each a regression test."""

import json

import numpy as np
import pandas as pd
import pytest

from gamemarket.cli import main
from gamemarket.errors import InputError
from gamemarket.reports.markdown import md_table, to_html

SMALL = """
[workload]
source = "synthetic"
[workload.synthetic]
jobs = 100
nodes = 4
[replications]
seeds = [1, 2]
"""


# ---------------------------------------------------------------------------- what reaches a report
def test_a_pipe_in_a_cell_is_escaped_and_read_back_as_one_cell():
    """A strategy named hb|first split its rows into one cell more than the header (GitHub's Markdown splits on
    every unescaped |): every figure after it moved a column."""
    md = md_table(["mechanism", "revenue"], [["hb|first", "1,000"], ["a\nb", "2"]])
    assert md.splitlines()[2] == "| hb\\|first | 1,000 |" and md.splitlines()[3] == "| a b | 2 |"
    html = to_html(md, "t").replace("\n", "")
    assert "<td>hb|first</td><td>1,000</td>" in html and html.count("<tr>") == 3


@pytest.mark.parametrize(
    "line, want",
    [
        ("Tables: `payoffs-*.csv`, `best-responses-*.csv`.", "<code>payoffs-*.csv</code>, <code>best-responses-*.csv"),
        ("see `my_var_` and x_", "see <code>my_var_</code> and x_"),
        ("`a<b>` and **bold** and *em*", "<code>a&lt;b&gt;</code> and <strong>bold</strong> and <em>em</em>"),
    ],
)
def test_nothing_inside_a_code_span_is_read_as_emphasis(line, want):
    """Every report's Data section read <code>payoffs-<em>.csv</code> ... <code>best-responses-</em>.csv</code>."""
    assert want in to_html(line, "t")


def test_a_line_that_only_starts_like_an_image_is_a_paragraph():
    """A notes line starting ![ with no ]( was a ValueError after every simulation."""
    html = to_html("intro\n\n![not an image\n\n![fig](fig-a.png)", "t")
    assert "<p>![not an image</p>" in html and '<img src="fig-a.png" alt="fig" />' in html


def test_a_study_with_a_pipe_in_a_name_writes_tables_of_even_rows(tmp_path, capsys):
    study = tmp_path / "pipe.toml"
    study.write_text(
        SMALL + '[strategies]\nproviders = ["hb|first", "hb-kth"]\nconsumers = ["FT", "SRG"]\n'
        '[strategies.provider."hb|first"]\nscheduler = "hb"\npayment = "first"\n'
    )
    assert main(["study", "run", str(study), "--no-progress"]) == 0
    text = (tmp_path / "reports" / "pipe" / "report.md").read_text()
    lines = text.splitlines()
    for i, line in enumerate(lines):  # every table row has its header's cells
        if line.startswith("|---"):
            width = lines[i - 1].replace("\\|", "").count("|")
            k = i + 1
            while k < len(lines) and lines[k].startswith("|"):
                assert lines[k].replace("\\|", "").count("|") == width, lines[k]
                k += 1
    assert "hb\\|first" in text


# ---------------------------------------------------------------------------- study files read whole
def test_a_renamed_strategy_reads_the_stored_runs_under_its_new_name(tmp_path, capsys):
    """Renamed in the study file (the same parameters, so the same stored runs), a strategy read the consolidated
    tables of its old name: "payoff table has no run for (hb-first, YOURS, seed 1)", though status said 8/8."""
    study = tmp_path / "ren.toml"
    body = SMALL + '[strategies]\nproviders = ["hb-first", "hb-kth"]\nconsumers = ["FT", "MINE"]\n'
    body += "[strategies.consumer.MINE]\ngroups = [[0.5, 0.5], [0.5, 0.0]]\n"
    study.write_text(body)
    assert main(["study", "run", str(study), "--no-progress"]) == 0
    study.write_text(body.replace("MINE", "YOURS"))
    capsys.readouterr()
    assert main(["study", "run", str(study), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "(8 already stored, 0 run now)" in out
    assert "YOURS" in (tmp_path / "reports" / "ren" / "report.md").read_text()


@pytest.mark.parametrize("name", ["a\nb", "tab\there", "nul\x00"])
def test_a_strategy_name_with_a_control_character_is_refused_before_any_run(tmp_path, capsys, name):
    study = tmp_path / "names.toml"
    quoted = json.dumps(name)  # a TOML basic string: \n, \t, \u0000
    study.write_text(
        SMALL + f'[strategies]\nproviders = ["hb-first"]\nconsumers = ["FT", {quoted}]\n'
        f"[strategies.consumer.{quoted}]\ngroups = [[0.5, 0.5], [0.5, 0.0]]\n"
    )
    assert main(["study", "run", str(study), "--no-progress"]) == 2
    err = capsys.readouterr().err
    # (refused where the inline table is read, before the [strategies] list: a consumer strategy's name is printable)
    assert "names.toml: [strategies.consumer." in err and "strategy name" in err
    assert "holds a control or format character" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["names.toml"]  # nothing run, nothing stored


@pytest.mark.parametrize("kind", ["population", "design"])
def test_notes_a_report_would_not_print_are_refused(tmp_path, capsys, kind):
    """A population study's notes were accepted and printed nowhere."""
    study = tmp_path / "pop.toml"
    body = 'notes = "what the numbers say"\n' + SMALL + '[strategies]\nproviders = ["hb-first"]\n'
    body += '[game]\nkind = "population"\nstrategies = ["truthful", "shade-0.5"]\nreduced_players = 2\n'
    if kind == "design":
        body += '[design]\nschedulers = ["hb"]\nreserve = [0.0, 10.0]\nblend = [0.0, 1.0]\nbudget = 4\n'
    study.write_text(body)
    assert main(["study", "run", str(study), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"'notes' would have no effect: a {kind} study's report has no discussion" in err


# ---------------------------------------------------------------------------- traces
def test_a_trace_with_old_mac_line_ends_keeps_its_header(tmp_path, capsys):
    from gamemarket.workloads import load

    clean = "; Version: 2.2\n; MaxProcs: 4\n"
    clean += "".join(f"{i} {5 * i} 0 {10 + i} 1 -1 -1 1 {20 + i} -1 1 1 1 -1 1 -1 -1 -1\n" for i in range(1, 9))
    (tmp_path / "clean.swf").write_text(clean)
    (tmp_path / "cr.swf").write_bytes(clean.replace("\n", "\r").encode())
    a, b = load(str(tmp_path / "clean.swf")), load(str(tmp_path / "cr.swf"))
    assert b.meta["header"] == a.meta["header"] == {"Version": "2.2", "MaxProcs": "4"}
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    assert main(["simulate", "--workload", str(tmp_path / "cr.swf")]) == 0  # its nodes from MaxProcs


# ---------------------------------------------------------------------------- price discovery
def test_a_distant_target_stops_at_the_documented_gap():
    """The target utility's constant (-sum w t_des) read into the objective made the relative floor 3 against the
    documented 1e-3 n = 0.03: it stopped at a gap of 2.5, with prices 26% below the LP's duals."""
    from gamemarket.pricing import Problem, solve

    A = np.random.default_rng(3).uniform(0.1, 1, (30, 3))
    r = solve(Problem(A, np.full(3, 3.0), "target", target=np.full(30, 1e6)))
    assert r.converged and r.gap <= 1e-3 * 30


@pytest.mark.parametrize("m", [150, 400])
def test_a_few_jobs_on_many_resources_converge(m):
    """5 jobs on 150 resources stopped after 500 iterations at a gap of 17.5 (the LP finish's rounds ran out)."""
    from gamemarket.pricing import Problem, solve

    rng = np.random.default_rng(0)
    A, R, w = rng.uniform(0.1, 1, (5, m)), rng.uniform(0.1, 1, m) * 2, rng.uniform(1, 180, 5)
    r = solve(Problem(A, R, "linear", weight=w))
    assert r.converged and r.gap <= 1e-3 * 5


def test_runs_that_did_not_converge_are_named_beside_the_answer():
    from gamemarket.analysis.study import unconverged_note

    m = pd.DataFrame(
        {"provider": ["clearing", "clearing", "posted"], "converged": [0.0, 1.0, 1.0], "gap": [16.5, 0.0, 0.0]}
    )
    assert unconverged_note(m).startswith(
        "1 of 3 runs did not converge ("
    ) and "clearing: 1 run(s), gap up to 16.5" in (unconverged_note(m))
    assert unconverged_note(m.assign(converged=1.0)) is None and unconverged_note(m.drop(columns="converged")) is None


# ---------------------------------------------------------------------------- the Python API names its arguments
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"synthetic_jobs": 0}, r"synthetic_jobs \(--synthetic-jobs\) must be a whole number >= 1, got 0"),
        ({"synthetic_jobs": 2.5}, r"synthetic_jobs \(--synthetic-jobs\) must be a whole number >= 1, got 2.5"),
        ({"load": -1}, r"load \(--load\) must be a finite number > 0, got -1"),
        ({"nodes": 0}, r"nodes \(--nodes\) must be a whole number >= 1, got 0"),
        ({"seed": -1}, r"seed \(--seed\) must be a whole number >= 0, got -1"),
        ({"workload": 5}, r"workload \(--workload\) must be a path, .* got 5"),
        ({"reduction": 1.0}, r"reduction \(--reduction\) must be a finite number in \[0, 1\), got 1.0"),
    ],
)
def test_simulate_profile_names_the_argument_and_its_value(kwargs, message):
    import gamemarket

    with pytest.raises(InputError, match=message):
        gamemarket.simulate_profile(**kwargs)


def test_generator_and_utility_errors_name_the_value():
    from gamemarket.pricing import Problem
    from gamemarket.workloads import load

    with pytest.raises(InputError, match=r"synthetic workload: jobs must be >= 1, got 0"):
        load("synthetic", jobs=0)
    w = np.ones(4)
    w[2] = np.nan
    with pytest.raises(InputError, match=r"utility weight of job 2 is nan; expected finite numbers >= 0"):
        Problem(np.ones((4, 2)), np.ones(2), "linear", weight=w)


# ---------------------------------------------------------------------------- hunt 11's worth-a-look
@pytest.mark.parametrize(
    "src",
    ["javascript:alert(1)", "https://example.com/x.png", "/etc/x.png", "../../etc/x.png", "a/%2e%2e/%2E%2E/x.png"],
)
def test_a_figure_that_is_not_a_file_beside_the_report_is_shown_as_text(src):
    html = to_html(f"![x]({src})", "t")
    assert "<img" not in html and f"<p>![x]({src})</p>".replace("&", "&amp;") in html


@pytest.mark.parametrize(
    "text, sep",
    [("id;submit;runtime;estimate;private_bid;reported_bid\n1;0;10;10;5;5\n", "';'"), ("id, submit, runtime, "
     "estimate, private_bid, reported_bid\n1, 0, 10, 10, 5, 5\n", "', '")],
)  # fmt: skip
def test_a_job_table_of_another_separator_shows_the_header_it_found(tmp_path, capsys, text, sep):
    (tmp_path / "t.csv").write_text(text)
    assert main(["simulate", "--job-table", str(tmp_path / "t.csv"), "--nodes", "1"]) == 2
    err = capsys.readouterr().err
    assert "; found [" in err and f"(separated by {sep}? a CSV job table's are separated by ',' alone)" in err


def test_two_plugins_of_one_name_are_told_to_rename_not_to_pass_a_python_option():
    from gamemarket.registry import Registry

    r = Registry("scheduler")
    r.register("mine", 1)
    with pytest.raises(InputError, match=r"'mine' is already registered \(by another plugin, or earlier in this one\)"):
        r.register("mine", 2)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_plugin_is_named_as_such(tmp_path, capsys, encoding):
    """Hunt 11: a UTF-16 plugin got Python's "source code string cannot contain null bytes" where every other
    reader says "UTF-16 text"."""
    (tmp_path / "p.py").write_bytes("x = 1\n".encode(encoding))
    assert main(["plugin", "check", str(tmp_path / "p.py")]) == 2
    assert "p.py: is UTF-16 text (or binary), not UTF-8; save it as UTF-8" in capsys.readouterr().err
