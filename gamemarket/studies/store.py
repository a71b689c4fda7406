"""The result store: one Parquet file per finished task, written atomically, keyed by a hash.

The key hashes everything that determines a task's numbers (workload content, node count, bid
distribution, strategy parameters, seed, model version), so a finished task is never recomputed
and a changed input never reuses a stale result. A file is written to a temporary name and moved
into place, so an interrupted study leaves only complete results behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


def task_key(fields: dict) -> str:
    blob = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


class ResultStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.runs = self.root / "runs"

    def path(self, key: str) -> Path:
        return self.runs / f"{key}.parquet"

    def has(self, key: str) -> bool:
        """Whether a readable result is stored: a file whose Parquet footer or metadata does not read
        (a truncated or corrupt file) counts as missing, with a warning, and its task is run again."""
        path = self.path(key)
        if not path.exists():
            return False
        try:
            meta = pq.read_schema(path).metadata or {}
            json.loads(meta[b"gamemarket.metrics"])
            return True
        except Exception as exc:  # any failure to read means the result cannot be trusted
            import warnings

            warnings.warn(f"{path}: stored result does not read ({type(exc).__name__}); the task will be run again",
                          stacklevel=2)
            return False

    def write(self, key: str, metrics: dict, bins: pd.DataFrame, task: dict, cohorts: pd.DataFrame | None = None) -> Path:
        self.runs.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pandas(bins, preserve_index=False)
        meta = dict(table.schema.metadata or {})
        meta[b"gamemarket.metrics"] = json.dumps(metrics).encode()
        meta[b"gamemarket.task"] = json.dumps(task, default=str).encode()
        if cohorts is not None:
            meta[b"gamemarket.cohorts"] = cohorts.to_json(orient="split", index=False, double_precision=15).encode()
        table = table.replace_schema_metadata(meta)
        target = self.path(key)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, target)
        return target

    def read(self, key: str) -> tuple[dict, pd.DataFrame, dict]:
        table = pq.read_table(self.path(key))
        meta = table.schema.metadata
        return (json.loads(meta[b"gamemarket.metrics"]), table.to_pandas(),
                json.loads(meta[b"gamemarket.task"]))

    def read_cohorts(self, key: str) -> pd.DataFrame | None:
        import io

        meta = pq.read_schema(self.path(key)).metadata
        raw = meta.get(b"gamemarket.cohorts")
        return None if raw is None else pd.read_json(io.StringIO(raw.decode()), orient="split")

    def read_metrics(self, key: str) -> tuple[dict, dict]:
        meta = pq.read_schema(self.path(key)).metadata
        return json.loads(meta[b"gamemarket.metrics"]), json.loads(meta[b"gamemarket.task"])
