"""An upper bound on the work one step of a game can take, from the spec alone.

Every loop of the spec language is bounded: a list by what it ranges over (the seats,
the kinds, an index set, a `range` of at most `MAX_RANGE`), `repeat` by its count and
`while` by its `max`. Multiplying those bounds through the nesting of loops, choices
and comprehensions gives the most steps one action (listing its legal choices and
carrying out its effects), the set-up, a round's start or its scoring may take. A spec
whose bound is over `MAX_WORK` is refused when it is loaded, so no spec can make the
tool run for minutes on one step. The bound counts list elements visited and
statements run; it is deliberately coarse (a zone scan counts every kind).
"""

from __future__ import annotations

from collections.abc import Iterable

from . import ir
from .errors import Where
from .fold import fold
from .limits import MAX_ITEMS, MAX_RANGE, MAX_REPEAT, MAX_WORK


class _Bounds:
    def __init__(self, g: ir.GameIR):
        self.g = g
        self.kinds = max(len(g.kinds), 1)
        self.items = max(sum(k.copies for k in g.kinds), 1)
        self.sizes = {ix.name: ix.size for ix in g.indices}
        self.slots = sum(1 if z.per is None else self.sizes.get(z.per, g.players)
                         for z in g.zones)
        self.list_attrs = {a: max((len(k.attrs[a]) for k in g.kinds), default=0)
                           for a, t in g.kind_attrs.items() if t.name == "list"}

    # ------------------------------------------------------------- lists
    def length(self, e: ir.Expr) -> int:
        """The most elements the list `e` can have."""
        e = fold(e)
        match e:
            case ir.Builtin(name="players"):
                return self.g.players
            case ir.Builtin(name="cards" | "tokens"):
                return self.kinds
            case ir.Builtin(name=n) if n in self.sizes:
                return self.sizes[n]
            case ir.Call(fn="kinds"):
                return self.kinds
            case ir.Call(fn="after"):
                return self.g.players
            case ir.Call(fn="range", args=(ir.Const(value=a), ir.Const(value=b))):
                return max(b - a, 0)
            case ir.Call(fn="range"):
                return MAX_RANGE  # checked in play
            case ir.Call(fn="distinct", args=(x,)):
                return self.length(x)
            case ir.Comp(fn="list" | "distinct", gens=gens):
                return _product(self.length(g.iter) for g in gens)
            case ir.ListLit(items=items):
                return len(items)
            case ir.Bin(op="+", left=a, right=b):
                return self.length(a) + self.length(b)
            case ir.Cond(body=a, orelse=b):
                return max(self.length(a), self.length(b))
            case ir.Attr(attr=a) if a in self.list_attrs:
                return self.list_attrs[a]
            case ir.Const(value=tuple() as v):
                return len(v)
        return MAX_ITEMS

    # -------------------------------------------------------- expressions
    def expr(self, e: ir.Expr) -> int:
        """Steps to evaluate `e` once."""
        match e:
            case ir.Comp(gens=gens, elt=elt, default=d):
                inner = self.expr(elt) + (self.expr(d) if d is not None else 0)
                for g in reversed(gens):
                    inner = self.expr(g.iter) + self.length(g.iter) * (
                        sum(self.expr(c) for c in g.conds) + inner + 1)
                return inner
            case ir.Call(fn=fn, args=args):
                own = self.kinds if fn in ("count", "kinds", "empty", "lowest", "highest",
                                           "worth") else 1
                if fn in ("range", "after", "len", "sum", "min", "max", "any", "all",
                          "distinct", "first") and args:
                    own = self.length(args[0])
                return own + sum(self.expr(a) for a in args)
            case ir.Cmp(op="in" | "notin", left=a, right=b):
                return self.kinds + self.length(b) + self.expr(a) + self.expr(b)
        return 1 + sum(self.expr(c) for c in ir.children(e))

    # --------------------------------------------------------- statements
    def stmts(self, body: Iterable[ir.Stmt]) -> int:
        return sum(self.stmt(s) for s in body)

    def stmt(self, s: ir.Stmt) -> int:
        match s:
            case ir.Assign(value=v):
                return 1 + self.expr(v)
            case ir.Do(fn=fn, args=args, kwargs=kwargs):
                own = {"gather": self.slots * self.kinds, "shuffle": self.items,
                       "deal": self.items, "move_all": self.items + self.kinds,
                       "move": self.items, "move_top": self.items}.get(fn, self.kinds)
                return own + sum(self.expr(a) for a in args) + sum(
                    self.expr(v) for _, v in kwargs)
            case ir.If(test=t, then=a, orelse=b):
                return self.expr(t) + max(self.stmts(a), self.stmts(b))
            case ir.For(iter=it, body=b):
                return self.expr(it) + self.length(it) * (1 + self.stmts(b))
            case ir.Repeat(count=n, body=b):
                c = fold(n)
                times = c.value if isinstance(c, ir.Const) else MAX_REPEAT
                return self.expr(n) + max(times, 0) * (1 + self.stmts(b))
            case ir.While(test=t, limit=limit, body=b):
                return (limit + 1) * (self.expr(t) + self.stmts(b) + 1)
        return 1

    def action(self, a: ir.ActionDecl) -> int:
        choices, domains = 1, 0
        for _, dom in a.params:
            domains += choices * self.expr(dom)
            choices *= self.length(dom)
        return domains + choices * (self.expr(a.when) + 1) + self.stmts(a.effects)


def _product(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def steps(g: ir.GameIR) -> dict[str, tuple[int, Where | None]]:
    """The bound of each part of a game that runs as one step, with where it is written."""
    b = _Bounds(g)
    checks = sum(b.expr(c.expr) for c in (*g.round_end, *g.game_end, *g.invariants))
    if g.measure is not None:
        checks += b.expr(g.measure)
    checks += g.players * b.expr(g.score) + b.expr(g.winners)

    def first(body: tuple[ir.Stmt, ...]) -> Where | None:
        return body[0].where if body else None

    out = {f"action {a.name}": (b.action(a) + checks, a.where) for a in g.actions}
    out["set-up"] = (b.stmts(g.setup) + b.stmts(g.round_start), first(g.setup))
    out["round start"] = (b.stmts(g.round_start), first(g.round_start))
    out["scoring"] = (b.stmts(g.scoring) + b.stmts(g.round_start) + checks, first(g.scoring))
    return out


def too_much(g: ir.GameIR) -> tuple[Where | None, str] | None:
    """The part of `g` whose bound is over MAX_WORK (the largest), or None."""
    worst = max(steps(g).items(), key=lambda kv: kv[1][0])
    name, (bound, where) = worst
    if bound <= MAX_WORK:
        return None
    return where, (f"{name} may take up to {bound:,} steps with {g.players} players, over the "
                   f"limit of {MAX_WORK:,} (max_work): its loops, choices and comprehensions "
                   "multiply; bound them more tightly")
