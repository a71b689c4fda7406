"""The reports draw off screen from the command line and in workers, and leave a notebook's backend alone: importing
them in a notebook once switched it to Agg, so the user's own figures no longer showed."""

import subprocess
import sys

import pytest

CODE = (
    "import sys, types\n"
    "{fake}"
    "import matplotlib\n"
    "matplotlib.use('svg')\n"
    "import gamemarket.reports.figures, gamemarket.reports.population, gamemarket.workflow\n"
    "print(matplotlib.get_backend())\n"
)


@pytest.mark.parametrize(
    "fake, backend",
    [("sys.modules['ipykernel'] = types.ModuleType('ipykernel')\n", "svg"), ("", "agg")],
    ids=["in a notebook's kernel", "elsewhere"],
)
def test_the_reports_set_agg_only_outside_a_notebook(fake, backend):
    done = subprocess.run([sys.executable, "-c", CODE.format(fake=fake)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().lower() == backend
