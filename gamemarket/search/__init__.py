"""Search: the drivers that decide which runs to make next.

A study's runs are made and stored by ``gamemarket.studies``; its answers are computed from stored runs by
``gamemarket.analysis``, which never starts a simulation. Between them sit the drivers, each a loop of "ask
the analysis what is known, decide what to run next, run it": the population study's adaptive seeds and
verification (``population``), strategy exploration by a best-response search (``exploration``), and the
certificates' sequential sampling (``certificates``).

Nothing is imported here, so that each driver's imports stay its own.
"""
