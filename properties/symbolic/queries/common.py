"""What every query shares: its `Result`, the time limit and clock, solvers, the cached
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

from ..execute import Exec
from ..expressions import Ctx
from ..lemmas import Lemmas
from ..machine import Machine, StepPart
from ..state import SymState, model_value
from ..terms import AND, EQ, LT, NOT, OutOfTime, deadline, zterm
from ..witness import Trace, events_in_model

#: Seconds each query may take (the issue's limit).
TIME_LIMIT = 30.0


#: The share of the limit a query plans for: z3 and the formula builder stop a few seconds
#: after their deadline on large formulas, and the limit is for the whole query.
STOP_MARGIN = 0.85


@attrs.define
class Result:
    """A query's answer. `status`: `proved` (for every well-formed state, or every game),
    `bounded` (proved for every game up to `bound`: actions or rounds, as `detail` says,
    and not decided beyond it), `witness` (a trace, replayed on the concrete model),
    `unknown` (neither, within the time limit) or `error`."""

    query: str
    status: str
    detail: str
    seconds: float = 0.0
    trace: Trace | None = None
    bound: int | None = None

    @property
    def failed(self) -> bool:
        return self.status == "witness"


def bounded(query: Callable[..., Result]) -> Callable[..., Result]:
    """A query whose time limit covers building its formulas, not only z3's search: past
    the limit it answers `unknown`, saying where the building stopped."""

    @functools.wraps(query)
    def run(game: model.Game, *args: Any, limit: float = TIME_LIMIT, **kw: Any) -> Result:
        t0 = time.perf_counter()
        inner = limit * STOP_MARGIN
        try:
            with deadline(inner):
                return query(game, *args, limit=inner, **kw)
        except OutOfTime as exc:
            return Result(query.__name__, "unknown", f"building the z3 formulas did not finish "
                          f"within the {limit:g} s limit (reached {exc})",
                          time.perf_counter() - t0)

    return run


class Clock:
    def __init__(self, limit: float) -> None:
        self.t0 = time.perf_counter()
        self.limit = limit

    def left(self) -> float:
        return self.limit - (time.perf_counter() - self.t0)

    def ms(self) -> int:
        return max(int(self.left() * 1000), 1)

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def new_solver(clock: Clock) -> z3.Solver:
    s = z3.Solver()
    s.set("timeout", clock.ms())
    return s


#: z3 resource units (its deterministic count of work, `rlimit`) a bounded search may
#: spend in all: the depth it reaches then depends on the formulas only, not on the load of
#: the machine. On the 2-core machine z3 spends 1-8 million units a second, depending on
#: the formulas: a spec's known two-player shortfall (an expected z3_supply witness) is found with 18
#: million (3 s); its three-player search reaches depth 3 with 4 million and depth 4 with
#: 24. The time limit still applies, as a safety net.
SEARCH_BUDGET = 20_000_000


def budget(units: int | None) -> Budget | None:
    """A budget of `units` (None: the clock only, for offline searches with long limits)."""
    return None if units is None else Budget(units)


class Budget:
    """What is left of a bounded search's resource units, shared by its checks."""

    def __init__(self, units: int = SEARCH_BUDGET) -> None:
        self.left = units

    def check(self, s: z3.Solver, clock: Clock, *extra: Any) -> z3.CheckSatResult:
        """`check_sat` within what is left; what the check used is taken off."""
        if self.left <= 0:
            return z3.unknown
        before = _rlimit_count(s)
        r = check_sat(s, clock, *extra, rlimit=self.left)
        self.left -= _rlimit_count(s) - before
        return r


def _rlimit_count(s: z3.Solver) -> int:
    try:
        return int(s.statistics().get_key_value("rlimit count"))
    except z3.Z3Exception:  # no check has run yet
        return 0


def check_sat(s: z3.Solver, clock: Clock, *extra: Any, rlimit: int = 0) -> z3.CheckSatResult:
    """z3's answer within the clock (and `rlimit` resource units for this check; 0: no
    limit)."""
    if clock.left() <= 0:
        return z3.unknown
    s.set("timeout", clock.ms())
    s.set("rlimit", rlimit)
    return s.check(*[zterm(x) for x in extra])


def add_all(s: z3.Solver, *xs: Any) -> None:
    for x in xs:
        if x is True:
            continue
        s.add(zterm(x))


# ---------------------------------------------------------------------- machines
_MACHINES: dict[tuple, Machine] = {}


_LEMMAS: dict[int, Lemmas] = {}


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


_PARTS: dict[tuple[int, bool], tuple[SymState, list[StepPart]]] = {}


def action_parts(M: Machine, effects: bool = True) -> tuple[SymState, list[StepPart]]:
    """Every action instance from the template's input state (built once per machine; the
    one-step proofs need only these, the searches the whole `template`). Without
    `effects`, guards only."""
    key = (id(M), effects)
    if key not in _PARTS:
        sin = M.enc.fresh_state("T.in")
        _PARTS[key] = sin, [M.action_part(sin, alt, f"T.a{n}", effects)
                            for n, alt in enumerate(M.alts())]
    return _PARTS[key]
