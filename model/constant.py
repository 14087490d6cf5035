"""Values a spec computes before the game starts: a computed param, a count of copies or
a total, the attributes and copies of generated kinds. Only constants, params,
player_count (and, in a generated kind, the names of `each`) may be used."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import ir
from .limits import MAX_INT


def const_eval(e: ir.Expr, players: int, fail: Callable[[str], Exception],
               bound: Mapping[str, Any] | None = None) -> Any:
    """Evaluate an expression that may only use constants and player_count (params, copies),
    and the values `bound` gives names (a generated kind's names)."""
    env = bound or {}

    def ev(x: ir.Expr) -> Any:
        return const_eval(x, players, fail, env)

    match e:
        case ir.Const(value=v):
            return v
        case ir.Local(name=n) if n in env:
            return env[n]
        case ir.Builtin(name="player_count"):
            return players
        case ir.Unary(op="not", operand=x):
            return not ev(x)
        case ir.Unary(op="-", operand=x):
            return -ev(x)
        case ir.Bin(op=op, left=a, right=b) if e.type.name == "list":
            return (*ev(a), *ev(b))
        case ir.Bin(op=op, left=a, right=b):
            x, y = ev(a), ev(b)
            if op in ("//", "%") and y == 0:
                raise fail("division by zero")
            value: Any = {"+": x + y, "-": x - y, "*": x * y}.get(op) if op in "+-*" else (
                x // y if op == "//" else x % y)
            if abs(value) > MAX_INT:
                raise fail(f"this comes to {value:,}, beyond the limit of +-{MAX_INT:,} "
                           "(max_int)")
            return value
        case ir.Cmp(op="in" | "notin" as op, left=a, right=b) if b.type.name == "list":
            found = ev(a) in ev(b)
            return found if op == "in" else not found
        case ir.Cmp(op=op, left=a, right=b) if op not in ("in", "notin"):
            x, y = ev(a), ev(b)
            return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y,
                    ">=": x >= y}[op]
        case ir.BoolOp(op="and", values=vs):
            return all(ev(v) for v in vs)
        case ir.BoolOp(op="or", values=vs):
            return any(ev(v) for v in vs)
        case ir.Cond(test=t, body=a, orelse=b):
            return ev(a if ev(t) else b)
        case ir.ListLit(items=items):
            return tuple(ev(x) for x in items)
        case ir.Call(fn="abs", args=(x,)):
            return abs(ev(x))
        case ir.Call(fn="len", args=(x,)):
            return len(ev(x))
    raise fail("this value must be computable before the game starts (constants, params, "
               "player_count and, in a generated kind, the names of each only)")
