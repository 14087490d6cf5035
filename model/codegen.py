"""The concrete back end: IR to Python source, compiled once per game and player count.

The emitted module is plain, readable Python (see `rulespec show-code`): one function
per action guard and effect, one for the round start, the round end and scoring.
States are stored as a tuple of zone lists `Z` (a bag is a list of counts per kind,
a pile a list of kinds, bottom first) and a tuple of variables `V`. The source is
registered with `linecache`, so a traceback shows the generated line, and every
statement carries a comment with the spec line it came from.

Nothing from the spec becomes code except through two checked forms: a name the spec
declares (already checked against `limits.IDENTIFIER`) with a prefix of the
generator's own (`local`, `global_name`), and a value as a `repr()` literal. Texts
(the file's path, `say`, notes) never enter the module.

A family of zones or variables (one per player or per member of an index set) is a
run of slots in `Z` or `V`, so an index outside its range would read a neighbouring
family. Every index is either provably in range (a seat from `players` or `after`, the
variable `active`, a member of an index set, a number checked when the spec was
loaded) or checked as the game runs (`r.at`), which raises `ModelError`. Variables
holding a seat are checked when assigned (`r.seat`), so they are always in range.
"""

from __future__ import annotations

import contextlib
import linecache
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

import attrs

from . import ir, work
from .errors import InternalError, SpecError, Where
from .fold import fold, substitute
from .limits import IDENTIFIER, MAX_RANGE, MAX_REPEAT, RENAMED_LOCAL
from .types import ANY, PLAYER, Type, ref_of

BUILTIN_VAR_SLOTS = {"active": 0, "round": 1, "last_actor": 2}
#: The precedence level of each arithmetic operator, for writing chains out (`_chain`).
_LEVEL = {"+": "+", "-": "+", "*": "*", "//": "*", "%": "*"}
#: Most IR nodes a written-out (unrolled) comprehension may repeat, to keep code small.
MAX_UNROLLED_NODES = 400


def global_name(prefix: str, *names: str) -> str:
    """A module-level name for spec names: `KA_rank`, `IA_position__letter`.

    Spec names never hold `__`, so joining them with it keeps distinct names distinct.
    """
    for n in names:
        if not IDENTIFIER.fullmatch(n):  # the loader refuses such names; never reached
            raise InternalError(f"the name {n!r} reached the code generator")
    return prefix + "__".join(names)


def local(name: str) -> str:
    """The Python name of a spec's local name (an action parameter, a loop variable), or of
    a loop variable the loader renamed so that it captures nothing (`q__1`)."""
    if RENAMED_LOCAL.fullmatch(name):
        return "l_" + name
    return global_name("l_", name)


@attrs.frozen
class Layout:
    """Where each zone instance and variable lives in the flat `Z` and `V` tuples."""

    zone_base: dict[str, int]
    zone_count: dict[str, int]
    var_base: dict[str, int]
    var_count: dict[str, int]
    n_zones: int
    n_vars: int

    @classmethod
    def of(cls, g: ir.GameIR) -> Layout:
        sizes = {ix.name: ix.size for ix in g.indices}
        sizes["player"] = g.players
        zb, zc = {}, {}
        n = 0
        for z in g.zones:
            zb[z.name] = n
            zc[z.name] = 1 if z.per is None else sizes[z.per]
            n += zc[z.name]
        vb, vc = dict(BUILTIN_VAR_SLOTS), dict.fromkeys(BUILTIN_VAR_SLOTS, 1)
        m = len(BUILTIN_VAR_SLOTS)
        for v in g.vars:
            vb[v.name] = m
            vc[v.name] = 1 if v.per is None else sizes[v.per]
            m += vc[v.name]
        return cls(zb, zc, vb, vc, n, m)


class Emitter:
    """Turns IR into Python source text for one game."""

    def __init__(self, g: ir.GameIR):
        self.g = g
        self.layout = Layout.of(g)
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
        plan = [x for x in self.bounds.plan(fold(e) for e in exprs) if x not in left_out]
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
        L = self.layout
        match e:
            case ir.Const(value=v):
                return repr(v)
            case ir.Var(name=n, index=None):
                return f"V[{L.var_base[n]}]"
            case ir.Var(name=n, index=ir.Expr() as i):
                return f"V[{self._offset(L.var_base[n], i, n)}]"
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
                return f"Z[{L.zone_base[f]}]"
            case ir.Zone(family=f, index=ir.Expr() as i):
                return f"Z[{self._offset(L.zone_base[f], i, f)}]"
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

    def _offset(self, base: int, index: ir.Expr, name: str) -> str:
        """The slot of `name[index]`: `base` plus the index, checked unless provably in range."""
        index = fold(index)
        family = self.per[name] or "player"
        if isinstance(index, ir.Const):
            if not 0 <= index.value < self.sizes[family]:
                # the spec's mistake, not ours: an index that is a constant only once the
                # player count is known (hand[p + 1] for the last seat p) runs past the end
                raise SpecError(Where(self.g.file), f"{name}[...] reaches {name}[{index.value}] "
                                f"with {self.g.players} players, out of range (the index must "
                                f"be 0 to {self.sizes[family] - 1})")
            return str(base + index.value)
        code = self.index(index, family, name)
        return f"{base} + {code}" if base else code

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
        if len(e.gens) != 1 or e.fn not in ("any", "all", "sum", "count", "min", "max"):
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

    def _stmt(self, s: ir.Stmt, depth: int) -> None:
        where = f"  # {s.where.line}:{s.where.column}" if s.where.line else ""
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
                self.stmts(a if cast(ir.Const, fold(t)).value else b, depth)
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
        a = [self.count(x) if i == _COUNT_ARG.get(fn) else self.ex(x)
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
            if sig == "bb":  # two new lists (nothing copied first on the copy-on-write path)
                return (f"_s = {a[0]}\n{a[1]} = list(map(add, {a[1]}, _s))\n"
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
            return (f"r.deal({a[0]}, Z, {self.layout.zone_base[family]}, P, {a[2]}, "
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
            base = self.layout.zone_base[cast(ir.Const, s.args[1]).value]
            return [self.ex(s.args[0])] + [f"Z[{base + p}]" for p in range(self.g.players)]
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
        base = self.layout.zone_base[z.family]
        return self._offset(base, z.index, z.family) if z.index is not None else str(base)

    # ----------------------------------------------------------------- module
    def effect_names(self, body: Iterable[ir.Stmt]) -> set[str]:
        """The effect functions a statement list calls (a branch that the chosen variants
        rule out, as `stmt` leaves it out, calls none)."""
        out: set[str] = set()
        for s in body:
            match s:
                case ir.Do(fn=fn):
                    out.add(fn)
                case ir.If(test=t, then=a, orelse=b) if isinstance(fold(t), ir.Const):
                    out |= self.effect_names(a if cast(ir.Const, fold(t)).value else b)
                case ir.If(then=a, orelse=b):
                    out |= self.effect_names(a) | self.effect_names(b)
                case ir.For(body=b) | ir.Repeat(body=b) | ir.While(body=b):
                    out |= self.effect_names(b)
        return out

    def module(self) -> str:
        g, L = self.g, self.layout
        e = self.emit
        # Only checked names go into the docstring (never the file's path, a text).
        e(f'"""Generated by rulespec from the spec of {global_name("", g.id)} for {g.players} '
          "players; do not edit.", 0)
        e("", 0)
        chosen = [global_name("", k) + "=" + global_name("", v) for k, v in g.chosen.items()]
        e(f"Variants: {', '.join(chosen) or 'none'}", 0)
        e('"""', 0)
        e("from itertools import compress", 0)
        e("from operator import add, mul, or_", 0)
        e("", 0)
        e("from model import runtime as r", 0)
        e("", 0)
        e(f"P = {g.players}", 0)
        e("PLAYERS = tuple(range(P))", 0)
        e("AFTER = tuple(tuple(r.after(p, P, 1)) for p in PLAYERS)", 0)
        e("BEFORE = tuple(tuple(r.after(p, P, -1)) for p in PLAYERS)", 0)
        e(f"CARDS = {tuple(i for i, k in enumerate(g.kinds) if k.item_class == 'cards')!r}", 0)
        e(f"TOKENS = {tuple(i for i, k in enumerate(g.kinds) if k.item_class == 'tokens')!r}", 0)
        for attr in g.kind_attrs:
            e(f"{global_name('KA_', attr)} = {tuple(k.attrs[attr] for k in g.kinds)!r}", 0)
        if "value" not in g.kind_attrs:
            e(f"KA_value = {(0,) * len(g.kinds)!r}", 0)
        e("DENOMS = tuple(sorted(TOKENS, key=lambda k: -KA_value[k]))", 0)
        self.token_functions()
        for ix in g.indices:
            e(f"{global_name('IX_', ix.name)} = {tuple(range(ix.size))!r}", 0)
            for attr, values in ix.attrs.items():
                e(f"{global_name('IA_', ix.name, attr)} = {tuple(values)!r}", 0)
        bags = [i for z in g.zones if z.order == "bag"
                for i in range(L.zone_base[z.name], L.zone_base[z.name] + L.zone_count[z.name])]
        piles = [i for z in g.zones if z.order == "pile"
                 for i in range(L.zone_base[z.name], L.zone_base[z.name] + L.zone_count[z.name])]
        for holds in ("cards", "tokens"):
            ids = {i for z in g.zones if z.holds == holds
                   for i in range(L.zone_base[z.name], L.zone_base[z.name] + L.zone_count[z.name])}
            e(f"BAGS_{holds} = {tuple(i for i in bags if i in ids)!r}", 0)
            e(f"PILES_{holds} = {tuple(i for i in piles if i in ids)!r}", 0)
        e("", 0)
        # initial variable values
        e("def init_vars(Z, V):", 0)
        for v in g.vars:
            base, n = L.var_base[v.name], L.var_count[v.name]
            init = self.seat(v.init, v.name) if v.type == PLAYER else self.ex(v.init)
            e(f"for _i in range({base}, {base + n}):", 1)
            e(f"V[_i] = {init}", 2)
        e("return V", 1)
        for name, body in (("setup", g.setup), ("round_start", g.round_start),
                           ("scoring", g.scoring)):
            e("", 0)
            e(f"def {name}(Z, V, ch):", 0)
            self.stmts(body, 1)
        for i, a in enumerate(g.actions):
            params = "".join(f", {local(p)}" for p, _ in a.params)
            e("", 0)
            e(f"def check_{i}(Z, V{params}):", 0)
            e(f"# action {global_name('', a.name)}, spec line {a.where.line}", 1)
            for p, dom in a.params:
                e(f"if {local(p)} not in {self.ex(dom)}: return 'domain'", 1)
            # past the domain checks, each parameter is a member of its domain
            with self.bound(a.params):
                e(f"return {self.ex(a.when)}", 1)
                e("", 0)
                e(f"def step_{i}(Z, V, ch, args):", 0)
                e("# the effects, each zone copied before it changes; then: does the round end?",
                  1)
                if a.params:
                    e(f"{', '.join(local(p) for p, _ in a.params)}, = args", 1)
                e("actor = V[0]", 1)
                if {"gather", "pay", "exchange"} & self.effect_names(a.effects):
                    e("Z[:] = [z[:] for z in Z]", 1)
                else:
                    self.copy_on_write = True
                self.stmts(a.effects, 1)
                self.copy_on_write = False
                e("V[2] = actor", 1)
                self.emit_return(*self.any_condition(g.round_end), 1)  # round_end, inlined
                e("", 0)
                e(f"def effect_in_place_{i}(Z, V, ch{params}):", 0)
                self.stmts(a.effects, 1)
        for i, a in enumerate(g.actions):
            self.match_table(i, a)
        e("", 0)
        e("def legal(Z, V, make):", 0)
        e("out = []", 1)
        self.legal_moves()
        e("return out", 1)
        self.playout()
        self._conditions("round_end", g.round_end)
        self._conditions("game_end", g.game_end)
        e("", 0)
        e("def round_over(Z, V, ch):", 0)
        e("# after the round's last action: scoring, then the game's end or the next deal", 1)
        e("scoring(Z, V, ch)", 1)
        e("if game_end(Z, V): return True", 1)
        e("V[1] += 1", 1)
        e("round_start(Z, V, ch)", 1)
        e("return False", 1)
        e("", 0)
        e("def round_end_names(Z, V):", 0)
        e("return [n for n, f in ROUND_END if f(Z, V)]", 1)
        e("", 0)
        e("def winners(Z, V):", 0)
        with self.context([g.winners]) as k:
            self.emit_return(self.memo_init(k), f"tuple(sorted({self.ex(g.winners)}))", 1)
        e("", 0)
        e(f"def score(Z, V, {local('p')}):", 0)
        with self.bound([("p", ir.Builtin("players", Type("list", of=PLAYER)))]), \
                self.context([g.score]) as k:
            self.emit_return(self.memo_init(k), self.ex(g.score), 1)
        e("", 0)
        e("def measure(Z, V):", 0)
        if g.measure is None:
            e("return None", 1)
        else:
            with self.context([g.measure]) as k:
                self.emit_return(self.memo_init(k), self.ex(g.measure), 1)
        self.condition_table("INVARIANTS", g.invariants)
        e("", 0)
        e("# the conditions rationales claim for where a reading parts from the ruling", 0)
        e("PARTS_ONLY_WHEN = {", 0)
        for amb in g.ambiguities:
            for variant in amb.variants:
                if variant.parts_only_when is not None:
                    e(f"({amb.id!r}, {variant.name!r}): lambda Z, V: "
                      f"{self.ex(variant.parts_only_when)},", 1)
        e("}", 0)
        self.guard_parts()
        if self.uses_memo:
            self.table_lines += ["", "NO = r.NO  # a kept part not computed yet (`Emitter.context`)"]
        self.lines += ["", "# kinds allowed per root kind (`Emitter.kind_table`); attributes per class "
                       "(`Emitter.class_table`)", *self.table_lines]
        return "\n".join(self.lines) + "\n"

    def guard_parts(self) -> None:
        """`GUARD_PARTS_<i>`: each top-level conjunct of action i's `when`, compiled alone.

        `State.why_illegal` evaluates them in turn to name the conjunct that is false;
        nothing on the legal-move or apply path uses them.
        """
        for i, a in enumerate(self.g.actions):
            params = "".join(f", l_{p}" for p, _ in a.params)
            when = a.when
            parts = when.values if isinstance(when, ir.BoolOp) and when.op == "and" else (when,)
            self.emit("", 0)
            self.emit(f"GUARD_PARTS_{i} = (", 0)
            for part in parts:
                self.emit(f"lambda Z, V{params}: {self.ex(part)},", 1)
            self.emit(")", 0)

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

    def kind_table(self, var: str, holds: str, test: ir.Expr) -> tuple[str, ir.Expr] | None:
        """A table of the kinds `var` of class `holds` for which `test` holds, per kind on
        top of the one pile `test` reads (its root: `top(discard)`, say); with the table's
        name and the root, or None if `test` reads more than that.

        `test` (folded) may read only `var`, constants and the root. The table has an entry
        per kind (None where `test` raises) and a last entry None (for an empty pile). Loops
        then try the few kinds the entry names instead of every kind.
        """
        if ir.free_locals(test) - {var}:
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

    def _append(self, i: int, a: ir.ActionDecl, depth: int) -> None:
        if self.playout_mode:
            self.emit(f"out.append(({i}, {''.join(f'{local(p)}, ' for p, _ in a.params)}))", depth)
        elif self.action_table_type(a) is not None:
            self.emit(f"out.append(A{i}" + (f"[{local(a.params[0][0])}])" if a.params else ")"), depth)
        else:
            args = "".join(f"{local(p)}, " for p, _ in a.params)
            self.emit(f"out.append(make({i}, ({args})))", depth)

    def _legal_loops(self, i: int, a: ir.ActionDecl, guard: ir.Expr | None, depth: int) -> None:
        for p, dom in a.params:
            dom = fold(dom)
            if (isinstance(dom, ir.Call) and dom.fn == "kinds"
                    and self.zone_decl(dom.args[0]).order == "bag"):
                holds = self.zone_decl(dom.args[0]).holds
                self.emit(f"_b = {self._ex(dom.args[0])}", depth)
                self.emit(f"for {local(p)} in {holds.upper()}:", depth)
                self.emit(f"if not _b[{local(p)}]: continue", depth + 1)
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


#: The argument of an effect that counts items (or, for pay, money): never negative.
_COUNT_ARG = {"move": 3, "move_top": 2, "deal": 2, "pay": 0}


def _kind_attribute(e: ir.Comp) -> str | None:
    """The attribute a comprehension reads of each kind it loops over, with no condition
    (`k.points for k in kinds(hand)`), or None."""
    g = e.gens[0]
    if (len(e.gens) == 1 and not g.conds and isinstance(e.elt, ir.Attr)
            and e.elt.obj == ir.Local(g.var, e.elt.obj.type) and e.elt.obj.type.name == "kind"):
        return e.elt.attr
    return None


def _free_parts(a: ir.ActionDecl) -> list[ir.Expr]:
    """The conjuncts of an action's condition that do not depend on its parameters."""
    names = {p for p, _ in a.params}
    when = fold(a.when)
    parts = list(when.values) if isinstance(when, ir.BoolOp) and when.op == "and" else [when]
    return [c for c in parts if not ir.uses_locals(c, names)]


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


def compile_game(g: ir.GameIR) -> tuple[dict[str, Any], str, str]:
    """Emit and compile the module for `g`; returns its namespace, source and file name."""
    source = Emitter(g).module()
    key = "-".join(f"{k}={v}" for k, v in sorted(g.chosen.items()))
    filename = f"<rulespec {g.id} players={g.players} {zlib.crc32((source + key).encode()):08x}>"
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as exc:  # a bug in the emitter, never the user's fault
        raise InternalError(f"the code generated for {g.file} does not compile: "
                            f"{type(exc).__name__}: {exc}") from exc
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"__name__": f"rulespec_generated_{g.id}"}
    exec(code, namespace)
    return namespace, source, filename
