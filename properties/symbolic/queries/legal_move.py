"""legal_move: in every well-formed, non-terminal state within a round the player to act has
a legal action; if not, a concrete state, and a search for one reachable from a deal.
"""

from __future__ import annotations

from typing import Any

import z3

import model

from ..terms import AND, NOT, OR, Unsupported
from .common import (
    RLIMIT,
    Clock,
    OneStep,
    Result,
    add_all,
    bounded,
    check_sat,
    machine,
    new_solver,
)
from .invariants import assume_invariants, not_assumed
from .unroll import Unroller, bmc


# ---------------------------------------------------------------------- legal moves
@bounded
def legal_move(game: model.Game, limit: int = RLIMIT, max_depth: int = 40) -> Result:
    """Every well-formed, non-terminal state within a round has a legal action.

    "No action is legal" must hold for every parameter value, so this query uses one
    action instance per parameter value (a symbolic parameter would let z3 pick a bad one).
    """
    clock = Clock(limit)
    assumed = assume_invariants(game, clock)
    M = machine(game, split_params=True)
    enc = M.enc
    try:
        one = OneStep.build(M, in_round=True, invariants=assumed, effects=False)
    except Unsupported as exc:
        return Result("legal_move", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = new_solver(clock)
    add_all(s, *one.pre)
    some = OR(*[AND(p.enabled, p.guard_ok) for p in one.parts])
    r = check_sat(s, clock, NOT(some))
    using = " satisfying the spec's invariants (proved inductive)" if assumed else ""
    if r == z3.unsat:
        return Result("legal_move", "proved", f"in every well-formed, non-terminal state{using} "
                      "inside a round the player to act has a legal action", clock.elapsed())
    if r == z3.unknown:
        return Result("legal_move", "unknown", f"z3 gave up ({s.reason_unknown()})",
                      clock.elapsed())
    m = s.model()
    cex = enc.describe(enc.evaluate(m, one.s)) + ("" if assumed else not_assumed(game))

    def stuck(u: Unroller, k: int) -> Any:
        parts = [M.action_part(u.states[k], alt, f"lm{k}_{n}", effects=False)
                 for n, alt in enumerate(M.alts())]
        return AND(NOT(u.states[k].term), *[NOT(AND(p.enabled, p.guard_ok)) for p in parts])

    try:
        found = bmc(game, stuck, clock, max_depth)
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("legal_move", "unknown", f"not encoded: {exc}", clock.elapsed())
    if trace is not None:
        last = trace.values[-1]["vars"]["active"][0]
        return Result("legal_move", "witness", f"player {last} has no legal action after "
                      f"{k} action(s) from a deal", clock.elapsed(), trace, k)
    if k - 1 < 1:
        return Result("legal_move", "unknown", f"a well-formed state{using} has no legal "
                      f"action ({cex}); the search from a deal decided no depth",
                      clock.elapsed(), bound=k)
    return Result("legal_move", "bounded", f"in every game up to {k - 1} action(s) from the "
                  "deal the player to act has a legal action; beyond that not decided: a "
                  f"well-formed state{using} has no legal action ({cex})", clock.elapsed(), bound=k - 1)
