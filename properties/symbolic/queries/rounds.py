"""Round by round from the first deal: z3 chooses each round's deal and plays toward a goal.

z3's search step by step from a deal reaches a few actions, and one round searched whole
(`unroll.OneRound`) reaches one round. The failures that matter are rounds deep: a pool
that runs out at the third scoring, a round start that comes back after the scores have
climbed to it. Here rounds are chained greedily, as a directed search would: each solve
asks for one round (its deal and at most `slots` actions) in which the goal holds; failing
that, for the round, the game going on, that brings a measure lowest (within a few
halvings of the gap); that round is then fixed, every state of it pinned to the model's values,
and the next solve chooses the next deal. What is found is replayed on the concrete
model, every state equal to z3's, before it is returned.

The budget is z3's resource units and counts of rounds and tightenings, so what is found
does not depend on the machine or its load.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import z3

import model

from ..state import SymState
from ..terms import AND, EQ, ITE, LE, NOT, SUB, SUM, zterm
from ..witness import Trace, events_in_model, finish
from .common import Budget, Clock, machine
from .unroll import OneRound, one_round

#: Rounds chained at most, the checks that tighten the measure in each (halving the gap: 7
#: reach the least of a measure up to 128 exactly; a round that is nearly the best can
#: leave a state no next round gains from), and how many times `slots` actions a round
#: may take (a longer round is tried only when a shorter one neither meets the goal nor
#: gains).
ROUNDS = 8
TIGHTENINGS = 7
LONGER = 3

#: z3's units for the rounds from the first deal to a given round start (`reach`).
REACH_UNITS = 60_000_000

#: goal(search, the next round's start, whether the game ends there) -> a z3 condition.
Goal = Callable[[OneRound, SymState, Any], Any]
#: measure(search, the next round's start) -> a z3 integer term, lower is nearer.
Measure = Callable[[OneRound, SymState], Any]


@attrs.frozen
class Chained:
    """What the chain found (a trace replayed on the concrete model, or None) and how far
    it went: rounds fixed, checks asked."""

    trace: Trace | None
    rounds: int
    checks: int

    def text(self) -> str:
        return (f"z3 chose {self.rounds} round(s) one after another from the first deal, "
                f"each deal its own ({self.checks} checks)")


def chain(game: model.Game, clock: Clock, budget: Budget, goal: Goal, measure: Measure,
          slots: int, rounds: int = ROUNDS) -> Chained:
    """The first rounds from the deal, chosen greedily by z3, in whose last `goal` holds."""
    o = OneRound(game, clock, "deal", budget)
    checks = 0
    best: int | None = None
    for r in range(rounds):
        found = None
        while found is None and len(o.maps) < slots * LONGER:
            for _ in range(slots):
                o.add_slot()
            checks += 1
            res, (m, nxt, rpairs) = o.check(goal)
            if res == z3.sat:
                return Chained(_trace(o, m, nxt, rpairs), r + 1, checks)
            if res == z3.unknown:
                return Chained(None, len(o.done), checks)
            # any round that gains on the last, the game going on; else a longer round
            checks += 1
            res, found = o.check(_within(measure, None if best is None else best - 1))
            if res == z3.unknown:
                return Chained(None, len(o.done), checks)
            if res != z3.sat:
                found = None
        if found is None:
            break
        # then halve the gap to 0
        lo, hi = 0, _value(o, measure, found)
        for _ in range(TIGHTENINGS):
            if lo >= hi:
                break
            mid = (lo + hi) // 2
            checks += 1
            res, got = o.check(_within(measure, mid))
            if res == z3.sat:
                found, hi = got, _value(o, measure, got)
            elif res == z3.unsat:
                lo = mid + 1
            else:
                break
        best = hi
        o.commit(*found)
    return Chained(None, len(o.done), checks)


def reach(game: model.Game, clock: Clock, target: SymState, skip: frozenset[str],
          slots: int, units: int = REACH_UNITS) -> Trace | None:
    """Rounds from the first deal, chosen by z3, to the round start `target` (the variables
    in `skip` aside): one round of up to LONGER times `slots` actions if there is one
    (the start may need who ends the round to be someone in particular), else rounds
    chained, each the one that brings it nearest (every count and number by how far
    apart, anything else by 1). A replayed trace, or None."""
    enc = machine(game).enc

    def goal(o: OneRound, nxt: SymState, over: Any) -> Any:
        return zterm(AND(NOT(over), enc.equal(nxt, target, skip)))

    left = Budget(units)
    o, _, found = one_round(game, clock, "deal", goal, slots * LONGER, budget=Budget(units // 2))
    if found is not None:
        return _trace(o, *found)

    def measure(o: OneRound, nxt: SymState) -> Any:
        apart = [ITE(LE(c, x), SUB(x, c), SUB(c, x)) for i in range(enc.n_inst)
                 for x, c in zip(nxt.Z[i], target.Z[i], strict=True)]
        for name, xs in nxt.V.items():
            if name in skip:
                continue
            number = enc.vtypes[name][0].name == "int"
            apart += [ITE(LE(c, x), SUB(x, c), SUB(c, x)) if number else ITE(EQ(x, c), 0, 1)
                      for x, c in zip(xs, target.V[name], strict=True)]
        return SUM(apart)

    left.left -= units // 2
    return chain(game, clock, left, goal, measure, slots).trace


def tried_text(tried: list[Chained]) -> str:
    """What several chains did, in words."""
    if not tried:
        return "z3 chose no rounds one after another"
    rounds = ", ".join(str(c.rounds) for c in tried)
    return (f"z3 chose rounds one after another from the first deal, each deal its own, "
            f"{len(tried)} time(s) ({rounds} round(s); {sum(c.checks for c in tried)} checks)")


def _within(measure: Measure, bound: int | None) -> Goal:
    """The goal of a round after which the game goes on and `measure` is at most `bound`."""
    def goal(o: OneRound, nxt: SymState, over: Any) -> Any:
        going_on = zterm(NOT(over))
        return going_on if bound is None else z3.And(going_on, zterm(measure(o, nxt)) <= bound)
    return goal


def _value(o: OneRound, measure: Measure, found: tuple[z3.ModelRef, SymState, list]) -> int:
    m, nxt, _ = found
    return m.eval(zterm(measure(o, nxt)), model_completion=True).as_long()


def _trace(o: OneRound, m: z3.ModelRef, nxt: SymState, rpairs: list) -> Trace:
    actions, values, events = o.played(m, nxt, rpairs)
    start = o.enc.evaluate(m, o.done[0][0][0] if o.done else o.states[0])
    trace = Trace(o.game, "deal", actions, [start, *values],
                  [events_in_model(m, o.init_ctx.events), *events])
    return finish(o.enc, trace)
