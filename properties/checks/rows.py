"""A row of the `rulespec check` table, and the spec's expectation that decides it.

Both back ends' rows (properties/checks/plan.py for the concrete checks,
properties/checks/z3rows.py for the z3 queries) and the reports share these. What a row
claims is its verdict (properties/checks/verdict.py), with its evidence beside it: who
found a witness, where it starts, and the z3 resource units a query spent.
"""

from __future__ import annotations

import builtins

import attrs

from model import ir
from model.ir import expectation_for, expectations_for

from ..concrete.playout import Finding
from .verdict import Verdict, verdict_of

__all__ = ["Row", "expectation_for"]


@attrs.frozen
class Row:
    game: str
    players: int
    property: str
    # holds / bounded / FAILS / expected failure / UNEXPECTEDLY HOLDS / failure not shown /
    # unknown / out of time / error / warning (checks.verdict maps each to its verdict)
    status: str
    detail: str
    finding: Finding | None = None
    seconds: float = 0.0
    variants: str = ""  # the variants that differ from the default, "a=v,b=w"
    replay: dict | None = None  # a failure's replay data (a state machine's, with its shuffles)
    cached: bool = False  # the result came from the cache
    bound: int | None = None  # the bound a z3 query reports (a depth, a round's length)
    found_by: str | None = None  # who found a witness (checks.verdict.FOUND_BY)
    start: str | None = None  # where a witness starts: "deal" or "situation"
    spent: int | None = None  # z3 resource units a query spent
    #: the reason the spec gives for accepting this row undecided (`result: undecided`)
    accepted_undecided: str | None = None

    @builtins.property  # in this class, mypy takes `property` for the field
    def verdict(self) -> Verdict:
        return verdict_of(self.status, self.property.startswith("z3_"))

    @builtins.property
    def accepted(self) -> bool:
        """Undecided, and the spec accepts it so."""
        return self.verdict is Verdict.UNDECIDED and self.accepted_undecided is not None

    @builtins.property
    def now_decided(self) -> bool:
        """The spec accepts the row undecided, but it is decided now (the declaration can
        go)."""
        return self.accepted_undecided is not None and self.verdict is not Verdict.UNDECIDED

    @builtins.property
    def ok(self) -> bool:
        """Decided as the spec declares (proved, tested or shown), or undecided as the spec
        accepts: the row does not make the run fail or stay undecided."""
        return self.verdict in (Verdict.PROVED, Verdict.TESTED, Verdict.SHOWN) or self.accepted

    def with_declaration(self, g: ir.GameIR) -> Row:
        """The row with the spec's acceptance of it as undecided, if the spec has one for
        this property at g's player count and variants."""
        e = next((e for e in expectations_for(g, self.property) if e.result == "undecided"),
                 None)
        return self if e is None else attrs.evolve(self, accepted_undecided=e.reason)
