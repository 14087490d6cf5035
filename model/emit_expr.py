"""The code generator's expressions: an IR expression written as Python (`ExprEmitter`),
with the emitter's state, what is proven about indexes and seats (so that only the rest
is checked as the game runs), the parts kept once per evaluation context, unrolled and
table-driven comprehensions, and the kind and class tables they read.

Part of the code generator (`model/codegen.py`), below statements (`emit_stmt`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from typing import cast

from . import ir, work
from .emit_layout import Layout, global_name, local
from .errors import SpecError, Where
from .fold import fold, substitute
from .limits import MAX_RANGE
from .types import ANY, PLAYER, Type, ref_of

#: The precedence level of each arithmetic operator, for writing chains out (`_chain`).
_LEVEL = {"+": "+", "-": "+", "*": "*", "//": "*", "%": "*"}
#: Most IR nodes a written-out (unrolled) comprehension may repeat, to keep code small.
MAX_UNROLLED_NODES = 400


class ExprEmitter:
    """Turns IR expressions into Python source text for one game; holds the emitter's state."""

    def __init__(self, g: ir.GameIR, readable: bool = False):
        self.g = g
        self.layout = Layout.of(g)
        # the form a designer reads (`rulespec show-code`): slots named by the spec's names,
        # citations in the comments, no playout loop; the default is the form that runs
        self.readable = readable
        self.zones = {z.name: z for z in g.zones}
        self.lines: list[str] = []
        self._tmp = 0
        self.hoisted: dict[ir.Expr, str] = {}
        self.copy_on_write = False
        self.depth0 = 0  # extra indentation of the legal-move code (inside `playout`)
        self.playout_mode = False
        # action -> (its parameter's guard, the kind table of it, the table's root)
        self.match_tables: dict[int, tuple[ir.Expr, str, ir.Expr]] = {}
        self.kind_tables: dict[str, str] = {}  # a table's code -> its name
        self.table_lines: list[str] = []  # the tables, emitted at the end of the module
        self.class_tables: set[str] = set()  # names of the tables `class_table` emitted
        self.per = {z.name: z.per for z in g.zones} | {v.name: v.per for v in g.vars}
        self.sizes = {ix.name: ix.size for ix in g.indices} | {"player": g.players}
        self.var_types = {v.name: v.type for v in g.vars} | {
            "active": PLAYER, "last_actor": PLAYER}
        self.members: dict[str, str | None] = {}  # local -> the family it is a member of
        # the parts of the evaluation context being written that are kept once (`context`)
        self.bounds = work.Bounds(g)
        self.memo: dict[ir.Expr, int] = {}  # part -> its slot in `_m`
        self.memo_bound: frozenset[str] = frozenset()  # names the context's loops bind here
        self.uses_memo = False

    # ----------------------------------------------------------- ranges
    @staticmethod
    def family(t: Type | None) -> str | None:
        """The range a value of type `t` must lie in: 'player', an index set, or None."""
        if t is None:
            return None
        if t.name == "player":
            return "player"
        return t.ref if t.name == "index" else None

    def proven(self, e: ir.Expr, family: str) -> bool:
        """Whether `e` (folded) is certainly a member of `family` (a seat, an index)."""
        match e:
            case ir.Const(value=int() as v) if not isinstance(v, bool):
                return 0 <= v < self.sizes[family]
            case ir.Var(name=n) if family == "player":
                return self.var_types.get(n) == PLAYER
            case ir.Local(name=n):
                return self.members.get(n) == family
            case ir.Cond(body=a, orelse=b):
                return self.proven(a, family) and self.proven(b, family)
            case ir.Call(fn="first" | "min" | "max", args=args):
                return self.members_of(args[0], family) and all(
                    self.proven(x, family) for x in args[1:])
            case ir.Comp(fn="first" | "min" | "max", elt=elt, gens=gens, default=d):
                with self.bound(gens):
                    inside = self.proven(elt, family)
                return inside and (d is None or self.proven(d, family))
        return False

    def members_of(self, e: ir.Expr, family: str) -> bool:
        """Whether every element of the list `e` is certainly a member of `family`."""
        match e:
            case ir.Builtin(name="players"):
                return family == "player"
            case ir.Builtin(name=n) if n in self.sizes:
                return family == n
            case ir.Call(fn="after"):
                return family == "player"
            case ir.Call(fn="distinct", args=(x,)):
                return self.members_of(x, family)
            case ir.Comp(fn="list" | "distinct", elt=elt, gens=gens):
                with self.bound(gens):
                    return self.proven(elt, family)
            case ir.ListLit(items=items):
                return all(self.proven(fold(x), family) for x in items)
            case ir.Bin(op="+", left=a, right=b) | ir.Cond(body=a, orelse=b):
                return self.members_of(a, family) and self.members_of(b, family)
        return False

    @contextlib.contextmanager
    def bound(self, gens: Iterable[ir.Gen | tuple[str, ir.Expr]]) -> Iterator[None]:
        """Within: each generator's variable is known to be a member of its list's family
        when the list is made of such members (else known to be nothing)."""
        saved, saved_bound = dict(self.members), self.memo_bound
        for g in gens:
            var, it = (g.var, g.iter) if isinstance(g, ir.Gen) else g
            it = fold(it)
            fam = self.family(it.type.of) if it.type.name == "list" else None
            if var in ir.free_locals(it):  # `for p in after(p)`: two p's; trust neither
                fam = None
            self.members[var] = fam if fam is not None and self.members_of(it, fam) else None
            if self.memo:
                self.memo_bound = self.memo_bound | {var}
        try:
            yield
        finally:
            self.members, self.memo_bound = saved, saved_bound

    @contextlib.contextmanager
    def context(self, exprs: Iterable[ir.Expr], exclude: Iterable[ir.Expr] = ()
                ) -> Iterator[int]:
        """Within: the expressions of one evaluation context are being written, and the
        parts `work.Bounds.plan` keeps once (less `exclude`) are kept, each in a slot of a
        list `_m` that the caller makes (`_m = [NO] * n`, n given by the `with`), at its first
        use. The work bound counts exactly these once."""
        left_out = set(exclude)
        plan = [x for x in self.bounds.plan(fold(e) for e in exprs)
                if x not in left_out and not self.readable]  # readable: each part as written
        saved = self.memo, self.memo_bound
        self.memo, self.memo_bound = {x: i for i, x in enumerate(plan)}, frozenset()
        if plan:
            self.uses_memo = True
        try:
            yield len(plan)
        finally:
            self.memo, self.memo_bound = saved

    @contextlib.contextmanager
    def outside(self) -> Iterator[None]:
        """Within: no evaluation context (the statements inside a statement are written)."""
        saved = self.memo, self.memo_bound
        self.memo, self.memo_bound = {}, frozenset()
        try:
            yield
        finally:
            self.memo, self.memo_bound = saved

    def memo_init(self, n: int) -> str | None:
        return f"_m = [NO] * {n}" if n else None

    def kept(self, e: ir.Expr) -> str | None:
        """The code of `e` as a kept part (its slot if computed, else computed and kept),
        if `e` is kept in the context being written and reads no name a loop of the
        context binds here; else None."""
        slot = self.memo.get(e)
        if slot is None or ir.free_locals(e) & self.memo_bound:
            return None
        del self.memo[e]
        try:
            code = self._ex(e)
        finally:
            self.memo[e] = slot
        return f"(_m[{slot}] if _m[{slot}] is not NO else r.keep(_m, {slot}, {code}))"

    def index(self, e: ir.Expr, family: str, what: str) -> str:
        """Code for the index `e` of a `family`: as it is where it is provably in range, else
        checked (`r.at` raises ModelError). `what` names the family in the message."""
        e = fold(e)
        if self.proven(e, family):
            return self._ex(e)
        return f"r.at({self._ex(e)}, {self.sizes[family]}, {what!r})"

    def seat(self, e: ir.Expr, what: str) -> str:
        """Code for a value stored in a seat variable: checked unless provably a seat."""
        e = fold(e)
        if self.proven(e, "player"):
            return self._ex(e)
        return f"r.seat({self._ex(e)}, P, {what!r})"

    def count(self, e: ir.Expr) -> str:
        """A count of items (or an amount): a number known now was checked by the loader;
        one computed in play is checked then (`r.count`), unless it cannot be negative."""
        e = fold(e)
        return self._ex(e) if self.nonnegative(e) else f"r.count({self._ex(e)})"

    def nonnegative(self, e: ir.Expr) -> bool:
        """Whether `e` (folded) is certainly a number >= 0: a count, a sum of attribute
        values that are all >= 0, and such."""
        match e:
            case ir.Const(value=int() as v):
                return v >= 0
            case ir.Attr(obj=o, attr=a) if o.type.name == "kind" and e.type.name == "int":
                return all(k.attrs.get(a, 0) >= 0 for k in self.g.kinds)
            case ir.Call(fn="count" | "len"):
                return True
            case ir.Call(fn="sum", args=(ir.Comp(elt=elt),)):
                return self.nonnegative(elt)
            case ir.Call(fn="worth", attr=str() as a):
                return all(k.attrs.get(a, 0) >= 0 for k in self.g.kinds)
            case ir.Comp(fn="count"):
                return True
            case ir.Comp(fn="sum" | "min" | "max" | "first", elt=elt, default=d):
                return self.nonnegative(elt) and (d is None or self.nonnegative(d))
            case ir.Bin(op="+" | "*", left=a, right=b):
                return e.type.name == "int" and self.nonnegative(a) and self.nonnegative(b)
            case ir.Cond(body=a, orelse=b):
                return self.nonnegative(a) and self.nonnegative(b)
        return False

    # ------------------------------------------------------------ expressions
    def class_range(self, holds: str) -> tuple[int, int]:
        """The kind numbers of a class, lo to hi - 1 (cards are declared before tokens, so
        each class is a run)."""
        kinds = [k for k, kind in enumerate(self.g.kinds) if kind.item_class == holds]
        if not kinds:
            return 0, 0
        assert kinds == list(range(kinds[0], kinds[-1] + 1)), holds
        return kinds[0], kinds[-1] + 1

    def zone_decl(self, e: ir.Expr) -> ir.ZoneDecl:
        return self.zones[ref_of(e.type)]

    def ex(self, e: ir.Expr) -> str:
        """Python source for an expression (constant parts folded first)."""
        return self._ex(fold(e))

    def _ex(self, e: ir.Expr) -> str:
        hoisted = self.hoisted.get(e)
        if hoisted is not None:
            return hoisted
        if self.memo:
            kept = self.kept(e)
            if kept is not None:
                return kept
        match e:
            case ir.Const(value=v):
                return repr(v)
            case ir.Var(name=n, index=None):
                return f"V[{self.var_slot(n)}]"
            case ir.Var(name=n, index=ir.Expr() as i):
                return f"V[{self._offset(self.var_slot(n), i, n)}]"
            case ir.Builtin(name="players"):
                return "PLAYERS"
            case ir.Builtin(name="player_count"):
                return "P"
            case ir.Builtin(name="cards"):
                return "CARDS"
            case ir.Builtin(name="tokens"):
                return "TOKENS"
            case ir.Builtin(name=n):
                return global_name("IX_", n)
            case ir.Local(name=n):
                return f"{local(n)}"
            case ir.Zone(family=f, index=None):
                return f"Z[{self.zone_slot(f)}]"
            case ir.Zone(family=f, index=ir.Expr() as i):
                return f"Z[{self._offset(self.zone_slot(f), i, f)}]"
            case ir.Attr(obj=o, attr=a) if o.type.name == "index":
                table = global_name("IA_", ref_of(o.type), a)
                return f"{table}[{self.index(o, ref_of(o.type), ref_of(o.type))}]"
            case ir.Attr(obj=o, attr=a):
                return f"{global_name('KA_', a)}[{self._ex(o)}]"
            case ir.Unary(op="not", operand=x):
                return f"(not {self._ex(x)})"
            case ir.Unary(op="-", operand=x):
                return f"(-{self._ex(x)})"
            case ir.Bin(op="+", left=a, right=b) if e.type.name == "list":
                return f"[*{self._ex(a)}, *{self._ex(b)}]"
            case ir.Bin(op="//" | "%", left=a, right=b) if not (
                    isinstance(b, ir.Const) and b.value):
                fn = "div" if e.op == "//" else "mod"
                return f"r.{fn}({self._ex(a)}, {self._ex(b)})"
            case ir.Bin():
                return self._chain(e)
            case ir.Cmp(op=op, left=a, right=b) if op in ("in", "notin"):
                if b.type.name == "zone":
                    z = self.zone_decl(b)
                    test = (f"({self._ex(b)}[{self._ex(a)}] > 0)" if z.order == "bag"
                            else f"({self._ex(a)} in {self._ex(b)})")
                else:
                    test = f"({self._ex(a)} in {self._ex(b)})"
                return test if op == "in" else f"(not {test})"
            case ir.Cmp(op=op, left=a, right=b):
                return f"({self._ex(a)} {op} {self._ex(b)})"
            case ir.BoolOp(op=op, values=vs):
                return "(" + f" {op} ".join(self._ex(v) for v in vs) + ")"
            case ir.Cond(test=t, body=a, orelse=b):
                return f"({self._ex(a)} if {self._ex(t)} else {self._ex(b)})"
            case ir.ListLit(items=items):
                return "(" + "".join(self._ex(i) + ", " for i in items) + ")"
            case ir.Call():
                return self.call(e)
            case ir.Comp():
                return self.comp(e)
        raise AssertionError(f"no code for {e!r}")

    def _chain(self, e: ir.Bin) -> str:
        """`a + b - c` as Python writes it, one pair of parentheses around the whole chain:
        a left-associated chain of + - (or of *) needs no more, and Python's parser
        refuses code nested 200 parentheses deep (a spec's chain may be `max_expr_chain`
        long)."""
        links: list[tuple[str, ir.Expr]] = []
        left: ir.Expr = e
        while isinstance(left, ir.Bin) and left.type.name == "int" and (
                _LEVEL.get(left.op, left.op) == _LEVEL.get(e.op, e.op)) and not (
                left.op in ("//", "%") and not (isinstance(left.right, ir.Const)
                                                and left.right.value)):
            links.append((left.op, left.right))
            left = left.left
        return "(" + self._ex(left) + "".join(f" {op} {self._ex(b)}"
                                              for op, b in reversed(links)) + ")"

    def zone_slot(self, family: str) -> str:
        """Where zone `family` (its first instance) lives in `Z`: a number, or in the
        readable form the name `ZONE_<family>` the module defines."""
        if self.readable:
            return global_name("ZONE_", family)
        return str(self.layout.zone_base[family])

    def var_slot(self, name: str) -> str:
        """Where variable `name` (its first instance) lives in `V`, as `zone_slot`."""
        if self.readable:
            return global_name("VAR_", name)
        return str(self.layout.var_base[name])

    def _offset(self, base: str, index: ir.Expr, name: str) -> str:
        """The slot of `name[index]`: `base` (a `zone_slot` or `var_slot`) plus the index,
        checked unless provably in range."""
        index = fold(index)
        family = self.per[name] or "player"
        if isinstance(index, ir.Const):
            if not 0 <= index.value < self.sizes[family]:
                # the spec's mistake, not ours: an index that is a constant only once the
                # player count is known (hand[p + 1] for the last seat p) runs past the end
                raise SpecError(Where(self.g.file), f"{name}[...] reaches {name}[{index.value}] "
                                f"with {self.g.players} players, out of range (the index must "
                                f"be 0 to {self.sizes[family] - 1})")
            if self.readable:
                return f"{base} + {index.value}" if index.value else base
            return str(int(base) + index.value)
        code = self.index(index, family, name)
        return f"{base} + {code}" if base != "0" else code

    def call(self, e: ir.Call) -> str:
        fn, args = e.fn, e.args
        a = [self._ex(x) for x in args]
        if fn in ("count", "empty", "kinds", "top", "lowest", "highest", "worth"):
            z = self.zone_decl(args[0])
            bag = z.order == "bag"
            if fn == "count" and len(args) == 2:
                return f"{a[0]}[{a[1]}]" if bag else f"{a[0]}.count({a[1]})"
            if fn == "count":
                return f"sum({a[0]})" if bag else f"len({a[0]})"
            if fn == "empty":
                return f"(not any({a[0]}))" if bag else f"(not {a[0]})"
            if fn == "kinds":
                return (f"[_k for _z in ({a[0]},) for _k in {z.holds.upper()} if _z[_k]]" if bag
                        else f"r.pile_kinds({a[0]})")
            if fn == "top":  # r.top raises ModelError for an empty pile
                return f"({a[0]} or r.top({a[0]}))[-1]"
            attr = e.attr
            assert attr is not None, f"{fn} names an attribute"
            table = global_name("KA_", attr)
            kinds_of = f"r.kinds({a[0]})" if bag else f"r.pile_kinds({a[0]})"
            if fn == "worth":
                if not bag:
                    return f"sum({table}[k] for k in {a[0]})"
                return self.bag_worth(a[0], attr) or f"sum(map(mul, {a[0]}, {table}))"
            return f"r.{fn}({kinds_of}, {table})"
        if fn == "after":
            d = fold(args[1]) if len(args) > 1 else ir.Const(1, args[0].type)
            seat = self.index(args[0], "player", "after")
            if isinstance(d, ir.Const):
                return f"{'AFTER' if d.value >= 0 else 'BEFORE'}[{seat}]"
            return f"(AFTER if {a[1]} >= 0 else BEFORE)[{seat}]"
        if fn == "first":
            return f"r.first({a[0]}, {a[1]})" if len(a) > 1 else f"r.first({a[0]})"
        if fn in ("min", "max"):
            return f"r.{fn}_of({', '.join(a)})"
        if fn == "distinct":
            return f"tuple(dict.fromkeys({a[0]}))"
        if fn == "range":
            lo, hi = fold(args[0]), fold(args[1])
            if isinstance(lo, ir.Const) and isinstance(hi, ir.Const):  # its length was checked
                return f"tuple(range({a[0]}, {a[1]}))"
            return f"r.span({a[0]}, {a[1]}, {MAX_RANGE})"
        if fn == "sum" and isinstance(args[0], ir.Comp) and args[0].fn == "distinct":
            d = args[0]  # the order of distinct values does not matter to their sum
            if self.distinct_anyway(d):
                return self.comp(ir.Comp("sum", d.elt, d.gens, d.type), True)
            return f"sum({{{self.comp(ir.Comp('list', d.elt, d.gens, d.type), True)[1:-1]}}})"
        if fn in ("len", "sum", "any", "all", "abs"):
            return f"{fn}({a[0]})"
        raise AssertionError(fn)

    def distinct_anyway(self, d: ir.Comp) -> bool:
        """Whether `distinct(k.attr for k in kinds(a) + kinds(b))`, read in any order, holds
        no value twice without a set: each kind present once (`_present`), and no two
        kinds of the class alike in the attribute."""
        attr = _kind_attribute(d)
        bags = None if attr is None else self.bag_union(d.gens[0].iter)
        if attr is None or bags is None:
            return False
        lo, hi = self.class_range(bags[0])
        values = [self.g.kinds[k].attrs[attr] for k in range(lo, hi)]
        return all(a != b for i, a in enumerate(values) for b in values[i + 1:])

    def bag_worth(self, zone: str, attr: str) -> str | None:
        """`worth(bag)` written out over the few kinds worth something (chips of 1 and
        10: `(Z[11][7] + Z[11][8] * 10)`), 350 ns faster than `sum(map(mul, ...))` over
        every kind; None when more than three kinds are worth something."""
        values = [(k, kind.attrs.get(attr, 0)) for k, kind in enumerate(self.g.kinds)]
        if not all(type(v) is int for _, v in values):
            return None
        terms = [f"{zone}[{k}]" + ("" if v == 1 else f" * {v!r}") for k, v in values if v]
        if len(terms) > 3:
            return None
        return "(" + " + ".join(terms) + ")" if terms else "0"

    def first_loop(self, v: ir.Expr) -> bool:
        """Whether `x = v` can be written as a `for` statement: `v` is a `first(...)` of one
        generator with a default, whose variable names no local in scope (a Python `for`
        statement, unlike a generator, would overwrite it)."""
        return (isinstance(v, ir.Comp) and v.fn == "first" and len(v.gens) == 1
                and v.default is not None and v.gens[0].var not in self.members)

    def bag_union(self, it: ir.Expr) -> tuple[str, list[ir.Expr]] | None:
        """`kinds(a) + kinds(b)` over bags of one class, where order and repeats do not matter."""
        parts: list[ir.Expr] = []
        stack = [fold(it)]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Bin) and x.op == "+":
                stack += [x.right, x.left]
            elif (isinstance(x, ir.Call) and x.fn == "kinds"
                  and self.zone_decl(x.args[0]).order == "bag"):
                parts.append(x.args[0])
            else:
                return None
        holds = {self.zone_decl(z).holds for z in parts}
        return (holds.pop(), parts) if len(holds) == 1 else None

    def constant_items(self, it: ir.Expr) -> list[ir.Expr] | None:
        """The elements of a list known when the game is compiled (players, an index set)."""
        if isinstance(it, ir.Builtin) and it.name == "players":
            return [ir.Const(p, it.type.of or ANY) for p in range(self.g.players)]
        if isinstance(it, ir.Builtin) and it.name in {ix.name for ix in self.g.indices}:
            size = next(ix.size for ix in self.g.indices if ix.name == it.name)
            return [ir.Const(i, it.type.of or ANY) for i in range(size)]
        if isinstance(it, ir.ListLit):
            return list(it.items)
        return None

    def unrolled(self, e: ir.Comp) -> str | None:
        """A one-generator any/all/sum/count/min/max over a constant list, written out.

        `sum(1 for p in players if not quit[p])` becomes `(not V[3]) + (not V[4]) + ...`:
        no generator object, no loop, and constant parts fold away.
        """
        if self.readable or len(e.gens) != 1 or e.fn not in ("any", "all", "sum", "count", "min",
                                                             "max"):
            return None
        g = e.gens[0]
        items = self.constant_items(g.iter)
        if items is None or not 0 < len(items) <= 8:
            return None
        size = sum(1 for _ in ir.walk(e.elt)) + sum(1 for c in g.conds for _ in ir.walk(c))
        if size * len(items) > MAX_UNROLLED_NODES:
            return None
        if e.fn in ("min", "max") and (g.conds or e.default is not None):
            return None
        terms = []
        for item in items:
            elt = fold(substitute(e.elt, g.var, item))
            conds = [fold(substitute(c, g.var, item)) for c in g.conds]
            cond = (conds[0] if len(conds) == 1 else ir.BoolOp("and", tuple(conds), conds[0].type)
                    if conds else None)
            if cond is not None and isinstance(cond, ir.Const):
                if not cond.value:
                    continue
                cond = None
            if e.fn == "count":
                terms.append(self._ex(cond) if cond is not None else "1")
            elif e.fn == "sum":
                terms.append(f"({self._ex(elt)} if {self._ex(cond)} else 0)" if cond is not None
                             else self._ex(elt))
            elif e.fn in ("any", "all"):
                x = self._ex(elt)
                if cond is not None:
                    x = (f"({self._ex(cond)} and {x})" if e.fn == "any"
                         else f"(not {self._ex(cond)} or {x})")
                terms.append(x)
            else:
                terms.append(self._ex(elt))
        if e.fn in ("sum", "count"):
            return "(" + " + ".join(terms) + ")" if terms else "0"
        if e.fn == "any":
            return "(" + " or ".join(terms) + ")" if terms else "False"
        if e.fn == "all":
            return "(" + " and ".join(terms) + ")" if terms else "True"
        return f"{e.fn}({', '.join(terms)})" if len(terms) > 1 else terms[0]

    def comp(self, e: ir.Comp, order_free: bool = False) -> str:
        unrolled = self.unrolled(e)
        if unrolled is not None:
            return unrolled
        # the default is evaluated outside the generators, so before binding their names
        default = self._ex(e.default) if e.default is not None else None
        with self.bound(e.gens):
            code = self._comp(e, order_free, default)
            return self.any_by_table(e, code) or code

    def any_by_table(self, e: ir.Comp, plain: str) -> str | None:
        """`any(test(k) for k in kinds(bag))`, where `test` reads only `k` and the top of a
        pile, as a look-up of the kinds a kind table allows for that top, those in the bag;
        `plain` (the comprehension as written) where the table has no entry."""
        if e.fn != "any" or len(e.gens) != 1:
            return None
        g = e.gens[0]
        it = fold(g.iter)
        if not (isinstance(it, ir.Call) and it.fn == "kinds"
                and self.zone_decl(it.args[0]).order == "bag"):
            return None
        parts = (*g.conds, e.elt)
        test = fold(parts[0] if len(parts) == 1 else ir.BoolOp("and", parts, e.elt.type))
        found = self.kind_table(g.var, self.zone_decl(it.args[0]).holds, test)
        if found is None:
            return None
        name, root = found
        pile = self._ex(cast(ir.Call, root).args[0])  # top(a pile)
        entry = f"{name}[{pile}[-1] if {pile} else {len(self.g.kinds)}]"
        return (f"(any(map({self._ex(it.args[0])}.__getitem__, {entry})) "
                f"if {entry} is not None else {plain})")

    def class_table(self, attr: str, holds: str) -> str:
        """The name of a kind attribute's table cut to the kinds of one class (`KC_cards__points
        = KA_points[0:7]`), emitted at the end of the module the first time it is asked for."""
        name = global_name("KC_", holds, attr)
        if name not in self.class_tables:
            lo, hi = self.class_range(holds)
            self.class_tables.add(name)
            self.table_lines += ["", f"{name} = {global_name('KA_', attr)}[{lo}:{hi}]"]
        return name

    def _iterable(self, g: ir.Gen, order_free: bool) -> str:
        """What a generator loops over; where order and repeats do not matter, the kinds
        present in any of a union of bags, at C speed."""
        present = self._present(g, order_free)
        if present is None:
            return self._ex(g.iter)
        return f"compress({present[0].upper()}, {present[1]})"

    def _present(self, g: ir.Gen, order_free: bool) -> tuple[str, str] | None:
        """For a generator over a union of bags where order and repeats do not matter: the
        class and an iterable, per kind of the class, of whether any of the bags holds it."""
        bags = self.bag_union(g.iter) if order_free else None
        if bags is None:
            return None
        holds, zones = bags
        lo, hi = self.class_range(holds)
        cut = "" if lo == 0 else f"[{lo}:{hi}]"
        present = [f"{self._ex(z)}{cut}" for z in zones]
        while len(present) > 1:
            present[:2] = [f"map(or_, {present[0]}, {present[1]})"]
        return holds, present[0]

    def _comp(self, e: ir.Comp, order_free: bool, default: str | None) -> str:
        order_free = order_free or e.fn in ("any", "all", "min", "max")
        loops = []
        for g in e.gens:
            loops.append(f"for {local(g.var)} in {self._iterable(g, order_free)}")
            loops.extend(f"if {self._ex(c)}" for c in g.conds)
        g = e.gens[0]
        attr = _kind_attribute(e)
        if attr is not None and e.fn in ("list", "sum", "any", "all"):
            # an attribute of each element: a map over the attribute's table, at C speed;
            # over the kinds present in bags, the class's slice of the table, compressed
            present = self._present(g, order_free)
            if present is not None:
                mapped = f"compress({self.class_table(attr, present[0])}, {present[1]})"
            else:
                mapped = (f"map({global_name('KA_', attr)}.__getitem__, "
                          f"{self._iterable(g, order_free)})")
            return f"[*{mapped}]" if e.fn == "list" else f"{e.fn}({mapped})"
        body = " ".join(loops)
        elt = self._ex(e.elt)
        gen = f"{elt} {body}"
        match e.fn:
            case "list":
                return f"[{gen}]"
            case "distinct":
                return f"tuple(dict.fromkeys({gen}))"
            case "any" | "all" | "sum":
                return f"{e.fn}({gen})"
            case "count":
                return f"sum(1 {body})"
            case "first":
                return (f"next(({gen}), {default})" if default is not None
                        else f"r.first(({gen}))")
            case "min" | "max":
                return (f"r.{e.fn}_of(({gen}), {default})" if default is not None
                        else f"r.{e.fn}_of(({gen}))")
        raise AssertionError(e.fn)

    def kind_table(self, var: str, holds: str, test: ir.Expr) -> tuple[str, ir.Expr] | None:
        """A table of the kinds `var` of class `holds` for which `test` holds, per kind on
        top of the one pile `test` reads (its root: `top(discard)`, say); with the table's
        name and the root, or None if `test` reads more than that.

        `test` (folded) may read only `var`, constants and the root. The table has an entry
        per kind (None where `test` raises) and a last entry None (for an empty pile). Loops
        then try the few kinds the entry names instead of every kind.
        """
        if self.readable or ir.free_locals(test) - {var}:
            return None
        saved_memo, self.memo = self.memo, {}  # a table is written outside any context
        try:
            return self._kind_table(var, holds, test)
        finally:
            self.memo = saved_memo

    def _kind_table(self, var: str, holds: str, test: ir.Expr) -> tuple[str, ir.Expr] | None:
        hoist: list[ir.Expr] = []
        _collect_hoistable(test, hoist)
        shared = [n for n in _calls_in(hoist) if sum(
            1 for h in hoist for x in ir.walk(h) if x == n) > 1 and n not in hoist]
        hoist = [fold(h) for h in shared + hoist]
        root = hoist[0] if hoist else None
        if not (isinstance(root, ir.Call) and root.fn == "top"):  # a kind, or an empty pile
            return None
        # each later hoisted part, and the test, is a function of the root alone
        if any(_reads_state(h, set(hoist[:j])) for j, h in enumerate(hoist[1:], 1)) or \
                _reads_state(test, set(hoist)):
            return None
        saved, self.hoisted = self.hoisted, {hoist[0]: "_h0"}
        body = []
        for j, h in enumerate(hoist[1:], 1):
            body.append(f"        _h{j} = {self._ex(h)}")
            self.hoisted[h] = f"_h{j}"
        v = local(var)
        body.append(f"        return tuple({v} for {v} in {holds.upper()} if {self._ex(test)})")
        self.hoisted = saved
        # two tests written alike share a table, whatever their variable is called (no spec
        # name starts with '_', so '_v' stands for no other name)
        key = re.sub(rf"\b{re.escape(v)}\b", "_v", "\n".join(body))
        if key not in self.kind_tables:
            name = self.kind_tables[key] = f"KIND_TABLE_{len(self.kind_tables)}"
            self.table_lines += [
                "", f"def _{name.lower()}(_h0):", "    try:", *body,
                "    except (r.ModelError, IndexError, TypeError):", "        return None",
                f"{name} = (*(_{name.lower()}(_k) for _k in range({len(self.g.kinds)})), None)"]
        return self.kind_tables[key], hoist[0]


def _kind_attribute(e: ir.Comp) -> str | None:
    """The attribute a comprehension reads of each kind it loops over, with no condition
    (`k.points for k in kinds(hand)`), or None."""
    g = e.gens[0]
    if (len(e.gens) == 1 and not g.conds and isinstance(e.elt, ir.Attr)
            and e.elt.obj == ir.Local(g.var, e.elt.obj.type) and e.elt.obj.type.name == "kind"):
        return e.elt.attr
    return None


def _calls_in(exprs: list[ir.Expr]) -> list[ir.Expr]:
    """The distinct function calls inside some expressions, innermost first."""
    out: list[ir.Expr] = []
    for e in exprs:
        for n in reversed(list(ir.walk(e))):
            if isinstance(n, ir.Call) and n not in out and not ir.free_locals(n):
                out.append(n)
    return out


def _reads_state(e: ir.Expr, known: set[ir.Expr]) -> bool:
    """Whether `e` reads a zone or a variable outside the sub-expressions in `known`."""
    if e in known:
        return False
    if isinstance(e, ir.Zone | ir.Var):
        return True
    return any(_reads_state(c, known) for c in ir.children(e))


def _collect_hoistable(e: ir.Expr, out: list[ir.Expr]) -> None:
    """The largest sub-expressions that read no local name (worth computing once)."""
    if isinstance(e, ir.Const | ir.Local | ir.Builtin) or (
            isinstance(e, ir.Var) and (e.index is None or isinstance(e.index, ir.Const))):
        return
    if not ir.free_locals(e):
        if e not in out:
            out.append(e)
        return
    for c in ir.children(e):
        _collect_hoistable(c, out)
