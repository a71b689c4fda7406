"""A command's help, and its lists of names, include what the plugins its command line names register: the plugins
load before the parser is built (``--payment {first,kth}`` once hid a loaded plugin's scheme)."""

from pathlib import Path

import pytest

from gamemarket.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"


def _copy(tmp_path, name: str) -> Path:
    """An example plugin with a line of its own: a text (and hash) no other test loaded."""
    p = tmp_path / name
    p.write_text((EXAMPLES / name).read_text() + f"# {tmp_path.name}\n")
    return p


@pytest.mark.parametrize("form", ["--plugin FILE", "--plugin=FILE"])
def test_the_help_lists_a_plugins_payment_scheme(tmp_path, capsys, form):
    p = _copy(tmp_path, "lowest_running.py")
    args = ["--plugin", str(p)] if form == "--plugin FILE" else [f"--plugin={p}"]
    with pytest.raises(SystemExit) as done:
        main(["simulate", *args, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--payment {first,kth,lowest-running,blend}" in out and "lowest-running:" in out


def test_without_the_plugin_the_help_lists_the_built_in_schemes_only(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert "--payment {first,kth,blend}" in capsys.readouterr().out


def test_a_plugin_that_does_not_load_is_one_line_and_exit_2_even_with_help(tmp_path, capsys):
    assert main(["simulate", "--plugin", str(tmp_path / "nope.py"), "--help"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().count("\n") == 0 and "plugin " in err and "nope.py: cannot read it" in err


def test_a_command_with_the_plugin_runs_its_scheme(tmp_path, capsys):
    p = _copy(tmp_path, "lowest_running.py")
    args = ["simulate", "--plugin", str(p), "--synthetic-jobs", "300", "--payment", "lowest-running"]
    args += ["--format", "json"]
    assert main(args) == 0
    assert '"payment": "lowest-running"' in capsys.readouterr().out


def test_the_mix_help_lists_a_plugins_family_and_simulate_runs_its_points(tmp_path, capsys):
    p = _copy(tmp_path, "shade_by_amount.py")
    with pytest.raises(SystemExit) as done:
        main(["simulate", "--plugin", str(p), "--help"])
    assert done.value.code == 0
    assert "shade-by[amount]" in " ".join(capsys.readouterr().out.split())
    args = ["simulate", "--plugin", str(p), "--synthetic-jobs", "120", "--nodes", "4", "--format", "json"]
    assert main([*args, "--mix", "shade-by[20]"]) == 0
    assert '"mix": "shade-by[20]"' in capsys.readouterr().out
    assert main([*args, "--mix", "shade-by[200]"]) == 2  # outside its box: the family's own message
    assert "--mix 'shade-by[200]'" in capsys.readouterr().err
