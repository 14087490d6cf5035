"""z3 terms built fast: Boolean and integer operators through z3's C API, with constants
folded in Python, and the deadline that bounds building a formula.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import z3
from z3 import z3core

from . import session

TRUE = True


FALSE = False


ZERO = 0


ONE = 1


#: Default bound for `repeat n` with a symbolic n, and for `while` loops with a larger max.
LOOP_BOUND = 64


#: How many items below a pile's top the encoding remembers (pushed within a transition, or
#: a start pile's initial order). Deeper items are forgotten: a draw beyond them exposes a
#: fresh top, as after a shuffle (an over-approximation). Unbounded, a start pile of 104
#: cards would be remembered whole, and every formula over it would be quadratic in its size.
KNOWN_BELOW = 8


class OutOfTime(Exception):
    """A query ran past the wall-clock safety net (`deadline`): building a formula, or a
    z3 check. Its answer is `timeout`, never a verdict."""


_DEADLINE = [math.inf]


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """The wall-clock safety net: symbolic execution inside the block raises OutOfTime once
    `seconds` have passed, and z3's checks stop then (nested blocks: the sooner deadline
    wins). Budgets are z3 resource units; this only stops a machine far slower than
    expected, and what it stops is reported as such."""
    old = _DEADLINE[0]
    _DEADLINE[0] = min(old, time.perf_counter() + seconds)
    try:
        yield
    finally:
        _DEADLINE[0] = old


def past_deadline() -> bool:
    """Whether the deadline set by `deadline()` has passed."""
    return time.perf_counter() > _DEADLINE[0]


def ms_to_deadline() -> int | None:
    """Milliseconds to the deadline (at least 1), or None when no deadline is set."""
    if _DEADLINE[0] == math.inf:
        return None
    return max(int((_DEADLINE[0] - time.perf_counter()) * 1000), 1)


def limit_units(s: Any, units: int) -> None:
    """The next check of `s` may spend `units` of z3's resources, and no longer than the
    safety net allows."""
    s.set("rlimit", max(int(units), 1))
    ms = ms_to_deadline()
    if ms is not None:
        s.set("timeout", ms)


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


_INTS: dict[int, z3.IntNumRef] = session.cache()


# z3's Python constructors (And, Or, Sum, If) coerce every argument to a common sort, which
# dominated building the encoding of a large game; terms built here already have the right
# sorts, so these call the C API directly when every argument is a term of one kind.
def _kind(x: Any) -> type[Any] | None:
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


def conjuncts(x: Any) -> list:
    """The parts of a conjunction (x itself if it is none): z3 proves each part of a
    goal on its own far faster than the whole (a board-wide invariant, one part per
    position: 0.6 s against 2.1 s)."""
    if isinstance(x, z3.BoolRef) and z3.is_and(x):
        return x.children()
    return [x]


def NOT(x: Any) -> Any:
    if isinstance(x, bool):
        return not x
    if isinstance(x, z3.BoolRef):
        return z3.BoolRef(z3core.Z3_mk_not(x.ctx.ref(), x.as_ast()), x.ctx)
    return z3.Not(x)


def IMPLIES(a: Any, b: Any) -> Any:
    return OR(NOT(a), b)


def same_term(a: Any, b: Any) -> bool:
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        return isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b)
    return type(a) is type(b) and a == b


def ITE(c: Any, a: Any, b: Any) -> Any:
    if c is True:
        return a
    if c is False:
        return b
    if same_term(a, b):
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
