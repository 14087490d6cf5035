"""conservation: every action (with the round transition it may trigger) keeps the count of
every kind, from every well-formed state; inductive, not a sample.
"""

from __future__ import annotations

import z3

import model

from ..expressions import Ctx
from ..state import SymState, model_value
from ..terms import NOT, OR, Unsupported
from ..witness import Disagreement, finish, replay
from .common import (
    RLIMIT,
    Clock,
    OneStep,
    Result,
    add_all,
    bounded,
    by_actor,
    check_sat,
    count_violation,
    lemmas_of,
    machine,
    new_solver,
    situation_trace,
    step_ok,
)


@bounded
def conservation(game: model.Game, limit: int = RLIMIT) -> Result:
    """Every action keeps every kind's count (and no count goes negative), from every
    well-formed state, including the round transition the action may trigger.

    Proved in two parts that compose: (1) each action, from a well-formed state, leads
    to a well-formed state (counts kept, and the rest of the type invariant); (2) the round
    transition (scoring, next deal), from any well-formed state where a round ends, leads to
    a state with every count kept. An action whose result may break the type invariant
    without breaking a count is checked together with its round transition instead.
    """
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    try:
        one = OneStep.build(M, in_round=False)
    except Unsupported as exc:
        return Result("conservation", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = new_solver(clock)
    add_all(s, *one.pre)

    def found(m: z3.ModelRef, n: int, post: SymState, rctx: Ctx | None) -> Result:
        trace = situation_trace(game, M, m, one, n, post, rctx)
        typing = OR(one.parts[n].ctx.failing("typing"), rctx.failing("typing") if rctx else False)
        misplaces = bool(model_value(m)(typing))
        # once an item lies in a zone of the other class the encoding cannot hold it, and z3's
        # state after the action means nothing: the situation and the action must agree, and
        # the concrete model must show the misplaced item itself
        trace.compared = 1 if misplaces else None
        finish(enc, trace)
        states = replay(enc, trace)
        have = game.total_counts(states[-1])
        diffs = [f"{game.kind_names[k]}: {h} instead of {enc.copies[k]}"
                 for k, h in enumerate(have) if h != enc.copies[k]]
        negs = [f"{enc.inst_name(i)} holds {c} of {game.kind_names[k]}"
                for i, zs in enumerate(enc.from_concrete(states[-1]).Z)
                for k, c in zip(enc.inst_kinds[i], zs, strict=True) if c < 0]
        wrong = game.misplaced(states[-1])
        if misplaces and not wrong:
            raise Disagreement(f"z3 finds {trace.actions[0]} puts an item into a zone of the "
                               "other class but the concrete model does not")
        if not diffs and not negs and not misplaces:
            raise Disagreement(f"z3 finds {trace.actions[0]} breaks conservation but the "
                               "concrete model keeps every count")
        what = "; ".join(diffs + negs) or ("an item is put into a zone of another class: "
                                           + ", ".join(wrong))
        return Result("conservation", "witness",
                      f"{trace.actions[0]} breaks conservation ({what}) from the situation "
                      f"{enc.describe(trace.values[0])}", clock.elapsed(), trace)

    proved: list[str] = []
    whole = 0
    lemmas = lemmas_of(M)
    for action, ns in by_actor(M).items():
        name = game.ir.actions[action].name
        for n in ns:
            part = one.parts[n]
            if part.enabled is False:
                continue
            if lemmas.check(part.ctx.sites, clock.units) is None:
                # every effect keeps the zones sound: only the variables remain
                broken = OR(NOT(enc.vars_ok(part.post)), part.ctx.failing("bound"))
                s.push()
                add_all(s, step_ok(part))
                r = check_sat(s, clock, broken)
                s.pop()
                if r == z3.unsat:
                    continue
            bound = part.ctx.failing("bound")
            typing = part.ctx.failing("typing")
            counts = OR(*count_violation(enc, part.post), typing)
            s.push()
            add_all(s, step_ok(part))
            r = check_sat(s, clock, OR(counts, bound, NOT(enc.wf(part.post))))
            if r == z3.sat:
                m = s.model()
                ev = model_value(m)
                if ev(counts):
                    # the witness replays the whole transition, round end included
                    post, _, _, rctx = one.after(n)
                    add_all(s, *rctx.assume, rctx.defined("undefined"))
                    if check_sat(s, clock, counts) == z3.sat:
                        m = s.model()
                        s.pop()
                        return found(m, n, post, rctx)
                    s.pop()
                    return Result("conservation", "witness", f"{name} breaks conservation "
                                  f"(from {enc.describe(enc.evaluate(m, one.s))})",
                                  clock.elapsed())
                if ev(bound):
                    s.pop()
                    return Result("conservation", "unknown", f"{name}: a loop exceeds the z3 "
                                  "encoding's bound", clock.elapsed())
                # the type invariant may break: check this one with its round transition
                whole += 1
                post, _, _, rctx = one.after(n)
                add_all(s, *rctx.assume, rctx.defined("undefined"))
                bad = OR(*count_violation(enc, post), rctx.failing("typing"))
                r = check_sat(s, clock, OR(counts, bad))
                if r == z3.sat:
                    m = s.model()
                    s.pop()
                    return found(m, n, post, rctx)
            s.pop()
            if r == z3.unknown:
                return Result("conservation", "unknown",
                              f"{name}: z3 gave up ({s.reason_unknown()}); proved: "
                              f"{', '.join(proved) or 'none'}", clock.elapsed())
        proved.append(name)
    # the round transition, once, from any well-formed state where a round ends
    mid = enc.fresh_state("mid")
    rctx = Ctx("round")
    post, ends, _ = M.round_part(mid, rctx)
    r2 = new_solver(clock)
    add_all(r2, enc.wf(mid), NOT(mid.term), ends, *rctx.assume, rctx.defined("undefined"))
    if lemmas.check(rctx.sites, clock.units) is None:
        r = z3.unsat
    else:
        r = check_sat(r2, clock, OR(*count_violation(enc, post), rctx.failing("typing")))
    if r == z3.sat:
        m = r2.model()
        values = enc.evaluate(m, mid)
        return Result("conservation", "witness", "the round transition (scoring, next deal) "
                      "breaks conservation from the well-formed situation "
                      f"{enc.describe(values)}", clock.elapsed())
    if r == z3.unknown:
        return Result("conservation", "unknown", f"round transition: z3 gave up "
                      f"({r2.reason_unknown()}); every action proved", clock.elapsed())
    extra = f"; {whole} checked with their round transition" if whole else ""
    if lemmas.count:
        extra += f"; {lemmas.count} effects proved one by one (docs/symbolic.md)"
    return Result("conservation", "proved",
                  f"every action ({len(M.alts())} instances) and the round transition keep all "
                  f"{enc.K} kinds' counts from every well-formed state{extra}", clock.elapsed())
