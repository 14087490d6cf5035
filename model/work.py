"""An upper bound on the work one step of a game can take, from the spec alone.

Every loop of the spec language is bounded: a list by what it ranges over (the seats,
the kinds, an index set, a `range` of at most `MAX_RANGE`), `repeat` by its count and
`while` by its `max`. Multiplying those bounds through the nesting of loops, choices
and comprehensions gives the most steps one action (listing its legal choices and
carrying out its effects), the set-up, a round's start or its scoring may take. A spec
whose bound is over `MAX_WORK` is refused when it is loaded, so no spec can make the
tool run for minutes on one step. The bound counts list elements visited, statements
run and items or kinds scanned (a bag is scanned kind by kind, a pile item by item).

The bound is honest: it is what the generated code can do, no less and not much more.

- Constants are folded, the player count included: an `if` (or `x if c else y`) whose
  test the player count and the chosen readings decide counts only its branch, and a
  `repeat` or `range` known then counts what it is.
- Otherwise the larger branch of an `if` counts, not both.
- An expression is evaluated once per state where it is used more than once (*memo*):
  within one evaluation context (a statement of the effects, the round-end conditions,
  the game-end conditions, an invariant, the measure, a player's score, the winners),
  a part that reads no variable the context's own comprehensions bind, holds a
  comprehension, and would be evaluated twice or more (two uses of a def, or one inside
  a comprehension) is computed at its first use and kept. `plan` chooses those parts;
  the code generator keeps exactly them (`codegen.Emitter`), so the bound counts each
  once and every other use as one step.

When a part is over the limit, the error names where its steps go: the costliest
expression of the spec (a condition, the winners, a statement) and, when a def holds
most of it, the def, each with its place and its share of the bound.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from . import ir
from .errors import Where
from .fold import fold, known
from .limits import MAX_ITEMS, MAX_RANGE, MAX_REPEAT, MAX_WORK


@attrs.frozen
class Site:
    """A place the steps of a bound are charged to: a def, or an expression or statement of
    the spec (`label` as an error names it, `where` its place if known)."""

    label: str
    where: Where | None = attrs.field(default=None, eq=False)

    def shown(self) -> str:
        return f"{self.label} ({self.where})" if self.where is not None and self.where.line \
            else self.label


@attrs.define
class _Ctx:
    """One evaluation context: the parts kept once (memo) and the site it is charged to."""

    memo: frozenset[ir.Expr]
    site: Site


_NO_MEMO: frozenset[Any] = frozenset()  # no expressions kept, no names bound


class Bounds:
    """The work bounds of one game (`steps`); also the memo plan the code generator uses."""

    def __init__(self, g: ir.GameIR, defs: Mapping[ir.Expr, Site] | None = None):
        self.g = g
        self.kinds = max(len(g.kinds), 1)
        self.items = max(sum(k.copies for k in g.kinds), 1)
        self.class_items = {cls: max(sum(k.copies for k in g.kinds if k.item_class == cls), 1)
                            for cls in ("cards", "tokens")}
        self.zones = {z.name: z for z in g.zones}
        self.sizes = {ix.name: ix.size for ix in g.indices}
        self.slots = sum(1 if z.per is None else self.sizes.get(z.per, g.players)
                         for z in g.zones)
        self.list_attrs = {a: max((len(k.attrs[a]) for k in g.kinds), default=0)
                           for a, t in g.kind_attrs.items() if t.name == "list"}
        self.defs = dict(defs or {})
        # the tallies, while a bound is broken down (`breakdown`): steps by innermost site,
        # and by the context (a statement, a condition, ...) they are taken in
        self.tally: Counter[Any] | None = None
        self.tally_ctx: Counter[Any] | None = None
        self._free: dict[int, frozenset[str]] = {}
        self._comp: dict[int, bool] = {}
        self._keep: list[ir.Expr] = []  # the nodes the two caches above are keyed by (ids)

    # --------------------------------------------------------- constants
    def constant(self, e: ir.Expr) -> ir.Const | None:
        """`e` folded with the player count known, if that makes it a constant."""
        c = known(e, self.g.players)
        return c if isinstance(c, ir.Const) else None

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
            case ir.Call(fn="range", args=(a, b)):
                lo, hi = self.constant(a), self.constant(b)
                if lo is not None and hi is not None:
                    span: int = hi.value - lo.value
                    return max(span, 0)
                return MAX_RANGE  # checked in play
            case ir.Call(fn="distinct", args=(x,)):
                return self.length(x)
            case ir.Comp(fn="list" | "distinct", gens=gens):
                return _product(self.length(g.iter) for g in gens)
            case ir.ListLit(items=items):
                return len(items)
            case ir.Bin(op="+", left=a, right=b):
                return self.length(a) + self.length(b)
            case ir.Cond(test=t, body=a, orelse=b):
                c = self.constant(t)
                if c is not None:
                    return self.length(a if c.value else b)
                return max(self.length(a), self.length(b))
            case ir.Attr(attr=a) if a in self.list_attrs:
                return self.list_attrs[a]
            case ir.Const(value=tuple() as v):
                return len(v)
        return MAX_ITEMS

    # ---------------------------------------------------------- the memo plan
    def _free_locals(self, e: ir.Expr) -> frozenset[str]:
        out = self._free.get(id(e))
        if out is None:
            out = self._free[id(e)] = frozenset(ir.free_locals(e))
            self._keep.append(e)
        return out

    def _has_comp(self, e: ir.Expr) -> bool:
        out = self._comp.get(id(e))
        if out is None:
            out = isinstance(e, ir.Comp) or any(self._has_comp(c) for c in ir.children(e))
            self._comp[id(e)] = out
            self._keep.append(e)
        return out

    def plan(self, roots: Iterable[ir.Expr]) -> list[ir.Expr]:
        """The parts of an evaluation context (its expressions, folded) that are kept once
        per evaluation: each holds a comprehension, reads no variable a comprehension of
        the context binds around it, and would be evaluated twice or more (it is used
        twice, or inside a comprehension over two or more elements). In the order of their
        first use."""
        weight: dict[ir.Expr, int] = {}

        def visit(e: ir.Expr, bound: frozenset[str], times: int) -> None:
            if not self._has_comp(e):
                return
            if not (self._free_locals(e) & bound):
                weight[e] = min(weight.get(e, 0) + times, 2)
            match e:
                case ir.Comp(elt=elt, gens=gens, default=d):
                    if d is not None:
                        visit(d, bound, times)
                    for g in gens:
                        visit(g.iter, bound, times)
                        times = min(times * self.length(g.iter), 2)
                        bound = bound | {g.var}
                        for c in g.conds:
                            visit(c, bound, times)
                    visit(elt, bound, times)
                case _:
                    for c in ir.children(e):
                        visit(c, bound, times)

        for r in roots:
            visit(r, _NO_MEMO, 1)
        return [x for x, w in weight.items() if w >= 2]

    # -------------------------------------------------------- expressions
    def _add(self, site: Site, n: int) -> None:
        """Charge `n` steps of an expression to `site` (its context is charged as a whole)."""
        if self.tally is not None and n:
            self.tally[site] += n

    def _own(self, site: Site, n: int) -> None:
        """Charge `n` steps of a statement itself (or a choice) to `site`."""
        if self.tally is not None and self.tally_ctx is not None and n:  # set together
            self.tally[site] += n
            self.tally_ctx[site] += n

    @contextlib.contextmanager
    def _dry(self) -> Iterator[None]:
        """Within: nothing is tallied (a branch measured only to compare it)."""
        saved = self.tally, self.tally_ctx
        self.tally = self.tally_ctx = None
        try:
            yield
        finally:
            self.tally, self.tally_ctx = saved

    def _larger(self, options: Sequence[tuple[Any, ...]], run: Callable[..., int]) -> int:
        """The most steps of `run(*option)` over the options, tallying only that option."""
        if self.tally is None:
            return max((run(*o) for o in options), default=0)
        with self._dry():
            costs = [run(*o) for o in options]
        if not costs:
            return 0
        return run(*options[costs.index(max(costs))])

    def scan(self, zone: ir.Expr, pile: int, bag: int) -> int:
        """Steps of a zone operation that costs `pile` on a pile and `bag` on a bag."""
        ref = zone.type.ref
        z = self.zones.get(ref) if zone.type.name == "zone" and ref is not None else None
        if z is None:
            return max(pile, bag)
        return pile if z.order == "pile" else bag

    def ex(self, e: ir.Expr, c: _Ctx, k: int, site: Site, bound: frozenset[str],
           top: bool = False) -> int:
        """Steps to evaluate `e` once in context `c`, where `bound` names the variables the
        context's comprehensions bind here; `k` times per evaluation of the part being
        bounded (for the tally, which is charged to `site` or the def `e` expands)."""
        if not top and c.memo and e in c.memo and not (self._free_locals(e) & bound):
            self._add(site, k)  # kept: a look-up
            return 1
        site = self.defs.get(e, site) if self.defs else site
        match e:
            case ir.Comp(elt=elt, gens=gens, default=d):
                total = self.ex(d, c, k, site, bound) if d is not None else 0
                times = 1
                for g in gens:
                    total += times * self.ex(g.iter, c, k * times, site, bound)
                    times *= self.length(g.iter)
                    bound = bound | {g.var}
                    self._add(site, k * times)
                    total += times * (1 + sum(self.ex(x, c, k * times, site, bound)
                                              for x in g.conds))
                return total + times * self.ex(elt, c, k * times, site, bound)
            case ir.Cond(test=t, body=a, orelse=b):
                self._add(site, k)
                total = 1 + self.ex(t, c, k, site, bound)
                known_test = self.constant(t)
                if known_test is not None:
                    return total + self.ex(a if known_test.value else b, c, k, site, bound)
                return total + self._larger([(a,), (b,)],
                                            lambda x: self.ex(x, c, k, site, bound))
            case ir.BoolOp(op=op, values=vs):
                self._add(site, k)
                total = 1
                for v in vs:
                    total += self.ex(v, c, k, site, bound)
                    known_v = self.constant(v)
                    if known_v is not None and known_v.value == (op == "or"):
                        break  # the rest is never evaluated
                return total
            case ir.Call(args=args):
                own = self.call_steps(e)
                self._add(site, k * own)
                return own + sum(self.ex(a, c, k, site, bound) for a in args)
            case ir.Cmp(op="in" | "notin", left=a, right=b):
                if b.type.name == "zone":
                    own = self.scan(b, self.class_items.get(self._holds(b), self.items), 1)
                else:
                    own = self.length(b)
                own += 1
                self._add(site, k * own)
                return own + self.ex(a, c, k, site, bound) + self.ex(b, c, k, site, bound)
        self._add(site, k)
        return 1 + sum(self.ex(x, c, k, site, bound) for x in ir.children(e))

    def _holds(self, zone: ir.Expr) -> str:
        ref = zone.type.ref
        z = self.zones.get(ref) if ref is not None else None
        return z.holds if z is not None else "cards"

    def call_steps(self, e: ir.Call) -> int:
        """The steps of a call itself, its arguments aside."""
        fn, args = e.fn, e.args
        if fn in ("count", "empty", "kinds", "top", "lowest", "highest", "worth"):
            zone = args[0]
            items = self.class_items.get(self._holds(zone), self.items)
            match fn:
                case "count" if len(args) == 2:
                    return self.scan(zone, items, 1)
                case "count" | "empty":
                    return self.scan(zone, 1, self.kinds)
                case "top":
                    return 1
                case "worth":
                    return self.scan(zone, items, self.kinds)
            return self.scan(zone, items + self.kinds, self.kinds)  # kinds, lowest, highest
        if fn in ("range", "after"):
            return max(self.length(e), 1)  # the list made
        if fn in ("sum", "min", "max", "any", "all", "distinct", "first") and args:
            return max(self.length(args[0]), 1)  # the list read
        return 1

    def context(self, parts: Sequence[tuple[ir.Expr, Site]], k: int = 1,
                memo: bool = True) -> int:
        """Steps to evaluate the expressions of one context (each with the site charged for
        it), the parts of `plan` kept once; `k` evaluations of it per bounded part."""
        roots = [fold(e) for e, _ in parts]
        kept = frozenset(self.plan(roots)) if memo else _NO_MEMO
        total = 0
        for r, (_, site) in zip(roots, parts, strict=True):
            total += self._charged(site, k, functools.partial(
                self.ex, r, _Ctx(kept, site), k, site, _NO_MEMO))
        for x in kept:  # each kept part computed once, charged to its first use's site
            site = self.defs.get(x) or next(s for r, (_, s) in zip(roots, parts, strict=True)
                                            if any(n == x for n in ir.walk(r)))
            total += self._charged(site, k, functools.partial(
                self.ex, x, _Ctx(kept, site), k, site, _NO_MEMO, top=True))
        return total

    def _charged(self, site: Site, k: int, run: Callable[[], int]) -> int:
        """`run()` (the steps of one evaluation), and the steps charged to the context `site`."""
        steps = run()
        if self.tally_ctx is not None:
            self.tally_ctx[site] += k * steps
        return steps

    # --------------------------------------------------------- statements
    def stmts(self, body: Iterable[ir.Stmt], k: int, section: str) -> int:
        return sum(self.stmt(s, k, section) for s in body)

    def stmt(self, s: ir.Stmt, k: int, section: str) -> int:
        site = Site(f"{section}, the statement at line {s.where.line}", s.where)
        match s:
            case ir.Assign(target=t, value=v):
                self._own(site, k)
                return 1 + self.context([(v, site), (t, site)], k)
            case ir.Do(fn=fn, args=args, kwargs=kwargs, result=result):
                own = {"gather": self.slots * self.kinds, "shuffle": self.items,
                       "deal": self.items, "move_all": self.items + self.kinds,
                       "move": self.items, "move_top": self.items}.get(fn, self.kinds)
                self._own(site, k * own)
                exprs = [*args, *(v for _, v in kwargs), *([result] if result else [])]
                return own + self.context([(x, site) for x in exprs], k)
            case ir.If(test=t, then=a, orelse=b):
                test = fold(t)
                if isinstance(test, ir.Const):  # the code generator keeps only the branch
                    return self.stmts(a if test.value else b, k, section)
                total = self.context([(t, site)], k)
                known_test = self.constant(t)
                if known_test is not None:
                    return total + self.stmts(a if known_test.value else b, k, section)
                return total + self._larger([(a,), (b,)],
                                            lambda x: self.stmts(x, k, section))
            case ir.For(iter=it, body=b):
                n = self.length(it)
                self._own(site, k * n)
                return self.context([(it, site)], k) + n * (1 + self.stmts(b, k * n, section))
            case ir.Repeat(count=count, body=b):
                c = self.constant(count)
                times = max(c.value, 0) if c is not None else MAX_REPEAT
                self._own(site, k * times)
                return self.context([(count, site)], k) + times * (
                    1 + self.stmts(b, k * times, section))
            case ir.While(test=t, limit=limit, body=b):
                n = limit + 1
                self._own(site, k * n)  # the test is evaluated anew each time: nothing kept
                return n * (1 + self.context([(t, site)], k * n, memo=False)
                            + self.stmts(b, k * n, section))
        self._own(site, k)
        return 1

    def action(self, a: ir.ActionDecl, places: Mapping[str, Where]) -> int:
        choices, total = 1, 0
        site = Site(f"the parameters of action {a.name}", places.get(f"action {a.name} params"))
        for _, dom in a.params:
            total += choices * self.context([(dom, site)], choices, memo=False)
            choices *= self.length(dom)
        site = Site(f"the condition of action {a.name}", places.get(f"action {a.name} when"))
        self._own(site, choices)
        total += choices * (1 + self.context([(a.when, site)], choices, memo=False))
        return total + self.stmts(a.effects, 1, f"action {a.name}")

    def checks(self, places: Mapping[str, Where]) -> int:
        """What runs after every action: the round end; if it ends, the game end, the
        winners and the scores (with the measure and the invariants the checks read)."""
        g = self.g

        def site(key: str, label: str) -> Site:
            return Site(label, places.get(key))

        total = self.context([(c.expr, site(f"round end {c.name}", f"the round end {c.name}"))
                              for c in g.round_end])
        total += self.context([(c.expr, site(f"game end {c.name}", f"the game end {c.name}"))
                               for c in g.game_end])
        for c in g.invariants:
            total += self.context([(c.expr, site(f"invariant {c.name}",
                                                 f"the invariant {c.name}"))])
        if g.measure is not None:
            total += self.context([(g.measure, site("round measure", "round.measure"))])
        total += g.players * self.context([(g.score, site("score", "score"))], g.players)
        return total + self.context([(g.winners, site("winners", "game_end.winners"))])


def _product(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def steps(g: ir.GameIR, defs: Mapping[ir.Expr, Site] | None = None,
          places: Mapping[str, Where] | None = None) -> dict[str, tuple[int, Where | None]]:
    """The bound of each part of a game that runs as one step, with where it is written."""
    return {name: (run(), where) for name, (run, where) in
            _parts(Bounds(g, defs), places or {}).items()}


def _parts(b: Bounds, places: Mapping[str, Where]) -> dict[str, tuple[Any, ...]]:
    g = b.g

    def first(body: tuple[ir.Stmt, ...]) -> Where | None:
        return body[0].where if body else None

    out: dict[str, tuple[Any, ...]] = {}
    for a in g.actions:
        out[f"action {a.name}"] = (lambda a=a: b.action(a, places) + b.checks(places), a.where)
    out["set-up"] = (lambda: b.stmts(g.setup, 1, "setup") + b.stmts(g.round_start, 1,
                                                                     "round.start"),
                     first(g.setup))
    out["round start"] = (lambda: b.stmts(g.round_start, 1, "round.start"), first(g.round_start))
    out["scoring"] = (lambda: b.stmts(g.scoring, 1, "round.scoring")
                      + b.stmts(g.round_start, 1, "round.start") + b.checks(places),
                      first(g.scoring))
    return out


def breakdown(g: ir.GameIR, part: str, defs: Mapping[ir.Expr, Site] | None = None,
              places: Mapping[str, Where] | None = None) -> tuple[int, Counter[Any], Counter[Any]]:
    """The bound of one part (a key of `steps`), with its steps by innermost site (a def or
    an expression) and by the expression or statement they are taken in."""
    b = Bounds(g, defs)
    b.tally, b.tally_ctx = Counter(), Counter()
    run, _ = _parts(b, places or {})[part]
    return run(), b.tally, b.tally_ctx


def too_much(g: ir.GameIR, defs: Mapping[ir.Expr, Site] | None = None,
             places: Mapping[str, Where] | None = None) -> tuple[Where | None, str] | None:
    """The part of `g` whose bound is over MAX_WORK (the largest), or None: with the place
    and a message naming where most of its steps go."""
    bounds = steps(g, defs, places)
    name, (bound, where) = max(bounds.items(), key=lambda kv: kv[1][0])
    if bound <= MAX_WORK:
        return None
    total, inner, outer = breakdown(g, name, defs, places)
    assert total == bound, (total, bound)
    blame = []
    context = max(outer.items(), key=lambda kv: kv[1], default=None)
    costly = max(((s, n) for s, n in inner.items() if s.label.startswith("def ")),
                 key=lambda kv: kv[1], default=None)
    if costly is not None and costly[1] * 4 >= bound:  # a def holding a quarter or more
        blame.append(costly)
    if context is not None:
        blame.append(context)
    for s, _ in blame:  # the error points at the first of them written in the spec
        if s.where is not None and s.where.line:
            where = s.where
            break
    said = ", ".join(f"{_share(n, bound)} in {s.shown()}" for s, n in blame)
    after = ", with the checks after it," if name.startswith("action") or name == "scoring" \
        else ""
    return where, (f"{name}{after} may take up to {bound:,} steps with {g.players} players, "
                   f"over the limit of {MAX_WORK:,} (max_work)"
                   + (f": {said}" if said else "")
                   + "; its loops, choices and comprehensions multiply: bound them more "
                     "tightly")


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:.0f}% ({n:,} steps)" if total else f"{n:,} steps"
