import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parents[1]
LPC_NAME = "LPC-EGEE-2004-1.2-cln.swf.gz"
SDSC_NAME = "SDSC-Par-1996-3.1-cln.swf.gz"


def trace_path(name: str = LPC_NAME) -> Path | None:
    env = os.environ.get("GAMEMARKET_TRACES")
    for base in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "workloads"]:
        p = base / name
        if p.exists():
            return p
    return None


def lpc_path() -> Path | None:
    return trace_path(LPC_NAME)


@pytest.fixture(scope="session")
def lpc():
    p = lpc_path()
    if p is None:
        pytest.skip(f"the LPC trace {LPC_NAME} is not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    return p


@pytest.fixture(scope="session")
def sdsc():
    p = trace_path(SDSC_NAME)
    if p is None:
        pytest.skip(f"the SDSC Paragon trace {SDSC_NAME} is not in ../shared/workloads nor in $GAMEMARKET_TRACES")
    return p
