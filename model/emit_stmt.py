"""The code generator's statements: IR statements and effects written as Python
(`StmtEmitter`), the copy-on-write of what an effect changes, the token functions, and the
tables of conditions (round end, game end, scoring) with the parts they keep once.

Part of the code generator (`model/codegen.py`), on top of expressions (`emit_expr`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

from . import ir
from .emit_expr import ExprEmitter
from .emit_layout import local
from .fold import fold
from .limits import MAX_REPEAT
from .types import PLAYER


class StmtEmitter(ExprEmitter):
    """Turns IR statements into lines of Python source for one game."""

    # ------------------------------------------------------------- statements
    def emit(self, text: str, depth: int) -> None:
        self.lines.append("    " * depth + text)

    def stmts(self, body: Iterable[ir.Stmt], depth: int) -> None:
        any_ = False
        for s in body:
            any_ = True
            self.stmt(s, depth)
        if not any_:
            self.emit("pass", depth)

    def stmt(self, s: ir.Stmt, depth: int) -> None:
        """A statement; the expressions it evaluates at once are one evaluation context
        (`context`), a `while` test excepted (it is evaluated again each time round)."""
        exprs: list[ir.Expr] = []
        match s:
            case ir.Assign(target=t, value=v):
                exprs = [v, t]
            case ir.Do(args=args, kwargs=kwargs, result=result):
                exprs = [*args, *(v for _, v in kwargs), *([result] if result else [])]
            case ir.If(test=t) if not isinstance(fold(t), ir.Const):
                exprs = [t]
            case ir.For(iter=it):
                exprs = [it]
            case ir.Repeat(count=count):
                exprs = [count]
        with self.context(exprs) as n:
            init = self.memo_init(n)
            if init is not None:
                self.emit(init, depth)
            self._stmt(s, depth)

    def where_comment(self, s: ir.Stmt) -> str:
        """The comment that ends a statement's line: the spec line and column it came
        from, and in the readable form the rulebook lines it cites (checked citations)."""
        if not s.where.line:
            return ""
        at = f"{s.where.line}:{s.where.column}"
        if self.readable:
            return f"  # {', '.join(s.cite)} (spec {at})" if s.cite else f"  # spec {at}"
        return f"  # {at}"

    def _stmt(self, s: ir.Stmt, depth: int) -> None:
        where = self.where_comment(s)
        match s:
            case ir.Assign(target=t, op=op, value=v) if self.first_loop(fold(v)):
                # `x = first(q for q in L if c, d)` as a loop: no generator object.
                c = fold(v)
                assert isinstance(c, ir.Comp) and c.default is not None  # first_loop said so
                g = c.gens[0]
                default = self.ex(c.default)
                with self.bound([g]):
                    self.emit(f"for {local(g.var)} in {self.ex(g.iter)}:{where}", depth)
                    cond = " and ".join(self.ex(x) for x in g.conds) or "True"
                    self.emit(f"if {cond}:", depth + 1)
                    self.emit(f"_f = {self.ex(c.elt)}", depth + 2)
                self.emit("break", depth + 2)
                self.emit("else:", depth)
                self.emit(f"_f = {default}", depth + 1)
                self.emit(self.assign(t, op, c, "_f"), depth)
            case ir.Assign(target=t, op=op, value=v):
                self.emit(self.assign(t, op, fold(v), self.ex(v)) + where, depth)
            case ir.Do():
                for z in self.mutated(s):
                    self.emit(f"{z} = {z}[:]", depth)
                first, *rest = self.effect(s).split("\n")
                self.emit(first + where, depth)
                for line in rest:
                    self.emit(line, depth)
            case ir.If(test=t, then=a, orelse=b) if isinstance(fold(t), ir.Const):
                kept = a if cast(ir.Const, fold(t)).value else b
                if self.readable and not kept:
                    # say what became of it, rather than a bare `pass`
                    self.emit(f"pass  # the chosen readings leave out the `if` at spec "
                              f"{s.where.line}:{s.where.column}", depth)
                else:
                    self.stmts(kept, depth)
            case ir.If(test=t, then=a, orelse=b):
                self.emit(f"if {self.ex(t)}:{where}", depth)
                with self.outside():
                    self.stmts(a, depth + 1)
                    if b:
                        self.emit("else:", depth)
                        self.stmts(b, depth + 1)
            case ir.For(var=v, iter=it, body=b):
                self.emit(f"for {local(v)} in {self.ex(it)}:{where}", depth)
                with self.outside(), self.bound([(v, it)]):
                    self.stmts(b, depth + 1)
            case ir.Repeat(count=n, body=b):
                self._tmp += 1
                times = self.ex(n) if isinstance(fold(n), ir.Const) else (
                    f"r.times({self.ex(n)}, {MAX_REPEAT})")
                self.emit(f"for _i{self._tmp} in range({times}):{where}", depth)
                with self.outside():
                    self.stmts(b, depth + 1)
            case ir.While(test=t, limit=limit, body=b):
                self._tmp += 1
                k = f"_n{self._tmp}"
                self.emit(f"{k} = 0{where}", depth)
                self.emit(f"while {self.ex(t)}:", depth)
                self.emit(f"{k} += 1", depth + 1)
                self.emit(f"if {k} > {limit}: r.overrun({s.where.line}, {limit})", depth + 1)
                self.stmts(b, depth + 1)
            case _:
                raise AssertionError(s)

    def assign(self, t: ir.Var, op: str, v: ir.Expr, code: str) -> str:
        """`t op= v`, where `code` computes `v`: a seat variable only ever holds a seat, and
        a product is checked for size (repeated, it could grow without end)."""
        target = self.ex(t)
        if t.type == PLAYER:
            if op == "=" and self.proven(v, "player"):
                return f"{target} = {code}"
            value = code if op == "=" else f"{target} {op[0]} {code}"
            return f"{target} = r.seat({value}, P, {t.name!r})"
        if any(isinstance(x, ir.Bin) and x.op == "*" for x in ir.walk(v)):
            value = code if op == "=" else f"{target} {op[0]} {code}"
            return f"{target} = r.num({value})"
        return f"{target} {op} {code}"

    def effect(self, s: ir.Do) -> str:
        fn = s.fn
        a = [self.count(x) if i == ir.COUNT_ARG.get(fn) else self.ex(x)
             for i, x in enumerate(s.args)]
        kw = dict(s.kwargs)
        if fn in ("move", "move_top", "move_all"):
            src, dst = (s.args[1], s.args[2]) if fn == "move" else (s.args[0], s.args[1])
            sig = self.zone_decl(src).order[0] + self.zone_decl(dst).order[0]
            if fn == "move":
                n = a[3] if len(a) > 3 else "1"
                if n == "1" and sig in ("bb", "bp"):  # the common case, written out
                    put = f"{a[2]}[_k] += 1" if sig == "bb" else f"{a[2]}.append(_k)"
                    return (f"_k = {a[0]}; _s = {a[1]}\n"
                            f"if _s[_k] < 1: r.missing(_k)\n"
                            f"_s[_k] -= 1; {put}")
                return f"r.move_{sig}({a[1]}, {a[2]}, {a[0]}, {n})"
            if fn == "move_top":
                n = a[2] if len(a) > 2 else "1"
                if n == "1" and sig in ("pb", "pp"):
                    put = f"{a[1]}[_s.pop()] += 1" if sig == "pb" else f"{a[1]}.append(_s.pop())"
                    return f"_s = {a[0]}\nif not _s: r.missing_top()\n{put}"
                return f"r.top_{sig}({a[0]}, {a[1]}, {n})"
            if sig == "bb":  # no list changed (nothing copied first on the copy-on-write
                # path): into an empty bag the source's list itself moves, else a new sum
                return (f"_s = {a[0]}; _d = {a[1]}\n"
                        f"{a[1]} = list(map(add, _d, _s)) if any(_d) else _s\n"
                        f"{a[0]} = [0] * {len(self.g.kinds)}")
            keep = self.count(kw["keep"]) if "keep" in kw else "0"
            return f"r.all_{sig}({a[0]}, {a[1]}, {keep})"
        if fn == "gather":
            holds = self.zone_decl(s.args[1]).holds
            into = self._zone_index(s.args[1])
            if fold(s.args[0]) == ir.Builtin(holds, s.args[0].type):  # every kind of the class
                lo, hi = self.class_range(holds)
                return f"r.gather_all(Z, {into}, BAGS_{holds}, PILES_{holds}, {lo}, {hi})"
            kinds = a[0] if s.args[0].type.name == "list" else f"({a[0]},)"
            return f"r.gather(Z, {kinds}, {into}, BAGS_{holds}, PILES_{holds})"
        if fn == "shuffle":
            return f"ch.shuffle({a[0]})"
        if fn == "deal":
            family = cast(ir.Const, s.args[1]).value  # a family, named
            order = self.zones[family].order
            return (f"r.deal({a[0]}, Z, {self.zone_slot(family)}, P, {a[2]}, "
                    f"{order == 'pile'})")
        if fn == "pay":
            call = f"_pay({a[1]}, {a[2]}, {a[0]})"
            if s.result is not None:
                return f"{self.ex(s.result)} {s.result_op} {call}"
            return call
        if fn == "exchange":
            return f"_exchange({a[0]}, {a[1]})"
        raise AssertionError(fn)

    def mutated(self, s: ir.Do) -> list[str]:
        """The zone slots an effect changes, to copy just before it (copy on write).

        Inside actions a state's zone lists are shared with the state before; each effect
        copies the lists it is about to change. gather, pay and exchange run at round
        transitions, where every zone has already been copied.
        """
        if not self.copy_on_write or s.fn in ("gather", "pay", "exchange"):
            return []
        if s.fn == "move_all" and self.zone_decl(s.args[0]).order == "bag" == \
                self.zone_decl(s.args[1]).order:
            return []  # written as new lists (`effect`)
        if s.fn == "deal":
            family = cast(ir.Const, s.args[1]).value
            base = self.zone_slot(family)
            return [self.ex(s.args[0])] + [f"Z[{self._offset(base, ir.Const(p, PLAYER), family)}]"
                                           for p in range(self.g.players)]
        return list(dict.fromkeys(self.ex(x) for x in s.args if isinstance(x, ir.Zone)))

    def token_functions(self) -> None:
        """`_pay` and `_exchange` written out for this game's token values.

        The same arithmetic as `runtime.pay` / `runtime.exchange`, one block per
        denomination instead of a loop over them (these run for every player at the end
        of every round).
        """
        g, e = self.g, self.emit
        value = {i: k.attrs.get("value", 0) for i, k in enumerate(g.kinds)
                 if k.item_class == "tokens"}
        denoms = sorted((k for k, v in value.items() if v > 0), key=lambda k: (-value[k], k))
        e("", 0)
        e("def _pay(src, dst, left):", 0)
        for k in denoms:
            v = value[k]
            e(f"n = left // {v}" if v != 1 else "n = left", 1)
            e(f"if n > src[{k}]: n = src[{k}]", 1)
            e("if n:", 1)
            e(f"src[{k}] -= n; dst[{k}] += n; left -= n" + (f" * {v}" if v != 1 else ""), 2)
        e("return left", 1)
        e("", 0)
        e("def _exchange(zone, bank):", 0)
        body = False
        for big in denoms:
            for small in reversed(denoms):
                bv, sv = value[big], value[small]
                if sv >= bv or bv % sv:
                    continue
                need = bv // sv
                body = True
                e(f"n = zone[{small}] // {need}", 1)
                e(f"if n > bank[{big}]: n = bank[{big}]", 1)
                e("if n:", 1)
                e(f"zone[{small}] -= n * {need}; bank[{small}] += n * {need}; "
                  f"bank[{big}] -= n; zone[{big}] += n", 2)
        if not body:
            e("pass", 1)

    def _zone_index(self, z: ir.Expr) -> str:
        assert isinstance(z, ir.Zone)
        base = self.zone_slot(z.family)
        return self._offset(base, z.index, z.family) if z.index is not None else base

    def emit_return(self, init: str | None, code: str, depth: int) -> None:
        """`return code`, after the line making the context's kept parts if it has any."""
        if init is not None:
            self.emit(init, depth)
        self.emit(f"return {code}", depth)

    def condition_table(self, table: str, conds: tuple[ir.Condition, ...]) -> None:
        """`TABLE = ((name, function), ...)`: each condition alone, a lambda, or a function
        when the condition keeps a part once (it needs a line to make `_m` first)."""
        e = self.emit
        entries = []
        for j, c in enumerate(conds):
            with self.context([c.expr]) as k:
                code = self.ex(c.expr)
                if not k:
                    entries.append(f"({c.name!r}, lambda Z, V: {code}),")
                    continue
                fn = f"_{table.lower()}_{j}"
                e("", 0)
                e(f"def {fn}(Z, V):", 0)
                self.emit_return(self.memo_init(k), code, 1)
                entries.append(f"({c.name!r}, {fn}),")
        e("", 0)
        e(f"{table} = (", 0)
        for entry in entries:
            e(entry, 1)
        e(")", 0)

    def _conditions(self, name: str, conds: tuple[ir.Condition, ...]) -> None:
        self.condition_table(name.upper(), conds)
        self.emit("", 0)
        self.emit(f"def {name}(Z, V):", 0)
        self.emit_return(*self.any_condition(conds), 1)

    def any_condition(self, conds: tuple[ir.Condition, ...]) -> tuple[str | None, str]:
        """Whether any of the conditions holds, as one expression (a function's `return`),
        with the line that must come before it (the context's kept parts), if any.

        A condition is evaluated only after every earlier one, so a part that an earlier
        condition always evaluates (`in_round` in `in_round == 0`) is kept there in a name
        (`(_c0 := ...) == 0`) and later conditions read the name. The other parts the
        conditions evaluate more than once are kept at their first use (`context`); a part
        named for later conditions is never one inside those (whose code may not run).
        """
        exprs = [fold(c.expr) for c in conds]
        planned: list[list[ir.Expr]] = []
        named_so_far: dict[ir.Expr, str] = {}
        for i, x in enumerate(exprs):
            later = {n for y in exprs[i + 1:] for n in ir.walk(y)}
            shared = [n for n in _always_evaluated(x, {**self.hoisted, **named_so_far})
                      if n in later and not isinstance(n, _CHEAP) and not ir.free_locals(n)
                      and sum(1 for m in ir.walk(x) if m == n) == 1]
            planned.append(shared)
            named_so_far.update(dict.fromkeys(shared, ""))
        with self.context(exprs, exclude=named_so_far) as k:
            inside = {n for x in self.memo for n in ir.walk(x) if n != x}
            saved, parts, names = dict(self.hoisted), [], 0
            for x, shared in zip(exprs, planned, strict=True):
                shared = [n for n in shared if n not in inside]
                named = {n: f"_c{names + j}" for j, n in enumerate(shared)}
                names += len(named)
                for n in reversed(shared):  # inner parts first: an outer part's code holds theirs
                    self.hoisted[n] = f"({named[n]} := {self._ex(n)})"
                parts.append(self._ex(x))
                self.hoisted.update(named)
            self.hoisted = saved
            return self.memo_init(k), " or ".join(parts) or "False"


#: Expressions cheaper to evaluate again than to keep in a name.
_CHEAP = (ir.Const, ir.Local, ir.Builtin, ir.Var, ir.Zone)


def _always_evaluated(e: ir.Expr, named: Mapping[ir.Expr, str]) -> list[ir.Expr]:
    """`e` and the parts of it that evaluating `e` always evaluates, written in line in its
    code (operands of arithmetic, comparisons, `not`, the first operand of `and`/`or`), not
    those inside a part already `named`; outer parts first."""
    if e in named:
        return []
    out = [e]
    match e:
        case ir.Bin() | ir.Cmp() | ir.Unary():
            for c in ir.children(e):
                out += _always_evaluated(c, named)
        case ir.BoolOp(values=vs):
            out += _always_evaluated(vs[0], named)
    return out

