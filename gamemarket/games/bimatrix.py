"""The provider/consumer bimatrix game built from a study's payoff table.

Provider strategies are rows, consumer strategies columns. Besides the mean payoffs, the game keeps
every replication's payoffs (shape rows x columns x replications) so that confidence intervals,
bootstrap regret and robustness can be computed.
"""

from __future__ import annotations

import collections
from dataclasses import InitVar, dataclass, field

import numpy as np
import pandas as pd

from gamemarket.confidence import check_probability, t_half_width
from gamemarket.errors import (
    InputError,
    UndefinedPayoffError,
    check_flag,
    check_instance,
    check_text,
    shown_value,
)
from gamemarket.games.checks import check_finite, check_real, same_fields
from gamemarket.io.names import check_names


@dataclass(eq=False)
class Game:
    """A two-player normal-form game: ``A`` the row player's payoffs, ``B`` the column player's.

    The game holds copies of the payoffs it was given (a later change to the caller's arrays does not alter a
    game that was checked), and two games are ``==`` when every field is equal by value (the payoffs element by
    element): a game read back from its file equals the one written. ``copy=False`` (keyword, not a field) lets the
    game hold float64 payoffs as given, uncopied, for a caller that made them for the game and keeps no other use of
    them (a reader of a 12,000 x 12,000 game: 1.2 GB a copy, hunt 34b-F1); they are checked all the same."""

    A: np.ndarray
    B: np.ndarray
    rows: list[str] | None = None  #: default r0, r1, ...
    cols: list[str] | None = None  #: default c0, c1, ...
    A_reps: np.ndarray | None = None  #: rows x cols x replications
    B_reps: np.ndarray | None = None
    players: tuple[str, str] = ("provider", "consumer")
    title: str = ""
    meta: dict = field(default_factory=dict)
    copy: InitVar[bool] = True

    def __eq__(self, other) -> bool:
        """Equal by value: the payoffs element by element, the names, the replications, the title and meta."""
        return same_fields(self, other) if type(other) is type(self) else NotImplemented

    __hash__ = None  # (mutable, and equal by value: no hash)

    def __post_init__(self, copy: bool = True) -> None:
        check_flag(copy, "Game: copy")
        self._check_arguments()
        self._from_frames()
        for name in ("A", "B"):
            check_unmasked(getattr(self, name), f"game {self.title!r}: {name}")
            check_real(getattr(self, name), f"game {self.title!r}: {name}")
            try:  # a copy unless copy=False: the caller's stays theirs
                setattr(self, name, (np.array if copy else np.asarray)(getattr(self, name), dtype=float))
            except (ValueError, TypeError) as exc:  # rows of unequal lengths, a string: numpy's error named ours
                raise InputError(
                    f"game {self.title!r}: {name} must be a matrix of numbers (rows of one length), got "
                    f"{getattr(self, name)!r:.200} ({' '.join(str(exc).split())[:200]})"
                ) from None
        for name in ("A", "B"):
            if getattr(self, name).ndim != 2:  # ([], []) were "of one shape", which they were
                raise InputError(
                    f"game {self.title!r}: {name} must be a matrix (rows of payoffs, one per row strategy), got an "
                    f"array of shape {getattr(self, name).shape}"
                )
        if self.A.shape != self.B.shape:
            raise InputError(
                f"game {self.title!r}: A and B must be matrices of one shape, got {self.A.shape} and {self.B.shape}"
            )
        if self.A.size == 0:
            who = "the row player" if self.A.shape[0] == 0 else "the column player"
            raise InputError(
                f"game {self.title!r}: payoff matrices of shape {self.A.shape}: {who} has no strategy; expected at "
                "least one strategy each"
            )
        self.rows = [str(r) for r in self.rows] if self.rows is not None else [f"r{i}" for i in range(self.A.shape[0])]
        self.cols = [str(c) for c in self.cols] if self.cols is not None else [f"c{j}" for j in range(self.A.shape[1])]
        m, n = self.A.shape
        for what, names, count, axis in (("rows", self.rows, m, "row"), ("cols", self.cols, n, "column")):
            if len(names) != count:
                raise InputError(
                    f"game {self.title!r}: {what} must be a list of {count} distinct names (one per {axis} of A, "
                    f"of shape {self.A.shape}), got {len(names)}: {shown_value(names)}"
                )
        if isinstance(self.players, str) or not isinstance(self.players, (tuple, list)):  # 'ab' was 'a' and 'b'
            raise InputError(
                f"game {self.title!r}: players must be two names, such as ('row', 'col'), got {self.players!r}"
            )
        check_names(self.players, f"game {self.title!r}", "players")
        if len(self.players) != 2:
            raise InputError(f"game {self.title!r}: expected two players, got {list(self.players)}")
        if self.players[0] == self.players[1]:
            raise InputError(
                f"game {self.title!r}: its two players are both named {self.players[0]!r}; an answer names each "
                "player's strategies by the player: expected two names"
            )
        for who, names in zip(self.players, (self.rows, self.cols)):
            check_names(names, f"game {self.title!r}: {who}")
            counts = collections.Counter(names)  # (names.count for each name: 0.3 s for 6,000 strategies)
            twice = sorted(n for n, k in counts.items() if k > 1)
            if twice:  # an equilibrium names its strategies: two of one name would be one in every answer
                raise InputError(
                    f"game {self.title!r}: {who} has two strategies named {twice[0]!r}; expected distinct names"
                )
        check_finite(self.A, f"game {self.title!r} ({self.players[0]})", self.rows, self.cols)
        check_finite(self.B, f"game {self.title!r} ({self.players[1]})", self.rows, self.cols)
        self._check_reps()

    def _check_arguments(self) -> None:
        """The arguments that are no payoffs, before anything reads them: ``title`` a text, ``meta`` a dict, ``rows``
        and ``cols`` None or lists of names (texts). A number as ``rows`` was a TypeError from iterating it, a title
        or a meta of any kind was kept as it was."""
        check_text(self.title, "Game: title", empty=True)
        check_instance(self.meta, dict, f"game {self.title!r}: meta", "a dict")
        for what, names, axis in (("rows", self.rows, "row"), ("cols", self.cols, "column")):
            if names is not None and not strategy_names(names):
                raise InputError(
                    f"game {self.title!r}: {what} must be a list of distinct names (texts, one per {axis} of A), or "
                    f"None, got {shown_value(names)} ({type(names).__name__})"
                )

    def _check_reps(self) -> None:
        """The replications behind the means (``A_reps``, ``B_reps``): both or neither, numbers of shape ``rows x
        cols x R`` (one R), finite, whose means are ``A`` and ``B`` (up to rounding). Unchecked, a wrong shape was an
        IndexError in ``bootstrap``, and replications that contradicted the means gave robustness figures of other
        data without a word."""
        where = f"game {self.title!r}"
        given = [k for k in ("A_reps", "B_reps") if getattr(self, k) is not None]
        if not given:
            return
        if len(given) == 1:
            raise InputError(
                f"{where}: {given[0]} given without {({'A_reps', 'B_reps'} - set(given)).pop()}; "
                "expected both players' replications, or neither"
            )
        for k, means in (("A_reps", self.A), ("B_reps", self.B)):
            check_unmasked(getattr(self, k), f"{where}: {k}")
            check_real(getattr(self, k), f"{where}: {k}")
            try:
                reps = np.array(getattr(self, k), dtype=float)
            except (TypeError, ValueError) as exc:
                raise InputError(f"{where}: {k} must be numbers, got {getattr(self, k)!r:.120} ({exc})") from None
            if reps.ndim != 3 or reps.shape[:2] != means.shape or reps.shape[2] < 1:
                raise InputError(
                    f"{where}: {k} has shape {reps.shape}; expected {means.shape + ('R',)} (rows x cols x "
                    "replications, R >= 1)"
                )
            if not np.isfinite(reps).all():
                i, j, r = np.argwhere(~np.isfinite(reps))[0]
                raise InputError(f"{where}: {k}[{i}, {j}, {r}] is {reps[i, j, r]!r}; expected finite payoffs")
            scale = max(1.0, float(np.abs(reps).max()))
            off = np.abs((reps / scale).mean(axis=2) - means / scale)  # (scaled: a sum of 1e308s overflowed to inf)
            if (off > 1e-9).any():
                i, j = np.argwhere(off > 1e-9 * scale)[0]
                raise InputError(
                    f"{where}: {k}'s mean at ({self.rows[i]}, {self.cols[j]}) is {reps[i, j].mean():.10g}, but the "
                    f"game's payoff there is {means[i, j]:.10g}; expected the replications behind the means"
                )
            setattr(self, k, reps)
        if self.A_reps.shape != self.B_reps.shape:
            raise InputError(
                f"{where}: A_reps has {self.A_reps.shape[2]} replications, B_reps {self.B_reps.shape[2]}; expected "
                "the same replications of both players"
            )

    def _from_frames(self) -> None:
        """Payoffs given as labelled tables (pandas DataFrames) read by their labels, as pandas reads them: ``B``'s
        rows and columns put in ``A``'s order, the labels the strategies' names where none are given. Paired by
        position, a ``B`` whose rows were ``['b', 'a']`` beside ``A``'s ``['a', 'b']`` was solved as another game,
        without a word. Labels that differ between the two, or from the names given, are an error."""
        frames = {k: getattr(self, k) for k in ("A", "B") if hasattr(getattr(self, k), "columns")}
        labels = {k: (list(f.index), list(f.columns)) for k, f in frames.items() if not _positional(f)}
        if not labels:
            return
        where = f"game {self.title!r}"
        rows, cols = labels.get("A", labels.get("B"))
        for k, (r, c) in labels.items():
            if len(set(r)) != len(r) or len(set(c)) != len(c):
                raise InputError(f"{where}: {k}'s rows {r} or columns {c} repeat a label; expected distinct labels")
            if set(r) != set(rows) or set(c) != set(cols):
                raise InputError(
                    f"{where}: A and B are labelled differently (rows {labels['A'][0]} and {labels['B'][0]}, "
                    f"columns {labels['A'][1]} and {labels['B'][1]}); expected the same strategies"
                )
        # an axis that carries only positions (0, 1, ...: a RangeIndex) in every labelled table names nothing: its
        # strategies keep the names given, or the defaults r0, r1 / c0, c1, as a table without labels gives them
        # (rows ['10', '20'] and cols ['0', '1'] were one table's labels and the other axis's positions)
        positions = [all(_positions(axes[k]) for axes in labels.values()) for k in (0, 1)]
        for given, mine, what, blank in (
            (self.rows, rows, "rows", positions[0]),
            (self.cols, cols, "cols", positions[1]),
        ):
            if not blank and given is not None and [str(x) for x in given] != [str(x) for x in mine]:
                raise InputError(f"{where}: {what}={list(given)} but the payoff tables are labelled {mine}")
        if "B" in labels:
            self.B = self.B.loc[rows, cols]
        if "A" in labels:
            self.A = self.A.loc[rows, cols]
        self.rows = self.rows if positions[0] else rows
        self.cols = self.cols if positions[1] else cols

    @property
    def shape(self) -> tuple[int, int]:
        """(provider strategies, consumer strategies)."""
        return self.A.shape

    def to_nashpy(self):
        """The same game as a ``nashpy.Game`` (mean payoffs)."""
        import nashpy  # deferred: nashpy imports scipy.optimize (a second); only a nashpy cross-check needs it

        return nashpy.Game(self.A.copy(), self.B.copy())

    def reps(self) -> int:
        """Replications behind the mean payoffs (0 without them)."""
        return 0 if self.A_reps is None else self.A_reps.shape[2]

    def ci(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Half-widths of Student-t confidence intervals of the mean payoffs (NaN without replications); ``level`` a
        number strictly between 0 and 1 (checked with replications or without: 95 gave NaN intervals before)."""
        level = check_probability(level, f"game {self.title!r}: ci: level")
        if self.A_reps is None or self.A_reps.shape[2] < 2:
            nan = np.full(self.A.shape, np.nan)
            return nan, nan
        # in units of the largest payoff: replications of +-1e307 overflowed to an infinite half-width
        return tuple(_half_width(reps, level) for reps in (self.A_reps, self.B_reps))

    def restrict_cols(self, keep: np.ndarray) -> "Game":
        """The game with only the consumer strategies where ``keep`` is true."""
        keep = np.asarray(keep)
        if keep.dtype != bool or keep.shape != (self.A.shape[1],):
            raise InputError(
                f"game {self.title!r}: restrict_cols takes one true or false per consumer strategy "
                f"({self.A.shape[1]}), got {keep.tolist()!r:.120}"
            )
        return Game(
            self.A[:, keep],
            self.B[:, keep],
            self.rows,
            [c for c, k in zip(self.cols, keep) if k],
            None if self.A_reps is None else self.A_reps[:, keep],
            None if self.B_reps is None else self.B_reps[:, keep],
            self.players,
            self.title,
            dict(self.meta),
        )


#: the run metrics (``gamemarket.market.payoffs``) a side wants low: a game, in which each side maximises its payoff,
#: plays their negation, named ``-<metric>`` (hunt 20a-F1: the consumers were solved maximising their slowdown, and
#: the report said they gained by shading)
LOWER_IS_BETTER = ("mean_bsd", "ssj_share")


def played(metric: str, lower_is_better=LOWER_IS_BETTER) -> str:
    """The payoff a game plays for a metric: the metric, or ``-<metric>`` where lower is better."""
    return f"-{metric}" if metric in lower_is_better else metric


def from_results(
    metrics: pd.DataFrame,
    provider_metric: str,
    consumer_metric: str,
    *,
    title: str = "",
    rows: list[str] | None = None,
    cols: list[str] | None = None,
    drop_undefined: bool = True,
    lower_is_better: tuple = LOWER_IS_BETTER,
) -> Game:
    """A game from a tidy table with columns provider, consumer, seed and the metric columns.

    Each side maximises its payoff: a metric in ``lower_is_better`` (a slowdown, a share of slowed-down jobs) is
    played negated, its payoff named ``-<metric>`` in ``meta``.

    Consumer strategies for which the consumer metric is undefined (NaN, e.g. the aggressive users'
    utility under a mix without an aggressive group) are dropped when ``drop_undefined``; the game's
    ``meta["dropped"]`` names them.
    """
    check_instance(metrics, pd.DataFrame, "from_results: metrics", "a payoff table (a pandas DataFrame)")
    check_text(provider_metric, "from_results: provider_metric (a column of the payoff table)")
    check_text(consumer_metric, "from_results: consumer_metric (a column of the payoff table)")
    check_text(title, "from_results: title", empty=True)
    drop_undefined = check_flag(drop_undefined, "from_results: drop_undefined")
    if not isinstance(lower_is_better, (list, tuple, frozenset, set)) or not all(
        isinstance(m, str) for m in lower_is_better
    ):
        raise InputError(
            "from_results: lower_is_better must be a list of metric names (the metrics a side wants low, played "
            f"negated), got {lower_is_better!r:.100}"
        )
    for c in ("provider", "consumer", "seed", provider_metric, consumer_metric):
        if c not in metrics.columns:
            raise InputError(f"payoff table lacks column {c!r}")
    rows = _table_strategies(metrics, "provider", rows, "rows")
    cols = _table_strategies(metrics, "consumer", cols, "cols")
    seeds = sorted(metrics["seed"].unique())
    idx = metrics.set_index(["provider", "consumer", "seed"])
    if idx.index.has_duplicates:
        dup = idx.index[idx.index.duplicated()][0]
        raise InputError(f"payoff table has more than one run for ({dup[0]}, {dup[1]}, seed {dup[2]})")
    full = pd.MultiIndex.from_product([rows, cols, seeds], names=idx.index.names)
    present = full.isin(idx.index)
    if not present.all():
        r, c, s = full[np.flatnonzero(~present)[0]]
        raise InputError(f"payoff table has no run for ({r}, {c}, seed {s})")
    shape = (len(rows), len(cols), len(seeds))
    cells = idx.reindex(full)
    # each side maximises its payoff: a metric it wants low is played negated (:func:`played`)
    A, B = (
        _metric(cells, c).reshape(shape) * (-1.0 if c in lower_is_better else 1.0)
        for c in (provider_metric, consumer_metric)
    )
    dropped = []
    if drop_undefined:
        undefined = np.isnan(B).any(axis=(0, 2))
        dropped = [c for c, u in zip(cols, undefined) if u]
        if undefined.all():
            raise UndefinedPayoffError(
                f"game {title!r}: the consumer payoff {consumer_metric!r} is undefined for every consumer strategy "
                + (
                    "(a mix of one group has no aggressive group; each mix here has one group, or none of its jobs "
                    "in the aggressive group in some seed)"
                    if consumer_metric == "mean_utility_aggressive"
                    else "(in some seed no job is of the group it measures)"
                )
            )
        A, B = A[:, ~undefined], B[:, ~undefined]
        cols = [c for c, u in zip(cols, undefined) if not u]
    g = Game(
        A.mean(axis=2),
        B.mean(axis=2),
        [str(r) for r in rows],  # the table's labels as names (as the game took any label before)
        [str(c) for c in cols],
        A,
        B,
        title=title,
        meta={
            "provider_payoff": played(provider_metric, lower_is_better),
            "consumer_payoff": played(consumer_metric, lower_is_better),
            "seeds": [int(s) for s in seeds],
            "dropped_consumers": dropped,
        },
    )
    return g


def _metric(cells: pd.DataFrame, column: str) -> np.ndarray:
    """The payoff table's ``column`` as floats, else an :class:`InputError` naming it and a value that is no number
    (a text column was float()'s bare "could not convert string to float")."""
    try:
        return cells[column].to_numpy(dtype=float)
    except (TypeError, ValueError):
        pass
    odd = next(v for v in cells[column] if not _is_number(v))
    raise InputError(f"payoff table column {column!r} must hold numbers, got {shown_value(odd)} ({type(odd).__name__})")


def _is_number(value) -> bool:
    """Whether ``value`` reads as a float."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _table_strategies(metrics: pd.DataFrame, column: str, names, what: str) -> list:
    """The strategies of the payoff table's ``column`` a game is made of: ``names`` (None: every one, in the
    table's order), a non-empty list of labels the column holds. An empty list was every strategy, a dict too,
    and a number a TypeError from pandas."""
    held = list(dict.fromkeys(metrics[column]))
    if names is None:
        return held
    if isinstance(names, (str, dict)) or not isinstance(names, (list, tuple, np.ndarray, pd.Index)) or len(names) == 0:
        raise InputError(
            f"from_results: {what} must be None (every {column}) or a non-empty list of {column} names of the payoff "
            f"table, got {shown_value(names)} ({type(names).__name__})"
        )
    names = list(names)
    present = set(held)
    missing = [n for n in names if not _hashable(n) or n not in present]
    if missing:
        raise InputError(
            f"from_results: {what} names {shown_value(missing[0])}, which the payoff table's {column!r} column does "
            f"not hold; expected names among {shown_value(held)}"
        )
    return names


def _hashable(value) -> bool:
    """Whether ``value`` can be looked up in a set."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


def strategy_names(names) -> bool:
    """Whether ``names`` is a list of strategy names: a list, a tuple, a one-dimensional array or a pandas Index
    whose every element is a text (no text itself, no mapping, no number)."""
    if isinstance(names, (np.ndarray, pd.Index)):
        return names.ndim == 1 and all(isinstance(n, str) for n in names.tolist())
    return isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names)


def _half_width(reps: np.ndarray, level: float) -> np.ndarray:
    """Student-t half-widths of ``reps``' means over its last axis, computed in units of its largest magnitude."""
    scale = max(1.0, float(np.abs(reps).max()))
    return t_half_width(reps / scale, axis=2, level=level) * scale


def check_unmasked(value, what: str) -> None:
    """Refuse a masked array with masked entries (numpy reads its hidden values, ignoring the mask), naming
    ``what``."""
    if isinstance(value, np.ma.MaskedArray) and np.ma.count_masked(value):
        raise InputError(
            f"{what} is a masked array with {int(np.ma.count_masked(value)):,} masked entries; the mask would be "
            "ignored: expected the payoffs themselves (fill or drop the masked ones)"
        )


def _positional(frame) -> bool:
    """A table whose rows and columns carry only their positions (``pandas.DataFrame(array)``: 0, 1, ...)."""
    return all(_positions(axis) for axis in (frame.index, frame.columns))


def _positions(axis) -> bool:
    """Whether a table's axis labels are only its positions (0, 1, ...)."""
    return list(axis) == list(range(len(axis)))
