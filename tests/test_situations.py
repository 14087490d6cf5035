"""Every situation file under tests/situations/ is a test (see tests/scenarios.py)."""

from pathlib import Path

import pytest
from scenarios import SITUATIONS, run_scenario

FILES = sorted(SITUATIONS.glob("*/*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_situation(path: Path) -> None:
    run_scenario(path)
