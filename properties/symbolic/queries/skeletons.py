"""Rounds that end in the seat-rotated image of their start, with z3 filling in the
skeleton of a round the deep search played.

A game cycle of rounds, each the last one with every seat moved on by the same number of
seats, needs one round from some round start to its rotated image
(`cycles._rotated_cycle`). The rotation asked for is the one the skeleton's played rounds
made (every player-valued variable moved on by as many seats, as when whoever goes out
starts the next round: `goals.RoundLog.rotations`), so a round in which the last seat
goes out is asked to end with every seat moved back by one. Asked for any such round of
up to L actions from any round start, z3 must choose every slot's action as well as the
hands and the start: a shedding game at three players took it
1.2-1.4 billion resource units (docs/symbolic.md). With each slot's action *name* fixed
(a skeleton: quit, play, quit, play five times, return_chip), it chooses only the start,
the hands and the arguments: 15 million; a skeleton that cannot end so is refuted in a
few million.

The skeletons are those of the rounds the deep search played (`goals.RoundLog`), the
least imbalanced first: a rotated round moves nothing between the seats and the shared
zones, so a round played with chips going back to the pool as well as out of it comes
before one in which everybody only took. A skeleton filled in is asked for again as a
game's second round, so that its start is reached from the first deal by construction
(`_second_round`). The budget is a number of skeletons and of z3 resource units, so what
is found does not depend on the machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import attrs
import z3

import model
from model import ir

from ...search import goals
from ..state import SymState
from ..terms import AND, EQ, LE
from . import rounds
from .common import Budget, Clock, add_all, spent
from .unroll import OneRound, constrain_start, substitute_many

#: Skeletons tried at most, the z3 units one check may take and all of them together.
SKELETONS = 60
CHECK_UNITS = 160_000_000
UNITS = 400_000_000
#: The units of the check that asks for a skeleton found as the second round of a game,
#: and how many actions more than one a seat its first round may take.
DEAL_UNITS = 120_000_000
FIRST_EXTRA = 2

Target = Callable[[OneRound, SymState, Any], Any]
#: the target of a round that ends in the start rotated by so many seats, the player-valued
#: variables named held where they were
Targets = Callable[[int, frozenset[str]], Target]


@attrs.define
class Tried:
    """How far the skeleton search went: skeletons checked, of those offered, and the
    units spent."""

    checked: int = 0
    offered: int = 0
    units: int = 0

    def text(self) -> str:
        if not self.offered:
            return "the deep search played no round to take a skeleton from"
        return (f"z3 filled in {self.checked} of {self.offered} round skeletons the deep "
                f"search played ({self.units // 1_000_000} million units)")


def rotated_rounds(game: model.Game, clock: Clock, target: Targets, log: goals.RoundLog,
                   cond: ir.Expr | None, skip: frozenset[str], tried: Tried
                   ) -> Iterator[tuple[OneRound, tuple[z3.ModelRef, SymState, list], str, int,
                                       frozenset[str]]]:
    """Each round z3 finds from any round start (satisfying `cond`, once proved the
    invariants, each variable but those in `skip` within what the deep search saw) that
    follows one of the logged skeletons and meets `target` for a rotation its rounds
    made: the search, its model, a note saying where its skeleton came from, the
    rotation (seats moved on) and the variables it holds. Where z3 also finds that round
    as a game's second round, from the first deal (`_second_round`), that search and
    model come first.

    A skeleton z3 does not decide with the first seat free is asked again with seat 0 to
    act: a round from any other seat is the rotation of one from seat 0 (a rotated cycle
    presumes that the rules treat seats alike, and its replay on the concrete model
    checks it), and a free seat has z3 search each seat's copy of the same round (a
    three-player round of ten actions: not decided in 300 million units with the seat
    free; with it fixed, found within one check, 36 to 118 million units by what was
    already in z3's context). The free seat is tried first because what z3 finds next,
    the same round from the first deal, depends on what it did before: fixing the seat
    first lost a four-player round from the first deal."""
    from .invariants import assume_invariants

    invariants = assume_invariants(game, clock)
    candidates = log.candidates(SKELETONS)
    tried.offered = len(candidates)
    start = spent()
    for i, skeleton in enumerate(candidates, 1):
        held = log.held(skeleton)
        for by in log.rotations(skeleton):
            filled = None
            for seat_0 in (False, True):  # the first seat fixed only if free was undecided
                # what the rounds from the first deal to the start found need is kept
                left = min(UNITS - (spent() - start), clock.left() - rounds.REACH_UNITS)
                if left <= 0:
                    return
                tried.checked = i
                r, filled = fill_in(game, clock, log, skeleton, target(by, held), cond, skip,
                                    invariants, min(CHECK_UNITS, left), seat_0)
                tried.units = spent() - start
                if r != z3.unknown:
                    break
            if filled is None:
                continue
            o, found = filled
            note = (f" (z3 filled in the skeleton of a round the deep search played, "
                    f"{len(skeleton)} actions, {i} of {tried.offered} tried)")
            left = min(DEAL_UNITS, clock.left() - rounds.REACH_UNITS)
            dealt = _second_round(game, clock, skeleton, target(by, held), cond, left) \
                if left > 0 else None
            tried.units = spent() - start
            if dealt is not None:
                yield (*dealt, note, by, held)
            yield o, found, note, by, held


def fill_in(game: model.Game, clock: Clock, log: goals.RoundLog, skeleton: tuple[str, ...],
            target: Target, cond: ir.Expr | None, skip: frozenset[str], invariants: bool,
            units: int, seat_0: bool
            ) -> tuple[z3.CheckSatResult, tuple[OneRound, tuple[z3.ModelRef, SymState, list]]
                       | None]:
    """z3's answer whether a round of `skeleton` meets `target` from a round start it
    chooses (`cond`, the invariants if proved, the variables but `skip` as the log saw
    them; with `seat_0`, seat 0 to act), within `units`; the search and its model if so."""
    o = OneRound(game, clock, "any", Budget(units))
    constrain_start(o, cond, invariants)
    add_all(o.s, *_as_seen(log, o.states[0], skip))
    if seat_0:
        o.s.add(EQ(o.states[0].V["active"][0], 0))
    return _ask(o, skeleton, target)


def _second_round(game: model.Game, clock: Clock, skeleton: tuple[str, ...], target: Target,
                  cond: ir.Expr | None, units: int
                  ) -> tuple[OneRound, tuple[z3.ModelRef, SymState, list]] | None:
    """The round of `skeleton` meeting `target` as a game's second round: z3 chooses the
    first deal and a first round of at most P + FIRST_EXTRA actions (everyone quits at
    once, one player goes out: the short rounds) as well. None if not found in `units`."""
    o = OneRound(game, clock, "deal", Budget(units))
    for _ in range(game.players + FIRST_EXTRA):
        o.add_slot()
    o.follow()
    constrain_start(o, cond, False)
    return _ask(o, skeleton, target)[1]


def _ask(o: OneRound, skeleton: tuple[str, ...], target: Target
         ) -> tuple[z3.CheckSatResult, tuple[OneRound, tuple[z3.ModelRef, SymState, list]]
                    | None]:
    """z3's answer whether `o`, going on with a round of `skeleton`, meets `target`; the
    search and its model if so."""
    _take_skeleton(o, skeleton)
    r, found = o.check(target)
    return r, ((o, found) if r == z3.sat else None)


def _take_skeleton(o: OneRound, skeleton: tuple[str, ...]) -> None:
    """One slot per action of `skeleton`, each taking an action of that name."""
    names = [a.name for a in o.game.ir.actions]
    t = o.t
    for name in skeleton:
        o.add_slot()
        chosen = [t.sels[n] for n, part in enumerate(t.parts)
                  if part.enabled is not False and names[part.alt.action] == name]
        o.s.add(substitute_many(o.maps[-1], [z3.Or(*chosen)])[0] if chosen
                else z3.BoolVal(False))


def _as_seen(log: goals.RoundLog, st: SymState, skip: frozenset[str]) -> list[Any]:
    """Each variable of the round start `st` (those in `skip` aside) within the range the
    deep search saw at round starts: z3 would otherwise pick a start no play reaches
    (with every seat owing 27 points while the pool is full)."""
    out: list[Any] = []
    for (name, i), (lo, hi) in log.ranges().items():
        if name in skip or name not in st.V or type(lo) is not int or type(hi) is not int:
            continue  # numbers only: a name or a yes/no is coded otherwise in z3
        x = st.V[name][i]
        out.append(EQ(x, lo) if lo == hi else AND(LE(lo, x), LE(x, hi)))
    return out
