"""What the commands print: helpers shared by the command modules.

Numbers printed for people go through the reports' one formatter (:func:`gamemarket.reports.markdown.num`):
thousands separated, a chosen number of significant digits, no exponent (``-351,987`` where Python prints
``-3.51987e+05``). ``--format json`` prints every number at full precision instead.

A command's standard output is its result (``--format json`` is read by programs): code that is not the
command's own, a plugin's as it loads, runs under :func:`foreign_code`, which sends what it prints to stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys

from gamemarket.errors import InputError
from gamemarket.reports.markdown import num

#: significant digits of a summary's numbers (``print_dict``): a run's means and shares, to the precision
#: that tells two runs apart
SUMMARY_DIGITS = 6


def value_text(v, digits: int = SUMMARY_DIGITS) -> str:
    """A summary's value as printed for people: a float (or a list of floats) through
    :func:`gamemarket.reports.markdown.num`, anything else as ``str``.

    Parameters
    ----------
    v : object
        The value.
    digits : int
        Significant digits of a float.

    Returns
    -------
    str
    """
    if isinstance(v, float):
        return num(v, digits)
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, float) for x in v):
        return ", ".join(num(x, digits) for x in v)
    return str(v)


def print_dict(d: dict, indent: int = 0, digits: int = SUMMARY_DIGITS) -> None:
    """Print a (nested) dictionary as indented ``key: value`` lines; floats formatted for people
    (:func:`value_text`).

    Parameters
    ----------
    d : dict
        The items to print; a dict value is printed below its key, indented by two more spaces.
    indent : int
        Spaces before each of this level's lines.
    digits : int
        Significant digits of each float.
    """
    for k, v in d.items():
        if isinstance(v, dict):
            print(" " * indent + f"{k}:")
            print_dict(v, indent + 2, digits)
        else:
            print(" " * indent + f"{k}: {value_text(v, digits)}")


@contextlib.contextmanager
def foreign_code(what: str):
    """Run code that is not the command's own (a plugin's, as it loads) without letting it change what the command
    prints or where it writes: what it prints goes to stderr, and a working directory it changes is changed back
    and refused.

    A plugin's ``print`` at its top level would otherwise land in the command's result (``--format json`` no longer
    parses), and an ``os.chdir`` would make every relative path of the command line (``--out rel.csv``) name a file
    in another folder.

    Parameters
    ----------
    what : str
        The code, for the message (``"plugin mine.py"``).

    Raises
    ------
    InputError
        The code changed the working directory (which is restored first, so nothing is written there).
    """
    cwd = os.getcwd()
    with contextlib.redirect_stdout(sys.stderr):
        try:
            yield
        finally:
            try:
                now = os.getcwd()
            except OSError:  # the code deleted the folder it moved to
                now = "(a folder since deleted)"
            if now != cwd:
                os.chdir(cwd)
    if now != cwd:
        raise InputError(
            f"{what}: changed the working directory (from {cwd} to {now}) as it loaded; expected it to leave it "
            "as it is (the command's relative paths would name other files)"
        )
