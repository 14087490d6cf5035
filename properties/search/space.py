"""The state graph the deep search walks: states of the compiled model, with chance as a
choice among a fixed set of deals, and the replay file of a path through it.

A shuffle here depends only on the cards shuffled and the deal chosen for it (the
game's canonical order of kinds, then a permutation drawn from that deal's number), not
on the step: so a round dealt from a full deck with the same deal deals the same hands,
and a state reached twice is the same node of the graph, whatever its history.
"""

from __future__ import annotations

from _random import Random as MersenneTwister
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

import model
from model.chance import RecordingChance, fisher_yates

#: The deals a shuffle may take: each shuffle of a path is one of these, chosen by the
#: search. More deals widen the graph at every shuffle; the few kept here let a search
#: prefer a deal that brings it nearer its goal.
DEALS = 3


class ChosenChance:
    """A shuffle decided by `deal` (set by the search before each step), the pile's contents
    and how many shuffles the step has made (`used`, reset by the search before each
    step)."""

    __slots__ = ("canonical", "deal", "used")

    def __init__(self, game: model.Game, deal: int = 0) -> None:
        self.canonical = game.canonical
        self.deal = deal
        self.used = 0

    def shuffle(self, pile: list[int]) -> None:
        # the n-th shuffle of a step differs from the one before it: a rule that shuffles
        # again until the cards fall right would otherwise deal the same cards forever
        self.used += 1
        self.canonical(pile)
        fisher_yates(pile, MersenneTwister(self.deal * 4096 + self.used).random)


@attrs.define(eq=False, slots=True)
class Node:
    """A state the search reached: how (the action and the deal its shuffles took, None if
    it shuffled nothing) and from where."""

    state: model.State
    parent: Node | None
    action: model.Action | None
    deal: int | None
    depth: int

    def path(self) -> list[Node]:
        """The nodes from the start to this one, the start first."""
        out: list[Node] = []
        node: Node | None = self
        while node is not None:
            out.append(node)
            node = node.parent
        return out[::-1]


@attrs.define
class Explored:
    """What a search covered: its budget is `states`; `rounds` counts the rounds it played
    out (searches over rounds) and `deals` the starting deals it tried."""

    states: int = 0
    rounds: int = 0
    deals: int = 0
    deepest: int = 0

    def text(self) -> str:
        rounds = f", {self.rounds} rounds played out" if self.rounds else ""
        return (f"the deep search explored {self.states} states{rounds} from {self.deals} "
                f"deal(s), at most {self.deepest} actions deep")


def starts(game: model.Game, deals: int = DEALS) -> Iterator[Node]:
    """The first deal of the game under each choice of deal."""
    for d in range(deals):
        try:
            yield Node(game.initial_state(0, chance=ChosenChance(game, d)), None, None, d, 0)
        except model.ModelError:  # a set-up this deal leaves undefined is not searched
            continue


def successors(node: Node, deals: int = DEALS,
               legal: Callable[[model.State], list[model.Action]] | None = None
               ) -> Iterator[tuple[model.Action, int | None, model.State]]:
    """Each legal action from `node`, and for an action that shuffles, each deal it may
    take: (the action, the deal or None, the state after). A step the rules leave
    undefined (a ModelError) is not followed: the property suite reports those."""
    state = node.state
    chance = ChosenChance(state.game)
    for action in (legal or model.State.legal_actions)(state):
        chance.deal, chance.used = 0, 0
        try:
            nxt = state.apply(action, chance=chance)
        except model.ModelError:
            continue
        if not chance.used:
            yield action, None, nxt
            continue
        yield action, 0, nxt
        for d in range(1, deals):
            chance.deal, chance.used = d, 0
            try:
                yield action, d, state.apply(action, chance=chance)
            except model.ModelError:
                continue


def replay_of(game: model.Game, node: Node, note: str = "") -> dict[str, Any]:
    """The replay file (properties.concrete.trace format) of the path to `node`: its
    actions and the outcome of every shuffle, recorded by playing the path again."""
    from model.schema import SPEC_DIR

    path = node.path()
    chosen = ChosenChance(game, path[0].deal or 0)
    recording = RecordingChance(chosen)
    state = game.initial_state(0, chance=recording)
    for step in path[1:]:
        assert step.action is not None
        chosen.deal, chosen.used = step.deal or 0, 0
        state = state.apply(step.action, chance=recording)
    assert state == node.state, "a path of the deep search replays to another state"
    spec = game.ir.file
    if Path(spec).resolve() == (SPEC_DIR / f"{game.id}.yaml").resolve():
        spec = game.id
    names = game.kind_names
    data: dict[str, Any] = {"spec": spec, "players": game.players, "seed": 0,
                            "variants": dict(game.ir.chosen),
                            "actions": [str(n.action) for n in path[1:]],
                            "shuffles": [[names[k] for k in order]
                                         for order in recording.outcomes]}
    if note:
        data["note"] = note
    return data
