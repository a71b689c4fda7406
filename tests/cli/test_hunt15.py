"""Regression rows of held-out hunt 15 and of the named limits the last session left (issue #43)."""

from __future__ import annotations

import importlib.util

import pytest

from gamemarket.cli import main


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="PyTorch is installed here")
def test_torch_backend_without_pytorch_prints_nothing_but_the_error(capsys):
    """Hunt 14's worth-a-look: the solve's header line was printed before the backend was found missing."""
    assert main(["price", "solve", "--n", "10", "--m", "2", "--backend", "torch"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "the torch backend needs PyTorch: pip install 'gamemarket[torch]'" in err
