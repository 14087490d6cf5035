"""invariants: the spec's invariants are inductive (so the other proofs may assume them).

Each check is split into *goals*, one per invariant (and the type invariant, "no round-end
condition", definedness), asked of z3 one at a time: far easier than all at once, and the
answer names the invariant that fails, or the one z3 gave up on.

The type invariant's count part (counts >= 0, each kind's total, each pile's top) need not
be asked of z3 where the effect lemmas (`properties/symbolic/lemmas.py`) cover every effect
of the transition: they prove that each effect keeps the zones sound and every total, from
any state, so a transition from a well-formed state leads to one whose counts are
well-formed. Only the variables' part is then left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import z3

import model
from model import ir

from .. import session
from ..execute import Exec
from ..expressions import Ctx, Hidden
from ..lemmas import parameter_facts
from ..machine import Machine
from ..state import SymState
from ..terms import AND, NOT, Unsupported, conjuncts
from .common import (
    RLIMIT,
    Clock,
    OneStep,
    Result,
    add_all,
    bounded,
    check_sat,
    lemmas_of,
    machine,
    new_solver,
    situation_trace,
    step_ok,
)

# ---------------------------------------------------------------------- invariants
_INDUCTIVE: dict[int, bool] = session.cache()

TYPE = "the type invariant"

#: z3 resource units for each effect lemma asked here (see `_Goals.of`); each is proved
#: once per game and player count (conservation, which runs first, usually has them all
#: already).
LEMMA_UNITS = 60_000_000

#: The share of the units left that the exact check of one goal may take when a localized
#: check can follow (`_Goals.localized`).
GOAL_SHARE = 0.3


class _Goals:
    """The goals a state must meet, and how each check went."""

    def __init__(self, game: model.Game, M: Machine, clock: Clock,
                 names: Sequence[str] | None = None) -> None:
        self.game, self.M, self.enc, self.clock = game, M, M.enc, clock
        self.lemmas = lemmas_of(M)
        self.conds = [c for c in game.ir.invariants if names is None or c.name in names]

    def of(self, st: SymState, ctx: Ctx, sites: list | None, round_end: bool = True
           ) -> Iterator[tuple[str, Any]]:
        """(name, condition) for each goal on `st`; `sites`: the effects that led to it
        (None: not known, so the whole type invariant is asked)."""
        enc, M = self.enc, self.M
        # a lemma z3 cannot prove within LEMMA_UNITS is not worth more here: the type
        # invariant itself is then asked, in parts
        covered = sites is not None and self.lemmas.check(
            sites, lambda: min(self.clock.units(), LEMMA_UNITS)) is None
        if covered:
            yield TYPE, enc.vars_ok(st)
        else:
            for part, cond in enc.wf_parts(st):
                yield f"{TYPE} ({part})", cond
        if round_end:
            yield "no round-end condition holds", NOT(M.round_end(st, Exec(enc, ctx)))
        for c in self.conds:
            yield c.name, M.condition(c.expr, st, ctx)
        yield "every invariant can be evaluated", NOT(ctx.failing("undefined"))

    def first_failing(self, s: z3.Solver, base: Any, goals: Iterator[tuple[str, Any]],
                      fallback: Callable[[str], bool] | None = None
                      ) -> tuple[z3.CheckSatResult, str, z3.ModelRef | None]:
        """Check each goal under `base` and what `s` asserts: (unsat, "", None) if all
        hold, else the result, the goal's name for the first that fails or that z3 gives up
        on, and the model that breaks it (if it fails). Each goal is asked part by part
        (`conjuncts`). A goal z3 gives up on
        (within `GOAL_SHARE` of the units left) is passed to `fallback`, which proves it
        another way or not."""
        # `base` asserted, not assumed: z3 simplifies assertions before it searches, and
        # the step's formulas shrink most that way (a goal in 0.6 s, not 5)
        solver = new_solver(self.clock)
        add_all(solver, *s.assertions(), base)
        for name, goal in goals:
            if goal is True:
                continue
            share = Clock(self.clock.left() * (GOAL_SHARE if fallback else 1.0))
            r = z3.unsat
            for part in conjuncts(goal):
                r = check_sat(solver, share, NOT(part))
                if r != z3.unsat:
                    break
            if r == z3.unknown and fallback is not None and fallback(name):
                continue
            if r != z3.unsat:
                return r, name, solver.model() if r == z3.sat else None
        return z3.unsat, "", None

    def _cond(self, name: str) -> ir.Condition:
        return next(c for c in self.conds if c.name == name)

    def _reads(self, name: str) -> tuple[set[str], set[str]]:
        """The zone families and the variables invariant `name` reads."""
        walked = list(ir.walk(self._cond(name).expr))
        return ({x.family for x in walked if isinstance(x, ir.Zone)},
                {x.name for x in walked if isinstance(x, ir.Var)})

    def by_effects(self, part: Any, name: str) -> bool:
        """Whether invariant `name`, a condition on zones alone, is kept by every effect
        the transition `part` runs (`Lemmas.keeps`); then the transition keeps it."""
        cond, (_, read) = self._cond(name), self._reads(name)
        if read:
            return False
        M = self.M
        kept = (name, lambda st, ctx: M.condition(cond.expr, st, ctx))
        a = self.game.ir.actions[part.alt.action]
        given = (parameter_facts(a), dict(zip([n for n, _ in a.params], part.args, strict=True)))
        return self.lemmas.keeps(kept, part.ctx.sites, lambda: min(self.clock.units(), LEMMA_UNITS),
                                 given)

    def kept_always(self, one: OneStep, part: Any, name: str) -> bool:
        """Whether invariant `name` holds after the action of `part` whenever it held
        before, a round ending or not: the action leaves everything it reads alone, or it
        reads zones alone and every effect keeps it (`by_effects`)."""
        pre, post, enc = one.s, part.post, self.enc
        fams, read = self._reads(name)
        untouched = (all(post.V[v] is pre.V[v] for v in read)
                     and all(post.Z[i] is pre.Z[i] and post.T[i] is pre.T[i]
                             and post.S[i] is pre.S[i]
                             for i, (f, _) in enumerate(enc.inst) if f in fams))
        return untouched or self.by_effects(part, name)

    def localized(self, one: OneStep, n: int, name: str) -> bool:
        """Whether invariant `name` is kept by action alternative n on the *localized*
        transition (`expressions.Hidden`): the zone families and variables the invariant
        does not read are forgotten before each statement. Every exact run is a run of
        that one, so a proof there is a proof; its formulas are far smaller."""
        M, enc = self.M, self.enc
        cond, (fams, read) = self._cond(name), self._reads(name)
        hidden = Hidden(frozenset(i for i, (f, _) in enumerate(enc.inst) if f not in fams),
                        frozenset(v for v in enc.vtypes if v not in read))
        part = M.action_part(one.s, one.parts[n].alt, f"loc{n}", hidden=hidden)
        ctx = Ctx(f"loc{n}q")
        ends = M.round_end(part.post, Exec(enc, ctx))
        goal = M.condition(cond.expr, part.post, ctx)
        s = new_solver(self.clock)
        add_all(s, *one.pre, step_ok(part), *ctx.assume)
        return check_sat(s, self.clock, AND(NOT(ends), NOT(goal))) == z3.unsat


@bounded
def invariants(game: model.Game, limit: int = RLIMIT,
               names: Sequence[str] | None = None) -> Result:
    """The spec's invariants, with the type invariant and "no round-end condition holds",
    are inductive: true at every deal, and kept by every transition into a non-terminal
    state. Then they hold in every reachable state, and other proofs may assume them.
    `names`: only these invariants (a subset that is inductive on its own)."""
    res = _invariants(game, limit, names)
    if names is None:
        # the queries after this one, in the same process, assume them or not without
        # asking again (with less time they would not do better)
        _INDUCTIVE[id(machine(game))] = res.status == "proved"
    return res


def _invariants(game: model.Game, limit: float, names: Sequence[str] | None) -> Result:
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    G = _Goals(game, M, clock, names)
    names = [c.name for c in G.conds]

    def gave_up(where: str, goal: str) -> Result:
        return Result("invariants", "unknown", f"z3 gave up on {goal} {where}", clock.elapsed())

    try:
        # at the deal
        ctx0 = Ctx("init")
        s0 = M.initial(ctx0)
        s = new_solver(clock)
        add_all(s, *ctx0.assume, ctx0.defined("undefined"))
        qctx = Ctx("q0")
        goals = list(G.of(s0, qctx, ctx0.sites))
        add_all(s, *qctx.assume)
        r, bad, m = G.first_failing(s, True, iter(goals))
        if r == z3.sat:
            return Result("invariants", "witness", f"{bad} fails at a deal "
                          f"({enc.describe(enc.evaluate(m, s0))})", clock.elapsed())
        if r == z3.unknown:
            return gave_up("at the deal", bad)
        # kept by every action
        one = OneStep.build(M, in_round=True, invariants=True, names=names)
        s = new_solver(clock)
        add_all(s, *one.pre)
        for n, part in enumerate(one.parts):
            if part.enabled is False:
                continue
            ctx = Ctx(f"i{n}")
            ends = M.round_end(part.post, Exec(enc, ctx))
            goals = list(G.of(part.post, ctx, part.ctx.sites, round_end=False))
            taken = AND(step_ok(part), *ctx.assume)
            action = f"{game.ir.actions[part.alt.action].name} by player {part.alt.actor}"
            # the type invariant after every action; the others unless a round ends
            typing = [g for g in goals if g[0].startswith(TYPE)]
            # an invariant on zones alone that every effect keeps needs no whole-step check
            others = [g for g in goals if not g[0].startswith(TYPE)
                      and not (g[0] in names and G.by_effects(part, g[0]))]
            r, bad, m = G.first_failing(s, taken, iter(typing))
            if r == z3.unsat:
                def localized(name: str, n: Any = n) -> bool:
                    return name in names and G.localized(one, n, name)

                r, bad, m = G.first_failing(s, AND(taken, NOT(ends)), iter(others), localized)
            if r == z3.sat:
                trace = situation_trace(game, M, m, one, n, None, None)
                return Result("invariants", "witness", f"not inductive: {bad} fails after "
                              f"{action} from {enc.describe(trace.values[0])}",
                              clock.elapsed())
            if r == z3.unknown:
                return gave_up(f"after {action}", bad)
        # and by the round transition, from any well-formed state where a round ends and
        # the invariants hold that every action keeps, a round ending or not
        at_end = [c for c in names
                  if all(G.kept_always(one, part, c) for part in one.parts
                         if part.enabled is not False)]
        mid = enc.fresh_state("mid")
        rctx = Ctx("round")
        ends, over, _, s_next = M.round_outcomes(mid, rctx)
        s = new_solver(clock)
        mctx = Ctx("mid")
        add_all(s, enc.wf(mid), NOT(mid.term), ends, NOT(over), *rctx.assume,
                rctx.defined("undefined"), M.invariants(mid, mctx, at_end), *mctx.assume,
                mctx.defined("undefined"))
        qctx = Ctx("qn")
        goals = list(G.of(s_next, qctx, rctx.sites))
        add_all(s, *qctx.assume)
        r, bad, _ = G.first_failing(s, True, iter(goals))
        if r == z3.sat:
            # A round-end state is never observed, so the invariants need not hold there;
            # the round transition must keep them only after an action taken from a state
            # where they hold. Check exactly that, action by action.
            r, bad, n, m = _round_after_actions(M, one, G)
            if r == z3.sat:
                trace = situation_trace(game, M, m, one, n, None, None)
                action = (f"{game.ir.actions[one.parts[n].alt.action].name} by player "
                          f"{one.parts[n].alt.actor}")
                return Result("invariants", "witness", f"not inductive: after {action} and "
                              f"the round transition it triggers, {bad} fails (from "
                              f"{enc.describe(trace.values[0])})", clock.elapsed())
        if r == z3.unknown:
            return gave_up("after the round transition", bad)
    except Unsupported as exc:
        return Result("invariants", "unknown", f"not encoded: {exc}", clock.elapsed())
    return Result("invariants", "proved", f"inductive, so true in every reachable state: "
                  f"{', '.join(names) or 'no declared invariants'} (with the type invariant "
                  "and no round-end condition between actions)", clock.elapsed())


def _round_after_actions(M: Machine, one: OneStep, G: _Goals
                         ) -> tuple[z3.CheckSatResult, str, int, Any]:
    """Whether some action, from a state satisfying the invariants (`one.pre`), ends a
    round whose transition leads to a non-terminal state breaking them: (result, goal,
    action alternative, model) for the first that does or cannot be decided."""
    s = new_solver(G.clock)
    add_all(s, *one.pre)
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        post, ends, over, rctx = one.after(n)
        qctx = Ctx(f"qr{n}")
        goals = list(G.of(post, qctx, part.ctx.sites + rctx.sites))
        base = AND(step_ok(part, rctx), ends, NOT(over), *qctx.assume)
        r, bad, m = G.first_failing(s, base, iter(goals))
        if r != z3.unsat:
            return r, bad, n, m
    return z3.unsat, "", -1, None


def related_invariants(game: model.Game, e: ir.Expr) -> list[str]:
    """The spec's invariants that read a variable or zone family that `e` reads."""
    def reads(x: ir.Expr) -> set[tuple[str, str]]:
        return {("var", n.name) if isinstance(n, ir.Var) else ("zone", n.family)
                for n in ir.walk(x) if isinstance(n, ir.Var | ir.Zone)}
    mine = reads(e)
    return [c.name for c in game.ir.invariants if reads(c.expr) & mine]


def invariants_proved(game: model.Game) -> bool:
    """Whether the spec's invariants were proved inductive already (no z3 call)."""
    return _INDUCTIVE.get(id(machine(game)), False)


def not_assumed(game: model.Game) -> str:
    """Said beside a state z3 found where the spec's invariants were left out (they are
    not proved inductive), so that a designer does not read a state that breaks one as a
    fault of the rules; empty for a spec without invariants."""
    if not game.ir.invariants:
        return ""
    return (" (the spec's invariants were not assumed, as z3_invariants did not prove them "
            "inductive: this state may break one)")


def assume_invariants(game: model.Game, clock: Clock) -> bool:
    """Whether the spec's invariants are proved inductive (proving them if not yet tried)."""
    M = machine(game)
    if id(M) not in _INDUCTIVE:
        invariants(game, limit=max(clock.left() // 2, 1))
    return _INDUCTIVE.get(id(M), False)



