"""What changed in the rules between two versions of a game, computed on the IR.

Items are matched by name — params, kinds, zones, index sets, variables, actions (say,
parameters, condition, effects), round-end and game-end conditions, set-up, round start,
scoring, winners, score, invariants, ambiguities and their readings — and shown with their
citations; never a line diff of the YAML. Before comparing, each version's IR is put in a
*normal form* (`norm`): kinds by name rather than by number, bound names (comprehension
variables, action parameters) by position, citations and source positions left out. So:

- a consistent rename (a kind, zone, variable, action or condition whose declaration and
  every use changed name and nothing else) is reported as a rename, not a change in play
  (`find_renames`);
- a reordering of actions, kinds, zones or definitions is reported as such, not a change;
- a condition rewritten into an equivalent one (an action's condition, a round-end or
  game-end condition) is checked with z3 over well-formed states; where z3 cannot decide,
  the report says the comparison was only syntactic.

Defs are expanded where they are used, so a changed def shows in the clauses that use it
(and is listed under `defs` too). A param whose value the chosen reading of an ambiguity
sets is overridden by that reading: editing it changes nothing, and `warnings` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from difflib import SequenceMatcher
from typing import Any

import attrs

from model import ir
from model.fold import fold, with_player_count
from model.types import Type

from .versions import Version

Renames = dict[str, dict[str, str]]
#: renames as read (not built): what `alike` and `Normal` take
ReadRenames = Mapping[str, Mapping[str, str]]
CATEGORIES = ("kinds", "zones", "vars", "actions", "conditions", "params")


@attrs.frozen
class Change:
    """One difference in the rules. `play`: True, it changes play; False, it does not (a
    rename, a reordering, citations, an equivalent rewrite); None, the search for a parting
    game decides."""

    section: str  # params, kinds, zones, vars, actions, round end, scoring, ...
    name: str  # the item: "hand_size", "play: condition", "statement 2"
    what: str  # added / removed / changed / renamed / reordered / citations changed / ...
    old: str = ""
    new: str = ""
    cite: tuple[str, ...] = ()
    play: bool | None = None
    note: str = ""
    players: tuple[int, ...] = ()  # the player counts where it holds; () for all

    def key(self) -> tuple:
        return (self.section, self.name, self.what, self.old, self.new)


@attrs.frozen
class RulesDiff:
    changes: tuple[Change, ...]
    warnings: tuple[str, ...]
    renames: Renames

    @property
    def play_changes(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.play is not False)

    def summary(self) -> str:
        if not self.changes:
            return "the rules are the same"
        n = len(self.play_changes)
        if n == 0:
            return (f"{len(self.changes)} difference(s) in the rules, none a change in play "
                    "(renames, reorderings, citations or equivalent rewrites)")
        return (f"{len(self.changes)} difference(s) in the rules, {n} of them may change play")


# ------------------------------------------------------------------ normal form
class Normal:
    """The normal form of one version's IR: names after renames, kinds by name."""

    def __init__(self, g: ir.GameIR, renames: ReadRenames | None = None) -> None:
        self.g = g
        self.kind_names = [k.name for k in g.kinds]
        r = renames or {}
        self.kinds = dict(r.get("kinds", {}))
        self.zones = dict(r.get("zones", {}))
        self.vars = dict(r.get("vars", {}))
        self.refs = {**self.vars, **self.zones}

    def kind(self, k: int) -> str:
        name = self.kind_names[k] if 0 <= k < len(self.kind_names) else str(k)
        return self.kinds.get(name, name)

    def __call__(self, x: Any, bound: Mapping[str, str] | None = None) -> Any:
        return self.norm(x, dict(bound or {}))

    def norm(self, x: Any, bound: dict[str, str]) -> Any:
        if isinstance(x, ir.Expr) and not isinstance(x, ir.Const | ir.Local):
            # params, and the player count of this IR, are constants: compare what they leave
            x = fold(with_player_count(x, self.g.players))
        if isinstance(x, ir.Const):
            t = x.type
            if t.name == "kind" and isinstance(x.value, int):
                return ("kind", self.kind(x.value))
            if t.name == "family":
                return ("family", self.zones.get(x.value, x.value))
            if isinstance(x.value, tuple | list):
                return ("const", tuple(x.value))
            return ("const", type(x.value).__name__, x.value)
        if isinstance(x, ir.Var):
            return ("var", self.vars.get(x.name, x.name),
                    None if x.index is None else self.norm(x.index, bound))
        if isinstance(x, ir.Zone):
            return ("zone", self.zones.get(x.family, x.family),
                    None if x.index is None else self.norm(x.index, bound))
        if isinstance(x, ir.Local):
            return ("local", bound.get(x.name, x.name))
        if isinstance(x, ir.Comp):
            inner = dict(bound)
            gens = []
            for gen in x.gens:
                it = self.norm(gen.iter, inner)
                inner[gen.var] = f"#{len(inner)}"
                gens.append((it, tuple(self.norm(c, inner) for c in gen.conds)))
            return ("comp", x.fn, self.norm(x.elt, inner), tuple(gens),
                    None if x.default is None else self.norm(x.default, bound), self.type(x.type))
        if isinstance(x, ir.For):
            inner = {**bound, x.var: f"#{len(bound)}"}
            return ("for", self.norm(x.iter, bound), self.block(x.body, inner))
        if isinstance(x, Type):
            return self.type(x)
        if isinstance(x, ir.Kind):
            return ("Kind", self.kinds.get(x.name, x.name), x.item_class, x.copies,
                    tuple(sorted(x.attrs.items())), self.zones.get(x.start, x.start))
        if isinstance(x, ir.ZoneDecl):
            return ("ZoneDecl", self.zones.get(x.name, x.name), x.order, x.per, x.holds)
        if isinstance(x, ir.VarDecl):
            return ("VarDecl", self.vars.get(x.name, x.name), self.type(x.type), x.per,
                    self.norm(x.init, bound))
        if attrs.has(type(x)):
            return (type(x).__name__, *(self.norm(getattr(x, f.name), bound)
                                        for f in attrs.fields(type(x))
                                        if f.eq and f.name not in ("cite", "where")))
        if isinstance(x, tuple | list):
            return tuple(self.norm(y, bound) for y in x)
        if isinstance(x, dict):
            return tuple(sorted((k, self.norm(v, bound)) for k, v in x.items()))
        return x

    def type(self, t: Type | None) -> Any:
        if t is None:
            return None
        return (t.name, self.refs.get(t.ref, t.ref) if t.ref else None, self.type(t.of))

    def block(self, body: Iterable[ir.Stmt], bound: Mapping[str, str] | None = None) -> tuple:
        return tuple(self.norm(s, dict(bound or {})) for s in body)

    def action(self, a: ir.ActionDecl) -> tuple:
        """An action's say (parameters by position), parameter domains, condition, effects."""
        bound: dict[str, str] = {}
        params = []
        for name, dom in a.params:
            params.append(self.norm(dom, bound))
            bound[name] = f"#{len(bound)}"
        say = a.say
        for i, (name, _) in enumerate(a.params):
            say = say.replace("{" + name + "}", "{" + str(i) + "}")
        return (say, tuple(params), self.norm(a.when, bound), self.block(a.effects, bound))


def alike(a: ir.GameIR, b: ir.GameIR, renames: ReadRenames | None, fields: Iterable[str]
          ) -> bool:
    """The given parts of two IRs are the same rules up to renames — with kinds and zones in
    the same order (their order can matter: `kinds(z)` lists kinds in declaration order)."""
    ren = renames or {}
    kinds = ren.get("kinds", {})
    zones = ren.get("zones", {})
    if [kinds.get(k.name, k.name) for k in a.kinds] != [k.name for k in b.kinds]:
        return False
    if [zones.get(z.name, z.name) for z in a.zones] != [z.name for z in b.zones]:
        return False
    na, nb = Normal(a, ren), Normal(b)
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if f == "actions":
            aren = ren.get("actions", {})
            xs = sorted((aren.get(v.name, v.name), na.action(v)) for v in x)
            ys = sorted((v.name, nb.action(v)) for v in y)
            if repr(xs) != repr(ys):
                return False
        elif f in ("round_end", "game_end"):
            if sorted(repr(na(c.expr)) for c in x) != sorted(repr(nb(c.expr)) for c in y):
                return False
        elif f == "score":
            if na(x, {"p": "#p"}) != nb(y, {"p": "#p"}):
                return False
        elif f in ("vars", "zones", "kinds", "indices"):
            if sorted(map(repr, na(list(x)))) != sorted(map(repr, nb(list(y)))):
                return False
        elif na(x) != nb(y):
            return False
    return True


PLAY = ("kinds", "zones", "indices", "vars", "setup", "round_start", "actions", "round_end",
        "scoring", "game_end", "winners", "score")
ROUND = ("kinds", "indices", "round_end", "scoring", "game_end", "round_start", "winners",
         "score")


# ------------------------------------------------------------------ printing
_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "//": 6, "%": 6}


def show(e: Any, g: ir.GameIR, prec: int = 0) -> str:
    """An IR expression written back in the spec language (params appear as their values,
    and what they make constant is computed)."""
    if prec == 0 and isinstance(e, ir.Expr):
        e = fold(with_player_count(e, g.players))

    def sub(x: Any, p: int = 0) -> str:
        return show(x, g, p)

    def wrap(text: str, mine: int) -> str:
        return f"({text})" if mine < prec else text

    match e:
        case ir.Const(value=v, type=t):
            if t.name == "kind" and isinstance(v, int):
                return repr(g.kinds[v].name) if 0 <= v < len(g.kinds) else str(v)
            if t.name == "family":
                return str(v)
            if isinstance(v, bool):
                return "True" if v else "False"
            if isinstance(v, str):
                return repr(v)
            if isinstance(v, tuple | list):
                return "[" + ", ".join(map(str, v)) + "]"
            return str(v)
        case ir.Var(name=n, index=None) | ir.Zone(family=n, index=None):
            return n
        case ir.Var(name=n, index=i) | ir.Zone(family=n, index=i):
            return f"{n}[{sub(i)}]"
        case ir.Builtin(name=n) | ir.Local(name=n):
            return n
        case ir.Attr(obj=o, attr=a):
            return f"{sub(o, 9)}.{a}"
        case ir.Unary(op="not", operand=x):
            return wrap(f"not {sub(x, 3)}", 3)
        case ir.Unary(op=op, operand=x):
            return f"{op}{sub(x, 9)}"
        case ir.Bin(op=op, left=a, right=b):
            p = _PREC[op]
            return wrap(f"{sub(a, p)} {op} {sub(b, p + 1)}", p)
        case ir.Cmp(op=op, left=a, right=b):
            word = {"notin": "not in"}.get(op, op)
            return wrap(f"{sub(a, 5)} {word} {sub(b, 5)}", 4)
        case ir.BoolOp(op=op, values=vs):
            p = _PREC[op]
            return wrap(f" {op} ".join(sub(v, p + 1) for v in vs), p)
        case ir.Cond(test=t, body=a, orelse=b):
            return wrap(f"{sub(a, 1)} if {sub(t, 1)} else {sub(b, 1)}", 0)
        case ir.Call(fn=fn, args=args, attr=attr):
            parts = [sub(a) for a in args] + ([attr] if attr else [])
            return f"{fn}({', '.join(parts)})"
        case ir.ListLit(items=items):
            return "[" + ", ".join(sub(x) for x in items) + "]"
        case ir.Comp(fn=fn, elt=elt, gens=gens, default=d):
            body = sub(elt) + "".join(
                f" for {gen.var} in {sub(gen.iter)}" + "".join(f" if {sub(c, 2)}" for c in gen.conds)
                for gen in gens)
            if fn == "list":
                return f"[{body}]"
            return f"{fn}(({body}), {sub(d)})" if d is not None else f"{fn}({body})"
    return str(e)


def show_stmt(s: ir.Stmt, g: ir.GameIR) -> str:
    """One statement on one line (a block's statements joined with '; ')."""
    def block(body: tuple[ir.Stmt, ...]) -> str:
        return "; ".join(show_stmt(x, g) for x in body) or "nothing"

    match s:
        case ir.Assign(target=t, op=op, value=v):
            return f"{show(t, g)} {op} {show(v, g)}"
        case ir.Do(fn=fn, args=args, kwargs=kw, result=res, result_op=op):
            call = f"{fn}({', '.join([show(a, g) for a in args] + [f'{k}={show(v, g)}' for k, v in kw])})"
            return f"{show(res, g)} {op} {call}" if res is not None else call
        case ir.If(test=t, then=a, orelse=b):
            return f"if {show(t, g)}: {block(a)}" + (f" else: {block(b)}" if b else "")
        case ir.For(var=v, iter=it, body=b):
            return f"for {v} in {show(it, g)}: {block(b)}"
        case ir.Repeat(count=n, body=b):
            return f"repeat {show(n, g)}: {block(b)}"
        case ir.While(test=t, limit=n, body=b):
            return f"while {show(t, g)} (at most {n}): {block(b)}"
    return str(s)


def _header(s: ir.Stmt, g: ir.GameIR) -> str:
    match s:
        case ir.If(test=t):
            return f"if {show(t, g)}"
        case ir.For(var=v, iter=it):
            return f"for {v} in {show(it, g)}"
    return show_stmt(s, g)


# ------------------------------------------------------------------ renames
def find_renames(a: ir.GameIR, b: ir.GameIR, raw_a: dict | None = None,
                 raw_b: dict | None = None) -> Renames:
    """Items that only changed name: declared alike, used alike (old name -> new name)."""
    ren: Renames = {c: {} for c in CATEGORIES}

    def pair(category: str, olds: dict[str, Any], news: dict[str, Any]) -> None:
        only_a = {n: sig for n, sig in olds.items() if n not in news}
        only_b = {n: sig for n, sig in news.items() if n not in olds}
        for n, sig in only_a.items():
            same_a = [m for m, s in only_a.items() if s == sig]
            same_b = [m for m, s in only_b.items() if s == sig]
            if len(same_a) == 1 and len(same_b) == 1:
                ren[category][n] = same_b[0]

    na, nb = Normal(a), Normal(b)
    pair("kinds", {k.name: (k.item_class, k.copies, tuple(sorted(k.attrs.items())), k.start)
                   for k in a.kinds},
         {k.name: (k.item_class, k.copies, tuple(sorted(k.attrs.items())), k.start)
          for k in b.kinds})
    pair("zones", {z.name: (z.order, z.per, z.holds) for z in a.zones},
         {z.name: (z.order, z.per, z.holds) for z in b.zones})
    pair("vars", {v.name: (v.type.name, v.per, na(v.init)) for v in a.vars},
         {v.name: (v.type.name, v.per, nb(v.init)) for v in b.vars})
    if raw_a is not None and raw_b is not None:
        pa, pb = raw_a.get("params", {}) or {}, raw_b.get("params", {}) or {}
        pair("params", {n: _raw_value(v) for n, v in pa.items()},
             {n: _raw_value(v) for n, v in pb.items()})
    # with the declarations renamed, actions and conditions are compared by their bodies
    na = Normal(a, ren)
    pair("actions", {x.name: na.action(x) for x in a.actions},
         {x.name: nb.action(x) for x in b.actions})
    conds_a = {f"{s} {c.name}": na(c.expr) for s, cs in _conditions(a) for c in cs}
    conds_b = {f"{s} {c.name}": nb(c.expr) for s, cs in _conditions(b) for c in cs}
    pair("conditions", conds_a, conds_b)
    # a condition renamed only within its own section
    ren["conditions"] = {k: v for k, v in ren["conditions"].items()
                         if k.split(" ")[0] == v.split(" ")[0]}
    # the enum types of renamed variables are named after them: rename those too
    return {c: m for c, m in ren.items() if m} if any(ren.values()) else {}


def _conditions(g: ir.GameIR) -> list[tuple[str, tuple[ir.Condition, ...]]]:
    return [("round_end", g.round_end), ("game_end", g.game_end), ("invariant", g.invariants)]


def _raw_value(v: Any) -> Any:
    if isinstance(v, dict):
        return ("expr", v["expr"]) if "expr" in v else ("value", repr(v.get("value")))
    return ("value", repr(v))


# ------------------------------------------------------------------ the diff
Equivalence = Callable[[str, Any, Any], str]


class _Differ:
    """The changes between two IRs (one player count), in the order of the spec."""

    def __init__(self, a: ir.GameIR, b: ir.GameIR, renames: Renames,
                 equivalent: Equivalence | None) -> None:
        self.a, self.b = a, b
        self.ren = renames
        self.na, self.nb = Normal(a, renames), Normal(b)
        self.equivalent = equivalent
        self.out: list[Change] = []

    def add(self, *args: Any, **kw: Any) -> None:
        self.out.append(Change(*args, **kw))

    def run(self) -> list[Change]:
        a, b = self.a, self.b
        if (a.min_players, a.max_players) != (b.min_players, b.max_players):
            self.add("players", "players", "changed", f"{a.min_players}-{a.max_players}",
                     f"{b.min_players}-{b.max_players}", play=True)
        self.renamed()
        self.params()
        self.kinds()
        self.named("zones", a.zones, b.zones, "zones", lambda z: _zone_text(z), lambda z: (),
                   lambda z: (z.order, z.per, z.holds))
        self.named("indices", a.indices, b.indices, "", lambda x: f"{x.size} members",
                   lambda x: (), lambda x: (x.size, tuple(sorted(x.attrs.items()))))
        self.named("vars", a.vars, b.vars, "vars", self._var_text, lambda v: (),
                   lambda v: None)
        self.block("set-up", a.setup, b.setup, ())
        self.block("round start", a.round_start, b.round_start, ())
        self.actions()
        self.conditions("round end", a.round_end, b.round_end)
        self.block("scoring", a.scoring, b.scoring, ())
        self.expr("round measure", a.measure, b.measure, play=False,
                  note="the measure bounds a round's length; it is checked, not played")
        self.conditions("game end", a.game_end, b.game_end)
        self.expr("winners", a.winners, b.winners)
        self.expr("score", a.score, b.score, kind="score")
        self.conditions("invariants", a.invariants, b.invariants, play=False)
        if a.score_better != b.score_better:
            self.add("score", "better", "changed", str(a.score_better), str(b.score_better),
                     play=False, note="which way a player wants the score to go: read by the "
                                      "statistics' greedy policy, not by the rules")
        self.ambiguities()
        self.clarifications()
        self.expectations()
        return self.out

    # ---------------------------------------------------------------- parts
    def renamed(self) -> None:
        words = {"kinds": "kind", "zones": "zone", "vars": "variable", "actions": "action",
                 "conditions": "condition", "params": "param"}
        for cat, mapping in self.ren.items():
            for old, new in mapping.items():
                self.add(cat, old, "renamed", old, new, play=False,
                         note=f"the {words[cat]} and every use of it changed name, nothing else")

    def params(self) -> None:
        pa, pb = self.a.params, self.b.params
        ren = self.ren.get("params", {})
        for name, v in pa.items():
            new = ren.get(name, name)
            if new not in pb:
                self.add("params", name, "removed", repr(v), play=None)
            elif pb[new] != v:
                self.add("params", new, "changed", repr(v), repr(pb[new]), play=None,
                         note="params stand for their values in the rules; the clauses that "
                              "use it are listed below")
        for name, v in pb.items():
            if name not in pa and name not in ren.values():
                self.add("params", name, "added", "", repr(v), play=None)

    def named(self, section: str, xs: Iterable[Any], ys: Iterable[Any], category: str,
              text: Callable[[Any], str], cite: Callable[[Any], tuple],
              sig: Callable[[Any], Any], play: bool | None = None) -> None:
        ren = self.ren.get(category, {}) if category else {}
        xa = {ren.get(x.name, x.name): x for x in xs}
        yb = {y.name: y for y in ys}
        for name, x in xa.items():
            if name not in yb:
                self.add(section, name, "removed", text(x), play=play)
            else:
                ta, tb = text(x), text(yb[name])
                if ta != tb or sig(x) != sig(yb[name]):
                    self.add(section, name, "changed", ta, tb, play=play)
        for name, y in yb.items():
            if name not in xa:
                self.add(section, name, "added", "", text(y), play=play)
        order_a = [n for n in xa if n in yb]
        order_b = [n for n in yb if n in xa]
        if order_a != order_b:
            self.add(section, "order", "reordered", ", ".join(order_a), ", ".join(order_b),
                     play=False, note="declared in another order; listings (legal actions, "
                                      "zones) follow it, play does not")

    def kinds(self) -> None:
        """Kinds by name; a changed kind shows only what changed (copies, attributes)."""
        ren = self.ren.get("kinds", {})
        xa = {ren.get(k.name, k.name): k for k in self.a.kinds}
        yb = {k.name: k for k in self.b.kinds}
        self.named("kinds", [k for n, k in xa.items() if n not in yb],
                   [k for n, k in yb.items() if n not in xa], "kinds", _kind_text,
                   lambda k: (), lambda k: None, play=True)
        for name, x in xa.items():
            y = yb.get(name)
            if y is None:
                continue
            fields = [("copies", x.copies, y.copies), ("class", x.item_class, y.item_class),
                      ("starts in", x.start, y.start)]
            fields += [(attr, x.attrs.get(attr), y.attrs.get(attr))
                       for attr in dict.fromkeys([*x.attrs, *y.attrs])]
            diff = [(f, u, v) for f, u, v in fields if u != v]
            if diff:  # other copies change the deck; other attributes, the rules that read them
                deck = any(f in ("copies", "class") for f, _, _ in diff)
                self.add("kinds", name, "changed", ", ".join(f"{f} {u}" for f, u, _ in diff),
                         ", ".join(f"{f} {v}" for f, _, v in diff), play=True if deck else None)
        order_a = [n for n in xa if n in yb]
        order_b = [n for n in yb if n in xa]
        if order_a != order_b:
            self.add("kinds", "order", "reordered", ", ".join(order_a), ", ".join(order_b),
                     play=False, note="declared in another order; listings (legal actions, "
                                      "zones) follow it, play does not")

    def _var_text(self, v: ir.VarDecl) -> str:
        t = v.type.name if v.type.name != "str" else "one of " + ", ".join(
            (self.a if v in self.a.vars else self.b).enums.get(v.type.ref or "", ()))
        g = self.a if v in self.a.vars else self.b
        return f"{t}" + (f" per {v.per}" if v.per else "") + f", starts {show(v.init, g)}"

    def actions(self) -> None:
        a, b = self.a, self.b
        ren = self.ren.get("actions", {})
        xa = {ren.get(x.name, x.name): x for x in a.actions}
        yb = {y.name: y for y in b.actions}
        for name, x in xa.items():
            y = yb.get(name)
            if y is None:
                self.add("actions", name, "removed", x.say, cite=x.cite, play=None)
                continue
            nx, ny = self.na.action(x), self.nb.action(y)
            if nx[0] != ny[0]:
                self.add("actions", f"{name}: say", "changed", x.say, y.say, y.cite, play=False,
                         note="how the action is written, not what it does")
            if nx[1] != ny[1]:
                self.add("actions", f"{name}: parameters", "changed",
                         ", ".join(f"{p} from {show(d, a)}" for p, d in x.params),
                         ", ".join(f"{p} from {show(d, b)}" for p, d in y.params), y.cite,
                         play=None)
            if nx[2] != ny[2]:
                verdict = self.equivalent("guard", x.name, y.name) if self.equivalent else "off"
                self.add("actions", f"{name}: condition", "changed", show(x.when, a),
                         show(y.when, b), y.cite, **_verdict(verdict))
            self.block(f"action {name}", x.effects, y.effects, y.cite, nx[3], ny[3])
            if x.cite != y.cite:
                self.add("actions", name, "citations changed", ", ".join(x.cite),
                         ", ".join(y.cite), y.cite, play=False)
        for name, y in yb.items():
            if name not in xa:
                self.add("actions", name, "added", "", y.say, y.cite, play=None)
        order_a = [n for n in xa if n in yb]
        order_b = [n for n in yb if n in xa]
        if order_a != order_b:
            self.add("actions", "order", "reordered", ", ".join(order_a), ", ".join(order_b),
                     play=False, note="legal actions are listed in the new order; the same "
                                      "actions are legal")

    def conditions(self, section: str, xs: tuple[ir.Condition, ...],
                   ys: tuple[ir.Condition, ...], play: bool | None = None) -> None:
        key = section.replace(" ", "_").rstrip("s")
        ren = {k.split(" ", 1)[1]: v.split(" ", 1)[1]
               for k, v in self.ren.get("conditions", {}).items() if k.startswith(key)}
        xa = {ren.get(x.name, x.name): x for x in xs}
        yb = {y.name: y for y in ys}
        for name, x in xa.items():
            y = yb.get(name)
            if y is None:
                self.add(section, name, "removed", show(x.expr, self.a), cite=x.cite,
                         play=play)
                continue
            if self.na(x.expr) != self.nb(y.expr):
                if play is False:
                    verdict = {"play": False, "note": "invariants are checked, not played"}
                else:
                    v = (self.equivalent("condition", x.expr, y.expr) if self.equivalent
                         else "off")
                    verdict = _verdict(v)
                self.add(section, name, "changed", show(x.expr, self.a), show(y.expr, self.b),
                         y.cite, **verdict)
            elif x.cite != y.cite:
                self.add(section, name, "citations changed", ", ".join(x.cite),
                         ", ".join(y.cite), y.cite, play=False)
        for name, y in yb.items():
            if name not in xa:
                self.add(section, name, "added", "", show(y.expr, self.b), y.cite,
                         play=play)
        order_a = [n for n in xa if n in yb]
        order_b = [n for n in yb if n in xa]
        if order_a != order_b:
            self.add(section, "order", "reordered", ", ".join(order_a), ", ".join(order_b),
                     play=False, note="any of them ends it; only the name reported first "
                                      "changes")

    def expr(self, section: str, x: ir.Expr | None, y: ir.Expr | None,
             play: bool | None = None, note: str = "", kind: str = "") -> None:
        if x is None and y is None:
            return
        if x is None or y is None or self.na(x, {"p": "#p"}) != self.nb(y, {"p": "#p"}):
            old = show(x, self.a) if x is not None else ""
            new = show(y, self.b) if y is not None else ""
            if play is False:
                self.add(section, section, "changed", old, new, play=False, note=note)
                return
            verdict = (_verdict(self.equivalent(kind, x, y))
                       if self.equivalent and kind and x is not None and y is not None
                       else _verdict("off" if not self.equivalent else "syntactic"))
            self.add(section, section, "changed", old, new, **verdict)

    def block(self, section: str, xs: tuple[ir.Stmt, ...], ys: tuple[ir.Stmt, ...],
              cite: tuple[str, ...], nx: tuple | None = None, ny: tuple | None = None,
              path: str = "") -> None:
        """Statements aligned by their normal form; a changed `if` or `for` whose header is
        the same is compared statement by statement inside."""
        nx = nx if nx is not None else self.na.block(xs)
        ny = ny if ny is not None else self.nb.block(ys)
        if nx == ny:
            for x, y in zip(xs, ys, strict=True):
                self._cites(section, path, x, y)
            return
        if sorted(map(repr, nx)) == sorted(map(repr, ny)):
            self.add(section, path or "statements", "reordered",
                     "; ".join(show_stmt(s, self.a) for s in xs),
                     "; ".join(show_stmt(s, self.b) for s in ys), cite, play=None,
                     note="the same statements in another order; the parting search decides "
                          "whether the order matters")
            return
        sm = SequenceMatcher(a=nx, b=ny, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == "equal":
                for x, y in zip(xs[i1:i2], ys[j1:j2], strict=True):
                    self._cites(section, path, x, y)
                continue
            olds, news = list(range(i1, i2)), list(range(j1, j2))
            for i, j in zip(olds, news, strict=False):
                self._statement(section, path, i, j, xs[i], ys[j], nx[i], ny[j], cite)
            for i in olds[len(news):]:
                self.add(section, _where(path, i), "removed", show_stmt(xs[i], self.a),
                         cite=xs[i].cite or cite, play=None)
            for j in news[len(olds):]:
                self.add(section, _where(path, j), "added", "", show_stmt(ys[j], self.b),
                         ys[j].cite or cite, play=None)

    def _statement(self, section: str, path: str, i: int, j: int, x: ir.Stmt, y: ir.Stmt,
                   nx: Any, ny: Any, cite: tuple[str, ...]) -> None:
        here = _where(path, j)
        own = y.cite or x.cite or cite
        if isinstance(x, ir.If) and isinstance(y, ir.If) and nx[1] == ny[1]:
            self.block(section, x.then, y.then, own, nx[2], ny[2], f"{here} ({_header(y, self.b)}) then")
            self.block(section, x.orelse, y.orelse, own, nx[3], ny[3],
                       f"{here} ({_header(y, self.b)}) else")
            return
        if isinstance(x, ir.For) and isinstance(y, ir.For) and nx[1] == ny[1]:
            self.block(section, x.body, y.body, own, nx[2], ny[2], f"{here} ({_header(y, self.b)})")
            return
        self.add(section, here, "changed", show_stmt(x, self.a), show_stmt(y, self.b), own,
                 play=None)

    def _cites(self, section: str, path: str, x: ir.Stmt, y: ir.Stmt) -> None:
        if x.cite != y.cite:
            self.add(section, path or show_stmt(y, self.b)[:60], "citations changed",
                     ", ".join(x.cite), ", ".join(y.cite), y.cite, play=False)

    def ambiguities(self) -> None:
        xa = {x.id: x for x in self.a.ambiguities}
        yb = {y.id: y for y in self.b.ambiguities}
        for aid, x in xa.items():
            y = yb.get(aid)
            if y is None:
                self.add("ambiguities", aid, "removed", x.question, cite=x.cite, play=False)
                continue
            va = {v.name: (tuple(sorted(v.sets.items()))) for v in x.variants}
            vb = {v.name: (tuple(sorted(v.sets.items()))) for v in y.variants}
            if va != vb:
                self.add("ambiguities", f"{aid}: readings", "changed",
                         "; ".join(f"{n} sets {dict(s)}" for n, s in va.items()),
                         "; ".join(f"{n} sets {dict(s)}" for n, s in vb.items()), y.cite,
                         play=None)
            if x.default != y.default:
                self.add("ambiguities", f"{aid}: ruling", "changed", x.default, y.default,
                         y.cite, play=None)
            ca, cb = self.a.chosen.get(aid), self.b.chosen.get(aid)
            if ca != cb and (ca, cb) != (x.default, y.default):
                self.add("ambiguities", f"{aid}: reading used", "changed", ca or "", cb or "",
                         y.cite, play=None, note="chosen with --variant")
            if (x.question, x.rationale, x.kind) != (y.question, y.rationale, y.kind):
                self.add("ambiguities", aid, "text changed", play=False,
                         note="the question, kind or rationale is worded differently")
        for aid, y in yb.items():
            if aid not in xa:
                self.add("ambiguities", aid, "added", "", y.question, y.cite, play=False)

    def clarifications(self) -> None:
        xa = {c.id: c for c in self.a.clarifications}
        yb = {c.id: c for c in self.b.clarifications}
        for cid in xa.keys() - yb.keys():
            self.add("clarifications", cid, "removed", xa[cid].question, cite=xa[cid].cite,
                     play=False)
        for cid in yb.keys() - xa.keys():
            self.add("clarifications", cid, "added", "", yb[cid].question, yb[cid].cite,
                     play=False)
        for cid in xa.keys() & yb.keys():
            if self.na(xa[cid]) != self.nb(yb[cid]):
                self.add("clarifications", cid, "changed", play=False,
                         note="the question, answer or example changed; its example is run by "
                              "the test suite")

    def expectations(self) -> None:
        def key(e: ir.Expectation) -> tuple:
            return (e.property, e.players, tuple(sorted(e.variants.items())), e.clause)

        xa = {key(e): e for e in self.a.expectations}
        yb = {key(e): e for e in self.b.expectations}
        for k in xa.keys() - yb.keys():
            self.add("expect", _expect_name(xa[k]), "removed", xa[k].result, play=False)
        for k in yb.keys() - xa.keys():
            self.add("expect", _expect_name(yb[k]), "added", "", yb[k].result, play=False)
        for k in xa.keys() & yb.keys():
            if (xa[k].result, xa[k].witness) != (yb[k].result, yb[k].witness):
                self.add("expect", _expect_name(yb[k]), "changed", xa[k].result, yb[k].result,
                         play=False)


def _expect_name(e: ir.Expectation) -> str:
    parts = [e.property]
    if e.players:
        parts.append(f"players {', '.join(map(str, e.players))}")
    if e.variants:
        parts.append(", ".join(f"{k}={v}" for k, v in e.variants.items()))
    return " ".join(parts)


def _where(path: str, i: int) -> str:
    return f"{path + ' > ' if path else ''}statement {i + 1}"


def _kind_text(k: ir.Kind) -> str:
    attrs_ = ", ".join(f"{n} {v}" for n, v in k.attrs.items())
    return f"{k.copies} {k.item_class}" + (f" ({attrs_})" if attrs_ else "") + f", from {k.start}"


def _zone_text(z: ir.ZoneDecl) -> str:
    return f"{z.order} of {z.holds}" + (f", one per {z.per}" if z.per else ", shared")


def _verdict(v: str) -> dict[str, Any]:
    if v == "equivalent":
        return {"play": False, "note": "an equivalent rewrite: z3 proved both agree in every "
                                       "well-formed state where both can be evaluated"}
    if v == "different":
        return {"play": None, "note": "z3: they disagree in some well-formed state (whether a "
                                      "game reaches one, the search for a parting game says)"}
    why = {"off": "z3 not used (--no-z3)", "syntactic": "no z3 check for this kind of rule",
           "not_applicable": "the versions' states do not match by name"}.get(
        v, "z3 could not decide")
    return {"play": None, "note": f"compared syntactically only ({why})"}


# ------------------------------------------------------------------ both versions
def diff_rules(old: Version, new: Version, players: Iterable[int], *, use_z3: bool = True,
               z3_limit: int = 50_000_000) -> RulesDiff:
    """The changes in the rules at each player count, merged (a change seen at only some
    counts names them)."""
    counts = list(players)
    raw_a, raw_b = old.raw(), new.raw()
    seen: dict[tuple, tuple[Change, list[int]]] = {}
    renames: Renames = {}
    for n in counts:
        a, b = old.ir(n), new.ir(n)
        renames = find_renames(a, b, raw_a, raw_b)
        equivalent = _z3_equivalence(old, new, n, renames, z3_limit) if use_z3 else None
        for c in _Differ(a, b, renames, equivalent).run():
            if c.key() in seen:
                seen[c.key()][1].append(n)
            else:
                seen[c.key()] = (c, [n])
    changes = [attrs.evolve(c, players=() if ns == counts else tuple(ns))
               for c, ns in seen.values()]
    changes += _def_changes(raw_a, raw_b, renames)
    return RulesDiff(tuple(changes), tuple(param_warnings(new, counts[0], raw_a, raw_b)),
                     renames)


def _z3_equivalence(old: Version, new: Version, players: int, renames: Renames,
                    limit: int) -> Equivalence:
    def decide(what: str, x: Any, y: Any) -> str:
        from ..symbolic.queries.parting import conditions_equivalent, guards_equivalent

        go, gn = old.game(players), new.game(players)
        if what == "guard":
            return guards_equivalent(go, gn, x, y, limit=limit, renames=renames)
        if what == "condition":
            return conditions_equivalent(go, gn, x, y, limit=limit, renames=renames)
        if what == "score":
            return conditions_equivalent(go, gn, x, y, limit=limit, renames=renames,
                                         per_player=True)
        return "unknown"
    return decide


def _def_changes(raw_a: dict, raw_b: dict, renames: Renames) -> list[Change]:
    """Defs as written (they are expanded where used, so the IR no longer holds them); the
    old texts are read with the renames found (and defs renamed) applied."""
    da, db = raw_a.get("defs", {}) or {}, raw_b.get("defs", {}) or {}

    def split(defs: dict) -> dict[str, tuple[str, str, tuple]]:
        out = {}
        for key, v in defs.items():
            name = str(key).split("(")[0].strip()
            text = v["expr"] if isinstance(v, dict) else v
            cite = v.get("cite", ()) if isinstance(v, dict) else ()
            out[name] = (str(key), str(text), tuple([cite] if isinstance(cite, str) else cite))
        return out

    a, b = split(da), split(db)
    out = []
    only_a = {n: t for n, t in a.items() if n not in b}
    only_b = {n: t for n, t in b.items() if n not in a}
    renamed = {}
    for n, (_, text, _) in only_a.items():
        same = [m for m, (_, t, _) in only_b.items() if _words(t) == _words(text)]
        if len(same) == 1:
            renamed[n] = same[0]
    words = {old: new for cat in ("zones", "vars", "params") for old, new in
             renames.get(cat, {}).items()}
    words.update(renamed)

    def renamed_text(text: str) -> str:
        return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: words.get(m[0], m[0]), text)

    for n, m in renamed.items():
        out.append(Change("defs", n, "renamed", n, m, b[m][2], play=False,
                          note="defs are expanded where used: a rename is not a change"))
    for n, (key, text, cite) in a.items():
        if n in b and (renamed_text(key), renamed_text(text)) != (b[n][0], b[n][1]):
            out.append(Change("defs", n, "changed", f"{key}: {text}", f"{b[n][0]}: {b[n][1]}",
                              b[n][2] or cite, play=None,
                              note="expanded where used; those clauses are listed above"))
        elif n not in b and n not in renamed:
            out.append(Change("defs", n, "removed", f"{key}: {text}", cite=cite, play=None))
    for n, (key, text, cite) in b.items():
        if n not in a and n not in renamed.values():
            out.append(Change("defs", n, "added", "", f"{key}: {text}", cite, play=None))
    if [n for n in a if n in b] != [n for n in b if n in a]:
        out.append(Change("defs", "order", "reordered", play=False,
                          note="defs declared in another order"))
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def param_warnings(new: Version, players: int, raw_a: dict, raw_b: dict) -> list[str]:
    """Params edited in the new version whose value its chosen reading overrides, so the
    edit does nothing."""
    g = new.ir(players)
    chosen = {a.id: next(v for v in a.variants if v.name == g.chosen[a.id])
              for a in g.ambiguities}
    rulings = {a.id: a.default for a in g.ambiguities}
    before = raw_a.get("params", {}) or {}
    out = []
    for name, value in (raw_b.get("params", {}) or {}).items():
        if name not in before or _raw_value(before[name]) == _raw_value(value):
            continue
        for aid, variant in chosen.items():
            if name in variant.sets:
                ruling = " (the ruling)" if rulings[aid] == variant.name else ""
                out.append(f"{new.label}: params.{name} was edited ({_show_raw(before[name])} -> "
                           f"{_show_raw(value)}) but has no effect: the reading "
                           f"{aid}={variant.name}{ruling} sets it to {variant.sets[name]!r}; "
                           "choose another reading with --variant, or edit the ambiguity's "
                           "readings")
    return out


def _show_raw(v: Any) -> str:
    if isinstance(v, dict):
        return repr(v.get("value", v.get("expr")))
    return repr(v)
