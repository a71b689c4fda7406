"""The workflows as library calls: what ``gamemarket study run`` and ``gamemarket report`` do, in one call each.

A study is run in steps that live in other parts: the runs (``studies``), the drivers that decide which runs to
make next (``search``), the answers from stored runs (``analysis``) and the report (``reports``). This part puts
them in the order the command line uses, so a notebook and the CLI do the same thing; the CLI only parses its
arguments and prints what these calls say. (They are not offered as ``gamemarket.run_study``: every part imports
the package's root, so a root that offered the workflows would close a loop through every part.)

>>> from gamemarket.workflow import run_study
>>> result = run_study("studies/default.toml", n_jobs=2)  # doctest: +SKIP
>>> result.equilibria()  # doctest: +SKIP
"""

from gamemarket.workflow.study import StudyResult, run_study, write_study_report

__all__ = ["StudyResult", "run_study", "write_study_report"]
