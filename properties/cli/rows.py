"""A row of the `rulespec check` table, and the spec's expectation that decides it.

Both back ends' rows (properties/cli/check.py for the concrete checks,
properties/cli/z3rows.py for the z3 queries) and the reports share these.
"""

from __future__ import annotations

import attrs

from model.ir import expectation_for

from ..concrete.playout import Finding

__all__ = ["Row", "expectation_for"]


@attrs.frozen
class Row:
    game: str
    players: int
    property: str
    # holds / bounded / FAILS / expected failure / UNEXPECTEDLY HOLDS / failure not shown /
    # unknown / error / warning
    status: str
    detail: str
    finding: Finding | None = None
    seconds: float = 0.0
    variants: str = ""  # the variants that differ from the default, "a=v,b=w"
    replay: dict | None = None  # a failure's replay data (a state machine's, with its shuffles)
    cached: bool = False  # the result came from the cache
    bound: int | None = None  # the bound a z3 query reports (a depth, a round's length)

    @property
    def ok(self) -> bool:
        return self.status in ("holds", "bounded", "expected failure", "failure not shown",
                               "warning", "unknown")
