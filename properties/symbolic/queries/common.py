"""What every query shares: its `Result`, its budget and clock, solvers, the cached
machine of a game, and the one-step frame (one action from a free well-formed state).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import z3

import model

from .. import session
from ..execute import Exec
from ..expressions import Ctx
from ..lemmas import Lemmas
from ..machine import Machine, StepPart
from ..state import SymState, model_value
from ..terms import AND, EQ, LT, NOT, OutOfTime, limit_units, past_deadline, zterm
from ..witness import Trace, events_in_model

#: z3 resource units each query may spend: z3's own count of the work it does (`rlimit`),
#: the same on any machine under any load, so that a verdict depends on the spec, the
#: budget and the code only. On the 2-core development machine z3 spends 1-8 million
#: units a second; docs/symbolic.md has what each row of spec/ spends.
RLIMIT = 400_000_000


#: Seconds after which a query is stopped whatever is left of its budget: only a safety net
#: for a machine far slower than expected. A query it stops answers `timeout` ("ran out of
#: time"), which is undecided and never cached.
SAFETY_SECONDS = 900.0


@attrs.define
class Result:
    """A query's answer. `status`: `proved` (for every well-formed state, or every game),
    `bounded` (proved for every game up to `bound`: actions or rounds, as `detail` says,
    and not decided beyond it), `witness` (a trace, replayed on the concrete model),
    `unknown` (neither, within the budget of z3 resource units), `timeout` (stopped by the
    wall-clock safety net: says nothing of the game, and is never cached) or `error`.
    `spent`: the z3 resource units the query used; `found_by`: for a witness, `z3` (found
    by z3's search), `search` (by the deep search on the concrete model: `replay` is its
    replay file) or `recorded` (a replay file the spec records, replayed); `start`: where
    a witness starts, `deal` (a game from its first deal) or `situation` (a state not shown
    reachable from a deal)."""

    query: str
    status: str
    detail: str
    seconds: float = 0.0
    trace: Trace | None = None
    bound: int | None = None
    spent: int = 0
    found_by: str | None = None
    start: str | None = None
    replay: dict | None = None  # a witness the deep search found, as a replay file's data

    @property
    def failed(self) -> bool:
        return self.status == "witness"


_NESTED = [0]  # how many `bounded` queries are running, one inside another


def bounded(query: Callable[..., Result]) -> Callable[..., Result]:
    """A query run within its budget and under the safety net: a query that the net stops
    (`deadline`, set by the caller) answers `timeout`, saying where it was stopped. A query
    run by another passes the stop on, so the outer one answers `timeout` too, never a
    verdict that rests on an inner query cut short."""

    @functools.wraps(query)
    def run(game: model.Game, *args: Any, limit: int = RLIMIT, **kw: Any) -> Result:
        t0 = time.perf_counter()
        start = spent()
        _NESTED[0] += 1
        try:
            res = query(game, *args, limit=limit, **kw)
        except OutOfTime as exc:
            if _NESTED[0] > 1:
                raise
            return Result(query.__name__, "timeout", f"ran out of time: stopped by the "
                          f"wall-clock safety net (at {exc}); the budget was not used up, so "
                          "this says nothing of the game", time.perf_counter() - t0,
                          spent=spent() - start)
        finally:
            _NESTED[0] -= 1
        res.spent = spent() - start
        if res.status == "witness":
            if res.found_by is None:
                res.found_by = "z3"
            # a query that names who found its witness still starts where its trace does
            if res.start is None:
                res.start = res.trace.start if res.trace is not None else "situation"
        return res

    return run


_PROBE: dict[str, z3.Solver] = session.cache()  # a solver of the session's context


def spent() -> int:
    """z3's resource count in this session so far: every solver of z3's context adds to one
    counter, so a query's share is the difference across it, nested searches included."""
    probe = _PROBE.get("probe")
    if probe is None:
        probe = _PROBE["probe"] = z3.Solver()
    probe.check()
    return int(probe.statistics().get_key_value("rlimit count"))


class Clock:
    """A query's budget of z3 resource units (`left`, deterministic), and the wall-clock
    time it has taken (`elapsed`, only reported). A clock made from another's `left()`
    shares its units: both read the one counter of the process."""

    def __init__(self, limit: float) -> None:
        self.t0 = time.perf_counter()
        self.start = spent()
        self.limit = int(limit)

    def left(self) -> int:
        return self.limit - (spent() - self.start)

    def units(self) -> int:
        """The units a check may use now (z3's `rlimit`: at least 1, 0 means none)."""
        return max(self.left(), 1)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def new_solver(clock: Clock | None = None) -> z3.Solver:
    """A solver; every check of it goes through `check_sat`, which sets its limits."""
    return z3.Solver()


#: z3 resource units a bounded search may spend in all, within its query's budget: the
#: depth it reaches then depends on the formulas only. A spec's known two-player
#: shortfall (an expected z3_supply witness) is found with 18 million; its three-player
#: search reaches depth 3 with 4 million and depth 4 with 24.
SEARCH_BUDGET = 20_000_000


def budget(units: int | None) -> Budget | None:
    """A budget of `units` (None: the query's clock only)."""
    return None if units is None else Budget(units)


class Budget:
    """What is left of a bounded search's resource units, shared by its checks."""

    def __init__(self, units: int = SEARCH_BUDGET) -> None:
        self.left = units

    def check(self, s: z3.Solver, clock: Clock, *extra: Any) -> z3.CheckSatResult:
        """`check_sat` within what is left; what the check used is taken off."""
        if self.left <= 0:
            return z3.unknown
        before = spent()
        r = check_sat(s, clock, *extra, rlimit=self.left)
        self.left -= spent() - before
        return r


def check_sat(s: z3.Solver | z3.Optimize, clock: Clock, *extra: Any,
              rlimit: int = 0) -> z3.CheckSatResult:
    """z3's answer within what is left of the clock's units (and of `rlimit` units for
    this check, if given). Raises OutOfTime when the safety net stopped z3."""
    left = clock.left()
    if left <= 0:
        return z3.unknown
    limit_units(s, min(left, rlimit) if rlimit > 0 else left)
    r = s.check(*[zterm(x) for x in extra])
    if r == z3.unknown and past_deadline():
        raise OutOfTime("a z3 check")
    return r


def add_all(s: z3.Solver, *xs: Any) -> None:
    for x in xs:
        if x is True:
            continue
        s.add(zterm(x))


# ---------------------------------------------------------------------- machines
_MACHINES: dict[tuple, Machine] = session.cache()


_LEMMAS: dict[int, Lemmas] = session.cache()


def lemmas_of(M: Machine) -> Lemmas:
    if id(M) not in _LEMMAS:
        _LEMMAS[id(M)] = Lemmas(M.enc)
    return _LEMMAS[id(M)]


def machine(game: model.Game, split_actor: bool = True, split_params: bool = False) -> Machine:
    """The game's z3 machine (cached). By default an action instance per actor, with its
    parameters symbolic; the agreement check wants concrete parameters instead."""
    key = (id(game), split_actor, split_params)
    m = _MACHINES.get(key)
    if m is None or m.g is not game.ir:
        m = _MACHINES[key] = Machine(game.ir, split_actor, split_params)
    return m


# ---------------------------------------------------------------------- one-step frame
@attrs.define
class OneStep:
    """A transition from an arbitrary well-formed state `s` (fresh variables)."""

    M: Machine
    s: SymState
    pre: list  # constraints on s
    parts: list[StepPart]
    rounds: dict[int, tuple[SymState, Any, Any, Ctx]] = attrs.Factory(dict)

    @classmethod
    def build(cls, M: Machine, in_round: bool = True, invariants: bool = False,
              effects: bool = True, names: Sequence[str] | None = None) -> OneStep:
        """Without `effects`, the parts say only whether each alternative is enabled;
        `names`: only these of the spec's invariants are assumed."""
        enc = M.enc
        s, parts = action_parts(M, effects)
        ctx = Ctx("pre")
        pre = [enc.wf(s), NOT(s.term)]
        if in_round:
            ends = M.round_end(s, Exec(enc, ctx))
            pre.append(NOT(ends))
            pre.append(ctx.defined())
        if invariants:
            pre.append(M.invariants(s, ctx, names))
            pre.append(ctx.defined())
        pre.extend(ctx.assume)
        return cls(M, s, pre, parts)

    def after(self, n: int) -> tuple[SymState, Any, Any, Ctx]:
        """The state after alternative n's action and any round transition it triggers."""
        if n not in self.rounds:
            part = self.parts[n]
            ctx = Ctx(f"r{n}")
            post, ends, over = self.M.round_part(part.post, ctx)
            self.rounds[n] = (post, ends, over, ctx)
        return self.rounds[n]


def step_ok(part: StepPart, rctx: Ctx | None = None) -> Any:
    """The action is taken and defined, its chance choices are consistent."""
    out = [part.enabled, part.ctx.defined("undefined"), *part.ctx.assume]
    if rctx is not None:
        out += [rctx.defined("undefined"), *rctx.assume]
    return AND(*out)


def by_actor(M: Machine) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for n, alt in enumerate(M.alts()):
        out.setdefault(alt.action, []).append(n)
    return out


def situation_trace(game: model.Game, M: Machine, m: z3.ModelRef, one: OneStep, n: int,
                     post: SymState | None, rctx: Ctx | None) -> Trace:
    enc = M.enc
    part = one.parts[n]
    ev = model_value(m)
    action = game.action(part.alt.action, tuple(ev(x) for x in part.args))
    values = [enc.evaluate(m, one.s)]
    events: list = []
    if post is not None:
        values.append(enc.evaluate(m, post))
        events = [events_in_model(m, part.ctx.events + (rctx.events if rctx else []))]
        return Trace(game, "situation", [action], values, events)
    return Trace(game, "situation", [], values, [])


# ---------------------------------------------------------------------- conservation
def count_violation(enc: Any, st: SymState) -> list:
    lost = [NOT(EQ(t, enc.copies[k])) for k, t in enumerate(enc.kind_totals(st))]
    negative = [LT(c, 0) for zs in st.Z for c in zs]
    return lost + negative


_PARTS: dict[tuple[int, bool], tuple[Machine, SymState, list[StepPart]]] = session.cache()


def action_parts(M: Machine, effects: bool = True) -> tuple[SymState, list[StepPart]]:
    """Every action instance from the template's input state (built once per machine; the
    one-step proofs need only these, the searches the whole `template`). Without
    `effects`, guards only."""
    key = (id(M), effects)
    # the machine is kept with its parts: a machine made after another was dropped may
    # get its id, and must not be given the parts (and the loop bounds) of the other
    if key not in _PARTS or _PARTS[key][0] is not M:
        sin = M.enc.fresh_state("T.in")
        _PARTS[key] = M, sin, [M.action_part(sin, alt, f"T.a{n}", effects)
                               for n, alt in enumerate(M.alts())]
    _, sin, parts = _PARTS[key]
    return sin, parts
