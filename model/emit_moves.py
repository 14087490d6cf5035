"""The code generator's legal moves and playouts: `legal_moves` (each action's guard tested
over its parameters, with the parts that read no parameter hoisted and the kind tables
that replace a loop over a pile's top) and the in-place fast path `playout`, which inlines
the legal moves and the effects into one loop (`MovesEmitter`).

Part of the code generator (`model/codegen.py`), on top of statements (`emit_stmt`).
"""

from __future__ import annotations

from typing import cast

from . import ir
from .emit_expr import _calls_in, _collect_hoistable
from .emit_layout import local
from .emit_stmt import StmtEmitter
from .fold import fold


class MovesEmitter(StmtEmitter):
    """Writes the legal-move function and the playout loop of one game."""

    def playout(self) -> None:
        """`playout(Z, V, ch, pick, limit, tally)`: a whole game played in place.

        The legal-move code and every action's effects written into one loop; `pick(n)`
        chooses among the n legal actions. The same statements as `legal` and
        `effect_in_place_<i>`, without a function call or Action object per step.
        `tally`, if not None, counts each action taken (at its index) and each round-end
        condition that holds when a round ends (after the actions), for play statistics.
        """
        e, g = self.emit, self.g
        e("", 0)
        e("def playout(Z, V, ch, pick, limit, tally=None):", 0)
        e("n = 0", 1)
        e("while n < limit:", 1)
        e("out = []", 2)
        self.depth0, self.playout_mode = 1, True
        self.legal_moves()
        self.depth0, self.playout_mode = 0, False
        e("if not out: return n, False", 2)
        e("a = out[pick(len(out))]", 2)
        e("i = a[0]", 2)
        e("if tally is not None: tally[i] += 1", 2)
        e("actor = V[0]", 2)
        for i, a in enumerate(g.actions):
            e(f"{'if' if i == 0 else 'elif'} i == {i}:", 2)
            for j, (p, _) in enumerate(a.params):
                e(f"{local(p)} = a[{j + 1}]", 3)
            with self.bound(a.params):  # the choices came from the legal-move loops
                self.stmts(a.effects, 3)
        e("V[2] = actor", 2)
        e("n += 1", 2)
        e("if round_end(Z, V):", 2)
        e("if tally is not None:", 3)
        e(f"for _j, (_, _f) in enumerate(ROUND_END, {len(g.actions)}):", 4)
        e("if _f(Z, V): tally[_j] += 1", 5)
        e("scoring(Z, V, ch)", 3)
        e("if game_end(Z, V): return n, True", 3)
        e("V[1] += 1", 3)
        e("round_start(Z, V, ch)", 3)
        e("return n, False", 1)

    def legal_moves(self) -> None:
        """Emit the legal-move code of every action, in declaration order.

        Consecutive actions whose conditions begin with the same test that does not
        depend on their parameters (the phase of the round, say) share one `if` of it.
        """
        actions = list(enumerate(self.g.actions))
        k = 0
        while k < len(actions):
            first = _free_parts(actions[k][1])[:1]
            n = 1
            while first and k + n < len(actions) and _free_parts(actions[k + n][1])[:1] == first:
                n += 1
            if n > 1:
                self.emit(f"if {self.ex(first[0])}:", 1 + self.depth0)
                self.depth0 += 1
            for i, a in actions[k:k + n]:
                self.legal_action(i, a, 1 if n > 1 else 0)
            if n > 1:
                self.depth0 -= 1
            k += n

    def legal_action(self, i: int, a: ir.ActionDecl, tested: int = 0) -> None:
        """Emit the legal-move loop of one action.

        Conjuncts of the guard that do not depend on the parameters are tested once,
        before the loops (the first `tested` of them already were); sub-expressions that
        do not depend on them (the top of the discard pile, say) are computed once. If
        computing them fails (an empty pile that the guard would have stepped around),
        the plain loops run instead.
        """
        with self.bound(a.params):  # each parameter loops over its domain
            self._legal_action(i, a, tested)

    def _legal_action(self, i: int, a: ir.ActionDecl, tested: int) -> None:
        names = {p for p, _ in a.params}
        when = fold(a.when)
        free = _free_parts(a)[tested:]
        parts = list(when.values) if isinstance(when, ir.BoolOp) and when.op == "and" else [when]
        bound = [c for c in parts if ir.uses_locals(c, names)]
        depth = 1 + self.depth0
        if free:
            self.emit(f"if {self.ex(ir.BoolOp('and', tuple(free), when.type))}:"
                      if len(free) > 1 else f"if {self.ex(free[0])}:", depth)
            depth += 1
        guard = (ir.BoolOp("and", tuple(bound), when.type) if len(bound) > 1
                 else bound[0] if bound else None)
        hoist: list[ir.Expr] = []
        if guard is not None and a.params:
            _collect_hoistable(guard, hoist)
            # Calls shared by several hoisted parts (top(discard), say) are computed once,
            # first; the parts after them use their names.
            shared = [n for n in _calls_in(hoist) if sum(
                1 for h in hoist for x in ir.walk(h) if x == n) > 1 and n not in hoist]
            hoist = shared + hoist
        if i in self.match_tables:
            self._table_loops(i, a, depth)
        elif hoist:
            self.emit("try:", depth)
            for j, h in enumerate(hoist):
                h = fold(h)
                # the top of a pile read directly: an empty one raises IndexError here
                code = (f"{self._ex(h.args[0])}[-1]" if isinstance(h, ir.Call) and h.fn == "top"
                        else self._ex(h))
                self.emit(f"_h{j} = {code}", depth + 1)
                self.hoisted[h] = f"_h{j}"
            self.hoisted = {}
            self.emit("except (r.ModelError, IndexError):", depth)
            self._legal_loops(i, a, guard, depth + 1)
            self.emit("else:", depth)
            self.hoisted = {h: f"_h{j}" for j, h in enumerate(hoist)}
            self._legal_loops(i, a, guard, depth + 1)
            self.hoisted = {}
        else:
            self._legal_loops(i, a, guard, depth)

    def _table_loops(self, i: int, a: ir.ActionDecl, depth: int) -> None:
        """The legal-move loop of an action with a kind table (`kind_table`): only the
        kinds the table allows for the root's value, those in the bag; the plain loop where
        the root cannot be computed or its table entry is None."""
        guard, table, root = self.match_tables[i]
        p, dom = a.params[0]
        self.emit("_m = None", depth)
        self.emit("try:", depth)
        top = cast(ir.Call, root).args[0]  # the pile of top(pile)
        self.emit(f"_m = {table}[{self._ex(top)}[-1]]", depth + 1)  # empty: IndexError
        self.emit("except (r.ModelError, IndexError):", depth)
        self.emit("pass", depth + 1)
        self.emit("if _m is None:", depth)
        self._legal_loops(i, a, guard, depth + 1)
        self.emit("else:", depth)
        self.emit(f"_b = {self._ex(cast(ir.Call, fold(dom)).args[0])}", depth + 1)
        self.emit(f"for {local(p)} in _m:", depth + 1)
        self.emit(f"if _b[{local(p)}]:", depth + 2)
        self._append(i, a, depth + 3)

    def match_table(self, i: int, a: ir.ActionDecl) -> None:
        """A kind table (`kind_table`) for the legal moves of an action whose one parameter
        is a kind in a bag, for the parts of its condition that depend on the parameter."""
        if len(a.params) != 1:
            return
        p, dom = a.params[0]
        dom = fold(dom)
        if not (isinstance(dom, ir.Call) and dom.fn == "kinds"
                and self.zone_decl(dom.args[0]).order == "bag"):
            return
        when = fold(a.when)
        parts = list(when.values) if isinstance(when, ir.BoolOp) and when.op == "and" else [when]
        bound = [c for c in parts if ir.uses_locals(c, {p})]
        if not bound:
            return
        guard = bound[0] if len(bound) == 1 else ir.BoolOp("and", tuple(bound), when.type)
        with self.bound(a.params):
            found = self.kind_table(p, self.zone_decl(dom.args[0]).holds, guard)
        if found is not None:
            self.match_tables[i] = (guard, *found)

    def _append(self, i: int, a: ir.ActionDecl, depth: int) -> None:
        if self.playout_mode:
            self.emit(f"out.append(({i}, {''.join(f'{local(p)}, ' for p, _ in a.params)}))", depth)
        elif self.action_table_type(a) is not None:
            self.emit(f"out.append(A{i}" + (f"[{local(a.params[0][0])}])" if a.params else ")"), depth)
        else:
            args = "".join(f"{local(p)}, " for p, _ in a.params)
            self.emit(f"out.append(make({i}, ({args})))", depth)

    def _legal_loops(self, i: int, a: ir.ActionDecl, guard: ir.Expr | None, depth: int) -> None:
        for j, (p, dom) in enumerate(a.params):
            dom = fold(dom)
            if (isinstance(dom, ir.Call) and dom.fn == "kinds"
                    and self.zone_decl(dom.args[0]).order == "bag"):
                holds = self.zone_decl(dom.args[0]).holds
                bag = "_b" if j == 0 else f"_b{j}"  # one per loop: an inner one would clobber it
                self.emit(f"{bag} = {self._ex(dom.args[0])}", depth)
                self.emit(f"for {local(p)} in {holds.upper()}:", depth)
                self.emit(f"if not {bag}[{local(p)}]: continue", depth + 1)
            else:
                self.emit(f"for {local(p)} in {self._ex(dom)}:", depth)
            depth += 1
        if guard is not None:
            self.emit(f"if {self._ex(guard)}:", depth)
            depth += 1
        self._append(i, a, depth)

    def action_table_type(self, a: ir.ActionDecl) -> str | None:
        """Actions with no parameter, or one kind/player/index parameter, are made once
        (a table `A<i>` filled in by the Game) instead of looked up on every call."""
        if not a.params:
            return "none"
        if len(a.params) == 1:
            t = a.params[0][1].type.of
            if t is not None and t.name in ("kind", "player", "index"):
                return t.name if t.name != "index" else f"index:{t.ref}"
        return None


def _free_parts(a: ir.ActionDecl) -> list[ir.Expr]:
    """The conjuncts of an action's condition that do not depend on its parameters."""
    names = {p for p, _ in a.params}
    when = fold(a.when)
    parts = list(when.values) if isinstance(when, ir.BoolOp) and when.op == "and" else [when]
    return [c for c in parts if not ir.uses_locals(c, names)]
