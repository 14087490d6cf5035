"""The deep search (`properties.search`) as a step of the supply and cycle queries.

A query whose z3 search from a deal reaches only a few actions asks the deep search for
a witness on the concrete model. What it finds is written as a replay file and checked
by the very test a recorded witness passes (`recorded.py`: a step where the z3
encoding's shortage flags hold on the pinned transition; two equal round starts; two
equal states within a round), so a witness the search finds and one a spec records are
judged alike. Its budget is a number of states (`STATES`), the same on any machine.
"""

from __future__ import annotations

from collections.abc import Callable

import model

from ...search import goals
from ...search.space import Explored, replay_of
from .common import Clock, Result
from .recorded import repeated_in_round, repeated_start, steps

#: The states the deep search may explore for one query (a supply running short; a cycle
#: within a round, whose states cost more, as each is compared with its recent ancestors,
#: but which may have to empty every pile first); a game cycle, whose rounds may have to
#: be played to their last card (`goals.WIDENING`), more.
STATES = 150_000
ROUND_STATES = 150_000
GAME_CYCLE_STATES = 400_000
#: z3 resource units for checking one concrete step for a shortage (`supply.shortages`).
STEP_UNITS = 5_000_000
#: The share of a supply query's units its step checks may spend in all, so that z3's own
#: search from a deal keeps most of the budget when the deep search finds nothing.
CHECK_SHARE = 0.25


def shortage(game: model.Game, clock: Clock,
             shortages: Callable[[model.Game, model.State, model.Action, model.State, Clock],
                                 list[str]],
             runs_short: Callable[[list[str]], str]) -> tuple[Result | None, Explored]:
    """A shortage of a shared supply the deep search finds, checked step by step with
    `shortages` (the supply query's check of one concrete step) and described by
    `runs_short`."""
    checks = Clock(clock.left() * CHECK_SHARE)  # all the step checks together

    def confirm(state: model.State, action: model.Action, nxt: model.State) -> list[str]:
        if checks.left() <= STEP_UNITS:
            return []
        return shortages(game, state, action, nxt, Clock(STEP_UNITS))

    hit, explored = goals.shortage(game, confirm, STATES)
    if hit is None:
        return None, explored
    data = replay_of(game, hit.node, "z3_supply: found by the deep search")
    for n, state, action, nxt in steps(game, data):
        sites = shortages(game, state, action, nxt, Clock(max(clock.left(), 1)))
        if sites:
            return Result("supply", "witness", f"{runs_short(sites)} at '{action}' after {n} "
                          f"action(s) of a legal game ({explored.text()})", clock.elapsed(),
                          bound=n, found_by="search", start="deal", replay=data), explored
    return None, explored


def game_cycle(game: model.Game, skip: frozenset[str], clock: Clock,
               log: goals.RoundLog | None = None) -> tuple[Result | None, Explored]:
    """A game cycle the deep search finds: a replay that comes back to a round start.
    `log` records the rounds it played."""
    hit, explored = goals.game_cycle(game, skip, GAME_CYCLE_STATES, log)
    return _cycle(game, hit, explored, clock, "game_cycle",
                  lambda data: repeated_start(game, data, skip),
                  "the round start after action {} comes back after action {}: those rounds "
                  "can repeat forever")


def round_cycle(game: model.Game, clock: Clock) -> tuple[Result | None, Explored]:
    """A cycle inside a round the deep search finds from a deal."""
    hit, explored = goals.round_cycle(game, ROUND_STATES)
    return _cycle(game, hit, explored, clock, "round_bound", lambda data: repeated_in_round(
        game, data), "the state after action {} comes back after action {} within one round, "
        "so a round need not end")


def _cycle(game: model.Game, hit: goals.Found | None, explored: Explored, clock: Clock,
           query: str, repeated: Callable[[dict], tuple[int, int] | None], says: str
           ) -> tuple[Result | None, Explored]:
    """The cycle found, as a replay file that `repeated` (the recorded witness's test) sees
    come back to where it has been, or None."""
    if hit is None:
        return None, explored
    data = replay_of(game, hit.node, f"z3_{query}: found by the deep search")
    again = repeated(data)
    if again is None:
        return None, explored
    return Result(query, "witness", f"from the first deal, {says.format(*again)} "
                  f"({explored.text()})", clock.elapsed(), bound=again[1], found_by="search",
                  start="deal", replay=data), explored
