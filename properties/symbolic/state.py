"""The symbolic state: every zone instance as one integer per kind (plus a pile's known
top items), every variable as one z3 term; `Enc` lays a game's state out and reads
values back from a z3 model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs
import z3

from model import ir
from model.codegen import Layout
from model.types import Type

from .terms import AND, B2I, EQ, ITE, KNOWN_BELOW, LE, LT, NOT, OR, SUM, is_bool


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

    `N[i]`, where set, is `(Z[i], n)`: a term n equal to the sum of those counts, built
    along the effects (a move of one item adds one) and so far smaller than the sum of
    the per-kind terms. It is trusted only while `Z[i]` is that very tuple: a count
    written without updating it drops it (`Enc.total`).
    """

    __slots__ = ("N", "S", "T", "V", "Z", "term")

    def __init__(self, Z: list, T: list, S: list, V: dict, term: Any,
                 N: list | None = None) -> None:
        self.Z, self.T, self.S, self.V, self.term = Z, T, S, V, term
        self.N = N if N is not None else [None] * len(Z)

    def copy(self) -> SymState:
        return SymState(list(self.Z), list(self.T), list(self.S), dict(self.V), self.term,
                        list(self.N))

    def set_total(self, i: int, n: Any) -> None:
        """Record n as the sum of the counts now in `Z[i]`."""
        self.N[i] = (self.Z[i], n)


# ------------------------------------------------------------------ the static layout
class Enc:
    """What the translation needs to know about one GameIR: instances, kinds, var types."""

    def __init__(self, g: ir.GameIR, codes: dict[str, int] | None = None) -> None:
        """`codes` seeds the integer codes of names (enum values), so that two versions of a
        game can give the same name the same code."""
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
        self.codes: dict[str, int] = dict(codes or {})
        for values in g.enums.values():
            for value in values:
                self.code(value)
        self.vtypes: dict[str, tuple[Any, int]] = {
            "active": (Type("player"), 1), "round": (Type("int"), 1),
            "last_actor": (Type("player"), 1)}
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
        #: which `while` loops forget their last try (properties/symbolic/retry.py)
        self.retry_cache: dict[tuple, bool] = {}
        #: how many times each `while` loop can run (properties/symbolic/loop_bounds.py)
        self.loop_cache: dict[tuple, int] = {}
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
                S.append(tuple(reversed(content[:-1]))[:KNOWN_BELOW])
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
        known = st.N[i]
        if known is not None and known[0] is st.Z[i]:
            return known[1]
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

    def wf_parts(self, st: SymState) -> list[tuple[str, Any]]:
        """`wf` in parts (each far easier for z3 alone): counts >= 0, each kind's total,
        each pile's top, the variables."""
        counts = [LE(0, c) for zs in st.Z for c in zs]
        totals = [EQ(t, self.copies[k]) for k, t in enumerate(self.kind_totals(st))]
        tops = [self.top_ok(st, i, st.T[i]) for i in range(self.n_inst) if self.inst_pile[i]]
        return [("counts >= 0", AND(*counts)), ("each kind's total", AND(*totals)),
                ("each pile's top", AND(*tops)), ("the variables' types", self.vars_ok(st))]

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
        out: list[Any] = []
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
            exprs.extend(stmt_exprs(a.effects))
        for body in (g.setup, g.round_start, g.scoring):
            exprs.extend(stmt_exprs(body))
        exprs.extend(v.init for v in g.vars)
        return any(isinstance(n, ir.Var) and n.name == name for e in exprs for n in ir.walk(e))


# ------------------------------------------------------------------ sound zones
def sound(enc: Enc, st: SymState, insts: Iterable[int]) -> Any:
    """The zones `insts` of `st` are sound: every count >= 0, an empty pile's top is its
    class's first kind, and the known items of each pile (its top, then those remembered
    below it, as far down as the pile reaches) are items it holds, kind by kind (see
    properties/symbolic/lemmas.py, which proves that every effect keeps zones sound)."""
    out = []
    for i in insts:
        counts = st.Z[i]
        out += [LE(0, c) for c in counts]
        if not enc.inst_pile[i]:
            continue
        ks = enc.inst_kinds[i]
        n = enc.total(st, i)
        known = (st.T[i], *st.S[i])
        out.append(OR(LT(0, n), EQ(st.T[i], enc.canon[enc.holds(i)])))
        for depth, x in enumerate(known):
            out.append(OR(LE(n, depth), *[EQ(x, k) for k in ks]))
        # the d-th known item, if the pile reaches that deep, is one more copy of its kind
        # than the known items above it (the implication form z3 handles best)
        for k, c in zip(ks, counts, strict=True):
            for d, x in enumerate(known):
                above = SUM([B2I(EQ(y, k)) for y in known[:d]])
                out.append(OR(NOT(EQ(x, k)), LE(n, d), LE(1 + above, c)))
    return AND(*out)


def lemma_state(enc: Enc, prefix: str, depths: tuple[int, ...]) -> SymState:
    """Fresh variables, with `depths[i]` items remembered below pile i's top."""
    st = enc.fresh_state(prefix)
    st.S = [tuple(z3.Int(f"{prefix}.{enc.inst_name(i)}^below{d}") for d in range(n))
            for i, n in enumerate(depths)]
    return st


def fresh_env(env: dict[str, Any], prefix: str) -> dict[str, Any] | None:
    """Bound names as fresh variables of the same sort, except those the execution knew
    exactly (a loop over the players), which keep their value (None if one is neither a
    number nor a yes/no, such as a zone)."""
    out: dict[str, Any] = {}
    for name, v in env.items():
        if isinstance(v, bool | int):
            out[name] = v
        elif is_bool(v):
            out[name] = z3.Bool(f"{prefix}.{name}")
        elif isinstance(v, z3.ArithRef):
            out[name] = z3.Int(f"{prefix}.{name}")
        else:
            return None
    return out


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


def stmt_exprs(body: Sequence[ir.Stmt]) -> Iterator[ir.Expr]:
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
                yield from stmt_exprs(a)
                yield from stmt_exprs(b)
            case ir.For(iter=it, body=b):
                yield it
                yield from stmt_exprs(b)
            case ir.Repeat(count=n, body=b):
                yield n
                yield from stmt_exprs(b)
            case ir.While(test=t, body=b):
                yield t
                yield from stmt_exprs(b)


# ------------------------------------------------------------------ execution context
