"""invariants: the spec's invariants are inductive (so the other proofs may assume them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

import model

from ..execute import Exec
from ..expressions import Ctx
from ..machine import Machine
from ..state import SymState, model_value
from ..terms import AND, NOT, OR, Unsupported
from .common import (
    TIME_LIMIT,
    Clock,
    OneStep,
    Result,
    add_all,
    bounded,
    check_sat,
    machine,
    new_solver,
    situation_trace,
    step_ok,
)

# ---------------------------------------------------------------------- invariants
_INDUCTIVE: dict[int, bool] = {}


@bounded
def invariants(game: model.Game, limit: float = TIME_LIMIT) -> Result:
    """The spec's invariants, with the type invariant and "no round-end condition holds",
    are inductive: true at every deal, and kept by every transition into a non-terminal
    state. Then they hold in every reachable state, and other proofs may assume them."""
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    names = [c.name for c in game.ir.invariants]

    def holds(st: SymState, ctx: Ctx) -> Any:
        ex = Exec(enc, ctx)
        return AND(enc.wf(st), NOT(M.round_end(st, ex)), M.invariants(st, ctx))

    def which(m: z3.ModelRef, st: SymState) -> str:
        ev = model_value(m)
        bad = []
        if not ev(enc.wf(st)):
            bad.append("the type invariant")
        ctx = Ctx("w")
        if ev(M.round_end(st, Exec(enc, ctx))):
            bad.append("a round-end condition holds")
        for c in game.ir.invariants:
            if not ev(M.condition(c.expr, st, Ctx("w"))):
                bad.append(c.name)
        return ", ".join(bad) or "an invariant cannot be evaluated"

    try:
        # at the deal
        ctx0 = Ctx("init")
        s0 = M.initial(ctx0)
        qctx = Ctx("q0")
        q0 = holds(s0, qctx)
        s = new_solver(clock)
        add_all(s, *ctx0.assume, ctx0.defined("undefined"), *qctx.assume)
        r = check_sat(s, clock, OR(NOT(q0), qctx.failing("undefined")))
        if r == z3.sat:
            m = s.model()
            return Result("invariants", "witness", f"fails at a deal: {which(m, s0)} "
                          f"({enc.describe(enc.evaluate(m, s0))})", clock.elapsed())
        if r == z3.unknown:
            return Result("invariants", "unknown", "z3 gave up at the deal", clock.elapsed())
        # kept by every action
        one = OneStep.build(M, in_round=True, invariants=True)
        s = new_solver(clock)
        add_all(s, *one.pre)
        for n, part in enumerate(one.parts):
            if part.enabled is False:
                continue
            ctx = Ctx(f"i{n}")
            ends = M.round_end(part.post, Exec(enc, ctx))
            keep = holds(part.post, ctx)
            bad = OR(AND(NOT(ends), NOT(keep)), AND(ends, NOT(enc.wf(part.post))),
                     ctx.failing("undefined"))
            r = check_sat(s, clock, AND(step_ok(part), *ctx.assume, bad))
            if r == z3.sat:
                m = s.model()
                trace = situation_trace(game, M, m, one, n, None, None)
                return Result("invariants", "witness",
                              f"not inductive: {which(m, part.post)} after "
                              f"{game.ir.actions[part.alt.action].name} by player "
                              f"{part.alt.actor} from {enc.describe(trace.values[0])}",
                              clock.elapsed())
            if r == z3.unknown:
                return Result("invariants", "unknown", "z3 gave up", clock.elapsed())
        # and by the round transition, from any well-formed state where a round ends
        mid = enc.fresh_state("mid")
        rctx = Ctx("round")
        ends, over, _, s_next = M.round_outcomes(mid, rctx)
        qctx = Ctx("qn")
        keep = holds(s_next, qctx)
        s = new_solver(clock)
        add_all(s, enc.wf(mid), NOT(mid.term), ends, NOT(over), *rctx.assume,
             rctx.defined("undefined"), *qctx.assume)
        r = check_sat(s, clock, OR(NOT(keep), qctx.failing("undefined")))
        if r == z3.sat:
            # A round-end state is never observed, so the invariants need not hold there;
            # the round transition must keep them only after an action taken from a state
            # where they hold. Check exactly that, action by action.
            r, m, n, s_next = _round_after_actions(M, one, clock, holds)
            if r == z3.sat:
                trace = situation_trace(game, M, m, one, n, None, None)
                return Result("invariants", "witness", "not inductive: after "
                              f"{game.ir.actions[one.parts[n].alt.action].name} by player "
                              f"{one.parts[n].alt.actor} and the round transition it triggers, "
                              f"{which(m, s_next)} (from {enc.describe(trace.values[0])})",
                              clock.elapsed())
        if r == z3.unknown:
            return Result("invariants", "unknown", "z3 gave up on the round transition",
                          clock.elapsed())
    except Unsupported as exc:
        return Result("invariants", "unknown", f"not encoded: {exc}", clock.elapsed())
    _INDUCTIVE[id(M)] = True
    return Result("invariants", "proved", f"inductive, so true in every reachable state: "
                  f"{', '.join(names) or 'no declared invariants'} (with the type invariant "
                  "and no round-end condition between actions)", clock.elapsed())


def _round_after_actions(M: Machine, one: OneStep,
                         clock: Clock, holds: Callable[[SymState, Ctx], Any]
                         ) -> tuple[z3.CheckSatResult, Any, int, Any]:
    """Whether some action, from a state satisfying the invariants (`one.pre`), ends a
    round whose transition leads to a non-terminal state breaking them: (result, model,
    action alternative, state after) for the first that does or cannot be decided."""
    s = new_solver(clock)
    add_all(s, *one.pre)
    r: z3.CheckSatResult = z3.unsat
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        post, ends, over, rctx = one.after(n)
        qctx = Ctx(f"qr{n}")
        keep = holds(post, qctx)
        r = check_sat(s, clock, AND(step_ok(part, rctx), ends, NOT(over), *qctx.assume,
                                 OR(NOT(keep), qctx.failing("undefined"))))
        if r != z3.unsat:
            return r, s.model() if r == z3.sat else None, n, post
    return r, None, -1, None


def assume_invariants(game: model.Game, clock: Clock) -> bool:
    """Whether the spec's invariants are proved inductive (proving them if not yet tried)."""
    M = machine(game)
    if id(M) not in _INDUCTIVE:
        _INDUCTIVE[id(M)] = invariants(game, limit=max(clock.left() / 2, 1.0)).status == "proved"
    return _INDUCTIVE[id(M)]
