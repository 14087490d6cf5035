"""Every scenario file under tests/situations/ is a test (see tests/scenarios.py).

A scenario file has a `situation:` key beside its expectations; bare situation files
(just a state, used by a game's own test module) are left to that module.
"""

from pathlib import Path

import pytest
from scenarios import SITUATIONS, load_scenario, run_scenario

FILES = [p for p in sorted(SITUATIONS.glob("*/*.yaml")) if "situation" in load_scenario(p)]


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_situation(path: Path) -> None:
    run_scenario(path)
