"""reach: the shortest action sequence from a symbolic deal to a described situation.
"""

from __future__ import annotations

from typing import Any

import model
from model import ir

from ..expressions import Ctx
from ..terms import AND, Unsupported
from .common import RLIMIT, Clock, Result, bounded, machine
from .unroll import Unroller, bmc


# ---------------------------------------------------------------------- reach
def parse_condition(game: model.Game, text: str) -> ir.Expr:
    from model.loader import parse_condition as parse

    return parse(game.ir.file, text, players=game.players, variants=game.ir.chosen)


@bounded
def reach(game: model.Game, condition: str | ir.Expr, limit: int = RLIMIT,
          max_depth: int = 60) -> Result:
    """The shortest action sequence from a (symbolic) deal to a state where `condition`
    holds (evaluated without error)."""
    clock = Clock(limit)
    expr = parse_condition(game, condition) if isinstance(condition, str) else condition
    shown = condition if isinstance(condition, str) else "the condition"
    M = machine(game)

    def target(u: Unroller, k: int) -> Any:
        ctx = Ctx(f"q{k}")
        cond = M.condition(expr, u.states[k], ctx)
        return AND(cond, ctx.defined("undefined"), *ctx.assume)

    try:
        found = bmc(game, target, clock, max_depth)
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("reach", "unknown", f"not encoded: {exc}", clock.elapsed())
    if trace is not None:
        return Result("reach", "witness", f"{shown}: reached after {k} action(s)",
                      clock.elapsed(), trace, k)
    return Result("reach", "unknown", f"{shown}: not reachable within {k - 1} action(s) "
                  f"from a deal (unknown at bound {k})", clock.elapsed(), bound=k)
