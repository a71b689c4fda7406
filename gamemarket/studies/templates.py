"""``gamemarket study new``: a commented study file that runs as it is, from any folder.

The two templates (a provider/consumer game, a population game) use only the built-in catalogues and
the synthetic generator, so a new study needs nothing but the installed package; each field is
explained where it stands, and ``gamemarket study reference`` (``docs/reference/study-file.md``) lists every
other one.
"""

from __future__ import annotations

import os
from pathlib import Path

from gamemarket.errors import InputError
from gamemarket.io.files import atomic_path, check_output_file
from gamemarket.io.names import check_name

BIMATRIX = """# A gamemarket study: a provider/consumer game on a synthetic cluster.
# Run it with:  gamemarket study run {file}
# Every table and field: `gamemarket study reference` prints the study-file reference.

name = "{name}"              # names the results and report folders
description = "A provider/consumer game: which payment scheme, and how much do users shade?"

[workload]
source = "synthetic"         # the plain generator; a trace: an SWF file or a known trace name
nodes = 16

[workload.synthetic]
jobs = 2000                  # serial jobs
load = 0.9                   # offered load: work per node-second of the span
seed = 1

[strategies]
# names from the built-in catalogues (a strategies/ folder beside this file extends them)
providers = ["hb-first", "hb-kth"]        # preemptive Highest-Bid with first or k-th price
consumers = ["FT", "SRG", "g0.3x0.9"]     # truthful, the paper's shading mix, a cell of the beta grid

[replications]
count = 3                    # seeds: every profile runs once per seed, with the same draws

[output]                     # relative to this file
results = "results/{name}"
report = "reports/{name}"
"""

POPULATION = """# A gamemarket population study: does a user gain by shading, given what everyone else does?
# Run it with:  gamemarket study run {file}
# Every table and field: `gamemarket study reference` prints the study-file reference.

name = "{name}"
description = "Consumers as many self-interested players: is truthful bidding an equilibrium?"

[workload]
source = "synthetic"
nodes = 16

[workload.synthetic]
jobs = 1500
load = 1.1                   # a congested cluster, where bids matter
seed = 2

[strategies]
providers = ["hb-first", "hb-kth"]   # the mechanisms the provider chooses between

[replications]
count = 3

[game]
kind = "population"
strategies = ["truthful", "shade-0.5", "shade-high-0.9"]   # shading rules (built-in catalogue, or [game.shading.NAME])
reduced_players = 3          # players of the deviation-preserving reduction
probe = 0.01                 # width of each deviation's probe slice

[output]                     # relative to this file
results = "results/{name}"
report = "reports/{name}"
"""


def new_study(path: str | Path, *, population: bool = False, force: bool = False) -> Path:
    """Write a commented study file that runs as it is; ``path`` is a file name (``.toml`` added where
    missing), whose stem is the study's name. An existing file is replaced only with ``force``.

    Returns the path written.
    """
    given = str(path)
    path = Path(path)
    if given.endswith(("/", os.sep)) or os.path.basename(given) in ("", ".", ".."):  # `study new .`: a traceback
        raise InputError(
            f"{given}: a folder; expected the new study file's name (NAME or NAME.toml, in a folder: "
            f"{given.rstrip('/')}/NAME.toml), whose stem names the study"
        )
    if path.name.lower() == ".toml":  # (no stem: it was named ".toml.toml", hunt 18c)
        raise InputError(f"{given}: no name before .toml; expected the new study file's name (NAME or NAME.toml)")
    if path.suffix.lower() == ".toml" and path.suffix != ".toml":  # x.TOML: the study file the user named
        path = path.with_suffix(".toml")
    if path.suffix != ".toml":
        path = path.with_name(path.name + ".toml")
    name = check_name(path.stem, str(path), "name (the file's stem)")
    check_output_file(path, option="study new", force=force)
    if not path.parent.is_dir():
        raise InputError(f"{path.parent.resolve()}: no such folder to write the study into")
    text = (POPULATION if population else BIMATRIX).format(name=name, file=path.name)
    with atomic_path(path, "study file") as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path
