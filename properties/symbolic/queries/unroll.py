"""Bounded unrolling of the transition system from a symbolic deal (BMC): a step template
built once and instantiated per step, whole rounds as one step, and the search loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import z3

import model
from model import ir

from .. import session
from ..execute import Exec
from ..expressions import Ctx
from ..machine import Machine
from ..state import Event, SymState, model_value
from ..terms import AND, EQ, NOT, OR, zterm
from ..witness import Trace, events_in_model, finish
from .common import Budget, Clock, action_parts, add_all, check_sat, machine, new_solver


# ---------------------------------------------------------------------- BMC
class StepTemplate:
    """One transition (action, then any round transition) over template variables, built
    once per game; each BMC step is this formula with its variables renamed.

    Its two halves are also used apart (`round_search`): the action (`action_core`, from
    `sin` to `mid`; with no selector true it is an idle step, `mid` equal to `sin`) and
    the round transition (`round_core`, from `mid` to `out`).
    """

    def __init__(self, M: Machine) -> None:
        enc = M.enc
        self.sin, self.parts = action_parts(M)
        self.mid = enc.fresh_state("T.mid")
        self.sels: dict[int, Any] = {}
        core: list[Any] = []
        undefined = []
        live = []
        for n, part in enumerate(self.parts):
            if part.enabled is False:
                continue
            sel = self.sels[n] = z3.Bool(f"T.sel{n}")
            live.append((sel, part.post))
            core.append(z3.Implies(sel, zterm(AND(part.enabled, *part.ctx.assume))))
            undefined.append(AND(sel, part.ctx.failing("undefined")))
        core.append(z3.AtMost(*self.sels.values(), 1))
        core += frame_constraints(enc, self.sin, self.mid, live)
        self.action_core = z3.And(*core)
        self.some_action = zterm(OR(*self.sels.values()))
        self.action_defined = zterm(NOT(OR(*undefined)))
        self.rctx = Ctx("T.r")
        self.post, self.ends, self.over = M.round_part(self.mid, self.rctx)
        self.out = enc.fresh_state("T.out")
        self.round_core = z3.And(*[zterm(x) for x in [
            *self.rctx.assume, enc.equal(self.out, self.post), *enc.bounds(self.out)]
            if x is not True])
        self.round_defined = zterm(self.rctx.defined("undefined"))
        self.formula = z3.And(self.action_core, self.some_action, self.round_core)
        self.defined = z3.And(self.action_defined, self.round_defined)
        self.in_vars = enc.variables(self.sin)
        self.mid_vars = enc.variables(self.mid)
        self.out_vars = enc.variables(self.out)
        self.action_internal = list(self.sels.values())
        for part in self.parts:
            self.action_internal += part.ctx.created
        self.round_internal = list(self.rctx.created)
        self.internal = self.mid_vars + self.action_internal + self.round_internal

    def mapping(self, k: int, s_in: SymState, s_out: SymState, enc: Any) -> list:
        pairs = list(zip(self.in_vars, enc.variables(s_in), strict=True))
        pairs += zip(self.out_vars, enc.variables(s_out), strict=True)
        pairs += [(v, z3.Const(f"{v}@{k}", v.sort())) for v in self.internal]
        return pairs

    def slot_mapping(self, tag: str, s_in: SymState, s_mid: SymState, enc: Any) -> list:
        pairs = list(zip(self.in_vars, enc.variables(s_in), strict=True))
        pairs += zip(self.mid_vars, enc.variables(s_mid), strict=True)
        pairs += [(v, z3.Const(f"{v}@{tag}", v.sort())) for v in self.action_internal]
        return pairs

    def round_mapping(self, tag: str, s_mid: SymState, s_out: SymState, enc: Any) -> list:
        pairs = list(zip(self.mid_vars, enc.variables(s_mid), strict=True))
        pairs += zip(self.out_vars, enc.variables(s_out), strict=True)
        pairs += [(v, z3.Const(f"{v}@{tag}", v.sort())) for v in self.round_internal]
        return pairs


def substitute_many(pairs: list, xs: list) -> list:
    """Several terms under one substitution (each call marshals the whole mapping)."""
    terms = [zterm(x) for x in xs]
    if not terms:
        return []
    probes = [z3.Const(f"probe{i}", t.sort()) == t for i, t in enumerate(terms)]
    if len(probes) == 1:
        return [z3.substitute(probes[0], pairs).arg(1)]
    return [e.arg(1) for e in z3.substitute(z3.And(*probes), pairs).children()]


_TEMPLATES: dict[int, tuple[Machine, StepTemplate]] = session.cache()




def template(M: Machine) -> StepTemplate:
    """The step template of a machine, built once (kept with the machine, so that one made
    after another was dropped, which may get its id, gets its own)."""
    if id(M) not in _TEMPLATES or _TEMPLATES[id(M)][0] is not M:
        _TEMPLATES[id(M)] = (M, StepTemplate(M))
    return _TEMPLATES[id(M)][1]


class Unroller:
    """Bounded model checking from the symbolic deal (Game.initial_state)."""

    def __init__(self, game: model.Game, clock: Clock, budget: Budget | None = None) -> None:
        self.game = game
        self.M = M = machine(game)
        self.enc = M.enc
        self.clock = clock
        self.budget = budget  # z3's resource units for all checks (None: the clock only)
        self.s = new_solver(clock)
        ctx = Ctx("init")
        init = M.initial(ctx)
        s0 = self.enc.fresh_state("s0")
        add_all(self.s, self.enc.equal(s0, init), *ctx.assume, ctx.defined("undefined"))
        self.init_ctx = ctx
        self.states = [s0]
        self.maps: list[list] = []
        self.defined: list[Any] = []
        self.round_start: list[Any] = [True]  # s_k begins a round
        self.t = template(M)

    @property
    def depth(self) -> int:
        return len(self.states) - 1

    def sub(self, k: int, x: Any) -> Any:
        """A template term (of step k) in step k's variables."""
        if not isinstance(x, z3.ExprRef):
            return x
        return z3.substitute(x, self.maps[k])

    def sub_in(self, k: int, x: Any) -> Any:
        """A term over the template's input state, on state k."""
        if not isinstance(x, z3.ExprRef):
            return x
        pairs = list(zip(self.t.in_vars, self.enc.variables(self.states[k]), strict=True))
        return z3.substitute(x, pairs)

    def extend(self) -> None:
        """Add transition k -> k+1 (its definedness is asserted once the next is added)."""
        k = self.depth
        if self.defined:
            add_all(self.s, self.defined[-1])
        nxt = self.enc.fresh_state(f"s{k + 1}")
        pairs = self.t.mapping(k, self.states[k], nxt, self.enc)
        self.maps.append(pairs)
        self.s.add(z3.substitute(self.t.formula, pairs))
        self.defined.append(z3.substitute(self.t.defined, pairs))
        self.round_start.append(self.sub(k, zterm(AND(self.t.ends, NOT(self.t.over)))))
        self.states.append(nxt)

    def enabled_at(self, k: int) -> list[Any]:
        """Per action instance: enabled and its guard defined, on state k."""
        return [self.sub_in(k, zterm(AND(p.enabled, p.guard_ok))) for p in self.t.parts]

    def check(self, target: Any, defined_last: bool = True) -> z3.CheckSatResult:
        extra = [target]
        if defined_last and self.defined:
            extra.append(self.defined[-1])
        if self.budget is not None:
            return self.budget.check(self.s, self.clock, *extra)
        return check_sat(self.s, self.clock, *extra)

    def sub_many(self, k: int, xs: list) -> list:
        """Several template terms in step k's variables, with one substitution."""
        return substitute_many(self.maps[k], xs)

    def chosen(self, m: z3.ModelRef, k: int) -> int:
        ev = model_value(m)
        items = list(self.t.sels.items())
        vals = self.sub_many(k, [sel for _, sel in items])
        return next(n for (n, _), v in zip(items, vals, strict=True) if ev(v))

    def trace(self, m: z3.ModelRef, steps: int | None = None) -> Trace:
        enc = self.enc
        ev = model_value(m)
        steps = self.depth if steps is None else steps
        actions, values, events = [], [enc.evaluate(m, self.states[0])], [
            events_in_model(m, self.init_ctx.events)]
        for k in range(steps):
            n = self.chosen(m, k)
            part = self.t.parts[n]
            evs = part.ctx.events + self.t.rctx.events
            flat: list = list(part.args)
            for e in evs:
                flat.append(e.guard)
                flatten(e.args, flat)
            subbed = iter(self.sub_many(k, [x for x in flat if isinstance(x, z3.ExprRef)]))
            done = [next(subbed) if isinstance(x, z3.ExprRef) else x for x in flat]
            it = iter(done)
            args = tuple(ev(next(it)) for _ in part.args)
            renamed = []
            for e in evs:
                guard = next(it)
                renamed.append(Event(guard, e.op, rebuild(e.args, it)))
            actions.append(self.game.action(part.alt.action, args))
            values.append(enc.evaluate(m, self.states[k + 1]))
            events.append(events_in_model(m, renamed))
        return finish(enc, Trace(self.game, "deal", actions, values, events))


def flatten(x: Any, out: list) -> None:
    """The leaves of nested tuples and lists (None left out), in order, appended to `out`."""
    if isinstance(x, tuple | list):
        for y in x:
            flatten(y, out)
    elif x is not None:
        out.append(x)


def rebuild(x: Any, it: Any) -> Any:
    """`x`'s nesting again, its leaves taken from `it` (what `flatten` left out stays None)."""
    if isinstance(x, tuple):
        return tuple(rebuild(y, it) for y in x)
    if isinstance(x, list):
        return [rebuild(y, it) for y in x]
    if x is None:
        return None
    return next(it)


def frame_constraints(enc: Any, before: SymState, after: SymState,
                      options: list[tuple[Any, SymState]]) -> list:
    """after = the chosen option's state, slot by slot: for each value a slot may take, the
    selectors giving it imply it; a slot no selector changes keeps its value."""
    out: list = []

    def slot(x_after: Any, x_before: Any, values: list[tuple[Any, Any]]) -> None:
        groups: list[tuple[Any, list]] = []
        for sel, v in values:
            if _same_value(v, x_before):
                continue
            for val, sels in groups:
                if _same_value(val, v):
                    sels.append(sel)
                    break
            else:
                groups.append((v, [sel]))
        changed = []
        for val, sels in groups:
            c = zterm(OR(*sels))
            changed.append(c)
            out.append(z3.Implies(c, zterm(EQ(x_after, val))))
        out.append(z3.Or(*changed, zterm(EQ(x_after, x_before))) if changed
                   else zterm(EQ(x_after, x_before)))

    for i in range(enc.n_inst):
        for p in range(len(before.Z[i])):
            slot(after.Z[i][p], before.Z[i][p], [(sel, st.Z[i][p]) for sel, st in options])
        if before.T[i] is not None:
            slot(after.T[i], before.T[i], [(sel, st.T[i]) for sel, st in options])
    for name, xs in before.V.items():
        for j in range(len(xs)):
            slot(after.V[name][j], xs[j], [(sel, st.V[name][j]) for sel, st in options])
    slot(after.term, before.term, [(sel, st.term) for sel, st in options])
    return out


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        return isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b)
    return type(a) is type(b) and a == b


class OneRound:
    """One round searched with the round transition only at its end: up to L actions (a
    slot may stay idle once the round has ended) from a start, then scoring and the next
    round's start. Without round transitions between actions this reaches whole rounds
    that step-by-step search cannot. The start is the symbolic first deal, or (`any`) a
    round start from an arbitrary well-formed state between rounds."""

    def __init__(self, game: model.Game, clock: Clock, start: str,
                 budget: Budget | None = None) -> None:
        self.game = game
        self.M = M = machine(game)
        self.enc = enc = M.enc
        self.clock = clock
        self.budget = budget  # z3's resource units for all checks (None: the clock only)
        self.t = template(M)
        self.s = new_solver(clock)
        self.start = start
        ctx = Ctx("init")
        if start == "deal":
            init = M.initial(ctx)
        else:
            before = enc.fresh_state("B")
            gctx = Ctx("B")
            add_all(self.s, enc.wf(before), NOT(before.term),
                 NOT(M.game_end(before, Exec(enc, gctx))), gctx.defined("undefined"))
            init = M.between_rounds(before, ctx)
        s0 = enc.fresh_state("x0")
        ectx = Ctx("x0")
        add_all(self.s, enc.equal(s0, init), *ctx.assume, ctx.defined("undefined"),
             NOT(M.round_end(s0, Exec(enc, ectx))), ectx.defined("undefined"))
        self.init_ctx = ctx
        self.states = [s0]
        self.maps: list[list] = []
        self.acting: list[Any] = []
        self.ends: list[Any] = []
        self.tag = ""  # names this round's fresh variables apart from earlier rounds'
        self.rpairs: list = []
        self.done: list[tuple[list[SymState], list[list], list[Any], SymState, list]] = []

    def add_slot(self) -> None:
        enc, t = self.enc, self.t
        j = len(self.maps)
        x = enc.fresh_state(f"x{self.tag}{j + 1}")
        pairs = t.slot_mapping(f"{self.tag}{j}", self.states[-1], x, enc)
        core, acting, defined = substitute_many(pairs, [t.action_core, t.some_action,
                                                        t.action_defined])
        epairs = list(zip(t.mid_vars, enc.variables(x), strict=True)) + [
            (v, z3.Const(f"{v}@{self.tag}{j}e", v.sort())) for v in t.round_internal]
        ends, rdefined = substitute_many(epairs, [t.ends, t.round_defined])
        self.s.add(core, z3.Implies(acting, z3.And(defined, rdefined)))
        if j == 0:
            self.s.add(acting)  # a round has at least one action
        else:
            self.s.add(z3.Implies(acting, z3.And(self.acting[-1], z3.Not(self.ends[-1]))))
        self.maps.append(pairs)
        self.acting.append(acting)
        self.ends.append(ends)
        self.states.append(x)

    def check(self, target: Callable[[OneRound, SymState, Any], Any]
              ) -> tuple[z3.CheckSatResult, Any]:
        """Whether a round of at most len(slots) actions ends with target(self, next round
        start, game over) true; with the model, the next round start and its mapping."""
        enc, t = self.enc, self.t
        self.s.push()
        nxt = enc.fresh_state(f"y{self.tag}{len(self.maps)}")
        rpairs = t.round_mapping(f"r{self.tag}{len(self.maps)}", self.states[-1], nxt, enc)
        core, ends, rdefined, over = substitute_many(
            rpairs, [t.round_core, t.ends, t.round_defined, t.over])
        self.s.add(core, ends, rdefined)
        self.rpairs = rpairs  # the round transition `target` may read (`round_term`)
        goal = target(self, nxt, over)
        r = (self.budget.check(self.s, self.clock, goal) if self.budget is not None
             else check_sat(self.s, self.clock, goal))
        m = self.s.model() if r == z3.sat else None
        self.s.pop()
        return r, (m, nxt, rpairs)

    def slot_terms(self, x: Any) -> list:
        """A term of the action template (its selectors, its flags) in each slot so far."""
        return [substitute_many(pairs, [x])[0] for pairs in self.maps]

    def round_term(self, x: Any) -> Any:
        """A term of the round transition's template in the transition being checked."""
        return substitute_many(self.rpairs, [x])[0]

    def commit(self, m: z3.ModelRef, nxt: SymState, rpairs: list) -> None:
        """Fix this round as `m` plays it (every state of it pinned to the model's values)
        and go on to the next round from `nxt`, whose deal the next check chooses."""
        enc = self.enc
        for st in self.states:
            add_all(self.s, enc.equal(st, enc.state_of(enc.evaluate(m, st))))
        self._go_on(nxt, rpairs)

    def follow(self) -> None:
        """End this round after its slots (the game going on), its actions and its deal
        still z3's to choose, and go on to the next round from the start it leads to."""
        nxt = self.enc.fresh_state(f"y{self.tag}{len(self.maps)}")
        self._go_on(nxt, self.t.round_mapping(f"r{self.tag}{len(self.maps)}", self.states[-1],
                                              nxt, self.enc))

    def _go_on(self, nxt: SymState, rpairs: list) -> None:
        enc, t = self.enc, self.t
        core, ends, rdefined, over = substitute_many(
            rpairs, [t.round_core, t.ends, t.round_defined, t.over])
        self.s.add(core, ends, rdefined, z3.Not(over))
        self.done.append((self.states, self.maps, self.acting, nxt, rpairs))
        self.tag = f"R{len(self.done)}."
        ectx = Ctx(f"x{self.tag}")
        add_all(self.s, NOT(self.M.round_end(nxt, Exec(enc, ectx))), ectx.defined("undefined"))
        self.states, self.maps, self.acting, self.ends = [nxt], [], [], []

    def played(self, m: z3.ModelRef, nxt: SymState, rpairs: list
               ) -> tuple[list, list[dict], list[list]]:
        """Every committed round's pieces, then this one's (see `pieces`), under `m`."""
        actions: list = []
        values: list[dict] = []
        events: list[list] = []
        for states, maps, acting, nxt_r, rpairs_r in [*self.done,
                                                       (self.states, self.maps, self.acting,
                                                        nxt, rpairs)]:
            a, v, e = self.pieces(m, nxt_r, rpairs_r, (states, maps, acting))
            actions += a
            values += v
            events += e
        return actions, values, events

    def pieces(self, m: z3.ModelRef, nxt: SymState, rpairs: list,
               of: tuple[list[SymState], list[list], list[Any]] | None = None
               ) -> tuple[list, list[dict], list[list]]:
        """The round's actions, states after each, and events per action (evaluated); `of`
        names a committed round's (states, maps, acting) instead of this one's."""
        enc, t = self.enc, self.t
        states, maps, acting = of if of is not None else (self.states, self.maps, self.acting)
        ev = model_value(m)
        sels = list(t.sels.items())
        actions, values, events = [], [], []
        for j, pairs in enumerate(maps):
            if not ev(acting[j]):
                break
            vals = substitute_many(pairs, [x for _, x in sels])
            n = next(n for (n, _), v in zip(sels, vals, strict=True) if ev(v))
            part = t.parts[n]
            flat: list = list(part.args)
            for e in part.ctx.events:
                flat.append(e.guard)
                flatten(e.args, flat)
            zs = iter(substitute_many(pairs, [x for x in flat if isinstance(x, z3.ExprRef)]))
            it = iter([next(zs) if isinstance(x, z3.ExprRef) else x for x in flat])
            args = tuple(ev(next(it)) for _ in part.args)
            evs = [Event(next(it), e.op, rebuild(e.args, it)) for e in part.ctx.events]
            last = j + 1 == len(maps) or not ev(acting[j + 1])
            if last:
                rflat: list = []
                for e in t.rctx.events:
                    rflat.append(e.guard)
                    flatten(e.args, rflat)
                zs = iter(substitute_many(rpairs, [x for x in rflat if isinstance(x, z3.ExprRef)]))
                rit = iter([next(zs) if isinstance(x, z3.ExprRef) else x for x in rflat])
                evs += [Event(next(rit), e.op, rebuild(e.args, rit)) for e in t.rctx.events]
                values.append(enc.evaluate(m, nxt))
            else:
                values.append(enc.evaluate(m, states[j + 1]))
            actions.append(self.game.action(part.alt.action, args))
            events.append(events_in_model(m, evs))
        return actions, values, events


def one_round(game: model.Game, clock: Clock, start: str,
              target: Callable[[OneRound, SymState, Any], Any], slots: int,
              shortest: bool = False, start_condition: ir.Expr | None = None,
              invariants: bool = False, budget: Budget | None = None
              ) -> tuple[OneRound, int, Any]:
    """A round of at most `slots` actions meeting target: (search, slots checked, (model,
    next round start, mapping)), the model None if there is none or time ran out.
    `shortest` checks every length from 1 (each refutation costs; off, one check).
    `invariants`: the round start satisfies the spec's invariants (sound only once they
    are proved inductive: then every reachable state between actions does)."""
    o = OneRound(game, clock, start, budget)
    constrain_start(o, start_condition, invariants)
    for n in range(1, slots + 1):
        if clock.left() <= 0:
            return o, n - 1, None
        o.add_slot()
        if shortest or n == slots:
            r, found = o.check(target)
            if r == z3.sat:
                return o, n, found
            if r == z3.unknown:
                return o, n - 1, None
    return o, slots, None


def constrain_start(o: OneRound, condition: ir.Expr | None, invariants: bool) -> None:
    """The round start satisfies `condition` (if given) and the spec's invariants (if
    `invariants`: sound only once they are proved inductive)."""
    if condition is not None:
        ctx = Ctx("sc")
        add_all(o.s, o.M.condition(condition, o.states[0], ctx), ctx.defined("undefined"),
                *ctx.assume)
    if invariants:
        ctx = Ctx("si")
        add_all(o.s, o.M.invariants(o.states[0], ctx), ctx.defined("undefined"), *ctx.assume)


@attrs.define
class Found:
    """What a bounded search found: a witness at depth k, or the depth fully explored."""

    trace: Trace | None
    k: int
    u: Unroller | None = None
    model: z3.ModelRef | None = None


def bmc(game: model.Game, target: Callable[[Unroller, int], Any], clock: Clock,
        max_depth: int = 60, defined_last: bool = True, min_depth: int = 0,
        budget: Budget | None = None) -> Found:
    """The shortest k with target(u, k) satisfiable, its trace replayed on the concrete
    model; or, with no trace, the depth up to which none exists (with a `budget`, the
    depth reached does not depend on the machine's load)."""
    u = Unroller(game, clock, budget)
    for k in range(max_depth + 1):
        while u.depth < k:
            if clock.left() <= 0:
                return Found(None, k)
            u.extend()
        if k < min_depth:
            continue
        u.s.push()
        r = u.check(target(u, k), defined_last)
        if r == z3.sat:
            m = u.s.model()
            u.s.pop()
            return Found(u.trace(m), k, u, m)
        u.s.pop()
        if r == z3.unknown:
            return Found(None, k)
    return Found(None, max_depth + 1)
