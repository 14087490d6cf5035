"""Retry loops summarised by one try.

A `while` loop whose body puts back what the last try drew, reshuffles and draws again
(a set-up that redraws until the cards fit) would be unrolled up to its `max`: sixty
copies of a reshuffle inside every formula that contains a deal. But such a body
*forgets* the previous try: what it produces does not depend on which try came before.
Then every try's result is a possible result of the first try, and the loop is exactly

    if test: (one try); and that try passes the test

with the chance of that one try free. This module decides, once per loop (and shape of
the state it starts from), whether a body forgets, by a z3 proof over all states:

    from any state s0 with sound zones (`state.sound`) where the test holds, let h1 be
    the result of one try, where the test holds again; then a second try from h1, with
    chance choices c, gives the same state as a try from s0 with the same choices c, the
    choices allowed from h1 are allowed from s0, and a try defined from h1 is defined from s0.

By induction, every state the loop leaves with is a try from s0 (the n-th try from s0
equals a first try with the n-th try's choices), so the summary is exact: it admits the
states the concrete loop can end in, and no others. A witness through a summarised loop
replays as one try on the concrete model. The concrete loop's `max` is not a concern: one
try is within any max >= 1 (a loop that no try can leave has no successor in the summary,
where the concrete model raises after `max` tries). A body that does not forget is
unrolled as before (`Exec`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import z3

from model import ir

from .expressions import Ctx
from .state import Enc, SymState, fresh_env, lemma_state, sound
from .terms import AND, EQ, IMPLIES, NOT, OutOfTime, Unsupported, limit_units, past_deadline, zterm

#: z3 resource units it may spend to decide whether one loop forgets (per goal, once per
#: loop and shape): a fixed count, so the formulas built do not depend on the machine.
CHECK_UNITS = 15_000_000


def forgets(enc: Enc, make: Callable[[Ctx], Any], stmt: ir.While, depths: tuple[int, ...],
            env: dict[str, Any]) -> bool:
    """Whether the body of `stmt` forgets the previous try (see the module docstring),
    for a loop entered with `depths` items remembered below each pile's top and bound
    names `env`; cached on `enc`. `make(ctx)` is an executor (`Exec`) for that context."""
    cache = enc.retry_cache
    key = (stmt, depths, tuple((k, v if isinstance(v, bool | int) else None)
                               for k, v in env.items()))
    if key not in cache:
        try:
            cache[key] = _prove(enc, make, stmt, depths, env)
        except Unsupported:
            cache[key] = False
    return cache[key]


def _could_forget(body: tuple[ir.Stmt, ...]) -> bool:
    """A cheap test that spares z3 the loops that count down (the common kind): a body
    that may forget the last try reshuffles, and updates no variable from its old value."""
    shuffles = counts = False
    for s in _walk(body):
        match s:
            case ir.Do(fn="shuffle"):
                shuffles = True
            case ir.Assign(op="+=" | "-="):
                counts = True
    return shuffles and not counts


def _walk(body: tuple[ir.Stmt, ...]) -> Iterator[ir.Stmt]:
    for s in body:
        yield s
        match s:
            case ir.If(then=a, orelse=b):
                yield from _walk(a)
                yield from _walk(b)
            case ir.For(body=b) | ir.Repeat(body=b) | ir.While(body=b):
                yield from _walk(b)


def _prove(enc: Enc, make: Callable[[Ctx], Any], stmt: ir.While, depths: tuple[int, ...],
           env: dict[str, Any]) -> bool:
    if stmt.limit < 1 or not _could_forget(stmt.body):
        return False
    fresh = fresh_env(env, "R.env")
    if fresh is None:
        return False
    s0 = lemma_state(enc, "R.s0", depths)
    first = Ctx("R.t1")
    ex1 = make(first)
    c0 = ex1.truth(ex1.ev(stmt.test, s0, fresh))
    with first.under(c0):
        h1 = ex1.run(stmt.body, s0, fresh)
        c1 = ex1.truth(ex1.ev(stmt.test, h1, fresh))
    # the second try from h1, and a try from s0, with the same chance choices
    again, anew = Ctx("R.t2"), Ctx("R.t2")
    h2 = make(again).run(stmt.body, h1, fresh)
    s1 = make(anew).run(stmt.body, s0, fresh)
    if [str(v) for v in again.created] != [str(v) for v in anew.created]:
        return False
    if any(len(a) != len(b) for a, b in zip(h2.S, s1.S, strict=True)):
        return False
    # one goal at a time, the cheap ones first: a body that does not forget usually
    # differs in a variable (a counter it lowers), which z3 finds at once
    goals = [AND(EQ(h2.term, s1.term), *[EQ(x, y) for name in h2.V
                                         for x, y in zip(h2.V[name], s1.V[name], strict=True)])]
    goals.append(IMPLIES(AND(*again.assume), AND(*anew.assume)))
    goals.append(IMPLIES(again.defined("undefined"), anew.defined("undefined")))
    for i in range(enc.n_inst):
        goals += [EQ(x, y) for x, y in zip(h2.Z[i], s1.Z[i], strict=True)]
        if enc.inst_pile[i]:
            goals.append(EQ(h2.T[i], s1.T[i]))
            goals += [EQ(x, y) for x, y in zip(h2.S[i], s1.S[i], strict=True)]
    hyp = [sound(enc, s0, range(enc.n_inst)), enc.vars_ok(s0), NOT(s0.term),
           *first.assume, first.defined("undefined"), c0, c1, *again.assume,
           again.defined("undefined")]
    s = z3.Solver()
    for h in hyp:
        if h is not True:
            s.add(zterm(h))
    for goal in goals:
        if goal is True:
            continue
        if goal is False:
            return False
        limit_units(s, CHECK_UNITS)
        r = s.check(zterm(NOT(goal)))
        if r == z3.unknown and past_deadline():
            raise OutOfTime("deciding whether a loop forgets")
        if r != z3.unsat:
            return False
    return True


def one_try(ex: Any, stmt: ir.While, st: SymState, env: dict[str, Any]) -> SymState:
    """The loop as one try that passes the test (only for a body that `forgets`)."""
    ctx = ex.ctx
    c0 = ex.truth(ex.ev(stmt.test, st, env))
    if c0 is False:
        return st
    with ctx.under(c0):
        s1 = ex.run(stmt.body, st, env)
        c1 = ex.truth(ex.ev(stmt.test, s1, env))
        ctx.assume_(NOT(c1))
    return ex.merge(c0, s1, st)

