"""supply: whether a shared zone can be asked for more than it holds (a payment short, a draw
from an empty pile, an exchange the bank cannot make) in a legal game.
"""

from __future__ import annotations

from typing import Any

import z3

import model

from ...search import goals
from ..expressions import Ctx
from ..state import SymState, model_value
from ..terms import AND, NOT, OR, SUM, Unsupported, zterm
from ..witness import Disagreement, concrete_states
from . import deep, rounds, unroll
from .agreement import z3_step
from .common import (
    RLIMIT,
    SEARCH_BUDGET,
    Budget,
    Clock,
    OneStep,
    Result,
    add_all,
    bounded,
    budget,
    check_sat,
    machine,
    new_solver,
    step_ok,
)
from .invariants import assume_invariants
from .recorded import recorded_witness, start_of, steps
from .unroll import Found, Unroller, bmc, template


# ---------------------------------------------------------------------- supply
@bounded
def supply(game: model.Game, limit: int = RLIMIT, max_depth: int = 40,
           units: int | None = SEARCH_BUDGET) -> Result:
    """Can a shared zone be asked for more than it holds in a legal game? A replay file the
    spec records for this expected failure is tried first (`recorded.py`); the search from
    a deal spends at most `units` of z3's resources (None: only the query's budget)."""
    clock = Clock(limit)
    recorded = _recorded_shortage(game, clock)
    if recorded is not None:
        return recorded
    assumed = assume_invariants(game, clock)
    M = machine(game)
    enc = M.enc
    try:
        one = OneStep.build(M, in_round=True, invariants=assumed)
    except Unsupported as exc:
        return Result("supply", "unknown", f"not encoded: {exc}", clock.elapsed())
    s = new_solver(clock)
    add_all(s, *one.pre)
    # one step from any well-formed state (satisfying the spec's invariants, once proved):
    # which sites can run short at all? Actions first, then the round transition from any
    # well-formed state where a round ends (or, if that fails, after any such action).
    sites: dict[str, list] = {}
    for part in one.parts:
        if part.enabled is False:
            continue
        ok = AND(part.enabled, *part.ctx.assume)
        for site, cond in part.ctx.short:
            sites.setdefault(site, []).append(AND(ok, cond))
    possible = []
    for site, conds in sites.items():
        if check_sat(s, clock, OR(*conds)) != z3.unsat:
            possible.append(site)
    mid = enc.fresh_state("mid")
    rctx = Ctx("round")
    _, ends, _ = M.round_part(mid, rctx)
    r2 = new_solver(clock)
    add_all(r2, enc.wf(mid), NOT(mid.term), ends, *rctx.assume)
    round_sites: dict[str, list] = {}
    for site, cond in rctx.short:
        round_sites.setdefault(site, []).append(cond)
    after: list[str] = []  # may run short only from a round end no action leads to
    for site, conds in round_sites.items():
        sites.setdefault(site, [])
        if site not in possible and check_sat(r2, clock, OR(*conds)) != z3.unsat:
            possible.append(site)
            after.append(site)
    never = sorted(set(sites) - set(possible))
    if not possible:
        return Result("supply", "proved", "no shared supply is ever asked for more than it holds "
                      f"(sites: {', '.join(sorted(sites)) or 'none'})", clock.elapsed())

    # the deep search is cheap; z3 choosing each round's deal costs more but finds what
    # the search's few fixed deals miss, and shorter games than a long search path
    searched, explored = deep.shortage(game, clock, shortages, _runs_short)
    if searched is not None:
        if (searched.bound or 0) <= READABLE:
            return searched
        chained, _ = _chained_shortage(game, clock, possible, _chain_units(units))
        return searched if chained is None else min(searched, chained, key=_length)

    def short(u: Unroller, k: int) -> Any:
        if k == 0:
            return False
        in_action, in_round = shortage_flags(u.t, possible)
        prev = u.defined[k - 2] if k >= 2 else True
        return AND(u.sub(k - 1, z3.Or(in_action, in_round)), prev)

    try:
        # a witness first (most of the time); then, for the round transition's sites, a
        # proof that no action from a state satisfying the invariants leads to a shortage
        found = bmc(game, short, Clock(clock.left() * (1 - AFTER_SHARE)) if after and assumed
                    else clock, max_depth, defined_last=False, min_depth=1, budget=budget(units))
        trace, k = found.trace, found.k
    except Unsupported as exc:
        return Result("supply", "unknown", f"not encoded: {exc}", clock.elapsed())
    if trace is not None:
        what = _short_sites(found, possible)
        return Result("supply", "witness", f"{what} at '{trace.actions[-1]}' after {k} action(s) "
                      f"of a legal game (never short: {', '.join(never) or 'none'})",
                      clock.elapsed(), trace, k)
    if assumed and after:
        shown = [site for site in after if _never_after_actions(one, s, site, clock)]
        never = sorted({*never, *shown})
        possible = [site for site in possible if site not in shown]
        if not possible:
            return Result("supply", "proved", "no shared supply is ever asked for more than it "
                          f"holds (sites: {', '.join(sorted(sites))}; the round transition's "
                          "after any action from a state satisfying the spec's invariants)",
                          clock.elapsed())
    # z3's step-by-step search decided a depth with its own budget; what is left may find
    # deeper shortages round by round
    chained, rounds_done = _chained_shortage(game, clock, possible, _chain_units(units))
    if chained is not None:
        return chained
    if k - 1 < 1:
        return Result("supply", "unknown", f"{', '.join(possible)} can run short from some "
                      "well-formed state; the search from a deal decided no depth; never "
                      f"short: {', '.join(never) or 'none'}", clock.elapsed())
    return Result("supply", "bounded", f"no shared supply runs short in any game up to "
                  f"{k - 1} action(s) from the deal (the scoring they end included); beyond "
                  f"that not decided: {', '.join(possible)} can run short from some "
                  f"well-formed state; never short: {', '.join(never) or 'none'}; "
                  f"{explored.text()}, and {rounds.tried_text(rounds_done)}, without finding a "
                  "shortage",
                  clock.elapsed(), bound=k - 1)


#: The longest witness of the deep search reported without asking z3 for a shorter one:
#: a game a player can follow.
READABLE = 50

#: z3's units for choosing rounds one by one (`rounds.py`), shared by the measures tried (a
#: check of one round costs about 1-10 million): eight times the search's from a deal.
#: A three-round shortage of exchanged chips (docs/symbolic.md), by all the chips
#: together, takes 30-60 million (z3's work on a check depends on the formulas built
#: before it).
CHAIN_SHARE = 8
CHAIN_UNITS = SEARCH_BUDGET * CHAIN_SHARE


def shortage_flags(t: unroll.StepTemplate, possible: list[str] | None) -> tuple[Any, Any]:
    """In the step template: the chosen action asks one of the `possible` sites (None: any)
    for more than it holds; the round transition does."""
    def kept(site: str) -> bool:
        return possible is None or site in possible

    flagged = [AND(t.sels[n], OR(*flags)) for n, part in enumerate(t.parts)
               if part.enabled is not False
               and (flags := [c for site, c in part.ctx.short if kept(site)])]
    return zterm(OR(*flagged)), zterm(OR(*[c for site, c in t.rctx.short if kept(site)]))


def _chain_units(units: int | None) -> int:
    return CHAIN_UNITS if units is None else units * CHAIN_SHARE


def _length(r: Result) -> int:
    return r.bound or 0


def _chained_shortage(game: model.Game, clock: Clock, possible: list[str] | None,
                      units: int = CHAIN_UNITS) -> tuple[Result | None, list[rounds.Chained]]:
    """A shortage in rounds z3 chooses one after another, each deal its own. For each
    measure in turn, each round is the one that leaves it lowest, the game going on, until
    a round runs a supply short (one of the `possible` sites; None: any). The measures: the
    items left in the shared bags, all kinds together (a pool drained of one kind where
    another can still be drained, as chips that are only exchanged once every seat holds
    its most of the small ones), then each kind alone, the most plentiful first."""
    M = machine(game)
    enc, t = M.enc, template(M)
    in_slot, in_round = shortage_flags(t, possible)
    shape = goals.Shape(game)
    full = game.initial_state(0).z
    kinds = sorted(((full[i][k], i, j) for i in range(enc.n_inst)
                    if shape.bag[i] and shape.shared[i]
                    for j, k in enumerate(enc.inst_kinds[i]) if full[i][k]), reverse=True)

    def goal(o: unroll.OneRound, nxt: SymState, over: Any) -> Any:
        return z3.Or(*o.slot_terms(in_slot), o.round_term(in_round))

    def of(cells: list[tuple[int, int]]) -> rounds.Measure:
        return lambda o, nxt: SUM([nxt.Z[i][j] for i, j in cells])

    measures = [of([(i, j) for _, i, j in kinds])] if len(kinds) > 1 else []
    measures += [of([(i, j)]) for _, i, j in kinds]
    tried: list[rounds.Chained] = []
    left = min(units, int(clock.left() / 2))
    for n, measure in enumerate(measures):
        # all kinds together may take half; what a measure leaves, the next may use
        given = left // 2 if n == 0 and len(measures) > 1 else left // (len(measures) - n)
        share = Budget(given)
        found = rounds.chain(game, clock, share, goal, measure, slots=enc.P)
        left -= given - share.left
        tried.append(found)
        if found.trace is None:
            continue
        trace = found.trace
        states = concrete_states(enc, trace)
        for n, action in enumerate(trace.actions, 1):
            sites = shortages(game, states[n - 1], action, states[n],
                              Clock(max(clock.left(), 1)))
            if sites:
                return Result("supply", "witness", f"{_runs_short(sites)} at '{action}' after "
                              f"{n} action(s) of a legal game ({found.text()})",
                              clock.elapsed(), trace, n, found_by="z3"), tried
        raise Disagreement("z3 finds rounds in which a supply runs short, but no step of "
                           "their replay asks for more than a supply holds")
    return None, tried


#: The share of the units left for showing that a round-transition site cannot run short
#: after any action, once the search for a witness (the rest) has found none.
AFTER_SHARE = 0.25


def _never_after_actions(one: OneStep, s: z3.Solver, site: str, clock: Clock) -> bool:
    """Whether the round transition's `site` cannot run short after any action taken from
    a state satisfying the proved invariants (`one.pre`, already in `s`): a round-end state
    is never observed, so this, not any well-formed state, is where a round begins."""
    for n, part in enumerate(one.parts):
        if part.enabled is False:
            continue
        _, ends, _, rctx = one.after(n)
        flags = [cond for name, cond in rctx.short if name == site]
        if not flags:
            continue
        if check_sat(s, clock, AND(step_ok(part, rctx), ends, OR(*flags))) != z3.unsat:
            return False
    return True


def _short_sites(found: Found, sites: list[str]) -> str:
    """Which supplies the witness's last step asks for more than they hold."""
    u, m, k = found.u, found.model, found.k
    assert u is not None and m is not None
    ev = model_value(m)
    t = u.t
    n = u.chosen(m, k - 1)
    flags = [(site, cond) for site, cond in t.parts[n].ctx.short + t.rctx.short if site in sites]
    vals = u.sub_many(k - 1, [cond for _, cond in flags])
    return _runs_short(sorted({site for (site, _), v in zip(flags, vals, strict=True) if ev(v)}))


def _runs_short(sites: list[str]) -> str:
    return " and ".join(sites) + (" runs" if len(sites) == 1 else " run") + " short"


# ---------------------------------------------------------------------- recorded witness
def _recorded_shortage(game: model.Game, clock: Clock) -> Result | None:
    """The shortage the spec records as an expected failure, if its replay file shows one:
    a step of the replay at which a shared supply is asked for more than it holds."""
    found = recorded_witness(game, "z3_supply")
    if found is None:
        return None
    path, data = found
    try:
        for n, state, action, nxt in steps(game, data):
            sites = shortages(game, state, action, nxt, clock)
            if sites:
                return Result("supply", "witness", f"the recorded witness {path} replays on the "
                              f"concrete model: {_runs_short(sites)} at '{action}' after {n} "
                              "action(s)", clock.elapsed(), bound=n, found_by="recorded",
                              start=start_of(data))
    except model.RulespecError:  # a step that cannot be played: the file shows nothing
        return None
    return None


def shortages(game: model.Game, state: model.State, action: model.Action, nxt: model.State,
              clock: Clock) -> list[str]:
    """The supplies the concrete step from `state` by `action` to `nxt` (the round
    transition it triggers included) asks for more than they hold: the z3 encoding's own
    shortage flags, the ones the search looks for, on the z3 transition pinned to this
    step. Empty if z3 cannot decide within the clock; a step the encoding disagrees with
    raises Disagreement."""
    step = z3_step(game, machine(game, split_params=True), state, action, nxt, clock=clock)
    if step is None:
        return []
    s, ctx = step
    return sorted({site for site, cond in ctx.short
                   if check_sat(s, clock, NOT(cond)) == z3.unsat})
