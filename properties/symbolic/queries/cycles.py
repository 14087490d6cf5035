"""round_bound and game_cycle: the round measure falls with every action (so a round ends
within a bound) or a cycle inside a round; a game that returns to the same round start
(so can go on forever), step by step or as one round ending in the seat-rotated image of
its start.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import z3

import model
from model import ir

from ...search import goals
from ..execute import Exec
from ..expressions import Ctx
from ..machine import Machine
from ..state import SymState, model_value
from ..terms import AND, LE, LT, NOT, OR, OutOfTime, Unsupported, zterm
from ..witness import Disagreement, Trace, concrete_states, events_in_model, finish
from . import deep, rounds, skeletons
from .common import (
    RLIMIT,
    SEARCH_BUDGET,
    Clock,
    OneStep,
    Result,
    add_all,
    bounded,
    budget,
    check_sat,
    machine,
    new_solver,
    situation_trace,
    step_ok,
)
from .invariants import (
    assume_invariants,
    invariants,
    invariants_proved,
    not_assumed,
    related_invariants,
)
from .reach import parse_condition
from .recorded import recorded_witness, repeated_in_round, repeated_start, start_of
from .rotation import rotate_events, rotate_state, rotate_values
from .unroll import OneRound, Unroller, bmc, one_round


# ---------------------------------------------------------------------- round bound
@bounded
def round_bound(game: model.Game, limit: int = RLIMIT, max_depth: int = 40,
                units: int | None = SEARCH_BUDGET) -> Result:
    """Each action inside a round makes the spec's round measure fall (staying >= 0), so a
    round ends within the measure's value at the deal plus one action."""
    clock = Clock(limit)
    M = machine(game)
    enc = M.enc
    recorded = _recorded_round_cycle(game, clock)
    if recorded is not None and (recorded.start == "deal" or game.ir.measure is not None):
        return recorded
    if game.ir.measure is None:
        # a recorded cycle from a situation stands only where none is found from a deal
        found = _round_cycle(game, clock, max_depth, "the spec declares no round measure",
                             units)
        return recorded if recorded is not None and not found.failed else found
    assumed = assume_invariants(game, clock)
    try:
        one = OneStep.build(M, in_round=True, invariants=assumed)
    except Unsupported as exc:
        return Result("round_bound", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = new_solver(clock)
    add_all(s, *one.pre)
    mctx = Ctx("m")
    m0 = M.measure(one.s, mctx)
    add_all(s, mctx.defined("undefined"))
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        ctx = Ctx(f"e{n}")
        ends = M.round_end(part.post, Exec(enc, ctx))
        m1 = M.measure(part.post, ctx)
        bad = AND(step_ok(part), NOT(ends), *ctx.assume, ctx.defined("undefined"),
                  NOT(AND(LE(0, m1), LT(m1, m0))))
        r = check_sat(s, clock, bad)
        if r == z3.sat:
            m = s.model()
            ev = model_value(m)
            trace = situation_trace(game, M, m, one, n, part.post, None)
            finish(enc, trace)
            why = (f"the round measure goes from {ev(m0)} to {ev(m1)} after "
                   f"{trace.actions[0]} from the situation {enc.describe(trace.values[0])}"
                   + ("" if assumed else not_assumed(game)))
            return _round_cycle(game, clock, max_depth, why, units)
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


def _replayed_witness(game: model.Game, prop: str,
                      repeated: Callable[[dict], tuple[int, int] | None]
                      ) -> tuple[str, dict, tuple[int, int]] | None:
    """The witness file the spec records for `prop`, its data, and the two actions after
    which its replay is in the same place (None: no file, or it does not replay so)."""
    found = recorded_witness(game, prop)
    if found is None:
        return None
    path, data = found
    try:
        again = repeated(data)
    except model.RulespecError:  # a step that cannot be played: the file shows nothing
        return None
    return None if again is None else (path, data, again)


def _recorded_round_cycle(game: model.Game, clock: Clock) -> Result | None:
    """The cycle inside a round the spec records as an expected failure, if its replay
    file comes back to a state it has been at within one round."""
    replayed = _replayed_witness(game, "z3_round_bound", lambda d: repeated_in_round(game, d))
    if replayed is None:
        return None
    path, data, again = replayed
    head = "the first deal" if data.get("situation") is None else "a recorded situation"
    return Result("round_bound", "witness", f"the recorded witness {path} replays on the "
                  f"concrete model: from {head}, the state after action {again[0]} comes back "
                  f"after action {again[1]} within one round, so a round need not end",
                  clock.elapsed(), bound=again[1], found_by="recorded", start=start_of(data))


def _max_measure(game: model.Game, M: Machine, clock: Clock) -> int | None:
    enc = M.enc
    o = z3.Optimize()
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
    if check_sat(o, clock) != z3.sat:
        return None
    v = h.value()
    return v.as_long() if z3.is_int_value(v) else None


def _round_cycle(game: model.Game, clock: Clock, max_depth: int, why: str,
                 units: int | None) -> Result:
    """A state that repeats within one round: a round that need not end."""
    enc = machine(game).enc
    searched, explored = deep.round_cycle(game, clock)
    if searched is not None:
        return searched

    def cycle(u: Unroller, k: int) -> Any:
        outs = []
        for i in range(k):
            same_round = AND(*[NOT(u.sub(j, zterm(u.t.ends))) for j in range(i, k)])
            outs.append(AND(same_round, enc.equal(u.states[i], u.states[k])))
        return OR(*outs)

    try:
        found = bmc(game, cycle, clock, max_depth, min_depth=1, budget=budget(units))
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("round_bound", "unknown", f"{why}; not encoded: {exc}", clock.elapsed())
    if trace is not None:
        return Result("round_bound", "witness", f"{why}; a round can cycle: the state after "
                      f"{k} actions repeats an earlier one", clock.elapsed(), trace, k)
    if k - 1 < 1:
        return Result("round_bound", "unknown", f"{why}; the search for a cycle inside a round "
                      "decided no depth", clock.elapsed())
    return Result("round_bound", "bounded", f"{why}; no state repeats inside a round in any "
                  f"game up to {k - 1} action(s) from the deal; beyond that not decided "
                  f"({explored.text()} without finding a cycle inside a round)",
                  clock.elapsed(), bound=k - 1)


# ---------------------------------------------------------------------- game cycles
@bounded
def game_cycle(game: model.Game, limit: int = RLIMIT, max_depth: int = 60,
               slots: int | None = None, start_condition: str | None = None,
               units: int | None = SEARCH_BUDGET) -> Result:
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
    try:
        proof = _game_measure(game, clock)
    except Unsupported:
        proof = None
    if proof is not None:
        return proof
    skip = frozenset(n for n in ("round",) if not enc.reads_var(n))
    recorded = _recorded_cycle(game, skip, clock)
    if recorded is not None:
        return recorded
    log = goals.RoundLog(game)  # the rounds the deep search plays, for the skeletons
    tried = skeletons.Tried()
    searched, explored = deep.game_cycle(game, skip, clock, log)
    if searched is not None:
        return searched

    def lasso(u: Unroller, k: int) -> Any:
        outs = []
        for i in range(k):
            outs.append(AND(u.round_start[i], enc.equal(u.states[i], u.states[k], skip)))
        return AND(u.round_start[k], NOT(u.states[k].term), OR(*outs))

    try:
        found = bmc(game, lasso, Clock(clock.left() * LASSO_SHARE), max_depth, min_depth=1,
                    budget=budget(units and units // 2))
        if found.trace is not None:
            t = found.trace
            first = next(i for i, v in enumerate(t.values)
                         if _same_start(enc, v, t.values[-1], skip))
            return Result("game_cycle", "witness", f"the round start after action {first} "
                          f"comes back after action {found.k}: those rounds can repeat "
                          "forever", clock.elapsed(), t, found.k)
        cond = parse_condition(game, start_condition) if start_condition else None
        try:
            res = _rotated_cycle(game, Clock(clock.left() * ROTATED_SHARE), skip,
                                 slots or 2 * enc.P + 4, cond, units and units // 2, log,
                                 tried)
        except OutOfTime:  # its formulas were not built in time: the first search stands
            res = None
            _ROTATED[1] = False
    except Unsupported as exc:
        return Result("game_cycle", "unknown", f"not encoded: {exc}", clock.elapsed())
    if res is not None:
        return res
    rotated = (f"no round of at most {_ROTATED[0]} actions from any round start ends in its "
               "seat-rotated image" if _ROTATED[1] else "the search for a round of at most "
               f"{_ROTATED[0]} actions ending in the seat-rotated image of its start did not "
               "finish within its budget") + f"; {tried.text()}"
    k = found.k - 1
    if k < 1:
        return Result("game_cycle", "unknown", f"the search from a deal decided no depth; "
                      f"{rotated}", clock.elapsed())
    return Result("game_cycle", "bounded", f"no game comes back to a round start it has been "
                  f"at within its first {k} action(s) from the deal; beyond that not decided "
                  f"({rotated}; {explored.text()} without finding a game cycle)",
                  clock.elapsed(), bound=k)


def _recorded_cycle(game: model.Game, skip: frozenset[str], clock: Clock) -> Result | None:
    """The game cycle the spec records as an expected failure, if its replay file comes
    back to a round start it has been at (the variables in `skip` aside)."""
    replayed = _replayed_witness(game, "z3_game_cycle", lambda d: repeated_start(game, d, skip))
    if replayed is None:
        return None
    path, data, again = replayed
    head = "the first deal" if data.get("situation") is None else "a recorded round start"
    return Result("game_cycle", "witness", f"the recorded witness {path} replays on the "
                  f"concrete model: from {head}, the round start after action {again[0]} "
                  f"comes back after action {again[1]}, so those rounds can repeat forever",
                  clock.elapsed(), bound=again[1], found_by="recorded", start=start_of(data))


#: The shares of a game_cycle query's budget for the search step by step from a deal, then
#: (of what is left) for the rotated-round searches (any round, then the skeletons, with
#: the rounds from the first deal to the start found); each also stops at its own
#: resource budget. The rest is not used: a row that does not find a cycle is better
#: reported bounded than after the whole budget.
LASSO_SHARE = 0.25
ROTATED_SHARE = 0.9

_ROTATED = [0, False]  # slots tried, whether that check finished


def _rotated_cycle(game: model.Game, clock: Clock, skip: frozenset[str], slots: int,
                   cond: ir.Expr | None, units: int | None,
                   log: goals.RoundLog | None = None,
                   tried: skeletons.Tried | None = None) -> Result | None:
    """A round from any round start that ends in its seat-rotated image, then P such
    rounds as a cycle: first any round of at most `slots` actions, then (with `log`) the
    skeletons of the rounds the deep search played, filled in by z3, each asked to end
    with the seats moved on as its played rounds moved them (by one, or back by one when
    the last seat went out)."""
    enc = machine(game).enc

    rotated = rotated_targets(enc, skip)
    o, length, found = one_round(game, clock, "any", rotated(1, frozenset()), slots,
                                 start_condition=cond,
                                 invariants=assume_invariants(game, clock),
                                 budget=budget(units))
    _ROTATED[0], _ROTATED[1] = slots, length == slots  # slots checked only if refuted
    if found is not None:
        return _rotated_rounds(game, clock, skip, o, found)
    if log is None:
        return None
    from_situation: Result | None = None
    for o, found, note, by, held in skeletons.rotated_rounds(
            game, clock, rotated, log, cond, skip, tried or skeletons.Tried()):
        res = _rotated_rounds(game, clock, skip, o, found, note, by, held)
        if res is None or res.status != "witness":
            continue
        if res.trace is not None and res.trace.start == "deal":
            return res
        from_situation = from_situation or res
    return from_situation


def rotated_targets(enc: Any, skip: frozenset[str]) -> skeletons.Targets:
    """The goal of a round that ends, the game going on, in its start with every seat
    moved on by `by` (the variables in `skip` aside, those `held` where they were)."""
    def rotated(by: int, held: frozenset[str]) -> skeletons.Target:
        def target(o: OneRound, nxt: SymState, over: Any) -> Any:
            return AND(NOT(over),
                       enc.equal(nxt, rotate_state(enc, o.states[0], by, held), skip))
        return target
    return rotated


def _rotated_rounds(game: model.Game, clock: Clock, skip: frozenset[str], o: OneRound,
                    found: tuple[z3.ModelRef, SymState, list], how: str = "",
                    by: int = 1, held: frozenset[str] = frozenset()) -> Result | None:
    """The cycle of rounds that a round ending in the image of its start with every seat
    moved on by `by` (the variables in `held` kept) makes (P / gcd(by, P) of them),
    replayed on the concrete model, with
    the rounds from the first deal that reach its start if z3 finds them (else it starts
    from that round start)."""
    enc = machine(game).enc
    P = enc.P
    n_rounds = P // math.gcd(by, P)
    m, nxt, rpairs = found
    start = enc.evaluate(m, o.states[0])
    actions, values, events = o.pieces(m, nxt, rpairs)
    # round 1 alone must replay exactly (a difference is a bug, not an asymmetry)
    finish(enc, Trace(game, "situation", list(actions), [start, *values], list(events)))
    prefix = (_first_rounds(o, m, nxt, rpairs, len(actions)) if o.done
              else rounds.reach(game, clock, enc.state_of(start), skip, P))
    all_actions: list = []
    all_values: list = []
    all_events: list = []
    if prefix is not None:
        head = "deal"
        all_actions += prefix.actions
        all_values += prefix.values
        all_events += prefix.events
        first_round = prefix.values[-1]["vars"]["round"][0]
    else:
        head = "situation"
        all_values.append(start)
        first_round = start["vars"]["round"][0]
    cycle_from = len(all_actions)
    for r in range(n_rounds):
        for n, (a, v, e) in enumerate(zip(actions, values, events, strict=True)):
            v = rotate_values(enc, v, r * by, held)
            v["vars"]["round"] = [first_round + r + (1 if n == len(actions) - 1 else 0)]
            all_actions.append(a)
            all_values.append(v)
            all_events.append(rotate_events(enc, e, r * by))
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
    moved = "" if by == 1 else f", every seat moved on by {by} at each round's end"
    return Result("game_cycle", "witness", f"{n_rounds} rounds of {len(actions)} actions "
                  f"each{moved}, {where}, return to the same round start (scores too): the game can go "
                  f"on forever{how}", clock.elapsed(), trace, len(all_actions))


def _first_rounds(o: OneRound, m: z3.ModelRef, nxt: SymState, rpairs: list,
                  length: int) -> Trace:
    """The rounds from the first deal that `o` played before its last (of `length`
    actions), replayed."""
    actions, values, events = o.played(m, nxt, rpairs)
    cut = len(actions) - length
    trace = Trace(o.game, "deal", actions[:cut],
                  [o.enc.evaluate(m, o.done[0][0][0]), *values[:cut]],
                  [events_in_model(m, o.init_ctx.events), *events[:cut]])
    return finish(o.enc, trace)


def _same_start(enc: Any, a: dict, b: dict, skip: frozenset[str]) -> bool:
    return (a["zones"] == b["zones"] and a["terminal"] == b["terminal"]
            and all(a["vars"][n] == b["vars"][n] for n in a["vars"] if n not in skip))


# ---------------------------------------------------------------------- game measure
#: The share of game_cycle's budget the invariants the game measure reads may take: where a
#: spec declares a measure, its proof is worth more than a short search.
MEASURE_SHARE = 0.75


def _game_measure(game: model.Game, clock: Clock) -> Result | None:
    """The spec's game measure (`game_end.measure`) proves that every game ends: between
    actions it is >= 0, no action raises it, and every round end that does not end the
    game lowers it (from any state satisfying the spec's invariants, once they are proved
    inductive; the round transition after each action from such a state). Then no game
    has more rounds than its value at the first deal, plus one. None if that is not
    proved (the searches for a cycle then run)."""
    if game.ir.game_measure is None:
        return None
    # the invariants that share a variable or zone with the measure, if those alone are
    # inductive (the others may be beyond z3, and cost more to try): none at all for a
    # measure that reads no variable or zone an invariant reads; else all of them
    names: list[str] | None = related_invariants(game, game.ir.game_measure)
    if invariants_proved(game):
        return _measure_proof(game, clock, None)
    if names == [] or invariants(game, limit=max(int(clock.left() * MEASURE_SHARE), 1),
                                 names=names).status == "proved":
        proof = _measure_proof(game, clock, names)
        if proof is not None or names:
            return proof
    if not assume_invariants(game, clock):
        return None
    return _measure_proof(game, clock, None)


def _measure_proof(game: model.Game, clock: Clock, names: list[str] | None) -> Result | None:
    """`_game_measure`'s proof from the invariants `names` (None: all, proved inductive;
    an empty list: none)."""
    M = machine(game)
    one = OneStep.build(M, in_round=True, invariants=True, names=names)
    mctx = Ctx("gm")
    m0 = M.game_measure(one.s, mctx)
    s = new_solver(clock)
    add_all(s, *one.pre, *mctx.assume)
    if check_sat(s, clock, OR(LT(m0, 0), mctx.failing("undefined"))) != z3.unsat:
        return None
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        # no action raises it (asked of the action alone: no round transition to carry)
        actx = Ctx(f"ga{n}")
        goes_on = NOT(M.round_end(part.post, Exec(M.enc, actx)))
        m1 = M.game_measure(part.post, actx)
        raised = AND(step_ok(part), *actx.assume, goes_on,
                     OR(LT(m0, m1), actx.failing("undefined")))
        if check_sat(s, clock, raised) != z3.unsat:
            return None
        # and every round end lowers it, one goal at a time (far easier for z3)
        post, ends, over, rctx = one.after(n)
        ctx = Ctx(f"gm{n}")
        m1 = M.game_measure(post, ctx)
        taken = AND(step_ok(part, rctx), *ctx.assume, ends, NOT(over))
        for bad in (LE(m0, m1), ctx.failing("undefined")):
            if check_sat(s, clock, AND(taken, bad)) != z3.unsat:
                return None
    best = _max_at_deal(M, clock)
    rounds = f"at most {best + 1} rounds" if best is not None else "finitely many rounds"
    using = ("using the spec's invariants, proved inductive" if names is None else
             "using no invariant" if not names else
             f"using the invariant{'s' if len(names) > 1 else ''} {', '.join(names)}, proved "
             "inductive")
    return Result("game_cycle", "proved", f"no cycle of rounds: a game has {rounds}, since "
                  "the game measure is >= 0 between actions, no action raises it and every "
                  f"round end lowers it ({using})",
                  clock.elapsed(), bound=None if best is None else best + 1)


def _max_at_deal(M: Machine, clock: Clock) -> int | None:
    o = z3.Optimize()
    ctx = Ctx("gd")
    start = M.initial(ctx)
    value = M.game_measure(start, ctx)
    for c in [*ctx.assume, ctx.defined("undefined")]:
        if c is not True:
            o.add(zterm(c))
    h = o.maximize(zterm(value))
    if check_sat(o, clock) != z3.sat:
        return None
    v = h.value()
    return v.as_long() if z3.is_int_value(v) else None
