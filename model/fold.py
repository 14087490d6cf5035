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
    return ir.map_children(e, fold)


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
    return ir.map_children(e, lambda x: substitute(x, name, value))


def known(e: ir.Expr, players: int) -> ir.Expr:
    """`e` folded with `player_count` taken as `players`: what the loader can decide."""
    return fold(with_player_count(e, players, comprehensions=False)) if players else fold(e)


def with_player_count(e: ir.Expr, players: int, comprehensions: bool = True) -> ir.Expr:
    """`e` with `player_count` replaced by its value (an IR is for one count); without
    `comprehensions`, a comprehension is left as it is (decided in play)."""
    value = ir.Const(players, INT)

    def put(x: ir.Expr) -> ir.Expr:
        if isinstance(x, ir.Builtin) and x.name == "player_count":
            return value
        if isinstance(x, ir.Comp) and not comprehensions:
            return x
        return ir.map_children(x, put)

    return put(e)
