"""z3 queries every game gets: proofs over all well-formed states, and witnesses.

Each query reads only the IR (through `properties.symbolic`) and returns a `Result`:
`proved` (for all states, or for all states within the stated bound), `witness` (a
counterexample or a trace, replayed on the concrete model before it is reported), or
`unknown` (with the bound reached). docs/symbolic.md says exactly what each proves.

- conservation: every action (with the round transition it may trigger) keeps the count
  of every kind, from every well-formed state; inductive, not a sample.
- invariants: the spec's invariants are inductive (so the other proofs may assume them).
- legal_move: in every well-formed, non-terminal state within a round the player to act
  has a legal action; if not, a concrete state, and a search for one reachable from a deal.
- reach: the shortest action sequence from a symbolic deal to a described situation.
- supply: whether a shared zone can be asked for more than it holds (a payment short, a
  draw from an empty pile, an exchange the bank cannot make) in a legal game.
- round_bound: the round measure falls with every action inside a round; the bound on
  a round's length that follows, or a cycle inside a round.
- game_cycle: a game that returns to the same round start (so can go on forever), step by
  step, or as one round ending in the seat-rotated image of its start.
- agreement: random concrete transitions satisfy the z3 transition relation.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import z3

import model
from model import ir

from .lemmas import Lemmas
from .symbolic import (
    AND,
    EQ,
    LE,
    LT,
    NOT,
    OR,
    Ctx,
    Event,
    Exec,
    Machine,
    OutOfTime,
    StepPart,
    SymState,
    Unsupported,
    deadline,
    model_value,
    zterm,
)
from .witness import Disagreement, Trace, concrete_states, events_in_model, finish, replay

#: Seconds each query may take (the issue's limit).
TIME_LIMIT = 30.0
#: The share of the limit a query plans for: z3 and the formula builder stop a few seconds
#: after their deadline on large formulas, and the limit is for the whole query.
STOP_MARGIN = 0.85


@attrs.define
class Result:
    query: str
    status: str  # proved / witness / unknown / error
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


def _solver(clock: Clock) -> z3.Solver:
    s = z3.Solver()
    s.set("timeout", clock.ms())
    return s


def _check(s: z3.Solver, clock: Clock, *extra: Any) -> z3.CheckSatResult:
    if clock.left() <= 0:
        return z3.unknown
    s.set("timeout", clock.ms())
    return s.check(*[zterm(x) for x in extra])


def _add(s: z3.Solver, *xs: Any) -> None:
    for x in xs:
        if x is True:
            continue
        s.add(zterm(x))


# ---------------------------------------------------------------------- machines
_MACHINES: dict[tuple, Machine] = {}
_LEMMAS: dict[int, Lemmas] = {}


def _lemmas(M: Machine) -> Lemmas:
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
    def build(cls, M: Machine, in_round: bool = True, invariants: bool = False) -> OneStep:
        enc = M.enc
        s, parts = action_parts(M)
        ctx = Ctx("pre")
        pre = [enc.wf(s), NOT(s.term)]
        if in_round:
            ends = M.round_end(s, Exec(enc, ctx))
            pre.append(NOT(ends))
            pre.append(ctx.defined())
        if invariants:
            pre.append(M.invariants(s, ctx))
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


def _step_ok(part: StepPart, rctx: Ctx | None = None) -> Any:
    """The action is taken and defined, its chance choices are consistent."""
    out = [part.enabled, part.ctx.defined("undefined"), *part.ctx.assume]
    if rctx is not None:
        out += [rctx.defined("undefined"), *rctx.assume]
    return AND(*out)


def _group(M: Machine) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for n, alt in enumerate(M.alts()):
        out.setdefault(alt.action, []).append(n)
    return out


def _situation_trace(game: model.Game, M: Machine, m: z3.ModelRef, one: OneStep, n: int,
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
def _count_violation(enc: Any, st: SymState) -> list:
    lost = [NOT(EQ(t, enc.copies[k])) for k, t in enumerate(enc.kind_totals(st))]
    negative = [LT(c, 0) for zs in st.Z for c in zs]
    return lost + negative


@bounded
def conservation(game: model.Game, limit: float = TIME_LIMIT) -> Result:
    """Every action keeps every kind's count (and no count goes negative), from every
    well-formed state, including the round transition the action may trigger.

    Proved in two parts that compose: (1) each action, from a well-formed state, leads
    to a well-formed state (counts kept, and the rest of the type invariant); (2) the round
    transition (scoring, next deal), from any well-formed state where a round ends, leads to
    a state with every count kept. An action whose result may break the type invariant
    without breaking a count is checked together with its round transition instead.
    """
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    try:
        one = OneStep.build(M, in_round=False)
    except Unsupported as exc:
        return Result("conservation", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = _solver(clock)
    _add(s, *one.pre)

    def found(m: z3.ModelRef, n: int, post: SymState, rctx: Ctx | None) -> Result:
        trace = _situation_trace(game, M, m, one, n, post, rctx)
        finish(enc, trace)
        states = replay(enc, trace)
        have = game.total_counts(states[-1])
        diffs = [f"{game.kind_names[k]}: {h} instead of {enc.copies[k]}"
                 for k, h in enumerate(have) if h != enc.copies[k]]
        negs = [f"{enc.inst_name(i)} holds {c} of {game.kind_names[k]}"
                for i, zs in enumerate(enc.from_concrete(states[-1]).Z)
                for k, c in zip(enc.inst_kinds[i], zs, strict=True) if c < 0]
        typing = OR(one.parts[n].ctx.failing("typing"), rctx.failing("typing") if rctx else False)
        if not diffs and not negs and not model_value(m)(typing):
            raise Disagreement(f"z3 finds {trace.actions[0]} breaks conservation but the "
                               "concrete model keeps every count")
        what = "; ".join(diffs + negs) or "an item is put into a zone of another class"
        return Result("conservation", "witness",
                      f"{trace.actions[0]} breaks conservation ({what}) from the situation "
                      f"{enc.describe(trace.values[0])}", clock.elapsed(), trace)

    proved: list[str] = []
    whole = 0
    lemmas = _lemmas(M)
    for action, ns in _group(M).items():
        name = game.ir.actions[action].name
        for n in ns:
            part = one.parts[n]
            if part.enabled is False:
                continue
            if lemmas.check(part.ctx.sites, clock.ms) is None:
                # every effect keeps the zones sound: only the variables remain
                broken = OR(NOT(enc.vars_ok(part.post)), part.ctx.failing("bound"))
                s.push()
                _add(s, _step_ok(part))
                r = _check(s, clock, broken)
                s.pop()
                if r == z3.unsat:
                    continue
            bound = part.ctx.failing("bound")
            typing = part.ctx.failing("typing")
            counts = OR(*_count_violation(enc, part.post), typing)
            s.push()
            _add(s, _step_ok(part))
            r = _check(s, clock, OR(counts, bound, NOT(enc.wf(part.post))))
            if r == z3.sat:
                m = s.model()
                ev = model_value(m)
                if ev(counts):
                    # the witness replays the whole transition, round end included
                    post, _, _, rctx = one.after(n)
                    _add(s, *rctx.assume, rctx.defined("undefined"))
                    if _check(s, clock, counts) == z3.sat:
                        m = s.model()
                        s.pop()
                        return found(m, n, post, rctx)
                    s.pop()
                    return Result("conservation", "witness", f"{name} breaks conservation "
                                  f"(from {enc.describe(enc.evaluate(m, one.s))})",
                                  clock.elapsed())
                if ev(bound):
                    s.pop()
                    return Result("conservation", "unknown", f"{name}: a loop exceeds the z3 "
                                  "encoding's bound", clock.elapsed())
                # the type invariant may break: check this one with its round transition
                whole += 1
                post, _, _, rctx = one.after(n)
                _add(s, *rctx.assume, rctx.defined("undefined"))
                bad = OR(*_count_violation(enc, post), rctx.failing("typing"))
                r = _check(s, clock, OR(counts, bad))
                if r == z3.sat:
                    m = s.model()
                    s.pop()
                    return found(m, n, post, rctx)
            s.pop()
            if r == z3.unknown:
                return Result("conservation", "unknown",
                              f"{name}: z3 gave up ({s.reason_unknown()}); proved: "
                              f"{', '.join(proved) or 'none'}", clock.elapsed())
        proved.append(name)
    # the round transition, once, from any well-formed state where a round ends
    mid = enc.fresh_state("mid")
    rctx = Ctx("round")
    post, ends, _ = M.round_part(mid, rctx)
    r2 = _solver(clock)
    _add(r2, enc.wf(mid), NOT(mid.term), ends, *rctx.assume, rctx.defined("undefined"))
    if lemmas.check(rctx.sites, clock.ms) is None:
        r = z3.unsat
    else:
        r = _check(r2, clock, OR(*_count_violation(enc, post), rctx.failing("typing")))
    if r == z3.sat:
        m = r2.model()
        values = enc.evaluate(m, mid)
        return Result("conservation", "witness", "the round transition (scoring, next deal) "
                      "breaks conservation from the well-formed situation "
                      f"{enc.describe(values)}", clock.elapsed())
    if r == z3.unknown:
        return Result("conservation", "unknown", f"round transition: z3 gave up "
                      f"({r2.reason_unknown()}); every action proved", clock.elapsed())
    extra = f"; {whole} checked with their round transition" if whole else ""
    if lemmas.count:
        extra += f"; {lemmas.count} effects proved one by one (docs/symbolic.md)"
    return Result("conservation", "proved",
                  f"every action ({len(M.alts())} instances) and the round transition keep all "
                  f"{enc.K} kinds' counts from every well-formed state{extra}", clock.elapsed())


# ---------------------------------------------------------------------- invariants
_INDUCTIVE: dict[int, bool] = {}


@bounded
def invariants(game: model.Game, limit: float = TIME_LIMIT) -> Result:
    """The spec's invariants, with the type invariant and "no round-end condition holds",
    are inductive: true at every deal, and kept by every transition into a non-terminal
    state. Then they hold in every reachable state, and other proofs may assume them."""
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    names = [c.name for c in game.ir.invariants]

    def holds(st: SymState, ctx: Ctx) -> Any:
        ex = Exec(enc, ctx)
        return AND(enc.wf(st), NOT(M.round_end(st, ex)), M.invariants(st, ctx))

    def which(m: z3.ModelRef, st: SymState) -> str:
        ev = model_value(m)
        bad = []
        if not ev(enc.wf(st)):
            bad.append("the type invariant")
        ctx = Ctx("w")
        if ev(M.round_end(st, Exec(enc, ctx))):
            bad.append("a round-end condition holds")
        for c in game.ir.invariants:
            if not ev(M.condition(c.expr, st, Ctx("w"))):
                bad.append(c.name)
        return ", ".join(bad) or "an invariant cannot be evaluated"

    try:
        # at the deal
        ctx0 = Ctx("init")
        s0 = M.initial(ctx0)
        qctx = Ctx("q0")
        q0 = holds(s0, qctx)
        s = _solver(clock)
        _add(s, *ctx0.assume, ctx0.defined("undefined"), *qctx.assume)
        r = _check(s, clock, OR(NOT(q0), qctx.failing("undefined")))
        if r == z3.sat:
            m = s.model()
            return Result("invariants", "witness", f"fails at a deal: {which(m, s0)} "
                          f"({enc.describe(enc.evaluate(m, s0))})", clock.elapsed())
        if r == z3.unknown:
            return Result("invariants", "unknown", "z3 gave up at the deal", clock.elapsed())
        # kept by every action
        one = OneStep.build(M, in_round=True, invariants=True)
        s = _solver(clock)
        _add(s, *one.pre)
        for n, part in enumerate(one.parts):
            if part.enabled is False:
                continue
            ctx = Ctx(f"i{n}")
            ends = M.round_end(part.post, Exec(enc, ctx))
            keep = holds(part.post, ctx)
            bad = OR(AND(NOT(ends), NOT(keep)), AND(ends, NOT(enc.wf(part.post))),
                     ctx.failing("undefined"))
            r = _check(s, clock, AND(_step_ok(part), *ctx.assume, bad))
            if r == z3.sat:
                m = s.model()
                trace = _situation_trace(game, M, m, one, n, None, None)
                return Result("invariants", "witness",
                              f"not inductive: {which(m, part.post)} after "
                              f"{game.ir.actions[part.alt.action].name} by player "
                              f"{part.alt.actor} from {enc.describe(trace.values[0])}",
                              clock.elapsed())
            if r == z3.unknown:
                return Result("invariants", "unknown", "z3 gave up", clock.elapsed())
        # and by the round transition, from any well-formed state where a round ends
        mid = enc.fresh_state("mid")
        rctx = Ctx("round")
        ends, over, _, s_next = M.round_outcomes(mid, rctx)
        qctx = Ctx("qn")
        keep = holds(s_next, qctx)
        s = _solver(clock)
        _add(s, enc.wf(mid), NOT(mid.term), ends, NOT(over), *rctx.assume,
             rctx.defined("undefined"), *qctx.assume)
        r = _check(s, clock, OR(NOT(keep), qctx.failing("undefined")))
        if r == z3.sat:
            # A round-end state is never observed, so the invariants need not hold there;
            # the round transition must keep them only after an action taken from a state
            # where they hold. Check exactly that, action by action.
            r, m, n, s_next = _round_after_actions(M, one, clock, holds)
            if r == z3.sat:
                trace = _situation_trace(game, M, m, one, n, None, None)
                return Result("invariants", "witness", "not inductive: after "
                              f"{game.ir.actions[one.parts[n].alt.action].name} by player "
                              f"{one.parts[n].alt.actor} and the round transition it triggers, "
                              f"{which(m, s_next)} (from {enc.describe(trace.values[0])})",
                              clock.elapsed())
        if r == z3.unknown:
            return Result("invariants", "unknown", "z3 gave up on the round transition",
                          clock.elapsed())
    except Unsupported as exc:
        return Result("invariants", "unknown", f"not encoded: {exc}", clock.elapsed())
    _INDUCTIVE[id(M)] = True
    return Result("invariants", "proved", f"inductive, so true in every reachable state: "
                  f"{', '.join(names) or 'no declared invariants'} (with the type invariant "
                  "and no round-end condition between actions)", clock.elapsed())


def _round_after_actions(M: Machine, one: OneStep,
                         clock: Clock, holds: Callable[[SymState, Ctx], Any]
                         ) -> tuple[z3.CheckSatResult, Any, int, Any]:
    """Whether some action, from a state satisfying the invariants (`one.pre`), ends a
    round whose transition leads to a non-terminal state breaking them: (result, model,
    action alternative, state after) for the first that does or cannot be decided."""
    s = _solver(clock)
    _add(s, *one.pre)
    r: z3.CheckSatResult = z3.unsat
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        post, ends, over, rctx = one.after(n)
        qctx = Ctx(f"qr{n}")
        keep = holds(post, qctx)
        r = _check(s, clock, AND(_step_ok(part, rctx), ends, NOT(over), *qctx.assume,
                                 OR(NOT(keep), qctx.failing("undefined"))))
        if r != z3.unsat:
            return r, s.model() if r == z3.sat else None, n, post
    return r, None, -1, None


def _assume_invariants(game: model.Game, clock: Clock) -> bool:
    """Whether the spec's invariants are proved inductive (proving them if not yet tried)."""
    M = machine(game)
    if id(M) not in _INDUCTIVE:
        _INDUCTIVE[id(M)] = invariants(game, limit=max(clock.left() / 2, 1.0)).status == "proved"
    return _INDUCTIVE[id(M)]


# ---------------------------------------------------------------------- BMC
class StepTemplate:
    """One transition (action, then any round transition) over template variables, built
    once per game; each BMC step is this formula with its variables renamed.

    Its two halves are also used apart (`round_search`): the action (`action_core`, from
    `sin` to `mid`; with no selector true it is an idle step, `mid` equal to `sin`) and
    the round transition (`round_core`, from `mid` to `out`).
    """

    def __init__(self, M: Machine) -> None:
        enc = M.enc
        self.sin, self.parts = action_parts(M)
        self.mid = enc.fresh_state("T.mid")
        self.sels: dict[int, Any] = {}
        core: list[Any] = []
        undefined = []
        live = []
        for n, part in enumerate(self.parts):
            if part.enabled is False:
                continue
            sel = self.sels[n] = z3.Bool(f"T.sel{n}")
            live.append((sel, part.post))
            core.append(z3.Implies(sel, zterm(AND(part.enabled, *part.ctx.assume))))
            undefined.append(AND(sel, part.ctx.failing("undefined")))
        core.append(z3.AtMost(*self.sels.values(), 1))
        core += frame_constraints(enc, self.sin, self.mid, live)
        self.action_core = z3.And(*core)
        self.some_action = zterm(OR(*self.sels.values()))
        self.action_defined = zterm(NOT(OR(*undefined)))
        self.rctx = Ctx("T.r")
        self.post, self.ends, self.over = M.round_part(self.mid, self.rctx)
        self.out = enc.fresh_state("T.out")
        self.round_core = z3.And(*[zterm(x) for x in [
            *self.rctx.assume, enc.equal(self.out, self.post), *enc.bounds(self.out)]
            if x is not True])
        self.round_defined = zterm(self.rctx.defined("undefined"))
        self.formula = z3.And(self.action_core, self.some_action, self.round_core)
        self.defined = z3.And(self.action_defined, self.round_defined)
        self.in_vars = enc.variables(self.sin)
        self.mid_vars = enc.variables(self.mid)
        self.out_vars = enc.variables(self.out)
        self.action_internal = list(self.sels.values())
        for part in self.parts:
            self.action_internal += part.ctx.created
        self.round_internal = list(self.rctx.created)
        self.internal = self.mid_vars + self.action_internal + self.round_internal

    def mapping(self, k: int, s_in: SymState, s_out: SymState, enc: Any) -> list:
        pairs = list(zip(self.in_vars, enc.variables(s_in), strict=True))
        pairs += zip(self.out_vars, enc.variables(s_out), strict=True)
        pairs += [(v, z3.Const(f"{v}@{k}", v.sort())) for v in self.internal]
        return pairs

    def slot_mapping(self, tag: str, s_in: SymState, s_mid: SymState, enc: Any) -> list:
        pairs = list(zip(self.in_vars, enc.variables(s_in), strict=True))
        pairs += zip(self.mid_vars, enc.variables(s_mid), strict=True)
        pairs += [(v, z3.Const(f"{v}@{tag}", v.sort())) for v in self.action_internal]
        return pairs

    def round_mapping(self, tag: str, s_mid: SymState, s_out: SymState, enc: Any) -> list:
        pairs = list(zip(self.mid_vars, enc.variables(s_mid), strict=True))
        pairs += zip(self.out_vars, enc.variables(s_out), strict=True)
        pairs += [(v, z3.Const(f"{v}@{tag}", v.sort())) for v in self.round_internal]
        return pairs


def substitute_many(pairs: list, xs: list) -> list:
    """Several terms under one substitution (each call marshals the whole mapping)."""
    terms = [zterm(x) for x in xs]
    if not terms:
        return []
    probes = [z3.Const(f"probe{i}", t.sort()) == t for i, t in enumerate(terms)]
    if len(probes) == 1:
        return [z3.substitute(probes[0], pairs).arg(1)]
    return [e.arg(1) for e in z3.substitute(z3.And(*probes), pairs).children()]


_TEMPLATES: dict[int, StepTemplate] = {}
_PARTS: dict[int, tuple[SymState, list[StepPart]]] = {}


def action_parts(M: Machine) -> tuple[SymState, list[StepPart]]:
    """Every action instance from the template's input state (built once per machine; the
    one-step proofs need only these, the searches the whole `template`)."""
    if id(M) not in _PARTS:
        sin = M.enc.fresh_state("T.in")
        _PARTS[id(M)] = sin, [M.action_part(sin, alt, f"T.a{n}")
                              for n, alt in enumerate(M.alts())]
    return _PARTS[id(M)]


def template(M: Machine) -> StepTemplate:
    if id(M) not in _TEMPLATES:
        _TEMPLATES[id(M)] = StepTemplate(M)
    return _TEMPLATES[id(M)]


class Unroller:
    """Bounded model checking from the symbolic deal (Game.initial_state)."""

    def __init__(self, game: model.Game, clock: Clock) -> None:
        self.game = game
        self.M = M = machine(game)
        self.enc = M.enc
        self.clock = clock
        self.s = _solver(clock)
        ctx = Ctx("init")
        init = M.initial(ctx)
        s0 = self.enc.fresh_state("s0")
        _add(self.s, self.enc.equal(s0, init), *ctx.assume, ctx.defined("undefined"))
        self.init_ctx = ctx
        self.states = [s0]
        self.maps: list[list] = []
        self.defined: list[Any] = []
        self.round_start: list[Any] = [True]  # s_k begins a round
        self.t = template(M)

    @property
    def depth(self) -> int:
        return len(self.states) - 1

    def sub(self, k: int, x: Any) -> Any:
        """A template term (of step k) in step k's variables."""
        if not isinstance(x, z3.ExprRef):
            return x
        return z3.substitute(x, self.maps[k])

    def sub_in(self, k: int, x: Any) -> Any:
        """A term over the template's input state, on state k."""
        if not isinstance(x, z3.ExprRef):
            return x
        pairs = list(zip(self.t.in_vars, self.enc.variables(self.states[k]), strict=True))
        return z3.substitute(x, pairs)

    def extend(self) -> None:
        """Add transition k -> k+1 (its definedness is asserted once the next is added)."""
        k = self.depth
        if self.defined:
            _add(self.s, self.defined[-1])
        nxt = self.enc.fresh_state(f"s{k + 1}")
        pairs = self.t.mapping(k, self.states[k], nxt, self.enc)
        self.maps.append(pairs)
        self.s.add(z3.substitute(self.t.formula, pairs))
        self.defined.append(z3.substitute(self.t.defined, pairs))
        self.round_start.append(self.sub(k, zterm(AND(self.t.ends, NOT(self.t.over)))))
        self.states.append(nxt)

    def enabled_at(self, k: int) -> list[Any]:
        """Per action instance: enabled and its guard defined, on state k."""
        return [self.sub_in(k, zterm(AND(p.enabled, p.guard_ok))) for p in self.t.parts]

    def check(self, target: Any, defined_last: bool = True) -> z3.CheckSatResult:
        extra = [target]
        if defined_last and self.defined:
            extra.append(self.defined[-1])
        return _check(self.s, self.clock, *extra)

    def sub_many(self, k: int, xs: list) -> list:
        """Several template terms in step k's variables, with one substitution."""
        return substitute_many(self.maps[k], xs)

    def chosen(self, m: z3.ModelRef, k: int) -> int:
        ev = model_value(m)
        items = list(self.t.sels.items())
        vals = self.sub_many(k, [sel for _, sel in items])
        return next(n for (n, _), v in zip(items, vals, strict=True) if ev(v))

    def trace(self, m: z3.ModelRef, steps: int | None = None) -> Trace:
        enc = self.enc
        ev = model_value(m)
        steps = self.depth if steps is None else steps
        actions, values, events = [], [enc.evaluate(m, self.states[0])], [
            events_in_model(m, self.init_ctx.events)]
        for k in range(steps):
            n = self.chosen(m, k)
            part = self.t.parts[n]
            evs = part.ctx.events + self.t.rctx.events
            flat: list = list(part.args)
            for e in evs:
                flat.append(e.guard)
                _flatten(e.args, flat)
            subbed = iter(self.sub_many(k, [x for x in flat if isinstance(x, z3.ExprRef)]))
            done = [next(subbed) if isinstance(x, z3.ExprRef) else x for x in flat]
            it = iter(done)
            args = tuple(ev(next(it)) for _ in part.args)
            renamed = []
            for e in evs:
                guard = next(it)
                renamed.append(Event(guard, e.op, _rebuild(e.args, it)))
            actions.append(self.game.action(part.alt.action, args))
            values.append(enc.evaluate(m, self.states[k + 1]))
            events.append(events_in_model(m, renamed))
        return finish(enc, Trace(self.game, "deal", actions, values, events))


def _flatten(x: Any, out: list) -> None:
    if isinstance(x, tuple | list):
        for y in x:
            _flatten(y, out)
    elif x is not None:
        out.append(x)


def _rebuild(x: Any, it: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(_rebuild(y, it) for y in x)
    if isinstance(x, list):
        return [_rebuild(y, it) for y in x]
    if x is None:
        return None
    return next(it)


def frame_constraints(enc: Any, before: SymState, after: SymState,
                      options: list[tuple[Any, SymState]]) -> list:
    """after = the chosen option's state, slot by slot: for each value a slot may take, the
    selectors giving it imply it; a slot no selector changes keeps its value."""
    out: list = []

    def slot(x_after: Any, x_before: Any, values: list[tuple[Any, Any]]) -> None:
        groups: list[tuple[Any, list]] = []
        for sel, v in values:
            if _same_value(v, x_before):
                continue
            for val, sels in groups:
                if _same_value(val, v):
                    sels.append(sel)
                    break
            else:
                groups.append((v, [sel]))
        changed = []
        for val, sels in groups:
            c = zterm(OR(*sels))
            changed.append(c)
            out.append(z3.Implies(c, zterm(EQ(x_after, val))))
        out.append(z3.Or(*changed, zterm(EQ(x_after, x_before))) if changed
                   else zterm(EQ(x_after, x_before)))

    for i in range(enc.n_inst):
        for p in range(len(before.Z[i])):
            slot(after.Z[i][p], before.Z[i][p], [(sel, st.Z[i][p]) for sel, st in options])
        if before.T[i] is not None:
            slot(after.T[i], before.T[i], [(sel, st.T[i]) for sel, st in options])
    for name, xs in before.V.items():
        for j in range(len(xs)):
            slot(after.V[name][j], xs[j], [(sel, st.V[name][j]) for sel, st in options])
    slot(after.term, before.term, [(sel, st.term) for sel, st in options])
    return out


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, z3.ExprRef) or isinstance(b, z3.ExprRef):
        return isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) and a.eq(b)
    return type(a) is type(b) and a == b


class OneRound:
    """One round searched with the round transition only at its end: up to L actions (a
    slot may stay idle once the round has ended) from a start, then scoring and the next
    round's start. Without round transitions between actions this reaches whole rounds
    that step-by-step search cannot. The start is the symbolic first deal, or (`any`) a
    round start from an arbitrary well-formed state between rounds."""

    def __init__(self, game: model.Game, clock: Clock, start: str) -> None:
        self.game = game
        self.M = M = machine(game)
        self.enc = enc = M.enc
        self.clock = clock
        self.t = template(M)
        self.s = _solver(clock)
        self.start = start
        ctx = Ctx("init")
        if start == "deal":
            init = M.initial(ctx)
        else:
            before = enc.fresh_state("B")
            gctx = Ctx("B")
            _add(self.s, enc.wf(before), NOT(before.term),
                 NOT(M.game_end(before, Exec(enc, gctx))), gctx.defined("undefined"))
            init = M.between_rounds(before, ctx)
        s0 = enc.fresh_state("x0")
        ectx = Ctx("x0")
        _add(self.s, enc.equal(s0, init), *ctx.assume, ctx.defined("undefined"),
             NOT(M.round_end(s0, Exec(enc, ectx))), ectx.defined("undefined"))
        self.init_ctx = ctx
        self.states = [s0]
        self.maps: list[list] = []
        self.acting: list[Any] = []
        self.ends: list[Any] = []

    def add_slot(self) -> None:
        enc, t = self.enc, self.t
        j = len(self.maps)
        x = enc.fresh_state(f"x{j + 1}")
        pairs = t.slot_mapping(f"{j}", self.states[-1], x, enc)
        core, acting, defined = substitute_many(pairs, [t.action_core, t.some_action,
                                                        t.action_defined])
        epairs = list(zip(t.mid_vars, enc.variables(x), strict=True)) + [
            (v, z3.Const(f"{v}@{j}e", v.sort())) for v in t.round_internal]
        ends, rdefined = substitute_many(epairs, [t.ends, t.round_defined])
        self.s.add(core, z3.Implies(acting, z3.And(defined, rdefined)))
        if j == 0:
            self.s.add(acting)  # a round has at least one action
        else:
            self.s.add(z3.Implies(acting, z3.And(self.acting[-1], z3.Not(self.ends[-1]))))
        self.maps.append(pairs)
        self.acting.append(acting)
        self.ends.append(ends)
        self.states.append(x)

    def check(self, target: Callable[[OneRound, SymState, Any], Any]
              ) -> tuple[z3.CheckSatResult, Any]:
        """Whether a round of at most len(slots) actions ends with target(self, next round
        start, game over) true; with the model, the next round start and its mapping."""
        enc, t = self.enc, self.t
        self.s.push()
        nxt = enc.fresh_state(f"y{len(self.maps)}")
        rpairs = t.round_mapping(f"r{len(self.maps)}", self.states[-1], nxt, enc)
        core, ends, rdefined, over = substitute_many(
            rpairs, [t.round_core, t.ends, t.round_defined, t.over])
        self.s.add(core, ends, rdefined)
        r = _check(self.s, self.clock, target(self, nxt, over))
        m = self.s.model() if r == z3.sat else None
        self.s.pop()
        return r, (m, nxt, rpairs)

    def pieces(self, m: z3.ModelRef, nxt: SymState, rpairs: list
               ) -> tuple[list, list[dict], list[list]]:
        """The round's actions, states after each, and events per action (evaluated)."""
        enc, t = self.enc, self.t
        ev = model_value(m)
        sels = list(t.sels.items())
        actions, values, events = [], [], []
        for j, pairs in enumerate(self.maps):
            if not ev(self.acting[j]):
                break
            vals = substitute_many(pairs, [x for _, x in sels])
            n = next(n for (n, _), v in zip(sels, vals, strict=True) if ev(v))
            part = t.parts[n]
            flat: list = list(part.args)
            for e in part.ctx.events:
                flat.append(e.guard)
                _flatten(e.args, flat)
            zs = iter(substitute_many(pairs, [x for x in flat if isinstance(x, z3.ExprRef)]))
            it = iter([next(zs) if isinstance(x, z3.ExprRef) else x for x in flat])
            args = tuple(ev(next(it)) for _ in part.args)
            evs = [Event(next(it), e.op, _rebuild(e.args, it)) for e in part.ctx.events]
            last = j + 1 == len(self.maps) or not ev(self.acting[j + 1])
            if last:
                rflat: list = []
                for e in t.rctx.events:
                    rflat.append(e.guard)
                    _flatten(e.args, rflat)
                zs = iter(substitute_many(rpairs, [x for x in rflat if isinstance(x, z3.ExprRef)]))
                rit = iter([next(zs) if isinstance(x, z3.ExprRef) else x for x in rflat])
                evs += [Event(next(rit), e.op, _rebuild(e.args, rit)) for e in t.rctx.events]
                values.append(enc.evaluate(m, nxt))
            else:
                values.append(enc.evaluate(m, self.states[j + 1]))
            actions.append(self.game.action(part.alt.action, args))
            events.append(events_in_model(m, evs))
        return actions, values, events


def one_round(game: model.Game, clock: Clock, start: str,
              target: Callable[[OneRound, SymState, Any], Any], slots: int,
              shortest: bool = False, start_condition: ir.Expr | None = None,
              invariants: bool = False) -> tuple[OneRound, int, Any]:
    """A round of at most `slots` actions meeting target: (search, slots checked, (model,
    next round start, mapping)), the model None if there is none or time ran out.
    `shortest` checks every length from 1 (each refutation costs; off, one check).
    `invariants`: the round start satisfies the spec's invariants (sound only once they
    are proved inductive: then every reachable state between actions does)."""
    o = OneRound(game, clock, start)
    if start_condition is not None:
        ctx = Ctx("sc")
        _add(o.s, o.M.condition(start_condition, o.states[0], ctx), ctx.defined("undefined"),
             *ctx.assume)
    if invariants:
        ctx = Ctx("si")
        _add(o.s, o.M.invariants(o.states[0], ctx), ctx.defined("undefined"), *ctx.assume)
    last = 0.0  # seconds the last slot took to add (not interruptible)
    for n in range(1, slots + 1):
        if clock.left() <= last:
            return o, n - 1, None
        t0 = time.perf_counter()
        o.add_slot()
        last = time.perf_counter() - t0
        if shortest or n == slots:
            r, found = o.check(target)
            if r == z3.sat:
                return o, n, found
            if r == z3.unknown:
                return o, n - 1, None
    return o, slots, None


# ---------------------------------------------------------------------- seat rotation
def rotate_state(enc: Any, st: SymState, by: int = 1) -> SymState:
    """The state with every seat moved `by` places on: zone and variable families per
    player shift, player-valued variables advance."""
    P = enc.P
    perm = seat_permutation(enc, by)
    Z = [None] * enc.n_inst
    T = [None] * enc.n_inst
    for i in range(enc.n_inst):
        Z[perm[i]] = st.Z[i]
        T[perm[i]] = st.T[i]
    V = {}
    for name, xs in st.V.items():
        t = enc.vtypes[name][0]
        if name in enc.per_vars and _per_player(enc, name):
            xs = tuple(xs[(j - by) % P] for j in range(P))
        if t.name == "player":
            xs = tuple(x if isinstance(x, bool) else (x + by) % P for x in xs)
        V[name] = xs
    return SymState(list(Z), list(T), [() for _ in range(enc.n_inst)], V, st.term)


def _per_player(enc: Any, name: str) -> bool:
    return any(v.name == name and v.per == "player" for v in enc.g.vars)


def seat_permutation(enc: Any, by: int = 1) -> list[int]:
    """Instance i of a per-player zone family moves to the seat `by` places on."""
    out = []
    for i, (fam, j) in enumerate(enc.inst):
        if j is not None and enc.zdecl[fam].per == "player":
            out.append(enc.base[fam] + (j + by) % enc.P)
        else:
            out.append(i)
    return out


def rotate_values(enc: Any, values: dict, by: int = 1) -> dict:
    P = enc.P
    perm = seat_permutation(enc, by)
    zones = [None] * enc.n_inst
    for i, z in enumerate(values["zones"]):
        zones[perm[i]] = z
    V = {}
    for name, xs in values["vars"].items():
        t = enc.vtypes[name][0]
        if name in enc.per_vars and _per_player(enc, name):
            xs = [xs[(j - by) % P] for j in range(P)]
        if t.name == "player":
            xs = [(x + by) % P for x in xs]
        V[name] = list(xs)
    return {"zones": zones, "vars": V, "terminal": values["terminal"]}


def rotate_events(enc: Any, events: list, by: int = 1) -> list:
    perm = seat_permutation(enc, by)
    P = enc.P
    out = []
    for op, args in events:
        match op:
            case "shuffle":
                out.append((op, (perm[args[0]],)))
            case "pop" | "take":
                out.append((op, (perm[args[0]], args[1])))
            case "push":
                out.append((op, (perm[args[0]], args[1], args[2])))
            case "drop_kinds":
                out.append((op, (args[0], perm[args[1]])))
            case "move_all":
                i, j, keep, kept, top = args
                out.append((op, (perm[i], perm[j], keep, kept, top)))
            case "deal":
                i, targets, n, hands, top, dst_tops = args
                hands = [hands[(p - by) % P] for p in range(P)]
                dst_tops = [dst_tops[(p - by) % P] for p in range(P)]
                ks = enc.inst_kinds[i]
                if n and not hands[0][ks.index(top)]:
                    top = next(k for k, c in zip(ks, hands[0], strict=True) if c)
                out.append((op, (perm[i], targets, n, hands, top, dst_tops)))
            case _:
                out.append((op, args))
    return out


@attrs.define
class Found:
    """What a bounded search found: a witness at depth k, or the depth fully explored."""

    trace: Trace | None
    k: int
    u: Unroller | None = None
    model: z3.ModelRef | None = None


def bmc(game: model.Game, target: Callable[[Unroller, int], Any], clock: Clock,
        max_depth: int = 60, defined_last: bool = True, min_depth: int = 0) -> Found:
    """The shortest k with target(u, k) satisfiable, its trace replayed on the concrete
    model; or, with no trace, the depth up to which none exists."""
    u = Unroller(game, clock)
    last = 0.0  # seconds the last step took to add: z3 cannot interrupt adding one
    for k in range(max_depth + 1):
        while u.depth < k:
            if clock.left() <= last:
                return Found(None, k)
            t0 = time.perf_counter()
            u.extend()
            last = time.perf_counter() - t0
        if k < min_depth:
            continue
        u.s.push()
        r = u.check(target(u, k), defined_last)
        if r == z3.sat:
            m = u.s.model()
            u.s.pop()
            return Found(u.trace(m), k, u, m)
        u.s.pop()
        if r == z3.unknown:
            return Found(None, k)
    return Found(None, max_depth + 1)


# ---------------------------------------------------------------------- reach
def parse_condition(game: model.Game, text: str) -> ir.Expr:
    from model.loader import parse_condition as parse

    return parse(game.ir.file, text, players=game.players, variants=game.ir.chosen)


@bounded
def reach(game: model.Game, condition: str | ir.Expr, limit: float = TIME_LIMIT,
          max_depth: int = 60) -> Result:
    """The shortest action sequence from a (symbolic) deal to a state where `condition`
    holds (evaluated without error)."""
    clock = Clock(limit)
    expr = parse_condition(game, condition) if isinstance(condition, str) else condition
    shown = condition if isinstance(condition, str) else "the condition"
    M = machine(game)

    def target(u: Unroller, k: int) -> Any:
        ctx = Ctx(f"q{k}")
        cond = M.condition(expr, u.states[k], ctx)
        return AND(cond, ctx.defined("undefined"), *ctx.assume)

    try:
        found = bmc(game, target, clock, max_depth)
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("reach", "unknown", f"not encoded: {exc}", clock.elapsed())
    if trace is not None:
        return Result("reach", "witness", f"{shown}: reached after {k} action(s)",
                      clock.elapsed(), trace, k)
    return Result("reach", "unknown", f"{shown}: not reachable within {k - 1} action(s) "
                  f"from a deal (unknown at bound {k})", clock.elapsed(), bound=k)


# ---------------------------------------------------------------------- legal moves
@bounded
def legal_move(game: model.Game, limit: float = TIME_LIMIT, max_depth: int = 40) -> Result:
    """Every well-formed, non-terminal state within a round has a legal action.

    "No action is legal" must hold for every parameter value, so this query uses one
    action instance per parameter value (a symbolic parameter would let z3 pick a bad one).
    """
    clock = Clock(limit)
    assumed = _assume_invariants(game, clock)
    M = machine(game, split_params=True)
    enc = M.enc
    try:
        one = OneStep.build(M, in_round=True, invariants=assumed)
    except Unsupported as exc:
        return Result("legal_move", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = _solver(clock)
    _add(s, *one.pre)
    some = OR(*[AND(p.enabled, p.guard_ok) for p in one.parts])
    r = _check(s, clock, NOT(some))
    using = " satisfying the spec's invariants (proved inductive)" if assumed else ""
    if r == z3.unsat:
        return Result("legal_move", "proved", f"in every well-formed, non-terminal state{using} "
                      "inside a round the player to act has a legal action", clock.elapsed())
    if r == z3.unknown:
        return Result("legal_move", "unknown", f"z3 gave up ({s.reason_unknown()})",
                      clock.elapsed())
    m = s.model()
    cex = enc.describe(enc.evaluate(m, one.s))

    def stuck(u: Unroller, k: int) -> Any:
        parts = [M.action_part(u.states[k], alt, f"lm{k}_{n}") for n, alt in enumerate(M.alts())]
        return AND(NOT(u.states[k].term), *[NOT(AND(p.enabled, p.guard_ok)) for p in parts])

    try:
        found = bmc(game, stuck, clock, max_depth)
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("legal_move", "unknown", f"not encoded: {exc}", clock.elapsed())
    if trace is not None:
        last = trace.values[-1]["vars"]["active"][0]
        return Result("legal_move", "witness", f"player {last} has no legal action after "
                      f"{k} action(s) from a deal", clock.elapsed(), trace, k)
    return Result("legal_move", "unknown", f"a well-formed state{using} has no legal action ({cex}); "
                  f"none is reachable within {k - 1} action(s) (unknown at bound {k})",
                  clock.elapsed(), bound=k)


# ---------------------------------------------------------------------- supply
@bounded
def supply(game: model.Game, limit: float = TIME_LIMIT, max_depth: int = 40) -> Result:
    """Can a shared zone be asked for more than it holds in a legal game?"""
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    try:
        one = OneStep.build(M, in_round=True)
    except Unsupported as exc:
        return Result("supply", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = _solver(clock)
    _add(s, *one.pre)
    # one step from any well-formed state: which sites can run short at all? Actions
    # first, then the round transition from any well-formed state where a round ends.
    sites: dict[str, list] = {}
    for part in one.parts:
        if part.enabled is False:
            continue
        ok = AND(part.enabled, *part.ctx.assume)
        for site, cond in part.ctx.short:
            sites.setdefault(site, []).append(AND(ok, cond))
    possible = []
    for site, conds in sites.items():
        if _check(s, clock, OR(*conds)) != z3.unsat:
            possible.append(site)
    mid = enc.fresh_state("mid")
    rctx = Ctx("round")
    _, ends, _ = M.round_part(mid, rctx)
    r2 = _solver(clock)
    _add(r2, enc.wf(mid), NOT(mid.term), ends, *rctx.assume)
    round_sites: dict[str, list] = {}
    for site, cond in rctx.short:
        round_sites.setdefault(site, []).append(cond)
    for site, conds in round_sites.items():
        sites.setdefault(site, [])
        if site not in possible and _check(r2, clock, OR(*conds)) != z3.unsat:
            possible.append(site)
    never = sorted(set(sites) - set(possible))
    if not possible:
        return Result("supply", "proved", "no shared supply is ever asked for more than it holds "
                      f"(sites: {', '.join(sorted(sites)) or 'none'})", clock.elapsed())

    def short(u: Unroller, k: int) -> Any:
        if k == 0:
            return False
        t = u.t
        conds = []
        for n, part in enumerate(t.parts):
            if part.enabled is False:
                continue
            flags = [cnd for site, cnd in part.ctx.short if site in possible]
            if flags:
                conds.append(AND(t.sels[n], OR(*flags)))
        conds += [cnd for site, cnd in t.rctx.short if site in possible]
        prev = u.defined[k - 2] if k >= 2 else True
        return AND(u.sub(k - 1, zterm(OR(*conds))), prev)

    try:
        found = bmc(game, short, clock, max_depth, defined_last=False, min_depth=1)
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("supply", "unknown", f"not encoded: {exc}", clock.elapsed())
    if trace is not None:
        what = _short_sites(found, possible)
        return Result("supply", "witness", f"{what} at '{trace.actions[-1]}' after {k} action(s) "
                      f"of a legal game (never short: {', '.join(never) or 'none'})",
                      clock.elapsed(), trace, k)
    return Result("supply", "unknown", f"{', '.join(possible)} can run short from some "
                  f"well-formed state, but not within {k - 1} action(s) of a deal (unknown at "
                  f"bound {k}); never short: {', '.join(never) or 'none'}", clock.elapsed(),
                  bound=k)


def _short_sites(found: Found, sites: list[str]) -> str:
    """Which supplies the witness's last step asks for more than they hold."""
    u, m, k = found.u, found.model, found.k
    assert u is not None and m is not None
    ev = model_value(m)
    t = u.t
    n = u.chosen(m, k - 1)
    flags = [(site, cond) for site, cond in t.parts[n].ctx.short + t.rctx.short if site in sites]
    vals = u.sub_many(k - 1, [cond for _, cond in flags])
    hit = sorted({site for (site, _), v in zip(flags, vals, strict=True) if ev(v)})
    return " and ".join(hit) + (" runs" if len(hit) == 1 else " run") + " short"


# ---------------------------------------------------------------------- round bound
@bounded
def round_bound(game: model.Game, limit: float = TIME_LIMIT, max_depth: int = 40) -> Result:
    """Each action inside a round makes the spec's round measure fall (staying >= 0), so a
    round ends within the measure's value at the deal plus one action."""
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    if game.ir.measure is None:
        return _round_cycle(game, clock, max_depth, "the spec declares no round measure")
    assumed = _assume_invariants(game, clock)
    try:
        one = OneStep.build(M, in_round=True, invariants=assumed)
    except Unsupported as exc:
        return Result("round_bound", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = _solver(clock)
    _add(s, *one.pre)
    mctx = Ctx("m")
    m0 = M.measure(one.s, mctx)
    _add(s, mctx.defined("undefined"))
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        ctx = Ctx(f"e{n}")
        ends = M.round_end(part.post, Exec(enc, ctx))
        m1 = M.measure(part.post, ctx)
        bad = AND(_step_ok(part), NOT(ends), *ctx.assume, ctx.defined("undefined"),
                  NOT(AND(LE(0, m1), LT(m1, m0))))
        r = _check(s, clock, bad)
        if r == z3.sat:
            m = s.model()
            ev = model_value(m)
            trace = _situation_trace(game, M, m, one, n, part.post, None)
            finish(enc, trace)
            why = (f"the round measure goes from {ev(m0)} to {ev(m1)} after "
                   f"{trace.actions[0]} from the situation {enc.describe(trace.values[0])}")
            return _round_cycle(game, clock, max_depth, why)
        if r == z3.unknown:
            return Result("round_bound", "unknown", f"z3 gave up ({s.reason_unknown()})",
                          clock.elapsed())
    # the measure at a deal, maximised (first round and any later one)
    best = _max_measure(game, M, clock)
    if best is None:
        return Result("round_bound", "proved", "every action inside a round lowers the round "
                      "measure; its value at a deal could not be bounded", clock.elapsed())
    using = " (using the spec's invariants, proved inductive)" if assumed else ""
    return Result("round_bound", "proved", f"every action inside a round lowers the round "
                  f"measure{using}, which is at most {best} at a deal: a round lasts at most "
                  f"{best + 1} actions", clock.elapsed(), bound=best + 1)


def _max_measure(game: model.Game, M: Machine, clock: Clock) -> int | None:
    enc = M.enc
    o = z3.Optimize()
    o.set("timeout", clock.ms())
    ctx = Ctx("d")
    # a round start from any well-formed state (this covers the first deal too, whose
    # pre-deal state is well-formed)
    before = enc.fresh_state("b")
    start = M.between_rounds(before, ctx)
    mctx = Ctx("dm")
    value = M.measure(start, mctx)
    for c in [enc.wf(before), *ctx.assume, ctx.defined("undefined"), mctx.defined("undefined")]:
        if c is not True:
            o.add(zterm(c))
    h = o.maximize(zterm(value))
    if o.check() != z3.sat:
        return None
    v = h.value()
    return v.as_long() if z3.is_int_value(v) else None


def _round_cycle(game: model.Game, clock: Clock, max_depth: int, why: str) -> Result:
    """A state that repeats within one round: a round that need not end."""
    enc = machine(game).enc

    def cycle(u: Unroller, k: int) -> Any:
        outs = []
        for i in range(k):
            same_round = AND(*[NOT(u.sub(j, zterm(u.t.ends))) for j in range(i, k)])
            outs.append(AND(same_round, enc.equal(u.states[i], u.states[k])))
        return OR(*outs)

    try:
        found = bmc(game, cycle, clock, max_depth, min_depth=1)
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("round_bound", "unknown", f"{why}; not encoded: {exc}", clock.elapsed())
    if trace is not None:
        return Result("round_bound", "witness", f"{why}; a round can cycle: the state after "
                      f"{k} actions repeats an earlier one", clock.elapsed(), trace, k)
    return Result("round_bound", "unknown", f"{why}; no cycle inside a round within {k - 1} "
                  f"actions of a deal (unknown at bound {k})", clock.elapsed(), bound=k)


# ---------------------------------------------------------------------- game cycles
@bounded
def game_cycle(game: model.Game, limit: float = TIME_LIMIT, max_depth: int = 60,
               slots: int | None = None, start_condition: str | None = None) -> Result:
    """A game that comes back to the same round start, so can be played forever.

    Two searches: (1) step by step from a deal, two equal round starts; (2) one round
    that ends in the seat-rotated image of its start (a round start from any well-formed
    state): when the rules treat seats alike, the rotated round can follow, and P such
    rounds return to the start. The P rounds are built by rotating the first and the whole
    cycle is replayed on the concrete model (which settles whether the rules are indeed
    symmetric); then a one-round search from the first deal for that round start.
    """
    clock = Clock(limit)
    enc = machine(game).enc
    skip = frozenset(n for n in ("round",) if not enc.reads_var(n))

    def lasso(u: Unroller, k: int) -> Any:
        outs = []
        for i in range(k):
            outs.append(AND(u.round_start[i], enc.equal(u.states[i], u.states[k], skip)))
        return AND(u.round_start[k], NOT(u.states[k].term), OR(*outs))

    try:
        found = bmc(game, lasso, Clock(limit * 0.3), max_depth, min_depth=1)
        if found.trace is not None:
            t = found.trace
            first = next(i for i, v in enumerate(t.values)
                         if _same_start(enc, v, t.values[-1], skip))
            return Result("game_cycle", "witness", f"the round start after action {first} "
                          f"comes back after action {found.k}: those rounds can repeat "
                          "forever", clock.elapsed(), t, found.k)
        cond = parse_condition(game, start_condition) if start_condition else None
        res = _rotated_cycle(game, clock, skip, slots or 2 * enc.P + 4, cond)
    except Unsupported as exc:
        return Result("game_cycle", "unknown", f"not encoded: {exc}", clock.elapsed())
    if res is not None:
        return res
    rotated = (f"no round of at most {_ROTATED[0]} actions ends in the seat-rotated image of "
               "its start" if _ROTATED[1] else "the search for a round of at most "
               f"{_ROTATED[0]} actions ending in the seat-rotated image of its start did not "
               "finish in time")
    return Result("game_cycle", "unknown", f"no round start repeats within {found.k - 1} "
                  f"actions of a deal; {rotated} (unknown at those bounds)", clock.elapsed(),
                  bound=found.k)


_ROTATED = [0, False]  # slots tried, whether that check finished


def _rotated_cycle(game: model.Game, clock: Clock, skip: frozenset[str], slots: int,
                   cond: ir.Expr | None) -> Result | None:
    enc = machine(game).enc
    P = enc.P

    def rotated(o: OneRound, nxt: SymState, over: Any) -> Any:
        return AND(NOT(over), enc.equal(nxt, rotate_state(enc, o.states[0]), skip))

    o, length, found = one_round(game, clock, "any", rotated, slots, start_condition=cond,
                                 invariants=_assume_invariants(game, clock))
    _ROTATED[0], _ROTATED[1] = slots, length == slots  # slots checked only if refuted
    if found is None:
        return None
    m, nxt, rpairs = found
    start = enc.evaluate(m, o.states[0])
    actions, values, events = o.pieces(m, nxt, rpairs)
    # round 1 alone must replay exactly (a difference is a bug, not an asymmetry)
    finish(enc, Trace(game, "situation", list(actions), [start, *values], list(events)))
    # a prefix: one round from the first deal to this round start
    target = enc.state_of(start)

    def reach_start(o2: OneRound, nxt2: SymState, over2: Any) -> Any:
        return AND(NOT(over2), enc.equal(nxt2, target, skip))

    o2, _, found2 = one_round(game, clock, "deal", reach_start, slots)
    all_actions: list = []
    all_values: list = []
    all_events: list = []
    if found2 is not None:
        m2, nxt2, rpairs2 = found2
        a2, v2, e2 = o2.pieces(m2, nxt2, rpairs2)
        head = "deal"
        all_values.append(enc.evaluate(m2, o2.states[0]))
        all_events.append(events_in_model(m2, o2.init_ctx.events))
        all_actions += a2
        all_values += v2
        all_events += e2
        first_round = v2[-1]["vars"]["round"][0]
    else:
        head = "situation"
        all_values.append(start)
        first_round = start["vars"]["round"][0]
    cycle_from = len(all_actions)
    for r in range(P):
        for n, (a, v, e) in enumerate(zip(actions, values, events, strict=True)):
            v = rotate_values(enc, v, r)
            v["vars"]["round"] = [first_round + r + (1 if n == len(actions) - 1 else 0)]
            all_actions.append(a)
            all_values.append(v)
            all_events.append(rotate_events(enc, e, r))
    trace = Trace(game, head, all_actions, all_values, all_events)
    try:
        finish(enc, trace)
    except Disagreement as exc:
        return Result("game_cycle", "unknown", "a round ends in the seat-rotated image of its "
                      "start, but the rotated rounds do not replay on the concrete model (the "
                      f"rules do not treat seats alike): {str(exc).splitlines()[0]}",
                      clock.elapsed())
    states = concrete_states(enc, trace)
    a, b = enc.from_concrete(states[cycle_from]), enc.from_concrete(states[-1])
    same = all(x == y for x, y in zip(enc.variables_of(a, skip), enc.variables_of(b, skip),
                                      strict=True))
    if not same:
        return None
    where = ("from the first deal, after " + f"{cycle_from} actions" if head == "deal"
             else "from a round start (reaching it from the first deal was not shown)")
    return Result("game_cycle", "witness", f"{P} rounds of {len(actions)} actions each, "
                  f"{where}, return to the same round start (scores too): the game can go "
                  "on forever", clock.elapsed(), trace, len(all_actions))


def _same_start(enc: Any, a: dict, b: dict, skip: frozenset[str]) -> bool:
    return (a["zones"] == b["zones"] and a["terminal"] == b["terminal"]
            and all(a["vars"][n] == b["vars"][n] for n in a["vars"] if n not in skip))


# ---------------------------------------------------------------------- agreement
@bounded
def agreement(game: model.Game, games: int = 3, seed: int = 0, limit: float = TIME_LIMIT,
              max_steps: int = 400) -> Result:
    """Random concrete transitions satisfy the z3 transition relation: in each visited
    state the z3 guards give exactly the concrete legal actions, and the concrete successor
    is a z3 successor. A difference raises `Disagreement`."""
    clock = Clock(limit)
    M = machine(game, split_params=True)
    alts = M.alts()
    checked = 0
    for g in range(seed, seed + games):
        rng = random.Random(g)
        state = game.initial_state(g)
        steps = 0
        while not state.is_terminal and steps < max_steps and clock.left() > 0:
            actions = state.legal_actions()
            action = actions[rng.randrange(len(actions))]
            nxt = state.apply(action)
            if not check_transition(game, M, state, action, nxt, alts, clock):
                break  # out of time inside z3: that transition is not counted
            state = nxt
            steps += 1
            checked += 1
    if not checked:
        return Result("agreement", "unknown", "no transition was checked within the time limit",
                      clock.elapsed(), bound=0)
    return Result("agreement", "proved", f"{checked} random concrete transitions satisfy the z3 "
                  "transition relation (legal actions and successors)", clock.elapsed(),
                  bound=checked)


def check_transition(game: model.Game, M: Machine, state: model.State, action: model.Action,
                     nxt: model.State, alts: Sequence[Any] | None = None,
                     clock: Clock | None = None) -> bool:
    """Check one concrete transition against the z3 relation: raise Disagreement on a
    difference; False if z3 could not decide the successor before the clock ran out."""
    enc = M.enc
    pre = enc.from_concrete(state)
    legal = set(state.legal_actions())
    found = set()
    chosen = None
    for n, alt in enumerate(alts or M.alts()):
        part = M.action_part(pre, alt, f"t{n}")
        if part.enabled is False:
            continue
        if part.enabled is not True or not all(isinstance(x, int) for x in part.args):
            raise Disagreement(f"the guard of {game.ir.actions[alt.action].name} does not "
                               "evaluate to a constant on a concrete state")
        act = game.action(alt.action, tuple(part.args))
        found.add(act)
        if act == action:
            chosen = part
    if found != legal:
        raise Disagreement(f"legal actions differ: concrete {sorted(map(str, legal))}, z3 "
                           f"{sorted(map(str, found))}")
    assert chosen is not None
    rctx = chosen.ctx
    post, _, _ = M.round_part(chosen.post, rctx)
    s = z3.Solver() if clock is None else _solver(clock)
    _add(s, *rctx.assume, rctx.defined("undefined"), enc.equal(post, enc.from_concrete(nxt)))
    r = s.check() if clock is None else _check(s, clock)
    if r == z3.unknown:
        return False
    if r != z3.sat:
        raise Disagreement(f"the concrete successor of {action} is not a z3 successor "
                           f"(state {state.to_dict()})")
    return True


# ---------------------------------------------------------------------- all
QUERIES: dict[str, Callable[..., Result]] = {
    "conservation": conservation,
    "invariants": invariants,
    "legal_move": legal_move,
    "supply": supply,
    "round_bound": round_bound,
    "game_cycle": game_cycle,
    "agreement": agreement,
}

DESCRIPTIONS = {
    "conservation": "inductive: every action keeps every kind's count, from every well-formed state",
    "invariants": "the spec's invariants are inductive (so hold in every reachable state)",
    "legal_move": "every well-formed non-terminal state in a round has a legal action",
    "supply": "no shared supply is asked for more than it holds in a legal game",
    "round_bound": "the round measure falls with every action: a round ends within a bound",
    "game_cycle": "no cycle of rounds makes a game endless",
    "agreement": "random concrete transitions satisfy the z3 transition relation",
}


def run_all(game: model.Game, limit: float = TIME_LIMIT, only: Sequence[str] | None = None
            ) -> list[Result]:
    out = []
    for name, fn in QUERIES.items():
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        try:
            res = fn(game, limit=limit)
        except Unsupported as exc:
            res = Result(name, "unknown", f"not encoded: {exc}")
        res.seconds = time.perf_counter() - t0
        out.append(res)
    return out
