"""The per-state and per-step property checks every game gets, shared by every runner.

The seeded playouts of `rulespec check` (properties/concrete/playout.py), the Hypothesis state
machine (properties/concrete/stateful.py) and `rulespec replay` all check a game with these
functions, so a property means the same thing wherever it is reported. Each check
reads only what the spec declares (kinds and their copies, the round measure, the
invariants), never a game's name or rules. A check returns the problems it found as
`(property, message)` pairs; an empty list means the property holds here.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable, Iterable

from model import Action, Game, IllegalAction, ModelError, State

#: The properties every game gets, with what each means (the check table prints these).
PROPERTIES = {
    "conservation": "every card and token kind keeps its count across all zones",
    "legal_move": "the player to act always has a legal action until the game ends",
    "round_ends": "each round ends: the spec's round measure drops with every action",
    "game_ends": "every game ends within the action limit",
    "invariants": "the spec's own invariants hold in every state",
    "rules_defined": "the rules never ask for something impossible (an empty pile drawn from)",
    "value_semantics": "apply leaves the old state exactly as it was",
    "determinism": "the same seed and choices give the same states",
    "illegal_rejected": "an illegal action raises IllegalAction and changes nothing",
    "observation": "the player to act has the same legal actions in every state that looks "
                   "the same to them, and each seat its part of a joint action (a choice "
                   "never depends on what the chooser cannot see)",
}

#: How many other states, with the same observation for the player to act, each checked
#: state is compared with (the items hidden from that player dealt anew each time).
REDEALS = 2

Problem = tuple[str, str]

#: Used where a spec declares no round measure: a round longer than this fails round_ends.
DEFAULT_ROUND_LIMIT = 5_000


def expected_totals(game: Game) -> list[int]:
    """How many of each kind the spec says exist (its `copies`)."""
    return [k.copies for k in game.ir.kinds]


def counter(game: Game) -> Callable[[State], list[int]]:
    """How many of each kind lie in a state's zones together: `Game.total_counts`, 3 to 6
    times as fast (bags are summed column by column in C, not item by item), because the
    playouts and the state machine count after every action."""
    count = _COUNTERS.get(game)
    if count is None:
        layout = game.layout
        kinds = len(game.kind_names)
        slots = [z.order == "pile" for z in game.ir.zones for _ in range(layout.zone_count[z.name])]
        piles = [i for i, pile in enumerate(slots) if pile]
        bags = [i for i, pile in enumerate(slots) if not pile]

        def count(state: State) -> list[int]:
            z = state.z
            totals = list(map(sum, zip(*[z[i] for i in bags], strict=True))) if bags \
                else [0] * kinds
            for i in piles:
                for k in z[i]:
                    totals[k] += 1
            return totals

        _COUNTERS[game] = count
    return count


_COUNTERS: weakref.WeakKeyDictionary[Game, Callable[[State], list[int]]] = \
    weakref.WeakKeyDictionary()


def snapshot(state: State) -> tuple:
    """A deep, hashable copy of a state's contents, to see whether anything changed it."""
    return (tuple(tuple(z) for z in state.z), state.v, state.is_terminal)


def state_problems(game: Game, state: State, totals: list[int] | None = None,
                   legal: list[Action] | None = None, observe: bool = True) -> list[Problem]:
    """Conservation, the spec's invariants, legal-move existence and (unless `observe` is
    false) the observation property, in one state."""
    out: list[Problem] = []
    totals = totals if totals is not None else expected_totals(game)
    have = counter(game)(state)
    if have != totals:
        diffs = [f"{game.kind_names[k]}: {h} instead of {t}"
                 for k, (h, t) in enumerate(zip(have, totals, strict=True)) if h != t]
        out.append(("conservation", "; ".join(diffs)))
    for name, holds in game.invariants:
        try:
            ok = holds(state.z, state.v)
        except ModelError as exc:
            out.append(("invariants", f"{name} cannot be evaluated: {exc}"))
            continue
        if not ok:
            out.append(("invariants", f"invariant {name} does not hold"))
    if not state.is_terminal:
        if legal is None:
            try:
                legal = state.legal_actions()
            except ModelError as exc:  # an index out of range in a guard, say
                out.append(("rules_defined", f"the legal actions cannot be listed: {exc}"))
                return out
        if not legal:
            out.append(("legal_move", f"player {state.active_player} has no legal action in "
                                      f"round {state.round}, and the game is not over"))
        if observe:
            out += observation_problems(game, state, legal)
    return out


def observation_problems(game: Game, state: State, legal: list[Action]) -> list[Problem]:
    """Each seat that chooses must have the same choices in each of `REDEALS` states that
    look the same to it (`State.redeal`, seeded by the state's step, so a replay checks the
    same states). The player to act chooses the ordinary actions of `legal`; in a joint
    action (`simultaneous: true`) every seat chooses its own part (`Action.component`), so
    each seat's parts are compared against that seat's own observation, the other seats'
    parts left out. A spec whose guard or parameter list reads a zone hidden from the
    chooser fails, naming the choices that differ and the zones dealt otherwise."""
    seats = [state.active_player]
    if any(a.is_joint for a in legal):
        seats += [s for s in range(game.players) if s != state.active_player]
    rng = random.Random(f"rulespec observation check {state.step}")
    for p in seats:
        if not game.observer(p).blind:
            continue
        mine = _choices(legal, p, state.active_player)
        for _ in range(REDEALS):
            other = state.redeal(p, rng)
            try:
                theirs = _choices(other.legal_actions(), p, state.active_player)
            except ModelError as exc:
                dealt = _dealt_otherwise(game, state, other)
                return [("observation", f"player {p}'s legal actions cannot be listed in a "
                                        f"state that looks the same to them ({dealt} dealt "
                                        f"otherwise): {exc}")]
            if theirs != mine:
                dealt = _dealt_otherwise(game, state, other)
                gained = [text for text in theirs if text not in mine]
                lost = [text for text in mine if text not in theirs]
                what = "; ".join(x for x in (
                    f"{', '.join(gained)} becomes legal" if gained else "",
                    f"{', '.join(lost)} is no longer legal" if lost else "",
                    "the order differs" if not gained and not lost else "") if x)
                return [("observation", f"player {p}'s legal actions depend on what they cannot "
                                        f"see: with {dealt} dealt otherwise (the same for "
                                        f"them), {what}; a guard or a parameter list reads a "
                                        "zone hidden from the player who chooses")]
    return []


def _choices(legal: list[Action], seat: int, active: int) -> list[str]:
    """What `seat` chooses among `legal`, in order and each once: the ordinary actions if
    it is the player to act, and its own part of each joint action (`lay c3`, as part of
    `lay c3 | ...`)."""
    out: dict[str, None] = {}
    for a in legal:
        if a.is_joint:
            out[f"{a.component_text(seat)} (seat {seat}'s part of {a.name})"] = None
        elif seat == active:
            out[str(a)] = None
    return list(out)


def _dealt_otherwise(game: Game, state: State, other: State) -> str:
    """The zones (members of families by index) whose contents a redeal changed."""
    names = [f"{z.name}" if z.per is None else f"{z.name}[{j}]" for z in game.ir.zones
             for j in range(game.layout.zone_count[z.name])]
    changed = [n for n, a, b in zip(names, state.z, other.z, strict=True) if a != b]
    return ", ".join(changed) or "nothing"


def illegal_problems(state: State, action: Action) -> list[Problem]:
    """`action` is not legal in `state`: applying it must raise IllegalAction, change nothing."""
    before = snapshot(state)
    try:
        state.apply(action)
    except IllegalAction:
        if snapshot(state) != before:
            return [("illegal_rejected", f"the rejected {action} changed the state")]
        return []
    except ModelError:
        return [("illegal_rejected", f"{action} raised a model error instead of IllegalAction")]
    return [("illegal_rejected", f"{action} was accepted although it is not among the legal "
                                 "actions")]


def first_illegal(legal: list[Action], known: Iterable[Action], turn: int = 0) -> Action | None:
    """One action from `known` that is not in `legal` (rotating with `turn`), or None."""
    legal_ids = {id(a) for a in legal}
    candidates = [a for a in known if id(a) not in legal_ids]
    if not candidates:
        return None
    return candidates[turn % len(candidates)]


class RoundMeasure:
    """The round_ends check: the spec's `round.measure` drops with every action of a round.

    The measure is a whole number >= 0 that every action inside a round lowers, so its
    value when a round starts bounds the number of actions the round can take. Where a
    spec declares no measure, a round longer than `limit` actions fails instead.
    """

    def __init__(self, game: Game, limit: int = DEFAULT_ROUND_LIMIT) -> None:
        self.measure = game.ns["measure"]
        self.limit = limit
        self.last: int | None = None
        self.bound: int | None = None
        self.length = 0

    def start(self, state: State) -> list[Problem]:
        """A round has started in `state` (after the deal, or after a round ended)."""
        self.length = 0
        if state.is_terminal:
            self.last = self.bound = None
            return []
        try:
            m = self.measure(state.z, state.v)
        except ModelError as exc:
            return [("round_ends", f"the round measure cannot be evaluated: {exc}")]
        self.last = self.bound = m
        if m is not None and m < 0:
            return [("round_ends", f"the round measure is {m} when round {state.round} "
                                   "starts; it must not be negative")]
        return []

    def step(self, before: State, action: Action, after: State) -> list[Problem]:
        """Check one action; `before` and `after` are the states around it."""
        if after.is_terminal or after.round != before.round:
            return self.start(after)
        self.length += 1
        try:
            m = self.measure(after.z, after.v)
        except ModelError as exc:
            return [("round_ends", f"the round measure cannot be evaluated: {exc}")]
        if m is None:
            if self.length > self.limit:
                return [("round_ends", f"round {before.round} has gone on for {self.length} "
                                       "actions (the spec declares no round measure)")]
            return []
        last, self.last = self.last, m
        if last is not None and not 0 <= m < last:
            return [("round_ends", f"the round measure went from {last} to {m} after {action}, "
                                   "so nothing bounds the round's length (the spec's "
                                   "round.measure must drop with every action and stay >= 0; "
                                   f"it was {self.bound} when round {before.round} started)")]
        return []
