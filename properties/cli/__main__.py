"""`python -m properties.cli` runs the `rulespec` command."""

from .main import main

main()
