import os
import sys
from pathlib import Path

import pytest

# Lets tests import their helpers (tests/scenarios.py) as plain modules.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True, scope="session")
def _result_cache(tmp_path_factory: pytest.TempPathFactory):
    """`rulespec check` keeps results in $RULESPEC_CACHE (default .rulespec-cache/ in the
    current folder): point it at a folder of this session, so no test writes into the
    checkout and no test reads what an earlier session left there."""
    saved = os.environ.get("RULESPEC_CACHE")
    os.environ["RULESPEC_CACHE"] = str(tmp_path_factory.mktemp("rulespec-cache"))
    yield
    if saved is None:
        os.environ.pop("RULESPEC_CACHE", None)
    else:
        os.environ["RULESPEC_CACHE"] = saved
