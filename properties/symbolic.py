"""The symbolic back end: the same IR the concrete model is compiled from, translated to z3.

A symbolic state (`SymState`) holds, for every zone instance, one integer per card or
token kind of the zone's class (how many of that kind lie there), plus, for piles, the
kind on top and, within one transition, whatever is known of the items just below
the top; every variable is one z3 term (`Int` for numbers, players, kinds, indices and
enum names, `Bool` for yes/no). Statements are executed symbolically (`Exec`): an `if`
runs both branches and merges the two states with `If` terms, loops over constant lists
are unrolled, `while` and `repeat` are unrolled up to a bound. What the concrete model
would refuse (a card taken from a zone without it, the top of an empty pile) is
collected as an undefinedness condition instead of an exception.

Chance (a shuffle, the card under the top of a face-down pile) is a nondeterministic
choice: a fresh variable constrained only by what the counts allow. That is an
over-approximation of the concrete model, which fixes the order at the shuffle; every
such choice is logged as an `Event`, so a witness can be turned back into concrete
shuffle outcomes (`properties.witness`). docs/symbolic.md describes the encoding.

Nothing here knows any game: the translation reads only the IR.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs
import z3
from z3 import z3core

from model import ir
from model.codegen import Layout
from model.fold import fold

TRUE = True
FALSE = False
ZERO = 0
ONE = 1

#: Default bound for `repeat n` with a symbolic n, and for `while` loops with a larger max.
LOOP_BOUND = 64


class OutOfTime(Exception):
    """Building a formula ran past the time limit of the query that needed it."""


_DEADLINE = [math.inf]


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Symbolic execution inside the block raises OutOfTime once `seconds` have passed
    (nested blocks: the sooner deadline wins). A large game's formulas can take longer to
    build than z3 takes to answer, so the time limit has to cover building too."""
    old = _DEADLINE[0]
    _DEADLINE[0] = min(old, time.perf_counter() + seconds)
    try:
        yield
    finally:
        _DEADLINE[0] = old


class Unsupported(Exception):
    """A construct the z3 encoding does not cover; queries report it as 'unknown'."""


# ------------------------------------------------------------------ small helpers
# Values are hybrid: a Python int or bool where the value is known when the formula is
# built, a z3 term otherwise. Known parts fold in Python, which keeps formulas small and
# building them fast (z3's own predicates are slow to call from Python).
def is_const(t: Any) -> bool:
    return isinstance(t, int)


def const_of(t: Any) -> Any:
    return t


def simp(t: Any) -> Any:
    """A value; a z3 term that simplifies to a constant becomes that Python constant."""
    if isinstance(t, z3.ExprRef):
        s = z3.simplify(t)
        if z3.is_int_value(s):
            return s.as_long()
        if z3.is_true(s):
            return True
        if z3.is_false(s):
            return False
    return t


def zterm(x: Any) -> Any:
    """A z3 term for a value (for a solver, or a model)."""
    if isinstance(x, bool):
        return z3.BoolVal(x)
    if isinstance(x, int):
        v = _INTS.get(x)
        if v is None:
            v = _INTS[x] = z3.IntVal(x)
        return v
    return x


_INTS: dict[int, z3.IntNumRef] = {}


# z3's Python constructors (And, Or, Sum, If) coerce every argument to a common sort, which
# dominated building the encoding of a large game; terms built here already have the right
# sorts, so these call the C API directly when every argument is a term of one kind.
def _kind(x: Any) -> type | None:
    """BoolRef or ArithRef (numerals included; the encoding has integers only), else None."""
    if isinstance(x, z3.BoolRef):
        return z3.BoolRef
    if isinstance(x, z3.ArithRef):
        return z3.ArithRef
    return None


def _nary(mk: Callable[..., Any], terms: list, slow: Callable[..., Any]) -> Any:
    cls = _kind(terms[0])
    if cls is None or any(not isinstance(x, cls) for x in terms):
        return slow(*terms)
    ctx = terms[0].ctx
    arr = (z3.Ast * len(terms))(*[x.as_ast() for x in terms])
    return cls(mk(ctx.ref(), len(terms), arr), ctx)


def _junction(xs: Sequence[Any], unit: bool, mk: Callable[..., Any],
              slow: Callable[..., Any]) -> Any:
    """And (unit True) or Or (unit False), folding Python constants."""
    parts = []
    for x in xs:
        if x is unit:
            continue
        if x is (not unit):
            return not unit
        parts.append(x)
    if not parts:
        return unit
    return parts[0] if len(parts) == 1 else _nary(mk, parts, slow)


def AND(*xs: Any) -> Any:
    return _junction(xs, True, z3core.Z3_mk_and, z3.And)


def OR(*xs: Any) -> Any:
    return _junction(xs, False, z3core.Z3_mk_or, z3.Or)


def NOT(x: Any) -> Any:
    if isinstance(x, bool):
        return not x
    if isinstance(x, z3.BoolRef):
        return z3.BoolRef(z3core.Z3_mk_not(x.ctx.ref(), x.as_ast()), x.ctx)
    return z3.Not(x)


def IMPLIES(a: Any, b: Any) -> Any:
    return OR(NOT(a), b)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        return isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b)
    return type(a) is type(b) and a == b


def ITE(c: Any, a: Any, b: Any) -> Any:
    if c is True:
        return a
    if c is False:
        return b
    if _same(a, b):
        return a
    if isinstance(a, bool) and isinstance(b, bool):
        return c if a else NOT(c)
    a, b = zterm(a), zterm(b)
    cls = _kind(a)
    if isinstance(c, z3.BoolRef) and cls is not None and isinstance(b, cls) and _kind(b) is cls:
        return cls(z3core.Z3_mk_ite(c.ctx.ref(), c.as_ast(), a.as_ast(), b.as_ast()), c.ctx)
    return z3.If(c, a, b)


def _binary(mk: Callable[..., Any], a: Any, b: Any, slow: Callable[[Any, Any], Any]) -> Any:
    a, b = zterm(a), zterm(b)
    cls = _kind(a)
    if cls is None or _kind(b) is not cls:
        return slow(a, b)
    return z3.BoolRef(mk(a.ctx.ref(), a.as_ast(), b.as_ast()), a.ctx)


def EQ(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return _binary(z3core.Z3_mk_eq, a, b, lambda x, y: x == y)


def LT(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a < b
    return _binary(z3core.Z3_mk_lt, a, b, lambda x, y: x < y)


def LE(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a <= b
    return _binary(z3core.Z3_mk_le, a, b, lambda x, y: x <= y)


def SUM(xs: Sequence[Any]) -> Any:
    const = 0
    terms = []
    for x in xs:
        if isinstance(x, int):
            const += x
        else:
            terms.append(x)
    if not terms:
        return const
    t = terms[0] if len(terms) == 1 else _nary(z3core.Z3_mk_add, terms, z3.Sum)
    return t + const if const else t


def ADD(a: Any, b: Any) -> Any:
    """a + b, folding known numbers (and 0) in Python."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(b, int) and b == 0:
        return a
    if isinstance(a, int) and a == 0:
        return b
    return _nary(z3core.Z3_mk_add, [zterm(a), zterm(b)], lambda x, y: x + y)


def SUB(a: Any, b: Any) -> Any:
    """a - b, folding known numbers (and 0) in Python."""
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    if isinstance(b, int) and b == 0:
        return a
    return _nary(z3core.Z3_mk_sub, [zterm(a), zterm(b)], lambda x, y: x - y)


def B2I(b: Any) -> Any:
    if isinstance(b, bool):
        return int(b)
    return ITE(b, 1, 0)


def as_int(x: Any) -> Any:
    """Python bools count as numbers (True + True == 2), as in the concrete model."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, z3.BoolRef):
        return B2I(x)
    return x


def MIN(a: Any, b: Any) -> Any:
    return ITE(LE(a, b), a, b)


def DIV(a: Any, b: Any) -> Any:
    """Floor division by a positive divisor."""
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    if isinstance(b, int) and b == 1:
        return a
    return zterm(a) / zterm(b)


def is_bool(x: Any) -> bool:
    return isinstance(x, bool | z3.BoolRef)


# ------------------------------------------------------------------ values
@attrs.frozen
class SymList:
    """A list whose length is bounded: each slot is (present, value)."""

    items: tuple[tuple[Any, Any], ...]


@attrs.frozen
class ZoneRef:
    family: str
    index: Any  # a value, or None for a shared zone


@attrs.frozen
class Event:
    """What a witness needs to rebuild chance outcomes: an operation under a guard."""

    guard: Any
    op: str  # shuffle / pop / push / take / drop_kinds / move_all / deal
    args: tuple


class SymState:
    """Counts per zone instance and kind, pile tops, variables, and the terminal flag.

    `Z[i]` holds one count per kind of instance i's class (`Enc.inst_kinds[i]`); `T[i]` the
    kind on top of pile i (the class's first kind when the pile is empty); `S[i]` what is
    known of the items directly below the top, nearest first, trusted only where the pile
    is deep enough (see `Exec.after_top_left`). `V[name]` has one value per variable slot.
    """

    __slots__ = ("S", "T", "V", "Z", "term")

    def __init__(self, Z: list, T: list, S: list, V: dict, term: Any) -> None:
        self.Z, self.T, self.S, self.V, self.term = Z, T, S, V, term

    def copy(self) -> SymState:
        return SymState(list(self.Z), list(self.T), list(self.S), dict(self.V), self.term)


# ------------------------------------------------------------------ the static layout
class Enc:
    """What the translation needs to know about one GameIR: instances, kinds, var types."""

    def __init__(self, g: ir.GameIR) -> None:
        self.g = g
        self.P = g.players
        self.K = len(g.kinds)
        self.layout = Layout.of(g)
        self.zdecl = {z.name: z for z in g.zones}
        self.sizes = {ix.name: ix.size for ix in g.indices}
        self.sizes["player"] = g.players
        self.inst: list[tuple[str, int | None]] = []
        for z in g.zones:
            for j in range(self.layout.zone_count[z.name]):
                self.inst.append((z.name, j if z.per is not None else None))
        self.n_inst = len(self.inst)
        self.classes = {c: tuple(k for k, kd in enumerate(g.kinds) if kd.item_class == c)
                        for c in ("cards", "tokens")}
        self.inst_kinds = [self.classes[self.zdecl[f].holds] for f, _ in self.inst]
        self.inst_pile = [self.zdecl[f].order == "pile" for f, _ in self.inst]
        self.kpos = [{k: i for i, k in enumerate(ks)} for ks in self.inst_kinds]
        self.canon = {c: (ks[0] if ks else 0) for c, ks in self.classes.items()}
        self.copies = tuple(kd.copies for kd in g.kinds)
        self.base = {z.name: self.layout.zone_base[z.name] for z in g.zones}
        self.codes: dict[str, int] = {}
        for values in g.enums.values():
            for v in values:
                self.code(v)
        self.vtypes: dict[str, tuple[Any, int]] = {
            "active": (ir.Type("player"), 1), "round": (ir.Type("int"), 1),
            "last_actor": (ir.Type("player"), 1)}
        self.per_vars = {v.name for v in g.vars if v.per is not None}
        for v in g.vars:
            self.vtypes[v.name] = (v.type, self.layout.var_count[v.name])
        self.ka: dict[str, tuple] = {}
        for attr, t in g.kind_attrs.items():
            vals = tuple(kd.attrs[attr] for kd in g.kinds)
            if t.name == "str":
                vals = tuple(self.code(v) for v in vals)
            self.ka[attr] = vals
        if "value" not in self.ka:
            self.ka["value"] = (0,) * self.K
        self.denoms = tuple(sorted(self.classes["tokens"], key=lambda k: -self.ka["value"][k]))
        self.ia: dict[tuple[str, str], tuple] = {}
        for ix in g.indices:
            for attr, values in ix.attrs.items():
                self.ia[(ix.name, attr)] = tuple(
                    self.code(v) if isinstance(v, str) else v for v in values)

    def code(self, s: str) -> int:
        c = self.codes.get(s)
        if c is None:
            c = self.codes[s] = len(self.codes)
        return c

    def decode(self, c: int) -> str:
        for s, v in self.codes.items():
            if v == c:
                return s
        raise KeyError(c)

    def holds(self, inst: int) -> str:
        return self.zdecl[self.inst[inst][0]].holds

    def inst_name(self, i: int) -> str:
        fam, j = self.inst[i]
        return fam if j is None else f"{fam}[{j}]"

    def is_bool_var(self, name: str) -> bool:
        return self.vtypes[name][0].name == "bool"

    def shared(self, i: int) -> bool:
        return self.inst[i][1] is None

    # ---------------------------------------------------------------- states
    def fresh_state(self, prefix: str) -> SymState:
        """A state of fresh, unconstrained z3 variables named after `prefix`."""
        Z, T, S = [], [], []
        for i in range(self.n_inst):
            name = self.inst_name(i)
            Z.append(tuple(z3.Int(f"{prefix}.{name}#{self.g.kinds[k].name}")
                           for k in self.inst_kinds[i]))
            T.append(z3.Int(f"{prefix}.{name}^top") if self.inst_pile[i] else None)
            S.append(())
        V = {}
        for name, (t, n) in self.vtypes.items():
            mk = z3.Bool if t.name == "bool" else z3.Int
            per = name in self.per_vars
            V[name] = tuple(mk(f"{prefix}.{name}" + (f"[{j}]" if per else "")) for j in range(n))
        return SymState(Z, T, S, V, z3.Bool(f"{prefix}.terminal"))

    def from_concrete(self, state: Any) -> SymState:
        """The constant symbolic state of a concrete `model.State` (pile order kept)."""
        Z, T, S = [], [], []
        for i, content in enumerate(state.z):
            ks = self.inst_kinds[i]
            if self.inst_pile[i]:
                counts = [0] * self.K
                for k in content:
                    counts[k] += 1
                Z.append(tuple(counts[k] for k in ks))
                T.append(content[-1] if content else self.canon[self.holds(i)])
                S.append(tuple(reversed(content[:-1])))
            else:
                Z.append(tuple(content[k] for k in ks))
                T.append(None)
                S.append(())
        V = {}
        for name, (t, n) in self.vtypes.items():
            base = self.layout.var_base[name]
            V[name] = tuple(self.const(t, state.v[base + j]) for j in range(n))
        return SymState(Z, T, S, V, bool(state.is_terminal))

    def const(self, t: Any, v: Any) -> Any:
        if t.name == "bool" or isinstance(v, bool):
            return bool(v)
        if isinstance(v, str):
            return self.code(v)
        return int(v)

    def total(self, st: SymState, i: int) -> Any:
        return SUM(st.Z[i])

    def wf(self, st: SymState) -> Any:
        """The type invariant: counts >= 0, each kind's total is its copies, each pile's top
        one of its kinds, variables within their types."""
        out = []
        totals: dict[int, list] = {k: [] for k in range(self.K)}
        for i in range(self.n_inst):
            for k, c in zip(self.inst_kinds[i], st.Z[i], strict=True):
                out.append(LE(0, c))
                totals[k].append(c)
            if self.inst_pile[i]:
                out.append(self.top_ok(st, i, st.T[i]))
        for k, cs in totals.items():
            out.append(EQ(SUM(cs), self.copies[k]))
        return AND(*out, self.vars_ok(st))

    def vars_ok(self, st: SymState) -> Any:
        """The variables' part of the type invariant."""
        out = []
        for name, (t, _) in self.vtypes.items():
            for x in st.V[name]:
                out.extend(self.type_ok(t, x))
        if "round" in st.V:
            out.append(LE(1, st.V["round"][0]))
        return AND(*out)

    def bounds(self, st: SymState) -> list:
        """Redundant facts of every well-formed state (each count within 0..copies, each
        variable within its type): they help z3 prune, and hold wherever `wf` does."""
        out = []
        for i in range(self.n_inst):
            for k, c in zip(self.inst_kinds[i], st.Z[i], strict=True):
                out += [LE(0, c), LE(c, self.copies[k])]
        for name, (t, _) in self.vtypes.items():
            for x in st.V[name]:
                out.extend(self.type_ok(t, x))
        return out

    def type_ok(self, t: Any, x: Any) -> list:
        if t.name == "player":
            return [LE(0, x), LT(x, self.P)]
        if t.name == "index" and t.ref in self.sizes:
            return [LE(0, x), LT(x, self.sizes[t.ref])]
        if t.name == "str" and t.ref in self.g.enums:
            return [OR(*[EQ(x, self.code(v)) for v in self.g.enums[t.ref]])]
        return []

    def top_ok(self, st: SymState, i: int, t: Any) -> Any:
        """A pile's top is a kind it holds, or the canonical kind when the pile is empty."""
        ks = self.inst_kinds[i]
        nonempty = LT(0, self.total(st, i))
        held = OR(*[AND(EQ(t, k), LE(1, c)) for k, c in zip(ks, st.Z[i], strict=True)])
        return ITE(nonempty, held, EQ(t, self.canon[self.holds(i)]))

    def equal(self, a: SymState, b: SymState, skip: frozenset[str] = frozenset()) -> Any:
        out = []
        for i in range(self.n_inst):
            out.extend(EQ(x, y) for x, y in zip(a.Z[i], b.Z[i], strict=True))
            if self.inst_pile[i]:
                out.append(EQ(a.T[i], b.T[i]))
        for name in self.vtypes:
            if name not in skip:
                out.extend(EQ(x, y) for x, y in zip(a.V[name], b.V[name], strict=True))
        out.append(EQ(a.term, b.term))
        return AND(*out)

    def variables(self, st: SymState) -> list:
        """The z3 variables of a fresh state, in a fixed order."""
        out = [c for zs in st.Z for c in zs]
        out += [t for t in st.T if t is not None]
        out += [x for xs in st.V.values() for x in xs]
        out.append(st.term)
        return out

    def variables_of(self, st: SymState, skip: frozenset[str] = frozenset()) -> list:
        """Every slot's value (counts, tops of non-empty piles, variables, terminal)."""
        out = [c for zs in st.Z for c in zs]
        out += [t for i, t in enumerate(st.T) if t is not None and self.total(st, i) != 0]
        out += [x for name, xs in st.V.items() if name not in skip for x in xs]
        out.append(st.term)
        return out

    def kind_totals(self, st: SymState) -> list:
        totals: list[list] = [[] for _ in range(self.K)]
        for i in range(self.n_inst):
            for k, c in zip(self.inst_kinds[i], st.Z[i], strict=True):
                totals[k].append(c)
        return [SUM(cs) for cs in totals]

    # ------------------------------------------------------------ reading a model
    def evaluate(self, m: z3.ModelRef, st: SymState) -> dict:
        """A model's values for a symbolic state, as plain Python data."""
        ev = model_value(m)
        zones = []
        for i in range(self.n_inst):
            counts = {k: ev(c) for k, c in zip(self.inst_kinds[i], st.Z[i], strict=True)}
            zones.append((counts, ev(st.T[i]) if self.inst_pile[i] else None))
        V = {name: [ev(x) for x in xs] for name, xs in st.V.items()}
        return {"zones": zones, "vars": V, "terminal": ev(st.term)}

    def state_of(self, values: dict) -> SymState:
        """The constant symbolic state of evaluated values (pile order below the top unknown)."""
        Z, T = [], []
        for i, (counts, top) in enumerate(values["zones"]):
            Z.append(tuple(counts[k] for k in self.inst_kinds[i]))
            T.append(top if self.inst_pile[i] else None)
        V = {name: tuple(xs) for name, xs in values["vars"].items()}
        return SymState(Z, T, [() for _ in Z], V, bool(values["terminal"]))

    def situation(self, values: dict, orders: dict[int, list[int]] | None = None) -> dict:
        """A situation (the model.situation format) for evaluated state values.

        `orders` gives piles bottom to top; by default a pile is its kinds in declaration
        order with its top kind moved to the top.
        """
        names = [kd.name for kd in self.g.kinds]
        zones: dict[str, Any] = {}
        for i, (counts, top) in enumerate(values["zones"]):
            fam, j = self.inst[i]
            if self.inst_pile[i]:
                if orders and i in orders:
                    seq = list(orders[i])
                else:
                    seq = [k for k in self.inst_kinds[i] for _ in range(counts[k])]
                    if seq:
                        seq.remove(top)
                        seq.append(top)
                content: Any = [names[k] for k in seq]
            else:
                content = {names[k]: c for k, c in counts.items() if c}
            if j is None:
                zones[fam] = content
            else:
                zones.setdefault(fam, []).append(content)
        vars_: dict[str, Any] = {}
        for v in self.g.vars:
            vals = [self.decode(x) if v.type.name == "str" else x for x in values["vars"][v.name]]
            vars_[v.name] = vals if v.per is not None else vals[0]
        V = values["vars"]
        return {"players": self.P, "round": V["round"][0], "active": V["active"][0],
                "last_actor": V["last_actor"][0], "terminal": values["terminal"],
                "zones": zones, "vars": vars_}

    def describe(self, values: dict) -> str:
        """A short text of evaluated state values (for reports)."""
        names = [kd.name for kd in self.g.kinds]
        parts = []
        for i, (counts, top) in enumerate(values["zones"]):
            items = " ".join(f"{names[k]}x{c}" if c > 1 else names[k]
                             for k, c in counts.items() if c)
            if self.inst_pile[i] and items:
                items += f" (top {names[top]})"
            parts.append(f"{self.inst_name(i)}: {items or '-'}")
        for name, xs in values["vars"].items():
            t = self.vtypes[name][0]
            shown = [self.decode(x) if t.name == "str" else x for x in xs]
            parts.append(f"{name}={shown if len(shown) > 1 or name in self.per_vars else shown[0]}")
        if values["terminal"]:
            parts.append("terminal")
        return "; ".join(parts)

    def reads_var(self, name: str) -> bool:
        """Whether any rule reads variable `name` (the `round` counter usually is not read)."""
        g = self.g
        exprs: list[ir.Expr] = [c.expr for c in (*g.round_end, *g.game_end, *g.invariants)]
        exprs += [g.winners, g.score] + ([g.measure] if g.measure is not None else [])
        for a in g.actions:
            exprs.append(a.when)
            exprs.extend(d for _, d in a.params)
            exprs.extend(_stmt_exprs(a.effects))
        for body in (g.setup, g.round_start, g.scoring):
            exprs.extend(_stmt_exprs(body))
        exprs.extend(v.init for v in g.vars)
        return any(isinstance(n, ir.Var) and n.name == name for e in exprs for n in ir.walk(e))


def model_value(m: z3.ModelRef) -> Callable[[Any], Any]:
    """A function giving the model's Python value (int or bool) of a hybrid value."""
    def ev(x: Any) -> Any:
        if isinstance(x, int):
            return x
        v = m.eval(x, model_completion=True)
        if z3.is_int_value(v):
            return v.as_long()
        if z3.is_true(v):
            return True
        if z3.is_false(v):
            return False
        raise ValueError(f"no value for {x}")
    return ev


def _stmt_exprs(body: Sequence[ir.Stmt]) -> Iterator[ir.Expr]:
    for s in body:
        match s:
            case ir.Assign(value=v, target=t):
                yield v
                yield t
            case ir.Do(args=args, kwargs=kw):
                yield from (a for a in args if isinstance(a, ir.Expr))
                yield from (v for _, v in kw)
            case ir.If(test=t, then=a, orelse=b):
                yield t
                yield from _stmt_exprs(a)
                yield from _stmt_exprs(b)
            case ir.For(iter=it, body=b):
                yield it
                yield from _stmt_exprs(b)
            case ir.Repeat(count=n, body=b):
                yield n
                yield from _stmt_exprs(b)
            case ir.While(test=t, body=b):
                yield t
                yield from _stmt_exprs(b)


# ------------------------------------------------------------------ execution context
class Ctx:
    """Collects, along the current path: undefinedness, chance constraints, events and
    supply shortages. `tag` names the fresh variables of one transition."""

    def __init__(self, tag: str = "x") -> None:
        self.path: Any = True
        self.bad: list[tuple[str, Any]] = []  # (what, path and failing condition)
        self.assume: list[Any] = []
        self.events: list[Event] = []
        self.short: list[tuple[str, Any]] = []  # (site, path and shortage)
        self.tag = tag
        self._n = 0
        self.created: list[Any] = []  # fresh variables, in order
        # every effect run on a live path: (statement, how many items are known below
        # each pile's top, the bound names); see properties/lemmas.py
        self.sites: list[tuple[ir.Do, tuple[int, ...], dict[str, Any]]] = []

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

    def fresh(self, what: str) -> Any:
        self._n += 1
        v = z3.Int(f"{self.tag}.{what}{self._n}")
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


# ------------------------------------------------------------------ symbolic execution
class Exec:
    """Translates expressions and runs statements on symbolic states."""

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
            case ir.Var(name=n, index=i):
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
            case ir.Zone(family=f, index=i):
                return ZoneRef(f, as_int(self._ev(i, st, env)))
            case ir.Attr(obj=o, attr=a) if o.type.name == "index":
                return self.table(enc.ia[(o.type.ref, a)], self._ev(o, st, env), f"{o.type.ref}.{a}")
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
        if all(_same(v, values[0]) for v in values):
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

    # ---------------------------------------------------------- state updates
    def merge(self, c: Any, a: SymState, b: SymState) -> SymState:
        """If(c, a, b), slot by slot."""
        if c is True:
            return a
        if c is False:
            return b
        Z, T, S = [], [], []
        for i in range(self.enc.n_inst):
            za, zb = a.Z[i], b.Z[i]
            Z.append(za if za is zb else tuple(ITE(c, x, y) for x, y in zip(za, zb, strict=True)))
            T.append(None if a.T[i] is None else ITE(c, a.T[i], b.T[i]))
            sa, sb = a.S[i], b.S[i]
            n = min(len(sa), len(sb))
            S.append(sa if sa is sb else tuple(ITE(c, sa[j], sb[j]) for j in range(n)))
        V = {}
        for name, xs in a.V.items():
            ys = b.V[name]
            V[name] = xs if xs is ys else tuple(ITE(c, x, y) for x, y in zip(xs, ys, strict=True))
        return SymState(Z, T, S, V, ITE(c, a.term, b.term))

    def add_kind(self, st: SymState, i: int, k: Any, n: Any) -> SymState:
        """n more items of kind k (a value) in instance i (a copy of the state)."""
        enc = self.enc
        st = st.copy()
        if isinstance(k, int):
            pos = enc.kpos[i].get(k)
            if pos is None:
                if not (isinstance(n, int) and n == 0):
                    self.ctx.fail_if(True, f"typing: a {enc.g.kinds[k].item_class[:-1]} put "
                                           f"into {enc.inst_name(i)}")
                return st
            z = list(st.Z[i])
            z[pos] = ADD(z[pos], n)
            st.Z[i] = tuple(z)
            return st
        self.ctx.require(OR(*[EQ(k, kk) for kk in enc.inst_kinds[i]]),
                         f"typing: an item of another class put into {enc.inst_name(i)}")
        if isinstance(n, int) and n < 0:  # written as a subtraction, so a move's two
            # halves cancel when z3 simplifies a total
            st.Z[i] = tuple(SUB(c, ITE(EQ(k, kk), -n, 0))
                            for kk, c in zip(enc.inst_kinds[i], st.Z[i], strict=True))
            return st
        st.Z[i] = tuple(ADD(c, ITE(EQ(k, kk), n, 0)) for kk, c in zip(enc.inst_kinds[i], st.Z[i],
                                                                  strict=True))
        return st

    def new_top(self, st: SymState, i: int) -> Any:
        """A fresh top for pile i: a kind it holds, or the canonical kind if it is empty."""
        t = self.ctx.fresh("top")
        self.ctx.assume_(self.enc.top_ok(st, i, t))
        return t

    def after_top_left(self, st: SymState, i: int) -> SymState:
        """The top item of pile i is gone (counts already updated): expose the next one.

        `S[i][0]` is the item below the top whenever the pile held two or more; if the
        pile is now empty the top is the canonical kind; if nothing is known, a fresh kind.
        """
        st = st.copy()
        sh = st.S[i]
        if sh:
            st.T[i] = ITE(LT(0, self.enc.total(st, i)), sh[0], self.enc.canon[self.enc.holds(i)])
            st.S[i] = sh[1:]
        else:
            st.T[i] = self.new_top(st, i)
        return st

    def pop(self, st: SymState, i: int, site: str) -> tuple[Any, SymState]:
        """Take the top item of pile i: its kind, and the state after."""
        enc = self.enc
        total = enc.total(st, i)
        self.ctx.require(LT(0, total), f"undefined: taking from the empty pile {enc.inst_name(i)}")
        if enc.shared(i):
            self.ctx.shortage(site, enc.inst_name(i), EQ(total, 0))
        k = st.T[i]
        st = st.copy()
        st.Z[i] = tuple(SUB(c, B2I(EQ(k, kk))) for kk, c in zip(enc.inst_kinds[i], st.Z[i],
                                                              strict=True))
        self.ctx.event("pop", i, k)
        return k, self.after_top_left(st, i)

    def put(self, st: SymState, j: int, k: Any) -> SymState:
        """One item of kind k onto instance j (a pile's new top, or a bag)."""
        return self.push(st, j, k, 1) if self.enc.inst_pile[j] else self.add_kind(st, j, k, 1)

    def push(self, st: SymState, i: int, k: Any, n: Any = 1) -> SymState:
        """n items of kind k on top of pile i (n <= 0 puts nothing, as list.extend)."""
        if isinstance(n, int):
            for _ in range(max(n, 0)):
                old_top = st.T[i]
                st = self.add_kind(st, i, k, 1)
                st.T[i] = k
                st.S[i] = (old_top, *st.S[i])
                self.ctx.event("push", i, k, 1)
            return st
        pos = ITE(LT(0, n), n, 0)
        old_top = st.T[i]
        st = self.add_kind(st, i, k, pos)
        st.T[i] = ITE(LT(0, n), k, old_top)
        st.S[i] = ()
        self.ctx.event("push", i, k, pos)
        return st

    def take(self, st: SymState, i: int, k: Any, site: str) -> SymState:
        """Remove the topmost item of kind k from pile i (the runtime's _take_from_pile)."""
        enc = self.enc
        have = self.kcount(st, i, k)
        self.ctx.require(LE(1, have), f"undefined: no such item in {enc.inst_name(i)}")
        if enc.shared(i):
            self.ctx.shortage(site, enc.inst_name(i), LT(have, 1))
        was_top = EQ(k, st.T[i])
        st = st.copy()
        st.Z[i] = tuple(SUB(c, B2I(EQ(k, kk))) for kk, c in zip(enc.inst_kinds[i], st.Z[i],
                                                              strict=True))
        self.ctx.event("take", i, k)
        if was_top is True:
            return self.after_top_left(st, i)
        with self.ctx.under(was_top):
            exposed = self.after_top_left(st, i)
        st = st.copy()
        st.T[i] = ITE(was_top, exposed.T[i], st.T[i])
        st.S[i] = ()
        return st

    # ---------------------------------------------------------- statements
    def run(self, body: Sequence[ir.Stmt], st: SymState, env: dict) -> SymState:
        for s in body:
            if self.ctx.path is False:
                return st
            st = self.stmt(s, st, env)
        return st

    def stmt(self, s: ir.Stmt, st: SymState, env: dict) -> SymState:
        if time.perf_counter() > _DEADLINE[0]:
            raise OutOfTime(f"spec line {s.where.line}")
        ctx = self.ctx
        match s:
            case ir.Assign(target=t, op=op, value=v):
                return self.assign(st, t, op, self.ev(v, st, env), env)
            case ir.Do():
                return self.effect(s, st, env)
            case ir.If(test=t, then=a, orelse=b):
                c = self.truth(self.ev(t, st, env))
                if c is True:
                    return self.run(a, st, env)
                if c is False:
                    return self.run(b, st, env)
                with ctx.under(c):
                    sa = self.run(a, st, env)
                with ctx.under(NOT(c)):
                    sb = self.run(b, st, env)
                return self.merge(c, sa, sb)
            case ir.For(var=v, iter=it, body=b):
                lst = self.ev(it, st, env)
                if isinstance(lst, ZoneRef):
                    lst = self.zone_kinds(st, lst)
                for p, x in lst.items:
                    if p is False:
                        continue
                    with ctx.under(p):
                        s2 = self.run(b, st, {**env, v: x})
                    st = self.merge(p, s2, st)
                return st
            case ir.Repeat(count=n, body=b):
                cnt = as_int(self.ev(n, st, env))
                if isinstance(cnt, int):
                    for _ in range(max(cnt, 0)):
                        st = self.run(b, st, env)
                    return st
                ctx.fail_if(cnt > LOOP_BOUND, f"bound: repeat beyond {LOOP_BOUND} (z3 encoding)")
                for j in range(LOOP_BOUND):
                    c = cnt > j
                    with ctx.under(c):
                        s2 = self.run(b, st, env)
                    st = self.merge(c, s2, st)
                return st
            case ir.While(test=t, limit=limit, body=b):
                bound = min(limit, LOOP_BOUND)
                live: Any = True
                for _ in range(bound):
                    with ctx.under(live):
                        c = self.truth(self.ev(t, st, env))
                    live = AND(live, c)
                    if live is False:
                        return st
                    with ctx.under(live):
                        s2 = self.run(b, st, env)
                    st = self.merge(live, s2, st)
                with ctx.under(live):
                    c = self.truth(self.ev(t, st, env))
                what = (f"undefined: the loop at spec line {s.where.line} ran past its max"
                        if bound == limit else f"bound: while beyond {bound} (z3 encoding)")
                ctx.fail_if(c, what)
                return st
        raise Unsupported(f"statement {type(s).__name__}")

    def assign(self, st: SymState, t: ir.Var, op: str, val: Any, env: dict) -> SymState:
        xs = st.V[t.name]
        boolean = self.enc.is_bool_var(t.name)

        def combine(old: Any) -> Any:
            if op == "=":
                return self.truth(val) if boolean else as_int(val)
            delta = as_int(val)
            return old + delta if op == "+=" else old - delta

        st = st.copy()
        if t.index is None:
            st.V[t.name] = (combine(xs[0]),)
            return st
        idx = as_int(self.ev(t.index, st, env))
        if isinstance(idx, int):
            if not 0 <= idx < len(xs):
                self.ctx.fail_if(True, f"undefined: {t.name}[{idx}] does not exist")
                return st
            st.V[t.name] = tuple(combine(x) if i == idx else x for i, x in enumerate(xs))
            return st
        self.ctx.require(AND(idx >= 0, idx < len(xs)), f"undefined: {t.name}[...] out of range")
        st.V[t.name] = tuple(ITE(idx == i, combine(x), x) for i, x in enumerate(xs))
        return st

    # ---------------------------------------------------------- effects
    def effect(self, s: ir.Do, st: SymState, env: dict, args: list | None = None) -> SymState:
        """Run effect `s` (with `args`, if given, in place of its arguments' values)."""
        if self.ctx.path is not False:
            self.ctx.sites.append((s, tuple(len(x) for x in st.S), env))
        fn = s.fn
        site = f"{fn}@{s.where.line}"
        if args is None:
            args = [self.ev(a, st, env) for a in s.args]
        kw = {k: as_int(self.ev(v, st, env)) for k, v in s.kwargs}
        if fn == "move":
            k, src, dst = as_int(args[0]), args[1], args[2]
            n = as_int(args[3]) if len(args) > 3 else 1
            return self.on_zone(st, src, lambda s1, i: self.on_zone(
                s1, dst, lambda s2, j: self.move_kind(s2, i, j, k, n, site)))
        if fn == "move_top":
            src, dst = args[0], args[1]
            n = as_int(args[2]) if len(args) > 2 else 1
            return self.on_zone(st, src, lambda s1, i: self.move_top(s1, i, dst, n, site))
        if fn == "move_all":
            keep = kw.get("keep", 0)
            if not isinstance(keep, int):
                raise Unsupported("move_all with a keep= that is not constant")
            return self.on_zone(st, args[0], lambda s1, i: self.on_zone(
                s1, args[1], lambda s2, j: self.move_all(s2, i, j, max(keep, 0))))
        if fn == "gather":
            wanted = args[0] if isinstance(args[0], SymList) else SymList(((True, args[0]),))
            return self.on_zone(st, args[1], lambda s1, j: self.gather(s1, wanted, j))
        if fn == "shuffle":
            def shuffle(s1: SymState, i: int) -> SymState:
                s1 = s1.copy()
                self.ctx.event("shuffle", i)
                s1.T[i] = self.new_top(s1, i)
                s1.S[i] = ()
                return s1
            return self.on_zone(st, args[0], shuffle)
        if fn == "deal":
            n = as_int(args[2])
            if not isinstance(n, int):
                raise Unsupported("deal with a number of items that is not constant")
            return self.on_zone(st, args[0], lambda s1, i: self.deal(s1, i, args[1], max(n, 0),
                                                                     site))
        if fn == "pay":
            amount = as_int(args[0])
            result: list[Any] = []
            st = self.on_zone(st, args[1], lambda s1, i: self.on_zone(
                s1, args[2], lambda s2, j: self.pay(s2, i, j, amount, result, site)))
            if len(result) != 1:
                raise Unsupported("pay between zones chosen at run time")
            if s.result is not None:
                st = self.assign(st, s.result, s.result_op, result[0], env)
            return st
        if fn == "exchange":
            return self.on_zone(st, args[0], lambda s1, i: self.on_zone(
                s1, args[1], lambda s2, j: self.exchange(s2, i, j, site)))
        raise Unsupported(f"effect {fn}")

    def move_kind(self, st: SymState, i: int, j: int, k: Any, n: Any, site: str) -> SymState:
        """move(kind, from, to, n): the runtime's move_bb / move_bp / move_pb / move_pp."""
        enc, ctx = self.enc, self.ctx
        if enc.inst_pile[i]:
            if not isinstance(n, int):
                raise Unsupported("moving a number of items from a pile that is not constant")
            for _ in range(max(n, 0)):
                st = self.take(st, i, k, site)
            if enc.inst_pile[j]:
                return self.push(st, j, k, max(n, 0))
            return self.add_kind(st, j, k, n)
        have = self.kcount(st, i, k)
        ctx.require(LE(n, have), f"undefined: not enough items in {enc.inst_name(i)}")
        if enc.shared(i):
            ctx.shortage(site, enc.inst_name(i), LT(have, n))
        st = self.add_kind(st, i, k, -n)
        if enc.inst_pile[j]:
            return self.push(st, j, k, n)
        return self.add_kind(st, j, k, n)

    def move_top(self, st: SymState, i: int, dst: ZoneRef, n: Any, site: str) -> SymState:
        """Each item is taken once and put where `dst` points (not taken once per place
        `dst` may denote: that would give each place its own chance draw)."""
        enc = self.enc
        if not enc.inst_pile[i]:
            raise Unsupported("move_top from a bag")
        total = enc.total(st, i)
        if isinstance(n, int):
            if n > 1:
                self.ctx.require(LE(n, total), f"undefined: taking {n} from the pile "
                                               f"{enc.inst_name(i)}")
            for _ in range(max(n, 0)):
                k, st = self.pop(st, i, site)
                st = self.on_zone(st, dst, lambda s1, j: self.put(s1, j, k))  # noqa: B023
            return st
        self.ctx.require(LE(n, total), f"undefined: taking from the pile {enc.inst_name(i)}")
        for c in range(sum(enc.copies[k] for k in enc.inst_kinds[i])):
            live = LT(c, n)
            with self.ctx.under(live):
                k, s2 = self.pop(st, i, site)
                s2 = self.on_zone(s2, dst, lambda s1, j: self.put(s1, j, k))  # noqa: B023
            st = self.merge(live, s2, st)
        return st

    def move_all(self, st: SymState, i: int, j: int, keep: int) -> SymState:
        enc, ctx = self.enc, self.ctx
        if not enc.inst_pile[i]:
            # all_bb / all_bp: kind by kind, add then clear (so moving a bag into itself
            # behaves as the runtime does)
            for pos, k in enumerate(enc.inst_kinds[i]):
                c = st.Z[i][pos]
                st = self.push(st, j, k, c) if enc.inst_pile[j] else self.add_kind(st, j, k, c)
                z = list(st.Z[i])
                z[pos] = 0
                st.Z[i] = tuple(z)
            return st
        total = enc.total(st, i)
        old = st.Z[i]
        ks = enc.inst_kinds[i]
        top = st.T[i]
        if keep == 0:
            kept: tuple = tuple(0 for _ in ks)
        elif keep == 1:
            nonempty = LE(1, total)
            kept = tuple(B2I(AND(nonempty, EQ(top, k))) for k in ks)
        else:
            kept = tuple(ctx.fresh("kept") for _ in ks)
            for kk, c, x in zip(ks, old, kept, strict=True):
                ctx.assume_(AND(x >= 0, x <= c))
                ctx.assume_(IMPLIES(AND(LE(1, total), EQ(top, kk)), x >= 1))
            ctx.assume_(SUM(list(kept)) == MIN(total, keep))
        moved = tuple(SUB(c, x) for c, x in zip(old, kept, strict=True))
        src_shadow = st.S[i]
        st = st.copy()
        st.Z[i] = kept
        if keep == 0:
            st.T[i] = enc.canon[enc.holds(i)]
            st.S[i] = ()
        else:
            st.S[i] = st.S[i][: keep - 1]
        if enc.inst_pile[j]:
            old_top = st.T[j]
            for k, c in zip(ks, moved, strict=True):
                st = self.add_kind(st, j, k, c)
            if keep == 0:
                st.T[j] = ITE(LT(0, total), top, old_top)
                # what was remembered below the source's top now lies below the moved top,
                # but only as deep as the source reached (then comes `j`'s old top)
                st.S[j] = (src_shadow if isinstance(total, int) and total > len(src_shadow)
                           else ())
            else:
                any_moved = LT(0, SUM(list(moved)))
                t = ctx.fresh("top")
                with ctx.under(any_moved):
                    ctx.assume_(OR(*[AND(EQ(t, k), LE(1, c)) for k, c in zip(ks, moved,
                                                                          strict=True)]))
                st.T[j] = ITE(any_moved, t, old_top)
                st.S[j] = ()
        else:
            for k, c in zip(ks, moved, strict=True):
                st = self.add_kind(st, j, k, c)
        ctx.event("move_all", i, j, keep, kept, top)
        return st

    def gather(self, st: SymState, wanted: SymList, j: int) -> SymState:
        """gather(kinds, into): every item of the wanted kinds, from every other zone of
        into's class, into `into` (in the order the kinds are listed)."""
        enc, ctx = self.enc, self.ctx
        ks = enc.classes[enc.holds(j)]
        w = {k: OR(*[AND(p, EQ(v, k)) for p, v in wanted.items]) for k in ks}
        found: dict[int, list] = {k: [] for k in ks}
        for i in range(enc.n_inst):
            if i == j or enc.holds(i) != enc.holds(j):
                continue
            new = []
            for k, c in zip(enc.inst_kinds[i], st.Z[i], strict=True):
                found[k].append(ITE(w[k], c, 0))
                new.append(ITE(w[k], 0, c))
            st = st.copy()
            st.Z[i] = tuple(new)
            if enc.inst_pile[i]:
                top_gone = OR(*[AND(w[k], EQ(st.T[i], k)) for k in ks])
                if top_gone is not False:
                    with ctx.under(top_gone):
                        t = self.new_top(st, i)
                    st.T[i] = ITE(top_gone, t, st.T[i])
                st.S[i] = ()
        ctx.event("drop_kinds", tuple(w[k] for k in ks), j)
        if all(isinstance(v, int) for _, v in wanted.items):
            order = [k for k in dict.fromkeys(v for _, v in wanted.items) if k in found]
        else:
            raise Unsupported("gather with kinds chosen at run time")
        for k in order:
            n = SUM(found[k])
            st = self.push(st, j, k, n) if enc.inst_pile[j] else self.add_kind(st, j, k, n)
        return st

    def deal(self, st: SymState, i: int, family: str, n: int, site: str) -> SymState:
        """deal(from_pile, family, n): n items each, one at a time, seat 0 first."""
        enc, ctx = self.enc, self.ctx
        if not enc.inst_pile[i]:
            raise Unsupported("deal from a bag")
        base = enc.base[family]
        targets = [base + p for p in range(enc.P)]
        total = enc.total(st, i)
        ctx.require(LE(n * enc.P, total), f"undefined: dealing {n} each from {enc.inst_name(i)}")
        if enc.shared(i):
            ctx.shortage(site, enc.inst_name(i), LT(total, n * enc.P))
        if n == 0:
            return st
        if st.S[i] or n * enc.P <= 2:
            # something is known below the top: deal card by card, exactly
            for _ in range(n):
                for j in targets:
                    k, st = self.pop(st, i, site)
                    st = self.put(st, j, k)
            return st
        with ctx.under(LE(n * enc.P, total)):
            return self._deal(st, i, targets, n)

    def _deal(self, st: SymState, i: int, targets: list[int], n: int) -> SymState:
        """A deal as counts: how many of each kind each player gets (an exact abstraction:
        any split of the counts is some order of the shuffled pile)."""
        enc, ctx = self.enc, self.ctx
        ks = enc.inst_kinds[i]
        top = st.T[i]
        hands = []
        for p in range(len(targets)):
            h = tuple(ctx.fresh(f"deal{p}_") for _ in ks)
            for x in h:
                ctx.assume_(x >= 0)
            ctx.assume_(SUM(list(h)) == n)
            if p == 0:  # the first item dealt is the pile's top
                ctx.assume_(OR(*[AND(EQ(top, k), x >= 1) for k, x in zip(ks, h, strict=True)]))
            hands.append(h)
        new_counts = tuple(SUB(c, SUM([h[pos] for h in hands])) for pos, c in enumerate(st.Z[i]))
        for c in new_counts:
            ctx.assume_(c >= 0)
        st = st.copy()
        st.Z[i] = new_counts
        st.S[i] = ()
        st.T[i] = self.new_top(st, i)
        dst_tops = []
        for h, j in zip(hands, targets, strict=True):
            for k, x in zip(ks, h, strict=True):
                st = self.add_kind(st, j, k, x)
            if enc.inst_pile[j]:
                t = ctx.fresh("top")
                ctx.assume_(OR(*[AND(EQ(t, k), x >= 1) for k, x in zip(ks, h, strict=True)]))
                st.T[j] = t
                st.S[j] = ()
                dst_tops.append(t)
            else:
                dst_tops.append(None)
        ctx.event("deal", i, tuple(targets), n, tuple(hands), top, tuple(dst_tops))
        return st

    def pay(self, st: SymState, i: int, j: int, amount: Any, result: list, site: str
            ) -> SymState:
        """Tokens worth `amount`, largest value first (the runtime's pay); keeps the shortfall."""
        enc = self.enc
        if enc.inst_pile[i] or enc.inst_pile[j]:
            raise Unsupported("pay with piles")
        left = amount
        for k in enc.denoms:
            v = enc.ka["value"][k]
            if v <= 0:
                continue
            have = self.kcount(st, i, k)
            m = ITE(LE(v, left), MIN(DIV(left, v), have), 0)
            st = self.add_kind(st, i, k, -m)
            st = self.add_kind(st, j, k, m)
            left = left - m * v
        if enc.shared(i):
            self.ctx.shortage(site, enc.inst_name(i), LT(0, left))
        result.append(left)
        return st

    def exchange(self, st: SymState, i: int, j: int, site: str) -> SymState:
        """Swap small tokens in zone i for larger ones from bank j (the runtime's exchange)."""
        enc = self.enc
        value = enc.ka["value"]
        for big in enc.denoms:
            bv = value[big]
            if bv <= 0:
                continue
            for small in reversed(enc.denoms):
                sv = value[small]
                if sv <= 0 or sv >= bv or bv % sv:
                    continue
                need = bv // sv
                m = MIN(DIV(self.kcount(st, i, small), need), self.kcount(st, j, big))
                m = ITE(LT(0, m), m, 0)
                st = self.add_kind(st, i, small, -m * need)
                st = self.add_kind(st, j, small, m * need)
                st = self.add_kind(st, j, big, -m)
                st = self.add_kind(st, i, big, m)
                if enc.shared(j):
                    self.ctx.shortage(site, enc.inst_name(j), AND(LE(need, self.kcount(st, i, small)),
                                                EQ(self.kcount(st, j, big), 0)))
        return st


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
                shapes = self._slots(a, st) if self.split_params or not a.params else [None]
                for slots in shapes:
                    if not self.split_actor:
                        out.append(Alt(ai, slots, None))
                        continue
                    for p in range(self.enc.P):
                        out.append(Alt(ai, slots, p))
            self._alts = out
        return self._alts

    def _slots(self, a: ir.ActionDecl, st: SymState) -> list[tuple[int, ...]]:
        ex = Exec(self.enc, Ctx("shape"))
        combos: list[tuple[tuple[int, ...], dict]] = [((), {})]
        for name, dom in a.params:
            new = []
            for slots, env in combos:
                lst = ex.ev(dom, st, env)
                if isinstance(lst, ZoneRef):
                    lst = ex.zone_kinds(st, lst)
                for pos, (_, v) in enumerate(lst.items):
                    new.append(((*slots, pos), {**env, name: v}))
            combos = new
        return [s for s, _ in combos]

    def action_part(self, st: SymState, alt: Alt, tag: str) -> StepPart:
        enc = self.enc
        ctx = Ctx(tag)
        ex = Exec(enc, ctx)
        a = self.g.actions[alt.action]
        pre = st.copy()
        present = [NOT(st.term)]
        actor = st.V["active"][0]
        if alt.actor is not None:
            actor = pre.V["active"] = (alt.actor,)
            actor = alt.actor
            present.append(EQ(st.V["active"][0], alt.actor))
        env: dict[str, Any] = {}
        for n, (name, dom) in enumerate(a.params):
            with ctx.under(AND(*present)):
                lst = ex.ev(dom, pre, env)
            if isinstance(lst, ZoneRef):
                lst = ex.zone_kinds(pre, lst)
            if alt.slots is not None:
                p, v = lst.items[alt.slots[n]]
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
            post = ex.run(a.effects, pre, env) if enabled is not False else pre
        post = post.copy()
        post.V["last_actor"] = (actor,)
        args = tuple(env[name] for name, _ in a.params)
        return StepPart(alt, enabled, guard_ok, args, post, ctx)

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
        Z, T, S = [], [], []
        start: dict[int, list[int]] = {}
        for k, kd in enumerate(g.kinds):
            start.setdefault(enc.base[kd.start], []).extend([k] * kd.copies)
        for i in range(enc.n_inst):
            items = start.get(i, [])
            Z.append(tuple(items.count(k) for k in enc.inst_kinds[i]))
            if enc.inst_pile[i]:
                T.append(items[-1] if items else enc.canon[enc.holds(i)])
                S.append(tuple(reversed(items[:-1])))
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
