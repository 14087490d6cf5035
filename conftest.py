"""Registers the rulespec pytest plugin (`pytest spec/` runs the property suite) and
pytester, which tests/test_suite.py uses to run the plugin on spec copies."""

import tempfile

import pytest

pytest_plugins = ["properties.cli.pytest_plugin", "pytester"]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """The project's own test run writes the replay files of (expected) failures into a
    temporary folder, never into the checkout's replays/; --rulespec-replays overrides."""
    if getattr(config.option, "rulespec_replays", None) is None:
        config.option.rulespec_replays = tempfile.mkdtemp(prefix="rulespec-replays-")
