"""A study report's section on the claims of Shudler et al. (2010): the measured claims and what follows from
the market's rules, and their CSV (it renders ``gamemarket.analysis.claims``'s rows; it computes nothing new)."""

from __future__ import annotations

from pathlib import Path

from gamemarket.analysis.claims import CONTEXT, claims_csv
from gamemarket.io.files import OutputFolder, atomic_path
from gamemarket.reports.markdown import md_table, num, num_ci


def write_csv(frame, path: Path) -> Path:
    """Write a DataFrame as CSV (pandas' format, as the reports always wrote it), atomically."""
    with atomic_path(path, "table") as tmp:
        frame.to_csv(tmp, index=False)
    return path


#: significant digits of the claims table's numbers: differences of means over ten seeds or so, whose
#: intervals are a few percent of the mean wide
CLAIM_DIGITS = 4


def claim_measured(row: dict, digits: int = CLAIM_DIGITS) -> str:
    """A claim row's "measured" cell: what was measured and its numbers, formatted for people.

    Parameters
    ----------
    row : dict
        A row of :func:`gamemarket.analysis.claims.evaluate`; its ``form`` says what it shows.
    digits : int
        Significant digits of each number (:func:`gamemarket.reports.markdown.num`).

    Returns
    -------
    str
        ``"SRG aggressive minus FT: +10.42 [+9.471, +11.37] (n=10)"`` (form ``interval``), ``"k-th minus first:
        +1,830 (every one of 10 seeds >= 0: yes)"`` (form ``mean``, a rule's difference and its check), or the
        row's ``measured`` text as it is (form ``text``, or a row without a form).
    """
    form = row.get("form", "text")
    if form == "interval":
        return f"{row['measured']}: {num_ci(row['mean'], row['ci_low'], row['ci_high'], digits)} (n={row['n_seeds']})"
    if form == "mean":
        return f"{row['measured']}: {num(row['mean'], digits, sign=True)} ({row['check']})"
    return row["measured"]


def unmeasured_companions(missing) -> list[str]:
    """A paragraph for each companion study whose claims are not measured (``missing``: name, study file, why)."""
    return [
        f"Not measured on the companion study {name} (`{path}`): {why.rstrip('.')}; then write this report again "
        "to measure it.\n"
        for name, path, why in missing
    ]


def claims_section(spec, claim_rows, out: OutputFolder, missing=()) -> str:
    """The paper's claims measured: the tested claims' table, the rules' table, and ``data/claims.csv``;
    ``missing``: the companion studies not measured, (name, study file, why), named below the tables."""
    md = [
        "## Claims of Shudler et al. (2010), measured\n",
        "Paired by replication seed (common random numbers: the pairs share every private bid); mean "
        "difference [95% t-interval over seeds]. *supported*: the interval lies on the claimed side of zero; "
        "*contradicted*: on the other side; *inconclusive*: it covers zero. Claim (4) is tested as the paper "
        "states it: under first price the risk-aggressive users' high-bid jobs gain by shading over the same "
        "jobs' truthful run, under k-th price they do not ('gain nothing' holds unless the gain is "
        "significantly positive), and the first-price gain exceeds the k-th price gain; the joint row is "
        "supported only when all three are. Bid classes (private bid, per second of run time): low [0, 60], "
        "middle (60, 120), high [120, 180]. Claims (1)-(3) use the risk-aggressive group of SRG. BSD has no "
        "unit; utilities are in bid x seconds per job.\n",
    ]
    base = claim_rows[0][1]
    others = [dict((r["key"], r) for r in rows) for _, rows in claim_rows[1:]]
    comp_names = [c for c, _ in claim_rows[1:]]

    def table(rows_):
        headers = ["claim", "paper", "measured: " + spec.name, "verdict"]
        headers += [f"{h}: {n}" for n in comp_names for h in ("measured", "verdict")]
        body = []
        for r in rows_:
            row = [r["claim"], r["paper"], claim_measured(r), f"**{r['verdict']}**"]
            for o in others:
                c = o.get(r["key"])
                row += [claim_measured(c), f"**{c['verdict']}**"] if c else ["-", "-"]
            body.append(row)
        return md_table(headers, body) + "\n"

    rules = [r for r in base if r["key"].startswith("rule-")]
    tested = [r for r in base if not r["key"].startswith("rule-") and r["verdict"] != CONTEXT]
    md.append(
        table(tested)
        if tested
        else "No claim (1)-(4) of the paper is measured on this study: each reads the paper's FT and its SRG or DEV1 "
        "(the built-in catalogue's), which this study does not hold.\n"
    )
    if rules:
        md.append("### What follows from the rules\n")
        md.append(
            "Under HB the schedule depends only on the reported bids, and the k-th price never exceeds the "
            "first. So k-th price cannot lower a user's utility, and first price cannot lower the provider's "
            "revenue: these are consequences of the market's rules, not findings. Each row shows the "
            "measured difference without an interval and checks the rule on every seed.\n"
        )
        md.append(table(rules))
    md += unmeasured_companions(missing)
    write_csv(claims_csv(claim_rows), out.file("data/claims.csv"))
    md.append(
        "Every claim, with its key, mechanism, group, bid class, statistic, mean, interval and verdict: "
        "`data/claims.csv` (the first-price gains of the low and middle classes, which the paper makes no "
        "claim about, are there as *context*, and in the next table).\n"
    )
    return "\n".join(md)
