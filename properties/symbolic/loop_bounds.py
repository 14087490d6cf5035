"""How many times a `while` loop can run, proved by z3, so that it is unrolled no further.

A loop is unrolled up to its `max` (`Exec`), and every unrolled try is merged into the
state after it: a formula that grows with each try. A spec's `max` is a safety bound,
often far above what the loop can do (the automatic steps, one loop, have the sum of
their maxes; a step that empties what its condition looks for runs once). This module
finds, once per loop and shape of the state it starts from, the least k such that the
loop's test is false after k tries from *any* state with sound zones, no zone holding
more copies of a kind than there are, and variables in range (`state.sound`,
`Enc.vars_ok`; every effect keeps these, `properties/symbolic/lemmas.py`, and
z3_conservation proves the totals), on every path defined that far:

    from s0 sound, run the test and the body k times (the loop, unrolled exactly);
    the test before try k + 1 cannot hold.

Then every run of the loop from a sound state ends within k tries, and unrolling it k
times (and not asking whether it runs past its max) is exact. k is searched upward
from 1, in one solver (the least bound has the smallest proof, and a loop that can run
on, the usual counting loop, is shown so by a model at once); the checks have a fixed
budget of z3 resource units, so the bound does not depend on the machine. A check z3
gives up on counts as "can run": the loop is then unrolled as far as before.

A localized execution (`expressions.Hidden`) over-approximates the exact one, and may run
a loop longer than k; cutting it at k still keeps every exact run, which is all that a
localized proof needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from model import ir

from .expressions import Ctx
from .state import Enc, fresh_env, lemma_state, sound
from .terms import AND, LE, NOT, OutOfTime, Unsupported, limit_units, past_deadline, zterm

#: z3 resource units for each check of one loop's bound, and for all of them together (a
#: fixed count: the formulas a query builds must not depend on the machine). A held-out
#: game's automatic steps, 8 tries by their maxes, are proved to make at most 4 with 11
#: million (docs/symbolic.md).
CHECK_UNITS = 30_000_000
LOOP_UNITS = 60_000_000
#: A loop of at most this many tries is unrolled to its max without asking: proving a
#: smaller bound saves little there and costs more than it saves (a draw loop of 3 tries
#: that can all run took 17 million units to be shown so, at every player count).
SMALL = 4


def runs_at_most(enc: Enc, make: Callable[[Ctx], Any], stmt: ir.While, depths: tuple[int, ...],
                 env: dict[str, Any], bound: int) -> int:
    """The least k <= `bound` such that `stmt` runs at most k times from any sound state
    entered with `depths` items remembered below each pile's top and bound names `env`
    (`bound` if none is proved); cached on `enc`. `make(ctx)` is an executor for that
    context."""
    cache = enc.loop_cache
    key = (stmt, depths, bound, tuple((k, v if isinstance(v, bool | int) else None)
                                      for k, v in env.items()))
    if key not in cache:
        try:
            cache[key] = _least(enc, make, stmt, depths, env, bound)
        except Unsupported:
            cache[key] = bound
    return cache[key]


def _least(enc: Enc, make: Callable[[Ctx], Any], stmt: ir.While, depths: tuple[int, ...],
           env: dict[str, Any], bound: int) -> int:
    fresh = fresh_env(env, "B.env")
    if fresh is None or bound <= SMALL:
        return bound
    s0 = lemma_state(enc, "B.s0", depths)
    ctx = Ctx("B")
    ex = make(ctx)
    # lives[j]: the test held before each of the first j + 1 tries, along the path, and
    # everything that far was defined and consistent in its chance (every query excludes
    # an undefined step, and a path undefined within j tries is found so where the loop is
    # unrolled to j tries)
    lives: list[Any] = []
    live: Any = True
    st = s0
    for _ in range(bound + 1):
        with ctx.under(live):
            c = ex.truth(ex.ev(stmt.test, st, fresh))
        live = AND(live, c)
        lives.append(AND(live, ctx.defined("undefined"), *ctx.assume))
        if live is False or len(lives) == bound + 1:
            break
        with ctx.under(live):
            s2 = ex.run(stmt.body, st, fresh)
        st = ex.merge(live, s2, st)
    if lives[-1] is False:  # the loop stops by itself within the unrolling, no z3 needed
        return len(lives) - 1
    s = z3.Solver()
    caps = [LE(c, enc.copies[k]) for i in range(enc.n_inst)
            for k, c in zip(enc.inst_kinds[i], s0.Z[i], strict=True)]
    for h in (sound(enc, s0, range(enc.n_inst)), *caps, enc.vars_ok(s0), NOT(s0.term)):
        if h is not True:
            s.add(zterm(h))
    left = LOOP_UNITS
    for j in range(1, bound + 1):  # the least first: its proof is the smallest formula
        if lives[j] is False:
            return j
        before = _count(s)
        limit_units(s, min(left, CHECK_UNITS))
        r = s.check(zterm(lives[j]))
        if r == z3.unknown and past_deadline():
            raise OutOfTime("bounding a loop")
        if r == z3.unsat:
            return j
        left -= _count(s) - before
        if r == z3.unknown or left <= 0:
            return bound
    return bound


def _count(s: z3.Solver) -> int:
    """z3's resource count so far (one counter for every solver of the context)."""
    stats = s.statistics()
    keys = stats.keys()  # z3's Statistics answers `in` wrongly (always False)
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in keys else 0
