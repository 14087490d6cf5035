"""agreement: random concrete transitions satisfy the z3 transition relation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import z3

import model

from ..expressions import Ctx
from ..machine import Machine
from ..witness import Disagreement
from .common import (
    RLIMIT,
    Clock,
    Result,
    add_all,
    bounded,
    check_sat,
    machine,
    new_solver,
)


# ---------------------------------------------------------------------- agreement
@bounded
def agreement(game: model.Game, games: int = 2, seed: int = 0, limit: int = RLIMIT,
              max_steps: int = 200) -> Result:
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
                break  # the budget ran out inside z3: that transition is not counted
            state = nxt
            steps += 1
            checked += 1
    if not checked:
        return Result("agreement", "unknown", "no transition was checked within the budget",
                      clock.elapsed(), bound=0)
    return Result("agreement", "proved", f"{checked} random concrete transitions satisfy the z3 "
                  "transition relation (legal actions and successors)", clock.elapsed(),
                  bound=checked)


def check_transition(game: model.Game, M: Machine, state: model.State, action: model.Action,
                     nxt: model.State, alts: Sequence[Any] | None = None,
                     clock: Clock | None = None) -> bool:
    """Check one concrete transition against the z3 relation: raise Disagreement on a
    difference; False if z3 could not decide the successor before the clock ran out."""
    return z3_step(game, M, state, action, nxt, alts, clock) is not None


def z3_step(game: model.Game, M: Machine, state: model.State, action: model.Action,
            nxt: model.State, alts: Sequence[Any] | None = None, clock: Clock | None = None
            ) -> tuple[z3.Solver, Ctx] | None:
    """The z3 transition (action and any round transition) from the concrete `state` by
    `action` to `nxt`: a solver whose assertions pin it down (satisfiable), and the Ctx
    that collected what it did (its chance, events, shortages). `M` must split parameters.
    Raise Disagreement where the z3 relation and the concrete model differ; None if z3
    could not decide the successor before the clock ran out."""
    enc = M.enc
    pre = enc.from_concrete(state)
    legal = set(state.legal_actions())
    found = set()
    chosen = None
    active = pre.V["active"][0]
    domains: dict = {}
    todo = []
    for n, alt in enumerate(alts or M.alts()):
        if alt.actor is not None and alt.actor != active:
            continue  # its guard asks that another player act: not built, as it is disabled
        if alt.slots is None and game.ir.actions[alt.action].joint:  # one per joint action
            todo += [(f"t{n}.{m}", one) for m, one in enumerate(M.concrete_alts(pre, alt))]
        else:
            todo.append((f"t{n}", alt))
    for tag, alt in todo:
        part = M.action_part(pre, alt, tag, domains=domains)
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
    s = z3.Solver() if clock is None else new_solver(clock)
    add_all(s, *rctx.assume, rctx.defined("undefined"), enc.equal(post, enc.from_concrete(nxt)))
    r = s.check() if clock is None else check_sat(s, clock)
    if r == z3.unknown:
        return None
    if r != z3.sat:
        raise Disagreement(f"the concrete successor of {action} is not a z3 successor "
                           f"(state {state.to_dict()})")
    return s, rctx
