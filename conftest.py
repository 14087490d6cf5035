"""Registers the rulespec pytest plugin (`pytest spec/` runs the property suite) and
pytester, which tests/test_suite.py uses to run the plugin on spec copies."""

pytest_plugins = ["properties.cli.pytest_plugin", "pytester"]
