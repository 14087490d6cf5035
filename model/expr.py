"""The expression language: a small, whitelisted subset of Python syntax, typed.

Spec text is parsed with `ast.parse` (a parser, not an evaluator) and every node is
checked against a whitelist and converted to IR (`model.ir`). Unknown names, dunder
names, attribute access other than declared attributes, and calls other than the
functions listed in `FUNCTIONS` and `EFFECTS` are errors that point at the spec.
Nothing is ever passed to `eval` or `exec`.

An expression is bounded before it is converted: its length (`MAX_EXPR_CHARS`), its
nesting and its size with every def expanded (`MAX_EXPR_DEPTH`, `MAX_EXPR_NODES`, and
`MAX_SPEC_EXPR_NODES` for the whole spec), its chains of one operator level such as
`a + b - c` (`MAX_EXPR_CHAIN`: a chain is long, not deep), and each whole number in it
(`MAX_INT`). An operator outside the language is named as written (`**`).
An index known when the spec is loaded (`quit[3]`) must lie in its range.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any, Literal, overload

import attrs

from . import ir
from .errors import SpecError, Where
from .fold import known
from .limits import (
    MAX_EXPR_CHAIN,
    MAX_EXPR_CHARS,
    MAX_EXPR_DEPTH,
    MAX_EXPR_NODES,
    MAX_INT,
    MAX_RANGE,
    MAX_SPEC_EXPR_NODES,
    identifier_problem,
    over,
    short,
)
from .types import ANY, BOOL, INT, KIND, PLAYER, STR, Type, fits, is_numeric, list_of, ref_of

#: Pure functions an expression may call, with a one-line description (docs use these).
FUNCTIONS = {
    "count": "count(zone) items in a zone; count(zone, kind) copies of a kind; count(gen) items",
    "top": "top(pile) the kind on top of a pile",
    "empty": "empty(zone) whether a zone holds nothing",
    "kinds": "kinds(zone) the distinct kinds in a zone, in declaration order",
    "after": "after(player[, direction]) the other seats from the next one on, then the player",
    "first": "first(gen[, default]) the first element",
    "any": "any(gen) some element is true",
    "all": "all(gen) every element is true",
    "sum": "sum(gen) total",
    "min": "min(gen[, default]) smallest",
    "max": "max(gen[, default]) largest",
    "distinct": "distinct(gen) the elements without repeats, in first-seen order",
    "len": "len(list) length",
    "abs": "abs(n) absolute value",
    "lowest": "lowest(zone, attr) the present kind with the smallest attribute",
    "highest": "highest(zone, attr) the present kind with the largest attribute",
    "worth": "worth(zone, attr) sum of attribute times count over the zone",
    "range": "range(a, b) the numbers a..b-1",
}

#: Functions that change the state; allowed only as effect statements.
EFFECTS = {
    "move": "move(kind, from, to[, n]) n items of a kind (from a pile: the topmost ones)",
    "move_top": "move_top(from_pile, to[, n]) the top n items of a pile",
    "move_all": "move_all(from, to[, keep=n]) everything, keeping the top n of a pile (keep: piles only)",
    "gather": "gather(kinds, to) every item of the given kind(s), wherever it lies",
    "shuffle": "shuffle(pile) a chance event: a uniformly random order",
    "deal": "deal(from_pile, family, n) n items to each player, one at a time from seat 0",
    "pay": "pay(amount, from, to) tokens worth `amount`, largest `value` first; gives the shortfall",
    "exchange": "exchange(zone, bank) swap small tokens for larger ones of equal `value`",
}

_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
        ast.In: "in", ast.NotIn: "notin"}
_BIN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
#: Python operators outside the language, as written, for the error that refuses them.
_NOT_BIN = {ast.Pow: "**", ast.Div: "/", ast.MatMult: "@", ast.LShift: "<<",
            ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&"}
_NOT_UNARY = {ast.Invert: "~", ast.UAdd: "+"}
#: The operators of one precedence level: `a + b - c` is `(a + b) - c`, a chain, not nesting.
_LEVELS = ({ast.Add, ast.Sub}, {ast.Mult, ast.FloorDiv, ast.Mod})
_REDUCERS = {"any", "all", "sum", "min", "max", "first", "count", "distinct"}


@attrs.frozen
class Def:
    """A named expression from `defs`, expanded where it is used."""

    name: str
    params: tuple[str, ...]
    text: str
    where: Callable[[int], Where]
    #: the language's own (model.tricks): its text is not in the file, so an error in it
    #: points at the use
    given: bool = False


@attrs.define
class Scope:
    """Everything an expression may name, collected by the loader."""

    params: dict[str, tuple[Any, Type]]
    vars: dict[str, tuple[Type, str | None]]
    zones: dict[str, ir.ZoneDecl]
    indices: dict[str, ir.IndexSet]
    index_attr_types: dict[tuple[str, str], Type]
    kind_attrs: dict[str, Type]
    kind_index: dict[str, int]
    enums: dict[str, tuple[str, ...]]
    defs: dict[str, Def] = attrs.Factory(dict)
    #: each def's expansions (the IR of a use) -> the def's name, for the work bound
    def_sites: dict[ir.Expr, str] = attrs.Factory(dict)
    #: procedure name -> its parameters (the loader expands a call's body itself)
    procedures: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    builtins: dict[str, Type] = attrs.Factory(dict)
    players: int = 0  # the player count the spec is loaded for (0: not known yet)
    nodes: int = 0  # expression parts converted so far, defs expanded (MAX_SPEC_EXPR_NODES)
    _measured: dict[int, tuple[ir.Expr, tuple[int, int, int]]] = attrs.Factory(dict)

    def measure(self, e: ir.Expr) -> tuple[int, int, int]:
        """Of an argument's IR: its parts, its nesting (a chain such as `a + b + c` counted
        as one level, as the parser counts it) and the links of the chain at its root."""
        key = id(e)
        got = self._measured.get(key)
        if got is not None:
            return got[1]
        kids = ir.children(e)
        nodes, depth = 1, 0
        for c in kids:
            n, d, _ = self.measure(c)
            nodes += n
            link = _same_level(e, c)
            depth = max(depth, d - link)
        chain = self.measure(e.left)[2] + 1 if isinstance(e, ir.Bin) and _same_level(
            e, e.left) else (1 if isinstance(e, ir.Bin) else 0)
        out = (nodes, depth + 1, chain)
        self._measured[key] = (e, out)  # e kept alive: its id stays its own
        return out

    def family_size(self, per: str) -> int | None:
        """How many a per-player or per-member family holds (None: not known yet)."""
        if per == "player":
            return self.players or None
        return self.indices[per].size if per in self.indices else None


@attrs.define
class _Budget:
    """The size and depth of one expression as converted so far, defs expanded: `depth`
    counts nesting, `chain` the links of left-associated chains (`a + b + c`) on the way."""

    nodes: int = 0
    depth: int = 0
    chain: int = 0


def binding_name(name: str, env: Mapping[str, ir.Expr], rename_shadowing: bool = False) -> str:
    """The IR name for a loop variable `name` the spec binds where `env` is in scope.

    Defs and procedures are expanded with their arguments in place of their parameters, so
    an argument may read a local of the caller: `others(q)`, with `others(p)` being
    `count(q for q in players if q != p)`, would compare the loop's own `q` with itself.
    A binding that would capture a local some argument reads is given a fresh name,
    `q__1`, that no spec name can be (spec names never hold `__`). With
    `rename_shadowing` (a `for:` loop of the effects, a Python `for` statement, which
    would overwrite an outer local of the same name) a name already bound is renamed too.
    Elsewhere the name stays as written, so the IR of a spec without such a clash is unchanged.
    """
    taken: set[str] = set()
    for key, value in env.items():
        if key != name or rename_shadowing:
            taken |= ir.free_locals(value)
    if rename_shadowing and name in env:
        taken.add(name)
    if name not in taken:
        return name
    for value in env.values():
        taken |= ir.free_locals(value)
    n = 1
    while f"{name}__{n}" in taken:
        n += 1
    return f"{name}__{n}"


def _same_level(parent: ir.Expr, child: ir.Expr) -> bool:
    """Whether `child` is the left operand of `parent` at the same precedence level (a link
    of a chain, as `continues_chain` says of the syntax)."""
    levels = ({"+", "-"}, {"*", "//", "%"})
    return (isinstance(parent, ir.Bin) and isinstance(child, ir.Bin) and child is parent.left
            and any(parent.op in lv and child.op in lv for lv in levels))


def continues_chain(parent: ast.AST, child: ast.AST) -> bool:
    """Whether `child` is the left operand of `parent` at the same precedence level, as
    Python parses `a + b - c` (`(a + b) - c`): one more link of a chain, not nesting."""
    return (isinstance(parent, ast.BinOp) and isinstance(child, ast.BinOp)
            and child is parent.left
            and any(type(parent.op) in level and type(child.op) in level for level in _LEVELS))


class ExprParser:
    """Parses one spec string (expression or statement) against a Scope."""

    def __init__(self, scope: Scope, where: Callable[[int], Where], budget: _Budget | None = None,
                 expanding: tuple[str, ...] = ()):
        self.scope = scope
        self._where_at = where
        self._line_starts: list[int] = [0]
        self._budget = budget
        self._expanding = expanding  # the defs being expanded, outermost first

    # ----------------------------------------------------------- entry points
    def expression(self, text: str, locals_: Mapping[str, ir.Expr] | None = None,
                   expect: Type | None = None) -> ir.Expr:
        tree = self._parse(text, "eval")
        node = self.convert(tree.body, dict(locals_ or {}))
        if expect is not None:
            self._require(node, expect, tree.body)
        return node

    def procedure_call(self, text: str, locals_: Mapping[str, ir.Expr]
                       ) -> tuple[str, list[ir.Expr], Where] | None:
        """If `text` is a call of a procedure (`draw_owed(active)`): its name, its arguments
        converted where the call is written, and where the call is; else None."""
        if not isinstance(text, str):
            return None
        tree = self._parse(text, "exec")
        stmt = tree.body[0] if len(tree.body) == 1 else None
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in self.scope.procedures):
            return None
        name = call.func.id
        params = self.scope.procedures[name]
        if call.keywords or len(call.args) != len(params):
            raise self._err(call, f"{name} takes {len(params)} argument(s): "
                                  f"{name}({', '.join(params)})")
        self.scope.nodes += 1  # a call counts as a part, however little it passes
        if self.scope.nodes > MAX_SPEC_EXPR_NODES:
            raise self._err(call, f"the spec's expressions have more than "
                                  f"{MAX_SPEC_EXPR_NODES:,} parts in all, defs and procedures "
                                  "expanded (max_spec_expr_nodes)")
        env = dict(locals_)
        return name, [self.convert(a, env) for a in call.args], self._where(call)

    def statement(self, text: str, locals_: Mapping[str, ir.Expr], cite: tuple[str, ...]
                  ) -> ir.Stmt:
        tree = self._parse(text, "exec")
        if len(tree.body) != 1:
            raise self._err(None, "expected exactly one statement (an assignment or an effect "
                                  f"such as {', '.join(sorted(EFFECTS))})")
        stmt = tree.body[0]
        env = dict(locals_)
        where = self._where(stmt)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return self._effect(stmt.value, env, where, cite)
        if isinstance(stmt, ast.Assign | ast.AugAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if len(targets) != 1:
                raise self._err(stmt, "assign one variable at a time")
            target = self._target(targets[0], env)
            op = "="
            if isinstance(stmt, ast.AugAssign):
                if type(stmt.op) not in (ast.Add, ast.Sub):
                    raise self._err(stmt, "only =, += and -= are allowed")
                op = "+=" if isinstance(stmt.op, ast.Add) else "-="
            value_node = stmt.value
            if (isinstance(value_node, ast.Call) and isinstance(value_node.func, ast.Name)
                    and value_node.func.id in EFFECTS):
                do = self._effect(value_node, env, where, cite)
                if do.fn != "pay":
                    raise self._err(value_node, f"{do.fn}(...) gives no value to assign")
                if target.type != INT:
                    raise self._err(stmt, f"pay(...) gives a number; {target.name} is "
                                          f"{target.type}")
                return attrs.evolve(do, result=target, result_op=op)
            value = self.convert(value_node, env)
            if op != "=" and not is_numeric(target.type):
                raise self._err(stmt, f"{op} needs a number variable, {target.name} is "
                                      f"{target.type}")
            self._require(value, target.type, value_node)
            self._check_names(value, target.type, value_node)
            if target.type == PLAYER and op == "=":
                self._in_range(value, "player", value_node, target.name + " = {}")
            return ir.Assign(where, cite, target, op, value)
        raise self._err(stmt, "expected an assignment (x = ...) or an effect call such as "
                              "move(...); other statements are not part of the language")

    # --------------------------------------------------------------- helpers
    @overload
    def _parse(self, text: str, mode: Literal["eval"]) -> ast.Expression: ...
    @overload
    def _parse(self, text: str, mode: Literal["exec"]) -> ast.Module: ...

    def _parse(self, text: str, mode: str) -> ast.AST:
        if not isinstance(text, str):
            raise SpecError(self._where_at(0), f"expected an expression as text, got {short(text)}")
        if len(text) > MAX_EXPR_CHARS:
            raise SpecError(self._where_at(0), over("max_expr_chars", "the length of this "
                                                    "expression", len(text)))
        if self._budget is None:
            self._budget = _Budget()
        self._text = text
        starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                starts.append(i + 1)
        self._line_starts = starts
        try:
            tree = ast.parse(text.strip("\n") if mode == "exec" else text.strip(), mode=mode)
        except SyntaxError as exc:
            offset = self._offset(exc.lineno or 1, (exc.offset or 1) - 1)
            raise SpecError(self._where_at(offset),
                            f"cannot parse {short(text.strip())}: {exc.msg}") from None
        except (RecursionError, MemoryError):
            raise SpecError(self._where_at(0), f"this expression nests deeper than the limit of "
                                               f"{MAX_EXPR_DEPTH} (max_expr_depth)") from None
        self._check_depth(tree)
        return tree

    def _check_depth(self, tree: ast.AST) -> None:
        """Refuse a syntax tree nested deeper than MAX_EXPR_DEPTH, or with a chain such as
        `a + b + ...` longer than MAX_EXPR_CHAIN on the way (walked without recursion)."""
        stack = [(tree, 0, 0)]
        while stack:
            node, depth, chain = stack.pop()
            if depth > MAX_EXPR_DEPTH + 2:  # the Expression/Module and Expr wrappers
                raise self._err(node, f"this expression nests deeper than the limit of "
                                      f"{MAX_EXPR_DEPTH} (max_expr_depth)")
            if chain >= MAX_EXPR_CHAIN:  # links after the first operation
                raise self._err(node, _CHAIN_TOO_LONG)
            for child in ast.iter_child_nodes(node):
                link = continues_chain(node, child)
                stack.append((child, depth + (not link), chain + link))

    def _offset(self, lineno: int, col: int) -> int:
        stripped = len(self._text) - len(self._text.lstrip())
        base = self._line_starts[min(lineno, len(self._line_starts)) - 1] if lineno > 1 else 0
        return (0 if lineno > 1 else stripped) + base + col

    def _where(self, node: ast.AST | None) -> Where:
        if node is None or not hasattr(node, "col_offset"):
            return self._where_at(0)
        located: Any = node  # an expression, a statement, an argument, a keyword: placed
        return self._where_at(self._offset(located.lineno, located.col_offset))

    def _err(self, node: ast.AST | None, message: str) -> SpecError:
        return SpecError(self._where(node), message)

    def _require(self, node: ir.Expr, expected: Type, at: ast.AST) -> None:
        if not fits(node.type, expected):
            raise self._err(at, f"expected {expected}, found {node.type}")

    def _check_names(self, value: ir.Expr, t: Type, at: ast.AST) -> None:
        """A name (or a choice of names) assigned to an enum variable must be one of its names."""
        if t.name != "str" or not t.ref:
            return
        allowed = self.scope.enums[t.ref]
        stack = [value]
        while stack:
            e = stack.pop()
            if isinstance(e, ir.Cond):
                stack += [e.body, e.orelse]
            elif isinstance(e, ir.Const) and e.value not in allowed:
                raise self._err(at, f"{short(e.value)} is not one of {', '.join(allowed)}")

    def _target(self, node: ast.AST, env: dict[str, Any]) -> ir.Var:
        target = self.convert(node, env)
        if not isinstance(target, ir.Var):
            raise self._err(node, "only a variable (declared under vars, or active) can be "
                                  "assigned")
        if target.name in ("round", "last_actor"):
            raise self._err(node, f"{target.name} is kept by the runtime and cannot be assigned")
        return target

    # ------------------------------------------------------------ conversion
    def convert(self, node: ast.AST, env: dict[str, ir.Expr], link: bool = False) -> ir.Expr:
        """`node` as IR; `link`: it continues a chain (`a + b` of `a + b + c`), so it counts
        toward MAX_EXPR_CHAIN instead of the nesting depth."""
        budget = self._budget
        assert budget is not None
        budget.nodes += 1
        budget.depth += not link
        budget.chain += link
        self.scope.nodes += 1
        try:
            if budget.depth > MAX_EXPR_DEPTH:
                raise self._err(node, self._over("nests deeper than the limit of "
                                                 f"{MAX_EXPR_DEPTH} (max_expr_depth)"))
            if budget.chain >= MAX_EXPR_CHAIN:
                raise self._err(node, self._over(_CHAIN_TOO_LONG.removeprefix(
                    "this expression ")))
            if budget.nodes > MAX_EXPR_NODES:
                raise self._err(node, self._over(f"has more than {MAX_EXPR_NODES:,} parts "
                                                 "(max_expr_nodes)"))
            if self.scope.nodes > MAX_SPEC_EXPR_NODES:
                raise self._err(node, f"the spec's expressions have more than "
                                      f"{MAX_SPEC_EXPR_NODES:,} parts in all, defs expanded "
                                      "(max_spec_expr_nodes)")
            out = self._convert(node, env)
            if isinstance(node, ast.Name) and node.id in env and not isinstance(
                    out, ir.Local | ir.Const):
                self._argument(node, out, link)
            return out
        finally:
            budget.depth -= not link
            budget.chain -= link

    def _argument(self, node: ast.Name, value: ir.Expr, link: bool) -> None:
        """A parameter of a def or procedure stands here for its argument's IR: count the
        argument in full, its parts, its nesting and the chain it continues, as if written
        here (else arguments passed on through defs could nest or grow without limit)."""
        budget = self._budget
        assert budget is not None
        nodes, depth, chain = self.scope.measure(value)
        budget.nodes += nodes - 1
        self.scope.nodes += nodes - 1
        if budget.depth + depth - 1 > MAX_EXPR_DEPTH:
            raise self._err(node, self._over(f"(its argument {node.id} written out) nests "
                                             f"deeper than the limit of {MAX_EXPR_DEPTH} "
                                             "(max_expr_depth)"))
        if link and budget.chain + chain >= MAX_EXPR_CHAIN:
            raise self._err(node, self._over("(its argument " + node.id + " written out) "
                                             + _CHAIN_TOO_LONG.removeprefix("this expression ")))
        if budget.nodes > MAX_EXPR_NODES:
            raise self._err(node, self._over(f"(its argument {node.id} written out) has more "
                                             f"than {MAX_EXPR_NODES:,} parts (max_expr_nodes)"))
        if self.scope.nodes > MAX_SPEC_EXPR_NODES:
            raise self._err(node, f"the spec's expressions have more than "
                                  f"{MAX_SPEC_EXPR_NODES:,} parts in all, defs expanded "
                                  "(max_spec_expr_nodes)")

    def _over(self, what: str) -> str:
        via = f" (with {', '.join(self._expanding)} expanded)" if self._expanding else ""
        return f"this expression{via} {what}"

    def _convert(self, node: ast.AST, env: dict[str, ir.Expr]) -> ir.Expr:
        match node:
            case ast.Constant(value=bool() as v):
                return ir.Const(v, BOOL)
            case ast.Constant(value=int() as v):
                if abs(v) > MAX_INT:
                    raise self._err(node, f"{short(v)} is beyond the limit of +-{MAX_INT:,} "
                                          "(max_int)")
                return ir.Const(v, INT)
            case ast.Constant(value=str() as v):
                return ir.Const(v, STR)
            case ast.Name(id=name):
                return self._name(node, name, env)
            case ast.Attribute(value=obj, attr=attr):
                return self._attribute(node, obj, attr, env)
            case ast.Subscript(value=ast.Name(id=name), slice=index):
                return self._subscript(node, name, index, env)
            case ast.UnaryOp(op=ast.Not(), operand=operand):
                inner = self.convert(operand, env)
                self._require(inner, BOOL, operand)
                return ir.Unary("not", inner, BOOL)
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                inner = self.convert(operand, env)
                self._require(inner, INT, operand)
                if isinstance(inner, ir.Const):
                    return ir.Const(-inner.value, INT)
                return ir.Unary("-", inner, INT)
            case ast.BinOp(op=op, left=left, right=right) if type(op) in _BIN:
                a = self.convert(left, env, link=continues_chain(node, left))
                b = self.convert(right, env)
                if _BIN[type(op)] == "+" and a.type.name == "list" and b.type.name == "list":
                    return ir.Bin("+", a, b, a.type)
                self._require(a, INT, left)
                self._require(b, INT, right)
                divisor = self._known(b)
                if _BIN[type(op)] in ("//", "%") and isinstance(divisor, ir.Const) and (
                        divisor.value == 0):
                    raise self._err(right, "division by zero")
                return ir.Bin(_BIN[type(op)], a, b, INT)
            case ast.BoolOp(op=op, values=values):
                parts = []
                for operand in values:
                    part = self.convert(operand, env)
                    self._require(part, BOOL, operand)
                    parts.append(part)
                return ir.BoolOp("and" if isinstance(op, ast.And) else "or", tuple(parts), BOOL)
            case ast.Compare(left=left, ops=ops, comparators=comps):
                return self._compare(left, ops, comps, env)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                t = self.convert(test, env)
                self._require(t, BOOL, test)
                a, b = self.convert(body, env), self.convert(orelse, env)
                a, b = self._unify(a, b, orelse)
                return ir.Cond(t, a, b, a.type)
            case ast.List(elts=elts) | ast.Tuple(elts=elts):
                items = tuple(self.convert(e, env) for e in elts)
                elem = items[0].type if items else ANY
                for e, item in zip(elts, items, strict=True):
                    self._require(item, elem, e)
                return ir.ListLit(items, list_of(elem))
            case ast.ListComp(elt=elt, generators=gens):
                return self._comprehension("list", elt, gens, env, None)
            case ast.Call():
                return self._call(node, env)
            case ast.BinOp(op=op) if type(op) in _NOT_BIN:
                raise self._err(node, f"the operator {_NOT_BIN[type(op)]} is not part of the "
                                      "expression language; the arithmetic operators are "
                                      f"{_ARITHMETIC}")
            case ast.UnaryOp(op=op) if type(op) in _NOT_UNARY:
                raise self._err(node, f"the operator {_NOT_UNARY[type(op)]} (in front of a "
                                      "value) is not part of the expression language; in front "
                                      f"of a value: not and -; between values: {_ARITHMETIC}")
        raise self._err(node, f"{_describe(node)} is not part of the expression language")

    def _name(self, node: ast.AST, name: str, env: dict[str, Any]) -> ir.Expr:
        if name.startswith("_"):
            raise self._err(node, f"names starting with '_' are not allowed: {short(name)}")
        problem = identifier_problem(name)
        if problem is not None:
            raise self._err(node, problem)
        if name in env:
            local: ir.Expr = env[name]
            return local
        s = self.scope
        if name in s.params:
            value, t = s.params[name]
            return ir.Const(value, t)
        if name in s.vars:
            t, per = s.vars[name]
            if per is not None:
                raise self._err(node, f"{name} is one per {per}: write {name}[...]")
            return ir.Var(name, None, t)
        if name in s.zones:
            z = s.zones[name]
            if z.per is not None:
                raise self._err(node, f"zone {name} is one per {z.per}: write {name}[...]")
            return ir.Zone(name, None, Type("zone", ref=name))
        if name in s.indices:
            return ir.Builtin(name, list_of(Type("index", ref=name)))
        if name in s.builtins:
            return ir.Builtin(name, s.builtins[name])
        if name in s.defs and not s.defs[name].params:
            return self._expand(node, s.defs[name], [], env)
        raise self._err(node, f"unknown name {name!r}; " + (_CHOOSER if name == "chooser" else
                        "known names are params, vars, zones, defs, action parameters and: "
                        + ", ".join(sorted(s.builtins))))

    def _attribute(self, node: ast.AST, obj: ast.AST, attr: str, env: dict[str, Any]) -> ir.Expr:
        if attr.startswith("_"):
            raise self._err(node, f"attribute names starting with '_' are not allowed: {attr!r}")
        base = self.convert(obj, env)
        if base.type.name == "kind":
            if attr not in self.scope.kind_attrs:
                raise self._err(node, f"kinds have no attribute {attr!r}; declared attributes: "
                                      + ", ".join(sorted(self.scope.kind_attrs)))
            return ir.Attr(base, attr, self.scope.kind_attrs[attr])
        if base.type.name == "index":
            key = (base.type.ref, attr)
            if key not in self.scope.index_attr_types:
                raise self._err(node, f"{base.type.ref} has no attribute {attr!r}")
            return ir.Attr(base, attr, self.scope.index_attr_types[key])
        if base.type.name == "any":
            if attr in self.scope.kind_attrs:
                return ir.Attr(base, attr, self.scope.kind_attrs[attr])
            for (_, a), t in self.scope.index_attr_types.items():
                if a == attr:
                    return ir.Attr(base, attr, t)
        raise self._err(node, f"{base.type} has no attribute {attr!r} (only kinds and indices "
                              "have attributes)")

    def _subscript(self, node: ast.AST, name: str, index: ast.AST, env: dict[str, Any]) -> ir.Expr:
        s = self.scope
        idx = self.convert(index, env)
        zone = s.zones.get(name)
        if zone is not None and zone.per is not None:
            per = zone.per
            self._require(idx, PLAYER if per == "player" else Type("index", ref=per), index)
            self._in_range(idx, per, index, name + "[{}]")
            return ir.Zone(name, idx, Type("zone", ref=name))
        var = s.vars.get(name)
        if var is not None and var[1] is not None:
            t, per = var[0], var[1]
            self._require(idx, PLAYER if per == "player" else Type("index", ref=per), index)
            self._in_range(idx, per, index, name + "[{}]")
            return ir.Var(name, idx, t)
        raise self._err(node, f"{name!r} is not a zone or variable with one per player or index")

    def _in_range(self, idx: ir.Expr, per: str, at: ast.AST, what: str) -> None:
        """An index known now (a number, or computed from params) must lie in its range;
        one known only in play is checked by the generated code. `what` shows the use,
        with `{}` where the index goes."""
        value = self._known(idx)
        size = self.scope.family_size(per)
        if isinstance(value, ir.Const) and size is not None and not 0 <= value.value < size:
            members = "seats" if per == "player" else f"members of {per}"
            raise self._err(at, f"{what.format(value.value)} is out of range: the {members} are 0 to "
                                f"{size - 1}" + (f" with {size} players" if per == "player" else ""))

    def _known(self, e: ir.Expr) -> ir.Expr:
        """`e` as far as it is known when the spec is loaded (player_count included)."""
        return known(e, self.scope.players)

    def _compare(self, left: ast.AST, ops: list[Any], comps: list[Any], env: dict[str, Any]) -> ir.Expr:
        parts: list[ir.Expr] = []
        a = self.convert(left, env)
        for op, right in zip(ops, comps, strict=True):
            b = self.convert(right, env)
            name = _CMP.get(type(op))
            if name is None:
                raise self._err(right, "'is' is not part of the language; use ==")
            if name in ("in", "notin"):
                if b.type.name == "zone":
                    a = self._as_kind(a, left)
                    self._require(a, KIND, left)
                elif b.type.name == "list":
                    if b.type.of is not None and b.type.of.name == "kind":
                        a = self._as_kind(a, left)
                    self._require(a, b.type.of or ANY, left)
                else:
                    raise self._err(right, f"'in' needs a zone or a list, found {b.type}")
            else:
                a, b = self._unify(a, b, right)
                if name not in ("==", "!=") and not (is_numeric(a.type) and is_numeric(b.type)):
                    raise self._err(right, f"{name} compares numbers, found {a.type} and "
                                           f"{b.type}")
            parts.append(ir.Cmp(name, a, b, BOOL))
            a = b
        return parts[0] if len(parts) == 1 else ir.BoolOp("and", tuple(parts), BOOL)

    def _unify(self, a: ir.Expr, b: ir.Expr, at: ast.AST) -> tuple[ir.Expr, ir.Expr]:
        """Make two operands comparable: a name literal beside a kind or enum is checked."""
        if a.type.name == "kind":
            b = self._as_kind(b, at)
        elif b.type.name == "kind":
            a = self._as_kind(a, at)
        for x, y in ((a, b), (b, a)):
            if isinstance(y, ir.Const) and y.type == STR and x.type.name == "str" and x.type.ref:
                allowed = self.scope.enums[x.type.ref]
                if y.value not in allowed:
                    raise self._err(at, f"{y.value!r} is not one of {', '.join(allowed)}")
        if fits(b.type, a.type) or fits(a.type, b.type):
            return a, b
        raise self._err(at, f"cannot compare {a.type} with {b.type}")

    def _as_kind(self, node: ir.Expr, at: ast.AST) -> ir.Expr:
        if isinstance(node, ir.Const) and node.type == STR:
            if node.value not in self.scope.kind_index:
                raise self._err(at, f"unknown card or token kind {node.value!r}")
            return ir.Const(self.scope.kind_index[node.value], KIND)
        return node

    # ------------------------------------------------------------------ calls
    def _call(self, node: ast.Call, env: dict[str, Any]) -> ir.Expr:
        if not isinstance(node.func, ast.Name):
            raise self._err(node, "only plain function names can be called, e.g. count(hand[p])")
        fn = node.func.id
        if fn.startswith("_"):
            raise self._err(node, f"names starting with '_' are not allowed: {fn!r}")
        if fn in self.scope.procedures:
            raise self._err(node, f"{fn}(...) is a procedure: it changes the state, so it can "
                                  "only be an effect statement of its own, not part of an "
                                  "expression")
        if fn in self.scope.defs:
            d = self.scope.defs[fn]
            if node.keywords or len(node.args) != len(d.params):
                raise self._err(node, f"{fn} takes {len(d.params)} argument(s): "
                                      f"{fn}({', '.join(d.params)})")
            return self._expand(node, d, [self.convert(a, env) for a in node.args], env)
        if fn in EFFECTS:
            raise self._err(node, f"{fn}(...) changes the state; it can only be an effect "
                                  "statement, not part of an expression")
        if fn not in FUNCTIONS:
            raise self._err(node, f"unknown function {fn!r}; the functions are "
                                  + ", ".join(sorted(FUNCTIONS)))
        kwargs = {k.arg: k.value for k in node.keywords}
        if fn in _REDUCERS and len(node.args) >= 1 and isinstance(node.args[0], ast.GeneratorExp):
            gen = node.args[0]
            default = None
            extra = node.args[1:]
            if "default" in kwargs:
                default = self.convert(kwargs.pop("default"), env)
            elif extra and fn in ("first", "min", "max"):
                default = self.convert(extra[0], env)
                extra = extra[1:]
            if extra or kwargs:
                raise self._err(node, f"{fn}(...) with a generator takes at most a default")
            return self._comprehension(fn, gen.elt, gen.generators, env, default)
        if kwargs:
            raise self._err(node, f"{fn}(...) takes no keyword arguments")
        if fn in ("lowest", "highest", "worth"):
            if len(node.args) != 2 or not isinstance(node.args[1], ast.Name):
                raise self._err(node, f"{fn} takes a zone and an attribute name: "
                                      f"{fn}(chips[p], value)")
            zone = self._zone_arg(node.args[0], env)
            attr = node.args[1].id
            if attr not in self.scope.kind_attrs or not is_numeric(self.scope.kind_attrs[attr]):
                raise self._err(node.args[1], f"{attr!r} is not a number attribute of kinds")
            out = INT if fn == "worth" else KIND
            return ir.Call(fn, (zone,), out, attr)
        args = [self.convert(a, env) for a in node.args]
        return self._plain_call(node, fn, args)

    def _plain_call(self, node: ast.Call, fn: str, args: list[ir.Expr]) -> ir.Expr:
        n = len(args)

        def arity(*allowed: int) -> None:
            if n not in allowed:
                raise self._err(node, f"{fn} takes {' or '.join(map(str, allowed))} argument(s), "
                                      f"got {n}: {FUNCTIONS[fn]}")

        if fn == "count":
            arity(1, 2)
            if args[0].type.name == "list" and n == 1:
                return ir.Call("len", tuple(args), INT)
            self._zone_check(args[0], node.args[0])
            if n == 2:
                k = self._as_kind(args[1], node.args[1])
                self._require(k, KIND, node.args[1])
                return ir.Call("count", (args[0], k), INT)
            return ir.Call("count", (args[0],), INT)
        if fn in ("top", "empty", "kinds"):
            arity(1)
            z = self._zone_check(args[0], node.args[0])
            if fn == "top" and z.order != "pile":
                raise self._err(node, f"top() needs a pile; {z.name} is a bag (no order)")
            out = {"top": KIND, "empty": BOOL, "kinds": list_of(KIND)}[fn]
            return ir.Call(fn, tuple(args), out)
        if fn == "after":
            arity(1, 2)
            for a, at in zip(args, node.args, strict=True):
                self._require(a, INT, at)
            self._in_range(args[0], "player", node.args[0], "after({})")
            return ir.Call(fn, tuple(args), list_of(PLAYER))
        if fn in ("len", "sum", "min", "max", "any", "all", "first", "distinct"):
            arity(1, 2) if fn in ("first", "min", "max") else arity(1)
            if args[0].type.name != "list":
                raise self._err(node, f"{fn} needs a list or a generator, found {args[0].type}")
            elem = args[0].type.of or ANY
            out = {"len": INT, "sum": INT, "any": BOOL, "all": BOOL, "distinct": args[0].type
                   }.get(fn, elem)
            if fn == "sum":
                self._require(ir.Const(0, elem), INT, node)
            return ir.Call(fn, tuple(args), out)
        if fn == "abs":
            arity(1)
            self._require(args[0], INT, node.args[0])
            return ir.Call(fn, tuple(args), INT)
        if fn == "range":
            arity(2)
            for a, at in zip(args, node.args, strict=True):
                self._require(a, INT, at)
            lo, hi = self._known(args[0]), self._known(args[1])
            if isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and (
                    hi.value - lo.value > MAX_RANGE):
                raise self._err(node, over("max_range", f"the length of range({lo.value}, "
                                           f"{hi.value})", hi.value - lo.value))
            return ir.Call(fn, tuple(args), list_of(INT))
        raise self._err(node, f"{fn} cannot be called this way: {FUNCTIONS[fn]}")

    def _zone_arg(self, node: ast.AST, env: dict[str, Any]) -> ir.Expr:
        z = self.convert(node, env)
        self._zone_check(z, node)
        return z

    def _zone_check(self, z: ir.Expr, at: ast.AST) -> ir.ZoneDecl:
        if z.type.name != "zone":
            raise self._err(at, f"expected a zone, found {z.type}")
        return self.scope.zones[ref_of(z.type)]

    def _comprehension(self, fn: str, elt: ast.AST, gens: list[Any], env: dict[str, Any],
                       default: ir.Expr | None) -> ir.Expr:
        inner = dict(env)
        out_gens = []
        for g in gens:
            if not isinstance(g.target, ast.Name) or g.is_async:
                raise self._err(g.target, "a comprehension binds one plain name: for x in ...")
            name = g.target.id
            if name.startswith("_"):
                raise self._err(g.target, f"names starting with '_' are not allowed: {short(name)}")
            problem = identifier_problem(name)
            if problem is not None:
                raise self._err(g.target, problem)
            it = self.convert(g.iter, inner)
            if it.type.name == "zone":
                it = ir.Call("kinds", (it,), list_of(KIND))
            if it.type.name != "list":
                raise self._err(g.iter, f"can only loop over a list or a zone, found {it.type}")
            bound = binding_name(name, inner)
            inner[name] = ir.Local(bound, it.type.of or ANY)
            conds = []
            for c in g.ifs:
                cond = self.convert(c, inner)
                self._require(cond, BOOL, c)
                conds.append(cond)
            out_gens.append(ir.Gen(bound, it, tuple(conds)))
        body = self.convert(elt, inner)
        if fn in ("any", "all"):
            self._require(body, BOOL, elt)
        if fn == "sum":
            self._require(body, INT, elt)
        out = {"list": list_of(body.type), "distinct": list_of(body.type), "any": BOOL,
               "all": BOOL, "sum": INT, "count": INT}.get(fn, body.type)
        if default is not None:
            _, default = self._unify(body, default, elt)
        return ir.Comp(fn, body, tuple(out_gens), out, default)

    def _expand(self, node: ast.AST, d: Def, args: list[ir.Expr], env: dict[str, Any]) -> ir.Expr:
        if d.name in self._expanding:
            chain = " -> ".join((*self._expanding[self._expanding.index(d.name):], d.name))
            raise self._err(node, f"a def cannot use itself: {chain}")
        at = self._where(node)
        where = (lambda _offset: at) if d.given else d.where
        sub = ExprParser(self.scope, where, self._budget, (*self._expanding, d.name))
        out = sub.expression(d.text, dict(zip(d.params, args, strict=True)))
        self.scope.def_sites.setdefault(out, d.name)  # what the work bound charges to the def
        return out

    # ---------------------------------------------------------------- effects
    def _effect(self, call: ast.Call, env: dict[str, Any], where: Where, cite: tuple[str, ...]) -> ir.Do:
        if not isinstance(call.func, ast.Name) or call.func.id not in EFFECTS:
            name = call.func.id if isinstance(call.func, ast.Name) else _describe(call.func)
            raise self._err(call, f"unknown effect {name!r}; the effects are "
                                  + ", ".join(sorted(EFFECTS)))
        fn = call.func.id
        args = [self._family(a) if fn == "deal" and i == 1 else self.convert(a, env)
                for i, a in enumerate(call.args)]
        kwargs = {k.arg: self.convert(k.value, env) for k in call.keywords}
        spec = _EFFECT_SIGNATURES[fn]
        if not (spec[0] <= len(args) <= spec[1]):
            raise self._err(call, f"wrong number of arguments: {EFFECTS[fn]}")
        for k in kwargs:
            if k not in spec[3]:
                raise self._err(call, f"{fn} has no keyword {k!r}: {EFFECTS[fn]}")
        for i, (a, want) in enumerate(zip(args, spec[2], strict=False)):
            at = call.args[i]
            if want == "kind":
                a = self._as_kind(a, at)
                args[i] = a
                self._require(a, KIND, at)
            elif want == "kinds":
                a = self._as_kind(a, at)
                args[i] = a
                if a.type.name == "kind":
                    continue
                self._require(a, list_of(KIND), at)
            elif want in ("zone", "pile", "bag"):
                z = self._zone_check(a, at)
                if want == "pile" and z.order != "pile":
                    raise self._err(at, f"{fn} needs a pile; {z.name} is a bag")
                if want == "bag" and z.order != "bag":
                    raise self._err(at, f"{fn} needs a bag; {z.name} is a pile")
            elif want == "int":
                self._require(a, INT, at)
        for v in kwargs.values():
            self._require(v, INT, call)
        if fn == "move_all" and "keep" in kwargs:
            self._keep_needs_a_pile(call, args[0])
        keywords = {k: v for k, v in kwargs.items() if k is not None}  # `**x` was refused
        return ir.Do(where, cite, fn, tuple(args), tuple(sorted(keywords.items())))

    def _keep_needs_a_pile(self, call: ast.Call, source: ir.Expr) -> None:
        """`move_all(from, to, keep=n)` keeps the top n of a pile; a bag has no top, so
        `keep=` on a bag would say nothing (and neither back end could honour it)."""
        z = self._zone_check(source, call.args[0])
        if z.order != "pile":
            keyword = next(k for k in call.keywords if k.arg == "keep")
            raise self._err(keyword, f"keep= keeps the top items of a pile; {z.name} is a bag "
                                     "(no top): move everything, or make it a pile")

    def _family(self, node: ast.AST) -> ir.Expr:
        """The bare name of a per-player zone family, as deal(stock, hand, 6) takes it."""
        z = self.scope.zones.get(node.id) if isinstance(node, ast.Name) else None
        if z is None or z.per != "player":
            raise self._err(node, "expected the name of a zone with one per player, e.g. hand")
        return ir.Const(z.name, Type("family", ref=z.name))


_CHOOSER = "chooser is the choosing seat only in an action with simultaneous: true"
_ARITHMETIC = ", ".join(_BIN.values()) + " (whole numbers only: // divides)"
_CHAIN_TOO_LONG = (f"this expression chains more than {MAX_EXPR_CHAIN} operations of one "
                   "level (such as a + b + ...) (max_expr_chain)")

# (min args, max args, argument kinds, keywords)
_EFFECT_SIGNATURES: dict[str, tuple[int, int, tuple[str, ...], tuple[str, ...]]] = {
    "move": (3, 4, ("kind", "zone", "zone", "int"), ()),
    "move_top": (2, 3, ("pile", "zone", "int"), ()),
    "move_all": (2, 2, ("zone", "zone"), ("keep",)),
    "gather": (2, 2, ("kinds", "zone"), ()),
    "shuffle": (1, 1, ("pile",), ()),
    "deal": (3, 3, ("pile", "family", "int"), ()),
    "pay": (3, 3, ("int", "bag", "bag"), ()),
    "exchange": (2, 2, ("bag", "bag"), ()),
}


def _describe(node: ast.AST) -> str:
    names = {ast.Lambda: "a lambda", ast.Dict: "a dict", ast.Set: "a set", ast.Await: "await",
             ast.DictComp: "a dict comprehension", ast.SetComp: "a set comprehension",
             ast.GeneratorExp: "a bare generator", ast.Starred: "a star", ast.Slice: "a slice",
             ast.JoinedStr: "an f-string", ast.NamedExpr: ":=", ast.Subscript: "this subscript"}
    return names.get(type(node), f"{type(node).__name__}")
