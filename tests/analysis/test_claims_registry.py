"""Claims as registered entries: each carries its statement and test, and ``evaluate`` runs them in order."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gamemarket.analysis import claims
from gamemarket.errors import InputError
from gamemarket.registry import Registry

PROVIDERS = {
    "hb-first": {"kind": "scheduling", "scheduler": "hb", "payment": "first", "reserve": 1.0},
    "hb-kth": {"kind": "scheduling", "scheduler": "hb", "payment": "kth", "reserve": 1.0},
}
CONSUMERS = {"FT": {"groups": [[1.0, 0.0]]}, "SRG": {"groups": [[0.9, 0.1], [0.1, 0.9]]}}
BINS = pd.DataFrame(
    columns=["provider", "consumer", "seed", "group", "bid_bin", "n", "sum_bsd", "n_ssj", "sum_utility"]
)


def _metrics():
    rng = np.random.default_rng(0)
    rows = [
        {"provider": p, "consumer": c, "seed": s, "mean_utility": rng.normal(), "revenue": 100.0 + (p == "hb-first")}
        for p in PROVIDERS
        for c in CONSUMERS
        for s in range(1, 6)
    ]
    return pd.DataFrame(rows)


def test_every_claim_carries_its_statement_and_test():
    assert list(claims.CLAIMS) == ["1", "2", "3", "4", "rule-kth-utility", "5"]
    for cid, c in claims.CLAIMS.items():
        assert c.id == cid and len(c.statement) > 20 and len(c.test) > 10 and callable(c.rule)
    with pytest.raises(InputError, match="claim '1' is already registered"):
        claims.register_claim("1", claims.claim_1, "again", "again")


def test_evaluate_is_the_registered_rules_in_order(monkeypatch):
    data = claims.ClaimData(_metrics(), BINS, None, CONSUMERS, PROVIDERS)
    want = [row for c in claims.CLAIMS.values() for row in c.rule(data)]
    got = claims.evaluate(_metrics(), BINS, None, CONSUMERS, PROVIDERS)
    assert (
        [r["key"] for r in got]
        == [r["key"] for r in want]
        == [
            "c1",  # no bins: measured on nothing, so inconclusive
            "c2",
            "rule-kth-utility-FT",
            "rule-kth-utility-SRG",
            "rule-first-revenue",
        ]
    )
    # a claim registered later is measured after the others, from the same data
    reg = Registry("claim")
    for cid, c in claims.CLAIMS.items():
        reg.register(cid, c)
    monkeypatch.setattr(claims, "CLAIMS", reg)

    def providers_seen(d):
        return [claims.claim_row("providers", "-", ", ".join(sorted(d.provs)), claims.CONTEXT, key="extra")]

    claims.register_claim("extra", providers_seen, "a test claim", "lists the providers")
    rows = claims.evaluate(_metrics(), BINS, None, CONSUMERS, PROVIDERS)
    assert rows[-1]["key"] == "extra" and rows[-1]["measured"] == "hb-first, hb-kth"
    assert pd.DataFrame(rows[:-1]).equals(pd.DataFrame(got))  # NaN where NaN


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path", sorted(ROOT.glob("reports/*/data/claims.csv")), ids=lambda p: p.parent.parent.name)
def test_every_measured_key_is_one_its_claims_declare(path):
    # the committed reports' claims: each key is held by one registered claim's declared keys, so a discussion
    # quoting it is not refused before a run
    for key in pd.read_csv(path)["key"]:
        assert claims.claim_key_problem(key) is None, key
        assert sum(bool(c.holds_key(key)) for c in claims.CLAIMS.values()) == 1, key


@pytest.mark.parametrize("key", ["c9", "c1-high", "c3-hb-low-bsd", "c4-FT-first-high", "rule-kth-utility-DEV1", ""])
def test_a_key_no_claim_declares_is_named(key):
    assert f"no claim has the key {key!r}" in claims.claim_key_problem(key)


def test_a_claim_without_declared_keys_holds_any_key_and_a_declared_key_is_checked(monkeypatch):
    reg = Registry("claim")
    for cid, c in claims.CLAIMS.items():
        reg.register(cid, c)
    monkeypatch.setattr(claims, "CLAIMS", reg)

    def extra(d):
        return [claims.claim_row("providers", "-", "x", claims.CONTEXT, key="extra-1")]

    claims.register_claim("mine", extra, "a test claim", "lists the providers", keys="extra-[0-9]+")
    assert claims.claim_key_problem("extra-12") is None and "no claim has" in claims.claim_key_problem("c9")
    claims.register_claim("wrong", extra, "a test claim", "its rows carry another key", keys="other")
    with pytest.raises(InputError, match=r"claim 'wrong': a row carries the key 'extra-1', which its keys= 'other'"):
        claims.evaluate(_metrics(), BINS, None, CONSUMERS, PROVIDERS)
    claims.register_claim("any", extra, "a plugin's claim", "declares no keys")
    assert claims.claim_key_problem("c9") is None  # a claim that does not say may carry it
    with pytest.raises(ValueError, match=r"claim 'bad': keys='c\[' is no regular expression"):
        claims.register_claim("bad", extra, "a test claim", "a broken pattern", keys="c[")
