"""Seeded random playouts with the generic property checks applied after every action.

Each property here is generic: it reads only what the spec declares (kinds and their
copies, the round measure, the invariants), never a game's name or rules.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import attrs

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
}


@attrs.frozen
class Finding:
    """A property that failed in one game: where, and the actions that led there."""

    property: str
    players: int
    seed: int
    message: str
    actions: tuple[str, ...]
    variants: dict[str, str] = attrs.field(factory=dict)


@attrs.define
class Limits:
    max_actions: int = 20_000  # per game
    max_round: int = 5_000  # per round, used where a spec declares no measure


def expected_totals(game: Game) -> list[int]:
    return [k.copies for k in game.ir.kinds]


def play_and_check(game: Game, seed: int, limits: Limits | None = None,
                   deep: bool = False) -> tuple[list[Finding], Counter]:
    """Play one seeded random game, checking every property after every action.

    `deep` adds the costlier checks (value semantics, illegal actions, determinism) on
    every action instead of every 16th.
    """
    limits = limits or Limits()
    rng = random.Random(seed)
    # Odd seeds play with a random preference per action (some actions become rare), so
    # that rules which uniform play seldom reaches (a hand emptied, say) are exercised.
    weights = None if seed % 2 == 0 else [
        rng.random() ** 3 + 1e-3 for _ in game.ir.actions]
    findings: list[Finding] = []
    trace: list[str] = []
    fired = Counter()
    totals = expected_totals(game)
    measure = game.ns["measure"]
    variants = dict(game.ir.chosen)

    def fail(prop: str, message: str) -> None:
        findings.append(Finding(prop, game.players, seed, message, tuple(trace), variants))

    try:
        state = game.initial_state(seed)
    except ModelError as exc:
        fail("rules_defined", f"set-up failed: {exc}")
        return findings, fired
    _check_state(game, state, totals, fail)
    round_len = 0
    last_measure = measure(state.z, state.v)
    seen_actions: dict[int, Action] = {}
    steps = 0
    while not state.is_terminal:
        if findings:
            return findings, fired
        if steps >= limits.max_actions:
            fail("game_ends", f"no end after {steps} actions (round {state.round})")
            return findings, fired
        actions = state.legal_actions()
        if not actions:
            fail("legal_move", f"player {state.active_player} has no legal action in round "
                               f"{state.round}")
            return findings, fired
        if weights is None:
            action = actions[rng.randrange(len(actions))]
        else:
            action = rng.choices(actions, [weights[a.index] for a in actions])[0]
        for a in actions:
            seen_actions.setdefault(id(a), a)
        check_deep = deep or steps % 16 == 0
        before = _snapshot(state) if check_deep else None
        try:
            nxt = state.apply(action)
        except ModelError as exc:
            trace.append(str(action))
            fail("rules_defined", str(exc))
            return findings, fired
        trace.append(str(action))
        fired[action.name] += 1
        steps += 1
        if before is not None:
            if _snapshot(state) != before:
                fail("value_semantics", f"apply({action}) changed the state it was applied to")
            _check_illegal(state, actions, seen_actions, fail)
            if state.apply(action) != nxt:
                fail("determinism", f"applying {action} twice gave two different states")
        if nxt.round == state.round and not nxt.is_terminal:
            round_len += 1
            m = measure(nxt.z, nxt.v)
            if m is not None:
                if not 0 <= m < last_measure:
                    fail("round_ends", f"the round measure went from {last_measure} to {m} "
                                       f"after {action}")
                last_measure = m
            elif round_len > limits.max_round:
                fail("round_ends", f"round {state.round} has gone on for {round_len} actions")
        else:
            round_len = 0
            last_measure = measure(nxt.z, nxt.v) if not nxt.is_terminal else None
        _check_state(game, nxt, totals, fail)
        state = nxt
    return findings, fired


class Counter(dict):
    """Counts of how often each action was taken (coverage of the rules)."""

    def __missing__(self, key: str) -> int:
        return 0


def _snapshot(state: State) -> tuple:
    return (tuple(tuple(z) for z in state.z), state.v, state.is_terminal)


def _check_state(game: Game, state: State, totals: list[int], fail) -> None:
    have = game.total_counts(state)
    if have != totals:
        diffs = [f"{game.kind_names[k]}: {h} instead of {t}"
                 for k, (h, t) in enumerate(zip(have, totals, strict=True)) if h != t]
        fail("conservation", "; ".join(diffs))
    for name, holds in game.invariants:
        try:
            ok = holds(state.z, state.v)
        except ModelError as exc:
            fail("invariants", f"{name} cannot be evaluated: {exc}")
            continue
        if not ok:
            fail("invariants", f"invariant {name} does not hold")


def _check_illegal(state: State, legal: list[Action], seen: dict[int, Action], fail) -> None:
    legal_ids = {id(a) for a in legal}
    for a in seen.values():
        if id(a) in legal_ids:
            continue
        before = _snapshot(state)
        try:
            state.apply(a)
        except IllegalAction:
            if _snapshot(state) != before:
                fail("illegal_rejected", f"the rejected {a} changed the state")
        except ModelError:
            fail("illegal_rejected", f"{a} raised a model error instead of IllegalAction")
        else:
            fail("illegal_rejected", f"{a} was accepted although it is not among the legal "
                                     "actions")
        return


def seeds(first: int, count: int) -> Iterator[int]:
    return iter(range(first, first + count))
