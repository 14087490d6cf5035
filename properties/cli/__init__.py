"""What users run: the `rulespec` command (`main`), the `rulespec check` table of both back
ends (`check`, `z3rows`), the benchmark, the FAQ, and the pytest plugin CI runs."""

from .main import main

__all__ = ["main"]
