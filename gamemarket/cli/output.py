"""What the commands print: helpers shared by the command modules.

Numbers printed for people go through the reports' one formatter (:func:`gamemarket.reports.markdown.num`):
thousands separated, a chosen number of significant digits, no exponent (``-351,987`` where Python prints
``-3.51987e+05``). ``--format json`` prints every number at full precision instead.
"""

from __future__ import annotations

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
