"""Registers the rulespec pytest plugin: `pytest spec/` runs the property suite."""

pytest_plugins = ["properties.pytest_plugin"]
