"""Constant folding on IR expressions: parameters chosen by variants become constants,
so `if: consolidate` or `'ender' == 'ender'` disappear before any back end sees them."""

from __future__ import annotations

import attrs

from . import ir
from .types import BOOL, INT

_TRUE = ir.Const(True, BOOL)
_FALSE = ir.Const(False, BOOL)
_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_BIN = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def fold(e: ir.Expr) -> ir.Expr:
    """The same expression with constant parts computed."""
    match e:
        case ir.BoolOp(op=op, values=vs):
            absorbing = op == "or"
            out = []
            for v in vs:
                v = fold(v)
                if isinstance(v, ir.Const):
                    if v.value == absorbing:
                        return ir.Const(absorbing, BOOL)
                    continue
                out.append(v)
            if not out:
                return ir.Const(not absorbing, BOOL)
            return out[0] if len(out) == 1 else ir.BoolOp(op, tuple(out), BOOL)
        case ir.Unary(op="not", operand=x):
            x = fold(x)
            if isinstance(x, ir.Const):
                return ir.Const(not x.value, BOOL)
            return ir.Unary("not", x, BOOL)
        case ir.Cond(test=t, body=a, orelse=b):
            t = fold(t)
            if isinstance(t, ir.Const):
                return fold(a if t.value else b)
            return ir.Cond(t, fold(a), fold(b), e.type)
        case ir.Cmp(op=op, left=a, right=b):
            a, b = fold(a), fold(b)
            if isinstance(a, ir.Const) and isinstance(b, ir.Const) and op in _CMP:
                return ir.Const(_CMP[op](a.value, b.value), BOOL)
            return ir.Cmp(op, a, b, BOOL)
        case ir.Bin(op=op, left=a, right=b):
            a, b = fold(a), fold(b)
            if isinstance(a, ir.Const) and isinstance(b, ir.Const) and op in _BIN:
                return ir.Const(_BIN[op](a.value, b.value), e.type)
            return ir.Bin(op, a, b, e.type)
        case ir.Attr(obj=o):
            return attrs.evolve(e, obj=fold(o))
        case ir.Var(index=i) | ir.Zone(index=i) if i is not None:
            return attrs.evolve(e, index=fold(i))
        case ir.Call(args=args):
            return attrs.evolve(e, args=tuple(fold(a) for a in args))
        case ir.Comp(elt=elt, gens=gens, default=d):
            return attrs.evolve(e, elt=fold(elt), default=fold(d) if d is not None else None,
                                gens=tuple(ir.Gen(g.var, fold(g.iter),
                                                  tuple(fold(c) for c in g.conds)) for g in gens))
        case ir.ListLit(items=items):
            return attrs.evolve(e, items=tuple(fold(i) for i in items))
    return e


def substitute(e: ir.Expr, name: str, value: ir.Expr) -> ir.Expr:
    """`e` with the local `name` replaced by `value` (comprehension unrolling uses it)."""
    match e:
        case ir.Local(name=n) if n == name:
            return value
        case ir.Comp(gens=gens) if any(g.var == name for g in gens):
            # A generator rebinding the name shadows it from there on.
            out = []
            shadowed = False
            for g in gens:
                it = g.iter if shadowed else substitute(g.iter, name, value)
                shadowed = shadowed or g.var == name
                conds = g.conds if shadowed else tuple(substitute(c, name, value)
                                                       for c in g.conds)
                out.append(ir.Gen(g.var, it, conds))
            return attrs.evolve(e, gens=tuple(out))
    kids = ir.children(e)
    if not kids:
        return e
    match e:
        case ir.Var(index=i) | ir.Zone(index=i) if i is not None:  # it has children
            return attrs.evolve(e, index=substitute(i, name, value))
        case ir.Attr(obj=o):
            return attrs.evolve(e, obj=substitute(o, name, value))
        case ir.Unary(operand=x):
            return attrs.evolve(e, operand=substitute(x, name, value))
        case ir.Bin(left=a, right=b) | ir.Cmp(left=a, right=b):
            return attrs.evolve(e, left=substitute(a, name, value),
                                right=substitute(b, name, value))
        case ir.BoolOp(values=vs):
            return attrs.evolve(e, values=tuple(substitute(v, name, value) for v in vs))
        case ir.Cond(test=t, body=a, orelse=b):
            return attrs.evolve(e, test=substitute(t, name, value),
                                body=substitute(a, name, value), orelse=substitute(b, name, value))
        case ir.Call(args=args):
            return attrs.evolve(e, args=tuple(substitute(a, name, value) for a in args))
        case ir.ListLit(items=items):
            return attrs.evolve(e, items=tuple(substitute(i, name, value) for i in items))
        case ir.Comp(elt=elt, gens=gens, default=d):
            return attrs.evolve(
                e, elt=substitute(elt, name, value),
                default=substitute(d, name, value) if d is not None else None,
                gens=tuple(ir.Gen(g.var, substitute(g.iter, name, value),
                                  tuple(substitute(c, name, value) for c in g.conds))
                           for g in gens))
    return e


def known(e: ir.Expr, players: int) -> ir.Expr:
    """`e` folded with `player_count` taken as `players`: what the loader can decide."""
    return fold(_with_player_count(e, ir.Const(players, INT))) if players else fold(e)


def _with_player_count(e: ir.Expr, value: ir.Const) -> ir.Expr:
    if isinstance(e, ir.Builtin) and e.name == "player_count":
        return value
    match e:
        case ir.Var(index=i) | ir.Zone(index=i) if i is not None:
            return attrs.evolve(e, index=_with_player_count(i, value))
        case ir.Attr(obj=o):
            return attrs.evolve(e, obj=_with_player_count(o, value))
        case ir.Unary(operand=x):
            return attrs.evolve(e, operand=_with_player_count(x, value))
        case ir.Bin(left=a, right=b) | ir.Cmp(left=a, right=b):
            return attrs.evolve(e, left=_with_player_count(a, value),
                                right=_with_player_count(b, value))
        case ir.BoolOp(values=vs):
            return attrs.evolve(e, values=tuple(_with_player_count(v, value) for v in vs))
        case ir.Cond(test=t, body=a, orelse=b):
            return attrs.evolve(e, test=_with_player_count(t, value),
                                body=_with_player_count(a, value),
                                orelse=_with_player_count(b, value))
        case ir.Call(args=args):
            return attrs.evolve(e, args=tuple(_with_player_count(a, value) for a in args))
        case ir.ListLit(items=items):
            return attrs.evolve(e, items=tuple(_with_player_count(i, value) for i in items))
    return e  # comprehensions and the rest: left as they are (decided in play)

