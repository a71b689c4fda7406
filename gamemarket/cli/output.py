"""What the commands print: helpers shared by the command modules."""

from __future__ import annotations


def print_dict(d: dict, indent: int = 0) -> None:
    """Print a (nested) dictionary as indented ``key: value`` lines; floats to six significant digits.

    Parameters
    ----------
    d : dict
        The items to print; a dict value is printed below its key, indented by two more spaces.
    indent : int
        Spaces before each of this level's lines.
    """
    for k, v in d.items():
        if isinstance(v, dict):
            print(" " * indent + f"{k}:")
            print_dict(v, indent + 2)
        elif isinstance(v, float):
            print(" " * indent + f"{k}: {v:.6g}")
        else:
            print(" " * indent + f"{k}: {v}")
