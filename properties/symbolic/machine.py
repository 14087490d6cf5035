"""A game's transition system in z3: the set-up, one action (split by actor and parameter
values), the round transition, and the named conditions the queries ask about.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from model import ir

from .execute import Exec
from .expressions import Ctx, Hidden
from .state import Enc, SymState, ZoneRef
from .terms import AND, EQ, NOT, OR, Unsupported, as_int

#: Items remembered below each start pile's top before set-up (its order is known: kinds
#: in declaration order). Two suffice for a rule that draws before any shuffle; more make
#: every lemma about the set-up's first effects (a gather, a shuffle) quadratic in them.
INITIAL_KNOWN = 2


# ------------------------------------------------------------------ transitions
@attrs.frozen
class Alt:
    """One way to act: an action, a slot in each parameter's domain, and the actor."""

    action: int
    slots: tuple[int, ...] | None  # None: each parameter a symbolic value from its domain
    actor: int | None  # None: whoever is to act (no case split)


@attrs.define
class StepPart:
    """The action half of a transition: enabledness, the arguments, the state after the
    effects (before any round transition) and what the execution collected."""

    alt: Alt
    enabled: Any  # not terminal, this actor, parameters present, guard true
    guard_ok: Any  # the guard could be evaluated
    args: tuple
    post: SymState
    ctx: Ctx


class Machine:
    """The transition relation of one game, built from its IR.

    A transition is an action (`action_part`) followed, when a round-end condition holds,
    by scoring, the game-end test and the next round's start (`round_part`), exactly as
    `model.State.apply` does.
    """

    def __init__(self, g: ir.GameIR, split_actor: bool = True, split_params: bool = True
                 ) -> None:
        self.g = g
        self.enc = Enc(g)
        self.split_actor = split_actor
        self.split_params = split_params
        self._alts: list[Alt] | None = None

    def alts(self) -> list[Alt]:
        """Every (action, parameter slots, actor); the shape does not depend on the state."""
        if self._alts is None:
            st = self.enc.fresh_state("shape")
            out = []
            for ai, a in enumerate(self.g.actions):
                # a joint action stays one instance per actor even when parameters are split:
                # its instances would be the product of the seats' choices (`joint_part`)
                shapes = ([None] if a.joint and a.params else self._slots(a, st)
                          if self.split_params or not a.params else [None])
                for slots in shapes:
                    if not self.split_actor:
                        out.append(Alt(ai, slots, None))
                        continue
                    for p in range(self.enc.P):
                        out.append(Alt(ai, slots, p))
            self._alts = out
        return self._alts

    def _slots(self, a: ir.ActionDecl, st: SymState, present: bool = False
               ) -> list[tuple[int, ...]]:
        """Every combination of positions in the parameters' domains, each domain read with
        the values before it; with `present`, only the values present in `st` (a concrete
        state: an item known to be absent is left out)."""
        ex = Exec(self.enc, Ctx("concrete" if present else "shape"))
        combos: list[tuple[tuple[int, ...], dict]] = [((), {})]
        for name, dom in a.params:
            new = []
            for slots, env in combos:
                lst = ex.ev(dom, st, env)
                if isinstance(lst, ZoneRef):
                    lst = ex.zone_kinds(st, lst)
                new += [((*slots, pos), {**env, name: v}) for pos, (q, v) in enumerate(lst.items)
                        if not (present and q is False)]
            combos = new
        return [s for s, _ in combos]

    def action_part(self, st: SymState, alt: Alt, tag: str, effects: bool = True,
                    hidden: Hidden | None = None, ctx: Ctx | None = None,
                    domains: dict | None = None) -> StepPart:
        """Alternative `alt` from state `st`; without `effects`, only whether it is enabled
        (the state after is then the state before: for queries that read guards alone).
        `ctx` (default a fresh `Ctx(tag, hidden)`) collects what the execution needs (a
        caller coupling two versions' chance passes its own).

        `domains`, for the alternatives of one *concrete* state (agreement: a few hundred
        per state): a dict they share, where each parameter's domain is evaluated once;
        and a parameter value known to be absent (a card not in the hand) gives a
        disabled part at once, its arguments from there on None."""
        enc = self.enc
        ctx = Ctx(tag, hidden) if ctx is None else ctx
        a = self.g.actions[alt.action]
        if a.joint and alt.slots is None and self.split_params and not effects:
            return self.joint_part(st, alt, ctx)
        ex = Exec(enc, ctx)
        pre = st.copy()
        present = [NOT(st.term)]
        actor = st.V["active"][0]
        if alt.actor is not None:
            actor = pre.V["active"] = (alt.actor,)
            actor = alt.actor
            present.append(EQ(st.V["active"][0], alt.actor))
        env: dict[str, Any] = {}
        for n, (name, dom) in enumerate(a.params):
            key = (alt.action, n, *env.values())
            shared = domains is not None and all(type(x) is int for x in env.values())
            lst = domains.get(key) if shared and domains is not None else None
            if lst is None:
                with ctx.under(AND(*present)):
                    lst = ex.ev(dom, pre, env)
                if isinstance(lst, ZoneRef):
                    lst = ex.zone_kinds(pre, lst)
                if shared and domains is not None:
                    domains[key] = lst
            if alt.slots is not None:
                p, v = lst.items[alt.slots[n]]
                if p is False and domains is not None:
                    env[name] = v
                    args = tuple(env.get(param) for param, _ in a.params)
                    return StepPart(alt, False, True, args, pre, ctx)
            else:
                v = ctx.fresh(f"{name}_")
                p = OR(*[AND(q, EQ(v, x)) for q, x in lst.items])
            present.append(p)
            env[name] = v
        with ctx.under(AND(*present)):
            guard = ex.truth(ex.ev(a.when, pre, env))
        guard_ok = ctx.defined()
        enabled = AND(*present, guard)
        with ctx.under(enabled):
            post = ex.run(a.effects, pre, env) if enabled is not False and effects else pre
        post = post.copy()
        post.V["last_actor"] = (actor,)
        args = tuple(env[name] for name, _ in a.params)
        return StepPart(alt, enabled, guard_ok, args, post, ctx)

    def joint_part(self, st: SymState, alt: Alt, ctx: Ctx) -> StepPart:
        """Whether some joint action (`ir.ActionDecl.joint`) of `alt` is enabled, for the
        queries that split parameters to ask that no action is: each seat's choices read
        only its own parameters, so some joint action is enabled exactly when the guard's
        shared conjuncts hold and every seat has an enabled choice. One disjunction per
        seat over its own parameter values, instead of one instance per joint action (the
        product of the seats' choices). The arguments are unknown (None)."""
        a = self.g.actions[alt.action]
        ex = Exec(self.enc, ctx)
        pre = st.copy()
        present = [NOT(st.term)]
        if alt.actor is not None:
            pre.V["active"] = (alt.actor,)
            present.append(EQ(st.V["active"][0], alt.actor))
        seat_of = {a.params[i][0]: s for s, idx in enumerate(a.joint) for i in idx}
        when = a.when
        conj = list(when.values) if isinstance(when, ir.BoolOp) and when.op == "and" else [when]
        shared: list[ir.Expr] = []
        own: list[list[ir.Expr]] = [[] for _ in a.joint]
        for c in conj:
            seats = {seat_of[n] for n in ir.free_locals(c) if n in seat_of}
            if len(seats) > 1:  # the loader reads each seat's condition apart: never
                raise Unsupported(f"a conjunct of {a.name}'s condition reads several seats")
            (own[seats.pop()] if seats else shared).append(c)
        base: Any = True
        if shared:
            with ctx.under(AND(*present)):
                base = ex.truth(ex.ev(_all(shared), pre, {}))
        every = []
        for s, idx in enumerate(a.joint):
            combos: list[tuple[tuple[Any, ...], dict[str, Any]]] = [((), {})]
            for i in idx:
                name, dom = a.params[i]
                new = []
                for conds, env in combos:
                    with ctx.under(AND(*present, *conds)):
                        lst = ex.ev(dom, pre, env)
                        if isinstance(lst, ZoneRef):
                            lst = ex.zone_kinds(pre, lst)
                    new += [((*conds, q), {**env, name: v}) for q, v in lst.items if q is not False]
                combos = new
            options = []
            for conds, env in combos:
                ok: Any = True
                if own[s]:
                    with ctx.under(AND(*present, base, *conds)):
                        ok = ex.truth(ex.ev(_all(own[s]), pre, env))
                options.append(AND(*conds, ok))
            every.append(OR(*options))
        return StepPart(alt, AND(*present, base, *every), ctx.defined(),
                        (None,) * len(a.params), pre, ctx)

    def concrete_alts(self, st: SymState, alt: Alt) -> list[Alt]:
        """The instances of a joint action's `alt` in the concrete state `st`: one per
        combination of parameter values present there (each parameter's domain read with
        the values before it), the product of the seats' choices, for the agreement check."""
        return [Alt(alt.action, slots, alt.actor)
                for slots in self._slots(self.g.actions[alt.action], st, present=True)]

    def round_part(self, st: SymState, ctx: Ctx) -> tuple[SymState, Any, Any]:
        """Round end, scoring, game end and the next round's start, after an action.

        Returns the state after, whether the round ended, and whether the game ended.
        """
        ends, over, s_over, s_next = self.round_outcomes(st, ctx)
        if ends is False:
            return st, False, False
        ex = Exec(self.enc, ctx)
        return ex.merge(ends, ex.merge(over, s_over, s_next), st), ends, AND(ends, over)

    def round_outcomes(self, st: SymState, ctx: Ctx) -> tuple[Any, Any, SymState, SymState]:
        """(round ends, game ends, state if the game ends, state if a new round starts)."""
        ex = Exec(self.enc, ctx)
        ends = self.round_end(st, ex)
        if ends is False:
            return False, False, st, st
        with ctx.under(ends):
            s2 = ex.run(self.g.scoring, st, {})
            over = self.game_end(s2, ex)
            with ctx.under(over):
                s_over = s2.copy()
                s_over.term = True
            with ctx.under(NOT(over)):
                s_next = s2.copy()
                s_next.V["round"] = (s2.V["round"][0] + 1,)
                if over is not True:
                    s_next = ex.run(self.g.round_start, s_next, {})
        return ends, over, s_over, s_next

    def round_end(self, st: SymState, ex: Exec) -> Any:
        return self._any(self.g.round_end, st, ex)

    def game_end(self, st: SymState, ex: Exec) -> Any:
        return self._any(self.g.game_end, st, ex)

    def _any(self, conds: Sequence[ir.Condition], st: SymState, ex: Exec) -> Any:
        out: list[Any] = []
        for c in conds:
            with ex.ctx.under(NOT(OR(*out))):
                out.append(ex.truth(ex.ev(c.expr, st, {})))
        return OR(*out)

    def condition(self, e: ir.Expr, st: SymState, ctx: Ctx, env: dict | None = None) -> Any:
        ex = Exec(self.enc, ctx)
        return ex.truth(ex.ev(e, st, env or {}))

    def value(self, e: ir.Expr, st: SymState, ctx: Ctx, env: dict | None = None) -> Any:
        return as_int(Exec(self.enc, ctx).ev(e, st, env or {}))

    def initial(self, ctx: Ctx) -> SymState:
        """The state after set-up and the first deal (Game.initial_state); chance symbolic."""
        enc, g = self.enc, self.g
        Z: list[Any] = []
        T: list[Any] = []
        S: list[Any] = []
        start: dict[int, list[int]] = {}
        for k, kd in enumerate(g.kinds):
            start.setdefault(enc.base[kd.start], []).extend([k] * kd.copies)
        for i in range(enc.n_inst):
            items = start.get(i, [])
            Z.append(tuple(items.count(k) for k in enc.inst_kinds[i]))
            if enc.inst_pile[i]:
                T.append(items[-1] if items else enc.canon[enc.holds(i)])
                S.append(tuple(reversed(items[:-1]))[:INITIAL_KNOWN])
            else:
                T.append(None)
                S.append(())
        V: dict[str, tuple] = {name: tuple(False if t.name == "bool" else 0 for _ in range(n))
                               for name, (t, n) in enc.vtypes.items()}
        V["round"] = (1,)
        st = SymState(Z, T, S, V, False)
        ex = Exec(enc, ctx)
        for v in g.vars:
            val = ex.ev(v.init, st, {})
            val = ex.truth(val) if v.type.name == "bool" else as_int(val)
            st = st.copy()
            st.V[v.name] = tuple(val for _ in st.V[v.name])
        st = ex.run(g.setup, st, {})
        return ex.run(g.round_start, st, {})

    def between_rounds(self, st: SymState, ctx: Ctx) -> SymState:
        """A next round's start from any state (for bounds that hold in every round)."""
        ex = Exec(self.enc, ctx)
        st = st.copy()
        return ex.run(self.g.round_start, st, {})

    def invariants(self, st: SymState, ctx: Ctx, names: Sequence[str] | None = None) -> Any:
        return AND(*[self.condition(c.expr, st, ctx) for c in self.g.invariants
                     if names is None or c.name in names])

    def measure(self, st: SymState, ctx: Ctx) -> Any:
        if self.g.measure is None:
            return None
        return self.value(self.g.measure, st, ctx)

    def game_measure(self, st: SymState, ctx: Ctx) -> Any:
        if self.g.game_measure is None:
            return None
        return self.value(self.g.game_measure, st, ctx)


def _all(parts: Sequence[ir.Expr]) -> ir.Expr:
    """The conjunction of `parts` as one expression."""
    return parts[0] if len(parts) == 1 else ir.BoolOp("and", tuple(parts), parts[0].type)
