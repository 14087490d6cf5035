import os
import sys
from pathlib import Path

import pytest

# Lets tests import their helpers (tests/scenarios.py) as plain modules.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True, scope="session")
def _result_cache(tmp_path_factory: pytest.TempPathFactory):
    """`rulespec check` keeps results in $RULESPEC_CACHE (default .rulespec-cache/ in the
    current folder), signed with a secret in the user's state directory
    ($RULESPEC_CACHE_SECRET_FILE moves it): point both at folders of this session, so no
    test writes into the checkout or the user's home and no test reads what an earlier
    session left there."""
    names = ("RULESPEC_CACHE", "RULESPEC_CACHE_SECRET_FILE")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["RULESPEC_CACHE"] = str(tmp_path_factory.mktemp("rulespec-cache"))
    os.environ["RULESPEC_CACHE_SECRET_FILE"] = str(
        tmp_path_factory.mktemp("rulespec-state") / "cache-secret")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture
def fresh_z3():
    """Run the test in a new z3 context with z3's caches empty (properties/symbolic/
    session.py): what z3 chooses within a budget depends on the terms already in the
    context, so a test that asserts how far a budgeted search went would otherwise pass
    or fail by which tests its worker ran before it."""
    from properties.symbolic import session

    with session.fresh():
        yield
