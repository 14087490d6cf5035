"""Symbolic evaluation of IR expressions to z3 terms over a `SymState`, with what the
concrete model would refuse (the top of an empty pile, `first` of nothing) collected as
an undefinedness condition in a `Ctx`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import z3

from model import ir
from model.fold import fold
from model.types import ref_of

from .state import Enc, Event, SymList, SymState, ZoneRef
from .terms import (
    AND,
    B2I,
    EQ,
    IMPLIES,
    ITE,
    LE,
    LT,
    NOT,
    OR,
    SUM,
    Unsupported,
    as_int,
    is_bool,
    same_term,
    simp,
    zterm,
)


@attrs.frozen
class Hidden:
    """The slots a *localized* execution forgets: before each statement, each zone
    instance in `zones` and each variable in `variables` takes a fresh, unconstrained
    value (where it changed since it was last forgotten); each zone in `coarse` keeps only
    its total (fresh counts >= 0 with the same sum, a fresh top it holds). The result
    over-approximates the transition (every concrete run is one of its runs), with far
    smaller formulas: a proof that it keeps an invariant holds for the exact transition."""

    zones: frozenset[int]
    variables: frozenset[str]
    coarse: frozenset[int] = frozenset()


class Ctx:
    """Collects, along the current path: undefinedness, chance constraints, events and
    supply shortages. `tag` names the fresh variables of one transition."""

    def __init__(self, tag: str = "x", hidden: Hidden | None = None) -> None:
        self.path: Any = True
        self.bad: list[tuple[str, Any]] = []  # (what, path and failing condition)
        self.assume: list[Any] = []
        self.events: list[Event] = []
        self.short: list[tuple[str, Any]] = []  # (site, path and shortage)
        self.tag = tag
        self._n = 0
        self.created: list[Any] = []  # fresh variables, in order
        # every effect run on a live path: (statement, how many items are known below
        # each pile's top, the bound names); see properties/symbolic/lemmas.py
        self.sites: list[tuple[ir.Do, tuple[int, ...], dict[str, Any]]] = []
        # localization (see `Hidden`): slots whose values are forgotten before each statement
        self.hidden = hidden
        self.pristine: dict[Any, Any] = {}

    @contextlib.contextmanager
    def under(self, c: Any) -> Iterator[None]:
        old = self.path
        self.path = AND(old, c)
        try:
            yield
        finally:
            self.path = old

    def fail_if(self, cond: Any, what: str) -> None:
        c = AND(self.path, cond)
        if c is not False:
            self.bad.append((what, c))

    def require(self, ok: Any, what: str) -> None:
        self.fail_if(NOT(ok), what)

    def shortage(self, site: str, zone: str, cond: Any) -> None:
        """`site` (effect@line) asks zone `zone` for more than it holds when `cond`."""
        c = AND(self.path, cond)
        if c is not False:
            fn, _, line = site.partition("@")
            self.short.append((f"{fn} from {zone} (spec line {line})", c))

    def fresh(self, what: str, boolean: bool = False,
              key: tuple[str, ...] | None = None) -> Any:
        """A fresh variable (integer, or boolean). `key` names a chance choice in words that
        do not depend on the game's layout (("reveal", "stock"), ("deal", "stock", "hand[0]",
        "3")), so that two versions of a game can share chance (queries/parting.py); here it
        is unused."""
        self._n += 1
        v = (z3.Bool if boolean else z3.Int)(f"{self.tag}.{what}{self._n}")
        self.created.append(v)
        return v

    def assume_(self, c: Any) -> None:
        c = IMPLIES(self.path, c)
        if c is not True:
            self.assume.append(c)

    def event(self, op: str, *args: Any) -> None:
        if self.path is not False:
            self.events.append(Event(self.path, op, args))

    def defined(self, prefix: str = "") -> Any:
        return NOT(OR(*[c for w, c in self.bad if w.startswith(prefix)]))

    def failing(self, prefix: str = "") -> Any:
        return OR(*[c for w, c in self.bad if w.startswith(prefix)])


# ------------------------------------------------------------------ symbolic evaluation
class Expressions:
    """Translates expressions to z3 terms over a symbolic state; `Exec` adds statements."""

    def __init__(self, enc: Enc, ctx: Ctx) -> None:
        self.enc = enc
        self.ctx = ctx

    # ---------------------------------------------------------- expressions
    def ev(self, e: ir.Expr, st: SymState, env: dict[str, Any]) -> Any:
        """The value of an expression (constant parts folded first, as the code generator does)."""
        return self._ev(fold(e), st, env)

    def _ev(self, e: ir.Expr, st: SymState, env: dict[str, Any]) -> Any:
        enc, ctx = self.enc, self.ctx
        match e:
            case ir.Const(value=v, type=t):
                if t.name == "family":
                    return v
                if isinstance(v, tuple | list):
                    return SymList(tuple((True, int(x)) for x in v))
                return enc.const(t, v)
            case ir.Var(name=n, index=None):
                return st.V[n][0]
            case ir.Var(name=n, index=ir.Expr() as i):
                return self.select(st.V[n], as_int(self._ev(i, st, env)), f"index of {n}")
            case ir.Builtin(name="players"):
                return SymList(tuple((True, p) for p in range(enc.P)))
            case ir.Builtin(name="player_count"):
                return enc.P
            case ir.Builtin(name="cards" | "tokens" as cls):
                return SymList(tuple((True, k) for k in enc.classes[cls]))
            case ir.Builtin(name=n) if n in enc.sizes:
                return SymList(tuple((True, j) for j in range(enc.sizes[n])))
            case ir.Local(name=n):
                return env[n]
            case ir.Zone(family=f, index=None):
                return ZoneRef(f, None)
            case ir.Zone(family=f, index=ir.Expr() as i):
                return ZoneRef(f, as_int(self._ev(i, st, env)))
            case ir.Attr(obj=o, attr=a) if o.type.name == "index":
                return self.table(enc.ia[(ref_of(o.type), a)], self._ev(o, st, env),
                                  f"{o.type.ref}.{a}")
            case ir.Attr(obj=o, attr=a):
                x = self._ev(o, st, env)
                if a not in enc.ka:
                    for (_, attr), table in enc.ia.items():
                        if attr == a:
                            return self.table(table, x, a)
                return self.table(enc.ka[a], x, a)
            case ir.Unary(op="not", operand=x):
                return NOT(self.truth(self._ev(x, st, env)))
            case ir.Unary(op="-", operand=x):
                return -as_int(self._ev(x, st, env))
            case ir.Bin(op="+", left=a, right=b) if e.type.name == "list":
                la, lb = self._ev(a, st, env), self._ev(b, st, env)
                return SymList(la.items + lb.items)
            case ir.Bin(op=op, left=a, right=b):
                return self.arith(op, as_int(self._ev(a, st, env)), as_int(self._ev(b, st, env)))
            case ir.Cmp(op=op, left=a, right=b):
                return self.compare(op, a, b, st, env)
            case ir.BoolOp(op="and", values=vs):
                out: list[Any] = []
                for v in vs:
                    with ctx.under(AND(*out)):
                        out.append(self.truth(self._ev(v, st, env)))
                return AND(*out)
            case ir.BoolOp(op="or", values=vs):
                out = []
                for v in vs:
                    with ctx.under(NOT(OR(*out))):
                        out.append(self.truth(self._ev(v, st, env)))
                return OR(*out)
            case ir.Cond(test=t, body=a, orelse=b):
                c = self.truth(self._ev(t, st, env))
                if c is True or c is False:
                    return self._ev(a if c else b, st, env)
                with ctx.under(c):
                    x = self._ev(a, st, env)
                with ctx.under(NOT(c)):
                    y = self._ev(b, st, env)
                if isinstance(x, SymList) or isinstance(y, SymList):
                    return self.list_ite(c, x, y)
                if is_bool(x) != is_bool(y):
                    x, y = as_int(x), as_int(y)
                return ITE(c, x, y)
            case ir.ListLit(items=items):
                return SymList(tuple((True, self._ev(x, st, env)) for x in items))
            case ir.Call():
                return self.call(e, st, env)
            case ir.Comp():
                return self.comp(e, st, env)
        raise Unsupported(f"no z3 translation for {type(e).__name__}")

    def truth(self, x: Any) -> Any:
        if is_bool(x):
            return x
        if isinstance(x, int):
            return x != 0
        if isinstance(x, z3.ArithRef):
            return x != 0
        raise Unsupported(f"cannot use {x!r} as a condition")

    def list_ite(self, c: Any, a: SymList, b: SymList) -> SymList:
        items = [(AND(c, p), v) for p, v in a.items] + [(AND(NOT(c), p), v) for p, v in b.items]
        return SymList(tuple(items))

    def select(self, values: Sequence[Any], idx: Any, what: str) -> Any:
        """values[idx] for a symbolic index; an index out of range is undefined."""
        n = len(values)
        if isinstance(idx, int):
            if not 0 <= idx < n:
                self.ctx.fail_if(True, f"undefined: {what} {idx} out of range")
                return values[0]
            return values[idx]
        self.ctx.require(AND(idx >= 0, idx < n), f"undefined: {what} out of range")
        if all(same_term(v, values[0]) for v in values):
            return values[0]
        if any(is_bool(v) for v in values) and not all(is_bool(v) for v in values):
            values = [as_int(v) for v in values]
        out = values[-1]
        for j in range(n - 2, -1, -1):
            out = ITE(EQ(idx, j), values[j], out)
        return out

    def table(self, table: Sequence[Any], x: Any, what: str) -> Any:
        """A constant table (a kind or index attribute) at a value."""
        if table and isinstance(table[0], tuple):
            # a list-valued attribute: a bounded symbolic list
            width = max(len(v) for v in table)
            items = []
            for pos in range(width):
                p = self.select([len(v) > pos for v in table], x, what)
                val = self.select([v[pos] if len(v) > pos else 0 for v in table], x, what)
                items.append((p, val))
            return SymList(tuple(items))
        return self.select(list(table), x, what)

    def arith(self, op: str, a: Any, b: Any) -> Any:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if isinstance(b, int):
            if b == 0:
                self.ctx.fail_if(True, "undefined: division by zero")
                return 0
            if isinstance(a, int):
                return a // b if op == "//" else a % b
            q = a / b if b > 0 else (-a) / (-b)
        else:
            self.ctx.require(b != 0, "undefined: division by zero")
            za = zterm(a)
            q = z3.If(b > 0, za / b, (-za) / (-b))
        if op == "//":
            return q
        if op == "%":
            return a - b * q
        raise Unsupported(f"operator {op}")

    def compare(self, op: str, a_e: ir.Expr, b_e: ir.Expr, st: SymState, env: dict) -> Any:
        a = self._ev(a_e, st, env)
        b = self._ev(b_e, st, env)
        if op in ("in", "notin"):
            if isinstance(b, ZoneRef):
                test = LT(0, self.count(st, b, as_int(a)))
            elif isinstance(b, SymList):
                test = OR(*[AND(p, EQ(v, a)) for p, v in b.items])
            else:
                raise Unsupported("'in' needs a zone or a list")
            return test if op == "in" else NOT(test)
        if isinstance(a, SymList) or isinstance(b, SymList):
            if op in ("==", "!="):
                eq = self.list_eq(a, b)
                return eq if op == "==" else NOT(eq)
            raise Unsupported("ordering comparison of lists")
        if is_bool(a) != is_bool(b) or op not in ("==", "!="):
            a, b = as_int(a), as_int(b)
        match op:
            case "==":
                return EQ(a, b)
            case "!=":
                return NOT(EQ(a, b))
            case "<":
                return LT(a, b)
            case "<=":
                return LE(a, b)
            case ">":
                return LT(b, a)
            case ">=":
                return LE(b, a)
        raise Unsupported(f"comparison {op}")

    def list_eq(self, a: SymList, b: SymList) -> Any:
        if all(p is True for p, _ in a.items + b.items):
            if len(a.items) != len(b.items):
                return False
            return AND(*[EQ(x, y) for (_, x), (_, y) in zip(a.items, b.items, strict=True)])
        raise Unsupported("comparing lists of varying length")

    # ---------------------------------------------------------- zones
    def zone_alts(self, z: ZoneRef) -> list[tuple[Any, int]]:
        """The zone instances a zone reference may denote, each with its condition."""
        enc = self.enc
        base = enc.base[z.family]
        if z.index is None:
            return [(True, base)]
        n = enc.layout.zone_count[z.family]
        idx = z.index
        if isinstance(idx, int):
            if not 0 <= idx < n:
                self.ctx.fail_if(True, f"undefined: {z.family}[{idx}] does not exist")
                return [(True, base)]
            return [(True, base + idx)]
        self.ctx.require(AND(idx >= 0, idx < n), f"undefined: {z.family}[...] out of range")
        return [(idx == j, base + j) for j in range(n)]

    def zread(self, z: ZoneRef, f: Callable[[int], Any]) -> Any:
        alts = self.zone_alts(z)
        out = f(alts[-1][1])
        for c, i in reversed(alts[:-1]):
            out = ITE(c, f(i), out)
        return out

    def kcount(self, st: SymState, i: int, k: Any) -> Any:
        """How many items of kind k (a value) lie in instance i."""
        enc = self.enc
        if isinstance(k, int):
            pos = enc.kpos[i].get(k)
            return 0 if pos is None else st.Z[i][pos]
        out: Any = 0
        for kk, c in zip(enc.inst_kinds[i], st.Z[i], strict=True):
            out = ITE(EQ(k, kk), c, out)
        return out

    def count(self, st: SymState, z: ZoneRef, k: Any = None) -> Any:
        if k is None:
            return self.zread(z, lambda i: self.enc.total(st, i))
        return self.zread(z, lambda i: self.kcount(st, i, k))

    def zone_kinds(self, st: SymState, z: ZoneRef) -> SymList:
        ks = self.enc.classes[self.enc.zdecl[z.family].holds]
        return SymList(tuple((LT(0, self.count(st, z, k)), k) for k in ks))

    def merge(self, c: Any, a: SymState, b: SymState) -> SymState:
        """The state that is `a` where `c` holds, else `b`: the executor's (`Exec.merge`),
        which the effects `on_zone` writes run in."""
        raise NotImplementedError

    def on_zone(self, st: SymState, z: ZoneRef, op: Callable[[SymState, int], SymState]
                ) -> SymState:
        """Apply `op` to the instance `z` denotes (to each possible one, merged)."""
        alts = self.zone_alts(z)
        if len(alts) == 1:
            return op(st, alts[0][1])
        out = st
        for c, i in alts:
            with self.ctx.under(c):
                s_i = op(st, i)
            out = self.merge(c, s_i, out)
        return out

    # ---------------------------------------------------------- calls
    def call(self, e: ir.Call, st: SymState, env: dict) -> Any:
        fn, args, ctx, enc = e.fn, e.args, self.ctx, self.enc
        if fn in ("count", "empty", "kinds", "top", "lowest", "highest", "worth"):
            z = self._ev(args[0], st, env)
            if fn == "count" and len(args) == 2:
                return self.count(st, z, as_int(self._ev(args[1], st, env)))
            if fn == "count":
                return self.count(st, z)
            if fn == "empty":
                return EQ(self.count(st, z), 0)
            if fn == "top":
                ctx.require(LT(0, self.count(st, z)), "undefined: top() of an empty pile")
                return self.zread(z, lambda i: st.T[i])
            if fn == "kinds":
                return self.zone_kinds(st, z)
            assert e.attr is not None, f"{fn} names an attribute"
            table = enc.ka[e.attr]
            ks = enc.classes[enc.zdecl[z.family].holds]
            if fn == "worth":
                return SUM([self.count(st, z, k) * table[k] for k in ks if table[k]])
            order = sorted(ks, key=lambda k: (table[k], k)) if fn == "lowest" else \
                sorted(ks, key=lambda k: (-table[k], k))
            present = SymList(tuple((LT(0, self.count(st, z, k)), k) for k in order))
            return self.first_of(present, None, f"{fn}() of an empty zone")
        if fn == "after":
            p = as_int(self._ev(args[0], st, env))
            P = enc.P
            d = as_int(self._ev(args[1], st, env)) if len(args) > 1 else 1
            items = []
            for i in range(1, P + 1):
                fwd, back = (p + i) % P, (p - i) % P
                v = (fwd if d >= 0 else back) if isinstance(d, int) else ITE(d >= 0, fwd, back)
                items.append((True, v))
            return SymList(tuple(items))
        if fn == "range":
            a, b = simp(as_int(self._ev(args[0], st, env))), simp(as_int(self._ev(args[1], st, env)))
            if not (isinstance(a, int) and isinstance(b, int)):
                raise Unsupported("range() with bounds that are not constant")
            return SymList(tuple((True, x) for x in range(a, b)))
        if fn == "abs":
            x = as_int(self._ev(args[0], st, env))
            return abs(x) if isinstance(x, int) else ITE(x < 0, -x, x)
        lst = self._ev(args[0], st, env)
        default = self._ev(args[1], st, env) if len(args) > 1 else None
        return self.reduce(fn, lst, default)

    def reduce(self, fn: str, lst: SymList, default: Any) -> Any:
        items = lst.items
        if fn in ("len", "count"):
            return SUM([B2I(p) for p, _ in items])
        if fn == "sum":
            return SUM([ITE(p, as_int(v), 0) for p, v in items])
        if fn == "any":
            return OR(*[AND(p, self.truth(v)) for p, v in items])
        if fn == "all":
            return AND(*[IMPLIES(p, self.truth(v)) for p, v in items])
        if fn == "first":
            return self.first_of(lst, default, "first() of nothing")
        if fn in ("min", "max"):
            if default is None:
                self.ctx.require(OR(*[p for p, _ in items]), f"undefined: {fn}() of nothing")
            acc = as_int(default) if default is not None else 0
            seen: Any = False
            for p, v in items:
                v = as_int(v)
                better = LT(v, acc) if fn == "min" else LT(acc, v)
                acc = ITE(AND(p, OR(NOT(seen), better)), v, acc)
                seen = OR(seen, p)
            return acc
        if fn == "distinct":
            return self.distinct(lst)
        raise Unsupported(f"function {fn}")

    def first_of(self, lst: SymList, default: Any, what: str) -> Any:
        if default is None:
            self.ctx.require(OR(*[p for p, _ in lst.items]), f"undefined: {what}")
        if not lst.items:
            return default if default is not None else 0
        out = default if default is not None else lst.items[-1][1]
        for p, v in reversed(lst.items):
            if is_bool(out) != is_bool(v):
                out, v = as_int(out), as_int(v)
            out = ITE(p, v, out)
        return out

    def distinct(self, lst: SymList) -> SymList:
        out = []
        for i, (p, v) in enumerate(lst.items):
            dup = []
            for q, w in lst.items[:i]:
                same = EQ(v, w)
                if same is False:
                    continue
                dup.append(AND(q, same))
            out.append((AND(p, NOT(OR(*dup))), v))
        return SymList(tuple(out))

    def comp(self, e: ir.Comp, st: SymState, env: dict) -> Any:
        combos: list[tuple[Any, dict]] = [(True, env)]
        for g in e.gens:
            new = []
            for pres, en in combos:
                with self.ctx.under(pres):
                    it = self._ev(g.iter, st, en)
                if isinstance(it, ZoneRef):
                    it = self.zone_kinds(st, it)
                for p_i, v_i in it.items:
                    en2 = {**en, g.var: v_i}
                    pr = AND(pres, p_i)
                    for c in g.conds:
                        if pr is False:
                            break
                        with self.ctx.under(pr):
                            pr = AND(pr, self.truth(self._ev(c, st, en2)))
                    # absent slots stay: the shape of a list must not depend on the state
                    new.append((pr, en2))
            combos = new
        items = []
        for pr, en in combos:
            if pr is False:
                items.append((False, 0))
                continue
            with self.ctx.under(pr):
                items.append((pr, self._ev(e.elt, st, en)))
        lst = SymList(tuple(items))
        if e.fn == "list":
            return lst
        default = self._ev(e.default, st, env) if e.default is not None else None
        return self.reduce(e.fn, lst, default)
