"""A directed search for a shorter parting game: best-first over pairs of states (one per
version) from a deal, toward the state where a known parting game parts them.

A random game that parts two versions usually gets there by a long way round: the rare
situation it needed (a pile drawn empty, a supply run short, a score reached) took many
actions that did not bring it nearer. This search plays both versions alike from the same
deal and the same record of shuffles, and always expands the pair whose old state is
nearest the known parting state, by the distance the deep search uses (`search.goals.Shape`:
zones by their counts or lengths, variables by their values), the deepest among pairs as
near (so that a stretch of play that neither nears nor leaves it is crossed, not filled in
breadth first) — a falsification search
directed by how far the state is from the situation that shows the difference. Every pair
expanded is checked as `lockstep` checks a step (the legal actions, then every action's
outcome), so any parting found counts, not only one at that state.

Chance is the record's: each pair carries its own copy of both versions' chances, so a
path found replays linearly from the record. The budget is a number of pairs expanded.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

from model import Game, ModelError, State
from model.chance import ScriptedChance

from ..search.goals import Shape
from .lockstep import Found, Names, legal_by_key, outcome_differences

#: Pairs of states the directed search may expand.
PAIRS = 4_000


def toward(old: Game, new: Game, start: tuple[State, State, ScriptedChance, ScriptedChance],
           target: State, shorter_than: int, names: Names | None = None,
           pairs: int = PAIRS, by_size: bool = False) -> tuple[Found | None, int]:
    """A parting game of fewer than `shorter_than` steps from the pair `start` (both
    versions' states at the deal and their chances), best-first toward `target` (an old
    version's state; with `by_size`, its zones read by their sizes alone); and the pairs
    expanded."""
    from ..concrete.trace import describe

    shape = Shape(old)
    distance = shape.size_distance if by_size else shape.distance
    order = itertools.count()
    so, sn, co, cn = start
    heap: list[tuple[Any, int, State, State, ScriptedChance, ScriptedChance,
                     tuple[str, ...]]] = []
    seen = {(so, sn, len(co.outcomes))}
    # nearest first; among pairs as near, the deepest (a plateau is crossed, not filled)
    heapq.heappush(heap, ((distance(so, target), 0), next(order), so, sn, co, cn, ()))
    expanded = 0
    while heap and expanded < pairs:
        _, _, so, sn, co, cn, taken = heapq.heappop(heap)
        if so.is_terminal or len(taken) + 1 >= shorter_than:
            continue
        expanded += 1
        lo, ln = legal_by_key(so, names), legal_by_key(sn, None)
        if set(lo) != set(ln):
            return Found(taken, "legal", so.active_player, tuple(str(a) for a in lo.values()),
                         tuple(str(a) for a in ln.values()), situation=describe(old, so)
                         ), expanded
        for key, ao in lo.items():
            diff = outcome_differences(old, new, so, sn, ao, ln[key], co, cn, names)
            if diff is not None:
                return Found((*taken, str(ao)), "state", so.active_player, differences=diff,
                             situation=describe(old, so)), expanded
            co2, cn2 = co.copy(), cn.copy()
            try:
                po, pn = so.apply(ao, co2), sn.apply(ln[key], cn2)
            except ModelError:
                continue
            k = (po, pn, len(co2.outcomes))
            if k in seen:
                continue
            seen.add(k)
            heapq.heappush(heap, ((distance(po, target), -(len(taken) + 1)), next(order),
                                  po, pn, co2, cn2, (*taken, str(ao))))
    return None, expanded
